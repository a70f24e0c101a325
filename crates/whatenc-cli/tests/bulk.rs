//! `whatenc convert --in-place`, `--backup`, `-r` and `-j`: many files, in parallel,
//! each replaced only when its conversion succeeded. The real binary on real trees.

mod common;

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use common::{TempDir, code, run, stderr};

/// Shift_JIS bytes of "日本語".
const SJIS: &[u8] = b"\x93\xfa\x96\x7b\x8c\xea";

#[test]
fn in_place_converts_each_file_and_keeps_a_failed_one() {
    let dir = TempDir::new();
    let good = dir.file("good.txt", SJIS);
    let bad = dir.file("bad.txt", b"ok\n\x82");
    let ascii = dir.file("ascii.txt", b"plain\n");
    fs::set_permissions(&good, fs::Permissions::from_mode(0o604)).unwrap();
    let ascii_inode = fs::metadata(&ascii).unwrap().ino();
    let output = run(&["convert", "--in-place", "--errors", "fatal", "-f", "shift_jis", &good, &bad, &ascii], b"");
    assert_eq!(code(&output), 1);
    assert_eq!(fs::read_to_string(&good).unwrap(), "日本語");
    assert_eq!(fs::metadata(&good).unwrap().mode() & 0o777, 0o604, "the mode is kept");
    assert_eq!(fs::read(&bad).unwrap(), b"ok\n\x82", "a failed conversion leaves the file");
    assert_eq!(fs::metadata(&ascii).unwrap().ino(), ascii_inode, "an unchanged file is left alone");
    let message = stderr(&output);
    assert!(message.contains(&format!("{bad}:2:1: malformed Shift_JIS input at byte offset 3")), "{message}");
    assert!(message.ends_with("whatenc: 1 file converted, 1 unchanged, 1 skipped with errors\n"), "{message}");
    assert_eq!(dir.names(), ["ascii.txt", "bad.txt", "good.txt"], "no temporary file");
}

#[test]
fn backup_keeps_the_originals_of_converted_files() {
    let dir = TempDir::new();
    let a = dir.file("a.txt", SJIS);
    let b = dir.file("b.txt", b"ascii");
    let output = run(&["--in-place", "--backup", ".orig", "-f", "shift_jis", &a, &b], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(fs::read(format!("{a}.orig")).unwrap(), SJIS);
    assert_eq!(fs::read_to_string(&a).unwrap(), "日本語");
    assert_eq!(dir.names(), ["a.txt", "a.txt.orig", "b.txt"]);
    // A file with another hard link is overwritten in place: its backup is a copy.
    let c = dir.file("c.txt", SJIS);
    fs::hard_link(&c, dir.path().join("c-link.txt")).unwrap();
    let output = run(&["--in-place", "--backup", ".orig", "-f", "shift_jis", &c], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(fs::read(format!("{c}.orig")).unwrap(), SJIS);
    assert_eq!(fs::read_to_string(dir.path().join("c-link.txt")).unwrap(), "日本語");
    // Usage errors.
    assert_eq!(code(&run(&["--backup", "~", &a], b"")), 2);
    assert_eq!(code(&run(&["--in-place"], b"x")), 2);
    assert_eq!(code(&run(&["--in-place", "-"], b"x")), 2);
    assert_eq!(code(&run(&["--in-place", "-o", &b, &a], b"")), 2);
}

#[test]
fn recursive_walks_a_tree_once_per_file_in_parallel() {
    let dir = TempDir::new();
    let root = dir.path().join("tree");
    for sub in ["a", "a/b", "c", ".hidden", "build"] {
        fs::create_dir_all(root.join(sub)).unwrap();
    }
    let mut converted = Vec::new();
    for i in 0..60 {
        let path = root.join(["a", "a/b", "c"][i % 3]).join(format!("{i}.txt"));
        fs::write(&path, SJIS).unwrap();
        converted.push(path);
    }
    fs::write(root.join(".hidden/secret.txt"), SJIS).unwrap();
    fs::write(root.join("build/out.txt"), SJIS).unwrap();
    fs::write(root.join(".gitignore"), "build/\n").unwrap();
    // A hard link to a file in the tree, and a symbolic link out of the tree.
    fs::hard_link(&converted[0], root.join("c/link.txt")).unwrap();
    let outside = dir.file("outside.txt", SJIS);
    std::os::unix::fs::symlink(&outside, root.join("c/outside.txt")).unwrap();
    let output = run(&["-r", "-j", "4", "-f", "shift_jis", root.to_str().unwrap()], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stderr(&output), "whatenc: 60 files converted, 0 unchanged, 0 skipped with errors\n");
    for path in &converted {
        assert_eq!(fs::read_to_string(path).unwrap(), "日本語", "{}", path.display());
    }
    assert_eq!(fs::read_to_string(root.join("c/link.txt")).unwrap(), "日本語", "converted once");
    for skipped in [".hidden/secret.txt", "build/out.txt"] {
        assert_eq!(fs::read(root.join(skipped)).unwrap(), SJIS, "{skipped}");
    }
    assert_eq!(fs::read(&outside).unwrap(), SJIS, "links are not followed");
    // --no-ignore converts the hidden and ignored files too; the rest is UTF-8 now,
    // and decoding it again as UTF-8 leaves it unchanged.
    let output =
        run(&["-r", "--no-ignore", "-f", "shift_jis", "--errors", "fatal", root.join("build").to_str().unwrap()], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(fs::read_to_string(root.join("build/out.txt")).unwrap(), "日本語");
    let output = run(&["-r", "-q", root.to_str().unwrap()], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stderr(&output), "", "-q: no summary when all went well");
}

#[test]
fn failures_in_the_middle_of_a_parallel_run() {
    let dir = TempDir::new();
    let root = dir.path().join("tree");
    fs::create_dir(&root).unwrap();
    for i in 0..40 {
        fs::write(root.join(format!("{i:02}.txt")), SJIS).unwrap();
    }
    // One malformed file, one read-only file, one unreadable path given directly.
    fs::write(root.join("20.txt"), b"\x93\xfa\x96").unwrap();
    fs::set_permissions(root.join("30.txt"), fs::Permissions::from_mode(0o444)).unwrap();
    let missing = dir.join("missing.txt");
    let output = run(&["-r", "-j", "3", "--strict", "-f", "shift_jis", root.to_str().unwrap(), &missing], b"");
    assert_eq!(code(&output), 2, "an I/O error counts over the others");
    let message = stderr(&output);
    assert!(message.contains("20.txt: 1 malformed sequence replaced with U+FFFD"), "{message}");
    assert!(message.contains("30.txt': the file is read-only"), "{message}");
    assert!(message.contains("missing.txt': no such file or directory"), "{message}");
    assert!(message.ends_with("whatenc: 38 files converted, 0 unchanged, 3 skipped with errors\n"), "{message}");
    for i in 0..40 {
        let path = root.join(format!("{i:02}.txt"));
        let expected: &[u8] = match i {
            20 => b"\x93\xfa\x96",
            30 => SJIS,
            _ => "日本語".as_bytes(),
        };
        assert_eq!(fs::read(&path).unwrap(), expected, "{}", path.display());
    }
    assert_eq!(fs::read_dir(&root).unwrap().count(), 40, "no temporary file");
    // A directory without -r is an error; the files given are still converted.
    let single = dir.file("single.txt", SJIS);
    let output = run(&["--in-place", "-f", "shift_jis", root.to_str().unwrap(), &single], b"");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("is a directory (-r converts a tree)"));
    assert_eq!(fs::read_to_string(&single).unwrap(), "日本語");
    assert!(Path::new(&single).exists());
}
