//! Segmentation: a [`Document`] to text [`Block`]s, jusText's paragraph maker (Pomikálek 2011,
//! §3.1) over html5ever's DOM. A block-level tag opens and closes a block; two `<br>` in a row
//! close one; inline markup (`a`, `em`, `span`, ...) stays inside. Text of `<a>` counts as link
//! text. Non-content elements (script, style, forms, embedded objects, head) are skipped as
//! jusText's preprocessor drops them.

use crate::html::walk::pruned_edges;
use crate::html::{collapse_whitespace, Document};
use crate::model::{Block, ParagraphKind};
use ego_tree::iter::Edge;
use ego_tree::NodeId;
use scraper::Node;

/// Tags that open and close a block (jusText's `PARAGRAPH_TAGS` plus HTML5 sectioning).
pub const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "legend",
    "li",
    "main",
    "menu",
    "nav",
    "ol",
    "optgroup",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
];

/// Elements whose whole subtree is dropped before segmentation (jusText's lxml Cleaner:
/// scripts, styles, comments, head, applets, frames, form controls). `object`, `embed` and
/// `iframe` keep their fallback content, as the Cleaner removes only the tags: a browser
/// without the plugin shows it, and pages put a video's caption there. The fallback content
/// of `audio` and `video` is shown only by a browser that has no media elements (WHATWG HTML
/// §4.8.8–4.8.9): it says so ("Your browser does not support the video tag") and is dropped. Ruby
/// annotations (`rt`, `rp`: the furigana above Japanese kanji) are not part of the running
/// text, which reads `子どもへの` and not `子こどもへの`.
pub const SKIPPED_TAGS: &[&str] = &[
    "applet", "audio", "button", "canvas", "frame", "frameset", "head", "input", "map", "math", "noscript", "option",
    "param", "rp", "rt", "script", "select", "style", "svg", "template", "textarea", "video",
];

/// Classes of the links a site adds to its headings to edit or to link a section, which are
/// controls and not text: MediaWiki's `[edit]` (`<span class="mw-editsection">`;
/// `editsection` before MediaWiki 1.23) and the "¶" permalinks of Sphinx and MkDocs
/// (`<a class="headerlink">`). A `span` or `a` element with one of them is skipped with its
/// subtree, as [`SKIPPED_TAGS`] are, so a heading reads `History` and not `History[edit]`.
pub const SKIPPED_CLASSES: &[&str] = &["mw-editsection", "editsection", "headerlink"];

/// True for a `span` or `a` element with a class in [`SKIPPED_CLASSES`].
pub fn is_skipped_control(el: &scraper::node::Element) -> bool {
    matches!(el.name(), "span" | "a")
        && el.attr("class").is_some_and(|c| c.split_ascii_whitespace().any(|k| SKIPPED_CLASSES.contains(&k)))
}

/// True for a tag in [`BLOCK_TAGS`].
pub fn is_block_tag(name: &str) -> bool {
    BLOCK_TAGS.contains(&name)
}

/// True for a heading tag, `h1`–`h6` (a block's `heading`, jusText's heading flag).
pub fn is_heading_tag(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// True for a tag in [`SKIPPED_TAGS`].
pub fn is_skipped_tag(name: &str) -> bool {
    SKIPPED_TAGS.contains(&name)
}

/// Split a document into blocks in document order. Blocks with no visible text are dropped,
/// so every returned block has a non-empty `text`, and so are hidden copies of visible text
/// ([`super::hidden::drop_hidden_copies`]). Subtrees of [`SKIPPED_TAGS`] and of section
/// controls ([`SKIPPED_CLASSES`]) are left out ([`Document::skips_element`]: `noscript` is read
/// on a page whose text is all there). A block's `link_chars` count the text of links
/// ([`super::is_link`]) other than a heading's permalink (`<h2 id="x"><a href="#x">`, or to
/// the id of the heading's parent section), which is the heading's own text.
pub fn segment(doc: &Document) -> Vec<Block> {
    segment_skipping(doc, &|_| false)
}

/// Like [`segment`], but elements for which `skip(node)` is true are left out with their
/// subtree (used by StaDyNoT to segment a page cleaned of noise tags).
pub fn segment_skipping(doc: &Document, skip: &dyn Fn(NodeId) -> bool) -> Vec<Block> {
    let mut maker = BlockMaker::default();
    let prune = |node: ego_tree::NodeRef<'_, Node>| {
        node.value().as_element().is_some_and(|el| doc.skips_element(el)) || skip(node.id())
    };
    let mut pruned: Option<NodeId> = None;
    for edge in pruned_edges(doc.html.tree.root(), prune) {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) => {
                    if doc.skips_element(el) || skip(node.id()) {
                        pruned = Some(node.id());
                    } else {
                        let link = super::is_link(el) && !maker.heading_anchor(doc, el);
                        maker.open(el.name(), node.id(), link);
                    }
                }
                Node::Text(t) => maker.text(t, node.id()),
                _ => {}
            },
            Edge::Close(node) => {
                if pruned == Some(node.id()) {
                    pruned = None;
                } else if let Node::Element(el) = node.value() {
                    maker.close(el.name());
                }
            }
        }
    }
    maker.flush();
    let mut blocks = maker.blocks;
    super::hidden::drop_hidden_copies(doc, &mut blocks);
    blocks
}

/// U+00AD, removed from block text.
const SOFT_HYPHEN: char = '\u{AD}';

#[derive(Default)]
struct BlockMaker<'a> {
    blocks: Vec<Block>,
    /// Open elements: (tag name, node id, is block-level, is a hyperlink).
    stack: Vec<(&'a str, NodeId, bool, bool)>,
    raw: String,
    text_nodes: Vec<NodeId>,
    link_chars: usize,
    links_open: usize,
    br_run: usize,
    /// The block element and path captured when the current block's first text arrived.
    start: Option<(NodeId, String, ParagraphKind, bool)>,
}

impl<'a> BlockMaker<'a> {
    /// True when `el` is a heading's permalink: a link to the fragment that names the
    /// heading (`<h2 id="x"><a href="#x">`) or its parent element, from inside the heading.
    /// Its text is the heading's, not a link away from it.
    fn heading_anchor(&self, doc: &Document, el: &scraper::node::Element) -> bool {
        let Some(fragment) = el.attr("href").and_then(|h| h.trim().strip_prefix('#')) else { return false };
        let Some(pos) = self.stack.iter().position(|(n, _, _, _)| is_heading_tag(n)) else {
            return false;
        };
        let named = |i: usize| {
            doc.html.tree.get(self.stack[i].1).and_then(|n| n.value().as_element()?.attr("id")) == Some(fragment)
        };
        !fragment.is_empty() && (named(pos) || (pos > 0 && named(pos - 1)))
    }

    fn open(&mut self, name: &'a str, id: NodeId, link: bool) {
        let block = is_block_tag(name);
        if name == "br" {
            self.br_run += 1;
            if self.br_run >= 2 {
                self.flush();
            } else {
                self.raw.push(' ');
            }
            // `br` is a void element: it is closed by the traversal right away.
            self.stack.push((name, id, false, false));
            return;
        }
        self.br_run = 0;
        if block {
            self.flush();
        }
        if link {
            self.links_open += 1;
        }
        self.stack.push((name, id, block, link));
    }

    fn close(&mut self, name: &str) {
        if let Some(pos) = self.stack.iter().rposition(|(n, _, _, _)| *n == name) {
            let (_, _, block, link) = self.stack[pos];
            self.stack.truncate(pos);
            if link {
                self.links_open = self.links_open.saturating_sub(1);
            }
            if block {
                self.flush();
            }
        }
        if name != "br" {
            // Inline elements separate words only when the page has whitespace there.
        }
    }

    fn text(&mut self, text: &str, id: NodeId) {
        if text.trim().is_empty() {
            if !text.is_empty() {
                self.raw.push(' ');
            }
            return;
        }
        self.br_run = 0;
        if self.start.is_none() {
            self.start = Some(self.context());
        }
        if self.links_open > 0 {
            // `collapse_whitespace(text).chars().count()` without building the string.
            let (chars, words): (usize, usize) =
                text.split_whitespace().fold((0, 0), |(chars, words), w| (chars + w.chars().count(), words + 1));
            self.link_chars += chars + words.saturating_sub(1);
        }
        self.raw.push_str(text);
        self.text_nodes.push(id);
    }

    fn context(&self) -> (NodeId, String, ParagraphKind, bool) {
        let element = self
            .stack
            .iter()
            .rev()
            .find(|(_, _, block, _)| *block)
            .or(self.stack.last())
            .map(|(_, id, _, _)| *id)
            .expect("text nodes sit inside the html element");
        let dom_path = self.stack.iter().map(|(n, _, _, _)| *n).collect::<Vec<_>>().join(".");
        let heading = self.stack.iter().any(|(n, _, _, _)| is_heading_tag(n));
        let list = self.stack.iter().any(|(n, _, _, _)| matches!(*n, "li" | "dd" | "dt"));
        let kind = if heading {
            ParagraphKind::Heading
        } else if list {
            ParagraphKind::ListItem
        } else {
            ParagraphKind::Paragraph
        };
        (element, dom_path, kind, heading)
    }

    fn flush(&mut self) {
        self.br_run = 0;
        let Some((element, dom_path, kind, heading)) = self.start.take() else {
            self.raw.clear();
            self.text_nodes.clear();
            self.link_chars = 0;
            return;
        };
        let mut text = collapse_whitespace(&self.raw);
        // Soft hyphens (U+00AD) are hyphenation hints, invisible unless a line breaks there:
        // "Mit\u{AD}tel\u{AD}al\u{AD}ter" is the word "Mittelalter".
        if text.contains(SOFT_HYPHEN) {
            text.retain(|c| c != SOFT_HYPHEN);
        }
        self.raw.clear();
        let text_nodes = std::mem::take(&mut self.text_nodes);
        let link_chars = std::mem::take(&mut self.link_chars);
        if text.is_empty() {
            return;
        }
        let chars = text.chars().count();
        let words = crate::html::count_words(&text);
        self.blocks.push(Block {
            text,
            kind,
            dom_path,
            element,
            text_nodes,
            chars,
            link_chars: link_chars.min(chars),
            words,
            heading,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(html: &str) -> Vec<Block> {
        segment(&Document::parse(html))
    }

    #[test]
    fn block_tags_split_and_inline_tags_join() {
        let b = blocks("<html><body><div>Intro <b>bold</b> text<p>First <a href='x'>link</a> para.</p>tail</div><ul><li>one</li><li>two</li></ul></body></html>");
        let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Intro bold text", "First link para.", "tail", "one", "two"]);
        assert_eq!(b[1].link_chars, 4);
        assert_eq!(b[1].dom_path, "html.body.div.p");
        assert_eq!(b[3].kind, ParagraphKind::ListItem);
    }

    #[test]
    fn soft_hyphens_are_removed() {
        let b = blocks("<p>Mit&shy;tel&shy;al&shy;ter und Neu\u{AD}zeit</p><p>\u{AD}</p>");
        let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Mittelalter und Neuzeit"]);
        assert_eq!(b[0].chars, "Mittelalter und Neuzeit".len());
    }

    #[test]
    fn ruby_annotations_are_not_running_text() {
        let b =
            blocks("<p><ruby>子<rp>(</rp><rt>こ</rt><rp>)</rp></ruby>どもへの<ruby>虐待<rt>ぎゃくたい</rt></ruby></p>");
        let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["子どもへの虐待"]);
    }

    #[test]
    fn a_heading_permalink_is_not_a_link() {
        // MDN's section headings link to themselves; a "Back to Top" heading and a table of
        // contents link elsewhere on the page.
        let b = blocks(
            "<body><section id=s><h2 id=props><a href='#props'>Instance properties</a></h2>\
             <h3><a href='#s'>Events</a></h3><h3><a href='#top'>Back to Top</a></h3></section>\
             <ul><li><a href='#props'>Instance properties</a></li></ul></body>",
        );
        let link_chars: Vec<usize> = b.iter().map(|b| b.link_chars).collect();
        assert_eq!(link_chars, [0, 0, "Back to Top".len(), "Instance properties".len()]);
    }

    #[test]
    fn a_named_anchor_is_not_a_link() {
        // The unclosed `<a name>` is reopened by the parser around the paragraph.
        let b = blocks(
            "<body><a name=top><h1>Title</h1><p>Some text <a href=x>here</a></p><p><a onclick=f()>More</a></p></body>",
        );
        let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Title", "Some text here", "More"]);
        assert_eq!(b[0].link_chars, 0);
        assert_eq!(b[1].link_chars, "here".len());
        assert_eq!(b[2].link_chars, "More".len());
    }

    #[test]
    fn double_br_splits_and_scripts_are_dropped() {
        let b = blocks("<body><h1>Title</h1>a<br>b<br><br>c<script>var x=1;</script><style>p{}</style></body>");
        let texts: Vec<&str> = b.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(texts, ["Title", "a b", "c"]);
        assert!(b[0].heading);
        assert_eq!(b[0].kind, ParagraphKind::Heading);
    }

    #[test]
    fn skip_predicate_drops_subtrees() {
        let doc = Document::parse("<body><div id=nav>Home News</div><p>Body text</p></body>");
        let nav = doc.html.select(&scraper::Selector::parse("#nav").unwrap()).next().unwrap().id();
        let b = segment_skipping(&doc, &|id| id == nav);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].text, "Body text");
    }
}
