//! The worker pool: the crawl's CPU work off the async runtime (ARCHITECTURE.md, "The crawl
//! engine"). `n` threads take [`WorkItem`]s from a bounded queue of fetched pages (decode,
//! parse once, links, then extract + classify or keep for the sample) and, first whenever it
//! holds any, from the committer's queue of learn jobs (GoldMiner and StaDyNoT from a host's
//! sample, GoldMiner §III.A, StaDyNoT §3) and drain jobs (the pages that waited for a model),
//! and, only when both are empty, from a queue of spare work (a host's model learned and its
//! sample extracted ahead of its end, kept in [`PreModels`] for its learn job),
//! and send [`CommitMsg`]s to the committer. A full queue is
//! back-pressure on dispatch; a panic on one page is that page's discard, never a dead worker.

use crate::classify::{PageClass, PageClassifier};
use crate::crawl::fetch::budget::BudgetShare;
use crate::crawl::messages::{CommitMsg, Discard, PageContent, PageDone, PageResult, PageWork, WaitingDone, WorkItem};
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

use jobs::{drain, learn_and_extract, prelearn};

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
    /// Models learned ahead of their hosts' learn jobs ([`WorkItem::Prelearn`]).
    pub premodels: PreModels,
}

/// Most models [`PreModels`] keeps; past it the oldest is let go (a host's model is some KB to
/// a few tens of KB: its patterns, static keys and path profile).
pub const PREMODELS_KEPT: usize = 1024;

/// Bytes of extracted pages [`PreModels`] holds at most, all hosts together (an estimate:
/// their texts, URLs and per-block trace); a model learned ahead past it is kept without its
/// pages, which its learn job then extracts.
pub const PREEXTRACTED_BYTES: usize = 48 << 20;

/// What was done ahead for one host: the model, learned from the sample pages `seqs` (every
/// page waiting, in crawl order), and those pages extracted with it, when they fitted
/// [`PREEXTRACTED_BYTES`].
pub struct Ahead {
    /// The sample pages' sequence numbers.
    pub seqs: Vec<u64>,
    /// The model, its generation set.
    pub model: DomainModel,
    /// The sample pages extracted with it, in crawl order; `None`: not kept.
    pub pages: Option<Vec<WaitingDone>>,
    /// [`Ahead::pages`]' estimated bytes.
    bytes: usize,
}

impl Ahead {
    /// `model`, learned from `seqs`, with its extracted `pages` (or none).
    pub fn new(seqs: Vec<u64>, model: DomainModel, pages: Option<Vec<WaitingDone>>) -> Ahead {
        let bytes = pages.as_ref().map_or(0, |p| p.iter().map(estimated_bytes).sum());
        Ahead { seqs, model, pages, bytes }
    }
}

/// A rough size of an extracted page in memory: its texts and URLs, and 64 bytes per block of
/// its trace.
fn estimated_bytes(page: &WaitingDone) -> usize {
    let text = match &page.extraction {
        Ok(ex) => {
            ex.paragraphs.iter().map(|p| p.text.len() + 64).sum::<usize>()
                + ex.comments.as_ref().map_or(0, String::len)
                + 64 * ex.blocks
        }
        Err(_) => 0,
    };
    1024 + page.url.len() + page.final_url.len() + text
}

/// Models learned ahead on spare CPU ([`WorkItem::Prelearn`]), each with its sample's
/// sequence numbers and generation, and the sample extracted with it ([`Ahead`]). A host's
/// learn job takes them when the same pages wait and the generation is the same, so they are
/// what it would compute itself (learning and extraction are functions of the pages, the
/// generation and the settings alone). At most [`PREMODELS_KEPT`], one per host.
#[derive(Default)]
pub struct PreModels(std::sync::Mutex<Kept>);

#[derive(Default)]
struct Kept {
    by_host: std::collections::HashMap<String, Ahead>,
    order: std::collections::VecDeque<String>,
    bytes: usize,
}

impl PreModels {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Keep `ahead` for `host`, in place of the host's earlier one.
    pub fn put(&self, host: &str, ahead: Ahead) {
        let mut kept = self.lock();
        kept.bytes += ahead.bytes;
        match kept.by_host.insert(host.to_string(), ahead) {
            Some(before) => kept.bytes -= before.bytes,
            None => kept.order.push_back(host.to_string()),
        }
        while kept.by_host.len() > PREMODELS_KEPT {
            let Some(oldest) = kept.order.pop_front() else { break };
            if let Some(gone) = kept.by_host.remove(&oldest) {
                kept.bytes -= gone.bytes;
            }
        }
    }

    /// Whether extracted pages of about `bytes` more fit [`PREEXTRACTED_BYTES`].
    pub fn has_room(&self, bytes: usize) -> bool {
        self.lock().bytes + bytes <= PREEXTRACTED_BYTES
    }

    /// What was done ahead for `host` from exactly the sample pages `seqs` with `generation`,
    /// taken out; `None` when there is none or it is of other pages (that one is let go too).
    pub fn take(&self, host: &str, seqs: &[u64], generation: u32) -> Option<Ahead> {
        let mut kept = self.lock();
        let ahead = kept.by_host.remove(host)?;
        kept.bytes -= ahead.bytes;
        kept.order.retain(|h| h != host);
        (ahead.seqs == seqs && ahead.model.generation == generation).then_some(ahead)
    }

    /// Whether a model of `host` learned from exactly `seqs` is kept.
    pub fn holds(&self, host: &str, seqs: &[u64]) -> bool {
        self.lock().by_host.get(host).is_some_and(|a| a.seqs == seqs)
    }
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

/// Start `n` workers on `queue` (fetched pages), `jobs` (learn and drain jobs, taken first
/// whenever they hold work) and `spare` (models learned ahead, [`WorkItem::Prelearn`], taken
/// only when the other two are empty), sending to `commit`. They end when every sender of
/// `queue` and `jobs` is dropped.
pub fn spawn_workers(
    n: usize,
    ctx: Arc<WorkerContext>,
    queue: Receiver<WorkItem>,
    jobs: Receiver<WorkItem>,
    spare: Receiver<WorkItem>,
    commit: Sender<CommitMsg>,
) -> Vec<JoinHandle<()>> {
    (0..n.max(1))
        .map(|i| {
            let (ctx, queue, jobs, spare, commit) =
                (ctx.clone(), queue.clone(), jobs.clone(), spare.clone(), commit.clone());
            std::thread::Builder::new()
                .name(format!("webcorpus-worker-{i}"))
                .spawn(move || {
                    let mut next = NextItem { queue: Some(queue), jobs: Some(jobs), spare: Some(spare) };
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
                        if msg.is_some_and(|msg| commit.send(msg).is_err()) {
                            break;
                        }
                        waited = Instant::now();
                    }
                })
                .expect("spawn worker thread")
        })
        .collect()
}

/// A worker's three queues, taken in order: `jobs`, then `queue`, then `spare` (only when
/// the other two are empty); a queue whose senders are all gone is `None`, and the worker is
/// done once `jobs` and `queue` are.
struct NextItem {
    queue: Option<Receiver<WorkItem>>,
    jobs: Option<Receiver<WorkItem>>,
    spare: Option<Receiver<WorkItem>>,
}

impl NextItem {
    /// The next item, waiting for one; `None` once `jobs` and `queue` are closed and empty.
    fn take(&mut self) -> Option<WorkItem> {
        loop {
            for slot in [&mut self.jobs, &mut self.queue] {
                if let Some(item) = try_take(slot) {
                    return Some(item);
                }
            }
            if self.jobs.is_none() && self.queue.is_none() {
                return None;
            }
            if let Some(item) = try_take(&mut self.spare) {
                return Some(item);
            }
            // Nothing ready: wait until one of the open queues is, then take in order.
            let mut ready = crossbeam_channel::Select::new();
            for rx in [&self.jobs, &self.queue, &self.spare].into_iter().flatten() {
                ready.recv(rx);
            }
            if self.jobs.is_some() || self.queue.is_some() {
                ready.ready();
            }
        }
    }
}

/// An item of the queue in `slot` if one is ready; a closed queue's slot becomes `None`.
fn try_take(slot: &mut Option<Receiver<WorkItem>>) -> Option<WorkItem> {
    match slot.as_ref()?.try_recv() {
        Ok(item) => Some(item),
        Err(crossbeam_channel::TryRecvError::Disconnected) => {
            *slot = None;
            None
        }
        Err(crossbeam_channel::TryRecvError::Empty) => None,
    }
}

/// Do one item; drain jobs send all but their last message through `commit` themselves, and
/// a model learned ahead sends none.
/// `spare`: the workers keep up with the queue, so a page of a sampling host may compute now
/// what its host's learning will need ([`page_work`]).
fn work(ctx: &WorkerContext, item: WorkItem, spare: bool, commit: &Sender<CommitMsg>) -> Option<CommitMsg> {
    Some(match item {
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
                return Some(CommitMsg::Learned { host, model: None });
            }
            catch_unwind(AssertUnwindSafe(|| learn_and_extract(ctx, &host, generation, commit))).unwrap_or_else(|_| {
                tracing::error!(host, "learning panicked; the sample is learned again on resume");
                CommitMsg::Learned { host, model: None }
            })
        }
        WorkItem::Drain { host, model } => drain(ctx, host, model, commit),
        WorkItem::Prelearn { host, sampled, generation } => {
            if !ctx.stop.load(Ordering::Relaxed)
                && catch_unwind(AssertUnwindSafe(|| prelearn(ctx, &host, sampled, generation))).is_err()
            {
                tracing::error!(host, "learning ahead panicked; the host learns at its end");
            }
            return None;
        }
    })
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
            WorkItem::Learn { host, .. }
            | WorkItem::Drain { host, .. }
            | WorkItem::Page { host, .. }
            | WorkItem::Prelearn { host, .. } => host.clone(),
        }
    }

    /// Jobs go first whenever both queues hold items, each queue keeps its order, the spare
    /// queue is read only when the other two are empty, and a worker reads on from the other
    /// queues when one closes; it stops once jobs and pages are closed and empty, whatever
    /// the spare queue still holds.
    #[test]
    fn jobs_are_taken_before_queued_items_and_both_queues_drain() {
        let (queue_tx, queue) = crossbeam_channel::bounded(4);
        let (jobs_tx, jobs) = crossbeam_channel::unbounded();
        let (spare_tx, spare) = crossbeam_channel::unbounded();
        // Drain jobs stand in for the page items of the bounded queue: the order is the point.
        spare_tx.send(drain("spare-1")).unwrap();
        queue_tx.send(drain("page-1")).unwrap();
        queue_tx.send(drain("page-2")).unwrap();
        jobs_tx.send(learn("job-1")).unwrap();
        jobs_tx.send(learn("job-2")).unwrap();
        let mut next = NextItem { queue: Some(queue), jobs: Some(jobs), spare: Some(spare) };
        let first: Vec<String> = (0..3).filter_map(|_| next.take()).map(|i| host(&i)).collect();
        assert_eq!(first, ["job-1", "job-2", "page-1"]);
        drop(jobs_tx);
        queue_tx.send(drain("page-3")).unwrap();
        assert_eq!(next.take().map(|i| host(&i)).as_deref(), Some("page-2"));
        assert_eq!(next.take().map(|i| host(&i)).as_deref(), Some("page-3"));
        assert!(next.jobs.is_none(), "the closed job queue is let go");
        assert_eq!(next.take().map(|i| host(&i)).as_deref(), Some("spare-1"), "spare work once the rest is done");
        // A worker waiting on an empty queue wakes for spare work sent later.
        let late = std::thread::spawn(move || {
            spare_tx.send(drain("spare-2")).unwrap();
            spare_tx
        });
        assert_eq!(next.take().map(|i| host(&i)).as_deref(), Some("spare-2"));
        let spare_tx = late.join().unwrap();
        spare_tx.send(drain("spare-3")).unwrap();
        drop(queue_tx);
        assert!(next.take().is_none(), "no pages nor jobs to come: spare work is let go");
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
