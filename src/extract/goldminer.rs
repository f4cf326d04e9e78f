//! GoldMiner (Endrédy & Novák 2013, §III): per-host begin/end tag patterns around the article
//! body. The principal types are [`GoldMinerModel`] (what is learned from a host's sample, part
//! of the [`DomainModel`](crate::domain::DomainModel)) and the [`GoldMiner`] extractor, which
//! cuts each page to the [`stretch`] between the patterns and runs jusText on that stretch only.
//!
//! Learning ([`learn`], called by [`crate::domain::learn`]) follows §III.A–B:
//!
//! 1. jusText-good paragraphs repeated across pages of the sample become bad (repeated = the
//!    same normalised text — lower-cased, whitespace collapsed — is good on ≥ 2 pages);
//! 2. only pages whose unique good text reaches [`GoldMinerParams::min_page_chars`] take part
//!    (the paper uses "a threshold" without giving it);
//! 3. per page, the nearest common parent element of the unique good paragraphs; a parent is
//!    identified by its start-tag signature (see [`TokenStream`]) and the tag names of its
//!    ancestors (not their attributes, which carry per-section classes on portals), and the
//!    most frequent one wins;
//! 4. on the pages whose parent is the winner, the cutting points are searched "within the
//!    content of the previously selected tag" (§III.A). Begin candidates are token sequences of
//!    1..=[`GoldMinerParams::max_pattern_tokens`] tokens that end before the first unique good
//!    paragraph, at most [`GoldMinerParams::pattern_window_tokens`] tokens before it, and not
//!    before the parent's start tag (which a candidate may end with); the chosen one is the most
//!    frequent candidate that is *uniquely identifiable*: it occurs exactly once on every
//!    winning page where it occurs. End candidates start within
//!    [`GoldMinerParams::end_window_tokens`] tokens after the last unique good paragraph, inside
//!    the parent; one counts for a page when its first occurrence after the begin pattern lies
//!    after that paragraph and inside the parent. Ties go to the candidate nearest the
//!    paragraph, then to the shorter one. (The wide begin window lets the pattern reach back to
//!    a title that jusText judged bad on some pages; the narrower end window keeps the cut
//!    before unique comments at the end of the parent, as in the paper's Fig. 1.)
//!
//! Learning gives `None` (the host falls back to plain jusText) when the winning parent, the
//! begin or the end pattern is supported by fewer than
//! `max(min_support, ceil(min_support_share × pages used))` pages.

use crate::extract::{justext, ExtractContext, ExtractError, Extractor};
use crate::html::segment::is_skipped_tag;
use crate::html::walk::{pruned_edges, VOID_TAGS};
use crate::html::Document;
use crate::model::{Block, Label};
use ego_tree::iter::Edge;
use ego_tree::NodeId;
use scraper::node::Element;
use scraper::Node;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

/// GoldMiner learning thresholds: config section `[learn.goldminer]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GoldMinerParams {
    /// Fewest characters of unique good text for a page to take part in learning (§III.A: "only
    /// pages where the length of the extracted paragraphs reaches a threshold"; the value is
    /// ours). Default 200.
    pub min_page_chars: usize,
    /// Longest begin/end pattern, in tokens. Default 4.
    pub max_pattern_tokens: usize,
    /// How far before the first unique good paragraph a begin pattern may start, in tokens
    /// (bounded by the winning parent's start tag in any case). Default 256.
    pub pattern_window_tokens: usize,
    /// How far after the last unique good paragraph an end pattern may start, in tokens.
    /// Default 32.
    pub end_window_tokens: usize,
    /// Fewest pages that must agree on the parent and on each pattern. Default 3.
    pub min_support: usize,
    /// Least share of the pages used that must agree on the parent and on each pattern.
    /// Default 0.2.
    pub min_support_share: f64,
    /// Most page templates (begin/end pattern pairs) learned per host. Default 3; 1 is the
    /// paper's single pattern.
    pub max_templates: usize,
}

impl Default for GoldMinerParams {
    fn default() -> Self {
        GoldMinerParams {
            min_page_chars: 200,
            max_pattern_tokens: 4,
            pattern_window_tokens: 256,
            end_window_tokens: 32,
            min_support: 3,
            min_support_share: 0.2,
            max_templates: 3,
        }
    }
}

/// What GoldMiner learned for one host (§III.A "the configuration information learned for the
/// given subdomain contains these html patterns").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoldMinerModel {
    /// Tokens of the begin pattern (see [`TokenStream`]), e.g. `["</h1>", "<div class=\"entry\">"]`.
    pub begin: Vec<String>,
    /// Tokens of the end pattern.
    pub end: Vec<String>,
    /// The winning nearest common parent: its ancestors' tag names from the root, then its own
    /// start-tag signature, joined by ` > `.
    pub parent: String,
    /// Pages whose nearest common parent was the winner.
    pub support: usize,
    /// Pages on which the begin pattern was uniquely found right before the article.
    #[serde(default)]
    pub begin_support: usize,
    /// Pages on which the end pattern was first found right after the article.
    #[serde(default)]
    pub end_support: usize,
    /// Pages that passed the length threshold and took part in learning.
    pub pages_used: usize,
    /// Distinct jusText-good paragraph texts that repeated across pages and became bad.
    pub repeated_paragraphs: usize,
    /// Patterns of further page templates of the host, learned the same way on the sampled
    /// pages that none of the earlier patterns cut (a portal often has two or three article
    /// templates; our extension of §III.A, at most [`GoldMinerParams::max_templates`] in all).
    /// [`stretch`] tries the patterns in order.
    #[serde(default)]
    pub alternatives: Vec<GoldMinerModel>,
}

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
    /// The tokens.
    pub tokens: Vec<String>,
    /// xxh3 of each token, for matching.
    pub ids: Vec<u64>,
    /// Token index of the `#text` marker of each non-blank text node.
    pub text_pos: HashMap<NodeId, usize>,
    /// Token index of each element's start tag.
    pub open_pos: HashMap<NodeId, usize>,
    /// Token index of each element's end tag (its start tag for void elements).
    pub close_pos: HashMap<NodeId, usize>,
}

const TEXT_MARKER: &str = "#text";

impl TokenStream {
    /// Tokenise a parsed page.
    pub fn new(doc: &Document) -> TokenStream {
        let mut ts = TokenStream::default();
        // A skipped element (script, style, ...) gives its start and end tags only.
        let prune = |n: ego_tree::NodeRef<'_, Node>| n.value().as_element().is_some_and(|el| is_skipped_tag(el.name()));
        for edge in pruned_edges(doc.html.tree.root(), prune) {
            match edge {
                Edge::Open(node) => match node.value() {
                    Node::Element(el) => {
                        ts.open_pos.insert(node.id(), ts.tokens.len());
                        ts.push(start_signature(el));
                    }
                    Node::Text(t) if !t.trim().is_empty() => {
                        ts.text_pos.insert(node.id(), ts.tokens.len());
                        ts.push(TEXT_MARKER.to_string());
                    }
                    _ => {}
                },
                Edge::Close(node) => {
                    if let Node::Element(el) = node.value() {
                        if VOID_TAGS.contains(&el.name()) {
                            ts.close_pos.insert(node.id(), ts.tokens.len().saturating_sub(1));
                        } else {
                            ts.close_pos.insert(node.id(), ts.tokens.len());
                            ts.push(format!("</{}>", el.name()));
                        }
                    }
                }
            }
        }
        ts
    }

    fn push(&mut self, token: String) {
        self.ids.push(xxh3_64(token.as_bytes()));
        self.tokens.push(token);
    }

    /// Index of the first occurrence of `pattern` starting at or after `from`.
    pub fn find(&self, pattern: &[u64], from: usize) -> Option<usize> {
        if pattern.is_empty() || from > self.ids.len() {
            return None;
        }
        self.ids[from..].windows(pattern.len()).position(|w| w == pattern).map(|p| p + from)
    }

    /// Number of (possibly overlapping) occurrences of `pattern`, counting stops at `cap`.
    fn count(&self, pattern: &[u64], cap: usize) -> usize {
        self.count_from(pattern, 0, cap)
    }

    /// Like [`TokenStream::count`], over the tokens from `from` on.
    fn count_from(&self, pattern: &[u64], from: usize, cap: usize) -> usize {
        let mut n = 0;
        let mut from = from;
        while let Some(p) = self.find(pattern, from) {
            n += 1;
            if n >= cap {
                break;
            }
            from = p + 1;
        }
        n
    }

    /// Token index of a block's first text node.
    fn block_start(&self, block: &Block) -> Option<usize> {
        block.text_nodes.iter().find_map(|id| self.text_pos.get(id).copied())
    }

    /// Token index of a block's last text node.
    fn block_end(&self, block: &Block) -> Option<usize> {
        block.text_nodes.iter().rev().find_map(|id| self.text_pos.get(id).copied())
    }
}

/// The normalised start-tag signature of an element (see [`TokenStream`]).
pub fn start_signature(el: &Element) -> String {
    let mut s = format!("<{}", el.name());
    let mut classes: Vec<String> = el.classes().map(mask_digits).collect();
    classes.sort();
    classes.dedup();
    if !classes.is_empty() {
        s.push_str(&format!(" class=\"{}\"", classes.join(" ")));
    }
    if let Some(id) = el.id() {
        s.push_str(&format!(" id=\"{}\"", mask_digits(id.trim())));
    }
    s.push('>');
    s
}

/// Each run of ASCII digits replaced by `#`.
fn mask_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
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
    out
}

/// One page of the sample as GoldMiner's learner sees it: parsed, segmented and labelled by
/// jusText.
pub struct LearnPage<'a> {
    /// The parsed page.
    pub doc: &'a Document,
    /// Its blocks.
    pub blocks: &'a [Block],
    /// jusText's labels, one per block.
    pub labels: &'a [Label],
}

/// Learn a host's begin/end patterns from its sample (§III.A–B; the steps are in the module
/// doc), then the patterns of further templates on the pages the first ones do not cut (see
/// [`GoldMinerModel::alternatives`]). `None` when the sample shows no parent or pattern with
/// the minimum support.
pub fn learn(pages: &[LearnPage<'_>], params: &GoldMinerParams) -> Option<GoldMinerModel> {
    let mut model = learn_template(pages, params)?;
    let mut rest: Vec<&LearnPage<'_>> = pages.iter().collect();
    for _ in 1..params.max_templates.max(1) {
        rest.retain(|p| stretch(p.doc, p.blocks, &model).is_err());
        if rest.len() < params.min_support.max(1) {
            break;
        }
        let rest_pages: Vec<LearnPage<'_>> =
            rest.iter().map(|p| LearnPage { doc: p.doc, blocks: p.blocks, labels: p.labels }).collect();
        match learn_template(&rest_pages, params) {
            Some(alt) => model.alternatives.push(alt),
            None => break,
        }
    }
    Some(model)
}

/// Learn one template's begin/end patterns (§III.A–B).
fn learn_template(pages: &[LearnPage<'_>], params: &GoldMinerParams) -> Option<GoldMinerModel> {
    // 1. Good paragraphs repeated on ≥ 2 pages become bad.
    let norm = |b: &Block| b.text.to_lowercase();
    let mut pages_per_text: HashMap<String, usize> = HashMap::new();
    for page in pages {
        let texts: HashSet<String> = good_blocks(page).map(|(_, b)| norm(b)).collect();
        for t in texts {
            *pages_per_text.entry(t).or_default() += 1;
        }
    }
    let repeated_paragraphs = pages_per_text.values().filter(|&&n| n >= 2).count();
    let unique: Vec<Vec<usize>> = pages
        .iter()
        .map(|page| {
            good_blocks(page).filter(|(_, b)| pages_per_text.get(&norm(b)) == Some(&1)).map(|(i, _)| i).collect()
        })
        .collect();

    // 2. Only pages with enough unique good text take part.
    let used: Vec<usize> = (0..pages.len())
        .filter(|&p| unique[p].iter().map(|&i| pages[p].blocks[i].chars).sum::<usize>() >= params.min_page_chars)
        .collect();
    let required = params.min_support.max((params.min_support_share * used.len() as f64).ceil() as usize).max(1);

    // 3. The nearest common parent of the unique good paragraphs; the most frequent wins.
    let parents: Vec<(usize, NodeId, String)> = used
        .iter()
        .filter_map(|&p| {
            let elements: Vec<NodeId> = unique[p].iter().map(|&i| pages[p].blocks[i].element).collect();
            common_parent(pages[p].doc, &elements).map(|id| (p, id, signature_path(pages[p].doc, id)))
        })
        .collect();
    let mut parent_counts: HashMap<&str, usize> = HashMap::new();
    for (_, _, key) in &parents {
        *parent_counts.entry(key.as_str()).or_default() += 1;
    }
    let (parent, support) = parent_counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(k, n)| (k.to_string(), *n))?;
    if support < required {
        return None;
    }

    // 4. Begin and end patterns on the pages whose parent is the winner.
    let winners: Vec<Winner> = parents
        .iter()
        .filter(|(_, _, key)| *key == parent)
        .filter_map(|(p, id, _)| {
            let page = &pages[*p];
            let tokens = TokenStream::new(page.doc);
            let first = tokens.block_start(&page.blocks[*unique[*p].first()?])?;
            let last = tokens.block_end(&page.blocks[*unique[*p].last()?])?;
            let open = *tokens.open_pos.get(id)?;
            let close = *tokens.close_pos.get(id)?;
            Some(Winner { tokens, first, last, open, close })
        })
        .collect();
    let (begin, begin_support) = best_begin(&winners, params)?;
    let (end, end_support) = best_end(&winners, &begin, params)?;
    if begin_support < required || end_support < required {
        return None;
    }
    let strings = |pattern: &[u64]| -> Vec<String> {
        winners
            .iter()
            .find_map(|w| w.tokens.find(pattern, 0).map(|at| w.tokens.tokens[at..at + pattern.len()].to_vec()))
            .unwrap_or_default()
    };
    Some(GoldMinerModel {
        begin: strings(&begin),
        end: strings(&end),
        parent,
        support,
        begin_support,
        end_support,
        pages_used: used.len(),
        repeated_paragraphs,
        alternatives: Vec::new(),
    })
}

/// A page whose nearest common parent is the winner: its tokens, the token positions of the
/// first and last unique good paragraph's text, and of the parent's start and end tags.
struct Winner {
    tokens: TokenStream,
    first: usize,
    last: usize,
    open: usize,
    close: usize,
}

/// Score of one candidate pattern: pages it works on, summed distance to the paragraph, and
/// whether it is disqualified.
#[derive(Default)]
struct Score {
    pages: usize,
    gap: usize,
    covered: usize,
    ambiguous: bool,
}

/// Pick the best of the scored candidates: most pages, then smallest total gap, then shortest,
/// then the smallest token ids (for determinism).
fn pick(scores: HashMap<Vec<u64>, Score>) -> Option<(Vec<u64>, usize)> {
    scores
        .into_iter()
        .filter(|(_, s)| !s.ambiguous && s.pages > 0)
        .min_by(|(pa, a), (pb, b)| {
            b.pages
                .cmp(&a.pages)
                .then(b.covered.cmp(&a.covered))
                .then(a.gap.cmp(&b.gap))
                .then(pa.len().cmp(&pb.len()))
                .then(pa.cmp(pb))
        })
        .map(|(p, s)| (p, s.pages))
}

/// Candidate sequences lying wholly in `window` of `ids` that end after `min_end` (begin) or
/// start before `max_start` (end), with their distance to the paragraph.
fn candidates(
    ids: &[u64],
    window: Range<usize>,
    max_len: usize,
    before: bool,
    bound: usize,
) -> HashMap<Vec<u64>, usize> {
    let mut out: HashMap<Vec<u64>, usize> = HashMap::new();
    for start in window.clone() {
        for len in 1..=max_len {
            let end = start + len;
            if end > window.end {
                break;
            }
            if (before && end <= bound) || (!before && start > bound) {
                continue;
            }
            let gap = if before { window.end - end } else { start - window.start };
            let e = out.entry(ids[start..end].to_vec()).or_insert(gap);
            *e = (*e).min(gap);
        }
    }
    out
}

/// The most frequent uniquely identifiable begin pattern. Candidates lie inside the winning
/// parent (§III.A: the search for the cutting points is "within the content of the previously
/// selected tag"; a candidate may end with the parent's start tag), before the first unique
/// good paragraph and at most `pattern_window_tokens` tokens before it.
fn best_begin(winners: &[Winner], params: &GoldMinerParams) -> Option<(Vec<u64>, usize)> {
    let mut scores: HashMap<Vec<u64>, Score> = HashMap::new();
    let max_len = params.max_pattern_tokens.max(1);
    for w in winners {
        let lo = w.first.saturating_sub(params.pattern_window_tokens).max(w.open.saturating_sub(max_len - 1));
        for (cand, gap) in candidates(&w.tokens.ids, lo..w.first, max_len, true, w.open) {
            let s = scores.entry(cand.clone()).or_default();
            if w.tokens.count(&cand, 2) == 1 {
                s.pages += 1;
                s.gap += gap;
            }
        }
    }
    // Uniquely identifiable: at most one occurrence on every winning page.
    for (cand, s) in scores.iter_mut() {
        s.ambiguous = winners.iter().any(|w| w.tokens.count(cand, 2) > 1);
    }
    pick(scores)
}

/// The most frequent end pattern whose first occurrence after the begin pattern lies after the
/// last unique good paragraph, starts inside the winning parent, and at most
/// `end_window_tokens` tokens after the paragraph.
fn best_end(winners: &[Winner], begin: &[u64], params: &GoldMinerParams) -> Option<(Vec<u64>, usize)> {
    let mut scores: HashMap<Vec<u64>, Score> = HashMap::new();
    for w in winners {
        let Some(b) = w.tokens.find(begin, 0).map(|at| at + begin.len()) else {
            continue;
        };
        let from = w.last + 1;
        if b > from {
            continue;
        }
        let window = from..(from + params.end_window_tokens).min(w.tokens.ids.len());
        for (cand, _) in candidates(&w.tokens.ids, window, params.max_pattern_tokens.max(1), false, w.close) {
            let s = scores.entry(cand.clone()).or_default();
            match w.tokens.find(&cand, b) {
                Some(at) if at >= from && at <= w.close => {
                    s.pages += 1;
                    s.gap += at - from;
                }
                _ => {}
            }
        }
    }
    pick(scores)
}

/// Indices and blocks jusText labelled good.
fn good_blocks<'p>(page: &'p LearnPage<'_>) -> impl Iterator<Item = (usize, &'p Block)> + 'p {
    page.blocks.iter().enumerate().filter(|(i, _)| page.labels.get(*i).is_some_and(|l| l.is_good()))
}

/// The nearest common ancestor element of `elements` (an element is its own ancestor).
fn common_parent(doc: &Document, elements: &[NodeId]) -> Option<NodeId> {
    let chain = |id: NodeId| -> Vec<NodeId> {
        let mut v: Vec<NodeId> =
            doc.html.tree.get(id).map(|n| n.ancestors().map(|a| a.id()).collect()).unwrap_or_default();
        v.reverse();
        v.push(id);
        v
    };
    let mut common = chain(*elements.first()?);
    for &id in &elements[1..] {
        let other = chain(id);
        let same = common.iter().zip(&other).take_while(|(a, b)| a == b).count();
        common.truncate(same);
    }
    common.into_iter().rev().find(|id| doc.html.tree.get(*id).is_some_and(|n| n.value().is_element()))
}

/// A parent's identity across pages: the tag names of its ancestors from the root, then its
/// own start-tag signature, joined by ` > ` (e.g. `html > body > div > <div class="story">`).
/// Ancestors give their names only: portals put per-section classes on outer wrappers
/// (`<div class="technology">`), which would split one template into many parents.
fn signature_path(doc: &Document, id: NodeId) -> String {
    let Some(node) = doc.html.tree.get(id) else {
        return String::new();
    };
    let mut parts: Vec<String> =
        node.ancestors().filter_map(|n| n.value().as_element().map(|e| e.name().to_string())).collect();
    parts.reverse();
    if let Some(el) = node.value().as_element() {
        parts.push(start_signature(el));
    }
    parts.join(" > ")
}

/// The block index range between the first match of the begin pattern and the first match of
/// the end pattern after it: the blocks whose first text node lies between the two (§III.A).
/// The model's template patterns are tried in order; the first that is on the page wins.
///
/// # Errors
/// [`ExtractError::PatternNotFound`] with `which` = "begin" or "end" when a pattern is not on
/// the page: such a page yields nothing (§III: index pages, tag clouds, search results).
pub fn stretch(doc: &Document, blocks: &[Block], model: &GoldMinerModel) -> Result<Range<usize>, ExtractError> {
    let ts = TokenStream::new(doc);
    let mut result = template_stretch(&ts, blocks, model);
    for alt in &model.alternatives {
        if result.is_ok() {
            break;
        }
        result = template_stretch(&ts, blocks, alt);
    }
    result
}

fn template_stretch(ts: &TokenStream, blocks: &[Block], model: &GoldMinerModel) -> Result<Range<usize>, ExtractError> {
    let ids = |p: &[String]| -> Vec<u64> { p.iter().map(|t| xxh3_64(t.as_bytes())).collect() };
    let begin = ids(&model.begin);
    let end = ids(&model.end);
    let b = ts.find(&begin, 0).ok_or(ExtractError::PatternNotFound { which: "begin" })? + begin.len();
    let e = ts.find(&end, b).ok_or(ExtractError::PatternNotFound { which: "end" })?;
    // Blocks and text markers are both in document order, so the range is contiguous.
    let mut pos = 0;
    let starts: Vec<usize> = blocks
        .iter()
        .map(|blk| {
            pos = ts.block_start(blk).unwrap_or(pos);
            pos
        })
        .collect();
    let first = starts.iter().position(|&p| p >= b).unwrap_or(blocks.len());
    let last = starts.iter().position(|&p| p >= e).unwrap_or(blocks.len()).max(first);
    Ok(first..last)
}

/// The GoldMiner extractor: with the host's model, blocks outside the [`stretch`] are bad and
/// jusText labels the stretch's blocks (the paper passes only the stretch to jusText); without
/// a model (or when none was learned), plain jusText.
#[derive(Debug, Clone, Copy, Default)]
pub struct GoldMiner;

impl Extractor for GoldMiner {
    fn name(&self) -> &'static str {
        "goldminer"
    }

    fn classify(&self, doc: &Document, blocks: &[Block], ctx: &ExtractContext<'_>) -> Result<Vec<Label>, ExtractError> {
        let Some(model) = ctx.model.and_then(|m| m.goldminer.as_ref()) else {
            return Ok(justext::classify(blocks, ctx.stoplist, ctx.justext));
        };
        let range = stretch(doc, blocks, model)?;
        let inner = justext::classify(&blocks[range.clone()], ctx.stoplist, ctx.justext);
        if inner.len() != range.len() {
            return Err(ExtractError::LabelCount { extractor: "justext", labels: inner.len(), blocks: range.len() });
        }
        let mut labels = vec![Label::Bad; blocks.len()];
        labels[range].copy_from_slice(&inner);
        Ok(labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::segment;

    fn page(n: usize, body: &str) -> String {
        format!(
            "<html><body><div id=\"menu\"><a href=/>Home</a> <a href=/news>News</a></div>\
             <div class=\"side\"><p>Popular story number {n} is here with a teaser that changes.</p></div>\
             <div id=\"post-{n}\" class=\"post entry\"><h1 class=\"title\">Headline {n}</h1>\
             <div class=\"entry-content\">{body}</div><div id=\"share\"><p>Share this story</p></div></div>\
             <div id=\"comments\"><p>Comment {n}: a unique reader comment about this article {n}.</p></div>\
             <div id=\"footer\"><p>Copyright 2013 Example Corp. All rights reserved.</p></div></body></html>"
        )
    }

    fn article(n: usize) -> String {
        (0..3)
            .map(|k| format!("<p>Article {n} paragraph {k}: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor {n}.</p>"))
            .collect()
    }

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
        let body: Vec<&str> = ts.tokens.iter().map(String::as_str).skip_while(|t| *t != "<body>").collect();
        assert_eq!(
            body,
            ["<body>", "<p>", "#text", "<br>", "#text", "</p>", "<script>", "</script>", "</body>", "</html>"]
        );
        assert_eq!(ts.text_pos.len(), 2);
    }

    #[test]
    fn learns_patterns_and_cuts_the_article() {
        let htmls: Vec<String> = (1..=8).map(|n| page(n, &article(n))).collect();
        let docs: Vec<Document> = htmls.iter().map(|h| Document::parse(h)).collect();
        let blocks: Vec<Vec<Block>> = docs.iter().map(segment).collect();
        let labels: Vec<Vec<Label>> = blocks.iter().map(|b| vec![Label::Good; b.len()]).collect();
        let pages: Vec<LearnPage> =
            (0..docs.len()).map(|i| LearnPage { doc: &docs[i], blocks: &blocks[i], labels: &labels[i] }).collect();
        let params = GoldMinerParams { min_page_chars: 100, ..GoldMinerParams::default() };
        let model = learn(&pages, &params).expect("a model");
        // Menu, share line and footer repeat on every page.
        assert!(model.repeated_paragraphs >= 3, "{model:?}");
        assert_eq!(model.pages_used, 8);
        // Unique text: side teaser, headline, article, comment → their common parent is body.
        assert!(model.parent.ends_with("<body>"), "{}", model.parent);

        let doc = Document::parse(&page(42, &article(42)));
        let blocks = segment(&doc);
        let range = stretch(&doc, &blocks, &model).expect("patterns on the page");
        let kept: Vec<&str> = blocks[range].iter().map(|b| b.text.as_str()).collect();
        assert!(kept.iter().any(|t| t.starts_with("Article 42 paragraph 2")), "{kept:?}");
        assert!(!kept.iter().any(|t| t.contains("Copyright")), "{kept:?}");

        let index = Document::parse("<html><body><ul><li><a href=/1>One</a></li></ul></body></html>");
        let err = stretch(&index, &segment(&index), &model).expect_err("no pattern on an index page");
        assert!(matches!(err, ExtractError::PatternNotFound { .. }));
    }

    #[test]
    fn too_few_pages_give_no_model() {
        let htmls: Vec<String> = (1..=2).map(|n| page(n, &article(n))).collect();
        let docs: Vec<Document> = htmls.iter().map(|h| Document::parse(h)).collect();
        let blocks: Vec<Vec<Block>> = docs.iter().map(segment).collect();
        let labels: Vec<Vec<Label>> = blocks.iter().map(|b| vec![Label::Good; b.len()]).collect();
        let pages: Vec<LearnPage> =
            (0..docs.len()).map(|i| LearnPage { doc: &docs[i], blocks: &blocks[i], labels: &labels[i] }).collect();
        assert!(learn(&pages, &GoldMinerParams::default()).is_none());
    }
}
