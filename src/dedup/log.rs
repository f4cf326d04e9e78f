//! [`HashLog`]: the durable form of Onion's seen set — an append-only file of the new n-gram
//! hashes (8 bytes each, little-endian), in the order their records were written. The crawl
//! appends the hashes of a group of pages, syncs the file, and commits its length in the same
//! store batch as the corpus offset (ARCHITECTURE.md, "Crash safety"); on resume the file is
//! cut back to the committed length and read into the [`super::seen::SeenSet`]. A crash thus
//! never leaves hashes of text that was not written, nor text whose hashes are lost.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Errors of the hash log; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum HashLogError {
    /// A file-system operation failed.
    #[error("hash log {path}: {op}: {source}")]
    Io {
        /// The log file.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is shorter than the committed length: it was deleted or replaced.
    #[error("hash log {path} has {found} bytes but the state committed {expected}; the file was deleted or replaced outside webcorpus (reset the crawl state)")]
    Truncated {
        /// The log file.
        path: PathBuf,
        /// Committed length, bytes.
        expected: u64,
        /// Length found, bytes.
        found: u64,
    },
}

/// The append-only log of new n-gram hashes.
#[derive(Debug)]
pub struct HashLog {
    path: PathBuf,
    /// `None` for [`HashLog::in_memory`].
    file: Option<File>,
    /// Bytes durable in the file.
    synced: u64,
    pending: Vec<u8>,
}

impl HashLog {
    /// Open `path` at `committed_len` bytes (cutting off anything after it) and call `each`
    /// on every committed hash, in order.
    ///
    /// # Errors
    /// [`HashLogError::Truncated`] when the file is shorter than `committed_len`; I/O errors.
    pub fn open(path: &Path, committed_len: u64, mut each: impl FnMut(u64)) -> Result<HashLog, HashLogError> {
        let io = |op: &'static str| {
            let path = path.to_path_buf();
            move |source| HashLogError::Io { path, op, source }
        };
        let file = OpenOptions::new().create(true).read(true).append(true).open(path).map_err(io("open"))?;
        let len = file.metadata().map_err(io("stat"))?.len();
        if len < committed_len {
            return Err(HashLogError::Truncated { path: path.to_path_buf(), expected: committed_len, found: len });
        }
        if len > committed_len {
            file.set_len(committed_len).map_err(io("truncate"))?;
            file.sync_data().map_err(io("sync"))?;
        }
        let mut reader = BufReader::with_capacity(1 << 20, (&file).take(committed_len));
        let mut word = [0u8; 8];
        for _ in 0..committed_len / 8 {
            reader.read_exact(&mut word).map_err(io("read"))?;
            each(u64::from_le_bytes(word));
        }
        Ok(HashLog {
            path: path.to_path_buf(),
            file: Some(file),
            synced: committed_len - committed_len % 8,
            pending: Vec::new(),
        })
    }

    /// An empty log that keeps nothing: its lengths are those a file would have (the
    /// in-memory twin of a crawl's sink, [`crate::crawl::sink::CorpusSink::in_memory`]).
    pub fn in_memory() -> HashLog {
        HashLog { path: PathBuf::from("(memory)"), file: None, synced: 0, pending: Vec::new() }
    }

    /// Queue `hashes` for the next [`HashLog::sync`].
    pub fn append(&mut self, hashes: &[u64]) {
        for h in hashes {
            self.pending.extend_from_slice(&h.to_le_bytes());
        }
    }

    /// Write the queued hashes and make them durable; returns the log's length in bytes, the
    /// value to commit.
    ///
    /// # Errors
    /// I/O errors; the file is cut back to its last synced length, so a retry starts clean.
    pub fn sync(&mut self) -> Result<u64, HashLogError> {
        if self.pending.is_empty() {
            return Ok(self.synced);
        }
        if let Some(file) = &mut self.file {
            let result = file.write_all(&self.pending).and_then(|_| file.sync_data());
            if let Err(source) = result {
                let _ = file.set_len(self.synced);
                return Err(HashLogError::Io { path: self.path.clone(), op: "write", source });
            }
        }
        self.synced += self.pending.len() as u64;
        self.pending.clear();
        Ok(self.synced)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uncommitted hashes are cut off on reopen; committed ones come back in order.
    #[test]
    fn reopen_cuts_back_to_the_committed_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("onion.log");
        let mut log = HashLog::open(&path, 0, |_| panic!("empty")).unwrap();
        log.append(&[1, 2, 3]);
        let committed = log.sync().unwrap();
        log.append(&[4, 5]);
        log.sync().unwrap();
        drop(log);
        let mut back = Vec::new();
        HashLog::open(&path, committed, |h| back.push(h)).unwrap();
        assert_eq!(back, vec![1, 2, 3]);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 24);
        let err = HashLog::open(&path, 80, |_| {}).unwrap_err();
        assert!(matches!(err, HashLogError::Truncated { expected: 80, found: 24, .. }), "{err}");
    }
}
