//! The fuzz checks of whatenc, shared by the targets in `fuzz_targets/`.
//!
//! - [`convert`]: every decoder and encoder of all 40 encodings, whole and streamed
//!   with fuzzer-chosen split points, output sizes (0 and up), output forms
//!   (`&mut [u8]`, `&mut [u16]`, `&mut str`, `String`), BOM handling and error
//!   modes, checked against encoding_rs, against the whole-input result and against
//!   the `max_*_buffer_length*` promises.
//! - [`adaptors`]: `io::EncodeWriter`, `io::DecodeWriter` and `io::DecodeReader`
//!   driven by a fuzzer-chosen script of writes, flushes, finishes, drops and inner
//!   I/O that is short, interrupted, zero-length or failing, checked against the
//!   whole-buffer conversion of the same input.
//!
//! Every target's input starts with a few header bytes (encoding, flags, sizes,
//! seed); the rest is the text or bytes to convert. `fuzz/seed.py` writes a seed
//! corpus in these layouts.

pub mod adaptors;
pub mod convert;

use whatenc::{BomHandling, DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding, ErrorMode, Tier};

/// Whether a check of a finding already reported is to be skipped, so that a run can
/// fuzz past it: `WHATENC_FUZZ_SKIP=name,name` (the names are in fuzz/README.md).
pub fn skipped(name: &str) -> bool {
    static SKIP: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SKIP.get_or_init(|| {
        std::env::var("WHATENC_FUZZ_SKIP").map(|v| v.split(',').map(str::to_owned).collect()).unwrap_or_default()
    })
    .iter()
    .any(|s| s == name)
}

/// A small deterministic generator (xorshift64) for split points, sizes and scripts.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng((seed ^ 0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }

    /// True `num` times in `den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }
}

/// The fixed-size header of a fuzz input, then the rest.
pub fn header<const N: usize>(data: &[u8]) -> Option<([u8; N], &[u8])> {
    let head = data.get(..N)?.try_into().ok()?;
    Some((head, &data[N..]))
}

/// The tiers of kernels a check runs at, chosen by a byte: the whole conversion and
/// its comparison with encoding_rs at the first, the streamed one (compared with the
/// whole) at the second, so that the fuzzer's inputs meet every tier's kernels on one
/// CPU, and two tiers that disagree show (a cap above what the CPU has runs its best).
pub fn pick_tiers(byte: u8) -> (Tier, Tier) {
    const TIERS: [Tier; 5] = [Tier::Avx512, Tier::Avx2, Tier::Ssse3, Tier::Sse2, Tier::Portable];
    (TIERS[byte as usize % TIERS.len()], TIERS[byte as usize / TIERS.len() % TIERS.len()])
}

/// An encoding chosen by a byte.
pub fn pick_encoding(byte: u8) -> &'static Encoding {
    let all = Encoding::all();
    all[byte as usize % all.len()]
}

/// An encoding that has an encoder, chosen by a byte.
pub fn pick_encoder_encoding(byte: u8) -> &'static Encoding {
    let all = Encoding::all();
    let with_encoder: Vec<&'static Encoding> = all.iter().copied().filter(|e| e.has_encoder()).collect();
    with_encoder[byte as usize % with_encoder.len()]
}

/// BOM handling chosen by two bits (none is chosen half the time).
pub fn pick_bom(bits: u8) -> BomHandling {
    match bits & 3 {
        1 => BomHandling::Sniff,
        2 => BomHandling::Remove,
        _ => BomHandling::None,
    }
}

/// Scalar values (and lone surrogates, as UTF-16) that stress encoders: the
/// characters ISO-2022-JP writes as references, its escapes' triggers, the longest
/// references, characters every legacy encoding lacks, and a few mappable ones.
const ALPHABET: &[&[u16]] = &[
    &[0x1B],
    &[0x0E],
    &[0x0F],
    &[0x61],
    &[0x5C],
    &[0x7E],
    &[0xA5],
    &[0x203E],
    &[0x20AC],
    &[0x80],
    &[0xE9],
    &[0x65E5],
    &[0xFF71],
    &[0xFFFD],
    &[0xDBFF, 0xDFFF],
    &[0xD83D, 0xDE00],
    &[0xE5E5],
    &[0x2603],
    &[0xFFFF],
    &[0x3000],
    &[0x2212],
    &[0x1E3F],
    &[0xE7C7],
    &[0x0A],
    &[0xD800],
    &[0xDC00],
    &[0x0410],
    &[0xAC00],
    &[0x4E02],
    &[0x00],
    &[0x7F],
    &[0x2014],
];

/// UTF-16 code units from fuzz bytes: `form` 0 reads UTF-8 (lossily), 1 reads
/// UTF-16LE pairs (lone surrogates included), 2 maps each byte into [`ALPHABET`].
pub fn units_from(form: u8, bytes: &[u8]) -> Vec<u16> {
    match form % 3 {
        0 => String::from_utf8_lossy(bytes).encode_utf16().collect(),
        1 => bytes.chunks_exact(2).map(|pair| u16::from_le_bytes([pair[0], pair[1]])).collect(),
        _ => bytes.iter().flat_map(|&b| ALPHABET[b as usize % ALPHABET.len()].iter().copied()).collect(),
    }
}

/// A whole decode by whatenc's own decoder, one call per error, each into a buffer
/// of exactly [`whatenc::Decoder::max_utf8_buffer_length`] for the rest (which
/// must be enough: never `OutputFull`). "fatal" mode goes on after each error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    /// "fatal": every error's offset; "replacement": the first error's, if any.
    pub errors: Vec<u64>,
    /// In "fatal" mode, the length of `text` when each error was returned.
    pub text_at_errors: Vec<usize>,
    /// The encoding after BOM handling.
    pub encoding: &'static Encoding,
}

pub fn decode_reference(encoding: &'static Encoding, options: DecoderOptions, input: &[u8], last: bool) -> Decoded {
    let mut decoder = encoding.new_decoder_with(options);
    let mut text = String::new();
    let mut errors = Vec::new();
    let mut text_at_errors = Vec::new();
    let mut rest = input;
    loop {
        let room = decoder.max_utf8_buffer_length(rest.len()).expect("small input");
        let mut buf = vec![0u8; room];
        let progress = decoder.decode_to_utf8(rest, &mut buf, last);
        text.push_str(std::str::from_utf8(&buf[..progress.written]).expect("decoders write whole UTF-8"));
        rest = &rest[progress.read..];
        match progress.result {
            DecoderResult::InputEmpty => break,
            DecoderResult::OutputFull => panic!(
                "{} {options:?}: max_utf8_buffer_length({}) = {room} was not enough: OutputFull after {} bytes read, {} written",
                encoding.name(),
                rest.len() + progress.read,
                progress.read,
                progress.written
            ),
            DecoderResult::Malformed(error) => {
                text_at_errors.push(text.len());
                errors.push(error.offset);
            }
        }
    }
    if options.mode == ErrorMode::Replacement {
        errors.extend(decoder.take_first_error().map(|e| e.offset));
    }
    Decoded { text, errors, text_at_errors, encoding: decoder.encoding() }
}

/// A whole encode by whatenc's own encoder from `&str`, one call per unmappable
/// character, each into a buffer of exactly
/// [`whatenc::Encoder::max_buffer_length_from_utf8`] for the rest (never
/// `OutputFull`). "fatal" mode goes on after each unmappable character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub bytes: Vec<u8>,
    /// "fatal": each unmappable character and its byte offset in the text.
    pub unmappable: Vec<(u64, char)>,
    /// In "fatal" mode, the output length when the first unmappable one was returned.
    pub bytes_before_first_error: Option<usize>,
    /// "html": whether a reference was written ([`whatenc::Encoder::take_unmappable`]).
    pub had_references: bool,
}

pub fn encode_reference(encoding: &'static Encoding, mode: EncoderErrorMode, text: &str, last: bool) -> Encoded {
    let mut encoder = encoding.new_encoder_with(mode).expect("an encoding with an encoder");
    let mut bytes = Vec::new();
    let mut unmappable = Vec::new();
    let mut bytes_before_first_error = None;
    let mut read = 0;
    loop {
        let rest = &text[read..];
        let room = encoder.max_buffer_length_from_utf8(rest.len()).expect("small input");
        let mut buf = vec![0u8; room];
        let progress = encoder.encode_from_utf8(rest, &mut buf, last);
        bytes.extend_from_slice(&buf[..progress.written]);
        read += progress.read;
        match progress.result {
            EncoderResult::InputEmpty => break,
            EncoderResult::OutputFull => panic!(
                "{} {mode:?}: max_buffer_length_from_utf8({}) = {room} was not enough: OutputFull after {} bytes read, {} written; text {rest:?}",
                encoding.name(),
                rest.len(),
                progress.read,
                progress.written
            ),
            EncoderResult::Unmappable(c) => {
                bytes_before_first_error.get_or_insert(bytes.len());
                unmappable.push((offset_of_last(text, read), c));
            }
        }
    }
    Encoded { bytes, unmappable, bytes_before_first_error, had_references: encoder.take_unmappable() }
}

/// The offset of the last character of `text[..end]`: where an unmappable character
/// that ended a call's input was. (Not `end - c.len_utf8()`: ISO-2022-JP reports
/// U+000E, U+000F and U+001B as U+FFFD.)
pub fn offset_of_last(text: &str, end: usize) -> u64 {
    let c = text[..end].chars().next_back().expect("an unmappable character was read");
    (end - c.len_utf8()) as u64
}

/// encoding_rs's twin of a whatenc encoding.
pub fn peer(encoding: &'static Encoding) -> &'static encoding_rs::Encoding {
    encoding_rs::Encoding::for_label(encoding.labels()[0].as_bytes()).expect("every label is known to encoding_rs")
}

/// Where the pinned standard and encoding_rs 0.8 are known to differ; such inputs are
/// checked against the whole-input result only. (None known so far.)
pub fn peer_agrees(_encoding: &'static Encoding) -> bool {
    true
}

/// Chunk ends from a seed (xorshift), ending at `len`, each step below `max_step`; a
/// step of 0 is an empty chunk.
pub fn split_points(seed: u8, len: usize, max_step: u64) -> Vec<usize> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ seed as u64;
    let mut points = Vec::new();
    let mut position = 0;
    while position < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        position = (position + (state % max_step) as usize).min(len);
        points.push(position);
    }
    points
}
