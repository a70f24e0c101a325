//! The async adaptors: the same state as [`DecodeReader`](super::DecodeReader),
//! [`DecodeWriter`](super::DecodeWriter) and [`EncodeWriter`](super::EncodeWriter),
//! driven by `futures-io` (feature `futures-io`) or tokio (feature `tokio`) traits.
//! Inner readers and writers must be `Unpin` (pin a `!Unpin` one in a `Box`).

use core::pin::Pin;
use std::io;
use std::task::{Context, Poll, ready};

use super::DEFAULT_BUFFER_SIZE;
use super::core::{DecodeWriteCore, EncodeWriteCore, ReadCore};
use crate::decoder::DecoderOptions;
use crate::encoder::{EncoderErrorMode, NoEncoder};
use crate::encoding::Encoding;

/// The async [`DecodeReader`](super::DecodeReader): reads bytes of any encoding
/// from the inner reader and yields UTF-8. It implements `AsyncRead` and
/// `AsyncBufRead` of `futures-io` and of tokio, as the features enabled allow.
///
/// Errors are those of [`DecodeReader`](super::DecodeReader).
///
/// ```
/// # #[cfg(feature = "tokio")]
/// # fn main() {
/// use tokio::io::AsyncReadExt;
/// use whatenc::{io::AsyncDecodeReader, WINDOWS_1251};
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// runtime.block_on(async {
///     let mut reader = AsyncDecodeReader::new(&b"\xCC\xE8\xF0"[..], WINDOWS_1251);
///     let mut text = String::new();
///     reader.read_to_string(&mut text).await.unwrap();
///     assert_eq!(text, "Мир");
/// });
/// # }
/// # #[cfg(not(feature = "tokio"))]
/// # fn main() {}
/// ```
#[derive(Debug)]
pub struct AsyncDecodeReader<R> {
    inner: R,
    core: ReadCore,
}

impl<R> AsyncDecodeReader<R> {
    /// A reader decoding as the standard's `decode` does, as
    /// [`DecodeReader::new`](super::DecodeReader::new) does: a UTF-8, UTF-16BE or
    /// UTF-16LE BOM at the start overrides `encoding` and is removed; then
    /// "replacement" mode. For the bare decoder, use
    /// [`AsyncDecodeReader::with_options`] with `DecoderOptions::default()`.
    ///
    /// ```
    /// let reader = whatenc::io::AsyncDecodeReader::new(&b""[..], whatenc::UTF_8);
    /// assert_eq!(reader.encoding(), whatenc::UTF_8);
    /// ```
    pub fn new(inner: R, encoding: &'static Encoding) -> AsyncDecodeReader<R> {
        let options = DecoderOptions { bom: crate::BomHandling::Sniff, ..DecoderOptions::default() };
        AsyncDecodeReader::with_options(inner, encoding, options)
    }

    /// A reader with the given error mode and BOM handling.
    ///
    /// ```
    /// use whatenc::{io::AsyncDecodeReader, DecoderOptions, ErrorMode, UTF_8};
    /// let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
    /// let reader = AsyncDecodeReader::with_options(&b""[..], UTF_8, options);
    /// # let _ = reader;
    /// ```
    pub fn with_options(inner: R, encoding: &'static Encoding, options: DecoderOptions) -> AsyncDecodeReader<R> {
        AsyncDecodeReader::with_capacity(DEFAULT_BUFFER_SIZE, inner, encoding, options)
    }

    /// A reader with input and output buffers of `size` bytes each (at least
    /// [`MIN_BUFFER_SIZE`](super::MIN_BUFFER_SIZE)).
    ///
    /// ```
    /// use whatenc::{io::AsyncDecodeReader, DecoderOptions, UTF_8};
    /// let reader = AsyncDecodeReader::with_capacity(256, &b""[..], UTF_8, DecoderOptions::default());
    /// assert_eq!(reader.capacity(), 512);
    /// ```
    pub fn with_capacity(
        size: usize,
        inner: R,
        encoding: &'static Encoding,
        options: DecoderOptions,
    ) -> AsyncDecodeReader<R> {
        AsyncDecodeReader { inner, core: ReadCore::new(encoding, options, size) }
    }

    /// The encoding being decoded: the one given, or the one a sniffed BOM chose.
    ///
    /// ```
    /// assert_eq!(whatenc::io::AsyncDecodeReader::new(&b""[..], whatenc::GBK).encoding(), whatenc::GBK);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the reader is made.
    ///
    /// ```
    /// let reader = whatenc::io::AsyncDecodeReader::new(&b""[..], whatenc::GBK);
    /// assert_eq!(reader.capacity(), 2 * whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.core.capacity()
    }

    /// The inner reader.
    ///
    /// ```
    /// assert_eq!(*whatenc::io::AsyncDecodeReader::new(&b"x"[..], whatenc::GBK).get_ref(), b"x");
    /// ```
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader, mutably (reading from it directly skips the adaptor).
    ///
    /// ```
    /// let mut reader = whatenc::io::AsyncDecodeReader::new(&b"x"[..], whatenc::GBK);
    /// *reader.get_mut() = &b"y"[..];
    /// ```
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The inner reader; buffered bytes and text are dropped.
    ///
    /// ```
    /// assert_eq!(whatenc::io::AsyncDecodeReader::new(&b"x"[..], whatenc::GBK).into_inner(), b"x");
    /// ```
    pub fn into_inner(self) -> R {
        self.inner
    }
}

#[cfg(feature = "futures-io")]
impl<R: futures_io::AsyncRead + Unpin> futures_io::AsyncRead for AsyncDecodeReader<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let this = self.get_mut();
        ready!(this.poll_fill_futures(cx))?;
        Poll::Ready(Ok(this.core.read_into(buf)))
    }
}

#[cfg(feature = "futures-io")]
impl<R: futures_io::AsyncRead + Unpin> futures_io::AsyncBufRead for AsyncDecodeReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        ready!(this.poll_fill_futures(cx))?;
        Poll::Ready(Ok(this.core.text()))
    }

    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().core.consume(amount);
    }
}

#[cfg(feature = "tokio")]
impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for AsyncDecodeReader<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut tokio::io::ReadBuf<'_>) -> Poll<io::Result<()>> {
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        let this = self.get_mut();
        ready!(this.poll_fill_tokio(cx))?;
        let n = this.core.read_into(buf.initialize_unfilled());
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

#[cfg(feature = "tokio")]
impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncBufRead for AsyncDecodeReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        ready!(this.poll_fill_tokio(cx))?;
        Poll::Ready(Ok(this.core.text()))
    }

    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().core.consume(amount);
    }
}

impl<R> AsyncDecodeReader<R> {
    #[cfg(feature = "futures-io")]
    fn poll_fill_futures(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>
    where
        R: futures_io::AsyncRead + Unpin,
    {
        let inner = &mut self.inner;
        self.core.poll_fill(|buf| Pin::new(&mut *inner).poll_read(cx, buf))
    }

    #[cfg(feature = "tokio")]
    fn poll_fill_tokio(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>
    where
        R: tokio::io::AsyncRead + Unpin,
    {
        let inner = &mut self.inner;
        self.core.poll_fill(|buf| {
            let mut read_buf = tokio::io::ReadBuf::new(buf);
            match Pin::new(&mut *inner).poll_read(cx, &mut read_buf) {
                Poll::Ready(Ok(())) => Poll::Ready(Ok(read_buf.filled().len())),
                Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
                Poll::Pending => Poll::Pending,
            }
        })
    }
}

/// The async [`DecodeWriter`](super::DecodeWriter): takes bytes of any encoding and
/// writes them to the inner writer as UTF-8. It implements `AsyncWrite` of
/// `futures-io` and of tokio, as the features enabled allow.
///
/// Closing it (`close` with `futures-io`, `shutdown` with tokio) finishes the stream,
/// as [`DecodeWriter::finish`](super::DecodeWriter::finish) does, then closes the
/// inner writer. Errors are those of [`DecodeWriter`](super::DecodeWriter).
///
/// ```
/// # #[cfg(feature = "tokio")]
/// # fn main() {
/// use tokio::io::AsyncWriteExt;
/// use whatenc::{io::AsyncDecodeWriter, UTF_16BE};
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// runtime.block_on(async {
///     let mut writer = AsyncDecodeWriter::new(Vec::new(), UTF_16BE);
///     writer.write_all(b"\x00h\x00i\xD8").await.unwrap();
///     writer.shutdown().await.unwrap();
///     assert_eq!(writer.get_ref(), "hi\u{FFFD}".as_bytes());
/// });
/// # }
/// # #[cfg(not(feature = "tokio"))]
/// # fn main() {}
/// ```
#[derive(Debug)]
pub struct AsyncDecodeWriter<W> {
    inner: W,
    core: DecodeWriteCore,
}

impl<W> AsyncDecodeWriter<W> {
    /// A writer decoding `encoding` in "replacement" mode, BOM bytes decoded like
    /// any others.
    ///
    /// ```
    /// let writer = whatenc::io::AsyncDecodeWriter::new(Vec::<u8>::new(), whatenc::EUC_JP);
    /// assert_eq!(writer.encoding(), whatenc::EUC_JP);
    /// ```
    pub fn new(inner: W, encoding: &'static Encoding) -> AsyncDecodeWriter<W> {
        AsyncDecodeWriter::with_options(inner, encoding, DecoderOptions::default())
    }

    /// A writer with the given error mode and BOM handling.
    ///
    /// ```
    /// use whatenc::{io::AsyncDecodeWriter, BomHandling, DecoderOptions, UTF_8};
    /// let options = DecoderOptions { bom: BomHandling::Sniff, ..Default::default() };
    /// let writer = AsyncDecodeWriter::with_options(Vec::<u8>::new(), UTF_8, options);
    /// # let _ = writer;
    /// ```
    pub fn with_options(inner: W, encoding: &'static Encoding, options: DecoderOptions) -> AsyncDecodeWriter<W> {
        AsyncDecodeWriter::with_capacity(DEFAULT_BUFFER_SIZE, inner, encoding, options)
    }

    /// A writer with an output buffer of `size` bytes (at least
    /// [`MIN_BUFFER_SIZE`](super::MIN_BUFFER_SIZE)).
    ///
    /// ```
    /// use whatenc::{io::AsyncDecodeWriter, DecoderOptions, UTF_8};
    /// let writer = AsyncDecodeWriter::with_capacity(100, Vec::<u8>::new(), UTF_8, DecoderOptions::default());
    /// assert_eq!(writer.capacity(), 100);
    /// ```
    pub fn with_capacity(
        size: usize,
        inner: W,
        encoding: &'static Encoding,
        options: DecoderOptions,
    ) -> AsyncDecodeWriter<W> {
        AsyncDecodeWriter {
            inner,
            core: DecodeWriteCore::new("whatenc::io::AsyncDecodeWriter", encoding, options, size),
        }
    }

    /// The encoding being decoded: the one given, or the one a sniffed BOM chose.
    ///
    /// ```
    /// let writer = whatenc::io::AsyncDecodeWriter::new(Vec::<u8>::new(), whatenc::EUC_JP);
    /// assert_eq!(writer.encoding(), whatenc::EUC_JP);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the writer is made.
    ///
    /// ```
    /// let writer = whatenc::io::AsyncDecodeWriter::new(Vec::<u8>::new(), whatenc::EUC_JP);
    /// assert_eq!(writer.capacity(), whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.core.capacity()
    }

    /// Whether the stream has been finished (by closing or shutting down).
    ///
    /// ```
    /// assert!(!whatenc::io::AsyncDecodeWriter::new(Vec::<u8>::new(), whatenc::EUC_JP).is_finished());
    /// ```
    pub fn is_finished(&self) -> bool {
        self.core.is_finished()
    }

    /// The inner writer.
    ///
    /// ```
    /// assert!(whatenc::io::AsyncDecodeWriter::new(Vec::<u8>::new(), whatenc::EUC_JP).get_ref().is_empty());
    /// ```
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer, mutably (writing to it directly skips the buffered text).
    ///
    /// ```
    /// let mut writer = whatenc::io::AsyncDecodeWriter::new(Vec::<u8>::new(), whatenc::EUC_JP);
    /// writer.get_mut().clear();
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The inner writer. Close or shut down the adaptor first: text still buffered
    /// is dropped, and so is an error not yet reported.
    ///
    /// ```
    /// assert!(whatenc::io::AsyncDecodeWriter::new(Vec::<u8>::new(), whatenc::EUC_JP).into_inner().is_empty());
    /// ```
    pub fn into_inner(self) -> W {
        let AsyncDecodeWriter { inner, mut core } = self;
        core.unwatch();
        inner
    }
}

/// The async [`EncodeWriter`](super::EncodeWriter): takes text as UTF-8 bytes and
/// writes it to the inner writer in any encoding that has an encoder. It implements
/// `AsyncWrite` of `futures-io` and of tokio, as the features enabled allow.
///
/// Closing it (`close` with `futures-io`, `shutdown` with tokio) finishes the stream,
/// as [`EncodeWriter::finish`](super::EncodeWriter::finish) does, then closes the
/// inner writer. Errors are those of [`EncodeWriter`](super::EncodeWriter)'s
/// `io::Write` implementation.
///
/// ```
/// # #[cfg(feature = "tokio")]
/// # fn main() {
/// use tokio::io::AsyncWriteExt;
/// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, SHIFT_JIS};
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// runtime.block_on(async {
///     let mut writer = AsyncEncodeWriter::new(Vec::new(), SHIFT_JIS, EncoderErrorMode::Html).unwrap();
///     writer.write_all("あ☃".as_bytes()).await.unwrap();
///     writer.shutdown().await.unwrap();
///     assert_eq!(writer.get_ref(), b"\x82\xA0&#9731;");
/// });
/// # }
/// # #[cfg(not(feature = "tokio"))]
/// # fn main() {}
/// ```
#[derive(Debug)]
pub struct AsyncEncodeWriter<W> {
    inner: W,
    core: EncodeWriteCore,
}

impl<W> AsyncEncodeWriter<W> {
    /// A writer encoding into `encoding` with the given error mode, or [`NoEncoder`]
    /// for replacement and UTF-16BE/LE.
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, REPLACEMENT};
    /// assert!(AsyncEncodeWriter::new(Vec::<u8>::new(), REPLACEMENT, EncoderErrorMode::Html).is_err());
    /// ```
    pub fn new(
        inner: W,
        encoding: &'static Encoding,
        mode: EncoderErrorMode,
    ) -> Result<AsyncEncodeWriter<W>, NoEncoder> {
        AsyncEncodeWriter::with_capacity(DEFAULT_BUFFER_SIZE, inner, encoding, mode)
    }

    /// A writer with an output buffer of `size` bytes (at least
    /// [`MIN_BUFFER_SIZE`](super::MIN_BUFFER_SIZE)).
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, BIG5};
    /// let writer = AsyncEncodeWriter::with_capacity(70, Vec::<u8>::new(), BIG5, EncoderErrorMode::Html).unwrap();
    /// assert_eq!(writer.capacity(), 70);
    /// ```
    pub fn with_capacity(
        size: usize,
        inner: W,
        encoding: &'static Encoding,
        mode: EncoderErrorMode,
    ) -> Result<AsyncEncodeWriter<W>, NoEncoder> {
        Ok(AsyncEncodeWriter {
            inner,
            core: EncodeWriteCore::new("whatenc::io::AsyncEncodeWriter", encoding, mode, size)?,
        })
    }

    /// The encoding written.
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, BIG5};
    /// let writer = AsyncEncodeWriter::new(Vec::<u8>::new(), BIG5, EncoderErrorMode::Html).unwrap();
    /// assert_eq!(writer.encoding(), BIG5);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The bytes of memory held in buffers: fixed when the writer is made.
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, BIG5};
    /// let writer = AsyncEncodeWriter::new(Vec::<u8>::new(), BIG5, EncoderErrorMode::Html).unwrap();
    /// assert_eq!(writer.capacity(), whatenc::io::DEFAULT_BUFFER_SIZE);
    /// ```
    pub fn capacity(&self) -> usize {
        self.core.capacity()
    }

    /// Whether the stream has been finished (by closing or shutting down).
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, BIG5};
    /// assert!(!AsyncEncodeWriter::new(Vec::<u8>::new(), BIG5, EncoderErrorMode::Html).unwrap().is_finished());
    /// ```
    pub fn is_finished(&self) -> bool {
        self.core.is_finished()
    }

    /// The inner writer.
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, BIG5};
    /// let writer = AsyncEncodeWriter::new(Vec::<u8>::new(), BIG5, EncoderErrorMode::Html).unwrap();
    /// assert!(writer.get_ref().is_empty());
    /// ```
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer, mutably (writing to it directly skips the buffered bytes).
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, BIG5};
    /// let mut writer = AsyncEncodeWriter::new(Vec::<u8>::new(), BIG5, EncoderErrorMode::Html).unwrap();
    /// writer.get_mut().clear();
    /// ```
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The inner writer. Close or shut down the adaptor first: bytes still buffered
    /// are dropped, and so is an error not yet reported.
    ///
    /// ```
    /// use whatenc::{io::AsyncEncodeWriter, EncoderErrorMode, BIG5};
    /// let writer = AsyncEncodeWriter::new(Vec::<u8>::new(), BIG5, EncoderErrorMode::Html).unwrap();
    /// assert!(writer.into_inner().is_empty());
    /// ```
    pub fn into_inner(self) -> W {
        let AsyncEncodeWriter { inner, mut core } = self;
        core.unwatch();
        inner
    }
}

/// Implements the async write traits for an adaptor with `inner` and `core` fields.
macro_rules! async_write_impls {
    ($adaptor:ident) => {
        #[cfg(feature = "futures-io")]
        impl<W: futures_io::AsyncWrite + Unpin> futures_io::AsyncWrite for $adaptor<W> {
            fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
                let this = self.get_mut();
                let inner = &mut this.inner;
                this.core.poll_write(buf, |b| Pin::new(&mut *inner).poll_write(cx, b))
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let this = self.get_mut();
                let inner = &mut this.inner;
                ready!(this.core.poll_write_out(|b| Pin::new(&mut *inner).poll_write(cx, b)))?;
                Pin::new(inner).poll_flush(cx)
            }

            fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let this = self.get_mut();
                let inner = &mut this.inner;
                ready!(this.core.poll_finish(|b| Pin::new(&mut *inner).poll_write(cx, b)))?;
                Pin::new(inner).poll_close(cx)
            }
        }

        #[cfg(feature = "tokio")]
        impl<W: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for $adaptor<W> {
            fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
                let this = self.get_mut();
                let inner = &mut this.inner;
                this.core.poll_write(buf, |b| Pin::new(&mut *inner).poll_write(cx, b))
            }

            fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let this = self.get_mut();
                let inner = &mut this.inner;
                ready!(this.core.poll_write_out(|b| Pin::new(&mut *inner).poll_write(cx, b)))?;
                Pin::new(inner).poll_flush(cx)
            }

            fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
                let this = self.get_mut();
                let inner = &mut this.inner;
                ready!(this.core.poll_finish(|b| Pin::new(&mut *inner).poll_write(cx, b)))?;
                Pin::new(inner).poll_shutdown(cx)
            }
        }
    };
}

async_write_impls!(AsyncDecodeWriter);
async_write_impls!(AsyncEncodeWriter);
