//! GoldMiner learning (Endrédy & Novák 2013, §III.A–B): the principal function is [`learn`],
//! which turns a host's labelled sample ([`LearnPage`]s) into a [`GoldMinerModel`]; the domain
//! learner ([`crate::domain::learn()`]) calls it once per host.
//!
//! 1. jusText-good paragraphs repeated across pages of the sample become bad (repeated = the
//!    same normalised text — lower-cased, whitespace collapsed — is good on ≥ 2 pages); the
//!    rest are the page's *green* (unique good) paragraphs, and runs of consecutive green
//!    blocks are its green *spans* (Fig. 1: the article body is one span, each comment
//!    another);
//! 2. only pages whose green text reaches [`GoldMinerParams::min_page_chars`] take part
//!    (the paper uses "a threshold" without giving it);
//! 3. per page, the nearest common parent element of the green paragraphs; a parent is
//!    identified by its start-tag signature (see [`TokenStream`]) and the tag names of its
//!    ancestors (not their attributes, which carry per-section classes on portals), and the
//!    most frequent one wins;
//! 4. on the pages whose parent is the winner, the cutting points are searched "within the
//!    content of the previously selected tag" (§III.A) among the patterns "preceding and
//!    following green paragraphs" (§III.B): begin candidates are token sequences of
//!    1..=[`GoldMinerParams::max_pattern_tokens`] tokens that end at most
//!    [`GoldMinerParams::pattern_window_tokens`] tokens before a green span (and not before the
//!    parent's start tag, which a candidate may end with); end candidates start at most
//!    [`GoldMinerParams::end_window_tokens`] tokens after a green span, inside the parent and
//!    after the begin pattern. The chosen pattern is "the most frequent uniquely identifiable"
//!    one: found on the most pages, and on no winning page more than once. Ties go to the begin
//!    pattern that keeps more green text after it (a title that is green on some pages), and
//!    to the end pattern that keeps less green text before it (the end of the article, not of
//!    the comments below it, as in Fig. 1; a span of headings alone is no article body and
//!    gets no end candidates); then to the pattern with fewer text nodes between it and its
//!    span, then to the shorter pattern (a shorter pattern is found wherever a longer one
//!    containing it is: the less page-specific choice), then to the nearer one in tokens.
//!    Among equally frequent parents, the deeper one wins; the pages whose green text lies
//!    deeper inside an element like the winner (a page with one green paragraph) join it.
//!
//! Steps 3–4 are repeated on the used pages that no learned template cuts, for up to
//! [`GoldMinerParams::max_templates`] templates (a portal often has two or three article
//! templates; our extension). A template is kept only when its parent, begin and end pattern
//! are each supported by at least `max(min_support, ceil(min_support_share × pages))` of the
//! pages it was learned from.

use super::tokens::{ngram_counts_of, seq_key, NgramCounts, TokenStream};
use super::{template_stretch, GoldMinerModel, GoldMinerParams};
use crate::html::Document;
use crate::model::{Block, Label};
use ego_tree::NodeId;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use xxhash_rust::xxh3::xxh3_64;

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

/// The key of a paragraph's text for repetition across pages: xxh3 of the lower-cased text
/// with whitespace collapsed. [`GoldMinerModel::repeated`] holds these keys.
pub fn paragraph_key(text: &str) -> u64 {
    let norm: String = text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    xxh3_64(norm.as_bytes())
}

/// Most parent candidates tried, in order of frequency, before a template is given up.
const MAX_PARENTS_TRIED: usize = 5;

/// A sample page prepared once for all templates: tokens, n-gram counts, green spans.
struct Prepared<'p, 'a> {
    page: &'p LearnPage<'a>,
    tokens: Rc<TokenStream>,
    /// Occurrences of each token sequence of up to `max_pattern_tokens` tokens ([`seq_key`]),
    /// empty for a page that takes no part.
    counts: Rc<NgramCounts>,
    /// Block indices of the green (unique good) paragraphs.
    green: Vec<usize>,
    /// Green spans: token index of the first and last text node, and characters.
    spans: Vec<Span>,
    green_chars: usize,
    /// Text nodes before each token index (prefix counts, one more entry than tokens).
    texts_before: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    chars: usize,
    /// Holds a paragraph that is not a heading (a title alone is not an article body).
    body: bool,
}

impl Prepared<'_, '_> {
    fn count(&self, pattern: &[u64]) -> u32 {
        self.counts.get(&seq_key(pattern)).copied().unwrap_or(0)
    }

    /// Text nodes among the tokens `from..to`.
    fn texts_between(&self, from: usize, to: usize) -> usize {
        let at = |i: usize| self.texts_before.get(i).copied().unwrap_or(self.texts_before.last().copied().unwrap_or(0));
        at(to).saturating_sub(at(from))
    }

    /// Green characters of the spans that start at or after token `from` and end before `to`.
    fn green_between(&self, from: usize, to: usize) -> usize {
        self.spans.iter().filter(|s| s.start >= from && s.end < to).map(|s| s.chars).sum()
    }
}

/// Learn a host's begin/end patterns from its sample (§III.A–B; the steps are in the module
/// doc), with the patterns of further templates in [`GoldMinerModel::alternatives`]. `None`
/// when the sample shows no parent or pattern with the minimum support.
pub fn learn(pages: &[LearnPage<'_>], params: &GoldMinerParams) -> Option<GoldMinerModel> {
    let max_len = params.max_pattern_tokens.max(1);
    // 1. Good paragraphs repeated on ≥ 2 pages become bad.
    let good_keys: Vec<HashSet<u64>> =
        pages.iter().map(|page| good_blocks(page).map(|(_, b)| paragraph_key(&b.text)).collect()).collect();
    let mut pages_per_key: HashMap<u64, usize> = HashMap::new();
    for keys in &good_keys {
        for &k in keys {
            *pages_per_key.entry(k).or_default() += 1;
        }
    }
    let repeated_paragraphs = pages_per_key.values().filter(|&&n| n >= 2).count();
    // Template text: paragraphs on as many pages as a template pattern must be.
    let template_pages = params.min_support.max((params.min_support_share * pages.len() as f64).ceil() as usize).max(2);
    let mut repeated: Vec<u64> = pages_per_key.iter().filter(|(_, &n)| n >= template_pages).map(|(&k, _)| k).collect();
    repeated.sort_unstable();

    let prepared: Vec<Prepared<'_, '_>> = pages
        .iter()
        .map(|page| {
            let tokens = TokenStream::of(page.doc);
            let green: Vec<usize> = good_blocks(page)
                .filter(|(_, b)| pages_per_key.get(&paragraph_key(&b.text)) == Some(&1))
                .map(|(i, _)| i)
                .collect();
            let spans = spans(&tokens, page.blocks, &green);
            let green_chars = green.iter().map(|&i| page.blocks[i].chars).sum();
            let mut texts_before = Vec::with_capacity(tokens.ids.len() + 1);
            texts_before.push(0);
            let text_id = xxh3_64(super::tokens::TEXT_MARKER.as_bytes());
            for &id in &tokens.ids {
                let last = texts_before.last().copied().unwrap_or(0);
                texts_before.push(last + usize::from(id == text_id));
            }
            Prepared { page, counts: Rc::default(), tokens, green, spans, green_chars, texts_before }
        })
        .collect();

    // 2. Only pages with enough green text take part.
    let used: Vec<usize> = (0..prepared.len()).filter(|&p| prepared[p].green_chars >= params.min_page_chars).collect();
    let mut prepared = prepared;
    for &p in &used {
        prepared[p].counts = ngram_counts_of(prepared[p].page.doc, max_len);
    }

    // 3–4, once per template, on the pages no earlier template cuts.
    let mut templates: Vec<GoldMinerModel> = Vec::new();
    let mut rest = used.clone();
    for _ in 0..params.max_templates.max(1) {
        if rest.len() < params.min_support.max(1) {
            break;
        }
        let Some(template) = learn_template(&prepared, &rest, params) else {
            break;
        };
        let before = rest.len();
        rest.retain(|&p| !cuts(&prepared[p], &template));
        if rest.len() == before {
            break;
        }
        templates.push(template);
    }
    let mut templates = templates.into_iter();
    let mut model = templates.next()?;
    model.alternatives = templates.collect();
    model.pages_used = used.len();
    model.repeated_paragraphs = repeated_paragraphs;
    model.repeated = repeated;
    Some(model)
}

/// Whether `template` cuts the page so that the stretch holds at least half its green text.
fn cuts(page: &Prepared<'_, '_>, template: &GoldMinerModel) -> bool {
    let Ok(range) = template_stretch(&page.tokens, page.page.blocks, template) else {
        return false;
    };
    let kept: usize = page.green.iter().filter(|i| range.contains(i)).map(|&i| page.page.blocks[i].chars).sum();
    2 * kept >= page.green_chars
}

/// Runs of consecutive green blocks, as token positions.
fn spans(tokens: &TokenStream, blocks: &[Block], green: &[usize]) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut prev: Option<usize> = None;
    for &i in green {
        let (Some(start), Some(end)) = (tokens.block_start(&blocks[i]), tokens.block_end(&blocks[i])) else {
            continue;
        };
        match (prev, out.last_mut()) {
            (Some(p), Some(span)) if p + 1 == i => {
                span.end = end;
                span.chars += blocks[i].chars;
                span.body |= !blocks[i].heading;
            }
            _ => out.push(Span { start, end, chars: blocks[i].chars, body: !blocks[i].heading }),
        }
        prev = Some(i);
    }
    out
}

/// Learn one template's parent and begin/end patterns on the used pages `pages` (§III.A–B).
fn learn_template(prepared: &[Prepared<'_, '_>], pages: &[usize], params: &GoldMinerParams) -> Option<GoldMinerModel> {
    let required = params.min_support.max((params.min_support_share * pages.len() as f64).ceil() as usize).max(1);

    // 3. The nearest common parent of the green paragraphs; the most frequent wins.
    let parents: Vec<(usize, NodeId, String)> = pages
        .iter()
        .filter_map(|&p| {
            let page = &prepared[p];
            let elements: Vec<NodeId> = page.green.iter().map(|&i| page.page.blocks[i].element).collect();
            common_parent(page.page.doc, &elements).map(|id| (p, id, parent_key(page.page.doc, id)))
        })
        .collect();
    let mut parent_counts: HashMap<&str, usize> = HashMap::new();
    for (_, _, key) in &parents {
        *parent_counts.entry(key.as_str()).or_default() += 1;
    }
    // A page whose green text sits deeper inside an element with the winning key (a page
    // with a single green paragraph, or without a green title) is cut there too.
    let under = |p: usize, id: NodeId, key: &str| -> Option<NodeId> {
        let doc = prepared[p].page.doc;
        let node = doc.html.tree.get(id)?;
        std::iter::once(node)
            .chain(node.ancestors())
            .find(|n| n.value().is_element() && parent_key(doc, n.id()) == key)
            .map(|n| n.id())
    };
    // The most frequent parent wins; ties go to the deeper (more specific) one. A parent whose
    // pages show no patterns with the minimum support gives way to the next one.
    let depth = |k: &str| k.matches(" > ").count();
    let mut ranked: Vec<(&str, usize)> = parent_counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(depth(b.0).cmp(&depth(a.0))).then_with(|| a.0.cmp(b.0)));
    ranked.into_iter().take(MAX_PARENTS_TRIED).find_map(|(parent, _)| {
        // 4. Begin and end patterns on the pages whose parent is (inside) the winner.
        let winners: Vec<Winner<'_, '_, '_>> = parents
            .iter()
            .filter_map(|(p, id, _)| {
                let at = under(*p, *id, parent)?;
                let page = &prepared[*p];
                let open = *page.tokens.open_pos.get(&at)?;
                let close = *page.tokens.close_pos.get(&at)?;
                Some(Winner { page, open, close })
            })
            .collect();
        if winners.len() < required {
            return None;
        }
        let (begin, begin_support) = best_begin(&winners, params)?;
        let (end, end_support) = best_end(&winners, &begin, params)?;
        if begin_support < required || end_support < required {
            return None;
        }
        let strings = |pattern: &[u64]| -> Vec<String> {
            winners
                .iter()
                .find_map(|w| {
                    let tokens = &w.page.tokens;
                    let at = tokens.find(pattern, 0)?;
                    (at..at + pattern.len()).map(|i| tokens.token(i).map(str::to_string)).collect()
                })
                .unwrap_or_default()
        };
        Some(GoldMinerModel {
            begin: strings(&begin),
            end: strings(&end),
            parent: parent.to_string(),
            support: winners.len(),
            begin_support,
            end_support,
            pages_used: pages.len(),
            repeated_paragraphs: 0,
            repeated: Vec::new(),
            alternatives: Vec::new(),
            sample_drop: None,
        })
    })
}

/// A page whose nearest common parent is the winner, with the token positions of the parent's
/// start and end tags.
struct Winner<'w, 'p, 'a> {
    page: &'w Prepared<'p, 'a>,
    open: usize,
    close: usize,
}

/// One candidate's best place on one page: its distance to the span and the green text the
/// cut keeps there (see [`Score`]).
#[derive(Debug, Clone, Copy)]
struct Found {
    text_gap: usize,
    gap: usize,
    covered: usize,
}

impl Found {
    fn nearer(self, other: Found) -> Found {
        if (other.text_gap, other.gap) < (self.text_gap, self.gap) {
            other
        } else {
            self
        }
    }
}

/// Score of one candidate pattern over the winning pages.
#[derive(Default, Debug)]
struct Score {
    /// Pages where it is found once, next to a green span.
    pages: usize,
    /// Summed distance to the span in text nodes: the text the cut lets in (begin) or
    /// leaves out (end) besides the span.
    text_gap: usize,
    /// Summed distance to the span, in tokens.
    gap: usize,
    /// Summed green characters kept by the cut (begin: after it; end: between begin and it).
    covered: usize,
    /// Found more than once on some winning page.
    ambiguous: bool,
}

/// Candidates of up to `max_len` tokens: for a begin pattern (`before`), those that end in
/// `lo..=hi` (exclusive end); for an end pattern, those that start in `lo..=hi`. With that
/// end or start position.
fn candidates(ids: &[u64], lo: usize, hi: usize, max_len: usize, before: bool) -> Vec<(&[u64], usize)> {
    let mut out = Vec::new();
    for at in lo..=hi {
        for len in 1..=max_len {
            let (start, end) = if before { (at.checked_sub(len), at) } else { (Some(at), at + len) };
            let Some(start) = start else { break };
            if end > ids.len() {
                break;
            }
            out.push((&ids[start..end], at));
        }
    }
    out
}

/// Pick the most frequent unambiguous candidate, with the ties of the module doc (`begin`:
/// more covered green text first; end: less), then the smaller token ids (for determinism).
/// Returns the pattern and its page support.
fn pick(scores: HashMap<Vec<u64>, Score>, begin: bool) -> Option<(Vec<u64>, usize)> {
    scores
        .into_iter()
        .filter(|(_, s)| !s.ambiguous && s.pages > 0)
        .min_by(|(pa, a), (pb, b)| {
            let covered = if begin { b.covered.cmp(&a.covered) } else { a.covered.cmp(&b.covered) };
            b.pages
                .cmp(&a.pages)
                .then(covered)
                .then(a.text_gap.cmp(&b.text_gap))
                .then(pa.len().cmp(&pb.len()))
                .then(a.gap.cmp(&b.gap))
                .then_with(|| pa.cmp(pb))
        })
        .map(|(p, s)| (p, s.pages))
}

/// Record, on page `w`, the best (smallest) gap of each candidate and whether it is unique.
fn add_page_candidates(scores: &mut HashMap<Vec<u64>, Score>, w: &Winner<'_, '_, '_>, found: HashMap<&[u64], Found>) {
    for (cand, f) in found {
        let s = scores.entry(cand.to_vec()).or_default();
        if w.page.count(cand) == 1 {
            s.pages += 1;
            s.text_gap += f.text_gap;
            s.gap += f.gap;
            s.covered += f.covered;
        } else {
            s.ambiguous = true;
        }
    }
}

/// The most frequent uniquely identifiable begin pattern: it ends before a green span, at most
/// `pattern_window_tokens` tokens before it, and not before the parent's start tag.
fn best_begin(winners: &[Winner<'_, '_, '_>], params: &GoldMinerParams) -> Option<(Vec<u64>, usize)> {
    let max_len = params.max_pattern_tokens.max(1);
    let mut scores: HashMap<Vec<u64>, Score> = HashMap::new();
    for w in winners {
        let ids = &w.page.tokens.ids;
        let mut found: HashMap<&[u64], Found> = HashMap::new();
        for span in w.page.spans.iter().filter(|s| s.start > w.open && s.end < w.close) {
            let lo = span.start.saturating_sub(params.pattern_window_tokens).max(w.open + 1);
            for (cand, at) in candidates(ids, lo, span.start, max_len, true) {
                let f = Found {
                    text_gap: w.page.texts_between(at, span.start),
                    gap: span.start - at,
                    covered: w.page.green_between(span.start, w.close),
                };
                found.entry(cand).and_modify(|e| *e = e.nearer(f)).or_insert(f);
            }
        }
        add_page_candidates(&mut scores, w, found);
    }
    // Uniquely identifiable: a candidate more than once on any winning page is out.
    for (cand, s) in scores.iter_mut() {
        s.ambiguous |= winners.iter().any(|w| w.page.count(cand) > 1);
    }
    pick(scores, true)
}

/// The most frequent uniquely identifiable end pattern: it starts at most `end_window_tokens`
/// tokens after a green span that follows the begin pattern, inside the parent.
fn best_end(winners: &[Winner<'_, '_, '_>], begin: &[u64], params: &GoldMinerParams) -> Option<(Vec<u64>, usize)> {
    let max_len = params.max_pattern_tokens.max(1);
    let mut scores: HashMap<Vec<u64>, Score> = HashMap::new();
    for w in winners {
        let Some(b) = w.page.tokens.find(begin, 0).map(|at| at + begin.len()) else {
            continue;
        };
        let ids = &w.page.tokens.ids;
        let mut found: HashMap<&[u64], Found> = HashMap::new();
        for span in w.page.spans.iter().filter(|s| s.body && s.start >= b && s.end < w.close) {
            let lo = span.end + 1;
            let hi = (span.end + params.end_window_tokens).min(w.close);
            for (cand, at) in candidates(ids, lo, hi, max_len, false) {
                let f = Found {
                    text_gap: w.page.texts_between(lo, at),
                    gap: at - lo,
                    covered: w.page.green_between(b, lo),
                };
                found.entry(cand).and_modify(|e| *e = e.nearer(f)).or_insert(f);
            }
        }
        add_page_candidates(&mut scores, w, found);
    }
    for (cand, s) in scores.iter_mut() {
        s.ambiguous |= winners.iter().any(|w| w.page.count(cand) > 1);
    }
    pick(scores, false)
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
/// own name and (digit-masked) id, joined by ` > ` (e.g. `html > body > div > div#content`).
/// Classes are left out: portals put per-page and per-section classes on the article element
/// and its wrappers (`<article class="post-589 category-news tag-guns">`), which would split
/// one template into many parents.
fn parent_key(doc: &Document, id: NodeId) -> String {
    let Some(node) = doc.html.tree.get(id) else {
        return String::new();
    };
    let mut parts: Vec<String> =
        node.ancestors().filter_map(|n| n.value().as_element().map(|e| e.name().to_string())).collect();
    parts.reverse();
    if let Some(el) = node.value().as_element() {
        match el.id() {
            Some(id) => parts.push(format!("{}#{}", el.name(), super::tokens::mask_digits(id.trim()))),
            None => parts.push(el.name().to_string()),
        }
    }
    parts.join(" > ")
}
