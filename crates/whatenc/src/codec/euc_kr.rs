//! EUC-KR (`encoding.bs` § "EUC-KR").

use super::euc_jp::{LeadByteHandler, Malformed, decode_lead_byte, rows_of_128};
use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};
use crate::tables::euc_kr::{EUC_KR_HIGH, EUC_KR_LOW, EUC_KR_POINTERS, EUC_KR_SPLIT_LEAD};

/// The EUC-KR decoder.
#[derive(Debug, Clone)]
pub(crate) struct EucKrDecoder {
    /// EUC-KR leading (0x00 for none).
    lead: u8,
}

impl EucKrDecoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        usize::from(self.lead != 0)
    }

    pub(crate) fn new() -> Self {
        EucKrDecoder { lead: 0 }
    }
}

/// The first pair of the grid: leading byte 0x80, trailing byte 0x00 (the grid
/// covers every pair whose first byte is not ASCII, so that [`pair`] needs no bound
/// check: a power of two, indexed by the pair masked).
const GRID_FIRST: usize = 0x8000;

/// Index EUC-KR laid out by the two bytes as a big-endian number, minus
/// `GRID_FIRST` (computed at compile time from the generated tables): one lookup
/// with no arithmetic on the bytes beyond joining them. The pairs that have no code
/// point (a leading byte outside 0x81 to 0xFE, a trailing byte outside 0x41 to 0xFE)
/// are 0.
static EUC_KR_GRID: [u16; 0x8000] = {
    let mut grid = [0; 0x8000];
    let mut lead = 0x81;
    while lead <= 0xFE {
        let mut byte = 0x41;
        while byte <= 0xFE {
            let code_point = if lead < EUC_KR_SPLIT_LEAD as usize {
                EUC_KR_LOW[(lead - 0x81) * 190 + byte - 0x41]
            } else if byte >= 0xA1 {
                let index = (lead - EUC_KR_SPLIT_LEAD as usize) * 94 + byte - 0xA1;
                if index < EUC_KR_HIGH.len() { EUC_KR_HIGH[index] } else { 0 }
            } else {
                0
            };
            grid[(lead << 8 | byte) - GRID_FIRST] = code_point;
            byte += 1;
        }
        lead += 1;
    }
    grid
};

/// The pairs of [`EUC_KR_GRID`] whose bytes are both 0xA1 to 0xFE (KS X 1001,
/// where Korean text's Hangul and Hanja are), as the code point's UTF-8 form with
/// its length in the top byte (0 for none), in rows of 128 as EUC-JP's grid
/// (`euc_jp::EUC_JP_GRID`): the leading byte less 0x80, the trailing byte with its
/// top bit flipped. Into UTF-8 a pair then takes a load and a four-byte store, not
/// the branches on the code point's range and the bytes worked out from it: ko.txt
/// → `String`, rotating, AVX-512 tier, `AMD EPYC` Zen 5, MB/s: 1,026 → 1,093
/// (encoding_rs 849–865), and 867 → 1,063 in a build with every branch target
/// aligned to 32 bytes (a layout check: the loop had been 0.97–1.25 × encoding_rs
/// from one build to another); ko.html 3,310 → 3,414 and 3,018 → 3,315.
static EUC_KR_UTF8: [u32; 0x4000] = super::utf8_forms(&{
    let mut grid = [0u16; 0x4000];
    let mut lead = 0xA1;
    while lead <= 0xFE {
        let mut byte = 0xA1;
        while byte <= 0xFE {
            grid[(lead & 0x7F) << 7 | (byte ^ 0x80)] = EUC_KR_GRID[(lead << 8 | byte) - GRID_FIRST];
            byte += 1;
        }
        lead += 1;
    }
    grid
});

/// The entry of [`EUC_KR_UTF8`] for `b0 b1` (`b0` not ASCII), without a branch: 0
/// where either byte is outside 0xA1 to 0xFE or the pair has no code point.
#[inline(always)]
fn utf8_pair(b0: u8, b1: u8) -> u32 {
    EUC_KR_UTF8[rows_of_128(b0, b1)]
}

/// Decoder steps 3.4 to 3.6: the index code point for pointer
/// (lead − 0x81) × 190 + (byte − 0x41) in index EUC-KR, if any.
#[inline(always)]
fn pair(lead: u8, byte: u8) -> Option<u16> {
    // Masked to the grid's length: no bound check (an ASCII `lead` would wrap to
    // another pair's entry; it never comes here).
    let code_point = EUC_KR_GRID[usize::from(u16::from_be_bytes([lead, byte])).wrapping_sub(GRID_FIRST) & 0x7FFF];
    (code_point != 0).then_some(code_point)
}

impl LeadByteHandler for EucKrDecoder {
    #[inline(always)]
    fn is_initial(&self) -> bool {
        self.lead == 0
    }

    // No `PAIRS`: the runs without a branch on ASCII or a pair (`Utf16Sink::decode_pair_run`)
    // took ko.txt → UTF-16 longer (1,426 → 1,331 MB/s, ko.html 4,044 → 3,964, in builds
    // that differ only in this).

    const UTF8_PAIRS: bool = true;

    #[inline(always)]
    fn utf8_pair(b0: u8, b1: u8) -> u32 {
        utf8_pair(b0, b1)
    }

    #[inline(always)]
    fn sequence(src: &[u8]) -> Option<(u16, usize)> {
        match *src {
            [lead, byte, ..] => Some((pair(lead, byte)?, 2)),
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
    // Steps 3 to 7: the index pointer (the first pointer) in index EUC-KR, as its
    // leading and trailing bytes.
    EUC_KR_BYTES.get(code_point)
}

/// [`EUC_KR_POINTERS`] with each pointer as the two bytes the encoder writes for it
/// (`pointer / 190 + 0x81`, `pointer % 190 + 0x41`), worked out at compile time: no
/// division per character. Against the division, rotating, `AMD EPYC` Zen 5, MB/s:
/// from &str ko.txt 859 → 1,009, ko.html 2,643 → 2,962; from UTF-16 ko.txt 820 →
/// 1,036, ko.html 4,608 → 5,283.
static EUC_KR_BYTES: crate::tables::BmpMap =
    crate::tables::BmpMap { pages: EUC_KR_POINTERS.pages, data: &EUC_KR_BYTES_DATA };

/// The pages of [`EUC_KR_BYTES`].
static EUC_KR_BYTES_DATA: [u16; EUC_KR_POINTERS.data.len()] =
    crate::tables::BmpMap::pointers_as_bytes(EUC_KR_POINTERS.data, 190, 0x81, 0x41);

/// The EUC-KR encoder. It has no state.
#[derive(Debug, Clone)]
pub(crate) struct EucKrEncoder;

impl EncodeHandler for EucKrEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        super::encode_stateless(src, dst, |c| euc_kr_bytes(c).map(u32::from))
    }
}
