//! The bulk kernels: ASCII runs, UTF-8 validation and UTF-16 ↔ UTF-8 transcoding.
//!
//! This is the only module where `cfg(target_arch)` and `unsafe` appear. The
//! portable word-at-a-time kernels of [`scalar`] are built everywhere; on x86_64 the
//! SSE2 twins in `x86_64` replace them (SSE2 is in the baseline). Kernels that need
//! more, `ssse3` (UTF-8 → UTF-16, three-byte UTF-16 → UTF-8 blocks), `avx2` (UTF-8
//! validation, alone or fused with a copy, UTF-8 → UTF-16 and the ASCII runs, 32
//! bytes a vector) and `avx512` (BW and
//! VBMI: the same validation, 64 bytes a vector), `avx512_utf16` (BW, VL, VBMI2 and
//! BMI2: sixteen UTF-16 units to UTF-8), `avx512_utf8` (BW, VBMI, VBMI2: UTF-8 to
//! UTF-16, 64 bytes a step whatever their mix, checked as it goes), `avx2_utf8` (its
//! AVX2 twin, 32 bytes a step; `ssse3_utf8` the SSSE3 one, 16), `avx2_utf16` (UTF-16
//! to UTF-8, 16 units a step, and single-byte encodings, 32 bytes a step),
//! are chosen at run time: `std` detects the
//! feature once and caches it; without `std`, only a build that targets the feature
//! uses them. UTF-8 validation takes the AVX-512 kernel, else the AVX2 one, else
//! falls back to simdutf8. Every kernel is tested against its scalar twin on inputs
//! at every alignment.
//!
//! On aarch64, `aarch64` has NEON kernels (NEON is its baseline) for what LLVM's
//! vectorizer cannot find in the portable loops: packing UTF-8 sequences of
//! different lengths (UTF-16 → UTF-8 blocks) and gathering them (UTF-8 → UTF-16),
//! with the shuffle tables of `shuffles` that the SSSE3 kernels use too. They are
//! tested under qemu-user; a cap at `portable` turns them off.
//!
//! On x86_64 three choices also depend on the CPU's vendor (`x86_64::vendor_amd`),
//! because they were measured to go opposite ways on AMD's Zen 4 and Intel's Cascade
//! Lake: the software prefetch of the UTF-8 check, the copy loop of UTF-8 → UTF-8
//! encoding (`x86_64::prefetch_pays`), and the portable UTF-16 → UTF-8 loop's letter
//! steps ([`letter_steps_pay`]). Each is tested both ways on any machine.
//!
//! A cap on the tier ([`crate::tier`]: `WHATENC_MAX_TIER` or `set_max_tier`) stops
//! the choice at a lower tier, down to the portable kernels, so that one build runs
//! and one machine measures every tier.
//!
//! Kernels may store whole words and vectors past the output they report, at most
//! [`utf8_out::SCRATCH`] units; callers treat only the reported output as written.
//!
//! Building with `RUSTFLAGS="--cfg whatenc_portable"` makes an x86_64 build
//! choose its kernels as any other target does: the [`scalar`] kernels and simdutf8,
//! no SSE2, SSSE3, AVX2 or AVX-512 kernel. It is for running the whole test suite on the
//! portable code (CI does), which other targets use; every `target_arch` choice in
//! this module goes with `not(whatenc_portable)` (on aarch64 it turns NEON off too).

/// Whether the CPU has an x86 feature: detected at run time and cached by `std`;
/// without `std`, whether the build targets it.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
macro_rules! cpu_has {
    ($feature:tt) => {{
        #[cfg(feature = "std")]
        {
            std::is_x86_feature_detected!($feature)
        }
        #[cfg(not(feature = "std"))]
        {
            cfg!(target_feature = $feature)
        }
    }};
}
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
use cpu_has;

#[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
mod aarch64;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod avx2;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod avx2_utf16;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod avx2_utf8;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod avx512;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod avx512_utf16;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod avx512_utf8;
pub(crate) mod scalar;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
mod shuffles;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod ssse3;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod ssse3_utf8;
pub(crate) mod utf16_to_utf8;
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
mod utf8_check;
pub(crate) mod utf8_out;
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod x86_64;

use alloc::string::String;

pub(crate) use utf16_to_utf8::{ByteUnits, bmp_replacing_to_utf8, bmp_run_to_utf8, bmp_to_utf8, utf16_to_utf8};

use crate::tier::Tier;

/// Whether the cap on the tier lets kernels of `tier` run (the CPU's features are
/// checked separately).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
#[inline(always)]
fn allows(tier: Tier) -> bool {
    crate::tier::allows(tier)
}

/// The highest tier of kernels this CPU has (whatever the cap).
#[allow(clippy::ifs_same_cond, reason = "without `std` the conditions are `cfg!` constants")]
pub(crate) fn cpu_tier() -> Tier {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    {
        if avx512::cpu_has_all() || avx512_utf16::cpu_has_all() {
            Tier::Avx512
        } else if cpu_has!("avx2") {
            Tier::Avx2
        } else if cpu_has!("ssse3") {
            Tier::Ssse3
        } else {
            Tier::Sse2
        }
    }
    #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
    return Tier::Neon;
    #[cfg(any(not(any(target_arch = "x86_64", target_arch = "aarch64")), whatenc_portable))]
    Tier::Portable
}

/// Whether the UTF-16 → UTF-8 loop of the portable and SSE2 tiers takes
/// `utf16_to_utf8`'s letter steps for text with a letter every 16 to 40 units
/// (Portuguese, French): not on AMD's x86_64 CPUs (`x86_64::vendor_amd`) before Zen 5
/// (`x86_64::amd_family_1ah_on`), where its runs of ASCII (or its chunks) were
/// faster; elsewhere, yes.
/// Time, portable tier, rotating, UTF-16 → UTF-8 and UTF-16LE → `String`: on `Intel
/// Xeon` Cascade Lake the steps took fr.txt −14% and −12%, pt.txt −10% and −9%; on
/// `AMD EPYC` Zen 4, pt.txt +10% and +7%, fr.txt +7%; on `Intel Xeon` Emerald
/// Rapids, UTF-16 → UTF-8, fr.txt −12% (98.7 against 112.5 µs), pt.txt −7%; on `AMD
/// EPYC` Zen 1, fr.txt UTF-16BE → `String` −13% but cs.txt UTF-16 → UTF-8 +28% (some
/// of its versions counted as text of letters), so AMD's stay without; on `AMD
/// EPYC` Zen 5 the texts gained (whatenc / encoding_rs, UTF-16LE → `String` fr.txt
/// 0.94 → 1.05, pt.txt 0.95 → 1.03, UTF-16BE fr.txt 0.99 → 1.09) but the pages lost
/// more (tr.html UTF-16LE → `String` 1.44 → 1.19, zh_cn.html UTF-16 → UTF-8 1.06 →
/// 0.94, ja.html 1.19 → 1.05). (The steps' stores and loads overlap, one byte apart:
/// what a store-forwarding stall is made of.) Since the steps copy for a second
/// letter only where there is one and the loop leaves them where they find few
/// letters (session 38), on Zen 5, against no steps, whatenc / encoding_rs,
/// UTF-16LE → `String` fr.txt 0.91 → 1.22, pt.txt 0.93 → 1.20, UTF-16BE fr.txt 0.92 →
/// 1.29; UTF-16 → UTF-8 fr.txt 1.11 → 1.51; pages alike (zh_cn.html UTF-16LE →
/// `String` 1.57 → 1.42 with encoding_rs faster in that build, 5,673 → 5,693 MB/s).
#[inline]
pub(crate) fn letter_steps_pay() -> bool {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    return !x86_64::vendor_amd() || x86_64::amd_family_1ah_on();
    #[cfg(any(not(target_arch = "x86_64"), whatenc_portable))]
    true
}

/// The SSE2 kernels of `x86_64` where the cap allows them, else their portable
/// twins: one function each, with the twins' signature. Those marked `#[neon]` have
/// a NEON twin in `aarch64` too, taken there unless the cap is `portable`; the others
/// run the portable loop on aarch64 (a copy, and UTF-16 bytes to units, where the
/// instruction counts of `bench/aarch64-insns.sh` put whatenc ahead of encoding_rs).
macro_rules! sse2_or_portable {
    ($($(#[$neon:ident])? fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {$(
        #[inline(always)]
        pub(crate) fn $name($($arg: $ty),*) -> $ret {
            #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
            {
                capped_or!(Tier::Sse2, x86_64, $name($($arg: $ty),*) -> $ret)
            }
            #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
            {
                neon_or_portable!($($neon)? $name($($arg: $ty),*) -> $ret)
            }
            #[cfg(any(not(any(target_arch = "x86_64", target_arch = "aarch64")), whatenc_portable))]
            scalar::$name($($arg),*)
        }
    )*};
}

/// `$module::$name` where the cap allows `$tier`, else the portable twin.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
macro_rules! capped_or {
    ($tier:expr, $module:ident, $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty) => {{
        // The capped path is called, not inlined, so that the hot loops that inline
        // the kernel do not grow (and not `#[cold]`, which would make LLVM inline
        // less into it).
        #[inline(never)]
        fn capped($($arg: $ty),*) -> $ret {
            scalar::$name($($arg),*)
        }
        if allows($tier) { $module::$name($($arg),*) } else { capped($($arg),*) }
    }};
}

/// On aarch64, [`sse2_or_portable`]'s choice: the NEON twin for `#[neon]`, else the
/// portable loop.
#[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
macro_rules! neon_or_portable {
    (neon $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        capped_or!(Tier::Neon, aarch64, $name($($arg: $ty),*) -> $ret)
    };
    ($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        scalar::$name($($arg),*)
    };
}

sse2_or_portable! {
    fn copy_bytes(src: &[u8], dst: &mut [u8]) -> ();
    #[neon] fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize;
    #[neon] fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize;
    #[neon] fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize;
    #[neon] fn decode_table_to_utf8(src: &[u8], dst: &mut [u8], table: &[u32; 256]) -> (usize, usize);
    #[neon] fn decode_table_to_utf16(src: &[u8], dst: &mut [u16], table: &[u16; 256], start: u8, len: u8, delta: u16) -> usize;
    #[neon] fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize;
    fn utf16_bytes_to_units(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize;
    fn utf16_bytes_replacing_lone_surrogates(src: &[u8], dst: &mut [u16], big_endian: bool) -> (usize, bool);
}

pub(crate) use scalar::find_byte;

/// The rest of a long ASCII run (or run of units that are not surrogates), which the
/// SSE2 kernels of `x86_64` hand over after [`x86_64::LONG_RUN`] units (or
/// [`x86_64::LONG_NARROWING_RUN`]): the AVX2
/// kernels where the cap and the CPU allow them, else the SSE2 loop. Called, not
/// inlined, and only for long runs, so that the short runs of text (a space between
/// words, a tag) pay for neither the call nor the checks, and the hot loops that
/// inline the SSE2 kernels do not grow.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
mod long_run {
    use super::{avx2, x86_64};

    /// The rest of [`x86_64::copy_ascii_to_ascii`]'s run.
    #[inline(never)]
    pub(super) fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
        if avx2::available() {
            // SAFETY: the CPU has AVX2, as `available` just said.
            return unsafe { avx2::copy_ascii_to_ascii(src, dst) };
        }
        x86_64::copy_ascii_to_ascii_loop::<false>(src, dst)
    }

    /// The rest of [`x86_64::copy_ascii_to_utf16`]'s run.
    #[inline(never)]
    pub(super) fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
        if avx2::available() {
            // SAFETY: the CPU has AVX2, as `available` just said.
            return unsafe { avx2::copy_ascii_to_utf16(src, dst) };
        }
        x86_64::copy_ascii_to_utf16_loop::<false>(src, dst)
    }

    /// The rest of [`x86_64::copy_utf16_ascii_to_bytes`]'s run.
    #[inline(never)]
    pub(super) fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize {
        if avx2::available() {
            // SAFETY: the CPU has AVX2, as `available` just said.
            return unsafe { avx2::copy_utf16_ascii_to_bytes(src, dst) };
        }
        x86_64::copy_utf16_ascii_to_bytes_loop::<false>(src, dst)
    }

    /// The rest of [`x86_64::encode_utf16_linear`]'s run.
    #[inline(never)]
    pub(super) fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize {
        if avx2::available() {
            // SAFETY: the CPU has AVX2, as `available` just said.
            return unsafe { avx2::encode_utf16_linear(src, dst, start, len, delta) };
        }
        x86_64::encode_utf16_linear_loop::<false>(src, dst, start, len, delta)
    }

    /// The rest of [`x86_64::utf16_bytes_ascii_to_bytes`]'s run.
    #[inline(never)]
    pub(super) fn utf16_bytes_ascii_to_bytes(src: &[u8], dst: &mut [u8], big_endian: bool) -> usize {
        if avx2::available() {
            // SAFETY: the CPU has AVX2, as `available` just said.
            return unsafe { avx2::utf16_bytes_ascii_to_bytes(src, dst, big_endian) };
        }
        x86_64::utf16_bytes_ascii_to_bytes_loop::<false>(src, dst, big_endian)
    }

    /// The rest of [`x86_64::utf16_bytes_to_units`]'s run.
    #[inline(never)]
    pub(super) fn utf16_bytes_to_units(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize {
        if avx2::available() {
            // SAFETY: the CPU has AVX2, as `available` just said.
            return unsafe { avx2::utf16_bytes_to_units(src, dst, big_endian) };
        }
        x86_64::utf16_bytes_to_units_loop::<false>(src, dst, big_endian)
    }
}

/// Runs `f` with the UTF-8 check kernels (an ISA's `CHECKS`) that the cap on the
/// tier and the CPU allow: the AVX-512 (BW and VBMI) ones where the CPU has them,
/// else the AVX2 ones, else the SSSE3 ones (each detected once, at run time, with
/// `std`); on aarch64 the NEON ones; `None` at the SSE2 and portable tiers, where
/// there are none. The CPU has the instructions of the kernels `f` gets: the
/// precondition of their methods. (`f` is inlined with each ISA's constant `CHECKS`,
/// so that its calls are direct, as they were before the three callers shared this
/// chooser; returning a reference chosen at run time made them indirect. An A/B of
/// short pieces to `String` could not tell the two apart on a noisy machine.)
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
#[inline(always)]
fn with_checks<R>(f: impl FnOnce(&utf8_check::Checks) -> R) -> Option<R> {
    #[cfg(target_arch = "x86_64")]
    {
        if avx512::available() {
            return Some(f(&avx512::CHECKS));
        }
        if avx2::available() {
            return Some(f(&avx2::CHECKS));
        }
        if ssse3::available() {
            return Some(f(&ssse3::CHECKS));
        }
        None
    }
    #[cfg(target_arch = "aarch64")]
    allows(Tier::Neon).then(|| f(&aarch64::CHECKS))
}

/// Validates UTF-8 with the kernels of `with_checks` (not in the portable build),
/// where there are some; otherwise (the SSE2 and portable tiers) with
/// [`valid_up_to_without_checks`]. The text when all of `bytes` is valid.
#[inline]
pub(crate) fn validate_utf8(bytes: &[u8]) -> Option<&str> {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    // SAFETY: the CPU has the kernels' instructions (`with_checks`).
    if let Some(valid) = with_checks(|checks| unsafe { checks.is_valid(bytes) }) {
        // SAFETY: the kernel (tested against `core::str::from_utf8`) found all of
        // `bytes` valid.
        return valid.then(|| unsafe { core::str::from_utf8_unchecked(bytes) });
    }
    // SAFETY: `valid_up_to_without_checks` found all of `bytes` valid.
    (valid_up_to_without_checks(bytes) == bytes.len()).then(|| unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// The longest prefix of `bytes` that is valid UTF-8 (up to the first error, or to a
/// sequence cut by the end).
#[inline]
pub(crate) fn valid_utf8_prefix(bytes: &[u8]) -> &str {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    // SAFETY: the CPU has the kernels' instructions (`with_checks`).
    if let Some(valid_up_to) = with_checks(|checks| unsafe { checks.valid_up_to(bytes) }) {
        // SAFETY: the kernel found no error before `valid_up_to`, and the standard
        // library placed it when there is one.
        return unsafe { core::str::from_utf8_unchecked(&bytes[..valid_up_to]) };
    }
    // SAFETY: `valid_up_to_without_checks` found no error before the length it gives.
    unsafe { core::str::from_utf8_unchecked(&bytes[..valid_up_to_without_checks(bytes)]) }
}

/// The length of the longest valid UTF-8 prefix of `bytes` below the tiers with UTF-8
/// check kernels (the SSE2 and portable tiers), in one pass to the error if there is
/// one (not a validation of the whole, then a search for the error, then a validation
/// of the prefix: three passes over it, which made a legacy page taken for UTF-8 →
/// `String`, with an error every few hundred bytes, 2 × slower than encoding_rs at
/// these tiers):
/// - input shorter than [`scalar::SHORT_UTF8`] is looked at for ASCII first
///   ([`scalar::ascii_prefix_len`]): all ASCII, it is valid;
/// - otherwise, at the SSE2 tier (x86_64), from `SIMDUTF8_KERNEL_FROM` bytes,
///   simdutf8's `compat` kernel for this CPU (`simdutf8_kernel_valid_up_to`), called
///   directly;
/// - shorter input, and any at the portable tier, [`scalar::short_utf8_valid_up_to`];
/// - from [`scalar::SHORT_UTF8`] bytes, simdutf8's kernel (called directly on x86_64,
///   through `simdutf8::compat::from_utf8` elsewhere).
///
/// Decode short to `String` (16 pieces of 13 to 256 bytes a call, each a new decoder;
/// rotating; whatenc / encoding_rs; `AMD EPYC` Zen 5), before (scalar below 64 bytes,
/// simdutf8 through `from_utf8`, no look for ASCII) → after, with
/// `crate::tier::allows`: SSE2 tier ru.txt 0.99 → 1.75, vi.txt 1.04 → 2.29, ja.txt
/// 0.96 → 1.24, zh_tw.txt 0.95 → 1.28, th.txt 0.94 → 1.24, en.txt 0.97 → 1.17,
/// en.html 0.96 → 1.25; portable tier (no kernel below 64 bytes) en.txt 0.94 → 1.15,
/// ja.txt 0.97 → 1.03, cs.txt 0.97 → 1.00. Each part, SSE2 tier, in builds of one
/// layout: simdutf8's kernel from 16 bytes rather than 64, ru.txt 0.96 → 1.58, vi.txt
/// 0.99 → 2.09, ja.txt 0.93 → 1.12, en.txt 0.94 → 0.96 (from 128 bytes, scalar below:
/// ja.txt 0.93 → 0.75); the same through `simdutf8::compat::from_utf8` (which gives
/// input shorter than 64 bytes to the standard library's `from_utf8`), ja.txt 1.12 →
/// 0.89, ru.txt 1.58 → 0.97; the look for ASCII first, en.txt 1.05 → 1.16, pt.html
/// 1.09 → 1.17, ja.txt and ru.txt 1–2% slower.
///
/// simdutf8's `compat` flavour, not `basic`: `basic` checks every block in full once
/// it has met one non-ASCII byte, `compat` goes back to its ASCII loop, and on text
/// that is mostly ASCII it ran 1.1–1.3 × faster (en.txt 76 against 60 GB/s, th.html
/// 14.1 against 12.7, rotating, `AMD EPYC` Zen 4); on dense text 0.95 × (ru.txt 17.0
/// against 17.8).
#[inline(always)]
fn valid_up_to_without_checks(bytes: &[u8]) -> usize {
    if bytes.len() < scalar::SHORT_UTF8 {
        let ascii = scalar::ascii_prefix_len(bytes);
        if ascii == bytes.len() {
            return ascii;
        }
        #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
        if bytes.len() >= SIMDUTF8_KERNEL_FROM
            && allows(Tier::Sse2)
            && let Some(valid_up_to) = simdutf8_kernel_valid_up_to(bytes)
        {
            return valid_up_to;
        }
        // The scalar loop from where the ASCII ended (a character boundary), not over
        // it again.
        return ascii + scalar::short_utf8_valid_up_to(&bytes[ascii..]);
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if let Some(valid_up_to) = simdutf8_kernel_valid_up_to(bytes) {
        return valid_up_to;
    }
    // simdutf8's `valid_up_to` ends the valid prefix (its contract; the tests at the
    // SSE2 and portable tiers hold its results against the standard library's).
    simdutf8::compat::from_utf8(bytes).map_or_else(|error| error.valid_up_to(), str::len)
}

/// The shortest input that [`valid_up_to_without_checks`] gives simdutf8's kernel
/// at the SSE2 tier (the kernel copies shorter input than 64 bytes into a block of
/// 64 and checks it whole). At the portable tier it takes input from
/// [`scalar::SHORT_UTF8`] bytes, as simdutf8's own choice does on every CPU (on
/// aarch64, its NEON kernel), so that the portable tier measures what other targets
/// get.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
const SIMDUTF8_KERNEL_FROM: usize = 16;

/// simdutf8's `compat` check for this CPU (AVX2, else SSE4.2), called directly, not
/// through `simdutf8::compat::from_utf8` (which takes input shorter than 64 bytes to
/// the standard library's `from_utf8`, and goes through a pointer to the function):
/// the length of the longest valid prefix. `None` without either feature.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[inline(always)]
fn simdutf8_kernel_valid_up_to(bytes: &[u8]) -> Option<usize> {
    let checked = if avx2::cpu_has() {
        // SAFETY: the CPU has AVX2.
        unsafe { simdutf8::compat::imp::x86::avx2::validate_utf8(bytes) }
    } else if cpu_has!("sse4.2") {
        // SAFETY: the CPU has SSE4.2.
        unsafe { simdutf8::compat::imp::x86::sse42::validate_utf8(bytes) }
    } else {
        return None;
    };
    Some(checked.map_or_else(|error| error.valid_up_to(), |()| bytes.len()))
}

/// Appends the longest valid UTF-8 prefix of `src` that fits in `dst`'s spare
/// capacity (it never reallocates); returns its length. With the kernels of
/// `with_checks` (AVX-512BW and AVX-512VBMI, AVX2 or SSSE3; NEON on aarch64), one pass
/// validates and copies; otherwise [`valid_utf8_prefix_in_pieces`].
#[inline]
pub(crate) fn push_valid_utf8_prefix(dst: &mut String, src: &[u8]) -> usize {
    let src = &src[..src.len().min(dst.capacity() - dst.len())];
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    {
        // SAFETY: the length grows below only by the bytes that the kernel copied into
        // the spare capacity and found valid (the standard library placed the end when
        // there is an error), so the string stays valid UTF-8; nothing before the old
        // length is touched.
        let vec = unsafe { dst.as_mut_vec() };
        // SAFETY: the CPU has the kernels' instructions (`with_checks`).
        if let Some(valid) = with_checks(|checks| unsafe { checks.copy_valid_prefix(src, vec.spare_capacity_mut()) }) {
            // SAFETY: the kernel wrote the `valid` bytes after the old length, and
            // they are valid UTF-8 (see above).
            unsafe { vec.set_len(vec.len() + valid) };
            return valid;
        }
    }
    valid_utf8_prefix_in_pieces(src, |valid| dst.push_str(valid))
}

/// [`push_valid_utf8_prefix`] after an error, where another error is likely close (text
/// of errors, as a legacy encoding taken for UTF-8): [`scalar::utf8_head`] first.
#[inline]
pub(crate) fn push_valid_utf8_prefix_after_error(dst: &mut String, src: &[u8]) -> usize {
    let src = &src[..src.len().min(dst.capacity() - dst.len())];
    let (valid, settled) = scalar::utf8_head(src);
    // SAFETY: `utf8_head` (through `short_utf8_valid_up_to`, tested against
    // `core::str::from_utf8`) found the first `valid` bytes valid.
    dst.push_str(unsafe { core::str::from_utf8_unchecked(&src[..valid]) });
    if settled {
        return valid;
    }
    valid + push_valid_utf8_prefix(dst, &src[valid..])
}

/// Copies the longest valid UTF-8 prefix of `src` that fits into the start of `dst`;
/// returns its length. With the kernels of `with_checks`, one pass validates and
/// copies (as for [`push_valid_utf8_prefix`]); otherwise
/// [`valid_utf8_prefix_in_pieces`].
#[inline]
pub(crate) fn copy_valid_utf8_prefix(src: &[u8], dst: &mut [u8]) -> usize {
    let src = &src[..src.len().min(dst.len())];
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    {
        // SAFETY: `[u8]` and `[MaybeUninit<u8>]` have the same layout, and the kernel
        // writes only bytes of `src` (initialized) through the view.
        let out = unsafe { &mut *(core::ptr::from_mut(dst) as *mut [core::mem::MaybeUninit<u8>]) };
        // SAFETY: the CPU has the kernels' instructions (`with_checks`).
        if let Some(valid) = with_checks(|checks| unsafe { checks.copy_valid_prefix(src, out) }) {
            return valid;
        }
    }
    copy_in_pieces(src, dst)
}

/// [`valid_utf8_prefix_in_pieces`] into the start of `dst` (room for all of `src`).
#[inline(always)]
fn copy_in_pieces(src: &[u8], dst: &mut [u8]) -> usize {
    let mut at = 0;
    valid_utf8_prefix_in_pieces(src, |valid| {
        dst[at..at + valid.len()].copy_from_slice(valid.as_bytes());
        at += valid.len();
    })
}

/// [`push_valid_utf8_prefix`] for the start of a text, where no error has come yet
/// and the text is likely valid for long: in pieces ([`valid_utf8_prefix_in_pieces`],
/// each validated by the check alone, then copied) where [`large_in_pieces`] says so;
/// otherwise `None`, for the one pass. (After an error, where the next may be close,
/// the pieces measured slower: UTF-8 with a stray byte every few KB → `String`, AVX-512
/// tier, en.html 14.1 against 9.6 GB/s.)
#[inline]
pub(crate) fn push_valid_utf8_in_pieces(dst: &mut String, src: &[u8]) -> Option<usize> {
    let src = &src[..src.len().min(dst.capacity() - dst.len())];
    large_in_pieces(src.len()).then(|| valid_utf8_prefix_in_pieces(src, |valid| dst.push_str(valid)))
}

/// [`copy_valid_utf8_prefix`] for the start of a text, as [`push_valid_utf8_in_pieces`].
#[inline]
pub(crate) fn copy_valid_utf8_in_pieces(src: &[u8], dst: &mut [u8]) -> Option<usize> {
    let src = &src[..src.len().min(dst.len())];
    large_in_pieces(src.len()).then(|| copy_in_pieces(src, dst))
}

/// Whether [`push_valid_utf8_in_pieces`] and [`copy_valid_utf8_in_pieces`] take
/// `len` bytes in pieces: on `AMD EPYC` Zen 5 and later (`x86_64::amd_family_1ah_on`),
/// from `in_pieces_from` bytes (x86_64), where the check alone and a copy from L2 (the
/// platform's `memcpy`, `rep movsb` there) went faster than the fused copy.
///
/// AVX-512 kernels, pages from memory, rotating, UTF-8 → `String`, GB/s, one pass →
/// pieces: ru.html 14.4 → 17.8, th.html 15.5 → 21.7, vi.html 16.0 → 21.4, en.html
/// 22.5 → 25.5, zh_cn.html 22.7 → 24.8, ko.html 37.8 → 37.4, ja.html 29.1 → 27.8
/// (from 128 KiB: ja.html 27.1, ko.html 33.7, fr.txt 39.6 → 35.3; from 64 KiB,
/// de.txt 45.0 → 36.2).
///
/// AVX2 kernels (the tier capped at AVX2 on Zen 5), GB/s, one pass → pieces from 128
/// KiB: de.html 15.6 → 28.3, cs.html 14.7 → 23.6, el.html 19.2 → 25.5, pt.html 14.9
/// → 22.6, fr.html 14.8 → 22.4, vi.html 14.9 → 21.5, en.html 22.8 → 26.6, ko.html
/// 23.5 → 24.1; the texts of 128 KiB and more alike (fr.txt 22.8 → 22.4, th.txt 23.2
/// → 23.1). From 64 KiB, the texts from L3 lost (de.txt 23.9 → 21.9, pt.txt 23.4 →
/// 21.8).
///
/// SSSE3 kernels (capped at SSSE3), whose fused copy stores 16 bytes at a time (so,
/// likely, each line is read into L1 before it is written), GB/s, one pass → pieces
/// from 4 KiB:
/// en.txt 34.7 → 43.2, de.txt 9.8 → 11.8, de.html 12.0 → 20.0, fr.html 10.5 → 17.4,
/// en.html 19.8 → 23.6, ru.html 10.5 → 12.5; the dense texts, where the check
/// itself is the cost, 1–6% slower (th.txt 12.8 → 12.4, pt.txt 11.7 → 11.0).
///
/// Not measured elsewhere, so elsewhere always the one pass.
#[inline(always)]
fn large_in_pieces(len: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    return x86_64::amd_family_1ah_on() && len >= in_pieces_from();
    #[cfg(any(not(target_arch = "x86_64"), whatenc_portable))]
    {
        let _ = len;
        false
    }
}

/// The shortest input [`large_in_pieces`] takes in pieces with the check kernels of
/// this CPU and cap ([`with_checks`]'s choice): [`LARGE_IN_PIECES_FROM`] with AVX-512,
/// 128 KiB with AVX2, 4 KiB with SSSE3; none at the SSE2 tier, which has no fused
/// copy (its copies go in pieces anyway: [`valid_utf8_prefix_in_pieces`]).
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[inline(always)]
fn in_pieces_from() -> usize {
    if avx512::available() {
        LARGE_IN_PIECES_FROM
    } else if avx2::available() {
        128 << 10
    } else if ssse3::available() {
        4 << 10
    } else {
        usize::MAX
    }
}

/// See [`large_in_pieces`].
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
const LARGE_IN_PIECES_FROM: usize = 256 << 10;

/// The bytes that [`valid_utf8_prefix_in_pieces`] validates, then copies, at a time:
/// few enough to stay in L1 between the two, and as many as that allows, for each
/// piece is a call to simdutf8 and one to the copy. Against 8 KiB, SSE2 tier,
/// rotating, `AMD EPYC` Zen 1, to `String`, time over encoding_rs's in the same run:
/// ja.txt (33 KB) 1.013 → 0.984, zh_cn.txt 1.012 → 0.985, ru.txt 0.973 → 0.955,
/// en.html 0.856 → 0.848.
const VALID_PIECE: usize = 16 << 10;

/// [`VALID_PIECE`] on `AMD EPYC` Zen 5 (AMD's family 1Ah; `x86_64::amd_family_1ah_on`),
/// whose pieces of 16 KiB made the pages that come from memory slower than one
/// validation of the whole then one copy. Portable tier, rotating, whatenc /
/// encoding_rs in the same run, pieces of 16 KiB, 128 KiB, 256 KiB, the whole: ru.html
/// 0.85, 1.06, 1.10, 1.06; th.html 0.87, 1.10, 1.15, 1.06; en.html 1.07, 1.23, 1.31,
/// 1.10; fr.html –, 1.05, 1.11, 1.03; ar.html 0.91, 1.05, 1.05, 1.06 (SSE2 tier for
/// 16 KiB); the texts of 20–77 KB alike at every size (0.97–1.15).
#[cfg_attr(any(not(target_arch = "x86_64"), whatenc_portable), allow(dead_code))]
const LARGE_VALID_PIECE: usize = 256 << 10;

/// The bytes that [`valid_utf8_prefix_in_pieces`] validates, then copies, at a time
/// on this CPU: [`LARGE_VALID_PIECE`] on `AMD EPYC` Zen 5 and later, else
/// [`VALID_PIECE`].
#[inline]
fn valid_piece() -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if x86_64::amd_family_1ah_on() {
        return LARGE_VALID_PIECE;
    }
    VALID_PIECE
}

/// Where no kernel validates and copies in one pass (the SSE2 and portable tiers),
/// or pieces pay more ([`large_in_pieces`]):
/// validates `src` with [`valid_utf8_prefix`] a piece of [`valid_piece`] bytes at a
/// time, and gives `copy` the valid text of each piece while it is still in L1;
/// returns the length of the longest valid prefix of `src` (all that `copy` got).
///
/// Validating the whole, then copying it, read the input twice from L3 or memory:
/// to `String`, rotating, `Intel Xeon` Emerald Rapids, µs (whole, then in pieces of 8
/// KiB): en.html 49.3 → 38.2, ru.html 89.2 → 83.2, en.txt 3.75 → 3.06; pieces of 4
/// to 16 KiB measured alike, of 32 KiB and more lost most of it. Inlined: as a call,
/// it cost the stretches between errors (a stray byte every 1000) 1–5%.
#[inline(always)]
fn valid_utf8_prefix_in_pieces(src: &[u8], copy: impl FnMut(&str)) -> usize {
    valid_utf8_prefix_in_pieces_of(src, valid_piece(), copy)
}

/// [`valid_utf8_prefix_in_pieces`] with pieces of `piece` bytes (at least 4).
#[inline(always)]
fn valid_utf8_prefix_in_pieces_of(src: &[u8], piece: usize, mut copy: impl FnMut(&str)) -> usize {
    let mut pos = 0;
    loop {
        let end = src.len().min(pos + piece);
        let valid = valid_utf8_prefix(&src[pos..end]);
        copy(valid);
        pos += valid.len();
        // The end of a piece that cuts a character leaves 1 to 3 bytes of it, and the
        // next piece starts there; any other shortfall is an error, which ends the
        // prefix (as it does when the next piece finds no valid character there).
        if end == src.len() || end - pos > 3 {
            return pos;
        }
    }
}

/// The shortest input for which the AVX2 steps of single-byte encodings run (as the
/// AVX-512 ones).
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
const AVX2_TABLE_FROM: usize = 64;

/// Decodes bytes of a single-byte encoding to UTF-8 as [`decode_table_to_utf8`] does
/// with `utf8`, after the AVX-512 steps of 32 bytes where the CPU has them
/// (`avx512_utf16::table_steps_to_utf8`, with `units`: the same index as code units).
/// Against the SSE2 blocks alone, rotating, `AMD EPYC` Zen 4: to `String` vi.txt
/// (windows-1258) 47.6 → 19.9 µs, ru.txt (KOI8-R) 60 → 11.3, th.txt (windows-874)
/// 58 → 23, fr.txt 52 → 33; to UTF-16 vi.txt 61 → 8.2, ru.txt (KOI8-R) 34.6 → 4.6,
/// th.txt 37 → 4.7, cs.txt 24 → 3.1.
///
/// With AVX2 (and not those), the AVX2 steps (`avx2_utf16::table_steps_to_utf8` and
/// `table_steps_to_utf16`: eight `pshufb` tables of sixteen units for each byte of
/// the unit). Against the SSE2 blocks alone, AVX2 tier, rotating, `Intel Xeon`
/// Emerald Rapids, µs: to `String` vi.txt 65.8 → 55.0, cs.txt 32.6 → 27.1, ru.txt
/// (KOI8-R) 45.9 → 40.0, en.html 85.0 → 58.1, el.txt 11.7 → 9.8, th.txt (left to the
/// blocks) 46.3 → 47.5; to UTF-16 vi.txt 54.4 → 33.9, cs.txt 19.1 → 13.1, ru.txt
/// (windows-1251) 17.0 → 10.9, de.txt 14.5 → 6.0, fr.txt 22.6 → 11.8, th.txt 27.5 →
/// 17.6, en.html 64.3 → 67.7.
#[inline(always)]
pub(crate) fn decode_single_byte_to_utf8(
    src: &[u8],
    dst: &mut [u8],
    utf8: &[u32; 256],
    units: &[u16; 256],
    run: (u8, u8, u16),
) -> (usize, usize) {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= 64 && avx512_utf16::available() {
        // SAFETY: the CPU has the kernel's features, as `available` just said.
        let (read, written) = unsafe { avx512_utf16::table_steps_to_utf8(src, dst, units) };
        let (more, bytes) = decode_table_to_utf8(&src[read..], &mut dst[written..], utf8);
        return (read + more, written + bytes);
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= AVX2_TABLE_FROM && avx2_utf16::available() {
        // SAFETY: the CPU has AVX2 and POPCNT, as `available` just said.
        let (read, written) = unsafe { avx2_utf16::table_steps_to_utf8(src, dst, units, utf8, run) };
        let (more, bytes) = decode_table_to_utf8(&src[read..], &mut dst[written..], utf8);
        return (read + more, written + bytes);
    }
    #[cfg(any(not(target_arch = "x86_64"), whatenc_portable))]
    let _ = (units, run);
    decode_table_to_utf8(src, dst, utf8)
}

/// Decodes bytes of a single-byte encoding to UTF-16 as [`decode_table_to_utf16`]
/// does, after the AVX-512 steps of 32 bytes where the CPU has them
/// (`avx512_utf16::table_steps_to_utf16`), else the AVX2 ones (see
/// [`decode_single_byte_to_utf8`]). Returns the bytes read.
#[inline(always)]
pub(crate) fn decode_single_byte_to_utf16(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    start: u8,
    len: u8,
    delta: u16,
) -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= 64 && avx512_utf16::available() {
        // SAFETY: the CPU has the kernel's features, as `available` just said.
        let read = unsafe { avx512_utf16::table_steps_to_utf16(src, dst, table) };
        return read + decode_table_to_utf16(&src[read..], &mut dst[read..], table, start, len, delta);
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= AVX2_TABLE_FROM && avx2_utf16::available() {
        // SAFETY: the CPU has AVX2 and POPCNT, as `available` just said.
        let read = unsafe { avx2_utf16::table_steps_to_utf16(src, dst, table, (start, len, delta)) };
        return read + decode_table_to_utf16(&src[read..], &mut dst[read..], table, start, len, delta);
    }
    decode_table_to_utf16(src, dst, table, start, len, delta)
}

/// The start of the first character of `src` (UTF-8) at or after `at`: past the
/// continuation bytes there (or the end of `src`).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
#[inline(always)]
fn next_character(src: &[u8], mut at: usize) -> usize {
    while src.get(at).is_some_and(|&byte| byte & 0xC0 == 0x80) {
        at += 1;
    }
    at
}

/// The other characters of a step of a kernel's `linear_steps_from_utf8` (AVX2's,
/// NEON's) at `read` (the bits of `others`, in order) looked up in `index`, each given
/// to `put` with its lane, up to one the index does not have: returns its lane (32
/// when there is none).
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
#[inline(always)]
pub(crate) fn look_up_others(
    mut others: u32,
    src: &[u8],
    read: usize,
    index: &impl ByteLookup,
    mut put: impl FnMut(usize, u8),
) -> usize {
    while others != 0 {
        let at = others.trailing_zeros() as usize;
        let byte = index.byte_at(src, read + at);
        if byte == 0 {
            return at;
        }
        put(at, byte);
        others &= others - 1;
    }
    32
}

/// The byte of a character in a single-byte index, for the kernels that encode into
/// one ([`encode_utf8_single_byte_steps`], [`encode_utf16_single_byte_steps`]).
pub(crate) trait ByteLookup {
    /// The byte of the character that starts at `src[at]` (valid UTF-8), or 0 when
    /// the index does not have it.
    #[cfg_attr(
        any(not(any(target_arch = "x86_64", target_arch = "aarch64")), whatenc_portable),
        allow(dead_code, reason = "only the vector kernels ask")
    )]
    fn byte_at(&self, src: &[u8], at: usize) -> u8;
    /// The byte of a UTF-16 code unit that is not a surrogate, or 0 when the index
    /// does not have it (or it is a surrogate).
    #[cfg_attr(
        any(not(target_arch = "x86_64"), whatenc_portable),
        allow(dead_code, reason = "only the AVX-512 kernel asks")
    )]
    fn byte_of_unit(&self, unit: u16) -> u8;
}

/// Encodes the longest prefix of `src` that fits in `dst` and whose units are in a
/// single-byte index (ASCII, the run, `index`'s others) with the SSE2 kernel of
/// `x86_64` where the cap allows it: `Some` with its length (up to 15 bytes after it
/// may be written). `None` elsewhere: the caller's own loop goes on.
#[inline(always)]
pub(crate) fn encode_utf16_in_index(
    src: &[u16],
    dst: &mut [u8],
    run: (u16, u16, u16),
    index: &impl ByteLookup,
) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if allows(Tier::Sse2) {
        return Some(x86_64::encode_utf16_in_index(src, dst, run, index));
    }
    #[cfg(any(not(target_arch = "x86_64"), whatenc_portable))]
    let _ = (src, dst, run, index);
    None
}

/// Encodes UTF-16 into a single-byte encoding while its units are in the index:
/// ASCII, the run (`run`: start, length, delta) or `index`'s others, with the AVX-512
/// steps of 32 units where the CPU has them (`avx512_utf16::linear_steps_from_utf16`),
/// else the AVX2 ones (`avx2_utf16::linear_steps_from_utf16`); elsewhere, and for
/// fewer than 32 units, none. Returns the units read (and bytes
/// written).
#[inline(always)]
pub(crate) fn encode_utf16_single_byte_steps(
    src: &[u16],
    dst: &mut [u8],
    run: (u16, u16, u16),
    index: &impl ByteLookup,
) -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= 32 && dst.len() >= 32 && avx512_utf16::available() {
        // SAFETY: the CPU has the kernel's features, as `available` just said.
        return unsafe { avx512_utf16::linear_steps_from_utf16(src, dst, run, index) };
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= 32 && dst.len() >= 32 && avx2_utf16::available() {
        // SAFETY: the CPU has AVX2 and POPCNT, as `available` just said.
        return unsafe { avx2_utf16::linear_steps_from_utf16(src, dst, run, index) };
    }
    #[cfg(any(not(target_arch = "x86_64"), whatenc_portable))]
    let _ = (src, dst, run, index);
    0
}

/// Encodes `src` (valid UTF-8, from a character on) into a single-byte encoding while
/// its characters are in the index: ASCII, the run (`run`: start, length, delta) or
/// `index`'s others, with the AVX-512 steps of 64 bytes where the CPU has them
/// (`avx512_utf16::linear_steps_from_utf8`), else the AVX2 steps of 32 but for a
/// short run within Latin-1 (`avx2::linear_steps_from_utf8`), else the SSSE3 steps
/// of 16 for a long run of two-byte UTF-8 past Latin-1
/// (`ssse3::linear_steps_from_utf8`); on aarch64 NEON's of 16 for a run of 16 or
/// more but a short one within Latin-1 (`aarch64::linear_steps_from_utf8`); elsewhere, and for fewer than 65 (34,
/// 18) bytes, none. Returns the bytes read and written.
#[inline(always)]
pub(crate) fn encode_utf8_single_byte_steps(
    src: &[u8],
    dst: &mut [u8],
    run: (u16, u16, u16),
    index: &impl ByteLookup,
) -> (usize, usize) {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() > 64 && dst.len() >= 64 && avx512_utf16::available() {
        // SAFETY: the CPU has the kernel's features, as `available` just said.
        return unsafe {
            if run.0 >= 0x800 {
                avx512_utf16::linear_steps_from_utf8::<true>(src, dst, run, index)
            } else {
                avx512_utf16::linear_steps_from_utf8::<false>(src, dst, run, index)
            }
        };
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    // AVX2's not for a run within Latin-1 shorter than windows-1252's (windows-1250,
    // 1254, 1258): their letters out of it are others, looked up one at a time after
    // a step's masks, and the scalar loop took such text faster. AVX2, rotating, `AMD
    // EPYC` Zen 5, whatenc / encoding_rs: tr.html windows-1254 2.10 → 2.37, vi.txt
    // windows-1258 1.78 → 1.97, cs.html windows-1250 2.62 → 2.93 (cs.txt 2.61, 2.59).
    // AVX-512's 64-byte steps took them faster than the scalar loop (cs.txt 4.09
    // against 2.62).
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if !(run.0 < 0x100 && run.1 < 64) && src.len() > 33 && dst.len() >= 32 && avx2::available() && cpu_has!("popcnt") {
        // SAFETY: the CPU has AVX2 and POPCNT, as just asked.
        return unsafe {
            if run.0 >= 0x800 {
                avx2::linear_steps_from_utf8::<true>(src, dst, run, index)
            } else {
                avx2::linear_steps_from_utf8::<false>(src, dst, run, index)
            }
        };
    }
    // SSSE3's for a run of 24 characters or more of two-byte UTF-8 past Latin-1
    // (Cyrillic, Greek, Hebrew letters): in text of Latin letters, and of Arabic
    // (whose run of 22 leaves out letters), others come every few steps, looked up one
    // at a time after a step's masks, and the scalar loop took it faster. SSSE3,
    // rotating, `AMD EPYC` Zen 5, whatenc / encoding_rs, without these steps and with
    // them for every run: ru.txt windows-1251 2.11 → 5.19, he.txt windows-1255 2.08
    // → 5.12, el.html windows-1253 2.25 → 3.46; but tr.html windows-1254 2.52 → 1.52,
    // vi.txt windows-1258 2.06 → 1.32, cs.txt windows-1250 2.72 → 1.65, de.html
    // windows-1252 2.17 → 1.92, th.txt windows-874 (three-byte) 4.31 → 3.21, ar.html
    // windows-1256 4.04 → 3.39.
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() > 17 && dst.len() >= 16 && (0x100..0x800).contains(&run.0) && run.1 >= 24 && ssse3::available() {
        // SAFETY: the CPU has SSSE3, as `available` just said.
        return unsafe { ssse3::linear_steps_from_utf8::<false>(src, dst, run, index) };
    }
    // On aarch64, for a run of 16 characters or more: with a shorter one (KOI8-R's,
    // windows-1250's), most letters are others, looked up one at a time after a
    // step's masks, which took more instructions than the scalar loop (ru.txt KOI8-R
    // 3.55 → 2.89 times encoding_rs's bytes a thousand instructions).
    // Nor, as AVX2's, for a run within Latin-1 shorter than windows-1252's
    // (windows-1254, 1258): tr.html windows-1254 2.26 → 2.18, vi.txt windows-1258
    // 1.82 → 1.71 with them (and windows-1252's fr.txt 1.15 → 1.46).
    #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
    if src.len() > 17 && dst.len() >= 16 && run.1 >= 16 && !(run.0 < 0x100 && run.1 < 64) && allows(Tier::Neon) {
        return if run.0 >= 0x800 {
            aarch64::linear_steps_from_utf8::<true>(src, dst, run, index)
        } else {
            aarch64::linear_steps_from_utf8::<false>(src, dst, run, index)
        };
    }
    #[cfg(any(not(any(target_arch = "x86_64", target_arch = "aarch64")), whatenc_portable))]
    let _ = (src, dst, run, index);
    (0, 0)
}

/// Transcodes valid UTF-8 to UTF-16; the caller guarantees `dst.len() >= s.len()`.
/// Returns the units written. The AVX2 kernel, else the SSSE3 one, where the cap
/// and the CPU allow them.
#[inline]
pub(crate) fn utf8_to_utf16(s: &str, dst: &mut [u16]) -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if s.len() >= 64 && avx512_utf8::available() {
        // SAFETY: the CPU has the kernel's features, as `available` just said.
        return unsafe { avx512_utf8::utf8_to_utf16(s, dst) };
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if avx2::available() {
        // SAFETY: the CPU has AVX2, as `available` just said.
        return unsafe { avx2::utf8_to_utf16(s, dst) };
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if ssse3::available() {
        // SAFETY: the CPU has SSSE3, as `available` just said.
        return unsafe { ssse3::utf8_to_utf16(s, dst) };
    }
    #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
    if allows(Tier::Neon) {
        return aarch64::utf8_to_utf16(s, dst);
    }
    scalar::utf8_to_utf16(s, dst)
}

/// Decodes to UTF-16 the longest prefix of `src` that is whole, valid UTF-8 (up to
/// an error or a sequence cut by the end); returns the bytes read and the units
/// written. `dst.len() >= src.len()`.
///
/// One scalar pass ([`scalar::utf8_prefix_to_utf16`]) that checks each byte as it
/// decodes it, and copies ASCII runs with the tier's kernel, while the text is mostly
/// ASCII; where characters of other scripts come close together, pieces of
/// [`DENSE_PIECE`] bytes to the vector kernels (the check, then [`utf8_to_utf16`]),
/// then the scalar pass again. Before, the vector kernels took all of the input: a
/// check of the whole, then the conversion, each with a set-up of its own (a
/// zero-padded first block, a tail) and each with branches that text of mostly ASCII
/// mispredicts. Against encoding_rs, rotating, `Intel Xeon` Cascade Lake:
/// - whole documents: AVX2 tier de.html 1.08 → 1.34, en.html 1.16 → 1.31, pt.txt
///   1.04 → 1.28; SSE2 de.txt 0.95 → 1.30; portable en.html 0.70 → 1.19, pt.html
///   0.73 → 1.15, de.txt 0.74 → 1.00; pages of CJK text lost 5–10% (AVX2 ja.html
///   1.17 → 1.09);
/// - one call each on pieces of de.txt at random offsets, AVX2 tier: 32 bytes 0.57
///   → 1.16, 200 bytes 0.73 → 1.43.
///
/// With AVX-512 (BW, VBMI, VBMI2), inputs of 64 bytes or more go first through the
/// steps of `avx512_utf8`, which check and decode 64 bytes at a time whatever their
/// mix, and the pass below takes only what they leave: the last bytes, or from the
/// step with an error on. With AVX2 (and not those), the steps of `avx2_utf8` do the
/// same 32 bytes at a time; with SSSE3 and POPCNT only, those of `ssse3_utf8`, 16 at a
/// time, up to text dense with three-byte characters. Against the pass below, valid text → UTF-16, rotating,
/// AVX2 tier, `Intel Xeon` Emerald Rapids, µs: cs.txt 46.7 → 17.6, ru.txt 92.1 →
/// 41.0, ko.txt 16.9 → 7.5, ja.txt 13.4 → 12.1, en.txt 5.3 → 4.3, th.txt 69.5 →
/// 71.4.
///
/// Where [`utf8_to_utf16`] has no vector kernel (the SSE2 and portable tiers), the
/// scalar pass takes all of the input, runs of three-byte characters two at a step:
/// a hand-over there was a check, then a scalar conversion, a second pass. Portable
/// tier, time: ja.html −18%, zh_cn.html −20%, de.txt −12%, vi.txt −10%, th.txt −10%,
/// ja.txt +11% (rotating, `Intel Xeon` Cascade Lake). It counts nothing towards a
/// hand-over there, and checks a pair of three-byte characters from one 64-bit load,
/// with no branch between the two: short pieces against encoding_rs, portable tier,
/// ja.txt 0.95 → 1.13, th.txt 0.95 → 1.12, ko.txt 1.01 → 1.18; whole documents to
/// UTF-16, time: th.txt −15%, ja.txt −14% (rotating, `Intel Xeon` Cascade Lake).
///
/// With SSSE3 (so on AVX2 machines too), the scalar pass is compiled for it and
/// decodes runs of three-byte characters five at a step in one pass
/// (`ssse3::three_byte_run`; NEON has a twin, and the AVX2 steps one of ten
/// characters a step, `avx2_utf8::three_byte_run`); such a run counts towards a
/// hand-over once, and only when it is short (`LONG_RUN`), so that Chinese, Japanese
/// and Thai text stays in the one pass, faster than the vector kernels' two. On every tier,
/// runs of two-byte characters go four at a step in a 64-bit word
/// ([`scalar::two_byte_run`]). whatenc's MB/s, rotating, `Intel Xeon` Cascade Lake,
/// before → after (separate runs): AVX2 tier ja.txt 1178 → 1662, th.txt 1018 →
/// 1442, zh_cn.txt 972 → 1338, ja.html 1188 → 1511; SSSE3 tier ja.txt 962 → 1657,
/// th.txt 900 → 1421; SSE2 tier ru.txt 399 → 526, ar.txt 393 → 479. Short pieces
/// (16 to 256 bytes, a new decoder each) against encoding_rs: AVX2 ja.txt 0.95 →
/// 1.36, th.txt 0.94 → 1.31; SSE2 ru.txt 0.98 → 1.12. The leading ASCII bytes go
/// first, before the choice of kernels (which cost short pieces of English 5–20%
/// without that).
#[inline]
pub(crate) fn utf8_prefix_to_utf16(src: &[u8], dst: &mut [u16]) -> (usize, usize) {
    // The ASCII bytes at the start first: a short piece of English is often all
    // ASCII, and needs neither the choice of the runs' kernels nor their loop.
    let ascii = copy_ascii_to_utf16(src, dst);
    if ascii == src.len() {
        return (ascii, ascii);
    }
    let (read, written) = utf8_prefix_to_utf16_rest(&src[ascii..], &mut dst[ascii..]);
    (ascii + read, ascii + written)
}

/// [`utf8_prefix_to_utf16`] after the leading ASCII bytes, with the runs' kernels of
/// the tier.
#[inline]
fn utf8_prefix_to_utf16_rest(src: &[u8], dst: &mut [u16]) -> (usize, usize) {
    // An error at the start, the usual case in a legacy page taken for UTF-8 (the
    // first letter that is not ASCII), is found here, without the set-up of the
    // steps or of the pass.
    if scalar::utf8_starts_with_error(src) {
        return (0, 0);
    }
    // With AVX-512, steps of 64 bytes, checked and decoded whatever their mix of
    // lengths, then the rest (to an error, or the last bytes) as below. Against the
    // pass below with its hand-overs, valid text → UTF-16, rotating, `AMD EPYC` Zen 4:
    // vi.txt 95 → 19 µs, ru.txt 64 → 26, ja.txt 10.4 → 5.5, zh_cn.txt 11.7 → 5.3,
    // th.txt 51 → 34, fr.txt 59 → 32, ja.html 76 → 55, en.html 51 → 48.
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= 64 && avx512_utf8::available() {
        // SAFETY: the CPU has the kernel's features, as `available` just said.
        let (read, written) = unsafe { avx512_utf8::utf8_prefix_steps(src, dst) };
        if read > 0 {
            let (more, units) = utf8_prefix_to_utf16_below_avx512(&src[read..], &mut dst[written..]);
            return (read + more, written + units);
        }
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= 64 && !avx512_utf8::available() && avx2_utf8::available() {
        // SAFETY: the CPU has AVX2 and POPCNT, as `available` just said.
        let (read, written) = unsafe { avx2_utf8::utf8_prefix_steps(src, dst) };
        if read > 0 {
            let (more, units) = utf8_prefix_to_utf16_below_avx512(&src[read..], &mut dst[written..]);
            return (read + more, written + units);
        }
    }
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if src.len() >= 64 && !avx512_utf8::available() && !avx2_utf8::available() && ssse3_utf8::available() {
        // SAFETY: the CPU has SSSE3 and POPCNT, as `available` just said.
        let (read, written) = unsafe { ssse3_utf8::utf8_prefix_steps(src, dst) };
        if read > 0 {
            let (more, units) = utf8_prefix_to_utf16_below_avx512(&src[read..], &mut dst[written..]);
            return (read + more, written + units);
        }
    }
    utf8_prefix_to_utf16_below_avx512(src, dst)
}

/// [`utf8_prefix_to_utf16_rest`] without the AVX-512 steps.
#[inline]
fn utf8_prefix_to_utf16_below_avx512(src: &[u8], dst: &mut [u16]) -> (usize, usize) {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if let Some(pass) = ssse3::Utf8Prefix::new() {
        return utf8_prefix_to_utf16_with(src, dst, pass);
    }
    #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
    if allows(Tier::Neon) {
        return utf8_prefix_to_utf16_with(src, dst, aarch64::NeonRuns);
    }
    // No vector kernel to hand dense text to (the SSE2 and portable tiers): the scalar
    // pass takes all of it, and does not count towards a hand-over (which cost short
    // pieces of CJK text 6%).
    scalar::utf8_prefix_to_utf16(src, dst)
}

/// The first stage of [`utf8_prefix_to_utf16`] compiled for a tier: the scalar pass
/// ([`scalar::utf8_prefix_to_utf16`]) with the tier's kernels for the runs of two-byte
/// and three-byte characters ([`scalar::Runs`]).
#[cfg_attr(any(whatenc_portable, not(any(target_arch = "x86_64", target_arch = "aarch64"))), allow(dead_code))]
pub(crate) trait Utf8PrefixPass: Copy {
    /// [`scalar::utf8_prefix_to_utf16`], with this tier's runs.
    fn pass<const HAND_OVER: bool>(self, src: &[u8], dst: &mut [u16]) -> (usize, usize, bool);
}

/// [`utf8_prefix_to_utf16`] with `pass` for the scalar stages, on a tier whose
/// [`utf8_to_utf16`] has a vector kernel to hand dense text to.
#[cfg_attr(any(whatenc_portable, not(any(target_arch = "x86_64", target_arch = "aarch64"))), allow(dead_code))]
#[inline(always)]
fn utf8_prefix_to_utf16_with(src: &[u8], dst: &mut [u16], pass: impl Utf8PrefixPass) -> (usize, usize) {
    if src.len() < HAND_OVER_FROM {
        // Short input: the pass alone, which then counts nothing towards a hand-over.
        let (read, written, _) = pass.pass::<false>(src, dst);
        return (read, written);
    }
    let (mut read, mut written) = (0, 0);
    loop {
        let (r, w, dense) = pass.pass::<true>(&src[read..], &mut dst[written..]);
        read += r;
        written += w;
        if !dense {
            return (read, written);
        }
        // A piece of dense text to the vector kernels, then the scalar pass again
        // (which stops at once at an error where the piece stopped short).
        let valid = valid_utf8_prefix(&src[read..src.len().min(read + DENSE_PIECE)]);
        written += utf8_to_utf16(valid, &mut dst[written..]);
        read += valid.len();
    }
}

/// The shortest input for which [`utf8_prefix_to_utf16_with`]'s pass counts towards a
/// hand-over to the vector kernels. Shorter input could hand over only its last
/// bytes, if any (`scalar::DENSE_MIN` of them must be left), and the count cost
/// short pieces of text (16 to 256 bytes, a new decoder each) → UTF-16 1–5%:
/// whatenc MB/s, rotating, `AMD EPYC` Zen 5, in builds of one layout, SSSE3 tier
/// ko.txt 648 → 662, ko.html 1,270 → 1,314, ja.txt 1,381 → 1,417; AVX2 tier ru.txt
/// 1,063 → 1,118, ko.txt 1,015 → 1,028; AVX-512 tier ru.txt 1,001 → 1,048, zh_cn.txt
/// 1,542 → 1,577, de.txt alike.
const HAND_OVER_FROM: usize = 384;

/// The bytes of dense text that [`utf8_prefix_to_utf16`] hands to the vector kernels
/// at a time.
const DENSE_PIECE: usize = 4096;

/// The kernels of the UTF-16 → UTF-8 block loop, chosen once per bulk call from the
/// cap on the tier and the CPU (the loop runs them per eight or sixteen units, too
/// often to ask each time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    any(not(target_arch = "x86_64"), whatenc_portable),
    allow(dead_code, reason = "only the portable kernels are built")
)]
pub(crate) enum BlockKernels {
    Portable,
    Sse2,
    Ssse3,
    /// SSSE3 blocks, and sixteen units at once with AVX-512.
    Wide,
    /// aarch64's NEON blocks.
    #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
    Neon,
}

impl BlockKernels {
    #[inline(always)]
    pub(crate) fn choose() -> BlockKernels {
        #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
        {
            if avx512_utf16::available() {
                BlockKernels::Wide
            } else if ssse3::available() {
                BlockKernels::Ssse3
            } else if allows(Tier::Sse2) {
                BlockKernels::Sse2
            } else {
                BlockKernels::Portable
            }
        }
        #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
        return if allows(Tier::Neon) { BlockKernels::Neon } else { BlockKernels::Portable };
        #[cfg(any(not(any(target_arch = "x86_64", target_arch = "aarch64")), whatenc_portable))]
        BlockKernels::Portable
    }
}

/// Eight code units that are not surrogates as UTF-8 at the start of `out`; returns
/// the bytes written. `K` is a [`BlockKernels`] as a number (`as u8`).
#[inline(always)]
pub(crate) fn block_to_utf8<const K: u8>(block: [u16; 8], out: &mut [u8; 32]) -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    {
        if K == BlockKernels::Sse2 as u8 {
            return x86_64::block_to_utf8::<false>(block, out);
        }
        if K != BlockKernels::Portable as u8 {
            return x86_64::block_to_utf8::<true>(block, out);
        }
    }
    #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
    if K == BlockKernels::Neon as u8 {
        return aarch64::block_to_utf8(block, out);
    }
    scalar::block_to_utf8(block, out)
}

/// [`copy_utf16_ascii_to_bytes`] with the kernels `K` (a [`BlockKernels`] as a
/// number), for the block loop (a long run goes on with AVX2 where the cap and the
/// CPU allow it).
#[inline(always)]
pub(crate) fn copy_utf16_ascii_to_bytes_in<const K: u8>(src: &[u16], dst: &mut [u8]) -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if K != BlockKernels::Portable as u8 {
        return x86_64::copy_utf16_ascii_to_bytes(src, dst);
    }
    #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
    if K == BlockKernels::Neon as u8 {
        return aarch64::copy_utf16_ascii_to_bytes(src, dst);
    }
    scalar::copy_utf16_ascii_to_bytes(src, dst)
}

/// The ASCII units among UTF-16 bytes narrowed, with the kernels `K` (a [`BlockKernels`] as a
/// number), for the block loop (a long run goes on with AVX2 where the cap and the
/// CPU allow it).
#[inline(always)]
pub(crate) fn utf16_bytes_ascii_to_bytes_in<const K: u8>(src: &[u8], dst: &mut [u8], big_endian: bool) -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if K != BlockKernels::Portable as u8 {
        return x86_64::utf16_bytes_ascii_to_bytes(src, dst, big_endian);
    }
    scalar::utf16_bytes_ascii_to_bytes(src, dst, big_endian)
}

/// Sixteen code units, none a surrogate, as UTF-8 at the start of `out`; returns the
/// bytes written, and writes nothing after them. The AVX-512 kernel where the CPU
/// has it (the loop that calls this chose [`BlockKernels::Wide`]); elsewhere the
/// eight-unit kernel twice.
#[inline(always)]
pub(crate) fn wide_units_to_utf8(units: &[u16; 16], out: &mut [u8; 64]) -> usize {
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    if avx512_utf16::cpu_has_all() {
        // SAFETY: the CPU has the kernel's features, as `cpu_has_all` just said.
        return unsafe { avx512_utf16::units_to_utf8(units, out) };
    }
    units_to_utf8_by_eight(units, out)
}

/// Sixteen code units as UTF-8 with the portable eight-unit kernel, twice.
#[cold]
fn units_to_utf8_by_eight(units: &[u16; 16], out: &mut [u8; 64]) -> usize {
    let (first, second) = units.split_at(8);
    let mut block = [0u8; 32];
    let a = scalar::block_to_utf8(first.try_into().unwrap_or([0; 8]), &mut block);
    out[..a].copy_from_slice(&block[..a]);
    let b = scalar::block_to_utf8(second.try_into().unwrap_or([0; 8]), &mut block);
    out[a..a + b].copy_from_slice(&block[..b]);
    a + b
}

/// The two code units (a surrogate pair) of the valid four-byte UTF-8 sequence
/// `bytes` (its first four bytes), for the steps that decode a four-byte character
/// alone (`avx512_utf8`, `avx2_utf8`, `ssse3_utf8`).
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[inline]
fn surrogate_pair(bytes: &[u8]) -> [u16; 2] {
    let c = (u32::from(bytes[0] & 0x07) << 18)
        | (u32::from(bytes[1] & 0x3F) << 12)
        | (u32::from(bytes[2] & 0x3F) << 6)
        | u32::from(bytes[3] & 0x3F);
    let c = c.wrapping_sub(0x10000);
    [0xD800 | (c >> 10) as u16, 0xDC00 | (c & 0x3FF) as u16]
}

/// A xorshift64 generator for the kernels' tests: the same numbers for the same seed.
#[cfg(test)]
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    /// The valid prefix in pieces, and what `copy` got, against the standard
    /// library's, with characters of every length cut by the ends of the pieces at
    /// every place, and errors just before, at and after those ends.
    #[test]
    fn valid_prefix_in_pieces_matches_std() {
        for piece in [super::VALID_PIECE, super::LARGE_VALID_PIECE] {
            check_pieces(piece);
        }
    }

    /// [`super::push_valid_utf8_in_pieces`] and [`super::copy_valid_utf8_in_pieces`]
    /// (else the one pass) on inputs longer than [`super::LARGE_IN_PIECES_FROM`], with errors and cut
    /// characters around the ends of the pieces, with the CPU taken for Zen 5 (pieces
    /// with the AVX-512 kernels) and not (one pass), whatever this one is: the
    /// standard library's valid prefix, into room for all and for less.
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    #[test]
    fn large_inputs_in_pieces_or_not_match_std() {
        let piece = super::LARGE_VALID_PIECE;
        // Eleven bytes a time: three pieces and more.
        let text: Vec<u8> = "ab\u{E9}\u{4E2D}\u{1F600}".repeat(3 * piece / 11).into_bytes();
        assert!(text.len() > super::LARGE_IN_PIECES_FROM);
        for zen5 in [true, false] {
            super::x86_64::set_amd_family_1ah_on(zen5);
            for at in [piece - 2, piece, piece + 1, 2 * piece - 1] {
                for bad in [&[][..], &[0xFF][..], &[0xF0, 0x9F, 0x98]] {
                    let mut bytes = text.clone();
                    bytes.splice(at..at, bad.iter().copied());
                    for len in [bytes.len(), at + bad.len()] {
                        let bytes = &bytes[..len];
                        let expected = core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
                        for room in [len, piece + 3] {
                            let what = alloc::format!("{zen5} {at} {bad:02X?} {len} {room}");
                            let mut string = alloc::string::String::with_capacity(room);
                            let valid = super::push_valid_utf8_in_pieces(&mut string, bytes)
                                .unwrap_or_else(|| super::push_valid_utf8_prefix(&mut string, bytes));
                            let fits = expected.min(
                                core::str::from_utf8(&bytes[..room.min(len)])
                                    .map_or_else(|e| e.valid_up_to(), str::len),
                            );
                            assert_eq!((valid, string.len()), (fits, fits), "{what}");
                            assert!(string.as_bytes() == &bytes[..fits], "{what}");
                            let mut out = alloc::vec![0u8; room];
                            let valid = super::copy_valid_utf8_in_pieces(bytes, &mut out)
                                .unwrap_or_else(|| super::copy_valid_utf8_prefix(bytes, &mut out));
                            assert_eq!(valid, fits, "{what}");
                            assert!(out[..valid] == bytes[..valid], "{what}");
                        }
                    }
                }
            }
        }
    }

    /// The decoder's UTF-8 → `String` and → UTF-8 on long input with the CPU taken
    /// for Zen 5 and not: an error (or none) around the ends of the pieces, in both
    /// error modes, against the standard library's lossy decoding (and, fatal, its
    /// valid prefix); the first call's copy goes in pieces, the rest in one pass.
    #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
    #[test]
    fn decoders_take_long_input_in_pieces_or_not() {
        use crate::{DecoderOptions, ErrorMode};
        let piece = super::LARGE_VALID_PIECE;
        let text: Vec<u8> = "ab\u{E9}\u{4E2D}\u{1F600}".repeat(3 * piece / 11).into_bytes();
        for zen5 in [true, false] {
            super::x86_64::set_amd_family_1ah_on(zen5);
            for at in [0, piece - 1, piece + 2, 2 * piece] {
                for bad in [&[][..], &[0xC3][..], &[0xF0, 0x9F, 0x98, b'x', 0xFF]] {
                    let mut bytes = text.clone();
                    bytes.splice(at..at, bad.iter().copied());
                    let expected = alloc::string::String::from_utf8_lossy(&bytes);
                    let what = alloc::format!("{zen5} {at} {bad:02X?}");
                    let mut string = alloc::string::String::with_capacity(bytes.len() * 3);
                    let progress = crate::UTF_8.new_decoder().decode_to_string(&bytes, &mut string, true);
                    assert_eq!((progress.read, string.as_str()), (bytes.len(), &*expected), "{what}");
                    let mut out = alloc::vec![0u8; bytes.len() * 3];
                    let progress = crate::UTF_8.new_decoder().decode_to_utf8(&bytes, &mut out, true);
                    assert!(out[..progress.written] == *expected.as_bytes(), "{what}");
                    let options = DecoderOptions { mode: ErrorMode::Fatal, ..DecoderOptions::default() };
                    let mut string = alloc::string::String::with_capacity(bytes.len());
                    let progress = crate::UTF_8.new_decoder_with(options).decode_to_string(&bytes, &mut string, true);
                    let valid = core::str::from_utf8(&bytes).map_or_else(|e| e.valid_up_to(), str::len);
                    assert_eq!(string.len(), valid, "{what}");
                    assert!(progress.read >= valid, "{what}");
                }
            }
        }
    }

    /// [`super::valid_up_to_without_checks`], [`super::scalar::short_utf8_valid_up_to`]
    /// (all of each input, whatever its length, so that the tiers that take input to
    /// the kernel from 16 bytes test it too) and, on x86_64, simdutf8's kernel that it
    /// calls directly from [`super::SIMDUTF8_KERNEL_FROM`] bytes, against the standard
    /// library's valid prefix, on every length to 80 bytes (either side of
    /// [`super::scalar::SHORT_UTF8`]): all ASCII; ASCII, and text of characters of every
    /// length cut at every length, with a character of each length or an error at
    /// every place.
    #[test]
    fn short_valid_up_to_matches_std() {
        let check = |bytes: &[u8]| {
            let expected = core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
            assert_eq!(super::valid_up_to_without_checks(bytes), expected, "{bytes:02X?}");
            assert_eq!(super::scalar::short_utf8_valid_up_to(bytes), expected, "{bytes:02X?}");
            #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
            if let Some(valid) = super::simdutf8_kernel_valid_up_to(bytes) {
                assert_eq!(valid, expected, "{bytes:02X?}");
            }
        };
        let odd: [&[u8]; 9] = [
            b"\xC3\xA9",
            b"\xE4\xB8\xAD",
            b"\xF0\x9F\x98\x80",
            b"\x80",
            b"\xC3",
            b"\xE4\xB8",
            b"\xED\xA0\x80",
            b"\xF5",
            b"\xC0\xAF",
        ];
        let mixed = "\u{E9}\u{4E2D}a\u{1F600}\u{444}\u{5D0}".repeat(8).into_bytes();
        for len in 0..=80 {
            check(&alloc::vec![b'a'; len]);
            check(&mixed[..len]);
            for at in 0..=len {
                for bad in odd {
                    for text in [&alloc::vec![b'a'; len][..], &mixed[..len]] {
                        let mut bytes = text.to_vec();
                        bytes.splice(at..at, bad.iter().copied());
                        check(&bytes);
                    }
                }
            }
        }
    }

    fn check_pieces(piece: usize) {
        let text: Vec<u8> = "a\u{E9}\u{4E2D}\u{1F600}".repeat(3 * piece / 10).into_bytes();
        let check = |bytes: &[u8], what: &str| {
            let expected = core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len);
            let mut got = Vec::new();
            let valid =
                super::valid_utf8_prefix_in_pieces_of(bytes, piece, |part| got.extend_from_slice(part.as_bytes()));
            assert_eq!((valid, got.len()), (expected, expected), "{what}");
            assert!(got == bytes[..expected], "{what}");
        };
        for shift in 0..4 {
            // (A shift of 2 starts inside a character: an error at once.)
            let bytes = &text[shift..];
            check(bytes, "no error");
            let ends = [piece, 2 * piece];
            for end in ends {
                for at in end - 5..end + 5 {
                    for bad in [&[0xFF][..], &[0x80], &[0xE4, 0xB8, b'a'], &[0xF0, 0x9F, 0x98]] {
                        let mut broken = bytes.to_vec();
                        broken.splice(at..at, bad.iter().copied());
                        check(&broken, "an error");
                        // Cut there: the end of the input within a character.
                        check(&broken[..at + bad.len()], "cut");
                    }
                }
            }
        }
    }
}
