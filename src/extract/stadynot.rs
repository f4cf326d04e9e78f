//! StaDyNoT (Barua, Patel & Agrawal 2014, §3): removal of static and dynamic noise tags. The
//! principal types are [`StaticNoiseModel`] (the static noise keys learned from a host's sample,
//! part of the [`DomainModel`](crate::domain::DomainModel)) and the [`StaDyNoT`] extractor, which
//! labels every block under a noise tag bad and every other block good (StaDyNoT outputs the
//! cleaned page; it has no jusText step).
//!
//! * **Static noise** (§3.1): every element gives the key `tag:attributes:text`; a key found on
//!   every page of the sample (share ≥ [`StaDyNoTParams::static_min_share`]) is static noise.
//!   Our reading of the key: `attributes` = all attributes, sorted by name, as `name="value"`
//!   joined by spaces; `text` = the element's whole text content, whitespace collapsed, so a
//!   container of changing text never matches. `html`, `body`, the head, elements the segmenter
//!   skips (script, style, ...) and elements without text are not keyed: they carry no text of
//!   their own, and removing them would not change the output.
//! * **Dynamic noise** (§3.2): candidates are the least common ancestors of the links (`<a
//!   href>`): our reading is the LCA of each pair of consecutive links in document order
//!   (links inside static noise are left out). `p`, `body` and `html` are never noise (the paper
//!   exempts `p`; removing the body would empty the page). Candidates are judged bottom-up
//!   (deepest first), and text already marked as noise is not counted for a higher candidate,
//!   so an ancestor that holds the article is not removed because of the link lists inside it.
//!   A candidate is noise when its non-link text is shorter than α characters, or its link
//!   fraction (link characters / all characters) exceeds β. Characters are counted on each
//!   text node with whitespace collapsed.
//! * **Post-processing** (§3.3) removes the non-informative tags [`NON_INFORMATIVE_TAGS`].
//!   Deviation: a `<form>` holding more than half of the page's text stays (ASP.NET pages wrap
//!   the whole body in one form).

use crate::extract::{ExtractContext, ExtractError, Extractor};
use crate::html::walk::{pruned_edges, VOID_TAGS};
use crate::html::{push_collapsed, Document};
use crate::model::{Block, Label};
use ego_tree::iter::Edge;
use ego_tree::{NodeId, NodeRef};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use scraper::node::Element;
use scraper::Node;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;

/// Tags removed in post-processing (§3.3, "non-informative formatting tags").
pub const NON_INFORMATIVE_TAGS: &[&str] = &[
    "img", "link", "script", "style", "noscript", "embed", "object", "param", "form", "input", "caption", "meta",
    "textarea",
];

/// StaDyNoT thresholds: config section `[learn.stadynot]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StaDyNoTParams {
    /// α: a dynamic-noise candidate with fewer non-link characters (spaces included) is noise
    /// (§3.2). Default 50.
    pub alpha_chars: usize,
    /// β: a dynamic-noise candidate whose link fraction exceeds this is noise (§3.2; the paper
    /// prints "20", read as 0.20). Default 0.2.
    pub beta_link_fraction: f64,
    /// Least share of the sample's pages a key must occur on to be static noise (§3.1: "equals
    /// the number of neighbor pages", i.e. 1.0). Default 1.0.
    pub static_min_share: f64,
}

impl Default for StaDyNoTParams {
    fn default() -> Self {
        StaDyNoTParams { alpha_chars: 50, beta_link_fraction: 0.2, static_min_share: 1.0 }
    }
}

/// Static noise keys learned from a host's sample (§3.1).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StaticNoiseModel {
    /// The keys `tag:attributes:text`, sorted.
    pub keys: Vec<String>,
    /// Pages of the sample the keys were counted over.
    pub pages: usize,
    /// xxh3 of each key, built on first use.
    #[serde(skip)]
    lookup: OnceLock<HashSet<u64>>,
}

impl StaticNoiseModel {
    /// A model from its keys (sorted here).
    pub fn new(mut keys: Vec<String>, pages: usize) -> StaticNoiseModel {
        keys.sort();
        keys.dedup();
        StaticNoiseModel { keys, pages, lookup: OnceLock::new() }
    }

    /// True when `key` is a static noise key (hash lookup, built lazily).
    pub fn contains(&self, key: &str) -> bool {
        self.hashes().contains(&Self::key_hash(key))
    }

    /// The hash by which keys are looked up: xxh3 of the key's UTF-8 bytes.
    pub fn key_hash(key: &str) -> u64 {
        xxh3_64(key.as_bytes())
    }

    fn hashes(&self) -> &HashSet<u64> {
        self.lookup.get_or_init(|| self.keys.iter().map(|k| xxh3_64(k.as_bytes())).collect())
    }
}

/// Learn the static noise keys from a host's sample pages (§3.1).
pub fn learn_static<D: std::borrow::Borrow<Document>>(docs: &[D], params: &StaDyNoTParams) -> StaticNoiseModel {
    // Count pages per key hash, then read the strings of the keys that pass the threshold.
    let mut counts: HashMap<u64, usize> = HashMap::default();
    for doc in docs {
        let seen: HashSet<u64> = key_hashes(doc.borrow()).0.iter().map(|&(_, h)| h).collect();
        for h in seen {
            *counts.entry(h).or_default() += 1;
        }
    }
    let need = ((params.static_min_share * docs.len() as f64).ceil() as usize).max(1);
    let mut missing: HashSet<u64> = counts.into_iter().filter(|&(_, n)| n >= need).map(|(h, _)| h).collect();
    let mut keys: HashSet<String> = HashSet::default();
    // Each passing key's string from the first page that has it.
    for doc in docs {
        if missing.is_empty() {
            break;
        }
        let doc = doc.borrow();
        if !key_hashes(doc).0.iter().any(|(_, h)| missing.contains(h)) {
            continue;
        }
        for_each_key(doc, |_, key| {
            if missing.remove(&xxh3_64(key.as_bytes())) {
                keys.insert(key.to_string());
            }
        });
    }
    StaticNoiseModel::new(keys.into_iter().collect(), docs.len())
}

/// A set of element ids (noise nodes).
pub type NodeSet = HashSet<NodeId>;

/// The elements of `doc` that `model`'s static keys match (§3.1), without the dynamic noise
/// and the post-processing tags of [`noise_nodes`]: what the default pipeline removes with a
/// host's model. The post-processing tags are not learned from the host and hold unique text
/// on some sites (a video's caption inside the `<object>` fallback), which the unlearned labels
/// have already judged. Each returned node is noise with its whole subtree.
pub fn static_noise_nodes(doc: &Document, model: &StaticNoiseModel) -> NodeSet {
    static_matches(doc, model).into_iter().map(|(id, _)| id).collect()
}

/// The elements of `doc` that `model`'s static keys match, in document order, each with the
/// xxh3 of its key ([`StaticNoiseModel::key_hash`]; §3.1).
pub fn static_matches(doc: &Document, model: &StaticNoiseModel) -> Vec<(NodeId, u64)> {
    if model.keys.is_empty() {
        return Vec::new();
    }
    key_hashes(doc).0.iter().filter(|(_, h)| model.hashes().contains(h)).copied().collect()
}

/// Every keyed element of a page with the xxh3 of its key, in document order.
struct KeyHashes(Vec<(NodeId, u64)>);

/// The [`KeyHashes`] of `doc`, computed once per document ([`Document::derived`]): learning
/// reads them on every sample page for the model and for each fold of its held-out check.
fn key_hashes(doc: &Document) -> std::rc::Rc<KeyHashes> {
    doc.derived(|doc| {
        let mut hashes = Vec::new();
        for_each_key(doc, |id, key| hashes.push((id, xxh3_64(key.as_bytes()))));
        KeyHashes(hashes)
    })
}

/// Call `f(node, key)` for every keyed element of the page (see the module doc).
fn for_each_key(doc: &Document, mut f: impl FnMut(NodeId, &str)) {
    // The page's text in document order, collapsed as it is appended, with a separator after
    // each closed element so that words of adjacent blocks do not merge: an element's text is
    // the stretch appended between its open and close edges (one pass, however deep the page).
    let mut text = CollapsedText::default();
    let mut starts: Vec<usize> = Vec::new();
    let dropped = |name: &str| doc.skips(name) || non_informative(doc, name);
    let prune = |n: NodeRef<'_, Node>| n.value().as_element().is_some_and(|el| dropped(el.name()));
    for edge in pruned_edges(doc.html.tree.root(), prune) {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) if dropped(el.name()) => {}
                Node::Element(_) => starts.push(text.len()),
                Node::Text(t) => text.push(t),
                _ => {}
            },
            Edge::Close(node) => {
                let Node::Element(el) = node.value() else {
                    continue;
                };
                if dropped(el.name()) {
                    continue;
                }
                let own = text.since(starts.pop().unwrap_or(0));
                if !own.is_empty() && !matches!(el.name(), "html" | "body") {
                    f(node.id(), &static_key(el, own));
                }
                text.separate();
            }
        }
    }
}

/// Text appended with its whitespace collapsed as [`crate::html::collapse_whitespace`] would
/// collapse the whole: runs of Unicode whitespace become one space, none at the ends.
#[derive(Debug, Default)]
struct CollapsedText {
    buf: String,
    /// Whitespace was appended since the last word: a space goes before the next one.
    pending_space: bool,
}

impl CollapsedText {
    fn len(&self) -> usize {
        self.buf.len()
    }

    fn push(&mut self, t: &str) {
        let mut rest = t;
        loop {
            let trimmed = rest.trim_start();
            self.pending_space |= trimmed.len() != rest.len();
            if trimmed.is_empty() {
                return;
            }
            let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
            if std::mem::take(&mut self.pending_space) && !self.buf.is_empty() {
                self.buf.push(' ');
            }
            self.buf.push_str(&trimmed[..end]);
            rest = &trimmed[end..];
        }
    }

    /// A word boundary, as whitespace would be.
    fn separate(&mut self) {
        self.pending_space = true;
    }

    /// The collapsed text appended since `start` (a [`CollapsedText::len`]).
    fn since(&self, start: usize) -> &str {
        self.buf[start..].trim_start_matches(' ')
    }
}

/// The key `tag:attributes:text` of an element (§3.1).
fn static_key(el: &Element, text: &str) -> String {
    let mut attrs: Vec<(&str, &str)> = el.attrs().collect();
    attrs.sort();
    let mut key = format!("{}:", el.name());
    for (i, (name, value)) in attrs.iter().enumerate() {
        if i > 0 {
            key.push(' ');
        }
        key.push_str(name);
        key.push_str("=\"");
        push_collapsed(&mut key, value);
        key.push('"');
    }
    key.push(':');
    key.push_str(text);
    key
}

/// True for a [`NON_INFORMATIVE_TAGS`] element, except `noscript` on a page whose text is there
/// ([`Document::noscript_content`]).
fn non_informative(doc: &Document, name: &str) -> bool {
    NON_INFORMATIVE_TAGS.contains(&name) && !(doc.noscript_content && name == "noscript")
}

/// The noise nodes of a page: static noise (when `model` is given), dynamic noise (when
/// `dynamic`), and the non-informative tags of the post-processing step (§3.1–3.3). Each
/// returned node is noise with its whole subtree.
pub fn noise_nodes(
    doc: &Document,
    model: Option<&StaticNoiseModel>,
    params: &StaDyNoTParams,
    dynamic: bool,
) -> HashSet<NodeId> {
    let mut noise: HashSet<NodeId> = HashSet::default();
    // 1. Static noise tags.
    if let Some(model) = model {
        noise.extend(static_matches(doc, model).into_iter().map(|(id, _)| id));
    }
    // 2. Dynamic noise tags.
    if dynamic {
        mark_dynamic(doc, params, &mut noise);
    }
    // 3. Non-informative tags.
    let root = doc.html.tree.root();
    // The page's text total, counted only when the page has a form.
    let mut total: Option<usize> = None;
    for node in root.descendants() {
        let Some(el) = node.value().as_element() else {
            continue;
        };
        if non_informative(doc, el.name()) {
            if el.name() == "form"
                && text_stats(doc, node, &noise).total * 2
                    > *total.get_or_insert_with(|| text_stats(doc, root, &HashSet::default()).total)
            {
                continue;
            }
            noise.insert(node.id());
        }
    }
    noise
}

/// Mark the dynamic noise tags (§3.2; our reading of the candidates is in the module doc).
fn mark_dynamic(doc: &Document, params: &StaDyNoTParams, noise: &mut HashSet<NodeId>) {
    let root = doc.html.tree.root();
    let links: Vec<NodeRef<'_, Node>> = root
        .descendants()
        .filter(|n| n.value().as_element().is_some_and(|e| e.name() == "a" && e.attr("href").is_some()))
        .filter(|n| !covered(*n, noise))
        .collect();
    let chain = |n: NodeRef<'_, Node>| -> Vec<NodeId> {
        let mut v: Vec<NodeId> = n.ancestors().map(|a| a.id()).collect();
        v.reverse();
        v.push(n.id());
        v
    };
    let mut candidates: HashSet<NodeId> = HashSet::default();
    let mut prev: Option<Vec<NodeId>> = None;
    for link in links {
        let this = chain(link);
        if let Some(p) = &prev {
            let depth = p.iter().zip(&this).take_while(|(a, b)| a == b).count();
            if depth > 0 {
                candidates.insert(this[depth - 1]);
            }
        }
        prev = Some(this);
    }
    // Judge the candidates bottom-up in one post-order pass: a candidate's verdict depends only
    // on the noise inside its own subtree (all deeper, so already judged) and on static noise
    // above it, so post-order gives the paper's deepest-first result without re-walking
    // subtrees. `stack` holds the running text stats of every open node. html5ever's adoption
    // agency can leave a node whose children point to another parent, so the walk may never
    // close it: such a node is closed with the first closing ancestor.
    let mut stack: Vec<(NodeRef<'_, Node>, TextStats)> = Vec::new();
    for edge in root.traverse() {
        match edge {
            Edge::Open(n) => {
                let total = match n.value() {
                    Node::Text(t) => collapsed_chars(t),
                    _ => 0,
                };
                stack.push((n, TextStats { total, link: 0 }));
            }
            Edge::Close(n) => {
                if !stack.iter().any(|(open, _)| open.id() == n.id()) {
                    continue;
                }
                while let Some((open, stats)) = stack.pop() {
                    let stats = judge_candidate(doc, open, stats, &candidates, params, noise);
                    if let Some((_, parent)) = stack.last_mut() {
                        if !noise.contains(&open.id()) {
                            parent.total += stats.total;
                            parent.link += stats.link;
                        }
                    }
                    if open.id() == n.id() {
                        break;
                    }
                }
            }
        }
    }
}

/// Close `node` in the dynamic-noise walk: its text stats as its parent counts them (nothing
/// under a skipped tag; all of it as link text under `<a>`), marking it noise when it is a
/// candidate that fails α or β (§3.2).
fn judge_candidate(
    doc: &Document,
    node: NodeRef<'_, Node>,
    mut s: TextStats,
    candidates: &HashSet<NodeId>,
    params: &StaDyNoTParams,
    noise: &mut HashSet<NodeId>,
) -> TextStats {
    let Some(el) = node.value().as_element() else { return s };
    if doc.skips_element(el) {
        s = TextStats { total: 0, link: 0 };
    } else if crate::html::is_link(el) {
        s.link = s.total;
    }
    if candidates.contains(&node.id()) && !matches!(el.name(), "p" | "body" | "html") && !covered(node, noise) {
        let non_link = s.total - s.link;
        let fraction = if s.total == 0 { 1.0 } else { s.link as f64 / s.total as f64 };
        if non_link < params.alpha_chars || fraction > params.beta_link_fraction {
            noise.insert(node.id());
        }
    }
    s
}

/// True when `node` or one of its ancestors is noise.
fn covered(node: NodeRef<'_, Node>, noise: &HashSet<NodeId>) -> bool {
    noise.contains(&node.id()) || node.ancestors().any(|a| noise.contains(&a.id()))
}

/// Characters of text under a node: all, and inside links.
struct TextStats {
    total: usize,
    link: usize,
}

/// Text characters under `node` (whitespace collapsed per text node), not counting subtrees
/// in `noise` or skipped by the segmenter.
fn text_stats(doc: &Document, node: NodeRef<'_, Node>, noise: &HashSet<NodeId>) -> TextStats {
    let mut s = TextStats { total: 0, link: 0 };
    let mut links = 0usize;
    let pruned = |n: NodeRef<'_, Node>| {
        (n.id() != node.id() && noise.contains(&n.id())) || n.value().as_element().is_some_and(|e| doc.skips_element(e))
    };
    for edge in pruned_edges(node, pruned) {
        match edge {
            Edge::Open(n) if pruned(n) => {}
            Edge::Close(n) if pruned(n) => {}
            Edge::Open(n) => match n.value() {
                Node::Element(el) if crate::html::is_link(el) => links += 1,
                Node::Text(t) => {
                    let c = collapsed_chars(t);
                    s.total += c;
                    if links > 0 {
                        s.link += c;
                    }
                }
                _ => {}
            },
            Edge::Close(n) => {
                if n.value().as_element().is_some_and(crate::html::is_link) {
                    links = links.saturating_sub(1);
                }
            }
        }
    }
    s
}

/// Characters of a text node with whitespace collapsed (a boundary space counts as one).
/// ASCII bytes are counted directly; other characters are decoded (Unicode whitespace counts
/// as space).
fn collapsed_chars(t: &str) -> usize {
    let mut n = 0;
    let mut space = false;
    let mut visible = |is_space: bool| {
        if is_space {
            space = true;
        } else {
            if space {
                n += 1;
                space = false;
            }
            n += 1;
        }
    };
    let bytes = t.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii() {
            // char::is_whitespace for ASCII: tab, LF, VT, FF, CR, space.
            visible(matches!(b, b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r' | b' '));
            i += 1;
        } else {
            let c = t[i..].chars().next().unwrap_or(' ');
            visible(c.is_whitespace());
            i += c.len_utf8();
        }
    }
    n
}

/// Whether nodes are inside a noise subtree (a noise node or one of its descendants), asked
/// node by node up the ancestor chain, each element's answer kept for the nodes below it: the
/// cost is that of the nodes asked about, not of the subtrees' size.
struct Covered<'d> {
    doc: &'d Document,
    noise: &'d HashSet<NodeId>,
    known: HashMap<NodeId, bool>,
}

impl<'d> Covered<'d> {
    fn new(doc: &'d Document, noise: &'d HashSet<NodeId>) -> Self {
        Covered { doc, noise, known: HashMap::default() }
    }

    /// Whether `id` or one of its ancestors is a noise node (false for an id not in the tree).
    fn contains(&mut self, id: NodeId) -> bool {
        if self.noise.is_empty() {
            return false;
        }
        let Some(node) = self.doc.html.tree.get(id) else { return false };
        let mut chain = Vec::new();
        let mut answer = false;
        for n in std::iter::once(node).chain(node.ancestors()) {
            if let Some(&known) = self.known.get(&n.id()) {
                answer = known;
                break;
            }
            if self.noise.contains(&n.id()) {
                answer = true;
                chain.push(n.id());
                break;
            }
            chain.push(n.id());
        }
        for id in chain {
            self.known.insert(id, answer);
        }
        answer
    }
}

/// One flag per block, true when the block is noise: its element is inside a noise subtree, or
/// most of its characters come from text nodes inside one.
pub fn noise_labels(doc: &Document, blocks: &[Block], noise: &HashSet<NodeId>) -> Vec<bool> {
    let mut covered = Covered::new(doc, noise);
    blocks
        .iter()
        .map(|b| {
            if covered.contains(b.element) {
                return true;
            }
            // No text node inside: no character inside either (most blocks of a page).
            let inside: Vec<bool> = b.text_nodes.iter().map(|&id| covered.contains(id)).collect();
            if !inside.contains(&true) {
                return false;
            }
            let (mut all, mut within) = (0usize, 0usize);
            for (id, inside) in b.text_nodes.iter().zip(inside) {
                let c =
                    doc.html.tree.get(*id).and_then(|n| n.value().as_text().map(|t| collapsed_chars(t))).unwrap_or(0);
                all += c;
                if inside {
                    within += c;
                }
            }
            within * 2 > all
        })
        .collect()
}

/// The cleaned page (§3.3: StaDyNoT outputs HTML): the document serialised without the noise
/// subtrees, comments and doctype.
pub fn cleaned_html(doc: &Document, noise: &HashSet<NodeId>) -> String {
    let mut out = String::new();
    let pruned = |n: NodeRef<'_, Node>| noise.contains(&n.id());
    for edge in pruned_edges(doc.html.tree.root(), pruned) {
        match edge {
            Edge::Open(n) | Edge::Close(n) if pruned(n) => {}
            Edge::Open(n) => match n.value() {
                Node::Element(el) => {
                    out.push('<');
                    out.push_str(el.name());
                    for (name, value) in el.attrs() {
                        let _ = write!(out, " {name}=\"{}\"", escape(value, true));
                    }
                    out.push('>');
                }
                Node::Text(t) => {
                    let raw =
                        n.parent().and_then(|p| p.value().as_element().map(|e| matches!(e.name(), "script" | "style")));
                    if raw == Some(true) {
                        out.push_str(t);
                    } else {
                        out.push_str(&escape(t, false));
                    }
                }
                _ => {}
            },
            Edge::Close(n) => {
                if let Some(el) = n.value().as_element() {
                    if !VOID_TAGS.contains(&el.name()) {
                        let _ = write!(out, "</{}>", el.name());
                    }
                }
            }
        }
    }
    out
}

/// HTML-escape text (`&`, `<`, `>`) or an attribute value (`&`, `"`).
fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' if !attribute => out.push_str("&lt;"),
            '>' if !attribute => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// The StaDyNoT extractor: blocks under static or dynamic noise tags (or non-informative tags)
/// are bad, all others good. With no model, dynamic noise only.
#[derive(Debug, Clone, Default)]
pub struct StaDyNoT {
    /// α and β for the dynamic noise tags.
    pub params: StaDyNoTParams,
}

impl StaDyNoT {
    /// The extractor with the given thresholds.
    pub fn new(params: StaDyNoTParams) -> StaDyNoT {
        StaDyNoT { params }
    }
}

impl Extractor for StaDyNoT {
    fn name(&self) -> &'static str {
        "stadynot"
    }

    fn classify(&self, doc: &Document, blocks: &[Block], ctx: &ExtractContext<'_>) -> Result<Vec<Label>, ExtractError> {
        let noise = noise_nodes(doc, ctx.model.map(|m| m.stadynot), &self.params, true);
        Ok(noise_labels(doc, blocks, &noise).into_iter().map(|n| if n { Label::Bad } else { Label::Good }).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapsed_chars_counts_like_char_whitespace() {
        let reference = |t: &str| {
            let mut n = 0;
            let mut space = false;
            for c in t.chars() {
                if c.is_whitespace() {
                    space = true;
                } else {
                    n += usize::from(space) + 1;
                    space = false;
                }
            }
            n
        };
        for t in ["", "  ", "a", " a  b\t\nc ", "\u{a0}é\u{2003}ß  x\u{3000}", "x\x0by\x0cz", "日本 語\r\n"] {
            assert_eq!(collapsed_chars(t), reference(t), "{t:?}");
        }
    }
    use crate::html::segment;

    fn page(n: usize) -> String {
        format!(
            "<html><head><title>T{n}</title></head><body>\
             <div id=nav><a href=/>Home</a> | <a href=/about>About us</a></div>\
             <div id=main><h1>Story {n}</h1>\
             <p>This is the article text of story {n}, long enough to be kept by anyone who reads it, \
             with one <a href=/x>inline link</a> in a sentence that goes on for a while.</p>\
             <ul class=related><li><a href=/r{n}a>Related story A {n}</a></li><li><a href=/r{n}b>Related B {n}</a></li></ul>\
             </div><div id=footer>© 2014 The Paper. All rights reserved.</div></body></html>"
        )
    }

    /// Each element's key text is its raw text (text nodes, a space after each child element)
    /// collapsed on its own, on real pages of every shared site.
    #[test]
    fn key_texts_are_the_collapsed_element_texts() {
        fn reference(doc: &Document) -> Vec<(NodeId, String)> {
            let mut out = Vec::new();
            let mut stack: Vec<String> = vec![String::new()];
            let dropped = |name: &str| doc.skips(name) || non_informative(doc, name);
            let prune = |n: NodeRef<'_, Node>| n.value().as_element().is_some_and(|el| dropped(el.name()));
            for edge in pruned_edges(doc.html.tree.root(), prune) {
                match edge {
                    Edge::Open(node) => match node.value() {
                        Node::Element(el) if dropped(el.name()) => {}
                        Node::Element(_) => stack.push(String::new()),
                        Node::Text(t) => stack.last_mut().expect("root").push_str(t),
                        _ => {}
                    },
                    Edge::Close(node) => {
                        let Node::Element(el) = node.value() else { continue };
                        if dropped(el.name()) {
                            continue;
                        }
                        let raw = stack.pop().unwrap_or_default();
                        let parent = stack.last_mut().expect("root");
                        parent.push_str(&raw);
                        parent.push(' ');
                        let text = crate::html::collapse_whitespace(&raw);
                        if !text.is_empty() && !matches!(el.name(), "html" | "body") {
                            out.push((node.id(), static_key(el, &text)));
                        }
                    }
                }
            }
            out
        }
        let Some(sites) = crate::testdata::shared_path("sites") else { return };
        let mut pages = 0;
        for site in std::fs::read_dir(&sites).expect("the shared sites read").flatten() {
            let mut files: Vec<_> = walk_html(&site.path());
            files.sort();
            for file in files.into_iter().take(3) {
                let html = String::from_utf8_lossy(&std::fs::read(&file).expect("page")).into_owned();
                let doc = Document::parse(&html);
                let mut keys = Vec::new();
                for_each_key(&doc, |id, key| keys.push((id, key.to_string())));
                assert_eq!(keys, reference(&doc), "{}", file.display());
                pages += 1;
            }
        }
        assert!(pages >= 10, "{pages} pages read");
        let doc = Document::parse("<p>a<b>b </b> c\u{a0}\u{2003} d<i> </i>e</p><div>\n x\ty </div>");
        let mut keys = Vec::new();
        for_each_key(&doc, |id, key| keys.push((id, key.to_string())));
        assert_eq!(keys, reference(&doc));
    }

    fn walk_html(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk_html(&path));
            } else if path.extension().is_some_and(|e| e == "html" || e == "htm") {
                out.push(path);
            }
        }
        out
    }

    #[test]
    fn static_keys_are_the_repeated_elements() {
        let docs: Vec<Document> = (1..=5).map(|n| Document::parse(&page(n))).collect();
        let model = learn_static(&docs, &StaDyNoTParams::default());
        assert_eq!(model.pages, 5);
        assert!(model.contains("div:id=\"footer\":© 2014 The Paper. All rights reserved."), "{:?}", model.keys);
        assert!(model.contains("a:href=\"/about\":About us"));
        assert!(!model.keys.iter().any(|k| k.contains("Story")), "{:?}", model.keys);
        // The lookup survives a serde round trip.
        let back: StaticNoiseModel = serde_json::from_str(&serde_json::to_string(&model).expect("ser")).expect("de");
        assert!(back.contains("a:href=\"/about\":About us"));
    }

    /// A node is covered when it is in a noise subtree, nested noise nodes included, as a walk
    /// of the whole tree finds them, and a block is noise by its element or by most of its
    /// characters inside; on real pages with noise sets of every size.
    #[test]
    fn covered_nodes_are_the_nodes_inside_the_noise_subtrees() {
        let Some(pages) = crate::testdata::site_articles("www.freepressokc.com") else { return };
        let walked = |doc: &Document, noise: &HashSet<NodeId>| -> HashSet<NodeId> {
            let mut out = HashSet::default();
            for node in doc.html.tree.root().descendants() {
                if std::iter::once(node).chain(node.ancestors()).any(|a| noise.contains(&a.id())) {
                    out.insert(node.id());
                }
            }
            out
        };
        let mut rng = fastrand::Rng::with_seed(5);
        for path in pages.iter().take(3) {
            let doc = Document::parse(&std::fs::read_to_string(path).expect("page"));
            let ids: Vec<NodeId> = doc.html.tree.nodes().map(|n| n.id()).collect();
            let blocks = segment(&doc);
            for size in [0, 1, 3, 30, 300] {
                let noise: HashSet<NodeId> = (0..size).map(|_| ids[rng.usize(..ids.len())]).collect();
                let covered = walked(&doc, &noise);
                let mut asked = Covered::new(&doc, &noise);
                assert!(
                    ids.iter().all(|&id| asked.contains(id) == covered.contains(&id)),
                    "{} nodes of noise",
                    noise.len()
                );
                // A block is noise by its element or by most of its characters inside.
                let expected: Vec<bool> = blocks
                    .iter()
                    .map(|b| {
                        let chars = |id: &NodeId| {
                            doc.html.tree.get(*id).and_then(|n| n.value().as_text().map(|t| collapsed_chars(t)))
                        };
                        let all: usize = b.text_nodes.iter().filter_map(chars).sum();
                        let inside: usize =
                            b.text_nodes.iter().filter(|id| covered.contains(id)).filter_map(chars).sum();
                        covered.contains(&b.element) || inside * 2 > all
                    })
                    .collect();
                assert_eq!(noise_labels(&doc, &blocks, &noise), expected);
            }
        }
    }

    #[test]
    fn dynamic_noise_removes_link_lists_but_keeps_the_article() {
        let doc = Document::parse(&page(7));
        let noise = noise_nodes(&doc, None, &StaDyNoTParams::default(), true);
        let blocks = segment(&doc);
        let flags = noise_labels(&doc, &blocks, &noise);
        let kept: Vec<&str> = blocks.iter().zip(&flags).filter(|(_, n)| !**n).map(|(b, _)| b.text.as_str()).collect();
        assert!(kept.iter().any(|t| t.starts_with("This is the article text of story 7")), "{kept:?}");
        assert!(kept.contains(&"Story 7"), "{kept:?}");
        assert!(!kept.iter().any(|t| t.contains("Related")), "{kept:?}");
        assert!(!kept.iter().any(|t| t.contains("About us")), "{kept:?}");
        let html = cleaned_html(&doc, &noise);
        assert!(html.contains("article text of story 7") && !html.contains("Related"), "{html}");
    }

    #[test]
    fn static_and_dynamic_together() {
        let docs: Vec<Document> = (1..=5).map(|n| Document::parse(&page(n))).collect();
        let model = learn_static(&docs, &StaDyNoTParams::default());
        let doc = Document::parse(&page(9));
        let noise = noise_nodes(&doc, Some(&model), &StaDyNoTParams::default(), true);
        let blocks = segment(&doc);
        let kept: Vec<String> = blocks
            .iter()
            .zip(noise_labels(&doc, &blocks, &noise))
            .filter(|(_, n)| !n)
            .map(|(b, _)| b.text.clone())
            .collect();
        assert!(!kept.iter().any(|t| t.contains("All rights reserved")), "{kept:?}");
        assert!(kept.iter().any(|t| t.contains("article text of story 9")), "{kept:?}");
    }

    /// Teaser lists whose links wrap block elements (`<span><a><div>…</div></a></span>`, which
    /// html5ever's adoption agency restructures) are link lists: all their text is link text.
    #[test]
    fn block_teasers_inside_links_are_dynamic_noise() {
        let teaser = |n: usize| {
            format!(
                "<div class=row><div><span><a href=/story{n}><div class=teaser><div class=teaser-text>\
                 <div class=authored>10.11.2021</div><h2>Teaser headline number {n} of the list</h2>\
                 <p><span><span>The first sentence of story {n}, shown here as a teaser with a long text.</span></span></p>\
                 </div></div></a></span></div></div>"
            )
        };
        let html = format!(
            "<html><body><div class=main><p>{}</p></div><div class=list>{}</div></body></html>",
            "The article itself, with enough plain text to stand on its own as the main content. ".repeat(4),
            (1..=4).map(teaser).collect::<String>()
        );
        let doc = Document::parse(&html);
        let noise = noise_nodes(&doc, None, &StaDyNoTParams::default(), true);
        let blocks = segment(&doc);
        let kept: Vec<&str> = blocks
            .iter()
            .zip(noise_labels(&doc, &blocks, &noise))
            .filter(|(_, n)| !n)
            .map(|(b, _)| b.text.as_str())
            .collect();
        assert!(kept.iter().any(|t| t.starts_with("The article itself")), "{kept:?}");
        assert!(!kept.iter().any(|t| t.contains("Teaser headline") || t.contains("shown here")), "{kept:?}");
    }
}
