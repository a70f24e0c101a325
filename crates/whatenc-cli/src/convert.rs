//! `whatenc convert`: decode with the standard's `decode` semantics, encode, stream.
//!
//! Memory is constant: one read buffer of [`READ_SIZE`] bytes, one text buffer large
//! enough for the decoding of a whole read, and one output buffer. Each read is
//! decoded in one call and encoded in a few, so per-call costs vanish.
//!
//! Error modes: `--errors` sets both sides (replacement and html are the default
//! for their side; fatal makes both fatal); `--decode-errors` and `--encode-errors`
//! override one side; `-c` skips each error.
//!
//! Every replacement is counted, so that none goes unreported (the one-line summary
//! on standard error; `--strict`), at no cost to text without any:
//!
//! - The decoder always runs in "fatal" mode (as fast as "replacement"); this module
//!   writes the U+FFFD itself and notes the first one's position. Positions are
//!   tracked only until then (or throughout in fatal mode, to report a stop).
//! - The encoder runs in the standard's "html" mode. A call that wrote a reference
//!   says so (`take_unmappable`); only then are references counted, as the `&#` pairs
//!   in the output less those in the text (the encoders other than ISO-2022-JP write
//!   0x26 0x23 only for `&#`), and the first unmappable character is found once, by
//!   a "fatal" encoder. ISO-2022-JP, whose two-byte codes can contain 0x26 0x23, runs
//!   in "fatal" mode and this module writes each reference itself.

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Mutex, PoisonError};

use whatenc::{
    BomHandling, DecodeError, Decoder, DecoderOptions, DecoderResult, Encoder, EncoderErrorMode, EncoderResult,
    Encoding, ErrorMode,
};

use crate::Failure;
use crate::auto::Determiner;
use crate::cli::{ConvertArgs, DecodeErrors, EncodeErrors, Errors};
use crate::files::{InputSpec, READ_SIZE, read_some};
use crate::labels::{IconvSuffix, lookup, split_iconv_suffix, surprising_label};
use crate::output::{Output, sync_directory};
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

/// What the text becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// UTF-8: the decoded text as it is.
    Utf8,
    /// An encoding of the standard with an encoder (not UTF-8).
    Encoder(&'static Encoding),
    /// The `--utf16-output` extension: UTF-16 code units in one byte order.
    Utf16 {
        /// Big-endian (UTF-16BE) or little-endian (UTF-16LE).
        big_endian: bool,
    },
}

/// Everything a conversion needs, decided once from the command line.
pub struct Plan {
    /// The input encoding (UTF-8 with `-f auto`, unused).
    from: &'static Encoding,
    /// With `-f auto`: how to determine each input's encoding.
    determiner: Option<Determiner>,
    /// Whether the replacement encoding was asked for explicitly (`--errors
    /// replacement`): `-f auto` refuses it otherwise, as `-f` does.
    replacement_ok: bool,
    /// The decoder's options; its mode is always "fatal" (see the module's docs).
    options: DecoderOptions,
    /// The error modes asked for.
    modes: Modes,
    /// What the text becomes.
    target: Target,
    /// The name of the output's encoding, for messages.
    to_name: &'static str,
    /// Whether the output starts with a byte order mark.
    bom: bool,
    /// `--strict`: a lossy conversion fails.
    pub strict: bool,
    /// `-q`: no summaries, no warnings.
    pub quiet: bool,
}

impl Plan {
    /// The plan for `args`, with its warnings written; a usage error, or a refusal
    /// to decode with the replacement encoding unless asked to explicitly.
    pub fn new(args: &ConvertArgs) -> Result<Plan, Failure> {
        let determiner =
            crate::auto::for_from(&args.input.from, &args.input.determine, args.input.no_bom_sniff, args.quiet)?;
        let from = if determiner.is_some() { whatenc::UTF_8 } else { lookup(&args.input.from)? };
        let (to_label, suffix) = split_iconv_suffix(&args.to)?;
        let to = lookup(to_label)?;
        let drop = args.drop || suffix == IconvSuffix::Ignore;
        if suffix == IconvSuffix::Ignore
            && (args.errors.is_some() || args.decode_errors.is_some() || args.encode_errors.is_some())
        {
            return Err(Failure::Usage("//IGNORE (like -c) cannot be combined with --errors".into()));
        }
        let modes = Modes::from_args(args, drop);
        let warn = |message: &str| {
            if !args.quiet {
                crate::note(message);
            }
        };
        let explicit =
            args.errors == Some(Errors::Replacement) || args.decode_errors == Some(DecodeErrors::Replacement);
        if from == whatenc::REPLACEMENT {
            let label = args.input.from.trim();
            if !explicit {
                return Err(Failure::Refused(format!(
                    "'{label}' is a label of the replacement encoding: the Encoding Standard decodes any input \
                     in it as a single U+FFFD (a defence against encodings that can hide markup), so the text \
                     would be lost; stopped (--errors replacement does it anyway)"
                )));
            }
            warn(&format!(
                "warning: '{label}' is a label of the replacement encoding: any input becomes a single U+FFFD"
            ));
        }
        let target = if to.has_encoder() {
            if to == whatenc::UTF_8 { Target::Utf8 } else { Target::Encoder(to) }
        } else if args.utf16_output && (to == whatenc::UTF_16LE || to == whatenc::UTF_16BE) {
            Target::Utf16 { big_endian: to == whatenc::UTF_16BE }
        } else {
            let output = to.output_encoding();
            let hint = if to == whatenc::REPLACEMENT { "" } else { " (--utf16-output writes UTF-16 instead)" };
            warn(&format!(
                "the {} encoding has no encoder; writing its output encoding, {}{hint}",
                to.name(),
                output.name()
            ));
            Target::Utf8
        };
        if args.utf16_output && !matches!(target, Target::Utf16 { .. }) {
            return Err(Failure::Usage("--utf16-output needs -t utf-16le or -t utf-16be".into()));
        }
        if suffix == IconvSuffix::Translit && matches!(target, Target::Encoder(_)) {
            return Err(Failure::Usage(format!(
                "'{}': the Encoding Standard has no transliteration (//TRANSLIT); what {} cannot encode is \
                 written as &#N; (the default), dropped with -c or //IGNORE, or stops the conversion with \
                 --errors fatal",
                args.to,
                to.name()
            )));
        }
        if let Some(warning) = surprising_label(to_label) {
            warn(&warning);
        }
        let bom = args.bom || (args.utf16_output && to_label.trim().eq_ignore_ascii_case("utf-16"));
        if bom && matches!(target, Target::Encoder(_)) {
            return Err(Failure::Usage(format!("--bom needs UTF-8 or UTF-16 output, not {}", to.name())));
        }
        let to_name = match target {
            Target::Utf16 { .. } => to.name(),
            _ => to.output_encoding().name(),
        };
        Ok(Plan {
            from,
            determiner,
            replacement_ok: explicit,
            options: decoder_options(args.input.no_bom_sniff, ErrorMode::Fatal),
            modes,
            target,
            to_name,
            bom,
            strict: args.strict,
            quiet: args.quiet,
        })
    }
}

/// What was replaced in one input, for the summary on standard error.
#[derive(Debug, Default)]
pub struct Losses {
    /// Malformed sequences written as U+FFFD.
    malformed: u64,
    /// The byte offset and position of the first.
    first_malformed: Option<(u64, Position)>,
    /// Scalar values written as `&#N;`.
    unmappable: u64,
    /// The first.
    first_unmappable: Option<char>,
}

impl Losses {
    /// Whether anything was replaced.
    pub fn any(&self) -> bool {
        self.malformed + self.unmappable > 0
    }

    /// The summary line for the input `name`, such as `ja.txt: 3 malformed sequences
    /// replaced with U+FFFD (first at byte 1024, line 12:7); 1 character written as
    /// &#12316; (U+301C)`, or `None` if nothing was replaced.
    pub fn summary(&self, name: &str) -> Option<String> {
        let mut parts = Vec::new();
        if let Some((offset, position)) = self.first_malformed {
            let (n, s) = (self.malformed, if self.malformed == 1 { "" } else { "s" });
            parts.push(format!(
                "{n} malformed sequence{s} replaced with U+FFFD (first at byte {offset}, line {}:{})",
                position.line, position.column
            ));
        }
        if let Some(c) = self.first_unmappable {
            let code = c as u32;
            parts.push(match self.unmappable {
                1 => format!("1 character written as &#{code}; (U+{code:04X})"),
                n => format!("{n} characters written as &#N; (the first &#{code};, U+{code:04X})"),
            });
        }
        (!parts.is_empty()).then(|| format!("{name}: {}", parts.join("; ")))
    }
}

/// A scalar value that could not be encoded, and fatal encoding stops at.
struct Unmappable {
    /// The scalar value.
    c: char,
    /// Its byte index in the text given to [`Sink::write`].
    at: usize,
}

/// The output side: the target's encoder, its buffer and the output.
struct Sink {
    /// What the text becomes.
    target: Target,
    /// The encoder, for [`Target::Encoder`].
    encoder: Option<Box<Encoder>>,
    /// The encoder's output buffer.
    buf: Vec<u8>,
    /// Where the bytes go.
    out: Output,
    /// The error modes asked for.
    modes: Modes,
}

impl Sink {
    /// A sink for `plan` into `out`, with the byte order mark written if asked for.
    fn new(plan: &Plan, out: Output) -> Result<Sink, Failure> {
        let encoder = match plan.target {
            Target::Encoder(to) => {
                let html =
                    plan.modes.encode == EncoderErrorMode::Html && !plan.modes.drop && to != whatenc::ISO_2022_JP;
                let mode = if html { EncoderErrorMode::Html } else { EncoderErrorMode::Fatal };
                Some(Box::new(to.new_encoder_with(mode).map_err(|e| Failure::Usage(e.to_string()))?))
            }
            _ => None,
        };
        let mut sink = Sink { target: plan.target, encoder, buf: vec![0; WRITE_SIZE], out, modes: plan.modes };
        if plan.bom {
            sink.write("\u{FEFF}", &mut Losses::default())?;
        }
        Ok(sink)
    }

    /// Writes `text`; stops at the first unmappable scalar value in "fatal" encoding
    /// mode (the text before it is written), and otherwise writes `&#N;` for it or,
    /// with `-c`, nothing.
    fn write(&mut self, text: &str, losses: &mut Losses) -> Result<Option<Unmappable>, Failure> {
        match self.target {
            Target::Utf8 => {
                if !text.is_empty() {
                    self.out.write_all(text.as_bytes(), utf8_cut)?;
                }
                Ok(None)
            }
            Target::Encoder(to) => {
                let encoder = self.encoder.as_mut().expect("an encoder for an encoder target");
                // Where a write may be cut when the disk is full: after any byte of a
                // single-byte encoding, else only between two writes.
                let cut = |_: &[u8], n: usize| if to.is_single_byte() { n } else { 0 };
                let mut done = 0;
                while done < text.len() {
                    let progress = encoder.encode_from_utf8(&text[done..], &mut self.buf, false);
                    let written = &self.buf[..progress.written];
                    if encoder.take_unmappable() {
                        let span = &text[done..done + progress.read];
                        losses.unmappable += count_references(written) - count_references(span.as_bytes());
                        if losses.first_unmappable.is_none() {
                            losses.first_unmappable = first_unmappable(to, span);
                        }
                    }
                    self.out.write_all(written, cut)?;
                    done += progress.read;
                    let EncoderResult::Unmappable(c) = progress.result else { continue };
                    if self.modes.drop {
                        continue;
                    }
                    if self.modes.encode == EncoderErrorMode::Fatal {
                        return Ok(Some(Unmappable { c, at: done - c.len_utf8() }));
                    }
                    // The "html" mode: the reference goes through the encoder, which
                    // switches back to ASCII where it must (ISO-2022-JP).
                    losses.unmappable += 1;
                    losses.first_unmappable.get_or_insert(c);
                    let reference = format!("&#{};", c as u32);
                    let mut sent = 0;
                    while sent < reference.len() {
                        let progress = encoder.encode_from_utf8(&reference[sent..], &mut self.buf, false);
                        self.out.write_all(&self.buf[..progress.written], cut)?;
                        sent += progress.read;
                    }
                }
                Ok(None)
            }
            Target::Utf16 { big_endian } => {
                let cut = |bytes: &[u8], n: usize| utf16_cut(bytes, n, big_endian);
                let mut filled = 0;
                for c in text.chars() {
                    if filled + 4 > self.buf.len() {
                        self.out.write_all(&self.buf[..filled], cut)?;
                        filled = 0;
                    }
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        let bytes = if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() };
                        self.buf[filled..filled + 2].copy_from_slice(&bytes);
                        filled += 2;
                    }
                }
                self.out.write_all(&self.buf[..filled], cut).map(|()| None)
            }
        }
    }

    /// Ends the output stream (ISO-2022-JP returns to ASCII) and flushes.
    fn finish(&mut self) -> Result<(), Failure> {
        if let Some(encoder) = &mut self.encoder {
            let progress = encoder.encode_from_utf8("", &mut self.buf, true);
            self.out.write_all(&self.buf[..progress.written], |_, _| 0)?;
        }
        self.out.flush()
    }
}

/// The number of `&#` pairs in `bytes`.
fn count_references(bytes: &[u8]) -> u64 {
    memchr::memmem::find_iter(bytes, b"&#").count() as u64
}

/// The first scalar value of `text` that `to` cannot encode (a stateless encoder).
fn first_unmappable(to: &'static Encoding, text: &str) -> Option<char> {
    let mut encoder = to.new_encoder_with(EncoderErrorMode::Fatal).ok()?;
    let mut buf = [0u8; 4096];
    let mut done = 0;
    while done < text.len() {
        let progress = encoder.encode_from_utf8(&text[done..], &mut buf, false);
        done += progress.read;
        if let EncoderResult::Unmappable(c) = progress.result {
            return Some(c);
        }
    }
    None
}

/// The last character boundary in the first `n` bytes of UTF-8 `bytes`.
fn utf8_cut(bytes: &[u8], n: usize) -> usize {
    let mut k = n;
    while k > 0 && k < bytes.len() && (bytes[k] as i8) < -0x40 {
        k -= 1;
    }
    k
}

/// The last character boundary in the first `n` bytes of UTF-16 `bytes`: whole code
/// units, and not between the two of a surrogate pair.
fn utf16_cut(bytes: &[u8], n: usize, big_endian: bool) -> usize {
    let k = n & !1;
    if k < 2 {
        return k;
    }
    let pair = [bytes[k - 2], bytes[k - 1]];
    let unit = if big_endian { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) };
    if (0xD800..0xDC00).contains(&unit) { k - 2 } else { k }
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

impl Stop {
    /// The one-line message for this stop in the input `name`, writing `to_name`.
    fn message(&self, name: &str, to_name: &str) -> String {
        match self {
            Stop::Malformed { encoding, error, position, bytes } => format!(
                "{name}:{}:{}: malformed {} input at byte offset {}{}; stopped (fatal decoding)",
                position.line,
                position.column,
                encoding.name(),
                error.offset,
                hex_suffix(bytes),
            ),
            Stop::Unmappable { c, offset, position } => format!(
                "{name}:{}:{}: U+{:04X} {:?} cannot be encoded in {to_name} (input byte offset {offset}); stopped \
                 (fatal encoding)",
                position.line, position.column, *c as u32, c,
            ),
        }
    }
}

/// The decoder options for `--from` and `--no-bom-sniff`, in `mode`.
pub fn decoder_options(no_bom_sniff: bool, mode: ErrorMode) -> DecoderOptions {
    DecoderOptions { mode, bom: if no_bom_sniff { BomHandling::None } else { BomHandling::Sniff } }
}

/// How the conversion of some inputs into one output ended. Messages are written.
pub enum Outcome {
    /// The output was written (and put in place of its target).
    Written,
    /// The output equals the target's contents, which were left alone.
    Unchanged,
    /// The conversion stopped on an error in the text, or `--strict` found a
    /// replacement (exit status 1).
    Failed,
    /// An I/O error, not yet reported.
    Error(Failure),
}

/// What to do with a finished output.
pub struct Finish<'a> {
    /// `--keep-partial`.
    pub keep_partial: bool,
    /// `--backup SUFFIX`.
    pub backup: Option<&'a str>,
    /// Leave the target alone when its contents would not change.
    pub skip_unchanged: bool,
    /// Where to collect the directories to sync later, once each (many files);
    /// `None`: sync each at once.
    pub sync_later: Option<&'a Mutex<HashSet<PathBuf>>>,
}

/// Converts `inputs` in turn into `out`, and then commits or abandons `out`.
pub fn convert_to(
    plan: &Plan,
    converter: &mut Converter,
    inputs: &[InputSpec],
    out: Output,
    progress: &mut Progress,
    finish: &Finish<'_>,
) -> Outcome {
    let mut sink = match Sink::new(plan, out) {
        Ok(sink) => sink,
        Err(failure) => return Outcome::Error(failure),
    };
    let mut lossy = false;
    for input in inputs {
        let mut losses = Losses::default();
        let result = converter.convert(plan, input, &mut sink, progress, &mut losses);
        if let Some(summary) = losses.summary(&input.name()).filter(|_| !plan.quiet) {
            progress.finish();
            crate::note(&summary);
        }
        lossy |= losses.any();
        match result {
            Ok(None) => {}
            Ok(Some(stop)) => {
                // Keep what was written a valid prefix: end the encoder's stream too.
                let _ = sink.finish();
                sink.out.abandon(finish.keep_partial);
                progress.finish();
                crate::note(&stop.message(&input.name(), plan.to_name));
                return Outcome::Failed;
            }
            Err(failure) => {
                let _ = sink.finish();
                sink.out.abandon(finish.keep_partial);
                return Outcome::Error(failure);
            }
        }
    }
    if let Err(failure) = sink.finish() {
        sink.out.abandon(finish.keep_partial);
        return Outcome::Error(failure);
    }
    if lossy && plan.strict {
        if let Some(target) = sink.out.target() {
            let kept = if finish.keep_partial { "written anyway (--keep-partial)" } else { "left as it was" };
            crate::note(&format!("{}: {kept}: text was replaced (--strict)", target.display()));
        }
        sink.out.abandon(finish.keep_partial);
        return Outcome::Failed;
    }
    if finish.skip_unchanged && sink.out.same_as_target() {
        sink.out.abandon(false);
        return Outcome::Unchanged;
    }
    let synced = match sink.out.commit(finish.backup) {
        Ok(Some(dir)) => match finish.sync_later {
            Some(later) => {
                later.lock().unwrap_or_else(PoisonError::into_inner).insert(dir);
                Ok(())
            }
            None => sync_directory(&dir),
        },
        Ok(None) => Ok(()),
        Err(failure) => Err(failure),
    };
    match synced {
        Ok(()) => Outcome::Written,
        Err(failure) => Outcome::Error(failure),
    }
}

/// Runs `whatenc convert`.
pub fn run(args: &ConvertArgs) -> Result<ExitCode, Failure> {
    let plan = Plan::new(args)?;
    if args.in_place || args.recursive {
        return crate::bulk::run(&plan, args);
    }
    if args.backup.is_some() || args.jobs.is_some() || args.no_ignore {
        return Err(Failure::Usage("--backup, -j and --no-ignore need --in-place or -r".into()));
    }
    // Check every input before writing: report the ones that cannot be read, and
    // convert the others (exit status 2 at the end), as iconv does.
    let mut status = 0;
    let mut inputs = Vec::new();
    let mut total = Some(0u64);
    for input in InputSpec::from_args(&args.input.files) {
        match input.preflight() {
            Ok(size) => {
                total = total.zip(size).map(|(a, b)| a + b);
                inputs.push(input);
            }
            Err(Failure::Io(message)) => {
                crate::note(&message);
                status = 2;
            }
            Err(other) => return Err(other),
        }
    }
    if inputs.is_empty() {
        return Ok(ExitCode::from(status));
    }
    let out = Output::open(args.output.as_deref())?;
    let mut progress = Progress::new(args.progress, total, out.is_stdout());
    let mut converter = Converter::new(&plan);
    let finish = Finish { keep_partial: args.keep_partial, backup: None, skip_unchanged: false, sync_later: None };
    let outcome = convert_to(&plan, &mut converter, &inputs, out, &mut progress, &finish);
    progress.finish();
    match outcome {
        Outcome::Written | Outcome::Unchanged => Ok(ExitCode::from(status)),
        Outcome::Failed => Ok(ExitCode::from(status.max(1))),
        Outcome::Error(failure) => Err(failure),
    }
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

/// The decoding side, reused from one input to the next.
pub struct Converter {
    /// The input encoding.
    from: &'static Encoding,
    /// The decoder's options ("fatal" mode).
    options: DecoderOptions,
    /// The error modes asked for.
    modes: Modes,
    /// The read buffer.
    input: Vec<u8>,
    /// The decoded text of one read.
    text: String,
}

impl Converter {
    /// A converter for `plan`, with its buffers.
    pub fn new(plan: &Plan) -> Converter {
        let room = match plan.determiner {
            Some(_) => crate::auto::max_text_len(READ_SIZE),
            None => plan.from.new_decoder_with(plan.options).max_utf8_buffer_length(READ_SIZE).unwrap_or(READ_SIZE * 4),
        };
        Converter {
            from: plan.from,
            options: plan.options,
            modes: plan.modes,
            input: vec![0; READ_SIZE],
            text: String::with_capacity(room),
        }
    }

    /// Converts one input into `sink`, counting what is replaced in `losses`;
    /// `Some` if it stopped on an error. With `-f auto`, its encoding is determined
    /// first and said on standard error (unless `-q`).
    fn convert(
        &mut self,
        plan: &Plan,
        spec: &InputSpec,
        sink: &mut Sink,
        progress: &mut Progress,
        losses: &mut Losses,
    ) -> Result<Option<Stop>, Failure> {
        let (mut reader, from) = match &plan.determiner {
            Some(determiner) => {
                let determined = determiner.determine(spec)?;
                let determination = determined.determination;
                if determination.encoding == whatenc::REPLACEMENT && !plan.replacement_ok {
                    return Err(Failure::Refused(format!(
                        "{}: determined {}: the Encoding Standard decodes any input in the replacement \
                         encoding as a single U+FFFD, so the text would be lost; stopped (--errors replacement does \
                         it anyway)",
                        spec.name(),
                        crate::auto::describe(&determination)
                    )));
                }
                if !plan.quiet {
                    progress.finish();
                    crate::note(&format!("{}: decoding as {}", spec.name(), crate::auto::describe(&determination)));
                }
                (determined.input, determination.encoding)
            }
            None => (spec.open()?, self.from),
        };
        let mut decoder = from.new_decoder_with(self.options);
        let modes = self.modes;
        // Positions are needed to report an error that stops the conversion, and the
        // first malformed sequence in the summary.
        let fatal = !modes.drop && (modes.decode == ErrorMode::Fatal || modes.encode == EncoderErrorMode::Fatal);
        let fatal_encoding = fatal && modes.encode == EncoderErrorMode::Fatal;
        let replacing = !modes.drop && modes.decode == ErrorMode::Replacement;
        let mut position = Position::default();
        let mut window = Window::new();
        loop {
            let n = read_some(&mut reader, &mut self.input, spec)?;
            progress.advance(n);
            let last = n == 0;
            let chunk = &self.input[..n];
            let mut read = 0;
            loop {
                let track = fatal || (replacing && losses.first_malformed.is_none());
                let saved = fatal_encoding.then(|| (decoder.clone(), read));
                self.text.clear();
                let result = decoder.decode_to_string(&chunk[read..], &mut self.text, last);
                read += result.read;
                if let Some(unmappable) = sink.write(&self.text, losses)? {
                    let (before, start) = saved.unwrap_or_else(|| (decoder.clone(), 0));
                    let at = &self.text[..unmappable.at];
                    let offset =
                        window.start + start as u64 + input_offset_of(before, &chunk[start..], at.len(), last) as u64;
                    return Ok(Some(Stop::Unmappable { c: unmappable.c, offset, position: position.after(at) }));
                }
                if track {
                    position.advance(&self.text);
                }
                match result.result {
                    DecoderResult::InputEmpty => break,
                    DecoderResult::OutputFull => {}
                    DecoderResult::Malformed(_) if modes.drop => {}
                    DecoderResult::Malformed(error) if replacing => {
                        losses.malformed += 1;
                        losses.first_malformed.get_or_insert((error.offset, position));
                        if let Some(unmappable) = sink.write("\u{FFFD}", losses)? {
                            return Ok(Some(Stop::Unmappable { c: unmappable.c, offset: error.offset, position }));
                        }
                        if fatal {
                            position.advance("\u{FFFD}");
                        }
                    }
                    DecoderResult::Malformed(error) => {
                        let bytes = window.bytes(chunk, error.offset, error.len);
                        return Ok(Some(Stop::Malformed { encoding: decoder.encoding(), error, position, bytes }));
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
