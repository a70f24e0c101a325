//! `-o` never damages anything: device nodes, FIFOs, symbolic and hard links,
//! read-only files and directories, signals mid-conversion, a full disk, and the
//! labels of the replacement encoding. The real binary on real files.

mod common;

use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{TempDir, code, run, stderr, stdout};

/// Whether the tests run as root (some need to make device nodes or mount).
fn is_root() -> bool {
    fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Runs a helper command such as `mknod`, returning whether it succeeded.
fn helper(program: &str, args: &[&str]) -> bool {
    Command::new(program).args(args).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

#[test]
fn device_nodes_are_written_not_replaced() {
    if !is_root() {
        eprintln!("skipped: making device nodes needs root");
        return;
    }
    let dir = TempDir::new();
    let input = dir.file("in.txt", b"caf\xE9\n");
    // Our own copies of /dev/null and /dev/full, so that a bug cannot break the system's.
    let null = dir.join("null");
    let full = dir.join("full");
    if !helper("mknod", &[&null, "c", "1", "3"]) || fs::OpenOptions::new().write(true).open(&null).is_err() {
        eprintln!("skipped: no usable device nodes here (mknod refused, or a nodev mount)");
        return;
    }
    assert!(helper("mknod", &[&full, "c", "1", "7"]));
    let output = run(&["-f", "latin1", "-o", &null, &input], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(fs::metadata(&null).unwrap().file_type().is_char_device());
    let output = run(&["-f", "latin1", "-o", &full, &input], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot write '{full}': no space left on device\n"));
    assert!(fs::metadata(&full).unwrap().file_type().is_char_device());
    // A symbolic link to a device: the device is written.
    std::os::unix::fs::symlink(&null, dir.join("to-null")).unwrap();
    assert_eq!(code(&run(&["-f", "latin1", "-o", &dir.join("to-null"), &input], b"")), 0);
    assert!(fs::symlink_metadata(dir.join("to-null")).unwrap().file_type().is_symlink());
    assert!(fs::metadata(&null).unwrap().file_type().is_char_device());
    assert_eq!(dir.names(), ["full", "in.txt", "null", "to-null"], "no temporary file");
}

#[test]
fn dev_stdout_and_a_fifo_are_written_directly() {
    let dir = TempDir::new();
    let input = dir.file("in.txt", b"caf\xE9\n");
    // -o /dev/stdout with standard output a pipe.
    let output = run(&["-f", "latin1", "-o", "/dev/stdout", &input], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "café\n");
    // A FIFO made by the test, read by another process.
    let fifo = dir.join("fifo");
    assert!(helper("mkfifo", &[&fifo]), "mkfifo");
    let reader = Command::new("cat").arg(&fifo).stdout(Stdio::piped()).spawn().unwrap();
    let output = run(&["-f", "latin1", "-o", &fifo, &input], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let read = reader.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(read.stdout).unwrap(), "café\n");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(dir.names(), ["fifo", "in.txt"]);
}

#[test]
fn symbolic_links_are_followed() {
    let dir = TempDir::new();
    let input = dir.file("in.txt", b"caf\xE9\n");
    fs::create_dir(dir.path().join("sub")).unwrap();
    let real = dir.file("sub/real.txt", b"old\n");
    // A chain of two links, one relative.
    std::os::unix::fs::symlink("sub/real.txt", dir.path().join("link1")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("link1"), dir.path().join("link2")).unwrap();
    let output = run(&["-f", "latin1", "-o", &dir.join("link2"), &input], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(fs::read_to_string(&real).unwrap(), "café\n");
    for link in ["link1", "link2"] {
        assert!(fs::symlink_metadata(dir.path().join(link)).unwrap().file_type().is_symlink(), "{link}");
    }
    // A dangling link: its target is made.
    std::os::unix::fs::symlink("sub/new.txt", dir.path().join("dangling")).unwrap();
    assert_eq!(code(&run(&["-f", "latin1", "-o", &dir.join("dangling"), &input], b"")), 0);
    assert_eq!(fs::read_to_string(dir.path().join("sub/new.txt")).unwrap(), "café\n");
    assert_eq!(dir.names(), ["dangling", "in.txt", "link1", "link2", "sub"]);
}

#[test]
fn hard_links_survive() {
    let dir = TempDir::new();
    let first = dir.file("first.txt", b"caf\xE9\n");
    let second = dir.join("second.txt");
    fs::hard_link(&first, &second).unwrap();
    let inode = fs::metadata(&first).unwrap().ino();
    // Converted in place, from itself.
    let output = run(&["-f", "latin1", "-o", &first, &first], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(fs::read_to_string(&second).unwrap(), "café\n");
    let metadata = fs::metadata(&first).unwrap();
    assert_eq!((metadata.ino(), metadata.nlink()), (inode, 2));
    assert_eq!(dir.names(), ["first.txt", "second.txt"]);
}

#[test]
fn mode_owner_and_group_are_kept() {
    let dir = TempDir::new();
    let file = dir.file("text.txt", b"caf\xE9\n");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let owner = if is_root() {
        assert!(helper("chown", &["1234:5678", &file]));
        (1234, 5678)
    } else {
        eprintln!("owner not checked: changing a file's owner needs root");
        let m = fs::metadata(&file).unwrap();
        (m.uid(), m.gid())
    };
    let output = run(&["-f", "latin1", "-o", &file, &file], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let metadata = fs::metadata(&file).unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), "café\n");
    assert_eq!(metadata.mode() & 0o7777, 0o640);
    assert_eq!((metadata.uid(), metadata.gid()), owner);
}

#[test]
fn read_only_file_and_directory_are_refused() {
    let dir = TempDir::new();
    let input = dir.file("in.txt", b"caf\xE9\n");
    let read_only = dir.file("read-only.txt", b"old\n");
    fs::set_permissions(&read_only, fs::Permissions::from_mode(0o444)).unwrap();
    let output = run(&["-f", "latin1", "-o", &read_only, &input], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot write '{read_only}': the file is read-only\n"));
    assert_eq!(fs::read(&read_only).unwrap(), b"old\n");

    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let target = dir.join("locked/out.txt");
    let output = run(&["-f", "latin1", "-o", &target, &input], b"");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code(&output), 2);
    let message = stderr(&output);
    assert!(message.contains(&format!("cannot create a file in the directory '{}'", locked.display())), "{message}");
    assert_eq!(fs::read_dir(&locked).unwrap().count(), 0);
}

/// Waits until `done` holds, for at most ten seconds.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_signal_mid_conversion_removes_the_temporary_file() {
    for (signal, name) in [(2, "INT"), (15, "TERM"), (1, "HUP")] {
        let dir = TempDir::new();
        let target = dir.file("out.txt", b"as it was\n");
        let mut child = common::whatenc()
            .args(["-f", "latin1", "-o", &target])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Some input, then the conversion waits for more.
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, &[0xE9; 100_000]).unwrap();
        wait_for("the temporary file", || dir.names().len() == 2);
        assert!(helper("kill", &["-s", name, &child.id().to_string()]));
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(signal), "SIG{name}: {status:?}");
        assert_eq!(dir.names(), ["out.txt"], "SIG{name}: the temporary file is removed");
        assert_eq!(fs::read(&target).unwrap(), b"as it was\n", "SIG{name}");
    }
}

/// A small tmpfs mounted for one test, unmounted when dropped.
struct SmallDisk {
    dir: TempDir,
}

impl SmallDisk {
    /// A 64 kB tmpfs, if this process may mount one.
    fn new() -> Option<SmallDisk> {
        let dir = TempDir::new();
        helper("mount", &["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.path().to_str()?]).then_some(SmallDisk { dir })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        helper("umount", &[self.dir.path().to_str().unwrap()]);
    }
}

#[test]
fn a_full_disk_keeps_the_target_or_a_partial_output_cut_between_characters() {
    let Some(disk) = SmallDisk::new() else {
        eprintln!("skipped: mounting a small tmpfs needs root");
        return;
    };
    let source = TempDir::new();
    // 300 kB of three-byte characters: the 64 kB disk fills inside one.
    let text = "日本語".repeat(33_000);
    let input = source.file("in.txt", text.as_bytes());
    let target = disk.dir.join("out.txt");
    let output = run(&["convert", "-o", &target, &input], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot write '{target}': no space left on device\n"));
    assert_eq!(disk.dir.names(), Vec::<String>::new(), "no temporary file, no target");

    let output = run(&["convert", "--keep-partial", "-o", &target, &input], b"");
    assert_eq!(code(&output), 2);
    let kept = fs::read(&target).unwrap();
    assert!(!kept.is_empty() && kept.len() < text.len());
    let kept = String::from_utf8(kept).expect("the partial output ends on a character boundary");
    assert!(text.starts_with(&kept));
    assert_eq!(disk.dir.names(), ["out.txt"]);
}

#[test]
fn replacement_labels_stop_unless_asked_for() {
    let dir = TempDir::new();
    for label in ["hz-gb-2312", "iso-2022-kr", "iso-2022-cn", "iso-2022-cn-ext", "csiso2022kr", " ISO-2022-KR "] {
        let file = dir.file("text.txt", b"~{<:Ky2;S{#,NpJ)l6HK!#~}");
        let output = run(&["-f", label, "-o", &file, &file], b"");
        assert_eq!(code(&output), 1, "{label}");
        let message = stderr(&output);
        assert!(
            message.starts_with(&format!("whatenc: '{}' is a label of the replacement encoding", label.trim())),
            "{message}"
        );
        assert!(message.contains("--errors replacement"), "{message}");
        assert_eq!(fs::read(&file).unwrap(), b"~{<:Ky2;S{#,NpJ)l6HK!#~}", "{label}: the file is untouched");
        assert_eq!(dir.names(), ["text.txt"]);
    }
    // Asked for explicitly: done, with a warning.
    for errors in [&["--errors", "replacement"][..], &["--decode-errors", "replacement"][..]] {
        let output = run(&[&["-f", "hz-gb-2312"][..], errors].concat(), b"abc");
        assert_eq!(code(&output), 0);
        assert_eq!(stdout(&output), "\u{FFFD}");
        assert!(stderr(&output).starts_with("whatenc: warning: 'hz-gb-2312' is a label of the replacement encoding"));
    }
    // -c does not count as asking.
    assert_eq!(code(&run(&["-c", "-f", "iso-2022-kr"], b"abc")), 1);
}

#[test]
fn a_path_that_is_a_directory_or_missing_directory_is_refused() {
    let dir = TempDir::new();
    let input = dir.file("in.txt", b"x");
    let output = run(&["-o", dir.path().to_str().unwrap(), &input], b"");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("is a directory"));
    assert!(Path::new(&input).exists());
}

/// The file descriptor an `openat` line of strace returned, if the line opens `what`.
fn opened_fd(line: &str, what: &str) -> Option<String> {
    (line.contains("openat(") && line.contains(what)).then(|| line.rsplit("= ").next().unwrap_or("").trim().to_string())
}

/// Runs `whatenc ARGS` under strace, tracing `calls` and `execve`, one trace per
/// thread (no interleaving); returns the main thread's lines (the one that ran
/// `execve`) and the other threads', or `None` without strace.
fn strace(dir: &TempDir, calls: &str, args: &[&str]) -> Option<(Vec<String>, Vec<String>)> {
    if !helper("strace", &["-V"]) {
        eprintln!("skipped: strace is needed to see the system calls");
        return None;
    }
    let traces = dir.path().join("traces");
    fs::create_dir(&traces).unwrap();
    let status = Command::new("strace")
        .args(["-f", "-ff", "-e", &format!("trace=execve,{calls}"), "-o"])
        .arg(traces.join("t"))
        .arg(env!("CARGO_BIN_EXE_whatenc"))
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let (mut main, mut others) = (Vec::new(), Vec::new());
    for entry in fs::read_dir(&traces).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        if text.contains("execve(") { main = lines } else { others.extend(lines) }
    }
    fs::remove_dir_all(&traces).unwrap();
    Some((main, others))
}

#[test]
fn the_file_and_its_directory_are_synced_around_the_rename() {
    let dir = TempDir::new();
    let input = dir.file("in.txt", b"caf\xE9\n");
    let target = dir.file("out.txt", b"old\n");
    let calls = "openat,fsync,fdatasync,rename,renameat,renameat2";
    let Some((lines, _)) = strace(&dir, calls, &["-f", "latin1", "-o", &target, &input]) else { return };
    let trace = lines.join("\n");
    let at = |pred: &dyn Fn(&str) -> bool| lines.iter().position(|l| pred(l)).unwrap_or_else(|| panic!("{trace}"));
    let temp_open = at(&|l| opened_fd(l, ".whatenc-tmp").is_some());
    let temp_fd = opened_fd(&lines[temp_open], ".whatenc-tmp").unwrap();
    let file_sync = at(&|l| l.starts_with(&format!("fsync({temp_fd})")));
    let rename = at(&|l| l.contains("rename") && l.contains(".whatenc-tmp"));
    let dir_name = format!("\"{}\"", dir.path().display());
    let dir_open = at(&|l| opened_fd(l, &dir_name).is_some());
    let dir_fd = opened_fd(&lines[dir_open], &dir_name).unwrap();
    // (File descriptors are reused: the directory's sync is the one after its open.)
    let dir_sync = lines[dir_open..].iter().any(|l| l.starts_with(&format!("fsync({dir_fd})")));
    assert!(temp_open < file_sync && file_sync < rename, "{trace}");
    assert!(rename < dir_open && dir_sync, "{trace}");
    assert_eq!(fs::read_to_string(&target).unwrap(), "café\n");
}

#[test]
fn in_place_syncs_each_file_and_each_directory_once() {
    let dir = TempDir::new();
    let tree = dir.path().join("tree");
    for sub in ["a", "b"] {
        fs::create_dir_all(tree.join(sub)).unwrap();
        for n in 0..3 {
            fs::write(tree.join(format!("{sub}/{n}.txt")), b"caf\xE9\n").unwrap();
        }
    }
    let args = ["-r", "-j", "2", "-f", "latin1", tree.to_str().unwrap()];
    let Some((main, workers)) = strace(&dir, "fsync,rename,renameat,renameat2", &args) else { return };
    let count = |lines: &[String], call: &str| lines.iter().filter(|l| l.starts_with(call)).count();
    // The workers sync each file and rename it; the main thread, once they are done,
    // syncs the two directories.
    assert_eq!(count(&workers, "rename"), 6, "{workers:#?}");
    assert_eq!(count(&workers, "fsync("), 6, "{workers:#?}");
    assert_eq!(count(&main, "fsync("), 2, "{main:#?}");
    assert_eq!(count(&main, "rename"), 0, "{main:#?}");
    assert_eq!(fs::read_to_string(tree.join("b/2.txt")).unwrap(), "café\n");
}
