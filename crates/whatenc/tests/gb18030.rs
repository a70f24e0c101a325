//! gb18030 and GBK against `encoding.bs` § "gb18030 decoder", § "gb18030 encoder",
//! § "GBK encoder" and § "Indexes" (index gb18030, index gb18030 ranges).
//!
//! The expectations come from a reference written straight from the standard's
//! steps (a real I/O queue with restore, linear scans of the index files in
//! `data/whatwg`), never from the crate's tables. encoding_rs is a second oracle.

use std::collections::HashMap;
use std::path::PathBuf;

use whatenc::{DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding, ErrorMode, GB18030, GBK};

// ---------------------------------------------------------------------------
// The index files and a reference implementation of the standard's algorithms.
// ---------------------------------------------------------------------------

/// Reads `data/whatwg/index-NAME.txt` as the standard says (§ "Indexes"): split on
/// LF, drop empty lines and lines starting with `#`, split on TAB.
fn load_index(name: &str) -> Vec<(u32, u32)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/whatwg").join(format!("index-{name}.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split('\n')
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split('\t');
            let pointer = fields.next().unwrap().trim().parse().unwrap();
            let code_point = u32::from_str_radix(fields.next().unwrap().trim().trim_start_matches("0x"), 16).unwrap();
            (pointer, code_point)
        })
        .collect()
}

/// The gb18030 encoder's side table, copied from `encoding.bs` § "gb18030 encoder",
/// step 5.
const SIDE_TABLE: [(u32, [u8; 2]); 18] = [
    (0xE78D, [0xA6, 0xD9]),
    (0xE78E, [0xA6, 0xDA]),
    (0xE78F, [0xA6, 0xDB]),
    (0xE790, [0xA6, 0xDC]),
    (0xE791, [0xA6, 0xDD]),
    (0xE792, [0xA6, 0xDE]),
    (0xE793, [0xA6, 0xDF]),
    (0xE794, [0xA6, 0xEC]),
    (0xE795, [0xA6, 0xED]),
    (0xE796, [0xA6, 0xF3]),
    (0xE81E, [0xFE, 0x59]),
    (0xE826, [0xFE, 0x61]),
    (0xE82B, [0xFE, 0x66]),
    (0xE82C, [0xFE, 0x67]),
    (0xE832, [0xFE, 0x6D]),
    (0xE843, [0xFE, 0x7E]),
    (0xE854, [0xFE, 0x90]),
    (0xE864, [0xFE, 0xA0]),
];

/// A decoding error: offset of the malformed sequence's first byte, and its length.
type Error = (u64, u8);

/// The standard's gb18030 algorithms over the raw index data.
struct Reference {
    /// index gb18030, pointer → code point.
    index: HashMap<u32, u32>,
    /// index gb18030, in file order.
    entries: Vec<(u32, u32)>,
    /// index pointer: the first pointer of each code point in index gb18030.
    first_pointer: HashMap<u32, u32>,
    /// index gb18030 ranges, in file order.
    ranges: Vec<(u32, u32)>,
}

impl Reference {
    fn new() -> Self {
        let entries = load_index("gb18030");
        let mut first_pointer = HashMap::new();
        for &(pointer, code_point) in &entries {
            first_pointer.entry(code_point).or_insert(pointer);
        }
        Reference {
            index: entries.iter().copied().collect(),
            entries,
            first_pointer,
            ranges: load_index("gb18030-ranges"),
        }
    }

    /// § "Indexes": index gb18030 ranges code point.
    fn ranges_code_point(&self, pointer: u32) -> Option<u32> {
        if (pointer > 39419 && pointer < 189000) || pointer > 1237575 {
            return None;
        }
        if pointer == 7457 {
            return Some(0xE7C7);
        }
        let &(offset, code_point_offset) = self.ranges.iter().rev().find(|&&(p, _)| p <= pointer).unwrap();
        Some(code_point_offset + pointer - offset)
    }

    /// § "Indexes": index gb18030 ranges pointer.
    fn ranges_pointer(&self, code_point: u32) -> u32 {
        if code_point == 0xE7C7 {
            return 7457;
        }
        let &(pointer_offset, offset) = self.ranges.iter().rev().find(|&&(_, c)| c <= code_point).unwrap();
        pointer_offset + code_point - offset
    }

    /// § "gb18030 decoder", run over a real I/O queue with restore. Errors become
    /// U+FFFD; each is also listed with the offset of its first byte and its length.
    fn decode(&self, input: &[u8]) -> (String, Vec<Error>) {
        // The queue as a stack of (byte, offset in the stream), next byte last.
        let mut queue: Vec<(u8, u64)> = input.iter().enumerate().rev().map(|(i, &b)| (b, i as u64)).collect();
        let (mut first, mut second, mut third) = (0u8, 0u8, 0u8);
        let (mut first_offset, mut second_offset, mut third_offset) = (0u64, 0u64, 0u64);
        let mut out = String::new();
        let mut errors = Vec::new();
        let mut error = |out: &mut String, offset: u64, len: u8| {
            out.push('\u{FFFD}');
            errors.push((offset, len));
        };
        loop {
            let Some((byte, offset)) = queue.pop() else {
                // Steps 1 and 2: end-of-queue.
                if first != 0 {
                    let len = 1 + (second != 0) as u8 + (third != 0) as u8;
                    error(&mut out, first_offset, len);
                }
                break;
            };
            // Step 3.
            if third != 0 {
                if !(0x30..=0x39).contains(&byte) {
                    queue.push((byte, offset));
                    queue.push((third, third_offset));
                    queue.push((second, second_offset));
                    (first, second, third) = (0, 0, 0);
                    error(&mut out, first_offset, 1);
                    continue;
                }
                let pointer = (first as u32 - 0x81) * (10 * 126 * 10)
                    + (second as u32 - 0x30) * (10 * 126)
                    + (third as u32 - 0x81) * 10
                    + byte as u32
                    - 0x30;
                let code_point = self.ranges_code_point(pointer);
                (first, second, third) = (0, 0, 0);
                match code_point {
                    Some(c) => out.push(char::from_u32(c).unwrap()),
                    None => error(&mut out, first_offset, 4),
                }
                continue;
            }
            // Step 4.
            if second != 0 {
                if (0x81..=0xFE).contains(&byte) {
                    (third, third_offset) = (byte, offset);
                    continue;
                }
                queue.push((byte, offset));
                queue.push((second, second_offset));
                (first, second) = (0, 0);
                error(&mut out, first_offset, 1);
                continue;
            }
            // Step 5.
            if first != 0 {
                if (0x30..=0x39).contains(&byte) {
                    (second, second_offset) = (byte, offset);
                    continue;
                }
                let leading = first as u32;
                first = 0;
                let offset_byte = if byte < 0x7F { 0x40 } else { 0x41 };
                let pointer = if (0x40..=0x7E).contains(&byte) || (0x80..=0xFE).contains(&byte) {
                    Some((leading - 0x81) * 190 + (byte as u32 - offset_byte))
                } else {
                    None
                };
                if let Some(&code_point) = pointer.and_then(|p| self.index.get(&p)) {
                    out.push(char::from_u32(code_point).unwrap());
                    continue;
                }
                if byte < 0x80 {
                    queue.push((byte, offset));
                    error(&mut out, first_offset, 1);
                } else {
                    error(&mut out, first_offset, 2);
                }
                continue;
            }
            match byte {
                // Step 6.
                0x00..=0x7F => out.push(byte as char),
                // Step 7.
                0x80 => out.push('\u{20AC}'),
                // Step 8.
                0x81..=0xFE => (first, first_offset) = (byte, offset),
                // Step 9.
                0xFF => error(&mut out, offset, 1),
            }
        }
        (out, errors)
    }

    /// § "gb18030 encoder" for one non-end-of-queue code point: the bytes, or `None`
    /// for error.
    fn encode(&self, code_point: u32, is_gbk: bool) -> Option<Vec<u8>> {
        if code_point < 0x80 {
            return Some(vec![code_point as u8]);
        }
        if code_point == 0xE5E5 {
            return None;
        }
        if is_gbk && code_point == 0x20AC {
            return Some(vec![0x80]);
        }
        if let Some((_, bytes)) = SIDE_TABLE.iter().find(|&&(c, _)| c == code_point) {
            return Some(bytes.to_vec());
        }
        // The index pointer is the first pointer for the code point.
        if let Some(&pointer) = self.first_pointer.get(&code_point) {
            let leading = pointer / 190 + 0x81;
            let trailing = pointer % 190;
            let offset = if trailing < 0x3F { 0x40 } else { 0x41 };
            return Some(vec![leading as u8, (trailing + offset) as u8]);
        }
        if is_gbk {
            return None;
        }
        let mut pointer = self.ranges_pointer(code_point);
        let byte1 = pointer / (10 * 126 * 10);
        pointer %= 10 * 126 * 10;
        let byte2 = pointer / (10 * 126);
        pointer %= 10 * 126;
        let byte3 = pointer / 10;
        let byte4 = pointer % 10;
        Some(vec![byte1 as u8 + 0x81, byte2 as u8 + 0x30, byte3 as u8 + 0x81, byte4 as u8 + 0x30])
    }
}

// ---------------------------------------------------------------------------
// Drivers over the public API.
// ---------------------------------------------------------------------------

/// Decodes in "replacement" mode in one call.
fn decode(encoding: &'static Encoding, input: &[u8]) -> String {
    encoding.decode(input).0.into_owned()
}

/// Decodes in "fatal" mode, going on after each error; returns the output (with
/// U+FFFD where each error was) and the errors. Input comes in `chunk`-byte pieces
/// and output goes through a buffer of `room` bytes.
fn decode_fatal_utf8(encoding: &'static Encoding, input: &[u8], chunk: usize, room: usize) -> (String, Vec<Error>) {
    let mut decoder = encoding.new_decoder_with(DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() });
    let mut out = String::new();
    let mut errors = Vec::new();
    let mut buf = vec![0u8; room];
    let chunks: Vec<&[u8]> = if input.is_empty() { vec![&[][..]] } else { input.chunks(chunk).collect() };
    for (i, piece) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let mut read = 0;
        loop {
            let progress = decoder.decode_to_utf8(&piece[read..], &mut buf, last);
            read += progress.read;
            out.push_str(std::str::from_utf8(&buf[..progress.written]).unwrap());
            match progress.result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(error) => {
                    errors.push((error.offset, error.len));
                    out.push('\u{FFFD}');
                }
            }
        }
        assert_eq!(read, piece.len());
    }
    (out, errors)
}

/// Decodes in "replacement" mode to UTF-16 through a buffer of `room` units, input
/// in `chunk`-byte pieces.
fn decode_utf16(encoding: &'static Encoding, input: &[u8], chunk: usize, room: usize) -> String {
    let mut decoder = encoding.new_decoder();
    let mut out = Vec::new();
    let mut buf = vec![0u16; room];
    let chunks: Vec<&[u8]> = if input.is_empty() { vec![&[][..]] } else { input.chunks(chunk).collect() };
    for (i, piece) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let mut read = 0;
        loop {
            let progress = decoder.decode_to_utf16(&piece[read..], &mut buf, last);
            read += progress.read;
            out.extend_from_slice(&buf[..progress.written]);
            match progress.result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(_) => unreachable!("replacement mode"),
            }
        }
    }
    String::from_utf16(&out).unwrap()
}

/// Encodes in "fatal" mode: the bytes, or the first unmappable scalar value.
fn encode(encoding: &'static Encoding, text: &str) -> Result<Vec<u8>, char> {
    let mut encoder = encoding.new_encoder().unwrap();
    let mut out = Vec::new();
    match encoder.encode_from_utf8_to_vec(text, &mut out, true).0 {
        EncoderResult::InputEmpty => Ok(out),
        EncoderResult::Unmappable(c) => Err(c),
        EncoderResult::OutputFull => unreachable!(),
    }
}

/// Encodes in "html" mode from UTF-16, through a buffer of `room` bytes.
fn encode_html_utf16(encoding: &'static Encoding, text: &str, room: usize) -> Vec<u8> {
    let units: Vec<u16> = text.encode_utf16().collect();
    let mut encoder = encoding.new_encoder_with(EncoderErrorMode::Html).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; room];
    let mut read = 0;
    loop {
        let progress = encoder.encode_from_utf16(&units[read..], &mut buf, true);
        read += progress.read;
        out.extend_from_slice(&buf[..progress.written]);
        match progress.result {
            EncoderResult::InputEmpty => return out,
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(_) => unreachable!("html mode"),
        }
    }
}

/// The "html" error mode's reference for an unmappable scalar value.
fn html_reference(code_point: u32) -> Vec<u8> {
    format!("&#{code_point};").into_bytes()
}

/// The two bytes of an index gb18030 pointer, as the gb18030 encoder writes them
/// (§ "gb18030 encoder", step 7).
fn pointer_bytes(pointer: u32) -> [u8; 2] {
    let trailing = pointer % 190;
    let offset = if trailing < 0x3F { 0x40 } else { 0x41 };
    [(pointer / 190 + 0x81) as u8, (trailing + offset) as u8]
}

/// The four bytes of a gb18030 ranges pointer (§ "gb18030 encoder", steps 10–16).
fn four_bytes(pointer: u32) -> [u8; 4] {
    [
        (pointer / 12600 + 0x81) as u8,
        (pointer % 12600 / 1260 + 0x30) as u8,
        (pointer % 1260 / 10 + 0x81) as u8,
        (pointer % 10 + 0x30) as u8,
    ]
}

/// A deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A byte biased to the ones that matter to gb18030.
    fn gb_byte(&mut self) -> u8 {
        const INTERESTING: [u8; 12] = [0x30, 0x35, 0x39, 0x81, 0x84, 0x90, 0xE3, 0xFE, 0x80, 0xFF, 0x41, 0x7F];
        let r = self.next();
        match r % 4 {
            0 => INTERESTING[(r >> 8) as usize % INTERESTING.len()],
            1 => 0x30 + (r >> 8) as u8 % 10,
            2 => 0x81 + (r >> 8) as u8 % 126,
            _ => (r >> 8) as u8,
        }
    }
}

// ---------------------------------------------------------------------------
// Hand-written tests, one per rule.
// ---------------------------------------------------------------------------

/// § "gb18030 decoder" step 6: an ASCII byte is a code point, and step 7: 0x80 is U+20AC.
#[test]
fn decoder_ascii_and_0x80_is_euro() {
    assert_eq!(decode(GB18030, b"abc\x80xyz"), "abc\u{20AC}xyz");
    assert_eq!(decode(GBK, b"\x80"), "\u{20AC}");
}

/// § "gb18030 decoder" step 9: 0xFF is an error of one byte.
#[test]
fn decoder_0xff_is_error() {
    assert_eq!(decode_fatal_utf8(GB18030, b"a\xFFb", 64, 64), ("a\u{FFFD}b".into(), vec![(1, 1)]));
}

/// § "gb18030 decoder" steps 5.5–5.8: the two-byte pointer with offset 0x40 below
/// 0x7F and 0x41 from 0x80, and index gb18030 (0xA3 0xA0 is U+3000, per its note).
#[test]
fn decoder_two_byte_pointers() {
    // Pointer 0 and 1: the first entries of the index.
    assert_eq!(decode(GB18030, b"\x81\x40\x81\x41"), "\u{4E02}\u{4E04}");
    // 0x80 as a trailing byte: pointer 0x80 − 0x41 = 63.
    let index: HashMap<u32, u32> = load_index("gb18030").into_iter().collect();
    assert_eq!(decode(GB18030, b"\x81\x80"), char::from_u32(index[&63]).unwrap().to_string());
    assert_eq!(decode(GB18030, b"\xA1\xA1\xA3\xA0"), "\u{3000}\u{3000}");
    assert_eq!(decode(GB18030, b"\xA2\xE3"), "\u{20AC}");
}

/// § "gb18030 decoder" step 5.9: an ASCII trailing byte that makes no code point is
/// restored, so it is never swallowed; a non-ASCII one is part of the error.
#[test]
fn decoder_restores_ascii_trailing_byte() {
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81\x7F", 64, 64), ("\u{FFFD}\u{7F}".into(), vec![(0, 1)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81<", 64, 64), ("\u{FFFD}<".into(), vec![(0, 1)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81\xFFa", 64, 64), ("\u{FFFD}a".into(), vec![(0, 2)]));
}

/// § "gb18030 decoder" step 3 with § "Indexes" "index gb18030 ranges code point":
/// four-byte sequences through the ranges, to U+0080, U+FFFF, U+10000 and U+10FFFF.
#[test]
fn decoder_four_byte_ranges() {
    assert_eq!(decode(GB18030, b"\x81\x30\x81\x30"), "\u{80}");
    assert_eq!(decode(GB18030, b"\x84\x31\xA4\x39"), "\u{FFFF}");
    assert_eq!(decode(GB18030, b"\x90\x30\x81\x30"), "\u{10000}");
    assert_eq!(decode(GB18030, b"\xE3\x32\x9A\x35"), "\u{10FFFF}");
    // GBK's decoder is gb18030's (§ "GBK decoder").
    assert_eq!(decode(GBK, b"\x90\x30\x81\x30"), "\u{10000}");
}

/// § "Indexes", "index gb18030 ranges code point" step 1: pointers above 39419 and
/// below 189000, or above 1237575, are null: an error of four bytes.
#[test]
fn decoder_ranges_pointer_limits() {
    // Pointer 39420 (one past U+FFFF) and 188999 (one before U+10000).
    assert_eq!(decode_fatal_utf8(GB18030, b"\x84\x31\xA5\x30", 64, 64), ("\u{FFFD}".into(), vec![(0, 4)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"\x8F\x39\xFE\x39", 64, 64), ("\u{FFFD}".into(), vec![(0, 4)]));
    // Pointer 1237576 (one past U+10FFFF) and the largest, 1587599.
    assert_eq!(decode_fatal_utf8(GB18030, b"a\xE3\x32\x9A\x36", 64, 64), ("a\u{FFFD}".into(), vec![(1, 4)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"\xFE\x39\xFE\x39", 64, 64), ("\u{FFFD}".into(), vec![(0, 4)]));
}

/// § "Indexes", "index gb18030 ranges code point" step 2: pointer 7457 is U+E7C7,
/// and "index gb18030 ranges pointer" step 1: U+E7C7 is pointer 7457.
#[test]
fn pointer_7457_is_e7c7() {
    assert_eq!(decode(GB18030, b"\x81\x35\xF4\x37"), "\u{E7C7}");
    assert_eq!(encode(GB18030, "\u{E7C7}"), Ok(b"\x81\x35\xF4\x37".to_vec()));
    // Without step 2, the range at pointer 820 would give U+1E3F, which index gb18030
    // has as two bytes.
    assert_eq!(encode(GB18030, "\u{1E3F}"), Ok(b"\xA8\xBC".to_vec()));
}

/// § "gb18030 decoder" step 3.1: a fourth byte outside 0x30–0x39 restores « second,
/// third, byte »: the digit comes out as ASCII and the third byte leads again.
#[test]
fn decoder_step_3_1_restores_three_bytes() {
    // « 0x30, 0x81, 0x41 » re-read: "0", then 0x81 0x41 is pointer 1.
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81\x30\x81\x41", 64, 64), ("\u{FFFD}0\u{4E04}".into(), vec![(0, 1)]));
    // « 0x39, 0xFE, 0xFF »: "9", then 0xFE 0xFF is an error of two bytes.
    assert_eq!(
        decode_fatal_utf8(GB18030, b"\x81\x39\xFE\xFF", 64, 64),
        ("\u{FFFD}9\u{FFFD}".into(), vec![(0, 1), (2, 2)])
    );
}

/// § "gb18030 decoder" step 4.2: a third byte outside 0x81–0xFE restores « second,
/// byte ».
#[test]
fn decoder_step_4_2_restores_two_bytes() {
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81\x30A", 64, 64), ("\u{FFFD}0A".into(), vec![(0, 1)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81\x30\x30", 64, 64), ("\u{FFFD}00".into(), vec![(0, 1)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81\x30\x80", 64, 64), ("\u{FFFD}0\u{20AC}".into(), vec![(0, 1)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"\x81\x30\xFF", 64, 64), ("\u{FFFD}0\u{FFFD}".into(), vec![(0, 1), (2, 1)]));
}

/// § "gb18030 decoder" steps 1 and 2: end-of-queue with gb18030 first, second or
/// third set is one error, and the decoder is back to its initial state.
#[test]
fn decoder_end_of_queue() {
    assert_eq!(decode_fatal_utf8(GB18030, b"a\x81", 64, 64), ("a\u{FFFD}".into(), vec![(1, 1)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"a\x81\x30", 64, 64), ("a\u{FFFD}".into(), vec![(1, 2)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"a\x81\x30\x81", 64, 64), ("a\u{FFFD}".into(), vec![(1, 3)]));
    assert_eq!(decode_fatal_utf8(GB18030, b"", 64, 64), (String::new(), vec![]));
}

/// Restored bytes that came in earlier calls are re-read first (§ "gb18030 decoder"
/// step 3.1 across calls): the state survives every split of the input.
#[test]
fn decoder_restore_across_calls() {
    let input = b"\x81\x30\x81\x41z\x81\x30\x81\x30\x81\x30q\x84\x31\xA4";
    let expected = Reference::new().decode(input);
    for chunk in 1..=input.len() {
        for room in [4, 5, 7, 64] {
            assert_eq!(decode_fatal_utf8(GB18030, input, chunk, room), expected, "chunk {chunk}, room {room}");
        }
        for room in [2, 3, 64] {
            assert_eq!(decode_utf16(GB18030, input, chunk, room), expected.0, "chunk {chunk}, room {room}");
        }
    }
}

/// § "gb18030 encoder" step 3: U+E5E5 is an error, for gb18030 and GBK.
#[test]
fn encoder_e5e5_is_error() {
    assert_eq!(encode(GB18030, "a\u{E5E5}"), Err('\u{E5E5}'));
    assert_eq!(encode(GBK, "\u{E5E5}"), Err('\u{E5E5}'));
    assert_eq!(GB18030.encode("\u{E5E5}").unwrap().0.as_ref(), b"&#58853;");
}

/// § "gb18030 encoder" step 4: with is GBK, U+20AC is 0x80; gb18030 uses the index.
#[test]
fn encoder_gbk_euro_is_0x80() {
    assert_eq!(encode(GBK, "\u{20AC}"), Ok(vec![0x80]));
    assert_eq!(encode(GB18030, "\u{20AC}"), Ok(vec![0xA2, 0xE3]));
}

/// § "gb18030 encoder" step 5: the 18-entry side table, for gb18030 and GBK, even
/// though index gb18030 decodes those bytes to other code points.
#[test]
fn encoder_side_table() {
    for (code_point, bytes) in SIDE_TABLE {
        let text = char::from_u32(code_point).unwrap().to_string();
        assert_eq!(encode(GB18030, &text), Ok(bytes.to_vec()), "U+{code_point:04X}");
        assert_eq!(encode(GBK, &text), Ok(bytes.to_vec()), "U+{code_point:04X}");
    }
    assert_eq!(decode(GB18030, b"\xA6\xD9"), "\u{FE10}");
}

/// § "gb18030 encoder" step 6: the index pointer is the *first* pointer; U+3000 is at
/// 0xA1 0xA1 and (again) 0xA3 0xA0.
#[test]
fn encoder_first_pointer() {
    assert_eq!(encode(GB18030, "\u{3000}"), Ok(vec![0xA1, 0xA1]));
    // Step 7's offset: 0x40 below trailing 0x3F, else 0x41 (0x7F is skipped).
    assert_eq!(encode(GB18030, "\u{4E02}"), Ok(vec![0x81, 0x40]));
}

/// § "gb18030 encoder" step 8: GBK has no four-byte output.
#[test]
fn encoder_gbk_no_four_bytes() {
    assert_eq!(encode(GBK, "\u{80}"), Err('\u{80}'));
    assert_eq!(encode(GBK, "\u{10000}"), Err('\u{10000}'));
    assert_eq!(encode(GBK, "\u{E7C7}"), Err('\u{E7C7}'));
}

/// § "gb18030 encoder" steps 9–16 with "index gb18030 ranges pointer": four bytes.
#[test]
fn encoder_four_bytes() {
    assert_eq!(encode(GB18030, "\u{80}"), Ok(b"\x81\x30\x81\x30".to_vec()));
    assert_eq!(encode(GB18030, "\u{FFFF}"), Ok(b"\x84\x31\xA4\x39".to_vec()));
    assert_eq!(encode(GB18030, "\u{10000}"), Ok(b"\x90\x30\x81\x30".to_vec()));
    assert_eq!(encode(GB18030, "\u{10FFFF}"), Ok(b"\xE3\x32\x9A\x35".to_vec()));
}

// ---------------------------------------------------------------------------
// Exhaustive tests.
// ---------------------------------------------------------------------------

/// Every pointer of index gb18030 decodes from its two bytes (§ "gb18030 decoder"
/// step 5 in reverse: leading pointer / 190 + 0x81, trailing with offset 0x40/0x41).
#[test]
fn exhaustive_every_index_pointer_decodes() {
    let entries = load_index("gb18030");
    assert_eq!(entries.len(), 23940);
    let mut input = Vec::new();
    let mut expected = String::new();
    for &(pointer, code_point) in &entries {
        input.extend_from_slice(&pointer_bytes(pointer));
        expected.push(char::from_u32(code_point).unwrap());
    }
    assert_eq!(GB18030.decode_or_fail(&input).unwrap(), expected);
    assert_eq!(GBK.decode_or_fail(&input).unwrap(), expected);
}

/// Every byte pair (a leading byte 0x81–0xFE and any byte) decodes as the standard
/// says, errors and restores included; and every single byte.
#[test]
fn exhaustive_every_byte_pair() {
    let reference = Reference::new();
    for lead in 0..=0xFFu8 {
        let expected = reference.decode(&[lead]);
        assert_eq!(decode_fatal_utf8(GB18030, &[lead], 1, 64), expected, "{lead:02X}");
    }
    for lead in 0x81..=0xFEu8 {
        for byte in 0..=0xFFu8 {
            let input = [lead, byte];
            let expected = reference.decode(&input);
            assert_eq!(decode_fatal_utf8(GB18030, &input, 2, 64), expected, "{lead:02X} {byte:02X}");
            assert_eq!(decode_fatal_utf8(GB18030, &input, 1, 4), expected, "{lead:02X} {byte:02X}");
        }
    }
}

/// Every four-byte sequence (0x81–0xFE, 0x30–0x39, 0x81–0xFE, 0x30–0x39) decodes to
/// the index gb18030 ranges code point of its pointer, or is an error of four bytes.
#[test]
fn exhaustive_every_four_byte_sequence() {
    let reference = Reference::new();
    let mut input = Vec::with_capacity(1587600 * 4);
    let mut expected = String::new();
    let mut expected_errors = Vec::new();
    for pointer in 0..1587600u32 {
        let bytes = four_bytes(pointer);
        let check = ((bytes[0] as u32 - 0x81) * 12600)
            + ((bytes[1] as u32 - 0x30) * 1260)
            + ((bytes[2] as u32 - 0x81) * 10)
            + (bytes[3] as u32 - 0x30);
        assert_eq!(check, pointer);
        match reference.ranges_code_point(pointer) {
            Some(c) => expected.push(char::from_u32(c).unwrap()),
            None => {
                expected.push('\u{FFFD}');
                expected_errors.push((input.len() as u64, 4));
            }
        }
        input.extend_from_slice(&bytes);
    }
    let (text, errors) = decode_fatal_utf8(GB18030, &input, 1 << 20, 1 << 16);
    assert!(text == expected, "four-byte decoding differs");
    assert_eq!(errors, expected_errors);
    // Valid ones also come out whole in UTF-16, through a small buffer.
    assert!(decode_utf16(GB18030, &input[..39420 * 4], 4096, 3) == expected.chars().take(39420).collect::<String>());
}

/// Every code point in index gb18030 encodes to the bytes the standard's rules
/// pick (side table, else its first pointer), for gb18030 and GBK.
#[test]
fn exhaustive_every_index_code_point_encodes() {
    let reference = Reference::new();
    let mut seen = std::collections::HashSet::new();
    for &(pointer, code_point) in &reference.entries {
        if !seen.insert(code_point) {
            continue;
        }
        let text = char::from_u32(code_point).unwrap().to_string();
        let expected = match SIDE_TABLE.iter().find(|&&(c, _)| c == code_point) {
            Some((_, bytes)) => bytes.to_vec(),
            None => pointer_bytes(pointer).to_vec(),
        };
        assert_eq!(encode(GB18030, &text), Ok(expected.clone()), "U+{code_point:04X}");
        let gbk_expected = if code_point == 0x20AC { vec![0x80] } else { expected };
        assert_eq!(encode(GBK, &text), Ok(gbk_expected), "U+{code_point:04X}");
    }
}

/// Every scalar value encodes as the reference encoder says, gb18030 and GBK ("html"
/// mode for errors), through UTF-8 in one call and UTF-16 with a small buffer.
#[test]
fn exhaustive_every_scalar_value_encodes() {
    let reference = Reference::new();
    for (encoding, is_gbk) in [(GB18030, false), (GBK, true)] {
        let mut text = String::new();
        let mut expected = Vec::new();
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            text.push(c);
            match reference.encode(c as u32, is_gbk) {
                Some(bytes) => expected.extend_from_slice(&bytes),
                None => expected.extend_from_slice(&html_reference(c as u32)),
            }
        }
        let (bytes, unmappable) = encoding.encode(&text).unwrap();
        assert!(bytes.as_ref() == expected.as_slice(), "{}: UTF-8 input", encoding.name());
        assert!(unmappable);
        let bmp: String = text.chars().take(0xF800).collect();
        let bmp_expected = encoding.encode(&bmp).unwrap().0.into_owned();
        assert!(encode_html_utf16(encoding, &bmp, 14) == bmp_expected, "{}: UTF-16 input", encoding.name());
    }
}

/// Pseudo-random byte strings rich in leading bytes, digits and invalid bytes decode
/// as the reference says, whole and split at every size, with exact error offsets.
#[test]
fn random_inputs_match_reference() {
    let reference = Reference::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..3000 {
        let len = (rng.next() % 24) as usize;
        let input: Vec<u8> = (0..len).map(|_| rng.gb_byte()).collect();
        let expected = reference.decode(&input);
        for chunk in [1, 2, 3, 5, 64] {
            let room = [4, 5, 6, 7, 64][round % 5];
            assert_eq!(decode_fatal_utf8(GB18030, &input, chunk, room), expected, "{input:02X?} chunk {chunk}");
        }
        assert_eq!(decode_utf16(GB18030, &input, 1 + round % 4, 2 + round % 3), expected.0, "{input:02X?}");
        assert_eq!(decode(GB18030, &input), expected.0, "{input:02X?}");
    }
}

// ---------------------------------------------------------------------------
// encoding_rs as a second oracle.
// ---------------------------------------------------------------------------

/// Decoding every byte pair and every four-byte sequence agrees with encoding_rs,
/// except where encoding.bs (GB18030-2022 as pinned) says otherwise; those are listed.
#[test]
fn encoding_rs_decoder_agrees() {
    let mut disagreements = Vec::new();
    let mut check = |input: &[u8]| {
        let ours = decode(GB18030, input);
        let (theirs, _) = encoding_rs::GB18030.decode_without_bom_handling(input);
        if ours != theirs {
            disagreements.push((input.to_vec(), ours, theirs.into_owned()));
        }
    };
    for lead in 0x80..=0xFFu8 {
        for byte in 0..=0xFFu8 {
            check(&[lead, byte]);
        }
    }
    for pointer in 0..1587600u32 {
        check(&four_bytes(pointer));
    }
    for (input, ours, theirs) in &disagreements {
        eprintln!("encoding_rs differs on {input:02X?}: whatenc {ours:?}, encoding_rs {theirs:?}");
    }
    // Each disagreement must be one the standard's reference confirms is ours.
    let reference = Reference::new();
    for (input, ours, _) in &disagreements {
        assert_eq!(&reference.decode(input).0, ours);
    }
}

/// Encoding every scalar value agrees with encoding_rs, except where encoding.bs
/// says otherwise (listed).
#[test]
fn encoding_rs_encoder_agrees() {
    let reference = Reference::new();
    for (encoding, theirs_encoding, is_gbk) in [(GB18030, encoding_rs::GB18030, false), (GBK, encoding_rs::GBK, true)] {
        for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
            let text = c.to_string();
            let ours = encoding.encode(&text).unwrap().0.into_owned();
            let theirs = theirs_encoding.new_encoder().encode_from_utf8_to_vec_without_replacement_helper(&text);
            if ours != theirs {
                eprintln!(
                    "{}: encoding_rs differs on U+{:04X}: whatenc {ours:02X?}, encoding_rs {theirs:02X?}",
                    encoding.name(),
                    c as u32
                );
                let expected = reference.encode(c as u32, is_gbk).unwrap_or_else(|| html_reference(c as u32));
                assert_eq!(ours, expected);
            }
        }
    }
}

/// encoding_rs's encoder with "html" references for unmappable scalar values.
trait EncodeHelper {
    fn encode_from_utf8_to_vec_without_replacement_helper(self, text: &str) -> Vec<u8>;
}

impl EncodeHelper for encoding_rs::Encoder {
    fn encode_from_utf8_to_vec_without_replacement_helper(mut self, text: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        let (result, _) = self.encode_from_utf8_to_vec_without_replacement(text, &mut out, true);
        match result {
            encoding_rs::EncoderResult::InputEmpty => out,
            encoding_rs::EncoderResult::Unmappable(c) => {
                out.extend_from_slice(&html_reference(c as u32));
                out
            }
            encoding_rs::EncoderResult::OutputFull => unreachable!(),
        }
    }
}
