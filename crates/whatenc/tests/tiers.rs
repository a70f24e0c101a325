//! Every tier of kernels gives the same results: the bundled samples and random
//! text, decoded and encoded in every form under each cap (`set_max_tier`), compared
//! with the portable tier. The cap is global, so this is the only test binary that
//! sets it (every tier being correct, other tests would not notice anyway).

mod common;

use common::Rng;
use whatenc::{DecoderOptions, EncoderErrorMode, Encoding, Tier};

const TIERS: [Tier; 6] = [Tier::Portable, Tier::Neon, Tier::Sse2, Tier::Ssse3, Tier::Avx2, Tier::Avx512];

/// Everything the library makes of `bytes` in `encoding`: text, UTF-16, and the
/// text encoded back from `&str` and from UTF-16 (when there is an encoder).
fn outputs(encoding: &'static Encoding, bytes: &[u8]) -> Vec<Vec<u8>> {
    let (text, _) = encoding.decode(bytes);
    let mut decoder = encoding.new_decoder_with(DecoderOptions::default());
    let mut units = vec![0u16; decoder.max_utf16_buffer_length(bytes.len()).unwrap()];
    let progress = decoder.decode_to_utf16(bytes, &mut units, true);
    units.truncate(progress.written);
    let mut out = vec![text.as_bytes().to_vec(), units.iter().flat_map(|u| u.to_le_bytes()).collect()];
    if let Ok(mut encoder) = encoding.new_encoder_with(EncoderErrorMode::Html) {
        let mut bytes = vec![0u8; encoder.max_buffer_length_from_utf8(text.len()).unwrap()];
        let progress = encoder.encode_from_utf8(&text, &mut bytes, true);
        out.push(bytes[..progress.written].to_vec());
        let mut encoder = encoding.new_encoder_with(EncoderErrorMode::Html).unwrap();
        let mut bytes = vec![0u8; encoder.max_buffer_length_from_utf16(units.len()).unwrap()];
        let progress = encoder.encode_from_utf16(&units, &mut bytes, true);
        out.push(bytes[..progress.written].to_vec());
    }
    out
}

fn inputs() -> Vec<(&'static Encoding, Vec<u8>)> {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples");
    let mut inputs = Vec::new();
    for entry in std::fs::read_dir(&samples).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(label) = name.strip_suffix(".txt").and_then(|n| n.split('.').nth(1)) else { continue };
        let encoding = Encoding::for_label(label.trim_end_matches("-bom").as_bytes()).unwrap();
        inputs.push((encoding, std::fs::read(&path).unwrap()));
    }
    assert!(inputs.len() >= 10, "the samples are there");
    // Random bytes and text in every encoding, with ASCII runs of every length so
    // that each kernel's block and tail paths run.
    let mut rng = Rng::new(0x7133);
    for &encoding in Encoding::all() {
        for _ in 0..4 {
            let mut bytes = Vec::new();
            while bytes.len() < 600 {
                let run = rng.below(70);
                bytes.extend((0..run).map(|_| b'a' + rng.below(26) as u8));
                bytes.extend((0..rng.below(40)).map(|_| rng.byte()));
            }
            inputs.push((encoding, bytes));
        }
    }
    inputs
}

#[test]
fn every_tier_gives_the_same_results() {
    let inputs = inputs();
    whatenc::set_max_tier(Tier::Portable);
    assert_eq!(whatenc::active_tier(), Tier::Portable);
    let expected: Vec<_> = inputs.iter().map(|(e, b)| outputs(e, b)).collect();
    for tier in TIERS {
        whatenc::set_max_tier(tier);
        assert_eq!(whatenc::max_tier(), tier);
        assert!(whatenc::active_tier() <= tier);
        for ((encoding, bytes), expected) in inputs.iter().zip(&expected) {
            assert!(
                outputs(encoding, bytes) == *expected,
                "{tier}: {} differs from the portable tier",
                encoding.name()
            );
        }
    }
    whatenc::set_max_tier(Tier::Avx512);
    println!("{} inputs, same results on every tier up to {}", inputs.len(), whatenc::active_tier());
}

#[test]
fn tier_names_round_trip() {
    for tier in TIERS {
        assert_eq!(tier.name().parse(), Ok(tier));
        assert_eq!(tier.name().to_uppercase().parse(), Ok(tier));
        assert_eq!(tier.to_string(), tier.name());
    }
    assert_eq!("altivec".parse::<Tier>(), Err(()));
}
