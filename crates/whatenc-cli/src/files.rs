//! Inputs (files or standard input), with one-line error messages.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::PathBuf;

use crate::Failure;

/// The size of each read: large enough that per-call costs vanish.
pub const READ_SIZE: usize = 128 * 1024;

/// An I/O error's message without Rust's " (os error N)" suffix.
pub fn describe(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::NotFound => "no such file or directory".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::IsADirectory => "is a directory".into(),
        _ => {
            let text = error.to_string();
            let text = text.find(" (os error").map_or(text.as_str(), |at| &text[..at]).to_string();
            let mut chars = text.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => text,
            }
        }
    }
}

/// The failure for a write error on standard output: a closed pipe is quiet.
pub fn stdout_error(error: &io::Error) -> Failure {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Failure::BrokenPipe
    } else {
        Failure::Io(format!("cannot write to standard output: {}", describe(error)))
    }
}

/// One input named on the command line.
#[derive(Debug, Clone)]
pub struct InputSpec {
    /// The path, or `None` for standard input.
    pub path: Option<PathBuf>,
}

impl InputSpec {
    /// The inputs for a list of FILE arguments: none or `-` is standard input.
    pub fn from_args(files: &[PathBuf]) -> Vec<InputSpec> {
        if files.is_empty() {
            return vec![InputSpec { path: None }];
        }
        files.iter().map(|p| InputSpec { path: (p.as_os_str() != "-").then(|| p.clone()) }).collect()
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => "<stdin>".into(),
        }
    }

    /// Checks, before any output is written, that the input can be opened; returns
    /// its size if it is a regular file.
    pub fn preflight(&self) -> Result<Option<u64>, Failure> {
        let Some(path) = &self.path else { return Ok(None) };
        let metadata = fs::metadata(path).map_err(|e| self.open_error(&e))?;
        if metadata.is_dir() {
            return Err(Failure::Io(format!("cannot read '{}': is a directory", self.name())));
        }
        File::open(path).map_err(|e| self.open_error(&e))?;
        Ok(metadata.is_file().then_some(metadata.len()))
    }

    /// Opens the input for reading.
    pub fn open(&self) -> Result<Input, Failure> {
        match &self.path {
            None => Ok(Input::Stdin(io::stdin().lock())),
            Some(path) => Ok(Input::File(File::open(path).map_err(|e| self.open_error(&e))?)),
        }
    }

    /// The error for a failed open.
    fn open_error(&self, error: &io::Error) -> Failure {
        Failure::Io(format!("cannot read '{}': {}", self.name(), describe(error)))
    }

    /// The error for a failed read.
    pub fn read_error(&self, error: &io::Error) -> Failure {
        Failure::Io(format!("error reading '{}': {}", self.name(), describe(error)))
    }
}

/// An open input.
pub enum Input {
    /// Standard input.
    Stdin(io::StdinLock<'static>),
    /// A file.
    File(File),
    /// Bytes read already (to determine the encoding), then the rest of the input,
    /// if it did not end there.
    Prefixed {
        /// The bytes read already.
        head: io::Cursor<Vec<u8>>,
        /// The rest, or `None` if the input ended within `head`.
        rest: Option<Box<Input>>,
    },
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Stdin(stdin) => stdin.read(buf),
            Input::File(file) => file.read(buf),
            Input::Prefixed { head, rest } => {
                let n = head.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                match rest {
                    Some(rest) => rest.read(buf),
                    None => Ok(0),
                }
            }
        }
    }
}

/// Reads once into `buf`, retrying on interruption.
pub fn read_some(input: &mut Input, buf: &mut [u8], spec: &InputSpec) -> Result<usize, Failure> {
    loop {
        match input.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(spec.read_error(&e)),
        }
    }
}
