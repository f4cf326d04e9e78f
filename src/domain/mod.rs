//! Per-host domain learning. The principal type is [`DomainModel`]: what webcorpus learns about
//! one host from a sample of its pages, stored per host (serde JSON in sled) and read by the
//! per-site extractors through [`crate::extract::ExtractContext`].
//!
//! When a host is learned is decided by one state machine, [`HostLearning`], and its
//! [`SamplingRule`]: the crawler keeps the first [`LearnParams::sample_size`] HTML pages of each
//! host as [`SamplePage`]s; when the sample is full (or the host runs dry with at least
//! [`LearnParams::min_sample`] pages) it calls [`learn::learn`], stores the model and extracts
//! every page of the host with it (the sampled ones included), as GoldMiner does (Endrédy &
//! Novák 2013, §III.A). A model holds two learned parts:
//!
//! * GoldMiner begin/end tag patterns around the article body ([`GoldMinerModel`]), absent when
//!   the sample shows no pattern with enough support (the host then falls back to jusText);
//! * StaDyNoT static noise keys ([`StaticNoiseModel`], Barua, Patel & Agrawal 2014, §3.1).
//!
//! Beside them it holds the host's path profile ([`PathProfile`]): how often the unlearned
//! default kept the text at each place of the template across the sample.

pub mod host_learning;
pub mod learn;

pub use crate::extract::goldminer::{GoldMinerModel, GoldMinerParams};
pub use crate::extract::path_profile::PathProfile;
pub use crate::extract::stadynot::{StaDyNoTParams, StaticNoiseModel};
pub use host_learning::{
    learns_whole_site, HostLearning, HostModel, HostPhase, LearningAction, LearningEvent, SamplingRule,
};
pub use learn::learn;

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Version of the serialised [`DomainModel`] format, written into every model
/// ([`DomainModel::format_version`]).
pub const MODEL_FORMAT_VERSION: u32 = 1;

/// Characters of a static key or pattern shown by [`DomainModel::summary`] before it is cut.
const SUMMARY_KEY_CHARS: usize = 100;

/// A host's learned model (serde JSON in the store; `webcorpus stats --host H` prints
/// [`DomainModel::summary`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DomainModel {
    /// [`MODEL_FORMAT_VERSION`] at learning time.
    pub format_version: u32,
    /// The host the sample came from (e.g. `www.example.com`).
    pub host: String,
    /// Number of sample pages the model was learned from.
    pub pages_sampled: usize,
    /// Stoplist language used for jusText during learning (e.g. "English"), if any.
    pub language: Option<String>,
    /// GoldMiner begin/end patterns (Endrédy & Novák 2013, §III); `None` when no pattern
    /// reached the minimum support, and the host is extracted with jusText alone.
    pub goldminer: Option<GoldMinerModel>,
    /// StaDyNoT static noise keys (Barua et al. 2014, §3.1).
    pub stadynot: StaticNoiseModel,
    /// Where the sample's text blocks sit and how often the unlearned default kept them there
    /// ([`PathProfile`]); empty in a model learned before profiles existed.
    #[serde(default, skip_serializing_if = "PathProfile::is_empty")]
    pub paths: PathProfile,
    /// Parts learned from the sample but dropped because they failed the held-out check
    /// ([`learn::validate`]), with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<RejectedPart>,
    /// How many models of the host came before this one in the crawl (0: the first; a host's
    /// model is re-learned when it stops matching, `[learn] relearn_window`).
    #[serde(default)]
    pub generation: u32,
}

/// A learned part of a [`DomainModel`] that failed the held-out check and is not used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectedPart {
    /// The part: `goldminer template begin … end …` or `static key …`.
    pub part: String,
    /// Why it was dropped, in words with the held-out counts.
    pub reason: String,
}

impl Default for DomainModel {
    /// An empty model of the current format: no GoldMiner patterns, no static keys (what a host
    /// with too small a sample gets).
    fn default() -> Self {
        DomainModel {
            format_version: MODEL_FORMAT_VERSION,
            host: String::new(),
            pages_sampled: 0,
            language: None,
            goldminer: None,
            stadynot: StaticNoiseModel::default(),
            paths: PathProfile::default(),
            rejected: Vec::new(),
            generation: 0,
        }
    }
}

impl DomainModel {
    /// The narrow view the extractors read ([`crate::extract::SiteModel`]).
    pub fn view(&self) -> crate::extract::SiteModel<'_> {
        crate::extract::SiteModel {
            goldminer: self.goldminer.as_ref(),
            stadynot: &self.stadynot,
            paths: &self.paths,
            language: self.language.as_deref(),
            generation: self.generation,
        }
    }

    /// A human-readable, multi-line description: host, sample, GoldMiner parent and patterns
    /// with their support, and the static noise keys (each cut to 100 characters).
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "host: {} (model format {})", self.host, self.format_version);
        let _ = writeln!(s, "pages sampled: {}", self.pages_sampled);
        let _ = writeln!(s, "language: {}", self.language.as_deref().unwrap_or("(none)"));
        match &self.goldminer {
            Some(g) => {
                let _ = writeln!(
                    s,
                    "goldminer: support {} of {} pages used ({} repeated paragraphs reclassified bad)",
                    g.support, g.pages_used, g.repeated_paragraphs
                );
                let _ = writeln!(s, "  parent: {}", truncate(&g.parent, 4 * SUMMARY_KEY_CHARS));
                let _ = writeln!(s, "  begin:  {}  (on {} pages)", g.begin.join(" "), g.begin_support);
                let _ = writeln!(s, "  end:    {}  (on {} pages)", g.end.join(" "), g.end_support);
                for (i, alt) in g.alternatives.iter().enumerate() {
                    let _ =
                        writeln!(s, "  template {} (support {} of {} pages left):", i + 2, alt.support, alt.pages_used);
                    let _ = writeln!(s, "    begin: {}  (on {} pages)", alt.begin.join(" "), alt.begin_support);
                    let _ = writeln!(s, "    end:   {}  (on {} pages)", alt.end.join(" "), alt.end_support);
                }
            }
            None => {
                let _ = writeln!(s, "goldminer: no pattern learned (jusText alone)");
            }
        }
        let _ = writeln!(
            s,
            "stadynot: {} static noise keys (counted over {} pages)",
            self.stadynot.keys.len(),
            self.stadynot.pages
        );
        for k in &self.stadynot.keys {
            let _ = writeln!(s, "  {}", truncate(k, SUMMARY_KEY_CHARS));
        }
        let kept = self.paths.paths.iter().filter(|(_, pages, kept)| 2 * kept > *pages).count();
        let _ = writeln!(
            s,
            "path profile: {} places of the template (counted over {} pages), {} kept on most of their pages",
            self.paths.paths.len(),
            self.paths.pages,
            kept
        );
        if !self.rejected.is_empty() {
            let _ = writeln!(s, "dropped by the held-out check: {}", self.rejected.len());
            for r in &self.rejected {
                let _ = writeln!(s, "  {}: {}", truncate(&r.part, SUMMARY_KEY_CHARS), r.reason);
            }
        }
        s
    }
}

/// `s` cut to `max` characters, with an ellipsis when cut.
fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// One page of a host's sample, as kept by the crawler.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplePage {
    /// The page URL.
    pub url: String,
    /// The page's HTML, already decoded to text ([`crate::html::decode_html`]).
    pub html: String,
}

/// Domain learning parameters: config section `[learn]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LearnParams {
    /// Pages sampled per host before learning (GoldMiner, Endrédy & Novák 2013, §III.A:
    /// "a sample of some 100 pages"). Default 100.
    pub sample_size: usize,
    /// Fewest pages a host must have given when it runs dry for a model to be learned;
    /// hosts with fewer pages are extracted with jusText alone. Default 10 (StaDyNoT learns
    /// from 10 neighbour pages, Barua et al. 2014, §4).
    pub min_sample: usize,
    /// Most DOM nodes of the sample parsed at once for learning (memory: about 250 bytes per
    /// node with its attributes and text). Pages past this budget, in crawl order, are left
    /// out of learning and extracted with the model one at a time; the first page always
    /// takes part. Default 200,000, about 50 MB: 100 pages of 2,000 nodes, or 50 article pages
    /// of 4,000.
    pub max_sample_nodes: usize,
    /// Check the learned model on held-out pages of its own sample and drop the GoldMiner
    /// templates and static keys that would take main text ([`learn::validate`]). Default true.
    pub held_out_check: bool,
    /// Pages per window over which a crawl watches its model: after each `relearn_window`
    /// pages extracted with a host's model, the share of them that the model missed (no
    /// template on the page, or rejected by the per-page guard) is compared with that share
    /// over the first window after learning. 0 turns re-learning off. Default 100.
    pub relearn_window: usize,
    /// How much the missed share of a window may exceed that of the model's first window
    /// before the host is sampled again and its model re-learned from the fresh sample (a
    /// redesign: the model stops matching). Default 0.3.
    pub relearn_miss_rise: f64,
    /// Most re-learnings of one host in a crawl. Default 3.
    pub max_relearns: u32,
    /// GoldMiner learning thresholds.
    pub goldminer: GoldMinerParams,
    /// StaDyNoT thresholds (static share, α, β).
    pub stadynot: StaDyNoTParams,
}

impl Default for LearnParams {
    fn default() -> Self {
        LearnParams {
            sample_size: 100,
            min_sample: 10,
            max_sample_nodes: 200_000,
            held_out_check: true,
            relearn_window: 100,
            relearn_miss_rise: 0.3,
            max_relearns: 3,
            goldminer: GoldMinerParams::default(),
            stadynot: StaDyNoTParams::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learn_params_defaults_and_unknown_fields() {
        let p: LearnParams = toml::from_str("").expect("empty section");
        assert_eq!(p, LearnParams::default());
        assert_eq!(p.sample_size, 100);
        assert_eq!(p.min_sample, 10);
        let p: LearnParams = toml::from_str("min_sample = 5\n[stadynot]\nalpha_chars = 40\n").expect("partial section");
        assert_eq!(p.min_sample, 5);
        assert_eq!(p.stadynot.alpha_chars, 40);
        assert_eq!(p.stadynot.beta_link_fraction, 0.2);
        assert!(toml::from_str::<LearnParams>("sample = 3").is_err());
    }

    #[test]
    fn truncate_cuts_on_char_boundaries() {
        assert_eq!(truncate("héllo", 2), "hé…");
        assert_eq!(truncate("hé", 2), "hé");
    }
}
