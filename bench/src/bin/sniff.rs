//! What encoding determination costs: on each corpus page (`<lang>.html` in UTF-8,
//! UTF-16LE/BE and its legacy encodings), the HTML determination plus the decode
//! against the decode alone, measured interleaved, and the determination alone as a
//! share of the decode's time (steadier than the A/B ratio on a shared machine); and the prescan in ns per document on a 1 KB head with
//! no `<meta>`, the worst case (it reads all 1024 bytes).
//!
//! The corpus pages are encoded from UTF-8 originals and keep their
//! `<meta charset="UTF-8">`, so "plus decode" decodes with the page's real encoding,
//! not the determined one: the two candidates do the same decoding work, and the
//! difference is the determination.
//!
//! `cargo run --release -p whatenc-bench --bin sniff [-- --filter ja.html]`
//! (`WHATENC_BENCH_MS`, `WHATENC_BENCH_REPS` as for the main benchmark).

use std::hint::black_box;

use whatenc::sniff::{EndCondition, HtmlOptions, html, prescan};
use whatenc_bench::{Candidate, Settings, documents_matching};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().position(|a| a == "--filter").and_then(|i| args.get(i + 1)).cloned();
    let settings = Settings::from_env();
    println!(
        "| page | decode MB/s | determination + decode MB/s | ratio | determination ns | determination / decode |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let mut worst: f64 = f64::INFINITY;
    let mut worst_overhead: f64 = 0.0;
    for document in documents_matching(filter.as_deref()) {
        if document.kind != "html" {
            continue;
        }
        let bytes = &document.bytes;
        let encoding = document.encoding;
        let mut decode_out = String::new();
        let mut sniff_out = String::new();
        let mut candidates = [
            Candidate::new("decode", || {
                decode_out.clear();
                let mut decoder = encoding.new_decoder();
                decode_out.reserve(decoder.max_utf8_buffer_length(bytes.len()).unwrap());
                decoder.decode_to_string(bytes, &mut decode_out, true).written
            }),
            Candidate::new("determination + decode", || {
                let determination = black_box(html(black_box(bytes), &HtmlOptions::default()));
                sniff_out.clear();
                let mut decoder = encoding.new_decoder();
                sniff_out.reserve(decoder.max_utf8_buffer_length(bytes.len()).unwrap());
                decoder.decode_to_string(bytes, &mut sniff_out, true).written + determination.encoding.name().len()
            }),
            Candidate::new("determination", || {
                black_box(html(black_box(bytes), &HtmlOptions::default())).encoding.name().len()
            }),
        ];
        let rates = settings.measure_interleaved(bytes.len(), &mut candidates);
        let ratio = rates[1].1 / rates[0].1;
        // The same input length: time per call is inversely proportional to the rate.
        let overhead = rates[0].1 / rates[2].1;
        let determination_ns = bytes.len() as f64 * 1e3 / rates[2].1;
        worst = worst.min(ratio);
        worst_overhead = worst_overhead.max(overhead);
        println!(
            "| {} | {:.0} | {:.0} | {ratio:.3} | {determination_ns:.0} | {:.2}% |",
            document.name(),
            rates[0].1,
            rates[1].1,
            overhead * 100.0
        );
    }
    println!("\nworst ratio (A/B, noisy on a shared machine): {worst:.3}");
    println!("worst determination / decode time: {:.2}%\n", worst_overhead * 100.0);

    // The prescan alone on 1 KB heads with no <meta>.
    let heads = heads();
    println!("| 1 KB head, no <meta> | prescan ns/document |");
    println!("|---|---:|");
    for (name, head) in &heads {
        assert_eq!(head.len(), 1024);
        assert_eq!(prescan(head, EndCondition::default()), None);
        let mut candidates =
            [Candidate::new("prescan", || usize::from(prescan(black_box(head), EndCondition::default()).is_some()))];
        let rate = settings.measure_interleaved(head.len(), &mut candidates)[0].1;
        println!("| {name} | {:.0} |", head.len() as f64 * 1e3 / rate);
    }
}

/// 1024-byte heads that the prescan reads to the end: typical markup without a
/// `<meta>`, tags with attributes only, and text without a `<`.
fn heads() -> Vec<(&'static str, Vec<u8>)> {
    let fill = |start: &[u8], unit: &[u8]| -> Vec<u8> {
        let mut head = start.to_vec();
        while head.len() < 1024 {
            head.extend_from_slice(unit);
        }
        head.truncate(1024);
        head
    };
    vec![
        (
            "markup",
            fill(
                b"<!DOCTYPE html>\n<html lang=\"en\" dir=\"ltr\">\n<head>\n<title>Mars - Wikipedia</title>\n\
                  <!-- a comment -->\n<script>var a = '<b>';</script>\n",
                b"<link rel=\"stylesheet\" href=\"/w/load.php?lang=en&amp;modules=site.styles\"/>\n",
            ),
        ),
        ("attributes", fill(b"", b"<a href='/x' title=\"y\" class=z>")),
        ("text", fill(b"", b"Mars is the fourth planet from the Sun. ")),
    ]
}
