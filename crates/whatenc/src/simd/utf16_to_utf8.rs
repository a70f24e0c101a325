//! UTF-16 → UTF-8 transcoding, branch-light: runs of ASCII code units go through the
//! bulk ASCII kernels, and the other units, with no branch on a unit's length,
//! through one of two loops, chosen once per call:
//! - chunks of 32 units in two passes ([`scalar::chunk_to_utf8`]: the bytes and
//!   lengths of the units computed in vector lanes, then stored at the running sum),
//!   the loop of the portable and SSE2 kernels, and of the SSSE3 and AVX-512 ones in
//!   text with few three-byte units;
//! - blocks of 8 (or 16) units through the shuffle kernels of SSSE3, AVX-512 and
//!   NEON, in CJK text and in text where ASCII runs and other units alternate.
//!
//! With AVX-512 the steps of 32 units of `avx512_utf16::bmp_steps` go first, and
//! these loops take what they leave; with AVX2 (and not those), the steps of 16
//! units of `avx2_utf16::bmp_steps`. AVX2 tier, rotating, `Intel Xeon` Emerald
//! Rapids, µs, the SSSE3 loops alone → after the steps: UTF-16 → UTF-8 zh_cn.txt
//! 14.0 → 9.0, ru.txt 39.6 → 19.5, cs.txt 24.4 → 17.3, vi.txt 84.0 → 53.5, en.txt
//! 7.4 → 6.1, en.html 99.9 → 85.4, de.html 69.9 → 68.8, ko.html 59.0 → 61.0;
//! UTF-16BE → `String` zh_cn.txt 16.6 → 10.3, cs.txt 27.9 → 19.3.
//!
//! The code units come from a `&[u16]` (the encoders' UTF-16 input) or from UTF-16
//! bytes in either byte order (the UTF-16BE/LE decoders' input), through [`Units`].

use super::BlockKernels;
use super::scalar::{self, LANES};

/// Code units to read, by index.
pub(crate) trait Units: Copy {
    /// Whether each unit's two bytes are swapped from the CPU's order (big-endian
    /// bytes on a little-endian CPU).
    const SWAPPED: bool = false;
    /// Copies the `out.len()` code units from `i` into `out` (`i + out.len() <= len`).
    #[inline(always)]
    fn units_into(self, i: usize, out: &mut [u16]) {
        for (k, unit) in out.iter_mut().enumerate() {
            *unit = self.unit(i + k);
        }
    }
    /// The number of whole code units.
    fn len(self) -> usize;
    /// The address of the units' bytes, in their order ([`Units::SWAPPED`]), for the
    /// kernels that load them whole.
    #[cfg_attr(any(not(target_arch = "x86_64"), whatenc_portable), allow(dead_code))]
    fn raw_ptr(self) -> *const u8;
    /// The units from `i` on (`i <= len`).
    fn from(self, i: usize) -> Self;
    /// The code unit at `i` (`i < len`).
    fn unit(self, i: usize) -> u16;
    /// The eight code units from `i` (`i + 8 <= len`).
    fn block(self, i: usize) -> [u16; 8];
    /// The sixteen code units from `i` (`i + 16 <= len`). (Not one method generic
    /// over the length: from a slice of 2 × N bytes, with no fixed-size array type
    /// on stable, the byte-order conversion is not vectorized; callgrind counted 50%
    /// more instructions for UTF-16 → `String`.)
    fn block16(self, i: usize) -> [u16; 16];
    /// The [`scalar::CHUNK_UNITS`] code units from `i` (`i + CHUNK_UNITS <= len`) in
    /// pairs: units `i + 2k` and `i + 2k + 1` in the low and the high half of word `k`.
    fn chunk(self, i: usize) -> [u32; scalar::CHUNK_UNITS / 2];
    /// Whether the [`WINDOW`] code units from `i` are all ASCII (`i + WINDOW <= len`),
    /// from the raw input, with no byte-order conversion.
    // Only the shuffle kernels' loops ask for it.
    #[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
    #[cfg_attr(whatenc_portable, allow(dead_code))]
    fn ascii_window(self, i: usize) -> bool;
    /// Narrows the run of ASCII code units from `i` into `dst` as far as it fits;
    /// returns the units copied. `K` is the loop's [`BlockKernels`] as a number.
    fn copy_ascii<const K: u8>(self, i: usize, dst: &mut [u8]) -> usize;
    /// The eight code units from `i` (`i + 8 <= len`) as two 64-bit words, unit
    /// `4w + k` in bits `16k..16k + 16` of word `w`.
    #[inline(always)]
    fn words(self, i: usize) -> [u64; 2] {
        let [a, b, c, d, e, f, g, h] = self.block(i).map(u64::from);
        [a | b << 16 | c << 32 | d << 48, e | f << 16 | g << 32 | h << 48]
    }
    /// The bits of a lane of [`Units::raw_words`] that are zero in an ASCII unit.
    const RAW_NOT_ASCII: u64 = NOT_ASCII;
    /// How far a lane of [`Units::raw_words`] moves down for an ASCII unit's byte.
    const RAW_BYTE_SHIFT: u32 = 0;
    /// [`Units::words`] as the bytes are, with no byte-order conversion: an ASCII
    /// unit's byte is then the lane moved down by [`Units::RAW_BYTE_SHIFT`], and it
    /// has no bit of [`Units::RAW_NOT_ASCII`] set.
    #[inline(always)]
    fn raw_words(self, i: usize) -> [u64; 2] {
        self.words(i)
    }
    /// The sixteen code units from `i` (`i + 16 <= len`) narrowed to their low byte
    /// as they would be if ASCII, and whether they all are: read as the bytes are,
    /// with no byte-order conversion (for [`ascii_run`]: UTF-16BE → `String` at the
    /// portable tier, en.txt −20% time, en.html −18%, de.html −16%; rotating, `AMD
    /// EPYC` Zen 4).
    #[inline(always)]
    fn ascii16(self, i: usize) -> ([u8; 16], bool) {
        let units = self.block16(i);
        (units.map(|unit| unit as u8), units.iter().fold(0, |acc, &unit| acc | unit) < 0x80)
    }
}

/// Native code units.
#[derive(Clone, Copy)]
pub(crate) struct NativeUnits<'a>(pub(crate) &'a [u16]);

impl Units for NativeUnits<'_> {
    #[inline(always)]
    fn len(self) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn raw_ptr(self) -> *const u8 {
        self.0.as_ptr().cast()
    }
    #[inline(always)]
    fn from(self, i: usize) -> Self {
        NativeUnits(&self.0[i..])
    }
    #[inline(always)]
    fn unit(self, i: usize) -> u16 {
        self.0[i]
    }
    #[inline(always)]
    fn block(self, i: usize) -> [u16; 8] {
        let mut block = [0; 8];
        block.copy_from_slice(&self.0[i..i + 8]);
        block
    }
    #[inline(always)]
    fn block16(self, i: usize) -> [u16; 16] {
        let mut block = [0; 16];
        block.copy_from_slice(&self.0[i..i + 16]);
        block
    }
    #[inline(always)]
    fn chunk(self, i: usize) -> [u32; scalar::CHUNK_UNITS / 2] {
        let units: &[u16; scalar::CHUNK_UNITS] =
            self.0[i..i + scalar::CHUNK_UNITS].try_into().unwrap_or(&[0; scalar::CHUNK_UNITS]);
        core::array::from_fn(|k| u32::from(units[2 * k]) | u32::from(units[2 * k + 1]) << 16)
    }
    #[inline(always)]
    fn ascii_window(self, i: usize) -> bool {
        let window: &[u16; WINDOW] = self.0[i..i + WINDOW].try_into().unwrap_or(&[0x80; WINDOW]);
        window.iter().fold(0, |acc, &unit| acc | unit) < 0x80
    }
    #[inline(always)]
    fn copy_ascii<const K: u8>(self, i: usize, dst: &mut [u8]) -> usize {
        super::copy_utf16_ascii_to_bytes_in::<K>(&self.0[i..], dst)
    }
}

/// UTF-16 bytes, big-endian when `BE`; a trailing odd byte is not a unit.
#[derive(Clone, Copy)]
pub(crate) struct ByteUnits<'a, const BE: bool>(pub(crate) &'a [u8]);

impl<const BE: bool> Units for ByteUnits<'_, BE> {
    const SWAPPED: bool = BE != cfg!(target_endian = "big");
    #[inline(always)]
    fn units_into(self, i: usize, out: &mut [u16]) {
        let bytes = &self.0[2 * i..2 * (i + out.len())];
        for (unit, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
            let pair = [pair[0], pair[1]];
            *unit = if BE { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) };
        }
    }
    #[inline(always)]
    fn len(self) -> usize {
        self.0.len() / 2
    }
    #[inline(always)]
    fn raw_ptr(self) -> *const u8 {
        self.0.as_ptr()
    }
    #[inline(always)]
    fn from(self, i: usize) -> Self {
        ByteUnits(&self.0[2 * i..])
    }
    #[inline(always)]
    fn unit(self, i: usize) -> u16 {
        let pair = [self.0[2 * i], self.0[2 * i + 1]];
        if BE { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
    }
    #[inline(always)]
    fn block(self, i: usize) -> [u16; 8] {
        let bytes: &[u8; 16] = self.0[2 * i..2 * i + 16].try_into().unwrap_or(&[0; 16]);
        core::array::from_fn(|k| {
            let pair = [bytes[2 * k], bytes[2 * k + 1]];
            if BE { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
        })
    }
    #[inline(always)]
    fn block16(self, i: usize) -> [u16; 16] {
        let bytes: &[u8; 32] = self.0[2 * i..2 * i + 32].try_into().unwrap_or(&[0; 32]);
        core::array::from_fn(|k| {
            let pair = [bytes[2 * k], bytes[2 * k + 1]];
            if BE { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
        })
    }
    #[inline(always)]
    fn chunk(self, i: usize) -> [u32; scalar::CHUNK_UNITS / 2] {
        let bytes: &[u8; 2 * scalar::CHUNK_UNITS] =
            self.0[2 * i..2 * i + 2 * scalar::CHUNK_UNITS].try_into().unwrap_or(&[0; 2 * scalar::CHUNK_UNITS]);
        core::array::from_fn(|k| {
            let four = [bytes[4 * k], bytes[4 * k + 1], bytes[4 * k + 2], bytes[4 * k + 3]];
            // Big-endian units: the first unit's bytes read as the high half, so the
            // halves swapped.
            if BE { u32::from_be_bytes(four).rotate_left(16) } else { u32::from_le_bytes(four) }
        })
    }
    #[inline(always)]
    fn ascii_window(self, i: usize) -> bool {
        let bytes: &[u8; 2 * WINDOW] = self.0[2 * i..2 * i + 2 * WINDOW].try_into().unwrap_or(&[0x80; 2 * WINDOW]);
        // The pairs of bytes read little-endian whatever the order (see
        // `RAW_NOT_ASCII`).
        let any = (0..WINDOW).fold(0, |acc, k| acc | u16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]]));
        any & (Self::RAW_NOT_ASCII as u16) == 0
    }
    #[inline(always)]
    fn copy_ascii<const K: u8>(self, i: usize, dst: &mut [u8]) -> usize {
        super::utf16_bytes_ascii_to_bytes_in::<K>(&self.0[2 * i..], dst, BE)
    }
    #[inline(always)]
    fn words(self, i: usize) -> [u64; 2] {
        // Big-endian units: the two bytes of each lane swapped.
        self.raw_words(i)
            .map(|word| if BE { ((word >> 8) & (0xFF * LANES)) | ((word & (0xFF * LANES)) << 8) } else { word })
    }
    // Big-endian units read as little-endian words: an ASCII unit is 00 0x (the low
    // byte of the word zero, the high below 0x80), its byte the lane's high one;
    // little-endian ones 0x 00.
    const RAW_NOT_ASCII: u64 = if BE { 0x80FF * LANES } else { NOT_ASCII };
    const RAW_BYTE_SHIFT: u32 = if BE { 8 } else { 0 };
    #[inline(always)]
    fn raw_words(self, i: usize) -> [u64; 2] {
        let bytes: &[u8; 16] = self.0[2 * i..2 * i + 16].try_into().unwrap_or(&[0; 16]);
        let (first, second) = bytes.split_at(8);
        [first, second].map(|half| u64::from_le_bytes(half.try_into().unwrap_or([0; 8])))
    }
    #[inline(always)]
    fn ascii16(self, i: usize) -> ([u8; 16], bool) {
        let bytes: &[u8; 32] = self.0[2 * i..2 * i + 32].try_into().unwrap_or(&[0x80; 32]);
        let raw: [u16; 16] = core::array::from_fn(|k| u16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]]));
        let any = raw.iter().fold(0, |acc, &unit| acc | unit);
        (raw.map(|unit| (unit >> Self::RAW_BYTE_SHIFT) as u8), any & (Self::RAW_NOT_ASCII as u16) == 0)
    }
}

/// The code units that must all be ASCII for the block loop to hand a run to the
/// bulk ASCII kernel, in text where about half the blocks are ASCII (see
/// [`mixed_text`]).
///
/// In text whose ASCII runs are short words between accented letters (Czech,
/// Turkish: 45–48% of the blocks of eight units are ASCII), a block is ASCII or not
/// about at random, and a branch on it mispredicts at every other block. There an
/// ASCII block goes through the block kernel like the others, and the loop asks
/// once per window whether the next 32 units are ASCII, which is rarely true and so
/// predictable: Czech UTF-16 → `String` +35–60% (rotating, `AMD EPYC` Zen 4).
/// Elsewhere (ASCII blocks rare, as in Vietnamese, Russian, CJK; or common, in long
/// runs, as in English, French, markup) the branch per block predicts well, and an
/// ASCII block goes to the bulk kernel at once: there the window measured 5–18%
/// slower.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
#[cfg_attr(whatenc_portable, allow(dead_code))]
const WINDOW: usize = 32;

/// Whether the text is "mixed" for [`WINDOW`]: between a quarter and two thirds of
/// the blocks among its first 512 units are ASCII (at least 128 units). Asked once
/// per call.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
#[cfg_attr(whatenc_portable, allow(dead_code))]
#[inline(always)]
fn mixed_text<U: Units>(src: U) -> bool {
    let blocks = (src.len() / 8).min(64);
    if blocks < 16 {
        return false;
    }
    let ascii = (0..blocks).filter(|&b| src.block(8 * b).iter().fold(0, |acc, &unit| acc | unit) < 0x80).count();
    blocks <= ascii * 4 && ascii * 3 <= blocks * 2
}

/// What the first 256 units of `src` (whole blocks of eight) hold, for the loops of
/// the SSSE3 and AVX-512 kernels to choose between blocks and chunks. Asked once per
/// call.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[derive(Clone, Copy)]
struct Sample {
    /// The units looked at.
    units: usize,
    /// Those that are not ASCII.
    not_ascii: usize,
    /// Those that are three-byte units (U+0800 and above).
    three: usize,
}

#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
impl Sample {
    #[inline(always)]
    fn of<U: Units>(src: U) -> Sample {
        let blocks = (src.len() / 8).min(32);
        // A count in each lane (at most 64), for the units that are not ASCII and
        // for the three-byte units.
        let (not_ascii, three) = (0..blocks)
            .flat_map(|b| src.words(8 * b))
            .fold((0, 0), |(a, t), word| (a + lanes_with(word, NOT_ASCII), t + lanes_with(word, 0xF800 * LANES)));
        Sample { units: 8 * blocks, not_ascii: lanes_total(not_ascii), three: lanes_total(three) }
    }

    /// Whether the chunk loop is the faster: at least 1/8 of the units are not ASCII
    /// (in text with fewer, mostly ASCII pages and Western European languages, a
    /// block of ASCII goes to the bulk kernel at once, and the chunks cost 5–25%
    /// more), and fewer than `1 / per_three` are three-byte units (CJK text, where
    /// the shuffle kernels' blocks are faster).
    #[inline(always)]
    fn wants_chunks(self, per_three: usize) -> bool {
        self.units > 0 && self.not_ascii * 8 >= self.units && self.three * per_three < self.units
    }
}

/// How the loop of the tiers below SSSE3 takes text ([`bmp_to_utf8_words`]; see
/// [`bmp_to_utf8_capped`] for what each tier makes of it), from the share of
/// units that are not ASCII among the first 512 of it (whole blocks of eight, at
/// least 64 units). Asked once per call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Text {
    /// Chunks, and runs of ASCII ([`ascii_run`]): short text, or text where more than
    /// 1/LETTERS of the units are not ASCII (Czech, Russian, CJK).
    Chunks,
    /// Fewer than 1/[`SPARSE`] (English, markup): runs of ASCII go on past a lone
    /// letter ([`latin_run`]).
    Sparse,
    /// Between (Portuguese, French, German): [`letter_steps`] before each chunk (where they
    /// pay, `super::letter_steps_pay`; [`Text::Sparse`] elsewhere), while they find
    /// letters ([`LETTERS_WINDOW`]).
    Letters,
}

/// See [`Text::Chunks`]: with 1/10, Czech (a letter every ten units) took the
/// steps 7% slower than the chunks.
const LETTERS: usize = 16;

/// See [`Text::Sparse`]: text with fewer units that are not ASCII than one in this
/// many takes the runs of ASCII, text with more (up to 1/[`LETTERS`]) the letter
/// steps. With 1/40, German text (a letter every 68 units) took the runs, which
/// mispredict at each letter. UTF-16 → `String`, rotating, `AMD EPYC` Zen 5, MB/s,
/// 1/40 → 1/128 (with [`LETTERS_AT_LEAST`] 64 → 128), in two code layouts (the second
/// with `-align-all-nofallthru-blocks=5`): portable tier, UTF-16LE de.txt 4,998 →
/// 5,967 and 4,988 → 5,960, pt.txt 4,730 → 5,592 and 4,746 → 5,583, fr.txt 4,768 →
/// 5,288 and 4,883 → 5,311; UTF-16BE de.txt 5,218 → 5,507 and 5,318 → 5,586, pt.txt
/// 4,425 → 5,164 and 4,517 → 5,135; SSE2 tier, UTF-16BE de.txt 5,214 → 5,721 and
/// 5,105 → 5,834, UTF-16LE pt.txt 5,307 → 5,776 and 5,336 → 5,824; UTF-16 → UTF-8,
/// portable tier, de.txt 5,435 → 6,252 and 5,518 → 6,248; English text and pages
/// within 2% at the portable tier, de.html UTF-16LE 2–5% slower at the SSE2 tier.
const SPARSE: usize = 128;

impl Text {
    /// The way for `src`, from its first 512 units.
    #[inline(always)]
    fn of<U: Units>(src: U) -> Text {
        let blocks = (src.len() / 8).min(64);
        if blocks < 8 {
            // Too short to tell (and short calls should not pay for the count).
            return Text::Chunks;
        }
        // A count in each lane, at most 128.
        let counts = (0..blocks).flat_map(|b| src.words(8 * b)).fold(0, |acc, word| acc + lanes_with(word, NOT_ASCII));
        let not_ascii = lanes_total(counts);
        if not_ascii * SPARSE < 8 * blocks {
            Text::Sparse
        } else if not_ascii * LETTERS < 8 * blocks {
            Text::Letters
        } else {
            Text::Chunks
        }
    }
}

impl Text {
    /// The way the loop with the kernels `K` (portable or SSE2) takes text that
    /// [`Text::of`] or [`Text::after_window`] calls `self`:
    /// - portable: as said, but [`Text::Sparse`] for [`Text::Letters`] where the
    ///   steps do not pay (`super::letter_steps_pay`): the runs read big-endian bytes
    ///   as they are, where the chunks need them swapped (time, `AMD EPYC` Zen 4,
    ///   against the chunks for little-endian units and the steps for big-endian
    ///   ones: UTF-16BE → `String` pt.txt −7%, fr.txt −1%, pt.html −6%; UTF-16 → UTF-8
    ///   pt.txt −4%, fr.txt −3%);
    /// - SSE2: the letter steps where they pay, the runs for big-endian units, and
    ///   otherwise the chunks, whose runs of ASCII go through SSE2's bulk copy,
    ///   faster for little-endian units than [`latin_run`] (see
    ///   [`bmp_to_utf8_capped`]).
    #[inline(always)]
    fn for_kernels<U: Units, const K: u8>(self) -> Text {
        if K == BlockKernels::Portable as u8 {
            match self {
                Text::Letters if !super::letter_steps_pay() => Text::Sparse,
                text => text,
            }
        } else {
            match self {
                Text::Letters if super::letter_steps_pay() => Text::Letters,
                Text::Letters | Text::Sparse if U::SWAPPED => Text::Sparse,
                _ => Text::Chunks,
            }
        }
    }

    /// The way on from `read` after a window of [`Text::Letters`] of `units` units
    /// (at least [`LETTERS_WINDOW`]) in which [`letter_steps`] wrote `letters`
    /// letters: the steps still, with at least one letter in [`LETTERS_AT_LEAST`]
    /// units; otherwise [`Text::of`] the units from `read`, with [`Text::Sparse`]
    /// for the steps.
    #[inline(always)]
    fn after_window<U: Units>(src: U, read: usize, units: usize, letters: usize) -> Text {
        if letters * LETTERS_AT_LEAST >= units {
            return Text::Letters;
        }
        match Text::of(src.from(read)) {
            Text::Letters => Text::Sparse,
            other => other,
        }
    }
}

/// One in each 16-bit lane of `word` whose unit has a bit of `high` set (bit 15 of
/// the lane moved down): summed over words, a count in each lane.
#[inline(always)]
pub(crate) fn lanes_with(word: u64, high: u64) -> u64 {
    let bits = word & high;
    ((((bits & (0x7FFF * LANES)) + 0x7FFF * LANES) | bits) >> 15) & LANES
}

/// The sum of the four lanes' counts of [`lanes_with`] (each below 2^14).
#[inline(always)]
fn lanes_total(counts: u64) -> usize {
    (counts.wrapping_mul(LANES) >> 48) as usize
}

/// Whether a code unit is a surrogate (0xD800–0xDFFF).
#[inline(always)]
fn is_surrogate(unit: u16) -> bool {
    unit & 0xF800 == 0xD800
}

/// The UTF-8 bytes of a code point of the BMP that is not a surrogate, as a
/// little-endian word (first byte lowest), and their number.
#[inline(always)]
pub(crate) fn packed_utf8(unit: u16) -> (u32, usize) {
    let c = unit as u32;
    let len = 1 + (c >= 0x80) as usize + (c >= 0x800) as usize;
    let two = 0x80C0 | (c >> 6) | ((c & 0x3F) << 8);
    let three = scalar::three_byte_word(c);
    // Selected with masks rather than branches: in text where letters and spaces
    // alternate, the length is not predictable.
    let at_least_two = ((c >= 0x80) as u32).wrapping_neg();
    let three_bytes = ((c >= 0x800) as u32).wrapping_neg();
    let word = (c & !at_least_two) | (two & at_least_two & !three_bytes) | (three & three_bytes);
    (word, len)
}

/// Room a block of eight units needs: 8 × 3 bytes, the fourth byte each store
/// writes beyond the last one, and the room kept before each unit.
pub(crate) const BLOCK_ROOM: usize = 32;

/// Transcodes the code units of `src` to UTF-8 until the first surrogate, while
/// `dst` has room for the unit's bytes and at least `min_room` bytes (at most 8)
/// before each unit; returns (units read, bytes written).
#[inline(always)]
pub(crate) fn bmp_to_utf8<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    // One loop for each choice of kernels, made once per call. The loops of the
    // tiers below SSSE3 are called, not inlined, so that the hot loops' callers do
    // not grow.
    match BlockKernels::choose() {
        // SAFETY (both): `choose` picks these only where the CPU has SSSE3 (a CPU with
        // the AVX-512 kernels has it too).
        #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
        BlockKernels::Wide => unsafe { bmp_to_utf8_wide::<U>(src, dst, min_room) },
        #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
        BlockKernels::Ssse3 => unsafe { bmp_to_utf8_avx2_or_ssse3::<U>(src, dst, min_room) },
        #[cfg(not(all(target_arch = "x86_64", not(whatenc_portable))))]
        BlockKernels::Wide | BlockKernels::Ssse3 => unreachable!("x86_64's kernels only"),
        BlockKernels::Sse2 => bmp_to_utf8_capped::<U, { BlockKernels::Sse2 as u8 }>(src, dst, min_room),
        BlockKernels::Portable => bmp_to_utf8_capped::<U, { BlockKernels::Portable as u8 }>(src, dst, min_room),
        #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
        BlockKernels::Neon => bmp_to_utf8_loop::<U, { BlockKernels::Neon as u8 }>(src, dst, min_room),
    }
}

/// [`bmp_to_utf8`] for a short run known to hold no surrogate (as the UTF-16
/// decoders find between two errors), where the tier has block kernels: their loop,
/// without the look ahead at the first hundreds of units that [`bmp_to_utf8`] makes
/// to choose one. `None` at the portable tier, where a caller's loop of one unit at
/// a time measured faster (random bytes as UTF-16 → `String`: the portable block
/// kernel 17% slower; `AMD EPYC` Zen 4), and its four three-byte units at a time
/// faster still.
#[inline(always)]
pub(crate) fn bmp_run_to_utf8<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> Option<(usize, usize)> {
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    return bmp_run_in_blocks(src, dst, min_room);
    #[cfg(not(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable))))]
    {
        let _ = (src, dst, min_room);
        None
    }
}

/// [`bmp_run_to_utf8`] where there are kernels to choose from.
// Not inlined: inlined, the SSE2 block loop made the caller's own loop of one unit at
// a time (the portable tier's) 10% slower.
#[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
#[inline(never)]
fn bmp_run_in_blocks<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> Option<(usize, usize)> {
    Some(match BlockKernels::choose() {
        // SAFETY (both): `choose` picks these only where the CPU has SSSE3, and the
        // AVX-512 features for `Wide`.
        #[cfg(target_arch = "x86_64")]
        BlockKernels::Wide => unsafe { run_wide::<U>(src, dst, min_room) },
        #[cfg(target_arch = "x86_64")]
        BlockKernels::Ssse3 => unsafe { run_ssse3::<U>(src, dst, min_room) },
        #[cfg(not(target_arch = "x86_64"))]
        BlockKernels::Wide | BlockKernels::Ssse3 => unreachable!("x86_64's kernels only"),
        BlockKernels::Sse2 => bmp_to_utf8_blocks::<U, { BlockKernels::Sse2 as u8 }, false>(src, dst, min_room),
        BlockKernels::Portable => return None,
        #[cfg(target_arch = "aarch64")]
        BlockKernels::Neon => bmp_to_utf8_blocks::<U, { BlockKernels::Neon as u8 }, false>(src, dst, min_room),
    })
}

/// For the UTF-16 decoders in replacement mode, after an error: transcodes the code
/// units of `src` to UTF-8 eight at a time, each lone surrogate as U+FFFD, while
/// nine are left (the ninth tells whether a leading surrogate at the eighth is
/// lone) and `dst` has room as [`bmp_to_utf8`] keeps it; stops before a block with
/// a surrogate pair (the caller's), and after [`scalar::CALM_BLOCKS`] blocks in a
/// row without a surrogate (where errors are sparse, [`bmp_to_utf8`] is faster).
/// The unit before `src` must not be a leading surrogate. Returns (units read,
/// bytes written).
#[inline(never)]
pub(crate) fn bmp_replacing_to_utf8<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    match BlockKernels::choose() {
        // SAFETY: `choose` picks these only where the CPU has SSSE3, whose block
        // kernel both use.
        #[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
        BlockKernels::Wide | BlockKernels::Ssse3 => unsafe { replacing_ssse3::<U>(src, dst, min_room) },
        #[cfg(not(all(target_arch = "x86_64", not(whatenc_portable))))]
        BlockKernels::Wide | BlockKernels::Ssse3 => unreachable!("x86_64's kernels only"),
        BlockKernels::Sse2 => replacing_blocks::<U, { BlockKernels::Sse2 as u8 }>(src, dst, min_room),
        BlockKernels::Portable => replacing_blocks::<U, { BlockKernels::Portable as u8 }>(src, dst, min_room),
        #[cfg(all(target_arch = "aarch64", not(whatenc_portable)))]
        BlockKernels::Neon => replacing_blocks::<U, { BlockKernels::Neon as u8 }>(src, dst, min_room),
    }
}

/// [`bmp_replacing_to_utf8`]'s loop with the SSSE3 block kernel inlined.
///
/// # Safety
/// The CPU must have SSSE3.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[target_feature(enable = "ssse3")]
unsafe fn replacing_ssse3<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    replacing_blocks::<U, { BlockKernels::Ssse3 as u8 }>(src, dst, min_room)
}

/// [`bmp_replacing_to_utf8`] with the kernels `K` (a [`BlockKernels`] as a number).
#[inline(always)]
fn replacing_blocks<U: Units, const K: u8>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    debug_assert!(min_room <= 8);
    let (mut read, mut written, mut calm) = (0, 0, 0);
    while read + 9 <= src.len() && calm < scalar::CALM_BLOCKS {
        // At most 24 bytes written, so the room before each unit stays at least 8.
        let Some(out) = dst.get_mut(written..).and_then(|rest| rest.first_chunk_mut::<BLOCK_ROOM>()) else { break };
        let Some((block, surrogates)) = scalar::lone_surrogates_replaced(src.block(read), src.unit(read + 8)) else {
            break;
        };
        calm = if surrogates { 0 } else { calm + 1 };
        written += super::block_to_utf8::<K>(block, out);
        read += 8;
    }
    (read, written)
}

/// [`bmp_run_to_utf8`]'s loop with the SSSE3 block kernel inlined.
///
/// # Safety
/// The CPU must have SSSE3.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[target_feature(enable = "ssse3")]
unsafe fn run_ssse3<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    bmp_to_utf8_blocks::<U, { BlockKernels::Ssse3 as u8 }, false>(src, dst, min_room)
}

/// [`bmp_run_to_utf8`]'s loop with the AVX-512 sixteen-unit kernel inlined.
///
/// # Safety
/// The CPU must have what [`super::avx512_utf16::cpu_has_all`] checks, and SSSE3.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[target_feature(enable = "ssse3,avx2,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
unsafe fn run_wide<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    bmp_to_utf8_blocks::<U, { BlockKernels::Wide as u8 }, false>(src, dst, min_room)
}

/// [`bmp_to_utf8_loop`] or [`bmp_to_utf8_words`] compiled for SSSE3, so that the
/// block kernel's SSSE3 steps (functions with `#[target_feature]`) are inlined into
/// the loop rather than called once per block (a call per block measured 11% of
/// UTF-16 → `String` on Czech). The chunks where [`Sample::wants_chunks`] (with
/// 1/16: in CJK and Vietnamese text the shuffles measured 2–8% faster), for
/// Russian +21%, Czech +13% (rotating, `AMD EPYC` Zen 4); the blocks elsewhere.
///
/// # Safety
/// The CPU must have SSSE3.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[target_feature(enable = "ssse3")]
unsafe fn bmp_to_utf8_ssse3<U: Units, const K: u8>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    if Sample::of(src).wants_chunks(16) {
        bmp_to_utf8_words::<U, K>(src, dst, min_room, Text::Chunks)
    } else {
        bmp_to_utf8_loop::<U, K>(src, dst, min_room)
    }
}

/// The SSSE3 loops ([`bmp_to_utf8_ssse3`]), after the steps of 16 units of
/// `avx2_utf16::bmp_steps` where the tier and the CPU allow AVX2.
///
/// # Safety
/// The CPU must have SSSE3.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[inline(always)]
unsafe fn bmp_to_utf8_avx2_or_ssse3<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    let (read, written) = if super::avx2_utf16::available() {
        // SAFETY: `src` holds `len` units; the CPU has AVX2 and POPCNT, as `available`
        // just said.
        unsafe { super::avx2_utf16::bmp_steps(src.raw_ptr(), src.len(), U::SWAPPED, dst, min_room) }
    } else {
        (0, 0)
    };
    // SAFETY: the CPU has SSSE3 (the caller's precondition).
    let (r, w) =
        unsafe { bmp_to_utf8_ssse3::<U, { BlockKernels::Ssse3 as u8 }>(src.from(read), &mut dst[written..], min_room) };
    (read + r, written + w)
}

/// The loops with the AVX-512 sixteen-unit kernel inlined (and the SSSE3 steps):
/// [`WINDOW`]'s for [`mixed_text`] (Czech, Turkish); the chunks where
/// [`Sample::wants_chunks`] (with 1/2: CJK text keeps the blocks), their three-byte
/// units sixteen at a time (Russian +70%, Vietnamese +60%; rotating, `AMD EPYC`
/// Zen 4); the blocks elsewhere.
///
/// # Safety
/// The CPU must have what [`super::avx512_utf16::cpu_has_all`] checks, and SSSE3.
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[target_feature(enable = "ssse3,avx2,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
unsafe fn bmp_to_utf8_wide<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    // SAFETY: `src` holds `len` units; the CPU has the features (this function enables
    // them, and the caller checked).
    let (read, written) =
        unsafe { super::avx512_utf16::bmp_steps(src.raw_ptr(), src.len(), U::SWAPPED, dst, min_room) };
    if read == 0 {
        return bmp_to_utf8_wide_rest(src, dst, min_room);
    }
    let (r, w) = bmp_to_utf8_wide_rest(src.from(read), &mut dst[written..], min_room);
    (read + r, written + w)
}

/// [`bmp_to_utf8_wide`] after its steps of 32 units (inlined there, with its
/// features).
#[cfg(all(target_arch = "x86_64", not(whatenc_portable)))]
#[inline(always)]
fn bmp_to_utf8_wide_rest<U: Units>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    if mixed_text(src) {
        bmp_to_utf8_blocks::<U, { BlockKernels::Wide as u8 }, true>(src, dst, min_room)
    } else if Sample::of(src).wants_chunks(2) {
        bmp_to_utf8_words::<U, { BlockKernels::Wide as u8 }>(src, dst, min_room, Text::Chunks)
    } else {
        bmp_to_utf8_blocks::<U, { BlockKernels::Wide as u8 }, false>(src, dst, min_room)
    }
}

/// The loop of the tiers below SSSE3: [`bmp_to_utf8_words`], through
/// [`swapped_to_utf8`] for swapped units (big-endian bytes) of at least
/// [`SWAP_MIN`] of [`Text::Chunks`]. The runs of ASCII of [`Text::Sparse`] and the
/// steps of [`Text::Letters`] read the bytes as they are, and swapping them first
/// cost time (UTF-16BE → `String`, portable tier, without the swap: en.txt −23%,
/// en.html −20%, de.html −12%, de.txt −6%, fr.txt −10%, pt.txt −8%; rotating,
/// `Intel Xeon` Cascade Lake).
///
/// [`Text::of`] chooses the way at both tiers. The SSE2 tier had taken every text
/// as [`Text::Chunks`], and there French and Portuguese ran slower than at the
/// portable tier: now it takes [`Text::Letters`] where the steps pay, and
/// [`Text::Sparse`] for big-endian units only (little-endian ASCII goes faster
/// through SSE2's bulk copy than through [`latin_run`]: de.txt UTF-16LE → `String`
/// 6,180 against 5,070 MB/s). UTF-16 → `String`, SSE2 tier, rotating, `AMD EPYC`
/// Zen 5, MB/s, chunks → this, in two code layouts (the second with
/// `-align-all-nofallthru-blocks=5`): UTF-16LE fr.txt 4,530 → 5,308 and 4,590 →
/// 5,310, pt.txt 5,027 → 5,455 and 5,048 → 5,470; UTF-16BE fr.txt 3,551 → 4,555
/// and 3,598 → 4,552, pt.txt 4,030 → 4,669 and 4,038 → 4,669, en.txt 14,231 →
/// 23,008 and 14,488 → 22,864, en.html 10,572 → 16,838 and 10,854 → 17,001, de.html
/// 6,728 → 10,298 and 6,741 → 10,037, tr.html 5,113 → 5,723 and 5,164 → 5,663;
/// UTF-16LE pages that start in letters 1–4% slower (tr.html 7,630 → 7,534 and 7,824
/// → 7,538, zh_cn.html 6,882 → 6,687 and 6,861 → 6,646, cs.html 8,363 → 8,188 and
/// 8,411 → 8,315). (The same steps in the SSSE3 loop took fr.txt UTF-16LE 4,793 →
/// 5,402 but tr.html, cs.html and vi.html 5–8% slower, in both layouts: not taken.)
// Not `#[cold]`: LLVM inlines less into a cold function, and this is the loop
// that every target without x86's kernels runs (aarch64's NEON loop aside).
#[inline(never)]
fn bmp_to_utf8_capped<U: Units, const K: u8>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    debug_assert!(K == BlockKernels::Portable as u8 || K == BlockKernels::Sse2 as u8);
    // Asked once here, not for each of `swapped_to_utf8`'s windows.
    let text = Text::of(src).for_kernels::<U, K>();
    if U::SWAPPED && src.len() >= SWAP_MIN && text == Text::Chunks {
        return swapped_to_utf8::<U, K>(src, dst, min_room);
    }
    bmp_to_utf8_words::<U, K>(src, dst, min_room, text)
}

/// Units in a window of [`swapped_to_utf8`]: with 256, the ends of the windows
/// cost German and Portuguese 4–5%.
const SWAP_WINDOW: usize = 1024;

/// The fewest units [`swapped_to_utf8`] takes: below, zeroing its window costs more
/// than the swaps it spares.
const SWAP_MIN: usize = 64;

/// [`bmp_to_utf8_words`] for units whose bytes are swapped: a window of
/// [`SWAP_WINDOW`] units at a time, swapped into native units first (a loop LLVM
/// vectorizes), so that the loop does not swap a unit each time it looks at it.
/// UTF-16BE → `String` at the portable tier: Japanese −21% time, Russian −11%,
/// Czech −5% (rotating, `Intel Xeon` Cascade Lake). For [`Text::Chunks`] only (see
/// [`bmp_to_utf8_capped`]).
#[inline(always)]
fn swapped_to_utf8<U: Units, const K: u8>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    let mut window = [0u16; SWAP_WINDOW];
    let (mut read, mut written) = (0, 0);
    while read < src.len() {
        let n = (src.len() - read).min(SWAP_WINDOW);
        src.units_into(read, &mut window[..n]);
        let (r, w) = bmp_to_utf8_words::<NativeUnits<'_>, K>(
            NativeUnits(&window[..n]),
            &mut dst[written..],
            min_room,
            Text::Chunks,
        );
        read += r;
        written += w;
        if r < n {
            break;
        }
    }
    (read, written)
}

/// The bits of a 16-bit lane that are zero in an ASCII code unit.
const NOT_ASCII: u64 = 0xFF80 * LANES;

/// [`bmp_to_utf8`] in chunks of [`scalar::CHUNK_UNITS`]: a chunk of ASCII starts a
/// run copied in bulk (by [`ascii_run`] with the portable kernels, or by
/// [`latin_run`] for [`Text::Sparse`]: [`bmp_to_utf8_capped`] asks [`Text::of`] for
/// the portable and SSE2 kernels; UTF-16 → UTF-8 of English −10% time, German −8%, rotating,
/// `Intel Xeon` Cascade Lake); for [`Text::Letters`], [`letter_steps`] go before each
/// chunk (time, portable tier, rotating, `Intel Xeon` Cascade Lake: UTF-16LE →
/// `String` fr.txt −12%, pt.txt −9%, UTF-16BE −12% and −9%, UTF-16 → UTF-8 fr.txt
/// −14%, pt.txt −10%), as long as they find letters (see [`LETTERS_WINDOW`]); a chunk
/// of units below U+0800 goes through [`scalar::chunk_to_utf8`] (no surrogate can be among
/// them, so none is looked for), and so does any other chunk with the portable and
/// SSE2 kernels; with SSSE3 or AVX-512, a chunk with three-byte units goes through
/// their shuffle kernels. The last units (fewer than a chunk, or those before a
/// surrogate) go eight at a time as two 64-bit words of four 16-bit lanes: below
/// U+0800 through [`scalar::below_0x800_to_utf8`], others through
/// [`scalar::block_to_utf8`].
#[inline(always)]
fn bmp_to_utf8_words<U: Units, const K: u8>(src: U, dst: &mut [u8], min_room: usize, mut text: Text) -> (usize, usize) {
    debug_assert!(min_room <= 8);
    let len = src.len();
    let mut read = 0;
    let mut written = 0;
    // For `Text::Letters`: where the window of `LETTERS_WINDOW` units began, and the
    // letters that the steps have written in it (a byte more each).
    let (mut window, mut letters) = (0, 0);
    while read + scalar::CHUNK_UNITS <= len {
        if text == Text::Letters {
            let (r, w) = letter_steps(src, read, &mut dst[written..]);
            read += r;
            written += w;
            letters += w - r;
            if read - window >= LETTERS_WINDOW {
                text = Text::after_window(src, read, read - window, letters).for_kernels::<U, K>();
                (window, letters) = (read, 0);
            }
            if read + scalar::CHUNK_UNITS > len {
                break;
            }
        }
        let Some(out) = dst.get_mut(written..).and_then(|rest| rest.first_chunk_mut::<{ scalar::CHUNK_ROOM }>()) else {
            break;
        };
        let chunk = src.chunk(read);
        let any = chunk.iter().fold(0, |acc, &pair| acc | pair);
        let any = (any | any >> 16) & 0xFFFF;
        if any < 0x80 {
            if text == Text::Sparse {
                let (r, w) = latin_run(src, read, &mut dst[written..]);
                read += r;
                written += w;
            } else {
                let n = ascii_bulk::<U, K>(src, read, &mut dst[written..]);
                read += n;
                written += n;
            }
            continue;
        }
        if any >= 0xD800
            && chunk
                .iter()
                .fold(false, |acc, &pair| acc | is_surrogate(pair as u16) | is_surrogate((pair >> 16) as u16))
        {
            // The units before the surrogate go through the blocks below.
            break;
        }
        if any < 0x800 || K == BlockKernels::Portable as u8 || K == BlockKernels::Sse2 as u8 {
            written += scalar::chunk_to_utf8(&chunk, out);
        } else if K == BlockKernels::Wide as u8 {
            // Three-byte units with AVX-512: sixteen units at a time (at most 48
            // bytes each, into 64 of room).
            let mut at = 0;
            for half in 0..2 {
                let units = src.block16(read + 16 * half);
                let Some(room) = out.get_mut(at..).and_then(|rest| rest.first_chunk_mut::<64>()) else { break };
                at += super::wide_units_to_utf8(&units, room);
            }
            written += at;
        } else {
            // Three-byte units with SSSE3 or NEON: their shuffle kernels, eight units at
            // a time (at most 24 bytes each, into 32 of room).
            let mut at = 0;
            for block in 0..4 {
                let Some(room) = out.get_mut(at..).and_then(|rest| rest.first_chunk_mut::<BLOCK_ROOM>()) else { break };
                at += super::block_to_utf8::<K>(src.block(read + 8 * block), room);
            }
            written += at;
        }
        read += scalar::CHUNK_UNITS;
    }
    while read + 8 <= len {
        let Some(out) = dst.get_mut(written..).and_then(|rest| rest.first_chunk_mut::<BLOCK_ROOM>()) else {
            break;
        };
        let [first, second] = src.words(read);
        let any = first | second;
        if any & NOT_ASCII == 0 {
            let n = ascii_bulk::<U, K>(src, read, &mut dst[written..]);
            read += n;
            written += n;
            continue;
        }
        if any & (0xF800 * LANES) == 0 {
            let at = scalar::below_0x800_to_utf8(first, out, 0);
            written += at + scalar::below_0x800_to_utf8(second, out, at);
            read += 8;
            continue;
        }
        let block = src.block(read);
        if block.iter().fold(false, |acc, &unit| acc | is_surrogate(unit)) {
            break;
        }
        written += scalar::block_to_utf8(block, out);
        read += 8;
    }
    let (r, w) = units_to_utf8::<U, false>(src, read, &mut dst[written..], min_room);
    (read + r, written + w)
}

/// The run of ASCII code units of `src` from `i` narrowed into `dst` as far as it
/// fits, by the kernels `K`'s bulk copy ([`ascii_run`] for the portable ones);
/// returns the units copied.
#[inline(always)]
fn ascii_bulk<U: Units, const K: u8>(src: U, i: usize, dst: &mut [u8]) -> usize {
    if K == BlockKernels::Portable as u8 { ascii_run(src, i, dst) } else { src.copy_ascii::<K>(i, dst) }
}

/// The run of ASCII code units of `src` from `i` narrowed into `dst` as far as it
/// fits, eight a step (the whole step is stored, and the units after the run among
/// it overwritten by what follows); returns the units copied.
#[inline(always)]
fn ascii_run<U: Units>(src: U, i: usize, dst: &mut [u8]) -> usize {
    let len = src.len();
    let mut n = 0;
    // Sixteen units a step, a loop that LLVM turns into vector code.
    while i + n + 16 <= len {
        let Some(out) = dst.get_mut(n..).and_then(|rest| rest.first_chunk_mut::<16>()) else { break };
        let (bytes, ascii) = src.ascii16(i + n);
        *out = bytes;
        if !ascii {
            break;
        }
        n += 16;
    }
    // Then eight, and the first unit that is not ASCII among them (the units as
    // their bytes are: big-endian ones not swapped).
    while i + n + 8 <= len {
        let Some(out) = dst.get_mut(n..).and_then(|rest| rest.first_chunk_mut::<8>()) else { break };
        let [first, second] = src.raw_words(i + n);
        let byte = |word: u64| narrow((word >> U::RAW_BYTE_SHIFT) & (0xFF * LANES));
        *out = (byte(first) | byte(second) << 32).to_le_bytes();
        let not_ascii = (first | second) & U::RAW_NOT_ASCII;
        if not_ascii != 0 {
            let first_not_ascii = first & U::RAW_NOT_ASCII;
            let lanes = if first_not_ascii != 0 {
                first_not_ascii.trailing_zeros() / 16
            } else {
                4 + (second & U::RAW_NOT_ASCII).trailing_zeros() / 16
            };
            return n + lanes as usize;
        }
        n += 8;
    }
    while let (true, Some(out)) = (i + n < len, dst.get_mut(n)) {
        let unit = src.unit(i + n);
        if unit >= 0x80 {
            break;
        }
        *out = unit as u8;
        n += 1;
    }
    n
}

/// [`ascii_run`] that goes on past a lone unit that is not ASCII (nor a surrogate),
/// its bytes written, when the eight units after it are ASCII (all but one, for
/// swapped units): English or German text, where such a run ends at every accented
/// letter or curly quote otherwise, and the chunk after it takes the slower path for
/// its 32 units. Returns (units read, bytes written); it writes such a unit only
/// with 16 bytes of room, so that the room kept before each unit (at most 8) stays.
#[inline(always)]
fn latin_run<U: Units>(src: U, i: usize, dst: &mut [u8]) -> (usize, usize) {
    let len = src.len();
    let (mut read, mut written) = (0, 0);
    loop {
        let n = ascii_run(src, i + read, &mut dst[written..]);
        read += n;
        written += n;
        let at = i + read;
        if at + 9 > len {
            return (read, written);
        }
        let unit = src.unit(at);
        let [first, second] = src.raw_words(at + 1);
        let Some(out) = dst.get_mut(written..).and_then(|rest| rest.first_chunk_mut::<16>()) else {
            return (read, written);
        };
        // Swapped units (big-endian bytes) go on with one more letter among the next
        // eight, because the chunk after the run swaps them (UTF-16BE → `String`,
        // portable tier: pt.txt −3% time, fr.txt −2%; the other units' chunks were
        // faster: UTF-16LE pt.txt +5%, fr.txt +6%; rotating, `AMD EPYC` Zen 4).
        let others = match U::SWAPPED {
            true => lanes_total(lanes_with(first, U::RAW_NOT_ASCII) + lanes_with(second, U::RAW_NOT_ASCII)) > 1,
            false => (first | second) & U::RAW_NOT_ASCII != 0,
        };
        if unit < 0x80 || is_surrogate(unit) || others {
            return (read, written);
        }
        let (word, n) = packed_utf8(unit);
        out[..4].copy_from_slice(&word.to_le_bytes());
        read += 1;
        written += n;
    }
}

/// The units over which [`bmp_to_utf8_words`] counts the letters that
/// [`letter_steps`] find, for [`Text::Letters`]: with fewer than one in
/// [`LETTERS_AT_LEAST`], it asks [`Text::of`] again (never for the steps) for the
/// units that follow. The first 512 units that chose the steps may be a line of text
/// in a page of markup or CJK, where the steps are slower than the runs of ASCII
/// and the chunks. UTF-16 → UTF-8, portable tier, rotating, `AMD EPYC` Zen 5, MB/s,
/// without the steps, with them and windows that count the units the steps took
/// (which left runs of markup to them), and with these: zh_cn.html 6,206, 5,215,
/// 5,890; tr.html 6,748, 5,847, 6,553; vi.html 6,348, 5,633, 5,970; fr.txt 3,902,
/// 5,126, 5,122; pt.txt 4,241, 5,244, 5,410.
const LETTERS_WINDOW: usize = 2048;

/// See [`LETTERS_WINDOW`]: with 1 in 32, French text (a letter every 28 units) left
/// the steps in some windows (fr.txt UTF-16 → UTF-8 3,816 MB/s against 5,122). With
/// 1 in 64, German text (a letter every 68 units) left them after the first window;
/// 1 in 128 keeps it there, with [`SPARSE`] (see there).
const LETTERS_AT_LEAST: usize = 128;

/// Room [`letter_steps`] needs for a step: its copy after a second letter reaches
/// byte 34 (16 + 2 + 16), and each unit keeps the room asked for after it (at most
/// 8 bytes).
const LETTER_ROOM: usize = 48;

/// Sixteen code units a step while at most two of them are not ASCII, and those are
/// below U+0800 (the letters of Portuguese or French text among ASCII), with no
/// branch on where they are: the units narrowed to bytes, a letter's second byte in
/// its place, are stored whole; then from each letter on, the bytes again one place
/// further, the letter's first byte before them. In text where a run of ASCII ends
/// every 30 units or so, the branches of a run (and the chunk after it) mispredict
/// at each letter. Returns (units read, bytes written) when a step does not apply,
/// or room or input run out.
#[inline(always)]
fn letter_steps<U: Units>(src: U, i: usize, dst: &mut [u8]) -> (usize, usize) {
    let len = src.len();
    let (mut read, mut written) = (0, 0);
    while i + read + 16 <= len {
        let Some(out) = dst.get_mut(written..).and_then(|rest| rest.first_chunk_mut::<LETTER_ROOM>()) else { break };
        let units = src.block16(i + read);
        if units.iter().fold(0, |acc, &unit| acc | unit) >= 0x800 {
            break;
        }
        // Each unit's byte, in place: itself if ASCII, a letter's second byte (bit 7
        // set) otherwise; and a letter's first byte. (Arithmetic in a loop, which LLVM
        // vectorizes; with a branch in `map`, it took a unit at a time.)
        let mut first = [0u8; 16];
        for ((byte, first), &unit) in out.iter_mut().zip(&mut first).zip(&units) {
            let letter = u16::from(unit >= 0x80).wrapping_neg();
            *byte = (unit ^ ((unit ^ (0x80 | (unit & 0x3F))) & letter)) as u8;
            *first = (0xC0 | (unit >> 6)) as u8;
        }
        let bytes = u128::from_le_bytes(out.first_chunk::<16>().copied().unwrap_or([0; 16]));
        let flags = bytes & (0x80 * (u128::MAX / 0xFF));
        let rest = flags & flags.wrapping_sub(1);
        if rest & rest.wrapping_sub(1) != 0 {
            // Three letters or more.
            break;
        }
        // The letters' places (16 where there is none).
        let (p, q) = ((flags.trailing_zeros() / 8) as usize, (rest.trailing_zeros() / 8) as usize);
        out.copy_within(p..p + 16, p + 1);
        out[p] = first[p & 15];
        // A second letter in one step in ten or so of such text: a branch there,
        // where the first copy has none (a letter in about half of the steps), took
        // UTF-16LE → `String` fr.txt from 4,232 to 4,678 MB/s, pt.txt from 4,458 to
        // 4,649 (portable tier, rotating, `AMD EPYC` Zen 5); with the first copy
        // behind a branch too, 3,472 and 3,999 (against 4,656 and 4,629).
        if rest != 0 {
            out.copy_within(q + 1..q + 17, q + 2);
            out[q + 1] = first[q & 15];
        }
        read += 16;
        written += 16 + usize::from(p < 16) + usize::from(q < 16);
    }
    (read, written)
}

/// Narrows four ASCII code units (16-bit lanes) to four bytes, in the low half.
#[inline(always)]
fn narrow(units: u64) -> u64 {
    let pairs = units | units >> 8;
    (pairs & 0xFFFF) | ((pairs >> 16) & 0xFFFF_0000)
}

/// [`bmp_to_utf8`] with the kernels `K` (a [`BlockKernels`] as a number): with the
/// shuffle kernels, [`WINDOW`]'s loop for [`mixed_text`].
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
#[cfg_attr(whatenc_portable, allow(dead_code))]
#[inline(always)]
fn bmp_to_utf8_loop<U: Units, const K: u8>(src: U, dst: &mut [u8], min_room: usize) -> (usize, usize) {
    // NEON's, untimed, keep the branch per block.
    if (K == BlockKernels::Ssse3 as u8 || K == BlockKernels::Wide as u8) && mixed_text(src) {
        bmp_to_utf8_blocks::<U, K, true>(src, dst, min_room)
    } else {
        bmp_to_utf8_blocks::<U, K, false>(src, dst, min_room)
    }
}

/// [`bmp_to_utf8_loop`] for one choice: `WINDOWED` as [`WINDOW`] says.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
#[cfg_attr(whatenc_portable, allow(dead_code))]
#[inline(always)]
fn bmp_to_utf8_blocks<U: Units, const K: u8, const WINDOWED: bool>(
    src: U,
    dst: &mut [u8],
    min_room: usize,
) -> (usize, usize) {
    debug_assert!(min_room <= 8);
    let len = src.len();
    let mut read = 0;
    let mut written = 0;
    // Where the windowed loop next asks for a window of ASCII.
    let mut check_at = 0;
    while read + 8 <= len && dst.len() - written >= BLOCK_ROOM {
        let block = src.block(read);
        let any = block.iter().fold(0, |acc, &unit| acc | unit);
        let bulk = if WINDOWED {
            read >= check_at && {
                check_at = read + WINDOW;
                if read + WINDOW <= len { src.ascii_window(read) } else { any < 0x80 }
            }
        } else {
            any < 0x80
        };
        if bulk {
            // A run of ASCII, in bulk (at least this block).
            let n = src.copy_ascii::<K>(read, &mut dst[written..]);
            read += n;
            written += n;
            check_at = read;
            continue;
        }
        if block.iter().fold(false, |acc, &unit| acc | is_surrogate(unit)) {
            break;
        }
        if K == BlockKernels::Wide as u8 && any >= 0x800 && read + 16 <= len {
            // Sixteen units at once where the CPU has the wide kernel, when this block
            // has a three-byte unit (blocks of one- and two-byte units are faster
            // through `block_to_utf8`'s one shuffle), the next eight have no surrogate
            // and 64 bytes are left (at most 48 are written, so the room before each
            // unit stays at least 16).
            let units = src.block16(read);
            if !units[8..].iter().fold(false, |acc, &unit| acc | is_surrogate(unit))
                && let Some(out) = dst[written..].first_chunk_mut::<64>()
            {
                written += super::wide_units_to_utf8(&units, out);
                read += 16;
                continue;
            }
        }
        let Some(out) = dst[written..].first_chunk_mut::<BLOCK_ROOM>() else { break };
        written += super::block_to_utf8::<K>(block, out);
        read += 8;
    }
    let (r, w) = units_to_utf8::<U, true>(src, read, &mut dst[written..], min_room);
    (read + r, written + w)
}

/// The units of `src` from `from` to the end, or up to a surrogate, one at a time
/// with exact room checks (the block loops' last units); returns (units read, bytes
/// written). With `WHOLE_WORDS`, each unit's bytes are stored as a word of four
/// where there is room for it (the bytes past the unit's are overwritten next): the
/// block loop's tails, which [`bmp_run_to_utf8`] meets every run, took random bytes
/// as UTF-16 → `String` 5% faster; in the chunk loop's tail, once per call, it made
/// Russian UTF-16 → `String` 4% slower (`AMD EPYC` Zen 4, AVX-512 tier).
#[inline(always)]
fn units_to_utf8<U: Units, const WHOLE_WORDS: bool>(
    src: U,
    from: usize,
    dst: &mut [u8],
    min_room: usize,
) -> (usize, usize) {
    let mut read = from;
    let mut written = 0;
    while read < src.len() {
        let unit = src.unit(read);
        if is_surrogate(unit) {
            break;
        }
        let (word, n) = packed_utf8(unit);
        if dst.len() - written < n.max(min_room) {
            break;
        }
        if let Some(out) = dst[written..].first_chunk_mut::<4>().filter(|_| WHOLE_WORDS) {
            // All four bytes, the ones past `n` to be overwritten: a copy of `n` bytes
            // is a call to `memcpy`, 7% of the time of random bytes as UTF-16.
            *out = word.to_le_bytes();
        } else {
            dst[written..written + n].copy_from_slice(&word.to_le_bytes()[..n]);
        }
        written += n;
        read += 1;
    }
    (read - from, written)
}

/// Transcodes UTF-16 to UTF-8, whole scalar values only, while they fit; a lone
/// surrogate becomes U+FFFD. Returns (units read, bytes written).
#[inline]
pub(crate) fn utf16_to_utf8(src: &[u16], dst: &mut [u8]) -> (usize, usize) {
    let mut read = 0;
    let mut written = 0;
    loop {
        let (r, w) = bmp_to_utf8(NativeUnits(&src[read..]), &mut dst[written..], 0);
        read += r;
        written += w;
        let Some(&unit) = src.get(read) else {
            return (read, written);
        };
        if !is_surrogate(unit) {
            // Out of room.
            return (read, written);
        }
        let (c, units) = crate::codec::read_utf16(unit, src.get(read + 1).copied());
        let n = c.len_utf8();
        if dst.len() - written < n {
            return (read, written);
        }
        c.encode_utf8(&mut dst[written..]);
        written += n;
        read += units;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// A naive twin: one scalar value at a time, through `char`.
    fn naive(src: &[u16], dst: &mut [u8]) -> (usize, usize) {
        let (mut read, mut written) = (0, 0);
        while let Some(&unit) = src.get(read) {
            let (c, units) = crate::codec::read_utf16(unit, src.get(read + 1).copied());
            if dst.len() - written < c.len_utf8() {
                break;
            }
            written += c.encode_utf8(&mut dst[written..]).len();
            read += units;
        }
        (read, written)
    }

    #[test]
    fn packed_utf8_matches_char_for_every_bmp_code_point() {
        for unit in (0..=0xFFFFu16).filter(|&u| !is_surrogate(u)) {
            let c = char::from_u32(unit as u32).unwrap();
            let mut expected = [0u8; 4];
            let expected = c.encode_utf8(&mut expected).as_bytes();
            let (word, n) = packed_utf8(unit);
            assert_eq!(&word.to_le_bytes()[..n], expected, "{unit:#x}");
        }
    }

    #[test]
    fn transcodes_like_the_naive_twin_at_every_offset_and_room() {
        let text = "a\u{e9}\u{4e2d}\u{1F600}zzzzzzzzzzzzzzzzz\u{7f}\u{80} x\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}y\
                    \u{3b1}\u{3b2}\u{3b3} \u{3b4}\u{3b5}\u{3b6}\u{3b7}\u{3b8}\u{3b9} \u{d55c}\u{ad6d}\u{c5b4} abc";
        let mut units: Vec<u16> = text.encode_utf16().collect();
        units.extend_from_slice(&[0x61, 0xD800, 0x62, 0xDC00, 0xDC00, 0xD800]);
        for start in 0..units.len() {
            let src = &units[start..];
            for size in 0..src.len() * 3 + 4 {
                let (mut a, mut b) = (vec![0u8; size], vec![0u8; size]);
                let got = utf16_to_utf8(src, &mut a);
                assert_eq!(got, naive(src, &mut b), "{start} {size}");
                assert_eq!(a[..got.1], b[..got.1], "{start} {size}");
            }
        }
        let expected = String::from_utf16_lossy(&units);
        let mut out = vec![0u8; units.len() * 3];
        let (read, written) = utf16_to_utf8(&units, &mut out);
        assert_eq!((read, &out[..written]), (units.len(), expected.as_bytes()));
    }

    /// `bmp_to_utf8` from `src` as UTF-16 bytes in both orders, with room for all:
    /// up to the first surrogate, as the standard library converts it.
    fn from_bytes_in_both_orders(src: &[u16], label: &str) {
        for be in [false, true] {
            let bytes: Vec<u8> = src.iter().flat_map(|&u| if be { u.to_be_bytes() } else { u.to_le_bytes() }).collect();
            let mut out = vec![0u8; src.len() * 3 + 8];
            let (read, written) = if be {
                bmp_to_utf8(ByteUnits::<true>(&bytes), &mut out, 0)
            } else {
                bmp_to_utf8(ByteUnits::<false>(&bytes), &mut out, 0)
            };
            let stop = src.iter().position(|&u| is_surrogate(u)).unwrap_or(src.len());
            assert_eq!(read, stop, "{label} {be}");
            let expected = String::from_utf16(&src[..stop]).unwrap();
            assert_eq!(&out[..written], expected.as_bytes(), "{label} {be}");
        }
    }

    /// Text where about half the blocks are ASCII (short words, accented letters), so
    /// that `mixed_text` holds and the windowed loop runs: against the naive twin,
    /// from native units and from bytes in both orders, with ASCII runs of every
    /// length around the window, a three-byte unit now and then, and surrogates
    /// (paired and lone), at every room near the end and every start in the first
    /// window.
    #[test]
    fn windowed_loop_matches_the_naive_twin() {
        let mut next = crate::simd::xorshift(0x5eed);
        let words = ["a", "je", "ve", "stát", "ležící", "při", "hranici", "republika", "—", "na", "z", "🙂"];
        let mut mixed_rounds = 0;
        for round in 0..40 {
            let mut units: Vec<u16> = Vec::new();
            while units.len() < 700 {
                let r = next();
                if r.is_multiple_of(23) {
                    // An ASCII run of 20 to 60 units: around the window's 32.
                    units.extend((0..20 + (r >> 8) % 41).map(|i| b'a' as u16 + (i % 26) as u16));
                } else {
                    // Surrogates (the last word, and lone ones) in one round of four.
                    let choices = if round % 4 == 3 { words.len() } else { words.len() - 1 };
                    units.extend(words[(r >> 16) as usize % choices].encode_utf16());
                }
                units.push(u16::from(b' '));
                if round % 4 == 3 && r.is_multiple_of(97) {
                    units.push(0xDC00 | (r as u16 & 0x3FF));
                }
            }
            mixed_rounds += usize::from(mixed_text(NativeUnits(&units)));
            for start in 0..WINDOW {
                let src = &units[start..];
                let full = src.len() * 3;
                for size in
                    [0, 7, 31, 100, full - 40, full - 1, full].into_iter().chain((0..9).map(|k| src.len() + k * 37))
                {
                    let size = size.min(full);
                    let (mut a, mut b) = (vec![0u8; size], vec![0u8; size]);
                    let got = utf16_to_utf8(src, &mut a);
                    assert_eq!(got, naive(src, &mut b), "{round} {start} {size}");
                    assert_eq!(a[..got.1], b[..got.1], "{round} {start} {size}");
                }
                from_bytes_in_both_orders(src, &format!("{round} {start}"));
            }
        }
        // Most rounds run the windowed loop.
        assert!(mixed_rounds >= 30, "{mixed_rounds} of 40");
    }

    /// The loops each text takes (chunks of one- and two-byte units; chunks with
    /// three-byte units, through the scalar chunk kernel or the tier's shuffle
    /// kernels; blocks), chosen by the share of three-byte units: Russian-like,
    /// Vietnamese-like and CJK-like text against the naive twin, from native units
    /// and from bytes in both orders, with surrogates now and then, at several
    /// starts and rooms.
    #[test]
    fn chunk_loops_match_the_naive_twin() {
        let mut next = crate::simd::xorshift(0xC0FFEE);
        let pools: [&[&str]; 3] = [
            &["и", "на", "Марс", "планета", "«", "»", "—", "1877", "это", " "],
            &["Sao", "Hỏa", "là", "hành", "tinh", "thứ", "tư", "từ", "Mặt", "Trời", "xa", " "],
            &["火星", "は", "太陽系", "の", "惑星", "で", "ある", "。", "(", "Mars", ")", "、"],
        ];
        for (kind, words) in pools.iter().enumerate() {
            for round in 0..12 {
                let mut units: Vec<u16> = Vec::new();
                while units.len() < 600 {
                    let r = next();
                    units.extend(words[(r >> 8) as usize % words.len()].encode_utf16());
                    if round % 3 == 2 && r.is_multiple_of(61) {
                        units.extend("🙂".encode_utf16());
                    }
                    if round % 3 == 2 && r.is_multiple_of(97) {
                        units.push(0xD800 | (r as u16 & 0x3FF));
                    }
                }
                for start in [0, 1, 5, 17, 31, 64] {
                    let src = &units[start..];
                    let full = src.len() * 3;
                    for size in [0, 40, 135, 136, 137, 300, full - 100, full - 1, full] {
                        let (mut a, mut b) = (vec![0u8; size], vec![0u8; size]);
                        let got = utf16_to_utf8(src, &mut a);
                        assert_eq!(got, naive(src, &mut b), "{kind} {round} {start} {size}");
                        assert_eq!(a[..got.1], b[..got.1], "{kind} {round} {start} {size}");
                    }
                    from_bytes_in_both_orders(src, &format!("{kind} {round} {start}"));
                }
            }
        }
    }

    /// The loop of the tiers below SSSE3 for swapped units (big-endian bytes), a
    /// window of [`SWAP_WINDOW`] units at a time: text of several windows with a
    /// surrogate (paired, across the boundary, or lone), a three-byte unit or an
    /// ASCII run across each window boundary, with the portable and the SSE2 kernels,
    /// at every room around the output of the first window, against the standard
    /// library: up to the first surrogate or the first unit that does not fit with
    /// `min_room` to spare.
    #[test]
    fn swapped_windows_match_the_standard_library() {
        let words =
            ["a", "stát", "на", "Марс", "火星", "は", "Sao", "Hỏa", " ", "abcdefghijklmnopqrstuvwxyz0123456789"];
        let mut next = crate::simd::xorshift(0x5A9);
        let mut text: Vec<u16> = Vec::new();
        while text.len() < 3 * SWAP_WINDOW + 100 {
            text.extend(words[(next() >> 8) as usize % words.len()].encode_utf16());
        }
        let across: [&[u16]; 4] = [&[0xD83D, 0xDE00], &[0xDC00, 0x41], &[0x4E2D, 0x4E2D], &[0x61, 0x62]];
        for (k, around) in across.iter().enumerate() {
            for shift in 0..3 {
                let mut units = text.clone();
                for window in 1..=2 {
                    let at = window * SWAP_WINDOW - 1 + shift;
                    units[at..at + around.len()].copy_from_slice(around);
                }
                let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
                let stop = units.iter().position(|&u| is_surrogate(u)).unwrap_or(units.len());
                let first_window = String::from_utf16(&units[..SWAP_WINDOW.min(stop)]).unwrap().len();
                let sizes = (first_window.saturating_sub(8)..first_window + 8).chain([0, 5, units.len() * 3]);
                for size in sizes {
                    for min_room in [0, 3] {
                        for kernels in [BlockKernels::Portable as u8, BlockKernels::Sse2 as u8] {
                            let mut out = vec![0u8; size];
                            let src = ByteUnits::<true>(&bytes);
                            let (read, written) = if kernels == BlockKernels::Portable as u8 {
                                swapped_to_utf8::<_, { BlockKernels::Portable as u8 }>(src, &mut out, min_room)
                            } else {
                                swapped_to_utf8::<_, { BlockKernels::Sse2 as u8 }>(src, &mut out, min_room)
                            };
                            let label = format!("{k} {shift} {size} {min_room} {kernels}");
                            stopped_right(&units, stop, &out, min_room, (read, written), &label);
                        }
                    }
                }
            }
        }
    }

    /// Checks a transcoding of `units` into `out` that read and wrote `done`
    /// against the standard library: the bytes of the units read, and a stop only at
    /// `stop` (the first surrogate) or where the next unit's bytes, or `min_room`, no
    /// longer fit.
    /// [`bmp_to_utf8_words`] with the portable kernels or (`sse2`) SSE2's, which the
    /// tiers below SSSE3 run ([`bmp_to_utf8_capped`]), from `units` as they are
    /// (`source` 0) or from their bytes, little-endian (1) or big-endian (2).
    fn words_with(
        sse2: bool,
        source: usize,
        (units, bytes): (&[u16], &[Vec<u8>; 2]),
        out: &mut [u8],
        min_room: usize,
        text: Text,
    ) -> (usize, usize) {
        fn with<const K: u8>(
            source: usize,
            units: &[u16],
            bytes: &[Vec<u8>; 2],
            out: &mut [u8],
            min_room: usize,
            text: Text,
        ) -> (usize, usize) {
            match source {
                0 => bmp_to_utf8_words::<_, K>(NativeUnits(units), out, min_room, text),
                1 => bmp_to_utf8_words::<_, K>(ByteUnits::<false>(&bytes[0]), out, min_room, text),
                _ => bmp_to_utf8_words::<_, K>(ByteUnits::<true>(&bytes[1]), out, min_room, text),
            }
        }
        if sse2 {
            with::<{ BlockKernels::Sse2 as u8 }>(source, units, bytes, out, min_room, text)
        } else {
            with::<{ BlockKernels::Portable as u8 }>(source, units, bytes, out, min_room, text)
        }
    }

    fn stopped_right(units: &[u16], stop: usize, out: &[u8], min_room: usize, done: (usize, usize), label: &str) {
        let (read, written) = done;
        let expected = String::from_utf16(&units[..read]).unwrap();
        assert_eq!(&out[..written], expected.as_bytes(), "{label}");
        assert!(read <= stop, "{label}");
        if read < stop {
            let next = char::from_u32(units[read].into()).unwrap().len_utf8();
            assert!(out.len() - written < next.max(min_room), "{label}");
        }
    }

    /// [`Units::ascii16`] and [`Units::raw_words`], which read big-endian bytes
    /// without swapping them, against the units: every code unit, at both ends of
    /// each half of sixteen ASCII units, from native units and bytes in both orders.
    #[test]
    fn raw_reads_tell_ascii_as_the_units_do() {
        fn check<U: Units>(src: U, units: &[u16; 16], label: &str) {
            let (bytes, ascii) = src.ascii16(0);
            assert_eq!(ascii, units.iter().all(|&u| u < 0x80), "{label}");
            let words = [src.raw_words(0), src.raw_words(8)].concat();
            for (k, &unit) in units.iter().enumerate() {
                let lane = (words[k / 4] >> (16 * (k % 4))) & 0xFFFF;
                assert_eq!(lane & U::RAW_NOT_ASCII & 0xFFFF == 0, unit < 0x80, "{label} {k}");
                if unit < 0x80 {
                    assert_eq!(bytes[k], unit as u8, "{label} {k}");
                    assert_eq!(lane >> U::RAW_BYTE_SHIFT, u64::from(unit), "{label} {k}");
                }
            }
        }
        for unit in 0..=u16::MAX {
            for at in [0, 7, 8, 15] {
                let mut units: [u16; 16] = core::array::from_fn(|k| u16::from(b'a') + k as u16);
                units[at] = unit;
                let [le, be]: [Vec<u8>; 2] = [false, true]
                    .map(|be| units.iter().flat_map(|&u| if be { u.to_be_bytes() } else { u.to_le_bytes() }).collect());
                let label = format!("{unit:04X} {at}");
                check(NativeUnits(&units), &units, &label);
                check(ByteUnits::<false>(&le), &units, &label);
                check(ByteUnits::<true>(&be), &units, &label);
            }
        }
    }

    /// The portable loop with [`latin_run`] ([`Text::Sparse`], for text of long
    /// ASCII runs) and with [`letter_steps`] ([`Text::Letters`], for text with a
    /// letter every 20 units or so), against the standard library: ASCII words with
    /// a unit that is not ASCII now and then (one, two or three bytes; some close
    /// together, three or more in a step of sixteen, so that the run or the steps
    /// hand back to the chunks), a surrogate pair or a lone surrogate rarely; from
    /// native units and from bytes in both orders, at every room and with room kept.
    /// It stops only at a surrogate or for room.
    #[test]
    fn latin_runs_and_letter_steps_match_the_standard_library() {
        let rare = ["\u{e9}", "\u{df}", "\u{2019}", "\u{7ff}", "\u{800}", "\u{fffd}", "\u{e9}\u{e9}", "\u{e4}b\u{fc}"];
        let letters =
            ["\u{e7}\u{e3}o", "\u{e9}", "\u{ea}ncia", "\u{c0}", "\u{f5}es", "\u{ab}\u{a0}", "\u{7ff}", "\u{80}"];
        for (text, every, seed) in [(Text::Sparse, 61, 0x1A71), (Text::Letters, 5, 0x1E77)] {
            let mut next = crate::simd::xorshift(seed);
            for round in 0..6 {
                let mut units: Vec<u16> = Vec::new();
                while units.len() < 700 {
                    let r = next();
                    units.extend(
                        ["the ", "sparse", " text ", "of ", "a", "bcdefgh "][(r >> 8) as usize % 6].encode_utf16(),
                    );
                    if r.is_multiple_of(every) {
                        let pick = (r >> 20) as usize;
                        // Letters: a three-byte unit or three letters close together
                        // now and then.
                        let piece = match text {
                            Text::Letters if !pick.is_multiple_of(9) => letters[pick % letters.len()],
                            _ => rare[pick % rare.len()],
                        };
                        units.extend(piece.encode_utf16());
                    }
                    if round >= 4 && r.is_multiple_of(131) {
                        units.extend_from_slice(if round == 4 { &[0xD83D, 0xDE00] } else { &[0xDC00] });
                    }
                }
                assert!(round >= 4 || Text::of(NativeUnits(&units)) == text, "{text:?} {round}");
                let stop = units.iter().position(|&u| is_surrogate(u)).unwrap_or(units.len());
                let bytes: [Vec<u8>; 2] = [false, true]
                    .map(|be| units.iter().flat_map(|&u| if be { u.to_be_bytes() } else { u.to_le_bytes() }).collect());
                let full = String::from_utf16(&units[..stop]).unwrap().len();
                for size in 0..=full + 8 {
                    for min_room in [0, 3, 8] {
                        for (source, sse2) in (0..3).flat_map(|source| [(source, false), (source, true)]) {
                            let mut out = vec![0u8; size];
                            let done = words_with(sse2, source, (&units, &bytes), &mut out, min_room, text);
                            let label = format!("{text:?} {round} {size} {min_room} {source} {sse2}");
                            stopped_right(&units, stop, &out, min_room, done, &label);
                        }
                    }
                }
            }
        }
    }

    /// Text of letters for more than a window ([`LETTERS_WINDOW`]), then markup (an
    /// arrow in it now and then), then letters again, then CJK, then letters: the
    /// loop leaves the steps after the window that ends in markup ([`Text::after_window`] says
    /// [`Text::Sparse`] there, [`Text::Chunks`] in CJK, the steps in letters), and
    /// writes what the standard library does, from native units and bytes in both
    /// orders, with rooms that cut it in each part.
    #[test]
    fn letter_steps_end_where_the_letters_do() {
        let mut next = crate::simd::xorshift(0x1E77_0038);
        let mut letters = |units: &mut Vec<u16>, n: usize| {
            let end = units.len() + n;
            while units.len() < end {
                let r = next();
                units.extend(["une ", "phrase", " de ", "texte ", "o", "mot "][(r >> 8) as usize % 6].encode_utf16());
                if r.is_multiple_of(7) {
                    units.extend(["\u{e9}", "\u{e8}s", "\u{e7}a", "\u{e0}"][(r >> 20) as usize % 4].encode_utf16());
                }
            }
        };
        // With an arrow now and then, where the steps stop.
        let markup = |units: &mut Vec<u16>, n: usize| {
            let end = units.len() + n;
            for k in 0.. {
                if units.len() >= end {
                    break;
                }
                units.extend("<a href=\"/wiki/Page\" class=\"link\">".encode_utf16());
                if k % 8 == 7 {
                    units.extend("\u{2192}".encode_utf16());
                }
            }
        };
        let cjk = |units: &mut Vec<u16>, n: usize| units.extend((0..n).map(|i| 0x4E00 + (i as u16 % 500)));
        let mut units = Vec::new();
        letters(&mut units, 3000);
        let first = units.len();
        markup(&mut units, 3000);
        let second = units.len();
        letters(&mut units, 3000);
        let third = units.len();
        cjk(&mut units, 3000);
        letters(&mut units, 1000);
        assert_eq!(Text::of(NativeUnits(&units)), Text::Letters);
        let at = |i: usize, letters: usize| Text::after_window(NativeUnits(&units), i, LETTERS_WINDOW, letters);
        assert_eq!(at(first + 100, 0), Text::Sparse);
        assert_eq!(at(first + 100, LETTERS_WINDOW / LETTERS_AT_LEAST), Text::Letters);
        assert_eq!(at(second + 100, 0), Text::Sparse);
        assert_eq!(at(third + 100, 0), Text::Chunks);
        let bytes: [Vec<u8>; 2] = [false, true]
            .map(|be| units.iter().flat_map(|&u| if be { u.to_be_bytes() } else { u.to_le_bytes() }).collect());
        let full = String::from_utf16(&units).unwrap().len();
        for size in [full + 8, full, full - 1, full / 2, first + 1000, third + 2000, 0] {
            for min_room in [0, 8] {
                for (source, sse2) in (0..3).flat_map(|source| [(source, false), (source, true)]) {
                    let mut out = vec![0u8; size];
                    let done = words_with(sse2, source, (&units, &bytes), &mut out, min_room, Text::Letters);
                    stopped_right(&units, units.len(), &out, min_room, done, &format!("{size} {source} {sse2}"));
                }
            }
        }
    }

    /// [`letter_steps`] on every placement of up to three units that are not ASCII
    /// in a step of sixteen (two-byte ones at both ends of their range, and three-byte
    /// ones), the same placement in the next step, then a step of ASCII: it takes the
    /// steps with two letters or fewer, stops before any other, and writes what the
    /// standard library does; at every room down to none.
    #[test]
    fn letter_steps_take_every_placement_of_two_letters_or_fewer() {
        let mut placements: Vec<Vec<usize>> = vec![vec![]];
        for a in 0..16 {
            placements.push(vec![a]);
            for b in a + 1..16 {
                placements.push(vec![a, b]);
                placements.extend((b + 1..16).map(|c| vec![a, b, c]));
            }
        }
        for places in &placements {
            for unit in [0x80, 0xE9, 0x7FF, 0x800, 0xFFFD] {
                let mut units: Vec<u16> = (0..48).map(|i| u16::from(b'a') + i % 26).collect();
                for &at in places {
                    units[at] = unit;
                    units[16 + at] = 0xE9;
                }
                let takes = places.len() <= 2 && (places.is_empty() || unit < 0x800);
                for size in [0, LETTER_ROOM - 1, LETTER_ROOM, 2 * LETTER_ROOM, 200] {
                    let mut out = vec![0u8; size];
                    let (read, written) = letter_steps(NativeUnits(&units), 0, &mut out);
                    let label = format!("{places:?} {unit:X} {size}");
                    assert_eq!(&out[..written], String::from_utf16(&units[..read]).unwrap().as_bytes(), "{label}");
                    let expected = if !takes || size < LETTER_ROOM {
                        0
                    } else if size < 16 + places.len() + LETTER_ROOM {
                        16
                    } else if size < 32 + 2 * places.len() + LETTER_ROOM {
                        32
                    } else {
                        48
                    };
                    assert_eq!(read, expected, "{label}");
                }
            }
        }
    }

    /// Dense and sparse surrogates, pairs among them, every length to 100 units and
    /// rooms around it, both byte orders: the output is the standard library's
    /// lossy conversion of the blocks taken, and the loop stops where its rule says.
    #[test]
    fn replacing_blocks_match_the_standard_library() {
        for surrogates_in in [3, 5, 40] {
            for len in 0..100usize {
                let units = scalar::tests::surrogate_text(len as u64 * 31 + surrogates_in, len, surrogates_in);
                for be in [false, true] {
                    let bytes: Vec<u8> =
                        units.iter().flat_map(|&u| if be { u.to_be_bytes() } else { u.to_le_bytes() }).collect();
                    for size in [0, 31, 32, 33, 57, 3 * len, 3 * len + 40] {
                        let mut out = vec![0u8; size];
                        let (read, written) = if be {
                            bmp_replacing_to_utf8(ByteUnits::<true>(&bytes), &mut out, 7)
                        } else {
                            bmp_replacing_to_utf8(ByteUnits::<false>(&bytes), &mut out, 7)
                        };
                        // The rule, a block at a time.
                        let (mut expected_read, mut expected, mut calm) = (0, String::new(), 0);
                        while expected_read + 9 <= len && calm < scalar::CALM_BLOCKS && size - expected.len() >= 32 {
                            let block = &units[expected_read..expected_read + 9];
                            let pair = (0..8).any(|k| {
                                (0xD800..0xDC00).contains(&block[k]) && (0xDC00..0xE000).contains(&block[k + 1])
                            });
                            if pair {
                                break;
                            }
                            let surrogates = block[..8].iter().any(|u| (0xD800..0xE000).contains(u));
                            calm = if surrogates { 0 } else { calm + 1 };
                            expected.push_str(&String::from_utf16_lossy(&block[..8]));
                            expected_read += 8;
                        }
                        let label = format!("{units:04X?} {be} {size}");
                        assert_eq!(read, expected_read, "{label}");
                        assert_eq!(&out[..written], expected.as_bytes(), "{label}");
                    }
                }
            }
        }
    }

    #[test]
    fn runs_in_blocks_match_the_standard_library() {
        // Runs of every length to 300 units, none a surrogate: ASCII runs, two- and
        // three-byte units, mixed; every room around the run's own at short lengths.
        let mut rng = scalar::tests::Rng(0x2545_F491_4F6C_DD1D);
        for len in 0..=300usize {
            let units: Vec<u16> = (0..len)
                .map(|i| {
                    let r = rng.next();
                    let unit = match (r >> 60, i / 24 % 3) {
                        (_, 0) => (r % 0x80) as u16,
                        (0..=5, _) => (r % 0x80) as u16,
                        (6..=9, _) => 0x80 + (r % 0x780) as u16,
                        _ => 0x800 + (r % 0xF800) as u16,
                    };
                    if is_surrogate(unit) { unit - 0x800 } else { unit }
                })
                .collect();
            let expected = String::from_utf16(&units).unwrap();
            for be in [false, true] {
                let bytes: Vec<u8> =
                    units.iter().flat_map(|&u| if be { u.to_be_bytes() } else { u.to_le_bytes() }).collect();
                let sizes: Vec<usize> = if len <= 40 { (0..=3 * len + 8).collect() } else { vec![3 * len + 7] };
                for size in sizes {
                    for min_room in [0, 7] {
                        let mut out = vec![0u8; size];
                        let got = if be {
                            bmp_run_to_utf8(ByteUnits::<true>(&bytes), &mut out, min_room)
                        } else {
                            bmp_run_to_utf8(ByteUnits::<false>(&bytes), &mut out, min_room)
                        };
                        let Some((read, written)) = got else {
                            // The portable tier: the caller's loop.
                            return;
                        };
                        let label = format!("{len} {be} {size} {min_room}");
                        assert_eq!(&out[..written], String::from_utf16(&units[..read]).unwrap().as_bytes(), "{label}");
                        if read < len {
                            // Stopped for room: the next unit did not fit with min_room.
                            let next = char::from_u32(u32::from(units[read])).unwrap().len_utf8();
                            assert!(size - written < next.max(min_room), "{label}");
                        } else {
                            assert_eq!(written, expected.len(), "{label}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn byte_units_stop_at_surrogates_and_keep_min_room() {
        let units: Vec<u16> =
            "\u{3b1}b\u{4e2d}\u{4e2d}\u{4e2d}cd\u{7ff}\u{800}aaaaaaaaaaaaaaaaaaaaaaaaaaaa\u{3b1}\u{3b2}"
                .encode_utf16()
                .chain([0xD83D, 0xDE00, 0x41])
                .collect();
        let surrogate_at = units.iter().position(|&u| is_surrogate(u)).unwrap();
        for start in 0..surrogate_at {
            for min_room in [0, 3, 7] {
                for size in 0..120 {
                    for be in [false, true] {
                        let bytes: Vec<u8> = units[start..]
                            .iter()
                            .flat_map(|&u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
                            .collect();
                        let mut out = vec![0u8; size];
                        let (read, written) = if be {
                            bmp_to_utf8(ByteUnits::<true>(&bytes), &mut out, min_room)
                        } else {
                            bmp_to_utf8(ByteUnits::<false>(&bytes), &mut out, min_room)
                        };
                        let expected = String::from_utf16(&units[start..start + read]).unwrap();
                        assert_eq!(&out[..written], expected.as_bytes());
                        if read < surrogate_at - start {
                            // Stopped for room: the next unit did not fit with min_room.
                            let next = char::from_u32(units[start + read] as u32).unwrap().len_utf8();
                            assert!(size - written < next.max(min_room), "{start} {min_room} {size}");
                        }
                    }
                }
            }
        }
    }
}
