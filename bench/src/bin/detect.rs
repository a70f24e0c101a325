//! The detector's evaluation: whatenc's `detect` against chardetng (Firefox's
//! detector) in the same run.
//!
//! - Text held out from training: the corpus articles (`bench/corpus/<lang>.txt`,
//!   16 languages) and the held-out word-list text (`bench/heldout/<lang>.txt`: words
//!   the trainer never saw, see `bench/heldout/README.md`), cut into snippets of 16,
//!   32, 64, 128, 256 and 1024 bytes at up to `--offsets` (default 200) offsets
//!   spread over the text, each encoded into every legacy encoding its language
//!   uses. Snippets with a character the encoding lacks, and pure ASCII ones, are
//!   skipped. Full documents: each corpus page (`<lang>.html`) in each encoding.
//! - Scoring: a guess is right when decoding the bytes with it gives the same text
//!   as decoding them with the truth.
//! - Both detectors get no hint and may guess UTF-8.
//! - Speed: MB/s of each detector over each corpus article in its first legacy
//!   encoding (whole, one feed; best of 5), and µs to a decision on the first 1 KB
//!   of each page in that encoding (best of 7 rounds of 200).
//!
//! `cargo run --release -p whatenc-bench --bin detect [-- --offsets N] [--all]`
//! (`--all` prints every (language, encoding, length) row, not only the summary).

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use unicode_normalization::UnicodeNormalization as _;
use whatenc::Encoding;
use whatenc::detect::{DetectOptions, EncodingDetector};

const LENGTHS: [usize; 6] = [16, 32, 64, 128, 256, 1024];

/// (language, source file, encodings).
fn sources() -> Vec<(&'static str, PathBuf, Vec<&'static Encoding>)> {
    use whatenc::*;
    let corpus = whatenc_bench::corpus_dir();
    let heldout = corpus.parent().unwrap().join("heldout");
    let western = vec![WINDOWS_1252, ISO_8859_15];
    let central = vec![WINDOWS_1250, ISO_8859_2];
    let baltic = vec![WINDOWS_1257, ISO_8859_13, ISO_8859_4];
    let mut out = vec![
        ("ar", corpus.join("ar.txt"), vec![WINDOWS_1256, ISO_8859_6]),
        ("cs", corpus.join("cs.txt"), central.clone()),
        ("de", corpus.join("de.txt"), western.clone()),
        ("el", corpus.join("el.txt"), vec![WINDOWS_1253, ISO_8859_7]),
        ("en", corpus.join("en.txt"), vec![WINDOWS_1252]),
        ("fr", corpus.join("fr.txt"), western.clone()),
        ("he", corpus.join("he.txt"), vec![WINDOWS_1255, ISO_8859_8]),
        ("ja", corpus.join("ja.txt"), vec![SHIFT_JIS, EUC_JP, ISO_2022_JP]),
        ("ko", corpus.join("ko.txt"), vec![EUC_KR]),
        ("pt", corpus.join("pt.txt"), vec![WINDOWS_1252]),
        ("ru", corpus.join("ru.txt"), vec![WINDOWS_1251, KOI8_R, IBM866, X_MAC_CYRILLIC, ISO_8859_5]),
        ("th", corpus.join("th.txt"), vec![WINDOWS_874]),
        ("tr", corpus.join("tr.txt"), vec![WINDOWS_1254]),
        ("vi", corpus.join("vi.txt"), vec![WINDOWS_1258]),
        ("zh_cn", corpus.join("zh_cn.txt"), vec![GBK]),
        ("zh_tw", corpus.join("zh_tw.txt"), vec![BIG5]),
    ];
    for language in ["pl", "hu", "ro", "sk", "sl"] {
        out.push((language, heldout.join(format!("{language}.txt")), central.clone()));
    }
    for language in ["lt", "lv"] {
        out.push((language, heldout.join(format!("{language}.txt")), baltic.clone()));
    }
    out.push(("bg", heldout.join("bg.txt"), vec![WINDOWS_1251, ISO_8859_5]));
    out.push(("mk", heldout.join("mk.txt"), vec![WINDOWS_1251, ISO_8859_5]));
    out.push(("uk", heldout.join("uk.txt"), vec![WINDOWS_1251, KOI8_U]));
    out.push(("sr", heldout.join("sr.txt"), vec![WINDOWS_1251, ISO_8859_5]));
    out.push(("fa", heldout.join("fa.txt"), vec![WINDOWS_1256]));
    out.push(("tr-heldout", heldout.join("tr.txt"), vec![WINDOWS_1254]));
    out
}

/// Vietnamese as windows-1258 writes it: precomposed where the encoding has the
/// letter, else base letter (with circumflex, breve or horn) and combining tones.
fn windows_1258_form(text: &str) -> String {
    let encodable = |c: char| whatenc::WINDOWS_1258.encode(c.encode_utf8(&mut [0; 4])).is_ok_and(|(_, u)| !u);
    let mut cache: HashMap<char, String> = HashMap::new();
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        let form = cache.entry(c).or_insert_with(|| {
            if encodable(c) {
                return c.to_string();
            }
            let decomposed: Vec<char> = c.nfd().collect();
            let mut base = decomposed[0];
            let mut rest = String::new();
            for &mark in &decomposed[1..] {
                let composed: Vec<char> = [base, mark].iter().copied().nfc().collect();
                if composed.len() == 1 && encodable(composed[0]) && rest.is_empty() {
                    base = composed[0];
                } else {
                    rest.push(mark);
                }
            }
            format!("{base}{rest}")
        });
        out.push_str(form);
    }
    out
}

/// Snippets of `text` in `encoding` of at most `len` bytes starting at up to
/// `offsets` character offsets, whole characters, skipping those with an
/// unencodable character or no non-ASCII byte.
fn snippets(text: &str, encoding: &'static Encoding, len: usize, offsets: usize) -> Vec<Vec<u8>> {
    // Per-character encodings (ISO-2022-JP measured with EUC-JP's lengths).
    let measure = if encoding == whatenc::ISO_2022_JP { whatenc::EUC_JP } else { encoding };
    let chars: Vec<char> = text.chars().collect();
    let mut cache: HashMap<char, Option<usize>> = HashMap::new();
    let mut sizes = Vec::with_capacity(chars.len());
    for &c in &chars {
        let size = *cache.entry(c).or_insert_with(|| {
            let mut buf = [0; 4];
            let (bytes, unmappable) = measure.encode(c.encode_utf8(&mut buf)).unwrap();
            (!unmappable).then_some(bytes.len())
        });
        sizes.push(size);
    }
    let mut out = Vec::new();
    let step = (chars.len() / offsets).max(1);
    for start in (0..chars.len()).step_by(step) {
        let mut end = start;
        let mut bytes = 0;
        let mut ok = true;
        while end < chars.len() {
            match sizes[end] {
                None => {
                    ok = false;
                    break;
                }
                Some(size) if bytes + size > len => break,
                Some(size) => bytes += size,
            }
            end += 1;
        }
        if !ok || end == start || bytes + 4 < len.min(16) {
            continue;
        }
        let snippet: String = chars[start..end].iter().collect();
        if snippet.is_ascii() {
            continue;
        }
        let (encoded, _) = encoding.encode(&snippet).unwrap();
        out.push(encoded.into_owned());
    }
    out
}

fn ours(bytes: &[u8]) -> &'static Encoding {
    let mut detector = EncodingDetector::new();
    detector.feed(bytes);
    detector.finish();
    detector.guess(&DetectOptions::default()).encoding
}

fn theirs(bytes: &[u8]) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let guess = detector.guess(None, true);
    Encoding::for_label(guess.name().as_bytes()).unwrap()
}

fn right(bytes: &[u8], truth: &'static Encoding, guess: &'static Encoding) -> bool {
    guess == truth || truth.decode(bytes).0 == guess.decode(bytes).0
}

#[derive(Default, Clone, Copy)]
struct Bucket {
    samples: usize,
    ours: usize,
    theirs: usize,
}

impl Bucket {
    fn add(&mut self, other: Bucket) {
        self.samples += other.samples;
        self.ours += other.ours;
        self.theirs += other.theirs;
    }

    fn row(&self, name: &str) -> String {
        let acc = |right: usize| 100.0 * right as f64 / self.samples.max(1) as f64;
        let (our_errors, their_errors) = (self.samples - self.ours, self.samples - self.theirs);
        let ratio = if their_errors == 0 {
            if our_errors == 0 { "—".to_string() } else { "∞".to_string() }
        } else {
            format!("{:.2}", our_errors as f64 / their_errors as f64)
        };
        let flag = if self.samples >= 100 && self.ours < self.theirs { " ✗" } else { "" };
        format!("| {name} | {} | {:.1} | {:.1} | {ratio}{flag} |", self.samples, acc(self.ours), acc(self.theirs))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let offsets = args
        .iter()
        .position(|a| a == "--offsets")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let all = args.iter().any(|a| a == "--all");
    // `--show LANG`: print whatenc's wrong guesses for that language.
    let show = args.iter().position(|a| a == "--show").and_then(|i| args.get(i + 1)).cloned();
    // `--explain ENCODING TEXT`: the ranked candidates for TEXT in ENCODING.
    if let Some(i) = args.iter().position(|a| a == "--explain") {
        let encoding = Encoding::for_label(args[i + 1].as_bytes()).expect("an encoding label");
        let (bytes, _) = encoding.encode(&args[i + 2]).unwrap();
        let mut detector = EncodingDetector::new();
        detector.feed(&bytes);
        detector.finish();
        for candidate in detector.candidates(&DetectOptions::default()).iter().take(12) {
            println!(
                "{:>16} {:>6} {} {:?}",
                candidate.encoding.name(),
                candidate.cost,
                candidate.valid,
                candidate.encoding.decode(&bytes).0
            );
        }
        return;
    }
    let mut rows: BTreeMap<(String, String, usize), Bucket> = BTreeMap::new();
    let mut mistakes: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (language, path, encodings) in sources() {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = if language == "vi" { windows_1258_form(&text) } else { text };
        for &encoding in &encodings {
            for len in LENGTHS {
                let mut bucket = Bucket::default();
                for bytes in snippets(&text, encoding, len, offsets) {
                    bucket.samples += 1;
                    let guess = ours(&bytes);
                    if right(&bytes, encoding, guess) {
                        bucket.ours += 1;
                    } else {
                        *mistakes
                            .entry((format!("{language} {}", encoding.name()), guess.name().to_string()))
                            .or_default() += 1;
                        if show.as_deref() == Some(language) {
                            println!(
                                "{} as {}: {:?} → {:?}",
                                encoding.name(),
                                guess.name(),
                                encoding.decode(&bytes).0,
                                guess.decode(&bytes).0
                            );
                        }
                    }
                    bucket.theirs += right(&bytes, encoding, theirs(&bytes)) as usize;
                }
                rows.insert((language.to_string(), encoding.name().to_string(), len), bucket);
            }
        }
    }
    // Full documents: the corpus pages in each encoding.
    let mut documents = Bucket::default();
    for (language, path, encodings) in sources() {
        let page = path.with_extension("html");
        let Ok(html) = std::fs::read_to_string(&page) else { continue };
        let html = if language == "vi" { windows_1258_form(&html) } else { html };
        for &encoding in &encodings {
            let (bytes, _) = encoding.encode(&html).unwrap();
            documents.samples += 1;
            let guess = ours(&bytes);
            documents.ours += right(&bytes, encoding, guess) as usize;
            if all && !right(&bytes, encoding, guess) {
                println!("full page {language} {} guessed {}", encoding.name(), guess.name());
            }
            documents.theirs += right(&bytes, encoding, theirs(&bytes)) as usize;
        }
    }

    println!("### Accuracy, % right (whatenc `detect` vs chardetng); ratio = our errors / its errors\n");
    println!("| bucket | samples | whatenc | chardetng | error ratio |");
    println!("|---|---:|---:|---:|---:|");
    let mut overall = Bucket::default();
    let mut by_encoding_length: BTreeMap<(String, usize), Bucket> = BTreeMap::new();
    for ((language, encoding, len), bucket) in &rows {
        overall.add(*bucket);
        by_encoding_length.entry((encoding.clone(), *len)).or_default().add(*bucket);
        if all {
            println!("{}", bucket.row(&format!("{language} {encoding} {len}")));
        }
    }
    println!("{}", overall.row("**all snippets**"));
    println!("{}", documents.row("**full pages (HTML)**"));
    let weak = |name: &str, keep: &dyn Fn(&str, &str, usize) -> bool| {
        let mut bucket = Bucket::default();
        for ((language, encoding, len), b) in &rows {
            if keep(language, encoding, *len) {
                bucket.add(*b);
            }
        }
        println!("{}", bucket.row(name));
    };
    weak("windows-1257 (weak spot)", &|_, e, _| e == "windows-1257");
    weak("GBK < 32 bytes (weak spot)", &|_, e, l| e == "GBK" && l < 32);
    weak("Thai (weak spot)", &|_, e, _| e == "windows-874");
    weak("x-mac-cyrillic", &|_, e, _| e == "x-mac-cyrillic");
    println!("\n### Per (encoding, length)\n");
    println!("| bucket | samples | whatenc | chardetng | error ratio |");
    println!("|---|---:|---:|---:|---:|");
    for ((encoding, len), bucket) in &by_encoding_length {
        println!("{}", bucket.row(&format!("{encoding} {len}")));
    }
    if all {
        let mut mistakes: Vec<_> = mistakes.into_iter().collect();
        mistakes.sort_by_key(|m| std::cmp::Reverse(m.1));
        println!("\n### whatenc's most frequent mistakes (truth → guess)\n");
        for ((truth, guess), count) in mistakes.iter().take(30) {
            println!("- {truth} → {guess}: {count}");
        }
    }

    println!("\n### Speed\n");
    println!("| corpus file | MB/s whatenc | MB/s chardetng | 1 KB HTML head, µs whatenc | µs chardetng |");
    println!("|---|---:|---:|---:|---:|");
    for (language, path, encodings) in sources().into_iter().take(16) {
        let text = std::fs::read_to_string(&path).unwrap();
        let text = if language == "vi" { windows_1258_form(&text) } else { text };
        let encoding = encodings[0];
        let (bytes, _) = encoding.encode(&text).unwrap();
        let html = std::fs::read_to_string(path.with_extension("html")).unwrap();
        let (page, _) = encoding.encode(&html).unwrap();
        let head = &page[..1024.min(page.len())];
        let rate = |f: &dyn Fn(&[u8]) -> &'static Encoding, input: &[u8]| {
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let start = Instant::now();
                black_box(f(black_box(input)));
                best = best.min(start.elapsed().as_secs_f64());
            }
            best
        };
        // Best of 7 rounds of 200 decisions: this VM's noise only ever adds time.
        let head_time = |f: &dyn Fn(&[u8]) -> &'static Encoding| {
            let mut best = f64::INFINITY;
            for _ in 0..7 {
                let start = Instant::now();
                for _ in 0..200 {
                    black_box(f(black_box(head)));
                }
                best = best.min(start.elapsed().as_secs_f64() / 200.0 * 1e6);
            }
            best
        };
        let mb = bytes.len() as f64 / 1e6;
        println!(
            "| {language}.txt ({}) | {:.0} | {:.0} | {:.1} | {:.1} |",
            encoding.name(),
            mb / rate(&ours, &bytes),
            mb / rate(&theirs, &bytes),
            head_time(&ours),
            head_time(&theirs)
        );
    }
}
