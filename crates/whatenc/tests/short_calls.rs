//! The UTF-8 decoder's fast paths (`decode_to_utf16` in one scalar pass that hands
//! pieces of dense text to the vector kernels, `decode_to_string` straight into the
//! string from a new decoder's first call) against encoding_rs: every BOM handling
//! and error mode, input of mostly ASCII and of other scripts, short and longer than
//! a dense piece (4 KiB), with errors and sequences cut by the end, in one call and
//! cut at every point into two.

mod common;

use common::Rng;
use whatenc::{BomHandling, DecoderOptions, DecoderResult, ErrorMode, UTF_8};

/// Pieces the inputs are made of: ASCII, characters of two, three and four bytes,
/// malformed sequences (a lone continuation byte, overlong forms, a surrogate, past
/// U+10FFFF, bytes never used), BOMs and bytes that start one.
const PIECES: &[&[u8]] = &[
    b"a",
    b"word ",
    b"<p class=x>",
    "é".as_bytes(),
    "д".as_bytes(),
    "中".as_bytes(),
    "€".as_bytes(),
    "\u{FFFF}".as_bytes(),
    "😀".as_bytes(),
    b"\x80",
    b"\xC0\xAF",
    b"\xE0\x80\xAF",
    b"\xED\xA0\x80",
    b"\xF4\x90\x80\x80",
    b"\xF5",
    b"\xFF",
    b"\xEF\xBB\xBF",
    b"\xFE\xFF",
    b"\xFF\xFE",
    b"\xE4\xB8",
    b"\xF0\x9F\x98",
];

/// Text of one script: Cyrillic, Chinese (so that the scalar pass hands over).
const DENSE: &[&str] = &["Съешь же ещё этих мягких французских булок", "中文字符的编码与解码测试文本"];

fn input(rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    let dense = rng.chance(30);
    while bytes.len() < target {
        if dense && rng.chance(70) {
            bytes.extend_from_slice(DENSE[rng.below(DENSE.len())].as_bytes());
        } else if rng.chance(85) {
            // Mostly valid pieces: the errors stay rare enough for long valid runs.
            bytes.extend_from_slice(PIECES[rng.below(9)]);
        } else {
            bytes.extend_from_slice(PIECES[rng.below(PIECES.len())]);
        }
    }
    if rng.chance(20) {
        // A sequence cut by the end.
        bytes.extend_from_slice(PIECES[19 + rng.below(2)]);
    }
    bytes
}

fn peer_decoder(bom: BomHandling) -> encoding_rs::Decoder {
    match bom {
        BomHandling::None => encoding_rs::UTF_8.new_decoder_without_bom_handling(),
        BomHandling::Remove => encoding_rs::UTF_8.new_decoder_with_bom_removal(),
        BomHandling::Sniff => encoding_rs::UTF_8.new_decoder(),
    }
}

/// encoding_rs's text for `chunks` in "replacement" mode, and in "fatal" mode the
/// text before the first error with the error's offset.
fn peer(bom: BomHandling, chunks: &[&[u8]]) -> (String, (String, Option<u64>)) {
    let mut decoder = peer_decoder(bom);
    let mut text = String::new();
    for (i, chunk) in chunks.iter().enumerate() {
        text.reserve(decoder.max_utf8_buffer_length(chunk.len()).unwrap());
        let (_, read, _) = decoder.decode_to_string(chunk, &mut text, i + 1 == chunks.len());
        assert_eq!(read, chunk.len());
    }
    let mut decoder = peer_decoder(bom);
    let mut prefix = String::new();
    let mut fed = 0u64;
    for (i, chunk) in chunks.iter().enumerate() {
        prefix.reserve(decoder.max_utf8_buffer_length_without_replacement(chunk.len()).unwrap());
        let (result, read) = decoder.decode_to_string_without_replacement(chunk, &mut prefix, i + 1 == chunks.len());
        fed += read as u64;
        if let encoding_rs::DecoderResult::Malformed(len, extra) = result {
            return (text, (prefix, Some(fed - u64::from(len) - u64::from(extra))));
        }
    }
    (text, (prefix, None))
}

/// whatenc's text for `chunks` (one call each, output with room for all), to UTF-16
/// or to a `String`, going on after errors in "fatal" mode and returning the text
/// before the first one and its offset.
fn ours(options: DecoderOptions, chunks: &[&[u8]], utf16: bool) -> (String, Option<u64>) {
    let mut decoder = UTF_8.new_decoder_with(options);
    let mut text = String::new();
    let mut first_error = None;
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let mut pos = 0;
        loop {
            let progress = if utf16 {
                let mut out = vec![0u16; decoder.max_utf16_buffer_length(chunk.len() - pos).unwrap()];
                let progress = decoder.decode_to_utf16(&chunk[pos..], &mut out, last);
                text.push_str(&String::from_utf16(&out[..progress.written]).expect("valid UTF-16"));
                progress
            } else {
                text.reserve(decoder.max_utf8_buffer_length(chunk.len() - pos).unwrap());
                let before = text.len();
                let progress = decoder.decode_to_string(&chunk[pos..], &mut text, last);
                assert_eq!(text.len() - before, progress.written);
                progress
            };
            pos += progress.read;
            match progress.result {
                DecoderResult::InputEmpty => {
                    assert_eq!(pos, chunk.len());
                    break;
                }
                DecoderResult::OutputFull => panic!("output full with room for all: {chunks:02X?}"),
                DecoderResult::Malformed(error) => {
                    first_error.get_or_insert((text.len(), error.offset));
                    // Where "fatal" stops, the replacement goes on.
                    text.push('\u{FFFD}');
                }
            }
        }
    }
    match first_error {
        Some((at, offset)) if options.mode == ErrorMode::Fatal => (text[..at].to_owned(), Some(offset)),
        _ => (text, None),
    }
}

#[test]
fn short_utf8_calls_match_encoding_rs() {
    let mut rng = Rng::new(0x5407);
    let mut cases = 0;
    for round in 0..1500 {
        // Most inputs short; some longer than a piece of dense text.
        let target = match round % 50 {
            49 => 4000 + rng.below(5000),
            n if n % 10 == 9 => 1000 + rng.below(60),
            _ => rng.below(90),
        };
        let bytes = input(&mut rng, target);
        let mut splits = vec![None];
        if bytes.len() <= 48 {
            splits.extend((0..=bytes.len()).map(Some));
        } else {
            splits.push(Some(rng.below(bytes.len() + 1)));
        }
        for bom in [BomHandling::None, BomHandling::Remove, BomHandling::Sniff] {
            for split in &splits {
                let chunks: Vec<&[u8]> = match split {
                    None => vec![&bytes],
                    Some(at) => vec![&bytes[..*at], &bytes[*at..]],
                };
                let (text, (prefix, error)) = peer(bom, &chunks);
                for utf16 in [true, false] {
                    let replacement = DecoderOptions { mode: ErrorMode::Replacement, bom };
                    let fatal = DecoderOptions { mode: ErrorMode::Fatal, bom };
                    let context = format!("{bom:?} utf16 {utf16} {chunks:02X?}");
                    assert_eq!(ours(replacement, &chunks, utf16).0, text, "replacement: {context}");
                    assert_eq!(ours(fatal, &chunks, utf16), (prefix.clone(), error), "fatal: {context}");
                    cases += 1;
                }
            }
        }
    }
    assert!(cases > 100_000, "{cases} cases");
}
