//! Reading a legacy-encoded file line by line through a decoding reader: whatenc's
//! `io::DecodeReader` (a `BufRead` itself) against encoding_rs_io's
//! `DecodeReaderBytes` in a `BufReader` (the pattern of ripgrep and of most users of
//! encoding_rs), in the same run, interleaved.
//!
//! The input is about 64 MB: the 64 rotating versions of each chosen corpus article
//! (its sentences shuffled, see `whatenc_bench::Rotation`) in its legacy encoding,
//! one after another, so that no branch predictor learns it. Each candidate reads
//! every line with `read_line` into one reused `String`, as a line-oriented tool does.
//!
//! `cargo run --release -p whatenc-bench --bin lines [-- FILTER]` (default: `ja.txt`,
//! Shift_JIS; e.g. `ru.txt` for windows-1251, `zh_cn.txt` for GBK).

use std::io::{BufRead, BufReader};

use whatenc_bench::{Candidate, Rotation, Settings, documents_matching};

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_else(|| "ja.txt".into());
    let settings = Settings::from_env();
    println!("CPU {}", whatenc_bench::cpu_model());
    for document in documents_matching(Some(&filter)) {
        if !document.is_legacy() {
            continue;
        }
        let rotation = Rotation::new(&document, true);
        let mut input = Vec::new();
        while input.len() < 64 << 20 {
            input.extend_from_slice(&rotation.next().bytes);
        }
        let encoding = document.encoding;
        let peer = encoding_rs::Encoding::for_label(encoding.name().as_bytes()).unwrap();
        let mut candidates = [
            Candidate::new("whatenc DecodeReader", || {
                let mut reader = whatenc::io::DecodeReader::new(&input[..], encoding);
                count_lines(&mut reader)
            }),
            Candidate::new("encoding_rs_io + BufReader", || {
                let reader = encoding_rs_io::DecodeReaderBytesBuilder::new().encoding(Some(peer)).build(&input[..]);
                count_lines(&mut BufReader::new(reader))
            }),
        ];
        let results = settings.measure_interleaved(input.len(), &mut candidates);
        let ours = results[0].1;
        for (name, rate) in &results {
            println!("{}\t{}\t{name}\t{rate:.1} MB/s\t{:.2}", document.name(), input.len(), ours / rate);
        }
    }
}

/// Reads every line into one reused `String`; returns the lines' total length.
fn count_lines(reader: &mut impl BufRead) -> usize {
    let mut line = String::new();
    let mut total = 0;
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => return total,
            Ok(n) => total += n,
            Err(error) => panic!("{error}"),
        }
    }
}
