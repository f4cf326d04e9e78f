//! Extractors: the principal trait is [`Extractor`], which labels every text [`Block`] of a
//! page ([`Label`]); [`ExtractorKind`] is the registry of extractors selectable by name from
//! the CLI and config. Extraction is pure and synchronous; [`pipeline`] runs one page through
//! decode → parse → segment → classify → paragraphs.
//!
//! Per-site extractors (GoldMiner, StaDyNoT) read the host's learned model ([`SiteModel`]) from the
//! [`ExtractContext`]; without one they fall back to jusText alone.

pub mod boilernet;
pub mod boilerpipe;
pub mod bte;
pub mod combiner;
pub mod content_root;
pub mod end_note;
pub mod files;
pub mod goldminer;
pub mod headline;
pub mod host_evidence;
pub mod justext;
pub mod model_rules;
pub mod path_profile;
pub mod pipeline;
pub mod stadynot;
pub mod stoplist;
pub mod trace;
pub mod tree_filter;
pub mod warc_input;

use crate::html::Document;
use crate::model::{Block, Label};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

pub use justext::JusTextParams;
pub use stoplist::Stoplist;

/// Why an extractor produced no labels for a page. A page that yields nothing is a discard
/// with this reason, never a crawl failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// GoldMiner: the learned begin or end pattern is not on the page (GoldMiner, Endrédy &
    /// Novák 2013, §III.A: "pages without the pattern yield nothing").
    #[error("the learned {which} pattern is not on the page")]
    PatternNotFound {
        /// "begin" or "end".
        which: &'static str,
    },
    /// The BoilerNet model configured by `[boilernet] model` could not be loaded.
    #[error("boilernet model: {0}")]
    Model(String),
    /// The extractor panicked on the page (a bug; the page is discarded, the crawl goes on).
    #[error("the extractor panicked on the page")]
    Panicked,
    /// An extractor returned a label count that does not match the block count (a bug).
    #[error("extractor {extractor} returned {labels} labels for {blocks} blocks")]
    LabelCount {
        /// Extractor name.
        extractor: &'static str,
        /// Labels returned.
        labels: usize,
        /// Blocks given.
        blocks: usize,
    },
}

/// What an extractor may read besides the page: the stoplist, jusText's parameters and the
/// host's learned model.
pub struct ExtractContext<'a> {
    /// Stopwords of the page's language (may be empty: language-independent jusText).
    pub stoplist: &'a Stoplist,
    /// jusText thresholds.
    pub justext: &'a JusTextParams,
    /// The host's learned model, if one has been learned.
    pub model: Option<SiteModel<'a>>,
}

/// What the extractors read of a host's learned model (`crate::domain::DomainModel::view`):
/// the GoldMiner templates, the StaDyNoT static keys and the host's language, nothing of how
/// the model was learned or stored.
#[derive(Debug, Clone, Copy)]
pub struct SiteModel<'a> {
    /// GoldMiner's begin/end patterns with their alternatives (Endrédy & Novák 2013,
    /// §III.A); `None` when the host's sample gave none.
    pub goldminer: Option<&'a goldminer::GoldMinerModel>,
    /// StaDyNoT's static keys (Barua et al. 2014, §3.1); empty when none were learned.
    pub stadynot: &'a stadynot::StaticNoiseModel,
    /// The host's path profile ([`path_profile::PathProfile`]); empty when none was learned.
    pub paths: &'a path_profile::PathProfile,
    /// The host's dominant language (a stoplist name), the fallback of per-page detection.
    pub language: Option<&'a str>,
    /// The model's generation: the host's re-learnings before it.
    pub generation: u32,
}

/// A block labeller. Implementations are pure: same input, same labels.
pub trait Extractor: Send + Sync {
    /// The registry name (`justext`, `goldminer`, ...).
    fn name(&self) -> &'static str;
    /// Exactly one label per block, in order.
    ///
    /// # Errors
    /// [`ExtractError`] when the page yields nothing for a stated reason.
    fn classify(&self, doc: &Document, blocks: &[Block], ctx: &ExtractContext<'_>) -> Result<Vec<Label>, ExtractError>;
}

/// The extractor registry: every extractor selectable by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ExtractorKind {
    /// The crawl's default: the learned block combiner (gradient-boosted trees over every
    /// cheap extractor's block labels, the markup's hints and the rules' labels; `combiner`)
    /// decides each block, the rules' labels standing where its answer gives way; then the
    /// host's learned GoldMiner stretch and StaDyNoT static noise apply
    /// (`pipeline::default_labels`).
    #[default]
    Default,
    /// The default without its learned combiner: the rule-based vote alone (see `pipeline`).
    #[serde(rename = "rules")]
    Rules,
    /// jusText (Pomikálek 2011).
    #[serde(rename = "justext")]
    JusText,
    /// GoldMiner (Endrédy & Novák 2013): learned begin/end cut, then jusText.
    #[serde(rename = "goldminer")]
    GoldMiner,
    /// StaDyNoT (Uzun et al. 2014): static + dynamic noise tags removed.
    #[serde(rename = "stadynot")]
    StaDyNoT,
    /// BTE, Body Text Extraction (Finn et al. 2001): the word-dense, tag-sparse stretch.
    #[serde(rename = "bte")]
    Bte,
    /// Boilerpipe ArticleExtractor (Kohlschütter et al. 2010).
    #[serde(rename = "boilerpipe")]
    Boilerpipe,
    /// Boilerpipe followed by the HTML-tree filter (Viveros-Jiménez et al. 2018).
    #[serde(rename = "boilerpipe-tree")]
    BoilerpipeTree,
    /// BoilerNet (Leonhardt et al. 2020): a BiLSTM over the blocks, the shipped model or
    /// `[boilernet] model`.
    #[serde(rename = "boilernet")]
    Boilernet,
}

impl ExtractorKind {
    /// All kinds, in the order the CLI lists them.
    pub const ALL: [ExtractorKind; 9] = [
        ExtractorKind::Default,
        ExtractorKind::Rules,
        ExtractorKind::JusText,
        ExtractorKind::GoldMiner,
        ExtractorKind::StaDyNoT,
        ExtractorKind::Bte,
        ExtractorKind::Boilerpipe,
        ExtractorKind::BoilerpipeTree,
        ExtractorKind::Boilernet,
    ];

    /// The registry name.
    pub fn name(self) -> &'static str {
        match self {
            ExtractorKind::Default => "default",
            ExtractorKind::Rules => "rules",
            ExtractorKind::JusText => "justext",
            ExtractorKind::GoldMiner => "goldminer",
            ExtractorKind::StaDyNoT => "stadynot",
            ExtractorKind::Bte => "bte",
            ExtractorKind::Boilerpipe => "boilerpipe",
            ExtractorKind::BoilerpipeTree => "boilerpipe-tree",
            ExtractorKind::Boilernet => "boilernet",
        }
    }

    /// True for extractors that need a learned [`SiteModel`] to do more than jusText.
    pub fn uses_model(self) -> bool {
        matches!(
            self,
            ExtractorKind::Default | ExtractorKind::Rules | ExtractorKind::GoldMiner | ExtractorKind::StaDyNoT
        )
    }
}

impl fmt::Display for ExtractorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ExtractorKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ExtractorKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let names: Vec<&str> = ExtractorKind::ALL.iter().map(|k| k.name()).collect();
            format!("unknown extractor `{s}`; known: {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::ExtractorKind;

    /// config.toml's `extractor` comment and the `--extractor` help of `crawl` and `extract`
    /// name every registered extractor.
    #[test]
    fn every_extractor_is_named_in_the_config_and_the_help() {
        let config = include_str!("../../config.toml");
        let line = config.lines().find(|l| l.starts_with("extractor =")).expect("[crawl] extractor in config.toml");
        let cli = include_str!("../cli.rs");
        let helps: Vec<String> = cli
            .split("/// Extractor: ")
            .skip(1)
            .map(|rest| rest.split("#[arg").next().unwrap_or("").replace("///", " "))
            .collect();
        assert_eq!(helps.len(), 2, "the crawl and extract help texts");
        for kind in ExtractorKind::ALL {
            let name = kind.name();
            let named = |text: &str| text.split(|c: char| !(c.is_alphanumeric() || c == '-')).any(|w| w == name);
            assert!(named(line), "config.toml does not name {name}");
            for help in &helps {
                assert!(named(help), "--extractor help does not name {name}: {help}");
            }
        }
    }
}
