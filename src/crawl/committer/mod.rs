//! [`Committer`]: the crawl's single writer (ARCHITECTURE.md, "The crawl engine"). It owns,
//! privately, the [`CorpusSink`] (Onion's seen n-gram set and hash log, the corpus writer, the
//! WARC output), the host records and every write to the store, and runs on its own thread.
//! Steps per message:
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
//! extracts the pages that waited beyond the sample (in crawl order), while later pages of
//! that host wait in memory until the drain is done, so the corpus keeps fetch order within a
//! host whatever the worker timing.
//!
//! The parts: `group` is the open group commit and the rule of when it is committed,
//! `enqueue` queues URLs (links, redirects, sitemaps, feeds), `delivered` handles the URLs
//! the frontier's backend forwards and delivers ([`FrontierBackend`]; a cluster crawl's),
//! `models` runs a host's model through learning, draining and re-learning, `records` turns
//! an extraction into a corpus record, and `hosts_view` yield pruning and the status
//! snapshot's per-host view.

mod delivered;
mod enqueue;
mod group;
mod hosts_view;
mod models;
mod pages;
mod records;
#[cfg(test)]
mod tests;
use crate::config::{Config, CrawlConfig};
use crate::crawl::address::AddressPolicy;
use crate::crawl::frontier::FrontierBackend;
use crate::crawl::messages::{send_queued, CommitMsg, Event, PageDone, WorkItem};
use crate::crawl::sink::CorpusSink;
use crate::crawl::snapshot::SNAPSHOT_INTERVAL;
use crate::crawl::CrawlError;
use crate::domain::{DomainModel, LearningEvent, SamplingRule};
use crate::store::{Counters, CrawlState, HostRecord};
use crate::write::warc::{HttpExchange, WarcRef};
use crossbeam_channel::{Receiver, Sender};
use group::{ClosedGroup, Group, GroupLimits};
use pages::is_extracted;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The committer's view of one host.
struct HostBook {
    rec: HostRecord,
    /// The next ticket to apply; later ones wait in `early`.
    next_ticket: u64,
    early: BTreeMap<u64, Box<PageDone>>,
    /// Extracted pages that wait for the host's waiting pages to be written first.
    deferred: VecDeque<Box<PageDone>>,
    /// The host's model (learned in this run or stored by an earlier one).
    model: Option<Arc<DomainModel>>,
    /// The sample size a model was last asked to be learned ahead at ([`models::PRELEARN_QUEUED`]).
    prelearned_at: Option<u64>,
}

impl HostBook {
    fn new(rec: HostRecord) -> HostBook {
        HostBook {
            rec,
            next_ticket: 0,
            early: BTreeMap::new(),
            deferred: VecDeque::new(),
            model: None,
            prelearned_at: None,
        }
    }
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
    /// `[crawl]`: scope, depth and caps, yield pruning, languages, the state directory.
    crawl: CrawlConfig,
    /// `[classify] drop_non_article`.
    drop_non_article: bool,
    /// `[learn]`'s sampling rule, for every host's [`HostLearning`](crate::domain::HostLearning).
    rule: SamplingRule,
    state: CrawlState,
    /// Onion, the corpus, the hash log and the WARC output.
    sink: CorpusSink,
    counters: Counters,
    hosts: HashMap<String, HostBook>,
    /// The open group commit: its store batch, and the jobs and events that wait for it.
    group: Group,
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
    /// The workers' queue of spare work (models learned ahead), when the crawl has one, and
    /// the requests that wait for the open group's commit (their pages must be durable first).
    spare: Option<Sender<WorkItem>>,
    spare_due: Vec<WorkItem>,
    events: tokio::sync::mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
    /// Links to refused IP literals (`http://10.0.0.1/`) are not queued (scope `any`).
    addresses: AddressPolicy,
    /// Where admitted URLs go: this worker's frontier, or forwarded ([`delivered`]).
    frontier: Box<dyn FrontierBackend>,
    /// Partitions moving away, released once their hosts' samples are written.
    releasing: BTreeSet<u32>,
    /// The last errors, for the status snapshot.
    last_errors: VecDeque<crate::crawl::snapshot::ErrorLine>,
}

impl Committer {
    /// Open the committer on `state` and `sink` (opened at the state's committed position),
    /// with the frontier's backend `frontier`: the host records, and the learn and drain jobs
    /// a killed run left to do.
    ///
    /// # Errors
    /// The store's.
    pub fn open(
        cfg: Config,
        state: CrawlState,
        sink: CorpusSink,
        work: Sender<WorkItem>,
        events: tokio::sync::mpsc::UnboundedSender<Event>,
        stop: Arc<AtomicBool>,
        frontier: Box<dyn FrontierBackend>,
    ) -> Result<Committer, CrawlError> {
        let rule = SamplingRule::new(&cfg.learn);
        let mut hosts = HashMap::new();
        let mut jobs = Vec::new();
        for rec in state.hosts()? {
            let mut book = HostBook::new(rec);
            // A host sampled again keeps its earlier model until the new one is there.
            book.model = state.model(&book.rec.host)?.map(Arc::new);
            let resumed = LearningEvent::Resumed { has_model: book.model.is_some() };
            for action in book.rec.learning.on(&rule, resumed) {
                jobs.extend(models::job_of(&book.rec.host, action, &book.model));
            }
            hosts.insert(book.rec.host.clone(), book);
        }
        let counters = state.counters()?;
        let cfg_allow = cfg.net.allow.clone();
        let limits = GroupLimits {
            pages: cfg.crawl.commit_pages,
            writes: MAX_GROUP_WRITES,
            bytes: MAX_GROUP_BYTES,
            interval: cfg.crawl.commit_interval,
        };
        Ok(Committer {
            rule,
            sink,
            die_at: DieAt::from_env(),
            group: Group::new(state.batch(), limits, jobs),
            drop_non_article: cfg.classify.drop_non_article,
            crawl: cfg.crawl,
            state,
            counters: counters.clone(),
            hosts,
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
            spare: None,
            spare_due: Vec::new(),
            events,
            stop,
            addresses: AddressPolicy::new(&cfg_allow).unwrap_or_default(),
            frontier,
            releasing: BTreeSet::new(),
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
                let jobs_done =
                    self.jobs_running == 0 && (interrupted || (self.overflow.is_empty() && self.group.jobs.is_empty()));
                if self.received_pages >= dispatched && jobs_done {
                    self.commit()?;
                    self.write_snapshot(false);
                    return Ok(());
                }
            }
            let wait = self.group.wait_at(Instant::now());
            let msg = crossbeam_channel::select! {
                recv(results) -> m => m.ok(),
                recv(direct) -> m => m.ok(),
                default(wait) => None,
            };
            if let Some(msg) = msg {
                self.handle(msg)?;
                self.announce();
            }
            if self.group.should_commit_at(Instant::now()) {
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
        self.group.touch(host);
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
                    let waits = book.rec.learning.defers_extracted_pages() && is_extracted(&done);
                    if waits {
                        let mut done = done;
                        self.queue_found_urls(&host, &mut done)?;
                        self.book(&host).deferred.push_back(done);
                        self.commit_if_full()?;
                    } else {
                        self.apply_page(*done)?;
                        self.commit_if_full()?;
                    }
                }
                self.check_yield(&host);
                self.consider_prelearn(&host);
            }
            CommitMsg::Exchanges { host, exchanges } => {
                self.write_exchanges(&exchanges)?;
                self.touch(&host);
            }
            CommitMsg::Robots { host, entry } => {
                self.enqueue_sitemaps(&host, &entry)?;
                self.group.batch.put_robots(&host, &entry);
                // Answered: a host given up in an earlier run is back.
                let rec = &mut self.book(&host).rec;
                rec.dead = false;
                rec.given_up = None;
                self.touch(&host);
            }
            CommitMsg::HostDead { host, why } => {
                let rec = &mut self.book(&host).rec;
                rec.dead = true;
                rec.given_up = Some(why);
                self.touch(&host);
            }
            CommitMsg::HostDry { host } => self.learning(&host, LearningEvent::HostDry)?,
            CommitMsg::Learned { host, model: None } => {
                self.jobs_running -= 1;
                self.learning(&host, LearningEvent::LearnSkipped)?;
            }
            CommitMsg::Learned { host, model: Some(model) } => {
                self.learned_models += 1;
                if self.die_at == Some(DieAt::Learned(self.learned_models)) {
                    std::process::abort();
                }
                self.install_model(&host, *model)?;
            }
            CommitMsg::Drained { host, page, last } => {
                if let Some(page) = page {
                    self.apply_waiting(&host, *page)?;
                }
                if last {
                    self.jobs_running -= 1;
                    self.learning(&host, LearningEvent::DrainEnded)?;
                }
                self.check_yield(&host);
            }
            CommitMsg::Remote(entries) => self.receive(entries)?,
            CommitMsg::Release { partition } => self.start_release(partition)?,
            CommitMsg::Finish { dispatched, interrupted } => {
                self.finish = Some((dispatched, interrupted));
                if interrupted {
                    self.group.jobs.clear();
                    self.jobs_running -= self.overflow.len();
                    self.overflow.clear();
                }
            }
        }
        Ok(())
    }

    /// Append `exchanges` to the WARC output (when on); returns where the last response is.
    fn write_exchanges(&mut self, exchanges: &[HttpExchange]) -> Result<Option<WarcRef>, CrawlError> {
        self.sink.write_exchanges(exchanges)
    }

    /// Step 2: make the group durable, then step 3: tell dispatch, start the jobs.
    fn commit(&mut self) -> Result<(), CrawlError> {
        // Dispatch hears of a group's URLs before its commit (see `Event::Queued`).
        self.announce();
        if self.group.is_open() {
            let position = self.sink.sync()?;
            self.groups += 1;
            if self.die_at == Some(DieAt::Group(self.groups)) {
                std::process::abort();
            }
            let ClosedGroup { mut batch, dirty, pages, new_work } = self.group.take(self.state.batch());
            position.commit_into(&mut batch);
            for host in dirty {
                if let Some(book) = self.hosts.get(&host) {
                    batch.put_host(&book.rec);
                }
            }
            batch.put_counters(&self.counters);
            self.frontier.before_commit()?;
            self.state.commit(batch)?;
            if self.last_snapshot.is_none_or(|t| t.elapsed() >= SNAPSHOT_INTERVAL) {
                self.write_snapshot(true);
            }
            let counters = Box::new(self.counters.clone());
            let _ = self.events.send(Event::Committed { pages, new_work, counters });
            self.frontier.after_commit()?;
            self.check_releases()?;
        }
        for event in std::mem::take(&mut self.group.events) {
            let _ = self.events.send(event);
        }
        self.launch_jobs();
        if let Some(spare) = &self.spare {
            for item in self.spare_due.drain(..) {
                let _ = spare.send(item);
            }
        }
        Ok(())
    }

    /// Tell dispatch of the URLs queued since the last time ([`Event::Queued`]).
    fn announce(&mut self) {
        if !self.group.announce.is_empty() {
            let _ = self.events.send(Event::Queued(std::mem::take(&mut self.group.announce)));
        }
    }

    /// Commit the group now when it is full ([`Group::is_full`]): called after every page
    /// applied, so that one message that applies many (a host's pages held back during its
    /// learning, a batch of delivered URLs) never makes one unbounded store batch.
    ///
    /// # Errors
    /// As [`Committer::commit`].
    fn commit_if_full(&mut self) -> Result<(), CrawlError> {
        if self.group.is_full() {
            self.commit()?;
        }
        Ok(())
    }

    fn launch_jobs(&mut self) {
        if self.stop.load(Ordering::Relaxed) {
            self.group.jobs.clear();
        }
        self.jobs_running += self.group.jobs.len();
        self.overflow.extend(self.group.jobs.drain(..));
        self.push_overflow();
    }

    /// Jobs go to the pool without ever blocking the committer (a worker may be waiting to
    /// hand it a page).
    fn push_overflow(&mut self) {
        self.jobs_running -= send_queued(&self.work, &mut self.overflow);
    }
}

/// A group is committed early once its store batch holds this many writes (frontier entries
/// and seen URLs of link-heavy pages). sled applies a batch under one epoch guard, so every
/// tree node its writes replace stays in memory until the whole batch is in: a batch of 8,192
/// link writes held about 50 MB more than one of 2,048, which costs no measurable CPU (about
/// two link-heavy pages per group).
const MAX_GROUP_WRITES: usize = 2_048;

/// A group is committed early once its store batch holds this many bytes (pages held for a
/// sample, when the state keeps them in sled; bounded for the same reason as the writes).
const MAX_GROUP_BYTES: usize = 4 << 20;
