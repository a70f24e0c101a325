//! Encoding determination from the command line, run as a user would: `whatenc
//! sniff` in every context, with `--as`, `--content-type`, `--locale`, `--json`
//! and standard input; `convert -f auto` and `check -f auto`, on files, in place
//! and on a large pipe.

mod common;

use std::io::{Read, Write};
use std::process::Stdio;

use common::{TempDir, code, peak_rss_kb, run, stderr, stdout};

/// `text` encoded in `encoding`, exactly (no character may be unmappable).
fn encoded(encoding: &'static whatenc::Encoding, text: &str) -> Vec<u8> {
    let (bytes, unmappable) = encoding.encode(text).unwrap();
    assert!(!unmappable, "{text:?} is all in {}", encoding.name());
    bytes.into_owned()
}

/// The Japanese page used throughout: its `<meta>` is at byte 15.
const PAGE: &str = "<!doctype html><meta charset=\"shift_jis\"><p>日本語のページ</p>\n";

/// `whatenc sniff ARGS` on no input, expecting success; its standard output.
fn sniff(args: &[&str]) -> String {
    let mut all = vec!["sniff"];
    all.extend_from_slice(args);
    let output = run(&all, b"");
    assert_eq!(code(&output), 0, "{args:?}: {}", stderr(&output));
    stdout(&output)
}

#[test]
fn sniff_determines_in_each_context_from_the_extension() {
    let dir = TempDir::new();
    let html = dir.file("page.html", &encoded(whatenc::SHIFT_JIS, PAGE));
    let htm = dir.file("OLD.HTM", b"<html><head><meta http-equiv=Content-Type content='text/html; charset=euc-kr'>");
    let xml = dir.file("feed.xml", b"<?xml version=\"1.0\" encoding=\"euc-jp\"?><a/>");
    let xhtml = dir.file("page.xhtml", b"<?xml version='1.0' encoding='windows-1251'?><html/>");
    let svg = dir.file("pic.svg", b"<svg/>");
    let utf16_xml = dir.file("utf16.xml", b"<\0?\0x\0m\0l\0 \0?\0>\0");
    let css = dir.file("style.css", b"@charset \"koi8-r\"; a { content: '\xC1' }");
    let css_single_quotes = dir.file("quotes.css", b"@charset 'koi8-r'; a{}");
    let text = dir.file("notes.txt", b"<meta charset=gbk> is not looked at in text");
    let other = dir.file("README", b"<meta charset=gbk>");
    let out = sniff(&[&html, &htm, &xml, &xhtml, &svg, &utf16_xml, &css, &css_single_quotes, &text, &other]);
    let expected = [
        format!("{html}: Shift_JIS (tentative, <meta> at byte 15)"),
        format!("{htm}: EUC-KR (tentative, <meta> at byte 12)"),
        format!("{xml}: EUC-JP (certain, XML declaration)"),
        format!("{xhtml}: windows-1251 (certain, XML declaration)"),
        format!("{svg}: UTF-8 (certain, default)"),
        format!("{utf16_xml}: UTF-16LE (certain, UTF-16 XML declaration)"),
        format!("{css}: KOI8-R (certain, @charset)"),
        format!("{css_single_quotes}: UTF-8 (certain, default)"),
        format!("{text}: UTF-8 (tentative, default)"),
        format!("{other}: UTF-8 (tentative, default)"),
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn sniff_as_overrides_the_extension() {
    let dir = TempDir::new();
    let text = dir.file("notes.txt", b"<p><meta charset=gbk>");
    let html = dir.file("page.html", b"<?xml version='1.0' encoding='koi8-r'?><meta charset=gbk>");
    let css = dir.file("x.txt", b"@charset \"windows-1253\";");
    assert_eq!(sniff(&["--as", "html", &text]), format!("{text}: GBK (tentative, <meta> at byte 3)\n"));
    assert_eq!(sniff(&["--as", "text", &text]), format!("{text}: UTF-8 (tentative, default)\n"));
    // In HTML, the prescan skips an XML declaration (`<?...>`) and reads the
    // <meta>; as XML, the declaration decides.
    assert_eq!(sniff(&[&html]), format!("{html}: GBK (tentative, <meta> at byte 39)\n"));
    assert_eq!(sniff(&["--as", "xml", &html]), format!("{html}: KOI8-R (certain, XML declaration)\n"));
    assert_eq!(sniff(&["--as", "css", &css]), format!("{css}: windows-1253 (certain, @charset)\n"));
    // An unknown kind is a usage error.
    let output = run(&["sniff", "--as", "pdf", &text], b"");
    assert_eq!(code(&output), 2);
}

#[test]
fn sniff_content_type_wins_over_meta_and_a_bom_over_both() {
    let dir = TempDir::new();
    let html = dir.file("page.html", &encoded(whatenc::SHIFT_JIS, PAGE));
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(PAGE.as_bytes());
    let bom = dir.file("bom.html", &with_bom);
    let header = "text/html; charset=euc-kr";
    assert_eq!(
        sniff(&["--content-type", header, &html, &bom]),
        format!("{html}: EUC-KR (certain, Content-Type charset)\n{bom}: UTF-8 (certain, BOM EF BB BF)\n")
    );
    // Parsed as Fetch does: quotes, case, and what follows a quoted string.
    let quoted = "Text/HTML;Charset=\"Shift_JIS\"iso-2022-jp";
    assert_eq!(sniff(&["--content-type", quoted, &bom]), format!("{bom}: UTF-8 (certain, BOM EF BB BF)\n"));
    let xml = dir.file("a.xml", b"<?xml version='1.0' encoding='gbk'?>");
    assert_eq!(sniff(&["--content-type", quoted, &xml]), format!("{xml}: Shift_JIS (certain, Content-Type charset)\n"));
    // Without a charset the header still gives the context: text/html makes a .txt
    // file (and standard input) HTML, so its <meta> is read.
    let txt = dir.file("page.txt", &encoded(whatenc::SHIFT_JIS, PAGE));
    assert_eq!(
        sniff(&["--content-type", "text/html", &txt]),
        format!("{txt}: Shift_JIS (tentative, <meta> at byte 15)\n")
    );
    let output = run(&["sniff", "--content-type", "text/html"], &encoded(whatenc::SHIFT_JIS, PAGE));
    assert_eq!(stdout(&output), "<stdin>: Shift_JIS (tentative, <meta> at byte 15)\n");
    // A charset that names no encoding is ignored, with a warning.
    let output = run(&["sniff", "--content-type", "text/html; charset=klingon", &html], b"");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), format!("{html}: Shift_JIS (tentative, <meta> at byte 15)\n"));
    assert!(stderr(&output).contains("charset 'klingon' is not a label"), "{}", stderr(&output));
    // A value that is not a MIME type is a usage error.
    let output = run(&["sniff", "--content-type", "html", &html], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(
        stderr(&output),
        "whatenc: --content-type 'html' is not a MIME type (such as 'text/html; charset=shift_jis')\n"
    );
}

#[test]
fn sniff_locale_gives_the_default() {
    let dir = TempDir::new();
    let ascii = dir.file("ascii.html", b"<p>plain ASCII, nothing declared");
    let utf8 = dir.file("utf8.txt", "Привет".as_bytes());
    let xml = dir.file("a.xml", b"<a/>");
    let cases = [
        ("ja", format!("{ascii}: Shift_JIS (tentative, locale default)")),
        ("zh-TW", format!("{ascii}: Big5 (tentative, locale default)")),
        ("ZH-hant-HK", format!("{ascii}: Big5 (tentative, locale default)")),
        ("zh-CN", format!("{ascii}: GBK (tentative, locale default)")),
        ("ru", format!("{ascii}: windows-1251 (tentative, locale default)")),
        ("fr-CA", format!("{ascii}: windows-1252 (tentative, locale default)")),
    ];
    for (locale, expected) in cases {
        assert_eq!(sniff(&["--locale", locale, &ascii]), format!("{expected}\n"), "{locale}");
    }
    // Valid UTF-8 that is not ASCII is UTF-8 before the locale is asked.
    assert_eq!(sniff(&["--locale", "ru", &utf8]), format!("{utf8}: UTF-8 (tentative, detector)\n"));
    // XML has no locale step.
    assert_eq!(sniff(&["--locale", "ja", &xml]), format!("{xml}: UTF-8 (certain, default)\n"));
    assert_eq!(code(&run(&["sniff", "--locale", " ", &xml], b"")), 2);
}

#[test]
fn sniff_json_parses_back() {
    let dir = TempDir::new();
    let html = dir.file("page.html", &encoded(whatenc::SHIFT_JIS, PAGE));
    // A name that needs escaping: a quote, a backslash, a tab and a newline.
    let weird = dir.file("we\"ird\\na\tme\n.css", b"\xFF\xFEa\0");
    let output = run(&["sniff", "--json", &html, &weird, "-"], b"<a>");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    let objects: Vec<serde_json::Value> = text.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(objects.len(), 3, "{text}");
    assert_eq!(
        objects[0],
        serde_json::json!({
            "file": html, "context": "html", "encoding": "Shift_JIS", "confidence": "tentative",
            "step": "meta", "position": 15, "bom": null, "reason": "<meta> at byte 15",
        })
    );
    assert_eq!(
        objects[1],
        serde_json::json!({
            "file": weird, "context": "css", "encoding": "UTF-16LE", "confidence": "certain",
            "step": "bom", "position": null, "bom": "FF FE", "reason": "BOM FF FE",
        })
    );
    assert_eq!(
        objects[2],
        serde_json::json!({
            "file": "<stdin>", "context": "text", "encoding": "UTF-8", "confidence": "tentative",
            "step": "default", "position": null, "bom": null, "reason": "default",
        })
    );
    // The exact text of one line.
    let output = run(&["sniff", "--json", "--content-type", "text/css;charset=gbk"], b"a{}");
    assert_eq!(
        stdout(&output),
        "{\"file\": \"<stdin>\", \"context\": \"css\", \"encoding\": \"GBK\", \"confidence\": \"certain\", \
         \"step\": \"transport\", \"position\": null, \"bom\": null, \"reason\": \"Content-Type charset\"}\n"
    );
}

#[test]
fn sniff_reads_standard_input() {
    let page = encoded(whatenc::SHIFT_JIS, PAGE);
    assert_eq!(stdout(&run(&["sniff", "--as", "html"], &page)), "<stdin>: Shift_JIS (tentative, <meta> at byte 15)\n");
    assert_eq!(
        stdout(&run(&["sniff", "--as", "html", "-"], &page)),
        "<stdin>: Shift_JIS (tentative, <meta> at byte 15)\n"
    );
    // Standard input is text unless told otherwise: no <meta> prescan, and the
    // statistical detector reads the bytes.
    assert_eq!(stdout(&run(&["sniff"], &page)), "<stdin>: Shift_JIS (tentative, detector)\n");
    assert_eq!(
        stdout(&run(&["sniff", "--as", "xml"], b"\0<\0?\0x")),
        "<stdin>: UTF-16BE (certain, UTF-16 XML declaration)\n"
    );
    // A <meta> past the first 1024 bytes is not seen; one whose `<` is within them is
    // read to its end.
    let mut late = vec![b' '; 1024];
    late.extend_from_slice(b"<meta charset=gbk>");
    assert_eq!(stdout(&run(&["sniff", "--as", "html"], &late)), "<stdin>: UTF-8 (tentative, default)\n");
    let mut straddling = vec![b' '; 1020];
    straddling.extend_from_slice(b"<meta charset=gbk>");
    assert_eq!(
        stdout(&run(&["sniff", "--as", "html"], &straddling)),
        "<stdin>: GBK (tentative, <meta> at byte 1020)\n"
    );
}

/// The sample files of `-f auto`, with the text each holds and the line `-f auto`
/// says about it.
fn auto_samples(dir: &TempDir) -> Vec<(String, String, String)> {
    let xml_text = "<?xml version=\"1.0\" encoding=\"EUC-JP\"?><doc>日本語</doc>\n";
    let css_text = "@charset \"windows-1251\";\nbody::before { content: \"Привет\" }\n";
    let utf16_text = "UTF-16 text: 中文 and ελληνικά\n";
    let plain_text = "déjà vu: valid UTF-8\n";
    let mut utf16 = b"\xFE\xFF".to_vec();
    for unit in utf16_text.encode_utf16() {
        utf16.extend_from_slice(&unit.to_be_bytes());
    }
    let samples = [
        ("page.html", encoded(whatenc::SHIFT_JIS, PAGE), PAGE, "Shift_JIS (tentative, <meta> at byte 15)"),
        ("utf16.txt", utf16, utf16_text, "UTF-16BE (certain, BOM FE FF)"),
        ("doc.xml", encoded(whatenc::EUC_JP, xml_text), xml_text, "EUC-JP (certain, XML declaration)"),
        ("style.css", encoded(whatenc::WINDOWS_1251, css_text), css_text, "windows-1251 (certain, @charset)"),
        ("plain.txt", plain_text.as_bytes().to_vec(), plain_text, "UTF-8 (tentative, detector)"),
    ];
    samples
        .into_iter()
        .map(|(name, bytes, text, why)| {
            let path = dir.file(name, &bytes);
            let line = format!("whatenc: {path}: decoding as {why}\n");
            (path, text.to_string(), line)
        })
        .collect()
}

#[test]
fn convert_auto_decodes_with_the_determination() {
    let dir = TempDir::new();
    for (path, text, line) in auto_samples(&dir) {
        let output = run(&["convert", "-f", "auto", &path], b"");
        assert_eq!(code(&output), 0, "{path}: {}", stderr(&output));
        assert_eq!(stdout(&output), text, "{path}");
        assert_eq!(stderr(&output), line, "{path}");
        // -q silences the line; iconv's spelling works too.
        let output = run(&["-f", "auto", "-q", &path], b"");
        assert_eq!((stdout(&output), stderr(&output)), (text.clone(), String::new()), "{path}");
        // To another encoding.
        let output = run(&["convert", "-f", "auto", "-t", "utf-16le", "--utf16-output", "-q", &path], b"");
        let units: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(output.stdout, units, "{path}");
    }
    // Several inputs: one line each, in order.
    let page = dir.join("page.html");
    let css = dir.join("style.css");
    let output = run(&["convert", "-f", "auto", &page, &css], b"");
    assert_eq!(
        stderr(&output),
        format!(
            "whatenc: {page}: decoding as Shift_JIS (tentative, <meta> at byte 15)\n\
             whatenc: {css}: decoding as windows-1251 (certain, @charset)\n"
        )
    );
    // --content-type and --locale reach the determination.
    let output = run(&["convert", "-f", "auto", "--content-type", "text/html;charset=euc-jp", &page], b"");
    assert_eq!(
        stderr(&output).lines().next().unwrap(),
        format!("whatenc: {page}: decoding as EUC-JP (certain, Content-Type charset)")
    );
    let ascii = dir.file("ascii.txt", b"abc\n");
    let output = run(&["convert", "-f", "auto", "--locale", "zh-TW", &ascii], b"");
    assert_eq!(stderr(&output), format!("whatenc: {ascii}: decoding as Big5 (tentative, locale default)\n"));
    // Standard input, with --as.
    let output = run(&["convert", "-f", "AUTO", "--as", "html"], &encoded(whatenc::SHIFT_JIS, PAGE));
    assert_eq!(stdout(&output), PAGE);
    assert_eq!(stderr(&output), "whatenc: <stdin>: decoding as Shift_JIS (tentative, <meta> at byte 15)\n");
}

#[test]
fn convert_auto_usage_and_refusals() {
    let dir = TempDir::new();
    let page = dir.file("page.html", b"<meta charset=iso-2022-kr><p>hidden");
    // The determination's options need -f auto.
    for args in [&["--as", "html"][..], &["--content-type", "text/html"][..], &["--locale", "ja"][..]] {
        let mut all = vec!["convert", "-f", "utf-8"];
        all.extend_from_slice(args);
        all.push(&page);
        let output = run(&all, b"");
        assert_eq!(code(&output), 2, "{args:?}");
        assert_eq!(stderr(&output), "whatenc: --as, --content-type and --locale need -f auto\n");
    }
    let output = run(&["check", "--as", "html", &page], b"");
    assert_eq!(code(&output), 2);
    let output = run(&["convert", "-f", "auto", "--no-bom-sniff", &page], b"");
    assert_eq!(code(&output), 2);
    // A determination of the replacement encoding is refused, as -f with one of its
    // labels is, unless asked for.
    let output = run(&["convert", "-f", "auto", &page], b"");
    assert_eq!(code(&output), 1);
    assert!(output.stdout.is_empty());
    assert!(stderr(&output).contains("determined replacement (tentative, <meta> at byte 0)"), "{}", stderr(&output));
    let output = run(&["convert", "-f", "auto", "-q", "--errors", "replacement", &page], b"");
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "\u{FFFD}");
}

#[test]
fn check_auto_checks_against_the_determination() {
    let dir = TempDir::new();
    for (path, _, line) in auto_samples(&dir) {
        let output = run(&["check", "-f", "auto", &path], b"");
        assert_eq!(code(&output), 0, "{path}: {}", stdout(&output));
        assert_eq!(stderr(&output), line, "{path}");
        let size = std::fs::metadata(&path).unwrap().len();
        let encoding = line.split("decoding as ").nth(1).unwrap().split(' ').next().unwrap();
        assert_eq!(stdout(&output), format!("{path}: ok ({encoding}, {size} bytes)\n"));
        let output = run(&["check", "-q", "-f", "auto", &path], b"");
        assert_eq!(stderr(&output), "", "{path}");
    }
    // A page that is not what its <meta> says: offsets count from the first byte.
    let lying = dir.file("lying.html", b"<meta charset=shift_jis><p>\xFF");
    let output = run(&["check", "-f", "auto", &lying], b"");
    assert_eq!(code(&output), 1);
    assert_eq!(stderr(&output), format!("whatenc: {lying}: decoding as Shift_JIS (tentative, <meta> at byte 0)\n"));
    assert!(
        stdout(&output).starts_with(&format!("{lying}:1:28: byte offset 27: malformed sequence")),
        "{}",
        stdout(&output)
    );
    // Standard input.
    let css = b"@charset \"gbk\"; a{content:'\x81\x40'}";
    let output = run(&["check", "-f", "auto", "--as", "css", "-"], css);
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), format!("<stdin>: ok (GBK, {} bytes)\n", css.len()));
    assert_eq!(stderr(&output), "whatenc: <stdin>: decoding as GBK (certain, @charset)\n");
}

#[test]
fn convert_auto_in_place() {
    let dir = TempDir::new();
    let samples = auto_samples(&dir);
    let paths: Vec<&str> = samples.iter().map(|(path, _, _)| path.as_str()).collect();
    let mut args = vec!["convert", "--in-place", "-q", "-f", "auto"];
    args.extend_from_slice(&paths);
    let output = run(&args, b"");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    for (path, text, _) in &samples {
        assert_eq!(&std::fs::read_to_string(path).unwrap(), text, "{path}");
    }
}

#[test]
fn large_pipe_through_auto_in_bounded_memory() {
    const TOTAL: usize = 256 << 20;
    // A windows-1251 page whose <meta> arrives one byte per write, then 256 MB.
    let head = b"<!doctype html><html><head><meta charset=\"windows-1251\">".to_vec();
    let body = "<p>Съешь же ещё этих мягких французских булок.</p>\n".repeat(2000);
    let body = encoded(whatenc::WINDOWS_1251, &body);
    let mut child = common::whatenc()
        .args(["convert", "-f", "auto", "--as", "html"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = {
        let (head, body) = (head.clone(), body.clone());
        std::thread::spawn(move || {
            for byte in &head {
                stdin.write_all(std::slice::from_ref(byte)).unwrap();
                stdin.flush().unwrap();
            }
            let mut sent = head.len();
            while sent < TOTAL {
                let n = (TOTAL - sent).min(body.len());
                stdin.write_all(&body[..n]).unwrap();
                sent += n;
            }
        })
    };
    let mut stdout = child.stdout.take().unwrap();
    let mut expected = String::from_utf8(head.clone()).unwrap();
    let body_text = whatenc::WINDOWS_1251.decode(&body).0.into_owned();
    let mut buf = vec![0u8; 1 << 16];
    let mut received = Vec::new();
    let mut total = 0usize;
    let mut peak = 0;
    // Compare the output with the text as it comes, without holding it all.
    let mut check_against = |bytes: &[u8], expected: &mut String| {
        received.extend_from_slice(bytes);
        while received.len() >= expected.len() && !expected.is_empty() {
            assert_eq!(&received[..expected.len()], expected.as_bytes());
            received.drain(..expected.len());
            *expected = body_text.clone();
        }
    };
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        total += n;
        check_against(&buf[..n], &mut expected);
        if let Some(rss) = peak_rss_kb(pid) {
            peak = peak.max(rss);
        }
    }
    assert!(body_text.as_bytes().starts_with(&received));
    writer.join().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(err, "whatenc: <stdin>: decoding as windows-1251 (tentative, <meta> at byte 27)\n");
    // Each windows-1251 letter is two bytes of UTF-8.
    assert!(total > TOTAL, "{total}");
    assert!(peak < 16 * 1024, "peak RSS {peak} kB");
}

/// Unlabeled legacy text: the statistical detector (`whatenc::detect`) is the
/// determination's detector step, so `-f auto` decodes the samples that carry no
/// declaration at all.
#[test]
fn convert_auto_detects_unlabeled_legacy_text() {
    let dir = TempDir::new();
    for (name, encoding, text) in [
        ("ru.txt", whatenc::WINDOWS_1251, "Привет, мир! Это простой тест для определения кодировки."),
        ("ru-koi8.txt", whatenc::KOI8_R, "Привет, мир! Это простой тест для определения кодировки."),
        ("ja.txt", whatenc::SHIFT_JIS, "日本語の文章です。文字コードを当ててください。"),
        ("el.txt", whatenc::WINDOWS_1253, "Καλημέρα κόσμε, αυτό είναι ένα δοκιμαστικό κείμενο."),
    ] {
        let path = dir.file(name, &encoded(encoding, text));
        let output = run(&["convert", "-f", "auto", &path], b"");
        assert_eq!(code(&output), 0, "{name}: {}", stderr(&output));
        assert_eq!(stdout(&output), text, "{name}");
        // Right when it decodes to the same text: KOI8-R text without Ukrainian
        // letters is KOI8-U text too.
        assert!(stderr(&output).contains("(tentative, detector)"), "{name}: {}", stderr(&output));
    }
}
