//! [`Encoding`]: encoding_rs's encoding type, a thin handle on a whatenc encoding.

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt;
use core::hash::{Hash, Hasher};

use whatenc::BomHandling;

use crate::decoder::Decoder;
use crate::encoder::Encoder;
use crate::{ALL, REPLACEMENT, UTF_8, UTF_16BE, UTF_16LE};

/// An encoding of the Encoding Standard: one of the 40 statics such as [`UTF_8`]
/// and [`SHIFT_JIS`](crate::SHIFT_JIS), always used as `&'static Encoding`.
///
/// Two `&Encoding`s are equal when they are the same encoding.
///
/// ```
/// use whatenc_encoding_rs::{Encoding, WINDOWS_1252};
/// let encoding = Encoding::for_label(b" latin1 ").unwrap();
/// assert_eq!(encoding, WINDOWS_1252);
/// assert_eq!(format!("{encoding:?}"), r#"Encoding { name: "windows-1252", .. }"#);
/// ```
pub struct Encoding {
    native: &'static whatenc::Encoding,
}

impl Encoding {
    /// Used by the statics.
    pub(crate) const fn new(native: &'static whatenc::Encoding) -> Encoding {
        Encoding { native }
    }

    /// The whatenc encoding behind this one.
    pub(crate) fn native(&self) -> &'static whatenc::Encoding {
        self.native
    }

    /// The static that stands for a whatenc encoding.
    pub(crate) fn from_native(native: &'static whatenc::Encoding) -> &'static Encoding {
        ALL.iter().copied().find(|e| core::ptr::eq(e.native, native)).expect("one of the 40 encodings")
    }

    /// The encoding of a label ("get an encoding"): leading and trailing ASCII
    /// whitespace is ignored and ASCII letters match in any case. `None` when the
    /// label is not one of the standard's.
    ///
    /// ```
    /// use whatenc_encoding_rs::{Encoding, REPLACEMENT, SHIFT_JIS};
    /// assert_eq!(Encoding::for_label(b"\tSJIS\n"), Some(SHIFT_JIS));
    /// assert_eq!(Encoding::for_label(b"iso-2022-kr"), Some(REPLACEMENT));
    /// assert_eq!(Encoding::for_label(b"utf-7"), None);
    /// ```
    pub fn for_label(label: &[u8]) -> Option<&'static Encoding> {
        whatenc::Encoding::for_label(label).map(Encoding::from_native)
    }

    /// [`Encoding::for_label`], except that the labels of the replacement encoding
    /// give `None`, as they do where an application must not fall back to it.
    ///
    /// ```
    /// use whatenc_encoding_rs::{Encoding, UTF_8};
    /// assert_eq!(Encoding::for_label_no_replacement(b"utf8"), Some(UTF_8));
    /// assert_eq!(Encoding::for_label_no_replacement(b"iso-2022-kr"), None);
    /// ```
    pub fn for_label_no_replacement(label: &[u8]) -> Option<&'static Encoding> {
        Encoding::for_label(label).filter(|&encoding| encoding != REPLACEMENT)
    }

    /// The encoding whose byte order mark starts `buffer`, with the BOM's length:
    /// UTF-8 (EF BB BF), UTF-16BE (FE FF) or UTF-16LE (FF FE). `None` otherwise,
    /// including when `buffer` holds only the start of a BOM.
    ///
    /// ```
    /// use whatenc_encoding_rs::{Encoding, UTF_16LE, UTF_8};
    /// assert_eq!(Encoding::for_bom(b"\xFF\xFEa\0"), Some((UTF_16LE, 2)));
    /// assert_eq!(Encoding::for_bom(b"\xEF\xBB\xBF"), Some((UTF_8, 3)));
    /// assert_eq!(Encoding::for_bom(b"\xEF\xBB"), None);
    /// ```
    pub fn for_bom(buffer: &[u8]) -> Option<(&'static Encoding, usize)> {
        if buffer.starts_with(b"\xEF\xBB\xBF") {
            Some((UTF_8, 3))
        } else if buffer.starts_with(b"\xFE\xFF") {
            Some((UTF_16BE, 2))
        } else if buffer.starts_with(b"\xFF\xFE") {
            Some((UTF_16LE, 2))
        } else {
            None
        }
    }

    /// The standard's name of the encoding, such as "UTF-8" or "Shift_JIS".
    ///
    /// ```
    /// assert_eq!(whatenc_encoding_rs::GB18030.name(), "gb18030");
    /// ```
    pub fn name(&'static self) -> &'static str {
        self.native.name()
    }

    /// Whether the encoding can encode every Unicode scalar value: true for UTF-8,
    /// gb18030, and the encodings whose output encoding is UTF-8 (UTF-16BE,
    /// UTF-16LE, replacement).
    ///
    /// ```
    /// assert!(whatenc_encoding_rs::UTF_16LE.can_encode_everything());
    /// assert!(!whatenc_encoding_rs::BIG5.can_encode_everything());
    /// ```
    pub fn can_encode_everything(&'static self) -> bool {
        self.output_encoding() == UTF_8
    }

    /// Whether bytes 0x00–0x7F decode to U+0000–U+007F and those encode back to
    /// them: false only for UTF-16BE, UTF-16LE, ISO-2022-JP and replacement.
    ///
    /// ```
    /// assert!(whatenc_encoding_rs::SHIFT_JIS.is_ascii_compatible());
    /// assert!(!whatenc_encoding_rs::ISO_2022_JP.is_ascii_compatible());
    /// ```
    pub fn is_ascii_compatible(&'static self) -> bool {
        self.native.is_ascii_compatible()
    }

    /// Whether each byte decodes to one character of the Basic Multilingual Plane
    /// and back: the legacy single-byte encodings and x-user-defined.
    ///
    /// ```
    /// assert!(whatenc_encoding_rs::X_USER_DEFINED.is_single_byte());
    /// assert!(!whatenc_encoding_rs::GBK.is_single_byte());
    /// ```
    pub fn is_single_byte(&'static self) -> bool {
        self.native.is_single_byte()
    }

    /// The encoding that [`Encoding::encode`] and [`Encoding::new_encoder`] use:
    /// UTF-8 for replacement, UTF-16BE and UTF-16LE, the encoding itself otherwise.
    ///
    /// ```
    /// use whatenc_encoding_rs::{EUC_KR, UTF_16BE, UTF_8};
    /// assert_eq!(UTF_16BE.output_encoding(), UTF_8);
    /// assert_eq!(EUC_KR.output_encoding(), EUC_KR);
    /// ```
    pub fn output_encoding(&'static self) -> &'static Encoding {
        Encoding::from_native(self.native.output_encoding())
    }

    /// Decodes a whole buffer as a browser does: a UTF-8, UTF-16BE or UTF-16LE BOM
    /// overrides this encoding and is removed. Returns the text (borrowed when the
    /// bytes are already that text), the encoding used, and whether any malformed
    /// sequence became U+FFFD.
    ///
    /// ```
    /// use whatenc_encoding_rs::{UTF_16BE, WINDOWS_1252};
    /// assert_eq!(WINDOWS_1252.decode(b"caf\xE9"), ("café".into(), WINDOWS_1252, false));
    /// assert_eq!(WINDOWS_1252.decode(b"\xFE\xFF\xD8\x00"), ("\u{FFFD}".into(), UTF_16BE, true));
    /// ```
    pub fn decode<'a>(&'static self, bytes: &'a [u8]) -> (Cow<'a, str>, &'static Encoding, bool) {
        let (encoding, rest) = match Encoding::for_bom(bytes) {
            Some((encoding, bom_length)) => (encoding, &bytes[bom_length..]),
            None => (self, bytes),
        };
        let (text, had_errors) = encoding.decode_without_bom_handling(rest);
        (text, encoding, had_errors)
    }

    /// Decodes a whole buffer, removing a BOM of this very encoding (UTF-8,
    /// UTF-16BE or UTF-16LE) but not letting another BOM change the encoding.
    /// Returns the text and whether there were errors.
    ///
    /// ```
    /// use whatenc_encoding_rs::{UTF_8, WINDOWS_1252};
    /// assert_eq!(UTF_8.decode_with_bom_removal(b"\xEF\xBB\xBFa"), ("a".into(), false));
    /// assert_eq!(WINDOWS_1252.decode_with_bom_removal(b"\xEF\xBB\xBFa"), ("ï»¿a".into(), false));
    /// ```
    pub fn decode_with_bom_removal<'a>(&'static self, bytes: &'a [u8]) -> (Cow<'a, str>, bool) {
        let rest = match Encoding::for_bom(bytes) {
            Some((encoding, bom_length)) if encoding == self => &bytes[bom_length..],
            _ => bytes,
        };
        self.decode_without_bom_handling(rest)
    }

    /// Decodes a whole buffer with this encoding's decoder alone: a BOM is input
    /// like any other bytes. Returns the text and whether there were errors.
    ///
    /// ```
    /// use whatenc_encoding_rs::UTF_8;
    /// assert_eq!(UTF_8.decode_without_bom_handling(b"\xEF\xBB\xBFa"), ("\u{FEFF}a".into(), false));
    /// assert_eq!(UTF_8.decode_without_bom_handling(b"a\xFF"), ("a\u{FFFD}".into(), true));
    /// ```
    pub fn decode_without_bom_handling<'a>(&'static self, bytes: &'a [u8]) -> (Cow<'a, str>, bool) {
        if let Some(text) = self.iso_2022_jp_ascii(bytes) {
            return (Cow::Borrowed(text), false);
        }
        if self.native == whatenc::REPLACEMENT && bytes.is_empty() {
            // encoding_rs never borrows for replacement (an empty `String` does
            // not allocate).
            return (Cow::Owned(String::new()), false);
        }
        self.native.decode(bytes)
    }

    /// ISO-2022-JP input that stays in the ASCII state is its own text: borrow it,
    /// as encoding_rs does (whatenc borrows in the other cases).
    fn iso_2022_jp_ascii<'a>(&'static self, bytes: &'a [u8]) -> Option<&'a str> {
        if self.native != whatenc::ISO_2022_JP || Encoding::iso_2022_jp_ascii_valid_up_to(bytes) != bytes.len() {
            return None;
        }
        core::str::from_utf8(bytes).ok()
    }

    /// Decodes a whole buffer with this encoding's decoder alone, or `None` at the
    /// first malformed sequence.
    ///
    /// ```
    /// use whatenc_encoding_rs::EUC_KR;
    /// assert_eq!(EUC_KR.decode_without_bom_handling_and_without_replacement(b"\xB0\xA1").as_deref(), Some("가"));
    /// assert_eq!(EUC_KR.decode_without_bom_handling_and_without_replacement(b"\xB0"), None);
    /// ```
    pub fn decode_without_bom_handling_and_without_replacement<'a>(
        &'static self,
        bytes: &'a [u8],
    ) -> Option<Cow<'a, str>> {
        if let Some(text) = self.iso_2022_jp_ascii(bytes) {
            return Some(Cow::Borrowed(text));
        }
        if self.native == whatenc::REPLACEMENT && bytes.is_empty() {
            return Some(Cow::Owned(String::new()));
        }
        self.native.decode_or_fail(bytes).ok()
    }

    /// Encodes a whole string with the output encoding (see
    /// [`Encoding::output_encoding`]); a character that encoding cannot represent
    /// becomes a decimal numeric character reference `&#N;`. Returns the bytes
    /// (borrowed when they are the string's own), the encoding used, and whether
    /// there were such characters.
    ///
    /// ```
    /// use whatenc_encoding_rs::{UTF_16LE, UTF_8, WINDOWS_1252};
    /// assert_eq!(WINDOWS_1252.encode("€☃"), (b"\x80&#9731;"[..].into(), WINDOWS_1252, true));
    /// assert_eq!(UTF_16LE.encode("☃"), ("☃".as_bytes().into(), UTF_8, false));
    /// ```
    pub fn encode<'a>(&'static self, string: &'a str) -> (Cow<'a, [u8]>, &'static Encoding, bool) {
        let output = self.output_encoding();
        if let Some(text) = output.iso_2022_jp_ascii(string.as_bytes()) {
            return (Cow::Borrowed(text.as_bytes()), output, false);
        }
        let (bytes, unmappable) = output.native.encode(string).expect("an output encoding has an encoder");
        (bytes, output, unmappable)
    }

    /// A decoder that sniffs a BOM, as [`Encoding::decode`] does: a UTF-8, UTF-16BE
    /// or UTF-16LE BOM at the start of the stream switches it to that encoding.
    ///
    /// ```
    /// use whatenc_encoding_rs::{CoderResult, UTF_8, WINDOWS_1252};
    /// let mut decoder = WINDOWS_1252.new_decoder();
    /// let mut out = [0u8; 16];
    /// let (result, read, written, had_errors) = decoder.decode_to_utf8(b"\xEF\xBB\xBFcaf\xC3\xA9", &mut out, true);
    /// assert_eq!((result, read, &out[..written], had_errors), (CoderResult::InputEmpty, 8, "café".as_bytes(), false));
    /// assert_eq!(decoder.encoding(), UTF_8);
    /// ```
    pub fn new_decoder(&'static self) -> Decoder {
        self.decoder(BomHandling::Sniff)
    }

    /// A decoder that removes a BOM of this very encoding (UTF-8, UTF-16BE or
    /// UTF-16LE) at the start of the stream; other bytes are left alone.
    ///
    /// ```
    /// let mut decoder = whatenc_encoding_rs::UTF_16LE.new_decoder_with_bom_removal();
    /// let mut out = [0u16; 4];
    /// let (_, read, written, _) = decoder.decode_to_utf16(b"\xFF\xFEa\0", &mut out, true);
    /// assert_eq!((read, &out[..written]), (4, &[0x61][..]));
    /// ```
    pub fn new_decoder_with_bom_removal(&'static self) -> Decoder {
        self.decoder(BomHandling::Remove)
    }

    /// A decoder with no BOM handling: the standard's bare decoder.
    ///
    /// ```
    /// let mut decoder = whatenc_encoding_rs::UTF_8.new_decoder_without_bom_handling();
    /// let mut out = String::with_capacity(16);
    /// let _ = decoder.decode_to_string(b"\xEF\xBB\xBFa", &mut out, true);
    /// assert_eq!(out, "\u{FEFF}a");
    /// ```
    pub fn new_decoder_without_bom_handling(&'static self) -> Decoder {
        self.decoder(BomHandling::None)
    }

    fn decoder(&'static self, bom: BomHandling) -> Decoder {
        Decoder::new(self.native, bom)
    }

    /// An encoder for the output encoding (see [`Encoding::output_encoding`]).
    ///
    /// ```
    /// use whatenc_encoding_rs::{UTF_16BE, UTF_8};
    /// assert_eq!(UTF_16BE.new_encoder().encoding(), UTF_8);
    /// ```
    pub fn new_encoder(&'static self) -> Encoder {
        Encoder::new(self.output_encoding())
    }

    /// The length of the longest prefix of `bytes` that is valid UTF-8.
    ///
    /// ```
    /// assert_eq!(whatenc_encoding_rs::Encoding::utf8_valid_up_to(b"ab\xC3\xA9\xC3"), 4);
    /// ```
    pub fn utf8_valid_up_to(bytes: &[u8]) -> usize {
        crate::mem::utf8_valid_up_to(bytes)
    }

    /// The length of the longest prefix of `bytes` that is ASCII.
    ///
    /// ```
    /// assert_eq!(whatenc_encoding_rs::Encoding::ascii_valid_up_to(b"ab\xC3\xA9"), 2);
    /// ```
    pub fn ascii_valid_up_to(bytes: &[u8]) -> usize {
        crate::mem::ascii_valid_up_to(bytes)
    }

    /// The length of the longest prefix of `bytes` that ISO-2022-JP's ASCII state
    /// decodes as ASCII: ASCII bytes other than ESC (0x1B), SO (0x0E) and SI (0x0F).
    ///
    /// ```
    /// assert_eq!(whatenc_encoding_rs::Encoding::iso_2022_jp_ascii_valid_up_to(b"ab\x1B$B"), 2);
    /// ```
    pub fn iso_2022_jp_ascii_valid_up_to(bytes: &[u8]) -> usize {
        bytes.iter().position(|&b| b >= 0x80 || matches!(b, 0x0E | 0x0F | 0x1B)).unwrap_or(bytes.len())
    }
}

impl PartialEq for Encoding {
    fn eq(&self, other: &Encoding) -> bool {
        core::ptr::eq(self.native, other.native)
    }
}

impl Eq for Encoding {}

impl Hash for Encoding {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.native as *const whatenc::Encoding).hash(state);
    }
}

impl fmt::Debug for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoding").field("name", &self.native.name()).finish_non_exhaustive()
    }
}
