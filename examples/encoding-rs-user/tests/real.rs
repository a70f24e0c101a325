//! The same source, `src/user.rs`, built against the real encoding_rs: it compiles
//! unchanged, and gives the same answers as on whatenc-encoding-rs.

extern crate real_encoding_rs as encoding_rs;

#[allow(dead_code, reason = "only some functions are compared")]
#[path = "../src/user.rs"]
mod real;

#[test]
fn same_answers_on_both() {
    // `encoding_rs` here is the real crate.
    let _: &'static real_encoding_rs::Encoding = encoding_rs::UTF_8;
    let inputs: [&[u8]; 4] = [b"\xEF\xBB\xBFcaf\xC3\xA9", b"caf\xE9", b"\x82\xa0\x82", b"\xFE\xFF\0a\xD8\0"];
    for input in inputs {
        for label in [None, Some("sjis"), Some("utf-16be"), Some("gbk")] {
            assert_eq!(real::decode_document(input, label), encoding_rs_user::decode_document(input, label));
        }
    }
    for text in ["€ and ☃", "日本", "plain"] {
        for label in ["windows-1252", "iso-2022-jp", "gb18030", "utf-16le", "x-user-defined"] {
            assert_eq!(real::encode_form(text, label), encoding_rs_user::encode_form(text, label));
        }
    }
}
