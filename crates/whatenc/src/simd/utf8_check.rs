//! The UTF-8 check of the AVX2, SSSE3 and NEON kernels, written once over [`Bytes`]
//! (a vector of 32 or 16 bytes): the lookup method of Keiser and Lemire ("Validating
//! UTF-8 in less than one instruction per byte") with the AVX-512 kernel's error
//! kinds ([`KINDS`]). The algorithm, the main loop ([`windows`]) and the fused copy
//! are described in the AVX2 kernel's module doc (`super::avx2`); the SSSE3 and NEON
//! kernels take steps of the same size in bytes (twice the blocks). It also holds
//! what the AVX-512 kernel shares with them: the error kinds, the step sizes, the
//! main loop, and the completion of an error's place ([`valid_up_to_after`],
//! [`copy_valid_prefix_after`]).
//!
//! Everything here is `#[inline(always)]`, so that it is compiled into each ISA's
//! `#[target_feature]` entry point (`check` in `super::avx2` and `super::ssse3`; NEON
//! is aarch64's baseline) with that ISA's instructions.

use core::marker::PhantomData;
use core::mem::MaybeUninit;

/// A vector of [`Bytes::LEN`] bytes, with the operations the check needs.
///
/// # Safety
/// Every method needs the CPU to have the vector's instruction set (the callers run
/// inside a `#[target_feature]` function that enables it); the pointer methods need
/// `LEN` readable (or writable) bytes at the pointer.
pub(super) trait Bytes: Copy {
    /// The bytes in a vector.
    const LEN: usize;
    /// [`Windowed::DENSE_SAMPLE`] of the kernels of these vectors: 0 (never), or
    /// [`DENSE_SAMPLE`].
    const DENSE_SAMPLE: usize;
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
    /// The `LEN` bytes that start one byte into `self`: `self`'s after its first,
    /// then `next`'s first (`palignr`, `ext`). This default goes through memory;
    /// the 16-byte vectors, which [`step`]'s one pass takes, have an instruction.
    #[inline(always)]
    unsafe fn next_window(self, next: Self) -> Self {
        let mut bytes = [0u8; 2 * MAX_LEN];
        // SAFETY: `bytes` has room for the two vectors' `2 * LEN <= 2 * MAX_LEN`
        // bytes, and the load reads `LEN` of them from the second; the CPU has the
        // vector's instructions (the trait's contract).
        unsafe {
            self.store(bytes.as_mut_ptr());
            next.store(bytes.as_mut_ptr().add(Self::LEN));
            Self::load(bytes.as_ptr().add(1))
        }
    }
    /// Whether any byte has its sign bit set (is not ASCII).
    unsafe fn any_high(self) -> bool;
    /// Whether [`Bytes::ascii_map`] has an instruction sequence of its own, which
    /// [`map`] then takes for each 16 chunks (NEON: pairwise maxima, against a
    /// horizontal maximum and a move to a general register a chunk).
    const HAS_ASCII_MAP: bool = false;
    /// Bit `15 - i` set where `vectors[i]` has no byte with its sign bit set (the
    /// order of [`map`]'s bits).
    #[inline(always)]
    unsafe fn ascii_map(vectors: [Self; 16]) -> u16 {
        let mut map = 0;
        for vector in vectors {
            // SAFETY: the CPU has the vector's instructions (the trait's contract).
            map = map << 1 | u16::from(!unsafe { vector.any_high() });
        }
        map
    }
    /// Whether every byte is zero.
    unsafe fn is_zero(self) -> bool;
    /// The index of the first byte that is not zero, `LEN` when none: for placing an
    /// error (once a call), so a store and a scalar search.
    #[inline(always)]
    unsafe fn first_nonzero(self) -> usize {
        let mut bytes = [0u8; MAX_LEN];
        // SAFETY: `bytes` has room for `LEN <= MAX_LEN` bytes; the CPU has the
        // vector's instructions (the trait's contract).
        unsafe { self.store(bytes.as_mut_ptr()) };
        bytes[..Self::LEN].iter().position(|&byte| byte != 0).unwrap_or(Self::LEN)
    }
}

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
/// high nibble, of its low nibble, and of the byte's high nibble that make it: the
/// AVX-512 kernel's 64-entry tables and the 16-entry ones here are built from them.
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

/// Blocks per step of the validation kernels' dense mode (see [`windows`]), checked
/// without a branch between them.
pub(super) const DENSE: usize = 8;
/// Bytes per bit of a window's map of the chunks that are not ASCII (see
/// [`windows`]), for the kernels of this module: 64 on x86, 32 on aarch64, whose
/// maps take 16 chunks at a time ([`Bytes::ascii_map`]), so that a chunk costs two
/// loads and an OR more than a bit. Text whose letters that are not ASCII are few
/// but everywhere (German, Portuguese) has more chunks of 32 bytes all ASCII than of
/// 64, which the maps pass over. Under qemu-user, validation, bytes a thousand
/// instructions: de.txt 989 → 1,268, pt.txt 773 → 887, fr.txt 764 → 793, de.html
/// 1,948 → 2,303, ja.html 1,012 → 1,106, ru.html 1,048 → 1,083; en.txt 4,822 →
/// 4,445 (a map costs more a byte), dense text the same (ko.txt 749 → 746). Chunks
/// of 16 bytes went further on Latin text (de.txt 1,518) but back on pages of other
/// scripts (ru.html 972, ja.html 1,018: a check a block, with the loop's
/// bookkeeping each).
const CHUNK: usize = if cfg!(target_arch = "aarch64") { 32 } else { 64 };
/// Chunks in the first window of a call; each next window has twice as many, up to
/// 64 (4 KiB, 2 KiB on aarch64), so that a call that stops at an error early (each error of malformed
/// input ends a call) has read little past it.
const FIRST_WINDOW: usize = 4;
/// The chunks of sixteen in a window, or fewer, not ASCII, that turn the loop
/// sparse, and that keep it so. English text (three to nine chunks in a window of
/// 64) stays sparse; with one and two, it went back and forth, AVX2 en.txt 0.72 →
/// 0.79 µs in cache (`AMD EPYC` Zen 4).
const SPARSE_AT: usize = 2;
const SPARSE_STAY: usize = 3;
/// The bytes of dense steps after which the dense mode of the SSSE3 kernel samples
/// the next 16 chunks (see [`Windowed::DENSE_SAMPLE`]). Pages of scripts other than
/// Latin have stretches of text where the windows turn dense, and after them markup
/// and letters that alternate in most chunks but leave no four steps in a row ASCII
/// (`RUN`), so that the dense mode stayed and checked every ASCII chunk in full: of
/// ar.html, 69% of the bytes went through dense steps, a third of them in ASCII
/// chunks.
///
/// Validation, SSSE3 tier, `AMD EPYC` Zen 5 (family 26 model 2), whatenc / simdutf8
/// (its AVX2 kernel), medians of five runs, no sample → a sample every 8 KiB:
/// rotating ar.html 1.10 → 1.18, ko.html 1.04 → 1.13, ja.html 1.16 → 1.21, ru.html
/// 1.28 → 1.33, de.txt 1.15 → 1.35; fr.txt 0.69 → 0.67 and cs.txt 0.64 → 0.62 (the
/// sample's own cost), pt.txt and ar.txt the same; in cache ar.html 0.43 → 0.54,
/// ko.html 0.42 → 0.52, de.txt 0.44 → 0.51, the others within 2%. To `String`,
/// rotating, against encoding_rs: de.txt 1.19 → 1.37, ja.html 1.26 → 1.32, ar.html
/// 1.17 → 1.21, fr.txt 0.82 → 0.78. A sample every 4 KiB cost the texts more (the
/// check with AVX2: ar.txt, ja.txt and ko.txt 3–4% slower in cache against 1–2%).
/// The AVX2, AVX-512 and NEON kernels do not sample (see their `DENSE_SAMPLE`).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) const DENSE_SAMPLE: usize = 8 << 10;

/// Blocks per step of the validation fused with a copy, in one mode.
pub(super) const COPY_STEP: usize = 4;
/// Steps of the fused copy in a row that had to be checked, after which a step of
/// 16-byte vectors is checked and stored in one pass ([`step`]'s `ALWAYS`): SSSE3
/// UTF-8 → `String` of dense text 2–6% faster (ru.txt 13.5 → 13.3 µs, fr.txt 17.4 →
/// 16.4, ko.txt 2.35 → 2.26, rotating, `AMD EPYC` Zen 4). After one checked step
/// (as the check alone switches) English text lost 12% (en.txt 2.75 → 3.09 µs).
/// AVX2's 32-byte vectors take them too since their stores go in pairs (see
/// [`step`]): UTF-8 → `String`, µs, rotating, `AMD EPYC` Zen 1, ja.txt 6.6 → 5.9,
/// ko.txt 4.0 → 3.6, ru.txt 24.0 → 22.1, cs.txt 10.0 → 8.9, th.txt 39.4 → 35.5,
/// en.html 82.8 → 76.1, ru.html 128 → 124; en.txt and de.html within 3% either way
/// (with the volatile writes before, 5–15% slower). NEON's 16-byte vectors take the
/// same path (not timed: no aarch64 machine here).
///
/// Those one-pass steps are `DENSE_N` blocks long (256 bytes), as the check alone's
/// dense steps; with the copy, each is checked first, then loaded again from L1 and
/// stored (two blocks a turn: see [`step`]), so that nothing is stored past the
/// first error's block. SSSE3 UTF-8 → `String`, 4–8% less time
/// than steps of 128 bytes stored as they were checked (µs, rotating, `AMD EPYC` Zen
/// 1: ja.txt 7.73 → 7.34, ko.txt 4.79 → 4.59, ar.txt 5.47 → 5.23, ru.txt 28.2 →
/// 27.0, de.txt 19.5 → 17.9, th.txt 44.2 → 42.6, ru.html 153 → 144; en.txt 5.1 either
/// way; encoding_rs, simdutf8's AVX2 kernel then a copy: 7.0, 4.3, 4.9, 28.8, 20.1,
/// 45.7, 166). Those steps had stored each block as it was checked, and an error
/// that starts in the three bytes before a step (shown by its first block) left
/// stores up to 131 bytes past the valid text, three more than
/// [`super::utf8_out::SCRATCH`] (`same_as_twins` now tests the bound). Stored as
/// checked, steps of 256 bytes took 6.8 µs on ja.txt but stored up to 259 bytes
/// past; with the errors tested every four blocks (67 past), 7.8–8.3; with seven
/// blocks stored as checked and the rest after the test (115 past), 7.9. (These
/// figures are from session 33, whose stores after the test were volatile writes
/// that went through the stack; stored in pairs, ja.txt takes 6.1 µs: see [`step`].)
const ALWAYS_AFTER: u32 = 3;

/// With `COPY_WINDOWS` (see [`Steps`]), the bytes of a call that the fused copy's
/// steps take before the rest goes to [`copy_windows`]: the steps stop within a
/// piece of text between two errors, where [`windows`] would map, and check, past
/// the error, and start their windows small again each call. Under qemu-user, bytes
/// a thousand instructions, with the windows from the start pages with stray bytes
/// (an error every thousand bytes) → `String` took twice the instructions; from
/// 4 KiB, a windows-1252 page taken for UTF-8 (an error every few KiB) → `String`
/// 1,850 → 1,552 (en.html; en.txt 1,611 → 1,475); from 8 KiB 1,742 and 1,594, pages
/// of UTF-8 within 1% of 4 KiB's (de.html 1,746 → 1,735); from 16 KiB 1,830 and
/// 1,602, but de.txt 1,058 → 1,002, ja.html 958 → 935.
const WINDOWS_FROM: usize = 8192;

/// [`WINDOWS_FROM`], or what a test set in its place.
#[inline(always)]
fn windows_from() -> usize {
    #[cfg(test)]
    return TEST_WINDOWS_FROM.load(core::sync::atomic::Ordering::Relaxed);
    #[cfg(not(test))]
    WINDOWS_FROM
}

/// What [`windows_from`] returns in tests, so that short inputs reach
/// [`copy_windows`] too.
#[cfg(test)]
static TEST_WINDOWS_FROM: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(WINDOWS_FROM);

/// The errors that [`copy_windows`] placed, for the tests to see that they reach it.
#[cfg(test)]
static COPY_WINDOWS_ERRORS: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// Asks for the cache lines `distance` bytes ahead of `pos` in `src`: with `CLAMP`,
/// x86_64's `prefetch_ahead` (the fused copy's), else its `prefetch_ahead_unclamped`
/// (the check alone's, whose windows stop asking `distance` bytes before the end:
/// see [`prefetched_through`]); on aarch64, nothing (its prefetch intrinsic is not
/// stable).
#[inline(always)]
fn prefetch_ahead<const CLAMP: bool>(src: &[u8], pos: usize, distance: usize, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    if CLAMP {
        super::x86_64::prefetch_ahead(src, pos, distance, lines);
    } else {
        super::x86_64::prefetch_ahead_unclamped(src, pos, distance, lines);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (src, pos, distance, lines);
}

/// How far ahead the fused copy prefetches (x86_64's `PREFETCH_DISTANCE`).
#[cfg(target_arch = "x86_64")]
const COPY_PREFETCH_DISTANCE: usize = super::x86_64::PREFETCH_DISTANCE;
#[cfg(not(target_arch = "x86_64"))]
const COPY_PREFETCH_DISTANCE: usize = 0;

/// How far ahead the check without the copy prefetches on this CPU (x86_64's
/// `check_prefetch_distance`); elsewhere it does not.
#[inline(always)]
fn check_prefetch_distance() -> usize {
    #[cfg(target_arch = "x86_64")]
    return super::x86_64::check_prefetch_distance();
    #[cfg(not(target_arch = "x86_64"))]
    0
}

/// Whether the check without the copy prefetches through `len` bytes on this CPU
/// (x86_64's `check_prefetch_pays`); on aarch64, no.
#[inline(always)]
fn prefetch_pays(len: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    return super::x86_64::check_prefetch_pays(len);
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = len;
        false
    }
}

/// Whether the check without the copy clamps its prefetch to the input on this CPU
/// (x86_64's `check_prefetch_clamps`); on aarch64, which does not prefetch, no.
#[inline(always)]
fn prefetch_clamps() -> bool {
    #[cfg(target_arch = "x86_64")]
    return super::x86_64::check_prefetch_clamps();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Where the windows of the check without the copy stop prefetching without the
/// clamp (where x86_64's `check_prefetch_clamps` says no), in a call of `len` bytes
/// that prefetches `distance` bytes ahead from `pos`: `distance` bytes from the end
/// (or at `pos`, nearer). A kernel that reads the piece `at .. at + n` (a chunk, a
/// pair, a dense step) asks for the lines of `at + distance .. at + distance + n`,
/// so that with the windows over `src[..len - distance]` every line it asks for
/// lies inside `src`; the last `distance` bytes run in windows without the
/// prefetch. Session 51's prefetch without the clamp had asked up to `distance`
/// bytes past the end, and so had needed calls of 16 KiB or more (where Intel's had
/// prefetched at any length, as again now, with the clamp). On `AMD EPYC` Zen 3
/// (session 52), with the prefetch not clamped, stopping here measured the same as
/// asking past the end (AVX2, rotating, whatenc / simdutf8: de.html 1.45 / 1.42,
/// ar.html 1.14 / 1.12, pt.html 1.11 / 1.08).
#[inline(always)]
pub(super) fn prefetched_through(len: usize, distance: usize, pos: usize) -> usize {
    len.saturating_sub(distance).max(pos)
}

/// Whether [`windows`] takes its sparse mode on this CPU (x86_64's `sparse_pays`);
/// on aarch64, no: its maps take 16 chunks at a time ([`Bytes::ascii_map`]), about
/// six instructions a chunk against some fifteen for the sparse mode's branch, and
/// under qemu-user English validated in 33% fewer instructions (en.txt 3,222 →
/// 4,815 bytes a thousand, en.html 3,238 → 4,896), the rest the same or better.
#[inline(always)]
fn sparse_pays() -> bool {
    #[cfg(target_arch = "x86_64")]
    return super::x86_64::sparse_pays();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// The lookup table for one nibble (0: previous high, 1: previous low, 2: own high),
/// from [`KINDS`], `N` entries: 32 here, the 16 entries twice (for the two 128-bit
/// lanes of an AVX2 vector; a 16-byte one loads the first 16); 64 for the AVX-512
/// kernel's `vpermb`, indexed by six bits of the byte: its top six for a high nibble
/// (the byte shifted right by two), its low six for a low nibble.
pub(super) const fn table<const N: usize>(which: usize) -> [u8; N] {
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        let nibble = if N == 64 && which != 1 { i / 4 } else { i % 16 };
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
    // SAFETY: the caller's precondition.
    unsafe {
        let prev1 = V::load(p.sub(1));
        errors_of(p, prev1, prev1.high_nibbles(), bytes.high_nibbles())
    }
}

/// [`block_errors`] of the block at `p`, given the bytes one before each of its own
/// (`prev1`), their high nibbles and its own high nibbles.
///
/// # Safety
/// As [`block_errors`].
#[inline(always)]
unsafe fn errors_of<V: Bytes>(p: *const u8, prev1: V, prev1_high: V, own_high: V) -> V {
    // SAFETY: the caller makes `p - 3 .. p + LEN` readable, and the CPU has `V`'s
    // instructions; the tables have 32 >= `V::LEN` bytes.
    unsafe {
        let (prev2, prev3) = (V::load(p.sub(2)), V::load(p.sub(3)));
        // The error kinds each byte may show: the AND of the three lookups.
        let kinds = V::load(PREV_HIGH.as_ptr())
            .lookup(prev1_high)
            .and(V::load(PREV_LOW.as_ptr()).lookup(prev1.and(V::splat(0x0F))))
            .and(V::load(OWN_HIGH.as_ptr()).lookup(own_high));
        // The third and fourth bytes of sequences, where two continuation bytes are
        // due: the byte two back is E0 or more, or the one three back F0 or more,
        // which the subtractions (saturating at zero) turn into a set sign bit.
        let inside = prev2.saturating_sub(V::splat(0x60)).or(prev3.saturating_sub(V::splat(0x70)));
        // TWO_CONTINUATIONS, the sign bit, is an error exactly where it is not due.
        kinds.xor(inside.and(V::splat(TWO_CONTINUATIONS)))
    }
}

/// [`block_errors`] of the `N` blocks at `p`, ORed; with a sample of the bytes for
/// whether the step is ASCII (the byte before it, the middle block and the last:
/// see below), and the last block. For [`step`]'s one pass.
///
/// That loop is bound by how many vector instructions it issues (four a cycle on
/// `AMD EPYC` Zen 1, loads and register copies included; SSE has no three-operand
/// forms, so each table looked up and each value used twice is copied first). A
/// block took 26; now 23 to 24:
/// - each block's own high nibbles are the `prev1` nibbles of the block after it
///   moved by a byte ([`Bytes::next_window`], `palignr`), which that block computes
///   anyway, rather than the block loaded, shifted and masked;
/// - two blocks a turn, so that the nibbles carried from one block to the next stay
///   in their registers; the bound of the turns is opaque to the compiler
///   (`black_box`), which otherwise unrolled all fifteen blocks and spilled
///   registers (7.9 cycles a block, against 6.9);
/// - the last block is loaded apart, and whether the step is ASCII is sampled
///   rather than the OR of every block (which took a register copy and an
///   instruction a block, 7.1 cycles a block against 6.9). It only chooses the mode
///   of the next step, which checks what it has to either way.
///
/// Other vectors (AVX2's, in the fused copy) check each block as they load it:
/// their `next_window` would cross 128-bit lanes.
///
/// SSSE3 validation of 32 KB of Japanese text in L2, 7.3 → 6.9 cycles per 16 bytes;
/// rotating, µs, before → after (encoding_rs, which runs simdutf8's AVX2 kernel):
/// validation ja.txt 6.02 → 5.70 (5.79), ko.txt 3.74 → 3.57 (3.56), zh_cn.txt 5.68 →
/// 5.43 (5.49), ru.txt 23.3 → 22.1 (22.3), ar.txt 4.28 → 4.09 (4.06); → `String`
/// (the fused copy's one-pass steps) ja.txt 7.57 → 7.14 (6.93), ko.txt 4.64 → 4.40
/// (4.22), ru.txt 27.4 → 25.9 (27.6), ar.txt 5.34 → 5.06 (4.85); mostly-ASCII pages
/// within 2%. Steps of 32 blocks for the check alone gained 3–4% more on dense text
/// but cost pages of Latin text 2–3% (de.html, cs.html, pt.html).
///
/// # Safety
/// `p - 3 .. p + N * LEN` must be readable, and the CPU must have `V`'s instructions.
#[inline(always)]
unsafe fn one_pass_errors<V: Bytes, const N: usize>(p: *const u8) -> (V, V, V) {
    // SAFETY: the caller's precondition: each load is inside `p - 3 .. p + N * LEN`
    // (the `prev1` of the block after `i` ends at `p + (i + 2) * LEN - 1`, for `i + 1 < N`).
    unsafe {
        if V::LEN != 16 {
            let mut errors = V::zero();
            for i in 0..N - 1 {
                errors = errors.or(block_errors(p.add(i * V::LEN), V::load(p.add(i * V::LEN))));
            }
            let q = p.add((N - 1) * V::LEN);
            let last = V::load(q);
            errors = errors.or(block_errors(q, last));
            let all = V::load(p.sub(1)).or(V::load(p.add(N / 2 * V::LEN))).or(last);
            return (all, errors, last);
        }
        let mut prev1 = V::load(p.sub(1));
        let mut prev1_high = prev1.high_nibbles();
        let first = prev1;
        let mut errors = V::zero();
        // Block `q`, given its `prev1` and their high nibbles; returns the next's.
        let block = |q: *const u8, prev1: V, prev1_high: V, errors: &mut V| {
            let next1 = V::load(q.add(V::LEN - 1));
            let next1_high = next1.high_nibbles();
            *errors = errors.or(errors_of(q, prev1, prev1_high, prev1_high.next_window(next1_high)));
            (next1, next1_high)
        };
        let end = p.add((N - 1) * V::LEN);
        let mut q = p;
        if (N - 1) % 2 == 1 {
            (prev1, prev1_high) = block(q, prev1, prev1_high, &mut errors);
            q = q.add(V::LEN);
        }
        // Opaque: see above.
        let pairs_end = core::hint::black_box(end);
        while q < pairs_end {
            let (next1, next1_high) = block(q, prev1, prev1_high, &mut errors);
            (prev1, prev1_high) = block(q.add(V::LEN), next1, next1_high, &mut errors);
            q = q.add(2 * V::LEN);
        }
        let q = end;
        let last = V::load(q);
        errors = errors.or(errors_of(q, prev1, prev1_high, last.high_nibbles()));
        // A sample: the byte before, the middle block and the last.
        let all = first.or(V::load(p.add(N / 2 * V::LEN))).or(last);
        (all, errors, last)
    }
}

/// One step of the main loop: the `N` blocks at `pos`, checked unless they are ASCII
/// with no sequence open before them, copied to `dst` when `COPY`. `Err(at)` when
/// they show an error: with `COPY`, where [`first_error`] places it (`src[..at]`
/// copied), else at `pos`; otherwise whether they had to be checked. Updates `open`.
///
/// Otherwise the blocks are loaded and their sign bits tested first, and checked
/// after only if they have to be: kept in registers between the two, which a dense
/// step's sixteen blocks of 16 bytes do not fit (they went to the stack and back).
/// So with `ALWAYS` (a dense step after one that had to be checked: see [`Kernel`])
/// every block is checked as it is loaded, in one pass with no branch (an ASCII
/// block shows no error): SSSE3 validation of dense text +30% (ja.txt, ru.txt 4.65 →
/// 6.1 GB/s, rotating, `Intel Xeon` Cascade Lake). The fused copy takes `ALWAYS`
/// after steps that had to be checked (see [`ALWAYS_AFTER`]): the blocks are loaded
/// again and stored once the step shows no error, or up to the first error's block,
/// which places it.
///
/// # Safety
/// `pos - 3 .. pos + N * LEN` must be inside `src`, and with `COPY` inside `dst` too;
/// the CPU must have `V`'s instructions.
#[inline(always)]
unsafe fn step<V: Bytes, const N: usize, const COPY: bool, const ALWAYS: bool>(
    src: *const u8,
    dst: *mut u8,
    pos: usize,
    open: &mut u32,
) -> Result<bool, usize> {
    // SAFETY: the caller makes `pos - 3 .. pos + N * LEN` readable (and writable in
    // `dst` with `COPY`), and the CPU has `V`'s instructions.
    unsafe {
        let p = src.add(pos);
        if ALWAYS {
            let (all, errors, last) = one_pass_errors::<V, N>(p);
            if !errors.is_zero() {
                if COPY {
                    return Err(pos + first_error::<V, N>(p, dst.add(pos)));
                }
                return Err(pos);
            }
            if COPY {
                // Checked, then stored (loaded again from L1): a store before the
                // test could land up to a step past the valid text, further than
                // `utf8_out::SCRATCH`. Two blocks a turn: a loop of a load and a
                // store a block the compiler turns into a call to `memcpy` (after
                // which every vector register is loaded again), and the volatile
                // writes that had kept the stores (session 33) went through the
                // stack, a store and a load more a block. SSSE3 → `String`, µs,
                // rotating, `AMD EPYC` Zen 1, volatile writes → pairs (encoding_rs):
                // ja.txt 7.11 → 6.08 (6.90), ko.txt 4.40 → 3.81 (4.23), ar.txt 5.08
                // → 4.35 (4.87), ru.txt 26.1 → 22.6 (27.6), he.txt 10.8 → 9.3
                // (10.7), fr.txt 33.8 → 30.7 (35.2), zh_tw.html 72.9 → 67.6 (77.4).
                let out = dst.add(pos);
                let mut i = 0;
                while i + 2 <= N {
                    let (a, b) = (V::load(p.add(i * V::LEN)), V::load(p.add((i + 1) * V::LEN)));
                    b.store(out.add((i + 1) * V::LEN));
                    a.store(out.add(i * V::LEN));
                    i += 2;
                }
            }
            let checked = (u32::from(all.any_high()) | *open) != 0;
            *open = u32::from(!closed(last));
            return Ok(checked);
        }
        let mut blocks = [V::zero(); N];
        let mut all = V::zero();
        for (i, block) in blocks.iter_mut().enumerate() {
            *block = V::load(p.add(i * V::LEN));
            all = all.or(*block);
        }
        // One test for both: the sign bits, and whether a sequence is open before.
        let checked = (u32::from(all.any_high()) | *open) != 0;
        if checked {
            let mut errors = V::zero();
            for (i, &block) in blocks.iter().enumerate() {
                errors = errors.or(block_errors(p.add(i * V::LEN), block));
            }
            if !errors.is_zero() {
                return Err(if COPY { pos + first_error::<V, N>(p, dst.add(pos)) } else { pos });
            }
            *open = u32::from(!closed(blocks[N - 1]));
        }
        if COPY {
            for (i, &block) in blocks.iter().enumerate() {
                block.store(dst.add(pos + i * V::LEN));
            }
        }
        Ok(checked)
    }
}

/// Whether the block `bytes`, loaded from `src` at `at`, a character boundary, shows
/// an error: [`block_errors`] with the three bytes before it from `src`, or as zeros
/// at its start (zeros end a whole character, as the bytes before a boundary do). For
/// the UTF-8 → UTF-16 steps (`avx2_utf8`, `ssse3_utf8`).
///
/// # Safety
/// `at + V::LEN <= src.len()`, and the CPU must have `V`'s instructions.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) unsafe fn step_shows_error<V: Bytes>(src: &[u8], at: usize, bytes: V) -> bool {
    // SAFETY: `at - 3 .. at + LEN` is inside `src` in the second case, and `padded`
    // holds three zeros and the block in the first; the caller's precondition for the
    // CPU.
    unsafe {
        let errors = if at < 3 {
            let mut padded = [0u8; 3 + MAX_LEN];
            padded[3..3 + V::LEN].copy_from_slice(&src[at..at + V::LEN]);
            block_errors(padded.as_ptr().add(3), bytes)
        } else {
            block_errors(src.as_ptr().add(at), bytes)
        };
        !errors.is_zero()
    }
}

/// Where the first error at or after `at` shows, when [`windows`] found one in the
/// window or step that starts at `at` (`at >= 3`): the blocks from `at` checked
/// again, one after another, to the first byte whose check is not zero (see
/// [`first_error`]), rather than the scalar search from the start of the window (up
/// to 4 KiB an error). UTF-8 with an error every 2000 bytes → UTF-16, where dense
/// pieces go to the check without the copy: ru.txt 105.9 → 88.8 µs, el.txt 23.4 →
/// 19.7 (AVX-512 tier, rotating, `AMD EPYC` Zen 4). `at` itself where no block
/// shows one (not reached).
///
/// # Safety
/// The CPU must have `V`'s instructions.
#[inline(always)]
pub(super) unsafe fn error_after<V: Bytes>(src: &[u8], at: usize) -> usize {
    let mut pos = at;
    while pos >= 3 && pos + V::LEN <= src.len() {
        // SAFETY: `pos - 3 .. pos + LEN` is inside `src`; the CPU has `V`'s
        // instructions (the caller's precondition).
        unsafe {
            let p = src.as_ptr().add(pos);
            let errors = block_errors(p, V::load(p));
            if !errors.is_zero() {
                return pos + errors.first_nonzero();
            }
        }
        pos += V::LEN;
    }
    at
}

/// Where the first error of the `N` blocks at `p` shows (they show one): the first
/// byte whose check is not zero, counted from `p`. The error starts there or up to
/// three bytes before, so that [`valid_up_to_from`] finds it in a few bytes rather
/// than from the start of the step (en.txt as windows-1252 taken for UTF-8 →
/// `String`, 70 errors in 64 KB: AVX-512 4.61 → 3.60 µs, AVX2 4.48 → 3.85, rotating,
/// `AMD EPYC` Zen 4). The blocks up to that one are loaded again (from L1) and stored
/// at `out`: more than the bytes before the error, all of them inside the output.
///
/// # Safety
/// As [`step`]'s: `p - 3 .. p + N * LEN` readable, `out .. out + N * LEN` writable,
/// and the CPU has `V`'s instructions.
#[inline(always)]
unsafe fn first_error<V: Bytes, const N: usize>(p: *const u8, out: *mut u8) -> usize {
    for i in 0..N {
        // SAFETY: the caller's precondition.
        unsafe {
            let block = V::load(p.add(i * V::LEN));
            block.store(out.add(i * V::LEN));
            let errors = block_errors(p.add(i * V::LEN), block);
            if !errors.is_zero() {
                return i * V::LEN + errors.first_nonzero();
            }
        }
    }
    // Not reached (the blocks show an error); their start keeps `check`'s contract.
    0
}

/// The OR of the `len` bytes at `p`, a vector at a time (`len` a multiple of
/// `V::LEN`, and at least one): a chunk's or a pair's, whose sign bits say whether
/// all of it is ASCII.
///
/// # Safety
/// `len` readable bytes at `p`, and the CPU has `V`'s instructions.
#[inline(always)]
unsafe fn or_of<V: Bytes>(p: *const u8, len: usize) -> V {
    // SAFETY: the caller's contract: each load reads inside the `len` bytes.
    unsafe {
        let mut all = V::load(p);
        for i in 1..len / V::LEN {
            all = all.or(V::load(p.add(i * V::LEN)));
        }
        all
    }
}

/// The kernel of [`check`] without the copy, for [`windows`]: made only inside
/// [`check`], whose caller guarantees the CPU's instructions. A dense step checks
/// in one pass ([`step`]'s `ALWAYS`) unless the step before it was ASCII: then the
/// next is likely ASCII too, and its sign bits go first. AVX2's 32-byte vectors too
/// since session 34 (they had been left out when the step cost English text 10%,
/// before the rule of the ASCII step before): validation, µs, rotating, `AMD EPYC`
/// Zen 1, ja.txt 5.1 → 4.7, ru.txt 22.2 → 21.0, fr.txt 24.3 → 23.4, th.txt 30.6 →
/// 29.3, ru.html 114 → 112; en.txt, en.html and de.html within the noise (±3%). With
/// `PREFETCH` (where [`prefetch_pays`], measured on Intel with the steps before the
/// windows, not yet with them), each chunk read and each dense step ask for the
/// lines `distance` bytes ahead.
///
/// A one-pass step knows only a sample of its bytes (see [`one_pass_errors`]), so
/// in text whose letters are few but everywhere (a letter that is not ASCII every 30
/// to 40 bytes, as Portuguese) it takes one in four of its steps for ASCII, and the
/// next step loaded and tested its blocks before it checked them (all but a few of
/// those steps are not ASCII). So one step sampled as ASCII after one that had to be
/// checked is let pass: the next is still one pass; the second in a row turns to the
/// test first ([`ONE_PASS_UNTIL`]). Pages, whose ASCII steps come in runs, lose one
/// step of a run. SSSE3 validation, rotating, against simdutf8's SSE4.2 kernel (`AMD EPYC` Zen
/// 5): pt.txt 0.96 → 1.05, fr.txt 1.18 → 1.27, de.txt 1.52 → 1.62; dense text and
/// pages within the noise (ja.txt 1.23 / 1.22, ru.html 1.64 / 1.66, zh_cn.html 1.65 /
/// 1.64); AVX2 the same or better (fr.txt 1.45 → 1.51).
struct Kernel<V, const DENSE_N: usize, const PREFETCH: bool, const COPY: bool, const CLAMP: bool> {
    /// Where the text is copied to, with `COPY` (room for all of it).
    dst: *mut u8,
    /// The dense steps in a row, up to this one, that were ASCII or sampled as
    /// ASCII (did not have to be checked).
    ascii_run: usize,
    /// How far ahead the prefetch asks, with `PREFETCH`.
    distance: usize,
    vector: PhantomData<V>,
}

impl<V: Bytes, const DENSE_N: usize, const PREFETCH: bool, const COPY: bool, const CLAMP: bool> Windowed
    for Kernel<V, DENSE_N, PREFETCH, COPY, CLAMP>
{
    type Errors = V;
    const CHUNK: usize = CHUNK;
    const DENSE_STEP: usize = DENSE_N * V::LEN;
    // Two chunks a branch, as the AVX-512 kernel's: the loop over ASCII text then
    // spends fewer instructions a byte, and its speed depended less on where it fell
    // in the code. Validation, rotating, `AMD EPYC` Zen 3, whatenc / encoding_rs (the
    // AVX2 tier) and / simdutf8's SSE4.2 kernel (SSSE3), medians of three runs, one
    // chunk a branch → two (with Zen 3's prefetch of input from 128 KiB,
    // `x86_64::amd_zen3`, for fr.txt and en.html): AVX2 en.txt 1.02 → 1.14, de.txt
    // 1.89 → 2.03, fr.txt 1.35 → 1.50; SSSE3 en.txt 0.86 → 0.96, de.txt 1.19 → 1.62,
    // fr.txt 1.15 → 1.39, en.html 0.94 → 1.12. (Builds that only moved the loop of
    // one chunk in the code took AVX2 en.txt from 1.05 to 0.65–0.78.)
    const SPARSE_STEP: usize = 2;
    const DENSE_SAMPLE: usize = V::DENSE_SAMPLE;

    // Dense only where (almost) every chunk is not ASCII: pages that mix markup and
    // text gain most from the maps (at twelve in sixteen, SSSE3 ru.html, ar.html and
    // ja.html took 3–24% longer).
    #[inline(always)]
    fn dense_at(&self) -> usize {
        15
    }

    #[inline(always)]
    unsafe fn chunk_ascii(&self, src: &[u8], pos: usize) -> bool {
        if PREFETCH {
            prefetch_ahead::<CLAMP>(src, pos, self.distance, 1);
        }
        // SAFETY: the trait's contract: the chunk at `pos` is inside `src`, and the
        // CPU has `V`'s instructions (see the struct's doc).
        unsafe { !or_of::<V>(src.as_ptr().add(pos), CHUNK).any_high() }
    }

    #[inline(always)]
    unsafe fn pair_ascii(&self, src: &[u8], pos: usize) -> bool {
        if PREFETCH {
            prefetch_ahead::<CLAMP>(src, pos, self.distance, 2);
        }
        // SAFETY: the trait's contract: the two chunks at `pos` are inside `src`, and
        // the CPU has `V`'s instructions (see the struct's doc).
        unsafe { !or_of::<V>(src.as_ptr().add(pos), 2 * CHUNK).any_high() }
    }

    #[inline(always)]
    unsafe fn map16(&self, src: &[u8], pos: usize) -> Option<u16> {
        // With the prefetch, a chunk at a time (each chunk asks for its line).
        if !V::HAS_ASCII_MAP || PREFETCH {
            return None;
        }
        // SAFETY: the trait's contract: the 16 chunks at `pos` are inside `src`, and
        // the CPU has `V`'s instructions (see the struct's doc).
        Some(unsafe {
            let p = src.as_ptr().add(pos);
            let mut chunks = [V::zero(); 16];
            for (c, chunk) in chunks.iter_mut().enumerate() {
                *chunk = or_of::<V>(p.add(c * CHUNK), CHUNK);
            }
            V::ascii_map(chunks)
        })
    }

    #[inline(always)]
    unsafe fn check_chunk(&self, src: &[u8], pos: usize, errors: &mut V) -> bool {
        // SAFETY: the trait's contract: `pos - 3 .. pos + CHUNK` is inside `src`, and
        // the CPU has `V`'s instructions.
        unsafe {
            let p = src.as_ptr().add(pos);
            let mut last = V::zero();
            for i in 0..CHUNK / V::LEN {
                last = V::load(p.add(i * V::LEN));
                *errors = errors.or(block_errors(p.add(i * V::LEN), last));
            }
            !closed(last)
        }
    }

    #[inline(always)]
    fn no_errors(&self, errors: V) -> bool {
        // SAFETY: the CPU has `V`'s instructions (see the struct's doc).
        unsafe { errors.is_zero() }
    }

    #[inline(always)]
    fn no_errors_yet(&self) -> V {
        // SAFETY: as above.
        unsafe { V::zero() }
    }

    #[inline(always)]
    unsafe fn dense_step(&mut self, src: &[u8], pos: usize, open: bool) -> Option<(bool, bool)> {
        if PREFETCH {
            prefetch_ahead::<CLAMP>(src, pos, self.distance, Self::DENSE_STEP / 64);
        }
        let (base, mut open) = (src.as_ptr(), u32::from(open));
        // SAFETY: the trait's contract: `pos - 3 .. pos + DENSE_STEP` is inside `src`,
        // and the CPU has `V`'s instructions; with `COPY`, `dst` has room for `src`.
        let checked = unsafe {
            if self.ascii_run < ONE_PASS_UNTIL {
                #[cfg(test)]
                if self.ascii_run > 0 {
                    GRACES.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
                }
                step::<V, DENSE_N, COPY, true>(base, self.dst, pos, &mut open)
            } else {
                step::<V, DENSE_N, COPY, false>(base, self.dst, pos, &mut open)
            }
        }
        .ok()?;
        self.ascii_run = if checked { 0 } else { self.ascii_run + 1 };
        Some((checked, open != 0))
    }

    #[inline(always)]
    unsafe fn checked(&self, src: &[u8], from: usize, to: usize) {
        if COPY {
            // SAFETY: the trait's contract: `from .. to` is inside `src`; `dst` has
            // room for `src` and does not overlap it (see [`check`]).
            unsafe { core::ptr::copy_nonoverlapping(src.as_ptr().add(from), self.dst.add(from), to - from) };
        }
    }
}

/// The ASCII dense steps in a row (or sampled as ASCII) after which [`Kernel`]'s
/// next step tests its blocks before it checks them, rather than one pass: two, so
/// that one step sampled as ASCII is let pass (see [`Kernel`]).
const ONE_PASS_UNTIL: usize = 2;

/// The one-pass steps after one sampled as ASCII so far, for the tests to see that
/// they reach them.
#[cfg(test)]
static GRACES: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);
/// The same for the fused copy with `COPY_GRACE` (see [`check`]).
#[cfg(test)]
static COPY_GRACES: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// The steps of [`check`], in blocks of `V::LEN` bytes: the dense mode's and the
/// fused copy's, and the ASCII dense steps in a row that switch back to the windows
/// (see [`windows`]); with `COPY_GRACE`, the fused copy lets one one-pass step
/// sampled as ASCII pass, as the check alone does (see [`Kernel`]); with
/// `COPY_WINDOWS`, the fused copy's steps stop at [`WINDOWS_FROM`] bytes and the
/// rest goes through [`windows`] as the check alone's does, each window copied once
/// checked ([`copy_windows`]).
pub(super) struct Steps<
    const DENSE_N: usize,
    const COPY_N: usize,
    const RUN: usize,
    const COPY_GRACE: bool,
    const COPY_WINDOWS: bool,
>;

/// Checks `src`, copying it to `dst` as it goes when `COPY` (`dst` then has room for
/// `src.len()` bytes), with the steps `DENSE_N` and `COPY_N` blocks long and `RUN`
/// ASCII dense steps back to the windows (see [`Steps`]). `Ok` when it is all
/// valid; otherwise `Err(at)` where `src[..at]` is valid UTF-8 but for, possibly, a
/// sequence cut at `at` (no error shows before `at`), and `src[..at]` has been copied:
/// the contract of the AVX-512 kernel's twin, which [`valid_up_to_from`] completes.
///
/// # Safety
/// The CPU must have `V`'s instructions; with `COPY`, `dst` must have room for
/// `src.len()` bytes and not overlap `src`.
#[inline(always)]
pub(super) unsafe fn check<
    V: Bytes,
    const COPY: bool,
    const DENSE_N: usize,
    const COPY_N: usize,
    const RUN: usize,
    const COPY_GRACE: bool,
    const COPY_WINDOWS: bool,
>(
    _steps: Steps<DENSE_N, COPY_N, RUN, COPY_GRACE, COPY_WINDOWS>,
    src: &[u8],
    dst: *mut u8,
) -> Result<(), usize> {
    let block = V::LEN;
    let len = src.len();
    let base = src.as_ptr();
    // The first block and the tail go through this: three bytes before, a block after.
    let mut padded = [0u8; 3 + MAX_LEN];
    let mut pos = 0;
    // Nonzero when a sequence is left open before `pos`.
    let mut open = 0u32;
    // Whether the first block is not ASCII.
    let mut first_high = false;
    if len >= block {
        padded[3..3 + block].copy_from_slice(&src[..block]);
        // SAFETY (the block below): `padded` holds the block and three zeros before
        // it; `dst` has room for `len >= LEN` bytes with `COPY`; the CPU has `V`'s
        // instructions (the caller's precondition).
        unsafe {
            let bytes = V::load(padded.as_ptr().add(3));
            if COPY {
                bytes.store(dst);
            }
            if bytes.any_high() {
                let errors = block_errors(padded.as_ptr().add(3), bytes);
                if !errors.is_zero() {
                    // Where the first error shows: it starts there or up to three
                    // bytes before (see `first_error`).
                    return Err(errors.first_nonzero());
                }
                open = u32::from(!closed(bytes));
                first_high = true;
            }
        }
        pos = block;
        // With the copy, no windows on x86: it measured no faster in two modes of
        // steps, nor as windows over slices each then copied (BENCHMARKS.md, session
        // 20). NEON's take them after `WINDOWS_FROM` (`COPY_WINDOWS`): the steps below
        // check or sample every chunk, where the maps pass over an ASCII chunk in a
        // few instructions. Under qemu-user, UTF-8 → `String`, bytes a thousand
        // instructions (with the windows from 4 KiB and chunks of 64 bytes, as
        // first measured): de.html 1,152 → 1,536, fr.html 1,034 → 1,355, ja.html 785 →
        // 880, ru.html 800 → 932, de.txt 775 → 875, en.txt 2,754 → 2,878; dense text
        // 1–3% less (ar.txt 732 → 709, ko.txt 730 → 706), where the windows' dense
        // steps take a few more instructions a step than these.
        // Steps of `COPY_N` blocks, and the one-pass steps as long as the dense steps
        // of the check alone (see `ALWAYS_AFTER`).
        // A call whose first block is not ASCII starts in the one-pass steps: a call
        // after an error in dense text (SSSE3, UTF-8 with an error every 2 KB →
        // `String`, with the steps of `ALWAYS_AFTER`, against neither: ja.txt 13.0 →
        // 12.6 µs, th.txt 73.9 → 71.4, ru.txt 46.5 → 44.7, en.txt 13.4 → 11.9,
        // rotating, `AMD EPYC` Zen 1).
        let mut checked_run = if first_high { ALWAYS_AFTER } else { 0 };
        // The steps in a row that had to be checked, after one that was or was not.
        // With `COPY_GRACE`, a one-pass step sampled as ASCII after one that had to be
        // checked sets the count back to the bound, so that the next is one pass
        // still. SSSE3 → `String`, rotating, against simdutf8's SSE4.2 kernel then a
        // copy (`AMD EPYC` Zen 5): pt.txt 0.96 → 1.04, fr.txt 1.15 → 1.23, ru.html 1.51
        // → 1.58; AVX2 fr.html 2.05 → 2.15, pt.html 1.83 → 1.91; the rest within 3%.
        // Not NEON's: under qemu-user, pages took 4–6% more instructions (de.html 1,152
        // → 1,105 bytes a thousand), for 0–1% fewer on such text.
        let next_run = |run: u32, checked: bool| {
            if checked {
                run + 1
            } else if COPY_GRACE && run > ALWAYS_AFTER {
                #[cfg(test)]
                COPY_GRACES.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
                ALWAYS_AFTER
            } else {
                0
            }
        };
        // With `COPY_WINDOWS`, the steps stop at `WINDOWS_FROM`, then the windows.
        let steps_end = if COPY_WINDOWS { len.min(windows_from()) } else { len };
        while COPY && pos + COPY_N * block <= steps_end {
            if checked_run >= ALWAYS_AFTER && pos + DENSE_N * block <= steps_end {
                // One pass, as long as the check's dense steps. A branch of its own,
                // not the steps below with a step length chosen at run time: that
                // made the prefetch a loop, and English took 30% longer (en.txt 5.0
                // → 6.5 µs, SSSE3, `AMD EPYC` Zen 1).
                prefetch_ahead::<true>(src, pos, COPY_PREFETCH_DISTANCE, DENSE_N * block / 64);
                // SAFETY: `pos - 3 .. pos + DENSE_N * LEN` is inside `src` (pos >= LEN),
                // and `dst` has room for `len` bytes; the CPU has `V`'s instructions.
                let checked = unsafe { step::<V, DENSE_N, COPY, true>(base, dst, pos, &mut open) }?;
                checked_run = next_run(checked_run, checked);
                pos += DENSE_N * block;
                continue;
            }
            prefetch_ahead::<true>(src, pos, COPY_PREFETCH_DISTANCE, COPY_N * block / 64);
            // SAFETY: `pos - 3 .. pos + COPY_N * LEN` is inside `src` (pos >= LEN), and
            // `dst` has room for `len` bytes; the CPU has `V`'s instructions.
            let checked = unsafe {
                if checked_run >= ALWAYS_AFTER {
                    step::<V, COPY_N, COPY, true>(base, dst, pos, &mut open)
                } else {
                    step::<V, COPY_N, COPY, false>(base, dst, pos, &mut open)
                }
            }?;
            checked_run = next_run(checked_run, checked);
            pos += COPY_N * block;
        }
        // Where the steps stopped at `WINDOWS_FROM` rather than the end.
        if COPY && COPY_WINDOWS && pos + COPY_N * block <= len {
            // SAFETY: `pos >= LEN >= 3`; the CPU has `V`'s instructions; `dst` has room
            // for `src` and does not overlap it (the caller's precondition).
            let (at, ends_open) = unsafe { copy_windows::<V, DENSE_N, RUN>(src, dst, pos) }?;
            (pos, open) = (at, u32::from(ends_open));
        }
        if !COPY {
            if prefetch_pays(len) {
                // SAFETY: `pos >= LEN >= 3`; the CPU has `V`'s instructions (the
                // caller's precondition), which the kernels need.
                pos = unsafe {
                    if prefetch_clamps() {
                        prefetching_windows::<V, DENSE_N, RUN, true>(src, pos)
                    } else {
                        prefetching_windows::<V, DENSE_N, RUN, false>(src, pos)
                    }
                }?;
            }
            let mut kernel = Kernel::<V, DENSE_N, false, false, false> {
                dst: core::ptr::null_mut(),
                ascii_run: 0,
                distance: 0,
                vector: PhantomData,
            };
            // SAFETY: as above.
            let (at, ends_open) = unsafe { windows(&mut kernel, src, pos, RUN) }
                // SAFETY: `at >= pos >= 3`; the CPU has `V`'s instructions.
                .map_err(|at| unsafe { error_after::<V>(src, at) })?;
            (pos, open) = (at, u32::from(ends_open));
        }
        while pos + block <= len {
            // SAFETY: `pos - 3 .. pos + LEN` is inside `src` (pos >= LEN), and `dst`
            // has room for `len` bytes with `COPY`; the CPU has `V`'s instructions.
            unsafe {
                let p = base.add(pos);
                let bytes = V::load(p);
                if COPY {
                    bytes.store(dst.add(pos));
                }
                if open != 0 || bytes.any_high() {
                    let errors = block_errors(p, bytes);
                    if !errors.is_zero() {
                        return Err(pos + errors.first_nonzero());
                    }
                    open = u32::from(!closed(bytes));
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
            (open != 0 || bytes.any_high()) && !block_errors(padded.as_ptr().add(3), bytes).is_zero()
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

/// The windows of the check without the copy with the prefetch, from `pos`: with
/// `CLAMP` (see x86_64's `check_prefetch_clamps`) to the end, each line asked for
/// clamped to the input's last byte; without, to `distance` bytes from the end
/// ([`prefetched_through`]). Where they stopped, or `Err(at)` as [`check`]'s.
///
/// # Safety
/// `pos >= 3`, and the CPU must have `V`'s instructions.
#[inline(always)]
unsafe fn prefetching_windows<V: Bytes, const DENSE_N: usize, const RUN: usize, const CLAMP: bool>(
    src: &[u8],
    pos: usize,
) -> Result<usize, usize> {
    let distance = check_prefetch_distance();
    let mut kernel = Kernel::<V, DENSE_N, true, false, CLAMP> {
        dst: core::ptr::null_mut(),
        ascii_run: 0,
        distance,
        vector: PhantomData,
    };
    let through = if CLAMP { src.len() } else { prefetched_through(src.len(), distance, pos) };
    // SAFETY: the caller's precondition.
    let (at, _) = unsafe { windows(&mut kernel, &src[..through], pos, RUN) }
        // SAFETY: `at >= pos >= 3`; the CPU has `V`'s instructions.
        .map_err(|at| unsafe { error_after::<V>(src, at) })?;
    Ok(at)
}

/// The copy of [`check`] from `pos` on with `COPY_WINDOWS`: [`windows`], each window
/// copied once checked (from L1), each dense step checked and stored in one pass;
/// returns where it stopped and whether a sequence is left open there, or `Err(at)`
/// as [`check`] (`src[..at]` copied). Not inlined into NEON's [`check`] (its one
/// user but the tests): its registers there took the steps before it 2–4% more
/// instructions under qemu-user (text with stray bytes). Elsewhere inlined, into
/// the `#[target_feature]` function that has the ISA.
///
/// # Safety
/// `pos >= 3`; the CPU must have `V`'s instructions; `dst` must have room for
/// `src.len()` bytes and not overlap `src`.
#[cfg_attr(target_arch = "aarch64", inline(never))]
#[cfg_attr(not(target_arch = "aarch64"), inline(always))]
unsafe fn copy_windows<V: Bytes, const DENSE_N: usize, const RUN: usize>(
    src: &[u8],
    dst: *mut u8,
    pos: usize,
) -> Result<(usize, bool), usize> {
    let mut kernel = Kernel::<V, DENSE_N, false, true, false> { dst, ascii_run: 0, distance: 0, vector: PhantomData };
    // SAFETY: the caller's precondition.
    unsafe { windows(&mut kernel, src, pos, RUN) }.map_err(|at| {
        // SAFETY: `at >= pos >= 3`; the CPU has `V`'s instructions.
        let valid = unsafe { error_after::<V>(src, at) };
        // `src[..at]` is copied; the rest up to the error here.
        // SAFETY: `at <= valid <= src.len()`; `dst` has room for `src` and does not
        // overlap it.
        unsafe { core::ptr::copy_nonoverlapping(src.as_ptr().add(at), dst.add(at), valid - at) };
        #[cfg(test)]
        COPY_WINDOWS_ERRORS.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        valid
    })
}

/// One ISA's check without and with the copy (its `check::<false>` and
/// `check::<true>`, with the contract of [`check`]), and the three operations made
/// from them: each kernel module has one, `CHECKS`. The operations are the twins of
/// [`super::scalar::utf8_valid_up_to`] and [`super::scalar::copy_valid_utf8_prefix`].
pub(super) struct Checks {
    /// The check alone (no copy: `dst` is not used).
    pub(super) alone: unsafe fn(&[u8], *mut u8) -> Result<(), usize>,
    /// The check fused with the copy.
    pub(super) copying: unsafe fn(&[u8], *mut u8) -> Result<(), usize>,
}

impl Checks {
    /// Whether `src` is all valid UTF-8.
    ///
    /// # Safety
    /// The CPU must have the ISA's instructions (its module's `cpu_has`).
    #[inline(always)]
    pub(super) unsafe fn is_valid(&self, src: &[u8]) -> bool {
        // SAFETY: the CPU has the ISA's instructions (the caller's precondition); the
        // check reads only `src` without the copy.
        unsafe { (self.alone)(src, core::ptr::null_mut()) }.is_ok()
    }

    /// The length of the longest valid UTF-8 prefix of `src` (as
    /// `Utf8Error::valid_up_to`).
    ///
    /// # Safety
    /// The CPU must have the ISA's instructions (its module's `cpu_has`).
    #[inline(always)]
    pub(super) unsafe fn valid_up_to(&self, src: &[u8]) -> usize {
        // SAFETY: as in `is_valid`.
        valid_up_to_after(src, unsafe { (self.alone)(src, core::ptr::null_mut()) })
    }

    /// Copies the longest valid UTF-8 prefix of `src` that fits into the start of
    /// `dst`, validating as it copies; returns its length.
    ///
    /// # Safety
    /// The CPU must have the ISA's instructions (its module's `cpu_has`).
    #[inline(always)]
    pub(super) unsafe fn copy_valid_prefix(&self, src: &[u8], dst: &mut [MaybeUninit<u8>]) -> usize {
        let src = &src[..src.len().min(dst.len())];
        // SAFETY: the CPU has the ISA's instructions (the caller's precondition); `dst`
        // has room for all of `src` and does not overlap it (it is a `&mut`).
        let checked = unsafe { (self.copying)(src, dst.as_mut_ptr().cast::<u8>()) };
        copy_valid_prefix_after(src, dst, checked)
    }
}

/// Where the first error or cut sequence of `src` is, given `at` from [`check`] (or
/// from the AVX-512 kernel's, which places `at` the same way).
pub(super) fn valid_up_to_from(src: &[u8], at: usize) -> usize {
    // Back to the start of the character that `at` may cut (a character boundary of
    // the valid text before it), then the scalar check finds the error, which is
    // close: within the step at `at` (with the standard library's, a legacy page
    // taken for UTF-8 → `String` spent 12% of its time there).
    let mut start = at.saturating_sub(3);
    while start > 0 && start < src.len() && (src[start] as i8) < -0x40 {
        start -= 1;
    }
    start + super::scalar::short_utf8_valid_up_to(&src[start..])
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

/// A kernel's part of [`windows`]: what it does with a chunk, a window's errors and
/// a dense step.
///
/// # Safety
/// The unsafe methods need the CPU to have the kernel's instructions, and the bytes
/// they name (from three before `pos`) to be inside `src`.
pub(super) trait Windowed {
    /// The errors of the chunks checked so far (a vector).
    type Errors: Copy;
    /// Bytes per bit of a window's map.
    const CHUNK: usize;
    /// The bytes of a dense step.
    const DENSE_STEP: usize;
    /// The chunks of sixteen in a window that, not ASCII, turn the loop dense (a
    /// method, not a constant, so that a kernel can choose it by the CPU without a
    /// second copy of the loop).
    fn dense_at(&self) -> usize;
    /// Chunks per step (and branch) of a sparse window.
    const SPARSE_STEP: usize;
    /// The bytes of dense steps after which the dense mode looks at the next 16
    /// chunks ([`sample_mixed`]) and turns back to maps where fewer than
    /// [`Self::dense_at`] of them are not ASCII; 0 for never (then only ASCII steps
    /// in a row turn it back).
    const DENSE_SAMPLE: usize;
    /// Whether the [`Self::CHUNK`] bytes at `pos` are all ASCII.
    unsafe fn chunk_ascii(&self, src: &[u8], pos: usize) -> bool;
    /// The map of the 16 chunks at `pos` (bit `15 - c` for chunk `c`, set where it
    /// is ASCII), where the kernel has a sequence for 16 at a time; by default
    /// `None`, and [`map`] takes a chunk at a time.
    #[inline(always)]
    unsafe fn map16(&self, src: &[u8], pos: usize) -> Option<u16> {
        let _ = (src, pos);
        None
    }
    /// Whether the two chunks at `pos` are all ASCII.
    #[inline(always)]
    unsafe fn pair_ascii(&self, src: &[u8], pos: usize) -> bool {
        // SAFETY: the caller's precondition.
        unsafe { self.chunk_ascii(src, pos) & self.chunk_ascii(src, pos + Self::CHUNK) }
    }
    /// Checks the chunk at `pos` (with the three bytes before it), adding what it
    /// shows to `errors`; whether it ends inside a sequence (exactly: where it ends on
    /// a character boundary, false).
    unsafe fn check_chunk(&self, src: &[u8], pos: usize, errors: &mut Self::Errors) -> bool;
    /// Whether `errors` shows none.
    fn no_errors(&self, errors: Self::Errors) -> bool;
    /// No errors.
    fn no_errors_yet(&self) -> Self::Errors;
    /// The dense step at `pos`, with a sequence left `open` before it or not: `None`
    /// when it shows an error; otherwise whether it had to be checked (was not ASCII
    /// after a closed sequence), and whether a sequence may be left open after it.
    unsafe fn dense_step(&mut self, src: &[u8], pos: usize, open: bool) -> Option<(bool, bool)>;
    /// Called with the bytes `from .. to` of a window once its chunks are checked
    /// (on an error, those before the chunk that shows it; a dense step does its
    /// own): the copy of [`check`]'s windows, where it has them; by default nothing.
    #[inline(always)]
    unsafe fn checked(&self, src: &[u8], from: usize, to: usize) {
        let _ = (src, from, to);
    }
}

/// Whether the valid UTF-8 before `pos` (`pos >= 3`) ends inside a sequence.
#[inline(always)]
pub(super) fn ends_inside(src: &[u8], pos: usize) -> bool {
    src[pos - 3] >= 0xF0 || src[pos - 2] >= 0xE0 || src[pos - 1] >= 0xC0
}

/// The main loop of the validation kernels without the copy. It reads the text in
/// windows of up to 64 chunks of [`Windowed::CHUNK`] bytes (64), in one of three
/// modes ([`Mode`]), each window's mode chosen from the share of chunks that the
/// window before it had to check (the first's from whether its first chunk is ASCII:
/// sparse if so, dense if not; AVX-512 dense text 1–3% faster than starting with
/// maps; on aarch64, maps either way in calls of 4 KiB or more: see the body):
///
/// - *map* (text mixed with markup, as most pages): every chunk of the window is
///   read, with no branch, into a map of the chunks that are not ASCII; then only
///   those are checked, in a loop over the bits of the map, one window behind (after
///   the next window's map, so that the loop's branches do not wait for its loads),
///   and the errors are tested once a window. A chunk that ends inside a sequence
///   must be followed by one that is not ASCII, whose check covers the bytes before
///   it;
/// - *sparse* (at most [`SPARSE_AT`] chunks in sixteen not ASCII, as
///   English): a branch a chunk (or [`Windowed::SPARSE_STEP`] chunks) on whether to
///   check it, which costs less than a second pass where the branch is rarely taken;
///   it stays sparse up to [`SPARSE_STAY`] in sixteen;
/// - *dense* ([`Windowed::dense_at`] chunks in sixteen or more not ASCII: text of
///   other scripts): steps checked in full unless ASCII ([`Windowed::dense_step`]),
///   one branch each, well predicted in such text, until `run` ASCII steps in a row
///   turn it back to maps, or, in kernels that sample ([`Windowed::DENSE_SAMPLE`]),
///   a sample of the next 16 chunks every so many bytes finds fewer than
///   [`Windowed::dense_at`] of them not ASCII.
///
/// On AMD's Zen, Zen+ and Zen 2 (`x86_64::sparse_pays`), and on aarch64, the text of
/// the sparse mode takes maps too.
///
/// Why maps: a branch a chunk on "ASCII or not" (as simdutf8 takes, and this loop in
/// the sparse mode) is mispredicted wherever text and markup alternate, and a
/// misprediction resolved only when its load comes from L3 or memory throws away the
/// loads issued after it. The maps keep those loads streaming, and the checks read
/// the window from L1. AVX2 validation, `AMD EPYC` Zen 4, against the sparse and dense
/// modes alone that came before (µs, 64 versions of each page in turn, from L3 or
/// memory): de.html 19.9 → 12.4, pt.html 37.5 → 27.5, fr.html 60.0 → 45.9; with four
/// versions (in cache) 9.8 → 8.4, 17.4 → 15.5, 32.3 → 28.1.
///
/// Starts at `pos` (`pos >= 3`, `src[..pos]` valid but for, possibly, a sequence cut
/// at `pos`), runs while a chunk is left; returns where it stopped and whether a
/// sequence is left open there, or `Err(at)` (the start of the window or step that
/// shows an error) where `src[..at]` is valid UTF-8 but for, possibly, a sequence
/// cut at `at`.
///
/// # Safety
/// The CPU must have the kernel's instructions.
#[inline(always)]
pub(super) unsafe fn windows<K: Windowed>(
    kernel: &mut K,
    src: &[u8],
    mut pos: usize,
    run: usize,
) -> Result<(usize, bool), usize> {
    let len = src.len();
    // Whether a sequence is left open before `pos`: exactly, as the dense steps and
    // the maps need it (the kernels' own flag may be set after a closed sequence).
    let mut open = ends_inside(src, pos);
    let open = &mut open;
    let mut chunks = FIRST_WINDOW;
    // The first chunk guesses the text: ASCII (English, markup) starts sparse, other
    // text dense; the windows after correct it. On aarch64 a call of 4 KiB or more
    // ([`MAPS_FIRST_FROM`]) starts with maps either way: the dense mode, once in,
    // stays in text whose 256-byte steps all have a letter that is not ASCII though
    // 40% of its chunks are ASCII (German), and checks those too. Under qemu-user,
    // de.txt validated in 14% fewer instructions (853 → 990 bytes a thousand), pages
    // 1–5% fewer, dense text up to 1% more (ko.txt 758 → 749: two windows of maps
    // before the dense mode). Shorter calls start dense: from 2 KiB, the pieces
    // between the errors of pages with stray bytes → UTF-16 took 4–8% more (ru.html
    // 178 → 165).
    // SAFETY: the chunk is inside `src` when a chunk is left (else no mode runs); the
    // CPU has the kernel's instructions.
    // Where the sparse mode does not pay, maps instead.
    let sparse = sparse_pays();
    let ascii_start = pos + K::CHUNK > len || unsafe { kernel.chunk_ascii(src, pos) };
    let mut mode = match (ascii_start, sparse) {
        (true, true) => Mode::Sparse,
        (true, false) => Mode::Map,
        (false, _) if cfg!(target_arch = "aarch64") && len - pos >= MAPS_FIRST_FROM => Mode::Map,
        (false, _) => Mode::Dense,
    };
    // The window mapped and not yet checked: where it starts, its chunks, its map.
    let mut pending: Option<(usize, usize, u64)> = None;
    loop {
        let n = if pos + K::CHUNK <= len { chunks.min((len - pos) / K::CHUNK) } else { 0 };
        match mode {
            Mode::Map => {
                let mut next = None;
                if n > 0 {
                    // SAFETY: the window is inside `src`; the CPU has the kernel's
                    // instructions (the caller's precondition). A whole window maps
                    // with its count known to the compiler (AVX-512 en.txt 0.92 →
                    // 0.87 µs in cache, AVX2 0.91 → 0.89).
                    let ascii = unsafe { if n == 64 { map(kernel, src, pos, 64) } else { map(kernel, src, pos, n) } };
                    next = Some((pos, n, ascii));
                    pos += n * K::CHUNK;
                    chunks = (2 * chunks).min(64);
                }
                if let Some((start, n, ascii)) = pending {
                    // SAFETY: as above, and `start >= 3`.
                    mode = unsafe { check_window(kernel, src, start, n, ascii, open, sparse) }?;
                }
                pending = next;
                if mode != Mode::Map
                    && let Some((start, n, ascii)) = pending.take()
                {
                    // SAFETY: as above.
                    unsafe { check_window(kernel, src, start, n, ascii, open, sparse) }?;
                }
                if n == 0 && pending.is_none() {
                    return Ok((pos, *open));
                }
            }
            Mode::Sparse => {
                if n == 0 {
                    return Ok((pos, *open));
                }
                // SAFETY: as above.
                let other = unsafe { sparse_window(kernel, src, pos, n, open) }?;
                // SAFETY: the window is inside `src`.
                unsafe { kernel.checked(src, pos, pos + n * K::CHUNK) };
                pos += n * K::CHUNK;
                chunks = (2 * chunks).min(64);
                mode = mode.after(other, n, sparse, kernel.dense_at());
            }
            Mode::Dense => {
                // ASCII steps in a row.
                let mut ascii = 0;
                'dense: loop {
                    // Up to the next sample, if the kernel samples (a bound of its
                    // own, so that the loop of steps is the same either way).
                    let limit = if K::DENSE_SAMPLE == 0 { len } else { len.min(pos.saturating_add(K::DENSE_SAMPLE)) };
                    while pos + K::DENSE_STEP <= limit {
                        // SAFETY: the step is inside `src`, and `pos >= 3`; the CPU has
                        // the kernel's instructions.
                        let Some((checked, ends_open)) = (unsafe { kernel.dense_step(src, pos, *open) }) else {
                            return Err(pos);
                        };
                        pos += K::DENSE_STEP;
                        *open = ends_open;
                        ascii = if checked { 0 } else { ascii + 1 };
                        if ascii >= run {
                            break 'dense;
                        }
                    }
                    // SAFETY: the 16 chunks are inside `src`; the CPU has the kernel's
                    // instructions.
                    if limit == len || pos + 16 * K::CHUNK > len || unsafe { sample_mixed(kernel, src, pos) } {
                        #[cfg(test)]
                        if limit < len && pos + 16 * K::CHUNK <= len {
                            DENSE_SAMPLED_OUT.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
                        }
                        break;
                    }
                }
                // Exactly (a dense step's `open` may be set after a closed sequence).
                *open = ends_inside(src, pos);
                mode = Mode::Map;
            }
        }
    }
}

/// Whether fewer than [`Windowed::dense_at`] of the 16 chunks at `pos` are not
/// ASCII: the sample of the dense mode (see [`Windowed::DENSE_SAMPLE`]), after which
/// it turns back to maps.
///
/// # Safety
/// The 16 chunks must be inside `src`, and the CPU must have the kernel's
/// instructions.
#[inline(always)]
unsafe fn sample_mixed<K: Windowed>(kernel: &K, src: &[u8], pos: usize) -> bool {
    // SAFETY: the caller's precondition.
    let ascii = unsafe { map(kernel, src, pos, 16) };
    16 - (ascii.count_ones() as usize) < kernel.dense_at()
}

/// The dense steps that a sample turned back to maps (see [`sample_mixed`]), for the
/// tests to see that they reach them.
#[cfg(test)]
static DENSE_SAMPLED_OUT: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// The bytes from which a call on aarch64 starts with maps when its first chunk is
/// not ASCII (see [`windows`]); a shorter one, as the pieces between the errors of
/// text with stray bytes, starts dense.
const MAPS_FIRST_FROM: usize = 4096;

/// How [`windows`] reads the next window.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A branch a chunk on whether to check it: where few chunks are not ASCII.
    Sparse,
    /// A map of the chunks, then a check of those not ASCII.
    Map,
    /// Dense steps, checked in full unless ASCII.
    Dense,
}

impl Mode {
    /// The mode after a window of `n` chunks of which `other` were not ASCII; never
    /// [`Mode::Sparse`] unless `sparse` ([`sparse_pays`]).
    #[inline(always)]
    fn after(self, other: usize, n: usize, sparse: bool, dense_at: usize) -> Mode {
        let sparse_at = if self == Mode::Sparse { SPARSE_STAY } else { SPARSE_AT };
        if other * 16 >= n * dense_at {
            Mode::Dense
        } else if sparse && other * 16 <= n * sparse_at {
            Mode::Sparse
        } else {
            Mode::Map
        }
    }
}

/// Checks the window of `n` chunks at `pos` with a branch a chunk (or a step of
/// chunks): those not ASCII, or after a sequence left `open` (updated); `Err(pos)`
/// where one shows an error, otherwise how many were not ASCII.
///
/// # Safety
/// The window and the three bytes before it must be inside `src`, and the CPU must
/// have the kernel's instructions.
#[inline(always)]
unsafe fn sparse_window<K: Windowed>(
    kernel: &K,
    src: &[u8],
    pos: usize,
    n: usize,
    open: &mut bool,
) -> Result<usize, usize> {
    let mut errors = kernel.no_errors_yet();
    // The chunks not ASCII (not those checked for a sequence open before them).
    let mut other = 0;
    let mut c = 0;
    if K::SPARSE_STEP == 2 {
        // The pairs all ASCII in a row, after a closed sequence, in a loop of their
        // own (loads, a test and a branch a pair); then each chunk of a pair that is
        // not is checked only where it is not ASCII or a sequence is left open
        // before it. Both chunks had been checked, and each pair had asked for
        // `open` too: validation of en.txt (a chunk in ten to twenty not ASCII,
        // most pairs with one of them), whatenc / encoding_rs (AVX2 and AVX-512
        // tiers) and / simdutf8's SSE4.2 kernel (SSSE3), `AMD EPYC` Zen 4, repeated
        // input (in cache): AVX2 0.85–0.87 → 1.03, AVX-512 0.93–0.95 → 0.97–1.00,
        // SSSE3 0.81–0.83 → 1.04; rotating: AVX2 0.87–0.88 → 0.97, AVX-512 0.93 →
        // 0.97–0.98, SSSE3 0.83 → 0.99–1.00; the other documents within the noise
        // (±3%), the fused copy (→ `String`) too.
        while c + 2 <= n {
            if !*open {
                // SAFETY: the caller's precondition.
                while c + 2 <= n && unsafe { kernel.pair_ascii(src, pos + c * K::CHUNK) } {
                    c += 2;
                }
                if c + 2 > n {
                    break;
                }
            }
            // SAFETY: as above.
            other += unsafe {
                sparse_chunk(kernel, src, pos + c * K::CHUNK, open, &mut errors)
                    + sparse_chunk(kernel, src, pos + (c + 1) * K::CHUNK, open, &mut errors)
            };
            c += 2;
        }
    }
    while c < n {
        // SAFETY: the caller's precondition.
        other += unsafe { sparse_chunk(kernel, src, pos + c * K::CHUNK, open, &mut errors) };
        c += 1;
    }
    if kernel.no_errors(errors) { Ok(other) } else { Err(pos) }
}

/// A chunk of [`sparse_window`] at `at`: checked where it is not ASCII or a
/// sequence is left `open` before it (then updated), its errors added to `errors`;
/// 1 where it is not ASCII, else 0.
///
/// # Safety
/// As [`sparse_window`]'s, for the chunk.
#[inline(always)]
unsafe fn sparse_chunk<K: Windowed>(
    kernel: &K,
    src: &[u8],
    at: usize,
    open: &mut bool,
    errors: &mut K::Errors,
) -> usize {
    // SAFETY: the caller's precondition.
    let ascii = unsafe { kernel.chunk_ascii(src, at) };
    if *open || !ascii {
        // SAFETY: as above.
        *open = unsafe { kernel.check_chunk(src, at, errors) };
    }
    usize::from(!ascii)
}

/// The map of the window of `n` chunks at `pos` (`1 <= n <= 64`): bit `n - 1 - c`
/// for chunk `c`, set where it is ASCII (a shift and an add a chunk, no branch).
///
/// # Safety
/// The window must be inside `src`, and the CPU must have the kernel's instructions.
#[inline(always)]
unsafe fn map<K: Windowed>(kernel: &K, src: &[u8], pos: usize, n: usize) -> u64 {
    let mut ascii = 0u64;
    let mut from = 0;
    while from + 16 <= n {
        // SAFETY: the caller's precondition.
        let Some(map16) = (unsafe { kernel.map16(src, pos + from * K::CHUNK) }) else { break };
        ascii = ascii << 16 | u64::from(map16);
        from += 16;
    }
    for c in from..n {
        // SAFETY: the caller's precondition.
        ascii = ascii + ascii + u64::from(unsafe { kernel.chunk_ascii(src, pos + c * K::CHUNK) });
    }
    ascii
}

/// Checks the window of `n` chunks at `start` with its map `ascii` (see [`map`]),
/// after a sequence left `open` before it or not, and updates `open`; then hands
/// the bytes checked to [`Windowed::checked`]. `Err(at)` where it shows an error:
/// the start of the first chunk that shows it ([`first_error_chunk`]), the bytes
/// before it handed on; otherwise the mode for the next window (see [`windows`];
/// the sparse mode only where `sparse`).
///
/// # Safety
/// The window and the three bytes before it must be inside `src`, and the CPU must
/// have the kernel's instructions.
#[inline(always)]
unsafe fn check_window<K: Windowed>(
    kernel: &K,
    src: &[u8],
    start: usize,
    n: usize,
    ascii: u64,
    open: &mut bool,
    sparse: bool,
) -> Result<Mode, usize> {
    let other = !ascii & (u64::MAX >> (64 - n));
    // A sequence left open before the window needs its first chunk.
    if *open && ascii >> (n - 1) != 0 {
        return Err(start);
    }
    let mut errors = kernel.no_errors_yet();
    // The chunks (bits as in `ascii`) that end inside a sequence.
    let mut unclosed = 0u64;
    let mut rest = other;
    // The chunks not ASCII from the window's last to its first (the order changes
    // nothing that the window's check finds): the lowest bit cleared (`blsr`, a
    // cycle) is all that one chunk waits on from the one before, where the highest
    // (`bsr`, then `btc` by its count) had chained some five cycles. Validation,
    // repeated input (in cache), whatenc / simdutf8, medians of three runs, `AMD
    // EPYC` Zen 3 (family 25 model 1, session 52), highest first → lowest: AVX2
    // pt.html 0.66 → 0.81, de.html 0.72 → 0.82, ko.html 0.69 → 0.79, ru.html 0.75 →
    // 0.83, ja.html 0.74 → 0.78, ar.html 0.78 → 0.81; the first 32 KB of each, 16
    // versions in turn (in L2, an order no predictor learns; medians of five): ru.html
    // 0.69 → 0.94, ar.html 0.71 → 0.86, ja.html 0.75 → 0.92, de.html 0.86 → 1.07;
    // SSSE3 (against simdutf8's AVX2) pt.html 0.49 → 0.62, de.html 0.51 → 0.55,
    // ko.html 0.40 → 0.43. Rotating (from L3), the same within the noise.
    while rest != 0 {
        let bit = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        // SAFETY: the chunk is inside `src`, with the three bytes before it; the CPU
        // has the kernel's instructions (the caller's precondition).
        unclosed |= u64::from(unsafe { kernel.check_chunk(src, start + (n - 1 - bit) * K::CHUNK, &mut errors) }) << bit;
    }
    // A chunk that ends inside a sequence, then an ASCII one.
    if !kernel.no_errors(errors) || (unclosed >> 1) & ascii != 0 {
        // On x86 [`error_after`] from the window's start, as before: the search of
        // the chunk is not yet measured there (an A/B on a windows-1252 page taken
        // for UTF-8 → UTF-16 moved 5–10% with code placement alone, in a kernel
        // this does not run: `perf` put the time in the ASCII → UTF-16 copy).
        let at = if cfg!(target_arch = "aarch64") {
            // SAFETY: the caller's precondition.
            unsafe { first_error_chunk(kernel, src, start, n, other, unclosed) }
        } else {
            start
        };
        // SAFETY: `start <= at <= start + n * CHUNK`, inside `src`.
        unsafe { kernel.checked(src, start, at) };
        return Err(at);
    }
    *open = unclosed & 1 != 0;
    // SAFETY: the window is inside `src`.
    unsafe { kernel.checked(src, start, start + n * K::CHUNK) };
    Ok(Mode::Map.after(other.count_ones() as usize, n, sparse, kernel.dense_at()))
}

/// Where the window of `n` chunks at `start` (which shows an error, with `other`
/// and `unclosed` of [`check_window`]) shows its first: the start of the first
/// chunk not ASCII whose check shows one, or of the first ASCII chunk after one
/// that ends inside a sequence, whichever comes first. Only on an error, so that
/// the search after it ([`error_after`]) starts within a chunk of it rather than at
/// the window (a window of text with an error every few KiB, as a windows-1252 page
/// taken for UTF-8, searched 4 KiB block by block).
///
/// # Safety
/// As [`check_window`]'s.
#[inline(always)]
unsafe fn first_error_chunk<K: Windowed>(
    kernel: &K,
    src: &[u8],
    start: usize,
    n: usize,
    other: u64,
    unclosed: u64,
) -> usize {
    for c in 0..n {
        let bit = n - 1 - c;
        if other >> bit & 1 != 0 {
            let mut errors = kernel.no_errors_yet();
            // SAFETY: the caller's precondition.
            unsafe { kernel.check_chunk(src, start + c * K::CHUNK, &mut errors) };
            if !kernel.no_errors(errors) {
                return start + c * K::CHUNK;
            }
        } else if bit + 1 < n && unclosed >> (bit + 1) & 1 != 0 {
            return start + c * K::CHUNK;
        }
    }
    // Not reached (the window shows an error); its start keeps the contract.
    start
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::scalar;
    use super::super::scalar::tests::Rng;
    use alloc::vec;
    use alloc::vec::Vec;
    use core::mem::MaybeUninit;

    /// `V::next_window` (an instruction for the 16-byte vectors, through memory
    /// otherwise) against the bytes it is made of: every pair of vectors of distinct
    /// bytes, with and without their sign bits.
    ///
    /// # Safety
    /// The CPU must have `V`'s instructions.
    pub(in super::super) unsafe fn next_window_moves_one_byte<V: super::Bytes>() {
        for high in [0u8, 0x80] {
            let bytes: Vec<u8> = (0..2 * V::LEN).map(|i| high | (i as u8 * 3 + 1) & 0x7F).collect();
            let mut out = vec![0u8; V::LEN];
            // SAFETY: `bytes` holds both vectors, `out` has room for one; the CPU has
            // `V`'s instructions (the caller's precondition).
            unsafe {
                let (this, next) = (V::load(bytes.as_ptr()), V::load(bytes.as_ptr().add(V::LEN)));
                this.next_window(next).store(out.as_mut_ptr());
            }
            assert_eq!(out, bytes[1..=V::LEN]);
        }
    }

    /// `V::ascii_map` against the bytes: every pattern of ASCII and non-ASCII
    /// vectors, each non-ASCII one with one byte (of a value from 0x80 to 0xFF, at a
    /// place that moves) or all of its bytes at or above 0x80.
    ///
    /// # Safety
    /// The CPU must have `V`'s instructions.
    pub(in super::super) unsafe fn ascii_map_matches_bytes<V: super::Bytes>() {
        let mut bytes = vec![0u8; 16 * V::LEN];
        for pattern in 0..=u16::MAX {
            let p = usize::from(pattern);
            for (i, vector) in bytes.chunks_exact_mut(V::LEN).enumerate() {
                for (j, byte) in vector.iter_mut().enumerate() {
                    *byte = ((i * 7 + j * 3 + p) & 0x7F) as u8;
                }
                if pattern >> (15 - i) & 1 == 0 {
                    if p % 17 == 0 {
                        vector.iter_mut().for_each(|byte| *byte |= 0x80);
                    } else {
                        vector[(p + i) % V::LEN] = 0x80 | (p >> 3) as u8;
                    }
                }
            }
            // SAFETY: `bytes` holds the 16 vectors; the CPU has `V`'s instructions
            // (the caller's precondition).
            let map = unsafe { V::ascii_map(core::array::from_fn(|i| V::load(bytes.as_ptr().add(i * V::LEN)))) };
            assert_eq!(map, pattern, "{bytes:02X?}");
        }
    }

    /// Compares `checks` with their twins on `bytes` (the fused copy too when
    /// `copy`); the caller has checked that the CPU has their instructions.
    pub(in super::super) fn same_as_twins(bytes: &[u8], copy: bool, checks: &super::Checks) {
        let expected = scalar::utf8_valid_up_to(bytes);
        // SAFETY (every call below): the CPU has the kernels' instructions, as the
        // caller checked.
        assert_eq!(unsafe { checks.is_valid(bytes) }, expected == bytes.len(), "{bytes:02X?}");
        assert_eq!(unsafe { checks.valid_up_to(bytes) }, expected, "{bytes:02X?}");
        if copy {
            let mut out = vec![MaybeUninit::new(0xAAu8); bytes.len() + 1];
            assert_eq!(unsafe { checks.copy_valid_prefix(bytes, &mut out) }, expected, "{bytes:02X?}");
            // SAFETY: the kernel wrote (or the fill left) every byte.
            let copied: Vec<u8> = out[..expected].iter().map(|b| unsafe { b.assume_init() }).collect();
            assert_eq!(copied, &bytes[..expected]);
            // Nothing stored further than `SCRATCH` past the valid prefix (what
            // `utf8_out` zeroes to keep a `str` valid).
            // SAFETY: as above.
            let stored = out.iter().rposition(|b| unsafe { b.assume_init() } != 0xAA).map_or(0, |i| i + 1);
            assert!(
                stored <= expected + super::super::utf8_out::SCRATCH,
                "stored to {stored}, valid {expected}: {bytes:02X?}"
            );
            let mut twin = vec![MaybeUninit::new(0u8); bytes.len() + 1];
            assert_eq!(scalar::copy_valid_utf8_prefix(bytes, &mut twin), expected);
            // A destination shorter than the input.
            let short = bytes.len() / 2;
            let expected = scalar::utf8_valid_up_to(&bytes[..short]);
            assert_eq!(unsafe { checks.copy_valid_prefix(bytes, &mut out[..short]) }, expected, "{bytes:02X?}");
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

    /// `cases` random inputs (most up to `short` bytes, one in 16 up to 800) at every
    /// alignment: random bytes, random text, and text with an error or two, through
    /// a kernel's `same` check.
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

    /// Text in runs of ASCII and of characters of each length, long and short (so
    /// that a kernel's loop turns dense and back: the long runs are 2,400 bytes,
    /// more than a window of the sizes that come first), whole and with one
    /// byte replaced (by a continuation byte, a lead byte, or ASCII, which cuts a
    /// character) at every position, after prefixes of two lengths, through a
    /// kernel's `same` check (shared with the AVX2 tests).
    pub(in super::super) fn mode_switches(same: fn(&[u8], bool)) {
        let runs = [
            ('a', 300),
            ('é', 1200),
            ('a', 1500),
            ('€', 800),
            ('a', 70),
            ('😀', 600),
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

    /// Dense text longer than `DENSE_SAMPLE`, then markup and letters that alternate
    /// (150 ASCII bytes, 30 '€'), so that no dense step is ASCII but a sample of 16
    /// chunks is mixed: the dense mode turns back to maps there (see
    /// `sample_mixed`). Each text whole, cut at every 61st byte, and with one byte
    /// replaced (by a continuation byte, a lead byte, or ASCII, which cuts a
    /// character) at every 13th position from the end of the dense text on, after
    /// prefixes of two lengths, through a kernel's `same` check. With `samples` (a
    /// kernel that samples), asserts that a sample turned the dense mode back.
    pub(in super::super) fn dense_samples(same: fn(&[u8], bool), samples: bool) {
        use core::sync::atomic::Ordering::Relaxed;
        let sampled = super::DENSE_SAMPLED_OUT.load(Relaxed);
        for prefix in [0, 37] {
            let mut text = vec![b'a'; prefix];
            text.extend("ж".repeat((super::DENSE_SAMPLE + 3000) / 2).bytes());
            let dense_end = text.len();
            while text.len() < dense_end + 2 * super::DENSE_SAMPLE {
                text.extend_from_slice(&[b'<'; 150]);
                text.extend("€".repeat(30).bytes());
            }
            same(&text, true);
            for end in (dense_end..text.len()).step_by(61) {
                same(&text[..end], false);
            }
            for (i, at) in (dense_end - 40..text.len()).step_by(13).enumerate() {
                let mut bytes = text.clone();
                bytes[at] = [0x80, 0xC3, 0xE2, 0xF0, b'x'][i % 5];
                same(&bytes, i % 8 == 0);
            }
        }
        assert!(!samples || super::DENSE_SAMPLED_OUT.load(Relaxed) > sampled, "no sample turned the dense mode back");
    }

    /// The windows' edges (see `windows`): in text after a first block of `first`
    /// bytes, one character (whole, cut, or a lone continuation byte) at every
    /// position around each window's start and some of the chunk boundaries inside
    /// (a sequence open at the end of a chunk before an ASCII one, at the end of a
    /// window before the next, or before the first); and inputs that end around each
    /// of them, with the character in their last bytes. The text is ASCII (the
    /// windows are sparse), and ASCII with an 'é' in the middle of every third chunk
    /// (they take maps).
    pub(in super::super) fn window_edges(first: usize, same: fn(&[u8], bool)) {
        let mut starts = vec![];
        let (mut start, mut chunks) = (first, super::FIRST_WINDOW);
        while starts.len() < 8 {
            starts.push(start);
            start += chunks * super::CHUNK;
            chunks = (2 * chunks).min(64);
        }
        let len = start + 100;
        let edges: Vec<usize> =
            starts.iter().flat_map(|&s| [s, s + super::CHUNK, s + 3 * super::CHUNK, s + 31 * super::CHUNK]).collect();
        let seqs = [&b"\xC3\xA9"[..], b"\xE2\x82\xAC", b"\xF0\x9F\x98\x80", b"\xE2\x82", b"\x80", b"\xF4\x90"];
        let ascii = vec![b'x'; len];
        let mut mixed = ascii.clone();
        for chunk in (first + super::CHUNK..len - super::CHUNK).step_by(3 * super::CHUNK) {
            mixed[chunk + 30..chunk + 32].copy_from_slice("é".as_bytes());
        }
        for (&edge, text) in edges.iter().flat_map(|edge| [(edge, &ascii), (edge, &mixed)]) {
            for at in edge - 5..edge + 5 {
                for seq in seqs {
                    let mut bytes = text.clone();
                    bytes[at..at + seq.len()].copy_from_slice(seq);
                    same(&bytes, at % 4 == 0);
                    // The input ends at or just after the edge.
                    for end in [edge, edge + 1, edge + 3] {
                        if end > at {
                            same(&bytes[..end], false);
                        }
                    }
                }
            }
        }
    }

    /// `cases` texts of 2 to 20 KB made of runs (ASCII, characters of one width,
    /// random text), so that the loop maps windows of every density, turns dense and
    /// back at random places: each whole, with one byte replaced anywhere, and cut
    /// anywhere, through a kernel's `same` check.
    pub(in super::super) fn run_texts(seed: u64, cases: usize, same: fn(&[u8], bool)) {
        let mut rng = Rng(seed);
        for case in 0..cases {
            let len = 2000 + rng.below(18_000);
            let mut text = Vec::with_capacity(len + 4);
            while text.len() < len {
                match rng.below(3) {
                    0 => text.extend(core::iter::repeat_n(b'a' + rng.below(26) as u8, 1 + rng.below(3000))),
                    1 => {
                        let c = ['é', '€', '😀', 'ж', '中'][rng.below(5)];
                        let mut tmp = [0u8; 4];
                        for _ in 0..1 + rng.below(800) {
                            text.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
                        }
                    }
                    _ => {
                        let n = 1 + rng.below(500);
                        text.extend(random_text(&mut rng, n));
                    }
                }
            }
            same(&text, case % 8 == 0);
            let mut bad = text.clone();
            bad[rng.below(text.len())] = SOME[rng.below(SOME.len())];
            same(&bad, case % 8 == 1);
            same(&text[..rng.below(text.len())], false);
        }
    }

    /// Text whose letters that are not ASCII are few but everywhere (one every 8 to
    /// 80 bytes, as Portuguese: most steps are not ASCII, but a sample of a step may
    /// be, which the dense mode lets pass once, see `Kernel`), starting
    /// with such a letter or with ASCII, whole, cut at a random length, and with one
    /// byte replaced (by a continuation byte, a lead byte, or ASCII, which cuts a
    /// character) at random positions and at every position of one stretch, through
    /// a kernel's `same` check (shared with the AVX2 tests).
    pub(in super::super) fn scattered_letters(seed: u64, cases: usize, same: fn(&[u8], bool)) {
        use core::sync::atomic::Ordering::Relaxed;
        let graces = super::GRACES.load(Relaxed);
        let copy_graces = super::COPY_GRACES.load(Relaxed);
        let mut rng = Rng(seed);
        for case in 0..cases {
            let len = 1000 + rng.below(20_000);
            let mut text = Vec::with_capacity(len + 80);
            if case % 2 == 0 {
                text.extend_from_slice("ç".as_bytes());
            }
            while text.len() < len {
                text.extend(core::iter::repeat_n(b'a' + rng.below(26) as u8, 8 + rng.below(72)));
                let c = ['ã', 'é', 'ç', '€', '😀'][rng.below(if case % 4 == 3 { 5 } else { 3 })];
                let mut tmp = [0u8; 4];
                text.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            }
            same(&text, true);
            same(&text[..rng.below(text.len())], case % 2 == 1);
            for _ in 0..4 {
                let mut bad = text.clone();
                bad[rng.below(text.len())] = [0x80, 0xC3, 0xE2, 0xF0, b'x'][rng.below(5)];
                same(&bad, true);
            }
            if case < 4 {
                let from = rng.below(text.len() - 600);
                for at in from..from + 600 {
                    let mut bad = text.clone();
                    bad[at] = if bad[at] < 0x80 { 0x80 } else { b'x' };
                    same(&bad, at % 2 == 0);
                }
            }
        }
        // The cases reach the grace (the count only grows: another test's steps may
        // add to it, never take from it).
        assert!(super::GRACES.load(Relaxed) > graces, "no step was let pass");
        // And the fused copy's, where it has them (not NEON's).
        #[cfg(target_arch = "x86_64")]
        assert!(super::COPY_GRACES.load(Relaxed) > copy_graces, "no step of the copy was let pass");
        #[cfg(not(target_arch = "x86_64"))]
        let _ = copy_graces;
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

    /// The offsets within `reach` of each of `bounds` (block and step boundaries).
    pub(in super::super) fn around(bounds: &[usize], reach: usize) -> impl Iterator<Item = usize> + Clone + '_ {
        bounds.iter().flat_map(move |&bound| bound - reach..=bound + reach)
    }

    /// The cases for a check with 16-byte vectors (SSSE3, NEON), compared by `same`:
    /// every byte pair (and lone byte) at the offsets around the first block, the
    /// first steps (64, 128 and 256 bytes) and the tail, in inputs that end there or
    /// run on; every lead byte with every second byte and a sample of third and
    /// fourth bytes across block and step boundaries; random inputs at every
    /// alignment; long texts with one error anywhere; the switches between the
    /// sparse and the dense mode; and text with letters that are not ASCII scattered.
    ///
    /// `thorough` runs them all; otherwise (under emulation, where they take ten
    /// minutes) fewer offsets: those at and around each block and step boundary, and a
    /// tenth of the random inputs.
    pub(in super::super) fn sixteen_byte_checks(same: fn(&[u8], bool), thorough: bool) {
        sixteen_byte_cases(same, thorough);
        scattered_letters(0x3C6E_F372_FE94_F82B, if thorough { 200 } else { 40 }, same);
    }

    /// [`sixteen_byte_checks`] but the scattered letters (which assert that the fused
    /// copy's steps let a step pass).
    fn sixteen_byte_cases(same: fn(&[u8], bool), thorough: bool) {
        if thorough {
            let offsets = (0..=38).chain(around(&[48, 80, 144, 272, 336, 400], 3));
            short_sequences(offsets, 38, &[16, 32, 35, 80, 144, 170], same);
            long_sequences(&[0, 13, 14, 15, 46, 78, 141, 142, 143, 270, 334, 397, 398, 399], 16, 64, same);
            random_inputs(0x2545_F491_4F6C_DD1D, 1_000_000, 300, same);
        } else {
            let offsets = (0..=3).chain(13..=19).chain(around(&[48, 144, 272, 400], 1));
            short_sequences(offsets, 19, &[16, 35, 170], same);
            long_sequences(&[14, 143], 16, 64, same);
            random_inputs(0x2545_F491_4F6C_DD1D, 100_000, 300, same);
        }
        long_texts(4343, &[47, 48, 80, 143, 144, 272, 336, 337, 400, 401, 433], 40, same);
        mode_switches(same);
        // The SSSE3 kernel samples, NEON's does not (see `Bytes::DENSE_SAMPLE`).
        dense_samples(same, cfg!(target_arch = "x86_64"));
        window_edges(16, same);
        run_texts(0x9E6C_63D0_676A_9A99, if thorough { 400 } else { 100 }, same);
    }

    /// The copy through the windows (a kernel whose `Steps` have `COPY_WINDOWS`):
    /// [`sixteen_byte_cases`]' lighter set with the windows from 128 bytes on, so that
    /// errors at every offset meet them; then ASCII with a character near the end of
    /// inputs past [`super::WINDOWS_FROM`] as built. Asserts that the windows placed
    /// errors.
    pub(in super::super) fn copy_through_windows(same: fn(&[u8], bool)) {
        use core::sync::atomic::Ordering::Relaxed;
        let errors = super::COPY_WINDOWS_ERRORS.load(Relaxed);
        super::TEST_WINDOWS_FROM.store(128, Relaxed);
        sixteen_byte_cases(same, false);
        super::TEST_WINDOWS_FROM.store(super::WINDOWS_FROM, Relaxed);
        let from = super::WINDOWS_FROM;
        long_texts(0x6A09_E667_F3BC_C908, &[from + 4343, 2 * from + 47], 40, same);
        run_texts(0x51E7_0A4D_2B1C_9F03, 100, same);
        assert!(super::COPY_WINDOWS_ERRORS.load(Relaxed) > errors, "the windows of the copy placed no error");
    }

    /// The mode switches, the dense mode's samples and random text through `same`,
    /// with the prefetch (clamped and not: `prefetch_clamps` set either way) and
    /// without (`prefetch_pays` set either way, whatever this CPU's answer), and with
    /// the windows' sparse mode and without (`sparse_pays` likewise).
    #[cfg(target_arch = "x86_64")]
    pub(in super::super) fn with_and_without_the_prefetch(same: fn(&[u8], bool)) {
        for (pays, clamps) in [(true, false), (true, true), (false, false)] {
            super::super::x86_64::set_prefetch_pays(pays);
            super::super::x86_64::set_prefetch_clamps(clamps);
            mode_switches(same);
            dense_samples(same, false);
            prefetch_edges(same);
            random_inputs(0x0DDB_A115_EED0 ^ u64::from(pays) ^ u64::from(clamps) << 1, 4_000, 800, same);
        }
        // And without the sparse mode of the windows (maps in its place), then with it.
        for sparse in [false, true] {
            super::super::x86_64::set_sparse_pays(sparse);
            mode_switches(same);
            random_inputs(0x5BA2_5E00 ^ u64::from(sparse), 4_000, 800, same);
        }
    }

    /// Around where the windows of the check stop prefetching, `distance` bytes from
    /// the end (`prefetched_through`), in calls as short as prefetch and longer: a
    /// character whole, cut, or a lone byte at every offset near it, in ASCII and in
    /// text that mixes ASCII and letters; and the input's end moved across it.
    #[cfg(target_arch = "x86_64")]
    fn prefetch_edges(same: fn(&[u8], bool)) {
        let distance = super::check_prefetch_distance();
        let seqs = [&b"\xC3\xA9"[..], b"\xE2\x82\xAC", b"\xF0\x9F\x98\x80", b"\xE2\x82", b"\x80", b"\xF4\x90"];
        for len in [distance + 64, distance + 3 * 64 + 5, distance + 4 * 1024 + 37, 3 * distance + 4096 + 200] {
            let ascii = vec![b'x'; len];
            let mut mixed = ascii.clone();
            for at in (70..len - 70).step_by(97) {
                mixed[at..at + 2].copy_from_slice("é".as_bytes());
            }
            let through = super::prefetched_through(len, distance, 64);
            for text in [&ascii, &mixed] {
                same(text, true);
                for at in through - 6..through + 6 {
                    for seq in seqs {
                        let mut bytes = text.clone();
                        bytes[at..at + seq.len()].copy_from_slice(seq);
                        same(&bytes, at % 4 == 0);
                    }
                }
                for end in through - 3..through + 3 {
                    same(&text[..end], false);
                }
            }
        }
    }

    /// Where the windows stop prefetching: never before `pos` nor past the end, and
    /// where they prefetch at all, `distance` bytes from the end or more, so that the
    /// lines a piece up to there asks for lie inside the input; for each distance at
    /// calls around it.
    #[test]
    fn prefetched_through_keeps_the_lines_inside() {
        for distance in [0usize, 64, 2048, 4096] {
            for len in (0..3 * distance + 300).filter(|&len| len % 61 == 0 || len.abs_diff(distance) < 4) {
                for pos in [3, 64, 65, len / 2, len.saturating_sub(distance), len] {
                    let through = super::prefetched_through(len, distance, pos);
                    assert!(through >= pos && through <= len.max(pos), "{len} {distance} {pos}");
                    if through > pos {
                        assert!(through + distance <= len, "{len} {distance} {pos}");
                    }
                }
            }
        }
    }

    /// `scalar::short_utf8_valid_up_to` against the standard library.
    fn same_short(bytes: &[u8], _copy: bool) {
        assert_eq!(scalar::short_utf8_valid_up_to(bytes), scalar::utf8_valid_up_to(bytes), "{bytes:02X?}");
    }

    /// The short-input check: every input of one and two bytes, and every one of
    /// three with a lead byte of three or four bytes (after ASCII); three-byte
    /// sequences followed by varied ones; every pair at each offset of a short
    /// input; every lead byte with every second byte and a sample of the rest at and
    /// around the eight-byte words; random inputs of up to 80 bytes.
    #[test]
    fn short_utf8_valid_up_to_matches_std() {
        for first in 0..=255u8 {
            same_short(&[first], false);
            for second in 0..=255u8 {
                same_short(&[first, second], false);
                if (0xE0..=0xF4).contains(&first) {
                    for third in 0..=255u8 {
                        same_short(&[b'a', first, second, third], false);
                    }
                }
            }
        }
        // One or two three-byte characters, then every lead of three or four bytes
        // and second byte with a sample of third bytes (the pairs that the check
        // takes two at a time), with a continuation byte, a character or ASCII after.
        for lead in 0xE0..=0xF4u8 {
            for second in 0..=255u8 {
                for third in SOME {
                    for (head, tail) in [("中", &b""[..]), ("中文", b"a"), ("中", "中".as_bytes()), ("中文", b"\x80")]
                    {
                        let mut bytes = head.as_bytes().to_vec();
                        bytes.extend_from_slice(&[lead, second, third]);
                        bytes.extend_from_slice(tail);
                        same_short(&bytes, false);
                    }
                }
            }
        }
        short_sequences(0..=20, 20, &[8, 16, 21, 63], same_short);
        long_sequences(&[0, 1, 6, 7, 8, 9, 15, 16, 60], 64, 63, same_short);
        random_inputs(0x6A09_E667_F3BC_C908, 200_000, 80, same_short);
    }
}
