//! PLACEHOLDER until the CJK codecs land (issue "CJK multi-byte encodings"): ASCII
//! passes through, every other byte or scalar value is an error.

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};

#[derive(Debug, Clone)]
pub(crate) struct Iso2022JpDecoder;

impl Iso2022JpDecoder {
    pub(crate) fn new() -> Self {
        Iso2022JpDecoder
    }
}

impl DecodeHandler for Iso2022JpDecoder {
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        super::placeholder_decode(src, dst, last)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Iso2022JpEncoder;
impl Iso2022JpEncoder {
    pub(crate) fn new() -> Self {
        Iso2022JpEncoder
    }
}

impl EncodeHandler for Iso2022JpEncoder {
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, last: bool) -> EncodeStatus {
        super::placeholder_encode(src, dst, last)
    }
}
