//! HTML input: bytes to text ([`decode`]), text to a parsed [`Document`], and the document to
//! text [`Block`](crate::model::Block)s ([`segment`]). Every page is decoded once and parsed once.

pub mod decode;
pub mod links;
pub mod prune;
pub mod segment;
pub mod walk;

pub use decode::{decode_html, Decoded};
pub use segment::segment;

use scraper::{Html, Selector};
use std::sync::OnceLock;

/// A parsed page. Wraps scraper's [`Html`] (html5ever), which is not `Send`: parse and extract
/// on the same thread.
pub struct Document {
    /// The DOM.
    pub html: Html,
    /// The `<title>` text, whitespace collapsed, if present and non-empty.
    pub title: Option<String>,
}

impl Document {
    /// Parse decoded HTML text, script and style bodies emptied first ([`prune::strip_raw_text`]).
    /// Never fails: html5ever repairs any input.
    pub fn parse(text: &str) -> Document {
        let html = Html::parse_document(&prune::strip_raw_text(text));
        static TITLE: OnceLock<Selector> = OnceLock::new();
        let sel = TITLE.get_or_init(|| Selector::parse("title").expect("valid selector"));
        let title = html
            .select(sel)
            .next()
            .map(|t| collapse_whitespace(&t.text().collect::<String>()))
            .filter(|t| !t.is_empty());
        Document { html, title }
    }
}

/// Collapse runs of Unicode whitespace to one space and trim.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}
