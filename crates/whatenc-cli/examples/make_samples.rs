//! Makes the sample files in `samples/` at the repository root from the benchmark
//! corpus, with whatenc's own encoders in the "html" error mode.
//!
//! ```text
//! cargo run -p whatenc-cli --example make_samples [CORPUS_DIR [OUT_DIR]]
//! ```
//!
//! CORPUS_DIR defaults to `../shared/bench-corpus` beside the repository, OUT_DIR to
//! `samples`. Each sample is the first ~2 KB of the UTF-8 article, cut at a line
//! boundary, then encoded; characters an encoding lacks become `&#N;`.

use std::path::{Path, PathBuf};

/// The samples: (corpus language, encoding label, file name).
pub const SAMPLES: &[(&str, &str, &str)] = &[
    ("ja", "shift_jis", "ja.shift_jis.txt"),
    ("ja", "euc-jp", "ja.euc-jp.txt"),
    ("ja", "iso-2022-jp", "ja.iso-2022-jp.txt"),
    ("zh_cn", "gbk", "zh_cn.gbk.txt"),
    ("zh_tw", "big5", "zh_tw.big5.txt"),
    ("ko", "euc-kr", "ko.euc-kr.txt"),
    ("fr", "windows-1252", "fr.windows-1252.txt"),
    ("ru", "koi8-r", "ru.koi8-r.txt"),
    ("el", "windows-1253", "el.windows-1253.txt"),
    ("de", "utf-16le", "de.utf-16le-bom.txt"),
];

/// The most UTF-8 bytes of article text in a sample.
pub const SAMPLE_SIZE: usize = 2048;

/// The text of a sample: the longest prefix of `article` of at most
/// [`SAMPLE_SIZE`] bytes that ends with a line feed.
pub fn sample_text(article: &str) -> &str {
    let mut end = SAMPLE_SIZE.min(article.len());
    while !article.is_char_boundary(end) {
        end -= 1;
    }
    match article[..end].rfind('\n') {
        Some(newline) => &article[..=newline],
        None => &article[..end],
    }
}

/// The bytes of a sample of `text` in the encoding `label`: the standard's "encode"
/// (html error mode), or for UTF-16LE/BE, which have no encoder, a BOM and the code
/// units (for trying out `whatenc sniff` and BOM sniffing).
pub fn sample_bytes(text: &str, label: &str) -> Vec<u8> {
    let encoding = whatenc::Encoding::for_label_str(label).expect("a sample label is a label");
    if encoding == whatenc::UTF_16LE {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        return bytes;
    }
    whatenc::hooks::encode(text, encoding).expect("a sample encoding has an encoder").into_owned()
}

/// The corpus beside the repository: `<repo>/../shared/bench-corpus`.
pub fn default_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench-corpus")
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let corpus = args.next().map_or_else(default_corpus, PathBuf::from);
    let out = args.next().map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples"), PathBuf::from);
    std::fs::create_dir_all(&out).expect("cannot create the output directory");
    for (lang, label, file) in SAMPLES {
        let path = corpus.join(format!("{lang}.txt"));
        let article = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bytes = sample_bytes(sample_text(&article), label);
        std::fs::write(out.join(file), &bytes).expect("cannot write a sample");
        println!("{file}: {} bytes", bytes.len());
    }
}
