//! Encoding determination per context: the order of steps that each standard
//! gives, with which step decided.

use core::fmt;

use super::mime::{MimeType, extract_a_mime_type, legacy_extract_an_encoding};
use super::prescan::{EndCondition, PrescanSource, PrescanStatus, get_an_xml_encoding, prescan_available};
use super::{locale_default_encoding, prescan};
use crate::encoding::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};
use crate::hooks::bom_sniff;

/// How sure the parser is of the encoding (HTML §13.2.3): a tentative encoding
/// may be changed by a `<meta>` met while parsing
/// ([`change_the_encoding`]); a certain one may not.
///
/// Contexts other than HTML never change the encoding once decoding starts;
/// their determinations are certain.
///
/// ```
/// use whatenc::sniff::{html, Confidence, HtmlOptions};
/// assert_eq!(html(b"<meta charset=gbk>", &HtmlOptions::default()).confidence, Confidence::Tentative);
/// assert_eq!(html(b"\xEF\xBB\xBF<meta charset=gbk>", &HtmlOptions::default()).confidence, Confidence::Certain);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Confidence {
    /// The encoding may change while parsing.
    Tentative,
    /// The encoding is final.
    Certain,
}

/// Which step of a determination decided the encoding.
///
/// ```
/// use whatenc::sniff::{html, HtmlOptions, Step};
/// let determination = html(b"<html><meta charset=shift_jis>", &HtmlOptions::default());
/// assert_eq!(determination.step, Step::Meta { position: 6 });
/// assert_eq!(determination.to_string(), "Shift_JIS (tentative, <meta> at byte 6)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// A byte order mark.
    Bom,
    /// The user's override (HTML step 2).
    Override,
    /// The transport's `charset`, from `Content-Type` (or XHR's override MIME type).
    Transport,
    /// A `<meta>` found by the prescan, its `<` at this byte offset.
    Meta {
        /// The offset of the `<` of the `<meta`.
        position: usize,
    },
    /// An XML declaration's `encoding` ("get an XML encoding").
    XmlDeclaration,
    /// UTF-16 recognised from `<?x` (the prescan's step 2) or, for XML documents,
    /// from `<?` without a BOM (XML 1.0 Appendix F).
    Utf16XmlDeclaration,
    /// A CSS `@charset "…";` declaration.
    CharsetRule,
    /// The environment, given explicitly: a `<script charset>` or `<link charset>`.
    CharsetAttribute,
    /// The environment, implied: the document's (or referring stylesheet's) encoding.
    Environment,
    /// A same-origin parent document (HTML step 6).
    Parent,
    /// What the user agent knows of the page, e.g. from history (HTML step 7).
    History,
    /// A [`Detector`] (HTML step 8).
    Detector,
    /// The locale's default (HTML step 9's table).
    LocaleDefault,
    /// The default: UTF-8.
    Default,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Bom => f.write_str("BOM"),
            Step::Override => f.write_str("user override"),
            Step::Transport => f.write_str("Content-Type charset"),
            Step::Meta { position } => write!(f, "<meta> at byte {position}"),
            Step::XmlDeclaration => f.write_str("XML declaration"),
            Step::Utf16XmlDeclaration => f.write_str("UTF-16 XML declaration"),
            Step::CharsetRule => f.write_str("@charset"),
            Step::CharsetAttribute => f.write_str("charset attribute"),
            Step::Environment => f.write_str("environment encoding"),
            Step::Parent => f.write_str("parent document"),
            Step::History => f.write_str("history"),
            Step::Detector => f.write_str("detector"),
            Step::LocaleDefault => f.write_str("locale default"),
            Step::Default => f.write_str("default"),
        }
    }
}

impl From<PrescanSource> for Step {
    fn from(source: PrescanSource) -> Step {
        match source {
            PrescanSource::Utf16XmlDeclaration => Step::Utf16XmlDeclaration,
            PrescanSource::Meta { position } => Step::Meta { position },
            PrescanSource::XmlDeclaration => Step::XmlDeclaration,
        }
    }
}

/// The result of a determination: the encoding, the confidence, and the step
/// that decided. Displays as `Shift_JIS (tentative, <meta> at byte 211)`.
///
/// ```
/// use whatenc::sniff::{xml, Confidence, Step};
/// let determination = xml(b"<?xml version='1.0' encoding='euc-jp'?><a/>", None);
/// assert_eq!(determination.encoding, whatenc::EUC_JP);
/// assert_eq!((determination.confidence, determination.step), (Confidence::Certain, Step::XmlDeclaration));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Determination {
    /// The encoding.
    pub encoding: &'static Encoding,
    /// Tentative or certain.
    pub confidence: Confidence,
    /// Which step decided.
    pub step: Step,
}

impl Determination {
    fn certain(encoding: &'static Encoding, step: Step) -> Determination {
        Determination { encoding, confidence: Confidence::Certain, step }
    }

    fn tentative(encoding: &'static Encoding, step: Step) -> Determination {
        Determination { encoding, confidence: Confidence::Tentative, step }
    }
}

impl fmt::Display for Determination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let confidence = match self.confidence {
            Confidence::Tentative => "tentative",
            Confidence::Certain => "certain",
        };
        write!(f, "{} ({confidence}, {})", self.encoding, self.step)
    }
}

/// The statistical detector of HTML step 8: any detector, behind this trait.
///
/// `bytes` is what is available: the whole resource when `whole` is true,
/// otherwise its start (a streaming [`Sniffer`](super::Sniffer) waits for the
/// prescan's bytes first). Return `None` when the detector cannot tell.
///
/// ```
/// use whatenc::sniff::{html, Detector, HtmlOptions, Step};
/// struct AlwaysKoi8R;
/// impl Detector for AlwaysKoi8R {
///     fn detect(&self, _bytes: &[u8], _whole: bool) -> Option<&'static whatenc::Encoding> {
///         Some(whatenc::KOI8_R)
///     }
/// }
/// let options = HtmlOptions { detector: Some(&AlwaysKoi8R), ..Default::default() };
/// assert_eq!(html(b"\xC1", &options).step, Step::Detector);
/// ```
pub trait Detector {
    /// The encoding the bytes are likely in, or `None`.
    fn detect(&self, bytes: &[u8], whole: bool) -> Option<&'static Encoding>;
}

/// The detector that the standard's note in step 8 recommends: when the whole
/// input is available, input that is valid UTF-8 and not ASCII-only is UTF-8.
/// It says nothing of a partial input or of anything else.
///
/// ```
/// use whatenc::sniff::{Detector, Utf8Detector};
/// assert_eq!(Utf8Detector.detect("é".as_bytes(), true), Some(whatenc::UTF_8));
/// assert_eq!(Utf8Detector.detect(b"ascii", true), None);
/// assert_eq!(Utf8Detector.detect(b"\xE9", true), None);
/// assert_eq!(Utf8Detector.detect("é".as_bytes(), false), None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Utf8Detector;

impl Detector for Utf8Detector {
    fn detect(&self, bytes: &[u8], whole: bool) -> Option<&'static Encoding> {
        (whole && !bytes.is_ascii() && crate::simd::validate_utf8(bytes).is_some()).then_some(UTF_8)
    }
}

/// A parent ("container") document, for HTML step 6.
///
/// ```
/// use whatenc::sniff::{html, HtmlOptions, ParentDocument, Step};
/// let parent = ParentDocument { encoding: whatenc::EUC_KR, same_origin: true };
/// let options = HtmlOptions { parent: Some(parent), ..Default::default() };
/// assert_eq!(html(b"<p>", &options).step, Step::Parent);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParentDocument {
    /// The parent document's character encoding.
    pub encoding: &'static Encoding,
    /// Whether its origin is same origin with the document's.
    pub same_origin: bool,
}

/// Every input a browser has to the encoding sniffing algorithm (HTML §13.2.3.2).
/// The default is a document with nothing known of it but its bytes: prescanned
/// with the observed end condition, no detector, and UTF-8 as the default.
///
/// ```
/// use whatenc::sniff::{html, HtmlOptions, Step};
/// let options = HtmlOptions { content_type: Some(b"text/html; charset=iso-8859-2"), ..Default::default() };
/// let determination = html(b"<meta charset=gbk>", &options);
/// assert_eq!((determination.encoding, determination.step), (whatenc::ISO_8859_2, Step::Transport));
/// ```
#[derive(Clone, Copy, Default)]
pub struct HtmlOptions<'a> {
    /// Step 2: the user's override.
    pub user_override: Option<&'static Encoding>,
    /// Step 4: the value of the `Content-Type` header (several headers joined with
    /// `, `, as Fetch's "get" does); its `charset`, if it names an encoding.
    pub content_type: Option<&'a [u8]>,
    /// Step 5: skip the prescan ("scanning any bytes is not efficient").
    pub skip_prescan: bool,
    /// Step 5: the prescan's end condition.
    pub end_condition: EndCondition,
    /// Step 6: the parent document, if there is one.
    pub parent: Option<ParentDocument>,
    /// Step 7: what the user agent knows of the page, e.g. its encoding when last
    /// visited. Not consulted when there is a parent document ("Otherwise").
    pub history: Option<&'static Encoding>,
    /// Step 8: a detector.
    pub detector: Option<&'a dyn Detector>,
    /// Step 9: the user's locale as a BCP 47 tag, for
    /// [`locale_default_encoding`]; without one the default is UTF-8.
    pub locale: Option<&'a str>,
}

impl fmt::Debug for HtmlOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HtmlOptions")
            .field("user_override", &self.user_override)
            .field("content_type", &self.content_type)
            .field("skip_prescan", &self.skip_prescan)
            .field("end_condition", &self.end_condition)
            .field("parent", &self.parent)
            .field("history", &self.history)
            .field("detector", &self.detector.is_some())
            .field("locale", &self.locale)
            .finish()
    }
}

/// How much of the resource a determination sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Available {
    /// No more bytes will be waited for: running out of bytes ends the prescan.
    pub last: bool,
    /// The bytes are the whole resource.
    pub whole: bool,
}

impl Available {
    pub(crate) const WHOLE: Available = Available { last: true, whole: true };
}

/// Not decided yet: more bytes could change the answer.
pub(crate) struct NeedMore;

/// "BOM sniff", waiting while the bytes could still become a BOM.
fn bom(bytes: &[u8], available: Available) -> Result<Option<&'static Encoding>, NeedMore> {
    if let Some(encoding) = bom_sniff(bytes) {
        return Ok(Some(encoding));
    }
    let could_be_bom = b"\xEF\xBB\xBF".starts_with(bytes) || matches!(bytes, [0xFE] | [0xFF]);
    if could_be_bom && !available.last { Err(NeedMore) } else { Ok(None) }
}

/// The encoding of the `charset` parameter of a `Content-Type` value, if any.
pub(crate) fn transport(content_type: Option<&[u8]>) -> Option<&'static Encoding> {
    transport_charset(content_type)
}

fn transport_charset(content_type: Option<&[u8]>) -> Option<&'static Encoding> {
    let mime_type = extract_a_mime_type(&[content_type?])?;
    Encoding::for_label_str(mime_type.parameter("charset")?)
}

fn is_utf_16(encoding: &'static Encoding) -> bool {
    encoding == UTF_16BE || encoding == UTF_16LE
}

/// The encoding sniffing algorithm (HTML §13.2.3.2), given the whole resource.
///
/// Steps: 1 BOM (certain); 2 the user's override (certain); 4 the transport's
/// `charset` (certain); 5 the prescan (tentative); 6 a same-origin parent
/// document not in UTF-16 (tentative); 7 otherwise history (tentative); 8 the
/// detector (tentative); 9 the locale's default, or UTF-8 (tentative).
///
/// ```
/// use whatenc::sniff::{html, HtmlOptions, Step, Utf8Detector};
/// let options = HtmlOptions { detector: Some(&Utf8Detector), locale: Some("ru"), ..Default::default() };
/// assert_eq!(html("<p>привет".as_bytes(), &options).step, Step::Detector);
/// assert_eq!(html(b"<p>\xEF\xF0\xE8\xE2\xE5\xF2", &options).encoding, whatenc::WINDOWS_1251);
/// ```
pub fn html(bytes: &[u8], options: &HtmlOptions<'_>) -> Determination {
    html_available(bytes, options, Available::WHOLE).unwrap_or_else(|NeedMore| unreachable!())
}

pub(crate) fn html_available(
    bytes: &[u8],
    options: &HtmlOptions<'_>,
    available: Available,
) -> Result<Determination, NeedMore> {
    // 1.
    if let Some(encoding) = bom(bytes, available)? {
        return Ok(Determination::certain(encoding, Step::Bom));
    }
    // 2.
    if let Some(encoding) = options.user_override {
        return Ok(Determination::certain(encoding, Step::Override));
    }
    // 3 is the waiting that `available` stands for. 4.
    if let Some(encoding) = transport_charset(options.content_type) {
        return Ok(Determination::certain(encoding, Step::Transport));
    }
    // 5.
    if !options.skip_prescan {
        match prescan_available(bytes, options.end_condition, available.last) {
            PrescanStatus::Found(found) => return Ok(Determination::tentative(found.encoding, found.source.into())),
            PrescanStatus::NeedMore => return Err(NeedMore),
            PrescanStatus::Failure => {}
        }
    }
    // 6–7.
    if let Some(parent) = options.parent {
        if parent.same_origin && !is_utf_16(parent.encoding) {
            return Ok(Determination::tentative(parent.encoding, Step::Parent));
        }
    } else if let Some(encoding) = options.history {
        return Ok(Determination::tentative(encoding, Step::History));
    }
    // 8. A detector sees at least the prescan's bytes.
    if let Some(detector) = options.detector {
        if !available.last && bytes.len() < options.end_condition.max_bytes() {
            return Err(NeedMore);
        }
        if let Some(encoding) = detector.detect(bytes, available.whole) {
            return Ok(Determination::tentative(encoding, Step::Detector));
        }
    }
    // 9.
    Ok(match options.locale {
        Some(locale) => Determination::tentative(locale_default_encoding(locale), Step::LocaleDefault),
        None => Determination::tentative(UTF_8, Step::Default),
    })
}

/// Plain text documents (`text/plain` navigated to): the encoding sniffing
/// algorithm without the prescan (step 5 is optional, and a text file has no
/// `<meta>`), as Firefox and Chromium do. `options.skip_prescan` is ignored.
///
/// ```
/// use whatenc::sniff::{plain_text, HtmlOptions, Step};
/// let determination = plain_text(b"<meta charset=gbk>", &HtmlOptions::default());
/// assert_eq!((determination.encoding, determination.step), (whatenc::UTF_8, Step::Default));
/// ```
pub fn plain_text(bytes: &[u8], options: &HtmlOptions<'_>) -> Determination {
    html(bytes, &HtmlOptions { skip_prescan: true, ..*options })
}

/// The most bytes the XML declaration is looked for in, for XML documents.
const XML_DECLARATION_LIMIT: usize = super::prescan::DEFAULT_LIMIT + super::prescan::DEFAULT_OVERRUN;

/// XML documents, as browsers do (HTML leaves them to XML; see whatwg/html issue
/// #12968): BOM; the transport's `charset`; UTF-16 without a BOM from
/// `3C 00 3F 00` (LE) or `00 3C 00 3F` (BE) (XML 1.0 Appendix F); the XML
/// declaration's `encoding` by "get an XML encoding" (UTF-16 there becomes UTF-8;
/// the declaration's `>` must lie in the first 2048 bytes); UTF-8. All certain.
///
/// ```
/// use whatenc::sniff::{xml, Step};
/// assert_eq!(xml(b"<\0?\0x\0m\0l\0", None).encoding, whatenc::UTF_16LE);
/// assert_eq!(xml(b"<?xml version='1.0' encoding='koi8-r'?>", Some(b"text/xml;charset=gbk")).step, Step::Transport);
/// assert_eq!(xml(b"<a/>", None).step, Step::Default);
/// ```
pub fn xml(bytes: &[u8], content_type: Option<&[u8]>) -> Determination {
    xml_available(bytes, transport_charset(content_type), Available::WHOLE).unwrap_or_else(|NeedMore| unreachable!())
}

/// [`xml`] with the transport's encoding found already.
pub(crate) fn xml_available(
    bytes: &[u8],
    transport: Option<&'static Encoding>,
    available: Available,
) -> Result<Determination, NeedMore> {
    if let Some(encoding) = bom(bytes, available)? {
        return Ok(Determination::certain(encoding, Step::Bom));
    }
    if let Some(encoding) = transport {
        return Ok(Determination::certain(encoding, Step::Transport));
    }
    for (pattern, encoding) in [(b"\x3C\x00\x3F\x00", UTF_16LE), (b"\x00\x3C\x00\x3F", UTF_16BE)] {
        if bytes.starts_with(pattern) {
            return Ok(Determination::certain(encoding, Step::Utf16XmlDeclaration));
        }
        if !available.last && bytes.len() < pattern.len() && pattern.starts_with(bytes) {
            return Err(NeedMore);
        }
    }
    let seen = &bytes[..bytes.len().min(XML_DECLARATION_LIMIT)];
    if !available.last && bytes.len() < XML_DECLARATION_LIMIT {
        // Wait for the declaration's `>` (or for the bytes to stop looking like one).
        let complete = if bytes.starts_with(b"<?xml") { bytes.contains(&b'>') } else { !b"<?xml".starts_with(bytes) };
        if !complete {
            return Err(NeedMore);
        }
    }
    if let Some(encoding) = get_an_xml_encoding(seen) {
        return Ok(Determination::certain(encoding, Step::XmlDeclaration));
    }
    Ok(Determination::certain(UTF_8, Step::Default))
}

/// "Get a final encoding" (XHR): the `charset` of the override MIME type, else
/// of the response MIME type, if it names an encoding. `response_mime_type` is
/// "extract a MIME type" of the response's headers (`None` for failure, which XHR
/// makes `text/xml`).
///
/// ```
/// use whatenc::sniff::{xhr_final_encoding, MimeType};
/// let response = MimeType::parse("text/html;charset=gbk");
/// let override_ = MimeType::parse("text/html;charset=big5");
/// assert_eq!(xhr_final_encoding(response.as_ref(), None), Some(whatenc::GBK));
/// assert_eq!(xhr_final_encoding(response.as_ref(), override_.as_ref()), Some(whatenc::BIG5));
/// ```
pub fn xhr_final_encoding(
    response_mime_type: Option<&MimeType>,
    override_mime_type: Option<&MimeType>,
) -> Option<&'static Encoding> {
    // 1–4.
    let label = override_mime_type
        .and_then(|mime| mime.parameter("charset"))
        .or_else(|| response_mime_type.and_then(|mime| mime.parameter("charset")))?;
    // 5–8.
    Encoding::for_label_str(label)
}

/// XHR's "get a final MIME type": the override MIME type, else the response's,
/// else `text/xml`.
fn xhr_final_mime_type(response_mime_type: Option<&MimeType>, override_mime_type: Option<&MimeType>) -> MimeType {
    override_mime_type.or(response_mime_type).cloned().unwrap_or_else(|| MimeType::parse("text/xml").expect("text/xml"))
}

/// XHR's "set a document response": the encoding of `responseXML`, or `None` when
/// there is no document (the final MIME type is neither HTML nor XML, or it is HTML
/// and `responseType` is the empty string).
///
/// For HTML: the final encoding, else the prescan of the first 1024 bytes
/// (strict), else UTF-8, and the document is parsed with that as a known definite
/// encoding, so the confidence is certain. A BOM comes first, as the decode that
/// follows gives it precedence. For XML, [`xml`] with the final encoding as the
/// transport's.
///
/// ```
/// use whatenc::sniff::{xhr_document_response, MimeType, Step, Confidence};
/// let html = MimeType::parse("text/html");
/// let determination = xhr_document_response(b"<meta charset=gbk>", html.as_ref(), None, false).unwrap();
/// assert_eq!((determination.encoding, determination.confidence), (whatenc::GBK, Confidence::Certain));
/// assert_eq!(xhr_document_response(b"<p>", html.as_ref(), None, true), None);
/// ```
pub fn xhr_document_response(
    bytes: &[u8],
    response_mime_type: Option<&MimeType>,
    override_mime_type: Option<&MimeType>,
    response_type_is_empty: bool,
) -> Option<Determination> {
    // 2–4.
    let final_mime_type = xhr_final_mime_type(response_mime_type, override_mime_type);
    let is_html = final_mime_type.is_html_mime_type();
    if !is_html && !final_mime_type.is_xml_mime_type() {
        return None;
    }
    if response_type_is_empty && is_html {
        return None;
    }
    let charset = xhr_final_encoding(response_mime_type, override_mime_type);
    if !is_html {
        // 6.
        return Some(xml_available(bytes, charset, Available::WHOLE).unwrap_or_else(|NeedMore| unreachable!()));
    }
    if let Some(encoding) = bom_sniff(bytes) {
        return Some(Determination::certain(encoding, Step::Bom));
    }
    // 5.1–5.3.
    if let Some(encoding) = charset {
        return Some(Determination::certain(encoding, Step::Transport));
    }
    if let Some(found) = prescan(bytes, EndCondition::Strict(1024)) {
        return Some(Determination::certain(found.encoding, found.source.into()));
    }
    Some(Determination::certain(UTF_8, Step::Default))
}

/// XHR's "get a text response": the encoding of `responseText`: BOM (the decode
/// gives it precedence), the final encoding, the XML rules ([`xml`]) when
/// `responseType` is empty and the final MIME type is XML, else UTF-8.
///
/// ```
/// use whatenc::sniff::{xhr_text_response, MimeType, Step};
/// let determination = xhr_text_response(b"<?xml version='1.0' encoding='gbk'?>", None, None, true);
/// assert_eq!((determination.encoding, determination.step), (whatenc::GBK, Step::XmlDeclaration));
/// let text = MimeType::parse("text/plain");
/// assert_eq!(xhr_text_response(b"<meta charset=gbk>", text.as_ref(), None, true).encoding, whatenc::UTF_8);
/// ```
pub fn xhr_text_response(
    bytes: &[u8],
    response_mime_type: Option<&MimeType>,
    override_mime_type: Option<&MimeType>,
    response_type_is_empty: bool,
) -> Determination {
    if let Some(encoding) = bom_sniff(bytes) {
        return Determination::certain(encoding, Step::Bom);
    }
    // 2.
    if let Some(encoding) = xhr_final_encoding(response_mime_type, override_mime_type) {
        return Determination::certain(encoding, Step::Transport);
    }
    // 3.
    if response_type_is_empty && xhr_final_mime_type(response_mime_type, override_mime_type).is_xml_mime_type() {
        return xml_available(bytes, None, Available::WHOLE).unwrap_or_else(|NeedMore| unreachable!());
    }
    // 4.
    Determination::certain(UTF_8, Step::Default)
}

/// The CSS environment encoding of a `<link rel=stylesheet>` (HTML): its `charset`
/// attribute if that names an encoding, else the document's encoding. With the
/// step that decided it.
fn link_environment(
    link_charset: Option<&[u8]>,
    document_encoding: Option<&'static Encoding>,
) -> Option<Determination> {
    if let Some(encoding) = link_charset.and_then(Encoding::for_label) {
        return Some(Determination::certain(encoding, Step::CharsetAttribute));
    }
    document_encoding.map(|encoding| Determination::certain(encoding, Step::Environment))
}

/// The CSS environment encoding of a `<link rel=stylesheet>` (HTML § link): the
/// encoding of its `charset` attribute, if that names one, else the document's.
///
/// ```
/// use whatenc::sniff::css_environment_encoding;
/// assert_eq!(css_environment_encoding(Some(b"koi8-r"), whatenc::UTF_8), whatenc::KOI8_R);
/// assert_eq!(css_environment_encoding(Some(b"bogus"), whatenc::GBK), whatenc::GBK);
/// ```
pub fn css_environment_encoding(
    link_charset: Option<&[u8]>,
    document_encoding: &'static Encoding,
) -> &'static Encoding {
    link_charset.and_then(Encoding::for_label).unwrap_or(document_encoding)
}

/// The bytes of a CSS `@charset "…";` declaration's label, if the first 1024
/// bytes begin with one (CSS Syntax §3.2 step 2).
fn charset_rule(bytes: &[u8], available: Available) -> Result<Option<&[u8]>, NeedMore> {
    const PREFIX: &[u8] = b"@charset \"";
    let head = &bytes[..bytes.len().min(1024)];
    let more = !available.last && bytes.len() < 1024;
    if !head.starts_with(PREFIX) {
        return if more && PREFIX.starts_with(head) { Err(NeedMore) } else { Ok(None) };
    }
    // XX is 0x00–0x21 or 0x23–0x7F: anything ASCII but `"`.
    let label = &head[PREFIX.len()..];
    match label.iter().position(|&b| b == b'"' || b >= 0x80) {
        Some(end) if label[end] == b'"' => match label.get(end + 1) {
            Some(b';') => Ok(Some(&label[..end])),
            Some(_) => Ok(None),
            None if more => Err(NeedMore),
            None => Ok(None),
        },
        Some(_) => Ok(None),
        None if more => Err(NeedMore),
        None => Ok(None),
    }
}

/// "Determine the fallback encoding" of a stylesheet (CSS Syntax §3.2): the
/// transport's `charset` if it names an encoding; else the `@charset "…";` at the
/// very start (exact bytes: one space, double quotes, no comment), UTF-16 there
/// becoming UTF-8, if it names an encoding; else the environment encoding (a
/// `<link charset>`, else the referring document's encoding); else UTF-8.
///
/// This is the fallback only: a BOM still decides, as [`css`] reports.
///
/// ```
/// use whatenc::sniff::{determine_the_fallback_encoding, Step};
/// let determination = determine_the_fallback_encoding(b"@charset \"koi8-r\"; a{}", None, None, None);
/// assert_eq!((determination.encoding, determination.step), (whatenc::KOI8_R, Step::CharsetRule));
/// // Single quotes are not a declaration.
/// assert_eq!(determine_the_fallback_encoding(b"@charset 'koi8-r';", None, None, None).step, Step::Default);
/// ```
pub fn determine_the_fallback_encoding(
    bytes: &[u8],
    content_type: Option<&[u8]>,
    link_charset: Option<&[u8]>,
    document_encoding: Option<&'static Encoding>,
) -> Determination {
    fallback_available(bytes, content_type, link_charset, document_encoding, Available::WHOLE)
        .unwrap_or_else(|NeedMore| unreachable!())
}

fn fallback_available(
    bytes: &[u8],
    content_type: Option<&[u8]>,
    link_charset: Option<&[u8]>,
    document_encoding: Option<&'static Encoding>,
    available: Available,
) -> Result<Determination, NeedMore> {
    // 1.
    if let Some(encoding) = transport_charset(content_type) {
        return Ok(Determination::certain(encoding, Step::Transport));
    }
    // 2.
    if let Some(encoding) = charset_rule(bytes, available)?.and_then(Encoding::for_label) {
        let encoding = if is_utf_16(encoding) { UTF_8 } else { encoding };
        return Ok(Determination::certain(encoding, Step::CharsetRule));
    }
    // 3–4.
    Ok(link_environment(link_charset, document_encoding).unwrap_or(Determination::certain(UTF_8, Step::Default)))
}

/// A stylesheet's encoding: a BOM, else [`determine_the_fallback_encoding`] (CSS
/// Syntax §3.2 "decode a stylesheet's stream of bytes").
///
/// ```
/// use whatenc::sniff::{css, Step};
/// assert_eq!(css(b"\xEF\xBB\xBF@charset \"gbk\";", None, None, None).step, Step::Bom);
/// assert_eq!(css(b"a{}", None, Some(b"euc-kr"), Some(whatenc::GBK)).step, Step::CharsetAttribute);
/// assert_eq!(css(b"a{}", None, None, Some(whatenc::GBK)).step, Step::Environment);
/// ```
pub fn css(
    bytes: &[u8],
    content_type: Option<&[u8]>,
    link_charset: Option<&[u8]>,
    document_encoding: Option<&'static Encoding>,
) -> Determination {
    css_available(bytes, content_type, link_charset, document_encoding, Available::WHOLE)
        .unwrap_or_else(|NeedMore| unreachable!())
}

pub(crate) fn css_available(
    bytes: &[u8],
    content_type: Option<&[u8]>,
    link_charset: Option<&[u8]>,
    document_encoding: Option<&'static Encoding>,
    available: Available,
) -> Result<Determination, NeedMore> {
    if let Some(encoding) = bom(bytes, available)? {
        return Ok(Determination::certain(encoding, Step::Bom));
    }
    fallback_available(bytes, content_type, link_charset, document_encoding, available)
}

/// The encoding steps of "prepare the script element" (HTML): the encoding of the
/// `charset` attribute, if it names one, else the document's encoding. (A module
/// script ignores it.)
///
/// ```
/// use whatenc::sniff::script_element_encoding;
/// assert_eq!(script_element_encoding(Some(b" Shift_JIS "), whatenc::UTF_8), whatenc::SHIFT_JIS);
/// assert_eq!(script_element_encoding(Some(b"utf-7"), whatenc::GBK), whatenc::GBK);
/// ```
pub fn script_element_encoding(
    charset_attribute: Option<&[u8]>,
    document_encoding: &'static Encoding,
) -> &'static Encoding {
    charset_attribute.and_then(Encoding::for_label).unwrap_or(document_encoding)
}

/// A classic script's encoding ("fetch a classic script"): a BOM (the decode gives
/// it precedence); else "legacy extract an encoding" from the response's
/// `Content-Type` (its essence ignored), with the element's encoding
/// ([`script_element_encoding`]) as the fallback.
///
/// Module scripts, worker scripts and JSON are "UTF-8 decode"d: no charset, no
/// sniffing; use [`hooks::utf8_decode`](crate::hooks::utf8_decode).
///
/// ```
/// use whatenc::sniff::{classic_script, Step};
/// let determination = classic_script(b"var x;", Some(b"text/plain;charset=koi8-r"), Some(b"gbk"), whatenc::UTF_8);
/// assert_eq!((determination.encoding, determination.step), (whatenc::KOI8_R, Step::Transport));
/// assert_eq!(classic_script(b"var x;", None, Some(b"gbk"), whatenc::UTF_8).step, Step::CharsetAttribute);
/// assert_eq!(classic_script(b"var x;", None, None, whatenc::EUC_KR).step, Step::Environment);
/// ```
pub fn classic_script(
    bytes: &[u8],
    content_type: Option<&[u8]>,
    charset_attribute: Option<&[u8]>,
    document_encoding: &'static Encoding,
) -> Determination {
    classic_script_available(bytes, content_type, charset_attribute, document_encoding, Available::WHOLE)
        .unwrap_or_else(|NeedMore| unreachable!())
}

pub(crate) fn classic_script_available(
    bytes: &[u8],
    content_type: Option<&[u8]>,
    charset_attribute: Option<&[u8]>,
    document_encoding: &'static Encoding,
    available: Available,
) -> Result<Determination, NeedMore> {
    if let Some(encoding) = bom(bytes, available)? {
        return Ok(Determination::certain(encoding, Step::Bom));
    }
    let element = match charset_attribute.and_then(Encoding::for_label) {
        Some(encoding) => Determination::certain(encoding, Step::CharsetAttribute),
        None => Determination::certain(document_encoding, Step::Environment),
    };
    let mime_type = content_type.and_then(|value| extract_a_mime_type(&[value]));
    let encoding = legacy_extract_an_encoding(mime_type.as_ref(), element.encoding);
    let from_transport =
        mime_type.as_ref().and_then(|mime| mime.parameter("charset")).and_then(Encoding::for_label_str);
    Ok(if from_transport.is_some() { Determination::certain(encoding, Step::Transport) } else { element })
}

/// What [`change_the_encoding`] says to do.
///
/// ```
/// use whatenc::sniff::{change_the_encoding, Confidence, EncodingChange};
/// assert_eq!(change_the_encoding(whatenc::UTF_8, Confidence::Tentative, b"utf8", b"<p>"), EncodingChange::BecomeCertain);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EncodingChange {
    /// Nothing: the confidence is already certain, or the label names no encoding.
    Nothing,
    /// Keep the encoding and set the confidence to certain (steps 1 and 4).
    BecomeCertain,
    /// Step 5: the bytes so far decode the same in both encodings; decode the rest
    /// with a new decoder for this encoding, confidence certain.
    SwitchOnTheFly(&'static Encoding),
    /// Step 6: re-decode from the start in this encoding, confidence certain
    /// (from memory if possible; if the bytes could only be had again by repeating
    /// a request whose method is not `GET`, the standard says to become certain
    /// and ignore the new encoding instead).
    Reparse(&'static Encoding),
}

/// "Change the encoding" (HTML §13.2.3.4), which a parser runs when it meets a
/// `<meta>` declaring an encoding while the confidence is tentative. `current` and
/// `confidence` are the parser's; `new_label` is the declared label; `decoded` is
/// every byte the current decoder has converted so far (it should end at a
/// character boundary of the current encoding).
///
/// The step-5 comparison decodes `decoded` in both encodings (a comparison of
/// ASCII-only bytes between ASCII-compatible encodings needs no decoding).
///
/// ```
/// use whatenc::sniff::{change_the_encoding, Confidence, EncodingChange};
/// let tentative = Confidence::Tentative;
/// // UTF-16 is never changed.
/// assert_eq!(change_the_encoding(whatenc::UTF_16LE, tentative, b"gbk", b""), EncodingChange::BecomeCertain);
/// // ASCII so far: switch on the fly.
/// assert_eq!(change_the_encoding(whatenc::WINDOWS_1252, tentative, b"gbk", b"<html>"), EncodingChange::SwitchOnTheFly(whatenc::GBK));
/// // A byte that decodes differently: start again.
/// assert_eq!(change_the_encoding(whatenc::WINDOWS_1252, tentative, b"gbk", b"<p>\xC4\xE3"), EncodingChange::Reparse(whatenc::GBK));
/// ```
pub fn change_the_encoding(
    current: &'static Encoding,
    confidence: Confidence,
    new_label: &[u8],
    decoded: &[u8],
) -> EncodingChange {
    if confidence == Confidence::Certain {
        return EncodingChange::Nothing;
    }
    let Some(mut new) = Encoding::for_label(new_label) else { return EncodingChange::Nothing };
    // 1.
    if is_utf_16(current) {
        return EncodingChange::BecomeCertain;
    }
    // 2–3.
    if is_utf_16(new) {
        new = UTF_8;
    } else if new == X_USER_DEFINED {
        new = WINDOWS_1252;
    }
    // 4.
    if new == current {
        return EncodingChange::BecomeCertain;
    }
    // 5.
    let same = if current.is_ascii_compatible() && new.is_ascii_compatible() && decoded.is_ascii() {
        true
    } else {
        current.decode(decoded).0 == new.decode(decoded).0
    };
    if same { EncodingChange::SwitchOnTheFly(new) } else { EncodingChange::Reparse(new) }
}
