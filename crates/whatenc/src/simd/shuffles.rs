//! Byte-shuffle tables shared by the x86_64 (SSSE3 `pshufb`) and aarch64 (NEON
//! `tbl`) kernels of UTF-16 → UTF-8 and UTF-8 → UTF-16: one algorithm, two
//! instruction sets. Both instructions give zero for an index with its high bit set
//! (0x80 here).
//!
//! UTF-8 → UTF-16 a block at a time: the continuation bytes among the next 16 tell
//! where the characters of the first 12 end; that 12-bit mask picks one of the
//! [`PATTERNS`] ([`PATTERN_OF_ENDS`]), which gathers the bytes of the first six
//! characters (when none is longer than two bytes) or the first four (when none is
//! longer than three) into one lane each with one byte shuffle, where a few masks
//! and shifts make the code units. A four-byte character goes through the scalar
//! code. The patterns are computed at compile time from their index.

/// The shuffles that pack four UTF-8 sequences of one to three bytes (each a
/// little-endian word in a 32-bit lane) into consecutive bytes, and what they pack.
pub(crate) struct Utf8WordPacks {
    /// For each pattern of lengths of four sequences of one to three bytes, each a
    /// little-endian word in a 32-bit lane: the byte shuffle that packs them into
    /// consecutive bytes, 0x80 (zero with SSSE3's `pshufb` and NEON's `tbl`) after them. The index has bit k set when unit
    /// k is below 0x80 and bit 4 + k when it is below 0x800 (so a unit takes three
    /// bytes less one for each bit set).
    pub(crate) shuffles: [[u8; 16]; 256],
    /// The bytes each shuffle packs (a table: `count_ones` is not one instruction in
    /// the x86_64 baseline).
    pub(crate) lengths: [u8; 256],
}

pub(crate) static UTF8_WORD_PACKS: Utf8WordPacks = {
    let mut packs = Utf8WordPacks { shuffles: [[0x80u8; 16]; 256], lengths: [0; 256] };
    let mut index = 0;
    while index < 256 {
        let mut at = 0;
        let mut k = 0;
        while k < 4 {
            let len = 3 - (index >> k & 1) - (index >> (4 + k) & 1);
            let mut b = 0;
            while b < len {
                packs.shuffles[index][at] = (4 * k + b) as u8;
                at += 1;
                b += 1;
            }
            k += 1;
        }
        packs.lengths[index] = at as u8;
        index += 1;
    }
    packs
};

/// For each set of ASCII units among eight (bit k for unit k), the byte shuffle that
/// packs eight one- or two-byte sequences, each in a 16-bit lane (the ASCII byte or
/// the lead byte low, the trail byte high), into consecutive bytes: both bytes of a
/// lane, or only the low one for an ASCII unit; 0x80 (zero) after them.
pub(crate) static ONE_OR_TWO_BYTE_PACKS: [[u8; 16]; 256] = {
    let mut packs = [[0x80u8; 16]; 256];
    let mut ascii = 0;
    while ascii < 256 {
        let mut at = 0;
        let mut k = 0;
        while k < 8 {
            packs[ascii][at] = 2 * k as u8;
            at += 1;
            if ascii >> k & 1 == 0 {
                packs[ascii][at] = 2 * k as u8 + 1;
                at += 1;
            }
            k += 1;
        }
        ascii += 1;
    }
    packs
};

/// Patterns 0 to 63: six characters of one or two bytes (bit k of the index set when
/// character k has two bytes), each in a 16-bit lane: its last byte low, its
/// leading byte high (zero for ASCII).
pub(crate) const TWO_BYTE_PATTERNS: usize = 64;
/// Patterns 64 to 144: four characters of one to three bytes (base-3 digit k of the
/// index minus 64 is the length of character k minus one), each in a 32-bit lane:
/// last byte, the one before, the one before that (zero where there are fewer).
pub(crate) const THREE_BYTE_PATTERNS: usize = 81;
/// The pattern of four characters of three bytes.
pub(crate) const FOUR_OF_THREE: u16 = (TWO_BYTE_PATTERNS + THREE_BYTE_PATTERNS - 1) as u16;
/// The last pattern: a character of four bytes within the first four.
pub(crate) const FALLBACK: u16 = (TWO_BYTE_PATTERNS + THREE_BYTE_PATTERNS) as u16;

/// The byte shuffle of the pattern at `index` (see the constants above): for each
/// output byte, the input byte (0x80 for zero).
const fn pattern(index: usize) -> [u8; 16] {
    let mut shuffle = [0x80u8; 16];
    let mut consumed = 0usize;
    if index < TWO_BYTE_PATTERNS {
        let mut k = 0;
        while k < 6 {
            let len = 1 + ((index >> k) & 1);
            shuffle[2 * k] = (consumed + len - 1) as u8;
            if len == 2 {
                shuffle[2 * k + 1] = consumed as u8;
            }
            consumed += len;
            k += 1;
        }
    } else if index < FALLBACK as usize {
        let mut digits = index - TWO_BYTE_PATTERNS;
        let mut k = 0;
        while k < 4 {
            let len = 1 + digits % 3;
            digits /= 3;
            let mut j = 0;
            while j < len {
                // Byte j of the lane is the character's byte len − 1 − j.
                shuffle[4 * k + j] = (consumed + len - 1 - j) as u8;
                j += 1;
            }
            consumed += len;
            k += 1;
        }
    }
    shuffle
}

/// Every pattern's byte shuffle, by index.
pub(crate) static PATTERNS: [[u8; 16]; FALLBACK as usize + 1] = {
    let mut patterns = [[0; 16]; FALLBACK as usize + 1];
    let mut i = 0;
    while i < patterns.len() {
        patterns[i] = pattern(i);
        i += 1;
    }
    patterns
};

/// For each 12-bit mask of the bytes that end a character: the pattern index, and
/// the bytes its characters take times 256.
pub(crate) static PATTERN_OF_ENDS: [u16; 4096] = {
    let mut table = [FALLBACK; 4096];
    let mut ends = 0;
    while ends < 4096 {
        // The lengths of the characters that end in the first 12 bytes.
        let mut lengths = [0usize; 12];
        let mut count = 0;
        let mut start = 0;
        let mut i = 0;
        while i < 12 {
            if ends & (1 << i) != 0 {
                lengths[count] = i + 1 - start;
                count += 1;
                start = i + 1;
            }
            i += 1;
        }
        let mut two = count >= 6;
        let mut k = 0;
        while two && k < 6 {
            two = lengths[k] <= 2;
            k += 1;
        }
        let mut three = count >= 4;
        let mut k = 0;
        while three && k < 4 {
            three = lengths[k] <= 3;
            k += 1;
        }
        if two {
            let mut index = 0;
            let mut consumed = 0;
            let mut k = 0;
            while k < 6 {
                index |= (lengths[k] - 1) << k;
                consumed += lengths[k];
                k += 1;
            }
            table[ends] = (index | (consumed << 8)) as u16;
        } else if three {
            let mut index = 0;
            let mut consumed = 0;
            let mut k = 4;
            while k > 0 {
                k -= 1;
                index = index * 3 + lengths[k] - 1;
                consumed += lengths[k];
            }
            table[ends] = ((TWO_BYTE_PATTERNS + index) | (consumed << 8)) as u16;
        }
        ends += 1;
    }
    table
};

/// The pattern of a step (an index into [`PATTERNS`]) and the bytes its characters
/// take, from the mask of the bytes that end a character among the first 12.
#[inline(always)]
pub(crate) fn pattern_of_ends(ends: u32) -> (u16, usize) {
    if ends & 0xFFF == 0b1001_0010_0100 {
        // Four characters of three bytes, the common case of CJK text: a branch (not
        // a lookup) so that the next step need not wait for the table.
        (FOUR_OF_THREE, 12)
    } else {
        let entry = PATTERN_OF_ENDS[ends as usize & 0xFFF];
        (entry & 0xFF, (entry >> 8) as usize)
    }
}

/// The [`FALLBACK`] step: the one character at `read` (of four bytes, or shorter
/// before one), through the scalar code. Returns the bytes read and the units
/// written.
#[inline(never)]
pub(crate) fn one_character(s: &str, read: usize, dst: &mut [u16], written: usize) -> (usize, usize) {
    let len = match s.as_bytes()[read] {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    };
    (len, super::scalar::utf8_to_utf16(&s[read..read + len], &mut dst[written..]))
}

/// The runs of three-byte characters five at a step (`ssse3::three_byte_run`, NEON's
/// twin, and each 128-bit lane of the AVX2 one): the shape of five three-byte
/// sequences in 16 bytes (lead E0 to EF, two continuation bytes), as a mask and the
/// masked bytes, and the bits each byte gives.
pub(super) const RUN_SHAPE_MASK: [u8; 16] =
    [0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0xF0, 0xC0, 0xC0, 0];
/// See [`RUN_SHAPE_MASK`].
pub(super) const RUN_SHAPE: [u8; 16] =
    [0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0xE0, 0x80, 0x80, 0];
/// See [`RUN_SHAPE_MASK`].
pub(super) const RUN_BITS: [u8; 16] =
    [0x0F, 0x3F, 0x3F, 0x0F, 0x3F, 0x3F, 0x0F, 0x3F, 0x3F, 0x0F, 0x3F, 0x3F, 0x0F, 0x3F, 0x3F, 0];
/// Each character's two continuation bytes into a 16-bit lane (last byte low), and
/// its lead byte into the high byte of another (0xFF gives zero).
pub(super) const RUN_TAILS: [u8; 16] = [2, 1, 5, 4, 8, 7, 11, 10, 14, 13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];
/// See [`RUN_TAILS`].
pub(super) const RUN_LEADS: [u8; 16] =
    [0xFF, 0, 0xFF, 3, 0xFF, 6, 0xFF, 9, 0xFF, 12, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];

/// For each 8-bit mask, the byte-shuffle indexes (`pshufb`, `tbl`) that gather the
/// bytes of an 8-byte group whose bits are set, in order (0x80, a zero, after them):
/// the packing of the steps from UTF-8 into a single-byte encoding (AVX2's and
/// NEON's `linear_steps_from_utf8`).
pub(crate) static KEEP_SHUFFLES: [[u8; 16]; 256] = keep_shuffles();

const fn keep_shuffles() -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut bit, mut kept) = (0, 0);
        while bit < 8 {
            if mask >> bit & 1 != 0 {
                table[mask][kept] = bit as u8;
                kept += 1;
            }
            bit += 1;
        }
        mask += 1;
    }
    table
}
