//! `webcorpus score`: a crawl's JSONL corpus (or the output of `webcorpus extract`) against
//! the gold text of a set in `../shared/data` (`gold.jsonl`: `id`, `url`, `text`), matched by
//! normalised URL (`url` or `final_url`) or by `id`. Word-level
//! precision, recall and F1 by alignment (CleanEval style, see [`super::metrics`]): a gold
//! page without a record scores as empty output; pages with empty gold are skipped.

use crate::crawl::url::normalize;
use crate::eval::dataset::{read_jsonl, DatasetError};
use crate::eval::metrics::{visible_text, word_alignment_prf, words, Aggregate, Prf};
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use url::Url;

/// A corpus record or an `extract` output line: only what scoring reads.
#[derive(Deserialize)]
struct OutputLine {
    url: Option<String>,
    final_url: Option<String>,
    id: Option<String>,
    text: Option<String>,
}

#[derive(Deserialize)]
struct GoldPage {
    id: String,
    url: Option<String>,
    #[serde(default)]
    site: Option<String>,
    text: Option<String>,
}

/// One gold page's score.
#[derive(Debug, Clone)]
pub struct PageScore {
    /// Gold id.
    pub id: String,
    /// Site of the page.
    pub site: String,
    /// True when the corpus has a record for the page.
    pub found: bool,
    /// Word-level counts.
    pub prf: Prf,
}

/// Scores of a corpus against a gold file.
#[derive(Debug, Clone)]
pub struct ScoreReport {
    /// Per page, in gold order (pages with empty gold left out).
    pub pages: Vec<PageScore>,
    /// All pages.
    pub total: Aggregate,
    /// Per site.
    pub sites: Vec<(String, Aggregate)>,
}

fn key(url: &str) -> Option<String> {
    Url::parse(url).ok().and_then(|u| normalize(&u)).map(|u| u.to_string())
}

/// Score the JSONL `corpus` against `gold` (a `gold.jsonl`).
///
/// # Errors
/// [`DatasetError`] naming the file (and line) when one cannot be read or parsed.
pub fn score_corpus(corpus: &Path, gold: &Path) -> Result<ScoreReport, DatasetError> {
    let records: Vec<OutputLine> = read_jsonl(corpus)?;
    let mut by_url: HashMap<String, &OutputLine> = HashMap::new();
    let mut by_id: HashMap<&str, &OutputLine> = HashMap::new();
    for r in &records {
        for u in [&r.url, &r.final_url].into_iter().flatten() {
            if let Some(k) = key(u) {
                by_url.entry(k).or_insert(r);
            }
        }
        if let Some(id) = &r.id {
            by_id.entry(id.as_str()).or_insert(r);
        }
    }
    let gold: Vec<GoldPage> = read_jsonl(gold)?;
    let mut pages = Vec::new();
    let mut total = Aggregate::default();
    let mut sites: Vec<(String, Aggregate)> = Vec::new();
    for g in gold {
        let gold_text = visible_text(g.text.as_deref().unwrap_or_default()).into_owned();
        let gold_words = words(&gold_text);
        if gold_words.is_empty() {
            continue;
        }
        let record = g.url.as_deref().and_then(key).and_then(|k| by_url.get(&k)).or_else(|| by_id.get(g.id.as_str()));
        let output = record.and_then(|r| r.text.as_deref()).unwrap_or("");
        let prf = word_alignment_prf(&words(&visible_text(output)), &gold_words);
        total.add(prf);
        let site = g.site.unwrap_or_default();
        match sites.iter_mut().find(|(s, _)| *s == site) {
            Some((_, agg)) => agg.add(prf),
            None => {
                let mut agg = Aggregate::default();
                agg.add(prf);
                sites.push((site.clone(), agg));
            }
        }
        pages.push(PageScore { id: g.id, site, found: record.is_some(), prf });
    }
    Ok(ScoreReport { pages, total, sites })
}

impl ScoreReport {
    /// A plain-text table: per site and total, micro and macro P/R/F1.
    pub fn render(&self, per_page: bool) -> String {
        let mut out = String::new();
        let found = self.pages.iter().filter(|p| p.found).count();
        let _ = writeln!(out, "gold pages scored: {} ({} with a corpus record)", self.pages.len(), found);
        let _ = writeln!(
            out,
            "{:<24} {:>6} {:>8} {:>8} {:>8}   {:>8} {:>8} {:>8}",
            "site", "pages", "micro-P", "micro-R", "micro-F1", "macro-P", "macro-R", "macro-F1"
        );
        let mut rows: Vec<(&str, &Aggregate)> = self.sites.iter().map(|(s, a)| (s.as_str(), a)).collect();
        rows.push(("ALL", &self.total));
        for (site, a) in rows {
            let micro = a.micro();
            let (mp, mr, mf) = (a.macro_precision(), a.macro_recall(), a.macro_f1());
            let _ = writeln!(
                out,
                "{:<24} {:>6} {:>8.4} {:>8.4} {:>8.4}   {:>8.4} {:>8.4} {:>8.4}",
                site,
                a.pages,
                micro.precision(),
                micro.recall(),
                micro.f1(),
                mp,
                mr,
                mf
            );
        }
        if per_page {
            for p in &self.pages {
                let _ = writeln!(
                    out,
                    "{:<40} {} P {:.3} R {:.3} F1 {:.3}",
                    p.id,
                    if p.found { "record " } else { "MISSING" },
                    p.prf.precision(),
                    p.prf.recall(),
                    p.prf.f1()
                );
            }
        }
        out
    }
}
