//! NEON kernels for aarch64, where NEON is part of the baseline (no run-time
//! detection). They share their algorithms and shuffle tables
//! ([`super::shuffles`]) with the x86_64 ones: what SSSE3's `pshufb` does there,
//! NEON's `tbl` does here, and a horizontal add of weighted lanes stands in for
//! SSE2's `movemask`. Each kernel is the twin of a function in [`super::scalar`]
//! and is tested against it (under qemu-user in CI: this machine cannot time them).
//!
//! The portable kernels' chunked loops are written for LLVM's vectorizer, so the
//! ASCII runs, the single-byte ranges and the UTF-16 byte order already run as NEON
//! code; these kernels are for what a vectorizer cannot find: packing UTF-8
//! sequences of different lengths.

use core::arch::aarch64::{
    uint16x8_t, uint32x4_t, vaddvq_u16, vandq_u16, vandq_u32, vbslq_u16, vbslq_u32, vceqq_u16, vdupq_n_u16,
    vdupq_n_u32, vget_low_u16, vld1q_u8, vld1q_u16, vmaxvq_u16, vminvq_u16, vmovl_high_u16, vmovl_u16, vorrq_u16,
    vorrq_u32, vqtbl1q_u8, vreinterpretq_u8_u16, vreinterpretq_u8_u32, vshlq_n_u16, vshlq_n_u32, vshrq_n_u16,
    vshrq_n_u32, vst1q_u8,
};

use super::shuffles::{ONE_OR_TWO_BYTE_PACKS, UTF8_WORD_PACKS};

/// Bit k in lane k: with a lane mask (all ones or zero) and a horizontal add, the
/// mask's lanes as the bits of a number.
const LANE_BITS: [u16; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// The lanes of an all-ones-or-zero mask as bits (bit k for lane k).
#[inline(always)]
fn lane_bits(mask: uint16x8_t) -> u32 {
    // SAFETY: `LANE_BITS` holds eight readable u16s; NEON is aarch64's baseline.
    unsafe { vaddvq_u16(vandq_u16(mask, vld1q_u16(LANE_BITS.as_ptr()))) as u32 }
}

/// The UTF-8 bytes of four code units (in 32-bit lanes) as little-endian words,
/// given which are below 0x80 and 0x800 (all-ones lanes): the twin of the x86_64
/// kernels' `utf8_words`.
#[inline(always)]
fn utf8_words(units: uint32x4_t, below_0x80: uint32x4_t, below_0x800: uint32x4_t) -> uint32x4_t {
    // SAFETY: register-only NEON operations (NEON is aarch64's baseline).
    unsafe {
        let low6 = vorrq_u32(vandq_u32(units, vdupq_n_u32(0x3F)), vdupq_n_u32(0x80));
        let middle6 = vorrq_u32(vandq_u32(vshrq_n_u32::<6>(units), vdupq_n_u32(0x3F)), vdupq_n_u32(0x80));
        let two = vorrq_u32(vorrq_u32(vshrq_n_u32::<6>(units), vdupq_n_u32(0xC0)), vshlq_n_u32::<8>(low6));
        let three = vorrq_u32(
            vorrq_u32(vshrq_n_u32::<12>(units), vdupq_n_u32(0xE0)),
            vorrq_u32(vshlq_n_u32::<8>(middle6), vshlq_n_u32::<16>(low6)),
        );
        // ASCII where below 0x80, else two bytes where below 0x800, else three.
        vbslq_u32(below_0x800, vbslq_u32(below_0x80, units, two), three)
    }
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
        let below_0x80 = vceqq_u16(vandq_u16(units, vdupq_n_u16(0xFF80)), vdupq_n_u16(0));
        let below_0x800 = vceqq_u16(vandq_u16(units, vdupq_n_u16(0xF800)), vdupq_n_u16(0));
        // Each unit's sequence as a little-endian word in a 32-bit lane, four a half.
        let widen = |mask: uint16x8_t| (vmovl_u16(vget_low_u16(mask)), vmovl_high_u16(mask));
        let (units_low, units_high) = widen(units);
        let (ascii_low, ascii_high) = widen(below_0x80);
        let (two_low, two_high) = widen(below_0x800);
        // A widened all-ones u16 lane is 0x0000FFFF: spread it to the whole lane.
        let spread = |lanes: uint32x4_t| vorrq_u32(lanes, vshlq_n_u32::<16>(lanes));
        let words = [
            utf8_words(units_low, spread(ascii_low), spread(two_low)),
            utf8_words(units_high, spread(ascii_high), spread(two_high)),
        ];
        if vminvq_u16(units) >= 0x800 {
            // Eight three-byte sequences (the common case in CJK text): the three
            // low bytes of each lane, packed. Stores at 0 and 12.
            const PACK: [u8; 16] = [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80];
            let pack = vld1q_u8(PACK.as_ptr());
            vst1q_u8(ptr, vqtbl1q_u8(vreinterpretq_u8_u32(words[0]), pack));
            vst1q_u8(ptr.add(12), vqtbl1q_u8(vreinterpretq_u8_u32(words[1]), pack));
            return 24;
        }
        // Any other mix (CJK text with its spaces and punctuation): each half packed
        // by the shuffle its lengths choose. Stores at 0 and at most 12.
        let ascii = lane_bits(below_0x80);
        let two = lane_bits(below_0x800);
        let first = (ascii & 0xF | (two & 0xF) << 4) as usize;
        let second = (ascii >> 4 & 0xF | (two >> 4 & 0xF) << 4) as usize;
        let at = UTF8_WORD_PACKS.lengths[first] as usize;
        let first_pack = vld1q_u8(UTF8_WORD_PACKS.shuffles[first].as_ptr());
        let second_pack = vld1q_u8(UTF8_WORD_PACKS.shuffles[second].as_ptr());
        vst1q_u8(ptr, vqtbl1q_u8(vreinterpretq_u8_u32(words[0]), first_pack));
        vst1q_u8(ptr.add(at), vqtbl1q_u8(vreinterpretq_u8_u32(words[1]), second_pack));
        at + UTF8_WORD_PACKS.lengths[second] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::super::scalar;

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
