//! Shared by the differential tests: the pairs of encodings, a small PRNG, inputs
//! made to reach every decoder's and encoder's corner cases, and drivers that run
//! a whole stream through either crate and record every call.
#![allow(dead_code)]

use whatenc_encoding_rs as compat;

macro_rules! pairs {
    ($($name:ident)*) => {
        /// Each compat static with its encoding_rs twin.
        pub static PAIRS: &[(&compat::Encoding, &encoding_rs::Encoding)] = &[$((compat::$name, encoding_rs::$name)),*];
    };
}

pairs! {
    BIG5 EUC_JP EUC_KR GBK IBM866 ISO_2022_JP ISO_8859_10 ISO_8859_13 ISO_8859_14 ISO_8859_15
    ISO_8859_16 ISO_8859_2 ISO_8859_3 ISO_8859_4 ISO_8859_5 ISO_8859_6 ISO_8859_7 ISO_8859_8
    ISO_8859_8_I KOI8_R KOI8_U SHIFT_JIS UTF_16BE UTF_16LE UTF_8 GB18030 MACINTOSH REPLACEMENT
    WINDOWS_1250 WINDOWS_1251 WINDOWS_1252 WINDOWS_1253 WINDOWS_1254 WINDOWS_1255 WINDOWS_1256
    WINDOWS_1257 WINDOWS_1258 WINDOWS_874 X_MAC_CYRILLIC X_USER_DEFINED
}

/// The encoding_rs twin of a compat encoding.
pub fn twin(encoding: &'static compat::Encoding) -> &'static encoding_rs::Encoding {
    PAIRS.iter().find(|(c, _)| *c == encoding).unwrap().1
}

/// xorshift64*: deterministic, so a failure names its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Text with a bit of everything: ASCII, controls (ESC, SO, SI), Latin-1, the
/// Japanese, Chinese and Korean ranges, half-width katakana, astral characters,
/// and characters no legacy encoding has.
pub const SAMPLE_CHARS: &[char] = &[
    'a',
    'Z',
    '~',
    '\\',
    '\u{0}',
    '\u{1B}',
    '\u{E}',
    '\u{F}',
    '\u{7F}',
    '\u{80}',
    '\u{A0}',
    '¥',
    '©',
    'é',
    'ÿ',
    'Ā',
    'Ω',
    'я',
    'ї',
    'א',
    'ش',
    'ก',
    '‾',
    '€',
    '−',
    '─',
    'あ',
    'ア',
    'ｱ',
    'ﾟ',
    '日',
    '本',
    '中',
    '文',
    '가',
    '힣',
    '丂',
    '㐀',
    '\u{E5E5}',
    '\u{F780}',
    '\u{FFFD}',
    '\u{FEFF}',
    '\u{FFFF}',
    '😀',
    '\u{10FFFF}',
    '\u{20087}',
    '☃',
];

/// A random string of `SAMPLE_CHARS` and random scalar values.
pub fn random_text(rng: &mut Rng, max_chars: usize) -> String {
    let len = rng.below(max_chars + 1);
    (0..len)
        .map(|_| {
            if rng.below(4) == 0 {
                loop {
                    let range = *rng.pick(&[0x80u32, 0x800, 0x10000, 0x110000]);
                    if let Some(c) = char::from_u32(rng.below(range as usize) as u32) {
                        return c;
                    }
                }
            } else {
                *rng.pick(SAMPLE_CHARS)
            }
        })
        .collect()
}

/// Byte fragments for an encoding: its encodings of the sample characters, BOMs,
/// escape sequences, lone and bad lead and trail bytes.
pub fn fragments(encoding: &'static encoding_rs::Encoding) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for &c in SAMPLE_CHARS {
        let s = c.to_string();
        let bytes = match encoding.name() {
            "UTF-16BE" => s.encode_utf16().flat_map(|u| u.to_be_bytes()).collect(),
            "UTF-16LE" => s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect(),
            _ => encoding.new_encoder().encoding().encode(&s).0.into_owned(),
        };
        out.push(bytes);
    }
    for f in [
        &b"\xEF\xBB\xBF"[..],
        b"\xEF\xBB",
        b"\xEF",
        b"\xFE\xFF",
        b"\xFF\xFE",
        b"\xFE",
        b"\xFF",
        b"\x1B",
        b"\x1B$",
        b"\x1B$B",
        b"\x1B$@",
        b"\x1B(B",
        b"\x1B(J",
        b"\x1B(I",
        b"\x1B(",
        b"\x0E",
        b"\x0F",
        b"\x80",
        b"\x81",
        b"\x8E",
        b"\x8F",
        b"\xA1",
        b"\xA4",
        b"\xC2",
        b"\xE3\x81",
        b"\xF0\x9F",
        b"\xF0\x9F\x98",
        b"\xF4\x90",
        b"\xED\xA0\x80",
        b"\xC0\x80",
        b"\x81\x30",
        b"\x81\x30\x81",
        b"\x84\x31\xA4\x39",
        b"\xFE\x39\xFE\x39",
        b"\xFF\x30\xFF",
        b"\x81\x30\x81\x30\x81",
        b"\x00\xD8",
        b"\xD8\x00",
        b"\x00\xDC",
        b"\xDC\x00",
        b"\x3D\xD8\x00\xDE",
        b"\xD8\x3D\xDE\x00",
        b"\x88\x62",
        b"\x88\x64",
        b"\xFA\x40",
        b"\x8F\xA2\xAF",
        b"\x30",
        b"a",
        b"\x7F",
        b"\xA0",
        b"\xFD",
        b"\x5C",
    ] {
        out.push(f.to_vec());
    }
    out
}

/// A random input of up to `max_fragments` fragments, some replaced by random bytes.
pub fn random_bytes(rng: &mut Rng, fragments: &[Vec<u8>], max_fragments: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.below(max_fragments + 1) {
        if rng.below(8) == 0 {
            out.push(rng.next() as u8);
        } else {
            let fragment: &Vec<u8> = rng.pick(fragments);
            out.extend_from_slice(fragment);
        }
    }
    out
}

/// Which BOM handling a decoder is made with.
#[derive(Clone, Copy, Debug)]
pub enum Bom {
    Sniff,
    Remove,
    None,
}

pub const BOMS: [Bom; 3] = [Bom::Sniff, Bom::Remove, Bom::None];

pub fn compat_decoder(encoding: &'static compat::Encoding, bom: Bom) -> compat::Decoder {
    match bom {
        Bom::Sniff => encoding.new_decoder(),
        Bom::Remove => encoding.new_decoder_with_bom_removal(),
        Bom::None => encoding.new_decoder_without_bom_handling(),
    }
}

pub fn ref_decoder(encoding: &'static encoding_rs::Encoding, bom: Bom) -> encoding_rs::Decoder {
    match bom {
        Bom::Sniff => encoding.new_decoder(),
        Bom::Remove => encoding.new_decoder_with_bom_removal(),
        Bom::None => encoding.new_decoder_without_bom_handling(),
    }
}

/// The eight `decode_to_*` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeMethod {
    Utf8,
    Utf8Strict,
    Str,
    StrStrict,
    String,
    StringStrict,
    Utf16,
    Utf16Strict,
}

pub const DECODE_METHODS: [DecodeMethod; 8] = [
    DecodeMethod::Utf8,
    DecodeMethod::Utf8Strict,
    DecodeMethod::Str,
    DecodeMethod::StrStrict,
    DecodeMethod::String,
    DecodeMethod::StringStrict,
    DecodeMethod::Utf16,
    DecodeMethod::Utf16Strict,
];

impl DecodeMethod {
    pub fn utf16(self) -> bool {
        matches!(self, DecodeMethod::Utf16 | DecodeMethod::Utf16Strict)
    }
    pub fn strict(self) -> bool {
        matches!(
            self,
            DecodeMethod::Utf8Strict | DecodeMethod::StrStrict | DecodeMethod::StringStrict | DecodeMethod::Utf16Strict
        )
    }
    /// The least room with which every call makes progress.
    pub fn min_room(self) -> usize {
        if self.utf16() { 2 } else { 4 }
    }
}

/// One decoding call: the result's `Debug` form, read, written, had_errors
/// (`None` for the strict methods), and the output (UTF-16 units or bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub result: String,
    pub read: usize,
    pub written: usize,
    pub had_errors: Option<bool>,
    pub output: Vec<u16>,
}

macro_rules! decode_call {
    ($decoder:expr, $method:expr, $src:expr, $room:expr, $last:expr) => {{
        let (decoder, src, room, last) = ($decoder, $src, $room, $last);
        match $method {
            DecodeMethod::Utf8 => {
                let mut out = vec![0u8; room];
                let (r, read, written, e) = decoder.decode_to_utf8(src, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: Some(e),
                    output: out[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            DecodeMethod::Utf8Strict => {
                let mut out = vec![0u8; room];
                let (r, read, written) = decoder.decode_to_utf8_without_replacement(src, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: None,
                    output: out[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            DecodeMethod::Str => {
                let mut out = "\u{7}".repeat(room);
                let (r, read, written, e) = decoder.decode_to_str(src, out.as_mut_str(), last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: Some(e),
                    output: out.as_bytes()[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            DecodeMethod::StrStrict => {
                let mut out = "\u{7}".repeat(room);
                let (r, read, written) = decoder.decode_to_str_without_replacement(src, out.as_mut_str(), last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: None,
                    output: out.as_bytes()[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            DecodeMethod::String => {
                let mut out = String::with_capacity(room + 2);
                out.push_str("\u{7}\u{7}");
                let (r, read, e) = decoder.decode_to_string(src, &mut out, last);
                let written = out.len() - 2;
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: Some(e),
                    output: out.as_bytes()[2..].iter().map(|&b| b.into()).collect(),
                }
            }
            DecodeMethod::StringStrict => {
                let mut out = String::with_capacity(room + 2);
                out.push_str("\u{7}\u{7}");
                let (r, read) = decoder.decode_to_string_without_replacement(src, &mut out, last);
                let written = out.len() - 2;
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: None,
                    output: out.as_bytes()[2..].iter().map(|&b| b.into()).collect(),
                }
            }
            DecodeMethod::Utf16 => {
                let mut out = vec![0u16; room];
                let (r, read, written, e) = decoder.decode_to_utf16(src, &mut out, last);
                Call { result: format!("{r:?}"), read, written, had_errors: Some(e), output: out[..written].to_vec() }
            }
            DecodeMethod::Utf16Strict => {
                let mut out = vec![0u16; room];
                let (r, read, written) = decoder.decode_to_utf16_without_replacement(src, &mut out, last);
                Call { result: format!("{r:?}"), read, written, had_errors: None, output: out[..written].to_vec() }
            }
        }
    }};
}

/// How a driver sizes the output of each call.
#[derive(Clone, Copy, Debug)]
pub enum Room {
    /// A fixed number of units.
    Fixed(usize),
    /// The decoder's own max length for the rest of the piece.
    Max,
}

/// What a whole stream did.
#[derive(Debug, PartialEq, Eq)]
pub struct Transcript {
    pub calls: Vec<Call>,
    /// The max lengths asked before each call (Room::Max only).
    pub maxes: Vec<Option<usize>>,
    /// Whether it stopped because a call made no progress.
    pub stuck: bool,
    pub encoding: String,
}

impl Transcript {
    pub fn text(&self) -> Vec<u16> {
        self.calls.iter().flat_map(|c| c.output.iter().copied()).collect()
    }
    pub fn had_errors(&self) -> bool {
        self.calls.iter().any(|c| c.had_errors == Some(true) || c.result.starts_with("Malformed"))
    }
    /// The malformed results with the stream offset after each.
    pub fn errors(&self) -> Vec<(String, usize)> {
        let mut offset = 0;
        let mut out = Vec::new();
        for c in &self.calls {
            offset += c.read;
            if c.result.starts_with("Malformed") {
                out.push((c.result.clone(), offset));
            }
        }
        out
    }
}

macro_rules! drive_decoder {
    ($name:ident, $decoder:ty) => {
        /// Runs the pieces through a decoder, calling until each is consumed.
        pub fn $name(mut decoder: $decoder, method: DecodeMethod, pieces: &[&[u8]], room: Room) -> Transcript {
            let mut calls = Vec::new();
            let mut maxes = Vec::new();
            let mut stuck = false;
            'pieces: for (i, piece) in pieces.iter().enumerate() {
                let last = i + 1 == pieces.len();
                let mut rest: &[u8] = piece;
                loop {
                    let room = match room {
                        Room::Fixed(n) => n,
                        Room::Max => {
                            let max = if method.utf16() {
                                decoder.max_utf16_buffer_length(rest.len())
                            } else if method.strict() {
                                decoder.max_utf8_buffer_length_without_replacement(rest.len())
                            } else {
                                decoder.max_utf8_buffer_length(rest.len())
                            };
                            maxes.push(max);
                            max.unwrap()
                        }
                    };
                    let call = decode_call!(&mut decoder, method, rest, room, last);
                    rest = &rest[call.read..];
                    let done = call.result == "InputEmpty";
                    let no_progress = call.result == "OutputFull" && call.read == 0 && call.written == 0;
                    calls.push(call);
                    if done {
                        continue 'pieces;
                    }
                    if no_progress {
                        stuck = true;
                        break 'pieces;
                    }
                }
            }
            Transcript { calls, maxes, stuck, encoding: decoder.encoding().name().to_string() }
        }
    };
}

drive_decoder!(drive_compat_decoder, compat::Decoder);
drive_decoder!(drive_ref_decoder, encoding_rs::Decoder);

/// Cuts `input` at the given offsets (sorted, deduplicated by the caller).
pub fn split<'a>(input: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for &cut in cuts {
        pieces.push(&input[start..cut]);
        start = cut;
    }
    pieces.push(&input[start..]);
    pieces
}

/// The six `encode_from_*` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeMethod {
    Utf8,
    Utf8Strict,
    Vec,
    VecStrict,
    Utf16,
    Utf16Strict,
}

pub const ENCODE_METHODS: [EncodeMethod; 6] = [
    EncodeMethod::Utf8,
    EncodeMethod::Utf8Strict,
    EncodeMethod::Vec,
    EncodeMethod::VecStrict,
    EncodeMethod::Utf16,
    EncodeMethod::Utf16Strict,
];

impl EncodeMethod {
    pub fn utf16(self) -> bool {
        matches!(self, EncodeMethod::Utf16 | EncodeMethod::Utf16Strict)
    }
    pub fn strict(self) -> bool {
        matches!(self, EncodeMethod::Utf8Strict | EncodeMethod::VecStrict | EncodeMethod::Utf16Strict)
    }
}

/// Text for an encoder: UTF-8 or UTF-16 (which may hold lone surrogates).
#[derive(Clone, Debug)]
pub enum Text {
    Utf8(String),
    Utf16(Vec<u16>),
}

impl Text {
    pub fn len(&self) -> usize {
        match self {
            Text::Utf8(s) => s.len(),
            Text::Utf16(u) => u.len(),
        }
    }
}

macro_rules! encode_call {
    ($encoder:expr, $method:expr, $src:expr, $room:expr, $last:expr) => {{
        let (encoder, room, last) = ($encoder, $room, $last);
        match ($method, $src) {
            (EncodeMethod::Utf8, Text::Utf8(s)) => {
                let mut out = vec![0u8; room];
                let (r, read, written, e) = encoder.encode_from_utf8(s, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: Some(e),
                    output: out[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            (EncodeMethod::Utf8Strict, Text::Utf8(s)) => {
                let mut out = vec![0u8; room];
                let (r, read, written) = encoder.encode_from_utf8_without_replacement(s, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: None,
                    output: out[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            (EncodeMethod::Vec, Text::Utf8(s)) => {
                let mut out = Vec::with_capacity(room + 2);
                out.extend_from_slice(b"\x07\x07");
                let (r, read, e) = encoder.encode_from_utf8_to_vec(s, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written: out.len() - 2,
                    had_errors: Some(e),
                    output: out[2..].iter().map(|&b| b.into()).collect(),
                }
            }
            (EncodeMethod::VecStrict, Text::Utf8(s)) => {
                let mut out = Vec::with_capacity(room + 2);
                out.extend_from_slice(b"\x07\x07");
                let (r, read) = encoder.encode_from_utf8_to_vec_without_replacement(s, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written: out.len() - 2,
                    had_errors: None,
                    output: out[2..].iter().map(|&b| b.into()).collect(),
                }
            }
            (EncodeMethod::Utf16, Text::Utf16(s)) => {
                let mut out = vec![0u8; room];
                let (r, read, written, e) = encoder.encode_from_utf16(s, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: Some(e),
                    output: out[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            (EncodeMethod::Utf16Strict, Text::Utf16(s)) => {
                let mut out = vec![0u8; room];
                let (r, read, written) = encoder.encode_from_utf16_without_replacement(s, &mut out, last);
                Call {
                    result: format!("{r:?}"),
                    read,
                    written,
                    had_errors: None,
                    output: out[..written].iter().map(|&b| b.into()).collect(),
                }
            }
            _ => unreachable!("text and method disagree"),
        }
    }};
}

/// The rest of a text from `read` on.
fn rest_of(text: &Text, read: usize) -> Text {
    match text {
        Text::Utf8(s) => Text::Utf8(s[read..].to_string()),
        Text::Utf16(u) => Text::Utf16(u[read..].to_vec()),
    }
}

macro_rules! drive_encoder {
    ($name:ident, $encoder:ty) => {
        /// Runs the pieces through an encoder, calling until each is consumed.
        pub fn $name(mut encoder: $encoder, method: EncodeMethod, pieces: &[Text], room: Room) -> Transcript {
            let mut calls = Vec::new();
            let mut maxes = Vec::new();
            let mut stuck = false;
            'pieces: for (i, piece) in pieces.iter().enumerate() {
                let last = i + 1 == pieces.len();
                let mut rest = piece.clone();
                loop {
                    let room = match room {
                        Room::Fixed(n) => n,
                        Room::Max => {
                            let n = rest.len();
                            let max = match (method.utf16(), method.strict()) {
                                (false, false) => encoder.max_buffer_length_from_utf8_if_no_unmappables(n),
                                (false, true) => encoder.max_buffer_length_from_utf8_without_replacement(n),
                                (true, false) => encoder.max_buffer_length_from_utf16_if_no_unmappables(n),
                                (true, true) => encoder.max_buffer_length_from_utf16_without_replacement(n),
                            };
                            maxes.push(max);
                            max.unwrap()
                        }
                    };
                    let call = encode_call!(&mut encoder, method, &rest, room, last);
                    rest = rest_of(&rest, call.read);
                    let done = call.result == "InputEmpty";
                    let no_progress = call.result == "OutputFull" && call.read == 0 && call.written == 0;
                    calls.push(call);
                    if done {
                        continue 'pieces;
                    }
                    if no_progress {
                        stuck = true;
                        break 'pieces;
                    }
                }
            }
            let pending = encoder.has_pending_state();
            Transcript { calls, maxes, stuck, encoding: format!("{} {pending}", encoder.encoding().name()) }
        }
    };
}

drive_encoder!(drive_compat_encoder, compat::Encoder);
drive_encoder!(drive_ref_encoder, encoding_rs::Encoder);

/// A random UTF-16 text: the UTF-16 of a random text, with lone surrogates mixed in.
pub fn random_utf16(rng: &mut Rng, max_chars: usize) -> Vec<u16> {
    let mut units: Vec<u16> = random_text(rng, max_chars).encode_utf16().collect();
    for _ in 0..rng.below(3) {
        let at = rng.below(units.len() + 1);
        units.insert(at, *rng.pick(&[0xD800u16, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D]));
    }
    units
}

/// Cuts a text at the given offsets, moving each cut back to a char boundary.
pub fn split_text(text: &Text, cuts: &[usize]) -> Vec<Text> {
    match text {
        Text::Utf8(s) => {
            let mut cuts: Vec<usize> =
                cuts.iter().map(|&c| (0..=c).rev().find(|&c| s.is_char_boundary(c)).unwrap()).collect();
            cuts.dedup();
            let mut pieces = Vec::new();
            let mut start = 0;
            for cut in cuts {
                pieces.push(Text::Utf8(s[start..cut].to_string()));
                start = cut;
            }
            pieces.push(Text::Utf8(s[start..].to_string()));
            pieces
        }
        Text::Utf16(u) => {
            let mut pieces = Vec::new();
            let mut start = 0;
            for &cut in cuts {
                pieces.push(Text::Utf16(u[start..cut].to_vec()));
                start = cut;
            }
            pieces.push(Text::Utf16(u[start..].to_vec()));
            pieces
        }
    }
}
