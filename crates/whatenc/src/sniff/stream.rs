//! Streaming: a [`Sniffer`] that takes chunks until it can decide and hands over a
//! [`Decoder`]; a [`std::io::Read`] adaptor; and a one-call [`decode`].

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::determine::{
    Available, Determination, HtmlOptions, NeedMore, Step, Utf8Detector, classic_script_available, css_available,
    html_available, xml_available,
};
use super::mime::extract_a_mime_type;
use crate::decoder::{BomHandling, Decoder, DecoderOptions};
use crate::encoding::{Encoding, UTF_8};

/// What a resource is, and what is known of it: which determination applies.
///
/// ```
/// use whatenc::sniff::{Context, HtmlOptions};
/// let context = Context::Html(HtmlOptions { locale: Some("ja"), ..Default::default() });
/// assert_eq!(context.determine(b"<p>").encoding, whatenc::SHIFT_JIS);
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Context<'a> {
    /// An HTML document: [`html`](super::html).
    Html(HtmlOptions<'a>),
    /// A plain text document: [`plain_text`](super::plain_text).
    PlainText(HtmlOptions<'a>),
    /// An XML document: [`xml`](super::xml).
    Xml {
        /// The `Content-Type` header's value.
        content_type: Option<&'a [u8]>,
    },
    /// A stylesheet: [`css`](super::css).
    Css {
        /// The `Content-Type` header's value.
        content_type: Option<&'a [u8]>,
        /// The `charset` attribute of the `<link>`.
        link_charset: Option<&'a [u8]>,
        /// The referring document's (or stylesheet's) encoding.
        document_encoding: Option<&'static Encoding>,
    },
    /// A classic script: [`classic_script`](super::classic_script).
    ClassicScript {
        /// The `Content-Type` header's value.
        content_type: Option<&'a [u8]>,
        /// The `charset` attribute of the `<script>`.
        charset_attribute: Option<&'a [u8]>,
        /// The document's encoding.
        document_encoding: &'static Encoding,
    },
}

impl Context<'_> {
    /// The determination for the whole resource `bytes`.
    ///
    /// ```
    /// use whatenc::sniff::{Context, Step};
    /// let context = Context::Xml { content_type: None };
    /// assert_eq!(context.determine(b"\xFE\xFF\0<").step, Step::Bom);
    /// ```
    pub fn determine(&self, bytes: &[u8]) -> Determination {
        self.available(bytes, Available::WHOLE).unwrap_or_else(|NeedMore| unreachable!())
    }

    fn available(&self, bytes: &[u8], available: Available) -> Result<Determination, NeedMore> {
        match *self {
            Context::Html(ref options) => html_available(bytes, options, available),
            Context::PlainText(ref options) => {
                html_available(bytes, &HtmlOptions { skip_prescan: true, ..*options }, available)
            }
            Context::Xml { content_type } => xml_available(bytes, super::determine::transport(content_type), available),
            Context::Css { content_type, link_charset, document_encoding } => {
                css_available(bytes, content_type, link_charset, document_encoding, available)
            }
            Context::ClassicScript { content_type, charset_attribute, document_encoding } => {
                classic_script_available(bytes, content_type, charset_attribute, document_encoding, available)
            }
        }
    }
}

/// A streaming determination: push chunks until it decides, then take the
/// [`Sniffed`] decoder and the bytes held, and decode them first.
///
/// It decides as soon as the bytes so far settle the answer: at a BOM, with a
/// transport `charset`, at a `<meta>`, or when the prescan reaches its end
/// condition; or when told there is no more ([`Sniffer::finish`]). It holds the
/// bytes pushed until then and never more than the end condition's
/// [`max_bytes`](super::EndCondition::max_bytes) (2048 by default; 2048 for the
/// XML declaration; 1024 for `@charset`) plus one chunk. Each push re-runs the
/// determination over the bytes held, so its cost is at most that many bytes per
/// push.
///
/// ```
/// use whatenc::sniff::{Context, HtmlOptions, Sniffer, Step};
/// let mut sniffer = Sniffer::new(Context::Html(HtmlOptions::default()));
/// assert_eq!(sniffer.push(b"<meta char"), None);
/// let determination = sniffer.push(b"set=koi8-r><p>\xD0\xD2\xC9").unwrap();
/// assert_eq!((determination.encoding, determination.step), (whatenc::KOI8_R, Step::Meta { position: 0 }));
/// let mut sniffed = sniffer.into_sniffed().unwrap();
/// let mut text = String::with_capacity(64);
/// sniffed.decoder.decode_to_string(&sniffed.buffered, &mut text, false);
/// sniffed.decoder.decode_to_string(b"\xD7\xC5\xD4", &mut text, true);
/// assert_eq!(text, "<meta charset=koi8-r><p>привет");
/// ```
#[derive(Debug)]
pub struct Sniffer<'a> {
    context: Context<'a>,
    buffer: Vec<u8>,
    determination: Option<Determination>,
}

/// What a [`Sniffer`] hands over: the determination, a decoder for it (in
/// "replacement" mode, BOM sniffing so that a BOM is removed), and the bytes it
/// held, which are to be decoded before any further chunk.
///
/// ```
/// use whatenc::sniff::{Context, Sniffer};
/// let mut sniffer = Sniffer::new(Context::Xml { content_type: None });
/// sniffer.push(b"\xEF\xBB\xBF<a/>");
/// let sniffed = sniffer.into_sniffed().unwrap();
/// assert_eq!(sniffed.buffered, b"\xEF\xBB\xBF<a/>");
/// assert_eq!(sniffed.decoder.encoding(), whatenc::UTF_8);
/// ```
#[derive(Debug)]
pub struct Sniffed {
    /// The determination.
    pub determination: Determination,
    /// A decoder for the determined encoding.
    pub decoder: Decoder,
    /// The bytes pushed so far, to be decoded first.
    pub buffered: Vec<u8>,
}

impl<'a> Sniffer<'a> {
    /// A sniffer for a resource in `context`.
    ///
    /// ```
    /// let sniffer = whatenc::sniff::Sniffer::new(whatenc::sniff::Context::Xml { content_type: None });
    /// assert_eq!(sniffer.determination(), None);
    /// ```
    pub fn new(context: Context<'a>) -> Sniffer<'a> {
        Sniffer { context, buffer: Vec::new(), determination: None }
    }

    /// Adds a chunk and decides if the bytes so far are enough. Once it has
    /// decided (`Some`), take [`Sniffer::into_sniffed`]; chunks pushed after that
    /// are held too and nothing is lost, but the bound on what is held no longer
    /// applies.
    ///
    /// ```
    /// use whatenc::sniff::{Context, HtmlOptions, Sniffer, Step};
    /// let mut sniffer = Sniffer::new(Context::Html(HtmlOptions::default()));
    /// assert_eq!(sniffer.push(b"\xEF\xBB"), None);
    /// assert_eq!(sniffer.push(b"\xBF").unwrap().step, Step::Bom);
    /// ```
    pub fn push(&mut self, chunk: &[u8]) -> Option<Determination> {
        self.buffer.extend_from_slice(chunk);
        if self.determination.is_none() {
            self.determination = self.context.available(&self.buffer, Available { last: false, whole: false }).ok();
        }
        self.determination
    }

    /// Decides with the bytes pushed so far: at the end of the stream
    /// (`end_of_stream` true: they are the whole resource), or when the caller
    /// will not wait for more (false: the prescan ends where the bytes do, and a
    /// detector sees a partial input).
    ///
    /// ```
    /// use whatenc::sniff::{Context, HtmlOptions, Sniffer, Step};
    /// let mut sniffer = Sniffer::new(Context::Html(HtmlOptions::default()));
    /// sniffer.push(b"<p>short");
    /// assert_eq!(sniffer.finish(true).step, Step::Default);
    /// ```
    pub fn finish(&mut self, end_of_stream: bool) -> Determination {
        if let Some(determination) = self.determination {
            return determination;
        }
        let available = Available { last: true, whole: end_of_stream };
        let determination = self.context.available(&self.buffer, available).unwrap_or_else(|NeedMore| unreachable!());
        self.determination = Some(determination);
        determination
    }

    /// The determination, once made.
    ///
    /// ```
    /// use whatenc::sniff::{Context, Sniffer};
    /// let mut sniffer = Sniffer::new(Context::Xml { content_type: Some(b"text/xml;charset=gbk") });
    /// assert_eq!(sniffer.determination(), None);
    /// sniffer.push(b"<a");
    /// assert_eq!(sniffer.determination().unwrap().encoding, whatenc::GBK);
    /// ```
    pub fn determination(&self) -> Option<Determination> {
        self.determination
    }

    /// The bytes held so far.
    ///
    /// ```
    /// let mut sniffer = whatenc::sniff::Sniffer::new(whatenc::sniff::Context::Xml { content_type: None });
    /// sniffer.push(b"<?x");
    /// assert_eq!(sniffer.buffered(), b"<?x");
    /// ```
    pub fn buffered(&self) -> &[u8] {
        &self.buffer
    }

    /// The decoder and the bytes held, once decided (`None` before; call
    /// [`Sniffer::finish`] to decide).
    ///
    /// ```
    /// use whatenc::sniff::{Context, HtmlOptions, Sniffer};
    /// let mut sniffer = Sniffer::new(Context::Html(HtmlOptions::default()));
    /// sniffer.push(b"<p>");
    /// sniffer.finish(true);
    /// assert_eq!(sniffer.into_sniffed().unwrap().decoder.encoding(), whatenc::UTF_8);
    /// ```
    pub fn into_sniffed(self) -> Option<Sniffed> {
        let determination = self.determination?;
        let options = DecoderOptions { bom: BomHandling::Sniff, ..Default::default() };
        Some(Sniffed {
            determination,
            decoder: determination.encoding.new_decoder_with(options),
            buffered: self.buffer,
        })
    }
}

/// One call for the common case: the encoding of `bytes` (the whole resource)
/// given its `Content-Type` header's value, and the text decoded with it.
///
/// The context comes from the MIME type: an XML MIME type is [`xml`](super::xml);
/// `text/css` is [`css`](super::css); a JavaScript MIME type is a
/// [`classic_script`](super::classic_script) of a UTF-8 document; a JSON MIME type
/// is UTF-8 ("UTF-8 decode"); `text/plain` is [`plain_text`](super::plain_text);
/// anything else, or no header, is [`html`](super::html). HTML and plain text use
/// [`Utf8Detector`], as the whole input is there.
///
/// ```
/// use whatenc::sniff::{decode, Step};
/// let (text, determination) = decode(b"<meta charset=windows-1251><p>\xEF\xF0\xE8", Some(b"text/html"));
/// assert_eq!(text, "<meta charset=windows-1251><p>при");
/// assert_eq!(determination.step, Step::Meta { position: 0 });
/// let (text, determination) = decode(b"caf\xE9", Some(b"text/plain; charset=latin1"));
/// assert_eq!((&*text, determination.step), ("café", Step::Transport));
/// ```
pub fn decode<'b>(bytes: &'b [u8], content_type: Option<&[u8]>) -> (Cow<'b, str>, Determination) {
    let mime_type = content_type.and_then(|value| extract_a_mime_type(&[value]));
    let html = HtmlOptions { content_type, detector: Some(&Utf8Detector), ..Default::default() };
    let determination = match &mime_type {
        Some(mime) if mime.is_xml_mime_type() => Context::Xml { content_type }.determine(bytes),
        Some(mime) if mime.essence() == "text/css" => {
            Context::Css { content_type, link_charset: None, document_encoding: None }.determine(bytes)
        }
        Some(mime) if mime.is_javascript_mime_type() => {
            Context::ClassicScript { content_type, charset_attribute: None, document_encoding: UTF_8 }.determine(bytes)
        }
        Some(mime) if mime.is_json_mime_type() => {
            let step = if bytes.starts_with(b"\xEF\xBB\xBF") { Step::Bom } else { Step::Default };
            return (
                crate::hooks::utf8_decode(bytes),
                Determination { encoding: UTF_8, confidence: super::Confidence::Certain, step },
            );
        }
        Some(mime) if mime.essence() == "text/plain" => Context::PlainText(html).determine(bytes),
        _ => Context::Html(html).determine(bytes),
    };
    let (text, _) = crate::hooks::decode(bytes, determination.encoding);
    (text, determination)
}

#[cfg(feature = "std")]
pub use self::reader::SniffReader;

#[cfg(feature = "std")]
mod reader {
    use alloc::vec::Vec;
    use std::io::{self, BufRead, Chain, Cursor, Read};

    use super::{Context, Determination, Sniffed, Sniffer};
    use crate::io::DecodeReader;

    /// A reader of UTF-8 text from a reader of bytes in an encoding to be
    /// determined: it reads until a [`Sniffer`] decides (at most the prescan's
    /// bytes plus one read of 8 KB), then decodes everything from the first byte.
    ///
    /// ```
    /// use std::io::Read;
    /// use whatenc::sniff::{Context, HtmlOptions, SniffReader, Step};
    /// let page = &b"<meta charset=shift_jis><p>\x82\xa0"[..];
    /// let mut reader = SniffReader::new(page, Context::Html(HtmlOptions::default())).unwrap();
    /// assert_eq!(reader.determination().step, Step::Meta { position: 0 });
    /// let mut text = String::new();
    /// reader.read_to_string(&mut text).unwrap();
    /// assert_eq!(text, "<meta charset=shift_jis><p>あ");
    /// ```
    #[derive(Debug)]
    pub struct SniffReader<R> {
        reader: DecodeReader<Chain<Cursor<Vec<u8>>, R>>,
        determination: Determination,
    }

    impl<R: Read> SniffReader<R> {
        /// Reads from `inner` until the determination for `context` is made (or the
        /// end of the stream), and returns the reader that decodes it. Errors of
        /// `inner` other than [`io::ErrorKind::Interrupted`] are returned.
        ///
        /// ```
        /// use whatenc::sniff::{Context, SniffReader};
        /// let reader = SniffReader::new(&b"\xFF\xFEa\0"[..], Context::Xml { content_type: None }).unwrap();
        /// assert_eq!(reader.determination().encoding, whatenc::UTF_16LE);
        /// ```
        pub fn new(mut inner: R, context: Context<'_>) -> io::Result<SniffReader<R>> {
            let mut sniffer = Sniffer::new(context);
            let mut chunk = [0u8; 8192];
            loop {
                let read = match inner.read(&mut chunk) {
                    Ok(read) => read,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => return Err(error),
                };
                if read == 0 {
                    sniffer.finish(true);
                    break;
                }
                if sniffer.push(&chunk[..read]).is_some() {
                    break;
                }
            }
            let Some(Sniffed { determination, decoder, buffered }) = sniffer.into_sniffed() else {
                unreachable!("the sniffer has decided")
            };
            let reader = DecodeReader::with_options(
                Cursor::new(buffered).chain(inner),
                determination.encoding,
                decoder.options(),
            );
            Ok(SniffReader { reader, determination })
        }
    }

    impl<R> SniffReader<R> {
        /// The determination.
        ///
        /// ```
        /// use whatenc::sniff::{Context, SniffReader, Step};
        /// let reader = SniffReader::new(&b"<a/>"[..], Context::Xml { content_type: None }).unwrap();
        /// assert_eq!(reader.determination().step, Step::Default);
        /// ```
        pub fn determination(&self) -> Determination {
            self.determination
        }
    }

    impl<R: Read> Read for SniffReader<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.reader.read(buf)
        }
    }

    impl<R: Read> BufRead for SniffReader<R> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            self.reader.fill_buf()
        }

        fn consume(&mut self, amount: usize) {
            self.reader.consume(amount)
        }
    }
}
