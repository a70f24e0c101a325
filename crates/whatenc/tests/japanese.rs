//! EUC-JP, ISO-2022-JP and Shift_JIS against `encoding.bs`: a hand-written test for
//! each rule (citing the algorithm step), exhaustive tests over the indexes, every
//! byte pair and every scalar value against a reference model of the standard
//! (`jk/mod.rs`), streaming checks, and encoding_rs as an extra oracle.

mod jk;

use jk::{
    Kind, Rng, check_decode_streaming, check_encode_streaming, decode, encode_chunks, encode_whole, fatal_errors,
    indexes, ref_encode,
};
use whatenc::hooks::{encode_or_fail, get_an_encoder};
use whatenc::{EUC_JP, EncoderResult, ISO_2022_JP, SHIFT_JIS};

fn encode_html(encoding: &'static whatenc::Encoding, text: &str) -> Vec<u8> {
    encoding.encode(text).unwrap().0.into_owned()
}

// ---------------------------------------------------------------------------
// EUC-JP decoder

#[test]
fn euc_jp_decoder_ascii_and_jis0208() {
    // Step 6: an ASCII byte is its code point. Step 5.4: (lead − 0xA1) × 94 + byte − 0xA1
    // in index jis0208: 0xB0 0xA1 is pointer 1410, U+4E9C.
    assert_eq!(decode(EUC_JP, b"a\xB0\xA1z"), "a\u{4E9C}z");
    assert_eq!(decode(EUC_JP, b"\xA1\xA1"), "\u{3000}");
}

#[test]
fn euc_jp_decoder_half_width_katakana() {
    // Step 3: 0x8E then 0xA1 to 0xDF is U+FF61 − 0xA1 + byte.
    assert_eq!(decode(EUC_JP, b"\x8E\xA1\x8E\xDF"), "\u{FF61}\u{FF9F}");
    // Outside 0xA1 to 0xDF, step 5: 0x8E is no jis0208 lead: error, the byte consumed
    // unless ASCII (step 5.7).
    assert_eq!(decode(EUC_JP, b"\x8E\xE0"), "\u{FFFD}");
    assert_eq!(decode(EUC_JP, b"\x8E\xA0"), "\u{FFFD}");
    assert_eq!(decode(EUC_JP, b"\x8EA"), "\u{FFFD}A");
    assert_eq!(fatal_errors(EUC_JP, b"\x8E\xE0"), [(0, 2)]);
    assert_eq!(fatal_errors(EUC_JP, b"\x8EA"), [(0, 1)]);
}

#[test]
fn euc_jp_decoder_jis0212() {
    // Step 4: 0x8F then 0xA1 to 0xFE sets jis0212; step 5.4 looks the pair up in index
    // jis0212: 0x8F 0xA2 0xAF is pointer 108, U+02D8.
    let idx = indexes();
    assert_eq!(idx.jis0212[&108], 0x02D8);
    assert_eq!(decode(EUC_JP, b"\x8F\xA2\xAF"), "\u{02D8}");
    // Same bytes without 0x8F are jis0208 pointer 108 (null): error.
    assert!(!idx.jis0208.contains_key(&108));
    assert_eq!(decode(EUC_JP, b"\xA2\xAF"), "\u{FFFD}");
    // Null in jis0212 (pointer 0): one error for the three bytes.
    assert_eq!(decode(EUC_JP, b"\x8F\xA1\xA1"), "\u{FFFD}");
    assert_eq!(fatal_errors(EUC_JP, b"\x8F\xA1\xA1"), [(0, 3)]);
    // Step 5.7: an ASCII byte after 0x8F xx is restored; 0x8F xx is one error.
    assert_eq!(decode(EUC_JP, b"\x8F\xA2A"), "\u{FFFD}A");
    assert_eq!(fatal_errors(EUC_JP, b"x\x8F\xA2A"), [(1, 2)]);
    // 0x8F then a byte outside 0xA1 to 0xFE: step 5, error (ASCII restored).
    assert_eq!(decode(EUC_JP, b"\x8FA"), "\u{FFFD}A");
    assert_eq!(decode(EUC_JP, b"\x8F\x80"), "\u{FFFD}");
    // The jis0212 flag is reset after each pair (step 5.5).
    assert_eq!(decode(EUC_JP, b"\x8F\xA2\xAF\xB0\xA1"), "\u{02D8}\u{4E9C}");
    assert_eq!(decode(EUC_JP, b"\x8F\xA1\xA1\xB0\xA1"), "\u{FFFD}\u{4E9C}");
}

#[test]
fn euc_jp_decoder_lead_and_trail_ranges() {
    // Step 8: 0x80 to 0x8D, 0x90 to 0xA0 and 0xFF are errors by themselves.
    for byte in (0x80..=0x8D).chain(0x90..=0xA0).chain([0xFF]) {
        assert_eq!(decode(EUC_JP, &[byte, b'a']), "\u{FFFD}a", "{byte:#X}");
    }
    // Step 5.4: a trailing byte outside 0xA1 to 0xFE is null; step 5.7 restores ASCII.
    assert_eq!(decode(EUC_JP, b"\xB0A"), "\u{FFFD}A");
    assert_eq!(decode(EUC_JP, b"\xB0\xA0"), "\u{FFFD}");
    assert_eq!(decode(EUC_JP, b"\xB0\xFF"), "\u{FFFD}");
    assert_eq!(fatal_errors(EUC_JP, b"\xB0\xFF"), [(0, 2)]);
}

#[test]
fn euc_jp_decoder_end_of_queue() {
    // Step 1: a pending leading byte at end-of-queue is exactly one error.
    assert_eq!(decode(EUC_JP, b"a\xB0"), "a\u{FFFD}");
    assert_eq!(decode(EUC_JP, b"a\x8E"), "a\u{FFFD}");
    assert_eq!(decode(EUC_JP, b"a\x8F"), "a\u{FFFD}");
    assert_eq!(decode(EUC_JP, b"a\x8F\xA2"), "a\u{FFFD}");
    assert_eq!(fatal_errors(EUC_JP, b"a\x8F\xA2"), [(1, 2)]);
}

// ---------------------------------------------------------------------------
// EUC-JP encoder

#[test]
fn euc_jp_encoder_rules() {
    // Steps 2 to 4: ASCII; U+00A5 → 0x5C; U+203E → 0x7E.
    assert_eq!(encode_html(EUC_JP, "a\u{A5}\u{203E}"), b"a\x5C\x7E");
    // Step 5: half-width katakana → 0x8E, code point − 0xFF61 + 0xA1.
    assert_eq!(encode_html(EUC_JP, "\u{FF61}\u{FF9F}"), b"\x8E\xA1\x8E\xDF");
    // Step 6: U+2212 → U+FF0D before the jis0208 lookup (pointer 60: 0xA1 0xDD).
    assert_eq!(indexes().jis0208_pointer[&0xFF0D], 60);
    assert_eq!(encode_html(EUC_JP, "\u{2212}\u{FF0D}"), b"\xA1\xDD\xA1\xDD");
    // Steps 7 to 11: the index pointer in jis0208, never jis0212.
    assert_eq!(encode_html(EUC_JP, "\u{4E9C}"), b"\xB0\xA1");
    let idx = indexes();
    let jis0212_only = idx.jis0212.values().copied().filter(|c| !idx.jis0208_pointer.contains_key(c)).min().unwrap();
    let c = char::from_u32(jis0212_only).unwrap();
    assert_eq!(encode_whole(EUC_JP, &c.to_string()).1, [c]);
    // Step 8: error with the code point.
    assert_eq!(encode_html(EUC_JP, "\u{2603}"), b"&#9731;");
}

#[test]
fn euc_jp_encoder_index_pointer_is_first_pointer() {
    // "index pointer" is the first pointer: each code point that index jis0208 has
    // more than once (NEC row 13, rows 89 to 92, IBM extensions) encodes to its first.
    let idx = indexes();
    let duplicated: Vec<(u32, u32)> = idx
        .jis0208_entries
        .iter()
        .filter(|&&(p, c)| idx.jis0208_pointer[&c] != p)
        .map(|&(_, c)| (c, idx.jis0208_pointer[&c]))
        .collect();
    assert!(!duplicated.is_empty());
    for (c, first) in duplicated {
        let text = char::from_u32(c).unwrap().to_string();
        assert_eq!(encode_html(EUC_JP, &text), [(first / 94 + 0xA1) as u8, (first % 94 + 0xA1) as u8], "U+{c:04X}");
    }
}

// ---------------------------------------------------------------------------
// ISO-2022-JP decoder

#[test]
fn iso_2022_jp_decoder_ascii_state() {
    // ASCII: 0x00 to 0x7F except 0x0E, 0x0F, 0x1B are code points; the rest errors.
    assert_eq!(decode(ISO_2022_JP, b"a\\~"), "a\\~");
    assert_eq!(decode(ISO_2022_JP, b"a\x0Eb\x0Fc\x80d\xFF"), "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}");
}

#[test]
fn iso_2022_jp_decoder_roman_state() {
    // ESC ( J: Roman; 0x5C → U+00A5, 0x7E → U+203E, other ASCII as is.
    assert_eq!(decode(ISO_2022_JP, b"\x1B(J\\~a\x0E"), "\u{A5}\u{203E}a\u{FFFD}");
    assert_eq!(decode(ISO_2022_JP, b"\x1B(J\x80"), "\u{FFFD}");
}

#[test]
fn iso_2022_jp_decoder_katakana_state() {
    // ESC ( I: katakana; 0x21 to 0x5F → U+FF61 − 0x21 + byte; else error.
    assert_eq!(decode(ISO_2022_JP, b"\x1B(I\x21\x5F\x60\x20"), "\u{FF61}\u{FF9F}\u{FFFD}\u{FFFD}");
}

#[test]
fn iso_2022_jp_decoder_lead_and_trail_states() {
    // ESC $ B and ESC $ @: leading byte state; 0x21 to 0x7E pairs are jis0208 pointers
    // (lead − 0x21) × 94 + byte − 0x21.
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B0!"), "\u{4E9C}");
    assert_eq!(decode(ISO_2022_JP, b"\x1B$@0!\x1B(Bz"), "\u{4E9C}z");
    // Leading byte state, byte outside 0x21 to 0x7E: error.
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B\x20"), "\u{FFFD}");
    // Trailing byte state: null pointer is an error for both bytes.
    assert!(!indexes().jis0208.contains_key(&(7 * 94 + 94 - 1)));
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B(~"), "\u{FFFD}");
    assert_eq!(fatal_errors(ISO_2022_JP, b"\x1B$B(~"), [(3, 2)]);
    // Trailing byte state, "otherwise": error, the byte is consumed (no restore).
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B0\n0!"), "\u{FFFD}\u{4E9C}");
    // Trailing byte state, 0x1B: escape start and error.
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B0\x1B(Ba"), "\u{FFFD}a");
    assert_eq!(fatal_errors(ISO_2022_JP, b"\x1B$B0\x1B(Ba"), [(3, 1)]);
    // Trailing byte state, end-of-queue: error.
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B0"), "\u{FFFD}");
}

#[test]
fn iso_2022_jp_decoder_escape_start() {
    // Escape start: a byte other than $ or ( is restored, output state kept, error.
    assert_eq!(decode(ISO_2022_JP, b"\x1BA"), "\u{FFFD}A");
    assert_eq!(fatal_errors(ISO_2022_JP, b"\x1BA"), [(0, 1)]);
    assert_eq!(decode(ISO_2022_JP, b"\x1B(J\x1B\\"), "\u{FFFD}\u{A5}");
    assert_eq!(decode(ISO_2022_JP, b"\x1B\x1B(Ba"), "\u{FFFD}a");
    // End-of-queue in escape start: error.
    assert_eq!(decode(ISO_2022_JP, b"a\x1B"), "a\u{FFFD}");
}

#[test]
fn iso_2022_jp_decoder_escape() {
    // Escape: an unknown final byte restores « leading, byte » and errors.
    assert_eq!(decode(ISO_2022_JP, b"\x1B$A"), "\u{FFFD}$A");
    assert_eq!(decode(ISO_2022_JP, b"\x1B(C"), "\u{FFFD}(C");
    assert_eq!(fatal_errors(ISO_2022_JP, b"ab\x1B$A"), [(2, 1)]);
    // Restored bytes are read in the output state: after ESC $ B, "$A" is a pair.
    let pair = char::from_u32(indexes().jis0208[&((b'$' as u32 - 0x21) * 94 + b'A' as u32 - 0x21)]).unwrap();
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B\x1B$A"), format!("\u{FFFD}{pair}"));
    // End-of-queue in escape: only the leading byte is restored.
    assert_eq!(decode(ISO_2022_JP, b"\x1B("), "\u{FFFD}(");
    assert_eq!(fatal_errors(ISO_2022_JP, b"\x1B("), [(0, 1)]);
    // ... and then read in the leading byte state, where end-of-queue in the trailing
    // byte state is one more error.
    assert_eq!(decode(ISO_2022_JP, b"\x1B$B\x1B$"), "\u{FFFD}\u{FFFD}");
    assert_eq!(fatal_errors(ISO_2022_JP, b"\x1B$B\x1B$"), [(3, 1), (4, 1)]);
}

#[test]
fn iso_2022_jp_decoder_output_flag() {
    // Escape: an escape sequence with no output since the previous one is an error
    // ("ISO-2022-JP output" is true), the new state still taken.
    assert_eq!(decode(ISO_2022_JP, b"\x1B(B"), "");
    assert_eq!(decode(ISO_2022_JP, b"\x1B(Ba"), "a");
    assert_eq!(decode(ISO_2022_JP, b"\x1B(B\x1B(Ja\\"), "\u{FFFD}a\u{A5}");
    assert_eq!(fatal_errors(ISO_2022_JP, b"\x1B(B\x1B(Ja"), [(3, 3)]);
    assert_eq!(decode(ISO_2022_JP, b"a\x1B$B\x1B(Bb"), "a\u{FFFD}b");
    // An error resets the flag: no second error.
    assert_eq!(decode(ISO_2022_JP, b"\x1B(B\x80\x1B(Ja"), "\u{FFFD}a");
    // Escape start's error resets it too.
    assert_eq!(decode(ISO_2022_JP, b"\x1B(B\x1Bx\x1B(Ja"), "\u{FFFD}xa");
}

#[test]
fn iso_2022_jp_decoder_restore_across_calls() {
    // The restored leading byte was consumed by an earlier call.
    for bytes in [&b"\x1B$A"[..], b"\x1B(", b"\x1B$B\x1B$", b"\x1B$B0\x1B(Ba", b"\x1B(J\x1B\\"] {
        check_decode_streaming(Kind::Iso2022Jp, bytes).unwrap();
    }
}

// ---------------------------------------------------------------------------
// ISO-2022-JP encoder

#[test]
fn iso_2022_jp_encoder_states_and_escapes() {
    // Step 4: ASCII in ASCII. Step 12: ESC $ B before jis0208. Step 6: ESC ( B before
    // ASCII. Step 1: end-of-queue returns to ASCII.
    assert_eq!(encode_html(ISO_2022_JP, "a\u{65E5}a"), b"a\x1B$BF|\x1B(Ba");
    assert_eq!(encode_html(ISO_2022_JP, "\u{65E5}"), b"\x1B$BF|\x1B(B");
    // Step 7: ESC ( J before U+00A5/U+203E; step 5: Roman writes them as 0x5C/0x7E and
    // ASCII other than \ and ~ as is.
    assert_eq!(encode_html(ISO_2022_JP, "\u{A5}a\u{203E}"), b"\x1B(J\x5Ca\x7E\x1B(B");
    assert_eq!(encode_html(ISO_2022_JP, "\u{A5}\\"), b"\x1B(J\x5C\x1B(B\\");
    assert_eq!(encode_html(ISO_2022_JP, "\u{65E5}\u{A5}"), b"\x1B$BF|\x1B(J\x5C\x1B(B");
    // Step 8: U+2212 → U+FF0D (pointer 60).
    assert_eq!(encode_html(ISO_2022_JP, "\u{2212}"), b"\x1B$B!]\x1B(B");
    // Step 9: half-width katakana through index ISO-2022-JP katakana: U+FF71 → U+30A2.
    assert_eq!(indexes().katakana[&(0xFF71 - 0xFF61)], 0x30A2);
    assert_eq!(encode_html(ISO_2022_JP, "\u{FF71}"), b"\x1B$B%\"\x1B(B");
    assert_eq!(encode_html(ISO_2022_JP, ""), b"");
}

#[test]
fn iso_2022_jp_encoder_shift_out_shift_in_escape() {
    // Step 3: U+000E, U+000F, U+001B in ASCII or Roman are error with U+FFFD.
    for c in ['\u{0E}', '\u{0F}', '\u{1B}'] {
        let mut encoder = ISO_2022_JP.new_encoder().unwrap();
        let mut out = [0u8; 32];
        let progress = encoder.encode_from_utf8(&format!("a{c}b"), &mut out, true);
        assert_eq!(progress.result, EncoderResult::Unmappable('\u{FFFD}'));
        assert_eq!(&out[..progress.written], b"a");
        assert_eq!(encode_html(ISO_2022_JP, &format!("\u{A5}{c}")), b"\x1B(J\x5C&#65533;\x1B(B");
        // In jis0208, step 6 first returns to ASCII, then step 3 errors.
        assert_eq!(encode_html(ISO_2022_JP, &format!("\u{65E5}{c}")), b"\x1B$BF|\x1B(B&#65533;");
    }
}

#[test]
fn iso_2022_jp_encoder_state_after_error() {
    // Step 11: in jis0208, an unmappable code point first returns to ASCII (11.1),
    // then errors (11.2): the caller continues in ASCII.
    let mut encoder = get_an_encoder(ISO_2022_JP).unwrap();
    let mut input = "\u{65E5}\u{2603}a";
    let mut output = Vec::new();
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), Some('\u{2603}'));
    assert_eq!(output, b"\x1B$BF|\x1B(B");
    output.extend_from_slice(b"%E2%98%83");
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), None);
    assert_eq!(output, b"\x1B$BF|\x1B(B%E2%98%83a");
    // In Roman, step 11.2 errors without a state change: the caller's bytes are in
    // Roman, and end-of-queue then returns to ASCII.
    let mut encoder = get_an_encoder(ISO_2022_JP).unwrap();
    let mut input = "\u{A5}\u{2603}a";
    let mut output = Vec::new();
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), Some('\u{2603}'));
    assert_eq!(output, b"\x1B(J\x5C");
    output.extend_from_slice(b"%E2%98%83");
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), None);
    assert_eq!(output, b"\x1B(J\x5C%E2%98%83a\x1B(B");
    // In ASCII, nothing changes either.
    let mut encoder = get_an_encoder(ISO_2022_JP).unwrap();
    let mut input = "\u{2603}";
    let mut output = Vec::new();
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), Some('\u{2603}'));
    assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), None);
    assert_eq!(output, b"");
}

#[test]
fn iso_2022_jp_encoder_end_of_queue_needs_room() {
    // Step 1's ESC ( B is written whole even when the buffer is nearly full.
    let expected = b"\x1B$BF|\x1B(B";
    for size in 1..=16 {
        let mut encoder = ISO_2022_JP.new_encoder().unwrap();
        let mut out = Vec::new();
        let mut buf = vec![0u8; size];
        let mut input = "\u{65E5}";
        for _ in 0..16 {
            let progress = encoder.encode_from_utf8(input, &mut buf, true);
            out.extend_from_slice(&buf[..progress.written]);
            input = &input[progress.read..];
            if progress.result == EncoderResult::InputEmpty {
                break;
            }
        }
        if size >= 5 {
            assert_eq!(out, expected, "buffer {size}");
        }
        assert!(expected.starts_with(&out), "buffer {size}: {out:02X?}");
    }
}

// ---------------------------------------------------------------------------
// Shift_JIS decoder

#[test]
fn shift_jis_decoder_single_bytes() {
    // Step 4: ASCII and 0x80 are code points.
    assert_eq!(decode(SHIFT_JIS, b"a\\~\x80"), "a\\~\u{80}");
    // Step 5: 0xA1 to 0xDF → U+FF61 − 0xA1 + byte.
    assert_eq!(decode(SHIFT_JIS, b"\xA1\xDF"), "\u{FF61}\u{FF9F}");
    // Step 7: 0xA0, 0xFD to 0xFF are errors.
    assert_eq!(decode(SHIFT_JIS, b"\xA0\xFD\xFE\xFFa"), "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}a");
}

#[test]
fn shift_jis_decoder_pointer_offsets() {
    let idx = indexes();
    // Step 3: offset 0x40 below 0x7F, else 0x41; leading offset 0x81 below 0xA0, else 0xC1.
    assert_eq!(decode(SHIFT_JIS, b"\x81\x40"), "\u{3000}");
    let at = |p: u32| char::from_u32(idx.jis0208[&p]).unwrap().to_string();
    assert_eq!(decode(SHIFT_JIS, b"\x81\x80"), at(63));
    assert_eq!(decode(SHIFT_JIS, b"\x88\x9F"), at(7 * 188 + 0x9F - 0x41));
    assert_eq!(decode(SHIFT_JIS, b"\xE0\x40"), at(31 * 188));
    assert_eq!(decode(SHIFT_JIS, b"\xFA\x40"), at(57 * 188));
    // 0x7F is not a trailing byte: ASCII, restored (step 3.10).
    assert_eq!(decode(SHIFT_JIS, b"\x81\x7F"), "\u{FFFD}\u{7F}");
    assert_eq!(fatal_errors(SHIFT_JIS, b"\x81\x7F"), [(0, 1)]);
    // 0xFD to 0xFF are not trailing bytes, and not ASCII: consumed.
    assert_eq!(decode(SHIFT_JIS, b"\x81\xFD"), "\u{FFFD}");
    assert_eq!(fatal_errors(SHIFT_JIS, b"\x81\xFD"), [(0, 2)]);
    // Null pointer with an ASCII trailing byte: the byte is restored.
    assert!(!idx.jis0208.contains_key(&((0x85 - 0x81) * 188)));
    assert_eq!(decode(SHIFT_JIS, b"\x85\x40"), "\u{FFFD}@");
}

#[test]
fn shift_jis_decoder_eudc() {
    // Step 3.7: pointers 8836 to 10715 are U+E000 − 8836 + pointer.
    assert_eq!(decode(SHIFT_JIS, b"\xF0\x40"), "\u{E000}");
    assert_eq!(decode(SHIFT_JIS, b"\xF9\xFC"), "\u{E757}");
    // Pointer 10716 is past the range: index jis0208.
    let idx = indexes();
    assert_eq!(decode(SHIFT_JIS, b"\xFA\x40"), char::from_u32(idx.jis0208[&10716]).unwrap().to_string());
}

#[test]
fn shift_jis_decoder_end_of_queue() {
    // Step 1: one error for a pending leading byte.
    assert_eq!(decode(SHIFT_JIS, b"a\x81"), "a\u{FFFD}");
    assert_eq!(fatal_errors(SHIFT_JIS, b"ab\x81"), [(2, 1)]);
}

// ---------------------------------------------------------------------------
// Shift_JIS encoder

#[test]
fn shift_jis_encoder_rules() {
    // Step 2: ASCII and U+0080. Steps 3–4: U+00A5 → 0x5C, U+203E → 0x7E.
    assert_eq!(encode_html(SHIFT_JIS, "a\u{80}\u{A5}\u{203E}"), b"a\x80\x5C\x7E");
    // Step 5: half-width katakana → one byte.
    assert_eq!(encode_html(SHIFT_JIS, "\u{FF61}\u{FF9F}"), b"\xA1\xDF");
    // Step 6: U+2212 → U+FF0D (pointer 60: 0x81 0x7C).
    assert_eq!(encode_html(SHIFT_JIS, "\u{2212}"), b"\x81\x7C");
    // EUDC code points are not in index jis0208: error.
    assert_eq!(encode_html(SHIFT_JIS, "\u{E000}"), b"&#57344;");
    // Step 11–12: leading offset 0xC1 from pointer 31 × 188 on, trailing offset 0x41
    // from 63 on.
    assert_eq!(encode_html(SHIFT_JIS, "\u{3000}"), b"\x81\x40");
    let idx = indexes();
    let c = idx.jis0208[&(31 * 188 + 63)];
    assert_eq!(idx.shift_jis_pointer[&c], 31 * 188 + 63);
    assert_eq!(encode_html(SHIFT_JIS, &char::from_u32(c).unwrap().to_string()), b"\xE0\x80");
}

#[test]
fn shift_jis_encoder_excludes_nec_selected_ibm_extensions() {
    // "index Shift_JIS pointer" leaves out pointers 8272 to 8835: a code point there
    // first uses its later (IBM extension) pointer.
    let idx = indexes();
    let mut moved = 0;
    for &(pointer, c) in &idx.jis0208_entries {
        if idx.jis0208_pointer[&c] != pointer || !(8272..=8835).contains(&pointer) {
            continue;
        }
        let sjis = idx.shift_jis_pointer[&c];
        assert!(sjis >= 10716, "U+{c:04X}");
        let text = char::from_u32(c).unwrap().to_string();
        let (lead, trail) = (sjis / 188, sjis % 188);
        let expected = [
            (lead + if lead < 0x1F { 0x81 } else { 0xC1 }) as u8,
            (trail + if trail < 0x3F { 0x40 } else { 0x41 }) as u8,
        ];
        assert_eq!(encode_html(SHIFT_JIS, &text), expected, "U+{c:04X}");
        // EUC-JP uses the first pointer, in 8272 to 8835.
        assert_eq!(encode_html(EUC_JP, &text), [(pointer / 94 + 0xA1) as u8, (pointer % 94 + 0xA1) as u8]);
        moved += 1;
    }
    assert!(moved > 300, "{moved}");
    // U+7E8A: pointer 8272 first, Shift_JIS pointer 10744 (0xFA 0x5C).
    assert_eq!(encode_html(SHIFT_JIS, "\u{7E8A}"), b"\xFA\x5C");
}

// ---------------------------------------------------------------------------
// Exhaustive: indexes

#[test]
fn every_jis0208_pointer_decodes() {
    let idx = indexes();
    for &(p, c) in &idx.jis0208_entries {
        let expected = char::from_u32(c).unwrap().to_string();
        if p < 94 * 94 {
            // EUC-JP decoder step 5.4 and ISO-2022-JP trailing byte state.
            let euc = [(p / 94 + 0xA1) as u8, (p % 94 + 0xA1) as u8];
            assert_eq!(decode(EUC_JP, &euc), expected, "EUC-JP pointer {p}");
            let iso = [0x1B, b'$', b'B', (p / 94 + 0x21) as u8, (p % 94 + 0x21) as u8];
            assert_eq!(decode(ISO_2022_JP, &iso), expected, "ISO-2022-JP pointer {p}");
        }
        // Shift_JIS decoder step 3: the inverse of the pointer formula.
        let (lead, trail) = (p / 188, p % 188);
        let sjis = [
            (lead + if lead < 0x1F { 0x81 } else { 0xC1 }) as u8,
            (trail + if trail < 0x3F { 0x40 } else { 0x41 }) as u8,
        ];
        assert_eq!(decode(SHIFT_JIS, &sjis), expected, "Shift_JIS pointer {p}");
    }
    // Shift_JIS EUDC: pointers 8836 to 10715.
    for p in 8836..=10715u32 {
        let (lead, trail) = (p / 188, p % 188);
        let sjis = [(lead + 0xC1) as u8, (trail + if trail < 0x3F { 0x40 } else { 0x41 }) as u8];
        assert_eq!(decode(SHIFT_JIS, &sjis), char::from_u32(0xE000 - 8836 + p).unwrap().to_string());
    }
}

#[test]
fn every_jis0212_pointer_decodes() {
    for &(p, c) in &indexes().jis0212_entries {
        let bytes = [0x8F, (p / 94 + 0xA1) as u8, (p % 94 + 0xA1) as u8];
        assert_eq!(decode(EUC_JP, &bytes), char::from_u32(c).unwrap().to_string(), "pointer {p}");
    }
}

#[test]
fn every_jis0208_code_point_encodes() {
    let idx = indexes();
    for (&c, &first) in &idx.jis0208_pointer {
        let text = char::from_u32(c).unwrap().to_string();
        // EUC-JP encoder steps 7–11: the index pointer.
        assert_eq!(encode_html(EUC_JP, &text), [(first / 94 + 0xA1) as u8, (first % 94 + 0xA1) as u8]);
        // ISO-2022-JP encoder steps 10–15.
        let mut iso = b"\x1B$B".to_vec();
        iso.extend([(first / 94 + 0x21) as u8, (first % 94 + 0x21) as u8]);
        iso.extend(b"\x1B(B");
        assert_eq!(encode_html(ISO_2022_JP, &text), iso, "U+{c:04X}");
        // Shift_JIS encoder steps 7–13: the index Shift_JIS pointer.
        let p = idx.shift_jis_pointer[&c];
        let (lead, trail) = (p / 188, p % 188);
        let sjis = [
            (lead + if lead < 0x1F { 0x81 } else { 0xC1 }) as u8,
            (trail + if trail < 0x3F { 0x40 } else { 0x41 }) as u8,
        ];
        assert_eq!(encode_html(SHIFT_JIS, &text), sjis, "U+{c:04X}");
    }
}

// ---------------------------------------------------------------------------
// Exhaustive: byte pairs and scalar values against the reference model

fn check_all_pairs(kind: Kind, prefix: &[u8]) {
    let encoding = kind.encoding();
    let mut bytes = prefix.to_vec();
    bytes.extend([0, 0]);
    let n = prefix.len();
    for pair in 0..=0xFFFFu32 {
        bytes[n] = (pair >> 8) as u8;
        bytes[n + 1] = pair as u8;
        let (expected, errors) = jk::ref_decode(kind, &bytes);
        assert_eq!(decode(encoding, &bytes), expected, "{kind:?} {bytes:02X?}");
        let (text, fatal) = jk::decode_whole(encoding, whatenc::ErrorMode::Fatal, &bytes);
        assert_eq!((text, fatal.len()), (expected.replace('\u{FFFD}', ""), errors), "{kind:?} fatal {bytes:02X?}");
    }
}

/// Every byte pair between two characters of `around` (the pair-at-a-time run into
/// UTF-16 takes two bytes a step, whatever the first is; into UTF-8, pairs go
/// through a table of UTF-8 forms), decoded into UTF-16 and into UTF-8 in one call,
/// against the reference model.
fn check_all_pairs_in_a_run(kind: Kind, around: &[u8]) {
    let encoding = kind.encoding();
    let mut bytes = [around, b"\0\0", around, around].concat();
    let n = around.len();
    let mut units = vec![0u16; 2 * bytes.len() + 16];
    for pair in 0..=0xFFFFu32 {
        bytes[n] = (pair >> 8) as u8;
        bytes[n + 1] = pair as u8;
        let (expected, _) = jk::ref_decode(kind, &bytes);
        let progress = encoding.new_decoder().decode_to_utf16(&bytes, &mut units, true);
        assert_eq!(progress.read, bytes.len());
        assert_eq!(String::from_utf16(&units[..progress.written]).unwrap(), expected, "{kind:?} {bytes:02X?}");
        assert_eq!(decode(encoding, &bytes), expected, "{kind:?} {bytes:02X?}");
    }
}

#[test]
fn every_euc_jp_byte_pair() {
    check_all_pairs(Kind::EucJp, b"");
    // 0x8F and every pair after it (jis0212).
    check_all_pairs(Kind::EucJp, b"\x8F");
    // "日本" around each pair.
    check_all_pairs_in_a_run(Kind::EucJp, b"\xC6\xFC\xCB\xDC");
}

#[test]
fn every_shift_jis_byte_pair() {
    check_all_pairs(Kind::ShiftJis, b"");
    // "日本" around each pair.
    check_all_pairs_in_a_run(Kind::ShiftJis, b"\x93\xFA\x96\x7B");
}

#[test]
fn every_iso_2022_jp_byte_pair() {
    // Each pair in each state, and after ESC.
    for prefix in [&b""[..], b"\x1B(J", b"\x1B(I", b"\x1B$B", b"\x1B$@", b"\x1B", b"\x1B$B\x1B"] {
        check_all_pairs(Kind::Iso2022Jp, prefix);
    }
}

fn check_all_scalars(kind: Kind) {
    let encoding = kind.encoding();
    let scalars: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
    for chunk in scalars.chunks(64) {
        let text: String = chunk.iter().collect();
        let expected = jk::ref_encode(kind, &text);
        if encode_whole(encoding, &text) != expected {
            for &c in chunk {
                let text = c.to_string();
                assert_eq!(encode_whole(encoding, &text), jk::ref_encode(kind, &text), "{kind:?} U+{:04X}", c as u32);
            }
            panic!("{kind:?}: {text:?}");
        }
    }
}

#[test]
fn every_scalar_value_euc_jp() {
    check_all_scalars(Kind::EucJp);
}

#[test]
fn every_scalar_value_shift_jis() {
    check_all_scalars(Kind::ShiftJis);
}

#[test]
fn every_scalar_value_iso_2022_jp() {
    check_all_scalars(Kind::Iso2022Jp);
    // Each one alone from each encoder state (reached through a prefix).
    for prefix in ["", "\u{A5}", "\u{65E5}"] {
        for c in (0..=0xFFFFu32).chain([0x1F600]).filter_map(char::from_u32) {
            let text = format!("{prefix}{c}");
            let got = encode_whole(ISO_2022_JP, &text);
            assert_eq!(got, jk::ref_encode(Kind::Iso2022Jp, &text), "{text:?}");
        }
    }
}

// ---------------------------------------------------------------------------
// Streaming: random inputs against the reference model, cut everywhere

fn random_bytes(rng: &mut Rng, alphabet: &[u8]) -> Vec<u8> {
    let len = rng.below(14);
    (0..len).map(|_| if rng.below(4) == 0 { rng.next() as u8 } else { rng.pick(alphabet) }).collect()
}

#[test]
fn streaming_decoders_match_reference() {
    let mut rng = Rng(0x1A2B_3C4D);
    let cases: [(Kind, &[u8]); 3] = [
        (Kind::EucJp, b"aA\x8E\x8F\xA1\xA2\xAF\xB0\xDF\xFE\x80\xFF\x41"),
        (Kind::ShiftJis, b"a\x80\x81\x40\x7F\xFC\xA1\xE0\xF0\xFA\xFD\x9F"),
        (Kind::Iso2022Jp, b"\x1B\x1B\x1B$(BJI@0!~\\\x0E\x80a"),
    ];
    for (kind, alphabet) in cases {
        for _ in 0..1500 {
            let bytes = random_bytes(&mut rng, alphabet);
            if let Err(message) = check_decode_streaming(kind, &bytes) {
                panic!("{kind:?}: {message}");
            }
        }
    }
}

#[test]
fn streaming_encoders_match_reference() {
    let mut rng = Rng(0x5EED);
    let alphabet = [
        'a',
        '\\',
        '~',
        '\u{0E}',
        '\u{1B}',
        '\u{80}',
        '\u{A5}',
        '\u{203E}',
        '\u{2212}',
        '\u{FF61}',
        '\u{FF71}',
        '\u{FF9F}',
        '\u{65E5}',
        '\u{7E8A}',
        '\u{2252}',
        '\u{02D8}',
        '\u{E000}',
        '\u{2603}',
        '\u{1F600}',
        '\u{AC00}',
    ];
    for kind in [Kind::EucJp, Kind::ShiftJis, Kind::Iso2022Jp] {
        for _ in 0..600 {
            let len = rng.below(8);
            let text: String = (0..len).map(|_| rng.pick(&alphabet)).collect();
            if let Err(message) = check_encode_streaming(kind, &text) {
                panic!("{kind:?}: {message}");
            }
        }
    }
}

/// ISO-2022-JP from `&str`: ASCII between characters of jis0208, which the jis0208
/// state's run writes itself (steps 6, 4, 12 and 13 to 15) up to sixteen bytes and
/// leaves to the byte-at-a-time steps otherwise: every length of the gap around that
/// bound, with each kind of character after it (one with a pointer, U+00A5 and U+203E
/// of step 7, U+2212 and half-width katakana of steps 8 and 9, one with no pointer,
/// the end of the text) and with the bytes that step 3 makes errors inside it, against
/// the reference model, whole, split at every point and into small buffers.
#[test]
fn iso_2022_jp_encoder_ascii_between_jis0208() {
    let afters = ["\u{65E5}", "\u{A5}", "\u{203E}", "\u{2212}", "\u{FF71}", "\u{2603}", "\u{1F600}", ""];
    for len in 0..=19 {
        let plain: String =
            (0..len).map(|i: usize| if i % 3 == 2 { '\\' } else { char::from(b'a' + (i % 26) as u8) }).collect();
        let mut gaps = vec![plain.clone()];
        for at in [0, len / 2, len.saturating_sub(1)] {
            if at < len {
                for control in ['\u{0E}', '\u{0F}', '\u{1B}'] {
                    let mut gap: Vec<char> = plain.chars().collect();
                    gap[at] = control;
                    gaps.push(gap.into_iter().collect());
                }
            }
        }
        for gap in &gaps {
            for after in afters {
                let text = format!("\u{65E5}\u{672C}{gap}{after}\u{8A9E}");
                if let Err(message) = check_encode_streaming(Kind::Iso2022Jp, &text) {
                    panic!("{message}");
                }
                // Every output size from the least one: a gap's bytes leave the run's
                // room at any parity.
                let expected = ref_encode(Kind::Iso2022Jp, &text);
                for out in 14..=48 {
                    assert_eq!(encode_chunks(ISO_2022_JP, &[&text], out), expected, "{text:?} out {out}");
                }
            }
        }
    }
}

#[test]
fn long_text_round_trips() {
    // Every jis0208 code point (by first pointer), with ASCII between, through each
    // encoder and back, in one call.
    let idx = indexes();
    let mut text = String::new();
    for &(p, c) in &idx.jis0208_entries {
        if idx.jis0208_pointer[&c] == p {
            text.push(char::from_u32(c).unwrap());
            if p % 7 == 0 {
                text.push('x');
            }
        }
    }
    for encoding in [EUC_JP, SHIFT_JIS, ISO_2022_JP] {
        let (bytes, errors) = encode_whole(encoding, &text);
        assert!(errors.is_empty());
        assert_eq!(bytes, encode_html(encoding, &text));
        assert_eq!(decode(encoding, &bytes), text, "{}", encoding.name());
    }
}

// ---------------------------------------------------------------------------
// encoding_rs as an extra oracle (the standard is the authority)

/// The (input, ours, encoding_rs) of each disagreement, for the report.
fn report(what: &str, mismatches: &[String]) {
    assert!(
        mismatches.is_empty(),
        "{what}: {} disagreements with encoding_rs, e.g. {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(20)]
    );
}

#[test]
fn encoding_rs_agrees_on_byte_pairs() {
    let pairs =
        [(EUC_JP, encoding_rs::EUC_JP), (SHIFT_JIS, encoding_rs::SHIFT_JIS), (ISO_2022_JP, encoding_rs::ISO_2022_JP)];
    let mut mismatches = Vec::new();
    for (ours, theirs) in pairs {
        for prefix in [&b""[..], b"\x8F", b"\x1B$B", b"\x1B(J", b"\x1B(I", b"\x1B"] {
            let mut bytes = prefix.to_vec();
            bytes.extend([0, 0]);
            let n = prefix.len();
            for pair in 0..=0xFFFFu32 {
                bytes[n] = (pair >> 8) as u8;
                bytes[n + 1] = pair as u8;
                let (expected, _) = theirs.decode_without_bom_handling(&bytes);
                let got = decode(ours, &bytes);
                if got != expected {
                    mismatches.push(format!("{} {bytes:02X?}: {got:?} vs {expected:?}", ours.name()));
                }
            }
        }
    }
    report("decoding", &mismatches);
}

#[test]
fn encoding_rs_agrees_on_scalar_values() {
    let pairs =
        [(EUC_JP, encoding_rs::EUC_JP), (SHIFT_JIS, encoding_rs::SHIFT_JIS), (ISO_2022_JP, encoding_rs::ISO_2022_JP)];
    let mut mismatches = Vec::new();
    for (ours, theirs) in pairs {
        for prefix in ["", "\u{A5}", "\u{65E5}"] {
            for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
                if c as u32 > 0xFFFF && !(c as u32).is_multiple_of(97) {
                    continue;
                }
                let text = format!("{prefix}{c}");
                let (expected, _, _) = theirs.encode(&text);
                let got = encode_html(ours, &text);
                if got != *expected {
                    mismatches.push(format!("{} {text:?}: {got:02X?} vs {expected:02X?}", ours.name()));
                }
            }
        }
    }
    report("encoding", &mismatches);
}

/// ISO-2022-JP encoder step 3 inside a long ASCII run, which the encoder copies in
/// bulk: the escape-like byte is still an error at its place, in every state and
/// whatever the output room.
#[test]
fn iso_2022_jp_encoder_stops_bulk_ascii_at_escape_bytes() {
    for escape in ['\u{0E}', '\u{0F}', '\u{1B}'] {
        let text = format!("{}{escape}{}日本{}", "a".repeat(40), "b".repeat(20), "c".repeat(30));
        let expected = format!("{}&#65533;{}\x1B$BF|K\\\x1B(B{}", "a".repeat(40), "b".repeat(20), "c".repeat(30));
        for size in [14, 15, 20, 33, 64, 200] {
            let mut encoder = whatenc::ISO_2022_JP.new_encoder_with(whatenc::EncoderErrorMode::Html).unwrap();
            let mut out = Vec::new();
            let mut rest = text.as_str();
            loop {
                let mut buf = vec![0u8; size];
                let progress = encoder.encode_from_utf8(rest, &mut buf, true);
                out.extend_from_slice(&buf[..progress.written]);
                rest = &rest[progress.read..];
                if progress.result == whatenc::EncoderResult::InputEmpty {
                    break;
                }
            }
            assert_eq!(String::from_utf8(out).unwrap(), expected, "{escape:?} {size}");
            let units: Vec<u16> = text.encode_utf16().collect();
            let mut encoder = whatenc::ISO_2022_JP.new_encoder().unwrap();
            let mut buf = vec![0u8; 400];
            let progress = encoder.encode_from_utf16(&units, &mut buf, true);
            assert_eq!(progress.result, whatenc::EncoderResult::Unmappable('\u{FFFD}'));
            assert_eq!((progress.read, &buf[..progress.written]), (41, "a".repeat(40).as_bytes()));
        }
    }
}
