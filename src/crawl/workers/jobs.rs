//! The committer's jobs on the worker pool: a host's learn job (its model from its sample,
//! GoldMiner §III.A and StaDyNoT §3, then the sample extracted with it) and drain jobs (the
//! pages that waited for a model). Both read the waiting pages from the state in windows of
//! [`DRAIN_WINDOW`], never all at once, and send one [`CommitMsg::Drained`] per page in crawl
//! order; the message a job returns is its last.

use super::{extract_and_classify, extract_parsed, Ahead, WorkerContext};
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
/// without a model when the state cannot be read. What was done ahead for the same sample
/// pages and generation ([`prelearn`]) is taken instead of being done again.
pub(super) fn learn_and_extract(
    ctx: &WorkerContext,
    host: &str,
    generation: u32,
    commit: &Sender<CommitMsg>,
) -> CommitMsg {
    let ahead = match ctx.state.waiting_seqs(host, ctx.learn.sample_size) {
        Ok(seqs) => ctx.premodels.take(host, &seqs, generation),
        Err(_) => None,
    };
    let mut out = Outbox { host, commit, held: None };
    if let Some(Ahead { model, pages: Some(pages), .. }) = ahead {
        tracing::info!(
            host,
            pages = pages.len(),
            goldminer = model.goldminer.is_some(),
            generation,
            "domain model learned ahead"
        );
        if !out.send(CommitMsg::Learned { host: host.to_string(), model: Some(Box::new(model)) }) {
            return out.finish();
        }
        for page in pages {
            if !out.page(page) {
                return out.finish();
            }
        }
        return out.finish();
    }
    let (parsed, unparsed, from, left) = match read_sample(ctx, host) {
        Ok(sample) => sample,
        Err(e) => {
            tracing::error!(host, "cannot read the sample: {e}");
            return CommitMsg::Learned { host: host.to_string(), model: None };
        }
    };
    let model = match ahead {
        Some(ahead) => ahead.model,
        None => {
            let mut model =
                learn_documents(host, &parsed.docs, &parsed.blocks, ctx.language.as_deref(), &ctx.justext, &ctx.learn);
            model.generation = generation;
            model
        }
    };
    tracing::info!(
        host,
        pages = parsed.docs.len(),
        goldminer = model.goldminer.is_some(),
        generation,
        "domain model learned"
    );
    let model = Arc::new(model);
    if !out.send(CommitMsg::Learned { host: host.to_string(), model: Some(Box::new((*model).clone())) }) {
        return out.finish();
    }
    extract_sample(ctx, host, &model, Sample { parsed, unparsed, from, left }, |page| out.page(page));
    out.finish()
}

/// A sample as [`read_sample`] read it: the parsed pages, those read but not parsed, where to
/// read on and how many sample pages are left there.
struct Sample {
    parsed: Parsed,
    unparsed: Vec<SampledPage>,
    from: u64,
    left: usize,
}

/// Extract every page of `sample` with `model`, in crawl order, handing each to `sink`: the
/// parsed pages from their parse, then the others, then the rest of the sample read from the
/// state in windows. Stops when `sink` returns false.
fn extract_sample(
    ctx: &WorkerContext,
    host: &str,
    model: &Arc<DomainModel>,
    sample: Sample,
    mut sink: impl FnMut(WaitingDone) -> bool,
) {
    let Sample { parsed: Parsed { pages, docs, blocks }, unparsed, from, left } = sample;
    for (page, (doc, blocks)) in pages.into_iter().zip(docs.into_iter().zip(blocks)) {
        let done = waiting_done(page, |s| extract_parsed(&doc, &blocks, &s.final_url, Some(model), &ctx.tools));
        if !sink(done) {
            return;
        }
    }
    let extract = |page: SampledPage| waiting_done(page, |s| extract_waiting(s, Some(model), &ctx.tools));
    for page in unparsed {
        if !sink(extract(page)) {
            return;
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
            if !sink(extract(page)) {
                return;
            }
        }
    }
}

/// Do ahead of `host`'s learn job ([`crate::crawl::messages::WorkItem::Prelearn`]) what it
/// would do with the `sampled` pages waiting now: learn the model of `generation` from them,
/// read and parsed as the job reads them ([`read_sample`]), and extract them with it, while
/// the extracted pages fit [`super::PREEXTRACTED_BYTES`] (else the model is kept alone); kept
/// in `ctx.premodels` for that job. Nothing is done when other than `sampled` pages wait (the
/// sample changed since it was asked for) or the same pages were done ahead already.
pub(super) fn prelearn(ctx: &WorkerContext, host: &str, sampled: u64, generation: u32) {
    let limit = ctx.learn.sample_size;
    let seqs = match ctx.state.waiting_seqs(host, limit) {
        Ok(seqs) if seqs.len() as u64 == sampled && seqs.len() < limit => seqs,
        _ => return,
    };
    if ctx.premodels.holds(host, &seqs) {
        return;
    }
    let Ok((parsed, unparsed, from, left)) = read_sample(ctx, host) else { return };
    if parsed.pages.len() + unparsed.len() + left != seqs.len() {
        return;
    }
    let mut model =
        learn_documents(host, &parsed.docs, &parsed.blocks, ctx.language.as_deref(), &ctx.justext, &ctx.learn);
    model.generation = generation;
    let model = Arc::new(model);
    let (mut pages, mut bytes, mut fits) = (Vec::new(), 0, true);
    extract_sample(ctx, host, &model, Sample { parsed, unparsed, from, left }, |page| {
        bytes += super::estimated_bytes(&page);
        fits = ctx.premodels.has_room(bytes);
        pages.push(page);
        fits
    });
    let model = Arc::try_unwrap(model).unwrap_or_else(|shared| (*shared).clone());
    let pages = (fits && pages.len() == seqs.len()).then_some(pages);
    ctx.premodels.put(host, Ahead::new(seqs, model, pages));
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
            premodels: Default::default(),
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

    /// What is done ahead is what the learn job does with the same pages: the same model and
    /// the same extracted pages, which the job then takes; a request for another number of
    /// pages than wait does nothing, and what was done for other pages is not used.
    #[test]
    fn a_model_learned_ahead_is_the_learn_jobs_own() {
        let Some(waiting) = pages(12) else { return };
        let learned = |ctx: &WorkerContext| {
            let (tx, rx) = crossbeam_channel::unbounded();
            let last = learn_and_extract(ctx, HOST, 3, &tx);
            drop(tx);
            let mut sent = rx.into_iter().chain([last]);
            let model = match sent.next() {
                Some(CommitMsg::Learned { model: Some(model), .. }) => serde_json::to_value(&*model).unwrap(),
                _ => panic!("the model is sent first"),
            };
            let pages: Vec<(String, Vec<String>, Option<u32>)> = sent
                .filter_map(|msg| match msg {
                    CommitMsg::Drained { page: Some(page), .. } => {
                        let ex = page.extraction.expect("extracted");
                        Some((page.url, ex.paragraphs.into_iter().map(|p| p.text).collect(), ex.model_generation))
                    }
                    _ => None,
                })
                .collect();
            (model, pages)
        };
        let reference = learned(&context(100, usize::MAX, &waiting));
        assert_eq!(reference.0["generation"], 3);
        assert_eq!(reference.1.len(), 12);
        // A node budget that leaves pages unparsed, and one that parses them all.
        let nodes = Document::parse(&waiting[0]).html.tree.nodes().count();
        for max_nodes in [nodes * 3, usize::MAX] {
            let reference = learned(&context(100, max_nodes, &waiting));
            let ctx = context(100, max_nodes, &waiting);
            let seqs = ctx.state.waiting_seqs(HOST, 100).unwrap();
            prelearn(&ctx, HOST, 11, 3);
            prelearn(&ctx, HOST, 13, 3);
            assert!(!ctx.premodels.holds(HOST, &seqs), "12 pages wait, not 11 or 13: nothing done");
            prelearn(&ctx, HOST, 12, 3);
            assert!(ctx.premodels.holds(HOST, &seqs));
            assert_eq!(learned(&ctx), reference, "node budget {max_nodes}");
            assert!(!ctx.premodels.holds(HOST, &seqs), "taken by the learn job");
            // Done ahead for another generation: not taken.
            prelearn(&ctx, HOST, 12, 2);
            assert_eq!(learned(&ctx), reference);
        }
        // Done for other pages: let go, not used.
        let other = context(100, usize::MAX, &waiting);
        other
            .premodels
            .put(HOST, Ahead::new(vec![7, 8, 9], DomainModel { generation: 3, ..DomainModel::default() }, None));
        assert_eq!(learned(&other), reference);
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
