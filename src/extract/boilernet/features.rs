//! BoilerNet's input (Leonhardt et al. 2020, §3.1): the principal type is [`Vocab`], the top
//! HTML tags and words of the training pages, which turns a text [`Block`] into a sparse
//! count vector ([`SparseRow`]): how often each tag occurs on the block's root path, then how
//! often each word occurs in the block, with one out-of-vocabulary slot for each part.
//!
//! Our extension (not in the paper): [`SHAPE_FEATURES`] language-independent numbers per block
//! after the word counts ([`BlockTokens::shape`]): log word count, link density, stopword share
//! by the page's stoplist and whether the page has one, whether the block ends like a sentence,
//! and the block's relative position. These are what the rule-based extractors (jusText,
//! Boilerpipe) decide by, and they carry across languages where an English word vocabulary does
//! not (trained on English alone, the paper's input kept nothing on many German pages).
//! [`FEATURE_VERSION`] names this input format in the model file.
//!
//! Tags come from the block's `dom_path` (root to the element that held its first text, inline
//! tags included). Words are the block's text lower-cased and split as the authors' code does
//! with NLTK's `word_tokenize`, approximated: runs of letters and digits are words, every other
//! non-space character is a token of its own (so `,` and `.` count, as in the paper's input).

use crate::extract::justext::stopword_density;
use crate::extract::stoplist::{language_sample, stoplist_for, Stoplist};
use crate::model::Block;
use std::collections::HashMap;
use std::sync::Arc;

/// The input format written to and required from a model file's header (`features`):
/// 1 = the paper's tag and word counts (no `features` field), 2 = those plus the
/// [`SHAPE_FEATURES`] shape columns.
pub const FEATURE_VERSION: u64 = 2;

/// Language-independent shape columns per block (our extension; see the module doc):
/// `ln(1 + words) / 5`, link density, stopword density (jusText's, by the page's stoplist),
/// 1 when the page has a stoplist, 1 when the text ends in `. ! ? … :` or a closing quote
/// after one, relative position `i / (n − 1)` (0 for a one-block page).
pub const SHAPE_FEATURES: usize = 6;

/// Paper defaults (§3.1, "top 50 tags" / "top 1,000 words"; the authors' `--num_tags`,
/// `--num_words`).
pub const DEFAULT_TAGS: usize = 50;
/// See [`DEFAULT_TAGS`].
pub const DEFAULT_WORDS: usize = 1000;

/// A sparse input row: `(column, value)` pairs, columns ascending and unique.
pub type SparseRow = Vec<(u32, f32)>;

/// The tags on a block's root path and the block's tokens, before vocabulary lookup.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockTokens {
    /// Tag names from the root down, as in `dom_path`.
    pub tags: Vec<String>,
    /// Lower-cased tokens of the block text.
    pub words: Vec<String>,
    /// The [`SHAPE_FEATURES`] shape columns.
    pub shape: [f32; SHAPE_FEATURES],
}

impl BlockTokens {
    /// The tokens of block `index` of the page's `count` blocks; `stoplist` is the page's.
    pub fn of(block: &Block, index: usize, count: usize, stoplist: &Stoplist) -> BlockTokens {
        let text = block.text.trim_end_matches(['"', '\'', '\u{201d}', '\u{2019}', '\u{bb}', ')']);
        let sentence = text.ends_with(['.', '!', '?', '\u{2026}', ':', '\u{3002}']);
        let position = if count > 1 { index as f32 / (count - 1) as f32 } else { 0.0 };
        BlockTokens {
            tags: block.dom_path.split('.').filter(|t| !t.is_empty()).map(str::to_string).collect(),
            words: tokenize(&block.text),
            shape: [
                (block.words as f32).ln_1p() / 5.0,
                block.link_density() as f32,
                stopword_density(&block.text, stoplist) as f32,
                if stoplist.is_empty() { 0.0 } else { 1.0 },
                if sentence { 1.0 } else { 0.0 },
                position,
            ],
        }
    }
}

/// The page's stoplist as the extraction pipeline picks it with no configured language:
/// detected from [`language_sample`] (`extract::pipeline::extract_document`).
pub fn page_stoplist(blocks: &[Block]) -> Arc<Stoplist> {
    stoplist_for(None, &language_sample(blocks))
}

/// The tokens of every block of a page, with the page's `stoplist`.
pub fn page_tokens(blocks: &[Block], stoplist: &Stoplist) -> Vec<BlockTokens> {
    blocks.iter().enumerate().map(|(i, b)| BlockTokens::of(b, i, blocks.len(), stoplist)).collect()
}

/// Lower-cased tokens: runs of alphanumeric characters, and each other non-whitespace
/// character alone.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            cur.extend(ch.to_lowercase());
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if !ch.is_whitespace() {
                out.push(ch.to_string());
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The tag and word vocabularies. Columns: `0` = OOV tag, `1..=tags.len()` the tags,
/// `tags.len() + 1` = OOV word, then the words, then the [`SHAPE_FEATURES`] shape columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Vocab {
    /// Known tags, most frequent first.
    pub tags: Vec<String>,
    /// Known words, most frequent first.
    pub words: Vec<String>,
    tag_index: HashMap<String, u32>,
    word_index: HashMap<String, u32>,
}

impl Vocab {
    /// A vocabulary from given lists (e.g. a model file's header).
    pub fn new(tags: Vec<String>, words: Vec<String>) -> Vocab {
        let tag_index = tags.iter().enumerate().map(|(i, t)| (t.clone(), i as u32 + 1)).collect();
        let off = tags.len() as u32 + 2;
        let word_index = words.iter().enumerate().map(|(i, w)| (w.clone(), off + i as u32)).collect();
        Vocab { tags, words, tag_index, word_index }
    }

    /// The `max_tags` most frequent tags and `max_words` most frequent words (counted over
    /// every occurrence, as the authors' `preprocess.py`) of `blocks`; ties by name.
    pub fn build<'a>(blocks: impl IntoIterator<Item = &'a BlockTokens>, max_tags: usize, max_words: usize) -> Vocab {
        let mut tags: HashMap<&str, usize> = HashMap::new();
        let mut words: HashMap<&str, usize> = HashMap::new();
        for b in blocks {
            for t in &b.tags {
                *tags.entry(t).or_insert(0) += 1;
            }
            for w in &b.words {
                *words.entry(w).or_insert(0) += 1;
            }
        }
        let top = |m: HashMap<&str, usize>, n: usize| {
            let mut v: Vec<(&str, usize)> = m.into_iter().collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            v.into_iter().take(n).map(|(s, _)| s.to_string()).collect::<Vec<_>>()
        };
        Vocab::new(top(tags, max_tags), top(words, max_words))
    }

    /// Input width: both vocabularies, the two OOV columns and the shape columns.
    pub fn width(&self) -> usize {
        self.tags.len() + self.words.len() + 2 + SHAPE_FEATURES
    }

    /// The sparse count vector of one block.
    pub fn features(&self, tokens: &BlockTokens) -> SparseRow {
        let oov_word = self.tags.len() as u32 + 1;
        let mut counts: HashMap<u32, f32> = HashMap::new();
        for t in &tokens.tags {
            *counts.entry(self.tag_index.get(t).copied().unwrap_or(0)).or_insert(0.0) += 1.0;
        }
        for w in &tokens.words {
            *counts.entry(self.word_index.get(w).copied().unwrap_or(oov_word)).or_insert(0.0) += 1.0;
        }
        let mut row: SparseRow = counts.into_iter().collect();
        row.sort_by_key(|(c, _)| *c);
        let shape_start = (self.tags.len() + self.words.len() + 2) as u32;
        row.extend((shape_start..).zip(tokens.shape).filter(|(_, v)| *v != 0.0));
        row
    }

    /// The vocabularies as JSON, for a model file's header.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"tags": self.tags, "words": self.words})
    }

    /// Read [`Vocab::to_json`]'s output; `None` when the shape is wrong.
    pub fn from_json(v: &serde_json::Value) -> Option<Vocab> {
        let list = |k: &str| -> Option<Vec<String>> {
            v.get(k)?.as_array()?.iter().map(|s| s.as_str().map(str::to_string)).collect()
        };
        Some(Vocab::new(list("tags")?, list("words")?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{segment, Document};

    #[test]
    fn tokens_vocab_and_counts() {
        assert_eq!(tokenize("Hello, World. Ça va?"), ["hello", ",", "world", ".", "ça", "va", "?"]);
        let doc = Document::parse("<body><div><p>The cat, the dog.</p></div><div>Menu</div></body>");
        let blocks = segment(&doc);
        let stoplist = Stoplist::from_words(Some("English".into()), ["the"]);
        let toks = page_tokens(&blocks, &stoplist);
        assert_eq!(toks[0].tags, ["html", "body", "div", "p"]);
        // 4 whitespace words (ln 5 / 5), no links, 2 of 4 stopwords, a stoplist, a sentence, first
        // block.
        assert_eq!(toks[0].shape, [5f32.ln() / 5.0, 0.0, 0.5, 1.0, 1.0, 0.0]);
        assert_eq!(toks[1].shape, [2f32.ln() / 5.0, 0.0, 0.0, 1.0, 0.0, 1.0]);
        let vocab = Vocab::build(&toks, 3, 2);
        // Tags: body, div, html each twice (ties by name), p once: p is OOV.
        assert_eq!(vocab.tags, ["body", "div", "html"]);
        assert_eq!(vocab.words, ["the", ","]);
        assert_eq!(vocab.width(), 3 + 2 + 2 + SHAPE_FEATURES);
        let f = vocab.features(&toks[0]);
        // OOV tag (p) 1, body/div/html 1 each, OOV words (cat, dog, .) 3, "the" 2, "," 1,
        // then the non-zero shape columns (words, stopwords, stoplist, sentence).
        let s = toks[0].shape;
        assert_eq!(
            f,
            vec![
                (0, 1.0),
                (1, 1.0),
                (2, 1.0),
                (3, 1.0),
                (4, 3.0),
                (5, 2.0),
                (6, 1.0),
                (7, s[0]),
                (9, 0.5),
                (10, 1.0),
                (11, 1.0)
            ]
        );
        assert_eq!(Vocab::from_json(&vocab.to_json()), Some(vocab));
    }
}
