//! The async adaptors of `whatenc::io` on tokio (and on `futures-io` and
//! `futures_core::Stream` when those features are on), against inner readers,
//! writers and streams that return `Pending` every other poll, one byte at a time,
//! short writes and `Interrupted`; compared with the core `Decoder`/`Encoder` run
//! over the whole input.
#![cfg(feature = "tokio")]

mod common;

use common::{reference_decode, reference_encode};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use whatenc::io::{AsyncDecodeReader, AsyncDecodeWriter, AsyncEncodeWriter, UnencodableError};
use whatenc::{DecodeError, DecoderOptions, EncoderErrorMode, Encoding, ErrorMode};

fn samples() -> Vec<(&'static Encoding, Vec<u8>)> {
    vec![
        (
            whatenc::UTF_8,
            "a€😀\u{FEFF}".repeat(20).into_bytes().into_iter().chain([0xF0, 0x9F, 0xFF, 0x41, 0xE2]).collect(),
        ),
        (whatenc::UTF_16LE, b"a\x00\xAC\x20\x3D\xD8\x00\xDE\x00\xD8A\x00\xDC".repeat(10)),
        (whatenc::UTF_16BE, b"\xFE\xFF\x00a\x20\xAC\xD8\x3D\xDE\x00\xDC\x00\x00".repeat(10)),
        (whatenc::WINDOWS_1252, (0..=255u8).collect()),
        (whatenc::SHIFT_JIS, b"\x93\xfa\x96\x7babc\x81\xff\x82\xa0\x82".repeat(10)),
        (whatenc::GB18030, b"\x81\x30\x81\x30\xD6\xD0\xA2\xE3\x81\x30\xFFz\x84".repeat(10)),
        (whatenc::ISO_2022_JP, b"a\x1B$BF|K\\\x1B(Bb\x1B$B\x1B(Jz\\\x0E\x1B$BF".repeat(5)),
        (whatenc::EUC_KR, b"\xB0\xA1\xB0a\xC7\xD1\xB1\xB9\xFF\xB0".repeat(10)),
        (whatenc::BIG5, b"\xA4\xA4\xA4\xE5\x88\x62\x80a\xA4".repeat(10)),
    ]
}

fn options() -> [DecoderOptions; 3] {
    [
        DecoderOptions::default(),
        DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() },
        DecoderOptions { mode: ErrorMode::Fatal, bom: whatenc::BomHandling::Sniff },
    ]
}

fn decode_error_offset(error: &io::Error) -> u64 {
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    error.get_ref().unwrap().downcast_ref::<DecodeError>().expect("a DecodeError inside").offset
}

fn unencodable(error: &io::Error) -> (char, u64) {
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    let inner = error.get_ref().unwrap().downcast_ref::<UnencodableError>().expect("an UnencodableError inside");
    (inner.character, inner.offset)
}

/// An inner reader that is `Pending` every other poll and then gives one byte.
struct SlowReader {
    data: Vec<u8>,
    pos: usize,
    polls: usize,
}

impl SlowReader {
    fn new(data: &[u8]) -> SlowReader {
        SlowReader { data: data.to_vec(), pos: 0, polls: 0 }
    }

    fn poll_one(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.polls += 1;
        match self.polls % 4 {
            1 => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            3 => Poll::Ready(Err(io::ErrorKind::Interrupted.into())),
            _ => {
                let n = buf.len().min(1).min(self.data.len() - self.pos);
                buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
                self.pos += n;
                Poll::Ready(Ok(n))
            }
        }
    }
}

impl tokio::io::AsyncRead for SlowReader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut tokio::io::ReadBuf<'_>) -> Poll<io::Result<()>> {
        let mut one = [0u8; 1];
        let n = std::task::ready!(self.get_mut().poll_one(cx, &mut one))?;
        buf.put_slice(&one[..n]);
        Poll::Ready(Ok(()))
    }
}

#[cfg(feature = "futures-io")]
impl futures_io::AsyncRead for SlowReader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.get_mut().poll_one(cx, buf)
    }
}

/// An inner writer that is `Pending` every other poll, sometimes `Interrupted`, and
/// takes 1 to 3 bytes a time.
#[derive(Default)]
struct SlowWriter {
    out: Vec<u8>,
    polls: usize,
    closed: bool,
}

impl SlowWriter {
    fn poll_some(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        assert!(!self.closed, "write after close");
        self.polls += 1;
        match self.polls % 4 {
            1 => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            3 => Poll::Ready(Err(io::ErrorKind::Interrupted.into())),
            _ => {
                let n = buf.len().min(1 + self.polls % 3);
                self.out.extend_from_slice(&buf[..n]);
                Poll::Ready(Ok(n))
            }
        }
    }
}

impl tokio::io::AsyncWrite for SlowWriter {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().poll_some(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().closed = true;
        Poll::Ready(Ok(()))
    }
}

#[cfg(feature = "futures-io")]
impl futures_io::AsyncWrite for SlowWriter {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().poll_some(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().closed = true;
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn tokio_decode_reader_with_a_slow_inner_reader() {
    for (encoding, input) in samples() {
        for options in options() {
            let expected = reference_decode(encoding, options, &input);
            let mut reader = AsyncDecodeReader::with_capacity(1, SlowReader::new(&input), encoding, options);
            let mut bytes = Vec::new();
            let mut errors = Vec::new();
            let mut buf = [0u8; 1];
            loop {
                match reader.read(&mut buf).await {
                    Ok(0) => break,
                    Ok(n) => bytes.extend_from_slice(&buf[..n]),
                    Err(e) => errors.push(decode_error_offset(&e)),
                }
            }
            assert_eq!((String::from_utf8(bytes).unwrap(), errors), expected, "{} {options:?}", encoding.name());
            // AsyncBufRead: lines.
            let mut reader = AsyncDecodeReader::with_options(SlowReader::new(&input), encoding, options);
            let mut text = String::new();
            let mut errors = Vec::new();
            loop {
                match reader.read_line(&mut text).await {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => errors.push(decode_error_offset(&e)),
                }
            }
            assert_eq!((text, errors), expected, "{} {options:?} read_line", encoding.name());
        }
    }
}

#[tokio::test]
async fn tokio_decode_writer_with_a_slow_inner_writer() {
    for (encoding, input) in samples() {
        for options in options() {
            let expected = reference_decode(encoding, options, &input);
            let mut writer = AsyncDecodeWriter::with_capacity(1, SlowWriter::default(), encoding, options);
            let mut errors = Vec::new();
            let mut pos = 0;
            while pos < input.len() {
                let end = (pos + 1 + pos % 5).min(input.len());
                match writer.write(&input[pos..end]).await {
                    Ok(n) => pos += n,
                    Err(e) => errors.push(decode_error_offset(&e)),
                }
            }
            while let Err(e) = writer.shutdown().await {
                errors.push(decode_error_offset(&e));
            }
            assert!(writer.is_finished() && writer.get_ref().closed);
            let text = String::from_utf8(writer.into_inner().out).unwrap();
            assert_eq!((text, errors), expected, "{} {options:?}", encoding.name());
        }
    }
}

fn sample_text() -> String {
    "a日本語☃ä😀ｱ€¥\u{80}".repeat(15)
}

#[tokio::test]
async fn tokio_encode_writer_with_a_slow_inner_writer() {
    let text = sample_text();
    for encoding in [
        whatenc::UTF_8,
        whatenc::WINDOWS_1252,
        whatenc::SHIFT_JIS,
        whatenc::ISO_2022_JP,
        whatenc::GB18030,
        whatenc::BIG5,
        whatenc::EUC_KR,
    ] {
        for mode in [EncoderErrorMode::Html, EncoderErrorMode::Fatal] {
            let expected = reference_encode(encoding, mode, &text);
            let mut writer = AsyncEncodeWriter::with_capacity(1, SlowWriter::default(), encoding, mode).unwrap();
            let mut errors = Vec::new();
            let bytes = text.as_bytes();
            let mut pos = 0;
            while pos < bytes.len() {
                // Cuts characters between writes.
                let end = (pos + 1 + pos % 4).min(bytes.len());
                match writer.write(&bytes[pos..end]).await {
                    Ok(n) => pos += n,
                    Err(e) => errors.push(unencodable(&e)),
                }
            }
            while let Err(e) = writer.shutdown().await {
                errors.push(unencodable(&e));
            }
            assert_eq!((writer.into_inner().out, errors), expected, "{} {mode:?}", encoding.name());
        }
    }
}

#[tokio::test]
async fn tokio_flush_writes_out_without_finishing() {
    let mut writer = AsyncDecodeWriter::new(SlowWriter::default(), whatenc::UTF_8);
    writer.write_all(b"ab\xE2\x82").await.unwrap();
    writer.flush().await.unwrap();
    assert_eq!(writer.get_ref().out, b"ab");
    writer.write_all(b"\xAC").await.unwrap();
    writer.shutdown().await.unwrap();
    assert_eq!(writer.get_ref().out, "ab€".as_bytes());
    assert!(writer.write(b"x").await.is_err(), "no writing after shutdown");
}

#[cfg(feature = "futures-io")]
mod futures_io_adaptors {
    use futures_util::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn futures_decode_reader_with_a_slow_inner_reader() {
        for (encoding, input) in samples() {
            for options in options() {
                let expected = reference_decode(encoding, options, &input);
                let mut reader = AsyncDecodeReader::with_capacity(1, SlowReader::new(&input), encoding, options);
                let mut bytes = Vec::new();
                let mut errors = Vec::new();
                let mut buf = [0u8; 1];
                loop {
                    match reader.read(&mut buf).await {
                        Ok(0) => break,
                        Ok(n) => bytes.extend_from_slice(&buf[..n]),
                        Err(e) => errors.push(decode_error_offset(&e)),
                    }
                }
                assert_eq!((String::from_utf8(bytes).unwrap(), errors), expected, "{}", encoding.name());
                let mut reader = AsyncDecodeReader::with_options(SlowReader::new(&input), encoding, options);
                let mut text = String::new();
                let mut errors = Vec::new();
                loop {
                    match reader.read_line(&mut text).await {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) => errors.push(decode_error_offset(&e)),
                    }
                }
                assert_eq!((text, errors), expected, "{} read_line", encoding.name());
            }
        }
    }

    #[tokio::test]
    async fn futures_writers_with_a_slow_inner_writer() {
        for (encoding, input) in samples() {
            for options in options() {
                let expected = reference_decode(encoding, options, &input);
                let mut writer = AsyncDecodeWriter::with_capacity(1, SlowWriter::default(), encoding, options);
                let mut errors = Vec::new();
                let mut pos = 0;
                while pos < input.len() {
                    match writer.write(&input[pos..(pos + 3).min(input.len())]).await {
                        Ok(n) => pos += n,
                        Err(e) => errors.push(decode_error_offset(&e)),
                    }
                }
                while let Err(e) = writer.close().await {
                    errors.push(decode_error_offset(&e));
                }
                let text = String::from_utf8(writer.into_inner().out).unwrap();
                assert_eq!((text, errors), expected, "{} {options:?}", encoding.name());
            }
        }
        let text = sample_text();
        for mode in [EncoderErrorMode::Html, EncoderErrorMode::Fatal] {
            let expected = reference_encode(whatenc::EUC_JP, mode, &text);
            let mut writer = AsyncEncodeWriter::with_capacity(1, SlowWriter::default(), whatenc::EUC_JP, mode).unwrap();
            let mut errors = Vec::new();
            let bytes = text.as_bytes();
            let mut pos = 0;
            while pos < bytes.len() {
                match writer.write(&bytes[pos..(pos + 2).min(bytes.len())]).await {
                    Ok(n) => pos += n,
                    Err(e) => errors.push(unencodable(&e)),
                }
            }
            while let Err(e) = writer.close().await {
                errors.push(unencodable(&e));
            }
            assert!(writer.get_ref().closed);
            assert_eq!((writer.into_inner().out, errors), expected, "{mode:?}");
        }
    }
}

#[cfg(feature = "stream")]
mod streams {
    use futures_util::StreamExt;
    use whatenc::io::{DecodeStream, EncodeStream};

    use super::*;

    /// A stream of the given items that is `Pending` before each.
    struct SlowStream<T> {
        items: std::collections::VecDeque<T>,
        ready: bool,
    }

    impl<T: Unpin> futures_core::Stream for SlowStream<T> {
        type Item = T;
        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
            let this = self.get_mut();
            this.ready = !this.ready;
            if !this.ready {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(this.items.pop_front())
        }
    }

    fn slow<T>(items: impl IntoIterator<Item = T>) -> SlowStream<T> {
        SlowStream { items: items.into_iter().collect(), ready: false }
    }

    #[tokio::test]
    async fn decode_stream_of_byte_chunks() {
        for (encoding, input) in samples() {
            for options in
                [DecoderOptions::default(), DecoderOptions { bom: whatenc::BomHandling::Sniff, ..Default::default() }]
            {
                let (expected, _) = reference_decode(encoding, options, &input);
                let chunks: Vec<Vec<u8>> = input.chunks(3).map(<[u8]>::to_vec).collect();
                let texts: Vec<String> =
                    DecodeStream::new(slow(chunks), encoding, options).map(|item| item.unwrap()).collect().await;
                assert!(texts.iter().all(|t| !t.is_empty()), "no empty chunk");
                assert_eq!(texts.concat(), expected, "{}", encoding.name());
            }
        }
    }

    #[tokio::test]
    async fn decode_stream_fatal_error_ends_the_stream() {
        let options = DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() };
        let chunks = [&b"ab"[..], b"c\xFFd", b"ef"];
        let items: Vec<_> = DecodeStream::new(slow(chunks), whatenc::UTF_8, options).collect().await;
        assert_eq!(items, [Ok("ab".to_string()), Ok("c".to_string()), Err(DecodeError { offset: 3, len: 1 })]);
        // A truncated sequence at the end.
        let items: Vec<_> = DecodeStream::new(slow([&b"a\xE2"[..]]), whatenc::UTF_8, options).collect().await;
        assert_eq!(items, [Ok("a".to_string()), Err(DecodeError { offset: 1, len: 1 })]);
    }

    #[tokio::test]
    async fn encode_stream_of_text_chunks() {
        let text = sample_text();
        for encoding in [whatenc::UTF_8, whatenc::ISO_2022_JP, whatenc::SHIFT_JIS, whatenc::WINDOWS_1252] {
            let (expected, _) = reference_encode(encoding, EncoderErrorMode::Html, &text);
            let chunks: Vec<String> = text.chars().collect::<Vec<_>>().chunks(3).map(|c| c.iter().collect()).collect();
            let out: Vec<Vec<u8>> = EncodeStream::new(slow(chunks), encoding, EncoderErrorMode::Html)
                .unwrap()
                .map(|item| item.unwrap())
                .collect()
                .await;
            assert!(out.iter().all(|b| !b.is_empty()), "no empty chunk");
            assert_eq!(out.concat(), expected, "{}", encoding.name());
        }
        // "fatal": the bytes before the character, then the error, then the end.
        let items: Vec<_> = EncodeStream::new(slow(["ab", "c☃d", "e"]), whatenc::WINDOWS_1252, EncoderErrorMode::Fatal)
            .unwrap()
            .collect()
            .await;
        let error = UnencodableError { character: '☃', offset: 3, encoding: whatenc::WINDOWS_1252 };
        assert_eq!(items, [Ok(b"ab".to_vec()), Ok(b"c".to_vec()), Err(error)]);
    }

    #[tokio::test]
    async fn decode_then_encode_round_trip_through_streams() {
        let text = sample_text();
        let bytes = reference_encode(whatenc::GB18030, EncoderErrorMode::Fatal, &text).0;
        let chunks: Vec<Vec<u8>> = bytes.chunks(5).map(<[u8]>::to_vec).collect();
        let decoded = DecodeStream::new(slow(chunks), whatenc::GB18030, DecoderOptions::default()).map(Result::unwrap);
        let encoded: Vec<Vec<u8>> = EncodeStream::new(decoded, whatenc::GB18030, EncoderErrorMode::Fatal)
            .unwrap()
            .map(Result::unwrap)
            .collect()
            .await;
        assert_eq!(encoded.concat(), bytes);
    }
}
