//! The bulk kernels: ASCII runs and UTF-16 ↔ UTF-8 transcoding.
//!
//! This is the only module where `cfg(target_arch)` and `unsafe` may appear. Today it
//! holds the portable word-at-a-time kernels of [`scalar`], which every build uses and
//! which the tests check against naive twins on inputs at every alignment.

pub(crate) mod scalar;
pub(crate) mod utf8_out;

pub(crate) use scalar::{
    copy_ascii_to_ascii, copy_ascii_to_utf16, copy_utf16_ascii_to_bytes, utf8_to_utf16, utf16_to_utf8,
};
