//! Block labels from the sets' gold, for training and validating BoilerNet and the combiner. The principal
//! function is [`gold_labels`]: the page's block words are aligned with the gold words by the
//! CleanEval word alignment that `webcorpus eval` scores with ([`matching_blocks`], difflib's
//! matching blocks without autojunk), and a block is content when more than half of its words
//! are matched. So a block labelled content is, word for word, what the scorer rewards.
//! For snippet-only sets (trafilatura-eval) [`snippet_labels`] labels a block containing a
//! `with` snippet content, one containing a `without` snippet boilerplate, and masks the rest.

use crate::eval::metrics::{matching_blocks, normalize_whitespace, visible_text, words};
use crate::model::Block;

/// Share of a block's words that must be matched to gold words for the block to be content
/// (strictly more than this).
pub const MATCHED_SHARE: f64 = 0.5;

/// One label per block of `page` from its gold: [`gold_labels`] when the page has full gold
/// text, else [`snippet_labels`]; `None` for a page with neither.
pub fn page_labels(page: &crate::eval::dataset::GoldPage, blocks: &[Block]) -> Option<Vec<Option<bool>>> {
    match (&page.text, page.has_snippets()) {
        (Some(text), _) => Some(gold_labels(blocks, text)),
        (None, true) => Some(snippet_labels(blocks, &page.with, &page.without)),
        (None, false) => None,
    }
}

/// One label per block from full gold text: `Some(true)` content, `Some(false)` boilerplate.
/// An empty gold (a page without main content) labels every block boilerplate. The gold is
/// read through [`visible_text`], as the scorer reads it.
pub fn gold_labels(blocks: &[Block], gold: &str) -> Vec<Option<bool>> {
    let gold = visible_text(gold);
    let gold_words = words(&gold);
    let mut page_words: Vec<&str> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        for w in words(&b.text) {
            page_words.push(w);
            owner.push(i);
        }
    }
    let mut matched = vec![0usize; blocks.len()];
    let mut total = vec![0usize; blocks.len()];
    for &o in &owner {
        total[o] += 1;
    }
    if !gold_words.is_empty() {
        for m in matching_blocks(&page_words, &gold_words, false) {
            for &o in &owner[m.a..m.a + m.size] {
                matched[o] += 1;
            }
        }
    }
    matched.iter().zip(&total).map(|(&m, &t)| Some(t > 0 && m as f64 > MATCHED_SHARE * t as f64)).collect()
}

/// One label per block from snippets: content when the block holds a `with` snippet,
/// boilerplate when it holds a `without` snippet (and no `with` one), `None` otherwise.
/// Snippets are whitespace-normalised (as the snippet metric does); a snippet spanning
/// blocks labels none.
pub fn snippet_labels(blocks: &[Block], with: &[String], without: &[String]) -> Vec<Option<bool>> {
    let with: Vec<String> = with.iter().map(|s| normalize_whitespace(s)).filter(|s| !s.is_empty()).collect();
    let without: Vec<String> = without.iter().map(|s| normalize_whitespace(s)).filter(|s| !s.is_empty()).collect();
    blocks
        .iter()
        .map(|b| {
            if with.iter().any(|s| b.text.contains(s.as_str())) {
                Some(true)
            } else if without.iter().any(|s| b.text.contains(s.as_str())) {
                Some(false)
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{segment, Document};

    #[test]
    fn majority_of_matched_words_makes_content() {
        let doc = Document::parse(
            "<body><div>Home News Sport</div><p>The quick brown fox jumps.</p><p>It was a fox and more words here</p>\
             <div>Copyright 2007</div></body>",
        );
        let blocks = segment(&doc);
        let gold = "The quick brown fox jumps. It was a fox and more";
        let l = gold_labels(&blocks, gold);
        assert_eq!(l, vec![Some(false), Some(true), Some(true), Some(false)]);
        // Exactly half of the third block's words matched is not a majority.
        let l = gold_labels(&blocks, "The quick brown fox jumps. It was a fox");
        assert_eq!(l, vec![Some(false), Some(true), Some(false), Some(false)]);
        assert!(gold_labels(&blocks, "").iter().all(|l| *l == Some(false)));
        let s = snippet_labels(&blocks, &["quick  brown".into()], &["Copyright".into()]);
        assert_eq!(s, vec![None, Some(true), None, Some(false)]);
    }
}
