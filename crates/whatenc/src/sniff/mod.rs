//! Encoding determination: which encoding a resource is in, for every context the
//! web defines, exact to the standards, with which step decided.
//!
//! The web answers "which encoding?" in one order per context: a BOM; a user's
//! override; the transport's `charset`; a declaration in the bytes (the HTML
//! `<meta>` prescan and XML declaration, the XML declaration of XML documents,
//! CSS `@charset`); the environment (`<script charset>`, `<link charset>`, the
//! document); a same-origin parent document or history; a detector; the locale's
//! default; UTF-8.
//!
//! ```
//! use whatenc::sniff::{html, Confidence, HtmlOptions, Step};
//! let determination = html(b"<!doctype html><meta charset=\"Shift_JIS\">", &HtmlOptions::default());
//! assert_eq!(determination.encoding, whatenc::SHIFT_JIS);
//! assert_eq!(determination.confidence, Confidence::Tentative);
//! assert_eq!(determination.step, Step::Meta { position: 15 });
//! assert_eq!(determination.to_string(), "Shift_JIS (tentative, <meta> at byte 15)");
//! ```
//!
//! # What is here
//!
//! - The primitives, named as the standards name them: [`prescan()`] (HTML's
//!   "prescan a byte stream to determine its encoding") with its
//!   [`EndCondition`], its UTF-16 `<?x` rule
//!   ([`prescan_for_utf_16_xml_declarations`]), [`get_an_attribute`], [`get_an_xml_encoding`],
//!   [`extract_a_character_encoding_from_a_meta_element`], the HTML locale table
//!   ([`locale_default_encoding`]); MIME Sniffing's [`MimeType`] (parse,
//!   serialize, predicates) and Fetch's [`collect_an_http_quoted_string`],
//!   [`get_decode_and_split`], [`extract_a_mime_type`] and
//!   [`legacy_extract_an_encoding`]. Infra's isomorphic decode and encode are in
//!   [`hooks`](crate::hooks).
//! - One determination per context, each returning a [`Determination`]:
//!   [`html`] (navigation, every input in [`HtmlOptions`]), [`plain_text`],
//!   [`xml`], [`css`] (and [`determine_the_fallback_encoding`]),
//!   [`classic_script`], and XHR's [`xhr_document_response`] and
//!   [`xhr_text_response`]. Module scripts, workers and JSON are "UTF-8 decode"
//!   ([`hooks::utf8_decode`](crate::hooks::utf8_decode)): no sniffing.
//! - The detector step as the [`Detector`] trait, with [`Utf8Detector`], the
//!   standard's note: valid UTF-8 that is not ASCII is UTF-8 when the whole input
//!   is there.
//! - [`change_the_encoding`], for a parser that meets a `<meta>` while tentative.
//! - Streaming: [`Sniffer`] hands over a [`Decoder`](crate::Decoder) and the bytes
//!   it held; `SniffReader` (with `std`) does it for a reader; [`decode`] is one
//!   call from bytes and a `Content-Type` to text.
//!
//! # Choices where the standards leave room
//!
//! - **The prescan's end condition.** The default,
//!   [`EndCondition::Observed`], is what Firefox and Chromium both do: a `<` is
//!   looked for in the first 1024 bytes, but a `<meta>` whose `<` is there is read
//!   to its end, and an XML declaration at byte 0 to its `>`, even past byte 1024;
//!   to bound memory, not past 2048 bytes in all. [`EndCondition::Strict`] sees
//!   exactly the first N bytes.
//! - **Get an XML encoding** bounds its search by `xmlDeclarationEnd`, which the
//!   text computes and never uses (whatwg/html issue #6939), as Blink and WebKit
//!   do: `<?xml version="1.0"?><x encoding="gbk">` has no encoding.
//! - **XML documents** (outside HTML; whatwg/html issue #12968): BOM, transport,
//!   UTF-16 from `<?` without a BOM (XML 1.0 Appendix F), the declaration's
//!   `encoding` as "get an XML encoding" reads it, UTF-8.
//! - **Plain text** is the HTML algorithm without the prescan.
//! - **The default** without a locale is UTF-8 (the text suggests it "in controlled
//!   environments"); with one, the locale table, looked up as RFC 4647 "lookup".
//! - **A BOM** is reported first in every context, as the decode that follows
//!   gives it precedence, even where a standard's own steps start elsewhere
//!   (CSS's fallback, classic scripts, XHR).
//! - **Step 7 (history)** is consulted only when there is no parent document: the
//!   text's "Otherwise" follows "If … container document is non-null".
//!
//! # Where browsers differ from the text (the text is followed)
//!
//! - Blink and WebKit prescan with their real tokenizer: they ignore a `<meta>`
//!   inside `<script>` or `<style>`, or after `<body>` (whatwg/html issues #6962,
//!   #5913). The text and this do not: `<script>"<meta charset=gbk>"</script>`
//!   declares GBK here.
//! - Real tokenizers end a comment at `--!>` too; the prescan's rule ends one only
//!   at `-->`, so `<!-- --!><meta charset=gbk>` declares nothing here.
//!
//! # Bad input
//!
//! Every function takes any bytes (truncated tags, megabytes without a `>`, NULs,
//! labels of any length) and never panics. The prescan allocates nothing: an
//! attribute is a pair of slices of the input, compared ASCII
//! case-insensitively, so there is no attribute buffer at all (the bound is zero
//! bytes); the attribute list is three bits, for the only three names that count.
//! MIME parsing allocates per value, not per byte.

mod determine;
mod locale;
mod mime;
mod prescan;
mod stream;

pub use determine::{
    Confidence, Detector, Determination, EncodingChange, HtmlOptions, ParentDocument, Step, Utf8Detector,
    change_the_encoding, classic_script, css, css_environment_encoding, determine_the_fallback_encoding, html,
    plain_text, script_element_encoding, xhr_document_response, xhr_final_encoding, xhr_text_response, xml,
};
pub use locale::locale_default_encoding;
pub use mime::{
    MimeType, collect_an_http_quoted_string, extract_a_mime_type, get_decode_and_split,
    javascript_mime_type_essence_match, legacy_extract_an_encoding,
};
pub use prescan::{
    Attribute, DEFAULT_LIMIT, DEFAULT_OVERRUN, EndCondition, GetAttribute, PrescanSource, PrescanStatus, Prescanned,
    extract_a_character_encoding_from_a_meta_element, get_an_attribute, get_an_xml_encoding, prescan,
    prescan_available, prescan_for_utf_16_xml_declarations,
};
#[cfg(feature = "std")]
pub use stream::SniffReader;
pub use stream::{Context, Sniffed, Sniffer, decode};
