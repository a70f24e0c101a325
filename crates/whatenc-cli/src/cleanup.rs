//! Temporary files removed when the command is killed by SIGINT, SIGTERM or SIGHUP.
//!
//! A temporary output file is registered here while it exists. The first
//! registration starts a thread that waits for those signals (through
//! `signal-hook`, which does the async-signal-safe part); on one, it removes every
//! registered file and then dies of the signal with its default action, so the
//! exit status still says which signal it was. Renames happen under the same lock:
//! a file is either renamed over its target or removed, never left behind.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// The temporary files that exist now.
static TEMPS: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// Starts the signal thread once.
static INSTALL: Once = Once::new();

/// The registry, locked; a panic elsewhere does not stop the cleanup.
fn lock() -> MutexGuard<'static, Option<HashSet<PathBuf>>> {
    TEMPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts the thread that removes the temporary files on SIGINT, SIGTERM and SIGHUP.
fn install() {
    INSTALL.call_once(|| {
        // If the handlers cannot be installed, the default actions stay: the command
        // still dies of the signal, only without the cleanup.
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else { return };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Keep the lock: no rename may start after the files are removed.
                let guard = lock();
                for path in guard.iter().flatten() {
                    let _ = std::fs::remove_file(path);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
    });
}

/// Makes a temporary file with `create` and registers its path for removal on a
/// signal, under the lock, so that no signal can come between the two.
pub fn create<T: AsRef<Path>, E>(create: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    install();
    let mut guard = lock();
    let made = create()?;
    guard.get_or_insert_with(HashSet::new).insert(made.as_ref().to_path_buf());
    Ok(made)
}

/// Runs `finish` (which renames or removes `path`) so that a signal cannot interrupt
/// it half-way, and forgets `path`.
pub fn settle<T>(path: &Path, finish: impl FnOnce() -> T) -> T {
    let mut guard = lock();
    let result = finish();
    if let Some(set) = guard.as_mut() {
        set.remove(path);
    }
    result
}
