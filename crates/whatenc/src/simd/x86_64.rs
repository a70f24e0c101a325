//! SSE2 kernels (SSE2 is part of the x86_64 baseline, so no run-time detection is
//! needed). Each one is the twin of a function in [`super::scalar`] and is tested
//! against it.

use core::arch::x86_64::{
    __m128i, _mm_add_epi16, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpeq_epi16, _mm_cmpgt_epi8, _mm_loadu_si128,
    _mm_movemask_epi8, _mm_or_si128, _mm_packus_epi16, _mm_set1_epi8, _mm_set1_epi16, _mm_setzero_si128,
    _mm_slli_epi16, _mm_srli_epi16, _mm_storeu_si128, _mm_sub_epi8, _mm_sub_epi16, _mm_subs_epu8, _mm_subs_epu16,
    _mm_unpackhi_epi8, _mm_unpacklo_epi8,
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

/// Twin of [`super::scalar::decode_linear_to_utf16`].
#[inline]
pub(crate) fn decode_linear_to_utf16(src: &[u8], dst: &mut [u16], start: u8, len: u8, delta: u16) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable bytes.
        let (low, high, all_mapped) = unsafe {
            let bytes = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let zero = _mm_setzero_si128();
            if _mm_movemask_epi8(bytes) == 0 {
                (_mm_unpacklo_epi8(bytes, zero), _mm_unpackhi_epi8(bytes, zero), true)
            } else {
                // `byte - start < len` (unsigned) is `(byte - start) -sat (len - 1) == 0`.
                let offset = _mm_sub_epi8(bytes, _mm_set1_epi8(start as i8));
                let last = _mm_set1_epi8(len.wrapping_sub(1) as i8);
                let in_run = _mm_cmpeq_epi8(_mm_subs_epu8(offset, last), zero);
                let ascii = _mm_cmpgt_epi8(bytes, _mm_set1_epi8(-1));
                let all_mapped = _mm_movemask_epi8(_mm_or_si128(in_run, ascii)) == 0xFFFF;
                let delta = _mm_set1_epi16(delta as i16);
                let add_low = _mm_and_si128(_mm_unpacklo_epi8(in_run, in_run), delta);
                let add_high = _mm_and_si128(_mm_unpackhi_epi8(in_run, in_run), delta);
                (
                    _mm_add_epi16(_mm_unpacklo_epi8(bytes, zero), add_low),
                    _mm_add_epi16(_mm_unpackhi_epi8(bytes, zero), add_high),
                    all_mapped,
                )
            }
        };
        if !all_mapped {
            break;
        }
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable u16s, i.e. two 16-byte vectors.
        unsafe {
            let ptr = out.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(ptr, low);
            _mm_storeu_si128(ptr.add(1), high);
        }
        pos += LANES;
    }
    pos + super::scalar::decode_linear_to_utf16(&src[pos..limit], &mut dst[pos..limit], start, len, delta)
}

/// Twin of [`super::scalar::encode_utf16_linear`].
#[inline]
pub(crate) fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable u16s, i.e. two 16-byte vectors.
        let (packed, all_mapped) = unsafe {
            let ptr = block.as_ptr().cast::<__m128i>();
            let zero = _mm_setzero_si128();
            let ascii_bits = _mm_set1_epi16(0xFF80u16 as i16);
            let start = _mm_set1_epi16(start as i16);
            // `unit - start < len` (unsigned) is `(unit - start) -sat (len - 1) == 0`.
            let last = _mm_set1_epi16(len.wrapping_sub(1) as i16);
            let delta = _mm_set1_epi16(delta as i16);
            let map = |units: __m128i| {
                let ascii = _mm_cmpeq_epi16(_mm_and_si128(units, ascii_bits), zero);
                let in_run = _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16(units, start), last), zero);
                let bytes = _mm_sub_epi16(units, _mm_and_si128(in_run, delta));
                (bytes, _mm_or_si128(ascii, in_run))
            };
            let (low, high) = (_mm_loadu_si128(ptr), _mm_loadu_si128(ptr.add(1)));
            // All ASCII (the common case) is one test; otherwise each unit is checked.
            let non_ascii = _mm_and_si128(_mm_or_si128(low, high), ascii_bits);
            if _mm_movemask_epi8(_mm_cmpeq_epi16(non_ascii, zero)) == 0xFFFF {
                (_mm_packus_epi16(low, high), true)
            } else {
                let (low, low_ok) = map(low);
                let (high, high_ok) = map(high);
                let all_mapped = _mm_movemask_epi8(_mm_and_si128(low_ok, high_ok)) == 0xFFFF;
                (_mm_packus_epi16(low, high), all_mapped)
            }
        };
        if !all_mapped {
            break;
        }
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), packed) };
        pos += LANES;
    }
    pos + super::scalar::encode_utf16_linear(&src[pos..limit], &mut dst[pos..limit], start, len, delta)
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

    /// The linear-run encoder matches its twin for runs at the edges of the unit
    /// range, with the first unit outside the run at every position and alignment.
    #[test]
    fn encode_utf16_linear_matches_scalar() {
        let runs =
            [(0x80u16, 1u16, 0u16), (0xA0, 96, 0), (0x410, 64, 0x350), (0x3A3, 44, 0x2D0), (0xFF00, 0x100, 0xFF00)];
        let specials = [
            0x7F, 0x80, 0x9F, 0xA0, 0xFF, 0x100, 0x3A2, 0x3A3, 0x3CE, 0x3CF, 0x40F, 0x410, 0x44F, 0x450, 0xD800, 0xFFFF,
        ];
        for &(start, len, delta) in &runs {
            let inside: alloc::vec::Vec<u16> =
                (0..40u16).map(|i| if i % 3 == 0 { 0x20 + i } else { start + i % len }).collect();
            for offset in 0..17 {
                for count in 0..24 {
                    for bad in (0..=count).step_by(5) {
                        for &special in &specials {
                            let mut units = inside[offset..offset + count].to_vec();
                            if bad < count {
                                units[bad] = special;
                            }
                            for out_len in [0, count / 2, count, count + 3] {
                                let (mut a, mut b) = (alloc::vec![0u8; out_len], alloc::vec![0u8; out_len]);
                                assert_eq!(
                                    super::encode_utf16_linear(&units, &mut a, start, len, delta),
                                    scalar::encode_utf16_linear(&units, &mut b, start, len, delta)
                                );
                                assert_eq!(a, b);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The linear-run decoder matches its twin, with the first byte outside the
    /// run at every position and alignment.
    #[test]
    fn decode_linear_to_utf16_matches_scalar() {
        let runs = [(0x80u8, 1u8, 0u16), (0xA0, 96, 0), (0xC0, 64, 0x350), (0xD3, 44, 0x2D0), (0x80, 128, 0xFF00)];
        for &(start, len, delta) in &runs {
            let inside: alloc::vec::Vec<u8> =
                (0..40u8).map(|i| if i % 3 == 0 { 0x20 + i } else { start + i % len }).collect();
            for offset in 0..17 {
                for count in 0..24 {
                    for bad in (0..=count).step_by(5) {
                        for special in [0x00, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xD2, 0xD3, 0xFE, 0xFF] {
                            let mut bytes = inside[offset..offset + count].to_vec();
                            if bad < count {
                                bytes[bad] = special;
                            }
                            for out_len in [0, count / 2, count, count + 3] {
                                let (mut a, mut b) = (alloc::vec![0u16; out_len], alloc::vec![0u16; out_len]);
                                assert_eq!(
                                    super::decode_linear_to_utf16(&bytes, &mut a, start, len, delta),
                                    scalar::decode_linear_to_utf16(&bytes, &mut b, start, len, delta)
                                );
                                assert_eq!(a, b);
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
