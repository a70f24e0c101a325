//! UTF-8 → UTF-16 with SSSE3 and POPCNT, chosen at run time (with `std`) where the
//! CPU has them, the cap on the tier allows SSSE3, and neither the AVX-512 nor the
//! AVX2 steps run: [`super::avx2_utf8`]'s algorithm with 16-byte steps (the
//! characters that start in a step's first 14 bytes), each step that is not ASCII
//! checked as it goes with the SSSE3 validation kernel's block check
//! ([`super::utf8_check`]), the units' low and high bytes worked out in 8-bit lanes
//! and interleaved as there ([`code_units`]: with the masks and `or`s that stand in
//! for `pblendvb`, within 1–4% of the 16-bit lanes on this tier, `AMD EPYC` Zen 1),
//! eight units packed at a time by a byte shuffle (a row of
//! `avx2_utf8::UNIT_SHUFFLES`). The twin is [`super::scalar::utf8_prefix_to_utf16`],
//! and the tests compare them.
//!
//! Against the scalar pass with its hand-overs, SSSE3 tier, rotating, `Intel Xeon`
//! Emerald Rapids, valid text → UTF-16, µs: cs.txt 50.6 → 33.6, vi.txt 113.1 →
//! 60.8, ru.txt 99.8 → 81.2, ko.txt 20.3 → 13.7, en.html 81.4 → 74.6; but ja.txt
//! 13.5 → 22.2 and th.txt 71.0 → 123.5, whose runs of three-byte characters the pass
//! takes five at a step in one pass. So a step with [`THREE_BYTE_LEADS`] or more
//! leads of three or four bytes ends the steps, and the pass takes the rest. (A
//! choice made once a call from the first 256 bytes instead cost the text of errors
//! a scan a call: legacy text taken for UTF-8 → UTF-16 fell to 0.39–0.75 of
//! encoding_rs.)

use super::avx2_utf8::UNIT_SHUFFLES;
use super::utf8_check::step_shows_error;
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
    _mm_set1_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_slli_epi16, _mm_srli_epi16, _mm_storeu_si128,
    _mm_unpackhi_epi8, _mm_unpacklo_epi8,
};

/// Whether this kernel runs: the cap on the tier ([`crate::tier`]) allows SSSE3, and
/// the CPU has SSSE3 and POPCNT (`std` caches the answer; without `std`, only when
/// the build targets them).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::ssse3::available() && super::cpu_has!("popcnt")
}

/// The lead bytes of three- and four-byte characters in a step from which the steps
/// leave the rest of the text to the scalar pass (see the module doc).
const THREE_BYTE_LEADS: u32 = 4;

/// The bytes of a step.
const BLOCK: usize = 16;

/// The characters a step takes are those that start before this byte: each, of at
/// most three bytes, ends inside the step.
const STARTS: usize = BLOCK - 2;

/// The bytes a step reads: its own, and the two after it.
const READS: usize = BLOCK + 2;

/// Decodes to UTF-16 the start of `src` that is valid UTF-8, in steps of 16 bytes:
/// up to the step that shows an error, or to the last 17 bytes or fewer. Returns the
/// bytes read (at a character boundary, all of them valid) and the units written;
/// `dst.len() >= src.len()`. Stores may go past the units written, inside `dst`, by
/// at most 8 units.
///
/// # Safety
/// The CPU must have SSSE3 and POPCNT: call it only where [`available`] returned
/// `true`.
#[target_feature(enable = "ssse3,popcnt")]
pub(crate) unsafe fn utf8_prefix_steps(bytes: &[u8], dst: &mut [u16]) -> (usize, usize) {
    assert!(dst.len() >= bytes.len());
    let (src, out) = (bytes.as_ptr(), dst.as_mut_ptr());
    let zero = _mm_setzero_si128();
    let (mut read, mut written) = (0, 0);
    // Each byte read makes at most one unit, so `dst` has room for as many units as
    // there are bytes left: 18 while a step is read.
    while read + READS <= bytes.len() {
        // SAFETY: `read + 18 <= bytes.len()`.
        let v = unsafe { _mm_loadu_si128(src.add(read).cast()) };
        let high = _mm_movemask_epi8(v) as u32;
        if high == 0 {
            // SAFETY: `dst` has room for 16 units from `written` (see above).
            unsafe {
                _mm_storeu_si128(out.add(written).cast(), _mm_unpacklo_epi8(v, zero));
                _mm_storeu_si128(out.add(written + 8).cast(), _mm_unpackhi_epi8(v, zero));
            }
            read += BLOCK;
            written += BLOCK;
            continue;
        }
        // The bytes before the step, from memory where there are three, else as zeros
        // (see `avx2_utf8::utf8_prefix_steps`).
        // SAFETY: `read + BLOCK <= bytes.len()`; the CPU has SSSE3.
        if unsafe { step_shows_error(bytes, read, v) } {
            break;
        }
        // Lead bytes of three or four bytes: E0 or more (more than -33 as `i8`, among
        // the bytes that are not ASCII). Text dense with them goes to the scalar pass.
        let long_leads = high & _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-33))) as u32;
        if long_leads.count_ones() >= THREE_BYTE_LEADS {
            break;
        }
        let starts = !(_mm_movemask_epi8(_mm_cmpgt_epi8(_mm_set1_epi8(-64), v)) as u32) & 0xFFFF;
        let four = high & _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(-17))) as u32;
        let end = (four.trailing_zeros() as usize).min(STARTS);
        if end == 0 {
            // A four-byte character first (valid: inside the step): a surrogate pair.
            dst[written..written + 2].copy_from_slice(&super::surrogate_pair(&bytes[read..read + 4]));
            read += 4;
            written += 2;
            continue;
        }
        let taken = starts & ((1u32 << end) - 1);
        let next =
            if end < STARTS { end } else { STARTS + ((starts | 1 << BLOCK) >> STARTS).trailing_zeros() as usize };
        // SAFETY: `read + 18 <= bytes.len()`.
        let (second, third) =
            unsafe { (_mm_loadu_si128(src.add(read + 1).cast()), _mm_loadu_si128(src.add(read + 2).cast())) };
        let units = code_units(v, second, third);
        for (half, units) in units.into_iter().enumerate() {
            let kept = ((taken >> (8 * half)) & 0xFF) as usize;
            // SAFETY: the rows of the table have 16 bytes; `dst` has room for 16 units
            // from `written` at the first half, and 8 from `written` at the second.
            unsafe {
                let shuffle = _mm_loadu_si128(UNIT_SHUFFLES[kept].as_ptr().cast());
                _mm_storeu_si128(out.add(written).cast(), _mm_shuffle_epi8(units, shuffle));
            }
            written += kept.count_ones() as usize;
        }
        read += next;
    }
    (read, written)
}

/// The code unit of a character of at most three bytes that would start at each of
/// the 16 bytes of `first`, from it and the two bytes after it: as
/// `avx2_utf8::code_units` (a byte of the unit at a time, then interleaved: the units
/// of bytes 0 to 7, then of 8 to 15), with masks for the blends (SSSE3 has no
/// `pblendvb`).
#[inline]
#[target_feature(enable = "ssse3")]
fn code_units(first: __m128i, second: __m128i, third: __m128i) -> [__m128i; 2] {
    let set = |byte: u8| _mm_set1_epi8(byte as i8);
    let six = |bits: __m128i, next: __m128i| {
        _mm_or_si128(_mm_and_si128(_mm_slli_epi16::<6>(bits), set(0xC0)), _mm_and_si128(next, set(0x3F)))
    };
    let (low2, high2) = (six(first, second), _mm_and_si128(_mm_srli_epi16::<2>(first), set(0x07)));
    let low3 = six(second, third);
    let high3 = _mm_or_si128(
        _mm_and_si128(_mm_slli_epi16::<4>(first), set(0xF0)),
        _mm_and_si128(_mm_srli_epi16::<2>(second), set(0x0F)),
    );
    let long = _mm_cmpgt_epi8(first, _mm_set1_epi8(-33));
    let not_ascii = _mm_cmpgt_epi8(_mm_setzero_si128(), first);
    let select = |mask, yes, no| _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
    let low = select(not_ascii, select(long, low3, low2), first);
    let high = _mm_and_si128(not_ascii, select(long, high3, high2));
    [_mm_unpacklo_epi8(low, high), _mm_unpackhi_epi8(low, high)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the step at `read` has [`THREE_BYTE_LEADS`] or more leads of three or
    /// four bytes, which end the steps.
    fn dense_step(bytes: &[u8], read: usize) -> bool {
        let step = &bytes[read..bytes.len().min(read + BLOCK)];
        step.iter().filter(|&&byte| byte >= 0xE0).count() >= THREE_BYTE_LEADS as usize
    }

    #[test]
    fn checked_steps_stop_before_every_error() {
        if !available() {
            return;
        }
        // SAFETY: the CPU has the features, as just checked.
        super::super::avx2_utf8::tests::check_prefix_steps(
            |src, dst| unsafe { utf8_prefix_steps(src, dst) },
            READS,
            dense_step,
        );
    }

    #[test]
    fn steps_match_std_on_random_mixes() {
        if !available() {
            return;
        }
        // SAFETY: as above.
        super::super::avx2_utf8::tests::check_random_mixes(
            |src, dst| unsafe { utf8_prefix_steps(src, dst) },
            READS,
            dense_step,
        );
    }

    #[test]
    fn steps_decode_every_bmp_character() {
        if !available() {
            return;
        }
        // SAFETY: as above.
        super::super::avx2_utf8::tests::check_every_bmp_character(|src, dst| unsafe { utf8_prefix_steps(src, dst) });
    }
}
