//! The `max_*` promises against their worst inputs: "a buffer of
//! `max_utf8_buffer_length` (or the UTF-16 twin) for the input length is always
//! enough for one call to consume all input" (decoders) and "a buffer of
//! `max_buffer_length_from_utf8` (or `_from_utf16`) is always enough for one call"
//! (encoders), in every encoding, every error mode and BOM handling, with the
//! stream cut at every point so that the state carried between calls is the worst
//! it can be too.
//!
//! The worst inputs of the encoders are searched, not guessed: every BMP scalar
//! value (and a spread of astral ones) is encoded after each state-setting prefix,
//! and the ones that write the most bytes per input unit make up the test texts.

mod common;

use common::Rng;
use whatenc::{
    BomHandling, DecoderOptions, DecoderResult, Encoder, EncoderErrorMode, EncoderResult, Encoding, ErrorMode,
};

const ENCODER_MODES: [EncoderErrorMode; 2] = [EncoderErrorMode::Fatal, EncoderErrorMode::Html];

/// Text that puts each stateful encoder (ISO-2022-JP) in each of its states: ASCII,
/// Roman (¥) and jis0208 (§, 日); a lone "a" for the others.
const STATE_SETTERS: [&str; 4] = ["a", "¥", "§", "日"];

fn encoders() -> impl Iterator<Item = (&'static Encoding, EncoderErrorMode)> {
    Encoding::all()
        .iter()
        .copied()
        .filter(|e| e.new_encoder().is_ok())
        .flat_map(|e| ENCODER_MODES.iter().map(move |&mode| (e, mode)))
}

fn new_encoder(encoding: &'static Encoding, mode: EncoderErrorMode) -> Encoder {
    encoding.new_encoder_with(mode).unwrap()
}

/// Bytes written for `c` by an encoder that has already encoded `prefix`.
fn cost_after(encoding: &'static Encoding, mode: EncoderErrorMode, prefix: &str, c: char) -> usize {
    let mut encoder = new_encoder(encoding, mode);
    let mut out = [0u8; 64];
    let first = encoder.encode_from_utf8(prefix, &mut out, false);
    let mut buf = [0u8; 4];
    let second = encoder.encode_from_utf8(c.encode_utf8(&mut buf), &mut out[first.written..], false);
    second.written
}

/// For each UTF-8 length (1 to 4), the scalar values that cost the most output bytes
/// after any state setter: every BMP scalar value and astral ones from every plane.
fn worst_chars(encoding: &'static Encoding, mode: EncoderErrorMode) -> Vec<char> {
    let stateful = encoding == whatenc::ISO_2022_JP;
    let prefixes: &[&str] = if stateful { &STATE_SETTERS } else { &STATE_SETTERS[..1] };
    let mut best: [(usize, Vec<char>); 5] = Default::default();
    let astral = (1..=16u32).flat_map(|plane| [plane << 16, (plane << 16) | 0xFFFF, (plane << 16) | 0x1234]);
    for c in (0..=0xFFFFu32).chain(astral).filter_map(char::from_u32) {
        let cost = prefixes.iter().map(|p| cost_after(encoding, mode, p, c)).max().unwrap();
        let (top, chars) = &mut best[c.len_utf8()];
        if cost > *top {
            *top = cost;
            chars.clear();
        }
        if cost == *top && chars.len() < 4 {
            chars.push(c);
        }
    }
    best.into_iter().flat_map(|(_, chars)| chars).collect()
}

/// Test texts: each worst character repeated, after and between state setters, and
/// random mixes of both.
fn worst_texts(encoding: &'static Encoding, mode: EncoderErrorMode, rng: &mut Rng) -> Vec<String> {
    let worst = worst_chars(encoding, mode);
    let mut texts = Vec::new();
    for &c in &worst {
        texts.push(c.to_string().repeat(40));
        for setter in STATE_SETTERS {
            texts.push(format!("{setter}{c}").repeat(12));
            texts.push(format!("{setter}{}", c.to_string().repeat(20)));
        }
    }
    let pool: Vec<String> = worst.iter().map(char::to_string).chain(STATE_SETTERS.map(String::from)).collect();
    for _ in 0..60 {
        let len = 1 + rng.below(40);
        texts.push((0..len).map(|_| rng.pick(&pool).as_str()).collect());
    }
    texts
}

/// Encodes `pieces` as one stream, each with a buffer of exactly the promised length,
/// and checks that each call consumes its whole piece (in "fatal" mode, calls again
/// with the rest after an unmappable character, with the bound of the rest).
fn check_encode_pieces<T>(
    mut encoder: Encoder,
    pieces: &[&[T]],
    bound: impl Fn(&Encoder, usize) -> Option<usize>,
    encode: impl Fn(&mut Encoder, &[T], &mut [u8], bool) -> whatenc::EncodeProgress,
) -> Result<(), String> {
    for (i, piece) in pieces.iter().enumerate() {
        let last = i + 1 == pieces.len();
        let mut read = 0;
        loop {
            let rest = &piece[read..];
            let mut out = vec![0u8; bound(&encoder, rest.len()).ok_or("bound overflowed")?];
            let progress = encode(&mut encoder, rest, &mut out, last);
            read += progress.read;
            match progress.result {
                EncoderResult::InputEmpty if read == piece.len() => break,
                EncoderResult::Unmappable(_) => continue,
                other => return Err(format!("piece {i}: {other:?} after {read} of {} units", piece.len())),
            }
        }
    }
    Ok(())
}

fn str_pieces(text: &str, cut: usize) -> [&[u8]; 2] {
    let (a, b) = text.split_at(cut);
    [a.as_bytes(), b.as_bytes()]
}

fn encode_str(encoder: &mut Encoder, src: &[u8], dst: &mut [u8], last: bool) -> whatenc::EncodeProgress {
    encoder.encode_from_utf8(std::str::from_utf8(src).unwrap(), dst, last)
}

#[test]
fn encoder_bounds_hold_for_the_worst_text_cut_anywhere() {
    common::with_watchdog("encoder bounds", 600, || {
        let mut rng = Rng::new(0x5EED_0001);
        let mut failures = Vec::new();
        let mut checked = 0usize;
        for (encoding, mode) in encoders() {
            for text in worst_texts(encoding, mode, &mut rng) {
                let units: Vec<u16> = text.encode_utf16().collect();
                for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                    let result = check_encode_pieces(
                        new_encoder(encoding, mode),
                        &str_pieces(&text, cut),
                        Encoder::max_buffer_length_from_utf8,
                        encode_str,
                    );
                    checked += 1;
                    if let Err(e) = result {
                        failures.push(format!("{} {mode:?} utf8 {text:?} cut {cut}: {e}", encoding.name()));
                    }
                }
                // UTF-16: cut at every unit, so between the halves of surrogate pairs too.
                for cut in 0..=units.len() {
                    let (a, b) = units.split_at(cut);
                    let result = check_encode_pieces(
                        new_encoder(encoding, mode),
                        &[a, b],
                        Encoder::max_buffer_length_from_utf16,
                        Encoder::encode_from_utf16,
                    );
                    checked += 1;
                    if let Err(e) = result {
                        failures.push(format!("{} {mode:?} utf16 {text:?} cut {cut}: {e}", encoding.name()));
                    }
                }
            }
        }
        eprintln!("encoder bounds: {checked} streams checked, {} failures", failures.len());
        assert!(failures.is_empty(), "{} failures, first: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
    });
}

/// The worst text of all, named in the issue that found the bug: ISO-2022-JP in
/// "html" mode writes `&#65533;` (8 bytes) for each ESC (1 byte), so 100 of them need
/// 800 bytes; the old bound (4n + 17) gave 417.
#[test]
fn iso_2022_jp_html_escapes_fit_the_bound() {
    for count in [1, 5, 100, 1000] {
        for prefix in ["", "日", "¥"] {
            let text = format!("{prefix}{}", "\u{1B}\u{0E}\u{0F}".repeat(count));
            let mut encoder = new_encoder(whatenc::ISO_2022_JP, EncoderErrorMode::Html);
            let mut out = vec![0u8; encoder.max_buffer_length_from_utf8(text.len()).unwrap()];
            let progress = encoder.encode_from_utf8(&text, &mut out, true);
            assert_eq!((progress.result, progress.read), (EncoderResult::InputEmpty, text.len()), "{count} {prefix}");
            let written = &out[..progress.written];
            let references = written.windows(8).filter(|w| w == b"&#65533;").count();
            assert_eq!(references, 3 * count, "{count} {prefix}");
        }
    }
}

/// A leading surrogate held at the end of UTF-16 input is U+FFFD when the next input
/// comes as UTF-8 (it was alone), whatever the form of the next call.
#[test]
fn held_lead_surrogate_then_utf8_input_is_replaced() {
    for (encoding, mode, expected) in [
        (whatenc::UTF_8, EncoderErrorMode::Fatal, &b"a\xEF\xBF\xBDb"[..]),
        (whatenc::WINDOWS_1252, EncoderErrorMode::Html, b"a&#65533;b"),
        (whatenc::ISO_2022_JP, EncoderErrorMode::Html, b"a\x1B$BF|\x1B(B&#65533;b"),
    ] {
        let mut encoder = new_encoder(encoding, mode);
        let mut out = [0u8; 64];
        let head: Vec<u16> =
            if encoding == whatenc::ISO_2022_JP { vec![0x61, 0x65E5, 0xD83D] } else { vec![0x61, 0xD83D] };
        let first = encoder.encode_from_utf16(&head, &mut out, false);
        assert_eq!((first.result, first.read), (EncoderResult::InputEmpty, head.len()));
        let room = encoder.max_buffer_length_from_utf8(1).unwrap();
        let second = encoder.encode_from_utf8("b", &mut out[first.written..first.written + room], true);
        assert_eq!((second.result, second.read), (EncoderResult::InputEmpty, 1), "{}", encoding.name());
        assert_eq!(&out[..first.written + second.written], expected, "{}", encoding.name());
    }
    // "fatal" mode: the held lead is an unmappable U+FFFD, reported by the call that
    // found it alone, before any of the new text is read.
    let mut encoder = new_encoder(whatenc::WINDOWS_1252, EncoderErrorMode::Fatal);
    let mut out = [0u8; 64];
    let first = encoder.encode_from_utf16(&[0x61, 0xD83D], &mut out, false);
    assert_eq!(first.written, 1);
    let second = encoder.encode_from_utf8("b", &mut out, true);
    assert_eq!((second.result, second.read, second.written), (EncoderResult::Unmappable('\u{FFFD}'), 0, 0));
    let third = encoder.encode_from_utf8("b", &mut out, true);
    assert_eq!((third.result, third.read, &out[..third.written]), (EncoderResult::InputEmpty, 1, &b"b"[..]));
    // An empty `&str` in the middle of the stream changes nothing: the lead still
    // pairs with the trail that comes next (found by the `encode` fuzz target).
    let mut encoder = new_encoder(whatenc::UTF_8, EncoderErrorMode::Fatal);
    let first = encoder.encode_from_utf16(&[0xD83D], &mut out, false);
    let empty = encoder.encode_from_utf8("", &mut out[first.written..], false);
    assert_eq!((empty.result, empty.read, empty.written), (EncoderResult::InputEmpty, 0, 0));
    let last = encoder.encode_from_utf16(&[0xDE00], &mut out, true);
    assert_eq!(&out[..last.written], "😀".as_bytes());
    // With no room, the lead stays held and nothing is read.
    let mut encoder = new_encoder(whatenc::UTF_8, EncoderErrorMode::Fatal);
    let _ = encoder.encode_from_utf16(&[0xD83D], &mut out, false);
    let full = encoder.encode_from_utf8("b", &mut out[..2], true);
    assert_eq!((full.result, full.read, full.written), (EncoderResult::OutputFull, 0, 0));
    let done = encoder.encode_from_utf8("b", &mut out, true);
    assert_eq!(&out[..done.written], "\u{FFFD}b".as_bytes());
}

/// Bytes that start, continue, end or break the sequences of every decoder: ASCII,
/// ESC and ISO-2022-JP's escape letters, SO/SI, lead and trail ranges, BOM bytes,
/// surrogate halves, gb18030's digits.
const INTERESTING_BYTES: &[u8] = &[
    0x00, 0x0E, 0x0F, 0x1B, 0x24, 0x28, 0x30, 0x39, 0x40, 0x42, 0x44, 0x49, 0x4A, 0x5C, 0x7E, 0x7F, 0x80, 0x81, 0x87,
    0x8E, 0x8F, 0x90, 0xA0, 0xA1, 0xBB, 0xBF, 0xC2, 0xD8, 0xDB, 0xDC, 0xDF, 0xE0, 0xEF, 0xF0, 0xF4, 0xFE, 0xFF,
];

fn decoder_options() -> impl Iterator<Item = DecoderOptions> {
    [ErrorMode::Replacement, ErrorMode::Fatal].into_iter().flat_map(|mode| {
        [BomHandling::None, BomHandling::Sniff, BomHandling::Remove]
            .into_iter()
            .map(move |bom| DecoderOptions { mode, bom })
    })
}

/// Test inputs: every byte repeated, every pair of interesting bytes repeated, BOMs
/// before them, and random strings of interesting bytes.
fn decoder_inputs(rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut inputs = Vec::new();
    for b in 0..=255u8 {
        inputs.push(vec![b; 12]);
    }
    for &a in INTERESTING_BYTES {
        for &b in INTERESTING_BYTES {
            inputs.push([a, b].repeat(4));
        }
    }
    for bom in [&b"\xEF\xBB\xBF"[..], b"\xFE\xFF", b"\xFF\xFE", b"\xEF\xBB", b"\xFE"] {
        for &b in INTERESTING_BYTES {
            inputs.push([bom, &[b; 5]].concat());
        }
    }
    for _ in 0..200 {
        let len = 1 + rng.below(24);
        inputs.push((0..len).map(|_| *rng.pick(INTERESTING_BYTES)).collect());
    }
    inputs
}

/// Output forms of a decoder, each with its bound.
#[derive(Debug, Clone, Copy)]
enum Form {
    Utf8,
    Str,
    /// `decode_to_string` into a `String` with that much spare capacity.
    String,
    Utf16,
}

/// Decodes `pieces` as one stream, each call with a buffer of exactly the promised
/// length for the input it is given, and checks that no call reports `OutputFull`.
fn check_decode_pieces(
    encoding: &'static Encoding,
    options: DecoderOptions,
    pieces: &[&[u8]],
    form: Form,
) -> Result<(), String> {
    let mut decoder = encoding.new_decoder_with(options);
    for (i, piece) in pieces.iter().enumerate() {
        let last = i + 1 == pieces.len();
        let mut read = 0;
        loop {
            let rest = &piece[read..];
            let progress = match form {
                Form::Utf8 => {
                    let mut out = vec![0u8; decoder.max_utf8_buffer_length(rest.len()).unwrap()];
                    decoder.decode_to_utf8(rest, &mut out, last)
                }
                Form::Str => {
                    let mut out = "\0".repeat(decoder.max_utf8_buffer_length(rest.len()).unwrap());
                    decoder.decode_to_str(rest, &mut out, last)
                }
                Form::String => {
                    let mut out = String::with_capacity(decoder.max_utf8_buffer_length(rest.len()).unwrap());
                    decoder.decode_to_string(rest, &mut out, last)
                }
                Form::Utf16 => {
                    let mut out = vec![0u16; decoder.max_utf16_buffer_length(rest.len()).unwrap()];
                    decoder.decode_to_utf16(rest, &mut out, last)
                }
            };
            read += progress.read;
            match progress.result {
                DecoderResult::InputEmpty if read == piece.len() => break,
                DecoderResult::Malformed(_) => continue,
                other => return Err(format!("piece {i}: {other:?} after {read} of {} bytes", piece.len())),
            }
        }
    }
    Ok(())
}

#[test]
fn decoder_bounds_hold_for_the_worst_input_cut_anywhere() {
    common::with_watchdog("decoder bounds", 600, || {
        let inputs = decoder_inputs(&mut Rng::new(0x5EED_0002));
        let mut failures = Vec::new();
        let mut checked = 0usize;
        for &encoding in Encoding::all() {
            for options in decoder_options() {
                for input in &inputs {
                    for cut in 0..=input.len() {
                        let (a, b) = input.split_at(cut);
                        for form in [Form::Utf8, Form::Str, Form::String, Form::Utf16] {
                            checked += 1;
                            if let Err(e) = check_decode_pieces(encoding, options, &[a, b], form) {
                                failures.push(format!(
                                    "{} {options:?} {form:?} {input:02X?} cut {cut}: {e}",
                                    encoding.name()
                                ));
                            }
                        }
                    }
                }
            }
        }
        eprintln!("decoder bounds: {checked} streams checked, {} failures", failures.len());
        assert!(failures.is_empty(), "{} failures, first: {:#?}", failures.len(), &failures[..failures.len().min(5)]);
    });
}

/// `decode_to_string` zero-fills the spare capacity a piece at a time, each sized
/// from the output per input byte so far; the promise is the same: with the
/// capacity of the bound, one call consumes all input. Its worst inputs are long
/// ones whose output per input byte jumps: ASCII long past the first piece, then
/// the bytes that decode widest (a replacement character or a three-byte character
/// a byte), and the other way round. The output must be what `decode_to_utf8`
/// writes.
#[test]
fn decode_to_string_takes_long_inputs_whose_width_jumps_in_one_call() {
    let mut rng = Rng::new(0x5EED_0003);
    let wide: Vec<u8> = (0..3000).map(|_| 0x80 + rng.below(0x80) as u8).collect();
    let mut checked = 0;
    for &encoding in Encoding::all() {
        for ascii in [4095, 4096, 4097, 9000, 40_000] {
            let narrow = vec![b'a'; ascii];
            for input in [[&narrow[..], &wide[..]].concat(), [&wide[..], &narrow[..], &wide[..]].concat()] {
                let options = DecoderOptions { mode: ErrorMode::Replacement, bom: BomHandling::None };
                let bound = encoding.new_decoder_with(options).max_utf8_buffer_length(input.len()).unwrap();
                let mut expected = vec![0u8; bound];
                let done = encoding.new_decoder_with(options).decode_to_utf8(&input, &mut expected, true);
                assert_eq!((done.result, done.read), (DecoderResult::InputEmpty, input.len()));
                let mut out = String::with_capacity(bound);
                let progress = encoding.new_decoder_with(options).decode_to_string(&input, &mut out, true);
                assert_eq!(
                    (progress.result, progress.read, progress.written),
                    (DecoderResult::InputEmpty, input.len(), done.written),
                    "{} after {ascii} ASCII bytes",
                    encoding.name()
                );
                assert_eq!(out.as_bytes(), &expected[..done.written], "{}", encoding.name());
                checked += 1;
            }
        }
    }
    assert_eq!(checked, Encoding::all().len() * 10);
}

/// The bounds say `None` rather than wrap when the length overflows.
#[test]
fn bounds_overflow_to_none() {
    for &encoding in Encoding::all() {
        let decoder = encoding.new_decoder();
        assert_eq!(decoder.max_utf8_buffer_length(usize::MAX), None);
        assert_eq!(decoder.max_utf16_buffer_length(usize::MAX), None);
        if let Ok(encoder) = encoding.new_encoder() {
            assert_eq!(encoder.max_buffer_length_from_utf8(usize::MAX / 2), None);
            assert_eq!(encoder.max_buffer_length_from_utf16(usize::MAX / 4), None);
        }
    }
}

/// "Only `dst[..written]` is output: up to 16 bytes after it may have been
/// overwritten" (the encoders' streaming contract), against the inputs whose kernels
/// store whole vectors: long mixes of ASCII, letters of each single-byte encoding's
/// run, its other characters and ones it does not have (Latin, Cyrillic, Greek, Thai,
/// CJK, astral), from `&str` and from UTF-16, in both error modes, into outputs of
/// every size filled with a sentinel: the bytes past `written + 16` keep it, and the
/// output of all the calls is the output of one.
#[test]
fn encoders_write_at_most_16_bytes_past_their_output() {
    const SENTINEL: u8 = 0xA5;
    let alphabet: Vec<char> =
        "abc xyz 0123 ,.;\néèàçüßœŠž€‚„“”–—ÀÿčřěůšğışİĞαβγωΑΩабвгдяАЯёЁкошкаกขคงจฉชซ世界日本語한국어ąłńść€™ "
            .chars()
            .chain(['\u{1F600}', '\u{10FFFD}', '\u{300}', '\u{323}'])
            .collect();
    let mut rng = Rng::new(0x5EED_0016);
    for (encoding, mode) in encoders() {
        for round in 0..6 {
            // Stretches of one kind of character, so that whole vectors of them come.
            let mut text = String::new();
            while text.len() < 700 {
                let c = alphabet[rng.below(alphabet.len())];
                for _ in 0..1 + rng.below(if round % 2 == 0 { 3 } else { 80 }) {
                    text.push(if rng.below(4) == 0 { alphabet[rng.below(alphabet.len())] } else { c });
                }
            }
            let units: Vec<u16> = text.encode_utf16().collect();
            let mut whole = vec![0u8; new_encoder(encoding, mode).max_buffer_length_from_utf8(text.len()).unwrap()];
            let progress = new_encoder(encoding, mode).encode_from_utf8(&text, &mut whole, true);
            let expected_end = progress.read;
            let expected = &whole[..progress.written];
            for utf16 in [false, true] {
                let mut encoder = new_encoder(encoding, mode);
                let (mut out, mut read) = (Vec::new(), 0);
                let total = if utf16 { units.len() } else { text.len() };
                loop {
                    let room = 1 + rng.below(200);
                    let mut buf = vec![SENTINEL; room + 64];
                    let progress = if utf16 {
                        encoder.encode_from_utf16(&units[read..], &mut buf[..room], true)
                    } else {
                        encoder.encode_from_utf8(&text[read..], &mut buf[..room], true)
                    };
                    let past = (progress.written + 16).min(room);
                    assert!(
                        buf[past..].iter().all(|&b| b == SENTINEL),
                        "{} {mode:?} utf16 {utf16}: wrote past written + 16 (room {room})",
                        encoding.name()
                    );
                    out.extend_from_slice(&buf[..progress.written]);
                    read += progress.read;
                    match progress.result {
                        EncoderResult::InputEmpty => break,
                        EncoderResult::OutputFull => {}
                        EncoderResult::Unmappable(_) => break,
                    }
                }
                if mode == EncoderErrorMode::Html {
                    assert_eq!(read, total, "{} utf16 {utf16}", encoding.name());
                    assert_eq!(out, expected, "{} {mode:?} utf16 {utf16}", encoding.name());
                } else if !utf16 {
                    // Fatal: the same bytes up to the first unmappable character.
                    assert_eq!(read, expected_end, "{}", encoding.name());
                    assert_eq!(out, expected, "{} {mode:?}", encoding.name());
                } else {
                    assert!(expected.starts_with(&out[..out.len().min(expected.len())]), "{}", encoding.name());
                }
            }
        }
    }
}

/// "Only `dst[..written]` is output: up to 16 units after it may have been
/// overwritten (UTF-16), or up to 128 bytes (UTF-8)", against the inputs that stop
/// the bulk kernels mid-block: an ASCII run of every length up to past a few blocks,
/// then a malformed byte ("fatal" mode stops there) or none, then text of each kind,
/// into outputs of several sizes filled with a sentinel.
#[test]
fn decoders_write_no_further_past_their_output_than_promised() {
    use whatenc::ErrorMode;
    // Then Latin-1 bytes, ASCII, two-byte UTF-8, three-byte UTF-8, and two- and
    // three-byte letters mixed (Vietnamese, which the UTF-16 kernels decode through
    // both kinds of pattern).
    let fillers: [&[u8]; 5] = [b"\xE9A", b"A", b"\xC3\xA9", "\u{4E2D}".as_bytes(), "\u{E9}\u{1EC7}t ".as_bytes()];
    for (encoding, error) in [(whatenc::UTF_8, 0xFF), (whatenc::SHIFT_JIS, 0xFF), (whatenc::WINDOWS_1252, 0x81)] {
        for ascii in 0..300 {
            // With `stop`, the malformed byte; without, the text runs on to the end of
            // the room (the kernels stop short of it, mid-step).
            let runs_on = [(fillers[3], false), (fillers[4], false)];
            for (filler, stop) in fillers.iter().map(|&filler| (filler, true)).chain(runs_on) {
                let mut input = vec![b'a'; ascii];
                if stop {
                    input.push(error);
                }
                while input.len() < ascii + 700 {
                    input.extend_from_slice(filler);
                }
                for room in [64usize, 300, 1000] {
                    let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
                    let mut bytes = vec![0xAAu8; room];
                    let progress = encoding.new_decoder_with(options).decode_to_utf8(&input, &mut bytes, true);
                    let last = bytes.iter().rposition(|&b| b != 0xAA).map_or(0, |i| i + 1);
                    assert!(last <= progress.written + 128, "{} UTF-8 ascii {ascii} room {room}", encoding.name());
                    let mut units = vec![0xAAAAu16; room];
                    let progress = encoding.new_decoder_with(options).decode_to_utf16(&input, &mut units, true);
                    let last = units.iter().rposition(|&u| u != 0xAAAA).map_or(0, |i| i + 1);
                    assert!(
                        last <= progress.written + 16,
                        "{} UTF-16 ascii {ascii} room {room} filler {filler:02X?} stop {stop} last {last} written {} read {} {:?}",
                        encoding.name(),
                        progress.written,
                        progress.read,
                        progress.result
                    );
                }
            }
        }
    }
}
