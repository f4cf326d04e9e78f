//! One crawl on many machines (ARCHITECTURE.md, "Scale-out"): a backend of the crawl
//! engine's frontier ([`crate::crawl::frontier`]). The principal types are
//! [`worker::ClusterMode`], the mode a worker's crawl runs in ([`crate::crawl::run_with`]),
//! and [`ClusterLink`], a worker's handle on the crawl held in Redis; [`task::run_membership`]
//! is the async loop that keeps the worker's heartbeat, its partitions and its stream reads
//! going.
//!
//! Hosts are hashed into [`ClusterConfig::partitions`] partitions ([`partition_of`]); each
//! partition has exactly one owner, the live worker that wins rendezvous hashing
//! ([`rendezvous_owner`]) and holds the partition's lease key. The owner keeps the hosts'
//! robots.txt, politeness, sample and model in its own sled state, as a single-machine crawl
//! does. What Redis holds, per partition (keys share the hash tag `{name.p}`, so a partition
//! fits one Redis Cluster slot):
//!
//! - `q`: a stream of the URLs queued for the partition's hosts, one entry per URL, read by the
//!   owner through the consumer group `owners` and acknowledged (and deleted) only once the
//!   URL's final outcome (record written, or discard) is committed in the owner's state. An
//!   owner that dies leaves its entries pending; the next owner claims them. The stream is the
//!   crawl's shared frontier.
//! - `seen`: the set of URL identities (16-byte xxh3-128 of the URL without its scheme) ever
//!   queued: a URL is added to the stream only by the `SADD` that inserts it (a Lua script), so
//!   each URL is queued once in the whole crawl, whoever finds it.
//! - `lease`: the owner's worker id, with a time to live of [`ClusterConfig::timeout`], renewed
//!   with every heartbeat.
//!
//! and, for the crawl: `workers` (every worker id that joined), `hb.{id}` (a heartbeat key
//! with the same time to live: the worker is live while it exists), `status` (each worker's
//! last status, for `stats --cluster`), `seeds` and `seeds.loaded` (the seeds are queued once,
//! by the first worker).

pub mod links;
pub mod membership;
pub mod report;
pub mod task;
pub mod worker;

pub use crate::config::cluster::ClusterConfig;
pub use crate::crawl::frontier::Delivered;
use crate::crawl::frontier::NewUrl;
use crate::store::UrlKind;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The consumer group of every partition stream.
pub const GROUP: &str = "owners";

/// How long a stream read waits for new entries.
pub const READ_BLOCK: Duration = Duration::from_millis(200);

/// Errors of the cluster layer: Redis unreachable or answering what the protocol does not
/// expect.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A Redis command failed.
    #[error("redis {url}: {source}")]
    Redis {
        /// The server.
        url: String,
        /// The client's error.
        source: redis::RedisError,
    },
    /// A stream entry or status that cannot be read.
    #[error("cluster data: {0}")]
    Corrupt(String),
    /// An option that a cluster worker does not support.
    #[error("{0} is not supported in a cluster crawl")]
    Unsupported(&'static str),
    /// The worker was asked to queue or start before it joined the crawl.
    #[error("the worker has not joined the cluster crawl")]
    NotJoined,
    /// A command the committer waits for got no answer, not even an error, in time (the
    /// client's reconnection after Redis died can wait for ever).
    #[error("redis {url}: no answer within {}", humantime::format_duration(*.after))]
    NoAnswer {
        /// The server.
        url: String,
        /// How long the committer waited.
        after: Duration,
    },
}

impl ClusterError {
    /// Name the server in a Redis error that does not name it yet.
    pub fn at(self, redis_url: &str) -> ClusterError {
        match self {
            ClusterError::Redis { url, source } if url.is_empty() => {
                ClusterError::Redis { url: redis_url.to_string(), source }
            }
            other => other,
        }
    }
}

/// The partition of `host`: xxh3-64 of the host key modulo `partitions`.
pub fn partition_of(host: &str, partitions: u32) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(host.as_bytes()) % u64::from(partitions.max(1))) as u32
}

/// The owner of `partition` among `workers` by rendezvous (highest random weight) hashing
/// (Thaler & Ravishankar 1998): the worker with the highest xxh3-64 of `worker\0partition`.
/// When a worker joins or leaves, only the partitions it wins or held move.
pub fn rendezvous_owner(partition: u32, workers: &[String]) -> Option<&str> {
    workers
        .iter()
        .max_by_key(|w| {
            let mut key = w.as_bytes().to_vec();
            key.push(0);
            key.extend_from_slice(&partition.to_be_bytes());
            (xxhash_rust::xxh3::xxh3_64(&key), w.as_str())
        })
        .map(String::as_str)
}

/// Redis key names of one crawl.
#[derive(Debug, Clone)]
pub struct Keys {
    name: String,
}

impl Keys {
    /// Keys of the crawl `name`.
    pub fn new(name: &str) -> Keys {
        Keys { name: name.to_string() }
    }
    /// The stream of partition `p`.
    pub fn stream(&self, p: u32) -> String {
        format!("webcorpus:{{{}.{p}}}:q", self.name)
    }
    /// The seen set of partition `p`.
    pub fn seen(&self, p: u32) -> String {
        format!("webcorpus:{{{}.{p}}}:seen", self.name)
    }
    /// The lease of partition `p`.
    pub fn lease(&self, p: u32) -> String {
        format!("webcorpus:{{{}.{p}}}:lease", self.name)
    }
    /// The last worker to take partition `p`'s lease (kept when the lease lapses or is
    /// given back).
    pub fn holder(&self, p: u32) -> String {
        format!("webcorpus:{{{}.{p}}}:holder", self.name)
    }
    /// The heartbeat key of worker `id`.
    pub fn heartbeat(&self, id: &str) -> String {
        format!("webcorpus:{{{}}}:hb.{id}", self.name)
    }
    /// The set of every worker id that joined.
    pub fn workers(&self) -> String {
        format!("webcorpus:{{{}}}:workers", self.name)
    }
    /// The hash of each worker's last status (JSON).
    pub fn status(&self) -> String {
        format!("webcorpus:{{{}}}:status", self.name)
    }
    /// The id of the worker that loads the seeds.
    pub fn seeds(&self) -> String {
        format!("webcorpus:{{{}}}:seeds", self.name)
    }
    /// Set once the seeds are queued (their number).
    pub fn seeds_loaded(&self) -> String {
        format!("webcorpus:{{{}}}:seeds.loaded", self.name)
    }
}

/// A URL on its way to the owner of its host: what the finder knew of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RemoteUrl {
    /// Host key.
    #[serde(rename = "h")]
    pub host: String,
    /// Normalised absolute URL.
    #[serde(rename = "u")]
    pub url: String,
    /// Link distance from the seed (sitemap nesting for sitemaps).
    #[serde(rename = "d")]
    pub depth: u32,
    /// Page, sitemap or feed.
    #[serde(rename = "k", default, skip_serializing_if = "UrlKind::is_page")]
    pub kind: UrlKind,
    /// The seed of the host's record when the host is new (scope is relative to it).
    #[serde(rename = "s")]
    pub seed: String,
    /// The host's queue cap for this URL (`max_pages_per_host`; none for redirected seeds).
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<u64>,
}

/// Where a queued URL's stream entry is: partition and entry id. Stored with the frontier
/// entry and the waiting page as `"p/id"`, acknowledged once the URL's outcome is committed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StreamRef {
    /// The partition.
    pub partition: u32,
    /// The stream entry id (`ms-seq`).
    pub id: String,
}

impl StreamRef {
    /// The stored form, `p/id`.
    pub fn encode(&self) -> String {
        format!("{}/{}", self.partition, self.id)
    }
    /// Read the stored form.
    pub fn decode(text: &str) -> Option<StreamRef> {
        let (p, id) = text.split_once('/')?;
        Some(StreamRef { partition: p.parse().ok()?, id: id.to_string() })
    }
}

impl RemoteUrl {
    /// What the finder of `new` tells its owner.
    pub fn of(new: &NewUrl<'_>) -> RemoteUrl {
        RemoteUrl {
            host: new.target.to_string(),
            url: new.url.to_string(),
            depth: new.depth,
            kind: new.kind,
            seed: new.new_seed.to_string(),
            cap: (new.cap != u64::MAX).then_some(new.cap),
        }
    }

    /// This URL, read from the stream at `at`, delivered to the committer (its tag is `at`,
    /// [`StreamRef::encode`]).
    pub fn delivered(self, at: &StreamRef) -> Delivered {
        let RemoteUrl { host, url, depth, kind, seed, cap } = self;
        Delivered { tag: at.encode(), host, url, depth, kind, seed, cap }
    }
}

/// The partitions this worker holds, shared by the membership task (which writes) and the
/// crawl's stages (which read): dispatch fetches only for hosts of held partitions, the
/// committer queues only their URLs.
#[derive(Debug)]
pub struct Ownership {
    held: Vec<AtomicBool>,
}

impl Ownership {
    /// No partition held, out of `partitions`.
    pub fn new(partitions: u32) -> Arc<Ownership> {
        Arc::new(Ownership { held: (0..partitions.max(1)).map(|_| AtomicBool::new(false)).collect() })
    }
    /// Number of partitions.
    pub fn partitions(&self) -> u32 {
        self.held.len() as u32
    }
    /// True when this worker holds partition `p`.
    pub fn holds(&self, p: u32) -> bool {
        self.held.get(p as usize).is_some_and(|b| b.load(Ordering::Acquire))
    }
    /// True when this worker holds `host`'s partition.
    pub fn owns_host(&self, host: &str) -> bool {
        self.holds(partition_of(host, self.partitions()))
    }
    /// Mark `p` held or not.
    pub fn set(&self, p: u32, held: bool) {
        if let Some(b) = self.held.get(p as usize) {
            b.store(held, Ordering::Release);
        }
    }
    /// The held partitions.
    pub fn held(&self) -> Vec<u32> {
        (0..self.partitions()).filter(|&p| self.holds(p)).collect()
    }
}

/// What a worker tells the others in its heartbeat (and `stats --cluster` shows).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WorkerStatus {
    /// Worker id.
    pub worker: String,
    /// Process id.
    pub pid: u32,
    /// Milliseconds since the epoch of this status.
    pub at_ms: u64,
    /// Milliseconds since the epoch when this run started.
    pub started_ms: u64,
    /// Partitions held.
    pub partitions: u32,
    /// Hosts this worker crawls (of held partitions).
    pub hosts: u64,
    /// Pages fetched in this worker's state (all runs).
    pub fetched: u64,
    /// Pages fetched in this run.
    pub fetched_run: u64,
    /// Records written (all runs).
    pub records: u64,
    /// Paragraphs written (all runs).
    pub paragraphs: u64,
    /// Nothing due, in flight or uncommitted in this worker.
    pub idle: bool,
    /// Stream entries this worker holds for hosts it gave up (they wait for its next run).
    pub parked: u64,
    /// Stream entries this worker published (this run).
    pub published: u64,
    /// The state directory.
    pub state: String,
    /// Set when the worker stopped (end of crawl or signal).
    #[serde(default)]
    pub stopped: bool,
}

/// A worker's handle on the crawl in Redis, usable from the committer's thread (blocking,
/// through the runtime `handle`) and from async code.
#[derive(Clone)]
pub struct ClusterLink {
    /// The settings.
    pub cfg: ClusterConfig,
    /// Key names.
    pub keys: Keys,
    /// The partitions held.
    pub ownership: Arc<Ownership>,
    conn: redis::aio::ConnectionManager,
    client: redis::Client,
    handle: tokio::runtime::Handle,
    /// Stream entries published by this process.
    pub published: Arc<std::sync::atomic::AtomicU64>,
}

impl ClusterLink {
    /// Connect to `cfg.redis` (on the current tokio runtime).
    ///
    /// # Errors
    /// [`ClusterError::Redis`] when the server cannot be reached.
    pub async fn connect(cfg: &ClusterConfig) -> Result<ClusterLink, ClusterError> {
        let err = |source| ClusterError::Redis { url: cfg.redis.clone(), source };
        let client = redis::Client::open(cfg.redis.as_str()).map_err(err)?;
        // Every command answers or fails within the timeout (a worker that cannot reach
        // Redis stops rather than hangs); reconnection is tried twice.
        let manager = redis::aio::ConnectionManagerConfig::new()
            .set_response_timeout(cfg.timeout)
            .set_connection_timeout(cfg.timeout)
            .set_number_of_retries(2);
        let conn = redis::aio::ConnectionManager::new_with_config(client.clone(), manager).await.map_err(err)?;
        Ok(ClusterLink {
            keys: Keys::new(&cfg.name),
            ownership: Ownership::new(cfg.partitions),
            cfg: cfg.clone(),
            conn,
            client,
            handle: tokio::runtime::Handle::current(),
            published: Arc::default(),
        })
    }

    /// The partition of `host`.
    pub fn partition(&self, host: &str) -> u32 {
        partition_of(host, self.cfg.partitions)
    }

    /// A connection for commands (shared, multiplexed).
    pub fn conn(&self) -> redis::aio::ConnectionManager {
        self.conn.clone()
    }

    /// A connection of its own, for blocking reads.
    ///
    /// # Errors
    /// [`ClusterError::Redis`].
    pub async fn dedicated(&self) -> Result<redis::aio::MultiplexedConnection, ClusterError> {
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(self.cfg.timeout)
            .set_response_timeout(self.cfg.timeout + READ_BLOCK);
        self.client.get_multiplexed_async_connection_with_config(&config).await.map_err(|e| self.err(e))
    }

    fn err(&self, source: redis::RedisError) -> ClusterError {
        ClusterError::Redis { url: self.cfg.redis.clone(), source }
    }

    /// Publish `urls` (with their identities) to their partitions' streams, each only when
    /// its identity is new to the partition's seen set; blocks the calling (non-runtime)
    /// thread. Returns the number of entries added.
    ///
    /// # Errors
    /// [`ClusterError::Redis`].
    pub fn publish_blocking(&self, urls: &[(u128, RemoteUrl)]) -> Result<u64, ClusterError> {
        let added = self
            .block_on_bounded(links::publish(&mut self.conn(), &self.keys, self.cfg.partitions, urls))
            .map_err(|e| e.at(&self.cfg.redis))?;
        self.published.fetch_add(added, Ordering::Relaxed);
        Ok(added)
    }

    /// Run `command` on the runtime from the calling (non-runtime) thread, giving up after
    /// [`ClusterLink::ANSWER_WITHIN`] timeouts: the committer never waits for ever.
    fn block_on_bounded<T>(
        &self,
        command: impl std::future::Future<Output = Result<T, ClusterError>>,
    ) -> Result<T, ClusterError> {
        let after = self.cfg.timeout * Self::ANSWER_WITHIN;
        self.handle.block_on(async {
            tokio::time::timeout(after, command)
                .await
                .unwrap_or_else(|_| Err(ClusterError::NoAnswer { url: self.cfg.redis.clone(), after }))
        })
    }

    /// A blocking command gets an answer within this many `[cluster] timeout`s (the client's
    /// own response timeout, and its reconnection: a connection timeout per try, two tries).
    pub const ANSWER_WITHIN: u32 = 4;

    /// Acknowledge and delete the stream entries `done` (their outcome is committed); blocks
    /// the calling thread.
    ///
    /// # Errors
    /// [`ClusterError::Redis`].
    pub fn ack_blocking(&self, done: &[StreamRef]) -> Result<(), ClusterError> {
        if done.is_empty() {
            return Ok(());
        }
        self.block_on_bounded(async { links::ack(&mut self.conn(), &self.keys, done).await.map_err(|e| self.err(e)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendezvous_moves_only_the_partitions_of_the_worker_that_leaves() {
        let three: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let two: Vec<String> = ["a", "c"].map(String::from).to_vec();
        let mut per_worker = std::collections::HashMap::new();
        for p in 0..256 {
            let before = rendezvous_owner(p, &three).unwrap();
            let after = rendezvous_owner(p, &two).unwrap();
            *per_worker.entry(before).or_insert(0) += 1;
            if before != "b" {
                assert_eq!(before, after, "partition {p} moved though its owner stayed");
            }
        }
        for w in ["a", "b", "c"] {
            let n = per_worker[w];
            assert!((50..=120).contains(&n), "{w} owns {n} of 256 partitions");
        }
    }

    #[test]
    fn stream_refs_round_trip() {
        let r = StreamRef { partition: 17, id: "1732000000000-3".into() };
        assert_eq!(StreamRef::decode(&r.encode()), Some(r));
        assert_eq!(StreamRef::decode("x/1-1"), None);
    }

    #[test]
    fn ownership_tracks_partitions() {
        let o = Ownership::new(8);
        assert!(!o.owns_host("example.org"));
        o.set(partition_of("example.org", 8), true);
        assert!(o.owns_host("example.org"));
        assert_eq!(o.held(), vec![partition_of("example.org", 8)]);
    }
}
