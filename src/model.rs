//! Core data types shared by every stage: text [`Block`]s (the unit every extractor labels),
//! their [`Label`]s, output [`Paragraph`]s and the corpus [`Record`].

use ego_tree::NodeId;
use serde::{Deserialize, Serialize};

/// A page's type as the classifier sees it: the corpus field `page_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageType {
    /// A news article or a blog post: one text written as a whole.
    Article,
    /// Anything else: listings, front pages, forums, products, services, documentation,
    /// legal pages.
    Other,
}

impl PageType {
    /// `"article"` or `"other"`.
    pub fn name(self) -> &'static str {
        match self {
            PageType::Article => "article",
            PageType::Other => "other",
        }
    }
}

impl std::str::FromStr for PageType {
    type Err = String;

    /// `article` or `other`, ASCII case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "article" => Ok(PageType::Article),
            "other" => Ok(PageType::Other),
            _ => Err(format!("unknown page type {s:?} (expected article or other)")),
        }
    }
}

/// A block's class. jusText's classes (Pomikálek 2011, §3.2); every other extractor maps
/// onto them. Only [`Label::Good`] blocks reach the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// Main content.
    Good,
    /// Probably main content; resolved to Good or Bad by context.
    NearGood,
    /// Too short to judge alone; resolved by context.
    Short,
    /// Boilerplate.
    Bad,
}

impl Label {
    /// True for blocks that go to the corpus.
    pub fn is_good(self) -> bool {
        self == Label::Good
    }
}

/// The kind of a paragraph in the output, from the block-level tag that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParagraphKind {
    /// `h1`–`h6`.
    Heading,
    /// Any other block (p, div, td, blockquote, pre, ...).
    Paragraph,
    /// `li`, `dd`, `dt`.
    ListItem,
}

/// A text block: a run of text between block-level tags (jusText's paragraph, Boilerpipe's
/// text block). Every extractor labels the same `Vec<Block>`, so their outputs line up.
#[derive(Debug, Clone)]
pub struct Block {
    /// Text with whitespace collapsed to single spaces, trimmed. Never empty.
    pub text: String,
    /// Heading, paragraph or list item.
    pub kind: ParagraphKind,
    /// Tag names from the root to the block element, joined by `.` (jusText's `dom_path`).
    pub dom_path: String,
    /// The nearest block-level element that contains this block.
    pub element: NodeId,
    /// The DOM text nodes that make up `text`, in document order.
    pub text_nodes: Vec<NodeId>,
    /// Characters of `text` (Unicode scalar values).
    pub chars: usize,
    /// Characters of `text` that sit inside links ([`crate::html::is_link`]), except a heading's
    /// permalink to itself or to its section ([`crate::html::segment()`]).
    pub link_chars: usize,
    /// Words of `text` ([`crate::html::count_words`]: whitespace-separated tokens, each Chinese
    /// or Japanese character one word).
    pub words: usize,
    /// True when the block is inside `h1`–`h6` (jusText's `heading`).
    pub heading: bool,
}

impl Block {
    /// Share of characters inside links, 0.0–1.0 (jusText link density, Boilerpipe §4.2).
    pub fn link_density(&self) -> f64 {
        if self.chars == 0 {
            0.0
        } else {
            self.link_chars as f64 / self.chars as f64
        }
    }
}

/// One output paragraph of a record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paragraph {
    /// Heading, paragraph or list item.
    pub kind: ParagraphKind,
    /// The paragraph text, whitespace collapsed.
    pub text: String,
}

/// One corpus document: a JSONL line. Field names are the corpus format; see `docs/corpus.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// A stable id: xxh3-128 of `final_url` in 32 hex digits ([`record_id`]). A page fetched
    /// again (`crawl --refresh`) and changed gives a new record with the same id.
    #[serde(default)]
    pub id: String,
    /// The URL the crawler requested (normalised). Absent for a local file (`extract`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// The URL after redirects. Absent for a local file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub final_url: String,
    /// Host of `url`. Absent for a local file.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub host: String,
    /// `<title>` of the page, if any.
    pub title: Option<String>,
    /// The page's headline, its main heading above the main text, when the extractor found
    /// one ([`crate::extract::headline::headline_block`]); not part of `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<String>,
    /// RFC 3339 time of the fetch, UTC (`extract`: the `WARC-Date`; absent for a local file).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub fetched_at: String,
    /// The final HTTP status (a 2xx; absent for local files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The response's `Content-Type` header as sent (absent for local files or when not sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Publication date `YYYY-MM-DD` when the page states it (JSON-LD, `<meta>`, `<time>`;
    /// [`crate::html::meta`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Author when the page states it, several joined by `"; "`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Stoplist language used for jusText (e.g. "English"), or null.
    pub language: Option<String>,
    /// The language of `text` (ISO 639-1, e.g. `en`, `ja`;
    /// [`crate::extract::stoplist::document_language`]), absent when none is detected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The language detector's confidence in `lang`, 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang_score: Option<f32>,
    /// Name of the extractor that produced the text (e.g. "goldminer").
    pub extractor: String,
    /// Paragraph texts joined by blank lines.
    pub text: String,
    /// Words of `text`: tokens with a letter or digit ([`crate::write::tokenize::word_count`];
    /// Chinese and Japanese segmented into words). 0 in records written before it existed.
    #[serde(default)]
    pub word_count: u64,
    /// The paragraphs with their kinds, in memory. Not written to JSONL (their text is `text`
    /// split at blank lines, their kinds `paragraph_kinds`): [`Record::from_json`] restores
    /// them. Read when present (corpora written before `paragraph_kinds`).
    #[serde(default, skip_serializing)]
    pub paragraphs: Vec<Paragraph>,
    /// The kind of each paragraph of `text`, in order (`text.split("\n\n")` gives their text).
    #[serde(default)]
    pub paragraph_kinds: Vec<ParagraphKind>,
    /// The text of the page's comment section, paragraphs joined by blank lines, when asked
    /// for (`--comments`, `[extract] comments`) and found; never part of `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comments: Option<String>,
    /// `"article"` or `"other"`, from the page classifier ([`crate::classify`]); absent in
    /// records written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_type: Option<PageType>,
    /// The classifier's probability that the page is an article, 0–1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_type_prob: Option<f32>,
    /// `WARC-Record-ID` of the page's `response` record in the crawl's WARC output (absent
    /// without WARC output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc_record_id: Option<String>,
    /// The WARC file holding that record, a name inside `<out_dir>/warc/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc_file: Option<String>,
    /// Byte offset of that record's gzip member in `warc_file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc_offset: Option<u64>,
}

impl Record {
    /// Parse one JSONL line of a corpus and restore `paragraphs` from `text` and
    /// `paragraph_kinds` (or `paragraph_kinds` from the `paragraphs` of an older corpus).
    ///
    /// # Errors
    /// serde_json's, when the line is not a record.
    pub fn from_json(line: &str) -> Result<Record, serde_json::Error> {
        let mut r: Record = serde_json::from_str(line)?;
        if r.paragraphs.is_empty() && !r.text.is_empty() {
            let texts: Vec<&str> = r.text.split("\n\n").collect();
            let kinds = (texts.len() == r.paragraph_kinds.len()).then_some(&r.paragraph_kinds);
            r.paragraphs = texts
                .iter()
                .enumerate()
                .map(|(i, t)| Paragraph { kind: kinds.map_or(ParagraphKind::Paragraph, |k| k[i]), text: t.to_string() })
                .collect();
        }
        if r.paragraph_kinds.is_empty() {
            r.paragraph_kinds = r.paragraphs.iter().map(|p| p.kind).collect();
        }
        Ok(r)
    }
}

/// The [`Record::id`] of a page whose URL after redirects is `final_url`.
pub fn record_id(final_url: &str) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(final_url.as_bytes()))
}

/// Join paragraph texts by a blank line, the corpus's `text` field.
pub fn join_paragraphs(paragraphs: &[Paragraph]) -> String {
    let mut out = String::new();
    for (i, p) in paragraphs.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&p.text);
    }
    out
}
