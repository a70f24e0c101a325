//! `tables/encodings.rs`: the 40 `Encoding` statics and the sorted label table.

use std::fmt::Write as _;

use crate::Generated;
use crate::data::{Data, EncodingEntry};

/// The Rust name of an encoding's static: "Shift_JIS" → `SHIFT_JIS`.
pub fn ident(name: &str) -> String {
    name.to_uppercase().replace('-', "_")
}

/// Whether the encoding uses the shared single-byte decoder and encoder.
pub fn is_single_byte(entry: &EncodingEntry) -> bool {
    entry.heading == "Legacy single-byte encodings"
}

/// The index file that a single-byte encoding uses (ISO-8859-8-I shares ISO-8859-8's).
pub fn single_byte_index_name(name: &str) -> String {
    let lower = name.to_lowercase();
    if lower == "iso-8859-8-i" { "iso-8859-8".to_string() } else { lower }
}

fn kind(entry: &EncodingEntry) -> Result<String, String> {
    if is_single_byte(entry) {
        return Ok(format!("Kind::SingleByte(&single_byte::{})", ident(&single_byte_index_name(&entry.name))));
    }
    Ok(match entry.name.as_str() {
        "UTF-8" => "Kind::Utf8",
        "UTF-16BE" => "Kind::Utf16Be",
        "UTF-16LE" => "Kind::Utf16Le",
        "x-user-defined" => "Kind::XUserDefined",
        "replacement" => "Kind::Replacement",
        "GBK" => "Kind::Gbk",
        "gb18030" => "Kind::Gb18030",
        "Big5" => "Kind::Big5",
        "EUC-JP" => "Kind::EucJp",
        "ISO-2022-JP" => "Kind::Iso2022Jp",
        "Shift_JIS" => "Kind::ShiftJis",
        "EUC-KR" => "Kind::EucKr",
        other => return Err(format!("no codec is known for encoding {other:?}")),
    }
    .to_string())
}

pub fn generate(data: &Data) -> Result<Generated, String> {
    let mut out = String::from(
        "//! The encodings of the standard and their labels, from `encodings.json`.\n\n\
         use crate::encoding::{Encoding, Kind};\n\
         use crate::tables::single_byte;\n\n",
    );
    let mut labels: Vec<(&str, String)> = Vec::new();
    for entry in &data.encodings {
        let id = ident(&entry.name);
        let mut sorted = entry.labels.clone();
        sorted.sort();
        let quoted: Vec<String> = sorted.iter().map(|l| format!("{l:?}")).collect();
        writeln!(out, "/// The {} encoding.", entry.name).unwrap();
        writeln!(out, "///").unwrap();
        writeln!(out, "/// Its labels: {}.", sorted.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", "))
            .unwrap();
        writeln!(out, "///").unwrap();
        writeln!(out, "/// ```").unwrap();
        writeln!(out, "/// assert_eq!(whatenc::{id}.name(), {:?});", entry.name).unwrap();
        writeln!(out, "/// assert_eq!(whatenc::Encoding::for_label({:?}.as_bytes()), Some(whatenc::{id}));", sorted[0])
            .unwrap();
        writeln!(out, "/// ```").unwrap();
        writeln!(out, "pub static {id}: &Encoding = &{id}_INIT;").unwrap();
        writeln!(out, "static {id}_INIT: Encoding = Encoding::new(").unwrap();
        writeln!(out, "    {:?},", entry.name).unwrap();
        writeln!(out, "    &[{}],", quoted.join(", ")).unwrap();
        writeln!(out, "    {},", kind(entry)?).unwrap();
        writeln!(out, ");\n").unwrap();
        for label in &entry.labels {
            labels.push((label.as_str(), id.clone()));
        }
    }
    labels.sort();
    if let Some(pair) = labels.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("label {:?} is listed twice", pair[0].0));
    }
    let longest = labels.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
    writeln!(out, "/// The length of the longest label.").unwrap();
    writeln!(out, "pub(crate) const LONGEST_LABEL: usize = {longest};\n").unwrap();
    writeln!(out, "/// Every label, sorted, with its encoding.").unwrap();
    writeln!(out, "pub(crate) static LABELS: [(&str, &Encoding); {}] = [", labels.len()).unwrap();
    for (label, id) in &labels {
        writeln!(out, "    ({label:?}, {id}),").unwrap();
    }
    writeln!(out, "];\n").unwrap();
    writeln!(out, "/// Every encoding, in the standard's order.").unwrap();
    writeln!(out, "pub(crate) static ALL: [&Encoding; {}] = [", data.encodings.len()).unwrap();
    for entry in &data.encodings {
        writeln!(out, "    {},", ident(&entry.name)).unwrap();
    }
    writeln!(out, "];").unwrap();
    let data_bytes = labels.iter().map(|(l, _)| l.len() + 16 + 8).sum();
    Ok(Generated { name: "encodings.rs", body: out, data_bytes })
}
