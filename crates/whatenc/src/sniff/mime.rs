//! MIME types, exact to MIME Sniffing (§ "MIME type representation" to § "MIME type
//! groups") and Fetch ("collect an HTTP quoted string", "get, decode, and split",
//! "extract a MIME type", "legacy extract an encoding").

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::encoding::Encoding;
use crate::hooks::isomorphic_decode;

/// A MIME type record: a type, a subtype and ordered parameters.
///
/// ```
/// use whatenc::sniff::MimeType;
/// let mime = MimeType::parse("Text/HTML; Charset=\"Shift_JIS\"").unwrap();
/// assert_eq!(mime.essence(), "text/html");
/// assert_eq!(mime.parameter("charset"), Some("Shift_JIS"));
/// assert!(mime.is_html_mime_type());
/// assert_eq!(mime.to_string(), "text/html;charset=Shift_JIS");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MimeType {
    type_: String,
    subtype: String,
    parameters: Vec<(String, String)>,
}

/// An HTTP token code point.
fn is_http_token(c: char) -> bool {
    matches!(c, '!' | '#' | '$' | '%' | '&' | '\'' | '*' | '+' | '-' | '.' | '^' | '_' | '`' | '|' | '~')
        || c.is_ascii_alphanumeric()
}

/// An HTTP quoted-string token code point.
fn is_http_quoted_string_token(c: char) -> bool {
    matches!(c, '\t' | ' '..='~' | '\u{80}'..='\u{FF}')
}

/// HTTP whitespace: U+000A, U+000D, U+0009, U+0020.
fn is_http_whitespace(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\t' | ' ')
}

fn solely(s: &str, predicate: fn(char) -> bool) -> bool {
    s.chars().all(predicate)
}

/// From `position`, the end of the run of code points that are not in `stop`.
fn collect_until(input: &str, position: usize, stop: &[char]) -> usize {
    input[position..].find(stop).map_or(input.len(), |i| position + i)
}

impl MimeType {
    /// "Parse a MIME type" (MIME Sniffing): `None` for failure.
    ///
    /// ```
    /// use whatenc::sniff::MimeType;
    /// // The example in MIME Sniffing: what follows a quoted string is dropped.
    /// let mime = MimeType::parse("text/html;charset=\"shift_jis\"iso-2022-jp").unwrap();
    /// assert_eq!(mime.to_string(), "text/html;charset=shift_jis");
    /// assert_eq!(MimeType::parse("text/"), None);
    /// ```
    pub fn parse(input: &str) -> Option<MimeType> {
        // 1.
        let input = input.trim_matches(is_http_whitespace);
        // 2–4.
        let type_end = collect_until(input, 0, &['/']);
        let type_ = &input[..type_end];
        if type_.is_empty() || !solely(type_, is_http_token) {
            return None;
        }
        // 5.
        if type_end >= input.len() {
            return None;
        }
        // 6–9.
        let mut position = type_end + 1;
        let subtype_end = collect_until(input, position, &[';']);
        let subtype = input[position..subtype_end].trim_end_matches(is_http_whitespace);
        if subtype.is_empty() || !solely(subtype, is_http_token) {
            return None;
        }
        position = subtype_end;
        // 10.
        let mut mime_type = MimeType {
            type_: type_.to_ascii_lowercase(),
            subtype: subtype.to_ascii_lowercase(),
            parameters: Vec::new(),
        };
        // 11.
        let byte = |position: usize| input.as_bytes()[position];
        while position < input.len() {
            // 1. Skip the `;`.
            position += 1;
            // 2.
            while position < input.len() && is_http_whitespace(char::from(byte(position))) {
                position += 1;
            }
            // 3–4.
            let name_end = collect_until(input, position, &[';', '=']);
            let parameter_name = input[position..name_end].to_ascii_lowercase();
            position = name_end;
            // 5.
            if position < input.len() {
                if byte(position) == b';' {
                    continue;
                }
                position += 1;
            }
            // 6.
            if position >= input.len() {
                break;
            }
            // 7–9.
            let parameter_value = if byte(position) == b'"' {
                let value = collect_an_http_quoted_string(input, &mut position, true).unwrap_or_default();
                position = collect_until(input, position, &[';']);
                value
            } else {
                let value_end = collect_until(input, position, &[';']);
                let value = input[position..value_end].trim_end_matches(is_http_whitespace);
                position = value_end;
                if value.is_empty() {
                    continue;
                }
                String::from(value)
            };
            // 10.
            if !parameter_name.is_empty()
                && solely(&parameter_name, is_http_token)
                && solely(&parameter_value, is_http_quoted_string_token)
                && mime_type.parameter(&parameter_name).is_none()
            {
                mime_type.parameters.push((parameter_name, parameter_value));
            }
        }
        // 12.
        Some(mime_type)
    }

    /// "Parse a MIME type from bytes": the bytes isomorphic decoded, then parsed.
    ///
    /// ```
    /// use whatenc::sniff::MimeType;
    /// let mime = MimeType::parse_bytes(b"text/plain;x=\xE9").unwrap();
    /// assert_eq!(mime.parameter("x"), Some("\u{E9}"));
    /// ```
    pub fn parse_bytes(input: &[u8]) -> Option<MimeType> {
        MimeType::parse(&isomorphic_decode(input))
    }

    /// The type, ASCII lowercase.
    ///
    /// ```
    /// assert_eq!(whatenc::sniff::MimeType::parse("TEXT/css").unwrap().type_(), "text");
    /// ```
    pub fn type_(&self) -> &str {
        &self.type_
    }

    /// The subtype, ASCII lowercase.
    ///
    /// ```
    /// assert_eq!(whatenc::sniff::MimeType::parse("image/SVG+xml").unwrap().subtype(), "svg+xml");
    /// ```
    pub fn subtype(&self) -> &str {
        &self.subtype
    }

    /// The essence: type, `/`, subtype.
    ///
    /// ```
    /// assert_eq!(whatenc::sniff::MimeType::parse("text/html;x=y").unwrap().essence(), "text/html");
    /// ```
    pub fn essence(&self) -> String {
        let mut essence = String::with_capacity(self.type_.len() + 1 + self.subtype.len());
        essence.push_str(&self.type_);
        essence.push('/');
        essence.push_str(&self.subtype);
        essence
    }

    fn essence_is(&self, essence: &str) -> bool {
        essence.split_once('/') == Some((self.type_.as_str(), self.subtype.as_str()))
    }

    /// The parameters in order, names ASCII lowercase.
    ///
    /// ```
    /// let mime = whatenc::sniff::MimeType::parse("a/b;Y=1;x=2;y=3").unwrap();
    /// assert_eq!(mime.parameters(), &[("y".into(), "1".into()), ("x".into(), "2".into())]);
    /// ```
    pub fn parameters(&self) -> &[(String, String)] {
        &self.parameters
    }

    /// The value of the parameter `name` (ASCII lowercase), if it exists.
    ///
    /// ```
    /// let mime = whatenc::sniff::MimeType::parse("text/plain;charset=gbk").unwrap();
    /// assert_eq!(mime.parameter("charset"), Some("gbk"));
    /// assert_eq!(mime.parameter("x"), None);
    /// ```
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// The map's "set": replaces the value of `name` or appends it.
    fn set_parameter(&mut self, name: &str, value: String) {
        match self.parameters.iter_mut().find(|(key, _)| key == name) {
            Some((_, old)) => *old = value,
            None => self.parameters.push((String::from(name), value)),
        }
    }

    /// "Serialize a MIME type". [`fmt::Display`] writes the same.
    ///
    /// ```
    /// let mime = whatenc::sniff::MimeType::parse("text/plain;a=\"b\\\\\\\"c\";d=\"\"").unwrap();
    /// assert_eq!(mime.parameter("a"), Some("b\\\"c"));
    /// assert_eq!(mime.serialize(), "text/plain;a=\"b\\\\\\\"c\";d=\"\"");
    /// ```
    pub fn serialize(&self) -> String {
        alloc::format!("{self}")
    }

    /// "Serialize a MIME type to bytes": the serialization isomorphic encoded.
    ///
    /// ```
    /// let mime = whatenc::sniff::MimeType::parse_bytes(b"text/plain;x=\xE9").unwrap();
    /// assert_eq!(mime.serialize_to_bytes(), b"text/plain;x=\"\xE9\"");
    /// ```
    pub fn serialize_to_bytes(&self) -> Vec<u8> {
        // Every code point of a MIME type record is at most U+00FF.
        self.serialize().chars().map(|c| c as u8).collect()
    }

    /// An HTML MIME type: essence `text/html`.
    ///
    /// ```
    /// assert!(whatenc::sniff::MimeType::parse("text/html;charset=gbk").unwrap().is_html_mime_type());
    /// ```
    pub fn is_html_mime_type(&self) -> bool {
        self.essence_is("text/html")
    }

    /// An XML MIME type: subtype ending in `+xml`, or essence `text/xml` or
    /// `application/xml`.
    ///
    /// ```
    /// use whatenc::sniff::MimeType;
    /// assert!(MimeType::parse("image/svg+xml").unwrap().is_xml_mime_type());
    /// assert!(!MimeType::parse("text/html").unwrap().is_xml_mime_type());
    /// ```
    pub fn is_xml_mime_type(&self) -> bool {
        self.subtype.ends_with("+xml") || self.essence_is("text/xml") || self.essence_is("application/xml")
    }

    /// A JavaScript MIME type: its essence is one of the sixteen of MIME Sniffing.
    ///
    /// ```
    /// use whatenc::sniff::MimeType;
    /// assert!(MimeType::parse("text/javascript;charset=utf-8").unwrap().is_javascript_mime_type());
    /// assert!(!MimeType::parse("text/javascript1.6").unwrap().is_javascript_mime_type());
    /// ```
    pub fn is_javascript_mime_type(&self) -> bool {
        JAVASCRIPT_ESSENCES.iter().any(|essence| self.essence_is(essence))
    }

    /// A JSON MIME type: subtype ending in `+json`, or essence `application/json`
    /// or `text/json`.
    ///
    /// ```
    /// assert!(whatenc::sniff::MimeType::parse("application/ld+json").unwrap().is_json_mime_type());
    /// ```
    pub fn is_json_mime_type(&self) -> bool {
        self.subtype.ends_with("+json") || self.essence_is("application/json") || self.essence_is("text/json")
    }
}

/// The essences of a JavaScript MIME type.
const JAVASCRIPT_ESSENCES: [&str; 16] = [
    "application/ecmascript",
    "application/javascript",
    "application/x-ecmascript",
    "application/x-javascript",
    "text/ecmascript",
    "text/javascript",
    "text/javascript1.0",
    "text/javascript1.1",
    "text/javascript1.2",
    "text/javascript1.3",
    "text/javascript1.4",
    "text/javascript1.5",
    "text/jscript",
    "text/livescript",
    "text/x-ecmascript",
    "text/x-javascript",
];

/// "JavaScript MIME type essence match": `string` is an ASCII case-insensitive
/// match for one of the JavaScript MIME type essences (as `<script type>` uses it).
///
/// ```
/// use whatenc::sniff::javascript_mime_type_essence_match;
/// assert!(javascript_mime_type_essence_match("Text/JavaScript"));
/// assert!(!javascript_mime_type_essence_match("text/javascript; charset=utf-8"));
/// ```
pub fn javascript_mime_type_essence_match(string: &str) -> bool {
    JAVASCRIPT_ESSENCES.iter().any(|essence| essence.eq_ignore_ascii_case(string))
}

impl fmt::Display for MimeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // 1.
        write!(f, "{}/{}", self.type_, self.subtype)?;
        // 2.
        for (name, value) in &self.parameters {
            write!(f, ";{name}=")?;
            if value.is_empty() || !solely(value, is_http_token) {
                f.write_str("\"")?;
                for c in value.chars() {
                    if c == '"' || c == '\\' {
                        f.write_str("\\")?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str("\"")?;
            } else {
                f.write_str(value)?;
            }
        }
        Ok(())
    }
}

/// "Collect an HTTP quoted string" (Fetch) from `input` at `position`, which must
/// be at a `"` (`None` otherwise); advances `position`. With `extract_value`, the value with its
/// quotes and escapes removed; otherwise the code points from the opening quote
/// to `position`.
///
/// ```
/// use whatenc::sniff::collect_an_http_quoted_string as collect;
/// // The examples in Fetch.
/// let mut position = 0;
/// assert_eq!(collect("\"\\", &mut position, false).unwrap(), "\"\\");
/// assert_eq!(position, 2);
/// let mut position = 0;
/// assert_eq!(collect("\"\\", &mut position, true).unwrap(), "\\");
/// let mut position = 0;
/// assert_eq!(collect("\"Hello\" World", &mut position, true).unwrap(), "Hello");
/// assert_eq!(position, 7);
/// // The standard asserts a `"` at the position; here its absence is `None`.
/// assert_eq!(collect("Hello", &mut 0, true), None);
/// ```
pub fn collect_an_http_quoted_string(input: &str, position: &mut usize, extract_value: bool) -> Option<String> {
    // 1–2.
    let position_start = *position;
    let mut value = String::new();
    // 3–4.
    if input.as_bytes().get(*position) != Some(&b'"') {
        return None;
    }
    *position += 1;
    // 5.
    loop {
        let end = collect_until(input, *position, &['"', '\\']);
        value.push_str(&input[*position..end]);
        *position = end;
        if *position >= input.len() {
            break;
        }
        let quote_or_backslash = input.as_bytes()[*position];
        *position += 1;
        if quote_or_backslash == b'\\' {
            let Some(c) = input[*position..].chars().next() else {
                value.push('\\');
                break;
            };
            value.push(c);
            *position += c.len_utf8();
        } else {
            break;
        }
    }
    // 6–7.
    Some(if extract_value { value } else { String::from(&input[position_start..*position]) })
}

/// "Get, decode, and split" a header value (Fetch): isomorphic decoded, split at
/// commas outside quoted strings, each value's leading and trailing tabs and
/// spaces removed.
///
/// ```
/// use whatenc::sniff::get_decode_and_split;
/// // Examples in Fetch.
/// assert_eq!(get_decode_and_split(b"nosniff,"), ["nosniff", ""]);
/// assert_eq!(get_decode_and_split(b"text/html;\", x/x"), ["text/html;\", x/x"]);
/// assert_eq!(get_decode_and_split(b"x/x;test=\"hi\",y/y"), ["x/x;test=\"hi\"", "y/y"]);
/// assert_eq!(get_decode_and_split(b"x / x,,,1"), ["x / x", "", "", "1"]);
/// assert_eq!(get_decode_and_split(b"\"1,2\", 3"), ["\"1,2\"", "3"]);
/// ```
pub fn get_decode_and_split(value: &[u8]) -> Vec<String> {
    // 1–4.
    let input = isomorphic_decode(value);
    let input = &*input;
    let mut position = 0;
    let mut values = Vec::new();
    let mut temporary_value = String::new();
    // 5.
    loop {
        let end = collect_until(input, position, &['"', ',']);
        temporary_value.push_str(&input[position..end]);
        position = end;
        if position < input.len() && input.as_bytes()[position] == b'"' {
            temporary_value.push_str(&collect_an_http_quoted_string(input, &mut position, false).unwrap_or_default());
            if position < input.len() {
                continue;
            }
        }
        values.push(String::from(temporary_value.trim_matches(['\t', ' '])));
        temporary_value.clear();
        if position >= input.len() {
            return values;
        }
        position += 1;
    }
}

/// "Extract a MIME type" (Fetch) from the values of the `Content-Type` headers of
/// a header list, in order (`None` for failure). A `charset` is carried over to a
/// later value with the same essence that has none; `*/*` and values that do not
/// parse are skipped.
///
/// ```
/// use whatenc::sniff::extract_a_mime_type;
/// let mime = extract_a_mime_type(&[b"text/html;charset=gbk;a=b", b"text/html;x=y"]).unwrap();
/// assert_eq!(mime.to_string(), "text/html;x=y;charset=gbk");
/// assert_eq!(extract_a_mime_type(&[]), None);
/// ```
pub fn extract_a_mime_type(content_type_values: &[&[u8]]) -> Option<MimeType> {
    // 1–3.
    let mut charset: Option<String> = None;
    let mut essence: Option<String> = None;
    let mut mime_type: Option<MimeType> = None;
    // 4–5. The header list's "get" joins the values with 0x2C 0x20.
    if content_type_values.is_empty() {
        return None;
    }
    let combined = content_type_values.join(&b", "[..]);
    let values = get_decode_and_split(&combined);
    // 6.
    for value in &values {
        let Some(mut temporary) = MimeType::parse(value) else { continue };
        if temporary.essence_is("*/*") {
            continue;
        }
        let temporary_essence = temporary.essence();
        if essence.as_deref() != Some(temporary_essence.as_str()) {
            charset = temporary.parameter("charset").map(String::from);
            essence = Some(temporary_essence);
        } else if temporary.parameter("charset").is_none()
            && let Some(charset) = &charset
        {
            temporary.set_parameter("charset", charset.clone());
        }
        mime_type = Some(temporary);
    }
    // 7–8.
    mime_type
}

/// "Legacy extract an encoding" (Fetch): the encoding of `mime_type`'s `charset`
/// parameter, or `fallback` when there is no MIME type (failure), no `charset` or
/// no such encoding.
///
/// ```
/// use whatenc::sniff::{extract_a_mime_type, legacy_extract_an_encoding};
/// let mime = extract_a_mime_type(&[b"text/javascript; charset=euc-jp"]);
/// assert_eq!(legacy_extract_an_encoding(mime.as_ref(), whatenc::UTF_8), whatenc::EUC_JP);
/// assert_eq!(legacy_extract_an_encoding(None, whatenc::GBK), whatenc::GBK);
/// ```
pub fn legacy_extract_an_encoding(mime_type: Option<&MimeType>, fallback: &'static Encoding) -> &'static Encoding {
    mime_type.and_then(|mime_type| mime_type.parameter("charset")).and_then(Encoding::for_label_str).unwrap_or(fallback)
}
