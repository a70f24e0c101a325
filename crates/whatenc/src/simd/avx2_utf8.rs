//! UTF-8 → UTF-16 with AVX2, chosen at run time (with `std`) where the CPU has AVX2
//! and POPCNT, the cap on the tier allows AVX2, and the AVX-512 kernel
//! ([`super::avx512_utf8`]) does not run: 32 bytes a step, whatever their mix of
//! lengths, each step that is not ASCII checked as it goes with the AVX2 validation
//! kernel's block check ([`super::utf8_check`]).
//!
//! A step starts at a character and takes the characters that start in its first 30
//! bytes (each, of at most three bytes, ends inside the step). Each byte, with the two
//! after it, is made into the code unit of a character that would start there (ASCII,
//! two bytes or three): its low and its high byte each worked out for all 32 bytes in
//! 8-bit lanes, then interleaved into 16-bit lanes ([`code_units`]); the lanes of the
//! characters' first bytes are then packed eight at a time by a byte shuffle
//! (`pshufb`, a row of [`UNIT_SHUFFLES`] for each eight bits of the mask) and stored.
//! Each half of the step had been widened to 16-bit lanes first (`vpmovzxbw`, which
//! crosses the 128-bit lanes) and the units worked out there, twice the work: time as
//! a share of encoding_rs's, rotating, `AMD EPYC` Zen 1, → UTF-16: cs.txt 0.33 →
//! 0.25, el.txt 0.28 → 0.22, he.txt 0.27 → 0.21, ru.txt 0.27 → 0.23, vi.txt 0.21 →
//! 0.16, ko.txt 0.26 → 0.21, de.txt 0.73 → 0.63, ja.txt 0.44 → 0.39. (A branch to
//! the two-byte units alone, where a step has no longer lead, gained nothing more.)
//! A character of four bytes (a surrogate pair, rare) ends the characters a step
//! takes, and is decoded alone, as in the AVX-512 kernel. The twin is
//! [`super::scalar::utf8_prefix_to_utf16`], and the tests compare them.
//!
//! A step of ten three-byte characters (text in Chinese, Japanese, Thai) hands over to
//! [`three_byte_run`], the SSSE3 run's twin with two of its steps of five at once,
//! which decodes them in one pass, checking each as it goes, until a character that is
//! not one; the steps go on from there. Against the steps alone, rotating, `AMD EPYC`
//! Zen 1, → UTF-16, time as a share of encoding_rs's in the same run: ja.txt 0.54 →
//! 0.41, th.txt 0.53 → 0.42, zh_cn.txt 0.49 → 0.43, ja.html 0.54 → 0.55; but cs.txt
//! 0.30 → 0.31 and vi.txt 0.18 → 0.19, for the test in each step. With the run called
//! from the steps' loop, Czech text (no run) lost 7%: fewer of the loop's constants
//! stayed in registers around the call.

use super::scalar::three_byte_step_end;
use super::shuffles::{RUN_BITS, RUN_LEADS, RUN_SHAPE, RUN_SHAPE_MASK, RUN_TAILS};
use super::utf8_check::step_shows_error;
use core::arch::x86_64::{
    __m256i, _mm_loadu_si128, _mm_storeu_si128, _mm256_and_si256, _mm256_blendv_epi8, _mm256_broadcastsi128_si256,
    _mm256_castsi128_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_cmpeq_epi16, _mm256_cmpgt_epi8,
    _mm256_cvtepu8_epi16, _mm256_extracti128_si256, _mm256_inserti128_si256, _mm256_loadu_si256, _mm256_maddubs_epi16,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_set1_epi16, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_srli_epi16, _mm256_storeu_si256, _mm256_unpackhi_epi8,
    _mm256_unpacklo_epi8,
};

/// Whether this kernel runs: the cap on the tier ([`crate::tier`]) allows AVX2, and
/// the CPU has AVX2 and POPCNT (`std` caches the answer; without `std`, only when the
/// build targets them).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::avx2::available() && super::cpu_has!("popcnt")
}

/// The bytes of a step.
const BLOCK: usize = 32;

/// The characters a step takes are those that start before this byte: each, of at
/// most three bytes, ends inside the step.
const STARTS: usize = BLOCK - 2;

/// The bytes a step reads: its own, and the two after it (the second and third bytes
/// of the code units made at its last two bytes, not taken).
const READS: usize = BLOCK + 2;

/// For each 8-bit mask, the `pshufb` indexes that gather the 16-bit lanes of a
/// 128-bit vector whose bits are set, in order (zeros after them).
pub(super) static UNIT_SHUFFLES: [[u8; 16]; 256] = {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut lane, mut kept) = (0, 0);
        while lane < 8 {
            if mask >> lane & 1 != 0 {
                table[mask][2 * kept] = 2 * lane as u8;
                table[mask][2 * kept + 1] = 2 * lane as u8 + 1;
                kept += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// Decodes to UTF-16 the start of `src` that is valid UTF-8, in steps of 32 bytes:
/// up to the step that shows an error, or to the last 33 bytes or fewer. Returns the
/// bytes read (at a character boundary, all of them valid) and the units written;
/// `dst.len() >= src.len()`. Stores may go past the units written, inside `dst`, by
/// at most 8 units.
///
/// # Safety
/// The CPU must have AVX2 and POPCNT: call it only where [`available`] returned
/// `true`.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn utf8_prefix_steps(bytes: &[u8], dst: &mut [u16]) -> (usize, usize) {
    assert!(dst.len() >= bytes.len());
    let prefetch = bytes.len() >= super::avx2_utf16::PREFETCH_FROM && super::x86_64::prefetch_pays();
    let (mut read, mut written, mut no_run_at) = (0, 0, usize::MAX);
    loop {
        // SAFETY: the CPU has AVX2 and POPCNT (the caller's precondition).
        let (r, w, run) = unsafe { steps(bytes, dst, read, written, prefetch, no_run_at) };
        if !run {
            return (r, w);
        }
        // The run is called from here, not from the steps' loop (see the module
        // doc).
        // SAFETY: the CPU has AVX2.
        let (after, units) = unsafe { three_byte_run(bytes, dst, r, w) };
        // Where the run takes nothing (an error at its start), the step goes on as
        // any other.
        no_run_at = if after == r { r } else { usize::MAX };
        (read, written) = (after, units);
    }
}

/// The steps of [`utf8_prefix_steps`] from `read` and `written`, up to the end of
/// their input or an error (`false`), or up to a step (not at `no_run_at`) that
/// looks like ten three-byte characters (`true`), where [`three_byte_run`] goes on.
///
/// # Safety
/// The CPU must have AVX2 and POPCNT.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn steps(
    bytes: &[u8],
    dst: &mut [u16],
    mut read: usize,
    mut written: usize,
    prefetch: bool,
    no_run_at: usize,
) -> (usize, usize, bool) {
    let (src, out) = (bytes.as_ptr(), dst.as_mut_ptr());
    // Each byte read makes at most one unit, so `dst` has room for as many units as
    // there are bytes left: 34 while a step is read.
    while read + READS <= bytes.len() {
        if prefetch {
            super::avx2_utf16::prefetch_at(src.wrapping_add(read));
        }
        // SAFETY: `read + 34 <= bytes.len()`; the CPU has AVX2 (the caller's
        // precondition).
        let v = unsafe { _mm256_loadu_si256(src.add(read).cast()) };
        let high = _mm256_movemask_epi8(v) as u32;
        if high == 0 {
            // SAFETY: `dst` has room for 32 units from `written` (see above).
            unsafe {
                _mm256_storeu_si256(out.add(written).cast(), _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)));
                _mm256_storeu_si256(
                    out.add(written + 16).cast(),
                    _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(v)),
                );
            }
            read += BLOCK;
            written += BLOCK;
            continue;
        }
        // The bytes before the step, from memory where there are three (a step after
        // a four-byte character may start at 1 or 2), else as zeros: they end a whole,
        // valid character, so that, as zeros, they make no byte of the step the
        // second, third or fourth of a sequence. (An ASCII step needs no check: it
        // starts after a whole character.)
        // SAFETY: `read + BLOCK <= bytes.len()`; the CPU has AVX2.
        if unsafe { step_shows_error(bytes, read, v) } {
            break;
        }
        // The characters' first bytes: every byte but the continuation bytes (0x80 to
        // 0xBF, less than -64 as `i8`).
        let starts = !(_mm256_movemask_epi8(_mm256_cmpgt_epi8(_mm256_set1_epi8(-64), v)) as u32);
        // A step of ten characters of three bytes (their first bytes every third, each
        // a lead of three bytes or more: E0 or more, more than -33 as `i8`): the run
        // of three-byte characters from here, ten at a step, then the steps again.
        if starts & 0x3FFF_FFFF == TEN_THREE_BYTE_LEADS
            && read != no_run_at
            && (_mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-33))) as u32) & TEN_THREE_BYTE_LEADS
                == TEN_THREE_BYTE_LEADS
        {
            return (read, written, true);
        }
        // Four-byte leads: F0 or more (more than -17 as `i8`, among the bytes that
        // are not ASCII).
        let four = high & _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, _mm256_set1_epi8(-17))) as u32;
        let end = (four.trailing_zeros() as usize).min(STARTS);
        if end == 0 {
            // A four-byte character first (valid: inside the step): a surrogate pair.
            dst[written..written + 2].copy_from_slice(&super::surrogate_pair(&bytes[read..read + 4]));
            read += 4;
            written += 2;
            continue;
        }
        let taken = starts & ((1u32 << end) - 1);
        // The step ends where the next character starts: at `end` itself when that
        // is a four-byte one, else at the first start from `STARTS` on (one of the
        // two bytes there, or the byte after the step, starts a character, in valid
        // UTF-8 of characters of at most three bytes).
        let next = if end < STARTS {
            end
        } else {
            STARTS + ((u64::from(starts) | 1 << BLOCK) >> STARTS).trailing_zeros() as usize
        };
        // SAFETY: `read + 34 <= bytes.len()`; the CPU has AVX2.
        let (second, third) =
            unsafe { (_mm256_loadu_si256(src.add(read + 1).cast()), _mm256_loadu_si256(src.add(read + 2).cast())) };
        let (units_low, units_high) = code_units(v, second, third);
        // The characters taken among bytes 0 to 7, 8 to 15, 16 to 23 and 24 to 31: the
        // units of the first and third eight are in `units_low`'s 128-bit lanes, of
        // the second and fourth in `units_high`'s.
        let kept = [taken & 0xFF, (taken >> 8) & 0xFF, (taken >> 16) & 0xFF, taken >> 24].map(|k| k as usize);
        // SAFETY: the rows of the table have 16 bytes; `dst` has room for 34 units
        // from `written` (see above), and the last store of 8 starts at most 24 units
        // past it; the CPU has AVX2 and POPCNT.
        unsafe {
            let row = |k: usize| _mm_loadu_si128(UNIT_SHUFFLES[k].as_ptr().cast());
            let low = _mm256_shuffle_epi8(
                units_low,
                _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(row(kept[0])), row(kept[2])),
            );
            let high = _mm256_shuffle_epi8(
                units_high,
                _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(row(kept[1])), row(kept[3])),
            );
            let counts = kept.map(|k| k.count_ones() as usize);
            let at = out.add(written);
            _mm_storeu_si128(at.cast(), _mm256_castsi256_si128(low));
            _mm_storeu_si128(at.add(counts[0]).cast(), _mm256_castsi256_si128(high));
            _mm_storeu_si128(at.add(counts[0] + counts[1]).cast(), _mm256_extracti128_si256::<1>(low));
            _mm_storeu_si128(at.add(counts[0] + counts[1] + counts[2]).cast(), _mm256_extracti128_si256::<1>(high));
        }
        written += taken.count_ones() as usize;
        read += next;
    }
    (read, written, false)
}

/// The first bytes of ten three-byte characters in a step's first 30 bytes: a step
/// whose characters start there, each with a lead of three bytes or more, goes to
/// [`three_byte_run`] instead.
const TEN_THREE_BYTE_LEADS: u32 = 0x0924_9249;

/// The twin of `ssse3::three_byte_run` with two of its steps at once: decodes the
/// run of whole, valid three-byte sequences at `bytes[read..]` into `dst[written..]`,
/// ten characters (30 bytes) a step, the first five in the low 128-bit lane (bytes 0
/// to 15) and the next five in the high one (bytes 15 to 30), each lane as the SSSE3
/// step does it; stops at the first character that is not one of them (it may be
/// valid, or an error: the run reads only what is valid), or where fewer than 32
/// bytes or 16 units of room are left. Returns where it stopped in each. Stores may
/// go past the units written, inside `dst`, by at most 8 units.
///
/// # Safety
/// The CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn three_byte_run(bytes: &[u8], dst: &mut [u16], mut read: usize, mut written: usize) -> (usize, usize) {
    // The SSSE3 run's vectors in both 128-bit lanes.
    // SAFETY: each array holds 16 readable bytes.
    let load = |bytes: &[u8; 16]| unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(bytes.as_ptr().cast())) };
    let (shape_mask, shape, bits) = (load(&RUN_SHAPE_MASK), load(&RUN_SHAPE), load(&RUN_BITS));
    let (tails, leads) = (load(&RUN_TAILS), load(&RUN_LEADS));
    let (src, out) = (bytes.as_ptr(), dst.as_mut_ptr());
    while read + 32 <= bytes.len() && written + 16 <= dst.len() {
        // SAFETY: bytes `read` to `read + 31` are readable.
        let v = unsafe {
            _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(src.add(read).cast())),
                _mm_loadu_si128(src.add(read + 15).cast()),
            )
        };
        let shaped = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(v, shape_mask), shape)) as u32;
        let payload = _mm256_and_si256(v, bits);
        // The last byte's six bits, and the middle byte's six above them.
        let low = _mm256_maddubs_epi16(_mm256_shuffle_epi8(payload, tails), _mm256_set1_epi16(0x4001));
        let high = _mm256_slli_epi16::<4>(_mm256_shuffle_epi8(payload, leads));
        let units = _mm256_or_si256(low, high);
        // Overlong (the top five bits zero) or a surrogate (11011); lanes 5 to 7 of
        // each half are zero, so bad.
        let top = _mm256_and_si256(units, _mm256_set1_epi16(0xF800_u16 as i16));
        let bad = _mm256_movemask_epi8(_mm256_or_si256(
            _mm256_cmpeq_epi16(top, _mm256_setzero_si256()),
            _mm256_cmpeq_epi16(top, _mm256_set1_epi16(0xD800_u16 as i16)),
        )) as u32;
        // Each half as the SSSE3 step: the characters before the first of the wrong
        // shape (three bytes each) and before the first bad unit (two mask bits
        // each). Each half stores eight units (the second only after a whole first,
        // so that no store goes more than 8 units past the run).
        let (shaped_low, shaped_high) = ((shaped & 0xFFFF).trailing_ones() / 3, (shaped >> 16).trailing_ones() / 3);
        let (good_low, good_high) = ((bad & 0xFFFF).trailing_zeros() / 2, (bad >> 16).trailing_zeros() / 2);
        // SAFETY: `written + 16 <= dst.len()`.
        unsafe { _mm_storeu_si128(out.add(written).cast(), _mm256_castsi256_si128(units)) };
        (read, written) = match three_byte_step_end(shaped_low, good_low, read, written) {
            Ok(next) => next,
            Err(end) => return end,
        };
        // SAFETY: `written + 8 <= dst.len()` (five units more than at the check).
        unsafe { _mm_storeu_si128(out.add(written).cast(), _mm256_extracti128_si256::<1>(units)) };
        (read, written) = match three_byte_step_end(shaped_high, good_high, read, written) {
            Ok(next) => next,
            Err(end) => return end,
        };
    }
    (read, written)
}

/// The code unit of a character of at most three bytes that would start at each of
/// the 32 bytes of `first`, from it and the two bytes after it, `second` and `third`:
/// the byte itself when ASCII, else two or three bytes' bits by the byte's kind (what
/// the unit is at a byte that starts no character does not matter). Worked out a byte
/// of the unit at a time, in 8-bit lanes, then interleaved: the units of bytes 0 to 7
/// and 16 to 23 (one 128-bit lane each), and of bytes 8 to 15 and 24 to 31.
#[inline]
#[target_feature(enable = "avx2")]
fn code_units(first: __m256i, second: __m256i, third: __m256i) -> (__m256i, __m256i) {
    let set = |byte: u8| _mm256_set1_epi8(byte as i8);
    // The shifts are of 16-bit lanes; the masks keep each byte's own bits.
    let six = |bits: __m256i, next: __m256i| {
        _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi16::<6>(bits), set(0xC0)), _mm256_and_si256(next, set(0x3F)))
    };
    // Two bytes (110aaabb 10cccccc): high byte 00000aaa, low byte bbcccccc.
    let (low2, high2) = (six(first, second), _mm256_and_si256(_mm256_srli_epi16::<2>(first), set(0x07)));
    // Three bytes (1110aaaa 10bbbbcc 10dddddd): high byte aaaabbbb, low byte ccdddddd.
    let low3 = six(second, third);
    let high3 = _mm256_or_si256(
        _mm256_and_si256(_mm256_slli_epi16::<4>(first), set(0xF0)),
        _mm256_and_si256(_mm256_srli_epi16::<2>(second), set(0x0F)),
    );
    let long = _mm256_cmpgt_epi8(first, _mm256_set1_epi8(-33));
    // ASCII (the sign bit clear, which `blendv` reads): the byte, high byte zero.
    let low = _mm256_blendv_epi8(first, _mm256_blendv_epi8(low2, low3, long), first);
    let high = _mm256_blendv_epi8(_mm256_setzero_si256(), _mm256_blendv_epi8(high2, high3, long), first);
    (_mm256_unpacklo_epi8(low, high), _mm256_unpackhi_epi8(low, high))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// The steps on texts of each mix of lengths with an error (or a cut character)
    /// put at every place of their first 200 bytes: they decode what they read as
    /// the standard library does, read only valid text to a character boundary, stop
    /// only in the step that shows the error or for the last bytes, and store nothing
    /// past `dst`.
    #[test]
    fn checked_steps_stop_before_every_error() {
        if !available() {
            return;
        }
        // SAFETY: the CPU has the features, as just checked.
        check_prefix_steps(|src, dst| unsafe { utf8_prefix_steps(src, dst) }, READS, |_, _| false);
    }

    /// The run of three-byte characters, ten a step, then the scalar twin for what is
    /// left (as the steps leave it to the pass), against the naive loop (see
    /// `scalar::tests::three_byte_run_cases`).
    #[test]
    fn three_byte_run_matches_scalar_twin() {
        if !available() {
            return;
        }
        super::super::scalar::tests::three_byte_run_cases(|src, dst, read, written| {
            // SAFETY: the CPU has AVX2, as just checked.
            let (read, written) = unsafe { three_byte_run(src, dst, read, written) };
            super::super::scalar::three_byte_run(src, dst, read, written)
        });
    }

    /// [`checked_steps_stop_before_every_error`] for the steps `steps`, which read
    /// `reads` bytes a step, and may stop early before the step at `read` of `bytes`
    /// where `may_stop(bytes, read)`.
    pub(in super::super) fn check_prefix_steps(
        steps: impl Fn(&[u8], &mut [u16]) -> (usize, usize),
        reads: usize,
        may_stop: impl Fn(&[u8], usize) -> bool,
    ) {
        let texts = [
            "a".repeat(320),
            "\u{e9}".repeat(160),
            "\u{4e2d}".repeat(110),
            "\u{1F600}a".repeat(64),
            // Steps that start one and two bytes in, after a four-byte character.
            "a\u{1F600}".repeat(64),
            "ab\u{1F600}".repeat(64),
            "ab\u{e9}\u{4e2d}\u{1F600}x\u{7ff}\u{800}\u{ffff}\u{10000} ".repeat(16),
            "Žluťoučký kůň úpěl ďábelské ódy. ".repeat(12),
            "\u{e9}a\u{4e2d}\u{4e2d}b".repeat(40),
        ];
        let errors: [&[u8]; 9] = [
            b"",
            b"\xFF",
            b"\x80",
            b"\xC3",
            b"\xE4\xB8",
            b"\xED\xA0\x80",
            b"\xC0\x80",
            b"\xF4\x90\x80\x80",
            b"\xF0\x9F\x98",
        ];
        for text in &texts {
            for error in errors {
                for at in 0..200 {
                    let mut bytes = text.as_bytes().to_vec();
                    bytes.splice(at..at, error.iter().copied());
                    // A guard of 0xFFFF after `bytes.len()` units.
                    let mut dst = vec![0xFFFFu16; bytes.len() + 64];
                    let (read, written) = steps(&bytes, &mut dst[..bytes.len()]);
                    let valid = core::str::from_utf8(&bytes).map_or_else(|e| e.valid_up_to(), str::len);
                    assert!(read <= valid, "{at} {error:X?}");
                    let expected: Vec<u16> = core::str::from_utf8(&bytes[..read]).unwrap().encode_utf16().collect();
                    assert_eq!(dst[..written], expected[..], "{at} {error:X?}");
                    assert!(
                        read + reads > valid || read + reads > bytes.len() || may_stop(&bytes, read),
                        "stopped early: {at} {error:X?}"
                    );
                    assert!(dst[bytes.len()..].iter().all(|&unit| unit == 0xFFFF), "past dst: {at} {error:X?}");
                }
            }
        }
    }

    /// Every character of one to three bytes, in order, each followed by zero to two
    /// ASCII letters, after 0 to 31 more: the steps decode all of it as the standard
    /// library does (from where each call stopped, after one character by hand).
    #[test]
    fn steps_decode_every_bmp_character() {
        if !available() {
            return;
        }
        // SAFETY: the CPU has the features, as just checked.
        check_every_bmp_character(|src, dst| unsafe { utf8_prefix_steps(src, dst) });
    }

    /// [`steps_decode_every_bmp_character`] for the steps `steps`.
    pub(in super::super) fn check_every_bmp_character(steps: impl Fn(&[u8], &mut [u16]) -> (usize, usize)) {
        let mut all = alloc::string::String::new();
        for c in (0..=0xFFFF).filter_map(char::from_u32) {
            all.push(c);
            all.extend(core::iter::repeat_n('a', c as usize % 3));
        }
        for offset in 0..32 {
            let text = "a".repeat(offset) + &all;
            let bytes = text.as_bytes();
            let mut dst = vec![0u16; bytes.len()];
            let (mut read, mut written) = (0, 0);
            while read < bytes.len() {
                let (r, w) = steps(&bytes[read..], &mut dst[written..]);
                (read, written) = (read + r, written + w);
                if let Some(c) = text[read..].chars().next() {
                    written += c.encode_utf16(&mut dst[written..]).len();
                    read += c.len_utf8();
                }
            }
            let expected: Vec<u16> = text.encode_utf16().collect();
            assert!(dst[..written] == expected[..], "offset {offset}");
        }
    }

    /// Random mixes of characters of every length at every offset: the steps and
    /// the standard library decode the same, and the stores past the units reported
    /// stay within 8 units.
    #[test]
    fn steps_match_std_on_random_mixes() {
        if !available() {
            return;
        }
        // SAFETY: the CPU has the features, as just checked.
        check_random_mixes(|src, dst| unsafe { utf8_prefix_steps(src, dst) }, READS, |_, _| false);
    }

    /// [`steps_match_std_on_random_mixes`] for the steps `steps`, which read `reads`
    /// bytes a step (and may stop early as in [`check_prefix_steps`]).
    pub(in super::super) fn check_random_mixes(
        steps: impl Fn(&[u8], &mut [u16]) -> (usize, usize),
        reads: usize,
        may_stop: impl Fn(&[u8], usize) -> bool,
    ) {
        let mut next = super::super::xorshift(41);
        let pick = ['a', ' ', '<', '\u{e9}', '\u{416}', '\u{7ff}', '\u{800}', '\u{4e2d}', '\u{ffff}', '\u{1F600}'];
        for round in 0..400 {
            let len = (next() % 300) as usize;
            // Runs of one kind, and mixes: the mix changes every `run` characters.
            let run = 1 + (next() % 12) as usize;
            let mut text = alloc::string::String::new();
            let mut kind = 0;
            for i in 0..len {
                if i % run == 0 {
                    kind = (next() % pick.len() as u64) as usize;
                }
                text.push(if round % 3 == 0 { pick[(next() % pick.len() as u64) as usize] } else { pick[kind] });
            }
            for start in 0..4.min(text.len()) {
                if !text.is_char_boundary(start) {
                    continue;
                }
                let bytes = &text.as_bytes()[start..];
                let mut dst = vec![0u16; bytes.len() + 16];
                let room = bytes.len();
                let (read, written) = steps(bytes, &mut dst[..room]);
                assert!(read + reads > bytes.len() || may_stop(bytes, read), "stopped early: round {round}");
                let expected: Vec<u16> = core::str::from_utf8(&bytes[..read]).unwrap().encode_utf16().collect();
                assert_eq!(dst[..written], expected[..], "round {round}");
                let mut guard = vec![0u16; room + 16];
                guard[..room].fill(0x5555);
                guard[room..].fill(0x5555);
                let _ = steps(bytes, &mut guard[..room]);
                assert!(guard[room..].iter().all(|&unit| unit == 0x5555), "round {round}");
                let past = guard[..room].iter().rposition(|&unit| unit != 0x5555).map_or(0, |i| i + 1);
                assert!(past <= written + 8, "stores {past} past {written}: round {round}");
            }
        }
    }
}
