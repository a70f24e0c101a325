//! Label lookup with helpful errors: an unknown label names itself and the nearest
//! real labels, by edit distance over the standard's 228 labels.

use whatenc::Encoding;

use crate::Failure;

/// "Get an encoding" for `label`, or a usage error that suggests the nearest labels.
pub fn lookup(label: &str) -> Result<&'static Encoding, Failure> {
    Encoding::for_label_str(label).ok_or_else(|| Failure::Usage(unknown_label_message(label)))
}

/// The message for an unknown label, such as
/// `unknown encoding label 'shift-jiss'; did you mean 'shift-jis' (Shift_JIS)?`.
pub fn unknown_label_message(label: &str) -> String {
    let base = whatenc::Encoding::for_label_or_error(label).map_or_else(|e| e.to_string(), |_| String::new());
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
            // Punctuation differences ("shift jis", "utf8") cost little.
            let distance = if squash(candidate) == squashed_wanted { 0 } else { edit_distance(&wanted, candidate) };
            scored.push((distance, candidate, encoding));
        }
    }
    let Some(best) = scored.iter().map(|s| s.0).min() else { return Vec::new() };
    // Allow about one edit in three characters, and at least two.
    let limit = (wanted.chars().count() / 3).max(2);
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

/// Levenshtein distance over chars, with one row of memory.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// An iconv-style suffix on a `-t` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IconvSuffix {
    /// No suffix.
    None,
    /// `//IGNORE`: drop what cannot be converted, like `-c`.
    Ignore,
}

/// Splits iconv's `//IGNORE` suffix off a label; `//TRANSLIT` is a usage error.
pub fn split_iconv_suffix(label: &str) -> Result<(&str, IconvSuffix), Failure> {
    let Some(at) = label.find("//") else { return Ok((label, IconvSuffix::None)) };
    let (name, suffix) = label.split_at(at);
    let mut result = IconvSuffix::None;
    for part in suffix.split("//").filter(|p| !p.is_empty()) {
        if part.eq_ignore_ascii_case("ignore") {
            result = IconvSuffix::Ignore;
        } else if part.eq_ignore_ascii_case("translit") {
            return Err(Failure::Usage(format!(
                "'{label}': transliteration (//TRANSLIT) is not part of the Encoding Standard; unmappable \
                 text becomes &#N; by default, or use -c to drop it"
            )));
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
    fn distances() {
        assert_eq!(edit_distance("shift-jiss", "shift-jis"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

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
        assert!(split_iconv_suffix("ascii//TRANSLIT").is_err());
    }
}
