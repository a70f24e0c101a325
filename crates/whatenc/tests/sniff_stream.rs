//! Streaming determination: the same answer whole or in chunks split anywhere,
//! nothing lost or read twice, a bounded buffer; the reader adaptor and the one-call
//! decode.

use std::io::Read;

use whatenc::sniff::{Context, Determination, EndCondition, HtmlOptions, SniffReader, Sniffer, Step, decode, prescan};
use whatenc::*;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const FRAGMENTS: &[&[u8]] = &[
    b"<meta",
    b"<META",
    b" ",
    b"\t",
    b"/",
    b"charset",
    b"=",
    b"gbk",
    b"big5",
    b"utf-16",
    b"x-user-defined",
    b"bogus",
    b"'",
    b"\"",
    b">",
    b"<",
    b"<!--",
    b"-->",
    b"--",
    b"<!",
    b"</",
    b"<?",
    b"<?xml",
    b" encoding",
    b"<a",
    b"</p",
    b"http-equiv",
    b"content-type",
    b"content",
    b"text/html; charset=koi8-r",
    b";",
    b"@charset \"",
    b"\";",
    b"<meta charset=gbk>",
    b"<meta http-equiv=content-type content='charset=big5'>",
    b"<?xml version='1.0' encoding='koi8-r'?>",
    b"@charset \"euc-jp\";",
    b"\xEF\xBB\xBF",
    b"\xFE\xFF",
    b"\xFF\xFE",
    b"<\0?\0x\0",
    b"\0<\0?\0x",
    b"\0",
    b"\xE9",
    "é".as_bytes(),
];

/// Inputs built from markup fragments, with runs of padding to cross the limits.
fn inputs() -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut inputs = Vec::new();
    for _ in 0..600 {
        let mut input = Vec::new();
        let pieces = rng.below(24);
        for _ in 0..pieces {
            if rng.below(10) == 0 {
                let n = [30, 200, 1000, 1023, 1500][rng.below(5)];
                input.extend(std::iter::repeat_n(b' ', n));
            } else {
                input.extend_from_slice(FRAGMENTS[rng.below(FRAGMENTS.len())]);
            }
        }
        inputs.push(input);
    }
    inputs
}

fn contexts() -> Vec<Context<'static>> {
    let html = |end_condition| Context::Html(HtmlOptions { end_condition, locale: Some("ja"), ..Default::default() });
    vec![
        html(EndCondition::default()),
        html(EndCondition::Strict(1024)),
        html(EndCondition::Strict(100)),
        html(EndCondition::Observed { limit: 50, overrun: 30 }),
        Context::PlainText(HtmlOptions::default()),
        Context::Xml { content_type: None },
        Context::Css { content_type: None, link_charset: None, document_encoding: Some(EUC_KR) },
        Context::ClassicScript { content_type: None, charset_attribute: None, document_encoding: GBK },
    ]
}

/// Pushes `input` in chunks of the given sizes (cycled) until decided, then the
/// rest to the decoder; returns the determination, the text, and the most bytes held.
fn streamed(context: Context<'_>, input: &[u8], sizes: &[usize]) -> (Determination, String, usize) {
    let mut sniffer = Sniffer::new(context);
    let mut offset = 0;
    let mut held = 0;
    let mut sizes = sizes.iter().cycle();
    while offset < input.len() {
        let size = (*sizes.next().unwrap()).min(input.len() - offset);
        let decided = sniffer.push(&input[offset..offset + size]);
        offset += size;
        held = held.max(sniffer.buffered().len());
        if decided.is_some() {
            break;
        }
    }
    sniffer.finish(true);
    let mut sniffed = sniffer.into_sniffed().unwrap();
    assert_eq!(sniffed.buffered, &input[..offset], "the bytes held are the bytes pushed");
    let mut text = String::new();
    let rest = &input[offset..];
    text.reserve(3 * (sniffed.buffered.len() + rest.len()) + 32);
    let progress = sniffed.decoder.decode_to_string(&sniffed.buffered, &mut text, false);
    assert_eq!(progress.read, sniffed.buffered.len());
    let progress = sniffed.decoder.decode_to_string(rest, &mut text, true);
    assert_eq!(progress.read, rest.len());
    (sniffed.determination, text, held)
}

#[test]
fn chunked_equals_whole_and_nothing_is_lost() {
    let splits: &[&[usize]] = &[&[1], &[2, 3], &[7], &[64], &[1000, 1], &[8192]];
    let mut steps = std::collections::HashSet::new();
    for input in inputs() {
        for context in contexts() {
            let whole = context.determine(&input);
            steps.insert(core::mem::discriminant(&whole.step));
            let (expected_text, _) = hooks::decode(&input, whole.encoding);
            for sizes in splits {
                let (determination, text, held) = streamed(context, &input, sizes);
                assert_eq!(determination, whole, "{context:?} {:?} {sizes:?}", String::from_utf8_lossy(&input));
                assert_eq!(text, expected_text);
                let chunk = sizes.iter().max().unwrap();
                assert!(held <= 2048 + chunk, "held {held}");
            }
        }
    }
    // The inputs reach every step these contexts have.
    for step in [
        Step::Bom,
        Step::Meta { position: 0 },
        Step::XmlDeclaration,
        Step::Utf16XmlDeclaration,
        Step::CharsetRule,
        Step::Environment,
        Step::LocaleDefault,
        Step::Default,
    ] {
        assert!(steps.contains(&core::mem::discriminant(&step)), "{step:?}");
    }
}

#[test]
fn strict_prescan_equals_the_prescan_of_the_first_n_bytes() {
    for input in inputs() {
        for n in [0, 1, 5, 50, 1023, 1024, 1025, 3000] {
            let end = EndCondition::Strict(n);
            assert_eq!(prescan(&input, end), prescan(&input[..n.min(input.len())], end));
        }
    }
}

#[test]
fn the_sniffer_decides_within_the_limit_plus_one_chunk() {
    // No declaration: the HTML sniffer decides once it holds the prescan's bytes.
    let mut sniffer = Sniffer::new(Context::Html(HtmlOptions::default()));
    let mut pushed = 0;
    while sniffer.push(&[b'x'; 100]).is_none() {
        pushed += 100;
        assert!(pushed < 2048 + 100);
    }
    assert!(sniffer.buffered().len() <= 2048 + 100);
    assert_eq!(sniffer.determination().unwrap().step, Step::Default);
    // An early meta decides early.
    let mut sniffer = Sniffer::new(Context::Html(HtmlOptions::default()));
    assert_eq!(sniffer.push(b"<meta charset=gbk>").unwrap().encoding, GBK);
    // A transport charset needs only enough bytes to rule out a BOM.
    let options = HtmlOptions { content_type: Some(b"text/html;charset=gbk"), ..Default::default() };
    let mut sniffer = Sniffer::new(Context::Html(options));
    assert_eq!(sniffer.push(b"\xEF"), None);
    assert_eq!(sniffer.push(b"<").unwrap().step, Step::Transport);
}

#[test]
fn no_more_waiting_is_not_the_end_of_the_stream() {
    // The caller stops waiting: the prescan ends where the bytes do; a meta later is too late.
    let mut sniffer = Sniffer::new(Context::Html(HtmlOptions::default()));
    assert_eq!(sniffer.push(b"<p>"), None);
    assert_eq!(sniffer.finish(false).step, Step::Default);
    // A detector is told whether it sees the whole input.
    let options = HtmlOptions { detector: Some(&whatenc::sniff::Utf8Detector), ..Default::default() };
    let mut sniffer = Sniffer::new(Context::Html(options));
    sniffer.push("<p>é".as_bytes());
    assert_eq!(sniffer.finish(false).step, Step::Default);
    let mut sniffer = Sniffer::new(Context::Html(options));
    sniffer.push("<p>é".as_bytes());
    assert_eq!(sniffer.finish(true).step, Step::Detector);
}

/// A reader that gives one byte per read.
struct Trickle<'a>(&'a [u8]);

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() || buf.is_empty() {
            return Ok(0);
        }
        buf[0] = self.0[0];
        self.0 = &self.0[1..];
        Ok(1)
    }
}

/// A reader of `len` bytes of `x` that counts what it has given.
struct Counted<'a>(&'a std::cell::Cell<usize>, usize);

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.1 - self.0.get());
        buf[..n].fill(b'x');
        self.0.set(self.0.get() + n);
        Ok(n)
    }
}

#[test]
fn sniff_reader_reads_no_more_than_it_needs_before_deciding() {
    let given = std::cell::Cell::new(0);
    let mut reader = SniffReader::new(Counted(&given, 1 << 20), Context::Html(HtmlOptions::default())).unwrap();
    assert!(given.get() <= 2048 + 8192, "{}", given.get());
    assert_eq!(reader.determination().step, Step::Default);
    let mut text = String::new();
    reader.read_to_string(&mut text).unwrap();
    assert_eq!(text.len(), 1 << 20);
    assert!(text.bytes().all(|b| b == b'x'));
}

#[test]
fn sniff_reader_reads_everything_once() {
    for input in inputs().iter().take(200) {
        for context in contexts() {
            let whole = context.determine(input);
            let (expected, _) = hooks::decode(input, whole.encoding);
            for trickle in [false, true] {
                let mut text = String::new();
                let determination = if trickle {
                    let mut reader = SniffReader::new(Trickle(input), context).unwrap();
                    reader.read_to_string(&mut text).unwrap();
                    reader.determination()
                } else {
                    let mut reader = SniffReader::new(&input[..], context).unwrap();
                    reader.read_to_string(&mut text).unwrap();
                    reader.determination()
                };
                assert_eq!(determination, whole);
                assert_eq!(text, expected);
            }
        }
    }
}

#[test]
fn one_call_decode_by_content_type() {
    let (text, determination) = decode(b"<meta charset=koi8-r>\xD0", None);
    assert_eq!((&*text, determination.step), ("<meta charset=koi8-r>п", Step::Meta { position: 0 }));
    let (text, determination) = decode("<p>é".as_bytes(), Some(b"text/html"));
    assert_eq!((&*text, determination.step), ("<p>é", Step::Detector));
    let (_, determination) = decode(b"<p>\xE9", Some(b"text/html"));
    assert_eq!((determination.encoding, determination.step), (UTF_8, Step::Default));
    let (_, determination) = decode(b"<?xml version='1.0' encoding='gbk'?>", Some(b"application/xml"));
    assert_eq!(determination.step, Step::XmlDeclaration);
    let (_, determination) = decode(b"@charset \"gbk\";", Some(b"text/css"));
    assert_eq!(determination.step, Step::CharsetRule);
    let (_, determination) = decode(b"x", Some(b"text/javascript;charset=euc-kr"));
    assert_eq!((determination.encoding, determination.step), (EUC_KR, Step::Transport));
    let (text, determination) = decode(b"\xEF\xBB\xBF{}", Some(b"application/json;charset=gbk"));
    assert_eq!((&*text, determination.encoding, determination.step), ("{}", UTF_8, Step::Bom));
    let (_, determination) = decode(b"<meta charset=gbk>", Some(b"text/plain"));
    assert_eq!(determination.step, Step::Default);
    let (text, determination) = decode(b"\xFF\xFEh\0i\0", Some(b"text/html;charset=gbk"));
    assert_eq!((&*text, determination.step), ("hi", Step::Bom));
}
