//! The single-byte decoder and encoder, shared by the 28 legacy single-byte
//! encodings (`encoding.bs` § "Legacy single-byte encodings").

use super::{ByteSink, DecodeHandler, EncodeHandler, EncodeStatus, Sink, Source, Status};

/// The single-byte decoder. It has no state: each byte is one code point or an error.
#[derive(Debug, Clone)]
pub(crate) struct SingleByteDecoder {
    index: &'static SingleByteIndex,
}

impl SingleByteDecoder {
    pub(crate) fn new(index: &'static SingleByteIndex) -> Self {
        SingleByteDecoder { index }
    }
}

impl DecodeHandler for SingleByteDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, _last: bool) -> (Status, usize) {
        let table = &self.index.decode;
        let mut pos = 0;
        loop {
            // Step 2: ASCII bytes are code points; runs of them in bulk.
            pos += dst.copy_ascii(&src[pos..]);
            if pos == src.len() {
                return (Status::InputEmpty, pos);
            }
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            // Step 3: the index code point for byte − 0x80, while it is not null.
            pos += dst.decode_single_byte_run(&src[pos..], table);
            if let Some(&byte) = src.get(pos) {
                if byte >= 0x80 && table[(byte - 0x80) as usize] == 0 && dst.room() >= S::STEP {
                    // Step 4: null is an error.
                    return (Status::Error { len: 1, restored: 0 }, pos + 1);
                }
            }
        }
    }
}

/// The single-byte encoder: one reverse-table lookup per non-ASCII scalar value.
#[derive(Debug, Clone)]
pub(crate) struct SingleByteEncoder {
    index: &'static SingleByteIndex,
}

impl SingleByteEncoder {
    pub(crate) fn new(index: &'static SingleByteIndex) -> Self {
        SingleByteEncoder { index }
    }
}

impl EncodeHandler for SingleByteEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        // Steps 1–2 (end-of-queue, ASCII) are the shared loop's; then the index
        // pointer + 0x80, or error with the code point.
        let index = self.index;
        super::encode_stateless(src, dst, |c| index.pointer(c).map(u32::from))
    }
}

/// The tables of one single-byte index, generated into `tables/single_byte.rs`.
#[derive(Debug)]
pub(crate) struct SingleByteIndex {
    /// The index code point for each pointer (byte − 0x80); 0 stands for null.
    pub(crate) decode: [u16; 128],
    /// For each 128-code-point page, its number in `data` plus one (0: no page).
    pub(crate) pages: &'static [u8],
    /// Pages of bytes for code points (0: not in the index).
    pub(crate) data: &'static [u8],
}

impl SingleByteIndex {
    /// The byte for a non-ASCII scalar value: the index pointer + 0x80, if any.
    #[inline(always)]
    pub(crate) fn pointer(&self, c: char) -> Option<u8> {
        let code_point = c as u32;
        let page = *self.pages.get((code_point >> 7) as usize)?;
        if page == 0 {
            return None;
        }
        let byte = self.data[(page as usize - 1) * 128 + (code_point & 0x7F) as usize];
        (byte != 0).then_some(byte)
    }
}
