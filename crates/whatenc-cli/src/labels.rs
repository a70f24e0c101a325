//! Label lookup with helpful errors: an unknown label that is a well-known name
//! elsewhere (iconv, ICU, Python, Java) says what the standard calls it; another
//! names the nearest real labels, by edit distance over the standard's 228 labels.
//! Nothing is ever accepted that the standard does not have.

use whatenc::Encoding;

use crate::Failure;

/// "Get an encoding" for `label`, or a usage error that suggests what to use.
pub fn lookup(label: &str) -> Result<&'static Encoding, Failure> {
    Encoding::for_label_str(label).ok_or_else(|| Failure::Usage(unknown_label_message(label)))
}

/// Well-known names from iconv, ICU, Python and Java that are not labels of the
/// standard, with the standard's encoding each one means (`None`: not in the
/// standard at all). Compared after [`squash`].
const KNOWN_NAMES: &[(&str, Option<&str>)] = &[
    ("cp936", Some("GBK")),
    ("ms936", Some("GBK")),
    ("euccn", Some("GBK")),
    ("cp949", Some("EUC-KR")),
    ("ms949", Some("EUC-KR")),
    ("uhc", Some("EUC-KR")),
    ("windows949", Some("EUC-KR")),
    ("ujis", Some("EUC-JP")),
    ("eucjpms", Some("EUC-JP")),
    ("cp932", Some("Shift_JIS")),
    ("ms932", Some("Shift_JIS")),
    ("cp950", Some("Big5")),
    ("ms950", Some("Big5")),
    ("latin9", Some("ISO-8859-15")),
    ("cp65001", Some("UTF-8")),
    ("utf8mb4", Some("UTF-8")),
    ("macroman", Some("macintosh")),
    ("utf32", None),
    ("utf32le", None),
    ("utf32be", None),
    ("ucs4", None),
    ("utf7", None),
    ("cp437", None),
    ("cp850", None),
    ("ebcdic", None),
    ("cp037", None),
    ("ibm037", None),
    ("cp1047", None),
    ("ibm1047", None),
    ("cp500", None),
    ("johab", None),
    ("euctw", None),
    ("iso2022jp2", None),
];

/// What [`KNOWN_NAMES`] says of `label`: `Some(Some(name))` for an encoding of the
/// standard, `Some(None)` for one outside it.
fn known_name(label: &str) -> Option<Option<&'static str>> {
    let squashed = squash(&label.trim_matches(|c: char| c.is_ascii_whitespace()).to_ascii_lowercase());
    let ebcdic = squashed.starts_with("ebcdic");
    KNOWN_NAMES.iter().find(|(name, _)| *name == squashed || (ebcdic && *name == "ebcdic")).map(|(_, to)| *to)
}

/// The message for an unknown label: what a well-known name means in the standard,
/// or the nearest real labels, such as
/// `unknown encoding label 'shift-jiss'; did you mean 'shift-jis' (Shift_JIS)?`.
pub fn unknown_label_message(label: &str) -> String {
    let base = whatenc::Encoding::for_label_or_error(label).map_or_else(|e| e.to_string(), |_| String::new());
    match known_name(label) {
        Some(Some(name)) => {
            let lower = name.to_ascii_lowercase();
            return format!("{base}; in the Encoding Standard that is {name}: use '{lower}'");
        }
        Some(None) => {
            return format!("{base}: '{}' is not part of the Encoding Standard", label.trim());
        }
        None => {}
    }
    let suggestions = suggest(label);
    if suggestions.is_empty() {
        return format!("{base}; `whatenc list` shows every label");
    }
    let names: Vec<String> =
        suggestions.iter().map(|(label, encoding)| format!("'{label}' ({})", encoding.name())).collect();
    let joined = match names.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
        [] => String::new(),
    };
    format!("{base}; did you mean {joined}?")
}

/// The labels nearest to `label` (at most three, all at the smallest distance), if
/// any is near enough to be a plausible typo.
pub fn suggest(label: &str) -> Vec<(&'static str, &'static Encoding)> {
    let wanted = label.trim_matches(|c: char| c.is_ascii_whitespace()).to_ascii_lowercase();
    if wanted.is_empty() {
        return Vec::new();
    }
    let squashed_wanted = squash(&wanted);
    let mut scored: Vec<(usize, &'static str, &'static Encoding)> = Vec::new();
    for &encoding in Encoding::all() {
        for &candidate in encoding.labels() {
            // Punctuation differences ("shift jis", "utf8") cost nothing.
            let distance =
                if squash(candidate) == squashed_wanted { 0 } else { strsim::levenshtein(&wanted, candidate) };
            scored.push((distance, candidate, encoding));
        }
    }
    let Some(best) = scored.iter().map(|s| s.0).min() else { return Vec::new() };
    // About one edit in four characters, and at least one: "cp936" is not "cp866",
    // whose digits mean another encoding.
    let limit = (wanted.chars().count() / 4).max(1);
    if best > limit {
        return Vec::new();
    }
    let mut nearest: Vec<(&'static str, &'static Encoding)> =
        scored.into_iter().filter(|s| s.0 == best).map(|s| (s.1, s.2)).collect();
    // Prefer a label that names its encoding, then alphabetical order.
    nearest.sort_by_key(|(label, encoding)| (!label.eq_ignore_ascii_case(encoding.name()), *label));
    nearest.truncate(3);
    nearest
}

/// The label without punctuation: "shift_jis" and "shift-jis" squash alike.
fn squash(label: &str) -> String {
    label.chars().filter(char::is_ascii_alphanumeric).collect()
}

/// Labels of windows-1252 that name ASCII.
const ASCII_NAMES: &[&str] = &["ansi_x3.4-1968", "ascii", "us-ascii"];

/// Labels of windows-1252 that name ISO-8859-1.
const LATIN1_NAMES: &[&str] = &[
    "cp819",
    "csisolatin1",
    "ibm819",
    "iso-8859-1",
    "iso-ir-100",
    "iso8859-1",
    "iso88591",
    "iso_8859-1",
    "iso_8859-1:1987",
    "l1",
    "latin1",
];

/// A warning for a `-t` label that the standard makes windows-1252 although it
/// names ASCII or ISO-8859-1, or `None`.
pub fn surprising_label(label: &str) -> Option<String> {
    let wanted = label.trim_matches(|c: char| c.is_ascii_whitespace()).to_ascii_lowercase();
    if ASCII_NAMES.contains(&wanted.as_str()) {
        Some(format!(
            "warning: '{label}' is windows-1252 in the Encoding Standard: characters outside ASCII that \
             windows-1252 has are written as its bytes 80-FF, not refused"
        ))
    } else if LATIN1_NAMES.contains(&wanted.as_str()) {
        Some(format!(
            "warning: '{label}' is windows-1252 in the Encoding Standard: bytes 80-9F are windows-1252's \
             characters (such as the euro sign at 80), not the C1 controls of ISO-8859-1"
        ))
    } else {
        None
    }
}

/// An iconv-style suffix on a `-t` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconvSuffix {
    /// No suffix.
    None,
    /// `//IGNORE`: drop what cannot be converted, like `-c`.
    Ignore,
    /// `//TRANSLIT`: transliterate what cannot be converted; accepted only where
    /// nothing needs it (UTF-8 and UTF-16 output).
    Translit,
}

/// Splits iconv's `//IGNORE` or `//TRANSLIT` suffix off a label (`//IGNORE` wins).
pub fn split_iconv_suffix(label: &str) -> Result<(&str, IconvSuffix), Failure> {
    let Some(at) = label.find("//") else { return Ok((label, IconvSuffix::None)) };
    let (name, suffix) = label.split_at(at);
    let mut result = IconvSuffix::None;
    for part in suffix.split("//").filter(|p| !p.is_empty()) {
        if part.eq_ignore_ascii_case("ignore") {
            result = IconvSuffix::Ignore;
        } else if part.eq_ignore_ascii_case("translit") {
            if result == IconvSuffix::None {
                result = IconvSuffix::Translit;
            }
        } else {
            return Err(Failure::Usage(format!("'{label}': unknown iconv suffix '//{part}'")));
        }
    }
    Ok((name, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            unknown_label_message("shift-jiss"),
            "unknown encoding label 'shift-jiss'; did you mean 'shift-jis' (Shift_JIS)?"
        );
        assert_eq!(suggest("utf_8").first().map(|s| s.0), Some("utf-8"));
        assert_eq!(suggest("ShiftJIS").first().map(|s| s.1), Some(whatenc::SHIFT_JIS));
        assert!(suggest("completely-unrelated-name").is_empty());
    }

    #[test]
    fn iconv_suffixes() {
        assert_eq!(split_iconv_suffix("ascii//IGNORE").unwrap(), ("ascii", IconvSuffix::Ignore));
        assert_eq!(split_iconv_suffix("gbk").unwrap(), ("gbk", IconvSuffix::None));
        assert_eq!(split_iconv_suffix("utf-8//TRANSLIT").unwrap(), ("utf-8", IconvSuffix::Translit));
        assert_eq!(split_iconv_suffix("ascii//TRANSLIT//IGNORE").unwrap(), ("ascii", IconvSuffix::Ignore));
        assert!(split_iconv_suffix("ascii//FOO").is_err());
    }
}
