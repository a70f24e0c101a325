//! Prints encoding_rs's encode-from-`&str` throughput with `fast-legacy-encode` for
//! every legacy case, as `whatenc_bench` result lines, measured interleaved with
//! whatenc's (printed as "whatenc (fast-legacy run)", so that the two compare within
//! one run). `bench/run.sh` runs it apart from the main benchmark, which then merges
//! its lines. `--filter TEXT` keeps the documents whose name contains TEXT; `--rotate`
//! gives each call the next of the document's shuffled versions, as in the main
//! benchmark.

use whatenc::EncoderErrorMode;
use whatenc_bench::{Candidate, Op, Rotation, Settings, documents_matching, print_result};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().position(|a| a == "--filter").and_then(|i| args.get(i + 1));
    let settings = Settings::from_env();
    for document in documents_matching(filter.map(String::as_str)) {
        if !document.is_legacy() {
            continue;
        }
        let encoding = document.encoding;
        let peer = encoding_rs::Encoding::for_label(encoding.name().as_bytes()).expect("known label");
        let rotation = &Rotation::new(&document, settings.rotate);
        // One output buffer for both, as in the main benchmark.
        let out = &std::cell::RefCell::new(vec![0u8; rotation.max_len(|v| v.text.len()) * 12 + 64]);
        let new_encoder = || encoding.new_encoder_with(EncoderErrorMode::Html).expect("has an encoder");
        let mut candidates = [
            Candidate::new("whatenc (fast-legacy run)", || {
                new_encoder().encode_from_utf8(&rotation.next().text, &mut out.borrow_mut(), true).written
            }),
            Candidate::new("encoding_rs fast-legacy-encode", || {
                peer.new_encoder().encode_from_utf8(&rotation.next().text, &mut out.borrow_mut(), true).2
            }),
        ];
        let text_len = rotation.mean_len(|v| v.text.len());
        for (implementation, mb_per_s) in settings.measure_interleaved(text_len, &mut candidates) {
            print_result(&document, Op::EncodeFromStr, implementation, mb_per_s);
        }
    }
}
