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

use seen::HashValueMap;
use std::collections::hash_map::Entry;

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

    /// Set `found[i]` to [`SeenHashes::contains`] of `hashes[i]`, for every `i` (the slices
    /// have one length). The default looks each up in turn, [`PREFETCH_AHEAD`] prefetches
    /// ahead; an in-memory set overrides it with a loop without dynamic calls.
    fn contains_each(&self, hashes: &[u64], found: &mut [bool]) -> Result<(), DedupError> {
        for &h in hashes.iter().take(PREFETCH_AHEAD) {
            self.prefetch(h);
        }
        for (i, (&h, slot)) in hashes.iter().zip(found.iter_mut()).enumerate() {
            if let Some(&ahead) = hashes.get(i + PREFETCH_AHEAD) {
                self.prefetch(ahead);
            }
            *slot = self.contains(h)?;
        }
        Ok(())
    }
}

impl SeenHashes for HashSet<u64> {
    fn contains(&self, h: u64) -> Result<bool, DedupError> {
        Ok(HashSet::contains(self, &h))
    }
}

/// The result of [`Onion::filter`] for one document.
#[derive(Debug, Clone, PartialEq)]
pub struct DedupOutcome {
    /// How many paragraphs were dropped as duplicates.
    pub dropped: usize,
    /// One flag per input paragraph: kept (true) or dropped.
    pub kept_mask: Vec<bool>,
    /// The distinct hashes of the kept paragraphs that were not in the store, in first-seen
    /// order: the crawler commits them with the record.
    pub new_hashes: Vec<u64>,
}

impl DedupOutcome {
    /// How many paragraphs are kept.
    pub fn kept(&self) -> usize {
        self.kept_mask.len() - self.dropped
    }

    /// True when every paragraph is a duplicate (or there were none).
    pub fn all_dropped(&self) -> bool {
        self.kept() == 0
    }

    /// The kept ones of `paragraphs` (the document given to [`Onion::filter`]), in order.
    pub fn keep(&self, paragraphs: Vec<Paragraph>) -> Vec<Paragraph> {
        paragraphs.into_iter().zip(&self.kept_mask).filter(|&(_, &kept)| kept).map(|(p, _)| p).collect()
    }
}

/// How many n-gram hashes ahead [`Onion::filter_with`] prefetches the seen set's slots: enough
/// to overlap the cache misses of a large in-memory set, few enough that the lines are still
/// in L1 when they are read.
pub const PREFETCH_AHEAD: usize = 16;

/// The working memory of [`Onion::filter_with`]: the shingler, the document's hashes and
/// its set of kept hashes, kept by the caller (one per thread) so that a document allocates
/// nothing new.
#[derive(Debug, Default)]
pub struct OnionScratch {
    shingler: Shingler,
    /// Hashes of the document that are not in the seen set, each with the index of the first
    /// paragraph not dropped when it was met that holds it.
    in_doc: HashValueMap<u32>,
    /// The document's hashes, paragraph after paragraph.
    hashes: Vec<u64>,
    /// End of each paragraph's hashes in `hashes`.
    ends: Vec<usize>,
    /// Whether each of `hashes` is in the seen set.
    found: Vec<bool>,
}

impl OnionScratch {
    /// Sets above this many slots are given back after their document (one huge page does
    /// not make every later clear slow).
    const KEEP_CAPACITY: usize = 1 << 16;

    fn start_document(&mut self) {
        self.hashes.clear();
        self.ends.clear();
        self.found.clear();
        if self.in_doc.capacity() > Self::KEEP_CAPACITY {
            self.in_doc = HashValueMap::default();
        } else {
            self.in_doc.clear();
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
    /// Every hash of the document is looked up in `seen` once per occurrence, in one batch
    /// ([`SeenHashes::contains_each`]). Errors: the lookup's.
    pub fn filter(&self, paragraphs: &[Paragraph], seen: &dyn SeenHashes) -> Result<DedupOutcome, DedupError> {
        self.filter_with(&mut OnionScratch::default(), paragraphs, seen)
    }

    /// [`Onion::filter`] with a caller's [`OnionScratch`] (reused across documents: no
    /// allocation per word or per document in the hot loop).
    pub fn filter_with(
        &self,
        scratch: &mut OnionScratch,
        paragraphs: &[Paragraph],
        seen: &dyn SeenHashes,
    ) -> Result<DedupOutcome, DedupError> {
        scratch.start_document();
        let OnionScratch { shingler, in_doc, hashes, ends, found } = scratch;
        // 1. Every paragraph's hashes, in one buffer (`ends[i]`: where paragraph i's end),
        //    and whether each is in `seen`.
        for paragraph in paragraphs {
            self.hashes_into(shingler, &paragraph.text, hashes);
            ends.push(hashes.len());
        }
        found.resize(hashes.len(), false);
        seen.contains_each(hashes, found)?;
        // 2. Paragraph by paragraph: the share seen, then the kept paragraph's hashes that
        //    are not in `seen` join the document's set. `in_doc` maps a hash to the first
        //    paragraph that holds it among those not dropped when it was met: it counts as
        //    seen for a later paragraph when that one was kept, and a dropped one's hashes
        //    are taken over by the next paragraph that holds them.
        let mut outcome =
            DedupOutcome { dropped: 0, kept_mask: Vec::with_capacity(paragraphs.len()), new_hashes: Vec::new() };
        let mut start = 0;
        for (index, &end) in (0u32..).zip(ends.iter()) {
            let (own, own_found) = (&hashes[start..end], &found[start..end]);
            start = end;
            let first_here = outcome.new_hashes.len();
            let mut seen_count = 0usize;
            for (&h, &in_seen) in own.iter().zip(own_found) {
                if in_seen {
                    seen_count += 1;
                    continue;
                }
                match in_doc.entry(h) {
                    Entry::Vacant(slot) => {
                        slot.insert(index);
                        outcome.new_hashes.push(h);
                    }
                    // A repeat within this paragraph.
                    Entry::Occupied(holder) if *holder.get() == index => {}
                    Entry::Occupied(holder) if outcome.kept_mask[*holder.get() as usize] => seen_count += 1,
                    Entry::Occupied(mut holder) => {
                        holder.insert(index);
                        outcome.new_hashes.push(h);
                    }
                }
            }
            let duplicate = !own.is_empty() && seen_count as f64 / own.len() as f64 > self.params.threshold;
            outcome.kept_mask.push(!duplicate);
            if duplicate {
                outcome.dropped += 1;
                outcome.new_hashes.truncate(first_here);
            }
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
        assert_eq!(first.kept(), 1);
        assert_eq!(first.dropped, 0);
        assert_eq!(first.new_hashes.len(), 30 - 7 + 1);
        store.extend(first.new_hashes);
        // Second document, same paragraph (different case and punctuation): dropped.
        let again = format!("{}!", text.to_uppercase());
        let second = onion.filter(&[para(&again)], &store).unwrap();
        assert!(second.all_dropped());
        assert_eq!(second.dropped, 1);
        assert!(second.new_hashes.is_empty());
    }

    #[test]
    fn punctuation_only_paragraphs_are_written_once() {
        let first = Onion::default().filter(&[para("..."), para("... ")], &HashSet::new()).unwrap();
        assert_eq!(first.kept(), 1);
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
        assert!(out.all_dropped());
    }

    #[test]
    fn paragraph_sharing_less_than_half_is_kept() {
        let words = thirty_words();
        // Shares its first 12 words with a stored paragraph: 6 of 24 7-grams seen.
        let mut other: Vec<String> = words[..12].to_vec();
        other.extend((0..18).map(|i| format!("fresh{i}")));
        let store = store_of(&[&words.join(" ")]);
        let out = Onion::default().filter(&[para(&other.join(" "))], &store).unwrap();
        assert_eq!(out.kept(), 1);
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
        assert_eq!(out.kept(), 1);
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
        assert_eq!(out.kept(), 3);
        assert_eq!(out.keep(paragraphs.clone()), paragraphs[..3]);
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
        assert_eq!(out.kept(), 1);
        assert_eq!(out.keep(vec![para(&p2.join(" ")), para(&p3)])[0].text, p3);
        assert_eq!(out.new_hashes, shingle_hashes(&p3, 7));
    }

    /// Onion as the paper states it, one hash at a time with plain sets: the reference for
    /// [`Onion::filter_with`]'s batch look-ups and paragraph-tagged document set.
    fn reference_filter(paragraphs: &[Paragraph], store: &HashSet<u64>) -> (Vec<bool>, Vec<u64>) {
        let onion = Onion::default();
        let (mut in_doc, mut mask, mut new) = (HashSet::new(), Vec::new(), Vec::new());
        for p in paragraphs {
            let own = onion.hashes(&p.text);
            let seen = own.iter().filter(|h| store.contains(h) || in_doc.contains(*h)).count();
            let duplicate = !own.is_empty() && seen as f64 / own.len() as f64 > 0.5;
            mask.push(!duplicate);
            if !duplicate {
                for h in own {
                    if !store.contains(&h) && in_doc.insert(h) {
                        new.push(h);
                    }
                }
            }
        }
        (mask, new)
    }

    /// Random documents of repeated phrases and random words (so paragraphs share and repeat
    /// n-grams within themselves, across paragraphs and with the store): the same kept
    /// paragraphs and the same new hashes, in the same order, as the reference.
    #[test]
    fn agrees_with_the_plain_algorithm_on_random_documents() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let phrases: Vec<String> =
            (0..8).map(|i| (0..3 + next(8)).map(|j| format!("p{i}w{j}")).collect::<Vec<_>>().join(" ")).collect();
        let onion = Onion::default();
        let mut scratch = OnionScratch::default();
        let mut store = HashSet::new();
        let (mut kept, mut dropped) = (0, 0);
        for _ in 0..400 {
            // A paragraph: one to three phrases of a pool of 8 (of 3 to 10 words), or a few
            // random words, so whole phrases repeat and their junctions are new n-grams.
            let paragraphs: Vec<Paragraph> = (0..1 + next(12))
                .map(|_| {
                    let text = if next(4) == 0 {
                        (0..1 + next(9)).map(|_| format!("w{}", next(12))).collect::<Vec<_>>().join(" ")
                    } else {
                        (0..1 + next(3)).map(|_| phrases[next(8) as usize].as_str()).collect::<Vec<_>>().join(" ")
                    };
                    para(&text)
                })
                .collect();
            let out = onion.filter_with(&mut scratch, &paragraphs, &store).unwrap();
            let (mask, new) = reference_filter(&paragraphs, &store);
            assert_eq!((&out.kept_mask, &out.new_hashes), (&mask, &new), "{paragraphs:?}");
            kept += out.kept();
            dropped += out.dropped;
            // Most documents start from an empty store, so that their own repeats decide.
            if next(8) == 0 {
                store.extend(out.new_hashes);
            } else if next(2) == 0 {
                store.clear();
            }
        }
        assert!(kept > 300 && dropped > 300, "both outcomes are exercised: {kept} kept, {dropped} dropped");
    }

    /// An n-gram first met in a dropped paragraph belongs to the next kept paragraph that holds
    /// it: new once, and seen by the paragraphs after that one.
    #[test]
    fn a_kept_paragraph_takes_over_the_new_ngrams_of_a_dropped_one() {
        let paragraphs = [
            para("a b c d e f g h i j"),
            para("a b c d e f g h i j k"),
            para("e f g h i j k l m n o p q r s"),
            para("e f g h i j k"),
        ];
        let out = Onion::default().filter(&paragraphs, &HashSet::new()).unwrap();
        assert_eq!(out.kept_mask, [true, false, true, false]);
        let expected: Vec<u64> =
            [&paragraphs[0], &paragraphs[2]].iter().flat_map(|p| shingle_hashes(&p.text, 7)).collect();
        assert_eq!(out.new_hashes, expected);
        assert_eq!(reference_filter(&paragraphs, &HashSet::new()), (out.kept_mask, out.new_hashes));
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
