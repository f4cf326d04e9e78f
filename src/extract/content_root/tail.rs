//! The article's edges (rules 4, 5, 7, 8 and 9 of [`super::refine`]): after the last kept
//! paragraph of running text, trailing headings and short lines cut off by boilerplate are
//! dropped; so are short lines that only introduce a dropped link list, short lines before the
//! text that boilerplate cuts off from it, and lines of link text.

use super::{
    DETACHED_TAIL_WORDS, HEAD_WORDS, LEAD_IN_WORDS, LINK_LINE_SHARE, MAX_LENIENT_LINK_DENSITY, MAX_LINK_LINE_DENSITY,
    TAIL_TEXT_WORDS,
};
use crate::html::Document;
use crate::model::{Block, Label, ParagraphKind};

/// Rule 5: past the article's end (the last kept non-heading block of at least
/// [`TAIL_TEXT_WORDS`] words), once a dropped block has come, kept blocks of at most
/// [`DETACHED_TAIL_WORDS`] words are dropped unless they sit in a list or table
/// ([`in_list_or_table`]). jusText's context-sensitive pass (Pomikálek 2011, §3.2) gives a
/// short block the class of its nearest long neighbours, and a missing neighbour counts as
/// bad: a short block cut off from the text by boilerplate has only bad context ("Themen",
/// "Kontakt:", "Mehr zum Thema", "Keine Kommentare"). List items and table cells are spared:
/// past the last paragraph they are fact boxes and specification tables as often as link
/// lists, and the link-heavy ones are already gone. Run after rule 4, so a dropped trailing
/// heading is a gap.
pub(super) fn drop_detached_tail(blocks: &[Block], labels: &mut [Label]) {
    let Some(last) = last_text_block(blocks, labels) else { return };
    let mut gap = false;
    for (block, label) in blocks.iter().zip(labels.iter_mut()).skip(last + 1) {
        if !label.is_good() {
            gap = true;
        } else if gap && block.words <= DETACHED_TAIL_WORDS && !in_list_or_table(block) {
            *label = Label::Bad;
        }
    }
}

/// True when `block` is inside a list item (`li`, `dd`, `dt`) or table cell (`td`, `th`),
/// read from its tag path.
pub(super) fn in_list_or_table(block: &Block) -> bool {
    block.kind == ParagraphKind::ListItem
        || block.dom_path.split('.').any(|tag| matches!(tag, "li" | "dd" | "dt" | "td" | "th"))
}

/// Index of the first kept non-heading block of at least [`TAIL_TEXT_WORDS`] words (the
/// start of the article's text for rule 8).
fn first_text_block(blocks: &[Block], labels: &[Label]) -> Option<usize> {
    blocks.iter().zip(labels).position(|(b, l)| l.is_good() && !b.heading && b.words >= TAIL_TEXT_WORDS)
}

/// Index of the last kept non-heading block of at least [`TAIL_TEXT_WORDS`] words (the end
/// of the article's text for rules 4 and 5).
fn last_text_block(blocks: &[Block], labels: &[Label]) -> Option<usize> {
    blocks.iter().zip(labels).rposition(|(b, l)| l.is_good() && !b.heading && b.words >= TAIL_TEXT_WORDS)
}

/// Rule 4: drop the kept headings after the last kept non-heading block of at least
/// [`TAIL_TEXT_WORDS`] words. trafilatura drops trailing headings of its output
/// (`NOT_AT_THE_END`); past the article's last paragraph a heading introduces related posts,
/// sharing or comment boxes even when short link lines follow it.
pub(super) fn drop_tail_headings(blocks: &[Block], labels: &mut [Label]) {
    if let Some(last) = last_text_block(blocks, labels) {
        for (block, label) in blocks.iter().zip(labels.iter_mut()).skip(last + 1) {
            if block.heading {
                *label = Label::Bad;
            }
        }
    }
}

/// Rule 7: a kept lead-in of at most [`LEAD_IN_WORDS`] words directly followed by a dropped
/// block with link density at least [`MAX_LENIENT_LINK_DENSITY`] is dropped: "Related
/// stories", "Explore further", "Lesen Sie auch" above a dropped link list. A line ending
/// in a full stop is a sentence, not a lead-in, and code (`pre`, `code`) stays.
pub(super) fn drop_link_lead_ins(blocks: &[Block], labels: &mut [Label]) {
    for i in 1..blocks.len() {
        let (block, next) = (&blocks[i - 1], &blocks[i]);
        if labels[i - 1].is_good()
            && !labels[i].is_good()
            && block.words <= LEAD_IN_WORDS
            && next.link_density() >= MAX_LENIENT_LINK_DENSITY
            && !block.text.ends_with('.')
            && !block.dom_path.split('.').any(|tag| matches!(tag, "pre" | "code"))
        {
            labels[i - 1] = Label::Bad;
        }
    }
}

/// Rule 8, rule 5's mirror before the article's start (the first kept non-heading block of at
/// least [`TAIL_TEXT_WORDS`] words): when the kept text before it is at most
/// [`HEAD_WORDS`] words (a title, a date, a byline; not a listing of short offers), kept
/// blocks of at most [`DETACHED_TAIL_WORDS`] words that a dropped block separates from the
/// text are dropped: datelines, bylines, breadcrumbs and photo credits cut off by a share bar
/// or an image ("Publiziert: 03.04.2020", "Foto: ATON"). Headings, sentences (a final full
/// stop: the lead) and list items or table cells stay.
pub(super) fn drop_detached_head(blocks: &[Block], labels: &mut [Label]) {
    let Some(first) = first_text_block(blocks, labels) else { return };
    let head_words: usize =
        blocks[..first].iter().zip(&labels[..first]).filter(|(_, l)| l.is_good()).map(|(b, _)| b.words).sum();
    if head_words > HEAD_WORDS {
        return;
    }
    let mut gap = false;
    for i in (0..first).rev() {
        let block = &blocks[i];
        if !labels[i].is_good() {
            gap = true;
        } else if gap
            && block.words <= DETACHED_TAIL_WORDS
            && !block.heading
            && !block.text.ends_with('.')
            && !in_list_or_table(block)
        {
            labels[i] = Label::Bad;
        }
    }
}

/// Rule 9: kept blocks that are mostly link text (link density at least
/// [`MAX_LINK_LINE_DENSITY`]; headings aside) are dropped, unless they hold
/// [`LINK_LINE_SHARE`] of the kept words or more.
pub(super) fn drop_link_lines(blocks: &[Block], labels: &mut [Label]) {
    let link_line = |b: &Block| !b.heading && b.link_density() >= MAX_LINK_LINE_DENSITY;
    let kept = || blocks.iter().zip(labels.iter()).filter(|(_, l)| l.is_good()).map(|(b, _)| b);
    let kept_words: usize = kept().map(|b| b.words).sum();
    let link_words: usize = kept().filter(|b| link_line(b)).map(|b| b.words).sum();
    if (link_words as f64) < LINK_LINE_SHARE * kept_words as f64 {
        for (block, label) in blocks.iter().zip(labels.iter_mut()) {
            if link_line(block) {
                *label = Label::Bad;
            }
        }
    }
}

/// Rule 10: lead-ins to a box that was left out. The last kept block, when it is a line of
/// at most [`DETACHED_TAIL_WORDS`] words that ends in a colon ("You may also be interested
/// in:", "Mehr zum Thema:") and the block right after it is dropped link text (link
/// density at least [`MAX_LENIENT_LINK_DENSITY`]) in the same element as the line, introduces
/// links the labels left out, so it goes, and the line then last is read the same way. A
/// line before an image, a document or a code example the labels cannot keep ("Here is what
/// you get:") is followed by the page's furniture in another element, and stays; so do code
/// and the first kept block. Rule 7 on the final labels of the rules and of the combiner
/// ([`crate::extract::pipeline::default_labels`]), for the last line.
pub fn drop_dangling_lead_ins(doc: &Document, blocks: &[Block], labels: &mut [Label]) {
    let parent = |b: &Block| {
        doc.html.tree.get(b.element).and_then(|n| n.ancestors().find(|a| a.value().is_element())).map(|a| a.id())
    };
    let introduces_links = |labels: &[Label], i: usize| {
        let (line, next) = (&blocks[i], blocks.get(i + 1));
        line.words <= DETACHED_TAIL_WORDS
            && line.text.trim_end().ends_with([':', '：'])
            && !line.dom_path.split('.').any(|tag| matches!(tag, "pre" | "code"))
            && next.is_some_and(|next| {
                !labels[i + 1].is_good()
                    && next.link_density() >= MAX_LENIENT_LINK_DENSITY
                    && parent(line).is_some_and(|p| {
                        doc.html.tree.get(next.element).is_some_and(|n| n.ancestors().any(|a| a.id() == p))
                    })
            })
    };
    let first = labels.iter().position(|l| l.is_good());
    while let Some(last) = labels.iter().rposition(|l| l.is_good()) {
        if Some(last) == first || !introduces_links(labels, last) {
            break;
        }
        labels[last] = Label::Bad;
    }
}
