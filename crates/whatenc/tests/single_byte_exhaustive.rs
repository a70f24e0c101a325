//! Exhaustive checks of the single-byte encodings against the WHATWG index files
//! (parsed here, independently of the crate's generated tables), and of UTF-8 and
//! UTF-16 against state-machine oracles written from encoding.bs.

mod common;

use std::collections::BTreeMap;

use common::*;
use whatenc::{DecoderOptions, EncoderErrorMode, Encoding, ErrorMode, UTF_8, UTF_16BE, UTF_16LE};

const FATAL: DecoderOptions = DecoderOptions { mode: ErrorMode::Fatal, bom: whatenc::BomHandling::None };
const REPLACEMENT: DecoderOptions = DecoderOptions { mode: ErrorMode::Replacement, bom: whatenc::BomHandling::None };

/// Parses an index file: `pointer \t 0xCODE \t comment` lines; `#` comments.
fn parse_index(name: &str) -> BTreeMap<u32, u32> {
    let path = whatwg_dir().join(format!("index-{name}.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut index = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split_whitespace();
        let pointer: u32 = fields.next().unwrap().parse().unwrap();
        let code = fields.next().unwrap();
        let code = u32::from_str_radix(code.strip_prefix("0x").unwrap(), 16).unwrap();
        assert!(index.insert(pointer, code).is_none(), "duplicate pointer {pointer} in {name}");
    }
    index
}

/// The single-byte table of an encoding: for bytes 0x80–0xFF, the code point or None.
fn single_byte_table(encoding: &'static Encoding) -> [Option<char>; 128] {
    let mut table = [None; 128];
    if encoding.name() == "x-user-defined" {
        // encoding.bs § "x-user-defined decoder": 0xF780 + byte − 0x80.
        for (i, slot) in table.iter_mut().enumerate() {
            *slot = char::from_u32(0xF780 + i as u32);
        }
        return table;
    }
    let name = match encoding.name() {
        "ISO-8859-8-I" => "iso-8859-8".to_string(),
        other => other.to_ascii_lowercase(),
    };
    let index = parse_index(&name);
    assert!(index.keys().all(|&p| p < 128), "{name}: pointer out of range");
    for (&pointer, &code) in &index {
        table[pointer as usize] = Some(char::from_u32(code).unwrap());
    }
    table
}

fn single_byte_encodings() -> Vec<&'static Encoding> {
    let list: Vec<_> = Encoding::all().iter().copied().filter(|e| e.is_single_byte()).collect();
    // The standard's 28 legacy single-byte encodings, plus x-user-defined.
    assert_eq!(list.len(), 29);
    assert_eq!(list.iter().filter(|e| e.name() != "x-user-defined").count(), 28);
    list
}

#[test]
fn single_byte_decode_every_byte() {
    for encoding in single_byte_encodings() {
        let table = single_byte_table(encoding);
        for byte in 0..=255u8 {
            let expected = if byte < 0x80 { Some(byte as char) } else { table[byte as usize - 0x80] };
            let replacement = decode_whole(encoding, REPLACEMENT, &[byte]);
            let fatal = decode_whole(encoding, FATAL, &[byte]);
            match expected {
                Some(c) => {
                    assert_eq!(replacement.text, c.to_string(), "{encoding:?} byte {byte:#04X}");
                    assert_eq!(fatal, replacement, "{encoding:?} byte {byte:#04X} fatal");
                }
                None => {
                    assert_eq!(replacement.text, "\u{FFFD}", "{encoding:?} byte {byte:#04X}");
                    assert_eq!(fatal.text, "", "{encoding:?} byte {byte:#04X} fatal");
                    assert_eq!(fatal.errors.len(), 1, "{encoding:?} byte {byte:#04X} fatal");
                    let error = fatal.errors[0].1;
                    assert_eq!((error.offset, error.len), (0, 1), "{encoding:?} byte {byte:#04X}");
                }
            }
        }
        // All 256 bytes in one buffer, both forms, with errors at the right offsets.
        let all: Vec<u8> = (0..=255u8).collect();
        let expected: String = all
            .iter()
            .map(|&b| if b < 0x80 { b as char } else { table[b as usize - 0x80].unwrap_or('\u{FFFD}') })
            .collect();
        for form in [Form::Utf8, Form::Utf16] {
            let run = decode_chunks(encoding, REPLACEMENT, &[&all], Buf::Max, form);
            assert_eq!(run.text, expected, "{encoding:?} all bytes {form:?}");
            let fatal = decode_chunks(encoding, FATAL, &[&all], Buf::Fixed(5), form);
            assert_eq!(fatal.with_replacements(), expected, "{encoding:?} fatal all bytes {form:?}");
            let offsets: Vec<u64> = fatal.errors.iter().map(|(_, e)| e.offset).collect();
            let nulls: Vec<u64> = (0x80..=0xFFu64).filter(|&b| table[b as usize - 0x80].is_none()).collect();
            assert_eq!(offsets, nulls, "{encoding:?} error offsets");
        }
        let (text, had_errors) = encoding.decode(&all);
        assert_eq!((&*text, had_errors), (&*expected, table.iter().any(Option::is_none)), "{encoding:?}");
    }
}

/// Code points checked for being unmappable: all of the BMP past ASCII (no
/// surrogates), and a few astral ones.
fn non_ascii_scalars() -> impl Iterator<Item = char> {
    (0x80..=0xFFFFu32).chain([0x10000, 0x1F600, 0x20000, 0xE0001, 0x10FFFF]).filter_map(char::from_u32)
}

#[test]
fn single_byte_encode_exhaustive() {
    for encoding in single_byte_encodings() {
        let table = single_byte_table(encoding);
        // "index pointer": the first pointer of a code point.
        let mut pointer_of: BTreeMap<char, u8> = BTreeMap::new();
        for (pointer, c) in table.iter().enumerate() {
            if let Some(c) = c {
                pointer_of.entry(*c).or_insert(pointer as u8);
            }
        }
        // Each mapped code point on its own, in fatal mode.
        for (&c, &pointer) in &pointer_of {
            let run = encode_chunks_str(encoding, EncoderErrorMode::Fatal, &[c.encode_utf8(&mut [0; 4])], Buf::Max);
            assert_eq!(run.bytes, [pointer + 0x80], "{encoding:?} {c:?}");
            assert!(run.unmappable.is_empty(), "{encoding:?} {c:?}");
        }
        // ASCII, then every non-ASCII scalar value checked, in one string.
        let mut text: String = (0..0x80u8).map(char::from).collect();
        text.extend(non_ascii_scalars());
        let mut html = Vec::new();
        let mut fatal_bytes = Vec::new();
        let mut unmappable = Vec::new();
        for c in text.chars() {
            if c.is_ascii() {
                html.push(c as u8);
                fatal_bytes.push(c as u8);
            } else if let Some(&pointer) = pointer_of.get(&c) {
                html.push(pointer + 0x80);
                fatal_bytes.push(pointer + 0x80);
            } else {
                html.extend_from_slice(format!("&#{};", c as u32).as_bytes());
                unmappable.push((fatal_bytes.len(), c));
            }
        }
        let run = encode_chunks_str(encoding, EncoderErrorMode::Html, &[&text], Buf::Max);
        assert_eq!(run.bytes, html, "{encoding:?} html");
        assert!(run.unmappable.is_empty());
        let run = encode_chunks_str(encoding, EncoderErrorMode::Fatal, &[&text], Buf::Fixed(64));
        assert_eq!(run.bytes, fatal_bytes, "{encoding:?} fatal");
        assert_eq!(run.unmappable, unmappable, "{encoding:?} fatal unmappables");
        let units: Vec<u16> = text.encode_utf16().collect();
        let run = encode_chunks_utf16(encoding, EncoderErrorMode::Html, &[&units], Buf::Max);
        assert_eq!(run.bytes, html, "{encoding:?} html from UTF-16");
        let (bytes, had) = encoding.encode(&text).unwrap();
        assert_eq!((&bytes[..], had), (&html[..], true), "{encoding:?} Encoding::encode");
    }
}

// ---------------------------------------------------------------------------
// UTF-8 oracle (encoding.bs § "UTF-8 decoder")
// ---------------------------------------------------------------------------

/// One output of an oracle: a scalar value, or an error with the offset and
/// length of its malformed sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Char(char),
    Error { offset: u64, len: u8 },
}

/// The UTF-8 decoder of encoding.bs, run over a whole stream, byte by byte, with the
/// I/O queue's "restore" made explicit.
fn utf8_oracle(bytes: &[u8]) -> Vec<Item> {
    let mut out = Vec::new();
    let (mut code_point, mut needed, mut seen) = (0u32, 0u32, 0u32);
    let (mut lower, mut upper) = (0x80u8, 0xBFu8);
    let mut start = 0usize;
    let mut i = 0;
    loop {
        let Some(&byte) = bytes.get(i) else {
            // 1. end-of-queue with bytes needed: error.
            if needed != 0 {
                out.push(Item::Error { offset: start as u64, len: (seen + 1) as u8 });
            }
            return out;
        };
        if needed == 0 {
            start = i;
            i += 1;
            match byte {
                0x00..=0x7F => out.push(Item::Char(byte as char)),
                0xC2..=0xDF => {
                    needed = 1;
                    code_point = u32::from(byte & 0x1F);
                }
                0xE0..=0xEF => {
                    if byte == 0xE0 {
                        lower = 0xA0;
                    }
                    if byte == 0xED {
                        upper = 0x9F;
                    }
                    needed = 2;
                    code_point = u32::from(byte & 0xF);
                }
                0xF0..=0xF4 => {
                    if byte == 0xF0 {
                        lower = 0x90;
                    }
                    if byte == 0xF4 {
                        upper = 0x8F;
                    }
                    needed = 3;
                    code_point = u32::from(byte & 0x7);
                }
                _ => out.push(Item::Error { offset: i as u64 - 1, len: 1 }),
            }
            continue;
        }
        if !(lower..=upper).contains(&byte) {
            // Reset, restore the byte (do not advance), error.
            out.push(Item::Error { offset: start as u64, len: (seen + 1) as u8 });
            (code_point, needed, seen, lower, upper) = (0, 0, 0, 0x80, 0xBF);
            continue;
        }
        i += 1;
        lower = 0x80;
        upper = 0xBF;
        code_point = (code_point << 6) | u32::from(byte & 0x3F);
        seen += 1;
        if seen != needed {
            continue;
        }
        out.push(Item::Char(char::from_u32(code_point).unwrap()));
        (code_point, needed, seen) = (0, 0, 0);
    }
}

/// What a fatal-mode decoder run that goes on after errors gives for oracle items.
fn oracle_run(items: &[Item]) -> DecodeRun {
    let mut run = DecodeRun::default();
    for item in items {
        match *item {
            Item::Char(c) => run.text.push(c),
            Item::Error { offset, len } => run.errors.push((run.text.len(), whatenc::DecodeError { offset, len })),
        }
    }
    run
}

fn check_against_oracle(encoding: &'static Encoding, bytes: &[u8], items: &[Item]) {
    let expected = oracle_run(items);
    let fatal = decode_whole(encoding, FATAL, bytes);
    assert_eq!(fatal, expected, "{encoding:?} fatal {bytes:02X?}");
    let replacement = decode_whole(encoding, REPLACEMENT, bytes);
    assert_eq!(replacement.text, expected.with_replacements(), "{encoding:?} {bytes:02X?}");
}

/// Bytes at the standard's boundaries for UTF-8.
const UTF8_BOUNDARIES: [u8; 22] = [
    0x00, 0x41, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4,
    0xF5, 0xFE, 0xFF,
];

#[test]
fn utf8_oracle_sanity() {
    assert_eq!(utf8_oracle(b"\xE2\x82\xAC"), [Item::Char('€')]);
    assert_eq!(utf8_oracle(b"\xE2\x41"), [Item::Error { offset: 0, len: 1 }, Item::Char('A')]);
    assert_eq!(utf8_oracle(b"\xF0\x90\x80"), [Item::Error { offset: 0, len: 3 }]);
    assert_eq!(
        utf8_oracle(b"\xED\xA0\x80"),
        [Item::Error { offset: 0, len: 1 }, Item::Error { offset: 1, len: 1 }, Item::Error { offset: 2, len: 1 }]
    );
}

#[test]
fn utf8_all_one_and_two_byte_sequences() {
    for a in 0..=255u8 {
        check_against_oracle(UTF_8, &[a], &utf8_oracle(&[a]));
        for b in 0..=255u8 {
            check_against_oracle(UTF_8, &[a, b], &utf8_oracle(&[a, b]));
        }
    }
}

#[test]
fn utf8_three_and_four_byte_sequences() {
    let seconds: Vec<u8> = UTF8_BOUNDARIES.iter().copied().chain(0x80..=0xBF).collect();
    for a in 0..=255u8 {
        for &b in &seconds {
            for c in UTF8_BOUNDARIES {
                let bytes = [a, b, c];
                check_against_oracle(UTF_8, &bytes, &utf8_oracle(&bytes));
            }
        }
    }
    // All three-byte sequences of lead E0–EF: every second and third continuation.
    for a in 0xE0..=0xEFu8 {
        for b in 0x80..=0xBFu8 {
            for c in 0x80..=0xBFu8 {
                let bytes = [a, b, c];
                check_against_oracle(UTF_8, &bytes, &utf8_oracle(&bytes));
            }
        }
    }
    for a in 0xF0..=0xF4u8 {
        for &b in &seconds {
            for c in UTF8_BOUNDARIES {
                for d in UTF8_BOUNDARIES {
                    let bytes = [a, b, c, d];
                    check_against_oracle(UTF_8, &bytes, &utf8_oracle(&bytes));
                }
            }
        }
    }
}

#[test]
fn utf8_random_streams_match_oracle() {
    with_watchdog("utf8_random_streams_match_oracle", 120, utf8_random_streams_body);
}

fn utf8_random_streams_body() {
    let mut rng = Rng::new(0x5EED_0008);
    for round in 0..200 {
        let len = rng.below(2000);
        let bytes: Vec<u8> = (0..len)
            .map(|_| if rng.chance(70) { *rng.pick(&UTF8_BOUNDARIES) } else { 0x80 | (rng.byte() & 0x3F) })
            .collect();
        let items = utf8_oracle(&bytes);
        check_against_oracle(UTF_8, &bytes, &items);
        // Random cuts give the same run.
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < len {
            let n = rng.below(9).min(len - at);
            chunks.push(&bytes[at..at + n]);
            at += n;
        }
        let form = if round % 2 == 0 { Form::Utf8 } else { Form::Utf16 };
        let run = decode_chunks(UTF_8, FATAL, &chunks, Buf::Fixed(4 + round % 5), form);
        assert_eq!(run, oracle_run(&items), "chunked {bytes:02X?}");
    }
}

// ---------------------------------------------------------------------------
// UTF-16 oracle (encoding.bs § "shared UTF-16 decoder")
// ---------------------------------------------------------------------------

fn utf16_oracle(bytes: &[u8], big_endian: bool) -> Vec<Item> {
    let mut out = Vec::new();
    let mut lead_byte: Option<u8> = None;
    let mut lead_surrogate: Option<(u16, usize)> = None;
    let mut queue: Vec<(u8, usize)> = bytes.iter().copied().zip(0..).collect();
    queue.reverse(); // pop() takes the next item.
    loop {
        let Some((byte, at)) = queue.pop() else {
            // 1. end-of-queue with a lead byte or lead surrogate: error.
            let start = match (lead_surrogate, lead_byte) {
                (Some((_, s)), _) => Some(s),
                (None, Some(_)) => Some(bytes.len() - 1),
                _ => None,
            };
            if let Some(s) = start {
                out.push(Item::Error { offset: s as u64, len: (bytes.len() - s) as u8 });
            }
            return out;
        };
        let Some(lead) = lead_byte else {
            lead_byte = Some(byte);
            continue;
        };
        lead_byte = None;
        let unit = if big_endian { u16::from_be_bytes([lead, byte]) } else { u16::from_le_bytes([lead, byte]) };
        if let Some((surrogate, start)) = lead_surrogate.take() {
            if (0xDC00..=0xDFFF).contains(&unit) {
                let c = 0x10000 + ((u32::from(surrogate) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                out.push(Item::Char(char::from_u32(c).unwrap()));
                continue;
            }
            // Restore the two bytes of the code unit, error.
            queue.push((byte, at));
            queue.push((lead, at - 1));
            out.push(Item::Error { offset: start as u64, len: 2 });
            continue;
        }
        match unit {
            0xD800..=0xDBFF => lead_surrogate = Some((unit, at - 1)),
            0xDC00..=0xDFFF => out.push(Item::Error { offset: at as u64 - 1, len: 2 }),
            _ => out.push(Item::Char(char::from_u32(u32::from(unit)).unwrap())),
        }
    }
}

#[test]
fn utf16_edge_cases_match_oracle() {
    let interesting: [u16; 8] = [0x0041, 0x00E9, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xFEFF, 0xFFFD];
    for (encoding, big_endian) in [(UTF_16LE, false), (UTF_16BE, true)] {
        // Every sequence of up to 4 interesting units, with and without an odd byte.
        let mut sequences: Vec<Vec<u16>> = vec![vec![]];
        for _ in 0..4 {
            let longer: Vec<Vec<u16>> = sequences
                .iter()
                .filter(|s| s.len() == sequences.last().unwrap().len())
                .flat_map(|s| interesting.iter().map(move |&u| [s.clone(), vec![u]].concat()))
                .collect();
            sequences.extend(longer);
        }
        for units in &sequences {
            let mut bytes: Vec<u8> =
                units.iter().flat_map(|&u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() }).collect();
            for odd in [None, Some(0x00u8), Some(0xD8)] {
                if let Some(b) = odd {
                    bytes.push(b);
                }
                let items = utf16_oracle(&bytes, big_endian);
                check_against_oracle(encoding, &bytes, &items);
                if bytes.len() <= 9 {
                    for chunks in byte_chunkings(&bytes, 9) {
                        let run = decode_chunks(encoding, FATAL, &chunks, Buf::Max, Form::Utf16);
                        assert_eq!(run, oracle_run(&items), "{encoding:?} {chunks:02X?}");
                    }
                }
                if odd.is_some() {
                    bytes.pop();
                }
            }
        }
    }
}

#[test]
fn utf16_explicit_cases() {
    let cases: [(&[u8], &str); 8] = [
        (b"\x00\xD8", "\u{FFFD}"),                          // lone lead at end
        (b"\x00\xDC", "\u{FFFD}"),                          // lone trail
        (b"\x00\xD8\x41\x00", "\u{FFFD}A"),                 // lead then BMP: the unit is restored
        (b"\x00\xD8\x00\xD8\x00\xDC", "\u{FFFD}\u{10000}"), // lead, lead, trail
        (b"\x41\x00\x42", "A\u{FFFD}"),                     // odd byte at end
        (b"\x00\xD8\x00", "\u{FFFD}"),                      // lead surrogate then odd byte: one error
        (b"\xFF\xFE\x41\x00", "\u{FEFF}A"),                 // no BOM handling: a BOM is U+FEFF
        (b"\x3D\xD8\x00\xDE", "😀"),
    ];
    for (bytes, expected) in cases {
        assert_eq!(UTF_16LE.decode(bytes).0, expected, "{bytes:02X?}");
        let swapped: Vec<u8> = bytes.chunks(2).flat_map(|c| c.iter().rev().copied().collect::<Vec<_>>()).collect();
        assert_eq!(UTF_16BE.decode(&swapped).0, expected, "BE {swapped:02X?}");
    }
}
