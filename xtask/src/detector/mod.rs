//! The detector's trainer: `cargo xtask train-detector` fetches the pinned sources
//! with `pip download` (checked against their SHA-256), trains the detector's tables
//! and writes `crates/whatenc/src/tables/detect.rs`, its fingerprint
//! `detect.fingerprint`, and the held-out evaluation text `bench/heldout/`.
//!
//! `cargo xtask gen --check` (CI, no network) checks the checked-in table against its
//! fingerprint; `cargo xtask train-detector --check` retrains and fails on any change.
//!
//! The model, in short (the detector's module docs say why):
//! - single-byte encodings are grouped by the languages they serve; each group has a
//!   letter alphabet (case-folded) plus four classes (ASCII non-letter, non-ASCII
//!   symbol, foreign letter, ASCII letter in a non-Latin group) and a matrix of
//!   costs −16·ln P(class | previous class) from word frequencies;
//! - each single-byte encoding has a byte → class map (bit 7: upper case; 0x7F: a
//!   byte that is an error or a C1 control);
//! - CJK: costs −16·ln P(character) for the most frequent characters of Simplified
//!   Chinese, Traditional Chinese, Japanese and Korean.

mod archive;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use unicode_normalization::UnicodeNormalization as _;

use crate::data::Data;
use crate::{array_body, fnv1a};

/// A pinned source: a wheel from PyPI.
struct Source {
    name: &'static str,
    version: &'static str,
    file: &'static str,
    sha256: &'static str,
    license: &'static str,
}

const WORDFREQ: Source = Source {
    name: "wordfreq",
    version: "3.1.1",
    file: "wordfreq-3.1.1-py3-none-any.whl",
    sha256: "4b1c6ecffc6198be3396d5cf871c4423ca71c907c231348d352dd54d62b97473",
    license: "code Apache-2.0; word lists CC-BY-SA-4.0",
};

const PYTHAINLP: Source = Source {
    name: "pythainlp",
    version: "5.4.0",
    file: "pythainlp-5.4.0-py3-none-any.whl",
    sha256: "9239753df877202da1a50dd2842d9569eff764034f31f20222b3df4def5df193",
    license: "code Apache-2.0; corpus (tnc_freq.txt) CC0-1.0",
};

const SOURCES: [&Source; 2] = [&WORDFREQ, &PYTHAINLP];

/// A group of languages and the single-byte encodings that serve them.
struct Group {
    name: &'static str,
    languages: &'static [&'static str],
    /// (WHATWG name, whatenc static, prior cost).
    encodings: &'static [(&'static str, &'static str, u8)],
    latin: bool,
    /// The share of word boundaries written with a space (Thai writes few).
    space_ratio: f64,
}

const GROUPS: &[Group] = &[
    Group {
        name: "western",
        languages: &["en", "fr", "de", "es", "pt", "it", "nl", "sv", "da", "nb", "fi", "ca", "id", "ms"],
        encodings: &[("windows-1252", "WINDOWS_1252", 0), ("iso-8859-15", "ISO_8859_15", 2)],
        latin: true,
        space_ratio: 1.0,
    },
    Group {
        name: "central",
        languages: &["cs", "sk", "pl", "hu", "ro", "sl", "sh"],
        encodings: &[("windows-1250", "WINDOWS_1250", 0), ("iso-8859-2", "ISO_8859_2", 2)],
        latin: true,
        space_ratio: 1.0,
    },
    Group {
        name: "baltic",
        languages: &["lt", "lv"],
        encodings: &[
            ("windows-1257", "WINDOWS_1257", 0),
            ("iso-8859-13", "ISO_8859_13", 2),
            ("iso-8859-4", "ISO_8859_4", 4),
        ],
        latin: true,
        space_ratio: 1.0,
    },
    Group {
        name: "turkish",
        languages: &["tr"],
        encodings: &[("windows-1254", "WINDOWS_1254", 0)],
        latin: true,
        space_ratio: 1.0,
    },
    Group {
        name: "vietnamese",
        languages: &["vi"],
        encodings: &[("windows-1258", "WINDOWS_1258", 0)],
        latin: true,
        space_ratio: 1.0,
    },
    Group {
        name: "cyrillic",
        languages: &["ru", "uk", "bg", "mk", "sr"],
        encodings: &[
            ("windows-1251", "WINDOWS_1251", 0),
            ("koi8-u", "KOI8_U", 2),
            ("ibm866", "IBM866", 3),
            ("x-mac-cyrillic", "X_MAC_CYRILLIC", 3),
            ("iso-8859-5", "ISO_8859_5", 4),
        ],
        latin: false,
        space_ratio: 1.0,
    },
    Group {
        name: "greek",
        languages: &["el"],
        encodings: &[("windows-1253", "WINDOWS_1253", 0), ("iso-8859-7", "ISO_8859_7", 2)],
        latin: false,
        space_ratio: 1.0,
    },
    Group {
        name: "hebrew",
        languages: &["he"],
        encodings: &[("windows-1255", "WINDOWS_1255", 0), ("iso-8859-8", "ISO_8859_8", 2)],
        latin: false,
        space_ratio: 1.0,
    },
    Group {
        name: "arabic",
        languages: &["ar", "fa", "ur"],
        encodings: &[("windows-1256", "WINDOWS_1256", 0), ("iso-8859-6", "ISO_8859_6", 2)],
        latin: false,
        space_ratio: 1.0,
    },
    Group {
        name: "thai",
        languages: &["th"],
        encodings: &[("windows-874", "WINDOWS_874", 0)],
        latin: false,
        space_ratio: 0.15,
    },
];

/// Languages whose held-out words become evaluation text in `bench/heldout/`: those
/// that the corpus in `bench/corpus` lacks.
const HELDOUT_LANGUAGES: &[&str] = &["pl", "hu", "ro", "sk", "sl", "lt", "lv", "bg", "uk", "mk", "sr", "fa", "tr"];

/// The CJK columns: (name, wordfreq language).
const CJK: [&str; 4] = ["zh-Hans", "zh-Hant", "ja", "ko"];
const CJK_TOP: usize = 2500;

const SPACE: usize = 0;
const PUNCTUATION: usize = 1;
const SYMBOL: usize = 2;
const OPENING: usize = 3;
const CLOSING: usize = 4;
const FOREIGN: usize = 5;
const LATIN: usize = 6;
const MARK: usize = 7;
const FIRST_LETTER: usize = 8;
const MAX_CLASSES: usize = 96;
/// The byte class of an error or a C1 control.
const INVALID: u8 = 0x7F;
const UPPER: u8 = 0x80;
/// Cost units per nat.
const SCALE: f64 = 16.0;

/// Whether a word is held out of training (one in eight, by hash).
pub fn held_out(word: &str) -> bool {
    fnv1a(word.as_bytes()).is_multiple_of(8)
}

fn cache_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target")).join("detector-data")
}

/// Fetches (if needed) and verifies a source; returns its bytes.
fn fetch(root: &Path, source: &Source) -> Result<Vec<u8>, String> {
    use sha2::Digest as _;
    let dir = cache_dir(root);
    let path = dir.join(source.file);
    if !path.exists() {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        eprintln!("xtask: pip download --no-deps {}=={}", source.name, source.version);
        let status = std::process::Command::new("pip")
            .args(["download", "--no-deps", "--only-binary", ":all:", "-d"])
            .arg(&dir)
            .arg(format!("{}=={}", source.name, source.version))
            .status()
            .map_err(|e| format!("running pip: {e}"))?;
        if !status.success() {
            return Err(format!("pip download {} failed", source.name));
        }
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let digest: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    if digest != source.sha256 {
        return Err(format!("{}: SHA-256 {digest}, expected {}", path.display(), source.sha256));
    }
    Ok(bytes)
}

/// The word lists: language → (word, frequency), frequencies summing to about 1.
struct Corpus {
    wordfreq: Vec<u8>,
    pythainlp: Vec<u8>,
}

impl Corpus {
    fn words(&self, language: &str) -> Result<Vec<(String, f64)>, String> {
        if language == "th" {
            let text = archive::zip_entry(&self.pythainlp, "pythainlp/corpus/tnc_freq.txt")?;
            let text = String::from_utf8(text).map_err(|e| format!("tnc_freq.txt: {e}"))?;
            let mut words: Vec<(String, f64)> = text
                .lines()
                .filter_map(|line| {
                    let (word, count) = line.split_once('\t')?;
                    Some((word.to_string(), count.trim().parse::<f64>().ok()?))
                })
                .collect();
            let total: f64 = words.iter().map(|w| w.1).sum();
            words.iter_mut().for_each(|w| w.1 /= total);
            return Ok(words);
        }
        if language == "sr" {
            // wordfreq has Serbian only within Serbo-Croatian (`sh`), in Latin script;
            // Serbian's legacy encodings (windows-1251, ISO-8859-5) write it in
            // Cyrillic, to which Gaj's Latin alphabet transliterates letter for letter.
            return Ok(self.words("sh")?.into_iter().filter_map(|(w, f)| Some((serbian_cyrillic(&w)?, f))).collect());
        }
        let large = format!("wordfreq/data/large_{language}.msgpack.gz");
        let small = format!("wordfreq/data/small_{language}.msgpack.gz");
        let packed =
            archive::zip_entry(&self.wordfreq, &large).or_else(|_| archive::zip_entry(&self.wordfreq, &small))?;
        let archive::Value::Array(buckets) = archive::msgpack(&archive::gunzip(&packed)?)? else {
            return Err(format!("{language}: not a cBpack"));
        };
        let mut words = Vec::new();
        for (centibels, bucket) in buckets.iter().enumerate().skip(1) {
            let archive::Value::Array(bucket) = bucket else { continue };
            let frequency = 10f64.powf(-((centibels - 1) as f64) / 100.0);
            for word in bucket {
                if let archive::Value::Str(word) = word {
                    words.push((word.clone(), frequency));
                }
            }
        }
        Ok(words)
    }

    /// Traditional → Simplified, from wordfreq's `_chinese_mapping`.
    fn chinese_mapping(&self) -> Result<Vec<(char, String)>, String> {
        let packed = archive::zip_entry(&self.wordfreq, "wordfreq/data/_chinese_mapping.msgpack.gz")?;
        let archive::Value::Map(entries) = archive::msgpack(&archive::gunzip(&packed)?)? else {
            return Err("_chinese_mapping: not a map".into());
        };
        Ok(entries
            .into_iter()
            .filter_map(|(k, v)| match (k, v) {
                (archive::Value::Int(k), archive::Value::Str(v)) => Some((char::from_u32(k as u32)?, v)),
                _ => None,
            })
            .collect())
    }
}

/// A Serbian word in Gaj's Latin alphabet written in Vuk's Cyrillic one (the digraphs
/// lj, nj and dž are one letter each); `None` for a word with a letter that neither
/// alphabet has (q, w, x, y: foreign words).
fn serbian_cyrillic(latin: &str) -> Option<String> {
    let mut out = String::with_capacity(latin.len() * 2);
    let mut chars = latin.chars().peekable();
    while let Some(c) = chars.next() {
        let next_is = |chars: &mut core::iter::Peekable<core::str::Chars<'_>>, want: char| {
            chars.next_if(|&n| n.to_lowercase().eq(want.to_lowercase())).is_some()
        };
        let lower = c.to_lowercase().next().unwrap_or(c);
        let cyrillic = match lower {
            'l' if next_is(&mut chars, 'j') => 'љ',
            'n' if next_is(&mut chars, 'j') => 'њ',
            'd' if next_is(&mut chars, 'ž') => 'џ',
            'a' => 'а',
            'b' => 'б',
            'c' => 'ц',
            'č' => 'ч',
            'ć' => 'ћ',
            'd' => 'д',
            'đ' => 'ђ',
            'e' => 'е',
            'f' => 'ф',
            'g' => 'г',
            'h' => 'х',
            'i' => 'и',
            'j' => 'ј',
            'k' => 'к',
            'l' => 'л',
            'm' => 'м',
            'n' => 'н',
            'o' => 'о',
            'p' => 'п',
            'r' => 'р',
            's' => 'с',
            'š' => 'ш',
            't' => 'т',
            'u' => 'у',
            'v' => 'в',
            'z' => 'з',
            'ž' => 'ж',
            c if c.is_alphabetic() => return None,
            c => c,
        };
        if c.is_uppercase() {
            out.extend(cyrillic.to_uppercase());
        } else {
            out.push(cyrillic);
        }
    }
    Some(out)
}

/// Whether `c` counts as a letter: alphabetic, or a combining mark of the scripts
/// served (Vietnamese tones, Thai vowels and tones, Hebrew points, Arabic harakat).
fn is_letter(c: char) -> bool {
    c.is_alphabetic()
        || matches!(
            c as u32,
            0x0300..=0x036F | 0x05B0..=0x05BD | 0x05BF | 0x05C1 | 0x05C2 | 0x05C4 | 0x05C5 | 0x05C7 | 0x064B..=0x065F
                | 0x0670 | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E
        )
}

/// Hebrew points and Arabic harakat: vowel marks that some texts write and word
/// lists do not; costed as a mark after a letter, not trained.
fn is_point(c: char) -> bool {
    matches!(c as u32, 0x05B0..=0x05BD | 0x05BF | 0x05C1 | 0x05C2 | 0x05C4 | 0x05C5 | 0x05C7 | 0x064B..=0x0652)
}

/// Punctuation that prose has next to letters (quotes, dashes, no-break space);
/// other non-ASCII non-letters are symbols, which prose has next to letters rarely.
fn is_punctuation(c: char) -> bool {
    matches!(
        c as u32,
        0xA0 | 0xA7
            | 0xB0
            | 0xB7
            | 0x05BE
            | 0x05C0
            | 0x05C3
            | 0x05F3
            | 0x05F4
            | 0x060C
            | 0x061B
            | 0x061F
            | 0x06D4
            | 0x2010..=0x2027 | 0x2030 | 0x2116 | 0x2122
    )
}

/// Lower case; and Romanian's comma-below letters as the legacy encodings write
/// them, with a cedilla.
fn lower(c: char) -> char {
    let c = match c {
        'ș' | 'Ș' => 'ş',
        'ț' | 'Ț' => 'ţ',
        c => c,
    };
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

/// A single-byte index: byte 0x80 + i → code point.
fn high_half(data: &Data, name: &str) -> Result<[Option<char>; 128], String> {
    let index = data.index(name)?;
    let mut out = [None; 128];
    for (&pointer, &code_point) in &index.entries {
        if pointer < 128 {
            out[pointer as usize] = char::from_u32(code_point);
        }
    }
    Ok(out)
}

/// Rewrites Vietnamese as windows-1258 writes it: precomposed where the encoding has
/// the letter, otherwise a base (possibly with its circumflex, breve or horn) and
/// combining tone marks.
fn windows_1258_form(word: &str, repertoire: &BTreeSet<char>) -> String {
    let mut out = String::new();
    for c in word.chars() {
        if c.is_ascii() || repertoire.contains(&c) {
            out.push(c);
            continue;
        }
        let decomposed: Vec<char> = c.nfd().collect();
        let mut base = decomposed[0];
        let mut rest = Vec::new();
        for &mark in &decomposed[1..] {
            let composed: Vec<char> = [base, mark].iter().copied().nfc().collect();
            if composed.len() == 1 && repertoire.contains(&composed[0]) && rest.is_empty() {
                base = composed[0];
            } else {
                rest.push(mark);
            }
        }
        out.push(base);
        out.extend(rest);
    }
    out
}

struct Alphabet {
    classes: BTreeMap<char, usize>,
    latin: bool,
    len: usize,
}

impl Alphabet {
    fn class(&self, c: char) -> usize {
        if is_point(c) {
            MARK
        } else if is_letter(c) {
            let l = lower(c);
            if let Some(&class) = self.classes.get(&l) {
                class
            } else if !self.latin && l.is_ascii_alphabetic() {
                LATIN
            } else {
                FOREIGN
            }
        } else if c.is_ascii() {
            SPACE
        } else if matches!(c, '‘' | '“' | '„' | '‚' | '«' | '‹' | '¡' | '¿') {
            OPENING
        } else if matches!(c, '’' | '”' | '»' | '›') {
            CLOSING
        } else if is_punctuation(c) {
            PUNCTUATION
        } else {
            SYMBOL
        }
    }
}

/// One language's pair costs over its group's classes: pairs inside words, and
/// across word boundaries (a space, or, for scripts written without spaces, the
/// next word); fixed costs for the classes that word lists lack.
fn pair_costs(words: &[(String, f64)], alphabet: &Alphabet, group: &Group) -> Vec<u8> {
    let n = alphabet.len;
    let mut counts = vec![0f64; n * n];
    let mut starts = vec![0f64; n];
    let mut ends = vec![0f64; n];
    for (word, f) in words {
        let classes: Vec<usize> = word.chars().map(|c| alphabet.class(c)).collect();
        let (Some(&first), Some(&last)) = (classes.first(), classes.last()) else { continue };
        for pair in classes.windows(2) {
            counts[pair[0] * n + pair[1]] += f;
        }
        starts[first] += f;
        ends[last] += f;
    }
    let boundary: f64 = starts.iter().sum();
    for a in 0..n {
        counts[SPACE * n + a] += group.space_ratio * starts[a];
        counts[a * n + SPACE] += group.space_ratio * ends[a];
        for b in 0..n {
            counts[a * n + b] += (1.0 - group.space_ratio) * ends[a] * starts[b] / boundary;
        }
    }
    let column: Vec<f64> = (0..n).map(|b| (0..n).map(|a| counts[a * n + b]).sum::<f64>() + 1e-9).collect();
    let column_total: f64 = column.iter().sum();
    let is_letter_class = |class: usize| class >= FOREIGN;
    let mut costs = vec![255u8; n * n];
    for a in 0..n {
        // Punctuation, symbols and foreign letters are followed as a space is.
        let source = if matches!(a, PUNCTUATION | SYMBOL | OPENING | CLOSING | FOREIGN) { SPACE } else { a };
        let row: f64 = (0..n).map(|b| counts[source * n + b]).sum();
        for b in 0..n {
            let p = match b {
                MARK if a >= FIRST_LETTER => 0.05,
                MARK if a == MARK => 0.02,
                MARK => 1e-4,
                // After a mark, what follows any letter.
                _ if a == MARK => column[b] / column_total,
                // An opening quote glued to a letter before it, a closing one
                // (or an apostrophe) after a space: rare.
                OPENING if is_letter_class(a) => 1e-4,
                OPENING => 0.004,
                CLOSING if is_letter_class(a) => 0.004,
                CLOSING => 5e-4,
                PUNCTUATION if is_letter_class(a) => 0.002,
                PUNCTUATION => 0.004,
                SYMBOL if is_letter_class(a) => 1e-5,
                SYMBOL => 3e-4,
                FOREIGN => 1e-5,
                LATIN if group.latin => 1e-9,
                _ if row == 0.0 => column[b] / column_total,
                // At worst what a foreign letter costs.
                _ => (0.995 * counts[source * n + b] / row + 0.005 * column[b] / column_total * 1e-2).max(5e-6),
            };
            // A letter right after a symbol: rare (e^-3 more than after a space).
            let extra = if a == SYMBOL && is_letter_class(b) { 48 } else { 0 };
            costs[a * n + b] = quantize(p).saturating_add(extra);
        }
    }
    costs
}

/// The costs that a model's four-bit codes stand for: finer where pair costs are
/// common (1 to 5 nats), coarser for the rare pairs.
const LEVELS: [u8; 16] = [8, 20, 28, 36, 44, 52, 60, 68, 78, 90, 104, 120, 140, 165, 200, 250];

/// The costs that the CJK characters' four-bit codes stand for (15: none).
const CJK_LEVELS: [u8; 15] = [40, 56, 72, 88, 100, 112, 124, 136, 148, 160, 172, 186, 202, 220, 240];

/// The four-bit code whose level is nearest `cost`.
fn level_code(cost: u8) -> u8 {
    (0..16u8).min_by_key(|&c| (LEVELS[c as usize] as i32 - cost as i32).abs()).unwrap_or(15)
}

fn quantize(p: f64) -> u8 {
    (-p.max(1e-30).ln() * SCALE).round().clamp(0.0, 255.0) as u8
}

pub struct Trained {
    pub tables: String,
    pub data_bytes: usize,
    pub heldout: Vec<(String, String)>,
}

/// Trains every table from the sources.
fn train(root: &Path, data: &Data) -> Result<Trained, String> {
    let corpus = Corpus { wordfreq: fetch(root, &WORDFREQ)?, pythainlp: fetch(root, &PYTHAINLP)? };
    let mut out = String::new();
    let mut data_bytes = 0;
    let mut cache: HashMap<String, Vec<(String, f64)>> = HashMap::new();
    let w1258: BTreeSet<char> = high_half(data, "windows-1258")?.iter().flatten().copied().collect();

    let mut model_texts = Vec::new();
    let mut latin_ascii: Vec<Vec<u8>> = vec![Vec::new(); 27 * 27];
    let mut latin_done = false;
    let mut group_texts = Vec::new();
    let mut candidate_texts = Vec::new();
    for (group_id, group) in GROUPS.iter().enumerate() {
        let maps: Vec<[Option<char>; 128]> =
            group.encodings.iter().map(|(name, _, _)| high_half(data, name)).collect::<Result<_, _>>()?;
        let repertoire: BTreeSet<char> = maps.iter().flat_map(|m| m.iter().flatten().copied()).collect();
        // Training words per language, normalised, in the group's written form.
        let mut languages = Vec::new();
        for &language in group.languages {
            let words = match cache.get(language) {
                Some(words) => words.clone(),
                None => {
                    let words = corpus.words(language)?;
                    cache.insert(language.to_string(), words.clone());
                    words
                }
            };
            let mut words: Vec<(String, f64)> = words
                .into_iter()
                .filter(|(w, _)| !held_out(w))
                .map(|(w, f)| {
                    let w: String = w.nfc().map(lower).collect();
                    let w = if group.name == "vietnamese" { windows_1258_form(&w, &w1258) } else { w };
                    (w, f)
                })
                .collect();
            let total: f64 = words.iter().map(|w| w.1).sum();
            words.iter_mut().for_each(|w| w.1 /= total * group.languages.len() as f64);
            languages.push(words);
        }
        // The alphabet: the letters the encodings can write that are not rare in
        // at least one of the group's languages, commonest first.
        let mut share: BTreeMap<char, f64> = BTreeMap::new();
        for words in &languages {
            let mut mass: BTreeMap<char, f64> = BTreeMap::new();
            for (word, f) in words {
                for c in word.chars().filter(|&c| is_letter(c)) {
                    *mass.entry(c).or_default() += f;
                }
            }
            let total: f64 = mass.values().sum();
            for (c, m) in mass {
                let s = share.entry(c).or_default();
                *s = s.max(m / total);
            }
        }
        let mut letters: Vec<char> = if group.latin { ('a'..='z').collect() } else { Vec::new() };
        let mut by_share: Vec<(char, f64)> = share
            .iter()
            .filter(|&(&c, &s)| !c.is_ascii() && repertoire.contains(&c) && s >= 2e-5)
            .map(|(&c, &s)| (c, s))
            .collect();
        by_share.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (c, _) in by_share {
            if letters.len() + FIRST_LETTER < MAX_CLASSES {
                letters.push(c);
            }
        }
        letters.sort();
        let alphabet = Alphabet {
            classes: letters.iter().enumerate().map(|(i, &c)| (c, i + FIRST_LETTER)).collect(),
            latin: group.latin,
            len: letters.len() + FIRST_LETTER,
        };
        let n = alphabet.len;
        let first_model = model_texts.len();
        for (words, language) in languages.iter().zip(group.languages) {
            // Four bits a pair: the level nearest each cost (see LEVELS).
            let codes: Vec<u8> = pair_costs(words, &alphabet, group).into_iter().map(level_code).collect();
            let packed: Vec<u8> = codes.chunks(2).map(|p| p[0] | p.get(1).map_or(0, |&hi| hi << 4)).collect();
            data_bytes += packed.len();
            if group.latin {
                if latin_done {
                    return Err("the Latin groups must come first".into());
                }
                // The ASCII pairs' costs: space (any ASCII non-letter) then a–z.
                let ascii_class = |i: usize| if i == 0 { SPACE } else { alphabet.class((b'a' + i as u8 - 1) as char) };
                for x in 0..27 {
                    for y in 0..27 {
                        latin_ascii[x * 27 + y].push(codes[ascii_class(x) * n + ascii_class(y)]);
                    }
                }
            }
            model_texts.push(format!("    // {language}\n    &[\n{}    ],\n", array_body(&packed)));
        }
        latin_done |= !group.latin;
        group_texts.push(format!(
            "    // {}: space, punctuation, symbol, opening, closing, foreign, latin, mark, {}\n    Group {{ classes: {n}, latin: {}, models: {first_model}..{} }},\n",
            group.name,
            letters.iter().collect::<String>(),
            group.latin,
            model_texts.len()
        ));
        // Byte maps.
        for ((_, ident, prior), high) in group.encodings.iter().zip(&maps) {
            let mut map = [0u8; 256];
            for (byte, slot) in map.iter_mut().enumerate() {
                let c = if byte < 0x80 { Some(byte as u8 as char) } else { high[byte - 0x80] };
                *slot = match c {
                    None => INVALID,
                    Some(c) if matches!(c as u32, 0x80..=0x9F) => INVALID,
                    Some(c) => alphabet.class(c) as u8 | if c.is_uppercase() { UPPER } else { 0 },
                };
            }
            data_bytes += 256;
            candidate_texts.push(format!(
                "    SingleByteCandidate {{ encoding: &crate::{ident}, group: {group_id}, prior: {prior}, map: &[\n{}    ] }},\n",
                array_body(&map)
            ));
        }
    }

    // CJK character costs.
    let mut cjk_mass: Vec<BTreeMap<char, f64>> = vec![BTreeMap::new(); 4];
    let is_cjk = |c: char| matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF);
    for (column, language) in [(0, "zh"), (2, "ja"), (3, "ko")] {
        for (word, f) in corpus.words(language)? {
            if held_out(&word) {
                continue;
            }
            for c in word.chars().filter(|&c| is_cjk(c)) {
                *cjk_mass[column].entry(c).or_default() += f;
            }
        }
    }
    // Traditional from Simplified: each simplified character's mass shared among the
    // traditional characters that map to it (and itself when it is also traditional).
    let mut traditional: BTreeMap<char, Vec<char>> = BTreeMap::new();
    let mapping = corpus.chinese_mapping()?;
    let simplified_of: HashMap<char, String> = mapping.iter().cloned().collect();
    for (trad, simp) in &mapping {
        let mut chars = simp.chars();
        if let (Some(s), None) = (chars.next(), chars.next()) {
            traditional.entry(s).or_default().push(*trad);
        }
    }
    let zh = cjk_mass[0].clone();
    for (&s, &m) in &zh {
        let mut forms = traditional.get(&s).cloned().unwrap_or_default();
        if simplified_of.get(&s).is_none_or(|t| t.chars().eq([s])) {
            forms.push(s);
        }
        forms.retain(|&t| is_cjk(t));
        forms.sort();
        forms.dedup();
        for &t in &forms {
            *cjk_mass[1].entry(t).or_default() += m / forms.len() as f64;
        }
    }
    let mut cjk_costs: BTreeMap<char, [u8; 4]> = BTreeMap::new();
    let mut rare = [0u8; 4];
    for (column, mass) in cjk_mass.iter().enumerate() {
        let total: f64 = mass.values().sum();
        let mut ranked: Vec<(char, f64)> = mass.iter().map(|(&c, &m)| (c, m)).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(CJK_TOP);
        for &(c, m) in &ranked {
            cjk_costs.entry(c).or_insert([255; 4])[column] = quantize(m / total).min(254);
        }
        rare[column] = quantize(ranked.last().map_or(1e-6, |r| r.1 / total) / 4.0).min(254);
    }
    let code_points: Vec<u32> = cjk_costs.keys().map(|&c| c as u32).collect();
    // Four bits a column: the nearest of CJK_LEVELS, 15 for none.
    let cjk_code = |cost: u8| {
        if cost == 255 {
            15
        } else {
            (0..15u16).min_by_key(|&c| (CJK_LEVELS[c as usize] as i32 - cost as i32).abs()).unwrap_or(14)
        }
    };
    let costs: Vec<u16> =
        cjk_costs.values().map(|c| (0..4).fold(0u16, |packed, col| packed | cjk_code(c[col]) << (4 * col))).collect();
    data_bytes += code_points.len() * 2 + costs.len() * 2;

    writeln!(out, "use crate::detect::model::{{Group, SingleByteCandidate}};\n").unwrap();
    writeln!(out, "/// The language groups' names, in the order of [`MODELS`].").unwrap();
    let names: Vec<String> = GROUPS.iter().map(|g| format!("{:?}", g.name)).collect();
    writeln!(out, "pub(crate) static GROUP_NAMES: [&str; {}] = [{}];\n", GROUPS.len(), names.join(", ")).unwrap();
    writeln!(out, "/// Per group: its classes and its languages' models in [`MODELS`].").unwrap();
    writeln!(out, "pub(crate) static GROUPS: [Group; {}] = [\n{}];\n", GROUPS.len(), group_texts.concat()).unwrap();
    writeln!(out, "/// What each four-bit code of [`MODELS`] costs.").unwrap();
    writeln!(out, "pub(crate) static LEVELS: [u8; 16] = {LEVELS:?};\n").unwrap();
    writeln!(
        out,
        "/// Per language: pair costs, −16·ln P(class | previous class), row = previous, as\n\
         /// four-bit codes of [`LEVELS`], two a byte (the even index in the low half)."
    )
    .unwrap();
    writeln!(out, "pub(crate) static MODELS: [&[u8]; {}] = [\n{}];\n", model_texts.len(), model_texts.concat())
        .unwrap();
    let latin_languages = latin_ascii[0].len();
    writeln!(out, "/// The Latin groups' languages: the first models of [`MODELS`].").unwrap();
    writeln!(out, "pub(crate) const LATIN_LANGUAGES: usize = {latin_languages};\n").unwrap();
    writeln!(
        out,
        "/// For each ASCII pair (27 × previous + current; 0: a non-letter, 1–26: a–z), each\n\
         /// Latin language's cost code, side by side (a copy of their models' ASCII corner)."
    )
    .unwrap();
    // Four-bit codes of LEVELS, two a byte.
    let packed_len = latin_languages.div_ceil(2);
    let rows: Vec<String> = latin_ascii
        .iter()
        .map(|row| {
            format!("{:?}", row.chunks(2).map(|p| p[0] | p.get(1).map_or(0, |&hi| hi << 4)).collect::<Vec<u8>>())
        })
        .collect();
    writeln!(out, "pub(crate) static LATIN_ASCII: [[u8; {packed_len}]; 729] = [\n{}];\n", array_body(&rows)).unwrap();
    data_bytes += 729 * packed_len;
    writeln!(out, "/// The single-byte candidates: encoding, group, prior cost, byte → class.").unwrap();
    writeln!(
        out,
        "pub(crate) static SINGLE_BYTE: [SingleByteCandidate; {}] = [\n{}];\n",
        candidate_texts.len(),
        candidate_texts.concat()
    )
    .unwrap();
    writeln!(out, "/// The CJK columns of [`CJK_COSTS`].").unwrap();
    writeln!(out, "pub(crate) static CJK_COLUMNS: [&str; 4] = {CJK:?};\n").unwrap();
    writeln!(out, "/// Per column: the cost of a character of the script outside its top {CJK_TOP}.").unwrap();
    writeln!(out, "pub(crate) static CJK_RARE: [u8; 4] = {rare:?};\n").unwrap();
    writeln!(out, "/// The characters with a cost, sorted.").unwrap();
    writeln!(
        out,
        "pub(crate) static CJK_CODE_POINTS: [u16; {}] = [\n{}];\n",
        code_points.len(),
        array_body(&code_points)
    )
    .unwrap();
    writeln!(out, "/// What each four-bit code of [`CJK_COSTS`] costs (15: not among the top {CJK_TOP}).").unwrap();
    writeln!(out, "pub(crate) static CJK_LEVELS: [u8; 15] = {CJK_LEVELS:?};\n").unwrap();
    writeln!(
        out,
        "/// Their costs −16·ln P, a four-bit code of [`CJK_LEVELS`] per column (column c in bits 4c..4c+4)."
    )
    .unwrap();
    writeln!(out, "pub(crate) static CJK_COSTS: [u16; {}] = [\n{}];", costs.len(), array_body(&costs)).unwrap();

    // Held-out text: held-out words drawn by frequency into sentences.
    let mut heldout = Vec::new();
    for &language in HELDOUT_LANGUAGES {
        let words: Vec<(String, f64)> = cache
            .get(language)
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|(w, _)| held_out(w) && w.chars().all(is_letter))
            // Romanian as the legacy encodings write it (ş, ţ with a cedilla).
            .map(|(w, f)| (w.replace('ș', "ş").replace('ț', "ţ"), f))
            .collect();
        heldout.push((language.to_string(), sentences(&words, 8192)));
    }
    Ok(Trained { tables: out, data_bytes, heldout })
}

/// About `len` bytes of sentences of words drawn by frequency (xorshift, fixed seed).
fn sentences(words: &[(String, f64)], len: usize) -> String {
    let total: f64 = words.iter().map(|w| w.1).sum();
    let mut cumulative = Vec::with_capacity(words.len());
    let mut sum = 0.0;
    for (_, f) in words {
        sum += f / total;
        cumulative.push(sum);
    }
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = String::new();
    while out.len() < len {
        let count = 4 + next() % 11;
        for i in 0..count {
            let r = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let at = cumulative.partition_point(|&c| c < r).min(words.len() - 1);
            let word = &words[at].0;
            if i == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                    out.push_str(chars.as_str());
                }
            } else {
                out.push(' ');
                out.push_str(word);
            }
        }
        out.push_str(". ");
    }
    out.push('\n');
    out
}

fn header() -> String {
    let mut out = String::from(
        "// @generated by `cargo xtask train-detector`: the statistical detector's trained tables.\n\
         // Do not edit: change the trainer (xtask/src/detector/) and run `cargo xtask train-detector`.\n\
         // `cargo xtask gen --check` checks this file against `detect.fingerprint`.\n\
         // Sources (fetched with `pip download --no-deps NAME==VERSION`, SHA-256 checked):\n",
    );
    for source in SOURCES {
        writeln!(
            out,
            "// - {} {} ({}), sha256 {}; {}.",
            source.name, source.version, source.file, source.sha256, source.license
        )
        .unwrap();
    }
    out.push_str(
        "// One word in eight (FNV-1a 64 of the word, mod 8 = 0) is held out of training; the\n\
         // held-out words of some languages make `bench/heldout/`.\n\
         // Licence: these tables hold no word or text of the sources, only aggregate statistics\n\
         // (quantised letter-pair costs, CJK character frequency codes, byte classes); they are\n\
         // whatenc's, MIT OR Apache-2.0, with the sources credited above (README: Data and licenses).\n\n",
    );
    out
}

fn fingerprint(contents: &str, data_bytes: usize) -> String {
    format!(
        "# @generated by `cargo xtask train-detector`: the detector's table (name, bytes, FNV-1a 64 of the\n\
         # contents, bytes of static data). `cargo xtask gen --check` checks it without the network.\n\
         detect.rs\t{}\t{:016x}\t{data_bytes}\n",
        contents.len(),
        fnv1a(contents.as_bytes())
    )
}

/// `cargo xtask train-detector [--check]`.
pub fn run(root: &Path, check: bool) -> Result<bool, String> {
    let data = Data::load(&root.join("data/whatwg"))?;
    let trained = train(root, &data)?;
    let contents = format!("{}{}", header(), trained.tables);
    let tables = root.join("crates/whatenc/src/tables");
    let mut files = vec![
        (tables.join("detect.rs"), contents.clone()),
        (tables.join("detect.fingerprint"), fingerprint(&contents, trained.data_bytes)),
    ];
    for (language, text) in &trained.heldout {
        files.push((root.join(format!("bench/heldout/{language}.txt")), text.clone()));
    }
    let mut up_to_date = true;
    for (path, contents) in &files {
        let current = std::fs::read_to_string(path).ok();
        if current.as_deref() == Some(contents.as_str()) {
            continue;
        }
        up_to_date = false;
        if check {
            eprintln!("xtask: stale: {}", path.display());
        } else {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            std::fs::write(path, contents).map_err(|e| format!("writing {}: {e}", path.display()))?;
        }
    }
    println!(
        "xtask: detector tables: {} bytes of table data{}",
        trained.data_bytes,
        if check && up_to_date { ", up to date" } else { "" }
    );
    Ok(up_to_date || !check)
}

/// The network-free check for `gen --check`: the table matches its fingerprint.
pub fn check_fingerprint(root: &Path) -> Result<bool, String> {
    let tables = root.join("crates/whatenc/src/tables");
    let contents = std::fs::read_to_string(tables.join("detect.rs")).map_err(|e| format!("detect.rs: {e}"))?;
    let fingerprint =
        std::fs::read_to_string(tables.join("detect.fingerprint")).map_err(|e| format!("detect.fingerprint: {e}"))?;
    let line =
        fingerprint.lines().find(|l| l.starts_with("detect.rs\t")).ok_or("detect.fingerprint: no detect.rs line")?;
    let fields: Vec<&str> = line.split('\t').collect();
    let ok = fields.get(1) == Some(&contents.len().to_string().as_str())
        && fields.get(2) == Some(&format!("{:016x}", fnv1a(contents.as_bytes())).as_str());
    if ok {
        println!("xtask: the detector's table matches detect.fingerprint");
    } else {
        eprintln!(
            "xtask: crates/whatenc/src/tables/detect.rs does not match detect.fingerprint; run `cargo xtask train-detector`"
        );
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use super::serbian_cyrillic;

    #[test]
    fn serbian_latin_to_cyrillic() {
        assert_eq!(serbian_cyrillic("ljubav").as_deref(), Some("љубав"));
        assert_eq!(serbian_cyrillic("njegoš").as_deref(), Some("његош"));
        assert_eq!(serbian_cyrillic("džep").as_deref(), Some("џеп"));
        assert_eq!(serbian_cyrillic("đak").as_deref(), Some("ђак"));
        assert_eq!(serbian_cyrillic("ćuprija").as_deref(), Some("ћуприја"));
        assert_eq!(serbian_cyrillic("Beograd").as_deref(), Some("Београд"));
        assert_eq!(serbian_cyrillic("Ljiljana").as_deref(), Some("Љиљана"));
        assert_eq!(serbian_cyrillic("word"), None);
        assert_eq!(serbian_cyrillic("x-ray"), None);
    }
}
