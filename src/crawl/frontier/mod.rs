//! The frontier's backends: where a URL goes once the admission rule
//! ([`admission`]) took it, who owns which host, and how a crawl starts and
//! ends around them (ARCHITECTURE.md, "The crawl engine" and "Scale-out").
//!
//! The engine ([`crate::crawl::run`]) is written once against three seams:
//!
//! - [`FrontierBackend`], the committer's side: an admitted URL is either queued on this
//!   worker's frontier (the state, sled) or forwarded, published just before the group's
//!   store batch; delivered URLs ([`Delivered`]) carry a tag that is acknowledged once their
//!   outcome is committed; the hosts of a partition that moves away are forgotten;
//! - [`Membership`], dispatch's side: which hosts this worker fetches, when the whole crawl
//!   is over, how long a sampling host stays idle before it is dry, and the status the
//!   other workers read;
//! - [`CrawlMode`], the run's side: joining before the seeds, queueing the seeds, and the
//!   background tasks that run beside the three stages.
//!
//! [`local`] is the single-machine backend: every URL is queued here, every host is this
//! worker's, the crawl is over when the frontier is empty. The Redis backend of a crawl on
//! several machines is [`crate::cluster::worker`].

pub mod admission;
pub mod local;

use crate::crawl::messages::{CommitMsg, Event};
use crate::crawl::shutdown::Shutdown;
use crate::crawl::CrawlError;
use crate::store::{CrawlState, StateBatch, UrlKind};
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use url::Url;

pub use crate::crawl::messages::Delivered;
pub use local::{LocalFrontier, LocalMembership, LocalMode};

/// A URL on its way to a host's frontier, as the committer admitted it.
#[derive(Debug, Clone, Copy)]
pub struct NewUrl<'a> {
    /// The host (its [`host_key`](crate::crawl::url::host_key)) whose frontier takes the URL.
    pub target: &'a str,
    /// The normalised URL.
    pub url: &'a Url,
    /// Links followed from a seed (0 for a seed; sitemap nesting for a sitemap).
    pub depth: u32,
    /// Page, sitemap or feed.
    pub kind: UrlKind,
    /// The seed a host new to the crawl gets (scope is relative to it).
    pub new_seed: &'a str,
    /// Most URLs the host may have queued; `u64::MAX` for none.
    pub cap: u64,
}

/// The committer's side of the frontier. Calls come from the committer's thread, in this
/// order per group: [`forward`](Self::forward), [`finished`](Self::finished) and
/// [`acknowledge`](Self::acknowledge) while the group is open, then
/// [`before_commit`](Self::before_commit), the store batch, [`after_commit`](Self::after_commit).
pub trait FrontierBackend: Send {
    /// Take `url` when it goes elsewhere than this worker's frontier (returns true: it is
    /// published by [`before_commit`](Self::before_commit)); false queues it here.
    fn forward(&mut self, url: NewUrl<'_>) -> bool;
    /// Whether delivered URLs of `host` are this worker's to queue (the others are left for
    /// their owner).
    fn holds(&self, host: &str) -> bool;
    /// The outcome of `url`, delivered with `tag` (or found here: `None`), is in the open
    /// group. Returns true when the backend needs the URL marked done in the store (so that a
    /// second delivery is recognised).
    fn finished(&mut self, url: &str, tag: Option<&str>) -> bool;
    /// True when the outcome of `url` is in the open group ([`finished`](Self::finished)).
    fn finished_in_group(&self, url: &str) -> bool;
    /// Acknowledge, after the open group, a delivery whose outcome was committed before.
    fn acknowledge(&mut self, tag: &str);
    /// Before the group's store batch: publish what was forwarded.
    ///
    /// # Errors
    /// The backend's ([`CrawlError::Backend`]); the crawl stops with its state committed.
    fn before_commit(&mut self) -> Result<(), CrawlError>;
    /// After the group's store batch: acknowledge its finished deliveries, and report the
    /// partitions released by the group before.
    ///
    /// # Errors
    /// The backend's.
    fn after_commit(&mut self) -> Result<(), CrawlError>;
    /// The partition of `host` (hosts move between workers a partition at a time).
    fn partition(&self, host: &str) -> u32;
    /// `partition`'s hosts are forgotten in the open group: report the release after it.
    fn released(&mut self, partition: u32);
}

/// What dispatch publishes of this worker for the others (see [`Membership::publish`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerFigures {
    /// Pages fetched by this run.
    pub fetched_run: u64,
    /// Nothing due, in flight or uncommitted.
    pub idle: bool,
    /// Hosts this worker holds.
    pub hosts: u64,
    /// Pages fetched (the whole crawl in this state).
    pub fetched: u64,
    /// Records written.
    pub records: u64,
    /// Paragraphs written.
    pub paragraphs: u64,
    /// URLs queued for hosts given up, when recounted (at most once a second).
    pub parked: Option<u64>,
}

/// Dispatch's side of the frontier: which hosts this worker fetches and when the crawl ends.
pub trait Membership: Send {
    /// Whether `host` is this worker's to fetch now.
    fn owns_host(&self, host: &str) -> bool;
    /// The partition of `host`.
    fn partition(&self, host: &str) -> u32;
    /// With this worker idle: whether the whole crawl is over (links may still come from
    /// other workers while it is not).
    fn crawl_done(&self) -> bool;
    /// How long a sampling host stays idle before it is dry (its links make a round trip
    /// through the backend); `None`: dry as soon as it is idle.
    fn dry_grace(&self) -> Option<Duration>;
    /// Whether [`publish`](Self::publish) is read by anyone (dispatch skips the counting).
    fn publishes(&self) -> bool;
    /// Publish this worker's figures.
    fn publish(&mut self, figures: WorkerFigures);
}

/// The channels a mode's background tasks use (see [`CrawlMode::start`]).
pub struct ModeChannels {
    /// To the committer (delivered URLs, [`CommitMsg::Remote`]).
    pub commit: crossbeam_channel::Sender<CommitMsg>,
    /// To dispatch (partitions taken and released).
    pub events: tokio::sync::mpsc::UnboundedSender<Event>,
    /// The crawl's stop switch: a background task that fails stops the crawl through it.
    pub shutdown: Arc<Shutdown>,
    /// Becomes true when the three stages have ended.
    pub quit: tokio::sync::watch::Receiver<bool>,
}

/// What a started mode gives the engine.
pub struct ModeParts {
    /// The committer's side.
    pub frontier: Box<dyn FrontierBackend>,
    /// Dispatch's side.
    pub membership: Box<dyn Membership>,
    /// Tasks that run beside the stages; each is awaited at the end for `end_within`.
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
    /// How long the tasks may take to end once the stages are done.
    pub end_within: Duration,
    /// The warning printed when they do not (they are aborted; the state is committed).
    pub late: &'static str,
}

/// How a crawl runs: on one machine ([`LocalMode`]) or as one worker of several
/// ([`crate::cluster::worker::ClusterMode`]). The engine calls, in order, `join`, `queue_seeds`
/// and `start`.
pub trait CrawlMode {
    /// After the state is opened, before anything is queued.
    ///
    /// # Errors
    /// The mode's (a cluster that cannot be joined, an option it does not support).
    fn join(&mut self, state: &CrawlState, refresh: bool) -> impl Future<Output = Result<(), CrawlError>> + Send;
    /// Queue the seeds of `path` (see [`crate::crawl::seeds::read_seeds`]).
    ///
    /// # Errors
    /// An unusable seeds file, the store's, the backend's.
    fn queue_seeds(
        &mut self,
        state: &CrawlState,
        path: &Path,
        quiet: bool,
    ) -> impl Future<Output = Result<(), CrawlError>> + Send;
    /// Start the background tasks and give the stages their sides of the frontier.
    ///
    /// # Errors
    /// The backend's.
    fn start(self, channels: ModeChannels) -> impl Future<Output = Result<ModeParts, CrawlError>> + Send;
}

/// Forget up to `limit` of `host`'s queued URLs in `batch` (two writes each): their frontier
/// entries and seen marks (used when the host moves to another worker, which has their
/// deliveries). Returns the entries forgotten, and true when none is left once `batch` is
/// committed. A queue longer than `limit` is forgotten over several batches: call again
/// after `batch` is committed.
///
/// # Errors
/// The store's.
pub fn forget_queue(
    state: &CrawlState,
    batch: &mut StateBatch,
    host: &str,
    limit: usize,
) -> Result<(u64, bool), CrawlError> {
    let mut entries = state.frontier_window(host, 0, limit.saturating_add(1))?;
    let all = entries.len() <= limit;
    entries.truncate(limit);
    for e in &entries {
        batch.pop_frontier(host, e.seq);
        batch.unmark_seen(&e.url);
    }
    Ok((entries.len() as u64, all))
}
