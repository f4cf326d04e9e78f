//! [`MemoryWriter`]: the in-memory twin of the corpus file writer, for tests of the crawl's
//! single writer without a file system. It renders records exactly as the file writer does,
//! so its offsets are the bytes a corpus file would hold; what [`CorpusWriter::sync`] made
//! "durable" is readable through the shared [`MemoryCorpus`] handle.

use super::{CorpusFormat, CorpusWriter, WriteError};
use crate::model::Record;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The synced bytes of a [`MemoryWriter`], shared with whoever reads them back.
#[derive(Debug, Clone, Default)]
pub struct MemoryCorpus(Arc<Mutex<Vec<u8>>>);

impl MemoryCorpus {
    /// The synced bytes: the corpus file's content as it would be on disk.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The synced records of a JSONL corpus, in order.
    ///
    /// # Errors
    /// A line that is not a record (another format), with its message.
    pub fn jsonl_records(&self) -> Result<Vec<Record>, String> {
        let bytes = self.bytes();
        String::from_utf8_lossy(&bytes).lines().map(|l| Record::from_json(l).map_err(|e| e.to_string())).collect()
    }
}

/// A [`CorpusWriter`] that keeps the corpus in memory.
#[derive(Debug)]
pub struct MemoryWriter {
    format: CorpusFormat,
    path: PathBuf,
    synced: MemoryCorpus,
    buf: Vec<u8>,
}

impl MemoryWriter {
    /// An empty corpus of `format`, and the handle that reads back what is synced.
    pub fn new(format: CorpusFormat) -> (MemoryWriter, MemoryCorpus) {
        let synced = MemoryCorpus::default();
        let path = PathBuf::from(format!("(memory)/{}", format.file_name()));
        (MemoryWriter { format, path, synced: synced.clone(), buf: Vec::new() }, synced)
    }

    fn synced_len(&self) -> u64 {
        self.synced.0.lock().unwrap_or_else(|e| e.into_inner()).len() as u64
    }
}

impl CorpusWriter for MemoryWriter {
    fn append(&mut self, r: &Record) -> Result<u64, WriteError> {
        self.format.render_buffered(r, &mut self.buf, &self.path)?;
        Ok(self.offset())
    }

    fn sync(&mut self) -> Result<u64, WriteError> {
        let mut synced = self.synced.0.lock().unwrap_or_else(|e| e.into_inner());
        synced.append(&mut self.buf);
        Ok(synced.len() as u64)
    }

    fn offset(&self) -> u64 {
        self.synced_len() + self.buf.len() as u64
    }

    fn path(&self) -> &Path {
        &self.path
    }
}
