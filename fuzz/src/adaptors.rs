//! The I/O adaptor checks: `io::EncodeWriter`, `io::DecodeWriter` and
//! `io::DecodeReader` driven by a script, against whole-buffer conversion.
//!
//! Input: `[encoding, flags, capacity, seed0, seed1, seed2, payload...]`.
//! - flags bit 0: "fatal" (else "replacement"/"html"); bits 1–2: how an encode
//!   writer's text is read from the payload ([`crate::units_from`]) or a decoder's
//!   BOM handling; bits 3–5: how many times the inner writer or reader fails.
//! - capacity: the adaptor's buffer size (raised to `MIN_BUFFER_SIZE` below 64).
//! - the seeds drive the script (chunk sizes, operations) and the inner I/O
//!   (short, 1-byte, `Interrupted`, and failures: an error, `WouldBlock`, `Ok(0)`).
//!
//! Properties checked:
//! - whatever the chunking and the inner I/O, the output is the whole-buffer
//!   conversion of the same input, after `finish` and after a successful `flush`
//!   (what was converted so far); an inner failure loses and repeats nothing when
//!   the operation is retried;
//! - "fatal" mode: each error is reported exactly once, with the right offset (and,
//!   for a reader, after all the text before it); an error never leaves the
//!   adaptor stuck; no data goes missing without an error reaching the caller,
//!   including when the adaptor is dropped unfinished (issue 12 bug 3);
//! - `into_inner` gives the inner writer back on error (bug 2).

use std::cell::RefCell;
use std::io::{self, BufRead, Read, Write};
use std::rc::Rc;

use whatenc::io::{DecodeReader, DecodeWriter, EncodeWriter, UnencodableError};
use whatenc::{DecodeError, DecoderOptions, EncoderErrorMode, Encoding, ErrorMode};

use crate::{Rng, decode_reference, encode_reference, header};

/// The state of a scripted inner writer or reader, shared with the driver so that
/// it can be inspected after the adaptor is dropped.
#[derive(Debug)]
struct InnerState {
    /// What was written (writer), or what is to be read (reader).
    data: Vec<u8>,
    /// Read position (reader).
    pos: usize,
    rng: Rng,
    failures_left: u32,
    failing: bool,
    /// An injected failure happened since the driver last looked.
    failed: bool,
    calls: u64,
}

#[derive(Debug, Clone)]
struct Inner(Rc<RefCell<InnerState>>);

impl Inner {
    fn new(data: Vec<u8>, seed: u64, failures: u32) -> Inner {
        Inner(Rc::new(RefCell::new(InnerState {
            data,
            pos: 0,
            rng: Rng::new(seed),
            failures_left: failures,
            failing: true,
            failed: false,
            calls: 0,
        })))
    }

    fn take_failed(&self) -> bool {
        std::mem::take(&mut self.0.borrow_mut().failed)
    }

    fn set_failing(&self, on: bool) {
        self.0.borrow_mut().failing = on;
    }

    fn data(&self) -> Vec<u8> {
        self.0.borrow().data.clone()
    }

    /// One scripted call: `Err` for an injected failure or `Interrupted`, `Ok(None)`
    /// for an injected `Ok(0)`, else `Ok(Some(n))` with `n` in `1..=len`.
    fn roll(&self, len: usize) -> io::Result<Option<usize>> {
        let mut s = self.0.borrow_mut();
        s.calls += 1;
        assert!(s.calls < 1 << 20, "the adaptor keeps calling the inner I/O without end");
        let roll = s.rng.below(20);
        if roll < 3 && s.failing && s.failures_left > 0 {
            s.failures_left -= 1;
            s.failed = true;
            return match roll {
                0 => Ok(None),
                1 => Err(io::ErrorKind::WouldBlock.into()),
                _ => Err(io::Error::other("injected failure")),
            };
        }
        if roll == 3 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        Ok(Some(match roll {
            4..=7 => 1,
            8..=12 => s.rng.below(len) + 1,
            _ => len,
        }))
    }
}

impl Write for Inner {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        match self.roll(buf.len())? {
            None => Ok(0),
            Some(n) => {
                self.0.borrow_mut().data.extend_from_slice(&buf[..n]);
                Ok(n)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut s = self.0.borrow_mut();
        if s.failing && s.failures_left > 0 && s.rng.chance(1, 8) {
            s.failures_left -= 1;
            s.failed = true;
            return Err(io::Error::other("injected flush failure"));
        }
        Ok(())
    }
}

impl Read for Inner {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = {
            let s = self.0.borrow();
            s.data.len() - s.pos
        };
        if buf.is_empty() || left == 0 {
            return Ok(0);
        }
        match self.roll(buf.len().min(left))? {
            // A reader's Ok(0) is the end: fail instead.
            None => Err(io::Error::other("injected failure")),
            Some(n) => {
                let mut s = self.0.borrow_mut();
                let start = s.pos;
                buf[..n].copy_from_slice(&s.data[start..start + n]);
                s.pos += n;
                Ok(n)
            }
        }
    }
}

/// Prints the driver's steps when `WHATENC_FUZZ_TRACE` is set (to read a reproducer).
macro_rules! trace {
    ($($arg:tt)*) => {
        if std::env::var_os("WHATENC_FUZZ_TRACE").is_some() {
            eprintln!($($arg)*);
        }
    };
}

/// What an error from an adaptor was.
#[derive(Debug)]
enum Failure {
    /// The inner I/O failed as scripted.
    Injected,
    /// A decoding error (its offset).
    Malformed(u64),
    /// An unencodable character (its offset in the text, and the character).
    Unencodable(u64, char),
    /// Text that is not UTF-8 given to an encode writer.
    NotUtf8,
}

fn classify(inner: &Inner, error: io::Error, context: &str) -> Failure {
    if inner.take_failed() {
        return Failure::Injected;
    }
    assert_eq!(error.kind(), io::ErrorKind::InvalidData, "unexpected error {error:?}: {context}");
    let payload = error.get_ref();
    if let Some(e) = payload.and_then(|p| p.downcast_ref::<DecodeError>()) {
        return Failure::Malformed(e.offset);
    }
    if let Some(e) = payload.and_then(|p| p.downcast_ref::<UnencodableError>()) {
        return Failure::Unencodable(e.offset, e.character);
    }
    Failure::NotUtf8
}

/// Consecutive errors that are not injected failures, on one operation, after which
/// the adaptor is deemed stuck.
const STUCK: u32 = 4;

fn seed_of(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b))
}

/// The largest char boundary of `text` at or below `pos`.
fn floor_boundary(text: &str, mut pos: usize) -> usize {
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    pos
}

/// Drops a writer, catching the panic of a debug build that drops an error the
/// caller never saw; returns whether it panicked. Any other panic is a failure.
fn drop_catching<T>(writer: T) -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(writer)));
    std::panic::set_hook(hook);
    let Err(payload) = result else { return false };
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    assert!(message.contains("never reported"), "drop panicked: {message}");
    true
}

/// Starts of characters that never end: each is a bad sequence when followed by a
/// character's first byte.
const ORPHANS: &[&[u8]] = &[b"\xC3", b"\xE2", b"\xE2\x82", b"\xF0\x9F", b"\xF0\x9F\x98"];

struct EncodeDriver {
    writer: Option<EncodeWriter<Inner>>,
    inner: Inner,
    encoding: &'static Encoding,
    mode: EncoderErrorMode,
    text: String,
    /// Bytes of `text` taken by the writer.
    pos: usize,
    reported: Vec<(u64, char)>,
    not_utf8: usize,
    orphans: usize,
    /// Where each orphan went in the text, and its length: the writer counts the
    /// bytes it took, so offsets after an orphan are that much further on.
    orphan_marks: Vec<(usize, usize)>,
    context: String,
}

impl EncodeDriver {
    fn writer(&mut self) -> &mut EncodeWriter<Inner> {
        self.writer.as_mut().expect("writer present")
    }

    /// Classifies an error; counts data errors and returns whether it was one.
    fn failure(&mut self, error: io::Error) -> bool {
        match classify(&self.inner, error, &self.context) {
            Failure::Injected => false,
            Failure::Unencodable(offset, c) => {
                self.reported.push((offset, c));
                true
            }
            Failure::NotUtf8 => {
                self.not_utf8 += 1;
                true
            }
            Failure::Malformed(_) => panic!("a DecodeError from an encode writer: {}", self.context),
        }
    }

    /// `write` of the next `n` bytes of text (cut anywhere), retried until taken.
    fn write(&mut self, n: usize) {
        let end = (self.pos + n).min(self.text.len());
        let mut stuck = 0;
        while self.pos < end {
            let chunk = self.text.as_bytes()[self.pos..end].to_vec();
            let result = self.writer().write(&chunk);
            trace!("write {chunk:02X?} -> {result:?}; output {:02X?}", self.inner.data());
            match result {
                Ok(k) => {
                    assert!(k > 0 && k <= chunk.len(), "write took {k} of {} bytes: {}", chunk.len(), self.context);
                    self.pos += k;
                    stuck = 0;
                }
                Err(e) => {
                    if self.failure(e) {
                        stuck += 1;
                        assert!(
                            stuck < STUCK,
                            "EncodeWriter stuck: write errs again and again (bug 4?): {}",
                            self.context
                        );
                    }
                }
            }
        }
    }

    /// `write_str` of the next characters (about `n` bytes). The inner writer does not
    /// fail meanwhile: after an inner failure `write_str` cannot say how much it took.
    fn write_str(&mut self, n: usize) {
        if !self.text.is_char_boundary(self.pos) {
            return self.write(n);
        }
        let end = floor_boundary(&self.text, (self.pos + n).min(self.text.len()));
        self.inner.set_failing(false);
        let mut stuck = 0;
        while self.pos < end {
            let chunk = self.text[self.pos..end].to_string();
            let result = self.writer().write_str(&chunk);
            trace!("write_str {chunk:?} -> {result:?}; output {:02X?}", self.inner.data());
            match result {
                Ok(()) => self.pos = end,
                Err(e) => {
                    let before = self.reported.len();
                    assert!(self.failure(e), "write_str failed with a quiet inner writer: {}", self.context);
                    if self.reported.len() == before {
                        // Not an unencodable character: nothing was taken.
                        stuck += 1;
                        assert!(stuck < STUCK, "EncodeWriter stuck: write_str errs again and again: {}", self.context);
                        continue;
                    }
                    // An unencodable character of an earlier `write`, reported late
                    // (nothing taken), or the first one of this text (taken with the
                    // text before it). The reference tells which, and where it is.
                    let taken = encode_reference(self.encoding, self.mode, &self.text[..self.pos], false);
                    if taken.unmappable.len() >= self.reported.len() {
                        stuck += 1;
                        assert!(stuck < STUCK, "EncodeWriter stuck: write_str errs again and again: {}", self.context);
                        continue;
                    }
                    let upto = encode_reference(self.encoding, self.mode, &self.text[..end], false);
                    let &(offset, _) =
                        upto.unmappable.iter().find(|&&(offset, _)| offset as usize >= self.pos).unwrap_or_else(|| {
                            panic!("write_str reported an unencodable character in mappable text: {}", self.context)
                        });
                    let offset = offset as usize;
                    self.pos = offset + self.text[offset..].chars().next().expect("a character").len_utf8();
                    stuck = 0;
                }
            }
        }
        self.inner.set_failing(true);
    }

    /// The start of a character that never ends, then the next bytes of text.
    fn orphan(&mut self, which: usize, n: usize) {
        if !self.text.is_char_boundary(self.pos) || self.pos == self.text.len() {
            return self.write(n);
        }
        let orphan = ORPHANS[which % ORPHANS.len()];
        let mut taken = 0;
        let mut stuck = 0;
        while taken < orphan.len() {
            let result = self.writer().write(&orphan[taken..]);
            trace!("write orphan {:02X?} -> {result:?}", &orphan[taken..]);
            match result {
                Ok(k) => {
                    assert!(k > 0, "write took nothing");
                    taken += k;
                }
                Err(e) => {
                    if self.failure(e) {
                        stuck += 1;
                        assert!(stuck < STUCK, "EncodeWriter stuck before an orphan: {}", self.context);
                    }
                }
            }
        }
        self.orphans += 1;
        self.orphan_marks.push((self.pos, orphan.len()));
        self.write(n.max(1));
    }

    /// Retries `op` until it succeeds, counting data errors.
    fn until_ok(&mut self, what: &str, mut op: impl FnMut(&mut EncodeWriter<Inner>) -> io::Result<()>) {
        let mut stuck = 0;
        loop {
            let result = op(self.writer.as_mut().expect("writer present"));
            trace!("{what} -> {result:?}; output {:02X?}", self.inner.data());
            match result {
                Ok(()) => return,
                Err(e) => {
                    if self.failure(e) {
                        stuck += 1;
                        assert!(stuck < STUCK, "EncodeWriter stuck: {what} errs again and again: {}", self.context);
                    }
                }
            }
        }
    }

    /// The text taken so far that the encoder has seen (not a cut character).
    fn whole_chars(&self) -> &str {
        &self.text[..floor_boundary(&self.text, self.pos)]
    }

    fn flush(&mut self) {
        self.until_ok("flush", |w| w.flush());
        let expected = encode_reference(self.encoding, self.mode, self.whole_chars(), false);
        assert_eq!(self.inner.data(), expected.bytes, "output after flush: {}", self.context);
        self.check_reported(&expected.unmappable, "flush");
    }

    /// The unencodable characters reported are those the encoder met, at the same
    /// offsets. The encoder names U+FFFD for ISO-2022-JP's U+000E, U+000F and U+001B
    /// (the standard's error); the writer may name the character of the text instead.
    fn check_reported(&self, expected: &[(u64, char)], after: &str) {
        let offsets: Vec<u64> = self.reported.iter().map(|&(offset, _)| offset).collect();
        let expected_offsets: Vec<u64> = expected.iter().map(|&(offset, _)| self.stream_offset(offset)).collect();
        assert_eq!(offsets, expected_offsets, "unencodable characters reported by {after}: {}", self.context);
        for (&(_, c), &(offset, met)) in self.reported.iter().zip(expected) {
            let in_text = self.text[offset as usize..].chars().next();
            assert!(c == met || Some(c) == in_text, "reported {c:?} at {offset} for {met:?}: {}", self.context);
        }
    }

    /// The offset in the bytes written of the character at `offset` in the text.
    fn stream_offset(&self, offset: u64) -> u64 {
        let before: usize = self.orphan_marks.iter().filter(|&&(at, _)| at as u64 <= offset).map(|&(_, len)| len).sum();
        offset + before as u64
    }

    /// Checks the end state after a successful `finish`.
    fn check_finished(&self) {
        let expected = encode_reference(self.encoding, self.mode, self.whole_chars(), true);
        assert_eq!(self.inner.data(), expected.bytes, "output after finish: {}", self.context);
        self.check_reported(&expected.unmappable, "finish");
        let cut = usize::from(!self.text.is_char_boundary(self.pos));
        assert_eq!(self.not_utf8, self.orphans + cut, "not-UTF-8 errors reported: {}", self.context);
    }

    fn finish(&mut self) {
        self.until_ok("finish", |w| w.finish());
        self.check_finished();
    }

    /// `into_inner` until it succeeds: on an error it hands the writer back (bug 2).
    fn take_inner(&mut self) {
        let mut stuck = 0;
        loop {
            let writer = self.writer.take().expect("writer present");
            match writer.into_inner() {
                Ok(_) => return self.check_finished(),
                Err(error) => {
                    let (error, writer) = error.into_parts();
                    self.writer = Some(writer);
                    if self.failure(error) {
                        stuck += 1;
                        assert!(stuck < STUCK, "EncodeWriter stuck: into_inner errs again and again: {}", self.context);
                    }
                }
            }
        }
    }

    /// Drops the writer unfinished: it must finish as well as it can, and not lose
    /// an error the caller never saw without saying so (debug builds panic: bug 3).
    fn drop_unfinished(&mut self) {
        self.inner.set_failing(false);
        let expected = encode_reference(self.encoding, self.mode, self.whole_chars(), true);
        let unreported = self.reported.len() < expected.unmappable.len()
            || self.not_utf8 < self.orphans
            || !self.text.is_char_boundary(self.pos);
        let panicked = drop_catching(self.writer.take());
        assert_eq!(
            panicked,
            unreported && cfg!(debug_assertions),
            "bug 3: EncodeWriter dropped with an unreported error ({:?} reported, {:?} taken, {} orphan(s), {} not-UTF-8 error(s), cut character: {}) panicked: {panicked}: {}",
            self.reported,
            expected.unmappable,
            self.orphans,
            self.not_utf8,
            !self.text.is_char_boundary(self.pos),
            self.context
        );
        assert_eq!(self.inner.data(), expected.bytes, "output after drop: {}", self.context);
    }
}

/// The `EncodeWriter` check.
pub fn check_encode_writer(data: &[u8]) {
    let Some((head @ [enc, flags, capacity, ..], payload)) = header::<6>(data) else { return };
    let encoding = crate::pick_encoder_encoding(enc);
    let mode = if flags & 1 == 0 { EncoderErrorMode::Html } else { EncoderErrorMode::Fatal };
    let text = String::from_utf16_lossy(&crate::units_from((flags >> 1) & 3, payload));
    let failures = u32::from(flags >> 3 & 7);
    let seed = seed_of(&head);
    let mut script = Rng::new(seed);
    let inner = Inner::new(Vec::new(), !seed, failures);
    let writer = EncodeWriter::with_capacity(capacity as usize, inner.clone(), encoding, mode).unwrap();
    let context =
        format!("{} {mode:?} capacity {capacity} seed {seed:#x} failures {failures} text {text:?}", encoding.name());
    let mut driver = EncodeDriver {
        writer: Some(writer),
        inner,
        encoding,
        mode,
        text,
        pos: 0,
        reported: Vec::new(),
        not_utf8: 0,
        orphans: 0,
        orphan_marks: Vec::new(),
        context,
    };
    loop {
        let op = script.below(40);
        let n = if script.chance(1, 4) { script.below(200) } else { script.below(9) };
        if driver.pos == driver.text.len() || op == 0 {
            match script.below(4) {
                0 => driver.drop_unfinished(),
                1 => driver.take_inner(),
                _ => {
                    driver.finish();
                    // After a successful finish, into_inner only hands the writer back.
                    if script.chance(1, 2) {
                        driver.take_inner();
                    } else {
                        driver.writer = None;
                    }
                }
            }
            return;
        }
        match op {
            1..=3 => driver.flush(),
            4 => driver.orphan(script.below(ORPHANS.len()), n),
            5..=12 => driver.write_str(n),
            _ => driver.write(n),
        }
    }
}

struct DecodeDriver {
    writer: Option<DecodeWriter<Inner>>,
    inner: Inner,
    encoding: &'static Encoding,
    options: DecoderOptions,
    input: Vec<u8>,
    pos: usize,
    reported: Vec<u64>,
    context: String,
}

impl DecodeDriver {
    fn failure(&mut self, error: io::Error) -> bool {
        match classify(&self.inner, error, &self.context) {
            Failure::Injected => false,
            Failure::Malformed(offset) => {
                assert_eq!(self.options.mode, ErrorMode::Fatal, "a DecodeError in replacement mode: {}", self.context);
                self.reported.push(offset);
                true
            }
            other => panic!("{other:?} from a decode writer: {}", self.context),
        }
    }

    fn write(&mut self, n: usize) {
        let end = (self.pos + n).min(self.input.len());
        let mut stuck = 0;
        while self.pos < end {
            let chunk = self.input[self.pos..end].to_vec();
            let result = self.writer.as_mut().expect("writer present").write(&chunk);
            trace!("write {chunk:02X?} -> {result:?}; output {:02X?}", self.inner.data());
            match result {
                Ok(k) => {
                    assert!(k > 0 && k <= chunk.len(), "write took {k} of {} bytes: {}", chunk.len(), self.context);
                    self.pos += k;
                    stuck = 0;
                }
                Err(e) => {
                    if self.failure(e) {
                        stuck += 1;
                        assert!(stuck < STUCK, "DecodeWriter stuck: write errs again and again: {}", self.context);
                    }
                }
            }
        }
    }

    fn until_ok(&mut self, what: &str, mut op: impl FnMut(&mut DecodeWriter<Inner>) -> io::Result<()>) {
        let mut stuck = 0;
        loop {
            let result = op(self.writer.as_mut().expect("writer present"));
            trace!("{what} -> {result:?}; output {:02X?}", self.inner.data());
            match result {
                Ok(()) => return,
                Err(e) => {
                    if self.failure(e) {
                        stuck += 1;
                        assert!(stuck < STUCK, "DecodeWriter stuck: {what} errs again and again: {}", self.context);
                    }
                }
            }
        }
    }

    fn flush(&mut self) {
        self.until_ok("flush", |w| w.flush());
        let expected = decode_reference(self.encoding, self.options, &self.input[..self.pos], false);
        if crate::skipped("flush-after-error") && !self.reported.is_empty() {
            // After an error, flush may leave text of taken input in the decoder (a finding).
            assert!(expected.text.as_bytes().starts_with(&self.inner.data()), "output after flush: {}", self.context);
        } else {
            assert_eq!(self.inner.data(), expected.text.as_bytes(), "output after flush: {}", self.context);
        }
        if self.options.mode == ErrorMode::Fatal {
            assert_eq!(self.reported, expected.errors, "errors reported by flush: {}", self.context);
        }
    }

    fn check_finished(&self) {
        let expected = decode_reference(self.encoding, self.options, &self.input[..self.pos], true);
        assert_eq!(self.inner.data(), expected.text.as_bytes(), "output after finish: {}", self.context);
        if self.options.mode == ErrorMode::Fatal {
            assert_eq!(self.reported, expected.errors, "errors reported: {}", self.context);
        }
    }

    fn finish(&mut self) {
        self.until_ok("finish", |w| w.finish());
        self.check_finished();
    }

    /// `into_inner` until it succeeds: on an error it hands the writer back (bug 2).
    fn take_inner(&mut self) {
        let mut stuck = 0;
        loop {
            let writer = self.writer.take().expect("writer present");
            match writer.into_inner() {
                Ok(_) => return self.check_finished(),
                Err(error) => {
                    let (error, writer) = error.into_parts();
                    self.writer = Some(writer);
                    if self.failure(error) {
                        stuck += 1;
                        assert!(stuck < STUCK, "DecodeWriter stuck: into_inner errs again and again: {}", self.context);
                    }
                }
            }
        }
    }

    fn drop_unfinished(&mut self) {
        self.inner.set_failing(false);
        let expected = decode_reference(self.encoding, self.options, &self.input[..self.pos], true);
        let unreported = self.options.mode == ErrorMode::Fatal && self.reported.len() < expected.errors.len();
        let panicked = drop_catching(self.writer.take());
        assert_eq!(
            panicked,
            unreported && cfg!(debug_assertions),
            "bug 3: DecodeWriter dropped with an unreported error ({:?} reported, {:?} in the input) panicked: {panicked}: {}",
            self.reported,
            expected.errors,
            self.context
        );
        assert_eq!(self.inner.data(), expected.text.as_bytes(), "output after drop: {}", self.context);
    }
}

/// The `DecodeWriter` check.
pub fn check_decode_writer(data: &[u8]) {
    let Some((head @ [enc, flags, capacity, ..], payload)) = header::<6>(data) else { return };
    let encoding = crate::pick_encoding(enc);
    let mode = if flags & 1 == 0 { ErrorMode::Replacement } else { ErrorMode::Fatal };
    let options = DecoderOptions { mode, bom: crate::pick_bom(flags >> 1) };
    let failures = u32::from(flags >> 3 & 7);
    let seed = seed_of(&head);
    let mut script = Rng::new(seed);
    let inner = Inner::new(Vec::new(), !seed, failures);
    let writer = DecodeWriter::with_capacity(capacity as usize, inner.clone(), encoding, options);
    let context = format!(
        "{} {options:?} capacity {capacity} seed {seed:#x} failures {failures} input {payload:02X?}",
        encoding.name()
    );
    let mut driver = DecodeDriver {
        writer: Some(writer),
        inner,
        encoding,
        options,
        input: payload.to_vec(),
        pos: 0,
        reported: Vec::new(),
        context,
    };
    loop {
        let op = script.below(40);
        let n = if script.chance(1, 4) { script.below(200) } else { script.below(9) };
        if driver.pos == driver.input.len() || op == 0 {
            match script.below(4) {
                0 => driver.drop_unfinished(),
                1 => driver.take_inner(),
                _ => {
                    driver.finish();
                    if script.chance(1, 2) {
                        driver.take_inner();
                    } else {
                        driver.writer = None;
                    }
                }
            }
            return;
        }
        match op {
            1..=4 => driver.flush(),
            _ => driver.write(n),
        }
    }
}

/// The `DecodeReader` check: `read` into buffers of random sizes and
/// `fill_buf`/`consume` of random amounts, over a scripted inner reader.
pub fn check_decode_reader(data: &[u8]) {
    let Some((head @ [enc, flags, capacity, ..], payload)) = header::<6>(data) else { return };
    let encoding = crate::pick_encoding(enc);
    let mode = if flags & 1 == 0 { ErrorMode::Replacement } else { ErrorMode::Fatal };
    let options = DecoderOptions { mode, bom: crate::pick_bom(flags >> 1) };
    let failures = u32::from(flags >> 3 & 7);
    let seed = seed_of(&head);
    let mut script = Rng::new(seed);
    let inner = Inner::new(payload.to_vec(), !seed, failures);
    let mut reader = DecodeReader::with_capacity(capacity as usize, inner.clone(), encoding, options);
    let context = format!(
        "{} {options:?} capacity {capacity} seed {seed:#x} failures {failures} input {payload:02X?}",
        encoding.name()
    );
    let expected = decode_reference(encoding, options, payload, true);

    let mut text = Vec::new();
    let mut reported = Vec::new();
    let mut calls = 0usize;
    loop {
        calls += 1;
        assert!(calls < 16 * payload.len() + 1000, "DecodeReader never reaches the end: {context}");
        let result = if script.chance(1, 3) {
            match reader.fill_buf() {
                Ok([]) => break,
                Ok(available) => {
                    let n = script.below(available.len() + 1);
                    text.extend_from_slice(&available[..n]);
                    reader.consume(n);
                    Ok(())
                }
                Err(e) => Err(e),
            }
        } else {
            let mut buf = vec![0u8; script.below(40)];
            match reader.read(&mut buf) {
                Ok(0) if !buf.is_empty() => break,
                Ok(n) => {
                    text.extend_from_slice(&buf[..n]);
                    Ok(())
                }
                Err(e) => Err(e),
            }
        };
        match result {
            Ok(()) => {}
            Err(e) => match classify(&inner, e, &context) {
                Failure::Injected => {}
                Failure::Malformed(offset) => {
                    assert_eq!(mode, ErrorMode::Fatal, "a DecodeError in replacement mode: {context}");
                    let index = reported.len();
                    reported.push(offset);
                    if let Some(&before) = expected.text_at_errors.get(index) {
                        assert_eq!(
                            text.len(),
                            before,
                            "error {index} reported before all the text before it: {context}"
                        );
                    }
                }
                other => panic!("{other:?} from a decode reader: {context}"),
            },
        }
    }
    assert_eq!(String::from_utf8(text).expect("a DecodeReader reads UTF-8"), expected.text, "text read: {context}");
    if mode == ErrorMode::Fatal {
        assert_eq!(reported, expected.errors, "errors reported: {context}");
    }
    assert_eq!(reader.read(&mut [0u8; 8]).ok(), Some(0), "read after the end: {context}");
    assert_eq!(reader.encoding(), expected.encoding, "encoding after BOM handling: {context}");
}
