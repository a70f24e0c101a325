//! PLACEHOLDER until the CJK codecs land (issue "CJK multi-byte encodings"): ASCII
//! passes through, every other byte or scalar value is an error.

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};

#[derive(Debug, Clone)]
pub(crate) struct Gb18030Decoder;

impl Gb18030Decoder {
    pub(crate) fn new() -> Self {
        Gb18030Decoder
    }
}

impl DecodeHandler for Gb18030Decoder {
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        super::placeholder_decode(src, dst, last)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Gb18030Encoder;
impl Gb18030Encoder {
    pub(crate) fn new(_gbk: bool) -> Self {
        Gb18030Encoder
    }
}

impl EncodeHandler for Gb18030Encoder {
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, last: bool) -> EncodeStatus {
        super::placeholder_encode(src, dst, last)
    }
}
