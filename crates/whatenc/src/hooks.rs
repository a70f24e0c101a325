//! The standard's hooks for other standards (`encoding.bs` § "Hooks for standards"
//! and § "Legacy hooks for standards"), named as the standard names them.
//!
//! Each hook takes the whole input at once (an immediate I/O queue); for streams,
//! use a [`Decoder`](crate::Decoder) or [`Encoder`] with the same
//! options.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::decoder::DecodeError;
use crate::encoder::{Encoder, EncoderErrorMode, EncoderResult, NoEncoder};
use crate::encoding::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// "decode": BOM sniffs `bytes`; a BOM overrides `fallback` and is removed; then
/// decodes with the encoding's decoder in "replacement" mode. Returns the text and
/// the encoding used. Borrows the input when decoding does not change it.
/// [`decode_with_errors`] also says whether there were malformed sequences.
///
/// ```
/// use whatenc::{hooks, SHIFT_JIS, UTF_16LE};
/// assert_eq!(hooks::decode(b"\x82\xa0", SHIFT_JIS), ("あ".into(), SHIFT_JIS));
/// assert_eq!(hooks::decode(b"\xFF\xFEA\0", SHIFT_JIS), ("A".into(), UTF_16LE));
/// ```
pub fn decode<'a>(bytes: &'a [u8], fallback: &'static Encoding) -> (Cow<'a, str>, &'static Encoding) {
    let (encoding, rest) = match bom_sniff(bytes) {
        Some(encoding) => (encoding, &bytes[bom_length(encoding)..]),
        None => (fallback, bytes),
    };
    (encoding.decode(rest).0, encoding)
}

/// The standard's "decode" ([`decode`]) that also says whether there were
/// malformed sequences (each became U+FFFD): the text, the encoding used (a BOM's,
/// or `fallback`), and the errors flag, in one call. This is encoding_rs's
/// `Encoding::decode`.
///
/// ```
/// use whatenc::{hooks, UTF_16BE, WINDOWS_1252};
/// let (text, used, had_errors) = hooks::decode_with_errors(b"caf\xE9", WINDOWS_1252);
/// assert_eq!((&*text, used, had_errors), ("café", WINDOWS_1252, false));
/// let (text, used, had_errors) = hooks::decode_with_errors(b"\xFE\xFF\xD8\x00", WINDOWS_1252);
/// assert_eq!((&*text, used, had_errors), ("\u{FFFD}", UTF_16BE, true));
/// ```
pub fn decode_with_errors<'a>(bytes: &'a [u8], fallback: &'static Encoding) -> (Cow<'a, str>, &'static Encoding, bool) {
    let (encoding, rest) = match bom_sniff(bytes) {
        Some(encoding) => (encoding, &bytes[bom_length(encoding)..]),
        None => (fallback, bytes),
    };
    let (text, had_errors) = encoding.decode(rest);
    (text, encoding, had_errors)
}

/// "UTF-8 decode": removes a leading UTF-8 BOM (EF BB BF) if there is one, then
/// decodes as UTF-8 in "replacement" mode. Borrows valid input.
///
/// ```
/// assert_eq!(whatenc::hooks::utf8_decode(b"\xEF\xBB\xBFhi\xFF"), "hi\u{FFFD}");
/// ```
pub fn utf8_decode(bytes: &[u8]) -> Cow<'_, str> {
    utf8_decode_without_bom(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
}

/// "UTF-8 decode without BOM": decodes as UTF-8 in "replacement" mode; a BOM is
/// kept as U+FEFF. Borrows valid input.
///
/// ```
/// assert_eq!(whatenc::hooks::utf8_decode_without_bom(b"\xEF\xBB\xBFhi"), "\u{FEFF}hi");
/// ```
pub fn utf8_decode_without_bom(bytes: &[u8]) -> Cow<'_, str> {
    UTF_8.decode(bytes).0
}

/// "UTF-8 decode without BOM or fail": decodes as UTF-8 in "fatal" mode; the first
/// error is failure, reported with its position. Borrows valid input.
///
/// ```
/// use whatenc::hooks::utf8_decode_without_bom_or_fail;
/// assert_eq!(utf8_decode_without_bom_or_fail(b"ok").unwrap(), "ok");
/// assert_eq!(utf8_decode_without_bom_or_fail(b"o\xC3k").unwrap_err().offset, 1);
/// ```
pub fn utf8_decode_without_bom_or_fail(bytes: &[u8]) -> Result<Cow<'_, str>, DecodeError> {
    UTF_8.decode_or_fail(bytes)
}

/// "encode": encodes with the encoding's encoder in the "html" error mode, so a
/// scalar value the encoding cannot represent becomes `&#N;`. `encoding` must have
/// an encoder (pass it through [`Encoding::output_encoding`] first, as the standard
/// expects of callers); replacement and UTF-16BE/LE are a [`NoEncoder`] error.
///
/// ```
/// use whatenc::{hooks, EUC_KR, UTF_16BE};
/// assert_eq!(&hooks::encode("가☃", EUC_KR).unwrap()[..], b"\xB0\xA1&#9731;");
/// assert!(hooks::encode("x", UTF_16BE).is_err());
/// ```
pub fn encode<'a>(text: &'a str, encoding: &'static Encoding) -> Result<Cow<'a, [u8]>, NoEncoder> {
    encoding.encode(text).map(|(bytes, _)| bytes)
}

/// "UTF-8 encode": the text's UTF-8 bytes, borrowed.
///
/// ```
/// assert_eq!(&whatenc::hooks::utf8_encode("é")[..], b"\xC3\xA9");
/// ```
pub fn utf8_encode(text: &str) -> Cow<'_, [u8]> {
    Cow::Borrowed(text.as_bytes())
}

/// "BOM sniff": the encoding whose byte order mark starts `bytes` (UTF-8's EF BB BF,
/// UTF-16BE's FE FF, UTF-16LE's FF FE), or `None`.
///
/// ```
/// use whatenc::{hooks::bom_sniff, UTF_16BE};
/// assert_eq!(bom_sniff(b"\xFE\xFF\x00a"), Some(UTF_16BE));
/// assert_eq!(bom_sniff(b"\xEF\xBB"), None);
/// ```
pub fn bom_sniff(bytes: &[u8]) -> Option<&'static Encoding> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        Some(UTF_8)
    } else if bytes.starts_with(b"\xFE\xFF") {
        Some(UTF_16BE)
    } else if bytes.starts_with(b"\xFF\xFE") {
        Some(UTF_16LE)
    } else {
        None
    }
}

/// The length of the BOM of an encoding that [`bom_sniff`] returns.
fn bom_length(encoding: &'static Encoding) -> usize {
    if encoding == UTF_8 { 3 } else { 2 }
}

/// "get an encoder": a new instance of the encoding's encoder. The standard asserts
/// that `encoding` is not replacement or UTF-16BE/LE; here that is a [`NoEncoder`]
/// error.
///
/// ```
/// use whatenc::{hooks, REPLACEMENT, SHIFT_JIS};
/// assert!(hooks::get_an_encoder(SHIFT_JIS).is_ok());
/// assert!(hooks::get_an_encoder(REPLACEMENT).is_err());
/// ```
pub fn get_an_encoder(encoding: &'static Encoding) -> Result<Encoder, NoEncoder> {
    Encoder::new(encoding, EncoderErrorMode::Fatal)
}

/// "encode or fail": encodes `input` with `encoder` in the "fatal" error mode,
/// appending to `output`. On an unencodable scalar value it returns it and leaves
/// `input` just past it, with `encoder` in the standard's state after the error, so
/// that the caller can write something of its own (ASCII other than 0x0E, 0x0F, 0x1B,
/// 0x5C and 0x7E) and call again with the same encoder, as URL percent-encoding does.
/// Returns `None` once all input is encoded (end-of-queue is then processed:
/// ISO-2022-JP returns to ASCII).
///
/// ```
/// use whatenc::hooks::{encode_or_fail, get_an_encoder};
/// let mut encoder = get_an_encoder(whatenc::ISO_2022_JP).unwrap();
/// let mut input = "日☃a";
/// let mut output = Vec::new();
/// assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), Some('☃'));
/// assert_eq!(input, "a");
/// output.extend_from_slice(b"%E2%98%83");
/// assert_eq!(encode_or_fail(&mut input, &mut encoder, &mut output), None);
/// assert_eq!(output, b"\x1B$BF|\x1B(B%E2%98%83a");
/// ```
pub fn encode_or_fail(input: &mut &str, encoder: &mut Encoder, output: &mut Vec<u8>) -> Option<char> {
    let mode = encoder.mode();
    encoder.set_mode(EncoderErrorMode::Fatal);
    let (result, read) = encoder.encode_from_utf8_to_vec(input, output, true);
    encoder.set_mode(mode);
    *input = &input[read..];
    match result {
        EncoderResult::Unmappable(c) => Some(c),
        EncoderResult::InputEmpty | EncoderResult::OutputFull => None,
    }
}

/// Infra's "isomorphic decode": each byte becomes the code point of the same value
/// (0x00–0xFF to U+0000–U+00FF). Borrows ASCII input.
///
/// ```
/// use whatenc::hooks::isomorphic_decode;
/// assert_eq!(isomorphic_decode(b"text/html"), "text/html");
/// assert_eq!(isomorphic_decode(b"caf\xE9"), "caf\u{E9}");
/// ```
pub fn isomorphic_decode(bytes: &[u8]) -> Cow<'_, str> {
    match core::str::from_utf8(bytes) {
        Ok(text) if bytes.is_ascii() => Cow::Borrowed(text),
        _ => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Infra's "isomorphic encode": each code point becomes the byte of the same value.
/// Infra asserts that the input contains no code point above U+00FF; here such a
/// code point is returned as the error. Borrows ASCII input.
///
/// ```
/// use whatenc::hooks::isomorphic_encode;
/// assert_eq!(&isomorphic_encode("caf\u{E9}").unwrap()[..], b"caf\xE9");
/// assert_eq!(isomorphic_encode("\u{100}"), Err('\u{100}'));
/// ```
pub fn isomorphic_encode(text: &str) -> Result<Cow<'_, [u8]>, char> {
    if text.is_ascii() {
        return Ok(Cow::Borrowed(text.as_bytes()));
    }
    text.chars().map(|c| u8::try_from(c).map_err(|_| c)).collect::<Result<Vec<u8>, char>>().map(Cow::Owned)
}
