//! Helpers for running the real `whatenc` binary on real files and pipes.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary under test.
pub fn whatenc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_whatenc"));
    command.env_remove("COLUMNS");
    command
}

/// Runs `whatenc ARGS` with `stdin` as standard input and waits for it.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_in(None, args, stdin)
}

/// Runs `whatenc ARGS` in `dir` (or the crate's directory) with `stdin`.
pub fn run_in(dir: Option<&Path>, args: &[&str], stdin: &[u8]) -> Output {
    let mut command = whatenc();
    command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = command.spawn().expect("the whatenc binary runs");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The command may stop reading early (an error, or it reads no stdin).
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("whatenc finishes");
    writer.join().unwrap();
    output
}

/// The exit code.
pub fn code(output: &Output) -> i32 {
    output.status.code().expect("whatenc exits, not killed by a signal")
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A temporary directory, removed on drop.
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// A new empty directory under the system's temporary directory.
    pub fn new() -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("whatenc-cli-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir { path }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes a file in the directory and returns its path as a string.
    pub fn file(&self, name: &str, contents: &[u8]) -> String {
        let path = self.path.join(name);
        std::fs::write(&path, contents).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// A path in the directory, as a string.
    pub fn join(&self, name: &str) -> String {
        self.path.join(name).to_str().unwrap().to_string()
    }

    /// The names of the files in the directory, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The peak resident set size of process `pid`, in kB, if it is still running.
pub fn peak_rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
