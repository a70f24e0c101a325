//! Inputs (files or standard input) and outputs (standard output, or a temporary
//! file renamed over `-o OUT` on success), with one-line error messages.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

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
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Stdin(stdin) => stdin.read(buf),
            Input::File(file) => file.read(buf),
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

/// Where the output goes.
pub enum Output {
    /// Standard output.
    Stdout(io::StdoutLock<'static>),
    /// A temporary file next to `target`, renamed over it by [`Output::commit`].
    File {
        /// The open temporary file.
        file: File,
        /// Its path.
        temp: PathBuf,
        /// The `-o` path.
        target: PathBuf,
    },
}

impl Output {
    /// Standard output, or a new temporary file next to `target`.
    pub fn open(target: Option<&Path>) -> Result<Output, Failure> {
        let Some(target) = target else { return Ok(Output::Stdout(io::stdout().lock())) };
        let name = target
            .file_name()
            .ok_or_else(|| Failure::Io(format!("cannot write '{}': not a file name", target.display())))?;
        let dir = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if target.is_dir() {
            return Err(Failure::Io(format!("cannot write '{}': is a directory", target.display())));
        }
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".whatenc-{}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .map_err(|e| Failure::Io(format!("cannot write '{}': {}", target.display(), describe(&e))))?;
        // Keep the permissions of a file being replaced.
        if let Ok(metadata) = fs::metadata(target) {
            let _ = fs::set_permissions(&temp, metadata.permissions());
        }
        Ok(Output::File { file, temp, target: target.to_path_buf() })
    }

    /// Writes all of `bytes`.
    #[inline]
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        let result = match self {
            Output::Stdout(stdout) => stdout.write_all(bytes),
            Output::File { file, .. } => file.write_all(bytes),
        };
        result.map_err(|e| self.write_error(&e))
    }

    /// Flushes what is buffered.
    pub fn flush(&mut self) -> Result<(), Failure> {
        let result = match self {
            Output::Stdout(stdout) => stdout.flush(),
            Output::File { file, .. } => file.flush(),
        };
        result.map_err(|e| self.write_error(&e))
    }

    /// The error for a failed write; a closed pipe on standard output is quiet.
    fn write_error(&self, error: &io::Error) -> Failure {
        match self {
            Output::Stdout(_) if error.kind() == io::ErrorKind::BrokenPipe => Failure::BrokenPipe,
            Output::Stdout(_) => Failure::Io(format!("cannot write to standard output: {}", describe(error))),
            Output::File { target, .. } => {
                Failure::Io(format!("cannot write '{}': {}", target.display(), describe(error)))
            }
        }
    }

    /// Finishes a successful conversion: flushes, and renames the temporary file
    /// over the target.
    pub fn commit(mut self) -> Result<(), Failure> {
        self.flush()?;
        if let Output::File { file, temp, target } = self {
            drop(file);
            if let Err(e) = fs::rename(&temp, &target) {
                let _ = fs::remove_file(&temp);
                return Err(Failure::Io(format!("cannot write '{}': {}", target.display(), describe(&e))));
            }
        }
        Ok(())
    }

    /// Ends a failed conversion: the temporary file is removed, or with `keep`
    /// renamed over the target. Errors here are secondary and ignored.
    pub fn abandon(mut self, keep: bool) {
        let _ = self.flush();
        if let Output::File { file, temp, target } = self {
            drop(file);
            if !(keep && fs::rename(&temp, &target).is_ok()) {
                let _ = fs::remove_file(&temp);
            }
        }
    }
}
