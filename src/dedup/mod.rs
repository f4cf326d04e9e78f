//! Onion paragraph deduplication (ONe Instance ONly, Pomikálek 2011). The principal type is
//! [`Onion`]: it sits after extraction and before the corpus writer, and drops every paragraph
//! whose word 7-grams were mostly seen before, so the first instance of a text is the one kept.
//!
//! Each paragraph becomes a list of xxh3-64 n-gram hashes ([`shingle::shingle_hashes`]). A
//! paragraph is a duplicate when the share of its hashes already seen — in the store (through
//! the [`SeenHashes`] trait) or in an earlier kept paragraph of the same document — is greater
//! than [`OnionParams::threshold`]. [`Onion::filter`] does not write: it returns the new
//! hashes of the kept paragraphs, and the crawler commits them in the same store batch as the
//! record and the corpus offset (ARCHITECTURE.md, "Crash safety"), so a crash never leaves
//! hashes for text that was not written.

pub mod corpus;
pub mod log;
pub mod seen;
pub mod shingle;
pub mod table;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::model::Paragraph;

pub use seen::{SeenMode, SeenParams, SeenSet};
pub use shingle::{shingle_hashes, Shingler};

use seen::HashValueSet;

/// Errors of the dedup stage. Only the hash lookup can fail.
#[derive(Debug, thiserror::Error)]
pub enum DedupError {
    /// The backing store of [`SeenHashes`] failed.
    #[error("dedup hash lookup failed: {source}")]
    Store {
        /// The store's own error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Parameters out of range (`n == 0`, or `threshold` outside 0.0–1.0).
    #[error("invalid Onion parameters: {0}")]
    InvalidParams(String),
}

impl DedupError {
    /// Wrap a store error (for implementors of [`SeenHashes`]).
    pub fn store(source: impl std::error::Error + Send + Sync + 'static) -> Self {
        DedupError::Store { source: Box::new(source) }
    }
}

/// Onion's parameters, the `[dedup]` table of the config.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OnionParams {
    /// Words per n-gram. Default 7 (Onion, Pomikálek 2011).
    pub n: usize,
    /// A paragraph is a duplicate when MORE than this share (0.0–1.0) of its n-grams were
    /// seen before. Default 0.5 (Onion, Pomikálek 2011).
    pub threshold: f64,
}

impl Default for OnionParams {
    fn default() -> Self {
        OnionParams {
            n: 7,           // Onion, Pomikálek 2011
            threshold: 0.5, // Onion, Pomikálek 2011
        }
    }
}

impl OnionParams {
    /// Check the ranges: `n >= 1`, `0.0 <= threshold <= 1.0`.
    pub fn validate(&self) -> Result<(), DedupError> {
        if self.n == 0 {
            return Err(DedupError::InvalidParams("n must be at least 1".into()));
        }
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(DedupError::InvalidParams(format!(
                "threshold must be within 0.0..=1.0, got {}",
                self.threshold
            )));
        }
        Ok(())
    }
}

/// The `[dedup]` table of the config: Onion's parameters and the form of the seen n-gram set
/// (see [`seen`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DedupConfig {
    /// Words per n-gram. Default 7 (Onion, Pomikálek 2011).
    pub n: usize,
    /// Duplicate when more than this share of a paragraph's n-grams were seen. Default 0.5.
    pub threshold: f64,
    /// `auto` (default), `exact` or `bloom`.
    pub mode: SeenMode,
    /// `auto`: distinct n-grams held exactly before the Bloom filter. Default 20,000,000
    /// (about 320 MB).
    pub exact_max_ngrams: u64,
    /// Bloom filter capacity, distinct n-grams. Default 200,000,000 (480 MB at 1e-4).
    pub bloom_capacity: u64,
    /// Bloom filter false-positive rate at capacity. Default 1e-4.
    pub bloom_fp_rate: f64,
}

impl Default for DedupConfig {
    fn default() -> Self {
        let onion = OnionParams::default();
        DedupConfig {
            n: onion.n,
            threshold: onion.threshold,
            mode: SeenMode::Auto,
            exact_max_ngrams: 20_000_000,
            bloom_capacity: 200_000_000,
            bloom_fp_rate: 1e-4,
        }
    }
}

impl DedupConfig {
    /// Onion's parameters.
    pub fn onion(&self) -> OnionParams {
        OnionParams { n: self.n, threshold: self.threshold }
    }

    /// The seen set's sizing.
    pub fn seen_params(&self) -> SeenParams {
        SeenParams {
            mode: self.mode,
            exact_max_ngrams: self.exact_max_ngrams,
            bloom_capacity: self.bloom_capacity,
            bloom_fp_rate: self.bloom_fp_rate,
        }
    }
}

/// The set of n-gram hashes already in the corpus. The crawler backs it by the sled store;
/// tests use the in-memory `HashSet<u64>` implementation.
pub trait SeenHashes {
    /// True when `h` was committed before.
    fn contains(&self, h: u64) -> Result<bool, DedupError>;

    /// Hint that `h` will be looked up soon (an in-memory set loads its slot into the cache);
    /// the default does nothing.
    fn prefetch(&self, _h: u64) {}
}

impl SeenHashes for HashSet<u64> {
    fn contains(&self, h: u64) -> Result<bool, DedupError> {
        Ok(HashSet::contains(self, &h))
    }
}

/// The result of [`Onion::filter`] for one document.
#[derive(Debug, Clone, PartialEq)]
pub struct DedupOutcome {
    /// The paragraphs that are not duplicates, in their original order.
    pub kept: Vec<Paragraph>,
    /// How many paragraphs were dropped as duplicates.
    pub dropped: usize,
    /// One flag per input paragraph: kept (true) or dropped.
    pub kept_mask: Vec<bool>,
    /// The distinct hashes of the kept paragraphs that were not in the store, in first-seen
    /// order: the crawler commits them with the record.
    pub new_hashes: Vec<u64>,
}

/// How many n-gram hashes ahead [`Onion::filter_with`] prefetches the seen set's slots: enough
/// to overlap the cache misses of a large in-memory set, few enough that the lines are still
/// in L1 when they are read.
pub const PREFETCH_AHEAD: usize = 16;

/// The working memory of [`Onion::filter_with`]: the shingler and the per-document hash sets,
/// kept by the caller (one per thread) so that a document allocates nothing new.
#[derive(Debug, Default)]
pub struct OnionScratch {
    shingler: Shingler,
    in_store: HashValueSet,
    in_doc: HashValueSet,
    /// The document's hashes, paragraph after paragraph.
    hashes: Vec<u64>,
    /// End of each paragraph's hashes in `hashes`.
    ends: Vec<usize>,
}

impl OnionScratch {
    /// Sets above this many slots are given back after their document (one huge page does
    /// not make every later clear slow).
    const KEEP_CAPACITY: usize = 1 << 16;

    fn start_document(&mut self) {
        self.hashes.clear();
        self.ends.clear();
        for set in [&mut self.in_store, &mut self.in_doc] {
            if set.capacity() > Self::KEEP_CAPACITY {
                *set = HashValueSet::default();
            } else {
                set.clear();
            }
        }
    }
}

/// The Onion deduplicator. Cheap to share: it holds only its parameters.
#[derive(Debug, Clone, Default)]
pub struct Onion {
    params: OnionParams,
}

impl Onion {
    /// A deduplicator with validated parameters; [`DedupError::InvalidParams`] otherwise.
    pub fn new(params: OnionParams) -> Result<Self, DedupError> {
        params.validate()?;
        Ok(Onion { params })
    }

    /// The parameters in use.
    pub fn params(&self) -> &OnionParams {
        &self.params
    }

    /// The n-gram hashes of one text with this deduplicator's `n`. A non-empty text without
    /// word characters ("...", "—") gives one hash of its whitespace-collapsed self, so that
    /// it too is written once.
    pub fn hashes(&self, text: &str) -> Vec<u64> {
        let hashes = shingle_hashes(text, self.params.n);
        if hashes.is_empty() && !text.trim().is_empty() {
            let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
            return vec![xxhash_rust::xxh3::xxh3_64(format!("\u{1}{collapsed}").as_bytes())];
        }
        hashes
    }

    /// Split `paragraphs` of one document into kept and dropped (Onion, Pomikálek 2011).
    ///
    /// A paragraph is a duplicate when the share of its n-gram hashes (counted with
    /// repeats) that are in `seen` or in an earlier KEPT paragraph of this document exceeds
    /// `threshold`. Dropped paragraphs add nothing to the document's set. A paragraph of
    /// punctuation only is deduplicated as a whole (see [`Onion::hashes`]).
    /// Each distinct hash is looked up in `seen` at most once. Errors: the lookup's.
    pub fn filter(&self, paragraphs: &[Paragraph], seen: &dyn SeenHashes) -> Result<DedupOutcome, DedupError> {
        self.filter_with(&mut OnionScratch::default(), paragraphs, seen)
    }

    /// [`Onion::filter`] with a caller's [`OnionScratch`] (reused across documents: no
    /// allocation per word or per document in the hot loop). The look-ups of a paragraph's
    /// n-grams are prefetched [`PREFETCH_AHEAD`] hashes ahead ([`SeenHashes::prefetch`]).
    pub fn filter_with(
        &self,
        scratch: &mut OnionScratch,
        paragraphs: &[Paragraph],
        seen: &dyn SeenHashes,
    ) -> Result<DedupOutcome, DedupError> {
        // Hashes of this document that were in `seen`, and hashes of its kept paragraphs.
        scratch.start_document();
        let OnionScratch { shingler, in_store, in_doc, hashes, ends } = scratch;
        // 1. Every paragraph's hashes, in one buffer (`ends[i]`: where paragraph i's end).
        for paragraph in paragraphs {
            self.hashes_into(shingler, &paragraph.text, hashes);
            ends.push(hashes.len());
        }
        for &h in hashes.iter().take(PREFETCH_AHEAD) {
            seen.prefetch(h);
        }
        // 2. Paragraph by paragraph: the share seen, then the kept paragraph's hashes join
        //    the document's set.
        let mut outcome = DedupOutcome {
            kept: Vec::new(),
            dropped: 0,
            kept_mask: Vec::with_capacity(paragraphs.len()),
            new_hashes: Vec::new(),
        };
        let mut start = 0;
        for (paragraph, &end) in paragraphs.iter().zip(ends.iter()) {
            let own = &hashes[start..end];
            let mut seen_count = 0usize;
            for (i, &h) in own.iter().enumerate() {
                if let Some(&ahead) = hashes.get(start + i + PREFETCH_AHEAD) {
                    seen.prefetch(ahead);
                }
                if in_doc.contains(&h) || in_store.contains(&h) {
                    seen_count += 1;
                } else if seen.contains(h)? {
                    in_store.insert(h);
                    seen_count += 1;
                }
            }
            start = end;
            let duplicate = !own.is_empty() && seen_count as f64 / own.len() as f64 > self.params.threshold;
            outcome.kept_mask.push(!duplicate);
            if duplicate {
                outcome.dropped += 1;
                continue;
            }
            for &h in own {
                if !in_store.contains(&h) && in_doc.insert(h) {
                    outcome.new_hashes.push(h);
                }
            }
            outcome.kept.push(paragraph.clone());
        }
        Ok(outcome)
    }

    /// Append the hashes of `text` ([`Onion::hashes`]) to `out`.
    fn hashes_into(&self, shingler: &mut Shingler, text: &str, out: &mut Vec<u64>) {
        let before = out.len();
        shingler.hashes_into(text, self.params.n, out);
        if out.len() == before && !text.trim().is_empty() {
            out.extend(self.hashes(text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParagraphKind;

    fn para(text: &str) -> Paragraph {
        Paragraph { kind: ParagraphKind::Paragraph, text: text.to_string() }
    }

    /// 30 distinct words.
    fn thirty_words() -> Vec<String> {
        (0..30).map(|i| format!("word{i}")).collect()
    }

    /// A store holding the hashes of `texts`.
    fn store_of(texts: &[&str]) -> HashSet<u64> {
        texts.iter().flat_map(|t| shingle_hashes(t, 7)).collect()
    }

    #[test]
    fn default_params_are_onions() {
        let p = OnionParams::default();
        assert_eq!(p.n, 7);
        assert_eq!(p.threshold, 0.5);
        let parsed: OnionParams = serde_json::from_str(r#"{"threshold": 0.8}"#).unwrap();
        assert_eq!(parsed.n, 7);
        assert_eq!(parsed.threshold, 0.8);
        assert!(serde_json::from_str::<OnionParams>(r#"{"m": 3}"#).is_err());
        assert!(Onion::new(OnionParams { n: 0, threshold: 0.5 }).is_err());
        assert!(Onion::new(OnionParams { n: 7, threshold: 1.5 }).is_err());
    }

    #[test]
    fn verbatim_repeat_across_documents_is_dropped_first_instance_kept() {
        let onion = Onion::default();
        let text = thirty_words().join(" ");
        let mut store = HashSet::new();
        // First document: kept, and its hashes become new.
        let first = onion.filter(&[para(&text)], &store).unwrap();
        assert_eq!(first.kept.len(), 1);
        assert_eq!(first.dropped, 0);
        assert_eq!(first.new_hashes.len(), 30 - 7 + 1);
        store.extend(first.new_hashes);
        // Second document, same paragraph (different case and punctuation): dropped.
        let again = format!("{}!", text.to_uppercase());
        let second = onion.filter(&[para(&again)], &store).unwrap();
        assert!(second.kept.is_empty());
        assert_eq!(second.dropped, 1);
        assert!(second.new_hashes.is_empty());
    }

    #[test]
    fn punctuation_only_paragraphs_are_written_once() {
        let first = Onion::default().filter(&[para("..."), para("... ")], &HashSet::new()).unwrap();
        assert_eq!(first.kept.len(), 1);
        assert_eq!(first.dropped, 1);
        let store: HashSet<u64> = first.new_hashes.iter().copied().collect();
        assert_eq!(Onion::default().filter(&[para("...")], &store).unwrap().dropped, 1);
    }

    #[test]
    fn near_duplicate_with_one_word_changed_is_dropped() {
        let words = thirty_words();
        let store = store_of(&[&words.join(" ")]);
        let mut changed = words.clone();
        changed[15] = "different".into();
        // 24 7-grams, 7 of them contain the changed word: 17/24 seen > 0.5.
        let out = Onion::default().filter(&[para(&changed.join(" "))], &store).unwrap();
        assert_eq!(out.dropped, 1);
        assert!(out.kept.is_empty());
    }

    #[test]
    fn paragraph_sharing_less_than_half_is_kept() {
        let words = thirty_words();
        // Shares its first 12 words with a stored paragraph: 6 of 24 7-grams seen.
        let mut other: Vec<String> = words[..12].to_vec();
        other.extend((0..18).map(|i| format!("fresh{i}")));
        let store = store_of(&[&words.join(" ")]);
        let out = Onion::default().filter(&[para(&other.join(" "))], &store).unwrap();
        assert_eq!(out.kept.len(), 1);
        assert_eq!(out.dropped, 0);
        // New hashes: the 18 unseen 7-grams only.
        assert_eq!(out.new_hashes.len(), 24 - 6);
        assert!(out.new_hashes.iter().all(|h| !store.contains(h)));
    }

    #[test]
    fn exactly_half_seen_is_kept() {
        // 8 words -> 2 7-grams; one seen = 0.5, not > 0.5.
        let store = store_of(&["a b c d e f g"]);
        let out = Onion::default().filter(&[para("a b c d e f g h")], &store).unwrap();
        assert_eq!(out.kept.len(), 1);
    }

    #[test]
    fn within_document_repeats_are_dropped_and_first_kept() {
        let text = thirty_words().join(" ");
        let paragraphs = vec![
            Paragraph { kind: ParagraphKind::Heading, text: "Breaking news".into() },
            para(&text),
            para("Something else entirely, with enough words to be a paragraph of its own."),
            para(&text),
            para("breaking NEWS"),
        ];
        let out = Onion::default().filter(&paragraphs, &HashSet::new()).unwrap();
        assert_eq!(out.dropped, 2);
        assert_eq!(out.kept.len(), 3);
        assert_eq!(out.kept[0], paragraphs[0]);
        assert_eq!(out.kept[1], paragraphs[1]);
        assert_eq!(out.kept[2], paragraphs[2]);
        // new_hashes are distinct.
        let distinct: HashSet<u64> = out.new_hashes.iter().copied().collect();
        assert_eq!(distinct.len(), out.new_hashes.len());
    }

    #[test]
    fn dropped_paragraphs_do_not_poison_the_document_set() {
        // P1 (base) is stored; P2 = base + 4 new words: 14 of its 18 7-grams seen -> dropped.
        // P3 = the last 8 words of P2: both its 7-grams are P2's unseen ones. Had P2's hashes
        // been added to the document set, P3 would look like a duplicate.
        let base: Vec<String> = (0..20).map(|i| format!("b{i}")).collect();
        let store = store_of(&[&base.join(" ")]);
        let mut p2 = base.clone();
        p2.extend((0..4).map(|i| format!("t{i}")));
        let p3 = p2[16..].join(" ");
        let out = Onion::default().filter(&[para(&p2.join(" ")), para(&p3)], &store).unwrap();
        assert_eq!(out.dropped, 1);
        assert_eq!(out.kept.len(), 1);
        assert_eq!(out.kept[0].text, p3);
        assert_eq!(out.new_hashes, shingle_hashes(&p3, 7));
    }

    struct Failing;
    impl SeenHashes for Failing {
        fn contains(&self, _h: u64) -> Result<bool, DedupError> {
            Err(DedupError::store(std::io::Error::other("disk gone")))
        }
    }

    #[test]
    fn store_errors_propagate() {
        let err = Onion::default().filter(&[para("some words here")], &Failing).unwrap_err();
        assert!(err.to_string().contains("disk gone"));
    }
}
