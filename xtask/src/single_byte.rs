//! `tables/single_byte.rs`: for each single-byte index, the decode table (one
//! lookup per byte) and a two-level reverse table for the encoder.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::Generated;
use crate::data::Data;
use crate::encodings::{ident, is_single_byte, single_byte_index_name};

/// Code points per page of the reverse table.
const PAGE: u32 = 128;

pub fn generate(data: &Data) -> Result<Generated, String> {
    let mut out = String::from(
        "//! The single-byte indexes: `decode[byte - 0x80]` is the index code point (0 for\n\
         //! null); the encoder finds the byte for a code point through `pages[cp / 128]`,\n\
         //! a page number, and `data[page * 128 + cp % 128]` (0 for none). Page 0 of `data`\n\
         //! is all zeros (for code points of no page) and page 1 is ASCII, the page of\n\
         //! code points 0 to 127.\n\n\
         use crate::codec::single_byte::SingleByteIndex;\n\n",
    );
    let mut names: Vec<String> =
        data.encodings.iter().filter(|e| is_single_byte(e)).map(|e| single_byte_index_name(&e.name)).collect();
    names.dedup();
    let mut data_bytes = 0;
    for name in &names {
        let index = data.index(name)?;
        let mut decode = [0u32; 128];
        // The index pointer for a code point is the first pointer with it.
        let mut reverse: BTreeMap<u32, u32> = BTreeMap::new();
        for (&pointer, &code_point) in &index.entries {
            if pointer >= 128 || !(0x80..=0xFFFF).contains(&code_point) {
                return Err(format!("index-{name}.txt: pointer {pointer} → {code_point:#x} is out of range"));
            }
            decode[pointer as usize] = code_point;
            reverse.entry(code_point).or_insert(pointer);
        }
        let max_page = reverse.keys().next_back().map_or(0, |&cp| cp / PAGE);
        let mut pages = vec![0u32; max_page as usize + 1];
        // Page 0: nothing; page 1: ASCII, so that every code unit has a page.
        let mut page_data: Vec<u32> = vec![0; PAGE as usize];
        page_data.extend(0..PAGE);
        pages[0] = 1;
        for (&code_point, &pointer) in &reverse {
            let page = (code_point / PAGE) as usize;
            if pages[page] == 0 {
                pages[page] = (page_data.len() / PAGE as usize) as u32;
                page_data.extend(std::iter::repeat_n(0, PAGE as usize));
            }
            let slot = pages[page] as usize * PAGE as usize + (code_point % PAGE) as usize;
            page_data[slot] = pointer + 0x80;
        }
        if pages.iter().any(|&p| p > 255) {
            return Err(format!("index-{name}.txt: too many pages"));
        }
        data_bytes += 128 * 2 + pages.len() + page_data.len();
        let id = ident(name);
        writeln!(out, "/// index {name} (Identifier: {}).", index.identifier).unwrap();
        writeln!(out, "pub(crate) static {id}: SingleByteIndex = SingleByteIndex::new(").unwrap();
        writeln!(out, "    [\n{}    ],", crate::array_body(&hex(&decode))).unwrap();
        writeln!(out, "    &[\n{}    ],", crate::array_body(&pages)).unwrap();
        writeln!(out, "    &[\n{}    ],", crate::array_body(&hex(&page_data))).unwrap();
        writeln!(out, ");\n").unwrap();
    }
    Ok(Generated { name: "single_byte.rs", body: out, data_bytes })
}

fn hex(values: &[u32]) -> Vec<String> {
    values.iter().map(|&v| if v == 0 { "0".to_string() } else { format!("{v:#06X}").replace("0X", "0x") }).collect()
}
