//! The benchmark's corpus, cases and timing, shared by the main benchmark and the
//! `fast-legacy-encode` run.
//!
//! The corpus is the UTF-8 originals in `bench/corpus/` (Wikipedia "Mars" articles,
//! CC BY-SA 3.0; see `bench/corpus/COPYRIGHT`). Every other encoding of a document
//! is generated when the benchmark runs, with whatenc's encoder in the "html" error
//! mode, and checked against encoding_rs's output.

use std::path::PathBuf;
use std::time::Duration;

use whatenc::Encoding;

/// The languages of the corpus and the legacy encodings each is measured in.
pub const LANGUAGES: &[(&str, &[&str])] = &[
    ("ar", &["windows-1256"]),
    ("cs", &["windows-1250"]),
    ("de", &["windows-1252"]),
    ("el", &["windows-1253"]),
    ("en", &["windows-1252"]),
    ("fr", &["windows-1252"]),
    ("he", &["windows-1255"]),
    ("ja", &["Shift_JIS", "EUC-JP", "ISO-2022-JP"]),
    ("ko", &["EUC-KR"]),
    ("pt", &["windows-1252"]),
    ("ru", &["windows-1251", "KOI8-R"]),
    ("th", &["windows-874"]),
    ("tr", &["windows-1254"]),
    ("vi", &["windows-1258"]),
    ("zh_cn", &["GBK", "gb18030"]),
    ("zh_tw", &["Big5"]),
];

/// One document in one encoding.
pub struct Document {
    /// Language code, e.g. "ja".
    pub language: &'static str,
    /// "html" (the full page, mostly ASCII markup) or "txt" (the article text).
    pub kind: &'static str,
    /// The encoding of `bytes`.
    pub encoding: &'static Encoding,
    /// The document in `encoding`.
    pub bytes: Vec<u8>,
    /// What decoding `bytes` gives (the original, after the "html" error mode).
    pub text: String,
    /// `text` as UTF-16.
    pub utf16: Vec<u16>,
}

impl Document {
    /// Whether the encoding is a legacy one (not UTF-8 or UTF-16).
    pub fn is_legacy(&self) -> bool {
        !["UTF-8", "UTF-16LE", "UTF-16BE"].contains(&self.encoding.name())
    }

    /// A short name for tables: "ja.txt Shift_JIS".
    pub fn name(&self) -> String {
        format!("{}.{} {}", self.language, self.kind, self.encoding.name())
    }
}

/// The directory of the UTF-8 originals.
pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every document: each language and kind as UTF-8, UTF-16LE, UTF-16BE and its
/// legacy encodings. Panics if a generated document differs from encoding_rs's.
pub fn documents() -> Vec<Document> {
    documents_matching(None)
}

/// The documents whose name ("ja.txt Shift_JIS") contains `filter`, or all.
pub fn documents_matching(filter: Option<&str>) -> Vec<Document> {
    let mut documents = Vec::new();
    for &(language, legacy) in LANGUAGES {
        for kind in ["html", "txt"] {
            let path = corpus_dir().join(format!("{language}.{kind}"));
            let original = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let names = ["UTF-8", "UTF-16LE", "UTF-16BE"].iter().chain(legacy.iter());
            for name in names {
                let encoding = Encoding::for_label(name.as_bytes()).expect("a known encoding");
                if filter.is_some_and(|f| !format!("{language}.{kind} {}", encoding.name()).contains(f)) {
                    continue;
                }
                let bytes = encode_document(&original, encoding);
                let text = encoding.decode(&bytes).0.into_owned();
                let utf16 = text.encode_utf16().collect();
                documents.push(Document { language, kind, encoding, bytes, text, utf16 });
            }
        }
    }
    documents
}

/// The original in `encoding`: "html" error mode for legacy encodings, checked
/// against encoding_rs.
fn encode_document(original: &str, encoding: &'static Encoding) -> Vec<u8> {
    match encoding.name() {
        "UTF-16LE" => original.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        "UTF-16BE" => original.encode_utf16().flat_map(u16::to_be_bytes).collect(),
        _ => {
            let (ours, _) = encoding.encode(original).expect("has an encoder");
            let peer = encoding_rs::Encoding::for_label(encoding.name().as_bytes()).expect("known to encoding_rs");
            let (theirs, _, _) = peer.encode(original);
            assert!(ours == theirs, "{}: whatenc and encoding_rs encode the document differently", encoding.name());
            ours.into_owned()
        }
    }
}

/// The operations measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    /// Bytes to `String`.
    DecodeToString,
    /// Bytes to UTF-16.
    DecodeToUtf16,
    /// `&str` to bytes.
    EncodeFromStr,
    /// UTF-16 to bytes.
    EncodeFromUtf16,
    /// UTF-8 validation (UTF-8 documents only).
    ValidateUtf8,
    /// Short pieces of a UTF-8 document to UTF-16, a new decoder each: see
    /// [`short_windows`].
    DecodeShortToUtf16,
    /// Short pieces of a UTF-8 document to a `String`, a new decoder each: see
    /// [`short_windows`].
    DecodeShortToString,
    /// A legacy document's bytes taken for UTF-8 (a page served with the wrong
    /// label), to a `String`: text of errors, one at each byte or pair that is not
    /// valid UTF-8.
    DecodeMislabeledUtf8ToString,
    /// The same, to UTF-16.
    DecodeMislabeledUtf8ToUtf16,
    /// A document's bytes (a UTF-8 or a legacy one) taken for UTF-16LE, to a
    /// `String`: lone surrogates among the units, each an error.
    DecodeMislabeledUtf16ToString,
    /// The same, to UTF-16.
    DecodeMislabeledUtf16ToUtf16,
    /// A UTF-8 document with stray bytes of another encoding (see
    /// [`with_stray_bytes`]), to a `String`: a page of UTF-8 into which some text of
    /// windows-1252 was pasted, an error every thousand bytes and valid text between.
    DecodeStrayToString,
    /// The same, to UTF-16.
    DecodeStrayToUtf16,
    /// A document's text (of a language whose legacy encoding is not windows-1252)
    /// encoded from `&str` into windows-1252 in the "html" error mode, as a form in
    /// a windows-1252 page submits it: a reference (`&#N;`) for each character
    /// windows-1252 does not have.
    EncodeWithReferencesFromStr,
    /// The same, from UTF-16.
    EncodeWithReferencesFromUtf16,
}

impl Op {
    /// The name used in result lines and tables.
    pub fn name(self) -> &'static str {
        match self {
            Op::DecodeToString => "decode to String",
            Op::DecodeToUtf16 => "decode to UTF-16",
            Op::EncodeFromStr => "encode from &str",
            Op::EncodeFromUtf16 => "encode from UTF-16",
            Op::ValidateUtf8 => "validate UTF-8",
            Op::DecodeShortToUtf16 => "decode short to UTF-16",
            Op::DecodeShortToString => "decode short to String",
            Op::DecodeMislabeledUtf8ToString => "decode as UTF-8 mislabeled to String",
            Op::DecodeMislabeledUtf8ToUtf16 => "decode as UTF-8 mislabeled to UTF-16",
            Op::DecodeMislabeledUtf16ToString => "decode as UTF-16LE mislabeled to String",
            Op::DecodeMislabeledUtf16ToUtf16 => "decode as UTF-16LE mislabeled to UTF-16",
            Op::DecodeStrayToString => "decode with stray bytes to String",
            Op::DecodeStrayToUtf16 => "decode with stray bytes to UTF-16",
            Op::EncodeWithReferencesFromStr => "encode to windows-1252 with references from &str",
            Op::EncodeWithReferencesFromUtf16 => "encode to windows-1252 with references from UTF-16",
        }
    }

    /// Every operation, in the order of the report.
    pub const ALL: [Op; 15] = [
        Op::DecodeToString,
        Op::DecodeToUtf16,
        Op::EncodeFromStr,
        Op::EncodeFromUtf16,
        Op::ValidateUtf8,
        Op::DecodeShortToUtf16,
        Op::DecodeShortToString,
        Op::DecodeMislabeledUtf8ToString,
        Op::DecodeMislabeledUtf8ToUtf16,
        Op::DecodeMislabeledUtf16ToString,
        Op::DecodeMislabeledUtf16ToUtf16,
        Op::DecodeStrayToString,
        Op::DecodeStrayToUtf16,
        Op::EncodeWithReferencesFromStr,
        Op::EncodeWithReferencesFromUtf16,
    ];

    /// The inverse of [`Op::name`].
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }
}

/// The lengths of the pieces one short-call case decodes, a new decoder each: what
/// a program decoding strings of a page or a message one at a time (a DOM's text
/// nodes, header fields, JSON strings) asks for. [`SHORT_TOTAL`] bytes in all.
pub const SHORT_LENGTHS: [usize; 16] = [16, 24, 32, 40, 48, 64, 80, 96, 112, 128, 160, 200, 256, 20, 30, 60];

/// The sum of [`SHORT_LENGTHS`]: the input of one call of a short-call case (each
/// piece may be up to three bytes shorter, cut at character boundaries).
pub const SHORT_TOTAL: usize = 1366;

/// The pieces of `text` (valid UTF-8, longer than 256 bytes) that the `call`-th call
/// of a short-call case decodes: [`SHORT_LENGTHS`] long, at offsets that change from
/// call to call, each cut at character boundaries.
pub fn short_windows(text: &str, call: u64) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let span = text.len().saturating_sub(256).max(1) as u64;
    SHORT_LENGTHS.iter().enumerate().map(move |(k, &len)| {
        let hash = (call * 16 + k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut start = ((hash >> 17) % span) as usize;
        while !text.is_char_boundary(start) {
            start += 1;
        }
        let mut end = (start + len).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        start..end
    })
}

/// How long and how often each measurement runs (`WHATENC_BENCH_MS`,
/// `WHATENC_BENCH_REPS`).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// How long each candidate runs in one repetition.
    pub duration: Duration,
    /// Repetitions; the median is reported.
    pub repetitions: usize,
    /// For a close case (see [`Settings::measure_interleaved_confirming`]), this many
    /// times `repetitions` more (`WHATENC_BENCH_CONFIRM`, default 2; 0: none).
    pub confirm: usize,
    /// Each call gets the next of [`ROTATION`] versions of the document
    /// (`WHATENC_BENCH_ROTATE=1` or `--rotate`): see [`Rotation`].
    pub rotate: bool,
}

impl Settings {
    /// From the environment, with defaults of 100 ms, 5 repetitions and 2 × 5 more
    /// for a close case.
    pub fn from_env() -> Settings {
        let number =
            |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
        Settings {
            duration: Duration::from_millis(number("WHATENC_BENCH_MS", 100)),
            repetitions: number("WHATENC_BENCH_REPS", 5) as usize,
            confirm: number("WHATENC_BENCH_CONFIRM", 2) as usize,
            rotate: number("WHATENC_BENCH_ROTATE", 0) != 0 || std::env::args().any(|a| a == "--rotate"),
        }
    }

    /// Runs `f` (which processes `input_len` bytes of input) repeatedly for the set
    /// time, `repetitions` times; returns the median throughput in MB/s of input.
    ///
    /// Measures several implementations of one case (one document, one operation),
    /// each of which processes `input_len` bytes of input per call, interleaved;
    /// returns each candidate's name and median throughput in MB/s of input, in the
    /// order given.
    ///
    /// Each candidate is called once to warm up. Then, for each of the
    /// `repetitions`, every candidate runs for the set time in turn, repetition `r`
    /// starting with candidate `r % candidates.len()`, so that a slow drift of the
    /// machine (clock frequency, other load) reaches every candidate alike and none
    /// always runs first.
    ///
    /// Time is this thread's CPU time, not wall time, so that time the scheduler
    /// gives to other processes (a build on the other core) is not counted.
    pub fn measure_interleaved(&self, input_len: usize, candidates: &mut [Candidate<'_>]) -> Vec<(&'static str, f64)> {
        self.measure_interleaved_confirming(input_len, candidates, |_| false)
    }

    /// [`Settings::measure_interleaved`], then, where `close` holds of the medians
    /// (a case whose verdict a noisy repetition could turn), [`Settings::confirm`]
    /// times as many repetitions again, the medians taken over all of them. Which
    /// cases `close` picks must not depend on which side wins, only on how near the
    /// result is, so that the second measurement can move a case either way.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatenc_bench::{Candidate, Settings};
    /// let settings = Settings { duration: Duration::from_millis(1), repetitions: 1, confirm: 2, rotate: false };
    /// let mut candidates = [Candidate::new("a", || 1), Candidate::new("b", || 2)];
    /// let rates = settings.measure_interleaved_confirming(1000, &mut candidates, |rates| rates.len() == 2);
    /// assert_eq!(rates.iter().map(|&(name, _)| name).collect::<Vec<_>>(), ["a", "b"]);
    /// assert!(rates.iter().all(|&(_, rate)| rate > 0.0));
    /// ```
    pub fn measure_interleaved_confirming(
        &self,
        input_len: usize,
        candidates: &mut [Candidate<'_>],
        close: impl Fn(&[(&'static str, f64)]) -> bool,
    ) -> Vec<(&'static str, f64)> {
        for candidate in candidates.iter_mut() {
            std::hint::black_box((candidate.run)());
        }
        let mut rates = vec![Vec::with_capacity(self.repetitions * (1 + self.confirm)); candidates.len()];
        self.repeat(input_len, candidates, 0..self.repetitions, &mut rates);
        let medians = Self::medians(candidates, &rates);
        if self.confirm == 0 || !close(&medians) {
            return medians;
        }
        self.repeat(input_len, candidates, self.repetitions..self.repetitions * (1 + self.confirm), &mut rates);
        Self::medians(candidates, &rates)
    }

    /// The `repetitions` of [`Settings::measure_interleaved`], each rate pushed to
    /// its candidate's list in `rates`.
    fn repeat(
        &self,
        input_len: usize,
        candidates: &mut [Candidate<'_>],
        repetitions: std::ops::Range<usize>,
        rates: &mut [Vec<f64>],
    ) {
        let count = candidates.len();
        for repetition in repetitions {
            for turn in 0..count {
                let index = (repetition + turn) % count;
                rates[index].push(self.rate(input_len, &mut *candidates[index].run));
                if insn_file().is_some() {
                    // Names the interval that the plugin's `blocks=` output has just
                    // closed (bench/model.py reads both).
                    println!("INTERVAL\t{}", candidates[index].name);
                }
            }
        }
    }

    /// Each candidate's name and the median of its `rates`.
    fn medians(candidates: &[Candidate<'_>], rates: &[Vec<f64>]) -> Vec<(&'static str, f64)> {
        candidates
            .iter()
            .zip(rates)
            .map(|(candidate, rates)| {
                let mut rates = rates.clone();
                rates.sort_by(f64::total_cmp);
                (candidate.name, rates.get(rates.len() / 2).copied().unwrap_or(f64::NAN))
            })
            .collect()
    }

    /// One repetition: calls `f` until the set time has passed; MB/s of input.
    ///
    /// Reading the thread's CPU clock is a system call (about 0.3 µs here), as long as
    /// a whole call on a small document that fits in L1, so the clock is read after
    /// batches of calls, the batch doubling until it takes a millisecond.
    fn rate(&self, input_len: usize, f: &mut dyn FnMut() -> usize) -> f64 {
        if let Some(file) = insn_file() {
            return insn_rate(file, input_len, f);
        }
        const BATCH_TIME: Duration = Duration::from_millis(1);
        let start = thread_cpu_time();
        let mut batch_start = start;
        let mut batch = 1u64;
        let mut iterations = 0u64;
        loop {
            for _ in 0..batch {
                std::hint::black_box(f());
            }
            iterations += batch;
            let now = thread_cpu_time();
            if now - start >= self.duration {
                return (input_len as f64 * iterations as f64) / (now - start).as_secs_f64() / 1e6;
            }
            if now - batch_start < BATCH_TIME {
                batch *= 2;
            }
            batch_start = now;
        }
    }
}

/// One implementation of a case, for [`Settings::measure_interleaved`]: a name for
/// the result line and a closure that processes the whole input once and returns
/// something derived from its output (kept from being optimized away). The closure
/// owns whatever output buffer it writes, so that candidates do not share one.
pub struct Candidate<'a> {
    /// The implementation's name, e.g. "encoding_rs".
    pub name: &'static str,
    run: Box<dyn FnMut() -> usize + 'a>,
}

impl<'a> Candidate<'a> {
    /// A candidate named `name` that runs `run`.
    pub fn new(name: &'static str, run: impl FnMut() -> usize + 'a) -> Candidate<'a> {
        Candidate { name, run: Box::new(run) }
    }
}

/// The instruction-count mode: the file named by `WHATENC_BENCH_INSNS`, where
/// `bench/qemu/insn_count.c` (a qemu-user plugin) writes the guest's instruction
/// count at each [`insn_mark`]. `bench/aarch64-insns.sh` sets it up; see there.
pub fn insn_file() -> Option<&'static str> {
    static FILE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    FILE.get_or_init(|| std::env::var("WHATENC_BENCH_INSNS").ok().filter(|f| !f.is_empty())).as_deref()
}

/// In the instruction-count mode, the rate of `f`: [`ROTATION`] calls (each version
/// of a rotating document once) between two marks, as bytes of input per thousand
/// instructions, which is MB/s on a machine that runs one instruction a nanosecond.
/// The count is exact and the same from run to run, so one repetition is enough.
fn insn_rate(file: &str, input_len: usize, f: &mut dyn FnMut() -> usize) -> f64 {
    let calls = ROTATION;
    insn_mark();
    for _ in 0..calls {
        std::hint::black_box(f());
    }
    insn_mark();
    // The plugin wrote the counts at the two marks; read after the second one, so
    // that the reading is not counted.
    let counts = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {file}: {e}"));
    let counts: Vec<u64> = counts.split_whitespace().map(|n| n.parse().expect("a count")).collect();
    let [before, after] = counts[..] else { panic!("{file}: two counts expected, found {counts:?}") };
    (input_len * calls) as f64 * 1000.0 / (after - before) as f64
}

/// The system call that `bench/qemu/insn_count.c` watches for (Linux has no call of
/// that number: it fails with ENOSYS).
pub const INSN_MARK: u64 = 0x7a7a;

/// Makes the [`INSN_MARK`] system call, at which the plugin records the count.
fn insn_mark() {
    #[cfg(target_arch = "aarch64")]
    // SAFETY: a system call that Linux does not have returns ENOSYS and touches no
    // memory; x0 (its argument and result) is declared clobbered.
    unsafe {
        std::arch::asm!("svc #0", in("x8") INSN_MARK, inlateout("x0") 0u64 => _, options(nostack));
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as above; the `syscall` instruction overwrites rcx and r11, declared
    // clobbered with rax (the number and the result).
    unsafe {
        std::arch::asm!("syscall", inlateout("rax") INSN_MARK => _, lateout("rcx") _, lateout("r11") _,
            options(nostack));
    }
    #[cfg(not(any(target_arch = "aarch64", target_arch = "x86_64")))]
    panic!(
        "the instruction-count mode runs aarch64 or x86_64 builds under qemu-user (bench/aarch64-insns.sh, bench/x86-insns.sh)"
    );
}

/// The CPU time this thread has used.
fn thread_cpu_time() -> Duration {
    cpu_time::ThreadTime::now().as_duration()
}

/// The CPU's model name (`/proc/cpuinfo`), or "unknown".
pub fn cpu_model() -> String {
    if insn_file().is_some() {
        let cpu = std::env::var("WHATENC_BENCH_QEMU_CPU").unwrap_or_default();
        return if cfg!(target_arch = "x86_64") {
            format!(
                "none timed: x86_64 instructions executed on qemu-user's model of a `{cpu}` \
                 (bench/x86-insns.sh); each rate is bytes of input per thousand instructions"
            )
        } else {
            "none timed: aarch64 instructions executed, counted under qemu-user (bench/aarch64-insns.sh); \
             each rate is bytes of input per thousand instructions"
                .into()
        };
    }
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Prints one result line: `RESULT\tdocument\top\timplementation\tMB/s`.
pub fn print_result(document: &Document, op: Op, implementation: &str, mb_per_s: f64) {
    println!("RESULT\t{}\t{}\t{implementation}\t{mb_per_s:.1}", document.name(), op.name());
}

/// One version of a document: its bytes in the document's encoding, its text and
/// its UTF-16.
pub struct Variant {
    pub bytes: Vec<u8>,
    pub text: String,
    pub units: Vec<u16>,
}

/// How many versions of each document the rotating mode cycles through.
pub const ROTATION: usize = 64;

/// The versions of a document that the calls of a case go through: in the
/// rotating mode ([`Settings::rotate`]), [`ROTATION`] versions, each the document's
/// sentences in another order (the same characters, so the same work, but an
/// order no branch predictor can learn across calls), the next one each call;
/// otherwise the document alone, every call.
pub struct Rotation {
    variants: Vec<Variant>,
    next: std::cell::Cell<usize>,
}

impl Rotation {
    pub fn new(document: &Document, rotate: bool) -> Rotation {
        let original =
            Variant { bytes: document.bytes.clone(), text: document.text.clone(), units: document.utf16.clone() };
        let mut variants = vec![original];
        if rotate {
            let sentences = sentences(&document.text);
            let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ document.bytes.len() as u64;
            for _ in 1..ROTATION {
                let mut order: Vec<&str> = sentences.clone();
                // Fisher–Yates with xorshift64*.
                for i in (1..order.len()).rev() {
                    state ^= state >> 12;
                    state ^= state << 25;
                    state ^= state >> 27;
                    let j = (state.wrapping_mul(0x2545_F491_4F6C_DD1D) % (i as u64 + 1)) as usize;
                    order.swap(i, j);
                }
                let text: String = order.concat();
                let bytes = encode_document(&text, document.encoding);
                // The text as decoding gives it (the same, for every encoding of the corpus).
                let text = document.encoding.decode(&bytes).0.into_owned();
                let units = text.encode_utf16().collect();
                variants.push(Variant { bytes, text, units });
            }
        }
        Rotation { variants, next: std::cell::Cell::new(0) }
    }

    /// The same versions of a UTF-8 document with stray bytes (see
    /// [`with_stray_bytes`]); their text and UTF-16 are what decoding them gives.
    pub fn with_stray_bytes(&self) -> Rotation {
        let variants = self
            .variants
            .iter()
            .map(|variant| {
                let bytes = with_stray_bytes(&variant.bytes);
                let text = whatenc::UTF_8.decode(&bytes).0.into_owned();
                let units = text.encode_utf16().collect();
                Variant { bytes, text, units }
            })
            .collect();
        Rotation { variants, next: std::cell::Cell::new(0) }
    }

    /// The version for this call; the next call gets the next one.
    pub fn next(&self) -> &Variant {
        let i = self.next.get();
        self.next.set((i + 1) % self.variants.len());
        &self.variants[i]
    }

    /// The greatest length of the versions, by `len`, for the buffers.
    pub fn max_len(&self, len: impl Fn(&Variant) -> usize) -> usize {
        self.variants.iter().map(len).max().unwrap_or(0)
    }

    /// The mean length of the versions, by `len`, for the MB/s of a case.
    pub fn mean_len(&self, len: impl Fn(&Variant) -> usize) -> usize {
        self.variants.iter().map(len).sum::<usize>() / self.variants.len()
    }
}

/// How far apart [`with_stray_bytes`] puts its stray bytes.
pub const STRAY_EVERY: usize = 1000;

/// UTF-8 `bytes` with a byte of windows-1252, 0xE9 (é), inserted at the first
/// character boundary at or after each multiple of [`STRAY_EVERY`] (from the
/// middle of the first): each is an error of one byte, as the decoders see it.
///
/// ```
/// let bytes = "añb".repeat(400).into_bytes();
/// let stray = whatenc_bench::with_stray_bytes(&bytes);
/// assert_eq!(stray.len(), bytes.len() + 2);
/// assert_eq!(whatenc::UTF_8.decode(&stray).0.matches('\u{FFFD}').count(), 2);
/// ```
pub fn with_stray_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / STRAY_EVERY + 1);
    let mut next = STRAY_EVERY / 2;
    for (i, &byte) in bytes.iter().enumerate() {
        // A character boundary: any byte but a continuation byte.
        if i >= next && (byte as i8) >= -0x40 {
            out.push(0xE9);
            next += STRAY_EVERY;
        }
        out.push(byte);
    }
    out
}

/// The sentences of a text, each with what ends it (". ", "。", a line break, ...),
/// so that their concatenation is the text.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end_here = match c {
            '\n' | '。' | '！' | '？' => true,
            '.' | '!' | '?' => chars.peek().is_some_and(|&(_, next)| next == ' '),
            _ => false,
        };
        if end_here {
            let mut end = i + c.len_utf8();
            if let Some(&(j, ' ')) = chars.peek() {
                end = j + 1;
                chars.next();
            }
            out.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}
