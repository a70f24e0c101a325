//! The library, built on whatenc-encoding-rs, gives the answers encoding_rs gives.

use encoding_rs_user::*;

#[test]
fn decodes_documents() {
    assert_eq!(decode_document(b"\xEF\xBB\xBFcaf\xC3\xA9", Some("latin1")), ("café".into(), "UTF-8", false));
    assert_eq!(decode_document(b"caf\xE9", None), ("café".into(), "windows-1252", false));
    assert_eq!(decode_document(b"\x82\xa0\x82", Some("sjis")), ("あ\u{FFFD}".into(), "Shift_JIS", true));
}

#[test]
fn reads_streams() {
    let bytes: Vec<u8> =
        b"\xFF\xFE".iter().copied().chain("日本語".repeat(3000).encode_utf16().flat_map(u16::to_le_bytes)).collect();
    let (text, had_errors) = read_to_string(&bytes[..], encoding_rs::WINDOWS_1252).unwrap();
    assert_eq!(text, "日本語".repeat(3000));
    assert!(!had_errors);
}

#[test]
fn finds_errors_and_encodes() {
    assert_eq!(first_error(b"ok\xB0\xA1 then \xFF", encoding_rs::EUC_KR), Some(10));
    assert_eq!(encode_form("€ and ☃", "windows-1252"), (b"\x80 and &#9731;".to_vec(), "windows-1252"));
    assert_eq!(encode_form("☃", "utf-16le"), ("☃".as_bytes().to_vec(), "UTF-8"));
    assert_eq!(latin1_or_utf16("café"), Ok(b"caf\xE9".to_vec()));
    assert_eq!(latin1_or_utf16("€"), Err(vec![0x20AC]));
}
