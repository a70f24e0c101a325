//! A one-line progress bar on standard error: bytes, rate and ETA.
//!
//! It is drawn only when standard error is a terminal, the output does not go to
//! that same terminal through standard output (the bar would write into the text),
//! and the input is large: a known size over 64 MB from the start, or an input of
//! unknown size (a pipe) that is still running after 2 seconds. `--progress
//! always|never` overrides that.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

use crate::cli::ProgressWhen;

/// Inputs larger than this get a bar from the start.
const LARGE: u64 = 64 * 1000 * 1000;
/// Inputs of unknown size get a bar after this long.
const PIPE_DELAY: Duration = Duration::from_secs(2);
/// The bar is redrawn at most this often.
const REDRAW: Duration = Duration::from_millis(200);

/// The state of the progress bar.
pub struct Progress {
    /// Whether a bar may be drawn at all.
    enabled: bool,
    /// Whether it is drawn whatever the size and time.
    forced: bool,
    /// The total input size, if every input is a regular file.
    total: Option<u64>,
    /// Bytes read so far.
    done: u64,
    /// When reading started.
    start: Instant,
    /// When the bar was last drawn, if it was.
    drawn: Option<Instant>,
}

impl Progress {
    /// A progress bar for `total` bytes (`None` if unknown); `to_stdout` says
    /// whether the output goes to standard output.
    pub fn new(when: ProgressWhen, total: Option<u64>, to_stdout: bool) -> Progress {
        let (enabled, forced) = match when {
            ProgressWhen::Auto => (
                std::io::stderr().is_terminal() && !(to_stdout && same_file(std::io::stdout(), std::io::stderr())),
                false,
            ),
            ProgressWhen::Always => (true, true),
            ProgressWhen::Never => (false, false),
        };
        Progress { enabled, forced, total, done: 0, start: Instant::now(), drawn: None }
    }

    /// Counts `n` more bytes read, and redraws if it is time to.
    #[inline]
    pub fn advance(&mut self, n: usize) {
        self.done += n as u64;
        if self.enabled {
            self.maybe_draw();
        }
    }

    /// Redraws if the bar is due.
    fn maybe_draw(&mut self) {
        let now = Instant::now();
        let due = match self.drawn {
            Some(last) => now.duration_since(last) >= REDRAW,
            None => {
                self.forced
                    || match self.total {
                        Some(total) => total > LARGE,
                        None => now.duration_since(self.start) >= PIPE_DELAY,
                    }
            }
        };
        if due {
            self.drawn = Some(now);
            let line = self.line(now.duration_since(self.start));
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r{line}\x1B[K");
            let _ = err.flush();
        }
    }

    /// The text of the bar after `elapsed`.
    fn line(&self, elapsed: Duration) -> String {
        let seconds = elapsed.as_secs_f64().max(1e-3);
        let rate = self.done as f64 / seconds;
        match self.total {
            Some(total) if total > 0 => {
                let fraction = (self.done as f64 / total as f64).min(1.0);
                let width = 24;
                let filled = (fraction * width as f64) as usize;
                let eta = if rate > 0.0 { (total.saturating_sub(self.done)) as f64 / rate } else { 0.0 };
                format!(
                    "[{}{}] {:>5.1}% {} / {} {}/s ETA {}",
                    "#".repeat(filled),
                    "-".repeat(width - filled),
                    fraction * 100.0,
                    human(self.done as f64),
                    human(total as f64),
                    human(rate),
                    clock(eta)
                )
            }
            _ => format!("{} {}/s elapsed {}", human(self.done as f64), human(rate), clock(seconds)),
        }
    }

    /// Erases the bar, if it was drawn.
    pub fn finish(&mut self) {
        if self.drawn.take().is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1B[K");
            let _ = err.flush();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Whether two open files are the same file (such as one terminal).
fn same_file(a: impl AsFd, b: impl AsFd) -> bool {
    let identity = |fd: std::os::fd::BorrowedFd<'_>| {
        let metadata = File::from(fd.try_clone_to_owned().ok()?).metadata().ok()?;
        Some((metadata.dev(), metadata.ino(), metadata.rdev()))
    };
    match (identity(a.as_fd()), identity(b.as_fd())) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// A byte count with a decimal unit: "12.3 MB".
fn human(bytes: f64) -> String {
    const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{value:.0} {}", UNITS[unit]) } else { format!("{value:.1} {}", UNITS[unit]) }
}

/// Seconds as "m:ss" or "h:mm:ss".
fn clock(seconds: f64) -> String {
    let total = seconds.round() as u64;
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    if h > 0 { format!("{h}:{m:02}:{s:02}") } else { format!("{m}:{s:02}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(human(999.0), "999 B");
        assert_eq!(human(1_500_000.0), "1.5 MB");
        assert_eq!(clock(75.0), "1:15");
        assert_eq!(clock(3725.0), "1:02:05");
    }

    #[test]
    fn bar_text() {
        let mut progress = Progress::new(ProgressWhen::Never, Some(100 * 1000 * 1000), false);
        progress.advance(50 * 1000 * 1000);
        let line = progress.line(Duration::from_secs(1));
        assert!(line.contains(" 50.0% 50.0 MB / 100.0 MB 50.0 MB/s ETA 0:01"), "{line}");
    }
}
