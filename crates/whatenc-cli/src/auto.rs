//! Encoding determination for `whatenc sniff` and `-f auto`: the library's
//! streaming [`Sniffer`] over an input, in the context (HTML, XML, CSS, plain
//! text) that `--as`, `--content-type` or the file's extension gives.
//!
//! The input is read in chunks of [`SNIFF_READ_SIZE`] until the sniffer decides, so
//! at most the prescan's bytes (2048) plus one chunk are held. A named file's first
//! chunk is read full: a file that ends within it is determined whole (the
//! detector then sees all of it); standard input is pushed as it arrives, so that a
//! slow pipe is not waited for. Then the bytes read
//! are handed back in front of the rest of the input ([`Input::Prefixed`]), so that
//! the decoder sees every byte once, from the first. `sniff` and `-f auto` share
//! this, so `sniff` says exactly what `-f auto` will decode with.

use std::path::Path;

use whatenc::Encoding;
use whatenc::detect::DetectOptions;
use whatenc::sniff::{Confidence, Context, Detector, Determination, HtmlOptions, Sniffer, Step};

use crate::Failure;
use crate::cli::{DetermineArgs, ResourceKind};
use crate::files::{Input, InputSpec, read_some};

/// The size of each read while determining, and how much of a named file is read
/// before the determination: a file no longer than this is determined whole, so
/// that the detector sees all of it.
pub const SNIFF_READ_SIZE: usize = 64 * 1024;

/// The detector of HTML's step 8 for files: whatenc's statistical detector, with
/// UTF-8 allowed (valid non-ASCII UTF-8 wins) and ISO-2022-JP allowed; the user's
/// `--locale`, when given, favours its encodings.
fn file_detector(locale: Option<&str>) -> &'static (dyn Detector + Sync) {
    let locale: Option<&'static str> = locale.map(|l| &*Box::leak(l.trim().to_string().into_boxed_str()));
    // One per run of the command, for the whole run.
    Box::leak(Box::new(DetectOptions { locale, ..DetectOptions::default() }))
}

/// Whether a `-f` value asks for the determination rather than naming a label.
pub fn is_auto(from: &str) -> bool {
    from.trim().eq_ignore_ascii_case("auto")
}

/// The determiner for `-f FROM` of `convert` and `check`: `Some` for `-f auto`;
/// usage errors for `--as`, `--content-type` or `--locale` without it, and for
/// `--no-bom-sniff` with it (a BOM is the determination's first step).
pub fn for_from(
    from: &str,
    args: &DetermineArgs,
    no_bom_sniff: bool,
    quiet: bool,
) -> Result<Option<Determiner>, Failure> {
    if !is_auto(from) {
        if args.any() {
            return Err(Failure::Usage("--as, --content-type and --locale need -f auto".into()));
        }
        return Ok(None);
    }
    if no_bom_sniff {
        return Err(Failure::Usage(
            "--no-bom-sniff cannot be combined with -f auto: a BOM is the first step of the determination".into(),
        ));
    }
    Determiner::new(args, quiet).map(Some)
}

/// The room a decoder may need for the text of `len` bytes in any encoding.
pub fn max_text_len(len: usize) -> usize {
    Encoding::all().iter().filter_map(|e| e.new_decoder().max_utf8_buffer_length(len)).max().unwrap_or(len * 4)
}

/// Everything the command line says about how to determine the inputs' encodings.
pub struct Determiner {
    /// `--as`.
    kind: Option<ResourceKind>,
    /// The kind `--content-type`'s MIME type says, if it says one.
    mime_kind: Option<ResourceKind>,
    /// `--content-type`, as bytes.
    content_type: Option<Vec<u8>>,
    /// `--locale`.
    locale: Option<String>,
    /// The detector for HTML and plain text.
    detector: &'static (dyn Detector + Sync),
}

/// An input whose encoding is determined.
pub struct Determined {
    /// The determination.
    pub determination: Determination,
    /// The context it was made in.
    pub kind: ResourceKind,
    /// The input, from its first byte.
    pub input: Input,
}

impl Determiner {
    /// The determiner for the options; a usage error if `--content-type` is not a
    /// MIME type or `--locale` is empty. A `charset` that names no encoding is
    /// ignored, as a browser does, with a warning unless `quiet`.
    pub fn new(args: &DetermineArgs, quiet: bool) -> Result<Determiner, Failure> {
        Determiner::with_detector(args, quiet, file_detector(args.locale.as_deref()))
    }

    /// [`Determiner::new`] with `detector` as HTML's step 8 for html and text (any
    /// [`Detector`]: a statistical one plugs in here).
    pub fn with_detector(
        args: &DetermineArgs,
        quiet: bool,
        detector: &'static (dyn Detector + Sync),
    ) -> Result<Determiner, Failure> {
        let mut mime_kind = None;
        if let Some(value) = &args.content_type {
            let Some(mime) = whatenc::sniff::extract_a_mime_type(&[value.as_bytes()]) else {
                return Err(Failure::Usage(format!(
                    "--content-type '{value}' is not a MIME type (such as 'text/html; charset=shift_jis')"
                )));
            };
            if let Some(charset) = mime.parameter("charset")
                && Encoding::for_label_str(charset).is_none()
                && !quiet
            {
                crate::note(&format!(
                    "warning: --content-type charset '{charset}' is not a label of the Encoding Standard; \
                     ignored, as a browser does"
                ));
            }
            let essence = mime.essence();
            mime_kind = if mime.is_html_mime_type() {
                Some(ResourceKind::Html)
            } else if mime.is_xml_mime_type() {
                Some(ResourceKind::Xml)
            } else if essence == "text/css" {
                Some(ResourceKind::Css)
            } else if essence == "text/plain" {
                Some(ResourceKind::Text)
            } else {
                None
            };
        }
        if args.locale.as_deref().is_some_and(|l| l.trim().is_empty()) {
            return Err(Failure::Usage("--locale needs a BCP 47 tag, such as ja or zh-TW".into()));
        }
        Ok(Determiner {
            kind: args.kind,
            mime_kind,
            content_type: args.content_type.as_ref().map(|v| v.as_bytes().to_vec()),
            locale: args.locale.as_ref().map(|l| l.trim().to_string()),
            detector,
        })
    }

    /// The kind of the input at `path` (`None`: standard input): `--as`, else
    /// `--content-type`'s MIME type, else the extension, else text.
    pub fn kind(&self, path: Option<&Path>) -> ResourceKind {
        self.kind.or(self.mime_kind).or_else(|| path.and_then(kind_of_path)).unwrap_or(ResourceKind::Text)
    }

    /// The library's context for `kind`.
    fn context(&self, kind: ResourceKind) -> Context<'_> {
        let content_type = self.content_type.as_deref();
        let html = HtmlOptions {
            content_type,
            detector: Some(self.detector),
            locale: self.locale.as_deref(),
            ..Default::default()
        };
        match kind {
            ResourceKind::Html => Context::Html(html),
            ResourceKind::Text => Context::PlainText(html),
            ResourceKind::Xml => Context::Xml { content_type },
            ResourceKind::Css => Context::Css { content_type, link_charset: None, document_encoding: None },
        }
    }

    /// Reads `spec` until its encoding is determined, and gives back the input to
    /// decode from its first byte.
    pub fn determine(&self, spec: &InputSpec) -> Result<Determined, Failure> {
        let kind = self.kind(spec.path.as_deref());
        let mut reader = spec.open()?;
        let context = self.context(kind);
        let mut chunk = vec![0u8; SNIFF_READ_SIZE];
        let mut sniffer = Sniffer::new(context);
        if spec.path.is_some() {
            let filled = fill(&mut reader, &mut chunk, spec)?;
            if filled < chunk.len() {
                chunk.truncate(filled);
                let determination = context.determine(&chunk);
                let input = Input::Prefixed { head: std::io::Cursor::new(chunk), rest: None };
                return Ok(Determined { determination, kind, input });
            }
            sniffer.push(&chunk);
        }
        let mut ended = false;
        let determination = loop {
            if let Some(determination) = sniffer.determination() {
                break determination;
            }
            let n = read_some(&mut reader, &mut chunk, spec)?;
            if n == 0 {
                ended = true;
                break sniffer.finish(true);
            }
            sniffer.push(&chunk[..n]);
        };
        let Some(sniffed) = sniffer.into_sniffed() else { unreachable!("the sniffer has decided") };
        let rest = (!ended).then(|| Box::new(reader));
        let input = Input::Prefixed { head: std::io::Cursor::new(sniffed.buffered), rest };
        Ok(Determined { determination, kind, input })
    }
}

/// Reads into `buf` until it is full or the input ends; returns how much was read.
fn fill(reader: &mut Input, buf: &mut [u8], spec: &InputSpec) -> Result<usize, Failure> {
    let mut filled = 0;
    while filled < buf.len() {
        match read_some(reader, &mut buf[filled..], spec)? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// The kind that a file's extension says, if any.
fn kind_of_path(path: &Path) -> Option<ResourceKind> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "html" | "htm" => Some(ResourceKind::Html),
        "xhtml" | "xht" | "xml" | "svg" => Some(ResourceKind::Xml),
        "css" => Some(ResourceKind::Css),
        _ => None,
    }
}

/// The name of a kind, as `--as` spells it.
pub fn kind_name(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Html => "html",
        ResourceKind::Xml => "xml",
        ResourceKind::Css => "css",
        ResourceKind::Text => "text",
    }
}

/// The bytes of the byte order mark of `encoding`, in hex, as `EF BB BF`.
fn bom_hex(encoding: &'static Encoding) -> &'static str {
    if encoding == whatenc::UTF_8 {
        "EF BB BF"
    } else if encoding == whatenc::UTF_16BE {
        "FE FF"
    } else {
        "FF FE"
    }
}

/// The confidence, as a word.
fn confidence_name(confidence: Confidence) -> &'static str {
    match confidence {
        Confidence::Tentative => "tentative",
        Confidence::Certain => "certain",
    }
}

/// Why: the step that decided, as the library says it, with a BOM's bytes.
pub fn reason(determination: &Determination) -> String {
    match determination.step {
        Step::Bom => format!("BOM {}", bom_hex(determination.encoding)),
        step => step.to_string(),
    }
}

/// `Shift_JIS (tentative, <meta> at byte 211)`; a BOM with its bytes:
/// `UTF-16LE (certain, BOM FF FE)`.
pub fn describe(determination: &Determination) -> String {
    format!(
        "{} ({}, {})",
        determination.encoding.name(),
        confidence_name(determination.confidence),
        reason(determination)
    )
}

/// A stable, machine-readable name for a step.
fn step_id(step: Step) -> &'static str {
    match step {
        Step::Bom => "bom",
        Step::Override => "override",
        Step::Transport => "transport",
        Step::Meta { .. } => "meta",
        Step::XmlDeclaration => "xml-declaration",
        Step::Utf16XmlDeclaration => "utf-16-xml-declaration",
        Step::CharsetRule => "charset-rule",
        Step::CharsetAttribute => "charset-attribute",
        Step::Environment => "environment",
        Step::Parent => "parent",
        Step::History => "history",
        Step::Detector => "detector",
        Step::LocaleDefault => "locale-default",
        Step::Default => "default",
    }
}

/// The JSON object for one input, on one line.
pub fn json(name: &str, determined: &Determined) -> String {
    let determination = &determined.determination;
    let position = match determination.step {
        Step::Meta { position } => position.to_string(),
        _ => "null".into(),
    };
    let bom = match determination.step {
        Step::Bom => json_string(bom_hex(determination.encoding)),
        _ => "null".into(),
    };
    format!(
        "{{\"file\": {}, \"context\": \"{}\", \"encoding\": {}, \"confidence\": \"{}\", \"step\": \"{}\", \
         \"position\": {position}, \"bom\": {bom}, \"reason\": {}}}",
        json_string(name),
        kind_name(determined.kind),
        json_string(determination.encoding.name()),
        confidence_name(determination.confidence),
        step_id(determination.step),
        json_string(&reason(determination)),
    )
}

/// A JSON string literal: `"` and `\` escaped, control characters as `\uXXXX`.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7F}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
