//! `whatenc` help, list, label, sniff, check, completions and man, run as a user
//! would: the real binary on real files and pipes.

mod common;

use common::{TempDir, code, run, stderr, stdout};

#[test]
fn help_shows_examples_for_every_command() {
    let output = run(&["--help"], b"");
    assert_eq!(code(&output), 0);
    let help = stdout(&output);
    assert!(help.contains("Examples:"), "{help}");
    for command in ["convert", "check", "list", "label", "sniff", "completions", "man"] {
        assert!(help.contains(&format!("whatenc {command}")), "no example of {command} in --help");
        let output = run(&[command, "--help"], b"");
        assert_eq!(code(&output), 0, "{command} --help");
        assert!(stdout(&output).contains("Examples:"), "{command} --help has no examples");
    }
    let output = run(&["help", "convert"], b"");
    assert!(stdout(&output).contains("--errors"));
}

#[test]
fn version_and_usage_errors() {
    let output = run(&["--version"], b"");
    assert_eq!(code(&output), 0);
    assert!(stdout(&output).starts_with("whatenc "));
    // No command and no piped input: usage on stderr, exit 2.
    let output = common::whatenc().stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("Usage:"), "{}", stderr(&output));
    // A first argument that is not a command is a file to convert, as in iconv.
    let output = run(&["frobnicate"], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), "whatenc: cannot read 'frobnicate': no such file or directory\n");
    assert_eq!(code(&run(&["convert", "--errors", "sometimes"], b"")), 2);
    assert_eq!(code(&run(&["label"], b"")), 2);
    assert_eq!(code(&run(&["check", "--bogus"], b"")), 2);
}

#[test]
fn list_is_a_table_of_every_encoding() {
    let output = run(&["list"], b"");
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 41, "a header and 40 encodings");
    assert!(lines[0].starts_with("ENCODING"));
    let shift_jis = lines.iter().find(|l| l.starts_with("Shift_JIS ")).unwrap();
    for label in ["sjis", "ms932", "windows-31j", "shift-jis"] {
        assert!(shift_jis.split_whitespace().any(|w| w == label), "{shift_jis}");
    }
    let utf16 = lines.iter().find(|l| l.starts_with("UTF-16LE ")).unwrap();
    assert_eq!(utf16.split_whitespace().nth(1), Some("UTF-8"), "output encoding column: {utf16}");
    // The iconv spelling.
    let iconv = run(&["-l"], b"");
    assert_eq!(code(&iconv), 0);
    assert_eq!(iconv.stdout, output.stdout);
}

#[test]
fn list_json_has_all_228_labels() {
    let output = run(&["list", "--json"], b"");
    assert_eq!(code(&output), 0);
    let json = stdout(&output);
    assert!(json.trim_start().starts_with('[') && json.trim_end().ends_with(']'));
    let mut labels = 0;
    let mut names = Vec::new();
    for line in json.lines().filter(|l| l.contains("\"name\"")) {
        let name = line.split("\"name\": \"").nth(1).unwrap().split('"').next().unwrap();
        names.push(name.to_string());
        let list = line.split("\"labels\": [").nth(1).unwrap().split(']').next().unwrap();
        labels += list.split(", ").count();
        let encoding = whatenc::Encoding::for_label_str(name)
            .or_else(|| whatenc::Encoding::all().iter().copied().find(|e| e.name() == name));
        let encoding = encoding.unwrap();
        assert!(line.contains(&format!("\"has_encoder\": {}", encoding.has_encoder())), "{line}");
    }
    assert_eq!(names.len(), 40);
    assert_eq!(labels, 228);
    assert!(json.contains("\"name\": \"replacement\""));
}

#[test]
fn label_shows_the_encoding_and_its_output_encoding() {
    let output = run(&["label", "latin1"], b"");
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    assert!(text.contains("encoding         windows-1252"), "{text}");
    assert!(text.contains("output encoding  windows-1252"), "{text}");

    let text = stdout(&run(&["label", " UTF-16 "], b""));
    assert!(text.contains("encoding         UTF-16LE"), "{text}");
    assert!(text.contains("output encoding  UTF-8"), "{text}");
    assert!(text.contains("encoder          none"), "{text}");

    let text = stdout(&run(&["label", "iso-2022-kr"], b""));
    assert!(text.contains("encoding         replacement"), "{text}");
}

#[test]
fn unknown_label_suggests_the_nearest_labels() {
    let output = run(&["label", "shift-jiss"], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(
        stderr(&output),
        "whatenc: unknown encoding label 'shift-jiss'; did you mean 'shift-jis' (Shift_JIS)?\n"
    );
    assert!(output.stdout.is_empty());

    let output = run(&["convert", "-f", "windows1252"], b"x");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("did you mean 'windows-1252' (windows-1252)?"), "{}", stderr(&output));

    let output = run(&["convert", "-t", "utf-32"], b"x");
    assert_eq!(code(&output), 2);
    assert_eq!(
        stderr(&output),
        "whatenc: unknown encoding label 'utf-32': 'utf-32' is not part of the Encoding Standard\n"
    );

    let output = run(&["check", "-f", "no-such-encoding-at-all"], b"x");
    assert_eq!(code(&output), 2);
    assert_eq!(
        stderr(&output),
        "whatenc: unknown encoding label 'no-such-encoding-at-all'; `whatenc list` shows every label\n"
    );
}

#[test]
fn sniff_reports_each_bom() {
    let dir = TempDir::new();
    let utf8 = dir.file("utf8.txt", b"\xEF\xBB\xBFhi");
    let be = dir.file("be.txt", b"\xFE\xFF\x00h");
    let le = dir.file("le.txt", b"\xFF\xFEh\x00");
    let none = dir.file("none.txt", b"\xEF\xBB");
    let empty = dir.file("empty.txt", b"");
    let output = run(&["sniff", &utf8, &be, &le, &none, &empty], b"");
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("{utf8}: UTF-8 (certain, BOM EF BB BF)"));
    assert_eq!(lines[1], format!("{be}: UTF-16BE (certain, BOM FE FF)"));
    assert_eq!(lines[2], format!("{le}: UTF-16LE (certain, BOM FF FE)"));
    // Half a BOM is no BOM: the rest of the determination decides (here the
    // statistical detector, on two bytes), tentatively.
    assert!(lines[3].starts_with(&format!("{none}: ")), "{}", lines[3]);
    assert!(lines[3].contains("(tentative, ") && !lines[3].contains("BOM"), "{}", lines[3]);
    assert_eq!(lines[4], format!("{empty}: UTF-8 (tentative, default)"));
    // Standard input, with no FILE or with `-`.
    assert_eq!(stdout(&run(&["sniff"], b"\xFF\xFEx\x00")), "<stdin>: UTF-16LE (certain, BOM FF FE)\n");
    assert_eq!(stdout(&run(&["sniff", "-"], b"abc")), "<stdin>: UTF-8 (tentative, default)\n");
    // A missing file is an I/O error.
    let output = run(&["sniff", &dir.join("missing")], b"");
    assert_eq!(code(&output), 2);
}

#[test]
fn check_reports_every_malformed_sequence() {
    let dir = TempDir::new();
    // Shift_JIS: line 1 fine, line 2 has a lone lead byte then a bad trail, line 3
    // ends with a truncated sequence.
    let file = dir.file("bad.sjis", b"\x82\xa0ok\nx\x81\x20y\xa0\n\x82");
    let output = run(&["check", "-f", "shift_jis", &file], b"");
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{file}:2:2: byte offset 6: malformed sequence 81 (1 byte)"),
            format!("{file}:2:5: byte offset 9: malformed sequence A0 (1 byte)"),
            format!("{file}:3:1: byte offset 11: malformed sequence 82 (1 byte)"),
            format!("{file}: 3 malformed sequences (Shift_JIS)"),
        ]
    );
    // --quiet: the summary only.
    let output = run(&["check", "-q", "-f", "sjis", &file], b"");
    assert_eq!(code(&output), 1);
    assert_eq!(stdout(&output), format!("{file}: 3 malformed sequences (Shift_JIS)\n"));

    // A valid file: exit 0.
    let good = dir.file("good.txt", "héllo\n".as_bytes());
    let output = run(&["check", &good], b"");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), format!("{good}: ok (UTF-8, 7 bytes)\n"));

    // Several files, standard input among them: exit 1 if any has errors.
    let output = run(&["check", &good, "-", &file], b"a\xC3(");
    assert_eq!(code(&output), 1);
    let text = stdout(&output);
    assert!(text.contains("<stdin>:1:2: byte offset 1: malformed sequence C3 (1 byte)\n"), "{text}");
    assert!(text.contains("<stdin>: 1 malformed sequence (UTF-8)\n"), "{text}");
}

#[test]
fn check_multibyte_errors_show_all_their_bytes() {
    // UTF-8: E2 82 then a non-continuation byte: one error of two bytes.
    let output = run(&["check", "-f", "utf-8"], b"ab\xE2\x82Z\n\xF0\x9F\x98");
    assert_eq!(code(&output), 1);
    let text = stdout(&output);
    assert!(text.contains("<stdin>:1:3: byte offset 2: malformed sequence E2 82 (2 bytes)\n"), "{text}");
    assert!(text.contains("<stdin>:2:1: byte offset 6: malformed sequence F0 9F 98 (3 bytes)\n"), "{text}");
}

#[test]
fn check_positions_across_read_boundaries() {
    // A two-byte error straddling the 128 KiB read boundary, far into line 2.
    let dir = TempDir::new();
    let mut bytes = b"first line\n".to_vec();
    bytes.resize(128 * 1024 - 1, b'a');
    bytes.extend_from_slice(b"\xE2\x82Z tail");
    let file = dir.file("big.txt", &bytes);
    let output = run(&["check", &file], b"");
    assert_eq!(code(&output), 1);
    let offset = 128 * 1024 - 1;
    let column = offset - 11 + 1;
    assert_eq!(
        stdout(&output).lines().next().unwrap(),
        format!("{file}:2:{column}: byte offset {offset}: malformed sequence E2 82 (2 bytes)")
    );
}

#[test]
fn check_follows_the_bom_unless_told_not_to() {
    let dir = TempDir::new();
    let file = dir.file("bom.txt", "\u{FEFF}日本".as_bytes());
    let output = run(&["check", "-f", "shift_jis", &file], b"");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), format!("{file}: ok (UTF-8, from its BOM, 9 bytes)\n"));
    let output = run(&["check", "--no-bom-sniff", "-f", "shift_jis", &file], b"");
    assert_eq!(code(&output), 1);
    assert!(stdout(&output).contains("malformed sequence"));
}

#[test]
fn check_reports_missing_files_and_directories() {
    let dir = TempDir::new();
    let missing = dir.join("missing.txt");
    let output = run(&["check", &missing], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot read '{missing}': no such file or directory\n"));
    let output = run(&["check", dir.path().to_str().unwrap()], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stderr(&output), format!("whatenc: cannot read '{}': is a directory\n", dir.path().display()));
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let output = run(&["completions", shell], b"");
        assert_eq!(code(&output), 0, "{shell}");
        let script = stdout(&output);
        assert!(script.contains("whatenc"), "{shell}");
        assert!(script.contains("convert") && script.contains("--errors"), "{shell}");
    }
    assert_eq!(code(&run(&["completions", "tcsh"], b"")), 2);
}

#[test]
fn man_page_covers_every_command() {
    let output = run(&["man"], b"");
    assert_eq!(code(&output), 0);
    let page = stdout(&output);
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "{}", &page[..80.min(page.len())]);
    assert!(page.contains(".TH whatenc"));
    for command in ["CONVERT", "CHECK", "LIST", "LABEL", "SNIFF", "COMPLETIONS"] {
        assert!(page.contains(&format!(".SH \"WHATENC {command}\"")), "no section for {command}");
    }
    assert!(page.contains("keep\\-partial"), "convert's options are in the page");
}

#[test]
fn stdout_closed_early_is_quiet() {
    // `list` into a reader that has gone: no panic, no message.
    let mut child = common::whatenc()
        .args(["list", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 0);
    assert_eq!(stderr(&output), "");
}
