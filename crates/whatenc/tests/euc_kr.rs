//! EUC-KR against `encoding.bs`: a hand-written test for each rule (citing the
//! algorithm step), exhaustive tests over index EUC-KR, every byte pair and every
//! scalar value against the reference model in `jk/mod.rs`, streaming checks, and
//! encoding_rs as an extra oracle.

mod jk;

use jk::{Kind, Rng, check_decode_streaming, check_encode_streaming, decode, encode_whole, fatal_errors, indexes};
use whatenc::EUC_KR;

fn encode_html(text: &str) -> Vec<u8> {
    EUC_KR.encode(text).unwrap().0.into_owned()
}

#[test]
fn decoder_ascii_and_pairs() {
    // Step 4: ASCII is its code point. Step 3.4: pointer (lead − 0x81) × 190 +
    // (byte − 0x41): 0xB0 0xA1 is pointer 47 × 190 + 96, U+AC00.
    assert_eq!(indexes().euc_kr[&(47 * 190 + 96)], 0xAC00);
    assert_eq!(decode(EUC_KR, b"a\xB0\xA1z"), "a\u{AC00}z");
    // The lowest pointer: 0x81 0x41, pointer 0.
    assert_eq!(decode(EUC_KR, b"\x81\x41"), char::from_u32(indexes().euc_kr[&0]).unwrap().to_string());
}

#[test]
fn decoder_lead_bytes() {
    // Step 5: 0x81 to 0xFE are leading bytes; step 6: 0x80 and 0xFF are errors.
    assert_eq!(decode(EUC_KR, b"\x80a\xFFb"), "\u{FFFD}a\u{FFFD}b");
    assert_eq!(fatal_errors(EUC_KR, b"\x80a\xFF"), [(0, 1), (2, 1)]);
}

#[test]
fn decoder_trailing_bytes() {
    // Step 3.4: a byte outside 0x41 to 0xFE gives no pointer; step 3.7 restores an
    // ASCII byte, which is never masked by the leading byte.
    assert_eq!(decode(EUC_KR, b"\xB0\x40"), "\u{FFFD}@");
    assert_eq!(decode(EUC_KR, b"\xB0\x0A"), "\u{FFFD}\n");
    assert_eq!(fatal_errors(EUC_KR, b"\xB0\x40"), [(0, 1)]);
    assert_eq!(decode(EUC_KR, b"\xB0\xFF"), "\u{FFFD}");
    assert_eq!(fatal_errors(EUC_KR, b"\xB0\xFF"), [(0, 2)]);
    assert_eq!(decode(EUC_KR, b"\xB0\x80"), "\u{FFFD}");
    // A null pointer with an ASCII byte (0xC7 0x41: the rows from 0xC7 have no
    // code points below trailing byte 0xA1): restored.
    assert!(!indexes().euc_kr.contains_key(&((0xC7 - 0x81) * 190)));
    assert_eq!(decode(EUC_KR, b"\xC7\x41"), "\u{FFFD}A");
    // A null pointer with a non-ASCII byte: both consumed.
    assert!(!indexes().euc_kr.contains_key(&((0xC7 - 0x81) * 190 + 0x81 - 0x41)));
    assert_eq!(decode(EUC_KR, b"\xC7\x81\x41"), "\u{FFFD}A");
}

#[test]
fn decoder_end_of_queue() {
    // Step 1: a pending leading byte is exactly one error.
    assert_eq!(decode(EUC_KR, b"a\xB0"), "a\u{FFFD}");
    assert_eq!(fatal_errors(EUC_KR, b"ab\xB0"), [(2, 1)]);
}

#[test]
fn encoder_rules() {
    // Step 2: ASCII. Steps 3–7: the index pointer; leading pointer / 190 + 0x81,
    // trailing pointer % 190 + 0x41.
    assert_eq!(encode_html("a\u{AC00}"), b"a\xB0\xA1");
    assert_eq!(encode_html("\u{AC02}"), b"\x81\x41");
    // Step 4: error with the code point.
    assert_eq!(encode_html("\u{2603}\u{A5}"), b"&#9731;&#165;");
    assert_eq!(encode_whole(EUC_KR, "\u{1F600}").1, ['\u{1F600}']);
}

#[test]
fn every_pointer_decodes() {
    for &(p, c) in &indexes().euc_kr_entries {
        let bytes = [(p / 190 + 0x81) as u8, (p % 190 + 0x41) as u8];
        assert_eq!(decode(EUC_KR, &bytes), char::from_u32(c).unwrap().to_string(), "pointer {p}");
    }
}

#[test]
fn every_code_point_encodes_to_its_first_pointer() {
    let idx = indexes();
    for (&c, &p) in &idx.euc_kr_pointer {
        let text = char::from_u32(c).unwrap().to_string();
        assert_eq!(encode_html(&text), [(p / 190 + 0x81) as u8, (p % 190 + 0x41) as u8], "U+{c:04X}");
    }
    // Code points the index has more than once encode to their first pointer.
    let duplicates = idx.euc_kr_entries.iter().filter(|&&(p, c)| idx.euc_kr_pointer[&c] != p).count();
    assert_eq!(duplicates + idx.euc_kr_pointer.len(), idx.euc_kr_entries.len());
}

#[test]
fn every_byte_pair() {
    for pair in 0..=0xFFFFu32 {
        let bytes = [(pair >> 8) as u8, pair as u8];
        let (expected, errors) = jk::ref_decode(Kind::EucKr, &bytes);
        assert_eq!(decode(EUC_KR, &bytes), expected, "{bytes:02X?}");
        let (text, fatal) = jk::decode_whole(EUC_KR, whatenc::ErrorMode::Fatal, &bytes);
        assert_eq!((text, fatal.len()), (expected.replace('\u{FFFD}', ""), errors), "{bytes:02X?}");
    }
}

/// Every byte pair between two Hangul syllables (the run into UTF-8 takes a pair
/// of KS X 1001 through a table of UTF-8 forms, any other through the handler).
#[test]
fn every_byte_pair_in_a_run() {
    // "한글" around each pair.
    let around = b"\xC7\xD1\xB1\xDB";
    let mut bytes = [&around[..], b"\0\0", around, around].concat();
    for pair in 0..=0xFFFFu32 {
        bytes[4] = (pair >> 8) as u8;
        bytes[5] = pair as u8;
        let (expected, _) = jk::ref_decode(Kind::EucKr, &bytes);
        assert_eq!(decode(EUC_KR, &bytes), expected, "{bytes:02X?}");
    }
}

#[test]
fn every_scalar_value() {
    let scalars: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
    for chunk in scalars.chunks(64) {
        let text: String = chunk.iter().collect();
        assert_eq!(encode_whole(EUC_KR, &text), jk::ref_encode(Kind::EucKr, &text), "{text:?}");
    }
}

#[test]
fn streaming_matches_reference() {
    let mut rng = Rng(0xC0FFEE);
    let alphabet = b"aA\x41\x5A\x81\xA1\xB0\xC6\xC7\xFE\x80\xFF\x40";
    for _ in 0..2000 {
        let len = rng.below(14);
        let bytes: Vec<u8> =
            (0..len).map(|_| if rng.below(4) == 0 { rng.next() as u8 } else { rng.pick(alphabet) }).collect();
        check_decode_streaming(Kind::EucKr, &bytes).unwrap();
    }
    let chars = ['a', '\u{AC00}', '\u{AC02}', '\u{D7A3}', '\u{4E00}', '\u{2603}', '\u{1F600}', '\u{A5}', '~'];
    for _ in 0..600 {
        let len = rng.below(8);
        let text: String = (0..len).map(|_| rng.pick(&chars)).collect();
        check_encode_streaming(Kind::EucKr, &text).unwrap();
    }
}

#[test]
fn encoding_rs_agrees() {
    let mut mismatches = Vec::new();
    for pair in 0..=0xFFFFu32 {
        let bytes = [(pair >> 8) as u8, pair as u8];
        let (expected, _) = encoding_rs::EUC_KR.decode_without_bom_handling(&bytes);
        let got = decode(EUC_KR, &bytes);
        if got != expected {
            mismatches.push(format!("{bytes:02X?}: {got:?} vs {expected:?}"));
        }
    }
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let text = c.to_string();
        let (expected, _, _) = encoding_rs::EUC_KR.encode(&text);
        let got = encode_html(&text);
        if got != *expected {
            mismatches.push(format!("{text:?}: {got:02X?} vs {expected:02X?}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} disagreements: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(20)]
    );
}
