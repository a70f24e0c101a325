//! The boundary where decoded UTF-8 bytes become `str` and `String` contents
//! without a second validation pass.
//!
//! Every decoder writes only whole scalar values through
//! [`Utf8Sink`](crate::codec::Utf8Sink), whose methods take `char`s, ASCII bytes, or
//! `str`s. That invariant makes the two functions below sound; debug builds (and
//! so every test run) check it again with a full validation.

use alloc::string::String;

/// How far past the bytes it reports a writer may leave scratch bytes: 16 for the
/// word and vector stores of most kernels; the UTF-8 check fused with the copy
/// (AVX-512, AVX2, SSSE3) stores whole blocks, and one may follow the block where an
/// error ends the output (up to 65 bytes past it measured with AVX-512's blocks of
/// 64, 33 with AVX2's, 17 with SSSE3's).
pub(crate) const SCRATCH: usize = 128;

/// Lets `write` fill a prefix of `dst`'s bytes with valid UTF-8 and return how many
/// it wrote; keeps `dst` valid UTF-8 afterwards (and on unwinding).
pub(crate) fn write_into_str<R>(dst: &mut str, write: impl FnOnce(&mut [u8]) -> (R, usize)) -> (R, usize) {
    struct Guard<'a> {
        bytes: &'a mut [u8],
        done: bool,
    }
    impl Drop for Guard<'_> {
        fn drop(&mut self) {
            if !self.done {
                // Unwinding from a bug: make the whole buffer valid again.
                self.bytes.fill(0);
            }
        }
    }
    // SAFETY: the bytes are valid UTF-8 again before this function returns: `write`
    // leaves whole scalar values in `[..written]`, the scratch bytes after them and
    // the continuation bytes that an overwritten character may have left after those
    // are zeroed, and the guard
    // zeroes everything if `write` panics.
    let bytes = unsafe { dst.as_bytes_mut() };
    let mut guard = Guard { bytes, done: false };
    let (result, written) = write(guard.bytes);
    debug_assert!(core::str::from_utf8(&guard.bytes[..written]).is_ok());
    // The writers may leave scratch bytes right after the output (a kernel's whole
    // word or vector store), never further than `SCRATCH`: zero those, then the
    // continuation bytes of a character that the output or the scratch cut.
    let scratch_end = guard.bytes.len().min(written + SCRATCH);
    guard.bytes[written..scratch_end].fill(0);
    for byte in guard.bytes[scratch_end..].iter_mut().take(3) {
        if (*byte as i8) >= -0x40 {
            break; // not a continuation byte: a character starts here
        }
        *byte = 0;
    }
    guard.done = true;
    (result, written)
}

/// Lets `write` append valid UTF-8 to `dst` within its spare capacity (at most
/// `max_len` bytes of it); returns what `write` returns.
pub(crate) fn append_to_string<R>(
    dst: &mut String,
    max_len: usize,
    write: impl FnOnce(&mut [u8]) -> (R, usize),
) -> (R, usize) {
    struct Guard<'a> {
        vec: &'a mut alloc::vec::Vec<u8>,
        len: usize,
    }
    impl Drop for Guard<'_> {
        fn drop(&mut self) {
            self.vec.truncate(self.len);
        }
    }
    let old_len = dst.len();
    let new_len = dst.capacity().min(old_len.saturating_add(max_len));
    // SAFETY: the vector is only ever truncated back to `old_len` plus the bytes
    // `write` reports, which are whole scalar values; zero bytes pad it meanwhile,
    // and the guard truncates on every exit, including unwinding.
    let vec = unsafe { dst.as_mut_vec() };
    vec.resize(new_len, 0);
    let mut guard = Guard { vec, len: old_len };
    let (result, written) = write(&mut guard.vec[old_len..]);
    debug_assert!(core::str::from_utf8(&guard.vec[old_len..old_len + written]).is_ok());
    guard.len = old_len + written;
    (result, written)
}
