//! The sans-IO core of every adaptor: the buffers, the decoder or encoder, the
//! error that waits to be reported and what the next input must skip. It never
//! touches I/O itself: the shells (`std::io`, `futures-io`, tokio) hand it a
//! `read` or `write` function that may return `Pending`, and each of its `poll_*`
//! functions is the whole logic of one adaptor method, written once.
//!
//! How errors are reported (the writers' contract, documented on the module):
//! a call that meets bad input (a malformed sequence, an unencodable character,
//! bytes that are not UTF-8) takes the input before it and returns `Ok`; the next
//! call reports the error and takes nothing; the call after that goes on past the
//! bad input. So an error always reaches the caller before the bad input counts as
//! taken, and `write_all` cannot return `Ok` over it.

use std::boxed::Box;
use std::io;
use std::task::Poll;
use std::vec;
use std::vec::Vec;

use super::{MIN_BUFFER_SIZE, UnencodableError};
use crate::decoder::{DecodeError, Decoder, DecoderOptions, DecoderResult};
use crate::encoder::{Encoder, EncoderErrorMode, EncoderResult, NoEncoder};
use crate::encoding::Encoding;

/// The room an output buffer keeps free before a decoding or encoding step: enough
/// for every step of every decoder (4 bytes) and encoder (14 bytes) to progress.
const MIN_ROOM: usize = 32;

pub(crate) fn invalid_data<E: std::error::Error + Send + Sync + 'static>(error: E) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error)
}

/// A fixed-size byte buffer: `buf[start..end]` waits to be handed on.
#[derive(Debug)]
pub(crate) struct OutBuf {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
}

impl OutBuf {
    fn new(size: usize) -> OutBuf {
        OutBuf { buf: vec![0; size.max(MIN_BUFFER_SIZE)].into_boxed_slice(), start: 0, end: 0 }
    }

    pub(crate) fn pending(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub(crate) fn advance(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Whether the free room is too small for the next step.
    fn needs_drain(&self) -> bool {
        self.buf.len() - self.end < MIN_ROOM
    }

    fn spare(&mut self) -> &mut [u8] {
        &mut self.buf[self.end..]
    }

    fn capacity(&self) -> usize {
        self.buf.len()
    }
}

/// Writes out `out` (all of it, or until it has room again) with `write`, which
/// may return `Pending`. `Interrupted` is retried; `Ok(0)` is `WriteZero`.
fn poll_drain<F>(out: &mut OutBuf, all: bool, mut write: F) -> Poll<io::Result<()>>
where
    F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
{
    while (all && !out.is_empty()) || out.needs_drain() {
        match write(out.pending()) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
            Poll::Ready(Ok(n)) => out.advance(n),
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
        }
    }
    Poll::Ready(Ok(()))
}

/// The outcome of a blocking call of a `poll_*` function.
pub(crate) fn ready<T>(poll: Poll<io::Result<T>>) -> io::Result<T> {
    match poll {
        Poll::Ready(result) => result,
        Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
    }
}

/// The state of a decoding reader, without the reader: bytes in, UTF-8 out.
#[derive(Debug)]
pub(crate) struct ReadCore {
    decoder: Decoder,
    input: Box<[u8]>,
    in_start: usize,
    in_end: usize,
    output: OutBuf,
    /// The inner reader has ended.
    eof: bool,
    /// The decoder has processed end-of-stream.
    done: bool,
    /// An error to report once the text before it has been read.
    error: Option<DecodeError>,
}

impl ReadCore {
    pub(crate) fn new(encoding: &'static Encoding, options: DecoderOptions, size: usize) -> ReadCore {
        let size = size.max(MIN_BUFFER_SIZE);
        ReadCore {
            decoder: encoding.new_decoder_with(options),
            input: vec![0; size].into_boxed_slice(),
            in_start: 0,
            in_end: 0,
            output: OutBuf::new(size),
            eof: false,
            done: false,
            error: None,
        }
    }

    pub(crate) fn encoding(&self) -> &'static Encoding {
        self.decoder.encoding()
    }

    pub(crate) fn capacity(&self) -> usize {
        self.input.len() + self.output.capacity()
    }

    /// The text ready to be read.
    pub(crate) fn text(&self) -> &[u8] {
        self.output.pending()
    }

    /// Makes text ready (or finds the end of the text, or an error), reading more
    /// input with `read` as needed. `read` fills the slice it is given and returns
    /// the byte count, 0 at the end.
    pub(crate) fn poll_fill<F>(&mut self, mut read: F) -> Poll<io::Result<()>>
    where
        F: FnMut(&mut [u8]) -> Poll<io::Result<usize>>,
    {
        loop {
            if !self.output.is_empty() || self.done {
                return Poll::Ready(Ok(()));
            }
            if let Some(error) = self.error.take() {
                return Poll::Ready(Err(invalid_data(error)));
            }
            if self.in_start == self.in_end && !self.eof {
                match read(&mut self.input) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Ok(0)) => self.eof = true,
                    Poll::Ready(Ok(n)) => {
                        self.in_start = 0;
                        self.in_end = n.min(self.input.len());
                    }
                    Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                }
            }
            let last = self.eof;
            let input = &self.input[self.in_start..self.in_end];
            let progress = self.decoder.decode_to_utf8(input, self.output.spare(), last);
            self.in_start += progress.read;
            self.output.end += progress.written;
            match progress.result {
                DecoderResult::InputEmpty => self.done = last,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(error) => self.error = Some(error),
            }
        }
    }

    /// Copies ready text into `buf` (after [`ReadCore::poll_fill`]).
    pub(crate) fn read_into(&mut self, buf: &mut [u8]) -> usize {
        let text = self.output.pending();
        let n = text.len().min(buf.len());
        buf[..n].copy_from_slice(&text[..n]);
        self.output.advance(n);
        n
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.output.advance(n);
    }
}

/// What stopped one conversion step of a writer.
pub(crate) enum Stop {
    /// All input taken (or, at the end, the stream is finished).
    InputEmpty,
    /// The output needs room.
    OutputFull,
    /// Bad input, which starts at `start` in the input of the step and ends at its
    /// `read`.
    Bad { error: io::Error, start: usize },
}

/// One conversion step of a writer.
pub(crate) struct Step {
    /// Input bytes consumed.
    read: usize,
    /// Output bytes written.
    written: usize,
    stop: Stop,
}

/// The conversion a writer runs: a decoder, or an encoder taking UTF-8.
pub(crate) trait Convert {
    /// Converts from `input` into `out`, which has at least `MIN_ROOM` bytes of room.
    fn convert(&mut self, input: &[u8], out: &mut [u8]) -> Step;
    /// One step of the end of the stream into `out` (`InputEmpty` when finished).
    fn end(&mut self, out: &mut [u8]) -> Step;
}

/// A decoder as a writer's conversion.
#[derive(Debug)]
pub(crate) struct DecodeConvert {
    decoder: Decoder,
    /// Bytes consumed so far: where the next input starts in the stream.
    position: u64,
}

impl DecodeConvert {
    fn step(&mut self, input: &[u8], out: &mut [u8], last: bool) -> Step {
        let before = self.position;
        let progress = self.decoder.decode_to_utf8(input, out, last);
        self.position += progress.read as u64;
        let stop = match progress.result {
            DecoderResult::InputEmpty => Stop::InputEmpty,
            DecoderResult::OutputFull => Stop::OutputFull,
            DecoderResult::Malformed(error) => {
                // A sequence that began in earlier input starts this one's bad part.
                let start = error.offset.saturating_sub(before).min(progress.read as u64) as usize;
                Stop::Bad { error: invalid_data(error), start }
            }
        };
        Step { read: progress.read, written: progress.written, stop }
    }
}

impl Convert for DecodeConvert {
    fn convert(&mut self, input: &[u8], out: &mut [u8]) -> Step {
        self.step(input, out, false)
    }

    fn end(&mut self, out: &mut [u8]) -> Step {
        self.step(&[], out, true)
    }
}

/// The UTF-8 length of a sequence that starts with `lead`, or 0 if `lead` cannot
/// start one.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

fn invalid_utf8(offset: u64) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, std::format!("the text is not valid UTF-8 at byte offset {offset}"))
}

/// An encoder taking UTF-8 bytes, which may cut a character, as a writer's conversion.
#[derive(Debug)]
pub(crate) struct EncodeConvert {
    encoder: Encoder,
    /// The start of a character cut by the end of the previous input.
    partial: [u8; 4],
    partial_len: usize,
    /// Bytes of text consumed so far.
    position: u64,
}

impl EncodeConvert {
    /// Encodes `text`, which starts `lead` bytes before the step's input (the bytes
    /// of a cut character taken earlier), into `out`.
    fn encode(&mut self, text: &str, lead: usize, out: &mut [u8]) -> Step {
        let progress = self.encoder.encode_from_utf8(text, out, false);
        let read = progress.read - lead;
        let start_of_text = self.position - lead as u64;
        self.position += read as u64;
        let stop = match progress.result {
            EncoderResult::InputEmpty => Stop::InputEmpty,
            EncoderResult::OutputFull => Stop::OutputFull,
            EncoderResult::Unmappable(_) => {
                // The input's character: ISO-2022-JP reports U+FFFD for ESC, SO and SI.
                let character = text[..progress.read].chars().next_back().unwrap_or_default();
                let at = progress.read - character.len_utf8();
                let offset = start_of_text + at as u64;
                let error = UnencodableError { character, offset, encoding: self.encoder.encoding() };
                Stop::Bad { error: invalid_data(error), start: at.saturating_sub(lead) }
            }
        };
        Step { read, written: progress.written, stop }
    }

    /// Completes the character cut by the previous input with the start of `input`.
    fn complete_partial(&mut self, input: &[u8], out: &mut [u8]) -> Step {
        let have = self.partial_len;
        let take = (utf8_len(self.partial[0]) - have).min(input.len());
        let mut bytes = self.partial;
        bytes[have..have + take].copy_from_slice(&input[..take]);
        match core::str::from_utf8(&bytes[..have + take]) {
            Ok(text) => {
                self.partial_len = 0;
                self.encode(text, have, out)
            }
            Err(e) => match e.error_len() {
                None => {
                    self.partial = bytes;
                    self.partial_len = have + take;
                    self.position += take as u64;
                    Step { read: take, written: 0, stop: Stop::InputEmpty }
                }
                Some(len) => {
                    // The cut character is broken: it is dropped with the bytes of
                    // this input that belong to it.
                    self.partial_len = 0;
                    let read = len.saturating_sub(have);
                    let error = invalid_utf8(self.position - have as u64);
                    self.position += read as u64;
                    Step { read, written: 0, stop: Stop::Bad { error, start: 0 } }
                }
            },
        }
    }
}

impl Convert for EncodeConvert {
    fn convert(&mut self, input: &[u8], out: &mut [u8]) -> Step {
        if self.partial_len != 0 {
            return self.complete_partial(input, out);
        }
        let (text, invalid) = match core::str::from_utf8(input) {
            Ok(text) => (text, None),
            Err(e) => {
                // The prefix is valid UTF-8, as `from_utf8` said.
                let valid = &input[..e.valid_up_to()];
                (core::str::from_utf8(valid).unwrap_or_default(), Some(e))
            }
        };
        let step = self.encode(text, 0, out);
        let Some(e) = invalid else { return step };
        if step.read < text.len() || !matches!(step.stop, Stop::InputEmpty) {
            return step;
        }
        let valid = e.valid_up_to();
        match e.error_len() {
            None => {
                // Only the start of a character: keep it for the next input.
                let rest = &input[valid..];
                self.partial[..rest.len()].copy_from_slice(rest);
                self.partial_len = rest.len();
                self.position += rest.len() as u64;
                Step { read: input.len(), ..step }
            }
            Some(len) => {
                let error = invalid_utf8(self.position);
                self.position += len as u64;
                Step { read: valid + len, written: step.written, stop: Stop::Bad { error, start: valid } }
            }
        }
    }

    fn end(&mut self, out: &mut [u8]) -> Step {
        if self.partial_len != 0 {
            let offset = self.position - self.partial_len as u64;
            self.partial_len = 0;
            let error = io::Error::new(
                io::ErrorKind::InvalidData,
                std::format!("the text ends inside a UTF-8 sequence at byte offset {offset}"),
            );
            return Step { read: 0, written: 0, stop: Stop::Bad { error, start: 0 } };
        }
        let progress = self.encoder.encode_from_utf8("", out, true);
        let stop = if progress.result == EncoderResult::InputEmpty { Stop::InputEmpty } else { Stop::OutputFull };
        Step { read: 0, written: progress.written, stop }
    }
}

/// The state of a writer, without the writer: its conversion, its output buffer
/// and its errors.
#[derive(Debug)]
pub(crate) struct WriteCore<C: Convert> {
    convert: C,
    output: OutBuf,
    /// An error met after the input that a call took: the next call reports it.
    pending: Option<io::Error>,
    /// The bad input of the error reported last, which the conversion consumed: a
    /// following input that starts with it (the same input again, as nothing was
    /// taken) goes on past it; one that does not drops it.
    skip: Vec<u8>,
    finished: bool,
    /// Whether errors can be lost at all: "fatal" mode (and bytes that are not UTF-8).
    fatal: bool,
    /// The adaptor's name, while dropping the core checks that no error goes
    /// unreported (see [`dropped_with`]).
    watch: Option<&'static str>,
}

/// The core of a decoding writer.
pub(crate) type DecodeWriteCore = WriteCore<DecodeConvert>;
/// The core of an encoding writer.
pub(crate) type EncodeWriteCore = WriteCore<EncodeConvert>;

impl DecodeWriteCore {
    pub(crate) fn new(
        adaptor: &'static str,
        encoding: &'static Encoding,
        options: DecoderOptions,
        size: usize,
    ) -> DecodeWriteCore {
        let fatal = options.mode == crate::ErrorMode::Fatal;
        let convert = DecodeConvert { decoder: encoding.new_decoder_with(options), position: 0 };
        WriteCore::with(adaptor, convert, size, fatal)
    }

    pub(crate) fn encoding(&self) -> &'static Encoding {
        self.convert.decoder.encoding()
    }
}

impl EncodeWriteCore {
    pub(crate) fn new(
        adaptor: &'static str,
        encoding: &'static Encoding,
        mode: EncoderErrorMode,
        size: usize,
    ) -> Result<EncodeWriteCore, NoEncoder> {
        let encoder = encoding.new_encoder_with(mode)?;
        let convert = EncodeConvert { encoder, partial: [0; 4], partial_len: 0, position: 0 };
        // Bytes that are not UTF-8 are errors in either mode.
        Ok(WriteCore::with(adaptor, convert, size, true))
    }

    pub(crate) fn encoding(&self) -> &'static Encoding {
        self.convert.encoder.encoding()
    }

    /// `write_str`: all of `text`, or the text up to and including the first
    /// unencodable character and the error naming it.
    pub(crate) fn poll_write_str<F>(&mut self, text: &str, mut write: F) -> Poll<io::Result<()>>
    where
        F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
    {
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            match self.poll_write(rest, &mut write) {
                Poll::Ready(Ok(n)) => rest = &rest[n..],
                Poll::Ready(Err(error)) => {
                    // The character is taken with the error: the text after it is not.
                    self.skip.clear();
                    return Poll::Ready(Err(error));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<C: Convert> WriteCore<C> {
    fn with(adaptor: &'static str, convert: C, size: usize, fatal: bool) -> WriteCore<C> {
        let watch = Some(adaptor);
        WriteCore { convert, output: OutBuf::new(size), pending: None, skip: Vec::new(), finished: false, fatal, watch }
    }

    /// Stops the check on drop: the caller took the inner writer as it is.
    #[cfg(any(feature = "futures-io", feature = "tokio", feature = "stream"))]
    pub(crate) fn unwatch(&mut self) {
        self.watch = None;
    }

    /// A writer finishing as it is dropped met `error`, which the caller never saw.
    pub(crate) fn dropped_with(&mut self, error: io::Error) {
        if let Some(adaptor) = self.watch.take() {
            dropped_with(adaptor, error);
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.output.capacity()
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.finished
    }

    /// Takes input into the output buffer, which has room.
    fn accept(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(error) = self.pending.take() {
            return Err(error);
        }
        if self.finished {
            return Err(io::Error::other("write after finish"));
        }
        let skipped = self.skip_taken(buf);
        let input = &buf[skipped..];
        if input.is_empty() {
            return Ok(skipped);
        }
        let step = self.convert.convert(input, self.output.spare());
        self.output.end += step.written;
        match step.stop {
            Stop::Bad { error, start } => {
                self.skip.extend_from_slice(&input[start..step.read]);
                let taken = skipped + start;
                if taken == 0 {
                    return Err(error);
                }
                self.pending = Some(error);
                Ok(taken)
            }
            Stop::InputEmpty | Stop::OutputFull => Ok(skipped + step.read),
        }
    }

    /// How much of the start of `buf` is bad input that was reported and consumed.
    fn skip_taken(&mut self, buf: &[u8]) -> usize {
        if self.skip.is_empty() || buf.is_empty() {
            return 0;
        }
        let n = self.skip.len().min(buf.len());
        if buf[..n] != self.skip[..n] {
            self.skip.clear();
            return 0;
        }
        self.skip.drain(..n);
        n
    }

    /// One step of the end of the stream into the output buffer, which has room:
    /// `Ok(true)` when the stream is finished.
    fn end_step(&mut self) -> io::Result<bool> {
        if let Some(error) = self.pending.take() {
            return Err(error);
        }
        if self.finished {
            return Ok(true);
        }
        let step = self.convert.end(self.output.spare());
        self.output.end += step.written;
        match step.stop {
            Stop::InputEmpty => {
                self.finished = true;
                self.skip.clear();
                Ok(true)
            }
            Stop::OutputFull => Ok(false),
            Stop::Bad { error, .. } => Err(error),
        }
    }

    /// `write`: makes room in the output buffer, then takes input.
    pub(crate) fn poll_write<F>(&mut self, buf: &[u8], write: F) -> Poll<io::Result<usize>>
    where
        F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
    {
        match poll_drain(&mut self.output, false, write) {
            Poll::Ready(Ok(())) => Poll::Ready(self.accept(buf)),
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }

    /// `flush` without flushing the inner writer: converts what the conversion
    /// holds of the input taken and can convert now (bytes a decoder took back after
    /// an error), writes out all output, then reports a waiting error. Bytes the
    /// caller has not seen taken yet (the bad input of an error) stay held.
    pub(crate) fn poll_write_out<F>(&mut self, mut write: F) -> Poll<io::Result<()>>
    where
        F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
    {
        while self.pending.is_none() && self.skip.is_empty() && !self.finished {
            match poll_drain(&mut self.output, false, &mut write) {
                Poll::Ready(Ok(())) => {}
                other => return other,
            }
            let step = self.convert.convert(&[], self.output.spare());
            self.output.end += step.written;
            match step.stop {
                Stop::InputEmpty => break,
                Stop::OutputFull => {}
                Stop::Bad { error, .. } => self.pending = Some(error),
            }
        }
        match poll_drain(&mut self.output, true, write) {
            Poll::Ready(Ok(())) => Poll::Ready(self.pending.take().map_or(Ok(()), Err)),
            other => other,
        }
    }

    /// `finish` without flushing the inner writer: processes the end of the stream
    /// and writes out all output. On an error, the output before it is written out
    /// first.
    pub(crate) fn poll_finish<F>(&mut self, mut write: F) -> Poll<io::Result<()>>
    where
        F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
    {
        loop {
            match poll_drain(&mut self.output, false, &mut write) {
                Poll::Ready(Ok(())) => {}
                other => return other,
            }
            match self.end_step() {
                Ok(true) => break,
                Ok(false) => {}
                Err(error) => {
                    return match poll_drain(&mut self.output, true, &mut write) {
                        Poll::Ready(Ok(())) => Poll::Ready(Err(error)),
                        other => {
                            self.pending = Some(error);
                            other
                        }
                    };
                }
            }
        }
        poll_drain(&mut self.output, true, write)
    }

    /// For a writer dropped unfinished: the error that finishing would report and
    /// that the caller has not seen ("fatal" mode, or text that is not UTF-8). The
    /// output is discarded.
    fn unreported_error(&mut self) -> Option<io::Error> {
        if !self.fatal || self.finished {
            return None;
        }
        loop {
            self.output.advance(usize::MAX);
            match self.end_step() {
                Ok(true) => return None,
                Ok(false) => {}
                Err(error) => return Some(error),
            }
        }
    }
}

impl<C: Convert> Drop for WriteCore<C> {
    fn drop(&mut self) {
        if let Some(adaptor) = self.watch
            && !std::thread::panicking()
            && let Some(error) = self.unreported_error()
        {
            dropped_with(adaptor, error);
        }
    }
}

/// What a writer does when it is dropped with an error it never reported: in debug
/// builds it panics (the caller lost text without being told), unless the thread
/// is already panicking; in release builds the error is lost.
fn dropped_with(adaptor: &str, error: io::Error) {
    if cfg!(debug_assertions) && !std::thread::panicking() {
        panic!("{adaptor} dropped with an error it never reported ({error}): finish or close it first");
    }
}
