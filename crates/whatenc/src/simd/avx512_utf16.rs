//! UTF-16 → UTF-8 with AVX-512 (BW, VL, VBMI2) and BMI2, chosen at run time (with
//! `std`) where the CPU has them: sixteen code units at a time, in two halves of
//! eight, each unit widened to a 32-bit lane that holds its one to three UTF-8
//! bytes, then packed by one byte compression (`vpcompressb`) per half. The twin is
//! [`super::scalar::block_to_utf8`], twice, and the tests compare them.

use core::arch::x86_64::{
    _mm_loadu_si128, _mm256_and_si256, _mm256_cmplt_epu32_mask, _mm256_cvtepu16_epi32, _mm256_mask_blend_epi32,
    _mm256_mask_storeu_epi8, _mm256_maskz_compress_epi8, _mm256_or_si256, _mm256_set1_epi32, _mm256_slli_epi32,
    _mm256_srli_epi32, _pdep_u32,
};

/// Whether this kernel runs: the cap on the tier ([`crate::tier`]) allows AVX-512,
/// and the CPU has AVX-512BW, VL and VBMI2, BMI2 and POPCNT (`std` caches the
/// answer; without `std`, only when the build targets them).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::allows(crate::tier::Tier::Avx512) && cpu_has_all()
}

/// Whether the CPU has the features, whatever the cap on the tier.
#[inline(always)]
#[allow(clippy::eq_op, clippy::nonminimal_bool, reason = "without `std` these are `cfg!` constants")]
pub(crate) fn cpu_has_all() -> bool {
    super::cpu_has!("avx512bw")
        && super::cpu_has!("avx512vl")
        && super::cpu_has!("avx512vbmi2")
        && super::cpu_has!("bmi2")
        && super::cpu_has!("popcnt")
}

/// Sixteen code units, none a surrogate, as UTF-8 at the start of `out`; returns the
/// bytes written (at most 48; nothing is written after them).
///
/// # Safety
/// The CPU must have AVX-512BW, VL and VBMI2, BMI2 and POPCNT: call it only where
/// [`available`] returned `true`.
#[inline]
pub(crate) unsafe fn units_to_utf8(units: &[u16; 16], out: &mut [u8; 64]) -> usize {
    debug_assert!(available());
    // SAFETY: the CPU has the features `units_to_utf8_inner` enables (the caller's
    // precondition); `units` holds 32 readable bytes and `out` 64 writable ones.
    unsafe { units_to_utf8_inner(units, out) }
}

#[target_feature(enable = "avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")]
unsafe fn units_to_utf8_inner(units: &[u16; 16], out: &mut [u8; 64]) -> usize {
    // Two halves of eight units, in 256-bit registers: on some CPUs, 512-bit
    // instructions now and then (a dash in Cyrillic text) cost a clock transition.
    let mut written = 0;
    for half in 0..2 {
        // SAFETY: `units` is 32 bytes; this reads 16 of them.
        let units = _mm256_cvtepu16_epi32(unsafe { _mm_loadu_si128(units.as_ptr().add(8 * half).cast()) });
        let set = _mm256_set1_epi32;
        let low6 = _mm256_or_si256(_mm256_and_si256(units, set(0x3F)), set(0x80));
        let high = _mm256_srli_epi32::<6>(units);
        let middle6 = _mm256_or_si256(_mm256_and_si256(high, set(0x3F)), set(0x80));
        // The bytes of each length as a little-endian word: first byte lowest.
        let two = _mm256_or_si256(_mm256_or_si256(high, set(0xC0)), _mm256_slli_epi32::<8>(low6));
        let three = _mm256_or_si256(
            _mm256_or_si256(_mm256_srli_epi32::<12>(units), set(0xE0)),
            _mm256_or_si256(_mm256_slli_epi32::<8>(middle6), _mm256_slli_epi32::<16>(low6)),
        );
        let below_0x80 = _mm256_cmplt_epu32_mask(units, set(0x80));
        let below_0x800 = _mm256_cmplt_epu32_mask(units, set(0x800));
        let words = _mm256_mask_blend_epi32(below_0x80, _mm256_mask_blend_epi32(below_0x800, three, two), units);
        // Which bytes of the 32 are UTF-8: the first three of each lane, less the
        // third below 0x800 and the second below 0x80 (one bit per lane spread to its
        // nibble).
        let keep = 0x7777_7777u32
            & !_pdep_u32(u32::from(below_0x800), 0x4444_4444)
            & !_pdep_u32(u32::from(below_0x80), 0x2222_2222);
        let n = keep.count_ones();
        // Only the output is stored (a masked store), no scratch after it: decoders
        // write into `str` bytes, where at most `utf8_out::SCRATCH` may be left after
        // the output. SAFETY: `out` is 64 bytes; this writes `n` <= 24 from
        // `written` <= 24.
        unsafe {
            _mm256_mask_storeu_epi8(
                out.as_mut_ptr().add(written).cast(),
                (1u64 << n) as u32 - 1,
                _mm256_maskz_compress_epi8(keep, words),
            );
        }
        written += n as usize;
    }
    written
}

#[cfg(test)]
mod tests {
    use super::super::scalar;
    use super::*;

    /// Every unit that is not a surrogate, at every lane, among neighbours of each
    /// length, against the scalar twin on the two halves.
    #[test]
    fn matches_scalar_for_every_unit_and_lane() {
        if !available() {
            return;
        }
        let neighbours: [[u16; 16]; 4] = [
            [0x41; 16],
            [0x3B1; 16],
            [0xD55C; 16],
            [
                0x41, 0x3B1, 0xD55C, 0x20, 0x7FF, 0x800, 0xFFFF, 0x80, 0x7F, 0xE000, 0x100, 0x0, 0xC4, 0x4E00, 0x1,
                0xFFFD,
            ],
        ];
        for unit in (0..=u16::MAX).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
            for (i, base) in neighbours.iter().enumerate() {
                let mut block = *base;
                block[unit as usize % 16] = unit;
                block[(unit as usize + 5 * i + 3) % 16] = unit;
                check(&block);
            }
        }
    }

    /// Random mixes of lengths.
    #[test]
    fn matches_scalar_for_random_mixes() {
        if !available() {
            return;
        }
        let by_length = [[0x41u16, 0x7F, 0x20, 0x0], [0x3B1, 0x80, 0x7FF, 0x5D0], [0xD55C, 0x800, 0xFFFF, 0xE000]];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            let block: [u16; 16] = core::array::from_fn(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                by_length[(state % 3) as usize][(state >> 8) as usize % 4]
            });
            check(&block);
        }
    }

    fn check(block: &[u16; 16]) {
        let mut out = [0xAAu8; 64];
        // SAFETY: the tests call `check` only where `available()` is true.
        let n = unsafe { units_to_utf8(block, &mut out) };
        let mut expected = [0u8; 64];
        let mut first = [0u8; 32];
        let a = scalar::block_to_utf8(block[..8].try_into().unwrap(), &mut first);
        expected[..a].copy_from_slice(&first[..a]);
        let b = scalar::block_to_utf8(block[8..].try_into().unwrap(), &mut first);
        expected[a..a + b].copy_from_slice(&first[..b]);
        assert_eq!(n, a + b, "{block:04X?}");
        assert_eq!(out[..n], expected[..n], "{block:04X?}");
        assert!(out[n..].iter().all(|&b| b == 0xAA), "wrote past the output: {block:04X?}");
    }
}
