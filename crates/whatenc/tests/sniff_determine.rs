//! Determination per context, step by step: HTML's encoding sniffing algorithm
//! (§13.2.3.2), changing the encoding while parsing (§13.2.3.4), XML documents,
//! CSS (Syntax §3.2), classic scripts, plain text and XHR.

use std::cell::Cell;

use whatenc::sniff::{
    Confidence, Detector, Determination, EncodingChange, EndCondition, HtmlOptions, MimeType, ParentDocument, Step,
    Utf8Detector, change_the_encoding, classic_script, css, css_environment_encoding, determine_the_fallback_encoding,
    html, plain_text, script_element_encoding, xhr_document_response, xhr_final_encoding, xhr_text_response, xml,
};
use whatenc::*;

use Confidence::{Certain, Tentative};

fn is(determination: Determination, encoding: &'static Encoding, confidence: Confidence, step: Step) {
    assert_eq!(determination, Determination { encoding, confidence, step });
}

const META_GBK: &[u8] = b"<meta charset=gbk>";

// --- HTML §13.2.3.2 ---

#[test]
fn html_step_1_bom_is_certain_and_beats_everything() {
    let all = HtmlOptions {
        user_override: Some(BIG5),
        content_type: Some(b"text/html;charset=koi8-r"),
        ..Default::default()
    };
    is(html(b"\xEF\xBB\xBF<meta charset=gbk>", &all), UTF_8, Certain, Step::Bom);
    is(html(b"\xFE\xFF\0<", &all), UTF_16BE, Certain, Step::Bom);
    is(html(b"\xFF\xFE<\0", &all), UTF_16LE, Certain, Step::Bom);
    // Not a BOM: two bytes of the UTF-8 one.
    is(html(b"\xEF\xBB<meta charset=gbk>", &HtmlOptions::default()), GBK, Tentative, Step::Meta { position: 2 });
}

#[test]
fn html_step_2_user_override_is_certain() {
    let options = HtmlOptions {
        user_override: Some(BIG5),
        content_type: Some(b"text/html;charset=koi8-r"),
        ..Default::default()
    };
    is(html(META_GBK, &options), BIG5, Certain, Step::Override);
}

#[test]
fn html_step_4_transport_is_certain_and_beats_the_meta() {
    let options = HtmlOptions { content_type: Some(b"text/html; charset=\"KOI8-R\""), ..Default::default() };
    is(html(META_GBK, &options), KOI8_R, Certain, Step::Transport);
    // A charset that is no encoding, or no charset, is not the transport's.
    for content_type in [&b"text/html;charset=utf-7"[..], b"text/html", b"nonsense;charset=big5", b""] {
        let options = HtmlOptions { content_type: Some(content_type), ..Default::default() };
        is(html(META_GBK, &options), GBK, Tentative, Step::Meta { position: 0 });
    }
    // The replacement labels are supported encodings.
    let options = HtmlOptions { content_type: Some(b"text/html;charset=iso-2022-kr"), ..Default::default() };
    is(html(META_GBK, &options), REPLACEMENT, Certain, Step::Transport);
}

#[test]
fn html_step_5_prescan_is_tentative() {
    is(html(META_GBK, &HtmlOptions::default()), GBK, Tentative, Step::Meta { position: 0 });
    is(html(b"<?xml version='1.0' encoding='big5'?>", &HtmlOptions::default()), BIG5, Tentative, Step::XmlDeclaration);
    is(html(b"<\0?\0x\0", &HtmlOptions::default()), UTF_16LE, Tentative, Step::Utf16XmlDeclaration);
    // Skipped.
    let options = HtmlOptions { skip_prescan: true, ..Default::default() };
    is(html(META_GBK, &options), UTF_8, Tentative, Step::Default);
    // The end condition is an option.
    let mut page = vec![b' '; 600];
    page.extend_from_slice(META_GBK);
    let options = HtmlOptions { end_condition: EndCondition::Strict(512), ..Default::default() };
    is(html(&page, &options), UTF_8, Tentative, Step::Default);
}

#[test]
fn html_step_6_parent_document() {
    let parent = |encoding, same_origin| HtmlOptions {
        parent: Some(ParentDocument { encoding, same_origin }),
        history: Some(KOI8_U),
        locale: Some("ja"),
        ..Default::default()
    };
    is(html(b"<p>", &parent(EUC_KR, true)), EUC_KR, Tentative, Step::Parent);
    // Cross-origin, or UTF-16: not the parent's; and history is not consulted ("Otherwise").
    is(html(b"<p>", &parent(EUC_KR, false)), SHIFT_JIS, Tentative, Step::LocaleDefault);
    is(html(b"<p>", &parent(UTF_16LE, true)), SHIFT_JIS, Tentative, Step::LocaleDefault);
    is(html(b"<p>", &parent(UTF_16BE, true)), SHIFT_JIS, Tentative, Step::LocaleDefault);
    // The prescan comes first.
    is(html(META_GBK, &parent(EUC_KR, true)), GBK, Tentative, Step::Meta { position: 0 });
}

#[test]
fn html_step_7_history() {
    let options = HtmlOptions { history: Some(KOI8_U), locale: Some("ja"), ..Default::default() };
    is(html(b"<p>", &options), KOI8_U, Tentative, Step::History);
}

struct Counting(Cell<usize>, Option<&'static Encoding>);

impl Detector for Counting {
    fn detect(&self, _bytes: &[u8], _whole: bool) -> Option<&'static Encoding> {
        self.0.set(self.0.get() + 1);
        self.1
    }
}

#[test]
fn html_step_8_detector() {
    let detector = Counting(Cell::new(0), Some(WINDOWS_1251));
    let options = HtmlOptions { detector: Some(&detector), locale: Some("ja"), ..Default::default() };
    is(html(b"<p>\xEF\xF0\xE8", &options), WINDOWS_1251, Tentative, Step::Detector);
    // A detector that cannot tell falls through to step 9.
    let silent = Counting(Cell::new(0), None);
    let options = HtmlOptions { detector: Some(&silent), locale: Some("ja"), ..Default::default() };
    is(html(b"<p>", &options), SHIFT_JIS, Tentative, Step::LocaleDefault);
    assert_eq!(silent.0.get(), 1);
    // Earlier steps win without asking it.
    let options = HtmlOptions { detector: Some(&detector), ..Default::default() };
    is(html(META_GBK, &options), GBK, Tentative, Step::Meta { position: 0 });
    assert_eq!(detector.0.get(), 1);
}

#[test]
fn html_step_8_the_notes_utf_8_detector() {
    let options = HtmlOptions { detector: Some(&Utf8Detector), locale: Some("ru"), ..Default::default() };
    is(html("<p>привет".as_bytes(), &options), UTF_8, Tentative, Step::Detector);
    is(html(b"<p>ascii", &options), WINDOWS_1251, Tentative, Step::LocaleDefault);
    is(html(b"<p>\xEF\xF0\xE8", &options), WINDOWS_1251, Tentative, Step::LocaleDefault);
    // Truncated UTF-8 at the end of the whole input is not valid UTF-8.
    is(html(b"<p>\xD0\xBF\xD1", &options), WINDOWS_1251, Tentative, Step::LocaleDefault);
}

#[test]
fn html_step_9_locale_default_or_utf_8() {
    is(
        html(b"<p>", &HtmlOptions { locale: Some("zh-TW"), ..Default::default() }),
        BIG5,
        Tentative,
        Step::LocaleDefault,
    );
    is(
        html(b"<p>", &HtmlOptions { locale: Some("en-US"), ..Default::default() }),
        WINDOWS_1252,
        Tentative,
        Step::LocaleDefault,
    );
    is(html(b"<p>", &HtmlOptions::default()), UTF_8, Tentative, Step::Default);
    is(html(b"", &HtmlOptions::default()), UTF_8, Tentative, Step::Default);
}

#[test]
fn bom_against_meta_against_transport() {
    let transport = HtmlOptions { content_type: Some(b"text/html;charset=big5"), ..Default::default() };
    is(html(b"\xEF\xBB\xBF<meta charset=gbk>", &transport), UTF_8, Certain, Step::Bom);
    is(html(b"<meta charset=gbk>", &transport), BIG5, Certain, Step::Transport);
    is(html(b"<meta charset=gbk>", &HtmlOptions::default()), GBK, Tentative, Step::Meta { position: 0 });
    is(html(b"\xFF\xFE<\0m\0e\0t\0a\0", &HtmlOptions::default()), UTF_16LE, Certain, Step::Bom);
}

#[test]
fn determination_display() {
    let determination = html(b"<html><head><meta charset=Shift_JIS>", &HtmlOptions::default());
    assert_eq!(determination.to_string(), "Shift_JIS (tentative, <meta> at byte 12)");
    assert_eq!(html(b"\xEF\xBB\xBF", &HtmlOptions::default()).to_string(), "UTF-8 (certain, BOM)");
}

// --- HTML §13.2.3.4 changing the encoding while parsing ---

#[test]
fn change_the_encoding_steps() {
    let change = |current, label: &[u8], decoded: &[u8]| change_the_encoding(current, Tentative, label, decoded);
    // Not tentative, or no encoding: nothing.
    assert_eq!(change_the_encoding(WINDOWS_1252, Certain, b"gbk", b""), EncodingChange::Nothing);
    assert_eq!(change(WINDOWS_1252, b"bogus", b""), EncodingChange::Nothing);
    // 1. UTF-16 in use: become certain.
    assert_eq!(change(UTF_16LE, b"gbk", b"<\0"), EncodingChange::BecomeCertain);
    assert_eq!(change(UTF_16BE, b"utf-16be", b""), EncodingChange::BecomeCertain);
    // 2. UTF-16 declared is UTF-8; 4. the same: become certain.
    assert_eq!(change(UTF_8, b"utf-16", b"<p>\xC3\xA9"), EncodingChange::BecomeCertain);
    assert_eq!(change(UTF_8, b"unicode-1-1-utf-8", b""), EncodingChange::BecomeCertain);
    // 3. x-user-defined is windows-1252.
    assert_eq!(change(WINDOWS_1252, b"x-user-defined", b"\x80"), EncodingChange::BecomeCertain);
    // 5. The bytes so far decode the same.
    assert_eq!(change(WINDOWS_1252, b"utf-16", b"<meta charset=utf-16>"), EncodingChange::SwitchOnTheFly(UTF_8));
    assert_eq!(change(WINDOWS_1252, b"iso-8859-15", b"caf\xE9"), EncodingChange::SwitchOnTheFly(ISO_8859_15));
    assert_eq!(change(ISO_2022_JP, b"utf-8", b"<p>"), EncodingChange::SwitchOnTheFly(UTF_8));
    // 6. They do not.
    assert_eq!(change(WINDOWS_1252, b"utf-8", b"caf\xC3\xA9"), EncodingChange::Reparse(UTF_8));
    assert_eq!(change(WINDOWS_1252, b"iso-8859-15", b"\xA4"), EncodingChange::Reparse(ISO_8859_15));
    assert_eq!(change(ISO_2022_JP, b"utf-8", b"\x1B$B"), EncodingChange::Reparse(UTF_8));
}

// --- XML documents ---

#[test]
fn xml_documents() {
    // BOM.
    is(
        xml(b"\xEF\xBB\xBF<?xml version='1.0' encoding='gbk'?>", Some(b"text/xml;charset=big5")),
        UTF_8,
        Certain,
        Step::Bom,
    );
    // Transport.
    is(
        xml(b"<?xml version='1.0' encoding='gbk'?>", Some(b"application/xml;charset=big5")),
        BIG5,
        Certain,
        Step::Transport,
    );
    // UTF-16 without a BOM (XML 1.0 Appendix F).
    is(xml(b"<\0?\0x\0m\0l\0", None), UTF_16LE, Certain, Step::Utf16XmlDeclaration);
    is(xml(b"\0<\0?\0x\0m\0l", None), UTF_16BE, Certain, Step::Utf16XmlDeclaration);
    // The declaration.
    is(xml(b"<?xml version='1.0' encoding='gbk'?><a/>", None), GBK, Certain, Step::XmlDeclaration);
    is(xml(b"<?xml version='1.0' encoding='utf-16'?><a/>", None), UTF_8, Certain, Step::XmlDeclaration);
    // `>` before `encoding`; no declaration; a bogus label: UTF-8.
    is(xml(b"<?xml version='1.0'?><a encoding='gbk'/>", None), UTF_8, Certain, Step::Default);
    is(xml(b"<a/>", None), UTF_8, Certain, Step::Default);
    is(xml(b"<?xml version='1.0' encoding='bogus'?>", None), UTF_8, Certain, Step::Default);
    // The declaration's `>` must be in the first 2048 bytes.
    let mut long = b"<?xml version='1.0' encoding='gbk'".to_vec();
    long.extend(std::iter::repeat_n(b' ', 2048));
    long.extend_from_slice(b"?>");
    is(xml(&long, None), UTF_8, Certain, Step::Default);
}

// --- CSS Syntax §3.2 ---

#[test]
fn css_step_1_transport() {
    is(
        determine_the_fallback_encoding(b"@charset \"gbk\";", Some(b"text/css;charset=big5"), None, None),
        BIG5,
        Certain,
        Step::Transport,
    );
    // A label that is no encoding goes on to step 2.
    is(
        determine_the_fallback_encoding(b"@charset \"gbk\";", Some(b"text/css;charset=bogus"), None, None),
        GBK,
        Certain,
        Step::CharsetRule,
    );
}

#[test]
fn css_step_2_charset_rule_is_exact_bytes() {
    let fallback = |bytes: &[u8]| determine_the_fallback_encoding(bytes, None, None, Some(KOI8_U));
    is(fallback(b"@charset \"gbk\"; a{}"), GBK, Certain, Step::CharsetRule);
    is(fallback(b"@charset \"GBK\";"), GBK, Certain, Step::CharsetRule);
    // UTF-16 becomes UTF-8.
    is(fallback(b"@charset \"utf-16le\";"), UTF_8, Certain, Step::CharsetRule);
    is(fallback(b"@charset \"UTF-16BE\";"), UTF_8, Certain, Step::CharsetRule);
    // Not a declaration: single quotes, two spaces, a comment, upper case, no `;`, a space before `;`.
    for bytes in [
        &b"@charset 'gbk';"[..],
        b"@charset  \"gbk\";",
        b"@charset /**/\"gbk\";",
        b"/**/@charset \"gbk\";",
        b"@CHARSET \"gbk\";",
        b"@charset \"gbk\"",
        b"@charset \"gbk\" ;",
        b" @charset \"gbk\";",
        b"@charset \"gb\xC3\xA9k\";",
    ] {
        is(fallback(bytes), KOI8_U, Certain, Step::Environment);
    }
    // A bogus label, and an empty one, are failure.
    is(fallback(b"@charset \"bogus\";"), KOI8_U, Certain, Step::Environment);
    is(fallback(b"@charset \"\";"), KOI8_U, Certain, Step::Environment);
    // Whitespace inside the quotes is allowed by the bytes and trimmed by get an encoding.
    is(fallback(b"@charset \" gbk \";"), GBK, Certain, Step::CharsetRule);
    // Within the first 1024 bytes.
    let mut long = b"@charset \"".to_vec();
    long.extend(std::iter::repeat_n(b' ', 1008));
    long.extend_from_slice(b"gbk\";");
    assert_eq!(long.len(), 1023);
    is(fallback(&long), GBK, Certain, Step::CharsetRule);
    long.insert(10, b' ');
    is(fallback(&long), GBK, Certain, Step::CharsetRule);
    long.insert(10, b' ');
    assert_eq!(long.len(), 1025);
    is(fallback(&long), KOI8_U, Certain, Step::Environment);
}

#[test]
fn css_steps_3_4_environment_and_utf_8() {
    is(
        determine_the_fallback_encoding(b"a{}", None, Some(b"euc-kr"), Some(GBK)),
        EUC_KR,
        Certain,
        Step::CharsetAttribute,
    );
    is(determine_the_fallback_encoding(b"a{}", None, Some(b"bogus"), Some(GBK)), GBK, Certain, Step::Environment);
    is(determine_the_fallback_encoding(b"a{}", None, None, None), UTF_8, Certain, Step::Default);
    assert_eq!(css_environment_encoding(Some(b"euc-kr"), GBK), EUC_KR);
    assert_eq!(css_environment_encoding(None, GBK), GBK);
}

#[test]
fn css_bom_comes_first() {
    is(css(b"\xEF\xBB\xBF@charset \"gbk\";", Some(b"text/css;charset=big5"), None, None), UTF_8, Certain, Step::Bom);
    is(css(b"\xFE\xFF\0@", None, None, None), UTF_16BE, Certain, Step::Bom);
    is(css(b"@charset \"gbk\";", None, None, None), GBK, Certain, Step::CharsetRule);
}

// --- Scripts ---

#[test]
fn classic_scripts() {
    // "Prepare the script element": the charset attribute, else the document's encoding.
    assert_eq!(script_element_encoding(Some(b"gbk"), UTF_8), GBK);
    assert_eq!(script_element_encoding(Some(b"bogus"), EUC_KR), EUC_KR);
    assert_eq!(script_element_encoding(None, EUC_KR), EUC_KR);
    // "Fetch a classic script": legacy extract an encoding, the essence ignored.
    is(classic_script(b"x", Some(b"image/png;charset=koi8-r"), Some(b"gbk"), UTF_8), KOI8_R, Certain, Step::Transport);
    is(
        classic_script(b"x", Some(b"text/javascript;charset=bogus"), Some(b"gbk"), UTF_8),
        GBK,
        Certain,
        Step::CharsetAttribute,
    );
    is(classic_script(b"x", Some(b"text/javascript"), None, EUC_KR), EUC_KR, Certain, Step::Environment);
    is(classic_script(b"x", None, None, EUC_KR), EUC_KR, Certain, Step::Environment);
    // The decode's BOM comes first.
    is(classic_script(b"\xFF\xFEx\0", Some(b"text/javascript;charset=gbk"), None, UTF_8), UTF_16LE, Certain, Step::Bom);
}

// --- Plain text ---

#[test]
fn plain_text_has_no_prescan() {
    is(plain_text(META_GBK, &HtmlOptions::default()), UTF_8, Tentative, Step::Default);
    is(plain_text(b"\xEF\xBB\xBFx", &HtmlOptions::default()), UTF_8, Certain, Step::Bom);
    let options = HtmlOptions { content_type: Some(b"text/plain;charset=gbk"), ..Default::default() };
    is(plain_text(b"x", &options), GBK, Certain, Step::Transport);
    let options = HtmlOptions { detector: Some(&Utf8Detector), locale: Some("ja"), ..Default::default() };
    is(plain_text("é".as_bytes(), &options), UTF_8, Tentative, Step::Detector);
    is(plain_text(b"\x82\xA0", &options), SHIFT_JIS, Tentative, Step::LocaleDefault);
}

// --- XHR ---

fn mime(input: &str) -> Option<MimeType> {
    MimeType::parse(input)
}

#[test]
fn xhr_get_a_final_encoding() {
    // 3. The response's charset; 4. the override's wins; 5. none; 7. not an encoding.
    assert_eq!(xhr_final_encoding(mime("text/html;charset=gbk").as_ref(), None), Some(GBK));
    assert_eq!(
        xhr_final_encoding(mime("text/html;charset=gbk").as_ref(), mime("text/plain;charset=big5").as_ref()),
        Some(BIG5)
    );
    assert_eq!(xhr_final_encoding(mime("text/html;charset=gbk").as_ref(), mime("text/plain").as_ref()), Some(GBK));
    assert_eq!(xhr_final_encoding(None, None), None);
    assert_eq!(xhr_final_encoding(mime("text/html;charset=bogus").as_ref(), None), None);
    assert_eq!(
        xhr_final_encoding(mime("text/html;charset=gbk").as_ref(), mime("text/html;charset=bogus").as_ref()),
        None
    );
}

#[test]
fn xhr_document_response_steps() {
    let html_mime = mime("text/html");
    // 3. Neither HTML nor XML: no document.
    assert_eq!(xhr_document_response(b"x", mime("text/plain").as_ref(), None, false), None);
    // 4. HTML with an empty responseType: no document.
    assert_eq!(xhr_document_response(b"x", html_mime.as_ref(), None, true), None);
    // 5.1 The final encoding.
    let with_charset = mime("text/html;charset=big5");
    is(xhr_document_response(META_GBK, with_charset.as_ref(), None, false).unwrap(), BIG5, Certain, Step::Transport);
    // 5.2 The prescan of the first 1024 bytes, certain.
    is(
        xhr_document_response(META_GBK, html_mime.as_ref(), None, false).unwrap(),
        GBK,
        Certain,
        Step::Meta { position: 0 },
    );
    let mut late = vec![b' '; 1020];
    late.extend_from_slice(META_GBK);
    // 5.3 UTF-8.
    is(xhr_document_response(&late, html_mime.as_ref(), None, false).unwrap(), UTF_8, Certain, Step::Default);
    // The override MIME type makes it HTML.
    is(
        xhr_document_response(META_GBK, mime("text/plain").as_ref(), html_mime.as_ref(), false).unwrap(),
        GBK,
        Certain,
        Step::Meta { position: 0 },
    );
    // A BOM decides the decode.
    is(
        xhr_document_response(b"\xEF\xBB\xBF<meta charset=gbk>", with_charset.as_ref(), None, false).unwrap(),
        UTF_8,
        Certain,
        Step::Bom,
    );
    // 6. XML, also with an empty responseType and with no Content-Type (text/xml).
    let declaration = b"<?xml version='1.0' encoding='euc-jp'?><a/>";
    is(xhr_document_response(declaration, None, None, true).unwrap(), EUC_JP, Certain, Step::XmlDeclaration);
    is(
        xhr_document_response(declaration, mime("image/svg+xml;charset=gbk").as_ref(), None, false).unwrap(),
        GBK,
        Certain,
        Step::Transport,
    );
}

#[test]
fn xhr_text_response_steps() {
    // 2. The final encoding.
    is(
        xhr_text_response(META_GBK, mime("text/plain;charset=big5").as_ref(), None, true),
        BIG5,
        Certain,
        Step::Transport,
    );
    // 3. XML rules for an XML final MIME type and an empty responseType.
    let declaration = b"<?xml version='1.0' encoding='euc-jp'?><a/>";
    is(
        xhr_text_response(declaration, mime("application/xml").as_ref(), None, true),
        EUC_JP,
        Certain,
        Step::XmlDeclaration,
    );
    is(xhr_text_response(declaration, None, None, true), EUC_JP, Certain, Step::XmlDeclaration);
    is(xhr_text_response(declaration, mime("application/xml").as_ref(), None, false), UTF_8, Certain, Step::Default);
    // 4. UTF-8: no prescan for text.
    is(xhr_text_response(META_GBK, mime("text/html").as_ref(), None, true), UTF_8, Certain, Step::Default);
    // The decode's BOM.
    is(
        xhr_text_response(b"\xFE\xFF\0a", mime("text/plain;charset=big5").as_ref(), None, true),
        UTF_16BE,
        Certain,
        Step::Bom,
    );
}
