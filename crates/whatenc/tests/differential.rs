//! Differential tests against encoding_rs 0.8, for every encoding, both directions
//! and both error modes, on random and structured inputs; and chunking invariance
//! of every input (the whole-input result must not depend on where it is cut).
//!
//! Where encoding_rs and the pinned encoding.bs differ, the standard wins; each such
//! difference is listed in `known_decode_difference` / `known_encode_difference`
//! with its citation. No difference is currently known.

mod common;

use common::*;
use whatenc::{DecoderOptions, EncoderErrorMode, Encoding, ErrorMode};

const FATAL: DecoderOptions = DecoderOptions { mode: ErrorMode::Fatal, bom: whatenc::BomHandling::None };
const REPLACEMENT: DecoderOptions = DecoderOptions { mode: ErrorMode::Replacement, bom: whatenc::BomHandling::None };

fn rs(encoding: &'static Encoding) -> &'static encoding_rs::Encoding {
    let other = encoding_rs::Encoding::for_label(encoding.name().as_bytes())
        .unwrap_or_else(|| panic!("encoding_rs has no {}", encoding.name()));
    assert_eq!(other.name(), encoding.name());
    other
}

/// encoding_rs decoding, no BOM handling, replacement.
fn rs_decode(encoding: &'static encoding_rs::Encoding, bytes: &[u8]) -> String {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(decoder.max_utf8_buffer_length(bytes.len()).unwrap());
    let (result, read, _) = decoder.decode_to_string(bytes, &mut out, true);
    assert_eq!((result, read), (encoding_rs::CoderResult::InputEmpty, bytes.len()));
    out
}

/// encoding_rs decoding without replacement: the output before the first error,
/// and whether there was one.
fn rs_decode_fatal(encoding: &'static encoding_rs::Encoding, bytes: &[u8]) -> (String, bool) {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(decoder.max_utf8_buffer_length_without_replacement(bytes.len()).unwrap());
    let (result, _) = decoder.decode_to_string_without_replacement(bytes, &mut out, true);
    match result {
        encoding_rs::DecoderResult::InputEmpty => (out, false),
        encoding_rs::DecoderResult::Malformed(..) => (out, true),
        encoding_rs::DecoderResult::OutputFull => panic!("encoding_rs: output full"),
    }
}

/// encoding_rs encoding with `&#N;` for unmappables.
fn rs_encode_html(encoding: &'static encoding_rs::Encoding, text: &str) -> Vec<u8> {
    let mut encoder = encoding.new_encoder();
    let mut out = Vec::with_capacity(encoder.max_buffer_length_from_utf8_if_no_unmappables(text.len()).unwrap() + 16);
    let mut read = 0;
    loop {
        let (result, n, _) = encoder.encode_from_utf8_to_vec(&text[read..], &mut out, true);
        read += n;
        if result == encoding_rs::CoderResult::InputEmpty {
            return out;
        }
        out.reserve(out.capacity().max(64));
    }
}

/// encoding_rs encoding without replacement: the bytes before the first
/// unmappable, and that scalar value.
fn rs_encode_fatal(encoding: &'static encoding_rs::Encoding, text: &str) -> (Vec<u8>, Option<char>) {
    let mut encoder = encoding.new_encoder();
    let mut out = vec![0u8; encoder.max_buffer_length_from_utf8_without_replacement(text.len()).unwrap()];
    let (result, _, written) = encoder.encode_from_utf8_without_replacement(text, &mut out, true);
    out.truncate(written);
    match result {
        encoding_rs::EncoderResult::InputEmpty => (out, None),
        encoding_rs::EncoderResult::Unmappable(c) => (out, Some(c)),
        encoding_rs::EncoderResult::OutputFull => panic!("encoding_rs: output full"),
    }
}

/// A decoding where encoding_rs and encoding.bs legitimately differ (none known).
fn known_decode_difference(_encoding: &'static Encoding, _bytes: &[u8]) -> Option<&'static str> {
    None
}

/// An encoding where encoding_rs and encoding.bs legitimately differ: the citation.
fn known_encode_difference(_encoding: &'static Encoding, _text: &str) -> Option<&'static str> {
    None
}

#[derive(Default)]
struct Stats {
    decodes: usize,
    encodes: usize,
    failures: Vec<String>,
}

impl Stats {
    fn fail(&mut self, message: String) {
        if self.failures.len() < 1000 {
            self.failures.push(message);
        }
    }
}

/// Chunkings of `len` units: every two-way cut and one unit at a time for short
/// inputs; random cuts with empty chunks interleaved for long ones.
fn cut_points(len: usize, rng: &mut Rng) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if len <= 64 {
        for cut in 0..=len {
            out.push(vec![cut]);
        }
        out.push((1..len).collect());
    } else {
        for _ in 0..6 {
            let mut cuts: Vec<usize> = (0..rng.below(12) + 1).map(|_| rng.below(len + 1)).collect();
            // Repeated cut points make empty chunks.
            if rng.chance(50) {
                let again = cuts[0];
                cuts.push(again);
            }
            cuts.sort_unstable();
            out.push(cuts);
        }
    }
    out
}

fn split_at_cuts<'a, T>(items: &'a [T], cuts: &[usize]) -> Vec<&'a [T]> {
    let mut chunks = Vec::new();
    let mut from = 0;
    for &cut in cuts {
        chunks.push(&items[from..cut]);
        from = cut;
    }
    chunks.push(&items[from..]);
    chunks
}

/// Runs a check; a panic in the code under test becomes a failure naming the input.
fn guarded(stats: &mut Stats, what: String, check: impl FnOnce(&mut Stats)) {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(stats)));
    if let Err(panic) = result {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        stats.fail(format!("PANIC {what}: {message}"));
    }
}

fn check_decode(encoding: &'static Encoding, bytes: &[u8], rng: &mut Rng, stats: &mut Stats) {
    let what = format!("{} decode {bytes:02X?}", encoding.name());
    guarded(stats, what, |stats| check_decode_inner(encoding, bytes, rng, stats));
}

fn check_decode_inner(encoding: &'static Encoding, bytes: &[u8], rng: &mut Rng, stats: &mut Stats) {
    stats.decodes += 1;
    let other = rs(encoding);
    let whole = decode_whole(encoding, REPLACEMENT, bytes);
    let fatal = decode_whole(encoding, FATAL, bytes);
    let expected = rs_decode(other, bytes);
    let (expected_prefix, expected_error) = rs_decode_fatal(other, bytes);
    let context = format!("{} decode {bytes:02X?}", encoding.name());
    if known_decode_difference(encoding, bytes).is_none() {
        if whole.text != expected {
            stats.fail(format!("{context}: replacement {:?} != encoding_rs {expected:?}", whole.text));
        }
        if fatal.before_first_error() != expected_prefix || fatal.errors.is_empty() == expected_error {
            stats.fail(format!(
                "{context}: fatal {fatal:?} != encoding_rs ({expected_prefix:?}, error {expected_error})"
            ));
        }
    }
    if fatal.with_replacements() != whole.text {
        stats.fail(format!("{context}: fatal-with-U+FFFD {fatal:?} != replacement {:?}", whole.text));
    }
    for cuts in cut_points(bytes.len(), rng) {
        let chunks = split_at_cuts(bytes, &cuts);
        let form = if rng.chance(25) { Form::Utf16 } else { Form::Utf8 };
        let buf = if rng.chance(25) { Buf::Fixed(4 + rng.below(8)) } else { Buf::Max };
        let run = decode_chunks(encoding, REPLACEMENT, &chunks, buf, form);
        if run.text != whole.text {
            stats.fail(format!("{context}: chunks {chunks:02X?} {form:?} {buf:?}: {:?} != {:?}", run.text, whole.text));
        }
        let run = decode_chunks(encoding, FATAL, &chunks, Buf::Max, Form::Utf8);
        if run != fatal {
            stats.fail(format!("{context}: fatal chunks {chunks:02X?}: {run:?} != {fatal:?}"));
        }
    }
}

fn check_encode(encoding: &'static Encoding, text: &str, rng: &mut Rng, stats: &mut Stats) {
    let what = format!("{} encode {text:?}", encoding.name());
    guarded(stats, what, |stats| check_encode_inner(encoding, text, rng, stats));
}

fn check_encode_inner(encoding: &'static Encoding, text: &str, rng: &mut Rng, stats: &mut Stats) {
    if !encoding.has_encoder() {
        assert!(encoding.new_encoder().is_err());
        return;
    }
    stats.encodes += 1;
    let other = rs(encoding);
    let html = encode_chunks_str(encoding, EncoderErrorMode::Html, &[text], Buf::Max);
    let fatal = encode_chunks_str(encoding, EncoderErrorMode::Fatal, &[text], Buf::Max);
    let context = format!("{} encode {text:?}", encoding.name());
    if known_encode_difference(encoding, text).is_none() {
        let expected = rs_encode_html(other, text);
        if html.bytes != expected {
            stats.fail(format!("{context}: html {:02X?} != encoding_rs {expected:02X?}", html.bytes));
        }
        let (prefix, unmappable) = rs_encode_fatal(other, text);
        if fatal.before_first_unmappable() != prefix || fatal.unmappable.first().map(|u| u.1) != unmappable {
            stats.fail(format!("{context}: fatal {fatal:?} != encoding_rs ({prefix:02X?}, {unmappable:?})"));
        }
    }
    if fatal.with_references() != html.bytes {
        stats.fail(format!("{context}: fatal-with-references {fatal:?} != html {:02X?}", html.bytes));
    }
    // Chunked, from &str (cuts moved to char boundaries) and from UTF-16.
    for cuts in cut_points(text.len(), rng) {
        let cuts: Vec<usize> = cuts.into_iter().filter(|&c| text.is_char_boundary(c)).collect();
        let mut chunks = Vec::new();
        let mut from = 0;
        for &cut in &cuts {
            chunks.push(&text[from..cut]);
            from = cut;
        }
        chunks.push(&text[from..]);
        let buf = if rng.chance(25) { Buf::Fixed(ENCODE_MIN_PROGRESS + rng.below(8)) } else { Buf::Max };
        let run = encode_chunks_str(encoding, EncoderErrorMode::Html, &chunks, buf);
        if run.bytes != html.bytes {
            stats.fail(format!("{context}: chunks {chunks:?} {buf:?}: {:02X?}", run.bytes));
        }
        let run = encode_chunks_str(encoding, EncoderErrorMode::Fatal, &chunks, Buf::Max);
        if run != fatal {
            stats.fail(format!("{context}: fatal chunks {chunks:?}: {run:?} != {fatal:?}"));
        }
    }
    let units: Vec<u16> = text.encode_utf16().collect();
    for cuts in cut_points(units.len(), rng).into_iter().take(8) {
        let chunks = split_at_cuts(&units, &cuts);
        let run = encode_chunks_utf16(encoding, EncoderErrorMode::Html, &chunks, Buf::Max);
        if run.bytes != html.bytes {
            stats.fail(format!("{context}: UTF-16 chunks {chunks:04X?}: {:02X?}", run.bytes));
        }
    }
}

/// Bytes at the edges of the ranges the decoders test.
const INTERESTING_BYTES: [u8; 40] = [
    0x00, 0x0A, 0x0E, 0x0F, 0x1B, 0x24, 0x28, 0x30, 0x39, 0x40, 0x41, 0x42, 0x44, 0x49, 0x4A, 0x5C, 0x7E, 0x7F, 0x80,
    0x81, 0x8E, 0x8F, 0x9F, 0xA0, 0xA1, 0xA4, 0xB0, 0xC2, 0xC6, 0xC8, 0xD8, 0xDC, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4,
    0xFE, 0xFF,
];

fn random_bytes(rng: &mut Rng, len: usize) -> Vec<u8> {
    let style = rng.below(3);
    (0..len)
        .map(|_| match style {
            0 => rng.byte(),
            1 => *rng.pick(&INTERESTING_BYTES),
            _ => {
                if rng.chance(50) {
                    rng.byte() | 0x80
                } else {
                    *rng.pick(&INTERESTING_BYTES)
                }
            }
        })
        .collect()
}

/// Structured inputs for `encoding`'s decoder.
fn structured_bytes(encoding: &'static Encoding, rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![
        vec![],
        b"\xEF\xBB\xBFabc".to_vec(),
        b"\xFE\xFF\x00a".to_vec(),
        b"\xFF\xFEa\x00".to_vec(),
        b"\xEF\xBB".to_vec(),
        b"\xFE".to_vec(),
    ];
    // Every lead byte followed by ASCII, by end of input, and by each interesting byte.
    for lead in 0x80..=0xFFu8 {
        out.push(vec![lead]);
        out.push(vec![lead, b'A', b'B']);
        out.push(vec![lead, *rng.pick(&INTERESTING_BYTES), b'<']);
        out.push(vec![
            lead,
            *rng.pick(&INTERESTING_BYTES),
            *rng.pick(&INTERESTING_BYTES),
            *rng.pick(&INTERESTING_BYTES),
        ]);
    }
    match encoding.name() {
        "UTF-8" => {
            // Near-valid UTF-8: valid text with a byte dropped, changed or inserted.
            for _ in 0..300 {
                let text = random_text(rng, None, 12);
                let mut bytes = text.into_bytes();
                if !bytes.is_empty() {
                    let at = rng.below(bytes.len());
                    match rng.below(3) {
                        0 => {
                            bytes.remove(at);
                        }
                        1 => bytes[at] = *rng.pick(&INTERESTING_BYTES),
                        _ => bytes.insert(at, 0x80 | (rng.byte() & 0x3F)),
                    }
                }
                out.push(bytes);
            }
            // Text of errors (a legacy encoding taken for UTF-8): errors and cut
            // sequences between valid stretches of every length up to 140 bytes, so
            // that a stretch ends before, at and after the decoder's scalar look at
            // the first 64 bytes after an error, with the error whole or cut there.
            let pieces = ["a", "é", "€", "😀"];
            let errors: [&[u8]; 6] = [b"\xFF", b"\x80", b"\xE9", b"\xE2\x82", b"\xF0\x9F\x98", b"\xED\xA0\x80"];
            for stretch in 0..140 {
                let piece = pieces[stretch % pieces.len()];
                let mut bytes = Vec::new();
                for _ in 0..3 {
                    bytes.extend_from_slice(errors[rng.below(errors.len())]);
                    let mut valid = String::new();
                    while valid.len() + piece.len() <= stretch {
                        valid.push_str(if rng.chance(80) { "x" } else { piece });
                    }
                    bytes.extend_from_slice(valid.as_bytes());
                }
                if rng.chance(50) {
                    bytes.extend_from_slice(errors[rng.below(errors.len())]);
                }
                out.push(bytes);
            }
        }
        "UTF-16LE" | "UTF-16BE" => {
            let big = encoding.name() == "UTF-16BE";
            let units: [u16; 9] = [0x41, 0xE9, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D, 0xDE00, 0xFEFF];
            for _ in 0..400 {
                let len = rng.below(8);
                let mut bytes: Vec<u8> = (0..len)
                    .flat_map(|_| {
                        let u = *rng.pick(&units);
                        if big { u.to_be_bytes() } else { u.to_le_bytes() }
                    })
                    .collect();
                if rng.chance(30) {
                    bytes.push(rng.byte());
                }
                out.push(bytes);
            }
            // Text of errors (bytes taken for UTF-16): lone surrogates between runs of
            // every length up to 140 units, around the 64 units that the decoder into
            // UTF-8 takes one at a time before its vector loops.
            for run in 0..140 {
                let mut units = Vec::new();
                for _ in 0..3 {
                    units.push(*rng.pick(&[0xD800u16, 0xDBFF, 0xDC00, 0xDFFF]));
                    units.extend((0..run).map(|_| *rng.pick(&[0x41u16, 0xE9, 0x4E2D, 0xFFFD])));
                }
                let mut bytes: Vec<u8> =
                    units.iter().flat_map(|&u| if big { u.to_be_bytes() } else { u.to_le_bytes() }).collect();
                if rng.chance(30) {
                    bytes.push(rng.byte());
                }
                out.push(bytes);
            }
        }
        "ISO-2022-JP" => {
            let escapes: [&[u8]; 10] = [
                b"\x1B(B", b"\x1B(J", b"\x1B(I", b"\x1B$@", b"\x1B$B", b"\x1B$", b"\x1B(", b"\x1B", b"\x1B$A",
                b"\x1B(C",
            ];
            let bodies: [&[u8]; 8] = [b"", b"a", b"\\~", b"$B", b"F|K\\", b"\x0E\x0F", b"\x21\x21\x7E", b"\xFF"];
            for _ in 0..500 {
                let mut bytes = Vec::new();
                for _ in 0..rng.below(5) {
                    let escape: &[u8] = escapes[rng.below(escapes.len())];
                    let body: &[u8] = bodies[rng.below(bodies.len())];
                    bytes.extend_from_slice(escape);
                    bytes.extend_from_slice(body);
                }
                out.push(bytes);
            }
        }
        "gb18030" | "GBK" => {
            // Four-byte sequences: lead, digit, lead, digit, with edge values.
            for _ in 0..500 {
                let b1 = *rng.pick(&[0x81u8, 0x82, 0x84, 0x85, 0x8F, 0x90, 0xE3, 0xE4, 0xFD, 0xFE, 0xFF]);
                let b2 = *rng.pick(&[0x2Fu8, 0x30, 0x31, 0x35, 0x36, 0x39, 0x3A]);
                let b3 = *rng.pick(&[0x80u8, 0x81, 0x82, 0x8A, 0xFE, 0xFF, 0x41]);
                let b4 = *rng.pick(&[0x2Fu8, 0x30, 0x32, 0x38, 0x39, 0x3A]);
                let mut bytes = vec![b1, b2, b3, b4];
                bytes.truncate(1 + rng.below(4));
                if rng.chance(50) {
                    bytes.push(b'x');
                }
                out.push(bytes);
            }
        }
        _ => {}
    }
    out
}

/// Random text: ASCII mixed with `repertoire` (scalar values the encoding maps) and
/// scalar values from across Unicode.
fn random_text(rng: &mut Rng, repertoire: Option<&[char]>, max_len: usize) -> String {
    let len = rng.below(max_len + 1);
    (0..len)
        .map(|_| match rng.below(10) {
            0..=2 => char::from(rng.byte() & 0x7F),
            3..=6 if repertoire.is_some_and(|r| !r.is_empty()) => *rng.pick(repertoire.unwrap()),
            7 => *rng.pick(&[
                '\u{80}',
                '\u{A5}',
                '\u{203E}',
                '\u{E5E5}',
                '\u{FFFD}',
                '\u{FEFF}',
                '\u{20AC}',
                '\u{2212}',
                '\u{FF5E}',
                '\u{E000}',
                '\u{F8FF}',
                '\u{1E3F}',
                '\u{FFFF}',
                '\u{10000}',
                '\u{10FFFF}',
                '\u{E}',
                '\u{F}',
                '\u{1B}',
                '\u{5C}',
                '\u{7E}',
                '\u{2015}',
                '\u{FF0D}',
            ]),
            8 => char::from_u32(0x80 + rng.below(0xFF80) as u32).unwrap_or('\u{FFFD}'),
            _ => char::from_u32(0x10000 + rng.below(0x100000) as u32).unwrap_or('\u{10000}'),
        })
        .collect()
}

/// The scalar values that `encoding` decodes random bytes to (without U+FFFD).
fn repertoire(encoding: &'static Encoding, rng: &mut Rng) -> Vec<char> {
    let mut chars = Vec::new();
    for _ in 0..40 {
        let bytes = random_bytes(rng, 64);
        let (text, _) = encoding.decode(&bytes);
        chars.extend(text.chars().filter(|&c| c != '\u{FFFD}' && !c.is_ascii()));
    }
    chars.sort_unstable();
    chars.dedup();
    chars
}

#[test]
fn differential_against_encoding_rs() {
    with_watchdog("differential_against_encoding_rs", 240, differential_body);
}

fn differential_body() {
    let started = std::time::Instant::now();
    let mut table = Vec::new();
    let mut all_failures = Vec::new();
    for (i, &encoding) in Encoding::all().iter().enumerate() {
        let mut rng = Rng::new(0xD1FF_0000 + i as u64);
        let mut stats = Stats::default();
        let other = rs(encoding);
        assert_eq!(other.output_encoding().name(), encoding.output_encoding().name());
        for bytes in structured_bytes(encoding, &mut rng) {
            check_decode(encoding, &bytes, &mut rng, &mut stats);
        }
        for _ in 0..300 {
            let len = rng.below(65);
            let bytes = random_bytes(&mut rng, len);
            check_decode(encoding, &bytes, &mut rng, &mut stats);
        }
        for _ in 0..20 {
            let len = 65 + rng.below(3000);
            let bytes = random_bytes(&mut rng, len);
            check_decode(encoding, &bytes, &mut rng, &mut stats);
        }
        let chars = repertoire(encoding, &mut rng);
        for _ in 0..400 {
            let text = random_text(&mut rng, Some(&chars), 24);
            check_encode(encoding, &text, &mut rng, &mut stats);
        }
        for _ in 0..20 {
            let text = random_text(&mut rng, Some(&chars), 1500);
            check_encode(encoding, &text, &mut rng, &mut stats);
        }
        // Decoded random bytes re-encoded (valid text of the encoding's repertoire).
        for _ in 0..100 {
            let len = rng.below(100);
            let bytes = random_bytes(&mut rng, len);
            let (text, _) = encoding.decode(&bytes);
            check_encode(encoding, &text, &mut rng, &mut stats);
        }
        table.push((encoding.name(), stats.decodes, stats.encodes, stats.failures.len()));
        all_failures.extend(stats.failures);
    }
    eprintln!("\n== differential against encoding_rs ==");
    eprintln!("{:<16} {:>8} {:>8} {:>8}", "encoding", "decodes", "encodes", "failures");
    for (name, decodes, encodes, failures) in &table {
        eprintln!("{name:<16} {decodes:>8} {encodes:>8} {failures:>8}");
    }
    eprintln!("elapsed {:?}", started.elapsed());
    for message in all_failures.iter().take(60) {
        eprintln!("FAIL {}", truncate(message, 600));
    }
    assert!(all_failures.is_empty(), "{} differential failures", all_failures.len());
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((at, _)) => &s[..at],
        None => s,
    }
}
