//! Transforms between `futures_core::Stream`s of byte chunks and of text chunks
//! (feature `stream`), the Rust shape of `TextDecoderStream` and
//! `TextEncoderStream` for any encoding.

use core::pin::Pin;
use std::string::String;
use std::task::{Context, Poll, ready};
use std::vec::Vec;

use futures_core::Stream;

use super::UnencodableError;
use crate::decoder::{DecodeError, Decoder, DecoderOptions, DecoderResult};
use crate::encoder::{Encoder, EncoderErrorMode, EncoderResult, NoEncoder};
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
    decoder: Decoder,
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
        DecodeStream { inner, decoder: encoding.new_decoder_with(options), error: None, done: false }
    }

    /// The encoding being decoded: the one given, or the one a sniffed BOM chose.
    ///
    /// ```
    /// use whatenc::{io::DecodeStream, DecoderOptions, BIG5};
    /// let stream = DecodeStream::new(futures_util::stream::empty::<Vec<u8>>(), BIG5, DecoderOptions::default());
    /// assert_eq!(stream.encoding(), BIG5);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.decoder.encoding()
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

    fn decode(&mut self, src: &[u8], last: bool) -> String {
        let mut text = String::new();
        let mut read = 0;
        loop {
            let room = self.decoder.max_utf8_buffer_length(src.len() - read).unwrap_or(src.len());
            text.reserve(room.max(16));
            let progress = self.decoder.decode_to_string(&src[read..], &mut text, last);
            read += progress.read;
            match progress.result {
                DecoderResult::InputEmpty => return text,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(error) => {
                    self.error = Some(error);
                    return text;
                }
            }
        }
    }
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
                Some(chunk) => this.decode(chunk.as_ref(), false),
                None => {
                    let text = this.decode(&[], true);
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
    encoder: Encoder,
    position: u64,
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
        Ok(EncodeStream { inner, encoder: encoding.new_encoder_with(mode)?, position: 0, error: None, done: false })
    }

    /// The encoding written.
    ///
    /// ```
    /// use whatenc::{io::EncodeStream, EncoderErrorMode, EUC_KR};
    /// let chunks = futures_util::stream::empty::<String>();
    /// assert_eq!(EncodeStream::new(chunks, EUC_KR, EncoderErrorMode::Html).unwrap().encoding(), EUC_KR);
    /// ```
    pub fn encoding(&self) -> &'static Encoding {
        self.encoder.encoding()
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

    fn encode(&mut self, text: &str, last: bool) -> Vec<u8> {
        let mut bytes = Vec::new();
        let (result, read) = self.encoder.encode_from_utf8_to_vec(text, &mut bytes, last);
        self.position += read as u64;
        if let EncoderResult::Unmappable(character) = result {
            let offset = self.position - character.len_utf8() as u64;
            self.error = Some(UnencodableError { character, offset, encoding: self.encoder.encoding() });
        }
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
                Some(chunk) => this.encode(chunk.as_ref(), false),
                None => {
                    this.done = true;
                    this.encode("", true)
                }
            };
            if !bytes.is_empty() {
                return Poll::Ready(Some(Ok(bytes)));
            }
        }
    }
}
