//! `whatenc convert`: every error mode and exit code, BOM sniffing, encodings with
//! no encoder, files, `-o`, and the iconv spellings; the real binary on real files
//! and pipes.

mod common;

use common::{TempDir, code, repo_root, run, run_in, stderr, stdout};

#[test]
fn readme_command_prints_the_chinese_sample_cleanly() {
    let output = run_in(Some(&repo_root()), &["convert", "-f", "gbk", "samples/zh_cn.gbk.txt"], b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = String::from_utf8(output.stdout.clone()).expect("UTF-8 output");
    assert!(text.starts_with("火星是离太阳第四近的行星"), "{text}");
    assert!(!text.contains("&#"), "no references: every character is in GBK");
    assert_eq!(stderr(&output), "");
    // The Japanese sample keeps the reference its maker wrote for a Greek letter.
    let output = run_in(Some(&repo_root()), &["convert", "-f", "shift_jis", "samples/ja.shift_jis.txt"], b"");
    let text = String::from_utf8(output.stdout.clone()).expect("UTF-8 output");
    assert!(text.contains("火星（かせい、ラテン語: Mars マールス") && text.contains("&#902;"), "{text}");
}

#[test]
fn check_help_examples_report_something() {
    let help = stdout(&run(&["check", "--help"], b""));
    for (args, found) in [
        (["check", "-f", "utf-8", "samples/fr.windows-1252.txt"], "47 malformed sequences (UTF-8)"),
        (["check", "-f", "shift_jis", "samples/ja.euc-jp.txt"], "50 malformed sequences (Shift_JIS)"),
    ] {
        assert!(help.contains(&format!("whatenc {}", args.join(" "))), "{help}");
        let output = run_in(Some(&repo_root()), &args, b"");
        assert_eq!(code(&output), 1);
        assert!(stdout(&output).ends_with(&format!("{}: {found}\n", args[3])), "{}", stdout(&output));
    }
    assert!(!help.contains("check -f windows-1252"), "windows-1252 can report nothing");
}

#[test]
fn defaults_are_utf8_to_utf8_with_replacement() {
    let output = run(&["convert"], b"caf\xC3\xA9 \xFF!");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "café \u{FFFD}!");
    assert_eq!(
        stderr(&output),
        "whatenc: <stdin>: 1 malformed sequence replaced with U+FFFD (first at byte 6, line 1:6)\n"
    );
    // `-` is standard input too.
    assert_eq!(run(&["convert", "-"], b"x").stdout, b"x");
}

#[test]
fn from_and_to_legacy_encodings() {
    let output = run(&["convert", "-f", "latin1", "-t", "koi8-r"], b"caf\xE9");
    assert_eq!(code(&output), 0);
    // é is not in KOI8-R: the html error mode writes a reference.
    assert_eq!(output.stdout, b"caf&#233;");
    let output = run(&["convert", "-f", "koi8-r"], b"\xF0\xD2\xC9\xD7\xC5\xD4");
    assert_eq!(stdout(&output), "Привет");
    let output = run(&["convert", "-t", "euc-kr"], "가".as_bytes());
    assert_eq!(output.stdout, b"\xB0\xA1");
}

#[test]
fn iconv_spellings() {
    // -f/-t without the subcommand, -l, -c and //IGNORE.
    let output = run(&["-f", "latin1", "-t", "utf-8"], b"\xE9");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "é");
    let output = run(&["--from=latin1", "--to=utf-8"], b"\xE9");
    assert_eq!(stdout(&output), "é");
    let output = run(&["-c", "-t", "windows-1252"], "a☃b\u{20AC}".as_bytes());
    assert_eq!(code(&output), 0);
    assert_eq!(output.stdout, b"ab\x80");
    let output = run(&["-t", "windows-1252//IGNORE"], "a☃b".as_bytes());
    assert_eq!(code(&output), 0);
    assert_eq!(output.stdout, b"ab");
    let output = run(&["-t", "ascii//TRANSLIT"], b"a");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("//TRANSLIT"));
    let output = run(&["-t", "windows-1252//IGNORE", "--errors", "fatal"], b"a");
    assert_eq!(code(&output), 2);
}

#[test]
fn bom_overrides_from() {
    // A UTF-8 BOM wins over -f shift_jis and is removed.
    let output = run(&["convert", "-f", "shift_jis"], "\u{FEFF}日本".as_bytes());
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "日本");
    // UTF-16LE and UTF-16BE BOMs too.
    let output = run(&["convert", "-f", "windows-1252"], b"\xFF\xFEh\x00i\x00");
    assert_eq!(stdout(&output), "hi");
    let output = run(&["convert", "-f", "gbk"], b"\xFE\xFF\x00h\x00i");
    assert_eq!(stdout(&output), "hi");
    // --no-bom-sniff: the BOM's bytes are windows-1252 text.
    let output = run(&["convert", "-f", "windows-1252", "--no-bom-sniff"], b"\xFF\xFEh\x00");
    assert_eq!(stdout(&output), "ÿþh\0");
    // Without a BOM, -f decides.
    let output = run(&["convert", "-f", "windows-1252"], b"\xFFh");
    assert_eq!(stdout(&output), "ÿh");
    // With UTF-8 input and --no-bom-sniff, the BOM stays as U+FEFF.
    let output = run(&["convert", "--no-bom-sniff"], "\u{FEFF}x".as_bytes());
    assert_eq!(stdout(&output), "\u{FEFF}x");
}

#[test]
fn to_an_encoding_with_no_encoder_writes_its_output_encoding() {
    for label in ["utf-16le", "utf-16be", "utf-16", "replacement"] {
        let output = run(&["convert", "-f", "latin1", "-t", label], b"caf\xE9");
        assert_eq!(code(&output), 0, "{label}");
        assert_eq!(stdout(&output), "café", "{label}: UTF-8 output");
        let note = stderr(&output);
        assert!(note.contains("has no encoder; writing its output encoding, UTF-8"), "{label}: {note}");
    }
    let note = stderr(&run(&["convert", "-t", "utf-16be"], b"x"));
    assert_eq!(
        note,
        "whatenc: the UTF-16BE encoding has no encoder; writing its output encoding, UTF-8 (--utf16-output \
         writes UTF-16 instead)\n"
    );
}

#[test]
fn utf16_output_extension() {
    let output = run(&["convert", "-t", "utf-16le", "--utf16-output"], "h😀".as_bytes());
    assert_eq!(code(&output), 0);
    assert_eq!(output.stdout, b"h\x00\x3D\xD8\x00\xDE");
    assert_eq!(stderr(&output), "");
    let output = run(&["convert", "-t", "utf-16be", "--utf16-output"], "hé".as_bytes());
    assert_eq!(output.stdout, b"\x00h\x00\xE9");
    // And back, through BOM sniffing of the default UTF-8 input.
    let output = run(&["convert"], b"\xFE\xFF\x00h\x00\xE9");
    assert_eq!(stdout(&output), "hé");
    // --utf16-output needs a UTF-16 target.
    let output = run(&["convert", "-t", "latin1", "--utf16-output"], b"x");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("--utf16-output needs -t utf-16le or -t utf-16be"));
}

#[test]
fn html_mode_is_the_default_for_encoding() {
    for args in [&["convert", "-t", "latin1"][..], &["convert", "-t", "latin1", "--errors", "html"][..]] {
        let output = run(args, "a☃b😀".as_bytes());
        assert_eq!(code(&output), 0);
        assert_eq!(output.stdout, b"a&#9731;b&#128512;");
    }
    // --errors replacement is the same pair of modes.
    let output = run(&["convert", "-t", "latin1", "--errors", "replacement"], b"\xFF\xE2\x98\x83");
    assert_eq!(output.stdout, b"&#65533;&#9731;");
}

#[test]
fn fatal_decoding_stops_with_offset_line_and_column() {
    let output = run(&["convert", "--errors", "fatal", "-f", "euc-kr"], b"ab\n\xB0\xA1c\xB0 d\xB0\xA1");
    assert_eq!(code(&output), 1);
    // What came before the error is written, and nothing after.
    assert_eq!(stdout(&output), "ab\n가c");
    assert_eq!(
        stderr(&output),
        "whatenc: <stdin>:2:3: malformed EUC-KR input at byte offset 6 (byte B0); stopped (fatal decoding)\n"
    );
    // --decode-errors fatal alone does the same.
    let output = run(&["convert", "--decode-errors", "fatal"], b"ok\xC3(");
    assert_eq!(code(&output), 1);
    assert_eq!(stdout(&output), "ok");
    assert!(stderr(&output).contains("<stdin>:1:3: malformed UTF-8 input at byte offset 2 (byte C3)"));
    // A truncated sequence at the end of the input.
    let output = run(&["convert", "--errors", "fatal", "-f", "shift_jis"], b"\x82\xa0\x82");
    assert_eq!(code(&output), 1);
    assert_eq!(stdout(&output), "あ");
    assert!(stderr(&output).contains("at byte offset 2 (byte 82)"), "{}", stderr(&output));
}

#[test]
fn fatal_encoding_stops_at_the_unmappable_character() {
    let output = run(&["convert", "--errors", "fatal", "-t", "windows-1252"], "l1\nx€y☃z".as_bytes());
    assert_eq!(code(&output), 1);
    assert_eq!(output.stdout, b"l1\nx\x80y");
    assert_eq!(
        stderr(&output),
        "whatenc: <stdin>:2:4: U+2603 '☃' cannot be encoded in windows-1252 (input byte offset 8); stopped (fatal \
         encoding)\n"
    );
    // The input byte offset is the offset in the input encoding.
    let output = run(&["convert", "-f", "shift_jis", "-t", "euc-kr", "--encode-errors", "fatal"], b"ab\x82\xa0\xb1");
    assert_eq!(code(&output), 1);
    assert!(
        stderr(&output).contains("<stdin>:1:4: U+FF71 'ｱ' cannot be encoded in EUC-KR (input byte offset 4)"),
        "{}",
        stderr(&output)
    );
    // ISO-2022-JP output stays a valid prefix: it ends back in ASCII.
    let output = run(&["convert", "--errors", "fatal", "-t", "iso-2022-jp"], "日☃".as_bytes());
    assert_eq!(code(&output), 1);
    assert_eq!(output.stdout, b"\x1B$BF|\x1B(B");
}

#[test]
fn one_side_fatal_the_other_not() {
    // Fatal encoding, replacement decoding: U+FFFD is unmappable in windows-1252.
    let output = run(&["convert", "--encode-errors", "fatal", "-t", "windows-1252"], b"a\xFFb");
    assert_eq!(code(&output), 1);
    assert!(stderr(&output).contains("U+FFFD"), "{}", stderr(&output));
    // Fatal decoding, html encoding.
    let output = run(&["convert", "--decode-errors", "fatal", "-t", "windows-1252"], "☃\u{20AC}".as_bytes());
    assert_eq!(code(&output), 0);
    assert_eq!(output.stdout, b"&#9731;\x80");
    // --errors fatal with one side set back.
    let output = run(&["convert", "--errors", "fatal", "--encode-errors", "html", "-t", "latin1"], "☃".as_bytes());
    assert_eq!(code(&output), 0);
    assert_eq!(output.stdout, b"&#9731;");
}

#[test]
fn drop_mode_skips_both_kinds_of_error() {
    let output = run(&["convert", "-c", "-f", "utf-8", "-t", "koi8-r"], b"\xD0\x9F\xFF\xE2\x98\x83!");
    assert_eq!(code(&output), 0);
    assert_eq!(output.stdout, b"\xF0!");
    assert_eq!(stderr(&output), "");
    // -c conflicts with --errors.
    assert_eq!(code(&run(&["convert", "-c", "--errors", "fatal"], b"")), 2);
}

#[test]
fn files_in_order_each_with_its_own_bom() {
    let dir = TempDir::new();
    let a = dir.file("a.txt", b"\xE9\n");
    let b = dir.file("b.txt", b"\xFF\xFEx\x00\n\x00");
    let output = run(&["convert", "-f", "latin1", &a, "-", &b], b"\xE8\n");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "é\nè\nx\n");
}

#[test]
fn output_file_is_written_whole_or_not_at_all() {
    let dir = TempDir::new();
    let input = dir.file("in.txt", "héllo ☃\n".as_bytes());
    let out = dir.join("out.txt");
    let output = run(&["convert", "-t", "latin1", "-o", &out, &input], b"");
    assert_eq!(code(&output), 0);
    assert!(output.stdout.is_empty());
    assert_eq!(std::fs::read(&out).unwrap(), b"h\xE9llo &#9731;\n");
    assert_eq!(dir.names(), ["in.txt", "out.txt"], "no temporary file is left");

    // Fatal error: the partial output is removed, and an existing OUT is untouched.
    let output = run(&["convert", "--errors", "fatal", "-t", "latin1", "-o", &out, &input], b"");
    assert_eq!(code(&output), 1);
    assert_eq!(std::fs::read(&out).unwrap(), b"h\xE9llo &#9731;\n");
    assert_eq!(dir.names(), ["in.txt", "out.txt"]);
    let fresh = dir.join("fresh.txt");
    let output = run(&["convert", "--errors", "fatal", "-t", "latin1", "-o", &fresh, &input], b"");
    assert_eq!(code(&output), 1);
    assert!(!std::path::Path::new(&fresh).exists());
    assert_eq!(dir.names(), ["in.txt", "out.txt"]);

    // --keep-partial keeps the valid prefix.
    let output = run(&["convert", "--errors", "fatal", "-t", "latin1", "--keep-partial", "-o", &fresh, &input], b"");
    assert_eq!(code(&output), 1);
    assert_eq!(std::fs::read(&fresh).unwrap(), b"h\xE9llo ");
    // --keep-partial needs -o.
    assert_eq!(code(&run(&["convert", "--keep-partial"], b"")), 2);
}

#[test]
fn output_may_replace_an_input() {
    let dir = TempDir::new();
    let file = dir.file("text.txt", b"caf\xE9\n");
    let output = run(&["convert", "-f", "latin1", "-o", &file, &file], b"");
    assert_eq!(code(&output), 0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "café\n");
    assert_eq!(dir.names(), ["text.txt"]);
}

#[test]
fn io_errors_are_one_line_and_exit_2() {
    let dir = TempDir::new();
    let missing = dir.join("missing.txt");
    let output = run(&["convert", &missing], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot read '{missing}': no such file or directory\n"));

    let output = run(&["convert", dir.path().to_str().unwrap()], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot read '{}': is a directory\n", dir.path().display()));

    // A missing file among several: the others are converted, the missing one is
    // reported, and the exit status is 2 at the end, as iconv does.
    let good = dir.file("good.txt", b"x");
    let out = dir.join("out.txt");
    let output = run(&["convert", "-o", &out, &missing, &good, &missing], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(std::fs::read(&out).unwrap(), b"x");
    assert_eq!(stderr(&output).lines().count(), 2, "{}", stderr(&output));
    let output = run(&[&good, &missing, &good], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(output.stdout, b"xx");
    assert_eq!(stderr(&output), format!("whatenc: cannot read '{missing}': no such file or directory\n"));
    // Only missing files: no output file is made.
    let none = dir.join("none.txt");
    assert_eq!(code(&run(&["convert", "-o", &none, &missing], b"")), 2);
    assert!(!std::path::Path::new(&none).exists());
    std::fs::remove_file(&out).unwrap();

    // An output directory that does not exist.
    let nowhere = dir.join("no/such/dir/out.txt");
    let output = run(&["convert", "-o", &nowhere, &good], b"");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).starts_with(&format!("whatenc: cannot write '{nowhere}': ")), "{}", stderr(&output));
    assert_eq!(stderr(&output).lines().count(), 1);

    // -o naming a directory.
    let output = run(&["convert", "-o", dir.path().to_str().unwrap(), &good], b"");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("is a directory"));
}

#[cfg(unix)]
#[test]
fn unreadable_file_is_a_permission_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new();
    let secret = dir.file("secret.txt", b"x");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    let output = run(&["convert", &secret], b"");
    if std::fs::File::open(&secret).is_ok() {
        // Running as root: permissions do not stop reading, and the file converts.
        assert_eq!(code(&output), 0);
        return;
    }
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot read '{secret}': permission denied\n"));
}

#[test]
fn progress_bar_only_when_asked_or_on_a_terminal() {
    // Standard error is a pipe here: no bar by default.
    let input = vec![b'a'; 1 << 20];
    let output = run(&["convert"], &input);
    assert_eq!(stderr(&output), "");
    // --progress always draws it (and erases it at the end).
    let output = run(&["convert", "--progress", "always"], &input);
    assert_eq!(code(&output), 0);
    let bar = stderr(&output);
    assert!(bar.contains("B/s"), "{bar:?}");
    assert!(bar.ends_with("\r\x1B[K"), "{bar:?}");
    assert_eq!(output.stdout.len(), 1 << 20);
    let dir = TempDir::new();
    let file = dir.file("in.txt", &input);
    let bar = stderr(&run(&["check", "--progress", "always", &file], b""));
    assert!(bar.contains("/ 1.0 MB") && bar.contains("ETA"), "{bar:?}");
}

#[test]
fn progress_bar_not_drawn_into_the_text_on_one_terminal() {
    let script_runs = std::process::Command::new("script").arg("--version").output().is_ok_and(|o| o.status.success());
    if !script_runs {
        eprintln!("skipped: util-linux `script` is needed to run the command on a terminal");
        return;
    }
    let dir = TempDir::new();
    // 70 MB (over the bar's 64 MB threshold), sparse: made at once. Decoded with the
    // replacement encoding, it becomes one U+FFFD: little output, however large.
    let big = dir.join("big.bin");
    std::fs::File::create(&big).unwrap().set_len(70 << 20).unwrap();
    let bin = env!("CARGO_BIN_EXE_whatenc");
    let on_terminal = |redirect: &str| {
        let log = dir.join("log");
        let command = format!("{bin} -f hz-gb-2312 --errors replacement -q {big} {redirect}");
        let status = std::process::Command::new("script")
            .args(["-q", "-e", "-c", &command, &log])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned()
    };
    // Standard output and standard error the same terminal: no bar in the text.
    let shared = on_terminal("");
    assert!(shared.contains('\u{FFFD}') && !shared.contains("B/s"), "{shared:?}");
    // Standard output elsewhere: the bar is drawn on the terminal.
    let bar = on_terminal("> /dev/null");
    assert!(bar.contains("B/s") && bar.contains("/ 73.4 MB"), "{bar:?}");
}
