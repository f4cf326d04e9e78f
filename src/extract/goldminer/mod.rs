//! GoldMiner (Endrédy & Novák 2013, §III): per-host begin/end tag patterns around the article
//! body. The principal types are [`GoldMinerModel`] (what is learned from a host's sample, part
//! of the [`DomainModel`](crate::domain::DomainModel)) and the [`GoldMiner`] extractor, which
//! cuts each page to the [`stretch`] between the patterns and runs jusText on that stretch only.
//!
//! Submodules: [`tokens`] (the [`TokenStream`] the patterns live in) and [`learn`](mod@learn)
//! (learning the patterns from a host's sample, §III.A–B; the steps are in its doc). Learning
//! gives `None` (the host falls back to plain jusText) when no template reaches the minimum
//! support.

pub mod learn;
pub mod tokens;

pub use learn::{learn, paragraph_key, LearnPage};
pub use tokens::{start_signature, TokenStream};

use crate::extract::{justext, ExtractContext, ExtractError, Extractor};
use crate::html::Document;
use crate::model::{Block, Label};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
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
    /// [`paragraph_key`]s of the jusText-good paragraphs repeated across pages of the sample
    /// (§III.A: "reclassified as bad"), sorted; inside the stretch they stay bad. Empty in
    /// models stored before it existed, and in the [`alternatives`](Self::alternatives).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeated: Vec<u64>,
    /// Patterns of further page templates of the host, learned the same way on the sampled
    /// pages that none of the earlier patterns cut (a portal often has two or three article
    /// templates; our extension of §III.A, at most [`GoldMinerParams::max_templates`] in all).
    /// [`stretch`] tries the patterns in order.
    #[serde(default)]
    pub alternatives: Vec<GoldMinerModel>,
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

pub(super) fn template_stretch(ts: &TokenStream, blocks: &[Block], model: &GoldMinerModel) -> Result<Range<usize>, ExtractError> {
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
        let inner = &blocks[range.clone()];
        let fin = justext::classify(inner, ctx.stoplist, ctx.justext);
        let cf = justext::classify_context_free(inner, ctx.stoplist, ctx.justext);
        if fin.len() != range.len() {
            return Err(ExtractError::LabelCount { extractor: "justext", labels: fin.len(), blocks: range.len() });
        }
        let ld: f64 = std::env::var("GM_LD").ok().and_then(|v| v.parse().ok()).unwrap_or(0.5);
        let relaxed = justext::JusTextParams { max_link_density: ld, ..ctx.justext.clone() };
        let cf2 = justext::classify_context_free(inner, ctx.stoplist, &relaxed);
        let fin2 = justext::classify(inner, ctx.stoplist, &relaxed);
        let mut padded = vec![Label::Good; blocks.len()];
        padded[range.clone()].copy_from_slice(&cf2);
        let fin3 = justext::revise(blocks, &padded, &relaxed);
        let repeated: HashSet<u64> = model.repeated.iter().copied().collect();
        let mode = std::env::var("GM_MODE").unwrap_or_default();
        let mut labels = vec![Label::Bad; blocks.len()];
        for (k, i) in range.enumerate() {
            let rep = repeated.contains(&paragraph_key(&blocks[i].text));
            let keep = match mode.as_str() {
                "rep" => fin[k].is_good() && !rep,
                "cf" => (fin[k].is_good() || matches!(cf[k], Label::Good | Label::NearGood)) && !rep,
                "notbad" => cf[k] != Label::Bad && !rep,
                "all" => !rep,
                "v1" => (fin2[k].is_good() || matches!(cf2[k], Label::Good | Label::NearGood)) && !rep,
                "v2" => cf2[k] != Label::Bad && !rep,
                "v3" => fin3[i].is_good() && !rep,
                "v4" => fin2[k].is_good() && !rep,
                "v5" => (fin2[k].is_good() || fin3[i].is_good() || matches!(cf2[k], Label::Good | Label::NearGood)) && !rep,
                "v6" => (fin2[k].is_good() || matches!(cf2[k], Label::Good | Label::NearGood) || (blocks[i].heading && cf2[k] != Label::Bad)) && !rep,
                _ => fin[k].is_good(),
            };
            if keep {
                labels[i] = Label::Good;
            }
        }
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
