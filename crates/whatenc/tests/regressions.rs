//! Minimal reproducers of bugs found by the conformance and differential suites.
//! Each runs the code under test on a watchdog thread, so that a hang fails the
//! test instead of hanging the suite.

use std::sync::mpsc;
use std::time::Duration;

use whatenc::{DecodeProgress, DecoderResult, UTF_8};

/// Runs `f` on another thread; fails if it does not return within a few seconds.
fn within_time<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|_| panic!("{what}: did not return (infinite loop)"))
}

/// The streaming contract: "with at least 4 bytes (UTF-8) or 2 units (UTF-16) of
/// room, every call makes progress". A UTF-8 decoder writing UTF-16 into a 3-unit
/// buffer, with a 4-byte sequence next, looped forever: the bulk path cut its
/// window (as long as the room, 3 bytes) inside the sequence and returned
/// OutputFull without progress while the room was still >= the sink's STEP (3).
#[test]
fn utf8_to_utf16_three_units_before_four_byte_sequence() {
    for (input, room) in
        [(&b"\xF0\x9D\x84\x9E"[..], 3usize), (&b"a\xF0\x9D\x84\x9E"[..], 4), (&b"\xF0\x9D\x84\x9Ea"[..], 3)]
    {
        let output: Vec<u16> = within_time("decode_to_utf16", move || {
            let mut decoder = UTF_8.new_decoder();
            let mut output = Vec::new();
            let mut read = 0;
            loop {
                let mut out = vec![0u16; room];
                let progress: DecodeProgress = decoder.decode_to_utf16(&input[read..], &mut out, true);
                assert!(progress.read + progress.written > 0, "no progress with {room} units of room");
                output.extend_from_slice(&out[..progress.written]);
                read += progress.read;
                if progress.result == DecoderResult::InputEmpty {
                    return output;
                }
            }
        });
        let expected: Vec<u16> = std::str::from_utf8(input).unwrap().encode_utf16().collect();
        assert_eq!(output, expected, "{input:02X?} into {room} units");
    }
}

/// The same contract for UTF-16 into UTF-8: after a lead surrogate whose next unit
/// is not a trail surrogate, the unit is restored (encoding.bs, shared UTF-16
/// decoder step 5). With that restored U+0800 held and an odd byte as the last
/// input, a 4- or 5-byte buffer got `OutputFull` with nothing read or written on
/// every call: the one-byte staging step had to emit U+0800 (3 bytes) and the
/// end-of-queue U+FFFD (3 bytes) together, which never fit. Expected: U+0800 in
/// one call, then U+FFFD.
#[test]
fn utf16_restored_unit_then_odd_byte_into_small_utf8_buffer() {
    for (encoding, input) in [
        (whatenc::UTF_16LE, &[0x00u8, 0xD8, 0x00, 0x08, 0x81][..]),
        (whatenc::UTF_16BE, &[0xD8u8, 0x00, 0xFE, 0xFF, 0x81][..]),
    ] {
        for room in [4usize, 5] {
            let text: String = within_time("decode_to_utf8", move || {
                let mut decoder = encoding.new_decoder();
                let mut text = String::new();
                let mut read = 0;
                for _ in 0..16 {
                    let mut out = vec![0u8; room];
                    let progress = decoder.decode_to_utf8(&input[read..], &mut out, true);
                    text.push_str(std::str::from_utf8(&out[..progress.written]).unwrap());
                    read += progress.read;
                    if progress.result == DecoderResult::InputEmpty {
                        return text;
                    }
                    assert!(
                        progress.read + progress.written > 0,
                        "no progress with {room} bytes of room after {text:?}"
                    );
                }
                panic!("no end after 16 calls");
            });
            let expected =
                if encoding == whatenc::UTF_16LE { "\u{FFFD}\u{800}\u{FFFD}" } else { "\u{FFFD}\u{FEFF}\u{FFFD}" };
            assert_eq!(text, expected, "{encoding:?} {input:02X?} into {room} bytes");
        }
    }
}

/// The bulk kernels store whole words and vectors past the output; `decode_to_str`
/// must still leave the whole `str` valid, whatever characters the buffer held and
/// wherever the output ends.
#[test]
fn decode_to_str_keeps_the_rest_of_the_buffer_valid() {
    let text = "Ελληνικά 한국어 テキスト plain ascii text here, ÀÉÎõü 中文 😀 end";
    let inputs: Vec<(&'static whatenc::Encoding, Vec<u8>)> = vec![
        (whatenc::UTF_16LE, text.encode_utf16().flat_map(u16::to_le_bytes).collect()),
        (whatenc::UTF_16BE, text.encode_utf16().flat_map(u16::to_be_bytes).collect()),
        (whatenc::UTF_8, text.as_bytes().to_vec()),
    ];
    for fill in ["x", "é", "中", "😀", "a中é"] {
        for (encoding, bytes) in &inputs {
            for size in 0..text.len() + 40 {
                let mut buf: String = fill.repeat(size / fill.len() + 1);
                while buf.len() > size {
                    buf.pop();
                }
                let progress = encoding.new_decoder().decode_to_str(bytes, buf.as_mut_str(), true);
                // `buf` is a `String`: re-check its bytes from scratch.
                let check = std::str::from_utf8(buf.as_bytes());
                assert!(check.is_ok(), "{} {fill} {size}", encoding.name());
                assert!(text.as_bytes().starts_with(&buf.as_bytes()[..progress.written]));
            }
        }
    }
}

/// UTF-8 → `String` takes valid input verbatim; error offsets, held sequences and
/// the BOM must come out as through the general path, whatever the capacity and
/// wherever the input is cut.
#[test]
fn utf8_to_string_fast_path_matches_the_general_path() {
    use whatenc::{BomHandling, DecoderOptions, ErrorMode};
    let input = b"\xEF\xBB\xBFa\xC3\xA9\xE4\xB8\xADz\xFF\xE4\xB8b\xF0\x9F\x98\x80\xF0\x9F";
    for mode in [ErrorMode::Replacement, ErrorMode::Fatal] {
        for bom in [BomHandling::None, BomHandling::Remove] {
            let options = DecoderOptions { mode, bom };
            for split in 0..=input.len() {
                for capacity in [0, 1, 3, 5, 64] {
                    // General path: UTF-8 bytes into a big buffer, pieces in order.
                    let mut expected = Vec::new();
                    let mut expected_errors = Vec::new();
                    let mut decoder = whatenc::UTF_8.new_decoder_with(options);
                    for (chunk, last) in [(&input[..split], false), (&input[split..], true)] {
                        let mut rest = chunk;
                        loop {
                            let mut buf = [0u8; 64];
                            let progress = decoder.decode_to_utf8(rest, &mut buf, last);
                            expected.extend_from_slice(&buf[..progress.written]);
                            rest = &rest[progress.read..];
                            match progress.result {
                                DecoderResult::InputEmpty => break,
                                DecoderResult::Malformed(e) => expected_errors.push(e),
                                DecoderResult::OutputFull => {}
                            }
                        }
                    }
                    // decode_to_string with little capacity, growing it on OutputFull.
                    let mut got = String::with_capacity(capacity);
                    let mut got_errors = Vec::new();
                    let mut decoder = whatenc::UTF_8.new_decoder_with(options);
                    for (chunk, last) in [(&input[..split], false), (&input[split..], true)] {
                        let mut rest = chunk;
                        loop {
                            let progress = decoder.decode_to_string(rest, &mut got, last);
                            rest = &rest[progress.read..];
                            match progress.result {
                                DecoderResult::InputEmpty => break,
                                DecoderResult::Malformed(e) => got_errors.push(e),
                                DecoderResult::OutputFull => got.reserve(got.capacity() + 1),
                            }
                        }
                    }
                    assert_eq!(got.as_bytes(), expected, "{mode:?} {bom:?} {split} {capacity}");
                    assert_eq!(got_errors, expected_errors, "{mode:?} {bom:?} {split} {capacity}");
                }
            }
        }
    }
}

/// The single-byte encoders' own loop over `&str`: a scalar value beyond the BMP is
/// an error with that scalar value (not a stand-in), consuming its four bytes; U+0000
/// and U+FFFF are told apart from it.
#[test]
fn single_byte_encoder_from_str_reports_astral_scalar_values() {
    for encoding in [whatenc::WINDOWS_1251, whatenc::WINDOWS_1252, whatenc::KOI8_R] {
        let text = "a\u{0}\u{1F600}б\u{FFFF}z";
        let mut encoder = encoding.new_encoder().unwrap();
        let mut out = [0u8; 64];
        let first = encoder.encode_from_utf8(text, &mut out, true);
        assert_eq!(first.result, whatenc::EncoderResult::Unmappable('\u{1F600}'), "{}", encoding.name());
        assert_eq!((first.read, &out[..first.written]), (6, &b"a\0"[..]));
        let (html, unmappable) = encoding.encode(text).unwrap();
        assert!(unmappable);
        let expected_tail: &[u8] = if encoding == whatenc::WINDOWS_1252 { b"&#1073;" } else { b"" };
        assert!(html.starts_with(b"a\0&#128512;"), "{}", encoding.name());
        assert!(html.ends_with(b"&#65535;z"), "{}", encoding.name());
        if !expected_tail.is_empty() {
            assert!(html.windows(expected_tail.len()).any(|w| w == expected_tail));
        }
    }
}

/// `decode_to_str` keeps the rest of the `str` valid UTF-8 whatever the kernels store
/// past the output: a decoder's ASCII run that ends in a multi-byte sequence, at every
/// offset, into a `str` of three-byte characters of every length, for the decoders
/// that copy ASCII runs (UTF-8, the CJK ones) and a single-byte one. (The portable
/// tier's ASCII copy stored a whole 32-byte chunk, raw legacy bytes included, up to 31
/// bytes past its output; the repair after the call covers 16.)
#[test]
fn decode_to_str_keeps_the_rest_valid_after_an_ascii_run() {
    use whatenc::{DecoderOptions, ErrorMode};
    // Each encoding with a byte that is an error in it, for the "fatal" mode to stop
    // right after the ASCII run, with raw high bytes after it (what a copy past the
    // output would put into the `str`).
    let encodings = [
        (whatenc::UTF_8, 0xFF),
        (whatenc::SHIFT_JIS, 0xFF),
        (whatenc::EUC_JP, 0xFF),
        (whatenc::GBK, 0xFF),
        (whatenc::BIG5, 0xFF),
        (whatenc::EUC_KR, 0xFF),
        (whatenc::WINDOWS_1252, 0x81),
    ];
    for (encoding, error) in encodings {
        for mode in [ErrorMode::Fatal, ErrorMode::Replacement] {
            for ascii in 0..70 {
                let mut input = vec![b'a'; ascii];
                input.push(error);
                for _ in 0..40 {
                    input.extend_from_slice(b"\xE9A");
                }
                for room in (3..150).step_by(3) {
                    let mut buf = "€".repeat(room / 3);
                    let options = DecoderOptions { mode, ..Default::default() };
                    let progress = encoding.new_decoder_with(options).decode_to_str(&input, buf.as_mut_str(), true);
                    // `buf` is a `String`: its bytes must still be UTF-8, and the
                    // output the decoded prefix.
                    assert!(
                        std::str::from_utf8(buf.as_bytes()).is_ok(),
                        "{} ascii {ascii} room {room}",
                        encoding.name()
                    );
                    assert!(buf[..progress.written].starts_with(&"a".repeat(ascii.min(progress.written))));
                }
            }
        }
    }
}
