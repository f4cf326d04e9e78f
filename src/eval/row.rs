//! What one row of an evaluation is and what each of its pages scored: the extractor and its
//! model protocol ([`Variant`]), an external tool's row ([`ReferenceInfo`]), and one page's
//! counts ([`PageResult`]). [`super::run`] and [`super::reference`] produce them,
//! [`super::report`] sums them.

use crate::eval::metrics::{CharsKept, Prf, ShingleCounts, SnippetCounts};
use crate::extract::ExtractorKind;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How a row's extractor got its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelMode {
    /// The extractor uses no model.
    None,
    /// Model learned from all pages of the site, the page included.
    Site,
    /// Model learned from the site's other pages.
    LeaveOneOut,
}

/// One table row: an extractor and its model protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Variant {
    /// The extractor.
    pub kind: ExtractorKind,
    /// Its model protocol.
    pub mode: ModelMode,
}

impl Variant {
    /// The row label: the extractor name, with ` (loo)` for leave-one-out and ` (unlearned)`
    /// for a per-site extractor without its model.
    pub fn label(&self) -> String {
        match self.mode {
            ModelMode::LeaveOneOut => format!("{} (loo)", self.kind.name()),
            ModelMode::None if self.kind.uses_model() => format!("{} (unlearned)", self.kind.name()),
            _ => self.kind.name().to_string(),
        }
    }

    /// The rows for `extractors`: per-site extractors get a site-model row, and when
    /// `leave_one_out` a leave-one-out row after it, then for the default extractor a row
    /// without any model (learned against unlearned on the same pages).
    pub fn all(extractors: &[ExtractorKind], leave_one_out: bool) -> Vec<Variant> {
        let mut rows = Vec::new();
        for &kind in extractors {
            if kind.uses_model() {
                rows.push(Variant { kind, mode: ModelMode::Site });
                if leave_one_out {
                    rows.push(Variant { kind, mode: ModelMode::LeaveOneOut });
                    if kind == ExtractorKind::Default {
                        rows.push(Variant { kind, mode: ModelMode::None });
                    }
                }
            } else {
                rows.push(Variant { kind, mode: ModelMode::None });
            }
        }
        rows
    }
}

/// One page's scores for one row. Gold-text measures are `None` where the page has no
/// full-text gold; word-level measures are also `None` for an empty gold (as `webcorpus
/// score`: CleanEval's scorer divides by the gold length). Snippets are `None` without snippets.
#[derive(Debug, Clone, Serialize)]
pub struct PageResult {
    /// Gold id.
    pub id: String,
    /// Site key ([`crate::eval::dataset::GoldPage::site_key`]).
    pub site: String,
    /// Why the page gave no output (extractor error, unreadable file), if so: a discard.
    pub error: Option<String>,
    /// True when the extractor was given a learned model.
    pub model: bool,
    /// Seconds of extraction (parse, segment, classify); `None` when not measured (an
    /// external tool's row without `timing.json`, [`super::reference`]).
    pub secs: Option<f64>,
    /// Bytes of decoded HTML.
    pub html_bytes: usize,
    /// Whitespace-separated words of the output.
    pub output_words: usize,
    /// Word alignment counts (CleanEval).
    pub word: Option<Prf>,
    /// Bag-of-words counts (StaDyNoT Table 2).
    pub bow: Option<Prf>,
    /// Gold characters kept through the alignment.
    pub chars: Option<CharsKept>,
    /// Shingle counts (ScrapingHub).
    pub shingle: Option<ShingleCounts>,
    /// Snippet counts (trafilatura).
    pub snippets: Option<SnippetCounts>,
}

/// `DIR/meta.json`: what made the outputs (all fields optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolMeta {
    /// The tool's name (e.g. `trafilatura`).
    #[serde(default)]
    pub tool: Option<String>,
    /// The tool's version (e.g. `2.3.1`).
    #[serde(default)]
    pub version: Option<String>,
    /// How it was called (free text).
    #[serde(default)]
    pub settings: Option<String>,
}

/// The external tool of a reference row, as the JSON report carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReferenceInfo {
    /// Row label (`--reference` name).
    pub name: String,
    /// The outputs' directory.
    pub dir: PathBuf,
    /// `DIR/meta.json`, when present.
    pub meta: Option<ToolMeta>,
    /// True when `DIR/<set>/timing.json` was present (pages/s and MB/s are measured).
    pub timed: bool,
}
