//! Re-extraction of WARC files with the crawl's per-host procedure, without the network: the
//! principal function is [`replay_warcs`] (`webcorpus extract --per-site FILE.warc.gz ...`).
//! A Common Crawl segment, a Heritrix archive or the crawl's own WARC output becomes the
//! corpus records a crawl of those pages writes.
//!
//! The files are read three times, each time streamed one record at a time
//! ([`read_warc`](crate::extract::warc_input::read_warc)): (1) the HTML responses are counted
//! per host; (2) each host's sample is kept, its first
//! [`sample_size`](crate::domain::LearnParams::sample_size) readable pages in file order, and
//! its model learned as soon as the sample is complete, by the crawl's own
//! [`HostLearning`] (a host whose last page comes before a full sample is learned from at least
//! [`min_sample`](crate::domain::LearnParams::min_sample) pages, else gets no model); (3)
//! every page is extracted with its host's model and classified, deduplicated by Onion against
//! everything written before it, and written as a [`crate::model::Record`] in file order.
//! Memory holds the samples of the hosts whose sample is still incomplete, at most
//! `sample_size` pages each.
//!
//! For the crawl's own WARC output the records equal the crawl's (same text, paragraphs, title,
//! extractor, page type, and the same `url` (as requested, before the redirects the file
//! records), `final_url`, `warc_file` and `warc_offset`),
//! provided no host re-learned its model during the crawl (`stats --host` shows re-learnings)
//! and no paragraph is shared across hosts (the crawl writes hosts interleaved, the replay in
//! file order, and Onion keeps the first instance).

mod extract;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::Config;
use crate::crawl::workers::PageTools;
use crate::dedup::DedupError;
use crate::domain::learn::{learn_documents, parse_sample};
use crate::domain::{DomainModel, HostLearning, LearningAction, LearningEvent, SamplingRule};
use crate::extract::warc_input::{read_warc_with_progress, WarcInputError, WarcPage};
use crate::html::decode_html;
use crate::html::sniff::{binary_kind, unreadable_share, MAX_UNREADABLE_SHARE};
use crate::write::CorpusFormat;

/// Errors that stop a replay (a bad page never does: it is counted).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A WARC file could not be read.
    #[error(transparent)]
    Input(#[from] WarcInputError),
    /// The Onion parameters are invalid.
    #[error(transparent)]
    Dedup(#[from] DedupError),
    /// The page classifier could not be loaded.
    #[error(transparent)]
    Classify(#[from] crate::classify::ClassifyError),
    /// The output could not be written.
    #[error("cannot write the corpus: {0}")]
    Write(#[from] std::io::Error),
}

/// What a replay did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplaySummary {
    /// WARC records read (in the last pass).
    pub warc_records: u64,
    /// HTML responses (2xx) among them.
    pub pages: u64,
    /// Hosts with pages, and those of them with a learned model.
    pub hosts: u64,
    /// Hosts that got a model.
    pub learned: u64,
    /// Records written.
    pub records: u64,
    /// Paragraphs dropped as Onion duplicates.
    pub duplicate_paragraphs: u64,
    /// Pages without a record, by reason (the crawl's discard keys), and WARC records that
    /// were no page, by reason (`warc_not_response`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Damage in the files (the [`WarcInputError`] message, naming the file and the record):
    /// a file read only up to a cut or an unreadable stretch, and malformed records read past
    /// to the next record ([`crate::extract::warc_input::WarcCounts::damaged`]).
    pub damaged: Vec<String>,
}

/// A host during pass 2: its learning, its sample (decoded HTML, emptied once learned) and
/// its model (`None` while sampling, or when it fell back).
#[derive(Default)]
struct HostSample {
    learning: HostLearning,
    sample: Vec<String>,
    model: Option<Arc<DomainModel>>,
}

/// Re-extract the HTML responses of `paths` with per-host learning and Onion dedup, and write
/// the records to `out` in `format`. `cfg` gives the extractor, stoplist language, learning,
/// dedup and classifier settings (`[crawl] extractor`, `language`, `[learn]`, `[dedup]`,
/// `[classify]`). With `progress`, a progress bar on stderr counts the bytes read over the three
/// passes.
///
/// # Errors
/// [`ReplayError`]: a WARC file that cannot be opened, bad dedup parameters, the classifier
/// model, or the output. A file damaged part-way is not an error here: its records before the
/// damage are written and the damage is listed in [`ReplaySummary::damaged`].
pub fn replay_warcs(
    paths: &[PathBuf],
    cfg: &Config,
    format: CorpusFormat,
    out: &mut dyn Write,
    progress: bool,
) -> Result<ReplaySummary, ReplayError> {
    let bar = progress.then(|| {
        let bytes: u64 = paths.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
        let bar = indicatif::ProgressBar::new(3 * bytes);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message("pages per host");
        bar
    });
    let tools = PageTools {
        kind: cfg.crawl.extractor,
        settings: Arc::new(cfg.extract_settings()),
        classifier: cfg.classify.classifier()?,
    };
    let language = cfg.crawl.language().map(str::to_string);
    let learn = &cfg.learn;
    // 1. Pages per host.
    let mut pages_of: HashMap<String, usize> = HashMap::new();
    for path in paths {
        up_to_damage(read_warc_with_progress(path, bar.as_ref(), |page| {
            *pages_of.entry(host_of(&page.url)).or_default() += 1
        }))?;
    }
    // 2. Each host's sample, learned when complete.
    if let Some(bar) = &bar {
        bar.set_message("samples, learning");
    }
    let rule = SamplingRule::new(learn);
    let mut hosts: HashMap<String, HostSample> = HashMap::new();
    let mut seen_pages: HashMap<String, usize> = HashMap::new();
    for path in paths {
        up_to_damage(read_warc_with_progress(path, bar.as_ref(), |page| {
            let host = host_of(&page.url);
            let nth = seen_pages.entry(host.clone()).or_default();
            *nth += 1;
            let total = pages_of.get(&host).copied().unwrap_or(0);
            let site = hosts.entry(host.clone()).or_default();
            if !site.learning.is_sampling() {
                return;
            }
            if total < learn.min_sample {
                // Too few pages in the files ever to learn: no model, and nothing to decode.
                site.learning.on(&rule, LearningEvent::HostDry);
                return;
            }
            let mut actions = Vec::new();
            if let Ok(html) = readable(&page) {
                site.sample.push(html);
                actions = site.learning.on(&rule, LearningEvent::PageHeld);
            }
            if *nth >= total {
                actions.extend(site.learning.on(&rule, LearningEvent::HostDry));
            }
            if actions.iter().any(|a| matches!(a, LearningAction::Learn { .. })) {
                let sample = std::mem::take(&mut site.sample);
                let (docs, blocks) = parse_sample(sample.iter().map(String::as_str), learn.max_sample_nodes);
                let model = learn_documents(&host, &docs, &blocks, language.as_deref(), &cfg.justext, learn);
                site.model = Some(Arc::new(model));
                site.learning.on(&rule, LearningEvent::Learned);
            } else if !site.learning.is_sampling() {
                site.sample = Vec::new();
            }
        }))?;
    }
    // 3. Extract (on the worker threads), dedup, write (in file order).
    if let Some(bar) = &bar {
        bar.set_message("extracting");
    }
    let models: HashMap<String, Arc<DomainModel>> =
        hosts.iter().filter_map(|(host, h)| h.model.clone().map(|m| (host.clone(), m))).collect();
    let mut summary =
        ReplaySummary { hosts: hosts.len() as u64, learned: models.len() as u64, ..ReplaySummary::default() };
    drop(hosts);
    let pass = extract::Pass { paths, cfg, tools: &tools, models: &models, workers: cfg.crawl.worker_threads() };
    let reads = pass.run(format, out, bar.as_ref(), &mut summary)?;
    for read in reads {
        let counts = match read {
            Ok(counts) => counts,
            Err(e @ WarcInputError::Record { .. }) => {
                if let WarcInputError::Record { record, .. } = &e {
                    summary.warc_records += record.saturating_sub(1);
                }
                summary.damaged.push(e.to_string());
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        summary.warc_records += counts.records;
        summary.damaged.extend(counts.damaged);
        for (skip, n) in counts.skipped {
            *summary.skipped.entry(format!("warc_{}", skip.key())).or_default() += n;
        }
    }
    out.flush()?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(summary)
}

/// A pass's reading of one file: a damaged file counts up to its damage (reported by the
/// last pass, [`ReplaySummary::damaged`]); a file that cannot be opened stops the replay.
fn up_to_damage(read: Result<crate::extract::warc_input::WarcCounts, WarcInputError>) -> Result<(), ReplayError> {
    match read {
        Ok(_) | Err(WarcInputError::Record { .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// The crawl's host key of a URL (`host[:port]`), or the URL itself when it has none.
fn host_of(url: &str) -> String {
    url::Url::parse(url).ok().and_then(|u| crate::crawl::url::host_key(&u)).unwrap_or_else(|| url.to_string())
}

/// The page's decoded HTML, or the crawl's discard key when it is not text (as the crawl's
/// workers refuse it).
fn readable(page: &WarcPage) -> Result<String, &'static str> {
    if binary_kind(&page.body).is_some() {
        return Err("binary");
    }
    let decoded = decode_html(&page.body, page.content_type.as_deref());
    if unreadable_share(&decoded.text) > MAX_UNREADABLE_SHARE {
        return Err("bad_encoding");
    }
    Ok(decoded.text)
}
