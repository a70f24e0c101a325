//! UTF-16 → UTF-8 with AVX2, chosen at run time (with `std`) where the CPU has AVX2
//! and POPCNT, the cap on the tier allows AVX2, and the AVX-512 kernel
//! ([`super::avx512_utf16`]) does not run: [`bmp_steps`] takes 16 code units a
//! step, ahead of the SSSE3 loops of `utf16_to_utf8`, as the AVX-512 steps do with
//! 32.
//!
//! A step of ASCII is narrowed. A step of units below 0x800 makes two bytes of each
//! unit in its 16-bit lane (the second dropped for ASCII), packed by a byte shuffle
//! (`pshufb`) per eight units, a row of [`TWO_BYTE_SHUFFLES`] chosen by which of them
//! are not ASCII. A step with longer units works out each unit's first two bytes in
//! its 16-bit lane and its third in another vector, interleaves them into 32-bit lanes
//! that hold each unit's one to three bytes, and packs them per four units by a row of
//! [`THREE_BYTE_SHUFFLES`] chosen by their lengths, or, where all sixteen take three
//! bytes, by one fixed shuffle. The twin is [`super::scalar::block_to_utf8`], and the
//! tests compare the steps with the standard library.
//!
//! [`table_steps_to_utf16`] and [`table_steps_to_utf8`] decode single-byte encodings
//! 32 bytes a step, the twins of `avx512_utf16`'s: each byte's unit is looked up by
//! its low nibble in eight tables of sixteen (one `pshufb` for the unit's low byte and
//! one for its high byte in each), and bits 4 to 6 of the byte pick the table.

use core::arch::x86_64::{
    __m256i, _mm_loadu_si128, _mm_storeu_si128, _mm256_add_epi16, _mm256_and_si256, _mm256_andnot_si256,
    _mm256_blendv_epi8, _mm256_castsi128_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_cmpeq_epi16,
    _mm256_cmpgt_epi16, _mm256_cvtepi8_epi16, _mm256_cvtepu8_epi16, _mm256_extracti128_si256, _mm256_inserti128_si256,
    _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_packs_epi16, _mm256_packus_epi16,
    _mm256_permute2x128_si256, _mm256_permute4x64_epi64, _mm256_set1_epi8, _mm256_set1_epi16, _mm256_setr_epi8,
    _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_srli_epi16, _mm256_storeu_si256,
    _mm256_sub_epi8, _mm256_sub_epi16, _mm256_subs_epu8, _mm256_subs_epu16, _mm256_testz_si256, _mm256_unpackhi_epi8,
    _mm256_unpackhi_epi16, _mm256_unpacklo_epi8, _mm256_unpacklo_epi16,
};

/// Whether this kernel runs: the cap on the tier ([`crate::tier`]) allows AVX2, and
/// the CPU has AVX2 and POPCNT (`std` caches the answer; without `std`, only when the
/// build targets them).
#[inline(always)]
pub(crate) fn available() -> bool {
    super::avx2::available() && super::cpu_has!("popcnt")
}

/// The room a step wants in `dst`: its 48 bytes at most, and the whole vectors it
/// stores (the last one from byte 36 at most).
const ROOM: usize = 64;

/// Asks the CPU to fetch the cache line [`super::x86_64::PREFETCH_DISTANCE`] bytes
/// past `p` (see `super::x86_64::prefetch_ahead`), for the AVX2 steps (here and in
/// `avx2_utf8`) where `super::x86_64::prefetch_pays` (on Intel's CPUs and AMD's
/// family 17h) and the input has [`PREFETCH_FROM`] bytes or more: the hardware
/// prefetchers stop at each 4 KiB page, and the steps read faster than they fetch
/// from memory. AVX2 tier, rotating, `Intel Xeon` Emerald Rapids, µs, without → with: UTF-16 → windows-1252 en.html
/// 188.7 → 119.9, pt.html 159.6 → 93.2; windows-1258 → UTF-16 vi.html 164.7 →
/// 135.3; windows-1250 → `String` cs.html 92.3 → 76.8; UTF-8 → UTF-16 en.html 72.1 →
/// 66.5, cs.html 84.9 → 75.8, ru.txt 46.4 → 43.2; UTF-16 → UTF-8 (in runs of ASCII
/// only) en.html 145.0 → 118.6, ru.html 235.3 → 178.8.
#[inline(always)]
pub(super) fn prefetch_at(p: *const u8) {
    use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: a prefetch reads nothing that the program sees and never faults,
    // wherever the address points.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(super::x86_64::PREFETCH_DISTANCE).cast()) };
}

/// The inputs (in bytes) from which the steps prefetch ([`prefetch_at`]); shorter
/// ones stay in L2 between calls, and UTF-16 → UTF-8 of zh_cn.txt (20 KB), with a
/// prefetch in each step of `bmp_steps`, took 9.6 µs against 8.9 without (which is
/// why those steps prefetch in runs of ASCII only).
pub(super) const PREFETCH_FROM: usize = 32 << 10;

/// For each 8-bit mask of the units of eight that are not ASCII, the `pshufb` indexes
/// that gather their UTF-8 bytes from their 16-bit lanes (first byte low): the low
/// byte of each lane, and the high one of those in the mask (zeros after them).
static TWO_BYTE_SHUFFLES: [[u8; 16]; 256] = {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut unit, mut kept) = (0, 0);
        while unit < 8 {
            table[mask][kept] = 2 * unit as u8;
            kept += 1;
            if mask >> unit & 1 != 0 {
                table[mask][kept] = 2 * unit as u8 + 1;
                kept += 1;
            }
            unit += 1;
        }
        mask += 1;
    }
    table
};

/// For four units in 32-bit lanes (their bytes first lowest), by which are below
/// 0x80 (bits 0 to 3) and which below 0x800 (bits 4 to 7): the `pshufb` indexes that
/// gather their one, two or three bytes (zeros after them).
static THREE_BYTE_SHUFFLES: [[u8; 16]; 256] = {
    let mut table = [[0x80u8; 16]; 256];
    let mut index = 0;
    while index < 256 {
        let (mut unit, mut kept) = (0, 0);
        while unit < 4 {
            let len = if index >> unit & 1 != 0 {
                1
            } else if index >> (4 + unit) & 1 != 0 {
                2
            } else {
                3
            };
            let mut byte = 0;
            while byte < len {
                table[index][kept] = (4 * unit + byte) as u8;
                kept += 1;
                byte += 1;
            }
            unit += 1;
        }
        index += 1;
    }
    table
};

/// Code units, 16 a step, to UTF-8 at the start of `dst`, up to the first step with
/// a surrogate, while `dst` has room for 64 bytes and `min_room` more (at most 8)
/// before a step; returns (units read, bytes written). Whole vectors are stored: up to
/// 12 bytes past the bytes written may be scratch. The units are the `len` at `src`,
/// in the CPU's byte order or (`swapped`) the other.
///
/// # Safety
/// `src` must hold `2 × len` readable bytes; the CPU must have AVX2 and POPCNT: call
/// it only where [`available`] returned `true`.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn bmp_steps(
    src: *const u8,
    len: usize,
    swapped: bool,
    dst: &mut [u8],
    min_room: usize,
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    let set = _mm256_set1_epi16;
    #[rustfmt::skip]
    let swap = _mm256_setr_epi8(
        1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14,
        1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14,
    );
    let prefetch = 2 * len >= PREFETCH_FROM && super::x86_64::prefetch_pays();
    while read + 16 <= len && dst.len() - written >= ROOM + min_room {
        // SAFETY: `read + 16 <= len` units are readable (the caller's precondition).
        let mut units = unsafe { _mm256_loadu_si256(src.add(2 * read).cast()) };
        if swapped {
            units = _mm256_shuffle_epi8(units, swap);
        }
        let out = dst[written..].as_mut_ptr();
        if _mm256_testz_si256(units, set(0xFF80u16 as i16)) != 0 {
            // The packs work within 128-bit lanes: the eight bytes of each, in order.
            let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(units, units));
            // SAFETY: `dst` has room for 64 bytes from `written`.
            unsafe { _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(bytes)) };
            read += 16;
            written += 16;
            // A run of ASCII, 32 units a step while it lasts.
            while read + 32 <= len && dst.len() - written >= ROOM + min_room {
                if prefetch {
                    prefetch_at(src.wrapping_add(2 * read));
                }
                // SAFETY: `read + 32 <= len` units are readable.
                let (mut a, mut b) = unsafe {
                    (_mm256_loadu_si256(src.add(2 * read).cast()), _mm256_loadu_si256(src.add(2 * read + 32).cast()))
                };
                if swapped {
                    (a, b) = (_mm256_shuffle_epi8(a, swap), _mm256_shuffle_epi8(b, swap));
                }
                if _mm256_testz_si256(_mm256_or_si256(a, b), set(0xFF80u16 as i16)) == 0 {
                    break;
                }
                let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(a, b));
                // SAFETY: `dst` has room for 64 bytes from `written`.
                unsafe { _mm256_storeu_si256(dst[written..].as_mut_ptr().cast(), bytes) };
                read += 32;
                written += 32;
            }
            continue;
        }
        let surrogates = _mm256_cmpeq_epi16(_mm256_and_si256(units, set(0xF800u16 as i16)), set(0xD800u16 as i16));
        if _mm256_movemask_epi8(surrogates) != 0 {
            break;
        }
        // SAFETY: `dst` has room for 64 bytes from `written`; the CPU has AVX2 and
        // POPCNT (this function enables them).
        written += unsafe { step_to_utf8(units, out) };
        read += 16;
    }
    (read, written)
}

/// Sixteen code units (none a surrogate) to UTF-8 at `out`; returns the bytes
/// written (at most 48; whole vectors stored, the last from byte 36 at most).
///
/// # Safety
/// `out` must have room for 64 bytes; the CPU must have AVX2 and POPCNT.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn step_to_utf8(units: __m256i, out: *mut u8) -> usize {
    let set = _mm256_set1_epi16;
    // Units are below 0x8000 or surrogates (none here) or above: as `i16`, those
    // above are negative, so signed compares take them as long.
    let wide = _mm256_cmpgt_epi16(units, set(0x7F));
    let long = _mm256_or_si256(_mm256_cmpgt_epi16(units, set(0x7FF)), _mm256_cmpgt_epi16(set(0), units));
    if _mm256_testz_si256(long, long) != 0 {
        // Two bytes a unit, first byte lowest: the unit itself where ASCII (only the
        // first kept), else C0 | its high five bits, then 80 | its low six.
        let first = _mm256_blendv_epi8(units, _mm256_or_si256(_mm256_srli_epi16::<6>(units), set(0xC0)), wide);
        let second = _mm256_or_si256(_mm256_and_si256(units, set(0x3F)), set(0x80));
        let words = _mm256_or_si256(first, _mm256_slli_epi16::<8>(second));
        // One bit per unit: the compare's lanes packed to bytes, within each 128-bit
        // lane (its eight units, twice).
        let wide = _mm256_movemask_epi8(_mm256_packs_epi16(wide, wide)) as u32;
        let (low, high) = ((wide & 0xFF) as usize, (wide >> 16 & 0xFF) as usize);
        // SAFETY: the table's rows have 16 bytes; `out` has room for 64 bytes, of
        // which this writes 32 at most.
        unsafe {
            let shuffle = _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(TWO_BYTE_SHUFFLES[low].as_ptr().cast())),
                _mm_loadu_si128(TWO_BYTE_SHUFFLES[high].as_ptr().cast()),
            );
            let packed = _mm256_shuffle_epi8(words, shuffle);
            let in_low = 8 + low.count_ones() as usize;
            _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(packed));
            _mm_storeu_si128(out.add(in_low).cast(), _mm256_extracti128_si256::<1>(packed));
            return in_low + 8 + high.count_ones() as usize;
        }
    }
    // Each unit's first two bytes in its 16-bit lane (first byte lowest), its third
    // in `third`, worked out in 16-bit lanes; interleaved into 32-bit lanes (within
    // each 128-bit lane: units 0 to 3 and 8 to 11 in `first_words`, 4 to 7 and 12 to
    // 15 in `second_words`), which a shuffle per four units packs.
    let low6 = _mm256_or_si256(_mm256_and_si256(units, set(0x3F)), set(0x80));
    let lead3 = _mm256_or_si256(_mm256_srli_epi16::<12>(units), set(0xE0));
    let middle6 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16::<6>(units), set(0x3F)), set(0x80));
    let three = _mm256_or_si256(lead3, _mm256_slli_epi16::<8>(middle6));
    if _mm256_movemask_epi8(long) == -1 {
        // Sixteen three-byte sequences (CJK text, or bytes of other text taken for
        // UTF-16): one fixed shuffle per four units, no table.
        #[rustfmt::skip]
        let pack = _mm256_setr_epi8(
            0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
            0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
        );
        let first = _mm256_shuffle_epi8(_mm256_unpacklo_epi16(three, low6), pack);
        let second = _mm256_shuffle_epi8(_mm256_unpackhi_epi16(three, low6), pack);
        // SAFETY: `out` has room for 64 bytes; the stores end by byte 52.
        unsafe {
            _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(first));
            _mm_storeu_si128(out.add(12).cast(), _mm256_castsi256_si128(second));
            _mm_storeu_si128(out.add(24).cast(), _mm256_extracti128_si256::<1>(first));
            _mm_storeu_si128(out.add(36).cast(), _mm256_extracti128_si256::<1>(second));
        }
        return 48;
    }
    let zero = _mm256_setzero_si256();
    let below_0x80 = _mm256_cmpeq_epi16(_mm256_and_si256(units, set(0xFF80u16 as i16)), zero);
    let below_0x800 = _mm256_cmpeq_epi16(_mm256_and_si256(units, set(0xF800u16 as i16)), zero);
    let two = _mm256_or_si256(_mm256_or_si256(_mm256_srli_epi16::<6>(units), set(0xC0)), _mm256_slli_epi16::<8>(low6));
    let firsts = _mm256_blendv_epi8(_mm256_blendv_epi8(three, two, below_0x800), units, below_0x80);
    let (first_words, second_words) = (_mm256_unpacklo_epi16(firsts, low6), _mm256_unpackhi_epi16(firsts, low6));
    // Per 128-bit lane, the bits of its eight units below 0x80, then those below
    // 0x800; a table's index takes four of each.
    let masks = _mm256_movemask_epi8(_mm256_packs_epi16(below_0x80, below_0x800)) as u32;
    let index = |unit: u32| {
        let shift = unit / 8 * 16 + unit % 8;
        (masks >> shift & 0xF | (masks >> (shift + 8) & 0xF) << 4) as usize
    };
    let (a, b, c, d) = (index(0), index(4), index(8), index(12));
    let bytes = |index: usize| 12 - (index & 0xF).count_ones() as usize - (index >> 4).count_ones() as usize;
    // SAFETY: the table's rows have 16 bytes; `out` has room for 64 bytes, and the
    // stores start at byte 36 at most (three groups of 12 before).
    unsafe {
        let rows = |first: usize, second: usize| {
            _mm256_inserti128_si256::<1>(
                _mm256_castsi128_si256(_mm_loadu_si128(THREE_BYTE_SHUFFLES[first].as_ptr().cast())),
                _mm_loadu_si128(THREE_BYTE_SHUFFLES[second].as_ptr().cast()),
            )
        };
        let first = _mm256_shuffle_epi8(first_words, rows(a, c));
        let second = _mm256_shuffle_epi8(second_words, rows(b, d));
        let mut written = 0;
        _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(first));
        written += bytes(a);
        _mm_storeu_si128(out.add(written).cast(), _mm256_castsi256_si128(second));
        written += bytes(b);
        _mm_storeu_si128(out.add(written).cast(), _mm256_extracti128_si256::<1>(first));
        written += bytes(c);
        _mm_storeu_si128(out.add(written).cast(), _mm256_extracti128_si256::<1>(second));
        written + bytes(d)
    }
}

/// The units of the bytes 0x80 to 0xFF of a single-byte encoding's table, for
/// [`table_units`]: their low bytes and their high bytes, 16 to a vector (the same
/// in both 128-bit lanes), the bytes 0x80 + 16 × k to 0x8F + 16 × k in `low[k]` and
/// `high[k]`.
struct Tables {
    low: [__m256i; 8],
    high: [__m256i; 8],
}

/// The [`Tables`] of a single-byte encoding's `table` (a code unit for each byte, 0
/// for null).
#[inline]
#[target_feature(enable = "avx2")]
fn load_tables(table: &[u16; 256]) -> Tables {
    // In each 128-bit lane of eight units, their low bytes, then their high bytes.
    #[rustfmt::skip]
    let split = _mm256_setr_epi8(
        0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
        0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
    );
    let (mut low, mut high) = ([_mm256_setzero_si256(); 8], [_mm256_setzero_si256(); 8]);
    for k in 0..8 {
        // SAFETY: this reads the 16 units from 0x80 + 16 × k <= 0xF0.
        let units = unsafe { _mm256_loadu_si256(table.as_ptr().add(0x80 + 16 * k).cast()) };
        // The low bytes of the 16 units in the first lane, their high bytes in the
        // second.
        let planes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_shuffle_epi8(units, split));
        low[k] = _mm256_permute2x128_si256::<0x00>(planes, planes);
        high[k] = _mm256_permute2x128_si256::<0x11>(planes, planes);
    }
    Tables { low, high }
}

/// The code units of 32 bytes of a single-byte encoding through `tables` (ASCII is
/// itself): the first and the last 16, and a bit for each byte that is null (not
/// ASCII, unit 0). Each byte's low nibble looks up its unit's low and high byte in
/// the eight tables (`pshufb`), and bits 4, 5 and 6 pick among the eight (three
/// levels of blends).
#[inline]
#[target_feature(enable = "avx2")]
fn table_units(bytes: __m256i, tables: &Tables) -> (__m256i, __m256i, u32) {
    let nibbles = _mm256_and_si256(bytes, _mm256_set1_epi8(0x0F));
    // Bits 4, 5 and 6 of each byte moved to its sign bit, which `vpblendvb` reads (the
    // 16-bit shifts carry bits across bytes only below a byte's sign bit).
    let bit = [_mm256_slli_epi16::<3>(bytes), _mm256_slli_epi16::<2>(bytes), _mm256_slli_epi16::<1>(bytes)];
    let look = |planes: &[__m256i; 8]| {
        let pairs: [__m256i; 4] = core::array::from_fn(|k| {
            _mm256_blendv_epi8(
                _mm256_shuffle_epi8(planes[2 * k], nibbles),
                _mm256_shuffle_epi8(planes[2 * k + 1], nibbles),
                bit[0],
            )
        });
        let quads = [_mm256_blendv_epi8(pairs[0], pairs[1], bit[1]), _mm256_blendv_epi8(pairs[2], pairs[3], bit[1])];
        _mm256_blendv_epi8(quads[0], quads[1], bit[2])
    };
    // Where every byte that is not ASCII is 0xC0 or more (bit 6 set, which `bit[2]`
    // holds in the sign bit: Cyrillic in KOI8-R, Greek, Hebrew, Arabic), the last
    // four tables only, by bits 4 and 5: half the shuffles and blends. → UTF-16, AVX2
    // tier, rotating, `AMD EPYC` Zen 1, time as a share of encoding_rs's: KOI8-R
    // ru.txt 0.22 → 0.15, ru.html 0.41 → 0.34, windows-1256 ar.txt 0.25 → 0.18,
    // windows-1255 he.txt 0.108 → 0.097, windows-874 th.txt 0.41 → 0.37.
    let upper = |planes: &[__m256i; 8]| {
        let pairs: [__m256i; 2] = core::array::from_fn(|k| {
            _mm256_blendv_epi8(
                _mm256_shuffle_epi8(planes[4 + 2 * k], nibbles),
                _mm256_shuffle_epi8(planes[5 + 2 * k], nibbles),
                bit[0],
            )
        });
        _mm256_blendv_epi8(pairs[0], pairs[1], bit[1])
    };
    let (low, high) = if _mm256_movemask_epi8(_mm256_andnot_si256(bit[2], bytes)) == 0 {
        (upper(&tables.low), upper(&tables.high))
    } else {
        (look(&tables.low), look(&tables.high))
    };
    let zero = _mm256_setzero_si256();
    let null =
        _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(low, high), zero), bytes)) as u32;
    // ASCII bytes as themselves: the byte, and a high byte of zero.
    let (low, high) = (_mm256_blendv_epi8(bytes, low, bytes), _mm256_blendv_epi8(zero, high, bytes));
    // The unpacks work within 128-bit lanes: units 0–7 and 16–23, then 8–15 and 24–31.
    let (first, second) = (_mm256_unpacklo_epi8(low, high), _mm256_unpackhi_epi8(low, high));
    (_mm256_permute2x128_si256::<0x20>(first, second), _mm256_permute2x128_si256::<0x31>(first, second), null)
}

/// Decodes bytes of a single-byte encoding (`table`: a code unit for each byte, 0 for
/// null) to UTF-16, 32 a step while 32 are left and fit in `dst`, up to the first
/// null byte; returns the bytes read. The step with the null byte is stored whole
/// (its units after the null are scratch, inside `dst`). The twin of
/// `avx512_utf16::table_steps_to_utf16`, with the SSE2 kernel's short cut: a step of
/// bytes that are ASCII or in `start..start + len` (as `byte + delta`, the index's
/// run: Latin-1's letters, Cyrillic's) is decoded without the tables.
///
/// # Safety
/// The CPU must have AVX2 and POPCNT: call it only where [`available`] returned
/// `true`.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn table_steps_to_utf16(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    run: (u8, u8, u16),
) -> usize {
    // SAFETY (both): the caller's precondition.
    if run.2 == 0 {
        unsafe { table_steps_to_utf16_with::<true>(src, dst, table, run) }
    } else {
        unsafe { table_steps_to_utf16_with::<false>(src, dst, table, run) }
    }
}

/// [`table_steps_to_utf16`] for a run whose letters are their own units (`delta`
/// zero: Latin-1's, as in windows-1252) when `SAME`: a step of ASCII and the run's
/// letters then widens its bytes, as one of ASCII alone, without the run's mask
/// widened and added. windows-1252 → UTF-16, AVX2 tier, rotating, `AMD EPYC` Zen 1
/// (where each 256-bit operation is two), µs: en.txt 11.5 → 7.5, en.html 130 → 90,
/// de.txt 15.2 → 10.7, fr.txt 27.6 → 19.9; the SSE2 kernel, 7.0, 97, 22.2 and 37.4.
/// (The mask as a 16-bit comparison of the widened units, for the other runs,
/// measured no faster there: windows-1251 ru.txt 23.6 either way.)
///
/// # Safety
/// As [`table_steps_to_utf16`]'s.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn table_steps_to_utf16_with<const SAME: bool>(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    (start, len, delta): (u8, u8, u16),
) -> usize {
    // Made at the first step that needs them: short calls of the run's letters only
    // (French) need none. Pieces of 64 bytes, each a call (a new decoder), AVX2 tier,
    // rotating, `Intel Xeon` Emerald Rapids, µs, the SSE2 blocks → these steps:
    // windows-1252 → UTF-16 fr.txt 88.0 → 65.5, KOI8-R ru.txt 46.0 → 51.0; pieces of
    // 128 bytes 56.8 → 40.3 and 37.7 → 36.0.
    let mut tables = None;
    let zero = _mm256_setzero_si256();
    let (start, last, delta) =
        (_mm256_set1_epi8(start as i8), _mm256_set1_epi8(len.wrapping_sub(1) as i8), _mm256_set1_epi16(delta as i16));
    let prefetch = src.len() >= PREFETCH_FROM && super::x86_64::prefetch_pays();
    let mut read = 0;
    while read + 32 <= src.len() && read + 32 <= dst.len() {
        if prefetch {
            prefetch_at(src.as_ptr().wrapping_add(read));
        }
        // SAFETY: `src` holds 32 bytes from `read`.
        let bytes = unsafe { _mm256_loadu_si256(src.as_ptr().add(read).cast()) };
        let out = dst[read..].as_mut_ptr();
        let (low, high) = (_mm256_castsi256_si128(bytes), _mm256_extracti128_si256::<1>(bytes));
        // `byte - start < len` (unsigned) is `(byte - start) -sat (len - 1) == 0`.
        let in_run = _mm256_cmpeq_epi8(_mm256_subs_epu8(_mm256_sub_epi8(bytes, start), last), zero);
        if _mm256_movemask_epi8(_mm256_andnot_si256(in_run, bytes)) == 0 {
            // ASCII and the run's letters only.
            let (low, high) = (_mm256_cvtepu8_epi16(low), _mm256_cvtepu8_epi16(high));
            let (low, high) = if SAME {
                (low, high)
            } else {
                let add = |in_run| _mm256_and_si256(_mm256_cvtepi8_epi16(in_run), delta);
                let (low_run, high_run) = (_mm256_castsi256_si128(in_run), _mm256_extracti128_si256::<1>(in_run));
                (_mm256_add_epi16(low, add(low_run)), _mm256_add_epi16(high, add(high_run)))
            };
            // SAFETY: `dst` has room for 32 units from `read`.
            unsafe {
                _mm256_storeu_si256(out.cast(), low);
                _mm256_storeu_si256(out.add(16).cast(), high);
            }
            read += 32;
            continue;
        }
        let tables = tables.get_or_insert_with(|| load_tables(table));
        let (first, second, null) = table_units(bytes, tables);
        // SAFETY: `dst` has room for 32 units from `read`.
        unsafe {
            _mm256_storeu_si256(out.cast(), first);
            _mm256_storeu_si256(out.add(16).cast(), second);
        }
        if null != 0 {
            return read + null.trailing_zeros() as usize;
        }
        read += 32;
    }
    read
}

/// Whether most of the units of the bytes 0x80 to 0xFF of `table` are three bytes
/// long in UTF-8 (windows-874's Thai): then [`table_steps_to_utf8`] leaves the text
/// to the scalar kernel, which writes each byte's UTF-8 from its table one after
/// another. windows-874 → `String`, th.txt, AVX2 tier, rotating, `Intel Xeon`
/// Emerald Rapids: 45.4 µs with the scalar kernel, 56.7 with these steps.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
fn mostly_three_bytes(table: &[u16; 256]) -> bool {
    let long = (0..8).fold(0, |count, k| {
        // SAFETY: this reads the 16 units from 0x80 + 16 × k <= 0xF0.
        let units = unsafe { _mm256_loadu_si256(table.as_ptr().add(0x80 + 16 * k).cast()) };
        // Below 0x800 when nothing is left after subtracting 0x7FF (saturating).
        let short = _mm256_cmpeq_epi16(_mm256_subs_epu16(units, _mm256_set1_epi16(0x7FF)), _mm256_setzero_si256());
        count + 32 - _mm256_movemask_epi8(short).count_ones()
    });
    // Two bits a unit.
    long / 2 > 64
}

/// Decodes bytes of a single-byte encoding (`table` as for [`table_steps_to_utf16`];
/// `utf8`, each byte's UTF-8 as `super::scalar::decode_table_to_utf8` takes it) to
/// UTF-8, 32 a step while 32 are left and `dst` has room for 112 bytes, up to the
/// step with the first null byte; returns the bytes read and written. Whole vectors
/// are stored: up to 32 bytes past the bytes written may be scratch. The twin of
/// `avx512_utf16::table_steps_to_utf8`, but for two kinds of steps, where the
/// scalar kernel's ways measured faster: a step with one or two bytes that are not
/// ASCII (German, French) takes its ASCII bytes and the first other one, through
/// `utf8`; one whose units include three-byte ones (Thai) is decoded a byte at a
/// time through `utf8`. A step of ASCII and the index's run (`run`: start byte,
/// length, delta, as for `table_steps_to_utf16`), where the run's letters are two
/// bytes long in UTF-8, takes their units without the tables (→ `String`, AVX2
/// tier, rotating, `AMD EPYC` Zen 1, µs: windows-1251 ru.txt 78.8 → 66.6, ru.html
/// 330 → 298; French, German, Czech, Vietnamese, Greek within 2%; with Thai's run of
/// three-byte letters taken too, th.txt 95 → 103).
///
/// # Safety
/// As [`table_steps_to_utf16`]'s.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn table_steps_to_utf8(
    src: &[u8],
    dst: &mut [u8],
    table: &[u16; 256],
    utf8: &[u32; 256],
    (start, len, delta): (u8, u8, u16),
) -> (usize, usize) {
    // Made at the first step that needs them (see `table_steps_to_utf16`).
    let mut tables = None;
    let zero = _mm256_setzero_si256();
    // Steps of the run's letters through `step_to_utf8` where they are two bytes long
    // in UTF-8 (Cyrillic's, Greek's; not Thai's, see `mostly_three_bytes`).
    let run_steps = u32::from(start) + u32::from(len) + u32::from(delta) <= 0x800;
    let (start, last, delta) =
        (_mm256_set1_epi8(start as i8), _mm256_set1_epi8(len.wrapping_sub(1) as i8), _mm256_set1_epi16(delta as i16));
    let prefetch = src.len() >= PREFETCH_FROM && super::x86_64::prefetch_pays();
    let (mut read, mut written) = (0, 0);
    while read + 32 <= src.len() && dst.len() - written >= 48 + ROOM {
        if prefetch {
            prefetch_at(src.as_ptr().wrapping_add(read));
        }
        // SAFETY: `src` holds 32 bytes from `read`.
        let bytes = unsafe { _mm256_loadu_si256(src.as_ptr().add(read).cast()) };
        let out = dst[written..].as_mut_ptr();
        let wide = _mm256_movemask_epi8(bytes) as u32;
        // SAFETY: `dst` has room for 112 bytes from `written`.
        unsafe { _mm256_storeu_si256(out.cast(), bytes) };
        if wide == 0 {
            read += 32;
            written += 32;
            continue;
        }
        if wide.count_ones() <= 2 {
            // The ASCII bytes (stored above), then the first other byte.
            let ascii = wide.trailing_zeros() as usize;
            let entry = utf8[src[read + ascii] as usize];
            if entry == 0 {
                break;
            }
            read += ascii + 1;
            written += ascii;
            dst[written..written + 4].copy_from_slice(&entry.to_le_bytes());
            written += (entry >> 24) as usize;
            continue;
        }
        if run_steps {
            // `byte - start < len` (unsigned) is `(byte - start) -sat (len - 1) == 0`.
            let in_run = _mm256_cmpeq_epi8(_mm256_subs_epu8(_mm256_sub_epi8(bytes, start), last), zero);
            if _mm256_movemask_epi8(_mm256_andnot_si256(in_run, bytes)) == 0 {
                // ASCII and the run's letters only: their units as in
                // `table_steps_to_utf16`, then to UTF-8.
                let (low, high) = (_mm256_castsi256_si128(bytes), _mm256_extracti128_si256::<1>(bytes));
                let add = |in_run| _mm256_and_si256(_mm256_cvtepi8_epi16(in_run), delta);
                let (low_run, high_run) = (_mm256_castsi256_si128(in_run), _mm256_extracti128_si256::<1>(in_run));
                let first = _mm256_add_epi16(_mm256_cvtepu8_epi16(low), add(low_run));
                let second = _mm256_add_epi16(_mm256_cvtepu8_epi16(high), add(high_run));
                // SAFETY: as below.
                unsafe {
                    let n = step_to_utf8(first, out);
                    written += n + step_to_utf8(second, out.add(n));
                }
                read += 32;
                continue;
            }
        }
        let tables = match tables.as_ref() {
            Some(tables) => tables,
            None if mostly_three_bytes(table) => break,
            None => tables.insert(load_tables(table)),
        };
        let (first, second, null) = table_units(bytes, tables);
        if null != 0 {
            break;
        }
        let long = _mm256_set1_epi16(0xF800u16 as i16);
        if _mm256_testz_si256(_mm256_or_si256(first, second), long) == 0 {
            for &byte in &src[read..read + 32] {
                let entry = utf8[byte as usize];
                dst[written..written + 4].copy_from_slice(&entry.to_le_bytes());
                written += (entry >> 24) as usize;
            }
            read += 32;
            continue;
        }
        // SAFETY: `dst` has room for 112 bytes from `written`: the first 16 units
        // write 48 at most, and the second want 64 after those; the units of a
        // single-byte encoding are no surrogates; the CPU has AVX2 and POPCNT.
        unsafe {
            let n = step_to_utf8(first, out);
            written += n + step_to_utf8(second, out.add(n));
        }
        read += 32;
    }
    (read, written)
}

/// Encodes UTF-16 into a single-byte encoding, 32 units a step: ASCII as itself,
/// the index's run `start..start + len` as `unit - delta`, in 16-bit lanes packed to
/// bytes; any other unit from `index` (its byte in the index, or 0), one at a time,
/// written over its byte. Returns the units read (as many bytes are written); it
/// stops at the first unit not in the index (a surrogate never is), where fewer than
/// 32 units are left, or 32 bytes of room. The twin of
/// `avx512_utf16::linear_steps_from_utf16`, but for the bytes it stores past those
/// it returns: at most 16 (the step's first half only, when it stops there).
///
/// # Safety
/// The CPU must have AVX2 and POPCNT: call it only where [`available`] returned
/// `true`.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn linear_steps_from_utf16(
    src: &[u16],
    dst: &mut [u8],
    run: (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> usize {
    // SAFETY (both): the caller's precondition.
    if run.2 == 0 {
        unsafe { linear_steps_from_utf16_with::<true>(src, dst, run, index) }
    } else {
        unsafe { linear_steps_from_utf16_with::<false>(src, dst, run, index) }
    }
}

/// [`linear_steps_from_utf16`], for a run whose letters are their own units when
/// `SAME` (`delta` zero: windows-1252's): no subtraction. A step whose units are
/// all ASCII or the run's is stored at once, without the loop of the others; a step
/// with others is stored first and their bytes written over it (not gathered first
/// and written after the store, as they were). UTF-16 → windows-1252, AVX2 tier,
/// rotating, `AMD EPYC` Zen 1, µs: en.txt 17.0 → 14.1 with the early store, → 13.1
/// with `SAME` too; en.html 175 → 142 → 127, fr.txt 36.3 → 30.6 → 28.1, de.txt 20.3
/// → 17.1 → 15.6; then, the others written over the store: KOI8-R (whose run is a
/// letter alone) ru.txt 281 → 151 (the SSE2 kernel 167), ru.html 714 → 543 (466),
/// windows-1250 cs.txt 42.3 → 33.0, windows-1251 ru.txt 26.2 → 23.3.
///
/// # Safety
/// As [`linear_steps_from_utf16`]'s.
#[inline]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn linear_steps_from_utf16_with<const SAME: bool>(
    src: &[u16],
    dst: &mut [u8],
    (start, len, delta): (u16, u16, u16),
    index: &impl super::ByteLookup,
) -> usize {
    let limit = src.len().min(dst.len());
    let mut read = 0;
    let zero = _mm256_setzero_si256();
    // `unit - start < len` (unsigned) is `(unit - start) -sat (len - 1) == 0`.
    let (start, last, delta) = (
        _mm256_set1_epi16(start as i16),
        _mm256_set1_epi16(len.wrapping_sub(1) as i16),
        _mm256_set1_epi16(delta as i16),
    );
    let map = |units: __m256i| {
        let ascii = _mm256_cmpeq_epi16(_mm256_and_si256(units, _mm256_set1_epi16(0xFF80u16 as i16)), zero);
        let in_run = _mm256_cmpeq_epi16(_mm256_subs_epu16(_mm256_sub_epi16(units, start), last), zero);
        let units = if SAME { units } else { _mm256_sub_epi16(units, _mm256_and_si256(in_run, delta)) };
        (units, _mm256_or_si256(ascii, in_run))
    };
    let prefetch = 2 * limit >= PREFETCH_FROM && super::x86_64::prefetch_pays();
    while read + 32 <= limit {
        if prefetch {
            prefetch_at(src.as_ptr().wrapping_add(read).cast());
        }
        // SAFETY: `src` holds the 32 units at `read`.
        let (low, high) = unsafe {
            let p = src.as_ptr().add(read);
            (_mm256_loadu_si256(p.cast()), _mm256_loadu_si256(p.add(16).cast()))
        };
        let ((low, low_mapped), (high, high_mapped)) = (map(low), map(high));
        // The packs work within 128-bit lanes: put the quarters back in order.
        let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(low, high));
        let mapped = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(low_mapped, high_mapped));
        // The other units, in order, up to one not in the index.
        let mut others = !(_mm256_movemask_epi8(mapped) as u32);
        if others == 0 {
            // SAFETY: `dst` holds 32 bytes at `read`.
            unsafe { _mm256_storeu_si256(dst[read..].as_mut_ptr().cast(), bytes) };
            read += 32;
            continue;
        }
        // The step stored, its second half kept to be put back if the step stops in
        // its first (the bytes past those returned are at most 16), then the others'
        // bytes written over their places.
        let out = dst[read..].as_mut_ptr();
        // SAFETY: `dst` holds 32 bytes at `read`.
        let second = unsafe {
            let second = _mm_loadu_si128(out.add(16).cast());
            _mm256_storeu_si256(out.cast(), bytes);
            second
        };
        let mut stop = 32;
        while others != 0 {
            let at = others.trailing_zeros() as usize;
            let byte = index.byte_of_unit(src[read + at]);
            if byte == 0 {
                stop = at;
                break;
            }
            dst[read + at] = byte;
            others &= others - 1;
        }
        if stop < 16 {
            // SAFETY: as above.
            unsafe { _mm_storeu_si128(dst[read + 16..].as_mut_ptr().cast(), second) };
        }
        read += stop;
        if stop < 32 {
            break;
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::scalar::tests::Rng;

    /// The steps of 16 units, as the AVX-512 ones of 32 are tested, with at most 12
    /// bytes of scratch after their output.
    #[test]
    fn steps_match_the_standard_library() {
        if !available() {
            return;
        }
        // SAFETY: the tests give `bmp_steps` `2 × len` bytes; the CPU has the features.
        super::super::avx512_utf16::tests::check_bmp_steps(
            |src, len, swapped, out| unsafe { bmp_steps(src, len, swapped, out, 0) },
            16,
            ROOM,
            12,
        );
    }

    /// Every unit of the BMP but the surrogates, in steps of sixteen of one unit and
    /// fifteen others around it, at each place, as the standard library: fifteen ASCII
    /// ones; and for the units of three bytes, fifteen other three-byte ones (all
    /// three bytes: the fixed shuffle) and fifteen of two bytes (the shuffles chosen
    /// by the lengths).
    #[test]
    fn every_unit_at_every_place() {
        if !available() {
            return;
        }
        for neighbour in [0x61u16, 0x4E00, 0xFFFF, 0x800, 0x7FF, 0x80] {
            let mut units = [neighbour; 16];
            let least = if neighbour == 0x61 { 0x80 } else { 0x800 };
            for unit in (least..=0xFFFF).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
                let at = (unit % 16) as usize;
                units[at] = unit;
                let mut out = [0u8; 64];
                // SAFETY: `units` holds 32 bytes; the CPU has the features.
                let (read, written) = unsafe { bmp_steps(units.as_ptr().cast(), 16, false, &mut out, 0) };
                assert_eq!(read, 16);
                let text = alloc::string::String::from_utf16(&units).expect("no surrogate");
                assert_eq!(&out[..written], text.as_bytes(), "{unit:04X} among {neighbour:04X}");
                units[at] = neighbour;
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
        // The rounds whose UTF-8 steps took a step or more.
        let mut stepped = 0;
        for round in 0..2_000 {
            let mut table = [0u16; 256];
            for (byte, unit) in table.iter_mut().enumerate() {
                *unit = match (byte, next() % 16) {
                    (0..0x80, _) => byte as u16,
                    (_, 0) if round % 2 == 0 => 0,
                    (_, 1..=5) => 0x80 + (next() % 0x780) as u16,
                    (_, 6..=9) => 0x800 + (next() % 0xD000) as u16,
                    // Units whose low or high byte is zero, but not both.
                    (_, 10) => 0x100 * (1 + next() % 0xD7) as u16,
                    _ => 0xE000 + (next() % 0x2000) as u16,
                };
                if *unit == 0 && byte >= 0x80 && round % 2 == 1 {
                    *unit = 0xFFFD;
                }
            }
            // Most rounds with fewer three-byte units, so that the UTF-8 steps run
            // (see `mostly_three_bytes`).
            if round % 4 != 3 {
                for unit in table[0x80..].iter_mut().step_by(2).filter(|unit| **unit >= 0x800) {
                    *unit = 0x80 + *unit % 0x780;
                }
            }
            // The index's run: Latin-1's letters, Cyrillic's, or a byte alone.
            let run =
                [(0xA0u8, 0x60u8, 0u16), (0xC0, 0x40, 0x350), (0x80 + (round % 0x80) as u8, 1, 0x1234)][round % 3];
            for byte in run.0..=run.0 + (run.1 - 1) {
                table[byte as usize] = u16::from(byte) + run.2;
            }
            let len = 32 + (next() % 300) as usize;
            // ASCII and the run's bytes only, in some rounds, and ASCII and bytes from
            // 0xC0 only in others (the steps' short cut to the last four tables), as
            // well as all bytes.
            let bytes: alloc::vec::Vec<u8> = (0..len)
                .map(|i| match (i / 40 + round) % 3 {
                    0 => (next() % 0x80) as u8,
                    1 if round % 5 == 0 => run.0 + (next() % u64::from(run.1)) as u8,
                    1 if round % 5 == 1 => match next() as u8 {
                        byte @ 0x80..0xC0 => byte | 0x40,
                        byte => byte,
                    },
                    _ => next() as u8,
                })
                .collect();
            let first_null = bytes.iter().position(|&b| b >= 0x80 && table[b as usize] == 0).unwrap_or(len);
            // Each byte's UTF-8, least significant byte first, its length in the top
            // byte (0 for null).
            let utf8: [u32; 256] = core::array::from_fn(|byte| match table[byte] {
                0 if byte >= 0x80 => 0,
                unit => {
                    let text = alloc::string::String::from_utf16(&[unit]).expect("no surrogates");
                    let mut word = [0u8; 4];
                    word[..text.len()].copy_from_slice(text.as_bytes());
                    u32::from_le_bytes(word) | (text.len() as u32) << 24
                }
            });
            let expected: alloc::vec::Vec<u16> = bytes.iter().map(|&b| table[b as usize]).collect();

            let mut units = alloc::vec![0u16; len];
            // SAFETY: the CPU has the features, as checked above.
            let read = unsafe { table_steps_to_utf16(&bytes, &mut units, &table, run) };
            assert_eq!(units[..read], expected[..read], "{round}");
            assert!(read == first_null || (read < first_null && read + 32 > len), "{round}: {read} {first_null}");

            let room = 112 + (next() % 700) as usize;
            let mut out = alloc::vec![0xAAu8; room + 64];
            // SAFETY: as above.
            let (read, written) = unsafe { table_steps_to_utf8(&bytes, &mut out[..room], &table, &utf8, run) };
            assert!(read <= first_null, "{round}");
            stepped += usize::from(read >= 32);
            let text = alloc::string::String::from_utf16(&expected[..read]).expect("no surrogates");
            assert_eq!(&out[..written], text.as_bytes(), "{round}");
            assert!(out[(written + 32).min(room)..].iter().all(|&b| b == 0xAA), "wrote past: {round}");
            assert!(
                read + 32 > first_null
                    || read + 32 > len
                    || room - written < 112
                    // SAFETY: as above.
                    || unsafe { mostly_three_bytes(&table) },
                "stopped early: {round} {read} {first_null}"
            );
        }
        assert!(stepped > 1000, "{stepped}");
    }

    /// The steps from UTF-16 into a single-byte encoding, as the AVX-512 twin's are
    /// tested, with up to 16 bytes written past what they return.
    #[test]
    fn linear_steps_from_utf16_match_the_run() {
        if !available() {
            return;
        }
        // SAFETY: the CPU has the features, as just checked.
        super::super::avx512_utf16::tests::check_linear_steps_from_utf16(
            |units, out, run, table| unsafe { linear_steps_from_utf16(units, out, run, table) },
            16,
        );
    }
}
