//! [`CorpusSink`]: everything a crawl writes outside its store — Onion's seen n-gram set and
//! its hash log, the corpus file and the WARC files — behind one owner, so that the
//! committer's crash rule is one call: [`CorpusSink::sync`] makes the group's records, hashes
//! and exchanges durable and returns their ends ([`SinkPosition`]), which go into the group's
//! one store batch ([`SinkPosition::commit_into`]). A crash between the two leaves files
//! longer than the state says; [`CorpusSink::open`] at the committed position cuts them back,
//! and the group's pages are fetched again (ARCHITECTURE.md, "The crawl engine").

use crate::crawl::CrawlError;
use crate::dedup::log::HashLog;
use crate::dedup::{DedupConfig, DedupOutcome, Onion, OnionScratch, SeenSet};
use crate::model::{Paragraph, Record};
use crate::store::StateBatch;
use crate::write::memory::{MemoryCorpus, MemoryWriter};
use crate::write::warc::{HttpExchange, WarcPosition, WarcRef, WarcWriter};
use crate::write::{CorpusFormat, CorpusWriter};
use std::path::Path;

/// The ends of the sink's files after a sync: what a group commits.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkPosition {
    /// Bytes of the corpus file.
    pub corpus_offset: u64,
    /// Its format ([`CorpusFormat::name`]).
    pub format: &'static str,
    /// Bytes of the hash log.
    pub hash_log_len: u64,
    /// The end of the WARC output, once a record was written.
    pub warc: Option<WarcPosition>,
}

impl SinkPosition {
    /// Put the position into the group's store batch.
    pub fn commit_into(&self, batch: &mut StateBatch) {
        batch.set_corpus_offset(self.corpus_offset, self.format);
        batch.set_hash_log_len(self.hash_log_len);
        if let Some(position) = &self.warc {
            batch.set_warc_position(position);
        }
    }
}

/// Onion dedup, the corpus writer, the hash log and the WARC output of one crawl.
pub struct CorpusSink {
    onion: Onion,
    scratch: OnionScratch,
    seen: SeenSet,
    log: HashLog,
    writer: Box<dyn CorpusWriter + Send>,
    warc: Option<WarcWriter>,
    format: CorpusFormat,
}

impl CorpusSink {
    /// Open the sink: `writer` and `warc` already cut back to the committed position, the
    /// hash log at `log_path` cut back to `hash_log_len` bytes and read into the seen set.
    ///
    /// # Errors
    /// Bad `[dedup]` parameters; the hash log's I/O, or a log shorter than committed.
    pub fn open(
        dedup: &DedupConfig,
        format: CorpusFormat,
        writer: Box<dyn CorpusWriter + Send>,
        warc: Option<WarcWriter>,
        log_path: &Path,
        hash_log_len: u64,
    ) -> Result<CorpusSink, CrawlError> {
        let mut seen = SeenSet::new(dedup.seen_params());
        let log = HashLog::open(log_path, hash_log_len, |h| {
            seen.insert(h);
        })?;
        Ok(CorpusSink {
            onion: Onion::new(dedup.onion())?,
            scratch: OnionScratch::default(),
            seen,
            log,
            writer,
            warc,
            format,
        })
    }

    /// The in-memory twin: the same Onion, a corpus of `format` kept in memory
    /// ([`MemoryWriter`]; its synced content through the returned [`MemoryCorpus`]), a hash
    /// log that keeps nothing and no WARC output. Its positions are the lengths the files
    /// would have.
    ///
    /// # Errors
    /// Bad `[dedup]` parameters.
    pub fn in_memory(dedup: &DedupConfig, format: CorpusFormat) -> Result<(CorpusSink, MemoryCorpus), CrawlError> {
        let (writer, corpus) = MemoryWriter::new(format);
        let sink = CorpusSink {
            onion: Onion::new(dedup.onion())?,
            scratch: OnionScratch::default(),
            seen: SeenSet::new(dedup.seen_params()),
            log: HashLog::in_memory(),
            writer: Box::new(writer),
            warc: None,
            format,
        };
        Ok((sink, corpus))
    }

    /// Onion: which of `paragraphs` are new against everything appended so far.
    ///
    /// # Errors
    /// Onion's.
    pub fn dedup(&mut self, paragraphs: &[Paragraph]) -> Result<DedupOutcome, CrawlError> {
        Ok(self.onion.filter_with(&mut self.scratch, paragraphs, &self.seen)?)
    }

    /// Append `record` to the corpus and `new_hashes` (its [`DedupOutcome::new_hashes`]) to
    /// the seen set and the log; durable at the next [`CorpusSink::sync`].
    ///
    /// # Errors
    /// The corpus writer's (the record is then not in the corpus, its hashes not seen).
    pub fn append(&mut self, record: &Record, new_hashes: &[u64]) -> Result<(), CrawlError> {
        self.writer.append(record)?;
        self.seen.insert_all(new_hashes);
        self.log.append(new_hashes);
        Ok(())
    }

    /// Append `exchanges` to the WARC output (when on); returns where the last response is.
    ///
    /// # Errors
    /// The WARC writer's.
    pub fn write_exchanges(&mut self, exchanges: &[HttpExchange]) -> Result<Option<WarcRef>, CrawlError> {
        let Some(warc) = &mut self.warc else { return Ok(None) };
        let mut last = None;
        for exchange in exchanges {
            last = Some(warc.write_exchange(exchange)?);
        }
        Ok(last)
    }

    /// Make everything appended durable — the corpus, then the hash log, then the WARC
    /// output — and return where each ends, for the group's store batch.
    ///
    /// # Errors
    /// The first file that cannot be synced (it is cut back to its last synced length).
    pub fn sync(&mut self) -> Result<SinkPosition, CrawlError> {
        let corpus_offset = self.writer.sync()?;
        let hash_log_len = self.log.sync()?;
        let warc = match &mut self.warc {
            Some(w) => w.sync()?,
            None => None,
        };
        Ok(SinkPosition { corpus_offset, format: self.format.name(), hash_log_len, warc })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParagraphKind;
    use crate::write::open_writer;

    /// A record of `n` whose one paragraph is 20 words of its own (no n-gram shared with
    /// another `n`).
    fn record(n: usize) -> Record {
        let mut r = crate::write::tests::record(n);
        let text = (0..20).map(|i| format!("word{n}x{i}")).collect::<Vec<_>>().join(" ");
        r.paragraphs = vec![Paragraph { kind: ParagraphKind::Paragraph, text }];
        r
    }

    /// The sink of a crawl in `dir` (JSONL, no WARC) opened at `committed`.
    fn open(dir: &Path, committed: Option<&SinkPosition>) -> CorpusSink {
        let (offset, log_len) = committed.map_or((0, 0), |p| (p.corpus_offset, p.hash_log_len));
        let writer = open_writer(CorpusFormat::Jsonl, dir, offset).unwrap();
        let dedup = DedupConfig::default();
        CorpusSink::open(&dedup, CorpusFormat::Jsonl, writer, None, &dir.join("onion.log"), log_len).unwrap()
    }

    /// Dedup record `n` and append it when it has a new paragraph; returns whether it did.
    fn write(sink: &mut CorpusSink, n: usize) -> bool {
        let r = record(n);
        let outcome = sink.dedup(&r.paragraphs).unwrap();
        if outcome.all_dropped() {
            return false;
        }
        sink.append(&r, &outcome.new_hashes).unwrap();
        true
    }

    fn corpus_lines(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join(CorpusFormat::Jsonl.file_name())).unwrap().lines().count()
    }

    #[test]
    fn a_group_is_on_disk_once_synced_and_deduplicated_against_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut sink = open(dir.path(), None);
        assert!(write(&mut sink, 1));
        assert!(!write(&mut sink, 1), "a paragraph appended is seen before the sync");
        assert_eq!(corpus_lines(dir.path()), 0, "nothing written before the sync");
        let position = sink.sync().unwrap();
        assert_eq!(corpus_lines(dir.path()), 1);
        let file_len = std::fs::metadata(dir.path().join("corpus.jsonl")).unwrap().len();
        assert_eq!(position.corpus_offset, file_len);
        assert!(position.hash_log_len > 0 && position.hash_log_len % 8 == 0);
        assert_eq!((position.format, position.warc.as_ref()), ("jsonl", None));
    }

    /// The crash rule: files synced, then one store batch. A crash after a sync but before
    /// its batch leaves the files ahead of the state; reopening at the committed position
    /// cuts the corpus and the seen set back, so the group's pages write again, once.
    #[test]
    fn a_group_synced_but_not_committed_is_cut_back_on_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let mut sink = open(dir.path(), None);
        assert!(write(&mut sink, 1));
        let committed = sink.sync().unwrap();
        assert!(write(&mut sink, 2));
        let lost = sink.sync().unwrap();
        assert!(lost.corpus_offset > committed.corpus_offset && lost.hash_log_len > committed.hash_log_len);
        drop(sink);
        let mut sink = open(dir.path(), Some(&committed));
        assert_eq!(corpus_lines(dir.path()), 1, "record 2 was never committed");
        assert!(!write(&mut sink, 1), "record 1's paragraph is still seen");
        assert!(write(&mut sink, 2), "record 2's paragraph is new again");
        assert_eq!(sink.sync().unwrap(), lost, "the same group writes the same bytes");
    }

    #[test]
    fn the_position_goes_into_the_store_batch() {
        let dir = tempfile::tempdir().unwrap();
        let state = crate::store::CrawlState::open(std::sync::Arc::new(crate::store::MemoryStore::new())).unwrap();
        let mut sink = open(dir.path(), None);
        assert!(write(&mut sink, 7));
        let position = sink.sync().unwrap();
        let mut batch = state.batch();
        position.commit_into(&mut batch);
        state.commit(batch).unwrap();
        assert_eq!(state.corpus_offset().unwrap(), position.corpus_offset);
        assert_eq!(state.hash_log_len().unwrap(), position.hash_log_len);
        assert_eq!(state.corpus_format().unwrap().as_deref(), Some("jsonl"));
    }

    /// The in-memory twin answers as the files do: the same dedup outcomes and, after each
    /// sync, the same positions; its synced corpus is the file's content.
    #[test]
    fn the_in_memory_twin_keeps_the_positions_of_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = open(dir.path(), None);
        let (mut memory, corpus) = CorpusSink::in_memory(&DedupConfig::default(), CorpusFormat::Jsonl).unwrap();
        for group in [[0, 1, 1], [2, 0, 3]] {
            for n in group {
                assert_eq!(write(&mut files, n), write(&mut memory, n), "record {n}");
            }
            assert_eq!(files.sync().unwrap(), memory.sync().unwrap());
        }
        let on_disk = std::fs::read(dir.path().join(CorpusFormat::Jsonl.file_name())).unwrap();
        assert_eq!(corpus.bytes(), on_disk);
        let ids: Vec<String> = corpus.jsonl_records().unwrap().into_iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), 4, "{ids:?}");
    }
}
