//! The library's own throughput on a whole file in memory, to compare with the
//! `whatenc` command's streaming throughput (BENCHMARKS.md, "Command-line tool").
//!
//! ```text
//! cargo run --release -p whatenc-cli --example lib_throughput -- FILE FROM TO
//! ```
//!
//! Decodes FILE from FROM into one `String`, then encodes it to TO (in the "html"
//! error mode; UTF-8 output is the text itself), and prints the best of five runs in
//! MB/s of input.

use std::time::Instant;

use whatenc::{EncoderErrorMode, EncoderResult, Encoding};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, from, to] = args.as_slice() else {
        eprintln!("usage: lib_throughput FILE FROM TO");
        std::process::exit(2);
    };
    let input = std::fs::read(file).expect("cannot read FILE");
    let from = Encoding::for_label_str(from).expect("unknown FROM");
    let to = Encoding::for_label_str(to).expect("unknown TO");
    let mut best = f64::MAX;
    let mut output_len = 0;
    for _ in 0..5 {
        let start = Instant::now();
        let mut decoder = from.new_decoder();
        let mut text = String::with_capacity(decoder.max_utf8_buffer_length(input.len()).unwrap());
        let progress = decoder.decode_to_string(&input, &mut text, true);
        assert_eq!(progress.read, input.len());
        output_len = text.len();
        if to != whatenc::UTF_8 {
            let mut encoder = to.new_encoder_with(EncoderErrorMode::Html).unwrap();
            let mut out = Vec::with_capacity(text.len() + 1024);
            let (result, _) = encoder.encode_from_utf8_to_vec(&text, &mut out, true);
            assert_eq!(result, EncoderResult::InputEmpty);
            output_len = out.len();
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let mb = input.len() as f64 / 1e6;
    println!(
        "{file}: {} -> {}: {mb:.1} MB in {:.3} s = {:.0} MB/s ({output_len} bytes out)",
        from.name(),
        to.name(),
        best,
        mb / best
    );
}
