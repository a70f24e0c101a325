//! The `whatenc` command: convert and inspect text in the encodings of the WHATWG
//! Encoding Standard, exactly as a browser decodes it.
//!
//! - `whatenc convert [-f FROM] [-t TO] [--errors MODE] [-o OUT] [FILE...]`
//! - `whatenc check -f LABEL [FILE...]`
//! - `whatenc convert -f auto` and `whatenc check -f auto`: the encoding a browser
//!   would determine (`--as`, `--content-type`, `--locale`), said on standard error
//! - `whatenc sniff [--json] [FILE...]`: that determination, with the step that decided
//! - `whatenc list [--json]`, `whatenc label LABEL`
//! - `whatenc completions SHELL`, `whatenc man`
//!
//! iconv spellings work too: `whatenc -l`, `whatenc -f X -t Y FILE`, `whatenc FILE`,
//! `--from-code`, `--to-code`, `-c`, `-s`; piped input with no arguments converts.
//!
//! Exit status: 0 success; 1 malformed input or unmappable text in "fatal" mode (or
//! replaced with `--strict`), a refused replacement-encoding label, or `check`
//! found malformed input; 2 usage or I/O error. A closed output pipe ends the
//! command quietly with status 0.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

mod auto;
mod bulk;
mod check;
mod cleanup;
mod cli;
mod convert;
mod files;
mod info;
mod labels;
mod output;
mod position;
mod progress;

use cli::{Cli, Command};

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// A usage error (exit status 2), such as an unknown label.
    Usage(String),
    /// An I/O error (exit status 2), already described in one line.
    Io(String),
    /// Standard output was closed by the reader: stop quietly.
    BrokenPipe,
    /// The command refuses to do something that would lose the text (exit status 1),
    /// such as decoding with the replacement encoding when not asked explicitly.
    Refused(String),
}

/// Writes `whatenc: MESSAGE` on standard error, ignoring errors (a closed standard
/// error must not turn into a panic).
pub fn note(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "whatenc: {message}");
}

fn main() -> ExitCode {
    let args = cli::iconv_spellings(std::env::args_os().collect(), cli::stdin_is_data());
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            // --help and --version print and succeed; usage errors exit 2.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match &cli.command {
        Command::Convert(args) => convert::run(args),
        Command::Check(args) => check::run(args),
        Command::List(args) => info::list(args),
        Command::Label(args) => info::label(args),
        Command::Sniff(args) => info::sniff(args),
        Command::Completions(args) => info::completions(args),
        Command::Man => info::man(),
    };
    match result {
        Ok(code) => code,
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Usage(message) | Failure::Io(message)) => {
            note(&message);
            ExitCode::from(2)
        }
        Err(Failure::Refused(message)) => {
            note(&message);
            ExitCode::from(1)
        }
    }
}
