//! [`Committer`]: the crawl's single writer (ARCHITECTURE.md, "The crawl engine"). It owns,
//! privately, Onion's seen n-gram set and hash log, the corpus writer, the host records and
//! every write to the store, and runs on its own thread. Steps per message:
//!
//! 1. a page outcome is put in its host's fetch order (tickets), then applied: frontier entry
//!    done, links queued (seen set, scope, depth and per-host caps), and either the page kept
//!    in the state until the host's model is there, or its extraction deduplicated (Onion,
//!    in memory) and its record appended;
//! 2. a group commit — after `commit_pages` pages or `commit_interval` — syncs the corpus and
//!    the hash log once, then applies one store batch with their lengths, the host records and
//!    the counters (crash safety holds per group: on resume both files are cut back to the
//!    committed lengths and the group's pages are fetched again);
//! 3. after the commit, dispatch hears which pages are durable and which hosts have new
//!    work, and the learn and drain jobs the group asked for go to the worker pool.
//!
//! A host's sample fills → learn job, which then extracts the sample it parsed; a drain job
//! extracts the pages that waited beyond the sample (in crawl order), while later pages of that host wait in memory until the drain is done, so
//! the corpus keeps fetch order within a host whatever the worker timing.

mod cluster;
mod hosts_view;
use crate::classify::{PageClass, PageType};
use crate::config::Config;
use crate::crawl::address::AddressPolicy;
use crate::crawl::messages::{
    send_queued, CommitMsg, Discard, Event, PageContent, PageDone, PageResult, WaitingDone, WorkItem,
};
use crate::crawl::record::{record_of, RecordSource};
use crate::crawl::robots::{RobotsEntry, RobotsStatus};
use crate::crawl::snapshot::SNAPSHOT_INTERVAL;
use crate::crawl::sources::MAX_SITEMAP_DEPTH;
use crate::crawl::url::{host_key, in_scope, looks_like_html, normalize};
use crate::crawl::CrawlError;
use crate::dedup::log::HashLog;
use crate::dedup::{Onion, OnionScratch, SeenSet};
use crate::domain::DomainModel;
use crate::extract::pipeline::{ModelUse, PageExtraction};
use crate::extract::ExtractError;
use crate::store::{
    Counters, CrawlState, FetchedPageEntry, FrontierEntry, HostPhase, HostRecord, SampledPage, StateBatch, UrlKind,
};
use crate::write::warc::{HttpExchange, WarcRef, WarcWriter};
use crate::write::{CorpusFormat, CorpusWriter};
pub use cluster::{forget_unowned, CommitterCluster};
use crossbeam_channel::{Receiver, Sender};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// The committer's view of one host.
struct HostBook {
    rec: HostRecord,
    /// The next ticket to apply; later ones wait in `early`.
    next_ticket: u64,
    early: BTreeMap<u64, Box<PageDone>>,
    /// Extracted pages that wait for the host's waiting pages to be written first.
    deferred: VecDeque<Box<PageDone>>,
    learning: bool,
    draining: bool,
    /// The model stopped matching during a drain: sample the host again once it is over.
    resample_after_drain: bool,
    model: Option<Arc<DomainModel>>,
}

impl HostBook {
    fn new(rec: HostRecord) -> HostBook {
        HostBook {
            rec,
            next_ticket: 0,
            early: BTreeMap::new(),
            deferred: VecDeque::new(),
            learning: false,
            draining: false,
            resample_after_drain: false,
            model: None,
        }
    }
}

/// Where a record came from.
struct PageMeta<'a> {
    url: &'a str,
    final_url: &'a str,
    fetched_at: &'a str,
    status: u16,
    content_type: Option<String>,
    warc: Option<WarcRef>,
}

/// A test hook: abort the process (as a `kill -9` would stop it) at a chosen point, from the
/// `WEBCORPUS_DIE_AT` environment variable: `group:N` after the N-th group's corpus and hash
/// log are synced but before its store batch; `learned:N` when the N-th model arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DieAt {
    /// Inside the N-th group commit.
    Group(u64),
    /// On the N-th learned model.
    Learned(u64),
}

impl DieAt {
    /// Read `WEBCORPUS_DIE_AT`.
    pub fn from_env() -> Option<DieAt> {
        let v = std::env::var("WEBCORPUS_DIE_AT").ok()?;
        let (kind, n) = v.split_once(':')?;
        let n = n.parse().ok()?;
        match kind {
            "group" => Some(DieAt::Group(n)),
            "learned" => Some(DieAt::Learned(n)),
            _ => None,
        }
    }
}

/// The single writer; build with [`Committer::open`], run with [`Committer::run`].
pub struct Committer {
    cfg: Config,
    state: CrawlState,
    writer: Box<dyn CorpusWriter + Send>,
    /// The WARC output (`[warc] enabled`).
    warc: Option<WarcWriter>,
    format: CorpusFormat,
    onion: Onion,
    scratch: OnionScratch,
    seen: SeenSet,
    log: HashLog,
    counters: Counters,
    hosts: HashMap<String, HostBook>,
    batch: StateBatch,
    /// The open group: pages applied (one host key each), hosts with new work, dirty hosts,
    /// URLs marked seen, when it started.
    group_pages: Vec<String>,
    group_work: BTreeMap<String, String>,
    group_dirty: HashSet<String>,
    group_seen: HashSet<u128>,
    group_start: Option<Instant>,
    /// Jobs and events that wait for the group to be durable.
    after_commit: Vec<WorkItem>,
    events_after_commit: Vec<Event>,
    overflow: VecDeque<WorkItem>,
    jobs_running: usize,
    received_pages: u64,
    finish: Option<(u64, bool)>,
    groups: u64,
    learned_models: u64,
    die_at: Option<DieAt>,
    /// The status snapshot: when it was last written, and the run's start.
    last_snapshot: Option<Instant>,
    run_started_at: String,
    counters_at_start: Counters,
    work: Sender<WorkItem>,
    events: tokio::sync::mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
    /// Links to refused IP literals (`http://10.0.0.1/`) are not queued (scope `any`).
    addresses: AddressPolicy,
    /// Cluster crawl: URLs go through the partition streams ([`cluster`]).
    cluster: Option<cluster::ClusterBook>,
    /// The last errors, for the status snapshot.
    last_errors: VecDeque<crate::crawl::snapshot::ErrorLine>,
}

impl Committer {
    /// Open the committer on `state`: the corpus writer (already cut back to the committed
    /// offset), the hash log at `log_path` (cut back likewise and read into the seen set),
    /// the host records, and the learn and drain jobs a killed run left to do.
    ///
    /// # Errors
    /// The store's, the hash log's.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        cfg: Config,
        state: CrawlState,
        writer: Box<dyn CorpusWriter + Send>,
        warc: Option<WarcWriter>,
        log_path: &Path,
        work: Sender<WorkItem>,
        events: tokio::sync::mpsc::UnboundedSender<Event>,
        stop: Arc<AtomicBool>,
        cluster: Option<CommitterCluster>,
    ) -> Result<Committer, CrawlError> {
        let mut seen = SeenSet::new(cfg.dedup.seen_params());
        let log = HashLog::open(log_path, state.hash_log_len()?, |h| {
            seen.insert(h);
        })?;
        let mut hosts = HashMap::new();
        let mut jobs = Vec::new();
        for rec in state.hosts()? {
            let mut book = HostBook::new(rec);
            match book.rec.phase {
                HostPhase::Sampling if book.rec.sampled >= cfg.learn.sample_size as u64 => {
                    book.learning = true;
                    jobs.push(WorkItem::Learn { host: book.rec.host.clone(), generation: book.rec.relearned });
                }
                HostPhase::Sampling => {
                    // A host sampled again keeps its earlier model until the new one is there.
                    book.model = state.model::<DomainModel>(&book.rec.host)?.map(Arc::new);
                }
                HostPhase::Learned | HostPhase::Fallback => {
                    book.model = state.model::<DomainModel>(&book.rec.host)?.map(Arc::new);
                    if book.rec.waiting > 0 {
                        book.draining = true;
                        jobs.push(WorkItem::Drain { host: book.rec.host.clone(), model: book.model.clone() });
                    }
                }
            }
            hosts.insert(book.rec.host.clone(), book);
        }
        let counters = state.counters()?;
        let format = cfg.crawl.format;
        let cfg_allow = cfg.net.allow.clone();
        Ok(Committer {
            onion: Onion::new(cfg.dedup.onion())?,
            die_at: DieAt::from_env(),
            batch: state.batch(),
            cfg,
            state,
            writer,
            warc,
            format,
            scratch: OnionScratch::default(),
            seen,
            log,
            counters: counters.clone(),
            hosts,
            group_pages: Vec::new(),
            group_work: BTreeMap::new(),
            group_dirty: HashSet::new(),
            group_seen: HashSet::new(),
            group_start: None,
            after_commit: jobs,
            events_after_commit: Vec::new(),
            overflow: VecDeque::new(),
            jobs_running: 0,
            received_pages: 0,
            finish: None,
            groups: 0,
            learned_models: 0,
            last_snapshot: None,
            run_started_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            counters_at_start: counters,
            work,
            events,
            stop,
            addresses: AddressPolicy::new(&cfg_allow).unwrap_or_default(),
            cluster: cluster.map(cluster::ClusterBook::new),
            last_errors: VecDeque::new(),
        })
    }

    /// Run until dispatch says [`CommitMsg::Finish`] and everything it implies is durable.
    /// Messages come from the workers (`results`) and from dispatch (`direct`).
    ///
    /// # Errors
    /// What stops a crawl: the store, the corpus file, the hash log.
    pub fn run(mut self, results: Receiver<CommitMsg>, direct: Receiver<CommitMsg>) -> Result<(), CrawlError> {
        self.launch_jobs();
        loop {
            if let Some((dispatched, interrupted)) = self.finish {
                let jobs_done = self.jobs_running == 0
                    && (interrupted || (self.overflow.is_empty() && self.after_commit.is_empty()));
                if self.received_pages >= dispatched && jobs_done {
                    self.commit()?;
                    self.write_snapshot(false);
                    return Ok(());
                }
            }
            let wait = match self.group_start {
                Some(start) => self.cfg.crawl.commit_interval.saturating_sub(start.elapsed()),
                None => Duration::from_millis(200),
            };
            let msg = crossbeam_channel::select! {
                recv(results) -> m => m.ok(),
                recv(direct) -> m => m.ok(),
                default(wait) => None,
            };
            if let Some(msg) = msg {
                self.handle(msg)?;
            }
            let full = self.group_pages.len() >= self.cfg.crawl.commit_pages || self.batch.len() >= MAX_GROUP_WRITES;
            let due = self.group_start.is_some_and(|s| s.elapsed() >= self.cfg.crawl.commit_interval);
            if full || due || (self.group_start.is_none() && !self.after_commit.is_empty()) {
                self.commit()?;
            }
            self.push_overflow();
        }
    }

    fn book(&mut self, host: &str) -> &mut HostBook {
        if !self.hosts.contains_key(host) {
            let book = HostBook::new(HostRecord { host: host.to_string(), ..HostRecord::default() });
            self.hosts.insert(host.to_string(), book);
        }
        self.hosts.get_mut(host).expect("just inserted")
    }

    fn touch(&mut self, host: &str) {
        self.group_start.get_or_insert_with(Instant::now);
        self.group_dirty.insert(host.to_string());
    }

    fn handle(&mut self, msg: CommitMsg) -> Result<(), CrawlError> {
        match msg {
            CommitMsg::Page(done) => {
                self.received_pages += 1;
                let host = done.host.clone();
                let book = self.book(&host);
                book.early.insert(done.ticket, done);
                loop {
                    let book = self.book(&host);
                    let Some(done) = book.early.remove(&book.next_ticket) else { break };
                    book.next_ticket += 1;
                    let waits = book.rec.waiting > 0 && is_extracted(&done);
                    if waits {
                        book.deferred.push_back(done);
                    } else {
                        self.apply_page(*done)?;
                    }
                }
                self.check_yield(&host);
            }
            CommitMsg::Exchanges { host, exchanges } => {
                self.write_exchanges(&exchanges)?;
                self.touch(&host);
            }
            CommitMsg::Robots { host, entry } => {
                self.enqueue_sitemaps(&host, &entry)?;
                self.batch.put_robots(&host, &entry);
                // Answered: a host given up in an earlier run is back.
                self.book(&host).rec.dead = false;
                self.touch(&host);
            }
            CommitMsg::HostDead { host } => {
                self.book(&host).rec.dead = true;
                self.touch(&host);
            }
            CommitMsg::HostDry { host } => self.host_dry(&host),
            CommitMsg::Learned { host, model } => {
                self.book(&host).learning = false;
                if model.is_none() {
                    self.jobs_running -= 1;
                }
                if let Some(model) = model {
                    self.learned_models += 1;
                    if self.die_at == Some(DieAt::Learned(self.learned_models)) {
                        std::process::abort();
                    }
                    self.batch.put_model(&host, &*model);
                    let model = Arc::new(*model);
                    let book = self.book(&host);
                    book.rec.phase = HostPhase::Learned;
                    book.model = Some(model.clone());
                    book.rec.model_since_fetched = book.rec.fetched;
                    (book.rec.window_pages, book.rec.window_missed) = (0, 0);
                    book.rec.baseline_missed_share = None;
                    // The learn job goes on as the drain of the sample it parsed.
                    book.draining = true;
                    self.events_after_commit.push(Event::Model { host: host.clone(), model: Some(model) });
                    self.touch(&host);
                }
            }
            CommitMsg::Drained { host, page, last } => {
                if let Some(page) = page {
                    self.apply_waiting(&host, *page)?;
                }
                if last {
                    self.jobs_running -= 1;
                    self.book(&host).draining = false;
                    if self.book(&host).rec.waiting > 0 {
                        self.schedule_drain(&host);
                    } else {
                        while let Some(done) = self.book(&host).deferred.pop_front() {
                            self.apply_page(*done)?;
                        }
                        if self.book(&host).resample_after_drain && !self.book(&host).draining {
                            self.resample(&host);
                        }
                    }
                }
                self.check_yield(&host);
            }
            CommitMsg::Remote(entries) => self.receive(entries)?,
            CommitMsg::Release { partition } => self.start_release(partition),
            CommitMsg::Finish { dispatched, interrupted } => {
                self.finish = Some((dispatched, interrupted));
                if interrupted {
                    self.after_commit.clear();
                    self.jobs_running -= self.overflow.len();
                    self.overflow.clear();
                }
            }
        }
        Ok(())
    }

    /// A host ran dry (or was given up) while sampling: learn from at least `min_sample`
    /// pages (a full `sample_size` when it is sampled again to re-learn its model), else
    /// jusText alone (or the earlier model) for its waiting and later pages.
    fn host_dry(&mut self, host: &str) {
        let (min_sample, sample_size) = (self.cfg.learn.min_sample as u64, self.cfg.learn.sample_size as u64);
        let book = self.book(host);
        if book.rec.phase != HostPhase::Sampling || book.learning {
            return;
        }
        // A host sampled again replaces its model only with one learned from a full sample.
        let needed = if book.model.is_some() { sample_size } else { min_sample };
        if book.rec.sampled >= needed && book.rec.sampled > 0 {
            book.learning = true;
            let generation = book.rec.relearned;
            self.after_commit.push(WorkItem::Learn { host: host.to_string(), generation });
            self.group_start.get_or_insert_with(Instant::now);
            return;
        }
        if let Some(model) = book.model.clone() {
            // Sampled again, but fewer than `sample_size` new pages came: the earlier model stays.
            book.rec.phase = HostPhase::Learned;
            (book.rec.window_pages, book.rec.window_missed) = (0, 0);
            book.rec.baseline_missed_share = None;
            tracing::info!(host, sampled = book.rec.sampled, "too few pages to re-learn: the model stays");
            self.events_after_commit.push(Event::Model { host: host.to_string(), model: Some(model) });
            self.schedule_drain(host);
            self.touch(host);
            return;
        }
        book.rec.phase = HostPhase::Fallback;
        tracing::info!(host, sampled = book.rec.sampled, "sample below min_sample: jusText alone");
        self.events_after_commit.push(Event::Model { host: host.to_string(), model: None });
        self.schedule_drain(host);
        self.touch(host);
    }

    /// Count a page extracted with `host`'s model of `generation` (`missed`: no template on the
    /// page, or rejected by the guard), in fetch order from the model's sample on (the sample's
    /// own pages show how the model fits the site). At the end of each `[learn] relearn_window`
    /// pages, a window whose missed share is `relearn_miss_rise` above the model's first window
    /// sends the host back to sampling ([`Committer::resample`]; after the drain in progress,
    /// which must not take the fresh sample's pages): the site changed, the model is learned
    /// again from fresh pages (at most `max_relearns` times).
    fn watch_model(&mut self, host: &str, generation: u32, missed: bool) {
        let learn = &self.cfg.learn;
        let (window, rise, max_relearns) = (learn.relearn_window as u64, learn.relearn_miss_rise, learn.max_relearns);
        let book = self.book(host);
        // Pages extracted with an earlier model (in flight when the host was sampled again) do
        // not count for the new one.
        if window == 0 || book.rec.phase != HostPhase::Learned || generation != book.rec.relearned {
            return;
        }
        book.rec.window_pages += 1;
        book.rec.window_missed += u64::from(missed);
        if book.rec.window_pages < window {
            return;
        }
        let share = book.rec.window_missed as f64 / book.rec.window_pages as f64;
        (book.rec.window_pages, book.rec.window_missed) = (0, 0);
        let Some(baseline) = book.rec.baseline_missed_share else {
            book.rec.baseline_missed_share = Some(share);
            return;
        };
        if share < baseline + rise || book.rec.relearned >= max_relearns {
            return;
        }
        tracing::info!(host, missed_share = share, baseline, "the model stopped matching: sampling the host again");
        if book.draining {
            book.resample_after_drain = true;
        } else {
            self.resample(host);
        }
    }

    /// Send `host` back to sampling: dispatch keeps its next pages for a fresh sample.
    fn resample(&mut self, host: &str) {
        let book = self.book(host);
        book.resample_after_drain = false;
        book.rec.phase = HostPhase::Sampling;
        book.rec.sampled = 0;
        book.rec.relearned += 1;
        book.rec.baseline_missed_share = None;
        self.events_after_commit.push(Event::Resample { host: host.to_string() });
        self.touch(host);
    }

    fn schedule_drain(&mut self, host: &str) {
        let book = self.book(host);
        if book.draining || book.rec.waiting == 0 || book.rec.phase == HostPhase::Sampling {
            return;
        }
        book.draining = true;
        let model = book.model.clone();
        self.after_commit.push(WorkItem::Drain { host: host.to_string(), model });
        self.group_start.get_or_insert_with(Instant::now);
    }

    fn discard(&mut self, host: &str, why: Discard) {
        let key = why.key();
        *self.book(host).rec.discards.entry(key.clone()).or_default() += 1;
        *self.counters.discards.entry(key).or_default() += 1;
    }

    /// Step 1: one dispatched page, in its host's fetch order.
    fn apply_page(&mut self, done: PageDone) -> Result<(), CrawlError> {
        let PageDone { host, entry, result, exchanges, .. } = done;
        let warc = self.write_exchanges(&exchanges)?;
        self.touch(&host);
        self.group_pages.push(host.clone());
        let (final_url, status, fetched_at, content_type, work) = match result {
            PageResult::RobotsDisallowed => {
                self.batch.pop_frontier(&host, entry.seq);
                self.finish_url(&entry.url, entry.stream.as_deref());
                self.counters.robots_disallowed += 1;
                self.discard(&host, Discard::RobotsDisallowed);
                return Ok(());
            }
            PageResult::FetchFailed { reason } => {
                self.batch.pop_frontier(&host, entry.seq);
                self.finish_url(&entry.url, entry.stream.as_deref());
                self.counters.failed += 1;
                self.discard(&host, Discard::Fetch(reason));
                self.note_error(&entry.url, reason.to_string());
                return Ok(());
            }
            PageResult::Retry => {
                self.counters.fetched += 1;
                self.book(&host).rec.fetched += 1;
                return Ok(());
            }
            PageResult::Fetched {
                final_url,
                status,
                fetched_at,
                content_type,
                body_bytes,
                response_ms,
                delay_ms,
                work,
                redirect,
                validators,
            } => {
                if let Some(target) = redirect {
                    self.enqueue_redirect(&host, &entry, target)?;
                }
                if (200..300).contains(&status) {
                    // The URL the validators belong to: after redirects.
                    let (url, depth, kind) = (final_url.to_string(), entry.depth, entry.kind);
                    let page = FetchedPageEntry { url, host: host.clone(), depth, validators, kind };
                    self.batch.put_fetched_page(&page);
                }
                let rec = &mut self.book(&host).rec;
                rec.body_bytes += body_bytes;
                rec.response_ms += response_ms;
                rec.delay_ms = delay_ms;
                (final_url, status, fetched_at, content_type, work)
            }
        };
        self.counters.fetched += 1;
        let book = self.book(&host);
        book.rec.fetched += 1;
        book.rec.dead = false;
        self.batch.pop_frontier(&host, entry.seq);
        if final_url.as_str() != entry.url {
            self.mark_seen(final_url.as_str());
            self.finish_url(final_url.as_str(), None);
        }
        // A page kept for the sample is finished when its record is written.
        let waits = (200..300).contains(&status)
            && status != 304
            && matches!(&work, Some(w) if matches!(w.content, PageContent::Waiting(_)));
        if !waits {
            self.finish_url(&entry.url, entry.stream.as_deref());
        }
        let work = match work {
            _ if status == 304 => {
                self.discard(&host, Discard::NotModified);
                return Ok(());
            }
            _ if !(200..300).contains(&status) && !entry.kind.is_page() => {
                self.discard(&host, Discard::SourceUnavailable(entry.kind));
                return Ok(());
            }
            _ if !(200..300).contains(&status) => {
                if status >= 500 {
                    self.note_error(&entry.url, Discard::Http(status).key());
                }
                self.discard(&host, Discard::Http(status));
                return Ok(());
            }
            None => {
                self.note_error(&entry.url, Discard::ProcessingFailed.key());
                self.discard(&host, Discard::ProcessingFailed);
                return Ok(());
            }
            Some(work) => work,
        };
        self.enqueue_links(&host, &entry, &work.links)?;
        for feed in &work.feeds {
            self.queue_source(&host, feed, UrlKind::Feed, 0)?;
        }
        match work.content {
            PageContent::Source(urls) => {
                match entry.kind {
                    UrlKind::Feed => self.counters.feeds += 1,
                    _ => self.counters.sitemaps += 1,
                }
                self.counters.source_urls += urls.pages.len() as u64;
                self.enqueue_links(&host, &entry, &urls.pages)?;
                if entry.depth + 1 < MAX_SITEMAP_DEPTH {
                    for sitemap in &urls.sitemaps {
                        self.queue_source(&host, sitemap, UrlKind::Sitemap, entry.depth + 1)?;
                    }
                }
            }
            PageContent::Failed => {
                self.note_error(&entry.url, Discard::ProcessingFailed.key());
                self.discard(&host, Discard::ProcessingFailed);
            }
            PageContent::Refused(why) => self.discard(&host, why),
            PageContent::Extracted(extraction, class) => {
                let meta = PageMeta {
                    url: &entry.url,
                    final_url: final_url.as_str(),
                    fetched_at: &fetched_at,
                    status,
                    content_type,
                    warc,
                };
                self.add_extraction(&host, &meta, extraction, class)?;
            }
            PageContent::Waiting(html) => {
                let seq = self.batch.next_seq();
                let page = SampledPage {
                    seq,
                    url: entry.url.clone(),
                    final_url: final_url.to_string(),
                    fetched_at,
                    status,
                    content_type,
                    html,
                    warc,
                    stream: entry.stream.clone(),
                };
                self.batch.put_waiting(&host, &page)?;
                let sample_size = self.cfg.learn.sample_size as u64;
                let book = self.book(&host);
                book.rec.waiting += 1;
                if book.rec.sampled < sample_size {
                    book.rec.sampled += 1;
                    if book.rec.sampled == sample_size && book.rec.phase == HostPhase::Sampling && !book.learning {
                        book.learning = true;
                        let generation = book.rec.relearned;
                        self.after_commit.push(WorkItem::Learn { host: host.clone(), generation });
                    }
                }
                self.schedule_drain(&host);
            }
        }
        Ok(())
    }

    /// A page that waited for its host's model, extracted: its record and the deletion of its
    /// HTML go into the same group.
    fn apply_waiting(&mut self, host: &str, page: WaitingDone) -> Result<(), CrawlError> {
        self.touch(host);
        self.batch.delete_waiting(host, page.seq);
        self.finish_url(&page.url, page.stream.as_deref());
        let book = self.book(host);
        book.rec.waiting = book.rec.waiting.saturating_sub(1);
        let meta = PageMeta {
            url: &page.url,
            final_url: &page.final_url,
            fetched_at: &page.fetched_at,
            status: page.status,
            content_type: page.content_type,
            warc: page.warc,
        };
        self.add_extraction(host, &meta, page.extraction, page.class)
    }

    /// Append `exchanges` to the WARC output (when on); returns where the last response is.
    fn write_exchanges(&mut self, exchanges: &[HttpExchange]) -> Result<Option<WarcRef>, CrawlError> {
        let Some(warc) = &mut self.warc else { return Ok(None) };
        let mut last = None;
        for exchange in exchanges {
            last = Some(warc.write_exchange(exchange)?);
        }
        Ok(last)
    }

    fn mark_seen(&mut self, url: &str) {
        self.group_seen.insert(CrawlState::url_identity(url));
        self.batch.mark_seen(url);
    }

    fn is_seen(&self, url: &str) -> Result<bool, CrawlError> {
        Ok(self.group_seen.contains(&CrawlState::url_identity(url)) || self.state.is_seen(url)?)
    }

    /// Queue the target of a redirect to another host. From a seed (depth 0) the target is
    /// a seed of its own, so `http://example.org/` moving to `https://www.example.org/` is
    /// crawled (Heritrix: redirected seeds are seeds); from any other page it is a link, in
    /// scope or not.
    fn enqueue_redirect(&mut self, host: &str, from: &FrontierEntry, target: Url) -> Result<(), CrawlError> {
        if from.depth > 0 {
            return self.enqueue_links(host, from, &[target]);
        }
        let (Some(url), Some(target_host)) = (normalize(&target), host_key(&target)) else { return Ok(()) };
        if self.cfg.crawl.is_excluded(url.as_str()) || self.is_seen(url.as_str())? {
            return Ok(());
        }
        self.queue_url(&target_host, &url, 0, UrlKind::Page, url.as_str(), u64::MAX)
    }

    /// The sitemaps of a host whose robots.txt came: its `Sitemap:` lines, else its
    /// `/sitemap.xml` (when robots.txt was readable or absent). Each is queued once per crawl
    /// (the seen set), so a refreshed robots.txt adds only new ones.
    fn enqueue_sitemaps(&mut self, host: &str, robots: &RobotsEntry) -> Result<(), CrawlError> {
        if robots.status == RobotsStatus::DisallowAll {
            return Ok(());
        }
        let Ok(seed) = Url::parse(&self.book(host).rec.seed) else { return Ok(()) };
        let Ok(origin) = seed.join("/robots.txt") else { return Ok(()) };
        let listed = robots.body.as_deref().map(sitemap_lines).unwrap_or_default();
        let sitemaps = if listed.is_empty() { vec!["/sitemap.xml".to_string()] } else { listed };
        for sitemap in sitemaps {
            if let Ok(url) = origin.join(&sitemap) {
                self.queue_source(host, &url, UrlKind::Sitemap, 0)?;
            }
        }
        Ok(())
    }

    /// Queue a sitemap or feed found by `host` (its robots.txt, a sitemap index, a seed page)
    /// when it is in the crawl's scope, allowed and unseen; `depth` is its sitemap nesting.
    fn queue_source(&mut self, host: &str, url: &Url, kind: UrlKind, depth: u32) -> Result<(), CrawlError> {
        let seed_text = self.book(host).rec.seed.clone();
        let Ok(seed) = Url::parse(&seed_text) else { return Ok(()) };
        let Some(url) = normalize(url) else { return Ok(()) };
        if !in_scope(&url, &seed, self.cfg.crawl.scope) || self.addresses.check_url(&url).is_err() {
            return Ok(());
        }
        let Some(target) = host_key(&url) else { return Ok(()) };
        if self.is_seen(url.as_str())? {
            return Ok(());
        }
        self.queue_url(&target, &url, depth, kind, &seed_text, self.cfg.crawl.max_pages_per_host)
    }

    /// Put `url` (a `kind` URL) on the frontier of `target` at `depth`, unless the host has
    /// `cap` URLs queued already. A host new to the crawl gets a record with the seed
    /// `new_seed`. In a cluster crawl the URL goes to its partition's stream instead.
    fn queue_url(
        &mut self,
        target: &str,
        url: &Url,
        depth: u32,
        kind: UrlKind,
        new_seed: &str,
        cap: u64,
    ) -> Result<(), CrawlError> {
        if self.cluster.is_some() {
            self.send_remote(target, url, depth, kind, new_seed, cap);
            return Ok(());
        }
        self.queue_local(target, url, depth, kind, new_seed, cap, None).map(|_| ())
    }

    /// [`Committer::queue_url`] on this worker's frontier, with the URL's stream entry in a
    /// cluster crawl. Returns false when the host's cap refused it.
    #[allow(clippy::too_many_arguments)]
    fn queue_local(
        &mut self,
        target: &str,
        url: &Url,
        depth: u32,
        kind: UrlKind,
        new_seed: &str,
        cap: u64,
        stream: Option<String>,
    ) -> Result<bool, CrawlError> {
        if !self.hosts.contains_key(target) {
            let rec = match self.state.host(target)? {
                Some(r) => r,
                None => HostRecord { host: target.to_string(), seed: new_seed.to_string(), ..HostRecord::default() },
            };
            self.book(target).rec = rec;
        }
        let book = self.book(target);
        if book.rec.enqueued >= cap {
            return Ok(false);
        }
        book.rec.enqueued += 1;
        let seed = book.rec.seed.clone();
        self.group_seen.insert(CrawlState::url_identity(url.as_str()));
        let entry = FrontierEntry { url: url.to_string(), depth, seq: 0, kind, validators: None, stream };
        self.batch.push_frontier(target, entry);
        self.group_work.insert(target.to_string(), seed);
        self.touch(target);
        Ok(true)
    }

    /// Queue the in-scope, unseen links of a page (depth + 1, per-host cap); new hosts get a
    /// record with the linking host's seed (scope is relative to it).
    fn enqueue_links(&mut self, host: &str, from: &FrontierEntry, links: &[Url]) -> Result<(), CrawlError> {
        let depth = from.depth + 1;
        if depth > self.cfg.crawl.max_depth || links.is_empty() {
            return Ok(());
        }
        let seed_text = self.book(host).rec.seed.clone();
        let Ok(seed) = Url::parse(&seed_text) else { return Ok(()) };
        let cap = self.cfg.crawl.max_pages_per_host;
        for link in links {
            let Some(url) = normalize(link) else { continue };
            if !looks_like_html(&url)
                || !in_scope(&url, &seed, self.cfg.crawl.scope)
                || self.cfg.crawl.is_excluded(url.as_str())
                || self.addresses.check_url(&url).is_err()
            {
                continue;
            }
            let Some(target) = host_key(&url) else { continue };
            if self.is_seen(url.as_str())? {
                continue;
            }
            self.queue_url(&target, &url, depth, UrlKind::Page, &seed_text, cap)?;
        }
        Ok(())
    }

    /// Dedup `extraction` against everything written (in memory) and append its record. A
    /// page without a record is counted as a discard with its reason; a page with main text
    /// is counted as article or other, and with `drop_non_article` an "other" page is the
    /// discard `not_article`.
    fn add_extraction(
        &mut self,
        host: &str,
        meta: &PageMeta<'_>,
        extraction: Result<PageExtraction, ExtractError>,
        class: Option<PageClass>,
    ) -> Result<(), CrawlError> {
        let ex = match extraction {
            Ok(ex) => ex,
            Err(ExtractError::PatternNotFound { .. }) => {
                self.discard(host, Discard::NoGoldminerPattern);
                return Ok(());
            }
            Err(e) => {
                tracing::warn!(url = %crate::crawl::url::for_log(meta.url), "extraction failed: {e}");
                self.discard(host, Discard::ExtractionError);
                return Ok(());
            }
        };
        match ex.model_use {
            ModelUse::None => {}
            ModelUse::Applied => self.book(host).rec.model_matched += 1,
            ModelUse::Unmatched => self.book(host).rec.model_unmatched += 1,
            ModelUse::Rejected => {
                self.book(host).rec.model_rejected += 1;
                self.counters.model_rejected += 1;
            }
        }
        if let Some(share) = ex.model_share.filter(|&share| share < crate::extract::pipeline::MODEL_MIN_WORD_SHARE) {
            self.counters.model_halved += 1;
            let rec = &mut self.book(host).rec;
            rec.model_halved += 1;
            if rec.model_halved_pages.len() < crate::store::MODEL_HALVED_LISTED {
                rec.model_halved_pages.push((meta.url.to_string(), share));
            }
        }
        if let Some(generation) = ex.model_generation {
            self.watch_model(host, generation, ex.model_use != ModelUse::Applied);
        }
        if ex.paragraphs.is_empty() {
            self.discard(host, Discard::NoMainText);
            return Ok(());
        }
        match class.map(|c| c.page_type) {
            Some(PageType::Article) => {
                self.book(host).rec.articles += 1;
                self.counters.articles += 1;
            }
            Some(PageType::Other) => {
                self.book(host).rec.others += 1;
                self.counters.others += 1;
                if self.cfg.classify.drop_non_article {
                    self.discard(host, Discard::NotArticle);
                    return Ok(());
                }
            }
            None => {}
        }
        let outcome = self.onion.filter_with(&mut self.scratch, &ex.paragraphs, &self.seen)?;
        self.counters.duplicate_paragraphs += outcome.dropped as u64;
        if outcome.kept.is_empty() {
            self.discard(host, Discard::AllDuplicate);
            return Ok(());
        }
        let warc = meta.warc.as_ref();
        let source = RecordSource {
            url: meta.url,
            final_url: meta.final_url,
            host,
            fetched_at: meta.fetched_at,
            http_status: Some(meta.status),
            content_type: meta.content_type.clone(),
            warc_record_id: warc.map(|w| w.record_id.clone()),
            warc_file: warc.map(|w| w.file.clone()),
            warc_offset: warc.map(|w| w.offset),
        };
        let record = record_of(source, ex, class, outcome.kept);
        if !self.cfg.crawl.keeps_language(record.lang.as_deref()) {
            self.discard(host, Discard::WrongLanguage);
            return Ok(());
        }
        self.writer.append(&record)?;
        self.seen.insert_all(&outcome.new_hashes);
        self.log.append(&outcome.new_hashes);
        self.counters.records += 1;
        self.counters.paragraphs += record.paragraphs.len() as u64;
        let rec = &mut self.book(host).rec;
        rec.written += 1;
        rec.text_bytes += record.text.len() as u64;
        rec.words += record.word_count;
        Ok(())
    }

    /// Step 2: make the group durable, then step 3: tell dispatch, start the jobs.
    fn commit(&mut self) -> Result<(), CrawlError> {
        if self.group_start.is_some() {
            let offset = self.writer.sync()?;
            let log_len = self.log.sync()?;
            let warc = match &mut self.warc {
                Some(w) => w.sync()?,
                None => None,
            };
            self.groups += 1;
            if self.die_at == Some(DieAt::Group(self.groups)) {
                std::process::abort();
            }
            let mut batch = std::mem::replace(&mut self.batch, self.state.batch());
            batch.set_corpus_offset(offset, self.format.name());
            batch.set_hash_log_len(log_len);
            if let Some(position) = &warc {
                batch.set_warc_position(position);
            }
            for host in self.group_dirty.drain() {
                if let Some(book) = self.hosts.get(&host) {
                    batch.put_host(&book.rec);
                }
            }
            batch.put_counters(&self.counters);
            self.publish_outbox()?;
            self.state.commit(batch)?;
            if self.last_snapshot.is_none_or(|t| t.elapsed() >= SNAPSHOT_INTERVAL) {
                self.write_snapshot(true);
            }
            self.group_seen.clear();
            self.group_start = None;
            let pages = std::mem::take(&mut self.group_pages);
            let new_work = std::mem::take(&mut self.group_work).into_iter().collect();
            let counters = Box::new(self.counters.clone());
            let _ = self.events.send(Event::Committed { pages, new_work, counters });
            self.after_cluster_commit()?;
        }
        for event in self.events_after_commit.drain(..) {
            let _ = self.events.send(event);
        }
        self.launch_jobs();
        Ok(())
    }

    fn launch_jobs(&mut self) {
        if self.stop.load(Ordering::Relaxed) {
            self.after_commit.clear();
        }
        self.jobs_running += self.after_commit.len();
        self.overflow.extend(self.after_commit.drain(..));
        self.push_overflow();
    }

    /// Jobs go to the pool without ever blocking the committer (a worker may be waiting to
    /// hand it a page).
    fn push_overflow(&mut self) {
        self.jobs_running -= send_queued(&self.work, &mut self.overflow);
    }
}

/// A group is committed early once its store batch holds this many writes (frontier entries
/// and seen URLs of link-heavy pages): sled keeps a batch and the pages it touches in memory.
const MAX_GROUP_WRITES: usize = 8_192;

/// The URLs of a robots.txt's `Sitemap:` lines (sitemaps.org; any group, case-insensitive).
fn sitemap_lines(robots: &str) -> Vec<String> {
    robots
        .lines()
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or("").trim();
            let (key, value) = line.split_once(':')?;
            (key.trim().eq_ignore_ascii_case("sitemap") && !value.trim().is_empty()).then(|| value.trim().to_string())
        })
        .collect()
}

fn is_extracted(done: &PageDone) -> bool {
    matches!(&done.result, PageResult::Fetched { work: Some(w), .. } if matches!(w.content, PageContent::Extracted(..)))
}
