//! The prescan and the per-context determinations on any input: they never panic; in
//! strict mode the prescan equals the prescan of the first N bytes; and the answer is
//! the same whether the bytes come whole or in chunks split anywhere.
//!
//! Input layout: byte 0 picks the strict N (0–2040 in steps of 8), byte 1 seeds the
//! split points; the rest is the input.
#![no_main]

use whatenc::sniff::{Context, EndCondition, HtmlOptions, PrescanStatus, Sniffer, prescan, prescan_available};

/// Chunk ends from a seed (xorshift), ending at `len`; a step of 0 is an empty chunk.
fn splits(seed: u8, len: usize) -> Vec<usize> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ seed as u64;
    let mut points = Vec::new();
    let mut position = 0;
    while position < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        position = (position + (state % 67) as usize).min(len);
        points.push(position);
    }
    points
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [n, seed, input @ ..] = data else { return };
    let n = *n as usize * 8;
    let points = splits(*seed, input.len());
    let strict = EndCondition::Strict(n);
    // Strict mode sees exactly the first N bytes.
    assert_eq!(prescan(input, strict), prescan(&input[..n.min(input.len())], strict));
    let small = EndCondition::Observed { limit: n, overrun: 64 };
    for end in [EndCondition::default(), strict, small] {
        // The prescan of growing prefixes decides as the whole does.
        let whole = prescan(input, end);
        let mut decided = None;
        for &point in &points {
            match prescan_available(&input[..point], end, false) {
                PrescanStatus::NeedMore => continue,
                PrescanStatus::Found(found) => decided = Some(Some(found)),
                PrescanStatus::Failure => decided = Some(None),
            }
            break;
        }
        assert_eq!(decided.unwrap_or_else(|| prescan(input, end)), whole);
        // So does the HTML sniffer, and it hands over every byte pushed.
        let context = Context::Html(HtmlOptions { end_condition: end, ..Default::default() });
        let mut sniffer = Sniffer::new(context);
        let mut start = 0;
        for &point in &points {
            let decided = sniffer.push(&input[start..point]);
            start = point;
            if decided.is_some() {
                break;
            }
        }
        assert!(sniffer.buffered().len() <= end.max_bytes().max(3) + 67);
        let determination = sniffer.finish(true);
        assert_eq!(determination, context.determine(input));
        assert_eq!(sniffer.into_sniffed().unwrap().buffered, &input[..start]);
    }
    // The other contexts never panic and agree with themselves chunked.
    for context in [
        Context::Xml { content_type: Some(input) },
        Context::Css { content_type: None, link_charset: Some(input), document_encoding: None },
        Context::ClassicScript {
            content_type: Some(input),
            charset_attribute: None,
            document_encoding: whatenc::UTF_8,
        },
    ] {
        let mut sniffer = Sniffer::new(context);
        for window in input.chunks(7) {
            if sniffer.push(window).is_some() {
                break;
            }
        }
        assert_eq!(sniffer.finish(true), context.determine(input));
    }
});
