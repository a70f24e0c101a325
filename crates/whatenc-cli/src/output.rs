//! Where converted text goes: standard output, or a target file that is never damaged.
//!
//! The rules for a target (`-o OUT`, or each file of `--in-place`):
//!
//! - A symbolic link is followed; its final target is treated by these same rules.
//! - A device, FIFO or socket is opened and written directly (no temporary file).
//! - A regular file (or a new one) is written to a temporary file in the same
//!   directory, which is flushed to disk (`fsync`) and renamed over the target only
//!   when the conversion succeeded; the directory is then synced too. The
//!   temporary file takes the target's mode, owner and group (as far as the user may
//!   set them), and is removed on an error or on SIGINT, SIGTERM or SIGHUP.
//! - A regular file with other hard links is still converted into a temporary file
//!   first, but then copied into the target in place, so that the links keep
//!   sharing it.
//! - A read-only target (no write permission bit, or not writable by the user) is
//!   refused, as iconv does; so is a directory where the temporary file cannot be
//!   made, and the message names the directory.

use std::fs::{self, File};
use std::io::{self, Seek, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::Failure;
use crate::cleanup;
use crate::files::{describe, stdout_error};

/// Where the output goes.
pub enum Output {
    /// Standard output.
    Stdout(io::StdoutLock<'static>),
    /// A device, FIFO or socket, written directly.
    Direct {
        /// The open file.
        file: File,
        /// The path as given, for messages.
        shown: PathBuf,
    },
    /// A temporary file, put in place of a regular file by [`Output::commit`].
    Temp(Box<TempOutput>),
}

/// A temporary file standing in for a regular target file.
pub struct TempOutput {
    /// The open temporary file.
    file: File,
    /// Its path, removed when dropped unless it was renamed.
    temp: Option<tempfile::TempPath>,
    /// The target, with symbolic links resolved.
    target: PathBuf,
    /// The target as given, for messages.
    shown: PathBuf,
    /// Copy into the target instead of renaming over it (it has other hard links).
    copy_in: bool,
    /// Bytes written so far.
    written: u64,
    /// Bytes that end on a character boundary, kept by `--keep-partial`.
    boundary: u64,
}

/// Follows symbolic links from `path` to a path that is not one (which may not
/// exist yet), or fails on a loop.
fn resolve(path: &Path) -> Result<PathBuf, Failure> {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link = fs::read_link(&path).map_err(|e| write_error(&path, &e))?;
                path = match path.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(path),
        }
    }
    Err(Failure::Io(format!("cannot write '{}': too many levels of symbolic links", path.display())))
}

/// The failure for writing `path`.
fn write_error(path: &Path, error: &io::Error) -> Failure {
    Failure::Io(format!("cannot write '{}': {}", path.display(), describe(error)))
}

/// The directory that holds `path`.
fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl Output {
    /// Standard output, or the output for `target` by the rules of this module.
    pub fn open(target: Option<&Path>) -> Result<Output, Failure> {
        let Some(shown) = target else { return Ok(Output::Stdout(io::stdout().lock())) };
        // The kernel follows the links of an existing file (even /dev/stdout's, which
        // name no path); a dangling link is followed here, to the file to make.
        let (target, existing) = match fs::metadata(shown) {
            Ok(metadata) => (fs::canonicalize(shown).unwrap_or_else(|_| shown.to_path_buf()), Some(metadata)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => (resolve(shown)?, None),
            Err(e) => return Err(write_error(shown, &e)),
        };
        if let Some(metadata) = &existing {
            let kind = metadata.file_type();
            if kind.is_dir() {
                return Err(Failure::Io(format!("cannot write '{}': is a directory", shown.display())));
            }
            if kind.is_char_device() || kind.is_block_device() || kind.is_fifo() || kind.is_socket() {
                let file = fs::OpenOptions::new().write(true).open(shown).map_err(|e| write_error(shown, &e))?;
                return Ok(Output::Direct { file, shown: shown.to_path_buf() });
            }
            // Refuse a read-only file, even as root; and one this user may not write.
            if metadata.permissions().readonly() {
                return Err(Failure::Io(format!("cannot write '{}': the file is read-only", shown.display())));
            }
            fs::OpenOptions::new().write(true).open(&target).map_err(|e| write_error(shown, &e))?;
        }
        let dir = directory_of(&target);
        let dir_error = |reason: &str| {
            Failure::Io(format!(
                "cannot write '{}': cannot create a file in the directory '{}': {reason}",
                shown.display(),
                dir.display()
            ))
        };
        if fs::metadata(&dir).is_ok_and(|m| m.permissions().readonly()) {
            return Err(dir_error("the directory is read-only"));
        }
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // A new file gets 0666 less the umask, as a plain create would.
        let mode = existing.as_ref().map_or(0o666, |m| m.mode() & 0o7777);
        let named = cleanup::create(|| {
            tempfile::Builder::new()
                .prefix(&format!(".{name}."))
                .suffix(".whatenc-tmp")
                .permissions(fs::Permissions::from_mode(mode & 0o777))
                .tempfile_in(&dir)
        })
        .map_err(|e| match fs::metadata(&dir) {
            Ok(_) => dir_error(&describe(&e)),
            Err(_) => write_error(shown, &e),
        })?;
        let (file, temp) = named.into_parts();
        if let Some(metadata) = &existing {
            // Owner and group first: chown may clear the set-id bits that the mode sets.
            if std::os::unix::fs::fchown(&file, Some(metadata.uid()), Some(metadata.gid())).is_err() {
                let _ = std::os::unix::fs::fchown(&file, None, Some(metadata.gid()));
            }
            let _ = file.set_permissions(fs::Permissions::from_mode(mode));
        }
        let copy_in = existing.as_ref().is_some_and(|m| m.nlink() > 1);
        Ok(Output::Temp(Box::new(TempOutput {
            file,
            temp: Some(temp),
            target,
            shown: shown.to_path_buf(),
            copy_in,
            written: 0,
            boundary: 0,
        })))
    }

    /// Writes all of `bytes`, which end on a character boundary. On an error,
    /// `cut(bytes, n)` gives the last character boundary in the first `n` bytes
    /// written, which `--keep-partial` keeps.
    #[inline]
    pub fn write_all(&mut self, bytes: &[u8], cut: impl Fn(&[u8], usize) -> usize) -> Result<(), Failure> {
        let result = match self {
            Output::Stdout(stdout) => stdout.write_all(bytes),
            Output::Direct { file, .. } => file.write_all(bytes),
            Output::Temp(temp) => {
                let mut done = 0;
                let result = loop {
                    if done == bytes.len() {
                        break Ok(());
                    }
                    match temp.file.write(&bytes[done..]) {
                        Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                        Ok(n) => done += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => break Err(e),
                    }
                };
                let start = temp.written;
                temp.written += done as u64;
                temp.boundary = if result.is_ok() { temp.written } else { start + cut(bytes, done) as u64 };
                result
            }
        };
        result.map_err(|e| self.write_error(&e))
    }

    /// Flushes what is buffered.
    pub fn flush(&mut self) -> Result<(), Failure> {
        let result = match self {
            Output::Stdout(stdout) => stdout.flush(),
            Output::Direct { file, .. } => file.flush(),
            Output::Temp(_) => Ok(()),
        };
        result.map_err(|e| self.write_error(&e))
    }

    /// Whether this is standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self, Output::Stdout(_))
    }

    /// The target file as given, when it is replaced only on success (not standard
    /// output, nor a device written directly).
    pub fn target(&self) -> Option<&Path> {
        match self {
            Output::Temp(temp) => Some(&temp.shown),
            _ => None,
        }
    }

    /// The error for a failed write; a closed pipe on standard output is quiet.
    fn write_error(&self, error: &io::Error) -> Failure {
        match self {
            Output::Stdout(_) => stdout_error(error),
            Output::Direct { shown, .. } => write_error(shown, error),
            Output::Temp(temp) => write_error(&temp.shown, error),
        }
    }

    /// Whether the temporary file holds exactly what the target holds now.
    pub fn same_as_target(&mut self) -> bool {
        let Output::Temp(temp) = self else { return false };
        match fs::metadata(&temp.target) {
            Ok(metadata) if metadata.len() == temp.written => {}
            _ => return false,
        }
        let (Ok(mut a), Ok(b)) = (File::open(&temp.target), temp.file.try_clone()) else { return false };
        let mut b = io::BufReader::new(b);
        if b.rewind().is_err() {
            return false;
        }
        same_contents(&mut a, &mut b).unwrap_or(false)
    }

    /// Finishes a successful conversion: the temporary file is synced to disk and
    /// put in place of the target; `backup` first keeps the old target under that
    /// suffix. Returns the directory whose entry was renamed: the rename survives a
    /// crash once [`sync_directory`] has synced it (at once, or once for many files).
    pub fn commit(mut self, backup: Option<&str>) -> Result<Option<PathBuf>, Failure> {
        self.flush()?;
        match self {
            Output::Stdout(_) => Ok(None),
            Output::Direct { file, shown } => {
                file.sync_data().or_else(ignore_unsupported).map_err(|e| write_error(&shown, &e))?;
                Ok(None)
            }
            Output::Temp(mut temp) => {
                let shown = temp.shown.clone();
                let io = |e: io::Error| write_error(&shown, &e);
                temp.file.sync_all().map_err(io)?;
                if let Some(suffix) = backup {
                    make_backup(&temp.target, suffix, temp.copy_in).map_err(|e| {
                        Failure::Io(format!("cannot make the backup '{}{suffix}': {}", shown.display(), describe(&e)))
                    })?;
                }
                let path = temp.temp.take().expect("the temporary file is there until committed");
                if temp.copy_in {
                    let result = cleanup::settle(&path, || copy_into(&mut temp.file, &temp.target));
                    drop(path);
                    return result.map(|()| None).map_err(io);
                }
                let key = path.to_path_buf();
                cleanup::settle(&key, || path.persist(&temp.target)).map_err(|e| io(e.error))?;
                Ok(Some(directory_of(&temp.target)))
            }
        }
    }

    /// Ends a failed conversion: the temporary file is removed, or with `keep` cut
    /// after its last whole character and put in place of the target. Errors here are
    /// secondary and ignored.
    pub fn abandon(mut self, keep: bool) {
        let _ = self.flush();
        if let Output::Temp(temp) = &mut self
            && keep
            && temp.file.set_len(temp.boundary).is_ok()
        {
            temp.written = temp.boundary;
            if let Ok(Some(dir)) = self.commit(None) {
                let _ = sync_directory(&dir);
            }
            return;
        }
        if let Output::Temp(mut temp) = self
            && let Some(path) = temp.temp.take()
        {
            let key = path.to_path_buf();
            cleanup::settle(&key, || drop(path));
        }
    }
}

/// Syncs the directory `dir` to disk, so that the renames in it survive a crash.
pub fn sync_directory(dir: &Path) -> Result<(), Failure> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .or_else(ignore_unsupported)
        .map_err(|e| Failure::Io(format!("cannot sync the directory '{}': {}", dir.display(), describe(&e))))
}

/// `fsync` is not supported on some files (a pipe, a terminal): that is no error.
fn ignore_unsupported(error: io::Error) -> io::Result<()> {
    match error.raw_os_error() {
        Some(22) | Some(95) => Ok(()), // EINVAL, EOPNOTSUPP
        _ => Err(error),
    }
}

/// Keeps `target` as `target` + `suffix`, replacing an older backup: as a hard link
/// to the old file, which the rename then leaves alone, or a copy where links do not
/// work or where the target is about to be overwritten in place (`copy`).
fn make_backup(target: &Path, suffix: &str, copy: bool) -> io::Result<()> {
    let mut name = target.as_os_str().to_owned();
    name.push(suffix);
    let backup = PathBuf::from(name);
    match fs::remove_file(&backup) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    if copy || fs::hard_link(target, &backup).is_err() {
        fs::copy(target, &backup)?;
    }
    Ok(())
}

/// Copies the whole of `temp` into `target` in place (keeping its inode and links).
fn copy_into(temp: &mut File, target: &Path) -> io::Result<()> {
    temp.rewind()?;
    let mut out = fs::OpenOptions::new().write(true).truncate(true).open(target)?;
    io::copy(temp, &mut out)?;
    out.sync_all()
}

/// Whether two readers give the same bytes.
fn same_contents(a: &mut impl io::Read, b: &mut impl io::Read) -> io::Result<bool> {
    let mut x = vec![0u8; 64 * 1024];
    let mut y = vec![0u8; 64 * 1024];
    loop {
        let n = read_full(a, &mut x)?;
        let m = read_full(b, &mut y[..n.max(1)])?;
        if n != m || x[..n] != y[..m] {
            return Ok(false);
        }
        if n == 0 {
            return Ok(true);
        }
    }
}

/// Reads until `buf` is full or the input ends.
fn read_full(reader: &mut impl io::Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
