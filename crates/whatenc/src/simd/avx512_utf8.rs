//! UTF-8 → UTF-16 with AVX-512 (BW, VBMI, VBMI2), chosen at run time (with `std`)
//! where the CPU has them: 64 bytes at a time, whatever their mix of lengths,
//! checked as they go with the AVX-512 validation kernel's block check
//! (`super::avx512`) where the input is not known to be valid.
//! The places of the characters that start in the first 61 bytes are compressed
//! (`vpcompressb`) into the first lanes of a vector, which then gathers (`vpermb`)
//! each character's first, second and third byte into a lane of its own; the code
//! units are put together from those in 16-bit lanes, 32 at a time. A character of
//! four bytes (a surrogate pair, rare) ends the characters a step takes, and is
//! decoded alone. The twin is [`super::scalar::utf8_to_utf16`], and the tests
//! compare them.

use super::avx512::{LANES, any, block_errors, first_block_errors};
use core::arch::x86_64::{
    __m256i, _mm512_add_epi8, _mm512_and_si512, _mm512_castsi512_si256, _mm512_cmpge_epu8_mask,
    _mm512_cmpge_epu16_mask, _mm512_cmplt_epi8_mask, _mm512_cmplt_epu16_mask, _mm512_cvtepu8_epi16,
    _mm512_extracti64x4_epi64, _mm512_loadu_epi8, _mm512_mask_blend_epi16, _mm512_mask_storeu_epi16,
    _mm512_maskz_compress_epi8, _mm512_movepi8_mask, _mm512_or_si512, _mm512_permutexvar_epi8, _mm512_set1_epi8,
    _mm512_set1_epi16, _mm512_slli_epi16, _mm512_storeu_epi16,
};

/// Whether this kernel runs: the cap on the tier ([`crate::tier`]) allows AVX-512,
/// and the CPU has AVX-512BW, VBMI and VBMI2, POPCNT, and AVX2 for the tail (`std`
/// caches the answer; without `std`, only when the build targets them).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::allows(crate::tier::Tier::Avx512) && cpu_has_all()
}

/// Whether the CPU has the features, whatever the cap on the tier.
#[inline(always)]
#[allow(clippy::eq_op, clippy::nonminimal_bool, reason = "without `std` these are `cfg!` constants")]
pub(crate) fn cpu_has_all() -> bool {
    // The validation kernel's (BW, VBMI), and VBMI2 for `vpcompressb`.
    super::avx512::cpu_has_all()
        && super::cpu_has!("avx512vbmi2")
        && super::cpu_has!("popcnt")
        && super::cpu_has!("avx2")
}

/// The bytes of a step.
const BLOCK: usize = 64;

/// The characters a step takes are those that start before this byte: each, of at
/// most three bytes, ends inside the step.
const STARTS: usize = BLOCK - 3;

/// Transcodes valid UTF-8 to UTF-16; `dst.len() >= s.len()`. Returns the units
/// written. Stores may go past them, inside `dst` (whole vectors of 32 units).
///
/// # Safety
/// The CPU must have AVX-512BW, VBMI and VBMI2, POPCNT and AVX2: call it only where
/// [`available`] returned `true`.
#[target_feature(enable = "avx512bw,avx512vbmi,avx512vbmi2,popcnt,avx2")]
pub(crate) unsafe fn utf8_to_utf16(s: &str, dst: &mut [u16]) -> usize {
    // SAFETY: the caller's precondition; `s` is valid UTF-8.
    let (read, written) = unsafe { steps::<false>(s.as_bytes(), dst) };
    // The rest, shorter than a step, to the AVX2 kernel (`read` is a character
    // boundary).
    // SAFETY: the CPU has AVX2 (the caller's precondition); `dst` has room for as many
    // units as bytes are left.
    written + unsafe { super::avx2::utf8_to_utf16(&s[read..], &mut dst[written..]) }
}

/// Decodes to UTF-16 the start of `src` that is valid UTF-8, in steps of 64 bytes:
/// up to the step that shows an error, or to the last 63 bytes or fewer. Returns the
/// bytes read (at a character boundary, all of them valid) and the units written;
/// `dst.len() >= src.len()`. Stores may go past the units written, inside `dst`.
///
/// # Safety
/// As [`utf8_to_utf16`]'s.
#[target_feature(enable = "avx512bw,avx512vbmi,avx512vbmi2,popcnt,avx2")]
pub(crate) unsafe fn utf8_prefix_steps(src: &[u8], dst: &mut [u16]) -> (usize, usize) {
    // SAFETY: the caller's precondition.
    unsafe { steps::<true>(src, dst) }
}

/// The steps of 64 bytes of [`utf8_to_utf16`] and (`CHECK`, for input not known to
/// be valid) of [`utf8_prefix_steps`]: each step that is not ASCII is checked by
/// `avx512`'s block check, and the loop stops before one that shows an error. (An
/// ASCII step needs no check: a step starts after a whole character.)
///
/// # Safety
/// As [`utf8_to_utf16`]'s; without `CHECK`, `bytes` must be valid UTF-8.
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
unsafe fn steps<const CHECK: bool>(bytes: &[u8], dst: &mut [u16]) -> (usize, usize) {
    assert!(dst.len() >= bytes.len());
    let (src, out) = (bytes.as_ptr(), dst.as_mut_ptr());
    // SAFETY: `LANES` has 64 bytes; the CPU has AVX-512BW (the caller's precondition).
    let lanes = unsafe { _mm512_loadu_epi8(LANES.as_ptr().cast()) };
    let (mut read, mut written) = (0, 0);
    // Each byte read makes at most one unit, so `dst` has room for as many units as
    // there are bytes left: 64 while a step is read.
    let prefetch = bytes.len() >= super::avx2_utf16::PREFETCH_FROM && super::x86_64::prefetch_pays();
    while read + BLOCK <= bytes.len() {
        if prefetch {
            super::avx2_utf16::prefetch_at(src.wrapping_add(read));
        }
        // SAFETY: `read + 64 <= bytes.len()`.
        let v = unsafe { _mm512_loadu_epi8(src.add(read).cast()) };
        if _mm512_movepi8_mask(v) == 0 {
            // SAFETY: `dst` has room for 64 units from `written` (see above).
            unsafe {
                _mm512_storeu_epi16(out.add(written).cast(), _mm512_cvtepu8_epi16(_mm512_castsi512_si256(v)));
                _mm512_storeu_epi16(
                    out.add(written + 32).cast(),
                    _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(v)),
                );
            }
            read += BLOCK;
            written += BLOCK;
            continue;
        }
        if CHECK {
            // The bytes before the step, from memory where there are three (a step
            // after a four-byte character may start at 1 or 2), else as zeros: they
            // end a whole, valid character, so that, as zeros, they make no byte of
            // the step the second, third or fourth of a sequence.
            let errors = if read < 3 {
                first_block_errors(v)
            } else {
                // SAFETY: `read - 3 .. read + 64` is inside `bytes`.
                unsafe { block_errors(src.add(read), v) }
            };
            if any(errors) {
                break;
            }
        }
        // The characters' first bytes: every byte but the continuation bytes (0x80 to
        // 0xBF, less than -64 as `i8`).
        let starts = !_mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(-64));
        // The characters taken: those that start before `STARTS`, and before the first
        // four-byte one.
        let four = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xF0u8 as i8));
        let end = (four.trailing_zeros() as usize).min(STARTS);
        if end == 0 {
            // A four-byte character first (valid: inside the step): a surrogate pair.
            dst[written..written + 2].copy_from_slice(&super::surrogate_pair(&bytes[read..read + 4]));
            read += 4;
            written += 2;
            continue;
        }
        let taken = starts & ((1u64 << end) - 1);
        // The step ends where the next character starts: at `end` itself when that
        // is a four-byte one, else at the first start from `STARTS` on (one of the
        // three bytes there starts a character, in valid UTF-8 of characters of at
        // most three bytes).
        let next = if end < STARTS { end } else { STARTS + (starts >> STARTS).trailing_zeros() as usize };
        let n = taken.count_ones() as usize;
        let places = _mm512_maskz_compress_epi8(taken, lanes);
        let first = _mm512_permutexvar_epi8(places, v);
        let second = _mm512_permutexvar_epi8(_mm512_add_epi8(places, _mm512_set1_epi8(1)), v);
        let third = _mm512_permutexvar_epi8(_mm512_add_epi8(places, _mm512_set1_epi8(2)), v);
        // SAFETY: `dst` has room for 64 units from `written` (see above), and the CPU
        // has the features (this function enables them).
        unsafe {
            store_units(
                out.add(written),
                n,
                _mm512_castsi512_si256(first),
                _mm512_castsi512_si256(second),
                _mm512_castsi512_si256(third),
            );
            if n > 32 {
                store_units(
                    out.add(written + 32),
                    n - 32,
                    _mm512_extracti64x4_epi64::<1>(first),
                    _mm512_extracti64x4_epi64::<1>(second),
                    _mm512_extracti64x4_epi64::<1>(third),
                );
            }
        }
        read += next;
        written += n;
    }
    (read, written)
}

/// The code units of the first `count` (up to 32) of 32 characters, given their
/// first, second and third bytes (the bytes after a character's last are not looked
/// at), stored at `out`, and nothing after them: a whole vector stored at the end of
/// the text wrote 22 units past the decoder's output in a test of Vietnamese into
/// UTF-16, where the contract allows 16 (`buffer_bounds`).
///
/// # Safety
/// `out` must have room for `count` units, and the CPU AVX-512BW.
#[inline]
#[target_feature(enable = "avx512bw")]
unsafe fn store_units(out: *mut u16, count: usize, first: __m256i, second: __m256i, third: __m256i) {
    let (first, second, third) =
        (_mm512_cvtepu8_epi16(first), _mm512_cvtepu8_epi16(second), _mm512_cvtepu8_epi16(third));
    let set = _mm512_set1_epi16;
    let second6 = _mm512_and_si512(second, set(0x3F));
    let third6 = _mm512_and_si512(third, set(0x3F));
    // Three bytes: the first's low four bits (the shift drops the rest), six and six.
    let three =
        _mm512_or_si512(_mm512_or_si512(_mm512_slli_epi16::<12>(first), _mm512_slli_epi16::<6>(second6)), third6);
    // Two bytes: the first's low five bits, then six.
    let two = _mm512_or_si512(_mm512_slli_epi16::<6>(_mm512_and_si512(first, set(0x1F))), second6);
    let ascii = _mm512_cmplt_epu16_mask(first, set(0x80));
    let long = _mm512_cmpge_epu16_mask(first, set(0xE0));
    let units = _mm512_mask_blend_epi16(ascii, _mm512_mask_blend_epi16(long, two, three), first);
    let keep = if count >= 32 { u32::MAX } else { (1u32 << count) - 1 };
    // SAFETY: the caller's precondition (the mask keeps the stores inside it).
    unsafe { _mm512_mask_storeu_epi16(out.cast(), keep, units) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_scalar_twin() {
        if !available() {
            return;
        }
        // SAFETY: the CPU has the features, as just checked.
        super::super::ssse3::tests::check_utf8_to_utf16(|s, dst| unsafe { utf8_to_utf16(s, dst) });
    }

    /// The checked steps on texts of each mix of lengths with an error (or a cut
    /// character) put at every place of their first 200 bytes, and on random mixes
    /// (the AVX2 steps' tests): they decode what they read as the standard library
    /// does, read only valid text to a character boundary, and stop only in the step
    /// that shows the error or for the last bytes.
    #[test]
    fn checked_steps_stop_before_every_error() {
        if !available() {
            return;
        }
        // SAFETY (both): the CPU has the features, as just checked.
        super::super::avx2_utf8::tests::check_prefix_steps(
            |src, dst| unsafe { utf8_prefix_steps(src, dst) },
            BLOCK,
            |_, _| false,
        );
        super::super::avx2_utf8::tests::check_random_mixes(
            |src, dst| unsafe { utf8_prefix_steps(src, dst) },
            BLOCK,
            |_, _| false,
        );
        super::super::avx2_utf8::tests::check_every_bmp_character(|src, dst| unsafe { utf8_prefix_steps(src, dst) });
    }
}
