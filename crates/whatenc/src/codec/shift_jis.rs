//! Shift_JIS (`encoding.bs` § "Shift_JIS").

use super::euc_jp::{LeadByteHandler, Malformed, decode_lead_byte, jis0208_code_point};
use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};
use crate::tables::jis0208::SHIFT_JIS_BYTES;

/// The Shift_JIS decoder.
#[derive(Debug, Clone)]
pub(crate) struct ShiftJisDecoder {
    /// Shift_JIS leading (0x00 for none).
    lead: u8,
}

impl ShiftJisDecoder {
    pub(crate) fn new() -> Self {
        ShiftJisDecoder { lead: 0 }
    }
}

/// Whether `byte` is a Shift_JIS leading byte (decoder step 6).
#[inline(always)]
fn is_lead(byte: u8) -> bool {
    matches!(byte, 0x81..=0x9F | 0xE0..=0xFC)
}

/// The code point for a non-ASCII single byte (decoder steps 4 and 5), if any.
#[inline(always)]
fn single(byte: u8) -> Option<u16> {
    match byte {
        0x80 => Some(0x80),
        0xA1..=0xDF => Some(0xFF61 - 0xA1 + byte as u16),
        _ => None,
    }
}

/// Decoder steps 3.4 to 3.9: the code point for a leading and a trailing byte, if any.
#[inline(always)]
fn pair(lead: u8, byte: u8) -> Option<u16> {
    let offset = if byte < 0x7F { 0x40 } else { 0x41 };
    let lead_offset = if lead < 0xA0 { 0x81 } else { 0xC1 };
    if !matches!(byte, 0x40..=0x7E | 0x80..=0xFC) {
        return None;
    }
    let pointer = (lead as usize - lead_offset) * 188 + byte as usize - offset;
    // Step 3.7: EUDC, the Private Use Area.
    if (8836..=10715).contains(&pointer) {
        return Some((0xE000 - 8836 + pointer) as u16);
    }
    jis0208_code_point(pointer)
}

impl LeadByteHandler for ShiftJisDecoder {
    #[inline(always)]
    fn is_initial(&self) -> bool {
        self.lead == 0
    }

    #[inline(always)]
    fn sequence(src: &[u8]) -> Option<(u16, usize)> {
        let byte = src[0];
        if is_lead(byte) {
            return Some((pair(byte, *src.get(1)?)?, 2));
        }
        Some((single(byte)?, 1))
    }

    #[inline]
    fn handle<S: Sink>(&mut self, byte: u8, dst: &mut S) -> Result<(), Malformed> {
        let lead = self.lead;
        if lead != 0 {
            // Step 3.
            self.lead = 0;
            if let Some(code_point) = pair(lead, byte) {
                dst.push_bmp(code_point);
                return Ok(());
            }
            // Step 3.10: restore an ASCII byte; it is not part of the error.
            return Err(Malformed::after_lead(byte));
        }
        if byte < 0x80 {
            // Step 4.
            dst.push_ascii(byte);
        } else if let Some(code_point) = single(byte) {
            // Steps 4 (0x80) and 5 (half-width katakana).
            dst.push_bmp(code_point);
        } else if is_lead(byte) {
            // Step 6.
            self.lead = byte;
        } else {
            // Step 7.
            return Err(Malformed { len: 1, restore: false });
        }
        Ok(())
    }

    #[inline]
    fn end_of_queue(&mut self) -> u8 {
        // Step 1.
        self.lead = 0;
        1
    }
}

impl DecodeHandler for ShiftJisDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        decode_lead_byte(self, src, dst, last)
    }
}

/// The Shift_JIS encoder's handler for a scalar value, as `encode_stateless` takes it (as `u16`).
#[inline(always)]
fn shift_jis_bytes(c: char) -> Option<u16> {
    let mut code_point = c as u32;
    match code_point {
        // Step 2: ASCII and U+0080.
        0x00..=0x80 => return Some(code_point as u16),
        // Step 3.
        0xA5 => return Some(0x5C),
        // Step 4.
        0x203E => return Some(0x7E),
        // Step 5: half-width katakana.
        0xFF61..=0xFF9F => return Some((code_point - 0xFF61 + 0xA1) as u16),
        // Step 6.
        0x2212 => code_point = 0xFF0D,
        _ => {}
    }
    // Steps 7 to 13: the index Shift_JIS pointer (null: an error) and the lead and
    // trail bytes made from it, which `xtask` computes for each code point.
    SHIFT_JIS_BYTES.get(code_point)
}

/// The Shift_JIS encoder. It has no state.
#[derive(Debug, Clone)]
pub(crate) struct ShiftJisEncoder;

impl EncodeHandler for ShiftJisEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        super::encode_stateless(src, dst, |c| shift_jis_bytes(c).map(u32::from))
    }
}
