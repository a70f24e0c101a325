//! "replacement" mode's first error ([`Decoder::take_first_error`]) against "fatal"
//! mode's first `Malformed`: the same offset and length, and the same text with a
//! U+FFFD at each error (`decode_to_string` within the spare capacity it is given),
//! for every encoding, every output form (`String`, UTF-8 and UTF-16 buffers, of
//! the largest size and of a few units), each input whole and cut into two (short
//! ones at every point, long ones every 211 bytes). The handlers that write the
//! U+FFFD of an error themselves report where it was through another path than the
//! errors they return; this holds the two to the same answer, on text with an error
//! every few bytes and on text where errors are far apart.

mod common;

use common::*;
use whatenc::{
    BomHandling, DecodeError, Decoder, DecoderOptions, DecoderResult, EncoderErrorMode, Encoding, ErrorMode,
};

const FATAL: DecoderOptions = DecoderOptions { mode: ErrorMode::Fatal, bom: BomHandling::None };
const REPLACEMENT: DecoderOptions = DecoderOptions { mode: ErrorMode::Replacement, bom: BomHandling::None };

/// Text for the valid stretches: ASCII and characters of most legacy encodings.
const TEXT: &str = "The café — naïve 中文 日本語 한국어 Русский ελληνικά עברית 😀 <p>";

/// An input: stretches of valid text in `encoding` (0 to `stretch` bytes) between
/// random bytes (1 to 3), and for UTF-16 lone surrogates.
fn input(rng: &mut Rng, encoding: &'static Encoding, len: usize, stretch: usize) -> Vec<u8> {
    let utf16 = encoding == whatenc::UTF_16LE || encoding == whatenc::UTF_16BE;
    let mut out = Vec::new();
    while out.len() < len {
        let n = rng.below(stretch + 1);
        let skip = rng.below(TEXT.chars().count());
        let text: String = TEXT.chars().cycle().skip(skip).take(n).collect();
        if utf16 {
            for unit in text.encode_utf16() {
                out.extend(if encoding == whatenc::UTF_16LE { unit.to_le_bytes() } else { unit.to_be_bytes() });
            }
            let surrogate = 0xD800 + rng.below(0x800) as u16;
            out.extend(if encoding == whatenc::UTF_16LE { surrogate.to_le_bytes() } else { surrogate.to_be_bytes() });
        } else if let Ok(mut encoder) = encoding.new_encoder_with(EncoderErrorMode::Html) {
            let mut bytes = vec![0; text.len() * 10 + 16];
            let progress = encoder.encode_from_utf8(&text, &mut bytes, true);
            out.extend_from_slice(&bytes[..progress.written]);
        }
        for _ in 0..1 + rng.below(3) {
            out.push(rng.byte());
        }
    }
    out
}

/// The first error and the text of a "replacement" run over `chunks` into `form`
/// (`None`: a `String`), with output buffers of size `buf`.
fn replacement_run(
    encoding: &'static Encoding,
    chunks: &[&[u8]],
    form: Option<Form>,
    buf: Buf,
) -> (Option<DecodeError>, String) {
    let mut decoder = encoding.new_decoder_with(REPLACEMENT);
    let mut text = String::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        match form {
            Some(form) => {
                let mut run = DecodeRun::default();
                decode_one_call(&mut decoder, chunk, last, buf, form, &mut run, false);
                assert!(run.errors.is_empty(), "Malformed in replacement mode");
                text.push_str(&run.text);
            }
            None => to_string(&mut decoder, chunk, last, buf, &mut text),
        }
    }
    (decoder.take_first_error(), text)
}

/// `decode_to_string` over one chunk, appending to `text`, with the spare capacity
/// the largest size or a few bytes at a time; each call stays within the spare
/// capacity (the string is never reallocated) and `written` is what it appended.
fn to_string(decoder: &mut Decoder, chunk: &[u8], last: bool, buf: Buf, text: &mut String) {
    let mut pos = 0;
    loop {
        match buf {
            Buf::Max => text.reserve(decoder.max_utf8_buffer_length(chunk.len() - pos).unwrap()),
            Buf::Fixed(n) => text.reserve_exact(n),
        }
        let (capacity, len) = (text.capacity(), text.len());
        let progress = decoder.decode_to_string(&chunk[pos..], text, last);
        assert_eq!(text.capacity(), capacity, "decode_to_string reallocated");
        assert_eq!(text.len() - len, progress.written, "written is not what was appended");
        pos += progress.read;
        match progress.result {
            DecoderResult::InputEmpty => return,
            DecoderResult::OutputFull => assert!(buf != Buf::Max, "OutputFull with room for all"),
            DecoderResult::Malformed(_) => panic!("Malformed in replacement mode"),
        }
    }
}

fn check(encoding: &'static Encoding, bytes: &[u8], cut_every: usize) -> Result<(), String> {
    let fatal = decode_whole(encoding, FATAL, bytes);
    let expected = fatal.errors.first().map(|&(_, error)| error);
    // "fatal" goes on after each error here, so its text with a U+FFFD at each is
    // what "replacement" gives.
    let expected_text = fatal.with_replacements();
    let forms = [
        (None, Buf::Max),
        (None, Buf::Fixed(7)),
        (Some(Form::Utf8), Buf::Max),
        (Some(Form::Utf16), Buf::Max),
        (Some(Form::Utf8), Buf::Fixed(5)),
        (Some(Form::Utf16), Buf::Fixed(3)),
    ];
    for cut in (0..=bytes.len()).step_by(cut_every) {
        let chunks: [&[u8]; 2] = [&bytes[..cut], &bytes[cut..]];
        for &(form, buf) in &forms {
            let (got, text) = replacement_run(encoding, &chunks, form, buf);
            if text != expected_text {
                return Err(format!(
                    "{form:?} {buf:?}, cut at {cut}: text differs from fatal mode's with replacements"
                ));
            }
            if got != expected {
                let shown = &bytes[..bytes.len().min(96)];
                return Err(format!(
                    "{form:?} {buf:?}, cut at {cut}: {got:?}, fatal mode {expected:?}, input of {} bytes {shown:02X?}",
                    bytes.len()
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn replacement_first_error_is_fatal_first_error() {
    with_watchdog("replacement_first_error_is_fatal_first_error", 240, || {
        let mut tally = Tally::default();
        let mut rng = Rng::new(0xF1E5);
        for &encoding in Encoding::all() {
            for round in 0..60 {
                // Dense errors in short inputs, cut everywhere; and longer ones, with
                // stretches past the vector kernels' set-up, cut every few bytes.
                let (len, stretch, cut_every) = if round % 4 == 3 { (3000, 400, 211) } else { (60, 4 + round % 24, 1) };
                let bytes = input(&mut rng, encoding, len, stretch);
                tally.record(&[encoding.name()], check(encoding, &bytes, cut_every));
            }
        }
        tally.report("replacement_first_error_is_fatal_first_error", 5);
        assert_eq!(tally.total_failures(), 0);
    });
}
