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
//! The main loop takes a step of blocks at a time. When they are all ASCII, after
//! three ASCII bytes, their sign bits are all it needs; otherwise it checks them
//! all, with no branch between them, and tests the errors once. The bytes before a
//! block are read from memory (the first block and the tail go through a
//! zero-padded copy), never carried in a register. As in the AVX2 kernel
//! ([`super::avx2`]), the steps are of two sizes, in two modes: sparse steps of two
//! blocks (128 bytes) for mostly-ASCII text, dense steps of eight (512 bytes) for
//! other scripts and markup mixed with them, where a branch per 128 bytes would be
//! mispredicted often. A heat of the sparse steps that had to check ([`HEAT`] each,
//! falling by one a byte) turns the loop dense at [`HOT`]; [`RUN`] ASCII dense steps
//! in a row turn it sparse again. The validation fused with a copy keeps one mode,
//! steps of four blocks.

use core::arch::x86_64::{
    __m512i, _mm512_loadu_epi8, _mm512_movepi8_mask, _mm512_or_si512, _mm512_permutexvar_epi8, _mm512_set1_epi8,
    _mm512_srli_epi16, _mm512_storeu_epi8, _mm512_subs_epu8, _mm512_ternarylogic_epi32, _mm512_test_epi8_mask,
};
use core::mem::MaybeUninit;

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

/// A lead byte, then a byte that is not a continuation byte.
const TOO_SHORT: u8 = 1 << 0;
/// An ASCII byte, then a continuation byte.
const TOO_LONG: u8 = 1 << 1;
/// E0, then 80 to 9F.
const OVERLONG_3: u8 = 1 << 2;
/// F4 to FF, then 90 to BF.
const TOO_LARGE: u8 = 1 << 3;
/// ED, then A0 to BF.
const SURROGATE: u8 = 1 << 4;
/// C0 or C1, then a continuation byte.
const OVERLONG_2: u8 = 1 << 5;
/// F0 or F5 to FF, then 80 to 8F.
const OVERLONG_4_OR_TOO_LARGE: u8 = 1 << 6;
/// Two continuation bytes (an error unless they are inside a longer sequence); the
/// sign bit, so that it can be picked out alone.
pub(super) const TWO_CONTINUATIONS: u8 = 1 << 7;

/// Each error kind: its bit, then the sets (bit n for nibble n) of the previous byte's
/// high nibble, of its low nibble, and of the byte's high nibble that make it. The
/// AVX2 kernels build their 16-entry tables from these too.
pub(super) const KINDS: [(u8, u16, u16, u16); 8] = [
    (TOO_SHORT, 0xF000, 0xFFFF, 0xF0FF),
    (TOO_LONG, 0x00FF, 0xFFFF, 0x0F00),
    (OVERLONG_3, 1 << 0xE, 1 << 0x0, 0x0300),
    (TOO_LARGE, 1 << 0xF, 0xFFF0, 0x0E00),
    (SURROGATE, 1 << 0xE, 1 << 0xD, 0x0C00),
    (OVERLONG_2, 1 << 0xC, 0x0003, 0x0F00),
    (OVERLONG_4_OR_TOO_LARGE, 1 << 0xF, 0xFFE1, 0x0100),
    (TWO_CONTINUATIONS, 0x0F00, 0xFFFF, 0x0F00),
];

/// The lookup table for one nibble (0: previous high, 1: previous low, 2: own high),
/// as 64 entries indexed by six bits of the byte: its top six for a high nibble (the
/// byte shifted right by two), its low six for a low nibble. `vpermb` reads only those
/// six bits of each index, so the bits that the 16-bit shift brings in from the
/// neighbouring byte, and the high bits of a byte, need no mask.
const fn table(which: usize) -> [u8; BLOCK] {
    let mut out = [0u8; BLOCK];
    let mut i = 0;
    while i < BLOCK {
        let nibble = if which == 1 { i % 16 } else { i / 4 };
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
unsafe fn block_errors(p: *const u8, bytes: __m512i) -> __m512i {
    // SAFETY: the caller makes `p - 3 .. p + 64` readable. The CPU has AVX512BW and AVX512VBMI: this
    // function enables them, and its callers checked.
    let (prev1, prev2, prev3) = unsafe { (load(p.sub(1)), load(p.sub(2)), load(p.sub(3))) };
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

/// Whether a vector of [`block_errors`] shows any.
#[inline]
#[target_feature(enable = "avx512bw")]
fn any(errors: __m512i) -> bool {
    _mm512_test_epi8_mask(errors, errors) != 0
}

/// Blocks per step of the validation kernels' dense mode, checked without a branch
/// between them, so that text that switches between ASCII and not every few dozen
/// bytes (markup and words) costs one branch per step. Both modes run while a whole
/// dense step is left.
pub(super) const DENSE: usize = 8;
/// Blocks per step of the sparse mode.
pub(super) const SPARSE: usize = 2;
/// The heat of a sparse step that had to check, in sparse steps (the heat falls by
/// one a byte read), and the heat that switches to the dense mode: three such steps
/// among five in a row (or more, further apart).
const HEAT: usize = 5;
const HOT: usize = 12;
/// Blocks per step of the validation fused with a copy, in one mode.
pub(super) const COPY_STEP: usize = 4;
/// ASCII dense steps in a row (1 KiB) that switch back to the sparse mode.
const RUN: usize = 2;

/// One step of the main loop: the `N` blocks at `pos`, checked unless they are ASCII
/// after ASCII, copied to `dst` when `COPY`. `None` when they show an error;
/// otherwise whether they had to be checked. `open` is nonzero when one of the three
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
) -> Option<bool> {
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
            return None;
        }
        *open = _mm512_movepi8_mask(blocks[N - 1]) >> (BLOCK - 3);
    }
    if COPY {
        for (i, &block) in blocks.iter().enumerate() {
            // SAFETY: the caller makes `pos .. pos + N * 64` writable in `dst`.
            unsafe { _mm512_storeu_epi8(dst.add(pos + i * BLOCK).cast(), block) };
        }
    }
    Some(checked)
}

/// Checks `src`, copying it to `dst` as it goes when `COPY` (`dst` then has room for
/// `src.len()` bytes). `Ok` when it is all valid; otherwise `Err(at)` where `src[..at]`
/// is valid UTF-8 but for, possibly, a sequence cut at `at` (no error shows before
/// `at`), and `src[..at]` has been copied.
#[target_feature(enable = "avx512bw,avx512vbmi")]
unsafe fn check<const COPY: bool>(src: &[u8], dst: *mut u8) -> Result<(), usize> {
    let len = src.len();
    let base = src.as_ptr();
    // The first block and the tail go through this: three bytes before, 64 after.
    let mut padded = [0u8; 3 + BLOCK];
    let mut pos = 0;
    // Whether the last three bytes before `pos` are ASCII.
    let mut ascii_before = true;
    if len >= BLOCK {
        padded[3..].copy_from_slice(&src[..BLOCK]);
        // SAFETY: `padded` holds the block and three zeros before it. The CPU has AVX512BW and
        // AVX512VBMI: this function enables them, and its callers checked.
        let bytes = unsafe { load(padded.as_ptr().add(3)) };
        let high = _mm512_movepi8_mask(bytes);
        // SAFETY: as above. The CPU has AVX512BW and AVX512VBMI: this function enables them, and its
        // callers checked.
        if high != 0 && any(unsafe { block_errors(padded.as_ptr().add(3), bytes) }) {
            return Err(0);
        }
        if COPY {
            // SAFETY: `dst` has room for `len >= 64` bytes. The CPU has AVX512BW and AVX512VBMI: this
            // function enables them, and its callers checked.
            unsafe { _mm512_storeu_epi8(dst.cast(), bytes) };
        }
        ascii_before = high >> (BLOCK - 3) == 0;
        pos = BLOCK;
        let mut open = u64::from(!ascii_before);
        // With the copy, which measured no faster in two modes, steps of four blocks.
        while COPY && pos + COPY_STEP * BLOCK <= len {
            // SAFETY: `pos - 3 .. pos + 256` is inside `src` (pos >= 64), and `dst` has
            // room for `len` bytes. The CPU has AVX512BW and AVX512VBMI: this function
            // enables them, and its callers checked.
            if unsafe { step::<COPY_STEP, COPY>(base, dst, pos, &mut open) }.is_none() {
                return Err(pos);
            }
            pos += COPY_STEP * BLOCK;
        }
        if !COPY {
            pos = two_modes(pos, len, BLOCK, RUN, |pos, dense| {
                // SAFETY: `two_modes` calls this at `pos` with a dense step left (`pos + DENSE * BLOCK <= len`), and
                // `pos >= BLOCK` (so the three bytes before are inside `src`); no copy.
                // The CPU has AVX512BW and AVX512VBMI: this function enables
                // them, and its callers checked.
                unsafe {
                    if dense {
                        step::<DENSE, COPY>(base, dst, pos, &mut open)
                    } else {
                        step::<SPARSE, COPY>(base, dst, pos, &mut open)
                    }
                }
            })?;
        }
        ascii_before = open == 0;
        while pos + BLOCK <= len {
            // SAFETY: `pos - 3 .. pos + 64` is inside `src` (pos >= 64). The CPU has AVX512BW and
            // AVX512VBMI: this function enables them, and its callers checked.
            let p = unsafe { base.add(pos) };
            let bytes = unsafe { load(p) };
            let high = _mm512_movepi8_mask(bytes);
            if high != 0 || !ascii_before {
                // SAFETY: as above. The CPU has AVX512BW and AVX512VBMI: this function enables them, and
                // its callers checked.
                if any(unsafe { block_errors(p, bytes) }) {
                    return Err(pos);
                }
                ascii_before = high >> (BLOCK - 3) == 0;
            }
            if COPY {
                // SAFETY: `dst` has room for `len` bytes. The CPU has AVX512BW and AVX512VBMI: this
                // function enables them, and its callers checked.
                unsafe { _mm512_storeu_epi8(dst.add(pos).cast(), bytes) };
            }
            pos += BLOCK;
        }
    }
    if pos < len {
        // The tail, shorter than a block, with zeros after it: a sequence cut by the
        // end meets them and shows as an error.
        let before = pos.min(3);
        padded = [0u8; 3 + BLOCK];
        padded[3 - before..3 + len - pos].copy_from_slice(&src[pos - before..]);
        // SAFETY: `padded` holds the tail, zeros after it and three bytes before. The CPU has
        // AVX512BW and AVX512VBMI: this function enables them, and its callers checked.
        let bytes = unsafe { load(padded.as_ptr().add(3)) };
        let high = _mm512_movepi8_mask(bytes);
        // SAFETY: as above. The CPU has AVX512BW and AVX512VBMI: this function enables them, and its
        // callers checked.
        if (high != 0 || !ascii_before) && any(unsafe { block_errors(padded.as_ptr().add(3), bytes) }) {
            return Err(pos);
        }
        if COPY {
            // SAFETY: `dst` has room for `len` bytes, `src` holds them. The CPU has AVX512BW and
            // AVX512VBMI: this function enables them, and its callers checked.
            unsafe { core::ptr::copy_nonoverlapping(base.add(pos), dst.add(pos), len - pos) };
        }
    } else if !ascii_before {
        // Ends on a block boundary: the last sequence must be whole.
        let end = &src[len - 3..];
        if end[2] >= 0xC0 || end[1] >= 0xE0 || end[0] >= 0xF0 {
            return Err(len);
        }
    }
    Ok(())
}

/// Where the first error or cut sequence of `src` is, given `at` from [`check`] (or
/// from the AVX2 kernels' twin of it, which places `at` the same way).
pub(super) fn valid_up_to_from(src: &[u8], at: usize) -> usize {
    // Back to the start of the character that `at` may cut (a character boundary of
    // the valid text before it), then the standard library finds the error, which is
    // close: within the block at `at`.
    let mut start = at.saturating_sub(3);
    while start > 0 && start < src.len() && (src[start] as i8) < -0x40 {
        start -= 1;
    }
    start + core::str::from_utf8(&src[start..]).map_or_else(|e| e.valid_up_to(), str::len)
}

/// `valid_up_to` from a `check::<false>` result (of this module's kernel or the AVX2
/// one's).
pub(super) fn valid_up_to_after(src: &[u8], checked: Result<(), usize>) -> usize {
    match checked {
        Ok(()) => src.len(),
        Err(at) => valid_up_to_from(src, at),
    }
}

/// `copy_valid_prefix` from a `check::<true>` result over `src` into `dst`: the
/// valid bytes from `at` on, which the kernel did not copy, are copied here.
pub(super) fn copy_valid_prefix_after(src: &[u8], dst: &mut [MaybeUninit<u8>], checked: Result<(), usize>) -> usize {
    let Err(at) = checked else { return src.len() };
    let valid = valid_up_to_from(src, at);
    // The kernel copied `src[..at]`; an error may sit before `at` (then nothing more).
    if valid > at {
        for (out, &byte) in dst[at..valid].iter_mut().zip(&src[at..valid]) {
            out.write(byte);
        }
    }
    valid
}

/// Whether `src` is all valid UTF-8.
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512VBMI: call it only where [`available`]
/// returned `true`.
#[inline]
pub(crate) unsafe fn is_valid(src: &[u8]) -> bool {
    debug_assert!(available());
    // SAFETY: the CPU has AVX-512BW and AVX-512VBMI (the caller's precondition);
    // `check` reads only `src` without `COPY`.
    unsafe { check::<false>(src, core::ptr::null_mut()) }.is_ok()
}

/// The length of the longest valid UTF-8 prefix of `src` (as `Utf8Error::valid_up_to`).
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512VBMI: call it only where [`available`]
/// returned `true`.
#[inline]
pub(crate) unsafe fn valid_up_to(src: &[u8]) -> usize {
    debug_assert!(available());
    // SAFETY: the CPU has AVX-512BW and AVX-512VBMI (the caller's precondition); `check` reads only `src`
    // without `COPY`.
    valid_up_to_after(src, unsafe { check::<false>(src, core::ptr::null_mut()) })
}

/// Copies the longest valid UTF-8 prefix of `src` that fits into the start of `dst`,
/// validating as it copies; returns its length.
///
/// # Safety
/// The CPU must have AVX-512BW and AVX-512VBMI: call it only where [`available`]
/// returned `true`.
#[inline]
pub(crate) unsafe fn copy_valid_prefix(src: &[u8], dst: &mut [MaybeUninit<u8>]) -> usize {
    debug_assert!(available());
    let src = &src[..src.len().min(dst.len())];
    // SAFETY: the CPU has AVX-512BW and AVX-512VBMI (the caller's precondition); `dst` has room for all of
    // `src` and does not overlap it (it is a `&mut`).
    let checked = unsafe { check::<true>(src, dst.as_mut_ptr().cast::<u8>()) };
    copy_valid_prefix_after(src, dst, checked)
}

/// A step of [`two_modes`]: `step(pos, dense)` checks the step at `pos` (`None` on an
/// error; otherwise whether it had to be checked). A closure is one; so is the
/// generic check's stepper in [`super::utf8_check`], whose method is inlined where a
/// closure's body would not be (it would not take its caller's target features).
pub(super) trait ModeStep {
    /// Checks the step at `pos`, a dense one when `dense`.
    fn step(&mut self, pos: usize, dense: bool) -> Option<bool>;
}

impl<F: FnMut(usize, bool) -> Option<bool>> ModeStep for F {
    #[inline(always)]
    fn step(&mut self, pos: usize, dense: bool) -> Option<bool> {
        self(pos, dense)
    }
}

/// The main loop of the validation kernels without the copy, in two modes (see the
/// module doc), for blocks of `block` bytes: sparse steps of [`SPARSE`] blocks while
/// few of them need checking, dense steps of [`DENSE`] blocks once the heat reaches
/// [`HOT`] ([`HEAT`] for each step that had to be checked, one less for each byte
/// read since, in sparse steps' bytes), back to sparse after `run` dense steps of
/// ASCII in a row. `step(pos, dense)` checks the step at `pos`
/// (`None` on an error; otherwise whether it had to be checked). Runs while a dense
/// step fits before `len`; returns where it stopped, or `Err` where a step showed an
/// error.
#[inline(always)]
pub(super) fn two_modes(
    mut pos: usize,
    len: usize,
    block: usize,
    run: usize,
    mut step: impl ModeStep,
) -> Result<usize, usize> {
    let (sparse, dense) = (SPARSE * block, DENSE * block);
    let (heat_per_step, hot) = (HEAT * sparse, HOT * sparse);
    if len < dense {
        return Ok(pos);
    }
    let mut sparse_mode = true;
    // The last position a dense step fits at.
    let limit = len - dense;
    loop {
        if sparse_mode {
            // Where the last step that had to check ended, and the heat since.
            let (mut last, mut heat) = (pos, 0usize);
            while pos <= limit {
                let Some(checked) = step.step(pos, false) else { return Err(pos) };
                pos += sparse;
                if checked {
                    heat = heat.saturating_sub(pos - last) + heat_per_step;
                    last = pos;
                    if heat >= hot {
                        sparse_mode = false;
                        break;
                    }
                }
            }
        } else {
            // ASCII steps in a row.
            let mut ascii = 0;
            while pos <= limit {
                let Some(checked) = step.step(pos, true) else { return Err(pos) };
                pos += dense;
                ascii = if checked { 0 } else { ascii + 1 };
                if ascii >= run {
                    sparse_mode = true;
                    break;
                }
            }
        }
        if pos > limit {
            return Ok(pos);
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::scalar;
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Compares the kernels with their twins on `bytes` (the fused copy too when
    /// `copy`).
    fn same(bytes: &[u8], copy: bool) {
        assert!(available(), "the callers check the CPU first");
        same_as_twins(bytes, copy, (is_valid, valid_up_to, copy_valid_prefix));
    }

    /// One ISA's validation kernels: `is_valid`, `valid_up_to`, `copy_valid_prefix`.
    pub(in super::super) type Kernels =
        (unsafe fn(&[u8]) -> bool, unsafe fn(&[u8]) -> usize, unsafe fn(&[u8], &mut [MaybeUninit<u8>]) -> usize);

    /// Compares `kernels` with their twins on `bytes` (the fused copy too when
    /// `copy`); the caller has checked that the CPU has their instructions.
    pub(in super::super) fn same_as_twins(bytes: &[u8], copy: bool, kernels: Kernels) {
        let (is_valid, valid_up_to, copy_valid_prefix) = kernels;
        let expected = scalar::utf8_valid_up_to(bytes);
        // SAFETY (every call below): the CPU has the kernels' instructions, as the
        // caller checked.
        assert_eq!(unsafe { is_valid(bytes) }, expected == bytes.len(), "{bytes:02X?}");
        assert_eq!(unsafe { valid_up_to(bytes) }, expected, "{bytes:02X?}");
        if copy {
            let mut out = vec![MaybeUninit::new(0xAAu8); bytes.len() + 1];
            assert_eq!(unsafe { copy_valid_prefix(bytes, &mut out) }, expected, "{bytes:02X?}");
            // SAFETY: the kernel wrote (or the fill left) every byte.
            let copied: Vec<u8> = out[..expected].iter().map(|b| unsafe { b.assume_init() }).collect();
            assert_eq!(copied, &bytes[..expected]);
            let mut twin = vec![MaybeUninit::new(0u8); bytes.len() + 1];
            assert_eq!(scalar::copy_valid_utf8_prefix(bytes, &mut twin), expected);
            // A destination shorter than the input.
            let short = bytes.len() / 2;
            let expected = scalar::utf8_valid_up_to(&bytes[..short]);
            assert_eq!(unsafe { copy_valid_prefix(bytes, &mut out[..short]) }, expected, "{bytes:02X?}");
        }
    }

    /// A small deterministic generator (xorshift64*); the AVX2 kernels' tests use it
    /// too.
    pub(in super::super) struct Rng(pub(in super::super) u64);
    impl Rng {
        pub(in super::super) fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        pub(in super::super) fn below(&mut self, n: usize) -> usize {
            (self.next() >> 33) as usize % n
        }
    }

    /// Bytes of every class: ASCII, continuation bytes of each range, and lead bytes
    /// (valid, overlong, surrogate, too large).
    pub(in super::super) const SOME: [u8; 19] = [
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5,
        0xFF,
    ];

    /// Every byte pair (and every lone byte) at `offsets`, in inputs that end right
    /// after it, or at `near` when the offset is at most `near_limit`, or run on to
    /// 400 bytes: checked by `same` (a kernel's comparison with its twins).
    pub(in super::super) fn short_sequences(
        offsets: impl Iterator<Item = usize> + Clone,
        near_limit: usize,
        near: &[usize],
        same: impl Fn(&[u8], bool),
    ) {
        let mut buf = [b'a'; 420];
        for first in 0..=255u8 {
            for second in (0..=255u8).map(Some).chain([None]) {
                let seq: Vec<u8> = [Some(first), second].into_iter().flatten().collect();
                for offset in offsets.clone() {
                    let far = [400];
                    let ends = [offset + seq.len()]
                        .into_iter()
                        .chain(if offset <= near_limit { near } else { &far[..] }.iter().copied());
                    for total in ends.filter(|&total| total >= offset + seq.len()) {
                        buf[offset..offset + seq.len()].copy_from_slice(&seq);
                        same(&buf[..total], false);
                        buf[offset..offset + seq.len()].fill(b'a');
                    }
                }
            }
        }
    }

    /// Every lead byte from C0 with every second byte and a sample of third and fourth
    /// bytes (overlongs, surrogates, above U+10FFFF, truncations) at `offsets`, in
    /// inputs that end right after it, or at `near` bytes when the offset is below
    /// `block`, or run on to 400 bytes: checked by `same`.
    pub(in super::super) fn long_sequences(offsets: &[usize], block: usize, near: usize, same: impl Fn(&[u8], bool)) {
        let mut buf = [b'a'; 420];
        for first in 0xC0..=0xFFu8 {
            for second in 0..=255u8 {
                for third in SOME {
                    for fourth in SOME.into_iter().map(Some).chain([None]) {
                        let seq: Vec<u8> =
                            [Some(first), Some(second), Some(third), fourth].into_iter().flatten().collect();
                        for &offset in offsets {
                            for total in [offset + seq.len(), if offset < block { near } else { 400 }] {
                                buf[offset..offset + seq.len()].copy_from_slice(&seq);
                                same(&buf[..total], false);
                                buf[offset..offset + seq.len()].fill(b'a');
                            }
                        }
                    }
                }
            }
        }
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

    /// Random text: ASCII runs and characters of every length.
    pub(in super::super) fn random_text(rng: &mut Rng, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 4);
        let mode = rng.below(4);
        while out.len() < len {
            let c = match (mode, rng.below(8)) {
                (0, _) | (_, 0..=3) => (rng.below(0x80)) as u32,
                (_, 4) => 0x80 + rng.below(0x780) as u32,
                (_, 5) => 0x800 + rng.below(0xF800) as u32,
                _ => 0x10000 + rng.below(0x100000) as u32,
            };
            if let Some(c) = char::from_u32(c) {
                let mut tmp = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            }
        }
        out
    }

    #[test]
    fn random_inputs_at_every_alignment() {
        if !available() {
            return;
        }
        random_inputs(0x9E37_79B9_7F4A_7C15, 1_500_000, 140, same);
    }

    /// `cases` random inputs (most up to `short` bytes, one in 16 up to 800) at every
    /// alignment: random bytes, random text, and text with an error or two, through
    /// a kernel's `same` check (shared with the AVX2 kernels' tests).
    pub(in super::super) fn random_inputs(seed: u64, cases: usize, short: usize, same: fn(&[u8], bool)) {
        let mut rng = Rng(seed);
        let mut buf = vec![0u8; 64 + 800];
        for case in 0..cases {
            let len = rng.below(if case % 16 == 0 { 800 } else { short });
            let align = rng.below(64);
            let bytes = &mut buf[align..align + len];
            match case % 3 {
                0 => {
                    // Random bytes, mostly ASCII or mostly not.
                    let high = rng.below(4);
                    for b in bytes.iter_mut() {
                        *b = rng.next() as u8;
                        if rng.below(4) >= high {
                            *b &= 0x7F;
                        }
                    }
                }
                _ => {
                    let text = random_text(&mut rng, len);
                    bytes.copy_from_slice(&text[..len]);
                    if case % 3 == 2 && len > 0 {
                        for _ in 0..1 + rng.below(2) {
                            let at = rng.below(len);
                            bytes[at] = match rng.below(3) {
                                0 => rng.next() as u8,
                                1 => SOME[rng.below(SOME.len())],
                                _ => bytes[at] ^ (1 << rng.below(8)),
                            };
                        }
                    }
                }
            }
            same(&buf[align..align + len], case % 4 == 0);
        }
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

    /// Text in runs of ASCII and of characters of each length, long and short (so
    /// that a kernel's loop switches between its modes, and back), whole and with one
    /// byte replaced (by a continuation byte, a lead byte, or ASCII, which cuts a
    /// character) at every position, after prefixes of two lengths, through a
    /// kernel's `same` check (shared with the AVX2 tests).
    pub(in super::super) fn mode_switches(same: fn(&[u8], bool)) {
        let runs = [
            ('a', 300),
            ('é', 300),
            ('a', 1500),
            ('€', 250),
            ('a', 70),
            ('😀', 100),
            ('a', 1300),
            ('é', 40),
            ('a', 100),
            ('€', 3),
            ('a', 500),
        ];
        for prefix in [0, 37] {
            let mut text = vec![b'a'; prefix];
            for (c, n) in runs {
                let mut tmp = [0u8; 4];
                for _ in 0..n {
                    text.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                }
            }
            same(&text, true);
            for at in prefix..text.len() {
                for bad in [0x80, 0xC3, 0xE2, 0xF0, b'x'] {
                    if text[at] != bad {
                        let mut bytes = text.clone();
                        bytes[at] = bad;
                        same(&bytes, at % 16 == 0);
                    }
                }
            }
        }
    }

    /// Long random texts with one error anywhere, and ASCII with one character at
    /// each of the last `window` positions of inputs of the `lens` (a kernel's block
    /// and group ends), through a kernel's `same` check (shared with the AVX2 tests).
    pub(in super::super) fn long_texts(seed: u64, lens: &[usize], window: usize, same: fn(&[u8], bool)) {
        let mut rng = Rng(seed);
        for _ in 0..300 {
            let len = 1000 + rng.below(3000);
            let mut text = random_text(&mut rng, len);
            same(&text, true);
            let at = rng.below(text.len());
            text[at] = SOME[rng.below(SOME.len())];
            same(&text, true);
        }
        // All ASCII, then one character (whole, cut, or a lone continuation byte) at
        // every position of the last `window` bytes.
        for &len in lens {
            for at in len - window..len {
                for seq in [&b"\xC3\xA9"[..], b"\xE2\x82\xAC", b"\xF0\x9F\x98\x80", b"\xE2\x82", b"\x80", b"\xF4\x90"] {
                    let mut bytes = vec![b'x'; len];
                    let end = (at + seq.len()).min(len);
                    bytes[at..end].copy_from_slice(&seq[..end - at]);
                    same(&bytes, true);
                }
            }
        }
    }
}
