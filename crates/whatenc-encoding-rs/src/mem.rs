//! encoding_rs's `mem` module: checks and conversions between Latin-1 (bytes as
//! U+0000–U+00FF), UTF-8 and UTF-16 held in memory, for programs that store text
//! in more than one of these forms.
//!
//! The UTF-8 ↔ UTF-16 conversions run on whatenc's decoders and encoders. Writing
//! into a `&mut str` goes through whatenc's `decode_to_str`, the only safe way to
//! put bytes into a `str`: the `_to_str` conversions from UTF-16 and Latin-1
//! stage their UTF-8 in a small buffer on the stack first.
//!
//! ```
//! use whatenc_encoding_rs::mem::{self, Latin1Bidi};
//! assert_eq!(mem::check_str_for_latin1_and_bidi("café"), Latin1Bidi::Latin1);
//! assert_eq!(mem::check_str_for_latin1_and_bidi("שלום"), Latin1Bidi::Bidi);
//! assert_eq!(mem::decode_latin1(b"caf\xE9"), "café");
//! ```

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use whatenc::{BomHandling, DecoderOptions, DecoderResult, ErrorMode};

/// Whether text is all Latin-1 (below U+0100), left-to-right with some
/// characters above U+00FF, or has right-to-left characters.
///
/// ```
/// use whatenc_encoding_rs::mem::{check_str_for_latin1_and_bidi, Latin1Bidi};
/// assert_eq!(check_str_for_latin1_and_bidi("Ωmega"), Latin1Bidi::LeftToRight);
/// ```
#[must_use]
#[derive(Debug, PartialEq, Eq)]
#[repr(C)]
pub enum Latin1Bidi {
    /// Every character is below U+0100.
    ///
    /// ```
    /// assert_eq!(whatenc_encoding_rs::mem::Latin1Bidi::Latin1 as u8, 0);
    /// ```
    Latin1 = 0,
    /// Some character is U+0100 or above, and none is right-to-left.
    ///
    /// ```
    /// assert_eq!(whatenc_encoding_rs::mem::Latin1Bidi::LeftToRight as u8, 1);
    /// ```
    LeftToRight = 1,
    /// Some character is right-to-left.
    ///
    /// ```
    /// assert_eq!(whatenc_encoding_rs::mem::Latin1Bidi::Bidi as u8, 2);
    /// ```
    Bidi = 2,
}

/// Whether every byte is ASCII.
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_ascii(b"plain"));
/// assert!(!whatenc_encoding_rs::mem::is_ascii(b"caf\xC3\xA9"));
/// ```
pub fn is_ascii(buffer: &[u8]) -> bool {
    buffer.is_ascii()
}

/// Whether every UTF-16 code unit is Basic Latin (below U+0080).
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_basic_latin(&[0x61, 0x7F]));
/// assert!(!whatenc_encoding_rs::mem::is_basic_latin(&[0x80]));
/// ```
pub fn is_basic_latin(buffer: &[u16]) -> bool {
    buffer.iter().all(|&u| u < 0x80)
}

/// Whether the bytes are valid UTF-8 with every character below U+0100.
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_utf8_latin1("café".as_bytes()));
/// assert!(!whatenc_encoding_rs::mem::is_utf8_latin1("€".as_bytes()));
/// assert!(!whatenc_encoding_rs::mem::is_utf8_latin1(b"\xC3"));
/// ```
pub fn is_utf8_latin1(buffer: &[u8]) -> bool {
    utf8_latin1_up_to(buffer) == buffer.len()
}

/// Whether every character is below U+0100.
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_str_latin1("ÿ"));
/// assert!(!whatenc_encoding_rs::mem::is_str_latin1("Ā"));
/// ```
pub fn is_str_latin1(buffer: &str) -> bool {
    // Characters below U+0100 take lead bytes up to 0xC3 only.
    buffer.bytes().all(|b| b < 0xC4)
}

/// Whether every UTF-16 code unit is below U+0100.
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_utf16_latin1(&[0xFF]));
/// assert!(!whatenc_encoding_rs::mem::is_utf16_latin1(&[0x100]));
/// ```
pub fn is_utf16_latin1(buffer: &[u16]) -> bool {
    buffer.iter().all(|&u| u < 0x100)
}

/// Whether the bytes are invalid UTF-8 or hold a character that makes text
/// right-to-left (see [`is_char_bidi`]).
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_utf8_bidi("אב".as_bytes()));
/// assert!(whatenc_encoding_rs::mem::is_utf8_bidi(b"\xFF"));
/// assert!(!whatenc_encoding_rs::mem::is_utf8_bidi(b"abc"));
/// ```
pub fn is_utf8_bidi(buffer: &[u8]) -> bool {
    match core::str::from_utf8(buffer) {
        Ok(text) => is_str_bidi(text),
        Err(_) => true,
    }
}

/// Whether the text holds a character that makes text right-to-left (see
/// [`is_char_bidi`]).
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_str_bidi("abc \u{202E}"));
/// assert!(!whatenc_encoding_rs::mem::is_str_bidi("abc \u{FEFF}"));
/// ```
pub fn is_str_bidi(buffer: &str) -> bool {
    // Below U+0590 nothing is right-to-left: skip the bytes below its lead 0xD6.
    buffer.bytes().any(|b| b >= 0xD6) && buffer.chars().any(is_char_bidi)
}

/// Whether the UTF-16 holds a character that makes text right-to-left, or a
/// leading surrogate of the supplementary planes' right-to-left blocks (paired
/// or not).
///
/// ```
/// assert!(whatenc_encoding_rs::mem::is_utf16_bidi(&[0x61, 0x05D0]));
/// assert!(whatenc_encoding_rs::mem::is_utf16_bidi(&[0xD83A]));
/// assert!(!whatenc_encoding_rs::mem::is_utf16_bidi(&[0x61]));
/// ```
pub fn is_utf16_bidi(buffer: &[u16]) -> bool {
    buffer.iter().any(|&u| is_utf16_code_unit_bidi(u))
}

/// Whether a character makes text right-to-left, block by block: Hebrew through
/// Arabic Extended-A (U+0590–U+08FF), the Hebrew and Arabic presentation forms
/// (U+FB1D–U+FDFF, U+FE70–U+FEFE: U+FEFF is left out), the supplementary
/// blocks U+10800–U+10FFF and U+1E800–U+1EFFF, and the controls RLM, RLE, RLO
/// and RLI (U+200F, U+202B, U+202E, U+2067).
///
/// ```
/// use whatenc_encoding_rs::mem::is_char_bidi;
/// assert!(is_char_bidi('ا'));
/// assert!(is_char_bidi('\u{200F}'));
/// assert!(!is_char_bidi('a'));
/// ```
pub fn is_char_bidi(c: char) -> bool {
    matches!(
        c as u32,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFE | 0x1_0800..=0x1_0FFF | 0x1_E800..=0x1_EFFF
            | 0x200F | 0x202B | 0x202E | 0x2067
    )
}

/// [`is_char_bidi`] for one UTF-16 code unit: a leading surrogate is
/// right-to-left when the characters it starts are (U+D802, U+D803, U+D83A,
/// U+D83B), whether or not a trailing surrogate follows.
///
/// ```
/// use whatenc_encoding_rs::mem::is_utf16_code_unit_bidi;
/// assert!(is_utf16_code_unit_bidi(0xD802));
/// assert!(!is_utf16_code_unit_bidi(0xDC00));
/// ```
pub fn is_utf16_code_unit_bidi(u: u16) -> bool {
    matches!(u, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFE | 0xD802 | 0xD803 | 0xD83A | 0xD83B | 0x200F | 0x202B | 0x202E | 0x2067)
}

fn classify(latin1: bool, bidi: bool) -> Latin1Bidi {
    match (latin1, bidi) {
        (true, _) => Latin1Bidi::Latin1,
        (false, true) => Latin1Bidi::Bidi,
        (false, false) => Latin1Bidi::LeftToRight,
    }
}

/// [`is_utf8_latin1`] and [`is_utf8_bidi`] in one call.
///
/// ```
/// use whatenc_encoding_rs::mem::{check_utf8_for_latin1_and_bidi, Latin1Bidi};
/// assert_eq!(check_utf8_for_latin1_and_bidi(b"\xFF"), Latin1Bidi::Bidi);
/// ```
pub fn check_utf8_for_latin1_and_bidi(buffer: &[u8]) -> Latin1Bidi {
    let latin1 = is_utf8_latin1(buffer);
    classify(latin1, !latin1 && is_utf8_bidi(buffer))
}

/// [`is_str_latin1`] and [`is_str_bidi`] in one call.
///
/// ```
/// use whatenc_encoding_rs::mem::{check_str_for_latin1_and_bidi, Latin1Bidi};
/// assert_eq!(check_str_for_latin1_and_bidi("ÿ"), Latin1Bidi::Latin1);
/// ```
pub fn check_str_for_latin1_and_bidi(buffer: &str) -> Latin1Bidi {
    let latin1 = is_str_latin1(buffer);
    classify(latin1, !latin1 && is_str_bidi(buffer))
}

/// [`is_utf16_latin1`] and [`is_utf16_bidi`] in one call.
///
/// ```
/// use whatenc_encoding_rs::mem::{check_utf16_for_latin1_and_bidi, Latin1Bidi};
/// assert_eq!(check_utf16_for_latin1_and_bidi(&[0x100]), Latin1Bidi::LeftToRight);
/// ```
pub fn check_utf16_for_latin1_and_bidi(buffer: &[u16]) -> Latin1Bidi {
    let latin1 = is_utf16_latin1(buffer);
    classify(latin1, !latin1 && is_utf16_bidi(buffer))
}

/// A UTF-8 decoder without BOM handling in the given mode.
fn utf8_decoder(mode: ErrorMode) -> whatenc::Decoder {
    whatenc::UTF_8.new_decoder_with(DecoderOptions { mode, bom: BomHandling::None })
}

/// Converts UTF-8, with U+FFFD for each malformed sequence, into UTF-16; returns
/// the units written.
///
/// # Panics
///
/// If `dst` is shorter than `src` plus one.
///
/// ```
/// let mut out = [0u16; 5];
/// assert_eq!(whatenc_encoding_rs::mem::convert_utf8_to_utf16(b"a\xFF\xF0\x9F\x98\x80"[..4].as_ref(), &mut out), 3);
/// assert_eq!(&out[..3], &[0x61, 0xFFFD, 0xFFFD]);
/// ```
pub fn convert_utf8_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
    assert!(dst.len() > src.len(), "the destination must be longer than the source");
    let progress = whatenc::UTF_8.new_decoder().decode_to_utf16(src, dst, true);
    debug_assert_eq!(progress.result, DecoderResult::InputEmpty);
    progress.written
}

/// Converts text into UTF-16; returns the units written.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// let mut out = [0u16; 4];
/// assert_eq!(whatenc_encoding_rs::mem::convert_str_to_utf16("😀", &mut out), 2);
/// ```
pub fn convert_str_to_utf16(src: &str, dst: &mut [u16]) -> usize {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    let progress = whatenc::UTF_8.new_decoder().decode_to_utf16(src.as_bytes(), dst, true);
    progress.written
}

/// Converts UTF-8 into UTF-16, or `None` at the first malformed sequence (some
/// output may have been written then).
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// use whatenc_encoding_rs::mem::convert_utf8_to_utf16_without_replacement;
/// let mut out = [0u16; 4];
/// assert_eq!(convert_utf8_to_utf16_without_replacement(b"ok", &mut out), Some(2));
/// assert_eq!(convert_utf8_to_utf16_without_replacement(b"o\xC3", &mut out), None);
/// ```
pub fn convert_utf8_to_utf16_without_replacement(src: &[u8], dst: &mut [u16]) -> Option<usize> {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    let progress = utf8_decoder(ErrorMode::Fatal).decode_to_utf16(src, dst, true);
    (progress.result == DecoderResult::InputEmpty).then_some(progress.written)
}

/// Converts UTF-16, with U+FFFD for each lone surrogate, into as much UTF-8 as
/// fits (whole characters only), as `TextEncoder.encodeInto()` does; returns the
/// units read and the bytes written. The bytes after those written are left
/// as they were.
///
/// ```
/// let mut out = [0u8; 5];
/// assert_eq!(whatenc_encoding_rs::mem::convert_utf16_to_utf8_partial(&[0x61, 0xD83D, 0xDE00, 0x62], &mut out), (3, 5));
/// ```
pub fn convert_utf16_to_utf8_partial(src: &[u16], dst: &mut [u8]) -> (usize, usize) {
    // whatenc's bulk kernels may store past the output they report, and the bytes
    // after it must stay as they were: encode a chunk at a time on the stack.
    const CHUNK: usize = 64;
    let encoder = whatenc::text::TextEncoder::new();
    let mut staging = [0u8; 3 * (CHUNK + 1)];
    let mut read = 0;
    let mut written = 0;
    while read < src.len() {
        let mut end = src.len().min(read + CHUNK);
        // Keep a surrogate pair in one chunk.
        if end < src.len() && matches!(src[end - 1], 0xD800..=0xDBFF) {
            end += 1;
        }
        let limit = (dst.len() - written).min(staging.len());
        let result = encoder.encode_into_utf16(&src[read..end], &mut staging[..limit]);
        dst[written..written + result.written].copy_from_slice(&staging[..result.written]);
        read += result.read;
        written += result.written;
        if read < end {
            break;
        }
    }
    (read, written)
}

/// Converts UTF-16, with U+FFFD for each lone surrogate, into UTF-8; returns the
/// bytes written.
///
/// # Panics
///
/// If `dst` is shorter than three times `src`.
///
/// ```
/// let mut out = [0u8; 6];
/// assert_eq!(whatenc_encoding_rs::mem::convert_utf16_to_utf8(&[0xE9, 0xDC00], &mut out), 5);
/// assert_eq!(&out[..5], "é\u{FFFD}".as_bytes());
/// ```
pub fn convert_utf16_to_utf8(src: &[u16], dst: &mut [u8]) -> usize {
    assert!(dst.len() >= src.len() * 3, "the destination must be at least three times as long as the source");
    let result = whatenc::text::TextEncoder::new().encode_into_utf16(src, dst);
    result.written
}

/// Writes valid UTF-8 `bytes` into the start of `dst` (which has room), keeping
/// the rest of `dst` valid.
fn put_utf8(bytes: &[u8], dst: &mut str) -> usize {
    let progress = utf8_decoder(ErrorMode::Replacement).decode_to_str(bytes, dst, false);
    debug_assert_eq!(progress.read, bytes.len());
    progress.written
}

/// [`convert_utf16_to_utf8_partial`] into a `&mut str`; the rest of `dst` stays
/// valid UTF-8.
///
/// ```
/// let mut out = String::from("xxx");
/// assert_eq!(whatenc_encoding_rs::mem::convert_utf16_to_str_partial(&[0x61, 0x20AC], out.as_mut_str()), (1, 1));
/// assert!(out.starts_with('a'));
/// ```
pub fn convert_utf16_to_str_partial(src: &[u16], dst: &mut str) -> (usize, usize) {
    let mut read = 0;
    let mut written = 0;
    let mut staging = [0u8; 256];
    while read < src.len() {
        let room = (dst.len() - written).min(staging.len());
        let (r, w) = convert_utf16_to_utf8_partial(&src[read..], &mut staging[..room]);
        if r == 0 {
            break;
        }
        written += put_utf8(&staging[..w], &mut dst[written..]);
        read += r;
    }
    (read, written)
}

/// [`convert_utf16_to_utf8`] into a `&mut str`; the rest of `dst` stays valid
/// UTF-8.
///
/// # Panics
///
/// If `dst` is shorter than three times `src`.
///
/// ```
/// let mut out = "\0".repeat(6);
/// assert_eq!(whatenc_encoding_rs::mem::convert_utf16_to_str(&[0x3042], out.as_mut_str()), 3);
/// assert_eq!(&out[..3], "あ");
/// ```
pub fn convert_utf16_to_str(src: &[u16], dst: &mut str) -> usize {
    assert!(dst.len() >= src.len() * 3, "the destination must be at least three times as long as the source");
    convert_utf16_to_str_partial(src, dst).1
}

/// Widens Latin-1 bytes into UTF-16, one unit per byte.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// let mut out = [0u16; 2];
/// whatenc_encoding_rs::mem::convert_latin1_to_utf16(b"a\xE9", &mut out);
/// assert_eq!(out, [0x61, 0xE9]);
/// ```
pub fn convert_latin1_to_utf16(src: &[u8], dst: &mut [u16]) {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = u16::from(s);
    }
}

/// Converts Latin-1 bytes into as much UTF-8 as fits (whole characters);
/// returns the bytes read and written.
///
/// ```
/// let mut out = [0u8; 2];
/// assert_eq!(whatenc_encoding_rs::mem::convert_latin1_to_utf8_partial(b"a\xE9", &mut out), (1, 1));
/// ```
pub fn convert_latin1_to_utf8_partial(src: &[u8], dst: &mut [u8]) -> (usize, usize) {
    let mut written = 0;
    for (read, &byte) in src.iter().enumerate() {
        if byte < 0x80 {
            let Some(slot) = dst.get_mut(written) else { return (read, written) };
            *slot = byte;
            written += 1;
        } else {
            let Some(pair) = dst.get_mut(written..written + 2) else { return (read, written) };
            pair[0] = 0xC0 | (byte >> 6);
            pair[1] = 0x80 | (byte & 0x3F);
            written += 2;
        }
    }
    (src.len(), written)
}

/// Converts Latin-1 bytes into UTF-8; returns the bytes written.
///
/// # Panics
///
/// If `dst` is shorter than twice `src`.
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(whatenc_encoding_rs::mem::convert_latin1_to_utf8(b"\xFF\xFF", &mut out), 4);
/// ```
pub fn convert_latin1_to_utf8(src: &[u8], dst: &mut [u8]) -> usize {
    assert!(dst.len() >= src.len() * 2, "the destination must be at least twice as long as the source");
    convert_latin1_to_utf8_partial(src, dst).1
}

/// [`convert_latin1_to_utf8_partial`] into a `&mut str`; the rest of `dst` stays
/// valid UTF-8.
///
/// ```
/// let mut out = String::from("xxx");
/// assert_eq!(whatenc_encoding_rs::mem::convert_latin1_to_str_partial(b"\xE9\xE9", out.as_mut_str()), (1, 2));
/// assert!(out.starts_with('é'));
/// ```
pub fn convert_latin1_to_str_partial(src: &[u8], dst: &mut str) -> (usize, usize) {
    let mut read = 0;
    let mut written = 0;
    let mut staging = [0u8; 256];
    while read < src.len() {
        let room = (dst.len() - written).min(staging.len());
        let (r, w) = convert_latin1_to_utf8_partial(&src[read..], &mut staging[..room]);
        if r == 0 {
            break;
        }
        written += put_utf8(&staging[..w], &mut dst[written..]);
        read += r;
    }
    (read, written)
}

/// [`convert_latin1_to_utf8`] into a `&mut str`; the rest of `dst` stays valid
/// UTF-8.
///
/// # Panics
///
/// If `dst` is shorter than twice `src`.
///
/// ```
/// let mut out = "\0".repeat(4);
/// assert_eq!(whatenc_encoding_rs::mem::convert_latin1_to_str(b"\xA9!", out.as_mut_str()), 3);
/// assert_eq!(&out[..3], "©!");
/// ```
pub fn convert_latin1_to_str(src: &[u8], dst: &mut str) -> usize {
    assert!(dst.len() >= src.len() * 2, "the destination must be at least twice as long as the source");
    convert_latin1_to_str_partial(src, dst).1
}

/// Narrows UTF-8 whose characters are all below U+0100 into Latin-1 bytes;
/// returns the bytes written. Other input gives unspecified (but memory-safe)
/// output.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// let mut out = [0u8; 8];
/// assert_eq!(whatenc_encoding_rs::mem::convert_utf8_to_latin1_lossy("café".as_bytes(), &mut out), 4);
/// assert_eq!(&out[..4], b"caf\xE9");
/// ```
pub fn convert_utf8_to_latin1_lossy(src: &[u8], dst: &mut [u8]) -> usize {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    let mut written = 0;
    let mut bytes = src.iter();
    while let Some(&byte) = bytes.next() {
        dst[written] = if byte < 0x80 {
            byte
        } else {
            let trail = bytes.next().copied().unwrap_or(0x80);
            (byte << 6) | (trail & 0x3F)
        };
        written += 1;
    }
    written
}

/// Narrows UTF-16 whose units are all below U+0100 into Latin-1 bytes, one per
/// unit. Other input gives unspecified (but memory-safe) output.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// let mut out = [0u8; 2];
/// whatenc_encoding_rs::mem::convert_utf16_to_latin1_lossy(&[0x61, 0xE9], &mut out);
/// assert_eq!(&out, b"a\xE9");
/// ```
pub fn convert_utf16_to_latin1_lossy(src: &[u16], dst: &mut [u8]) {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s as u8;
    }
}

/// Latin-1 bytes as text: borrowed when they are ASCII.
///
/// ```
/// use std::borrow::Cow;
/// assert!(matches!(whatenc_encoding_rs::mem::decode_latin1(b"abc"), Cow::Borrowed("abc")));
/// assert_eq!(whatenc_encoding_rs::mem::decode_latin1(b"\xE0"), "à");
/// ```
pub fn decode_latin1(bytes: &[u8]) -> Cow<'_, str> {
    let ascii = ascii_valid_up_to(bytes);
    if ascii == bytes.len() {
        return Cow::Borrowed(core::str::from_utf8(bytes).expect("ASCII"));
    }
    let mut text = String::with_capacity(ascii + (bytes.len() - ascii) * 2);
    text.push_str(core::str::from_utf8(&bytes[..ascii]).expect("ASCII"));
    text.extend(bytes[ascii..].iter().map(|&b| char::from(b)));
    Cow::Owned(text)
}

/// Text whose characters are all below U+0100 as Latin-1 bytes: borrowed when it
/// is ASCII. Other text gives unspecified (but memory-safe) output.
///
/// ```
/// assert_eq!(&whatenc_encoding_rs::mem::encode_latin1_lossy("café")[..], b"caf\xE9");
/// ```
pub fn encode_latin1_lossy(string: &str) -> Cow<'_, [u8]> {
    let bytes = string.as_bytes();
    let ascii = ascii_valid_up_to(bytes);
    if ascii == bytes.len() {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..ascii]);
    out.resize(bytes.len(), 0);
    let written = convert_utf8_to_latin1_lossy(&bytes[ascii..], &mut out[ascii..]);
    out.truncate(ascii + written);
    Cow::Owned(out)
}

/// The length of the longest prefix of `buffer` that is valid UTF-16: the index
/// of the first lone surrogate, or the length.
///
/// ```
/// assert_eq!(whatenc_encoding_rs::mem::utf16_valid_up_to(&[0x61, 0xD83D, 0xDE00, 0xDC00]), 3);
/// ```
pub fn utf16_valid_up_to(buffer: &[u16]) -> usize {
    let mut i = 0;
    while i < buffer.len() {
        match buffer[i] {
            0xD800..=0xDBFF if matches!(buffer.get(i + 1), Some(0xDC00..=0xDFFF)) => i += 2,
            0xD800..=0xDFFF => return i,
            _ => i += 1,
        }
    }
    buffer.len()
}

/// The length of the longest prefix of `buffer` that is valid UTF-8 of
/// characters below U+0100.
///
/// ```
/// assert_eq!(whatenc_encoding_rs::mem::utf8_latin1_up_to("aé€".as_bytes()), 3);
/// ```
pub fn utf8_latin1_up_to(buffer: &[u8]) -> usize {
    let mut i = 0;
    while i < buffer.len() {
        match buffer[i] {
            0..=0x7F => i += 1,
            0xC2 | 0xC3 if matches!(buffer.get(i + 1), Some(0x80..=0xBF)) => i += 2,
            _ => return i,
        }
    }
    buffer.len()
}

/// The length of the longest prefix of `buffer` whose characters are below
/// U+0100.
///
/// ```
/// assert_eq!(whatenc_encoding_rs::mem::str_latin1_up_to("ÿĀ"), 2);
/// ```
pub fn str_latin1_up_to(buffer: &str) -> usize {
    buffer.bytes().position(|b| b >= 0xC4).unwrap_or(buffer.len())
}

/// Replaces each lone surrogate with U+FFFD.
///
/// ```
/// let mut units = [0xDC00, 0x61, 0xD83D, 0xDE00, 0xD800];
/// whatenc_encoding_rs::mem::ensure_utf16_validity(&mut units);
/// assert_eq!(units, [0xFFFD, 0x61, 0xD83D, 0xDE00, 0xFFFD]);
/// ```
pub fn ensure_utf16_validity(buffer: &mut [u16]) {
    let mut i = 0;
    while i < buffer.len() {
        i += utf16_valid_up_to(&buffer[i..]);
        if i < buffer.len() {
            buffer[i] = 0xFFFD;
            i += 1;
        }
    }
}

/// Copies the ASCII prefix of `src` into `dst`; returns its length.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(whatenc_encoding_rs::mem::copy_ascii_to_ascii(b"ab\xFFc", &mut out), 2);
/// ```
pub fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    let ascii = ascii_valid_up_to(src);
    dst[..ascii].copy_from_slice(&src[..ascii]);
    ascii
}

/// Copies the ASCII prefix of `src` into `dst` as UTF-16; returns its length.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// let mut out = [0u16; 4];
/// assert_eq!(whatenc_encoding_rs::mem::copy_ascii_to_basic_latin(b"ab\xFFc", &mut out), 2);
/// assert_eq!(&out[..2], &[0x61, 0x62]);
/// ```
pub fn copy_ascii_to_basic_latin(src: &[u8], dst: &mut [u16]) -> usize {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    let ascii = ascii_valid_up_to(src);
    convert_latin1_to_utf16(&src[..ascii], &mut dst[..ascii]);
    ascii
}

/// Copies the Basic Latin prefix of `src` into `dst` as ASCII; returns its
/// length.
///
/// # Panics
///
/// If `dst` is shorter than `src`.
///
/// ```
/// let mut out = [0u8; 3];
/// assert_eq!(whatenc_encoding_rs::mem::copy_basic_latin_to_ascii(&[0x61, 0x80, 0x62], &mut out), 1);
/// ```
pub fn copy_basic_latin_to_ascii(src: &[u16], dst: &mut [u8]) -> usize {
    assert!(dst.len() >= src.len(), "the destination must be at least as long as the source");
    let basic = src.iter().position(|&u| u >= 0x80).unwrap_or(src.len());
    convert_utf16_to_latin1_lossy(&src[..basic], &mut dst[..basic]);
    basic
}

/// The length of the longest prefix of `bytes` that is valid UTF-8 (also
/// [`Encoding::utf8_valid_up_to`](crate::Encoding::utf8_valid_up_to)).
pub(crate) fn utf8_valid_up_to(bytes: &[u8]) -> usize {
    match core::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(error) => error.valid_up_to(),
    }
}

/// The length of the longest prefix of `bytes` that is ASCII.
pub(crate) fn ascii_valid_up_to(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| b >= 0x80).unwrap_or(bytes.len())
}
