//! Portable kernels that work a machine word at a time.

const WORD: usize = core::mem::size_of::<usize>();
const HIGH_BITS: usize = usize::from_ne_bytes([0x80; WORD]);

/// The length of the longest ASCII prefix of `bytes`.
#[inline]
pub(crate) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    let mut pos = 0;
    let mut words = bytes.chunks_exact(WORD);
    for word in &mut words {
        let value = usize::from_ne_bytes(word.try_into().unwrap_or([0; WORD]));
        let high = value & HIGH_BITS;
        if high != 0 {
            // The first non-ASCII byte in memory order.
            let offset =
                if cfg!(target_endian = "little") { high.trailing_zeros() / 8 } else { high.leading_zeros() / 8 };
            return pos + offset as usize;
        }
        pos += WORD;
    }
    for &byte in words.remainder() {
        if byte >= 0x80 {
            return pos;
        }
        pos += 1;
    }
    pos
}

/// Copies the longest ASCII prefix of `src` that fits in `dst`; returns its length.
#[inline]
pub(crate) fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let n = ascii_prefix_len(&src[..limit]);
    dst[..n].copy_from_slice(&src[..n]);
    n
}

/// Widens the longest ASCII prefix of `src` that fits in `dst`; returns its length.
#[inline]
pub(crate) fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
    let limit = src.len().min(dst.len());
    let n = ascii_prefix_len(&src[..limit]);
    for (out, &byte) in dst[..n].iter_mut().zip(&src[..n]) {
        *out = byte as u16;
    }
    n
}

/// Narrows the longest run of ASCII code units of `src` that fits in `dst`; returns
/// its length.
#[inline]
pub(crate) fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let mut n = 0;
    for (out, &unit) in dst[..limit].iter_mut().zip(&src[..limit]) {
        if unit >= 0x80 {
            break;
        }
        *out = unit as u8;
        n += 1;
    }
    n
}

/// Decodes the longest run of bytes of `src` that fits in `dst` and that are ASCII
/// (written as themselves) or in `start..start + len` (written as `byte + delta`);
/// returns its length. `start` is at least 0x80.
#[inline]
pub(crate) fn decode_linear_to_utf16(src: &[u8], dst: &mut [u16], start: u8, len: u8, delta: u16) -> usize {
    let limit = src.len().min(dst.len());
    let mut n = 0;
    for (out, &byte) in dst[..limit].iter_mut().zip(&src[..limit]) {
        if byte < 0x80 {
            *out = byte as u16;
        } else if byte.wrapping_sub(start) < len {
            *out = (byte as u16).wrapping_add(delta);
        } else {
            break;
        }
        n += 1;
    }
    n
}

/// Bytes per block of the single-byte table kernels.
pub(crate) const TABLE_BLOCK: usize = 16;

/// The fewest non-ASCII bytes for which [`decode_table_to_utf8`] decodes a block
/// whole through the table rather than copying its ASCII prefix and decoding its first
/// non-ASCII byte.
pub(crate) const DENSE_BLOCK: u32 = 3;

/// The room in `dst` that [`decode_table_to_utf8`] wants before a block.
pub(crate) const UTF8_BLOCK_ROOM: usize = 64;

/// Decodes bytes of a single-byte encoding into UTF-8 through `table` (each byte's
/// UTF-8, least significant byte first, with its length in the top byte; 0 for
/// null), a block of 16 bytes at a time while 16 are left and `dst` has 64 bytes of
/// room: an ASCII block is copied; a block with few non-ASCII bytes has its ASCII
/// prefix copied and its first non-ASCII byte decoded; other blocks are decoded byte
/// by byte. Stops before a null byte; returns the bytes read and written. (The SSE2
/// twin leaves up to 16 scratch bytes after the output.)
#[inline]
pub(crate) fn decode_table_to_utf8(src: &[u8], dst: &mut [u8], table: &[u32; 256]) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    while let Some(block) = src[read..].first_chunk::<TABLE_BLOCK>() {
        if dst.len() - written < UTF8_BLOCK_ROOM {
            break;
        }
        let [low, high] = [&block[..8], &block[8..]]
            .map(|half| u64::from_le_bytes(half.try_into().unwrap_or([0; 8])) & 0x8080_8080_8080_8080);
        if low | high == 0 {
            dst[written..written + TABLE_BLOCK].copy_from_slice(block);
            read += TABLE_BLOCK;
            written += TABLE_BLOCK;
            continue;
        }
        if low.count_ones() + high.count_ones() >= DENSE_BLOCK {
            for (i, &byte) in block.iter().enumerate() {
                let entry = table[byte as usize];
                if entry == 0 {
                    return (read + i, written);
                }
                dst[written..written + 4].copy_from_slice(&entry.to_le_bytes());
                written += (entry >> 24) as usize;
            }
            read += TABLE_BLOCK;
            continue;
        }
        let ascii = if low != 0 { low.trailing_zeros() / 8 } else { 8 + high.trailing_zeros() / 8 } as usize;
        dst[written..written + ascii].copy_from_slice(&block[..ascii]);
        read += ascii;
        written += ascii;
        let entry = table[block[ascii] as usize];
        if entry == 0 {
            break;
        }
        dst[written..written + 4].copy_from_slice(&entry.to_le_bytes());
        read += 1;
        written += (entry >> 24) as usize;
    }
    (read, written)
}

/// Decodes bytes of a single-byte encoding into UTF-16, a block of 16 bytes at a
/// time while 16 are left and fit in `dst`: a block of bytes that are ASCII or in
/// `start..start + len` as in [`decode_linear_to_utf16`], any other through `table`
/// (each byte's code unit, 0 for null), unless the block has a unit of 0 (null, or
/// the byte 0x00). Returns the bytes consumed.
#[inline]
pub(crate) fn decode_table_to_utf16(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    start: u8,
    len: u8,
    delta: u16,
) -> usize {
    let mut pos = 0;
    while let Some(block) = src[pos..].first_chunk::<TABLE_BLOCK>() {
        let Some(out) = dst[pos..].first_chunk_mut::<TABLE_BLOCK>() else { break };
        if decode_linear_to_utf16(block, out, start, len, delta) < TABLE_BLOCK {
            let mut zero = false;
            for (unit, &byte) in out.iter_mut().zip(block) {
                *unit = table[byte as usize];
                zero |= *unit == 0;
            }
            if zero {
                break;
            }
        }
        pos += TABLE_BLOCK;
    }
    pos
}

/// Encodes the longest run of code units of `src` that fits in `dst` and that are
/// ASCII (written as themselves) or in `start..start + len` (written as
/// `unit - delta`); returns its length. `start` is at least 0x80, `len` at least 1,
/// and every unit of the range minus `delta` is a byte.
#[inline]
pub(crate) fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize {
    let limit = src.len().min(dst.len());
    let mut n = 0;
    for (out, &unit) in dst[..limit].iter_mut().zip(&src[..limit]) {
        if unit < 0x80 {
            *out = unit as u8;
        } else if unit.wrapping_sub(start) < len {
            *out = unit.wrapping_sub(delta) as u8;
        } else {
            break;
        }
        n += 1;
    }
    n
}

/// Turns UTF-16 bytes (big- or little-endian) into code units while they are not
/// surrogates and fit in `dst`; returns the units written (each consumed two bytes).
#[inline]
pub(crate) fn utf16_bytes_to_units(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize {
    let mut n = 0;
    for (out, pair) in dst.iter_mut().zip(src.chunks_exact(2)) {
        let unit =
            if big_endian { u16::from_be_bytes([pair[0], pair[1]]) } else { u16::from_le_bytes([pair[0], pair[1]]) };
        if (0xD800..=0xDFFF).contains(&unit) {
            break;
        }
        *out = unit;
        n += 1;
    }
    n
}

/// Narrows the run of ASCII code units at the start of UTF-16 bytes (big- or
/// little-endian) into `dst` as far as it fits; returns the units copied.
#[inline]
pub(crate) fn utf16_bytes_ascii_to_bytes(src: &[u8], dst: &mut [u8], big_endian: bool) -> usize {
    let mut n = 0;
    for (out, pair) in dst.iter_mut().zip(src.chunks_exact(2)) {
        let unit =
            if big_endian { u16::from_be_bytes([pair[0], pair[1]]) } else { u16::from_le_bytes([pair[0], pair[1]]) };
        if unit >= 0x80 {
            break;
        }
        *out = unit as u8;
        n += 1;
    }
    n
}

/// Transcodes valid UTF-8 to UTF-16; the caller guarantees `dst.len() >= s.len()`.
/// Returns the units written.
#[inline]
pub(crate) fn utf8_to_utf16(s: &str, dst: &mut [u16]) -> usize {
    let bytes = s.as_bytes();
    let mut read = 0;
    let mut written = 0;
    while let Some(&lead) = bytes.get(read) {
        // `s` is valid UTF-8, so each lead byte is followed by its continuation bytes.
        match lead {
            0x00..=0x7F => {
                if bytes.get(read + 1).is_some_and(|&next| next < 0x80) {
                    // A run of ASCII, in bulk.
                    let n = super::copy_ascii_to_utf16(&bytes[read..], &mut dst[written..]);
                    read += n;
                    written += n;
                } else {
                    dst[written] = lead as u16;
                    read += 1;
                    written += 1;
                }
            }
            0xC0..=0xDF => {
                dst[written] = ((lead as u16 & 0x1F) << 6) | (bytes[read + 1] as u16 & 0x3F);
                read += 2;
                written += 1;
            }
            0xE0..=0xEF => {
                dst[written] = ((lead as u16 & 0x0F) << 12)
                    | ((bytes[read + 1] as u16 & 0x3F) << 6)
                    | (bytes[read + 2] as u16 & 0x3F);
                read += 3;
                written += 1;
            }
            _ => {
                let c = ((lead as u32 & 0x07) << 18)
                    | ((bytes[read + 1] as u32 & 0x3F) << 12)
                    | ((bytes[read + 2] as u32 & 0x3F) << 6)
                    | (bytes[read + 3] as u32 & 0x3F);
                let c = c - 0x10000;
                dst[written] = 0xD800 | (c >> 10) as u16;
                dst[written + 1] = 0xDC00 | (c & 0x3FF) as u16;
                read += 4;
                written += 2;
            }
        }
    }
    written
}

/// Writes eight code units that are not surrogates as UTF-8 at the start of `out`;
/// returns the bytes written (the rest of `out` may be overwritten).
#[inline]
pub(crate) fn block_to_utf8(block: [u16; 8], out: &mut [u8; 32]) -> usize {
    let mut written = 0;
    for unit in block {
        let (word, n) = super::utf16_to_utf8::packed_utf8(unit);
        out[written..written + 4].copy_from_slice(&word.to_le_bytes());
        written += n;
    }
    written
}

/// The length of the longest valid UTF-8 prefix of `bytes` (as
/// `Utf8Error::valid_up_to`): the twin of the UTF-8 validation kernels.
// Only the AVX-512 and AVX2 kernels' tests use it.
#[cfg_attr(not(all(target_arch = "x86_64", not(whatenc_portable), test)), allow(dead_code))]
pub(crate) fn utf8_valid_up_to(bytes: &[u8]) -> usize {
    core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len)
}

/// Copies the longest valid UTF-8 prefix of `src` that fits into the start of `dst`;
/// returns its length: the twin of the fused validate-and-copy kernels.
// Only the AVX-512 and AVX2 kernels' tests use it.
#[cfg_attr(not(all(target_arch = "x86_64", not(whatenc_portable), test)), allow(dead_code))]
pub(crate) fn copy_valid_utf8_prefix(src: &[u8], dst: &mut [core::mem::MaybeUninit<u8>]) -> usize {
    let src = &src[..src.len().min(dst.len())];
    let valid = &src[..utf8_valid_up_to(src)];
    for (out, &byte) in dst.iter_mut().zip(valid) {
        out.write(byte);
    }
    valid.len()
}

#[cfg(test)]
mod tests {
    use super::super::utf16_to_utf8;
    use super::*;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Naive twin of [`ascii_prefix_len`].
    fn naive_ascii_prefix_len(bytes: &[u8]) -> usize {
        bytes.iter().position(|&b| b >= 0x80).unwrap_or(bytes.len())
    }

    #[test]
    fn ascii_prefix_len_matches_naive_at_every_alignment() {
        let mut buf = [b'a'; 80];
        for start in 0..WORD + 1 {
            for len in 0..64 {
                for bad in 0..=len {
                    let slice_end = start + len;
                    if bad < len {
                        buf[start + bad] = 0xC3;
                    }
                    let slice = &buf[start..slice_end];
                    assert_eq!(ascii_prefix_len(slice), naive_ascii_prefix_len(slice), "{start} {len} {bad}");
                    if bad < len {
                        buf[start + bad] = b'a';
                    }
                }
            }
        }
    }

    #[test]
    fn transcoders_match_std() {
        let text = "a\u{e9}\u{4e2d}\u{1F600}zzzzzzzzzzzzzzzzz\u{7f}\u{80} x\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}y";
        for start in 0..text.len() {
            if !text.is_char_boundary(start) {
                continue;
            }
            let s = &text[start..];
            let mut out = vec![0u16; s.len()];
            let n = utf8_to_utf16(s, &mut out);
            assert_eq!(&out[..n], s.encode_utf16().collect::<Vec<_>>().as_slice());
            let units: Vec<u16> = s.encode_utf16().collect();
            let mut bytes = vec![0u8; s.len()];
            assert_eq!(utf16_to_utf8(&units, &mut bytes), (units.len(), s.len()));
            assert_eq!(&bytes, s.as_bytes());
        }
        // Every output size: whole scalar values only, in order, as far as they fit.
        let units: Vec<u16> = text.encode_utf16().collect();
        for size in 0..=text.len() {
            let mut bytes = vec![0u8; size];
            let (read, written) = utf16_to_utf8(&units, &mut bytes);
            let expected = String::from_utf16(&units[..read]).unwrap();
            assert_eq!(&bytes[..written], expected.as_bytes(), "{size}");
            assert!(text.len() - written < 4 || written + 4 > size, "{size}: stopped early");
        }
        let lone = [0x61, 0xD800, 0x62, 0xDC00];
        let mut bytes = [0u8; 8];
        assert_eq!(utf16_to_utf8(&lone, &mut bytes), (4, 8));
        assert_eq!(&bytes, "a\u{FFFD}b\u{FFFD}".as_bytes());
    }
}
