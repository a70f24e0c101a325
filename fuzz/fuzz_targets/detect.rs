//! The statistical detector on any input: it never panics, never guesses
//! x-user-defined or replacement, gives the default for pure ASCII, and gives the
//! same guess and the same ranked candidates whether the bytes come whole or in
//! chunks split anywhere. (With `allow_utf16`, ASCII with zero bytes may be UTF-16.)
//!
//! Input layout: byte 0 seeds the split points and picks the options; the rest is
//! the input.
#![no_main]

use whatenc::detect::{DetectOptions, EncodingDetector};

/// Chunk ends from a seed (xorshift), ending at `len`; a step of 0 is an empty chunk.
fn splits(seed: u8, len: usize) -> Vec<usize> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ seed as u64;
    let mut points = Vec::new();
    let mut position = 0;
    while position < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        position = (position + (state % 1500) as usize).min(len);
        points.push(position);
    }
    points
}

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
    for point in splits(*seed, input.len()) {
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
