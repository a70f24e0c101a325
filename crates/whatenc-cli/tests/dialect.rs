//! Nothing lost silently (the summary of replacements, `-q`, `--strict`, the
//! warnings for labels that are windows-1252) and iconv's dialect (`--from-code`,
//! `--to-code`, `-s`, `-c`, `//TRANSLIT`, `whatenc FILE`, piped input, well-known
//! names that are not labels, `--bom`). The real binary on real files and pipes.

mod common;

use std::process::Stdio;

use common::{TempDir, code, run, stderr, stdout};

#[test]
fn replacements_are_summed_up_on_standard_error() {
    // Malformed input: the count, and the first one's byte offset, line and column.
    let output = run(&["-f", "shift_jis"], b"ok\n\x82\xa0x\xFF\x82\n\xFF");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "ok\nあx\u{FFFD}\u{FFFD}\n\u{FFFD}");
    assert_eq!(
        stderr(&output),
        "whatenc: <stdin>: 3 malformed sequences replaced with U+FFFD (first at byte 6, line 2:3)\n"
    );
    // Unmappable text: the count and the first character.
    let output = run(&["-t", "shift_jis"], "あ〜a".as_bytes());
    assert_eq!(output.stdout, b"\x82\xa0&#12316;a");
    assert_eq!(stderr(&output), "whatenc: <stdin>: 1 character written as &#12316; (U+301C)\n");
    let output = run(&["-t", "euc-kr"], "😀 가 😀".as_bytes());
    assert_eq!(output.stdout, b"&#128512; \xB0\xA1 &#128512;");
    assert_eq!(stderr(&output), "whatenc: <stdin>: 2 characters written as &#N; (the first &#128512;, U+1F600)\n");
    // Both, per file, named.
    let dir = TempDir::new();
    let a = dir.file("a.txt", "é\n\u{0100}".as_bytes());
    let b = dir.file("b.txt", b"fine");
    let output = run(&["-t", "latin1", "-q", &a, &b], b"");
    assert_eq!(stderr(&output), "", "-q silences the summary and the label warning");
    let output = run(&["--to-code=windows-1252", &a, &b], b"");
    assert_eq!(output.stdout, b"\xE9\n&#256;fine");
    assert_eq!(stderr(&output), format!("whatenc: {a}: 1 character written as &#256; (U+0100)\n"));
    let output = run(&["-f", "utf-8", "-t", "windows-1252"], b"\xC3");
    assert_eq!(output.stdout, b"&#65533;");
    assert_eq!(
        stderr(&output),
        "whatenc: <stdin>: 1 malformed sequence replaced with U+FFFD (first at byte 0, line 1:1); 1 character \
         written as &#65533; (U+FFFD)\n"
    );
    // ISO-2022-JP writes &#65533; for ESC, as its html mode does, and returns to ASCII.
    let output = run(&["-t", "iso-2022-jp"], "日\u{1B}".as_bytes());
    assert_eq!(output.stdout, b"\x1B$BF|\x1B(B&#65533;");
    // Nothing replaced, nothing said.
    assert_eq!(stderr(&run(&["-t", "windows-1252"], "é".as_bytes())), "");
}

#[test]
fn silent_spellings_and_strict() {
    for quiet in ["-q", "--quiet", "-s", "--silent"] {
        let output = run(&["convert", quiet], b"\xFF");
        assert_eq!((code(&output), stderr(&output)), (0, String::new()), "{quiet}");
        assert_eq!(stdout(&output), "\u{FFFD}");
    }
    // --strict: either kind of replacement exits 1.
    let output = run(&["--strict"], b"\xFF");
    assert_eq!(code(&output), 1);
    assert!(stderr(&output).contains("1 malformed sequence"));
    let output = run(&["--strict", "-t", "koi8-r"], "☃".as_bytes());
    assert_eq!(code(&output), 1);
    assert_eq!(code(&run(&["--strict", "-t", "koi8-r"], "Привет".as_bytes())), 0);
    // With -o, a lossy conversion leaves the target as it was.
    let dir = TempDir::new();
    let target = dir.file("out.txt", b"before");
    let output = run(&["--strict", "-q", "-o", &target], b"a\xFFb");
    assert_eq!(code(&output), 1);
    assert_eq!(stderr(&output), format!("whatenc: {target}: left as it was: text was replaced (--strict)\n"));
    assert_eq!(std::fs::read(&target).unwrap(), b"before");
    assert_eq!(dir.names(), ["out.txt"]);
}

#[test]
fn labels_that_are_windows_1252_are_named() {
    for label in ["ascii", "US-ASCII", "latin1", "iso-8859-1", "l1", "iso_8859-1:1987"] {
        let output = run(&["-t", label], b"x");
        assert_eq!(code(&output), 0);
        let warning = stderr(&output);
        assert!(
            warning.starts_with(&format!("whatenc: warning: '{label}' is windows-1252 in the Encoding Standard")),
            "{label}: {warning}"
        );
        assert_eq!(warning.lines().count(), 1);
    }
    for label in ["windows-1252", "cp1252", "iso-8859-2"] {
        assert_eq!(stderr(&run(&["-t", label], b"x")), "", "{label}");
    }
}

#[test]
fn iconv_spellings_of_options() {
    let output = run(&["--from-code", "latin1", "--to-code", "utf-8"], b"\xE9");
    assert_eq!((code(&output), stdout(&output)), (0, "é".to_string()));
    let output = run(&["--from-code=koi8-r"], b"\xF0");
    assert_eq!(stdout(&output), "П");
    let output = run(&["check", "--from-code", "shift_jis"], b"\x82\xa0");
    assert_eq!(code(&output), 0);
    // Any option of convert first implies convert.
    for args in [
        &["--no-bom-sniff"][..],
        &["--progress", "never"][..],
        &["--strict"][..],
        &["-q"][..],
        &["--bom", "-q"][..],
        &["-c"][..],
        &["--errors=fatal"][..],
    ] {
        let output = run(args, b"ok");
        assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
        assert!(stdout(&output).ends_with("ok"), "{args:?}");
    }
    let dir = TempDir::new();
    let out = dir.join("out.txt");
    let output = run(&["--keep-partial", "-o", &out, "--errors", "fatal"], b"ok\xFF");
    assert_eq!(code(&output), 1);
    assert_eq!(std::fs::read(&out).unwrap(), b"ok");
}

#[test]
fn files_and_piped_input_convert_without_the_command() {
    let dir = TempDir::new();
    let a = dir.file("a.txt", b"caf\xE9\n");
    let output = run(&[&a, &a], b"");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "caf\u{FFFD}\ncaf\u{FFFD}\n");
    // Piped input with no arguments at all.
    let output = run(&[], "日本".as_bytes());
    assert_eq!((code(&output), stdout(&output)), (0, "日本".to_string()));
    // A file as standard input too.
    let output = common::whatenc().stdin(std::fs::File::open(&a).unwrap()).stdout(Stdio::piped()).output().unwrap();
    assert_eq!(output.stdout, "caf\u{FFFD}\n".as_bytes());
    // A file named like a command is a command; `./list` is a file.
    std::fs::write(dir.path().join("list"), b"x").unwrap();
    let output = common::run_in(Some(dir.path()), &["./list"], b"");
    assert_eq!(stdout(&output), "x");
}

#[test]
fn translit_only_where_nothing_needs_it() {
    for to in ["utf-8//TRANSLIT", "UTF-8//translit", "utf-16le//TRANSLIT", "utf-8//TRANSLIT//IGNORE"] {
        let output = run(&["-f", "latin1", "-t", to], b"\xE9");
        assert_eq!(code(&output), 0, "{to}: {}", stderr(&output));
        assert_eq!(stdout(&output), "é", "{to}");
    }
    let output = run(&["-t", "utf-16be//TRANSLIT", "--utf16-output"], b"a");
    assert_eq!(output.stdout, b"\x00a");
    let output = run(&["-t", "koi8-r//TRANSLIT"], "☃".as_bytes());
    assert_eq!(code(&output), 2);
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(message.contains("no transliteration") && message.contains("&#N;") && message.contains("-c"), "{message}");
}

#[test]
fn well_known_names_are_suggested_never_accepted() {
    let cases = [
        ("cp936", "GBK"),
        ("euc-cn", "GBK"),
        ("EUC_CN", "GBK"),
        ("cp949", "EUC-KR"),
        ("uhc", "EUC-KR"),
        ("ujis", "EUC-JP"),
        ("cp932", "Shift_JIS"),
        ("latin9", "ISO-8859-15"),
    ];
    for (name, encoding) in cases {
        for option in ["-f", "-t"] {
            let output = run(&[option, name], b"x");
            assert_eq!(code(&output), 2, "{name}");
            assert!(output.stdout.is_empty());
            let lower = encoding.to_ascii_lowercase();
            assert_eq!(
                stderr(&output),
                format!(
                    "whatenc: unknown encoding label '{name}'; in the Encoding Standard that is {encoding}: use \
                     '{lower}'\n"
                )
            );
        }
    }
    for name in ["utf-32", "UTF-7", "cp437", "EBCDIC", "ebcdic-us", "UCS-4"] {
        let output = run(&["-f", name], b"x");
        assert_eq!(code(&output), 2, "{name}");
        assert!(stderr(&output).ends_with(&format!("'{name}' is not part of the Encoding Standard\n")), "{name}");
    }
    // windows-949 is a label of the standard (EUC-KR).
    assert_eq!(run(&["-t", "windows-949"], "가".as_bytes()).stdout, b"\xB0\xA1");
    // Typos still get the nearest labels; different digits are not typos.
    let output = run(&["-f", "cp866x"], b"x");
    assert!(stderr(&output).contains("did you mean 'cp866' (IBM866)?"), "{}", stderr(&output));
    assert!(!stderr(&run(&["-f", "cp855"], b"x")).contains("did you mean"));
}

#[test]
fn bom_is_written_when_asked_for() {
    let output = run(&["--bom", "-f", "latin1"], b"\xE9");
    assert_eq!(output.stdout, b"\xEF\xBB\xBF\xC3\xA9");
    let output = run(&["--bom", "-t", "utf-16le", "--utf16-output"], b"a");
    assert_eq!(output.stdout, b"\xFF\xFEa\x00");
    let output = run(&["--bom", "-t", "utf-16be", "--utf16-output"], b"a");
    assert_eq!(output.stdout, b"\xFE\xFF\x00a");
    // iconv's -t utf-16 writes a BOM: so does -t utf-16 --utf16-output.
    let output = run(&["-t", "utf-16", "--utf16-output"], b"a");
    assert_eq!(output.stdout, b"\xFF\xFEa\x00");
    // Once per output, whatever the number of inputs.
    let dir = TempDir::new();
    let a = dir.file("a.txt", b"a");
    assert_eq!(run(&["--bom", &a, &a], b"").stdout, b"\xEF\xBB\xBFaa");
    // Not for a legacy encoding.
    let output = run(&["--bom", "-t", "koi8-r"], b"a");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("--bom needs UTF-8 or UTF-16 output"));
}

#[test]
fn counts_are_exact_across_reads_and_literal_references() {
    // Literal "&#" in the text is not a replacement; real ones are counted in every
    // read of a 3 MB input.
    let line = "&#65; stays, ☃ does not; Γ&#\n";
    let text = line.repeat(100_000);
    for (to, first) in
        [("windows-1252", "&#9731;, U+2603"), ("shift_jis", "&#9731;, U+2603"), ("iso-2022-jp", "&#9731;, U+2603")]
    {
        let output = run(&["-t", to], text.as_bytes());
        assert_eq!(code(&output), 0);
        let expected = if to == "windows-1252" { 200_000 } else { 100_000 };
        assert_eq!(
            stderr(&output),
            format!("whatenc: <stdin>: {expected} characters written as &#N; (the first {first})\n"),
            "{to}"
        );
    }
    // Malformed sequences too, with the first one's line and column.
    let mut bytes = "ok\n".repeat(50_000).into_bytes();
    for i in 0..1000 {
        bytes.extend_from_slice(if i % 2 == 0 { b"a\xFF\n" } else { b"\xC3(\n" });
    }
    let output = run(&[], &bytes);
    assert_eq!(
        stderr(&output),
        "whatenc: <stdin>: 1000 malformed sequences replaced with U+FFFD (first at byte 150001, line 50001:2)\n"
    );
}
