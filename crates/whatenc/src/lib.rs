//! whatenc: the WHATWG Encoding Standard in Rust.
//!
//! Every encoding, label, decoder, encoder and error mode of the
//! [Encoding Standard](https://encoding.spec.whatwg.org/), exact to the text, with
//! streaming [`Decoder`]s and [`Encoder`]s and the standard's [`hooks`].
//!
//! ```
//! use whatenc::{Encoding, hooks};
//!
//! // "get an encoding" from a label, then decode as a browser does.
//! let encoding = Encoding::for_label(b"latin1").unwrap();
//! assert_eq!(encoding.name(), "windows-1252");
//! let (text, used) = hooks::decode(b"caf\xE9", encoding);
//! assert_eq!(text, "café");
//! assert_eq!(used, encoding);
//!
//! // A BOM overrides the fallback encoding.
//! let (text, used) = hooks::decode(b"\xEF\xBB\xBFcaf\xC3\xA9", encoding);
//! assert_eq!((&*text, used), ("café", whatenc::UTF_8));
//! ```
//!
//! The streaming contract is documented once, on [`Decoder`] and [`Encoder`].
#![no_std]
#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod codec;
mod decoder;
pub mod detect;
mod encoder;
mod encoding;
pub mod hooks;
#[cfg(feature = "std")]
pub mod io;
mod simd;
pub mod sniff;
mod tables;
pub mod text;
pub mod tier;

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

pub use decoder::{BomHandling, DecodeError, DecodeProgress, Decoder, DecoderOptions, DecoderResult, ErrorMode};
pub use encoder::{EncodeProgress, Encoder, EncoderErrorMode, EncoderResult, NoEncoder};
pub use encoding::*;
pub use tier::{Tier, active_tier, max_tier, set_max_tier};
