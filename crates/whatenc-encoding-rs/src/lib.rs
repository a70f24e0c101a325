//! encoding_rs 0.8's public API, implemented on [`whatenc`].
//!
//! Switch an existing project with one line in `Cargo.toml`; the code that says
//! `use encoding_rs::...` stays as it is:
//!
//! ```toml
//! encoding_rs = { package = "whatenc-encoding-rs", version = "0.8" }
//! ```
//!
//! Every item here has the name, signature and behaviour of its encoding_rs twin,
//! tested against encoding_rs itself. The few differences (in how a streaming
//! call splits its work, never in the text) are listed in the crate's README.
//!
//! ```
//! use whatenc_encoding_rs::{Encoding, SHIFT_JIS, UTF_8, WINDOWS_1252};
//!
//! let (text, encoding, had_errors) = WINDOWS_1252.decode(b"\xEF\xBB\xBFcaf\xC3\xA9");
//! assert_eq!((&*text, encoding, had_errors), ("café", UTF_8, false));
//!
//! let (bytes, encoding, unmappable) = SHIFT_JIS.encode("日本☃");
//! assert_eq!((&bytes[..], encoding, unmappable), (&b"\x93\xfa\x96\x7b&#9731;"[..], SHIFT_JIS, true));
//! assert_eq!(Encoding::for_label(b"sjis"), Some(SHIFT_JIS));
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;

mod bounds;
mod decoder;
mod encoder;
mod encoding;
pub mod mem;
#[cfg(feature = "serde")]
mod serde_impl;

pub use decoder::{CoderResult, Decoder, DecoderResult};
pub use encoder::{Encoder, EncoderResult};
pub use encoding::Encoding;

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// Defines an encoding's `_INIT` static and its `&'static` twin, both documented
/// with an example.
macro_rules! statics {
    ($($init:ident $name:ident $native:ident $text:literal;)*) => {
        $(
            #[doc = concat!("The ", $text, " encoding (the value behind [`", stringify!($name), "`]).")]
            ///
            /// Use it only where a `static` needs an `Encoding` by value; everywhere else
            #[doc = concat!("use [`", stringify!($name), "`].")]
            ///
            /// ```
            #[doc = concat!("assert_eq!(whatenc_encoding_rs::", stringify!($init), ".name(), \"", $text, "\");")]
            /// ```
            pub static $init: Encoding = Encoding::new(whatenc::$native);

            #[doc = concat!("The ", $text, " encoding.")]
            ///
            /// ```
            #[doc = concat!("let encoding = whatenc_encoding_rs::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(encoding.name(), \"", $text, "\");")]
            #[doc = concat!("assert!(core::ptr::eq(encoding, &whatenc_encoding_rs::", stringify!($init), "));")]
            /// ```
            pub static $name: &Encoding = &$init;
        )*

        /// The 40 encodings, to map whatenc's encodings back to these statics.
        static ALL: [&Encoding; 40] = [$(&$init),*];
    };
}

statics! {
    BIG5_INIT BIG5 BIG5 "Big5";
    EUC_JP_INIT EUC_JP EUC_JP "EUC-JP";
    EUC_KR_INIT EUC_KR EUC_KR "EUC-KR";
    GBK_INIT GBK GBK "GBK";
    IBM866_INIT IBM866 IBM866 "IBM866";
    ISO_2022_JP_INIT ISO_2022_JP ISO_2022_JP "ISO-2022-JP";
    ISO_8859_10_INIT ISO_8859_10 ISO_8859_10 "ISO-8859-10";
    ISO_8859_13_INIT ISO_8859_13 ISO_8859_13 "ISO-8859-13";
    ISO_8859_14_INIT ISO_8859_14 ISO_8859_14 "ISO-8859-14";
    ISO_8859_15_INIT ISO_8859_15 ISO_8859_15 "ISO-8859-15";
    ISO_8859_16_INIT ISO_8859_16 ISO_8859_16 "ISO-8859-16";
    ISO_8859_2_INIT ISO_8859_2 ISO_8859_2 "ISO-8859-2";
    ISO_8859_3_INIT ISO_8859_3 ISO_8859_3 "ISO-8859-3";
    ISO_8859_4_INIT ISO_8859_4 ISO_8859_4 "ISO-8859-4";
    ISO_8859_5_INIT ISO_8859_5 ISO_8859_5 "ISO-8859-5";
    ISO_8859_6_INIT ISO_8859_6 ISO_8859_6 "ISO-8859-6";
    ISO_8859_7_INIT ISO_8859_7 ISO_8859_7 "ISO-8859-7";
    ISO_8859_8_INIT ISO_8859_8 ISO_8859_8 "ISO-8859-8";
    ISO_8859_8_I_INIT ISO_8859_8_I ISO_8859_8_I "ISO-8859-8-I";
    KOI8_R_INIT KOI8_R KOI8_R "KOI8-R";
    KOI8_U_INIT KOI8_U KOI8_U "KOI8-U";
    SHIFT_JIS_INIT SHIFT_JIS SHIFT_JIS "Shift_JIS";
    UTF_16BE_INIT UTF_16BE UTF_16BE "UTF-16BE";
    UTF_16LE_INIT UTF_16LE UTF_16LE "UTF-16LE";
    UTF_8_INIT UTF_8 UTF_8 "UTF-8";
    GB18030_INIT GB18030 GB18030 "gb18030";
    MACINTOSH_INIT MACINTOSH MACINTOSH "macintosh";
    REPLACEMENT_INIT REPLACEMENT REPLACEMENT "replacement";
    WINDOWS_1250_INIT WINDOWS_1250 WINDOWS_1250 "windows-1250";
    WINDOWS_1251_INIT WINDOWS_1251 WINDOWS_1251 "windows-1251";
    WINDOWS_1252_INIT WINDOWS_1252 WINDOWS_1252 "windows-1252";
    WINDOWS_1253_INIT WINDOWS_1253 WINDOWS_1253 "windows-1253";
    WINDOWS_1254_INIT WINDOWS_1254 WINDOWS_1254 "windows-1254";
    WINDOWS_1255_INIT WINDOWS_1255 WINDOWS_1255 "windows-1255";
    WINDOWS_1256_INIT WINDOWS_1256 WINDOWS_1256 "windows-1256";
    WINDOWS_1257_INIT WINDOWS_1257 WINDOWS_1257 "windows-1257";
    WINDOWS_1258_INIT WINDOWS_1258 WINDOWS_1258 "windows-1258";
    WINDOWS_874_INIT WINDOWS_874 WINDOWS_874 "windows-874";
    X_MAC_CYRILLIC_INIT X_MAC_CYRILLIC X_MAC_CYRILLIC "x-mac-cyrillic";
    X_USER_DEFINED_INIT X_USER_DEFINED X_USER_DEFINED "x-user-defined";
}
