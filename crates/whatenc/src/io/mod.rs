//! Decoding and encoding over `std::io` (and, behind features, async I/O and
//! streams): a reader that turns bytes of any encoding into UTF-8
//! ([`DecodeReader`]), a writer that does the same on the way out
//! ([`DecodeWriter`]), and a writer that takes text and writes it in any encoding
//! ([`EncodeWriter`]).
//!
//! Every adaptor works in fixed-size buffers, whatever the length of the input.
//! Inner readers and writers may return one byte at a time, short writes or
//! [`io::ErrorKind::Interrupted`] (which the adaptors retry): nothing is lost or
//! repeated.
//!
//! Errors:
//! - a malformed sequence, in "fatal" mode, is [`io::ErrorKind::InvalidData`] with a
//!   [`DecodeError`] inside (its byte offset from the start of the stream); a reader
//!   reports it after handing out all the text decoded before it;
//! - a character an [`EncodeWriter`] in "fatal" mode cannot encode is
//!   [`io::ErrorKind::InvalidData`] with an [`UnencodableError`] inside, naming the
//!   character and its offset in the text.
//!
//! After an error, the adaptors go on with the input that follows the malformed
//! sequence or the unencodable character.
//!
//! Writers must be finished with `finish()` (or, async, closed/shut down): that ends
//! the stream, where a truncated sequence is one last error. `flush()` writes out
//! what is complete and flushes the inner writer without ending the stream. Dropping
//! an unfinished writer finishes it as well as it can, ignoring errors, as
//! `std::io::BufWriter` does with its buffer.
//!
//! Features: `futures-io` and `tokio` add [`AsyncDecodeReader`], [`AsyncDecodeWriter`]
//! and [`AsyncEncodeWriter`] implementing those crates' traits; `stream` adds
//! [`DecodeStream`] and [`EncodeStream`] over `futures_core::Stream`.
//!
//! ```
//! use std::io::{BufRead, Write};
//! use whatenc::io::{DecodeReader, EncodeWriter};
//! use whatenc::{BomHandling, DecoderOptions, EncoderErrorMode, SHIFT_JIS, WINDOWS_1252};
//!
//! // Bytes of Shift_JIS in, lines of text out.
//! let input: &[u8] = b"\x93\xfa\x96\x7b\nline 2\n";
//! let reader = DecodeReader::new(input, SHIFT_JIS);
//! let lines: Vec<String> = reader.lines().collect::<Result<_, _>>().unwrap();
//! assert_eq!(lines, ["日本", "line 2"]);
//!
//! // A BOM chooses the encoding when sniffing is on.
//! let options = DecoderOptions { bom: BomHandling::Sniff, ..Default::default() };
//! let mut reader = DecodeReader::with_options(&b"\xFF\xFEh\0i\0"[..], WINDOWS_1252, options);
//! let mut text = String::new();
//! std::io::Read::read_to_string(&mut reader, &mut text).unwrap();
//! assert_eq!(text, "hi");
//!
//! // Text in, windows-1252 out.
//! let mut writer = EncodeWriter::new(Vec::new(), WINDOWS_1252, EncoderErrorMode::Html).unwrap();
//! writer.write_str("café ☃").unwrap();
//! writer.finish().unwrap();
//! assert_eq!(writer.into_inner().unwrap(), b"caf\xE9 &#9731;");
//! ```

use std::boxed::Box;
use std::fmt;
use std::io::{self, BufRead, Read, Write};
use std::task::Poll;
use std::vec;

use crate::decoder::{DecodeError, Decoder, DecoderOptions, DecoderResult};
use crate::encoder::{Encoder, EncoderErrorMode, EncoderResult, NoEncoder};
use crate::encoding::Encoding;

#[cfg(any(feature = "futures-io", feature = "tokio"))]
mod async_io;
#[cfg(any(feature = "futures-io", feature = "tokio"))]
pub use async_io::{AsyncDecodeReader, AsyncDecodeWriter, AsyncEncodeWriter};

#[cfg(feature = "stream")]
mod stream;
#[cfg(feature = "stream")]
pub use stream::{DecodeStream, EncodeStream};

/// The size of each buffer of an adaptor unless told otherwise.
///
/// ```
/// let reader = whatenc::io::DecodeReader::new(&b""[..], whatenc::UTF_8);
/// assert_eq!(reader.capacity(), 2 * whatenc::io::DEFAULT_BUFFER_SIZE);
/// ```
pub const DEFAULT_BUFFER_SIZE: usize = 8 * 1024;

/// The smallest buffer size an adaptor accepts; smaller requests are raised to it.
///
/// ```
/// use whatenc::{io::DecodeWriter, DecoderOptions, UTF_8};
/// let writer = DecodeWriter::with_capacity(0, Vec::new(), UTF_8, DecoderOptions::default());
/// assert_eq!(writer.capacity(), whatenc::io::MIN_BUFFER_SIZE);
/// ```
pub const MIN_BUFFER_SIZE: usize = 64;

/// The room an output buffer keeps free before a decoding or encoding step: enough
/// for every step of every decoder (4 bytes) and encoder (14 bytes) to progress.
const MIN_ROOM: usize = 32;

/// A character that an [`EncodeWriter`] (or its async and stream twins) in "fatal"
/// mode cannot encode, and where it is in the text.
///
/// ```
/// use whatenc::{io::{EncodeWriter, UnencodableError}, EncoderErrorMode, EUC_KR};
/// let mut writer = EncodeWriter::new(Vec::new(), EUC_KR, EncoderErrorMode::Fatal).unwrap();
/// let error = writer.write_str("ab☃").unwrap_err();
/// let inner = error.get_ref().unwrap().downcast_ref::<UnencodableError>().unwrap();
/// assert_eq!((inner.character, inner.offset), ('☃', 2));
/// assert_eq!(error.to_string(), "U+2603 '☃' at text byte offset 2 cannot be encoded in EUC-KR");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UnencodableError {
    /// The character.
    pub character: char,
    /// Its offset in the text (in UTF-8 bytes), from the start of the stream.
    pub offset: u64,
    /// The encoding that cannot represent it.
    pub encoding: &'static Encoding,
}

impl fmt::Display for UnencodableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "U+{:04X} {:?} at text byte offset {} cannot be encoded in {}",
            self.character as u32,
            self.character,
            self.offset,
            self.encoding.name()
        )
    }
}

impl std::error::Error for UnencodableError {}

fn invalid_data<E: std::error::Error + Send + Sync + 'static>(error: E) -> io::Error {
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

    pub(crate) fn is_empty(&self) -> bool {
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
    pub(crate) fn needs_drain(&self) -> bool {
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
pub(crate) fn poll_drain<F>(out: &mut OutBuf, all: bool, mut write: F) -> Poll<io::Result<()>>
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

/// The outcome of a blocking call of a `poll_*` helper.
fn ready<T>(poll: Poll<io::Result<T>>) -> io::Result<T> {
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
    pub(crate) output: OutBuf,
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

    /// Makes output ready (or finds the end of the text, or an error), reading more
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

    pub(crate) fn consume(&mut self, n: usize) {
        self.output.advance(n);
    }
}

/// A reader of UTF-8: it reads bytes of any encoding from the inner reader and
/// decodes them ([`Read`] and [`BufRead`]).
///
/// In "fatal" mode a malformed sequence is an [`io::ErrorKind::InvalidData`] error
/// carrying the [`DecodeError`], returned once all the text before it has been read;
/// reading on goes on after the malformed sequence.
///
/// ```
/// use std::io::Read;
/// use whatenc::{io::DecodeReader, DecodeError, DecoderOptions, ErrorMode, UTF_8};
/// let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
/// let mut reader = DecodeReader::with_options(&b"ok\xFFgo"[..], UTF_8, options);
/// let mut text = String::new();
/// let error = reader.read_to_string(&mut text).unwrap_err();
/// assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
/// assert_eq!(error.get_ref().unwrap().downcast_ref::<DecodeError>().unwrap().offset, 2);
/// assert_eq!(text, "ok");
/// reader.read_to_string(&mut text).unwrap();
/// assert_eq!(text, "okgo");
/// ```
#[derive(Debug)]
pub struct DecodeReader<R> {
    inner: R,
    core: ReadCore,
}

impl<R: Read> DecodeReader<R> {
    /// A reader decoding `encoding` in "replacement" mode, BOM bytes decoded like
    /// any others.
    ///
    /// ```
    /// use std::io::Read;
    /// let mut reader = whatenc::io::DecodeReader::new(&b"\xE9t\xE9"[..], whatenc::WINDOWS_1252);
    /// let mut text = String::new();
    /// reader.read_to_string(&mut text).unwrap();
    /// assert_eq!(text, "été");
    /// ```
    pub fn new(inner: R, encoding: &'static Encoding) -> DecodeReader<R> {
        DecodeReader::with_options(inner, encoding, DecoderOptions::default())
    }

    /// A reader with the given error mode and BOM handling
    /// ([`BomHandling::Sniff`](crate::BomHandling::Sniff) is the standard's "BOM
    /// sniff", as its `decode` hook does it).
    ///
    /// ```
    /// use std::io::Read;
    /// use whatenc::{io::DecodeReader, BomHandling, DecoderOptions, BIG5, UTF_8};
    /// let options = DecoderOptions { bom: BomHandling::Sniff, ..Default::default() };
    /// let mut reader = DecodeReader::with_options(&b"\xEF\xBB\xBFok"[..], BIG5, options);
    /// let mut text = String::new();
    /// reader.read_to_string(&mut text).unwrap();
    /// assert_eq!((text.as_str(), reader.encoding()), ("ok", UTF_8));
    /// ```
    pub fn with_options(inner: R, encoding: &'static Encoding, options: DecoderOptions) -> DecodeReader<R> {
        DecodeReader::with_capacity(DEFAULT_BUFFER_SIZE, inner, encoding, options)
    }

    /// [`DecodeReader::with_options`] with input and output buffers of `size` bytes
    /// each (at least [`MIN_BUFFER_SIZE`]).
    ///
    /// ```
    /// use whatenc::{io::DecodeReader, DecoderOptions, UTF_8};
    /// let reader = DecodeReader::with_capacity(100, &b""[..], UTF_8, DecoderOptions::default());
    /// assert_eq!(reader.capacity(), 200);
    /// ```
    pub fn with_capacity(
        size: usize,
        inner: R,
        encoding: &'static Encoding,
        options: DecoderOptions,
    ) -> DecodeReader<R> {
        DecodeReader { inner, core: ReadCore::new(encoding, options, size) }
    }
}

impl<R> DecodeReader<R> {
    /// The encoding being decoded: the one given, or the one a sniffed BOM chose.
    ///
    /// ```
    /// let reader = whatenc::io::DecodeReader::new(&b""[..], whatenc::GBK);
    /// assert_eq!(reader.encoding(), whatenc::GBK);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the reader is made.
    ///
    /// ```
    /// let reader = whatenc::io::DecodeReader::new(&b""[..], whatenc::GBK);
    /// assert_eq!(reader.capacity(), 2 * whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.core.capacity()
    }

    /// The inner reader.
    ///
    /// ```
    /// let reader = whatenc::io::DecodeReader::new(&b"abc"[..], whatenc::GBK);
    /// assert_eq!(*reader.get_ref(), b"abc");
    /// ```
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably (reading from it directly skips the adaptor).
    ///
    /// ```
    /// let mut reader = whatenc::io::DecodeReader::new(std::io::Cursor::new(b"abc"), whatenc::GBK);
    /// reader.get_mut().set_position(1);
    /// ```
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The inner reader; buffered bytes and text are dropped.
    ///
    /// ```
    /// let reader = whatenc::io::DecodeReader::new(&b"abc"[..], whatenc::GBK);
    /// assert_eq!(reader.into_inner(), b"abc");
    /// ```
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: Read> BufRead for DecodeReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let inner = &mut self.inner;
        ready(self.core.poll_fill(|buf| Poll::Ready(inner.read(buf))))?;
        Ok(self.core.output.pending())
    }

    fn consume(&mut self, amount: usize) {
        self.core.consume(amount);
    }
}

impl<R: Read> Read for DecodeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// What the decoding and encoding writers share, for the sync and async wrappers.
pub(crate) trait WriteCore {
    fn output(&mut self) -> &mut OutBuf;
    /// Takes input into the output buffer, which has room.
    fn accept(&mut self, buf: &[u8]) -> io::Result<usize>;
    /// One step of the end of the stream into the output buffer, which has room:
    /// `Ok(true)` when the stream is finished.
    fn finish_step(&mut self) -> io::Result<bool>;
    /// The error waiting to be reported, if any.
    fn take_error(&mut self) -> io::Result<()>;
    /// Puts back an error that could not be reported yet.
    fn keep_error(&mut self, error: io::Error);
    fn is_finished(&self) -> bool;
}

/// `write`: makes room in the output buffer, then takes input.
pub(crate) fn poll_write<C, F>(core: &mut C, buf: &[u8], write: F) -> Poll<io::Result<usize>>
where
    C: WriteCore,
    F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
{
    match poll_drain(core.output(), false, write) {
        Poll::Ready(Ok(())) => Poll::Ready(core.accept(buf)),
        Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
        Poll::Pending => Poll::Pending,
    }
}

/// `flush` without flushing the inner writer: writes out all output, then reports
/// a waiting error.
pub(crate) fn poll_write_out<C, F>(core: &mut C, write: F) -> Poll<io::Result<()>>
where
    C: WriteCore,
    F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
{
    match poll_drain(core.output(), true, write) {
        Poll::Ready(Ok(())) => Poll::Ready(core.take_error()),
        other => other,
    }
}

/// `finish` without flushing the inner writer: processes the end of the stream and
/// writes out all output. On an error, the output before it is written out first.
pub(crate) fn poll_finish<C, F>(core: &mut C, mut write: F) -> Poll<io::Result<()>>
where
    C: WriteCore,
    F: FnMut(&[u8]) -> Poll<io::Result<usize>>,
{
    loop {
        match poll_drain(core.output(), false, &mut write) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        match core.finish_step() {
            Ok(true) => break,
            Ok(false) => {}
            Err(error) => {
                return match poll_drain(core.output(), true, &mut write) {
                    Poll::Ready(Ok(())) => Poll::Ready(Err(error)),
                    other => {
                        core.keep_error(error);
                        other
                    }
                };
            }
        }
    }
    poll_drain(core.output(), true, write)
}

/// The state of a decoding writer, without the writer.
#[derive(Debug)]
pub(crate) struct DecodeWriteCore {
    decoder: Decoder,
    output: OutBuf,
    error: Option<io::Error>,
    finished: bool,
}

impl DecodeWriteCore {
    pub(crate) fn new(encoding: &'static Encoding, options: DecoderOptions, size: usize) -> DecodeWriteCore {
        DecodeWriteCore {
            decoder: encoding.new_decoder_with(options),
            output: OutBuf::new(size),
            error: None,
            finished: false,
        }
    }

    pub(crate) fn encoding(&self) -> &'static Encoding {
        self.decoder.encoding()
    }

    pub(crate) fn capacity(&self) -> usize {
        self.output.capacity()
    }
}

impl WriteCore for DecodeWriteCore {
    fn output(&mut self) -> &mut OutBuf {
        &mut self.output
    }

    /// A malformed sequence is reported now if it is the first thing in `buf`, else
    /// by the next call (so that an error never comes with bytes taken).
    fn accept(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.take_error()?;
        if self.finished {
            return Err(io::Error::other("write after finish"));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let progress = self.decoder.decode_to_utf8(buf, self.output.spare(), false);
        self.output.end += progress.written;
        if let DecoderResult::Malformed(error) = progress.result {
            if progress.read == 0 {
                return Err(invalid_data(error));
            }
            self.error = Some(invalid_data(error));
        }
        Ok(progress.read)
    }

    fn finish_step(&mut self) -> io::Result<bool> {
        self.take_error()?;
        if self.finished {
            return Ok(true);
        }
        let progress = self.decoder.decode_to_utf8(&[], self.output.spare(), true);
        self.output.end += progress.written;
        match progress.result {
            DecoderResult::InputEmpty => {
                self.finished = true;
                Ok(true)
            }
            DecoderResult::OutputFull => Ok(false),
            DecoderResult::Malformed(error) => Err(invalid_data(error)),
        }
    }

    fn take_error(&mut self) -> io::Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn keep_error(&mut self, error: io::Error) {
        self.error = Some(error);
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// A writer that takes bytes of any encoding and writes them to the inner writer as
/// UTF-8.
///
/// `write` never writes to the inner writer unless its buffer needs room, so an
/// error from the inner writer never comes with input taken. In "fatal" mode, a
/// malformed sequence is an [`io::ErrorKind::InvalidData`] error (with the
/// [`DecodeError`]) from the next call of `write`, `flush` or `finish`. Call
/// [`DecodeWriter::finish`] at the end.
///
/// ```
/// use std::io::Write;
/// use whatenc::{io::DecodeWriter, EUC_KR};
/// let mut writer = DecodeWriter::new(Vec::new(), EUC_KR);
/// writer.write_all(b"\xB0\xA1 \xB0").unwrap();
/// writer.finish().unwrap();
/// assert_eq!(writer.into_inner().unwrap(), "가 \u{FFFD}".as_bytes());
/// ```
#[derive(Debug)]
pub struct DecodeWriter<W: Write> {
    inner: Option<W>,
    core: DecodeWriteCore,
}

impl<W: Write> DecodeWriter<W> {
    /// A writer decoding `encoding` in "replacement" mode, BOM bytes decoded like
    /// any others.
    ///
    /// ```
    /// let writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::KOI8_R);
    /// assert_eq!(writer.encoding(), whatenc::KOI8_R);
    /// ```
    pub fn new(inner: W, encoding: &'static Encoding) -> DecodeWriter<W> {
        DecodeWriter::with_options(inner, encoding, DecoderOptions::default())
    }

    /// A writer with the given error mode and BOM handling.
    ///
    /// ```
    /// use std::io::Write;
    /// use whatenc::{io::DecodeWriter, DecoderOptions, ErrorMode, UTF_16LE};
    /// let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
    /// let mut writer = DecodeWriter::with_options(Vec::new(), UTF_16LE, options);
    /// writer.write_all(b"A\0\x00").unwrap();
    /// assert_eq!(writer.finish().unwrap_err().kind(), std::io::ErrorKind::InvalidData);
    /// ```
    pub fn with_options(inner: W, encoding: &'static Encoding, options: DecoderOptions) -> DecodeWriter<W> {
        DecodeWriter::with_capacity(DEFAULT_BUFFER_SIZE, inner, encoding, options)
    }

    /// [`DecodeWriter::with_options`] with an output buffer of `size` bytes (at
    /// least [`MIN_BUFFER_SIZE`]).
    ///
    /// ```
    /// use whatenc::{io::DecodeWriter, DecoderOptions, UTF_8};
    /// let writer = DecodeWriter::with_capacity(128, Vec::new(), UTF_8, DecoderOptions::default());
    /// assert_eq!(writer.capacity(), 128);
    /// ```
    pub fn with_capacity(
        size: usize,
        inner: W,
        encoding: &'static Encoding,
        options: DecoderOptions,
    ) -> DecodeWriter<W> {
        DecodeWriter { inner: Some(inner), core: DecodeWriteCore::new(encoding, options, size) }
    }

    /// The encoding being decoded: the one given, or the one a sniffed BOM chose.
    ///
    /// ```
    /// let writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::BIG5);
    /// assert_eq!(writer.encoding(), whatenc::BIG5);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the writer is made.
    ///
    /// ```
    /// let writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::BIG5);
    /// assert_eq!(writer.capacity(), whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.core.capacity()
    }

    /// The inner writer.
    ///
    /// ```
    /// let writer = whatenc::io::DecodeWriter::new(Vec::<u8>::new(), whatenc::BIG5);
    /// assert!(writer.get_ref().is_empty());
    /// ```
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect("inner writer present until into_inner")
    }

    /// The inner writer, mutably (writing to it directly skips the buffered text).
    ///
    /// ```
    /// let mut writer = whatenc::io::DecodeWriter::new(Vec::<u8>::new(), whatenc::BIG5);
    /// writer.get_mut().clear();
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        self.inner.as_mut().expect("inner writer present until into_inner")
    }

    /// Ends the stream: processes end-of-stream (a truncated sequence is U+FFFD, or
    /// an [`io::ErrorKind::InvalidData`] error in "fatal" mode), writes out all the
    /// text and flushes the inner writer. After an error, call it again to go on;
    /// once it has succeeded it does nothing more.
    ///
    /// ```
    /// use std::io::Write;
    /// let mut writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::UTF_8);
    /// writer.write_all(b"a\xE2\x82").unwrap();
    /// writer.finish().unwrap();
    /// assert_eq!(writer.get_ref(), "a\u{FFFD}".as_bytes());
    /// ```
    pub fn finish(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(poll_finish(&mut self.core, |b| Poll::Ready(inner.write(b))))?;
        inner.flush()
    }

    /// Finishes the stream ([`DecodeWriter::finish`]) and returns the inner writer.
    ///
    /// ```
    /// use std::io::Write;
    /// let mut writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::ISO_8859_7);
    /// writer.write_all(b"\xE1").unwrap();
    /// assert_eq!(writer.into_inner().unwrap(), "α".as_bytes());
    /// ```
    pub fn into_inner(mut self) -> io::Result<W> {
        self.finish()?;
        Ok(self.inner.take().expect("inner writer present until into_inner"))
    }
}

impl<W: Write> Write for DecodeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(poll_write(&mut self.core, buf, |b| Poll::Ready(inner.write(b))))
    }

    /// Writes out the text decoded so far and flushes the inner writer; the stream
    /// goes on (a sequence cut by the end of the input so far stays pending).
    fn flush(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(poll_write_out(&mut self.core, |b| Poll::Ready(inner.write(b))))?;
        inner.flush()
    }
}

impl<W: Write> Drop for DecodeWriter<W> {
    fn drop(&mut self) {
        if self.inner.is_some() && !self.core.is_finished() && !std::thread::panicking() {
            let _ = self.finish();
        }
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

fn invalid_utf8() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "the text is not valid UTF-8")
}

/// The state of an encoding writer, without the writer.
#[derive(Debug)]
pub(crate) struct EncodeWriteCore {
    encoder: Encoder,
    output: OutBuf,
    /// The start of a character cut by the end of an `io::Write::write`.
    partial: [u8; 4],
    partial_len: usize,
    /// Bytes of text consumed.
    position: u64,
    error: Option<io::Error>,
    finished: bool,
}

impl EncodeWriteCore {
    pub(crate) fn new(
        encoding: &'static Encoding,
        mode: EncoderErrorMode,
        size: usize,
    ) -> Result<EncodeWriteCore, NoEncoder> {
        Ok(EncodeWriteCore {
            encoder: encoding.new_encoder_with(mode)?,
            output: OutBuf::new(size),
            partial: [0; 4],
            partial_len: 0,
            position: 0,
            error: None,
            finished: false,
        })
    }

    pub(crate) fn encoding(&self) -> &'static Encoding {
        self.encoder.encoding()
    }

    pub(crate) fn capacity(&self) -> usize {
        self.output.capacity()
    }

    fn check_open(&mut self) -> io::Result<()> {
        self.take_error()?;
        if self.finished {
            return Err(io::Error::other("write after finish"));
        }
        Ok(())
    }

    /// Encodes from `text` into the output buffer, which has room: the bytes of
    /// `text` taken, and the character that could not be encoded ("fatal" mode; it
    /// is the last character taken).
    fn encode(&mut self, text: &str) -> (usize, Option<UnencodableError>) {
        let progress = self.encoder.encode_from_utf8(text, self.output.spare(), false);
        self.output.end += progress.written;
        self.position += progress.read as u64;
        match progress.result {
            EncoderResult::Unmappable(character) => {
                let offset = self.position - character.len_utf8() as u64;
                (progress.read, Some(UnencodableError { character, offset, encoding: self.encoding() }))
            }
            _ => (progress.read, None),
        }
    }

    /// `write_str`'s step: like `accept`, but an unencodable character is reported
    /// at once (with the text before it, and the character, taken).
    pub(crate) fn accept_str(&mut self, text: &str) -> io::Result<usize> {
        self.check_open()?;
        if self.partial_len != 0 {
            return Err(invalid_utf8());
        }
        match self.encode(text) {
            (_, Some(error)) => Err(invalid_data(error)),
            (read, None) => Ok(read),
        }
    }
}

impl WriteCore for EncodeWriteCore {
    fn output(&mut self) -> &mut OutBuf {
        &mut self.output
    }

    /// Encodes from UTF-8 bytes. An unencodable character is taken, and reported by
    /// the next call (so that an error never comes with bytes taken).
    fn accept(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check_open()?;
        if buf.is_empty() {
            return Ok(0);
        }
        if self.partial_len != 0 {
            // Complete the character cut by the previous call.
            let need = utf8_len(self.partial[0]);
            let take = (need - self.partial_len).min(buf.len());
            let mut bytes = self.partial;
            bytes[self.partial_len..self.partial_len + take].copy_from_slice(&buf[..take]);
            let len = self.partial_len + take;
            return match core::str::from_utf8(&bytes[..len]) {
                Ok(text) => {
                    self.partial_len = 0;
                    if let (_, Some(error)) = self.encode(text) {
                        self.error = Some(invalid_data(error));
                    }
                    Ok(take)
                }
                Err(e) if e.error_len().is_none() => {
                    self.partial = bytes;
                    self.partial_len = len;
                    Ok(take)
                }
                Err(_) => Err(invalid_utf8()),
            };
        }
        let text = match core::str::from_utf8(buf) {
            Ok(text) => text,
            Err(e) if e.valid_up_to() != 0 => {
                core::str::from_utf8(&buf[..e.valid_up_to()]).map_err(|_| invalid_utf8())?
            }
            Err(e) if e.error_len().is_none() => {
                // Only the start of a character: keep it for the next call.
                self.partial[..buf.len()].copy_from_slice(buf);
                self.partial_len = buf.len();
                return Ok(buf.len());
            }
            Err(_) => return Err(invalid_utf8()),
        };
        match self.encode(text) {
            (read, Some(error)) => {
                self.error = Some(invalid_data(error));
                Ok(read)
            }
            (read, None) => Ok(read),
        }
    }

    fn finish_step(&mut self) -> io::Result<bool> {
        self.take_error()?;
        if self.finished {
            return Ok(true);
        }
        if self.partial_len != 0 {
            self.partial_len = 0;
            return Err(io::Error::new(io::ErrorKind::InvalidData, "the text ends inside a UTF-8 sequence"));
        }
        let progress = self.encoder.encode_from_utf8("", self.output.spare(), true);
        self.output.end += progress.written;
        if progress.result == EncoderResult::InputEmpty {
            self.finished = true;
        }
        Ok(self.finished)
    }

    fn take_error(&mut self) -> io::Result<()> {
        self.error.take().map_or(Ok(()), Err)
    }

    fn keep_error(&mut self, error: io::Error) {
        self.error = Some(error);
    }

    fn is_finished(&self) -> bool {
        self.finished
    }
}

/// A writer that takes text and writes it to the inner writer in any encoding that
/// has an encoder (not replacement or UTF-16BE/LE).
///
/// Text comes in through [`EncodeWriter::write_str`] or as UTF-8 bytes through
/// [`io::Write`] (a character may be cut between two `write`s; bytes that are not
/// UTF-8 are an [`io::ErrorKind::InvalidData`] error).
///
/// In "html" mode a character the encoding cannot represent is written as `&#N;`;
/// in "fatal" mode it is an [`io::ErrorKind::InvalidData`] error carrying an
/// [`UnencodableError`]: from `write_str` at once; from `write`, which takes the
/// character, by the next call of `write`, `flush` or `finish` (an error never comes
/// with bytes taken). Call [`EncodeWriter::finish`] at the end.
///
/// ```
/// use std::io::Write;
/// use whatenc::{io::EncodeWriter, EncoderErrorMode, ISO_2022_JP};
/// let mut writer = EncodeWriter::new(Vec::new(), ISO_2022_JP, EncoderErrorMode::Fatal).unwrap();
/// write!(writer, "{}{}", "日", "本").unwrap();
/// writer.finish().unwrap();
/// assert_eq!(writer.into_inner().unwrap(), b"\x1B$BF|K\\\x1B(B");
/// ```
#[derive(Debug)]
pub struct EncodeWriter<W: Write> {
    inner: Option<W>,
    core: EncodeWriteCore,
}

impl<W: Write> EncodeWriter<W> {
    /// A writer encoding into `encoding` with the given error mode, or [`NoEncoder`]
    /// for replacement and UTF-16BE/LE.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, UTF_16LE};
    /// assert!(EncodeWriter::new(Vec::new(), UTF_16LE, EncoderErrorMode::Html).is_err());
    /// ```
    pub fn new(inner: W, encoding: &'static Encoding, mode: EncoderErrorMode) -> Result<EncodeWriter<W>, NoEncoder> {
        EncodeWriter::with_capacity(DEFAULT_BUFFER_SIZE, inner, encoding, mode)
    }

    /// [`EncodeWriter::new`] with an output buffer of `size` bytes (at least
    /// [`MIN_BUFFER_SIZE`]).
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// let writer = EncodeWriter::with_capacity(1, Vec::new(), GBK, EncoderErrorMode::Html).unwrap();
    /// assert_eq!(writer.capacity(), whatenc::io::MIN_BUFFER_SIZE);
    /// ```
    pub fn with_capacity(
        size: usize,
        inner: W,
        encoding: &'static Encoding,
        mode: EncoderErrorMode,
    ) -> Result<EncodeWriter<W>, NoEncoder> {
        Ok(EncodeWriter { inner: Some(inner), core: EncodeWriteCore::new(encoding, mode, size)? })
    }

    /// The encoding written.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// assert_eq!(EncodeWriter::new(Vec::new(), GBK, EncoderErrorMode::Html).unwrap().encoding(), GBK);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the writer is made.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// let writer = EncodeWriter::new(Vec::new(), GBK, EncoderErrorMode::Html).unwrap();
    /// assert_eq!(writer.capacity(), whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.core.capacity()
    }

    /// The inner writer.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// let writer = EncodeWriter::new(Vec::<u8>::new(), GBK, EncoderErrorMode::Html).unwrap();
    /// assert!(writer.get_ref().is_empty());
    /// ```
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect("inner writer present until into_inner")
    }

    /// The inner writer, mutably (writing to it directly skips the buffered bytes).
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// let mut writer = EncodeWriter::new(Vec::<u8>::new(), GBK, EncoderErrorMode::Html).unwrap();
    /// writer.get_mut().clear();
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        self.inner.as_mut().expect("inner writer present until into_inner")
    }

    /// Encodes all of `text`. In "fatal" mode an unencodable character is an error
    /// at once; the text before it and the character itself have then been taken,
    /// and the rest of `text` has not.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, WINDOWS_1251};
    /// let mut writer = EncodeWriter::new(Vec::new(), WINDOWS_1251, EncoderErrorMode::Fatal).unwrap();
    /// writer.write_str("Дом").unwrap();
    /// assert!(writer.write_str("€€ 中").is_err());
    /// writer.finish().unwrap();
    /// assert_eq!(writer.get_ref(), b"\xC4\xEE\xEC\x88\x88 ");
    /// ```
    pub fn write_str(&mut self, text: &str) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        let mut rest = text;
        while !rest.is_empty() {
            ready(poll_drain(self.core.output(), false, |b| Poll::Ready(inner.write(b))))?;
            let read = self.core.accept_str(rest)?;
            rest = &rest[read..];
        }
        Ok(())
    }

    /// Ends the stream: ISO-2022-JP returns to ASCII, everything is written out and
    /// the inner writer is flushed. Text that ends inside a UTF-8 sequence given to
    /// `write` is an [`io::ErrorKind::InvalidData`] error. Once it has succeeded it
    /// does nothing more.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, ISO_2022_JP};
    /// let mut writer = EncodeWriter::new(Vec::new(), ISO_2022_JP, EncoderErrorMode::Html).unwrap();
    /// writer.write_str("¥").unwrap();
    /// writer.finish().unwrap();
    /// assert_eq!(writer.get_ref(), b"\x1B(J\\\x1B(B");
    /// ```
    pub fn finish(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(poll_finish(&mut self.core, |b| Poll::Ready(inner.write(b))))?;
        inner.flush()
    }

    /// Finishes the stream ([`EncodeWriter::finish`]) and returns the inner writer.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GB18030};
    /// let mut writer = EncodeWriter::new(Vec::new(), GB18030, EncoderErrorMode::Fatal).unwrap();
    /// writer.write_str("€").unwrap();
    /// assert_eq!(writer.into_inner().unwrap(), b"\xA2\xE3");
    /// ```
    pub fn into_inner(mut self) -> io::Result<W> {
        self.finish()?;
        Ok(self.inner.take().expect("inner writer present until into_inner"))
    }
}

impl<W: Write> Write for EncodeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(poll_write(&mut self.core, buf, |b| Poll::Ready(inner.write(b))))
    }

    /// Writes out the bytes encoded so far and flushes the inner writer; the stream
    /// goes on (ISO-2022-JP stays in its state).
    fn flush(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(poll_write_out(&mut self.core, |b| Poll::Ready(inner.write(b))))?;
        inner.flush()
    }
}

impl<W: Write> Drop for EncodeWriter<W> {
    fn drop(&mut self) {
        if self.inner.is_some() && !self.core.is_finished() && !std::thread::panicking() {
            let _ = self.finish();
        }
    }
}
