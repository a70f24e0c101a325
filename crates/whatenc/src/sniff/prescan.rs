//! HTML §13.2.3.2: "prescan a byte stream to determine its encoding", "get an
//! attribute", "get an XML encoding", and "extracting a character encoding from a
//! meta element" (HTML § urls-and-fetching).
//!
//! Nothing here allocates. An attribute is a pair of slices of the input: the
//! standard's attribute name and value are the bytes of those slices with A–Z
//! lowercased, and the prescan compares them ASCII case-insensitively rather than
//! copying them, so no attribute buffer exists to grow (the bound is zero bytes).

use crate::encoding::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

/// The limit the standard encourages: "User agents are encouraged to only prescan
/// the first 1024 bytes."
pub const DEFAULT_LIMIT: usize = 1024;

/// How far past [`DEFAULT_LIMIT`] the [`EndCondition::Observed`] default follows a
/// `<meta>` tag or an XML declaration that began before the limit.
pub const DEFAULT_OVERRUN: usize = 1024;

/// The prescan's end condition, which the standard leaves to the user agent
/// ("when the user agent decides that scanning further bytes would not be
/// efficient").
///
/// ```
/// use whatenc::sniff::{prescan, EndCondition};
/// // A <meta> whose `<` is byte 1023 is read to its end by default ...
/// let mut page = vec![b' '; 1023];
/// page.extend_from_slice(b"<meta charset=koi8-r>");
/// assert_eq!(prescan(&page, EndCondition::default()).unwrap().encoding, whatenc::KOI8_R);
/// // ... but not by the strict first-1024-bytes reading.
/// assert_eq!(prescan(&page, EndCondition::Strict(1024)), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndCondition {
    /// What Firefox and Chromium both do, as observed: the prescan looks for a `<`
    /// only in the first `limit` bytes, but a `<meta>` whose `<` lies within them is
    /// read to its end, and an XML declaration at byte 0 is read to its `>`, even
    /// past `limit`, up to `limit + overrun` bytes in all. Past that the end
    /// condition is reached. The default is `limit` 1024 ([`DEFAULT_LIMIT`]) and
    /// `overrun` 1024 ([`DEFAULT_OVERRUN`]): the prescan never sees more than
    /// 2048 bytes.
    Observed {
        /// Where a tag's `<` must lie.
        limit: usize,
        /// How far past `limit` a `<meta>` or XML declaration is followed.
        overrun: usize,
    },
    /// The prescan sees exactly the first N bytes: the same as prescanning
    /// `&bytes[..N]` as the whole stream.
    Strict(usize),
}

impl Default for EndCondition {
    fn default() -> Self {
        EndCondition::Observed { limit: DEFAULT_LIMIT, overrun: DEFAULT_OVERRUN }
    }
}

impl EndCondition {
    /// The most bytes the prescan ever looks at under this end condition.
    ///
    /// ```
    /// use whatenc::sniff::EndCondition;
    /// assert_eq!(EndCondition::default().max_bytes(), 2048);
    /// assert_eq!(EndCondition::Strict(512).max_bytes(), 512);
    /// ```
    pub fn max_bytes(&self) -> usize {
        match *self {
            EndCondition::Observed { limit, overrun } => limit.saturating_add(overrun),
            EndCondition::Strict(n) => n,
        }
    }

    /// Where reading stops: inside a `<meta>` (or while telling what a `<` starts)
    /// or elsewhere.
    fn bound(&self, in_meta: bool) -> usize {
        match *self {
            EndCondition::Observed { limit, .. } if !in_meta => limit,
            _ => self.max_bytes(),
        }
    }
}

/// What decided a [`prescan`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrescanSource {
    /// Step 2, "prescan for UTF-16 XML declarations": the stream starts with
    /// `<?x` in UTF-16LE or UTF-16BE.
    Utf16XmlDeclaration,
    /// A `<meta>` element whose `<` is at this byte offset.
    Meta {
        /// The offset of the `<` of the `<meta`.
        position: usize,
    },
    /// "Get an XML encoding": an XML declaration at byte 0.
    XmlDeclaration,
}

/// The encoding a [`prescan`] found, and where.
///
/// ```
/// use whatenc::sniff::{prescan, EndCondition, PrescanSource};
/// let found = prescan(b"<p><meta charset=gbk>", EndCondition::default()).unwrap();
/// assert_eq!(found.encoding, whatenc::GBK);
/// assert_eq!(found.source, PrescanSource::Meta { position: 3 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Prescanned {
    /// The encoding.
    pub encoding: &'static Encoding,
    /// Which rule found it.
    pub source: PrescanSource,
}

/// The outcome of a prescan of the bytes available so far, for streams.
///
/// ```
/// use whatenc::sniff::{prescan_available, EndCondition, PrescanStatus};
/// let end = EndCondition::default();
/// assert_eq!(prescan_available(b"<meta char", end, false), PrescanStatus::NeedMore);
/// assert_eq!(prescan_available(b"<meta char", end, true), PrescanStatus::Failure);
/// assert!(matches!(prescan_available(b"<meta charset=gbk>", end, false), PrescanStatus::Found(_)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrescanStatus {
    /// The prescan returned an encoding.
    Found(Prescanned),
    /// The prescan returned failure.
    Failure,
    /// The prescan ran out of bytes before its end condition; more may decide it.
    NeedMore,
}

/// An attribute that [`get_an_attribute`] sniffed. The name and value are slices
/// of the input; the standard's name and value are these bytes with A–Z
/// lowercased (and each byte taken as the code point of the same value).
///
/// ```
/// use whatenc::sniff::{get_an_attribute, GetAttribute};
/// let mut position = 0;
/// let GetAttribute::Attribute(attribute) = get_an_attribute(b" Charset='UTF-8'>", &mut position) else { panic!() };
/// assert!(attribute.name_is(b"charset"));
/// assert_eq!(attribute.name(), "charset");
/// assert_eq!(attribute.value(), "utf-8");
/// assert_eq!(attribute.value_bytes(), b"UTF-8");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Attribute<'a> {
    name: &'a [u8],
    value: &'a [u8],
}

impl<'a> Attribute<'a> {
    /// The name's bytes as they are in the input (not lowercased).
    ///
    /// ```
    /// # use whatenc::sniff::{get_an_attribute, GetAttribute};
    /// let GetAttribute::Attribute(a) = get_an_attribute(b"HREF=x>", &mut 0) else { panic!() };
    /// assert_eq!(a.name_bytes(), b"HREF");
    /// ```
    pub fn name_bytes(&self) -> &'a [u8] {
        self.name
    }

    /// The value's bytes as they are in the input (not lowercased, no quotes).
    ///
    /// ```
    /// # use whatenc::sniff::{get_an_attribute, GetAttribute};
    /// let GetAttribute::Attribute(a) = get_an_attribute(b"x=\"A b\">", &mut 0) else { panic!() };
    /// assert_eq!(a.value_bytes(), b"A b");
    /// ```
    pub fn value_bytes(&self) -> &'a [u8] {
        self.value
    }

    /// Whether the standard's (lowercased) name is `lowercase_name`.
    ///
    /// ```
    /// # use whatenc::sniff::{get_an_attribute, GetAttribute};
    /// let GetAttribute::Attribute(a) = get_an_attribute(b"HTTP-EQUIV=x>", &mut 0) else { panic!() };
    /// assert!(a.name_is(b"http-equiv"));
    /// ```
    pub fn name_is(&self, lowercase_name: &[u8]) -> bool {
        self.name.eq_ignore_ascii_case(lowercase_name)
    }

    /// The standard's attribute name: A–Z lowercased, each byte the code point of
    /// the same value.
    ///
    /// ```
    /// # use whatenc::sniff::{get_an_attribute, GetAttribute};
    /// let GetAttribute::Attribute(a) = get_an_attribute(b"N\xC9=x>", &mut 0) else { panic!() };
    /// assert_eq!(a.name(), "n\u{C9}");
    /// ```
    pub fn name(&self) -> alloc::string::String {
        lowercase_isomorphic(self.name)
    }

    /// The standard's attribute value: A–Z lowercased, each byte the code point of
    /// the same value.
    ///
    /// ```
    /// # use whatenc::sniff::{get_an_attribute, GetAttribute};
    /// let GetAttribute::Attribute(a) = get_an_attribute(b"x=TEXT/html>", &mut 0) else { panic!() };
    /// assert_eq!(a.value(), "text/html");
    /// ```
    pub fn value(&self) -> alloc::string::String {
        lowercase_isomorphic(self.value)
    }
}

fn lowercase_isomorphic(bytes: &[u8]) -> alloc::string::String {
    bytes.iter().map(|&b| char::from(b.to_ascii_lowercase())).collect()
}

/// What [`get_an_attribute`] found.
///
/// ```
/// use whatenc::sniff::{get_an_attribute, GetAttribute};
/// assert_eq!(get_an_attribute(b"  >", &mut 0), GetAttribute::NoAttribute);
/// assert_eq!(get_an_attribute(b"  a=b", &mut 0), GetAttribute::OutOfBytes);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GetAttribute<'a> {
    /// An attribute and its value.
    Attribute(Attribute<'a>),
    /// Step 2: the byte at position is `>`; there isn't one.
    NoAttribute,
    /// The position went past the end of the bytes (the prescan then aborts).
    OutOfBytes,
}

/// "Get an attribute" (HTML §13.2.3.2), from `bytes` at `position`, which it
/// advances as the standard's position pointer. Running out of bytes is
/// [`GetAttribute::OutOfBytes`].
///
/// ```
/// use whatenc::sniff::{get_an_attribute, GetAttribute};
/// let bytes = b" http-equiv=Content-Type content='text/html; charset=koi8-r'>";
/// let mut position = 0;
/// let GetAttribute::Attribute(first) = get_an_attribute(bytes, &mut position) else { panic!() };
/// assert_eq!((first.name(), first.value()), ("http-equiv".into(), "content-type".into()));
/// let GetAttribute::Attribute(second) = get_an_attribute(bytes, &mut position) else { panic!() };
/// assert_eq!(second.value(), "text/html; charset=koi8-r");
/// assert_eq!(get_an_attribute(bytes, &mut position), GetAttribute::NoAttribute);
/// assert_eq!(bytes[position], b'>');
/// ```
pub fn get_an_attribute<'a>(bytes: &'a [u8], position: &mut usize) -> GetAttribute<'a> {
    let scan = Scan::new(bytes, EndCondition::Strict(usize::MAX));
    match scan.get_an_attribute(position, true) {
        Ok(Some(attribute)) => GetAttribute::Attribute(attribute),
        Ok(None) => GetAttribute::NoAttribute,
        Err(_) => GetAttribute::OutOfBytes,
    }
}

/// "Prescan a byte stream to determine its encoding" (HTML §13.2.3.2), with `bytes`
/// as the whole stream and the given end condition: the encoding and the rule
/// that found it, or `None` for failure. When the prescan aborts (out of bytes or
/// at its end condition) the result is "get an XML encoding" applied to the bytes
/// the prescan was given, bounded by its `>` (see [`get_an_xml_encoding`]).
///
/// ```
/// use whatenc::sniff::{prescan, EndCondition, PrescanSource};
/// let page = b"<!doctype html><meta http-equiv=content-type content='text/html;charset=euc-kr'>";
/// let found = prescan(page, EndCondition::default()).unwrap();
/// assert_eq!((found.encoding, found.source), (whatenc::EUC_KR, PrescanSource::Meta { position: 15 }));
/// // UTF-16 and x-user-defined in a <meta> become UTF-8 and windows-1252.
/// assert_eq!(prescan(b"<meta charset=utf-16>", EndCondition::default()).unwrap().encoding, whatenc::UTF_8);
/// assert_eq!(prescan(b"<?xml version='1.0' encoding='gbk'?>", EndCondition::default()).unwrap().source, PrescanSource::XmlDeclaration);
/// assert_eq!(prescan(b"<p>no declaration", EndCondition::default()), None);
/// ```
pub fn prescan(bytes: &[u8], end: EndCondition) -> Option<Prescanned> {
    match prescan_available(bytes, end, true) {
        PrescanStatus::Found(found) => Some(found),
        PrescanStatus::Failure | PrescanStatus::NeedMore => None,
    }
}

/// [`prescan`] of the bytes available so far of a stream. With `end_of_stream`
/// false, running out of bytes before the end condition is
/// [`PrescanStatus::NeedMore`] rather than an abort; with it true (the end of the
/// stream, or the caller will not wait for more) this is [`prescan`].
///
/// ```
/// use whatenc::sniff::{prescan_available, EndCondition, PrescanStatus};
/// let end = EndCondition::Strict(8);
/// // Eight bytes seen without a decision: the end condition is reached.
/// assert_eq!(prescan_available(b"<p>hello, world", end, false), PrescanStatus::Failure);
/// assert_eq!(prescan_available(b"<p>hell", end, false), PrescanStatus::NeedMore);
/// ```
pub fn prescan_available(bytes: &[u8], end: EndCondition, end_of_stream: bool) -> PrescanStatus {
    let scan = Scan::new(bytes, end);
    match scan.prescan() {
        Ok(found) => PrescanStatus::Found(found),
        Err(Stop::OutOfBytes) if !end_of_stream => PrescanStatus::NeedMore,
        Err(_) => {
            // "the same bytes that the prescan was applied to"
            let seen = &bytes[..bytes.len().min(end.max_bytes())];
            let more = !end_of_stream && bytes.len() < end.max_bytes();
            match xml_encoding(seen, more) {
                Ok(Some(encoding)) => {
                    PrescanStatus::Found(Prescanned { encoding, source: PrescanSource::XmlDeclaration })
                }
                Ok(None) => PrescanStatus::Failure,
                Err(Stop::OutOfBytes) | Err(Stop::EndCondition) => PrescanStatus::NeedMore,
            }
        }
    }
}

/// The prescan's step 2: case-sensitive `<?x` in UTF-16LE and UTF-16BE.
const UTF_16_XML_DECLARATIONS: [(&[u8], &Encoding); 2] =
    [(b"\x3C\x00\x3F\x00\x78\x00", UTF_16LE), (b"\x00\x3C\x00\x3F\x00\x78", UTF_16BE)];

/// The prescan's step 2, "prescan for UTF-16 XML declarations": UTF-16LE if
/// `bytes` starts with `3C 00 3F 00 78 00` (`<?x`), UTF-16BE if with
/// `00 3C 00 3F 00 78`. The prefix is two bytes longer than XML's Appendix F and
/// the encoding name is not checked, "for historical reasons".
///
/// ```
/// use whatenc::sniff::prescan_for_utf_16_xml_declarations as utf_16;
/// assert_eq!(utf_16(b"<\0?\0x\0m\0l\0"), Some(whatenc::UTF_16LE));
/// assert_eq!(utf_16(b"\0<\0?\0x"), Some(whatenc::UTF_16BE));
/// assert_eq!(utf_16(b"<\0?\0X\0"), None);
/// ```
pub fn prescan_for_utf_16_xml_declarations(bytes: &[u8]) -> Option<&'static Encoding> {
    UTF_16_XML_DECLARATIONS.iter().find(|(pattern, _)| bytes.starts_with(pattern)).map(|&(_, encoding)| encoding)
}

/// Why a prescan aborted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The position went past the bytes available.
    OutOfBytes,
    /// The position reached the end condition.
    EndCondition,
}

/// The four rules for a `<` in the prescan's loop (step 3), and "any other byte".
enum Rule {
    Comment,
    Meta,
    Tag,
    Markup,
    Other,
}

const fn is_space(b: u8) -> bool {
    matches!(b, 0x09 | 0x0A | 0x0C | 0x0D | 0x20)
}

struct Scan<'a> {
    bytes: &'a [u8],
    /// [`EndCondition::bound`] outside a `<meta>`, and inside one.
    bounds: [usize; 2],
}

impl<'a> Scan<'a> {
    fn new(bytes: &'a [u8], end: EndCondition) -> Scan<'a> {
        Scan { bytes, bounds: [end.bound(false), end.bound(true)] }
    }

    /// The byte at `position`, unless the end condition or the end of the bytes is
    /// there.
    #[inline]
    fn at(&self, position: usize, in_meta: bool) -> Result<u8, Stop> {
        if position >= self.bounds[usize::from(in_meta)] {
            Err(Stop::EndCondition)
        } else {
            self.bytes.get(position).copied().ok_or(Stop::OutOfBytes)
        }
    }

    /// The position of the first `byte` at or after `from`, or where the end
    /// condition or the end of the bytes stops the search.
    #[inline]
    fn find(&self, from: usize, in_meta: bool, byte: u8) -> Result<usize, Stop> {
        let end = self.bounds[usize::from(in_meta)].min(self.bytes.len());
        match self.bytes.get(from..end).and_then(|rest| crate::simd::find_byte(byte, rest)) {
            Some(offset) => Ok(from + offset),
            None => Err(self.at(from.max(end), in_meta).err().unwrap_or(Stop::OutOfBytes)),
        }
    }

    /// The position of the first byte at or after `from` that `keep` refuses, or
    /// where the end condition or the end of the bytes stops the search.
    #[inline]
    fn skip(&self, from: usize, in_meta: bool, keep: impl Fn(u8) -> bool) -> Result<usize, Stop> {
        let end = self.bounds[usize::from(in_meta)].min(self.bytes.len());
        match self.bytes.get(from..end).and_then(|rest| rest.iter().position(|&b| !keep(b))) {
            Some(offset) => Ok(from + offset),
            None => Err(self.at(from.max(end), in_meta).err().unwrap_or(Stop::OutOfBytes)),
        }
    }

    /// Whether the bytes at `position` start with `pattern`; reads only as far as
    /// the first byte that differs.
    fn starts_with(&self, position: usize, pattern: &[u8]) -> Result<bool, Stop> {
        for (i, &expected) in pattern.iter().enumerate() {
            if self.at(position + i, false)? != expected {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn prescan(&self) -> Result<Prescanned, Stop> {
        // Step 1.
        let mut position = 0;
        // Step 2: prescan for UTF-16 XML declarations.
        for (pattern, encoding) in UTF_16_XML_DECLARATIONS {
            if self.starts_with(0, pattern)? {
                return Ok(Prescanned { encoding, source: PrescanSource::Utf16XmlDeclaration });
            }
        }
        // Step 3: loop. "Any other byte" does nothing, so the loop goes from `<` to `<`.
        loop {
            position = self.find(position, false, b'<')?;
            let lt = position;
            match self.rule(lt)? {
                Rule::Comment => {
                    // The first `>` preceded by `--`, the dashes of `<!--` included.
                    position = self.find(lt + 4, false, b'>')?;
                    while &self.bytes[position - 2..position] != b"--" {
                        position = self.find(position + 1, false, b'>')?;
                    }
                }
                Rule::Meta => {
                    if let Some(encoding) = self.meta(lt, &mut position)? {
                        return Ok(Prescanned { encoding, source: PrescanSource::Meta { position: lt } });
                    }
                }
                Rule::Tag => {
                    // 1. The next space or `>` after the `<`.
                    position = self.skip(lt + 1, false, |b| !is_space(b) && b != b'>')?;
                    // 2. Attributes until there are none.
                    while self.get_an_attribute(&mut position, false)?.is_some() {}
                }
                Rule::Markup => {
                    // `<!`, `</`, `<?`: the first `>` after the `<`.
                    position = self.find(lt + 1, false, b'>')?;
                }
                Rule::Other => {}
            }
            // Step 4: next byte.
            position += 1;
        }
    }

    /// Which rule of step 3 the `<` at `lt` starts. Telling a `<meta` needs up to
    /// five bytes after the `<`, which an observed end condition allows past the limit.
    fn rule(&self, lt: usize) -> Result<Rule, Stop> {
        let next = |i: usize| self.at(lt + i, true);
        Ok(match next(1)? {
            b'!' => {
                if next(2)? == b'-' && next(3)? == b'-' {
                    Rule::Comment
                } else {
                    Rule::Markup
                }
            }
            b'/' => {
                if next(2)?.is_ascii_alphabetic() {
                    Rule::Tag
                } else {
                    Rule::Markup
                }
            }
            b'?' => Rule::Markup,
            b'M' | b'm' => {
                let meta = next(2)?.eq_ignore_ascii_case(&b'e')
                    && next(3)?.eq_ignore_ascii_case(&b't')
                    && next(4)?.eq_ignore_ascii_case(&b'a')
                    && matches!(next(5)?, 0x09 | 0x0A | 0x0C | 0x0D | 0x20 | b'/');
                if meta { Rule::Meta } else { Rule::Tag }
            }
            b if b.is_ascii_alphabetic() => Rule::Tag,
            _ => Rule::Other,
        })
    }

    /// The `<meta` rule's substeps 1–16, leaving `position` for "next byte".
    fn meta(&self, lt: usize, position: &mut usize) -> Result<Option<&'static Encoding>, Stop> {
        const HTTP_EQUIV: u8 = 1;
        const CONTENT: u8 = 2;
        const CHARSET: u8 = 4;
        enum Charset {
            Null,
            Failure,
            Encoding(&'static Encoding),
        }
        // 1. The space or slash after `<meta`.
        *position = lt + 5;
        // 2–5. Only the three names that step 9 acts on matter in the attribute
        // list: a set of three bits.
        let mut attribute_list = 0u8;
        let mut got_pragma = false;
        let mut need_pragma = None;
        let mut charset = Charset::Null;
        // 6. Attributes.
        while let Some(attribute) = self.get_an_attribute(position, true)? {
            let name = if attribute.name_is(b"http-equiv") {
                HTTP_EQUIV
            } else if attribute.name_is(b"content") {
                CONTENT
            } else if attribute.name_is(b"charset") {
                CHARSET
            } else {
                0
            };
            // 7–8.
            if attribute_list & name != 0 {
                continue;
            }
            attribute_list |= name;
            // 9.
            match name {
                HTTP_EQUIV if attribute.value.eq_ignore_ascii_case(b"content-type") => got_pragma = true,
                CONTENT => {
                    if let Some(encoding) = extract_a_character_encoding_from_a_meta_element(attribute.value)
                        && matches!(charset, Charset::Null)
                    {
                        charset = Charset::Encoding(encoding);
                        need_pragma = Some(true);
                    }
                }
                CHARSET => {
                    charset = Encoding::for_label(attribute.value).map_or(Charset::Failure, Charset::Encoding);
                    need_pragma = Some(false);
                }
                _ => {}
            }
            // 10.
        }
        // 11–13. Processing.
        let Some(need_pragma) = need_pragma else { return Ok(None) };
        if need_pragma && !got_pragma {
            return Ok(None);
        }
        let Charset::Encoding(encoding) = charset else { return Ok(None) };
        // 14–16.
        Ok(Some(if encoding == UTF_16BE || encoding == UTF_16LE {
            UTF_8
        } else if encoding == X_USER_DEFINED {
            WINDOWS_1252
        } else {
            encoding
        }))
    }

    /// "Get an attribute": `Ok(None)` when there isn't one.
    fn get_an_attribute(&self, position: &mut usize, in_meta: bool) -> Result<Option<Attribute<'a>>, Stop> {
        // 1.
        *position = self.skip(*position, in_meta, |b| is_space(b) || b == b'/')?;
        // 2.
        if self.bytes[*position] == b'>' {
            return Ok(None);
        }
        // 3. The name runs from here.
        let name_start = *position;
        // 4–5. The first byte is part of the name whatever it is (`=` too, as the name
        // is empty); the name ends at `=`, a space, `/` or `>`.
        *position = self.skip(name_start + 1, in_meta, |b| !matches!(b, b'=' | b'/' | b'>') && !is_space(b))?;
        let name = &self.bytes[name_start..*position];
        match self.bytes[*position] {
            b'=' => {
                *position += 1;
                return self.attribute_value(name, position, in_meta).map(Some);
            }
            b'/' | b'>' => return Ok(Some(Attribute { name, value: b"" })),
            _ => {}
        }
        // 6. Spaces.
        *position = self.skip(*position, in_meta, is_space)?;
        // 7.
        if self.bytes[*position] != b'=' {
            return Ok(Some(Attribute { name, value: b"" }));
        }
        // 8.
        *position += 1;
        self.attribute_value(name, position, in_meta).map(Some)
    }

    /// "Get an attribute" steps 9–12, after the `=`.
    fn attribute_value(&self, name: &'a [u8], position: &mut usize, in_meta: bool) -> Result<Attribute<'a>, Stop> {
        // 9. Value.
        *position = self.skip(*position, in_meta, is_space)?;
        // 10.
        match self.bytes[*position] {
            quote @ (b'"' | b'\'') => {
                // Quote loop.
                let value_start = *position + 1;
                *position = self.find(value_start, in_meta, quote)?;
                let value = &self.bytes[value_start..*position];
                *position += 1;
                Ok(Attribute { name, value })
            }
            b'>' => Ok(Attribute { name, value: b"" }),
            _ => {
                let value_start = *position;
                // 11–12.
                *position = self.skip(value_start + 1, in_meta, |b| !is_space(b) && b != b'>')?;
                Ok(Attribute { name, value: &self.bytes[value_start..*position] })
            }
        }
    }
}

/// "Get an XML encoding" (HTML §13.2.3.2), with `bytes` as the whole stream. The
/// search for `encoding` (step 4) and everything after it stop at
/// `xmlDeclarationEnd`, the first `>`: the text computes `xmlDeclarationEnd` and
/// never uses it (whatwg/html issue #6939); Blink and WebKit bound the search by
/// it, and so does this.
///
/// ```
/// use whatenc::sniff::get_an_xml_encoding;
/// assert_eq!(get_an_xml_encoding(b"<?xml version=\"1.0\" encoding = 'Shift_JIS'?>"), Some(whatenc::SHIFT_JIS));
/// // UTF-16 becomes UTF-8 (step 17).
/// assert_eq!(get_an_xml_encoding(b"<?xml encoding='utf-16'?>"), Some(whatenc::UTF_8));
/// // `encoding` after the first `>` is not part of the declaration.
/// assert_eq!(get_an_xml_encoding(b"<?xml version='1.0'?><x encoding='gbk'/>"), None);
/// ```
pub fn get_an_xml_encoding(bytes: &[u8]) -> Option<&'static Encoding> {
    xml_encoding(bytes, false).ok().flatten()
}

/// "Get an XML encoding"; with `more` true, `Err` when the bytes end before the
/// answer is known (before the `<?xml` prefix is told or before its `>`).
fn xml_encoding(bytes: &[u8], more: bool) -> Result<Option<&'static Encoding>, Stop> {
    const PREFIX: &[u8] = b"<?xml";
    // 1–2.
    if !bytes.starts_with(PREFIX) {
        return if more && PREFIX.starts_with(bytes) { Err(Stop::OutOfBytes) } else { Ok(None) };
    }
    // 3. xmlDeclarationEnd.
    let Some(declaration_end) = bytes.iter().position(|&b| b == b'>') else {
        return if more { Err(Stop::OutOfBytes) } else { Ok(None) };
    };
    let declaration = &bytes[..declaration_end];
    Ok(encoding_in_declaration(declaration))
}

/// "Get an XML encoding" steps 4–18 within the declaration.
fn encoding_in_declaration(declaration: &[u8]) -> Option<&'static Encoding> {
    // 4–5.
    let mut position = declaration.windows(8).position(|w| w == b"encoding")? + 8;
    let at = |position: usize| declaration.get(position).copied();
    // 6.
    while at(position)? <= 0x20 {
        position += 1;
    }
    // 7–8.
    if at(position)? != b'=' {
        return None;
    }
    position += 1;
    // 9.
    while at(position)? <= 0x20 {
        position += 1;
    }
    // 10–12.
    let quote_mark = at(position)?;
    if quote_mark != b'"' && quote_mark != b'\'' {
        return None;
    }
    position += 1;
    // 13–14.
    let length = declaration[position..].iter().position(|&b| b == quote_mark)?;
    let potential_encoding = &declaration[position..position + length];
    // 15.
    if potential_encoding.iter().any(|&b| b <= 0x20) {
        return None;
    }
    // 16–18.
    let encoding = Encoding::for_label(potential_encoding)?;
    Some(if encoding == UTF_16BE || encoding == UTF_16LE { UTF_8 } else { encoding })
}

/// "The algorithm for extracting a character encoding from a meta element", given
/// a string `s` as bytes (isomorphic: a byte is the code point of the same value;
/// a `&str`'s UTF-8 bytes give the same answer, as only ASCII matters).
///
/// ```
/// use whatenc::sniff::extract_a_character_encoding_from_a_meta_element as extract;
/// assert_eq!(extract(b"text/html; charset=Shift_JIS"), Some(whatenc::SHIFT_JIS));
/// assert_eq!(extract(b"text/html; CHARSET = \"koi8-r\" ; x"), Some(whatenc::KOI8_R));
/// // An unmatched quote is nothing; a charset without `=` is skipped.
/// assert_eq!(extract(b"charset='gbk"), None);
/// assert_eq!(extract(b"charsetx; charset=gbk"), Some(whatenc::GBK));
/// ```
pub fn extract_a_character_encoding_from_a_meta_element(s: &[u8]) -> Option<&'static Encoding> {
    let is_ascii_whitespace = |b: &u8| is_space(*b);
    // 1.
    let mut position = 0;
    loop {
        // 2. Loop.
        let found = s[position..].windows(7).position(|w| w.eq_ignore_ascii_case(b"charset"))?;
        position += found + 7;
        // 3.
        while s.get(position).is_some_and(is_ascii_whitespace) {
            position += 1;
        }
        // 4.
        if s.get(position) != Some(&b'=') {
            continue;
        }
        position += 1;
        // 5.
        while s.get(position).is_some_and(is_ascii_whitespace) {
            position += 1;
        }
        // 6.
        return match s.get(position)? {
            &quote @ (b'"' | b'\'') => {
                let rest = &s[position + 1..];
                let length = rest.iter().position(|&b| b == quote)?;
                Encoding::for_label(&rest[..length])
            }
            _ => {
                let rest = &s[position..];
                let length = rest.iter().position(|&b| is_space(b) || b == b';').unwrap_or(rest.len());
                Encoding::for_label(&rest[..length])
            }
        };
    }
}
