//! EUC-JP (`encoding.bs` § "EUC-JP"), and what the Japanese and Korean codecs
//! share: the index jis0208 lookups (EUC-JP, ISO-2022-JP, Shift_JIS), the run loop
//! of the ASCII-compatible lead-byte decoders and of the stateless two-byte
//! encoders (EUC-JP, Shift_JIS, EUC-KR).

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};
use crate::tables::{jis0208, jis0212};

// ---------------------------------------------------------------------------------
// index jis0208 and index jis0212.

/// The index code point for `pointer` in index jis0208, 0 for null: for the grids
/// worked out at compile time (Shift_JIS's and EUC-JP's).
pub(super) const fn jis0208_index(pointer: usize) -> u16 {
    if pointer < jis0208::JIS0208_LOW.len() {
        jis0208::JIS0208_LOW[pointer]
    } else if pointer >= jis0208::JIS0208_HIGH_FIRST
        && pointer - jis0208::JIS0208_HIGH_FIRST < jis0208::JIS0208_HIGH.len()
    {
        jis0208::JIS0208_HIGH[pointer - jis0208::JIS0208_HIGH_FIRST]
    } else {
        0
    }
}

/// The index code point for `pointer` in index jis0208, or `None` for null.
#[inline(always)]
pub(super) fn jis0208_code_point(pointer: usize) -> Option<u16> {
    let code_point = match jis0208::JIS0208_LOW.get(pointer) {
        Some(&code_point) => code_point,
        None => *jis0208::JIS0208_HIGH.get(pointer.wrapping_sub(jis0208::JIS0208_HIGH_FIRST))?,
    };
    (code_point != 0).then_some(code_point)
}

/// The index pointer (the first pointer) for `code_point` in index jis0208 (`None`
/// for null; it is always less than 8836), as `pointer / 94` and `pointer % 94`
/// (row and cell, the quotient and remainder that the EUC-JP and ISO-2022-JP
/// encoders write, plus 0xA1 or 0x21) in the high and low byte: the two-byte form
/// without the division. Against the division, rotating, `AMD EPYC` Zen 5, MB/s:
/// from &str ja.txt EUC-JP 817 → 1,080, ISO-2022-JP 967 → 1,277, ja.html 2,144 →
/// 2,566 and 1,072 → 1,433; from UTF-16 ja.txt 677 → 896 and 739 → 923.
#[inline(always)]
pub(super) fn jis0208_row_cell(code_point: u32) -> Option<u16> {
    JIS0208_ROW_CELL.get(code_point)
}

/// [`jis0208::JIS0208_POINTERS`] with each pointer as row and cell (see
/// [`jis0208_row_cell`]), worked out at compile time from it.
static JIS0208_ROW_CELL: crate::tables::BmpMap =
    crate::tables::BmpMap { pages: jis0208::JIS0208_POINTERS.pages, data: &JIS0208_ROW_CELL_DATA };

/// The pages of [`JIS0208_ROW_CELL`].
static JIS0208_ROW_CELL_DATA: [u16; jis0208::JIS0208_POINTERS.data.len()] =
    crate::tables::BmpMap::pointers_as_bytes(jis0208::JIS0208_POINTERS.data, 94, 0, 0);

/// The index code point for `pointer` in index jis0212, or `None` for null.
#[inline(always)]
fn jis0212_code_point(pointer: usize) -> Option<u16> {
    let code_point = *jis0212::JIS0212.get(pointer.wrapping_sub(jis0212::JIS0212_FIRST))?;
    (code_point != 0).then_some(code_point)
}

// ---------------------------------------------------------------------------------
// The run loop of the ASCII-compatible lead-byte decoders.

/// A malformed sequence that a decoder's handler returned error for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Malformed {
    /// The length of the malformed sequence, in bytes.
    pub(super) len: u8,
    /// Whether the handler restored the byte it was given (an ASCII byte after a
    /// leading byte), which is then not consumed.
    pub(super) restore: bool,
}

impl Malformed {
    /// The error for a leading byte and a `byte` that do not make a code point: an
    /// ASCII byte is restored, any other is part of the malformed sequence.
    #[inline(always)]
    pub(super) fn after_lead(byte: u8) -> Malformed {
        if byte < 0x80 { Malformed { len: 1, restore: true } } else { Malformed { len: 2, restore: false } }
    }
}

/// The standard's handler of an ASCII-compatible decoder whose other characters
/// start with a leading byte (EUC-JP, Shift_JIS, EUC-KR), run by [`decode_lead_byte`].
pub(crate) trait LeadByteHandler {
    /// Whether no sequence is pending: ASCII bytes are then code points as they are.
    fn is_initial(&self) -> bool;
    /// In the initial state, with `src[0]` not ASCII: the code point and the length
    /// of the sequence at the start of `src`, when `src` holds all of it and the
    /// handler returns that one code point for it. `None` for anything else, which
    /// then goes through [`LeadByteHandler::handle`] byte by byte.
    fn sequence(src: &[u8]) -> Option<(u16, usize)>;
    /// Whether the handler's runs go through [`super::Utf16Sink::decode_pair_run`] with
    /// [`LeadByteHandler::pair`] (else through [`Sink::decode_bmp_run`]).
    const PAIRS: bool = false;
    /// With [`LeadByteHandler::PAIRS`]: the code point of the two bytes `b0 b1` (`b0`
    /// not ASCII) when they are a leading and a trailing byte that the handler
    /// returns one code point for, else 0; for any two bytes, without a branch.
    #[inline(always)]
    fn pair(b0: u8, b1: u8) -> u16 {
        let _ = (b0, b1);
        0
    }
    /// Whether the handler's runs into UTF-8 go through [`super::Utf8Sink::decode_utf8_pair_run`]
    /// with [`LeadByteHandler::utf8_pair`].
    const UTF8_PAIRS: bool = false;
    /// With [`LeadByteHandler::UTF8_PAIRS`]: for a leading byte `b0` (not ASCII) and
    /// a trailing byte `b1` that the handler returns one code point for, that code
    /// point in UTF-8 (its bytes from the lowest, as a little-endian word) with its
    /// length in the top byte; 0 for the pairs it leaves to
    /// [`LeadByteHandler::sequence`] (for any two bytes, without a branch).
    #[inline(always)]
    fn utf8_pair(b0: u8, b1: u8) -> u32 {
        let _ = (b0, b1);
        0
    }
    /// The handler for one byte: writes a code point or returns continue (`Ok`), or
    /// returns error.
    fn handle<S: Sink>(&mut self, byte: u8, dst: &mut S) -> Result<(), Malformed>;
    /// The handler for end-of-queue in a state that is not initial: resets the state
    /// and returns the length of the pending (malformed) sequence.
    fn end_of_queue(&mut self) -> u8;
}

/// Runs a lead-byte handler over `src`: bulk copies of ASCII runs, whole sequences
/// decoded at once where `src` holds them, and byte-by-byte handling otherwise (and
/// across calls).
#[inline(always)]
pub(super) fn decode_lead_byte<H: LeadByteHandler, S: Sink>(
    handler: &mut H,
    src: &[u8],
    dst: &mut S,
    last: bool,
) -> (Status, usize) {
    let mut pos = 0;
    loop {
        if handler.is_initial() {
            // ASCII runs in bulk, then whole sequences (and lone ASCII bytes) in
            // batches with one room check each.
            pos += dst.copy_ascii_run(&src[pos..]);
            let n = dst.decode_lead_byte_run::<H>(&src[pos..]);
            pos += n;
            if n != 0 {
                continue;
            }
        }
        // One step of the byte-at-a-time handler: the batch stopped at the end of
        // `src`, for room, or at a byte it does not take.
        let Some(&byte) = src.get(pos) else {
            if last && !handler.is_initial() {
                // End-of-queue with a pending leading byte: one error.
                if dst.room() < S::STEP {
                    return (Status::OutputFull, pos);
                }
                let len = handler.end_of_queue();
                return (Status::Error { len, restored: 0 }, pos);
            }
            return (Status::InputEmpty, pos);
        };
        if dst.room() < S::STEP {
            return (Status::OutputFull, pos);
        }
        if handler.is_initial() && byte < 0x80 {
            // The start of an ASCII run that the bulk copy left.
            dst.push_ascii(byte);
            pos += 1;
            continue;
        }
        match handler.handle(byte, dst) {
            Ok(()) => pos += 1,
            Err(Malformed { len, restore }) => {
                // A restored byte is still in `src`: leave it unconsumed.
                return (Status::Error { len, restored: 0 }, pos + usize::from(!restore));
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// EUC-JP.

/// The EUC-JP decoder.
#[derive(Debug, Clone)]
pub(crate) struct EucJpDecoder {
    /// EUC-JP jis0212.
    jis0212: bool,
    /// EUC-JP leading (0x00 for none).
    lead: u8,
}

impl EucJpDecoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        usize::from(self.lead != 0) + usize::from(self.jis0212)
    }

    pub(crate) fn new() -> Self {
        EucJpDecoder { jis0212: false, lead: 0 }
    }
}

/// Steps 7 and 5.4 for a jis0208 pair: index jis0208 in rows of 128 by the leading
/// byte less 0x80, each by the trailing byte with its top bit flipped (0xA1 to
/// 0xFE at 0x21 to 0x7E, every other byte at 0x7F or below 0x21), 0 where the two
/// bytes are not a pair with a code point (computed at compile time from the
/// generated table): one lookup for every pair whose first byte is not ASCII, with no
/// bound check or range test. Rows of 128 rather than 256 code points (32 KB, as
/// Shift_JIS's grid): in rows of 256 the code points of each row lay in the same
/// three 64-byte lines of every 512 bytes, 24 of the 64 sets of a 48 KB first-level
/// cache for all the rows of Japanese text, which the call's own output passes
/// through. With the pair run's slices ([`super::Utf16Sink::decode_pair_run`]), rotating,
/// AVX-512 tier, `AMD EPYC` Zen 5, ja.txt → UTF-16, MB/s: 1,177 → 1,545 (encoding_rs
/// 1,047; Shift_JIS, the same text, 1,788), and 1,175 → 1,381 in a build with every
/// branch target aligned to 32 bytes (a layout check); either change alone gained
/// 1–16%. ja.html 3,076 → 3,360; → `String` unchanged (1,058 → 1,063).
static EUC_JP_GRID: [u16; 0x4000] = {
    let mut grid = [0; 0x4000];
    let mut lead = 0xA1;
    while lead <= 0xFE {
        let mut trail = 0xA1;
        while trail <= 0xFE {
            grid[(lead & 0x7F) << 7 | (trail ^ 0x80)] = jis0208_index((lead - 0xA1) * 94 + trail - 0xA1);
            trail += 1;
        }
        lead += 1;
    }
    grid
};

/// [`EUC_JP_GRID`] with each code point in its UTF-8 form and its length in the top
/// byte (as `euc_kr::EUC_KR_UTF8`), for [`LeadByteHandler::utf8_pair`]: → `String`,
/// rotating, AVX-512 tier, `AMD EPYC` Zen 5, MB/s, ja.txt 1,109 → 1,291, ja.html
/// 3,014 → 3,222.
static EUC_JP_UTF8: [u32; 0x4000] = super::utf8_forms(&EUC_JP_GRID);

/// The code point of the jis0208 pair `b0 b1` in [`EUC_JP_GRID`] (0 for none), for
/// any two bytes whose first is not ASCII, without a branch (an ASCII `b0` finds the
/// row of `b0 | 0x80`: [`super::Utf16Sink::decode_pair_run`] computes it and does not use it).
#[inline(always)]
fn euc_jp_pair(b0: u8, b1: u8) -> u16 {
    EUC_JP_GRID[rows_of_128(b0, b1)]
}

/// The place of the pair `b0 b1` (`b0` not ASCII) in a table in rows of 128 by the
/// leading byte less 0x80, each by the trailing byte with its top bit flipped and
/// clamped to 0x7F ([`EUC_JP_GRID`]'s layout, and `euc_kr::EUC_KR_UTF8`'s): every
/// trailing byte outside 0xA1 to 0xFE finds cell 0x7F or one below 0x21, which such
/// tables leave 0. Below 0x4000 for any two bytes.
#[inline(always)]
pub(super) fn rows_of_128(b0: u8, b1: u8) -> usize {
    (usize::from(b0 & 0x7F) << 7 | usize::from((b1 ^ 0x80).min(0x7F))) & 0x3FFF
}

/// The index code point (0 for null) of the jis0208 pair in its seven-bit form (as
/// ISO-2022-JP has it: `b0` and `b1` each 0x21 to 0x7E for a pointer, (`b0` − 0x21) ×
/// 94 + `b1` − 0x21), through [`EUC_JP_GRID`] (EUC-JP's form is this one with the top
/// bits set), for any two bytes below 0x80: those outside 0x21 to 0x7E find 0.
#[inline(always)]
pub(super) fn jis0208_seven_bit_pair(b0: u8, b1: u8) -> u16 {
    EUC_JP_GRID[(usize::from(b0) << 7 | usize::from(b1)) & 0x3FFF]
}

impl LeadByteHandler for EucJpDecoder {
    #[inline(always)]
    fn is_initial(&self) -> bool {
        self.lead == 0
    }

    const PAIRS: bool = true;

    #[inline(always)]
    fn pair(b0: u8, b1: u8) -> u16 {
        euc_jp_pair(b0, b1)
    }

    const UTF8_PAIRS: bool = true;

    #[inline(always)]
    fn utf8_pair(b0: u8, b1: u8) -> u32 {
        EUC_JP_UTF8[rows_of_128(b0, b1)]
    }

    #[inline(always)]
    fn sequence(src: &[u8]) -> Option<(u16, usize)> {
        let (&lead, &trail) = (src.first()?, src.get(1)?);
        // Steps 7 and 5.4: a jis0208 pair, through the grid whatever `lead` is (`lead`
        // is not ASCII; one that is not leading finds a row of zeros).
        let code_point = euc_jp_pair(lead, trail);
        if code_point != 0 {
            return Some((code_point, 2));
        }
        match lead {
            // A jis0208 pair whose pointer is null.
            0xA1..=0xFE => None,
            // Steps 7 and 3: half-width katakana.
            0x8E => match *src.get(1)? {
                trail @ 0xA1..=0xDF => Some((0xFF61 - 0xA1 + trail as u16, 2)),
                _ => None,
            },
            // Steps 7, 4 and 5.4: a jis0212 triple.
            0x8F => {
                let (lead, trail) = (*src.get(1)?, *src.get(2)?);
                if !(0xA1..=0xFE).contains(&lead) || !(0xA1..=0xFE).contains(&trail) {
                    return None;
                }
                let code_point = jis0212_code_point((lead as usize - 0xA1) * 94 + trail as usize - 0xA1)?;
                Some((code_point, 3))
            }
            _ => None,
        }
    }

    #[inline]
    fn handle<S: Sink>(&mut self, byte: u8, dst: &mut S) -> Result<(), Malformed> {
        let lead = self.lead;
        if lead == 0 {
            match byte {
                // Step 6: an ASCII byte is its code point.
                0x00..=0x7F => dst.push_ascii(byte),
                // Step 7: a leading byte.
                0x8E | 0x8F | 0xA1..=0xFE => self.lead = byte,
                // Step 8.
                _ => return Err(Malformed { len: 1, restore: false }),
            }
            return Ok(());
        }
        // Step 3: half-width katakana.
        if lead == 0x8E && (0xA1..=0xDF).contains(&byte) {
            self.lead = 0;
            dst.push_bmp(0xFF61 - 0xA1 + byte as u16);
            return Ok(());
        }
        // Step 4: 0x8F starts a jis0212 pair.
        if lead == 0x8F && (0xA1..=0xFE).contains(&byte) {
            self.jis0212 = true;
            self.lead = byte;
            return Ok(());
        }
        // Step 5.
        self.lead = 0;
        let jis0212 = core::mem::replace(&mut self.jis0212, false);
        let code_point = if (0xA1..=0xFE).contains(&lead) && (0xA1..=0xFE).contains(&byte) {
            let pointer = (lead as usize - 0xA1) * 94 + byte as usize - 0xA1;
            if jis0212 { jis0212_code_point(pointer) } else { jis0208_code_point(pointer) }
        } else {
            None
        };
        if let Some(code_point) = code_point {
            dst.push_bmp(code_point);
            return Ok(());
        }
        // The pending bytes: the leading byte, after 0x8F when jis0212.
        let pending = 1 + jis0212 as u8;
        if byte < 0x80 {
            // Step 5.7: restore an ASCII byte; it is not part of the error.
            Err(Malformed { len: pending, restore: true })
        } else {
            Err(Malformed { len: pending + 1, restore: false })
        }
    }

    #[inline]
    fn end_of_queue(&mut self) -> u8 {
        // Step 1: the pending leading byte (after 0x8F when jis0212) is one error.
        let len = 1 + self.jis0212 as u8;
        *self = EucJpDecoder::new();
        len
    }
}

impl DecodeHandler for EucJpDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        decode_lead_byte(self, src, dst, last)
    }
}

/// The EUC-JP encoder. It has no state.
#[derive(Debug, Clone)]
pub(crate) struct EucJpEncoder;

/// The EUC-JP encoder's handler for a scalar value, as [`super::encode_stateless`] takes it (as `u16`).
#[inline(always)]
fn euc_jp_bytes(c: char) -> Option<u16> {
    let mut code_point = c as u32;
    match code_point {
        // Step 2: ASCII.
        0x00..=0x7F => return Some(code_point as u16),
        // Step 3.
        0xA5 => return Some(0x5C),
        // Step 4.
        0x203E => return Some(0x7E),
        // Step 5: half-width katakana.
        0xFF61..=0xFF9F => return Some(0x8E00 | (code_point - 0xFF61 + 0xA1) as u16),
        // Step 6.
        0x2212 => code_point = 0xFF0D,
        _ => {}
    }
    // Steps 7 to 11: the index pointer in jis0208 (never jis0212).
    Some(jis0208_row_cell(code_point)? + 0xA1A1)
}

impl EncodeHandler for EucJpEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        super::encode_stateless(src, dst, |c| euc_jp_bytes(c).map(u32::from))
    }
}
