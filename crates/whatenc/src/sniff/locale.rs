//! The suggested default encodings of HTML §13.2.3.2 step 9, by locale.

use crate::encoding::*;

/// The HTML Standard's suggested default encoding for a locale (§13.2.3.2, the
/// table in step 9), given a BCP 47 language tag in any case (`_` is accepted as a
/// separator too, for POSIX locale names).
///
/// The tag is matched as RFC 4647 "lookup" does, by removing subtags from the
/// end until a row matches: `ja-JP` is `ja`; `zh-Hant-CN` is `zh-Hant` (Big5);
/// `zh-Latn-TW` and a bare `zh` fall to "all other locales", as the table has no
/// row for them. "All other locales" is windows-1252.
///
/// ```
/// use whatenc::sniff::locale_default_encoding;
/// assert_eq!(locale_default_encoding("ja-JP"), whatenc::SHIFT_JIS);
/// assert_eq!(locale_default_encoding("zh-TW"), whatenc::BIG5);
/// assert_eq!(locale_default_encoding("ZH-hans-SG"), whatenc::GBK);
/// assert_eq!(locale_default_encoding("en-US"), whatenc::WINDOWS_1252);
/// ```
pub fn locale_default_encoding(tag: &str) -> &'static Encoding {
    let mut subtags = tag.split(['-', '_']);
    let language = subtags.next().unwrap_or("");
    let is = |subtag: &str, name: &str| subtag.eq_ignore_ascii_case(name);
    if is(language, "zh") {
        let second = subtags.next().unwrap_or("");
        return if ["hans", "cn", "sg"].iter().any(|name| is(second, name)) {
            GBK
        } else if ["hant", "hk", "mo", "tw"].iter().any(|name| is(second, name)) {
            BIG5
        } else {
            WINDOWS_1252
        };
    }
    if language.len() > 3 {
        return WINDOWS_1252;
    }
    let mut lower = [0u8; 3];
    lower[..language.len()].copy_from_slice(language.as_bytes());
    lower.make_ascii_lowercase();
    match &lower[..language.len()] {
        b"ar" | b"fa" => WINDOWS_1256,
        b"az" | b"ku" | b"tr" => WINDOWS_1254,
        b"ba" | b"be" | b"bg" | b"kk" | b"ky" | b"mk" | b"ru" | b"sah" | b"sr" | b"tg" | b"tt" | b"uk" => WINDOWS_1251,
        b"cs" | b"hr" | b"sk" => WINDOWS_1250,
        b"el" => ISO_8859_7,
        b"et" | b"lt" | b"lv" => WINDOWS_1257,
        b"he" => WINDOWS_1255,
        b"hu" | b"pl" | b"sl" => ISO_8859_2,
        b"ja" => SHIFT_JIS,
        b"ko" => EUC_KR,
        b"th" => WINDOWS_874,
        b"vi" => WINDOWS_1258,
        _ => WINDOWS_1252,
    }
}
