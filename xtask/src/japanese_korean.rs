//! Tables for EUC-JP, ISO-2022-JP, Shift_JIS and EUC-KR:
//!
//! - `jis0208.rs`: index jis0208 for decoders (split around the empty EUDC pointers
//!   8836 to 10715), its reverse map (the standard's "index pointer", the first
//!   pointer), the Shift_JIS encoder's bytes for each code point (from the "index
//!   Shift_JIS pointer"), and index ISO-2022-JP katakana;
//! - `jis0212.rs`: index jis0212 for the EUC-JP decoder;
//! - `euc_kr.rs`: index EUC-KR for the decoder (split where the rows lose their
//!   trailing bytes below 0xA1) and its reverse map.
//!
//! Every table stores 0 for a null code point (no index maps a pointer to U+0000).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::data::{Data, Index};
use crate::{Generated, array_body, bmp_map};

/// The first pointer of the Shift_JIS EUDC range, which index jis0208 leaves empty.
const EUDC_FIRST: u32 = 8836;
/// The last pointer of the Shift_JIS EUDC range.
const EUDC_LAST: u32 = 10715;
/// The pointers that "index Shift_JIS pointer" excludes.
const SHIFT_JIS_EXCLUDED: std::ops::RangeInclusive<u32> = 8272..=8835;
/// Pointers per row of index EUC-KR.
const EUC_KR_ROW: u32 = 190;
/// Where the trailing bytes 0xA1 to 0xFE start in an index EUC-KR row.
const EUC_KR_HIGH_TRAIL: u32 = 0xA1 - 0x41;

pub fn generate(data: &Data) -> Result<Vec<Generated>, String> {
    let jis0208 = data.index("jis0208")?;
    let jis0212 = data.index("jis0212")?;
    let katakana = data.index("iso-2022-jp-katakana")?;
    let euc_kr = data.index("euc-kr")?;
    for (name, index) in
        [("jis0208", &jis0208), ("jis0212", &jis0212), ("iso-2022-jp-katakana", &katakana), ("euc-kr", &euc_kr)]
    {
        if let Some((p, c)) =
            index.entries.iter().find(|&(_, &c)| c == 0 || c > 0xFFFF || (0xD800..=0xDFFF).contains(&c))
        {
            return Err(format!("index-{name}.txt: pointer {p} → {c:#x} is not a non-zero BMP scalar value"));
        }
    }
    Ok(vec![gen_jis0208(&jis0208, &katakana)?, gen_jis0212(&jis0212)?, gen_euc_kr(&euc_kr)?])
}

/// The index pointer (first pointer) of each code point in `entries`.
fn first_pointers<'a>(entries: impl Iterator<Item = (&'a u32, &'a u32)>) -> BTreeMap<u32, u16> {
    let mut map = BTreeMap::new();
    for (&pointer, &code_point) in entries {
        map.entry(code_point).or_insert(pointer as u16);
    }
    map
}

/// The code points for `first..first + len` pointers of `index` (0 for null).
fn dense(index: &Index, first: u32, len: u32) -> Vec<String> {
    (first..first + len).map(|p| index.entries.get(&p).map_or("0".to_string(), |&c| hex(c))).collect()
}

fn hex(value: u32) -> String {
    format!("0x{value:04X}")
}

/// Writes a `[u16; N]` static.
fn array(out: &mut String, doc: &str, id: &str, values: &[String]) -> usize {
    writeln!(out, "/// {doc}").unwrap();
    writeln!(out, "pub(crate) static {id}: [u16; {}] = [\n{}];\n", values.len(), array_body(values)).unwrap();
    values.len() * 2
}

fn gen_jis0208(jis0208: &Index, katakana: &Index) -> Result<Generated, String> {
    let entries = &jis0208.entries;
    if entries.range(EUDC_FIRST..=EUDC_LAST).next().is_some() {
        return Err("index-jis0208.txt: the EUDC pointers 8836 to 10715 are not empty".into());
    }
    let low_len = entries.range(..EUDC_FIRST).next_back().map_or(0, |(&p, _)| p + 1);
    let high_first = entries.range(EUDC_FIRST..).next().map_or(EUDC_FIRST, |(&p, _)| p);
    let high_len = entries.range(EUDC_FIRST..).next_back().map_or(0, |(&p, _)| p + 1 - high_first);
    let reverse = first_pointers(entries.iter());
    if reverse.values().any(|&p| p as u32 >= EUDC_FIRST) {
        return Err("index-jis0208.txt: an index pointer is 8836 or more".into());
    }
    // The Shift_JIS encoder's steps 7 to 13 for each code point that has an "index
    // Shift_JIS pointer" (the first pointer outside 8272 to 8835): the two bytes, lead
    // then trail, as one u16, so that the encoder does one lookup.
    let shift_jis_bytes: BTreeMap<u32, u16> =
        first_pointers(entries.iter().filter(|&(p, _)| !SHIFT_JIS_EXCLUDED.contains(p)))
            .into_iter()
            .map(|(code_point, pointer)| {
                let lead = pointer / 188;
                let lead_offset = if lead < 0x1F { 0x81 } else { 0xC1 };
                let trail = pointer % 188;
                let offset = if trail < 0x3F { 0x40 } else { 0x41 };
                (code_point, (lead + lead_offset) << 8 | (trail + offset))
            })
            .collect();
    let katakana_values: Vec<String> = (0..63)
        .map(|p| {
            katakana.entries.get(&p).map(|&c| hex(c)).ok_or(format!("index-iso-2022-jp-katakana.txt: no pointer {p}"))
        })
        .collect::<Result<_, _>>()?;
    if katakana.entries.len() != 63 {
        return Err("index-iso-2022-jp-katakana.txt: expected pointers 0 to 62".into());
    }

    let mut out = String::from(
        "//! index jis0208 and index ISO-2022-JP katakana. See `codec/euc_jp.rs` for the\n\
         //! lookups that use them.\n\n",
    );
    writeln!(out, "// index jis0208 (Identifier: {}).\n", jis0208.identifier).unwrap();
    let mut bytes = 0;
    bytes += array(
        &mut out,
        "index jis0208 code points for pointers 0 up to the EUDC range (0: null).",
        "JIS0208_LOW",
        &dense(jis0208, 0, low_len),
    );
    writeln!(out, "/// The first pointer of [`JIS0208_HIGH`].").unwrap();
    writeln!(out, "pub(crate) const JIS0208_HIGH_FIRST: usize = {high_first};\n").unwrap();
    bytes += array(
        &mut out,
        "index jis0208 code points for pointers from `JIS0208_HIGH_FIRST`, after the EUDC range (0: null).",
        "JIS0208_HIGH",
        &dense(jis0208, high_first, high_len),
    );
    let (text, n) = bmp_map(
        "JIS0208_POINTERS",
        "The index pointer (the first pointer) of each code point in index jis0208.",
        &reverse,
    )?;
    out.push_str(&text);
    bytes += n;
    let (text, n) = bmp_map(
        "SHIFT_JIS_BYTES",
        "The Shift_JIS encoder's steps 7 to 13: for each code point with an index Shift_JIS pointer, \
         the lead byte (high eight bits) and the trail byte (low eight bits).",
        &shift_jis_bytes,
    )?;
    out.push_str(&text);
    bytes += n;
    writeln!(out, "// index ISO-2022-JP katakana (Identifier: {}).\n", katakana.identifier).unwrap();
    bytes += array(
        &mut out,
        "index ISO-2022-JP katakana: the code point for each pointer (code point − U+FF61).",
        "ISO_2022_JP_KATAKANA",
        &katakana_values,
    );
    Ok(Generated { name: "jis0208.rs", body: out, data_bytes: bytes })
}

fn gen_jis0212(jis0212: &Index) -> Result<Generated, String> {
    let entries = &jis0212.entries;
    let first = entries.keys().next().copied().unwrap_or(0);
    let len = entries.keys().next_back().map_or(0, |&p| p + 1 - first);
    if first + len > 94 * 94 {
        return Err("index-jis0212.txt: a pointer is 8836 or more".into());
    }
    let mut out = String::from("//! index jis0212, for the EUC-JP decoder.\n\n");
    writeln!(out, "// index jis0212 (Identifier: {}).\n", jis0212.identifier).unwrap();
    writeln!(out, "/// The first pointer of [`JIS0212`].").unwrap();
    writeln!(out, "pub(crate) const JIS0212_FIRST: usize = {first};\n").unwrap();
    let bytes = array(
        &mut out,
        "index jis0212 code points for pointers from `JIS0212_FIRST` (0: null).",
        "JIS0212",
        &dense(jis0212, first, len),
    );
    Ok(Generated { name: "jis0212.rs", body: out, data_bytes: bytes })
}

fn gen_euc_kr(euc_kr: &Index) -> Result<Generated, String> {
    let entries = &euc_kr.entries;
    let rows = entries.keys().next_back().map_or(0, |&p| p / EUC_KR_ROW + 1);
    // The first row from which on no row has a pointer for a trailing byte below 0xA1.
    let split_row = entries.keys().rfind(|&&p| p % EUC_KR_ROW < EUC_KR_HIGH_TRAIL).map_or(0, |&p| p / EUC_KR_ROW + 1);
    let low = dense(euc_kr, 0, split_row * EUC_KR_ROW);
    let high: Vec<String> = (split_row..rows)
        .flat_map(|row| (EUC_KR_HIGH_TRAIL..EUC_KR_ROW).map(move |col| row * EUC_KR_ROW + col))
        .map(|p| entries.get(&p).map_or("0".to_string(), |&c| hex(c)))
        .collect();
    let mut out = String::from(
        "//! index EUC-KR: the decoder's tables and the encoder's reverse map. See\n\
         //! `codec/euc_kr.rs` for the lookups.\n\n",
    );
    writeln!(out, "// index EUC-KR (Identifier: {}).\n", euc_kr.identifier).unwrap();
    writeln!(out, "/// The first leading byte whose row is in [`EUC_KR_HIGH`].").unwrap();
    writeln!(out, "pub(crate) const EUC_KR_SPLIT_LEAD: u8 = 0x{:02X};\n", 0x81 + split_row).unwrap();
    let mut bytes = array(
        &mut out,
        "index EUC-KR code points for pointers below (`EUC_KR_SPLIT_LEAD` − 0x81) × 190 (0: null).",
        "EUC_KR_LOW",
        &low,
    );
    bytes += array(
        &mut out,
        "index EUC-KR code points for the leading bytes from `EUC_KR_SPLIT_LEAD` on, trailing bytes \
         0xA1 to 0xFE only, at (leading − `EUC_KR_SPLIT_LEAD`) × 94 + trailing − 0xA1 (0: null).",
        "EUC_KR_HIGH",
        &high,
    );
    let (text, n) = bmp_map(
        "EUC_KR_POINTERS",
        "The index pointer (the first pointer) of each code point in index EUC-KR.",
        &first_pointers(entries.iter()),
    )?;
    out.push_str(&text);
    bytes += n;
    Ok(Generated { name: "euc_kr.rs", body: out, data_bytes: bytes })
}
