//! The detector's memory promise: no allocation per byte, and memory bounded whatever
//! the input length. allocation-counter's global allocator counts every allocation
//! while megabytes of text of every family go through a detector.

use whatenc::detect::{DetectOptions, EncodingDetector};

/// Text of each family in one of its legacy encodings, repeated to `len` bytes.
fn inputs(len: usize) -> Vec<(&'static str, Vec<u8>)> {
    let texts: [(&str, &str); 6] = [
        ("windows-1250", "Příliš žluťoučký kůň úpěl ďábelské ódy. "),
        ("windows-1251", "Съешь же ещё этих мягких французских булок да выпей чаю. "),
        ("Shift_JIS", "日本語は主に日本で話されている言語です。"),
        ("GBK", "中文是世界上使用人数最多的语言之一。"),
        ("windows-874", "ภาษาไทยเป็นภาษาราชการของประเทศไทย "),
        ("UTF-8", "Ünïcödé téxt wïth àccents, ☃ and 𝄞. "),
    ];
    texts
        .iter()
        .map(|&(name, text)| {
            let encoding = whatenc::Encoding::for_label(name.as_bytes()).unwrap();
            let (one, _) = encoding.encode(text).unwrap();
            (name, one.iter().copied().cycle().take(len).collect())
        })
        .collect()
}

#[test]
fn no_allocation_per_byte_and_bounded_memory() {
    let options = DetectOptions::default();
    // Whatever the input length, the detector is this size, and it owns no heap.
    let size = std::mem::size_of::<EncodingDetector>();
    for (name, bytes) in inputs(4 << 20) {
        let mut detector = EncodingDetector::new();
        let mut guess = None;
        let counted = allocation_counter::measure(|| {
            for chunk in bytes.chunks(4093) {
                detector.feed(chunk);
            }
            detector.finish();
            guess = Some(detector.guess(&options));
        });
        assert_eq!(counted.count_total, 0, "{name}: {counted:?} for 4 MB");
        let guess = guess.unwrap();
        assert!(guess.guessed, "{name}");
        assert_eq!(guess.encoding.name(), name);
        assert_eq!(std::mem::size_of_val(&detector), size);
    }
}
