//! Big5 (`encoding.bs` § "Big5"): the decoder, with its four pointers that are two
//! code points each, and the encoder, through the index Big5 pointer.
//!
//! A two-byte sequence is one lookup in a grid indexed by the two bytes (built at
//! compile time from index Big5, whose table holds the low 16 bits, and a bitset that
//! marks the plane 2 code points; the grid marks those with surrogates). The encoder has a
//! reverse table for the BMP and a binary search for plane 2.

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};
use crate::tables::big5::{
    BIG5_DECODE, BIG5_DECODE_ASTRAL, BIG5_ENCODE, BIG5_ENCODE_ASTRAL_BYTES, BIG5_ENCODE_ASTRAL_CODE_POINTS,
    BIG5_FIRST_POINTER,
};

/// The Big5 decoder.
#[derive(Debug, Clone)]
pub(crate) struct Big5Decoder {
    /// Big5 leading.
    leading: u8,
}

impl Big5Decoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        usize::from(self.leading != 0)
    }

    /// A decoder in its initial state.
    pub(crate) fn new() -> Self {
        Big5Decoder { leading: 0 }
    }

    /// End of this call's input: with `last`, end-of-queue (steps 1 and 2).
    #[inline]
    fn end<S: Sink>(&mut self, last: bool, pos: usize, dst: &S) -> (Status, usize) {
        if last && self.leading != 0 {
            // The error is a step: it needs room for its U+FFFD.
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            // 1. Set Big5 leading to 0x00 and return error.
            self.leading = 0;
            return (Status::Error { len: 1, restored: 0 }, pos);
        }
        (Status::InputEmpty, pos)
    }
}

/// The first pair of bytes in [`BIG5_GRID`]: leading byte 0x87 holds the first
/// pointer of the table.
const GRID_FIRST: usize = 0x8740;
/// The length of [`BIG5_GRID`].
const GRID_LEN: usize = 0xFEFE - GRID_FIRST + 1;
/// The grid entry of a pair with no code point. Entries are never surrogates
/// otherwise, except the plane 2 marks `PLANE_2 + k`, which are below it.
const NULL: u16 = 0xDFFF;
/// The mark of the `k`th code point of plane 2 in [`BIG5_GRID`].
const PLANE_2: u16 = 0xD800;

/// The number of plane 2 code points in index Big5.
const PLANE_2_COUNT: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < BIG5_DECODE.len() {
        if BIG5_DECODE_ASTRAL[i / 32] & (1 << (i % 32)) != 0 {
            count += 1;
        }
        i += 1;
    }
    assert!(count < (NULL - PLANE_2) as usize);
    count
};

/// Index Big5 laid out by the two bytes as a big-endian number minus `GRID_FIRST`,
/// and the low 16 bits of its plane 2 code points, computed at compile time from the
/// generated tables.
const GRIDS: ([u16; GRID_LEN], [u16; PLANE_2_COUNT]) = {
    let mut grid = [NULL; GRID_LEN];
    let mut plane_2 = [0; PLANE_2_COUNT];
    let mut k = 0;
    let mut index = 0;
    while index < GRID_LEN {
        let (leading, byte) = ((index + GRID_FIRST) >> 8, (index + GRID_FIRST) & 0xFF);
        let offset = if byte < 0x7F { 0x40 } else { 0x62 };
        if (byte >= 0x40 && byte <= 0x7E) || (byte >= 0xA1 && byte <= 0xFE) {
            // The grid starts at the first pointer, and pointers grow with `index`.
            let pointer = (leading - 0x81) * 157 + byte - offset;
            let i = pointer - BIG5_FIRST_POINTER;
            if matches!(pointer, 1133 | 1135 | 1164 | 1166) {
                // Two code points each: left to the byte-at-a-time handler.
            } else if BIG5_DECODE_ASTRAL[i / 32] & (1 << (i % 32)) != 0 {
                grid[index] = PLANE_2 + k as u16;
                plane_2[k] = BIG5_DECODE[i];
                k += 1;
            } else if BIG5_DECODE[i] != 0 {
                grid[index] = BIG5_DECODE[i];
            }
        }
        index += 1;
    }
    (grid, plane_2)
};

/// Index Big5 by the two bytes (see [`GRIDS`]): a code point of the BMP, `NULL`, or
/// the mark `PLANE_2 + k` of the code point 0x20000 | `BIG5_PLANE_2[k]`. One lookup
/// with one bound check, and one comparison tells a code point of the BMP.
static BIG5_GRID: [u16; GRID_LEN] = GRIDS.0;
/// The low 16 bits of index Big5's code points in plane 2, in pointer order.
static BIG5_PLANE_2: [u16; PLANE_2_COUNT] = GRIDS.1;

/// The grid entry for a leading byte and a byte (`NULL` outside the grid).
#[inline(always)]
fn grid_entry(leading: u8, byte: u8) -> u16 {
    let index = usize::from(u16::from_be_bytes([leading, byte])).wrapping_sub(GRID_FIRST);
    BIG5_GRID.get(index).copied().unwrap_or(NULL)
}

/// A whole two-byte sequence at the start of `src` whose code point is in the BMP,
/// for [`Sink::decode_bmp_run`].
#[inline(always)]
fn bmp_sequence(src: &[u8]) -> Option<(u16, usize)> {
    let [leading, byte, ..] = *src else { return None };
    let code_point = *BIG5_GRID.get(usize::from(u16::from_be_bytes([leading, byte])).wrapping_sub(GRID_FIRST))?;
    // Not `NULL` nor a plane 2 mark: not a surrogate.
    (code_point.wrapping_sub(PLANE_2) >= 0x800).then_some((code_point, 2))
}

/// Step 3 of the Big5 decoder's handler (`encoding.bs` § "Big5 decoder"), for
/// `leading` and `byte` (which is in `src[pos]`): writes the code point(s) and
/// returns the position after the sequence, or returns the error with the position
/// after its consumed bytes.
#[inline(always)]
fn two_bytes<S: Sink>(leading: u8, byte: u8, pos: usize, dst: &mut S) -> Result<usize, (Status, usize)> {
    // 3.4. Let offset be 0x40 if byte is less than 0x7F; otherwise 0x62.
    let offset = if byte < 0x7F { 0x40 } else { 0x62 };
    // 3.5. A pointer only for byte in 0x40 to 0x7E or 0xA1 to 0xFE.
    if matches!(byte, 0x40..=0x7E | 0xA1..=0xFE) {
        let pointer = (leading as usize - 0x81) * 157 + (byte as usize - offset);
        // 3.6. Four pointers are two code points each.
        let pair = match pointer {
            1133 => Some((0x00CA, 0x0304)),
            1135 => Some((0x00CA, 0x030C)),
            1164 => Some((0x00EA, 0x0304)),
            1166 => Some((0x00EA, 0x030C)),
            _ => None,
        };
        if let Some((base, mark)) = pair {
            dst.push_bmp(base);
            dst.push_bmp(mark);
            return Ok(pos + 1);
        }
        // 3.7–3.8. The index Big5 code point for pointer, if any.
        match grid_entry(leading, byte) {
            NULL => {}
            mark @ PLANE_2..NULL => {
                let low = BIG5_PLANE_2[usize::from(mark - PLANE_2)];
                dst.push_char(char::from_u32(0x20000 | u32::from(low)).unwrap_or('\u{FFFD}'));
                return Ok(pos + 1);
            }
            code_point => {
                dst.push_bmp(code_point);
                return Ok(pos + 1);
            }
        }
    }
    // 3.9. If byte is an ASCII byte, restore it (not consumed). 3.10. Return error.
    if byte < 0x80 {
        Err((Status::Error { len: 1, restored: 0 }, pos))
    } else {
        Err((Status::Error { len: 2, restored: 0 }, pos + 1))
    }
}

impl DecodeHandler for Big5Decoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        let mut pos = 0;
        // A leading byte from an earlier call.
        if self.leading != 0 {
            let Some(&byte) = src.first() else {
                return self.end(last, 0, dst);
            };
            if dst.room() < S::STEP {
                return (Status::OutputFull, 0);
            }
            // 3.1–3.2. Let leading be Big5 leading; set Big5 leading to 0x00.
            let leading = core::mem::take(&mut self.leading);
            match two_bytes(leading, byte, 0, dst) {
                Ok(next) => pos = next,
                Err(error) => return error,
            }
        }
        loop {
            // ASCII runs in bulk, then whole sequences (and lone ASCII bytes) in
            // batches with one room check each; the rest one step at a time.
            pos += dst.copy_ascii_run(&src[pos..]);
            let n = dst.decode_bmp_run(&src[pos..], bmp_sequence);
            pos += n;
            if n != 0 {
                continue;
            }
            let Some(&byte) = src.get(pos) else {
                return (Status::InputEmpty, pos);
            };
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            match byte {
                // 4. An ASCII byte is a code point (copy_ascii stops at a non-ASCII byte
                //    or a full sink; stay exact).
                0x00..=0x7F => {
                    dst.push_ascii(byte);
                    pos += 1;
                }
                // 5. 0x81 to 0xFE: Big5 leading; the trailing byte follows at once.
                0x81..=0xFE => match src.get(pos + 1) {
                    Some(&trailing) => match two_bytes(byte, trailing, pos + 1, dst) {
                        Ok(next) => pos = next,
                        Err(error) => return error,
                    },
                    None => {
                        self.leading = byte;
                        return self.end(last, pos + 1, dst);
                    }
                },
                // 6. Return error.
                0x80 | 0xFF => return (Status::Error { len: 1, restored: 0 }, pos + 1),
            }
        }
    }
}

/// The Big5 encoder.
#[derive(Debug, Clone)]
pub(crate) struct Big5Encoder;

/// The two bytes (`leading << 8 | trailing`) of the index Big5 pointer for a
/// non-ASCII code point (`encoding.bs` § "Indexes" and § "Big5 encoder", steps 3–8),
/// all precomputed by the generator.
#[inline(always)]
fn encode_bytes(code_point: u32) -> Option<u16> {
    if code_point <= 0xFFFF {
        return BIG5_ENCODE.get(code_point);
    }
    let i = BIG5_ENCODE_ASTRAL_CODE_POINTS.binary_search(&code_point).ok()?;
    Some(BIG5_ENCODE_ASTRAL_BYTES[i])
}

impl EncodeHandler for Big5Encoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        // Step 2 (ASCII) is the shared loop's bulk copy; steps 3–8 give the index Big5
        // pointer as two bytes, or error when null.
        super::encode_stateless(src, dst, |c| encode_bytes(c as u32).map(u32::from))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Utf16Sink;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Runs the decoder over `src` into a roomy UTF-16 buffer: status, consumed, output.
    fn run(decoder: &mut Big5Decoder, src: &[u8], last: bool) -> (Status, usize, Vec<u16>) {
        let mut buf = [0u16; 16];
        let mut sink = Utf16Sink::new(&mut buf);
        let (status, consumed) = decoder.decode(src, &mut sink, last);
        let written = sink.written();
        (status, consumed, buf[..written].to_vec())
    }

    /// § "Big5 decoder" step 3.9 with the leading byte from an earlier call: the
    /// ASCII byte stays in `src` (restored = 0) and is read next.
    #[test]
    fn ascii_trailing_byte_is_not_consumed() {
        let mut decoder = Big5Decoder::new();
        assert_eq!(run(&mut decoder, b"\x81", false), (Status::InputEmpty, 1, vec![]));
        assert_eq!(run(&mut decoder, b"@", false), (Status::Error { len: 1, restored: 0 }, 0, vec![]));
        assert_eq!(run(&mut decoder, b"@", true), (Status::InputEmpty, 1, vec![0x40]));
    }

    /// § "Big5 decoder" step 3.6 across calls, the first pointer of the index, and
    /// the encoder's exclusion of pointers below (0xA1 − 0x81) × 157.
    #[test]
    fn two_code_points_and_first_pointer() {
        let mut decoder = Big5Decoder::new();
        assert_eq!(run(&mut decoder, b"\x88", false), (Status::InputEmpty, 1, vec![]));
        assert_eq!(run(&mut decoder, b"\x62", false), (Status::InputEmpty, 1, vec![0xCA, 0x304]));
        // 0x87 0x40 is pointer 6 × 157 = 942, U+43F0; 0x87 0x41 is U+4C32.
        assert_eq!(run(&mut decoder, b"\x87\x40\x87\x41", true), (Status::InputEmpty, 4, vec![0x43F0, 0x4C32]));
        assert_eq!(encode_bytes(0x43F0), None);
        assert_eq!(encode_bytes(0x4E2D), Some(0xA4A4));
    }
}
