//! Rows and tables of `webcorpus eval`: the principal type is [`SetReport`], one evaluated set
//! (one [`RowReport`] per extractor variant, each a [`Summary`] of its [`PageResult`]s, overall
//! and per site). It renders as a Markdown table ([`SetReport::render`], what the command
//! prints and `docs/EVALUATION.md` holds) and serialises to JSON (`--json`).

use crate::eval::bootstrap::bootstrap_se;
use crate::eval::dataset::Dataset;
use crate::eval::metrics::{Aggregate, CharsKept, Prf, ShingleMean, SnippetCounts};
use crate::eval::row::{PageResult, ReferenceInfo, Variant};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The headline numbers of a [`Summary`] (all in 0..1 except throughput).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Scores {
    /// Word alignment, micro precision / recall / F1 (CleanEval, GoldMiner Tables II–III).
    pub word_precision: f64,
    /// See `word_precision`.
    pub word_recall: f64,
    /// See `word_precision`.
    pub word_f1: f64,
    /// Bootstrap standard error of `word_f1`.
    pub word_f1_se: f64,
    /// Mean page F1 of the alignment.
    pub word_macro_f1: f64,
    /// Bag of words micro P / R / F1 (StaDyNoT Table 2).
    pub bow_precision: f64,
    /// See `bow_precision`.
    pub bow_recall: f64,
    /// See `bow_precision`.
    pub bow_f1: f64,
    /// Shingle precision / recall / F1 (ScrapingHub).
    pub shingle_precision: f64,
    /// See `shingle_precision`.
    pub shingle_recall: f64,
    /// See `shingle_precision`.
    pub shingle_f1: f64,
    /// Bootstrap standard error of `shingle_f1`.
    pub shingle_f1_se: f64,
    /// Share of pages whose tokens equal the gold's.
    pub shingle_accuracy: f64,
    /// Share of gold characters kept (the rest is dropped).
    pub gold_chars_kept: f64,
    /// Snippet precision / recall / F1 / accuracy (trafilatura, micro).
    pub snippet_precision: f64,
    /// See `snippet_precision`.
    pub snippet_recall: f64,
    /// See `snippet_precision`.
    pub snippet_f1: f64,
    /// See `snippet_precision`.
    pub snippet_accuracy: f64,
    /// Pages per second of summed extraction time (one thread); `None` when no page of the
    /// group was timed (an external tool without timings).
    pub pages_per_s: Option<f64>,
    /// MB (10⁶ bytes) of decoded HTML per second of summed extraction time; `None` as
    /// `pages_per_s`.
    pub mb_per_s: Option<f64>,
}

/// A group of pages summed: counts and [`Scores`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Pages in the group.
    pub pages: usize,
    /// Pages that gave no output for a stated reason (extractor error, unreadable file).
    pub discards: usize,
    /// Pages extracted with a learned model.
    pub with_model: usize,
    /// Word alignment over pages with non-empty gold text.
    pub word: Aggregate,
    /// Bag-of-words counts summed.
    pub bow: Prf,
    /// Shingle means over pages with gold text.
    pub shingle: ShingleMean,
    /// Gold characters kept, summed.
    pub chars: CharsKept,
    /// Snippet counts, summed.
    pub snippets: SnippetCounts,
    /// Summed extraction seconds.
    pub extract_secs: f64,
    /// Summed decoded HTML bytes.
    pub html_bytes: usize,
    /// The headline numbers.
    pub scores: Scores,
}

impl Summary {
    /// Sum `pages`, with bootstrap standard errors of the word micro F1 and the shingle F1.
    pub fn new(pages: &[&PageResult]) -> Summary {
        let mut s = Summary { pages: pages.len(), ..Summary::default() };
        let mut timed = false;
        for p in pages {
            s.discards += usize::from(p.error.is_some());
            s.with_model += usize::from(p.model);
            if let Some(w) = p.word {
                s.word.add(w);
            }
            if let Some(b) = p.bow {
                s.bow.add(b);
            }
            if let Some(sh) = &p.shingle {
                s.shingle.add(sh);
            }
            if let Some(c) = p.chars {
                s.chars.add(c);
            }
            if let Some(c) = p.snippets {
                s.snippets.add(c);
            }
            if let Some(secs) = p.secs {
                s.extract_secs += secs;
                timed = true;
            }
            s.html_bytes += p.html_bytes;
        }
        let word_f1_se = bootstrap_se(pages.len(), |idx| {
            let mut total = Prf::default();
            idx.iter().filter_map(|&i| pages[i].word).for_each(|w| total.add(w));
            total.f1()
        });
        let shingle_f1_se = bootstrap_se(pages.len(), |idx| {
            let mut m = ShingleMean::default();
            idx.iter().filter_map(|&i| pages[i].shingle.as_ref()).for_each(|sh| m.add(sh));
            m.f1()
        });
        let micro = s.word.micro();
        let per_sec = |x: f64| timed.then(|| if s.extract_secs > 0.0 { x / s.extract_secs } else { 0.0 });
        s.scores = Scores {
            word_precision: micro.precision(),
            word_recall: micro.recall(),
            word_f1: micro.f1(),
            word_f1_se,
            word_macro_f1: s.word.macro_f1(),
            bow_precision: s.bow.precision(),
            bow_recall: s.bow.recall(),
            bow_f1: s.bow.f1(),
            shingle_precision: s.shingle.precision(),
            shingle_recall: s.shingle.recall(),
            shingle_f1: s.shingle.f1(),
            shingle_f1_se,
            shingle_accuracy: s.shingle.accuracy(),
            gold_chars_kept: s.chars.share(),
            snippet_precision: s.snippets.precision(),
            snippet_recall: s.snippets.recall(),
            snippet_f1: s.snippets.f1(),
            snippet_accuracy: s.snippets.accuracy(),
            pages_per_s: per_sec(s.pages as f64),
            mb_per_s: per_sec(s.html_bytes as f64 / 1e6),
        };
        s
    }
}

/// One site's (or a pool of small sites') summary.
#[derive(Debug, Clone, Serialize)]
pub struct SiteSummary {
    /// Site key, or `other (N sites)` for the pool of sites below `min_sample` pages.
    pub site: String,
    /// The site's pages summed.
    pub summary: Summary,
}

/// One extractor variant (or one external tool's precomputed outputs) on one set.
#[derive(Debug, Clone, Serialize)]
pub struct RowReport {
    /// Row label (`goldminer`, `goldminer (loo)`, or an external tool's `--reference` name).
    pub label: String,
    /// Extractor and model protocol; `None` for an external tool's row.
    pub variant: Option<Variant>,
    /// The external tool of a `--reference` row (name, directory, version, settings).
    pub reference: Option<ReferenceInfo>,
    /// All pages summed.
    pub summary: Summary,
    /// Each site with at least `min_sample` pages, then the other sites pooled.
    pub sites: Vec<SiteSummary>,
    /// Every page's scores, in set order.
    pub pages: Vec<PageResult>,
}

impl RowReport {
    /// Sum `pages` overall and per site (sites below `min_sample` pages pooled).
    pub fn new(variant: Variant, pages: Vec<PageResult>, min_sample: usize) -> RowReport {
        RowReport::build(variant.label(), Some(variant), None, pages, min_sample)
    }

    /// An external tool's row ([`super::reference`]): labelled with its `--reference` name,
    /// summed as [`RowReport::new`].
    pub fn external(info: ReferenceInfo, pages: Vec<PageResult>, min_sample: usize) -> RowReport {
        RowReport::build(info.name.clone(), None, Some(info), pages, min_sample)
    }

    fn build(
        label: String,
        variant: Option<Variant>,
        reference: Option<ReferenceInfo>,
        pages: Vec<PageResult>,
        min_sample: usize,
    ) -> RowReport {
        let all: Vec<&PageResult> = pages.iter().collect();
        let summary = Summary::new(&all);
        let mut order: Vec<&str> = Vec::new();
        for p in &pages {
            if !order.contains(&p.site.as_str()) {
                order.push(&p.site);
            }
        }
        let mut sites = Vec::new();
        let mut pooled: Vec<&PageResult> = Vec::new();
        let mut pooled_sites = 0;
        for site in order {
            let group: Vec<&PageResult> = pages.iter().filter(|p| p.site == site).collect();
            if group.len() >= min_sample {
                sites.push(SiteSummary { site: site.to_string(), summary: Summary::new(&group) });
            } else {
                pooled_sites += 1;
                pooled.extend(group);
            }
        }
        if !pooled.is_empty() {
            sites.push(SiteSummary { site: format!("other ({pooled_sites} sites)"), summary: Summary::new(&pooled) });
        }
        RowReport { label, variant, reference, summary, sites, pages }
    }
}

/// One evaluated set.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    /// Set name.
    pub name: String,
    /// Set directory.
    pub dir: PathBuf,
    /// Pages evaluated.
    pub pages: usize,
    /// Distinct sites.
    pub sites: usize,
    /// Sites that got a model (≥ `min_sample` pages, and a per-site extractor was asked for).
    pub sites_with_model: usize,
    /// True when the set has full gold text.
    pub has_text: bool,
    /// True when the set has snippets.
    pub has_snippets: bool,
    /// Wall-clock seconds spent learning models.
    pub learn_secs: f64,
    /// One row per extractor variant.
    pub rows: Vec<RowReport>,
    /// A note printed above the table: why a row's scores are not held-out figures
    /// ([`crate::eval::run::trained_on_caveat`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
}

impl SetReport {
    /// Assemble the report of `set` (already limited to the evaluated pages).
    pub fn new(set: &Dataset, sites_with_model: usize, learn_secs: f64, rows: Vec<RowReport>) -> SetReport {
        SetReport {
            name: set.name.clone(),
            dir: set.dir.clone(),
            pages: set.pages.len(),
            sites: set.sites().len(),
            sites_with_model,
            has_text: set.has_text(),
            has_snippets: set.has_snippets(),
            learn_secs,
            rows,
            caveat: None,
        }
    }

    /// A Markdown table: a heading line, then one row per extractor variant (and, with
    /// `per_site`, its site rows under it). Columns: the measures that apply to the set.
    pub fn render(&self, per_site: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "### {} ({} pages, {} sites, {} with a model; learning {:.1} s)\n",
            self.name, self.pages, self.sites, self.sites_with_model, self.learn_secs
        );
        if let Some(caveat) = &self.caveat {
            let _ = writeln!(out, "Note: {caveat}\n");
        }
        let mut head = vec!["extractor", "pages"];
        if self.has_text {
            head.extend(["P", "R", "F1 ±se", "macro F1", "BoW F1", "shingle F1 ±se", "gold chars kept"]);
        }
        if self.has_snippets {
            head.extend(["snippet P", "snippet R", "snippet F1", "snippet acc"]);
        }
        head.extend(["discards", "pages/s", "MB/s"]);
        let _ = writeln!(out, "| {} |", head.join(" | "));
        let align: Vec<&str> = head.iter().enumerate().map(|(i, _)| if i == 0 { "---" } else { "---:" }).collect();
        let _ = writeln!(out, "| {} |", align.join(" | "));
        for row in &self.rows {
            self.render_row(&mut out, &row.label, &row.summary);
            if per_site {
                for site in &row.sites {
                    self.render_row(&mut out, &format!("↳ {}", site.site), &site.summary);
                }
            }
        }
        out
    }

    fn render_row(&self, out: &mut String, label: &str, s: &Summary) {
        let c = &s.scores;
        let mut cells = vec![label.to_string(), s.pages.to_string()];
        if self.has_text {
            cells.extend([
                format!("{:.3}", c.word_precision),
                format!("{:.3}", c.word_recall),
                format!("{:.3} ±{:.3}", c.word_f1, c.word_f1_se),
                format!("{:.3}", c.word_macro_f1),
                format!("{:.3}", c.bow_f1),
                format!("{:.3} ±{:.3}", c.shingle_f1, c.shingle_f1_se),
                format!("{:.3}", c.gold_chars_kept),
            ]);
        }
        if self.has_snippets {
            cells.extend([
                format!("{:.3}", c.snippet_precision),
                format!("{:.3}", c.snippet_recall),
                format!("{:.3}", c.snippet_f1),
                format!("{:.3}", c.snippet_accuracy),
            ]);
        }
        cells.extend([
            s.discards.to_string(),
            c.pages_per_s.map_or(String::new(), |x| format!("{x:.0}")),
            c.mb_per_s.map_or(String::new(), |x| format!("{x:.1}")),
        ]);
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::metrics::ShingleCounts;
    use crate::eval::row::ModelMode;
    use crate::extract::ExtractorKind;

    fn page(site: &str, tp: usize, fn_: usize, error: bool) -> PageResult {
        PageResult {
            id: format!("{site}-{tp}"),
            site: site.into(),
            error: error.then(|| "x".into()),
            model: false,
            secs: Some(0.5),
            html_bytes: 1_000_000,
            output_words: tp,
            word: Some(Prf { tp, fp: 0, fn_ }),
            bow: Some(Prf { tp, fp: 0, fn_ }),
            chars: Some(CharsKept { kept: tp, total: tp + fn_ }),
            shingle: Some(ShingleCounts { tp, fp: 0, fn_, exact: fn_ == 0 }),
            snippets: None,
        }
    }

    #[test]
    fn rows_sum_pages_and_pool_small_sites() {
        let v = Variant { kind: ExtractorKind::JusText, mode: ModelMode::None };
        let pages = vec![page("a", 3, 1, false), page("a", 4, 0, false), page("b", 0, 4, true)];
        let row = RowReport::new(v, pages, 2);
        let s = &row.summary;
        assert_eq!((s.pages, s.discards), (3, 1));
        // Micro: tp 7, fn 5: P 1, R 7/12.
        assert!((s.scores.word_recall - 7.0 / 12.0).abs() < 1e-12);
        assert!((s.scores.gold_chars_kept - 7.0 / 12.0).abs() < 1e-12);
        assert_eq!(s.scores.pages_per_s, Some(2.0));
        assert_eq!(s.scores.mb_per_s, Some(2.0));
        assert!(s.scores.word_f1_se > 0.0);
        let names: Vec<&str> = row.sites.iter().map(|s| s.site.as_str()).collect();
        assert_eq!(names, vec!["a", "other (1 sites)"]);
        assert_eq!(row.sites[0].summary.pages, 2);
    }
}
