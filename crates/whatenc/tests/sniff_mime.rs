//! MIME types (MIME Sniffing), Fetch's header algorithms, the locale table, and
//! Infra's isomorphic decode and encode, with the standards' examples.

use whatenc::hooks::{isomorphic_decode, isomorphic_encode};
use whatenc::sniff::{
    MimeType, collect_an_http_quoted_string, extract_a_mime_type, get_decode_and_split,
    javascript_mime_type_essence_match, legacy_extract_an_encoding, locale_default_encoding,
};
use whatenc::*;

fn parse(input: &str) -> Option<String> {
    MimeType::parse(input).map(|mime| mime.serialize())
}

// --- MIME Sniffing: parse a MIME type ---

#[test]
fn mimesniff_example_trailing_garbage() {
    // MIME Sniffing, example-mime-type-parser-trailing-garbage.
    assert_eq!(parse("text/html;charset=\"shift_jis\"iso-2022-jp").as_deref(), Some("text/html;charset=shift_jis"));
}

#[test]
fn mimesniff_example_valid_mime_type_string() {
    // MIME Sniffing, example-valid-mime-type-string: "text/html;" parses as "text/html" does.
    assert_eq!(MimeType::parse("text/html;"), MimeType::parse("text/html"));
}

#[test]
fn parse_steps_1_to_10_type_and_subtype() {
    // 1. HTTP whitespace around is removed; other whitespace is not.
    assert_eq!(parse(" \t\r\ntext/html \n").as_deref(), Some("text/html"));
    assert_eq!(parse("\x0Ctext/html"), None);
    // 3–4. The type: non-empty HTTP token code points.
    assert_eq!(parse("/html"), None);
    assert_eq!(parse("te xt/html"), None);
    assert_eq!(parse("text /html"), None);
    assert_eq!(parse("tëxt/html"), None);
    // 5. A `/` is needed.
    assert_eq!(parse("text"), None);
    // 7–9. The subtype: trailing whitespace removed, then non-empty tokens.
    assert_eq!(parse("text/html \t;x=y").as_deref(), Some("text/html;x=y"));
    assert_eq!(parse("text/"), None);
    assert_eq!(parse("text/;x=y"), None);
    assert_eq!(parse("text/ html"), None);
    assert_eq!(parse("text/html/x"), None);
    assert_eq!(parse("text/h@ml"), None);
    // 10. Lowercased.
    assert_eq!(parse("TEXT/HTML").as_deref(), Some("text/html"));
    assert_eq!(parse("*/*").as_deref(), Some("*/*"));
}

#[test]
fn parse_step_11_parameters() {
    // 11.2 Leading HTTP whitespace of a parameter is skipped.
    assert_eq!(parse("text/html; \t charset=gbk").as_deref(), Some("text/html;charset=gbk"));
    // 11.4 Names are lowercased; values keep their case.
    assert_eq!(parse("text/html;Charset=GBK").as_deref(), Some("text/html;charset=GBK"));
    // 11.5 A name without `=` is dropped.
    assert_eq!(parse("text/html;x;charset=gbk").as_deref(), Some("text/html;charset=gbk"));
    // 11.6 `=` at the end.
    assert_eq!(parse("text/html;x=").as_deref(), Some("text/html"));
    // 11.8 Quoted values: escapes, unterminated, what follows is dropped.
    assert_eq!(MimeType::parse("a/b;x=\"q\\\"w\\\\e\"").unwrap().parameter("x"), Some("q\"w\\e"));
    assert_eq!(MimeType::parse("a/b;x=\"abc").unwrap().parameter("x"), Some("abc"));
    assert_eq!(MimeType::parse("a/b;x=\"abc\\").unwrap().parameter("x"), Some("abc\\"));
    assert_eq!(MimeType::parse("a/b;x=\"a;b\";y=c").unwrap().parameters().len(), 2);
    assert_eq!(MimeType::parse("a/b;x=\"\"").unwrap().parameter("x"), Some(""));
    // 11.9 Unquoted values: trailing whitespace removed; empty is dropped.
    assert_eq!(MimeType::parse("a/b;x=a b  ;y=").unwrap().parameters(), &[("x".into(), "a b".into())]);
    assert_eq!(MimeType::parse("a/b;x= ;y=1").unwrap().parameter("y"), Some("1"));
    // 11.10 Empty names, non-token names, non-quoted-string values, duplicates.
    assert_eq!(parse("a/b;=x").as_deref(), Some("a/b"));
    assert_eq!(parse("a/b;x y=1").as_deref(), Some("a/b"));
    assert_eq!(parse("a/b;x=\u{100}").as_deref(), Some("a/b"));
    assert_eq!(parse("a/b;x=\u{7F}").as_deref(), Some("a/b"));
    assert_eq!(MimeType::parse("a/b;x=\u{FF}").unwrap().parameter("x"), Some("\u{FF}"));
    assert_eq!(parse("a/b;charset=gbk;charset=big5").as_deref(), Some("a/b;charset=gbk"));
    assert_eq!(parse("a/b;CHARSET=gbk;charset=big5").as_deref(), Some("a/b;charset=gbk"));
    assert_eq!(parse("a/b;charset=;charset=big5").as_deref(), Some("a/b;charset=big5"));
    // A bad duplicate does not block a later good one.
    assert_eq!(parse("a/b;x=\u{100};x=1").as_deref(), Some("a/b;x=1"));
}

#[test]
fn parse_from_bytes_is_isomorphic() {
    let mime = MimeType::parse_bytes(b"text/plain;x=\"\xFF\"").unwrap();
    assert_eq!(mime.parameter("x"), Some("\u{FF}"));
    assert_eq!(mime.serialize_to_bytes(), b"text/plain;x=\"\xFF\"");
}

#[test]
fn serialize_steps() {
    // Tokens are bare; anything else is quoted with `"` and `\` escaped; empty is quoted.
    assert_eq!(parse("a/b;x=tok-en").as_deref(), Some("a/b;x=tok-en"));
    assert_eq!(parse("a/b;x=\"a b\"").as_deref(), Some("a/b;x=\"a b\""));
    assert_eq!(parse("a/b;x=\"a\\\"b\\\\c\"").as_deref(), Some("a/b;x=\"a\\\"b\\\\c\""));
    assert_eq!(parse("a/b;x=\"\"").as_deref(), Some("a/b;x=\"\""));
    assert_eq!(parse("a/b;x=\"a;b\"").as_deref(), Some("a/b;x=\"a;b\""));
    // Serializing then parsing gives the same record.
    for input in ["a/b;x=\"a\\\"b\\\\c\";y=\"\";z=1", "text/html;charset=\"shift_jis\"iso-2022-jp"] {
        let mime = MimeType::parse(input).unwrap();
        assert_eq!(MimeType::parse(&mime.serialize()), Some(mime));
    }
}

#[test]
fn mime_type_groups() {
    let is = |input: &str, predicate: fn(&MimeType) -> bool| predicate(&MimeType::parse(input).unwrap());
    assert!(is("text/html", MimeType::is_html_mime_type));
    assert!(is("Text/HTML;charset=gbk", MimeType::is_html_mime_type));
    assert!(!is("text/xhtml", MimeType::is_html_mime_type));
    for xml in ["text/xml", "application/xml", "image/svg+xml", "application/xhtml+xml", "x/+xml"] {
        assert!(is(xml, MimeType::is_xml_mime_type), "{xml}");
    }
    assert!(!is("text/xml-external-parsed-entity", MimeType::is_xml_mime_type));
    let javascript = [
        "application/ecmascript",
        "application/javascript",
        "application/x-ecmascript",
        "application/x-javascript",
        "text/ecmascript",
        "text/javascript",
        "text/javascript1.0",
        "text/javascript1.1",
        "text/javascript1.2",
        "text/javascript1.3",
        "text/javascript1.4",
        "text/javascript1.5",
        "text/jscript",
        "text/livescript",
        "text/x-ecmascript",
        "text/x-javascript",
    ];
    for essence in javascript {
        assert!(is(essence, MimeType::is_javascript_mime_type), "{essence}");
        assert!(javascript_mime_type_essence_match(&essence.to_ascii_uppercase()));
    }
    assert!(!is("text/javascript1.6", MimeType::is_javascript_mime_type));
    assert!(!is("application/json", MimeType::is_javascript_mime_type));
    assert!(!javascript_mime_type_essence_match(" text/javascript"));
    assert!(is("application/json", MimeType::is_json_mime_type));
    assert!(is("text/json", MimeType::is_json_mime_type));
    assert!(is("application/geo+json", MimeType::is_json_mime_type));
}

// --- Fetch ---

#[test]
fn fetch_collect_an_http_quoted_string_examples() {
    // Fetch, example-http-quoted-string: (input, output, output with extract-value, final position).
    let examples = [
        ("\"\\", "\"\\", "\\", 2),
        ("\"Hello\" World", "\"Hello\"", "Hello", 7),
        ("\"Hello \\\\ World\\\"\"", "\"Hello \\\\ World\\\"\"", "Hello \\ World\"", 18),
    ];
    for (input, output, value, end) in examples {
        let mut position = 0;
        assert_eq!(collect_an_http_quoted_string(input, &mut position, false).unwrap(), output);
        assert_eq!(position, end);
        let mut position = 0;
        assert_eq!(collect_an_http_quoted_string(input, &mut position, true).unwrap(), value);
        assert_eq!(position, end);
    }
}

#[test]
fn fetch_get_decode_and_split_examples() {
    // Fetch, example-header-list-get-decode-split; several headers are joined with ", ".
    let split = |values: &[&[u8]]| get_decode_and_split(&values.join(&b", "[..]));
    assert_eq!(split(&[b"nosniff,"]), ["nosniff", ""]);
    assert_eq!(split(&[b"nosniff", b""]), ["nosniff", ""]);
    assert_eq!(split(&[b""]), [""]);
    assert_eq!(split(&[b"text/html;\", x/x"]), ["text/html;\", x/x"]);
    assert_eq!(split(&[b"text/html;\"", b"x/x"]), ["text/html;\", x/x"]);
    assert_eq!(split(&[b"x/x;test=\"hi\",y/y"]), ["x/x;test=\"hi\"", "y/y"]);
    assert_eq!(split(&[b"x/x;test=\"hi\"", b"y/y"]), ["x/x;test=\"hi\"", "y/y"]);
    assert_eq!(split(&[b"x / x,,,1"]), ["x / x", "", "", "1"]);
    assert_eq!(split(&[b"x / x", b",", b"1"]), ["x / x", "", "", "1"]);
    assert_eq!(split(&[b"\"1,2\", 3"]), ["\"1,2\"", "3"]);
    assert_eq!(split(&[b"\"1,2\"", b"3"]), ["\"1,2\"", "3"]);
}

#[test]
fn fetch_extract_a_mime_type_examples() {
    // Fetch, example-extract-a-mime-type.
    let extract = |values: &[&[u8]]| extract_a_mime_type(values).map(|mime| mime.serialize());
    assert_eq!(extract(&[b"text/plain;charset=gbk, text/html"]).as_deref(), Some("text/html"));
    assert_eq!(extract(&[b"text/html;charset=gbk;a=b, text/html;x=y"]).as_deref(), Some("text/html;x=y;charset=gbk"));
    assert_eq!(
        extract(&[b"text/html;charset=gbk;a=b", b"text/html;x=y"]).as_deref(),
        Some("text/html;x=y;charset=gbk")
    );
    assert_eq!(extract(&[b"text/html;charset=gbk", b"x/x", b"text/html;x=y"]).as_deref(), Some("text/html;x=y"));
    assert_eq!(extract(&[b"text/html", b"cannot-parse"]).as_deref(), Some("text/html"));
    assert_eq!(extract(&[b"text/html", b"*/*"]).as_deref(), Some("text/html"));
    assert_eq!(extract(&[b"text/html", b""]).as_deref(), Some("text/html"));
}

#[test]
fn extract_a_mime_type_steps() {
    // 5. No header: failure. Nothing that parses: failure.
    assert_eq!(extract_a_mime_type(&[]), None);
    assert_eq!(extract_a_mime_type(&[b"", b"*/*", b"nonsense"]), None);
    // 6.4 A later charset of the same essence replaces nothing that is there already.
    let mime = extract_a_mime_type(&[b"text/html;charset=gbk", b"text/html;charset=big5"]).unwrap();
    assert_eq!(mime.parameter("charset"), Some("big5"));
    // Essence compared after lowercasing.
    let mime = extract_a_mime_type(&[b"text/html;charset=gbk", b"TEXT/HTML"]).unwrap();
    assert_eq!(mime.parameter("charset"), Some("gbk"));
}

#[test]
fn legacy_extract_an_encoding_steps() {
    let mime = |value: &[u8]| extract_a_mime_type(&[value]);
    // 1. Failure.
    assert_eq!(legacy_extract_an_encoding(None, GBK), GBK);
    // 2. No charset.
    assert_eq!(legacy_extract_an_encoding(mime(b"text/plain").as_ref(), GBK), GBK);
    // 3–4. Not an encoding.
    assert_eq!(legacy_extract_an_encoding(mime(b"text/plain;charset=utf-7").as_ref(), GBK), GBK);
    // 5. The essence does not matter.
    assert_eq!(legacy_extract_an_encoding(mime(b"image/png;charset=\" sjis \"").as_ref(), GBK), SHIFT_JIS);
}

// --- HTML: the locale table ---

#[test]
fn locale_table_every_row() {
    let rows: [(&str, &Encoding); 40] = [
        ("ar", WINDOWS_1256),
        ("az", WINDOWS_1254),
        ("ba", WINDOWS_1251),
        ("be", WINDOWS_1251),
        ("bg", WINDOWS_1251),
        ("cs", WINDOWS_1250),
        ("el", ISO_8859_7),
        ("et", WINDOWS_1257),
        ("fa", WINDOWS_1256),
        ("he", WINDOWS_1255),
        ("hr", WINDOWS_1250),
        ("hu", ISO_8859_2),
        ("ja", SHIFT_JIS),
        ("kk", WINDOWS_1251),
        ("ko", EUC_KR),
        ("ku", WINDOWS_1254),
        ("ky", WINDOWS_1251),
        ("lt", WINDOWS_1257),
        ("lv", WINDOWS_1257),
        ("mk", WINDOWS_1251),
        ("pl", ISO_8859_2),
        ("ru", WINDOWS_1251),
        ("sah", WINDOWS_1251),
        ("sk", WINDOWS_1250),
        ("sl", ISO_8859_2),
        ("sr", WINDOWS_1251),
        ("tg", WINDOWS_1251),
        ("th", WINDOWS_874),
        ("tr", WINDOWS_1254),
        ("tt", WINDOWS_1251),
        ("uk", WINDOWS_1251),
        ("vi", WINDOWS_1258),
        ("zh-Hans", GBK),
        ("zh-CN", GBK),
        ("zh-SG", GBK),
        ("zh-Hant", BIG5),
        ("zh-HK", BIG5),
        ("zh-MO", BIG5),
        ("zh-TW", BIG5),
        ("en", WINDOWS_1252),
    ];
    for (tag, encoding) in rows {
        assert_eq!(locale_default_encoding(tag), encoding, "{tag}");
        assert_eq!(locale_default_encoding(&tag.to_ascii_uppercase()), encoding, "{tag}");
        assert_eq!(locale_default_encoding(&tag.to_ascii_lowercase()), encoding, "{tag}");
    }
}

#[test]
fn locale_tags_with_region_and_script_subtags() {
    assert_eq!(locale_default_encoding("ja-JP"), SHIFT_JIS);
    assert_eq!(locale_default_encoding("ru_RU"), WINDOWS_1251);
    assert_eq!(locale_default_encoding("sr-Latn-RS"), WINDOWS_1251);
    assert_eq!(locale_default_encoding("zh-Hant-CN"), BIG5);
    assert_eq!(locale_default_encoding("zh-Hans-TW"), GBK);
    assert_eq!(locale_default_encoding("zh-cmn-Hans-CN"), WINDOWS_1252);
    assert_eq!(locale_default_encoding("zh"), WINDOWS_1252);
    assert_eq!(locale_default_encoding("zh-Latn-TW"), WINDOWS_1252);
    // Prefixes are subtags, not strings.
    assert_eq!(locale_default_encoding("jav"), WINDOWS_1252);
    assert_eq!(locale_default_encoding("kok"), WINDOWS_1252);
    assert_eq!(locale_default_encoding(""), WINDOWS_1252);
    assert_eq!(locale_default_encoding("x-private"), WINDOWS_1252);
    assert_eq!(locale_default_encoding("ελ"), WINDOWS_1252);
}

// --- Infra ---

#[test]
fn isomorphic_decode_and_encode_every_byte() {
    let bytes: Vec<u8> = (0..=255).collect();
    let text = isomorphic_decode(&bytes);
    assert_eq!(text.chars().count(), 256);
    assert!(text.chars().zip(0u32..).all(|(c, b)| c as u32 == b));
    assert_eq!(&isomorphic_encode(&text).unwrap()[..], &bytes[..]);
    assert_eq!(isomorphic_encode("ab\u{100}\u{FFFF}"), Err('\u{100}'));
    assert!(matches!(isomorphic_decode(b"ascii"), std::borrow::Cow::Borrowed(_)));
}
