//! `webcorpus eval`: the principal function is [`evaluate_set`], which runs every chosen
//! extractor over every page of one [`Dataset`] and scores the output against the gold
//! ([`super::metrics`]); [`super::report`] sums the pages into rows and renders the tables.
//!
//! Per-site protocol (GoldMiner, Endrédy & Novák 2013, §IV; StaDyNoT, Uzun et al. 2014, §4):
//! every extractor whose [`ExtractorKind::uses_model`] is true gets a [`DomainModel`] learned
//! ([`learn()`]) from all pages of the page's `site` in the set; with leave-one-out, each page's
//! model is learned from the other pages of its site only, and both variants are reported.
//! Sites with fewer than `[learn] min_sample` pages get no model (the extractors then fall
//! back as they do in a crawl). Models are learned once per site (or page) and shared by all
//! extractors.
//!
//! Pages are spread over `threads` worker threads; each extraction is timed alone (reading,
//! decoding and scoring are not timed), so pages/s and MB/s are one-thread throughput: pages
//! (or MB of decoded HTML) divided by the summed extraction times. An extractor error or a
//! page that cannot be read counts as empty output and as a discard, never as a failure.

use crate::domain::{learn, DomainModel, LearnParams, SamplePage};
use crate::eval::dataset::{site_fold, Dataset, GoldConvention, GoldPage};
use crate::eval::metrics::{
    alignment_scores, bag_of_words_prf, shingle_counts, snippet_counts, visible_text, words, CharsKept, Prf,
    ShingleCounts,
};
use crate::eval::report::{RowReport, SetReport};
pub use crate::eval::row::{ModelMode, PageResult, Variant};
use crate::extract::combiner::CombinerModel;
use crate::extract::host_evidence::HostEvidenceModel;
use crate::extract::pipeline::{extract_html, ExtractSettings};
use crate::extract::ExtractorKind;
use crate::model::join_paragraphs;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What to evaluate and how.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// Extractors, in table order.
    pub extractors: Vec<ExtractorKind>,
    /// Also evaluate per-site extractors with leave-one-out models.
    pub leave_one_out: bool,
    /// Evaluate only the first N pages of each set.
    pub limit: Option<usize>,
    /// Worker threads (≥ 1).
    pub threads: usize,
    /// Language and thresholds of extraction (`[crawl] language`, `[justext]`, `[learn.stadynot]`).
    pub settings: ExtractSettings,
    /// Learning parameters (`[learn]`; `min_sample` decides which sites get a model).
    pub learn: LearnParams,
    /// Site-grouped cross-validation of the combiner: one model per site fold
    /// ([`site_fold`]), model `k` trained without fold `k`; a page of fold `k` is extracted
    /// with model `k`. `None`: `settings.combiner` for every page.
    pub combiner_folds: Option<Arc<Vec<CombinerModel>>>,
    /// The host-evidence model's fold models, as `combiner_folds` (`train host-evidence --cv`);
    /// `None`: `settings.host_evidence` for every page.
    pub host_evidence_folds: Option<Arc<Vec<HostEvidenceModel>>>,
    /// Where each row's output text goes, `DIR/<row slug>/<set>/<id>.txt` ([`output_path`]),
    /// for every page that is not a discard; `None`: nowhere. A file that cannot be written is
    /// reported and skipped.
    pub outputs: Option<PathBuf>,
}

impl EvalOptions {
    /// `extractors` with default settings and learning parameters, no leave-one-out, every
    /// page, one worker per core.
    pub fn new(extractors: Vec<ExtractorKind>) -> EvalOptions {
        EvalOptions {
            extractors,
            leave_one_out: false,
            limit: None,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            settings: ExtractSettings::default(),
            learn: LearnParams::default(),
            combiner_folds: None,
            host_evidence_folds: None,
            outputs: None,
        }
    }
}

/// Score one page's `output` against its gold, both read through [`visible_text`].
pub fn score_page(
    page: &GoldPage,
    output: &str,
) -> (Option<Prf>, Option<Prf>, Option<CharsKept>, Option<ShingleCounts>) {
    let Some(gold) = page.text.as_deref() else {
        return (None, None, None, None);
    };
    let (gold, output) = (visible_text(gold), visible_text(output));
    let (gold, output) = (gold.as_ref(), output.as_ref());
    let shingle = Some(shingle_counts(output, gold));
    let gold_words = words(gold);
    if gold_words.is_empty() {
        return (None, None, None, shingle);
    }
    let out_words = words(output);
    let (prf, chars) = alignment_scores(&out_words, &gold_words);
    (Some(prf), Some(bag_of_words_prf(&out_words, &gold_words)), Some(chars), shingle)
}

/// Map `f` over `0..n` on `threads` scoped threads (work taken one index at a time), results
/// in index order.
pub fn par_map<R: Send>(n: usize, threads: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let mut out: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.clamp(1, n.max(1)))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, f(i)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// Learned models of one set: per site key, and per page index for leave-one-out.
#[derive(Default)]
struct Models {
    site: HashMap<String, DomainModel>,
    loo: HashMap<usize, DomainModel>,
    sites_with_model: usize,
    secs: f64,
}

/// Learn the models the rows need (see the module doc).
fn learn_models(set: &Dataset, opts: &EvalOptions, variants: &[Variant]) -> Models {
    let mut models = Models::default();
    let site_rows = variants.iter().any(|v| v.mode == ModelMode::Site);
    let loo_rows = variants.iter().any(|v| v.mode == ModelMode::LeaveOneOut);
    if !site_rows && !loo_rows {
        return models;
    }
    let start = Instant::now();
    let language = opts.settings.language.as_deref();
    for (site, pages) in set.sites() {
        if !crate::domain::learns_whole_site(&opts.learn, pages.len()) {
            continue;
        }
        models.sites_with_model += 1;
        let sample = set.sample_pages(&pages);
        // Job 0: the site model; job k ≥ 1: the model without sample page k - 1.
        let jobs = usize::from(site_rows) + if loo_rows { sample.len() } else { 0 };
        let learned = par_map(jobs, opts.threads, |j| {
            let leave_out = if site_rows { j.checked_sub(1) } else { Some(j) };
            let pages: Vec<SamplePage> =
                sample.iter().enumerate().filter(|(k, _)| Some(*k) != leave_out).map(|(_, (_, p))| p.clone()).collect();
            (leave_out, learn(&site, &pages, language, &opts.settings.justext, &opts.learn))
        });
        for (leave_out, model) in learned {
            match leave_out {
                None => {
                    models.site.insert(site.clone(), model);
                }
                Some(k) => {
                    models.loo.insert(sample[k].0, model);
                }
            }
        }
    }
    models.secs = start.elapsed().as_secs_f64();
    models
}

/// The note on a set the default's scores are not held-out figures for: the default is
/// evaluated with the combiner of [`ExtractSettings::combiner_model`] (no `--combiner-cv`) and
/// that model's provenance names `set` among its training sets. `None` otherwise.
pub fn trained_on_caveat(set: &str, opts: &EvalOptions) -> Option<String> {
    let default = opts.extractors.contains(&ExtractorKind::Default);
    if !default || opts.combiner_folds.is_some() {
        return None;
    }
    let model = opts.settings.combiner_model().ok()?;
    let sets = model.provenance.get("sets")?.as_array()?;
    sets.iter().any(|s| s.as_str() == Some(set)).then(|| {
        format!(
            "The default's combiner was trained on the pages of {set}: its scores here are not held-out figures. \
             Add `--combiner-cv models/combiner-cv` to extract each page with a model trained without its site."
        )
    })
}

/// Evaluate `opts.extractors` on `set` (first `opts.limit` pages): learn the models, extract
/// and score every page for every row, and sum the rows ([`SetReport`]). Never fails: an
/// unreadable page or an extractor error is a discard.
pub fn evaluate_set(set: &Dataset, opts: &EvalOptions) -> SetReport {
    let mut set = set.clone();
    if let Some(n) = opts.limit {
        set.truncate(n);
    }
    let variants = Variant::all(&opts.extractors, opts.leave_one_out);
    let models = learn_models(&set, opts, &variants);
    let fold_settings: Vec<ExtractSettings> = opts
        .combiner_folds
        .iter()
        .flat_map(|folds| folds.iter())
        .enumerate()
        .map(|(k, m)| ExtractSettings {
            combiner: Some(Arc::new(m.clone())),
            host_evidence: opts.host_evidence_folds.as_ref().and_then(|f| f.get(k)).map(|h| Arc::new(h.clone())),
            ..opts.settings.clone()
        })
        .collect();
    let per_page: Vec<Vec<PageResult>> = par_map(set.pages.len(), opts.threads, |i| {
        let page = &set.pages[i];
        let html = set.read_html(page);
        let settings = match fold_settings.len() {
            0 => &opts.settings,
            n => &fold_settings[site_fold(&page.site_key()) % n],
        };
        variants
            .iter()
            .map(|v| {
                let model = match v.mode {
                    ModelMode::None => None,
                    ModelMode::Site => models.site.get(&page.host_key()),
                    ModelMode::LeaveOneOut => models.loo.get(&i),
                };
                let out = opts.outputs.as_deref().map(|dir| output_path(dir, v, &set.name, &page.id));
                match &html {
                    Ok(html) => {
                        extract_and_score(page, html, v.kind, model, settings, set.convention(), out.as_deref())
                    }
                    Err(e) => discarded(page, e.to_string(), model.is_some()),
                }
            })
            .collect()
    });
    let rows = variants
        .iter()
        .enumerate()
        .map(|(r, v)| {
            let pages: Vec<PageResult> = per_page.iter().map(|p| p[r].clone()).collect();
            RowReport::new(*v, pages, opts.learn.min_sample)
        })
        .collect();
    let mut report = SetReport::new(&set, models.sites_with_model, models.secs, rows);
    report.caveat = trained_on_caveat(&set.name, opts);
    report
}

/// The text of `ex` that is scored against the gold: its main content, after its headline
/// and before its comments where the set's gold counts them as main text
/// ([`crate::eval::dataset::Dataset::convention`]; the comments are in `ex` only when they
/// were asked for).
pub fn scored_text(ex: &crate::extract::pipeline::PageExtraction, convention: GoldConvention) -> String {
    let headline = ex.headline.as_deref().filter(|_| convention.headline);
    let comments = ex.comments.as_deref().filter(|_| convention.comments);
    let text = join_paragraphs(&ex.paragraphs);
    [headline, Some(text.as_str()), comments]
        .into_iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A page with no output: every measure scored against the empty string.
fn discarded(page: &GoldPage, error: String, model: bool) -> PageResult {
    scored_page(page, "", Some(error), model, Some(0.0), 0)
}

/// Score `output` for `page` into a [`PageResult`]: `error` is the discard reason (the output
/// is then normally empty), `secs` the extraction time (`None`: not measured, e.g. an external
/// tool without timings), `html_bytes` the decoded HTML size.
pub fn scored_page(
    page: &GoldPage,
    output: &str,
    error: Option<String>,
    model: bool,
    secs: Option<f64>,
    html_bytes: usize,
) -> PageResult {
    let (word, bow, chars, shingle) = score_page(page, output);
    PageResult {
        id: page.id.clone(),
        site: page.host_key(),
        error,
        model,
        secs,
        html_bytes,
        output_words: words(output).len(),
        word,
        bow,
        chars,
        shingle,
        snippets: page.has_snippets().then(|| snippet_counts(output, &page.with, &page.without)),
    }
}

/// The calling thread's CPU time (`cpu-time`: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` on
/// Unix), or the wall clock where that cannot be read. Extraction timed on CPU time is one
/// core's throughput even when the machine is busy (CI, more worker threads than cores).
enum ThreadClock {
    Cpu(cpu_time::ThreadTime),
    Wall(Instant),
}

impl ThreadClock {
    fn now() -> ThreadClock {
        match cpu_time::ThreadTime::try_now() {
            Ok(t) => ThreadClock::Cpu(t),
            Err(_) => ThreadClock::Wall(Instant::now()),
        }
    }

    /// Seconds since [`ThreadClock::now`].
    fn elapsed_secs(&self) -> f64 {
        match self {
            ThreadClock::Cpu(start) => {
                cpu_time::ThreadTime::try_now().map_or(0.0, |now| now.duration_since(*start).as_secs_f64())
            }
            ThreadClock::Wall(start) => start.elapsed().as_secs_f64(),
        }
    }
}

/// Where `--outputs DIR` puts a row's output for one page: `DIR/<label>/<set>/<id>.txt`, the
/// label's spaces turned into `-` and its parentheses dropped (`default (loo)` →
/// `default-loo`).
pub fn output_path(dir: &Path, variant: &Variant, set: &str, id: &str) -> PathBuf {
    let label: String =
        variant.label().chars().filter(|c| !matches!(c, '(' | ')')).map(|c| if c == ' ' { '-' } else { c }).collect();
    dir.join(label).join(set).join(format!("{id}.txt"))
}

/// Write `text` to `path` (its directories created); a failure is logged, never fatal.
fn write_output(path: &Path, text: &str) {
    let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(path, text));
    if let Err(e) = written {
        tracing::warn!(path = %path.display(), error = %e, "cannot write the output text");
    }
}

/// Extract one page with one extractor (timed: [`ThreadClock`]) and score it; with `out`, the
/// output text is also written there unless the page is a discard (no file: a discard, as
/// `--reference` reads it). A panic inside the extractor is caught and counted as a
/// discard, so one bad page cannot stop a long evaluation.
fn extract_and_score(
    page: &GoldPage,
    html: &str,
    kind: ExtractorKind,
    model: Option<&DomainModel>,
    settings: &ExtractSettings,
    convention: GoldConvention,
    out: Option<&Path>,
) -> PageResult {
    let start = ThreadClock::now();
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match convention.comments && !settings.comments {
            true => {
                let settings = ExtractSettings { comments: true, ..settings.clone() };
                extract_html(html, kind, model.map(DomainModel::view), &settings)
            }
            false => extract_html(html, kind, model.map(DomainModel::view), settings),
        }));
    let secs = start.elapsed_secs();
    let (output, error) = match result {
        Ok(Ok(ex)) => (scored_text(&ex, convention), None),
        Ok(Err(e)) => (String::new(), Some(e.to_string())),
        Err(_) => (String::new(), Some(format!("{kind} panicked"))),
    };
    if let (Some(path), None) = (out, &error) {
        write_output(path, &output);
    }
    scored_page(page, &output, error, model.is_some(), Some(secs), html.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::metrics::SnippetCounts;

    #[test]
    fn variants_and_par_map() {
        let v = Variant::all(&[ExtractorKind::JusText, ExtractorKind::GoldMiner], true);
        let labels: Vec<String> = v.iter().map(Variant::label).collect();
        assert_eq!(labels, vec!["justext", "goldminer", "goldminer (loo)"]);
        assert_eq!(par_map(100, 3, |i| i * 2), (0..100).map(|i| i * 2).collect::<Vec<_>>());
        assert!(par_map(0, 4, |i| i).is_empty());
    }

    #[test]
    fn a_discarded_page_scores_as_empty_output() {
        let page: GoldPage =
            serde_json::from_str(r#"{"id":"x","text":"a b c d e","with":["a b"],"without":["zz"]}"#).unwrap();
        let r = discarded(&page, "pattern not found".into(), true);
        assert_eq!(r.word, Some(Prf { tp: 0, fp: 0, fn_: 5 }));
        assert_eq!(r.snippets, Some(SnippetCounts { tp: 0, fn_: 1, fp: 0, tn: 1 }));
        let (word, _, chars, shingle) = score_page(&page, "x a b c d e");
        assert_eq!(word, Some(Prf { tp: 5, fp: 1, fn_: 0 }));
        assert_eq!(chars.map(|c| c.share()), Some(1.0));
        assert_eq!(shingle.and_then(|s| s.recall()), Some(1.0));
    }

    /// The floor test of issue 3: jusText and GoldMiner (per-site models) on CleanPortalEval.
    /// Reference word-level micro F1: python jusText 0.831; floors a bit under what we measure.
    #[test]
    fn cleanportaleval_floors() {
        let Some(dir) = crate::testdata::shared_path("data/cleanportaleval") else { return };
        let set = Dataset::load(&dir).unwrap();
        let opts = EvalOptions {
            settings: ExtractSettings { language: Some("English".into()), ..ExtractSettings::default() },
            ..EvalOptions::new(vec![ExtractorKind::JusText, ExtractorKind::GoldMiner])
        };
        let report = evaluate_set(&set, &opts);
        assert_eq!(report.pages, 71);
        assert_eq!(report.sites_with_model, 4);
        let f1 = |label: &str| {
            let row = report.rows.iter().find(|r| r.label == label).unwrap();
            (row.summary.word.micro().f1(), row.summary.shingle.f1(), row.summary.chars.share())
        };
        let (jt, jt_shingle, jt_chars) = f1("justext");
        let (gm, gm_shingle, _) = f1("goldminer");
        eprintln!(
            "cleanportaleval: justext F1 {jt:.4} shingle {jt_shingle:.4}; goldminer F1 {gm:.4} shingle {gm_shingle:.4}"
        );
        // Measured (2026-11): justext 0.870 / shingle 0.827 / chars 0.901; goldminer 0.985 / 0.977.
        assert!(jt > 0.85, "justext word F1 {jt}");
        assert!(jt_shingle > 0.80 && jt_chars > 0.88, "justext shingle {jt_shingle} chars {jt_chars}");
        assert!(gm > 0.98, "goldminer word F1 {gm}");
        assert!(gm_shingle > 0.97, "goldminer shingle {gm_shingle}");
    }
}
