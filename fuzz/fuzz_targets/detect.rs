//! The statistical detector on any input: it never panics, never guesses
//! x-user-defined or replacement, gives the default for pure ASCII, and gives the
//! same guess and the same ranked candidates whether the bytes come whole or in
//! chunks split anywhere. (With `allow_utf16`, ASCII with zero bytes may be UTF-16.)
//!
//! Input layout: byte 0 seeds the split points and picks the options; the rest is
//! the input.
#![no_main]

use whatenc::detect::{DetectOptions, EncodingDetector};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [seed, input @ ..] = data else { return };
    let options = DetectOptions {
        allow_utf8: seed & 1 != 0,
        allow_iso_2022_jp: seed & 2 != 0,
        allow_utf16: seed & 16 != 0,
        tld: (seed & 4 != 0).then_some("ru"),
        locale: (seed & 8 != 0).then_some("zh-TW"),
        default: whatenc::WINDOWS_1252,
    };
    let mut whole = EncodingDetector::new();
    whole.feed(input);
    let mut chunked = EncodingDetector::new();
    let mut start = 0;
    for point in whatenc_fuzz::split_points(*seed, input.len(), 1500) {
        chunked.feed(&input[start..point]);
        start = point;
    }
    assert_eq!(whole.candidates(&options), chunked.candidates(&options));
    assert_eq!(whole.guess(&options), chunked.guess(&options));
    whole.finish();
    chunked.finish();
    let guess = whole.guess(&options);
    assert_eq!(guess, chunked.guess(&options));
    assert!(guess.encoding != whatenc::X_USER_DEFINED && guess.encoding != whatenc::REPLACEMENT);
    if input.is_ascii() && !input.contains(&0x1B) && !options.allow_utf16 {
        assert!(!guess.guessed && guess.encoding == options.default);
    }
});
