//! [`Encoder`] and [`EncoderResult`].

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use whatenc::EncodeProgress;

use crate::decoder::CoderResult;
use crate::encoding::Encoding;

/// Why a call of an `encode_*_without_replacement` method returned.
///
/// ```
/// use whatenc_encoding_rs::{EncoderResult, WINDOWS_1252};
/// let mut out = [0u8; 16];
/// let result = WINDOWS_1252.new_encoder().encode_from_utf8_without_replacement("a☃b", &mut out, true);
/// assert_eq!(result, (EncoderResult::Unmappable('☃'), 4, 1));
/// ```
#[must_use]
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum EncoderResult {
    /// All the input was consumed; with `last`, the stream has ended.
    ///
    /// ```
    /// use whatenc_encoding_rs::{EncoderResult, UTF_8};
    /// let mut out = [0u8; 16];
    /// assert_eq!(UTF_8.new_encoder().encode_from_utf8_without_replacement("ok", &mut out, true).0, EncoderResult::InputEmpty);
    /// ```
    InputEmpty,
    /// The output buffer has no room for more: call again with more room and the
    /// input not yet read.
    ///
    /// ```
    /// use whatenc_encoding_rs::{EncoderResult, UTF_8};
    /// let mut out = [0u8; 1];
    /// assert_eq!(UTF_8.new_encoder().encode_from_utf8_without_replacement("é", &mut out, true).0, EncoderResult::OutputFull);
    /// ```
    OutputFull,
    /// The encoding cannot represent this character, which the call has read (it
    /// is the last one of the input read). Treat it as fatal, or write a
    /// replacement and call again with the rest.
    ///
    /// ```
    /// use whatenc_encoding_rs::{EncoderResult, EUC_KR};
    /// let mut out = [0u8; 16];
    /// assert_eq!(EUC_KR.new_encoder().encode_from_utf8_without_replacement("☃", &mut out, true).0, EncoderResult::Unmappable('☃'));
    /// ```
    Unmappable(char),
}

impl EncoderResult {
    fn from_native(result: whatenc::EncoderResult) -> EncoderResult {
        match result {
            whatenc::EncoderResult::InputEmpty => EncoderResult::InputEmpty,
            whatenc::EncoderResult::OutputFull => EncoderResult::OutputFull,
            whatenc::EncoderResult::Unmappable(c) => EncoderResult::Unmappable(c),
        }
    }
}

/// A streaming encoder: UTF-8 or UTF-16 in, bytes of one encoding out.
///
/// Every `encode_*` method takes text, an output buffer and `last` (whether this
/// text ends the stream), and returns why it stopped, how many units it read and
/// how many bytes it wrote (a `Vec` shows the latter in its length); the
/// replacing methods add whether a character became a numeric character
/// reference `&#N;` during the call. After `OutputFull` or `Unmappable`, call
/// again with the text not yet read; call until `InputEmpty` with `last` set.
///
/// UTF-16 input: an unpaired surrogate, including a leading surrogate at the end
/// of a buffer, is U+FFFD; do not split surrogate pairs across buffers.
///
/// ```
/// use whatenc_encoding_rs::{CoderResult, ISO_2022_JP};
/// let mut encoder = ISO_2022_JP.new_encoder();
/// let mut out = [0u8; 32];
/// let (result, read, written, replaced) = encoder.encode_from_utf8("a日☃", &mut out, true);
/// assert_eq!((result, read, replaced), (CoderResult::InputEmpty, 7, true));
/// assert_eq!(&out[..written], b"a\x1B$BF|\x1B(B&#9731;");
/// ```
#[derive(Clone)]
pub struct Encoder {
    /// Always in whatenc's "fatal" mode: the replacing methods write the
    /// references themselves, so that one encoder serves both kinds of call.
    pub(crate) native: whatenc::Encoder,
    /// ISO-2022-JP only: whether the output is in a state other than ASCII.
    escaped: bool,
}

/// Text input of an encoding call: `str` or `[u16]`.
trait Input {
    /// Units of input.
    fn units(&self) -> usize;
    /// The length of the character at `at` (a lone surrogate counts as one), and
    /// whether it is ASCII.
    fn char_at(&self, at: usize) -> (usize, bool);
    /// Whether the character that ends at `end` is ASCII.
    fn ascii_before(&self, end: usize) -> bool;
    /// The unit before `end`.
    fn unit_before(&self, end: usize) -> u16;
    fn encode(&self, range: Range<usize>, encoder: &mut whatenc::Encoder, dst: &mut [u8], last: bool)
    -> EncodeProgress;
}

impl Input for str {
    fn units(&self) -> usize {
        self.len()
    }
    fn char_at(&self, at: usize) -> (usize, bool) {
        let c = self[at..].chars().next().unwrap_or('\0');
        (c.len_utf8(), c.is_ascii())
    }
    fn ascii_before(&self, end: usize) -> bool {
        self.as_bytes()[end - 1] < 0x80
    }
    fn unit_before(&self, end: usize) -> u16 {
        u16::from(self.as_bytes()[end - 1])
    }
    fn encode(
        &self,
        range: Range<usize>,
        encoder: &mut whatenc::Encoder,
        dst: &mut [u8],
        last: bool,
    ) -> EncodeProgress {
        encoder.encode_from_utf8(&self[range], dst, last)
    }
}

impl Input for [u16] {
    fn units(&self) -> usize {
        self.len()
    }
    fn char_at(&self, at: usize) -> (usize, bool) {
        match (self[at], self.get(at + 1)) {
            (0xD800..=0xDBFF, Some(0xDC00..=0xDFFF)) => (2, false),
            (unit, _) => (1, unit < 0x80),
        }
    }
    fn ascii_before(&self, end: usize) -> bool {
        self[end - 1] < 0x80
    }
    fn unit_before(&self, end: usize) -> u16 {
        self[end - 1]
    }
    fn encode(
        &self,
        range: Range<usize>,
        encoder: &mut whatenc::Encoder,
        dst: &mut [u8],
        last: bool,
    ) -> EncodeProgress {
        let src = &self[range];
        // whatenc keeps a leading surrogate that ends a buffer for the next one;
        // here it is unpaired, so it is U+FFFD right away.
        // So are the leading surrogates before it.
        let leads = if last { 0 } else { src.iter().rev().take_while(|u| (0xD800..=0xDBFF).contains(*u)).count() };
        if leads == 0 {
            return encoder.encode_from_utf16(src, dst, last);
        }
        let body = &src[..src.len() - leads];
        let mut progress = encoder.encode_from_utf16(body, dst, false);
        if progress.result != whatenc::EncoderResult::InputEmpty || progress.read != body.len() {
            return progress;
        }
        for _ in 0..leads {
            let lone = encoder.encode_from_utf16(&[0xFFFD], &mut dst[progress.written..], false);
            progress = EncodeProgress {
                result: lone.result,
                read: progress.read + lone.read,
                written: progress.written + lone.written,
            };
            if progress.result != whatenc::EncoderResult::InputEmpty {
                break;
            }
        }
        progress
    }
}

/// The longest reference, `&#1114111;`.
const NCR_EXTRA: usize = 10;

/// Above this much room beyond the worst case of a character, a call hands the
/// text to the native bulk encoder.
const BULK: usize = 8;

/// Writes `&#N;` for `c` at the start of `dst`, which has room; returns its length.
fn write_reference(c: char, dst: &mut [u8]) -> usize {
    let mut digits = [0u8; 7];
    let mut value = c as u32;
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    let digits = &digits[start..];
    dst[..2].copy_from_slice(b"&#");
    dst[2..2 + digits.len()].copy_from_slice(digits);
    dst[2 + digits.len()] = b';';
    digits.len() + 3
}

impl Encoder {
    pub(crate) fn new(encoding: &'static Encoding) -> Encoder {
        let native = encoding.native().new_encoder().expect("an output encoding has an encoder");
        Encoder { native, escaped: false }
    }

    /// The encoding this encoder writes (an output encoding: never UTF-16BE,
    /// UTF-16LE or replacement).
    ///
    /// ```
    /// use whatenc_encoding_rs::{GBK, REPLACEMENT, UTF_8};
    /// assert_eq!(GBK.new_encoder().encoding(), GBK);
    /// assert_eq!(REPLACEMENT.new_encoder().encoding(), UTF_8);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        Encoding::from_native(self.native.encoding())
    }

    /// Whether this is an ISO-2022-JP encoder whose output is not in the ASCII
    /// state, so that ending the stream writes `ESC ( B`.
    ///
    /// ```
    /// let mut encoder = whatenc_encoding_rs::ISO_2022_JP.new_encoder();
    /// let mut out = [0u8; 16];
    /// let _ = encoder.encode_from_utf8("日", &mut out, false);
    /// assert!(encoder.has_pending_state());
    /// let _ = encoder.encode_from_utf8("", &mut out, true);
    /// assert!(!encoder.has_pending_state());
    /// ```
    pub fn has_pending_state(&self) -> bool {
        self.escaped
    }

    /// Follows ISO-2022-JP's state through output just written: the last escape
    /// sequence in it says which state the output ends in.
    fn track(&mut self, written: &[u8]) {
        if self.native.encoding() != whatenc::ISO_2022_JP {
            return;
        }
        if let Some(at) = written.iter().rposition(|&b| b == 0x1B) {
            self.escaped = written.get(at + 1..at + 3) != Some(b"(B");
        }
    }

    /// The room encoding_rs's encoder wants before a non-ASCII character (and
    /// before any character right after one): the most bytes one character takes
    /// in the encoding. `None` for UTF-8, which wants room for the character itself.
    fn worst(&self) -> Option<usize> {
        match self.native.encoding().name() {
            "UTF-8" => None,
            "gb18030" | "GBK" => Some(4),
            "Big5" | "EUC-JP" | "EUC-KR" | "Shift_JIS" => Some(2),
            "ISO-2022-JP" => Some(3),
            _ => Some(1),
        }
    }

    /// One call of encoding_rs's encoder without replacement, emulated: encodes
    /// `src` into `dst`, stopping for room where encoding_rs does. A call copies
    /// ASCII while there is a byte of room, and wants [`Encoder::worst`] free
    /// before a non-ASCII character, an unmappable one too, and before the
    /// character after a non-ASCII one.
    /// Reads `src` from `from` on; `read` in the result counts from there.
    fn raw<I: Input + ?Sized>(&mut self, src: &I, from: usize, dst: &mut [u8], last: bool) -> EncodeProgress {
        let end = src.units();
        let Some(worst) = self.worst() else {
            let progress = src.encode(from..end, &mut self.native, dst, last);
            self.track(&dst[..progress.written]);
            return progress;
        };
        let mut read = from;
        let mut written = 0;
        let mut middle = false;
        let done = |result, read: usize, written| EncodeProgress { result, read: read - from, written };
        let iso = self.native.encoding() == whatenc::ISO_2022_JP;
        loop {
            if iso && read == end && last && self.escaped {
                // The end of the stream returns to ASCII: `ESC ( B`, a step of its own.
                if dst.len() - written < worst {
                    return done(whatenc::EncoderResult::OutputFull, read, written);
                }
                let progress = src.encode(end..end, &mut self.native, &mut dst[written..], true);
                self.track(&dst[written..written + progress.written]);
                return done(progress.result, read, written + progress.written);
            }
            if read == end {
                if end == from {
                    let progress = src.encode(from..end, &mut self.native, dst, last);
                    self.track(&dst[..progress.written]);
                    return progress;
                }
                return done(whatenc::EncoderResult::InputEmpty, read, written);
            }
            let room = dst.len() - written;
            if room >= worst + BULK {
                // Well within the room: the native bulk encoder, with the worst
                // case of one character kept free so that it stops no later.
                let limit = written + room - worst;
                let progress = src.encode(read..end, &mut self.native, &mut dst[written..limit], last);
                self.track(&dst[written..written + progress.written]);
                read += progress.read;
                written += progress.written;
                if progress.result != whatenc::EncoderResult::OutputFull {
                    return done(progress.result, read, written);
                }
                if progress.read != 0 {
                    middle = !src.ascii_before(read);
                    if self.native.encoding() == whatenc::EUC_KR {
                        // ASCII below 0x3C after a non-ASCII character.
                        let mut at = read;
                        while at > from && src.unit_before(at) < 0x3C {
                            at -= 1;
                        }
                        middle = at > from && !src.ascii_before(at);
                    }
                    continue;
                }
            }
            // Near the end of the room: a character at a time.
            let (len, ascii) = src.char_at(read);
            if iso {
                // ISO-2022-JP wants 3 bytes before every character, and before the
                // escape sequence that may come first, which it writes on its own
                // when there is no room for the character after it.
                if room < worst {
                    return done(whatenc::EncoderResult::OutputFull, read, written);
                }
                let mut trial = self.native.clone();
                let mut staging = [0u8; 8];
                let progress = src.encode(read..read + len, &mut trial, &mut staging, false);
                let out = &staging[..progress.written];
                if progress.read != len || progress.result == whatenc::EncoderResult::OutputFull {
                    return done(whatenc::EncoderResult::OutputFull, read, written);
                }
                // (An ASCII control that the encoding cannot represent, after
                // another state, is such a character too.)
                let escape_first = out.len() >= 3
                    && out[0] == 0x1B
                    && match progress.result {
                        whatenc::EncoderResult::InputEmpty => out.len() > 3,
                        _ => ascii,
                    };
                if escape_first && room < 2 * worst {
                    dst[written..written + 3].copy_from_slice(&out[..3]);
                    self.native.switch_iso_2022_jp_state(&out[..3]);
                    self.track(&out[..3]);
                    return done(whatenc::EncoderResult::OutputFull, read, written + 3);
                }
                self.native = trial;
                dst[written..written + out.len()].copy_from_slice(out);
                self.track(out);
                read += len;
                written += out.len();
                if progress.result != whatenc::EncoderResult::InputEmpty {
                    return done(progress.result, read, written);
                }
                continue;
            }
            let need = if ascii && !middle { 1 } else { worst };
            if room < need {
                return done(whatenc::EncoderResult::OutputFull, read, written);
            }
            let one_last = last && read + len == end;
            let progress = src.encode(read..read + len, &mut self.native, &mut dst[written..], one_last);
            self.track(&dst[written..written + progress.written]);
            read += progress.read;
            written += progress.written;
            if progress.result != whatenc::EncoderResult::InputEmpty || progress.read == 0 {
                return done(progress.result, read, written);
            }
            // EUC-KR: ASCII below 0x3C after a non-ASCII character keeps wanting
            // the worst case.
            let punctuation =
                ascii && middle && self.native.encoding() == whatenc::EUC_KR && src.unit_before(read) < 0x3C;
            middle = !ascii || punctuation;
        }
    }

    /// The shared body of the replacing methods: encoding_rs's, which keeps room
    /// for the longest reference (`&#1114111;`, 10 bytes) free while it encodes
    /// into an encoding that has unmappable characters.
    fn replacing<I: Input + ?Sized>(
        &mut self,
        src: &I,
        dst: &mut [u8],
        last: bool,
    ) -> (CoderResult, usize, usize, bool) {
        let everything = self.encoding().can_encode_everything();
        let effective = if everything {
            dst.len()
        } else if dst.len() < NCR_EXTRA {
            let result = if src.units() == 0 && !(last && self.has_pending_state()) {
                CoderResult::InputEmpty
            } else {
                CoderResult::OutputFull
            };
            return (result, 0, 0, false);
        } else {
            dst.len() - NCR_EXTRA
        };
        let end = src.units();
        let mut read = 0;
        let mut written = 0;
        let mut replaced = false;
        loop {
            let progress = self.raw(src, read, &mut dst[written..effective], last);
            read += progress.read;
            written += progress.written;
            match progress.result {
                whatenc::EncoderResult::InputEmpty => return (CoderResult::InputEmpty, read, written, replaced),
                whatenc::EncoderResult::OutputFull => return (CoderResult::OutputFull, read, written, replaced),
                whatenc::EncoderResult::Unmappable(c) => {
                    replaced = true;
                    written += write_reference(c, &mut dst[written..]);
                    if written >= effective {
                        let result = if read == end && !(last && self.has_pending_state()) {
                            CoderResult::InputEmpty
                        } else {
                            CoderResult::OutputFull
                        };
                        return (result, read, written, replaced);
                    }
                }
            }
        }
    }

    /// The shared body of the `*_without_replacement` methods.
    fn failing<I: Input + ?Sized>(&mut self, src: &I, dst: &mut [u8], last: bool) -> (EncoderResult, usize, usize) {
        let progress = self.raw(src, 0, dst, last);
        (EncoderResult::from_native(progress.result), progress.read, progress.written)
    }

    /// Encodes from UTF-8; each character the encoding cannot represent becomes
    /// `&#N;`. Returns why it stopped, bytes read, bytes written, and whether there
    /// were such characters. Only `dst[..written]` is output.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, WINDOWS_1252};
    /// let mut out = [0u8; 16];
    /// let (result, read, written, replaced) = WINDOWS_1252.new_encoder().encode_from_utf8("€☃", &mut out, true);
    /// assert_eq!((result, read, &out[..written], replaced), (CoderResult::InputEmpty, 6, &b"\x80&#9731;"[..], true));
    /// ```
    pub fn encode_from_utf8(&mut self, src: &str, dst: &mut [u8], last: bool) -> (CoderResult, usize, usize, bool) {
        self.replacing(src, dst, last)
    }

    /// Encodes from UTF-8, stopping after each character the encoding cannot
    /// represent. Returns why it stopped, bytes read and bytes written.
    ///
    /// ```
    /// use whatenc_encoding_rs::{EncoderResult, BIG5};
    /// let mut out = [0u8; 16];
    /// assert_eq!(BIG5.new_encoder().encode_from_utf8_without_replacement("中", &mut out, true), (EncoderResult::InputEmpty, 3, 2));
    /// ```
    pub fn encode_from_utf8_without_replacement(
        &mut self,
        src: &str,
        dst: &mut [u8],
        last: bool,
    ) -> (EncoderResult, usize, usize) {
        self.failing(src, dst, last)
    }

    /// Encodes from UTF-16; each character the encoding cannot represent becomes
    /// `&#N;`. Returns why it stopped, units read, bytes written, and whether there
    /// were such characters.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, SHIFT_JIS};
    /// let mut out = [0u8; 16];
    /// let (result, read, written, replaced) = SHIFT_JIS.new_encoder().encode_from_utf16(&[0x3042, 0xD800], &mut out, true);
    /// assert_eq!((result, read, &out[..written], replaced), (CoderResult::InputEmpty, 2, &b"\x82\xA0&#65533;"[..], true));
    /// ```
    pub fn encode_from_utf16(&mut self, src: &[u16], dst: &mut [u8], last: bool) -> (CoderResult, usize, usize, bool) {
        self.replacing(src, dst, last)
    }

    /// Encodes from UTF-16, stopping after each character the encoding cannot
    /// represent. Returns why it stopped, units read and bytes written.
    ///
    /// ```
    /// use whatenc_encoding_rs::{EncoderResult, UTF_8};
    /// let mut out = [0u8; 16];
    /// assert_eq!(UTF_8.new_encoder().encode_from_utf16_without_replacement(&[0xD83D, 0xDE00], &mut out, true), (EncoderResult::InputEmpty, 2, 4));
    /// ```
    pub fn encode_from_utf16_without_replacement(
        &mut self,
        src: &[u16],
        dst: &mut [u8],
        last: bool,
    ) -> (EncoderResult, usize, usize) {
        self.failing(src, dst, last)
    }

    /// [`Encoder::encode_from_utf8`] appending to a `Vec` within its spare
    /// capacity (it never reallocates). Returns why it stopped, bytes read, and
    /// whether there were references.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, EUC_KR};
    /// let mut out = Vec::with_capacity(16);
    /// assert_eq!(EUC_KR.new_encoder().encode_from_utf8_to_vec("가☃", &mut out, true), (CoderResult::InputEmpty, 6, true));
    /// assert_eq!(out, b"\xB0\xA1&#9731;");
    /// ```
    pub fn encode_from_utf8_to_vec(&mut self, src: &str, dst: &mut Vec<u8>, last: bool) -> (CoderResult, usize, bool) {
        let mut read = 0;
        let mut replaced = false;
        loop {
            let (piece, spare) = self.grow_within_capacity(src.len() - read, dst);
            let start = dst.len() - piece;
            let (result, n, written, had) = self.encode_from_utf8(&src[read..], &mut dst[start..], last);
            dst.truncate(start + written);
            read += n;
            replaced |= had;
            if result == CoderResult::InputEmpty || piece == spare {
                return (result, read, replaced);
            }
        }
    }

    /// [`Encoder::encode_from_utf8_without_replacement`] appending to a `Vec`
    /// within its spare capacity. Returns why it stopped and bytes read.
    ///
    /// ```
    /// use whatenc_encoding_rs::{EncoderResult, KOI8_U};
    /// let mut out = Vec::with_capacity(16);
    /// assert_eq!(KOI8_U.new_encoder().encode_from_utf8_to_vec_without_replacement("ї€", &mut out, true), (EncoderResult::Unmappable('€'), 5));
    /// assert_eq!(out, b"\xA7");
    /// ```
    pub fn encode_from_utf8_to_vec_without_replacement(
        &mut self,
        src: &str,
        dst: &mut Vec<u8>,
        last: bool,
    ) -> (EncoderResult, usize) {
        let mut read = 0;
        loop {
            let (piece, spare) = self.grow_within_capacity(src.len() - read, dst);
            let start = dst.len() - piece;
            let (result, n, written) = self.encode_from_utf8_without_replacement(&src[read..], &mut dst[start..], last);
            dst.truncate(start + written);
            read += n;
            if result != EncoderResult::OutputFull || piece == spare {
                return (result, read);
            }
        }
    }

    /// Zero-fills a piece of `dst`'s spare capacity to encode `rest` more bytes
    /// into: what the text will likely need, not the worst case, so that a large
    /// capacity is not filled for a short text. Returns the piece's length and
    /// the spare capacity before it.
    fn grow_within_capacity(&self, rest: usize, dst: &mut Vec<u8>) -> (usize, usize) {
        let spare = dst.capacity() - dst.len();
        // Enough for any text of `rest` bytes (at most 3.5 bytes for a byte of
        // UTF-8, for U+07FF as `&#2047;`), with room for a reference to spare, so
        // that a piece short of the spare capacity never runs out of room: each
        // call then goes as it would into the whole spare capacity.
        let likely = rest.saturating_mul(4).saturating_add(32);
        let piece = spare.min(likely);
        dst.resize(dst.len() + piece, 0);
        (piece, spare)
    }
}

impl fmt::Debug for Encoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoder").field("encoding", self.encoding()).finish_non_exhaustive()
    }
}
