//! The committer driven message by message, as dispatch and the workers drive it: a memory
//! store, the corpus sink's in-memory twin ([`CorpusSink::in_memory`]), real pages of the shared
//! Free Press site, and the jobs and events it sends read back from their channels.

use super::*;
use crate::crawl::messages::{Discard, PageContent, PageResult, PageWork, WaitingDone};
use crate::crawl::sink::CorpusSink;
use crate::crawl::sources::SourceUrls;
use crate::domain::HostPhase;
use crate::extract::pipeline::extract_html;
use crate::extract::ExtractorKind;
use crate::model::Record;
use crate::store::{FrontierEntry, MemoryStore, UrlKind, Validators};
use crate::write::memory::MemoryCorpus;
use crate::write::CorpusFormat;
use tokio::sync::mpsc::UnboundedReceiver;
use url::Url;

const HOST: &str = "www.freepressokc.com";

/// A committer on a fresh memory store whose one host is [`HOST`] (seed `/`), with samples of
/// `sample_size` pages and `min_sample` 2; its corpus in memory.
struct Rig {
    committer: Committer,
    state: CrawlState,
    store: Arc<MemoryStore>,
    jobs: Receiver<WorkItem>,
    /// The workers' spare queue (models learned ahead).
    spare: Receiver<WorkItem>,
    events: UnboundedReceiver<Event>,
    corpus: MemoryCorpus,
}

fn rig(sample_size: usize) -> Rig {
    let mut cfg = Config::default();
    (cfg.learn.sample_size, cfg.learn.min_sample) = (sample_size, 2);
    cfg.warc.enabled = false;
    let store = Arc::new(MemoryStore::new());
    let state = CrawlState::open(store.clone()).unwrap();
    let mut batch = state.batch();
    batch.put_host(&HostRecord { host: HOST.into(), seed: format!("http://{HOST}/"), ..HostRecord::default() });
    state.commit(batch).unwrap();
    let (sink, corpus) = CorpusSink::in_memory(&cfg.dedup, CorpusFormat::Jsonl).unwrap();
    let (work, jobs) = crossbeam_channel::unbounded();
    let (events_tx, events) = tokio::sync::mpsc::unbounded_channel();
    let stop = Arc::new(AtomicBool::new(false));
    let frontier = Box::new(crate::crawl::frontier::LocalFrontier);
    let (spare_tx, spare) = crossbeam_channel::unbounded();
    let committer =
        Committer::open(cfg, state.clone(), sink, work, events_tx, stop, frontier).unwrap().with_spare_queue(spare_tx);
    Rig { committer, state, store, jobs, spare, events, corpus }
}

/// The HTML of the `n`-th article of the shared Free Press site (`None` without the data).
fn article(n: usize) -> Option<String> {
    let pages = crate::testdata::site_articles(HOST)?;
    Some(std::fs::read_to_string(&pages[n]).unwrap())
}

/// Frontier sequence numbers of the pages these tests make up: far above those the store
/// allocates, so that a page done pops no real entry.
const FAKE_SEQ: u64 = 1 << 40;

/// Page `path` of [`HOST`], fetched (200) as ticket `ticket`, with `content` and `links`.
fn page(ticket: u64, path: &str, content: PageContent, links: &[&str]) -> CommitMsg {
    let url = format!("http://{HOST}{path}");
    let links = links.iter().map(|l| Url::parse(l).unwrap()).collect();
    let work = PageWork { links, feeds: Vec::new(), content };
    CommitMsg::Page(Box::new(PageDone {
        host: HOST.into(),
        ticket,
        entry: FrontierEntry { url: url.clone(), depth: 0, seq: FAKE_SEQ + ticket, ..FrontierEntry::default() },
        result: PageResult::Fetched {
            final_url: Url::parse(&url).unwrap(),
            status: 200,
            fetched_at: "2026-11-28T00:00:00Z".into(),
            content_type: Some("text/html".into()),
            body_bytes: 1,
            response_ms: 1,
            delay_ms: 0,
            work: Some(work),
            redirect: None,
            validators: Validators::default(),
        },
        exchanges: Vec::new(),
    }))
}

/// The default extractor's output for `html`, as a worker sends it.
fn extracted(html: &str) -> PageContent {
    let settings = crate::extract::pipeline::ExtractSettings { language: Some("English".into()), ..Default::default() };
    PageContent::Extracted(Box::new(extract_html(html, ExtractorKind::Default, None, &settings)), None)
}

fn corpus(rig: &Rig) -> Vec<Record> {
    rig.corpus.jsonl_records().unwrap()
}

fn jobs(rig: &Rig) -> Vec<String> {
    rig.jobs
        .try_iter()
        .map(|job| match job {
            WorkItem::Learn { host, generation } => format!("learn {host} {generation}"),
            WorkItem::Drain { host, model } => format!("drain {host} model={}", model.is_some()),
            WorkItem::Page { host, .. } => format!("page {host}"),
            WorkItem::Prelearn { host, sampled, .. } => format!("prelearn {host} {sampled}"),
        })
        .collect()
}

fn events(rig: &mut Rig) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(event) = rig.events.try_recv() {
        out.push(match event {
            Event::Committed { pages, .. } => format!("committed {}", pages.len()),
            Event::Model { host, model } => format!("model {host} {}", model.is_some()),
            Event::Resample { host } => format!("resample {host}"),
            Event::Queued(_) => continue,
            _ => "other".to_string(),
        });
    }
    out
}

#[test]
fn pages_are_written_in_ticket_order_and_durable_with_their_group() {
    let (Some(first), Some(second)) = (article(0), article(1)) else { return };
    let mut rig = rig(1);
    // Learned already: pages come extracted. Ticket 1 arrives first and waits for ticket 0.
    rig.committer.book(HOST).rec.learning.phase = HostPhase::Fallback;
    rig.committer.handle(page(1, "/b/", extracted(&second), &[])).unwrap();
    assert!(corpus(&rig).is_empty() && rig.committer.group.pages() == 0, "ticket 1 waits for ticket 0");
    rig.committer.handle(page(0, "/a/", extracted(&first), &[])).unwrap();
    assert!(corpus(&rig).is_empty(), "nothing on disk before the group commit");
    rig.committer.commit().unwrap();
    let urls: Vec<String> = corpus(&rig).into_iter().map(|r| r.url).collect();
    assert_eq!(urls, [format!("http://{HOST}/a/"), format!("http://{HOST}/b/")]);
    let len = rig.corpus.bytes().len() as u64;
    assert_eq!(rig.state.corpus_offset().unwrap(), len, "the store batch holds the synced corpus length");
    let rec = rig.state.host(HOST).unwrap().unwrap();
    assert_eq!((rec.fetched, rec.written), (2, 2));
    assert_eq!(events(&mut rig), ["committed 2"]);
}

#[test]
fn a_full_sample_waits_in_the_state_and_starts_one_learn_job_after_its_commit() {
    let Some(html) = article(0) else { return };
    let mut rig = rig(2);
    rig.committer.handle(page(0, "/a/", PageContent::Waiting { html: html.clone(), answer: Vec::new() }, &[])).unwrap();
    rig.committer.handle(page(1, "/b/", PageContent::Waiting { html: html.clone(), answer: Vec::new() }, &[])).unwrap();
    assert!(jobs(&rig).is_empty(), "the learn job waits for the sample to be durable");
    rig.committer.commit().unwrap();
    assert_eq!(jobs(&rig), [format!("learn {HOST} 0")]);
    rig.committer.handle(page(2, "/c/", PageContent::Waiting { html, answer: Vec::new() }, &[])).unwrap();
    rig.committer.commit().unwrap();
    assert!(jobs(&rig).is_empty(), "one learn job per sample");
    let rec = rig.state.host(HOST).unwrap().unwrap();
    assert_eq!((rec.learning.phase, rec.learning.sampled, rec.learning.waiting), (HostPhase::Sampling, 2, 3));
    assert_eq!(rig.state.waiting_pages(HOST, 10).unwrap().len(), 3);
    assert!(corpus(&rig).is_empty());
}

/// A sampling host asks for its model to be learned ahead once few of its URLs are left
/// (at most `PRELEARN_QUEUED`) and it has `min_sample` pages, once per sample size and after
/// the pages' commit; the learn job at its end is started as before.
#[test]
fn a_host_near_its_end_has_its_model_learned_ahead_after_the_commit() {
    let Some(html) = article(0) else { return };
    let mut rig = rig(100);
    let waiting = || PageContent::Waiting { html: html.clone(), answer: Vec::new() };
    let links: Vec<String> = ["b", "c", "d", "e", "f", "g"].iter().map(|p| format!("http://{HOST}/{p}/")).collect();
    let links: Vec<&str> = links.iter().map(String::as_str).collect();
    let spare = |rig: &Rig| -> Vec<String> {
        rig.spare
            .try_iter()
            .map(|item| match item {
                WorkItem::Prelearn { host, sampled, .. } => format!("prelearn {host} {sampled}"),
                _ => "other".into(),
            })
            .collect()
    };
    rig.committer.handle(page(0, "/a/", waiting(), &links)).unwrap();
    rig.committer.handle(page(1, "/b/", waiting(), &[])).unwrap();
    rig.committer.handle(page(2, "/c/", waiting(), &[])).unwrap();
    rig.committer.commit().unwrap();
    assert!(spare(&rig).is_empty(), "3 pages sampled, but 3 URLs left");
    rig.committer.handle(page(3, "/d/", waiting(), &[])).unwrap();
    assert!(spare(&rig).is_empty(), "asked for after the commit");
    rig.committer.commit().unwrap();
    assert_eq!(spare(&rig), [format!("prelearn {HOST} 4")]);
    rig.committer.commit().unwrap();
    assert!(spare(&rig).is_empty(), "once per sample size");
    rig.committer.handle(page(4, "/e/", waiting(), &[])).unwrap();
    rig.committer.commit().unwrap();
    assert_eq!(spare(&rig), [format!("prelearn {HOST} 5")]);
    rig.committer.handle(CommitMsg::HostDry { host: HOST.into() }).unwrap();
    rig.committer.commit().unwrap();
    assert_eq!(jobs(&rig), [format!("learn {HOST} 0")]);
    assert!(spare(&rig).is_empty(), "a learning host asks for nothing ahead");
}

#[test]
fn a_host_dry_below_min_sample_falls_back_and_drains_without_a_model() {
    let Some(html) = article(0) else { return };
    let mut rig = rig(100);
    rig.committer.handle(page(0, "/a/", PageContent::Waiting { html, answer: Vec::new() }, &[])).unwrap();
    rig.committer.handle(CommitMsg::HostDry { host: HOST.into() }).unwrap();
    rig.committer.commit().unwrap();
    assert_eq!(jobs(&rig), [format!("drain {HOST} model=false")]);
    assert_eq!(events(&mut rig), ["committed 1".to_string(), format!("model {HOST} false")]);
    assert_eq!(rig.state.host(HOST).unwrap().unwrap().learning.phase, HostPhase::Fallback);
}

/// The waiting page `seq` of [`HOST`] at `path`, extracted by a drain job.
fn drained(seq: u64, path: &str, html: &str, last: bool) -> CommitMsg {
    let url = format!("http://{HOST}{path}");
    let PageContent::Extracted(extraction, class) = extracted(html) else { unreachable!() };
    let page = WaitingDone {
        seq,
        url: url.clone(),
        final_url: url,
        fetched_at: "2026-11-28T00:00:00Z".into(),
        status: 200,
        content_type: Some("text/html".into()),
        warc: None,
        stream: None,
        extraction: *extraction,
        class,
    };
    CommitMsg::Drained { host: HOST.into(), page: Some(Box::new(page)), last }
}

#[test]
fn pages_held_back_during_a_drain_are_applied_in_bounded_store_batches() {
    let Some(html) = article(0) else { return };
    let mut rig = rig(100);
    // One page waits for the sample; the next 40 come extracted, each with 300 new links,
    // and are held back behind it (fetch order) until the drain has written it; their links
    // are queued as they come.
    rig.committer.handle(page(0, "/a/", PageContent::Waiting { html: html.clone(), answer: Vec::new() }, &[])).unwrap();
    rig.committer.commit().unwrap();
    let (pages, per_page) = (40, 300);
    for p in 1..=pages {
        let links: Vec<String> = (0..per_page).map(|j| format!("http://{HOST}/p/{p}/{j}.html")).collect();
        let links: Vec<&str> = links.iter().map(String::as_str).collect();
        rig.committer.handle(page(p, &format!("/hub/{p}/"), extracted(&html), &links)).unwrap();
    }
    assert_eq!(rig.committer.book(HOST).deferred.len(), pages as usize);
    rig.committer.handle(CommitMsg::HostDry { host: HOST.into() }).unwrap();
    rig.committer.commit().unwrap();
    let queued = rig.state.frontier_len(HOST).unwrap();
    assert_eq!(queued, pages as usize * per_page, "the held pages' links are fetchable before the drain");
    assert_eq!(rig.state.counters().unwrap().fetched, 1, "the held pages are not applied yet");
    assert_eq!(jobs(&rig), [format!("drain {HOST} model=false")]);
    let seq = rig.state.waiting_pages(HOST, 1).unwrap()[0].seq;
    // One message: the waiting page written, then every page held back applied.
    rig.committer.handle(drained(seq, "/a/", &html, true)).unwrap();
    rig.committer.commit().unwrap();
    let queued = rig.state.frontier_len(HOST).unwrap();
    assert_eq!(queued, pages as usize * per_page, "every link queued once");
    let bound = MAX_GROUP_WRITES + 2 * per_page + 64;
    let largest = rig.store.largest_batch();
    assert!(largest <= bound, "the largest store batch held {largest} writes (bound {bound})");
    let fetched = rig.state.counters().unwrap().fetched;
    assert_eq!(fetched, 1 + pages, "every page applied once (the same text: one record, the rest duplicates)");
}

#[test]
fn links_and_sitemap_urls_pass_the_admission_rule_once() {
    let mut rig = rig(100);
    let links = [
        "http://www.freepressokc.com/x/",
        "http://www.freepressokc.com/x/#comments",
        "http://www.freepressokc.com/paper.pdf",
        "http://other.example/",
        "http://www.freepressokc.com/wp-login.php",
    ];
    let source = PageContent::Source(
        SourceUrls { pages: vec![Url::parse("http://www.freepressokc.com/y/").unwrap()], sitemaps: Vec::new() },
        None,
    );
    rig.committer.handle(page(0, "/a/", PageContent::Refused(Discard::Binary), &links)).unwrap();
    rig.committer.handle(page(1, "/sitemap.xml", source, &[])).unwrap();
    rig.committer.commit().unwrap();
    let queued: Vec<String> = rig.state.frontier_window(HOST, 0, 100).unwrap().into_iter().map(|e| e.url).collect();
    assert_eq!(queued, [format!("http://{HOST}/x/"), format!("http://{HOST}/y/")]);
    assert!(rig.state.host("other.example").unwrap().is_none(), "out of the seed's scope");
}

/// A backend that forwards every URL and records what the committer asks of it.
#[derive(Clone, Default)]
struct Recording(Arc<std::sync::Mutex<Vec<String>>>);

impl Recording {
    fn log(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

impl FrontierBackend for Recording {
    fn forward(&mut self, url: crate::crawl::frontier::NewUrl<'_>) -> bool {
        self.log(format!("forward {}", url.url));
        true
    }
    fn holds(&self, host: &str) -> bool {
        host == HOST
    }
    fn finished(&mut self, url: &str, tag: Option<&str>) -> bool {
        self.log(format!("finished {url} {}", tag.unwrap_or("-")));
        true
    }
    fn finished_in_group(&self, _url: &str) -> bool {
        false
    }
    fn acknowledge(&mut self, tag: &str) {
        self.log(format!("ack {tag}"));
    }
    fn before_commit(&mut self) -> Result<(), CrawlError> {
        self.log("before".into());
        Ok(())
    }
    fn after_commit(&mut self) -> Result<(), CrawlError> {
        self.log("after".into());
        Ok(())
    }
    fn partition(&self, _host: &str) -> u32 {
        0
    }
    fn released(&mut self, partition: u32) {
        self.log(format!("released {partition}"));
    }
}

fn delivered(url: &str, tag: &str, host: &str) -> crate::crawl::frontier::Delivered {
    crate::crawl::frontier::Delivered {
        tag: tag.into(),
        host: host.into(),
        url: url.into(),
        depth: 1,
        kind: UrlKind::Page,
        seed: format!("http://{host}/"),
        cap: None,
    }
}

#[test]
fn a_forwarding_backend_gets_the_links_and_acknowledges_deliveries_after_their_commit() {
    let mut rig = rig(100);
    let log = Recording::default();
    rig.committer.frontier = Box::new(log.clone());
    rig.committer.book(HOST).rec.learning.phase = HostPhase::Fallback;
    // Links found here are forwarded, not queued here; published just before the store batch.
    let link = format!("http://{HOST}/x/");
    rig.committer.handle(page(0, "/a/", PageContent::Refused(Discard::Binary), &[&link])).unwrap();
    rig.committer.commit().unwrap();
    let a = format!("http://{HOST}/a/");
    assert_eq!(log.take(), [format!("finished {a} -"), format!("forward {link}"), "before".into(), "after".into()]);
    assert!(rig.state.frontier_window(HOST, 0, 10).unwrap().is_empty(), "nothing queued here");
    assert!(rig.state.is_done(&a).unwrap(), "a finished URL is marked done for a second delivery");
    // A delivery of this worker's host is queued with its tag; another host's is left alone.
    let (x, other) = (delivered(&link, "0/1-1", HOST), delivered("http://other.example/", "0/1-2", "other.example"));
    rig.committer.handle(CommitMsg::Remote(vec![x.clone(), other])).unwrap();
    rig.committer.commit().unwrap();
    let queued = rig.state.frontier_window(HOST, 0, 10).unwrap();
    assert_eq!(
        queued.iter().map(|e| (e.url.as_str(), e.stream.as_deref())).collect::<Vec<_>>(),
        [(link.as_str(), Some("0/1-1"))]
    );
    assert!(rig.state.host("other.example").unwrap().is_none());
    log.take();
    // Its outcome names the tag; delivered again once done, it is acknowledged at once.
    let mut fetched = page(1, "/x/", PageContent::Refused(Discard::Binary), &[]);
    if let CommitMsg::Page(done) = &mut fetched {
        done.entry = queued[0].clone();
    }
    rig.committer.handle(fetched).unwrap();
    rig.committer.commit().unwrap();
    assert_eq!(log.take(), [format!("finished {link} 0/1-1"), "before".into(), "after".into()]);
    rig.committer.handle(CommitMsg::Remote(vec![delivered(&link, "0/1-3", HOST)])).unwrap();
    assert_eq!(log.take(), ["ack 0/1-3"], "a URL whose outcome is committed is acknowledged, not queued");
    assert!(rig.state.frontier_window(HOST, 0, 10).unwrap().is_empty());
}
