//! GoldMiner's view of a page's HTML: the [`TokenStream`] of normalised start tags, end tags
//! and text markers in which begin/end patterns are learned and matched (Endrédy & Novák 2013,
//! §III.B: "GoldMiner stores html patterns preceding and following green paragraphs").

use crate::html::walk::{pruned_edges, VOID_TAGS};
use crate::html::Document;
use crate::model::Block;
use ego_tree::iter::Edge;
use ego_tree::NodeId;
use rustc_hash::FxHashMap;
use scraper::node::Element;
use scraper::Node;
use std::borrow::Cow;
use std::rc::Rc;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// A page's tag token stream, in document order, from the DOM (not the raw HTML, so it is
/// independent of source formatting):
///
/// * a start tag gives `<name attrs>`: lower-case name, then only the `class` and `id`
///   attributes, in that order; class names sorted and deduplicated; each run of ASCII digits in
///   a value masked as `#` so per-page ids (`post-1234`) do not make patterns unique to a page;
/// * an end tag gives `</name>` (none for void elements such as `br`, `img`);
/// * each non-blank text node gives the block marker `#text`.
///
/// Elements whose content the segmenter skips (script, style, head, ...) give their start and
/// end tags only. Comments and doctypes give nothing.
#[derive(Debug, Clone, Default)]
pub struct TokenStream {
    /// xxh3 of each token, for matching.
    pub ids: Vec<u64>,
    /// The text of each distinct token, by its id ([`TokenStream::token`]): a page has a few
    /// hundred distinct tokens among its thousands.
    texts: rustc_hash::FxHashMap<u64, String>,
    /// Token index of the `#text` marker of each non-blank text node.
    pub text_pos: FxHashMap<NodeId, usize>,
    /// Token index of each element's start tag.
    pub open_pos: FxHashMap<NodeId, usize>,
    /// Token index of each element's end tag (its start tag for void elements).
    pub close_pos: FxHashMap<NodeId, usize>,
}

/// How often each token sequence of a page occurs, keyed by [`seq_key`] (the values are xxh3
/// hashes already, so the map hashes them with Fx, not SipHash).
pub(super) type NgramCounts = FxHashMap<u64, u32>;

/// The [`NgramCounts`] of a document's token stream, per longest sequence length asked for,
/// kept on the [`Document`] ([`Document::derived`]): a host's model and the two fold models of
/// its held-out check count the same sample pages.
#[derive(Default)]
struct KeptCounts(std::cell::RefCell<Vec<(usize, Rc<NgramCounts>)>>);

/// The token of a non-blank text node.
pub(super) const TEXT_MARKER: &str = "#text";

impl TokenStream {
    /// The token stream of a parsed page, tokenised once per document and shared by learning,
    /// its held-out check and the page's extraction ([`Document::derived`]).
    pub fn of(doc: &Document) -> std::rc::Rc<TokenStream> {
        doc.derived(TokenStream::new)
    }

    /// Tokenise a parsed page.
    pub fn new(doc: &Document) -> TokenStream {
        let mut ts = TokenStream::default();
        // Each token is written here, then hashed; its text is kept once per distinct token.
        let mut token = String::new();
        // A skipped element (script, style, ...) gives its start and end tags only.
        let prune = |n: ego_tree::NodeRef<'_, Node>| n.value().as_element().is_some_and(|el| doc.skips(el.name()));
        for edge in pruned_edges(doc.html.tree.root(), prune) {
            match edge {
                Edge::Open(node) => match node.value() {
                    Node::Element(el) => {
                        ts.open_pos.insert(node.id(), ts.ids.len());
                        token.clear();
                        push_start_signature(&mut token, el);
                        ts.push(&token);
                    }
                    Node::Text(t) if !t.trim().is_empty() => {
                        ts.text_pos.insert(node.id(), ts.ids.len());
                        ts.push(TEXT_MARKER);
                    }
                    _ => {}
                },
                Edge::Close(node) => {
                    if let Node::Element(el) = node.value() {
                        if VOID_TAGS.contains(&el.name()) {
                            ts.close_pos.insert(node.id(), ts.ids.len().saturating_sub(1));
                        } else {
                            ts.close_pos.insert(node.id(), ts.ids.len());
                            token.clear();
                            token.push_str("</");
                            token.push_str(el.name());
                            token.push('>');
                            ts.push(&token);
                        }
                    }
                }
            }
        }
        ts
    }

    fn push(&mut self, token: &str) {
        let id = xxh3_64(token.as_bytes());
        self.ids.push(id);
        self.texts.entry(id).or_insert_with(|| token.to_string());
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True for a page without tokens.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The text of token `i` (`<div class="a">`, `</div>`, `#text`); `None` past the end.
    pub fn token(&self, i: usize) -> Option<&str> {
        self.ids.get(i).and_then(|id| self.texts.get(id)).map(String::as_str)
    }

    /// Index of the first occurrence of `pattern` starting at or after `from`.
    pub fn find(&self, pattern: &[u64], from: usize) -> Option<usize> {
        if pattern.is_empty() || from > self.ids.len() {
            return None;
        }
        self.ids[from..].windows(pattern.len()).position(|w| w == pattern).map(|p| p + from)
    }

    /// Token index of a block's first text node.
    pub fn block_start(&self, block: &Block) -> Option<usize> {
        block.text_nodes.iter().find_map(|id| self.text_pos.get(id).copied())
    }

    /// Token index of a block's last text node.
    pub fn block_end(&self, block: &Block) -> Option<usize> {
        block.text_nodes.iter().rev().find_map(|id| self.text_pos.get(id).copied())
    }

    /// How often each token sequence of 1..=`max_len` tokens occurs, keyed by [`seq_key`].
    pub(super) fn ngram_counts(&self, max_len: usize) -> NgramCounts {
        let mut counts = NgramCounts::with_capacity_and_hasher(self.ids.len() * max_len, Default::default());
        for start in 0..self.ids.len() {
            for len in 1..=max_len.min(self.ids.len() - start) {
                *counts.entry(seq_key(&self.ids[start..start + len])).or_default() += 1;
            }
        }
        counts
    }
}

/// [`TokenStream::ngram_counts`] of `doc`'s token stream ([`TokenStream::of`]), counted once
/// per document and `max_len`.
pub(super) fn ngram_counts_of(doc: &Document, max_len: usize) -> Rc<NgramCounts> {
    let kept = doc.derived(|_| KeptCounts::default());
    if let Some((_, counts)) = kept.0.borrow().iter().find(|(len, _)| *len == max_len) {
        return Rc::clone(counts);
    }
    let counts = Rc::new(TokenStream::of(doc).ngram_counts(max_len));
    kept.0.borrow_mut().push((max_len, Rc::clone(&counts)));
    counts
}

/// Token ids [`seq_key`] hashes in one call (longer sequences are streamed).
const SEQ_KEY_INLINE: usize = 16;

/// One 64-bit key for a token sequence (xxh3 of the token ids' little-endian bytes, one after
/// another), for counting and matching candidate patterns without allocating.
pub(super) fn seq_key(ids: &[u64]) -> u64 {
    if ids.len() <= SEQ_KEY_INLINE {
        let mut bytes = [0u8; 8 * SEQ_KEY_INLINE];
        for (chunk, id) in bytes.chunks_exact_mut(8).zip(ids) {
            chunk.copy_from_slice(&id.to_le_bytes());
        }
        return xxh3_64(&bytes[..8 * ids.len()]);
    }
    let mut h = Xxh3::new();
    for id in ids {
        h.update(&id.to_le_bytes());
    }
    h.digest()
}

/// The normalised start-tag signature of an element (see [`TokenStream`]).
pub fn start_signature(el: &Element) -> String {
    let mut s = String::new();
    push_start_signature(&mut s, el);
    s
}

/// [`start_signature`] of `el` appended to `s`.
fn push_start_signature(s: &mut String, el: &Element) {
    s.push('<');
    s.push_str(el.name());
    let mut classes: Vec<Cow<'_, str>> = el.classes().map(masked).collect();
    classes.sort();
    classes.dedup();
    if !classes.is_empty() {
        s.push_str(" class=\"");
        for (i, class) in classes.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(class);
        }
        s.push('"');
    }
    if let Some(id) = el.id() {
        s.push_str(" id=\"");
        push_masked(s, id.trim());
        s.push('"');
    }
    s.push('>');
}

/// Each run of ASCII digits replaced by `#`.
pub(super) fn mask_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_masked(&mut out, s);
    out
}

/// [`mask_digits`], borrowing `s` when it has no digit.
fn masked(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_digit()) {
        Cow::Owned(mask_digits(s))
    } else {
        Cow::Borrowed(s)
    }
}

/// [`mask_digits`] of `s` appended to `out`.
fn push_masked(out: &mut String, s: &str) {
    let mut in_digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_mask_digits_and_sort_classes() {
        let doc = Document::parse("<div class='b a a' id='post-1234x5' title='t'>x</div>");
        let el = doc.html.tree.nodes().find_map(|n| n.value().as_element().filter(|e| e.name() == "div").cloned());
        assert_eq!(start_signature(&el.expect("div")), "<div class=\"a b\" id=\"post-#x#\">");
    }

    #[test]
    fn token_stream_marks_text_and_skips_script_content() {
        let doc = Document::parse("<html><body><p>a<br>b</p><script>var x = '<p>';</script></body></html>");
        let ts = TokenStream::new(&doc);
        let body: Vec<&str> = (0..ts.len()).filter_map(|i| ts.token(i)).skip_while(|t| *t != "<body>").collect();
        assert_eq!(
            body,
            ["<body>", "<p>", "#text", "<br>", "#text", "</p>", "<script>", "</script>", "</body>", "</html>"]
        );
        assert_eq!(ts.text_pos.len(), 2);
        let counts = ts.ngram_counts(2);
        let p = ts.ids[(0..ts.len()).position(|i| ts.token(i) == Some("#text")).expect("text")];
        assert_eq!(counts.get(&seq_key(&[p])), Some(&2));
        assert_eq!(*ngram_counts_of(&doc, 2), counts, "the document's counts are the stream's");
    }

    /// A sequence's key is the xxh3 of its ids' bytes one after another, hashed in one call
    /// or streamed: the same value at every length.
    #[test]
    fn seq_key_is_the_xxh3_of_the_ids_bytes() {
        let ids: Vec<u64> = (0..40u64).map(|i| xxh3_64(&i.to_le_bytes())).collect();
        for len in 0..=ids.len() {
            let mut h = Xxh3::new();
            for id in &ids[..len] {
                h.update(&id.to_le_bytes());
            }
            assert_eq!(seq_key(&ids[..len]), h.digest(), "{len} ids");
        }
    }
}
