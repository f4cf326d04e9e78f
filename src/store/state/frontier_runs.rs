//! Frontier runs: a host's queued URLs stored a run at a time, not one key per URL.
//!
//! A run is up to [`RUN_MAX`] [`FrontierEntry`]s of one host, in sequence order, stored under
//! `f/<host>\0<seq of its first entry>` as a JSON array. The URLs a page adds to its host's
//! queue become one or a few store writes instead of one each: a hub page of 5,000 links is
//! 79 writes, so sled's tree does not grow (and copy) a node per URL. A URL's page is done
//! when its entry is taken out of its run: [`CrawlState::commit`] reads each run a batch
//! pops from, removes the entries and writes the run back (or deletes it when empty), all in
//! the batch. A value that is a single JSON object is a run of one entry (state format 2
//! stored one entry per key).
//!
//! Runs of one host never overlap in sequence numbers: a host's pushes are committed in the
//! order their numbers were drawn (one committer), so the run holding `seq` is the one with
//! the greatest first number at most `seq`.

use super::{decode, encode, host_key, seq_key, CrawlState, FrontierEntry};
use crate::store::{Batch, Store, StoreError};
use std::collections::{BTreeMap, HashMap};

/// Entries per run, at most. A page's batch rewrites each run it pops from, so a run's size
/// bounds that write (about 8 KB); a flood of links costs one write per run.
pub(super) const RUN_MAX: usize = 64;

/// The frontier entries of one batch, grouped into runs per host, and its pops.
#[derive(Debug, Default)]
pub(super) struct PendingFrontier {
    /// Runs in the order they were opened: host and entries.
    runs: Vec<(String, Vec<FrontierEntry>)>,
    /// Per host, the index in `runs` of its open run.
    open: HashMap<String, usize>,
    /// Entries taken off the frontier: host and sequence number.
    pops: Vec<(String, u64)>,
    /// Entries pushed, in all.
    pushed: usize,
    /// Bytes of the pushed URLs.
    url_bytes: usize,
}

impl PendingFrontier {
    /// Append `entry` (its `seq` drawn) to `host`'s open run, or open one.
    pub(super) fn push(&mut self, host: &str, entry: FrontierEntry) {
        self.pushed += 1;
        self.url_bytes += entry.url.len();
        if let Some(&i) = self.open.get(host) {
            if self.runs[i].1.len() < RUN_MAX {
                self.runs[i].1.push(entry);
                return;
            }
        }
        self.open.insert(host.to_string(), self.runs.len());
        self.runs.push((host.to_string(), vec![entry]));
    }

    /// Take entry `seq` of `host` off the frontier when the batch commits.
    pub(super) fn pop(&mut self, host: &str, seq: u64) {
        self.pops.push((host.to_string(), seq));
    }

    /// Writes this part of the batch stands for, as one entry per URL pushed and one per pop
    /// (what the committer's batch bound counts).
    pub(super) fn len(&self) -> usize {
        self.pushed + self.pops.len()
    }

    /// Bytes it stands for, about (the URLs and 40 bytes of fields per entry, 40 per pop).
    pub(super) fn bytes(&self) -> usize {
        self.url_bytes + 40 * (self.pushed + self.pops.len())
    }

    /// True when nothing was pushed or popped.
    pub(super) fn is_empty(&self) -> bool {
        self.pushed == 0 && self.pops.is_empty()
    }

    /// Turn the pushes and pops into `batch`'s writes: pops of entries pushed in this batch
    /// drop them from their run; every other pop rewrites (or deletes) its stored run.
    ///
    /// # Errors
    /// Store errors; [`StoreError::Corrupt`] for a stored run that does not decode.
    pub(super) fn write(self, store: &dyn Store, batch: &mut Batch) -> Result<(), StoreError> {
        let PendingFrontier { mut runs, pops, .. } = self;
        let mut stored: BTreeMap<Vec<u8>, Vec<FrontierEntry>> = BTreeMap::new();
        for (host, seq) in pops {
            let own = runs.iter_mut().find(|(h, run)| *h == host && run.iter().any(|e| e.seq == seq));
            if let Some((_, run)) = own {
                run.retain(|e| e.seq != seq);
                continue;
            }
            let prefix = host_key("f/", &host);
            let key = seq_key("f/", &host, seq);
            let cached = stored
                .range(prefix.clone()..=key.clone())
                .next_back()
                .filter(|(_, run)| run.iter().any(|e| e.seq == seq))
                .map(|(k, _)| k.clone());
            let run_key = match cached {
                Some(k) => Some(k),
                None => match store.last_at_or_before(&prefix, &key)? {
                    Some((k, v)) => {
                        if !stored.contains_key(&k) {
                            stored.insert(k.clone(), decode_run(&k, &v)?);
                        }
                        Some(k)
                    }
                    None => None,
                },
            };
            // A pop of an entry that is not stored (already popped) writes nothing.
            if let Some(run) = run_key.and_then(|k| stored.get_mut(&k)) {
                run.retain(|e| e.seq != seq);
            }
        }
        for (key, run) in stored {
            if run.is_empty() {
                batch.delete(key);
            } else {
                batch.put(key, encode(&run));
            }
        }
        for (host, run) in runs {
            if let Some(first) = run.first() {
                batch.put(seq_key("f/", &host, first.seq), encode(&run));
            }
        }
        Ok(())
    }
}

/// The entries of the run stored under `key` (a JSON array, or a single entry).
///
/// # Errors
/// [`StoreError::Corrupt`] when `value` is neither.
pub(super) fn decode_run(key: &[u8], value: &[u8]) -> Result<Vec<FrontierEntry>, StoreError> {
    if value.first() == Some(&b'{') {
        return Ok(vec![decode(key, value)?]);
    }
    decode(key, value)
}

/// Number of entries in the run stored under `key`, without building them.
fn run_len(key: &[u8], value: &[u8]) -> Result<usize, StoreError> {
    if value.first() == Some(&b'{') {
        return Ok(1);
    }
    Ok(decode::<Vec<serde::de::IgnoredAny>>(key, value)?.len())
}

/// Runs read per store scan, at most.
const SCAN_RUNS: usize = 16;

impl CrawlState {
    /// Number of queued URLs under key prefix `prefix` (`f/` or one host's), runs read
    /// [`SCAN_RUNS`] at a time.
    pub(super) fn count_frontier(&self, prefix: &[u8]) -> Result<usize, StoreError> {
        let mut n = 0;
        let mut from = prefix.to_vec();
        loop {
            let runs = self.store.scan_from(prefix, &from, SCAN_RUNS)?;
            let Some((last, _)) = runs.last() else { return Ok(n) };
            from = last.clone();
            from.push(0);
            for (k, v) in &runs {
                n += run_len(k, v)?;
            }
        }
    }

    /// Up to `limit` entries of `host` with a sequence number of at least `from`, in order:
    /// the run that may hold `from`, then the runs after it.
    pub(super) fn read_frontier(&self, host: &str, from: u64, limit: usize) -> Result<Vec<FrontierEntry>, StoreError> {
        let prefix = host_key("f/", host);
        let start = seq_key("f/", host, from);
        let mut out = Vec::new();
        let mut after = start.clone();
        after.push(0);
        if let Some((k, v)) = self.store.last_at_or_before(&prefix, &start)? {
            out.extend(decode_run(&k, &v)?.into_iter().filter(|e| e.seq >= from));
        }
        // One run first, then twice as many each time: a window of a few entries decodes
        // one or two runs, a long read few scans.
        let mut scan = 1;
        while out.len() < limit {
            let runs = self.store.scan_from(&prefix, &after, scan)?;
            scan = (scan * 2).min(SCAN_RUNS);
            let Some((last, _)) = runs.last() else { break };
            after = last.clone();
            after.push(0);
            for (k, v) in &runs {
                out.extend(decode_run(k, v)?);
            }
        }
        out.truncate(limit);
        Ok(out)
    }
}
