//! UTF-8 → UTF-16 with AVX-512 (BW, VBMI, VBMI2), chosen at run time (with `std`)
//! where the CPU has them: 64 bytes at a time, whatever their mix of lengths,
//! checked as they go with the AVX-512 validation kernel's block check
//! (`super::avx512`) where the input is not known to be valid.
//! The places of the characters that start in the first 61 bytes are compressed
//! (`vpcompressb`) into the first lanes of a vector, which then gathers (`vpermb`)
//! each character's first, second and third byte into a lane of its own; the code
//! units' low and high bytes are put together from those in 8-bit lanes, 64 at a
//! time, and interleaved into 16-bit lanes ([`code_units`]). A character of
//! four bytes (a surrogate pair, rare) ends the characters a step takes, and is
//! decoded alone. The twin is [`super::scalar::utf8_to_utf16`], and the tests
//! compare them.

use super::avx512::{LANES, any, block_errors, first_block_errors, lanes_below};
use core::arch::x86_64::{
    __m512i, _mm512_add_epi8, _mm512_and_si512, _mm512_castsi512_si256, _mm512_cmpge_epu8_mask, _mm512_cmplt_epi8_mask,
    _mm512_cvtepu8_epi16, _mm512_extracti64x4_epi64, _mm512_loadu_epi8, _mm512_mask_blend_epi8,
    _mm512_mask_storeu_epi16, _mm512_maskz_compress_epi8, _mm512_maskz_mov_epi8, _mm512_movepi8_mask,
    _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_set1_epi8, _mm512_slli_epi16, _mm512_srli_epi16,
    _mm512_storeu_epi16, _mm512_ternarylogic_epi32,
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
        let (first_units, second_units) = code_units(first, second, third);
        // SAFETY: `dst` has room for 64 units from `written` (see above); the masks
        // keep the stores to the `n` units (a whole vector stored at the end of the
        // text wrote 22 units past the decoder's output in a test of Vietnamese into
        // UTF-16, where the contract allows 16: `buffer_bounds`).
        unsafe {
            _mm512_mask_storeu_epi16(out.add(written).cast(), lanes_below(n) as u32, first_units);
            if n > 32 {
                _mm512_mask_storeu_epi16(out.add(written + 32).cast(), lanes_below(n - 32) as u32, second_units);
            }
        }
        read += next;
        written += n;
    }
    (read, written)
}

/// The code units of 64 characters, given their first, second and third bytes (the
/// bytes after a character's last are not looked at): characters 0 to 31 in the
/// first vector, 32 to 63 in the second. Each unit's low byte and high byte are
/// worked out for all 64 at once in 8-bit lanes (shifts of 16-bit lanes, then
/// selects that keep each byte's own bits), then interleaved into 16-bit lanes by
/// two byte permutes (`vpermt2b`) that keep the characters' order.
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi")]
fn code_units(first: __m512i, second: __m512i, third: __m512i) -> (__m512i, __m512i) {
    let set = _mm512_set1_epi8;
    // The bits of `a` where `mask` has ones, and of `b` elsewhere.
    let select = |mask: u8, a, b| _mm512_ternarylogic_epi32::<0xE4>(a, b, set(mask as i8));
    let ascii = !_mm512_movepi8_mask(first);
    let long = _mm512_cmpge_epu8_mask(first, set(0xE0u8 as i8));
    // Two bytes: the low byte is the first's low two bits, then the second's low six;
    // the high byte the first's bits 2 to 4. Three bytes: the low byte is the second's
    // low two bits, then the third's low six; the high byte the first's low four,
    // then the second's bits 2 to 5. ASCII: the byte itself, and 0.
    let low_two = select(0xC0, _mm512_slli_epi16::<6>(first), second);
    let low_three = select(0xC0, _mm512_slli_epi16::<6>(second), third);
    let low = _mm512_mask_blend_epi8(ascii, _mm512_mask_blend_epi8(long, low_two, low_three), first);
    let high_two = _mm512_and_si512(_mm512_srli_epi16::<2>(first), set(0x07));
    let high_three = select(0xF0, _mm512_slli_epi16::<4>(first), _mm512_srli_epi16::<2>(second));
    let high = _mm512_maskz_mov_epi8(!ascii, _mm512_mask_blend_epi8(long, high_two, high_three));
    // SAFETY: `INTERLEAVE` has 128 bytes; the CPU has AVX-512BW (this function
    // enables it).
    let (first_order, second_order) = unsafe {
        (_mm512_loadu_epi8(INTERLEAVE.as_ptr().cast()), _mm512_loadu_epi8(INTERLEAVE.as_ptr().add(BLOCK).cast()))
    };
    (_mm512_permutex2var_epi8(low, first_order, high), _mm512_permutex2var_epi8(low, second_order, high))
}

/// The byte permutes of [`code_units`]: unit `m`'s low byte from lane `m` of the
/// low bytes, its high byte from lane `m` of the high bytes (64 on, in the second
/// operand); units 0 to 31, then 32 to 63.
static INTERLEAVE: [u8; 2 * BLOCK] = {
    let mut order = [0; 2 * BLOCK];
    let mut i = 0;
    while i < 2 * BLOCK {
        let unit = (i / 2) as u8;
        order[i] = if i % 2 == 0 { unit } else { unit + BLOCK as u8 };
        i += 1;
    }
    order
};

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
