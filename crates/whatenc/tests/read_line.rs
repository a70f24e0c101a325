//! `DecodeReader`'s own `read_line` (it skips the standard library's second UTF-8
//! check) against the standard library's provided `read_line` over the same reader:
//! the same lines, counts and errors, on random text with newlines, malformed bytes
//! in both error modes, the smallest buffers, an inner reader that gives one byte at
//! a time or `Interrupted`, and a caller that consumed half a character.

mod common;

use std::io::{self, BufRead, Read};

use common::Rng;
use whatenc::io::{DecodeReader, MIN_BUFFER_SIZE};
use whatenc::{DecoderOptions, Encoding, ErrorMode};

/// The standard library's `read_line` and `lines`: a `BufRead` that overrides
/// nothing.
struct Plain<B>(B);

impl<B: BufRead> Read for Plain<B> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl<B: BufRead> BufRead for Plain<B> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.0.fill_buf()
    }
    fn consume(&mut self, amount: usize) {
        self.0.consume(amount)
    }
}

/// An inner reader that gives at most `step` bytes a call, and `Interrupted` now
/// and then (the same sequence for the same seed).
struct Flaky<'a> {
    data: &'a [u8],
    rng: Rng,
    step: usize,
}

impl Read for Flaky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.rng.chance(10) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = self.data.len().min(buf.len()).min(1 + self.rng.below(self.step));
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Every `read_line` result (count or error kind, and the buffer after it) until
/// the end or five errors.
fn lines(reader: &mut impl BufRead) -> Vec<(Result<usize, io::ErrorKind>, String)> {
    let mut out = Vec::new();
    let mut errors = 0;
    loop {
        // The buffer keeps what came before, as a caller's may.
        let mut line = String::from("»");
        let result = reader.read_line(&mut line).map_err(|e| e.kind());
        let end = result == Ok(0);
        errors += result.is_err() as usize;
        out.push((result, line));
        if end || errors == 5 {
            return out;
        }
    }
}

fn input(rng: &mut Rng, encoding: &'static Encoding) -> Vec<u8> {
    let pieces = ["a", "line", "\n", "\r\n", "é", "ж", "中文", "😀", " ", "\n\n"];
    let mut text = String::new();
    for _ in 0..rng.below(400) {
        text.push_str(pieces[rng.below(pieces.len())]);
    }
    let mut bytes = if encoding == whatenc::UTF_16LE {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    } else {
        encoding.encode(&text).unwrap().0.into_owned()
    };
    for _ in 0..rng.below(4) {
        if !bytes.is_empty() {
            let at = rng.below(bytes.len());
            bytes[at] = rng.byte();
        }
    }
    bytes
}

#[test]
fn read_line_matches_the_standard_librarys() {
    let mut rng = Rng::new(0x11AE);
    let encodings = [whatenc::UTF_8, whatenc::SHIFT_JIS, whatenc::GB18030, whatenc::UTF_16LE, whatenc::WINDOWS_1251];
    let (mut cases, mut errors, mut lines_read) = (0, 0, 0);
    for round in 0..400 {
        let encoding = encodings[round % encodings.len()];
        let data = input(&mut rng, encoding);
        for mode in [ErrorMode::Replacement, ErrorMode::Fatal] {
            let options = DecoderOptions { mode, ..DecoderOptions::default() };
            let size = [MIN_BUFFER_SIZE, 100, 8192][rng.below(3)];
            let seed = rng.next_u64();
            let step = 1 + rng.below(300);
            let make = || {
                let inner = Flaky { data: &data, rng: Rng::new(seed), step };
                DecodeReader::with_capacity(size, inner, encoding, options)
            };
            let ours = lines(&mut make());
            let theirs = lines(&mut Plain(make()));
            assert_eq!(ours, theirs, "{encoding:?} {mode:?} size {size} step {step}");
            cases += 1;
            errors += ours.iter().filter(|(result, _)| result.is_err()).count();
            lines_read += ours.len();
        }
    }
    assert_eq!(cases, 800);
    // The cases reach fatal errors and many lines.
    assert!(errors > 100 && lines_read > 10_000, "{errors} errors, {lines_read} lines");
}

#[test]
fn read_line_after_half_a_character_is_invalid_data_as_in_the_standard_library() {
    let data = "é\nok\n".as_bytes();
    let run = |reader: &mut dyn BufRead| {
        reader.fill_buf().unwrap();
        reader.consume(1);
        let mut line = String::from("kept");
        let error = reader.read_line(&mut line).unwrap_err().kind();
        let mut next = String::new();
        reader.read_line(&mut next).unwrap();
        (error, line, next)
    };
    let ours = run(&mut DecodeReader::new(data, whatenc::UTF_8));
    let theirs = run(&mut Plain(DecodeReader::new(data, whatenc::UTF_8)));
    assert_eq!(ours, (io::ErrorKind::InvalidData, "kept".to_string(), "ok\n".to_string()));
    assert_eq!(ours, theirs);
}
