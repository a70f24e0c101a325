//! Transforms between `futures_core::Stream`s of byte chunks and of text chunks
//! (feature `stream`), the Rust shape of `TextDecoderStream` and
//! `TextEncoderStream` for any encoding.

use core::pin::Pin;
use std::string::String;
use std::task::{Context, Poll, ready};
use std::vec::Vec;

use futures_core::Stream;

use super::core::{Convert, DecodeWriteCore, EncodeWriteCore, WriteCore};
use super::{DEFAULT_BUFFER_SIZE, UnencodableError};
use crate::decoder::{DecodeError, DecoderOptions};
use crate::encoder::{EncoderErrorMode, NoEncoder};
use crate::encoding::Encoding;

/// A `Stream` of text decoded from a `Stream` of byte chunks (anything
/// `AsRef<[u8]>`) in any encoding.
///
/// Each byte chunk yields the text it completes, unless that is empty: no empty
/// string is ever yielded. At the end of the input, a truncated sequence is U+FFFD
/// (or, in "fatal" mode, an error). In "fatal" mode a malformed sequence yields the
/// text decoded before it, then `Err` with the [`DecodeError`], and the stream
/// ends.
///
/// ```
/// use futures_util::{stream, StreamExt};
/// use whatenc::{io::DecodeStream, DecoderOptions, UTF_8};
/// let chunks = stream::iter([&b"caf\xC3"[..], b"\xA9 ", b"\xE2"]);
/// let decoded = DecodeStream::new(chunks, UTF_8, DecoderOptions::default());
/// let texts: Vec<_> = futures_executor_lite(decoded.collect::<Vec<_>>());
/// assert_eq!(texts, [Ok("caf".to_string()), Ok("é ".to_string()), Ok("\u{FFFD}".to_string())]);
/// # fn futures_executor_lite<F: std::future::Future>(future: F) -> F::Output {
/// #     let waker = std::task::Waker::noop();
/// #     let mut cx = std::task::Context::from_waker(&waker);
/// #     let mut future = std::pin::pin!(future);
/// #     loop {
/// #         if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) { return out; }
/// #     }
/// # }
/// ```
#[derive(Debug)]
pub struct DecodeStream<S> {
    inner: S,
    core: DecodeWriteCore,
    error: Option<DecodeError>,
    done: bool,
}

impl<S> DecodeStream<S> {
    /// A stream decoding `encoding` with the given error mode and BOM handling.
    ///
    /// ```
    /// use whatenc::{io::DecodeStream, DecoderOptions, GBK};
    /// let stream = DecodeStream::new(futures_util::stream::empty::<Vec<u8>>(), GBK, DecoderOptions::default());
    /// assert_eq!(stream.encoding(), GBK);
    /// ```
    pub fn new(inner: S, encoding: &'static Encoding, options: DecoderOptions) -> DecodeStream<S> {
        let mut core = DecodeWriteCore::new("whatenc::io::DecodeStream", encoding, options, DEFAULT_BUFFER_SIZE);
        // The stream finishes itself when its input ends; a consumer that stops
        // reading early drops the rest on purpose.
        core.unwatch();
        DecodeStream { inner, core, error: None, done: false }
    }

    /// The encoding being decoded: the one given, or the one a sniffed BOM chose.
    ///
    /// ```
    /// use whatenc::{io::DecodeStream, DecoderOptions, BIG5};
    /// let stream = DecodeStream::new(futures_util::stream::empty::<Vec<u8>>(), BIG5, DecoderOptions::default());
    /// assert_eq!(stream.encoding(), BIG5);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The stream of byte chunks.
    ///
    /// ```
    /// use whatenc::{io::DecodeStream, DecoderOptions, BIG5};
    /// let stream = DecodeStream::new(futures_util::stream::empty::<Vec<u8>>(), BIG5, DecoderOptions::default());
    /// let _inner = stream.into_inner();
    /// ```
    pub fn into_inner(self) -> S {
        self.inner
    }

    fn decode(&mut self, src: Option<&[u8]>) -> String {
        let (bytes, error) = run(&mut self.core, src);
        self.error = error.map(|e| data_error(&e));
        // The core's output is whole UTF-8 characters.
        String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// Runs a chunk (`None`: the end of the stream) through `core`: the output, and the
/// first error in the data, after which the stream ends.
fn run<C: Convert>(core: &mut WriteCore<C>, chunk: Option<&[u8]>) -> (Vec<u8>, Option<std::io::Error>) {
    let mut out = Vec::new();
    let mut write = |bytes: &[u8]| {
        out.extend_from_slice(bytes);
        Poll::Ready(Ok(bytes.len()))
    };
    let result = match chunk {
        Some(mut rest) => loop {
            if rest.is_empty() {
                break core.poll_write_out(&mut write);
            }
            match core.poll_write(rest, &mut write) {
                Poll::Ready(Ok(n)) => rest = &rest[n..],
                Poll::Ready(Err(error)) => break Poll::Ready(Err(error)),
                Poll::Pending => unreachable!("writing into a Vec is never pending"),
            }
        },
        None => core.poll_finish(&mut write),
    };
    // What was decoded or encoded before an error comes first.
    let _ = core.poll_write_out(&mut write);
    match result {
        Poll::Ready(Err(error)) => (out, Some(error)),
        _ => (out, None),
    }
}

/// The `DecodeError` or `UnencodableError` inside an error of a stream's core: the
/// only errors it can have, as its output never fails.
fn data_error<E: std::error::Error + Copy + 'static>(error: &std::io::Error) -> E {
    *error.get_ref().and_then(|e| e.downcast_ref::<E>()).expect("a stream's core fails only on its data")
}

impl<S, B> Stream for DecodeStream<S>
where
    S: Stream<Item = B> + Unpin,
    B: AsRef<[u8]>,
{
    type Item = Result<String, DecodeError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(error) = this.error.take() {
                this.done = true;
                return Poll::Ready(Some(Err(error)));
            }
            if this.done {
                return Poll::Ready(None);
            }
            let text = match ready!(Pin::new(&mut this.inner).poll_next(cx)) {
                Some(chunk) => this.decode(Some(chunk.as_ref())),
                None => {
                    let text = this.decode(None);
                    this.done = this.error.is_none();
                    text
                }
            };
            if !text.is_empty() {
                return Poll::Ready(Some(Ok(text)));
            }
        }
    }
}

/// A `Stream` of bytes encoded from a `Stream` of text chunks (anything
/// `AsRef<str>`) in any encoding that has an encoder.
///
/// Each text chunk yields its bytes, unless there are none; at the end,
/// ISO-2022-JP's return to ASCII is one more chunk. In "html" mode an unencodable
/// character becomes `&#N;`; in "fatal" mode it yields the bytes encoded before it,
/// then `Err` with an [`UnencodableError`], and the stream ends.
///
/// ```
/// use futures_util::{stream, StreamExt};
/// use whatenc::{io::EncodeStream, EncoderErrorMode, ISO_2022_JP};
/// let chunks = stream::iter(["a", "日"]);
/// let encoded = EncodeStream::new(chunks, ISO_2022_JP, EncoderErrorMode::Html).unwrap();
/// let mut out = Vec::new();
/// let waker = std::task::Waker::noop();
/// let mut cx = std::task::Context::from_waker(&waker);
/// let mut encoded = std::pin::pin!(encoded);
/// while let std::task::Poll::Ready(Some(chunk)) = encoded.poll_next_unpin(&mut cx) {
///     out.push(chunk.unwrap());
/// }
/// assert_eq!(out, [b"a".to_vec(), b"\x1B$BF|".to_vec(), b"\x1B(B".to_vec()]);
/// ```
#[derive(Debug)]
pub struct EncodeStream<S> {
    inner: S,
    core: EncodeWriteCore,
    error: Option<UnencodableError>,
    done: bool,
}

impl<S> EncodeStream<S> {
    /// A stream encoding into `encoding` with the given error mode, or [`NoEncoder`]
    /// for replacement and UTF-16BE/LE.
    ///
    /// ```
    /// use whatenc::{io::EncodeStream, EncoderErrorMode, UTF_16BE};
    /// let chunks = futures_util::stream::empty::<String>();
    /// assert!(EncodeStream::new(chunks, UTF_16BE, EncoderErrorMode::Html).is_err());
    /// ```
    pub fn new(inner: S, encoding: &'static Encoding, mode: EncoderErrorMode) -> Result<EncodeStream<S>, NoEncoder> {
        let mut core = EncodeWriteCore::new("whatenc::io::EncodeStream", encoding, mode, DEFAULT_BUFFER_SIZE)?;
        core.unwatch();
        Ok(EncodeStream { inner, core, error: None, done: false })
    }

    /// The encoding written.
    ///
    /// ```
    /// use whatenc::{io::EncodeStream, EncoderErrorMode, EUC_KR};
    /// let chunks = futures_util::stream::empty::<String>();
    /// assert_eq!(EncodeStream::new(chunks, EUC_KR, EncoderErrorMode::Html).unwrap().encoding(), EUC_KR);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.core.encoding()
    }

    /// The stream of text chunks.
    ///
    /// ```
    /// use whatenc::{io::EncodeStream, EncoderErrorMode, EUC_KR};
    /// let chunks = futures_util::stream::empty::<String>();
    /// let _inner = EncodeStream::new(chunks, EUC_KR, EncoderErrorMode::Html).unwrap().into_inner();
    /// ```
    pub fn into_inner(self) -> S {
        self.inner
    }

    fn encode(&mut self, text: Option<&str>) -> Vec<u8> {
        let (bytes, error) = run(&mut self.core, text.map(str::as_bytes));
        self.error = error.map(|e| data_error(&e));
        bytes
    }
}

impl<S, T> Stream for EncodeStream<S>
where
    S: Stream<Item = T> + Unpin,
    T: AsRef<str>,
{
    type Item = Result<Vec<u8>, UnencodableError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(error) = this.error.take() {
                this.done = true;
                return Poll::Ready(Some(Err(error)));
            }
            if this.done {
                return Poll::Ready(None);
            }
            let bytes = match ready!(Pin::new(&mut this.inner).poll_next(cx)) {
                Some(chunk) => this.encode(Some(chunk.as_ref())),
                None => {
                    this.done = true;
                    this.encode(None)
                }
            };
            if !bytes.is_empty() {
                return Poll::Ready(Some(Ok(bytes)));
            }
        }
    }
}
