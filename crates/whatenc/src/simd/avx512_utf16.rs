//! UTF-16 → UTF-8 with AVX-512 (BW, VL, VBMI, VBMI2) and BMI2, chosen at run time (with
//! `std`) where the CPU has them: sixteen code units at a time, in two halves of
//! eight, each unit widened to a 32-bit lane that holds its one to three UTF-8
//! bytes, then packed by one byte compression (`vpcompressb`) per half. The twin is
//! [`super::scalar::block_to_utf8`], twice, and the tests compare them.
//!
//! [`bmp_steps`] takes 32 units a step with 512-bit vectors, ahead of the loops of
//! `utf16_to_utf8` at this tier: a step of ASCII narrowed, one of units below 0x800
//! as two bytes a unit in its 16-bit lanes compressed once, others worked out in
//! 16-bit lanes and interleaved into two vectors of sixteen 32-bit lanes, each
//! compressed; a run of steps of three-byte units (bytes of other text taken for
//! UTF-16) is put in order by fixed permutes. Against those loops alone, rotating,
//! `AMD EPYC` Zen 4: UTF-16LE → `String` ru.txt 28.1 → 13.4 µs, fr.txt 69 → 37,
//! ja.txt 6.0 → 3.7, de.html 65 → 55; UTF-16 → UTF-8 ru.txt 23.4 → 10.6, fr.txt 64
//! → 34; en.html unchanged. The tests compare it with the standard library.
//!
//! The steps here and in `avx512_utf8` prefetch as the AVX2 ones do
//! (`super::avx2_utf16::prefetch_at`: on Intel's CPUs, for inputs of 32 KiB or
//! more; no AVX-512 CPU is of AMD's family 17h). AVX-512 tier, rotating, `Intel Xeon` Emerald Rapids, µs, without → with:
//! UTF-16 → UTF-8 en.html 107.4 → 79.9, ru.html 177.4 → 119.1; UTF-16 →
//! windows-1252 en.html 102.5 → 72.6, pt.html 75.2 → 61.6; windows-1258 → UTF-16
//! vi.html 76.3 → 57.7; windows-1250 → `String` cs.html 61.7 → 55.6; UTF-8 → UTF-16
//! en.html 70.1 → 65.5, cs.html 78.6 → 71.7; the texts of 32 KB or less unchanged.

use core::arch::x86_64::{
    __m256i, __m512i, _mm_loadu_si128, _mm256_and_si256, _mm256_cmplt_epu32_mask, _mm256_cvtepu16_epi32,
    _mm256_loadu_si256, _mm256_mask_blend_epi32, _mm256_mask_set1_epi8, _mm256_mask_storeu_epi8,
    _mm256_maskz_compress_epi8, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi32, _mm256_slli_epi32,
    _mm256_srli_epi32, _mm256_storeu_si256, _mm512_and_si512, _mm512_castsi256_si512, _mm512_castsi512_si256,
    _mm512_cmpeq_epi8_mask, _mm512_cmpeq_epi16_mask, _mm512_cmpge_epu16_mask, _mm512_cmplt_epu16_mask,
    _mm512_cvtepi16_epi8, _mm512_cvtepu8_epi16, _mm512_extracti64x4_epi64, _mm512_inserti64x4, _mm512_loadu_epi16,
    _mm512_loadu_si512, _mm512_mask_blend_epi8, _mm512_mask_blend_epi16, _mm512_mask_set1_epi8,
    _mm512_mask_storeu_epi8, _mm512_mask_sub_epi16, _mm512_maskz_compress_epi8, _mm512_movepi8_mask, _mm512_or_si512,
    _mm512_permutex2var_epi8, _mm512_permutex2var_epi16, _mm512_permutexvar_epi64, _mm512_set1_epi8, _mm512_set1_epi16,
    _mm512_setr_epi64, _mm512_setzero_si512, _mm512_slli_epi16, _mm512_srli_epi16, _mm512_storeu_epi16,
    _mm512_storeu_si512, _mm512_sub_epi16, _mm512_test_epi16_mask, _mm512_unpackhi_epi16, _mm512_unpacklo_epi16,
    _pdep_u32, _pdep_u64,
};

/// Whether this kernel runs: the cap on the tier ([`crate::tier`]) allows AVX-512,
/// and the CPU has AVX-512BW, VL, VBMI and VBMI2, BMI2 and POPCNT (`std` caches the
/// answer; without `std`, only when the build targets them).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::allows(crate::tier::Tier::Avx512) && cpu_has_all()
}

/// Whether the CPU has the features, whatever the cap on the tier.
#[inline(always)]
#[allow(clippy::eq_op, clippy::nonminimal_bool, reason = "without `std` these are `cfg!` constants")]
pub(crate) fn cpu_has_all() -> bool {
    super::cpu_has!("avx512bw")
        && super::cpu_has!("avx512vl")
        && super::cpu_has!("avx512vbmi")
        && super::cpu_has!("avx512vbmi2")
        && super::cpu_has!("bmi2")
        && super::cpu_has!("popcnt")
}

/// Sixteen code units, none a surrogate, as UTF-8 at the start of `out`; returns the
/// bytes written (at most 48; nothing is written after them).
///
/// # Safety
/// The CPU must have AVX-512BW, VL, VBMI and VBMI2, BMI2 and POPCNT: call it only where
/// [`available`] returned `true`.
#[inline]
pub(crate) unsafe fn units_to_utf8(units: &[u16; 16], out: &mut [u8; 64]) -> usize {
    debug_assert!(available());
    // SAFETY: the CPU has the features `units_to_utf8_inner` enables (the caller's
    // precondition); `units` holds 32 readable bytes and `out` 64 writable ones.
    unsafe { units_to_utf8_inner(units, out) }
}

#[target_feature(enable = "avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
unsafe fn units_to_utf8_inner(units: &[u16; 16], out: &mut [u8; 64]) -> usize {
    // Two halves of eight units, in 256-bit registers: on some CPUs, 512-bit
    // instructions now and then (a dash in Cyrillic text) cost a clock transition.
    let mut written = 0;
    for half in 0..2 {
        // SAFETY: `units` is 32 bytes; this reads 16 of them.
        let units = _mm256_cvtepu16_epi32(unsafe { _mm_loadu_si128(units.as_ptr().add(8 * half).cast()) });
        let set = _mm256_set1_epi32;
        let low6 = _mm256_or_si256(_mm256_and_si256(units, set(0x3F)), set(0x80));
        let high = _mm256_srli_epi32::<6>(units);
        let middle6 = _mm256_or_si256(_mm256_and_si256(high, set(0x3F)), set(0x80));
        // The bytes of each length as a little-endian word: first byte lowest.
        let two = _mm256_or_si256(_mm256_or_si256(high, set(0xC0)), _mm256_slli_epi32::<8>(low6));
        let three = _mm256_or_si256(
            _mm256_or_si256(_mm256_srli_epi32::<12>(units), set(0xE0)),
            _mm256_or_si256(_mm256_slli_epi32::<8>(middle6), _mm256_slli_epi32::<16>(low6)),
        );
        let below_0x80 = _mm256_cmplt_epu32_mask(units, set(0x80));
        let below_0x800 = _mm256_cmplt_epu32_mask(units, set(0x800));
        let words = _mm256_mask_blend_epi32(below_0x80, _mm256_mask_blend_epi32(below_0x800, three, two), units);
        // Which bytes of the 32 are UTF-8: the first three of each lane, less the
        // third below 0x800 and the second below 0x80 (one bit per lane spread to its
        // nibble).
        let keep = 0x7777_7777u32
            & !_pdep_u32(u32::from(below_0x800), 0x4444_4444)
            & !_pdep_u32(u32::from(below_0x80), 0x2222_2222);
        let n = keep.count_ones();
        // Only the output is stored (a masked store), no scratch after it: decoders
        // write into `str` bytes, where at most `utf8_out::SCRATCH` may be left after
        // the output. SAFETY: `out` is 64 bytes; this writes `n` <= 24 from
        // `written` <= 24.
        unsafe {
            _mm256_mask_storeu_epi8(
                out.as_mut_ptr().add(written).cast(),
                (1u64 << n) as u32 - 1,
                _mm256_maskz_compress_epi8(keep, words),
            );
        }
        written += n as usize;
    }
    written
}

/// Code units, 32 a step, to UTF-8 at the start of `dst`, up to the first step with
/// a surrogate, while `dst` has room for 96 bytes and `min_room` more (at most 8)
/// before a step; returns (units read, bytes written), with nothing written after
/// them (masked stores). The units are the `len` at `src`, in the CPU's byte order
/// or (`swapped`) the other. A step of ASCII is narrowed; one of units below 0x800
/// is two bytes a unit in 16-bit lanes, then one compression (`vpcompressb`) of
/// the bytes kept; one with longer units is worked out in 16-bit lanes too (each
/// unit's first two bytes, and its third apart), interleaved into two vectors of
/// sixteen 32-bit lanes, and each compressed.
///
/// # Safety
/// `src` must hold `2 × len` readable bytes; the CPU must have what
/// [`cpu_has_all`] checks: call it only where [`available`] returned `true`.
#[target_feature(enable = "avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn bmp_steps(
    src: *const u8,
    len: usize,
    swapped: bool,
    dst: &mut [u8],
    min_room: usize,
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    let set = _mm512_set1_epi16;
    let prefetch = 2 * len >= super::avx2_utf16::PREFETCH_FROM && super::x86_64::prefetch_pays();
    // How many steps in a row, this one included, were all of three-byte units.
    let mut three_byte_steps = 0u32;
    while read + 32 <= len && dst.len() - written >= 96 + min_room {
        if prefetch {
            super::avx2_utf16::prefetch_at(src.wrapping_add(2 * read));
        }
        // SAFETY: `read + 32 <= len` units are readable (the caller's precondition).
        let mut units = unsafe { _mm512_loadu_epi16(src.add(2 * read).cast()) };
        if swapped {
            units = swap_bytes(units);
        }
        let out = dst[written..].as_mut_ptr();
        let wide = _mm512_cmpge_epu16_mask(units, set(0x80));
        if wide == 0 {
            // SAFETY: `dst` has room for 96 bytes from `written`.
            unsafe { _mm256_storeu_si256(out.cast(), _mm512_cvtepi16_epi8(units)) };
            read += 32;
            written += 32;
            continue;
        }
        if _mm512_cmpeq_epi16_mask(_mm512_and_si512(units, set(0xF800u16 as i16)), set(0xD800u16 as i16)) != 0 {
            break;
        }
        let long = _mm512_cmpge_epu16_mask(units, set(0x800));
        // Counted without a branch on this step's units (Thai's would mispredict).
        three_byte_steps = (three_byte_steps + 1) * u32::from(long == u32::MAX);
        if three_byte_steps > THREE_BYTE_STEPS_BEFORE {
            // SAFETY: `dst` has room for 96 bytes from `written`; the CPU has the
            // features (this function enables them).
            unsafe { three_byte_step(units, out) };
            read += 32;
            written += 96;
            continue;
        }
        // SAFETY: as above.
        written += unsafe { step_to_utf8(units, wide, long, out) };
        read += 32;
    }
    (read, written)
}

/// 32 code units (none a surrogate, not all ASCII: `wide` has a bit for each that
/// is not, `long` for each of U+0800 or above) to UTF-8 at `out`; returns the bytes
/// written (at most 96, nothing after them).
///
/// # Safety
/// `out` must have room for 96 bytes; the CPU must have AVX-512BW, VBMI and VBMI2, BMI2
/// and POPCNT.
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
unsafe fn step_to_utf8(units: __m512i, wide: u32, long: u32, out: *mut u8) -> usize {
    let set = _mm512_set1_epi16;
    if long == 0 {
        // Two bytes a unit, first byte lowest: the unit itself where ASCII (only the
        // first kept), else C0 | its high five bits, then 80 | its low six.
        let first = _mm512_mask_blend_epi16(wide, units, _mm512_or_si512(_mm512_srli_epi16::<6>(units), set(0xC0)));
        let second = _mm512_or_si512(_mm512_and_si512(units, set(0x3F)), set(0x80));
        let words = _mm512_or_si512(first, _mm512_slli_epi16::<8>(second));
        let keep = 0x5555_5555_5555_5555 | _pdep_u64(u64::from(wide), 0xAAAA_AAAA_AAAA_AAAA);
        let n = keep.count_ones() as usize;
        // SAFETY: `out` has room for 96 bytes; this writes `n` <= 64.
        unsafe { _mm512_mask_storeu_epi8(out.cast(), lanes_below(n), _mm512_maskz_compress_epi8(keep, words)) };
        return n;
    }
    // Each unit's first two bytes worked out in its 16-bit lane (first byte lowest),
    // its third (80 | its low six bits) in `low6`, and the two interleaved into 32-bit
    // lanes (`vpunpcklwd`/`vpunpckhwd`, within each 128-bit lane). The units' 64-bit
    // quarters are first put in the order 0, 4, 1, 5, 2, 6, 3, 7, so that units 0 to
    // 15 come out of the interleave in order in `first_half`, 16 to 31 in
    // `second_half`; each is then compressed (`vpcompressb`) to the bytes kept.
    let ordered = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7), units);
    let (three, low6) = three_byte_parts(ordered);
    let two =
        _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi16::<6>(ordered), set(0xC0)), _mm512_slli_epi16::<8>(low6));
    let firsts = _mm512_mask_blend_epi16(
        _mm512_cmplt_epu16_mask(ordered, set(0x80)),
        _mm512_mask_blend_epi16(_mm512_cmplt_epu16_mask(ordered, set(0x800)), three, two),
        ordered,
    );
    let first_half = _mm512_unpacklo_epi16(firsts, low6);
    let second_half = _mm512_unpackhi_epi16(firsts, low6);
    // The first three bytes of each 32-bit lane, less the third of a unit below 0x800
    // and the second of one below 0x80 (the masks in the units' own order).
    let keep = |half: u32| {
        let (short, ascii) = (u64::from(!long >> (16 * half) & 0xFFFF), u64::from(!wide >> (16 * half) & 0xFFFF));
        0x7777_7777_7777_7777u64 & !_pdep_u64(short, 0x4444_4444_4444_4444) & !_pdep_u64(ascii, 0x2222_2222_2222_2222)
    };
    let (keep_first, keep_second) = (keep(0), keep(1));
    let (n_first, n_second) = (keep_first.count_ones() as usize, keep_second.count_ones() as usize);
    // SAFETY: `out` has room for 96 bytes; each half writes at most 48.
    unsafe {
        _mm512_mask_storeu_epi8(out.cast(), lanes_below(n_first), _mm512_maskz_compress_epi8(keep_first, first_half));
        _mm512_mask_storeu_epi8(
            out.add(n_first).cast(),
            lanes_below(n_second),
            _mm512_maskz_compress_epi8(keep_second, second_half),
        );
    }
    n_first + n_second
}

/// How many steps of three-byte units in a row [`bmp_steps`] takes through
/// [`step_to_utf8`] before it takes them through [`three_byte_step`]: in Thai, CJK
/// and Korean text such steps come one or two in a row between steps with a space or
/// a digit, and a branch to [`three_byte_step`] on each mispredicted (th.txt
/// UTF-16LE → `String` 13.2 → 9.8 GB/s); bytes of other text taken for UTF-16 make
/// nothing but such steps.
const THREE_BYTE_STEPS_BEFORE: u32 = 8;

/// 32 code units of three bytes each in UTF-8 (U+0800 and above, none a surrogate)
/// at `out`: each unit's first two bytes worked out in its 16-bit lane, its third
/// apart, and put in order by two fixed byte permutes (`vpermt2b`), with no
/// compression.
///
/// # Safety
/// `out` must have room for 96 bytes; the CPU must have AVX-512BW and VBMI.
#[inline]
#[target_feature(enable = "avx512bw,avx512vbmi")]
unsafe fn three_byte_step(units: __m512i, out: *mut u8) {
    let (firsts, third) = three_byte_parts(units);
    // SAFETY: `THREE_BYTES` has 128 bytes; `out` has room for 96 bytes, which the
    // two stores fill.
    unsafe {
        let order = THREE_BYTES.as_ptr();
        _mm512_storeu_si512(out.cast(), _mm512_permutex2var_epi8(firsts, _mm512_loadu_si512(order.cast()), third));
        _mm256_storeu_si256(
            out.add(64).cast(),
            _mm512_castsi512_si256(_mm512_permutex2var_epi8(firsts, _mm512_loadu_si512(order.add(64).cast()), third)),
        );
    }
}

/// Each unit's UTF-8 as three bytes, in 16-bit lanes: its first two (first byte
/// lowest), and its third (80 | its low six bits) apart.
#[inline]
#[target_feature(enable = "avx512bw")]
fn three_byte_parts(units: __m512i) -> (__m512i, __m512i) {
    let set = _mm512_set1_epi16;
    let third = _mm512_or_si512(_mm512_and_si512(units, set(0x3F)), set(0x80));
    let middle = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16::<6>(units), set(0x3F)), set(0x80));
    let firsts =
        _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi16::<12>(units), set(0xE0)), _mm512_slli_epi16::<8>(middle));
    (firsts, third)
}

/// The byte permutes of [`three_byte_step`]'s 32 three-byte sequences: byte `j` of the
/// output is byte `j % 3` of unit `j / 3`'s sequence, the first two from its 16-bit
/// lane of the first operand, the third from its lane of the second (64 on).
static THREE_BYTES: [u8; 128] = {
    let mut order = [0; 128];
    let mut j = 0;
    while j < 96 {
        let lane = (2 * (j / 3)) as u8;
        order[j] = match j % 3 {
            0 => lane,
            1 => lane + 1,
            _ => 64 + lane,
        };
        j += 1;
    }
    order
};

/// The code units of 32 bytes of a single-byte encoding (widened to 16-bit lanes
/// `bytes`), through `tables`: the encoding's units for the bytes 0x80 to 0xFF, 32
/// a vector (`vpermi2w` picks among 64, the byte's bit 6 between the two pairs);
/// ASCII is itself. With them, the lanes of bytes that are null (not ASCII, unit 0).
#[inline]
#[target_feature(enable = "avx512bw")]
fn table_units(bytes: __m512i, tables: &[__m512i; 4]) -> (__m512i, u32) {
    let set = _mm512_set1_epi16;
    let low = _mm512_permutex2var_epi16(tables[0], bytes, tables[1]);
    let high = _mm512_permutex2var_epi16(tables[2], bytes, tables[3]);
    let mapped = _mm512_mask_blend_epi16(_mm512_test_epi16_mask(bytes, set(0x40)), low, high);
    let ascii = _mm512_cmplt_epu16_mask(bytes, set(0x80));
    let units = _mm512_mask_blend_epi16(ascii, mapped, bytes);
    (units, _mm512_cmpeq_epi16_mask(units, _mm512_setzero_si512()) & !ascii)
}

/// The four vectors of [`table_units`] from a single-byte encoding's `table` (a code
/// unit for each byte, 0 for null).
#[inline]
#[target_feature(enable = "avx512bw")]
fn load_tables(table: &[u16; 256]) -> [__m512i; 4] {
    // SAFETY: each load reads 32 units from 0x80 + 32 × k <= 0xE0.
    core::array::from_fn(|k| unsafe { _mm512_loadu_epi16(table.as_ptr().add(0x80 + 32 * k).cast()) })
}

/// Decodes bytes of a single-byte encoding (`table`: a code unit for each byte, 0 for
/// null) to UTF-16, 32 a step while 32 are left and fit in `dst`, up to the first
/// null byte; returns the bytes read. The step with the null byte is stored whole
/// (its units after the null are scratch, inside `dst`).
///
/// # Safety
/// The CPU must have what [`cpu_has_all`] checks: call it only where [`available`]
/// returned `true`.
#[target_feature(enable = "avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn table_steps_to_utf16(src: &[u8], dst: &mut [u16], table: &[u16; 256]) -> usize {
    let tables = load_tables(table);
    let mut read = 0;
    let prefetch = src.len() >= super::avx2_utf16::PREFETCH_FROM && super::x86_64::prefetch_pays();
    while read + 32 <= src.len() && read + 32 <= dst.len() {
        if prefetch {
            super::avx2_utf16::prefetch_at(src.as_ptr().wrapping_add(read));
        }
        // SAFETY: `src` holds 32 bytes from `read`.
        let bytes = _mm512_cvtepu8_epi16(unsafe { _mm256_loadu_si256(src.as_ptr().add(read).cast()) });
        let (units, null) = table_units(bytes, &tables);
        // SAFETY: `dst` has room for 32 units from `read`.
        unsafe { _mm512_storeu_epi16(dst.as_mut_ptr().add(read).cast(), units) };
        if null != 0 {
            return read + null.trailing_zeros() as usize;
        }
        read += 32;
    }
    read
}

/// Decodes bytes of a single-byte encoding (`table` as for [`table_steps_to_utf16`])
/// to UTF-8, 32 a step while 32 are left and `dst` has room for 96 bytes, up to the
/// step with the first null byte; returns the bytes read and written (nothing
/// written after them).
///
/// # Safety
/// As [`table_steps_to_utf16`]'s.
#[target_feature(enable = "avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn table_steps_to_utf8(src: &[u8], dst: &mut [u8], table: &[u16; 256]) -> (usize, usize) {
    let tables = load_tables(table);
    let (mut read, mut written) = (0, 0);
    let prefetch = src.len() >= super::avx2_utf16::PREFETCH_FROM && super::x86_64::prefetch_pays();
    while read + 32 <= src.len() && dst.len() - written >= 96 {
        if prefetch {
            super::avx2_utf16::prefetch_at(src.as_ptr().wrapping_add(read));
        }
        // SAFETY: `src` holds 32 bytes from `read`.
        let bytes = unsafe { _mm256_loadu_si256(src.as_ptr().add(read).cast()) };
        let out = dst[written..].as_mut_ptr();
        let wide = _mm256_movemask_epi8(bytes) as u32;
        if wide == 0 {
            // SAFETY: `dst` has room for 96 bytes from `written`.
            unsafe { _mm256_storeu_si256(out.cast(), bytes) };
            read += 32;
            written += 32;
            continue;
        }
        let (units, null) = table_units(_mm512_cvtepu8_epi16(bytes), &tables);
        if null != 0 {
            break;
        }
        // SAFETY: `dst` has room for 96 bytes from `written`; the units of a
        // single-byte encoding are no surrogates.
        written += unsafe { step_to_utf8(units, wide, _mm512_cmpge_epu16_mask(units, _mm512_set1_epi16(0x800)), out) };
        read += 32;
    }
    (read, written)
}

/// Encodes valid UTF-8 into a single-byte encoding, 64 bytes a step: ASCII as
/// itself, the index's run `start..start + len` as `code point - delta`, each lead
/// byte's code point from it and the byte after it (a second load, one byte on) in
/// 16-bit lanes, for a run of two-byte UTF-8 (U+0080 to U+07FF, as those of Latin,
/// Greek, Cyrillic, Hebrew and Arabic are), or, with `WIDE`, the two bytes after it
/// for a run of three-byte UTF-8 (Thai's); any other character from `index` (its byte
/// in the index, or 0), one at a time, into its lead byte's lane; the
/// bytes kept (ASCII and leads) compressed together. Returns the bytes read and
/// written; it stops at the start of the first character not in the index, where
/// fewer than 65 bytes are left, or 64 bytes of room, and writes nothing past the
/// bytes it returns.
///
/// `src` starts at a character and is valid UTF-8 (a `&str`'s bytes).
///
/// # Safety
/// The CPU must have the kernel's features: call it only where [`available`]
/// returned `true`.
#[target_feature(enable = "avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn linear_steps_from_utf8<const WIDE: bool>(
    src: &[u8],
    dst: &mut [u8],
    (start, len, delta): (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    let (start, len, delta) =
        (_mm512_set1_epi16(start as i16), _mm512_set1_epi16(len as i16), _mm512_set1_epi16(delta as i16));
    let set = _mm512_set1_epi8;
    // The bytes a step reads: 64, and those of a sequence that starts at its end.
    let reach = if WIDE { 66 } else { 65 };
    while read + reach <= src.len() && written + 64 <= dst.len() {
        // SAFETY: `src` holds the `reach` bytes at `read` (`next` and `after` are read
        // only for a three-byte run, when `reach` is 66).
        let (bytes, next, after) = unsafe {
            let p = src.as_ptr().add(read);
            let after = if WIDE { _mm512_loadu_si512(p.add(2).cast()) } else { _mm512_setzero_si512() };
            (_mm512_loadu_si512(p.cast()), _mm512_loadu_si512(p.add(1).cast()), after)
        };
        // SAFETY: `dst` holds 64 bytes at `written`.
        let out = unsafe { dst.as_mut_ptr().add(written) };
        let ascii = !_mm512_movepi8_mask(bytes);
        if ascii == u64::MAX {
            // SAFETY: 64 writable bytes at `out`.
            unsafe { _mm512_storeu_si512(out.cast(), bytes) };
            read += 64;
            written += 64;
            continue;
        }
        let continuation = _mm512_cmpeq_epi8_mask(_mm512_and_si512(bytes, set(0xC0u8 as i8)), set(0x80u8 as i8));
        // The lead bytes of the run's length.
        let lead = if WIDE {
            _mm512_cmpeq_epi8_mask(_mm512_and_si512(bytes, set(0xF0u8 as i8)), set(0xE0u8 as i8))
        } else {
            _mm512_cmpeq_epi8_mask(_mm512_and_si512(bytes, set(0xE0u8 as i8)), set(0xC0u8 as i8))
        };
        // Each byte with the one (or two) after it as such a sequence's code point,
        // and the byte for it, 32 at a time.
        let half = |bytes: __m256i, next: __m256i, after: __m256i| {
            let (bytes, next) = (_mm512_cvtepu8_epi16(bytes), _mm512_cvtepu8_epi16(next));
            let low6 = |units| _mm512_and_si512(units, _mm512_set1_epi16(0x3F));
            let code_point = if WIDE {
                _mm512_or_si512(
                    _mm512_or_si512(_mm512_slli_epi16::<12>(bytes), _mm512_slli_epi16::<6>(low6(next))),
                    low6(_mm512_cvtepu8_epi16(after)),
                )
            } else {
                _mm512_or_si512(_mm512_slli_epi16::<6>(_mm512_and_si512(bytes, _mm512_set1_epi16(0x1F))), low6(next))
            };
            let in_run = _mm512_cmplt_epu16_mask(_mm512_sub_epi16(code_point, start), len);
            (_mm512_cvtepi16_epi8(_mm512_sub_epi16(code_point, delta)), in_run)
        };
        let (low, low_in_run) =
            half(_mm512_castsi512_si256(bytes), _mm512_castsi512_si256(next), _mm512_castsi512_si256(after));
        let (high, high_in_run) = half(
            _mm512_extracti64x4_epi64::<1>(bytes),
            _mm512_extracti64x4_epi64::<1>(next),
            _mm512_extracti64x4_epi64::<1>(after),
        );
        let in_run = u64::from(low_in_run) | u64::from(high_in_run) << 32;
        let mapped = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low), high);
        let mut bytes_out = _mm512_mask_blend_epi8(ascii, mapped, bytes);
        // The other characters' starts, in order, up to one not in the index.
        let mut others = !(ascii | continuation | (lead & in_run));
        let mut stop = 64;
        while others != 0 {
            let at = others.trailing_zeros() as usize;
            let byte = index.byte_at(src, read + at);
            if byte == 0 {
                stop = at;
                break;
            }
            bytes_out = _mm512_mask_set1_epi8(bytes_out, 1 << at, byte as i8);
            others &= others - 1;
        }
        let keep = !continuation & lanes_below(stop);
        let n = keep.count_ones() as usize;
        // SAFETY: 64 writable bytes at `out`; the bytes kept only, so that nothing after
        // the output is written.
        unsafe { _mm512_mask_storeu_epi8(out.cast(), lanes_below(n), _mm512_maskz_compress_epi8(keep, bytes_out)) };
        written += n;
        if stop < 64 {
            read += stop;
            break;
        }
        // The continuation bytes of a character that starts in the step are taken
        // too, so that each step starts at a character.
        read = super::next_character(src, read + 64);
    }
    (read, written)
}

/// Encodes UTF-16 into a single-byte encoding, 32 units a step: ASCII as itself,
/// the index's run `start..start + len` as `unit - delta`, in 16-bit lanes narrowed
/// to bytes; any other unit from `index` (its byte in the index, or 0), one at a time,
/// into its lane. Returns the units read (as many bytes are written); it stops at the
/// first unit not in the index (a surrogate never is), where fewer than 32 units are
/// left, or 32 bytes of room, and writes nothing past the bytes it returns.
///
/// # Safety
/// The CPU must have the kernel's features: call it only where [`available`]
/// returned `true`.
#[target_feature(enable = "avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn linear_steps_from_utf16(
    src: &[u16],
    dst: &mut [u8],
    (start, len, delta): (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> usize {
    let limit = src.len().min(dst.len());
    let mut read = 0;
    let (start, len, delta) =
        (_mm512_set1_epi16(start as i16), _mm512_set1_epi16(len as i16), _mm512_set1_epi16(delta as i16));
    let prefetch = 2 * limit >= super::avx2_utf16::PREFETCH_FROM && super::x86_64::prefetch_pays();
    while read + 32 <= limit {
        if prefetch {
            super::avx2_utf16::prefetch_at(src.as_ptr().wrapping_add(read).cast());
        }
        // SAFETY: `src` holds the 32 units at `read`.
        let units = unsafe { _mm512_loadu_epi16(src.as_ptr().add(read).cast()) };
        let ascii = _mm512_cmplt_epu16_mask(units, _mm512_set1_epi16(0x80));
        let in_run = _mm512_cmplt_epu16_mask(_mm512_sub_epi16(units, start), len);
        let mut bytes = _mm512_cvtepi16_epi8(_mm512_mask_sub_epi16(units, in_run, units, delta));
        // The other units, in order, up to one not in the index.
        let mut others = !(ascii | in_run);
        let mut stop = 32;
        while others != 0 {
            let at = others.trailing_zeros() as usize;
            let byte = index.byte_of_unit(src[read + at]);
            if byte == 0 {
                stop = at;
                break;
            }
            bytes = _mm256_mask_set1_epi8(bytes, 1 << at, byte as i8);
            others &= others - 1;
        }
        // SAFETY: `dst` holds 32 bytes at `read`; the bytes kept only.
        unsafe { _mm256_mask_storeu_epi8(dst.as_mut_ptr().add(read).cast(), lanes_below(stop) as u32, bytes) };
        read += stop;
        if stop < 32 {
            break;
        }
    }
    read
}

/// The first `n` of 64 lanes.
#[inline(always)]
fn lanes_below(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// `units` with the two bytes of each 16-bit lane swapped.
#[inline]
#[target_feature(enable = "avx512bw")]
fn swap_bytes(units: __m512i) -> __m512i {
    _mm512_or_si512(_mm512_slli_epi16::<8>(units), _mm512_srli_epi16::<8>(units))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::scalar;
    use super::super::scalar::tests::Rng;
    use super::*;

    /// Every unit that is not a surrogate, at every lane, among neighbours of each
    /// length, against the scalar twin on the two halves.
    #[test]
    fn matches_scalar_for_every_unit_and_lane() {
        if !available() {
            return;
        }
        let neighbours: [[u16; 16]; 4] = [
            [0x41; 16],
            [0x3B1; 16],
            [0xD55C; 16],
            [
                0x41, 0x3B1, 0xD55C, 0x20, 0x7FF, 0x800, 0xFFFF, 0x80, 0x7F, 0xE000, 0x100, 0x0, 0xC4, 0x4E00, 0x1,
                0xFFFD,
            ],
        ];
        for unit in (0..=u16::MAX).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
            for (i, base) in neighbours.iter().enumerate() {
                let mut block = *base;
                block[unit as usize % 16] = unit;
                block[(unit as usize + 5 * i + 3) % 16] = unit;
                check(&block);
            }
        }
    }

    /// Random mixes of lengths.
    #[test]
    fn matches_scalar_for_random_mixes() {
        if !available() {
            return;
        }
        let by_length = [[0x41u16, 0x7F, 0x20, 0x0], [0x3B1, 0x80, 0x7FF, 0x5D0], [0xD55C, 0x800, 0xFFFF, 0xE000]];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            let block: [u16; 16] = core::array::from_fn(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                by_length[(state % 3) as usize][(state >> 8) as usize % 4]
            });
            check(&block);
        }
    }

    /// The steps of 32 units on random mixes of lengths, with a surrogate now and
    /// then, in both byte orders and with little room: what they read is the text
    /// before the first step with a surrogate (or too near the end or the room's),
    /// written as the standard library writes it, and nothing after it.
    #[test]
    fn steps_match_the_standard_library() {
        if !available() {
            return;
        }
        // SAFETY: the tests give `bmp_steps` `2 × len` bytes; the CPU has the features.
        check_bmp_steps(|src, len, swapped, out| unsafe { bmp_steps(src, len, swapped, out, 0) }, 32, 96, 0);
    }

    /// Long runs of three-byte units, so that the steps reach [`three_byte_step`],
    /// broken by one unit of each other kind (ASCII, two bytes, a surrogate) at every
    /// place of the first 400, in both byte orders, with room that runs out at a
    /// random place: what the steps read is written as the standard library writes it,
    /// and nothing after it; they stop only at the surrogate's step or for the end or
    /// the room.
    #[test]
    fn three_byte_runs_match_the_standard_library() {
        if !available() {
            return;
        }
        let mut rng = Rng(0x51_7CC1_B727_220A);
        let len = 2 * 32 * (THREE_BYTE_STEPS_BEFORE as usize + 4);
        for place in 0..400 {
            for other in [0x41u16, 0x3B1, 0xDC00] {
                let mut units: alloc::vec::Vec<u16> =
                    (0..len).map(|_| [0x800u16, 0x4E00, 0xD7FF, 0xE000, 0xFFFF][rng.below(5)]).collect();
                units[place] = other;
                let room = 96 + rng.below(len * 3);
                for swapped in [false, true] {
                    let bytes: alloc::vec::Vec<u8> =
                        units.iter().flat_map(|&u| if swapped { u.to_be_bytes() } else { u.to_le_bytes() }).collect();
                    let mut out = alloc::vec![0xAAu8; room + 64];
                    // SAFETY: `bytes` holds `2 × len` bytes; the CPU has the features.
                    let (read, written) = unsafe { bmp_steps(bytes.as_ptr(), len, swapped, &mut out[..room], 0) };
                    let text = alloc::string::String::from_utf16(&units[..read]).expect("no surrogate read");
                    assert_eq!(&out[..written], text.as_bytes(), "{place} {other:X} {swapped}");
                    assert!(out[written..].iter().all(|&b| b == 0xAA), "wrote past: {place} {other:X}");
                    let stopped_at_surrogate = other == 0xDC00 && read == place / 32 * 32;
                    assert!(
                        stopped_at_surrogate || len - read < 32 || room - written < 96,
                        "stopped early: {place} {other:X} {swapped}"
                    );
                }
            }
        }
    }

    /// [`steps_match_the_standard_library`] for steps of `step` units that want
    /// `room` bytes of room and may leave `scratch` bytes after their output.
    pub(in super::super) fn check_bmp_steps(
        steps: impl Fn(*const u8, usize, bool, &mut [u8]) -> (usize, usize),
        step: usize,
        room: usize,
        scratch: usize,
    ) {
        let by_length = [[0x41u16, 0x7F, 0x20, 0x0], [0x3B1, 0x80, 0x7FF, 0x5D0], [0xD55C, 0x800, 0xFFFF, 0xE000]];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..20_000 {
            let len = step + round % 200;
            let units: alloc::vec::Vec<u16> = (0..len)
                .map(|_| {
                    let state = rng.next();
                    if state.is_multiple_of(512) {
                        0xD800 | (state >> 20) as u16 & 0x7FF
                    } else {
                        by_length[(state % 3) as usize][(state >> 8) as usize % 4]
                    }
                })
                .collect();
            // ASCII now and then, so that whole steps are; units of one and two bytes
            // only now and then, for the steps of two bytes a unit; units of three
            // bytes only now and then, for the steps of three.
            let units: alloc::vec::Vec<u16> = units
                .iter()
                .map(|&u| match (round % 4, u) {
                    (_, 0xD800..=0xDFFF) => u,
                    (0, _) => u & 0x7F,
                    (1, 0x800..) => (u & 0x7FF) | 0x80,
                    (3, ..0x800) if round % 8 == 3 => u | 0x800,
                    _ => u,
                })
                .collect();
            let out_len = room + round % 400;
            for swapped in [false, true] {
                let bytes: alloc::vec::Vec<u8> =
                    units.iter().flat_map(|&u| if swapped { u.to_be_bytes() } else { u.to_le_bytes() }).collect();
                let mut out = alloc::vec![0xAAu8; out_len + 64];
                let (read, written) = steps(bytes.as_ptr(), len, swapped, &mut out[..out_len]);
                assert_eq!(read % step, 0);
                let text = alloc::string::String::from_utf16(&units[..read]).expect("no surrogate read");
                assert_eq!(&out[..written], text.as_bytes(), "{round} {swapped}");
                assert!(out[(written + scratch).min(out_len)..].iter().all(|&b| b == 0xAA), "wrote past: {round}");
                let next = &units[read..len.min(read + step)];
                let stopped_for_room = out_len - written < room;
                assert!(
                    next.len() < step || stopped_for_room || next.iter().any(|u| (0xD800..=0xDFFF).contains(u)),
                    "stopped early: {round} {swapped}"
                );
            }
        }
    }

    /// The single-byte table steps, on random bytes (with runs of ASCII) through
    /// random tables of units of every length with a few nulls: what they read is
    /// decoded as the table says, up to the first null (or to the step with it, for
    /// UTF-8), and they stop only there or near the end of the input or the room.
    #[test]
    fn table_steps_match_the_table() {
        if !available() {
            return;
        }
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let mut next = move || rng.next();
        for round in 0..2_000 {
            let mut table = [0u16; 256];
            for (byte, unit) in table.iter_mut().enumerate() {
                *unit = match (byte, next() % 16) {
                    (0..0x80, _) => byte as u16,
                    (_, 0) if round % 2 == 0 => 0,
                    (_, 1..=5) => 0x80 + (next() % 0x780) as u16,
                    (_, 6..=9) => 0x800 + (next() % 0xD000) as u16,
                    _ => 0xE000 + (next() % 0x2000) as u16,
                };
                if *unit == 0 && byte >= 0x80 && round % 2 == 1 {
                    *unit = 0xFFFD;
                }
            }
            let len = 32 + (next() % 300) as usize;
            let bytes: alloc::vec::Vec<u8> = (0..len)
                .map(|i| if (i / 40 + round) % 3 == 0 { (next() % 0x80) as u8 } else { next() as u8 })
                .collect();
            let first_null = bytes.iter().position(|&b| b >= 0x80 && table[b as usize] == 0).unwrap_or(len);
            let expected: alloc::vec::Vec<u16> = bytes.iter().map(|&b| table[b as usize]).collect();

            let mut units = alloc::vec![0u16; len];
            // SAFETY: the CPU has the features, as checked above.
            let read = unsafe { table_steps_to_utf16(&bytes, &mut units, &table) };
            assert_eq!(units[..read], expected[..read], "{round}");
            assert!(read == first_null || (read < first_null && read + 32 > len), "{round}: {read} {first_null}");

            let room = 96 + (next() % 700) as usize;
            let mut out = alloc::vec![0xAAu8; room];
            // SAFETY: as above.
            let (read, written) = unsafe { table_steps_to_utf8(&bytes, &mut out, &table) };
            assert!(read <= first_null && read % 32 == 0, "{round}");
            let text = alloc::string::String::from_utf16(&expected[..read]).expect("no surrogates");
            assert_eq!(&out[..written], text.as_bytes(), "{round}");
            assert!(out[written..].iter().all(|&b| b == 0xAA), "wrote past the output: {round}");
            assert!(read + 32 > first_null || read + 32 > len || room - written < 96, "stopped early: {round}");
        }
    }

    /// The steps from UTF-8 into a single-byte encoding (see
    /// `scalar::tests::check_utf8_single_byte_steps`): nothing written past them.
    #[test]
    fn linear_steps_from_utf8_match_the_run() {
        if !available() {
            return;
        }
        scalar::tests::check_utf8_single_byte_steps(64, 0, |src, out, run, table, wide| {
            // SAFETY: the CPU has the features, as checked above.
            unsafe {
                if wide {
                    linear_steps_from_utf8::<true>(src, out, run, table)
                } else {
                    linear_steps_from_utf8::<false>(src, out, run, table)
                }
            }
        });
    }

    /// The steps from UTF-16 into a single-byte encoding, on random units: ASCII,
    /// the run's (Latin-1's or Cyrillic's), the table's others (U+0100, U+20AC) and
    /// units in neither (surrogates among them), at every length around the steps
    /// and every room: what they read is encoded as the run and the table say, they
    /// stop at the first unit in neither or near the end of the input or the room,
    /// and they write nothing past what they return.
    #[test]
    fn linear_steps_from_utf16_match_the_run() {
        if !available() {
            return;
        }
        // SAFETY: the CPU has the features, as just checked.
        check_linear_steps_from_utf16(
            |units, out, run, table| unsafe { linear_steps_from_utf16(units, out, run, table) },
            0,
        );
    }

    /// The index of [`check_linear_steps_from_utf16`]: U+0100 and U+20AC besides the run.
    pub(in super::super) struct Table;
    impl super::super::ByteLookup for Table {
        fn byte_at(&self, _: &[u8], _: usize) -> u8 {
            unreachable!("only units are asked")
        }
        fn byte_of_unit(&self, unit: u16) -> u8 {
            if unit == 0x100 || unit == 0x20AC { 0x80 + (unit % 0x7F) as u8 } else { 0 }
        }
    }

    /// [`linear_steps_from_utf16_match_the_run`] for the steps `steps`, which may
    /// write `scratch` bytes past what they return.
    pub(in super::super) fn check_linear_steps_from_utf16(
        steps: impl Fn(&[u16], &mut [u8], (u16, u16, u16), &Table) -> usize,
        scratch: usize,
    ) {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let mut next = move || rng.next();
        for round in 0..4_000u64 {
            let (start, len, delta) = [(0xA0u16, 96u16, 0u16), (0x410, 64, 0x350)][(round % 2) as usize];
            let rarity = [3, 30, 300, 1_000_000][(round / 2 % 4) as usize];
            let units: alloc::vec::Vec<u16> = (0..next() % 200)
                .map(|_| {
                    let pick = next();
                    if pick % rarity == 0 {
                        [0xD800, 0xDFFF, start - 1, start + len, 0xFFFF][(pick / 7 % 5) as usize]
                    } else {
                        match pick % 4 {
                            0 => start + (pick >> 8) as u16 % len,
                            1 => [0x100, 0x20AC][(pick >> 8) as usize % 2],
                            _ => (pick >> 8) as u16 % 0x80,
                        }
                    }
                })
                .collect();
            let room = (next() % 220) as usize;
            let mut out = alloc::vec![0xAAu8; room + 32];
            let read = steps(&units, &mut out[..room], (start, len, delta), &Table);
            let byte = |unit: u16| match unit {
                0..0x80 => unit as u8,
                _ if unit.wrapping_sub(start) < len => (unit - delta) as u8,
                _ => super::super::ByteLookup::byte_of_unit(&Table, unit),
            };
            let stop = units.iter().position(|&unit| unit >= 0x80 && byte(unit) == 0).unwrap_or(units.len());
            let expected: alloc::vec::Vec<u8> = units[..read.min(stop)].iter().map(|&unit| byte(unit)).collect();
            assert!(read <= stop, "{round}: {read} {stop}");
            assert_eq!(out[..read], expected[..], "{round}");
            assert!(out[(read + scratch).min(room)..].iter().all(|&b| b == 0xAA), "wrote past the output: {round}");
            assert!(read == stop || read + 32 > units.len().min(room), "stopped early: {round}");
        }
    }

    fn check(block: &[u16; 16]) {
        let mut out = [0xAAu8; 64];
        // SAFETY: the tests call `check` only where `available()` is true.
        let n = unsafe { units_to_utf8(block, &mut out) };
        let mut expected = [0u8; 64];
        let mut first = [0u8; 32];
        let a = scalar::block_to_utf8(block[..8].try_into().unwrap(), &mut first);
        expected[..a].copy_from_slice(&first[..a]);
        let b = scalar::block_to_utf8(block[8..].try_into().unwrap(), &mut first);
        expected[a..a + b].copy_from_slice(&first[..b]);
        assert_eq!(n, a + b, "{block:04X?}");
        assert_eq!(out[..n], expected[..n], "{block:04X?}");
        assert!(out[n..].iter().all(|&b| b == 0xAA), "wrote past the output: {block:04X?}");
    }
}
