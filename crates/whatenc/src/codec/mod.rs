//! The codecs: one module per family, and the enum dispatch that keeps
//! [`Decoder`](crate::Decoder) and [`Encoder`](crate::Encoder) `Sized`.
//!
//! Each codec implements [`DecodeHandler`] and/or [`EncodeHandler`]: the standard's
//! handler, run over a whole slice at once. Dispatch on the enum happens once per
//! call, never per byte; inside, every loop is monomorphic in the codec and the sink.
//!
//! The contract between a handler and its wrapper:
//! - A handler stops *before* a step when the sink has less than
//!   [`Sink::STEP`] units of room. `STEP` is the most output one step can produce
//!   plus room for one U+FFFD, so that the wrapper can always write the replacement
//!   character after an error without checking again.
//! - On an error the handler returns [`Status::Error`] after consuming the bytes the
//!   standard reads; a byte the standard "restores" that is still in `src` is simply
//!   not consumed, and restored bytes from earlier calls are kept in the handler's
//!   state and re-read before `src`.
//! - In "replacement" mode the wrapper calls [`DecodeHandler::decode_replacing`]
//!   instead, and in the "html" mode [`EncodeHandler::encode_html`]: the handler
//!   may then write the U+FFFD (or the `&#N;`) itself, in the room it checked for
//!   the step, and go on, instead of returning the error; the first error it
//!   replaces is reported as a [`Replaced`].
//! - When `last` is true and the handler returns [`Status::InputEmpty`], it has
//!   processed end-of-queue and is back in its initial state.
//! - Handlers are `Clone` and small, so the wrapper can snapshot one and roll it back
//!   when a step's output would not fit a nearly full buffer.

pub(crate) mod big5;
pub(crate) mod euc_jp;
pub(crate) mod euc_kr;
pub(crate) mod gb18030;
pub(crate) mod iso_2022_jp;
pub(crate) mod replacement;
pub(crate) mod shift_jis;
pub(crate) mod single_byte;
pub(crate) mod utf16;
pub(crate) mod utf8;
pub(crate) mod x_user_defined;

use crate::encoding::{Encoding, Kind};

/// What a handler's run ended on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// All of `src` was consumed (and, with `last`, end-of-queue processed).
    InputEmpty,
    /// The sink has less than [`Sink::STEP`] units of room.
    OutputFull,
    /// The standard's handler returned error. `len` is the length of the malformed
    /// byte sequence; `restored` counts the bytes consumed (in this or an earlier
    /// call) that the handler holds to read again, which follow the sequence.
    Error { len: u8, restored: u8 },
}

/// Output of a decoder: UTF-8 bytes or UTF-16 code units.
pub(crate) trait Sink {
    /// The room a handler needs before it starts one step.
    const STEP: usize;
    /// The most units one code point of the BMP takes.
    const MAX_BMP: usize;
    /// How many steps of at most one BMP code point each fit without checking the
    /// room again (0 when not even one does).
    #[inline(always)]
    fn bmp_steps(&self) -> usize {
        match self.room().checked_sub(Self::STEP) {
            Some(spare) => spare / Self::MAX_BMP + 1,
            None => 0,
        }
    }
    /// Units of room left.
    fn room(&self) -> usize;
    /// Units written so far.
    fn written(&self) -> usize;
    /// Writes an ASCII byte. The caller has checked the room.
    fn push_ascii(&mut self, byte: u8);
    /// Writes a code point of the BMP that is not a surrogate. The caller has checked the room.
    fn push_bmp(&mut self, code_point: u16);
    /// Writes any scalar value. The caller has checked the room.
    fn push_char(&mut self, c: char);
    /// Copies the longest ASCII prefix of `src` that fits; returns its length.
    fn copy_ascii(&mut self, src: &[u8]) -> usize;
    /// [`Sink::copy_ascii`], called only when `src` starts with at least two ASCII
    /// bytes, so that text whose characters are separated by nothing or by a lone
    /// space does not pay for a bulk call per character. Callers handle a lone ASCII
    /// byte themselves.
    #[inline(always)]
    fn copy_ascii_run(&mut self, src: &[u8]) -> usize {
        match src {
            [first, second, ..] if first.is_ascii() && second.is_ascii() => self.copy_ascii(src),
            _ => 0,
        }
    }
    /// Decodes the longest prefix of `src` that is whole, valid UTF-8 (to UTF-8:
    /// [`crate::simd::copy_valid_utf8_prefix`]; to UTF-16:
    /// [`crate::simd::utf8_prefix_to_utf16`]; each in one pass, with `look` after a
    /// scalar look at the first bytes, for where an error is likely close: see
    /// [`crate::simd::scalar::utf8_head`]); returns the bytes read. The caller has
    /// checked that `room() >= src.len()` (a UTF-8 byte never becomes more than one
    /// UTF-16 unit). `fresh` for the call's first copy (no error came before it): to
    /// UTF-8, a long input may then go in pieces
    /// ([`crate::simd::copy_valid_utf8_in_pieces`]).
    fn copy_utf8_prefix(&mut self, src: &[u8], look: bool, fresh: bool) -> usize;
    /// Decodes whole sequences of a lead-byte encoding in a batch, with one room
    /// check: at each position, an ASCII byte that is not followed by another is
    /// written as it is, and any other byte starts a sequence that `sequence` turns
    /// into a code point of the BMP (not a surrogate) and its length. Stops before two
    /// ASCII bytes in a row (left to the bulk copy), where `sequence` returns `None`,
    /// at the end of `src`, or after [`Sink::bmp_steps`] steps. Returns the bytes
    /// consumed.
    fn decode_bmp_run(&mut self, src: &[u8], sequence: impl Fn(&[u8]) -> Option<(u16, usize)>) -> usize;
    /// The batch of `euc_jp::decode_lead_byte`: whole sequences of `H`'s encoding,
    /// as [`Sink::decode_bmp_run`] takes them, through the handler's tables of pairs
    /// where the sink has a run for them (into UTF-16 [`Utf16Sink::decode_pair_run`],
    /// with `LeadByteHandler::PAIRS`; into UTF-8 [`Utf8Sink::decode_utf8_pair_run`],
    /// with `LeadByteHandler::UTF8_PAIRS`). Returns the bytes consumed.
    fn decode_lead_byte_run<H: euc_jp::LeadByteHandler>(&mut self, src: &[u8]) -> usize;
    /// Decodes bytes of a single-byte encoding (`table[byte - 0x80]`, 0 for null)
    /// while they fit with [`Sink::STEP`] room to spare, until 8 ASCII bytes in a row
    /// (left to the bulk ASCII copy) or a byte that is null in the table. Returns the
    /// bytes consumed (the null byte, if any, is not).
    #[inline(always)]
    fn decode_single_byte_run(&mut self, src: &[u8], table: &[u16; 128]) -> usize {
        let end = src.len().min(self.bmp_steps());
        let mut streak = 0;
        for (i, &byte) in src[..end].iter().enumerate() {
            if byte < 0x80 {
                streak += 1;
                if streak == 8 {
                    return i;
                }
                self.push_ascii(byte);
                continue;
            }
            streak = 0;
            let code_point = table[(byte - 0x80) as usize];
            if code_point == 0 {
                return i;
            }
            self.push_bmp(code_point);
        }
        end
    }
    /// Decodes bytes of a single-byte encoding in bulk, 16 at a time, while at least
    /// 16 are left and fit with room to spare; stops before a null byte (and, into
    /// UTF-16, before a block with the byte 0x00). Returns the bytes consumed.
    fn decode_single_byte_bulk(&mut self, src: &[u8], index: &single_byte::SingleByteIndex) -> usize;
    /// Writes the code units at the start of UTF-16 bytes (big- or little-endian)
    /// while they are not surrogates, as far as they fit with [`Sink::STEP`] room to
    /// spare for the next step; returns the bytes consumed (always even).
    fn copy_utf16_bmp(&mut self, src: &[u8], big_endian: bool) -> usize;
    /// Writes the code units at the start of UTF-16 bytes (big- or little-endian),
    /// each lone surrogate as U+FFFD (replacement mode, where an earlier error of
    /// the call was the first), as far as they fit with [`Sink::STEP`] room to
    /// spare, in blocks (the rest is the caller's); the unit before `src` must not be
    /// a leading surrogate. Returns the bytes consumed, and whether to go on so
    /// (lone surrogates were among them: errors are dense here).
    fn copy_utf16_replacing(&mut self, src: &[u8], big_endian: bool) -> (usize, bool);
}

/// The first two bytes of the three-byte UTF-8 form of the code points `i << 6` to
/// `(i << 6) + 63`, as a little-endian `u16` (for `i` below 0x20, which have no
/// three-byte form, unused): one load instead of the shifts and masks per character.
static THREE_BYTE_HEADS: [u16; 1024] = {
    let mut heads = [0u16; 1024];
    let mut i = 0;
    while i < 1024 {
        heads[i] = (0xE0 | (i >> 6) as u16) | (0x80 | (i & 0x3F) as u16) << 8;
        i += 1;
    }
    heads
};

/// `code_points` (of the BMP, 0 for none) each in its UTF-8 form, its bytes from the
/// lowest as a little-endian word and its length in the top byte (0 stays 0): the
/// tables of [`Utf8Sink::decode_utf8_pair_run`], worked out at compile time.
pub(super) const fn utf8_forms<const N: usize>(code_points: &[u16; N]) -> [u32; N] {
    let mut forms = [0u32; N];
    let mut i = 0;
    while i < N {
        let c = code_points[i] as u32;
        forms[i] = if c == 0 {
            0
        } else if c < 0x80 {
            c | 1 << 24
        } else if c < 0x800 {
            (0xC0 | c >> 6) | (0x80 | (c & 0x3F)) << 8 | 2 << 24
        } else {
            (0xE0 | c >> 12) | (0x80 | (c >> 6 & 0x3F)) << 8 | (0x80 | (c & 0x3F)) << 16 | 3 << 24
        };
        i += 1;
    }
    forms
}

/// The code units of UTF-16 input that [`Utf8Sink::copy_utf16_bmp`] takes before
/// its vector loops, which look hundreds of units ahead to choose their kernels:
/// through the block kernels alone (one at a time at the portable tier).
const HEAD_UNITS: usize = 256;

/// The fewest units of [`Utf8Sink::copy_utf16_bmp`]'s head that go through the
/// block kernels rather than one at a time.
const HEAD_BLOCKS: usize = 8;

/// A UTF-8 sink over a byte buffer. Only whole scalar values are written.
pub(crate) struct Utf8Sink<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Utf8Sink<'a> {
    /// [`Sink::decode_bmp_run`] for encodings whose pairs have their UTF-8 form in a
    /// table: a non-ASCII byte and the next whose `utf8_pair` is not 0 are written as
    /// that word's bytes (its length in the top byte: see [`utf8_forms`]), the others
    /// go to `sequence`.
    #[inline(always)]
    fn decode_utf8_pair_run(
        &mut self,
        src: &[u8],
        utf8_pair: impl Fn(u8, u8) -> u32,
        sequence: impl Fn(&[u8]) -> Option<(u16, usize)>,
    ) -> usize {
        // The buffer and position as locals, so that they stay in registers.
        let steps = self.bmp_steps();
        let buf = &mut *self.buf;
        let mut out = self.pos;
        let mut read = 0;
        for _ in 0..steps {
            let Some(&byte) = src.get(read) else { break };
            if byte < 0x80 {
                if src.get(read + 1).is_some_and(u8::is_ascii) {
                    break;
                }
                buf[out] = byte;
                out += 1;
                read += 1;
                continue;
            }
            // One store of four bytes, here and for a three-byte code point below; the
            // bytes past the character's are scratch (the room for a step covers
            // them), overwritten by the next step or left after the output.
            if let Some(&b1) = src.get(read + 1) {
                let word = utf8_pair(byte, b1);
                if word != 0 {
                    buf[out..out + 4].copy_from_slice(&word.to_le_bytes());
                    out += (word >> 24) as usize;
                    read += 2;
                    continue;
                }
            }
            let Some((code_point, len)) = sequence(&src[read..]) else { break };
            read += len;
            let c = code_point as u32;
            if c >= 0x800 {
                let word = u32::from(THREE_BYTE_HEADS[(c >> 6) as usize]) | (c << 16 & 0x3F_0000) | 0x80_0000;
                buf[out..out + 4].copy_from_slice(&word.to_le_bytes());
                out += 3;
            } else if c >= 0x80 {
                let bytes = &mut buf[out..out + 2];
                bytes[0] = 0xC0 | (c >> 6) as u8;
                bytes[1] = 0x80 | (c & 0x3F) as u8;
                out += 2;
            } else {
                buf[out] = c as u8;
                out += 1;
            }
        }
        self.pos = out;
        read
    }
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Utf8Sink { buf, pos: 0 }
    }
    /// Copies bytes that are known to be valid UTF-8 and to fit.
    #[inline]
    pub(crate) fn copy_utf8(&mut self, valid: &[u8]) {
        self.buf[self.pos..self.pos + valid.len()].copy_from_slice(valid);
        self.pos += valid.len();
    }
    /// Writes UTF-16 bytes (big- or little-endian) that hold no surrogate, with room
    /// for their bytes and one more: four units at a time where all four take three
    /// bytes (each a store of four, the fourth overwritten by the next or left past
    /// the output), the others one at a time. In bytes of another encoding taken for
    /// UTF-16 nearly every unit takes three bytes; against one unit at a time, legacy
    /// bytes as UTF-16LE → `String` at the portable tier: Shift_JIS ja.txt −15% time,
    /// Big5 zh_tw.txt −15%, EUC-JP ja.txt −13%, KOI8-R ru.html −15%, windows-1253
    /// el.html −15% (rotating, `AMD EPYC` Zen 1).
    #[inline(always)]
    fn push_bmp_run(&mut self, src: &[u8], big_endian: bool) {
        use crate::simd::scalar::{LANES, three_byte_word, utf16_word};
        let mut quads = src.chunks_exact(8);
        for quad in &mut quads {
            let word = utf16_word(quad.try_into().expect("eight bytes"), big_endian);
            if crate::simd::utf16_to_utf8::lanes_with(word, 0xF800 * LANES) == LANES {
                // All four at U+0800 or above.
                let out = &mut self.buf[self.pos..self.pos + 13];
                for k in 0..4 {
                    let bytes = three_byte_word((word >> (16 * k)) as u32 & 0xFFFF);
                    out[3 * k..3 * k + 4].copy_from_slice(&bytes.to_le_bytes());
                }
                self.pos += 12;
            } else {
                for k in 0..4 {
                    self.push_bmp((word >> (16 * k)) as u16);
                }
            }
        }
        for pair in quads.remainder().chunks_exact(2) {
            let pair = [pair[0], pair[1]];
            self.push_bmp(if big_endian { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) });
        }
    }
}

impl Sink for Utf8Sink<'_> {
    // A step writes at most 4 bytes (one astral scalar value, or Big5's two-code-point
    // pairs of 2 + 2 bytes); then 3 for U+FFFD.
    const STEP: usize = 7;
    const MAX_BMP: usize = 3;
    #[inline(always)]
    fn room(&self) -> usize {
        self.buf.len() - self.pos
    }
    #[inline(always)]
    fn written(&self) -> usize {
        self.pos
    }
    #[inline(always)]
    fn push_ascii(&mut self, byte: u8) {
        self.buf[self.pos] = byte;
        self.pos += 1;
    }
    #[inline(always)]
    fn push_bmp(&mut self, code_point: u16) {
        let c = code_point as u32;
        if c < 0x80 {
            self.buf[self.pos] = c as u8;
            self.pos += 1;
        } else if c < 0x800 {
            let out = &mut self.buf[self.pos..self.pos + 2];
            out[0] = 0xC0 | (c >> 6) as u8;
            out[1] = 0x80 | (c & 0x3F) as u8;
            self.pos += 2;
        } else {
            let out = &mut self.buf[self.pos..self.pos + 3];
            out[0] = 0xE0 | (c >> 12) as u8;
            out[1] = 0x80 | ((c >> 6) & 0x3F) as u8;
            out[2] = 0x80 | (c & 0x3F) as u8;
            self.pos += 3;
        }
    }
    #[inline(always)]
    fn push_char(&mut self, c: char) {
        let n = c.encode_utf8(&mut self.buf[self.pos..]).len();
        self.pos += n;
    }
    #[inline(always)]
    fn copy_ascii(&mut self, src: &[u8]) -> usize {
        let n = crate::simd::copy_ascii_to_ascii(src, &mut self.buf[self.pos..]);
        self.pos += n;
        n
    }
    #[inline(always)]
    fn copy_utf8_prefix(&mut self, src: &[u8], look: bool, fresh: bool) -> usize {
        if let Some(n) = fresh.then(|| crate::simd::copy_valid_utf8_in_pieces(src, &mut self.buf[self.pos..])).flatten()
        {
            self.pos += n;
            return n;
        }
        if !look {
            let n = crate::simd::copy_valid_utf8_prefix(src, &mut self.buf[self.pos..]);
            self.pos += n;
            return n;
        }
        let (valid, settled) = crate::simd::scalar::utf8_head(src);
        self.copy_utf8(&src[..valid]);
        if settled {
            return valid;
        }
        let more = crate::simd::copy_valid_utf8_prefix(&src[valid..], &mut self.buf[self.pos..]);
        self.pos += more;
        valid + more
    }
    #[inline(always)]
    fn decode_single_byte_bulk(&mut self, src: &[u8], index: &single_byte::SingleByteIndex) -> usize {
        let (read, written) = crate::simd::decode_single_byte_to_utf8(
            src,
            &mut self.buf[self.pos..],
            &index.utf8,
            &index.utf16,
            (index.run_byte, index.run_len as u8, index.run_delta),
        );
        self.pos += written;
        read
    }
    #[inline(always)]
    fn decode_lead_byte_run<H: euc_jp::LeadByteHandler>(&mut self, src: &[u8]) -> usize {
        if H::UTF8_PAIRS {
            self.decode_utf8_pair_run(src, H::utf8_pair, H::sequence)
        } else {
            self.decode_bmp_run(src, H::sequence)
        }
    }
    #[inline(always)]
    fn decode_bmp_run(&mut self, src: &[u8], sequence: impl Fn(&[u8]) -> Option<(u16, usize)>) -> usize {
        // No table: every pair goes to `sequence`.
        self.decode_utf8_pair_run(src, |_, _| 0, sequence)
    }
    #[inline]
    fn copy_utf16_bmp(&mut self, src: &[u8], big_endian: bool) -> usize {
        // The first units one at a time: a surrogate among them (text of errors, as
        // bytes taken for UTF-16, where one comes every 32 units or so) ends the run
        // without the set-up of the vector loops, which look at hundreds of units
        // ahead to choose their kernels.
        let whole = (src.len() / 2).min(HEAD_UNITS);
        let head = whole.min(self.room().saturating_sub(Self::STEP) / 3);
        let before = crate::simd::scalar::units_before_surrogate(&src[..2 * head], big_endian);
        // The run through the block kernels, which need no look ahead, where the tier
        // has them.
        let run = (before >= HEAD_BLOCKS).then(|| {
            let (run, out) = (&src[..2 * before], &mut self.buf[self.pos..]);
            if big_endian {
                crate::simd::bmp_run_to_utf8(crate::simd::ByteUnits::<true>(run), out, Self::STEP)
            } else {
                crate::simd::bmp_run_to_utf8(crate::simd::ByteUnits::<false>(run), out, Self::STEP)
            }
        });
        if let Some(Some((units, written))) = run {
            debug_assert_eq!(units, before, "the room was counted for the whole run");
            self.pos += written;
        } else {
            self.push_bmp_run(&src[..2 * before], big_endian);
        }
        let read = 2 * before;
        if before < HEAD_UNITS {
            // The end of the input, or of the room.
            return read;
        }
        let (rest, out) = (&src[read..], &mut self.buf[self.pos..]);
        let (units, written) = if big_endian {
            crate::simd::bmp_to_utf8(crate::simd::ByteUnits::<true>(rest), out, Self::STEP)
        } else {
            crate::simd::bmp_to_utf8(crate::simd::ByteUnits::<false>(rest), out, Self::STEP)
        };
        self.pos += written;
        read + 2 * units
    }
    #[inline]
    fn copy_utf16_replacing(&mut self, src: &[u8], big_endian: bool) -> (usize, bool) {
        let out = &mut self.buf[self.pos..];
        let (units, written) = if big_endian {
            crate::simd::bmp_replacing_to_utf8(crate::simd::ByteUnits::<true>(src), out, Self::STEP)
        } else {
            crate::simd::bmp_replacing_to_utf8(crate::simd::ByteUnits::<false>(src), out, Self::STEP)
        };
        self.pos += written;
        // It stops at a calm stretch (or a pair): the bulk loop until the next error.
        (2 * units, false)
    }
}

/// A UTF-16 sink over a code unit buffer. Surrogate pairs are written whole.
pub(crate) struct Utf16Sink<'a> {
    buf: &'a mut [u16],
    pos: usize,
}

impl<'a> Utf16Sink<'a> {
    /// [`Sink::decode_bmp_run`] for encodings whose characters are mostly pairs of
    /// bytes, with ASCII between them: each step reads two bytes `b0 b1`
    /// and, without a branch on which it is, writes `b0` when it is ASCII (and `b1`
    /// is not: two in a row stop the run, for the bulk copy) or `pair(b0, b1)`, the
    /// code point of the pair (0 for none; `pair` must answer for any two bytes,
    /// without a branch). A byte that is neither goes to `sequence`, as in
    /// [`Sink::decode_bmp_run`]; a last byte alone stops the run.
    ///
    /// Into UTF-16, against [`Sink::decode_bmp_run`], rotating, `AMD EPYC` Zen 5,
    /// AVX-512 tier, MB/s, in builds that differ only in this: ja.txt Shift_JIS 1,540
    /// → 1,828, ja.html 3,714 → 3,926, ja.txt EUC-JP 1,570 → 1,588, ja.html 3,509 →
    /// 3,581; ko.txt EUC-KR 1,426 → 1,331, so EUC-KR does not take it.
    ///
    /// Into UTF-8 there is no such run ([`Utf8Sink::decode_utf8_pair_run`] takes a
    /// table of UTF-8 forms instead): into UTF-8, the steps
    /// without a branch on ASCII or not (the character's one or three bytes chosen,
    /// stored as a word, the output advanced by the length chosen) ran slower than
    /// the branches, whose predictions the data dependencies do not wait for.
    /// Rotating, `AMD EPYC` Zen 5, AVX-512 tier, MB/s: ko.txt EUC-KR 1,000 → 758,
    /// ja.txt Shift_JIS 1,166 → 930, ko.html 3,306 → 2,765, ja.html 3,093 → 2,750.
    #[inline(always)]
    fn decode_pair_run(
        &mut self,
        src: &[u8],
        pair: impl Fn(u8, u8) -> u16,
        sequence: impl Fn(&[u8]) -> Option<(u16, usize)>,
    ) -> usize {
        // The room for the run as a slice of its own, the count in it, and the pair's
        // place tested against the last byte's, so that no load or store needs a
        // bound check: fewer registers in the loop, which is inlined into the
        // decoder's whole run (with EUC-JP's grid of rows of 128: ja.txt EUC-JP →
        // UTF-16 +31%, see `euc_jp::EUC_JP_GRID`). A loop without the branch on ASCII
        // (the length and unit chosen by value) ran at 51–73% of the speed: the next pair's
        // place then waits for this one's load.
        let steps = self.bmp_steps();
        let out = &mut self.buf[self.pos..][..steps];
        let before_last = src.len().saturating_sub(1);
        let mut read = 0;
        let mut n = 0;
        while n < out.len() && read < before_last {
            let (b0, b1) = (src[read], src[read + 1]);
            let ascii = b0 < 0x80;
            if ascii && b1 < 0x80 {
                break;
            }
            let pair = pair(b0, b1);
            let (unit, len) = if ascii {
                (u16::from(b0), 1)
            } else if pair != 0 {
                (pair, 2)
            } else {
                let Some(sequence) = sequence(&src[read..]) else { break };
                sequence
            };
            read += len;
            out[n] = unit;
            n += 1;
        }
        self.pos += n;
        read
    }
    pub(crate) fn new(buf: &'a mut [u16]) -> Self {
        Utf16Sink { buf, pos: 0 }
    }
}

impl Sink for Utf16Sink<'_> {
    // A step writes at most 2 units (a surrogate pair or a Big5 pair); then 1 for U+FFFD.
    const STEP: usize = 3;
    const MAX_BMP: usize = 1;
    #[inline(always)]
    fn room(&self) -> usize {
        self.buf.len() - self.pos
    }
    #[inline(always)]
    fn written(&self) -> usize {
        self.pos
    }
    #[inline(always)]
    fn push_ascii(&mut self, byte: u8) {
        self.buf[self.pos] = byte as u16;
        self.pos += 1;
    }
    #[inline(always)]
    fn push_bmp(&mut self, code_point: u16) {
        self.buf[self.pos] = code_point;
        self.pos += 1;
    }
    #[inline(always)]
    fn push_char(&mut self, c: char) {
        let n = c.encode_utf16(&mut self.buf[self.pos..]).len();
        self.pos += n;
    }
    #[inline(always)]
    fn copy_ascii(&mut self, src: &[u8]) -> usize {
        let n = crate::simd::copy_ascii_to_utf16(src, &mut self.buf[self.pos..]);
        self.pos += n;
        n
    }
    #[inline(always)]
    fn copy_utf8_prefix(&mut self, src: &[u8], look: bool, _fresh: bool) -> usize {
        if !look {
            let (read, written) = crate::simd::utf8_prefix_to_utf16(src, &mut self.buf[self.pos..]);
            self.pos += written;
            return read;
        }
        // An error in the first bytes (text of errors, as a legacy encoding taken for
        // UTF-8) is found by the scalar pass alone, without the tier's set-up: the
        // look of `scalar::utf8_head`, with the pass that decodes as it checks.
        let head = &src[..src.len().min(crate::simd::scalar::SHORT_UTF8)];
        let (mut read, written) = crate::simd::scalar::utf8_prefix_to_utf16(head, &mut self.buf[self.pos..]);
        self.pos += written;
        if !crate::simd::scalar::utf8_head_settles(read, head.len(), src.len()) {
            let (more, written) = crate::simd::utf8_prefix_to_utf16(&src[read..], &mut self.buf[self.pos..]);
            self.pos += written;
            read += more;
        }
        read
    }
    #[inline(always)]
    fn decode_single_byte_bulk(&mut self, src: &[u8], index: &single_byte::SingleByteIndex) -> usize {
        let n = crate::simd::decode_single_byte_to_utf16(
            src,
            &mut self.buf[self.pos..],
            &index.utf16,
            index.run_byte,
            index.run_len as u8,
            index.run_delta,
        );
        self.pos += n;
        n
    }
    #[inline(always)]
    fn decode_bmp_run(&mut self, src: &[u8], sequence: impl Fn(&[u8]) -> Option<(u16, usize)>) -> usize {
        // The buffer and position as locals, so that they stay in registers.
        let steps = self.bmp_steps();
        let buf = &mut *self.buf;
        let mut out = self.pos;
        let mut read = 0;
        for _ in 0..steps {
            let Some(&byte) = src.get(read) else { break };
            if byte < 0x80 {
                if src.get(read + 1).is_some_and(u8::is_ascii) {
                    break;
                }
                buf[out] = byte as u16;
                out += 1;
                read += 1;
                continue;
            }
            let Some((code_point, len)) = sequence(&src[read..]) else { break };
            read += len;
            buf[out] = code_point;
            out += 1;
        }
        self.pos = out;
        read
    }
    #[inline(always)]
    fn decode_lead_byte_run<H: euc_jp::LeadByteHandler>(&mut self, src: &[u8]) -> usize {
        if H::PAIRS { self.decode_pair_run(src, H::pair, H::sequence) } else { self.decode_bmp_run(src, H::sequence) }
    }
    #[inline]
    fn copy_utf16_bmp(&mut self, src: &[u8], big_endian: bool) -> usize {
        let steps = self.bmp_steps();
        let n = crate::simd::utf16_bytes_to_units(src, &mut self.buf[self.pos..self.pos + steps], big_endian);
        self.pos += n;
        2 * n
    }
    #[inline]
    fn copy_utf16_replacing(&mut self, src: &[u8], big_endian: bool) -> (usize, bool) {
        let steps = self.bmp_steps();
        let (n, lone_seen) = crate::simd::utf16_bytes_replacing_lone_surrogates(
            src,
            &mut self.buf[self.pos..self.pos + steps],
            big_endian,
        );
        self.pos += n;
        (2 * n, lone_seen)
    }
}

/// The run loop of the stateless single-byte decoders: ASCII runs are copied in
/// bulk, and `code_point` maps each other byte to a code point of the BMP, or `None`
/// for the handler's error.
#[inline(always)]
pub(crate) fn decode_single_bytes<S: Sink>(
    src: &[u8],
    dst: &mut S,
    code_point: impl Fn(u8) -> Option<u16>,
) -> (Status, usize) {
    let mut pos = 0;
    loop {
        pos += dst.copy_ascii(&src[pos..]);
        if pos == src.len() {
            return (Status::InputEmpty, pos);
        }
        // A run of non-ASCII bytes, in batches that fit without room checks.
        let steps = dst.bmp_steps();
        if steps == 0 {
            return (Status::OutputFull, pos);
        }
        let end = src.len().min(pos + steps);
        while pos < end {
            let byte = src[pos];
            if byte < 0x80 {
                // A lone ASCII byte (a space between words) inline; a run in bulk.
                if src.get(pos + 1).is_some_and(|&next| next < 0x80) {
                    break;
                }
                dst.push_ascii(byte);
                pos += 1;
                continue;
            }
            pos += 1;
            match code_point(byte) {
                Some(c) => dst.push_bmp(c),
                None => return (Status::Error { len: 1, restored: 0 }, pos),
            }
        }
    }
}

/// An error that a handler replaced itself, in "replacement" mode: `len` and
/// `restored` as in [`Status::Error`], and `end`, the bytes of the handler's input
/// consumed when it returned error (so the sequence starts `restored + len` bytes
/// before that point of the stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Replaced {
    pub(crate) end: usize,
    pub(crate) len: u8,
    pub(crate) restored: u8,
}

/// A run of a decoder handler over one slice.
pub(crate) trait DecodeHandler: Clone {
    /// Runs the handler over `src` into `dst`; returns the status and the number of
    /// bytes of `src` consumed. See the module docs for the contract.
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize);
    /// As [`DecodeHandler::decode`], in "replacement" mode: a handler may write the
    /// U+FFFD of an error itself (in the room it checked for the step) and go on,
    /// instead of returning [`Status::Error`]; the first error it replaces goes into
    /// `first` when that is `None`. Errors it returns are the caller's to replace.
    ///
    /// By default, `decode` again after each error, here rather than through the
    /// caller's loop (UTF-8 and UTF-16 replace inside their own loops).
    #[inline(always)]
    fn decode_replacing<S: Sink>(
        &mut self,
        src: &[u8],
        dst: &mut S,
        last: bool,
        first: &mut Option<Replaced>,
    ) -> (Status, usize) {
        replace_each_error(self, src, dst, last, first, |handler, src, dst, last, _| handler.decode(src, dst, last))
    }
}

/// Runs `run` (a handler's run over a slice) again after each error it returns,
/// with the error's U+FFFD written and the first one put into `first`; returns at
/// any other status.
#[inline(always)]
pub(crate) fn replace_each_error<H, S: Sink>(
    handler: &mut H,
    src: &[u8],
    dst: &mut S,
    last: bool,
    first: &mut Option<Replaced>,
    mut run: impl FnMut(&mut H, &[u8], &mut S, bool, &mut Option<Replaced>) -> (Status, usize),
) -> (Status, usize) {
    let mut pos = 0;
    loop {
        let (status, consumed) = run(handler, &src[pos..], dst, last, first);
        pos += consumed;
        let Status::Error { len, restored } = status else { return (status, pos) };
        // The handler checked the room before the step that was an error.
        first.get_or_insert(Replaced { end: pos, len, restored });
        dst.push_char('\u{FFFD}');
    }
}

/// Input of an encoder: scalar values from `&str` or from UTF-16 (a lone surrogate
/// reads as U+FFFD).
pub(crate) trait Source {
    /// Units left (bytes for `&str`, code units for UTF-16).
    fn remaining(&self) -> usize;
    /// Units consumed so far.
    fn consumed(&self) -> usize;
    /// The next scalar value and its length in units, without consuming it.
    /// `None` when the source is empty.
    fn peek(&self) -> Option<(char, usize)>;
    /// Consumes `units` units.
    fn advance(&mut self, units: usize);
    /// Gives back the last `units` units consumed, which were ASCII.
    fn retreat(&mut self, units: usize);
    /// Copies the longest ASCII prefix that fits into `dst` as bytes; returns its length.
    fn copy_ascii(&mut self, dst: &mut [u8]) -> usize;
    /// Writes as many whole scalar values as fit into `dst` as UTF-8; returns the
    /// bytes written.
    fn copy_utf8(&mut self, dst: &mut [u8]) -> usize;
    /// A source of just the next scalar value (empty if this one is).
    fn head(&self) -> Self;
    /// Whether the next unit is ASCII (false when the source is empty).
    fn next_is_ascii(&self) -> bool;
    /// What is left, as it is, for loops that read the input directly.
    fn rest_input(&self) -> Input<'_>;
}

/// The rest of a [`Source`], in its own form.
pub(crate) enum Input<'a> {
    Utf8(&'a str),
    Utf16(&'a [u16]),
}

/// The scalar value whose UTF-8 starts at `src[pos]`, a lead byte of valid UTF-8 that
/// is not ASCII, and its length.
#[inline(always)]
pub(crate) fn decode_utf8_at(src: &[u8], pos: usize) -> (u32, usize) {
    let lead = src[pos] as u32;
    let continuation = |k: usize| src[pos + k] as u32 & 0x3F;
    if lead < 0xE0 {
        ((lead & 0x1F) << 6 | continuation(1), 2)
    } else if lead < 0xF0 {
        ((lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2), 3)
    } else {
        ((lead & 0x07) << 18 | continuation(1) << 12 | continuation(2) << 6 | continuation(3), 4)
    }
}

/// A [`Source`] over `&str`.
pub(crate) struct StrSource<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> StrSource<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        StrSource { src, pos: 0 }
    }
    /// What is left, as a `str`.
    #[inline]
    pub(crate) fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }
}

impl Source for StrSource<'_> {
    #[inline(always)]
    fn remaining(&self) -> usize {
        self.src.len() - self.pos
    }
    #[inline(always)]
    fn consumed(&self) -> usize {
        self.pos
    }
    #[inline(always)]
    fn peek(&self) -> Option<(char, usize)> {
        let c = self.rest().chars().next()?;
        Some((c, c.len_utf8()))
    }
    #[inline(always)]
    fn advance(&mut self, units: usize) {
        self.pos += units;
    }
    #[inline(always)]
    fn retreat(&mut self, units: usize) {
        self.pos -= units;
    }
    #[inline(always)]
    fn copy_ascii(&mut self, dst: &mut [u8]) -> usize {
        let n = crate::simd::copy_ascii_to_ascii(&self.src.as_bytes()[self.pos..], dst);
        self.pos += n;
        n
    }
    #[inline]
    fn copy_utf8(&mut self, dst: &mut [u8]) -> usize {
        let rest = self.rest();
        let mut n = rest.len().min(dst.len());
        while !rest.is_char_boundary(n) {
            n -= 1;
        }
        dst[..n].copy_from_slice(&rest.as_bytes()[..n]);
        self.pos += n;
        n
    }
    #[inline]
    fn head(&self) -> Self {
        let len = self.peek().map_or(0, |(_, len)| len);
        StrSource::new(&self.rest()[..len])
    }
    #[inline(always)]
    fn next_is_ascii(&self) -> bool {
        self.src.as_bytes().get(self.pos).is_some_and(u8::is_ascii)
    }
    #[inline(always)]
    fn rest_input(&self) -> Input<'_> {
        Input::Utf8(self.rest())
    }
}

/// A [`Source`] over UTF-16 code units; a lone surrogate reads as U+FFFD.
pub(crate) struct Utf16Source<'a> {
    src: &'a [u16],
    pos: usize,
}

impl<'a> Utf16Source<'a> {
    pub(crate) fn new(src: &'a [u16]) -> Self {
        Utf16Source { src, pos: 0 }
    }
}

impl Source for Utf16Source<'_> {
    #[inline(always)]
    fn remaining(&self) -> usize {
        self.src.len() - self.pos
    }
    #[inline(always)]
    fn consumed(&self) -> usize {
        self.pos
    }
    #[inline(always)]
    fn peek(&self) -> Option<(char, usize)> {
        let unit = *self.src.get(self.pos)?;
        Some(read_utf16(unit, self.src.get(self.pos + 1).copied()))
    }
    #[inline(always)]
    fn advance(&mut self, units: usize) {
        self.pos += units;
    }
    #[inline(always)]
    fn retreat(&mut self, units: usize) {
        self.pos -= units;
    }
    #[inline(always)]
    fn copy_ascii(&mut self, dst: &mut [u8]) -> usize {
        let n = crate::simd::copy_utf16_ascii_to_bytes(&self.src[self.pos..], dst);
        self.pos += n;
        n
    }
    #[inline]
    fn copy_utf8(&mut self, dst: &mut [u8]) -> usize {
        let (read, written) = crate::simd::utf16_to_utf8(&self.src[self.pos..], dst);
        self.pos += read;
        written
    }
    #[inline]
    fn head(&self) -> Self {
        let len = self.peek().map_or(0, |(_, len)| len);
        Utf16Source::new(&self.src[self.pos..self.pos + len])
    }
    #[inline(always)]
    fn next_is_ascii(&self) -> bool {
        self.src.get(self.pos).is_some_and(|&unit| unit < 0x80)
    }
    #[inline(always)]
    fn rest_input(&self) -> Input<'_> {
        Input::Utf16(&self.src[self.pos..])
    }
}

/// Reads one scalar value from a code unit and the one after it (if any): a lone
/// surrogate reads as U+FFFD, consuming one unit.
#[inline(always)]
pub(crate) fn read_utf16(unit: u16, next: Option<u16>) -> (char, usize) {
    match unit {
        0xD800..=0xDBFF => match next {
            Some(trail @ 0xDC00..=0xDFFF) => {
                let c = 0x10000 + (((unit as u32) - 0xD800) << 10) + ((trail as u32) - 0xDC00);
                (char::from_u32(c).unwrap_or('\u{FFFD}'), 2)
            }
            _ => ('\u{FFFD}', 1),
        },
        0xDC00..=0xDFFF => ('\u{FFFD}', 1),
        _ => (char::from_u32(unit as u32).unwrap_or('\u{FFFD}'), 1),
    }
}

/// What an encoder's run ended on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EncodeStatus {
    /// All of the source was consumed (and, with `last`, end-of-queue processed).
    InputEmpty,
    /// The sink has less than [`ENCODE_STEP`] bytes of room.
    OutputFull,
    /// The standard's handler returned error with this code point, which was consumed.
    Unmappable(char),
}

/// The room an encoder handler needs before one step: the most bytes one step
/// writes (4), plus the longest "html" error mode reference, `&#1114111;` (10).
pub(crate) const ENCODE_STEP: usize = 14;

/// The byte output of an encoder.
pub(crate) struct ByteSink<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> ByteSink<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        ByteSink { buf, pos: 0 }
    }
    #[inline(always)]
    pub(crate) fn room(&self) -> usize {
        self.buf.len() - self.pos
    }
    #[inline(always)]
    pub(crate) fn written(&self) -> usize {
        self.pos
    }
    /// Writes one byte. The caller has checked the room.
    #[inline(always)]
    pub(crate) fn push(&mut self, byte: u8) {
        self.buf[self.pos] = byte;
        self.pos += 1;
    }
    /// Writes bytes. The caller has checked the room.
    #[inline(always)]
    pub(crate) fn extend(&mut self, bytes: &[u8]) {
        self.buf[self.pos..self.pos + bytes.len()].copy_from_slice(bytes);
        self.pos += bytes.len();
    }
    /// The unwritten rest of the buffer, for bulk copies; follow with [`Self::commit`].
    #[inline(always)]
    pub(crate) fn spare(&mut self) -> &mut [u8] {
        &mut self.buf[self.pos..]
    }
    /// Marks `n` bytes of [`Self::spare`] as written.
    #[inline(always)]
    pub(crate) fn commit(&mut self, n: usize) {
        self.pos += n;
    }
    /// The last `n` bytes written, to be taken back with [`Self::uncommit`].
    #[inline(always)]
    pub(crate) fn last_written(&self, n: usize) -> &[u8] {
        &self.buf[self.pos - n..self.pos]
    }
    /// Takes back the last `n` bytes written.
    #[inline(always)]
    pub(crate) fn uncommit(&mut self, n: usize) {
        self.pos -= n;
    }
    /// Writes the "html" error mode's `&#N;` for `c` (at most 10 bytes). The caller
    /// has checked the room for a step ([`ENCODE_STEP`]).
    #[inline]
    pub(crate) fn push_reference(&mut self, c: char) {
        let value = c as u32;
        let digits = match value {
            0..=9 => 1,
            10..=99 => 2,
            100..=999 => 3,
            1000..=9999 => 4,
            10000..=99999 => 5,
            100000..=999999 => 6,
            _ => 7,
        };
        // Written a byte at a time where they go: a copy of a length known only at
        // run time is a call, and bytes stored one at a time into a buffer and read
        // back as a word stalled the load.
        let out = &mut self.buf[self.pos..self.pos + 10];
        out[0] = b'&';
        out[1] = b'#';
        let mut rest = value;
        for i in (2..2 + digits).rev() {
            out[i] = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        out[2 + digits] = b';';
        self.pos += 3 + digits;
    }
    /// Copies the source's ASCII prefix into the buffer.
    #[inline(always)]
    pub(crate) fn copy_ascii_from<S: Source>(&mut self, src: &mut S) -> usize {
        let n = src.copy_ascii(&mut self.buf[self.pos..]);
        self.pos += n;
        n
    }
}

/// The run loop of every stateless encoder: ASCII runs are copied in bulk, and
/// `bytes` gives each other scalar value's bytes as one number (a value up to 0xFF is
/// one byte, up to 0xFFFF two bytes, otherwise four, most significant first; no
/// multi-byte sequence starts with 0x00), or `None` for the handler's error.
#[inline(always)]
pub(crate) fn encode_stateless<S: Source>(
    src: &mut S,
    dst: &mut ByteSink<'_>,
    bytes: impl Fn(char) -> Option<u32>,
) -> EncodeStatus {
    if let Input::Utf8(text) = src.rest_input() {
        let (status, read) = encode_stateless_str(text, dst, bytes);
        src.advance(read);
        return status;
    }
    loop {
        let Some((c, len)) = src.peek() else {
            return EncodeStatus::InputEmpty;
        };
        if dst.room() < ENCODE_STEP {
            return EncodeStatus::OutputFull;
        }
        if c.is_ascii() {
            // A lone ASCII character (a space between words) inline; a run in bulk.
            src.advance(1);
            dst.push(c as u8);
            if src.next_is_ascii() {
                dst.copy_ascii_from(src);
            }
            continue;
        }
        src.advance(len);
        match bytes(c) {
            Some(byte @ 0..=0xFF) => dst.push(byte as u8),
            Some(pair @ 0x100..=0xFFFF) => dst.extend(&(pair as u16).to_be_bytes()),
            Some(quad) => dst.extend(&quad.to_be_bytes()),
            None => return EncodeStatus::Unmappable(c),
        }
    }
}

/// [`encode_stateless`] over `&str`: scalar values decoded from their UTF-8 in
/// place, as many as the room holds without checking it again (a step writes at
/// most 4 bytes). Returns the status and the bytes consumed.
#[inline(always)]
fn encode_stateless_str(
    text: &str,
    dst: &mut ByteSink<'_>,
    bytes: impl Fn(char) -> Option<u32>,
) -> (EncodeStatus, usize) {
    let src = text.as_bytes();
    let mut pos = 0;
    loop {
        if pos == src.len() {
            return (EncodeStatus::InputEmpty, pos);
        }
        let room = dst.room();
        if room < ENCODE_STEP {
            return (EncodeStatus::OutputFull, pos);
        }
        if src[pos] < 0x80 && src.get(pos + 1).is_some_and(u8::is_ascii) {
            // A run of ASCII, in bulk.
            let n = crate::simd::copy_ascii_to_ascii(&src[pos..], dst.spare());
            dst.commit(n);
            pos += n;
            continue;
        }
        // Written through a local count (not the sink's, kept in memory), committed
        // once the steps end: ja.txt Shift_JIS 44.2 → 41.7 µs, ko.txt EUC-KR 29.4 →
        // 28.1 (rotating, `AMD EPYC` Zen 4).
        let out = dst.spare();
        let mut written = 0;
        let mut unmappable = None;
        for _ in 0..(room - ENCODE_STEP) / 4 + 1 {
            let Some(&lead) = src.get(pos) else { break };
            if lead < 0x80 {
                // A lone ASCII character (a space between words) inline; a run in bulk.
                if src.get(pos + 1).is_some_and(u8::is_ascii) {
                    break;
                }
                out[written] = lead;
                written += 1;
                pos += 1;
                continue;
            }
            // `text` is valid UTF-8: a lead byte's continuation bytes follow it.
            let (code_point, len) = decode_utf8_at(src, pos);
            let c = char::from_u32(code_point).unwrap_or('\u{FFFD}');
            pos += len;
            match bytes(c) {
                Some(byte @ 0..=0xFF) => {
                    out[written] = byte as u8;
                    written += 1;
                }
                Some(pair @ 0x100..=0xFFFF) => {
                    out[written..written + 2].copy_from_slice(&(pair as u16).to_be_bytes());
                    written += 2;
                }
                Some(quad) => {
                    out[written..written + 4].copy_from_slice(&quad.to_be_bytes());
                    written += 4;
                }
                None => {
                    unmappable = Some(c);
                    break;
                }
            }
        }
        dst.commit(written);
        if let Some(c) = unmappable {
            return (EncodeStatus::Unmappable(c), pos);
        }
    }
}

/// A run of an encoder handler over a source.
pub(crate) trait EncodeHandler: Clone {
    /// Runs the handler over `src` into `dst`. Stops before a step when `dst` has
    /// less than [`ENCODE_STEP`] bytes of room. With `last`, processes end-of-queue
    /// once the source is empty (ISO-2022-JP returns to ASCII there).
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, last: bool) -> EncodeStatus;
    /// As [`EncodeHandler::encode`], in the "html" error mode: each unmappable
    /// scalar value's `&#N;` is written here (in the room the handler checked for
    /// the step) and the run goes on, rather than through the caller's loop; never
    /// returns [`EncodeStatus::Unmappable`]. `had_unmappable` is set when there was
    /// one.
    #[inline(always)]
    fn encode_html<S: Source>(
        &mut self,
        src: &mut S,
        dst: &mut ByteSink<'_>,
        last: bool,
        had_unmappable: &mut bool,
    ) -> EncodeStatus {
        replace_each_unmappable(self, src, dst, last, had_unmappable)
    }
}

/// [`EncodeHandler::encode`] again after each unmappable scalar value it returns,
/// with the value's reference written (the default [`EncodeHandler::encode_html`]).
#[inline(always)]
pub(crate) fn replace_each_unmappable<H: EncodeHandler, S: Source>(
    handler: &mut H,
    src: &mut S,
    dst: &mut ByteSink<'_>,
    last: bool,
    had_unmappable: &mut bool,
) -> EncodeStatus {
    loop {
        match handler.encode(src, dst, last) {
            EncodeStatus::Unmappable(c) => {
                // The handler checked the room before the step.
                dst.push_reference(c);
                *had_unmappable = true;
            }
            status => return status,
        }
    }
}

/// The decoder of each encoding, as one enum.
#[derive(Debug, Clone)]
pub(crate) enum DecoderCodec {
    Utf8(utf8::Utf8Decoder),
    Utf16(utf16::Utf16Decoder),
    SingleByte(single_byte::SingleByteDecoder),
    XUserDefined(x_user_defined::XUserDefinedDecoder),
    Replacement(replacement::ReplacementDecoder),
    Gb18030(gb18030::Gb18030Decoder),
    Big5(big5::Big5Decoder),
    EucJp(euc_jp::EucJpDecoder),
    Iso2022Jp(iso_2022_jp::Iso2022JpDecoder),
    ShiftJis(shift_jis::ShiftJisDecoder),
    EucKr(euc_kr::EucKrDecoder),
}

impl DecoderCodec {
    pub(crate) fn new(encoding: &'static Encoding) -> Self {
        match encoding.kind() {
            Kind::Utf8 => DecoderCodec::Utf8(utf8::Utf8Decoder::new()),
            Kind::Utf16Be => DecoderCodec::Utf16(utf16::Utf16Decoder::new(true)),
            Kind::Utf16Le => DecoderCodec::Utf16(utf16::Utf16Decoder::new(false)),
            Kind::SingleByte(index) => DecoderCodec::SingleByte(single_byte::SingleByteDecoder::new(index)),
            Kind::XUserDefined => DecoderCodec::XUserDefined(x_user_defined::XUserDefinedDecoder),
            Kind::Replacement => DecoderCodec::Replacement(replacement::ReplacementDecoder::new()),
            Kind::Gbk | Kind::Gb18030 => DecoderCodec::Gb18030(gb18030::Gb18030Decoder::new()),
            Kind::Big5 => DecoderCodec::Big5(big5::Big5Decoder::new()),
            Kind::EucJp => DecoderCodec::EucJp(euc_jp::EucJpDecoder::new()),
            Kind::Iso2022Jp => DecoderCodec::Iso2022Jp(iso_2022_jp::Iso2022JpDecoder::new()),
            Kind::ShiftJis => DecoderCodec::ShiftJis(shift_jis::ShiftJisDecoder::new()),
            Kind::EucKr => DecoderCodec::EucKr(euc_kr::EucKrDecoder::new()),
        }
    }

    /// The bytes the handler holds: those of an incomplete sequence (or escape
    /// sequence) and those restored to be read again.
    pub(crate) fn pending_len(&self) -> usize {
        match self {
            DecoderCodec::Utf8(d) => d.pending_len(),
            DecoderCodec::Utf16(d) => d.pending_len(),
            DecoderCodec::SingleByte(_) | DecoderCodec::XUserDefined(_) | DecoderCodec::Replacement(_) => 0,
            DecoderCodec::Gb18030(d) => d.pending_len(),
            DecoderCodec::Big5(d) => d.pending_len(),
            DecoderCodec::EucJp(d) => d.pending_len(),
            DecoderCodec::Iso2022Jp(d) => d.pending_len(),
            DecoderCodec::ShiftJis(d) => d.pending_len(),
            DecoderCodec::EucKr(d) => d.pending_len(),
        }
    }

    /// ISO-2022-JP: the decoder's lead and output flag (see
    /// [`iso_2022_jp::Iso2022JpDecoder::lead_and_output`]); `None` for the others.
    pub(crate) fn iso_2022_jp_lead_and_output(&self) -> Option<(u8, bool)> {
        match self {
            DecoderCodec::Iso2022Jp(d) => Some(d.lead_and_output()),
            _ => None,
        }
    }

    /// gb18030 and UTF-16: takes out the bytes restored after an error that the
    /// handler holds to read again; nothing for the other codecs.
    pub(crate) fn take_restored(&mut self) -> ([u8; 3], usize) {
        match self {
            DecoderCodec::Gb18030(d) => d.take_restored(),
            DecoderCodec::Utf16(d) => d.take_restored(),
            _ => ([0; 3], 0),
        }
    }

    /// [`DecodeHandler::decode_replacing`], dispatched as [`DecoderCodec::decode`].
    #[inline]
    pub(crate) fn decode_replacing<S: Sink>(
        &mut self,
        src: &[u8],
        dst: &mut S,
        last: bool,
        first: &mut Option<Replaced>,
    ) -> (Status, usize) {
        match self {
            DecoderCodec::Utf8(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::Utf16(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::SingleByte(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::XUserDefined(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::Replacement(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::Gb18030(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::Big5(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::EucJp(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::Iso2022Jp(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::ShiftJis(d) => d.decode_replacing(src, dst, last, first),
            DecoderCodec::EucKr(d) => d.decode_replacing(src, dst, last, first),
        }
    }

    /// Dispatches once to the monomorphic run of the handler.
    #[inline]
    pub(crate) fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, last: bool) -> (Status, usize) {
        match self {
            DecoderCodec::Utf8(d) => d.decode(src, dst, last),
            DecoderCodec::Utf16(d) => d.decode(src, dst, last),
            DecoderCodec::SingleByte(d) => d.decode(src, dst, last),
            DecoderCodec::XUserDefined(d) => d.decode(src, dst, last),
            DecoderCodec::Replacement(d) => d.decode(src, dst, last),
            DecoderCodec::Gb18030(d) => d.decode(src, dst, last),
            DecoderCodec::Big5(d) => d.decode(src, dst, last),
            DecoderCodec::EucJp(d) => d.decode(src, dst, last),
            DecoderCodec::Iso2022Jp(d) => d.decode(src, dst, last),
            DecoderCodec::ShiftJis(d) => d.decode(src, dst, last),
            DecoderCodec::EucKr(d) => d.decode(src, dst, last),
        }
    }
}

/// The encoder of each encoding that has one, as one enum.
#[derive(Debug, Clone)]
pub(crate) enum EncoderCodec {
    Utf8(utf8::Utf8Encoder),
    SingleByte(single_byte::SingleByteEncoder),
    XUserDefined(x_user_defined::XUserDefinedEncoder),
    Gb18030(gb18030::Gb18030Encoder),
    Big5(big5::Big5Encoder),
    EucJp(euc_jp::EucJpEncoder),
    Iso2022Jp(iso_2022_jp::Iso2022JpEncoder),
    ShiftJis(shift_jis::ShiftJisEncoder),
    EucKr(euc_kr::EucKrEncoder),
}

impl EncoderCodec {
    /// The encoder of `encoding`, or `None` for replacement and UTF-16BE/LE.
    pub(crate) fn new(encoding: &'static Encoding) -> Option<Self> {
        Some(match encoding.kind() {
            Kind::Utf8 => EncoderCodec::Utf8(utf8::Utf8Encoder),
            Kind::Utf16Be | Kind::Utf16Le | Kind::Replacement => return None,
            Kind::SingleByte(index) => EncoderCodec::SingleByte(single_byte::SingleByteEncoder::new(index)),
            Kind::XUserDefined => EncoderCodec::XUserDefined(x_user_defined::XUserDefinedEncoder),
            Kind::Gbk => EncoderCodec::Gb18030(gb18030::Gb18030Encoder::new(true)),
            Kind::Gb18030 => EncoderCodec::Gb18030(gb18030::Gb18030Encoder::new(false)),
            Kind::Big5 => EncoderCodec::Big5(big5::Big5Encoder),
            Kind::EucJp => EncoderCodec::EucJp(euc_jp::EucJpEncoder),
            Kind::Iso2022Jp => EncoderCodec::Iso2022Jp(iso_2022_jp::Iso2022JpEncoder::new()),
            Kind::ShiftJis => EncoderCodec::ShiftJis(shift_jis::ShiftJisEncoder),
            Kind::EucKr => EncoderCodec::EucKr(euc_kr::EucKrEncoder),
        })
    }

    /// [`EncodeHandler::encode_html`], dispatched as [`EncoderCodec::encode`].
    #[inline]
    pub(crate) fn encode_html<S: Source>(
        &mut self,
        src: &mut S,
        dst: &mut ByteSink<'_>,
        last: bool,
        had_unmappable: &mut bool,
    ) -> EncodeStatus {
        match self {
            EncoderCodec::Utf8(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::SingleByte(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::XUserDefined(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::Gb18030(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::Big5(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::EucJp(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::Iso2022Jp(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::ShiftJis(e) => e.encode_html(src, dst, last, had_unmappable),
            EncoderCodec::EucKr(e) => e.encode_html(src, dst, last, had_unmappable),
        }
    }

    /// Dispatches once to the monomorphic run of the handler.
    #[inline]
    pub(crate) fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, last: bool) -> EncodeStatus {
        match self {
            EncoderCodec::Utf8(e) => e.encode(src, dst, last),
            EncoderCodec::SingleByte(e) => e.encode(src, dst, last),
            EncoderCodec::XUserDefined(e) => e.encode(src, dst, last),
            EncoderCodec::Gb18030(e) => e.encode(src, dst, last),
            EncoderCodec::Big5(e) => e.encode(src, dst, last),
            EncoderCodec::EucJp(e) => e.encode(src, dst, last),
            EncoderCodec::Iso2022Jp(e) => e.encode(src, dst, last),
            EncoderCodec::ShiftJis(e) => e.encode(src, dst, last),
            EncoderCodec::EucKr(e) => e.encode(src, dst, last),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Sink, Utf8Sink};
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// [`super::utf8_forms`] against `char::encode_utf8`, for every code point of the
    /// BMP that is not a surrogate (0 stays 0).
    #[test]
    fn utf8_forms_match_encode_utf8() {
        let mut code_points = [0u16; 0x10000];
        for (i, c) in code_points.iter_mut().enumerate() {
            *c = i as u16;
        }
        let forms = super::utf8_forms(&code_points);
        assert_eq!(forms[0], 0);
        for c in (1..0x10000u32).filter_map(char::from_u32) {
            let mut expected = [0u8; 4];
            let len = c.encode_utf8(&mut expected).len();
            let form = forms[c as usize];
            assert_eq!((form >> 24) as usize, len, "{c:?}");
            assert_eq!(&form.to_le_bytes()[..len], &expected[..len], "{c:?}");
        }
    }

    /// [`Utf8Sink::push_bmp_run`] against `char::encode_utf8`, on runs of every
    /// length to 40 whose units are all three-byte, or of one class, or mixed,
    /// in both byte orders, with the room it asks for (the bytes and one more).
    #[test]
    fn push_bmp_run_matches_encode_utf8() {
        let mut rng = crate::simd::scalar::tests::Rng(0x9E37_79B9_7F4A_7C15);
        // Ranges of units without surrogates: ASCII, two bytes, three bytes below and
        // above the surrogates.
        let ranges: [(u16, u16); 4] = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF)];
        for round in 0..400 {
            let len = round % 41;
            // Which ranges this run draws from: all four, or one of them.
            let pick = round / 41 % 5;
            let units: Vec<u16> = (0..len)
                .map(|_| {
                    let r = rng.next();
                    let (lo, hi) = ranges[if pick == 4 { (r % 4) as usize } else { pick }];
                    lo + ((r >> 8) % u64::from(hi - lo + 1)) as u16
                })
                .collect();
            let expected = String::from_utf16(&units).expect("no surrogates");
            for big_endian in [false, true] {
                let bytes: Vec<u8> = units
                    .iter()
                    .flat_map(|unit| if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() })
                    .collect();
                let mut buf = vec![0xAAu8; expected.len() + 1];
                let mut sink = Utf8Sink::new(&mut buf);
                sink.push_bmp_run(&bytes, big_endian);
                let written = sink.written();
                assert_eq!(&buf[..written], expected.as_bytes(), "{units:04X?} big-endian {big_endian}");
            }
        }
    }
}
