//! UTF-8 (`encoding.bs` § "UTF-8"): the decoder with the standard's byte ranges and
//! one U+FFFD per maximal subpart, and the encoder.
//!
//! The valid prefix of the input is decoded in bulk (through [`crate::simd`]); the
//! maximal subpart after it, an error, is measured with the standard's handler
//! ([`maximal_subpart`]), which is exactly the standard's behaviour. The
//! byte-at-a-time state machine from the standard only runs for a sequence that a
//! call boundary cut in two.

use super::{ByteSink, DecodeHandler, ENCODE_STEP, EncodeHandler, EncodeStatus, Replaced, Sink, Source, Status};
use crate::simd::scalar::LONG_VALID;

/// The UTF-8 decoder, with the standard's state.
#[derive(Debug, Clone)]
pub(crate) struct Utf8Decoder {
    /// UTF-8 code point.
    code_point: u32,
    /// UTF-8 bytes seen.
    bytes_seen: u8,
    /// UTF-8 bytes needed.
    bytes_needed: u8,
    /// UTF-8 lower boundary.
    lower_boundary: u8,
    /// UTF-8 upper boundary.
    upper_boundary: u8,
}

/// The result of one step of the standard's handler.
enum Step {
    Continue,
    CodePoint(u32),
    /// Error; `consumed` is false when the byte was restored.
    Error {
        len: u8,
        consumed: bool,
    },
}

impl Utf8Decoder {
    /// The bytes held (see `DecoderCodec::pending_len`).
    pub(crate) fn pending_len(&self) -> usize {
        if self.bytes_needed == 0 { 0 } else { 1 + usize::from(self.bytes_seen) }
    }

    pub(crate) fn new() -> Self {
        Utf8Decoder { code_point: 0, bytes_seen: 0, bytes_needed: 0, lower_boundary: 0x80, upper_boundary: 0xBF }
    }

    /// Whether no sequence is pending.
    #[inline]
    pub(crate) fn is_initial(&self) -> bool {
        self.bytes_needed == 0
    }

    /// The standard's handler for one byte (not end-of-queue).
    #[inline]
    fn step(&mut self, byte: u8) -> Step {
        if self.bytes_needed == 0 {
            match byte {
                0x00..=0x7F => return Step::CodePoint(byte as u32),
                0xC2..=0xDF => {
                    self.bytes_needed = 1;
                    self.code_point = (byte & 0x1F) as u32;
                }
                0xE0..=0xEF => {
                    // 0xE0: lower boundary 0xA0; 0xED: upper boundary 0x9F.
                    (self.lower_boundary, self.upper_boundary) = crate::simd::scalar::utf8_second_byte_bounds(byte);
                    self.bytes_needed = 2;
                    self.code_point = (byte & 0xF) as u32;
                }
                0xF0..=0xF4 => {
                    // 0xF0: lower boundary 0x90; 0xF4: upper boundary 0x8F.
                    (self.lower_boundary, self.upper_boundary) = crate::simd::scalar::utf8_second_byte_bounds(byte);
                    self.bytes_needed = 3;
                    self.code_point = (byte & 0x7) as u32;
                }
                _ => return Step::Error { len: 1, consumed: true },
            }
            return Step::Continue;
        }
        if !(self.lower_boundary..=self.upper_boundary).contains(&byte) {
            let len = 1 + self.bytes_seen;
            *self = Utf8Decoder::new();
            // Restore byte to ioQueue.
            return Step::Error { len, consumed: false };
        }
        self.lower_boundary = 0x80;
        self.upper_boundary = 0xBF;
        self.code_point = (self.code_point << 6) | (byte & 0x3F) as u32;
        self.bytes_seen += 1;
        if self.bytes_seen != self.bytes_needed {
            return Step::Continue;
        }
        let code_point = self.code_point;
        *self = Utf8Decoder::new();
        Step::CodePoint(code_point)
    }

    /// Runs the byte-at-a-time handler while a sequence is pending. Returns `Some` to
    /// end the call, or `None` once no sequence is pending (with `pos` advanced).
    #[inline]
    fn finish_pending<S: Sink>(&mut self, src: &[u8], pos: &mut usize, dst: &mut S, last: bool) -> Option<Status> {
        while self.bytes_needed != 0 {
            let Some(&byte) = src.get(*pos) else {
                if last {
                    if dst.room() < S::STEP {
                        return Some(Status::OutputFull);
                    }
                    // End-of-queue with bytes needed: one error.
                    let len = 1 + self.bytes_seen;
                    *self = Utf8Decoder::new();
                    return Some(Status::Error { len, restored: 0 });
                }
                return Some(Status::InputEmpty);
            };
            if dst.room() < S::STEP {
                return Some(Status::OutputFull);
            }
            match self.step(byte) {
                Step::Continue => *pos += 1,
                Step::CodePoint(c) => {
                    *pos += 1;
                    dst.push_char(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                Step::Error { len, consumed } => {
                    if consumed {
                        *pos += 1;
                    }
                    return Some(Status::Error { len, restored: 0 });
                }
            }
        }
        None
    }
}

impl DecodeHandler for Utf8Decoder {
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

impl Utf8Decoder {
    /// The body of `decode` and (`REPLACE`) of `decode_replacing`, which writes the
    /// U+FFFD of a maximal subpart with more input after it in place.
    #[inline(always)]
    fn run<S: Sink, const REPLACE: bool>(
        &mut self,
        src: &[u8],
        dst: &mut S,
        last: bool,
        first: &mut Option<Replaced>,
    ) -> (Status, usize) {
        let mut pos = 0;
        // Whether the copy of valid text takes the look at its first bytes: not after
        // a long run of valid text (see `LONG_VALID`).
        let mut look = true;
        // Whether this is the call's first copy, with no error before it (see
        // `Sink::copy_utf8_prefix`).
        let mut fresh = true;
        if let Some(status) = self.finish_pending(src, &mut pos, dst, last) {
            return (status, pos);
        }
        loop {
            let rest = &src[pos..];
            if rest.is_empty() {
                return (Status::InputEmpty, pos);
            }
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            // Each input byte makes at most one unit of output in either form, so a
            // window as long as the room always fits.
            let window_len = rest.len().min(dst.room());
            let window = &rest[..window_len];
            // An error often follows an error (text of errors, as a legacy encoding
            // taken for UTF-8): one at the start of the window is taken at once;
            // otherwise the valid prefix, in one pass (the common case: all of the
            // window), then the error after it.
            let mut read = 0;
            let mut subpart = maximal_subpart(window);
            if subpart == 0 {
                read = dst.copy_utf8_prefix(window, look, fresh);
                fresh = false;
                look = read < LONG_VALID;
                pos += read;
                if read == window_len {
                    continue;
                }
                subpart = maximal_subpart(&window[read..]);
            }
            let bad = &window[read..];
            if dst.room() < S::STEP {
                // The error (or the sequence the state machine keeps) is a new step.
                return (Status::OutputFull, pos);
            }
            if subpart != 0 && subpart < bad.len() {
                // A maximal subpart with more input after it: one error.
                pos += subpart;
                if REPLACE {
                    // The room was checked for this step.
                    first.get_or_insert(Replaced { end: pos, len: subpart as u8, restored: 0 });
                    dst.push_char('\u{FFFD}');
                    continue;
                }
                return (Status::Error { len: subpart as u8, restored: 0 }, pos);
            }
            if read > 0 {
                // A sequence cut by the end of the window: the next turn starts at it.
                continue;
            }
            // The input ends in a maximal subpart or a truncated sequence, or the room
            // cut the window inside the first sequence: the state machine, one byte at a
            // time with its own room checks, tells them apart and keeps a truncated
            // sequence for the next call.
            if let Some(status) = self.start_sequence(src, &mut pos, dst, last) {
                return (status, pos);
            }
        }
    }
}

/// The length of the maximal subpart that starts `bytes`, by the standard's handler
/// from its initial state: the bytes it takes before it returns an error; 0 when
/// they start with a whole, valid sequence, and `bytes.len()` when they end first
/// (a truncated sequence, which the state machine keeps).
#[inline]
pub(crate) fn maximal_subpart(bytes: &[u8]) -> usize {
    let mut decoder = Utf8Decoder::new();
    for (i, &byte) in bytes.iter().enumerate() {
        match decoder.step(byte) {
            Step::Continue => {}
            Step::Error { consumed, .. } => return i + usize::from(consumed),
            Step::CodePoint(_) => return 0,
        }
    }
    bytes.len()
}

impl Utf8Decoder {
    /// Runs the handler from the byte at `pos` (a sequence start) until it completes.
    #[inline(never)]
    fn start_sequence<S: Sink>(&mut self, src: &[u8], pos: &mut usize, dst: &mut S, last: bool) -> Option<Status> {
        match self.step(src[*pos]) {
            Step::Continue => *pos += 1,
            Step::CodePoint(c) => {
                *pos += 1;
                dst.push_char(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            Step::Error { len, consumed } => {
                if consumed {
                    *pos += 1;
                }
                return Some(Status::Error { len, restored: 0 });
            }
        }
        self.finish_pending(src, pos, dst, last)
    }
}

/// The UTF-8 encoder; it never fails.
#[derive(Debug, Clone)]
pub(crate) struct Utf8Encoder;

impl EncodeHandler for Utf8Encoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        let n = src.copy_utf8(dst.spare());
        dst.commit(n);
        if src.remaining() == 0 {
            EncodeStatus::InputEmpty
        } else {
            debug_assert!(dst.room() < ENCODE_STEP);
            EncodeStatus::OutputFull
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{DecoderResult, UTF_8};

    /// Regression (found by the fuzzer): a valid run that fills the buffer to less
    /// than one step of room, followed by an error, must stop before the error so
    /// that the U+FFFD is written in the next call, for every buffer size.
    #[test]
    fn error_after_a_valid_run_waits_for_room() {
        let input = b"\0\0\0\0\0\0\0\0W\xC0\xE7\xBB\xBB\xE7";
        for size in 4..16 {
            let mut decoder = UTF_8.new_decoder();
            let mut buf = alloc::vec![0u8; size];
            let mut out = alloc::vec::Vec::new();
            let mut rest = &input[..];
            loop {
                let progress = decoder.decode_to_utf8(rest, &mut buf, true);
                out.extend_from_slice(&buf[..progress.written]);
                rest = &rest[progress.read..];
                if progress.result == DecoderResult::InputEmpty {
                    break;
                }
            }
            assert_eq!(core::str::from_utf8(&out).unwrap(), "\0\0\0\0\0\0\0\0W\u{FFFD}\u{7EFB}\u{FFFD}", "{size}");
        }
    }
}
