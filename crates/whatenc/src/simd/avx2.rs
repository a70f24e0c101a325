//! AVX2 kernels, chosen at run time (with `std`) where the CPU has AVX2 and the cap
//! on the tier allows it: UTF-8 validation, alone or fused with a copy (for machines
//! without the AVX-512 kernels), UTF-8 → UTF-16, and the ASCII runs. Each is the
//! twin of a function in [`super::scalar`] (the validation's are
//! [`super::scalar::utf8_valid_up_to`] and [`super::scalar::copy_valid_utf8_prefix`])
//! and the tests compare them.
//!
//! The check (written once over AVX2 and SSSE3 vectors, in [`super::utf8_check`]) is
//! the lookup method of Keiser and Lemire ("Validating UTF-8 in less
//! than one instruction per byte") with the error kinds of [`super::avx512`]: each
//! byte, with the byte before it, is looked up in three 16-entry tables (one
//! `vpshufb` each, the same table in both 128-bit lanes), indexed by the previous
//! byte's high nibble, its low nibble and the byte's own high nibble; the AND of the
//! three is the set of error kinds the pair shows. "Two continuation bytes in a row"
//! is an error exactly when the byte is not the third or fourth of a sequence, which
//! the bytes two and three back tell. The bytes before a block are read from memory
//! (unaligned loads one, two and three bytes back), never shifted across lanes; the
//! first block and the tail go through a zero-padded copy, so that a sequence cut by
//! the end meets zeros and shows as an error.
//!
//! The main loop ([`super::utf8_check::windows`], shared with the AVX-512 kernel)
//! reads the text in windows of up to 4 KiB. Where it is mixed with markup, it reads
//! each window twice: first a map of the 64-byte chunks that are not ASCII, with no
//! branch, then a check of those chunks only, so that no branch depends on each
//! chunk's bytes, which matters most where the text comes from L3 or memory (a
//! mispredicted branch there throws away the loads in flight). Mostly-ASCII text
//! (English) takes a branch a chunk instead, and text of other scripts dense steps of
//! eight blocks (256 bytes), checked in full unless ASCII, until [`RUN`] ASCII dense
//! steps in a row. The validation fused with a copy takes steps of four blocks (128
//! bytes), checked unless ASCII after a closed sequence.
//!
//! [`utf8_to_utf16`] is the SSSE3 kernel's algorithm with 32-byte vectors for its
//! masks and its ASCII runs, and its hand-over of sparse text to the scalar loop.
//!
//! The ASCII kernels ([`copy_ascii_to_ascii`], [`copy_ascii_to_utf16`],
//! [`copy_utf16_ascii_to_bytes`], [`utf16_bytes_ascii_to_bytes`],
//! [`utf16_bytes_to_units`]) are the twins of the SSE2 ones in [`super::x86_64`] at
//! 32 units a step; the SSE2 kernels hand a run over to them (through
//! `super::long_run`) once it is 64 units long (256 for the narrowing ones, whose
//! gain measured smaller), so that short runs (a space between words, a tag) stay in
//! the inlined SSE2 loop. They store at most 16 units past the
//! run they report ([`super::utf8_out::SCRATCH`]): a vector whose run ends in its
//! first half is stored by its first half only. The last step is a whole vector that
//! ends at the end of the input, overlapping units already copied.

use super::utf8_check::{self, Bytes, COPY_STEP, Checks, DENSE, Steps};
use core::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm_shuffle_epi8, _mm_srli_si128, _mm_storel_epi64, _mm_storeu_si128,
    _mm256_and_si256, _mm256_blendv_epi8, _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_cmpeq_epi16,
    _mm256_cmpgt_epi8, _mm256_cvtepu8_epi16, _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_movemask_epi8,
    _mm256_or_si256, _mm256_packs_epi16, _mm256_packus_epi16, _mm256_permute4x64_epi64, _mm256_set1_epi8,
    _mm256_set1_epi16, _mm256_setr_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_slli_epi16,
    _mm256_srli_epi16, _mm256_storeu_si256, _mm256_sub_epi16, _mm256_subs_epu8, _mm256_subs_epu16, _mm256_testz_si256,
    _mm256_xor_si256,
};

/// Whether these kernels run: the cap on the tier ([`crate::tier`]) allows AVX2, and
/// the CPU has it (`std` caches the answer; without `std`, only when the build
/// targets it).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::allows(crate::tier::Tier::Avx2) && cpu_has()
}

/// Whether the CPU has AVX2, whatever the cap on the tier.
#[inline(always)]
pub(crate) fn cpu_has() -> bool {
    super::cpu_has!("avx2")
}

const BLOCK: usize = 32;

/// Loads 32 bytes from `p`.
///
/// # Safety
/// The 32 bytes at `p` must be readable, and the CPU must have AVX (AVX2 implies it).
#[inline(always)]
unsafe fn load(p: *const u8) -> __m256i {
    // SAFETY: the caller makes the 32 bytes at `p` readable; the CPU has AVX.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

/// Stores `v` as 32 bytes at `p`.
///
/// # Safety
/// The 32 bytes at `p` must be writable, and the CPU must have AVX (AVX2 implies it).
#[inline(always)]
unsafe fn store(p: *mut u8, v: __m256i) {
    // SAFETY: the caller makes the 32 bytes at `p` writable; the CPU has AVX.
    unsafe { _mm256_storeu_si256(p.cast(), v) }
}

impl Bytes for __m256i {
    const LEN: usize = BLOCK;
    // Not sampled (see `utf8_check::DENSE_SAMPLE`): validation, `AMD EPYC` Zen 5,
    // medians of five to seven runs, a sample every 8 KiB against none: in cache the
    // pages gained (ar.html 0.89 → 1.00 of simdutf8, ja.html 0.91 → 1.03; to
    // `String` ar.html 0.90 → 1.01), but rotating (the target) they gained 0–4%
    // (ar.html 1.94 → 2.01 of encoding_rs), and the French and Portuguese texts lost
    // 5–8% (fr.txt 1.51 → 1.42, pt.txt 1.15 → 1.07), the sample's own cost where it
    // did not turn the mode back (fr.txt 1.44 with samples that never did).
    const DENSE_SAMPLE: usize = 0;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the trait's contract: 32 readable bytes at `p`, and AVX2.
        unsafe { load(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the trait's contract: 32 writable bytes at `p`, and AVX2.
        unsafe { store(p, self) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY (this method and those below): the trait's contract, the CPU has AVX2.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        unsafe { _mm256_set1_epi8(byte as i8) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { _mm256_or_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { _mm256_and_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        unsafe { _mm256_xor_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        unsafe { _mm256_subs_epu8(self, other) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // `vpshufb` gives zero for an index with its sign bit set: masked to the nibble.
        unsafe { _mm256_and_si256(_mm256_srli_epi16::<4>(self), _mm256_set1_epi8(0x0F)) }
    }
    #[inline(always)]
    unsafe fn lookup(self, indexes: Self) -> Self {
        unsafe { _mm256_shuffle_epi8(self, indexes) }
    }
    #[inline(always)]
    unsafe fn any_high(self) -> bool {
        unsafe { _mm256_movemask_epi8(self) != 0 }
    }
    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        unsafe { _mm256_testz_si256(self, self) == 1 }
    }
}

/// ASCII dense steps in a row (1 KiB) that switch back to the windows.
const RUN: usize = 4;

/// The check of [`super::utf8_check`] with AVX2 vectors (see the module doc);
/// `Err(at)` as there.
///
/// # Safety
/// The CPU must have AVX2; with `COPY`, `dst` must have room for `src.len()` bytes
/// and not overlap `src`.
#[target_feature(enable = "avx2")]
unsafe fn check<const COPY: bool>(src: &[u8], dst: *mut u8) -> Result<(), usize> {
    // SAFETY: the caller's precondition, and this function enables AVX2.
    unsafe { utf8_check::check::<__m256i, COPY, DENSE, COPY_STEP, RUN, true, false>(Steps, src, dst) }
}

/// The check, alone and fused with the copy, and what is made of them; their
/// methods need the CPU to have AVX2 ([`cpu_has()`]).
pub(super) const CHECKS: Checks = Checks { alone: check::<false>, copying: check::<true> };

/// Stores the vector `v` of 32 bytes at `p` when `run` (the ASCII bytes at its
/// start) is 16 or more, else its first half: never more than 16 bytes past the run.
///
/// # Safety
/// The 32 bytes at `p` must be writable, and the CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store_run(p: *mut u8, v: __m256i, run: usize) {
    if run >= 16 {
        // SAFETY: the caller makes the 32 bytes at `p` writable; the CPU has AVX2.
        unsafe { store(p, v) };
    } else {
        // SAFETY: as above, for the first 16 of them.
        unsafe { _mm_storeu_si128(p.cast::<__m128i>(), _mm256_castsi256_si128(v)) };
    }
}

/// The offsets of the steps over `limit >= 32` units, 32 at a time: the last one
/// ends at `limit`, overlapping the one before when `limit` is not a multiple of 32.
#[inline(always)]
fn step_at(pos: usize, limit: usize) -> usize {
    pos.min(limit - BLOCK)
}

/// Twin of [`super::scalar::copy_bytes`]: copies `src` to `dst`, of the same length
/// (at least 128 bytes), 128 bytes a step in 32-byte moves, the last step ending at
/// the end (overlapping the one before). For `super::x86_64::copy_bytes` on AMD's
/// Zen 5, where the standard library's copy (`rep movsb` from a few KiB) is slower on
/// such lengths.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_bytes(src: &[u8], dst: &mut [u8]) {
    assert!(src.len() == dst.len() && src.len() >= 4 * BLOCK, "copy_bytes: lengths");
    let len = src.len();
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let mut pos = 0;
    loop {
        let at = pos.min(len - 4 * BLOCK);
        // SAFETY: `at + 128 <= len`: the four blocks are inside `src` and `dst`; the
        // CPU has AVX2 (the caller's precondition).
        unsafe {
            let v = [0, 1, 2, 3].map(|i| _mm256_loadu_si256(s.add(at + i * BLOCK).cast()));
            for (i, v) in v.into_iter().enumerate() {
                _mm256_storeu_si256(d.add(at + i * BLOCK).cast(), v);
            }
        }
        if at + 4 * BLOCK == len {
            return;
        }
        pos += 4 * BLOCK;
    }
}

/// Twin of [`super::scalar::copy_ascii_to_ascii`] (and of the SSE2 kernel): copies
/// the longest ASCII prefix of `src` that fits in `dst`; returns its length.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    if limit < BLOCK {
        return super::x86_64::copy_ascii_to_ascii_loop::<false>(src, dst);
    }
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let mut pos = 0;
    while pos < limit {
        let at = step_at(pos, limit);
        // SAFETY: `at + 32 <= limit`, inside both slices. The CPU has AVX2: this
        // function enables it, and its callers checked.
        let v = unsafe { load(s.add(at)) };
        let mask = _mm256_movemask_epi8(v) as u32;
        let run = mask.trailing_zeros() as usize;
        // SAFETY: as above.
        unsafe { store_run(d.add(at), v, run) };
        if mask != 0 {
            return at + run;
        }
        pos = at + BLOCK;
    }
    limit
}

/// Twin of [`super::scalar::copy_ascii_to_utf16`] (and of the SSE2 kernel): widens the
/// longest ASCII prefix of `src` that fits in `dst`; returns its length.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
    let limit = src.len().min(dst.len());
    if limit < BLOCK {
        return super::x86_64::copy_ascii_to_utf16_loop::<false>(src, dst);
    }
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr().cast::<u8>());
    let mut pos = 0;
    while pos < limit {
        let at = step_at(pos, limit);
        // SAFETY: `at + 32 <= limit`: 32 bytes of `src`, 32 units (64 bytes) of `dst`.
        // The CPU has AVX2: this function enables it, and its callers checked.
        let v = unsafe { load(s.add(at)) };
        let mask = _mm256_movemask_epi8(v) as u32;
        let run = mask.trailing_zeros() as usize;
        // SAFETY: as above. The second 16 units only when the run reaches them.
        unsafe {
            store(d.add(2 * at), _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)));
            if run >= 16 {
                store(d.add(2 * at + BLOCK), _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(v)));
            }
        }
        if mask != 0 {
            return at + run;
        }
        pos = at + BLOCK;
    }
    limit
}

/// Twin of [`super::scalar::copy_utf16_ascii_to_bytes`] (and of the SSE2 kernel):
/// narrows the longest run of ASCII code units of `src` that fits in `dst`; returns
/// its length.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    if limit < BLOCK {
        return super::x86_64::copy_utf16_ascii_to_bytes_loop::<false>(src, dst);
    }
    // SAFETY: `src` holds `limit` units (native order, so no swap), `dst` `limit`
    // bytes; the CPU has AVX2 (the caller's precondition).
    unsafe { narrow_ascii(src.as_ptr().cast(), limit, dst.as_mut_ptr(), false) }
}

/// Twin of [`super::scalar::encode_utf16_linear`] (and of the SSE2 kernel): encodes
/// the longest run of units of `src` that fits in `dst` and that are ASCII or in
/// `start..start + len` (as `unit - delta`); returns its length. The block that ends
/// the run is stored (its first half only when the run ends there).
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    // SAFETY: each block's 32 units are inside `src` and its 32 bytes inside `dst`
    // (`pos + BLOCK <= limit`); the CPU has AVX2 (the caller's precondition).
    unsafe {
        let zero = _mm256_setzero_si256();
        let ascii_bits = _mm256_set1_epi16(0xFF80u16 as i16);
        let start = _mm256_set1_epi16(start as i16);
        // `unit - start < len` (unsigned) is `(unit - start) -sat (len - 1) == 0`.
        let last = _mm256_set1_epi16(len.wrapping_sub(1) as i16);
        let delta = _mm256_set1_epi16(delta as i16);
        let map = |units: __m256i| {
            let ascii = _mm256_cmpeq_epi16(_mm256_and_si256(units, ascii_bits), zero);
            let in_run = _mm256_cmpeq_epi16(_mm256_subs_epu16(_mm256_sub_epi16(units, start), last), zero);
            let bytes = _mm256_sub_epi16(units, _mm256_and_si256(in_run, delta));
            (bytes, _mm256_or_si256(ascii, in_run))
        };
        while pos + BLOCK <= limit {
            let p = src.as_ptr().add(pos).cast::<__m256i>();
            let (low, low_ok) = map(_mm256_loadu_si256(p));
            let (high, high_ok) = map(_mm256_loadu_si256(p.add(1)));
            // The packs work within 128-bit lanes: put the quarters back in order.
            let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(low, high));
            let ok = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(low_ok, high_ok));
            // One bit per unit, set when it is mapped.
            let mapped = _mm256_movemask_epi8(ok) as u32;
            let kept = mapped.trailing_ones() as usize;
            if kept < BLOCK / 2 {
                // The run ends in the first half: that half only, so that no more
                // than `SCRATCH` bytes past the run are written.
                _mm_storeu_si128(dst.as_mut_ptr().add(pos).cast(), _mm256_castsi256_si128(packed));
            } else {
                _mm256_storeu_si256(dst.as_mut_ptr().add(pos).cast(), packed);
            }
            if kept < BLOCK {
                return pos + kept;
            }
            pos += BLOCK;
        }
    }
    pos + super::x86_64::encode_utf16_linear_loop::<false>(&src[pos..limit], &mut dst[pos..limit], start, len, delta)
}

/// Twin of [`super::scalar::utf16_bytes_ascii_to_bytes`] (and of the SSE2 kernel):
/// narrows the run of ASCII code units at the start of UTF-16 bytes into `dst` as far
/// as it fits; returns the units copied.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn utf16_bytes_ascii_to_bytes(src: &[u8], dst: &mut [u8], big_endian: bool) -> usize {
    let limit = (src.len() / 2).min(dst.len());
    if limit < BLOCK {
        return super::x86_64::utf16_bytes_ascii_to_bytes_loop::<false>(src, dst, big_endian);
    }
    // SAFETY: `src` holds `limit` units (`2 * limit` bytes), `dst` `limit` bytes; the
    // CPU has AVX2 (the caller's precondition).
    unsafe { narrow_ascii(src.as_ptr(), limit, dst.as_mut_ptr(), big_endian) }
}

/// The bytes that swap the two bytes of each 16-bit lane, for `vpshufb`.
#[inline]
#[target_feature(enable = "avx2")]
fn byte_swap() -> __m256i {
    _mm256_setr_epi8(
        1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14,
    )
}

/// Narrows the run of ASCII code units at `s` (`limit >= 32` of them, byte-swapped
/// first when `swap`) into `d`; returns its length.
///
/// # Safety
/// `s` must hold `2 * limit` readable bytes and `d` `limit` writable ones, and the CPU
/// must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn narrow_ascii(s: *const u8, limit: usize, d: *mut u8, swap: bool) -> usize {
    debug_assert!(limit >= BLOCK);
    let not_ascii = _mm256_set1_epi16(0xFF80u16 as i16);
    let swap_bytes = byte_swap();
    let mut pos = 0;
    while pos < limit {
        let at = step_at(pos, limit);
        // SAFETY: `at + 32 <= limit`: 32 units (64 bytes) of `s`, 32 bytes of `d`.
        // The CPU has AVX2: this function enables it, and its callers checked.
        let (mut a, mut b) = unsafe { (load(s.add(2 * at)), load(s.add(2 * at + BLOCK))) };
        if swap {
            (a, b) = (_mm256_shuffle_epi8(a, swap_bytes), _mm256_shuffle_epi8(b, swap_bytes));
        }
        // `vpackuswb` packs within 128-bit lanes: the 64-bit quarters back in order.
        let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
        if _mm256_testz_si256(_mm256_or_si256(a, b), not_ascii) == 1 {
            // SAFETY: as above.
            unsafe { store(d.add(at), packed) };
            pos = at + BLOCK;
            continue;
        }
        let zero = _mm256_setzero_si256();
        let ascii = _mm256_packs_epi16(
            _mm256_cmpeq_epi16(_mm256_and_si256(a, not_ascii), zero),
            _mm256_cmpeq_epi16(_mm256_and_si256(b, not_ascii), zero),
        );
        let mask = _mm256_movemask_epi8(_mm256_permute4x64_epi64::<0b11_01_10_00>(ascii)) as u32;
        let run = mask.trailing_ones() as usize;
        // SAFETY: as above.
        unsafe { store_run(d.add(at), packed, run) };
        return at + run;
    }
    limit
}

/// Twin of [`super::scalar::utf16_bytes_to_units`] (and of the SSE2 kernel): UTF-16
/// bytes to code units while they are not surrogates and fit in `dst`; returns the
/// units written.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn utf16_bytes_to_units(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize {
    const UNITS: usize = BLOCK / 2;
    let limit = (src.len() / 2).min(dst.len());
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr().cast::<u8>());
    let swap = byte_swap();
    let top = _mm256_set1_epi16(0xF800u16 as i16);
    let surrogate = _mm256_set1_epi16(0xD800u16 as i16);
    let mut n = 0;
    while n + UNITS <= limit {
        // SAFETY: `n + 16 <= limit`: 32 bytes of `src` and of `dst`. The CPU has AVX2:
        // this function enables it, and its callers checked.
        let v = unsafe { load(s.add(2 * n)) };
        let units = if big_endian { _mm256_shuffle_epi8(v, swap) } else { v };
        // A surrogate is 0xD800..=0xDFFF: its top five bits are 11011.
        let surrogates = _mm256_cmpeq_epi16(_mm256_and_si256(units, top), surrogate);
        if _mm256_testz_si256(surrogates, surrogates) == 0 {
            break;
        }
        // SAFETY: as above.
        unsafe { store(d.add(2 * n), units) };
        n += UNITS;
    }
    n + super::x86_64::utf16_bytes_to_units_loop::<false>(&src[2 * n..2 * limit], &mut dst[n..limit], big_endian)
}

/// Widens the 32 ASCII bytes `v` into the 32 units at `d`.
///
/// # Safety
/// The 64 bytes at `d` must be writable, and the CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn widen(d: *mut u8, v: __m256i) {
    // SAFETY: the caller makes the 64 bytes at `d` writable; the CPU has AVX2.
    unsafe {
        store(d, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)));
        store(d.add(BLOCK), _mm256_cvtepu8_epi16(_mm256_extracti128_si256::<1>(v)));
    }
}

/// Twin of [`super::scalar::utf8_to_utf16`] (and of the SSSE3 kernel): transcodes
/// valid UTF-8 to UTF-16; the caller guarantees `dst.len() >= s.len()`. Returns the
/// units written.
///
/// The SSSE3 kernel's algorithm, with the masks of each 64 bytes from two vectors,
/// 64 ASCII bytes widened with four stores, and ASCII runs inside a chunk widened 32
/// units a step; the other steps are the SSSE3 kernel's ([`super::ssse3::step`]).
///
/// # Safety
/// The CPU must have AVX2 (which implies SSSE3).
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn utf8_to_utf16(s: &str, dst: &mut [u16]) -> usize {
    let bytes = s.as_bytes();
    assert!(dst.len() >= bytes.len());
    let (src, out) = (bytes.as_ptr(), dst.as_mut_ptr().cast::<u8>());
    let mut read = 0;
    let mut written = 0;
    // Whether the last chunk was ASCII or sparse (see `SPARSE_BYTES`).
    let mut calm = false;
    // Each byte read makes at most one unit, so `dst` has room for as many units as
    // there are bytes left: 64 while a chunk is read.
    while read + 64 <= bytes.len() {
        // SAFETY: `read + 64 <= bytes.len()`. The CPU has AVX2: this function enables
        // it, and its callers checked.
        let (a, b) = unsafe { (load(src.add(read)), load(src.add(read + BLOCK))) };
        let high = |v| _mm256_movemask_epi8(v) as u32 as u64;
        let non_ascii = high(a) | (high(b) << 32);
        if non_ascii == 0 {
            // SAFETY: `dst` has room for 64 units from `written` (see above); the CPU
            // has AVX2, as above.
            unsafe {
                widen(out.add(2 * written), a);
                widen(out.add(2 * written + 2 * BLOCK), b);
            }
            read += 64;
            written += 64;
            calm = true;
            continue;
        }
        if let Some((r, w)) = super::ssse3::hand_over_sparse(s, read, non_ascii, &mut calm, dst, written) {
            read += r;
            written += w;
            continue;
        }
        // Continuation bytes: 0x80 to 0xBF, less than -64 as `i8`.
        let below = _mm256_set1_epi8(-64);
        let continuation = high(_mm256_cmpgt_epi8(below, a)) | (high(_mm256_cmpgt_epi8(below, b)) << 32);
        // Byte i ends a character when byte i + 1 starts one.
        let ends = !continuation >> 1;
        let mut offset = 0;
        while offset <= 48 {
            let ascii = (non_ascii >> offset).trailing_zeros();
            if ascii >= 32 && offset <= 32 {
                // 32 ASCII bytes inside the chunk: widened at once.
                // SAFETY: `read + offset + 32 <= read + 64 <= bytes.len()`, and `dst`
                // has room for as many units as bytes are left. The CPU has AVX2, as
                // above.
                unsafe { widen(out.add(2 * written), load(src.add(read + offset))) };
                offset += 32;
                written += 32;
                continue;
            }
            // SAFETY: the CPU has AVX2, hence SSSE3; `read + offset` is a character
            // boundary with 16 bytes after it, and `dst` room for 16 units.
            let (r, w) = unsafe { super::ssse3::step(s, read + offset, ascii, (ends >> offset) as u32, dst, written) };
            offset += r;
            written += w;
        }
        read += offset;
    }
    while read + 16 <= bytes.len() {
        let block = bytes[read..][..16].try_into().unwrap_or(&[0; 16]);
        // SAFETY: the CPU has AVX2, hence SSSE3.
        let (non_ascii, continuation) = unsafe { super::ssse3::masks(block) };
        let ascii = non_ascii.trailing_zeros();
        // SAFETY: the CPU has AVX2, hence SSSE3; as above.
        let (r, w) = unsafe { super::ssse3::step(s, read, ascii, !continuation >> 1, dst, written) };
        read += r;
        written += w;
    }
    written + super::scalar::utf8_to_utf16(&s[read..], &mut dst[written..])
}

/// The most other characters (looked up in the index) in a step of
/// [`linear_steps_from_utf8`] whose bytes are written after its store, each where its
/// lane's byte went; with more, they are written into the step's lanes before the
/// packing (a copy of the step through memory, whose reload waits for those
/// writes). UTF-8 → single-byte, AVX2 tier, rotating, `AMD EPYC` Zen 1, µs, with
/// every step's others written after the store, through the lanes, and this choice:
/// KOI8-R (whose run is a letter alone) ru.txt 365, 274, 275; ru.html 795, 642, 637;
/// windows-1250 cs.txt 60–65, 55, 58; windows-1252 en.txt 5.4–5.9, 6.2–6.7, 5.7,
/// en.html 86–88, 92–111, 82–87, de.txt 32.5, 31.7–34.8, 31.2–31.4. (With two, or
/// eight, in between.)
const FEW_OTHERS: usize = 4;

/// Encodes valid UTF-8 into a single-byte encoding, 32 bytes a step: the AVX2 twin
/// of `super::avx512_utf16::linear_steps_from_utf8` (ASCII as itself, the index's run
/// from two-byte UTF-8, or three-byte with `WIDE`, in 16-bit lanes, other characters
/// from `index` one at a time), the bytes kept packed by `pshufb` eight at a time.
/// Returns the bytes read and written; it stops at the start of the first character
/// not in the index, where fewer than 33 bytes are left (34 with `WIDE`), or 32 bytes
/// of room. It may write up to 8 bytes past the bytes it returns.
///
/// `src` starts at a character and is valid UTF-8 (a `&str`'s bytes).
///
/// # Safety
/// The CPU must have AVX2 and POPCNT.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn linear_steps_from_utf8<const WIDE: bool>(
    src: &[u8],
    dst: &mut [u8],
    (start, len, delta): (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    let set8 = |byte: u8| _mm256_set1_epi8(byte as i8);
    let (start, last, delta) = (
        _mm256_set1_epi16(start as i16),
        _mm256_set1_epi16(len.wrapping_sub(1) as i16),
        _mm256_set1_epi16(delta as i16),
    );
    // The bytes a step reads: 32, and those of a sequence that starts at its end.
    let reach = if WIDE { 34 } else { 33 };
    while read + reach <= src.len() && written + 32 <= dst.len() {
        // SAFETY: `src` holds the `reach` bytes at `read` (`after` is read only for a
        // three-byte run, when `reach` is 34).
        let (bytes, next, after) = unsafe {
            let p = src.as_ptr().add(read);
            let after = if WIDE { _mm256_loadu_si256(p.add(2).cast()) } else { _mm256_setzero_si256() };
            (_mm256_loadu_si256(p.cast()), _mm256_loadu_si256(p.add(1).cast()), after)
        };
        let ascii = !(_mm256_movemask_epi8(bytes) as u32);
        if ascii == u32::MAX {
            // SAFETY: 32 writable bytes at `written`.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(written).cast(), bytes) };
            read += 32;
            written += 32;
            continue;
        }
        let continuation =
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(bytes, set8(0xC0)), set8(0x80))) as u32;
        let lead = if WIDE {
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(bytes, set8(0xF0)), set8(0xE0)))
        } else {
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(bytes, set8(0xE0)), set8(0xC0)))
        } as u32;
        // Each byte with the one (or two) after it as such a sequence's code point,
        // its byte, and whether it is in the run, sixteen at a time.
        let half = |bytes: __m128i, next: __m128i, after: __m128i| {
            let (bytes, next) = (_mm256_cvtepu8_epi16(bytes), _mm256_cvtepu8_epi16(next));
            let low6 = |units| _mm256_and_si256(units, _mm256_set1_epi16(0x3F));
            let code_point = if WIDE {
                _mm256_or_si256(
                    _mm256_or_si256(_mm256_slli_epi16::<12>(bytes), _mm256_slli_epi16::<6>(low6(next))),
                    low6(_mm256_cvtepu8_epi16(after)),
                )
            } else {
                _mm256_or_si256(_mm256_slli_epi16::<6>(_mm256_and_si256(bytes, _mm256_set1_epi16(0x1F))), low6(next))
            };
            // `unit - start < len` (unsigned) is `(unit - start) -sat (len - 1) == 0`.
            let in_run = _mm256_cmpeq_epi16(
                _mm256_subs_epu16(_mm256_sub_epi16(code_point, start), last),
                _mm256_setzero_si256(),
            );
            (_mm256_sub_epi16(code_point, delta), in_run)
        };
        let (low, low_in_run) =
            half(_mm256_castsi256_si128(bytes), _mm256_castsi256_si128(next), _mm256_castsi256_si128(after));
        let (high, high_in_run) = half(
            _mm256_extracti128_si256::<1>(bytes),
            _mm256_extracti128_si256::<1>(next),
            _mm256_extracti128_si256::<1>(after),
        );
        // The packs work within 128-bit lanes: put the quarters back in order.
        let mapped = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(low, high));
        let in_run = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(low_in_run, high_in_run));
        let in_run = _mm256_movemask_epi8(in_run) as u32;
        let ascii_lanes = _mm256_cmpgt_epi8(bytes, _mm256_set1_epi8(-1));
        let kept_bytes = _mm256_blendv_epi8(mapped, bytes, ascii_lanes);
        // The other characters' starts, in order, up to one not in the index: their
        // bytes, written over the packed ones below.
        let others = !(ascii | continuation | (lead & in_run));
        let mut patches = [(0u8, 0u8); FEW_OTHERS];
        let mut patched = 0;
        let (kept_bytes, stop) = if others.count_ones() as usize <= FEW_OTHERS {
            let stop = super::look_up_others(others, src, read, index, |at, byte| {
                patches[patched] = (at as u8, byte);
                patched += 1;
            });
            (kept_bytes, stop)
        } else {
            // Many: their bytes written over the step's in its lanes, before the
            // packing.
            let mut lanes = [0u8; 32];
            // SAFETY: `lanes` holds 32 bytes.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), kept_bytes) };
            let stop = super::look_up_others(others, src, read, index, |at, byte| lanes[at] = byte);
            // SAFETY: as above.
            (unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) }, stop)
        };
        let keep = !continuation & if stop < 32 { (1u32 << stop) - 1 } else { u32::MAX };
        // Eight bytes at a time, packed and stored whole: each store's bytes after
        // the kept ones are overwritten by the next, or are past the output.
        let halves = [_mm256_castsi256_si128(kept_bytes), _mm256_extracti128_si256::<1>(kept_bytes)];
        let mut at = written;
        for group in 0..4 {
            let mask = (keep >> (8 * group)) as u8;
            let half = halves[group / 2];
            let group_bytes = if group % 2 == 1 { _mm_srli_si128::<8>(half) } else { half };
            // SAFETY: `dst` holds 8 writable bytes at `at`, which is at most
            // `written + 24`; the table's row is 16 bytes.
            unsafe {
                let shuffle = _mm_loadu_si128(super::shuffles::KEEP_SHUFFLES[mask as usize].as_ptr().cast());
                _mm_storel_epi64(dst.as_mut_ptr().add(at).cast(), _mm_shuffle_epi8(group_bytes, shuffle));
            }
            at += mask.count_ones() as usize;
        }
        for &(lane, byte) in &patches[..patched] {
            // Where the lane's byte went: after the kept bytes before it.
            dst[written + (keep & ((1u32 << lane) - 1)).count_ones() as usize] = byte;
        }
        written = at;
        if stop < 32 {
            read += stop;
            break;
        }
        // The continuation bytes of a character that starts in the step are taken
        // too, so that each step starts at a character.
        read = super::next_character(src, read + 32);
    }
    (read, written)
}

#[cfg(test)]
mod tests {
    use super::super::scalar;
    use super::super::utf8_check::tests::{
        around, dense_samples, long_sequences, long_texts, mode_switches, random_inputs, run_texts, same_as_twins,
        scattered_letters, short_sequences, window_edges, with_and_without_the_prefetch,
    };
    use super::*;

    /// Compares the kernels with their twins on `bytes` (the fused copy too when
    /// `copy`).
    fn same(bytes: &[u8], copy: bool) {
        assert!(cpu_has(), "the callers check the CPU first");
        same_as_twins(bytes, copy, &CHECKS);
    }

    /// `next_window` (the trait's default, through memory) against the bytes it is
    /// made of.
    #[test]
    fn next_window_moves_one_byte() {
        if !cpu_has() {
            return;
        }
        /// The test with AVX2 enabled.
        ///
        /// # Safety
        /// The CPU must have AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn with_avx2() {
            // SAFETY: this function enables AVX2, which the caller's CPU has.
            unsafe { super::super::utf8_check::tests::next_window_moves_one_byte::<__m256i>() }
        }
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe { with_avx2() }
    }

    /// Every byte pair (and every lone byte) at the offsets around the first block,
    /// every block boundary of the first two groups and of the single-block loop after
    /// them, and the tail, in inputs that end there or run on.
    #[test]
    fn avx2_short_sequences_at_every_offset() {
        if !cpu_has() {
            return;
        }
        let offsets = (0..=38).chain(around(&[64, 96, 128, 160, 288, 320, 352, 384], 3));
        short_sequences(offsets, 38, &[32, 64, 67, 160, 170], same);
    }

    /// Every lead byte from C0 with every second byte and a sample of third and fourth
    /// bytes (overlongs, surrogates, above U+10FFFF, truncations) across block and
    /// group boundaries.
    #[test]
    fn avx2_long_sequences_at_boundaries() {
        if !cpu_has() {
            return;
        }
        long_sequences(&[0, 29, 30, 31, 62, 126, 157, 158, 159, 286, 318, 381, 382, 383], 32, 64, same);
    }

    #[test]
    fn avx2_random_inputs_at_every_alignment() {
        if !cpu_has() {
            return;
        }
        random_inputs(0x5DEE_CE66_D1CE_4E5B, 1_000_000, 300, same);
    }

    #[test]
    fn avx2_long_texts_with_one_error_anywhere() {
        if !cpu_has() {
            return;
        }
        // Ends of groups, of blocks, and tails.
        long_texts(4242, &[64, 95, 96, 160, 191, 192, 288, 320, 351, 416, 417, 449], 40, same);
    }
    /// Switches between the sparse and the dense mode of the main loop, with errors
    /// and cut characters at every position around them.
    #[test]
    fn avx2_mode_switches() {
        if !cpu_has() {
            return;
        }
        mode_switches(same);
        dense_samples(same, false);
    }

    /// The maps of the windows at their edges, texts of runs of every density, and
    /// text with letters that are not ASCII scattered.
    #[test]
    fn avx2_window_edges_and_run_texts() {
        if !cpu_has() {
            return;
        }
        window_edges(BLOCK, same);
        run_texts(0x2F0B_5C1A_77D3_E129, 600, same);
        scattered_letters(0x6A09_E667_F3BC_C908, 200, same);
    }

    /// The check with the prefetch and without (see `with_and_without_the_prefetch`).
    #[test]
    fn avx2_checks_with_and_without_the_prefetch() {
        if !cpu_has() {
            return;
        }
        with_and_without_the_prefetch(same);
    }

    /// The ASCII kernels against their scalar twins (see
    /// `scalar::tests::ascii_kernels_match_twins`), at 33 alignments.
    #[test]
    fn avx2_ascii_kernels_match_scalar_twins() {
        if !cpu_has() {
            return;
        }
        // SAFETY (each kernel call): the CPU has AVX2, as checked.
        let kernels = scalar::tests::AsciiKernels {
            copy_ascii_to_ascii: &|src, dst| unsafe { copy_ascii_to_ascii(src, dst) },
            copy_ascii_to_utf16: &|src, dst| unsafe { copy_ascii_to_utf16(src, dst) },
            copy_utf16_ascii_to_bytes: &|src, dst| unsafe { copy_utf16_ascii_to_bytes(src, dst) },
            utf16_bytes_to_units: Some(&|src, dst, big_endian| unsafe { utf16_bytes_to_units(src, dst, big_endian) }),
            utf16_bytes_ascii_to_bytes: Some(&|src, dst, big_endian| unsafe {
                utf16_bytes_ascii_to_bytes(src, dst, big_endian)
            }),
        };
        scalar::tests::ascii_kernels_match_twins(&kernels, 33);
    }

    /// The linear-run encoder against its scalar twin (see
    /// `scalar::tests::encode_utf16_linear_matches_twin`).
    #[test]
    fn avx2_encode_utf16_linear_matches_scalar_twin() {
        if !cpu_has() {
            return;
        }
        // SAFETY: the CPU has AVX2, as checked.
        scalar::tests::encode_utf16_linear_matches_twin(&|src, dst, start, len, delta| unsafe {
            encode_utf16_linear(src, dst, start, len, delta)
        });
    }

    /// The steps from UTF-8 into a single-byte encoding (see
    /// `scalar::tests::check_utf8_single_byte_steps`): at most 8 bytes written past
    /// them (a group's store).
    #[test]
    fn avx2_linear_steps_from_utf8_match_the_run() {
        if !cpu_has() || !super::super::cpu_has!("popcnt") {
            return;
        }
        scalar::tests::check_utf8_single_byte_steps(32, 8, |src, out, run, table, wide| {
            // SAFETY: the CPU has AVX2 and POPCNT, as checked above.
            unsafe {
                if wide {
                    linear_steps_from_utf8::<true>(src, out, run, table)
                } else {
                    linear_steps_from_utf8::<false>(src, out, run, table)
                }
            }
        });
    }

    /// Text of characters of every length, in runs and mixed, at every alignment and
    /// every length, against the scalar twin (the SSSE3 kernel's test).
    #[test]
    fn avx2_utf8_to_utf16_matches_scalar_twin() {
        if !cpu_has() {
            return;
        }
        // SAFETY: the CPU has AVX2, as just checked.
        super::super::ssse3::tests::check_utf8_to_utf16(|s, dst| unsafe { utf8_to_utf16(s, dst) });
    }
}
