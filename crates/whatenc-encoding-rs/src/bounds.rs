//! The `max_*` buffer lengths of [`Decoder`] and [`Encoder`], and
//! [`Decoder::latin1_byte_compatible_up_to`]: encoding_rs's values, which depend
//! on the encoding, on where BOM handling is, and on the bytes a decoder holds.

use crate::decoder::Decoder;
use crate::encoder::Encoder;

/// The kinds of output a decoder's bound is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    /// UTF-8 with U+FFFD for errors.
    Utf8,
    /// UTF-8 without replacement.
    Utf8Strict,
    /// UTF-16, either way.
    Utf16,
}

/// Decoders whose bounds follow the same formula.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Utf8,
    Utf16,
    /// gbk and gb18030.
    Gb,
    Big5,
    /// EUC-JP and EUC-KR.
    Euc,
    /// Shift_JIS, ISO-2022-JP, the single-byte encodings and x-user-defined: at
    /// most one BMP character per byte.
    OnePerByte,
    Replacement,
}

impl Family {
    fn of(encoding: &'static whatenc::Encoding) -> Family {
        match encoding.name() {
            "UTF-8" => Family::Utf8,
            "UTF-16BE" | "UTF-16LE" => Family::Utf16,
            "GBK" | "gb18030" => Family::Gb,
            "Big5" => Family::Big5,
            "EUC-JP" | "EUC-KR" => Family::Euc,
            "replacement" => Family::Replacement,
            _ => Family::OnePerByte,
        }
    }

    /// The output bound for `n` bytes of input, with nothing held.
    fn bound(self, output: Output, n: usize) -> Option<usize> {
        let half_up = |n: usize| n.checked_add(1).map(|m| m / 2);
        match (self, output) {
            (Family::Utf8, Output::Utf8) => n.checked_mul(3)?.checked_add(3),
            (Family::Utf8, Output::Utf8Strict) => n.checked_add(3),
            (Family::Utf8, Output::Utf16) => n.checked_add(1),
            (Family::Utf16, Output::Utf8 | Output::Utf8Strict) => half_up(n)?.checked_mul(3)?.checked_add(1),
            (Family::Utf16, Output::Utf16) => half_up(n)?.checked_add(1),
            (Family::Gb, Output::Utf8 | Output::Utf8Strict) => n.checked_mul(3)?.checked_add(1),
            (Family::Gb, Output::Utf16) => n.checked_add(1),
            (Family::Big5, Output::Utf8) => n.checked_mul(3)?.checked_add(3),
            (Family::Big5, Output::Utf8Strict) => n.checked_mul(2)?.checked_add(2),
            (Family::Big5, Output::Utf16) => n.checked_add(1),
            (Family::Euc, Output::Utf8) => n.checked_mul(3),
            (Family::Euc, Output::Utf8Strict) => n.checked_add(half_up(n)?)?.checked_add(2),
            (Family::Euc, Output::Utf16) => Some(n),
            (Family::OnePerByte, Output::Utf8 | Output::Utf8Strict) => n.checked_mul(3),
            (Family::OnePerByte, Output::Utf16) => Some(n),
            (Family::Replacement, Output::Utf8 | Output::Utf8Strict) => Some(3),
            (Family::Replacement, Output::Utf16) => Some(1),
        }
    }
}

/// Where a decoder is in BOM handling.
enum Phase {
    /// Sniffing, no byte seen.
    Start,
    /// Seen the start of a UTF-8 BOM (EF or EF BB).
    Utf8Bom,
    /// Seen the start of a UTF-16 BOM (FE or FF).
    Utf16Bom,
    /// Past BOM handling.
    Converting,
}

impl Decoder {
    fn phase(&self) -> Phase {
        if !self.bom_pending {
            return Phase::Converting;
        }
        match &self.held[..usize::from(self.held_len)] {
            [] if self.sniffing => Phase::Start,
            [] => Phase::Converting,
            [0xEF, ..] => Phase::Utf8Bom,
            _ => Phase::Utf16Bom,
        }
    }

    /// Decodes `input` as the end of the stream on a copy of the decoder (after
    /// the bytes BOM handling still holds back): the UTF-16 output and the stream
    /// offset of the first error, if any.
    fn probe(&self, input: &[u8]) -> ([u16; 8], usize, Option<u64>) {
        let (replay, start, end) = self.replay();
        let mut bytes = [0u8; 8];
        bytes[..end - start].copy_from_slice(&replay[start..end]);
        bytes[end - start..end - start + input.len()].copy_from_slice(input);
        let mut rest = &bytes[..end - start + input.len()];
        let mut probe = self.native.clone();
        let mut out = [0u16; 8];
        let mut written = 0;
        let mut first_error = None;
        loop {
            let progress = probe.decode_to_utf16(rest, &mut out[written..], true);
            rest = &rest[progress.read..];
            written += progress.written;
            match progress.result {
                whatenc::DecoderResult::Malformed(error) => {
                    first_error.get_or_insert(error.offset);
                }
                _ => return (out, written, first_error),
            }
        }
    }

    /// The bytes read that have not become output yet: what ending the stream now
    /// would report as malformed.
    fn held(&self) -> usize {
        let (_, start, end) = self.replay();
        if self.native_fed == 0 && start == end {
            return 0;
        }
        if self.requeued {
            // What a gb18030 error put back, and nothing else.
            return end - start;
        }
        let fed = self.native_fed + (end - start) as u64;
        // Bytes read past a malformed sequence are decoded again: count them too
        // (as encoding_rs counts them).
        // (They are among those after the first error when they are malformed
        // themselves.)
        let restored = usize::from(self.restored);
        self.probe(b"").2.map_or(0, |offset| fed.saturating_sub(offset) as usize).max(restored)
    }

    /// What encoding_rs's ISO-2022-JP decoder adds to the input length for its
    /// bounds: one for its lead byte (which stays after a JIS X 0208 character until
    /// the next escape sequence), one for its output flag (set right after an escape
    /// sequence), and what it holds: one after `ESC`, two inside `ESC $` or `ESC (`
    /// (whose second byte is its lead).
    fn iso_2022_jp_extra(&self) -> usize {
        let held = self.held();
        let (lead, output) = self.native.iso_2022_jp_lead_and_output().unwrap_or((0, false));
        // The output flag encoding_rs kept where the stream ended inside an escape
        // sequence: after `ESC`, until more input; after `ESC $` or `ESC (`, while
        // their second byte is held (encoding_rs unsets the flag when it decodes it).
        let kept = self.iso_kept_output && (self.last_fed == 0x1B || held == 1);
        let (lead, output) = (usize::from(lead != 0), usize::from(output || kept));
        let (_, start, end) = self.replay();
        match held {
            // Bytes BOM sniffing held back, decoded in part: encoding_rs counts one
            // more.
            _ if start > 0 && start < end => held + 1,
            0 => lead + output,
            1 if self.last_fed == 0x1B => 1 + lead + output,
            // Inside `ESC $` or `ESC (` (its second byte is the lead).
            2 if matches!(self.last_fed, 0x24 | 0x28) => 2 + output,
            // The stream ended inside `ESC $` or `ESC (`: the second byte is held to
            // be decoded again, and encoding_rs keeps its output flag.
            1 if matches!(self.last_fed, 0x24 | 0x28) => 1 + output,
            held => held,
        }
    }

    fn max_length(&self, output: Output, byte_length: usize) -> Option<usize> {
        let encoding = self.native.encoding();
        let family = Family::of(encoding);
        let owed = match (self.owed_replacement, output) {
            (false, _) => 0,
            (true, Output::Utf16) => 1,
            (true, _) => 3,
        };
        let bound = match self.phase() {
            Phase::Start => {
                let utf = Family::Utf8.bound(output, byte_length)?.max(Family::Utf16.bound(output, byte_length)?);
                utf.max(family.bound(output, byte_length)?)
            }
            Phase::Utf8Bom => {
                let n = byte_length.checked_add(2)?;
                Family::Utf8.bound(output, n)?.max(family.bound(output, n)?)
            }
            Phase::Utf16Bom => {
                let n = byte_length.checked_add(2)?;
                Family::Utf16.bound(output, n)?.max(family.bound(output, n)?)
            }
            Phase::Converting => {
                let extra = match encoding.name() {
                    "ISO-2022-JP" => self.iso_2022_jp_extra(),
                    // encoding_rs's EUC-JP decoder keeps 0x8F as a flag beside the
                    // lead byte, so it counts at most one held byte.
                    "EUC-JP" => self.held().min(1),
                    _ => self.held(),
                };
                family.bound(output, byte_length.checked_add(extra)?)?
            }
        };
        bound.checked_add(owed)
    }

    /// The UTF-8 output length that is enough for decoding `byte_length` more
    /// bytes, in the decoder's current state, writing U+FFFD for errors; `None` if
    /// it overflows `usize`.
    ///
    /// ```
    /// let decoder = whatenc_encoding_rs::WINDOWS_1252.new_decoder_without_bom_handling();
    /// assert_eq!(decoder.max_utf8_buffer_length(10), Some(30));
    /// assert_eq!(decoder.max_utf8_buffer_length(usize::MAX), None);
    /// ```
    pub fn max_utf8_buffer_length(&self, byte_length: usize) -> Option<usize> {
        self.max_length(Output::Utf8, byte_length)
    }

    /// The UTF-8 output length that is enough for decoding `byte_length` more
    /// bytes without replacement; `None` if it overflows `usize`. It may be too
    /// small for the replacing methods.
    ///
    /// ```
    /// let decoder = whatenc_encoding_rs::UTF_8.new_decoder_without_bom_handling();
    /// assert_eq!(decoder.max_utf8_buffer_length_without_replacement(10), Some(13));
    /// ```
    pub fn max_utf8_buffer_length_without_replacement(&self, byte_length: usize) -> Option<usize> {
        self.max_length(Output::Utf8Strict, byte_length)
    }

    /// The UTF-16 output length that is enough for decoding `byte_length` more
    /// bytes, with or without replacement; `None` if it overflows `usize`.
    ///
    /// ```
    /// let decoder = whatenc_encoding_rs::UTF_16LE.new_decoder_without_bom_handling();
    /// assert_eq!(decoder.max_utf16_buffer_length(10), Some(6));
    /// ```
    pub fn max_utf16_buffer_length(&self, byte_length: usize) -> Option<usize> {
        self.max_length(Output::Utf16, byte_length)
    }

    /// For engines that store Latin-1 strings as bytes: `None` if the decoder is
    /// still handling a BOM, holds bytes, or its encoding never decodes bytes as
    /// their own Latin-1 value (UTF-16BE, UTF-16LE, replacement); otherwise the
    /// length of the prefix of `bytes` that decodes byte for byte to U+0000–U+00FF
    /// of the same value. Does not change the decoder.
    ///
    /// ```
    /// use whatenc_encoding_rs::{UTF_8, WINDOWS_1252};
    /// assert_eq!(WINDOWS_1252.new_decoder_without_bom_handling().latin1_byte_compatible_up_to(b"a\xE9\x80"), Some(2));
    /// assert_eq!(UTF_8.new_decoder_without_bom_handling().latin1_byte_compatible_up_to(b"a\xE9\x80"), Some(1));
    /// assert_eq!(UTF_8.new_decoder().latin1_byte_compatible_up_to(b"a"), None);
    /// ```
    pub fn latin1_byte_compatible_up_to(&self, bytes: &[u8]) -> Option<usize> {
        let encoding = self.native.encoding();
        let settled = if encoding == whatenc::ISO_2022_JP {
            // In the ASCII state (a backslash is itself) with nothing pending.
            let (out, written, error) = self.probe(b"\\");
            self.iso_2022_jp_extra() == 0 && error.is_none() && out[..written] == [0x5C]
        } else {
            self.held() == 0
        };
        if self.bom_pending || self.owed_replacement || !settled {
            return None;
        }
        match Family::of(encoding) {
            Family::Utf16 | Family::Replacement => None,
            _ if encoding.is_single_byte() => Some(single_byte_latin1_up_to(encoding, bytes)),
            _ if encoding == whatenc::ISO_2022_JP => Some(crate::Encoding::iso_2022_jp_ascii_valid_up_to(bytes)),
            _ => Some(crate::mem::ascii_valid_up_to(bytes)),
        }
    }
}

/// The prefix of `bytes` that a single-byte `encoding` decodes to the code points
/// of the same values, as encoding_rs reports it: when the bytes end with a run of
/// ASCII, the prefix stops before that run (so all-ASCII input gives 0).
fn single_byte_latin1_up_to(encoding: &'static whatenc::Encoding, bytes: &[u8]) -> usize {
    if encoding == whatenc::X_USER_DEFINED {
        return crate::mem::ascii_valid_up_to(bytes);
    }
    // Which of the bytes 0x80–0xFF decode to themselves: one decode of all 128.
    let mut high = [0u8; 128];
    for (i, byte) in high.iter_mut().enumerate() {
        *byte = 0x80 + i as u8;
    }
    let mut decoded = [0u16; 128];
    let _ = encoding.new_decoder().decode_to_utf16(&high, &mut decoded, true);
    let mut at = 0;
    loop {
        let ascii = crate::mem::ascii_valid_up_to(&bytes[at..]);
        if at + ascii == bytes.len() {
            return at;
        }
        at += ascii;
        let byte = bytes[at];
        if decoded[usize::from(byte - 0x80)] != u16::from(byte) {
            return at;
        }
        at += 1;
        if at == bytes.len() {
            return at;
        }
    }
}

impl Encoder {
    fn family_bounds(&self) -> [fn(usize) -> Option<usize>; 4] {
        // For each encoding: from UTF-8 if no unmappables, from UTF-8 without
        // replacement, from UTF-16 if no unmappables, from UTF-16 without
        // replacement. "If no unmappables" keeps room for one reference.
        fn nine_halves(n: usize) -> Option<usize> {
            n.checked_mul(4)?.checked_add(n.checked_add(1)? / 2)
        }
        match self.native.encoding().name() {
            "UTF-8" => [Some, Some, |n| n.checked_mul(3), |n| n.checked_mul(3)],
            "Big5" | "EUC-JP" | "EUC-KR" | "Shift_JIS" => [
                |n| n.checked_add(11),
                |n| n.checked_add(1),
                |n| n.checked_mul(2)?.checked_add(10),
                |n| n.checked_mul(2),
            ],
            "GBK" => [
                |n| n.checked_add(13),
                |n| n.checked_add(3),
                |n| n.checked_mul(2)?.checked_add(12),
                |n| n.checked_mul(2)?.checked_add(2),
            ],
            "gb18030" => [
                |n| n.checked_mul(2)?.checked_add(12),
                |n| n.checked_mul(2)?.checked_add(2),
                |n| n.checked_mul(4)?.checked_add(10),
                |n| n.checked_mul(4),
            ],
            "ISO-2022-JP" => [
                |n| n.checked_mul(3)?.checked_add(13),
                |n| n.checked_mul(3)?.checked_add(3),
                |n| nine_halves(n)?.checked_add(13),
                |n| nine_halves(n)?.checked_add(3),
            ],
            _ => [|n| n.checked_add(10), Some, |n| n.checked_add(10), Some],
        }
    }

    fn max_length(&self, which: usize, length: usize) -> Option<usize> {
        self.family_bounds()[which](length)
    }

    /// The output length that is enough for encoding `byte_length` more bytes of
    /// UTF-8 with replacement, if none of the characters is unmappable (room for
    /// one reference is included); `None` if it overflows `usize`.
    ///
    /// ```
    /// let encoder = whatenc_encoding_rs::SHIFT_JIS.new_encoder();
    /// assert_eq!(encoder.max_buffer_length_from_utf8_if_no_unmappables(10), Some(21));
    /// ```
    pub fn max_buffer_length_from_utf8_if_no_unmappables(&self, byte_length: usize) -> Option<usize> {
        self.max_length(0, byte_length)
    }

    /// The output length that is enough for encoding `byte_length` more bytes of
    /// UTF-8 without replacement; `None` if it overflows `usize`.
    ///
    /// ```
    /// let encoder = whatenc_encoding_rs::GB18030.new_encoder();
    /// assert_eq!(encoder.max_buffer_length_from_utf8_without_replacement(10), Some(22));
    /// ```
    pub fn max_buffer_length_from_utf8_without_replacement(&self, byte_length: usize) -> Option<usize> {
        self.max_length(1, byte_length)
    }

    /// The output length that is enough for encoding `u16_length` more UTF-16 code
    /// units with replacement, if none of the characters is unmappable; `None` if
    /// it overflows `usize`.
    ///
    /// ```
    /// let encoder = whatenc_encoding_rs::UTF_8.new_encoder();
    /// assert_eq!(encoder.max_buffer_length_from_utf16_if_no_unmappables(10), Some(30));
    /// ```
    pub fn max_buffer_length_from_utf16_if_no_unmappables(&self, u16_length: usize) -> Option<usize> {
        self.max_length(2, u16_length)
    }

    /// The output length that is enough for encoding `u16_length` more UTF-16 code
    /// units without replacement; `None` if it overflows `usize`.
    ///
    /// ```
    /// let encoder = whatenc_encoding_rs::EUC_KR.new_encoder();
    /// assert_eq!(encoder.max_buffer_length_from_utf16_without_replacement(10), Some(20));
    /// ```
    pub fn max_buffer_length_from_utf16_without_replacement(&self, u16_length: usize) -> Option<usize> {
        self.max_length(3, u16_length)
    }
}
