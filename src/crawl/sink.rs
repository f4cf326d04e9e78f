//! [`Sink`]: the single writer of crawl results. Every page outcome goes through it in
//! order: Onion dedup against the committed hashes, the corpus record appended and flushed,
//! then one atomic store batch (frontier entry removed, links added, hashes, corpus offset,
//! counters). Being the only writer is what makes "no paragraph twice" and the crash-safety
//! contract of ARCHITECTURE.md hold.

use crate::crawl::CrawlError;
use crate::dedup::{DedupError, Onion, SeenHashes};
use crate::extract::pipeline::PageExtraction;
use crate::extract::ExtractError;
use crate::model::{join_paragraphs, Record};
use crate::store::{Counters, CrawlState, HostRecord, StateBatch};
use crate::write::{CorpusFormat, CorpusWriter};

/// Onion's view of the committed n-gram hashes.
struct CommittedHashes<'a>(&'a CrawlState);

impl SeenHashes for CommittedHashes<'_> {
    fn contains(&self, h: u64) -> Result<bool, DedupError> {
        self.0.has_hash(h).map_err(DedupError::store)
    }
}

/// Where a page came from, for its record.
pub struct PageMeta<'a> {
    /// Requested URL.
    pub url: &'a str,
    /// URL after redirects.
    pub final_url: &'a str,
    /// RFC 3339 fetch time.
    pub fetched_at: &'a str,
}

/// The committer: store, corpus writer, Onion, counters.
pub struct Sink {
    /// The crawl state.
    pub state: CrawlState,
    writer: Box<dyn CorpusWriter + Send>,
    format: CorpusFormat,
    onion: Onion,
    /// Counters as of the last commit plus the pending batch.
    pub counters: Counters,
}

impl Sink {
    /// A sink appending to `writer` (already truncated to the committed offset).
    pub fn new(
        state: CrawlState,
        writer: Box<dyn CorpusWriter + Send>,
        format: CorpusFormat,
        onion: Onion,
    ) -> Result<Sink, CrawlError> {
        let counters = state.counters()?;
        Ok(Sink { state, writer, format, onion, counters })
    }

    /// Count a page that yields no record, for the host and the crawl.
    pub fn discard(&mut self, host: &mut HostRecord, reason: &str) {
        *host.discards.entry(reason.to_string()).or_default() += 1;
        *self.counters.discards.entry(reason.to_string()).or_default() += 1;
    }

    /// Dedup `extraction` and append its record; its hashes and the new corpus offset go
    /// into `batch`. A page that yields nothing is counted as a discard with its reason.
    pub fn add_extraction(
        &mut self,
        batch: &mut StateBatch,
        host: &mut HostRecord,
        meta: &PageMeta<'_>,
        extraction: Result<PageExtraction, ExtractError>,
    ) -> Result<(), CrawlError> {
        let ex = match extraction {
            Ok(ex) => ex,
            Err(ExtractError::PatternNotFound { .. }) => {
                self.discard(host, "no_goldminer_pattern");
                return Ok(());
            }
            Err(e) => {
                tracing::warn!(url = meta.url, "extraction failed: {e}");
                self.discard(host, "extraction_error");
                return Ok(());
            }
        };
        if ex.paragraphs.is_empty() {
            self.discard(host, "no_main_text");
            return Ok(());
        }
        let outcome = self.onion.filter(&ex.paragraphs, &CommittedHashes(&self.state))?;
        self.counters.duplicate_paragraphs += outcome.dropped as u64;
        if outcome.kept.is_empty() {
            self.discard(host, "all_duplicate");
            return Ok(());
        }
        let record = Record {
            url: meta.url.to_string(),
            final_url: meta.final_url.to_string(),
            host: host.host.clone(),
            title: ex.title,
            fetched_at: meta.fetched_at.to_string(),
            language: ex.language,
            extractor: ex.extractor.to_string(),
            text: join_paragraphs(&outcome.kept),
            paragraphs: outcome.kept,
        };
        let offset = self.writer.write(&record)?;
        batch.add_hashes(&outcome.new_hashes);
        batch.set_corpus_offset(offset, self.format.name());
        self.counters.records += 1;
        self.counters.paragraphs += record.paragraphs.len() as u64;
        host.written += 1;
        Ok(())
    }

    /// Commit `batch` with `host`'s record and the counters (atomic, durable).
    pub fn commit(&mut self, mut batch: StateBatch, host: &HostRecord) -> Result<(), CrawlError> {
        batch.put_host(host);
        batch.put_counters(&self.counters);
        self.state.commit(batch)?;
        Ok(())
    }
}
