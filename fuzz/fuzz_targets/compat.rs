//! whatenc-encoding-rs against encoding_rs: one encoding, BOM handling, method and
//! output room chosen by the fuzzer, the input cut at fuzzer-chosen points. The
//! same checks as the compat crate's differential tests (whose drivers this reuses).
//!
//! Input layout: byte 0 picks the encoding, byte 1 the BOM handling and the method,
//! byte 2 the output room (0–16, or the `max_*` length), byte 3 seeds the cuts; the
//! rest is the input (bytes to decode, or text to encode, lossily as UTF-8 or as
//! UTF-16 code units).
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../crates/whatenc-encoding-rs/tests/common/mod.rs"]
mod common;

use common::*;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

fn check(data: &[u8]) {
    let [e, m, r, s, input @ ..] = data else { return };
    let (c, reference) = PAIRS[usize::from(*e) % PAIRS.len()];
    let room = match *r % 18 {
        17 => Room::Max,
        n => Room::Fixed(usize::from(n)),
    };
    let mut rng = Rng::new(u64::from(*s));
    if m & 0x80 == 0 {
        let bom = BOMS[usize::from(m & 3) % 3];
        let method = DECODE_METHODS[usize::from(m >> 2) % 8];
        // No empty pieces in the middle: encoding_rs's Big5 decoder loses a held
        // lead over an empty call (the compat crate's README: known differences).
        let mut cuts: Vec<usize> = (0..rng.below(6)).map(|_| rng.below(input.len() + 1)).collect();
        cuts.sort_unstable();
        cuts.dedup();
        cuts.retain(|&cut| cut != 0 && cut != input.len());
        let pieces = split(input, &cuts);
        let compat = drive_compat_decoder(compat_decoder(c, bom), method, &pieces, room);
        let full = drive_ref_decoder(ref_decoder(reference, bom), method, &pieces, Room::Fixed(4 * input.len() + 16));
        if let Room::Max = room {
            let exact = drive_ref_decoder(ref_decoder(reference, bom), method, &pieces, Room::Max);
            assert!(!compat.stuck && compat.calls.iter().all(|call| call.result != "OutputFull"));
            if !(method.strict() && exact.had_errors()) {
                assert_eq!(compat, exact);
            }
        }
        compare(&compat, &full, method.min_room(), room);
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
        let compat = drive_compat_encoder(c.new_encoder(), method, &pieces, room);
        let full = drive_ref_encoder(reference.new_encoder(), method, &pieces, Room::Fixed(16 * text.len() + 64));
        if let (Room::Max, true) = (room, method.strict()) {
            assert_eq!(compat, drive_ref_encoder(reference.new_encoder(), method, &pieces, Room::Max));
        }
        compare(&compat, &full, 10, room);
    }
}

/// The text, errors and final state agree; a stuck run (too small a room) is a
/// prefix of the whole text.
fn compare(compat: &Transcript, full: &Transcript, min_room: usize, room: Room) {
    if compat.stuck {
        assert!(matches!(room, Room::Fixed(n) if n < min_room));
        let text = compat.text();
        assert_eq!(text[..], full.text()[..text.len()]);
        return;
    }
    assert_eq!(compat.text(), full.text());
    assert_eq!(compat.had_errors(), full.had_errors());
    let kinds = |t: &Transcript| -> Vec<String> {
        t.errors().into_iter().map(|(r, _)| r.split(',').next().unwrap().to_string()).collect()
    };
    assert_eq!(kinds(compat), kinds(full));
    assert_eq!(compat.encoding, full.encoding);
}
