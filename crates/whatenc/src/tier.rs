//! Which kernels run: a cap on the tier, for measuring and testing every tier of
//! kernels on one machine.
//!
//! whatenc picks its bulk kernels at run time from what the CPU has: on x86_64
//! AVX-512, then AVX2, then SSSE3, then SSE2 (the x86_64 baseline); on aarch64 NEON
//! (its baseline); then the portable word-at-a-time kernels that every other target
//! uses. A cap makes it stop at a lower tier, so that one machine can measure, and
//! one test build can check, what machines without the higher tiers run. Every
//! tier gives the same results; only the speed differs.
//!
//! The cap is the environment variable `WHATENC_MAX_TIER` (`portable`, `neon`,
//! `sse2`, `ssse3`, `avx2` or `avx512`), read once, when a kernel is first chosen; an
//! unknown value is ignored. [`set_max_tier`] changes it at any time. The AVX2 tier
//! has its own UTF-8 validation (alone and fused with a copy), steps for UTF-8 →
//! UTF-16, UTF-16 → UTF-8 and the single-byte encodings (both ways), and ASCII-run
//! kernels, and runs the SSSE3 kernels for the rest. UTF-8 validation falls back to
//! simdutf8 below the SSSE3 tier, which picks its own kernel whatever the cap.
//!
//! ```
//! use whatenc::{Tier, set_max_tier, max_tier};
//! set_max_tier(Tier::Portable);
//! assert_eq!(max_tier(), Tier::Portable);
//! assert_eq!(whatenc::active_tier(), Tier::Portable);
//! let (text, _) = whatenc::WINDOWS_1252.decode(b"caf\xE9");
//! assert_eq!(text, "café");
//! set_max_tier(Tier::Avx512);
//! ```

use core::sync::atomic::{AtomicU8, Ordering};

/// A tier of kernels, lowest first.
///
/// ```
/// assert!(whatenc::Tier::Portable < whatenc::Tier::Avx512);
/// assert_eq!("ssse3".parse(), Ok(whatenc::Tier::Ssse3));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// The word-at-a-time kernels every target has (and simdutf8 for validation),
    /// written so that LLVM vectorizes their chunked loops.
    Portable = 0,
    /// aarch64's NEON kernels (NEON is its baseline): UTF-16 → UTF-8 blocks with a
    /// table look-up. On x86_64 a cap at `neon` runs the portable kernels.
    Neon = 1,
    /// SSE2 kernels (x86_64's baseline).
    Sse2 = 2,
    /// SSSE3 kernels: UTF-8 validation and validate-and-copy, UTF-8 → UTF-16, and
    /// UTF-16 → UTF-8 blocks with a shuffle.
    Ssse3 = 3,
    /// AVX2 kernels: UTF-8 validation and validate-and-copy, UTF-8 → UTF-16 and
    /// UTF-16 → UTF-8 steps, the single-byte encodings' steps (decoding and encoding
    /// from UTF-16), and the ASCII runs (copies, widening, narrowing, UTF-16 bytes to
    /// units); the SSSE3 ones for the rest.
    ///
    /// ```
    /// whatenc::set_max_tier(whatenc::Tier::Avx2);
    /// assert!(whatenc::active_tier() <= whatenc::Tier::Avx2);
    /// assert_eq!(whatenc::UTF_8.decode(b"caf\xC3\xA9").0, "café");
    /// whatenc::set_max_tier(whatenc::Tier::Avx512);
    /// ```
    Avx2 = 4,
    /// AVX-512 kernels: UTF-8 validation and validate-and-copy (BW, VBMI), UTF-8 →
    /// UTF-16 (BW, VBMI, VBMI2), UTF-16 → UTF-8 (BW, VL, VBMI2, BMI2).
    Avx512 = 5,
}

impl Tier {
    const ALL: [Tier; 6] = [Tier::Portable, Tier::Neon, Tier::Sse2, Tier::Ssse3, Tier::Avx2, Tier::Avx512];

    /// The tier's name, as `WHATENC_MAX_TIER` spells it.
    ///
    /// ```
    /// assert_eq!(whatenc::Tier::Avx2.name(), "avx2");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Tier::Portable => "portable",
            Tier::Neon => "neon",
            Tier::Sse2 => "sse2",
            Tier::Ssse3 => "ssse3",
            Tier::Avx2 => "avx2",
            Tier::Avx512 => "avx512",
        }
    }
}

impl core::str::FromStr for Tier {
    type Err = ();

    /// Parses a tier's name, in any case.
    fn from_str(name: &str) -> Result<Tier, ()> {
        Tier::ALL.into_iter().find(|tier| tier.name().eq_ignore_ascii_case(name.trim())).ok_or(())
    }
}

impl core::fmt::Display for Tier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// The cap, or `UNSET` until it is first read.
static MAX: AtomicU8 = AtomicU8::new(UNSET);
const UNSET: u8 = u8::MAX;

/// The cap on the tier of kernels (see the [module](self) docs).
///
/// ```
/// let cap = whatenc::max_tier();
/// assert!(cap >= whatenc::active_tier());
/// ```
#[inline(always)]
pub fn max_tier() -> Tier {
    match MAX.load(Ordering::Relaxed) {
        UNSET => max_tier_from_env(),
        n => Tier::ALL[n as usize % Tier::ALL.len()],
    }
}

/// Whether the cap lets kernels of `tier` run: [`max_tier`]` >= tier`, compared as the
/// stored byte. The kernels' choosers ask it on every call, several times; turning the
/// byte back into a [`Tier`] first (`Tier::ALL[n % 6]`) cost a multiply and a table
/// load each time: short pieces of UTF-8 → `String`, whatenc / encoding_rs, rotating,
/// `AMD EPYC` Zen 5, SSE2 tier en.txt 0.98 → 1.16, pt.html 0.98 → 1.20, ja.txt 1.10 →
/// 1.23 (builds of one layout); AVX-512 tier en.txt 1.37 → 1.59.
#[cfg(any(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)), test))]
#[inline(always)]
pub(crate) fn allows(tier: Tier) -> bool {
    match MAX.load(Ordering::Relaxed) {
        UNSET => max_tier_from_env() >= tier,
        n => n >= tier as u8,
    }
}

#[cold]
fn max_tier_from_env() -> Tier {
    #[cfg(feature = "std")]
    let tier = std::env::var("WHATENC_MAX_TIER").ok().and_then(|v| v.parse().ok()).unwrap_or(Tier::Avx512);
    #[cfg(not(feature = "std"))]
    let tier = Tier::Avx512;
    // Another thread may have set the cap meanwhile: its word stands.
    let _ = MAX.compare_exchange(UNSET, tier as u8, Ordering::Relaxed, Ordering::Relaxed);
    max_tier()
}

/// Caps the tier of kernels from now on, for every thread (see the [module](self)
/// docs).
///
/// ```
/// whatenc::set_max_tier(whatenc::Tier::Sse2);
/// assert!(whatenc::active_tier() <= whatenc::Tier::Sse2);
/// whatenc::set_max_tier(whatenc::Tier::Avx512);
/// ```
pub fn set_max_tier(tier: Tier) {
    MAX.store(tier as u8, Ordering::Relaxed);
}

/// The highest tier that runs: what this CPU has, within the cap.
///
/// ```
/// let tier = whatenc::active_tier();
/// assert!(tier <= whatenc::max_tier());
/// # #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
/// assert_eq!(tier, whatenc::Tier::Portable);
/// ```
pub fn active_tier() -> Tier {
    let has = crate::simd::cpu_tier();
    match has.min(max_tier()) {
        // Only aarch64 has NEON kernels: elsewhere a cap at `neon` is portable.
        Tier::Neon if has != Tier::Neon => Tier::Portable,
        tier => tier,
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX, Ordering, Tier, allows, max_tier, set_max_tier};

    /// [`allows`], which compares the stored byte, answers as [`max_tier`] does under
    /// every cap. (The cap is global: other tests of this binary may run meanwhile at
    /// another tier, which gives them the same results; the old cap is put back.)
    #[test]
    fn allows_agrees_with_max_tier() {
        let old = MAX.load(Ordering::Relaxed);
        for cap in Tier::ALL {
            set_max_tier(cap);
            for tier in Tier::ALL {
                assert_eq!(allows(tier), max_tier() >= tier, "cap {cap}, tier {tier}");
                assert_eq!(allows(tier), cap >= tier, "cap {cap}, tier {tier}");
            }
        }
        MAX.store(old, Ordering::Relaxed);
    }
}
