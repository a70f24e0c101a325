//! "Get an encoding" for all 228 labels of data/whatwg/encodings.json, and the
//! standard's hooks.

mod common;

use common::*;
use whatenc::hooks::{self, bom_sniff, encode_or_fail, get_an_encoder};
use whatenc::{
    EncoderErrorMode, Encoding, ISO_2022_JP, REPLACEMENT, SHIFT_JIS, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252,
};

/// (label, encoding name) for every label of encodings.json.
fn standard_labels() -> Vec<(String, String)> {
    let path = whatwg_dir().join("encodings.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for group in json.as_array().unwrap() {
        for encoding in group["encodings"].as_array().unwrap() {
            let name = encoding["name"].as_str().unwrap();
            for label in encoding["labels"].as_array().unwrap() {
                out.push((label.as_str().unwrap().to_string(), name.to_string()));
            }
        }
    }
    out
}

#[test]
fn all_228_labels_map_to_their_encoding() {
    let labels = standard_labels();
    assert_eq!(labels.len(), 228);
    let whitespace = ["\t", "\n", "\x0C", "\r", " "];
    for (i, (label, name)) in labels.iter().enumerate() {
        let encoding = encoding_by_name(name);
        let upper = label.to_ascii_uppercase();
        let mixed: String =
            label.chars().enumerate().map(|(j, c)| if (i + j) % 2 == 0 { c.to_ascii_uppercase() } else { c }).collect();
        let ws = whitespace[i % whitespace.len()];
        let ws2 = whitespace[(i + 2) % whitespace.len()];
        let variants = [
            label.clone(),
            upper.clone(),
            mixed.clone(),
            format!("{ws}{label}"),
            format!("{label}{ws}"),
            format!("{ws}{ws2}{mixed}{ws2}{ws}"),
            format!(" \t\n\x0C\r{upper} \t\n\x0C\r"),
        ];
        for variant in &variants {
            assert_eq!(Encoding::for_label(variant.as_bytes()), Some(encoding), "{variant:?}");
            assert_eq!(Encoding::for_label_str(variant), Some(encoding), "{variant:?}");
        }
        assert!(encoding.labels().contains(&label.as_str()), "{name} lacks label {label}");
        // Not ASCII whitespace: vertical tab, NBSP; and inner whitespace.
        for bad in [format!("\x0B{label}"), format!("{label}\u{A0}"), format!("{label}\0"), format!("x{label}")] {
            assert_eq!(Encoding::for_label_str(&bad), None, "{bad:?}");
        }
    }
    // Each encoding's labels() is exactly its labels in encodings.json.
    for &encoding in Encoding::all() {
        let mut expected: Vec<&str> =
            labels.iter().filter(|(_, n)| n == encoding.name()).map(|(l, _)| l.as_str()).collect();
        expected.sort_unstable();
        assert_eq!(encoding.labels(), &expected[..], "{encoding:?}");
    }
    let names: Vec<&str> = Encoding::all().iter().map(|e| e.name()).collect();
    assert_eq!(names.len(), 40);
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 40);
}

#[test]
fn unknown_labels_are_none() {
    for label in [
        "utf-32",
        "utf-7",
        "cp932",
        "cp936",
        "latin-1",
        "",
        " ",
        "\t\n",
        "utf8 ",
        "utf 8",
        "utf-8x",
        "x-sjis ",
        "iso-8859-1-i",
        "gb2312x",
        "big5-hkscs ",
        "utf-16 le",
        "euc-tw",
        "iso-2022-kr-",
    ] {
        let expected_some = matches!(label, "utf8 " | "x-sjis " | "big5-hkscs ");
        assert_eq!(Encoding::for_label_str(label).is_some(), expected_some, "{label:?}");
    }
    assert_eq!(Encoding::for_label(b"utf-8\xFF"), None);
    assert_eq!(Encoding::for_label(&[b'a'; 1000]), None);
    assert!(Encoding::for_label_or_error("latin-1").is_err());
    assert_eq!(Encoding::for_label_or_error(" L1 "), Ok(WINDOWS_1252));
}

#[test]
fn bom_sniff_hook() {
    assert_eq!(bom_sniff(b"\xEF\xBB\xBF"), Some(UTF_8));
    assert_eq!(bom_sniff(b"\xEF\xBB\xBFabc"), Some(UTF_8));
    assert_eq!(bom_sniff(b"\xFE\xFF"), Some(UTF_16BE));
    assert_eq!(bom_sniff(b"\xFF\xFE\x00\x00"), Some(UTF_16LE));
    for none in
        [&b""[..], b"\xEF", b"\xEF\xBB", b"\xEF\xBB\xBE", b"\xFE", b"\xFF", b"\xFE\xFE", b"abc", b"\x00\xFE\xFF"]
    {
        assert_eq!(bom_sniff(none), None, "{none:02X?}");
    }
}

#[test]
fn decode_hook_with_bom_override() {
    assert_eq!(hooks::decode(b"\xEF\xBB\xBF\xE6\x97\xA5", SHIFT_JIS), ("日".into(), UTF_8));
    assert_eq!(hooks::decode(b"\xFE\xFF\x65\xE5", SHIFT_JIS), ("日".into(), UTF_16BE));
    assert_eq!(hooks::decode(b"\xFF\xFE\xE5\x65", SHIFT_JIS), ("日".into(), UTF_16LE));
    assert_eq!(hooks::decode(b"\x93\xfa", SHIFT_JIS), ("日".into(), SHIFT_JIS));
    // Only one BOM is removed; the second is U+FEFF.
    assert_eq!(hooks::decode(b"\xEF\xBB\xBF\xEF\xBB\xBF", WINDOWS_1252), ("\u{FEFF}".into(), UTF_8));
    // A partial BOM is not a BOM.
    assert_eq!(hooks::decode(b"\xEF\xBB", WINDOWS_1252), ("ï»".into(), WINDOWS_1252));
    assert_eq!(hooks::decode(b"\xEF\xBB", UTF_8), ("\u{FFFD}".into(), UTF_8));
    // A BOM overrides even a fallback of another UTF.
    assert_eq!(hooks::decode(b"\xFF\xFEa\x00", UTF_16BE), ("a".into(), UTF_16LE));
    assert_eq!(hooks::decode(b"\xFE\xFF", UTF_8), ("".into(), UTF_16BE));
    // Replacement: any input is one U+FFFD, none is nothing; a BOM still wins.
    assert_eq!(hooks::decode(b"abc", REPLACEMENT), ("\u{FFFD}".into(), REPLACEMENT));
    assert_eq!(hooks::decode(b"", REPLACEMENT), ("".into(), REPLACEMENT));
    assert_eq!(hooks::decode(b"\xEF\xBB\xBFok", REPLACEMENT), ("ok".into(), UTF_8));
    // The streaming decoder with BOM sniffing agrees.
    for (bytes, fallback) in [(&b"\xFE\xFF\x00A"[..], WINDOWS_1252), (b"\xEF\xBB\xBFx", SHIFT_JIS), (b"\xEFx", UTF_8)] {
        let options = whatenc::DecoderOptions { bom: whatenc::BomHandling::Sniff, ..Default::default() };
        let (expected, _) = hooks::decode(bytes, fallback);
        for chunks in byte_chunkings(bytes, 8) {
            let run = decode_chunks(fallback, options, &chunks, Buf::Max, Form::Utf8);
            assert_eq!(run.text, expected, "{chunks:02X?}");
        }
    }
}

#[test]
fn utf8_decode_hooks() {
    assert_eq!(hooks::utf8_decode(b"\xEF\xBB\xBFhi"), "hi");
    assert_eq!(hooks::utf8_decode(b"\xEF\xBB\xBF\xEF\xBB\xBFhi"), "\u{FEFF}hi");
    assert_eq!(hooks::utf8_decode(b"\xEF\xBBhi"), "\u{FFFD}hi");
    assert_eq!(hooks::utf8_decode(b"a\xC3"), "a\u{FFFD}");
    assert_eq!(hooks::utf8_decode_without_bom(b"\xEF\xBB\xBFhi"), "\u{FEFF}hi");
    assert_eq!(hooks::utf8_decode_without_bom(b"\xF0\x9F\x98"), "\u{FFFD}");
    assert_eq!(hooks::utf8_decode_without_bom_or_fail(b"\xEF\xBB\xBFhi").unwrap(), "\u{FEFF}hi");
    let error = hooks::utf8_decode_without_bom_or_fail(b"ab\xE2\x82").unwrap_err();
    assert_eq!((error.offset, error.len), (2, 2));
    let error = hooks::utf8_decode_without_bom_or_fail(b"ab\xE2\x82c").unwrap_err();
    assert_eq!((error.offset, error.len), (2, 2));
    assert!(hooks::utf8_decode_without_bom_or_fail(b"\xED\xA0\x80").is_err());
    assert_eq!(&hooks::utf8_encode("é\u{10FFFF}")[..], "é\u{10FFFF}".as_bytes());
}

#[test]
fn encode_hook_and_no_encoder() {
    for encoding in [UTF_16BE, UTF_16LE, REPLACEMENT] {
        let error = hooks::encode("x", encoding).unwrap_err();
        assert_eq!(error.encoding, encoding);
        assert!(get_an_encoder(encoding).is_err());
        assert!(encoding.new_encoder_with(EncoderErrorMode::Html).is_err());
        assert!(!encoding.has_encoder());
        assert_eq!(encoding.output_encoding(), UTF_8);
        assert_eq!(&hooks::encode("é", encoding.output_encoding()).unwrap()[..], "é".as_bytes());
    }
    for &encoding in Encoding::all() {
        assert_eq!(encoding.has_encoder(), get_an_encoder(encoding).is_ok(), "{encoding:?}");
    }
    assert_eq!(&hooks::encode("a☃€", WINDOWS_1252).unwrap()[..], b"a&#9731;\x80");
    assert_eq!(&hooks::encode("\u{1F600}", SHIFT_JIS).unwrap()[..], b"&#128512;");
    assert_eq!(&hooks::encode("日☃", ISO_2022_JP).unwrap()[..], b"\x1B$BF|\x1B(B&#9731;");
}

#[test]
fn encode_or_fail_resumes() {
    // ISO-2022-JP: the encoder returns to ASCII before the error (so the caller's
    // ASCII is in the right state), and state carries across calls.
    let mut encoder = get_an_encoder(ISO_2022_JP).unwrap();
    let mut input = "日☃本\u{1F600}a";
    let mut output = Vec::new();
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), Some('☃'));
    assert_eq!(input, "本\u{1F600}a");
    output.extend_from_slice(b"%E2%98%83");
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), Some('\u{1F600}'));
    assert_eq!(input, "a");
    output.extend_from_slice(b"?");
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), None);
    assert_eq!(input, "");
    assert_eq!(output, b"\x1B$BF|\x1B(B%E2%98%83\x1B$BK\\\x1B(B?a");

    // Single-byte: resume after each unmappable.
    let mut encoder = get_an_encoder(WINDOWS_1252).unwrap();
    let mut input = "a\u{100}b\u{101}";
    let mut output = Vec::new();
    let mut errors = Vec::new();
    while let Some(c) = encode_or_fail(&mut input, &mut encoder, &mut output) {
        errors.push(c);
        output.push(b'#');
    }
    assert_eq!(errors, ['\u{100}', '\u{101}']);
    assert_eq!(output, b"a#b#");
    // An html-mode encoder still fails in encode_or_fail, and keeps its mode after.
    let mut encoder = WINDOWS_1252.new_encoder_with(EncoderErrorMode::Html).unwrap();
    let mut input = "☃";
    let mut output = Vec::new();
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), Some('☃'));
    assert_eq!(encoder.mode(), EncoderErrorMode::Html);
}
