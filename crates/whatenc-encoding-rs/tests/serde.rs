//! The `serde` feature: the same JSON as encoding_rs's (which the dev-dependency
//! builds without it, so the expected strings are written out).
#![cfg(feature = "serde")]

mod common;

use common::PAIRS;
use whatenc_encoding_rs::Encoding;

#[test]
fn names_out_labels_in() {
    for &(c, r) in PAIRS {
        let json = serde_json::to_string(c).unwrap();
        assert_eq!(json, format!("\"{}\"", r.name()));
        if r.name() != "replacement" {
            let back: &'static Encoding = serde_json::from_str(&json).unwrap();
            assert_eq!(back, c);
        }
    }
    let latin1: &'static Encoding = serde_json::from_str("\" Latin1 \"").unwrap();
    assert_eq!(latin1, whatenc_encoding_rs::WINDOWS_1252);
    let error = serde_json::from_str::<&'static Encoding>("\"utf-7\"").unwrap_err();
    assert_eq!(error.to_string(), "invalid encoding label: utf-7 at line 1 column 7");
    let error = serde_json::from_str::<&'static Encoding>("7").unwrap_err();
    assert!(error.to_string().contains("a valid encoding label"), "{error}");
}
