//! Crawl state. The principal trait is [`Store`]: a small ordered key-value store with atomic
//! batches, implemented by [`SledStore`] (production, the user's choice of sled 0.34) and
//! [`MemoryStore`] (tests). [`CrawlState`] is the typed layer on top: the frontier, seen URLs,
//! host records, sampled pages, domain models, Onion dedup hashes, the corpus offset and the
//! counters. This module is the only code that knows the key layout.
//!
//! Crash safety (ARCHITECTURE.md): every page ends in exactly one [`Batch`] that removes its
//! frontier entry, adds its links, its dedup hashes and the corpus byte offset after its
//! record; [`Store::apply`] is atomic and [`Store::flush`] makes it durable.

mod memory;
mod sled_store;
pub mod spool;
mod state;

pub use memory::MemoryStore;
pub use sled_store::SledStore;
pub use state::{
    Counters, CrawlState, FetchedPageEntry, FrontierEntry, GiveUp, GivenUp, HostPhase, HostRecord, SampledPage,
    StateBatch, UrlKind, Validators, MODEL_HALVED_LISTED, STATE_VERSION,
};

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The sled database inside a state directory (`<state_dir>/sled`); the directory also holds
/// Onion's hash log (`<state_dir>/onion.log`).
pub fn sled_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("sled")
}

/// Open the crawl state in `state_dir` (created when missing), checking its format version.
///
/// # Errors
/// [`StoreError::Version`] for a state of another layout (a sled database directly in
/// `state_dir` is version 1); [`StoreError::Sled`] when sled cannot open it (locked by a
/// running crawl, corrupt, I/O).
pub fn open_state_dir(state_dir: &Path) -> Result<CrawlState, StoreError> {
    if state_dir.join("conf").exists() && !sled_dir(state_dir).exists() {
        return Err(StoreError::Version { path: state_dir.to_path_buf(), found: 1, expected: STATE_VERSION });
    }
    let store = Arc::new(SledStore::open(&sled_dir(state_dir))?);
    CrawlState::open_at(store, state_dir)
}

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// sled failed (I/O, corruption).
    #[error("state store at {path}: {}", sled_message(.cause))]
    Sled {
        /// The store directory.
        path: PathBuf,
        /// sled's error (in the message; not a `source`, so it is not printed twice).
        cause: sled::Error,
    },
    /// The state was written by another version of webcorpus's state layout.
    #[error("state at {path} has state format version {found}, this webcorpus reads version {expected}; finish that crawl with the webcorpus that started it, or start a new state directory")]
    Version {
        /// The state directory.
        path: PathBuf,
        /// The version found (1: the layout before versions were stored).
        found: u32,
        /// The version this build reads and writes.
        expected: u32,
    },
    /// A host's stored model was learned by a webcorpus of another model format
    /// ([`crate::domain::MODEL_FORMAT_VERSION`]).
    #[error("state store: the model of host {host} has model format version {found}, this webcorpus reads version {expected}; finish that crawl with the webcorpus that started it, or start a new state directory")]
    ModelVersion {
        /// The host whose model it is.
        host: String,
        /// The version found (0: none stored).
        found: u32,
        /// The version this build reads and writes.
        expected: u32,
    },
    /// A waiting-page file of the state ([`spool::Spool`]) could not be written or read.
    #[error("state spool file {path}: {source}")]
    Spool {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The seen log of URLs ([`CrawlState`]'s `seen.log`) could not be read or written.
    #[error(transparent)]
    Log(#[from] crate::dedup::log::HashLogError),
    /// A stored value could not be decoded.
    #[error("state store: bad value under key {key}: {reason}")]
    Corrupt {
        /// The key, printable.
        key: String,
        /// Why it failed to decode.
        reason: String,
    },
}

/// sled's error as a sentence: its `Display` shows an I/O error as a Debug struct
/// (`Os { code: 28, kind: StorageFull, .. }`); the I/O error's own text is used instead.
fn sled_message(e: &sled::Error) -> String {
    match e {
        sled::Error::Io(io) if io.kind() == std::io::ErrorKind::StorageFull => {
            format!("no space left on the device ({io}); free space, then run the same command again")
        }
        sled::Error::Io(io) if sled_store::io_is_lock(io) => {
            "in use by another webcorpus process (a running crawl); wait for it to finish, or stop it".to_string()
        }
        sled::Error::Io(io) => format!("I/O error: {io}"),
        other => other.to_string(),
    }
}

/// Key-value pairs returned by a prefix scan, in key order.
pub type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// One key and its value.
pub type Entry = (Vec<u8>, Vec<u8>);

/// A set of writes applied atomically by [`Store::apply`]: all or none.
#[derive(Debug, Default, Clone)]
pub struct Batch {
    ops: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    bytes: usize,
}

impl Batch {
    /// Set `key` to `value`.
    pub fn put(&mut self, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) {
        let (key, value) = (key.into(), value.into());
        self.bytes += key.len() + value.len();
        self.ops.push((key, Some(value)));
    }
    /// Remove `key`.
    pub fn delete(&mut self, key: impl Into<Vec<u8>>) {
        let key = key.into();
        self.bytes += key.len();
        self.ops.push((key, None));
    }
    /// Bytes of keys and values written, in all.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    /// Number of writes.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// True when there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    /// The writes, in order (a later write to the same key wins).
    pub fn ops(&self) -> &[(Vec<u8>, Option<Vec<u8>>)] {
        &self.ops
    }
}

/// An ordered byte-key store with atomic batches. Keys sort bytewise.
pub trait Store: Send + Sync {
    /// The value under `key`.
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;
    /// Up to `limit` entries whose key starts with `prefix`, in key order.
    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Entries, StoreError>;
    /// Up to `limit` entries whose key starts with `prefix` and is at least `from`, in key
    /// order (a window of a queue, read without scanning its head).
    fn scan_from(&self, prefix: &[u8], from: &[u8], limit: usize) -> Result<Entries, StoreError>;
    /// The entry with the greatest key that starts with `prefix` and is at most `key` (the
    /// frontier run that may hold a sequence number).
    fn last_at_or_before(&self, prefix: &[u8], key: &[u8]) -> Result<Option<Entry>, StoreError>;
    /// Number of keys that start with `prefix` (a scan; for stats, not hot paths).
    fn count_prefix(&self, prefix: &[u8]) -> Result<usize, StoreError>;
    /// Apply all writes of `batch` atomically.
    fn apply(&self, batch: Batch) -> Result<(), StoreError>;
    /// Make every applied batch durable (fsync).
    fn flush(&self) -> Result<(), StoreError>;
}
