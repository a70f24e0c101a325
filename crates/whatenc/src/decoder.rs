//! The streaming [`Decoder`].

use alloc::string::String;
use core::fmt;

use crate::codec::{DecoderCodec, Replaced, Sink, Status, Utf8Sink, Utf16Sink};
use crate::encoding::Encoding;

/// A decoder's error mode: what an error in the input becomes.
///
/// ```
/// use whatenc::{DecoderOptions, ErrorMode, UTF_8};
/// let mut decoder = UTF_8.new_decoder_with(DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() });
/// let mut out = [0u8; 8];
/// assert!(decoder.decode_to_utf8(b"\xFF", &mut out, true).result.is_malformed());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ErrorMode {
    /// "replacement": each error becomes U+FFFD and decoding goes on.
    #[default]
    Replacement,
    /// "fatal": each error is reported as [`DecoderResult::Malformed`]; the caller
    /// may go on decoding after it.
    Fatal,
}

/// What a decoder does with a byte order mark at the start of the stream.
///
/// ```
/// use whatenc::{BomHandling, DecoderOptions, WINDOWS_1252, UTF_16BE};
/// let mut decoder = WINDOWS_1252.new_decoder_with(DecoderOptions { bom: BomHandling::Sniff, ..Default::default() });
/// let mut out = [0u8; 8];
/// let progress = decoder.decode_to_utf8(b"\xFE\xFF\x00A", &mut out, true);
/// assert_eq!(&out[..progress.written], b"A");
/// assert_eq!(decoder.encoding(), UTF_16BE);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum BomHandling {
    /// The bytes of a BOM are input like any other: the standard's bare decoder.
    #[default]
    None,
    /// "BOM sniff", as the standard's `decode` hook does: a UTF-8, UTF-16BE or
    /// UTF-16LE BOM overrides the decoder's encoding and is removed.
    Sniff,
    /// A BOM of the decoder's own encoding (UTF-8, UTF-16BE or UTF-16LE) is removed,
    /// as the standard's "UTF-8 decode" does for UTF-8; other bytes are left alone.
    Remove,
}

/// How to make a [`Decoder`].
///
/// ```
/// use whatenc::{BomHandling, DecoderOptions, ErrorMode};
/// let options = DecoderOptions { mode: ErrorMode::Fatal, bom: BomHandling::Remove };
/// assert_eq!(whatenc::UTF_8.new_decoder_with(options).mode(), ErrorMode::Fatal);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct DecoderOptions {
    /// The error mode; "replacement" by default.
    pub mode: ErrorMode,
    /// BOM handling; none by default.
    pub bom: BomHandling,
}

/// Where a malformed byte sequence is, in "fatal" mode.
///
/// ```
/// let error = whatenc::SHIFT_JIS.decode_or_fail(b"ab\x81").unwrap_err();
/// assert_eq!((error.offset, error.len), (2, 1));
/// assert_eq!(error.to_string(), "malformed input at byte offset 2 (1 byte)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecodeError {
    /// Offset, from the start of the stream, of the first byte of the sequence.
    pub offset: u64,
    /// The number of bytes in the malformed sequence (0 to 4; a BOM-less
    /// replacement-encoding error counts its first byte).
    pub len: u8,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.len == 1 { "byte" } else { "bytes" };
        write!(f, "malformed input at byte offset {} ({} {unit})", self.offset, self.len)
    }
}

impl core::error::Error for DecodeError {}

/// Why a decoding call returned.
///
/// ```
/// use whatenc::DecoderResult;
/// let mut out = [0u8; 1];
/// let progress = whatenc::UTF_8.new_decoder().decode_to_utf8("é".as_bytes(), &mut out, true);
/// assert_eq!(progress.result, DecoderResult::OutputFull);
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecoderResult {
    /// All the input was consumed (and, with `last`, the stream has ended).
    InputEmpty,
    /// The output buffer has no room for the next character; call again with more room.
    OutputFull,
    /// "fatal" mode only: a malformed sequence, consumed. Call again with the rest of
    /// the input to go on.
    Malformed(DecodeError),
}

impl DecoderResult {
    /// Whether this is [`DecoderResult::Malformed`].
    ///
    /// ```
    /// assert!(!whatenc::DecoderResult::InputEmpty.is_malformed());
    /// ```
    pub fn is_malformed(&self) -> bool {
        matches!(self, DecoderResult::Malformed(_))
    }
}

/// What a decoding call did: why it returned, bytes read, and units written.
///
/// ```
/// let mut out = [0u16; 4];
/// let progress = whatenc::UTF_8.new_decoder().decode_to_utf16(b"hi", &mut out, true);
/// assert_eq!((progress.read, progress.written), (2, 2));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecodeProgress {
    /// Why the call returned.
    pub result: DecoderResult,
    /// Bytes of input consumed.
    pub read: usize,
    /// Units of output written: bytes for UTF-8 outputs, code units for UTF-16.
    pub written: usize,
}

/// The state of BOM handling.
#[derive(Debug, Clone)]
enum BomState {
    Done,
    Pending { buf: [u8; 3], len: u8 },
}

/// Bytes the decoder took in but has still to hand to the codec (what BOM handling
/// held back and found not to be a BOM).
#[derive(Debug, Clone, Default)]
struct Replay {
    buf: [u8; 3],
    start: u8,
    end: u8,
}

/// A streaming decoder: bytes of one encoding in, UTF-8 or UTF-16 out.
///
/// # The streaming contract
///
/// Every `decode_to_*` method takes a slice of input, an output buffer and a flag
/// `last`, and returns a [`DecodeProgress`]: why it returned, how many bytes it
/// read, and how many units it wrote.
///
/// - The input may be cut anywhere, even inside a character; the decoder keeps what
///   it needs. An empty slice in the middle of a stream changes nothing.
/// - The output is never cut inside a character: what is written is always whole
///   scalar values (valid UTF-8 or valid UTF-16).
/// - Only `dst[..written]` is output: the bulk kernels store whole words and
///   vectors, so up to 16 units after it may have been overwritten (UTF-16), or up
///   to 128 bytes (UTF-8, where the validation fused with the copy stores whole
///   blocks). [`Decoder::decode_to_str`] and [`Decoder::decode_to_string`] keep the
///   rest of their `str` valid.
/// - The call returns when all the input is consumed ([`DecoderResult::InputEmpty`]),
///   when the next character does not fit ([`DecoderResult::OutputFull`]), or, in
///   "fatal" mode, right after a malformed sequence ([`DecoderResult::Malformed`]).
///   After `OutputFull` or `Malformed`, call again with the unread rest of the input.
/// - Pass `last = true` with the final piece of input (it may be empty) and keep
///   calling until the result is `InputEmpty`: that processes end-of-queue, where a
///   truncated sequence is one error. For another stream, make a new decoder.
/// - A buffer of [`Decoder::max_utf8_buffer_length`] (or the UTF-16 twin) for the
///   input length is always enough for one call to consume all input. A smaller one
///   works too; with at least 4 bytes (UTF-8) or 2 units (UTF-16) of room, every
///   call makes progress.
///
/// ```
/// use whatenc::{DecoderResult, SHIFT_JIS};
/// let mut decoder = SHIFT_JIS.new_decoder();
/// let mut out = String::with_capacity(64);
/// // "日本{" and a truncated lead byte, cut inside "日" and inside "本".
/// for (chunk, last) in [(&b"\x93"[..], false), (&b"\xfa\x96"[..], false), (&b"\x7b{\x9e"[..], true)] {
///     let progress = decoder.decode_to_string(chunk, &mut out, last);
///     assert_eq!(progress.result, DecoderResult::InputEmpty);
/// }
/// assert_eq!(out, "日本{\u{FFFD}");
/// ```
#[derive(Debug, Clone)]
pub struct Decoder {
    encoding: &'static Encoding,
    options: DecoderOptions,
    codec: DecoderCodec,
    bom: BomState,
    replay: Replay,
    /// Bytes of the stream the codec has consumed (plus BOM bytes removed).
    fed: u64,
    /// In "replacement" mode, the first error since [`Decoder::take_first_error`].
    first_error: Option<DecodeError>,
}

/// An output unit of a decoder: `u8` for UTF-8, `u16` for UTF-16.
pub(crate) trait OutputUnit: Copy + Default {
    type Sink<'a>: Sink
    where
        Self: 'a;
    fn sink(buf: &mut [Self]) -> Self::Sink<'_>;
    /// Writes U+FFFD at the start of `buf` (which has room); returns its length.
    fn replacement(buf: &mut [Self]) -> usize;
}

impl OutputUnit for u8 {
    type Sink<'a> = Utf8Sink<'a>;
    fn sink(buf: &mut [u8]) -> Utf8Sink<'_> {
        Utf8Sink::new(buf)
    }
    #[inline]
    fn replacement(buf: &mut [u8]) -> usize {
        buf[..3].copy_from_slice("\u{FFFD}".as_bytes());
        3
    }
}

impl OutputUnit for u16 {
    type Sink<'a> = Utf16Sink<'a>;
    fn sink(buf: &mut [u16]) -> Utf16Sink<'_> {
        Utf16Sink::new(buf)
    }
    #[inline]
    fn replacement(buf: &mut [u16]) -> usize {
        buf[0] = 0xFFFD;
        1
    }
}

/// The most units a decoder's pending state and held-back bytes can add to the
/// output beyond one unit per input byte (UTF-16) or three (UTF-8).
const PENDING_ALLOWANCE: usize = 8;

impl Decoder {
    pub(crate) fn new(encoding: &'static Encoding, options: DecoderOptions) -> Decoder {
        let bom = match options.bom {
            BomHandling::None => BomState::Done,
            BomHandling::Sniff | BomHandling::Remove => BomState::Pending { buf: [0; 3], len: 0 },
        };
        Decoder {
            encoding,
            options,
            codec: DecoderCodec::new(encoding),
            bom,
            replay: Replay::default(),
            fed: 0,
            first_error: None,
        }
    }

    /// The encoding being decoded: the one the decoder was made for, or the one a
    /// sniffed BOM chose.
    ///
    /// ```
    /// assert_eq!(whatenc::BIG5.new_decoder().encoding(), whatenc::BIG5);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// The error mode.
    ///
    /// ```
    /// assert_eq!(whatenc::BIG5.new_decoder().mode(), whatenc::ErrorMode::Replacement);
    /// ```
    pub fn mode(&self) -> ErrorMode {
        self.options.mode
    }

    /// The options the decoder was made with.
    ///
    /// ```
    /// assert_eq!(whatenc::BIG5.new_decoder().options(), whatenc::DecoderOptions::default());
    /// ```
    pub fn options(&self) -> DecoderOptions {
        self.options
    }

    /// The UTF-8 output length that is always enough for decoding `byte_length`
    /// more bytes in one call, or `None` if it overflows `usize`.
    ///
    /// ```
    /// let decoder = whatenc::GBK.new_decoder();
    /// assert!(decoder.max_utf8_buffer_length(100).unwrap() >= 300);
    /// ```
    pub fn max_utf8_buffer_length(&self, byte_length: usize) -> Option<usize> {
        byte_length.checked_add(PENDING_ALLOWANCE)?.checked_mul(3)
    }

    /// The UTF-16 output length that is always enough for decoding `byte_length`
    /// more bytes in one call, or `None` if it overflows `usize`.
    ///
    /// ```
    /// let decoder = whatenc::UTF_16LE.new_decoder();
    /// assert!(decoder.max_utf16_buffer_length(100).unwrap() >= 100);
    /// ```
    pub fn max_utf16_buffer_length(&self, byte_length: usize) -> Option<usize> {
        byte_length.checked_add(PENDING_ALLOWANCE)
    }

    /// Decodes into UTF-8 bytes. See the streaming contract on [`Decoder`].
    ///
    /// ```
    /// let mut out = [0u8; 8];
    /// let progress = whatenc::KOI8_R.new_decoder().decode_to_utf8(b"\xC1", &mut out, true);
    /// assert_eq!(&out[..progress.written], "а".as_bytes());
    /// ```
    pub fn decode_to_utf8(&mut self, src: &[u8], dst: &mut [u8], last: bool) -> DecodeProgress {
        self.run(src, dst, last)
    }

    /// Decodes into UTF-16 code units. See the streaming contract on [`Decoder`].
    ///
    /// ```
    /// let mut out = [0u16; 8];
    /// let progress = whatenc::UTF_8.new_decoder().decode_to_utf16("😀".as_bytes(), &mut out, true);
    /// assert_eq!(&out[..progress.written], &[0xD83D, 0xDE00]);
    /// ```
    pub fn decode_to_utf16(&mut self, src: &[u8], dst: &mut [u16], last: bool) -> DecodeProgress {
        self.settle_bom(src);
        if dst.len() >= src.len() && self.takes_utf8_verbatim() {
            // UTF-8 with room for all of it, before the set-up of the general loop
            // (which short calls notice): the valid prefix, and then the rest (an
            // error or a sequence cut by the end) as usual.
            let (read, written) = crate::simd::utf8_prefix_to_utf16(src, dst);
            self.fed += read as u64;
            if read == src.len() {
                return DecodeProgress { result: DecoderResult::InputEmpty, read, written };
            }
            let rest = self.run(&src[read..], &mut dst[written..], last);
            return DecodeProgress { read: read + rest.read, written: written + rest.written, ..rest };
        }
        self.run(src, dst, last)
    }

    /// Decodes into the start of a `&mut str`; `written` counts bytes. The rest of
    /// `dst` stays valid UTF-8 (bytes of a character cut by the output are zeroed).
    ///
    /// ```
    /// let mut buf = String::from("xxxxxxxx");
    /// let progress = whatenc::WINDOWS_1252.new_decoder().decode_to_str(b"\x80", buf.as_mut_str(), true);
    /// assert_eq!(&buf[..progress.written], "€");
    /// ```
    pub fn decode_to_str(&mut self, src: &[u8], dst: &mut str, last: bool) -> DecodeProgress {
        crate::simd::utf8_out::write_into_str(dst, |bytes| {
            let progress = self.run(src, bytes, last);
            (progress, progress.written)
        })
        .0
    }

    /// Decodes and appends to a `String`, within its spare capacity: it never
    /// reallocates. Reserve [`Decoder::max_utf8_buffer_length`] first to consume all
    /// input in one call. `written` counts bytes appended.
    ///
    /// ```
    /// let mut out = String::with_capacity(16);
    /// let progress = whatenc::UTF_16LE.new_decoder().decode_to_string(b"h\0i\0", &mut out, true);
    /// assert_eq!(out, "hi");
    /// assert_eq!(progress.read, 4);
    /// ```
    pub fn decode_to_string(&mut self, src: &[u8], dst: &mut String, last: bool) -> DecodeProgress {
        let mut read = 0;
        let mut written = 0;
        self.settle_bom(src);
        if self.takes_utf8_verbatim() {
            // Valid UTF-8 in the UTF-8 decoder's initial state is its own output: it goes
            // straight into the string, validated as it is copied (or, long input on
            // some CPUs, a piece at a time: `push_valid_utf8_in_pieces`), with no
            // zero-fill.
            let valid = crate::simd::push_valid_utf8_in_pieces(dst, src)
                .unwrap_or_else(|| crate::simd::push_valid_utf8_prefix(dst, src));
            read = valid;
            written = valid;
            self.fed += read as u64;
            if read == src.len() {
                // All of it, with nothing held: nothing is left to do, even at the
                // end of the stream.
                return DecodeProgress { result: DecoderResult::InputEmpty, read, written };
            }
            if self.options.mode == ErrorMode::Replacement {
                // An error with more input after it is a U+FFFD pushed here, and the
                // valid text after it goes on into the string the same way: no
                // zero-filled pieces, no turn through the handler per error.
                // After a long run of valid text, the copy goes without the look at
                // its first bytes (see `LONG_VALID`).
                let mut long_run = valid >= crate::simd::scalar::LONG_VALID;
                loop {
                    let bad = &src[read..];
                    let subpart = crate::codec::utf8::maximal_subpart(bad);
                    // 0: the room ended the copy before a valid sequence; the length
                    // of the rest: a sequence the end of the input cuts. Both are the
                    // handler's, below, as is an error without room for its U+FFFD.
                    if subpart == 0 || subpart == bad.len() || dst.capacity() - dst.len() < 3 {
                        break;
                    }
                    dst.push('\u{FFFD}');
                    self.first_error.get_or_insert(DecodeError { offset: self.fed, len: subpart as u8 });
                    read += subpart;
                    written += 3;
                    self.fed += subpart as u64;
                    let valid = if long_run {
                        crate::simd::push_valid_utf8_prefix(dst, &src[read..])
                    } else {
                        crate::simd::push_valid_utf8_prefix_after_error(dst, &src[read..])
                    };
                    long_run = valid >= crate::simd::scalar::LONG_VALID;
                    read += valid;
                    written += valid;
                    self.fed += valid as u64;
                    if read == src.len() {
                        return DecodeProgress { result: DecoderResult::InputEmpty, read, written };
                    }
                }
            }
        }
        // The spare capacity is zero-filled before decoding into it, so it is filled
        // a piece at a time, each sized for what the rest of the input will likely
        // need rather than for the worst case: for a long input, first the worst
        // case of its first `PROBE` bytes, then the output per input byte of the
        // last piece (a sixteenth more); after a piece that read nothing, the worst
        // case. (Zero-filling 1.5 bytes an input byte measured 6–9% of UTF-16 →
        // `String`.)
        const PROBE: usize = 4096;
        // The input read and the output written by the last piece.
        let mut last_piece: Option<(usize, usize)> = None;
        loop {
            let rest = &src[read..];
            let spare = dst.capacity() - dst.len();
            let worst = self.max_utf8_buffer_length(rest.len()).unwrap_or(usize::MAX);
            let likely = if let Some((piece_read, piece_written)) = last_piece {
                match rest.len().saturating_mul(piece_written).checked_div(piece_read) {
                    Some(expected) => expected.saturating_add(expected / 16).saturating_add(64),
                    None => worst,
                }
            } else if rest.len() > PROBE {
                self.max_utf8_buffer_length(PROBE).unwrap_or(usize::MAX)
            } else {
                rest.len().saturating_add(rest.len() / 2).saturating_add(64)
            };
            let piece = spare.min(likely).min(worst);
            let progress = crate::simd::utf8_out::append_to_string(dst, piece, |bytes| {
                let progress = self.run(rest, bytes, last);
                (progress, progress.written)
            })
            .0;
            read += progress.read;
            written += progress.written;
            if progress.result != DecoderResult::OutputFull || piece == spare {
                return DecodeProgress { result: progress.result, read, written };
            }
            last_piece = Some((progress.read, progress.written));
        }
    }

    /// Whether the next input bytes, if valid UTF-8, are the output as they are: the
    /// UTF-8 decoder in its initial state, with no BOM handling or held bytes pending.
    #[inline]
    fn takes_utf8_verbatim(&self) -> bool {
        matches!(&self.codec, DecoderCodec::Utf8(codec) if codec.is_initial())
            && matches!(self.bom, BomState::Done)
            && self.replay.start == self.replay.end
    }

    /// Decodes all of `src` as the rest of the stream and appends it to `dst`,
    /// growing it as needed. In "fatal" mode it stops at the first error; in
    /// "replacement" mode it decodes everything and returns the first error, if any.
    pub(crate) fn decode_all(&mut self, src: &[u8], dst: &mut String) -> Result<(), DecodeError> {
        let mut first_error = None;
        let mut read = 0;
        dst.reserve(self.max_utf8_buffer_length(src.len()).unwrap_or(src.len()));
        loop {
            let progress = self.decode_to_string(&src[read..], dst, true);
            read += progress.read;
            match progress.result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => dst.reserve(dst.capacity().max(16)),
                DecoderResult::Malformed(error) => return Err(error),
            }
        }
        if self.options.mode == ErrorMode::Replacement {
            first_error = self.take_first_error();
        }
        first_error.map_or(Ok(()), Err)
    }

    /// For whatenc-encoding-rs: how many bytes the decoder holds, consumed but not
    /// yet decoded: those of an incomplete sequence (or escape sequence), those
    /// "restored" to be read again after an error, and those BOM handling holds.
    /// Not part of the stable API.
    #[doc(hidden)]
    pub fn pending_len(&self) -> usize {
        let bom = match self.bom {
            BomState::Pending { len, .. } => usize::from(len),
            BomState::Done => 0,
        };
        self.codec.pending_len() + bom + usize::from(self.replay.end - self.replay.start)
    }

    /// For whatenc-encoding-rs: the ISO-2022-JP decoder's "iso-2022-jp lead" (as the
    /// standard's steps leave it: a JIS X 0208 character's trail byte does not reset
    /// it, an escape sequence does) and "iso-2022-jp output" flag, which
    /// encoding_rs counts in its buffer bounds; `None` for the other encodings.
    /// Not part of the stable API.
    ///
    /// ```
    /// let mut decoder = whatenc::ISO_2022_JP.new_decoder();
    /// let mut out = String::new();
    /// let _ = decoder.decode_to_string(b"\x1B$B", &mut out, false);
    /// assert_eq!(decoder.iso_2022_jp_lead_and_output(), Some((0, true)));
    /// let _ = decoder.decode_to_string(b"0!", &mut out, false);
    /// assert_eq!(decoder.iso_2022_jp_lead_and_output(), Some((b'0', false)));
    /// assert_eq!(whatenc::UTF_8.new_decoder().iso_2022_jp_lead_and_output(), None);
    /// ```
    #[doc(hidden)]
    pub fn iso_2022_jp_lead_and_output(&self) -> Option<(u8, bool)> {
        self.codec.iso_2022_jp_lead_and_output()
    }

    /// For whatenc-encoding-rs: right after a gb18030 or UTF-16 error, takes out the bytes
    /// the decoder holds to read again (those the standard restores that came
    /// before the call's input); the caller then owes them to the decoder, ahead of
    /// the rest of its input. Returns them and their count (0 for the other
    /// encodings). Not part of the stable API.
    #[doc(hidden)]
    pub fn take_restored(&mut self) -> ([u8; 3], usize) {
        let (bytes, len) = self.codec.take_restored();
        // They will be consumed again.
        self.fed -= len as u64;
        (bytes, len)
    }

    /// In "replacement" mode, the first error that became U+FFFD since the last call
    /// of this method (or since the decoder was made), so that callers can tell
    /// whether the input was well-formed.
    ///
    /// ```
    /// let mut decoder = whatenc::UTF_8.new_decoder();
    /// let mut out = [0u8; 16];
    /// let _ = decoder.decode_to_utf8(b"a\xFFb", &mut out, true);
    /// assert_eq!(decoder.take_first_error().map(|e| e.offset), Some(1));
    /// assert_eq!(decoder.take_first_error(), None);
    /// ```
    pub fn take_first_error(&mut self) -> Option<DecodeError> {
        self.first_error.take()
    }

    /// The shared body of every `decode_to_*` method.
    fn run<U: OutputUnit>(&mut self, src: &[u8], dst: &mut [U], last: bool) -> DecodeProgress {
        let mut read = 0;
        let mut written = 0;
        self.settle_bom(src);
        if let BomState::Pending { .. } = self.bom {
            read = self.absorb_bom(src, last);
            if let BomState::Pending { .. } = self.bom {
                return DecodeProgress { result: DecoderResult::InputEmpty, read, written };
            }
        }
        // Set when a handler run made no progress although the room looked enough;
        // the next run then goes through the staging path, which always progresses.
        let mut stalled = false;
        loop {
            let from_replay = self.replay.start < self.replay.end;
            let replay_buf = self.replay.buf;
            let input: &[u8] = if from_replay {
                &replay_buf[self.replay.start as usize..self.replay.end as usize]
            } else {
                &src[read..]
            };
            let input_last = last && (!from_replay || read == src.len());
            let room = dst.len() - written;
            let (status, consumed) = if room >= <U::Sink<'_> as Sink>::STEP && !stalled {
                let written_before = written;
                let (status, consumed) = {
                    let mut sink = U::sink(&mut dst[written..]);
                    let run = if self.options.mode == ErrorMode::Replacement {
                        let mut replaced = None;
                        let run = self.codec.decode_replacing(input, &mut sink, input_last, &mut replaced);
                        if let Some(Replaced { end, len, restored }) = replaced {
                            // `fed` does not count this run's input yet.
                            let offset = (self.fed + end as u64).saturating_sub(u64::from(restored) + u64::from(len));
                            self.first_error.get_or_insert(DecodeError { offset, len });
                        }
                        run
                    } else {
                        self.codec.decode(input, &mut sink, input_last)
                    };
                    written += sink.written();
                    run
                };
                if let Status::Error { .. } = status
                    && self.options.mode == ErrorMode::Replacement
                {
                    // The handler checked the room before this step.
                    written += U::replacement(&mut dst[written..]);
                }
                stalled = status == Status::OutputFull && consumed == 0 && written == written_before;
                (status, consumed)
            } else {
                stalled = false;
                // Nearly full: run one byte at a time into a staging buffer, and keep
                // the step only if its whole output fits.
                let saved = self.codec.clone();
                let mut staging = [U::default(); 8];
                let step_room = <U::Sink<'_> as Sink>::STEP;
                let one = &input[..input.len().min(1)];
                let one_last = input_last && one.len() == input.len();
                let mut produced = 0;
                let (status, consumed) = {
                    let mut sink = U::sink(&mut staging[..step_room]);
                    let run = self.codec.decode(one, &mut sink, one_last);
                    produced += sink.written();
                    run
                };
                if let Status::Error { .. } = status
                    && self.options.mode == ErrorMode::Replacement
                {
                    produced += U::replacement(&mut staging[produced..]);
                }
                if produced > room {
                    self.codec = saved;
                    return DecodeProgress { result: DecoderResult::OutputFull, read, written };
                }
                dst[written..written + produced].copy_from_slice(&staging[..produced]);
                written += produced;
                // A one-byte run that consumed its byte is not the end of the input.
                let status = match status {
                    Status::InputEmpty if one.len() < input.len() => Status::OutputFull,
                    other => other,
                };
                (status, consumed)
            };
            if from_replay {
                self.replay.start += consumed as u8;
            } else {
                read += consumed;
            }
            self.fed += consumed as u64;
            match status {
                Status::InputEmpty => {
                    if from_replay {
                        continue;
                    }
                    return DecodeProgress { result: DecoderResult::InputEmpty, read, written };
                }
                Status::OutputFull => continue,
                Status::Error { len, restored } => {
                    let offset = self.fed.saturating_sub(restored as u64 + len as u64);
                    let error = DecodeError { offset, len };
                    match self.options.mode {
                        ErrorMode::Fatal => {
                            return DecodeProgress { result: DecoderResult::Malformed(error), read, written };
                        }
                        ErrorMode::Replacement => {
                            self.first_error.get_or_insert(error);
                        }
                    }
                }
            }
        }
    }

    /// The BOMs this decoder looks for, with the encodings they choose.
    fn bom_candidates(&self) -> &'static [(&'static [u8], &'static Encoding)] {
        match (self.options.bom, self.encoding.name()) {
            (BomHandling::Sniff, _) => &BOMS,
            (_, "UTF-8") => &BOMS[..1],
            (_, "UTF-16BE") => &BOMS[1..2],
            (_, "UTF-16LE") => &BOMS[2..],
            _ => &[],
        }
    }

    /// Rules out a BOM when no byte is held yet and the first byte of `src` starts
    /// none (as [`Decoder::absorb_bom`] would, holding the byte and replaying it), so
    /// that the fast paths for UTF-8 apply from a new decoder's first call.
    #[inline]
    fn settle_bom(&mut self, src: &[u8]) {
        if let (BomState::Pending { len: 0, .. }, Some(&first)) = (&self.bom, src.first())
            && !self.bom_candidates().iter().any(|(bom, _)| bom[0] == first)
        {
            self.bom = BomState::Done;
        }
    }

    /// Takes bytes into the BOM buffer until a BOM is found or ruled out; returns
    /// the bytes of `src` taken.
    fn absorb_bom(&mut self, src: &[u8], last: bool) -> usize {
        let BomState::Pending { mut buf, mut len } = self.bom else {
            return 0;
        };
        let candidates = self.bom_candidates();
        let mut read = 0;
        let found = loop {
            let held = &buf[..len as usize];
            if let Some(&(bom, encoding)) = candidates.iter().find(|(bom, _)| held.starts_with(bom)) {
                break Some((bom.len(), encoding));
            }
            if !candidates.iter().any(|(bom, _)| bom.starts_with(held)) {
                break None;
            }
            match src.get(read) {
                Some(&byte) => {
                    buf[len as usize] = byte;
                    len += 1;
                    read += 1;
                }
                None if last => break None,
                None => {
                    self.bom = BomState::Pending { buf, len };
                    return read;
                }
            }
        };
        let skip = match found {
            Some((bom_len, encoding)) => {
                if encoding != self.encoding {
                    self.encoding = encoding;
                    self.codec = DecoderCodec::new(encoding);
                }
                self.fed += bom_len as u64;
                bom_len as u8
            }
            None => 0,
        };
        self.replay = Replay { buf, start: skip, end: len };
        self.bom = BomState::Done;
        read
    }
}

/// The byte order marks, in the order "BOM sniff" tries them.
static BOMS: [(&[u8], &Encoding); 3] = [
    (b"\xEF\xBB\xBF", crate::encoding::UTF_8),
    (b"\xFE\xFF", crate::encoding::UTF_16BE),
    (b"\xFF\xFE", crate::encoding::UTF_16LE),
];
