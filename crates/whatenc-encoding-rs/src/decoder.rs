//! [`Decoder`] and the result types of decoding.

use alloc::string::String;
use core::fmt;

use whatenc::{BomHandling, DecodeProgress};

use crate::encoding::Encoding;

/// Why a call that replaces errors (a method not named `*_without_replacement`)
/// returned.
///
/// ```
/// use whatenc_encoding_rs::{CoderResult, UTF_8};
/// let mut out = [0u8; 16];
/// let (result, ..) = UTF_8.new_decoder().decode_to_utf8(b"ok", &mut out, true);
/// assert_eq!(result, CoderResult::InputEmpty);
/// ```
#[must_use]
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum CoderResult {
    /// All the input was consumed; with `last`, the stream has ended. Otherwise
    /// call again with more input.
    ///
    /// ```
    /// assert_ne!(whatenc_encoding_rs::CoderResult::InputEmpty, whatenc_encoding_rs::CoderResult::OutputFull);
    /// ```
    InputEmpty,
    /// The output buffer has no room for more: call again with more room and the
    /// input not yet read.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, UTF_8};
    /// let mut out = [0u8; 4];
    /// let (result, read, ..) = UTF_8.new_decoder().decode_to_utf8(b"abcdef", &mut out, true);
    /// assert_eq!((result, read), (CoderResult::OutputFull, 4));
    /// ```
    OutputFull,
}

/// Why a call of a `decode_*_without_replacement` method returned.
///
/// ```
/// use whatenc_encoding_rs::{DecoderResult, SHIFT_JIS};
/// let mut out = [0u8; 16];
/// let (result, read, written) = SHIFT_JIS.new_decoder().decode_to_utf8_without_replacement(b"a\x81", &mut out, true);
/// assert_eq!((result, read, written), (DecoderResult::Malformed(1, 0), 2, 1));
/// ```
#[must_use]
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum DecoderResult {
    /// All the input was consumed; with `last`, the stream has ended.
    ///
    /// ```
    /// use whatenc_encoding_rs::{DecoderResult, UTF_8};
    /// let mut out = [0u8; 16];
    /// let (result, ..) = UTF_8.new_decoder().decode_to_utf8_without_replacement(b"ok", &mut out, true);
    /// assert_eq!(result, DecoderResult::InputEmpty);
    /// ```
    InputEmpty,
    /// The output buffer has no room for more: call again with more room and the
    /// input not yet read.
    ///
    /// ```
    /// use whatenc_encoding_rs::{DecoderResult, UTF_8};
    /// let mut out = [0u8; 4];
    /// let (result, ..) = UTF_8.new_decoder().decode_to_utf8_without_replacement(b"abcdef", &mut out, true);
    /// assert_eq!(result, DecoderResult::OutputFull);
    /// ```
    OutputFull,
    /// A malformed byte sequence: its length (1 to 4), and how many bytes after it
    /// the call has read (0 to 3). The sequence may have started in an earlier
    /// buffer. Treat it as fatal, or write U+FFFD and call again with the rest.
    ///
    /// ```
    /// use whatenc_encoding_rs::{DecoderResult, UTF_8};
    /// let mut out = [0u8; 16];
    /// let (result, read, _) = UTF_8.new_decoder().decode_to_utf8_without_replacement(b"\xF0\x9Fa", &mut out, true);
    /// assert_eq!((result, read), (DecoderResult::Malformed(2, 0), 2));
    /// ```
    Malformed(u8, u8),
}

/// A streaming decoder: bytes of one encoding in, UTF-8 or UTF-16 out.
///
/// Every `decode_*` method takes input, an output buffer and `last` (whether this
/// input ends the stream), and returns why it stopped, how many bytes it read and
/// how many units it wrote (a `String` shows the latter in its length); the
/// replacing methods add whether an error became U+FFFD during the call. After
/// `OutputFull` or `Malformed`, call again with the input not yet read; call until
/// `InputEmpty` with `last` set. The output is always whole characters.
///
/// With an output buffer of [`Decoder::max_utf8_buffer_length`] (or its UTF-16 and
/// `_without_replacement` twins) for the input's length, a call never returns
/// `OutputFull`. With a smaller one, keep at least 4 bytes (UTF-8) or 2 units
/// (UTF-16) of room, so that each call makes progress.
///
/// ```
/// use whatenc_encoding_rs::{CoderResult, SHIFT_JIS};
/// let mut decoder = SHIFT_JIS.new_decoder();
/// let mut text = String::with_capacity(32);
/// // "日本" cut inside both characters.
/// for (chunk, last) in [(&b"\x93"[..], false), (&b"\xfa\x96"[..], false), (&b"\x7b"[..], true)] {
///     let (result, read, had_errors) = decoder.decode_to_string(chunk, &mut text, last);
///     assert_eq!((result, read, had_errors), (CoderResult::InputEmpty, chunk.len(), false));
/// }
/// assert_eq!(text, "日本");
/// ```
#[derive(Clone)]
pub struct Decoder {
    /// The decoder of the encoding in use, always in whatenc's "fatal" mode and
    /// without BOM handling: BOM handling is done here, to read exactly as far as
    /// encoding_rs does, and the replacing methods write U+FFFD themselves, so
    /// that one decoder serves both kinds of call.
    pub(crate) native: whatenc::Decoder,
    /// Whether a BOM may still start the stream (always false without BOM
    /// handling, or when removing a BOM from an encoding that has none).
    pub(crate) bom_pending: bool,
    /// Sniffing (true) or removing the encoding's own BOM (false).
    pub(crate) sniffing: bool,
    /// Bytes already read that may start a BOM (or that a gb18030 error put
    /// back: see `requeued`); once they turn out not to be a BOM,
    /// `held[replayed..held_len]` are still to go to `native`.
    pub(crate) held: [u8; 3],
    pub(crate) held_len: u8,
    pub(crate) replayed: u8,
    /// Bytes `native` has consumed, to tell how far past a malformed sequence a
    /// call has read.
    pub(crate) native_fed: u64,
    /// Bytes `native` read past the last malformed sequence, which it decodes
    /// again before the rest (until a call of it has consumed its input).
    pub(crate) restored: u8,
    /// The last byte `native` consumed.
    pub(crate) last_fed: u8,
    /// A U+FFFD owed to the output: its malformed sequence was consumed when there
    /// was no room left to write it (only where encoding_rs panics: the end of the
    /// stream inside a sequence with too little room).
    pub(crate) owed_replacement: bool,
    /// Whether `held` holds bytes a gb18030 error put back (rather than bytes BOM
    /// handling held back).
    pub(crate) requeued: bool,
    /// Whether `native` holds what an error put back (UTF-16: the code unit after
    /// a leading surrogate; ISO-2022-JP: the byte after `ESC`), which encoding_rs
    /// decodes before reading more input.
    pub(crate) unit_held: bool,
    /// ISO-2022-JP: the output flag encoding_rs keeps where the stream ended
    /// inside an escape sequence, after `ESC`, `ESC $` or `ESC (` (an error; the
    /// standard, and the native decoder, unset the flag there, encoding_rs leaves it
    /// as it was), until more input is read.
    pub(crate) iso_kept_output: bool,
}

/// An output buffer of a decoding call: `[u8]`, `[u16]`, `str` or `String`.
trait Output {
    /// Units of U+FFFD.
    const REPLACEMENT_LEN: usize;
    /// Whether the output is UTF-16 (else UTF-8).
    const UTF16: bool = false;
    /// The output unit at `at`, when `written` units have been written in this call.
    fn unit(&self, written: usize, at: usize) -> u16;
    fn room(&self, from: usize) -> usize;
    /// Decodes into at most `limit` units from `from`.
    fn decode(
        &mut self,
        from: usize,
        limit: usize,
        decoder: &mut whatenc::Decoder,
        src: &[u8],
        last: bool,
    ) -> DecodeProgress;
    /// Writes U+FFFD at `at`, where there is room.
    fn replace(&mut self, at: usize);
}

impl Output for [u8] {
    const REPLACEMENT_LEN: usize = 3;
    fn unit(&self, _: usize, at: usize) -> u16 {
        u16::from(self[at])
    }
    fn room(&self, from: usize) -> usize {
        self.len() - from
    }
    fn decode(
        &mut self,
        from: usize,
        limit: usize,
        decoder: &mut whatenc::Decoder,
        src: &[u8],
        last: bool,
    ) -> DecodeProgress {
        decoder.decode_to_utf8(src, &mut self[from..from + limit], last)
    }
    fn replace(&mut self, at: usize) {
        self[at..at + 3].copy_from_slice("\u{FFFD}".as_bytes());
    }
}

impl Output for [u16] {
    const REPLACEMENT_LEN: usize = 1;
    const UTF16: bool = true;
    fn unit(&self, _: usize, at: usize) -> u16 {
        self[at]
    }
    fn room(&self, from: usize) -> usize {
        self.len() - from
    }
    fn decode(
        &mut self,
        from: usize,
        limit: usize,
        decoder: &mut whatenc::Decoder,
        src: &[u8],
        last: bool,
    ) -> DecodeProgress {
        decoder.decode_to_utf16(src, &mut self[from..from + limit], last)
    }
    fn replace(&mut self, at: usize) {
        self[at] = 0xFFFD;
    }
}

impl Output for str {
    const REPLACEMENT_LEN: usize = 3;
    fn unit(&self, _: usize, at: usize) -> u16 {
        u16::from(self.as_bytes()[at])
    }
    fn room(&self, from: usize) -> usize {
        self.len() - from
    }
    fn decode(
        &mut self,
        from: usize,
        limit: usize,
        decoder: &mut whatenc::Decoder,
        src: &[u8],
        last: bool,
    ) -> DecodeProgress {
        // A `str` is cut only at character boundaries: a limit inside a character
        // moves back to its start (less room is always safe for the caller).
        let end = (from..=from + limit).rev().find(|&end| self.is_char_boundary(end)).unwrap_or(from);
        decoder.decode_to_str(src, &mut self[from..end], last)
    }
    fn replace(&mut self, at: usize) {
        // A `&mut str` takes bytes only through a decoder: decode U+FFFD's own
        // UTF-8 into it (errors are rare, so the extra decoder costs nothing).
        let progress = whatenc::UTF_8.new_decoder().decode_to_str("\u{FFFD}".as_bytes(), &mut self[at..], true);
        debug_assert_eq!(progress.written, 3);
    }
}

/// Appends within the spare capacity; `from` is not used (the length says it).
impl Output for String {
    const REPLACEMENT_LEN: usize = 3;
    fn unit(&self, written: usize, at: usize) -> u16 {
        u16::from(self.as_bytes()[self.len() - written + at])
    }
    fn room(&self, _: usize) -> usize {
        self.capacity() - self.len()
    }
    fn decode(
        &mut self,
        _: usize,
        limit: usize,
        decoder: &mut whatenc::Decoder,
        src: &[u8],
        last: bool,
    ) -> DecodeProgress {
        // Whole when the limit cannot be reached (whatenc fills only what the
        // input may need).
        let most = decoder.max_utf8_buffer_length(src.len()).unwrap_or(usize::MAX);
        if limit >= self.capacity() - self.len() || most <= limit {
            return decoder.decode_to_string(src, self, last);
        }
        // Within part of the spare capacity: pad it with NULs (a zero fill, as the
        // native `decode_to_string` does), decode into it, and cut the rest off.
        let start = self.len();
        self.extend(core::iter::repeat_n('\0', limit));
        let progress = decoder.decode_to_str(src, &mut self[start..], last);
        self.truncate(start + progress.written);
        progress
    }
    fn replace(&mut self, _: usize) {
        self.push('\u{FFFD}');
    }
}

/// Above this much room beyond the worst case of a step, a call hands the input
/// to the native bulk decoder.
const BULK: usize = 8;

/// How encoding_rs's decoder for an encoding asks for room, observed at output
/// buffers of every size. Its decoders check the room before a step against the
/// worst case of that step ([`Pace::worst`]: 3 or 4 bytes of UTF-8, 1 or 2 UTF-16
/// units, counting a U+FFFD the step may need), so that the replacing methods
/// always have room for U+FFFD after a malformed sequence.
///
/// `Lead` (single-byte and lead-byte encodings): a call copies ASCII while there
/// is a unit of room, and wants the worst case free before a non-ASCII byte. After
/// a non-ASCII character it wants the worst case before the next byte, ASCII too;
/// with `punctuation` (single-byte encodings and EUC-KR) before every byte until
/// an ASCII byte of 0x3C or more (a letter or markup) sends it back to the ASCII
/// copy. Bytes after a lead byte are read without a check. A sequence left
/// incomplete by the previous call wants the worst case free before the call reads
/// on (and then the call copies ASCII again), but not to be reported truncated at
/// the end of the stream.
///
/// `EveryByte` (x-user-defined, ISO-2022-JP): the worst case before every byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pace {
    /// `gb`: gb18030 and GBK, where the euro sign from the single byte 0x80
    /// leaves the call copying ASCII.
    Lead {
        astral: bool,
        punctuation: bool,
        gb: bool,
    },
    /// Shift_JIS: `Lead` without punctuation, where a half-width katakana or
    /// U+0080 (a single byte) leaves the call copying ASCII.
    ShiftJis,
    EveryByte,
    /// replacement: the worst case before the first byte, nothing after.
    Replacement,
    /// UTF-16BE and UTF-16LE: by code unit. Into UTF-8 as `Lead` (astral) by code
    /// unit, except that a call starts wanting the worst case; into UTF-16, one unit
    /// of room for a unit, two for a leading surrogate. A byte that ends the input
    /// halfway through a unit wants the worst case.
    Utf16 {
        be: bool,
    },
    /// UTF-8: before a byte that starts a sequence, room for the character its
    /// value announces (U+FFFD for a byte that cannot start one).
    Utf8,
}

impl Pace {
    fn of(encoding: &'static whatenc::Encoding) -> Pace {
        match encoding.name() {
            "x-user-defined" | "ISO-2022-JP" => Pace::EveryByte,
            "replacement" => Pace::Replacement,
            "Big5" => Pace::Lead { astral: true, punctuation: false, gb: false },
            "Shift_JIS" => Pace::ShiftJis,
            "UTF-8" => Pace::Utf8,
            "UTF-16BE" => Pace::Utf16 { be: true },
            "UTF-16LE" => Pace::Utf16 { be: false },
            "gb18030" | "GBK" => Pace::Lead { astral: true, punctuation: false, gb: true },
            "EUC-JP" => Pace::Lead { astral: false, punctuation: false, gb: false },
            _ => Pace::Lead { astral: false, punctuation: true, gb: false },
        }
    }

    /// The room a step may need: the most units one step writes.
    fn worst(self, utf16: bool) -> usize {
        let astral = matches!(self, Pace::Lead { astral: true, .. } | Pace::Utf8 | Pace::Utf16 { .. });
        match (utf16, astral) {
            (false, false) => 3,
            (false, true) => 4,
            (true, false) => 1,
            (true, true) => 2,
        }
    }

    /// Whether ASCII below 0x3C after a non-ASCII character wants the worst case.
    fn punctuation(self) -> bool {
        matches!(self, Pace::Lead { punctuation: true, .. })
    }

    /// Whether a call that starts inside a sequence wants the worst case free.
    fn asks_at_pending(self) -> bool {
        matches!(self, Pace::Lead { .. } | Pace::ShiftJis | Pace::Utf8 | Pace::Utf16 { .. })
    }

    /// The room wanted before reading `byte`.
    /// `started`: whether the decoder has read a byte.
    fn need(self, pending: bool, middle: bool, started: bool, byte: u8, worst: usize) -> usize {
        match self {
            Pace::EveryByte => worst,
            Pace::Utf8 | Pace::Utf16 { .. } if pending => 0,
            Pace::Utf8 | Pace::Utf16 { .. } => worst,
            Pace::Replacement => {
                if started {
                    0
                } else {
                    worst
                }
            }
            Pace::Lead { .. } | Pace::ShiftJis if pending => 0,
            Pace::Lead { .. } | Pace::ShiftJis if byte < 0x80 && !middle => 1,
            Pace::Lead { .. } | Pace::ShiftJis => worst,
        }
    }

    /// Whether, after the output `dst[floor..written]` of a call, the call wants
    /// the worst case before an ASCII byte: the output ends with a non-ASCII
    /// character and ASCII below 0x3C only.
    /// `consumed`: the input the call has read, for gb18030's euro sign.
    fn middle_after<O: Output + ?Sized>(
        self,
        dst: &O,
        floor: usize,
        written: usize,
        before: bool,
        consumed: &[u8],
    ) -> bool {
        let punctuation = self.punctuation();
        for at in (floor..written).rev() {
            match dst.unit(written, at) {
                0..0x3C if punctuation => continue,
                0..0x80 => return false,
                _ if self == Pace::ShiftJis => {
                    // A half-width katakana: U+FF61 to U+FF9F.
                    let katakana = if O::UTF16 {
                        let unit = dst.unit(written, at);
                        unit == 0x80 || (0xFF61..=0xFF9F).contains(&unit)
                    } else if dst.unit(written, at) == 0x80 && at > floor && dst.unit(written, at - 1) == 0xC2 {
                        true
                    } else {
                        at >= floor + 2 && {
                            let unit = |i| dst.unit(written, i);
                            matches!(
                                (unit(at - 2), unit(at - 1), unit(at)),
                                (0xEF, 0xBD, 0xA1..=0xBF) | (0xEF, 0xBE, 0x80..=0x9F)
                            )
                        }
                    };
                    return !katakana;
                }
                unit if matches!(self, Pace::Lead { gb: true, .. }) => {
                    // The euro sign from the single byte 0x80 (the ASCII after it
                    // came from as many bytes) leaves the call copying ASCII.
                    let euro = if O::UTF16 {
                        unit == 0x20AC
                    } else {
                        at >= floor + 2
                            && unit == 0xAC
                            && dst.unit(written, at - 1) == 0x82
                            && dst.unit(written, at - 2) == 0xE2
                    };
                    let byte = (consumed.len() + at).checked_sub(written).and_then(|i| consumed.get(i));
                    return !(euro && byte == Some(&0x80));
                }
                _ => return matches!(self, Pace::Lead { .. } | Pace::Utf16 { .. }),
            }
        }
        before
    }
}

/// What a call's BOM handling did before decoding.
enum Sniffed {
    /// Held all the input as the start of a possible BOM: return `InputEmpty`.
    Holding(usize),
    /// Decided (or had decided before): decode from this offset of the input.
    Decode(usize),
}

/// The byte order marks, in the order BOM sniffing tries them.
const BOMS: [(&[u8], &whatenc::Encoding); 3] =
    [(b"\xEF\xBB\xBF", whatenc::UTF_8), (b"\xFE\xFF", whatenc::UTF_16BE), (b"\xFF\xFE", whatenc::UTF_16LE)];

impl Decoder {
    pub(crate) fn new(encoding: &'static whatenc::Encoding, bom: BomHandling) -> Decoder {
        let native = encoding
            .new_decoder_with(whatenc::DecoderOptions { mode: whatenc::ErrorMode::Fatal, bom: BomHandling::None });
        let bom_pending = match bom {
            BomHandling::Sniff => true,
            BomHandling::Remove => BOMS.iter().any(|&(_, e)| e == encoding),
            BomHandling::None => false,
        };
        Decoder {
            native,
            bom_pending,
            sniffing: bom == BomHandling::Sniff,
            held: [0; 3],
            held_len: 0,
            replayed: 0,
            native_fed: 0,
            last_fed: 0,
            restored: 0,
            owed_replacement: false,
            requeued: false,
            unit_held: false,
            iso_kept_output: false,
        }
    }

    /// The BOMs this decoder looks for.
    pub(crate) fn bom_candidates(&self) -> &'static [(&'static [u8], &'static whatenc::Encoding)] {
        if self.sniffing {
            return &BOMS;
        }
        match self.native.encoding().name() {
            "UTF-8" => &BOMS[..1],
            "UTF-16BE" => &BOMS[1..2],
            _ => &BOMS[2..],
        }
    }

    /// BOM handling at the start of a call: takes the bytes of `src` that are a
    /// BOM, or holds them while they may still be one.
    fn sniff(&mut self, src: &[u8], last: bool) -> Sniffed {
        if !self.bom_pending {
            return Sniffed::Decode(0);
        }
        let candidates = self.bom_candidates();
        let held = usize::from(self.held_len);
        let mut seen = self.held;
        let mut taken = 0;
        loop {
            let prefix = &seen[..held + taken];
            if let Some(&(bom, encoding)) = candidates.iter().find(|(bom, _)| *bom == prefix) {
                if encoding != self.native.encoding() {
                    self.native = encoding.new_decoder_with(whatenc::DecoderOptions {
                        mode: whatenc::ErrorMode::Fatal,
                        bom: BomHandling::None,
                    });
                }
                self.bom_pending = false;
                self.held_len = 0;
                return Sniffed::Decode(bom.len() - held);
            }
            let may_be_bom = candidates.iter().any(|(bom, _)| bom.starts_with(prefix));
            match src.get(taken) {
                Some(&byte) if may_be_bom => {
                    seen[held + taken] = byte;
                    taken += 1;
                }
                None if may_be_bom && !last => {
                    self.held = seen;
                    self.held_len = (held + taken) as u8;
                    return Sniffed::Holding(taken);
                }
                // Not a BOM: the bytes held from earlier calls go to the decoder
                // first; those of `src` are decoded from `src`.
                _ => {
                    self.bom_pending = false;
                    return Sniffed::Decode(0);
                }
            }
        }
    }

    /// The bytes held back by BOM handling that are still to be decoded.
    pub(crate) fn replay(&self) -> ([u8; 3], usize, usize) {
        if self.bom_pending {
            return (self.held, 0, 0);
        }
        (self.held, usize::from(self.replayed), usize::from(self.held_len))
    }

    /// The encoding being decoded: the one the decoder was made for, or the one a
    /// BOM switched it to.
    ///
    /// ```
    /// use whatenc_encoding_rs::{UTF_16LE, WINDOWS_1252};
    /// let mut decoder = WINDOWS_1252.new_decoder();
    /// assert_eq!(decoder.encoding(), WINDOWS_1252);
    /// let mut out = [0u8; 8];
    /// let _ = decoder.decode_to_utf8(b"\xFF\xFE", &mut out, false);
    /// assert_eq!(decoder.encoding(), UTF_16LE);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        Encoding::from_native(self.native.encoding())
    }

    /// Runs `native` over `src` into at most `limit` units of `dst` from `from`,
    /// keeping count of the bytes it has consumed.
    fn feed<O: Output + ?Sized>(
        &mut self,
        src: &[u8],
        dst: &mut O,
        from: usize,
        limit: usize,
        last: bool,
    ) -> DecodeProgress {
        let progress = dst.decode(from, limit, &mut self.native, src, last);
        self.native_fed += progress.read as u64;
        if progress.read != 0 {
            self.last_fed = src[progress.read - 1];
            self.iso_kept_output = false;
        }
        progress
    }

    /// After a malformed gb18030 four-byte sequence, encoding_rs has read the bytes
    /// it puts back, up to the one that ended the sequence, and reports them read;
    /// the native decoder leaves those still in the input unread. Takes them from
    /// `rest` (after what the replay buffer still holds) into the replay buffer, to
    /// be decoded first in the next call; returns how many it took from `rest`
    /// and how many more bytes after the sequence encoding_rs has read.
    fn take_restored(&mut self, error: whatenc::DecodeError, rest: &[u8]) -> Option<(usize, u8)> {
        let name = self.native.encoding().name();
        let (_, start, end) = self.replay();
        if error.len != 1 || (name != "gb18030" && name != "GBK") || start != end {
            return None;
        }
        // The bytes after the lead byte that the native decoder holds, then those
        // of `rest`: the sequence went on (0x30–0x39, then 0x81–0xFE) up to the
        // byte that ended it.
        let (held, from_native) = self.native.take_restored();
        self.native_fed -= from_native as u64;
        let four_byte = |b: u8| (0x30..=0x39).contains(&b);
        let third = |b: u8| (0x81..=0xFE).contains(&b);
        let from_rest = match (from_native, rest) {
            // (The lead byte is the last byte read: not an error of a byte alone.)
            (0, [b2, b3, ..]) if four_byte(*b2) && third(self.last_fed) => 1 + usize::from(third(*b3)),
            (1, [b3, ..]) => usize::from(third(*b3)),
            _ => 0,
        };
        let taken = from_native + from_rest;
        self.held[..from_native].copy_from_slice(&held[..from_native]);
        self.held[from_native..taken].copy_from_slice(&rest[..from_rest]);
        self.held_len = taken as u8;
        self.replayed = 0;
        self.requeued = taken != 0;
        Some((from_rest, from_rest as u8))
    }

    /// One call of encoding_rs's decoder without replacement, emulated: decodes
    /// `src` into `dst` from `from`, stopping for room where encoding_rs does
    /// (see [`Pace`]). Returns the progress (`written` counts from `from`).
    /// `requeued`: `src` is bytes put back after an error, before which encoding_rs
    /// wants room for a character of the BMP.
    fn raw<O: Output + ?Sized>(
        &mut self,
        src: &[u8],
        dst: &mut O,
        from: usize,
        last: bool,
        requeued: bool,
    ) -> DecodeProgress {
        let pace = Pace::of(self.native.encoding());
        let worst = pace.worst(O::UTF16);
        let mut read = 0;
        let mut written = from;
        let done = |result, read, written: usize| DecodeProgress { result, read, written: written - from };
        // A sequence left incomplete by the previous call: encoding_rs wants the
        // worst case free before reading on (but not to report it truncated).
        if requeued && dst.room(written) < O::REPLACEMENT_LEN {
            return done(whatenc::DecoderResult::OutputFull, 0, written);
        }
        if self.unit_held {
            // What was put back goes first, with room for a character of the BMP,
            // before any input is read; a leading surrogate, which writes nothing
            // yet, needs none.
            let short = dst.room(written) < O::REPLACEMENT_LEN;
            let saved = if short { Some((self.native.clone(), self.native_fed, self.last_fed)) } else { None };
            self.unit_held = false;
            let progress = self.feed(&[], dst, written, if short { 0 } else { dst.room(written) }, false);
            if let Some((native, fed, last_fed)) = saved
                && progress.result != whatenc::DecoderResult::InputEmpty
            {
                (self.native, self.native_fed, self.last_fed) = (native, fed, last_fed);
                self.unit_held = true;
                return done(whatenc::DecoderResult::OutputFull, 0, written);
            }
            if progress.result == whatenc::DecoderResult::OutputFull {
                self.unit_held = true;
            }
            written += progress.written;
            if progress.result != whatenc::DecoderResult::InputEmpty {
                return done(progress.result, 0, written);
            }
        }
        if self.native.pending_len() > 0 && pace.asks_at_pending() {
            if src.is_empty() {
                // (UTF-16 wants room for the U+FFFD of a sequence cut by the end.)
                if last && matches!(pace, Pace::Utf16 { .. }) && dst.room(written) < O::REPLACEMENT_LEN {
                    return done(whatenc::DecoderResult::OutputFull, 0, written);
                }
                let progress = if last {
                    self.feed(src, dst, written, dst.room(written), true)
                } else {
                    done(whatenc::DecoderResult::InputEmpty, 0, written)
                };
                return DecodeProgress { written: progress.written, ..progress };
            }
            if dst.room(written) < worst {
                return done(whatenc::DecoderResult::OutputFull, 0, written);
            }
            while self.native.pending_len() > 0 && read < src.len() {
                let one_last = last && read + 1 == src.len();
                let progress = self.feed(&src[read..read + 1], dst, written, dst.room(written), one_last);
                read += progress.read;
                written += progress.written;
                if progress.result != whatenc::DecoderResult::InputEmpty || progress.read == 0 {
                    return done(progress.result, read, written);
                }
            }
        }
        // Output before `floor` does not decide the mode (see `Pace`).
        let floor = written;
        let mut middle = matches!(pace, Pace::Utf16 { .. });
        loop {
            if read == src.len() {
                if src.is_empty() && last && self.native.pending_len() > 0 {
                    // The end of the stream inside a sequence.
                    if pace == Pace::EveryByte && dst.room(written) < worst {
                        return done(whatenc::DecoderResult::OutputFull, 0, written);
                    }
                    let progress = self.feed(src, dst, written, dst.room(written), true);
                    return done(progress.result, 0, written + progress.written);
                }
                return done(whatenc::DecoderResult::InputEmpty, read, written);
            }
            let room = dst.room(written);
            if room >= worst + BULK {
                // Well within the room: the native bulk decoder, with the worst case
                // of one step kept free so that it stops no later than encoding_rs.
                let progress = self.feed(&src[read..], dst, written, room - worst, last);
                read += progress.read;
                written += progress.written;
                if progress.result != whatenc::DecoderResult::OutputFull {
                    return done(progress.result, read, written);
                }
                middle = pace.middle_after(dst, floor, written, middle, &src[..read]);
                if progress.read != 0 || progress.written != 0 {
                    continue;
                }
            }
            // Near the end of the room: one byte at a time, by encoding_rs's rule.
            let byte = src[read];
            let pending = self.native.pending_len() > 0;
            let need = match pace {
                // A whole valid character wants its own room; anything else the
                // worst case.
                Pace::Utf8 if !pending => {
                    let len = match byte {
                        0..0x80 => 1,
                        0xC2..=0xDF => 2,
                        0xE0..=0xEF => 3,
                        _ => 4,
                    };
                    match src.get(read..read + len).map(core::str::from_utf8) {
                        Some(Ok(c)) if O::UTF16 => c.chars().next().map_or(worst, char::len_utf16),
                        Some(Ok(_)) => len,
                        _ => worst,
                    }
                }
                Pace::Utf16 { be } if !pending => match src.get(read..read + 2) {
                    Some(&[a, b]) => {
                        let unit = if be { u16::from_be_bytes([a, b]) } else { u16::from_le_bytes([a, b]) };
                        match unit {
                            0xD800..0xDC00 if O::UTF16 => 2,
                            _ if O::UTF16 => 1,
                            0..0x80 if !middle => 1,
                            _ => worst,
                        }
                    }
                    _ => worst,
                },
                _ => pace.need(pending, middle, self.native_fed != 0, byte, worst),
            };
            if room < need {
                return done(whatenc::DecoderResult::OutputFull, read, written);
            }
            let one_last = last && read + 1 == src.len();
            let progress = self.feed(&src[read..read + 1], dst, written, room, one_last);
            read += progress.read;
            written += progress.written;
            if progress.result != whatenc::DecoderResult::InputEmpty || progress.read == 0 {
                return done(progress.result, read, written);
            }
            if progress.written > 0 && self.native.pending_len() == 0 {
                let last_unit = dst.unit(written, written - 1);
                middle = match byte {
                    0x80 | 0xA1..=0xDF if !pending && pace == Pace::ShiftJis => false,
                    0x80 if !pending && matches!(pace, Pace::Lead { gb: true, .. }) => false,
                    _ if progress.written == 1 && last_unit < 0x80 => middle && pace.punctuation() && last_unit < 0x3C,
                    _ => true,
                };
            }
        }
    }

    /// The shared body of every `decode_*` method. `strict`: return at each
    /// malformed sequence; otherwise write U+FFFD for it and go on.
    fn run<O: Output + ?Sized>(
        &mut self,
        src: &[u8],
        dst: &mut O,
        last: bool,
        strict: bool,
    ) -> (DecoderResult, usize, usize, bool) {
        let mut read = match self.sniff(src, last) {
            Sniffed::Holding(taken) => return (DecoderResult::InputEmpty, taken, 0, false),
            Sniffed::Decode(skip) => skip,
        };
        let mut written = 0;
        let mut had_errors = false;
        loop {
            if self.owed_replacement {
                if dst.room(written) < O::REPLACEMENT_LEN {
                    return (DecoderResult::OutputFull, read, written, had_errors);
                }
                dst.replace(written);
                written += O::REPLACEMENT_LEN;
                self.owed_replacement = false;
            }
            let (held, start, end) = self.replay();
            let from_replay = start < end;
            let input = if from_replay { &held[start..end] } else { &src[read..] };
            let input_last = last && (!from_replay || read == src.len());
            let fed_before = self.native_fed;
            // ISO-2022-JP at the end of the stream: the state before, for the output
            // flag at an `ESC` there (see `iso_kept_output`).
            let iso_before =
                (input_last && self.native.encoding() == whatenc::ISO_2022_JP).then(|| self.native.clone());
            let progress = self.raw(input, dst, written, input_last, from_replay && self.requeued);
            if from_replay {
                self.replayed += progress.read as u8;
                self.requeued &= self.replayed < self.held_len;
            } else {
                read += progress.read;
            }
            written += progress.written;
            if progress.result == whatenc::DecoderResult::InputEmpty {
                self.restored = 0;
            }
            let result = match progress.result {
                whatenc::DecoderResult::InputEmpty if from_replay => continue,
                whatenc::DecoderResult::InputEmpty => DecoderResult::InputEmpty,
                whatenc::DecoderResult::OutputFull => DecoderResult::OutputFull,
                whatenc::DecoderResult::Malformed(error) => {
                    had_errors = true;
                    let mut after = (self.native_fed - error.offset - u64::from(error.len)) as u8;
                    let put_back = after;
                    if let Some((from_src, more)) = self.take_restored(error, &src[read..]) {
                        read += from_src;
                        after += more;
                    }
                    let utf16 = matches!(self.native.encoding().name(), "UTF-16BE" | "UTF-16LE");
                    if utf16 && after == 2 && !from_replay && error.offset >= fed_before && read >= 2 {
                        // A leading surrogate and the unit after it that is not a
                        // trailing one, in one call: encoding_rs leaves the unit unread.
                        let (_, unit) = self.native.take_restored();
                        self.native_fed -= unit as u64;
                        read -= unit;
                        after = 0;
                    }
                    let iso = self.native.encoding() == whatenc::ISO_2022_JP;
                    if iso
                        && error.len == 1
                        && after == 0
                        && !from_replay
                        && src.get(read) == Some(&0x1B)
                        && (0x21..=0x7E).contains(&self.last_fed)
                        && self.native.iso_2022_jp_lead_and_output().is_some_and(|(lead, _)| lead == self.last_fed)
                    {
                        // A leading byte of JIS X 0208 before `ESC`: encoding_rs reads
                        // the `ESC` as part of the error (the native decoder leaves it
                        // for the next call); it starts an escape sequence all the same.
                        // (Not a byte that is no katakana, 0x60 to 0x7E, before `ESC`:
                        // an error of its own, with no lead.)
                        let progress = self.feed(&src[read..read + 1], dst, written, 0, false);
                        read += progress.read;
                        after = progress.read as u8;
                    }
                    // The bytes of an escape sequence cut by the end of the stream:
                    // `ESC` (then `after` is 0), or `ESC $` or `ESC (` (1).
                    let escape = match self.last_fed {
                        0x1B if after == 0 => 1,
                        0x24 | 0x28 if after == 1 => 2,
                        _ => 0,
                    };
                    if let Some(mut before) =
                        iso_before.filter(|_| error.len == 1 && escape > 0 && progress.read == input.len())
                    {
                        // The stream ended inside an escape sequence: encoding_rs's
                        // output flag stays as it was at its `ESC` (what the bytes
                        // before it in this call left; `ESC` itself does not change
                        // it), where the standard unsets it.
                        let mut rest = &input[..progress.read.saturating_sub(escape)];
                        let mut scratch = [0u16; 64];
                        while !rest.is_empty() {
                            rest = &rest[before.decode_to_utf16(rest, &mut scratch, false).read..];
                        }
                        self.iso_kept_output = before.iso_2022_jp_lead_and_output().is_some_and(|(_, output)| output);
                    }
                    self.unit_held = (utf16 && after == 2) || (iso && put_back > 0 && error.len != 3);
                    self.restored = after;
                    if error.len == 3 && self.native.encoding() == whatenc::ISO_2022_JP {
                        // An escape sequence right after another: encoding_rs
                        // reports the first as malformed, the second as read after it
                        // (and taken: nothing is decoded again).
                        after = 3;
                        self.restored = 0;
                    }
                    if !strict {
                        self.owed_replacement = true;
                        continue;
                    }
                    DecoderResult::Malformed(error.len, after)
                }
            };
            return (result, read, written, had_errors);
        }
    }

    /// [`Decoder::run`] for the replacing methods.
    fn replacing<O: Output + ?Sized>(
        &mut self,
        src: &[u8],
        dst: &mut O,
        last: bool,
    ) -> (CoderResult, usize, usize, bool) {
        let (result, read, written, had_errors) = self.run(src, dst, last, false);
        let result =
            if result == DecoderResult::OutputFull { CoderResult::OutputFull } else { CoderResult::InputEmpty };
        (result, read, written, had_errors)
    }

    /// [`Decoder::run`] for the `*_without_replacement` methods.
    fn failing<O: Output + ?Sized>(&mut self, src: &[u8], dst: &mut O, last: bool) -> (DecoderResult, usize, usize) {
        let (result, read, written, _) = self.run(src, dst, last, true);
        (result, read, written)
    }

    /// Decodes into UTF-8 bytes, writing U+FFFD for each malformed sequence.
    /// Returns why it stopped, bytes read, bytes written, and whether there were
    /// errors. Only `dst[..written]` is output.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, UTF_8};
    /// let mut out = [0u8; 16];
    /// let (result, read, written, had_errors) = UTF_8.new_decoder().decode_to_utf8(b"a\xFFb", &mut out, true);
    /// assert_eq!((result, read, &out[..written], had_errors), (CoderResult::InputEmpty, 3, "a\u{FFFD}b".as_bytes(), true));
    /// ```
    pub fn decode_to_utf8(&mut self, src: &[u8], dst: &mut [u8], last: bool) -> (CoderResult, usize, usize, bool) {
        self.replacing(src, dst, last)
    }

    /// Decodes into UTF-8 bytes, stopping after each malformed sequence. Returns why
    /// it stopped, bytes read and bytes written.
    ///
    /// ```
    /// use whatenc_encoding_rs::{DecoderResult, UTF_8};
    /// let mut out = [0u8; 16];
    /// let mut decoder = UTF_8.new_decoder();
    /// assert_eq!(decoder.decode_to_utf8_without_replacement(b"a\xFFb", &mut out, true), (DecoderResult::Malformed(1, 0), 2, 1));
    /// assert_eq!(decoder.decode_to_utf8_without_replacement(b"b", &mut out, true), (DecoderResult::InputEmpty, 1, 1));
    /// ```
    pub fn decode_to_utf8_without_replacement(
        &mut self,
        src: &[u8],
        dst: &mut [u8],
        last: bool,
    ) -> (DecoderResult, usize, usize) {
        self.failing(src, dst, last)
    }

    /// [`Decoder::decode_to_utf8`] into a `&mut str`: the bytes after `written`
    /// stay valid UTF-8.
    ///
    /// ```
    /// let mut buffer = String::from("0123456789");
    /// let (_, _, written, _) = whatenc_encoding_rs::KOI8_R.new_decoder().decode_to_str(b"\xC1", buffer.as_mut_str(), true);
    /// assert_eq!(&buffer[..written], "а");
    /// ```
    pub fn decode_to_str(&mut self, src: &[u8], dst: &mut str, last: bool) -> (CoderResult, usize, usize, bool) {
        self.replacing(src, dst, last)
    }

    /// [`Decoder::decode_to_utf8_without_replacement`] into a `&mut str`: the bytes
    /// after `written` stay valid UTF-8.
    ///
    /// ```
    /// use whatenc_encoding_rs::DecoderResult;
    /// let mut buffer = String::from("0123456789");
    /// let (result, _, written) = whatenc_encoding_rs::UTF_8.new_decoder().decode_to_str_without_replacement(b"hi", buffer.as_mut_str(), true);
    /// assert_eq!((result, &buffer[..written]), (DecoderResult::InputEmpty, "hi"));
    /// ```
    pub fn decode_to_str_without_replacement(
        &mut self,
        src: &[u8],
        dst: &mut str,
        last: bool,
    ) -> (DecoderResult, usize, usize) {
        self.failing(src, dst, last)
    }

    /// Decodes and appends to a `String`, within its spare capacity (it never
    /// reallocates), writing U+FFFD for each malformed sequence. Returns why it
    /// stopped, bytes read, and whether there were errors.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, EUC_KR};
    /// let mut decoder = EUC_KR.new_decoder();
    /// let mut text = String::with_capacity(decoder.max_utf8_buffer_length(3).unwrap());
    /// assert_eq!(decoder.decode_to_string(b"\xB0\xA1\xB0", &mut text, true), (CoderResult::InputEmpty, 3, true));
    /// assert_eq!(text, "가\u{FFFD}");
    /// ```
    pub fn decode_to_string(&mut self, src: &[u8], dst: &mut String, last: bool) -> (CoderResult, usize, bool) {
        let (result, read, _, had_errors) = self.replacing(src, dst, last);
        (result, read, had_errors)
    }

    /// Decodes and appends to a `String`, within its spare capacity, stopping after
    /// each malformed sequence. Returns why it stopped and bytes read.
    ///
    /// ```
    /// use whatenc_encoding_rs::{DecoderResult, UTF_8};
    /// let mut text = String::with_capacity(16);
    /// let result = UTF_8.new_decoder().decode_to_string_without_replacement(b"ok\xC3", &mut text, true);
    /// assert_eq!(result, (DecoderResult::Malformed(1, 0), 3));
    /// assert_eq!(text, "ok");
    /// ```
    pub fn decode_to_string_without_replacement(
        &mut self,
        src: &[u8],
        dst: &mut String,
        last: bool,
    ) -> (DecoderResult, usize) {
        let (result, read, _) = self.failing(src, dst, last);
        (result, read)
    }

    /// Decodes into UTF-16 code units, writing U+FFFD for each malformed sequence.
    /// Returns why it stopped, bytes read, units written, and whether there were
    /// errors.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, UTF_8};
    /// let mut out = [0u16; 8];
    /// let (result, read, written, had_errors) = UTF_8.new_decoder().decode_to_utf16("😀".as_bytes(), &mut out, true);
    /// assert_eq!((result, read, &out[..written], had_errors), (CoderResult::InputEmpty, 4, &[0xD83D, 0xDE00][..], false));
    /// ```
    pub fn decode_to_utf16(&mut self, src: &[u8], dst: &mut [u16], last: bool) -> (CoderResult, usize, usize, bool) {
        self.replacing(src, dst, last)
    }

    /// Decodes into UTF-16 code units, stopping after each malformed sequence.
    /// Returns why it stopped, bytes read and units written.
    ///
    /// ```
    /// use whatenc_encoding_rs::{DecoderResult, UTF_16LE};
    /// let mut out = [0u16; 8];
    /// let result = UTF_16LE.new_decoder().decode_to_utf16_without_replacement(b"a\0\x00\xDC", &mut out, true);
    /// assert_eq!(result, (DecoderResult::Malformed(2, 0), 4, 1));
    /// ```
    pub fn decode_to_utf16_without_replacement(
        &mut self,
        src: &[u8],
        dst: &mut [u16],
        last: bool,
    ) -> (DecoderResult, usize, usize) {
        self.failing(src, dst, last)
    }
}

impl fmt::Debug for Decoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoder").field("encoding", self.encoding()).finish_non_exhaustive()
    }
}
