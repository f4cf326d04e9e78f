//! [`SeenUrls`]: the crawl's seen set of URLs, held in memory and made durable beside the
//! store, not in it.
//!
//! A URL's identity is 63 bits of its xxh3-128 without the scheme ([`identity`]; 8 bytes per
//! URL in memory, about 18 with the table's load). Random keys are the worst case for sled:
//! each insert lands in another leaf, which sled copies, so a million seen keys cost more CPU
//! and memory than the rest of the crawl state. In a state directory the set is the log
//! `seen.log`: an append-only file of identities (a forgotten URL, [`StateBatch::unmark_seen`],
//! is its identity with the top bit set), appended and synced before the store batch that
//! commits its new length, and cut back to the committed length on open
//! ([`crate::dedup::log::HashLog`], the form of Onion's seen n-grams). In a store without a
//! directory (tests) each identity is a key `u/<identity>`.
//!
//! [`StateBatch::unmark_seen`]: super::StateBatch::unmark_seen

use super::CrawlState;
use crate::dedup::log::HashLog;
use crate::dedup::seen::IdentityHasher;
use crate::store::{Batch, Store, StoreError};
use std::collections::HashSet;
use std::hash::BuildHasherDefault;
use std::path::Path;

/// The top bit of a logged identity: the URL is forgotten.
const FORGET: u64 = 1 << 63;

/// Keys of a store without a directory: `u/` and the identity, big-endian.
const INLINE: &[u8] = b"u/";

/// Keys of the seen set of state format 2: `s/` and the xxh3-128, big-endian.
const FORMAT_2: &[u8] = b"s/";

/// Format-2 keys moved into the log per store batch.
const MIGRATE_BATCH: usize = 8192;

/// The seen-set identity of `url`: the low 63 bits of [`CrawlState::url_identity`].
pub(super) fn identity(url: &str) -> u64 {
    CrawlState::url_identity(url) as u64 & !FORGET
}

/// A change of the seen set: `url` seen, or forgotten.
pub(super) fn mark(url: &str, seen: bool) -> u64 {
    if seen {
        identity(url)
    } else {
        identity(url) | FORGET
    }
}

/// The seen URLs and where they are made durable.
pub(super) struct SeenUrls {
    set: HashSet<u64, BuildHasherDefault<IdentityHasher>>,
    /// `None`: the identities are keys of the store.
    log: Option<HashLog>,
}

impl SeenUrls {
    /// The seen set of a store without a directory, read from its `u/` keys.
    pub(super) fn inline(store: &dyn Store) -> Result<SeenUrls, StoreError> {
        let mut seen = SeenUrls { set: HashSet::default(), log: None };
        let mut from = INLINE.to_vec();
        loop {
            let keys = store.scan_from(INLINE, &from, 4096)?;
            let Some((last, _)) = keys.last() else { return Ok(seen) };
            from = last.clone();
            from.push(0);
            seen.set.extend(keys.iter().filter_map(|(k, _)| Some(u64::from_be_bytes(k.get(2..10)?.try_into().ok()?))));
        }
    }

    /// The seen set of a state directory: the log at `path` cut back to `committed_len`
    /// bytes, then the seen keys of a format-2 store moved into it (each window of keys
    /// deleted in the batch that commits the log's new length, so a crash repeats nothing).
    ///
    /// # Errors
    /// [`StoreError::Log`] when the log is shorter than committed or cannot be read or
    /// written; store errors.
    pub(super) fn with_log(path: &Path, committed_len: u64, store: &dyn Store) -> Result<SeenUrls, StoreError> {
        let mut set = HashSet::default();
        let log = HashLog::open(path, committed_len, |m| change(&mut set, m))?;
        let mut seen = SeenUrls { set, log: Some(log) };
        loop {
            let keys = store.scan_prefix(FORMAT_2, MIGRATE_BATCH)?;
            if keys.is_empty() {
                return Ok(seen);
            }
            let marks: Vec<u64> = keys
                .iter()
                .filter_map(|(k, _)| Some(u128::from_be_bytes(k.get(2..18)?.try_into().ok()?) as u64 & !FORGET))
                .collect();
            let mut batch = Batch::default();
            for (k, _) in keys {
                batch.delete(k);
            }
            seen.persist(&marks, &mut batch)?;
            store.apply(batch)?;
            store.flush()?;
            seen.apply(&marks);
        }
    }

    /// True when the URL of identity `id` is seen.
    pub(super) fn contains(&self, id: u64) -> bool {
        self.set.contains(&id)
    }

    /// Make `marks` durable with `batch`: appended to the log and synced, the log's length
    /// put in `batch`; or, without a log, as keys of `batch`.
    ///
    /// # Errors
    /// [`StoreError::Log`] when the log cannot be written.
    pub(super) fn persist(&mut self, marks: &[u64], batch: &mut Batch) -> Result<(), StoreError> {
        if marks.is_empty() {
            return Ok(());
        }
        match &mut self.log {
            Some(log) => {
                log.append(marks);
                batch.put(super::SEENLOG, log.sync()?.to_be_bytes().to_vec());
            }
            None => {
                for &m in marks {
                    let key = [INLINE, &(m & !FORGET).to_be_bytes()].concat();
                    if m & FORGET == 0 {
                        batch.put(key, Vec::new());
                    } else {
                        batch.delete(key);
                    }
                }
            }
        }
        Ok(())
    }

    /// Apply `marks`, made durable, to the set.
    pub(super) fn apply(&mut self, marks: &[u64]) {
        for &m in marks {
            change(&mut self.set, m);
        }
    }
}

fn change(set: &mut HashSet<u64, BuildHasherDefault<IdentityHasher>>, m: u64) {
    if m & FORGET == 0 {
        set.insert(m);
    } else {
        set.remove(&(m & !FORGET));
    }
}
