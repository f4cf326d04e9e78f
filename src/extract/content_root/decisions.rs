//! The rules' decision per block ([`ContentRoot::decisions`]): which of the rules of
//! [`super`] decided each block, read off the root that [`super::refine_with_root`] found.

use super::ContentRoot;
use crate::extract::trace::{BlockDecision, Stage};
use crate::model::{Block, Label};

impl ContentRoot {
    /// The decision of the rules for every block, given the votes they counted (`votes[i]`:
    /// how many of jusText, Boilerpipe and StaDyNoT keep block `i`, 0–3) and the labels they
    /// returned with this root. A kept block is [`Stage::Vote`] with two votes or more, else
    /// [`Stage::MarkedContent`]; a dropped one is, in the order of the rules, a comment section,
    /// a consent box, a teaser list, outside the post container, a boilerplate box, outside the
    /// root, [`Stage::EdgeRule`] when it had two votes, else [`Stage::Vote`]. Every decision
    /// carries its votes.
    pub fn decisions(&self, blocks: &[Block], votes: &[u8], labels: &[Label]) -> Vec<BlockDecision> {
        (0..blocks.len())
            .map(|i| {
                let v = votes.get(i).copied().unwrap_or(0);
                let kept = labels.get(i).is_some_and(|l| l.is_good());
                let stage = if kept {
                    if v >= 2 {
                        Stage::Vote
                    } else {
                        Stage::MarkedContent
                    }
                } else if self.in_comments(i) {
                    Stage::CommentSection
                } else if self.in_consent(i) {
                    Stage::ConsentBox
                } else if self.in_teasers(i) {
                    Stage::TeaserList
                } else if self.outside_post(i) {
                    Stage::OutsidePost
                } else if self.in_boilerplate(i) {
                    Stage::BoilerplateBox
                } else if !self.in_root(i) {
                    Stage::OutsideContentRoot
                } else if v >= 2 {
                    Stage::EdgeRule
                } else {
                    Stage::Vote
                };
                BlockDecision { votes: Some(v), ..BlockDecision::new(kept, stage) }
            })
            .collect()
    }
}
