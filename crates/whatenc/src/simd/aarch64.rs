//! NEON kernels for aarch64, where NEON is part of the baseline (no run-time
//! detection). They share their algorithms and shuffle tables
//! ([`super::shuffles`]) with the x86_64 ones: what SSSE3's `pshufb` does there,
//! NEON's `tbl` does here, and a horizontal add of weighted lanes stands in for
//! SSE2's `movemask`. Each kernel is the twin of a function in [`super::scalar`]
//! and is tested against it (under qemu-user in CI: this machine cannot time them).
//!
//! The portable kernels' chunked loops are written for LLVM's vectorizer, and most
//! of them run as NEON code here; these kernels are for what a vectorizer cannot
//! find: packing UTF-8 sequences of different lengths, the UTF-8 check ([`CHECKS`],
//! alone and fused with a copy: the AVX2 kernel's, written once in
//! [`super::utf8_check`], with `tbl` for the lookups and a horizontal maximum for
//! the tests of a vector), and the ASCII runs. Those last the vectorizer did not
//! find for aarch64 although it did for x86_64: the portable widening of ASCII to
//! UTF-16 was sixteen byte loads and sixteen stores of a unit each a step, which
//! the instruction counts of `bench/aarch64-insns.sh` showed (whatenc / encoding_rs
//! in instructions, UTF-8 → UTF-16 en.html 0.45, de.txt 0.54; windows-1252 as
//! UTF-8 → UTF-16 en.html 0.45; UTF-16 → UTF-8 en.html 0.48). With the NEON
//! twins of [`copy_ascii_to_ascii`], [`copy_ascii_to_utf16`] and
//! [`copy_utf16_ascii_to_bytes`]: 2.03, 1.04; 2.49; 1.85.

use core::arch::aarch64::{
    uint8x16_t, uint16x8_t, vaddq_u16, vaddv_u8, vaddvq_u16, vandq_u8, vandq_u16, vandq_u32, vbicq_u8, vbslq_u8,
    vbslq_u16, vceqq_u8, vceqq_u16, vcgezq_s8, vcgtq_u16, vcleq_u16, vcltq_s8, vcltq_u8, vcombine_u16, vdup_n_u16,
    vdupq_n_s8, vdupq_n_u8, vdupq_n_u16, vdupq_n_u32, veorq_u8, vextq_u8, vget_high_u8, vget_lane_u64, vget_low_s8,
    vget_low_u8, vld1_u8, vld1q_u8, vld1q_u16, vmaxvq_u8, vmaxvq_u16, vminvq_u16, vmovl_high_s8, vmovl_high_u8,
    vmovl_s8, vmovl_u8, vmovn_u32, vmvnq_u8, vorrq_u8, vorrq_u16, vorrq_u32, vpmaxq_u8, vqsubq_u8, vqtbl1q_u8,
    vreinterpret_u64_u8, vreinterpretq_s8_u8, vreinterpretq_u8_s8, vreinterpretq_u8_u16, vreinterpretq_u16_s16,
    vreinterpretq_u16_u8, vreinterpretq_u32_u8, vshlq_n_u16, vshrn_n_u16, vshrq_n_u8, vshrq_n_u16, vshrq_n_u32,
    vst1_u8, vst1q_u8, vst1q_u16, vsubq_u8, vsubq_u16, vtbl1_u8, vuzp1q_u8, vzip1q_u16, vzip2q_u16,
};

use super::Utf8PrefixPass;
use super::scalar::{Runs, TABLE_BLOCK, UTF8_BLOCK_ROOM};
use super::shuffles::{
    FALLBACK, KEEP_SHUFFLES, ONE_OR_TWO_BYTE_PACKS, PATTERNS, RUN_BITS, RUN_LEADS, RUN_SHAPE, RUN_SHAPE_MASK,
    RUN_TAILS, TWO_BYTE_PATTERNS, UTF8_WORD_PACKS, one_character, pattern_of_ends,
};
use super::utf8_check::{self, Bytes, COPY_STEP, Checks, DENSE, Steps};

impl Bytes for uint8x16_t {
    const LEN: usize = 16;
    // Not sampled (see `utf8_check::DENSE_SAMPLE`; untimed): under qemu-user a sample
    // every 8 KiB gave the pages 0–3% more bytes a thousand instructions (ar.html 1,052
    // → 1,084, ko.html 1,129 → 1,158), the dense texts 1% fewer, cs.txt and tr.txt 4%
    // fewer (758 → 731, 760 → 732): its chunks of 32 bytes make a sample of 16 only
    // 512 bytes, whose share of ASCII chunks varies more.
    const DENSE_SAMPLE: usize = 0;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the trait's contract: 16 readable bytes at `p`; NEON is aarch64's
        // baseline.
        unsafe { vld1q_u8(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the trait's contract: 16 writable bytes at `p`.
        unsafe { vst1q_u8(p, self) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY (this method and those below): register-only NEON operations.
        unsafe { vdupq_n_u8(0) }
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        unsafe { vdupq_n_u8(byte) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { vorrq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { vandq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        unsafe { veorq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        unsafe { vqsubq_u8(self, other) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // A shift of each byte: nothing comes in from its neighbour.
        unsafe { vshrq_n_u8::<4>(self) }
    }
    #[inline(always)]
    unsafe fn lookup(self, indexes: Self) -> Self {
        // `tbl`, as `pshufb`: the indexes are nibbles, inside the 16 entries.
        unsafe { vqtbl1q_u8(self, indexes) }
    }
    #[inline(always)]
    unsafe fn next_window(self, next: Self) -> Self {
        unsafe { vextq_u8::<1>(self, next) }
    }
    #[inline(always)]
    unsafe fn any_high(self) -> bool {
        unsafe { vmaxvq_u8(self) >= 0x80 }
    }
    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        unsafe { vmaxvq_u8(self) == 0 }
    }
    const HAS_ASCII_MAP: bool = true;
    /// Four rounds of pairwise maxima leave each vector's maximum in one byte, in
    /// order; then one bit a byte, weighted, and summed a half at a time: 22
    /// instructions for 16 vectors, against 4 a vector (`umaxv`, a move and two
    /// to place the bit).
    #[inline(always)]
    unsafe fn ascii_map(vectors: [Self; 16]) -> u16 {
        /// Bit `7 - i` for byte `i` of each half.
        static WEIGHTS: [u8; 16] = [128, 64, 32, 16, 8, 4, 2, 1, 128, 64, 32, 16, 8, 4, 2, 1];
        unsafe {
            let mut level = vectors;
            let mut n = 16;
            while n > 1 {
                for i in 0..n / 2 {
                    level[i] = vpmaxq_u8(level[2 * i], level[2 * i + 1]);
                }
                n /= 2;
            }
            // 0xFF where the vector is ASCII (its maximum below 0x80).
            let ascii = vcgezq_s8(vreinterpretq_s8_u8(level[0]));
            let bits = vandq_u8(ascii, vld1q_u8(WEIGHTS.as_ptr()));
            u16::from(vaddv_u8(vget_low_u8(bits))) << 8 | u16::from(vaddv_u8(vget_high_u8(bits)))
        }
    }
}

/// The UTF-8 check of [`super::utf8_check`] with NEON vectors, in steps of the same
/// bytes as the AVX2 kernel's, and chunks of 32 bytes; the copy takes the fused
/// steps for a call's first 8 KiB, then the windows (`COPY_WINDOWS`, see
/// `utf8_check::copy_windows`). `Err(at)` as there.
///
/// # Safety
/// With `COPY`, `dst` must have room for `src.len()` bytes and not overlap `src`.
unsafe fn check<const COPY: bool>(src: &[u8], dst: *mut u8) -> Result<(), usize> {
    // SAFETY: the caller's precondition; NEON is aarch64's baseline.
    unsafe {
        // The SSSE3 kernel's steps (counted under qemu-user, not timed: see
        // BENCHMARKS.md, sessions 43 to 45).
        utf8_check::check::<uint8x16_t, COPY, { 2 * DENSE }, { 2 * COPY_STEP }, 4, false, true>(Steps, src, dst)
    }
}

/// The check, alone and fused with the copy, and what is made of them (NEON is
/// aarch64's baseline: their methods can always run).
pub(super) const CHECKS: Checks = Checks { alone: check::<false>, copying: check::<true> };

/// Bit k in lane k: with a lane mask (all ones or zero) and a horizontal add, the
/// mask's lanes as the bits of a number.
const LANE_BITS: [u16; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// The lanes of an all-ones-or-zero mask as bits (bit k for lane k).
#[inline(always)]
fn lane_bits(mask: uint16x8_t) -> u32 {
    // SAFETY: `LANE_BITS` holds eight readable u16s; NEON is aarch64's baseline.
    unsafe { vaddvq_u16(vandq_u16(mask, vld1q_u16(LANE_BITS.as_ptr()))) as u32 }
}

/// Twin of [`super::scalar::block_to_utf8`]: eight code units that are not
/// surrogates, as UTF-8 at the start of `out`; returns the bytes written (bytes
/// after them in `out` may be overwritten).
#[inline(always)]
pub(crate) fn block_to_utf8(block: [u16; 8], out: &mut [u8; 32]) -> usize {
    let ptr = out.as_mut_ptr();
    // SAFETY: `block` holds 16 readable bytes and `out` 32 writable ones; every
    // store below is of 16 bytes at an offset of at most 16 (see each). The tables
    // hold 16 readable bytes a row. NEON is aarch64's baseline.
    unsafe {
        let units = vld1q_u16(block.as_ptr());
        if vmaxvq_u16(units) < 0x800 {
            let below_0x80 = vceqq_u16(vandq_u16(units, vdupq_n_u16(0xFF80)), vdupq_n_u16(0));
            // Lead and trail byte in each 16-bit lane; ASCII lanes take the unit.
            let lead = vorrq_u16(vshrq_n_u16::<6>(units), vdupq_n_u16(0xC0));
            let trail = vorrq_u16(vandq_u16(units, vdupq_n_u16(0x3F)), vdupq_n_u16(0x80));
            let pairs = vbslq_u16(below_0x80, units, vorrq_u16(lead, vshlq_n_u16::<8>(trail)));
            let ascii = lane_bits(below_0x80);
            // One- and two-byte sequences (Latin, Greek, Cyrillic, Hebrew, Arabic text
            // with its spaces and punctuation): one table look-up drops the high byte
            // of the ASCII lanes. Store at 0.
            let pack = vld1q_u8(ONE_OR_TWO_BYTE_PACKS[ascii as usize].as_ptr());
            vst1q_u8(ptr, vqtbl1q_u8(vreinterpretq_u8_u16(pairs), pack));
            return 16 - ascii.count_ones() as usize;
        }
        // Each unit's sequence as a little-endian word in a 32-bit lane, four a half:
        // its first two bytes worked out in its 16-bit lane, its third (`trail`, of
        // a three-byte unit) interleaved after them, as the x86_64 kernels do.
        let trail = vorrq_u16(vandq_u16(units, vdupq_n_u16(0x3F)), vdupq_n_u16(0x80));
        let middle = vorrq_u16(vandq_u16(vshrq_n_u16::<6>(units), vdupq_n_u16(0x3F)), vdupq_n_u16(0x80));
        let three = vorrq_u16(vorrq_u16(vshrq_n_u16::<12>(units), vdupq_n_u16(0xE0)), vshlq_n_u16::<8>(middle));
        let words = |firsts: uint16x8_t| {
            [vreinterpretq_u8_u16(vzip1q_u16(firsts, trail)), vreinterpretq_u8_u16(vzip2q_u16(firsts, trail))]
        };
        if vminvq_u16(units) >= 0x800 {
            // Eight three-byte sequences (the common case in CJK text): the three
            // low bytes of each lane, packed. Stores at 0 and 12.
            const PACK: [u8; 16] = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80];
            let pack = vld1q_u8(PACK.as_ptr());
            let words = words(three);
            vst1q_u8(ptr, vqtbl1q_u8(words[0], pack));
            vst1q_u8(ptr.add(12), vqtbl1q_u8(words[1], pack));
            return 24;
        }
        let below_0x80 = vceqq_u16(vandq_u16(units, vdupq_n_u16(0xFF80)), vdupq_n_u16(0));
        let below_0x800 = vceqq_u16(vandq_u16(units, vdupq_n_u16(0xF800)), vdupq_n_u16(0));
        // ASCII where below 0x80, else two bytes where below 0x800, else three.
        let two = vorrq_u16(vorrq_u16(vshrq_n_u16::<6>(units), vdupq_n_u16(0xC0)), vshlq_n_u16::<8>(trail));
        let words = words(vbslq_u16(below_0x800, vbslq_u16(below_0x80, units, two), three));
        // Any other mix (CJK text with its spaces and punctuation): each half packed
        // by the shuffle its lengths choose. Stores at 0 and at most 12.
        let ascii = lane_bits(below_0x80);
        let two = lane_bits(below_0x800);
        let first = (ascii & 0xF | (two & 0xF) << 4) as usize;
        let second = (ascii >> 4 & 0xF | (two >> 4 & 0xF) << 4) as usize;
        let at = UTF8_WORD_PACKS.lengths[first] as usize;
        let first_pack = vld1q_u8(UTF8_WORD_PACKS.shuffles[first].as_ptr());
        let second_pack = vld1q_u8(UTF8_WORD_PACKS.shuffles[second].as_ptr());
        vst1q_u8(ptr, vqtbl1q_u8(words[0], first_pack));
        vst1q_u8(ptr.add(at), vqtbl1q_u8(words[1], second_pack));
        at + UTF8_WORD_PACKS.lengths[second] as usize
    }
}

/// Bit k of each half in byte k of it: with a byte mask and a horizontal add per
/// half, SSE2's `movemask`.
const BYTE_BITS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];

/// The lanes of an all-ones-or-zero byte mask as bits (bit k for byte k).
#[inline(always)]
fn byte_bits(mask: uint8x16_t) -> u32 {
    // SAFETY: `BYTE_BITS` holds 16 readable bytes; NEON is aarch64's baseline.
    unsafe {
        let bits = vandq_u8(mask, vld1q_u8(BYTE_BITS.as_ptr()));
        vaddv_u8(vget_low_u8(bits)) as u32 | (vaddv_u8(vget_high_u8(bits)) as u32) << 8
    }
}

/// The masks of the bytes that are not ASCII and of the continuation bytes (0x80 to
/// 0xBF: less than -64 as `i8`) of a vector of 16.
#[inline(always)]
fn vector_masks(vector: uint8x16_t) -> (u32, u32) {
    // SAFETY: register-only NEON operations (NEON is aarch64's baseline).
    unsafe {
        let signed = vreinterpretq_s8_u8(vector);
        (byte_bits(vcltq_s8(signed, vdupq_n_s8(0))), byte_bits(vcltq_s8(signed, vdupq_n_s8(-64))))
    }
}

/// Widens a vector of 16 ASCII bytes into the first 16 units of `out`.
#[inline(always)]
fn widen(vector: uint8x16_t, out: &mut [u16]) {
    let out = &mut out[..16];
    // SAFETY: `out` holds 16 writable units, two stores of eight. NEON is aarch64's
    // baseline.
    unsafe {
        vst1q_u16(out.as_mut_ptr(), vmovl_u8(vget_low_u8(vector)));
        vst1q_u16(out.as_mut_ptr().add(8), vmovl_high_u8(vector));
    }
}

/// One step at the start of `bytes[read..read + 16]` (a character boundary): the
/// twin of the SSSE3 kernel's, with `tbl` for `pshufb`. `ascii` is the number of
/// ASCII bytes there (at least 16 when all are), `ends` the mask of the bytes that
/// end a character among the first 12. Returns the bytes read and the units
/// written. `dst[written..]` has room for 16 units.
#[inline(always)]
fn step(s: &str, read: usize, ascii: u32, ends: u32, dst: &mut [u16], written: usize) -> (usize, usize) {
    let bytes = s.as_bytes();
    // Slicing checks the room (the callers keep it: see `utf8_to_utf16`).
    let (block, out) = (&bytes[read..read + 16], &mut dst[written..written + 16]);
    // SAFETY: `block` holds 16 readable bytes; NEON is aarch64's baseline.
    let vector = unsafe { vld1q_u8(block.as_ptr()) };
    if ascii >= 6 {
        // An ASCII run (all 16 bytes when `ascii` is 16 or more): widen the block,
        // keep the run.
        widen(vector, out);
        let n = ascii.min(16) as usize;
        return (n, n);
    }
    let (index, consumed) = pattern_of_ends(ends);
    let shuffle = &PATTERNS[index as usize];
    if index < FALLBACK {
        // Both kinds of pattern computed, the one that applies kept with no branch,
        // as in the SSSE3 step (Vietnamese mispredicted a branch between them).
        let two_byte = index < TWO_BYTE_PATTERNS as u16;
        // SAFETY: `shuffle` holds 16 readable bytes and `out` 16 writable units, of
        // which the first eight are stored (those past the units reported written
        // are overwritten by the next step or lie beyond). NEON is aarch64's baseline.
        unsafe {
            let lanes = vqtbl1q_u8(vector, vld1q_u8(shuffle.as_ptr()));
            // A two-byte pattern, in 16-bit lanes: the last byte's low 7 bits (6 and
            // a zero for a continuation byte), and the leading byte's low 5 bits above.
            let pairs = vreinterpretq_u16_u8(lanes);
            let low = vandq_u16(pairs, vdupq_n_u16(0x7F));
            let high = vshrq_n_u16::<2>(vandq_u16(pairs, vdupq_n_u16(0x1F00)));
            let two = vorrq_u16(low, high);
            // A three-byte pattern, in 32-bit lanes: last byte 7 bits (6 and a zero
            // for a continuation byte); the one before 6 bits (5 and a zero for a
            // leading byte of two); the leading byte of three 4 bits; narrowed to
            // four units, the upper four zero.
            let quads = vreinterpretq_u32_u8(lanes);
            let low = vandq_u32(quads, vdupq_n_u32(0x7F));
            let middle = vshrq_n_u32::<2>(vandq_u32(quads, vdupq_n_u32(0x3F00)));
            let high = vshrq_n_u32::<4>(vandq_u32(quads, vdupq_n_u32(0x0F_0000)));
            let three = vcombine_u16(vmovn_u32(vorrq_u32(vorrq_u32(low, middle), high)), vdup_n_u16(0));
            let keep_two = vdupq_n_u16(0u16.wrapping_sub(u16::from(two_byte)));
            vst1q_u16(out.as_mut_ptr(), vbslq_u16(keep_two, two, three));
        }
        (consumed, if two_byte { 6 } else { 4 })
    } else {
        // A character of four bytes among the first four: one character, scalar.
        one_character(s, read, dst, written)
    }
}

/// Twin of [`super::scalar::three_byte_run`] and of the SSSE3 kernel's, with `tbl`
/// for `pshufb`: decodes the longest run of whole, valid three-byte sequences at
/// `src[read..]` into `dst[written..]`, up to five characters a step; returns where
/// it stopped in each. The step stores eight units, of which those after the run's
/// are overwritten later or lie beyond what is returned; where fewer than 16 bytes
/// are left, the scalar twin goes on.
#[inline(always)]
fn three_byte_run(src: &[u8], dst: &mut [u16], mut read: usize, mut written: usize) -> (usize, usize) {
    while let (Some(block), Some(out)) = (src.get(read..read + 16), dst.get_mut(written..written + 8)) {
        // SAFETY: `block` holds 16 readable bytes, `out` 8 writable units, and the
        // tables 16 bytes each; NEON is aarch64's baseline.
        let (shaped, good) = unsafe {
            let vector = vld1q_u8(block.as_ptr());
            let shaped = vceqq_u8(vandq_u8(vector, vld1q_u8(RUN_SHAPE_MASK.as_ptr())), vld1q_u8(RUN_SHAPE.as_ptr()));
            let payload = vandq_u8(vector, vld1q_u8(RUN_BITS.as_ptr()));
            let tails = vreinterpretq_u16_u8(vqtbl1q_u8(payload, vld1q_u8(RUN_TAILS.as_ptr())));
            let leads = vreinterpretq_u16_u8(vqtbl1q_u8(payload, vld1q_u8(RUN_LEADS.as_ptr())));
            // The last byte's six bits, the middle byte's six above them, the lead's
            // four on top.
            let low =
                vorrq_u16(vandq_u16(tails, vdupq_n_u16(0x3F)), vshrq_n_u16::<2>(vandq_u16(tails, vdupq_n_u16(0x3F00))));
            let units = vorrq_u16(low, vshlq_n_u16::<4>(leads));
            vst1q_u16(out.as_mut_ptr(), units);
            // Overlong (the top five bits zero; so are lanes 5 to 7) or a surrogate.
            let top = vandq_u16(units, vdupq_n_u16(0xF800));
            let bad = vorrq_u16(vceqq_u16(top, vdupq_n_u16(0)), vceqq_u16(top, vdupq_n_u16(0xD800)));
            (byte_bits(shaped).trailing_ones() / 3, lane_bits(bad).trailing_zeros())
        };
        match super::scalar::three_byte_step_end(shaped, good, read, written) {
            Ok(next) => (read, written) = next,
            Err(end) => return end,
        }
    }
    super::scalar::three_byte_run(src, dst, read, written)
}

/// The scalar stages of [`super::utf8_prefix_to_utf16`] with [`three_byte_run`]
/// for the runs of three-byte characters (a vector `run`: long runs stay out of the
/// hand-over, as with SSSE3, where that measured faster; untimed here).
#[derive(Debug, Clone, Copy)]
pub(super) struct NeonRuns;

impl Runs for NeonRuns {
    /// Sixteen bytes a step, two steps, then the rest of the run in bulk, all
    /// inlined: the portable steps widened eight bytes in part a lane at a time, and
    /// the bulk call after them was followed by some twenty instructions that loaded
    /// the loop's constants again (whatenc / encoding_rs in instructions, UTF-8 →
    /// UTF-16 fr.txt 0.92 → 1.24, pt.txt 0.94 → 1.33, de.txt 1.04 → 1.37).
    #[inline(always)]
    fn ascii(self, src: &[u8], dst: &mut [u16], mut read: usize, mut written: usize) -> (usize, usize) {
        for _ in 0..2 {
            let (Some(chunk), Some(out)) =
                (src[read..].first_chunk::<16>(), dst.get_mut(written..).and_then(|d| d.first_chunk_mut::<16>()))
            else {
                return super::scalar::widen_ascii_run(src, dst, read, written);
            };
            // SAFETY: `chunk` holds 16 readable bytes; NEON is aarch64's baseline.
            let vector = unsafe { vld1q_u8(chunk.as_ptr()) };
            widen(vector, out);
            let n = first_high(vector);
            (read, written) = (read + n, written + n);
            if n < 16 {
                return (read, written);
            }
        }
        let n = copy_ascii_to_utf16_inline(&src[read..], &mut dst[written..]);
        (read + n, written + n)
    }

    #[inline(always)]
    fn three_byte(self, src: &[u8], dst: &mut [u16], read: usize, written: usize) -> (usize, usize) {
        three_byte_run(src, dst, read, written)
    }
}

impl Utf8PrefixPass for NeonRuns {
    #[inline(always)]
    fn pass<const HAND_OVER: bool>(self, src: &[u8], dst: &mut [u16]) -> (usize, usize, bool) {
        utf8_prefix_pass::<HAND_OVER>(src, dst)
    }
}

/// [`super::scalar::utf8_prefix_to_utf16`] with [`three_byte_run`]: a function of
/// its own, as that one is.
#[inline(never)]
fn utf8_prefix_pass<const HAND_OVER: bool>(src: &[u8], dst: &mut [u16]) -> (usize, usize, bool) {
    super::scalar::utf8_prefix_pass::<HAND_OVER, _>(src, dst, NeonRuns)
}

/// Twin of [`super::scalar::utf8_to_utf16`] (the SSSE3 kernel's algorithm, see
/// [`super::shuffles`]): transcodes valid UTF-8 to UTF-16; the caller guarantees
/// `dst.len() >= s.len()`. Returns the units written.
pub(crate) fn utf8_to_utf16(s: &str, dst: &mut [u16]) -> usize {
    let bytes = s.as_bytes();
    assert!(dst.len() >= bytes.len());
    let mut read = 0;
    let mut written = 0;
    // Each byte read makes at most one unit, so `dst` has room for as many units as
    // there are bytes left: 16 while a block is read. The masks of 64 bytes at once;
    // 64 ASCII bytes are widened at once.
    while let Some(chunk) = bytes[read..].first_chunk::<64>() {
        // SAFETY: `chunk` holds 64 readable bytes; NEON is aarch64's baseline.
        let vectors: [uint8x16_t; 4] = core::array::from_fn(|i| unsafe { vld1q_u8(chunk.as_ptr().add(16 * i)) });
        // SAFETY: register-only NEON operations.
        let any = unsafe { vmaxvq_u8(vorrq_u8(vorrq_u8(vectors[0], vectors[1]), vorrq_u8(vectors[2], vectors[3]))) };
        if any < 0x80 {
            let out = &mut dst[written..written + 64];
            for (vector, out) in vectors.iter().zip(out.chunks_exact_mut(16)) {
                widen(*vector, out);
            }
            read += 64;
            written += 64;
            continue;
        }
        let (mut non_ascii, mut continuation) = (0u64, 0u64);
        for (i, &vector) in vectors.iter().enumerate() {
            let (n, c) = vector_masks(vector);
            non_ascii |= (n as u64) << (16 * i);
            continuation |= (c as u64) << (16 * i);
        }
        // Byte i ends a character when byte i + 1 starts one.
        let ends = !continuation >> 1;
        let mut offset = 0;
        while offset <= 48 {
            let ascii = (non_ascii >> offset).trailing_zeros();
            let (r, w) = step(s, read + offset, ascii, (ends >> offset) as u32, dst, written);
            offset += r;
            written += w;
        }
        read += offset;
    }
    while let Some(block) = bytes[read..].first_chunk::<16>() {
        // SAFETY: `block` holds 16 readable bytes; NEON is aarch64's baseline.
        let (non_ascii, continuation) = vector_masks(unsafe { vld1q_u8(block.as_ptr()) });
        let (r, w) = step(s, read, non_ascii.trailing_zeros(), !continuation >> 1, dst, written);
        read += r;
        written += w;
    }
    written + super::scalar::utf8_to_utf16(&s[read..], &mut dst[written..])
}

/// The index of the first byte of `vector` that is not ASCII; 16 if all are.
#[inline(always)]
fn first_high(vector: uint8x16_t) -> usize {
    // SAFETY: register-only NEON operations (NEON is aarch64's baseline).
    first_marked(unsafe { vcltq_s8(vreinterpretq_s8_u8(vector), vdupq_n_s8(0)) })
}

/// The index of the first byte of `mask` (each 0xFF or 0) that is set; 16 if none.
#[inline(always)]
fn first_marked(mask: uint8x16_t) -> usize {
    // SAFETY: register-only NEON operations (NEON is aarch64's baseline).
    let nibbles = unsafe {
        // Each 16-bit lane shifted right by four and narrowed keeps a nibble of each
        // of its two bytes, in order: byte k's mask in bits 4k to 4k + 3.
        vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(vreinterpretq_u16_u8(mask))))
    };
    (nibbles.trailing_zeros() / 4) as usize
}

/// Twin of [`super::scalar::copy_ascii_to_ascii`]: copies the longest ASCII prefix
/// of `src` that fits in `dst`; returns its length. 32 bytes a step, each vector of
/// 16 stored whole up to the one where the run ends (no more than 15 bytes past the
/// run are written); fewer than 16 left, the scalar twin.
#[inline]
pub(crate) fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let (src, dst) = (&src[..limit], &mut dst[..limit]);
    let mut n = 0;
    while let (Some(chunk), Some(out)) = (src[n..].first_chunk::<32>(), dst[n..].first_chunk_mut::<32>()) {
        // SAFETY: `chunk` holds 32 readable bytes and `out` 32 writable ones, two
        // vectors each; NEON is aarch64's baseline.
        unsafe {
            let (low, high) = (vld1q_u8(chunk.as_ptr()), vld1q_u8(chunk.as_ptr().add(16)));
            vst1q_u8(out.as_mut_ptr(), low);
            if vmaxvq_u8(vorrq_u8(low, high)) >= 0x80 {
                let first = first_high(low);
                if first < 16 {
                    return n + first;
                }
                vst1q_u8(out.as_mut_ptr().add(16), high);
                return n + 16 + first_high(high);
            }
            vst1q_u8(out.as_mut_ptr().add(16), high);
        }
        n += 32;
    }
    if let (Some(chunk), Some(out)) = (src[n..].first_chunk::<16>(), dst[n..].first_chunk_mut::<16>()) {
        // SAFETY: 16 readable bytes, 16 writable ones.
        let vector = unsafe { vld1q_u8(chunk.as_ptr()) };
        unsafe { vst1q_u8(out.as_mut_ptr(), vector) };
        let first = first_high(vector);
        if first < 16 {
            return n + first;
        }
        n += 16;
    }
    n + super::scalar::copy_ascii_to_ascii(&src[n..], &mut dst[n..])
}

/// Twin of [`super::scalar::copy_ascii_to_utf16`]: widens the longest ASCII prefix
/// of `src` that fits in `dst`; returns its length. 32 bytes a step, the units of
/// each vector of 16 stored whole up to the one where the run ends (no more than 15
/// units past the run are written); fewer than 16 left, the scalar twin.
#[inline]
pub(crate) fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
    copy_ascii_to_utf16_inline(src, dst)
}

/// [`copy_ascii_to_utf16`], always inlined (for the UTF-8 decoder's runs).
#[inline(always)]
fn copy_ascii_to_utf16_inline(src: &[u8], dst: &mut [u16]) -> usize {
    let limit = src.len().min(dst.len());
    let (src, dst) = (&src[..limit], &mut dst[..limit]);
    let mut n = 0;
    while let (Some(chunk), Some(out)) = (src[n..].first_chunk::<32>(), dst[n..].first_chunk_mut::<32>()) {
        // SAFETY: `chunk` holds 32 readable bytes, two vectors; NEON is aarch64's
        // baseline.
        let (low, high) = unsafe { (vld1q_u8(chunk.as_ptr()), vld1q_u8(chunk.as_ptr().add(16))) };
        widen(low, &mut out[..16]);
        // SAFETY: register-only NEON operations.
        if unsafe { vmaxvq_u8(vorrq_u8(low, high)) } >= 0x80 {
            let first = first_high(low);
            if first < 16 {
                return n + first;
            }
            widen(high, &mut out[16..]);
            return n + 16 + first_high(high);
        }
        widen(high, &mut out[16..]);
        n += 32;
    }
    if let (Some(chunk), Some(out)) = (src[n..].first_chunk::<16>(), dst[n..].first_chunk_mut::<16>()) {
        // SAFETY: 16 readable bytes.
        let vector = unsafe { vld1q_u8(chunk.as_ptr()) };
        widen(vector, out);
        let first = first_high(vector);
        if first < 16 {
            return n + first;
        }
        n += 16;
    }
    n + super::scalar::copy_ascii_to_utf16(&src[n..], &mut dst[n..])
}

/// Sixteen units from `units` as bytes (each unit's low byte), and the index of the
/// first unit that is not ASCII (16 if none).
#[inline(always)]
fn narrow(units: &[u16; 16]) -> (uint8x16_t, usize) {
    // SAFETY: `units` holds 16 readable units, two vectors; the rest are
    // register-only NEON operations (NEON is aarch64's baseline).
    unsafe {
        let (low, high) = (vld1q_u16(units.as_ptr()), vld1q_u16(units.as_ptr().add(8)));
        let bytes = vuzp1q_u8(vreinterpretq_u8_u16(low), vreinterpretq_u8_u16(high));
        if vmaxvq_u16(vorrq_u16(low, high)) < 0x80 {
            return (bytes, 16);
        }
        // 0xFF in byte k where unit k is not ASCII.
        let above = vdupq_n_u16(0x7F);
        let wide = vuzp1q_u8(vreinterpretq_u8_u16(vcgtq_u16(low, above)), vreinterpretq_u8_u16(vcgtq_u16(high, above)));
        (bytes, first_marked(wide))
    }
}

/// Twin of [`super::scalar::copy_utf16_ascii_to_bytes`]: narrows the longest run
/// of ASCII units of `src` that fits in `dst`; returns its length. 16 units a step,
/// stored whole (no more than 15 bytes past the run are written); fewer than 16
/// left, the scalar twin.
#[inline]
pub(crate) fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let (src, dst) = (&src[..limit], &mut dst[..limit]);
    let mut n = 0;
    while let (Some(units), Some(out)) = (src[n..].first_chunk::<16>(), dst[n..].first_chunk_mut::<16>()) {
        let (bytes, ascii) = narrow(units);
        // SAFETY: `out` holds 16 writable bytes; NEON is aarch64's baseline.
        unsafe { vst1q_u8(out.as_mut_ptr(), bytes) };
        if ascii < 16 {
            return n + ascii;
        }
        n += 16;
    }
    n + super::scalar::copy_utf16_ascii_to_bytes(&src[n..], &mut dst[n..])
}

/// Twin of [`super::scalar::encode_utf16_linear`]: the ASCII run with
/// [`copy_utf16_ascii_to_bytes`] (the portable loop's ASCII chunks were sixteen
/// loads and sixteen stores of a byte each here), then the portable loop from
/// there, whose chunks of ASCII and of the range LLVM makes NEON code of.
#[inline]
pub(crate) fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize {
    let ascii = copy_utf16_ascii_to_bytes(src, dst);
    ascii + super::scalar::encode_utf16_linear(&src[ascii..], &mut dst[ascii..], start, len, delta)
}

/// The most other characters (looked up in the index) in a step of
/// [`linear_steps_from_utf8`] whose bytes are written after its stores, each where
/// its lane's byte went; with more, they are written into the step's lanes before
/// the packing (as AVX2's `FEW_OTHERS`).
const FEW_OTHERS: usize = 4;

/// Encodes valid UTF-8 into a single-byte encoding, 16 bytes a step: the NEON twin
/// of the AVX2 kernel's `linear_steps_from_utf8` (ASCII as itself, the index's run
/// `(start, len, delta)` from two-byte UTF-8, or three-byte with `WIDE`, in 16-bit
/// lanes, other characters from `index` one at a time), the bytes kept packed by
/// `tbl` eight at a time ([`KEEP_SHUFFLES`]), ASCII runs by [`copy_ascii_to_ascii`].
/// Returns the bytes read and written; it stops at the start of the first character
/// not in the index, where fewer than 17 bytes are left (18 with `WIDE`), or 16 bytes
/// of room. It may write up to 15 bytes past the bytes it returns (those of
/// [`copy_ascii_to_ascii`]).
///
/// `src` starts at a character and is valid UTF-8 (a `&str`'s bytes).
#[inline(never)]
pub(crate) fn linear_steps_from_utf8<const WIDE: bool>(
    src: &[u8],
    dst: &mut [u8],
    (start, len, delta): (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    // The bytes a step reads: 16, and those of a sequence that starts at its end.
    let reach = if WIDE { 18 } else { 17 };
    // SAFETY (the block): each load reads `reach` bytes or fewer at `read`, inside
    // `src` by the loop's condition; each store writes 16 or 8 bytes at `written` or
    // within 8 after it, inside `dst` by the same; `KEEP_SHUFFLES`' rows hold 16
    // bytes. NEON is aarch64's baseline.
    unsafe {
        let (start, last, delta) = (vdupq_n_u16(start), vdupq_n_u16(len.wrapping_sub(1)), vdupq_n_u16(delta));
        while read + reach <= src.len() && written + 16 <= dst.len() {
            let p = src.as_ptr().add(read);
            let bytes = vld1q_u8(p);
            if vmaxvq_u8(bytes) < 0x80 {
                vst1q_u8(dst.as_mut_ptr().add(written), bytes);
                read += 16;
                written += 16;
                // Sixteen more: a run, taken with its own kernel, 32 bytes a step
                // (called for any ASCII step, it cost text of other scripts, whose
                // ASCII steps are few and short, 10%).
                if read + 16 <= src.len() && vmaxvq_u8(vld1q_u8(src.as_ptr().add(read))) < 0x80 {
                    let n = copy_ascii_to_ascii(&src[read..], &mut dst[written..]);
                    read += n;
                    written += n;
                }
                continue;
            }
            let next = vld1q_u8(p.add(1));
            let after = if WIDE { vld1q_u8(p.add(2)) } else { vdupq_n_u8(0) };
            let signed = vreinterpretq_s8_u8(bytes);
            let ascii_lanes = vcgezq_s8(signed);
            // 0x80 to 0xBF: less than -64 as `i8`.
            let continuation_lanes = vcltq_s8(signed, vdupq_n_s8(-64));
            let lead_lanes = if WIDE {
                vceqq_u8(vandq_u8(bytes, vdupq_n_u8(0xF0)), vdupq_n_u8(0xE0))
            } else {
                vceqq_u8(vandq_u8(bytes, vdupq_n_u8(0xE0)), vdupq_n_u8(0xC0))
            };
            // Each byte with the one (or two) after it as such a sequence's code
            // point, its byte, and whether it is in the run, eight at a time.
            let half = |bytes: uint16x8_t, next: uint16x8_t, after: uint16x8_t| {
                let low6 = |units| vandq_u16(units, vdupq_n_u16(0x3F));
                let code_point = if WIDE {
                    vorrq_u16(vorrq_u16(vshlq_n_u16::<12>(bytes), vshlq_n_u16::<6>(low6(next))), low6(after))
                } else {
                    vorrq_u16(vshlq_n_u16::<6>(vandq_u16(bytes, vdupq_n_u16(0x1F))), low6(next))
                };
                (vsubq_u16(code_point, delta), vcleq_u16(vsubq_u16(code_point, start), last))
            };
            let (low, low_in_run) =
                half(vmovl_u8(vget_low_u8(bytes)), vmovl_u8(vget_low_u8(next)), vmovl_u8(vget_low_u8(after)));
            let (high, high_in_run) = half(vmovl_high_u8(bytes), vmovl_high_u8(next), vmovl_high_u8(after));
            // The low byte of each lane, in order.
            let mapped = vuzp1q_u8(vreinterpretq_u8_u16(low), vreinterpretq_u8_u16(high));
            let in_run = vuzp1q_u8(vreinterpretq_u8_u16(low_in_run), vreinterpretq_u8_u16(high_in_run));
            let kept_bytes = vbslq_u8(ascii_lanes, bytes, mapped);
            // The other characters' starts, in order, up to one not in the index:
            // their bytes, written over the packed ones below.
            let others =
                byte_bits(vmvnq_u8(vorrq_u8(vorrq_u8(ascii_lanes, continuation_lanes), vandq_u8(lead_lanes, in_run))));
            let continuation = byte_bits(continuation_lanes);
            let mut patches = [(0u8, 0u8); FEW_OTHERS];
            let mut patched = 0;
            let (kept_bytes, stop) = if others == 0 {
                (kept_bytes, 32)
            } else if others.count_ones() as usize <= FEW_OTHERS {
                let stop = super::look_up_others(others, src, read, index, |at, byte| {
                    patches[patched] = (at as u8, byte);
                    patched += 1;
                });
                (kept_bytes, stop)
            } else {
                // Many: their bytes written over the step's in its lanes, before the
                // packing.
                let mut lanes = [0u8; 16];
                vst1q_u8(lanes.as_mut_ptr(), kept_bytes);
                let stop = super::look_up_others(others, src, read, index, |at, byte| lanes[at] = byte);
                (vld1q_u8(lanes.as_ptr()), stop)
            };
            let keep = !continuation & if stop < 16 { (1u32 << stop) - 1 } else { 0xFFFF };
            // Eight bytes at a time, packed and stored whole: each store's bytes after
            // the kept ones are overwritten by the next, or are past the output.
            let mut at = written;
            for (group, group_bytes) in [vget_low_u8(kept_bytes), vget_high_u8(kept_bytes)].into_iter().enumerate() {
                let mask = (keep >> (8 * group)) as u8;
                let shuffle = vld1_u8(KEEP_SHUFFLES[mask as usize].as_ptr());
                vst1_u8(dst.as_mut_ptr().add(at), vtbl1_u8(group_bytes, shuffle));
                at += mask.count_ones() as usize;
            }
            for &(lane, byte) in &patches[..patched] {
                // Where the lane's byte went: after the kept bytes before it.
                dst[written + (keep & ((1u32 << lane) - 1)).count_ones() as usize] = byte;
            }
            written = at;
            if stop < 16 {
                read += stop;
                break;
            }
            // The continuation bytes of a character that starts in the step are taken
            // too, so that each step starts at a character.
            read = super::next_character(src, read + 16);
        }
    }
    (read, written)
}

/// Twin of [`super::scalar::decode_table_to_utf16`]: blocks of 16 bytes that are
/// ASCII or in `start..start + len` (as `byte + delta`) in vectors, any other
/// through `table`, up to a block with a unit of 0; returns the bytes consumed. (The
/// portable loop ran as NEON code here, but LLVM assembled its vector a lane at a
/// time.)
#[inline(never)]
pub(crate) fn decode_table_to_utf16(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    start: u8,
    len: u8,
    delta: u16,
) -> usize {
    // SAFETY: register-only NEON operations (NEON is aarch64's baseline).
    let (starts, lens, deltas) = unsafe { (vdupq_n_u8(start), vdupq_n_u8(len), vdupq_n_u16(delta)) };
    let mut pos = 0;
    while let (Some(block), Some(out)) = (src[pos..].first_chunk::<16>(), dst[pos..].first_chunk_mut::<16>()) {
        // SAFETY: `block` holds 16 readable bytes and `out` 16 writable units, two
        // vectors; the rest are register-only operations.
        let level = unsafe {
            let vector = vld1q_u8(block.as_ptr());
            let high = vreinterpretq_s8_u8(vcltq_s8(vreinterpretq_s8_u8(vector), vdupq_n_s8(0)));
            let in_run = vcltq_u8(vsubq_u8(vector, starts), lens);
            // `delta` where a byte is not ASCII (the mask widened with its sign).
            let low = vandq_u16(vreinterpretq_u16_s16(vmovl_s8(vget_low_s8(high))), deltas);
            let high_half = vandq_u16(vreinterpretq_u16_s16(vmovl_high_s8(high)), deltas);
            vst1q_u16(out.as_mut_ptr(), vaddq_u16(vmovl_u8(vget_low_u8(vector)), low));
            vst1q_u16(out.as_mut_ptr().add(8), vaddq_u16(vmovl_high_u8(vector), high_half));
            // In one maximum: 3 where a byte is neither ASCII nor in the run, 1 where
            // it is in the run, 0 where it is ASCII.
            let high = vreinterpretq_u8_s8(high);
            vmaxvq_u8(vorrq_u8(vshrq_n_u8::<7>(high), vshrq_n_u8::<6>(vbicq_u8(high, in_run))))
        };
        if level == 0 {
            // An ASCII block: the ASCII blocks after it in bulk (whole blocks: the
            // units after them are written over next). Latin text gains (whatenc /
            // encoding_rs in instructions, windows-1252 → UTF-16 en.html 0.94 → 2.55,
            // fr.html 1.31 → 2.07), text of other scripts pays the test (ru.txt
            // windows-1251 5.49 → 4.52, vi.txt windows-1258 1.47 → 1.25; from the
            // second ASCII block in a row, no better).
            pos += 16;
            pos += copy_ascii_to_utf16(&src[pos..], &mut dst[pos..]) & !15;
            continue;
        }
        if level > 1 {
            let mut zero = false;
            for (unit, &byte) in out.iter_mut().zip(block) {
                *unit = table[byte as usize];
                zero |= *unit == 0;
            }
            if zero {
                break;
            }
        }
        pos += 16;
    }
    pos
}

/// Twin of [`super::scalar::decode_table_to_utf8`]: its loop, with the ASCII blocks
/// in a row in vectors ([`ascii_table_blocks`]; the portable loop took some twenty
/// instructions a block here).
#[inline]
pub(crate) fn decode_table_to_utf8(src: &[u8], dst: &mut [u8], table: &[u32; 256]) -> (usize, usize) {
    super::scalar::decode_table_to_utf8_with(src, dst, table, ascii_table_blocks)
}

/// The ASCII blocks for [`decode_table_to_utf8`] (the contract of
/// [`super::scalar::decode_table_to_utf8_with`]): the first, then two at a time as
/// many in a row as the loop would take, then one more if it is ASCII. Called, not
/// inlined: inlined, the loop of dense blocks around it spilled its registers.
#[inline(never)]
fn ascii_table_blocks(src: &[u8], dst: &mut [u8]) -> usize {
    let blocks = (src.len() / TABLE_BLOCK).min((dst.len() - UTF8_BLOCK_ROOM) / TABLE_BLOCK + 1);
    let (src, dst) = (&src[..blocks * TABLE_BLOCK], &mut dst[..blocks * TABLE_BLOCK]);
    dst[..TABLE_BLOCK].copy_from_slice(&src[..TABLE_BLOCK]);
    let mut n = TABLE_BLOCK;
    while let (Some(pair), Some(out)) = (src[n..].first_chunk::<32>(), dst[n..].first_chunk_mut::<32>()) {
        // SAFETY: `pair` holds 32 readable bytes and `out` 32 writable ones; NEON is
        // aarch64's baseline.
        let ascii = unsafe {
            let (a, b) = (vld1q_u8(pair.as_ptr()), vld1q_u8(pair.as_ptr().add(16)));
            let ascii = vmaxvq_u8(vorrq_u8(a, b)) < 0x80;
            if ascii {
                vst1q_u8(out.as_mut_ptr(), a);
                vst1q_u8(out.as_mut_ptr().add(16), b);
            }
            ascii
        };
        if !ascii {
            break;
        }
        n += 32;
    }
    if let (Some(block), Some(out)) = (src[n..].first_chunk::<16>(), dst[n..].first_chunk_mut::<16>()) {
        // SAFETY: 16 readable bytes and 16 writable ones.
        unsafe {
            let vector = vld1q_u8(block.as_ptr());
            if vmaxvq_u8(vector) < 0x80 {
                vst1q_u8(out.as_mut_ptr(), vector);
                n += 16;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::super::scalar;
    use super::super::utf8_check::tests::{copy_through_windows, same_as_twins, sixteen_byte_checks};

    /// Compares the UTF-8 check's kernels with their twins on `bytes` (the fused copy
    /// too when `copy`).
    fn same(bytes: &[u8], copy: bool) {
        same_as_twins(bytes, copy, &super::CHECKS);
    }

    /// All of `sixteen_byte_checks`' cases, or the lighter set.
    const THOROUGH: bool = false;

    /// The steps from UTF-8 into a single-byte encoding (see
    /// `scalar::tests::check_utf8_single_byte_steps`): at most 15 bytes written past
    /// them (an ASCII run's last vector).
    #[test]
    fn neon_linear_steps_from_utf8_match_the_run() {
        super::super::scalar::tests::check_utf8_single_byte_steps(16, 15, |src, out, run, table, wide| {
            if wide {
                super::linear_steps_from_utf8::<true>(src, out, run, table)
            } else {
                super::linear_steps_from_utf8::<false>(src, out, run, table)
            }
        });
    }

    /// The UTF-8 check against its twins (see `sixteen_byte_checks`), run under qemu-user in CI.
    #[test]
    fn neon_check_matches_twins() {
        sixteen_byte_checks(same, THOROUGH);
    }

    /// The fused copy's windows (from `WINDOWS_FROM`), from 128 bytes too (see
    /// `copy_through_windows`).
    #[test]
    fn neon_copy_through_windows_matches_twins() {
        copy_through_windows(same);
    }

    /// The NEON ASCII kernels against their scalar twins (see
    /// `scalar::tests::ascii_kernels_match_twins`), at 17 alignments.
    #[test]
    fn ascii_kernels_match_scalar_twins() {
        let kernels = scalar::tests::AsciiKernels {
            copy_ascii_to_ascii: &super::copy_ascii_to_ascii,
            copy_ascii_to_utf16: &super::copy_ascii_to_utf16,
            copy_utf16_ascii_to_bytes: &super::copy_utf16_ascii_to_bytes,
            utf16_bytes_to_units: None,
            utf16_bytes_ascii_to_bytes: None,
        };
        scalar::tests::ascii_kernels_match_twins(&kernels, 17);
    }

    /// The linear-run encoder against its scalar twin (see
    /// `scalar::tests::encode_utf16_linear_matches_twin`).
    #[test]
    fn encode_utf16_linear_matches_scalar_twin() {
        scalar::tests::encode_utf16_linear_matches_twin(&super::encode_utf16_linear);
    }

    /// The table decoders against their scalar twins (see
    /// `scalar::tests::decode_table_matches_twins`).
    #[test]
    fn decode_table_matches_scalar_twin() {
        scalar::tests::decode_table_matches_twins(
            &super::decode_table_to_utf16,
            Some(&|src, dst, table| super::decode_table_to_utf8(src, dst, table)),
        );
    }

    /// `next_window` (`ext`) against the bytes it is made of.
    #[test]
    fn next_window_moves_one_byte() {
        // SAFETY: NEON is aarch64's baseline.
        unsafe { super::super::utf8_check::tests::next_window_moves_one_byte::<core::arch::aarch64::uint8x16_t>() }
    }

    /// `ascii_map` (pairwise maxima) against the bytes.
    #[test]
    fn ascii_map_matches_bytes() {
        // SAFETY: NEON is aarch64's baseline.
        unsafe { super::super::utf8_check::tests::ascii_map_matches_bytes::<core::arch::aarch64::uint8x16_t>() }
    }

    /// Runs of three-byte characters against the scalar twin (see
    /// `scalar::tests::three_byte_run_cases`).
    #[test]
    fn three_byte_run_matches_scalar_twin() {
        scalar::tests::three_byte_run_cases(super::three_byte_run);
    }

    /// Text of characters of every length, in runs and mixed, from every character
    /// boundary, against the portable twin.
    #[test]
    fn utf8_to_utf16_matches_scalar_twin() {
        let pieces = [
            "a",
            "bc ",
            "\u{e9}",
            "\u{436}\u{44b}",
            "\u{7ff}",
            "\u{80}",
            "\u{4e2d}\u{6587}",
            "\u{800}",
            "\u{ffff}",
            "\u{1F600}",
            "\u{10ffff}",
            "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
        ];
        let mut next = super::super::xorshift(0x2545_F491_4F6C_DD1D);
        for _ in 0..300 {
            let mut text = alloc::string::String::new();
            while text.len() < 200 {
                text.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            for (start, _) in text.char_indices() {
                let s = &text[start..];
                let (mut ours, mut theirs) = (alloc::vec![0u16; s.len()], alloc::vec![0u16; s.len()]);
                let n = super::utf8_to_utf16(s, &mut ours);
                let m = scalar::utf8_to_utf16(s, &mut theirs);
                assert_eq!(&ours[..n], &theirs[..m], "{s}");
            }
        }
    }

    /// Every BMP unit that is not a surrogate at each of the eight places, among
    /// neighbours of every length class, against the portable twin.
    #[test]
    fn block_to_utf8_matches_scalar_twin() {
        let neighbours: [[u16; 8]; 5] = [
            [0x61; 8],
            [0xE9; 8],
            [0x4E2D; 8],
            [0x61, 0xE9, 0x4E2D, 0x20, 0x3B1, 0xFFFF, 0x7F, 0x800],
            [0x7FF, 0x80, 0x61, 0xD7FF, 0xE000, 0x62, 0x5D0, 0x30],
        ];
        for unit in (0..=0xFFFFu16).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
            for base in neighbours {
                for place in 0..8 {
                    let mut block = base;
                    block[place] = unit;
                    let (mut ours, mut theirs) = ([0u8; 32], [0u8; 32]);
                    let n = super::block_to_utf8(block, &mut ours);
                    let m = scalar::block_to_utf8(block, &mut theirs);
                    assert_eq!(&ours[..n], &theirs[..m], "{block:x?}");
                }
            }
        }
    }
}
