//! `whatenc convert`: decode with the standard's `decode` semantics, encode, stream.
//!
//! Memory is constant: one read buffer of [`READ_SIZE`] bytes, one text buffer large
//! enough for the decoding of a whole read, and one output buffer. Each read is
//! decoded in one call and encoded in a few, so per-call costs vanish.
//!
//! Error modes: `--errors` sets both sides (replacement and html are the default
//! for their side; fatal makes both fatal); `--decode-errors` and `--encode-errors`
//! override one side; `-c` makes both sides fatal internally and skips each error.

use std::process::ExitCode;

use whatenc::{
    BomHandling, DecodeError, Decoder, DecoderOptions, DecoderResult, Encoder, EncoderErrorMode, EncoderResult,
    Encoding, ErrorMode,
};

use crate::Failure;
use crate::cli::{ConvertArgs, DecodeErrors, EncodeErrors, Errors};
use crate::files::{InputSpec, Output, READ_SIZE, read_some};
use crate::labels::{IconvSuffix, lookup, split_iconv_suffix};
use crate::position::Position;
use crate::progress::Progress;

/// The size of the encoder's output buffer.
const WRITE_SIZE: usize = 256 * 1024;

/// What to do with errors, on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modes {
    /// The decoder's mode.
    pub decode: ErrorMode,
    /// The encoder's mode.
    pub encode: EncoderErrorMode,
    /// Whether errors are skipped (`-c`): both modes are then fatal.
    pub drop: bool,
}

impl Modes {
    /// The modes the flags ask for.
    pub fn from_args(args: &ConvertArgs, drop: bool) -> Modes {
        if drop {
            return Modes { decode: ErrorMode::Fatal, encode: EncoderErrorMode::Fatal, drop: true };
        }
        let fatal = args.errors == Some(Errors::Fatal);
        let decode = match args.decode_errors {
            Some(DecodeErrors::Fatal) => ErrorMode::Fatal,
            Some(DecodeErrors::Replacement) => ErrorMode::Replacement,
            None if fatal => ErrorMode::Fatal,
            None => ErrorMode::Replacement,
        };
        let encode = match args.encode_errors {
            Some(EncodeErrors::Fatal) => EncoderErrorMode::Fatal,
            Some(EncodeErrors::Html) => EncoderErrorMode::Html,
            None if fatal => EncoderErrorMode::Fatal,
            None => EncoderErrorMode::Html,
        };
        Modes { decode, encode, drop: false }
    }
}

/// How text becomes output bytes.
enum Writer {
    /// UTF-8: the decoded text as it is.
    Utf8,
    /// An encoder of the standard.
    Encoder(Box<Encoder>),
    /// The `--utf16-output` extension: UTF-16 code units in one byte order.
    Utf16 {
        /// Big-endian (UTF-16BE) or little-endian (UTF-16LE).
        big_endian: bool,
    },
}

/// A scalar value the encoder could not encode, in "fatal" mode.
struct Unmappable {
    /// The scalar value.
    c: char,
    /// Its byte index in the text given to [`Sink::write`].
    at: usize,
}

/// The output side: a [`Writer`], its buffer and the output.
struct Sink {
    writer: Writer,
    buf: Vec<u8>,
    out: Output,
    drop: bool,
}

impl Sink {
    /// Writes `text`; in "fatal" encoding mode, stops at the first unmappable
    /// scalar value (whose preceding text is written).
    fn write(&mut self, text: &str) -> Result<Option<Unmappable>, Failure> {
        match &mut self.writer {
            Writer::Utf8 => {
                if !text.is_empty() {
                    self.out.write_all(text.as_bytes())?;
                }
                Ok(None)
            }
            Writer::Encoder(encoder) => {
                let mut done = 0;
                while done < text.len() {
                    let progress = encoder.encode_from_utf8(&text[done..], &mut self.buf, false);
                    self.out.write_all(&self.buf[..progress.written])?;
                    done += progress.read;
                    if let EncoderResult::Unmappable(c) = progress.result
                        && !self.drop
                    {
                        return Ok(Some(Unmappable { c, at: done - c.len_utf8() }));
                    }
                }
                Ok(None)
            }
            Writer::Utf16 { big_endian } => {
                let big_endian = *big_endian;
                let mut filled = 0;
                for unit in text.encode_utf16() {
                    if filled + 2 > self.buf.len() {
                        self.out.write_all(&self.buf[..filled])?;
                        filled = 0;
                    }
                    let bytes = if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() };
                    self.buf[filled..filled + 2].copy_from_slice(&bytes);
                    filled += 2;
                }
                self.out.write_all(&self.buf[..filled]).map(|()| None)
            }
        }
    }

    /// Ends the output stream (ISO-2022-JP returns to ASCII) and flushes.
    fn finish(&mut self) -> Result<(), Failure> {
        if let Writer::Encoder(encoder) = &mut self.writer {
            let progress = encoder.encode_from_utf8("", &mut self.buf, true);
            self.out.write_all(&self.buf[..progress.written])?;
        }
        self.out.flush()
    }
}

/// Why a conversion stopped early, in "fatal" mode.
pub enum Stop {
    /// A malformed byte sequence.
    Malformed {
        /// The encoding being decoded (a BOM may have chosen it).
        encoding: &'static Encoding,
        /// Where.
        error: DecodeError,
        /// Its line and column in the decoded text.
        position: Position,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// An unmappable scalar value.
    Unmappable {
        /// The scalar value.
        c: char,
        /// The input byte offset of the sequence that decoded to it.
        offset: u64,
        /// Its line and column in the decoded text.
        position: Position,
    },
}

/// Bytes of the stream around the current read, to show a malformed sequence that
/// began in the previous read.
pub struct Window {
    /// Stream offset of the first byte of the current read.
    pub start: u64,
    /// The last bytes of the previous read (at most 16), ending at `start`.
    tail: Vec<u8>,
}

impl Window {
    /// A window at the start of a stream.
    pub fn new() -> Window {
        Window { start: 0, tail: Vec::with_capacity(16) }
    }

    /// The bytes `offset..offset + len` of the stream, as far as they are known,
    /// given the current read `chunk`.
    pub fn bytes(&self, chunk: &[u8], offset: u64, len: u8) -> Vec<u8> {
        let tail_start = self.start - self.tail.len() as u64;
        (offset..offset + u64::from(len))
            .filter_map(|at| {
                if at >= self.start {
                    chunk.get((at - self.start) as usize).copied()
                } else if at >= tail_start {
                    Some(self.tail[(at - tail_start) as usize])
                } else {
                    None
                }
            })
            .collect()
    }

    /// Moves past `chunk`.
    pub fn advance(&mut self, chunk: &[u8]) {
        if chunk.len() >= 16 {
            self.tail.clear();
            self.tail.extend_from_slice(&chunk[chunk.len() - 16..]);
        } else {
            self.tail.extend_from_slice(chunk);
            let excess = self.tail.len().saturating_sub(16);
            self.tail.drain(..excess);
        }
        self.start += chunk.len() as u64;
    }
}

/// The decoder options for `--from` and `--no-bom-sniff`, in `mode`.
pub fn decoder_options(no_bom_sniff: bool, mode: ErrorMode) -> DecoderOptions {
    DecoderOptions { mode, bom: if no_bom_sniff { BomHandling::None } else { BomHandling::Sniff } }
}

/// Runs `whatenc convert`.
pub fn run(args: &ConvertArgs) -> Result<ExitCode, Failure> {
    let from = lookup(&args.input.from)?;
    let (to_label, suffix) = split_iconv_suffix(&args.to)?;
    let to = lookup(to_label)?;
    let drop = args.drop || suffix == IconvSuffix::Ignore;
    if suffix == IconvSuffix::Ignore
        && (args.errors.is_some() || args.decode_errors.is_some() || args.encode_errors.is_some())
    {
        return Err(Failure::Usage("//IGNORE (like -c) cannot be combined with --errors".into()));
    }
    let modes = Modes::from_args(args, drop);
    let writer = if to.has_encoder() {
        if to == whatenc::UTF_8 {
            Writer::Utf8
        } else {
            Writer::Encoder(Box::new(to.new_encoder_with(modes.encode).map_err(|e| Failure::Usage(e.to_string()))?))
        }
    } else if args.utf16_output && (to == whatenc::UTF_16LE || to == whatenc::UTF_16BE) {
        Writer::Utf16 { big_endian: to == whatenc::UTF_16BE }
    } else {
        let output = to.output_encoding();
        let hint = if to == whatenc::REPLACEMENT { "" } else { " (--utf16-output writes UTF-16 instead)" };
        crate::note(&format!(
            "the {} encoding has no encoder; writing its output encoding, {}{hint}",
            to.name(),
            output.name()
        ));
        Writer::Utf8
    };
    if args.utf16_output && !matches!(writer, Writer::Utf16 { .. }) {
        return Err(Failure::Usage("--utf16-output needs -t utf-16le or -t utf-16be".into()));
    }

    let inputs = InputSpec::from_args(&args.input.files);
    let mut total = Some(0u64);
    for input in &inputs {
        let size = input.preflight()?;
        total = total.zip(size).map(|(a, b)| a + b);
    }
    let out = Output::open(args.output.as_deref())?;
    let mut sink = Sink { writer, buf: vec![0; WRITE_SIZE], out, drop: modes.drop };
    let mut progress = Progress::new(args.progress, total);
    let mut converter = Converter::new(from, decoder_options(args.input.no_bom_sniff, modes.decode), modes);

    let result = convert_all(&mut converter, &inputs, &mut sink, &mut progress);
    progress.finish();
    let (input, stop) = match result {
        Ok(None) => {
            if let Err(failure) = sink.finish() {
                sink.out.abandon(false);
                return Err(failure);
            }
            sink.out.commit()?;
            return Ok(ExitCode::SUCCESS);
        }
        Ok(Some(stopped)) => stopped,
        Err(failure) => {
            // Keep what was written a valid prefix: end the encoder's stream too.
            let _ = sink.finish();
            sink.out.abandon(args.keep_partial);
            return Err(failure);
        }
    };
    let _ = sink.finish();
    sink.out.abandon(args.keep_partial);
    let to_name = if args.utf16_output { to.name() } else { to.output_encoding().name() };
    let message = match stop {
        Stop::Malformed { encoding, error, position, bytes } => format!(
            "{}:{}:{}: malformed {} input at byte offset {}{}; stopped (fatal decoding)",
            input.name(),
            position.line,
            position.column,
            encoding.name(),
            error.offset,
            hex_suffix(&bytes),
        ),
        Stop::Unmappable { c, offset, position } => format!(
            "{}:{}:{}: U+{:04X} {:?} cannot be encoded in {to_name} (input byte offset {offset}); stopped \
             (fatal encoding)",
            input.name(),
            position.line,
            position.column,
            c as u32,
            c,
        ),
    };
    crate::note(&message);
    Ok(ExitCode::from(1))
}

/// Converts every input in turn; `Some` names the input and the error that stopped
/// the conversion.
fn convert_all(
    converter: &mut Converter,
    inputs: &[InputSpec],
    sink: &mut Sink,
    progress: &mut Progress,
) -> Result<Option<(InputSpec, Stop)>, Failure> {
    for input in inputs {
        if let Some(stop) = converter.convert(input, sink, progress)? {
            return Ok(Some(stop));
        }
    }
    Ok(None)
}

/// " (bytes 81 20)" for the bytes of a malformed sequence, or "" if unknown.
pub fn hex_suffix(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return String::new();
    }
    let unit = if bytes.len() == 1 { "byte" } else { "bytes" };
    format!(" ({unit} {})", hex(bytes))
}

/// "81 20" for `[0x81, 0x20]`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" ")
}

/// The decoding side, shared across the inputs.
struct Converter {
    from: &'static Encoding,
    options: DecoderOptions,
    modes: Modes,
    input: Vec<u8>,
    text: String,
}

impl Converter {
    fn new(from: &'static Encoding, options: DecoderOptions, modes: Modes) -> Converter {
        let decoder = from.new_decoder_with(options);
        let room = decoder.max_utf8_buffer_length(READ_SIZE).unwrap_or(READ_SIZE * 4);
        Converter { from, options, modes, input: vec![0; READ_SIZE], text: String::with_capacity(room) }
    }

    /// Converts one input into `sink`; `Some` if it stopped on an error.
    fn convert(
        &mut self,
        spec: &InputSpec,
        sink: &mut Sink,
        progress: &mut Progress,
    ) -> Result<Option<(InputSpec, Stop)>, Failure> {
        let mut reader = spec.open()?;
        let mut decoder = self.from.new_decoder_with(self.options);
        // Positions are needed only to report an error that stops the conversion.
        let track =
            !self.modes.drop && (self.modes.decode == ErrorMode::Fatal || self.modes.encode == EncoderErrorMode::Fatal);
        let fatal_encoding = track && self.modes.encode == EncoderErrorMode::Fatal;
        let mut position = Position::default();
        let mut window = Window::new();
        loop {
            let n = read_some(&mut reader, &mut self.input, spec)?;
            progress.advance(n);
            let last = n == 0;
            let chunk = &self.input[..n];
            let mut read = 0;
            loop {
                let saved = fatal_encoding.then(|| (decoder.clone(), read));
                self.text.clear();
                let result = decoder.decode_to_string(&chunk[read..], &mut self.text, last);
                read += result.read;
                if let Some(unmappable) = sink.write(&self.text)? {
                    let (before, start) = saved.unwrap_or_else(|| (decoder.clone(), 0));
                    let at = &self.text[..unmappable.at];
                    let offset =
                        window.start + start as u64 + input_offset_of(before, &chunk[start..], at.len(), last) as u64;
                    let stop = Stop::Unmappable { c: unmappable.c, offset, position: position.after(at) };
                    return Ok(Some((spec.clone(), stop)));
                }
                if track {
                    position.advance(&self.text);
                }
                match result.result {
                    DecoderResult::InputEmpty => break,
                    DecoderResult::OutputFull => {}
                    DecoderResult::Malformed(_) if self.modes.drop => {}
                    DecoderResult::Malformed(error) => {
                        let bytes = window.bytes(chunk, error.offset, error.len);
                        let stop = Stop::Malformed { encoding: decoder.encoding(), error, position, bytes };
                        return Ok(Some((spec.clone(), stop)));
                    }
                }
            }
            if last {
                return Ok(None);
            }
            window.advance(chunk);
        }
    }
}

/// How many bytes of `input` a decoder in the state `decoder` consumes before it
/// has written `text_len` bytes of text and starts the next character: the input
/// offset of the sequence that decoded to that character. Decodes byte by byte; used
/// once, for an error message.
fn input_offset_of(mut decoder: Decoder, input: &[u8], text_len: usize, last: bool) -> usize {
    let mut written = 0;
    let mut start = 0;
    let mut out = [0u8; 64];
    for (i, byte) in input.iter().enumerate() {
        let final_byte = last && i + 1 == input.len();
        let progress = decoder.decode_to_utf8(std::slice::from_ref(byte), &mut out, final_byte);
        if progress.written > 0 {
            written += progress.written;
            if written > text_len {
                return start;
            }
            start = i + 1;
        }
    }
    start
}
