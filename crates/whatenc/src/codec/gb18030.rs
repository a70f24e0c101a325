//! gb18030 and GBK (`encoding.bs` § "gb18030" and § "GBK"): one decoder for both,
//! and the gb18030 encoder, whose "is GBK" flag makes it GBK's encoder.
//!
//! The decoder runs whole sequences straight from the input when they are all
//! there, and the standard's byte-at-a-time handler only for a sequence cut by a
//! call boundary and for bytes it restored. Two-byte sequences are one lookup in
//! index gb18030 by pointer; four-byte ones a binary search over the 207 entries of
//! index gb18030 ranges. The encoder has a reverse table for the BMP (side table and
//! index gb18030, as bytes) and searches the ranges for four-byte output.

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};
use crate::tables::gb18030::{GB18030_DECODE, GB18030_ENCODE, GB18030_RANGES_CODE_POINTS, GB18030_RANGES_POINTERS};

/// The first pair of bytes in [`GB18030_GRID`].
const GRID_FIRST: usize = 0x8140;

/// The two-byte part of index gb18030, laid out by the two bytes as a big-endian
/// number minus `GRID_FIRST` (computed at compile time from the generated table):
/// one lookup with one bound check. 0 where the pair has no code point (null, or a
/// second byte with no pointer, which includes 0x30 to 0x39).
static GB18030_GRID: [u16; 0xFEFE - GRID_FIRST + 1] = {
    let mut grid = [0; 0xFEFE - GRID_FIRST + 1];
    let mut index = 0;
    while index < grid.len() {
        let (leading, byte) = ((index + GRID_FIRST) >> 8, (index + GRID_FIRST) & 0xFF);
        // Let offset be 0x40 if byte is less than 0x7F; otherwise 0x41. A pointer
        // only for byte in 0x40 to 0x7E or 0x80 to 0xFE.
        let offset = if byte < 0x7F { 0x40 } else { 0x41 };
        if (byte >= 0x40 && byte <= 0x7E) || (byte >= 0x80 && byte <= 0xFE) {
            grid[index] = GB18030_DECODE[(leading - 0x81) * 190 + byte - offset];
        }
        index += 1;
    }
    grid
};

/// The index gb18030 code point for a two-byte sequence (`encoding.bs` § "gb18030
/// decoder", the steps for when gb18030 first is not 0x00, after the 0x30–0x39 check).
#[inline(always)]
fn two_byte_code_point(leading: u8, byte: u8) -> Option<u16> {
    let code_point = *GB18030_GRID.get(usize::from(u16::from_be_bytes([leading, byte])).wrapping_sub(GRID_FIRST))?;
    (code_point != 0).then_some(code_point)
}

/// In the initial state: the code point and length of a two-byte sequence (or of
/// 0x80) at the start of `src` that the handler decodes to one code point; `None`
/// for anything else.
#[inline(always)]
fn two_byte_sequence(src: &[u8]) -> Option<(u16, usize)> {
    // Step 5, the second byte not in 0x30 to 0x39 (those have no code point in the
    // grid, nor does a first byte outside 0x81 to 0xFE).
    if let [lead, byte, ..] = *src
        && let Some(code_point) = two_byte_code_point(lead, byte)
    {
        return Some((code_point, 2));
    }
    // Step 7: 0x80 is U+20AC (€).
    match src.first() {
        Some(0x80) => Some((0x20AC, 1)),
        _ => None,
    }
}

/// The pointer of a four-byte sequence (`encoding.bs` § "gb18030 decoder", the
/// steps for when gb18030 third is not 0x00).
#[inline(always)]
fn four_byte_pointer(first: u8, second: u8, third: u8, fourth: u8) -> u32 {
    (first as u32 - 0x81) * (10 * 126 * 10)
        + (second as u32 - 0x30) * (10 * 126)
        + (third as u32 - 0x81) * 10
        + fourth as u32
        - 0x30
}

/// The index gb18030 ranges code point for `pointer` (`encoding.bs` § "Indexes").
#[inline]
fn ranges_code_point(pointer: u32) -> Option<char> {
    // 1. If pointer is greater than 39419 and less than 189000, or pointer is greater
    //    than 1237575, then return null.
    if (pointer > 39419 && pointer < 189000) || pointer > 1237575 {
        return None;
    }
    // 2. If pointer is 7457, then return code point U+E7C7.
    if pointer == 7457 {
        return Some('\u{E7C7}');
    }
    // 3. The last pointer in index gb18030 ranges that is less than or equal to
    //    pointer (the first entry is pointer 0), and its code point.
    let i = GB18030_RANGES_POINTERS.partition_point(|&p| p <= pointer) - 1;
    // 4. codePointOffset + pointer − offset. (The generator checked that no range
    //    reaches a surrogate or goes beyond U+10FFFF.)
    char::from_u32(GB18030_RANGES_CODE_POINTS[i] + pointer - GB18030_RANGES_POINTERS[i])
}

/// The index gb18030 ranges pointer for `code_point` (`encoding.bs` § "Indexes").
#[inline]
fn ranges_pointer(code_point: u32) -> u32 {
    // 1. If codePoint is U+E7C7, then return pointer 7457.
    if code_point == 0xE7C7 {
        return 7457;
    }
    // 2. The last code point in index gb18030 ranges that is less than or equal to
    //    codePoint (the encoder only gets here with codePoint ≥ U+0080, the first
    //    entry), and its pointer.
    let i = GB18030_RANGES_CODE_POINTS.partition_point(|&c| c <= code_point).saturating_sub(1);
    // 3. pointerOffset + codePoint − offset.
    GB18030_RANGES_POINTERS[i] + code_point - GB18030_RANGES_CODE_POINTS[i]
}

/// The gb18030 decoder.
///
/// `first`, `second` and `third` are the standard's gb18030 first/second/third. The
/// bytes the standard restores to the I/O queue are not consumed when they are still
/// in the call's input; those that came in an earlier call (or were themselves
/// restored) wait in `pending` and are read before any more input.
#[derive(Debug, Clone)]
pub(crate) struct Gb18030Decoder {
    /// gb18030 first.
    first: u8,
    /// gb18030 second.
    second: u8,
    /// gb18030 third.
    third: u8,
    /// Restored bytes; `pending[pending_start..pending_end]` are still to be read.
    /// The bytes before `pending_start` are kept so a restore can step back. (At most
    /// « second, third » are ever held: the restored current byte is always in `src`.)
    pending: [u8; 3],
    /// The next pending byte to read.
    pending_start: u8,
    /// The end of the pending bytes.
    pending_end: u8,
}

/// The result of one run of the standard's handler on one byte.
enum Step {
    /// Return continue.
    Continue,
    /// Return an ASCII code point.
    Ascii(u8),
    /// Return a code point of the BMP.
    Bmp(u16),
    /// Return a code point (from the ranges; possibly astral).
    Char(char),
    /// Return error after restoring `restore`, the last bytes read (the current byte
    /// last); `len` bytes before them are the malformed sequence.
    Error { len: u8, restore: u8 },
}

impl Gb18030Decoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        [self.first, self.second, self.third].iter().filter(|&&b| b != 0).count()
            + usize::from(self.pending_end - self.pending_start)
    }

    /// A decoder in its initial state.
    pub(crate) fn new() -> Self {
        Gb18030Decoder { first: 0, second: 0, third: 0, pending: [0; 3], pending_start: 0, pending_end: 0 }
    }

    /// The standard's handler for one byte (not end-of-queue): `encoding.bs`
    /// § "gb18030 decoder", steps 3 to 10.
    #[inline]
    fn step(&mut self, byte: u8) -> Step {
        // 3. If gb18030 third is not 0x00:
        if self.third != 0 {
            // 3.1. If byte is not in 0x30 to 0x39: restore « second, third, byte »,
            //      set first, second and third to 0x00, and return error.
            if !byte.is_ascii_digit() {
                self.first = 0;
                self.second = 0;
                self.third = 0;
                return Step::Error { len: 1, restore: 3 };
            }
            // 3.2–3.5. The ranges code point for the pointer; reset; null is an error.
            let pointer = four_byte_pointer(self.first, self.second, self.third, byte);
            self.first = 0;
            self.second = 0;
            self.third = 0;
            return match ranges_code_point(pointer) {
                Some(c) => Step::Char(c),
                None => Step::Error { len: 4, restore: 0 },
            };
        }
        // 4. If gb18030 second is not 0x00:
        if self.second != 0 {
            // 4.1. If byte is in 0x81 to 0xFE, set gb18030 third to byte; continue.
            if matches!(byte, 0x81..=0xFE) {
                self.third = byte;
                return Step::Continue;
            }
            // 4.2. Restore « second, byte », set first and second to 0x00; error.
            self.first = 0;
            self.second = 0;
            return Step::Error { len: 1, restore: 2 };
        }
        // 5. If gb18030 first is not 0x00:
        if self.first != 0 {
            // 5.1. If byte is in 0x30 to 0x39, set gb18030 second to byte; continue.
            if byte.is_ascii_digit() {
                self.second = byte;
                return Step::Continue;
            }
            // 5.2–5.8. The index gb18030 code point for the two bytes.
            let leading = self.first;
            self.first = 0;
            if let Some(code_point) = two_byte_code_point(leading, byte) {
                return Step::Bmp(code_point);
            }
            // 5.9. If byte is an ASCII byte, restore byte. 5.10. Return error.
            return if byte < 0x80 { Step::Error { len: 1, restore: 1 } } else { Step::Error { len: 2, restore: 0 } };
        }
        match byte {
            // 6. An ASCII byte is a code point.
            0x00..=0x7F => Step::Ascii(byte),
            // 7. 0x80 is U+20AC (€).
            0x80 => Step::Bmp(0x20AC),
            // 8. 0x81 to 0xFE: set gb18030 first; continue.
            0x81..=0xFE => {
                self.first = byte;
                Step::Continue
            }
            // 9. Return error.
            0xFF => Step::Error { len: 1, restore: 0 },
        }
    }

    /// Takes out the restored bytes waiting to be read again (for
    /// `Decoder::take_restored`).
    pub(crate) fn take_restored(&mut self) -> ([u8; 3], usize) {
        let mut out = [0u8; 3];
        let held = &self.pending[self.pending_start as usize..self.pending_end as usize];
        out[..held.len()].copy_from_slice(held);
        let len = held.len();
        self.pending_start = 0;
        self.pending_end = 0;
        (out, len)
    }

    /// Restores the last `count` bytes read: « second, third, byte » for 3,
    /// « second, byte » for 2, « byte » for 1, where `state` is `[second, third, byte]`
    /// as they were before the step. `pos` is the position in `src` after the current
    /// byte when it came from `src`. Returns the bytes now held in `pending`
    /// (consumed, to be re-read).
    #[inline]
    fn restore(&mut self, state: [u8; 3], count: u8, from_pending: bool, pos: &mut usize) -> u8 {
        let [second, third, byte] = state;
        let bytes = match count {
            3 => [second, third, byte],
            2 => [second, byte, 0],
            _ => [byte, 0, 0],
        };
        if from_pending {
            // The state was initial when these bytes were restored, so every byte read
            // since came from `pending`, which still holds them: step back. (Not reached
            // with the standard's steps, since `pending` only ever holds a digit, which is
            // output as ASCII, then a leading byte; kept so any restore stays exact.)
            debug_assert!(self.pending_start >= count);
            self.pending_start -= count;
            debug_assert_eq!(self.pending[self.pending_start as usize..][..count as usize], bytes[..count as usize]);
        } else {
            // The pending bytes were all read before `src`: the bytes read from `src` in
            // this call come last. Those are simply not consumed; the rest are held.
            let in_src = (count as usize).min(*pos);
            *pos -= in_src;
            let held = count as usize - in_src;
            self.pending[..held].copy_from_slice(&bytes[..held]);
            self.pending_start = 0;
            self.pending_end = held as u8;
        }
        self.pending_end - self.pending_start
    }

    /// The end of this call's input: with `last`, end-of-queue (steps 1 and 2).
    #[inline]
    fn end<S: Sink>(&mut self, last: bool, pos: usize, dst: &S) -> (Status, usize) {
        if last && self.first != 0 {
            // The error is a step: it needs room for its U+FFFD.
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            // 2. Reset and return error: the malformed sequence is the bytes held.
            let len = 1 + (self.second != 0) as u8 + (self.third != 0) as u8;
            self.first = 0;
            self.second = 0;
            self.third = 0;
            return (Status::Error { len, restored: 0 }, pos);
        }
        (Status::InputEmpty, pos)
    }
}

impl DecodeHandler for Gb18030Decoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        let mut pos = 0;
        loop {
            // The standard's handler, one byte at a time, while bytes are pending or a
            // sequence is open.
            while self.pending_start < self.pending_end || self.first != 0 {
                let from_pending = self.pending_start < self.pending_end;
                let byte = if from_pending {
                    self.pending[self.pending_start as usize]
                } else if let Some(&byte) = src.get(pos) {
                    byte
                } else {
                    return self.end(last, pos, dst);
                };
                if dst.room() < S::STEP {
                    return (Status::OutputFull, pos);
                }
                let state = [self.second, self.third, byte];
                if from_pending {
                    self.pending_start += 1;
                } else {
                    pos += 1;
                }
                match self.step(byte) {
                    Step::Continue => {}
                    Step::Ascii(byte) => dst.push_ascii(byte),
                    Step::Bmp(code_point) => dst.push_bmp(code_point),
                    Step::Char(c) => dst.push_char(c),
                    Step::Error { len, restore } => {
                        let restored = self.restore(state, restore, from_pending, &mut pos);
                        return (Status::Error { len, restored }, pos);
                    }
                }
            }
            // The state is initial and nothing is pending: take whole sequences
            // straight from `src`.
            loop {
                pos += dst.copy_ascii_run(&src[pos..]);
                // Two-byte sequences (and lone ASCII bytes) in batches with one room
                // check each.
                let n = dst.decode_bmp_run(&src[pos..], two_byte_sequence);
                pos += n;
                if n != 0 {
                    continue;
                }
                let rest = &src[pos..];
                let Some(&lead) = rest.first() else {
                    return (Status::InputEmpty, pos);
                };
                if dst.room() < S::STEP {
                    return (Status::OutputFull, pos);
                }
                match lead {
                    // copy_ascii stops at a non-ASCII byte or a full sink; stay exact.
                    0x00..=0x7F => {
                        dst.push_ascii(lead);
                        pos += 1;
                    }
                    // Step 7: 0x80 is U+20AC (€).
                    0x80 => {
                        dst.push_bmp(0x20AC);
                        pos += 1;
                    }
                    0x81..=0xFE => match *rest {
                        // Two bytes (step 5, the second byte not in 0x30 to 0x39).
                        [_, byte, ..] if !byte.is_ascii_digit() => {
                            if let Some(code_point) = two_byte_code_point(lead, byte) {
                                dst.push_bmp(code_point);
                                pos += 2;
                            } else if byte < 0x80 {
                                // Step 5.9: the ASCII byte is restored: not consumed.
                                return (Status::Error { len: 1, restored: 0 }, pos + 1);
                            } else {
                                return (Status::Error { len: 2, restored: 0 }, pos + 2);
                            }
                        }
                        // Four bytes (steps 5.1, 4 and 3).
                        [_, second, third, fourth, ..] => {
                            // Step 4.2: restore « second, third »; step 3.1: restore
                            // « second, third, fourth »: all still in `src`.
                            if !matches!(third, 0x81..=0xFE) || !fourth.is_ascii_digit() {
                                return (Status::Error { len: 1, restored: 0 }, pos + 1);
                            }
                            pos += 4;
                            match ranges_code_point(four_byte_pointer(lead, second, third, fourth)) {
                                Some(c) => dst.push_char(c),
                                None => return (Status::Error { len: 4, restored: 0 }, pos),
                            }
                        }
                        // The sequence is cut by the end of `src`: step 8, then the
                        // byte-at-a-time handler.
                        _ => {
                            self.first = lead;
                            pos += 1;
                            break;
                        }
                    },
                    // Step 9.
                    0xFF => return (Status::Error { len: 1, restored: 0 }, pos + 1),
                }
            }
        }
    }
}

/// The gb18030 encoder; with `is_gbk`, GBK's encoder (`encoding.bs` § "GBK encoder").
#[derive(Debug, Clone)]
pub(crate) struct Gb18030Encoder {
    /// is GBK.
    is_gbk: bool,
}

impl Gb18030Encoder {
    /// gb18030's encoder, with its "is GBK" set to `is_gbk`.
    pub(crate) fn new(is_gbk: bool) -> Self {
        Gb18030Encoder { is_gbk }
    }
}

impl Gb18030Encoder {
    /// The handler for a non-ASCII scalar value (`encoding.bs` § "gb18030 encoder",
    /// steps 3–16): its bytes as one number (see `encode_stateless`), or `None` for
    /// error.
    #[inline(always)]
    fn bytes(&self, c: char) -> Option<u32> {
        let code_point = c as u32;
        // Step 3: U+E5E5 is an error (index gb18030 maps 0xA3 0xA0 to U+3000).
        if code_point == 0xE5E5 {
            return None;
        }
        // Step 4: GBK encodes U+20AC (€) as 0x80.
        if self.is_gbk && code_point == 0x20AC {
            return Some(0x80);
        }
        // Steps 5–7: the side table, else the index pointer turned into two bytes;
        // both are precomputed as bytes in one reverse table.
        if let Some(bytes) = GB18030_ENCODE.get(code_point) {
            return Some(bytes as u32);
        }
        // Step 8: GBK has no four-byte sequences.
        if self.is_gbk {
            return None;
        }
        // Steps 9–16: four bytes from the index gb18030 ranges pointer.
        let mut pointer = ranges_pointer(code_point);
        let byte1 = pointer / (10 * 126 * 10);
        pointer %= 10 * 126 * 10;
        let byte2 = pointer / (10 * 126);
        pointer %= 10 * 126;
        let byte3 = pointer / 10;
        let byte4 = pointer % 10;
        Some(u32::from_be_bytes([byte1 as u8 + 0x81, byte2 as u8 + 0x30, byte3 as u8 + 0x81, byte4 as u8 + 0x30]))
    }
}

impl EncodeHandler for Gb18030Encoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        // Steps 1–2 (end-of-queue, ASCII) are the shared loop's.
        super::encode_stateless(src, dst, |c| self.bytes(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Utf8Sink;
    use alloc::string::String;

    /// Runs the decoder over `src` into a roomy UTF-8 buffer: status, consumed, output.
    fn run(decoder: &mut Gb18030Decoder, src: &[u8], last: bool) -> (Status, usize, String) {
        let mut buf = [0u8; 64];
        let mut sink = Utf8Sink::new(&mut buf);
        let (status, consumed) = decoder.decode(src, &mut sink, last);
        let written = sink.written();
        (status, consumed, String::from_utf8(buf[..written].to_vec()).unwrap())
    }

    /// § "Indexes", "index gb18030 ranges code point": the limits of step 1, pointer
    /// 7457 (step 2), and the first and last pointers of the ranges.
    #[test]
    fn ranges_code_point_limits() {
        assert_eq!(ranges_code_point(0), Some('\u{80}'));
        assert_eq!(ranges_code_point(7457), Some('\u{E7C7}'));
        assert_eq!(ranges_code_point(39419), Some('\u{FFFF}'));
        assert_eq!(ranges_code_point(39420), None);
        assert_eq!(ranges_code_point(188999), None);
        assert_eq!(ranges_code_point(189000), Some('\u{10000}'));
        assert_eq!(ranges_code_point(1237575), Some('\u{10FFFF}'));
        assert_eq!(ranges_code_point(1237576), None);
    }

    /// § "Indexes", "index gb18030 ranges pointer", including step 1 (U+E7C7).
    #[test]
    fn ranges_pointer_values() {
        assert_eq!(ranges_pointer(0x80), 0);
        assert_eq!(ranges_pointer(0xE7C7), 7457);
        assert_eq!(ranges_pointer(0xFFFF), 39419);
        assert_eq!(ranges_pointer(0x10000), 189000);
        assert_eq!(ranges_pointer(0x10FFFF), 1237575);
    }

    /// § "gb18030 decoder" step 3.1 when « second, third » came in earlier calls: the
    /// handler holds them (`restored` = 2) and leaves the byte in `src` unconsumed,
    /// then re-reads them before `src`.
    #[test]
    fn restored_bytes_from_earlier_calls_are_held() {
        let mut decoder = Gb18030Decoder::new();
        for byte in [0x81, 0x30, 0x81] {
            assert_eq!(run(&mut decoder, &[byte], false), (Status::InputEmpty, 1, "".into()));
        }
        assert_eq!(run(&mut decoder, b"\x41", false), (Status::Error { len: 1, restored: 2 }, 0, "".into()));
        // « 0x30, 0x81 » then 0x41: "0" and pointer 1.
        assert_eq!(run(&mut decoder, b"\x41", true), (Status::InputEmpty, 1, "0\u{4E04}".into()));
    }

    /// The same with only « third » from an earlier call: « second » is held, and the
    /// rest is left in `src`.
    #[test]
    fn restore_splits_between_state_and_src() {
        let mut decoder = Gb18030Decoder::new();
        assert_eq!(run(&mut decoder, b"\x81\x30", false), (Status::InputEmpty, 2, "".into()));
        assert_eq!(run(&mut decoder, b"\x81A", false), (Status::Error { len: 1, restored: 1 }, 0, "".into()));
        assert_eq!(run(&mut decoder, b"\x81A", true), (Status::InputEmpty, 2, "0\u{4E04}".into()));
        // Step 4.2 with « second » from an earlier call.
        let mut decoder = Gb18030Decoder::new();
        assert_eq!(run(&mut decoder, b"\x81\x39", false), (Status::InputEmpty, 2, "".into()));
        assert_eq!(run(&mut decoder, b"z", true), (Status::Error { len: 1, restored: 1 }, 0, "".into()));
        assert_eq!(run(&mut decoder, b"z", true), (Status::InputEmpty, 1, "9z".into()));
    }

    /// End-of-queue (steps 1 and 2) leaves the state initial.
    #[test]
    fn end_of_queue_resets() {
        let mut decoder = Gb18030Decoder::new();
        assert_eq!(run(&mut decoder, b"\x81\x30\x81", true), (Status::Error { len: 3, restored: 0 }, 3, "".into()));
        assert_eq!(run(&mut decoder, b"", true), (Status::InputEmpty, 0, "".into()));
        assert_eq!((decoder.first, decoder.second, decoder.third, decoder.pending_end), (0, 0, 0, 0));
    }
}
