//! [`Encoding`]: the 40 encodings of the standard, "get an encoding" from a label,
//! and "get an output encoding".

use alloc::borrow::Cow;
use core::fmt;

use crate::codec::single_byte::SingleByteIndex;
use crate::decoder::{DecodeError, Decoder, DecoderOptions, DecoderResult, ErrorMode};
use crate::encoder::{Encoder, EncoderErrorMode, EncoderResult, NoEncoder};

pub use crate::tables::encodings::*;

/// Which decoder and encoder an encoding uses.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Utf8,
    Utf16Be,
    Utf16Le,
    SingleByte(&'static SingleByteIndex),
    XUserDefined,
    Replacement,
    Gbk,
    Gb18030,
    Big5,
    EucJp,
    Iso2022Jp,
    ShiftJis,
    EucKr,
}

/// An encoding of the Encoding Standard.
///
/// There is one `&'static Encoding` for each of the 40 encodings, such as [`UTF_8`]
/// and [`SHIFT_JIS`]; [`Encoding::for_label`] finds one from a label. Two
/// `&Encoding`s are equal when they are the same encoding.
///
/// ```
/// use whatenc::{Encoding, SHIFT_JIS};
/// let encoding = Encoding::for_label(b"  sjis ").unwrap();
/// assert_eq!(encoding, SHIFT_JIS);
/// assert_eq!(encoding.name(), "Shift_JIS");
/// ```
pub struct Encoding {
    name: &'static str,
    labels: &'static [&'static str],
    kind: Kind,
}

impl Encoding {
    /// Used by the generated statics.
    pub(crate) const fn new(name: &'static str, labels: &'static [&'static str], kind: Kind) -> Self {
        Encoding { name, labels, kind }
    }

    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// "Get an encoding": the encoding whose label is `label`, after removing leading
    /// and trailing ASCII whitespace and matching ASCII case-insensitively. `None` for
    /// anything that is not one of the standard's 228 labels.
    ///
    /// The lookup makes no allocation: the label is lower-cased into a stack buffer
    /// and found by binary search in the sorted label table.
    ///
    /// ```
    /// use whatenc::{Encoding, WINDOWS_1252, UTF_16LE};
    /// assert_eq!(Encoding::for_label(b"\tLatin1\n"), Some(WINDOWS_1252));
    /// assert_eq!(Encoding::for_label(b"utf-16"), Some(UTF_16LE));
    /// assert_eq!(Encoding::for_label(b"utf-32"), None);
    /// ```
    pub fn for_label(label: &[u8]) -> Option<&'static Encoding> {
        const MAX_LABEL: usize = crate::tables::encodings::LONGEST_LABEL;
        let is_whitespace = |b: &u8| matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
        let start = label.iter().position(|b| !is_whitespace(b))?;
        let end = label.iter().rposition(|b| !is_whitespace(b))? + 1;
        let trimmed = &label[start..end];
        if trimmed.len() > MAX_LABEL {
            return None;
        }
        let mut buf = [0u8; MAX_LABEL];
        let lower = &mut buf[..trimmed.len()];
        lower.copy_from_slice(trimmed);
        lower.make_ascii_lowercase();
        let labels = &crate::tables::encodings::LABELS;
        labels.binary_search_by(|(candidate, _)| candidate.as_bytes().cmp(lower)).ok().map(|i| labels[i].1)
    }

    /// [`Encoding::for_label`] for a `&str`.
    ///
    /// ```
    /// assert_eq!(whatenc::Encoding::for_label_str("GBK"), Some(whatenc::GBK));
    /// ```
    pub fn for_label_str(label: &str) -> Option<&'static Encoding> {
        Encoding::for_label(label.as_bytes())
    }

    /// All 40 encodings, in the order of the standard's table of names and labels.
    ///
    /// ```
    /// assert_eq!(whatenc::Encoding::all().len(), 40);
    /// assert_eq!(whatenc::Encoding::all()[0], whatenc::UTF_8);
    /// ```
    pub fn all() -> &'static [&'static Encoding] {
        &crate::tables::encodings::ALL
    }

    /// The standard's name, such as "UTF-8" or "Shift_JIS".
    ///
    /// ```
    /// assert_eq!(whatenc::ISO_8859_8_I.name(), "ISO-8859-8-I");
    /// ```
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The labels of this encoding, sorted, all lower case.
    ///
    /// ```
    /// assert_eq!(whatenc::KOI8_U.labels(), &["koi8-ru", "koi8-u"]);
    /// ```
    pub fn labels(&self) -> &'static [&'static str] {
        self.labels
    }

    /// "Get an output encoding": UTF-8 for replacement, UTF-16BE and UTF-16LE; the
    /// encoding itself otherwise.
    ///
    /// ```
    /// use whatenc::{UTF_16BE, UTF_8, GBK};
    /// assert_eq!(UTF_16BE.output_encoding(), UTF_8);
    /// assert_eq!(GBK.output_encoding(), GBK);
    /// ```
    pub fn output_encoding(&'static self) -> &'static Encoding {
        match self.kind {
            Kind::Replacement | Kind::Utf16Be | Kind::Utf16Le => UTF_8,
            _ => self,
        }
    }

    /// Whether bytes 0x00–0x7F always decode to U+0000–U+007F and those code points
    /// always encode to those bytes: false for UTF-16BE/LE, ISO-2022-JP and
    /// replacement.
    ///
    /// ```
    /// assert!(whatenc::SHIFT_JIS.is_ascii_compatible());
    /// assert!(!whatenc::ISO_2022_JP.is_ascii_compatible());
    /// ```
    pub fn is_ascii_compatible(&self) -> bool {
        !matches!(self.kind, Kind::Utf16Be | Kind::Utf16Le | Kind::Iso2022Jp | Kind::Replacement)
    }

    /// Whether this is one of the legacy single-byte encodings (x-user-defined included).
    ///
    /// ```
    /// assert!(whatenc::WINDOWS_1251.is_single_byte());
    /// assert!(!whatenc::UTF_8.is_single_byte());
    /// ```
    pub fn is_single_byte(&self) -> bool {
        matches!(self.kind, Kind::SingleByte(_) | Kind::XUserDefined)
    }

    /// Whether the standard defines an encoder: false for replacement, UTF-16BE and
    /// UTF-16LE.
    ///
    /// ```
    /// assert!(whatenc::EUC_KR.has_encoder());
    /// assert!(!whatenc::REPLACEMENT.has_encoder());
    /// ```
    pub fn has_encoder(&self) -> bool {
        !matches!(self.kind, Kind::Utf16Be | Kind::Utf16Le | Kind::Replacement)
    }

    /// A new decoder in the "replacement" error mode, with no BOM handling: the
    /// standard's decoder of this encoding.
    ///
    /// ```
    /// let mut decoder = whatenc::WINDOWS_1252.new_decoder();
    /// let mut out = [0u8; 16];
    /// let progress = decoder.decode_to_utf8(b"caf\xE9", &mut out, true);
    /// assert_eq!(&out[..progress.written], "café".as_bytes());
    /// ```
    pub fn new_decoder(&'static self) -> Decoder {
        Decoder::new(self, DecoderOptions::default())
    }

    /// A new decoder with the given options.
    ///
    /// ```
    /// use whatenc::{DecoderOptions, ErrorMode};
    /// let decoder = whatenc::UTF_8.new_decoder_with(DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() });
    /// assert_eq!(decoder.mode(), ErrorMode::Fatal);
    /// ```
    pub fn new_decoder_with(&'static self, options: DecoderOptions) -> Decoder {
        Decoder::new(self, options)
    }

    /// A new encoder in the "fatal" error mode, or [`NoEncoder`] for replacement and
    /// UTF-16BE/LE.
    ///
    /// ```
    /// assert!(whatenc::GB18030.new_encoder().is_ok());
    /// assert!(whatenc::UTF_16LE.new_encoder().is_err());
    /// ```
    pub fn new_encoder(&'static self) -> Result<Encoder, NoEncoder> {
        Encoder::new(self, EncoderErrorMode::Fatal)
    }

    /// A new encoder in the given error mode, or [`NoEncoder`].
    ///
    /// ```
    /// use whatenc::EncoderErrorMode;
    /// let encoder = whatenc::BIG5.new_encoder_with(EncoderErrorMode::Html).unwrap();
    /// assert_eq!(encoder.mode(), EncoderErrorMode::Html);
    /// ```
    pub fn new_encoder_with(&'static self, mode: EncoderErrorMode) -> Result<Encoder, NoEncoder> {
        Encoder::new(self, mode)
    }

    /// Decodes a whole buffer with this encoding's decoder, "replacement" mode, no
    /// BOM handling. Returns the text and whether there were errors. Borrows the
    /// input when it is valid UTF-8 decoded as UTF-8, or ASCII decoded with an
    /// ASCII-compatible encoding.
    ///
    /// To decode as a browser does, with a BOM overriding this encoding (what
    /// encoding_rs's `Encoding::decode` does), use
    /// [`hooks::decode_with_errors`](crate::hooks::decode_with_errors): it returns
    /// the text, the encoding used and whether there were errors.
    ///
    /// ```
    /// let (text, had_errors) = whatenc::EUC_KR.decode(b"\xB0\xA1!");
    /// assert_eq!(text, "가!");
    /// assert!(!had_errors);
    /// ```
    pub fn decode<'a>(&'static self, bytes: &'a [u8]) -> (Cow<'a, str>, bool) {
        if let Some(text) = self.borrowable(bytes) {
            return (Cow::Borrowed(text), false);
        }
        let mut decoder = self.new_decoder();
        let mut text = alloc::string::String::new();
        let had_errors = decoder.decode_all(bytes, &mut text).is_err();
        (Cow::Owned(text), had_errors)
    }

    /// Decodes a whole buffer in "fatal" mode, no BOM handling: the text, or the
    /// first error.
    ///
    /// ```
    /// assert_eq!(whatenc::UTF_8.decode_or_fail(b"ok").unwrap(), "ok");
    /// let error = whatenc::UTF_8.decode_or_fail(b"ab\xFFc").unwrap_err();
    /// assert_eq!(error.offset, 2);
    /// ```
    pub fn decode_or_fail<'a>(&'static self, bytes: &'a [u8]) -> Result<Cow<'a, str>, DecodeError> {
        if let Some(text) = self.borrowable(bytes) {
            return Ok(Cow::Borrowed(text));
        }
        let mut decoder = self.new_decoder_with(DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() });
        let mut text = alloc::string::String::new();
        decoder.decode_all(bytes, &mut text)?;
        Ok(Cow::Owned(text))
    }

    /// Encodes a whole string with this encoding's encoder in the "html" error mode:
    /// the bytes, and whether any scalar value was unmappable. Borrows the input when
    /// nothing changes (UTF-8, or ASCII with an ASCII-compatible encoding). Fails with
    /// [`NoEncoder`] for replacement and UTF-16BE/LE; see [`Encoding::output_encoding`].
    ///
    /// ```
    /// let (bytes, unmappable) = whatenc::WINDOWS_1252.encode("€ ☃").unwrap();
    /// assert_eq!(&bytes[..], b"\x80 &#9731;");
    /// assert!(unmappable);
    /// ```
    pub fn encode<'a>(&'static self, text: &'a str) -> Result<(Cow<'a, [u8]>, bool), NoEncoder> {
        let mut encoder = self.new_encoder_with(EncoderErrorMode::Html)?;
        if matches!(self.kind, Kind::Utf8) || (self.is_ascii_compatible() && text.is_ascii()) {
            return Ok((Cow::Borrowed(text.as_bytes()), false));
        }
        let mut out = alloc::vec::Vec::new();
        let unmappable = encoder.encode_all(text, &mut out);
        Ok((Cow::Owned(out), unmappable))
    }

    /// The input as `str` when decoding cannot change it.
    fn borrowable<'a>(&self, bytes: &'a [u8]) -> Option<&'a str> {
        match self.kind {
            Kind::Utf8 => crate::simd::validate_utf8(bytes),
            Kind::Replacement => bytes.is_empty().then_some(""),
            _ if self.is_ascii_compatible() && bytes.is_ascii() => crate::simd::validate_utf8(bytes),
            _ => None,
        }
    }
}

impl PartialEq for Encoding {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self, other)
    }
}

impl Eq for Encoding {}

impl core::hash::Hash for Encoding {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl fmt::Debug for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Encoding {{ {} }}", self.name)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// An error for a label that "get an encoding" does not know. It names the label.
///
/// ```
/// let error = whatenc::Encoding::for_label_or_error("latin-1").unwrap_err();
/// assert_eq!(error.to_string(), "unknown encoding label 'latin-1'");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLabel {
    /// The label as given (lossily decoded as UTF-8 if it was bytes).
    pub label: alloc::string::String,
}

impl fmt::Display for UnknownLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown encoding label '{}'", self.label)
    }
}

impl core::error::Error for UnknownLabel {}

impl Encoding {
    /// [`Encoding::for_label`], with an error that names the label.
    ///
    /// ```
    /// assert_eq!(whatenc::Encoding::for_label_or_error("l1"), Ok(whatenc::WINDOWS_1252));
    /// ```
    pub fn for_label_or_error(label: &str) -> Result<&'static Encoding, UnknownLabel> {
        Encoding::for_label(label.as_bytes()).ok_or_else(|| UnknownLabel { label: label.into() })
    }
}

// Keep the result types in scope for the docs above.
#[allow(unused_imports)]
use {DecoderResult as _, EncoderResult as _};
