//! Shared by `tests/japanese.rs` and `tests/euc_kr.rs`: the index files, a reference
//! model of the standard's Japanese and Korean decoders and encoders (a literal
//! transcription of `encoding.bs` over an I/O queue, with lookups straight from the
//! index files, independent of the crate's tables), and streaming drivers.
#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::OnceLock;

use whatenc::{DecodeError, DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding, ErrorMode};

/// The entries of `data/whatwg/index-<name>.txt`: (pointer, code point), in order.
pub fn read_index(name: &str) -> Vec<(u32, u32)> {
    let path = format!("{}/../../data/whatwg/index-{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split('\t');
            let pointer = fields.next().unwrap().trim().parse().unwrap();
            let code_point = u32::from_str_radix(fields.next().unwrap().trim().trim_start_matches("0x"), 16).unwrap();
            (pointer, code_point)
        })
        .collect()
}

/// The indexes, by pointer, and their "index pointer" maps, by code point.
pub struct Indexes {
    pub jis0208_entries: Vec<(u32, u32)>,
    pub jis0212_entries: Vec<(u32, u32)>,
    pub euc_kr_entries: Vec<(u32, u32)>,
    pub jis0208: HashMap<u32, u32>,
    pub jis0212: HashMap<u32, u32>,
    pub katakana: HashMap<u32, u32>,
    pub euc_kr: HashMap<u32, u32>,
    /// "index pointer" in index jis0208: the first pointer of each code point.
    pub jis0208_pointer: HashMap<u32, u32>,
    /// "index Shift_JIS pointer": the first pointer outside 8272 to 8835.
    pub shift_jis_pointer: HashMap<u32, u32>,
    /// "index pointer" in index EUC-KR.
    pub euc_kr_pointer: HashMap<u32, u32>,
}

/// The first pointer of each code point among `entries` that `keep`.
pub fn first_pointers(entries: &[(u32, u32)], keep: impl Fn(u32) -> bool) -> HashMap<u32, u32> {
    let mut map = HashMap::new();
    for &(pointer, code_point) in entries {
        if keep(pointer) {
            map.entry(code_point).or_insert(pointer);
        }
    }
    map
}

pub fn indexes() -> &'static Indexes {
    static INDEXES: OnceLock<Indexes> = OnceLock::new();
    INDEXES.get_or_init(|| {
        let jis0208_entries = read_index("jis0208");
        let jis0212_entries = read_index("jis0212");
        let euc_kr_entries = read_index("euc-kr");
        let katakana = read_index("iso-2022-jp-katakana");
        Indexes {
            jis0208: jis0208_entries.iter().copied().collect(),
            jis0212: jis0212_entries.iter().copied().collect(),
            katakana: katakana.into_iter().collect(),
            euc_kr: euc_kr_entries.iter().copied().collect(),
            jis0208_pointer: first_pointers(&jis0208_entries, |_| true),
            shift_jis_pointer: first_pointers(&jis0208_entries, |p| !(8272..=8835).contains(&p)),
            euc_kr_pointer: first_pointers(&euc_kr_entries, |_| true),
            jis0208_entries,
            jis0212_entries,
            euc_kr_entries,
        }
    })
}

/// The encodings the reference model knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    EucJp,
    Iso2022Jp,
    ShiftJis,
    EucKr,
}

impl Kind {
    pub fn encoding(self) -> &'static Encoding {
        match self {
            Kind::EucJp => whatenc::EUC_JP,
            Kind::Iso2022Jp => whatenc::ISO_2022_JP,
            Kind::ShiftJis => whatenc::SHIFT_JIS,
            Kind::EucKr => whatenc::EUC_KR,
        }
    }
}

/// A handler result of the reference decoders.
enum Step {
    Finished,
    Continue,
    CodePoint(u32),
    Error,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IsoState {
    Ascii,
    Roman,
    Katakana,
    LeadByte,
    TrailByte,
    EscapeStart,
    Escape,
}

/// The reference decoders' state (the union of what the four need).
struct RefDecoder {
    kind: Kind,
    lead: u8,
    jis0212: bool,
    state: IsoState,
    output_state: IsoState,
    output: bool,
}

impl RefDecoder {
    fn handler(&mut self, queue: &mut VecDeque<u8>, byte: Option<u8>) -> Step {
        match self.kind {
            Kind::EucJp => self.euc_jp(queue, byte),
            Kind::Iso2022Jp => self.iso_2022_jp(queue, byte),
            Kind::ShiftJis => self.shift_jis(queue, byte),
            Kind::EucKr => self.euc_kr(queue, byte),
        }
    }

    /// encoding.bs "EUC-JP decoder".
    fn euc_jp(&mut self, queue: &mut VecDeque<u8>, byte: Option<u8>) -> Step {
        let idx = indexes();
        let Some(byte) = byte else {
            if self.lead != 0 {
                self.lead = 0;
                return Step::Error;
            }
            return Step::Finished;
        };
        if self.lead == 0x8E && (0xA1..=0xDF).contains(&byte) {
            self.lead = 0;
            return Step::CodePoint(0xFF61 - 0xA1 + byte as u32);
        }
        if self.lead == 0x8F && (0xA1..=0xFE).contains(&byte) {
            self.jis0212 = true;
            self.lead = byte;
            return Step::Continue;
        }
        if self.lead != 0 {
            let lead = self.lead;
            self.lead = 0;
            let mut code_point = None;
            if (0xA1..=0xFE).contains(&lead) && (0xA1..=0xFE).contains(&byte) {
                let pointer = (lead as u32 - 0xA1) * 94 + byte as u32 - 0xA1;
                code_point = if self.jis0212 { idx.jis0212.get(&pointer) } else { idx.jis0208.get(&pointer) }.copied();
            }
            self.jis0212 = false;
            if let Some(code_point) = code_point {
                return Step::CodePoint(code_point);
            }
            if byte < 0x80 {
                queue.push_front(byte);
            }
            return Step::Error;
        }
        if byte < 0x80 {
            return Step::CodePoint(byte as u32);
        }
        if byte == 0x8E || byte == 0x8F || (0xA1..=0xFE).contains(&byte) {
            self.lead = byte;
            return Step::Continue;
        }
        Step::Error
    }

    /// encoding.bs "ISO-2022-JP decoder".
    fn iso_2022_jp(&mut self, queue: &mut VecDeque<u8>, byte: Option<u8>) -> Step {
        use IsoState::*;
        match self.state {
            Ascii | Roman | Katakana | LeadByte => match byte {
                Some(0x1B) => {
                    self.state = EscapeStart;
                    Step::Continue
                }
                None => Step::Finished,
                Some(b) => {
                    self.output = false;
                    match (self.state, b) {
                        (Ascii, 0x00..=0x7F) if b != 0x0E && b != 0x0F => Step::CodePoint(b as u32),
                        (Roman, 0x5C) => Step::CodePoint(0xA5),
                        (Roman, 0x7E) => Step::CodePoint(0x203E),
                        (Roman, 0x00..=0x7F) if b != 0x0E && b != 0x0F => Step::CodePoint(b as u32),
                        (Katakana, 0x21..=0x5F) => Step::CodePoint(0xFF61 - 0x21 + b as u32),
                        (LeadByte, 0x21..=0x7E) => {
                            self.lead = b;
                            self.state = TrailByte;
                            Step::Continue
                        }
                        _ => Step::Error,
                    }
                }
            },
            TrailByte => match byte {
                Some(0x1B) => {
                    self.state = EscapeStart;
                    Step::Error
                }
                Some(b @ 0x21..=0x7E) => {
                    self.state = LeadByte;
                    let pointer = (self.lead as u32 - 0x21) * 94 + b as u32 - 0x21;
                    match indexes().jis0208.get(&pointer) {
                        Some(&code_point) => Step::CodePoint(code_point),
                        None => Step::Error,
                    }
                }
                _ => {
                    self.state = LeadByte;
                    Step::Error
                }
            },
            EscapeStart => {
                if let Some(b @ (0x24 | 0x28)) = byte {
                    self.lead = b;
                    self.state = Escape;
                    return Step::Continue;
                }
                if let Some(b) = byte {
                    queue.push_front(b);
                }
                self.output = false;
                self.state = self.output_state;
                Step::Error
            }
            Escape => {
                let lead = self.lead;
                self.lead = 0;
                let mut state = None;
                if lead == 0x28 && byte == Some(0x42) {
                    state = Some(Ascii);
                }
                if lead == 0x28 && byte == Some(0x4A) {
                    state = Some(Roman);
                }
                if lead == 0x28 && byte == Some(0x49) {
                    state = Some(Katakana);
                }
                if lead == 0x24 && (byte == Some(0x40) || byte == Some(0x42)) {
                    state = Some(LeadByte);
                }
                if let Some(state) = state {
                    self.state = state;
                    self.output_state = state;
                    let output = self.output;
                    self.output = true;
                    return if output { Step::Error } else { Step::Continue };
                }
                match byte {
                    None => queue.push_front(lead),
                    Some(b) => {
                        queue.push_front(b);
                        queue.push_front(lead);
                    }
                }
                self.output = false;
                self.state = self.output_state;
                Step::Error
            }
        }
    }

    /// encoding.bs "Shift_JIS decoder".
    fn shift_jis(&mut self, queue: &mut VecDeque<u8>, byte: Option<u8>) -> Step {
        let Some(byte) = byte else {
            if self.lead != 0 {
                self.lead = 0;
                return Step::Error;
            }
            return Step::Finished;
        };
        if self.lead != 0 {
            let lead = self.lead as u32;
            self.lead = 0;
            let mut pointer = None;
            let offset = if byte < 0x7F { 0x40 } else { 0x41 };
            let lead_offset = if lead < 0xA0 { 0x81 } else { 0xC1 };
            if (0x40..=0x7E).contains(&byte) || (0x80..=0xFC).contains(&byte) {
                pointer = Some((lead - lead_offset) * 188 + byte as u32 - offset);
            }
            if let Some(p @ 8836..=10715) = pointer {
                return Step::CodePoint(0xE000 - 8836 + p);
            }
            let code_point = pointer.and_then(|p| indexes().jis0208.get(&p).copied());
            if let Some(code_point) = code_point {
                return Step::CodePoint(code_point);
            }
            if byte < 0x80 {
                queue.push_front(byte);
            }
            return Step::Error;
        }
        if byte <= 0x80 {
            return Step::CodePoint(byte as u32);
        }
        if (0xA1..=0xDF).contains(&byte) {
            return Step::CodePoint(0xFF61 - 0xA1 + byte as u32);
        }
        if (0x81..=0x9F).contains(&byte) || (0xE0..=0xFC).contains(&byte) {
            self.lead = byte;
            return Step::Continue;
        }
        Step::Error
    }

    /// encoding.bs "EUC-KR decoder".
    fn euc_kr(&mut self, queue: &mut VecDeque<u8>, byte: Option<u8>) -> Step {
        let Some(byte) = byte else {
            if self.lead != 0 {
                self.lead = 0;
                return Step::Error;
            }
            return Step::Finished;
        };
        if self.lead != 0 {
            let lead = self.lead as u32;
            self.lead = 0;
            let mut pointer = None;
            if (0x41..=0xFE).contains(&byte) {
                pointer = Some((lead - 0x81) * 190 + (byte as u32 - 0x41));
            }
            let code_point = pointer.and_then(|p| indexes().euc_kr.get(&p).copied());
            if let Some(code_point) = code_point {
                return Step::CodePoint(code_point);
            }
            if byte < 0x80 {
                queue.push_front(byte);
            }
            return Step::Error;
        }
        if byte < 0x80 {
            return Step::CodePoint(byte as u32);
        }
        if (0x81..=0xFE).contains(&byte) {
            self.lead = byte;
            return Step::Continue;
        }
        Step::Error
    }
}

/// The reference decode of a whole stream, in "replacement" mode, and the number of
/// errors.
pub fn ref_decode(kind: Kind, bytes: &[u8]) -> (String, usize) {
    let mut decoder = RefDecoder {
        kind,
        lead: 0,
        jis0212: false,
        state: IsoState::Ascii,
        output_state: IsoState::Ascii,
        output: false,
    };
    let mut queue: VecDeque<u8> = bytes.iter().copied().collect();
    let mut out = String::new();
    let mut errors = 0;
    loop {
        let byte = queue.pop_front();
        match decoder.handler(&mut queue, byte) {
            Step::Finished => return (out, errors),
            Step::Continue => {}
            Step::CodePoint(c) => out.push(char::from_u32(c).unwrap()),
            Step::Error => {
                out.push('\u{FFFD}');
                errors += 1;
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IsoEncState {
    Ascii,
    Roman,
    Jis0208,
}

/// The reference encode of a whole stream in "html" mode: the bytes, and the code
/// points of the errors in order.
pub fn ref_encode(kind: Kind, text: &str) -> (Vec<u8>, Vec<char>) {
    let idx = indexes();
    let mut queue: VecDeque<u32> = text.chars().map(|c| c as u32).collect();
    let mut state = IsoEncState::Ascii;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    loop {
        let code_point = queue.pop_front();
        let result: Result<Vec<u8>, u32> = match (kind, code_point) {
            (Kind::Iso2022Jp, None) if state != IsoEncState::Ascii => {
                state = IsoEncState::Ascii;
                Ok(vec![0x1B, 0x28, 0x42])
            }
            (_, None) => return (out, errors),
            (Kind::EucJp, Some(cp)) => euc_jp_encode(cp),
            (Kind::ShiftJis, Some(cp)) => shift_jis_encode(cp),
            (Kind::EucKr, Some(cp)) => {
                if cp < 0x80 {
                    Ok(vec![cp as u8])
                } else {
                    match idx.euc_kr_pointer.get(&cp) {
                        None => Err(cp),
                        Some(&p) => Ok(vec![(p / 190 + 0x81) as u8, (p % 190 + 0x41) as u8]),
                    }
                }
            }
            (Kind::Iso2022Jp, Some(cp)) => iso_2022_jp_encode(&mut state, &mut queue, cp),
        };
        match result {
            Ok(bytes) => out.extend(bytes),
            Err(cp) => {
                out.extend(format!("&#{cp};").bytes());
                errors.push(char::from_u32(cp).unwrap());
            }
        }
    }
}

/// encoding.bs "EUC-JP encoder".
fn euc_jp_encode(mut cp: u32) -> Result<Vec<u8>, u32> {
    if cp < 0x80 {
        return Ok(vec![cp as u8]);
    }
    if cp == 0xA5 {
        return Ok(vec![0x5C]);
    }
    if cp == 0x203E {
        return Ok(vec![0x7E]);
    }
    if (0xFF61..=0xFF9F).contains(&cp) {
        return Ok(vec![0x8E, (cp - 0xFF61 + 0xA1) as u8]);
    }
    if cp == 0x2212 {
        cp = 0xFF0D;
    }
    let pointer = *indexes().jis0208_pointer.get(&cp).ok_or(cp)?;
    Ok(vec![(pointer / 94 + 0xA1) as u8, (pointer % 94 + 0xA1) as u8])
}

/// encoding.bs "Shift_JIS encoder".
fn shift_jis_encode(mut cp: u32) -> Result<Vec<u8>, u32> {
    if cp <= 0x80 {
        return Ok(vec![cp as u8]);
    }
    if cp == 0xA5 {
        return Ok(vec![0x5C]);
    }
    if cp == 0x203E {
        return Ok(vec![0x7E]);
    }
    if (0xFF61..=0xFF9F).contains(&cp) {
        return Ok(vec![(cp - 0xFF61 + 0xA1) as u8]);
    }
    if cp == 0x2212 {
        cp = 0xFF0D;
    }
    let pointer = *indexes().shift_jis_pointer.get(&cp).ok_or(cp)?;
    let lead = pointer / 188;
    let lead_offset = if lead < 0x1F { 0x81 } else { 0xC1 };
    let trail = pointer % 188;
    let offset = if trail < 0x3F { 0x40 } else { 0x41 };
    Ok(vec![(lead + lead_offset) as u8, (trail + offset) as u8])
}

/// encoding.bs "ISO-2022-JP encoder" for one code point (not end-of-queue).
fn iso_2022_jp_encode(state: &mut IsoEncState, queue: &mut VecDeque<u32>, mut cp: u32) -> Result<Vec<u8>, u32> {
    use IsoEncState::*;
    let idx = indexes();
    if (*state == Ascii || *state == Roman) && (cp == 0x0E || cp == 0x0F || cp == 0x1B) {
        return Err(0xFFFD);
    }
    if *state == Ascii && cp < 0x80 {
        return Ok(vec![cp as u8]);
    }
    if *state == Roman && ((cp < 0x80 && cp != 0x5C && cp != 0x7E) || cp == 0xA5 || cp == 0x203E) {
        if cp < 0x80 {
            return Ok(vec![cp as u8]);
        }
        if cp == 0xA5 {
            return Ok(vec![0x5C]);
        }
        return Ok(vec![0x7E]);
    }
    if cp < 0x80 && *state != Ascii {
        queue.push_front(cp);
        *state = Ascii;
        return Ok(vec![0x1B, 0x28, 0x42]);
    }
    if (cp == 0xA5 || cp == 0x203E) && *state != Roman {
        queue.push_front(cp);
        *state = Roman;
        return Ok(vec![0x1B, 0x28, 0x4A]);
    }
    if cp == 0x2212 {
        cp = 0xFF0D;
    }
    if (0xFF61..=0xFF9F).contains(&cp) {
        cp = idx.katakana[&(cp - 0xFF61)];
    }
    let Some(&pointer) = idx.jis0208_pointer.get(&cp) else {
        if *state == Jis0208 {
            queue.push_front(cp);
            *state = Ascii;
            return Ok(vec![0x1B, 0x28, 0x42]);
        }
        return Err(cp);
    };
    if *state != Jis0208 {
        queue.push_front(cp);
        *state = Jis0208;
        return Ok(vec![0x1B, 0x24, 0x42]);
    }
    Ok(vec![(pointer / 94 + 0x21) as u8, (pointer % 94 + 0x21) as u8])
}

// ---------------------------------------------------------------------------
// Drivers of the crate's streaming API.

/// Output form of a decoder run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Utf8,
    Utf16,
}

/// Decodes `chunks` as one stream with output buffers of `out` units (at least 4
/// for UTF-8, 2 for UTF-16: the contract's progress guarantee), going on after
/// each `Malformed` in "fatal" mode. Returns the text and the errors.
pub fn decode_chunks(
    encoding: &'static Encoding,
    mode: ErrorMode,
    chunks: &[&[u8]],
    out: usize,
    form: Form,
) -> (String, Vec<DecodeError>) {
    let mut decoder = encoding.new_decoder_with(DecoderOptions { mode, ..Default::default() });
    let mut text = String::new();
    let mut units: Vec<u16> = Vec::new();
    let mut errors = Vec::new();
    let mut buf8 = vec![0u8; out];
    let mut buf16 = vec![0u16; out];
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let mut read = 0;
        loop {
            let progress = match form {
                Form::Utf8 => decoder.decode_to_utf8(&chunk[read..], &mut buf8, last),
                Form::Utf16 => decoder.decode_to_utf16(&chunk[read..], &mut buf16, last),
            };
            match form {
                Form::Utf8 => text.push_str(std::str::from_utf8(&buf8[..progress.written]).expect("valid UTF-8")),
                Form::Utf16 => units.extend_from_slice(&buf16[..progress.written]),
            }
            read += progress.read;
            match progress.result {
                DecoderResult::InputEmpty => {
                    assert_eq!(read, chunk.len(), "InputEmpty leaves no input");
                    break;
                }
                DecoderResult::OutputFull => {
                    let guarantee = if form == Form::Utf8 { 4 } else { 2 };
                    assert!(
                        progress.read > 0 || progress.written > 0 || out < guarantee,
                        "no progress with {out} units"
                    );
                }
                DecoderResult::Malformed(error) => errors.push(error),
            }
        }
    }
    if form == Form::Utf16 {
        text = String::from_utf16(&units).expect("valid UTF-16");
    }
    (text, errors)
}

/// Decodes `bytes` whole.
pub fn decode_whole(encoding: &'static Encoding, mode: ErrorMode, bytes: &[u8]) -> (String, Vec<DecodeError>) {
    let out = encoding.new_decoder().max_utf8_buffer_length(bytes.len()).unwrap();
    decode_chunks(encoding, mode, &[bytes], out, Form::Utf8)
}

/// "replacement" mode text of `bytes`.
pub fn decode(encoding: &'static Encoding, bytes: &[u8]) -> String {
    encoding.decode(bytes).0.into_owned()
}

/// The fatal-mode errors of `bytes` as (offset, len).
pub fn fatal_errors(encoding: &'static Encoding, bytes: &[u8]) -> Vec<(u64, u8)> {
    decode_whole(encoding, ErrorMode::Fatal, bytes).1.iter().map(|e| (e.offset, e.len)).collect()
}

/// Encodes `chunks` of text as one stream in "fatal" mode with output buffers of
/// `out` bytes, writing `&#N;` itself after each `Unmappable` (the bytes of "html"
/// mode) and going on. Returns the bytes and the unmappable scalar values.
pub fn encode_chunks(encoding: &'static Encoding, chunks: &[&str], out: usize) -> (Vec<u8>, Vec<char>) {
    let mut encoder = encoding.new_encoder_with(EncoderErrorMode::Fatal).unwrap();
    let mut bytes = Vec::new();
    let mut errors = Vec::new();
    let mut buf = vec![0u8; out];
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let mut read = 0;
        loop {
            let progress = encoder.encode_from_utf8(&chunk[read..], &mut buf, last);
            bytes.extend_from_slice(&buf[..progress.written]);
            read += progress.read;
            match progress.result {
                EncoderResult::InputEmpty => {
                    assert_eq!(read, chunk.len());
                    break;
                }
                EncoderResult::OutputFull => assert!(progress.read > 0 || progress.written > 0 || out < 14),
                EncoderResult::Unmappable(c) => {
                    bytes.extend(format!("&#{};", c as u32).bytes());
                    errors.push(c);
                }
            }
        }
    }
    (bytes, errors)
}

/// Encodes UTF-16 `chunks` as one stream, as [`encode_chunks`] does.
pub fn encode_chunks_utf16(encoding: &'static Encoding, chunks: &[&[u16]], out: usize) -> (Vec<u8>, Vec<char>) {
    let mut encoder = encoding.new_encoder_with(EncoderErrorMode::Fatal).unwrap();
    let mut bytes = Vec::new();
    let mut errors = Vec::new();
    let mut buf = vec![0u8; out];
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let mut read = 0;
        loop {
            let progress = encoder.encode_from_utf16(&chunk[read..], &mut buf, last);
            bytes.extend_from_slice(&buf[..progress.written]);
            read += progress.read;
            match progress.result {
                EncoderResult::InputEmpty => break,
                EncoderResult::OutputFull => assert!(progress.read > 0 || progress.written > 0 || out < 14),
                EncoderResult::Unmappable(c) => {
                    bytes.extend(format!("&#{};", c as u32).bytes());
                    errors.push(c);
                }
            }
        }
    }
    (bytes, errors)
}

/// Encodes `text` whole in "fatal" mode going on after errors.
pub fn encode_whole(encoding: &'static Encoding, text: &str) -> (Vec<u8>, Vec<char>) {
    encode_chunks(encoding, &[text], 4 * text.len() + 32)
}

/// SplitMix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// Checks that decoding `bytes` with `kind` matches the reference model whole, in
/// both modes, and for every two-way split, byte by byte, and with tiny output
/// buffers in both output forms. Returns a description of the first mismatch.
pub fn check_decode_streaming(kind: Kind, bytes: &[u8]) -> Result<(), String> {
    let encoding = kind.encoding();
    let (expected, expected_errors) = ref_decode(kind, bytes);
    let whole = decode(encoding, bytes);
    if whole != expected {
        return Err(format!("{bytes:02X?}: decode {whole:?}, reference {expected:?}"));
    }
    let (fatal_text, fatal) = decode_whole(encoding, ErrorMode::Fatal, bytes);
    if fatal.len() != expected_errors || fatal_text != expected.replace('\u{FFFD}', "") {
        return Err(format!("{bytes:02X?}: fatal {fatal_text:?} {fatal:?}, reference {expected:?}"));
    }
    let mut chunkings: Vec<Vec<&[u8]>> = (0..=bytes.len()).map(|i| vec![&bytes[..i], &bytes[i..]]).collect();
    chunkings.push(bytes.chunks(1).collect());
    chunkings.push(vec![&[][..], bytes, &[][..]]);
    for chunks in &chunkings {
        for (out, form) in [(4, Form::Utf8), (7, Form::Utf8), (64, Form::Utf8), (2, Form::Utf16), (5, Form::Utf16)] {
            let (text, _) = decode_chunks(encoding, ErrorMode::Replacement, chunks, out, form);
            if text != expected {
                return Err(format!("{chunks:02X?} out {out} {form:?}: {text:?}, reference {expected:?}"));
            }
            let (text, errors) = decode_chunks(encoding, ErrorMode::Fatal, chunks, out, form);
            if text != fatal_text || errors != fatal {
                return Err(format!("{chunks:02X?} out {out} {form:?} fatal: {text:?} {errors:?}, whole {fatal:?}"));
            }
        }
    }
    Ok(())
}

/// Checks that encoding `text` with `kind` matches the reference model whole, for
/// every two-way split, char by char, with small buffers, and from UTF-16.
pub fn check_encode_streaming(kind: Kind, text: &str) -> Result<(), String> {
    let encoding = kind.encoding();
    let expected = ref_encode(kind, text);
    let html = encoding.encode(text).unwrap().0.into_owned();
    if html != expected.0 {
        return Err(format!("{text:?}: html {html:02X?}, reference {:02X?}", expected.0));
    }
    let mut chunkings: Vec<Vec<&str>> =
        text.char_indices().map(|(i, _)| i).chain([text.len()]).map(|i| vec![&text[..i], &text[i..]]).collect();
    chunkings.push(text.char_indices().map(|(i, c)| &text[i..i + c.len_utf8()]).collect());
    if text.is_empty() {
        chunkings.push(vec![""]);
    }
    for chunks in &chunkings {
        for out in [14, 15, 19, 64] {
            let got = encode_chunks(encoding, chunks, out);
            if got != expected {
                return Err(format!("{chunks:?} out {out}: {got:02X?}, reference {expected:02X?}"));
            }
        }
    }
    let utf16: Vec<u16> = text.encode_utf16().collect();
    let splits: Vec<Vec<&[u16]>> = (0..=utf16.len()).map(|i| vec![&utf16[..i], &utf16[i..]]).collect();
    for chunks in &splits {
        let got = encode_chunks_utf16(encoding, chunks, 14);
        if got != expected {
            return Err(format!("UTF-16 {chunks:04X?}: {got:02X?}, reference {expected:02X?}"));
        }
    }
    Ok(())
}
