//! Differential tests of the `mem` module against encoding_rs's: every character
//! and code unit for the right-to-left checks, random and structured buffers for
//! the rest, every output size from 0 to 16 for the partial conversions.

mod common;

use common::*;
use encoding_rs::mem as reference;
use whatenc_encoding_rs::mem as compat;

#[test]
fn bidi_of_every_character_and_code_unit() {
    for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
        assert_eq!(compat::is_char_bidi(c), reference::is_char_bidi(c), "U+{:04X}", c as u32);
    }
    for u in 0..=u16::MAX {
        assert_eq!(compat::is_utf16_code_unit_bidi(u), reference::is_utf16_code_unit_bidi(u), "{u:04X}");
        let one = [u];
        assert_eq!(compat::is_utf16_bidi(&one), reference::is_utf16_bidi(&one), "{u:04X}");
        assert_eq!(compat::is_utf16_latin1(&one), reference::is_utf16_latin1(&one), "{u:04X}");
    }
}

fn utf8_inputs() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(5);
    let fragments = fragments(encoding_rs::UTF_8);
    let mut inputs: Vec<Vec<u8>> = fragments.clone();
    inputs.extend(
        ["", "abc", "café", "\u{FF}\u{80}", "שלום", "a\u{202E}", "\u{FEFF}", "\u{10800}", "ÿĀ"]
            .map(|s| s.as_bytes().to_vec()),
    );
    for _ in 0..3000 {
        let mut input = random_bytes(&mut rng, &fragments, 10);
        if rng.below(3) == 0 {
            input.extend(std::iter::repeat_n(b'z', rng.below(40)));
        }
        inputs.push(input);
    }
    for _ in 0..500 {
        let latin1: String = (0..rng.below(20)).map(|_| char::from(rng.next() as u8)).collect();
        inputs.push(latin1.into_bytes());
    }
    inputs
}

fn utf16_inputs() -> Vec<Vec<u16>> {
    let mut rng = Rng::new(6);
    let mut inputs: Vec<Vec<u16>> = vec![vec![], vec![0xD800], vec![0xDC00], vec![0xD83D, 0xDE00], vec![0x61, 0xD802]];
    for _ in 0..3000 {
        inputs.push(random_utf16(&mut rng, 12));
    }
    for _ in 0..500 {
        inputs.push((0..rng.below(20)).map(|_| u16::from(rng.next() as u8)).collect());
    }
    inputs
}

#[test]
fn utf8_checks_and_conversions() {
    for input in utf8_inputs() {
        let context = format!("{input:02x?}");
        assert_eq!(compat::is_ascii(&input), reference::is_ascii(&input), "{context}");
        assert_eq!(compat::is_utf8_latin1(&input), reference::is_utf8_latin1(&input), "{context}");
        assert_eq!(compat::is_utf8_bidi(&input), reference::is_utf8_bidi(&input), "{context}");
        assert_eq!(
            compat::check_utf8_for_latin1_and_bidi(&input) as u8,
            reference::check_utf8_for_latin1_and_bidi(&input) as u8,
            "{context}"
        );
        assert_eq!(compat::utf8_latin1_up_to(&input), reference::utf8_latin1_up_to(&input), "{context}");
        let mut a = vec![0u16; input.len() + 1];
        let mut b = vec![0u16; input.len() + 1];
        let n = compat::convert_utf8_to_utf16(&input, &mut a);
        assert_eq!((n, &a[..n]), (reference::convert_utf8_to_utf16(&input, &mut b), &b[..n]), "{context}");
        let n = compat::convert_utf8_to_utf16_without_replacement(&input, &mut a[..input.len()]);
        assert_eq!(n, reference::convert_utf8_to_utf16_without_replacement(&input, &mut b[..input.len()]), "{context}");
        if let Some(n) = n {
            assert_eq!(a[..n], b[..n], "{context}");
        }
        let mut a = vec![0u8; input.len()];
        let mut b = vec![0u8; input.len()];
        // Past the count, encoding_rs may have copied more: only the count is output.
        let n = compat::copy_ascii_to_ascii(&input, &mut a);
        assert_eq!(n, reference::copy_ascii_to_ascii(&input, &mut b), "{context}");
        assert_eq!(a[..n], b[..n], "{context}");
        let mut a16 = vec![0u16; input.len()];
        let mut b16 = vec![0u16; input.len()];
        let n = compat::copy_ascii_to_basic_latin(&input, &mut a16);
        assert_eq!(n, reference::copy_ascii_to_basic_latin(&input, &mut b16), "{context}");
        assert_eq!(a16[..n], b16[..n], "{context}");
        // Latin-1 bytes.
        let (da, db) = (compat::decode_latin1(&input), reference::decode_latin1(&input));
        assert_eq!(
            (&da, matches!(da, std::borrow::Cow::Borrowed(_))),
            (&db, matches!(db, std::borrow::Cow::Borrowed(_))),
            "{context}"
        );
        let mut a16 = vec![0u16; input.len()];
        let mut b16 = vec![0u16; input.len()];
        compat::convert_latin1_to_utf16(&input, &mut a16);
        reference::convert_latin1_to_utf16(&input, &mut b16);
        assert_eq!(a16, b16, "{context}");
        let mut a = vec![0u8; input.len() * 2];
        let mut b = vec![0u8; input.len() * 2];
        let n = compat::convert_latin1_to_utf8(&input, &mut a);
        assert_eq!((n, &a[..n]), (reference::convert_latin1_to_utf8(&input, &mut b), &b[..n]), "{context}");
        let mut sa = "\0".repeat(input.len() * 2);
        let mut sb = "\0".repeat(input.len() * 2);
        let n = compat::convert_latin1_to_str(&input, &mut sa);
        assert_eq!((n, &sa[..n]), (reference::convert_latin1_to_str(&input, &mut sb), &sb[..n]), "{context}");
        for room in 0..=16 {
            let mut a = vec![0xAAu8; room];
            let mut b = vec![0xAAu8; room];
            assert_eq!(
                compat::convert_latin1_to_utf8_partial(&input, &mut a),
                reference::convert_latin1_to_utf8_partial(&input, &mut b),
                "{context} room {room}"
            );
            let mut sa = "\u{7}".repeat(room);
            let mut sb = "\u{7}".repeat(room);
            let ra = compat::convert_latin1_to_str_partial(&input, &mut sa);
            assert_eq!(ra, reference::convert_latin1_to_str_partial(&input, &mut sb), "{context} room {room}");
            assert_eq!(sa[..ra.1], sb[..ra.1], "{context} room {room}");
        }
        if let Ok(text) = std::str::from_utf8(&input) {
            assert_eq!(compat::is_str_latin1(text), reference::is_str_latin1(text), "{context}");
            assert_eq!(compat::is_str_bidi(text), reference::is_str_bidi(text), "{context}");
            assert_eq!(
                compat::check_str_for_latin1_and_bidi(text) as u8,
                reference::check_str_for_latin1_and_bidi(text) as u8,
                "{context}"
            );
            assert_eq!(compat::str_latin1_up_to(text), reference::str_latin1_up_to(text), "{context}");
            let mut a = vec![0u16; text.len()];
            let mut b = vec![0u16; text.len()];
            let n = compat::convert_str_to_utf16(text, &mut a);
            assert_eq!((n, &a[..n]), (reference::convert_str_to_utf16(text, &mut b), &b[..n]), "{context}");
            if reference::is_str_latin1(text) {
                // Only Latin-1 input has a defined result (encoding_rs asserts on the rest).
                let mut a = vec![0u8; text.len()];
                let mut b = vec![0u8; text.len()];
                let n = compat::convert_utf8_to_latin1_lossy(text.as_bytes(), &mut a);
                assert_eq!(
                    (n, &a[..n]),
                    (reference::convert_utf8_to_latin1_lossy(text.as_bytes(), &mut b), &b[..n]),
                    "{context}"
                );
                let (ea, eb) = (compat::encode_latin1_lossy(text), reference::encode_latin1_lossy(text));
                assert_eq!(
                    (&ea, matches!(ea, std::borrow::Cow::Borrowed(_))),
                    (&eb, matches!(eb, std::borrow::Cow::Borrowed(_))),
                    "{context}"
                );
            }
        }
    }
}

#[test]
fn utf16_checks_and_conversions() {
    for input in utf16_inputs() {
        let context = format!("{input:04x?}");
        assert_eq!(compat::is_basic_latin(&input), reference::is_basic_latin(&input), "{context}");
        assert_eq!(compat::is_utf16_latin1(&input), reference::is_utf16_latin1(&input), "{context}");
        assert_eq!(compat::is_utf16_bidi(&input), reference::is_utf16_bidi(&input), "{context}");
        assert_eq!(
            compat::check_utf16_for_latin1_and_bidi(&input) as u8,
            reference::check_utf16_for_latin1_and_bidi(&input) as u8,
            "{context}"
        );
        assert_eq!(compat::utf16_valid_up_to(&input), reference::utf16_valid_up_to(&input), "{context}");
        let (mut a, mut b) = (input.clone(), input.clone());
        compat::ensure_utf16_validity(&mut a);
        reference::ensure_utf16_validity(&mut b);
        assert_eq!(a, b, "{context}");
        let mut a = vec![0u8; input.len() * 3];
        let mut b = vec![0u8; input.len() * 3];
        let n = compat::convert_utf16_to_utf8(&input, &mut a);
        assert_eq!((n, &a[..n]), (reference::convert_utf16_to_utf8(&input, &mut b), &b[..n]), "{context}");
        let mut sa = "\0".repeat(input.len() * 3);
        let mut sb = "\0".repeat(input.len() * 3);
        let n = compat::convert_utf16_to_str(&input, &mut sa);
        assert_eq!((n, &sa[..n]), (reference::convert_utf16_to_str(&input, &mut sb), &sb[..n]), "{context}");
        let mut a = vec![0u8; input.len()];
        let mut b = vec![0u8; input.len()];
        let n = compat::copy_basic_latin_to_ascii(&input, &mut a);
        assert_eq!(n, reference::copy_basic_latin_to_ascii(&input, &mut b), "{context}");
        assert_eq!(a[..n], b[..n], "{context}");
        if reference::is_utf16_latin1(&input) {
            compat::convert_utf16_to_latin1_lossy(&input, &mut a);
            reference::convert_utf16_to_latin1_lossy(&input, &mut b);
            assert_eq!(a, b, "{context}");
        }
        for room in (0..=16).chain([input.len() * 3 + 20]) {
            let mut a = vec![0xAAu8; room];
            let mut b = vec![0xAAu8; room];
            assert_eq!(
                compat::convert_utf16_to_utf8_partial(&input, &mut a),
                reference::convert_utf16_to_utf8_partial(&input, &mut b),
                "{context} room {room}"
            );
            // The bytes after those written are untouched too.
            assert_eq!(a, b, "{context} room {room}");
            let mut sa = "\u{7}".repeat(room);
            let mut sb = "\u{7}".repeat(room);
            let ra = compat::convert_utf16_to_str_partial(&input, &mut sa);
            assert_eq!(ra, reference::convert_utf16_to_str_partial(&input, &mut sb), "{context} room {room}");
            assert_eq!(sa[..ra.1], sb[..ra.1], "{context} room {room}");
        }
    }
}

#[test]
#[should_panic(expected = "destination")]
fn short_destinations_panic_as_documented() {
    let mut out = [0u16; 3];
    let _ = compat::convert_utf8_to_utf16(b"abc", &mut out);
}
