//! A cluster worker's crawl: the Redis backend of the engine's frontier
//! ([`crate::crawl::frontier`]).
//!
//! - [`ClusterMode`] joins the crawl before the state is used (taking this worker's
//!   partitions and forgetting the hosts of the others), queues the seeds through the
//!   partition streams (once per crawl), and runs the membership and stream-reading loops
//!   ([`super::task`]) beside the three stages;
//! - [`RedisFrontier`], the committer's side: every admitted URL goes to its host's
//!   partition stream (its owner, this worker too, queues it when it is delivered), published
//!   just before the group's store batch; deliveries are acknowledged after the group that
//!   commits their outcome;
//! - [`ClusterMembership`], dispatch's side: only hosts of held partitions are fetched, the
//!   run ends when the whole crawl is done, a sampling host is dry after a grace of two
//!   heartbeats (its links make a round trip through Redis).

use super::task::{run_membership, run_reader, ClusterChannels};
use super::{partition_of, ClusterConfig, ClusterError, ClusterLink, Ownership, RemoteUrl, StreamRef, WorkerStatus};
use crate::crawl::frontier::{
    forget_queue, CrawlMode, FrontierBackend, Membership, ModeChannels, ModeParts, NewUrl, WorkerFigures,
};
use crate::crawl::seeds::read_seeds;
use crate::crawl::shutdown::{Shutdown, StopReason};
use crate::crawl::CrawlError;
use crate::store::{CrawlState, UrlKind};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

impl From<ClusterError> for CrawlError {
    fn from(e: ClusterError) -> CrawlError {
        CrawlError::Backend(Box::new(e))
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// A crawl run as one worker of a cluster crawl ([`crate::crawl::run_with`]).
pub struct ClusterMode {
    cfg: ClusterConfig,
    state_dir: PathBuf,
    /// `[crawl] commit_interval`: part of the dry grace.
    commit_interval: Duration,
    link: Option<ClusterLink>,
}

impl ClusterMode {
    /// The mode of a worker with `cfg`, its state in `state_dir`, committing every
    /// `commit_interval`.
    pub fn new(cfg: ClusterConfig, state_dir: PathBuf, commit_interval: Duration) -> ClusterMode {
        ClusterMode { cfg, state_dir, commit_interval, link: None }
    }

    fn link(&self) -> Result<&ClusterLink, CrawlError> {
        self.link.as_ref().ok_or_else(|| ClusterError::NotJoined.into())
    }
}

impl CrawlMode for ClusterMode {
    /// Connect, take this worker's partitions, forget the queued URLs of the hosts of
    /// partitions another worker held since the last run (or not this worker's now) (their stream entries are
    /// claimed again by their owners) and give back the leases of an earlier run that are no
    /// longer this worker's.
    async fn join(&mut self, state: &CrawlState, refresh: bool) -> Result<(), CrawlError> {
        if refresh {
            return Err(ClusterError::Unsupported("--refresh").into());
        }
        let link = ClusterLink::connect(&self.cfg).await?;
        let at = |e: ClusterError| e.at(&self.cfg.redis);
        let status = WorkerStatus {
            worker: self.cfg.worker_id.clone(),
            pid: std::process::id(),
            started_ms: now_ms(),
            state: self.state_dir.display().to_string(),
            ..WorkerStatus::default()
        };
        // Workers started together see each other before they take partitions.
        let settle = (self.cfg.heartbeat * 2).max(Duration::from_secs(1)).min(self.cfg.timeout);
        let joined = super::task::join(&link, &status, settle).await.map_err(at)?;
        let (hosts, urls) = forget_unowned(state, &link, &joined.kept)?;
        if hosts > 0 {
            crate::warn_line!(
                "cluster: the partitions of {hosts} hosts are not this worker's now or were another's since its \
                 last run: their {urls} queued or waiting URLs are taken from the streams again"
            );
        }
        super::task::give_back(&link, &joined.not_mine).await.map_err(at)?;
        tracing::info!(partitions = link.ownership.held().len(), "joined the cluster crawl");
        self.link = Some(link);
        Ok(())
    }

    /// The seeds go to their partitions' streams, once per crawl.
    async fn queue_seeds(&mut self, _state: &CrawlState, path: &Path, quiet: bool) -> Result<(), CrawlError> {
        let link = self.link()?;
        let seeds: Vec<(u128, RemoteUrl)> = read_seeds(path)?
            .into_iter()
            .map(|(url, host)| {
                let new = NewUrl {
                    target: &host,
                    url: &url,
                    depth: 0,
                    kind: UrlKind::Page,
                    new_seed: url.as_str(),
                    cap: u64::MAX,
                };
                (CrawlState::url_identity(url.as_str()), RemoteUrl::of(&new))
            })
            .collect();
        let mut conn = link.conn();
        let loaded = super::links::load_seeds(&mut conn, &link.keys, link.cfg.partitions, &link.cfg.worker_id, &seeds)
            .await
            .map_err(|e| e.at(&link.cfg.redis))?;
        if let (Some(added), false) = (loaded, quiet) {
            crate::warn_line!("cluster: {added} seeds queued for the crawl `{}`", link.cfg.name);
        }
        Ok(())
    }

    /// Claim the entries pending for the held partitions, then run the membership and
    /// stream-reading loops; either one failing stops the crawl ([`StopReason::ClusterLost`]).
    async fn start(self, ch: ModeChannels) -> Result<ModeParts, CrawlError> {
        let link = self.link()?.clone();
        let claimed = super::task::claim_held(&link).await.map_err(|e| e.at(&link.cfg.redis))?;
        if !claimed.is_empty() {
            let _ = ch.commit.send(crate::crawl::messages::CommitMsg::Remote(claimed));
        }
        let (released_tx, released_rx) = tokio::sync::mpsc::unbounded_channel();
        let done = Arc::new(AtomicBool::new(false));
        let status = Arc::new(Mutex::new(WorkerStatus {
            started_ms: now_ms(),
            state: self.state_dir.display().to_string(),
            ..WorkerStatus::default()
        }));
        let channels = ClusterChannels {
            commit: ch.commit.clone(),
            events: ch.events,
            released: released_rx,
            status: status.clone(),
            done: done.clone(),
        };
        let grace = link.cfg.heartbeat * 2 + self.commit_interval * 2;
        let membership = ClusterMembership::new(link.ownership.clone(), done, status, grace);
        let redis = self.cfg.redis.clone();
        let loops = run_membership(link.clone(), channels, ch.quit.clone());
        let loops = tokio::spawn(watch(loops, ch.shutdown.clone(), redis.clone()));
        let reader = run_reader(link.clone(), ch.commit, ch.quit);
        let reader = tokio::spawn(watch(reader, ch.shutdown, redis));
        Ok(ModeParts {
            frontier: Box::new(RedisFrontier::new(link, released_tx)),
            membership: Box::new(membership),
            tasks: vec![loops, reader],
            end_within: self.cfg.timeout,
            late: "the cluster's Redis did not answer at the end; the leases lapse after [cluster] timeout",
        })
    }
}

/// A cluster loop whose failure stops the worker (its state stays committed).
async fn watch(
    task: impl std::future::Future<Output = Result<(), ClusterError>>,
    shutdown: Arc<Shutdown>,
    redis: String,
) {
    if let Err(e) = task.await {
        let e = e.at(&redis);
        crate::warn_line!("error: {e}");
        shutdown.request(StopReason::ClusterLost(e.to_string()));
    }
}

/// The committer's side of a cluster crawl: the open group's outbox and acknowledgements,
/// and the partitions released by the group before.
pub struct RedisFrontier {
    link: ClusterLink,
    /// To the membership loop: partitions whose hosts are forgotten (their lease can go).
    released: tokio::sync::mpsc::UnboundedSender<u32>,
    outbox: Vec<(u128, RemoteUrl)>,
    outbox_seen: HashSet<u128>,
    acks: Vec<StreamRef>,
    group_done: HashSet<u128>,
    released_after_commit: Vec<u32>,
}

impl RedisFrontier {
    /// The frontier of `link`, telling the membership loop of released partitions on
    /// `released`.
    pub fn new(link: ClusterLink, released: tokio::sync::mpsc::UnboundedSender<u32>) -> RedisFrontier {
        RedisFrontier {
            link,
            released,
            outbox: Vec::new(),
            outbox_seen: HashSet::new(),
            acks: Vec::new(),
            group_done: HashSet::new(),
            released_after_commit: Vec::new(),
        }
    }
}

impl FrontierBackend for RedisFrontier {
    /// Every URL goes to its host's partition stream, once per group (the stream's seen set
    /// keeps it once per crawl).
    fn forward(&mut self, url: NewUrl<'_>) -> bool {
        let identity = CrawlState::url_identity(url.url.as_str());
        if self.outbox_seen.insert(identity) {
            self.outbox.push((identity, RemoteUrl::of(&url)));
        }
        true
    }
    fn holds(&self, host: &str) -> bool {
        self.link.ownership.owns_host(host)
    }
    fn finished(&mut self, url: &str, tag: Option<&str>) -> bool {
        self.group_done.insert(CrawlState::url_identity(url));
        if let Some(at) = tag.and_then(StreamRef::decode) {
            self.acks.push(at);
        }
        true
    }
    fn finished_in_group(&self, url: &str) -> bool {
        self.group_done.contains(&CrawlState::url_identity(url))
    }
    fn acknowledge(&mut self, tag: &str) {
        if let Some(at) = StreamRef::decode(tag) {
            self.acks.push(at);
        }
    }
    fn before_commit(&mut self) -> Result<(), CrawlError> {
        if !self.outbox.is_empty() {
            self.link.publish_blocking(&self.outbox)?;
            self.outbox.clear();
            self.outbox_seen.clear();
        }
        Ok(())
    }
    fn after_commit(&mut self) -> Result<(), CrawlError> {
        self.link.ack_blocking(&self.acks).map_err(|e| e.at(&self.link.cfg.redis))?;
        self.acks.clear();
        self.group_done.clear();
        for p in self.released_after_commit.drain(..) {
            let _ = self.released.send(p);
        }
        Ok(())
    }
    fn partition(&self, host: &str) -> u32 {
        self.link.partition(host)
    }
    fn released(&mut self, partition: u32) {
        self.released_after_commit.push(partition);
    }
}

/// Dispatch's side of a cluster crawl: which hosts are this worker's, the end of the whole
/// crawl, and the status the membership loop publishes.
pub struct ClusterMembership {
    ownership: Arc<Ownership>,
    done: Arc<AtomicBool>,
    status: Arc<Mutex<WorkerStatus>>,
    dry_grace: Duration,
}

impl ClusterMembership {
    /// Hosts of the partitions `ownership` holds are fetched; the crawl is over when the
    /// membership loop sets `done`; dispatch's figures go to `status`; a sampling host is dry
    /// after `dry_grace` idle.
    pub fn new(
        ownership: Arc<Ownership>,
        done: Arc<AtomicBool>,
        status: Arc<Mutex<WorkerStatus>>,
        dry_grace: Duration,
    ) -> ClusterMembership {
        ClusterMembership { ownership, done, status, dry_grace }
    }
}

impl Membership for ClusterMembership {
    fn owns_host(&self, host: &str) -> bool {
        self.ownership.owns_host(host)
    }
    fn partition(&self, host: &str) -> u32 {
        partition_of(host, self.ownership.partitions())
    }
    fn crawl_done(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }
    fn dry_grace(&self) -> Option<Duration> {
        Some(self.dry_grace)
    }
    fn publishes(&self) -> bool {
        true
    }
    fn publish(&mut self, f: WorkerFigures) {
        if let Ok(mut s) = self.status.lock() {
            s.fetched_run = f.fetched_run;
            s.idle = f.idle;
            s.hosts = f.hosts;
            s.fetched = f.fetched;
            s.records = f.records;
            s.paragraphs = f.paragraphs;
            if let Some(parked) = f.parked {
                s.parked = parked;
            }
        }
    }
}

/// Queued URLs forgotten per store batch at a worker's start (two writes each).
const FORGET_PER_BATCH: usize = 4_096;

/// At the start of a cluster worker: forget everything of the hosts of the partitions not in
/// `kept` (partitions no other worker held since the last run): queued URLs and the pages
/// waiting for a model, with their seen marks. Their stream entries are still pending: the
/// partition's owner (this worker too, when it takes the partition) claims and queues them
/// again. Returns (hosts, URLs) forgotten.
///
/// # Errors
/// The store's.
pub fn forget_unowned(state: &CrawlState, link: &ClusterLink, kept: &[u32]) -> Result<(u64, u64), CrawlError> {
    let mut batch = state.batch();
    let (mut hosts, mut urls) = (0, 0);
    for mut rec in state.hosts()? {
        if kept.contains(&link.partition(&rec.host)) {
            continue;
        }
        // A long queue goes over several batches (forget_queue reads the committed store).
        let mut queued = 0;
        loop {
            let (n, all) = forget_queue(state, &mut batch, &rec.host, FORGET_PER_BATCH)?;
            queued += n;
            if all {
                break;
            }
            state.commit(std::mem::replace(&mut batch, state.batch()))?;
        }
        let waiting = state.waiting_window(&rec.host, 0, usize::MAX)?;
        for page in &waiting {
            batch.delete_waiting(&rec.host, page.seq);
            batch.unmark_seen(&page.url);
        }
        if queued > 0 || !waiting.is_empty() {
            hosts += 1;
            urls += queued + waiting.len() as u64;
            rec.learning.forget_waiting();
            batch.put_host(&rec);
        }
    }
    state.commit(batch)?;
    Ok((hosts, urls))
}
