//! `tables/gb18030.rs` and `tables/big5.rs`: the decode tables (one lookup per
//! pointer), the gb18030 ranges, and the encoders' reverse tables (a `BmpMap` from
//! code point to the two bytes, plus a sorted array for Big5's astral code points).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::data::{Data, Index};
use crate::{Generated, array_body, bmp_map};

/// The gb18030 encoder's side table (`encoding.bs` § "gb18030 encoder", step 5):
/// these Private Use code points encode to these two bytes, before the index is
/// consulted, to stay compatible with GB18030-2005.
const GB18030_ENCODER_SIDE_TABLE: [(u32, [u8; 2]); 18] = [
    (0xE78D, [0xA6, 0xD9]),
    (0xE78E, [0xA6, 0xDA]),
    (0xE78F, [0xA6, 0xDB]),
    (0xE790, [0xA6, 0xDC]),
    (0xE791, [0xA6, 0xDD]),
    (0xE792, [0xA6, 0xDE]),
    (0xE793, [0xA6, 0xDF]),
    (0xE794, [0xA6, 0xEC]),
    (0xE795, [0xA6, 0xED]),
    (0xE796, [0xA6, 0xF3]),
    (0xE81E, [0xFE, 0x59]),
    (0xE826, [0xFE, 0x61]),
    (0xE82B, [0xFE, 0x66]),
    (0xE82C, [0xFE, 0x67]),
    (0xE832, [0xFE, 0x6D]),
    (0xE843, [0xFE, 0x7E]),
    (0xE854, [0xFE, 0x90]),
    (0xE864, [0xFE, 0xA0]),
];

/// Pointers of index gb18030: 126 leading bytes × 190 trailing bytes.
const GB18030_POINTERS: u32 = 126 * 190;
/// Pointers of index Big5: 126 leading bytes × 157 trailing bytes.
const BIG5_POINTERS: u32 = 126 * 157;
/// `encoding.bs` § "index Big5 pointer": entries below this pointer are excluded.
const BIG5_ENCODER_FIRST_POINTER: u32 = (0xA1 - 0x81) * 157;
/// `encoding.bs` § "index Big5 pointer": these code points take their *last* pointer.
const BIG5_LAST_POINTER_CODE_POINTS: [u32; 6] = [0x2550, 0x255E, 0x2561, 0x256A, 0x5341, 0x5345];

pub fn generate(data: &Data) -> Result<Vec<Generated>, String> {
    Ok(vec![gb18030(data)?, big5(data)?])
}

fn gb18030(data: &Data) -> Result<Generated, String> {
    let index = data.index("gb18030")?;
    let ranges = data.index("gb18030-ranges")?;
    let mut out = String::from(
        "//! index gb18030 and index gb18030 ranges (`encoding.bs` § \"Indexes\").\n\
         //!\n\
         //! `GB18030_DECODE[pointer]` is the index code point (0 for null). The ranges are\n\
         //! two parallel sorted arrays. `GB18030_ENCODE` maps a BMP code point to its two\n\
         //! bytes, `leading << 8 | trailing`: the gb18030 encoder's side table, else the\n\
         //! index pointer (the first one) turned into bytes.\n\n",
    );
    let mut data_bytes = 0;

    // Decode table.
    let mut decode = vec![0u32; GB18030_POINTERS as usize];
    for (&pointer, &code_point) in &index.entries {
        if pointer >= GB18030_POINTERS || code_point == 0 || code_point > 0xFFFF {
            return Err(format!("index-gb18030.txt: pointer {pointer} → {code_point:#x} is out of range"));
        }
        decode[pointer as usize] = code_point;
    }
    writeln!(out, "/// index gb18030 (Identifier: {}): code point by pointer; 0 for null.", index.identifier).unwrap();
    writeln!(out, "pub(crate) static GB18030_DECODE: [u16; {}] = [\n{}];\n", decode.len(), array_body(&hex(&decode)))
        .unwrap();
    data_bytes += decode.len() * 2;

    // Ranges.
    let pointers: Vec<u32> = ranges.entries.keys().copied().collect();
    let code_points: Vec<u32> = ranges.entries.values().copied().collect();
    if pointers.first() != Some(&0) || !code_points.windows(2).all(|w| w[0] < w[1]) {
        return Err("index-gb18030-ranges.txt: not sorted from pointer 0".into());
    }
    check_ranges_avoid_surrogates(&ranges)?;
    writeln!(
        out,
        "/// index gb18030 ranges (Identifier: {}): the pointer of each range, ascending.",
        ranges.identifier
    )
    .unwrap();
    writeln!(
        out,
        "pub(crate) static GB18030_RANGES_POINTERS: [u32; {}] = [\n{}];\n",
        pointers.len(),
        array_body(&pointers)
    )
    .unwrap();
    writeln!(out, "/// index gb18030 ranges: the code point of each range, ascending.").unwrap();
    writeln!(
        out,
        "pub(crate) static GB18030_RANGES_CODE_POINTS: [u32; {}] = [\n{}];\n",
        code_points.len(),
        array_body(&hex(&code_points))
    )
    .unwrap();
    data_bytes += pointers.len() * 8;

    // Encode table: the index pointer is the first pointer for a code point.
    let mut encode: BTreeMap<u32, u16> = BTreeMap::new();
    for (&pointer, &code_point) in &index.entries {
        let leading = pointer / 190 + 0x81;
        let trailing = pointer % 190;
        let offset = if trailing < 0x3F { 0x40 } else { 0x41 };
        encode.entry(code_point).or_insert(((leading << 8) | (trailing + offset)) as u16);
    }
    if encode.contains_key(&0xE5E5) {
        return Err("index-gb18030.txt: U+E5E5 is in the index; the encoder must still refuse it".into());
    }
    // The side table comes first in the encoder, so it overrides the index.
    for (code_point, [leading, trailing]) in GB18030_ENCODER_SIDE_TABLE {
        encode.insert(code_point, u16::from_be_bytes([leading, trailing]));
    }
    let (text, bytes) = bmp_map(
        "GB18030_ENCODE",
        "gb18030 encoder: BMP code point → `leading << 8 | trailing`, from the side table and index gb18030.",
        &encode,
    )?;
    out.push_str(&text);
    data_bytes += bytes;
    Ok(Generated { name: "gb18030.rs", body: out, data_bytes })
}

/// The decoder writes range code points with `char::from_u32`; make sure no range
/// (up to the last BMP pointer, 39419) covers a surrogate.
fn check_ranges_avoid_surrogates(ranges: &Index) -> Result<(), String> {
    let entries: Vec<(u32, u32)> = ranges.entries.iter().map(|(&p, &c)| (p, c)).collect();
    for (i, &(pointer, code_point)) in entries.iter().enumerate() {
        let end_pointer = match entries.get(i + 1) {
            Some(&(next, _)) if code_point < 0x10000 => (next - 1).min(39419),
            _ => 1237575,
        };
        let end = code_point + (end_pointer - pointer);
        if code_point <= 0xDFFF && end >= 0xD800 {
            return Err(format!("index-gb18030-ranges.txt: range at pointer {pointer} covers surrogates"));
        }
        if end > 0x10FFFF {
            return Err(format!("index-gb18030-ranges.txt: range at pointer {pointer} ends above U+10FFFF"));
        }
    }
    Ok(())
}

fn big5(data: &Data) -> Result<Generated, String> {
    let index = data.index("big5")?;
    let first = *index.entries.keys().next().ok_or("index-big5.txt is empty")?;
    let mut out = String::from(
        "//! index Big5 (`encoding.bs` § \"Indexes\").\n\
         //!\n\
         //! `BIG5_DECODE[pointer - BIG5_FIRST_POINTER]` holds the low 16 bits of the index\n\
         //! code point (0 for null, unless astral); bit `i % 32` of `BIG5_DECODE_ASTRAL[i / 32]`\n\
         //! says that entry `i` is U+20000 plus those bits (all astral code points of the\n\
         //! index are in plane 2). The encoder maps a code point to `leading << 8 | trailing`\n\
         //! by the index Big5 pointer: `BIG5_ENCODE` for the BMP, and two parallel sorted\n\
         //! arrays for plane 2.\n\n",
    );
    let mut data_bytes = 0;

    let len = (BIG5_POINTERS - first) as usize;
    let mut decode = vec![0u32; len];
    let mut astral = vec![0u32; len.div_ceil(32)];
    for (&pointer, &code_point) in &index.entries {
        if pointer >= BIG5_POINTERS || code_point == 0 {
            return Err(format!("index-big5.txt: pointer {pointer} → {code_point:#x} is out of range"));
        }
        let i = (pointer - first) as usize;
        match code_point >> 16 {
            0 => decode[i] = code_point,
            2 => {
                decode[i] = code_point & 0xFFFF;
                astral[i / 32] |= 1 << (i % 32);
            }
            _ => return Err(format!("index-big5.txt: {code_point:#x} is astral but not in plane 2")),
        }
    }
    writeln!(out, "/// The first pointer of index Big5 (Identifier: {}).", index.identifier).unwrap();
    writeln!(out, "pub(crate) const BIG5_FIRST_POINTER: usize = {first};\n").unwrap();
    writeln!(out, "/// index Big5: low 16 bits of the code point by pointer − `BIG5_FIRST_POINTER`.").unwrap();
    writeln!(out, "pub(crate) static BIG5_DECODE: [u16; {len}] = [\n{}];\n", array_body(&hex(&decode))).unwrap();
    writeln!(out, "/// index Big5: one bit per entry of `BIG5_DECODE`, set for plane 2 code points.").unwrap();
    writeln!(
        out,
        "pub(crate) static BIG5_DECODE_ASTRAL: [u32; {}] = [\n{}];\n",
        astral.len(),
        array_body(&hex(&astral))
    )
    .unwrap();
    data_bytes += len * 2 + astral.len() * 4;

    // index Big5 pointer: excluding pointers below (0xA1 − 0x81) × 157, the first
    // pointer for a code point, or the last one for the six listed code points.
    let mut encode: BTreeMap<u32, u16> = BTreeMap::new();
    for (&pointer, &code_point) in index.entries.range(BIG5_ENCODER_FIRST_POINTER..) {
        let leading = pointer / 157 + 0x81;
        let trailing = pointer % 157;
        let offset = if trailing < 0x3F { 0x40 } else { 0x62 };
        let bytes = ((leading << 8) | (trailing + offset)) as u16;
        if BIG5_LAST_POINTER_CODE_POINTS.contains(&code_point) {
            encode.insert(code_point, bytes);
        } else {
            encode.entry(code_point).or_insert(bytes);
        }
    }
    let bmp: BTreeMap<u32, u16> = encode.range(..0x10000).map(|(&c, &b)| (c, b)).collect();
    let (text, bytes) = bmp_map(
        "BIG5_ENCODE",
        "Big5 encoder: BMP code point → `leading << 8 | trailing` of its index Big5 pointer.",
        &bmp,
    )?;
    out.push_str(&text);
    data_bytes += bytes;
    let astral_code_points: Vec<u32> = encode.range(0x10000..).map(|(&c, _)| c).collect();
    let astral_bytes: Vec<u32> = encode.range(0x10000..).map(|(_, &b)| b as u32).collect();
    writeln!(out, "/// Big5 encoder: the astral code points with an index Big5 pointer, ascending.").unwrap();
    writeln!(
        out,
        "pub(crate) static BIG5_ENCODE_ASTRAL_CODE_POINTS: [u32; {}] = [\n{}];\n",
        astral_code_points.len(),
        array_body(&hex(&astral_code_points))
    )
    .unwrap();
    writeln!(out, "/// Big5 encoder: `leading << 8 | trailing` for each of `BIG5_ENCODE_ASTRAL_CODE_POINTS`.").unwrap();
    writeln!(
        out,
        "pub(crate) static BIG5_ENCODE_ASTRAL_BYTES: [u16; {}] = [\n{}];\n",
        astral_bytes.len(),
        array_body(&hex(&astral_bytes))
    )
    .unwrap();
    data_bytes += astral_code_points.len() * 6;
    Ok(Generated { name: "big5.rs", body: out, data_bytes })
}

fn hex(values: &[u32]) -> Vec<String> {
    values.iter().map(|&v| if v == 0 { "0".to_string() } else { format!("{v:#06X}").replace("0X", "0x") }).collect()
}
