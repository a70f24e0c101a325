//! The shapes of the trained tables (`tables/detect.rs`, written by
//! `cargo xtask train-detector`) and the scoring of one pair or character.

use crate::encoding::Encoding;

/// A byte's class that is an error or a C1 control: the candidate is out.
pub(crate) const INVALID: u8 = 0x7F;
/// The bit of a class byte that marks an upper-case letter.
pub(crate) const UPPER: u8 = 0x80;
/// The classes from this one on are letters: a letter foreign to the group, an
/// ASCII letter in a non-Latin group, a vowel mark, then the group's alphabet.
/// Below it: ASCII non-letters, punctuation, symbols, opening and closing quotes.
pub(crate) const FOREIGN: u8 = 5;
/// "Odd case alternation": an upper-case letter right after a lower-case one, with
/// one of the two non-ASCII (about e^-3: camelCase exists, but rarely in prose).
pub(crate) const CASE_PENALTY: u32 = 48;

/// A language group: its number of classes, and its languages' models (in
/// `tables::MODELS`): `costs[previous * classes + current]` is
/// −16·ln P(current | previous), quantised to a byte.
#[derive(Debug)]
pub(crate) struct Group {
    pub(crate) classes: usize,
    /// Whether the group's script is Latin.
    pub(crate) latin: bool,
    pub(crate) models: core::ops::Range<usize>,
}

/// A single-byte encoding as a candidate: its group's model and its byte → class map.
#[derive(Debug)]
pub(crate) struct SingleByteCandidate {
    pub(crate) encoding: &'static &'static Encoding,
    pub(crate) group: usize,
    /// Cost added once, so that the commoner encoding wins a tie.
    pub(crate) prior: u8,
    pub(crate) map: &'static [u8; 256],
}

/// An upper-case letter: prose has a few in a hundred letters (about e^-2; the
/// models are case-folded, so this is the case's share of the cost).
pub(crate) const UPPER_COST: u32 = 32;

/// The case cost of the class byte `current` after `previous`; `opens`: the byte
/// before is a line break, tab, quote or bracket, or there is none, where a
/// capital is as usual as not.
#[inline]
pub(crate) fn case_penalty(previous: u8, current: u8, opens: bool) -> u32 {
    if current & UPPER == 0 || opens {
        return 0;
    }
    let letters = (previous & !UPPER) >= FOREIGN;
    if letters && previous & UPPER == 0 { UPPER_COST + CASE_PENALTY } else { UPPER_COST }
}

/// Whether a capital after this byte is as usual as not (see [`case_penalty`]).
pub(crate) fn opens(byte: u8) -> bool {
    matches!(byte, b'\n' | b'\r' | b'\t' | b'"' | b'\'' | b'(' | b'[')
}

/// The cost of a non-ASCII character (a UTF-16 unit; surrogates are odd) for a
/// CJK column: its trained cost, or by script when it is not among the column's
/// most frequent characters.
pub(crate) fn cjk_cost(unit: u16, column: usize) -> u32 {
    CJK_CHARACTER + cjk_character_cost(unit, column)
}

/// What each CJK character costs on top of its frequency: the unigram model is
/// blind to order, so a random reading of other text (Thai, Greek, Cyrillic bytes
/// read as GBK) looks likelier to it than to a model that sees order.
pub(crate) const CJK_CHARACTER: u32 = 24;

fn cjk_character_cost(unit: u16, column: usize) -> u32 {
    use super::tables::{CJK_CODE_POINTS, CJK_COSTS, CJK_LEVELS, CJK_RARE};
    if let Ok(at) = CJK_CODE_POINTS.binary_search(&unit) {
        let code = (CJK_COSTS[at] >> (4 * column)) & 15;
        if code != 15 {
            return CJK_LEVELS[code as usize] as u32;
        }
    }
    let rare = CJK_RARE[column] as u32;
    match unit {
        // Han ideographs: rare ones; rarer still in Korean text.
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => {
            if column == COLUMN_KO {
                rare + 32
            } else {
                rare
            }
        }
        0xAC00..=0xD7A3 if column == COLUMN_KO => rare,
        0x3040..=0x30FF if column == COLUMN_JA => rare,
        // Ideographic punctuation and full-width forms.
        0x3000..=0x303F | 0xFF01..=0xFF5E => 40,
        // Symbols that CJK text has: ×, °, ±, ·, quotes and dashes, №, arrows,
        // circled numbers, shapes.
        0x00A0..=0x00FF | 0x2010..=0x203F | 0x2100..=0x21FF | 0x2460..=0x24FF | 0x25A0..=0x25FF => 96,
        // Kana outside Japanese, hangul outside Korean, half-width katakana,
        // surrogates (four-byte gb18030), symbols and other scripts' letters.
        _ => ODD,
    }
}

/// The cost of a character that prose in the column's language hardly has.
pub(crate) const ODD: u32 = 230;
pub(crate) const COLUMN_ZH_HANS: usize = 0;
pub(crate) const COLUMN_ZH_HANT: usize = 1;
pub(crate) const COLUMN_JA: usize = 2;
pub(crate) const COLUMN_KO: usize = 3;
