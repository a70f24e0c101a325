//! Byte-shuffle tables shared by the x86_64 (SSSE3 `pshufb`) and aarch64 (NEON
//! `tbl`) kernels of UTF-16 → UTF-8: one algorithm, two instruction sets. Both
//! instructions give zero for an index with its high bit set (0x80 here).

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
