//! Reading the pinned sources: wheels (zip files of deflated entries) and wordfreq's
//! gzipped MessagePack word lists.

use std::io::Read as _;

/// The uncompressed contents of the entry `name` of a zip archive.
pub fn zip_entry(archive: &[u8], name: &str) -> Result<Vec<u8>, String> {
    let u16_at = |at: usize| archive.get(at..at + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize);
    let u32_at = |at: usize| archive.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let end = (0..archive.len().saturating_sub(21))
        .rev()
        .find(|&at| u32_at(at) == Some(0x0605_4b50))
        .ok_or("zip: no end of central directory")?;
    let entries = u16_at(end + 10).ok_or("zip: truncated")?;
    let mut at = u32_at(end + 16).ok_or("zip: truncated")?;
    for _ in 0..entries {
        if u32_at(at) != Some(0x0201_4b50) {
            return Err("zip: bad central directory".into());
        }
        let method = u16_at(at + 10).ok_or("zip: truncated")?;
        let compressed = u32_at(at + 20).ok_or("zip: truncated")?;
        let name_len = u16_at(at + 28).ok_or("zip: truncated")?;
        let extra_len = u16_at(at + 30).ok_or("zip: truncated")?;
        let comment_len = u16_at(at + 32).ok_or("zip: truncated")?;
        let local = u32_at(at + 42).ok_or("zip: truncated")?;
        let entry_name = archive.get(at + 46..at + 46 + name_len).ok_or("zip: truncated")?;
        if entry_name == name.as_bytes() {
            let data_start = local
                + 30
                + u16_at(local + 26).ok_or("zip: truncated")?
                + u16_at(local + 28).ok_or("zip: truncated")?;
            let data = archive.get(data_start..data_start + compressed).ok_or("zip: truncated entry")?;
            return match method {
                0 => Ok(data.to_vec()),
                8 => {
                    let mut out = Vec::new();
                    flate2::read::DeflateDecoder::new(data)
                        .read_to_end(&mut out)
                        .map_err(|e| format!("zip: {name}: {e}"))?;
                    Ok(out)
                }
                _ => Err(format!("zip: {name}: compression method {method}")),
            };
        }
        at += 46 + name_len + extra_len + comment_len;
    }
    Err(format!("zip: no entry {name}"))
}

/// Gunzips `bytes`.
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
    Ok(out)
}

/// The MessagePack values that wordfreq's files use.
#[derive(Debug)]
pub enum Value {
    Nil,
    Bool,
    Int(i64),
    Str(String),
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
}

/// Parses one MessagePack value.
pub fn msgpack(bytes: &[u8]) -> Result<Value, String> {
    let mut at = 0;
    let value = parse(bytes, &mut at)?;
    Ok(value)
}

fn take<'a>(bytes: &'a [u8], at: &mut usize, n: usize) -> Result<&'a [u8], String> {
    let slice = bytes.get(*at..*at + n).ok_or("msgpack: truncated")?;
    *at += n;
    Ok(slice)
}

fn uint(bytes: &[u8], at: &mut usize, n: usize) -> Result<u64, String> {
    Ok(take(bytes, at, n)?.iter().fold(0u64, |v, &b| v << 8 | b as u64))
}

fn parse(bytes: &[u8], at: &mut usize) -> Result<Value, String> {
    let tag = take(bytes, at, 1)?[0];
    let string = |bytes: &[u8], at: &mut usize, n: usize| -> Result<Value, String> {
        let raw = take(bytes, at, n)?;
        Ok(Value::Str(String::from_utf8(raw.to_vec()).map_err(|e| format!("msgpack: {e}"))?))
    };
    let array = |bytes: &[u8], at: &mut usize, n: usize| -> Result<Value, String> {
        (0..n).map(|_| parse(bytes, at)).collect::<Result<Vec<_>, _>>().map(Value::Array)
    };
    let map = |bytes: &[u8], at: &mut usize, n: usize| -> Result<Value, String> {
        (0..n).map(|_| Ok((parse(bytes, at)?, parse(bytes, at)?))).collect::<Result<Vec<_>, String>>().map(Value::Map)
    };
    match tag {
        0x00..=0x7f => Ok(Value::Int(tag as i64)),
        0x80..=0x8f => map(bytes, at, (tag & 0x0f) as usize),
        0x90..=0x9f => array(bytes, at, (tag & 0x0f) as usize),
        0xa0..=0xbf => string(bytes, at, (tag & 0x1f) as usize),
        0xc0 => Ok(Value::Nil),
        0xc2 | 0xc3 => Ok(Value::Bool),
        0xcc => Ok(Value::Int(uint(bytes, at, 1)? as i64)),
        0xcd => Ok(Value::Int(uint(bytes, at, 2)? as i64)),
        0xce => Ok(Value::Int(uint(bytes, at, 4)? as i64)),
        0xcf => Ok(Value::Int(uint(bytes, at, 8)? as i64)),
        0xd0 => Ok(Value::Int(uint(bytes, at, 1)? as i8 as i64)),
        0xd1 => Ok(Value::Int(uint(bytes, at, 2)? as i16 as i64)),
        0xd2 => Ok(Value::Int(uint(bytes, at, 4)? as i32 as i64)),
        0xd3 => Ok(Value::Int(uint(bytes, at, 8)? as i64)),
        0xd9 => {
            let n = uint(bytes, at, 1)? as usize;
            string(bytes, at, n)
        }
        0xda => {
            let n = uint(bytes, at, 2)? as usize;
            string(bytes, at, n)
        }
        0xdb => {
            let n = uint(bytes, at, 4)? as usize;
            string(bytes, at, n)
        }
        0xdc => {
            let n = uint(bytes, at, 2)? as usize;
            array(bytes, at, n)
        }
        0xdd => {
            let n = uint(bytes, at, 4)? as usize;
            array(bytes, at, n)
        }
        0xde => {
            let n = uint(bytes, at, 2)? as usize;
            map(bytes, at, n)
        }
        0xdf => {
            let n = uint(bytes, at, 4)? as usize;
            map(bytes, at, n)
        }
        0xe0..=0xff => Ok(Value::Int(tag as i8 as i64)),
        _ => Err(format!("msgpack: unsupported tag {tag:#04x}")),
    }
}
