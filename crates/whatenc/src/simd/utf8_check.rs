//! The UTF-8 check of the AVX2 and SSSE3 kernels, written once over [`Bytes`] (a
//! vector of 32 or 16 bytes): the lookup method of Keiser and Lemire ("Validating
//! UTF-8 in less than one instruction per byte") with the error kinds of
//! [`super::avx512`]. The algorithm, the two modes of the main loop and the fused
//! copy are described in [`super::avx2`]'s module doc; the SSSE3 kernel takes steps of
//! the same size in bytes (twice the blocks).
//!
//! Everything here is `#[inline(always)]`, so that it is compiled into each ISA's
//! `#[target_feature]` entry point (`check` in [`super::avx2`] and [`super::ssse3`])
//! with that ISA's instructions.

use core::marker::PhantomData;

use super::avx512::{DENSE, KINDS, ModeStep, SPARSE, TWO_CONTINUATIONS, two_modes};

/// A vector of [`Bytes::LEN`] bytes, with the operations the check needs.
///
/// # Safety
/// Every method needs the CPU to have the vector's instruction set (the callers run
/// inside a `#[target_feature]` function that enables it); the pointer methods need
/// `LEN` readable (or writable) bytes at the pointer.
pub(super) trait Bytes: Copy {
    /// The bytes in a vector.
    const LEN: usize;
    /// Loads `LEN` bytes from `p`.
    unsafe fn load(p: *const u8) -> Self;
    /// Stores the vector as `LEN` bytes at `p`.
    unsafe fn store(self, p: *mut u8);
    /// All zeros.
    unsafe fn zero() -> Self;
    /// `byte` in every lane.
    unsafe fn splat(byte: u8) -> Self;
    /// Bitwise OR.
    unsafe fn or(self, other: Self) -> Self;
    /// Bitwise AND.
    unsafe fn and(self, other: Self) -> Self;
    /// Bitwise XOR.
    unsafe fn xor(self, other: Self) -> Self;
    /// Per byte, `self - other` saturating at zero.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// Per byte, its high nibble.
    unsafe fn high_nibbles(self) -> Self;
    /// Per byte of `indexes` (each below 16), the entry of the 16-entry table `self`
    /// (`pshufb`: each 128-bit lane looks up in its own copy of the table).
    unsafe fn lookup(self, indexes: Self) -> Self;
    /// The sign bits of the bytes, one bit each.
    unsafe fn sign_bits(self) -> u32;
    /// Whether every byte is zero.
    unsafe fn is_zero(self) -> bool;
}

/// The lookup table for one nibble (0: previous high, 1: previous low, 2: own high),
/// 16 entries, twice (for the two 128-bit lanes of an AVX2 vector; an SSSE3 one
/// loads the first 16).
const fn table(which: usize) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        let nibble = i % 16;
        let mut k = 0;
        while k < KINDS.len() {
            let set = match which {
                0 => KINDS[k].1,
                1 => KINDS[k].2,
                _ => KINDS[k].3,
            };
            if (set >> nibble) & 1 != 0 {
                out[i] |= KINDS[k].0;
            }
            k += 1;
        }
        i += 1;
    }
    out
}

static PREV_HIGH: [u8; 32] = table(0);
static PREV_LOW: [u8; 32] = table(1);
static OWN_HIGH: [u8; 32] = table(2);

/// Per byte of a block, the largest value that leaves no sequence open at the end of
/// the block: any byte but the last three; the third last below F0, the second last
/// below E0, the last below C0. A saturating subtraction of these is zero exactly
/// when the block ends on a character boundary (or an error that its check finds).
/// A vector of `LEN` bytes loads the last `LEN`.
static CLOSED: [u8; 32] = {
    let mut max = [0xFF; 32];
    max[29] = 0xEF;
    max[30] = 0xDF;
    max[31] = 0xBF;
    max
};

/// The most bytes a vector has: the size of the zero-padded copies.
const MAX_LEN: usize = 32;

/// Whether the block `bytes` ends on a character boundary (or on an error its own
/// check finds): see [`CLOSED`].
///
/// # Safety
/// The CPU must have `V`'s instructions.
#[inline(always)]
unsafe fn closed<V: Bytes>(bytes: V) -> bool {
    // SAFETY: `CLOSED` has 32 >= `V::LEN` bytes, read from its end; the CPU has `V`'s
    // instructions (the caller's precondition).
    unsafe { bytes.saturating_sub(V::load(CLOSED.as_ptr().add(MAX_LEN - V::LEN))).is_zero() }
}

/// The block `bytes`, loaded from `p`, mapped to the errors each byte shows (nonzero
/// bytes where there are errors).
///
/// # Safety
/// The three bytes before `p` must be readable too (the end of the previous block,
/// or zeros), and the CPU must have `V`'s instructions.
#[inline(always)]
unsafe fn block_errors<V: Bytes>(p: *const u8, bytes: V) -> V {
    // SAFETY: the caller makes `p - 3 .. p + LEN` readable, and the CPU has `V`'s
    // instructions; the tables have 32 >= `V::LEN` bytes.
    unsafe {
        let (prev1, prev2, prev3) = (V::load(p.sub(1)), V::load(p.sub(2)), V::load(p.sub(3)));
        let nibble = V::splat(0x0F);
        // The error kinds each byte may show: the AND of the three lookups.
        let kinds = V::load(PREV_HIGH.as_ptr())
            .lookup(prev1.high_nibbles())
            .and(V::load(PREV_LOW.as_ptr()).lookup(prev1.and(nibble)))
            .and(V::load(OWN_HIGH.as_ptr()).lookup(bytes.high_nibbles()));
        // The third and fourth bytes of sequences, where two continuation bytes are
        // due: the byte two back is E0 or more, or the one three back F0 or more,
        // which the subtractions (saturating at zero) turn into a set sign bit.
        let inside = prev2.saturating_sub(V::splat(0x60)).or(prev3.saturating_sub(V::splat(0x70)));
        // TWO_CONTINUATIONS, the sign bit, is an error exactly where it is not due.
        kinds.xor(inside.and(V::splat(TWO_CONTINUATIONS)))
    }
}

/// One step of the main loop: the `N` blocks at `pos`, checked unless they are ASCII
/// with no sequence open before them, copied to `dst` when `COPY`. `None` when they
/// show an error; otherwise whether they had to be checked. Updates `open`.
///
/// # Safety
/// `pos - 3 .. pos + N * LEN` must be inside `src`, and with `COPY` inside `dst` too;
/// the CPU must have `V`'s instructions.
#[inline(always)]
unsafe fn step<V: Bytes, const N: usize, const COPY: bool>(
    src: *const u8,
    dst: *mut u8,
    pos: usize,
    open: &mut u32,
) -> Option<bool> {
    // SAFETY: the caller makes `pos - 3 .. pos + N * LEN` readable (and writable in
    // `dst` with `COPY`), and the CPU has `V`'s instructions.
    unsafe {
        let p = src.add(pos);
        let mut blocks = [V::zero(); N];
        let mut all = V::zero();
        for (i, block) in blocks.iter_mut().enumerate() {
            *block = V::load(p.add(i * V::LEN));
            all = all.or(*block);
        }
        // One test for both: the sign bits, and whether a sequence is open before.
        let checked = (all.sign_bits() | *open) != 0;
        if checked {
            let mut errors = V::zero();
            for (i, &block) in blocks.iter().enumerate() {
                errors = errors.or(block_errors(p.add(i * V::LEN), block));
            }
            if !errors.is_zero() {
                return None;
            }
            *open = u32::from(!closed(blocks[N - 1]));
        }
        if COPY {
            for (i, &block) in blocks.iter().enumerate() {
                block.store(dst.add(pos + i * V::LEN));
            }
        }
        Some(checked)
    }
}

/// The steps of [`check`] without the copy, for [`two_modes`]: made only inside
/// [`check`], whose caller guarantees the CPU's instructions.
struct Stepper<'a, V, const SPARSE_N: usize, const DENSE_N: usize> {
    src: &'a [u8],
    open: &'a mut u32,
    vector: PhantomData<V>,
}

impl<V: Bytes, const SPARSE_N: usize, const DENSE_N: usize> ModeStep for Stepper<'_, V, SPARSE_N, DENSE_N> {
    #[inline(always)]
    fn step(&mut self, pos: usize, dense: bool) -> Option<bool> {
        let block = V::LEN;
        super::x86_64::prefetch_ahead(self.src, pos, if dense { DENSE_N } else { SPARSE_N } * block / 64);
        let (base, open) = (self.src.as_ptr(), &mut *self.open);
        // SAFETY: `two_modes` calls this at `pos` with a dense step left (`pos + DENSE_N
        // * LEN <= len`), and `pos >= LEN` (so the three bytes before are inside
        // `src`); no copy. The CPU has `V`'s instructions: a `Stepper` is made only by
        // `check`, whose caller guarantees them.
        unsafe {
            if dense {
                step::<V, DENSE_N, false>(base, core::ptr::null_mut(), pos, open)
            } else {
                step::<V, SPARSE_N, false>(base, core::ptr::null_mut(), pos, open)
            }
        }
    }
}

/// The steps of [`check`], in blocks of `V::LEN` bytes: the sparse and the dense
/// mode's, the fused copy's, and the ASCII dense steps in a row that switch back to
/// the sparse mode.
pub(super) struct Steps<const SPARSE_N: usize, const DENSE_N: usize, const COPY_N: usize, const RUN: usize>;

/// Checks `src`, copying it to `dst` as it goes when `COPY` (`dst` then has room for
/// `src.len()` bytes), with the steps `SPARSE_N`, `DENSE_N` and `COPY_N` blocks long
/// and `RUN` ASCII dense steps back to sparse (see [`Steps`]). `Ok` when it is all
/// valid; otherwise `Err(at)` where `src[..at]` is valid UTF-8 but for, possibly, a
/// sequence cut at `at` (no error shows before `at`), and `src[..at]` has been copied:
/// the contract of [`super::avx512`]'s twin, which
/// [`super::avx512::valid_up_to_from`] completes.
///
/// # Safety
/// The CPU must have `V`'s instructions; with `COPY`, `dst` must have room for
/// `src.len()` bytes and not overlap `src`.
#[inline(always)]
pub(super) unsafe fn check<
    V: Bytes,
    const COPY: bool,
    const SPARSE_N: usize,
    const DENSE_N: usize,
    const COPY_N: usize,
    const RUN: usize,
>(
    _steps: Steps<SPARSE_N, DENSE_N, COPY_N, RUN>,
    src: &[u8],
    dst: *mut u8,
) -> Result<(), usize> {
    // `two_modes` keeps the ratio of its dense steps to its sparse ones.
    debug_assert_eq!(DENSE_N * SPARSE, DENSE * SPARSE_N);
    let block = V::LEN;
    let len = src.len();
    let base = src.as_ptr();
    // The first block and the tail go through this: three bytes before, a block after.
    let mut padded = [0u8; 3 + MAX_LEN];
    let mut pos = 0;
    // Nonzero when a sequence is left open before `pos`.
    let mut open = 0u32;
    if len >= block {
        padded[3..3 + block].copy_from_slice(&src[..block]);
        // SAFETY (the block below): `padded` holds the block and three zeros before
        // it; `dst` has room for `len >= LEN` bytes with `COPY`; the CPU has `V`'s
        // instructions (the caller's precondition).
        unsafe {
            let bytes = V::load(padded.as_ptr().add(3));
            if bytes.sign_bits() != 0 {
                if !block_errors(padded.as_ptr().add(3), bytes).is_zero() {
                    return Err(0);
                }
                open = u32::from(!closed(bytes));
            }
            if COPY {
                bytes.store(dst);
            }
        }
        pos = block;
        // With the copy, which measured no faster in two modes, one step size.
        while COPY && pos + COPY_N * block <= len {
            super::x86_64::prefetch_ahead(src, pos, COPY_N * block / 64);
            // SAFETY: `pos - 3 .. pos + COPY_N * LEN` is inside `src` (pos >= LEN), and
            // `dst` has room for `len` bytes; the CPU has `V`'s instructions.
            if unsafe { step::<V, COPY_N, COPY>(base, dst, pos, &mut open) }.is_none() {
                return Err(pos);
            }
            pos += COPY_N * block;
        }
        if !COPY {
            // `two_modes` counts in steps of `SPARSE` of its blocks: here `SPARSE_N`
            // vectors make a sparse step.
            let stepper = Stepper::<V, SPARSE_N, DENSE_N> { src, open: &mut open, vector: PhantomData };
            pos = two_modes(pos, len, SPARSE_N * block / SPARSE, RUN, stepper)?;
        }
        while pos + block <= len {
            // SAFETY: `pos - 3 .. pos + LEN` is inside `src` (pos >= LEN), and `dst`
            // has room for `len` bytes with `COPY`; the CPU has `V`'s instructions.
            unsafe {
                let p = base.add(pos);
                let bytes = V::load(p);
                if open != 0 || bytes.sign_bits() != 0 {
                    if !block_errors(p, bytes).is_zero() {
                        return Err(pos);
                    }
                    open = u32::from(!closed(bytes));
                }
                if COPY {
                    bytes.store(dst.add(pos));
                }
            }
            pos += block;
        }
    }
    if pos < len {
        // The tail, shorter than a block, with zeros after it: a sequence cut by the
        // end meets them and shows as an error.
        let before = pos.min(3);
        padded = [0u8; 3 + MAX_LEN];
        padded[3 - before..3 + len - pos].copy_from_slice(&src[pos - before..]);
        // SAFETY: `padded` holds the tail, zeros after it and three bytes before; the
        // CPU has `V`'s instructions.
        let errors = unsafe {
            let bytes = V::load(padded.as_ptr().add(3));
            (open != 0 || bytes.sign_bits() != 0) && !block_errors(padded.as_ptr().add(3), bytes).is_zero()
        };
        if errors {
            return Err(pos);
        }
        if COPY {
            // SAFETY: `dst` has room for `len` bytes, `src` holds them, and they do not
            // overlap (the caller's precondition).
            unsafe { core::ptr::copy_nonoverlapping(base.add(pos), dst.add(pos), len - pos) };
        }
    } else if open != 0 {
        // Ends on a block boundary with a sequence open.
        return Err(len);
    }
    Ok(())
}
