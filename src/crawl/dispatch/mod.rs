//! [`Dispatcher`]: the first stage of the crawl engine (ARCHITECTURE.md, "The crawl
//! engine"). It only decides what to fetch and when, and runs the fetches: a heap of hosts by
//! due time, one request in flight per host, `max_parallel_hosts` requests at most, robots.txt
//! first, politeness delays and back-off, and back-pressure from the worker queue (no new
//! request while it is full). It never waits for CPU work or disk: fetched pages go to the
//! worker pool, outcomes to the committer, and the committer's [`Event`]s (pages durable, new
//! work, models) come back. The network is behind the [`Fetch`] seam and the frontier is read
//! through [`CrawlState`], so the dispatch logic runs in tests without network or disk.

use crate::crawl::fetch::{FetchError, FetchedPage, Fetcher, Recorded, Validators};
use crate::crawl::frontier::{LocalMembership, Membership, WorkerFigures};
use crate::crawl::hosts::{DueQueue, HostRuntime, UNREACHABLE_AFTER};
use crate::crawl::messages::{send_queued, CommitMsg, Event, PageDone, PageResult, WorkItem};
use crate::crawl::politeness::{HostPoliteness, PolitenessConfig};
use crate::crawl::progress::{HostCounts, Progress};
use crate::crawl::robots::{RobotsEntry, RobotsStatus};
use crate::crawl::shutdown::Shutdown;
use crate::crawl::watchdog;
use crate::crawl::CrawlError;
use crate::domain::HostModel;
use crate::store::{Counters, CrawlState, FrontierEntry, GiveUp, GivenUp, UrlKind};
use crate::write::warc::HttpExchange;
use crossbeam_channel::Sender;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinSet;
use url::Url;

/// Attempts at one URL answered 429/503 before it is dropped.
const RETRY_ATTEMPTS: u32 = 3;
/// Frontier entries read from the store per host at a time.
const WINDOW: usize = 16;
/// robots.txt-disallowed entries skipped in one go before the host yields to others.
const DISALLOWED_BURST: usize = 256;

/// The network, as dispatch sees it. [`Fetcher`] is the production implementation.
pub trait Fetch: Send + Sync + 'static {
    /// Fetch a page, waiting `hop_delay` before each redirect hop; with the HTTP exchanges
    /// made, for the WARC output.
    fn fetch_page(
        &self,
        url: &Url,
        hop_delay: Duration,
        kind: UrlKind,
        validators: Option<Validators>,
    ) -> impl Future<Output = Recorded<FetchedPage>> + Send;
    /// Fetch the robots.txt of `url`'s origin: status and body, an error without an answer.
    fn fetch_robots(&self, url: &Url) -> impl Future<Output = Recorded<(u16, String)>> + Send;
}

impl Fetch for Fetcher {
    async fn fetch_page(
        &self,
        url: &Url,
        hop_delay: Duration,
        kind: UrlKind,
        validators: Option<Validators>,
    ) -> Recorded<FetchedPage> {
        self.fetch_recorded(url, hop_delay, kind, validators.as_ref()).await
    }
    fn fetch_robots(&self, url: &Url) -> impl Future<Output = Recorded<(u16, String)>> + Send {
        self.fetch_robots_recorded(url)
    }
}

/// Dispatch's settings (from `[crawl]` and `[politeness]`).
#[derive(Debug, Clone)]
pub struct DispatchConfig {
    /// Per-host delays and back-off.
    pub politeness: PolitenessConfig,
    /// Requests in flight at most.
    pub max_parallel_hosts: usize,
    /// Our robots.txt product token.
    pub ua_token: String,
    /// After a stop is asked for, how long requests in flight may still finish.
    pub stop_grace: Duration,
    /// `[net] request_timeout`: the watchdog's grace ([`crate::crawl::watchdog`]).
    pub request_timeout: Duration,
}

/// A page fetch's outcome as dispatch handles it.
struct FetchReply {
    result: Result<FetchedPage, FetchError>,
    exchanges: Vec<HttpExchange>,
    response_time: Duration,
}

/// A finished fetch task (moved once, from the task to the loop: not worth a box).
#[allow(clippy::large_enum_variant)]
enum Fetched {
    Robots {
        result: Result<(u16, String), FetchError>,
        exchanges: Vec<HttpExchange>,
        response_time: Duration,
    },
    Page {
        ticket: u64,
        entry: FrontierEntry,
        mode: HostModel,
        result: Result<FetchedPage, FetchError>,
        exchanges: Vec<HttpExchange>,
        response_time: Duration,
    },
}

/// The scheduler. Build with [`Dispatcher::new`], add hosts, then [`Dispatcher::run`].
pub struct Dispatcher<F: Fetch> {
    fetch: Arc<F>,
    state: CrawlState,
    cfg: DispatchConfig,
    hosts: Vec<HostRuntime>,
    index: HashMap<String, usize>,
    due: DueQueue,
    tasks: JoinSet<(usize, Fetched)>,
    in_flight: usize,
    outstanding: u64,
    work: Sender<WorkItem>,
    overflow: VecDeque<WorkItem>,
    commit: Sender<CommitMsg>,
    events: UnboundedReceiver<Event>,
    retries: HashMap<String, u32>,
    dispatched: u64,
    counters: Counters,
    /// The longest time a due host waited beyond its due time for a request slot (a
    /// measure of the scheduler's own stalls).
    pub max_lateness: Duration,
    /// Which hosts are this worker's and when the crawl is over ([`Membership`]).
    membership: Box<dyn Membership>,
    /// Partitions moving away: their hosts are stopped, the committer is told once they are
    /// idle.
    releasing: std::collections::BTreeSet<u32>,
    /// When the parked entries were last counted, and the fetch counter at the start.
    parked_at: Option<Instant>,
    fetched_at_start: Option<u64>,
    /// Hosts given URLs of the committer's open group ([`Event::Queued`]), forgotten at its
    /// commit.
    early_hosts: Vec<usize>,
}

fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

impl<F: Fetch> Dispatcher<F> {
    /// A dispatcher over `fetch`, reading the frontier from `state`, sending pages to the
    /// worker queue `work` and outcomes to the committer's `commit`, hearing `events`.
    pub fn new(
        fetch: Arc<F>,
        state: CrawlState,
        cfg: DispatchConfig,
        work: Sender<WorkItem>,
        commit: Sender<CommitMsg>,
        events: UnboundedReceiver<Event>,
    ) -> Dispatcher<F> {
        Dispatcher {
            fetch,
            counters: state.counters().unwrap_or_default(),
            state,
            cfg,
            hosts: Vec::new(),
            index: HashMap::new(),
            due: DueQueue::default(),
            tasks: JoinSet::new(),
            in_flight: 0,
            outstanding: 0,
            work,
            overflow: VecDeque::new(),
            commit,
            events,
            retries: HashMap::new(),
            dispatched: 0,
            max_lateness: Duration::ZERO,
            membership: Box::new(LocalMembership),
            releasing: Default::default(),
            parked_at: None,
            fetched_at_start: None,
            early_hosts: Vec::new(),
        }
    }

    /// Dispatch with `membership` (by default [`LocalMembership`]: every host is fetched here
    /// and the run ends when this worker's frontier is empty). A cluster worker's fetches
    /// only hosts of held partitions, and its run ends when the whole crawl is done.
    pub fn with_membership(mut self, membership: Box<dyn Membership>) -> Dispatcher<F> {
        self.membership = membership;
        self
    }

    /// Add a host (or give an existing one work): `robots` as stored (fresh ones only),
    /// `model` as committed, `dead` when it was given up.
    pub fn add_host(
        &mut self,
        host: &str,
        seed: Url,
        robots: Option<RobotsEntry>,
        model: HostModel,
        dead: bool,
    ) -> usize {
        if let Some(&idx) = self.index.get(host) {
            self.hosts[idx].has_work = true;
            self.hosts[idx].idle_since = None;
            self.make_due(idx);
            return idx;
        }
        let moved = !self.membership.owns_host(host);
        let politeness = HostPoliteness::new_at(self.cfg.politeness.clone(), now());
        let mut rt = HostRuntime::new(host.to_string(), seed, politeness, model);
        rt.robots = robots.map(|e| {
            let policy = e.policy(&self.cfg.ua_token);
            (e, policy)
        });
        rt.dead = dead;
        rt.moved = moved;
        let idx = self.hosts.len();
        self.hosts.push(rt);
        self.index.insert(host.to_string(), idx);
        self.make_due(idx);
        idx
    }

    fn make_due(&mut self, idx: usize) {
        let h = &mut self.hosts[idx];
        if h.schedulable() && !h.queued {
            h.queued = true;
            self.due.push(h.politeness.next_allowed(), idx);
        }
    }

    /// Run until every host is done or `shutdown` is asked for, then tell the committer to
    /// finish and wait for it. On a shutdown no new request starts; requests in flight get
    /// `stop_grace` to finish (their pages are committed), the rest are aborted (fetched
    /// again on resume), and `stop` is set for the workers. Returns true when stopped early.
    ///
    /// # Errors
    /// The committer's error, when it stopped on one.
    pub async fn run(
        &mut self,
        stop: Arc<AtomicBool>,
        shutdown: &Shutdown,
        progress: &Progress,
    ) -> Result<bool, CrawlError> {
        let mut grace_until: Option<Instant> = None;
        let mut last_progress = Instant::now() - Duration::from_secs(1);
        let mut last_watch = Instant::now();
        loop {
            self.push_overflow();
            self.check_releases();
            match grace_until {
                None => self.launch_due(),
                Some(deadline) if self.in_flight == 0 || now() >= deadline => break,
                Some(_) => {}
            }
            if grace_until.is_none() && self.done() {
                break;
            }
            if last_progress.elapsed() >= Duration::from_millis(200) {
                self.show_progress(progress);
                last_progress = Instant::now();
            }
            if grace_until.is_none() && last_watch.elapsed() >= watchdog::WATCH_EVERY {
                self.watch();
                last_watch = Instant::now();
            }
            let wake = match (self.overflow.is_empty(), self.due.next_due(), grace_until) {
                (false, _, _) => now() + Duration::from_millis(5),
                (true, _, Some(deadline)) => deadline.min(now() + Duration::from_millis(200)),
                (true, Some(at), None) => at.max(now()),
                (true, None, None) => now() + Duration::from_millis(500),
            };
            tokio::select! {
                Some(joined) = self.tasks.join_next(), if !self.tasks.is_empty() => match joined {
                    Ok((idx, fetched)) => self.on_fetched(idx, fetched),
                    Err(e) => tracing::error!("fetch task failed: {e}"),
                },
                Some(event) = self.events.recv() => {
                    if let Event::Finished(result) = event {
                        return Err(CrawlError::Committer(result.err().unwrap_or_else(|| "stopped early".into())));
                    }
                    self.on_event(event);
                },
                _ = tokio::time::sleep_until(tokio::time::Instant::from_std(wake)) => {}
                _ = shutdown.requested(), if grace_until.is_none() => {
                    grace_until = Some(now() + self.cfg.stop_grace);
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        let stopping = grace_until.is_some();
        if stopping {
            stop.store(true, Ordering::Relaxed);
            self.tasks.abort_all();
            self.dispatched -= self.overflow.len() as u64;
            self.overflow.clear();
        }
        let _ = self.commit.send(CommitMsg::Finish { dispatched: self.dispatched, interrupted: stopping });
        // The workers and the committer finish what was sent; keep hearing them.
        let mut last_progress = Instant::now();
        loop {
            let event = tokio::select! {
                e = self.events.recv() => e,
                _ = tokio::time::sleep(Duration::from_millis(200)) => {
                    if last_progress.elapsed() >= Duration::from_millis(200) {
                        self.show_progress(progress);
                        last_progress = Instant::now();
                    }
                    continue;
                }
            };
            match event {
                None => return Err(CrawlError::Committer("the committer stopped without a word".into())),
                Some(Event::Finished(Ok(()))) => break,
                Some(Event::Finished(Err(e))) => return Err(CrawlError::Committer(e)),
                Some(other) => self.on_event(other),
            }
        }
        self.show_progress(progress);
        Ok(stopping)
    }

    /// True when nothing is queued, due, in flight or uncommitted; dry hosts are told so. When
    /// the only hosts left are unreachable ([`HostRuntime::unreachable`]), they are given up
    /// for this run (a later run tries them again) and the crawl ends.
    fn done(&mut self) -> bool {
        if self.in_flight > 0 || self.outstanding > 0 || !self.overflow.is_empty() {
            return false;
        }
        if !self.due.is_empty() {
            if !self.only_unreachable_left() {
                return false;
            }
            for idx in 0..self.hosts.len() {
                if self.hosts[idx].schedulable() {
                    let h = &self.hosts[idx];
                    crate::warn_line!(
                        "warning: host {}: robots.txt could not be fetched ({} tries, last: {}); \
                         every other host is done, so it is given up for this run (run the same command again to retry it)",
                        h.host, h.robots_failures.0, h.robots_failures.1
                    );
                    let last = h.robots_failures.1.clone();
                    self.give_up(idx, GiveUp::UnreachableAtEnd, &last);
                }
            }
            self.due.clear();
        }
        for idx in 0..self.hosts.len() {
            self.check_dry(idx);
        }
        // A cluster worker with nothing to do goes on until the whole crawl is done: links
        // may still come from the other workers.
        self.membership.crawl_done()
    }

    /// True when every host that still wants a request is unreachable (and there is one).
    fn only_unreachable_left(&self) -> bool {
        let mut waiting = self.hosts.iter().filter(|h| h.schedulable()).peekable();
        waiting.peek().is_some() && waiting.all(HostRuntime::unreachable)
    }

    /// True when this worker has nothing due, in flight or uncommitted.
    fn is_idle(&self) -> bool {
        self.due.is_empty() && self.in_flight == 0 && self.outstanding == 0 && self.overflow.is_empty()
    }

    /// A partition moving away whose hosts are all idle goes to the committer.
    fn check_releases(&mut self) {
        if self.releasing.is_empty() {
            return;
        }
        let m = &self.membership;
        let ready: Vec<u32> = self
            .releasing
            .iter()
            .copied()
            .filter(|&p| self.hosts.iter().all(|h| m.partition(&h.host) != p || h.idle()))
            .collect();
        for p in ready {
            self.releasing.remove(&p);
            let _ = self.commit.send(CommitMsg::Release { partition: p });
        }
    }

    /// Stop or start the hosts of a partition that moves (a cluster crawl's).
    fn move_partition(&mut self, partition: u32, away: bool) {
        if away {
            self.releasing.insert(partition);
        } else {
            self.releasing.remove(&partition);
        }
        let m = &self.membership;
        let idxs: Vec<usize> =
            (0..self.hosts.len()).filter(|&i| m.partition(&self.hosts[i].host) == partition).collect();
        for idx in idxs {
            let h = &mut self.hosts[idx];
            h.moved = away;
            h.window.clear();
            h.early.clear();
            h.cursor = 0;
            if away {
                self.check_dry(idx);
            } else {
                h.has_work = true;
                h.dry_sent = false;
                self.make_due(idx);
            }
        }
    }

    /// Publish this worker's figures through the membership (a cluster worker's status).
    fn update_status(&mut self) {
        if !self.membership.publishes() {
            return;
        }
        for idx in 0..self.hosts.len() {
            if self.hosts[idx].idle_since.is_some() {
                self.check_dry(idx);
            }
        }
        let recount = self.parked_at.is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
        let mut parked = None;
        if recount {
            self.parked_at = Some(Instant::now());
            let dead = self.hosts.iter().filter(|h| h.dead && !h.moved);
            parked = Some(dead.map(|h| self.state.frontier_len(&h.host).unwrap_or(0) as u64).sum::<u64>());
        }
        let before = *self.fetched_at_start.get_or_insert(self.counters.fetched);
        let figures = WorkerFigures {
            fetched_run: self.counters.fetched.saturating_sub(before),
            idle: self.is_idle(),
            hosts: self.hosts.iter().filter(|h| !h.moved).count() as u64,
            fetched: self.counters.fetched,
            records: self.counters.records,
            paragraphs: self.counters.paragraphs,
            parked,
        };
        self.membership.publish(figures);
    }

    /// Start a request for every due host, while request slots and worker queue room last.
    fn launch_due(&mut self) {
        let t = now();
        while self.in_flight < self.cfg.max_parallel_hosts && self.overflow.is_empty() && !self.work.is_full() {
            let Some(idx) = self.due.pop_due(t) else { break };
            self.hosts[idx].queued = false;
            if !self.hosts[idx].schedulable() {
                continue;
            }
            let allowed = self.hosts[idx].politeness.next_allowed();
            if allowed > t {
                self.make_due(idx);
                continue;
            }
            self.max_lateness = self.max_lateness.max(t - allowed);
            self.start(idx);
        }
    }

    fn spawn(&mut self, idx: usize, task: impl Future<Output = Fetched> + Send + 'static) {
        self.hosts[idx].in_flight = true;
        self.hosts[idx].in_flight_since = Some(now());
        self.hosts[idx].stuck_reported = false;
        self.in_flight += 1;
        self.tasks.spawn(async move { (idx, task.await) });
    }

    /// One request for host `idx`: robots.txt first, then the next allowed URL.
    fn start(&mut self, idx: usize) {
        let robots_fresh = self.hosts[idx]
            .robots
            .as_ref()
            .is_some_and(|(e, _)| e.is_fresh(now_ms(), self.cfg.politeness.robots_max_age));
        if !robots_fresh {
            self.hosts[idx].robots = None;
            // robots.txt of this host's own origin: the seed names the host that linked to
            // it when the host was found by a link (scope `domain` or `any`).
            let url = match self.next_entry(idx).map(|e| (Url::parse(&e.url), e)) {
                Some((parsed, entry)) => {
                    self.hosts[idx].window.push_front(entry);
                    parsed.unwrap_or_else(|_| self.hosts[idx].seed.clone())
                }
                None => self.hosts[idx].seed.clone(),
            };
            let fetch = self.fetch.clone();
            self.spawn(idx, async move {
                let start = Instant::now();
                let Recorded { result, exchanges } = fetch.fetch_robots(&url).await;
                Fetched::Robots { result, exchanges, response_time: start.elapsed() }
            });
            return;
        }
        for _ in 0..DISALLOWED_BURST {
            let Some(entry) = self.next_entry(idx) else {
                self.hosts[idx].has_work = false;
                self.check_dry(idx);
                return;
            };
            let h = &mut self.hosts[idx];
            let allowed = match (Url::parse(&entry.url), &h.robots) {
                (Ok(u), Some((_, policy))) => policy.is_allowed(&u),
                (Ok(_), None) => true,
                (Err(_), _) => false,
            };
            if !allowed {
                self.send_result(idx, entry, PageResult::RobotsDisallowed, Vec::new());
                continue;
            }
            let mode = h.model.clone();
            let ticket = h.next_ticket;
            h.next_ticket += 1;
            h.outstanding += 1;
            self.outstanding += 1;
            let hop_delay = h.politeness.last_delay().max(self.cfg.politeness.min_delay);
            let fetch = self.fetch.clone();
            self.spawn(idx, async move {
                let start = Instant::now();
                let Recorded { result, exchanges } = match Url::parse(&entry.url) {
                    Ok(url) => fetch.fetch_page(&url, hop_delay, entry.kind, entry.validators.clone()).await,
                    Err(e) => Recorded::bare(Err(FetchError::Other {
                        url: entry.url.clone(),
                        message: format!("bad URL: {e}"),
                    })),
                };
                let response_time = result.as_ref().map_or_else(|_| start.elapsed(), |p| p.response_time);
                Fetched::Page { ticket, entry, mode, result, exchanges, response_time }
            });
            return;
        }
        self.make_due(idx);
    }

    /// The next frontier entry of host `idx`, refilling its window from the store; once the
    /// store has nothing more, a URL of the committer's open group ([`HostRuntime::take_early`]).
    fn next_entry(&mut self, idx: usize) -> Option<FrontierEntry> {
        let h = &mut self.hosts[idx];
        if h.window.is_empty() && h.has_work {
            match self.state.frontier_window(&h.host, h.cursor, WINDOW) {
                Ok(entries) => {
                    if let Some(last) = entries.last() {
                        h.cursor = last.seq + 1;
                    }
                    h.window.extend(entries);
                }
                Err(e) => {
                    // Not read: the URLs of the open group must not pass the cursor.
                    tracing::error!(host = h.host, "cannot read the frontier: {e}");
                    return None;
                }
            }
        }
        h.window.pop_front().or_else(|| h.take_early())
    }

    /// Send an outcome that needs no worker straight to the committer, with a new ticket.
    fn send_result(&mut self, idx: usize, entry: FrontierEntry, result: PageResult, exchanges: Vec<HttpExchange>) {
        let h = &mut self.hosts[idx];
        let ticket = h.next_ticket;
        h.next_ticket += 1;
        h.outstanding += 1;
        self.outstanding += 1;
        self.forward(idx, ticket, entry, result, exchanges);
    }

    fn forward(
        &mut self,
        idx: usize,
        ticket: u64,
        entry: FrontierEntry,
        result: PageResult,
        exchanges: Vec<HttpExchange>,
    ) {
        let host = self.hosts[idx].host.clone();
        self.dispatched += 1;
        let _ = self.commit.send(CommitMsg::Page(Box::new(PageDone { host, ticket, entry, result, exchanges })));
    }

    fn on_fetched(&mut self, idx: usize, fetched: Fetched) {
        self.in_flight -= 1;
        self.hosts[idx].in_flight = false;
        let t = now();
        match fetched {
            Fetched::Robots { result, exchanges, response_time } => {
                self.on_robots(idx, result, exchanges, response_time, t)
            }
            Fetched::Page { ticket, entry, mode, result, exchanges, response_time } => {
                let fetch = FetchReply { result, exchanges, response_time };
                self.on_page(idx, ticket, entry, mode, fetch, t)
            }
        }
        self.make_due(idx);
    }

    fn on_robots(
        &mut self,
        idx: usize,
        result: Result<(u16, String), FetchError>,
        exchanges: Vec<HttpExchange>,
        response_time: Duration,
        t: Instant,
    ) {
        if !exchanges.is_empty() {
            let _ = self.commit.send(CommitMsg::Exchanges { host: self.hosts[idx].host.clone(), exchanges });
        }
        let h = &mut self.hosts[idx];
        if let Err(e @ FetchError::Refused { .. }) = &result {
            crate::warn_line!("warning: host {} skipped: {e}", h.host);
            let last = e.to_string();
            self.give_up(idx, GiveUp::AddressRefused, &last);
            return;
        }
        let status = result.as_ref().ok().map(|(s, _)| *s);
        let unresolved = matches!(result, Err(FetchError::NameNotResolved { .. }));
        let why = match &result {
            Ok((s, _)) => format!("HTTP {s}"),
            Err(e) => e.to_string(),
        };
        let entry = RobotsEntry::from_fetch(result.ok(), now_ms());
        if entry.status == RobotsStatus::DisallowAll {
            h.politeness.record_robots_failure(t);
            h.robots_failures = (h.robots_failures.0 + 1, why.clone());
            let since = *h.robots_failing_since.get_or_insert(t);
            if unresolved && h.robots_failures.0 >= UNREACHABLE_AFTER {
                // An unknown name does not come back within the hours `robots_give_up` waits
                // for a server: given up after one retry.
                crate::warn_line!(
                    "warning: host {}: name not resolved ({} tries, last: {why}); host given up until the next run",
                    h.host,
                    h.robots_failures.0
                );
                self.give_up(idx, GiveUp::NameNotResolved, &why);
            } else if t.saturating_duration_since(since) >= self.cfg.politeness.robots_give_up {
                crate::warn_line!(
                    "warning: host {}: robots.txt unavailable for {} (last: {why}); host given up until the next run",
                    h.host,
                    humantime::format_duration(self.cfg.politeness.robots_give_up)
                );
                self.give_up(idx, GiveUp::RobotsUnavailable, &why);
            } else {
                tracing::warn!(host = h.host, "robots.txt unavailable ({why}); retrying later");
            }
            return;
        }
        h.robots_failing_since = None;
        h.robots_failures = (0, String::new());
        let policy = entry.policy(&self.cfg.ua_token);
        h.politeness.record_response(t, response_time, status.unwrap_or(200), None, policy.crawl_delay());
        h.robots = Some((entry.clone(), policy));
        let _ = self.commit.send(CommitMsg::Robots { host: h.host.clone(), entry });
    }

    /// Give host `idx` up for this run, `why`, `last` its last error (cut for the state).
    fn give_up(&mut self, idx: usize, why: GiveUp, last: &str) {
        let h = &mut self.hosts[idx];
        if !h.dead {
            h.dead = true;
            let why = GivenUp { why, last: crate::crawl::url::for_log(last).into_owned() };
            let _ = self.commit.send(CommitMsg::HostDead { host: h.host.clone(), why });
        }
        self.check_dry(idx);
    }

    fn on_page(
        &mut self,
        idx: usize,
        ticket: u64,
        entry: FrontierEntry,
        mode: HostModel,
        fetch: FetchReply,
        t: Instant,
    ) {
        let FetchReply { result, exchanges, response_time } = fetch;
        let h = &mut self.hosts[idx];
        let crawl_delay = h.robots.as_ref().and_then(|(_, p)| p.crawl_delay());
        let page = match result {
            Err(e) => {
                if matches!(
                    e,
                    FetchError::Timeout { .. }
                        | FetchError::Connect { .. }
                        | FetchError::NameNotResolved { .. }
                        | FetchError::Other { .. }
                ) {
                    h.politeness.record_failure(t);
                } else {
                    // The host answered (a PDF, a page over the size cap, a bad redirect):
                    // not a host failure, the regular delay applies.
                    h.politeness.record_response(t, response_time, 200, None, crawl_delay);
                }
                tracing::warn!("{e}");
                let dead = h.politeness.is_dead();
                if dead {
                    crate::warn_line!(
                        "warning: host {}: too many consecutive failures; host given up (last: {e})",
                        h.host
                    );
                }
                let last = e.to_string();
                self.forward(idx, ticket, entry, PageResult::FetchFailed { reason: e.reason() }, exchanges);
                if dead {
                    self.give_up(idx, GiveUp::TooManyFailures, &last);
                }
                return;
            }
            Ok(page) => page,
        };
        h.politeness.record_response(t, response_time, page.status, page.retry_after.as_deref(), crawl_delay);
        if matches!(page.status, 429 | 503) {
            let tries = self.retries.entry(entry.url.clone()).or_default();
            *tries += 1;
            if *tries < RETRY_ATTEMPTS {
                // Fetched again when the host's back-off (Retry-After or exponential) is over.
                h.window.push_front(entry.clone());
                self.forward(idx, ticket, entry, PageResult::Retry, exchanges);
                return;
            }
        }
        self.retries.remove(&entry.url);
        if (200..300).contains(&page.status) {
            h.record_body(page.body.len());
            let host = h.host.clone();
            self.dispatched += 1;
            let delay_ms = h.politeness.last_delay().as_millis() as u64;
            let page = Box::new(page);
            self.overflow.push_back(WorkItem::Page { host, ticket, entry, page, mode, exchanges, delay_ms });
            self.push_overflow();
        } else {
            let fetched_at = humantime::format_rfc3339_seconds(page.fetched_at).to_string();
            let result = PageResult::Fetched {
                final_url: page.final_url,
                status: page.status,
                fetched_at,
                content_type: page.content_type,
                body_bytes: page.body.len() as u64,
                response_ms: page.response_time.as_millis() as u64,
                delay_ms: h.politeness.last_delay().as_millis() as u64,
                work: None,
                redirect: page.redirect,
                validators: page.validators,
            };
            self.forward(idx, ticket, entry, result, exchanges);
        }
    }

    fn push_overflow(&mut self) {
        send_queued(&self.work, &mut self.overflow);
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Queued(urls) => self.on_queued(urls),
            Event::Committed { pages, new_work, counters } => {
                // The open group's URLs are in the store now, behind the hosts' cursors or
                // ahead of them.
                for idx in std::mem::take(&mut self.early_hosts) {
                    self.hosts[idx].early.clear();
                }
                // New work first: a host whose last page brought links is not dry.
                for (host, seed) in new_work {
                    let seed = Url::parse(&seed).unwrap_or_else(|_| Url::parse("http://invalid/").expect("valid"));
                    self.add_host(&host, seed, None, HostModel::Sampling, false);
                }
                for host in pages {
                    if let Some(&idx) = self.index.get(&host) {
                        let h = &mut self.hosts[idx];
                        let was_capped = h.at_uncommitted_cap();
                        h.outstanding = h.outstanding.saturating_sub(1);
                        self.outstanding = self.outstanding.saturating_sub(1);
                        if was_capped && !h.at_uncommitted_cap() {
                            self.make_due(idx);
                        }
                        if self.hosts[idx].outstanding == 0 {
                            self.check_dry(idx);
                        }
                    }
                }
                self.counters = *counters;
            }
            Event::Model { host, model } => {
                if let Some(&idx) = self.index.get(&host) {
                    self.hosts[idx].model = HostModel::Ready(model);
                }
            }
            Event::Resample { host } => {
                if let Some(&idx) = self.index.get(&host) {
                    let h = &mut self.hosts[idx];
                    h.model = HostModel::Sampling;
                    h.dry_sent = false;
                    if h.outstanding == 0 {
                        self.check_dry(idx);
                    }
                }
            }
            Event::Pruned { host } => {
                if let Some(&idx) = self.index.get(&host) {
                    self.hosts[idx].dead = true;
                    self.hosts[idx].window.clear();
                    self.hosts[idx].early.clear();
                    self.check_dry(idx);
                }
            }
            Event::Acquire { partition } => self.move_partition(partition, false),
            Event::Release { partition } => self.move_partition(partition, true),
            Event::Finished(_) => {}
        }
    }

    /// Tell the committer a sampling host is finished: nothing queued, in flight or pending.
    ///
    /// In a cluster crawl a host's own links come back through its partition's stream, so a
    /// host is dry only once it has stayed idle for [`Membership::dry_grace`] (or its
    /// partition moves away).
    fn check_dry(&mut self, idx: usize) {
        let grace = self.membership.dry_grace();
        let h = &mut self.hosts[idx];
        if !h.dry_sent && matches!(h.model, HostModel::Sampling) && h.idle() {
            if let Some(grace) = grace.filter(|_| !h.moved) {
                let since = *h.idle_since.get_or_insert_with(Instant::now);
                if since.elapsed() < grace {
                    return;
                }
            }
            h.dry_sent = true;
            let _ = self.commit.send(CommitMsg::HostDry { host: h.host.clone() });
        }
    }

    fn show_progress(&mut self, progress: &Progress) {
        self.update_status();
        let mut counts = HostCounts::default();
        for h in &self.hosts {
            match (&h.model, h.dead) {
                (_, true) => counts.dead += 1,
                (HostModel::Sampling, _) => counts.sampling += 1,
                (HostModel::Ready(Some(_)), _) => counts.learned += 1,
                (HostModel::Ready(None), _) => counts.fallback += 1,
            }
        }
        let queued = self.hosts.iter().filter(|h| h.has_work || !h.window.is_empty()).count();
        progress.update(&self.counters, queued, self.in_flight, counts);
    }

    /// Requests dispatched in this run (pages, not robots.txt).
    pub fn dispatched(&self) -> u64 {
        self.dispatched
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

#[cfg(test)]
mod tests;
mod upkeep;
