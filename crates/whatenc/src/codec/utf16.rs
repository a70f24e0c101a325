//! The shared UTF-16 decoder (`encoding.bs` § "shared UTF-16 decoder"), for
//! UTF-16BE and UTF-16LE. Neither has an encoder.

use super::{DecodeHandler, Replaced, Sink, Status};

/// The shared UTF-16 decoder.
///
/// The standard restores the two bytes of a code unit that follows a leading
/// surrogate but is not a trailing one. Instead of restoring bytes, this keeps the
/// already-assembled code unit in `pending_unit` and handles it as the next unit,
/// which gives the same results without re-reading bytes across calls.
#[derive(Debug, Clone)]
pub(crate) struct Utf16Decoder {
    is_be: bool,
    /// UTF-16 leading byte.
    leading_byte: Option<u8>,
    /// UTF-16 leading surrogate.
    leading_surrogate: Option<u16>,
    /// A code unit "restored" after an error, to be handled before more input.
    pending_unit: Option<u16>,
}

impl Utf16Decoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        usize::from(self.leading_byte.is_some())
            + 2 * usize::from(self.leading_surrogate.is_some())
            + 2 * usize::from(self.pending_unit.is_some())
    }

    /// Takes out the restored code unit, as its two bytes (for
    /// `Decoder::take_restored`).
    pub(crate) fn take_restored(&mut self) -> ([u8; 3], usize) {
        match self.pending_unit.take() {
            Some(unit) => {
                let [a, b] = if self.is_be { unit.to_be_bytes() } else { unit.to_le_bytes() };
                ([a, b, 0], 2)
            }
            None => ([0; 3], 0),
        }
    }

    pub(crate) fn new(is_be: bool) -> Self {
        Utf16Decoder { is_be, leading_byte: None, leading_surrogate: None, pending_unit: None }
    }

    #[inline(always)]
    fn unit(&self, first: u8, second: u8) -> u16 {
        if self.is_be { u16::from_be_bytes([first, second]) } else { u16::from_le_bytes([first, second]) }
    }

    /// Handles one code unit (steps 5–8 of the handler); `Some(error)` when it is one.
    #[inline(always)]
    fn handle_unit<S: Sink>(&mut self, unit: u16, dst: &mut S) -> Option<Status> {
        if let Some(lead) = self.leading_surrogate.take() {
            if (0xDC00..=0xDFFF).contains(&unit) {
                let c = 0x10000 + (((lead as u32) - 0xD800) << 10) + ((unit as u32) - 0xDC00);
                dst.push_char(char::from_u32(c).unwrap_or('\u{FFFD}'));
                return None;
            }
            // Restore the unit's two bytes and return error: the malformed sequence is
            // the leading surrogate's two bytes; the restored ones follow it.
            self.pending_unit = Some(unit);
            return Some(Status::Error { len: 2, restored: 2 });
        }
        match unit {
            0xD800..=0xDBFF => self.leading_surrogate = Some(unit),
            0xDC00..=0xDFFF => return Some(Status::Error { len: 2, restored: 0 }),
            _ => dst.push_bmp(unit),
        }
        None
    }
}

impl DecodeHandler for Utf16Decoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        self.run::<S, false>(src, dst, last, &mut None)
    }

    #[inline]
    fn decode_replacing<S: Sink>(
        &mut self,
        src: &[u8],
        dst: &mut S,
        last: bool,
        first: &mut Option<Replaced>,
    ) -> (Status, usize) {
        self.run::<S, true>(src, dst, last, first)
    }
}

impl Utf16Decoder {
    /// The body of `decode` and (`REPLACE`) of `decode_replacing`, which writes the
    /// U+FFFD of an error in the bulk loop in place; the restored unit after a
    /// leading surrogate is then handled at once.
    #[inline(always)]
    fn run<S: Sink, const REPLACE: bool>(
        &mut self,
        src: &[u8],
        dst: &mut S,
        last: bool,
        first: &mut Option<Replaced>,
    ) -> (Status, usize) {
        if let Some(unit) = self.pending_unit {
            if dst.room() < S::STEP {
                return (Status::OutputFull, 0);
            }
            self.pending_unit = None;
            if let Some(error) = self.handle_unit(unit, dst) {
                return (error, 0);
            }
        }
        let mut pos = 0;
        if let Some(first) = self.leading_byte {
            let Some(&second) = src.first() else {
                return self.end(last, 0, dst);
            };
            if dst.room() < S::STEP {
                return (Status::OutputFull, 0);
            }
            self.leading_byte = None;
            pos = 1;
            if let Some(error) = self.handle_unit(self.unit(first, second), dst) {
                return (error, pos);
            }
        }
        // Whether to replace lone surrogates in bulk: from an error replaced in this
        // call on (an error is seldom alone), for as long as the bulk replacement
        // keeps meeting them.
        let mut dense = false;
        loop {
            if self.leading_surrogate.is_none() {
                if REPLACE && dense {
                    // The first error of the call is behind: the lone surrogates
                    // replaced in bulk need no place.
                    let (read, go_on) = dst.copy_utf16_replacing(&src[pos..], self.is_be);
                    pos += read;
                    // Else the bulk copy until the next error.
                    dense = go_on;
                } else {
                    pos += self.copy_bmp_run(&src[pos..], dst);
                }
            }
            let rest = &src[pos..];
            if rest.len() < 2 {
                if let Some(&byte) = rest.first() {
                    self.leading_byte = Some(byte);
                    pos += 1;
                }
                return self.end(last, pos, dst);
            }
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            let unit = self.unit(rest[0], rest[1]);
            pos += 2;
            if let Some(error) = self.handle_unit(unit, dst) {
                if !REPLACE {
                    return (error, pos);
                }
                let Status::Error { len, restored } = error else { return (error, pos) };
                // The room was checked for this step.
                first.get_or_insert(Replaced { end: pos, len, restored });
                dst.push_char('\u{FFFD}');
                dense = true;
                if let Some(restored_unit) = self.pending_unit {
                    // Not a trailing surrogate (it would have paired): a leading one
                    // starts a pair; another unit is written, in the room of a step
                    // of its own (else the next call starts with it).
                    if (0xD800..=0xDBFF).contains(&restored_unit) {
                        self.pending_unit = None;
                        self.leading_surrogate = Some(restored_unit);
                    } else if dst.room() >= S::STEP {
                        self.pending_unit = None;
                        dst.push_bmp(restored_unit);
                    } else {
                        return (Status::OutputFull, pos);
                    }
                }
            }
        }
    }
}

impl Utf16Decoder {
    /// End of this call's input: at end-of-queue a pending byte or surrogate is one error.
    #[inline]
    fn end<S: Sink>(&mut self, last: bool, pos: usize, dst: &S) -> (Status, usize) {
        if last && (self.leading_byte.is_some() || self.leading_surrogate.is_some()) && dst.room() < S::STEP {
            // The error is a step: it needs room for its U+FFFD.
            return (Status::OutputFull, pos);
        }
        if last {
            let pending_bytes = match (self.leading_byte, self.leading_surrogate) {
                (None, None) => 0,
                (Some(_), None) => 1,
                (None, Some(_)) => 2,
                (Some(_), Some(_)) => 3,
            };
            if pending_bytes != 0 {
                self.leading_byte = None;
                self.leading_surrogate = None;
                return (Status::Error { len: pending_bytes, restored: 0 }, pos);
            }
        }
        (Status::InputEmpty, pos)
    }

    /// Writes the run of whole code units that are not surrogates, while room lasts;
    /// returns the bytes consumed.
    #[inline(always)]
    fn copy_bmp_run<S: Sink>(&self, src: &[u8], dst: &mut S) -> usize {
        dst.copy_utf16_bmp(src, self.is_be)
    }
}
