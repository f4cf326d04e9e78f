//! [`SeenSet`]: Onion's set of n-gram hashes already written, held in memory. Two forms
//! (the `[dedup] mode` key):
//!
//! - **exact**: a [`HashTable`] of the 64-bit xxh3 values (10.7 to 21.3 bytes per distinct
//!   n-gram with the table's load factor); no false positives;
//! - **bloom**: a Bloom filter (Bloom 1970) sized for `bloom_capacity` n-grams at
//!   `bloom_fp_rate`: `m = −n·ln p / ln²2` bits and `k = round(log2(1/p))` probes by double
//!   hashing (Kirsch & Mitzenmacher 2006). At p = 1e-4 that is 19.2 bits = 2.4 bytes per
//!   n-gram, dolma's choice at web scale. A false positive counts a new n-gram as seen, so a
//!   paragraph can be dropped that the exact set keeps; the share of such n-grams is at most
//!   `bloom_fp_rate` while the filter holds at most `bloom_capacity` n-grams.
//! - **auto** (the default): exact until it holds `exact_max_ngrams`, then every hash moves
//!   into a Bloom filter of `bloom_capacity` and the set is freed.
//!
//! Persistence is not here: the crawl logs every new hash ([`super::log::HashLog`]) in the
//! same group commit as the records that introduced it, and rebuilds the set from the log.

use super::table::{prefetch, HashTable};
use super::{DedupError, SeenHashes};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// How the seen n-grams are held, the `[dedup] mode` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeenMode {
    /// Exact below `exact_max_ngrams`, then a Bloom filter.
    #[default]
    Auto,
    /// Always a hash set.
    Exact,
    /// Always a Bloom filter.
    Bloom,
}

/// The sizing of a [`SeenSet`] (keys of `[dedup]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeenParams {
    /// The form.
    pub mode: SeenMode,
    /// `auto`: distinct n-grams held exactly before switching to the Bloom filter.
    pub exact_max_ngrams: u64,
    /// Bloom filter capacity, distinct n-grams.
    pub bloom_capacity: u64,
    /// Bloom filter false-positive rate at capacity (0 < p < 1).
    pub bloom_fp_rate: f64,
}

/// The values are already xxh3 hashes: the table uses them as they are.
#[derive(Default, Clone, Copy)]
pub struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
}

/// A `HashMap` keyed by hash values, hashed by identity.
pub type HashValueMap<V> = HashMap<u64, V, BuildHasherDefault<IdentityHasher>>;

/// A Bloom filter over 64-bit hash values.
#[derive(Debug, Clone)]
pub struct Bloom {
    bits: Vec<u64>,
    /// Number of bits, `bits.len() * 64`.
    m: u64,
    /// Probes per value.
    k: u32,
}

impl Bloom {
    /// A filter for `capacity` values at false-positive rate `fp_rate` (see the module doc).
    pub fn new(capacity: u64, fp_rate: f64) -> Bloom {
        let ln2 = std::f64::consts::LN_2;
        let m = (-(capacity.max(1) as f64) * fp_rate.ln() / (ln2 * ln2)).ceil().max(64.0) as u64;
        let words = m.div_ceil(64);
        let k = (-fp_rate.log2()).round().clamp(1.0, 30.0) as u32;
        Bloom { bits: vec![0; words as usize], m: words * 64, k }
    }

    /// Bytes of the bit array.
    pub fn bytes(&self) -> usize {
        self.bits.len() * 8
    }

    /// Probes per value.
    pub fn probes(&self) -> u32 {
        self.k
    }

    /// Probe `i` of value `h`: double hashing; the second hash is a remix of the first (an
    /// xxh3 value already), odd so that it cycles through every bit.
    fn position(m: u64, h: u64, i: u64) -> u64 {
        let h2 = (h ^ (h >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) | 1;
        h.wrapping_add(i.wrapping_mul(h2)) % m
    }

    fn positions(&self, h: u64) -> impl Iterator<Item = u64> + '_ {
        (0..u64::from(self.k)).map(move |i| Bloom::position(self.m, h, i))
    }

    /// Add `h`; true when it was (probably) absent.
    pub fn insert(&mut self, h: u64) -> bool {
        let mut new = false;
        for i in 0..u64::from(self.k) {
            let p = Bloom::position(self.m, h, i);
            let (w, b) = ((p / 64) as usize, p % 64);
            new |= self.bits[w] & (1 << b) == 0;
            self.bits[w] |= 1 << b;
        }
        new
    }

    /// True when `h` was (probably) inserted.
    pub fn contains(&self, h: u64) -> bool {
        self.positions(h).all(|p| self.bits[(p / 64) as usize] & (1 << (p % 64)) != 0)
    }

    /// Hint the CPU to load the words that `h`'s probes read; no effect on the filter.
    pub fn prefetch(&self, h: u64) {
        for p in self.positions(h) {
            prefetch(&self.bits[(p / 64) as usize]);
        }
    }
}

/// The in-memory seen n-gram set of a crawl or a `dedup` run.
#[derive(Debug, Clone)]
pub enum SeenSet {
    /// Exact hash set; `limit` is where `auto` switches (`None`: never).
    Exact {
        /// The hashes.
        set: HashTable,
        /// The size at which to move to a Bloom filter.
        limit: Option<u64>,
        /// The filter to move to.
        params: SeenParams,
    },
    /// A Bloom filter and the number of values inserted.
    Bloom {
        /// The filter.
        filter: Bloom,
        /// Values inserted that were absent.
        len: u64,
    },
}

impl SeenSet {
    /// An empty set of the configured form.
    pub fn new(params: SeenParams) -> SeenSet {
        match params.mode {
            SeenMode::Bloom => {
                SeenSet::Bloom { filter: Bloom::new(params.bloom_capacity, params.bloom_fp_rate), len: 0 }
            }
            SeenMode::Exact => SeenSet::Exact { set: HashTable::default(), limit: None, params },
            SeenMode::Auto => {
                SeenSet::Exact { set: HashTable::default(), limit: Some(params.exact_max_ngrams), params }
            }
        }
    }

    /// Add `h`; true when it was absent (probably absent, for the Bloom filter).
    pub fn insert(&mut self, h: u64) -> bool {
        let new = match self {
            SeenSet::Exact { set, .. } => set.insert(h),
            SeenSet::Bloom { filter, len } => {
                let new = filter.insert(h);
                *len += u64::from(new);
                new
            }
        };
        self.switch_when_full();
        new
    }

    /// Add every hash of `hashes`, prefetching [`super::PREFETCH_AHEAD`] ahead (a crawl adds
    /// a document's new n-grams at once). `auto` moves to the Bloom filter after the batch
    /// that fills the exact set.
    pub fn insert_all(&mut self, hashes: &[u64]) {
        match self {
            SeenSet::Exact { set, .. } => insert_each(
                hashes,
                set,
                |set, h| set.prefetch(h),
                |set, h| {
                    set.insert(h);
                },
            ),
            SeenSet::Bloom { filter, len } => {
                insert_each(
                    hashes,
                    filter,
                    |filter, h| filter.prefetch(h),
                    |filter, h| {
                        *len += u64::from(filter.insert(h));
                    },
                );
            }
        }
        self.switch_when_full();
    }

    /// `auto`: past `exact_max_ngrams`, move every hash into a Bloom filter and free the
    /// exact set.
    fn switch_when_full(&mut self) {
        if let SeenSet::Exact { set, limit: Some(limit), params } = self {
            if set.len() as u64 > *limit {
                let mut filter = Bloom::new(params.bloom_capacity, params.bloom_fp_rate);
                for v in set.iter() {
                    filter.insert(v);
                }
                tracing::info!(ngrams = set.len(), "dedup: exact n-gram set full, moved to a Bloom filter");
                *self = SeenSet::Bloom { filter, len: set.len() as u64 };
            }
        }
    }

    /// True when `h` was inserted (or is a Bloom false positive).
    pub fn contains(&self, h: u64) -> bool {
        match self {
            SeenSet::Exact { set, .. } => set.contains(h),
            SeenSet::Bloom { filter, .. } => filter.contains(h),
        }
    }

    /// Hint the CPU to load what looking up `h` reads (see [`HashTable::prefetch`]).
    pub fn prefetch(&self, h: u64) {
        match self {
            SeenSet::Exact { set, .. } => set.prefetch(h),
            SeenSet::Bloom { filter, .. } => filter.prefetch(h),
        }
    }

    /// Distinct values inserted.
    pub fn len(&self) -> u64 {
        match self {
            SeenSet::Exact { set, .. } => set.len() as u64,
            SeenSet::Bloom { len, .. } => *len,
        }
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// "exact" or "bloom".
    pub fn form(&self) -> &'static str {
        match self {
            SeenSet::Exact { .. } => "exact",
            SeenSet::Bloom { .. } => "bloom",
        }
    }
}

impl SeenHashes for SeenSet {
    fn contains(&self, h: u64) -> Result<bool, DedupError> {
        Ok(SeenSet::contains(self, h))
    }

    fn prefetch(&self, h: u64) {
        SeenSet::prefetch(self, h);
    }

    fn contains_each(&self, hashes: &[u64], found: &mut [bool]) -> Result<(), DedupError> {
        match self {
            SeenSet::Exact { set, .. } => look_up_each(hashes, found, |h| set.prefetch(h), |h| set.contains(h)),
            SeenSet::Bloom { filter, .. } => {
                look_up_each(hashes, found, |h| filter.prefetch(h), |h| filter.contains(h))
            }
        }
        Ok(())
    }
}

/// `insert(set, h)` for each of `hashes`, prefetching [`super::PREFETCH_AHEAD`] ahead: the
/// loop of [`SeenSet::insert_all`] for one concrete set.
fn insert_each<S>(hashes: &[u64], set: &mut S, prefetch: impl Fn(&S, u64), mut insert: impl FnMut(&mut S, u64)) {
    for (i, &h) in hashes.iter().enumerate() {
        if let Some(&ahead) = hashes.get(i + super::PREFETCH_AHEAD) {
            prefetch(set, ahead);
        }
        insert(set, h);
    }
}

/// `found[i] = contains(hashes[i])`, prefetching [`super::PREFETCH_AHEAD`] ahead: the loop of
/// [`SeenHashes::contains_each`] for one concrete set.
fn look_up_each(hashes: &[u64], found: &mut [bool], prefetch: impl Fn(u64), contains: impl Fn(u64) -> bool) {
    for &h in hashes.iter().take(super::PREFETCH_AHEAD) {
        prefetch(h);
    }
    for (i, (&h, slot)) in hashes.iter().zip(found.iter_mut()).enumerate() {
        if let Some(&ahead) = hashes.get(i + super::PREFETCH_AHEAD) {
            prefetch(ahead);
        }
        *slot = contains(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(mode: SeenMode) -> SeenParams {
        SeenParams { mode, exact_max_ngrams: 1000, bloom_capacity: 100_000, bloom_fp_rate: 1e-4 }
    }

    /// At capacity, the measured false-positive rate stays near the configured one, and the
    /// filter takes at most 3 bytes per n-gram at 1e-4.
    #[test]
    fn bloom_false_positive_rate_and_size_at_capacity() {
        let mut b = Bloom::new(100_000, 1e-4);
        let value = |i: u64| xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes());
        for i in 0..100_000 {
            b.insert(value(i));
        }
        assert!((0..100_000).all(|i| b.contains(value(i))), "no false negatives");
        let fp = (100_000..1_100_000).filter(|&i| b.contains(value(i))).count() as f64 / 1e6;
        assert!(fp < 3e-4, "false-positive rate {fp}");
        assert!(b.bytes() as f64 / 100_000.0 <= 3.0, "{} bytes per n-gram", b.bytes() as f64 / 1e5);
    }

    /// `auto` moves to the Bloom filter past `exact_max_ngrams` and keeps every value.
    #[test]
    fn auto_switches_to_bloom_and_keeps_what_it_held() {
        let mut s = SeenSet::new(params(SeenMode::Auto));
        for i in 0..1500u64 {
            s.insert(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        assert_eq!(s.form(), "bloom");
        assert!((0..1500u64).all(|i| s.contains(i.wrapping_mul(0x9E37_79B9_7F4A_7C15))));
        assert!((1500..1600u64).all(|i| s.len() >= 1500 && s.len() <= 1600 + i));
        let mut e = SeenSet::new(params(SeenMode::Exact));
        assert!(e.insert(5) && !e.insert(5) && e.contains(5) && !e.contains(6));
        assert_eq!(e.form(), "exact");
    }
}
