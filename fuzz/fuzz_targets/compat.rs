//! whatenc-encoding-rs against encoding_rs: one encoding, BOM handling, method and
//! output room chosen by the fuzzer, the input cut at fuzzer-chosen points. The
//! same checks as the compat crate's differential tests (whose drivers this reuses):
//! every call gives the same result, read, written, had_errors and output, at
//! every room from 0 to 16 and at the `max_*` lengths, and a stream that makes no
//! progress stops at the same call.
//!
//! Input layout: byte 0 picks the encoding, byte 1 the BOM handling and the method,
//! byte 2 the output room (0–16, or the `max_*` length), byte 3 seeds the cuts and
//! picks the tier of kernels (`whatenc_fuzz::pick_tiers`); the rest is the input
//! (bytes to decode, or text to encode, lossily as UTF-8 or as UTF-16 code units).
//!
//! Left out, as in the tests (the compat crate's README: known differences): calls
//! on which encoding_rs panics, empty pieces between others (where encoding_rs's
//! Big5 decoder loses a held lead byte), and UTF-16 text whose surrogate pair
//! encoding_rs splits with one byte of room left in a single-byte encoding.
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../crates/whatenc-encoding-rs/tests/common/mod.rs"]
mod common;

use common::*;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

/// Runs encoding_rs, or `None` where it panics.
fn reference<T>(run: impl FnOnce() -> T + std::panic::UnwindSafe) -> Option<T> {
    std::panic::catch_unwind(run).ok()
}

fn check(data: &[u8]) {
    let [e, m, r, s, input @ ..] = data else { return };
    let (c, reference_encoding) = PAIRS[usize::from(*e) % PAIRS.len()];
    let room = match *r % 18 {
        17 => Room::Max,
        n => Room::Fixed(usize::from(n)),
    };
    let mut rng = Rng::new(u64::from(*s));
    // Each tier of kernels the CPU has, by the seed byte.
    whatenc::set_max_tier(whatenc_fuzz::pick_tiers(*s).0);
    if m & 0x80 == 0 {
        let bom = BOMS[usize::from(m & 3) % 3];
        let method = DECODE_METHODS[usize::from(m >> 2) % 8];
        let mut cuts: Vec<usize> = (0..rng.below(6)).map(|_| rng.below(input.len() + 1)).collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts.retain(|&cut| cut != 0 && cut != input.len());
        let pieces = split(input, &cuts);
        let Some(expected) =
            reference(|| drive_ref_decoder(ref_decoder(reference_encoding, bom), method, &pieces, room))
        else {
            return;
        };
        let actual = drive_compat_decoder(compat_decoder(c, bom), method, &pieces, room);
        assert_eq!(actual, expected);
    } else {
        let method = ENCODE_METHODS[usize::from(m & 0x7F) % 6];
        let text = if method.utf16() {
            Text::Utf16(input.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect())
        } else {
            Text::Utf8(String::from_utf8_lossy(input).into_owned())
        };
        let mut cuts: Vec<usize> = (0..rng.below(4)).map(|_| rng.below(text.len() + 1)).collect();
        cuts.sort_unstable();
        let pieces = split_text(&text, &cuts);
        let expected = drive_ref_encoder(reference_encoding.new_encoder(), method, &pieces, room);
        if method.utf16() && !expected.stuck {
            // encoding_rs's output depends on the room only where it splits a pair.
            let full =
                drive_ref_encoder(reference_encoding.new_encoder(), method, &pieces, Room::Fixed(16 * text.len() + 64));
            let unmappables = |t: &Transcript| -> Vec<String> {
                t.calls.iter().filter(|call| call.result.starts_with("Unmappable")).map(|c| c.result.clone()).collect()
            };
            if expected.text() != full.text() || unmappables(&expected) != unmappables(&full) {
                return;
            }
        }
        let actual = drive_compat_encoder(c.new_encoder(), method, &pieces, room);
        assert_eq!(actual, expected);
    }
}
