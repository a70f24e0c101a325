//! A statistical encoding detector for unlabeled bytes: the detector step of
//! encoding determination (HTML's step 8, "UNIVCHARDET").
//!
//! Feed an [`EncodingDetector`] the bytes in chunks of any size, then ask it to
//! [`guess`](EncodingDetector::guess). It keeps no copy of the input and a fixed
//! amount of state (no allocation while feeding).
//!
//! # How it decides
//!
//! Each candidate encoding reads the same bytes:
//! - **An error is disqualifying.** A candidate is out at its first byte that is an
//!   error in it, or that decodes to a C1 control (no text has those). UTF-8 wins
//!   when it is allowed and the non-ASCII input is valid UTF-8.
//! - **Single-byte encodings** (windows-1250 to -1258, ISO-8859-2, -4, -5, -6, -7,
//!   -8, -13, -15, KOI8-U, IBM866, x-mac-cyrillic, windows-874) are grouped by the
//!   languages they serve (Western, Central European, Baltic, Turkish, Vietnamese,
//!   Cyrillic, Greek, Hebrew, Arabic, Thai). Each language of a group has a trained
//!   model of character pairs: the cost −ln P(class | previous class) over the
//!   group's case-folded alphabet, with classes for ASCII non-letters, punctuation,
//!   symbols, opening and closing quotes, vowel marks, letters foreign to the group
//!   and, in non-Latin groups, Latin letters (so Latin next to non-Latin costs what
//!   it costs in real text: much). Each pair with a non-ASCII byte is scored for
//!   each language; the candidate's cost is its best language's (plus ln of the
//!   number of languages it chose from).
//! - **Case**: an upper-case letter costs a little (less after a line break, quote
//!   or bracket), and one right after a lower-case letter much more ("odd case
//!   alternation"): the models are case-folded.
//! - **The language around**: ASCII decodes alike in every candidate, but tells the
//!   Latin languages apart. Pairs with an ASCII letter, from 64 bytes before the
//!   first non-ASCII byte on (at most 384), are scored for each Latin language
//!   against their average; the best fit saves at most a cap. Non-Latin and CJK
//!   readings pay a little for each ASCII letter, up to the same scale.
//! - **CJK encodings** (Shift_JIS, EUC-JP, ISO-2022-JP, GBK, Big5, EUC-KR) are
//!   checked by their decoders' valid-sequence structure, and each non-ASCII
//!   character costs −ln P(character) in its language (Simplified or Traditional
//!   Chinese, Japanese, Korean) from a table of the most frequent characters, a
//!   constant for order it cannot see, and more next to an ASCII letter.
//! - The cheapest candidate wins; a small prior cost orders encodings that decode
//!   most text alike (windows-1257 before ISO-8859-13), and a top-level-domain or
//!   locale hint makes the hinted languages' encodings cheaper. A character cut at
//!   the end costs what an odd character does, or is an error after
//!   [`finish`](EncodingDetector::finish).
//! - Pure ASCII (and empty input) gives the caller's default, not a guess; so does
//!   ISO-2022-JP unless allowed, and UTF-16 without a BOM unless allowed.
//!   x-user-defined and replacement are never guessed.
//!
//! The tables (`src/tables/detect.rs`) are trained by `cargo xtask train-detector`
//! from word-frequency lists fetched from PyPI (wordfreq, pythainlp), named with
//! their versions, checksums and licenses in the file's header.
//!
//! ```
//! use whatenc::detect::{DetectOptions, EncodingDetector};
//! let mut detector = EncodingDetector::new();
//! detector.feed(b"\xcf\xf0\xe8\xe2\xe5\xf2, ");
//! detector.feed(b"\xec\xe8\xf0!");
//! let guess = detector.guess(&DetectOptions::default());
//! assert_eq!(guess.encoding, whatenc::WINDOWS_1251);
//! ```

mod model;
#[path = "../tables/detect.rs"]
#[rustfmt::skip]
#[allow(clippy::all)]
mod tables;

use alloc::vec::Vec;

use crate::decoder::{Decoder, DecoderOptions, DecoderResult, ErrorMode};
use crate::encoding::{
    BIG5, EUC_JP, EUC_KR, Encoding, GBK, ISO_2022_JP, SHIFT_JIS, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252,
};
use crate::sniff::Detector;
use model::{COLUMN_JA, COLUMN_KO, COLUMN_ZH_HANS, COLUMN_ZH_HANT, INVALID, ODD, UPPER, case_penalty, cjk_cost, opens};
use tables::{CJK_COLUMNS, GROUP_NAMES, GROUPS, LATIN_ASCII, LATIN_LANGUAGES, LEVELS, MODELS, SINGLE_BYTE};

/// The single-byte candidates' count.
const SINGLE: usize = SINGLE_BYTE.len();
/// The CJK candidates: encoding, column, prior cost.
const CJK: [(&&Encoding, usize, u32); 6] = [
    (&GBK, COLUMN_ZH_HANS, 0),
    (&BIG5, COLUMN_ZH_HANT, 0),
    (&SHIFT_JIS, COLUMN_JA, 0),
    (&EUC_JP, COLUMN_JA, 2),
    (&ISO_2022_JP, COLUMN_JA, 0),
    (&EUC_KR, COLUMN_KO, 0),
];
const ISO_2022_JP_INDEX: usize = 4;
/// Bytes scored per step: bounds the stack buffers.
const WINDOW: usize = 1024;
/// What a hinted language's candidates are spared (about e^-4).
const HINT_BONUS: u64 = 64;
/// A candidate this far behind the best (about 200 nats) at a 1 KB boundary is
/// out: no hint or prior comes near, and it would take kilobytes to come back.
const PRUNE: u64 = 3200;
/// Pruning starts once this much was fed: before, the evidence is too thin to
/// give up on anything (an HTML head's markup, a title).
const PRUNE_FROM: u64 = 4096;
/// The most languages a group has.
const MAX_LANGUAGES: usize = 16;
/// ASCII pairs are scored from this many bytes before the first non-ASCII byte
/// on: the language around the non-ASCII letters.
const LOOKBACK: usize = 64;
/// At most this many ASCII pairs with a letter are scored: enough to tell the
/// language, and a bound on the work.
const ASCII_PAIRS: u32 = 384;
/// The most that fitting the ASCII text better than the average Latin language
/// can save a Latin language (so that long markup does not decide against
/// non-Latin candidates, which are charged per ASCII letter up to a cap).
const ASCII_GAIN_CAP: i64 = 320;
/// Each ASCII letter in a non-Latin group's reading: Latin words are rare in its
/// prose (about e^-0.75 a letter, up to a cap so that long markup does not decide).
const NON_LATIN_ASCII_LETTER: u64 = 12;
const NON_LATIN_ASCII_CAP: u64 = 320;
/// A non-ASCII character of a CJK candidate next to an ASCII letter: Latin next to
/// non-Latin, which CJK prose has rarely (about e^-4).
const LATIN_ADJACENT: u64 = 64;

/// How to guess: which encodings may win, a hint, and the answer for ASCII.
///
/// ```
/// use whatenc::detect::DetectOptions;
/// let options = DetectOptions { tld: Some("ru"), ..DetectOptions::default() };
/// assert!(options.allow_utf8);
/// assert_eq!(options.default, whatenc::WINDOWS_1252);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DetectOptions<'a> {
    /// Whether UTF-8 may be guessed (valid non-ASCII UTF-8 then wins). HTML's
    /// determination disallows it for content from the network; files allow it.
    pub allow_utf8: bool,
    /// Whether ISO-2022-JP may be guessed (7-bit input with its escapes).
    pub allow_iso_2022_jp: bool,
    /// Whether UTF-16 without a BOM may be guessed, for text files: when at least
    /// half the bytes at even offsets are zero and at most an eighth of the odd
    /// ones (UTF-16BE), or the other way round (UTF-16LE). This finds text that is
    /// mostly below U+0100 (ASCII, Latin-1); other UTF-16 needs its BOM.
    pub allow_utf16: bool,
    /// The top-level domain the bytes came from (`"ru"`, `"co.jp"`,
    /// `"example.com.tw"`): its languages' encodings are favoured.
    pub tld: Option<&'a str>,
    /// The user's locale or the content's language (`"ru"`, `"zh-TW"`, `"pl_PL"`):
    /// its encodings are favoured.
    pub locale: Option<&'a str>,
    /// The answer for pure ASCII and empty input (and when every candidate fails).
    pub default: &'static Encoding,
}

impl Default for DetectOptions<'_> {
    /// UTF-8 and ISO-2022-JP allowed, UTF-16 without a BOM not, no hint,
    /// windows-1252 as the default.
    fn default() -> Self {
        DetectOptions {
            allow_utf8: true,
            allow_iso_2022_jp: true,
            allow_utf16: false,
            tld: None,
            locale: None,
            default: WINDOWS_1252,
        }
    }
}

/// The detector's answer.
///
/// ```
/// use whatenc::detect::{DetectOptions, EncodingDetector};
/// let guess = EncodingDetector::new().guess(&DetectOptions::default());
/// assert_eq!((guess.encoding, guess.guessed, guess.confidence), (whatenc::WINDOWS_1252, false, 0.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Guess {
    /// The encoding.
    pub encoding: &'static Encoding,
    /// From 0 (a coin toss, or no guess at all) towards 1: how far ahead of the
    /// runner-up the winner is (`margin / (margin + 64)`, the margin in cost units of
    /// 1/16 nat). Only a ranking signal, not a calibrated probability.
    pub confidence: f32,
    /// False when the answer is the default: pure ASCII, empty input, or no
    /// candidate without an error.
    pub guessed: bool,
}

/// One candidate in [`EncodingDetector::candidates`]: the lower the cost, the
/// likelier.
///
/// ```
/// use whatenc::detect::{DetectOptions, EncodingDetector};
/// let mut detector = EncodingDetector::new();
/// detector.feed("Žluťoučký kůň".as_bytes());
/// let ranked = detector.candidates(&DetectOptions::default());
/// assert_eq!(ranked[0].encoding, whatenc::UTF_8);
/// assert!(ranked.iter().all(|c| c.encoding != whatenc::X_USER_DEFINED));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The encoding.
    pub encoding: &'static Encoding,
    /// Whether the input is free of errors (and C1 controls) in it, and the
    /// candidate has not fallen hopelessly behind (by about 200 nats, checked at
    /// each kilobyte from the fourth on: such a candidate is out too).
    pub valid: bool,
    /// For a valid candidate, its cost (about 16 per nat of surprise), with its
    /// prior and any hint; for an invalid one, the offset of its first error.
    pub cost: u64,
}

#[derive(Debug, Clone, Copy)]
struct SingleByteState {
    /// Per language of the group: the pairs' costs.
    costs: [u64; MAX_LANGUAGES],
    /// Case penalties, the same for every language.
    penalty: u64,
    /// The class of the last byte fed.
    previous: u8,
    previous_high: bool,
    /// Whether the last byte fed opens a sentence or a quote (or none was fed).
    previous_opens: bool,
    dead_at: Option<u64>,
}

#[derive(Debug, Clone)]
struct CjkState {
    decoder: Decoder,
    cost: u64,
    /// Non-ASCII characters decoded.
    characters: u64,
    /// Whether the last character was an ASCII letter, or non-ASCII.
    previous_letter: bool,
    previous_non_ascii: bool,
    dead_at: Option<u64>,
}

/// A streaming statistical detector: [`feed`](Self::feed) it chunks, then
/// [`guess`](Self::guess). Its state has a fixed size; feeding never allocates.
///
/// ```
/// use whatenc::detect::{DetectOptions, EncodingDetector};
/// let (bytes, _) = whatenc::SHIFT_JIS.encode("日本語のテキストです。").unwrap();
/// let mut detector = EncodingDetector::new();
/// for chunk in bytes.chunks(3) {
///     detector.feed(chunk);
/// }
/// assert_eq!(detector.guess(&DetectOptions::default()).encoding, whatenc::SHIFT_JIS);
/// ```
#[derive(Debug, Clone)]
pub struct EncodingDetector {
    /// The candidates' readings, from the first non-ASCII byte or ESC on (before
    /// it, every reading is the same ASCII and needs no state).
    readings: Option<Readings>,
    non_ascii: bool,
    escape: bool,
    /// Zero bytes at even and at odd offsets (for UTF-16 without a BOM).
    zeros: [u64; 2],
    /// ASCII letters fed (counted up to the cap's worth).
    ascii_letters: u64,
    /// How often each pair of ASCII classes (none or a letter, see
    /// [`score_ascii_pairs`]) with a letter was scored: ASCII decodes alike in every
    /// candidate, but tells Latin languages apart ([`EncodingDetector::ascii_costs`]).
    ascii_counts: [u16; 27 * 27],
    /// The [`ascii_costs`](EncodingDetector::ascii_costs) when this many pairs
    /// were counted, kept by each pruning.
    ascii_totals: (u32, [i64; LATIN_LANGUAGES]),
    /// ASCII pairs with a letter scored so far.
    ascii_pairs: u32,
    /// The last bytes before the first non-ASCII byte (for the lookback).
    tail: [u8; LOOKBACK + 1],
    tail_len: usize,
    /// The last byte fed.
    last_byte: Option<u8>,
    fed: u64,
    /// The ASCII prefix that the CJK decoders skipped (they have no state there).
    skipped: u64,
    finished: bool,
}

/// Each candidate's reading of the input.
#[derive(Debug, Clone)]
struct Readings {
    single_byte: [SingleByteState; SINGLE],
    cjk: [CjkState; 6],
    utf8: Decoder,
    utf8_valid: bool,
    /// Non-ASCII characters in the UTF-8 reading.
    utf8_characters: u64,
}

impl Readings {
    /// The readings after an ASCII prefix ending with `last`.
    fn after_ascii(last: Option<u8>) -> Readings {
        let letter = last.is_some_and(|b| b.is_ascii_alphabetic());
        let mut single_byte = [SingleByteState {
            costs: [0; MAX_LANGUAGES],
            penalty: 0,
            previous: 0,
            previous_high: false,
            previous_opens: last.is_none_or(opens),
            dead_at: None,
        }; SINGLE];
        for (state, candidate) in single_byte.iter_mut().zip(SINGLE_BYTE.iter()) {
            state.previous = last.map_or(0, |b| candidate.map[b as usize]);
        }
        Readings {
            single_byte,
            cjk: CJK.map(|(encoding, _, _)| CjkState {
                decoder: fatal_decoder(encoding),
                cost: 0,
                characters: 0,
                previous_letter: letter,
                previous_non_ascii: false,
                dead_at: None,
            }),
            utf8: fatal_decoder(UTF_8),
            utf8_valid: true,
            utf8_characters: 0,
        }
    }
}

impl Default for EncodingDetector {
    fn default() -> Self {
        Self::new()
    }
}

fn fatal_decoder(encoding: &'static Encoding) -> Decoder {
    encoding.new_decoder_with(DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() })
}

impl EncodingDetector {
    /// A detector that has seen nothing.
    ///
    /// ```
    /// let detector = whatenc::detect::EncodingDetector::new();
    /// assert!(!detector.seen_non_ascii());
    /// ```
    pub fn new() -> Self {
        EncodingDetector {
            readings: None,
            non_ascii: false,
            escape: false,
            ascii_letters: 0,
            zeros: [0; 2],
            ascii_counts: [0; 27 * 27],
            ascii_totals: (0, [0; LATIN_LANGUAGES]),
            ascii_pairs: 0,
            tail: [0; LOOKBACK + 1],
            tail_len: 0,
            last_byte: None,
            fed: 0,
            skipped: 0,
            finished: false,
        }
    }

    /// Whether any byte fed so far was non-ASCII.
    ///
    /// ```
    /// let mut detector = whatenc::detect::EncodingDetector::new();
    /// detector.feed(b"plain");
    /// assert!(!detector.seen_non_ascii());
    /// detector.feed(b"\xE9");
    /// assert!(detector.seen_non_ascii());
    /// ```
    pub fn seen_non_ascii(&self) -> bool {
        self.non_ascii
    }

    /// Feeds the next chunk of the input (any size, cut anywhere, even inside a
    /// character). Returns whether any candidate is still without an error
    /// (false after [`finish`](Self::finish), which ends the input).
    ///
    /// ```
    /// let mut detector = whatenc::detect::EncodingDetector::new();
    /// assert!(detector.feed(b"caf\xE9"));
    /// ```
    pub fn feed(&mut self, chunk: &[u8]) -> bool {
        if self.finished {
            return false;
        }
        // Windows end at absolute multiples of WINDOW, so that the state there (and
        // what pruning does with it) is the same however the input is cut.
        let mut rest = chunk;
        while !rest.is_empty() {
            let room = WINDOW - (self.fed % WINDOW as u64) as usize;
            let (window, after) = rest.split_at(room.min(rest.len()));
            self.feed_window(window);
            rest = after;
            if self.fed.is_multiple_of(WINDOW as u64) && self.fed >= PRUNE_FROM {
                self.prune();
            }
        }
        self.readings.as_ref().is_none_or(|r| {
            r.single_byte.iter().any(|s| s.dead_at.is_none())
                || r.cjk.iter().any(|c| c.dead_at.is_none())
                || r.utf8_valid
        })
    }

    fn feed_window(&mut self, window: &[u8]) {
        if window.is_empty() {
            return;
        }
        if window.contains(&0) {
            let parity = (self.fed & 1) as usize;
            for (i, &byte) in window.iter().enumerate() {
                self.zeros[(i + parity) & 1] += (byte == 0) as u64;
            }
        }
        let plain = plain_ascii(window);
        let escape = !plain && window.contains(&0x1B);
        // Counted up to the cap's worth only (the same however the input is cut).
        let wanted = NON_LATIN_ASCII_CAP.div_ceil(NON_LATIN_ASCII_LETTER) - self.ascii_letters;
        if wanted > 0 {
            self.ascii_letters +=
                window.iter().filter(|b| b.is_ascii_alphabetic()).take(wanted as usize).count() as u64;
        }
        if self.readings.is_none() {
            if plain {
                // The ASCII fast path: no reading has anything to do yet.
                self.score_ascii(window, None);
                self.fed += window.len() as u64;
                return;
            }
            // The CJK decoders start here: ASCII leaves them as they were.
            self.skipped = self.fed;
            self.readings = Some(Readings::after_ascii(self.last_byte));
        }
        let mut highs = [0u16; WINDOW];
        let mut count = 0;
        for (i, &byte) in window.iter().enumerate() {
            highs[count] = i as u16;
            count += (byte >= 0x80) as usize;
        }
        let highs = &highs[..count];
        self.score_ascii(window, highs.first().map(|&i| i as usize));
        // UTF-8 is checked from the first non-ASCII byte on (no state before it).
        self.non_ascii |= count > 0;
        self.escape |= escape;
        let start = self.fed;
        self.fed += window.len() as u64;
        let Some(readings) = self.readings.as_mut() else { return };
        for (state, candidate) in readings.single_byte.iter_mut().zip(SINGLE_BYTE.iter()) {
            if state.dead_at.is_none() {
                score_single_byte(state, candidate, window, highs, start);
            }
        }
        let mut units = [0u16; WINDOW + 8];
        for (state, &(_, column, _)) in readings.cjk.iter_mut().zip(CJK.iter()) {
            if state.dead_at.is_none() {
                score_cjk(state, column, window, &mut units, self.skipped);
            }
        }
        if readings.utf8_valid && self.non_ascii {
            let (valid, characters) = valid_so_far(&mut readings.utf8, window, &mut units);
            readings.utf8_valid = valid;
            readings.utf8_characters += characters;
        }
    }

    /// Scores the ASCII pairs of `window` for the Latin languages: all of them once
    /// a non-ASCII byte was seen, else only those of the lookback before the first
    /// (`first`: its offset in `window`).
    fn score_ascii(&mut self, window: &[u8], first: Option<usize>) {
        let Some(&last) = window.last() else { return };
        if self.ascii_pairs >= ASCII_PAIRS {
            // Done.
        } else if self.non_ascii {
            let previous = self.last_byte;
            score_ascii_pairs(&mut self.ascii_counts, &mut self.ascii_pairs, previous, window);
        } else if let Some(first) = first {
            // The lookback: the tail of earlier windows and this window's start.
            let mut lookback = [0u8; 2 * LOOKBACK + 2];
            let from_window = first.min(LOOKBACK + 1);
            let from_tail = (LOOKBACK + 1 - from_window).min(self.tail_len);
            lookback[..from_tail].copy_from_slice(&self.tail[self.tail_len - from_tail..self.tail_len]);
            lookback[from_tail..from_tail + from_window].copy_from_slice(&window[first - from_window..first]);
            let lookback = &lookback[..from_tail + from_window];
            score_ascii_pairs(&mut self.ascii_counts, &mut self.ascii_pairs, None, lookback);
            score_ascii_pairs(
                &mut self.ascii_counts,
                &mut self.ascii_pairs,
                lookback.last().copied(),
                &window[first..],
            );
        } else {
            // Keep the last LOOKBACK + 1 bytes.
            let take = window.len().min(LOOKBACK + 1);
            let keep = (LOOKBACK + 1 - take).min(self.tail_len);
            self.tail.copy_within(self.tail_len - keep..self.tail_len, 0);
            self.tail[keep..keep + take].copy_from_slice(&window[window.len() - take..]);
            self.tail_len = keep + take;
        }
        self.last_byte = Some(last);
    }

    /// Declares the end of the input: an incomplete character at the end is then
    /// an error (without this call it costs what an odd character costs, as the
    /// input may have been cut). Feeding after it is ignored.
    ///
    /// ```
    /// use whatenc::detect::{DetectOptions, EncodingDetector};
    /// let mut detector = EncodingDetector::new();
    /// detector.feed("é".as_bytes());
    /// detector.feed(b"\xC3");
    /// detector.finish();
    /// let options = DetectOptions::default();
    /// assert_ne!(detector.guess(&options).encoding, whatenc::UTF_8);
    /// ```
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let Some(readings) = self.readings.as_mut() else { return };
        let mut units = [0u16; 8];
        for state in readings.cjk.iter_mut().filter(|s| s.dead_at.is_none()) {
            if state.decoder.decode_to_utf16(&[], &mut units, true).result.is_malformed() {
                state.dead_at = Some(self.fed);
            }
        }
        if readings.utf8_valid && readings.utf8.decode_to_utf16(&[], &mut units, true).result.is_malformed() {
            readings.utf8_valid = false;
        }
    }

    /// The guess: see the [module docs](self) for how it decides.
    ///
    /// ```
    /// use whatenc::detect::{DetectOptions, EncodingDetector};
    /// let mut detector = EncodingDetector::new();
    /// detector.feed(b"just ASCII");
    /// let options = DetectOptions { default: whatenc::UTF_8, ..DetectOptions::default() };
    /// assert_eq!(detector.guess(&options).encoding, whatenc::UTF_8);
    /// assert!(!detector.guess(&options).guessed);
    /// ```
    pub fn guess(&self, options: &DetectOptions<'_>) -> Guess {
        if options.allow_utf16
            && let Some(encoding) = self.utf16()
        {
            return Guess { encoding, confidence: 1.0, guessed: true };
        }
        let mut best: Option<Candidate> = None;
        let mut second: Option<u64> = None;
        self.each_candidate(options, |candidate| {
            if !candidate.valid {
                return;
            }
            match best {
                Some(b) if b.cost <= candidate.cost => {
                    if second.is_none_or(|s| candidate.cost < s) {
                        second = Some(candidate.cost);
                    }
                }
                _ => {
                    second = best.map(|b| b.cost);
                    best = Some(candidate);
                }
            }
        });
        match best {
            Some(best) if self.non_ascii || best.encoding == ISO_2022_JP => {
                let margin = second.map_or(1024, |s| s - best.cost) as f32;
                Guess { encoding: best.encoding, confidence: margin / (margin + 64.0), guessed: true }
            }
            _ => Guess { encoding: options.default, confidence: 0.0, guessed: false },
        }
    }

    /// UTF-16 by its zero bytes: see [`DetectOptions::allow_utf16`].
    fn utf16(&self) -> Option<&'static Encoding> {
        let units = self.fed / 2;
        let [even, odd] = self.zeros;
        if units == 0 {
            None
        } else if even * 2 >= units && odd * 8 <= units {
            Some(UTF_16BE)
        } else if odd * 2 >= units && even * 8 <= units {
            Some(UTF_16LE)
        } else {
            None
        }
    }

    /// Every candidate that the options allow, cheapest first, the invalid ones
    /// last (latest error first). Empty for pure ASCII input.
    ///
    /// ```
    /// use whatenc::detect::{DetectOptions, EncodingDetector};
    /// let mut detector = EncodingDetector::new();
    /// detector.feed(b"\xC1\xC2");
    /// let ranked = detector.candidates(&DetectOptions { allow_utf8: false, ..DetectOptions::default() });
    /// assert!(ranked[0].valid && !ranked.last().unwrap().valid);
    /// ```
    pub fn candidates(&self, options: &DetectOptions<'_>) -> Vec<Candidate> {
        let mut out = Vec::new();
        if self.non_ascii || self.escape {
            self.each_candidate(options, |candidate| out.push(candidate));
        }
        out.sort_by_key(|c| (!c.valid, if c.valid { c.cost } else { u64::MAX - c.cost }));
        out
    }

    /// A single-byte candidate's cost, with its prior, without hints.
    /// Per Latin language: its ASCII pairs' costs above the Latin languages' average,
    /// times their count.
    fn ascii_costs(&self) -> [i64; LATIN_LANGUAGES] {
        if self.ascii_totals.0 == self.ascii_pairs {
            return self.ascii_totals.1;
        }
        let mut totals = [0i64; LATIN_LANGUAGES];
        for (row, &count) in LATIN_ASCII.iter().zip(&self.ascii_counts) {
            if count == 0 {
                continue;
            }
            let costs: [i64; LATIN_LANGUAGES] =
                core::array::from_fn(|l| LEVELS[((row[l >> 1] >> ((l & 1) * 4)) & 15) as usize] as i64);
            let sum: i64 = costs.iter().sum();
            for (total, &cost) in totals.iter_mut().zip(&costs) {
                *total += (cost * LATIN_LANGUAGES as i64 - sum) * count as i64;
            }
        }
        totals
    }

    /// A single-byte candidate's cost, with its prior, without hints (`ascii`: the
    /// [`ascii_costs`](Self::ascii_costs)).
    fn single_byte_cost(
        &self,
        state: &SingleByteState,
        candidate: &model::SingleByteCandidate,
        ascii: &[i64; LATIN_LANGUAGES],
    ) -> u64 {
        let group = &GROUPS[candidate.group];
        let languages = group.models.end - group.models.start;
        let latin_letters = if group.latin {
            0
        } else {
            (self.ascii_letters * NON_LATIN_ASCII_LETTER).min(NON_LATIN_ASCII_CAP) + ASCII_GAIN_CAP as u64
        };
        // Latin languages: their ASCII fit (non-Latin groups: zeros, unused).
        let ascii_term = |l: usize| {
            if group.latin {
                let fit = ascii[group.models.start + l] / LATIN_LANGUAGES as i64;
                (fit.max(-ASCII_GAIN_CAP) + ASCII_GAIN_CAP) as u64
            } else {
                0
            }
        };
        // Choosing the best of L languages is worth ln L nats of luck.
        let choice = [0, 0, 11, 18, 22, 26, 29, 31, 35, 37, 38, 40, 41, 42, 43, 44, 45][languages.min(16)];
        (0..languages).map(|l| state.costs[l] + ascii_term(l)).min().unwrap_or(0)
            + choice
            + state.penalty
            + latin_letters
            + candidate.prior as u64
    }

    /// A CJK candidate's cost, with its prior, without hints or a cut character.
    fn cjk_cost(&self, state: &CjkState, prior: u32) -> u64 {
        // Charged like the non-Latin groups for ASCII letters, and for the Latin
        // languages' best possible ASCII fit.
        state.cost
            + (self.ascii_letters * NON_LATIN_ASCII_LETTER).min(NON_LATIN_ASCII_CAP)
            + ASCII_GAIN_CAP as u64
            + prior as u64
    }

    /// Puts out the candidates that have fallen hopelessly behind the best (by
    /// [`PRUNE`]): they cannot come back, and they cost time. Called at absolute
    /// multiples of [`WINDOW`] only, so that it does not depend on the chunking.
    fn prune(&mut self) {
        if self.readings.is_none() || !self.non_ascii {
            return;
        }
        let ascii = self.ascii_costs();
        self.ascii_totals = (self.ascii_pairs, ascii);
        let Some(readings) = &self.readings else { return };
        let single: [Option<u64>; SINGLE] = core::array::from_fn(|i| {
            let state = &readings.single_byte[i];
            state.dead_at.is_none().then(|| self.single_byte_cost(state, &SINGLE_BYTE[i], &ascii))
        });
        let cjk: [Option<u64>; 6] = core::array::from_fn(|i| {
            let state = &readings.cjk[i];
            (state.dead_at.is_none() && i != ISO_2022_JP_INDEX).then(|| self.cjk_cost(state, CJK[i].2))
        });
        let Some(best) = single.iter().chain(cjk.iter()).flatten().min().copied() else { return };
        let fed = self.fed;
        let Some(readings) = &mut self.readings else { return };
        for (state, cost) in readings.single_byte.iter_mut().zip(single) {
            if cost.is_some_and(|c| c > best + PRUNE) {
                state.dead_at = Some(fed);
            }
        }
        for (state, cost) in readings.cjk.iter_mut().zip(cjk) {
            if cost.is_some_and(|c| c > best + PRUNE) {
                state.dead_at = Some(fed);
            }
        }
    }

    fn each_candidate(&self, options: &DetectOptions<'_>, mut f: impl FnMut(Candidate)) {
        let Some(readings) = &self.readings else { return };
        let hints = hinted(options);
        if options.allow_utf8 && self.non_ascii {
            // A cut character at the end is no evidence: there must be a whole one.
            let valid = readings.utf8_valid && (readings.utf8_characters > 0 || !pending(&readings.utf8));
            f(Candidate { encoding: UTF_8, valid, cost: 0 });
            if valid {
                return;
            }
        }
        let ascii = if self.non_ascii { self.ascii_costs() } else { [0; LATIN_LANGUAGES] };
        for (state, candidate) in readings.single_byte.iter().zip(SINGLE_BYTE.iter()) {
            if !self.non_ascii {
                break;
            }
            let bonus = if hints & (1 << candidate.group) != 0 { HINT_BONUS } else { 0 };
            let cost = self.single_byte_cost(state, candidate, &ascii);
            f(match state.dead_at {
                None => Candidate {
                    encoding: candidate.encoding,
                    valid: true,
                    cost: (cost + HINT_BONUS).saturating_sub(bonus),
                },
                Some(at) => Candidate { encoding: candidate.encoding, valid: false, cost: at },
            });
        }
        for (i, (state, &(encoding, column, prior))) in readings.cjk.iter().zip(CJK.iter()).enumerate() {
            if i == ISO_2022_JP_INDEX && (!options.allow_iso_2022_jp || !self.escape || self.non_ascii) {
                continue;
            }
            if i != ISO_2022_JP_INDEX && !self.non_ascii {
                continue;
            }
            let bonus = if hints & (1 << (GROUP_NAMES.len() + column)) != 0 { HINT_BONUS } else { 0 };
            let cut = if pending(&state.decoder) { ODD as u64 } else { 0 };
            f(match state.dead_at {
                None => Candidate {
                    encoding,
                    valid: state.characters > 0 || i != ISO_2022_JP_INDEX,
                    cost: (self.cjk_cost(state, prior) + cut + HINT_BONUS).saturating_sub(bonus),
                },
                Some(at) => Candidate { encoding, valid: false, cost: at },
            });
        }
    }
}

/// Scores the pairs with a non-ASCII byte in `window` (`highs`: the offsets of its
/// non-ASCII bytes) for each language of the candidate's group, carrying the last
/// byte's class to the next window.
fn score_single_byte(
    state: &mut SingleByteState,
    candidate: &model::SingleByteCandidate,
    window: &[u8],
    highs: &[u16],
    start: u64,
) {
    let Some(&last) = window.last() else { return };
    let map = candidate.map;
    let group = &GROUPS[candidate.group];
    let models = &MODELS[group.models.clone()];
    let classes = group.classes;
    let costs = &mut state.costs[..models.len()];
    let mut penalty = 0;
    let mut pair = |previous: u8, current: u8, opens: bool| {
        let at = (previous & !UPPER) as usize * classes + (current & !UPPER) as usize;
        for (cost, model) in costs.iter_mut().zip(models) {
            *cost += LEVELS[((model[at >> 1] >> ((at & 1) * 4)) & 15) as usize] as u64;
        }
        penalty += case_penalty(previous, current, opens) as u64;
    };
    if state.previous_high && window[0] < 0x80 {
        pair(state.previous, map[window[0] as usize], false);
    }
    for &i in highs {
        let i = i as usize;
        let current = map[window[i] as usize];
        if current == INVALID {
            state.dead_at = Some(start + i as u64);
            return;
        }
        let (previous, after_opening) = if i == 0 {
            (state.previous, state.previous_opens)
        } else {
            (map[window[i - 1] as usize], opens(window[i - 1]))
        };
        pair(previous, current, after_opening);
        if let Some(&next) = window.get(i + 1)
            && next < 0x80
        {
            pair(current, map[next as usize], false);
        }
    }
    state.penalty += penalty;
    state.previous = map[last as usize];
    state.previous_high = last >= 0x80;
    state.previous_opens = opens(last);
}

/// Counts the ASCII pairs with a letter of `bytes` (and of `previous` with its
/// first byte) by their classes (0: not a letter; 1–26: a letter, case folded), up to
/// [`ASCII_PAIRS`] pairs in all.
fn score_ascii_pairs(counts: &mut [u16; 27 * 27], scored: &mut u32, previous: Option<u8>, bytes: &[u8]) {
    let class = |b: u8| if b.is_ascii_alphabetic() { (b.to_ascii_lowercase() - b'a' + 1) as usize } else { 0 };
    let mut previous = previous;
    for &byte in bytes {
        let Some(p) = previous.replace(byte) else { continue };
        if p >= 0x80 || byte >= 0x80 || (!p.is_ascii_alphabetic() && !byte.is_ascii_alphabetic()) {
            continue;
        }
        if *scored >= ASCII_PAIRS {
            return;
        }
        *scored += 1;
        counts[class(p) * 27 + class(byte)] += 1;
    }
}

/// Whether `bytes` are ASCII without ESC, SO or SI (which ISO-2022-JP reads as
/// escapes or errors: every other ASCII byte leaves every decoder as it was), a
/// word at a time.
fn plain_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Whether any byte of `w` is zero (the classic has-zero-byte test).
    let zero = |w: u64| w.wrapping_sub(ONES) & !w;
    let mut words = bytes.chunks_exact(8);
    let mut seen = 0;
    for word in &mut words {
        let w = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        let escape = w ^ (0x1B * ONES);
        // SO (0x0E) and SI (0x0F): equal to 0x0E once the low bit is cleared.
        let shift = (w & (0xFE * ONES)) ^ (0x0E * ONES);
        seen |= w | zero(escape) | zero(shift);
    }
    seen & HIGHS == 0 && words.remainder().iter().all(|&b| b < 0x80 && !matches!(b, 0x0E | 0x0F | 0x1B))
}

/// Whether a decoder holds the start of a character (the input may have been cut).
fn pending(decoder: &Decoder) -> bool {
    let mut decoder = decoder.clone();
    decoder.decode_to_utf16(&[], &mut [0u16; 8], true).result.is_malformed()
}

/// Decodes `window` with a CJK candidate's decoder and scores its non-ASCII
/// characters; an error puts the candidate out.
fn score_cjk(state: &mut CjkState, column: usize, window: &[u8], units: &mut [u16], skipped: u64) {
    let mut src = window;
    loop {
        let progress = state.decoder.decode_to_utf16(src, units, false);
        for &unit in &units[..progress.written] {
            let letter = unit < 0x80 && (unit as u8).is_ascii_alphabetic();
            // Ideographic punctuation and full-width forms sit next to Latin words.
            let punctuation = matches!(unit, 0x3000..=0x303F | 0xFF01..=0xFF5E);
            if unit >= 0x80 {
                state.cost += cjk_cost(unit, column) as u64;
                state.characters += 1;
                if state.previous_letter && !punctuation {
                    state.cost += LATIN_ADJACENT;
                }
            } else if letter && state.previous_non_ascii {
                state.cost += LATIN_ADJACENT;
            }
            state.previous_letter = letter;
            state.previous_non_ascii = unit >= 0x80 && !punctuation;
        }
        src = &src[progress.read..];
        match progress.result {
            DecoderResult::InputEmpty => return,
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(error) => {
                // The decoder skipped the ASCII prefix: offsets are absolute.
                state.dead_at = Some(skipped + error.offset);
                return;
            }
        }
    }
}

/// Whether UTF-8 stays valid through `window`, and its non-ASCII characters.
fn valid_so_far(decoder: &mut Decoder, window: &[u8], units: &mut [u16]) -> (bool, u64) {
    let mut src = window;
    let mut characters = 0;
    loop {
        let progress = decoder.decode_to_utf16(src, units, false);
        characters +=
            units[..progress.written].iter().filter(|&&u| u >= 0x80 && !(0xDC00..0xE000).contains(&u)).count() as u64;
        src = &src[progress.read..];
        match progress.result {
            DecoderResult::InputEmpty => return (true, characters),
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(_) => return (false, characters),
        }
    }
}

/// The hinted groups and CJK columns, as bits: groups first, then the columns.
fn hinted(options: &DetectOptions<'_>) -> u32 {
    let mut bits = 0;
    let mut add = |region: &str| {
        if let Some(i) = GROUP_NAMES.iter().position(|&g| g == region) {
            bits |= 1 << i;
        } else if let Some(i) = CJK_COLUMNS.iter().position(|&c| c == region) {
            bits |= 1 << (GROUP_NAMES.len() + i);
        }
    };
    if let Some(tld) = options.tld {
        let tld = tld.trim_end_matches('.');
        let last = tld.rsplit('.').next().unwrap_or(tld);
        let mut buf = [0u8; 2];
        if last.len() == 2 {
            buf.copy_from_slice(last.as_bytes());
            buf.make_ascii_lowercase();
            add(region_of_tld(&buf));
        }
    }
    if let Some(locale) = options.locale {
        let mut parts = locale.split(['-', '_']);
        let language = parts.next().unwrap_or("");
        let rest: [Option<&str>; 2] = [parts.next(), parts.next()];
        let mut buf = [0u8; 3];
        if (2..=3).contains(&language.len()) {
            buf[..language.len()].copy_from_slice(language.as_bytes());
            buf.make_ascii_lowercase();
            let language = &buf[..language.len()];
            let traditional =
                rest.iter().flatten().any(|p| ["tw", "hk", "mo", "hant"].iter().any(|t| p.eq_ignore_ascii_case(t)));
            add(if language == b"zh" && traditional { "zh-Hant" } else { region_of_language(language) });
        }
    }
    bits
}

/// A top-level domain's region (a group name or a CJK column).
fn region_of_tld(tld: &[u8]) -> &'static str {
    match tld {
        b"ru" | b"ua" | b"by" | b"kz" | b"su" | b"bg" | b"mk" | b"rs" | b"kg" | b"tj" => "cyrillic",
        b"cz" | b"sk" | b"pl" | b"hu" | b"ro" | b"si" | b"hr" | b"ba" | b"me" | b"al" => "central",
        b"lt" | b"lv" | b"ee" => "baltic",
        b"tr" | b"az" => "turkish",
        b"vn" => "vietnamese",
        b"gr" | b"cy" => "greek",
        b"il" => "hebrew",
        b"sa" | b"eg" | b"ae" | b"ir" | b"iq" | b"jo" | b"kw" | b"lb" | b"ly" | b"ma" | b"dz" | b"tn" | b"sy"
        | b"ye" | b"om" | b"qa" | b"bh" | b"sd" | b"pk" | b"af" => "arabic",
        b"th" => "thai",
        b"jp" => "ja",
        b"cn" | b"sg" => "zh-Hans",
        b"tw" | b"hk" | b"mo" => "zh-Hant",
        b"kr" => "ko",
        _ => "western",
    }
}

/// A language's region (a group name or a CJK column).
fn region_of_language(language: &[u8]) -> &'static str {
    match language {
        b"ru" | b"uk" | b"be" | b"bg" | b"mk" | b"sr" | b"kk" | b"ky" | b"tg" | b"mn" => "cyrillic",
        b"cs" | b"sk" | b"pl" | b"hu" | b"ro" | b"sl" | b"hr" | b"bs" | b"sq" | b"hsb" | b"dsb" => "central",
        b"lt" | b"lv" | b"et" => "baltic",
        b"tr" | b"az" => "turkish",
        b"vi" => "vietnamese",
        b"el" => "greek",
        b"he" | b"iw" | b"yi" => "hebrew",
        b"ar" | b"fa" | b"ur" | b"ps" => "arabic",
        b"th" => "thai",
        b"ja" => "ja",
        b"zh" => "zh-Hans",
        b"ko" => "ko",
        _ => "western",
    }
}

/// The detector as encoding determination's detector step: the options are the
/// detector. `None` for pure ASCII (the determination then goes on to the
/// locale's default) and when no candidate is without an error.
///
/// ```
/// use whatenc::detect::DetectOptions;
/// use whatenc::sniff::{html, HtmlOptions, Step};
/// let detector = DetectOptions { allow_utf8: false, ..DetectOptions::default() };
/// let options = HtmlOptions { detector: Some(&detector), ..HtmlOptions::default() };
/// let determination = html(b"<p>\xcf\xf0\xe8\xe2\xe5\xf2, \xec\xe8\xf0", &options);
/// assert_eq!((determination.encoding, determination.step), (whatenc::WINDOWS_1251, Step::Detector));
/// ```
impl Detector for DetectOptions<'_> {
    fn detect(&self, bytes: &[u8], whole: bool) -> Option<&'static Encoding> {
        let mut detector = EncodingDetector::new();
        detector.feed(bytes);
        if whole {
            detector.finish();
        }
        let guess = detector.guess(self);
        guess.guessed.then_some(guess.encoding)
    }
}
