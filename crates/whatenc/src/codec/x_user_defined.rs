//! x-user-defined (`encoding.bs` § "x-user-defined"): bytes 0x80–0xFF map to
//! U+F780–U+F7FF, algorithmically.

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};

/// The x-user-defined decoder; it has no state and no errors.
#[derive(Debug, Clone)]
pub(crate) struct XUserDefinedDecoder;

impl DecodeHandler for XUserDefinedDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, _last: bool) -> (Status, usize) {
        // 0xF780 + byte − 0x80; never an error.
        super::decode_single_bytes(src, dst, |byte| Some(0xF700 + byte as u16))
    }
}

/// The x-user-defined encoder.
#[derive(Debug, Clone)]
pub(crate) struct XUserDefinedEncoder;

impl EncodeHandler for XUserDefinedEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        // Steps 1–2 are the shared loop's; U+F780–U+F7FF map to 0x80–0xFF.
        super::encode_stateless(src, dst, |c| match c as u32 {
            cp @ 0xF780..=0xF7FF => Some(cp - 0xF780 + 0x80),
            _ => None,
        })
    }
}
