//! The streaming [`Encoder`].

use alloc::vec::Vec;
use core::fmt;

use crate::codec::{ByteSink, ENCODE_STEP, EncodeStatus, EncoderCodec, Source, StrSource, Utf16Source};
use crate::encoding::Encoding;

/// An encoder's error mode: what a scalar value the encoding cannot represent becomes.
///
/// ```
/// use whatenc::{EncoderErrorMode, EncoderResult, WINDOWS_1252};
/// let mut encoder = WINDOWS_1252.new_encoder_with(EncoderErrorMode::Fatal).unwrap();
/// let mut out = [0u8; 16];
/// let progress = encoder.encode_from_utf8("a☃", &mut out, true);
/// assert_eq!(progress.result, EncoderResult::Unmappable('☃'));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum EncoderErrorMode {
    /// "fatal": the encoder returns [`EncoderResult::Unmappable`]; the caller may go on.
    #[default]
    Fatal,
    /// "html": the scalar value is written as a decimal reference `&#N;`.
    Html,
}

/// The error for an encoding that has no encoder (replacement, UTF-16BE, UTF-16LE).
///
/// ```
/// let error = whatenc::REPLACEMENT.new_encoder().unwrap_err();
/// assert_eq!(error.to_string(), "the replacement encoding has no encoder");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NoEncoder {
    /// The encoding asked for.
    pub encoding: &'static Encoding,
}

impl fmt::Display for NoEncoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} encoding has no encoder", self.encoding.name())
    }
}

impl core::error::Error for NoEncoder {}

/// Why an encoding call returned.
///
/// ```
/// use whatenc::EncoderResult;
/// let mut out = [0u8; 1];
/// let progress = whatenc::UTF_8.new_encoder().unwrap().encode_from_utf8("é", &mut out, true);
/// assert_eq!(progress.result, EncoderResult::OutputFull);
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EncoderResult {
    /// All the input was consumed (and, with `last`, the stream has ended).
    InputEmpty,
    /// The output buffer has no room for the next step; call again with more room.
    OutputFull,
    /// "fatal" mode only: this scalar value cannot be encoded. It was consumed: it is
    /// the last scalar value of the `read` units. Call again with the rest to go on.
    Unmappable(char),
}

/// What an encoding call did: why it returned, units read, and bytes written.
///
/// ```
/// let mut out = [0u8; 8];
/// let progress = whatenc::EUC_KR.new_encoder().unwrap().encode_from_utf8("가", &mut out, true);
/// assert_eq!((progress.read, progress.written), (3, 2));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EncodeProgress {
    /// Why the call returned.
    pub result: EncoderResult,
    /// Units of input consumed: bytes for `&str`, code units for UTF-16.
    pub read: usize,
    /// Bytes of output written.
    pub written: usize,
}

/// A streaming encoder: text in, bytes of one encoding out.
///
/// # The streaming contract
///
/// Every `encode_from_*` method takes text, an output buffer and a flag `last`, and
/// returns an [`EncodeProgress`]: why it returned, how many units it read, and how
/// many bytes it wrote.
///
/// - The text may be cut at any scalar value; UTF-16 input may even be cut between
///   the two halves of a surrogate pair (the encoder keeps the leading half). A lone
///   surrogate is encoded as U+FFFD.
/// - The output holds only whole steps of the encoder: a character's bytes (with any
///   escape sequence it needs) are written whole or not at all.
/// - Only `dst[..written]` is output: the bulk kernels store whole vectors, so up to
///   16 bytes after it may have been overwritten.
/// - The call returns when all input is consumed ([`EncoderResult::InputEmpty`]),
///   when the next step does not fit ([`EncoderResult::OutputFull`]), or, in "fatal"
///   mode, right after an unmappable scalar value ([`EncoderResult::Unmappable`]).
///   Call again with the unread rest of the input to go on. ISO-2022-JP's state after
///   an error is exactly the standard's.
/// - Pass `last = true` with the final piece of text and call until `InputEmpty`:
///   ISO-2022-JP then returns to ASCII. For another stream, make a new encoder.
/// - A buffer of [`Encoder::max_buffer_length_from_utf8`] (or `_from_utf16`) is
///   always enough for one call; with at least 14 bytes of room, every call makes
///   progress.
///
/// ```
/// use whatenc::{EncoderErrorMode, EncoderResult, ISO_2022_JP};
/// let mut encoder = ISO_2022_JP.new_encoder_with(EncoderErrorMode::Html).unwrap();
/// let mut out = [0u8; 32];
/// let progress = encoder.encode_from_utf8("a日", &mut out, true);
/// assert_eq!(progress.result, EncoderResult::InputEmpty);
/// assert_eq!(&out[..progress.written], b"a\x1B$BF|\x1B(B");
/// ```
#[derive(Debug, Clone)]
pub struct Encoder {
    encoding: &'static Encoding,
    mode: EncoderErrorMode,
    codec: EncoderCodec,
    /// A leading surrogate that ended the previous UTF-16 input.
    pending_lead: Option<u16>,
    /// Whether "html" mode wrote a reference since [`Encoder::take_unmappable`].
    had_unmappable: bool,
}

impl Encoder {
    pub(crate) fn new(encoding: &'static Encoding, mode: EncoderErrorMode) -> Result<Encoder, NoEncoder> {
        let codec = EncoderCodec::new(encoding).ok_or(NoEncoder { encoding })?;
        Ok(Encoder { encoding, mode, codec, pending_lead: None, had_unmappable: false })
    }

    /// For whatenc-encoding-rs: an ISO-2022-JP encoder takes the state that the
    /// escape sequence `escape` (`ESC ( B`, `ESC ( J` or `ESC $ B`) switches to, as
    /// if it had written it itself (the caller has). Returns false, changing
    /// nothing, for any other encoder or bytes. Not part of the stable API.
    #[doc(hidden)]
    pub fn switch_iso_2022_jp_state(&mut self, escape: &[u8]) -> bool {
        match &mut self.codec {
            EncoderCodec::Iso2022Jp(codec) => codec.switch_to(escape),
            _ => false,
        }
    }

    /// The encoding this encoder writes.
    ///
    /// ```
    /// assert_eq!(whatenc::GBK.new_encoder().unwrap().encoding(), whatenc::GBK);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// The error mode.
    ///
    /// ```
    /// assert_eq!(whatenc::GBK.new_encoder().unwrap().mode(), whatenc::EncoderErrorMode::Fatal);
    /// ```
    pub fn mode(&self) -> EncoderErrorMode {
        self.mode
    }

    /// Changes the error mode (for `encode_or_fail`, which always runs "fatal").
    pub(crate) fn set_mode(&mut self, mode: EncoderErrorMode) {
        self.mode = mode;
    }

    /// The output length that is always enough for encoding `byte_length` more
    /// bytes of UTF-8 in one call (in this encoder's mode and state), or `None` on
    /// overflow.
    ///
    /// ```
    /// use whatenc::{EncoderErrorMode, EncoderResult, ISO_2022_JP};
    /// // The worst input: ISO-2022-JP in "html" mode writes `&#65533;` for each ESC.
    /// let mut encoder = ISO_2022_JP.new_encoder_with(EncoderErrorMode::Html).unwrap();
    /// let text = "\u{1B}".repeat(100);
    /// let mut out = vec![0; encoder.max_buffer_length_from_utf8(text.len()).unwrap()];
    /// let progress = encoder.encode_from_utf8(&text, &mut out, true);
    /// assert_eq!((progress.result, progress.read, progress.written), (EncoderResult::InputEmpty, 100, 800));
    /// ```
    pub fn max_buffer_length_from_utf8(&self, byte_length: usize) -> Option<usize> {
        // At most 4 bytes per UTF-8 byte: a one-byte character is one byte, or ESC ( B
        // and one byte when ISO-2022-JP must return to ASCII; a longer one is at most
        // an escape sequence and two bytes, or a reference (`&#2047;` for two bytes,
        // `&#1114111;` for four), of which ISO-2022-JP's escape is amortised by the
        // character that left ASCII. The exception: in "html" mode ISO-2022-JP
        // writes `&#65533;` (8 bytes) for each U+000E, U+000F and U+001B.
        let per_byte = if self.references_control_codes() { 8 } else { 4 };
        byte_length.checked_mul(per_byte)?.checked_add(ENCODE_ALLOWANCE)
    }

    /// The output length that is always enough for encoding `unit_length` more
    /// UTF-16 code units in one call (in this encoder's mode and state), or `None`
    /// on overflow.
    ///
    /// ```
    /// use whatenc::{EncoderErrorMode, EncoderResult, SHIFT_JIS};
    /// let mut encoder = SHIFT_JIS.new_encoder_with(EncoderErrorMode::Html).unwrap();
    /// let text: Vec<u16> = "\u{FFFF}".repeat(10).encode_utf16().collect();
    /// let mut out = vec![0; encoder.max_buffer_length_from_utf16(text.len()).unwrap()];
    /// let progress = encoder.encode_from_utf16(&text, &mut out, true);
    /// assert_eq!((progress.result, progress.written), (EncoderResult::InputEmpty, 80));
    /// ```
    pub fn max_buffer_length_from_utf16(&self, unit_length: usize) -> Option<usize> {
        // "ESC ( B" then "&#65535;" for one unit at most; the allowance covers a held
        // leading surrogate and the end of the stream.
        unit_length.checked_mul(11)?.checked_add(ENCODE_ALLOWANCE)
    }

    /// Whether one-byte characters can become references: ISO-2022-JP in "html"
    /// mode, where U+000E, U+000F and U+001B are errors.
    fn references_control_codes(&self) -> bool {
        matches!(self.codec, EncoderCodec::Iso2022Jp(_)) && self.mode == EncoderErrorMode::Html
    }

    /// Encodes from `&str`; `read` counts bytes. See the streaming contract on [`Encoder`].
    ///
    /// ```
    /// let mut out = [0u8; 8];
    /// let progress = whatenc::BIG5.new_encoder().unwrap().encode_from_utf8("中", &mut out, true);
    /// assert_eq!(&out[..progress.written], b"\xA4\xA4");
    /// ```
    pub fn encode_from_utf8(&mut self, src: &str, dst: &mut [u8], last: bool) -> EncodeProgress {
        let mut written = 0;
        if self.pending_lead.is_some() && (!src.is_empty() || last) {
            // A leading surrogate held from UTF-16 input, followed by text (which is
            // not its trail) or by the end: it was alone, so it is U+FFFD. An empty
            // `&str` in the middle of the stream changes nothing.
            match self.encode_held_lead(None, dst) {
                Ok(n) => written = n,
                Err(progress) => return progress,
            }
        }
        let dst = &mut dst[written..];
        // UTF-8 to UTF-8 with room for all of it: one copy, without the step loop
        // (what `run` would do, as the UTF-8 encoder has no state or errors).
        if let (EncoderCodec::Utf8(_), Some(out)) = (&self.codec, dst.get_mut(..src.len())) {
            crate::simd::copy_bytes(src.as_bytes(), out);
            let progress = EncodeProgress { result: EncoderResult::InputEmpty, read: src.len(), written: src.len() };
            return EncodeProgress { written: written + progress.written, ..progress };
        }
        let mut source = StrSource::new(src);
        let (result, n) = self.run(&mut source, dst, last);
        EncodeProgress { result, read: source.consumed(), written: written + n }
    }

    /// Encodes the leading surrogate held from the previous UTF-16 input, with its
    /// trailing surrogate `trail`, or as U+FFFD when it has none. `Ok` with the bytes
    /// written when it is done and the caller goes on; `Err` with the progress to
    /// return when the output is full (the lead stays held) or, in "fatal" mode, when
    /// it was unmappable (the lead is consumed, and `read` is 1 if `trail` was taken).
    fn encode_held_lead(&mut self, trail: Option<u16>, dst: &mut [u8]) -> Result<usize, EncodeProgress> {
        let lead = self.pending_lead.expect("a held leading surrogate");
        let pair;
        let head: &[u16] = match trail {
            Some(trail) => {
                pair = [lead, trail];
                &pair
            }
            None => &[0xFFFD],
        };
        let mut source = Utf16Source::new(head);
        let (result, written) = self.run(&mut source, dst, false);
        if source.remaining() != 0 {
            return Err(EncodeProgress { result, read: 0, written });
        }
        self.pending_lead = None;
        match result {
            EncoderResult::Unmappable(_) => Err(EncodeProgress { result, read: usize::from(trail.is_some()), written }),
            _ => Ok(written),
        }
    }

    /// Encodes from UTF-16; `read` counts code units. A lone surrogate is encoded as
    /// U+FFFD; a leading surrogate at the end of non-`last` input waits for the next
    /// call. See the streaming contract on [`Encoder`].
    ///
    /// ```
    /// let mut encoder = whatenc::UTF_8.new_encoder().unwrap();
    /// let mut out = [0u8; 8];
    /// let first = encoder.encode_from_utf16(&[0x61, 0xD83D], &mut out, false);
    /// let second = encoder.encode_from_utf16(&[0xDE00], &mut out[first.written..], true);
    /// assert_eq!(&out[..first.written + second.written], "a😀".as_bytes());
    /// ```
    pub fn encode_from_utf16(&mut self, src: &[u16], dst: &mut [u8], last: bool) -> EncodeProgress {
        let mut read = 0;
        let mut written = 0;
        if self.pending_lead.is_some() {
            let trail = match src.first() {
                Some(&trail @ 0xDC00..=0xDFFF) => Some(trail),
                None if !last => return EncodeProgress { result: EncoderResult::InputEmpty, read, written },
                // The held leading surrogate was alone after all.
                _ => None,
            };
            match self.encode_held_lead(trail, dst) {
                Ok(n) => written = n,
                Err(progress) => return progress,
            }
            read = usize::from(trail.is_some());
        }
        let mut body = &src[read..];
        let mut hold = None;
        if !last && let Some(&unit @ 0xD800..=0xDBFF) = body.last() {
            hold = Some(unit);
            body = &body[..body.len() - 1];
        }
        let mut source = Utf16Source::new(body);
        let (result, n) = self.run(&mut source, &mut dst[written..], last);
        written += n;
        read += source.consumed();
        if result == EncoderResult::InputEmpty && hold.is_some() {
            self.pending_lead = hold;
            read += 1;
        }
        EncodeProgress { result, read, written }
    }

    /// Encodes all of `src` as the rest of the stream, appending to `dst` and
    /// growing it as needed. Returns whether any scalar value was unmappable (in
    /// "html" mode these became references; in "fatal" mode it stops at the first).
    pub(crate) fn encode_all(&mut self, src: &str, dst: &mut Vec<u8>) -> bool {
        let mut read = 0;
        loop {
            let (result, n) = self.encode_from_utf8_to_vec(&src[read..], dst, true);
            read += n;
            match result {
                EncoderResult::InputEmpty => return self.take_unmappable(),
                EncoderResult::Unmappable(_) => return true,
                EncoderResult::OutputFull => {}
            }
        }
    }

    /// Encodes from `&str`, appending to a `Vec` that grows as needed, so the result is
    /// never [`EncoderResult::OutputFull`]. Returns the result and the bytes read.
    ///
    /// ```
    /// let mut encoder = whatenc::GB18030.new_encoder().unwrap();
    /// let mut out = Vec::new();
    /// let (result, read) = encoder.encode_from_utf8_to_vec("€", &mut out, true);
    /// assert_eq!((result, read), (whatenc::EncoderResult::InputEmpty, 3));
    /// assert_eq!(out, b"\xA2\xE3");
    /// ```
    pub fn encode_from_utf8_to_vec(&mut self, src: &str, dst: &mut Vec<u8>, last: bool) -> (EncoderResult, usize) {
        let mut read = 0;
        loop {
            let old_len = dst.len();
            // The piece is zero-filled before encoding into it: size it for what the
            // text will likely need (legacy encodings never take more bytes than UTF-8
            // except for escapes and references), not the worst case; OutputFull loops.
            let rest = src.len() - read;
            let worst = self.max_buffer_length_from_utf8(rest).unwrap_or(usize::MAX);
            let likely = rest.saturating_add(rest / 8).saturating_add(ENCODE_STEP * 2);
            dst.resize(old_len + worst.min(likely).min(1 << 20), 0);
            let progress = self.encode_from_utf8(&src[read..], &mut dst[old_len..], last);
            dst.truncate(old_len + progress.written);
            read += progress.read;
            if progress.result != EncoderResult::OutputFull {
                return (progress.result, read);
            }
        }
    }

    /// Whether an unmappable scalar value became a reference since the last call of
    /// this method ("html" mode).
    ///
    /// ```
    /// let mut encoder = whatenc::WINDOWS_1252.new_encoder_with(whatenc::EncoderErrorMode::Html).unwrap();
    /// let mut out = Vec::new();
    /// let _ = encoder.encode_from_utf8_to_vec("☃", &mut out, true);
    /// assert!(encoder.take_unmappable());
    /// assert_eq!(out, b"&#9731;");
    /// ```
    pub fn take_unmappable(&mut self) -> bool {
        core::mem::take(&mut self.had_unmappable)
    }

    /// The shared body of the `encode_from_*` methods.
    fn run<S: Source>(&mut self, src: &mut S, dst: &mut [u8], last: bool) -> (EncoderResult, usize) {
        let mut written = 0;
        // Set when a handler run made no progress although the room looked enough;
        // the next run then goes through the staging path, which always progresses.
        let mut stalled = false;
        loop {
            let room = dst.len() - written;
            let status = if room >= ENCODE_STEP && !stalled {
                let consumed_before = src.consumed();
                let mut sink = ByteSink::new(&mut dst[written..]);
                let status = match self.mode {
                    EncoderErrorMode::Html => self.codec.encode_html(src, &mut sink, last, &mut self.had_unmappable),
                    EncoderErrorMode::Fatal => self.codec.encode(src, &mut sink, last),
                };
                let progress = sink.written() != 0 || src.consumed() != consumed_before;
                written += sink.written();
                stalled = status == EncodeStatus::OutputFull && !progress;
                status
            } else {
                stalled = false;
                // Nearly full: one scalar value at a time into a staging buffer,
                // kept only if its whole output fits.
                let saved = self.codec.clone();
                let mut staging = [0u8; ENCODE_STEP];
                let mut head = src.head();
                let head_last = last && head.remaining() == src.remaining();
                let mut sink = ByteSink::new(&mut staging);
                let status = self.codec.encode(&mut head, &mut sink, head_last);
                if let (EncodeStatus::Unmappable(c), EncoderErrorMode::Html) = (status, self.mode) {
                    sink.push_reference(c);
                }
                let produced = sink.written();
                if produced > room {
                    self.codec = saved;
                    return (EncoderResult::OutputFull, written);
                }
                if let (EncodeStatus::Unmappable(_), EncoderErrorMode::Html) = (status, self.mode) {
                    self.had_unmappable = true;
                }
                dst[written..written + produced].copy_from_slice(&staging[..produced]);
                written += produced;
                src.advance(head.consumed());
                match status {
                    EncodeStatus::InputEmpty if src.remaining() != 0 => EncodeStatus::OutputFull,
                    other => other,
                }
            };
            match status {
                EncodeStatus::InputEmpty => return (EncoderResult::InputEmpty, written),
                EncodeStatus::OutputFull => continue,
                EncodeStatus::Unmappable(c) => match self.mode {
                    EncoderErrorMode::Fatal => return (EncoderResult::Unmappable(c), written),
                    EncoderErrorMode::Html => continue,
                },
            }
        }
    }
}

/// What [`Encoder::max_buffer_length_from_utf8`] and its UTF-16 twin add to the
/// per-unit bound: a held leading surrogate as `ESC ( B &#65533;` (11 bytes), the
/// `ESC ( B` that ends an ISO-2022-JP stream (3), and the staging of one step.
const ENCODE_ALLOWANCE: usize = 11 + 3 + ENCODE_STEP;

#[cfg(test)]
mod tests {
    use crate::{EncoderResult, UTF_8};

    /// `text` (from `&str`, or from UTF-16) into windows-1252 in the "html" mode, in
    /// calls with buffers of `room` bytes until all of it is read.
    fn windows_1252_html(text: &str, utf16: bool, room: usize) -> alloc::vec::Vec<u8> {
        let units: alloc::vec::Vec<u16> = text.encode_utf16().collect();
        let mut encoder = crate::WINDOWS_1252.new_encoder_with(crate::EncoderErrorMode::Html).unwrap();
        let (mut out, mut read) = (alloc::vec::Vec::new(), 0);
        loop {
            let mut buf = alloc::vec![0u8; room];
            let progress = if utf16 {
                encoder.encode_from_utf16(&units[read..], &mut buf, true)
            } else {
                encoder.encode_from_utf8(&text[read..], &mut buf, true)
            };
            out.extend_from_slice(&buf[..progress.written]);
            read += progress.read;
            if progress.result == EncoderResult::InputEmpty {
                assert_eq!(read, if utf16 { units.len() } else { text.len() });
                return out;
            }
        }
    }

    /// The "html" mode's references, of every length a scalar value's decimal can
    /// have past ASCII (3 to 7 digits), between mappable text, from `&str` and from
    /// UTF-16, with buffers of 14 bytes (a step's room) to 63.
    #[test]
    fn html_references_of_every_length() {
        let text = "a\u{3B1}b\u{3C9}\u{4E2D}x\u{1F600}\u{10FFFD}y\u{E9}\u{2603}";
        let mut expected = alloc::string::String::new();
        for c in text.chars() {
            match c {
                'a' | 'b' | 'x' | 'y' => expected.push(c),
                '\u{E9}' => expected.push('\u{FFFD}'),
                _ => expected.push_str(&alloc::format!("&#{};", c as u32)),
            }
        }
        for room in 14..64 {
            for utf16 in [false, true] {
                let out = windows_1252_html(text, utf16, room);
                // é is 0xE9 in windows-1252, shown here as U+FFFD to keep `out` text.
                let shown: alloc::string::String =
                    out.iter().map(|&b| if b == 0xE9 { '\u{FFFD}' } else { char::from(b) }).collect();
                assert_eq!(shown, expected, "room {room}, UTF-16 {utf16}");
            }
        }
    }

    /// Text that mixes characters windows-1252 has (ASCII, U+0000, Latin-1 letters, š) with
    /// others, in runs of every length up to a few blocks, from `&str` and from
    /// UTF-16 into buffers of 14 to 90 bytes: the same bytes as one call with room
    /// for all, and the same from both forms.
    #[test]
    fn html_mixed_text_at_every_room() {
        let pieces = ["ab", "\u{11B}", "cd\0éf", "\u{10D}\u{159}", "š", " ", "xyzäöü", "\u{4E2D}", "\u{1F600}", "Ž"];
        let mut text = alloc::string::String::new();
        for i in 0..160 {
            text.push_str(pieces[i * 7 % pieces.len()]);
            for _ in 0..i % 23 {
                text.push(if i % 2 == 0 { 'e' } else { '\u{E9}' });
            }
        }
        let encode = |utf16: bool, room: usize| windows_1252_html(&text, utf16, room);
        let whole = encode(false, 16 * text.len());
        assert!(whole.windows(8).any(|w| w == b"&#20013;"), "references were written");
        assert_eq!(encode(true, 16 * text.len()), whole);
        for room in 14..90 {
            assert_eq!(encode(false, room), whole, "&str, room {room}");
            assert_eq!(encode(true, room), whole, "UTF-16, room {room}");
        }
    }

    /// UTF-8 from `&str` with room for all of it is one copy; with less room, the
    /// step loop stops at a character boundary. Both agree at every room.
    #[test]
    fn utf8_from_str_at_every_room() {
        let text = "aé€😀b";
        for room in 0..=text.len() + 2 {
            let mut out = alloc::vec![0u8; room];
            let mut encoder = UTF_8.new_encoder().unwrap();
            let progress = encoder.encode_from_utf8(text, &mut out, true);
            let fits = (0..=room.min(text.len())).rev().find(|&n| text.is_char_boundary(n)).unwrap_or(0);
            assert_eq!((progress.read, progress.written), (fits, fits), "room {room}");
            assert_eq!(&out[..fits], &text.as_bytes()[..fits], "room {room}");
            let expected = if fits == text.len() { EncoderResult::InputEmpty } else { EncoderResult::OutputFull };
            assert_eq!(progress.result, expected, "room {room}");
        }
    }
}
