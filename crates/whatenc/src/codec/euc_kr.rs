//! PLACEHOLDER until the CJK codecs land (issue "CJK multi-byte encodings"): ASCII
//! passes through, every other byte or scalar value is an error.

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};

#[derive(Debug, Clone)]
pub(crate) struct EucKrDecoder;

impl EucKrDecoder {
    pub(crate) fn new() -> Self {
        EucKrDecoder
    }
}

impl DecodeHandler for EucKrDecoder {
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        super::placeholder_decode(src, dst, last)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct EucKrEncoder;

impl EncodeHandler for EucKrEncoder {
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, last: bool) -> EncodeStatus {
        super::placeholder_encode(src, dst, last)
    }
}
