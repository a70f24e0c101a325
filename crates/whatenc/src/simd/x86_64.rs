//! SSE2 kernels (SSE2 is part of the x86_64 baseline, so no run-time detection is
//! needed). Each one is the twin of a function in [`super::scalar`] and is tested
//! against it.

use core::arch::x86_64::{
    __m128i, _MM_HINT_T0, _mm_add_epi16, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpeq_epi16,
    _mm_cmpgt_epi8, _mm_cvtsi32_si128, _mm_cvtsi128_si64, _mm_insert_epi16, _mm_loadu_si128, _mm_movemask_epi8,
    _mm_or_si128, _mm_packs_epi16, _mm_packus_epi16, _mm_prefetch, _mm_set1_epi8, _mm_set1_epi16, _mm_setr_epi8,
    _mm_setzero_si128, _mm_shuffle_epi8, _mm_slli_epi16, _mm_slli_si128, _mm_srli_epi16, _mm_storeu_si128,
    _mm_sub_epi8, _mm_sub_epi16, _mm_subs_epu8, _mm_subs_epu16, _mm_unpackhi_epi8, _mm_unpackhi_epi16,
    _mm_unpacklo_epi8, _mm_unpacklo_epi16,
};

use core::sync::atomic::{AtomicU8, Ordering};

use super::shuffles::{ONE_OR_TWO_BYTE_PACKS, UTF8_WORD_PACKS};

const LANES: usize = 16;

/// The units of a run after which the ASCII kernels below hand the rest over to
/// `super::long_run` (the AVX2 kernels where the cap and the CPU allow them), when
/// `HAND_OFF`: short runs never leave the inlined SSE2 loop.
pub(super) const LONG_RUN: usize = 64;

/// [`LONG_RUN`] for the kernels that narrow UTF-16 to bytes, whose AVX2 twins gain
/// only on longer runs.
pub(super) const LONG_NARROWING_RUN: usize = 256;

/// How far ahead of where they read the kernels that stream through long inputs
/// prefetch (see [`prefetch_ahead`]).
pub(super) const PREFETCH_DISTANCE: usize = 2048;

/// Asks the CPU to fetch into all cache levels `lines` cache lines (of 64 bytes) from
/// `distance` bytes past `pos` in `src` (clamped to its last byte): [`PREFETCH_DISTANCE`],
/// in the UTF-8 check fused with the copy, and [`check_prefetch_distance`] in the
/// check alone where [`check_prefetch_clamps`] (else it asks with
/// [`prefetch_ahead_unclamped`]); a hint, with no effect on what any code computes.
///
/// The hardware prefetchers stop at a 4 KiB page, so where the input comes from
/// memory (or L3) each page starts with a wait; a loop that reads a line per step in
/// a few cycles overtakes them. Against encoding_rs, rotating (inputs from L3 or
/// memory), `Intel Xeon` Cascade Lake, AVX2 tier: UTF-8 validation en.html 0.99 →
/// 1.15, cs.html 1.19 → 1.62, en.txt 0.96 → 1.07 (dense text in L3, which the check
/// keeps the CPU busy on, 1.10 → 1.05); [`copy_bytes`] (UTF-8 → UTF-8 encoding, which
/// is a copy) cs.txt 1.06 → 1.36, he.html 0.99 → 1.44.
#[inline(always)]
pub(super) fn prefetch_ahead(src: &[u8], pos: usize, distance: usize, lines: usize) {
    // One clamp a step: the lines after the first may lie past the end.
    prefetch_lines(src.as_ptr().wrapping_add((pos + distance).min(src.len().saturating_sub(1))), lines);
}

/// [`prefetch_ahead`] without the clamp, for the UTF-8 check without the copy (the
/// windows of `super::utf8_check` and `super::avx512`): each piece the check reads,
/// `pos .. pos + 64 * lines` (a chunk, a pair or a dense step), asks for its lines
/// `distance` bytes on, and its windows stop asking `distance` bytes before the end
/// (`utf8_check::prefetched_through`), so that every line asked for lies inside the
/// input. The clamp (a compare and a conditional move each time it asks, a chunk of
/// 64 bytes at a time in the maps and the sparse mode) had cost the check in cache
/// up to 25%; with a branch on the end in its place, the same. Validation of pages
/// in cache (repeated input), `AMD EPYC` Zen 5 (family 26 model 2, session 51),
/// whatenc / simdutf8, medians of five runs, clamped → not: AVX-512 ar.html 1.38 →
/// 1.63, de.html 1.12 → 1.25, en.html 1.47 → 1.60, fr.html 1.01 → 1.23, ko.html 1.67
/// → 1.79, pt.html 1.04 → 1.16, vi.html 1.02 → 1.34, ja.html 1.51 → 1.30, ru.html
/// 1.30 → 1.22; AVX2 de.html 0.85 → 1.04, fr.html 0.81 → 0.96, ja.html 0.83 → 0.91,
/// pt.html 0.79 → 1.00, ru.html 0.86 → 0.97, vi.html 0.84 → 0.99, ar.html, en.html
/// and ko.html within 6%. The tests assert that the piece lies inside `src` (the
/// slice the windows run over).
#[inline(always)]
pub(super) fn prefetch_ahead_unclamped(src: &[u8], pos: usize, distance: usize, lines: usize) {
    #[cfg(test)]
    assert!(pos + 64 * lines <= src.len(), "a prefetch for a piece outside the windows' input");
    prefetch_lines(src.as_ptr().wrapping_add(pos + distance), lines);
}

/// Asks for `lines` cache lines from `at`.
#[inline(always)]
fn prefetch_lines(at: *const u8, lines: usize) {
    for line in 0..lines {
        // SAFETY: a prefetch reads nothing that the program sees and never faults,
        // wherever the address points.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(at.wrapping_add(64 * line).cast()) };
    }
}

/// Whether [`prefetch_ahead`] pays in the UTF-8 check without the copy on this CPU:
/// not on AMD's from Zen 3 on (see [`vendor_amd`]), where the hardware prefetchers
/// keep up and the software prefetch only costs (but on Zen 3 and from Zen 5 on for
/// long input: see [`long_prefetch_pays`]); yes on Intel's and on AMD's family 17h ([`amd_family_17h`]). Asked once and cached. On `AMD EPYC` Zen 4 (rotating,
/// AVX2 tier), it took en.html (from memory) from 24.2 to 30.7 µs and en.txt (from
/// L3) from 0.97 to 1.05 µs, and no distance (2 or 8 KiB) or hint (T0, T1, NTA)
/// gained anywhere; on `Intel Xeon` Cascade Lake it gained 15–35% (see
/// [`prefetch_ahead`]); on `Intel Xeon` Emerald Rapids (AVX2 tier, rotating, µs, with
/// it against without) 5–16% on most pages: cs.txt 3.57 against 4.26, th.html 67.5
/// against 75.7, fr.html 56.8 against 62.4, en.html 27.2 against 29.8, ties on the
/// rest (ar.txt, zh_cn.txt, ko.html). On `AMD EPYC` Zen 1 (AVX2 tier, rotating, µs,
/// with it against without, each against simdutf8 in the same run), once the windows
/// took maps for the sparse mode ([`sparse_pays`]): th.html 0.89 against 0.98,
/// fr.html 0.78 against 0.85, cs.html 0.80 against 0.88, ko.html 0.86 against 0.94,
/// ru.txt 0.87 against 0.93, en.html 1.02 against 1.06, en.txt 0.95–0.96 against
/// 0.93–0.95 (with the sparse mode it had cost en.txt 9%). The AVX2 steps of UTF-8 →
/// UTF-16, UTF-16 → UTF-8 and the single-byte tables, which ask the same, gained
/// 0–14% there too (en.html UTF-8 → UTF-16 0.61 → 0.52 of encoding_rs's time).
#[inline]
pub(super) fn prefetch_pays() -> bool {
    cached(&PREFETCH_PAYS, || !vendor_amd() || amd_family_17h())
}

/// [`prefetch_pays`]' answer, as [`cached`] keeps it.
static PREFETCH_PAYS: AtomicU8 = AtomicU8::new(0);

/// Whether the UTF-8 check without the copy prefetches through `len` bytes: where
/// [`prefetch_pays`] at any length, and on AMD's family 17h ([`amd_family_17h`]) from 128 KiB,
/// below which the input's 64 versions stayed in its L3 and the prefetch cost time
/// (`AMD EPYC` Zen 1, AVX2 tier, rotating, each against simdutf8 in the same run,
/// with it against without: en.txt, 65 KB, 0.99–1.00 against 0.92–0.99, de.txt, 77
/// KB, 0.80 against 0.74; ru.txt, 117 KB, 0.87 against 0.93). In the unit tests, at
/// any length where it pays (their inputs are short, and `set_prefetch_pays` is to
/// run them with the prefetch on any CPU).
#[inline]
pub(super) fn check_prefetch_pays(len: usize) -> bool {
    if cfg!(test) {
        return prefetch_pays() || long_prefetch_pays();
    }
    check_prefetches_through(len, prefetch_pays(), long_prefetch_pays() || amd_family_17h())
}

/// [`check_prefetch_pays`]' rule outside the tests, given the CPU's answers: where the
/// prefetch `pays` at any length (Intel's), at any length; where it pays only for
/// `long` input (AMD's Zen 1, Zen 3 and Zen 5), from [`LARGE_FROM`].
#[inline]
fn check_prefetches_through(len: usize, pays: bool, long: bool) -> bool {
    (pays || long) && (len >= LARGE_FROM || !long)
}

/// Whether the UTF-8 check without the copy clamps each line its prefetch asks for
/// to the input's last byte ([`prefetch_ahead`]), rather than stopping `distance`
/// bytes before the end without a clamp ([`prefetch_ahead_unclamped`]): everywhere
/// but on AMD's Zen 5 and later ([`amd_family_1ah_on`]), where the clamp cost the
/// check in cache up to 25% (see [`prefetch_ahead_unclamped`]). The other CPUs keep
/// the clamp they were measured with (Intel's, Zen 1, Zen 3). On `AMD EPYC` Zen 3
/// (family 25 model 1, session 52), the same build with either answer (validation
/// of calls from 128 KiB, [`long_prefetch_pays`]; whatenc / simdutf8, medians of
/// seven runs, rotating, not clamped → clamped): AVX2 ar.html 1.33 → 1.71, de.html
/// 1.76 → 2.00, fr.html 1.16 → 1.34, pt.html 1.17 → 1.30; SSSE3 (medians of three)
/// ar.html 1.00 → 1.14, de.html 1.21 → 1.54, pt.html 1.00 → 1.15, en.html 1.03 /
/// 1.03. In cache (repeated input), where the windows fall behind simdutf8 either
/// way, the clamp cost 5–10%: AVX2 de.html 0.80 → 0.72, pt.html 0.74 → 0.69, vi.html
/// 0.76 → 0.71 (medians of five). Asked once and cached.
#[inline]
pub(super) fn check_prefetch_clamps() -> bool {
    cached(&CHECK_PREFETCH_CLAMPS, || !amd_family_1ah_on())
}

/// [`check_prefetch_clamps`]' answer, as [`cached`] keeps it.
static CHECK_PREFETCH_CLAMPS: AtomicU8 = AtomicU8::new(0);

/// Whether the AVX-512 check without the copy (`super::avx512`) prefetches through
/// `len` bytes: on AMD's Zen 5 and later ([`amd_family_1ah_on`]) from [`LARGE_FROM`]
/// bytes, [`check_prefetch_distance`] ahead; on the others, whose AVX-512 check was
/// not measured with it (Intel's; on Zen 4 the AVX2 tier's lost, see
/// [`prefetch_pays`]), no. In the
/// unit tests, where [`prefetch_pays`] says (see `set_prefetch_pays`). Validation,
/// AVX-512 tier, rotating, `AMD EPYC` Zen 5 (family 26 model 2, session 50),
/// whatenc / encoding_rs and whatenc's GB/s, medians of three runs, without → with:
/// vi.html 1.74 → 2.28 (19.7 → 26.8), ar.html 1.45 → 1.96 (18.6 → 26.4), tr.html
/// 2.33 → 2.73 (22.5 → 33.4), zh_tw.html 1.76 → 2.20, zh_cn.html 1.90 → 2.20, cs.html
/// 2.02 → 2.42, ru.html 1.68 → 2.03, th.html 1.54 → 1.85, pt.html 1.91 → 2.19; de.html,
/// en.html, fr.html, he.html, ja.html within 5%; el.html 2.64 → 2.48, ko.html 3.06 →
/// 2.72 (41.8 → 37.3, its 64 versions in L3).
#[inline]
pub(super) fn avx512_check_prefetch_pays(len: usize) -> bool {
    if cfg!(test) { prefetch_pays() } else { avx512_check_prefetches_through(len, amd_family_1ah_on()) }
}

/// [`avx512_check_prefetch_pays`]' rule outside the tests, given whether the CPU is
/// Zen 5 or later: from [`LARGE_FROM`] bytes.
#[inline]
fn avx512_check_prefetches_through(len: usize, zen5_on: bool) -> bool {
    zen5_on && len >= LARGE_FROM
}

/// Whether the UTF-8 check without the copy prefetches long input (from
/// [`LARGE_FROM`] bytes) where [`prefetch_pays`] says no: on AMD's Zen 3
/// ([`amd_zen3`]) and from Zen 5 on ([`amd_family_1ah_on`]), [`check_prefetch_distance`]
/// ahead. Asked once and cached. On Zen 5 (AVX2 tier, rotating, `AMD EPYC` family 26
/// model 2, session 50; GB/s, medians of five runs, without → with): ru.html 11.6 →
/// 22.0, zh_cn.html 15.3 → 23.1, zh_tw.html 16.4 → 23.3, ja.html 16.1 → 22.8,
/// vi.html 17.5 → 24.1, he.html 12.6 → 16.9, pt.html 17.9 → 24.0, tr.html 16.9 →
/// 22.5, en.html 21.6 → 27.6, el.html 21.7 → 25.3, ko.html 21.8 → 24.8, th.html 17.1
/// → 19.3; lost: ar.html 20.1 → 17.7, cs.html 21.6 → 19.5, de.html 25.7 → 24.3,
/// fr.html 24.3 → 22.9, fr.txt 23.9 → 22.5, th.txt 21.4 → 20.9. The SSSE3 tier,
/// against simdutf8's SSE4.2 kernel (medians of three): en.html 0.91 → 1.30, pt.html
/// 1.86 → 2.12, th.html 1.60 → 1.72, fr.html 2.03 → 2.22; 2 KiB ahead rather than 4,
/// en.html 0.99. Session 41 had measured the prefetch of 2 KiB, at any length, on
/// a Zen 5 whose memory was faster (pt.html validated at 32.3 GB/s without it, 17.9
/// here): the AVX2 tier lost 2–8% (pt.html 32.3 → 29.5 GB/s).
fn long_prefetch_pays() -> bool {
    cached(&LONG_PREFETCH_PAYS, || amd_zen3() || amd_family_1ah_on())
}

/// [`long_prefetch_pays`]' answer, as [`cached`] keeps it.
static LONG_PREFETCH_PAYS: AtomicU8 = AtomicU8::new(0);

/// The lengths from which the UTF-8 check without the copy prefetches on AMD's family
/// 17h and on Zen 3 ([`check_prefetch_pays`]), and from which [`copy_bytes`] takes its
/// own loop on Zen 3 ([`copy_loop`]): what comes from L3 or memory (a document whose
/// 64 versions do not fit L2, in the benchmark).
const LARGE_FROM: usize = 128 << 10;

/// Whether the CPU is AMD's Zen 3 (family 19h, models 00h–0Fh and 20h–5Fh; the
/// others of the family are Zen 4's), asked once and cached: there, unlike on Zen 4,
/// the hardware prefetchers did not keep up with the UTF-8 check without the copy
/// nor with the standard library's copy, and the software prefetch pays from
/// [`LARGE_FROM`] bytes, 4 KiB ahead in the check ([`check_prefetch_distance`]) and
/// 2 KiB in the copy ([`copy_loop`]). Rotating, AVX2 tier (the CPU's best),
/// `AMD EPYC` family 25 model 1 (Zen 3), whatenc / encoding_rs, medians of three
/// runs, before → after (with the sparse pairs of `utf8_check`'s windows):
/// validation ar.html 0.98 → 1.22, cs.html 0.92 → 1.19, he.html 0.91 → 1.22,
/// ko.html 0.91 → 1.59, ru.html 0.90 → 1.15, th.html 0.88 → 1.06, zh_cn.html 0.81
/// → 1.13, zh_tw.html 0.90 → 1.26, en.html 0.98 → 0.98; the SSSE3 tier, against
/// simdutf8's SSE4.2 kernel, ar.html 0.91 → 1.10, el.html 0.91 → 1.13, th.html 0.89
/// → 1.09, ru.html 0.92 → 1.18. UTF-8 → UTF-8 from `&str` (a copy), the loop against
/// the standard library's copy (`rep movsb`, which encoding_rs calls): ja.html 1.36,
/// tr.html 1.34, ko.html 1.52, el.html 1.35, th.txt 1.56, ru.txt 1.29, de.txt 1.30,
/// pt.html and en.html 1.02; below 64 KiB it lost (ar.txt 0.88, ko.txt 0.91, tr.txt
/// 0.93), hence the bound.
pub(super) fn amd_zen3() -> bool {
    cached(&AMD_ZEN3, || {
        #[allow(unused_unsafe, reason = "`__cpuid` is safe in newer compilers")]
        // SAFETY: every x86_64 CPU has CPUID and its leaf 1.
        let eax = unsafe { core::arch::x86_64::__cpuid(1) }.eax;
        // The model with its extended part (family 0Fh and above).
        let model = ((eax >> 4) & 0xF) | ((eax >> 16) & 0xF) << 4;
        vendor_amd() && family() == 0x19 && matches!(model, 0x00..=0x0F | 0x20..=0x5F)
    })
}

/// [`amd_zen3`]'s answer, as [`cached`] keeps it.
static AMD_ZEN3: AtomicU8 = AtomicU8::new(0);

/// How far ahead of where it reads the UTF-8 check without the copy prefetches, where
/// [`check_prefetch_pays`]: [`PREFETCH_DISTANCE`], and twice that on AMD's family 17h
/// ([`amd_family_17h`]), whose memory the 2 KiB did not hide. Validation, AVX2 tier,
/// rotating (pages from memory), `AMD EPYC` Zen 1, time as a share of simdutf8's in
/// the same run, 2 KiB against 4 KiB: en.html 1.04–1.05 against 0.98–0.99 (SSSE3 tier
/// 1.03–1.04 against 0.96), ko.html 0.95 against 0.88, he.html 0.95 against 0.91,
/// zh_cn.html 0.96 against 0.92–0.94, pt.html 0.87 against 0.83, ru.html 0.92 against
/// 0.89, fr.html, th.html, cs.html and th.txt within 2%; 6 and 8 KiB no better than
/// 4. The check fused with the copy (→ `String`) stays at [`PREFETCH_DISTANCE`]: the
/// same within 2% either way.
#[inline]
pub(super) fn check_prefetch_distance() -> usize {
    if amd_family_17h() || long_prefetch_pays() { 2 * PREFETCH_DISTANCE } else { PREFETCH_DISTANCE }
}

/// Whether the UTF-8 check's windows (`utf8_check::windows`) take their sparse mode,
/// a branch a chunk, on this CPU: not on AMD's Zen, Zen+ and Zen 2 ([`amd_family_17h`]),
/// where the branch that a chunk not ASCII mispredicts, with the loads after it
/// coming from L3, cost more than the maps of the chunks. Validation, AVX2 tier,
/// rotating, `AMD EPYC` family 23 model 1 (Zen 1), µs, sparse against maps: en.txt
/// 3.37–3.47 against 3.00–3.12 (simdutf8 2.95), SSSE3 tier 3.84–4.24 against
/// 3.43–3.55 (simdutf8's SSE4.2 kernel 3.80); de.txt, th.html, en.html, pt.html
/// within 3% either way. On `AMD EPYC` Zen 4, English text in cache took the
/// sparse mode faster (see `utf8_check::SPARSE_AT`).
#[inline]
pub(super) fn sparse_pays() -> bool {
    !amd_family_17h()
}

/// Whether the CPU is AMD's of family 17h (Zen, Zen+, Zen 2), or Hygon's 18h (whose
/// cores are Zen): the family of CPUID's leaf 1, with its extended part, asked once
/// and cached.
fn amd_family_17h() -> bool {
    cached(&AMD_FAMILY_17H, || vendor_amd() && matches!(family(), 0x17 | 0x18))
}

/// The CPU's family: that of CPUID's leaf 1, with its extended part.
fn family() -> u32 {
    #[allow(unused_unsafe, reason = "`__cpuid` is safe in newer compilers")]
    // SAFETY: every x86_64 CPU has CPUID and its leaf 1.
    let eax = unsafe { core::arch::x86_64::__cpuid(1) }.eax;
    let base = (eax >> 8) & 0xF;
    if base == 0xF { base + ((eax >> 20) & 0xFF) } else { base }
}

/// Whether the CPU is AMD's of family 1Ah (Zen 5) or later, asked once and cached:
/// where `super::valid_piece` takes large pieces, where `super::letter_steps_pay`
/// says yes as on Intel's, and where the AVX-512 check's dense mode starts later
/// (`super::avx512`'s `DENSE_AT_ZEN5`).
pub(super) fn amd_family_1ah_on() -> bool {
    cached(&AMD_FAMILY_1AH_ON, || vendor_amd() && family() >= 0x1A)
}

/// [`amd_family_1ah_on`]'s answer, as [`cached`] keeps it.
static AMD_FAMILY_1AH_ON: AtomicU8 = AtomicU8::new(0);

/// [`amd_family_17h`]'s answer, as [`cached`] keeps it.
static AMD_FAMILY_17H: AtomicU8 = AtomicU8::new(0);

/// Sets [`amd_family_1ah_on`]'s answer, so that the tests run the AVX-512 check with
/// each of its dense thresholds, whatever the CPU. (No answer changes a result.)
#[cfg(test)]
pub(super) fn set_amd_family_1ah_on(zen5: bool) {
    AMD_FAMILY_1AH_ON.store(if zen5 { 1 } else { 2 }, Ordering::Relaxed);
}

/// Sets [`sparse_pays`]' answer, so that the tests run the checks' windows both with
/// the sparse mode and without, whatever the CPU. (No answer changes a result.)
#[cfg(test)]
pub(super) fn set_sparse_pays(pays: bool) {
    AMD_FAMILY_17H.store(if pays { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether the CPU is AMD's (or Hygon's, whose cores are AMD's Zen): from the
/// vendor string of CPUID's leaf 0, asked once and cached. Three choices depend on
/// it, each measured on `AMD EPYC` Zen 4 and on `Intel Xeon` Cascade Lake, where they
/// went opposite ways, and on `Intel Xeon` Emerald Rapids, which went Cascade Lake's
/// way on the first and last: [`prefetch_pays`] (the UTF-8 check's prefetch, and
/// [`copy_bytes`]' own loop, which also asks for [`fast_short_rep_movsb`]) and
/// `super::letter_steps_pay`. Two ask for the family too ([`amd_family_17h`]): the
/// prefetch pays on `AMD EPYC` Zen 1, and the sparse mode does not ([`sparse_pays`]);
/// and the pieces of `super::valid_piece` are larger, the letter steps pay and the
/// AVX-512 check's dense mode starts later, from Zen 5 on ([`amd_family_1ah_on`]).
pub(super) fn vendor_amd() -> bool {
    cached(&VENDOR_AMD, || {
        // The vendor string is EBX, EDX, ECX of leaf 0.
        #[allow(unused_unsafe, reason = "`__cpuid` is safe in newer compilers")]
        // SAFETY: every x86_64 CPU has CPUID and its leaf 0.
        let leaf = unsafe { core::arch::x86_64::__cpuid(0) };
        let mut vendor = [0u8; 12];
        for (bytes, register) in vendor.chunks_exact_mut(4).zip([leaf.ebx, leaf.edx, leaf.ecx]) {
            bytes.copy_from_slice(&register.to_le_bytes());
        }
        matches!(&vendor, b"AuthenticAMD" | b"HygonGenuine")
    })
}

/// [`vendor_amd`]'s answer, as [`cached`] keeps it.
static VENDOR_AMD: AtomicU8 = AtomicU8::new(0);

/// Whether the CPU has fast short `rep movsb` (FSRM: CPUID leaf 7, EDX bit 4),
/// asked once and cached: Intel's cores from Ice Lake on, AMD's from Zen 3 on. The
/// standard library's copy runs `rep movsb` at the lengths of [`copy_loop`]'s loop; see
/// [`copy_bytes`] for what it decides.
fn fast_short_rep_movsb() -> bool {
    cached(&FSRM, || {
        #[allow(unused_unsafe, reason = "`__cpuid` is safe in newer compilers")]
        // SAFETY: every x86_64 CPU has CPUID and its leaf 0; leaf 7 is asked only
        // where leaf 0 says it exists.
        unsafe {
            core::arch::x86_64::__cpuid(0).eax >= 7 && core::arch::x86_64::__cpuid_count(7, 0).edx & (1 << 4) != 0
        }
    })
}

/// [`fast_short_rep_movsb`]'s answer, as [`cached`] keeps it.
static FSRM: AtomicU8 = AtomicU8::new(0);

/// The answer kept in `cell` (0 when not asked yet, 1 for yes, 2 for no), or `ask`'s,
/// then kept: a question about the CPU, asked once.
#[inline]
fn cached(cell: &AtomicU8, ask: impl FnOnce() -> bool) -> bool {
    match cell.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let answer = ask();
            cell.store(if answer { 1 } else { 2 }, Ordering::Relaxed);
            answer
        }
    }
}

/// Sets [`prefetch_pays`]' answer, and [`vendor_amd`]'s to the opposite (so that the
/// letter steps' choice follows), so that the tests run the checks both with the
/// prefetch and without, whatever the CPU. (No answer changes a result, so tests
/// running meanwhile are not disturbed.)
#[cfg(test)]
pub(super) fn set_prefetch_pays(pays: bool) {
    PREFETCH_PAYS.store(if pays { 1 } else { 2 }, Ordering::Relaxed);
    // Not Zen 3 nor Zen 5, whose own rule would prefetch long input either way.
    AMD_ZEN3.store(2, Ordering::Relaxed);
    LONG_PREFETCH_PAYS.store(2, Ordering::Relaxed);
    VENDOR_AMD.store(if pays { 2 } else { 1 }, Ordering::Relaxed);
}

/// Sets [`check_prefetch_clamps`]' answer, so that the tests run the check's
/// prefetch both ways, whatever the CPU (no answer changes a result).
#[cfg(test)]
pub(super) fn set_prefetch_clamps(clamps: bool) {
    CHECK_PREFETCH_CLAMPS.store(if clamps { 1 } else { 2 }, Ordering::Relaxed);
}

/// How [`copy_bytes`] copies in its own loop: the lengths it takes, and how far
/// ahead it prefetches.
#[derive(Clone, Copy, Debug)]
struct CopyLoop {
    /// The lengths copied in the loop, `from .. up_to` (`from` at least
    /// [`COPY_LOOP_FROM`]); the others go to the standard library's copy.
    from: usize,
    /// See `from`.
    up_to: usize,
    /// Bytes ahead of the step that it asks for.
    distance: usize,
}

/// The lengths below which the loop's prefetch would come too late to help.
const COPY_LOOP_FROM: usize = 8 << 10;

/// Where [`copy_bytes`] takes its own loop: where the prefetch pays
/// ([`prefetch_pays`]) and the CPU lacks fast short `rep movsb`
/// ([`fast_short_rep_movsb`]). On Intel's, up to 512 KiB, above which the standard
/// library's copy (`rep movsb`, which writes whole lines without reading them first)
/// measured faster where the output stays in L2 (en.html, 700 KB: 21.5 against 15.6
/// GB/s), prefetching [`PREFETCH_DISTANCE`] ahead. On AMD's family 17h
/// ([`amd_family_17h`]), whose cores lack `rep movsb`'s fast path (ERMS), at any
/// length from 8 KiB, and 1 KiB ahead: rotating, AVX2 tier, `AMD EPYC` Zen 1, µs,
/// each against the standard library's copy in the same run (which encoding_rs
/// calls): en.html (700 KB) 0.85 (0.99 with the limit), fr.txt 0.84, he.html 0.84,
/// zh_tw.html 0.84, pt.html 0.84, cs.html 0.83, ja.html 0.84; 2 KiB ahead, 0.86–0.94.
/// On AMD's Zen 3 ([`amd_zen3`]), from [`LARGE_FROM`] bytes, 2 KiB ahead.
fn copy_loop() -> Option<CopyLoop> {
    if amd_zen3() {
        Some(CopyLoop { from: LARGE_FROM, up_to: usize::MAX, distance: PREFETCH_DISTANCE })
    } else if !prefetch_pays() || fast_short_rep_movsb() {
        None
    } else if amd_family_17h() {
        Some(CopyLoop { from: COPY_LOOP_FROM, up_to: usize::MAX, distance: 1 << 10 })
    } else {
        Some(CopyLoop { from: COPY_LOOP_FROM, up_to: 512 << 10, distance: PREFETCH_DISTANCE })
    }
}

/// Twin of [`super::scalar::copy_bytes`]: copies `src` to `dst`, of the same length,
/// 64 bytes a step with a prefetch ahead where [`copy_loop`] says, else with
/// `copy_from_slice`.
///
/// Rotating, UTF-8 → UTF-8 from `&str` (a copy), µs per call, the loop → the
/// standard library's copy:
/// - `AMD EPYC` Zen 4, AVX-512 tier: the copy took less time on six pages of seven:
///   cs.html 17.2 → 14.4, zh_tw.html 16.5 → 12.9, el.html 9.6 → 8.4, tr.html 15.4 →
///   14.3, he.html 10.5 → 10.1, de.html 13.8 → 13.5; ja.html 8.9 → 9.2.
/// - `Intel Xeon` Cascade Lake (no FSRM), AVX2 tier: the loop gained 15–35% (see
///   [`prefetch_ahead`]).
/// - `Intel Xeon` Emerald Rapids (FSRM), AVX-512 tier: the copy took far less time
///   on the texts whose 64 versions stay in L2: ar.txt (23 KB) 0.56 → 0.39, ko.txt
///   (20 KB) 0.36 → 0.27, cs.txt (48 KB) 2.21 → 1.89; on the larger ones, from
///   L3, the loop gained 0–7% (fr.txt 5.8 against 6.2, en.html 28.9 against 30.6)
///   and lost up to 4% (pt.html 25.7 against 24.6). A loop of 32-byte AVX2 moves
///   was slower still on the small ones (ar.txt 0.71).
/// - `AMD EPYC` Zen 1 (no ERMS), AVX2 tier: the loop gained 10–17% from 100 KB
///   (see [`copy_loop`]); below, ties (cs.txt, 48 KB).
pub(crate) fn copy_bytes(src: &[u8], dst: &mut [u8]) {
    if (WIDE_COPY_FROM..WIDE_COPY_UP_TO).contains(&src.len()) && amd_family_1ah_on() && super::avx2::available() {
        assert_eq!(src.len(), dst.len(), "copy_bytes: lengths differ");
        // SAFETY: the CPU has AVX2, as `available` just said; the lengths are equal
        // and at least 128.
        unsafe { super::avx2::copy_bytes(src, dst) };
        return;
    }
    copy_bytes_with(src, dst, copy_loop());
}

/// The lengths that [`copy_bytes`] copies with `super::avx2::copy_bytes` on `AMD EPYC`
/// Zen 5 and later ([`amd_family_1ah_on`]), from this: there the standard library's
/// copy was slower from a few KiB to some 24 (`rep movsb`, fast only for longer
/// copies, whose lines it writes without reading them first). A copy of 64 versions
/// of each length in turn, GB/s, the standard library's against 32-byte moves (and
/// 16-byte ones): 3,000 bytes 100 against 136 (92), 6,000 111 against 139 (94),
/// 12,000 62 against 140 (89), 20,000 87 against 106 (87), 23,000 85 against 95
/// (84), 26,000 83 against 80, 30,000 81 against 69.
const WIDE_COPY_FROM: usize = 3 << 10;

/// See [`WIDE_COPY_FROM`].
const WIDE_COPY_UP_TO: usize = 24 << 10;

/// [`copy_bytes`], with `looped`'s loop for its lengths.
#[inline]
fn copy_bytes_with(src: &[u8], dst: &mut [u8], looped: Option<CopyLoop>) {
    assert_eq!(src.len(), dst.len(), "copy_bytes: lengths differ");
    let Some(CopyLoop { distance, .. }) = looped.filter(|l| (l.from..l.up_to).contains(&src.len())) else {
        dst.copy_from_slice(src);
        return;
    };
    // The last byte, where the prefetch stops (it may not point past the input).
    let last = src.len() - 1;
    let mut pos = 0;
    while let (Some(from), Some(to)) = (src[pos..].first_chunk::<64>(), dst[pos..].first_chunk_mut::<64>()) {
        // SAFETY: a prefetch reads nothing that the program sees and never faults;
        // it points inside `src`.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(src.as_ptr().wrapping_add((pos + distance).min(last)).cast()) };
        let (s, d) = (from.as_ptr(), to.as_mut_ptr());
        // SAFETY: `from` and `to` hold 64 bytes each; SSE2 is part of the x86_64
        // baseline.
        unsafe {
            let v = [
                _mm_loadu_si128(s.cast()),
                _mm_loadu_si128(s.add(16).cast()),
                _mm_loadu_si128(s.add(32).cast()),
                _mm_loadu_si128(s.add(48).cast()),
            ];
            for (i, v) in v.into_iter().enumerate() {
                _mm_storeu_si128(d.add(16 * i).cast(), v);
            }
        }
        pos += 64;
    }
    dst[pos..].copy_from_slice(&src[pos..]);
}

/// Copies the longest ASCII prefix of `src` that fits in `dst`; returns its length.
#[inline]
pub(crate) fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
    copy_ascii_to_ascii_loop::<true>(src, dst)
}

/// [`copy_ascii_to_ascii`], handing a long run over to `super::long_run` when `HAND_OFF`.
#[inline(always)]
pub(super) fn copy_ascii_to_ascii_loop<const HAND_OFF: bool>(src: &[u8], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        if HAND_OFF && pos == LONG_RUN {
            return pos + super::long_run::copy_ascii_to_ascii(&src[pos..limit], &mut dst[pos..limit]);
        }
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable bytes; SSE2 is always available on x86_64.
        let (vector, mask) = unsafe {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            (vector, _mm_movemask_epi8(vector))
        };
        // The whole block is stored; bytes after the ASCII prefix are scratch.
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable bytes. SSE2 is x86_64's baseline.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), vector) };
        if mask != 0 {
            return pos + mask.trailing_zeros() as usize;
        }
        pos += LANES;
    }
    pos + super::scalar::copy_ascii_to_ascii(&src[pos..limit], &mut dst[pos..limit])
}

/// Widens the longest ASCII prefix of `src` that fits in `dst`; returns its length.
#[inline]
pub(crate) fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
    copy_ascii_to_utf16_loop::<true>(src, dst)
}

/// [`copy_ascii_to_utf16`], handing a long run over to `super::long_run` when `HAND_OFF`.
#[inline(always)]
pub(super) fn copy_ascii_to_utf16_loop<const HAND_OFF: bool>(src: &[u8], dst: &mut [u16]) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        if HAND_OFF && pos == LONG_RUN {
            return pos + super::long_run::copy_ascii_to_utf16(&src[pos..limit], &mut dst[pos..limit]);
        }
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable bytes. SSE2 is x86_64's baseline.
        let (vector, mask) = unsafe {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            (vector, _mm_movemask_epi8(vector))
        };
        // The whole block is stored; units after the ASCII prefix are scratch.
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable u16s, i.e. two 16-byte vectors. SSE2 is x86_64's
        // baseline.
        unsafe {
            let zero = _mm_setzero_si128();
            let ptr = out.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(ptr, _mm_unpacklo_epi8(vector, zero));
            _mm_storeu_si128(ptr.add(1), _mm_unpackhi_epi8(vector, zero));
        }
        if mask != 0 {
            return pos + mask.trailing_zeros() as usize;
        }
        pos += LANES;
    }
    pos + super::scalar::copy_ascii_to_utf16(&src[pos..limit], &mut dst[pos..limit])
}

/// Narrows the longest run of ASCII code units of `src` that fits in `dst`.
#[inline]
pub(crate) fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize {
    copy_utf16_ascii_to_bytes_loop::<true>(src, dst)
}

/// [`copy_utf16_ascii_to_bytes`], handing a long run over to `super::long_run` when `HAND_OFF`.
#[inline(always)]
pub(super) fn copy_utf16_ascii_to_bytes_loop<const HAND_OFF: bool>(src: &[u16], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    while pos + LANES <= limit {
        if HAND_OFF && pos == LONG_NARROWING_RUN {
            return pos + super::long_run::copy_utf16_ascii_to_bytes(&src[pos..limit], &mut dst[pos..limit]);
        }
        let block = &src[pos..pos + LANES];
        // SAFETY: `block` holds 16 readable u16s, i.e. two 16-byte vectors. SSE2 is x86_64's
        // baseline.
        let (packed, ascii) = unsafe {
            let ptr = block.as_ptr().cast::<__m128i>();
            let low = _mm_loadu_si128(ptr);
            let high = _mm_loadu_si128(ptr.add(1));
            (_mm_packus_epi16(low, high), ascii_units_mask(low, high))
        };
        // The whole block is stored; bytes after the ASCII prefix are scratch.
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable bytes. SSE2 is x86_64's baseline.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), packed) };
        if ascii != 0xFFFF {
            return pos + ascii.trailing_ones() as usize;
        }
        pos += LANES;
    }
    pos + super::scalar::copy_utf16_ascii_to_bytes(&src[pos..limit], &mut dst[pos..limit])
}

/// Twin of [`super::scalar::decode_table_to_utf8`].
#[inline]
pub(crate) fn decode_table_to_utf8(src: &[u8], dst: &mut [u8], table: &[u32; 256]) -> (usize, usize) {
    use super::scalar::{DENSE_BLOCK, TABLE_BLOCK, UTF8_BLOCK_ROOM};
    let (mut read, mut written) = (0, 0);
    while let Some(block) = src[read..].first_chunk::<TABLE_BLOCK>() {
        let Some(out) = dst[written..].first_chunk_mut::<UTF8_BLOCK_ROOM>() else { break };
        // SAFETY: `block` holds 16 readable bytes. SSE2 is x86_64's baseline.
        let (vector, mask) = unsafe {
            let vector = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            (vector, _mm_movemask_epi8(vector) as u32)
        };
        let ptr = out.as_mut_ptr();
        if mask == 0 {
            // SAFETY: `out` holds 64 writable bytes. SSE2 is x86_64's baseline.
            unsafe { _mm_storeu_si128(ptr.cast::<__m128i>(), vector) };
            read += TABLE_BLOCK;
            written += TABLE_BLOCK;
            continue;
        }
        // At least `DENSE_BLOCK` (3) bits: still set after clearing the lowest two.
        let rest = mask & (mask - 1);
        const _: () = assert!(DENSE_BLOCK == 3);
        if rest & rest.wrapping_sub(1) != 0 {
            let mut at = 0;
            for (i, &byte) in block.iter().enumerate() {
                let entry = table[byte as usize];
                if entry == 0 {
                    return (read + i, written + at);
                }
                // SAFETY: each byte adds at most 3 to `at`, so the 4 bytes at `at` are
                // within the first 3 * 15 + 4 of the 64 of `out`. SSE2 is x86_64's baseline.
                unsafe { ptr.add(at).cast::<u32>().write_unaligned(entry) };
                at += (entry >> 24) as usize & 3;
            }
            read += TABLE_BLOCK;
            written += at;
            continue;
        }
        // The whole block is stored; bytes after its ASCII prefix are scratch.
        // SAFETY: `out` holds 64 writable bytes. SSE2 is x86_64's baseline.
        unsafe { _mm_storeu_si128(ptr.cast::<__m128i>(), vector) };
        let ascii = mask.trailing_zeros() as usize;
        let entry = table[block[ascii] as usize];
        if entry == 0 {
            return (read + ascii, written + ascii);
        }
        // SAFETY: `ascii` is at most 15, so the 4 bytes at it are within `out`. SSE2 is x86_64's
        // baseline.
        unsafe { ptr.add(ascii).cast::<u32>().write_unaligned(entry) };
        read += ascii + 1;
        // The length byte is masked as in the dense path: whatever the table, the
        // output never runs past what was written.
        written += ascii + ((entry >> 24) as usize & 3);
    }
    (read, written)
}

/// ASCII blocks in a row after which [`decode_table_to_utf16`] tests a block for
/// ASCII alone before anything else.
const MIXED_UNTIL: u32 = 8;

/// Twin of [`super::scalar::decode_table_to_utf16`]. A block of ASCII is stored after
/// one test, but only where such blocks come in runs (English, markup): once a block
/// has letters of the index's run, the blocks after it are each tested once for
/// ASCII or the run together, until [`MIXED_UNTIL`] ASCII ones in a row. In French
/// or German, the blocks with and without such letters alternate, and the branch on
/// ASCII first was mispredicted. Time, SSE2 tier, rotating, `AMD EPYC` Zen 4, → UTF-16:
/// fr.txt windows-1252 43.2 → 21.1 µs, de.txt 15.9 → 13.0, cs.txt windows-1250 24.1
/// → 20.8, vi.txt windows-1258 62.2 → 53.6, tr.txt windows-1254 28.1 → 24.7, en.html
/// 50.6 → 47.4; de.html 41.5 → 44.4. (Without the test for ASCII alone at all, fr.txt
/// took 15.6 but en.html 65.5 and vi.txt 72.2; with the choice made once a window of
/// sixteen blocks, from the window before, fr.txt 21.2 and vi.txt 59.6.)
#[inline]
pub(crate) fn decode_table_to_utf16(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    start: u8,
    len: u8,
    delta: u16,
) -> usize {
    if delta == 0 {
        decode_table_to_utf16_with::<true>(src, dst, table, start, len, delta)
    } else {
        decode_table_to_utf16_with::<false>(src, dst, table, start, len, delta)
    }
}

/// [`decode_table_to_utf16`]; for a run whose letters are their own units when
/// `SAME` (`delta` zero: windows-1252's), where a block of ASCII and the run's
/// letters is widened as one of ASCII alone: one test for both, with no test for
/// ASCII alone first. Time, SSE2 tier, rotating, `AMD EPYC` Zen 1, windows-1252 →
/// UTF-16, µs: fr.txt 37.8 → 22.9, de.txt 22.6 → 11.2, pt.txt 17.2 → 7.9, de.html
/// 72.8 → 54.2; en.txt 7.2 → 7.9, en.html 104 → 112. (With the test for ASCII alone
/// first kept, fr.txt 31.3, de.txt 19.4, en.txt 10.2: it costs more than it saves
/// there.) Not inlined: inlined, en.txt took 9.0–9.3.
#[inline(never)]
fn decode_table_to_utf16_with<const SAME: bool>(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    start: u8,
    len: u8,
    delta: u16,
) -> usize {
    use super::scalar::TABLE_BLOCK;
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    // ASCII blocks in a row; below `MIXED_UNTIL` (text whose letters of the run come
    // every few blocks, as French), a block is not tested for ASCII alone first.
    let mut ascii_blocks = MIXED_UNTIL;
    while pos + TABLE_BLOCK <= limit {
        let block: &[u8; TABLE_BLOCK] = src[pos..pos + TABLE_BLOCK].try_into().unwrap_or(&[0; TABLE_BLOCK]);
        let out = &mut dst[pos..pos + TABLE_BLOCK];
        let unit = |i: usize| i32::from(table[block[i] as usize]);
        // SAFETY: `block` holds 16 readable bytes and `out` 16 writable u16s (two 16-byte
        // vectors); the rest is register-only SSE2.
        let (low, high) = unsafe {
            let bytes = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let zero = _mm_setzero_si128();
            let (low, high) = (_mm_unpacklo_epi8(bytes, zero), _mm_unpackhi_epi8(bytes, zero));
            let non_ascii = _mm_movemask_epi8(bytes);
            if !SAME && ascii_blocks >= MIXED_UNTIL && non_ascii == 0 {
                // All ASCII, in one test, where such blocks come in runs.
                let ptr = out.as_mut_ptr().cast::<__m128i>();
                _mm_storeu_si128(ptr, low);
                _mm_storeu_si128(ptr.add(1), high);
                pos += TABLE_BLOCK;
                continue;
            }
            // `byte - start < len` (unsigned) is `(byte - start) -sat (len - 1) == 0`.
            let offset = _mm_sub_epi8(bytes, _mm_set1_epi8(start as i8));
            let last = _mm_set1_epi8(len.wrapping_sub(1) as i8);
            let in_run = _mm_cmpeq_epi8(_mm_subs_epu8(offset, last), zero);
            let ascii = _mm_cmpgt_epi8(bytes, _mm_set1_epi8(-1));
            if _mm_movemask_epi8(_mm_or_si128(in_run, ascii)) == 0xFFFF {
                // Without a branch: ASCII blocks count up, others start again.
                ascii_blocks = (ascii_blocks + 1) & u32::from(non_ascii == 0).wrapping_neg();
                if SAME {
                    let ptr = out.as_mut_ptr().cast::<__m128i>();
                    _mm_storeu_si128(ptr, low);
                    _mm_storeu_si128(ptr.add(1), high);
                    pos += TABLE_BLOCK;
                    continue;
                }
                let delta = _mm_set1_epi16(delta as i16);
                let add_low = _mm_and_si128(_mm_unpacklo_epi8(in_run, in_run), delta);
                let add_high = _mm_and_si128(_mm_unpackhi_epi8(in_run, in_run), delta);
                (_mm_add_epi16(low, add_low), _mm_add_epi16(high, add_high))
            } else {
                // Each unit from the table, then one check for a unit of 0.
                let mut low = _mm_insert_epi16::<0>(zero, unit(0));
                low = _mm_insert_epi16::<1>(low, unit(1));
                low = _mm_insert_epi16::<2>(low, unit(2));
                low = _mm_insert_epi16::<3>(low, unit(3));
                low = _mm_insert_epi16::<4>(low, unit(4));
                low = _mm_insert_epi16::<5>(low, unit(5));
                low = _mm_insert_epi16::<6>(low, unit(6));
                low = _mm_insert_epi16::<7>(low, unit(7));
                let mut high = _mm_insert_epi16::<0>(zero, unit(8));
                high = _mm_insert_epi16::<1>(high, unit(9));
                high = _mm_insert_epi16::<2>(high, unit(10));
                high = _mm_insert_epi16::<3>(high, unit(11));
                high = _mm_insert_epi16::<4>(high, unit(12));
                high = _mm_insert_epi16::<5>(high, unit(13));
                high = _mm_insert_epi16::<6>(high, unit(14));
                high = _mm_insert_epi16::<7>(high, unit(15));
                let zeros = _mm_or_si128(_mm_cmpeq_epi16(low, zero), _mm_cmpeq_epi16(high, zero));
                if _mm_movemask_epi8(zeros) != 0 {
                    break;
                }
                (low, high)
            }
        };
        // SAFETY: `out` holds 16 writable u16s, i.e. two 16-byte vectors. SSE2 is x86_64's
        // baseline.
        unsafe {
            let ptr = out.as_mut_ptr().cast::<__m128i>();
            _mm_storeu_si128(ptr, low);
            _mm_storeu_si128(ptr.add(1), high);
        }
        pos += TABLE_BLOCK;
    }
    pos
}

/// Twin of [`super::scalar::encode_utf16_linear`]. A block of 16 units that ends the
/// run is stored whole and its units before the first one out of the run are kept
/// (one store, and the count from a mask), not encoded again one at a time: in text
/// that mixes letters of the run with others (Czech or Turkish into windows-1252 in
/// the "html" error mode) the encoder calls this after each of those.
#[inline]
pub(crate) fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize {
    encode_utf16_linear_loop::<true>(src, dst, start, len, delta)
}

/// [`encode_utf16_linear`], handing a long run over to `super::long_run` when
/// `HAND_OFF`. Every block is mapped in full, with no branch on whether it is ASCII:
/// in French or German such blocks alternate with the others, and the branch was
/// mispredicted (windows-1252 from UTF-16, rotating, `AMD EPYC` Zen 4: fr.txt 53.9 →
/// 18.8 µs, de.txt 19.0 → 10.0); long runs (English) go on with AVX2 at twice the
/// units a step.
#[inline(always)]
pub(super) fn encode_utf16_linear_loop<const HAND_OFF: bool>(
    src: &[u16],
    dst: &mut [u8],
    start: u16,
    len: u16,
    delta: u16,
) -> usize {
    let limit = src.len().min(dst.len());
    // A long run without AVX2 (the SSE2 and SSSE3 tiers) starts with its ASCII, at
    // half the work a block (SSE2 tier: en.html 92.4 → 83.3 µs, en.txt 7.8 → 7.2);
    // short runs go straight to the map, as a test for ASCII first cost mixed text
    // more (cs.txt, tr.txt, vi.txt with references +4–11%) than it gave English.
    let mut pos = if HAND_OFF { 0 } else { copy_utf16_ascii_to_bytes_loop::<false>(&src[..limit], &mut dst[..limit]) };
    while pos + LANES <= limit {
        if HAND_OFF && pos == LONG_NARROWING_RUN {
            return pos
                + super::long_run::encode_utf16_linear(&src[pos..limit], &mut dst[pos..limit], start, len, delta);
        }
        let (packed, mapped) = map_linear_block(&src[pos..pos + LANES], start, len, delta);
        let out = &mut dst[pos..pos + LANES];
        // SAFETY: `out` holds 16 writable bytes. SSE2 is x86_64's baseline.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), packed) };
        if mapped != 0xFFFF {
            // The units before the first one out of the run; the bytes after them are
            // overwritten by whatever the encoder writes next.
            return pos + mapped.trailing_ones() as usize;
        }
        pos += LANES;
    }
    pos + super::scalar::encode_utf16_linear(&src[pos..limit], &mut dst[pos..limit], start, len, delta)
}

/// The bytes of 16 units that are ASCII (as themselves) or in `start..start + len`
/// (as `unit - delta`), others' garbage, and one bit per unit, set when it is either.
#[inline(always)]
fn map_linear_block(block: &[u16], start: u16, len: u16, delta: u16) -> (__m128i, u32) {
    assert!(block.len() >= LANES);
    // SAFETY: `block` holds 16 readable u16s, i.e. two 16-byte vectors; the rest is
    // register-only SSE2, x86_64's baseline.
    unsafe {
        let ptr = block.as_ptr().cast::<__m128i>();
        let zero = _mm_setzero_si128();
        let ascii_bits = _mm_set1_epi16(0xFF80u16 as i16);
        let start = _mm_set1_epi16(start as i16);
        // `unit - start < len` (unsigned) is `(unit - start) -sat (len - 1) == 0`.
        let last = _mm_set1_epi16(len.wrapping_sub(1) as i16);
        let delta = _mm_set1_epi16(delta as i16);
        let map = |units: __m128i| {
            let ascii = _mm_cmpeq_epi16(_mm_and_si128(units, ascii_bits), zero);
            let in_run = _mm_cmpeq_epi16(_mm_subs_epu16(_mm_sub_epi16(units, start), last), zero);
            let bytes = _mm_sub_epi16(units, _mm_and_si128(in_run, delta));
            (bytes, _mm_or_si128(ascii, in_run))
        };
        let (low, low_ok) = map(_mm_loadu_si128(ptr));
        let (high, high_ok) = map(_mm_loadu_si128(ptr.add(1)));
        (_mm_packus_epi16(low, high), _mm_movemask_epi8(_mm_packs_epi16(low_ok, high_ok)) as u32)
    }
}

/// Encodes the longest prefix of `src` that fits in `dst` and whose units are in a
/// single-byte index: ASCII and the index's run (`run`: start, length, delta) 16 at a
/// time as in [`encode_utf16_linear`], the block stored whole, then its other units
/// looked up in `index` one at a time and written over their bytes, up to the first
/// one it does not have (a surrogate never is). Returns the prefix's length; it may
/// write up to 15 bytes past it. After 16 blocks in a row with no other unit, the rest
/// of the run goes to [`encode_utf16_linear`]'s hand-off (AVX2 where allowed).
///
/// In text where the index's other characters come every few units (Vietnamese
/// into windows-1258, Czech into windows-1250) this spares a call of the run's
/// kernel after each of them, and a table block that ended at the next one.
#[inline(always)]
pub(crate) fn encode_utf16_in_index(
    src: &[u16],
    dst: &mut [u8],
    (start, len, delta): (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> usize {
    let limit = src.len().min(dst.len());
    let mut pos = 0;
    // Blocks in a row with no other unit.
    let mut plain = 0;
    while pos + LANES <= limit {
        if plain == LONG_NARROWING_RUN / LANES {
            plain = 0;
            pos += super::long_run::encode_utf16_linear(&src[pos..limit], &mut dst[pos..limit], start, len, delta);
            continue;
        }
        let (packed, mapped) = map_linear_block(&src[pos..pos + LANES], start, len, delta);
        // SAFETY: 16 writable bytes at `pos`. SSE2 is x86_64's baseline.
        unsafe { _mm_storeu_si128(dst[pos..pos + LANES].as_mut_ptr().cast::<__m128i>(), packed) };
        let mut others = !mapped & 0xFFFF;
        plain = if others == 0 { plain + 1 } else { 0 };
        while others != 0 {
            let at = others.trailing_zeros() as usize;
            let byte = index.byte_of_unit(src[pos + at]);
            if byte == 0 {
                return pos + at;
            }
            dst[pos + at] = byte;
            others &= others - 1;
        }
        pos += LANES;
    }
    while pos < limit {
        let unit = src[pos];
        let byte = match unit {
            0..0x80 => unit as u8,
            _ if unit.wrapping_sub(start) < len => unit.wrapping_sub(delta) as u8,
            _ => index.byte_of_unit(unit),
        };
        if byte == 0 && unit != 0 {
            break;
        }
        dst[pos] = byte;
        pos += 1;
    }
    pos
}

/// One bit per code unit of the 16 in `low` then `high`, set when it is ASCII.
///
/// # Safety
/// SSE2 is always there on x86_64; the function is `unsafe` only for its intrinsics.
#[inline(always)]
unsafe fn ascii_units_mask(low: __m128i, high: __m128i) -> u32 {
    // SAFETY: register-only SSE2 operations.
    unsafe {
        let zero = _mm_setzero_si128();
        let high_bits = _mm_set1_epi16(0xFF80u16 as i16);
        let low_ascii = _mm_cmpeq_epi16(_mm_and_si128(low, high_bits), zero);
        let high_ascii = _mm_cmpeq_epi16(_mm_and_si128(high, high_bits), zero);
        // Narrow each 16-bit lane's all-ones or zero to one byte, then one bit.
        _mm_movemask_epi8(_mm_packs_epi16(low_ascii, high_ascii)) as u32
    }
}

/// Eight UTF-16 code units from 16 bytes, in native order.
///
/// # Safety
/// `bytes` must hold 16 readable bytes (SSE2 is always there on x86_64).
#[inline(always)]
unsafe fn load_units(bytes: &[u8], big_endian: bool) -> __m128i {
    // SAFETY: the caller guarantees 16 readable bytes. SSE2 is x86_64's baseline.
    unsafe {
        let vector = _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>());
        if big_endian { _mm_or_si128(_mm_slli_epi16(vector, 8), _mm_srli_epi16(vector, 8)) } else { vector }
    }
}

/// Twin of [`super::scalar::utf16_bytes_to_units`].
#[inline]
pub(crate) fn utf16_bytes_to_units(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize {
    utf16_bytes_to_units_loop::<true>(src, dst, big_endian)
}

/// [`utf16_bytes_to_units`], handing a long run over to `super::long_run` when `HAND_OFF`.
#[inline(always)]
pub(super) fn utf16_bytes_to_units_loop<const HAND_OFF: bool>(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize {
    let limit = (src.len() / 2).min(dst.len());
    let mut n = 0;
    if !HAND_OFF {
        // The long run (the SSE2 and SSSE3 tiers' UTF-16 → UTF-16): two blocks a step,
        // so that the loop's own instructions (the bound tests, the branch back) come
        // once for 32 bytes. With one block a step the loop ran at half its speed in
        // some builds (16 against 32 GB/s, rotating, ru.txt UTF-16LE → UTF-16, SSE2
        // tier, `AMD EPYC` Zen 5: its first byte at the start of a 64-byte line and its
        // last three bytes in the next), a layout that no line of the source decides;
        // two blocks a step ran at 31–32 GB/s in both (and ja.txt UTF-16BE 27.8 →
        // 29.9).
        while let (Some(bytes), Some(out)) = (
            src.get(2 * n..2 * limit).and_then(|rest| rest.first_chunk::<32>()),
            dst.get_mut(n..limit).and_then(|rest| rest.first_chunk_mut::<16>()),
        ) {
            // SAFETY: `bytes` holds 32 readable bytes and `out` 16 writable units (32
            // bytes). SSE2 is x86_64's baseline.
            let clean = unsafe {
                let (a, b) = (load_units(&bytes[..16], big_endian), load_units(&bytes[16..], big_endian));
                let top = _mm_set1_epi16(0xF800u16 as i16);
                let surrogate = _mm_set1_epi16(0xD800u16 as i16);
                let either = _mm_or_si128(
                    _mm_cmpeq_epi16(_mm_and_si128(a, top), surrogate),
                    _mm_cmpeq_epi16(_mm_and_si128(b, top), surrogate),
                );
                let clean = _mm_movemask_epi8(either) == 0;
                if clean {
                    _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), a);
                    _mm_storeu_si128(out.as_mut_ptr().add(8).cast::<__m128i>(), b);
                }
                clean
            };
            if !clean {
                // The blocks of one below find where.
                break;
            }
            n += 16;
        }
    }
    while n + 8 <= limit {
        if HAND_OFF && n == LONG_RUN {
            return n + super::long_run::utf16_bytes_to_units(&src[n * 2..limit * 2], &mut dst[n..limit], big_endian);
        }
        let block = &src[n * 2..n * 2 + 16];
        // SAFETY: `block` holds 16 readable bytes. SSE2 is x86_64's baseline.
        let (units, any_surrogate) = unsafe {
            let units = load_units(block, big_endian);
            // A surrogate is 0xD800..=0xDFFF: its top five bits are 11011.
            let top = _mm_and_si128(units, _mm_set1_epi16(0xF800u16 as i16));
            let surrogate = _mm_cmpeq_epi16(top, _mm_set1_epi16(0xD800u16 as i16));
            (units, _mm_movemask_epi8(surrogate) != 0)
        };
        if any_surrogate {
            break;
        }
        let out = &mut dst[n..n + 8];
        // SAFETY: `out` holds 8 writable u16s (16 bytes). SSE2 is x86_64's baseline.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), units) };
        n += 8;
    }
    n + super::scalar::utf16_bytes_to_units(&src[n * 2..limit * 2], &mut dst[n..limit], big_endian)
}

/// Twin of [`super::scalar::utf16_bytes_replacing_lone_surrogates`]: eight units a
/// step, the units before and after each read as the same bytes shifted by a unit.
#[inline]
pub(crate) fn utf16_bytes_replacing_lone_surrogates(src: &[u8], dst: &mut [u16], big_endian: bool) -> (usize, bool) {
    let span = dst.len().min(super::scalar::REPLACING_SPAN);
    let dst = &mut dst[..span];
    let mut n = 0;
    // Lane 0 all ones when the unit before the block leads a pair.
    let mut lead_before = 0i32;
    // SAFETY: SSE2 is x86_64's baseline.
    let mut lone_seen = unsafe { _mm_setzero_si128() };
    while let (Some(bytes), Some(out)) = (
        src.get(2 * n..).and_then(|rest| rest.first_chunk::<18>()),
        dst.get_mut(n..).and_then(|rest| rest.first_chunk_mut::<8>()),
    ) {
        // SAFETY: `bytes` holds 18 readable bytes (the block's and the next unit's),
        // `out` 8 writable units (16 bytes). SSE2 is x86_64's baseline.
        let pair_out = unsafe {
            let units = load_units(&bytes[..16], big_endian);
            let next = load_units(&bytes[2..], big_endian);
            let high = _mm_set1_epi16(0xFC00u16 as i16);
            let lead = _mm_cmpeq_epi16(_mm_and_si128(units, high), _mm_set1_epi16(0xD800u16 as i16));
            let trail = _mm_cmpeq_epi16(_mm_and_si128(units, high), _mm_set1_epi16(0xDC00u16 as i16));
            let next_trail = _mm_cmpeq_epi16(_mm_and_si128(next, high), _mm_set1_epi16(0xDC00u16 as i16));
            let lead_before_each = _mm_or_si128(_mm_slli_si128::<2>(lead), _mm_cvtsi32_si128(lead_before));
            let lone = _mm_or_si128(_mm_andnot_si128(next_trail, lead), _mm_andnot_si128(lead_before_each, trail));
            let written =
                _mm_or_si128(_mm_andnot_si128(lone, units), _mm_and_si128(lone, _mm_set1_epi16(0xFFFDu16 as i16)));
            _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), written);
            lone_seen = _mm_or_si128(lone_seen, lone);
            _mm_movemask_epi8(_mm_and_si128(lead, next_trail)) >> 15 != 0
        };
        lead_before = if pair_out { 0xFFFF } else { 0 };
        n += 8;
    }
    if lead_before != 0 {
        // The last block's last unit leads a pair whose trailing unit is past it.
        n -= 1;
    }
    // SAFETY: SSE2 is x86_64's baseline.
    (n, unsafe { _mm_movemask_epi8(lone_seen) } != 0)
}

/// Twin of [`super::scalar::utf16_bytes_ascii_to_bytes`].
#[inline]
pub(crate) fn utf16_bytes_ascii_to_bytes(src: &[u8], dst: &mut [u8], big_endian: bool) -> usize {
    utf16_bytes_ascii_to_bytes_loop::<true>(src, dst, big_endian)
}

/// [`utf16_bytes_ascii_to_bytes`], handing a long run over to `super::long_run` when `HAND_OFF`.
#[inline(always)]
pub(super) fn utf16_bytes_ascii_to_bytes_loop<const HAND_OFF: bool>(
    src: &[u8],
    dst: &mut [u8],
    big_endian: bool,
) -> usize {
    let limit = (src.len() / 2).min(dst.len());
    let mut n = 0;
    while n + 16 <= limit {
        if HAND_OFF && n == LONG_NARROWING_RUN {
            return n + super::long_run::utf16_bytes_ascii_to_bytes(
                &src[n * 2..limit * 2],
                &mut dst[n..limit],
                big_endian,
            );
        }
        let block = &src[n * 2..n * 2 + 32];
        // SAFETY: `block` holds 32 readable bytes. SSE2 is x86_64's baseline.
        let (packed, ascii) = unsafe {
            let low = load_units(&block[..16], big_endian);
            let high = load_units(&block[16..], big_endian);
            (_mm_packus_epi16(low, high), ascii_units_mask(low, high))
        };
        // The whole block is stored; bytes after the ASCII prefix are scratch.
        let out = &mut dst[n..n + 16];
        // SAFETY: `out` holds 16 writable bytes. SSE2 is x86_64's baseline.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), packed) };
        if ascii != 0xFFFF {
            return n + ascii.trailing_ones() as usize;
        }
        n += 16;
    }
    n + super::scalar::utf16_bytes_ascii_to_bytes(&src[n * 2..limit * 2], &mut dst[n..limit], big_endian)
}

/// Stores eight three-byte words (two vectors of four) as 24 bytes at the start of
/// `out`, with SSSE3's byte shuffle.
///
/// # Safety
/// The CPU must have SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn store_three_byte_words(words: [__m128i; 2], out: &mut [u8; 32]) {
    // The three low bytes of each 32-bit lane, packed; the last four bytes zero.
    let pack = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    let ptr = out.as_mut_ptr();
    // SAFETY: stores at 0 and 12 of 16 bytes each end by byte 28 of the 32 in `out`. The CPU has
    // SSSE3: this function enables it, and its callers checked.
    unsafe {
        _mm_storeu_si128(ptr.cast::<__m128i>(), _mm_shuffle_epi8(words[0], pack));
        _mm_storeu_si128(ptr.add(12).cast::<__m128i>(), _mm_shuffle_epi8(words[1], pack));
    }
}

/// Stores eight sequences of one to three bytes (two vectors of four words, as
/// [`block_to_utf8`] makes them) packed at the start of `out`, with SSSE3's byte
/// shuffle; `below_0x80` and `below_0x800` have bit k set when unit k is below the
/// bound. Returns the bytes written.
///
/// # Safety
/// The CPU must have SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn store_utf8_words(words: [__m128i; 2], below_0x80: u32, below_0x800: u32, out: &mut [u8; 32]) -> usize {
    let first = (below_0x80 & 0xF | (below_0x800 & 0xF) << 4) as usize;
    let second = (below_0x80 >> 4 & 0xF | (below_0x800 >> 4 & 0xF) << 4) as usize;
    let at = UTF8_WORD_PACKS.lengths[first] as usize;
    // SAFETY: the patterns are 16 bytes; the first store writes bytes 0 to 15 of
    // `out`, the second starts at most at 12 and ends by byte 28 of the 32. The CPU has SSSE3: this
    // function enables it, and its callers checked.
    unsafe {
        let (first_pack, second_pack) = (
            _mm_loadu_si128(UTF8_WORD_PACKS.shuffles[first].as_ptr().cast::<__m128i>()),
            _mm_loadu_si128(UTF8_WORD_PACKS.shuffles[second].as_ptr().cast::<__m128i>()),
        );
        _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), _mm_shuffle_epi8(words[0], first_pack));
        _mm_storeu_si128(out.as_mut_ptr().add(at).cast::<__m128i>(), _mm_shuffle_epi8(words[1], second_pack));
    }
    at + UTF8_WORD_PACKS.lengths[second] as usize
}

/// Stores eight one- or two-byte sequences, each in a 16-bit lane as
/// [`ONE_OR_TWO_BYTE_PACKS`] takes them, packed at the start of `out`; `ascii` has
/// bit k set when unit k is ASCII. Returns the bytes written.
///
/// # Safety
/// The CPU must have SSSE3.
#[target_feature(enable = "ssse3")]
unsafe fn store_one_or_two_byte_pairs(pairs: __m128i, ascii: u8, out: &mut [u8; 32]) -> usize {
    let pack = &ONE_OR_TWO_BYTE_PACKS[ascii as usize];
    // SAFETY: `pack` is 16 bytes; the store writes 16 of the 32 bytes of `out`. The CPU has SSSE3:
    // this function enables it, and its callers checked.
    unsafe {
        let pack = _mm_loadu_si128(pack.as_ptr().cast::<__m128i>());
        _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), _mm_shuffle_epi8(pairs, pack));
    }
    16 - ascii.count_ones() as usize
}

/// Twin of [`super::scalar::block_to_utf8`]: eight code units that are not
/// surrogates, as UTF-8 at the start of `out`; returns the bytes written. The SSSE3
/// shuffles run only when `SSSE3` (the caller's choice of tier, made once per bulk
/// call) and the CPU has SSSE3.
#[inline(always)]
pub(crate) fn block_to_utf8<const SSSE3: bool>(block: [u16; 8], out: &mut [u8; 32]) -> usize {
    let ssse3 = SSSE3 && super::ssse3::cpu_has();
    // SAFETY: SSE2 is always there on x86_64; `block` holds 16 readable bytes and
    // `out` 32 writable ones. Each unit's store writes 4 bytes at the running total
    // of the lengths before it, at most 7 × 3 = 21, so every store ends by byte 25.
    unsafe {
        let units = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
        let zero = _mm_setzero_si128();
        let below_0x80 = _mm_cmpeq_epi16(_mm_and_si128(units, _mm_set1_epi16(0xFF80u16 as i16)), zero);
        let below_0x800 = _mm_cmpeq_epi16(_mm_and_si128(units, _mm_set1_epi16(0xF800u16 as i16)), zero);
        let lead = _mm_or_si128(_mm_srli_epi16(units, 6), _mm_set1_epi16(0xC0));
        let trail = _mm_or_si128(_mm_and_si128(units, _mm_set1_epi16(0x3F)), _mm_set1_epi16(0x80));
        // Lead and trail byte in each 16-bit lane.
        let pairs = _mm_or_si128(lead, _mm_slli_epi16(trail, 8));
        if _mm_movemask_epi8(below_0x800) == 0xFFFF {
            if _mm_movemask_epi8(below_0x80) == 0 {
                // Eight two-byte sequences.
                _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), pairs);
                return 16;
            }
            if ssse3 {
                // One- and two-byte sequences (Latin, Greek, Cyrillic, Hebrew, Arabic
                // text with its spaces and punctuation): ASCII lanes take the unit, then
                // one shuffle drops their high byte.
                let pairs = _mm_or_si128(_mm_and_si128(below_0x80, units), _mm_andnot_si128(below_0x80, pairs));
                let ascii = _mm_movemask_epi8(_mm_packs_epi16(below_0x80, zero)) as u8;
                return store_one_or_two_byte_pairs(pairs, ascii, out);
            }
        }
        // One to three bytes per unit, as a little-endian word in a 32-bit lane: its
        // first two bytes worked out in its 16-bit lane, its third (`trail`, of a
        // three-byte unit) interleaved after them. Against widening each unit to its
        // 32-bit lane first (rotating, `AMD EPYC` Zen 1, → `String`): SSSE3 tier,
        // UTF-16LE ja.txt 21.8 → 18.3 µs, vi.txt 155 → 123, UTF-16BE ko.txt 15.8 →
        // 12.1, windows-1252 fr.html taken for UTF-16LE 699 → 419 (but UTF-16LE
        // ru.txt 74 → 80, whose few three-byte units come here); SSE2 tier, ja.txt
        // 29.6 → 22.4.
        let middle = _mm_or_si128(_mm_and_si128(_mm_srli_epi16(units, 6), _mm_set1_epi16(0x3F)), _mm_set1_epi16(0x80));
        let three =
            _mm_or_si128(_mm_or_si128(_mm_srli_epi16(units, 12), _mm_set1_epi16(0xE0)), _mm_slli_epi16(middle, 8));
        if ssse3 && _mm_movemask_epi8(below_0x800) == 0 {
            // Eight three-byte sequences (the common case in CJK text): compacted.
            store_three_byte_words([_mm_unpacklo_epi16(three, trail), _mm_unpackhi_epi16(three, trail)], out);
            return 24;
        }
        let one_or_two = _mm_or_si128(_mm_and_si128(below_0x80, units), _mm_andnot_si128(below_0x80, pairs));
        let firsts = _mm_or_si128(_mm_and_si128(below_0x800, one_or_two), _mm_andnot_si128(below_0x800, three));
        let halves = [_mm_unpacklo_epi16(firsts, trail), _mm_unpackhi_epi16(firsts, trail)];
        if ssse3 {
            // Any other mix of one-, two- and three-byte sequences (CJK text with its
            // spaces and punctuation): each half packed by a shuffle chosen by its
            // lengths.
            let below_0x80 = _mm_movemask_epi8(_mm_packs_epi16(below_0x80, zero)) as u32;
            let below_0x800 = _mm_movemask_epi8(_mm_packs_epi16(below_0x800, zero)) as u32;
            return store_utf8_words(halves, below_0x80, below_0x800, out);
        }
        let mut words = [0u32; 8];
        _mm_storeu_si128(words.as_mut_ptr().cast::<__m128i>(), halves[0]);
        _mm_storeu_si128(words.as_mut_ptr().add(4).cast::<__m128i>(), halves[1]);
        // Lengths: 3, less one for each bound the unit is below (a true lane is −1),
        // one byte each; each unit goes at the sum of the lengths before it (a prefix
        // sum by one multiplication), so that the stores do not wait on each other
        // (a running total made one chain through the eight: 1–6% slower on UTF-16
        // → `String` of Latin, Cyrillic and CJK text on this tier).
        let lengths = _mm_add_epi16(_mm_add_epi16(_mm_set1_epi16(3), below_0x80), below_0x800);
        let lengths = _mm_cvtsi128_si64(_mm_packus_epi16(lengths, zero)) as u64;
        let inclusive = lengths.wrapping_mul(0x0101_0101_0101_0101);
        let before = inclusive - lengths;
        let ptr = out.as_mut_ptr();
        // In order: each store's extra bytes are overwritten by the next unit's.
        for (i, word) in words.into_iter().enumerate() {
            let at = ((before >> (8 * i)) & 0xFF) as usize;
            ptr.add(at).cast::<u32>().write_unaligned(word.to_le());
        }
        (inclusive >> 56) as usize
    }
}

#[cfg(test)]
mod tests {
    /// The check's prefetch rules at their bounds: the longest calls that do not
    /// prefetch and the shortest that do.
    #[test]
    fn the_check_prefetches_by_the_rules() {
        for len in [0, 1, 64, 4096, super::LARGE_FROM - 1] {
            // Where it pays at any length (Intel's): at any length.
            assert!(super::check_prefetches_through(len, true, false), "{len}");
            // Where it pays for long input only (AMD's Zen 1, Zen 3, Zen 5): not yet.
            assert!(!super::check_prefetches_through(len, false, true), "{len}");
            assert!(!super::check_prefetches_through(len, true, true), "{len}");
            // The AVX-512 check: not yet, on any CPU.
            assert!(!super::avx512_check_prefetches_through(len, true), "{len}");
        }
        assert!(super::check_prefetches_through(super::LARGE_FROM, false, true));
        // Where it never pays (Zen 4): at no length.
        assert!(!super::check_prefetches_through(usize::MAX, false, false));
        // The AVX-512 check: Zen 5 from LARGE_FROM, others never.
        assert!(super::avx512_check_prefetches_through(super::LARGE_FROM, true));
        assert!(!super::avx512_check_prefetches_through(usize::MAX, false));
    }

    use super::super::scalar;

    /// Inputs of every length up to 150 at every alignment, with the first non-ASCII
    /// unit at every position, and output buffers shorter and longer than the input.
    /// Runs longer than `LONG_RUN` go on in `long_run`: AVX2 or SSE2, by the cap (the
    /// narrowing kernels' longer runs are tested below).
    /// The SSE2 kernel against the handler's rule (through the scalar twin's test
    /// helpers): every length to 120 units and a few around the span, rooms around
    /// them, both byte orders.
    #[test]
    fn replacing_lone_surrogates_matches_the_handler() {
        for surrogates_in in [3, 6, 40] {
            for len in (0..120).chain([511, 512, 513, 520, 1100]) {
                let units = scalar::tests::surrogate_text(len as u64 * 104_729 + surrogates_in, len, surrogates_in);
                for big_endian in [false, true] {
                    let bytes: alloc::vec::Vec<u8> = units
                        .iter()
                        .flat_map(|&u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                        .collect();
                    for room in [0, 8, 9, 16, 31, len.saturating_sub(1), len, len + 8] {
                        let mut out = alloc::vec![0u16; room];
                        let got = super::utf16_bytes_replacing_lone_surrogates(&bytes, &mut out, big_endian);
                        let (expected_n, expected_seen, expected_out) =
                            scalar::tests::replacing_lone_surrogates_naive(&units, room);
                        assert_eq!(got, (expected_n, expected_seen), "{units:04X?} {room} {big_endian}");
                        let n = got.0;
                        assert_eq!(out[..n], expected_out[..], "{units:04X?} {room} {big_endian}");
                    }
                }
            }
        }
    }

    /// The copy, with each loop and without, and the AVX2 one, at lengths around the
    /// ends of the loops' lengths and at every alignment of the source and the output.
    #[test]
    fn copy_bytes_matches_twin() {
        let (low, high) = (super::COPY_LOOP_FROM, 512 << 10);
        let loops = [
            None,
            Some(super::CopyLoop { from: low, up_to: high, distance: super::PREFETCH_DISTANCE }),
            Some(super::CopyLoop { from: low, up_to: usize::MAX, distance: 1 << 10 }),
            Some(super::CopyLoop { from: super::LARGE_FROM, up_to: usize::MAX, distance: super::PREFETCH_DISTANCE }),
        ];
        let mut next = super::super::xorshift(7);
        let bytes: alloc::vec::Vec<u8> = (0..high + 200).map(|_| next() as u8).collect();
        let large = super::LARGE_FROM;
        let lengths = (0..200).chain(low - 70..low + 200).chain(large - 70..large + 70).chain(high - 70..high + 70);
        for (k, len) in lengths.enumerate() {
            let (from, to) = (k % 16, k / 16 % 16);
            let src = &bytes[from..from + len];
            let (mut a, mut b) = (alloc::vec![0u8; len + 16], alloc::vec![0u8; len]);
            scalar::copy_bytes(src, &mut b);
            assert!(b[..] == *src, "length {len}");
            for looped in loops {
                a.fill(0);
                super::copy_bytes_with(src, &mut a[to..to + len], looped);
                assert!(a[to..to + len] == b[..], "length {len}, loop {looped:?}");
            }
            super::copy_bytes(src, &mut a[to..to + len]);
            assert!(a[to..to + len] == b[..], "length {len}");
            if len >= 128 && super::super::avx2::available() {
                a.fill(0);
                // SAFETY: the CPU has AVX2; the lengths are equal and at least 128.
                unsafe { super::super::avx2::copy_bytes(src, &mut a[to..to + len]) };
                assert!(a[to..to + len] == b[..], "length {len}, AVX2");
                assert!(a[..to].iter().chain(&a[to + len..]).all(|&x| x == 0), "length {len}, AVX2");
            }
        }
        // Zen 5's lengths for the AVX2 copy, with the CPU taken for one and not.
        for zen5 in [true, false] {
            super::set_amd_family_1ah_on(zen5);
            for len in [super::WIDE_COPY_FROM - 1, super::WIDE_COPY_FROM, 5000, super::WIDE_COPY_UP_TO - 1] {
                let src = &bytes[3..3 + len];
                let mut a = alloc::vec![0u8; len];
                super::copy_bytes(src, &mut a);
                assert!(a[..] == *src, "length {len}, {zen5}");
            }
        }
    }

    /// The SSE2 ASCII kernels against their scalar twins (see
    /// `scalar::tests::ascii_kernels_match_twins`).
    #[test]
    fn kernels_match_scalar_twins() {
        let kernels = scalar::tests::AsciiKernels {
            copy_ascii_to_ascii: &super::copy_ascii_to_ascii,
            copy_ascii_to_utf16: &super::copy_ascii_to_utf16,
            copy_utf16_ascii_to_bytes: &super::copy_utf16_ascii_to_bytes,
            utf16_bytes_to_units: Some(&super::utf16_bytes_to_units),
            utf16_bytes_ascii_to_bytes: Some(&super::utf16_bytes_ascii_to_bytes),
        };
        scalar::tests::ascii_kernels_match_twins(&kernels, 17);
    }

    /// The long-run loop of UTF-16 bytes to units (two blocks a step, then one)
    /// against its twin, on runs of every length to 80 units with a surrogate at
    /// every place or none, in both byte orders, with room for all or a unit less.
    #[test]
    fn utf16_bytes_to_units_long_run_matches_twin() {
        for len in 0..80usize {
            for bad in 0..=len {
                let units: alloc::vec::Vec<u16> =
                    (0..len).map(|i| if i == bad { 0xD800 + i as u16 } else { 0x0400 + i as u16 }).collect();
                for big_endian in [false, true] {
                    let bytes: alloc::vec::Vec<u8> = units
                        .iter()
                        .flat_map(|&u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                        .collect();
                    for room in [len, len.saturating_sub(1)] {
                        let (mut a, mut b) = (alloc::vec![0u16; room], alloc::vec![0u16; room]);
                        let n = super::utf16_bytes_to_units_loop::<false>(&bytes, &mut a, big_endian);
                        assert_eq!(n, scalar::utf16_bytes_to_units(&bytes, &mut b, big_endian), "{len} {bad}");
                        assert_eq!(a[..n], b[..n]);
                    }
                }
            }
        }
    }

    /// The narrowing kernels on runs around [`super::LONG_NARROWING_RUN`], where they
    /// hand over to `long_run`, with the first non-ASCII unit near the end.
    #[test]
    fn narrowing_kernels_match_scalar_twins_on_long_runs() {
        for len in 240..330 {
            for bad in [len, len - 1, len - 17, len - 33, 255, 256, 257, 272, 287, 288] {
                if bad > len {
                    continue;
                }
                let mut units: alloc::vec::Vec<u16> = (0..len).map(|i| (b'a' + (i % 26) as u8) as u16).collect();
                if bad < len {
                    units[bad] = 0x100 + bad as u16;
                }
                for out_len in [len / 2, len - 3, len, len + 40] {
                    let (mut a, mut b) = (alloc::vec![0u8; out_len], alloc::vec![0u8; out_len]);
                    let n = super::copy_utf16_ascii_to_bytes(&units, &mut a);
                    assert_eq!(n, scalar::copy_utf16_ascii_to_bytes(&units, &mut b), "{len} {bad} {out_len}");
                    assert_eq!(a[..n], b[..n]);
                    for big_endian in [false, true] {
                        let bytes: alloc::vec::Vec<u8> = units
                            .iter()
                            .flat_map(|&u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                            .collect();
                        let n = super::utf16_bytes_ascii_to_bytes(&bytes, &mut a, big_endian);
                        assert_eq!(n, scalar::utf16_bytes_ascii_to_bytes(&bytes, &mut b, big_endian));
                        assert_eq!(a[..n], b[..n]);
                    }
                }
            }
        }
    }

    /// The block kernel with and without its SSSE3 shuffles: the bytes written
    /// and their count.
    fn both_block_kernels(block: [u16; 8]) -> [(usize, [u8; 32]); 2] {
        let (mut with, mut without) = ([0u8; 32], [0u8; 32]);
        let n = super::block_to_utf8::<true>(block, &mut with);
        let m = super::block_to_utf8::<false>(block, &mut without);
        [(n, with), (m, without)]
    }

    /// Blocks of every code unit that is not a surrogate, at each of the eight
    /// positions, with neighbours of each length: the same bytes and length as the
    /// scalar twin.
    #[test]
    fn block_to_utf8_matches_scalar_for_every_unit() {
        let neighbours =
            [[0x41u16; 8], [0x3B1; 8], [0xD55C; 8], [0x41, 0x3B1, 0xD55C, 0x20, 0x7FF, 0x800, 0xFFFF, 0x80]];
        for unit in (0..=u16::MAX).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
            for (i, base) in neighbours.iter().enumerate() {
                let mut block = *base;
                block[unit as usize % 8] = unit;
                block[(unit as usize + i) % 8] = unit;
                let mut b = [0u8; 32];
                let expected = scalar::block_to_utf8(block, &mut b);
                for (n, a) in both_block_kernels(block) {
                    assert_eq!((n, &a[..n]), (expected, &b[..expected]), "{unit:#x}");
                }
            }
        }
    }

    /// Runs long enough to be handed over (to AVX2 where the CPU and the cap allow
    /// it, else to the SSE2 loop that starts with ASCII): the first unit out of the
    /// run around the hand-off and far past it, ASCII runs and mixed ones, against
    /// the twin; no more than 16 bytes of scratch past the run.
    #[test]
    fn encode_utf16_linear_long_runs() {
        const FILL: u8 = 0xEE;
        let (start, len, delta) = (0xA0u16, 96u16, 0u16);
        for mixed in [0usize, 3, 40, 300] {
            let inside: alloc::vec::Vec<u16> = (0..700usize)
                .map(|i| if mixed != 0 && i % mixed == 1 { 0xE9 } else { 0x61 + (i % 26) as u16 })
                .collect();
            for offset in [0, 1, 7] {
                let bads =
                    (0..40).chain(super::LONG_NARROWING_RUN - 40..super::LONG_NARROWING_RUN + 70).chain(600..640);
                for bad in bads.chain([699]) {
                    for special in [0x80u16, 0x2019, 0xD800] {
                        let mut units = inside[offset..].to_vec();
                        if bad < units.len() {
                            units[bad] = special;
                        }
                        for out_len in [units.len(), 300, 257] {
                            let (mut a, mut b) = (alloc::vec![FILL; out_len], alloc::vec![0u8; out_len]);
                            let n = scalar::encode_utf16_linear(&units, &mut b, start, len, delta);
                            assert_eq!(
                                super::encode_utf16_linear(&units, &mut a, start, len, delta),
                                n,
                                "{mixed} {bad}"
                            );
                            assert_eq!(a[..n], b[..n]);
                            assert!(a[(n + 16).min(out_len)..].iter().all(|&x| x == FILL), "scratch");
                        }
                    }
                }
            }
        }
    }

    /// The single-byte encoder's kernel against the index it is given, unit by unit:
    /// text of ASCII, the run's units, the table's others and units in neither
    /// (surrogates among them), in stretches long enough for the hand-off of plain
    /// blocks (to AVX2 where the CPU and the cap allow it) and short ones, into rooms
    /// of every size: it stops at the first unit in neither, or at the end of the room,
    /// and writes no more than 16 bytes past what it returns.
    #[test]
    fn encode_utf16_in_index_matches_the_index() {
        struct Table;
        impl super::super::ByteLookup for Table {
            fn byte_at(&self, _: &[u8], _: usize) -> u8 {
                unreachable!("only units are asked")
            }
            fn byte_of_unit(&self, unit: u16) -> u8 {
                match unit {
                    0x152 | 0x160 | 0x2019 | 0x20AC => 0x80 + (unit % 0x1F) as u8,
                    _ => 0,
                }
            }
        }
        const FILL: u8 = 0xEE;
        let (start, len, delta) = (0xA0u16, 96u16, 0u16);
        let byte = |unit: u16| match unit {
            0..0x80 => unit as u8,
            _ if unit.wrapping_sub(start) < len => (unit - delta) as u8,
            _ => super::super::ByteLookup::byte_of_unit(&Table, unit),
        };
        let mut next = super::super::xorshift(29);
        for round in 0..3_000u32 {
            // Stretches of plain text (ASCII and the run) of every length up to
            // past the hand-off, with others between them.
            let mut units = alloc::vec::Vec::new();
            while units.len() < 700 {
                let plain = next() as usize % [8, 40, 400][round as usize % 3];
                for _ in 0..plain {
                    let pick = next();
                    units.push(if pick.is_multiple_of(5) {
                        start + (pick >> 8) as u16 % len
                    } else {
                        (pick >> 8) as u16 % 0x80
                    });
                }
                let pick = next();
                units.push(match pick % 16 {
                    0 => 0xD800,
                    1 => 0x100,
                    2 => 0x3B1,
                    _ => [0x152, 0x160, 0x2019, 0x20AC][(pick >> 8) as usize % 4],
                });
            }
            let offset = round as usize % 9;
            let src = &units[offset..];
            let room = [src.len(), 300, 257, 33, 16, 5][round as usize % 6];
            let mut out = alloc::vec![FILL; room];
            let n = super::encode_utf16_in_index(src, &mut out, (start, len, delta), &Table);
            let stop = src.iter().position(|&unit| byte(unit) == 0 && unit != 0).unwrap_or(src.len());
            assert_eq!(n, stop.min(room), "round {round}");
            let expected: alloc::vec::Vec<u8> = src[..n].iter().map(|&unit| byte(unit)).collect();
            assert_eq!(out[..n], expected[..], "round {round}");
            assert!(out[(n + 16).min(room)..].iter().all(|&b| b == FILL), "scratch: round {round}");
        }
    }

    /// The linear-run encoder against its scalar twin (see
    /// `scalar::tests::encode_utf16_linear_matches_twin`).
    #[test]
    fn encode_utf16_linear_matches_scalar() {
        scalar::tests::encode_utf16_linear_matches_twin(&super::encode_utf16_linear);
    }

    /// The SSE2 table decoders against their twins (see
    /// `scalar::tests::decode_table_matches_twins`).
    #[test]
    fn decode_table_matches_scalar() {
        scalar::tests::decode_table_matches_twins(
            &super::decode_table_to_utf16,
            Some(&|src, dst, table| super::decode_table_to_utf8(src, dst, table)),
        );
    }

    /// The single-byte decoder's kernel switching between its ways of taking a block:
    /// random sequences of blocks of ASCII, of ASCII with letters of the run, and of
    /// bytes out of the run (or with a null byte among them), runs of ASCII blocks
    /// around `MIXED_UNTIL` long between them, at every offset into the block, against
    /// the twin.
    #[test]
    fn decode_table_to_utf16_mode_switches() {
        // A run of Cyrillic letters, and one of letters that are their own units
        // (delta zero, as windows-1252's).
        for run in [(0xC0u8, 64u8, 0x350u16), (0xA0, 96, 0)] {
            decode_table_to_utf16_mode_switches_with(run);
        }
    }

    fn decode_table_to_utf16_mode_switches_with((start, len, delta): (u8, u8, u16)) {
        let mut utf16 = [0u16; 256];
        for byte in 0..=255u8 {
            utf16[byte as usize] = match byte {
                0..0x80 => u16::from(byte),
                _ if byte.wrapping_sub(start) < len => u16::from(byte) + delta,
                0x9D => 0,
                _ => 0x2000 + u16::from(byte),
            };
        }
        let mut next = super::super::xorshift(11);
        for round in 0..400u32 {
            let mut bytes = alloc::vec::Vec::new();
            while bytes.len() < 16 * 40 {
                let kind = next() % 8;
                // ASCII blocks come in runs of up to twice `MIXED_UNTIL`.
                let blocks = if kind < 4 { 1 + next() as usize % (2 * super::MIXED_UNTIL as usize + 2) } else { 1 };
                for _ in 0..16 * blocks {
                    let byte = match kind {
                        0..4 => b'a' + (next() % 26) as u8,
                        4 | 5 if next().is_multiple_of(4) => start + (next() % u64::from(len)) as u8,
                        4 | 5 => b' ',
                        6 if next().is_multiple_of(4) => 0x80 + (next() % 0x20) as u8,
                        _ => b'e',
                    };
                    bytes.push(byte);
                }
            }
            if round.is_multiple_of(3) {
                let at = next() as usize % bytes.len();
                bytes[at] = 0x9D;
            }
            for offset in [0, 1, 5, 15] {
                let src = &bytes[offset..];
                let (mut a, mut b) = (alloc::vec![0u16; src.len()], alloc::vec![0u16; src.len()]);
                let n = super::decode_table_to_utf16(src, &mut a, &utf16, start, len, delta);
                assert_eq!(n, scalar::decode_table_to_utf16(src, &mut b, &utf16, start, len, delta), "round {round}");
                assert_eq!(a[..n], b[..n], "round {round}");
            }
        }
    }

    /// Every sequence of eight lengths (one, two or three bytes) in a block, so that
    /// every packing pattern is used in both halves.
    #[test]
    fn block_to_utf8_matches_scalar_for_every_length_pattern() {
        let by_length = [[0x41u16, 0x7F, 0x20], [0x3B1, 0x80, 0x7FF], [0xD55C, 0x800, 0xFFFF]];
        for pattern in 0..3usize.pow(8) {
            let block: [u16; 8] = core::array::from_fn(|k| {
                let len = pattern / 3usize.pow(k as u32) % 3;
                by_length[len][(pattern + k) % 3]
            });
            let mut b = [0u8; 32];
            let expected = scalar::block_to_utf8(block, &mut b);
            for (n, a) in both_block_kernels(block) {
                assert_eq!((n, &a[..n]), (expected, &b[..expected]), "{block:x?}");
            }
        }
    }

    /// Every code unit, alone and in a block, is a surrogate exactly when the scalar
    /// twin says so.
    #[test]
    fn surrogate_detection_matches_scalar_for_every_unit() {
        for unit in 0..=u16::MAX {
            for big_endian in [false, true] {
                let bytes: alloc::vec::Vec<u8> = core::iter::repeat_n(0x41u16, 7)
                    .chain([unit])
                    .chain(core::iter::repeat_n(0x42, 8))
                    .flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                    .collect();
                let (mut a, mut b) = ([0u16; 16], [0u16; 16]);
                assert_eq!(
                    super::utf16_bytes_to_units(&bytes, &mut a, big_endian),
                    scalar::utf16_bytes_to_units(&bytes, &mut b, big_endian),
                    "{unit:#x}"
                );
                assert_eq!(a, b);
            }
        }
    }
}
