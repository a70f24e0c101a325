// Written against encoding_rs 0.8's API only. Built twice: against
// whatenc-encoding-rs (this crate) and against encoding_rs (tests/real.rs).

use std::borrow::Cow;
use std::io::{self, Read};

use encoding_rs::{CoderResult, Decoder, DecoderResult, Encoding, UTF_8, WINDOWS_1252};

/// Decodes a document as a browser does: a BOM wins, then the label, then
/// windows-1252. Returns the text, the encoding's name, and whether there were
/// malformed sequences.
pub fn decode_document<'a>(bytes: &'a [u8], label: Option<&str>) -> (Cow<'a, str>, &'static str, bool) {
    let fallback = label.and_then(|l| Encoding::for_label(l.as_bytes())).unwrap_or(WINDOWS_1252);
    let (text, encoding, had_errors) = fallback.decode(bytes);
    (text, encoding.name(), had_errors)
}

/// Reads a whole stream in chunks through a decoder into a `String`, growing it
/// by the decoder's own bound (the encoding_rs_io pattern).
pub fn read_to_string<R: Read>(mut reader: R, encoding: &'static Encoding) -> io::Result<(String, bool)> {
    let mut decoder: Decoder = encoding.new_decoder();
    let mut text = String::new();
    let mut buffer = [0u8; 4096];
    let mut had_errors = false;
    loop {
        let n = reader.read(&mut buffer)?;
        let last = n == 0;
        let mut input = &buffer[..n];
        loop {
            let needed = decoder.max_utf8_buffer_length(input.len()).expect("no overflow");
            text.reserve(needed);
            let (result, read, errors) = decoder.decode_to_string(input, &mut text, last);
            had_errors |= errors;
            input = &input[read..];
            match result {
                CoderResult::InputEmpty => break,
                CoderResult::OutputFull => continue,
            }
        }
        if last {
            return Ok((text, had_errors));
        }
    }
}

/// Checks a whole buffer strictly: the offset of the first malformed sequence.
pub fn first_error(bytes: &[u8], encoding: &'static Encoding) -> Option<usize> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = vec![0u16; decoder.max_utf16_buffer_length(bytes.len()).expect("no overflow")];
    let (result, read, _) = decoder.decode_to_utf16_without_replacement(bytes, &mut out, true);
    match result {
        DecoderResult::InputEmpty => None,
        DecoderResult::OutputFull => unreachable!("sized by max_utf16_buffer_length"),
        DecoderResult::Malformed(len, after) => Some(read - usize::from(after) - usize::from(len)),
    }
}

/// Encodes text for a form submission: the output encoding, and numeric character
/// references for what it cannot represent, into a `Vec` grown as needed.
pub fn encode_form(text: &str, label: &str) -> (Vec<u8>, &'static str) {
    let encoding = Encoding::for_label_no_replacement(label.as_bytes()).unwrap_or(UTF_8).output_encoding();
    let mut encoder = encoding.new_encoder();
    let mut out =
        Vec::with_capacity(encoder.max_buffer_length_from_utf8_if_no_unmappables(text.len()).expect("no overflow"));
    let mut rest = text;
    loop {
        let (result, read, _) = encoder.encode_from_utf8_to_vec(rest, &mut out, true);
        rest = &rest[read..];
        match result {
            CoderResult::InputEmpty => return (out, encoder.encoding().name()),
            CoderResult::OutputFull => out.reserve(64),
        }
    }
}

/// Latin-1 strings, as JavaScript engines keep them.
pub fn latin1_or_utf16(text: &str) -> Result<Vec<u8>, Vec<u16>> {
    if encoding_rs::mem::is_str_latin1(text) {
        Ok(encoding_rs::mem::encode_latin1_lossy(text).into_owned())
    } else {
        let mut units = vec![0u16; text.len()];
        let n = encoding_rs::mem::convert_str_to_utf16(text, &mut units);
        units.truncate(n);
        Err(units)
    }
}
