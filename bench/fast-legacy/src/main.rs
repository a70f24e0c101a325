//! Prints encoding_rs's encode-from-`&str` throughput with `fast-legacy-encode` for
//! every legacy case, as `whatenc_bench` result lines. `bench/run.sh` runs it apart
//! from the main benchmark, which then merges its lines.

fn main() {
    let settings = whatenc_bench::Settings::from_env();
    for document in whatenc_bench::documents() {
        if !document.is_legacy() {
            continue;
        }
        let encoding = encoding_rs::Encoding::for_label(document.encoding.name().as_bytes()).expect("known label");
        let text = document.text.as_str();
        let mut out = Vec::with_capacity(text.len() * 12 + 64);
        let mb_per_s = settings.measure(text.len(), || {
            let mut encoder = encoding.new_encoder();
            out.clear();
            let _ = encoder.encode_from_utf8_to_vec(text, &mut out, true);
            out.len()
        });
        whatenc_bench::print_result(
            &document,
            whatenc_bench::Op::EncodeFromStr,
            "encoding_rs fast-legacy-encode",
            mb_per_s,
        );
    }
}
