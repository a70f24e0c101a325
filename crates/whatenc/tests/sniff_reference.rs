//! The prescan against a naive reference written again from the text (HTML
//! §13.2.3.2): byte at a time, attribute names and values as `String`s, the
//! attribute list as a list, "get an XML encoding" bounded by xmlDeclarationEnd.
//! The stream is the slice; running out of it aborts. Compared in strict mode,
//! where the library's prescan of N bytes is the prescan of the first N bytes.

use whatenc::Encoding;
use whatenc::sniff::{EndCondition, extract_a_character_encoding_from_a_meta_element, prescan};

const SPACE: [u8; 5] = [0x09, 0x0A, 0x0C, 0x0D, 0x20];

/// Out of bytes: the prescan aborts.
struct Abort;

fn byte(s: &[u8], position: usize) -> Result<u8, Abort> {
    s.get(position).copied().ok_or(Abort)
}

fn reference(s: &[u8]) -> Option<&'static Encoding> {
    match reference_steps(s) {
        Ok(Some(encoding)) => Some(encoding),
        Ok(None) => None,
        Err(Abort) => reference_xml(s),
    }
}

/// Compares ASCII case-insensitively, byte by byte, running out of bytes as the
/// text does.
fn starts(s: &[u8], position: usize, pattern: &[&[u8]]) -> Result<bool, Abort> {
    for (i, choices) in pattern.iter().enumerate() {
        if !choices.contains(&byte(s, position + i)?) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn reference_steps(s: &[u8]) -> Result<Option<&'static Encoding>, Abort> {
    let mut position = 0;
    if starts(s, 0, &[b"\x3C", b"\x00", b"\x3F", b"\x00", b"\x78", b"\x00"])? {
        return Ok(Some(whatenc::UTF_16LE));
    }
    if starts(s, 0, &[b"\x00", b"\x3C", b"\x00", b"\x3F", b"\x00", b"\x78"])? {
        return Ok(Some(whatenc::UTF_16BE));
    }
    loop {
        if byte(s, position)? == b'<' {
            let lt = position;
            if starts(s, position, &[b"<", b"!", b"-", b"-"])? {
                position = lt + 1;
                loop {
                    if byte(s, position)? == b'>'
                        && position >= lt + 4
                        && s[position - 2] == b'-'
                        && s[position - 1] == b'-'
                    {
                        break;
                    }
                    position += 1;
                }
            } else if starts(s, position, &[b"<", b"Mm", b"Ee", b"Tt", b"Aa", b"\t\n\x0C\r /"])? {
                position = lt + 5;
                let mut attribute_list: Vec<String> = Vec::new();
                let mut got_pragma = false;
                let mut need_pragma: Option<bool> = None;
                // None: null; Some(None): failure.
                let mut charset: Option<Option<&'static Encoding>> = None;
                while let Some((name, value)) = reference_attribute(s, &mut position)? {
                    if attribute_list.contains(&name) {
                        continue;
                    }
                    attribute_list.push(name.clone());
                    match name.as_str() {
                        "http-equiv" if value == "content-type" => got_pragma = true,
                        "content" => {
                            let bytes: Vec<u8> = value.chars().map(|c| c as u32 as u8).collect();
                            if let Some(encoding) = extract_a_character_encoding_from_a_meta_element(&bytes)
                                && charset.is_none()
                            {
                                charset = Some(Some(encoding));
                                need_pragma = Some(true);
                            }
                        }
                        "charset" => {
                            let bytes: Vec<u8> = value.chars().map(|c| c as u32 as u8).collect();
                            charset = Some(Encoding::for_label(&bytes));
                            need_pragma = Some(false);
                        }
                        _ => {}
                    }
                }
                let ok = match need_pragma {
                    None => false,
                    Some(true) => got_pragma,
                    Some(false) => true,
                };
                if ok && let Some(Some(mut encoding)) = charset {
                    if encoding == whatenc::UTF_16BE || encoding == whatenc::UTF_16LE {
                        encoding = whatenc::UTF_8;
                    }
                    if encoding == whatenc::X_USER_DEFINED {
                        encoding = whatenc::WINDOWS_1252;
                    }
                    return Ok(Some(encoding));
                }
            } else if byte(s, lt + 1)?.is_ascii_alphabetic()
                || (byte(s, lt + 1)? == b'/' && byte(s, lt + 2)?.is_ascii_alphabetic())
            {
                position = lt + 1;
                while !matches!(byte(s, position)?, 0x09 | 0x0A | 0x0C | 0x0D | 0x20 | b'>') {
                    position += 1;
                }
                while reference_attribute(s, &mut position)?.is_some() {}
            } else if matches!(byte(s, lt + 1)?, b'!' | b'/' | b'?') {
                position = lt + 1;
                while byte(s, position)? != b'>' {
                    position += 1;
                }
            }
        }
        position += 1;
    }
}

fn reference_attribute(s: &[u8], position: &mut usize) -> Result<Option<(String, String)>, Abort> {
    let lower = |b: u8| char::from(b.to_ascii_lowercase());
    while SPACE.contains(&byte(s, *position)?) || byte(s, *position)? == b'/' {
        *position += 1;
    }
    if byte(s, *position)? == b'>' {
        return Ok(None);
    }
    let mut name = String::new();
    let mut value = String::new();
    loop {
        let b = byte(s, *position)?;
        if b == b'=' && !name.is_empty() {
            *position += 1;
            break;
        } else if SPACE.contains(&b) {
            while SPACE.contains(&byte(s, *position)?) {
                *position += 1;
            }
            if byte(s, *position)? != b'=' {
                return Ok(Some((name, value)));
            }
            *position += 1;
            break;
        } else if b == b'/' || b == b'>' {
            return Ok(Some((name, value)));
        }
        name.push(lower(b));
        *position += 1;
    }
    while SPACE.contains(&byte(s, *position)?) {
        *position += 1;
    }
    let b = byte(s, *position)?;
    if b == b'"' || b == b'\'' {
        loop {
            *position += 1;
            let c = byte(s, *position)?;
            if c == b {
                *position += 1;
                return Ok(Some((name, value)));
            }
            value.push(lower(c));
        }
    } else if b == b'>' {
        return Ok(Some((name, value)));
    }
    value.push(lower(b));
    *position += 1;
    loop {
        let b = byte(s, *position)?;
        if SPACE.contains(&b) || b == b'>' {
            return Ok(Some((name, value)));
        }
        value.push(lower(b));
        *position += 1;
    }
}

fn reference_xml(s: &[u8]) -> Option<&'static Encoding> {
    if !s.starts_with(b"<?xml") {
        return None;
    }
    let end = s.iter().position(|&b| b == b'>')?;
    let s = &s[..end];
    let mut position = s.windows(8).position(|w| w == b"encoding")? + 8;
    while *s.get(position)? <= 0x20 {
        position += 1;
    }
    if *s.get(position)? != b'=' {
        return None;
    }
    position += 1;
    while *s.get(position)? <= 0x20 {
        position += 1;
    }
    let quote = *s.get(position)?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    position += 1;
    let close = position + s[position..].iter().position(|&b| b == quote)?;
    let potential = &s[position..close];
    if potential.iter().any(|&b| b <= 0x20) {
        return None;
    }
    let encoding = Encoding::for_label(potential)?;
    Some(if encoding == whatenc::UTF_16BE || encoding == whatenc::UTF_16LE { whatenc::UTF_8 } else { encoding })
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n as u64) as usize
    }
}

const FRAGMENTS: &[&[u8]] = &[
    b"<meta",
    b"<MeTa",
    b" ",
    b"\x0C",
    b"/",
    b"charset",
    b"CHARSET",
    b"=",
    b"gbk",
    b"BIG5",
    b"utf-16le",
    b"x-user-defined",
    b"bogus",
    b"'",
    b"\"",
    b">",
    b"<",
    b"<!--",
    b"-->",
    b"-",
    b"--",
    b"<!",
    b"</",
    b"<?",
    b"<?xml",
    b"encoding",
    b"<a",
    b"</p",
    b"http-equiv",
    b"content-type",
    b"content",
    b"text/html; charset=koi8-r",
    b";",
    b"\0",
    b"<\0?\0x\0",
    b"\0<\0?\0x",
    b"\xE9",
    b"<meta charset=gbk>",
    b"<meta http-equiv=content-type content='charset=big5'>",
    b"<?xml version='1.0' encoding='koi8-r'?>",
    b"<?xml encoding=\"euc-kr\">",
];

#[test]
fn the_prescan_equals_the_reference() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut found = 0;
    for _ in 0..20_000 {
        let mut input = Vec::new();
        for _ in 0..rng.below(16) {
            input.extend_from_slice(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        }
        for n in [input.len(), input.len() / 2, rng.below(input.len() + 1)] {
            let ours = prescan(&input, EndCondition::Strict(n)).map(|found| found.encoding);
            assert_eq!(ours, reference(&input[..n]), "{:?} n={n}", String::from_utf8_lossy(&input));
            found += usize::from(ours.is_some());
        }
    }
    assert!(found > 5_000, "{found}");
}
