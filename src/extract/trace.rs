//! The per-block decision trace: for every text block of a page, which stage of the pipeline
//! decided whether it is main content, and with what score. The pipeline
//! ([`crate::extract::pipeline::page_labels`]) records it as it labels the page, so `show` and
//! `eval --html` render the decisions the extraction made rather than deriving them again.
//!
//! A block's stage is the last stage that dropped it or changed its label: the stage that
//! first labelled it unless a later one did. The host model's drops (outside the learned
//! stretch, static noise) name the block even when an earlier stage had dropped it too, so
//! that what the model cuts is visible; its additions name only the blocks they added. The stages of the `default` and `rules` extractors follow
//! their order in [`crate::extract::pipeline::default_labels`]; every other extractor's
//! blocks are all [`Stage::Extractor`].

use serde::Serialize;
use std::ops::Range;

/// The stage of the pipeline that decided one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// The labels of an extractor other than `default` and `rules`, taken as they are.
    Extractor,
    /// The learned combiner: its probability of main content against its threshold
    /// ([`crate::extract::combiner::CombinerModel::answer`]).
    Combiner,
    /// In a comment section below the article: never main text for the default
    /// ([`crate::extract::content_root::ContentRoot::in_comments`]).
    CommentSection,
    /// In a cookie-consent box: never main text for the default and the rules
    /// ([`crate::extract::content_root::ContentRoot::in_consent`]).
    ConsentBox,
    /// The rules: inside an element the page marks as navigation, footer, sidebar, caption or
    /// sharing (rule 1 of [`crate::extract::content_root`]).
    BoilerplateBox,
    /// The rules: outside the content root, the deepest element with 80 % of the voted words
    /// (rule 2).
    OutsideContentRoot,
    /// The rules: the vote of jusText, Boilerpipe and StaDyNoT (kept with two of three or
    /// more; [`BlockDecision::votes`]).
    Vote,
    /// The rules: kept with fewer than two votes because the page marks it as content
    /// (`article`, `main`, `entry-content`, ...; rules 3 and 6).
    MarkedContent,
    /// The rules: voted, then dropped at the edges of the text (trailing headings, lead-ins,
    /// cut-off lines) or as a link line (rules 4–9), or a last line that introduces dropped
    /// links (rule 10, on the default's final labels too).
    EdgeRule,
    /// The page's headline, kept right above the main text
    /// ([`crate::extract::headline::keep_headline`]).
    Headline,
    /// Outside the host's learned GoldMiner stretch (Endrédy & Novák 2013, §III.A).
    OutsideStretch,
    /// Kept by GoldMiner's lenient jusText inside the host's learned stretch (never a block
    /// the combiner drops firmly, [`crate::extract::pipeline::COMBINER_FIRM_DROP`]).
    InsideStretch,
    /// Outside the learned stretch, kept because the combiner keeps it with probability
    /// [`crate::extract::pipeline::COMBINER_FIRM_KEEP`] or more.
    FirmKeep,
    /// After the learned stretch's end pattern, kept because the article goes on there: a
    /// block in the container of the text kept inside the stretch, before any kept block of
    /// another container ([`crate::extract::pipeline::article_continues`]).
    ArticleContinues,
    /// Inside a StaDyNoT static noise element of the host's model (Barua et al. 2014, §3.1).
    StaticNoise,
    /// The host-evidence model: the host model's signals weighed with the combiner's
    /// probability ([`crate::extract::host_evidence`]) changed the combiner's label.
    HostEvidence,
    /// In a list of other stories beside the article (repeated cards of a headline link and
    /// an excerpt): never main text for the default and the rules
    /// ([`crate::extract::content_root::ContentRoot::in_teasers`]).
    TeaserList,
    /// Outside the post container the page names (`entry-content`, `itemprop=articleBody`,
    /// ...): never main text for the default and the rules
    /// ([`crate::extract::content_root::post::PostContainer`]).
    OutsidePost,
    /// A note in italics right after the article's last kept paragraph, in its container: a
    /// credit line, a contact or an editor's note ([`crate::extract::end_note::keep_end_notes`]).
    EndNote,
}

impl Stage {
    /// Every stage, in the pipeline's order.
    pub const ALL: [Stage; 19] = [
        Stage::Extractor,
        Stage::Combiner,
        Stage::CommentSection,
        Stage::ConsentBox,
        Stage::TeaserList,
        Stage::OutsidePost,
        Stage::BoilerplateBox,
        Stage::OutsideContentRoot,
        Stage::Vote,
        Stage::MarkedContent,
        Stage::EdgeRule,
        Stage::Headline,
        Stage::EndNote,
        Stage::OutsideStretch,
        Stage::InsideStretch,
        Stage::FirmKeep,
        Stage::ArticleContinues,
        Stage::StaticNoise,
        Stage::HostEvidence,
    ];

    /// The stage's name in kebab case: `combiner`, `outside-stretch`, ... (CSS classes of
    /// `show` and `eval --html`).
    pub fn key(self) -> &'static str {
        match self {
            Stage::Extractor => "extractor",
            Stage::Combiner => "combiner",
            Stage::CommentSection => "comment-section",
            Stage::ConsentBox => "consent-box",
            Stage::BoilerplateBox => "boilerplate-box",
            Stage::OutsideContentRoot => "outside-content-root",
            Stage::Vote => "vote",
            Stage::MarkedContent => "marked-content",
            Stage::EdgeRule => "edge-rule",
            Stage::Headline => "headline",
            Stage::OutsideStretch => "outside-stretch",
            Stage::InsideStretch => "inside-stretch",
            Stage::FirmKeep => "firm-keep",
            Stage::ArticleContinues => "article-continues",
            Stage::StaticNoise => "static-noise",
            Stage::HostEvidence => "host-evidence",
            Stage::TeaserList => "teaser-list",
            Stage::OutsidePost => "outside-post",
            Stage::EndNote => "end-note",
        }
    }

    /// One line on what the stage decided.
    pub fn describe(self) -> &'static str {
        match self {
            Stage::Extractor => "the chosen extractor's own labels",
            Stage::Combiner => "the learned combiner: probability of main content against its threshold (shown)",
            Stage::CommentSection => "a comment section below the article (never main text for the default)",
            Stage::ConsentBox => "a cookie-consent box (never main text for the default and the rules)",
            Stage::BoilerplateBox => "inside a navigation, footer, sidebar, caption or sharing box",
            Stage::OutsideContentRoot => "outside the content root (the deepest element with 80 % of the voted words)",
            Stage::Vote => "the vote of jusText, Boilerpipe and StaDyNoT (kept with two of three)",
            Stage::MarkedContent => "kept with fewer than two votes inside the page's marked content",
            Stage::EdgeRule => "voted, dropped at the edge of the text or as a link line",
            Stage::Headline => "the page's headline above the main text",
            Stage::OutsideStretch => "outside the learned GoldMiner stretch (before begin / after end pattern)",
            Stage::InsideStretch => "kept inside the learned GoldMiner stretch",
            Stage::FirmKeep => "outside the learned stretch, kept for the combiner's high probability",
            Stage::ArticleContinues => "after the learned stretch's end, kept: the article's container goes on",
            Stage::StaticNoise => "StaDyNoT static noise (an element the host's model learned as template)",
            Stage::HostEvidence => {
                "the host model's evidence weighed with the combiner's probability changed its label"
            }
            Stage::TeaserList => "in a list of other stories (repeated cards of a headline link and an excerpt)",
            Stage::OutsidePost => "outside the post container the page names (entry-content, articleBody, ...)",
            Stage::EndNote => "a note in italics right after the article (a credit line, a contact, an editor's note)",
        }
    }
}

/// One block's decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BlockDecision {
    /// Main content (the block's label is [`crate::model::Label::Good`]).
    pub kept: bool,
    /// The stage that decided it.
    pub stage: Stage,
    /// The combiner's probability of main content (0–1), where the combiner ran (`default`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probability: Option<f32>,
    /// How many of jusText, Boilerpipe and StaDyNoT kept the block (0–3), where the rules
    /// counted the vote (`default`, `rules`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub votes: Option<u8>,
}

impl BlockDecision {
    /// A decision with no score.
    pub fn new(kept: bool, stage: Stage) -> BlockDecision {
        BlockDecision { kept, stage, probability: None, votes: None }
    }
}

/// The learned GoldMiner stretch that cut the page (Endrédy & Novák 2013, §III.A).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StretchTrace {
    /// The blocks inside the stretch (indices into the page's blocks).
    pub blocks: Range<usize>,
    /// The begin pattern: tag tokens joined by spaces.
    pub begin: String,
    /// The end pattern: tag tokens joined by spaces.
    pub end: String,
}

/// A page's decision trace: one [`BlockDecision`] per block, in the order of the blocks, and
/// the learned stretch where the host's model cut the page with one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PageTrace {
    /// One decision per block.
    pub blocks: Vec<BlockDecision>,
    /// The learned stretch applied to the page; `None` without a model, when none of the
    /// model's templates is on the page, or when the per-page guard set the model aside.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stretch: Option<Box<StretchTrace>>,
}

impl PageTrace {
    /// Every block decided by `stage` alone, kept where `labels` keep it.
    pub fn uniform(labels: &[crate::model::Label], stage: Stage) -> PageTrace {
        PageTrace { blocks: labels.iter().map(|l| BlockDecision::new(l.is_good(), stage)).collect(), stretch: None }
    }

    /// Block `i` is now `kept`, decided by `stage` (its scores stay).
    pub fn set(&mut self, i: usize, kept: bool, stage: Stage) {
        if let Some(decision) = self.blocks.get_mut(i) {
            decision.kept = kept;
            decision.stage = stage;
        }
    }

    /// Record `stage` for every block whose label differs between `before` and `after`.
    pub fn changed(&mut self, before: &[crate::model::Label], after: &[crate::model::Label], stage: Stage) {
        for ((decision, b), a) in self.blocks.iter_mut().zip(before).zip(after) {
            if b.is_good() != a.is_good() {
                decision.kept = a.is_good();
                decision.stage = stage;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;

    #[test]
    fn a_change_names_the_stage_and_leaves_the_other_blocks() {
        let before = [Label::Good, Label::Bad, Label::Good];
        let mut trace = PageTrace::uniform(&before, Stage::Vote);
        trace.changed(&before, &[Label::Good, Label::Good, Label::Bad], Stage::InsideStretch);
        let stages: Vec<(bool, Stage)> = trace.blocks.iter().map(|d| (d.kept, d.stage)).collect();
        assert_eq!(stages, [(true, Stage::Vote), (true, Stage::InsideStretch), (false, Stage::InsideStretch)]);
    }

    #[test]
    fn every_stage_has_its_own_key() {
        let keys: std::collections::HashSet<&str> = Stage::ALL.iter().map(|s| s.key()).collect();
        assert_eq!(keys.len(), Stage::ALL.len());
    }
}
