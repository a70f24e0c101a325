//! Shift_JIS (`encoding.bs` § "Shift_JIS").

use super::euc_jp::{LeadByteHandler, Malformed, decode_lead_byte, jis0208_index};
use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};
use crate::tables::jis0208::SHIFT_JIS_BYTES;

/// The Shift_JIS decoder.
#[derive(Debug, Clone)]
pub(crate) struct ShiftJisDecoder {
    /// Shift_JIS leading (0x00 for none).
    lead: u8,
}

impl ShiftJisDecoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        usize::from(self.lead != 0)
    }

    pub(crate) fn new() -> Self {
        ShiftJisDecoder { lead: 0 }
    }
}

/// Whether `byte` is a Shift_JIS leading byte (decoder step 6).
#[inline(always)]
const fn is_lead(byte: u8) -> bool {
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

/// The row of a leading byte in [`SHIFT_JIS_GRID`]: 0x81–0x9F are rows 0–30,
/// 0xE0–0xFC rows 31–59 (decoder step 3.5's leading offset, less 0x81).
#[inline(always)]
const fn row(lead: u8) -> usize {
    lead as usize - if lead < 0xA0 { 0x81 } else { 0xC1 }
}

/// Decoder steps 3.4 to 3.9 for every leading and trailing byte, laid out by the
/// leading byte's row and the trailing byte (computed at compile time from the
/// generated jis0208 tables): one lookup where the steps take two offsets, a range
/// check, the EUDC range and a table split. Pairs with no code point are 0.
static SHIFT_JIS_GRID: [u16; GRID_ROWS * 256] = {
    let mut grid = [0; GRID_ROWS * 256];
    let mut lead = 0x81u8;
    while lead <= 0xFC {
        let mut byte = 0x40u8;
        while byte <= 0xFC {
            // Step 3.4: the offset; step 3.5: the leading offset; step 3.6: the
            // pointer, when the byte is in range.
            let offset = if byte < 0x7F { 0x40 } else { 0x41 };
            if byte != 0x7F {
                let pointer = (row(lead)) * 188 + byte as usize - offset;
                grid[row(lead) << 8 | byte as usize] = if pointer >= 8836 && pointer <= 10715 {
                    // Step 3.7: EUDC, the Private Use Area.
                    (0xE000 - 8836 + pointer) as u16
                } else {
                    jis0208_index(pointer)
                };
            }
            byte += 1;
        }
        lead = if lead == 0x9F { 0xE0 } else { lead + 1 };
    }
    grid
};

/// [`SHIFT_JIS_GRID`] with each code point in its UTF-8 form and its length in the
/// top byte (as `euc_kr::EUC_KR_UTF8`), for [`LeadByteHandler::utf8_pair`]: →
/// `String`, rotating, AVX-512 tier, `AMD EPYC` Zen 5, MB/s, ja.txt 1,168 → 1,555,
/// ja.html 3,105 → 3,589.
static SHIFT_JIS_UTF8: [u32; GRID_ROWS * 256] = super::utf8_forms(&SHIFT_JIS_GRID);

/// The rows of [`SHIFT_JIS_GRID`]: the 60 of the leading bytes, then rows of zeros
/// up to a power of two, so that an index masked to the grid's length is in it, and
/// one of them is where [`LEAD_ROWS`] sends the bytes that are not leading.
const GRID_ROWS: usize = 64;

/// For each byte, the start of its row in [`SHIFT_JIS_GRID`] (`row(byte) << 8`) when
/// it is a leading byte, else the start of a row of zeros (row 60).
static LEAD_ROWS: [u16; 256] = {
    let mut rows = [(60 << 8) as u16; 256];
    let mut byte = 0;
    while byte < 256 {
        if is_lead(byte as u8) {
            rows[byte] = (row(byte as u8) << 8) as u16;
        }
        byte += 1;
    }
    rows
};

/// Decoder steps 3.4 to 3.9: the code point for a leading byte (one that
/// [`is_lead`]) and a trailing byte, if any; for any other `lead`, `None` too (its
/// row in [`LEAD_ROWS`] is one of zeros). One lookup for the row, one in the grid,
/// no bounds check (the index is masked to the grid's length): Shift_JIS → `String`,
/// AVX-512 tier, rotating, `AMD EPYC` Zen 5, MB/s, against the leading byte's test
/// and row worked out from its ranges: ja.txt 819 → 1,101 (encoding_rs 746), ja.html
/// 2,510 → 2,938; → UTF-16 ja.txt 1,063 → 1,469.
#[inline(always)]
fn pair(lead: u8, byte: u8) -> Option<u16> {
    let code_point = SHIFT_JIS_GRID[(LEAD_ROWS[lead as usize] as usize | byte as usize) & (GRID_ROWS * 256 - 1)];
    (code_point != 0).then_some(code_point)
}

impl LeadByteHandler for ShiftJisDecoder {
    #[inline(always)]
    fn is_initial(&self) -> bool {
        self.lead == 0
    }

    const PAIRS: bool = true;

    #[inline(always)]
    fn pair(b0: u8, b1: u8) -> u16 {
        pair(b0, b1).unwrap_or(0)
    }

    const UTF8_PAIRS: bool = true;

    #[inline(always)]
    fn utf8_pair(b0: u8, b1: u8) -> u32 {
        SHIFT_JIS_UTF8[(LEAD_ROWS[b0 as usize] as usize | b1 as usize) & (GRID_ROWS * 256 - 1)]
    }

    #[inline(always)]
    fn sequence(src: &[u8]) -> Option<(u16, usize)> {
        let byte = src[0];
        // A pair first (most of Japanese text), through the grid whatever `byte` is:
        // a byte that is not leading finds a row of zeros.
        if let Some(&trail) = src.get(1)
            && let Some(code_point) = pair(byte, trail)
        {
            return Some((code_point, 2));
        }
        if is_lead(byte) {
            return None;
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
