//! The prescan and its helpers (HTML §13.2.3.2 and "extracting a character
//! encoding from a meta element"), step by step, with the edge cases of issue 16.

use whatenc::sniff::{
    Attribute, EndCondition, GetAttribute, PrescanSource, PrescanStatus,
    extract_a_character_encoding_from_a_meta_element as extract, get_an_attribute, get_an_xml_encoding, prescan,
    prescan_available,
};
use whatenc::{
    BIG5, Encoding, GBK, KOI8_R, REPLACEMENT, SHIFT_JIS, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1251, WINDOWS_1252,
    X_USER_DEFINED,
};

fn found(bytes: &[u8]) -> Option<&'static Encoding> {
    prescan(bytes, EndCondition::default()).map(|found| found.encoding)
}

fn source(bytes: &[u8]) -> Option<PrescanSource> {
    prescan(bytes, EndCondition::default()).map(|found| found.source)
}

/// `n` spaces, then `tail`.
fn padded(n: usize, tail: &[u8]) -> Vec<u8> {
    let mut bytes = vec![b' '; n];
    bytes.extend_from_slice(tail);
    bytes
}

// --- prescan step 2: prescan for UTF-16 XML declarations ---

#[test]
fn step_2_utf_16_xml_declarations() {
    assert_eq!(found(b"<\0?\0x\0m\0l\0"), Some(UTF_16LE));
    assert_eq!(found(b"\0<\0?\0x\0m\0l"), Some(UTF_16BE));
    assert_eq!(source(b"<\0?\0x\0"), Some(PrescanSource::Utf16XmlDeclaration));
    // Case-sensitive; the encoding name is not checked; the prefix needs all six bytes.
    assert_eq!(found(b"<\0?\0X\0"), None);
    assert_eq!(found(b"<\0?\0x\0 encoding='gbk'"), Some(UTF_16LE));
    assert_eq!(found(b"<\0?\0x"), None);
    // Only at the first byte.
    assert_eq!(found(b" <\0?\0x\0"), None);
}

// --- prescan step 3: loop ---

#[test]
fn step_3_comments_are_skipped_to_the_first_dash_dash_gt() {
    assert_eq!(found(b"<!-- <meta charset=gbk> --><meta charset=big5>"), Some(BIG5));
    // The two dashes may be those of `<!--`.
    assert_eq!(found(b"<!--><meta charset=gbk>"), Some(GBK));
    assert_eq!(found(b"<!---><meta charset=gbk>"), Some(GBK));
    // `-- >` and `--!>` do not end a comment in the prescan (real tokenizers end one at `--!>`).
    assert_eq!(found(b"<!-- -- ><meta charset=gbk>"), None);
    assert_eq!(found(b"<!-- --!><meta charset=gbk> -->"), None);
    assert_eq!(found(b"<!-- --!><meta charset=gbk> --><meta charset=big5>"), Some(BIG5));
    // Unterminated.
    assert_eq!(found(b"<!-- <meta charset=gbk>"), None);
}

#[test]
fn step_3_meta_needs_a_space_or_slash_after_meta() {
    for page in [
        &b"<meta charset=gbk>"[..],
        b"<META charset=gbk>",
        b"<MeTa\tcharset=gbk>",
        b"<meta\ncharset=gbk>",
        b"<meta\x0Ccharset=gbk>",
        b"<meta\rcharset=gbk>",
        b"<meta/charset=gbk>",
    ] {
        assert_eq!(found(page), Some(GBK), "{:?}", String::from_utf8_lossy(page));
    }
    assert_eq!(found(b"<metacharset=gbk>"), None);
    assert_eq!(found(b"<meta>charset=gbk>"), None);
    assert_eq!(found(b"<metal charset=gbk>"), None);
}

#[test]
fn meta_charset_quoted_unquoted_whitespace_and_case() {
    assert_eq!(found(b"<meta charset=\"gbk\">"), Some(GBK));
    assert_eq!(found(b"<meta charset='gbk'>"), Some(GBK));
    assert_eq!(found(b"<meta charset=gbk>"), Some(GBK));
    assert_eq!(found(b"<meta charset = gbk >"), Some(GBK));
    assert_eq!(found(b"<meta  CHARSET\t=\n'GBK'/>"), Some(GBK));
    assert_eq!(found(b"<meta charset=\" gbk \">"), Some(GBK));
    assert_eq!(found(b"<meta charset=\"Shift_JIS\">"), Some(SHIFT_JIS));
    // An unquoted value runs to a space or `>`: the slash is part of it.
    assert_eq!(found(b"<meta charset=gbk/>"), None);
    assert_eq!(found(b"<meta charset=gbk />"), Some(GBK));
    // `"` inside single quotes is part of the value.
    assert_eq!(found(b"<meta charset='\"gbk\"'>"), None);
}

#[test]
fn meta_unterminated() {
    assert_eq!(found(b"<meta charset=gbk"), None);
    assert_eq!(found(b"<meta charset=\"gbk\""), None);
    assert_eq!(found(b"<meta charset=\"gbk>"), None);
    assert_eq!(found(b"<meta charset="), None);
    assert_eq!(found(b"<meta "), None);
    assert_eq!(found(b"<meta"), None);
    assert_eq!(found(b"<"), None);
}

#[test]
fn meta_substeps_6_to_10_attributes_and_pragma() {
    // 9. http-equiv + content: need pragma true, got pragma true.
    assert_eq!(found(b"<meta http-equiv=content-type content='text/html; charset=gbk'>"), Some(GBK));
    assert_eq!(found(b"<meta content='text/html; charset=gbk' http-equiv='Content-Type'>"), Some(GBK));
    // 12. need pragma true, got pragma false.
    assert_eq!(found(b"<meta content='text/html; charset=gbk'>"), None);
    assert_eq!(found(b"<meta http-equiv=refresh content='0; charset=gbk'>"), None);
    assert_eq!(found(b"<meta http-equiv=' content-type' content='charset=gbk'>"), None);
    // charset sets need pragma to false, whatever came before or after.
    assert_eq!(found(b"<meta content='charset=big5' charset=gbk>"), Some(GBK));
    assert_eq!(found(b"<meta charset=gbk content='charset=big5'>"), Some(GBK));
    assert_eq!(found(b"<meta content='charset=big5' http-equiv=content-type charset=gbk>"), Some(GBK));
    // content only sets charset while it is null.
    assert_eq!(found(b"<meta http-equiv=content-type charset=gbk content='charset=big5'>"), Some(GBK));
    // An unrecognised charset is failure, not null: content does not replace it (13).
    assert_eq!(found(b"<meta charset=bogus content='charset=gbk' http-equiv=content-type>"), None);
    // A content without an encoding leaves charset null.
    assert_eq!(found(b"<meta http-equiv=content-type content='charset=bogus' charset=gbk>"), Some(GBK));
    // 11. Neither: need pragma null.
    assert_eq!(found(b"<meta name=charset content=gbk><meta charset=big5>"), Some(BIG5));
}

#[test]
fn meta_substep_7_duplicate_attributes_are_ignored() {
    assert_eq!(found(b"<meta charset=gbk charset=big5>"), Some(GBK));
    assert_eq!(found(b"<meta charset=bogus charset=gbk>"), None);
    assert_eq!(found(b"<meta CHARSET=gbk charset=big5>"), Some(GBK));
    assert_eq!(found(b"<meta http-equiv=x http-equiv=content-type content='charset=gbk'>"), None);
    assert_eq!(found(b"<meta content='charset=gbk' content='charset=big5' http-equiv=content-type>"), Some(GBK));
    assert_eq!(found(b"<meta content=x content='charset=big5' http-equiv=content-type>"), None);
}

#[test]
fn meta_substeps_14_15_utf_16_and_x_user_defined() {
    assert_eq!(found(b"<meta charset=utf-16>"), Some(UTF_8));
    assert_eq!(found(b"<meta charset=utf-16be>"), Some(UTF_8));
    assert_eq!(found(b"<meta charset=UTF-16LE>"), Some(UTF_8));
    assert_eq!(found(b"<meta charset=x-user-defined>"), Some(WINDOWS_1252));
    assert_eq!(found(b"<meta http-equiv=content-type content='charset=x-user-defined'>"), Some(WINDOWS_1252));
}

#[test]
fn meta_unknown_and_replacement_labels() {
    assert_eq!(found(b"<meta charset=utf-7>"), None);
    assert_eq!(found(b"<meta charset=utf-7><meta charset=gbk>"), Some(GBK));
    assert_eq!(found(b"<meta charset=''>"), None);
    // The replacement labels name the replacement encoding, which the prescan returns.
    assert_eq!(found(b"<meta charset=iso-2022-kr>"), Some(REPLACEMENT));
    assert_eq!(found(b"<meta charset=hz-gb-2312>"), Some(REPLACEMENT));
    // A label of any length.
    let mut long = b"<meta charset=".to_vec();
    long.extend(std::iter::repeat_n(b'a', 100_000));
    long.push(b'>');
    assert_eq!(found(&long), None);
}

#[test]
fn metas_inside_other_markup() {
    // The text has no notion of <script> or <style>: the meta counts (Blink and WebKit differ).
    assert_eq!(found(b"<script>document.write('<meta charset=gbk>')</script>"), Some(GBK));
    assert_eq!(found(b"<style>/* <meta charset=gbk> */</style>"), Some(GBK));
    // `<!`, `</` and `<?` skip to the first `>`.
    assert_eq!(found(b"<!DOCTYPE html <meta charset=gbk>"), None);
    assert_eq!(found(b"<!DOCTYPE html><meta charset=gbk>"), Some(GBK));
    assert_eq!(found(b"</ <meta charset=gbk>"), None);
    assert_eq!(found(b"<? <meta charset=gbk> ?><meta charset=big5>"), Some(BIG5));
    // `</` and a letter is a tag whose attributes are skipped.
    assert_eq!(found(b"</p title='<meta charset=gbk>'>"), None);
    assert_eq!(found(b"</meta charset=gbk>"), None);
    // A tag's attributes are skipped, quotes and all.
    assert_eq!(found(b"<a title='<meta charset=gbk>'><meta charset=big5>"), Some(BIG5));
    assert_eq!(found(b"<a title=\"<meta charset=gbk>\">"), None);
    assert_eq!(found(b"<a title=<meta charset=gbk>"), None);
    // Anything else after `<` is a byte like any other.
    assert_eq!(found(b"<<meta charset=gbk>"), Some(GBK));
    assert_eq!(found(b"< meta charset=gbk><meta charset=big5>"), Some(BIG5));
    assert_eq!(found(b"<1<meta charset=gbk>"), Some(GBK));
}

#[test]
fn stray_quotes_in_and_before_a_meta() {
    // A quote inside a name or an unquoted value is a byte like any other.
    assert_eq!(found(b"<meta \" charset=gbk>"), Some(GBK));
    assert_eq!(found(b"<meta x\" charset=gbk>"), Some(GBK));
    assert_eq!(found(b"<meta x=y\" charset=gbk>"), Some(GBK));
    assert_eq!(found(b"<meta x=\"\" charset=gbk>"), Some(GBK));
    // A quoted value swallows what follows up to its quote.
    assert_eq!(found(b"<meta x=\" charset=gbk>"), None);
    assert_eq!(found(b"<meta x=' charset=gbk>'>"), None);
    assert_eq!(found(b"<meta x=\"' charset=gbk>\" charset=big5>"), Some(BIG5));
    // So does an open quote in an earlier tag, until its match.
    assert_eq!(found(b"<p title=\"x>\n<meta charset=gbk>"), None);
    assert_eq!(found(b"<p title=\"x>\">\n<meta charset=gbk>"), Some(GBK));
    // The first meta that declares decides; later ones do not count.
    assert_eq!(found(b"<meta charset=gbk><meta charset=big5>"), Some(GBK));
    assert_eq!(found(b"<meta charset=bogus><meta charset=big5>"), Some(BIG5));
}

#[test]
fn meta_position_is_reported() {
    assert_eq!(source(b"<html><head><meta charset=gbk>"), Some(PrescanSource::Meta { position: 12 }));
}

#[test]
fn the_1024_byte_boundary() {
    let meta = b"<meta charset=koi8-r>";
    // Observed (default): a `<` in the first 1024 bytes is read to its end.
    assert_eq!(found(&padded(1000, meta)), Some(KOI8_R));
    assert_eq!(found(&padded(1023, meta)), Some(KOI8_R));
    assert_eq!(found(&padded(1024, meta)), None);
    assert_eq!(found(&padded(1025, meta)), None);
    // Strict: exactly the first 1024 bytes.
    let strict = |bytes: &[u8]| prescan(bytes, EndCondition::Strict(1024)).map(|found| found.encoding);
    assert_eq!(strict(&padded(1024 - meta.len(), meta)), Some(KOI8_R));
    assert_eq!(strict(&padded(1024 - meta.len() + 1, meta)), None);
    assert_eq!(strict(&padded(1023, meta)), None);
    assert_eq!(strict(&padded(1024, meta)), None);
    assert_eq!(strict(&padded(1025, meta)), None);
    // N is configurable.
    assert_eq!(prescan(&padded(1500, meta), EndCondition::Strict(4096)).unwrap().encoding, KOI8_R);
    assert_eq!(prescan(meta, EndCondition::Strict(10)), None);
    let observed = EndCondition::Observed { limit: 10, overrun: 100 };
    assert_eq!(prescan(&padded(9, meta), observed).unwrap().encoding, KOI8_R);
    assert_eq!(prescan(&padded(10, meta), observed), None);
}

#[test]
fn observed_overrun_is_bounded() {
    // A meta that starts at 1000 and ends after 2048 bytes: the end condition stops it.
    let mut page = padded(1000, b"<meta x='");
    page.extend(std::iter::repeat_n(b'a', 1100));
    page.extend_from_slice(b"' charset=gbk>");
    assert_eq!(found(&page), None);
    let observed = EndCondition::Observed { limit: 1024, overrun: 4096 };
    assert_eq!(prescan(&page, observed).unwrap().encoding, GBK);
}

#[test]
fn strict_mode_equals_the_prescan_of_the_first_n_bytes() {
    let page = padded(30, b"<meta charset=gbk><?xml");
    for n in 0..page.len() + 2 {
        let end = EndCondition::Strict(n);
        assert_eq!(prescan(&page, end), prescan(&page[..n.min(page.len())], end), "n = {n}");
    }
}

#[test]
fn xml_declarations_in_the_prescan() {
    assert_eq!(found(b"<?xml version=\"1.0\" encoding=\"windows-1251\"?><html>"), Some(WINDOWS_1251));
    assert_eq!(source(b"<?xml version=\"1.0\" encoding=\"windows-1251\"?>"), Some(PrescanSource::XmlDeclaration));
    // A meta beats the declaration, which only counts when the prescan fails.
    assert_eq!(found(b"<?xml version='1.0' encoding='gbk'?><meta charset=big5>"), Some(BIG5));
    // `>` before `encoding`: outside the declaration (xmlDeclarationEnd, whatwg/html #6939).
    assert_eq!(found(b"<?xml version='1.0'?><x encoding='gbk'>"), None);
    assert_eq!(found(b"<?xml version='1.0'><?x encoding='gbk'?>"), None);
    // Read to its `>` past byte 1024 by default, not in strict mode.
    let mut long = b"<?xml version='1.0'".to_vec();
    long.extend(std::iter::repeat_n(b' ', 1100));
    long.extend_from_slice(b"encoding='gbk'?>");
    assert_eq!(found(&long), Some(GBK));
    assert_eq!(prescan(&long, EndCondition::Strict(1024)), None);
    // x-user-defined is returned as is by "get an XML encoding".
    assert_eq!(found(b"<?xml encoding='x-user-defined'?>"), Some(X_USER_DEFINED));
}

#[test]
fn prescan_available_waits_only_while_more_could_decide() {
    let end = EndCondition::default();
    assert_eq!(prescan_available(b"", end, false), PrescanStatus::NeedMore);
    assert_eq!(prescan_available(b"", end, true), PrescanStatus::Failure);
    assert_eq!(prescan_available(b"<\0?", end, false), PrescanStatus::NeedMore);
    assert_eq!(prescan_available(b"<?xml version='1.0'", end, false), PrescanStatus::NeedMore);
    assert_eq!(prescan_available(&padded(1024, b""), end, false), PrescanStatus::Failure);
    // The end condition with an unfinished XML declaration: wait for its `>`.
    let mut head = b"<?xml ".to_vec();
    head.extend(std::iter::repeat_n(b' ', 1100));
    assert_eq!(prescan_available(&head, end, false), PrescanStatus::NeedMore);
    assert_eq!(prescan_available(&head, end, true), PrescanStatus::Failure);
    head.extend(std::iter::repeat_n(b' ', 1000));
    assert_eq!(prescan_available(&head, end, false), PrescanStatus::Failure);
}

#[test]
fn bad_input_never_panics() {
    let mut inputs: Vec<Vec<u8>> = vec![
        vec![0; 4096],
        vec![b'<'; 4096],
        b"<meta charset=\"".iter().copied().chain(std::iter::repeat_n(b'a', 1 << 20)).collect(),
        b"<!--".iter().copied().chain(std::iter::repeat_n(b'-', 1 << 20)).collect(),
        b"<?xml encoding=\"".iter().copied().chain(std::iter::repeat_n(b'\0', 1 << 20)).collect(),
        b"\xD8\x00\xDC\x00<\0m\0e\0t\0a\0".to_vec(),
    ];
    inputs.push(b"<a ".iter().copied().cycle().take(1 << 20).collect());
    inputs.push(b"<meta a=b ".iter().copied().cycle().take(1 << 20).collect());
    for input in &inputs {
        for end in [EndCondition::default(), EndCondition::Strict(usize::MAX), EndCondition::Strict(0)] {
            let _ = prescan(input, end);
            let _ = prescan_available(input, end, false);
        }
    }
    let meta = prescan(&inputs[1], EndCondition::Observed { limit: usize::MAX, overrun: usize::MAX });
    assert_eq!(meta, None);
}

// --- get an attribute ---

fn attribute(bytes: &[u8]) -> (Option<(String, String)>, usize) {
    let mut position = 0;
    let result = match get_an_attribute(bytes, &mut position) {
        GetAttribute::Attribute(attribute) => Some((attribute.name(), attribute.value())),
        GetAttribute::NoAttribute => None,
        GetAttribute::OutOfBytes => panic!("out of bytes"),
    };
    (result, position)
}

fn pair(name: &str, value: &str) -> Option<(String, String)> {
    Some((name.into(), value.into()))
}

#[test]
fn get_an_attribute_steps() {
    // 1. Spaces and slashes are skipped.
    assert_eq!(attribute(b" /\t/x=y>").0, pair("x", "y"));
    // 2. `>`: no attribute.
    assert_eq!(attribute(b"  />"), (None, 3));
    // 4. `=` ends a non-empty name; at the start it is part of the name.
    assert_eq!(attribute(b"=a=b>").0, pair("=a", "b"));
    // 4. Upper case is lowered; other bytes are kept as code points.
    assert_eq!(attribute(b"A\xC9=1>").0, pair("a\u{C9}", "1"));
    // 4. `/` or `>` ends the name with an empty value, the position left on it.
    assert_eq!(attribute(b"async/>"), (pair("async", ""), 5));
    assert_eq!(attribute(b"async>"), (pair("async", ""), 5));
    // 6–7. Spaces, then no `=`: empty value, position at the next name.
    assert_eq!(attribute(b"a  b=c>"), (pair("a", ""), 3));
    // 6–9. Spaces around `=`.
    assert_eq!(attribute(b"a = b>").0, pair("a", "b"));
    // 10. Quotes: the value runs to the same quote, lowered, position after it.
    assert_eq!(attribute(b"a='B \"c'>"), (pair("a", "b \"c"), 8));
    assert_eq!(attribute(b"a=\"B 'c\">").0, pair("a", "b 'c"));
    // 10. `>` right after `=`: empty value.
    assert_eq!(attribute(b"a=>"), (pair("a", ""), 2));
    // 10–12. Unquoted: to a space or `>`, lowered; `/`, `=` and quotes are kept.
    assert_eq!(attribute(b"a=B/='c d>"), (pair("a", "b/='c"), 7));
    assert_eq!(attribute(b"a=b>"), (pair("a", "b"), 3));
}

#[test]
fn get_an_attribute_runs_out_of_bytes() {
    for bytes in [&b""[..], b"  ", b"name", b"name ", b"name=", b"name='x", b"name=x"] {
        assert_eq!(get_an_attribute(bytes, &mut 0), GetAttribute::OutOfBytes, "{bytes:?}");
    }
}

#[test]
fn attributes_borrow_the_input() {
    let bytes = b"CharSet=UTF-8>";
    let GetAttribute::Attribute(attribute) = get_an_attribute(bytes, &mut 0) else { panic!() };
    let Attribute { .. } = attribute;
    assert_eq!(attribute.name_bytes(), b"CharSet");
    assert_eq!(attribute.value_bytes(), b"UTF-8");
    assert!(attribute.name_is(b"charset"));
}

// --- extracting a character encoding from a meta element ---

#[test]
fn extract_steps() {
    // 2. No "charset": nothing.
    assert_eq!(extract(b"text/html"), None);
    // 2. Case-insensitive.
    assert_eq!(extract(b"CharSet=gbk"), Some(GBK));
    // 3–4. Whitespace, then not `=`: look for the next "charset".
    assert_eq!(extract(b"charset ; charset=gbk"), Some(GBK));
    assert_eq!(extract(b"charsetcharset=gbk"), Some(GBK));
    assert_eq!(extract(b"charset"), None);
    // 5. Whitespace after `=`.
    assert_eq!(extract(b"charset=\t\n gbk"), Some(GBK));
    // 6. Quotes with a later match.
    assert_eq!(extract(b"charset=\"gbk\""), Some(GBK));
    assert_eq!(extract(b"charset='gbk' x"), Some(GBK));
    assert_eq!(extract(b"charset=' gbk '"), Some(GBK));
    // 6. Unmatched quotes, or nothing after `=`.
    assert_eq!(extract(b"charset=\"gbk"), None);
    assert_eq!(extract(b"charset='gbk\""), None);
    assert_eq!(extract(b"charset="), None);
    assert_eq!(extract(b"charset=  "), None);
    // 6. Otherwise: up to whitespace or `;`.
    assert_eq!(extract(b"charset=gbk;x"), Some(GBK));
    assert_eq!(extract(b"charset=gbk x"), Some(GBK));
    assert_eq!(extract(b"charset=gbk,x"), None);
    // The first "charset=" decides, even when it names no encoding.
    assert_eq!(extract(b"charset=bogus; charset=gbk"), None);
    // A &str's bytes work the same.
    assert_eq!(extract("ü charset=gbk".as_bytes()), Some(GBK));
}

// --- get an XML encoding ---

#[test]
fn get_an_xml_encoding_steps() {
    // 2. Must start with `<?xml`.
    assert_eq!(get_an_xml_encoding(b" <?xml encoding='gbk'>"), None);
    assert_eq!(get_an_xml_encoding(b"<?XML encoding='gbk'>"), None);
    // 3. A `>` is needed.
    assert_eq!(get_an_xml_encoding(b"<?xml encoding='gbk'"), None);
    // 4. `encoding`, case-sensitive, before the `>`.
    assert_eq!(get_an_xml_encoding(b"<?xml ENCODING='gbk'>"), None);
    assert_eq!(get_an_xml_encoding(b"<?xml version='1.0'?> encoding='gbk'"), None);
    assert_eq!(get_an_xml_encoding(b"<?xmlencoding='gbk'>"), Some(GBK));
    // 6–9. Bytes up to 0x20 around `=`.
    assert_eq!(get_an_xml_encoding(b"<?xml encoding\x01\x00= \t'gbk'>"), Some(GBK));
    assert_eq!(get_an_xml_encoding(b"<?xml encoding:'gbk'>"), None);
    // 10–13. Quotes.
    assert_eq!(get_an_xml_encoding(b"<?xml encoding=\"gbk\">"), Some(GBK));
    assert_eq!(get_an_xml_encoding(b"<?xml encoding=gbk>"), None);
    assert_eq!(get_an_xml_encoding(b"<?xml encoding='gbk>"), None);
    // 15. No bytes up to 0x20 in the label.
    assert_eq!(get_an_xml_encoding(b"<?xml encoding=' gbk'>"), None);
    // 16. Get an encoding.
    assert_eq!(get_an_xml_encoding(b"<?xml encoding='bogus'>"), None);
    // 17. UTF-16 becomes UTF-8.
    assert_eq!(get_an_xml_encoding(b"<?xml encoding='UTF-16BE'>"), Some(UTF_8));
}
