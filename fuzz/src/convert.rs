//! The decoder and encoder checks.
//!
//! Decode input: `[encoding, flags, seed, max_out, bytes...]`.
//! - flags bit 0: "fatal" (else "replacement"); bits 1–2: output form (UTF-8
//!   bytes, UTF-16, `&mut str`, `String`); bits 3–4: BOM handling; bit 5: every
//!   streamed call gets exactly `max_*_buffer_length` of the chunk.
//! - `max_out % 25` bounds the other streamed calls' output sizes (0 included).
//!
//! Encode input: `[encoding, flags, seed, max_out, text...]`.
//! - flags bit 0: "fatal" (else "html"); bits 1–2: input form (`&str`, UTF-16, or
//!   a mix chunk by chunk); bit 3: bound mode as above; bits 4–5: how the text is
//!   read from the bytes ([`crate::units_from`]).
//!
//! In both, `seed` also picks the tiers of kernels ([`crate::pick_tiers`]): one for
//! the whole conversion and its comparison with encoding_rs, one for the streamed.

use whatenc::{
    DecodeProgress, Decoder, DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding, ErrorMode, hooks,
};

use crate::{Decoded, Rng, decode_reference, encode_reference, header, peer, peer_agrees};

/// Below this much room a decoding call may make no progress (the contract: 4 bytes
/// of UTF-8, 2 units of UTF-16).
const DECODE_PROGRESS_UTF8: usize = 4;
const DECODE_PROGRESS_UTF16: usize = 2;
/// Below this much room an encoding call may make no progress.
const ENCODE_PROGRESS: usize = 14;

/// Split points: chunk ends from 0 to 8 bytes apart (0 makes an empty chunk).
fn splits(rng: &mut Rng, len: usize) -> Vec<usize> {
    let mut points = Vec::new();
    let mut pos = 0;
    while pos < len {
        pos = (pos + rng.below(9)).min(len);
        points.push(pos);
    }
    points
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutForm {
    Utf8,
    Utf16,
    Str,
    String,
}

/// A `&mut str` buffer of exactly `len` bytes, full of characters of every width, so
/// that a character cut by the end of the output would show.
fn str_buffer(len: usize) -> String {
    let mut s = String::with_capacity(len);
    for c in ['é', '€', '😀', 'a'].iter().cycle() {
        if s.len() + c.len_utf8() > len {
            break;
        }
        s.push(*c);
    }
    while s.len() < len {
        s.push('x');
    }
    s
}

/// One decoding call of `form` into `room` units; appends what it wrote to `text`
/// (or `units`) after checking the form's promises.
fn decode_call(
    decoder: &mut Decoder,
    form: OutForm,
    src: &[u8],
    room: usize,
    last: bool,
    text: &mut String,
    units: &mut Vec<u16>,
) -> DecodeProgress {
    match form {
        OutForm::Utf8 => {
            let mut buf = vec![0u8; room];
            let p = decoder.decode_to_utf8(src, &mut buf, last);
            text.push_str(std::str::from_utf8(&buf[..p.written]).expect("decode_to_utf8 writes whole UTF-8"));
            p
        }
        OutForm::Utf16 => {
            let mut buf = vec![0u16; room];
            let p = decoder.decode_to_utf16(src, &mut buf, last);
            assert!(String::from_utf16(&buf[..p.written]).is_ok(), "decode_to_utf16 writes whole UTF-16");
            units.extend_from_slice(&buf[..p.written]);
            p
        }
        OutForm::Str => {
            let mut buf = str_buffer(room);
            let p = decoder.decode_to_str(src, buf.as_mut_str(), last);
            assert!(std::str::from_utf8(buf.as_bytes()).is_ok(), "decode_to_str left invalid UTF-8 in its buffer");
            assert!(buf.is_char_boundary(p.written), "decode_to_str wrote a cut character");
            text.push_str(&buf[..p.written]);
            p
        }
        OutForm::String => {
            let mut buf = String::with_capacity(room + 2);
            buf.push_str("<>");
            let (ptr, capacity) = (buf.as_ptr(), buf.capacity());
            let p = decoder.decode_to_string(src, &mut buf, last);
            assert_eq!((buf.as_ptr(), buf.capacity()), (ptr, capacity), "decode_to_string reallocated");
            assert_eq!(buf.len(), 2 + p.written, "decode_to_string: written is not what was appended");
            assert!(buf.starts_with("<>"), "decode_to_string changed what was there");
            text.push_str(&buf[2..]);
            p
        }
    }
}

/// Decodes in chunks with fuzzer-chosen output sizes, going on after each error.
fn decode_streamed(
    encoding: &'static Encoding,
    options: DecoderOptions,
    input: &[u8],
    rng: &mut Rng,
    max_out: usize,
    form: OutForm,
    bound: bool,
) -> Decoded {
    let mut decoder = encoding.new_decoder_with(options);
    let mut text = String::new();
    let mut units = Vec::new();
    let mut errors = Vec::new();
    let mut text_at_errors = Vec::new();
    let progress_room = if form == OutForm::Utf16 { DECODE_PROGRESS_UTF16 } else { DECODE_PROGRESS_UTF8 };
    let points = splits(rng, input.len());
    let mut start = 0;
    let mut stalled = false;
    for (i, &end) in points.iter().chain(std::iter::once(&input.len())).enumerate() {
        let last = i == points.len();
        let mut chunk = &input[start..end];
        start = end;
        loop {
            let room = if bound {
                let max = match form {
                    OutForm::Utf16 => decoder.max_utf16_buffer_length(chunk.len()),
                    _ => decoder.max_utf8_buffer_length(chunk.len()),
                };
                max.expect("small input")
            } else if stalled {
                progress_room + rng.below(2)
            } else {
                rng.below(max_out + 1)
            };
            let p = decode_call(&mut decoder, form, chunk, room, last, &mut text, &mut units);
            assert!(p.read <= chunk.len(), "read past the input");
            chunk = &chunk[p.read..];
            stalled = false;
            match p.result {
                DecoderResult::InputEmpty => {
                    assert!(chunk.is_empty(), "InputEmpty with input left");
                    break;
                }
                DecoderResult::OutputFull => {
                    assert!(
                        !bound,
                        "{} {options:?} {form:?}: max buffer length {room} for {} bytes was not enough",
                        encoding.name(),
                        chunk.len() + p.read
                    );
                    if p.read == 0 && p.written == 0 {
                        assert!(
                            room < progress_room,
                            "{} {form:?}: no progress with {room} units of room",
                            encoding.name()
                        );
                        stalled = true;
                    }
                }
                DecoderResult::Malformed(error) => {
                    assert_eq!(options.mode, ErrorMode::Fatal, "Malformed in replacement mode");
                    text.push_str(&String::from_utf16(&units).expect("whole UTF-16"));
                    units.clear();
                    text_at_errors.push(text.len());
                    errors.push(error.offset);
                }
            }
        }
        if form == OutForm::Utf16 {
            text.push_str(&String::from_utf16(&units).expect("whole UTF-16"));
            units.clear();
        }
    }
    if options.mode == ErrorMode::Replacement {
        errors.extend(decoder.take_first_error().map(|e| e.offset));
    }
    Decoded { text, errors, text_at_errors, encoding: decoder.encoding() }
}

/// encoding_rs with the same options: text (up to the first error in "fatal" mode),
/// whether there was an error, and the encoding after BOM handling.
fn decode_peer(encoding: &'static Encoding, options: DecoderOptions, input: &[u8]) -> (String, bool, &'static str) {
    let peer = peer(encoding);
    let mut decoder = match options.bom {
        whatenc::BomHandling::None => peer.new_decoder_without_bom_handling(),
        whatenc::BomHandling::Sniff => peer.new_decoder(),
        whatenc::BomHandling::Remove => peer.new_decoder_with_bom_removal(),
    };
    let mut out = String::with_capacity(decoder.max_utf8_buffer_length(input.len()).unwrap());
    let had_errors = match options.mode {
        ErrorMode::Replacement => decoder.decode_to_string(input, &mut out, true).2,
        ErrorMode::Fatal => {
            let (result, _) = decoder.decode_to_string_without_replacement(input, &mut out, true);
            assert!(!matches!(result, encoding_rs::DecoderResult::OutputFull), "peer buffer");
            matches!(result, encoding_rs::DecoderResult::Malformed(..))
        }
    };
    (out, had_errors, decoder.encoding().name())
}

/// The decode check: whole against encoding_rs and the hooks, streamed against whole.
pub fn check_decode(data: &[u8]) {
    let Some(([enc, flags, seed, max_out], input)) = header::<4>(data) else { return };
    let encoding = crate::pick_encoding(enc);
    let mode = if flags & 1 == 0 { ErrorMode::Replacement } else { ErrorMode::Fatal };
    let form = [OutForm::Utf8, OutForm::Utf16, OutForm::Str, OutForm::String][(flags >> 1) as usize & 3];
    let options = DecoderOptions { mode, bom: crate::pick_bom(flags >> 3) };
    let bound = flags & 0x20 != 0;
    let (whole_tier, streamed_tier) = crate::pick_tiers(seed);
    let context = format!(
        "{} {options:?} {form:?} bound={bound} tiers {whole_tier:?}/{streamed_tier:?} input {input:02X?}",
        encoding.name()
    );

    whatenc::set_max_tier(whole_tier);
    let whole = decode_reference(encoding, options, input, true);
    if peer_agrees(encoding) {
        let (expected, peer_error, peer_encoding) = decode_peer(encoding, options, input);
        let ours = match whole.text_at_errors.first() {
            Some(&len) => &whole.text[..len],
            None => &whole.text[..],
        };
        assert_eq!(ours, expected, "text differs from encoding_rs: {context}");
        assert_eq!(!whole.errors.is_empty(), peer_error, "error differs from encoding_rs: {context}");
        assert_eq!(whole.encoding.name(), peer_encoding, "encoding after BOM differs from encoding_rs: {context}");
    }
    check_hooks(encoding, options, input, &whole, &context);

    whatenc::set_max_tier(streamed_tier);
    let mut rng = Rng::new(u64::from(seed) << 8 | u64::from(max_out));
    let streamed = decode_streamed(encoding, options, input, &mut rng, max_out as usize % 25, form, bound);
    assert_eq!(streamed, whole, "streamed differs from whole: {context}");
}

/// The whole-buffer entry points that correspond to `options`.
fn check_hooks(encoding: &'static Encoding, options: DecoderOptions, input: &[u8], whole: &Decoded, context: &str) {
    use whatenc::BomHandling::*;
    match (options.mode, options.bom) {
        (ErrorMode::Replacement, None) => {
            let (text, had_errors) = encoding.decode(input);
            assert_eq!((&*text, had_errors), (&*whole.text, !whole.errors.is_empty()), "Encoding::decode: {context}");
        }
        (ErrorMode::Fatal, None) => match encoding.decode_or_fail(input) {
            Ok(text) => assert_eq!((&*text, &whole.errors[..]), (&*whole.text, &[][..]), "decode_or_fail: {context}"),
            Err(error) => assert_eq!(Some(error.offset), whole.errors.first().copied(), "decode_or_fail: {context}"),
        },
        (ErrorMode::Replacement, Sniff) => {
            let (text, used) = hooks::decode(input, encoding);
            assert_eq!((&*text, used), (&*whole.text, whole.encoding), "hooks::decode: {context}");
        }
        (ErrorMode::Replacement, Remove) if encoding == whatenc::UTF_8 => {
            assert_eq!(hooks::utf8_decode(input), whole.text, "hooks::utf8_decode: {context}");
        }
        _ => {}
    }
}

/// The encode check: whole against encoding_rs and the hooks, from UTF-16 and
/// streamed (from `&str`, UTF-16 or both) against whole, with the bound promises.
pub fn check_encode(data: &[u8]) {
    let Some(([enc, flags, seed, max_out], rest)) = header::<4>(data) else { return };
    let encoding = crate::pick_encoder_encoding(enc);
    let mode = if flags & 1 == 0 { EncoderErrorMode::Html } else { EncoderErrorMode::Fatal };
    let input_form = (flags >> 1) & 3;
    let bound = flags & 0x08 != 0;
    let units = crate::units_from(flags >> 4, rest);
    let mut rng = Rng::new(u64::from(seed) << 8 | u64::from(max_out));
    let max_out = max_out as usize % 25;

    // The chunks and the form of each: 0 &str, 1 UTF-16. A `&str` chunk is its units
    // read lossily, so the text encoded is what the effective units spell.
    let points = splits(&mut rng, units.len());
    let mut chunks: Vec<(bool, Vec<u16>)> = Vec::new();
    let mut start = 0;
    for &end in points.iter().chain(std::iter::once(&units.len())) {
        let piece = &units[start..end];
        let utf16 = match input_form {
            1 => true,
            // An empty `&str` between the halves of a pair breaks it (a finding).
            2 => rng.chance(1, 2) || (piece.is_empty() && crate::skipped("empty-str-pair")),
            _ => false,
        };
        start = end;
        let piece = if utf16 { piece.to_vec() } else { String::from_utf16_lossy(piece).encode_utf16().collect() };
        chunks.push((utf16, piece));
    }
    let effective: Vec<u16> = chunks.iter().flat_map(|(_, piece)| piece.iter().copied()).collect();
    let text = String::from_utf16_lossy(&effective);
    let (whole_tier, streamed_tier) = crate::pick_tiers(seed);
    let context = format!(
        "{} {mode:?} form={input_form} bound={bound} tiers {whole_tier:?}/{streamed_tier:?} text {text:?} units {effective:04X?}",
        encoding.name()
    );

    whatenc::set_max_tier(whole_tier);
    let whole = encode_reference(encoding, mode, &text, true);
    if peer_agrees(encoding) {
        let mut peer_encoder = peer(encoding).new_encoder();
        let mut expected = Vec::with_capacity(text.len() * 12 + 16);
        match mode {
            EncoderErrorMode::Html => {
                let (_, _, had_references) = peer_encoder.encode_from_utf8_to_vec(&text, &mut expected, true);
                assert_eq!(whole.bytes, expected, "bytes differ from encoding_rs: {context}");
                assert_eq!(whole.had_references, had_references, "take_unmappable differs from encoding_rs: {context}");
            }
            EncoderErrorMode::Fatal => {
                let (result, read) =
                    peer_encoder.encode_from_utf8_to_vec_without_replacement(&text, &mut expected, true);
                let peer_first = match result {
                    encoding_rs::EncoderResult::Unmappable(c) => Some((crate::offset_of_last(&text, read), c)),
                    _ => None,
                };
                assert_eq!(
                    whole.unmappable.first().copied(),
                    peer_first,
                    "unmappable differs from encoding_rs: {context}"
                );
                let ours = &whole.bytes[..whole.bytes_before_first_error.unwrap_or(whole.bytes.len())];
                assert_eq!(ours, &expected[..], "bytes differ from encoding_rs: {context}");
            }
        }
    }
    check_encode_hooks(encoding, mode, &text, &whole, &context);

    // Whole from UTF-16, each call into exactly max_buffer_length_from_utf16.
    let mut encoder = encoding.new_encoder_with(mode).unwrap();
    let mut from_utf16 = Vec::new();
    let mut unmappable = Vec::new();
    let mut rest = &effective[..];
    loop {
        let room = encoder.max_buffer_length_from_utf16(rest.len()).unwrap();
        let mut buf = vec![0u8; room];
        let p = encoder.encode_from_utf16(rest, &mut buf, true);
        from_utf16.extend_from_slice(&buf[..p.written]);
        rest = &rest[p.read..];
        match p.result {
            EncoderResult::InputEmpty => break,
            EncoderResult::OutputFull => {
                panic!("max_buffer_length_from_utf16({}) = {room} was not enough: {context}", rest.len() + p.read)
            }
            EncoderResult::Unmappable(c) => unmappable.push(c),
        }
    }
    assert_eq!(from_utf16, whole.bytes, "from UTF-16 differs from &str: {context}");
    assert_eq!(unmappable, whole.unmappable.iter().map(|&(_, c)| c).collect::<Vec<_>>(), "from UTF-16: {context}");

    // Streamed.
    whatenc::set_max_tier(streamed_tier);
    let mut encoder = encoding.new_encoder_with(mode).unwrap();
    let mut streamed = Vec::new();
    let mut unmappable = Vec::new();
    let mut stalled = false;
    let count = chunks.len();
    for (i, (utf16, piece)) in chunks.iter().enumerate() {
        let last = i + 1 == count;
        let piece_text = (!utf16).then(|| String::from_utf16(piece).expect("a &str chunk is whole"));
        let mut read = 0;
        loop {
            let room = if bound {
                match &piece_text {
                    Some(t) => encoder.max_buffer_length_from_utf8(t.len() - read),
                    None => encoder.max_buffer_length_from_utf16(piece.len() - read),
                }
                .unwrap()
            } else if stalled {
                ENCODE_PROGRESS + rng.below(2)
            } else {
                rng.below(max_out + 1)
            };
            let mut buf = vec![0u8; room];
            let p = match &piece_text {
                Some(t) => encoder.encode_from_utf8(&t[read..], &mut buf, last),
                None => encoder.encode_from_utf16(&piece[read..], &mut buf, last),
            };
            streamed.extend_from_slice(&buf[..p.written]);
            read += p.read;
            stalled = false;
            match p.result {
                EncoderResult::InputEmpty => break,
                EncoderResult::OutputFull => {
                    assert!(!bound, "max_buffer_length was not enough for a streamed call of {room} bytes: {context}");
                    if p.read == 0 && p.written == 0 {
                        assert!(room < ENCODE_PROGRESS, "no progress with {room} bytes of room: {context}");
                        stalled = true;
                    }
                }
                EncoderResult::Unmappable(c) => unmappable.push(c),
            }
        }
    }
    assert_eq!(unmappable, whole.unmappable.iter().map(|&(_, c)| c).collect::<Vec<_>>(), "streamed: {context}");
    assert_eq!(streamed, whole.bytes, "streamed differs from whole: {context}");
}

/// The whole-buffer entry points that correspond to `mode`.
fn check_encode_hooks(
    encoding: &'static Encoding,
    mode: EncoderErrorMode,
    text: &str,
    whole: &crate::Encoded,
    context: &str,
) {
    match mode {
        EncoderErrorMode::Html => {
            let (bytes, unmappable) = encoding.encode(text).unwrap();
            assert_eq!(&*bytes, &whole.bytes[..], "Encoding::encode: {context}");
            assert_eq!(unmappable, whole.had_references, "Encoding::encode's flag: {context}");
            assert_eq!(&*hooks::encode(text, encoding).unwrap(), &whole.bytes[..], "hooks::encode: {context}");
        }
        EncoderErrorMode::Fatal => {
            // "encode or fail", going on after each failure as URL percent-encoding does.
            let mut encoder = hooks::get_an_encoder(encoding).unwrap();
            let mut input = text;
            let mut output = Vec::new();
            let mut failures = Vec::new();
            while let Some(c) = hooks::encode_or_fail(&mut input, &mut encoder, &mut output) {
                failures.push((crate::offset_of_last(text, text.len() - input.len()), c));
            }
            assert!(input.is_empty(), "encode_or_fail left input: {context}");
            assert_eq!(
                (output, failures),
                (whole.bytes.clone(), whole.unmappable.clone()),
                "encode_or_fail: {context}"
            );
        }
    }
}
