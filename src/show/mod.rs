//! `webcorpus show`: why each paragraph of a site was kept or dropped. The principal function
//! is [`explain_page`], which labels one page as the crawl did (the default extractor with the
//! host's learned model, [`crate::extract::pipeline::page_labels`]) and gives every text block
//! its [`Fate`]; [`show_host`] does it for a host of a crawl, reading the pages back from the
//! crawl's WARC files and the records from its corpus, and [`render()`] writes the one
//! self-contained HTML file.
//!
//! A dropped block's fate is the stage of the pipeline that dropped it, as the pipeline's
//! decision trace records it ([`crate::extract::trace`]): nothing here decides a block again.
//! A kept block is a record paragraph, or an Onion duplicate when its text is not in the
//! page's record (with the first URL of the host whose record holds it), or unwritten on a
//! page without a record whose text no record holds (near duplicates, or a page filter).

pub mod render;

pub use render::render;

use crate::domain::DomainModel;
use crate::extract::pipeline::{page_labels, ExtractSettings, ModelUse, PageLabels};
use crate::extract::trace::{BlockDecision, Stage};
use crate::extract::{ExtractError, ExtractorKind};
use crate::html::{segment, Document};
use crate::model::{ParagraphKind, Record};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What became of one block: for text the extraction kept, what the corpus made of it; for a
/// dropped block, the pipeline stage that dropped it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fate {
    /// A paragraph of the page's record.
    Kept,
    /// Kept by extraction on a page whose main text is headings alone: the page makes no
    /// record ([`crate::extract::pipeline::PageExtraction::has_running_text`]).
    NoRunningText,
    /// Kept by extraction, dropped by Onion: the first URL whose record holds it (`None`
    /// when no record of the host holds this text: a near duplicate, or a duplicate of
    /// another host's text).
    Duplicate(Option<String>),
    /// Kept by extraction on a page that made no record, and no record of the host holds the
    /// text: the page's paragraphs were all Onion near duplicates, or a filter left the page
    /// out (`[crawl] languages`, `[classify] drop_non_article`); the crawl state does not keep
    /// which per page.
    Unwritten,
    /// Dropped by extraction, decided by this stage of the pipeline ([`Stage`]).
    Dropped(Stage),
}

impl Fate {
    /// Every fate, in legend order (a duplicate once; the stages that can drop a block).
    pub const ALL: [Fate; 14] = [
        Fate::Kept,
        Fate::Duplicate(None),
        Fate::Unwritten,
        Fate::NoRunningText,
        Fate::Dropped(Stage::OutsideStretch),
        Fate::Dropped(Stage::StaticNoise),
        Fate::Dropped(Stage::CommentSection),
        Fate::Dropped(Stage::ConsentBox),
        Fate::Dropped(Stage::Combiner),
        Fate::Dropped(Stage::BoilerplateBox),
        Fate::Dropped(Stage::OutsideContentRoot),
        Fate::Dropped(Stage::EdgeRule),
        Fate::Dropped(Stage::Vote),
        Fate::Dropped(Stage::Extractor),
    ];

    /// The CSS class and legend key: `kept`, `duplicate`, `outside-stretch`, ... (a dropped
    /// block's is its stage's [`Stage::key`]).
    pub fn key(&self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Duplicate(_) => "duplicate",
            Fate::Unwritten => "unwritten",
            Fate::NoRunningText => "no-running-text",
            Fate::Dropped(stage) => stage.key(),
        }
    }

    /// What the legend says.
    pub fn describe(&self) -> &'static str {
        match self {
            Fate::Kept => "kept: a paragraph of the corpus",
            Fate::Duplicate(_) => "Onion duplicate: kept by extraction, already written (first URL shown)",
            Fate::Unwritten => {
                "kept by extraction on a page without a record: Onion near duplicates, or a language or page-type filter"
            }
            Fate::NoRunningText => "a heading on a page whose main text is headings alone (no record)",
            Fate::Dropped(stage) => stage.describe(),
        }
    }

    /// True for the fates of text the extraction kept.
    pub fn is_kept_text(&self) -> bool {
        !matches!(self, Fate::Dropped(_))
    }
}

/// One text block of a page and its fate.
#[derive(Debug, Clone)]
pub struct BlockView {
    /// The block's text.
    pub text: String,
    /// Heading, paragraph, list item, ...
    pub tag: String,
    /// Its fate.
    pub fate: Fate,
    /// The pipeline's decision: the stage that kept or dropped it, with the combiner's
    /// probability of main content and the extractors' votes where they were computed.
    pub decision: BlockDecision,
    /// The GoldMiner begin pattern matched just before this block.
    pub begin_pattern: Option<String>,
    /// The GoldMiner end pattern matched just after this block.
    pub end_pattern: Option<String>,
}

/// One page explained.
#[derive(Debug, Clone)]
pub struct PageView {
    /// The URL.
    pub url: String,
    /// The page's `<title>`.
    pub title: Option<String>,
    /// How the host's model took part.
    pub model_use: ModelUse,
    /// Its blocks in reading order.
    pub blocks: Vec<BlockView>,
}

impl PageView {
    /// Blocks per fate key.
    pub fn counts(&self) -> HashMap<&'static str, usize> {
        let mut counts = HashMap::new();
        for b in &self.blocks {
            *counts.entry(b.fate.key()).or_default() += 1;
        }
        counts
    }
}

/// What the corpus holds of one page, for [`explain_page`].
#[derive(Debug, Clone, Copy)]
pub enum Written<'a> {
    /// No corpus to compare with (`show --site` on local files): every block the extraction
    /// keeps is [`Fate::Kept`].
    NoCorpus,
    /// The page made no record.
    NoRecord,
    /// The texts of the page's record paragraphs.
    Record(&'a [String]),
}

/// Explain one page: label it as the crawl does (`kind` with `model`) and give each block its
/// fate from the pipeline's decision trace ([`crate::extract::trace::PageTrace`]). `written`
/// is what the corpus holds of the page; `first_url` gives, for a kept text missing from the
/// page's record, the first URL that wrote it.
///
/// # Errors
/// [`ExtractError`] when the extractor fails on the page.
pub fn explain_page(
    url: &str,
    html: &str,
    kind: ExtractorKind,
    model: Option<&DomainModel>,
    settings: &ExtractSettings,
    written: Written<'_>,
    first_url: &dyn Fn(&str) -> Option<String>,
) -> Result<PageView, ExtractError> {
    let doc = Document::parse(html);
    let blocks = segment(&doc);
    let PageLabels { labels, model_use, trace, .. } =
        page_labels(&doc, &blocks, kind, model.map(DomainModel::view), settings)?;
    let mut written_left: HashMap<&str, usize> = HashMap::new();
    let record: &[String] = if let Written::Record(texts) = written { texts } else { &[] };
    for text in record {
        *written_left.entry(text.as_str()).or_default() += 1;
    }
    // A page that keeps headings alone makes no record (the crawl's `no_main_text`).
    let running_text = blocks.iter().zip(&labels).any(|(b, l)| l.is_good() && b.kind != ParagraphKind::Heading);
    let mut views = Vec::with_capacity(blocks.len());
    for ((block, label), decision) in blocks.iter().zip(&labels).zip(&trace.blocks) {
        let fate = if !label.is_good() {
            Fate::Dropped(decision.stage)
        } else if !running_text {
            Fate::NoRunningText
        } else {
            match written {
                Written::NoCorpus => Fate::Kept,
                // No record (all its paragraphs were duplicates, or another discard).
                Written::NoRecord => match first_url(&block.text) {
                    Some(first) if first != url => Fate::Duplicate(Some(first)),
                    _ => Fate::Unwritten,
                },
                Written::Record(_) => match written_left.get_mut(block.text.as_str()) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        Fate::Kept
                    }
                    _ => Fate::Duplicate(first_url(&block.text)),
                },
            }
        };
        views.push(BlockView {
            text: block.text.clone(),
            tag: format!("{:?}", block.kind).to_lowercase(),
            fate,
            decision: *decision,
            begin_pattern: None,
            end_pattern: None,
        });
    }
    if let Some(stretch) = &trace.stretch {
        if let Some(first) = views.get_mut(stretch.blocks.start) {
            first.begin_pattern = Some(stretch.begin.clone());
        }
        if let Some(last) = stretch.blocks.end.checked_sub(1).and_then(|i| views.get_mut(i)) {
            last.end_pattern = Some(stretch.end.clone());
        }
    }
    Ok(PageView { url: url.to_string(), title: doc.title.clone(), model_use, blocks: views })
}

/// Errors of `show`.
#[derive(Debug, thiserror::Error)]
pub enum ShowError {
    /// The state could not be read (a running crawl holds it).
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    /// The corpus could not be read.
    #[error("{path}: {message}")]
    Corpus {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A WARC file could not be read.
    #[error(transparent)]
    Warc(#[from] crate::extract::warc_input::WarcInputError),
    /// The host is not in the state.
    #[error("host {0} is not in the crawl state (see `webcorpus stats`)")]
    UnknownHost(String),
    /// No page of the host (or the URL) is in the crawl's WARC files.
    #[error("no page of {0} in the crawl's WARC files (was the crawl run with [warc] enabled?)")]
    NoPages(String),
}

/// A host of a crawl, explained: its record, model, pages.
pub struct HostView {
    /// The host's record in the state.
    pub record: crate::store::HostRecord,
    /// Its learned model, if any.
    pub model: Option<DomainModel>,
    /// Its pages, in crawl (WARC) order.
    pub pages: Vec<PageView>,
    /// Pages that could not be explained (URL, reason).
    pub failed: Vec<(String, String)>,
}

/// Explain `host` of the crawl with state `state_dir` and corpus directory `corpus` (`None`:
/// the one the crawl recorded in its state, else `[crawl] out_dir`): its pages are read back
/// from the corpus directory's `warc/` (at most `max_pages`, or only `url`: a record's URL
/// or the URL it was redirected to), labelled with the host's model as the crawl did, and
/// compared with the corpus records. Pages are named by the URL they were fetched from (a
/// record's `final_url`).
///
/// # Errors
/// [`ShowError`].
pub fn show_host(
    state_dir: &Path,
    corpus: Option<&Path>,
    host: &str,
    url: Option<&str>,
    max_pages: usize,
    config: &crate::config::Config,
) -> Result<HostView, ShowError> {
    let state = crate::store::open_state_dir(state_dir)?;
    let record = state.host(host)?.ok_or_else(|| ShowError::UnknownHost(host.to_string()))?;
    let model = state.model(host)?;
    // `--corpus`, else where the crawl wrote (its state knows), else `[crawl] out_dir`.
    let out_dir = match corpus {
        Some(dir) => dir.to_path_buf(),
        None => state.corpus_dir()?.unwrap_or_else(|| config.crawl.out_dir.clone()),
    };
    let out_dir = out_dir.as_path();
    drop(state);
    // Records of the host, in corpus order: which paragraphs each page wrote, and where each
    // text was written first.
    let corpus = out_dir.join(config.crawl.format.file_name());
    let text = std::fs::read_to_string(&corpus)
        .map_err(|e| ShowError::Corpus { path: corpus.clone(), message: e.to_string() })?;
    // The WARC holds a redirected page under its final URL, so records are keyed by theirs;
    // `redirected` takes a record's URL (what `--url` names) to it.
    let mut written: HashMap<String, Vec<String>> = HashMap::new();
    let mut first: HashMap<String, String> = HashMap::new();
    let mut redirected: HashMap<String, String> = HashMap::new();
    for line in text.lines() {
        let Ok(r) = Record::from_json(line) else { continue };
        if r.host != host {
            continue;
        }
        let fetched = if r.final_url.is_empty() { r.url.clone() } else { r.final_url.clone() };
        for text in r.headline.iter().chain(r.paragraphs.iter().map(|p| &p.text)) {
            first.entry(text.clone()).or_insert_with(|| fetched.clone());
        }
        if fetched != r.url {
            redirected.insert(r.url.clone(), fetched.clone());
        }
        // The headline is written in its own field; its block is kept all the same.
        written.insert(fetched, r.headline.into_iter().chain(r.paragraphs.into_iter().map(|p| p.text)).collect());
    }
    let url = url.map(|u| redirected.get(u).map_or(u, String::as_str));
    let settings = config.extract_settings();
    let mut pages = Vec::new();
    let mut failed = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(out_dir.join(crate::crawl::WARC_DIR))
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| crate::extract::warc_input::is_warc(p)).collect())
        .unwrap_or_default();
    files.sort();
    let first_url = |t: &str| first.get(t).cloned();
    for file in files {
        crate::extract::warc_input::read_warc(&file, |page| {
            let page_host = url::Url::parse(&page.url).ok().and_then(|u| crate::crawl::url::host_key(&u));
            if pages.len() >= max_pages || page_host.as_deref() != Some(host) {
                return;
            }
            if url.is_some_and(|u| u != page.url) {
                return;
            }
            let html = crate::html::decode::decode_html(&page.body, page.content_type.as_deref()).text;
            let record = written.get(&page.url).map_or(Written::NoRecord, |texts| Written::Record(texts));
            match explain_page(&page.url, &html, config.crawl.extractor, model.as_ref(), &settings, record, &first_url)
            {
                Ok(view) => pages.push(view),
                Err(e) => failed.push((page.url.clone(), e.to_string())),
            }
        })?;
    }
    if pages.is_empty() {
        return Err(ShowError::NoPages(url.unwrap_or(host).to_string()));
    }
    Ok(HostView { record, model, pages, failed })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::combiner;

    /// A page whose combiner answer gives way to the rule-based labels shows no block as
    /// dropped by the combiner, though every probability is under the threshold.
    #[test]
    fn a_page_whose_combiner_gives_way_blames_no_block_on_it() {
        let mut doubting = combiner::shipped().expect("shipped model").clone();
        doubting.gbdt = combiner::gbdt::Gbdt::new(combiner::features::FEATURES, -3.0, Vec::new());
        let settings = ExtractSettings { combiner: Some(std::sync::Arc::new(doubting)), ..Default::default() };
        let paragraph = "The council met on Tuesday evening and voted to keep the library open for another \
                         year, after residents filled the hall to argue that the town needs it more than ever.";
        let html = format!(
            "<html><head><title>Library stays open</title></head><body>\
             <nav><a href=\"/\">Home</a> <a href=\"/news\">News</a></nav>\
             <article><h1>Library stays open</h1><p>{paragraph}</p><p>{paragraph} Again.</p>\
             <p>{paragraph} Once more.</p></article></body></html>"
        );
        let view = explain_page(
            "http://example.org/a",
            &html,
            ExtractorKind::Default,
            None,
            &settings,
            Written::NoCorpus,
            &|_| None,
        )
        .expect("explained");
        assert!(view.blocks.iter().any(|b| b.fate == Fate::Kept), "{:?}", view.blocks);
        assert!(view.blocks.iter().all(|b| b.fate != Fate::Dropped(Stage::Combiner)), "{:?}", view.blocks);
        assert!(view.blocks.iter().all(|b| b.decision.probability.is_some_and(|p| p < 0.5)));
    }
}
