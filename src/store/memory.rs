//! [`MemoryStore`]: the in-memory twin of the sled store, for unit tests (a `BTreeMap` behind
//! a mutex, same ordering and batch semantics).

use super::{Batch, Entries, Entry, Store, StoreError};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// An in-memory [`Store`]. Nothing survives the process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
    largest_batch: std::sync::atomic::AtomicUsize,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// The most writes one applied batch held (tests bound the committer's batches with it).
    pub fn largest_batch(&self) -> usize {
        self.largest_batch.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<Vec<u8>, Vec<u8>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Store for MemoryStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.map().get(key).cloned())
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Entries, StoreError> {
        Ok(self
            .map()
            .range(prefix.to_vec()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(limit)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn scan_from(&self, prefix: &[u8], from: &[u8], limit: usize) -> Result<Entries, StoreError> {
        let start = if from > prefix { from } else { prefix };
        Ok(self
            .map()
            .range(start.to_vec()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(limit)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn last_at_or_before(&self, prefix: &[u8], key: &[u8]) -> Result<Option<Entry>, StoreError> {
        if key < prefix {
            return Ok(None);
        }
        let map = self.map();
        let last = map.range(prefix.to_vec()..=key.to_vec()).next_back();
        Ok(last.filter(|(k, _)| k.starts_with(prefix)).map(|(k, v)| (k.clone(), v.clone())))
    }

    fn count_prefix(&self, prefix: &[u8]) -> Result<usize, StoreError> {
        Ok(self.map().range(prefix.to_vec()..).take_while(|(k, _)| k.starts_with(prefix)).count())
    }

    fn apply(&self, batch: Batch) -> Result<(), StoreError> {
        self.largest_batch.fetch_max(batch.len(), std::sync::atomic::Ordering::Relaxed);
        let mut map = self.map();
        for (k, v) in batch.ops {
            match v {
                Some(v) => {
                    map.insert(k, v);
                }
                None => {
                    map.remove(&k);
                }
            }
        }
        Ok(())
    }

    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }
}
