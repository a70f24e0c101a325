//! Streaming: round trips through every encoding that has an encoder, a closed
//! output pipe, constant memory on a 1 GB pipe, and the bundled samples.

mod common;

use std::io::{Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{TempDir, code, peak_rss_kb, repo_root, run, stderr, stdout};
use whatenc::{EncoderErrorMode, EncoderResult, Encoding};

#[path = "../examples/make_samples.rs"]
#[allow(dead_code)]
mod make_samples;

/// Text in many scripts, from which each encoding keeps what it can represent.
const MANY_SCRIPTS: &str = "ASCII ~\\ héllo ÿ € ‚ƒ„ Ωμέγα Привет Ґґ שלום مرحبا ไทย Tiếng Việt çğış \
    ひらがな カタカナ ｶﾀｶﾅ 漢字日本語 中文简体 繁體中文 한국어 가나다 ①② ㈱ ∀∃ ¥ ¦ ‾ \u{0080}\u{00A0}\u{00AD} 😀 𠀀 \u{E5E5} \
    \u{FFFF}\t\r\n";

/// The text of `MANY_SCRIPTS` and of every byte decoded by `encoding`, keeping the
/// scalar values that `encoding` encodes and decodes back unchanged.
fn representable(encoding: &'static Encoding) -> String {
    let mut candidates = String::from(MANY_SCRIPTS);
    let bytes: Vec<u8> = (0..=255).collect();
    candidates.push_str(&encoding.decode(&bytes).0);
    // Two-byte sequences of legacy CJK encodings: a sample of lead and trail bytes.
    if !encoding.is_single_byte() {
        let mut pairs = Vec::new();
        for lead in (0x81..=0xFE).step_by(7) {
            for trail in (0x40..=0xFE).step_by(5) {
                pairs.extend_from_slice(&[lead, trail]);
            }
            pairs.push(b'\n');
        }
        candidates.push_str(&encoding.decode(&pairs).0);
    }
    let mut text = String::new();
    for c in candidates.chars() {
        if c == '\u{FFFD}' || text.contains(c) && !c.is_ascii() {
            continue;
        }
        let mut encoder = encoding.new_encoder_with(EncoderErrorMode::Fatal).unwrap();
        let mut out = Vec::new();
        let s = c.to_string();
        let (result, _) = encoder.encode_from_utf8_to_vec(&s, &mut out, true);
        if result == EncoderResult::InputEmpty && encoding.decode(&out).0 == s {
            text.push(c);
        }
    }
    text
}

#[test]
fn round_trips_through_every_encoding_with_an_encoder() {
    let dir = TempDir::new();
    let mut checked = 0;
    for &encoding in Encoding::all() {
        if !encoding.has_encoder() {
            continue;
        }
        let label = encoding.labels()[0];
        let text = representable(encoding);
        assert!(text.chars().count() > 40, "{}: {} characters", encoding.name(), text.chars().count());
        let source = dir.file("source.txt", text.as_bytes());
        let encoded_path = dir.join("encoded.bin");
        let output = run(&["convert", "--errors", "fatal", "-t", label, "-o", &encoded_path, &source], b"");
        assert_eq!(code(&output), 0, "{}: {}", encoding.name(), stderr(&output));
        let encoded = std::fs::read(&encoded_path).unwrap();
        if encoding != whatenc::UTF_8 {
            assert_ne!(encoded, text.as_bytes(), "{} changed nothing", encoding.name());
        }
        // Back, through a pipe this time.
        let output = run(&["convert", "--errors", "fatal", "-f", label, "--no-bom-sniff"], &encoded);
        assert_eq!(code(&output), 0, "{}: {}", encoding.name(), stderr(&output));
        assert_eq!(stdout(&output), text, "{} round trip", encoding.name());
        // And it checks clean.
        assert_eq!(code(&run(&["check", "-q", "--no-bom-sniff", "-f", label, &encoded_path], b"")), 0);
        checked += 1;
    }
    assert_eq!(checked, 37, "every encoding but replacement, UTF-16BE and UTF-16LE");
}

#[test]
fn round_trips_of_large_text_cut_across_reads() {
    // Multi-byte sequences of every width straddle the 128 KiB reads.
    let text: String = "日本語テキスト、ｶﾀｶﾅ、漢字。\n".repeat(20_000);
    for label in ["shift_jis", "euc-jp", "iso-2022-jp", "gb18030"] {
        let encoded = run(&["convert", "--errors", "fatal", "-t", label], text.as_bytes());
        assert_eq!(code(&encoded), 0, "{label}");
        let decoded = run(&["convert", "--errors", "fatal", "-f", label], &encoded.stdout);
        assert_eq!(code(&decoded), 0, "{label}: {}", stderr(&decoded));
        // ISO-2022-JP encodes halfwidth katakana as fullwidth ones.
        let expected = if label == "iso-2022-jp" { text.replace("ｶﾀｶﾅ", "カタカナ") } else { text.clone() };
        assert!(stdout(&decoded) == expected, "{label} round trip of {} bytes", text.len());
    }
}

#[test]
fn closed_output_pipe_exits_quietly() {
    let dir = TempDir::new();
    // 32 MB of input: far more than a pipe holds.
    let big = dir.file("big.txt", &"Привет, мир!\n".repeat(1_500_000).into_bytes());
    // 4 MB of bytes that are malformed in UTF-8: millions of lines from `check`.
    let bad = dir.file("bad.bin", &vec![0xFF; 4_000_000]);
    for args in [&["convert", "-t", "koi8-r", &big][..], &["convert", &big][..], &["check", &bad][..]] {
        let mut child = common::whatenc()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 100];
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        assert_eq!(code(&output), 0, "{args:?}");
        assert_eq!(stderr(&output), "", "{args:?}");
    }
}

#[test]
fn one_gigabyte_pipe_in_constant_memory() {
    const TOTAL: u64 = 1 << 30;
    // Cyrillic windows-1251 text: every other byte non-ASCII.
    let text = "Съешь же ещё этих мягких французских булок.\n".repeat(1500);
    let pattern = whatenc::WINDOWS_1251.encode(&text).unwrap().0.into_owned();
    let started = Instant::now();
    let mut child = common::whatenc()
        .args(["convert", "-f", "windows-1251", "-t", "utf-8"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut sent = 0u64;
        while sent < TOTAL {
            let n = (TOTAL - sent).min(pattern.len() as u64) as usize;
            stdin.write_all(&pattern[..n]).unwrap();
            sent += n as u64;
        }
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut received = 0u64;
        loop {
            match stdout.read(&mut buf).unwrap() {
                0 => return received,
                n => received += n as u64,
            }
        }
    });
    let mut peak = 0;
    while !reader.is_finished() {
        if let Some(kb) = peak_rss_kb(pid) {
            peak = peak.max(kb);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    writer.join().unwrap();
    let received = reader.join().unwrap();
    let output = child.wait_with_output().unwrap();
    let elapsed = started.elapsed();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(received > TOTAL, "Cyrillic grows in UTF-8: {received} bytes");
    eprintln!("1 GiB through `whatenc convert` in {elapsed:?}; peak RSS {peak} kB");
    assert!(peak > 0, "the peak RSS was read");
    assert!(peak < 16 * 1024, "peak RSS {peak} kB is over 16 MB");
}

#[test]
fn samples_are_up_to_date_and_valid() {
    let samples = repo_root().join("samples");
    let corpus = make_samples::default_corpus();
    for (lang, label, file) in make_samples::SAMPLES {
        let path = samples.join(file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Each sample checks clean in its encoding (a BOM is the sample's own).
        let output = run(&["check", "-f", label, path.to_str().unwrap()], b"");
        assert_eq!(code(&output), 0, "{file}: {}", stdout(&output));
        // And it is what the generator makes from the corpus, when it is here.
        if let Ok(article) = std::fs::read_to_string(corpus.join(format!("{lang}.txt"))) {
            let text = make_samples::sample_text(&article);
            assert!(text.len() > 900 && text.ends_with('\n'), "{file}");
            assert!(make_samples::sample_bytes(text, label) == bytes, "{file} is stale: run make_samples");
        }
    }
}
