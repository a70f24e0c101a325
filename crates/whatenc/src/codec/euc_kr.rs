//! EUC-KR (`encoding.bs` § "EUC-KR").

use super::euc_jp::{LeadByteHandler, Malformed, decode_lead_byte};
use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};
use crate::tables::euc_kr::{EUC_KR_HIGH, EUC_KR_LOW, EUC_KR_POINTERS, EUC_KR_SPLIT_LEAD};

/// The EUC-KR decoder.
#[derive(Debug, Clone)]
pub(crate) struct EucKrDecoder {
    /// EUC-KR leading (0x00 for none).
    lead: u8,
}

impl EucKrDecoder {
    pub(crate) fn new() -> Self {
        EucKrDecoder { lead: 0 }
    }
}

/// Index EUC-KR's two tables end to end (computed at compile time), so that a
/// pointer into either is one lookup without a branch between them.
static EUC_KR_ROWS: [u16; EUC_KR_LOW.len() + EUC_KR_HIGH.len()] = {
    let mut table = [0; EUC_KR_LOW.len() + EUC_KR_HIGH.len()];
    let mut i = 0;
    while i < EUC_KR_LOW.len() {
        table[i] = EUC_KR_LOW[i];
        i += 1;
    }
    while i < table.len() {
        table[i] = EUC_KR_HIGH[i - EUC_KR_LOW.len()];
        i += 1;
    }
    table
};

/// Decoder steps 3.4 to 3.6: the index code point for pointer
/// (lead − 0x81) × 190 + (byte − 0x41) in index EUC-KR, if any. The rows from
/// `EUC_KR_SPLIT_LEAD` on have no code points for trailing bytes below 0xA1, so
/// their table leaves those out.
#[inline(always)]
fn pair(lead: u8, byte: u8) -> Option<u16> {
    if !(0x41..=0xFE).contains(&byte) {
        return None;
    }
    // The tables end with the index's last row (so 0xFE has none).
    let low = (lead as usize).wrapping_sub(0x81).wrapping_mul(190).wrapping_add(byte as usize - 0x41);
    let high = (lead as usize)
        .wrapping_sub(EUC_KR_SPLIT_LEAD as usize)
        .wrapping_mul(94)
        .wrapping_add((byte as usize).wrapping_sub(0xA1))
        .wrapping_add(EUC_KR_LOW.len());
    // Selects, not branches: which row a character is in is not predictable.
    let index = if lead < EUC_KR_SPLIT_LEAD {
        low
    } else if byte >= 0xA1 {
        high
    } else {
        usize::MAX
    };
    let code_point = *EUC_KR_ROWS.get(index)?;
    (code_point != 0).then_some(code_point)
}

impl LeadByteHandler for EucKrDecoder {
    #[inline(always)]
    fn is_initial(&self) -> bool {
        self.lead == 0
    }

    #[inline(always)]
    fn sequence(src: &[u8]) -> Option<(u16, usize)> {
        match src[0] {
            lead @ 0x81..=0xFE => Some((pair(lead, *src.get(1)?)?, 2)),
            _ => None,
        }
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
            // Step 3.7: restore an ASCII byte; it is not part of the error.
            return Err(Malformed::after_lead(byte));
        }
        match byte {
            // Step 4.
            0x00..=0x7F => dst.push_ascii(byte),
            // Step 5.
            0x81..=0xFE => self.lead = byte,
            // Step 6.
            _ => return Err(Malformed { len: 1, restore: false }),
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

impl DecodeHandler for EucKrDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        decode_lead_byte(self, src, dst, last)
    }
}

/// The EUC-KR encoder's handler for a scalar value, as `encode_stateless` takes it (as `u16`).
#[inline(always)]
fn euc_kr_bytes(c: char) -> Option<u16> {
    let code_point = c as u32;
    // Step 2: ASCII.
    if code_point < 0x80 {
        return Some(code_point as u16);
    }
    // Steps 3 to 7: the index pointer (the first pointer) in index EUC-KR.
    let pointer = EUC_KR_POINTERS.get(code_point)?;
    let lead = pointer / 190 + 0x81;
    let trail = pointer % 190 + 0x41;
    Some(lead << 8 | trail)
}

/// The EUC-KR encoder. It has no state.
#[derive(Debug, Clone)]
pub(crate) struct EucKrEncoder;

impl EncodeHandler for EucKrEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        super::encode_stateless(src, dst, |c| euc_kr_bytes(c).map(u32::from))
    }
}
