//! Differential tests of `Encoding`'s methods, the whole-buffer conversions,
//! the `max_*` lengths at the edges of `usize`, and `latin1_byte_compatible_up_to`
//! against encoding_rs.

mod common;

use std::borrow::Cow;

use common::*;
use whatenc_encoding_rs as compat;

#[test]
fn statics_names_and_properties() {
    assert_eq!(PAIRS.len(), 40);
    for &(c, r) in PAIRS {
        assert_eq!(c.name(), r.name());
        assert_eq!(c.can_encode_everything(), r.can_encode_everything(), "{}", r.name());
        assert_eq!(c.is_ascii_compatible(), r.is_ascii_compatible(), "{}", r.name());
        assert_eq!(c.is_single_byte(), r.is_single_byte(), "{}", r.name());
        assert_eq!(c.output_encoding().name(), r.output_encoding().name());
        assert_eq!(format!("{c:?}"), format!("{r:?}"));
        assert_eq!(c.new_decoder().encoding(), c);
        assert_eq!(c.new_decoder_with_bom_removal().encoding(), c);
        assert_eq!(c.new_decoder_without_bom_handling().encoding(), c);
        assert_eq!(c.new_encoder().encoding().name(), r.new_encoder().encoding().name());
        assert!(!c.new_encoder().has_pending_state());
    }
    // The `_INIT` twins are the values behind the references.
    assert!(std::ptr::eq(compat::UTF_8, &compat::UTF_8_INIT));
    assert!(std::ptr::eq(compat::X_USER_DEFINED, &compat::X_USER_DEFINED_INIT));
    assert_eq!(compat::GB18030_INIT.name(), encoding_rs::GB18030_INIT.name());
    // Equal encodings hash equal; different ones differ.
    let set: std::collections::HashSet<&compat::Encoding> = PAIRS.iter().map(|(c, _)| *c).collect();
    assert_eq!(set.len(), 40);
}

#[test]
fn labels() {
    let mut rng = Rng::new(7);
    let mut labels: Vec<Vec<u8>> = Vec::new();
    for encoding in whatenc::Encoding::all() {
        for label in encoding.labels() {
            labels.push(label.as_bytes().to_vec());
            labels.push(label.to_ascii_uppercase().into_bytes());
            labels.push(format!(" \t{label}\n\x0C\r").into_bytes());
            labels.push(format!("{label}x").into_bytes());
            labels.push(format!("\u{A0}{label}").into_bytes());
            let mut cut = label.as_bytes().to_vec();
            cut.pop();
            labels.push(cut);
        }
    }
    for _ in 0..2000 {
        let len = rng.below(12);
        labels.push((0..len).map(|_| *rng.pick(b"utf-8 UTF16lebig5\x0B\x00\xC3")).collect());
    }
    labels.push(Vec::new());
    labels.push(b"   ".to_vec());
    for label in &labels {
        let name = |e: Option<&'static compat::Encoding>| e.map(|e| e.name());
        let ref_name = |e: Option<&'static encoding_rs::Encoding>| e.map(|e| e.name());
        assert_eq!(
            name(compat::Encoding::for_label(label)),
            ref_name(encoding_rs::Encoding::for_label(label)),
            "{label:?}"
        );
        assert_eq!(
            name(compat::Encoding::for_label_no_replacement(label)),
            ref_name(encoding_rs::Encoding::for_label_no_replacement(label)),
            "{label:?}"
        );
    }
}

#[test]
fn for_bom_every_short_prefix() {
    let alphabet = [0xEFu8, 0xBB, 0xBF, 0xFE, 0xFF, 0x00, 0x41];
    let mut inputs = vec![Vec::new()];
    for len in 1..=4 {
        let mut index = vec![0usize; len];
        loop {
            inputs.push(index.iter().map(|&i| alphabet[i]).collect::<Vec<u8>>());
            let Some(pos) = (0..len).rev().find(|&p| index[p] + 1 < alphabet.len()) else { break };
            index[pos] += 1;
            index[pos + 1..].iter_mut().for_each(|i| *i = 0);
        }
    }
    for input in inputs {
        let a = compat::Encoding::for_bom(&input).map(|(e, n)| (e.name(), n));
        let b = encoding_rs::Encoding::for_bom(&input).map(|(e, n)| (e.name(), n));
        assert_eq!(a, b, "{input:02x?}");
    }
}

#[allow(clippy::ptr_arg, reason = "the test looks at which Cow variant it is")]
fn same_cow<T>(a: &Cow<'_, T>, b: &Cow<'_, T>, context: &dyn Fn() -> String)
where
    T: ?Sized + ToOwned + PartialEq + std::fmt::Debug,
    T::Owned: std::fmt::Debug,
{
    assert_eq!(a, b, "{}", context());
    assert_eq!(matches!(a, Cow::Borrowed(_)), matches!(b, Cow::Borrowed(_)), "borrowed? {}", context());
}

#[test]
fn whole_buffer_decode_and_encode() {
    for (i, &(c, r)) in PAIRS.iter().enumerate() {
        let mut rng = Rng::new(300 + i as u64);
        let fragments = fragments(r);
        let mut inputs: Vec<Vec<u8>> = fragments.clone();
        inputs.extend([b"".to_vec(), b"plain ascii".to_vec(), b"\xEF\xBB\xBFascii".to_vec(), b"\xFF\xFEa\0".to_vec()]);
        inputs.extend([b"\xFE\xFF\0a".to_vec(), "caf\u{E9}".as_bytes().to_vec(), b"\xEF\xBB\xBFcaf\xC3\xA9".to_vec()]);
        for _ in 0..400 {
            inputs.push(random_bytes(&mut rng, &fragments, 12));
        }
        for input in &inputs {
            let context = || format!("{} {input:02x?}", r.name());
            let (a, ae, aerr) = c.decode(input);
            let (b, be, berr) = r.decode(input);
            same_cow(&a, &b, &context);
            assert_eq!((ae.name(), aerr), (be.name(), berr), "{}", context());
            // The native one-call form gives the same three answers.
            let native = whatenc::Encoding::for_label(r.name().as_bytes()).unwrap_or(whatenc::REPLACEMENT);
            let (n, ne, nerr) = whatenc::hooks::decode_with_errors(input, native);
            assert_eq!((&*n, ne.name(), nerr), (&*b, be.name(), berr), "{}", context());
            let (a, aerr) = c.decode_with_bom_removal(input);
            let (b, berr) = r.decode_with_bom_removal(input);
            same_cow(&a, &b, &context);
            assert_eq!(aerr, berr, "{}", context());
            let (a, aerr) = c.decode_without_bom_handling(input);
            let (b, berr) = r.decode_without_bom_handling(input);
            same_cow(&a, &b, &context);
            assert_eq!(aerr, berr, "{}", context());
            match (
                c.decode_without_bom_handling_and_without_replacement(input),
                r.decode_without_bom_handling_and_without_replacement(input),
            ) {
                (Some(a), Some(b)) => same_cow(&a, &b, &context),
                (a, b) => assert_eq!(a, b, "{}", context()),
            }
        }
        for round in 0..400 {
            let text = if round == 0 { String::new() } else { random_text(&mut rng, 12) };
            let context = || format!("{} {text:?}", r.name());
            let (a, ae, aerr) = c.encode(&text);
            let (b, be, berr) = r.encode(&text);
            same_cow(&a, &b, &context);
            assert_eq!((ae.name(), aerr), (be.name(), berr), "{}", context());
        }
        let ascii = "only ascii here";
        same_cow(&c.encode(ascii).0, &r.encode(ascii).0, &|| r.name().to_string());
    }
}

#[test]
fn valid_up_to_functions() {
    let mut rng = Rng::new(11);
    let fragments = fragments(encoding_rs::UTF_8);
    let mut inputs: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b'a', b]).collect();
    for _ in 0..3000 {
        let mut input = random_bytes(&mut rng, &fragments, 10);
        if rng.below(2) == 0 {
            input.extend_from_slice(&[b'x'; 40][..rng.below(40)]);
        }
        inputs.push(input);
    }
    for input in &inputs {
        assert_eq!(
            compat::Encoding::utf8_valid_up_to(input),
            encoding_rs::Encoding::utf8_valid_up_to(input),
            "{input:02x?}"
        );
        assert_eq!(
            compat::Encoding::ascii_valid_up_to(input),
            encoding_rs::Encoding::ascii_valid_up_to(input),
            "{input:02x?}"
        );
        assert_eq!(
            compat::Encoding::iso_2022_jp_ascii_valid_up_to(input),
            encoding_rs::Encoding::iso_2022_jp_ascii_valid_up_to(input),
            "{input:02x?}"
        );
    }
}

/// Lengths near the points where each formula overflows.
fn edge_lengths() -> Vec<usize> {
    let mut out = Vec::new();
    for base in [0, usize::MAX / 9 * 2, usize::MAX / 4, usize::MAX / 3, usize::MAX / 2, usize::MAX] {
        for delta in -16i64..=16 {
            out.push(base.saturating_add_signed(delta as isize));
        }
    }
    out.extend(0..64);
    out
}

#[test]
fn max_lengths_at_the_edges() {
    let prefixes: [&[u8]; 12] = [
        b"",
        b"\xEF",
        b"\xEF\xBB",
        b"\xFE",
        b"\xFF",
        b"a",
        b"\x81",
        b"\x81\x30",
        b"\x8F\xA2",
        b"\x1B",
        b"\x1B$B",
        b"\xD8",
    ];
    for &(c, r) in PAIRS {
        for bom in BOMS {
            for prefix in prefixes {
                let mut a = compat_decoder(c, bom);
                let mut b = ref_decoder(r, bom);
                let mut out = [0u8; 32];
                assert_eq!(a.decode_to_utf8(prefix, &mut out, false).1, b.decode_to_utf8(prefix, &mut out, false).1);
                for n in edge_lengths() {
                    let context = || format!("{} {bom:?} {prefix:02x?} {n}", r.name());
                    assert_eq!(a.max_utf8_buffer_length(n), b.max_utf8_buffer_length(n), "{}", context());
                    assert_eq!(
                        a.max_utf8_buffer_length_without_replacement(n),
                        b.max_utf8_buffer_length_without_replacement(n),
                        "{}",
                        context()
                    );
                    assert_eq!(a.max_utf16_buffer_length(n), b.max_utf16_buffer_length(n), "{}", context());
                }
            }
        }
        let a = c.new_encoder();
        let b = r.new_encoder();
        for n in edge_lengths() {
            let context = || format!("{} {n}", r.name());
            assert_eq!(
                a.max_buffer_length_from_utf8_if_no_unmappables(n),
                b.max_buffer_length_from_utf8_if_no_unmappables(n),
                "{}",
                context()
            );
            assert_eq!(
                a.max_buffer_length_from_utf8_without_replacement(n),
                b.max_buffer_length_from_utf8_without_replacement(n),
                "{}",
                context()
            );
            assert_eq!(
                a.max_buffer_length_from_utf16_if_no_unmappables(n),
                b.max_buffer_length_from_utf16_if_no_unmappables(n),
                "{}",
                context()
            );
            assert_eq!(
                a.max_buffer_length_from_utf16_without_replacement(n),
                b.max_buffer_length_from_utf16_without_replacement(n),
                "{}",
                context()
            );
        }
    }
}

#[test]
fn latin1_byte_compatible_up_to_in_every_state() {
    let mut rng = Rng::new(17);
    for &(c, r) in PAIRS {
        let fragments = fragments(r);
        for _ in 0..150 {
            let prefix = random_bytes(&mut rng, &fragments, 3);
            let probe = random_bytes(&mut rng, &fragments, 4);
            let all: Vec<u8> = (0..=255).collect();
            for bom in BOMS {
                let mut a = compat_decoder(c, bom);
                let mut b = ref_decoder(r, bom);
                let mut out = [0u8; 64];
                let ra = a.decode_to_utf8(&prefix, &mut out, false);
                let rb = b.decode_to_utf8(&prefix, &mut out, false);
                assert_eq!((format!("{:?}", ra.0), ra.1), (format!("{:?}", rb.0), rb.1));
                for bytes in [&probe[..], &all[..], &all[128..]] {
                    let context = || format!("{} {bom:?} {prefix:02x?} {bytes:02x?}", r.name());
                    assert_eq!(
                        a.latin1_byte_compatible_up_to(bytes),
                        b.latin1_byte_compatible_up_to(bytes),
                        "{}",
                        context()
                    );
                }
            }
        }
    }
}

/// encoding_rs loses a Big5 lead byte over an empty call (README: known
/// differences); whatenc-encoding-rs decodes the pair, as the standard does.
#[test]
fn big5_lead_kept_over_an_empty_call() {
    let mut decoder = compat::BIG5.new_decoder();
    let mut text = String::with_capacity(16);
    for (chunk, last) in [(&b"\xC7"[..], false), (&b""[..], false), (&b"\x7C"[..], true)] {
        let _ = decoder.decode_to_string(chunk, &mut text, last);
    }
    assert_eq!(text, compat::BIG5.decode(b"\xC7\x7C").0);
    assert_eq!(text, "\u{30A2}");
}

/// With 11 bytes of room, encoding_rs writes an astral character from UTF-16 as
/// two `&#65533;` (README: known differences); whatenc-encoding-rs writes its own
/// reference at every room. (With 10 or fewer, neither makes progress: a replacing
/// call into an encoding with unmappable characters keeps 10 bytes free.)
#[test]
fn astral_reference_from_utf16_at_every_room() {
    for room in 11..=20 {
        let mut encoder = compat::ISO_8859_15.new_encoder();
        let src = [0x61u16, 0xD83D, 0xDE00, 0x62];
        let mut out = Vec::new();
        let mut read = 0;
        loop {
            let mut buffer = vec![0u8; room];
            let (result, n, written, _) = encoder.encode_from_utf16(&src[read..], &mut buffer, true);
            out.extend_from_slice(&buffer[..written]);
            read += n;
            if result == compat::CoderResult::InputEmpty {
                break;
            }
        }
        assert_eq!(out, b"a&#128512;b", "room {room}");
    }
}

/// What encoding_rs panics on does not panic here (README: known differences).
#[test]
fn no_panic_after_the_end_or_on_non_latin1() {
    for &(c, _) in PAIRS {
        let mut decoder = c.new_decoder();
        let mut text = String::with_capacity(64);
        let _ = decoder.decode_to_string(b"ab", &mut text, true);
        let _ = decoder.max_utf8_buffer_length(10);
        let _ = decoder.max_utf16_buffer_length(10);
        let _ = decoder.latin1_byte_compatible_up_to(b"ab");
        let _ = decoder.decode_to_string(b"cd", &mut text, true);
    }
    let mut out = [0u8; 8];
    let _ = compat::mem::convert_utf8_to_latin1_lossy("€".as_bytes(), &mut out);
    let _ = compat::mem::encode_latin1_lossy("€");
}
