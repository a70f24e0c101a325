//! Shared helpers for the integration tests: data loading, drivers that run the
//! streaming `Decoder`/`Encoder` over chunked input and small output buffers, a
//! deterministic PRNG, and a pass/fail tally.
//!
//! Each test binary uses only part of this module.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use whatenc::{DecodeError, Decoder, DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding};

/// `crates/whatenc/tests/data`.
pub fn test_data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("data")
}

/// The WHATWG index files and `encodings.json`: `<workspace>/data/whatwg`.
pub fn whatwg_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/whatwg")
}

/// The raw text of `tests/data/wpt/<name>`.
pub fn wpt_text(name: &str) -> String {
    let path = test_data_dir().join("wpt").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// `tests/data/wpt/<name>` parsed as JSON.
pub fn wpt_json(name: &str) -> serde_json::Value {
    serde_json::from_str(&wpt_text(name)).unwrap_or_else(|e| panic!("parsing {name}: {e}"))
}

/// The encoding with this exact standard name.
pub fn encoding_by_name(name: &str) -> &'static Encoding {
    Encoding::all().iter().copied().find(|e| e.name() == name).unwrap_or_else(|| panic!("no encoding named {name:?}"))
}

/// Bytes from a JSON array of numbers.
pub fn json_bytes(value: &serde_json::Value) -> Vec<u8> {
    value
        .as_array()
        .expect("byte array")
        .iter()
        .map(|b| u8::try_from(b.as_u64().expect("byte")).expect("byte in range"))
        .collect()
}

// ---------------------------------------------------------------------------
// Decoding driver
// ---------------------------------------------------------------------------

/// The output of a decoder run: the text, and each `Malformed` (fatal mode) with the
/// length of the text written before it. A fatal run goes on after each error, so
/// the text is the replacement-mode text with the U+FFFDs of the errors left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DecodeRun {
    pub text: String,
    pub errors: Vec<(usize, DecodeError)>,
}

impl DecodeRun {
    /// The text up to the first error (all of it when there is none).
    pub fn before_first_error(&self) -> &str {
        match self.errors.first() {
            Some(&(at, _)) => &self.text[..at],
            None => &self.text,
        }
    }

    /// The text with a U+FFFD at each error: what "replacement" mode gives.
    pub fn with_replacements(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 3 * self.errors.len());
        let mut from = 0;
        for &(at, _) in &self.errors {
            out.push_str(&self.text[from..at]);
            out.push('\u{FFFD}');
            from = at;
        }
        out.push_str(&self.text[from..]);
        out
    }
}

/// Output buffer size for a driver run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Buf {
    /// `max_utf8_buffer_length`/`max_utf16_buffer_length` of each chunk: each call
    /// must then consume its whole chunk (or stop at an error).
    Max,
    /// A fixed size. Below the contract's progress guarantee (4 bytes / 2 units), a
    /// call that makes no progress is answered by growing the buffer by one.
    Fixed(usize),
}

/// Which output form to decode to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Utf8,
    Utf16,
}

/// Decodes `chunks` as one stream (the last chunk with `last = true`), going on
/// after each `Malformed`. Checks the streaming contract on the way.
pub fn decode_chunks(
    encoding: &'static Encoding,
    options: DecoderOptions,
    chunks: &[&[u8]],
    buf: Buf,
    form: Form,
) -> DecodeRun {
    let mut decoder = encoding.new_decoder_with(options);
    let mut run = DecodeRun::default();
    let n = chunks.len().max(1);
    for i in 0..n {
        let chunk: &[u8] = chunks.get(i).copied().unwrap_or(&[]);
        let last = i + 1 == n;
        decode_one_call(&mut decoder, chunk, last, buf, form, &mut run, false);
    }
    run
}

/// One `decode(bytes, last)` of a caller: loops until the chunk is consumed. With
/// `stop_at_error`, returns at the first `Malformed` with the bytes of `chunk` not
/// yet read; otherwise goes on and returns 0.
pub fn decode_one_call(
    decoder: &mut Decoder,
    chunk: &[u8],
    last: bool,
    buf: Buf,
    form: Form,
    run: &mut DecodeRun,
    stop_at_error: bool,
) -> usize {
    let min_progress = match form {
        Form::Utf8 => 4,
        Form::Utf16 => 2,
    };
    let mut size = match buf {
        Buf::Max => match form {
            Form::Utf8 => decoder.max_utf8_buffer_length(chunk.len()).unwrap(),
            Form::Utf16 => decoder.max_utf16_buffer_length(chunk.len()).unwrap(),
        },
        Buf::Fixed(n) => n,
    };
    let mut pos = 0;
    loop {
        let progress = match form {
            Form::Utf8 => {
                let mut out = vec![0u8; size];
                let p = decoder.decode_to_utf8(&chunk[pos..], &mut out, last);
                let s = std::str::from_utf8(&out[..p.written])
                    .unwrap_or_else(|e| panic!("decoder wrote invalid UTF-8 ({e}): {:?}", &out[..p.written]));
                run.text.push_str(s);
                p
            }
            Form::Utf16 => {
                let mut out = vec![0u16; size];
                let p = decoder.decode_to_utf16(&chunk[pos..], &mut out, last);
                let s = String::from_utf16(&out[..p.written])
                    .unwrap_or_else(|e| panic!("decoder wrote invalid UTF-16 ({e}): {:?}", &out[..p.written]));
                run.text.push_str(&s);
                p
            }
        };
        assert!(progress.read <= chunk.len() - pos, "read past the input");
        assert!(progress.written <= size, "wrote past the output");
        pos += progress.read;
        match progress.result {
            DecoderResult::InputEmpty => {
                assert_eq!(pos, chunk.len(), "InputEmpty with input left");
                return 0;
            }
            DecoderResult::OutputFull => {
                assert!(buf != Buf::Max, "OutputFull with a max-length buffer");
                if progress.read == 0 && progress.written == 0 {
                    assert!(size < min_progress, "no progress with {size} units of room");
                    size += 1;
                }
            }
            DecoderResult::Malformed(error) => {
                run.errors.push((run.text.len(), error));
                if stop_at_error {
                    return chunk.len() - pos;
                }
            }
        }
    }
}

/// Decodes `bytes` whole (one call, max buffer) to UTF-8.
pub fn decode_whole(encoding: &'static Encoding, options: DecoderOptions, bytes: &[u8]) -> DecodeRun {
    decode_chunks(encoding, options, &[bytes], Buf::Max, Form::Utf8)
}

/// Byte chunkings of `bytes` for consistency checks: every two-way split, one byte
/// at a time (up to `bytewise_max` bytes), with empty chunks around.
pub fn byte_chunkings(bytes: &[u8], bytewise_max: usize) -> Vec<Vec<&[u8]>> {
    let mut out = Vec::new();
    for cut in 0..=bytes.len() {
        out.push(vec![&bytes[..cut], &bytes[cut..]]);
    }
    if bytes.len() <= bytewise_max {
        let mut ones: Vec<&[u8]> = bytes.chunks(1).collect();
        out.push(ones.clone());
        // Interleave empty chunks, and end with an empty last chunk.
        ones = ones.into_iter().flat_map(|c| [c, &[][..]]).collect();
        out.push(ones);
    }
    out
}

// ---------------------------------------------------------------------------
// Encoding driver
// ---------------------------------------------------------------------------

/// The output of an encoder run: bytes, and each `Unmappable` (fatal mode) with the
/// output length before it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncodeRun {
    pub bytes: Vec<u8>,
    pub unmappable: Vec<(usize, char)>,
}

impl EncodeRun {
    /// The bytes with `&#N;` at each unmappable: what "html" mode gives.
    pub fn with_references(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + 10 * self.unmappable.len());
        let mut from = 0;
        for &(at, c) in &self.unmappable {
            out.extend_from_slice(&self.bytes[from..at]);
            out.extend_from_slice(format!("&#{};", c as u32).as_bytes());
            from = at;
        }
        out.extend_from_slice(&self.bytes[from..]);
        out
    }

    /// The bytes up to the first unmappable.
    pub fn before_first_unmappable(&self) -> &[u8] {
        match self.unmappable.first() {
            Some(&(at, _)) => &self.bytes[..at],
            None => &self.bytes,
        }
    }
}

/// The contract's room that guarantees progress for an encoder call.
pub const ENCODE_MIN_PROGRESS: usize = 14;

/// Encodes `chunks` of text as one stream, going on after each `Unmappable`.
pub fn encode_chunks_str(encoding: &'static Encoding, mode: EncoderErrorMode, chunks: &[&str], buf: Buf) -> EncodeRun {
    let mut encoder = encoding.new_encoder_with(mode).expect("encoder");
    let mut run = EncodeRun::default();
    let n = chunks.len().max(1);
    for i in 0..n {
        let chunk = chunks.get(i).copied().unwrap_or("");
        let last = i + 1 == n;
        let mut size = match buf {
            Buf::Max => encoder.max_buffer_length_from_utf8(chunk.len()).unwrap(),
            Buf::Fixed(n) => n,
        };
        let mut pos = 0;
        loop {
            let mut out = vec![0u8; size];
            let p = encoder.encode_from_utf8(&chunk[pos..], &mut out, last);
            assert!(p.written <= size && p.read <= chunk.len() - pos);
            run.bytes.extend_from_slice(&out[..p.written]);
            pos += p.read;
            match p.result {
                EncoderResult::InputEmpty => {
                    assert_eq!(pos, chunk.len(), "InputEmpty with input left");
                    break;
                }
                EncoderResult::OutputFull => {
                    assert!(buf != Buf::Max, "OutputFull with a max-length buffer");
                    if p.read == 0 && p.written == 0 {
                        assert!(size < ENCODE_MIN_PROGRESS, "no progress with {size} bytes of room");
                        size += 1;
                    }
                }
                EncoderResult::Unmappable(c) => {
                    assert_eq!(mode, EncoderErrorMode::Fatal, "Unmappable in html mode");
                    // ISO-2022-JP's encoder returns "error with U+FFFD" for U+000E, U+000F
                    // and U+001B in ASCII or Roman state (encoding.bs, step 2).
                    let escape_like = encoding.name() == "ISO-2022-JP"
                        && c == '\u{FFFD}'
                        && chunk[..pos].ends_with(['\u{E}', '\u{F}', '\u{1B}']);
                    assert!(
                        chunk[..pos].ends_with(c) || escape_like,
                        "Unmappable({c:?}) is not the last scalar value read"
                    );
                    run.unmappable.push((run.bytes.len(), c));
                }
            }
        }
    }
    run
}

/// Encodes `chunks` of UTF-16 as one stream, going on after each `Unmappable`.
pub fn encode_chunks_utf16(
    encoding: &'static Encoding,
    mode: EncoderErrorMode,
    chunks: &[&[u16]],
    buf: Buf,
) -> EncodeRun {
    let mut encoder = encoding.new_encoder_with(mode).expect("encoder");
    let mut run = EncodeRun::default();
    let n = chunks.len().max(1);
    for i in 0..n {
        let chunk: &[u16] = chunks.get(i).copied().unwrap_or(&[]);
        let last = i + 1 == n;
        let mut size = match buf {
            Buf::Max => encoder.max_buffer_length_from_utf16(chunk.len()).unwrap(),
            Buf::Fixed(n) => n,
        };
        let mut pos = 0;
        loop {
            let mut out = vec![0u8; size];
            let p = encoder.encode_from_utf16(&chunk[pos..], &mut out, last);
            assert!(p.written <= size && p.read <= chunk.len() - pos);
            run.bytes.extend_from_slice(&out[..p.written]);
            pos += p.read;
            match p.result {
                EncoderResult::InputEmpty => {
                    assert_eq!(pos, chunk.len(), "InputEmpty with input left");
                    break;
                }
                EncoderResult::OutputFull => {
                    assert!(buf != Buf::Max, "OutputFull with a max-length buffer");
                    if p.read == 0 && p.written == 0 {
                        assert!(size < ENCODE_MIN_PROGRESS, "no progress with {size} bytes of room");
                        size += 1;
                    }
                }
                EncoderResult::Unmappable(c) => {
                    assert_eq!(mode, EncoderErrorMode::Fatal, "Unmappable in html mode");
                    run.unmappable.push((run.bytes.len(), c));
                }
            }
        }
    }
    run
}

/// Splits of `text` at every char boundary into two chunks.
pub fn str_two_way_splits(text: &str) -> Vec<Vec<&str>> {
    (0..=text.len()).filter(|&i| text.is_char_boundary(i)).map(|i| vec![&text[..i], &text[i..]]).collect()
}

// ---------------------------------------------------------------------------
// PRNG
// ---------------------------------------------------------------------------

/// SplitMix64: small, deterministic, good enough for test inputs.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn byte(&mut self) -> u8 {
        self.next_u64() as u8
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------
// Tally
// ---------------------------------------------------------------------------

/// Pass/fail counts by key, with the first failure messages kept for the report.
#[derive(Debug, Default)]
pub struct Tally {
    pub counts: BTreeMap<String, (usize, usize)>,
    pub failures: Vec<String>,
}

impl Tally {
    pub fn record(&mut self, keys: &[&str], result: Result<(), String>) {
        for key in keys {
            let entry = self.counts.entry((*key).to_string()).or_default();
            match result {
                Ok(()) => entry.0 += 1,
                Err(_) => entry.1 += 1,
            }
        }
        if let Err(message) = result {
            self.failures.push(message);
        }
    }

    pub fn total_failures(&self) -> usize {
        self.failures.len()
    }

    /// Prints the table and the first `show` failures.
    pub fn report(&self, title: &str, show: usize) {
        eprintln!("\n== {title} ==");
        eprintln!("{:<60} {:>6} {:>6}", "key", "pass", "fail");
        for (key, (pass, fail)) in &self.counts {
            eprintln!("{key:<60} {pass:>6} {fail:>6}");
        }
        for message in self.failures.iter().take(show) {
            eprintln!("FAIL {message}");
        }
        if self.failures.len() > show {
            eprintln!("... and {} more failures", self.failures.len() - show);
        }
    }
}

/// Runs `body` on its own thread and fails if it takes longer than `seconds`, so
/// that a decoder or encoder stuck in a loop fails the test instead of hanging the
/// suite (tests/regressions.rs has minimal reproducers of such hangs).
pub fn with_watchdog(name: &str, seconds: u64, body: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        body();
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(seconds)) {
        Ok(()) => handle.join().unwrap(),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            // The body panicked: re-raise its panic here.
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{name}: no result within {seconds} s (a call that never returns?)")
        }
    }
}

/// The core decoder over the whole input as one stream, in any error mode, going on
/// after each error: the text and the byte offset of each error.
pub fn reference_decode(encoding: &'static Encoding, options: DecoderOptions, input: &[u8]) -> (String, Vec<u64>) {
    let mut decoder = encoding.new_decoder_with(options);
    let mut text = String::new();
    let mut errors = Vec::new();
    let mut read = 0;
    loop {
        text.reserve(decoder.max_utf8_buffer_length(input.len() - read).unwrap());
        let progress = decoder.decode_to_string(&input[read..], &mut text, true);
        read += progress.read;
        match progress.result {
            DecoderResult::InputEmpty => return (text, errors),
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(error) => errors.push(error.offset),
        }
    }
}

/// The core encoder over the whole text as one stream, going on after each
/// unencodable character ("fatal" mode): the bytes, and each unencodable character
/// of the text with its byte offset (the text's character: ISO-2022-JP reports
/// U+FFFD for ESC, SO and SI).
pub fn reference_encode(
    encoding: &'static Encoding,
    mode: EncoderErrorMode,
    text: &str,
) -> (Vec<u8>, Vec<(char, u64)>) {
    let mut encoder = encoding.new_encoder_with(mode).unwrap();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut read = 0;
    loop {
        let (result, n) = encoder.encode_from_utf8_to_vec(&text[read..], &mut out, true);
        read += n;
        match result {
            EncoderResult::InputEmpty => return (out, errors),
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(_) => {
                let (offset, c) = text[..read].char_indices().next_back().unwrap();
                errors.push((c, offset as u64));
            }
        }
    }
}
