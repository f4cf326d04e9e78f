//! Pass 3 of [`replay_warcs`](super::replay_warcs): every page extracted with its host's model
//! on worker threads, then deduplicated and written in file order. The principal type is
//! [`Pass`]: one thread reads the files and numbers the pages, `workers` threads decode, parse,
//! extract and classify them (the CPU of the pass), and the calling thread puts their results
//! back in file order, runs Onion on each against everything written before it and writes the
//! record — the same records, in the same order, as one thread would write. Memory: the pages
//! in the two bounded queues and the results waiting for an earlier page, a few per worker.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{host_of, readable, ReplayError, ReplaySummary};
use crate::classify::{PageClass, PageType};
use crate::config::Config;
use crate::crawl::record::{record_of, RecordSource};
use crate::crawl::workers::{extract_and_classify, PageTools};
use crate::dedup::{Onion, OnionScratch, SeenSet};
use crate::domain::DomainModel;
use crate::extract::pipeline::PageExtraction;
use crate::extract::warc_input::{read_warc_with_progress, WarcCounts, WarcInputError, WarcPage};
use crate::html::Document;
use crate::write::CorpusFormat;

/// Pages queued for the workers, and results queued for the writer, per worker.
const QUEUED_PER_WORKER: usize = 4;

/// What a worker made of a page.
enum Extracted {
    /// No record: the crawl's discard key.
    Skip(&'static str),
    /// A page with main text, for Onion and the writer (`page` without its body, `file` the
    /// index of its WARC file).
    Page(Box<ExtractedPage>),
}

/// A page with main text, as [`Extracted::Page`] carries it.
struct ExtractedPage {
    page: WarcPage,
    file: usize,
    host: String,
    ex: PageExtraction,
    class: Option<PageClass>,
}

/// Pass 3 over `paths` with `models` (by host), on `workers` threads.
pub(super) struct Pass<'a> {
    pub paths: &'a [PathBuf],
    pub cfg: &'a Config,
    pub tools: &'a PageTools,
    pub models: &'a HashMap<String, Arc<DomainModel>>,
    pub workers: usize,
}

impl Pass<'_> {
    /// Extract, dedup and write every page to `out` in `format`, counting into `summary`
    /// (pages, records, duplicates, discards); `bar` counts the bytes read. Returns each
    /// file's reading, in order (a file is not read after a write failed).
    ///
    /// # Errors
    /// [`ReplayError`] from Onion or the output (the first one; reading stops there).
    pub(super) fn run(
        &self,
        format: CorpusFormat,
        out: &mut dyn Write,
        bar: Option<&indicatif::ProgressBar>,
        summary: &mut ReplaySummary,
    ) -> Result<Vec<Result<WarcCounts, WarcInputError>>, ReplayError> {
        let workers = self.workers.max(1);
        let stop = AtomicBool::new(false);
        let mut writer = Writer::new(self.cfg, self.paths, format, out)?;
        let reads = std::thread::scope(|scope| {
            let (page_tx, page_rx) = crossbeam_channel::bounded::<(u64, usize, WarcPage)>(workers * QUEUED_PER_WORKER);
            let (done_tx, done_rx) = crossbeam_channel::bounded::<(u64, Extracted)>(workers * QUEUED_PER_WORKER);
            let stop = &stop;
            let reader = scope.spawn(move || {
                let mut seq = 0u64;
                let mut reads = Vec::new();
                for (file, path) in self.paths.iter().enumerate() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    reads.push(read_warc_with_progress(path, bar, |page| {
                        if !stop.load(Ordering::Relaxed) && page_tx.send((seq, file, page)).is_ok() {
                            seq += 1;
                        }
                    }));
                }
                reads
            });
            for _ in 0..workers {
                let (page_rx, done_tx) = (page_rx.clone(), done_tx.clone());
                scope.spawn(move || {
                    for (seq, file, page) in page_rx {
                        if done_tx.send((seq, self.extract(page, file))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop((page_rx, done_tx));
            // Results in file order: each waits in `early` until the pages before it are written.
            let mut early: BTreeMap<u64, Extracted> = BTreeMap::new();
            let mut next = 0u64;
            for (seq, extracted) in done_rx {
                early.insert(seq, extracted);
                while let Some(extracted) = early.remove(&next) {
                    next += 1;
                    if writer.failed.is_none() {
                        writer.write(extracted, summary);
                        if writer.failed.is_some() {
                            stop.store(true, Ordering::Relaxed);
                        }
                    }
                }
            }
            reader.join().expect("the WARC reader thread does not panic")
        });
        match writer.failed {
            Some(e) => Err(e),
            None => Ok(reads),
        }
    }

    /// A worker's part: decode, parse, extract and classify `page` of file `file`.
    fn extract(&self, mut page: WarcPage, file: usize) -> Extracted {
        let html = match readable(&page) {
            Ok(html) => html,
            Err(reason) => return Extracted::Skip(reason),
        };
        let host = host_of(&page.url);
        let model = self.models.get(&host).map(Arc::as_ref);
        let doc = Document::parse(&html);
        let (extraction, class) = extract_and_classify(&doc, &page.url, model, self.tools);
        match extraction {
            Ok(ex) if !ex.has_running_text() => Extracted::Skip("no_main_text"),
            Ok(_) if self.cfg.classify.drop_non_article && class.is_some_and(|c| c.page_type == PageType::Other) => {
                Extracted::Skip("not_article")
            }
            Ok(ex) => {
                page.body = Vec::new();
                Extracted::Page(Box::new(ExtractedPage { page, file, host, ex, class }))
            }
            Err(_) => Extracted::Skip("extraction_error"),
        }
    }
}

/// The writer's side: Onion's seen set and the output.
struct Writer<'a> {
    cfg: &'a Config,
    paths: &'a [PathBuf],
    format: CorpusFormat,
    out: &'a mut dyn Write,
    onion: Onion,
    seen: SeenSet,
    scratch: OnionScratch,
    buf: Vec<u8>,
    /// The first failure; nothing is written after it.
    failed: Option<ReplayError>,
}

impl<'a> Writer<'a> {
    fn new(
        cfg: &'a Config,
        paths: &'a [PathBuf],
        format: CorpusFormat,
        out: &'a mut dyn Write,
    ) -> Result<Writer<'a>, ReplayError> {
        Ok(Writer {
            cfg,
            paths,
            format,
            out,
            onion: Onion::new(cfg.dedup.onion())?,
            seen: SeenSet::new(cfg.dedup.seen_params()),
            scratch: OnionScratch::default(),
            buf: Vec::new(),
            failed: None,
        })
    }

    /// Dedup and write one page's result, the pages before it written already.
    fn write(&mut self, extracted: Extracted, summary: &mut ReplaySummary) {
        summary.pages += 1;
        let mut skip = |reason: &str| *summary.skipped.entry(reason.to_string()).or_default() += 1;
        let ExtractedPage { page, file, host, mut ex, class } = match extracted {
            Extracted::Page(page) => *page,
            Extracted::Skip(reason) => return skip(reason),
        };
        let mut outcome = match self.onion.filter_with(&mut self.scratch, &ex.paragraphs, &self.seen) {
            Ok(outcome) => outcome,
            Err(e) => {
                self.failed = Some(e.into());
                return;
            }
        };
        summary.duplicate_paragraphs += outcome.dropped as u64;
        if outcome.all_dropped() {
            return skip("all_duplicate");
        }
        let new_hashes = std::mem::take(&mut outcome.new_hashes);
        let name = self.paths[file].file_name().map(|n| n.to_string_lossy().into_owned());
        let kept = ex.take_paragraphs(Some(&outcome.kept_mask));
        let record = record_of(RecordSource::warc_page(&page, &host, name), ex, class, kept);
        if !self.cfg.crawl.keeps_language(record.lang.as_deref()) {
            return skip("wrong_language");
        }
        self.seen.insert_all(&new_hashes);
        self.buf.clear();
        if let Err(e) = self.format.render(&record, &mut self.buf) {
            self.failed = Some(ReplayError::Write(std::io::Error::other(e)));
            return;
        }
        if let Err(e) = self.out.write_all(&self.buf) {
            self.failed = Some(e.into());
            return;
        }
        summary.records += 1;
    }
}
