//! x-user-defined (`encoding.bs` § "x-user-defined"): bytes 0x80–0xFF map to
//! U+F780–U+F7FF, algorithmically.

use super::{ByteSink, DecodeHandler, ENCODE_STEP, EncodeHandler, EncodeStatus, Sink, Source, Status};

/// The x-user-defined decoder; it has no state and no errors.
#[derive(Debug, Clone)]
pub(crate) struct XUserDefinedDecoder;

impl DecodeHandler for XUserDefinedDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, _last: bool) -> (Status, usize) {
        let mut pos = 0;
        loop {
            pos += dst.copy_ascii(&src[pos..]);
            loop {
                let Some(&byte) = src.get(pos) else {
                    return (Status::InputEmpty, pos);
                };
                if byte < 0x80 {
                    break;
                }
                if dst.room() < S::STEP {
                    return (Status::OutputFull, pos);
                }
                // 0xF780 + byte − 0x80.
                dst.push_bmp(0xF700 + byte as u16);
                pos += 1;
            }
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
        }
    }
}

/// The x-user-defined encoder.
#[derive(Debug, Clone)]
pub(crate) struct XUserDefinedEncoder;

impl EncodeHandler for XUserDefinedEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        loop {
            dst.copy_ascii_from(src);
            if dst.room() < ENCODE_STEP {
                return if src.remaining() == 0 { EncodeStatus::InputEmpty } else { EncodeStatus::OutputFull };
            }
            let Some((c, len)) = src.peek() else {
                return EncodeStatus::InputEmpty;
            };
            src.advance(len);
            match c as u32 {
                cp @ 0..=0x7F => dst.push(cp as u8),
                cp @ 0xF780..=0xF7FF => dst.push((cp - 0xF780 + 0x80) as u8),
                _ => return EncodeStatus::Unmappable(c),
            }
        }
    }
}
