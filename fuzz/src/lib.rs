//! The fuzz checks: every decoder and encoder of all 40 encodings, in both error
//! modes, whole and streamed with fuzzer-chosen split points and output sizes, checked
//! against encoding_rs and against the whole-input result.
//!
//! Input layout: byte 0 picks the encoding, byte 1 the mode and output sizes, byte 2
//! seeds the split points; the rest is the input.

use whatenc::{DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding, ErrorMode};

/// Where the pinned standard and encoding_rs 0.8 are known to differ; such inputs are
/// checked against the whole-input result only. (None known so far.)
fn peer_agrees(_encoding: &'static Encoding) -> bool {
    true
}

fn peer(encoding: &'static Encoding) -> &'static encoding_rs::Encoding {
    encoding_rs::Encoding::for_label(encoding.labels()[0].as_bytes()).expect("every label is known to encoding_rs")
}

/// Split points from a seed: a simple xorshift over the input length.
fn splits(seed: u8, len: usize) -> Vec<usize> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ seed as u64;
    let mut points = Vec::new();
    let mut pos = 0;
    while pos < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let step = (state % 9) as usize; // 0 makes an empty chunk
        pos = (pos + step).min(len);
        points.push(pos);
    }
    points
}

/// Decodes whole with whatenc: text and the offset of the first error (fatal mode stops there).
fn decode_whole(encoding: &'static Encoding, mode: ErrorMode, input: &[u8]) -> (String, Option<u64>) {
    let mut decoder = encoding.new_decoder_with(DecoderOptions { mode, ..Default::default() });
    let mut out = String::with_capacity(decoder.max_utf8_buffer_length(input.len()).unwrap());
    let progress = decoder.decode_to_string(input, &mut out, true);
    match progress.result {
        DecoderResult::InputEmpty => (out, decoder.take_first_error().map(|e| e.offset)),
        DecoderResult::Malformed(error) => (out, Some(error.offset)),
        DecoderResult::OutputFull => panic!("max_utf8_buffer_length was not enough"),
    }
}

/// Decodes in chunks into small UTF-8 or UTF-16 buffers, stopping at the first error in fatal mode.
fn decode_chunked(encoding: &'static Encoding, mode: ErrorMode, input: &[u8], seed: u8, out_len: usize, utf16: bool) -> (String, Option<u64>) {
    let mut decoder = encoding.new_decoder_with(DecoderOptions { mode, ..Default::default() });
    let mut text = String::new();
    let mut units = Vec::new();
    let mut buf8 = vec![0u8; out_len.max(4)];
    let mut buf16 = vec![0u16; out_len.max(2)];
    let mut start = 0;
    let points = splits(seed, input.len());
    let count = points.len();
    for (i, &end) in points.iter().chain(std::iter::once(&input.len())).enumerate() {
        let last = i >= count;
        let mut chunk = &input[start..end.max(start)];
        start = end.max(start);
        loop {
            let progress = if utf16 {
                let p = decoder.decode_to_utf16(chunk, &mut buf16, last);
                units.extend_from_slice(&buf16[..p.written]);
                p
            } else {
                let p = decoder.decode_to_utf8(chunk, &mut buf8, last);
                text.push_str(std::str::from_utf8(&buf8[..p.written]).expect("decoders write whole UTF-8"));
                p
            };
            chunk = &chunk[progress.read..];
            match progress.result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => assert!(progress.read + progress.written > 0 || chunk.is_empty(), "no progress"),
                DecoderResult::Malformed(error) => {
                    if utf16 {
                        text = String::from_utf16(&units).expect("decoders write whole UTF-16");
                    }
                    return (text, Some(error.offset));
                }
            }
        }
        if last {
            break;
        }
    }
    if utf16 {
        text = String::from_utf16(&units).expect("decoders write whole UTF-16");
    }
    (text, decoder.take_first_error().map(|e| e.offset))
}

/// Decodes with encoding_rs: text, and whether there was an error (fatal mode stops there).
fn decode_peer(encoding: &'static Encoding, mode: ErrorMode, input: &[u8]) -> (String, bool) {
    let mut decoder = peer(encoding).new_decoder_without_bom_handling();
    let mut out = String::with_capacity(decoder.max_utf8_buffer_length(input.len()).unwrap());
    match mode {
        ErrorMode::Replacement => {
            let (_, _, had_errors) = decoder.decode_to_string(input, &mut out, true);
            (out, had_errors)
        }
        ErrorMode::Fatal => {
            let (result, _) = decoder.decode_to_string_without_replacement(input, &mut out, true);
            (out, matches!(result, encoding_rs::DecoderResult::Malformed(..)))
        }
    }
}

/// The decode check.
pub fn check_decode(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let all = Encoding::all();
    let encoding = all[data[0] as usize % all.len()];
    let mode = if data[1] & 1 == 0 { ErrorMode::Replacement } else { ErrorMode::Fatal };
    let out_len = (data[1] >> 1) as usize % 24;
    let utf16 = data[1] & 0x80 != 0;
    let input = &data[3..];
    let (whole, error) = decode_whole(encoding, mode, input);
    if peer_agrees(encoding) {
        let (expected, peer_error) = decode_peer(encoding, mode, input);
        assert_eq!(whole, expected, "{} {mode:?} {input:02X?}", encoding.name());
        assert_eq!(error.is_some(), peer_error, "{} {mode:?} {input:02X?}", encoding.name());
    }
    let chunked = decode_chunked(encoding, mode, input, data[2], out_len, utf16);
    assert_eq!(chunked, (whole, error), "{} {mode:?} chunked {input:02X?}", encoding.name());
}

/// The encode check: input is the rest as UTF-8 (lossily), or as UTF-16 code units.
pub fn check_encode(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let with_encoder: Vec<&'static Encoding> = Encoding::all().iter().copied().filter(|e| e.has_encoder()).collect();
    let encoding = with_encoder[data[0] as usize % with_encoder.len()];
    let mode = if data[1] & 1 == 0 { EncoderErrorMode::Html } else { EncoderErrorMode::Fatal };
    let out_len = 14 + (data[1] >> 1) as usize % 24;
    let utf16_input = data[1] & 0x80 != 0;
    let units: Vec<u16> = if utf16_input {
        data[3..].chunks_exact(2).map(|pair| u16::from_le_bytes([pair[0], pair[1]])).collect()
    } else {
        String::from_utf8_lossy(&data[3..]).encode_utf16().collect()
    };
    let text = String::from_utf16_lossy(&units);

    // Whole, from &str.
    let mut encoder = encoding.new_encoder_with(mode).unwrap();
    let mut whole = Vec::new();
    let (result, read) = encoder.encode_from_utf8_to_vec(&text, &mut whole, true);
    let unmappable = match result {
        EncoderResult::InputEmpty => None,
        EncoderResult::Unmappable(c) => Some((c, read)),
        EncoderResult::OutputFull => panic!("to_vec never returns OutputFull"),
    };
    if peer_agrees(encoding) {
        let mut peer_encoder = peer(encoding).new_encoder();
        let mut expected = Vec::with_capacity(text.len() * 12 + 16);
        match mode {
            EncoderErrorMode::Html => {
                let _ = peer_encoder.encode_from_utf8_to_vec(&text, &mut expected, true);
            }
            EncoderErrorMode::Fatal => {
                let (peer_result, peer_read) =
                    peer_encoder.encode_from_utf8_to_vec_without_replacement(&text, &mut expected, true);
                let peer_unmappable = match peer_result {
                    encoding_rs::EncoderResult::Unmappable(c) => Some((c, peer_read)),
                    _ => None,
                };
                assert_eq!(unmappable, peer_unmappable, "{} {text:?}", encoding.name());
            }
        }
        assert_eq!(whole, expected, "{} {mode:?} {text:?}", encoding.name());
    }

    // Streamed from UTF-16, cut at fuzzer-chosen points (even inside surrogate pairs).
    let mut encoder = encoding.new_encoder_with(mode).unwrap();
    let mut streamed = Vec::new();
    let mut buf = vec![0u8; out_len];
    let points = splits(data[2], units.len());
    let mut start = 0;
    let mut stopped = None;
    'outer: for (i, &end) in points.iter().chain(std::iter::once(&units.len())).enumerate() {
        let last = i >= points.len();
        let mut chunk = &units[start..end.max(start)];
        start = end.max(start);
        loop {
            let progress = encoder.encode_from_utf16(chunk, &mut buf, last);
            streamed.extend_from_slice(&buf[..progress.written]);
            chunk = &chunk[progress.read..];
            match progress.result {
                EncoderResult::InputEmpty => break,
                EncoderResult::OutputFull => {}
                EncoderResult::Unmappable(c) => {
                    stopped = Some(c);
                    break 'outer;
                }
            }
        }
        if last {
            break;
        }
    }
    assert_eq!(stopped, unmappable.map(|(c, _)| c), "{} streamed {text:?}", encoding.name());
    assert_eq!(streamed, whole, "{} {mode:?} streamed {text:?}", encoding.name());
}
