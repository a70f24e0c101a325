//! The standard's API (`encoding.bs` § "API"), in Rust: [`TextDecoder`],
//! [`TextEncoder`], [`TextDecoderStream`] and [`TextEncoderStream`].
//!
//! These follow the standard's algorithms step by step, including the details that
//! differ from the rest of the crate: a [`TextDecoder`] removes one leading U+FEFF of
//! its output ("serialize I/O queue") rather than sniffing a BOM, a decoding call
//! that fails in "fatal" mode returns no text at all, and the streams never emit
//! an empty chunk. JavaScript's `RangeError` and `TypeError` are [`RangeError`] and
//! [`TypeError`]; JavaScript strings are `&str`/`String` or, where lone surrogates
//! matter, UTF-16 code units (`&[u16]`/`Vec<u16>`).
//!
//! ```
//! use whatenc::text::{DecodeOptions, TextDecoder, TextDecoderOptions, TextEncoder};
//!
//! let bytes = TextEncoder::new().encode("\u{FEFF}héllo");
//! let mut decoder = TextDecoder::new("utf-8", TextDecoderOptions::default()).unwrap();
//! // The leading BOM is removed; the text is cut anywhere across calls.
//! let mut text = decoder.decode(&bytes[..5], DecodeOptions { stream: true }).unwrap();
//! text += &decoder.decode(&bytes[5..], DecodeOptions::default()).unwrap();
//! assert_eq!(text, "héllo");
//! ```

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::decoder::{DecodeError, DecodeProgress, Decoder, DecoderOptions, DecoderResult, ErrorMode};
use crate::encoding::{Encoding, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE};

/// The lower-case names of [`Encoding::all`], in the same order.
static LOWER_CASE_NAMES: [&str; 40] = [
    "utf-8",
    "ibm866",
    "iso-8859-2",
    "iso-8859-3",
    "iso-8859-4",
    "iso-8859-5",
    "iso-8859-6",
    "iso-8859-7",
    "iso-8859-8",
    "iso-8859-8-i",
    "iso-8859-10",
    "iso-8859-13",
    "iso-8859-14",
    "iso-8859-15",
    "iso-8859-16",
    "koi8-r",
    "koi8-u",
    "macintosh",
    "windows-874",
    "windows-1250",
    "windows-1251",
    "windows-1252",
    "windows-1253",
    "windows-1254",
    "windows-1255",
    "windows-1256",
    "windows-1257",
    "windows-1258",
    "x-mac-cyrillic",
    "gbk",
    "gb18030",
    "big5",
    "euc-jp",
    "iso-2022-jp",
    "shift_jis",
    "euc-kr",
    "replacement",
    "utf-16be",
    "utf-16le",
    "x-user-defined",
];

/// An encoding's name, ASCII lower-cased, as a `&'static str`.
fn lower_case_name(encoding: &'static Encoding) -> &'static str {
    Encoding::all().iter().position(|&e| e == encoding).map_or("", |i| LOWER_CASE_NAMES[i])
}

/// The error of the constructors: the label is not a label of the standard, or it is
/// a label of the replacement encoding (JavaScript's `RangeError`).
///
/// ```
/// use whatenc::text::{TextDecoder, TextDecoderOptions};
/// let error = TextDecoder::new("utf-32", TextDecoderOptions::default()).unwrap_err();
/// assert_eq!(error.label(), "utf-32");
/// assert_eq!(error.to_string(), "\"utf-32\" is not the label of an encoding");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RangeError {
    label: String,
    replacement: bool,
}

impl RangeError {
    /// The label that was refused, as given.
    ///
    /// ```
    /// use whatenc::text::{TextDecoder, TextDecoderOptions};
    /// let error = TextDecoder::new("hz-gb-2312", TextDecoderOptions::default()).unwrap_err();
    /// assert_eq!(error.label(), "hz-gb-2312");
    /// ```
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Whether the label is a label of the replacement encoding (rather than no
    /// label at all).
    ///
    /// ```
    /// use whatenc::text::{TextDecoder, TextDecoderOptions};
    /// assert!(TextDecoder::new("iso-2022-kr", TextDecoderOptions::default()).unwrap_err().is_replacement());
    /// assert!(!TextDecoder::new("nope", TextDecoderOptions::default()).unwrap_err().is_replacement());
    /// ```
    pub fn is_replacement(&self) -> bool {
        self.replacement
    }
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.replacement {
            write!(f, "{:?} is a label of the replacement encoding, which cannot be decoded here", self.label)
        } else {
            write!(f, "{:?} is not the label of an encoding", self.label)
        }
    }
}

impl core::error::Error for RangeError {}

/// The error of decoding in "fatal" mode (JavaScript's `TypeError`): the input was
/// malformed, or the stream was already errored or closed.
///
/// ```
/// use whatenc::text::{DecodeOptions, TextDecoder, TextDecoderOptions};
/// let mut decoder = TextDecoder::new("utf-8", TextDecoderOptions { fatal: true, ..Default::default() }).unwrap();
/// let error = decoder.decode(b"ab\xFF", DecodeOptions::default()).unwrap_err();
/// assert_eq!(error.decode_error().unwrap().offset, 2);
/// assert_eq!(error.to_string(), "invalid utf-8 data: malformed input at byte offset 2 (1 byte)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeError {
    encoding: &'static str,
    malformed: Option<DecodeError>,
}

impl TypeError {
    /// Where the malformed input is, counted from the start of the stream (the first
    /// call since the last call that did not stream), or `None` when the error is a
    /// stream's that was already errored or closed.
    ///
    /// ```
    /// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
    /// let mut stream = TextDecoderStream::new("utf-8", TextDecoderOptions { fatal: true, ..Default::default() }).unwrap();
    /// assert_eq!(stream.transform(b"a\xC3").unwrap().as_deref(), Some("a"));
    /// assert_eq!(stream.flush().unwrap_err().decode_error().unwrap().offset, 1);
    /// // A closed stream's error has no position.
    /// let mut stream = TextDecoderStream::new("utf-8", TextDecoderOptions::default()).unwrap();
    /// assert_eq!(stream.flush().unwrap(), None);
    /// assert_eq!(stream.transform(b"x").unwrap_err().decode_error(), None);
    /// ```
    pub fn decode_error(&self) -> Option<DecodeError> {
        self.malformed
    }
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.malformed {
            Some(error) => write!(f, "invalid {} data: {error}", self.encoding),
            None => write!(f, "the {} decoder stream is errored or closed", self.encoding),
        }
    }
}

impl core::error::Error for TypeError {}

/// The options of [`TextDecoder::new`] and [`TextDecoderStream::new`] (the
/// standard's `TextDecoderOptions`).
///
/// ```
/// use whatenc::text::TextDecoderOptions;
/// let options = TextDecoderOptions { fatal: true, ignore_bom: false };
/// assert_eq!(TextDecoderOptions::default(), TextDecoderOptions { fatal: false, ignore_bom: false });
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct TextDecoderOptions {
    /// `fatal`: malformed input is an error rather than U+FFFD.
    pub fatal: bool,
    /// `ignoreBOM`: keep a leading U+FEFF in the output.
    pub ignore_bom: bool,
}

/// The options of [`TextDecoder::decode`] (the standard's `TextDecodeOptions`).
///
/// ```
/// use whatenc::text::DecodeOptions;
/// assert!(!DecodeOptions::default().stream);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct DecodeOptions {
    /// `stream`: more input follows; keep the decoder's state for the next call.
    pub stream: bool,
}

/// What a [`TextDecoder`] and a [`TextDecoderStream`] share: the standard's
/// `TextDecoderCommon` (encoding, decoder, error mode, ignore BOM, BOM seen).
#[derive(Debug, Clone)]
struct Common {
    encoding: &'static Encoding,
    mode: ErrorMode,
    ignore_bom: bool,
    decoder: Decoder,
    bom_seen: bool,
}

impl Common {
    fn new(label: &str, options: TextDecoderOptions) -> Result<Common, RangeError> {
        // "Let encoding be the result of getting an encoding from label. If encoding
        // is failure or replacement, then throw a RangeError."
        let encoding = match Encoding::for_label_str(label) {
            Some(encoding) if encoding != REPLACEMENT => encoding,
            found => return Err(RangeError { label: label.into(), replacement: found.is_some() }),
        };
        let mode = if options.fatal { ErrorMode::Fatal } else { ErrorMode::Replacement };
        Ok(Common {
            encoding,
            mode,
            ignore_bom: options.ignore_bom,
            decoder: Common::new_decoder(encoding, mode),
            bom_seen: false,
        })
    }

    /// "A new instance of encoding's decoder": the bare decoder, no BOM handling
    /// (the BOM is the business of "serialize I/O queue").
    fn new_decoder(encoding: &'static Encoding, mode: ErrorMode) -> Decoder {
        encoding.new_decoder_with(DecoderOptions { mode, ..Default::default() })
    }

    fn error(&self, malformed: Option<DecodeError>) -> TypeError {
        TypeError { encoding: lower_case_name(self.encoding), malformed }
    }

    /// Runs the decoder over `src` (followed by end-of-queue when `last`), appending
    /// to `output`. On an error in "fatal" mode, returns the bytes of `src` consumed
    /// up to and including the malformed sequence, and the error.
    fn process<O: Output>(&mut self, src: &[u8], last: bool, output: &mut O) -> Result<(), (usize, DecodeError)> {
        let mut read = 0;
        loop {
            let progress = O::decode(&mut self.decoder, &src[read..], output, last);
            read += progress.read;
            match progress.result {
                DecoderResult::InputEmpty => return Ok(()),
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(error) => return Err((read, error)),
            }
        }
    }

    /// "Serialize I/O queue": the first scalar value output since the decoder was
    /// made sets BOM seen and, if it is U+FEFF, is dropped — only for UTF-8 and
    /// UTF-16BE/LE, and only when ignore BOM is false.
    fn serialize<O: Output>(&mut self, output: &mut O) {
        if (self.encoding == UTF_8 || self.encoding == UTF_16BE || self.encoding == UTF_16LE)
            && !self.ignore_bom
            && !self.bom_seen
            && !output.is_empty()
        {
            self.bom_seen = true;
            output.remove_leading_bom();
        }
    }
}

/// An output "I/O queue of scalar values": a `String` or UTF-16 code units.
trait Output: Default {
    /// One decoding call, growing `out` enough to take all of `src`.
    fn decode(decoder: &mut Decoder, src: &[u8], out: &mut Self, last: bool) -> DecodeProgress;
    fn is_empty(&self) -> bool;
    /// Removes the first scalar value if it is U+FEFF.
    fn remove_leading_bom(&mut self);
}

impl Output for String {
    fn decode(decoder: &mut Decoder, src: &[u8], out: &mut String, last: bool) -> DecodeProgress {
        out.reserve(decoder.max_utf8_buffer_length(src.len()).unwrap_or(src.len()).max(16));
        decoder.decode_to_string(src, out, last)
    }
    fn is_empty(&self) -> bool {
        String::is_empty(self)
    }
    fn remove_leading_bom(&mut self) {
        if self.starts_with('\u{FEFF}') {
            self.drain(..'\u{FEFF}'.len_utf8());
        }
    }
}

impl Output for Vec<u16> {
    fn decode(decoder: &mut Decoder, src: &[u8], out: &mut Vec<u16>, last: bool) -> DecodeProgress {
        let old_len = out.len();
        let room = decoder.max_utf16_buffer_length(src.len()).unwrap_or(src.len()).max(16);
        out.resize(old_len + room, 0);
        let progress = decoder.decode_to_utf16(src, &mut out[old_len..], last);
        out.truncate(old_len + progress.written);
        progress
    }
    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
    fn remove_leading_bom(&mut self) {
        if self.first() == Some(&0xFEFF) {
            self.remove(0);
        }
    }
}

/// The standard's `TextDecoder`: decodes bytes of one encoding, in one call or
/// streamed over many.
///
/// Underneath is the crate's [`Decoder`] with no BOM handling; the standard's
/// "serialize I/O queue" then removes a leading U+FEFF from the output for UTF-8
/// and UTF-16BE/LE unless `ignore_bom` is set.
///
/// ```
/// use whatenc::text::{DecodeOptions, TextDecoder, TextDecoderOptions};
/// let mut decoder = TextDecoder::new("sjis", TextDecoderOptions::default()).unwrap();
/// assert_eq!(decoder.encoding(), "shift_jis");
/// let stream = DecodeOptions { stream: true };
/// let mut text = decoder.decode(b"\x93", stream).unwrap();
/// text += &decoder.decode(b"\xfa\x96\x7b", stream).unwrap();
/// text += &decoder.decode(b"", DecodeOptions::default()).unwrap();
/// assert_eq!(text, "日本");
/// ```
#[derive(Debug, Clone)]
pub struct TextDecoder {
    common: Common,
    /// "do not flush".
    do_not_flush: bool,
    /// The bytes of the I/O queue that a call which threw did not read.
    queue: Vec<u8>,
}

impl Default for TextDecoder {
    /// `new TextDecoder()`: UTF-8, "replacement" mode, BOM removed.
    ///
    /// ```
    /// let decoder = whatenc::text::TextDecoder::default();
    /// assert_eq!((decoder.encoding(), decoder.fatal(), decoder.ignore_bom()), ("utf-8", false, false));
    /// ```
    fn default() -> TextDecoder {
        TextDecoder {
            common: Common {
                encoding: UTF_8,
                mode: ErrorMode::Replacement,
                ignore_bom: false,
                decoder: Common::new_decoder(UTF_8, ErrorMode::Replacement),
                bom_seen: false,
            },
            do_not_flush: false,
            queue: Vec::new(),
        }
    }
}

impl TextDecoder {
    /// `new TextDecoder(label, options)`: a [`RangeError`] naming the label if it is
    /// not a label or is a label of the replacement encoding.
    ///
    /// ```
    /// use whatenc::text::{TextDecoder, TextDecoderOptions};
    /// let decoder = TextDecoder::new(" Latin1 ", TextDecoderOptions { fatal: true, ignore_bom: true }).unwrap();
    /// assert_eq!((decoder.encoding(), decoder.fatal(), decoder.ignore_bom()), ("windows-1252", true, true));
    /// assert!(TextDecoder::new("replacement", TextDecoderOptions::default()).is_err());
    /// ```
    pub fn new(label: &str, options: TextDecoderOptions) -> Result<TextDecoder, RangeError> {
        Ok(TextDecoder { common: Common::new(label, options)?, do_not_flush: false, queue: Vec::new() })
    }

    /// The `encoding` getter: the encoding's name, ASCII lower-cased.
    ///
    /// ```
    /// use whatenc::text::{TextDecoder, TextDecoderOptions};
    /// assert_eq!(TextDecoder::new("unicode", TextDecoderOptions::default()).unwrap().encoding(), "utf-16le");
    /// ```
    pub fn encoding(&self) -> &'static str {
        lower_case_name(self.common.encoding)
    }

    /// The `fatal` getter: whether the error mode is "fatal".
    ///
    /// ```
    /// assert!(!whatenc::text::TextDecoder::default().fatal());
    /// ```
    pub fn fatal(&self) -> bool {
        self.common.mode == ErrorMode::Fatal
    }

    /// The `ignoreBOM` getter.
    ///
    /// ```
    /// assert!(!whatenc::text::TextDecoder::default().ignore_bom());
    /// ```
    pub fn ignore_bom(&self) -> bool {
        self.common.ignore_bom
    }

    /// `decode(input, options)`, the standard's steps: unless the previous call
    /// streamed, start afresh (new decoder, empty I/O queue, BOM seen false); push
    /// `input`; decode until end-of-queue, which is processed (flushing a truncated
    /// sequence) only when `options.stream` is false; then "serialize I/O queue".
    ///
    /// In "fatal" mode an error is a [`TypeError`], and the call returns no text.
    /// When that call streamed, the bytes after the error stay queued and are
    /// decoded first by the next call.
    ///
    /// ```
    /// use whatenc::text::{DecodeOptions, TextDecoder, TextDecoderOptions};
    /// let mut decoder = TextDecoder::new("utf-8", TextDecoderOptions { fatal: true, ..Default::default() }).unwrap();
    /// let stream = DecodeOptions { stream: true };
    /// assert!(decoder.decode(&[0x41, 0xFF], stream).is_err());
    /// // BOM seen is still false: this call's BOM is removed.
    /// assert_eq!(decoder.decode(&[0xEF, 0xBB, 0xBF, 0x42], DecodeOptions::default()).unwrap(), "B");
    /// ```
    pub fn decode(&mut self, input: &[u8], options: DecodeOptions) -> Result<String, TypeError> {
        self.run(input, options)
    }

    /// [`TextDecoder::decode`] with UTF-16 code units as output (a JavaScript
    /// string's representation).
    ///
    /// ```
    /// use whatenc::text::{DecodeOptions, TextDecoder};
    /// let mut decoder = TextDecoder::default();
    /// assert_eq!(decoder.decode_utf16("\u{FEFF}😀".as_bytes(), DecodeOptions::default()).unwrap(), [0xD83D, 0xDE00]);
    /// ```
    pub fn decode_utf16(&mut self, input: &[u8], options: DecodeOptions) -> Result<Vec<u16>, TypeError> {
        self.run(input, options)
    }

    fn run<O: Output>(&mut self, input: &[u8], options: DecodeOptions) -> Result<O, TypeError> {
        // 1. If do not flush is false, set decoder to a new instance of encoding's
        // decoder, the I/O queue to « end-of-queue », and BOM seen to false.
        if !self.do_not_flush {
            self.common.decoder = Common::new_decoder(self.common.encoding, self.common.mode);
            self.queue.clear();
            self.common.bom_seen = false;
        }
        // 2. Set do not flush to options["stream"].
        self.do_not_flush = options.stream;
        // 3. Push input to the I/O queue. (The queue is the bytes a throwing call left,
        // then `input`; they are read in that order without being copied together.)
        let queued = core::mem::take(&mut self.queue);
        // 4. Let output be « end-of-queue ».
        let mut output = O::default();
        // 5. Read and process items until end-of-queue. With do not flush true,
        // end-of-queue is not processed; otherwise it is (`last`).
        let last = !options.stream;
        if !queued.is_empty()
            && let Err((read, error)) = self.common.process(&queued, last && input.is_empty(), &mut output)
        {
            // Throw; what was not read stays in the I/O queue.
            let mut rest = queued;
            rest.drain(..read);
            rest.extend_from_slice(input);
            self.queue = rest;
            return Err(self.common.error(Some(error)));
        }
        if (queued.is_empty() || !input.is_empty())
            && let Err((read, error)) = self.common.process(input, last, &mut output)
        {
            // Throw; what was not read stays in the I/O queue.
            self.queue = input[read..].to_vec();
            return Err(self.common.error(Some(error)));
        }
        // "Return the result of running serialize I/O queue with this and output."
        self.common.serialize(&mut output);
        Ok(output)
    }
}

/// The standard's `TextDecoderStream`, sans I/O: feed it byte chunks with
/// [`TextDecoderStream::transform`] ("decode and enqueue a chunk") and end it
/// with [`TextDecoderStream::flush`] ("flush and enqueue"); each returns the chunk
/// to enqueue on the readable side, or `None` where the standard enqueues nothing
/// (it never enqueues an empty string).
///
/// After a [`TypeError`] the stream is errored, and after `flush` it is closed:
/// every later call returns a [`TypeError`].
///
/// ```
/// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
/// let mut stream = TextDecoderStream::new("utf-16be", TextDecoderOptions::default()).unwrap();
/// assert_eq!(stream.transform(b"\xFE\xFF\x00").unwrap(), None);
/// assert_eq!(stream.transform(b"A\xD8").unwrap().as_deref(), Some("A"));
/// assert_eq!(stream.flush().unwrap().as_deref(), Some("\u{FFFD}"));
/// ```
#[derive(Debug, Clone)]
pub struct TextDecoderStream {
    common: Common,
    /// Errored (with the error) or closed (`None` inside).
    ended: Option<Option<DecodeError>>,
}

impl TextDecoderStream {
    /// `new TextDecoderStream(label, options)`: a [`RangeError`] naming the label if
    /// it is not a label or is a label of the replacement encoding.
    ///
    /// ```
    /// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
    /// assert_eq!(TextDecoderStream::new("ascii", TextDecoderOptions::default()).unwrap().encoding(), "windows-1252");
    /// assert!(TextDecoderStream::new("x", TextDecoderOptions::default()).is_err());
    /// ```
    pub fn new(label: &str, options: TextDecoderOptions) -> Result<TextDecoderStream, RangeError> {
        Ok(TextDecoderStream { common: Common::new(label, options)?, ended: None })
    }

    /// The `encoding` getter: the encoding's name, ASCII lower-cased.
    ///
    /// ```
    /// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
    /// assert_eq!(TextDecoderStream::new("EUC-JP", TextDecoderOptions::default()).unwrap().encoding(), "euc-jp");
    /// ```
    pub fn encoding(&self) -> &'static str {
        lower_case_name(self.common.encoding)
    }

    /// The `fatal` getter.
    ///
    /// ```
    /// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
    /// let options = TextDecoderOptions { fatal: true, ..Default::default() };
    /// assert!(TextDecoderStream::new("utf-8", options).unwrap().fatal());
    /// ```
    pub fn fatal(&self) -> bool {
        self.common.mode == ErrorMode::Fatal
    }

    /// The `ignoreBOM` getter.
    ///
    /// ```
    /// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
    /// assert!(!TextDecoderStream::new("utf-8", TextDecoderOptions::default()).unwrap().ignore_bom());
    /// ```
    pub fn ignore_bom(&self) -> bool {
        self.common.ignore_bom
    }

    /// "Decode and enqueue a chunk": pushes `chunk` to the I/O queue, decodes up to
    /// end-of-queue (without processing it), runs "serialize I/O queue", and returns
    /// the text unless it is empty. A malformed sequence in "fatal" mode is a
    /// [`TypeError`] and errors the stream.
    ///
    /// ```
    /// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
    /// let mut stream = TextDecoderStream::new("utf-8", TextDecoderOptions::default()).unwrap();
    /// assert_eq!(stream.transform(b"\xEF\xBB").unwrap(), None);
    /// assert_eq!(stream.transform(b"\xBF\xEF\xBB\xBFx").unwrap().as_deref(), Some("\u{FEFF}x"));
    /// ```
    pub fn transform(&mut self, chunk: &[u8]) -> Result<Option<String>, TypeError> {
        self.check_open()?;
        let mut output = String::new();
        if let Err((_, error)) = self.common.process(chunk, false, &mut output) {
            return Err(self.fail(error));
        }
        self.common.serialize(&mut output);
        Ok((!output.is_empty()).then_some(output))
    }

    /// "Flush and enqueue": processes end-of-queue (a truncated sequence becomes
    /// U+FFFD, or a [`TypeError`] in "fatal" mode), runs "serialize I/O queue", and
    /// returns the text unless it is empty. The stream is then closed.
    ///
    /// ```
    /// use whatenc::text::{TextDecoderOptions, TextDecoderStream};
    /// let mut stream = TextDecoderStream::new("gb18030", TextDecoderOptions::default()).unwrap();
    /// assert_eq!(stream.transform(b"\x81\x30").unwrap(), None);
    /// assert_eq!(stream.flush().unwrap().as_deref(), Some("\u{FFFD}"));
    /// assert!(stream.flush().is_err());
    /// ```
    pub fn flush(&mut self) -> Result<Option<String>, TypeError> {
        self.check_open()?;
        let mut output = String::new();
        if let Err((_, error)) = self.common.process(&[], true, &mut output) {
            return Err(self.fail(error));
        }
        self.ended = Some(None);
        self.common.serialize(&mut output);
        Ok((!output.is_empty()).then_some(output))
    }

    fn check_open(&self) -> Result<(), TypeError> {
        match self.ended {
            Some(malformed) => Err(self.common.error(malformed)),
            None => Ok(()),
        }
    }

    fn fail(&mut self, error: DecodeError) -> TypeError {
        self.ended = Some(Some(error));
        self.common.error(Some(error))
    }
}

/// The result of [`TextEncoder::encode_into`] (the standard's
/// `TextEncoderEncodeIntoResult`).
///
/// ```
/// let mut buf = [0u8; 4];
/// let result = whatenc::text::TextEncoder::new().encode_into("a😀", &mut buf);
/// assert_eq!(result, whatenc::text::EncodeIntoResult { read: 1, written: 1 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct EncodeIntoResult {
    /// UTF-16 code units of the source converted.
    pub read: usize,
    /// Bytes written into the destination.
    pub written: usize,
}

/// The standard's `TextEncoder`: text in, UTF-8 out.
///
/// ```
/// use whatenc::text::TextEncoder;
/// let encoder = TextEncoder::new();
/// assert_eq!(encoder.encoding(), "utf-8");
/// assert_eq!(encoder.encode("€"), [0xE2, 0x82, 0xAC]);
/// assert_eq!(encoder.encode_utf16(&[0x61, 0xDC00]), b"a\xEF\xBF\xBD");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct TextEncoder {
    _private: (),
}

/// Converts UTF-16 code units to scalar values as a `USVString` is made: a lone
/// surrogate becomes U+FFFD. Yields each scalar value with its code unit count.
fn scalar_values(units: &[u16]) -> impl Iterator<Item = (char, usize)> + '_ {
    char::decode_utf16(units.iter().copied()).map(|result| match result {
        Ok(c) => (c, c.len_utf16()),
        Err(_) => ('\u{FFFD}', 1),
    })
}

impl TextEncoder {
    /// `new TextEncoder()`.
    ///
    /// ```
    /// assert_eq!(whatenc::text::TextEncoder::new().encode("hi"), b"hi");
    /// ```
    pub fn new() -> TextEncoder {
        TextEncoder { _private: () }
    }

    /// The `encoding` getter: always "utf-8".
    ///
    /// ```
    /// assert_eq!(whatenc::text::TextEncoder::new().encoding(), "utf-8");
    /// ```
    pub fn encoding(&self) -> &'static str {
        "utf-8"
    }

    /// `encode(input)`: the UTF-8 encoder's output for `input`.
    ///
    /// ```
    /// assert_eq!(whatenc::text::TextEncoder::new().encode("é"), b"\xC3\xA9");
    /// ```
    pub fn encode(&self, input: &str) -> Vec<u8> {
        input.as_bytes().to_vec()
    }

    /// `encode(input)` for a JavaScript string: converting it to a `USVString`
    /// turns each lone surrogate into U+FFFD.
    ///
    /// ```
    /// let encoder = whatenc::text::TextEncoder::new();
    /// assert_eq!(encoder.encode_utf16(&[0xD83D, 0xDE00, 0xD800]), "😀\u{FFFD}".as_bytes());
    /// ```
    pub fn encode_utf16(&self, input: &[u16]) -> Vec<u8> {
        let mut out = Vec::with_capacity(input.len() * 3);
        let mut buf = [0u8; 4];
        for (c, _) in scalar_values(input) {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        out
    }

    /// `encodeInto(source, destination)`: writes the UTF-8 of as many whole scalar
    /// values of `source` as fit, stopping at the first that does not (a character
    /// is never written in part). `read` counts UTF-16 code units (2 for a scalar
    /// value above U+FFFF), `written` bytes.
    ///
    /// ```
    /// use whatenc::text::{EncodeIntoResult, TextEncoder};
    /// let mut buf = [0u8; 5];
    /// let result = TextEncoder::new().encode_into("😀😀", &mut buf);
    /// assert_eq!(result, EncodeIntoResult { read: 2, written: 4 });
    /// ```
    pub fn encode_into(&self, source: &str, destination: &mut [u8]) -> EncodeIntoResult {
        let mut end = source.len().min(destination.len());
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let bytes = &source.as_bytes()[..end];
        destination[..end].copy_from_slice(bytes);
        // A scalar value has one code unit per non-continuation byte, and one more
        // when its UTF-8 is four bytes long.
        let read = bytes.iter().map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0)).sum();
        EncodeIntoResult { read, written: end }
    }

    /// [`TextEncoder::encode_into`] for a JavaScript string: a lone surrogate is
    /// U+FFFD (read as 1 code unit, written as 3 bytes).
    ///
    /// ```
    /// use whatenc::text::{EncodeIntoResult, TextEncoder};
    /// let mut buf = [0u8; 7];
    /// let result = TextEncoder::new().encode_into_utf16(&[0xDFFF, 0x41, 0xD83D, 0xDE00], &mut buf);
    /// assert_eq!(result, EncodeIntoResult { read: 2, written: 4 });
    /// assert_eq!(&buf[..4], b"\xEF\xBF\xBDA");
    /// ```
    pub fn encode_into_utf16(&self, source: &[u16], destination: &mut [u8]) -> EncodeIntoResult {
        let mut result = EncodeIntoResult::default();
        for (c, units) in scalar_values(source) {
            let len = c.len_utf8();
            if destination.len() - result.written < len {
                break;
            }
            c.encode_utf8(&mut destination[result.written..]);
            result.read += units;
            result.written += len;
        }
        result
    }
}

/// The standard's `TextEncoderStream`, sans I/O: feed it text chunks with
/// [`TextEncoderStream::transform_utf16`] or [`TextEncoderStream::transform`]
/// ("encode and enqueue a chunk") and end it with [`TextEncoderStream::flush`]
/// ("encode and flush"); each returns the UTF-8 chunk to enqueue, or `None` where the
/// standard enqueues nothing. A surrogate pair may be split between chunks.
///
/// ```
/// use whatenc::text::TextEncoderStream;
/// let mut stream = TextEncoderStream::new();
/// assert_eq!(stream.transform_utf16(&[0x61, 0xD83D]).as_deref(), Some(&b"a"[..]));
/// assert_eq!(stream.transform_utf16(&[0xDE00]).as_deref(), Some("😀".as_bytes()));
/// assert_eq!(stream.flush(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct TextEncoderStream {
    /// "leading surrogate".
    leading_surrogate: Option<u16>,
}

impl TextEncoderStream {
    /// `new TextEncoderStream()`.
    ///
    /// ```
    /// assert_eq!(whatenc::text::TextEncoderStream::new().flush(), None);
    /// ```
    pub fn new() -> TextEncoderStream {
        TextEncoderStream { leading_surrogate: None }
    }

    /// The `encoding` getter: always "utf-8".
    ///
    /// ```
    /// assert_eq!(whatenc::text::TextEncoderStream::new().encoding(), "utf-8");
    /// ```
    pub fn encoding(&self) -> &'static str {
        "utf-8"
    }

    /// "Encode and enqueue a chunk" for a chunk of UTF-16 code units: each code unit
    /// goes through "convert code unit to scalar value" (a leading surrogate at the
    /// end waits for the next chunk; a lone surrogate is U+FFFD); the bytes are
    /// returned unless there are none.
    ///
    /// ```
    /// let mut stream = whatenc::text::TextEncoderStream::new();
    /// assert_eq!(stream.transform_utf16(&[0xD800]), None);
    /// assert_eq!(stream.transform_utf16(&[0x62]).as_deref(), Some(&b"\xEF\xBF\xBDb"[..]));
    /// ```
    pub fn transform_utf16(&mut self, chunk: &[u16]) -> Option<Vec<u8>> {
        let mut output = Vec::with_capacity(chunk.len() * 3);
        let mut buf = [0u8; 4];
        let mut i = 0;
        while let Some(&item) = chunk.get(i) {
            i += 1;
            // "Convert code unit to scalar value".
            let scalar = if let Some(leading) = self.leading_surrogate.take() {
                if (0xDC00..=0xDFFF).contains(&item) {
                    let value = 0x10000 + ((u32::from(leading) - 0xD800) << 10) + (u32::from(item) - 0xDC00);
                    char::from_u32(value).unwrap_or('\u{FFFD}')
                } else {
                    // Restore item to input.
                    i -= 1;
                    '\u{FFFD}'
                }
            } else if (0xD800..=0xDBFF).contains(&item) {
                self.leading_surrogate = Some(item);
                continue;
            } else {
                // A trailing surrogate alone is U+FFFD; anything else is a scalar value.
                char::from_u32(u32::from(item)).unwrap_or('\u{FFFD}')
            };
            output.extend_from_slice(scalar.encode_utf8(&mut buf).as_bytes());
        }
        (!output.is_empty()).then_some(output)
    }

    /// "Encode and enqueue a chunk" for a chunk that is a `&str` (which holds no
    /// surrogates): a leading surrogate left by an earlier UTF-16 chunk becomes
    /// U+FFFD before a non-empty chunk.
    ///
    /// ```
    /// let mut stream = whatenc::text::TextEncoderStream::new();
    /// assert_eq!(stream.transform("").as_deref(), None);
    /// assert_eq!(stream.transform("ü").as_deref(), Some("ü".as_bytes()));
    /// ```
    pub fn transform(&mut self, chunk: &str) -> Option<Vec<u8>> {
        if chunk.is_empty() {
            return None;
        }
        let mut output = Vec::with_capacity(chunk.len() + 3);
        if self.leading_surrogate.take().is_some() {
            output.extend_from_slice("\u{FFFD}".as_bytes());
        }
        output.extend_from_slice(chunk.as_bytes());
        Some(output)
    }

    /// "Encode and flush": EF BF BD (U+FFFD) if a leading surrogate is left over,
    /// otherwise nothing.
    ///
    /// ```
    /// let mut stream = whatenc::text::TextEncoderStream::new();
    /// assert_eq!(stream.transform_utf16(&[0x41, 0xDBFF]).as_deref(), Some(&b"A"[..]));
    /// assert_eq!(stream.flush(), Some(vec![0xEF, 0xBF, 0xBD]));
    /// ```
    pub fn flush(&mut self) -> Option<Vec<u8>> {
        self.leading_surrogate.take().map(|_| vec![0xEF, 0xBF, 0xBD])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_case_names_match_the_table() {
        for (encoding, lower) in Encoding::all().iter().zip(LOWER_CASE_NAMES) {
            assert_eq!(encoding.name().to_ascii_lowercase(), lower);
        }
    }
}
