//! Decoding and encoding over `std::io` (and, behind features, async I/O and
//! streams): a reader that turns bytes of any encoding into UTF-8
//! ([`DecodeReader`]), a writer that does the same on the way out
//! ([`DecodeWriter`]), and a writer that takes text and writes it in any encoding
//! ([`EncodeWriter`]).
//!
//! Every adaptor works in fixed-size buffers, whatever the length of the input.
//! Inner readers and writers may return one byte at a time, short writes,
//! [`io::ErrorKind::Interrupted`] (which the adaptors retry), `WouldBlock`,
//! `Pending` or any other error: nothing is lost or repeated, and calling again
//! goes on where the failed call left off.
//!
//! All the adaptors share one sans-IO core (buffers, state machine, errors); the
//! `std::io`, `futures-io` and tokio types are thin shells over it, so the contract
//! below holds for each of them alike.
//!
//! # Errors in the data
//!
//! - A malformed sequence, in "fatal" mode, is [`io::ErrorKind::InvalidData`] with a
//!   [`DecodeError`](crate::DecodeError) inside (its byte offset from the start of the stream).
//! - A character an [`EncodeWriter`] in "fatal" mode cannot encode is
//!   [`io::ErrorKind::InvalidData`] with an [`UnencodableError`] inside, naming the
//!   character and its offset in the text. Bytes given to an `EncodeWriter` that are
//!   not UTF-8 are `InvalidData` errors too, in either mode.
//!
//! A reader reports an error after handing out all the text decoded before it,
//! and goes on after the bad input with the next call.
//!
//! A writer never lets an error go unreported while it counts the bad input as
//! taken:
//! - the `write` that meets bad input takes the input before it and returns `Ok`;
//! - the next call (`write`, `flush` or `finish`) returns the error and, as
//!   [`io::Write`] has it for any error, takes nothing;
//! - a `write` whose input starts with the bad input again (the same input, sent
//!   again) goes on past it; input that starts otherwise goes on right after it.
//!
//! So `write_all` cannot return `Ok` over bad input: it returns the error, whose
//! offset says where the stream stopped. [`EncodeWriter::write_str`] takes the
//! unencodable character with its error instead, and says so.
//!
//! # Finishing
//!
//! Writers must be finished with `finish()` (or, async, closed or shut down): that
//! ends the stream, where a sequence cut by the end is one last error. `flush()`
//! writes out what is complete and flushes the inner writer without ending the
//! stream. `into_inner()` finishes, and on an error hands the writer back inside an
//! [`IntoInnerError`], as [`std::io::BufWriter::into_inner`] does.
//!
//! Dropping an unfinished sync writer finishes it as well as it can, as
//! `BufWriter` does with its buffer, ignoring I/O errors. An async writer cannot
//! write while it is dropped: what it buffers is lost, as with tokio's `BufWriter`.
//! An error in the data that the caller never saw (the error of a `write` that was
//! never followed by another call, or a stream cut inside a sequence in "fatal"
//! mode, or inside a UTF-8 character given to an `EncodeWriter`) cannot be returned
//! by a drop: **in debug builds, dropping the writer then panics**, so that the
//! missing `finish` is found in testing; in release builds the error is lost.
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

use std::fmt;
use std::io::{self, BufRead, Read, Write};
use std::task::Poll;

use crate::decoder::DecoderOptions;
use crate::encoder::{EncoderErrorMode, NoEncoder};
use crate::encoding::Encoding;

mod core;
use self::core::{Convert, DecodeWriteCore, EncodeWriteCore, ReadCore, WriteCore, ready};

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

/// A reader of UTF-8: it reads bytes of any encoding from the inner reader and
/// decodes them ([`Read`] and [`BufRead`]).
///
/// In "fatal" mode a malformed sequence is an [`io::ErrorKind::InvalidData`] error
/// carrying the [`DecodeError`](crate::DecodeError), returned once all the text before it has been read;
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
    /// A reader decoding as the standard's `decode` does: a UTF-8, UTF-16BE or
    /// UTF-16LE BOM at the start overrides `encoding` and is removed
    /// ([`BomHandling::Sniff`](crate::BomHandling::Sniff)); then "replacement"
    /// mode. For the bare decoder, which decodes BOM bytes like any others, use
    /// [`DecodeReader::with_options`] with `DecoderOptions::default()`.
    ///
    /// ```
    /// use std::io::Read;
    /// let mut reader = whatenc::io::DecodeReader::new(&b"\xE9t\xE9"[..], whatenc::WINDOWS_1252);
    /// let mut text = String::new();
    /// reader.read_to_string(&mut text).unwrap();
    /// assert_eq!(text, "été");
    ///
    /// // A UTF-16LE file read as UTF-8: its BOM says what it is.
    /// let mut reader = whatenc::io::DecodeReader::new(&b"\xFF\xFEh\0i\0"[..], whatenc::UTF_8);
    /// let mut text = String::new();
    /// reader.read_to_string(&mut text).unwrap();
    /// assert_eq!((text.as_str(), reader.encoding()), ("hi", whatenc::UTF_16LE));
    /// ```
    pub fn new(inner: R, encoding: &'static Encoding) -> DecodeReader<R> {
        let options = DecoderOptions { bom: crate::BomHandling::Sniff, ..DecoderOptions::default() };
        DecodeReader::with_options(inner, encoding, options)
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
        Ok(self.core.text())
    }

    fn consume(&mut self, amount: usize) {
        self.core.consume(amount);
    }

    /// As [`BufRead::read_line`] (the same results, errors included), faster: the
    /// decoded text is whole characters, so it is appended after a check by the
    /// fast UTF-8 validator rather than the standard library's.
    fn read_line(&mut self, buf: &mut alloc::string::String) -> io::Result<usize> {
        let start = buf.len();
        let mut total = 0;
        let mut valid = true;
        loop {
            let text = match self.fill_buf() {
                Ok(text) => text,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    if !valid {
                        buf.truncate(start);
                    }
                    return Err(error);
                }
            };
            if text.is_empty() {
                break;
            }
            let (take, line_end) = match crate::simd::find_byte(b'\n', text) {
                Some(i) => (i + 1, true),
                None => (text.len(), false),
            };
            // Only text that a caller consumed in the middle of a character starts
            // with a continuation byte; the line is then not UTF-8.
            match crate::simd::validate_utf8(&text[..take]) {
                Some(line) if valid => buf.push_str(line),
                _ => valid = false,
            }
            self.consume(take);
            total += take;
            if line_end {
                break;
            }
        }
        if valid {
            Ok(total)
        } else {
            buf.truncate(start);
            Err(io::Error::new(io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
        }
    }
}

impl<R: Read> Read for DecodeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.fill_buf()?;
        Ok(self.core.read_into(buf))
    }
}

/// The error of a writer's `into_inner` ([`DecodeWriter::into_inner`],
/// [`EncodeWriter::into_inner`]): finishing the stream failed, and the writer comes
/// back with it, with its inner writer and all it holds, as
/// [`std::io::IntoInnerError`] does for `BufWriter`.
///
/// ```
/// use std::io::Write;
/// use whatenc::{io::DecodeWriter, DecoderOptions, ErrorMode, UTF_8};
/// let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
/// let mut writer = DecodeWriter::with_options(Vec::new(), UTF_8, options);
/// writer.write_all(b"ok\xE2\x82").unwrap();
/// let error = writer.into_inner().unwrap_err();
/// assert_eq!(error.error().kind(), std::io::ErrorKind::InvalidData);
/// // The writer comes back: the stream goes on after the error, and the text is kept.
/// let writer = error.into_inner();
/// assert_eq!(writer.into_inner().unwrap(), b"ok");
/// ```
pub struct IntoInnerError<A> {
    adaptor: A,
    error: io::Error,
}

impl<A> IntoInnerError<A> {
    /// The error that made `into_inner` fail.
    ///
    /// ```
    /// # use std::io::Write;
    /// # use whatenc::{io::EncodeWriter, EncoderErrorMode, UTF_8};
    /// let mut writer = EncodeWriter::new(Vec::new(), UTF_8, EncoderErrorMode::Fatal).unwrap();
    /// writer.write_all(b"\xC3").unwrap();
    /// let error = writer.into_inner().unwrap_err();
    /// assert_eq!(error.error().kind(), std::io::ErrorKind::InvalidData);
    /// ```
    pub fn error(&self) -> &io::Error {
        &self.error
    }

    /// The writer whose `into_inner` failed, with everything in it.
    ///
    /// ```
    /// # use std::io::Write;
    /// # use whatenc::{io::EncodeWriter, EncoderErrorMode, UTF_8};
    /// let mut writer = EncodeWriter::new(b"kept ".to_vec(), UTF_8, EncoderErrorMode::Fatal).unwrap();
    /// writer.write_all(b"\xC3").unwrap();
    /// let writer = writer.into_inner().unwrap_err().into_inner();
    /// assert_eq!(writer.get_ref(), b"kept ");
    /// ```
    pub fn into_inner(self) -> A {
        self.adaptor
    }

    /// The error, dropping the writer.
    ///
    /// ```
    /// # use std::io::Write;
    /// # use whatenc::{io::EncodeWriter, EncoderErrorMode, UTF_8};
    /// let mut writer = EncodeWriter::new(Vec::new(), UTF_8, EncoderErrorMode::Fatal).unwrap();
    /// writer.write_all(b"\xC3").unwrap();
    /// let error: std::io::Error = writer.into_inner().unwrap_err().into_error();
    /// assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    /// ```
    pub fn into_error(self) -> io::Error {
        self.error
    }

    /// The error and the writer.
    ///
    /// ```
    /// # use std::io::Write;
    /// # use whatenc::{io::EncodeWriter, EncoderErrorMode, UTF_8};
    /// let mut writer = EncodeWriter::new(Vec::new(), UTF_8, EncoderErrorMode::Fatal).unwrap();
    /// writer.write_all(b"\xC3").unwrap();
    /// let (error, writer) = writer.into_inner().unwrap_err().into_parts();
    /// assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    /// assert_eq!(writer.into_inner().unwrap(), b"");
    /// ```
    pub fn into_parts(self) -> (io::Error, A) {
        (self.error, self.adaptor)
    }
}

/// Shows the error only, so that `unwrap` works whatever the writer.
impl<A> fmt::Debug for IntoInnerError<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoInnerError").field("error", &self.error).finish_non_exhaustive()
    }
}

impl<A> fmt::Display for IntoInnerError<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl<A> std::error::Error for IntoInnerError<A> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl<A> From<IntoInnerError<A>> for io::Error {
    fn from(error: IntoInnerError<A>) -> io::Error {
        error.error
    }
}

/// The inner writer and core of a sync writer; the bodies of the methods both
/// writers share.
#[derive(Debug)]
struct SyncWriter<W: Write, C: Convert> {
    /// `None` once `into_inner` has taken it.
    inner: Option<W>,
    core: WriteCore<C>,
}

impl<W: Write, C: Convert> SyncWriter<W, C> {
    fn inner(&mut self) -> &mut W {
        self.inner.as_mut().expect("inner writer present until into_inner")
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(self.core.poll_write(buf, |b| Poll::Ready(inner.write(b))))
    }

    fn flush(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(self.core.poll_write_out(|b| Poll::Ready(inner.write(b))))?;
        inner.flush()
    }

    fn finish(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect("inner writer present until into_inner");
        ready(self.core.poll_finish(|b| Poll::Ready(inner.write(b))))?;
        inner.flush()
    }

    /// Finishes as well as it can, as the writer is dropped: past errors in the text
    /// (the first of which, never seen by the caller, panics in debug builds once
    /// the stream is finished), but not past an I/O error.
    fn drop_unfinished(&mut self) {
        if self.inner.is_none() || self.core.is_finished() || std::thread::panicking() {
            return;
        }
        let mut unreported = None;
        // A waiting error, then the end of the stream's: at most two before success.
        for _ in 0..3 {
            match self.finish() {
                Err(error) if error.kind() == io::ErrorKind::InvalidData => {
                    unreported.get_or_insert(error);
                }
                _ => break,
            }
        }
        if let Some(error) = unreported {
            self.core.dropped_with(error);
        }
    }
}

/// A writer that takes bytes of any encoding and writes them to the inner writer as
/// UTF-8.
///
/// `write` never writes to the inner writer unless its buffer needs room, so an
/// error from the inner writer never comes with input taken. In "fatal" mode, a
/// malformed sequence is an [`io::ErrorKind::InvalidData`] error (with the
/// [`DecodeError`](crate::DecodeError)), reported as the [module](self#errors-in-the-data) says. Call
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
    shell: SyncWriter<W, self::core::DecodeConvert>,
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
        DecodeWriter {
            shell: SyncWriter {
                inner: Some(inner),
                core: DecodeWriteCore::new("whatenc::io::DecodeWriter", encoding, options, size),
            },
        }
    }

    /// The encoding being decoded: the one given, or the one a sniffed BOM chose.
    ///
    /// ```
    /// let writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::BIG5);
    /// assert_eq!(writer.encoding(), whatenc::BIG5);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.shell.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the writer is made.
    ///
    /// ```
    /// let writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::BIG5);
    /// assert_eq!(writer.capacity(), whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.shell.core.capacity()
    }

    /// The inner writer.
    ///
    /// ```
    /// let writer = whatenc::io::DecodeWriter::new(Vec::<u8>::new(), whatenc::BIG5);
    /// assert!(writer.get_ref().is_empty());
    /// ```
    pub fn get_ref(&self) -> &W {
        self.shell.inner.as_ref().expect("inner writer present until into_inner")
    }

    /// The inner writer, mutably (writing to it directly skips the buffered text).
    ///
    /// ```
    /// let mut writer = whatenc::io::DecodeWriter::new(Vec::<u8>::new(), whatenc::BIG5);
    /// writer.get_mut().clear();
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        self.shell.inner()
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
        self.shell.finish()
    }

    /// Finishes the stream ([`DecodeWriter::finish`]) and returns the inner writer.
    ///
    /// ```
    /// use std::io::Write;
    /// let mut writer = whatenc::io::DecodeWriter::new(Vec::new(), whatenc::ISO_8859_7);
    /// writer.write_all(b"\xE1").unwrap();
    /// assert_eq!(writer.into_inner().unwrap(), "α".as_bytes());
    /// ```
    // The writer comes back whole in the error, as in std's `BufWriter::into_inner`.
    #[allow(clippy::result_large_err)]
    pub fn into_inner(mut self) -> Result<W, IntoInnerError<Self>> {
        match self.finish() {
            Ok(()) => Ok(self.shell.inner.take().expect("inner writer present until into_inner")),
            Err(error) => Err(IntoInnerError { adaptor: self, error }),
        }
    }
}

impl<W: Write> Write for DecodeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.shell.write(buf)
    }

    /// Writes out the text decoded so far and flushes the inner writer; the stream
    /// goes on (a sequence cut by the end of the input so far stays pending).
    fn flush(&mut self) -> io::Result<()> {
        self.shell.flush()
    }
}

impl<W: Write> Drop for DecodeWriter<W> {
    fn drop(&mut self) {
        self.shell.drop_unfinished();
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
/// [`UnencodableError`]: from `write_str` at once, with the character taken; from
/// `write` as the [module](self#errors-in-the-data) says (the error takes nothing,
/// and the same input sent again goes on past the character). Call
/// [`EncodeWriter::finish`] at the end.
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
    shell: SyncWriter<W, self::core::EncodeConvert>,
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
        Ok(EncodeWriter {
            shell: SyncWriter {
                inner: Some(inner),
                core: EncodeWriteCore::new("whatenc::io::EncodeWriter", encoding, mode, size)?,
            },
        })
    }

    /// The encoding written.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// assert_eq!(EncodeWriter::new(Vec::new(), GBK, EncoderErrorMode::Html).unwrap().encoding(), GBK);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.shell.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the writer is made.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// let writer = EncodeWriter::new(Vec::new(), GBK, EncoderErrorMode::Html).unwrap();
    /// assert_eq!(writer.capacity(), whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.shell.core.capacity()
    }

    /// The inner writer.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// let writer = EncodeWriter::new(Vec::<u8>::new(), GBK, EncoderErrorMode::Html).unwrap();
    /// assert!(writer.get_ref().is_empty());
    /// ```
    pub fn get_ref(&self) -> &W {
        self.shell.inner.as_ref().expect("inner writer present until into_inner")
    }

    /// The inner writer, mutably (writing to it directly skips the buffered bytes).
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GBK};
    /// let mut writer = EncodeWriter::new(Vec::<u8>::new(), GBK, EncoderErrorMode::Html).unwrap();
    /// writer.get_mut().clear();
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        self.shell.inner()
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
        let inner = self.shell.inner.as_mut().expect("inner writer present until into_inner");
        ready(self.shell.core.poll_write_str(text, |b| Poll::Ready(inner.write(b))))
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
        self.shell.finish()
    }

    /// Finishes the stream ([`EncodeWriter::finish`]) and returns the inner writer.
    ///
    /// ```
    /// use whatenc::{io::EncodeWriter, EncoderErrorMode, GB18030};
    /// let mut writer = EncodeWriter::new(Vec::new(), GB18030, EncoderErrorMode::Fatal).unwrap();
    /// writer.write_str("€").unwrap();
    /// assert_eq!(writer.into_inner().unwrap(), b"\xA2\xE3");
    /// ```
    // The writer comes back whole in the error, as in std's `BufWriter::into_inner`.
    #[allow(clippy::result_large_err)]
    pub fn into_inner(mut self) -> Result<W, IntoInnerError<Self>> {
        match self.finish() {
            Ok(()) => Ok(self.shell.inner.take().expect("inner writer present until into_inner")),
            Err(error) => Err(IntoInnerError { adaptor: self, error }),
        }
    }
}

impl<W: Write> Write for EncodeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.shell.write(buf)
    }

    /// Writes out the bytes encoded so far and flushes the inner writer; the stream
    /// goes on (ISO-2022-JP stays in its state).
    fn flush(&mut self) -> io::Result<()> {
        self.shell.flush()
    }
}

impl<W: Write> Drop for EncodeWriter<W> {
    fn drop(&mut self) {
        self.shell.drop_unfinished();
    }
}
