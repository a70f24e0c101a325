//! The writers' and readers' promises, held by every shell over the one sans-IO
//! core (`std::io`, `futures-io`, tokio): against inner I/O that gives one byte at
//! a time, `Interrupted`, `WouldBlock`, `Pending`, failures and zero-length writes,
//! and with the adaptor dropped at every point. Each run is compared with the core
//! `Decoder`/`Encoder` over the whole input. Also one test for each bug of the
//! reliability audit: `into_inner` keeps the writer on error, a fatal error cannot
//! vanish, the encoding writer is not stuck after bytes that are not UTF-8.
//!
//! Needs the `tokio`, `futures-io` and `stream` features (`--all-features`).
#![cfg(all(feature = "tokio", feature = "futures-io", feature = "stream"))]

mod common;

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use common::Rng;
use whatenc::io::{
    AsyncDecodeReader, AsyncDecodeWriter, AsyncEncodeWriter, DecodeReader, DecodeWriter, EncodeWriter, UnencodableError,
};
use whatenc::{DecodeError, DecoderOptions, DecoderResult, EncoderErrorMode, EncoderResult, Encoding, ErrorMode};

// ---------------------------------------------------------------------------
// Flaky inner I/O
// ---------------------------------------------------------------------------

/// What one call of the inner reader or writer does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Act {
    /// Up to this many bytes.
    Bytes(usize),
    Interrupted,
    WouldBlock,
    /// `Pending` (async shells); `WouldBlock` for the sync ones.
    Pending,
    Fail,
    /// `Ok(0)` from a writer: the adaptor must say `WriteZero`.
    Zero,
}

/// The behaviour of the inner I/O: each call draws its act.
#[derive(Debug, Clone, Copy)]
enum Behaviour {
    OneByte,
    Hostile,
    /// Well-behaved: the drop test needs the finish run by `Drop` to get through.
    Calm,
}

struct Flaky {
    rng: Rng,
    behaviour: Behaviour,
    data: Vec<u8>,
    pos: usize,
    /// What was written, shared so that it can be read after the adaptor is dropped.
    out: Rc<RefCell<Vec<u8>>>,
}

impl Flaky {
    fn new(seed: u64, behaviour: Behaviour, data: Vec<u8>) -> Flaky {
        Flaky { rng: Rng::new(seed), behaviour, data, pos: 0, out: Rc::default() }
    }

    fn act(&mut self, writing: bool) -> Act {
        match self.behaviour {
            Behaviour::Calm => Act::Bytes(usize::MAX),
            Behaviour::OneByte => Act::Bytes(1),
            Behaviour::Hostile => match self.rng.below(12) {
                0 => Act::Interrupted,
                1 => Act::WouldBlock,
                2 => Act::Pending,
                3 => Act::Fail,
                4 if writing => Act::Zero,
                n => Act::Bytes(n),
            },
        }
    }

    /// `Ok(None)` is `Pending`.
    fn do_write(&mut self, buf: &[u8]) -> io::Result<Option<usize>> {
        match self.act(true) {
            Act::Bytes(n) => {
                let n = n.min(buf.len());
                self.out.borrow_mut().extend_from_slice(&buf[..n]);
                Ok(Some(n))
            }
            Act::Zero => Ok(Some(0)),
            Act::Pending => Ok(None),
            other => Err(error_of(other)),
        }
    }

    fn do_read(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        match self.act(false) {
            Act::Bytes(n) => {
                let n = n.min(buf.len()).min(self.data.len() - self.pos);
                buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
                self.pos += n;
                Ok(Some(n))
            }
            Act::Pending => Ok(None),
            other => Err(error_of(other)),
        }
    }
}

fn error_of(act: Act) -> io::Error {
    match act {
        Act::Interrupted => io::ErrorKind::Interrupted.into(),
        Act::WouldBlock => io::ErrorKind::WouldBlock.into(),
        _ => io::Error::other("the inner I/O failed"),
    }
}

fn sync_poll<T>(result: io::Result<Option<T>>) -> io::Result<T> {
    result?.ok_or_else(|| io::ErrorKind::WouldBlock.into())
}

fn async_poll<T>(result: io::Result<Option<T>>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
    match result {
        Ok(None) => {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
        Ok(Some(n)) => Poll::Ready(Ok(n)),
        Err(e) => Poll::Ready(Err(e)),
    }
}

impl Write for Flaky {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        sync_poll(self.do_write(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Read for Flaky {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        sync_poll(self.do_read(buf))
    }
}

impl tokio::io::AsyncWrite for Flaky {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        async_poll(this.do_write(buf), cx)
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl futures_io::AsyncWrite for Flaky {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        async_poll(this.do_write(buf), cx)
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncRead for Flaky {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut tokio::io::ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match async_poll(this.do_read(buf.initialize_unfilled()), cx) {
            Poll::Ready(Ok(n)) => {
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl futures_io::AsyncRead for Flaky {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        async_poll(this.do_read(buf), cx)
    }
}

// ---------------------------------------------------------------------------
// The shells, as one interface: `Pending` comes back as `WouldBlock`
// ---------------------------------------------------------------------------

fn block<T>(poll: Poll<io::Result<T>>) -> io::Result<T> {
    match poll {
        Poll::Ready(result) => result,
        Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
    }
}

fn cx() -> Context<'static> {
    Context::from_waker(Waker::noop())
}

/// A writer shell: one call of each method, as the caller sees it.
trait Shell {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize>;
    fn flush(&mut self) -> io::Result<()>;
    fn finish(&mut self) -> io::Result<()>;
    fn inner(&mut self) -> &mut Flaky;
}

impl Shell for DecodeWriter<Flaky> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Write::write(self, buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Write::flush(self)
    }
    fn finish(&mut self) -> io::Result<()> {
        DecodeWriter::finish(self)
    }
    fn inner(&mut self) -> &mut Flaky {
        self.get_mut()
    }
}

impl Shell for EncodeWriter<Flaky> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Write::write(self, buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Write::flush(self)
    }
    fn finish(&mut self) -> io::Result<()> {
        EncodeWriter::finish(self)
    }
    fn inner(&mut self) -> &mut Flaky {
        self.get_mut()
    }
}

/// An async writer through tokio's traits.
struct Tokio<A>(A);
/// An async writer through the `futures-io` traits.
struct Futures<A>(A);

macro_rules! async_shells {
    ($($adaptor:ident),*) => {$(
        impl Shell for Tokio<$adaptor<Flaky>> {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                block(tokio::io::AsyncWrite::poll_write(Pin::new(&mut self.0), &mut cx(), buf))
            }
            fn flush(&mut self) -> io::Result<()> {
                block(tokio::io::AsyncWrite::poll_flush(Pin::new(&mut self.0), &mut cx()))
            }
            fn finish(&mut self) -> io::Result<()> {
                block(tokio::io::AsyncWrite::poll_shutdown(Pin::new(&mut self.0), &mut cx()))
            }
            fn inner(&mut self) -> &mut Flaky {
                self.0.get_mut()
            }
        }

        impl Shell for Futures<$adaptor<Flaky>> {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                block(futures_io::AsyncWrite::poll_write(Pin::new(&mut self.0), &mut cx(), buf))
            }
            fn flush(&mut self) -> io::Result<()> {
                block(futures_io::AsyncWrite::poll_flush(Pin::new(&mut self.0), &mut cx()))
            }
            fn finish(&mut self) -> io::Result<()> {
                block(futures_io::AsyncWrite::poll_close(Pin::new(&mut self.0), &mut cx()))
            }
            fn inner(&mut self) -> &mut Flaky {
                self.0.get_mut()
            }
        }
    )*};
}

async_shells!(AsyncDecodeWriter, AsyncEncodeWriter);

/// The shells of one writer kind, by name, each made from an inner writer.
type Shells = Vec<(&'static str, Box<dyn Fn(Flaky) -> Box<dyn Shell>>)>;

fn decode_shells(encoding: &'static Encoding, options: DecoderOptions) -> Shells {
    vec![
        ("std", Box::new(move |f| Box::new(DecodeWriter::with_capacity(1, f, encoding, options)))),
        ("tokio", Box::new(move |f| Box::new(Tokio(AsyncDecodeWriter::with_capacity(1, f, encoding, options))))),
        ("futures", Box::new(move |f| Box::new(Futures(AsyncDecodeWriter::with_capacity(1, f, encoding, options))))),
    ]
}

fn encode_shells(encoding: &'static Encoding, mode: EncoderErrorMode) -> Shells {
    vec![
        ("std", Box::new(move |f| Box::new(EncodeWriter::with_capacity(1, f, encoding, mode).unwrap()))),
        ("tokio", Box::new(move |f| Box::new(Tokio(AsyncEncodeWriter::with_capacity(1, f, encoding, mode).unwrap())))),
        (
            "futures",
            Box::new(move |f| Box::new(Futures(AsyncEncodeWriter::with_capacity(1, f, encoding, mode).unwrap()))),
        ),
    ]
}

// ---------------------------------------------------------------------------
// References and the driver
// ---------------------------------------------------------------------------

/// The core decoder over the whole input: the text and the offsets of the errors.
fn reference_decode(encoding: &'static Encoding, options: DecoderOptions, input: &[u8]) -> (Vec<u8>, Vec<u64>) {
    let mut decoder = encoding.new_decoder_with(options);
    let mut text = String::new();
    let mut errors = Vec::new();
    let mut read = 0;
    loop {
        text.reserve(decoder.max_utf8_buffer_length(input.len() - read).unwrap());
        let progress = decoder.decode_to_string(&input[read..], &mut text, true);
        read += progress.read;
        match progress.result {
            DecoderResult::InputEmpty => return (text.into_bytes(), errors),
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(error) => errors.push(error.offset),
        }
    }
}

/// The core encoder over the whole text: the bytes and the offsets of the
/// unencodable characters ("fatal" mode goes on after each).
fn reference_encode(encoding: &'static Encoding, mode: EncoderErrorMode, text: &str) -> (Vec<u8>, Vec<u64>) {
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
            // The input's character (ISO-2022-JP reports U+FFFD for ESC).
            EncoderResult::Unmappable(_) => errors.push(text[..read].char_indices().next_back().unwrap().0 as u64),
        }
    }
}

/// The offset that an error in the data names (a `DecodeError` or an
/// `UnencodableError`), or `None` for an error of the inner I/O.
fn data_error_offset(error: &io::Error) -> Option<u64> {
    if error.kind() != io::ErrorKind::InvalidData {
        assert!(
            matches!(
                error.kind(),
                io::ErrorKind::WouldBlock
                    | io::ErrorKind::WriteZero
                    | io::ErrorKind::Other
                    | io::ErrorKind::Interrupted
            ),
            "unexpected error {error:?}"
        );
        return None;
    }
    let inner = error.get_ref().expect("a data error carries its cause");
    if let Some(e) = inner.downcast_ref::<DecodeError>() {
        return Some(e.offset);
    }
    Some(inner.downcast_ref::<UnencodableError>().expect("a DecodeError or an UnencodableError").offset)
}

/// Writes `input` through `shell` in pieces of 1 to 9 bytes, flushing now and
/// then, retrying after every error as the contract allows ("an error takes
/// nothing; the same input again goes on"); stops after `stop_after` calls if
/// given. Returns the data errors seen and the bytes taken.
fn drive(shell: &mut dyn Shell, input: &[u8], rng: &mut Rng, stop_after: Option<usize>) -> (Vec<u64>, usize) {
    let mut errors = Vec::new();
    let mut pos = 0;
    let mut calls = 0;
    let record = |result: io::Result<()>, errors: &mut Vec<u64>| {
        if let Err(e) = result
            && let Some(offset) = data_error_offset(&e)
        {
            errors.push(offset);
        }
    };
    while pos < input.len() {
        if stop_after == Some(calls) {
            return (errors, pos);
        }
        calls += 1;
        assert!(calls < 1_000_000, "no progress");
        let end = (pos + 1 + rng.below(9)).min(input.len());
        match shell.write(&input[pos..end]) {
            Ok(n) => {
                assert!(n > 0 && n <= end - pos, "write of {} bytes returned {n}", end - pos);
                pos += n;
            }
            Err(e) => record(Err(e), &mut errors),
        }
        if rng.below(8) == 0 {
            let result = shell.flush();
            record(result, &mut errors);
        }
    }
    if stop_after.is_some() {
        return (errors, pos);
    }
    for _ in 0..100_000 {
        match shell.finish() {
            Ok(()) => return (errors, pos),
            Err(e) => record(Err(e), &mut errors),
        }
    }
    panic!("finish never succeeded");
}

fn decode_inputs(rng: &mut Rng) -> Vec<(&'static Encoding, Vec<u8>)> {
    let mut inputs = Vec::new();
    for (encoding, text) in [
        (whatenc::UTF_8, "aé€日😀"),
        (whatenc::SHIFT_JIS, "a日本ｱ"),
        (whatenc::ISO_2022_JP, "a日本¥"),
        (whatenc::GB18030, "a中文€😀"),
        (whatenc::UTF_16LE, "aé€日😀"),
        (whatenc::WINDOWS_1252, "aé€ÿ"),
    ] {
        let chars: Vec<char> = text.chars().collect();
        for len in [0, 1, 7, 40] {
            let text: String = (0..len).map(|_| *rng.pick(&chars)).collect();
            let bytes: Vec<u8> = match encoding.encode(&text) {
                Ok((bytes, _)) => bytes.into_owned(),
                Err(_) => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            };
            // Bad bytes here and there, and a sequence cut at the end.
            let mut damaged = bytes.clone();
            for _ in 0..len / 6 {
                let at = rng.below(damaged.len() + 1);
                damaged.insert(at, *rng.pick(&[0x80, 0xFF, 0x1B, 0xE2, 0xD8]));
            }
            damaged.extend_from_slice(&[0xE2, 0x82][..rng.below(3)]);
            inputs.push((encoding, bytes));
            inputs.push((encoding, damaged));
        }
    }
    inputs
}

const DECODE_OPTIONS: [DecoderOptions; 2] = [
    DecoderOptions { mode: ErrorMode::Replacement, bom: whatenc::BomHandling::Sniff },
    DecoderOptions { mode: ErrorMode::Fatal, bom: whatenc::BomHandling::None },
];

#[test]
fn writer_shells_with_flaky_inner_writers() {
    common::with_watchdog("writer shells", 300, || {
        let mut rng = Rng::new(0xF1A4);
        let mut runs = 0;
        for (encoding, input) in decode_inputs(&mut rng) {
            for options in DECODE_OPTIONS {
                let expected = reference_decode(encoding, options, &input);
                for (name, make) in decode_shells(encoding, options) {
                    for behaviour in [Behaviour::OneByte, Behaviour::Hostile] {
                        let mut shell = make(Flaky::new(rng.next_u64(), behaviour, Vec::new()));
                        let (errors, _) = drive(&mut *shell, &input, &mut rng, None);
                        let out = shell.inner().out.take();
                        assert_eq!((out, errors), expected, "{name} {} {options:?} {input:02X?}", encoding.name());
                        runs += 1;
                    }
                }
            }
        }
        for (encoding, pool) in [
            (whatenc::WINDOWS_1252, "aé€☃"),
            (whatenc::ISO_2022_JP, "a日¥☃\u{1B}"),
            (whatenc::SHIFT_JIS, "aｱ日☃😀"),
            (whatenc::UTF_8, "aé😀"),
        ] {
            let chars: Vec<char> = pool.chars().collect();
            for len in [0, 1, 9, 60] {
                let text: String = (0..len).map(|_| *rng.pick(&chars)).collect();
                for mode in [EncoderErrorMode::Fatal, EncoderErrorMode::Html] {
                    let expected = reference_encode(encoding, mode, &text);
                    for (name, make) in encode_shells(encoding, mode) {
                        for behaviour in [Behaviour::OneByte, Behaviour::Hostile] {
                            let mut shell = make(Flaky::new(rng.next_u64(), behaviour, Vec::new()));
                            let (errors, _) = drive(&mut *shell, text.as_bytes(), &mut rng, None);
                            let out = shell.inner().out.take();
                            assert_eq!((out, errors), expected, "{name} {} {mode:?} {text:?}", encoding.name());
                            runs += 1;
                        }
                    }
                }
            }
        }
        println!("{runs} writer runs over flaky inner writers passed");
    });
}

/// Dropped after any number of calls, a writer never panics in "replacement" and
/// "html" modes; a sync writer finishes on drop, so the inner writer holds exactly
/// the conversion of the input it took; an async one cannot, so it holds a prefix.
#[test]
fn writer_shells_dropped_at_every_point() {
    common::with_watchdog("drop at every point", 300, || {
        let mut rng = Rng::new(0xD409);
        let mut drops = 0;
        let input = "aé€日😀 ☃".repeat(3);
        for (encoding, bytes) in [
            (whatenc::UTF_8, input.as_bytes().to_vec()),
            (whatenc::SHIFT_JIS, whatenc::SHIFT_JIS.encode("a日本ｱ日").unwrap().0.into_owned()),
        ] {
            let options = DecoderOptions::default();
            for (name, make) in decode_shells(encoding, options) {
                for stop in 0..bytes.len() {
                    let mut shell = make(Flaky::new(rng.next_u64(), Behaviour::OneByte, Vec::new()));
                    let (_, taken) = drive(&mut *shell, &bytes, &mut rng, Some(stop));
                    let (out, panicked) = drop_calmly(shell);
                    assert!(!panicked, "{name}: dropping a \"replacement\" writer panicked");
                    let (whole, _) = reference_decode(encoding, options, &bytes[..taken]);
                    check_drop_output(name, &out, &whole);
                    drops += 1;
                }
            }
        }
        for encoding in [whatenc::ISO_2022_JP, whatenc::GBK] {
            for (name, make) in encode_shells(encoding, EncoderErrorMode::Html) {
                for stop in 0..input.len() {
                    let mut shell = make(Flaky::new(rng.next_u64(), Behaviour::OneByte, Vec::new()));
                    let (_, taken) = drive(&mut *shell, input.as_bytes(), &mut rng, Some(stop));
                    let (out, panicked) = drop_calmly(shell);
                    // Input cut inside a character is not text: dropping the writer then
                    // loses it without a word, which panics in debug builds.
                    let cut = (0..=taken).rev().find(|&i| input.is_char_boundary(i)).unwrap();
                    assert_eq!(panicked, cfg!(debug_assertions) && cut != taken, "{name} taken {taken}");
                    let (whole, _) = reference_encode(encoding, EncoderErrorMode::Html, &input[..cut]);
                    check_drop_output(name, &out, &whole);
                    drops += 1;
                }
            }
        }
        println!("{drops} drops passed");
    });
}

/// Drops the shell (after calming its inner writer, so that a sync writer's
/// finish gets through) and returns all its inner writer got.
/// Also says whether dropping panicked.
fn drop_calmly(mut shell: Box<dyn Shell>) -> (Vec<u8>, bool) {
    shell.inner().behaviour = Behaviour::Calm;
    let out = shell.inner().out.clone();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(shell))).is_err();
    (out.take(), panicked)
}

/// A sync writer (finished by `Drop`) wrote exactly the conversion of what it took;
/// an async one (not finished) wrote a prefix of it.
fn check_drop_output(shell: &str, out: &[u8], whole: &[u8]) {
    if shell == "std" {
        assert_eq!(out, whole, "{shell}");
    } else {
        assert!(whole.starts_with(out), "{shell}: {out:02X?} is not a prefix of {whole:02X?}");
    }
}

// ---------------------------------------------------------------------------
// Readers
// ---------------------------------------------------------------------------

/// Reads everything through one call at a time of the shell's read, retrying after
/// every error: the text and the offsets of the data errors.
fn read_all(mut read: impl FnMut(&mut [u8]) -> io::Result<usize>, rng: &mut Rng) -> (Vec<u8>, Vec<u64>) {
    let mut text = Vec::new();
    let mut errors = Vec::new();
    let mut buf = [0u8; 16];
    for _ in 0..1_000_000 {
        let want = 1 + rng.below(buf.len());
        match read(&mut buf[..want]) {
            Ok(0) => return (text, errors),
            Ok(n) => text.extend_from_slice(&buf[..n]),
            Err(e) => errors.extend(data_error_offset(&e)),
        }
    }
    panic!("the reader never ended");
}

#[test]
fn reader_shells_with_flaky_inner_readers() {
    common::with_watchdog("reader shells", 300, || {
        let mut rng = Rng::new(0x4EAD);
        let mut runs = 0;
        for (encoding, input) in decode_inputs(&mut rng) {
            for options in DECODE_OPTIONS {
                let expected = reference_decode(encoding, options, &input);
                for behaviour in [Behaviour::OneByte, Behaviour::Hostile] {
                    let mut flaky = || Flaky::new(rng.next_u64(), behaviour, input.clone());
                    let mut reader = DecodeReader::with_capacity(1, flaky(), encoding, options);
                    let mut read_rng = Rng::new(runs);
                    let got = read_all(|buf| reader.read(buf), &mut read_rng);
                    assert_eq!(got, expected, "std {} {options:?} {input:02X?}", encoding.name());
                    let mut reader = AsyncDecodeReader::with_capacity(1, flaky(), encoding, options);
                    let got = read_all(
                        |buf| {
                            let mut read_buf = tokio::io::ReadBuf::new(buf);
                            let poll = tokio::io::AsyncRead::poll_read(Pin::new(&mut reader), &mut cx(), &mut read_buf);
                            block(poll).map(|()| read_buf.filled().len())
                        },
                        &mut read_rng,
                    );
                    assert_eq!(got, expected, "tokio {} {options:?} {input:02X?}", encoding.name());
                    let mut reader = AsyncDecodeReader::with_capacity(1, flaky(), encoding, options);
                    let got = read_all(
                        |buf| block(futures_io::AsyncRead::poll_read(Pin::new(&mut reader), &mut cx(), buf)),
                        &mut read_rng,
                    );
                    assert_eq!(got, expected, "futures {} {options:?} {input:02X?}", encoding.name());
                    runs += 3;
                }
            }
        }
        println!("{runs} reader runs over flaky inner readers passed");
    });
}

// ---------------------------------------------------------------------------
// The bugs of the reliability audit, one test each
// ---------------------------------------------------------------------------

fn fatal() -> DecoderOptions {
    DecoderOptions { mode: ErrorMode::Fatal, ..Default::default() }
}

/// `into_inner` hands the writer back on error, with its inner writer and all it
/// holds, as `BufWriter::into_inner` does; the stream goes on after the error.
#[test]
fn into_inner_keeps_the_writer_on_error() {
    let mut writer = DecodeWriter::with_options(b"before ".to_vec(), whatenc::UTF_8, fatal());
    writer.write_all(b"ok\xE2\x82").unwrap();
    let error = writer.into_inner().unwrap_err();
    assert_eq!(data_error_offset(error.error()), Some(2));
    let writer = error.into_inner();
    assert_eq!(writer.get_ref(), b"before ok");
    assert_eq!(writer.into_inner().unwrap(), b"before ok");

    let mut writer = EncodeWriter::new(b"before ".to_vec(), whatenc::EUC_KR, EncoderErrorMode::Fatal).unwrap();
    writer.write_all("가\u{E9}".as_bytes()[..4].as_ref()).unwrap();
    let (error, writer) = writer.into_inner().unwrap_err().into_parts();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    assert_eq!(writer.into_inner().unwrap(), b"before \xB0\xA1");

    // An inner writer that fails: the error is the inner one, and the bytes wait.
    let mut writer =
        EncodeWriter::new(Flaky::new(1, Behaviour::Calm, Vec::new()), whatenc::GBK, EncoderErrorMode::Html).unwrap();
    writer.write_all("中".as_bytes()).unwrap();
    writer.get_mut().behaviour = Behaviour::Hostile;
    let mut writer = writer;
    let out = writer.get_ref().out.clone();
    loop {
        match writer.into_inner() {
            Ok(_) => break,
            Err(error) => {
                assert_ne!(error.error().kind(), io::ErrorKind::InvalidData);
                writer = error.into_inner();
            }
        }
    }
    assert_eq!(*out.borrow(), b"\xD6\xD0");
}

/// A fatal error reaches the caller before its bad input counts as taken: a
/// `write_all` that ends with an unencodable character or a malformed sequence
/// cannot return `Ok`.
#[test]
fn a_fatal_error_cannot_vanish_in_write_all() {
    let mut writer = EncodeWriter::new(Vec::new(), whatenc::WINDOWS_1252, EncoderErrorMode::Fatal).unwrap();
    let error = writer.write_all("ab☃".as_bytes()).unwrap_err();
    assert_eq!(data_error_offset(&error), Some(2));
    writer.finish().unwrap();
    assert_eq!(writer.get_ref(), b"ab");

    let mut writer = DecodeWriter::with_options(Vec::new(), whatenc::SHIFT_JIS, fatal());
    let error = writer.write_all(b"ab\x81\x20").unwrap_err();
    assert_eq!(data_error_offset(&error), Some(2));
    writer.finish().unwrap();

    // Every shell, every position of the bad input in the last write.
    for (name, make) in encode_shells(whatenc::EUC_KR, EncoderErrorMode::Fatal) {
        for text in ["☃", "a☃", "가나☃"] {
            let mut shell = make(Flaky::new(7, Behaviour::Calm, Vec::new()));
            let mut taken = 0;
            let result = loop {
                match shell.write(&text.as_bytes()[taken..]) {
                    Ok(n) if taken + n == text.len() => break Ok(()),
                    Ok(n) => taken += n,
                    Err(e) => break Err(e),
                }
            };
            let offset = text.len() - 3;
            assert_eq!(data_error_offset(&result.unwrap_err()), Some(offset as u64), "{name} {text}");
            shell.finish().unwrap();
        }
    }
}

/// A stream cut inside a sequence can only be found by finishing it. A "fatal"
/// writer dropped without `finish` with such an error panics in debug builds
/// rather than lose it without a word.
#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "dropped with an error it never reported")]
fn a_fatal_writer_dropped_with_an_unreported_error_panics_in_debug_builds() {
    let mut writer = DecodeWriter::with_options(Vec::new(), whatenc::UTF_8, fatal());
    writer.write_all(b"ok\xE2\x82").unwrap();
    drop(writer);
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "dropped with an error it never reported")]
fn an_async_fatal_writer_dropped_with_an_unreported_error_panics_in_debug_builds() {
    let mut shell = Tokio(
        AsyncEncodeWriter::new(Flaky::new(1, Behaviour::Calm, Vec::new()), whatenc::UTF_8, EncoderErrorMode::Fatal)
            .unwrap(),
    );
    assert_eq!(shell.write(b"ok\xE2").unwrap(), 3);
    drop(shell);
}

/// No panic where nothing is lost: a finished writer, a "replacement" writer (its
/// U+FFFD is the report), an error already reported, `into_inner` of an async one.
#[test]
fn writers_dropped_without_a_lost_error_do_not_panic() {
    let mut writer = DecodeWriter::with_options(Vec::new(), whatenc::UTF_8, fatal());
    writer.write_all(b"ok").unwrap();
    drop(writer);
    let mut out = Vec::new();
    let mut writer = DecodeWriter::new(&mut out, whatenc::UTF_8);
    writer.write_all(b"ok\xE2\x82").unwrap();
    drop(writer);
    assert_eq!(out, "ok\u{FFFD}".as_bytes());
    let mut writer = DecodeWriter::with_options(Vec::new(), whatenc::UTF_8, fatal());
    writer.write_all(b"ok\xE2\x82").unwrap();
    assert!(writer.finish().is_err());
    drop(writer);
    let mut writer = AsyncDecodeWriter::with_options(Vec::new(), whatenc::UTF_8, fatal());
    let _ = tokio::io::AsyncWrite::poll_write(Pin::new(&mut writer), &mut cx(), b"\xE2");
    assert!(writer.into_inner().is_empty());
}

/// Bytes that are not UTF-8 after a write that ended inside a character are
/// reported once; the cut character is dropped and writing goes on.
#[test]
fn encode_writer_is_not_stuck_after_a_broken_character() {
    let mut writer = EncodeWriter::new(Vec::new(), whatenc::WINDOWS_1252, EncoderErrorMode::Fatal).unwrap();
    assert_eq!(writer.write(b"a\xC3").unwrap(), 2);
    let error = writer.write(b"Ab").unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    assert!(error.to_string().contains("offset 1"), "{error}");
    assert_eq!(writer.write(b"Ab").unwrap(), 2);
    writer.write_all("é".as_bytes()).unwrap();
    writer.finish().unwrap();
    assert_eq!(writer.get_ref(), b"aAb\xE9");
    // A bad byte inside a write: the text before it, the error, then the rest.
    let mut writer = EncodeWriter::new(Vec::new(), whatenc::UTF_8, EncoderErrorMode::Html).unwrap();
    assert_eq!(writer.write(b"xy\xFFz").unwrap(), 2);
    assert!(writer.write(b"\xFFz").is_err());
    assert_eq!(writer.write(b"\xFFz").unwrap(), 2);
    writer.finish().unwrap();
    assert_eq!(writer.get_ref(), b"xyz");
}

// ---------------------------------------------------------------------------
// Streams: the same core, ending at the first error
// ---------------------------------------------------------------------------

/// Polls a stream to its end with a waker that does nothing (the inner streams
/// here are always ready).
fn collect_stream<S: futures_core::Stream + Unpin>(mut stream: S) -> Vec<S::Item> {
    let mut items = Vec::new();
    loop {
        match Pin::new(&mut stream).poll_next(&mut cx()) {
            Poll::Ready(Some(item)) => items.push(item),
            Poll::Ready(None) => return items,
            Poll::Pending => panic!("an always-ready inner stream made the adaptor pend"),
        }
    }
}

/// Cuts `bytes` into random chunks of 0 to 9 bytes.
fn chunks_of(bytes: &[u8], rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let end = (pos + rng.below(10)).min(bytes.len());
        chunks.push(bytes[pos..end].to_vec());
        pos = end;
    }
    chunks
}

#[test]
fn streams_match_the_reference_and_end_at_the_first_error() {
    let mut rng = Rng::new(0x57E4);
    for (encoding, input) in decode_inputs(&mut rng) {
        for options in DECODE_OPTIONS {
            let (text, errors) = reference_decode(encoding, options, &input);
            let chunks = chunks_of(&input, &mut rng);
            let stream = whatenc::io::DecodeStream::new(futures_util::stream::iter(chunks), encoding, options);
            let items = collect_stream(stream);
            let mut got = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item {
                    Ok(piece) => {
                        assert!(!piece.is_empty(), "no empty chunk is yielded");
                        got.extend_from_slice(piece.as_bytes());
                    }
                    Err(error) => {
                        assert_eq!(Some(&error.offset), errors.first(), "{}", encoding.name());
                        assert_eq!(i + 1, items.len(), "the stream ends after its error");
                    }
                }
            }
            let has_error = items.last().is_some_and(Result::is_err);
            assert_eq!(has_error, !errors.is_empty(), "{} {options:?} {input:02X?}", encoding.name());
            if has_error {
                assert!(text.starts_with(&got), "{} {options:?}", encoding.name());
            } else {
                assert_eq!(got, text, "{} {options:?} {input:02X?}", encoding.name());
            }
        }
    }
    // ISO-2022-JP reports U+FFFD for ESC; the error names the input's character and
    // its offset.
    let stream = whatenc::io::EncodeStream::new(
        futures_util::stream::iter(["ab", "\u{1B}c"]),
        whatenc::ISO_2022_JP,
        EncoderErrorMode::Fatal,
    )
    .unwrap();
    let items = collect_stream(stream);
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_deref().unwrap(), b"ab");
    let error = items[1].as_ref().unwrap_err();
    assert_eq!((error.character, error.offset), ('\u{1B}', 2));
}

/// `flush` writes out the text of all the input taken, bytes a decoder took back
/// after an error included (found by the `decode_writer` fuzz target: written a
/// byte at a time, the retried bad input was taken without the bytes after it being
/// decoded): ASCII after a lead byte is an error and is then decoded on its own.
#[test]
fn flush_after_an_error_writes_the_text_of_all_input_taken() {
    let mut rng = Rng::new(0xF105);
    let mut inputs: Vec<(&'static Encoding, Vec<u8>)> = vec![
        (whatenc::SHIFT_JIS, b"a\x81 b".to_vec()),
        (whatenc::EUC_KR, b"a\xB0 b".to_vec()),
        (whatenc::GB18030, b"a\x81\x30b".to_vec()),
        (whatenc::ISO_2022_JP, b"a\x1B$x".to_vec()),
        (whatenc::BIG5, b"a\x81 b".to_vec()),
        // The fuzz target's finding: a lone leading surrogate, then U+3400.
        (whatenc::UTF_16LE, b"\x34\xD8\x00\x34".to_vec()),
    ];
    inputs.extend(decode_inputs(&mut rng));
    for (encoding, input) in &inputs {
        let input = input.as_slice();
        for piece in [1, 2, 3, input.len().max(1)] {
            let mut writer = DecodeWriter::with_options(Vec::new(), encoding, fatal());
            let mut taken = 0;
            let mut errors = Vec::new();
            while taken < input.len() {
                match writer.write(&input[taken..input.len().min(taken + piece)]) {
                    Ok(n) => taken += n,
                    Err(e) => errors.push(data_error_offset(&e).expect("an error in the data")),
                }
                while let Err(e) = writer.flush() {
                    errors.push(data_error_offset(&e).expect("an error in the data"));
                }
                let mut decoder = encoding.new_decoder_with(fatal());
                let mut expected = String::new();
                let mut read = 0;
                loop {
                    expected.reserve(decoder.max_utf8_buffer_length(taken - read).unwrap());
                    let progress = decoder.decode_to_string(&input[read..taken], &mut expected, false);
                    read += progress.read;
                    if progress.result == DecoderResult::InputEmpty {
                        break;
                    }
                }
                // All the text of the input taken is out (a sequence the input cut stays
                // held), and nothing but the text of the whole input: the writer may know
                // more of the bytes taken than their decoding alone says, from bytes it
                // saw after them.
                let whole = String::from_utf8(reference_decode(encoding, fatal(), input).0).unwrap();
                let out = std::str::from_utf8(writer.get_ref()).unwrap();
                assert!(out.starts_with(&expected), "{} after {taken} bytes: {out:?}", encoding.name());
                assert!(whole.starts_with(out), "{} after {taken} bytes: {out:?}", encoding.name());
            }
            while let Err(e) = writer.finish() {
                errors.push(data_error_offset(&e).expect("an error in the data"));
            }
            assert_eq!(errors, reference_decode(encoding, fatal(), input).1, "{} by {piece}", encoding.name());
        }
    }
}

/// `new` readers decode as the standard's `decode` does, sync and async alike: a
/// BOM chooses the encoding and is removed.
#[test]
fn new_readers_sniff_the_bom_in_every_shell() {
    let input = b"\xFF\xFEh\0i\0".to_vec();
    let mut sync = DecodeReader::new(&input[..], whatenc::UTF_8);
    let mut text = String::new();
    sync.read_to_string(&mut text).unwrap();
    assert_eq!((text.as_str(), sync.encoding()), ("hi", whatenc::UTF_16LE));
    let mut reader = AsyncDecodeReader::new(Flaky::new(3, Behaviour::OneByte, input.clone()), whatenc::UTF_8);
    let got = read_all(
        |buf| block(futures_io::AsyncRead::poll_read(Pin::new(&mut reader), &mut cx(), buf)),
        &mut Rng::new(1),
    );
    assert_eq!((got, reader.encoding()), ((b"hi".to_vec(), Vec::new()), whatenc::UTF_16LE));
}
