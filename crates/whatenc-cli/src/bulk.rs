//! `whatenc convert --in-place FILE...` and `-r`: many files, each converted into a
//! temporary file and put in its place only when its conversion succeeded, several
//! at a time.
//!
//! The files are listed first (directories walked with the `ignore` crate, which
//! skips hidden files and what `.gitignore`, `.ignore` and `.whatencignore` files
//! exclude, unless `--no-ignore`), with each file counted once however many names
//! it has (hard links, symbolic links given as arguments): converting a file twice
//! would decode its new contents as the old encoding. Then `-j N` threads (by
//! default one per core, and at least 8, since each file waits for its `fsync`)
//! take the files in turn. Each file is synced to disk before it is renamed into place; each
//! directory is synced once at the end, so that the renames survive a crash. A
//! summary line ends the run.

use std::collections::HashSet;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::Failure;
use crate::cli::{ConvertArgs, ProgressWhen};
use crate::convert::{Converter, Finish, Outcome, Plan, convert_to};
use crate::files::{InputSpec, describe};
use crate::output::{Output, sync_directory};
use crate::progress::Progress;

/// The least default number of files converted at a time (`-j`).
const DEFAULT_JOBS: usize = 8;

/// The files to convert, and how many arguments or entries could not be listed.
struct Listing {
    /// The files, in argument order, each directory's files sorted by name.
    files: Vec<PathBuf>,
    /// The (device, inode) pairs already listed.
    seen: HashSet<(u64, u64)>,
    /// Errors reported while listing.
    errors: u64,
}

impl Listing {
    /// Adds the regular file `path` unless it is already listed under another name.
    fn push(&mut self, path: &Path, metadata: &fs::Metadata) {
        if self.seen.insert((metadata.dev(), metadata.ino())) {
            self.files.push(path.to_path_buf());
        }
    }

    /// Reports `message` as an error.
    fn error(&mut self, message: &str) {
        crate::note(message);
        self.errors += 1;
    }
}

/// Lists the files named by `args`, walking directories with `-r`.
fn list(args: &ConvertArgs) -> Listing {
    let mut listing = Listing { files: Vec::new(), seen: HashSet::new(), errors: 0 };
    for arg in &args.input.files {
        let metadata = match fs::metadata(arg) {
            Ok(metadata) => metadata,
            Err(e) => {
                listing.error(&format!("cannot read '{}': {}", arg.display(), describe(&e)));
                continue;
            }
        };
        if metadata.is_file() {
            listing.push(arg, &metadata);
        } else if !metadata.is_dir() {
            listing.error(&format!("cannot convert '{}' in place: not a regular file", arg.display()));
        } else if !args.recursive {
            listing.error(&format!("cannot convert '{}' in place: is a directory (-r converts a tree)", arg.display()));
        } else {
            let walker = ignore::WalkBuilder::new(arg)
                .standard_filters(!args.no_ignore)
                .require_git(false)
                .add_custom_ignore_filename(".whatencignore")
                .follow_links(false)
                .sort_by_file_name(|a, b| a.cmp(b))
                .build();
            for entry in walker {
                match entry {
                    Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => match entry.metadata() {
                        Ok(metadata) => listing.push(entry.path(), &metadata),
                        Err(e) => listing.error(&format!("cannot read '{}': {e}", entry.path().display())),
                    },
                    Ok(_) => {}
                    Err(e) => listing.error(&e.to_string()),
                }
            }
        }
    }
    listing
}

/// Runs `whatenc convert --in-place` or `-r`.
pub fn run(plan: &Plan, args: &ConvertArgs) -> Result<ExitCode, Failure> {
    if args.input.files.is_empty() || args.input.files.iter().any(|f| f.as_os_str() == "-") {
        return Err(Failure::Usage("--in-place and -r need files (standard input cannot be replaced)".into()));
    }
    let listing = list(args);
    let files = &listing.files;
    // Each file waits for the disk to sync it: more files in flight than cores pay.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let jobs = args.jobs.map_or(cores.max(DEFAULT_JOBS), usize::from).clamp(1, files.len().max(1));
    let next = AtomicUsize::new(0);
    let converted = AtomicU64::new(0);
    let unchanged = AtomicU64::new(0);
    let failed = AtomicU64::new(0);
    let status = AtomicU8::new(if listing.errors > 0 { 2 } else { 0 });
    // Each file is synced before its rename; each directory once, at the end.
    let directories = Mutex::new(HashSet::new());
    let finish = Finish {
        keep_partial: false,
        backup: args.backup.as_deref(),
        skip_unchanged: true,
        sync_later: Some(&directories),
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                let mut converter = Converter::new(plan);
                let mut progress = Progress::new(ProgressWhen::Never, None, false);
                while let Some(path) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let input = InputSpec { path: Some(path.clone()) };
                    let outcome = match Output::open(Some(path)) {
                        Ok(out) => convert_to(plan, &mut converter, &[input], out, &mut progress, &finish),
                        Err(failure) => Outcome::Error(failure),
                    };
                    let (counter, code) = match outcome {
                        Outcome::Written => (&converted, 0),
                        Outcome::Unchanged => (&unchanged, 0),
                        Outcome::Failed => (&failed, 1),
                        Outcome::Error(Failure::Usage(message) | Failure::Io(message) | Failure::Refused(message)) => {
                            crate::note(&message);
                            (&failed, 2)
                        }
                        Outcome::Error(Failure::BrokenPipe) => (&failed, 2),
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                    status.fetch_max(code, Ordering::Relaxed);
                }
            });
        }
    });
    let mut directories: Vec<PathBuf> =
        directories.into_inner().unwrap_or_else(PoisonError::into_inner).into_iter().collect();
    directories.sort();
    for dir in &directories {
        if let Err(Failure::Io(message)) = sync_directory(dir) {
            crate::note(&message);
            status.fetch_max(2, Ordering::Relaxed);
        }
    }
    let failed = failed.into_inner() + listing.errors;
    if !plan.quiet || failed > 0 {
        crate::note(&format!(
            "{} converted, {} unchanged, {failed} skipped with errors",
            plural(converted.into_inner(), "file"),
            unchanged.into_inner()
        ));
    }
    Ok(ExitCode::from(status.into_inner()))
}

/// "1 file", "2 files".
fn plural(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}
