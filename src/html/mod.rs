//! HTML input: bytes to text ([`decode`]), text to a parsed [`Document`], and the document to
//! text [`Block`](crate::model::Block)s ([`segment()`]). Every page is decoded once and parsed once.

pub mod decode;
pub mod depth;
pub mod hidden;
pub mod links;
pub mod meta;
pub mod prune;
pub mod segment;
pub mod sniff;
pub mod tree_sink;
pub mod walk;

pub use decode::{decode_html, Decoded};
pub use segment::segment;

use html5ever::driver::{parse_document, ParseOpts};
use html5ever::tendril::TendrilSink;
use html5ever::tree_builder::TreeBuilderOpts;
use scraper::{Html, Selector};
use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

/// The values [`Document::derived`] keeps: one per type.
#[derive(Default)]
struct Derived {
    values: RefCell<Vec<Rc<dyn Any>>>,
}

impl Derived {
    fn find<T: 'static>(&self) -> Option<Rc<T>> {
        let values = self.values.borrow();
        values.iter().find_map(|v| v.clone().downcast::<T>().ok())
    }
}

/// A parsed page. Wraps scraper's [`Html`] (html5ever), which is not `Send`: parse and extract
/// on the same thread.
pub struct Document {
    /// The DOM.
    pub html: Html,
    /// The `<title>` text, whitespace collapsed, if present and non-empty.
    pub title: Option<String>,
    /// True when the page's text is in `<noscript>` and it was parsed with scripting off (see
    /// [`Document::parse`]): segmentation then reads `<noscript>` content.
    pub noscript_content: bool,
    /// Publication date and author as the page states them ([`meta::page_metadata`]).
    pub metadata: meta::PageMetadata,
    /// The schema.org `articleBody` the page states in JSON-LD ([`meta::ld_article_body`]).
    pub ld_article_body: Option<String>,
    /// Values computed from this parse, once each ([`Document::derived`]).
    derived: Derived,
}

/// A page with fewer visible characters than this (or than its `<noscript>` text) outside
/// `<noscript>` is parsed again with scripting off when that gives more ([`Document::parse`]).
/// Ours: about 50 words, less than
/// any page of running text; a "please enable JavaScript" shell has fewer.
pub const NOSCRIPT_FALLBACK_CHARS: usize = 300;

impl Document {
    /// Parse decoded HTML text, script, style and SVG bodies emptied first
    /// ([`prune::strip_raw_text`]) and nesting below [`depth::MAX_DEPTH`] flattened
    /// ([`depth::flatten_deep`]), so parsing time grows linearly with the page. Never fails:
    /// html5ever repairs any input.
    ///
    /// Parsed as browsers do, with scripting on: `<noscript>` content is raw text, left out.
    /// Some server-rendered pages (Discourse forums) put all their text there, for clients that
    /// run no scripts, as a crawler is, and Blogger puts the post in a script template with a
    /// `<noscript>` copy; when the page has fewer visible characters than its `<noscript>` text
    /// or than [`NOSCRIPT_FALLBACK_CHARS`], it is parsed again with scripting off
    /// (WHATWG HTML §13.2.4, "scripting flag"), where `<noscript>` content is markup, and that
    /// tree is kept when its `<noscript>` elements add text ([`Document::noscript_content`]).
    pub fn parse(text: &str) -> Document {
        let raw = text;
        let prune::Pruned { text, noscript_chars } = prune::prune(text);
        let text = match depth::flatten_deep(&text, depth::MAX_DEPTH) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(flat) => std::borrow::Cow::Owned(flat),
        };
        let mut html = parse_html(&text, true);
        let mut noscript_content = false;
        let enough = noscript_chars.max(NOSCRIPT_FALLBACK_CHARS);
        if noscript_chars > 0 && visible_chars(&html, false, enough) < enough {
            let without_scripting = parse_html(&text, false);
            if visible_chars(&without_scripting, true, usize::MAX) > visible_chars(&html, false, usize::MAX) {
                html = without_scripting;
                noscript_content = true;
            }
        }
        static TITLE: OnceLock<Selector> = OnceLock::new();
        let sel = TITLE.get_or_init(|| Selector::parse("title").expect("valid selector"));
        let title = html
            .select(sel)
            .next()
            .map(|t| collapse_whitespace(&t.text().collect::<String>()))
            .filter(|t| !t.is_empty());
        let metadata = meta::page_metadata(raw, &html);
        let ld_article_body = meta::ld_article_body(raw);
        Document { html, title, noscript_content, metadata, ld_article_body, derived: Derived::default() }
    }

    /// A document of a DOM that was parsed elsewhere (no pruning, no `<noscript>` fallback,
    /// no metadata): the fields of [`Document::parse`] left empty.
    pub fn from_html(html: Html) -> Document {
        Document {
            html,
            title: None,
            noscript_content: false,
            metadata: Default::default(),
            ld_article_body: None,
            derived: Derived::default(),
        }
    }

    /// The value of type `T` derived from this document by `compute`, computed on the first
    /// call for that type and shared after it: what several steps read from the same parse
    /// (GoldMiner's token stream, StaDyNoT's key hashes, the unlearned labels a host's
    /// learning and then the page's own extraction both need). One value per type: `compute`
    /// must be a function of the document alone (and of constants), so a type is computed
    /// the same way wherever it is asked for. `compute` may itself ask for other types.
    pub fn derived<T: 'static>(&self, compute: impl FnOnce(&Document) -> T) -> Rc<T> {
        if let Some(found) = self.derived.find::<T>() {
            return found;
        }
        let value = Rc::new(compute(self));
        self.derived.values.borrow_mut().push(value.clone());
        value
    }

    /// True when segmentation leaves out the subtree of an element named `name`: the
    /// segmenter's [`segment::SKIPPED_TAGS`], except `noscript` on a page parsed for its
    /// `<noscript>` content.
    pub fn skips(&self, name: &str) -> bool {
        segment::is_skipped_tag(name) && !(self.noscript_content && name == "noscript")
    }

    /// True when segmentation leaves out the subtree of `el`: its name is skipped
    /// ([`Document::skips`]) or it is a heading's edit or permalink control
    /// ([`segment::is_skipped_control`]).
    pub fn skips_element(&self, el: &scraper::node::Element) -> bool {
        self.skips(el.name()) || segment::is_skipped_control(el)
    }
}

fn parse_html(text: &str, scripting_enabled: bool) -> Html {
    let opts =
        ParseOpts { tree_builder: TreeBuilderOpts { scripting_enabled, ..Default::default() }, ..Default::default() };
    parse_document(tree_sink::ConsistentSink(Html::new_document()), opts).one(text)
}

/// Non-whitespace characters of the text the segmenter reads (outside skipped elements;
/// inside `<noscript>` when `noscript`), counting stops at `limit`.
fn visible_chars(html: &Html, noscript: bool, limit: usize) -> usize {
    let skipped = |n: ego_tree::NodeRef<'_, scraper::Node>| {
        n.value()
            .as_element()
            .is_some_and(|e| segment::is_skipped_tag(e.name()) && !(noscript && e.name() == "noscript"))
    };
    let mut chars = 0;
    for edge in walk::pruned_edges(html.tree.root(), skipped) {
        if let ego_tree::iter::Edge::Open(n) = edge {
            if let Some(t) = n.value().as_text() {
                chars += t.chars().filter(|c| !c.is_whitespace()).count();
                if chars >= limit {
                    break;
                }
            }
        }
    }
    chars
}

/// True when `el` counts as a link for link density: an `a` element that is not a named
/// anchor. `<a name="top">` without `href` (HTML 4's link target, WHATWG HTML §4.5.1: an `a`
/// without `href` is a placeholder) is often left unclosed and then reopened by the parser
/// around every later block, which would make the whole page link text. An `a` without `href`
/// but also without `name` stays a link: scripts make those clickable.
/// Used by the segmenter, Boilerpipe (Kohlschütter et al. 2010, §4.2) and StaDyNoT.
pub fn is_link(el: &scraper::node::Element) -> bool {
    el.name() == "a" && (el.attr("href").is_some() || el.attr("name").is_none())
}

/// Han ideographs, kana and the CJK iteration and prolonged-sound marks: the characters that
/// Chinese and Japanese write without spaces.
pub fn is_cjk(c: char) -> bool {
    // One comparison for the Latin, Greek, Cyrillic, ... text that most blocks are.
    let u = c as u32;
    u >= 0x3005
        && matches!(u,
            0x3005..=0x3007 | 0x3021..=0x3029 | 0x3031..=0x3035 | 0x3040..=0x309F | 0x30A0..=0x30FF
            | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F
            | 0x20000..=0x2FA1F)
}

/// Words of a text block as the extractors count them: whitespace-separated tokens, except that
/// each Chinese or Japanese character ([`is_cjk`]) is a word of its own, as Unicode's word
/// boundaries cut ideographs (UAX #29, §4.1, rule WB999). A paragraph of 150 Japanese
/// characters is 150 words here, not the one "word" that whitespace splitting sees, so word
/// counts, text density and word shares measure CJK text on the scale of text with spaces.
/// CJK punctuation (U+3000–U+303F, and the full-width forms U+FF00–U+FF65 that are not letters
/// or digits) separates words as whitespace does. Equals `text.split_whitespace().count()` for
/// text without characters of those blocks.
pub fn count_words(text: &str) -> usize {
    let mut words = 0;
    let mut in_word = false;
    for c in text.chars() {
        if c.is_whitespace() || is_cjk_punctuation(c) {
            in_word = false;
        } else if is_cjk(c) {
            words += 1;
            in_word = false;
        } else if !in_word {
            words += 1;
            in_word = true;
        }
    }
    words
}

fn is_cjk_punctuation(c: char) -> bool {
    let u = c as u32;
    u >= 0x3000 && matches!(u, 0x3000..=0x303F | 0xFF00..=0xFF65) && !is_cjk(c) && !c.is_alphanumeric()
}

/// Collapse runs of Unicode whitespace to one space and trim. Control characters (C0, DEL,
/// C1: a page's stray ESC or NUL) count as whitespace, so no text of a page carries them.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_collapsed(&mut out, s);
    out
}

/// [`collapse_whitespace`] of `s` appended to `out`.
pub fn push_collapsed(out: &mut String, s: &str) {
    let mut first = true;
    for w in s.split(|c: char| c.is_whitespace() || c.is_control()).filter(|w| !w.is_empty()) {
        if !first {
            out.push(' ');
        }
        out.push_str(w);
        first = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(doc: &Document) -> Vec<String> {
        segment(doc).into_iter().map(|b| b.text).collect()
    }

    #[test]
    fn a_derived_value_is_computed_once_per_type() {
        struct Blocks(usize);
        struct Twice(usize);
        let doc = Document::parse("<p>one</p><p>two</p>");
        let calls = std::cell::Cell::new(0);
        let count = |d: &Document| {
            calls.set(calls.get() + 1);
            Blocks(segment(d).len())
        };
        assert_eq!(doc.derived(count).0, 2);
        assert_eq!(doc.derived(count).0, 2);
        assert_eq!(calls.get(), 1, "the second call reads the kept value");
        // A value may be derived from another one; each type has its own entry.
        let twice = doc.derived(|d| Twice(2 * d.derived(count).0));
        assert_eq!((twice.0, calls.get()), (4, 1));
        let other = Document::parse("<p>one</p>");
        assert_eq!(other.derived(count).0, 1, "values belong to their document");
    }

    #[test]
    fn control_characters_never_reach_a_block() {
        let doc = Document::parse("<p>red\u{1b}[31m text\u{1}and\u{7f} \u{85}more</p>");
        assert_eq!(texts(&doc), ["red [31m text and more"]);
    }

    #[test]
    fn noscript_content_is_read_only_when_the_page_has_no_other_text() {
        let post = "A forum post with enough words to be the main text of this page, ".repeat(8);
        let shell = format!(
            "<html><body><div id=app></div><noscript><div class=post><p>{post}</p></div></noscript></body></html>"
        );
        let doc = Document::parse(&shell);
        assert!(doc.noscript_content);
        assert_eq!(texts(&doc), vec![post.trim().to_string()]);
        // Blogger: the post in a script template and again in `<noscript>`, beside a menu of
        // more than NOSCRIPT_FALLBACK_CHARS but less text than the post.
        let menu = "<li>Home</li><li>About this blog</li><li>Archive</li>".repeat(15);
        let post = post.repeat(2);
        let blogger = format!(
            "<html><body><ul>{menu}</ul><div itemprop=articleBody><script type=text/template>{post}</script>\
             <noscript><p>{post}</p></noscript></div></body></html>"
        );
        let doc = Document::parse(&blogger);
        assert!(doc.noscript_content);
        assert!(texts(&doc).contains(&post.trim().to_string()));
        let article =
            format!("<html><body><p>{post}</p><noscript><p>Please enable JavaScript.</p></noscript></body></html>");
        let doc = Document::parse(&article);
        assert!(!doc.noscript_content);
        assert_eq!(texts(&doc), vec![post.trim().to_string()]);
    }

    #[test]
    fn cjk_characters_are_words_of_their_own() {
        assert_eq!(count_words("  one two\tthree "), 3);
        assert_eq!(count_words("東京都の天気"), 6);
        // "RISE", デ ビ ュ ー, そ し て, "2", 試 合; "。" and "（）" separate.
        assert_eq!(count_words("RISEデビュー。そして 2試合（予定）"), 1 + 4 + 3 + 1 + 2 + 2);
        assert_eq!(count_words(""), 0);
    }

    /// Discourse forum pages (modern2026-dev) put every post in `<noscript>`.
    #[test]
    fn a_discourse_page_yields_its_posts() {
        let Some(set) = crate::eval::dataset::test_set("modern2026-dev") else { return };
        let page = set.pages.iter().find(|p| p.id == "0506").expect("page 0506");
        let doc = Document::parse(&set.read_html(page).expect("page reads"));
        assert!(doc.noscript_content);
        let text = texts(&doc).join(" ");
        let gold = page.text.as_deref().unwrap_or_default();
        // Six words from the middle of the gold's longest line.
        let line = gold.lines().max_by_key(|l| l.len()).unwrap_or_default();
        let words: Vec<&str> = line.split_whitespace().collect();
        let some_words = words[words.len() / 2..].iter().take(6).copied().collect::<Vec<_>>().join(" ");
        assert!(some_words.len() > 10 && text.contains(&some_words), "{some_words:?} not in the blocks");
    }
}
