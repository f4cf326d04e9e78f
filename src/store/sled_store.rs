//! [`SledStore`]: the production [`Store`], one sled 0.34 tree. A [`Batch`] maps onto
//! `sled::Batch` (atomic within one tree, which is why all state shares one tree with key
//! prefixes), and [`Store::flush`] onto `Db::flush` (fsync).
//!
//! The wrapper guards sled's weak spot, a full disk: after a failed write sled's own `Drop`
//! flushes and waits for an I/O buffer that never becomes stable, so the process hangs. Once
//! any operation has failed, [`SledStore`] does not drop the database at all (its memory and
//! threads end with the process); what was committed before the error stays on disk, and
//! the next run recovers from there as after a `kill -9`.

use super::{Batch, Entries, Entry, Store, StoreError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// A [`Store`] in a sled database directory.
pub struct SledStore {
    /// Always `Some` until dropped.
    db: Option<sled::Db>,
    path: PathBuf,
    failed: AtomicBool,
}

/// sled's page cache, bytes. The state's hot keys are the frontier windows and host records
/// read in order; the seen set's random 128-bit keys miss a cache of any affordable size. At
/// 8 MiB a crawl with a million queued URLs holds 30–40 MB less than at 16 MiB for the same
/// CPU time (`scripts/bench-frontier.sh`, docs/figures.md); at 4 MiB its CPU time grows.
const CACHE_BYTES: u64 = 8 * 1024 * 1024;

/// How long [`SledStore::open`] waits for a held lock on the database (the lock of a handle
/// this process just dropped; another process's lock is reported after it).
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// True for the I/O error of a database locked by another handle.
pub(crate) fn io_is_lock(io: &std::io::Error) -> bool {
    io.kind() == std::io::ErrorKind::WouldBlock || io.to_string().contains("acquire lock")
}

impl Drop for SledStore {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            if self.failed.load(Ordering::SeqCst) {
                std::mem::forget(db);
            }
        }
    }
}

impl SledStore {
    /// Open (or create) the store in directory `path`. sled releases its file lock from a
    /// background thread after the last handle is dropped, so a store reopened in the same
    /// process can find the lock still held for a moment: a held lock is tried again every
    /// 10 ms for up to 2 s (`LOCK_WAIT`) before it is reported.
    ///
    /// # Errors
    /// [`StoreError::Sled`] when sled cannot open it (locked by another process, corrupt, I/O).
    pub fn open(path: &Path) -> Result<SledStore, StoreError> {
        let started = std::time::Instant::now();
        loop {
            let opened = sled::Config::new().path(path).mode(sled::Mode::LowSpace).cache_capacity(CACHE_BYTES).open();
            match opened {
                Ok(db) => {
                    return Ok(SledStore { db: Some(db), path: path.to_path_buf(), failed: AtomicBool::new(false) })
                }
                Err(sled::Error::Io(io)) if io_is_lock(&io) && started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(cause) => return Err(StoreError::Sled { path: path.to_path_buf(), cause }),
            }
        }
    }

    fn db(&self) -> &sled::Db {
        self.db.as_ref().expect("the database is open until the store is dropped")
    }

    /// The error of a failed operation; the store is marked failed (see the module doc).
    fn err(&self, cause: sled::Error) -> StoreError {
        self.failed.store(true, Ordering::SeqCst);
        StoreError::Sled { path: self.path.clone(), cause }
    }

    /// True once an operation has failed.
    pub fn has_failed(&self) -> bool {
        self.failed.load(Ordering::SeqCst)
    }

    /// Bytes the database takes on disk.
    pub fn size_on_disk(&self) -> Result<u64, StoreError> {
        self.db().size_on_disk().map_err(|e| self.err(e))
    }
}

impl Store for SledStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.db().get(key).map_err(|e| self.err(e))?.map(|v| v.to_vec()))
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Entries, StoreError> {
        let mut out = Vec::new();
        for item in self.db().scan_prefix(prefix).take(limit) {
            let (k, v) = item.map_err(|e| self.err(e))?;
            out.push((k.to_vec(), v.to_vec()));
        }
        Ok(out)
    }

    fn scan_from(&self, prefix: &[u8], from: &[u8], limit: usize) -> Result<Entries, StoreError> {
        let start = if from > prefix { from } else { prefix };
        let mut out = Vec::new();
        for item in self.db().range(start..) {
            let (k, v) = item.map_err(|e| self.err(e))?;
            if !k.starts_with(prefix) || out.len() >= limit {
                break;
            }
            out.push((k.to_vec(), v.to_vec()));
        }
        Ok(out)
    }

    fn last_at_or_before(&self, prefix: &[u8], key: &[u8]) -> Result<Option<Entry>, StoreError> {
        if key < prefix {
            return Ok(None);
        }
        match self.db().range(prefix..=key).next_back() {
            Some(item) => {
                let (k, v) = item.map_err(|e| self.err(e))?;
                Ok(k.starts_with(prefix).then(|| (k.to_vec(), v.to_vec())))
            }
            None => Ok(None),
        }
    }

    fn count_prefix(&self, prefix: &[u8]) -> Result<usize, StoreError> {
        let mut n = 0;
        for item in self.db().scan_prefix(prefix).keys() {
            item.map_err(|e| self.err(e))?;
            n += 1;
        }
        Ok(n)
    }

    fn apply(&self, batch: Batch) -> Result<(), StoreError> {
        let mut b = sled::Batch::default();
        for (k, v) in batch.ops {
            match v {
                Some(v) => b.insert(k, v),
                None => b.remove(k),
            }
        }
        self.db().apply_batch(b).map_err(|e| self.err(e))
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.db().flush().map(|_| ()).map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store dropped and opened again at once opens (sled may still hold the lock for a
    /// moment); a store whose lock another live handle holds is refused with the lock error
    /// once the wait is over.
    #[test]
    fn a_dropped_store_reopens_and_a_held_lock_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..20 {
            let store = SledStore::open(dir.path()).expect("reopens");
            store.flush().unwrap();
        }
        let held = SledStore::open(dir.path()).unwrap();
        let started = std::time::Instant::now();
        let Err(StoreError::Sled { cause: sled::Error::Io(io), .. }) = SledStore::open(dir.path()) else {
            panic!("a second handle opened a locked database");
        };
        assert!(io_is_lock(&io), "{io}");
        assert!(started.elapsed() >= LOCK_WAIT, "reported after {:?}", started.elapsed());
        drop(held);
    }
}
