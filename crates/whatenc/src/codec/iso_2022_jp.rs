//! ISO-2022-JP (`encoding.bs` § "ISO-2022-JP").

use super::euc_jp::{jis0208_code_point, jis0208_row_cell, jis0208_seven_bit_pair};
use super::{
    ByteSink, DecodeHandler, ENCODE_STEP, EncodeHandler, EncodeStatus, Input, Replaced, Sink, Source, Status,
    decode_utf8_at,
};
use crate::tables::jis0208::ISO_2022_JP_KATAKANA;

/// The ISO-2022-JP decoder states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ascii,
    Roman,
    Katakana,
    LeadByte,
    TrailByte,
    EscapeStart,
    Escape,
}

/// What the handler restores along with returning error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restore {
    /// Nothing: the byte is part of the malformed sequence.
    Nothing,
    /// The byte it was given, which is then not consumed.
    Byte,
    /// ISO-2022-JP leading, kept in `pending`, and the byte it was given (if not
    /// end-of-queue), which is then not consumed.
    LeadAndByte,
}

/// An error of the ISO-2022-JP decoder's handler: the malformed sequence's length
/// and what is restored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Malformed {
    len: u8,
    restore: Restore,
}

/// The ISO-2022-JP decoder.
///
/// One detail differs from the standard's text without changing what it does: on
/// 0x1B in the trailing byte state, the standard switches to escape start and returns
/// error; this returns error with the state leading byte and the 0x1B restored, which
/// then switches to escape start the same way (the output flag and the output state
/// are untouched either way), so that the malformed sequence is just the leading byte.
#[derive(Debug, Clone)]
pub(crate) struct Iso2022JpDecoder {
    /// ISO-2022-JP decoder state.
    state: State,
    /// ISO-2022-JP decoder output state.
    output_state: State,
    /// ISO-2022-JP leading.
    lead: u8,
    /// ISO-2022-JP output.
    output: bool,
    /// A byte restored to the queue after a bad escape sequence (its second byte,
    /// consumed earlier), to be handled before more input.
    pending: Option<u8>,
}

impl Iso2022JpDecoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        let state = match self.state {
            State::TrailByte | State::EscapeStart => 1,
            State::Escape => 2,
            _ => 0,
        };
        state + usize::from(self.pending.is_some())
    }

    pub(crate) fn new() -> Self {
        Iso2022JpDecoder { state: State::Ascii, output_state: State::Ascii, lead: 0, output: false, pending: None }
    }

    /// The standard's handler for a byte (`None`: end-of-queue). `Ok` is a code point
    /// written, continue, or finished.
    #[inline]
    fn handle<S: Sink>(&mut self, byte: Option<u8>, dst: &mut S) -> Result<(), Malformed> {
        const ONE: Malformed = Malformed { len: 1, restore: Restore::Nothing };
        match self.state {
            State::Ascii => match byte {
                Some(0x1B) => self.state = State::EscapeStart,
                Some(b @ 0x00..=0x7F) if b != 0x0E && b != 0x0F => {
                    self.output = false;
                    dst.push_ascii(b);
                }
                None => {}
                Some(_) => {
                    self.output = false;
                    return Err(ONE);
                }
            },
            State::Roman => match byte {
                Some(0x1B) => self.state = State::EscapeStart,
                Some(0x5C) => {
                    self.output = false;
                    dst.push_bmp(0xA5);
                }
                Some(0x7E) => {
                    self.output = false;
                    dst.push_bmp(0x203E);
                }
                Some(b @ 0x00..=0x7F) if b != 0x0E && b != 0x0F => {
                    self.output = false;
                    dst.push_ascii(b);
                }
                None => {}
                Some(_) => {
                    self.output = false;
                    return Err(ONE);
                }
            },
            State::Katakana => match byte {
                Some(0x1B) => self.state = State::EscapeStart,
                Some(b @ 0x21..=0x5F) => {
                    self.output = false;
                    dst.push_bmp(0xFF61 - 0x21 + b as u16);
                }
                None => {}
                Some(_) => {
                    self.output = false;
                    return Err(ONE);
                }
            },
            State::LeadByte => match byte {
                Some(0x1B) => self.state = State::EscapeStart,
                Some(b @ 0x21..=0x7E) => {
                    self.output = false;
                    self.lead = b;
                    self.state = State::TrailByte;
                }
                None => {}
                Some(_) => {
                    self.output = false;
                    return Err(ONE);
                }
            },
            State::TrailByte => {
                self.state = State::LeadByte;
                match byte {
                    // See the type's docs: the same as switching to escape start here.
                    Some(0x1B) => return Err(Malformed { len: 1, restore: Restore::Byte }),
                    Some(b @ 0x21..=0x7E) => {
                        let pointer = (self.lead as usize - 0x21) * 94 + b as usize - 0x21;
                        match jis0208_code_point(pointer) {
                            Some(code_point) => dst.push_bmp(code_point),
                            None => return Err(Malformed { len: 2, restore: Restore::Nothing }),
                        }
                    }
                    None => return Err(ONE),
                    Some(_) => return Err(Malformed { len: 2, restore: Restore::Nothing }),
                }
            }
            State::EscapeStart => {
                if let Some(b @ (0x24 | 0x28)) = byte {
                    self.lead = b;
                    self.state = State::Escape;
                    return Ok(());
                }
                // The byte (if any) is restored.
                self.output = false;
                self.state = self.output_state;
                let restore = if byte.is_some() { Restore::Byte } else { Restore::Nothing };
                return Err(Malformed { len: 1, restore });
            }
            State::Escape => {
                let lead = core::mem::replace(&mut self.lead, 0);
                let state = match (lead, byte) {
                    (0x28, Some(0x42)) => Some(State::Ascii),
                    (0x28, Some(0x4A)) => Some(State::Roman),
                    (0x28, Some(0x49)) => Some(State::Katakana),
                    (0x24, Some(0x40 | 0x42)) => Some(State::LeadByte),
                    _ => None,
                };
                if let Some(state) = state {
                    self.state = state;
                    self.output_state = state;
                    // An escape sequence right after another one is an error.
                    if core::mem::replace(&mut self.output, true) {
                        return Err(Malformed { len: 3, restore: Restore::Nothing });
                    }
                    return Ok(());
                }
                self.pending = Some(lead);
                self.output = false;
                self.state = self.output_state;
                return Err(Malformed { len: 1, restore: Restore::LeadAndByte });
            }
        }
        Ok(())
    }
}

impl Iso2022JpDecoder {
    /// For whatenc-encoding-rs's bounds: "iso-2022-jp lead" (which the trail byte
    /// state leaves as it was, and an escape sequence resets) and "iso-2022-jp
    /// output".
    pub(crate) fn lead_and_output(&self) -> (u8, bool) {
        (self.lead, self.output)
    }
}

impl DecodeHandler for Iso2022JpDecoder {
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        self.run::<S, false>(src, dst, last, &mut None)
    }

    fn decode_replacing<S: Sink>(
        &mut self,
        src: &[u8],
        dst: &mut S,
        last: bool,
        first: &mut Option<Replaced>,
    ) -> (Status, usize) {
        // An error that restores a byte (held in `pending`) ends the run; the next
        // one starts with it.
        super::replace_each_error(self, src, dst, last, first, |decoder, src, dst, last, first| {
            decoder.run::<S, true>(src, dst, last, first)
        })
    }
}

impl Iso2022JpDecoder {
    /// The body of `decode` and (`REPLACE`) of `decode_replacing`, which writes the
    /// U+FFFD of an error that restores nothing in place (bytes taken for
    /// ISO-2022-JP: each byte above 0x7F is one) and goes on.
    #[inline(always)]
    fn run<S: Sink, const REPLACE: bool>(
        &mut self,
        src: &[u8],
        dst: &mut S,
        last: bool,
        first: &mut Option<Replaced>,
    ) -> (Status, usize) {
        if let Some(byte) = self.pending {
            if dst.room() < S::STEP {
                return (Status::OutputFull, 0);
            }
            self.pending = None;
            // The restored byte is 0x24 or 0x28, handled in an output state (ASCII,
            // Roman, katakana or leading byte), where it is never an error.
            if let Err(Malformed { len, .. }) = self.handle(Some(byte), dst) {
                return (Status::Error { len, restored: 0 }, 0);
            }
        }
        let mut pos = 0;
        loop {
            // Fast paths: runs of ASCII in the ASCII state, and pairs in the leading
            // byte state.
            match self.state {
                State::Ascii => {
                    let rest = &src[pos..];
                    let limit = rest.len().min(dst.room());
                    let run = ascii_state_run(&rest[..limit]);
                    // Not called for no run (as at each of the errors of bytes taken
                    // for ISO-2022-JP): the bulk copy's set-up, for nothing, cost them
                    // a sixth of their time.
                    if run != 0 {
                        let copied = dst.copy_ascii(&rest[..run]);
                        if copied != 0 {
                            self.output = false;
                            pos += copied;
                        }
                    }
                }
                State::LeadByte => {
                    // Pairs through EUC-JP's grid, in a batch with one room check,
                    // the state's fields set once at its end (ja.txt +10%, against
                    // the pointer's product, its two range tests and a room check a
                    // pair).
                    let mut lead = None;
                    for _ in 0..dst.bmp_steps() {
                        let Some(&[b0, b1]) = src.get(pos..pos + 2).and_then(|two| two.first_chunk::<2>()) else {
                            break;
                        };
                        let code_point = jis0208_seven_bit_pair(b0, b1);
                        if (b0 | b1) >= 0x80 || code_point == 0 {
                            break;
                        }
                        lead = Some(b0);
                        dst.push_bmp(code_point);
                        pos += 2;
                    }
                    if let Some(lead) = lead {
                        self.output = false;
                        // As the steps leave it: the trail byte does not reset it.
                        self.lead = lead;
                    }
                }
                _ => {}
            }
            // A whole escape sequence that switches to an output state, where the
            // one before it was followed by output: what the three steps of the
            // handler would do, at once (ja.txt → UTF-16 +45%, → `String` +32%: its
            // text switches between ASCII and jis0208 a few times a line; see
            // `ascii_state_run`).
            if let [0x1B, second, third, ..] = src[pos..]
                && !self.output
                && matches!(self.state, State::Ascii | State::Roman | State::Katakana | State::LeadByte)
            {
                let state = match (second, third) {
                    (0x28, 0x42) => Some(State::Ascii),
                    (0x28, 0x4A) => Some(State::Roman),
                    (0x28, 0x49) => Some(State::Katakana),
                    (0x24, 0x40 | 0x42) => Some(State::LeadByte),
                    _ => None,
                };
                if let Some(state) = state {
                    self.state = state;
                    self.output_state = state;
                    self.lead = 0;
                    self.output = true;
                    pos += 3;
                    continue;
                }
            }
            let byte = src.get(pos).copied();
            if byte.is_none() && !last {
                return (Status::InputEmpty, pos);
            }
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            match self.handle(byte, dst) {
                Ok(()) if byte.is_some() => pos += 1,
                Ok(()) => {
                    // Finished: back to the initial state.
                    *self = Iso2022JpDecoder::new();
                    return (Status::InputEmpty, pos);
                }
                Err(Malformed { len, restore }) => {
                    let consumed = usize::from(byte.is_some() && restore == Restore::Nothing);
                    if REPLACE && consumed == 1 {
                        // The room was checked for this step.
                        pos += 1;
                        first.get_or_insert(Replaced { end: pos, len, restored: 0 });
                        dst.push_char('\u{FFFD}');
                        continue;
                    }
                    let restored = u8::from(restore == Restore::LeadAndByte);
                    return (Status::Error { len, restored }, pos + consumed);
                }
            }
        }
    }
}

/// The length of the run at the start of `bytes` that the ASCII state writes as it
/// is: up to the first byte that is not ASCII or is 0x0E, 0x0F or 0x1B. Eight bytes
/// at a step, as words: each flags those bytes in its sign bits, the first flag is
/// exact. Against a byte at a time, with the two changes of session 41 in `run`
/// (the escape sequences at once, the pairs in batches), rotating, AVX-512 tier,
/// `AMD EPYC` Zen 5, MB/s, before → after all three: ja.html → `String` 1,199 →
/// 2,263, → UTF-16 1,356 → 2,630 (this scan the most of it: the page is markup);
/// ja.txt → `String` 756 → 1,035, → UTF-16 1,062 → 1,392; the same within 8% in a
/// build with every branch target aligned to 32 bytes (a layout check).
fn ascii_state_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const SIGNS: u64 = 0x8080_8080_8080_8080;
    /// The sign bit of each zero byte of `word`, exact up to the first (bytes after it
    /// may be flagged by the borrow).
    #[inline(always)]
    fn zeros(word: u64) -> u64 {
        word.wrapping_sub(ONES) & !word & SIGNS
    }
    let mut pos = 0;
    while let Some(chunk) = bytes.get(pos..pos + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // 0x0E and 0x0F as one: with the low bit set, both are 0x0F.
        let flags = (word & SIGNS) | zeros(word ^ (0x1B * ONES)) | zeros((word | ONES) ^ (0x0F * ONES));
        if flags != 0 {
            return pos + (flags.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    pos + bytes[pos..].iter().position(|&b| b >= 0x80 || matches!(b, 0x0E | 0x0F | 0x1B)).unwrap_or(bytes.len() - pos)
}

/// The ISO-2022-JP encoder states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EncoderState {
    Ascii,
    Roman,
    Jis0208,
}

/// The ISO-2022-JP encoder.
#[derive(Debug, Clone)]
pub(crate) struct Iso2022JpEncoder {
    /// ISO-2022-JP encoder state.
    state: EncoderState,
}

impl Iso2022JpEncoder {
    pub(crate) fn new() -> Self {
        Iso2022JpEncoder { state: EncoderState::Ascii }
    }

    /// Takes the state an escape sequence (`ESC ( B`, `ESC ( J` or `ESC $ B`)
    /// switches to, as if the encoder had written it; false for other bytes.
    pub(crate) fn switch_to(&mut self, escape: &[u8]) -> bool {
        self.state = match escape {
            b"\x1B(B" => EncoderState::Ascii,
            b"\x1B(J" => EncoderState::Roman,
            b"\x1B$B" => EncoderState::Jis0208,
            _ => return false,
        };
        true
    }

    /// The standard's handler for a scalar value, with each "restore codePoint and
    /// return three bytes" followed at once by handling the restored code point, so
    /// that one step is one scalar value (at most 5 bytes, or 3 and an error).
    /// `Err` is error with that code point.
    #[inline]
    fn step(&mut self, c: char, dst: &mut ByteSink<'_>) -> Result<(), char> {
        let mut code_point = c as u32;
        loop {
            let ascii = code_point < 0x80;
            // Step 3.
            if self.state != EncoderState::Jis0208 && matches!(code_point, 0x0E | 0x0F | 0x1B) {
                return Err('\u{FFFD}');
            }
            // Step 4.
            if self.state == EncoderState::Ascii && ascii {
                dst.push(code_point as u8);
                return Ok(());
            }
            // Step 5.
            if self.state == EncoderState::Roman {
                match code_point {
                    0x5C | 0x7E => {}
                    0x00..=0x7F => {
                        dst.push(code_point as u8);
                        return Ok(());
                    }
                    0xA5 => {
                        dst.push(0x5C);
                        return Ok(());
                    }
                    0x203E => {
                        dst.push(0x7E);
                        return Ok(());
                    }
                    _ => {}
                }
            }
            // Step 6.
            if ascii {
                self.state = EncoderState::Ascii;
                dst.extend(b"\x1B(B");
                continue;
            }
            // Step 7.
            if matches!(code_point, 0xA5 | 0x203E) && self.state != EncoderState::Roman {
                self.state = EncoderState::Roman;
                dst.extend(b"\x1B(J");
                continue;
            }
            // Step 8.
            if code_point == 0x2212 {
                code_point = 0xFF0D;
            }
            // Step 9: half-width katakana become full-width.
            if let 0xFF61..=0xFF9F = code_point {
                code_point = ISO_2022_JP_KATAKANA[(code_point - 0xFF61) as usize] as u32;
            }
            // Step 10 (the pointer as row and cell).
            let Some(row_cell) = jis0208_row_cell(code_point) else {
                // Step 11.
                if self.state == EncoderState::Jis0208 {
                    self.state = EncoderState::Ascii;
                    dst.extend(b"\x1B(B");
                    continue;
                }
                return Err(char::from_u32(code_point).unwrap_or(c));
            };
            // Step 12.
            if self.state != EncoderState::Jis0208 {
                self.state = EncoderState::Jis0208;
                dst.extend(b"\x1B$B");
            }
            // Steps 13 to 15.
            dst.extend(&(row_cell + 0x2121).to_be_bytes());
            return Ok(());
        }
    }
}

impl EncodeHandler for Iso2022JpEncoder {
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, last: bool) -> EncodeStatus {
        loop {
            let Some((c, len)) = src.peek() else {
                // Step 1: end-of-queue returns to ASCII.
                if last && self.state != EncoderState::Ascii {
                    if dst.room() < ENCODE_STEP {
                        return EncodeStatus::OutputFull;
                    }
                    self.state = EncoderState::Ascii;
                    dst.extend(b"\x1B(B");
                }
                return EncodeStatus::InputEmpty;
            };
            if dst.room() < ENCODE_STEP {
                return EncodeStatus::OutputFull;
            }
            src.advance(len);
            if let Err(c) = self.step(c, dst) {
                return EncodeStatus::Unmappable(c);
            }
            match self.state {
                EncoderState::Jis0208 => self.jis0208_run(src, dst),
                EncoderState::Ascii if src.next_is_ascii() => {
                    // Step 4 for a run of ASCII, in bulk, up to a byte of step 3.
                    let n = dst.copy_ascii_from(src);
                    let escapes = dst.last_written(n).iter().position(|b| matches!(b, 0x0E | 0x0F | 0x1B));
                    if let Some(k) = escapes {
                        src.retreat(n - k);
                        dst.uncommit(n - k);
                    }
                }
                _ => {}
            }
        }
    }
}

/// The most ASCII bytes that [`ascii_gap`] takes between two characters of jis0208;
/// a longer run goes to the bulk copy of the ASCII state.
const ASCII_GAP: usize = 16;

/// In the jis0208 state, at `bytes[pos]` (ASCII), what [`Iso2022JpEncoder::step`]
/// writes for a run of at most [`ASCII_GAP`] ASCII bytes and the character after it
/// when that character has a pointer and nothing else happens on the way: steps 6
/// (`ESC ( B`), 4 for each byte, 12 (`ESC $ B`) and 13 to 15 for the character, which
/// ends in the jis0208 state again. Writes it to the start of `out` and returns the
/// bytes read and written; `None` (nothing taken) when the run is longer, holds
/// U+000E, U+000F or U+001B (errors of step 3 in the ASCII state), ends the text, or
/// ends at a character with no pointer (an error of step 11, or U+00A5 and U+203E,
/// which step 7 takes to the Roman state), or when `out` is too short for it.
// A call: next to the characters it is rare (ja.txt: one gap in 17 characters).
#[inline(never)]
fn ascii_gap(bytes: &[u8], pos: usize, out: &mut [u8]) -> Option<(usize, usize)> {
    let rest = &bytes[pos..bytes.len().min(pos + ASCII_GAP + 1)];
    let run = rest.iter().position(|&b| b >= 0x80)?;
    let ascii = &rest[..run];
    if ascii.iter().any(|&b| matches!(b, 0x0E | 0x0F | 0x1B)) {
        return None;
    }
    let (code_point, len) = decode_utf8_at(bytes, pos + run);
    let two = jis0208_run_bytes(code_point)?;
    let wrote = 3 + run + 3 + 2;
    let out = out.get_mut(..wrote)?;
    out[..3].copy_from_slice(b"\x1B(B");
    out[3..3 + run].copy_from_slice(ascii);
    let [lead, trail] = two.to_be_bytes();
    out[3 + run..].copy_from_slice(&[0x1B, b'$', b'B', lead, trail]);
    Some((run + len, wrote))
}

/// The two bytes that [`Iso2022JpEncoder::step`] writes for a code point that is
/// not ASCII in the jis0208 state without changing state (steps 8 to 10 and 13 to
/// 15: U+2212 as U+FF0D, halfwidth katakana as their fullwidth forms), as a
/// big-endian number.
#[inline(always)]
fn jis0208_run_bytes(code_point: u32) -> Option<u16> {
    let code_point = match code_point {
        0x2212 => 0xFF0D,
        0xFF61..=0xFF9F => ISO_2022_JP_KATAKANA[(code_point - 0xFF61) as usize] as u32,
        _ => code_point,
    };
    Some(jis0208_row_cell(code_point)? + 0x2121)
}

impl Iso2022JpEncoder {
    /// In the jis0208 state, the run of scalar values that [`Self::step`] would
    /// write as a pointer's two bytes without changing state (steps 8 to 10 and 13
    /// to 15), in a tight loop; stops before anything else.
    #[inline(always)]
    fn jis0208_run<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>) {
        debug_assert_eq!(self.state, EncoderState::Jis0208);
        if let Input::Utf8(text) = src.rest_input() {
            // From `&str`: scalar values decoded from their UTF-8 in place, as many as
            // the room holds without checking it again (a step writes 2 bytes).
            let bytes = text.as_bytes();
            let mut pos = 0;
            'run: while dst.room() >= ENCODE_STEP {
                // As many steps as leave the room at `ENCODE_STEP` or more before each,
                // written through a local count (not the sink's, kept in memory).
                let steps = (dst.room() - ENCODE_STEP) / 2 + 1;
                let out = &mut dst.spare()[..2 * steps];
                let mut written = 0;
                // Room for a pair (a gap may have left one byte).
                while written + 2 <= out.len() {
                    let Some(&lead) = bytes.get(pos) else { break };
                    if lead < 0x80 {
                        // A short ASCII run between two characters of jis0208 (digits,
                        // spaces and Latin words in Japanese text).
                        match ascii_gap(bytes, pos, &mut out[written..]) {
                            Some((read, wrote)) => {
                                pos += read;
                                written += wrote;
                                continue;
                            }
                            None => break,
                        }
                    }
                    // `text` is valid UTF-8: a lead byte's continuation bytes follow it.
                    let (code_point, len) = decode_utf8_at(bytes, pos);
                    let Some(two) = jis0208_run_bytes(code_point) else { break };
                    pos += len;
                    out[written..written + 2].copy_from_slice(&two.to_be_bytes());
                    written += 2;
                }
                let full = written + 2 > out.len();
                dst.commit(written);
                if !full {
                    break 'run;
                }
            }
            src.advance(pos);
            return;
        }
        while dst.room() >= ENCODE_STEP {
            let Some((c, len)) = src.peek() else { return };
            let code_point = c as u32;
            if code_point < 0x80 {
                return;
            }
            let Some(bytes) = jis0208_run_bytes(code_point) else { return };
            src.advance(len);
            dst.extend(&bytes.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ascii_state_run;
    use alloc::vec::Vec;

    /// The twin: the first byte that is not ASCII or is 0x0E, 0x0F or 0x1B.
    fn scalar_run(bytes: &[u8]) -> usize {
        bytes.iter().position(|&b| b >= 0x80 || matches!(b, 0x0E | 0x0F | 0x1B)).unwrap_or(bytes.len())
    }

    /// Each byte value at each place of runs of every length up to 40, in ASCII text
    /// with the bytes next to the three (0x0D, 0x10, 0x1A, 0x1C, 0x7F) and more of the
    /// stopping bytes after it (which the borrow of the word test may flag).
    #[test]
    fn ascii_state_run_matches_twin() {
        let filler = b"ab\x0D\x10c\x1A\x1Cd\x7F efgh";
        for len in 0..40 {
            let base: Vec<u8> = filler.iter().copied().cycle().take(len).collect();
            assert_eq!(ascii_state_run(&base), scalar_run(&base), "{base:02X?}");
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut bytes = base.clone();
                    bytes[at] = byte;
                    assert_eq!(ascii_state_run(&bytes), scalar_run(&bytes), "{bytes:02X?}");
                    for after in [0x0E, 0x0F, 0x1B, 0x80, 0x00, 0x01] {
                        if at + 1 < len {
                            bytes[at + 1] = after;
                            assert_eq!(ascii_state_run(&bytes), scalar_run(&bytes), "{bytes:02X?}");
                        }
                    }
                }
            }
        }
    }
}
