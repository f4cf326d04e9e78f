//! Rule 6 of [`super::refine`]: a page whose majority vote keeps nothing keeps the text of the
//! element it marks as its main content ([`ContentRoot::marked_content_fallback`]).

use super::{tail, ContentRoot, FALLBACK_CHARS, FALLBACK_PARAGRAPHS, MAX_LENIENT_LINK_DENSITY, ROOT_SHARE};
use crate::model::{Block, Label};

impl ContentRoot {
    /// Rule 6 labels: the page's own main-content element when the vote kept nothing.
    /// Among the [`super::is_content_element`] elements outside boilerplate and consent boxes, the
    /// deepest one holding at least [`ROOT_SHARE`] of the most text words any of them holds
    /// (text words: blocks outside boilerplate and consent boxes with link density below
    /// [`MAX_LENIENT_LINK_DENSITY`]); its text blocks are kept when they hold
    /// [`FALLBACK_PARAGRAPHS`] paragraphs of [`FALLBACK_CHARS`] characters. All Bad otherwise,
    /// or when the page marks no content element with text.
    pub fn marked_content_fallback(&self, blocks: &[Block]) -> Vec<Label> {
        let text = |i: usize, b: &Block| {
            !self.in_boilerplate(i) && !self.in_consent(i) && b.link_density() < MAX_LENIENT_LINK_DENSITY
        };
        let mut words = vec![0usize; self.nodes.len()];
        for (i, block) in blocks.iter().enumerate() {
            if let Some(w) = self.block_node.get(i).and_then(|&n| words.get_mut(n)) {
                if text(i, block) {
                    *w += block.words;
                }
            }
        }
        for i in (0..self.nodes.len()).rev() {
            if let Some(p) = self.nodes[i].parent {
                words[p] += words[i];
            }
        }
        let candidates = || {
            (0..self.nodes.len())
                .filter(|&i| self.nodes[i].hints.content && !self.in_boilerplate[i] && !self.in_consent[i])
        };
        let most = candidates().map(|i| words[i]).max().unwrap_or(0);
        let Some(pick) = candidates()
            .filter(|&i| most > 0 && words[i] as f64 >= ROOT_SHARE * most as f64)
            .max_by_key(|&i| self.nodes[i].depth)
        else {
            return vec![Label::Bad; blocks.len()];
        };
        let mut inside = vec![false; self.nodes.len()];
        for i in 0..self.nodes.len() {
            inside[i] = i == pick || self.nodes[i].parent.is_some_and(|p| inside[p]);
        }
        let labels: Vec<Label> = blocks
            .iter()
            .enumerate()
            .map(|(i, block)| if text(i, block) && self.flag(&inside, i) { Label::Good } else { Label::Bad })
            .collect();
        // Running text, not a title, a teaser or a directory table: paragraphs outside lists
        // and tables.
        let prose: Vec<&Block> = blocks
            .iter()
            .zip(&labels)
            .filter(|(b, l)| l.is_good() && !b.heading && !tail::in_list_or_table(b))
            .map(|(b, _)| b)
            .collect();
        if prose.len() >= FALLBACK_PARAGRAPHS && prose.iter().map(|b| b.chars).sum::<usize>() >= FALLBACK_CHARS {
            labels
        } else {
            vec![Label::Bad; blocks.len()]
        }
    }
}
