//! The prescan and the per-context determinations on any input: they never panic; in
//! strict mode the prescan equals the prescan of the first N bytes; and the answer is
//! the same whether the bytes come whole or in chunks split anywhere.
//!
//! Input layout: byte 0 picks the strict N (0–2040 in steps of 8), byte 1 seeds the
//! split points; the rest is the input.
#![no_main]

use whatenc::sniff::{Context, EndCondition, HtmlOptions, PrescanStatus, Sniffer, prescan, prescan_available};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [n, seed, input @ ..] = data else { return };
    let n = *n as usize * 8;
    let points = whatenc_fuzz::split_points(*seed, input.len(), 67);
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
