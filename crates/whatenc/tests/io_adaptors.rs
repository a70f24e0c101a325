//! `whatenc::io` adaptors against hostile readers and writers (one byte at a time,
//! `Interrupted`, short writes) in each family of encodings, compared with the core
//! `Decoder`/`Encoder` run over the whole input; the WPT encoder cases through
//! `EncodeWriter`; and a 64 MB stream in fixed-size buffers.

use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;

use whatenc::io::{DEFAULT_BUFFER_SIZE, DecodeReader, DecodeWriter, EncodeWriter, UnencodableError};
use whatenc::{
    BomHandling, DecodeError, DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding, ErrorMode,
};

/// One encoding of each family, with characters it can encode.
fn families() -> Vec<(&'static Encoding, &'static str)> {
    vec![
        (whatenc::UTF_8, "aé€日😀"),
        (whatenc::UTF_16LE, "aé€日😀"),
        (whatenc::UTF_16BE, "aé€日😀"),
        (whatenc::WINDOWS_1252, "aé€ÿ"),
        (whatenc::KOI8_U, "aДомї"),
        (whatenc::X_USER_DEFINED, "a\u{F780}\u{F7FF}"),
        (whatenc::GBK, "a中文€"),
        (whatenc::GB18030, "a中文€😀"),
        (whatenc::BIG5, "a中文"),
        (whatenc::EUC_JP, "a日本ｱ"),
        (whatenc::ISO_2022_JP, "a日本¥"),
        (whatenc::SHIFT_JIS, "a日本ｱ"),
        (whatenc::EUC_KR, "a한국"),
    ]
}

/// A small deterministic PRNG (xorshift64*).
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

/// Text of `count` characters drawn from `pool`.
fn random_text(rng: &mut Rng, pool: &str, count: usize) -> String {
    let chars: Vec<char> = pool.chars().collect();
    (0..count).map(|_| chars[rng.below(chars.len())]).collect()
}

/// The bytes of `text` in `encoding` (UTF-16 by hand, as it has no encoder).
fn encode(encoding: &'static Encoding, text: &str) -> Vec<u8> {
    if encoding == whatenc::UTF_16LE {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    } else if encoding == whatenc::UTF_16BE {
        text.encode_utf16().flat_map(u16::to_be_bytes).collect()
    } else {
        encoding.encode(text).unwrap().0.into_owned()
    }
}

/// Inputs for an encoding: valid text, text with random bytes mixed in, and a BOM.
fn inputs(rng: &mut Rng, encoding: &'static Encoding, pool: &str) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new(), encode(encoding, &random_text(rng, pool, 300))];
    let mut mixed = Vec::new();
    for _ in 0..40 {
        let count = rng.below(6);
        mixed.extend(encode(encoding, &random_text(rng, pool, count)));
        for _ in 0..rng.below(3) {
            mixed.push(rng.next() as u8);
        }
    }
    out.push(mixed);
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend(encode(encoding, &random_text(rng, pool, 20)));
    with_bom.push(0xFF);
    out.push(with_bom);
    let mut truncated = encode(encoding, &random_text(rng, pool, 20));
    truncated.extend_from_slice(&encode(encoding, "日")[..1]);
    out.push(truncated);
    out
}

/// The core decoder over the whole input: the text and the offsets of the errors.
fn reference_decode(encoding: &'static Encoding, options: DecoderOptions, input: &[u8]) -> (String, Vec<u64>) {
    let mut decoder = encoding.new_decoder_with(options);
    let mut text = String::new();
    let mut errors = Vec::new();
    let mut read = 0;
    loop {
        text.reserve(decoder.max_utf8_buffer_length(input.len() - read).unwrap());
        let progress = decoder.decode_to_string(&input[read..], &mut text, true);
        read += progress.read;
        match progress.result {
            DecoderResult::InputEmpty => return (text, errors),
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(error) => errors.push(error.offset),
        }
    }
}

fn all_options() -> Vec<DecoderOptions> {
    let mut out = Vec::new();
    for mode in [ErrorMode::Replacement, ErrorMode::Fatal] {
        for bom in [BomHandling::None, BomHandling::Sniff, BomHandling::Remove] {
            out.push(DecoderOptions { mode, bom });
        }
    }
    out
}

/// How a hostile inner reader or writer behaves.
#[derive(Debug, Clone, Copy)]
enum Hostility {
    /// One byte per call.
    OneByte,
    /// `Interrupted` every other call, else 1 to 3 bytes.
    Interrupting,
    /// As much as asked.
    Plain,
}

struct HostileReader {
    data: Vec<u8>,
    pos: usize,
    calls: usize,
    how: Hostility,
    largest_request: usize,
}

impl HostileReader {
    fn new(data: Vec<u8>, how: Hostility) -> HostileReader {
        HostileReader { data, pos: 0, calls: 0, how, largest_request: 0 }
    }
}

impl Read for HostileReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        self.largest_request = self.largest_request.max(buf.len());
        let limit = match self.how {
            Hostility::OneByte => 1,
            Hostility::Interrupting if self.calls.is_multiple_of(2) => return Err(io::ErrorKind::Interrupted.into()),
            Hostility::Interrupting => 1 + self.calls % 3,
            Hostility::Plain => buf.len(),
        };
        let n = limit.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[derive(Default)]
struct HostileWriter {
    out: Vec<u8>,
    calls: usize,
    interrupting: bool,
    largest_write: usize,
    flushes: usize,
}

impl Write for HostileWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupting && self.calls.is_multiple_of(2) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.largest_write = self.largest_write.max(buf.len());
        let n = buf.len().min(1 + self.calls % 3);
        self.out.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.flushes += 1;
        Ok(())
    }
}

fn decode_error_offset(error: &io::Error) -> u64 {
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    error.get_ref().unwrap().downcast_ref::<DecodeError>().expect("a DecodeError inside").offset
}

/// Reads everything a reader gives, one byte at a time, recording the errors.
fn read_events<R: Read>(reader: &mut DecodeReader<R>) -> (String, Vec<u64>) {
    let mut bytes = Vec::new();
    let mut errors = Vec::new();
    let mut buf = [0u8; 1];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            Err(e) => errors.push(decode_error_offset(&e)),
        }
    }
    (String::from_utf8(bytes).expect("the reader gives UTF-8"), errors)
}

#[test]
fn decode_reader_with_hostile_inner_readers() {
    let mut rng = Rng(0x5EED);
    let mut cases = 0;
    for (encoding, pool) in families() {
        for input in inputs(&mut rng, encoding, pool) {
            for options in all_options() {
                let expected = reference_decode(encoding, options, &input);
                for how in [Hostility::OneByte, Hostility::Interrupting, Hostility::Plain] {
                    let inner = HostileReader::new(input.clone(), how);
                    let mut reader = DecodeReader::with_capacity(1, inner, encoding, options);
                    let got = read_events(&mut reader);
                    assert_eq!(got, expected, "{} {options:?} {how:?} {input:02X?}", encoding.name());
                    assert!(reader.get_ref().largest_request <= whatenc::io::MIN_BUFFER_SIZE);
                    cases += 1;
                }
                // BufRead: lines, through fill_buf and consume.
                let mut reader = DecodeReader::with_options(
                    HostileReader::new(input.clone(), Hostility::OneByte),
                    encoding,
                    options,
                );
                let mut text = String::new();
                let mut errors = Vec::new();
                loop {
                    match reader.read_line(&mut text) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) => errors.push(decode_error_offset(&e)),
                    }
                }
                assert_eq!((text, errors), expected, "{} {options:?} read_line", encoding.name());
            }
        }
    }
    println!("decode reader: {cases} hostile runs passed");
}

#[test]
fn decode_reader_sniffs_the_bom() {
    let options = DecoderOptions { bom: BomHandling::Sniff, ..Default::default() };
    let mut reader = DecodeReader::with_options(
        HostileReader::new(b"\xFE\xFF\x00h\x00i".to_vec(), Hostility::OneByte),
        whatenc::SHIFT_JIS,
        options,
    );
    let mut text = String::new();
    reader.read_to_string(&mut text).unwrap();
    assert_eq!(text, "hi");
    assert_eq!(reader.encoding(), whatenc::UTF_16BE);
}

#[test]
fn decode_reader_fatal_error_comes_after_the_text_before_it() {
    let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
    let mut reader = DecodeReader::with_options(&b"abc\x81\xFFdef"[..], whatenc::SHIFT_JIS, options);
    let mut buf = [0u8; 16];
    assert_eq!(reader.read(&mut buf).unwrap(), 3);
    assert_eq!(&buf[..3], b"abc");
    let error = reader.read(&mut buf).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    assert_eq!(decode_error_offset(&error), 3);
    assert!(error.to_string().contains("byte offset 3"));
    let mut rest = String::new();
    reader.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "def");
}

/// Feeds `input` to a writer in chunks of 1 to 7 bytes through bare `write` calls,
/// then finishes it, recording the errors.
fn write_events<W: Write>(
    writer: &mut W,
    input: &[u8],
    rng: &mut Rng,
    mut finish: impl FnMut(&mut W) -> io::Result<()>,
    mut on_error: impl FnMut(io::Error),
) {
    let mut pos = 0;
    while pos < input.len() {
        let end = (pos + 1 + rng.below(7)).min(input.len());
        match writer.write(&input[pos..end]) {
            Ok(n) => {
                assert!(n > 0 && n <= end - pos);
                pos += n;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => on_error(e),
        }
        if rng.below(10) == 0
            && let Err(e) = writer.flush()
        {
            on_error(e);
        }
    }
    for _ in 0..10 {
        match finish(writer) {
            Ok(()) => return,
            Err(e) => on_error(e),
        }
    }
    panic!("finish never succeeded");
}

#[test]
fn decode_writer_with_hostile_inner_writers() {
    let mut rng = Rng(0xDEC0DE);
    let mut cases = 0;
    for (encoding, pool) in families() {
        for input in inputs(&mut rng, encoding, pool) {
            for options in all_options() {
                let expected = reference_decode(encoding, options, &input);
                for interrupting in [false, true] {
                    let inner = HostileWriter { interrupting, ..Default::default() };
                    let mut writer = DecodeWriter::with_capacity(1, inner, encoding, options);
                    let mut errors = Vec::new();
                    let mut chunk_rng = Rng(rng.next() | 1);
                    write_events(&mut writer, &input, &mut chunk_rng, DecodeWriter::finish, |e| {
                        errors.push(decode_error_offset(&e))
                    });
                    let inner = writer.into_inner().unwrap();
                    let text = String::from_utf8(inner.out).unwrap();
                    assert_eq!((text, errors), expected, "{} {options:?} {input:02X?}", encoding.name());
                    assert!(inner.largest_write <= whatenc::io::MIN_BUFFER_SIZE);
                    cases += 1;
                }
            }
        }
    }
    println!("decode writer: {cases} hostile runs passed");
}

#[test]
fn decode_writer_finish_reports_the_end_of_stream_error() {
    let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
    let mut writer = DecodeWriter::with_options(Vec::new(), whatenc::UTF_8, options);
    writer.write_all(b"ok\xE2\x82").unwrap();
    writer.flush().unwrap();
    assert_eq!(writer.get_ref(), b"ok");
    let error = writer.finish().unwrap_err();
    assert_eq!(decode_error_offset(&error), 2);
    writer.finish().unwrap();
    assert!(writer.write(b"x").is_err(), "no writing after finish");
    assert_eq!(writer.into_inner().unwrap(), b"ok");
}

#[test]
fn writers_finish_on_drop() {
    let mut out = Vec::new();
    {
        let mut writer = DecodeWriter::new(&mut out, whatenc::UTF_8);
        writer.write_all(b"a\xE2").unwrap();
    }
    assert_eq!(out, "a\u{FFFD}".as_bytes());
    let mut out = Vec::new();
    {
        let mut writer = EncodeWriter::new(&mut out, whatenc::ISO_2022_JP, EncoderErrorMode::Html).unwrap();
        writer.write_str("日").unwrap();
    }
    assert_eq!(out, b"\x1B$BF|\x1B(B");
}

/// The core encoder over the whole text: the bytes and the unencodable characters
/// with their offsets ("fatal" mode goes on after each).
fn reference_encode(encoding: &'static Encoding, mode: EncoderErrorMode, text: &str) -> (Vec<u8>, Vec<(char, u64)>) {
    let mut encoder = encoding.new_encoder_with(mode).unwrap();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut read = 0;
    loop {
        let (result, n) = encoder.encode_from_utf8_to_vec(&text[read..], &mut out, true);
        read += n;
        match result {
            EncoderResult::InputEmpty => return (out, errors),
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(c) => errors.push((c, (read - c.len_utf8()) as u64)),
        }
    }
}

fn unencodable(error: &io::Error) -> (char, u64) {
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    let inner = error.get_ref().unwrap().downcast_ref::<UnencodableError>().expect("an UnencodableError inside");
    (inner.character, inner.offset)
}

#[test]
fn encode_writer_with_hostile_inner_writers() {
    let mut rng = Rng(0xE4C0DE);
    let mut cases = 0;
    for (encoding, pool) in families() {
        if !encoding.has_encoder() {
            continue;
        }
        let pool = format!("{pool}☃ä𝄞\u{80}");
        for count in [0, 1, 50, 400] {
            let text = random_text(&mut rng, &pool, count);
            for mode in [EncoderErrorMode::Html, EncoderErrorMode::Fatal] {
                let expected = reference_encode(encoding, mode, &text);
                for interrupting in [false, true] {
                    // Through io::Write, with characters cut between writes.
                    let inner = HostileWriter { interrupting, ..Default::default() };
                    let mut writer = EncodeWriter::with_capacity(1, inner, encoding, mode).unwrap();
                    let mut errors = Vec::new();
                    let mut chunk_rng = Rng(rng.next() | 1);
                    write_events(&mut writer, text.as_bytes(), &mut chunk_rng, EncodeWriter::finish, |e| {
                        errors.push(unencodable(&e))
                    });
                    let inner = writer.into_inner().unwrap();
                    assert!(inner.largest_write <= whatenc::io::MIN_BUFFER_SIZE);
                    assert_eq!((inner.out, errors), expected, "{} {mode:?} {text:?}", encoding.name());
                    // Through write_str, in pieces.
                    let inner = HostileWriter { interrupting, ..Default::default() };
                    let mut writer = EncodeWriter::with_capacity(1, inner, encoding, mode).unwrap();
                    let mut errors = Vec::new();
                    let mut rest = text.as_str();
                    let mut position = 0u64;
                    while !rest.is_empty() {
                        let mut cut = (1 + rng.below(20)).min(rest.len());
                        while !rest.is_char_boundary(cut) {
                            cut += 1;
                        }
                        let (mut piece, tail) = rest.split_at(cut);
                        rest = tail;
                        while let Err(e) = writer.write_str(piece) {
                            let (c, offset) = unencodable(&e);
                            errors.push((c, offset));
                            // The text up to and including the character was taken.
                            let taken = (offset - position) as usize + c.len_utf8();
                            piece = &piece[taken..];
                            position += taken as u64;
                        }
                        position += piece.len() as u64;
                    }
                    writer.finish().unwrap();
                    assert_eq!((writer.into_inner().unwrap().out, errors), expected, "{} write_str", encoding.name());
                    cases += 2;
                }
            }
        }
    }
    println!("encode writer: {cases} hostile runs passed");
}

#[test]
fn encode_writer_rejects_bytes_that_are_not_utf8() {
    let mut writer = EncodeWriter::new(Vec::new(), whatenc::UTF_8, EncoderErrorMode::Fatal).unwrap();
    assert_eq!(writer.write(b"ab\xFFc").unwrap(), 2);
    assert_eq!(writer.write(b"\xFFc").unwrap_err().kind(), io::ErrorKind::InvalidData);
    assert_eq!(writer.write(b"\xE2\x82").unwrap(), 2);
    assert_eq!(writer.finish().unwrap_err().kind(), io::ErrorKind::InvalidData);
    writer.finish().unwrap();
    assert_eq!(writer.get_ref(), b"ab");
}

#[test]
fn encode_writer_error_names_the_character_and_its_position() {
    let mut writer = EncodeWriter::new(Vec::new(), whatenc::WINDOWS_1252, EncoderErrorMode::Fatal).unwrap();
    // The first write takes "ab" and stops before the character; the next call
    // reports it and takes nothing.
    assert_eq!(writer.write("ab☃c".as_bytes()).unwrap(), 2);
    let error = writer.write("☃c".as_bytes()).unwrap_err();
    assert_eq!(unencodable(&error), ('☃', 2));
    assert_eq!(error.to_string(), "U+2603 '☃' at text byte offset 2 cannot be encoded in windows-1252");
    // The same input again goes on past the reported character.
    assert_eq!(writer.write("☃c".as_bytes()).unwrap(), 4);
    // A character first in a write is reported by that write, which takes nothing.
    let error = writer.write("☃".as_bytes()).unwrap_err();
    assert_eq!(unencodable(&error), ('☃', 6));
    // Input that does not start with it goes on after it.
    writer.write_all("c€".as_bytes()).unwrap();
    writer.finish().unwrap();
    assert_eq!(writer.get_ref(), b"abcc\x80");
}

fn wpt_json(name: &str) -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/wpt").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn wpt_encode_cases_through_encode_writer() {
    let (mut passed, mut failed) = (0, 0);
    for (i, case) in wpt_json("encode_cases.json").as_array().unwrap().iter().enumerate() {
        let encoding = Encoding::for_label_str(case["label"].as_str().unwrap()).unwrap();
        let input = case["input"].as_str().unwrap();
        let expected: Vec<u8> =
            case["expected"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
        let inner = HostileWriter { interrupting: true, ..Default::default() };
        let mut writer = EncodeWriter::with_capacity(1, inner, encoding, EncoderErrorMode::Html).unwrap();
        for byte in input.as_bytes() {
            writer.write_all(std::slice::from_ref(byte)).unwrap();
        }
        let out = writer.into_inner().unwrap().out;
        if out == expected {
            passed += 1;
        } else {
            failed += 1;
            println!("  FAIL encode_cases.json[{i}] {}: {input:?} gave {out:02X?}", encoding.name());
        }
    }
    println!("encode_cases.json through EncodeWriter: {passed} passed, {failed} failed");
    assert_eq!(failed, 0);
}

/// A reader that makes `len` bytes of a repeated pattern, never holding more than
/// the pattern.
struct Generator {
    pattern: Vec<u8>,
    pos: usize,
    left: usize,
    largest_request: usize,
}

impl Read for Generator {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.largest_request = self.largest_request.max(buf.len());
        let n = buf.len().min(self.left);
        for byte in &mut buf[..n] {
            *byte = self.pattern[self.pos];
            self.pos = (self.pos + 1) % self.pattern.len();
        }
        self.left -= n;
        Ok(n)
    }
}

/// A writer that only counts and checksums.
#[derive(Default)]
struct Sink {
    count: u64,
    sum: u64,
    largest_write: usize,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.largest_write = self.largest_write.max(buf.len());
        self.count += buf.len() as u64;
        self.sum = buf.iter().fold(self.sum, |s, &b| s.wrapping_mul(31).wrapping_add(u64::from(b)));
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn sixty_four_megabytes_in_fixed_buffers() {
    const TOTAL: usize = 64 << 20;
    let text = "日本語のテキスト, ascii text, 😀 ünïcödé\n";
    let pattern: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let repeats = TOTAL / pattern.len();

    // UTF-16LE bytes -> DecodeReader -> UTF-8 -> EncodeWriter(GB18030) -> sink.
    let generator = Generator { left: repeats * pattern.len(), pattern, pos: 0, largest_request: 0 };
    let mut reader = DecodeReader::new(generator, whatenc::UTF_16LE);
    let mut writer = EncodeWriter::new(Sink::default(), whatenc::GB18030, EncoderErrorMode::Fatal).unwrap();
    let reader_capacity = reader.capacity();
    let writer_capacity = writer.capacity();
    assert_eq!(reader_capacity, 2 * DEFAULT_BUFFER_SIZE);
    assert_eq!(writer_capacity, DEFAULT_BUFFER_SIZE);
    let mut copied = 0u64;
    loop {
        let chunk = reader.fill_buf().unwrap();
        if chunk.is_empty() {
            break;
        }
        // Never more text at once than the output buffer holds.
        assert!(chunk.len() <= DEFAULT_BUFFER_SIZE);
        let n = chunk.len();
        writer.write_all(chunk).unwrap();
        reader.consume(n);
        copied += n as u64;
        assert_eq!(reader.capacity(), reader_capacity);
        assert_eq!(writer.capacity(), writer_capacity);
    }
    writer.finish().unwrap();
    assert_eq!(copied, (text.len() * repeats) as u64);
    assert!(reader.get_ref().largest_request <= DEFAULT_BUFFER_SIZE);
    let sink = writer.into_inner().unwrap();
    assert!(sink.largest_write <= DEFAULT_BUFFER_SIZE);

    // The same bytes as encoding the pattern once, repeated.
    let once = whatenc::GB18030.encode(text).unwrap().0.into_owned();
    let mut expected = Sink::default();
    for _ in 0..repeats {
        expected.write_all(&once).unwrap();
    }
    assert_eq!((sink.count, sink.sum), (expected.count, expected.sum));

    // And back: GB18030 bytes -> DecodeWriter -> sink, in 64 KiB writes.
    let mut writer = DecodeWriter::new(Sink::default(), whatenc::GB18030);
    let block: Vec<u8> = once.iter().copied().cycle().take(once.len() * 1000).collect();
    let mut written = 0;
    while written < TOTAL {
        writer.write_all(&block).unwrap();
        written += block.len();
        assert_eq!(writer.capacity(), DEFAULT_BUFFER_SIZE);
    }
    writer.finish().unwrap();
    let sink = writer.into_inner().unwrap();
    assert_eq!(sink.count, (written / once.len() * text.len()) as u64);
    assert!(sink.largest_write <= DEFAULT_BUFFER_SIZE);
}
