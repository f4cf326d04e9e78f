//! Cookie-consent boxes (part of rule 1 of [`super::refine`]): which elements speak of cookies
//! ([`cookie_mentions`]) and which are consent boxes ([`consent_boxes`]).

use super::{NodeInfo, WRAPPER_SHARE};
use crate::model::Block;

/// Per element of `nodes` (parents first): inside a cookie-consent box ([`super::ContentRoot::in_consent`]).
/// An element marked as one counts only when a block under it mentions cookies and it holds
/// less than [`super::WRAPPER_SHARE`] of the page's other words (the words of the blocks that do not
/// mention cookies: a consent dialog may be longer than the article, a page wrapper holds the
/// article); on a page whose every block mentions cookies, and for a dialog or an element named
/// after a consent manager (`Hints::overlay`), any marked element below `body`.
pub(super) fn consent_boxes(
    nodes: &[NodeInfo],
    blocks: &[Block],
    block_node: &[usize],
    mentions: &[bool],
) -> Vec<bool> {
    let mut other_words = vec![0usize; nodes.len()];
    for (block, &at) in blocks.iter().zip(block_node) {
        if at != usize::MAX && !mentions_cookies(block) {
            other_words[at] += block.words;
        }
    }
    for i in (0..nodes.len()).rev() {
        if let Some(p) = nodes[i].parent {
            other_words[p] += other_words[i];
        }
    }
    let page_other: usize = nodes.iter().zip(&other_words).filter(|(n, _)| n.parent.is_none()).map(|(_, w)| w).sum();
    let mut inside = vec![false; nodes.len()];
    for (i, info) in nodes.iter().enumerate() {
        let parent = info.parent.is_some_and(|p| inside[p]);
        let small = if page_other == 0 || info.hints.overlay {
            info.depth > 1
        } else {
            (other_words[i] as f64) < WRAPPER_SHARE * page_other as f64
        };
        inside[i] = parent || (info.hints.consent && mentions[i] && small);
    }
    inside
}

/// True when `block` speaks of cookies (the word, any case: "Cookies", "cookie settings").
fn mentions_cookies(block: &Block) -> bool {
    block.text.as_bytes().windows(6).any(|w| w.eq_ignore_ascii_case(b"cookie"))
}

/// Per element of `nodes` (parents first): a block under it speaks of cookies
/// ([`mentions_cookies`]).
pub(super) fn cookie_mentions(nodes: &[NodeInfo], blocks: &[Block], block_node: &[usize]) -> Vec<bool> {
    let mut mentions = vec![false; nodes.len()];
    for (block, &at) in blocks.iter().zip(block_node) {
        if at != usize::MAX && mentions_cookies(block) {
            mentions[at] = true;
        }
    }
    for i in (0..nodes.len()).rev() {
        if let Some(p) = nodes[i].parent {
            mentions[p] |= mentions[i];
        }
    }
    mentions
}
