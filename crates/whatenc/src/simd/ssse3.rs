//! SSSE3 kernels, chosen at run time (with `std`) where the CPU has SSSE3. Each one
//! is the twin of a function in [`super::scalar`] and is tested against it.
//!
//! The UTF-8 check ([`CHECKS`], alone and fused with a copy) is the AVX2 kernel's,
//! in [`super::utf8_check`], with 16-byte vectors in steps of the same bytes. Before
//! it, the tier below AVX2 validated with simdutf8, whose SIMD kernels need SSE4.2
//! (without it, the standard library's check), and copied in a second pass.
//!
//! [`utf8_to_utf16`] transcodes valid UTF-8 a block at a time: the continuation
//! bytes among the next 16 tell where the characters of the first 12 end; that
//! 12-bit mask picks one of the `PATTERNS` (in `super::shuffles`), which gathers the bytes of the first
//! six characters (when none is longer than two bytes) or the first four (when none
//! is longer than three) into one lane each with one byte shuffle, where a few
//! masks and shifts make the code units. A four-byte character goes through the
//! scalar code. The patterns are computed at compile time from their index. A
//! chunk of 64 ASCII bytes is widened at once, with no masks or steps.
//!
//! [`three_byte_run`] decodes runs of three-byte characters in one pass, checking
//! them as it goes, five at a step: the scalar pass of `super::utf8_prefix_to_utf16`
//! is compiled for SSSE3 with it ([`Utf8Prefix`]).

use core::arch::x86_64::{
    __m128i, _mm_alignr_epi8, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpeq_epi16, _mm_cmpgt_epi8,
    _mm_cmplt_epi8, _mm_loadu_si128, _mm_maddubs_epi16, _mm_movemask_epi8, _mm_or_si128, _mm_packs_epi16,
    _mm_packus_epi16, _mm_set1_epi8, _mm_set1_epi16, _mm_set1_epi32, _mm_setr_epi8, _mm_setzero_si128,
    _mm_shuffle_epi8, _mm_slli_epi16, _mm_srli_epi16, _mm_srli_epi32, _mm_srli_si128, _mm_storel_epi64,
    _mm_storeu_si128, _mm_sub_epi16, _mm_subs_epu8, _mm_subs_epu16, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    _mm_xor_si128,
};

use super::Utf8PrefixPass;
use super::scalar::Runs;
use super::shuffles::{
    FALLBACK, KEEP_SHUFFLES, PATTERNS, RUN_BITS, RUN_LEADS, RUN_SHAPE, RUN_SHAPE_MASK, RUN_TAILS, TWO_BYTE_PATTERNS,
    one_character, pattern_of_ends,
};
use super::utf8_check::{self, Bytes, COPY_STEP, Checks, DENSE, Steps};

/// Whether these kernels run: the cap on the tier ([`crate::tier`]) allows SSSE3,
/// and the CPU has it (`std` caches the answer; without `std`, only when the build
/// targets it).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::allows(crate::tier::Tier::Ssse3) && cpu_has()
}

/// Whether the CPU has SSSE3, whatever the cap on the tier: what the kernels' safety
/// rests on, where the tier was chosen once for a whole bulk call.
#[inline(always)]
pub(crate) fn cpu_has() -> bool {
    super::cpu_has!("ssse3")
}

impl Bytes for __m128i {
    const LEN: usize = 16;
    const DENSE_SAMPLE: usize = utf8_check::DENSE_SAMPLE;
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the trait's contract: 16 readable bytes at `p`; SSE2 is x86_64's
        // baseline.
        unsafe { _mm_loadu_si128(p.cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the trait's contract: 16 writable bytes at `p`.
        unsafe { _mm_storeu_si128(p.cast(), self) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY (this method and those below): SSE2 is the baseline, and the trait's
        // contract gives SSSE3 for `lookup`.
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Self {
        unsafe { _mm_set1_epi8(byte as i8) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { _mm_or_si128(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { _mm_and_si128(self, other) }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        unsafe { _mm_xor_si128(self, other) }
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        unsafe { _mm_subs_epu8(self, other) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // `pshufb` gives zero for an index with its sign bit set: masked to the nibble.
        unsafe { _mm_and_si128(_mm_srli_epi16::<4>(self), _mm_set1_epi8(0x0F)) }
    }
    #[inline(always)]
    unsafe fn lookup(self, indexes: Self) -> Self {
        unsafe { _mm_shuffle_epi8(self, indexes) }
    }
    #[inline(always)]
    unsafe fn next_window(self, next: Self) -> Self {
        unsafe { _mm_alignr_epi8::<1>(next, self) }
    }
    #[inline(always)]
    unsafe fn any_high(self) -> bool {
        unsafe { _mm_movemask_epi8(self) != 0 }
    }
    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        // No `ptest` before SSE4.1: the bytes equal to zero, all sixteen.
        unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self, _mm_setzero_si128())) == 0xFFFF }
    }
}

/// The UTF-8 check of [`super::utf8_check`] with 16-byte vectors: its dense steps of
/// the same bytes as the AVX2 kernel's (twice the blocks), and the fused copy's steps
/// of the same blocks, four (64 bytes, half the AVX2 kernel's). Eight blocks, with
/// the check's tables and constants, did not fit the sixteen XMM registers: the
/// steps that hold their blocks between the sign test and the check moved some to
/// the stack and back, the ASCII ones too, and a step that meets an error far more.
/// SSSE3 tier, rotating, `AMD EPYC` Zen 1, µs, eight blocks → four (encoding_rs):
/// UTF-8 with a stray byte every 1000 → `String`, en.txt 13.2 → 10.0 (12.6), en.html
/// 141 → 111 (144), de.html 101 → 86 (103), fr.html 345 → 277 (326), th.html 322 →
/// 294 (332), pt.txt 25.0 → 24.1 (26.6); windows-1252 taken for UTF-8 → `String`,
/// de.txt 120 → 106 (142), en.html 131 → 113 (151); UTF-8 → `String` en.txt 5.6 → 5.2
/// (6.7), the other pages within 2% but de.txt, 18.4 → 19.8 (20.7). Two blocks were
/// slower than four (with stray bytes, en.txt 11.4, de.txt 31.7 against eight's
/// 27.7). The benchmark's tier tables (MB/s, session 34's run → this one's two) agree
/// on Latin text with stray bytes (en.txt 4,610 → 5,730–5,740, en.html 4,680 →
/// 5,670–5,790, de.html 3,040 → 3,420–3,520), but the benchmark's binary has dense
/// text with stray bytes 4–11% slower (one document at a time, eight → four: ja.txt
/// 2,905 → 2,647, zh_cn.txt 2,825 → 2,720, ru.txt 3,078 → 2,740), where a call
/// after each error starts in the one-pass steps, which this does not change; the
/// harness, with the same calls on the same versions, has them within 1% (ja.txt
/// 10.44 against 10.40 µs, zh_cn.txt 9.82 against 9.72). Not yet explained: the
/// kernel's machine code is the same in both binaries. `Err(at)` as there.
///
/// # Safety
/// The CPU must have SSSE3; with `COPY`, `dst` must have room for `src.len()` bytes
/// and not overlap `src`.
#[target_feature(enable = "ssse3")]
unsafe fn check<const COPY: bool>(src: &[u8], dst: *mut u8) -> Result<(), usize> {
    // SAFETY: the caller's precondition, and this function enables SSSE3.
    unsafe { utf8_check::check::<__m128i, COPY, { 2 * DENSE }, { COPY_STEP }, 4, true, false>(Steps, src, dst) }
}

/// The check, alone and fused with the copy, and what is made of them; their
/// methods need the CPU to have SSSE3 ([`cpu_has()`]).
pub(super) const CHECKS: Checks = Checks { alone: check::<false>, copying: check::<true> };

/// The check with NEON's copy through the windows (`COPY_WINDOWS`), for the tests
/// to run that generic code natively too (NEON's runs under qemu-user).
///
/// # Safety
/// As [`check`]'s.
#[cfg(test)]
#[target_feature(enable = "ssse3")]
unsafe fn check_through_windows<const COPY: bool>(src: &[u8], dst: *mut u8) -> Result<(), usize> {
    // SAFETY: the caller's precondition, and this function enables SSSE3.
    unsafe { utf8_check::check::<__m128i, COPY, { 2 * DENSE }, { COPY_STEP }, 4, true, true>(Steps, src, dst) }
}

/// Twin of [`super::scalar::utf8_to_utf16`]: transcodes valid UTF-8 to UTF-16; the
/// caller guarantees `dst.len() >= s.len()`. Returns the units written.
///
/// # Safety
/// The CPU must have SSSE3: call it only where [`available`] returned `true`.
#[inline]
pub(crate) unsafe fn utf8_to_utf16(s: &str, dst: &mut [u16]) -> usize {
    debug_assert!(available());
    // SAFETY: the CPU has SSSE3 (the caller's precondition).
    unsafe { utf8_to_utf16_ssse3(s, dst) }
}

/// The masks of the bytes that are not ASCII and of the continuation bytes (0x80 to
/// 0xBF: less than -64 as `i8`) among 16.
///
/// # Safety
/// The CPU must have SSSE3 (SSE2 suffices).
#[inline]
#[target_feature(enable = "ssse3")]
pub(super) unsafe fn masks(block: &[u8; 16]) -> (u32, u32) {
    // SAFETY: `block` holds 16 readable bytes. The CPU has SSSE3: this function enables it, and its
    // callers checked.
    unsafe {
        let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        let continuation = _mm_cmplt_epi8(vector, _mm_set1_epi8(-64));
        (_mm_movemask_epi8(vector) as u32, _mm_movemask_epi8(continuation) as u32)
    }
}

/// The four vectors of a chunk of 64 bytes, and whether all of them are ASCII.
///
/// # Safety
/// The CPU must have SSSE3 (SSE2 suffices).
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn ascii_chunk(chunk: &[u8; 64]) -> (bool, [__m128i; 4]) {
    // SAFETY: `chunk` holds 64 readable bytes. The CPU has SSSE3: this function enables it, and its
    // callers checked.
    unsafe {
        let ptr = chunk.as_ptr().cast::<__m128i>();
        let vectors = [
            _mm_loadu_si128(ptr),
            _mm_loadu_si128(ptr.add(1)),
            _mm_loadu_si128(ptr.add(2)),
            _mm_loadu_si128(ptr.add(3)),
        ];
        let any = _mm_or_si128(_mm_or_si128(vectors[0], vectors[1]), _mm_or_si128(vectors[2], vectors[3]));
        (_mm_movemask_epi8(any) == 0, vectors)
    }
}

/// Widens four vectors of ASCII bytes into `out`.
///
/// # Safety
/// The CPU must have SSSE3 (SSE2 suffices).
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn widen_chunk(vectors: &[__m128i; 4], out: &mut [u16; 64]) {
    // SAFETY: `out` holds 64 writable u16s, i.e. eight 16-byte vectors. The CPU has SSSE3: this
    // function enables it, and its callers checked.
    unsafe {
        let zero = _mm_setzero_si128();
        let ptr = out.as_mut_ptr().cast::<__m128i>();
        for (i, &vector) in vectors.iter().enumerate() {
            _mm_storeu_si128(ptr.add(2 * i), _mm_unpacklo_epi8(vector, zero));
            _mm_storeu_si128(ptr.add(2 * i + 1), _mm_unpackhi_epi8(vector, zero));
        }
    }
}

/// [`masks`] of a loaded vector.
///
/// # Safety
/// The CPU must have SSSE3 (SSE2 suffices).
#[inline]
#[target_feature(enable = "ssse3")]
unsafe fn vector_masks(vector: __m128i) -> (u32, u32) {
    let continuation = _mm_cmplt_epi8(vector, _mm_set1_epi8(-64));
    (_mm_movemask_epi8(vector) as u32, _mm_movemask_epi8(continuation) as u32)
}

/// One step at the start of `bytes[read..read + 16]` (a character boundary):
/// `ascii` is the number of ASCII bytes there (at least 16 when all are), `ends`
/// the mask of the bytes that end a character among the first 12. Returns the bytes
/// read and the units written. `dst[written..]` has room for 16 units.
///
/// # Safety
/// The CPU must have SSSE3, and the caller be compiled with it: the step has no
/// `#[target_feature]` of its own, so that it is always inlined, into the AVX2
/// kernel too (there LLVM called it, with a `vzeroupper` before each call: the AVX2
/// kernel measured 25–35% slower than this one on Arabic text, `Intel Xeon`
/// Cascade Lake).
#[inline(always)]
pub(super) unsafe fn step(
    s: &str,
    read: usize,
    ascii: u32,
    ends: u32,
    dst: &mut [u16],
    written: usize,
) -> (usize, usize) {
    let bytes = s.as_bytes();
    let block: &[u8; 16] = bytes[read..read + 16].try_into().unwrap_or(&[0; 16]);
    if ascii >= 6 {
        // An ASCII run (all 16 bytes when `ascii` is 16 or more): widen the block,
        // keep the run.
        let out = &mut dst[written..written + 16];
        // SAFETY: `block` holds 16 readable bytes, `out` 16 writable units, i.e. two
        // 16-byte vectors. The CPU has SSSE3: this function enables it, and its callers checked.
        unsafe {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let zero = _mm_setzero_si128();
            let ptr = out.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(ptr, _mm_unpacklo_epi8(vector, zero));
            _mm_storeu_si128(ptr.add(1), _mm_unpackhi_epi8(vector, zero));
        }
        let n = ascii.min(16) as usize;
        return (n, n);
    }
    let (index, consumed) = pattern_of_ends(ends);
    let shuffle = &PATTERNS[index as usize];
    if index < FALLBACK {
        // Both kinds of pattern computed, the one that applies kept with no branch:
        // Vietnamese, whose letters take two bytes or three, mispredicted a branch
        // between them at almost every step.
        let two_byte = index < TWO_BYTE_PATTERNS as u16;
        let out = &mut dst[written..written + 8];
        // SAFETY: `block` and `shuffle` hold 16 readable bytes; `out` holds 8
        // writable units (16 bytes), of which those past the units reported written
        // are overwritten later. The CPU has SSSE3: this function enables it, and its
        // callers checked.
        unsafe {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let lanes = _mm_shuffle_epi8(vector, _mm_loadu_si128(shuffle.as_ptr().cast::<__m128i>()));
            // A two-byte pattern, in 16-bit lanes: the last byte's low 7 bits (6 and a
            // zero for a continuation byte), and the leading byte's low 5 bits above them.
            let low = _mm_and_si128(lanes, _mm_set1_epi16(0x7F));
            let high = _mm_srli_epi16(_mm_and_si128(lanes, _mm_set1_epi16(0x1F00)), 2);
            let two = _mm_or_si128(low, high);
            // A three-byte pattern, in 32-bit lanes: last byte 7 bits (6 and a zero for
            // a continuation byte); the one before 6 bits (5 and a zero for a leading
            // byte of two); the leading byte of three 4 bits; then the low two bytes
            // of each lane.
            let low = _mm_and_si128(lanes, _mm_set1_epi32(0x7F));
            let middle = _mm_srli_epi32(_mm_and_si128(lanes, _mm_set1_epi32(0x3F00)), 2);
            let high = _mm_srli_epi32(_mm_and_si128(lanes, _mm_set1_epi32(0x0F_0000)), 4);
            let values = _mm_or_si128(_mm_or_si128(low, middle), high);
            let three =
                _mm_shuffle_epi8(values, _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1));
            let keep_two = _mm_set1_epi8(-i8::from(two_byte));
            let units = _mm_or_si128(_mm_and_si128(keep_two, two), _mm_andnot_si128(keep_two, three));
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), units);
        }
        (consumed, if two_byte { 6 } else { 4 })
    } else {
        // A character of four bytes among the first four: one character, scalar.
        one_character(s, read, dst, written)
    }
}

/// The most bytes that are not ASCII in a chunk of 64 that is "sparse": after a
/// chunk that was sparse too or ASCII, the UTF-8 → UTF-16 kernels (this one and
/// the AVX2 one) hand the text over to [`super::scalar::utf8_to_utf16_sparse`],
/// which goes on while it stays so.
///
/// There, a character that is not ASCII in 30 to 60 bytes (German, French,
/// Portuguese), the shuffle steps take one dependent step per ASCII run and one
/// per character, and the branch on "all ASCII" per chunk mispredicts (a third of
/// the chunks are); the scalar loop's branches cost less. UTF-8 → UTF-16 against
/// encoding_rs, rotating, `Intel Xeon` Cascade Lake, AVX2 tier: de.txt 0.90 →
/// 1.10, pt.txt 0.94 → 1.15, fr.txt 1.14 → 1.32, de.html 0.94 → 1.05; dense text
/// unchanged, within 2–6% (Czech, Chinese and Arabic pages). A chunk needs a calm
/// one before it, so that a sparse chunk among dense ones (a number in Thai text)
/// does not hand over for a few characters only.
pub(super) const SPARSE_BYTES: u32 = 4;

/// The hand-over of [`SPARSE_BYTES`]: for the chunk of 64 bytes at `read` with
/// `non_ascii` (one bit per byte that is not ASCII), after a chunk that was
/// `calm`, converts with [`super::scalar::utf8_to_utf16_sparse`] and returns what
/// it read and wrote; otherwise returns `None`, and the kernel steps through the
/// chunk. Updates `calm` for the next chunk.
///
/// `read` is a character boundary of `s`, and `dst[written..]` has room for as
/// many units as `s` has bytes from `read`.
#[inline(always)]
pub(super) fn hand_over_sparse(
    s: &str,
    read: usize,
    non_ascii: u64,
    calm: &mut bool,
    dst: &mut [u16],
    written: usize,
) -> Option<(usize, usize)> {
    let sparse = non_ascii.count_ones() <= SPARSE_BYTES;
    let hand_over = sparse && *calm;
    // Where the scalar loop stopped, the characters came close together: the
    // steps take the next chunk.
    *calm = sparse && !hand_over;
    hand_over.then(|| super::scalar::utf8_to_utf16_sparse(&s[read..], &mut dst[written..]))
}

/// [`utf8_to_utf16`] compiled for SSSE3.
///
/// # Safety
/// The CPU must have SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn utf8_to_utf16_ssse3(s: &str, dst: &mut [u16]) -> usize {
    let bytes = s.as_bytes();
    assert!(dst.len() >= bytes.len());
    let mut read = 0;
    let mut written = 0;
    // Whether the last chunk was ASCII or sparse (see `SPARSE_BYTES`).
    let mut calm = false;
    // Each byte read makes at most one unit, so `dst` has room for as many units as
    // there are bytes left: 16 while a block is read.
    //
    // The masks of 64 bytes at once, so that the steps over them depend on each
    // other only through a table lookup; 64 ASCII bytes are widened at once.
    while read + 64 <= bytes.len() {
        let chunk: &[u8; 64] = bytes[read..read + 64].try_into().unwrap_or(&[0; 64]);
        // SAFETY: the CPU has SSSE3; `chunk` holds 64 readable bytes.
        let (ascii, vectors) = unsafe { ascii_chunk(chunk) };
        if ascii {
            // `dst` has room for as many units as there are bytes left.
            if let Some(out) = dst[written..].first_chunk_mut::<64>() {
                // SAFETY: the CPU has SSSE3.
                unsafe { widen_chunk(&vectors, out) };
                read += 64;
                written += 64;
                calm = true;
                continue;
            }
        }
        let (mut non_ascii, mut continuation) = (0u64, 0u64);
        for (i, &vector) in vectors.iter().enumerate() {
            // SAFETY: the CPU has SSSE3.
            let (n, c) = unsafe { vector_masks(vector) };
            non_ascii |= (n as u64) << (16 * i);
            continuation |= (c as u64) << (16 * i);
        }
        if let Some((r, w)) = hand_over_sparse(s, read, non_ascii, &mut calm, dst, written) {
            read += r;
            written += w;
            continue;
        }
        // Byte i ends a character when byte i + 1 starts one.
        let ends = !continuation >> 1;
        let mut offset = 0;
        while offset <= 48 {
            let ascii = (non_ascii >> offset).trailing_zeros();
            // SAFETY: the CPU has SSSE3.
            let (r, w) = unsafe { step(s, read + offset, ascii, (ends >> offset) as u32, dst, written) };
            offset += r;
            written += w;
        }
        read += offset;
    }
    while read + 16 <= bytes.len() {
        let block = bytes[read..][..16].try_into().unwrap_or(&[0; 16]);
        // SAFETY: the CPU has SSSE3.
        let (non_ascii, continuation) = unsafe { masks(block) };
        let ascii = non_ascii.trailing_zeros();
        // SAFETY: the CPU has SSSE3.
        let (r, w) = unsafe { step(s, read, ascii, !continuation >> 1, dst, written) };
        read += r;
        written += w;
    }
    written + super::scalar::utf8_to_utf16(&s[read..], &mut dst[written..])
}

/// Twin of [`super::scalar::three_byte_run`]: decodes the longest run of whole,
/// valid three-byte sequences at `src[read..]` into `dst[written..]`; returns where
/// it stopped in each. Up to five characters a step, in one pass: of the 16 bytes
/// at the step's start, those with the shape of three-byte sequences (a lead from
/// E0 to EF, two continuation bytes) that give units neither overlong (below
/// U+0800) nor surrogates. The step stores eight units, of which those after the
/// run's are overwritten later or lie beyond what is returned. A step of fewer than
/// five ends the run, with no branch per character; where fewer than 16 bytes are
/// left, the scalar twin goes on.
///
/// # Safety
/// The CPU must have SSSE3, and the caller be compiled with it (as [`step`]).
#[inline(always)]
pub(super) unsafe fn three_byte_run(
    src: &[u8],
    dst: &mut [u16],
    mut read: usize,
    mut written: usize,
) -> (usize, usize) {
    // SAFETY (the block): the CPU has SSSE3 (the caller's precondition); the loads
    // and the store are checked slices of 16 bytes and 8 units.
    unsafe {
        let load = |bytes: &[u8; 16]| _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>());
        let (shape_mask, shape, bits) = (load(&RUN_SHAPE_MASK), load(&RUN_SHAPE), load(&RUN_BITS));
        // The two continuation bytes of each character into a 16-bit lane (last
        // byte low), and the lead byte into the high byte of another.
        let (tails, leads) = (load(&RUN_TAILS), load(&RUN_LEADS));
        while let (Some(block), Some(out)) = (src.get(read..read + 16), dst.get_mut(written..written + 8)) {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let shaped = _mm_cmpeq_epi8(_mm_and_si128(vector, shape_mask), shape);
            let payload = _mm_and_si128(vector, bits);
            // The last byte's six bits, and the middle byte's six above them.
            let low = _mm_maddubs_epi16(_mm_shuffle_epi8(payload, tails), _mm_set1_epi16(0x4001));
            let high = _mm_slli_epi16(_mm_shuffle_epi8(payload, leads), 4);
            let units = _mm_or_si128(low, high);
            // Overlong (the top five bits zero) or a surrogate (11011).
            let top = _mm_and_si128(units, _mm_set1_epi16(0xF800_u16 as i16));
            let bad = _mm_or_si128(
                _mm_cmpeq_epi16(top, _mm_setzero_si128()),
                _mm_cmpeq_epi16(top, _mm_set1_epi16(0xD800_u16 as i16)),
            );
            // The characters before the first of the wrong shape (three bytes each),
            // and before the first bad unit (two mask bits each; lanes 5 to 7 are
            // zero, so bad): the run's characters here, all five, or where it ends.
            let shaped = (_mm_movemask_epi8(shaped) as u32).trailing_ones() / 3;
            let good = (_mm_movemask_epi8(bad) as u32).trailing_zeros() / 2;
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), units);
            match super::scalar::three_byte_step_end(shaped, good, read, written) {
                Ok(next) => (read, written) = next,
                Err(end) => return end,
            }
        }
    }
    super::scalar::three_byte_run(src, dst, read, written)
}

/// The scalar stages of [`super::utf8_prefix_to_utf16`] compiled for SSSE3, with
/// [`three_byte_run`] for the runs of three-byte characters: made only where
/// [`available`] said yes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Utf8Prefix(());

impl Utf8Prefix {
    /// A `Utf8Prefix` where these kernels run.
    #[inline(always)]
    pub(super) fn new() -> Option<Utf8Prefix> {
        available().then_some(Utf8Prefix(()))
    }
}

impl Utf8PrefixPass for Utf8Prefix {
    #[inline(always)]
    fn pass<const HAND_OVER: bool>(self, src: &[u8], dst: &mut [u16]) -> (usize, usize, bool) {
        // SAFETY: a `Utf8Prefix` exists only where the CPU has SSSE3 (see `new`).
        unsafe { utf8_prefix_pass::<HAND_OVER>(src, dst) }
    }
}

/// The most other characters (looked up in the index) in a step of
/// [`linear_steps_from_utf8`] whose bytes are written after its stores, each where
/// its lane's byte went; with more, they are written into the step's lanes before
/// the packing (as AVX2's `FEW_OTHERS`).
const FEW_OTHERS: usize = 4;

/// Encodes valid UTF-8 into a single-byte encoding, 16 bytes a step: the SSSE3 twin
/// of the AVX2 kernel's `linear_steps_from_utf8` (ASCII as itself, the index's run
/// `(start, len, delta)` from two-byte UTF-8, or three-byte with `WIDE`, in 16-bit
/// lanes, other characters from `index` one at a time), the bytes kept packed by
/// `pshufb` eight at a time (`KEEP_SHUFFLES`), ASCII runs 32 bytes a step. Returns
/// the bytes read and written; it stops at the start of the first character not in
/// the index, where fewer than 17 bytes are left (18 with `WIDE`), or 16 bytes of
/// room. It may write up to 8 bytes past the bytes it returns.
///
/// `src` starts at a character and is valid UTF-8 (a `&str`'s bytes).
///
/// # Safety
/// The CPU must have SSSE3.
#[target_feature(enable = "ssse3")]
pub(crate) unsafe fn linear_steps_from_utf8<const WIDE: bool>(
    src: &[u8],
    dst: &mut [u8],
    (start, len, delta): (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    let set8 = |byte: u8| _mm_set1_epi8(byte as i8);
    let (start, last, delta) =
        (_mm_set1_epi16(start as i16), _mm_set1_epi16(len.wrapping_sub(1) as i16), _mm_set1_epi16(delta as i16));
    let zero = _mm_setzero_si128();
    // The bytes a step reads: 16, and those of a sequence that starts at its end.
    let reach = if WIDE { 18 } else { 17 };
    while read + reach <= src.len() && written + 16 <= dst.len() {
        // SAFETY: `src` holds the `reach` bytes at `read` (`after` is read only for a
        // three-byte run, when `reach` is 18).
        let (bytes, next, after) = unsafe {
            let p = src.as_ptr().add(read);
            let after = if WIDE { _mm_loadu_si128(p.add(2).cast()) } else { zero };
            (_mm_loadu_si128(p.cast()), _mm_loadu_si128(p.add(1).cast()), after)
        };
        let not_ascii = _mm_movemask_epi8(bytes) as u32;
        if not_ascii == 0 {
            // SAFETY: 16 writable bytes at `written`.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().add(written).cast(), bytes) };
            read += 16;
            written += 16;
            // A run: 32 bytes a step while they are ASCII.
            while read + 32 <= src.len() && written + 32 <= dst.len() {
                // SAFETY: 32 readable bytes at `read`, 32 writable ones at `written`.
                unsafe {
                    let p = src.as_ptr().add(read);
                    let (low, high) = (_mm_loadu_si128(p.cast()), _mm_loadu_si128(p.add(16).cast()));
                    if _mm_movemask_epi8(_mm_or_si128(low, high)) != 0 {
                        break;
                    }
                    let out = dst.as_mut_ptr().add(written);
                    _mm_storeu_si128(out.cast(), low);
                    _mm_storeu_si128(out.add(16).cast(), high);
                }
                read += 32;
                written += 32;
            }
            continue;
        }
        let continuation = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(bytes, set8(0xC0)), set8(0x80))) as u32;
        let lead = if WIDE {
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(bytes, set8(0xF0)), set8(0xE0)))
        } else {
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(bytes, set8(0xE0)), set8(0xC0)))
        } as u32;
        // Each byte with the one (or two) after it as such a sequence's code point,
        // its byte, and whether it is in the run, eight at a time.
        let half = |bytes: __m128i, next: __m128i, after: __m128i| {
            let low6 = |units| _mm_and_si128(units, _mm_set1_epi16(0x3F));
            let code_point = if WIDE {
                _mm_or_si128(_mm_or_si128(_mm_slli_epi16::<12>(bytes), _mm_slli_epi16::<6>(low6(next))), low6(after))
            } else {
                _mm_or_si128(_mm_slli_epi16::<6>(_mm_and_si128(bytes, _mm_set1_epi16(0x1F))), low6(next))
            };
            // `unit - start < len` (unsigned) is `(unit - start) -sat (len - 1) == 0`.
            let in_run = _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16(code_point, start), last), zero);
            (_mm_sub_epi16(code_point, delta), in_run)
        };
        let (low, low_in_run) =
            half(_mm_unpacklo_epi8(bytes, zero), _mm_unpacklo_epi8(next, zero), _mm_unpacklo_epi8(after, zero));
        let (high, high_in_run) =
            half(_mm_unpackhi_epi8(bytes, zero), _mm_unpackhi_epi8(next, zero), _mm_unpackhi_epi8(after, zero));
        let mapped = _mm_packus_epi16(low, high);
        let in_run = _mm_movemask_epi8(_mm_packs_epi16(low_in_run, high_in_run)) as u32;
        let ascii_lanes = _mm_cmpgt_epi8(bytes, _mm_set1_epi8(-1));
        let kept_bytes = _mm_or_si128(_mm_and_si128(ascii_lanes, bytes), _mm_andnot_si128(ascii_lanes, mapped));
        // The other characters' starts, in order, up to one not in the index: their
        // bytes, written over the packed ones below.
        let others = not_ascii & !(continuation | (lead & in_run));
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
            let mut lanes = [0u8; 16];
            // SAFETY: `lanes` holds 16 bytes.
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), kept_bytes) };
            let stop = super::look_up_others(others, src, read, index, |at, byte| lanes[at] = byte);
            // SAFETY: as above.
            (unsafe { _mm_loadu_si128(lanes.as_ptr().cast()) }, stop)
        };
        let keep = !continuation & if stop < 16 { (1u32 << stop) - 1 } else { 0xFFFF };
        // Eight bytes at a time, packed and stored whole: each store's bytes after
        // the kept ones are overwritten by the next, or are past the output.
        let mut at = written;
        for (group, group_bytes) in [kept_bytes, _mm_srli_si128::<8>(kept_bytes)].into_iter().enumerate() {
            let mask = (keep >> (8 * group)) as u8;
            // SAFETY: `dst` holds 8 writable bytes at `at`, which is at most
            // `written + 8`; the table's row is 16 bytes.
            unsafe {
                let shuffle = _mm_loadu_si128(KEEP_SHUFFLES[mask as usize].as_ptr().cast());
                _mm_storel_epi64(dst.as_mut_ptr().add(at).cast(), _mm_shuffle_epi8(group_bytes, shuffle));
            }
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
    (read, written)
}

/// [`super::scalar::utf8_prefix_to_utf16`] compiled for SSSE3, with
/// [`three_byte_run`].
///
/// # Safety
/// The CPU must have SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn utf8_prefix_pass<const HAND_OVER: bool>(src: &[u8], dst: &mut [u16]) -> (usize, usize, bool) {
    // The CPU has SSSE3 (the caller's precondition), and this function is compiled
    // with it: what a `Ssse3Runs` stands for.
    super::scalar::utf8_prefix_pass::<HAND_OVER, _>(src, dst, Ssse3Runs(()))
}

/// [`three_byte_run`] as a [`Runs`]: made only in [`utf8_prefix_pass`],
/// where the CPU has SSSE3 and the code is compiled with it.
#[derive(Debug, Clone, Copy)]
struct Ssse3Runs(());

impl Runs for Ssse3Runs {
    #[inline(always)]
    fn three_byte(self, src: &[u8], dst: &mut [u16], read: usize, written: usize) -> (usize, usize) {
        // SAFETY: a `Ssse3Runs` exists only where the CPU has SSSE3 and the code is
        // compiled with it (see the type).
        unsafe { three_byte_run(src, dst, read, written) }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::scalar;
    use super::super::utf8_check::Checks;
    use super::super::utf8_check::tests::{
        copy_through_windows, same_as_twins, sixteen_byte_checks, with_and_without_the_prefetch,
    };
    use super::{CHECKS, cpu_has};
    use alloc::string::String;
    use alloc::vec;

    /// The steps from UTF-8 into a single-byte encoding (see
    /// `scalar::tests::check_utf8_single_byte_steps`): at most 8 bytes written past
    /// them (a group's store).
    #[test]
    fn ssse3_linear_steps_from_utf8_match_the_run() {
        if !cpu_has() {
            return;
        }
        scalar::tests::check_utf8_single_byte_steps(16, 8, |src, out, run, table, wide| {
            // SAFETY: the CPU has SSSE3, as checked above.
            unsafe {
                if wide {
                    super::linear_steps_from_utf8::<true>(src, out, run, table)
                } else {
                    super::linear_steps_from_utf8::<false>(src, out, run, table)
                }
            }
        });
    }

    /// Compares the UTF-8 check's kernels with their twins on `bytes` (the fused copy
    /// too when `copy`).
    fn same(bytes: &[u8], copy: bool) {
        assert!(cpu_has(), "the callers check the CPU first");
        same_as_twins(bytes, copy, &CHECKS);
    }

    /// All of `sixteen_byte_checks`' cases, or the lighter set.
    const THOROUGH: bool = true;

    /// The same for the copy through the windows.
    fn same_through_windows(bytes: &[u8], copy: bool) {
        assert!(cpu_has(), "the callers check the CPU first");
        let checks = Checks { alone: super::check::<false>, copying: super::check_through_windows::<true> };
        same_as_twins(bytes, copy, &checks);
    }

    /// The copy through the windows, which NEON's kernel takes, against its twins
    /// (see `copy_through_windows`).
    #[test]
    fn ssse3_copy_through_windows_matches_twins() {
        if !cpu_has() {
            return;
        }
        copy_through_windows(same_through_windows);
    }

    /// The UTF-8 check against its twins (see `sixteen_byte_checks`), run natively.
    #[test]
    fn ssse3_check_matches_twins() {
        if !cpu_has() {
            return;
        }
        sixteen_byte_checks(same, THOROUGH);
    }

    /// `next_window` (`palignr`) against the bytes it is made of: called from here,
    /// the intrinsic runs as a call of its own with SSSE3 enabled (a 16-byte vector
    /// passes in SSE2's registers, x86_64's baseline).
    #[test]
    fn next_window_moves_one_byte() {
        if !cpu_has() {
            return;
        }
        // SAFETY: the CPU has SSSE3 (checked above).
        unsafe { super::super::utf8_check::tests::next_window_moves_one_byte::<core::arch::x86_64::__m128i>() }
    }

    /// `ascii_map` (the trait's default, a sign-bit test a vector) against the bytes.
    #[test]
    fn ascii_map_matches_bytes() {
        if !cpu_has() {
            return;
        }
        // SAFETY: the CPU has SSSE3 (checked above).
        unsafe { super::super::utf8_check::tests::ascii_map_matches_bytes::<core::arch::x86_64::__m128i>() }
    }

    /// The check with the prefetch and without (see `with_and_without_the_prefetch`).
    #[test]
    fn ssse3_checks_with_and_without_the_prefetch() {
        if !cpu_has() {
            return;
        }
        with_and_without_the_prefetch(same);
    }

    /// The kernel compiled for SSSE3, as `utf8_prefix_pass` has it.
    ///
    /// # Safety
    /// The CPU must have SSSE3.
    #[target_feature(enable = "ssse3")]
    unsafe fn three_byte_run_ssse3(src: &[u8], dst: &mut [u16], read: usize, written: usize) -> (usize, usize) {
        // SAFETY: the CPU has SSSE3, and this function is compiled with it.
        unsafe { super::three_byte_run(src, dst, read, written) }
    }

    /// Runs of three-byte characters against the scalar twin (see
    /// `scalar::tests::three_byte_run_cases`).
    #[test]
    fn three_byte_run_matches_scalar_twin() {
        if !cpu_has() {
            return;
        }
        // SAFETY: the CPU has SSSE3, as just checked.
        scalar::tests::three_byte_run_cases(|src, dst, read, written| unsafe {
            three_byte_run_ssse3(src, dst, read, written)
        });
    }

    /// Text of characters of every length, in runs and mixed, at every alignment and
    /// every length, against the scalar twin.
    #[test]
    fn utf8_to_utf16_matches_scalar_twin() {
        if !super::available() {
            return;
        }
        // SAFETY: the CPU has SSSE3, as just checked.
        check_utf8_to_utf16(|s, dst| unsafe { super::utf8_to_utf16(s, dst) });
    }

    /// Compares `kernel`, a UTF-8 → UTF-16 kernel, with the scalar twin (the AVX2
    /// kernel's test calls it too).
    pub(in super::super) fn check_utf8_to_utf16(kernel: impl Fn(&str, &mut [u16]) -> usize) {
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
            "\u{e000}",
            "\u{1F600}",
            "\u{10000}",
            "\u{10ffff}",
            "  ",
            "\u{e01}\u{e49}",
            "xyz0123456789",
        ];
        // A pseudo-random mix, plus runs of each piece.
        let mut text = String::new();
        let mut state = 12345u32;
        for _ in 0..400 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            text.push_str(pieces[(state >> 16) as usize % pieces.len()]);
        }
        for piece in pieces {
            for _ in 0..40 {
                text.push_str(piece);
            }
        }
        // Text with a character that is not ASCII every 20 to 80 bytes, which the
        // kernels hand over to the scalar loop, between runs where they come close
        // together, where it hands them back, at every start.
        let mut sparse = String::new();
        for round in 0..12 {
            let piece = pieces[round % pieces.len()];
            for _ in 0..20 + round * 7 {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let gap = 20 + (state >> 16) as usize % 60;
                sparse.extend(core::iter::repeat_n('a', gap));
                sparse.push_str(pieces[2 + (state >> 8) as usize % 11]);
            }
            for _ in 0..round * 5 {
                sparse.push_str(piece);
            }
        }
        let mut out = vec![0u16; sparse.len()];
        for start in (0..200).filter(|&i| sparse.is_char_boundary(i)) {
            let s = &sparse[start..];
            let n = kernel(s, &mut out);
            assert!(out[..n].iter().copied().eq(s.encode_utf16()), "{start}");
        }
        let starts: alloc::vec::Vec<usize> = (0..text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        for &start in &starts {
            for len in [0, 1, 5, 15, 16, 17, 31, 40, 100, 400] {
                let mut end = (start + len).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                let s = &text[start..end];
                let (mut a, mut b) = (vec![0u16; s.len()], vec![0u16; s.len()]);
                let n = kernel(s, &mut a);
                assert_eq!(n, scalar::utf8_to_utf16(s, &mut b), "{start} {len}");
                assert_eq!(a[..n], b[..n], "{start} {len}");
            }
        }
        // Every 12-bit mask of character ends that valid text can make is decoded the
        // same way: the whole text, once.
        let mut a = vec![0u16; text.len()];
        let n = kernel(&text, &mut a);
        assert_eq!(a[..n], text.encode_utf16().collect::<alloc::vec::Vec<_>>()[..]);
    }
}
