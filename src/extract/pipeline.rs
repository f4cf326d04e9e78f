//! The page pipeline: decoded HTML → [`Document`] → blocks → labels → [`Paragraph`]s, for one
//! page and one [`ExtractorKind`]. Used by the crawler (off the async runtime), by
//! `webcorpus extract` and by evaluation, so every entry point extracts the same way.
//!
//! The default pipeline: the learned block combiner ([`combiner`]) decides each block from
//! every cheap extractor's labels, the markup's hints and the rules' labels (the vote of
//! jusText, Boilerpipe and StaDyNoT refined by the content root, [`content_root`], which stand
//! where its answer gives way); with a learned host model ([`SiteModel`]) the host's evidence
//! (its GoldMiner stretch, StaDyNoT static noise, ...) is weighed with the combiner's answer by
//! the host-evidence model ([`host_evidence`], [`default_labels`]). Every page's labels come
//! with a per-block decision trace ([`PageTrace`]).

use crate::extract::combiner::{self, CombinerAnswer, CombinerModel};
use crate::extract::content_root;
use crate::extract::end_note;
use crate::extract::goldminer::{self, GoldMiner};
use crate::extract::headline;
use crate::extract::host_evidence::{self, HostEvidenceModel, HostSignals};
use crate::extract::justext::{JusText, JusTextParams};
pub use crate::extract::model_rules::{
    article_continues, combiner_is_firm, guard_rejects, is_firm, kept_words, stretch_drop, COMBINER_FIRM_DROP,
    COMBINER_FIRM_KEEP, MODEL_DROP_MARGIN, MODEL_EMPTY_WORD_SHARE, MODEL_MAX_ADDED_SHARE, MODEL_MIN_WORD_SHARE,
};
use crate::extract::model_rules::{dropped_like_kept, stretch_rules, without_static_noise};
use crate::extract::stadynot::{self, StaDyNoT, StaDyNoTParams};
use crate::extract::stoplist::{
    dominant_language, host_stoplist, stoplist_for, Stoplist, TextLanguage, DOCUMENT_SAMPLE_BYTES,
};
use crate::extract::trace::{PageTrace, Stage, StretchTrace};
use crate::extract::tree_filter::TreeFilterParams;
use crate::extract::{ExtractContext, ExtractError, Extractor, ExtractorKind, SiteModel};
use crate::html::{segment, Document};
use crate::model::{Block, Label, Paragraph, ParagraphKind};

/// What every extractor needs besides the page: language and thresholds.
#[derive(Debug, Clone, Default)]
pub struct ExtractSettings {
    /// Stoplist language (e.g. "English"); `None` = detect per page (the model's language is the
    /// fallback when detection is not reliable, [`crate::extract::stoplist::page_stoplist`]).
    pub language: Option<String>,
    /// jusText thresholds.
    pub justext: JusTextParams,
    /// StaDyNoT thresholds.
    pub stadynot: StaDyNoTParams,
    /// The HTML-tree filter's ancestor depth (boilerpipe-tree).
    pub tree_filter: TreeFilterParams,
    /// The BoilerNet model (`[boilernet]`).
    pub boilernet: crate::extract::boilernet::BoilernetConfig,
    /// The default extractor's block combiner; `None` = the shipped model
    /// ([`combiner::shipped`]). Evaluation sets another to judge pages by a model that never
    /// saw their site.
    pub combiner: Option<std::sync::Arc<CombinerModel>>,
    /// Collect the text of the page's comment section ([`PageExtraction::comments`]).
    pub comments: bool,
    /// The default extractor's host-evidence model ([`host_evidence`]); `None` = the shipped
    /// model ([`host_evidence::shipped`]). Evaluation sets another to judge a host's pages by
    /// a model that never saw the host.
    pub host_evidence: Option<std::sync::Arc<HostEvidenceModel>>,
    /// Decide step 5 of [`default_labels`] by its rules alone, without the host-evidence model
    /// (`[extract] host_evidence = false`).
    pub host_rules: bool,
}

impl ExtractSettings {
    /// The default extractor's combiner: [`ExtractSettings::combiner`], else the shipped model.
    ///
    /// # Errors
    /// [`ExtractError::Model`] when the shipped model does not fit this build.
    pub fn combiner_model(&self) -> Result<&CombinerModel, ExtractError> {
        match &self.combiner {
            Some(model) => Ok(model.as_ref()),
            None => combiner::shipped().map_err(ExtractError::Model),
        }
    }

    /// The host-evidence model of step 5 of [`default_labels`]: [`ExtractSettings::host_evidence`],
    /// else the shipped model; `None` with [`ExtractSettings::host_rules`] (step 5 then goes by
    /// its rules).
    ///
    /// # Errors
    /// [`ExtractError::Model`] when the shipped model does not fit this build.
    pub fn host_evidence_model(&self) -> Result<Option<&HostEvidenceModel>, ExtractError> {
        if self.host_rules {
            return Ok(None);
        }
        match &self.host_evidence {
            Some(model) => Ok(Some(model.as_ref())),
            None => host_evidence::shipped().map(Some).map_err(ExtractError::Model),
        }
    }
}

/// The result of extracting one page.
#[derive(Debug, Clone)]
pub struct PageExtraction {
    /// `<title>` text.
    pub title: Option<String>,
    /// Publication date and author as the page states them ([`crate::html::meta`]).
    pub metadata: crate::html::meta::PageMetadata,
    /// Stoplist language used, if any.
    pub language: Option<String>,
    /// The extractor's registry name.
    pub extractor: &'static str,
    /// The page's headline when the extractor kept it above the main text
    /// ([`headline::headline_block`]); it is not among `paragraphs`.
    pub headline: Option<String>,
    /// Kept paragraphs of the main content, in page order (the headline apart).
    pub paragraphs: Vec<Paragraph>,
    /// The language of `paragraphs` joined as a record's text, where the extraction detected
    /// it to choose the stoplist (the page's language set in the configuration, or a page
    /// labelled again in another language, leave it `None`): a record that holds every
    /// paragraph takes its language from here ([`crate::crawl::record::record_of`]).
    pub text_language: Option<TextLanguage>,
    /// With [`ExtractSettings::comments`] and the default or `rules` extractor: the blocks of
    /// the page's comment section below the article (the combiner's comment flags, or the
    /// rules' comment sections, rule 1 of [`content_root`]) that are not kept, with link
    /// density below 0.5, joined by blank lines; `None` when there are none or they were not
    /// asked for.
    pub comments: Option<String>,
    /// Number of blocks on the page.
    pub blocks: usize,
    /// How the host's model took part (the default extractor; the others report
    /// [`ModelUse::Applied`] whenever a model is given).
    pub model_use: ModelUse,
    /// The [`SiteModel::generation`] of the model given, if any.
    pub model_generation: Option<u32>,
    /// Which stage decided each block, with its score ([`PageTrace`]).
    pub trace: PageTrace,
    /// The default extractor with a host model whose GoldMiner stretch or static keys apply
    /// to the page: the words the learned labels keep over the words the unlearned default
    /// keeps outside the host's static noise (a site banner is not text the model took),
    /// measured before the per-page guard; below 0.5 the model would halve the page. `None`
    /// otherwise.
    pub model_share: Option<f64>,
}

impl PageExtraction {
    /// Take the paragraphs a record holds: all of them (`kept` `None`), or those `kept` marks
    /// (one flag per paragraph: Onion's [`crate::dedup::DedupOutcome::kept_mask`]). When some
    /// are left out within the first [`DOCUMENT_SAMPLE_BYTES`] of the joined text (the bytes
    /// the language is detected from), `text_language` no longer describes the record's text
    /// and is cleared; a paragraph left out further on leaves it as it is.
    pub fn take_paragraphs(&mut self, kept: Option<&[bool]>) -> Vec<Paragraph> {
        let paragraphs = std::mem::take(&mut self.paragraphs);
        match kept {
            Some(mask) if mask.iter().any(|k| !k) => {
                if !same_language_sample(&paragraphs, mask) {
                    self.text_language = None;
                }
                paragraphs.into_iter().zip(mask).filter(|&(_, &k)| k).map(|(p, _)| p).collect()
            }
            _ => paragraphs,
        }
    }

    /// True when some kept paragraph is not a heading. A page whose main text is headings
    /// alone (a title over an empty stub, an archive page's date line) makes no corpus record:
    /// the crawl and `extract --per-site` count it as `no_main_text`, while `extract` and
    /// `eval` still output and score its headings.
    pub fn has_running_text(&self) -> bool {
        self.paragraphs.iter().any(|p| p.kind != ParagraphKind::Heading)
    }
}

/// True when `paragraphs` joined by blank lines ([`crate::model::join_paragraphs`]) and those
/// `mask` keeps joined alike share their first [`DOCUMENT_SAMPLE_BYTES`] and the byte after
/// them, so that [`TextLanguage::of`] reads the same sample from both: the text before the
/// first paragraph left out is longer than the sample.
fn same_language_sample(paragraphs: &[Paragraph], mask: &[bool]) -> bool {
    // Bytes of the joined text before paragraph `i`'s separator.
    let mut before = 0usize;
    for (i, (p, &kept)) in paragraphs.iter().zip(mask).enumerate() {
        if !kept {
            return before > DOCUMENT_SAMPLE_BYTES;
        }
        before += p.text.len() + if i > 0 { 2 } else { 0 };
    }
    true
}

/// How a host's [`SiteModel`] took part in one page's extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelUse {
    /// No model was given.
    #[default]
    None,
    /// The model's labels were used (with the GoldMiner stretch where the model has one and
    /// the page matches it).
    Applied,
    /// The model has GoldMiner patterns but none of its templates is on the page: the page was
    /// voted on whole (static keys still apply).
    Unmatched,
    /// The model would have emptied or halved the page that the unlearned default extracts
    /// (see [`guard_rejects`]), so the page was extracted without the model.
    Rejected,
}

/// Parse `html` and extract it (see [`extract_document`]).
pub fn extract_html(
    html: &str,
    kind: ExtractorKind,
    model: Option<SiteModel<'_>>,
    settings: &ExtractSettings,
) -> Result<PageExtraction, ExtractError> {
    let doc = Document::parse(html);
    let blocks = segment(&doc);
    extract_document(&doc, &blocks, kind, model, settings)
}

/// Most blocks of a page whose answer [`sample_answer`] computes: the combiner's feature rows
/// of a page take about 0.6 KB per block while they are computed, and a hub page of thousands
/// of links, fetched while the crawl holds its link batches, is left to its host's learning.
pub const SAMPLE_ANSWER_MAX_BLOCKS: usize = 1000;

/// For a page whose host is still sampling: the `default` extractor's unlearned answer that
/// the page's extraction will ask for once the host has learned, as bytes to keep with the page
/// ([`combiner::memo::encoded_answer`]; [`combiner::memo::seed`] puts it back on the page
/// parsed again). Computed with the stoplist that extraction will use when the host's model
/// does not choose it ([`combiner::memo::own_stoplist`]); `None` for another extractor, where the host's
/// language will choose the stoplist, for a page of more than [`SAMPLE_ANSWER_MAX_BLOCKS`]
/// blocks, or when the combiner cannot run (the extraction then computes the answer, or
/// reports the error, itself).
pub fn sample_answer(doc: &Document, kind: ExtractorKind, settings: &ExtractSettings) -> Option<Vec<u8>> {
    if kind != ExtractorKind::Default {
        return None;
    }
    let blocks = segment(doc);
    if blocks.len() > SAMPLE_ANSWER_MAX_BLOCKS {
        return None;
    }
    let model = settings.combiner_model().ok()?;
    combiner::memo::encoded_answer(
        doc,
        &blocks,
        settings.language.as_deref(),
        &settings.justext,
        &settings.stadynot,
        model,
    )
    .ok()
    .flatten()
}

/// Label `blocks` of `doc` with extractor `kind` and return the kept paragraphs.
///
/// # Errors
/// [`ExtractError`] when the page yields nothing for a stated reason (e.g. the learned
/// GoldMiner pattern is absent).
pub fn extract_document(
    doc: &Document,
    blocks: &[Block],
    kind: ExtractorKind,
    model: Option<SiteModel<'_>>,
    settings: &ExtractSettings,
) -> Result<PageExtraction, ExtractError> {
    let PageLabels { labels, stoplist, model_use, model_share, combiner, trace, text_language, .. } =
        page_labels(doc, blocks, kind, model, settings)?;
    // The blocks of the page's comments: the combiner's, or the rules' comment sections.
    let in_comments: Option<Vec<bool>> = match (&combiner, kind) {
        (Some(answer), _) => Some(answer.comments.clone()),
        (None, ExtractorKind::Rules) => Some(trace.blocks.iter().map(|d| d.stage == Stage::CommentSection).collect()),
        (None, _) => None,
    };
    let comments = in_comments.filter(|_| settings.comments).and_then(|flags| {
        let texts: Vec<&str> = (0..blocks.len())
            .filter(|&i| {
                flags.get(i).copied().unwrap_or(false) && !labels[i].is_good() && blocks[i].link_density() < 0.5
            })
            .map(|i| blocks[i].text.as_str())
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n\n"))
    });
    let (headline, kept) = paragraph_blocks(doc, blocks, &labels);
    let paragraphs = kept.map(|b| Paragraph { kind: b.kind, text: b.text.clone() }).collect();
    Ok(PageExtraction {
        title: doc.title.clone(),
        metadata: doc.metadata.clone(),
        language: stoplist.language.clone(),
        extractor: kind.name(),
        headline: headline.map(|i| blocks[i].text.clone()),
        paragraphs,
        comments,
        blocks: blocks.len(),
        model_use,
        model_generation: model.map(|m| m.generation),
        model_share,
        trace,
        text_language,
    })
}

/// One page's block labels as [`extract_document`] decides them, with the stoplist used.
pub struct PageLabels {
    /// One label per block; [`Label::is_good`] blocks are the page's paragraphs.
    pub labels: Vec<Label>,
    /// The stoplist jusText used (the page's language, see below).
    pub stoplist: std::sync::Arc<Stoplist>,
    /// How the host's model took part.
    pub model_use: ModelUse,
    /// See [`PageExtraction::model_share`].
    pub model_share: Option<f64>,
    /// See [`DefaultLabels::combiner`].
    pub combiner: Option<CombinerAnswer>,
    /// Which stage decided each block ([`PageTrace`]).
    pub trace: PageTrace,
    /// See [`DefaultLabels::host_features`].
    pub host_features: Option<Vec<f32>>,
    /// The language of the kept paragraphs ([`PageExtraction::text_language`]), where it was
    /// detected to choose the stoplist.
    pub text_language: Option<TextLanguage>,
}

/// The labels of [`extract_document`]: `blocks` of `doc` labelled by extractor `kind`, with
/// the stoplist of the page's own language.
///
/// # Errors
/// As [`extract_document`].
pub fn page_labels(
    doc: &Document,
    blocks: &[Block],
    kind: ExtractorKind,
    model: Option<SiteModel<'_>>,
    settings: &ExtractSettings,
) -> Result<PageLabels, ExtractError> {
    let host_prior = model.and_then(|m| m.language);
    let mut stoplist = combiner::memo::own_stoplist(doc, blocks, settings.language.as_deref())
        .unwrap_or_else(|| host_stoplist(host_prior));
    let mut labelled = label_blocks(doc, blocks, kind, model, settings, &stoplist)?;
    // The main text's own language decides: when it is reliably another than the stoplist's
    // (a Russian article under an English menu, a Japanese page whose sample held English
    // navigation), the page is labelled again once with the stoplist of that language. The
    // kept text as the record will hold it (the headline apart) is detected once: for the
    // stoplist here and for the record's language (`PageExtraction::text_language`).
    let mut text_language = None;
    if settings.language.as_deref().is_none_or(|l| l.trim().is_empty() || l.eq_ignore_ascii_case("auto")) {
        let whole =
            TextLanguage::of_paragraphs(paragraph_blocks(doc, blocks, &labelled.labels).1.map(|b| b.text.as_str()));
        let kept = blocks.iter().zip(&labelled.labels).filter(|(_, l)| l.is_good()).map(|(b, _)| b.text.as_str());
        match dominant_language(kept, stoplist.language.as_deref(), &whole)
            .filter(|l| *l != stoplist.language.as_deref())
        {
            Some(language) => {
                stoplist = stoplist_for(Some(language.unwrap_or("none")), "");
                labelled = label_blocks(doc, blocks, kind, model, settings, &stoplist)?;
            }
            None => text_language = Some(whole),
        }
    }
    let DefaultLabels { labels, model_use, model_share, combiner, trace, host_features } = labelled;
    if labels.len() != blocks.len() {
        return Err(ExtractError::LabelCount { extractor: kind.name(), labels: labels.len(), blocks: blocks.len() });
    }
    Ok(PageLabels { labels, stoplist, model_use, model_share, combiner, trace, host_features, text_language })
}

/// The blocks `labels` keep as paragraphs, the headline apart ([`headline::headline_block`]),
/// in page order, with the headline's index.
fn paragraph_blocks<'a>(
    doc: &Document,
    blocks: &'a [Block],
    labels: &'a [Label],
) -> (Option<usize>, impl Iterator<Item = &'a Block> + 'a) {
    let headline = headline::headline_block(doc, blocks, labels);
    let kept = blocks
        .iter()
        .zip(labels)
        .enumerate()
        .filter(move |&(i, (_, l))| l.is_good() && Some(i) != headline)
        .map(|(_, (b, _))| b);
    (headline, kept)
}

/// The labels of `blocks` by extractor `kind` with `stoplist`, how the model took part, the
/// model's word share ([`PageExtraction::model_share`]) and, for `default`, the combiner's
/// answer.
fn label_blocks(
    doc: &Document,
    blocks: &[Block],
    kind: ExtractorKind,
    model: Option<SiteModel<'_>>,
    settings: &ExtractSettings,
    stoplist: &Stoplist,
) -> Result<DefaultLabels, ExtractError> {
    let ctx = ExtractContext { stoplist, justext: &settings.justext, model };
    let mut model_use = if model.is_some() { ModelUse::Applied } else { ModelUse::None };
    let mut model_share = None;
    let mut combined = None;
    let mut trace = None;
    let mut host_features = None;
    let labels = match kind {
        ExtractorKind::JusText => JusText.classify(doc, blocks, &ctx)?,
        ExtractorKind::GoldMiner => GoldMiner.classify(doc, blocks, &ctx)?,
        ExtractorKind::StaDyNoT => StaDyNoT::new(settings.stadynot.clone()).classify(doc, blocks, &ctx)?,
        ExtractorKind::Default | ExtractorKind::Rules => {
            let combiner = match kind {
                ExtractorKind::Default => Some(settings.combiner_model()?),
                _ => None,
            };
            let host_evidence = match combiner {
                Some(_) => settings.host_evidence_model()?,
                None => None,
            };
            let default = default_labels(doc, blocks, &ctx, &settings.stadynot, combiner, host_evidence)?;
            host_features = default.host_features;
            model_use = default.model_use;
            model_share = default.model_share;
            combined = default.combiner;
            trace = Some(default.trace);
            default.labels
        }
        ExtractorKind::Bte => crate::extract::bte::Bte.classify(doc, blocks, &ctx)?,
        ExtractorKind::Boilerpipe => crate::extract::boilerpipe::Boilerpipe.classify(doc, blocks, &ctx)?,
        ExtractorKind::BoilerpipeTree => crate::extract::tree_filter::BoilerpipeTree::new(settings.tree_filter.clone())
            .classify(doc, blocks, &ctx)?,
        ExtractorKind::Boilernet => {
            crate::extract::boilernet::extractor::labels(&settings.boilernet, doc, blocks, &ctx)?
        }
    };
    let trace = trace.unwrap_or_else(|| PageTrace::uniform(&labels, Stage::Extractor));
    Ok(DefaultLabels { labels, model_use, model_share, combiner: combined, trace, host_features })
}

/// One page's labels as an extractor decides them: the default pipeline's answer
/// ([`default_labels`]), also the shape every other extractor's labels take in `page_labels`.
#[derive(Debug, Clone)]
pub struct DefaultLabels {
    /// One label per block.
    pub labels: Vec<Label>,
    /// How the host's model took part.
    pub model_use: ModelUse,
    /// With a model whose stretch or static keys apply to the page: words kept by the learned
    /// labels over words kept by the unlearned ones (before the guard; see
    /// [`PageExtraction::model_share`]).
    pub model_share: Option<f64>,
    /// The combiner's answer on which the labels were built (the `default` extractor; `None`
    /// for `rules` and the other extractors).
    pub combiner: Option<CombinerAnswer>,
    /// Which stage decided each block, in the order of the steps above ([`PageTrace`]).
    pub trace: PageTrace,
    /// The host-evidence rows of the page ([`host_evidence::features`], `blocks ×
    /// host_evidence::FEATURES`): with the combiner and a host model whose stretch or static
    /// keys apply to the page; `None` otherwise.
    pub host_features: Option<Vec<f32>>,
}

/// The default pipeline's labels: a majority vote of three extractors' block labels, cut to
/// the learned stretch, minus static noise.
///
/// 1. jusText (Pomikálek 2011); inside a learned GoldMiner stretch (Endrédy & Novák 2013,
///    §III.A) GoldMiner's lenient jusText ([`goldminer::stretch_labels`]): a block whose
///    context-free class is Good or NearGood stays, because the stretch already says the
///    context is the article (jusText's context rule would drop near-good paragraphs between a
///    "related stories" box and a "continue reading" link), minus the host's repeated text;
/// 2. Boilerpipe ArticleExtractor (Kohlschütter et al. 2010);
/// 3. StaDyNoT (Barua et al. 2014) with the host's static keys, dynamic noise otherwise;
/// 4. the votes go to [`content_root::refine`]: a block is kept when at least two of the three
///    keep it, it is not inside an element the page marks as navigation, footer, sidebar,
///    caption, sharing, comment or cookie-consent box or in a list of other stories beside
///    the article ([`content_root::teasers`]), and it is inside the content root (the
///    deepest element with 80 % of the voted words, or the page's `main` landmark around
///    it); inside a content-marked element (`article`, `main`, `entry-content`, ...) one
///    vote suffices for a block with link density below 0.5;
///    the edges of the text (trailing headings, lead-ins, cut-off short lines) and link
///    lines go (rules 4–9 of [`content_root`]);
/// 5. blocks outside the GoldMiner stretch are dropped, except those the combiner keeps with
///    probability [`COMBINER_FIRM_KEEP`] or more (a page matching none of the host's
///    templates is not discarded, as GoldMiner does, but voted on whole); inside it, a block
///    that GoldMiner keeps (step 1) is kept even without the vote (unless the combiner gives
///    it less than [`COMBINER_FIRM_DROP`], or those blocks hold
///    more than [`MODEL_MAX_ADDED_SHARE`] of the unlearned labels' words, and never a block in
///    a comment section below an article or a cookie-consent box: the markup says it is not
///    the article, [`content_root::ContentRoot::in_comments`]), and the elements of
///    the host's StaDyNoT static keys are dropped ([`stadynot::static_noise_nodes`]; not the
///    post-processing tags, which are not learned from the host);
/// 6. the page's headline, a heading that repeats the `<title>` right above the main text, is
///    kept ([`headline::keep_headline`]; not when it is the host's static noise), and so are
///    notes in italics right after the article ([`end_note::keep_end_notes`]); a last kept
///    line that introduces links the labels left out ("Related to this story:") goes
///    ([`content_root::drop_dangling_lead_ins`]).
///
/// With `combiner` (the `default` extractor; `None` is `rules`), the combiner's labels
/// ([`CombinerModel::labels`], over steps 1–4 and more) replace the vote of steps 1–4 and steps
/// 5–6 apply to them. With `combiner` and `host_evidence`, step 5 is learned: the host model's
/// signals (the stretch, GoldMiner's lenient labels, static noise, the article going on past
/// the end pattern, the labels of step 5's rules above; [`host_evidence::features`]) and the
/// combiner's probability are the columns of the host-evidence model, and a block the combiner
/// is not firm about ([`combiner_is_firm`]) and that the host model has evidence about
/// ([`host_evidence::has_evidence`]) takes the model's label where the model is sure
/// ([`host_evidence::decides`]), the rules' label elsewhere; never is a block of a comment
/// section or a consent box kept. The per-page guard ([`guard_rejects`]) applies to either.
/// Measured numbers: `docs/figures.md` ("Extraction", "Learning") and `docs/EVALUATION.md`.
pub fn default_labels(
    doc: &Document,
    blocks: &[Block],
    ctx: &ExtractContext<'_>,
    params: &StaDyNoTParams,
    combiner: Option<&CombinerModel>,
    host_evidence: Option<&HostEvidenceModel>,
) -> Result<DefaultLabels, ExtractError> {
    // The unlearned labels, always: they are the answer without a model and the guard with one.
    // `never_main`: blocks in a comment section below an article or in a cookie-consent box,
    // which no step adds back (the GoldMiner stretch of step 5 included).
    let mut answer = None;
    let (justext_labels, boilerpipe_labels, stadynot_labels, mut unlearned, never_main, mut trace) = match combiner {
        Some(model) => {
            // Shared with the host's learning, which judged the same parsed page unlearned.
            let page = combiner::memo::page_answer(doc, blocks, ctx.stoplist, ctx.justext, params, model)?;
            let page = std::rc::Rc::unwrap_or_clone(page);
            let labels = page.answer.labels.clone();
            let trace = PageTrace { blocks: page.answer.decisions.clone(), stretch: None };
            answer = Some(page.answer);
            (page.justext, page.boilerpipe, page.stadynot, labels, page.never_main, trace)
        }
        None => {
            let boilerpipe = crate::extract::boilerpipe::article_labels(doc, blocks);
            let plain = ExtractContext { model: None, ..*ctx };
            let justext = JusText.classify(doc, blocks, &plain)?;
            let stadynot = StaDyNoT::new(params.clone()).classify(doc, blocks, &plain)?;
            let votes = votes(&[&justext, &boilerpipe, &stadynot]);
            let (refined, root) = content_root::refine_with_root(doc, blocks, &votes);
            let never_main: Vec<bool> = (0..blocks.len())
                .map(|i| root.in_comments(i) || root.in_consent(i) || root.in_teasers(i) || root.outside_post(i))
                .collect();
            let trace = PageTrace { blocks: root.decisions(blocks, &votes, &refined), stretch: None };
            (justext, boilerpipe, stadynot, refined, never_main, trace)
        }
    };
    let before = unlearned.clone();
    headline::keep_headline(doc, blocks, &mut unlearned, None);
    trace.changed(&before, &unlearned, Stage::Headline);
    let before = unlearned.clone();
    end_note::keep_end_notes(doc, blocks, &mut unlearned, &never_main);
    trace.changed(&before, &unlearned, Stage::EndNote);
    let before = unlearned.clone();
    content_root::drop_dangling_lead_ins(doc, blocks, &mut unlearned);
    trace.changed(&before, &unlearned, Stage::EdgeRule);
    let plain = |labels: Vec<Label>, model_use: ModelUse, combiner: Option<CombinerAnswer>, trace: PageTrace| {
        DefaultLabels { labels, model_use, model_share: None, combiner, trace, host_features: None }
    };
    let Some(model) = ctx.model else {
        return Ok(plain(unlearned, ModelUse::None, answer, trace));
    };

    let gold_miner = model.goldminer;
    // The first of the host's templates on the page, and what its stretch left out of the
    // sample pages it matched.
    let mut sample_drop = None;
    let mut stretch_trace = None;
    let stretch = gold_miner.and_then(|g| {
        let (t, range) = goldminer::matching_template(doc, blocks, g)?;
        let template = if t == 0 { g } else { &g.alternatives[t - 1] };
        sample_drop = template.sample_drop;
        stretch_trace = Some(Box::new(StretchTrace {
            blocks: range.clone(),
            begin: template.begin.join(" "),
            end: template.end.join(" "),
        }));
        Some((range, g))
    });
    let has_static = !model.stadynot.keys.is_empty();
    let used = if gold_miner.is_some() && stretch.is_none() { ModelUse::Unmatched } else { ModelUse::Applied };
    if stretch.is_none() && !has_static && model.paths.is_empty() {
        return Ok(plain(unlearned, used, answer, trace));
    }
    let unlearned_trace = trace.clone();
    // jusText; inside a learned stretch GoldMiner's lenient jusText (its labels are also kept
    // without the vote, step 5).
    let stretch_justext = stretch.as_ref().map(|(range, g)| goldminer::stretch_labels(blocks, range.clone(), g, ctx));
    let static_noise = match has_static {
        true => Some(stadynot::static_noise_nodes(doc, model.stadynot)).filter(|noise| !noise.is_empty()),
        false => None,
    }
    .map(|noise| stadynot::noise_labels(doc, blocks, &noise));
    // Step 5 by its rules: the answer where no host-evidence model decides, and one of its
    // columns where one does.
    let mut rules_trace = trace.clone();
    let mut rules = if combiner.is_some() || (stretch_justext.is_none() && !has_static) {
        unlearned.clone()
    } else {
        let learned_stadynot =
            if has_static { StaDyNoT::new(params.clone()).classify(doc, blocks, ctx)? } else { stadynot_labels };
        let jt = stretch_justext.as_ref().unwrap_or(&justext_labels);
        let votes = votes(&[jt, &boilerpipe_labels, &learned_stadynot]);
        let (refined, root) = content_root::refine_with_root(doc, blocks, &votes);
        rules_trace.blocks = root.decisions(blocks, &votes, &refined);
        refined
    };
    if let (Some((range, _)), Some(gm)) = (&stretch, &stretch_justext) {
        stretch_rules(blocks, &mut rules, &unlearned, range, gm, &never_main, answer.as_ref(), &mut rules_trace);
    }
    if let Some(flags) = &static_noise {
        for (i, (label, &is_noise)) in rules.iter_mut().zip(flags).enumerate() {
            if is_noise {
                rules_trace.set(i, false, Stage::StaticNoise);
                *label = Label::Bad;
            }
        }
    }
    let continues = stretch.as_ref().map(|(range, _)| article_continues(blocks, &unlearned, range));
    // Where the host's other pages kept the text of each block's place (a column of the
    // host-evidence model).
    let path_lookup: Option<Vec<Option<(f32, f32)>>> = (answer.is_some() && !model.paths.is_empty()).then(|| {
        crate::extract::path_profile::path_keys(doc, blocks).into_iter().map(|k| model.paths.lookup(k)).collect()
    });
    let host_features = answer.as_ref().map(|a| {
        host_evidence::features(&HostSignals {
            blocks,
            probabilities: &a.probabilities,
            gave_way: a.gave_way,
            unlearned: &unlearned,
            rules: &rules,
            has_template: gold_miner.is_some(),
            stretch: stretch.as_ref().map(|(range, _)| range),
            stretch_keeps: stretch_justext.as_deref(),
            static_noise: static_noise.as_deref(),
            continues: continues.as_deref(),
            never_main: &never_main,
            paths: path_lookup.as_deref(),
        })
    });
    let mut labels = match (host_evidence, &host_features) {
        (Some(stage), Some(rows)) => {
            // Step 5 learned: where the combiner is not firm, the host model has evidence about
            // the block and the host-evidence model is sure, its label; elsewhere the rules'
            // label and their trace.
            let probabilities = stage.probabilities(rows);
            let mut labels = rules.clone();
            for (i, label) in labels.iter_mut().enumerate() {
                let firm = combiner_is_firm(answer.as_ref(), i);
                match host_evidence::decides(probabilities[i], stage.threshold, firm) {
                    Some(keep)
                        if !(keep && never_main[i])
                            && host_evidence::has_evidence(&rows[i * host_evidence::FEATURES..]) =>
                    {
                        if keep != unlearned[i].is_good() {
                            trace.set(i, keep, Stage::HostEvidence);
                        }
                        *label = if keep { Label::Good } else { Label::Bad };
                    }
                    _ => trace.blocks[i] = rules_trace.blocks[i],
                }
            }
            labels
        }
        _ => {
            trace = rules_trace;
            rules
        }
    };
    let before = labels.clone();
    headline::keep_headline(doc, blocks, &mut labels, static_noise.as_deref());
    trace.changed(&before, &labels, Stage::Headline);
    let before = labels.clone();
    let excluded: Vec<bool> = match &static_noise {
        Some(noise) => never_main.iter().zip(noise).map(|(a, b)| *a || *b).collect(),
        None => never_main.clone(),
    };
    end_note::keep_end_notes(doc, blocks, &mut labels, &excluded);
    trace.changed(&before, &labels, Stage::EndNote);
    let before = labels.clone();
    content_root::drop_dangling_lead_ins(doc, blocks, &mut labels);
    trace.changed(&before, &labels, Stage::EdgeRule);
    trace.stretch = stretch_trace;
    // The word share and the guard count the unlearned words outside the static noise: a site
    // banner on every page is what the model is for, not text it took.
    let comparable_labels = without_static_noise(&unlearned, static_noise.as_deref());
    let comparable = kept_words(blocks, &comparable_labels);
    let model_share = (comparable > 0).then(|| kept_words(blocks, &labels) as f64 / comparable as f64);
    // The per-page guard: a model never empties or halves what the unlearned default keeps,
    // nor cuts a page far more than its template cut the sample.
    let rejected = guard_rejects(blocks, &labels, &unlearned, static_noise.as_deref())
        || stretch.as_ref().zip(sample_drop).is_some_and(|((range, _), expected)| {
            stretch_drop(blocks, &comparable_labels, range) > expected + MODEL_DROP_MARGIN
                && 3 * dropped_like_kept(blocks, &labels, &comparable_labels) > comparable
        });
    Ok(match rejected {
        true => DefaultLabels {
            labels: unlearned,
            model_use: ModelUse::Rejected,
            model_share,
            combiner: answer,
            trace: unlearned_trace,
            host_features,
        },
        false => DefaultLabels { labels, model_use: used, model_share, combiner: answer, trace, host_features },
    })
}

/// Per block, how many of the extractors' label lists keep it.
fn votes(lists: &[&Vec<Label>]) -> Vec<u8> {
    let n = lists.first().map_or(0, |l| l.len());
    (0..n).map(|i| lists.iter().filter(|l| l[i].is_good()).count() as u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::join_paragraphs;

    /// A record whose paragraphs Onion thins keeps the extraction's language exactly where the
    /// joined text's sample is unchanged: for every page of two shared sites (English and
    /// Japanese) and every paragraph left out alone, the language detected on the record's
    /// own text equals the one kept, and the cases both ways occur.
    #[test]
    fn a_paragraph_left_out_after_the_language_sample_keeps_the_language() {
        let Some(pages) = crate::testdata::articles_of(&["www.freepressokc.com", "hidemiyoshi.jp"], 12) else { return };
        let settings = ExtractSettings::default();
        let (mut kept_language, mut cleared) = (0, 0);
        for page in &pages {
            let html = std::fs::read_to_string(page).expect("page");
            let ex = extract_html(&html, ExtractorKind::Default, None, &settings).expect("extraction");
            let Some(detected) = ex.text_language.clone() else { continue };
            for left_out in 0..ex.paragraphs.len() {
                let mask: Vec<bool> = (0..ex.paragraphs.len()).map(|i| i != left_out).collect();
                let mut thinned = ex.clone();
                let kept = thinned.take_paragraphs(Some(&mask));
                let own = TextLanguage::of(&join_paragraphs(&kept));
                match &thinned.text_language {
                    Some(language) => {
                        kept_language += 1;
                        assert_eq!(language.document(), own.document(), "{}, paragraph {left_out}", page.display());
                        assert_eq!(language.reliable(), own.reliable());
                        assert_eq!(language.document(), detected.document());
                    }
                    None => cleared += 1,
                }
            }
        }
        assert!(kept_language > 0 && cleared > 0, "kept {kept_language}, cleared {cleared}");
    }
}
