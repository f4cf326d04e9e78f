//! The worker pool: the crawl's CPU work off the async runtime (ARCHITECTURE.md, "The crawl
//! engine"). `n` threads take [`WorkItem`]s from a bounded queue of fetched pages (decode,
//! parse once, links, then extract + classify or keep for the sample) and, first whenever it
//! holds any, from the committer's queue of learn jobs (GoldMiner and StaDyNoT from a host's
//! sample, GoldMiner §III.A, StaDyNoT §3) and drain jobs (the pages that waited for a model),
//! and send [`CommitMsg`]s to the committer. A full queue is
//! back-pressure on dispatch; a panic on one page is that page's discard, never a dead worker.

use crate::classify::{PageClass, PageClassifier};
use crate::crawl::fetch::budget::BudgetShare;
use crate::crawl::messages::{CommitMsg, Discard, PageContent, PageDone, PageResult, PageWork, WorkItem};
use crate::crawl::sources::{feed_links, parse_source};
use crate::domain::{DomainModel, HostModel, LearnParams};
use crate::extract::pipeline::{extract_document, sample_answer, ExtractSettings, PageExtraction};
use crate::extract::{ExtractError, ExtractorKind, JusTextParams};
use crate::html::sniff::{binary_kind, unreadable_share, MAX_UNREADABLE_SHARE};
use crate::html::{decode_html, links::extract_links, segment, Document};
use crate::model::Block;
use crate::store::{CrawlState, UrlKind};
use crate::write::warc::HttpExchange;
use crossbeam_channel::{Receiver, Sender};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;
use url::Url;

mod jobs;

use jobs::{drain, learn_and_extract};

/// What the CPU work of a page needs besides the page: extractor, settings, classifier.
#[derive(Clone)]
pub struct PageTools {
    /// The extractor.
    pub kind: ExtractorKind,
    /// Its settings.
    pub settings: Arc<ExtractSettings>,
    /// The article-vs-other classifier.
    pub classifier: Arc<PageClassifier>,
}

/// Everything a worker needs, shared by all workers.
pub struct WorkerContext {
    /// Extraction tools.
    pub tools: PageTools,
    /// The crawl state (read-only here: waiting pages for learn and drain jobs).
    pub state: CrawlState,
    /// `[learn]` parameters.
    pub learn: LearnParams,
    /// `[justext]` parameters (learning picks the host's stoplist).
    pub justext: JusTextParams,
    /// The configured stoplist language, `None` to detect.
    pub language: Option<String>,
    /// Links kept per page at most.
    pub max_links_per_page: usize,
    /// Set on Ctrl-C: learn and drain jobs are skipped (they run again on resume).
    pub stop: Arc<AtomicBool>,
}

/// A worker spends spare CPU on a page (the unlearned answer of a sampling host's page,
/// [`page_work`]) while the work queue is less full than this share of its capacity: a full
/// queue holds new requests back, and a pool that falls behind is what fills it.
pub const SPARE_QUEUE_SHARE: f64 = 0.75;

/// A worker also spends spare CPU on a page, however full the queue, while it has waited for
/// work at least this share of its recent time ([`WorkerLoad`]): pages that arrive in bursts
/// (many hosts due at the same moment) fill the queue for an instant although the pool idles
/// most of the time.
pub const SPARE_IDLE_SHARE: f64 = 0.25;

/// Seconds over which [`WorkerLoad`] weighs a worker's recent time (the time constant of its
/// exponential decay).
pub const LOAD_WINDOW_S: f64 = 5.0;

/// How a worker spent its recent time: seconds waiting for an item and seconds working, each
/// decayed exponentially with the time constant [`LOAD_WINDOW_S`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WorkerLoad {
    idle_s: f64,
    busy_s: f64,
}

impl WorkerLoad {
    /// Account for one item: `idle_s` seconds waiting for it, then `busy_s` seconds on it.
    pub fn add(&mut self, idle_s: f64, busy_s: f64) {
        let decay = (-(idle_s + busy_s) / LOAD_WINDOW_S).exp();
        self.idle_s = self.idle_s * decay + idle_s;
        self.busy_s = self.busy_s * decay + busy_s;
    }

    /// The share of the recent time spent waiting, 0–1 (1 before the first item).
    pub fn idle_share(&self) -> f64 {
        let total = self.idle_s + self.busy_s;
        if total > 0.0 {
            self.idle_s / total
        } else {
            1.0
        }
    }
}

/// Start `n` workers on `queue` (fetched pages) and `jobs` (learn and drain jobs, taken
/// first whenever both hold work), sending to `commit`. They end when every sender of both
/// is dropped.
pub fn spawn_workers(
    n: usize,
    ctx: Arc<WorkerContext>,
    queue: Receiver<WorkItem>,
    jobs: Receiver<WorkItem>,
    commit: Sender<CommitMsg>,
) -> Vec<JoinHandle<()>> {
    (0..n.max(1))
        .map(|i| {
            let (ctx, queue, jobs, commit) = (ctx.clone(), queue.clone(), jobs.clone(), commit.clone());
            std::thread::Builder::new()
                .name(format!("webcorpus-worker-{i}"))
                .spawn(move || {
                    let mut next = NextItem { queue: Some(queue), jobs: Some(jobs) };
                    let mut load = WorkerLoad::default();
                    let mut waited = Instant::now();
                    while let Some(item) = next.take() {
                        let started = Instant::now();
                        // The pool keeps up (the queue is not near the back-pressure that
                        // holds requests back, [`SPARE_QUEUE_SHARE`], or this worker has
                        // mostly waited lately, [`SPARE_IDLE_SHARE`]): this item may spend
                        // spare CPU.
                        let spare = load.idle_share() >= SPARE_IDLE_SHARE
                            || next.queue.as_ref().is_none_or(|q| {
                                q.capacity().is_none_or(|c| (q.len() as f64) < SPARE_QUEUE_SHARE * c as f64)
                            });
                        let msg = work(&ctx, item, spare, &commit);
                        let done = Instant::now();
                        load.add((started - waited).as_secs_f64(), (done - started).as_secs_f64());
                        if commit.send(msg).is_err() {
                            break;
                        }
                        waited = Instant::now();
                    }
                })
                .expect("spawn worker thread")
        })
        .collect()
}

/// A worker's two queues: `jobs` before `queue` whenever both hold an item; a queue whose
/// senders are all gone is `None`.
struct NextItem {
    queue: Option<Receiver<WorkItem>>,
    jobs: Option<Receiver<WorkItem>>,
}

impl NextItem {
    /// The next item, waiting for one; `None` once both queues are closed and empty.
    fn take(&mut self) -> Option<WorkItem> {
        loop {
            match (&self.jobs, &self.queue) {
                (Some(jobs), Some(queue)) => crossbeam_channel::select_biased! {
                    recv(jobs) -> item => match item {
                        Ok(item) => return Some(item),
                        Err(_) => self.jobs = None,
                    },
                    recv(queue) -> item => match item {
                        Ok(item) => return Some(item),
                        Err(_) => self.queue = None,
                    },
                },
                (Some(only), None) | (None, Some(only)) => match only.recv() {
                    Ok(item) => return Some(item),
                    Err(_) => {
                        self.jobs = None;
                        self.queue = None;
                    }
                },
                (None, None) => return None,
            }
        }
    }
}

/// Do one item; drain jobs send all but their last message through `commit` themselves.
/// `spare`: the workers keep up with the queue, so a page of a sampling host may compute now
/// what its host's learning will need ([`page_work`]).
fn work(ctx: &WorkerContext, item: WorkItem, spare: bool, commit: &Sender<CommitMsg>) -> CommitMsg {
    match item {
        WorkItem::Page { host, ticket, entry, page, mode, mut exchanges, delay_ms } => {
            // The WARC records' blocks are deflated here, on a worker, so that the committer
            // only compresses their headers.
            exchanges.iter_mut().for_each(HttpExchange::prepare);
            let work = catch_unwind(AssertUnwindSafe(|| match entry.kind {
                UrlKind::Page => {
                    let url = &page.final_url;
                    page_work(ctx, &page.body, page.content_type.as_deref(), url, mode, entry.depth == 0, spare)
                }
                kind => source_work(kind, &page.body, &page.final_url, page.budget.clone()),
            }))
            .unwrap_or_else(|_| {
                tracing::error!(url = entry.url, "page processing panicked");
                PageWork { links: Vec::new(), feeds: Vec::new(), content: PageContent::Failed }
            });
            let result = PageResult::Fetched {
                final_url: page.final_url.clone(),
                status: page.status,
                fetched_at: humantime::format_rfc3339_seconds(page.fetched_at).to_string(),
                content_type: page.content_type.clone(),
                body_bytes: page.body.len() as u64,
                response_ms: page.response_time.as_millis() as u64,
                delay_ms,
                work: Some(work),
                redirect: None,
                validators: page.validators.clone(),
            };
            CommitMsg::Page(Box::new(PageDone { host, ticket, entry, result, exchanges }))
        }
        WorkItem::Learn { host, generation } => {
            if ctx.stop.load(Ordering::Relaxed) {
                return CommitMsg::Learned { host, model: None };
            }
            catch_unwind(AssertUnwindSafe(|| learn_and_extract(ctx, &host, generation, commit))).unwrap_or_else(|_| {
                tracing::error!(host, "learning panicked; the sample is learned again on resume");
                CommitMsg::Learned { host, model: None }
            })
        }
        WorkItem::Drain { host, model } => drain(ctx, host, model, commit),
    }
}

/// Read a sitemap or feed: the URLs it lists (with its body's `budget` share, kept until the
/// committer queued them), or the discard `bad_sitemap` / `bad_feed`.
fn source_work(kind: UrlKind, body: &[u8], final_url: &Url, budget: Option<BudgetShare>) -> PageWork {
    let content = match parse_source(kind, body, final_url) {
        Ok(urls) => PageContent::Source(urls, budget),
        Err(e) => {
            tracing::debug!(url = %final_url, "{e}");
            PageContent::Refused(Discard::BadSource(kind))
        }
    };
    PageWork { links: Vec::new(), feeds: Vec::new(), content }
}

/// Decode, parse, collect links (and with `announce_feeds` the feeds the page announces) and
/// (in extract mode) extract and classify one page; a page of a sampling host is kept for the
/// sample, with its unlearned answer when the worker has `spare` CPU
/// ([`crate::extract::pipeline::sample_answer`]).
pub fn page_work(
    ctx: &WorkerContext,
    body: &[u8],
    content_type: Option<&str>,
    final_url: &Url,
    mode: HostModel,
    announce_feeds: bool,
    spare: bool,
) -> PageWork {
    let refused = |why| PageWork { links: Vec::new(), feeds: Vec::new(), content: PageContent::Refused(why) };
    if let Some(kind) = binary_kind(body) {
        tracing::debug!(url = %final_url, "binary body ({kind}) served as HTML");
        return refused(Discard::Binary);
    }
    let decoded = decode_html(body, content_type);
    if unreadable_share(&decoded.text) > MAX_UNREADABLE_SHARE {
        return refused(Discard::BadEncoding);
    }
    if decoded.had_errors {
        tracing::debug!(url = %final_url, "malformed bytes for the page's charset were replaced");
    }
    let doc = Document::parse(&decoded.text);
    let mut links = extract_links(&doc, final_url);
    links.truncate(ctx.max_links_per_page);
    links.shrink_to_fit();
    let feeds = if announce_feeds { feed_links(&doc, final_url) } else { Vec::new() };
    let content = match mode {
        HostModel::Sampling => {
            // With spare CPU (the crawl waits for responses), the answer the host's learning
            // and the page's extraction will need is computed now, instead of in the learning
            // at the host's end; they read it back from the state. A busy pool leaves it to
            // them: the same answer, later.
            let answer = match spare {
                true => sample_answer(&doc, ctx.tools.kind, &ctx.tools.settings).unwrap_or_default(),
                false => Vec::new(),
            };
            PageContent::Waiting { html: decoded.text, answer }
        }
        HostModel::Ready(model) => {
            let (extraction, class) = extract_and_classify(&doc, final_url.as_str(), model.as_deref(), &ctx.tools);
            PageContent::Extracted(Box::new(extraction), class)
        }
    };
    PageWork { links, feeds, content }
}

/// Extract a parsed page and classify the extraction (no class when extraction failed).
pub fn extract_and_classify(
    doc: &Document,
    url: &str,
    model: Option<&DomainModel>,
    tools: &PageTools,
) -> (Result<PageExtraction, ExtractError>, Option<PageClass>) {
    extract_parsed(doc, &segment(doc), url, model, tools)
}

/// [`extract_and_classify`] of a page already segmented into `blocks`.
fn extract_parsed(
    doc: &Document,
    blocks: &[Block],
    url: &str,
    model: Option<&DomainModel>,
    tools: &PageTools,
) -> (Result<PageExtraction, ExtractError>, Option<PageClass>) {
    let extraction = extract_document(doc, blocks, tools.kind, model.map(DomainModel::view), &tools.settings);
    let class = extraction.as_ref().ok().map(|ex| tools.classifier.classify_extraction(Some(url), ex, doc, blocks));
    (extraction, class)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learn(host: &str) -> WorkItem {
        WorkItem::Learn { host: host.to_string(), generation: 0 }
    }

    fn drain(host: &str) -> WorkItem {
        WorkItem::Drain { host: host.to_string(), model: None }
    }

    fn host(item: &WorkItem) -> String {
        match item {
            WorkItem::Learn { host, .. } | WorkItem::Drain { host, .. } | WorkItem::Page { host, .. } => host.clone(),
        }
    }

    /// Jobs go first whenever both queues hold items, each queue keeps its order, and a worker
    /// reads on from the other queue when one closes; it stops once both are closed and empty.
    #[test]
    fn jobs_are_taken_before_queued_items_and_both_queues_drain() {
        let (queue_tx, queue) = crossbeam_channel::bounded(4);
        let (jobs_tx, jobs) = crossbeam_channel::unbounded();
        // Drain jobs stand in for the page items of the bounded queue: the order is the point.
        queue_tx.send(drain("page-1")).unwrap();
        queue_tx.send(drain("page-2")).unwrap();
        jobs_tx.send(learn("job-1")).unwrap();
        jobs_tx.send(learn("job-2")).unwrap();
        let mut next = NextItem { queue: Some(queue), jobs: Some(jobs) };
        let first: Vec<String> = (0..3).filter_map(|_| next.take()).map(|i| host(&i)).collect();
        assert_eq!(first, ["job-1", "job-2", "page-1"]);
        drop(jobs_tx);
        queue_tx.send(drain("page-3")).unwrap();
        assert_eq!(next.take().map(|i| host(&i)).as_deref(), Some("page-2"));
        assert_eq!(next.take().map(|i| host(&i)).as_deref(), Some("page-3"));
        assert!(next.jobs.is_none(), "the closed job queue is let go");
        drop(queue_tx);
        assert!(next.take().is_none());
    }

    /// A worker that waits most of each second has spare CPU, also in a burst that fills the
    /// queue for a moment; one that has worked without pause for a few windows has not, and
    /// gets it back once it waits again.
    #[test]
    fn the_idle_share_follows_the_recent_time() {
        let mut load = WorkerLoad::default();
        assert_eq!(load.idle_share(), 1.0, "before the first item");
        // Bursts: 0.3 s of work, then 0.7 s of waiting, for 20 s.
        for _ in 0..20 {
            for _ in 0..30 {
                load.add(0.0, 0.01);
            }
            load.add(0.7, 0.0);
        }
        assert!((load.idle_share() - 0.7).abs() < 0.1, "{}", load.idle_share());
        assert!(load.idle_share() >= SPARE_IDLE_SHARE);
        // A pool behind its queue: 3 windows of work without a wait.
        for _ in 0..(3.0 * LOAD_WINDOW_S / 0.01) as usize {
            load.add(0.0, 0.01);
        }
        assert!(load.idle_share() < 0.05, "{}", load.idle_share());
        // One second of waiting is not enough yet; two are.
        load.add(1.0, 0.0);
        assert!(load.idle_share() < SPARE_IDLE_SHARE, "{}", load.idle_share());
        load.add(1.0, 0.0);
        assert!(load.idle_share() >= SPARE_IDLE_SHARE, "{}", load.idle_share());
    }
}
