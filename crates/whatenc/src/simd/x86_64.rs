//! SSE2 kernels (SSE2 is part of the x86_64 baseline, so no run-time detection is
//! needed). Each one is the twin of a function in [`super::scalar`] and is tested
//! against it.

use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_packus_epi16,
    _mm_set1_epi16, _mm_setzero_si128, _mm_slli_epi16, _mm_srli_epi16, _mm_storeu_si128, _mm_unpackhi_epi8,
    _mm_unpacklo_epi8,
};

const LANES: usize = 16;

/// Copies the longest ASCII prefix of `src` that fits in `dst`; returns its length.
#[inline]
pub(crate) fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable bytes; SSE2 is always available on x86_64.
        let (vector, mask) = unsafe {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            (vector, _mm_movemask_epi8(vector))
        };
        if mask != 0 {
            let n = mask.trailing_zeros() as usize;
            dst[pos..pos + n].copy_from_slice(&src[pos..pos + n]);
            return pos + n;
        }
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), vector) };
        pos += LANES;
    }
    pos + super::scalar::copy_ascii_to_ascii(&src[pos..limit], &mut dst[pos..limit])
}

/// Widens the longest ASCII prefix of `src` that fits in `dst`; returns its length.
#[inline]
pub(crate) fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable bytes.
        let (vector, mask) = unsafe {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            (vector, _mm_movemask_epi8(vector))
        };
        if mask != 0 {
            let n = mask.trailing_zeros() as usize;
            for (out, &byte) in dst[pos..pos + n].iter_mut().zip(&src[pos..pos + n]) {
                *out = byte as u16;
            }
            return pos + n;
        }
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable u16s, i.e. two 16-byte vectors.
        unsafe {
            let zero = _mm_setzero_si128();
            let ptr = out.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(ptr, _mm_unpacklo_epi8(vector, zero));
            _mm_storeu_si128(ptr.add(1), _mm_unpackhi_epi8(vector, zero));
        }
        pos += LANES;
    }
    pos + super::scalar::copy_ascii_to_utf16(&src[pos..limit], &mut dst[pos..limit])
}

/// Narrows the longest run of ASCII code units of `src` that fits in `dst`.
#[inline]
pub(crate) fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable u16s, i.e. two 16-byte vectors.
        let (packed, all_ascii) = unsafe {
            let ptr = block.as_ptr().cast::<__m128i>();
            let low = _mm_loadu_si128(ptr);
            let high = _mm_loadu_si128(ptr.add(1));
            let non_ascii = _mm_and_si128(_mm_or_si128(low, high), _mm_set1_epi16(0xFF80u16 as i16));
            let all_ascii = _mm_movemask_epi8(_mm_cmpeq_epi16(non_ascii, _mm_setzero_si128())) == 0xFFFF;
            (_mm_packus_epi16(low, high), all_ascii)
        };
        if !all_ascii {
            break;
        }
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), packed) };
        pos += LANES;
    }
    pos + super::scalar::copy_utf16_ascii_to_bytes(&src[pos..limit], &mut dst[pos..limit])
}

/// Eight UTF-16 code units from 16 bytes, in native order.
///
/// # Safety
/// `bytes` must hold 16 readable bytes (SSE2 is always there on x86_64).
#[inline(always)]
unsafe fn load_units(bytes: &[u8], big_endian: bool) -> __m128i {
    // SAFETY: the caller guarantees 16 readable bytes.
    unsafe {
        let vector = _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>());
        if big_endian { _mm_or_si128(_mm_slli_epi16(vector, 8), _mm_srli_epi16(vector, 8)) } else { vector }
    }
}

/// Twin of [`super::scalar::utf16_bytes_to_units`].
#[inline]
pub(crate) fn utf16_bytes_to_units(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize {
    let limit = (src.len() / 2).min(dst.len());
    let mut n = 0;
    while n + 8 <= limit {
        let block = &src[n * 2..n * 2 + 16];
        // SAFETY: `block` holds 16 readable bytes.
        let (units, any_surrogate) = unsafe {
            let units = load_units(block, big_endian);
            // A surrogate is 0xD800..=0xDFFF: its top five bits are 11011.
            let top = _mm_and_si128(units, _mm_set1_epi16(0xF800u16 as i16));
            let surrogate = _mm_cmpeq_epi16(top, _mm_set1_epi16(0xD800u16 as i16));
            (units, _mm_movemask_epi8(surrogate) != 0)
        };
        if any_surrogate {
            break;
        }
        let out = &mut dst[n..n + 8];
        // SAFETY: `out` holds 8 writable u16s (16 bytes).
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), units) };
        n += 8;
    }
    n + super::scalar::utf16_bytes_to_units(&src[n * 2..limit * 2], &mut dst[n..limit], big_endian)
}

/// Twin of [`super::scalar::utf16_bytes_ascii_to_bytes`].
#[inline]
pub(crate) fn utf16_bytes_ascii_to_bytes(src: &[u8], dst: &mut [u8], big_endian: bool) -> usize {
    let limit = (src.len() / 2).min(dst.len());
    let mut n = 0;
    while n + 16 <= limit {
        let block = &src[n * 2..n * 2 + 32];
        // SAFETY: `block` holds 32 readable bytes.
        let (packed, all_ascii) = unsafe {
            let low = load_units(&block[..16], big_endian);
            let high = load_units(&block[16..], big_endian);
            let non_ascii = _mm_and_si128(_mm_or_si128(low, high), _mm_set1_epi16(0xFF80u16 as i16));
            let all_ascii = _mm_movemask_epi8(_mm_cmpeq_epi16(non_ascii, _mm_setzero_si128())) == 0xFFFF;
            (_mm_packus_epi16(low, high), all_ascii)
        };
        if !all_ascii {
            break;
        }
        let out = &mut dst[n..n + 16];
        // SAFETY: `out` holds 16 writable bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), packed) };
        n += 16;
    }
    n + super::scalar::utf16_bytes_ascii_to_bytes(&src[n * 2..limit * 2], &mut dst[n..limit], big_endian)
}

#[cfg(test)]
mod tests {
    use super::super::scalar;

    /// Inputs of every length up to 70 at every alignment, with the first non-ASCII
    /// unit at every position, and output buffers shorter and longer than the input.
    #[test]
    fn kernels_match_scalar_twins() {
        let base: alloc::vec::Vec<u8> = (0..100u8).map(|i| b'a' + i % 26).collect();
        for start in 0..17 {
            for len in 0..70 {
                for bad in (0..=len).step_by(3) {
                    let mut bytes = base.clone();
                    if bad < len {
                        bytes[start + bad] = 0x80 | bad as u8;
                    }
                    let src = &bytes[start..start + len];
                    let units: alloc::vec::Vec<u16> =
                        src.iter().map(|&b| if b >= 0x80 { 0x100 + b as u16 } else { b as u16 }).collect();
                    for out_len in [0, len / 2, len, len + 5] {
                        let (mut a, mut b) = (alloc::vec![0u8; out_len], alloc::vec![0u8; out_len]);
                        assert_eq!(super::copy_ascii_to_ascii(src, &mut a), scalar::copy_ascii_to_ascii(src, &mut b));
                        assert_eq!(a, b);
                        let (mut a, mut b) = (alloc::vec![0u16; out_len], alloc::vec![0u16; out_len]);
                        assert_eq!(super::copy_ascii_to_utf16(src, &mut a), scalar::copy_ascii_to_utf16(src, &mut b));
                        assert_eq!(a, b);
                        let (mut a, mut b) = (alloc::vec![0u8; out_len], alloc::vec![0u8; out_len]);
                        assert_eq!(
                            super::copy_utf16_ascii_to_bytes(&units, &mut a),
                            scalar::copy_utf16_ascii_to_bytes(&units, &mut b)
                        );
                        assert_eq!(a, b);
                        let (mut a, mut b) = (alloc::vec![0u16; out_len], alloc::vec![0u16; out_len]);
                        let (mut c, mut d) = (alloc::vec![0u8; out_len], alloc::vec![0u8; out_len]);
                        for big_endian in [false, true] {
                            let bytes: alloc::vec::Vec<u8> = units
                                .iter()
                                .map(|&u| if u >= 0x100 { u + 0xD700 } else { u })
                                .flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                                .collect();
                            for cut in [bytes.len(), bytes.len().saturating_sub(1)] {
                                let src = &bytes[..cut];
                                assert_eq!(
                                    super::utf16_bytes_to_units(src, &mut a, big_endian),
                                    scalar::utf16_bytes_to_units(src, &mut b, big_endian)
                                );
                                assert_eq!(a, b);
                                assert_eq!(
                                    super::utf16_bytes_ascii_to_bytes(src, &mut c, big_endian),
                                    scalar::utf16_bytes_ascii_to_bytes(src, &mut d, big_endian)
                                );
                                assert_eq!(c, d);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every code unit, alone and in a block, is a surrogate exactly when the scalar
    /// twin says so.
    #[test]
    fn surrogate_detection_matches_scalar_for_every_unit() {
        for unit in 0..=u16::MAX {
            for big_endian in [false, true] {
                let bytes: alloc::vec::Vec<u8> = core::iter::repeat_n(0x41u16, 7)
                    .chain([unit])
                    .chain(core::iter::repeat_n(0x42, 8))
                    .flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                    .collect();
                let (mut a, mut b) = ([0u16; 16], [0u16; 16]);
                assert_eq!(
                    super::utf16_bytes_to_units(&bytes, &mut a, big_endian),
                    scalar::utf16_bytes_to_units(&bytes, &mut b, big_endian),
                    "{unit:#x}"
                );
                assert_eq!(a, b);
            }
        }
    }
}
