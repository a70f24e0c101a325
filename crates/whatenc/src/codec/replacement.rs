//! The replacement encoding's decoder (`encoding.bs` § "replacement"): one error for
//! non-empty input, then nothing. It has no encoder.

use super::{DecodeHandler, Sink, Status};

/// The replacement decoder, with its "replacement error returned" flag.
#[derive(Debug, Clone)]
pub(crate) struct ReplacementDecoder {
    error_returned: bool,
}

impl ReplacementDecoder {
    pub(crate) fn new() -> Self {
        ReplacementDecoder { error_returned: false }
    }
}

impl DecodeHandler for ReplacementDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        if src.is_empty() {
            if last {
                // End-of-queue: finished; a later stream starts afresh.
                self.error_returned = false;
            }
            return (Status::InputEmpty, 0);
        }
        if !self.error_returned {
            if dst.room() < S::STEP {
                return (Status::OutputFull, 0);
            }
            self.error_returned = true;
            return (Status::Error { len: 1, restored: 0 }, 1);
        }
        // "Return finished": the rest of the input is read and produces nothing.
        if last {
            self.error_returned = false;
        }
        (Status::InputEmpty, src.len())
    }
}
