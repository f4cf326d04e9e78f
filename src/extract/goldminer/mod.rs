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
    /// How far before a green span (a run of unique good paragraphs) a begin pattern may end,
    /// in tokens (bounded by the winning parent's start tag in any case). Default 256.
    pub pattern_window_tokens: usize,
    /// How far after a green span an end pattern may start, in tokens. Default 32.
    pub end_window_tokens: usize,
    /// Fewest pages that must agree on the parent and on each pattern. Default 3.
    pub min_support: usize,
    /// Least share of the pages used that must agree on the parent and on each pattern; a
    /// good paragraph on `max(min_support, ceil(min_support_share × sample pages))` pages is
    /// template text ([`GoldMinerModel::repeated`]). Default 0.2.
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoldMinerModel {
    /// Tokens of the begin pattern (see [`TokenStream`]), e.g. `["</h1>", "<div class=\"entry\">"]`.
    pub begin: Vec<String>,
    /// Tokens of the end pattern.
    pub end: Vec<String>,
    /// The winning nearest common parent: its ancestors' tag names from the root, then its own
    /// name and digit-masked id, joined by ` > ` (e.g. `html > body > div > div#content`).
    pub parent: String,
    /// Pages whose nearest common parent was the winner or lies inside an element like it.
    pub support: usize,
    /// Pages on which the begin pattern was uniquely found shortly before a green span.
    #[serde(default)]
    pub begin_support: usize,
    /// Pages on which the end pattern was uniquely found shortly after a green span.
    #[serde(default)]
    pub end_support: usize,
    /// Pages that passed the length threshold and took part in learning.
    pub pages_used: usize,
    /// Distinct jusText-good paragraph texts that repeated across pages (on ≥ 2) and became
    /// bad for learning (§III.A).
    pub repeated_paragraphs: usize,
    /// [`paragraph_key`]s of the host's template text: jusText-good paragraphs found on as many
    /// sample pages as a pattern must be (see [`GoldMinerParams::min_support_share`]; §III.A
    /// reclassifies repeated paragraphs as bad), sorted. [`stretch_labels`] keeps them bad
    /// inside the stretch. Two pages sharing a quotation or a syndicated article do not make
    /// it template text. Empty in models stored before it existed, and in the
    /// [`alternatives`](Self::alternatives).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeated: Vec<u64>,
    /// Patterns of further page templates of the host, learned the same way on the sampled
    /// pages that none of the earlier patterns cut (to at least half their green text); a
    /// portal often has two or three article templates (our extension of §III.A, at most
    /// [`GoldMinerParams::max_templates`] in all). [`stretch`] tries the patterns in order.
    #[serde(default)]
    pub alternatives: Vec<GoldMinerModel>,
    /// The median share of the unlearned default's words outside the host's static noise that
    /// this template's stretch left out on the sample pages it matched (0.0–1.0; set by the
    /// held-out check, [`crate::domain::learn::validate`]; `None` when unchecked). The
    /// per-page guard ([`crate::extract::pipeline::MODEL_DROP_MARGIN`]) rejects a page from
    /// which the stretch leaves out much more: the template cut that page where it cuts the
    /// host's pages elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_drop: Option<f64>,
}

/// The block index range between the first match of the begin pattern and the first match of
/// the end pattern after it: the blocks whose first text node lies between the two (§III.A).
/// The model's template patterns are tried in order; the first that is on the page wins.
///
/// # Errors
/// [`ExtractError::PatternNotFound`] with `which` = "begin" or "end" when a pattern is not on
/// the page: such a page yields nothing (§III: index pages, tag clouds, search results).
pub fn stretch(doc: &Document, blocks: &[Block], model: &GoldMinerModel) -> Result<Range<usize>, ExtractError> {
    let ts = TokenStream::of(doc);
    let mut result = template_stretch(&ts, blocks, model);
    for alt in &model.alternatives {
        if result.is_ok() {
            break;
        }
        result = template_stretch(&ts, blocks, alt);
    }
    result
}

/// The first of the model's templates (0 = the primary pattern, then the
/// [`alternatives`](GoldMinerModel::alternatives) from 1) that is on the page, with its
/// stretch as in [`stretch`]; `None` when none is.
pub fn matching_template(doc: &Document, blocks: &[Block], model: &GoldMinerModel) -> Option<(usize, Range<usize>)> {
    let ts = TokenStream::of(doc);
    std::iter::once(model)
        .chain(&model.alternatives)
        .enumerate()
        .find_map(|(i, t)| template_stretch(&ts, blocks, t).ok().map(|r| (i, r)))
}

pub(super) fn template_stretch(
    ts: &TokenStream,
    blocks: &[Block],
    model: &GoldMinerModel,
) -> Result<Range<usize>, ExtractError> {
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

/// Link density (link characters / characters) above which a block inside the stretch is
/// navigation: its text is mostly links (related stories, share buttons, "continue reading").
/// jusText's own limit, 0.2 (`max_link_density`), also drops the article's paragraphs with a few
/// inline links, which portals have many of; inside the learned stretch, where the text is the
/// article's, only blocks that are more link than text are taken for navigation. Ours: the
/// paper gives no value.
pub const STRETCH_MAX_LINK_DENSITY: f64 = 0.5;

/// jusText's labels for the blocks of `range` (the [`stretch`]), every other block bad.
///
/// Inside the stretch the context is the article (§III.A: only the stretch "is passed to the
/// jusText boilerplate removal algorithm"; the stretch exists because "the relevant part of the
/// HTML content is usually a contiguous stretch"), so jusText runs there leniently: with its
/// link-density limit raised to [`STRETCH_MAX_LINK_DENSITY`], and a block stays when jusText
/// keeps it or its context-free class is Good or NearGood (jusText's context rule would drop
/// near-good paragraphs at the stretch's edges and next to an inline box). The host's template
/// text — jusText-good paragraphs found on as many sample pages as a pattern must be, e.g. a
/// "Share this" heading inside the article element ([`GoldMinerModel::repeated`]) — stays bad,
/// as §III.A reclassifies repeated paragraphs.
pub fn stretch_labels(
    blocks: &[Block],
    range: Range<usize>,
    model: &GoldMinerModel,
    ctx: &ExtractContext<'_>,
) -> Vec<Label> {
    let mut labels = vec![Label::Bad; blocks.len()];
    let Some(inner) = blocks.get(range.clone()) else {
        return labels;
    };
    let params = justext::JusTextParams {
        max_link_density: ctx.justext.max_link_density.max(STRETCH_MAX_LINK_DENSITY),
        ..ctx.justext.clone()
    };
    let context_free = justext::classify_context_free(inner, ctx.stoplist, &params);
    let revised = justext::revise(inner, &context_free, &params);
    let repeated: HashSet<u64> = model.repeated.iter().copied().collect();
    for (((label, block), cf), fin) in labels[range].iter_mut().zip(inner).zip(&context_free).zip(&revised) {
        let kept = fin.is_good() || matches!(cf, Label::Good | Label::NearGood);
        if kept && !repeated.contains(&paragraph_key(&block.text)) {
            *label = Label::Good;
        }
    }
    labels
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
        let Some(model) = ctx.model.and_then(|m| m.goldminer) else {
            return Ok(justext::classify(blocks, ctx.stoplist, ctx.justext));
        };
        let range = stretch(doc, blocks, model)?;
        Ok(stretch_labels(blocks, range, model, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::Stoplist;
    use crate::html::segment;

    /// A page of template A: menu, a teaser box, the article element (headline, body, a
    /// "share" line), reader comments, footer.
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

    /// A page of template B: another layout, and a per-page category class on the article.
    fn page_b(n: usize, body: &str) -> String {
        format!(
            "<html><body><header><a href=/>Home</a></header><main><article class=\"story cat-{}\">\
             <h2 class=\"headline\">Story {n}</h2><section class=\"text\">{body}</section>\
             <aside class=\"tools\"><p>Print this page</p></aside></article></main>\
             <footer><p>About us and contact details of the publisher.</p></footer></body></html>",
            ["news", "sport", "money"][n % 3]
        )
    }

    fn article(n: usize) -> String {
        (0..3)
            .map(|k| format!("<p>Article {n} paragraph {k}: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor {n}.</p>"))
            .collect()
    }

    /// Learn from `htmls`, with every block good but the teaser box (jusText's view of a
    /// link box).
    fn learn_from(htmls: &[String], params: &GoldMinerParams) -> Option<GoldMinerModel> {
        let docs: Vec<Document> = htmls.iter().map(|h| Document::parse(h)).collect();
        let blocks: Vec<Vec<Block>> = docs.iter().map(segment).collect();
        let labels: Vec<Vec<Label>> = blocks
            .iter()
            .map(|b| b.iter().map(|b| if b.text.contains("teaser") { Label::Bad } else { Label::Good }).collect())
            .collect();
        let pages: Vec<LearnPage> =
            (0..docs.len()).map(|i| LearnPage { doc: &docs[i], blocks: &blocks[i], labels: &labels[i] }).collect();
        learn(&pages, params)
    }

    fn kept(html: &str, model: &GoldMinerModel) -> Result<Vec<String>, ExtractError> {
        let doc = Document::parse(html);
        let blocks = segment(&doc);
        let range = stretch(&doc, &blocks, model)?;
        Ok(blocks[range].iter().map(|b| b.text.clone()).collect())
    }

    #[test]
    fn learns_patterns_and_cuts_the_article() {
        let htmls: Vec<String> = (1..=8).map(|n| page(n, &article(n))).collect();
        let params = GoldMinerParams { min_page_chars: 100, ..GoldMinerParams::default() };
        let model = learn_from(&htmls, &params).expect("a model");
        // Menu, share line and footer repeat on every page.
        assert!(model.repeated_paragraphs >= 3, "{model:?}");
        assert_eq!(model.repeated.len(), model.repeated_paragraphs, "each repeats on all 8 pages");
        assert_eq!(model.pages_used, 8);
        // Green text: headline, article, comment → their common parent is body.
        assert_eq!(model.parent, "html > body");
        assert!(model.alternatives.is_empty(), "{model:?}");

        // The cut keeps the headline and the article and leaves out the comments below it
        // (the paper's Fig. 1) and the footer.
        let kept = kept(&page(42, &article(42)), &model).expect("patterns on the page");
        assert!(kept.iter().any(|t| t == "Headline 42"), "{kept:?}");
        assert!(kept.iter().any(|t| t.starts_with("Article 42 paragraph 2")), "{kept:?}");
        assert!(!kept.iter().any(|t| t.starts_with("Comment 42") || t.contains("Copyright")), "{kept:?}");

        let index = Document::parse("<html><body><ul><li><a href=/1>One</a></li></ul></body></html>");
        let err = stretch(&index, &segment(&index), &model).expect_err("no pattern on an index page");
        assert!(matches!(err, ExtractError::PatternNotFound { .. }));
    }

    #[test]
    fn learns_a_second_template() {
        let htmls: Vec<String> =
            (1..=12).map(|n| if n % 2 == 0 { page(n, &article(n)) } else { page_b(n, &article(n)) }).collect();
        let params = GoldMinerParams { min_page_chars: 100, ..GoldMinerParams::default() };
        let model = learn_from(&htmls, &params).expect("a model");
        assert_eq!(model.alternatives.len(), 1, "{model:?}");
        // Template B's article element carries a per-page class; the parent is still one.
        let parents = [model.parent.as_str(), model.alternatives[0].parent.as_str()];
        assert!(parents.contains(&"html > body > main > article"), "{parents:?}");
        for html in [page(50, &article(50)), page_b(51, &article(51)), page_b(52, &article(52))] {
            let kept = kept(&html, &model).expect("one of the templates matches");
            assert!(kept.iter().any(|t| t.starts_with("Article 5") && t.contains("paragraph 2")), "{kept:?}");
            assert!(!kept.iter().any(|t| t.contains("publisher") || t.contains("Copyright")), "{kept:?}");
        }
    }

    #[test]
    fn too_few_pages_give_no_model() {
        let htmls: Vec<String> = (1..=2).map(|n| page(n, &article(n))).collect();
        assert!(learn_from(&htmls, &GoldMinerParams::default()).is_none());
    }

    #[test]
    fn stretch_labels_are_lenient_but_drop_links_and_template_text() {
        let long = "the committee said that it would not be able to finish the report before the end of \
                    the year because many of the people who were asked";
        let html = format!(
            "<html><body><div class=\"a\"><p>Share this story</p>\
             <p>{long} <a href=/x>to give evidence have not yet answered the letters</a> in time.</p>\
             <p>It was not clear when the report would be ready for the committee, officials said.</p>\
             <p><a href=/1>Related story one</a> <a href=/2>Related story two</a></p>\
             <p>{long} to give evidence have not yet answered the letters that were sent to them.</p>\
             </div></body></html>"
        );
        let doc = Document::parse(&html);
        let blocks = segment(&doc);
        assert_eq!(blocks.len(), 5);
        let model = GoldMinerModel {
            begin: vec![],
            end: vec![],
            parent: String::new(),
            support: 0,
            begin_support: 0,
            end_support: 0,
            pages_used: 0,
            repeated_paragraphs: 1,
            repeated: vec![paragraph_key("share THIS  story")],
            alternatives: vec![],
            sample_drop: None,
        };
        let stoplist = Stoplist::from_words(
            Some("English".to_string()),
            ["the", "that", "it", "would", "not", "be", "to", "of", "who", "were", "have", "was", "when", "because"],
        );
        let justext = justext::JusTextParams::default();
        let ctx = ExtractContext { stoplist: &stoplist, justext: &justext, model: None };
        // Plain jusText drops the paragraph with an inline link (link density above 0.2) and
        // the near-good one between it and the link box.
        assert!((0.2..0.5).contains(&blocks[1].link_density()), "{}", blocks[1].link_density());
        let plain = justext::classify(&blocks, &stoplist, &justext);
        assert!(!plain[1].is_good() && !plain[2].is_good(), "{plain:?}");
        let labels = stretch_labels(&blocks, 0..5, &model, &ctx);
        let good: Vec<bool> = labels.iter().map(|l| l.is_good()).collect();
        assert_eq!(good, [false, true, true, false, true], "{labels:?}");
        // Outside the range everything is bad.
        assert!(stretch_labels(&blocks, 1..2, &model, &ctx).iter().enumerate().all(|(i, l)| l.is_good() == (i == 1)));
    }
}
