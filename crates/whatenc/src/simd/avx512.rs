//! UTF-8 validation with AVX-512BW and AVX-512VBMI, alone or fused with a copy,
//! chosen at run time (with `std`) where the CPU has them. The twins are [`super::scalar::utf8_valid_up_to`]
//! and [`super::scalar::copy_valid_utf8_prefix`], and the tests compare them.
//!
//! The check, after Keiser and Lemire's lookup method, looks at every byte together
//! with the byte before it: three tables (`vpermb` lookups), indexed by the previous
//! byte's high nibble, its low nibble and the byte's own high nibble, give for each of eight
//! error kinds whether the pair can be an instance of it (each kind is a product of a
//! set of each nibble, so the AND of the three lookups is exact). Seven kinds are
//! errors outright; the eighth, "two continuation bytes in a row", is an error exactly
//! when the byte is not the third or fourth byte of a sequence, which the bytes two
//! and three back tell. A byte cut off by the end of the input meets the ASCII zero
//! padding after it and shows as one of these errors there.
//!
//! The bytes before a block are read from memory, never carried in a register; the
//! first block's are its own moved up by `vpermb` (zeros before the input), and the
//! tail's masked loads keep zeros after the input. The main loop is the
//! AVX2 kernel's ([`super::utf8_check::windows`], see [`super::avx2`]), with chunks of
//! one block, sparse steps of two and dense steps of eight (512 bytes), which it
//! turns to where half the chunks of a window are not ASCII (its dense steps cost
//! least against the check of chunks; fifteen in sixteen on AMD's Zen 5, as the other
//! kernels). The validation fused with a copy takes steps
//! of four blocks, checked unless they are ASCII after three ASCII bytes.

use super::utf8_check::{
    COPY_STEP, Checks, DENSE, TWO_CONTINUATIONS, Windowed, ends_inside, prefetched_through, table, windows,
};
use core::arch::x86_64::{
    __m512i, _mm512_loadu_epi8, _mm512_maskz_loadu_epi8, _mm512_maskz_permutexvar_epi8, _mm512_movepi8_mask,
    _mm512_or_si512, _mm512_permutexvar_epi8, _mm512_set1_epi8, _mm512_srli_epi16, _mm512_storeu_epi8, _mm512_sub_epi8,
    _mm512_subs_epu8, _mm512_ternarylogic_epi32, _mm512_test_epi8_mask,
};

/// Whether these kernels run: the cap on the tier ([`crate::tier`]) allows AVX-512,
/// and the CPU has AVX-512BW and AVX-512VBMI (`std` caches the answer; without
/// `std`, only when the build targets them).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::allows(crate::tier::Tier::Avx512) && cpu_has_all()
}

/// Whether the CPU has the features, whatever the cap on the tier.
#[inline(always)]
#[allow(clippy::eq_op, clippy::nonminimal_bool, reason = "without `std` both are `cfg!` constants")]
pub(crate) fn cpu_has_all() -> bool {
    super::cpu_has!("avx512bw") && super::cpu_has!("avx512vbmi")
}

const BLOCK: usize = 64;

// The lookup tables for the nibbles (`utf8_check::table`), 64 entries each, indexed
// by six bits of the byte. `vpermb` reads only those six bits of each index, so the
// bits that the 16-bit shift brings in from the neighbouring byte, and the high bits
// of a byte, need no mask.
static PREV_HIGH: [u8; BLOCK] = table(0);
static PREV_LOW: [u8; BLOCK] = table(1);
static OWN_HIGH: [u8; BLOCK] = table(2);

#[inline(always)]
unsafe fn load(p: *const u8) -> __m512i {
    // SAFETY: the caller makes the 64 bytes at `p` readable.
    unsafe { _mm512_loadu_epi8(p.cast()) }
}

/// The block of 64 bytes `bytes`, loaded from `p`, mapped to the errors each byte
/// shows (nonzero bytes where there are errors); the three bytes before `p` must be
/// readable too (the end of the previous block, or zeros).
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi")]
pub(super) unsafe fn block_errors(p: *const u8, bytes: __m512i) -> __m512i {
    // SAFETY: the caller makes `p - 3 .. p + 64` readable. The CPU has AVX512BW and AVX512VBMI: this
    // function enables them, and its callers checked.
    let (prev1, prev2, prev3) = unsafe { (load(p.sub(1)), load(p.sub(2)), load(p.sub(3))) };
    errors_of(bytes, prev1, prev2, prev3)
}

/// The errors of the block `bytes` (as [`block_errors`]), given the bytes one, two and
/// three before each of its bytes.
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi")]
fn errors_of(bytes: __m512i, prev1: __m512i, prev2: __m512i, prev3: __m512i) -> __m512i {
    // SAFETY: the tables are 64 bytes each. The CPU has AVX512BW, AVX512VBMI: this function enables
    // it, and its callers checked.
    let (prev_high_t, prev_low_t, own_high_t) =
        unsafe { (load(PREV_HIGH.as_ptr()), load(PREV_LOW.as_ptr()), load(OWN_HIGH.as_ptr())) };
    // The error kinds each byte may show: the AND of the three lookups.
    let kinds = _mm512_ternarylogic_epi32::<0x80>(
        _mm512_permutexvar_epi8(_mm512_srli_epi16::<2>(prev1), prev_high_t),
        _mm512_permutexvar_epi8(prev1, prev_low_t),
        _mm512_permutexvar_epi8(_mm512_srli_epi16::<2>(bytes), own_high_t),
    );
    // The third and fourth bytes of sequences, where two continuation bytes are due:
    // the byte two back is E0 or more, or the one three back F0 or more, which the
    // subtractions (saturating at zero) turn into a set sign bit.
    let inside = _mm512_or_si512(
        _mm512_subs_epu8(prev2, _mm512_set1_epi8(0x60)),
        _mm512_subs_epu8(prev3, _mm512_set1_epi8(0x70)),
    );
    // kinds ^ (inside & 0x80): TWO_CONTINUATIONS, the sign bit, is an error exactly
    // where it is not due.
    _mm512_ternarylogic_epi32::<0x78>(kinds, inside, _mm512_set1_epi8(TWO_CONTINUATIONS as i8))
}

/// The errors of a block that starts the input (as [`block_errors`]), with zeros
/// before it: the bytes before each are its own, moved up one, two and three lanes by
/// `vpermb` with zeros in the first lanes, not read back from a copy in memory
/// (a store that a wider, offset load waited for, at the start of each call).
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi")]
pub(super) fn first_block_errors(bytes: __m512i) -> __m512i {
    // SAFETY: `LANES` has 64 bytes. The CPU has AVX512BW and AVX512VBMI: this function
    // enables them, and its callers checked.
    let lanes = unsafe { load(LANES.as_ptr()) };
    let before =
        |k: u8| _mm512_maskz_permutexvar_epi8(u64::MAX << k, _mm512_sub_epi8(lanes, _mm512_set1_epi8(k as i8)), bytes);
    errors_of(bytes, before(1), before(2), before(3))
}

/// The lane numbers 0 to 63.
pub(super) static LANES: [u8; BLOCK] = {
    let mut lanes = [0; BLOCK];
    let mut i = 0;
    while i < BLOCK {
        lanes[i] = i as u8;
        i += 1;
    }
    lanes
};

/// The first `n` lanes (all for `n >= 64`).
#[inline(always)]
pub(super) fn lanes_below(n: usize) -> u64 {
    if n >= BLOCK { u64::MAX } else { (1 << n) - 1 }
}

/// The bytes of a block that show errors in its [`block_errors`]: a bit each.
#[inline]
#[target_feature(enable = "avx512bw")]
fn error_bits(errors: __m512i) -> u64 {
    _mm512_test_epi8_mask(errors, errors)
}

/// Whether a vector of [`block_errors`] shows any.
#[inline]
#[target_feature(enable = "avx512bw")]
pub(super) fn any(errors: __m512i) -> bool {
    error_bits(errors) != 0
}

/// Where the first error at or after `at` shows, when `windows` found one in the
/// window or step that starts at `at` (`at >= 3`): as `utf8_check`'s `error_after`,
/// with blocks of 64 bytes.
#[target_feature(enable = "avx512bw,avx512vbmi")]
fn error_after(src: &[u8], at: usize) -> usize {
    let mut pos = at;
    while pos >= 3 && pos + BLOCK <= src.len() {
        // SAFETY: `pos - 3 .. pos + 64` is inside `src`. The CPU has AVX512BW and
        // AVX512VBMI: this function enables them, and its callers checked.
        let errors = unsafe {
            let p = src.as_ptr().add(pos);
            error_bits(block_errors(p, load(p)))
        };
        if errors != 0 {
            return pos + errors.trailing_zeros() as usize;
        }
        pos += BLOCK;
    }
    at
}

/// ASCII dense steps in a row (1 KiB) that switch back to the windows.
const RUN: usize = 2;

/// One step of the main loop: the `N` blocks at `pos`, checked unless they are ASCII
/// after ASCII, copied to `dst` when `COPY`. `Err(at)` when they show an error:
/// with `COPY`, at the first byte that shows one, with the blocks up to its own
/// copied (as `utf8_check`'s `first_error` places it); else at `pos`. Otherwise whether they had to be checked. `open` is nonzero when one of the three
/// bytes before `pos` is not ASCII (their sign bits), and is updated.
///
/// # Safety
/// `pos - 3 .. pos + N * 64` must be inside `src`, and with `COPY` inside `dst` too;
/// the CPU must have AVX512BW and AVX512VBMI.
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi")]
unsafe fn step<const N: usize, const COPY: bool>(
    src: *const u8,
    dst: *mut u8,
    pos: usize,
    open: &mut u64,
) -> Result<bool, usize> {
    // SAFETY: the caller makes `pos - 3 .. pos + N * 64` readable.
    let p = unsafe { src.add(pos) };
    let mut blocks = [_mm512_set1_epi8(0); N];
    let mut all = _mm512_set1_epi8(0);
    for (i, block) in blocks.iter_mut().enumerate() {
        // SAFETY: as above; the CPU has the features, the caller's precondition.
        *block = unsafe { load(p.add(i * BLOCK)) };
        all = _mm512_or_si512(all, *block);
    }
    // One test for both: the sign bits, and the three bytes before.
    let checked = (_mm512_movepi8_mask(all) | *open) != 0;
    if checked {
        let mut errors = _mm512_set1_epi8(0);
        for (i, &block) in blocks.iter().enumerate() {
            // SAFETY: as above.
            errors = _mm512_or_si512(errors, unsafe { block_errors(p.add(i * BLOCK), block) });
        }
        if any(errors) {
            if !COPY {
                return Err(pos);
            }
            for (i, &block) in blocks.iter().enumerate() {
                let at = pos + i * BLOCK;
                // SAFETY: as above, and `dst` has room for `pos + N * 64` bytes.
                let errors = unsafe {
                    _mm512_storeu_epi8(dst.add(at).cast(), block);
                    error_bits(block_errors(src.add(at), block))
                };
                if errors != 0 {
                    return Err(at + errors.trailing_zeros() as usize);
                }
            }
        }
        *open = _mm512_movepi8_mask(blocks[N - 1]) >> (BLOCK - 3);
    }
    if COPY {
        for (i, &block) in blocks.iter().enumerate() {
            // SAFETY: the caller makes `pos .. pos + N * 64` writable in `dst`.
            unsafe { _mm512_storeu_epi8(dst.add(pos + i * BLOCK).cast(), block) };
        }
    }
    Ok(checked)
}

/// Per byte of a block, the largest value that leaves no sequence open at the end of
/// it: as `utf8_check`'s table, 64 bytes.
static CLOSED: [u8; BLOCK] = {
    let mut max = [0xFF; BLOCK];
    max[BLOCK - 3] = 0xEF;
    max[BLOCK - 2] = 0xDF;
    max[BLOCK - 1] = 0xBF;
    max
};

/// The kernel of [`check`] without the copy, for [`windows`] (chunks of one block):
/// made only inside [`check`], whose caller guarantees the CPU's instructions.
/// With a `distance` (where `x86_64::avx512_check_prefetch_pays`), each chunk read
/// and each dense step ask for the lines that far ahead: a distance known at run
/// time, not a second kernel, which had made [`step`] a call of its own (no longer
/// inlined) and cost the texts, which do not prefetch, 30% (`AMD EPYC` Zen 5, ar.txt
/// 61 → 41 GB/s in cache).
struct Kernel {
    /// Its [`Windowed::dense_at`]: [`DENSE_AT`], or [`DENSE_AT_ZEN5`] on AMD's Zen 5.
    dense_at: usize,
    /// How far ahead the prefetch asks, or 0 for none.
    distance: usize,
}

/// The kernel's dense mode from half the chunks: its dense steps cost least against
/// its checks of chunks (at fifteen in sixteen, as the other kernels, ar.html,
/// he.html, ko.html and ja.html took 12–23% longer; `AMD EPYC` Zen 4).
const DENSE_AT: usize = 8;

/// The kernel's dense mode on `AMD EPYC` Zen 5 and later (AMD's family 1Ah,
/// `x86_64::amd_family_1ah_on`): from fifteen chunks in sixteen, as the other
/// kernels. With half, pages that mix runs of markup and text came from memory
/// slower than with the AVX2 kernel (ru.html 16.2 GB/s against 25.5). Rotating,
/// validation, GB/s, half → fifteen: ru.html 15.6 → 22.4, vi.html 19.0 → 29.4,
/// th.html 19.5 → 28.5, zh_tw.html 28.9 → 38.1, zh_cn.html 30.2 → 37.3, tr.html
/// 33.8 → 41.0, cs.html 29.7 → 36.0, fr.html 25.0 → 29.4, ar.html 28.0 → 31.1; the
/// texts alike (ru.txt 59.2 → 58.6, ja.txt 54.9 → 55.1), but de.txt 59.9 → 52.8 and
/// ko.html 54.8 → 52.3.
const DENSE_AT_ZEN5: usize = 15;

impl Windowed for Kernel {
    type Errors = __m512i;
    const CHUNK: usize = BLOCK;
    const DENSE_STEP: usize = DENSE * BLOCK;
    // Sparse steps of two blocks, one branch for 128 bytes (with steps of one block,
    // en.txt took 0.81 µs in cache, against 0.70; `AMD EPYC` Zen 4).
    const SPARSE_STEP: usize = 2;
    // Not sampled (see `utf8_check::DENSE_SAMPLE`): the pages whose dense mode a
    // sample turns back went slower in the maps than in this kernel's dense steps.
    // Validation in cache, whatenc / simdutf8, medians of five, `AMD EPYC` Zen 5, a
    // sample every 8 KiB against none: ar.html 1.58 → 1.45, ja.html 1.60 → 1.42,
    // ko.html 1.77 → 1.50 (every 4 KiB alike).
    const DENSE_SAMPLE: usize = 0;

    #[inline(always)]
    fn dense_at(&self) -> usize {
        self.dense_at
    }

    #[inline(always)]
    unsafe fn chunk_ascii(&self, src: &[u8], pos: usize) -> bool {
        if self.distance != 0 {
            super::x86_64::prefetch_ahead_unclamped(src, pos, self.distance, 1);
        }
        // SAFETY: the trait's contract: the block at `pos` is inside `src`, and the
        // CPU has AVX512BW.
        unsafe { _mm512_movepi8_mask(load(src.as_ptr().add(pos))) == 0 }
    }

    #[inline(always)]
    unsafe fn pair_ascii(&self, src: &[u8], pos: usize) -> bool {
        if self.distance != 0 {
            super::x86_64::prefetch_ahead_unclamped(src, pos, self.distance, 2);
        }
        // SAFETY: the trait's contract: the two blocks at `pos` are inside `src`, and
        // the CPU has AVX512BW.
        unsafe {
            _mm512_movepi8_mask(_mm512_or_si512(load(src.as_ptr().add(pos)), load(src.as_ptr().add(pos + BLOCK)))) == 0
        }
    }

    #[inline(always)]
    unsafe fn check_chunk(&self, src: &[u8], pos: usize, errors: &mut __m512i) -> bool {
        // SAFETY: the trait's contract: `pos - 3 .. pos + 64` is inside `src`, and the
        // CPU has AVX512BW and AVX512VBMI; `CLOSED` has 64 bytes.
        unsafe {
            let p = src.as_ptr().add(pos);
            let bytes = load(p);
            *errors = _mm512_or_si512(*errors, block_errors(p, bytes));
            any(_mm512_subs_epu8(bytes, load(CLOSED.as_ptr())))
        }
    }

    #[inline(always)]
    fn no_errors(&self, errors: __m512i) -> bool {
        // SAFETY: the CPU has AVX512BW (see the struct's doc).
        unsafe { !any(errors) }
    }

    #[inline(always)]
    fn no_errors_yet(&self) -> __m512i {
        // SAFETY: as above.
        unsafe { _mm512_set1_epi8(0) }
    }

    #[inline(always)]
    unsafe fn dense_step(&mut self, src: &[u8], pos: usize, open: bool) -> Option<(bool, bool)> {
        if self.distance != 0 {
            super::x86_64::prefetch_ahead_unclamped(src, pos, self.distance, DENSE);
        }
        let mut open = u64::from(open);
        // SAFETY: the trait's contract: `pos - 3 .. pos + DENSE * 64` is inside `src`,
        // and the CPU has AVX512BW and AVX512VBMI; no copy.
        let checked = unsafe { step::<DENSE, false>(src.as_ptr(), core::ptr::null_mut(), pos, &mut open) }.ok()?;
        Some((checked, open != 0))
    }
}

/// Checks `src`, copying it to `dst` as it goes when `COPY` (`dst` then has room for
/// `src.len()` bytes). `Ok` when it is all valid; otherwise `Err(at)` where `src[..at]`
/// is valid UTF-8 but for, possibly, a sequence cut at `at` (no error shows before
/// `at`), and `src[..at]` has been copied.
#[target_feature(enable = "avx512bw,avx512vbmi")]
unsafe fn check<const COPY: bool>(src: &[u8], dst: *mut u8) -> Result<(), usize> {
    let len = src.len();
    let base = src.as_ptr();
    let mut pos = 0;
    // Whether the last three bytes before `pos` are ASCII.
    let mut ascii_before = true;
    if len >= BLOCK {
        // SAFETY: `src` holds 64 bytes or more. The CPU has AVX512BW and AVX512VBMI: this
        // function enables them, and its callers checked.
        let bytes = unsafe { load(base) };
        let high = _mm512_movepi8_mask(bytes);
        if COPY {
            // SAFETY: `dst` has room for `len >= 64` bytes. The CPU has AVX512BW and AVX512VBMI: this
            // function enables them, and its callers checked.
            unsafe { _mm512_storeu_epi8(dst.cast(), bytes) };
        }
        if high != 0 {
            let errors = error_bits(first_block_errors(bytes));
            if errors != 0 {
                // At the first byte that shows an error, as `step` places it.
                return Err(errors.trailing_zeros() as usize);
            }
        }
        ascii_before = high >> (BLOCK - 3) == 0;
        pos = BLOCK;
        let mut open = u64::from(!ascii_before);
        // With the copy, steps of four blocks: it measured no faster in two modes of
        // steps, nor as windows over slices each then copied (BENCHMARKS.md, session 20).
        while COPY && pos + COPY_STEP * BLOCK <= len {
            // SAFETY: `pos - 3 .. pos + 256` is inside `src` (pos >= 64), and `dst` has
            // room for `len` bytes. The CPU has AVX512BW and AVX512VBMI: this function
            // enables them, and its callers checked.
            unsafe { step::<COPY_STEP, COPY>(base, dst, pos, &mut open) }?;
            pos += COPY_STEP * BLOCK;
        }
        if !COPY {
            let dense_at = if super::x86_64::amd_family_1ah_on() { DENSE_AT_ZEN5 } else { DENSE_AT };
            let distance = if super::x86_64::avx512_check_prefetch_pays(len) {
                super::x86_64::check_prefetch_distance()
            } else {
                0
            };
            // With the prefetch to `distance` bytes from the end, where its lines all
            // lie inside `src` (see `utf8_check::prefetched_through`); then the rest
            // without (one pass where it does not prefetch).
            let mut kernel = Kernel { dense_at, distance };
            let mut through = prefetched_through(len, distance, pos);
            loop {
                // SAFETY: `pos >= BLOCK >= 3` (it only grows). The CPU has AVX512BW and
                // AVX512VBMI: this function enables them, and its callers checked.
                let (at, ends_open) =
                    unsafe { windows(&mut kernel, &src[..through], pos, RUN) }.map_err(|at| error_after(src, at))?;
                (pos, open) = (at, u64::from(ends_open));
                if through == len {
                    break;
                }
                (kernel.distance, through) = (0, len);
            }
        }
        ascii_before = open == 0;
        while pos + BLOCK <= len {
            // SAFETY: `pos - 3 .. pos + 64` is inside `src` (pos >= 64). The CPU has AVX512BW and
            // AVX512VBMI: this function enables them, and its callers checked.
            let p = unsafe { base.add(pos) };
            let bytes = unsafe { load(p) };
            let high = _mm512_movepi8_mask(bytes);
            if COPY {
                // SAFETY: `dst` has room for `len` bytes. The CPU has AVX512BW and AVX512VBMI: this
                // function enables them, and its callers checked.
                unsafe { _mm512_storeu_epi8(dst.add(pos).cast(), bytes) };
            }
            if high != 0 || !ascii_before {
                // SAFETY: as above. The CPU has AVX512BW and AVX512VBMI: this function enables them, and
                // its callers checked.
                let errors = error_bits(unsafe { block_errors(p, bytes) });
                if errors != 0 {
                    return Err(pos + errors.trailing_zeros() as usize);
                }
                ascii_before = high >> (BLOCK - 3) == 0;
            }
            pos += BLOCK;
        }
    }
    if pos < len {
        // The tail, shorter than a block, loaded with zeros after it (masked loads read
        // only the lanes they keep): a sequence cut by the end meets them and shows as
        // an error.
        let rest = len - pos;
        let p = base.wrapping_add(pos);
        // SAFETY: the lanes loaded are `src[pos..]`. The CPU has AVX512BW and AVX512VBMI:
        // this function enables them, and its callers checked.
        let bytes = unsafe { _mm512_maskz_loadu_epi8(lanes_below(rest), p.cast()) };
        let high = _mm512_movepi8_mask(bytes);
        if high != 0 || !ascii_before {
            let errors = if pos == 0 {
                first_block_errors(bytes)
            } else {
                // The bytes before each, from memory: `pos >= 64`, and each load keeps
                // the lanes from `k` bytes before `pos` to the end.
                // SAFETY: the lanes loaded are `src[pos - k..]`. The CPU has AVX512BW and
                // AVX512VBMI: this function enables them, and its callers checked.
                let before =
                    |k: usize| unsafe { _mm512_maskz_loadu_epi8(lanes_below(rest + k), p.wrapping_sub(k).cast()) };
                errors_of(bytes, before(1), before(2), before(3))
            };
            if any(errors) {
                return Err(pos);
            }
        }
        if COPY {
            // SAFETY: `dst` has room for `len` bytes, `src` holds them. The CPU has AVX512BW and
            // AVX512VBMI: this function enables them, and its callers checked.
            unsafe { core::ptr::copy_nonoverlapping(base.add(pos), dst.add(pos), len - pos) };
        }
    } else if !ascii_before {
        // Ends on a block boundary: the last sequence must be whole.
        if ends_inside(src, len) {
            return Err(len);
        }
    }
    Ok(())
}

/// The check, alone and fused with the copy, and what is made of them; their
/// methods need the CPU to have AVX-512BW and AVX-512VBMI ([`cpu_has_all`]).
pub(super) const CHECKS: Checks = Checks { alone: check::<false>, copying: check::<true> };

#[cfg(test)]
mod tests {
    use super::super::utf8_check::tests::{
        long_sequences, long_texts, mode_switches, random_inputs, run_texts, same_as_twins, short_sequences,
        window_edges, with_and_without_the_prefetch,
    };
    use super::*;

    /// Compares the kernels with their twins on `bytes` (the fused copy too when
    /// `copy`).
    fn same(bytes: &[u8], copy: bool) {
        assert!(available(), "the callers check the CPU first");
        same_as_twins(bytes, copy, &CHECKS);
    }

    /// Every byte pair at the offsets around the first block and the block boundaries
    /// of the first group of four.
    #[test]
    fn short_sequences_at_every_offset() {
        if !available() {
            return;
        }
        let offsets = (0..=70).chain(125..=131).chain(189..=195).chain(253..=259).chain(317..=323);
        short_sequences(offsets, 70, &[64, 96, 128, 135, 192], same);
    }

    #[test]
    fn long_sequences_at_boundaries() {
        if !available() {
            return;
        }
        long_sequences(&[0, 29, 61, 62, 63, 190, 254, 317, 318, 319], 64, 128, same);
    }

    #[test]
    fn random_inputs_at_every_alignment() {
        if !available() {
            return;
        }
        random_inputs(0x9E37_79B9_7F4A_7C15, 1_500_000, 140, same);
    }

    #[test]
    fn long_texts_with_one_error_anywhere() {
        if !available() {
            return;
        }
        long_texts(42, &[128, 191, 192, 256, 320, 383, 384, 576, 577], 70, same);
    }

    /// Switches between the sparse and the dense mode of the main loop, with errors
    /// and cut characters at every position around them.
    #[test]
    fn mode_switches_with_an_error_anywhere() {
        if !available() {
            return;
        }
        mode_switches(same);
    }

    /// The maps of the windows at their edges, and texts of runs of every density.
    #[test]
    fn window_edges_and_run_texts() {
        if !available() {
            return;
        }
        window_edges(BLOCK, same);
        run_texts(0x51A7_2D0C_9E44_B3F1, 600, same);
    }

    /// The check with the prefetch and without (see `with_and_without_the_prefetch`;
    /// `x86_64::avx512_check_prefetch_pays` follows its answer in the tests).
    #[test]
    fn avx512_checks_with_and_without_the_prefetch() {
        if !available() {
            return;
        }
        with_and_without_the_prefetch(same);
    }

    /// The mode switches, the windows' edges, texts of runs and random inputs with
    /// each of the dense mode's thresholds ([`DENSE_AT`] and [`DENSE_AT_ZEN5`],
    /// chosen by the CPU's family, set either way here whatever this CPU's).
    #[test]
    fn each_dense_threshold() {
        if !available() {
            return;
        }
        for zen5 in [true, false] {
            super::super::x86_64::set_amd_family_1ah_on(zen5);
            mode_switches(same);
            window_edges(BLOCK, same);
            run_texts(0x0D0E_05E0 ^ u64::from(zen5), 300, same);
            random_inputs(0x0DE0_5E15 ^ u64::from(zen5), 4_000, 800, same);
        }
    }
}
