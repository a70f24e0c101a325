//! `whatenc check`: decode in "fatal" mode without converting, and report every
//! malformed sequence with its byte offset, line, column and bytes.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use whatenc::{DecoderResult, ErrorMode};

use crate::Failure;
use crate::cli::CheckArgs;
use crate::convert::{Window, decoder_options, hex};
use crate::files::{InputSpec, READ_SIZE, read_some, stdout_error};
use crate::labels::lookup;
use crate::position::Position;
use crate::progress::Progress;

/// Runs `whatenc check`.
pub fn run(args: &CheckArgs) -> Result<ExitCode, Failure> {
    let determiner =
        crate::auto::for_from(&args.input.from, &args.input.determine, args.input.no_bom_sniff, args.quiet)?;
    let from = if determiner.is_some() { whatenc::UTF_8 } else { lookup(&args.input.from)? };
    let options = decoder_options(args.input.no_bom_sniff, ErrorMode::Fatal);
    let inputs = InputSpec::from_args(&args.input.files);
    let mut total = Some(0u64);
    for input in &inputs {
        let size = input.preflight()?;
        total = total.zip(size).map(|(a, b)| a + b);
    }
    let mut progress = Progress::new(args.progress, total, true);
    let mut out = Report { out: BufWriter::with_capacity(64 * 1024, io::stdout().lock()) };
    let mut buf = vec![0u8; READ_SIZE];
    let room = match determiner {
        Some(_) => crate::auto::max_text_len(READ_SIZE),
        None => from.new_decoder().max_utf8_buffer_length(READ_SIZE).unwrap_or(READ_SIZE),
    };
    let mut text = String::with_capacity(room);
    let mut any_errors = false;
    for input in &inputs {
        let name = input.name();
        let (mut reader, from) = match &determiner {
            Some(determiner) => {
                let determined = determiner.determine(input)?;
                if !args.quiet {
                    progress.finish();
                    crate::note(&format!("{name}: decoding as {}", crate::auto::describe(&determined.determination)));
                }
                (determined.input, determined.determination.encoding)
            }
            None => (input.open()?, from),
        };
        let mut decoder = from.new_decoder_with(options);
        let mut position = Position::default();
        let mut window = Window::new();
        let mut errors = 0u64;
        loop {
            let n = read_some(&mut reader, &mut buf, input)?;
            progress.advance(n);
            let last = n == 0;
            let chunk = &buf[..n];
            let mut read = 0;
            loop {
                text.clear();
                let result = decoder.decode_to_string(&chunk[read..], &mut text, last);
                read += result.read;
                position.advance(&text);
                match result.result {
                    DecoderResult::InputEmpty => break,
                    DecoderResult::OutputFull => {}
                    DecoderResult::Malformed(error) => {
                        errors += 1;
                        if !args.quiet {
                            let bytes = window.bytes(chunk, error.offset, error.len);
                            let shown = if bytes.is_empty() { String::new() } else { format!(" {}", hex(&bytes)) };
                            let unit = if error.len == 1 { "byte" } else { "bytes" };
                            progress.finish();
                            out.line(format_args!(
                                "{name}:{}:{}: byte offset {}: malformed sequence{shown} ({} {unit})",
                                position.line, position.column, error.offset, error.len
                            ))?;
                        }
                        // In the replacement-decoded text this is one U+FFFD.
                        position.column += 1;
                    }
                }
            }
            if last {
                break;
            }
            window.advance(chunk);
        }
        let encoding = decoder.encoding();
        let how =
            if encoding == from { encoding.name().to_string() } else { format!("{}, from its BOM", encoding.name()) };
        let summary = match errors {
            0 => format!("{name}: ok ({how}, {} bytes)", window.start),
            1 => format!("{name}: 1 malformed sequence ({how})"),
            n => format!("{name}: {n} malformed sequences ({how})"),
        };
        progress.finish();
        out.line(format_args!("{summary}"))?;
        any_errors |= errors > 0;
    }
    out.out.flush().map_err(|e| stdout_error(&e))?;
    Ok(if any_errors { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The report on standard output.
struct Report<W: Write> {
    out: W,
}

impl<W: Write> Report<W> {
    /// Writes one line.
    fn line(&mut self, line: std::fmt::Arguments<'_>) -> Result<(), Failure> {
        writeln!(self.out, "{line}").map_err(|e| stdout_error(&e))
    }
}
