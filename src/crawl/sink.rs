//! [`Sink`]: the single writer of crawl results. Every page outcome goes through it in
//! order: Onion dedup against the committed hashes, the corpus record appended and flushed,
//! then one atomic store batch (frontier entry removed, links added, hashes, corpus offset,
//! counters). Being the only writer is what makes "no paragraph twice" and the crash-safety
//! contract of ARCHITECTURE.md hold.

use crate::classify::{PageClass, PageType};
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
    /// `[classify] drop_non_article`: pages classified "other" are discarded.
    drop_non_article: bool,
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
        Ok(Sink { state, writer, format, onion, counters, drop_non_article: false })
    }

    /// Discard pages classified "other" (`[classify] drop_non_article`) instead of writing
    /// them.
    pub fn drop_non_article(mut self, drop: bool) -> Sink {
        self.drop_non_article = drop;
        self
    }

    /// Count a page that yields no record, for the host and the crawl.
    pub fn discard(&mut self, host: &mut HostRecord, reason: &str) {
        *host.discards.entry(reason.to_string()).or_default() += 1;
        *self.counters.discards.entry(reason.to_string()).or_default() += 1;
    }

    /// Dedup `extraction` and append its record with its page `class`; its hashes and the
    /// new corpus offset go into `batch`. A page that yields nothing is counted as a discard
    /// with its reason; a page with main text is counted as article or other (per host and
    /// crawl-wide), and with `drop_non_article` an "other" page is the discard `not_article`.
    pub fn add_extraction(
        &mut self,
        batch: &mut StateBatch,
        host: &mut HostRecord,
        meta: &PageMeta<'_>,
        extraction: Result<PageExtraction, ExtractError>,
        class: Option<PageClass>,
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
        match class.map(|c| c.page_type) {
            Some(PageType::Article) => {
                host.articles += 1;
                self.counters.articles += 1;
            }
            Some(PageType::Other) => {
                host.others += 1;
                self.counters.others += 1;
                if self.drop_non_article {
                    self.discard(host, "not_article");
                    return Ok(());
                }
            }
            None => {}
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
            page_type: class.map(|c| c.page_type),
            page_type_prob: class.map(|c| c.prob),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dedup::OnionParams;
    use crate::model::{Paragraph, ParagraphKind};
    use crate::store::MemoryStore;
    use crate::write::open_writer;
    use std::sync::Arc;

    fn extraction(text: &str) -> PageExtraction {
        PageExtraction {
            title: Some("T".into()),
            language: Some("English".into()),
            extractor: "default",
            paragraphs: vec![Paragraph { kind: ParagraphKind::Paragraph, text: text.into() }],
            blocks: 1,
        }
    }

    fn sink(dir: &std::path::Path, drop: bool) -> Sink {
        let state = CrawlState::open(Arc::new(MemoryStore::new())).unwrap();
        let writer = open_writer(CorpusFormat::Jsonl, dir, 0).unwrap();
        Sink::new(state, writer, CorpusFormat::Jsonl, Onion::new(OnionParams::default()).unwrap())
            .unwrap()
            .drop_non_article(drop)
    }

    const ARTICLE: PageClass = PageClass { page_type: PageType::Article, prob: 0.9 };
    const OTHER: PageClass = PageClass { page_type: PageType::Other, prob: 0.2 };

    /// Records carry the page type; with `drop_non_article` an "other" page is counted as the
    /// discard `not_article` and not written; the article share is counted either way.
    #[test]
    fn records_carry_the_page_type_and_drop_non_article_drops_and_counts() {
        for drop in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let mut sink = sink(dir.path(), drop);
            let mut host = HostRecord { host: "a.org".into(), ..HostRecord::default() };
            let meta =
                PageMeta { url: "http://a.org/1", final_url: "http://a.org/1", fetched_at: "2024-01-01T00:00:00Z" };
            let pages = [
                ("the first page has its own words in a long enough sentence here", ARTICLE),
                ("the second page is a list of links to other pages of the site", OTHER),
            ];
            for (text, class) in pages {
                let mut batch = sink.state.batch();
                sink.add_extraction(&mut batch, &mut host, &meta, Ok(extraction(text)), Some(class)).unwrap();
                sink.commit(batch, &host).unwrap();
            }
            let corpus = std::fs::read_to_string(dir.path().join("corpus.jsonl")).unwrap();
            let records: Vec<Record> = corpus.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            assert_eq!(records.len(), if drop { 1 } else { 2 }, "drop_non_article = {drop}");
            assert_eq!(records[0].page_type, Some(PageType::Article));
            assert_eq!(records[0].page_type_prob, Some(0.9));
            if !drop {
                assert_eq!(records[1].page_type, Some(PageType::Other));
            }
            assert_eq!(sink.counters.discards.get("not_article").copied(), drop.then_some(1));
            assert_eq!(host.discards.get("not_article").copied(), drop.then_some(1));
            assert_eq!((host.articles, host.others), (1, 1));
            assert_eq!(host.article_share(), Some(0.5));
            let stored = sink.state.counters().unwrap();
            assert_eq!((stored.articles, stored.others, stored.records), (1, 1, records.len() as u64));
        }
    }
}
