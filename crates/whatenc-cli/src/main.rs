//! The `whatenc` command: convert text between the encodings of the WHATWG Encoding
//! Standard, exactly as a browser decodes it.
//!
//! This first version has `list`, `label` and a streaming `convert`; the full
//! command line (check, sniff, iconv spellings, progress, completions) comes with
//! the command-line issue.

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;

use whatenc::{BomHandling, DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding};

const USAGE: &str = "\
usage:
  whatenc list                                   every encoding and its labels
  whatenc label LABEL                            what \"get an encoding\" gives for LABEL
  whatenc convert [-f FROM] [-t TO] [FILE...]    convert FILEs (or stdin) from FROM to TO

examples:
  whatenc convert -f shift_jis samples/ja.shift_jis.txt
  whatenc convert -f utf-8 -t windows-1252 notes.txt > notes.1252.txt";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("list") => list(),
        Some("label") if args.len() == 2 => label(&args[1]),
        Some("convert") => convert(&args[1..]),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        _ => Err(Failure::Usage(USAGE.to_string())),
    };
    match result {
        Ok(code) => code,
        Err(Failure::Io(error)) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(error)) => {
            eprintln!("whatenc: {error}");
            ExitCode::from(2)
        }
        Err(Failure::Usage(message)) => {
            eprintln!("whatenc: {message}");
            ExitCode::from(2)
        }
    }
}

enum Failure {
    Usage(String),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error)
    }
}

fn list() -> Result<ExitCode, Failure> {
    let mut out = io::stdout().lock();
    for encoding in Encoding::all() {
        writeln!(out, "{:<16} {}", encoding.name(), encoding.labels().join(" "))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn label(label: &str) -> Result<ExitCode, Failure> {
    let encoding = lookup(label)?;
    let output = encoding.output_encoding();
    println!("{}\t(output encoding: {})", encoding.name(), output.name());
    Ok(ExitCode::SUCCESS)
}

fn lookup(label: &str) -> Result<&'static Encoding, Failure> {
    Encoding::for_label_or_error(label).map_err(|e| Failure::Usage(e.to_string()))
}

fn convert(args: &[String]) -> Result<ExitCode, Failure> {
    let mut from = whatenc::UTF_8;
    let mut to = whatenc::UTF_8;
    let mut files = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "-f" | "--from" => from = lookup(iter.next().ok_or(Failure::Usage("-f needs a label".into()))?)?,
            "-t" | "--to" => to = lookup(iter.next().ok_or(Failure::Usage("-t needs a label".into()))?)?,
            _ => files.push(arg.clone()),
        }
    }
    if !to.has_encoder() {
        eprintln!("whatenc: {} has no encoder; writing its output encoding, {}", to.name(), to.output_encoding());
        to = to.output_encoding();
    }
    if files.is_empty() {
        files.push("-".to_string());
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    for file in &files {
        let input: Box<dyn Read> = if file == "-" {
            Box::new(io::stdin().lock())
        } else {
            Box::new(std::fs::File::open(file).map_err(|e| io::Error::new(e.kind(), format!("{file}: {e}")))?)
        };
        convert_stream(io::BufReader::with_capacity(1 << 16, input), &mut out, from, to)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Decodes `input` with the standard's `decode` semantics (BOM sniffing) and
/// encodes with `to` in the "html" error mode, in constant memory.
fn convert_stream(
    mut input: impl BufRead,
    out: &mut impl Write,
    from: &'static Encoding,
    to: &'static Encoding,
) -> io::Result<()> {
    let mut decoder = from.new_decoder_with(DecoderOptions { bom: BomHandling::Sniff, ..Default::default() });
    let mut encoder = to.new_encoder_with(EncoderErrorMode::Html).map_err(io::Error::other)?;
    let mut text = String::with_capacity(1 << 16);
    let mut bytes = vec![0u8; 1 << 18];
    loop {
        let chunk = input.fill_buf()?;
        let last = chunk.is_empty();
        let mut read = 0;
        loop {
            text.clear();
            let progress = decoder.decode_to_string(&chunk[read..], &mut text, last);
            read += progress.read;
            let mut done = 0;
            loop {
                let encoded = encoder.encode_from_utf8(
                    &text[done..],
                    &mut bytes,
                    last && progress.result == DecoderResult::InputEmpty,
                );
                out.write_all(&bytes[..encoded.written])?;
                done += encoded.read;
                if encoded.result == EncoderResult::InputEmpty {
                    break;
                }
            }
            if progress.result == DecoderResult::InputEmpty {
                break;
            }
        }
        let consumed = chunk.len();
        input.consume(consumed);
        if last {
            return Ok(());
        }
    }
}
