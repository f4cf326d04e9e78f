//! The committer's jobs on the worker pool: a host's learn job (its model from its sample,
//! GoldMiner §III.A and StaDyNoT §3, then the sample extracted with it) and drain jobs (the
//! pages that waited for a model). Both read the waiting pages from the state in windows of
//! [`DRAIN_WINDOW`], never all at once, and send one [`CommitMsg::Drained`] per page in crawl
//! order; the message a job returns is its last.

use super::{extract_and_classify, extract_parsed, WorkerContext};
use crate::classify::PageClass;
use crate::crawl::messages::{CommitMsg, WaitingDone};
use crate::domain::learn::{learn_documents, parse_sample};
use crate::domain::DomainModel;
use crate::extract::combiner::memo::seed;
use crate::extract::pipeline::PageExtraction;
use crate::extract::ExtractError;
use crate::html::Document;
use crate::model::Block;
use crate::store::SampledPage;
use crossbeam_channel::Sender;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Pages a job reads from the state at a time.
pub(super) const DRAIN_WINDOW: usize = 16;

/// Parse a page that waited in the state, with the answer computed when it was fetched
/// ([`seed`]), and extract and classify it.
fn extract_waiting(
    s: &SampledPage,
    model: Option<&DomainModel>,
    tools: &super::PageTools,
) -> (Result<PageExtraction, ExtractError>, Option<PageClass>) {
    let doc = Document::parse(&s.html);
    seed(&doc, &s.answer);
    extract_and_classify(&doc, &s.final_url, model, tools)
}

/// The sample pages parsed for learning, with their parses (parallel lists). A page's HTML is
/// let go once it is parsed (its answer is on the parse), so the sample holds one copy of each
/// page, not two.
#[derive(Default)]
struct Parsed {
    pages: Vec<SampledPage>,
    docs: Vec<Document>,
    blocks: Vec<Vec<Block>>,
}

/// The first `ctx.learn.sample_size` waiting pages of `host`, read in windows: those that fit
/// `[learn] max_sample_nodes` parsed ([`parse_sample`]'s rule, the first page always), then
/// at most the rest of the window the budget ran out in, unparsed. Returns them with the
/// sequence number to read on from and how many sample pages are left to read there (0 when
/// the state had no more).
fn read_sample(ctx: &WorkerContext, host: &str) -> Result<(Parsed, Vec<SampledPage>, u64, usize), String> {
    let (limit, max_nodes) = (ctx.learn.sample_size, ctx.learn.max_sample_nodes);
    let (mut parsed, mut unparsed) = (Parsed::default(), Vec::new());
    let (mut from, mut read, mut nodes) = (0, 0, 0usize);
    while read < limit && unparsed.is_empty() && (parsed.docs.is_empty() || nodes < max_nodes) {
        let want = DRAIN_WINDOW.min(limit - read);
        let window = ctx.state.waiting_window(host, from, want).map_err(|e| e.to_string())?;
        let (n, last_seq) = (window.len(), window.last().map(|s| s.seq));
        let budget = if parsed.docs.is_empty() { max_nodes } else { max_nodes - nodes };
        let (docs, blocks) = parse_sample(window.iter().map(|s| s.html.as_str()), budget);
        let mut pages = window.into_iter();
        // The parses first: a zip pulls from its first side first, so no page is taken past them.
        for ((doc, blocks), mut page) in docs.into_iter().zip(blocks).zip(pages.by_ref()) {
            nodes += doc.html.tree.nodes().count();
            seed(&doc, &std::mem::take(&mut page.answer));
            page.html = String::new();
            parsed.pages.push(page);
            parsed.docs.push(doc);
            parsed.blocks.push(blocks);
        }
        unparsed.extend(pages);
        read += n;
        if let Some(seq) = last_seq {
            from = seq + 1;
        }
        if n < want {
            return Ok((parsed, unparsed, from, 0));
        }
    }
    Ok((parsed, unparsed, from, limit - read))
}

/// Learn `host`'s model from its sample and extract the sample with it, parsing each page
/// once and reading the sample in windows ([`read_sample`]): [`CommitMsg::Learned`], then one
/// [`CommitMsg::Drained`] per sampled page (the returned message is the last). `Learned`
/// without a model when the state cannot be read.
pub(super) fn learn_and_extract(
    ctx: &WorkerContext,
    host: &str,
    generation: u32,
    commit: &Sender<CommitMsg>,
) -> CommitMsg {
    let (parsed, unparsed, from, left) = match read_sample(ctx, host) {
        Ok(sample) => sample,
        Err(e) => {
            tracing::error!(host, "cannot read the sample: {e}");
            return CommitMsg::Learned { host: host.to_string(), model: None };
        }
    };
    let Parsed { pages, docs, blocks } = parsed;
    let mut model = learn_documents(host, &docs, &blocks, ctx.language.as_deref(), &ctx.justext, &ctx.learn);
    model.generation = generation;
    tracing::info!(host, pages = docs.len(), goldminer = model.goldminer.is_some(), generation, "domain model learned");
    let model = Arc::new(model);
    let learned = CommitMsg::Learned { host: host.to_string(), model: Some(Box::new((*model).clone())) };
    let mut out = Outbox { host, commit, held: None };
    if !out.send(learned) {
        return out.finish();
    }
    // The learned pages from their parse, then the sample's other pages, one parse at a time.
    for (page, (doc, blocks)) in pages.into_iter().zip(docs.into_iter().zip(blocks)) {
        let done = waiting_done(page, |s| extract_parsed(&doc, &blocks, &s.final_url, Some(&model), &ctx.tools));
        if !out.page(done) {
            return out.finish();
        }
    }
    let extract = |page: SampledPage| waiting_done(page, |s| extract_waiting(s, Some(&model), &ctx.tools));
    for page in unparsed {
        if !out.page(extract(page)) {
            return out.finish();
        }
    }
    let (mut from, mut left) = (from, left);
    while left > 0 {
        let window = match ctx.state.waiting_window(host, from, DRAIN_WINDOW.min(left)) {
            Ok(w) if !w.is_empty() => w,
            Ok(_) => break,
            Err(e) => {
                tracing::error!(host, "cannot read the sample: {e}");
                break;
            }
        };
        left -= window.len();
        for page in window {
            from = page.seq + 1;
            if !out.page(extract(page)) {
                return out.finish();
            }
        }
    }
    out.finish()
}

/// A job's messages to the committer, one held back so that the last can be returned marked
/// `last` (the committer starts the host's next step on it).
struct Outbox<'a> {
    host: &'a str,
    commit: &'a Sender<CommitMsg>,
    held: Option<Box<WaitingDone>>,
}

impl Outbox<'_> {
    /// Send `msg` at once; false when the committer is gone.
    fn send(&mut self, msg: CommitMsg) -> bool {
        self.commit.send(msg).is_ok()
    }

    /// Hold `page`, sending the one held before; false when the committer is gone.
    fn page(&mut self, page: WaitingDone) -> bool {
        match self.held.replace(Box::new(page)) {
            Some(before) => {
                let msg = CommitMsg::Drained { host: self.host.to_string(), page: Some(before), last: false };
                self.send(msg)
            }
            None => true,
        }
    }

    /// The job's last message: the page held, or none.
    fn finish(self) -> CommitMsg {
        CommitMsg::Drained { host: self.host.to_string(), page: self.held, last: true }
    }
}

/// A waiting page extracted by `job`; a panic in `job` is the extraction error
/// [`ExtractError::Panicked`] (one bad page never stops a crawl).
fn waiting_done(
    s: SampledPage,
    job: impl FnOnce(&SampledPage) -> (Result<PageExtraction, ExtractError>, Option<PageClass>),
) -> WaitingDone {
    let (extraction, class) = catch_unwind(AssertUnwindSafe(|| job(&s))).unwrap_or_else(|_| {
        tracing::error!(url = s.url, "extraction panicked");
        (Err(ExtractError::Panicked), None)
    });
    WaitingDone {
        seq: s.seq,
        url: s.url,
        final_url: s.final_url,
        fetched_at: s.fetched_at,
        status: s.status,
        content_type: s.content_type,
        warc: s.warc,
        stream: s.stream,
        extraction,
        class,
    }
}

/// Extract the pages of `host` waiting in the state, one message each, in crawl order, reading
/// them in windows of [`DRAIN_WINDOW`]; the returned message is the last.
pub(super) fn drain(
    ctx: &WorkerContext,
    host: String,
    model: Option<Arc<DomainModel>>,
    commit: &Sender<CommitMsg>,
) -> CommitMsg {
    let mut out = Outbox { host: &host, commit, held: None };
    let mut from = 0;
    loop {
        if ctx.stop.load(Ordering::Relaxed) {
            return out.finish();
        }
        let pages = match ctx.state.waiting_window(&host, from, DRAIN_WINDOW) {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(host, "cannot read the waiting pages: {e}");
                return out.finish();
            }
        };
        let final_window = pages.len() < DRAIN_WINDOW;
        for s in pages {
            from = s.seq + 1;
            if !out.page(waiting_done(s, |s| extract_waiting(s, model.as_deref(), &ctx.tools))) {
                return out.finish();
            }
        }
        if final_window {
            return out.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::crawl::workers::PageTools;
    use crate::store::{CrawlState, MemoryStore};

    const HOST: &str = "www.freepressokc.com";

    /// Real article pages of a shared site, `n` of them (repeated when the site has fewer);
    /// `None` when the shared data is missing.
    fn pages(n: usize) -> Option<Vec<String>> {
        let files = crate::testdata::site_articles(HOST)?;
        Some((0..n).map(|i| std::fs::read_to_string(&files[i % files.len()]).unwrap()).collect())
    }

    fn context(sample_size: usize, max_sample_nodes: usize, waiting: &[String]) -> WorkerContext {
        let mut cfg = Config::default();
        (cfg.learn.sample_size, cfg.learn.min_sample, cfg.learn.max_sample_nodes) = (sample_size, 2, max_sample_nodes);
        let state = CrawlState::open(Arc::new(MemoryStore::new())).unwrap();
        let mut batch = state.batch();
        for (i, html) in waiting.iter().enumerate() {
            let url = format!("http://{HOST}/page/{i}/");
            let page = SampledPage {
                seq: batch.next_seq(),
                url: url.clone(),
                final_url: url,
                fetched_at: "2026-12-06T00:00:00Z".into(),
                status: 200,
                content_type: Some("text/html".into()),
                html: html.clone(),
                answer: Vec::new(),
                warc: None,
                stream: None,
            };
            batch.put_waiting(HOST, &page).unwrap();
        }
        state.commit(batch).unwrap();
        WorkerContext {
            tools: PageTools {
                kind: cfg.crawl.extractor,
                settings: Arc::new(cfg.extract_settings()),
                classifier: cfg.classify.classifier().unwrap(),
            },
            state,
            learn: cfg.learn.clone(),
            justext: cfg.justext.clone(),
            language: None,
            max_links_per_page: cfg.crawl.max_links_per_page,
            stop: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }

    /// The URLs of the pages a job's messages carry, in order, and whether only the returned
    /// message is marked last.
    fn run(job: impl FnOnce(&Sender<CommitMsg>) -> CommitMsg) -> (Vec<String>, bool, bool) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let last = job(&tx);
        drop(tx);
        let mut sent: Vec<CommitMsg> = rx.into_iter().collect();
        let learned = matches!(sent.first(), Some(CommitMsg::Learned { model: Some(_), .. }));
        if learned {
            sent.remove(0);
        }
        let mut urls = Vec::new();
        let mut marked = Vec::new();
        for msg in sent.into_iter().chain([last]) {
            match msg {
                CommitMsg::Drained { page, last, .. } => {
                    if let Some(page) = page {
                        assert!(page.extraction.is_ok(), "{} extracted", page.url);
                        urls.push(page.url);
                    }
                    marked.push(last);
                }
                _ => panic!("a job sends only its model and its pages"),
            }
        }
        let only_last = marked.last() == Some(&true) && marked.iter().filter(|&&l| l).count() == 1;
        (urls, learned, only_last)
    }

    fn urls(range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| format!("http://{HOST}/page/{i}/")).collect()
    }

    /// The learn job reads the sample in windows, parses for learning only what fits the node
    /// budget (here one window's first pages), and extracts every sample page once, in crawl
    /// order, the pages after the sample left to the drain; the drain then takes those.
    #[test]
    fn the_learn_job_extracts_its_sample_once_in_order_and_the_drain_the_rest() {
        let Some(waiting) = pages(45) else { return };
        let nodes = Document::parse(&waiting[0]).html.tree.nodes().count();
        for max_nodes in [nodes * 3, usize::MAX] {
            let ctx = context(37, max_nodes, &waiting);
            let (sampled, learned, only_last) = run(|tx| learn_and_extract(&ctx, HOST, 0, tx));
            assert!(learned, "the model is sent first");
            assert_eq!(sampled, urls(0..37), "node budget {max_nodes}: the sample, once each, in order");
            assert!(only_last);
            let mut batch = ctx.state.batch();
            for seq in 0..37 {
                batch.delete_waiting(HOST, ctx.state.waiting_pages(HOST, 64).unwrap()[seq].seq);
            }
            ctx.state.commit(batch).unwrap();
            let (drained, _, only_last) = run(|tx| drain(&ctx, HOST.to_string(), None, tx));
            assert_eq!(drained, urls(37..45));
            assert!(only_last);
        }
        // A host that ran dry with fewer pages than a sample (a window and a short one).
        for max_nodes in [nodes * 3, usize::MAX] {
            let ctx = context(100, max_nodes, &waiting[..20]);
            let (sampled, learned, only_last) = run(|tx| learn_and_extract(&ctx, HOST, 0, tx));
            assert!(learned && only_last);
            assert_eq!(sampled, urls(0..20), "node budget {max_nodes}: every page once");
        }
    }
}
