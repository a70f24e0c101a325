//! The standard's API (`encoding.bs` § "API") through `whatenc::text`: every WPT
//! case of `tests/data/wpt/` through `TextDecoder`, `TextDecoderStream`,
//! `TextEncoder` and `TextEncoderStream`, and one test per step of the algorithms.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;
use whatenc::text::{
    DecodeOptions, EncodeIntoResult, TextDecoder, TextDecoderOptions, TextDecoderStream, TextEncoder, TextEncoderStream,
};

const STREAM: DecodeOptions = DecodeOptions { stream: true };
const FLUSH: DecodeOptions = DecodeOptions { stream: false };

/// `stream_cases.json` entry 155 contradicts the pinned standard (see
/// `tests/data/wpt/README.md`): the standard's behaviour is checked instead, and in
/// `entry_155_follows_the_standard`.
const EXPECTED_DIFFERENCE: usize = 155;

fn wpt(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/wpt").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn wpt_json(name: &str) -> Vec<Value> {
    match serde_json::from_str(&wpt(name)).unwrap() {
        Value::Array(cases) => cases,
        _ => panic!("{name} is not an array"),
    }
}

fn bytes(value: &Value) -> Vec<u8> {
    value.as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect()
}

fn decoder_options(case: &Value) -> TextDecoderOptions {
    TextDecoderOptions {
        fatal: case["mode"] == "fatal",
        ignore_bom: case.get("ignoreBOM").and_then(Value::as_bool).unwrap_or(false),
    }
}

/// Pass/fail counts, by group, with the first failures kept for the report.
#[derive(Default)]
struct Tally {
    groups: BTreeMap<String, (usize, usize)>,
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, group: &str, ok: bool, what: impl FnOnce() -> String) {
        let entry = self.groups.entry(group.to_string()).or_default();
        if ok {
            entry.0 += 1;
        } else {
            entry.1 += 1;
            if self.failures.len() < 25 {
                self.failures.push(what());
            }
        }
    }

    fn finish(self, title: &str) {
        let (passed, failed) = self.groups.values().fold((0, 0), |(p, f), (a, b)| (p + a, f + b));
        println!("{title}: {passed} passed, {failed} failed");
        for (group, (p, f)) in &self.groups {
            if *f != 0 {
                println!("  {group}: {p} passed, {f} failed");
            }
        }
        for failure in &self.failures {
            println!("  FAIL {failure}");
        }
        assert_eq!(failed, 0, "{title}: {failed} failures");
    }
}

// ---------------------------------------------------------------------------
// WPT data.

#[test]
fn wpt_cases_through_text_decoder() {
    let mut tally = Tally::default();
    for (i, case) in wpt_json("cases.json").iter().enumerate() {
        let label = case["label"].as_str().unwrap();
        let group = case["encoding"].as_str().unwrap();
        let input = bytes(&case["bytes"]);
        let expected = case["expected"].as_str();
        let decoder = TextDecoder::new(label, decoder_options(case));
        if case["encoding"] == "replacement" {
            // The case was decoded through XHR; TextDecoder must refuse the label.
            let ok = matches!(&decoder, Err(e) if e.label() == label && e.is_replacement());
            tally.record(group, ok, || format!("cases.json[{i}] {label}: no RangeError"));
            continue;
        }
        let mut decoder = decoder.unwrap();
        assert_eq!(decoder.encoding(), group.to_ascii_lowercase());
        let text = decoder.decode(&input, FLUSH).ok();
        let units = decoder.decode_utf16(&input, FLUSH).ok();
        let want_units = expected.map(|s| s.encode_utf16().collect::<Vec<u16>>());
        let ok = text.as_deref() == expected && units == want_units;
        tally.record(group, ok, || {
            format!("cases.json[{i}] {label} {:?}: got {text:?}, want {expected:?}", case["test"])
        });
    }
    tally.finish("cases.json through TextDecoder");
}

#[test]
fn wpt_cases_byte_by_byte_through_text_decoder_and_stream() {
    let mut tally = Tally::default();
    for (i, case) in wpt_json("cases.json").iter().enumerate() {
        if case["encoding"] == "replacement" {
            continue;
        }
        let label = case["label"].as_str().unwrap();
        let group = case["encoding"].as_str().unwrap();
        let input = bytes(&case["bytes"]);
        let expected = case["expected"].as_str();
        // TextDecoder, one `decode(byte, {stream: true})` per byte, then `decode()`.
        let mut decoder = TextDecoder::new(label, decoder_options(case)).unwrap();
        let streamed = (|| {
            let mut text = String::new();
            for byte in &input {
                text += &decoder.decode(&[*byte], STREAM).ok()?;
            }
            text += &decoder.decode(&[], FLUSH).ok()?;
            Some(text)
        })();
        tally.record(group, streamed.as_deref() == expected, || {
            format!("cases.json[{i}] {label} streamed: got {streamed:?}, want {expected:?}")
        });
        // TextDecoderStream, one chunk per byte: no empty chunk is ever enqueued.
        let mut stream = TextDecoderStream::new(label, decoder_options(case)).unwrap();
        let chunked = (|| {
            let mut chunks = Vec::new();
            for byte in &input {
                chunks.extend(stream.transform(&[*byte]).ok()?);
            }
            chunks.extend(stream.flush().ok()?);
            Some(chunks)
        })();
        let ok = match &chunked {
            Some(chunks) => chunks.iter().all(|c| !c.is_empty()) && Some(chunks.concat()).as_deref() == expected,
            None => expected.is_none(),
        };
        tally.record(group, ok, || format!("cases.json[{i}] {label} chunked: got {chunked:?}, want {expected:?}"));
    }
    tally.finish("cases.json byte by byte through TextDecoder and TextDecoderStream");
}

/// Runs one `stream_cases.json` sequence on one `TextDecoder`.
fn run_sequence(case: &Value) -> Vec<Option<String>> {
    let mut decoder = TextDecoder::new(case["label"].as_str().unwrap(), decoder_options(case)).unwrap();
    case["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let options = DecodeOptions { stream: call["stream"].as_bool().unwrap() };
            decoder.decode(&bytes(&call["bytes"]), options).ok()
        })
        .collect()
}

/// The failures of a sequence against its expectations.
fn sequence_failures(case: &Value, results: &[Option<String>]) -> Vec<String> {
    let mut failures = Vec::new();
    for (j, call) in case["calls"].as_array().unwrap().iter().enumerate() {
        if let Some(expected) = call.get("expected")
            && results[j].as_deref() != expected.as_str()
        {
            failures.push(format!("call {j}: got {:?}, want {expected}", results[j]));
        }
    }
    for joined in case.get("joined").and_then(Value::as_array).into_iter().flatten() {
        let calls: Vec<usize> =
            joined["calls"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap() as usize).collect();
        let got: Option<String> = calls.iter().map(|&j| results[j].clone()).collect();
        if got.as_deref() != joined["expected"].as_str() {
            failures.push(format!("joined {calls:?}: got {got:?}, want {}", joined["expected"]));
        }
    }
    for group in case.get("throws_in").and_then(Value::as_array).into_iter().flatten() {
        let calls: Vec<usize> = group.as_array().unwrap().iter().map(|c| c.as_u64().unwrap() as usize).collect();
        if calls.iter().filter(|&&j| results[j].is_none()).count() != 1 {
            failures.push(format!("throws_in {calls:?}: {:?}", calls.iter().map(|&j| &results[j]).collect::<Vec<_>>()));
        }
    }
    failures
}

#[test]
fn wpt_stream_cases_through_text_decoder() {
    let mut tally = Tally::default();
    let mut differences = 0;
    for (i, case) in wpt_json("stream_cases.json").iter().enumerate() {
        let results = run_sequence(case);
        let failures = sequence_failures(case, &results);
        if i == EXPECTED_DIFFERENCE {
            // WPT expects "" from the second call; the standard throws there.
            assert_eq!(results, [None, None], "entry 155 must follow the standard");
            assert_eq!(failures.len(), 1, "entry 155 differs from WPT in exactly one call");
            differences += 1;
            continue;
        }
        let group = case["encoding"].as_str().unwrap();
        tally.record(group, failures.is_empty(), || format!("stream_cases.json[{i}] {:?}: {failures:?}", case["test"]));
    }
    println!("stream_cases.json: {differences} documented expected difference (entry {EXPECTED_DIFFERENCE})");
    tally.finish("stream_cases.json through TextDecoder");
}

#[test]
fn wpt_stream_cases_through_text_decoder_stream() {
    // Each run of `stream: true` calls ended by a `stream: false` call is one
    // TextDecoderStream: a chunk per call, then "flush and enqueue". The stream's
    // chunks equal TextDecoder's outputs call for call, the last call's output being
    // its chunk and the flush together. A stream that errors ends its run.
    let mut tally = Tally::default();
    for (i, case) in wpt_json("stream_cases.json").iter().enumerate() {
        let group = case["encoding"].as_str().unwrap();
        let label = case["label"].as_str().unwrap();
        let calls = case["calls"].as_array().unwrap();
        let decoder_results = if i == EXPECTED_DIFFERENCE { vec![None, None] } else { run_sequence(case) };
        let new_stream = || TextDecoderStream::new(label, decoder_options(case)).unwrap();
        let mut stream = new_stream();
        let mut errored = false;
        let mut ok = true;
        for (j, call) in calls.iter().enumerate() {
            let last = !call["stream"].as_bool().unwrap();
            if !errored {
                let mut run = || {
                    let mut text = stream.transform(&bytes(&call["bytes"]))?.unwrap_or_default();
                    if last {
                        text += &stream.flush()?.unwrap_or_default();
                    }
                    Ok::<_, whatenc::text::TypeError>(text)
                };
                let result = run();
                errored = result.is_err();
                ok &= result.ok() == decoder_results[j];
            }
            if last {
                // The next call starts a new stream.
                stream = new_stream();
                errored = false;
            }
        }
        tally.record(group, ok, || format!("stream_cases.json[{i}] {:?} through TextDecoderStream", case["test"]));
    }
    tally.finish("stream_cases.json through TextDecoderStream");
}

/// A tiny JSON reader that keeps strings as UTF-16 code units, so that lone
/// surrogate escapes survive (serde_json refuses them).
mod json16 {
    #[derive(Debug)]
    pub enum Value {
        Str(Vec<u16>),
        Other,
        Array(Vec<Value>),
        Object(Vec<(String, Value)>),
    }

    impl Value {
        pub fn get(&self, key: &str) -> &Value {
            match self {
                Value::Object(fields) => &fields.iter().find(|(k, _)| k == key).unwrap().1,
                _ => panic!("not an object"),
            }
        }
        pub fn units(&self) -> &[u16] {
            match self {
                Value::Str(units) => units,
                _ => panic!("not a string"),
            }
        }
    }

    pub fn parse(text: &str) -> Value {
        let mut chars = text.chars().peekable();
        value(&mut chars)
    }

    type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

    fn skip_ws(chars: &mut Chars<'_>) {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
    }

    fn value(chars: &mut Chars<'_>) -> Value {
        skip_ws(chars);
        match chars.peek() {
            Some('"') => Value::Str(string(chars)),
            Some('[') => {
                chars.next();
                let mut items = Vec::new();
                loop {
                    skip_ws(chars);
                    match chars.peek() {
                        Some(']') => {
                            chars.next();
                            return Value::Array(items);
                        }
                        Some(',') => {
                            chars.next();
                        }
                        _ => items.push(value(chars)),
                    }
                }
            }
            Some('{') => {
                chars.next();
                let mut fields = Vec::new();
                loop {
                    skip_ws(chars);
                    match chars.peek() {
                        Some('}') => {
                            chars.next();
                            return Value::Object(fields);
                        }
                        Some(',') => {
                            chars.next();
                        }
                        _ => {
                            let key = String::from_utf16(&string(chars)).unwrap();
                            skip_ws(chars);
                            assert_eq!(chars.next(), Some(':'));
                            fields.push((key, value(chars)));
                        }
                    }
                }
            }
            _ => {
                while chars.peek().is_some_and(|c| !matches!(c, ',' | ']' | '}')) {
                    chars.next();
                }
                Value::Other
            }
        }
    }

    fn string(chars: &mut Chars<'_>) -> Vec<u16> {
        assert_eq!(chars.next(), Some('"'));
        let mut units = Vec::new();
        loop {
            match chars.next().unwrap() {
                '"' => return units,
                '\\' => match chars.next().unwrap() {
                    'u' => {
                        let hex: String = (0..4).map(|_| chars.next().unwrap()).collect();
                        units.push(u16::from_str_radix(&hex, 16).unwrap());
                    }
                    'n' => units.push(10),
                    't' => units.push(9),
                    'r' => units.push(13),
                    'b' => units.push(8),
                    'f' => units.push(12),
                    c => units.push(c as u16),
                },
                c => units.extend(c.encode_utf16(&mut [0; 2]).iter()),
            }
        }
    }
}

#[test]
fn wpt_roundtrip_cases_through_text_encoder() {
    let mut tally = Tally::default();
    let encoder = TextEncoder::new();
    let json16::Value::Array(cases) = json16::parse(&wpt("roundtrip_cases.json")) else { panic!() };
    assert!(!cases.is_empty());
    for (i, case) in cases.iter().enumerate() {
        let input = case.get("input").units();
        let expected = case.get("expected_after_utf8_roundtrip").units();
        // encode() of the string, then decode() of the bytes.
        let bytes = encoder.encode_utf16(input);
        let back = TextDecoder::default().decode_utf16(&bytes, FLUSH).unwrap();
        let mut ok = back == expected;
        // encodeInto() with room for everything reads every code unit.
        let mut buf = vec![0u8; input.len() * 3];
        let result = encoder.encode_into_utf16(input, &mut buf);
        ok &= result == EncodeIntoResult { read: input.len(), written: bytes.len() } && buf[..bytes.len()] == bytes;
        // TextEncoderStream with the string cut at every place, surrogate pairs too.
        for cut in 0..=input.len() {
            let mut stream = TextEncoderStream::new();
            let mut out = Vec::new();
            for chunk in [&input[..cut], &input[cut..]] {
                let chunk_bytes = stream.transform_utf16(chunk);
                ok &= chunk_bytes.as_ref().is_none_or(|b| !b.is_empty());
                out.extend(chunk_bytes.unwrap_or_default());
            }
            out.extend(stream.flush().unwrap_or_default());
            ok &= out == bytes;
        }
        tally.record("roundtrip", ok, || format!("roundtrip_cases.json[{i}]: {input:04X?} gave {back:04X?}"));
    }
    tally.finish("roundtrip_cases.json through TextEncoder");
}

// ---------------------------------------------------------------------------
// The constructor and getters.

#[test]
fn constructor_gets_an_encoding_or_throws_a_range_error() {
    // "Let encoding be the result of getting an encoding from label. If encoding is
    // failure or replacement, then throw a RangeError."
    for label in ["utf-32", "", "utf8 x", "x-user-defined2"] {
        let error = TextDecoder::new(label, TextDecoderOptions::default()).unwrap_err();
        assert_eq!(error.label(), label);
        assert!(!error.is_replacement());
        assert!(error.to_string().contains(&format!("{label:?}")));
        assert!(TextDecoderStream::new(label, TextDecoderOptions::default()).is_err());
    }
    for label in ["replacement", "csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr"] {
        let error = TextDecoder::new(label, TextDecoderOptions::default()).unwrap_err();
        assert!(error.is_replacement(), "{label}");
        assert!(error.to_string().contains("replacement"));
    }
    // Labels are trimmed and matched ASCII case-insensitively.
    assert_eq!(TextDecoder::new("\t UTF8\n", TextDecoderOptions::default()).unwrap().encoding(), "utf-8");
}

#[test]
fn getters_return_lower_case_name_fatal_and_ignore_bom() {
    // "The encoding getter steps are to return this's encoding's name, ASCII lowercased."
    for encoding in whatenc::Encoding::all() {
        if *encoding == whatenc::REPLACEMENT {
            continue;
        }
        let label = encoding.labels()[0];
        let decoder = TextDecoder::new(label, TextDecoderOptions { fatal: true, ignore_bom: true }).unwrap();
        assert_eq!(decoder.encoding(), encoding.name().to_ascii_lowercase());
        assert!(decoder.fatal() && decoder.ignore_bom());
        let stream = TextDecoderStream::new(label, TextDecoderOptions::default()).unwrap();
        assert_eq!(stream.encoding(), encoding.name().to_ascii_lowercase());
        assert!(!stream.fatal() && !stream.ignore_bom());
    }
    assert_eq!(TextDecoder::new("sjis", TextDecoderOptions::default()).unwrap().encoding(), "shift_jis");
    assert_eq!(TextEncoder::new().encoding(), "utf-8");
    assert_eq!(TextEncoderStream::new().encoding(), "utf-8");
}

// ---------------------------------------------------------------------------
// decode(): "do not flush", the I/O queue, and errors.

#[test]
fn decode_step_1_fresh_decoder_unless_the_previous_call_streamed() {
    // Step 1: "If this's do not flush is false, then set this's decoder to a new
    // instance ..., this's I/O queue to « end-of-queue », and BOM seen to false."
    let mut decoder = TextDecoder::default();
    assert_eq!(decoder.decode(&[0xE2], STREAM).unwrap(), "");
    assert_eq!(decoder.decode(&[0x82, 0xAC], FLUSH).unwrap(), "€");
    // A call without stream flushes: the truncated sequence is U+FFFD ...
    assert_eq!(decoder.decode(&[0xE2, 0x82], FLUSH).unwrap(), "\u{FFFD}");
    // ... and the next call starts afresh.
    assert_eq!(decoder.decode(&[0xAC], FLUSH).unwrap(), "\u{FFFD}");
}

#[test]
fn decode_step_2_stream_option_sets_do_not_flush() {
    // Step 2: "Set this's do not flush to options["stream"]"; with it true,
    // end-of-queue is not processed and the decoder state is kept.
    let mut decoder = TextDecoder::new("shift_jis", TextDecoderOptions::default()).unwrap();
    assert_eq!(decoder.decode(&[0x82], STREAM).unwrap(), "");
    assert_eq!(decoder.decode(&[], STREAM).unwrap(), "");
    assert_eq!(decoder.decode(&[0xA0], STREAM).unwrap(), "あ");
    assert_eq!(decoder.decode(&[0x82], FLUSH).unwrap(), "\u{FFFD}");
}

#[test]
fn fatal_streaming_error_keeps_the_rest_of_the_queue() {
    // Processing an item that returns error throws; do not flush is already true, so
    // the bytes after the error stay in the I/O queue for the next call. A call that
    // throws never reaches "serialize I/O queue": its text is lost and BOM seen
    // stays false.
    let fatal = TextDecoderOptions { fatal: true, ignore_bom: false };
    let mut decoder = TextDecoder::new("utf-8", fatal).unwrap();
    assert!(decoder.decode(&[0x41, 0xFF], STREAM).is_err());
    assert_eq!(decoder.decode(&[0xEF, 0xBB, 0xBF, 0x42], FLUSH).unwrap(), "B");

    let mut decoder = TextDecoder::new("utf-8", fatal).unwrap();
    let error = decoder.decode(&[0xFF, 0x41, 0xFF, 0x43], STREAM).unwrap_err();
    assert_eq!(error.decode_error().unwrap().offset, 0);
    // 0x41 is decoded by the next call, which throws at the second 0xFF in turn.
    let error = decoder.decode(&[], STREAM).unwrap_err();
    assert_eq!(error.decode_error().unwrap().offset, 2);
    assert_eq!(decoder.decode(&[0x44], STREAM).unwrap(), "CD");
    assert_eq!(decoder.decode(&[], FLUSH).unwrap(), "");

    // A byte the decoder restores to the queue (F0 then 41) is read again.
    let mut decoder = TextDecoder::new("utf-8", fatal).unwrap();
    assert!(decoder.decode(&[0xF0, 0x41], STREAM).is_err());
    assert_eq!(decoder.decode(&[], FLUSH).unwrap(), "A");

    // UTF-16LE: a lone leading surrogate followed by "A"; the "A" is restored.
    let mut decoder = TextDecoder::new("utf-16le", fatal).unwrap();
    assert!(decoder.decode(&[0x00, 0xD8, 0x41, 0x00, 0x42], STREAM).is_err());
    assert_eq!(decoder.decode(&[0x00], FLUSH).unwrap(), "AB");
}

#[test]
fn fatal_error_without_stream_discards_the_queue() {
    // The throwing call set do not flush to false, so the next call's step 1 makes a
    // new I/O queue.
    let mut decoder = TextDecoder::new("utf-8", TextDecoderOptions { fatal: true, ignore_bom: false }).unwrap();
    assert!(decoder.decode(&[0xFF, 0x41], FLUSH).is_err());
    assert_eq!(decoder.decode(&[0x42], FLUSH).unwrap(), "B");
    // A truncated sequence at end-of-queue is an error in fatal mode.
    assert!(decoder.decode(&[0xE2, 0x82], FLUSH).is_err());
    assert!(decoder.decode(&[0xAC], STREAM).is_err());
}

#[test]
fn entry_155_follows_the_standard() {
    // stream_cases.json entry 155 expects "" from the second call; under the
    // standard, 0xEF is still queued when FD throws (do not flush is already true),
    // so the next call reads it, reaches end-of-queue with a byte still needed and
    // throws again. Then the decoder starts afresh.
    let mut decoder = TextDecoder::new("utf-8", TextDecoderOptions { fatal: true, ignore_bom: false }).unwrap();
    assert!(decoder.decode(&[0xFD, 0xEF], STREAM).is_err());
    let error = decoder.decode(&[], FLUSH).unwrap_err();
    assert_eq!(error.decode_error().unwrap().offset, 1);
    assert_eq!(decoder.decode(&[], FLUSH).unwrap(), "");
}

// ---------------------------------------------------------------------------
// "Serialize I/O queue": BOM handling on the output.

#[test]
fn serialize_removes_one_leading_bom_for_utf8_and_utf16() {
    let cases: [(&str, &[u8]); 3] = [
        ("utf-8", b"\xEF\xBB\xBF\xEF\xBB\xBFA"),
        ("utf-16le", b"\xFF\xFE\xFF\xFEA\x00"),
        ("utf-16be", b"\xFE\xFF\xFE\xFF\x00A"),
    ];
    for (label, input) in cases {
        let mut decoder = TextDecoder::new(label, TextDecoderOptions::default()).unwrap();
        assert_eq!(decoder.decode(input, FLUSH).unwrap(), "\u{FEFF}A", "{label}");
        // ignoreBOM keeps it.
        let mut decoder = TextDecoder::new(label, TextDecoderOptions { fatal: false, ignore_bom: true }).unwrap();
        assert_eq!(decoder.decode(input, FLUSH).unwrap(), "\u{FEFF}\u{FEFF}A", "{label}");
    }
}

#[test]
fn serialize_bom_split_across_stream_calls_inside_the_bom() {
    let cases: [(&str, &[u8]); 3] =
        [("utf-8", b"\xEF\xBB\xBFAB"), ("utf-16le", b"\xFF\xFEA\x00B\x00"), ("utf-16be", b"\xFE\xFF\x00A\x00B")];
    for (label, input) in cases {
        for cut in 1..input.len() {
            for second in cut..=input.len() {
                let mut decoder = TextDecoder::new(label, TextDecoderOptions::default()).unwrap();
                let mut text = decoder.decode(&input[..cut], STREAM).unwrap();
                text += &decoder.decode(&input[cut..second], STREAM).unwrap();
                text += &decoder.decode(&input[second..], FLUSH).unwrap();
                assert_eq!(text, "AB", "{label} cut at {cut} and {second}");
                let mut stream = TextDecoderStream::new(label, TextDecoderOptions::default()).unwrap();
                let mut text = String::new();
                for chunk in [&input[..cut], &input[cut..second], &input[second..]] {
                    text += &stream.transform(chunk).unwrap().unwrap_or_default();
                }
                text += &stream.flush().unwrap().unwrap_or_default();
                assert_eq!(text, "AB", "{label} stream cut at {cut} and {second}");
            }
        }
    }
}

#[test]
fn serialize_sets_bom_seen_on_the_first_scalar_value_only() {
    // BOM seen is set by the first item output, so a later U+FEFF stays, even in
    // a later call.
    let mut decoder = TextDecoder::default();
    assert_eq!(decoder.decode(b"A", STREAM).unwrap(), "A");
    assert_eq!(decoder.decode(b"\xEF\xBB\xBFB", FLUSH).unwrap(), "\u{FEFF}B");
    // A call that outputs nothing does not set it.
    let mut decoder = TextDecoder::default();
    assert_eq!(decoder.decode(b"\xEF\xBB", STREAM).unwrap(), "");
    assert_eq!(decoder.decode(b"", STREAM).unwrap(), "");
    assert_eq!(decoder.decode(b"\xBF\xEF\xBB\xBF", FLUSH).unwrap(), "\u{FEFF}");
    // After a call without stream, BOM seen is reset (step 1).
    assert_eq!(decoder.decode(b"\xEF\xBB\xBFC", FLUSH).unwrap(), "C");
}

#[test]
fn serialize_leaves_other_encodings_and_other_boms_alone() {
    // Only UTF-8 and UTF-16BE/LE remove U+FEFF, and a BOM of another encoding is
    // decoded like any other bytes (no sniffing).
    let mut decoder = TextDecoder::new("windows-1252", TextDecoderOptions::default()).unwrap();
    assert_eq!(decoder.decode(b"\xEF\xBB\xBF", FLUSH).unwrap(), "ï»¿");
    let mut decoder = TextDecoder::new("utf-8", TextDecoderOptions::default()).unwrap();
    assert_eq!(decoder.decode(b"\xFF\xFEA", FLUSH).unwrap(), "\u{FFFD}\u{FFFD}A");
    let mut decoder = TextDecoder::new("utf-16le", TextDecoderOptions::default()).unwrap();
    assert_eq!(decoder.decode(b"\xFE\xFF", FLUSH).unwrap(), "\u{FFFE}");
    let mut decoder = TextDecoder::new("utf-16be", TextDecoderOptions::default()).unwrap();
    assert_eq!(decoder.decode_utf16(b"\xFF\xFE", FLUSH).unwrap(), [0xFFFE]);
}

// ---------------------------------------------------------------------------
// TextDecoderStream: "decode and enqueue a chunk", "flush and enqueue".

#[test]
fn decoder_stream_never_enqueues_an_empty_chunk() {
    let mut stream = TextDecoderStream::new("utf-8", TextDecoderOptions::default()).unwrap();
    assert_eq!(stream.transform(b"").unwrap(), None);
    assert_eq!(stream.transform(b"\xF0\x9F").unwrap(), None);
    assert_eq!(stream.transform(b"\x98\x80").unwrap().as_deref(), Some("😀"));
    assert_eq!(stream.flush().unwrap(), None);
}

#[test]
fn decoder_stream_flush_processes_end_of_queue() {
    // "Flush and enqueue": an incomplete sequence becomes U+FFFD ...
    let mut stream = TextDecoderStream::new("utf-16le", TextDecoderOptions::default()).unwrap();
    assert_eq!(stream.transform(b"A\x00\x3D").unwrap().as_deref(), Some("A"));
    assert_eq!(stream.flush().unwrap().as_deref(), Some("\u{FFFD}"));
    // ... or, in fatal mode, a TypeError, after which the stream is errored.
    let fatal = TextDecoderOptions { fatal: true, ignore_bom: false };
    let mut stream = TextDecoderStream::new("euc-kr", fatal).unwrap();
    assert_eq!(stream.transform(b"a\xB0").unwrap().as_deref(), Some("a"));
    let error = stream.flush().unwrap_err();
    assert_eq!(error.decode_error().unwrap().offset, 1);
    assert_eq!(stream.transform(b"b").unwrap_err().decode_error(), error.decode_error());
}

#[test]
fn decoder_stream_fatal_chunk_errors_the_stream() {
    // "If result is error, then throw a TypeError": the chunk's text is not enqueued.
    let fatal = TextDecoderOptions { fatal: true, ignore_bom: false };
    let mut stream = TextDecoderStream::new("utf-8", fatal).unwrap();
    assert_eq!(stream.transform(b"ok").unwrap().as_deref(), Some("ok"));
    let error = stream.transform(b"ab\xC0cd").unwrap_err();
    assert_eq!(error.decode_error().unwrap().offset, 4);
    assert!(stream.transform(b"more").is_err());
    assert!(stream.flush().is_err());
    // After a flush the stream is closed.
    let mut stream = TextDecoderStream::new("utf-8", fatal).unwrap();
    assert_eq!(stream.flush().unwrap(), None);
    assert!(stream.transform(b"x").unwrap_err().decode_error().is_none());
}

#[test]
fn decoder_stream_ignore_bom() {
    let options = TextDecoderOptions { fatal: false, ignore_bom: true };
    let mut stream = TextDecoderStream::new("utf-8", options).unwrap();
    assert_eq!(stream.transform(b"\xEF\xBB\xBFx").unwrap().as_deref(), Some("\u{FEFF}x"));
}

// ---------------------------------------------------------------------------
// TextEncoder: encode() and encodeInto().

#[test]
fn encode_and_encode_utf16() {
    let encoder = TextEncoder::new();
    assert_eq!(encoder.encode(""), b"");
    assert_eq!(encoder.encode("a€😀"), "a€😀".as_bytes());
    // Converting to a USVString replaces lone surrogates.
    assert_eq!(encoder.encode_utf16(&[0xD800, 0xDC00, 0xDC00, 0xD800]), "𐀀\u{FFFD}\u{FFFD}".as_bytes());
}

#[test]
fn encode_into_with_a_full_destination() {
    // "If destination's byte length − written is greater than or equal to the number
    // of bytes in result ... Otherwise, break."
    let encoder = TextEncoder::new();
    let mut buf = [0xAAu8; 8];
    assert_eq!(encoder.encode_into("abc", &mut buf[..2]), EncodeIntoResult { read: 2, written: 2 });
    assert_eq!(encoder.encode_into("é", &mut buf[..1]), EncodeIntoResult { read: 0, written: 0 });
    assert_eq!(buf[0], b'a', "nothing of é is written");
    let mut buf = [0xAAu8; 8];
    assert_eq!(encoder.encode_into("a€b", &mut buf[..3]), EncodeIntoResult { read: 1, written: 1 });
    assert_eq!(buf[1..3], [0xAA, 0xAA], "a character is never written in part");
    assert_eq!(encoder.encode_into("a€b", &mut buf[..4]), EncodeIntoResult { read: 2, written: 4 });
    assert_eq!(encoder.encode_into("", &mut buf), EncodeIntoResult::default());
    assert_eq!(encoder.encode_into("x", &mut []), EncodeIntoResult::default());
    // It stops at the first character that does not fit, even if a later one would.
    assert_eq!(encoder.encode_into("€a", &mut buf[..2]), EncodeIntoResult { read: 0, written: 0 });
}

#[test]
fn encode_into_with_surrogate_pairs() {
    // "If item is greater than U+FFFF, then increment read by 2."
    let encoder = TextEncoder::new();
    let mut buf = [0u8; 16];
    assert_eq!(encoder.encode_into("😀", &mut buf[..3]), EncodeIntoResult { read: 0, written: 0 });
    assert_eq!(encoder.encode_into("😀", &mut buf[..4]), EncodeIntoResult { read: 2, written: 4 });
    assert_eq!(encoder.encode_into("a😀😀", &mut buf[..8]), EncodeIntoResult { read: 3, written: 5 });
    let units: Vec<u16> = "a😀😀".encode_utf16().collect();
    assert_eq!(encoder.encode_into_utf16(&units, &mut buf[..8]), EncodeIntoResult { read: 3, written: 5 });
    assert_eq!(encoder.encode_into_utf16(&units, &mut buf[..9]), EncodeIntoResult { read: 5, written: 9 });
    // A lone surrogate is U+FFFD: 1 code unit read, 3 bytes written.
    assert_eq!(encoder.encode_into_utf16(&[0xD83D], &mut buf[..2]), EncodeIntoResult { read: 0, written: 0 });
    assert_eq!(encoder.encode_into_utf16(&[0xD83D, 0x41], &mut buf[..4]), EncodeIntoResult { read: 2, written: 4 });
    assert_eq!(&buf[..4], b"\xEF\xBF\xBDA");
    // The loop of the standard's example: encodeInto() until everything is read.
    let text = "日本語😀text".repeat(5);
    let mut out = Vec::new();
    let mut read_units = 0;
    let units: Vec<u16> = text.encode_utf16().collect();
    while read_units < units.len() {
        let mut chunk = [0u8; 5];
        let result = encoder.encode_into_utf16(&units[read_units..], &mut chunk);
        assert!(result.read > 0);
        read_units += result.read;
        out.extend_from_slice(&chunk[..result.written]);
    }
    assert_eq!(out, text.as_bytes());
}

// ---------------------------------------------------------------------------
// TextEncoderStream: "encode and enqueue a chunk", "encode and flush".

#[test]
fn encoder_stream_carries_a_leading_surrogate_across_chunks() {
    let mut stream = TextEncoderStream::new();
    assert_eq!(stream.transform_utf16(&[0xD83D]), None);
    // An empty chunk reaches end-of-queue at once: the surrogate is still held.
    assert_eq!(stream.transform_utf16(&[]), None);
    assert_eq!(stream.transform(""), None);
    assert_eq!(stream.transform_utf16(&[0xDE00, 0x41]), Some("😀A".as_bytes().to_vec()));
    assert_eq!(stream.flush(), None);
}

#[test]
fn encoder_stream_lone_surrogates_become_replacement_characters() {
    // "Convert code unit to scalar value": a held leading surrogate followed by
    // anything but a trailing surrogate is U+FFFD, and the item is restored.
    let mut stream = TextEncoderStream::new();
    assert_eq!(stream.transform_utf16(&[0xD83D]), None);
    assert_eq!(stream.transform_utf16(&[0xD83D, 0x42]), Some(b"\xEF\xBF\xBD\xEF\xBF\xBDB".to_vec()));
    assert_eq!(stream.transform_utf16(&[0xDE00]), Some(b"\xEF\xBF\xBD".to_vec()));
    assert_eq!(stream.transform_utf16(&[0xD800]), None);
    assert_eq!(stream.transform("é"), Some("\u{FFFD}é".as_bytes().to_vec()));
}

#[test]
fn encoder_stream_flush_emits_ef_bf_bd_for_a_dangling_surrogate() {
    // "Encode and flush": if leading surrogate is non-null, enqueue « 0xEF, 0xBF, 0xBD ».
    let mut stream = TextEncoderStream::new();
    assert_eq!(stream.transform_utf16(&[0x61, 0xDBFF]), Some(b"a".to_vec()));
    assert_eq!(stream.flush(), Some(vec![0xEF, 0xBF, 0xBD]));
    assert_eq!(stream.flush(), None);
}
