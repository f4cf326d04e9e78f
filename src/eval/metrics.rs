//! Word-level scores of extracted text against human gold text. The principal function is
//! [`word_alignment_prf`], the CleanEval measure (Evert's `cleaneval.py`, used for
//! GoldMiner Tables II–III): align the output and gold word sequences, matched words are
//! true positives, the rest of the output false positives, the rest of the gold false
//! negatives. [`bag_of_words_prf`] is StaDyNoT's Table 2 measure; [`Aggregate`] sums pages
//! into micro and macro averages. Used by `webcorpus eval`.
//!
//! The alignment is Python's `difflib.SequenceMatcher(None, output, gold,
//! autojunk=False).get_matching_blocks()`, re-implemented here in [`matching_blocks`].
//! (`cleaneval.py` ran with Python's default autojunk, which lets words occurring in more
//! than 1 % of a ≥ 200-word gold only extend a match, never start one; that costs a few
//! true positives on some pages — 1 to 27 words on 5 of 30 CleanEval pages tested — so the
//! scores here use autojunk off; `matching_blocks(.., true)` reproduces the original.)
//! The algorithm: find the longest common contiguous block (earliest in the output,
//! then earliest in the gold, on ties), then recurse on the parts left and right of it. This
//! is not the longest common subsequence: one long block can win over several shorter ones
//! that cross it. No crate was used: `similar`'s diff algorithms are Myers and Patience,
//! which give LCS-like alignments, not difflib's matching blocks, and the algorithm is ~80
//! lines. Words are interned to integers and the per-row match lengths live in two reused
//! arrays with touched-lists. One `find_longest_match` costs O(Σ over the output words of
//! their occurrences in the gold range) — O(n·m) at worst; the recursion repeats it on the
//! remainders, so like difflib the total can approach O(n²·m) on long, dissimilar texts
//! with a tiny vocabulary (e.g. two different 20k-token sequences of "a"/"the"). Measured
//! (release build): 30 CleanEval pages, tag-stripped HTML against gold (600–6000 words),
//! 0.06–2.8 ms each, 20–60× faster than Python's difflib, identical matches with and without
//! autojunk; two identical 20k-word runs of one word 0.8 s (the O(n·m) single call).

use std::collections::HashMap;
use std::hash::Hash;

use serde::Serialize;

/// Whitespace-separated tokens of `text`; control characters separate tokens too (as
/// `cleaneval.py` replaces them by spaces).
pub fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c.is_control()).filter(|w| !w.is_empty()).collect()
}

/// The words of a CleanEval gold file (CleanEval 2007 annotation format): the first
/// non-blank line is dropped when it starts with `URL:`; the segment markers `<p>`, `<h>`,
/// `<l>` (any case) are removed wherever they appear, also glued to a word; the rest is
/// split as [`words`] does.
pub fn gold_words(gold_file_text: &str) -> Vec<String> {
    let trimmed = gold_file_text.trim_start();
    let body = if trimmed.starts_with("URL:") {
        trimmed.split_once('\n').map_or("", |(_, rest)| rest)
    } else {
        gold_file_text
    };
    let mut cleaned = String::with_capacity(body.len());
    let bytes = body.as_bytes();
    let mut start = 0; // start of the text not yet copied
    let mut i = 0;
    while i + 3 <= bytes.len() {
        if bytes[i] == b'<' && matches!(bytes[i + 1].to_ascii_lowercase(), b'p' | b'h' | b'l') && bytes[i + 2] == b'>' {
            // All three bytes are ASCII, so i and i + 3 are char boundaries.
            cleaned.push_str(&body[start..i]);
            cleaned.push(' ');
            i += 3;
            start = i;
        } else {
            i += 1;
        }
    }
    cleaned.push_str(&body[start..]);
    words(&cleaned).into_iter().map(str::to_string).collect()
}

/// True positive, false positive and false negative counts of one page (or a sum of pages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Prf {
    /// Output words matched to gold words.
    pub tp: usize,
    /// Output words not matched.
    pub fp: usize,
    /// Gold words not matched.
    pub fn_: usize,
}

impl Prf {
    /// tp / (tp + fp); 0.0 when there is no output (as `cleaneval.py`).
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    /// tp / (tp + fn); 0.0 when the gold is empty (as `cleaneval.py`).
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// Harmonic mean of precision and recall; 0.0 when both are 0.
    pub fn f1(&self) -> f64 {
        harmonic(self.precision(), self.recall())
    }

    /// Component-wise sum.
    pub fn add(&mut self, other: Prf) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
    }
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

fn harmonic(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// One matching block: `a[a..a + size] == b[b..b + size]` (difflib's `Match`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchBlock {
    /// Start in the first sequence.
    pub a: usize,
    /// Start in the second sequence.
    pub b: usize,
    /// Length, >= 1.
    pub size: usize,
}

/// difflib's `SequenceMatcher(None, a, b, autojunk).get_matching_blocks()`: the matching
/// blocks sorted by position, adjacent blocks merged, WITHOUT difflib's final
/// `(len(a), len(b), 0)` sentinel. With `autojunk` and `len(b) >= 200`, elements occurring
/// more than `len(b) / 100 + 1` times in `b` are "popular": they never start a match, only
/// extend one (difflib's heuristic, on by default in Python; `cleaneval.py` ran with it).
pub fn matching_blocks<T: Eq + Hash>(a: &[T], b: &[T], autojunk: bool) -> Vec<MatchBlock> {
    let mut m = Matcher::new(a, b, autojunk);
    let mut blocks = Vec::new();
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = m.find_longest_match(alo, ahi, blo, bhi);
        if k > 0 {
            blocks.push(MatchBlock { a: i, b: j, size: k });
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    blocks.sort_by_key(|m| (m.a, m.b));
    let mut merged: Vec<MatchBlock> = Vec::with_capacity(blocks.len());
    for blk in blocks {
        match merged.last_mut() {
            Some(last) if last.a + last.size == blk.a && last.b + last.size == blk.b => {
                last.size += blk.size;
            }
            _ => merged.push(blk),
        }
    }
    merged
}

/// Marks an element of `a` that does not occur in `b`.
const ABSENT: u32 = u32::MAX;

/// The state of one `matching_blocks` run: interned sequences, the `b2j` index and the
/// reusable per-row arrays of `find_longest_match`.
struct Matcher {
    a: Vec<u32>,
    b: Vec<u32>,
    /// For each interned element, its ascending positions in `b` (empty when popular).
    b2j: Vec<Vec<u32>>,
    /// `prev[j + 1]`: length of the match ending at (i - 1, j); `cur` for row i.
    prev: Vec<usize>,
    cur: Vec<usize>,
    prev_touched: Vec<usize>,
    cur_touched: Vec<usize>,
}

impl Matcher {
    fn new<T: Eq + Hash>(a: &[T], b: &[T], autojunk: bool) -> Self {
        let mut ids: HashMap<&T, u32> = HashMap::new();
        let b_ids: Vec<u32> = b
            .iter()
            .map(|x| {
                let next = ids.len() as u32;
                *ids.entry(x).or_insert(next)
            })
            .collect();
        let a_ids: Vec<u32> = a.iter().map(|x| ids.get(x).copied().unwrap_or(ABSENT)).collect();
        let mut b2j: Vec<Vec<u32>> = vec![Vec::new(); ids.len()];
        for (j, &id) in b_ids.iter().enumerate() {
            b2j[id as usize].push(j as u32);
        }
        if autojunk && b.len() >= 200 {
            let ntest = b.len() / 100 + 1;
            for positions in &mut b2j {
                if positions.len() > ntest {
                    *positions = Vec::new();
                }
            }
        }
        Matcher {
            a: a_ids,
            prev: vec![0; b.len() + 1],
            cur: vec![0; b.len() + 1],
            b: b_ids,
            b2j,
            prev_touched: Vec::new(),
            cur_touched: Vec::new(),
        }
    }

    /// difflib's `find_longest_match(alo, ahi, blo, bhi)` with no junk: `(i, j, size)` of the
    /// longest block in `a[alo..ahi]`, `b[blo..bhi]`, earliest `i` then earliest `j` on ties,
    /// extended over popular elements at both ends.
    fn find_longest_match(&mut self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> (usize, usize, usize) {
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        for i in alo..ahi {
            let id = self.a[i];
            if id != ABSENT {
                let js = &self.b2j[id as usize];
                let first = js.partition_point(|&j| (j as usize) < blo);
                for &j in &js[first..] {
                    let j = j as usize;
                    if j >= bhi {
                        break;
                    }
                    let k = self.prev[j] + 1;
                    self.cur[j + 1] = k;
                    self.cur_touched.push(j + 1);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            for &t in &self.prev_touched {
                self.prev[t] = 0;
            }
            self.prev_touched.clear();
            std::mem::swap(&mut self.prev, &mut self.cur);
            std::mem::swap(&mut self.prev_touched, &mut self.cur_touched);
        }
        for &t in &self.prev_touched {
            self.prev[t] = 0;
        }
        self.prev_touched.clear();
        // Extend over equal elements (only popular ones can be left out of the block).
        while besti > alo && bestj > blo && self.a[besti - 1] == self.b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi && bestj + bestsize < bhi && self.a[besti + bestsize] == self.b[bestj + bestsize] {
            bestsize += 1;
        }
        (besti, bestj, bestsize)
    }
}

/// The CleanEval word-alignment score of one page: words of `output` and `gold` aligned by
/// [`matching_blocks`] without autojunk; matched words are tp, other output words fp, other
/// gold words fn.
pub fn word_alignment_prf(output: &[&str], gold: &[&str]) -> Prf {
    let tp: usize = matching_blocks(output, gold, false).iter().map(|m| m.size).sum();
    Prf { tp, fp: output.len() - tp, fn_: gold.len() - tp }
}

/// Bag-of-words score with frequencies (StaDyNoT, Table 2): tp = size of the multiset
/// intersection, fp = output words beyond it, fn = gold words beyond it. Order is ignored.
pub fn bag_of_words_prf(output: &[&str], gold: &[&str]) -> Prf {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in gold {
        *counts.entry(w).or_insert(0) += 1;
    }
    let mut tp = 0;
    for w in output {
        if let Some(c) = counts.get_mut(w) {
            if *c > 0 {
                *c -= 1;
                tp += 1;
            }
        }
    }
    Prf { tp, fp: output.len() - tp, fn_: gold.len() - tp }
}

/// Scores summed over pages.
///
/// Micro: the pages' tp/fp/fn summed, then P/R/F1 of the sums (every word weighs the same).
/// Macro: the mean of the pages' P, R and F1 (every page weighs the same), over the pages
/// whose gold is not empty (tp + fn > 0); a page with gold and no output counts with 0.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Aggregate {
    /// Pages added.
    pub pages: usize,
    /// Pages counted in the macro means (non-empty gold).
    pub macro_pages: usize,
    /// Summed counts.
    pub total: Prf,
    sum_precision: f64,
    sum_recall: f64,
    sum_f1: f64,
}

impl Aggregate {
    /// An empty aggregate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add one page's counts.
    pub fn add(&mut self, page: Prf) {
        self.pages += 1;
        self.total.add(page);
        if page.tp + page.fn_ > 0 {
            self.macro_pages += 1;
            self.sum_precision += page.precision();
            self.sum_recall += page.recall();
            self.sum_f1 += page.f1();
        }
    }

    /// The summed counts; its `precision()`, `recall()`, `f1()` are the micro averages.
    pub fn micro(&self) -> Prf {
        self.total
    }

    /// Mean page precision (0.0 with no pages).
    pub fn macro_precision(&self) -> f64 {
        self.mean(self.sum_precision)
    }

    /// Mean page recall (0.0 with no pages).
    pub fn macro_recall(&self) -> f64 {
        self.mean(self.sum_recall)
    }

    /// Mean page F1 (0.0 with no pages), as `cleaneval.py -s` reports it.
    pub fn macro_f1(&self) -> f64 {
        self.mean(self.sum_f1)
    }

    fn mean(&self, sum: f64) -> f64 {
        if self.macro_pages == 0 {
            0.0
        } else {
            sum / self.macro_pages as f64
        }
    }
}

/// Share of the gold's characters that the output keeps (tree-filter paper, Table 1:
/// "characters of the gold kept / dropped"). Measured through the word alignment of
/// [`alignment_scores`]: a gold word counts as kept when the alignment matches it to an output
/// word; its characters (Unicode scalar values, whitespace excluded) are added to `kept`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CharsKept {
    /// Characters of matched gold words.
    pub kept: usize,
    /// Characters of all gold words.
    pub total: usize,
}

impl CharsKept {
    /// kept / total; 0.0 when the gold is empty.
    pub fn share(&self) -> f64 {
        ratio(self.kept, self.total)
    }

    /// Component-wise sum.
    pub fn add(&mut self, other: CharsKept) {
        self.kept += other.kept;
        self.total += other.total;
    }
}

/// The CleanEval word alignment of one page ([`word_alignment_prf`], same matching blocks)
/// together with the gold characters it keeps ([`CharsKept`]), from one alignment run.
pub fn alignment_scores(output: &[&str], gold: &[&str]) -> (Prf, CharsKept) {
    let blocks = matching_blocks(output, gold, false);
    let tp: usize = blocks.iter().map(|m| m.size).sum();
    let kept = blocks.iter().flat_map(|m| &gold[m.b..m.b + m.size]).map(|w| w.chars().count()).sum();
    let total = gold.iter().map(|w| w.chars().count()).sum();
    (Prf { tp, fp: output.len() - tp, fn_: gold.len() - tp }, CharsKept { kept, total })
}

/// Tokens of the ScrapingHub article-extraction-benchmark (`evaluate.py`: `re.findall(r'\w+')`
/// with Unicode): maximal runs of characters that are alphanumeric (`char::is_alphanumeric`)
/// or `_`. Case is kept. (Python's `\w` and Rust's alphanumeric differ on a few combining
/// marks of Indic scripts; irrelevant for the shared sets.)
pub fn word_tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|t| !t.is_empty()).collect()
}

/// Length of the shingles (word n-grams) of [`shingle_counts`]: 4, as ScrapingHub's
/// `string_shingle_matching(ngram_n=4)`.
pub const SHINGLE_N: usize = 4;

/// Shingle counts of one page (ScrapingHub `string_shingle_matching`): multisets of the word
/// [`SHINGLE_N`]-grams of output and gold ([`word_tokens`]; a text with fewer than n tokens
/// gives one shorter shingle, as `_ngrams` does); tp = Σ min counts, fp / fn = the excess of
/// the output / gold. Counts are not normalised: the page precision and recall below are
/// the same as those of the normalised counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ShingleCounts {
    /// Shingles in both (multiset intersection).
    pub tp: usize,
    /// Output shingles beyond the intersection.
    pub fp: usize,
    /// Gold shingles beyond the intersection.
    pub fn_: usize,
    /// True when the output's token sequence equals the gold's ("accuracy" of the benchmark).
    pub exact: bool,
}

impl ShingleCounts {
    /// Page precision, `None` when the output has no shingle (the page is skipped for
    /// precision, as `metrics_from_tp_fp_fns` does).
    pub fn precision(&self) -> Option<f64> {
        (self.tp + self.fp > 0).then(|| self.tp as f64 / (self.tp + self.fp) as f64)
    }

    /// Page recall, `None` when the gold has no shingle (skipped for recall).
    pub fn recall(&self) -> Option<f64> {
        (self.tp + self.fn_ > 0).then(|| self.tp as f64 / (self.tp + self.fn_) as f64)
    }
}

fn shingles<'a>(tokens: &'a [&'a str]) -> HashMap<&'a [&'a str], usize> {
    let mut counts = HashMap::new();
    for i in 0..tokens.len().saturating_sub(SHINGLE_N - 1).max(1) {
        let s = &tokens[i..tokens.len().min(i + SHINGLE_N)];
        if !s.is_empty() {
            *counts.entry(s).or_insert(0) += 1;
        }
    }
    counts
}

/// The shingle counts of `output` against `gold` (plain texts; see [`ShingleCounts`]).
pub fn shingle_counts(output: &str, gold: &str) -> ShingleCounts {
    let out_tokens = word_tokens(output);
    let gold_tokens = word_tokens(gold);
    let out = shingles(&out_tokens);
    let gold_sh = shingles(&gold_tokens);
    let mut c = ShingleCounts { exact: out_tokens == gold_tokens, ..ShingleCounts::default() };
    for (s, &n) in &out {
        let g = gold_sh.get(s).copied().unwrap_or(0);
        c.tp += n.min(g);
        c.fp += n.saturating_sub(g);
    }
    for (s, &g) in &gold_sh {
        c.fn_ += g.saturating_sub(out.get(s).copied().unwrap_or(0));
    }
    c
}

/// Shingle scores averaged over pages (ScrapingHub `metrics_from_tp_fp_fns`): precision = mean
/// of the page precisions over pages with output shingles, recall = mean of the page recalls
/// over pages with gold shingles, F1 = harmonic mean of the two means (not the mean of page
/// F1s); accuracy = share of pages whose tokens equal the gold's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ShingleMean {
    /// Pages added.
    pub pages: usize,
    /// Pages counted for precision.
    pub precision_pages: usize,
    /// Pages counted for recall.
    pub recall_pages: usize,
    /// Pages whose tokens equal the gold's.
    pub exact: usize,
    sum_precision: f64,
    sum_recall: f64,
}

impl ShingleMean {
    /// Add one page.
    pub fn add(&mut self, page: &ShingleCounts) {
        self.pages += 1;
        self.exact += usize::from(page.exact);
        if let Some(p) = page.precision() {
            self.precision_pages += 1;
            self.sum_precision += p;
        }
        if let Some(r) = page.recall() {
            self.recall_pages += 1;
            self.sum_recall += r;
        }
    }

    /// Mean page precision (0.0 with no page counted).
    pub fn precision(&self) -> f64 {
        if self.precision_pages == 0 {
            0.0
        } else {
            self.sum_precision / self.precision_pages as f64
        }
    }

    /// Mean page recall (0.0 with no page counted).
    pub fn recall(&self) -> f64 {
        if self.recall_pages == 0 {
            0.0
        } else {
            self.sum_recall / self.recall_pages as f64
        }
    }

    /// Harmonic mean of [`Self::precision`] and [`Self::recall`].
    pub fn f1(&self) -> f64 {
        harmonic(self.precision(), self.recall())
    }

    /// Share of pages whose token sequence equals the gold's.
    pub fn accuracy(&self) -> f64 {
        ratio(self.exact, self.pages)
    }
}

/// Characters that change how text breaks or joins but not what it says: soft hyphen
/// (U+00AD), zero-width space (U+200B), word joiner (U+2060) and zero-width no-break space
/// (U+FEFF). Extractors differ in whether they keep them, and a reader never sees them.
pub const INVISIBLE: &[char] = &['\u{00AD}', '\u{200B}', '\u{2060}', '\u{FEFF}'];

/// `text` without the [`INVISIBLE`] characters (borrowed when it has none), so that
/// `Klima\u{AD}wandel` and `Klimawandel` score as the same word. Both the output and the
/// gold are scored through it.
pub fn visible_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(INVISIBLE) {
        std::borrow::Cow::Owned(text.chars().filter(|c| !INVISIBLE.contains(c)).collect())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// `text` with every run of whitespace replaced by one space, the ends trimmed and the
/// [`INVISIBLE`] characters removed.
pub fn normalize_whitespace(text: &str) -> String {
    visible_text(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Snippet counts (trafilatura's evaluation, `tests/comparison.py`; see the data README):
/// each `with` snippet found in the whitespace-normalised output is a tp, missing a fn; each
/// `without` snippet found is a fp, missing a tn. Summed over pages (micro average).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SnippetCounts {
    /// `with` snippets found.
    pub tp: usize,
    /// `with` snippets missing.
    pub fn_: usize,
    /// `without` snippets found.
    pub fp: usize,
    /// `without` snippets missing.
    pub tn: usize,
}

impl SnippetCounts {
    /// tp / (tp + fp); 0.0 when nothing was found.
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    /// tp / (tp + fn); 0.0 without `with` snippets.
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// Harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        harmonic(self.precision(), self.recall())
    }

    /// (tp + tn) / all snippets.
    pub fn accuracy(&self) -> f64 {
        ratio(self.tp + self.tn, self.tp + self.fn_ + self.fp + self.tn)
    }

    /// Number of snippets counted.
    pub fn total(&self) -> usize {
        self.tp + self.fn_ + self.fp + self.tn
    }

    /// Component-wise sum.
    pub fn add(&mut self, other: SnippetCounts) {
        self.tp += other.tp;
        self.fn_ += other.fn_;
        self.fp += other.fp;
        self.tn += other.tn;
    }
}

/// The snippet counts of one page: `output` and the snippets are whitespace-normalised
/// ([`normalize_whitespace`]) and matched as substrings, case-sensitively. Snippets that are
/// empty after normalisation are not counted.
pub fn snippet_counts(output: &str, with: &[String], without: &[String]) -> SnippetCounts {
    let out = normalize_whitespace(output);
    let found = |s: &String| {
        let s = normalize_whitespace(s);
        (!s.is_empty()).then(|| out.contains(&s))
    };
    let mut c = SnippetCounts::default();
    for hit in with.iter().filter_map(found) {
        if hit {
            c.tp += 1;
        } else {
            c.fn_ += 1;
        }
    }
    for hit in without.iter().filter_map(found) {
        if hit {
            c.fp += 1;
        } else {
            c.tn += 1;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    fn blocks(a: &str, b: &str) -> Vec<(usize, usize, usize)> {
        matching_blocks(&w(a), &w(b), false).iter().map(|m| (m.a, m.b, m.size)).collect()
    }

    #[test]
    fn words_split_on_whitespace_and_controls() {
        assert_eq!(words(" a\tb\n\nc\u{1}d  "), vec!["a", "b", "c", "d"]);
        assert!(words("").is_empty());
    }

    #[test]
    fn gold_file_markers_and_url_line_are_dropped() {
        let gold = "URL: http://example.org/x\n\n<p>First  para\n<h>Head<P>glued <l> item\n<x> 1<2 <b>";
        assert_eq!(gold_words(gold), vec!["First", "para", "Head", "glued", "item", "<x>", "1<2", "<b>"]);
        // A URL: line that is not the first line stays; no URL line at all is fine.
        assert_eq!(gold_words("<p>a\nURL: b"), vec!["a", "URL:", "b"]);
        assert_eq!(gold_words("URL: only"), Vec::<String>::new());
    }

    #[test]
    fn one_substitution() {
        let p = word_alignment_prf(&w("a b c d"), &w("a x c d"));
        assert_eq!(p, Prf { tp: 3, fp: 1, fn_: 1 });
        assert!((p.precision() - 0.75).abs() < 1e-12);
        assert!((p.recall() - 0.75).abs() < 1e-12);
        assert!((p.f1() - 0.75).abs() < 1e-12);
        // difflib: [(0,0,1), (2,2,2)].
        assert_eq!(blocks("a b c d", "a x c d"), vec![(0, 0, 1), (2, 2, 2)]);
    }

    #[test]
    fn longest_block_first_then_remainders() {
        // Longest block "a b c" = a[1..4] / b[0..3]; left: "x" vs nothing; right: "y a" vs
        // "a x" gives "a" = a[5] / b[3]. difflib: [(1,0,3), (5,3,1)].
        assert_eq!(blocks("x a b c y a", "a b c a x"), vec![(1, 0, 3), (5, 3, 1)]);
    }

    #[test]
    fn longest_block_is_not_lcs() {
        // "m n o" (3) comes first in a and last in b; the LCS "p q r s" (4) crosses it.
        // difflib takes "m n o" = a[0..3] / b[7..10]; nothing is left on either side, so
        // tp = 3 where an LCS alignment would give 4.
        let a = "m n o p f q g r h s";
        let b = "p i q j r k s m n o";
        assert_eq!(blocks(a, b), vec![(0, 7, 3)]);
        assert_eq!(word_alignment_prf(&w(a), &w(b)), Prf { tp: 3, fp: 7, fn_: 7 });
    }

    #[test]
    fn ties_take_the_earliest_block() {
        // "u v" and "x y" both have size 2; difflib picks the one starting first in a
        // ("x y" at a[0]) and then finds nothing to its left and "u v" is to its right in
        // a but to its left in b.
        assert_eq!(blocks("x y u v", "u v x y"), vec![(0, 2, 2)]);
        // Same element repeated: earliest j for the earliest i.
        assert_eq!(blocks("a", "b a a"), vec![(0, 1, 1)]);
    }

    #[test]
    fn adjacent_blocks_are_merged_and_edges() {
        assert_eq!(blocks("a b c", "a b c"), vec![(0, 0, 3)]);
        assert!(blocks("", "a").is_empty());
        assert!(blocks("a", "").is_empty());
        let p = word_alignment_prf(&[], &w("a b"));
        assert_eq!(p, Prf { tp: 0, fp: 0, fn_: 2 });
        assert_eq!(p.precision(), 0.0);
        assert_eq!(p.f1(), 0.0);
    }

    #[test]
    fn autojunk_popular_elements_only_extend() {
        // b has 200 elements, "the" 10 times (> 200/100 + 1 = 3): popular. A block made
        // only of "the" is not found with autojunk, but "the" extends a real block.
        let mut b: Vec<String> = (0..190).map(|i| format!("w{i}")).collect();
        b.extend(std::iter::repeat_n("the".to_string(), 10));
        let a = vec!["the".to_string(), "the".to_string()];
        assert!(matching_blocks(&a, &b, true).is_empty());
        assert_eq!(matching_blocks(&a, &b, false).len(), 1);
        let a2 = vec!["w189".to_string(), "the".to_string()];
        let m = matching_blocks(&a2, &b, true);
        assert_eq!(m, vec![MatchBlock { a: 0, b: 189, size: 2 }]);
    }

    #[test]
    fn bag_of_words_counts_multiset_intersection() {
        let p = bag_of_words_prf(&w("a a b c"), &w("c a b b d"));
        // Intersection {a, b, c}: tp 3; output left {a}; gold left {b, d}.
        assert_eq!(p, Prf { tp: 3, fp: 1, fn_: 2 });
        // Order does not matter, unlike the alignment.
        let p = bag_of_words_prf(&w("m n o p f q g r h s"), &w("p i q j r k s m n o"));
        assert_eq!(p.tp, 7);
    }

    #[test]
    fn aggregate_micro_and_macro() {
        let mut agg = Aggregate::new();
        agg.add(Prf { tp: 3, fp: 1, fn_: 1 }); // P .75 R .75 F .75
        agg.add(Prf { tp: 1, fp: 0, fn_: 3 }); // P 1 R .25 F .4
        agg.add(Prf { tp: 0, fp: 5, fn_: 0 }); // empty gold: micro only
        assert_eq!(agg.pages, 3);
        assert_eq!(agg.macro_pages, 2);
        let micro = agg.micro();
        assert_eq!(micro, Prf { tp: 4, fp: 6, fn_: 4 });
        assert!((micro.precision() - 0.4).abs() < 1e-12);
        assert!((micro.recall() - 0.5).abs() < 1e-12);
        assert!((micro.f1() - 0.4 / 0.9).abs() < 1e-12);
        assert!((agg.macro_precision() - 0.875).abs() < 1e-12);
        assert!((agg.macro_recall() - 0.5).abs() < 1e-12);
        assert!((agg.macro_f1() - 0.575).abs() < 1e-12);
        assert_eq!(Aggregate::new().macro_f1(), 0.0);
    }

    /// A real CleanEval gold file: the output is the gold with its middle third cut out and
    /// words the gold lacks put in front. Every kept gold word must align, nothing else.
    #[test]
    fn real_gold_file_with_cut_and_noise() {
        let Some(file) = crate::testdata::shared_path("data/cleaneval/gold/dev-026.txt") else { return };
        let text = std::fs::read_to_string(&file).expect("the gold file reads");
        let gold = gold_words(&text);
        assert!(gold.len() > 300, "{}", gold.len());
        assert!(gold.iter().all(|w| !["<p>", "<h>", "<l>", "URL:"].contains(&w.as_str())));
        let gold: Vec<&str> = gold.iter().map(String::as_str).collect();
        let (x, y) = (gold.len() / 3, 2 * gold.len() / 3);
        let noise: Vec<String> = (0..40).map(|i| format!("zz-noise-{i}")).collect();
        let mut output: Vec<&str> = noise.iter().map(String::as_str).collect();
        output.extend_from_slice(&gold[..x]);
        output.extend_from_slice(&gold[y..]);
        let p = word_alignment_prf(&output, &gold);
        assert_eq!(p.tp, x + gold.len() - y);
        assert_eq!(p.fp, 40);
        assert_eq!(p.fn_, y - x);
        assert_eq!(word_alignment_prf(&gold, &gold).tp, gold.len());
        assert_eq!(bag_of_words_prf(&output, &gold).fp, 40);
    }
    #[test]
    fn chars_kept_counts_matched_gold_words() {
        // Gold "ab cde f" (6 chars); output keeps "ab cde" aligned, drops "f", adds "zz".
        let (prf, chars) = alignment_scores(&w("zz ab cde"), &w("ab cde f"));
        assert_eq!(prf, Prf { tp: 2, fp: 1, fn_: 1 });
        assert_eq!(chars, CharsKept { kept: 5, total: 6 });
        assert!((chars.share() - 5.0 / 6.0).abs() < 1e-12);
        // Multi-byte characters count once; an unaligned repeat is not kept.
        let (_, chars) = alignment_scores(&w("été"), &w("été x été"));
        assert_eq!(chars, CharsKept { kept: 3, total: 7 });
        assert_eq!(alignment_scores(&[], &[]).1.share(), 0.0);
    }

    #[test]
    fn word_tokens_are_unicode_word_runs() {
        assert_eq!(word_tokens("Héllo, wörld_1! 3.14 -- ok"), vec!["Héllo", "wörld_1", "3", "14", "ok"]);
        assert_eq!(word_tokens("東京 e-mail"), vec!["東京", "e", "mail"]);
        assert!(word_tokens(" ,.; ").is_empty());
    }

    #[test]
    fn shingle_counts_by_hand() {
        // Gold tokens a b c d e (shingles abcd, bcde); output a b c d x (abcd, bcdx).
        let c = shingle_counts("a b c d x", "a, b. c d e");
        assert_eq!((c.tp, c.fp, c.fn_, c.exact), (1, 1, 1, false));
        assert_eq!(c.precision(), Some(0.5));
        assert_eq!(c.recall(), Some(0.5));
        // Repeated shingles are a multiset: gold "a b c d a b c d" has abcd twice.
        let c = shingle_counts("a b c d", "a b c d a b c d");
        assert_eq!((c.tp, c.fp, c.fn_), (1, 0, 4));
        // Fewer than 4 tokens: one short shingle.
        let c = shingle_counts("x y", "x y");
        assert_eq!((c.tp, c.fp, c.fn_, c.exact), (1, 0, 0, true));
        // Empty output: precision skipped, recall 0.
        let c = shingle_counts("", "a b c d");
        assert_eq!((c.precision(), c.recall()), (None, Some(0.0)));
        let c = shingle_counts("a b", "");
        assert_eq!((c.precision(), c.recall()), (Some(0.0), None));
    }

    #[test]
    fn shingle_mean_averages_pages_then_takes_the_harmonic_mean() {
        let mut m = ShingleMean::default();
        m.add(&ShingleCounts { tp: 1, fp: 1, fn_: 3, exact: false }); // P .5, R .25
        m.add(&ShingleCounts { tp: 2, fp: 0, fn_: 0, exact: true }); // P 1, R 1
        m.add(&ShingleCounts { tp: 0, fp: 0, fn_: 4, exact: false }); // P skipped, R 0
        m.add(&ShingleCounts { tp: 0, fp: 3, fn_: 0, exact: false }); // P 0, R skipped
        assert_eq!((m.pages, m.precision_pages, m.recall_pages, m.exact), (4, 3, 3, 1));
        assert!((m.precision() - 0.5).abs() < 1e-12);
        assert!((m.recall() - 1.25 / 3.0).abs() < 1e-12);
        let (p, r) = (0.5, 1.25 / 3.0);
        assert!((m.f1() - 2.0 * p * r / (p + r)).abs() < 1e-12);
        assert!((m.accuracy() - 0.25).abs() < 1e-12);
        assert_eq!(ShingleMean::default().f1(), 0.0);
    }

    #[test]
    fn snippets_found_after_whitespace_normalisation() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let out = "First  paragraph\nends here.\n\nSecond one.";
        let c = snippet_counts(out, &s(&["paragraph ends here", "Second one", "missing"]), &s(&["Cookie", "First"]));
        assert_eq!(c, SnippetCounts { tp: 2, fn_: 1, fp: 1, tn: 1 });
        assert!((c.precision() - 2.0 / 3.0).abs() < 1e-12);
        assert!((c.recall() - 2.0 / 3.0).abs() < 1e-12);
        assert!((c.accuracy() - 0.6).abs() < 1e-12);
        // Case matters; an empty snippet is not counted.
        let c = snippet_counts("abc", &s(&["ABC", "  "]), &[]);
        assert_eq!(c, SnippetCounts { tp: 0, fn_: 1, fp: 0, tn: 0 });
        let mut sum = c;
        sum.add(SnippetCounts { tp: 3, fn_: 0, fp: 1, tn: 2 });
        assert_eq!(sum.total(), 7);
        assert!((sum.f1() - 2.0 * 0.75 * 0.75 / 1.5).abs() < 1e-12);
    }

    #[test]
    fn invisible_characters_do_not_split_or_change_words() {
        // A soft hyphen in the gold, none in the output (the segmenter drops them), and the
        // reverse: the same words either way.
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let c = snippet_counts("der Klimawandel", &s(&["Klima\u{AD}wandel"]), &s(&["Wet\u{200B}ter"]));
        assert_eq!(c, SnippetCounts { tp: 1, fn_: 0, fp: 0, tn: 1 });
        assert_eq!(visible_text("Neu\u{AD}zeit\u{FEFF}"), "Neuzeit");
        assert!(matches!(visible_text("plain"), std::borrow::Cow::Borrowed("plain")));
    }
}
