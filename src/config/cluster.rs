//! `[cluster]`: the settings of a crawl shared by several machines through Redis
//! ([`crate::cluster`] runs it).

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `[cluster]` section: how a worker joins a crawl shared through Redis. Off (the
/// single-machine crawl) while `redis` is empty.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterConfig {
    /// The Redis server, `redis://HOST:PORT/` (database index allowed); empty: no cluster.
    pub redis: String,
    /// The crawl's name: every key of the crawl starts with `webcorpus:{name`.
    pub name: String,
    /// This worker's name, unique in the crawl and the same across its restarts (a restarted
    /// worker takes its partitions back while its leases live).
    pub worker_id: String,
    /// Partitions of the host space (fixed for the life of a crawl).
    pub partitions: u32,
    /// How often a worker renews its heartbeat and leases and reconsiders its partitions.
    #[serde(with = "humantime_serde")]
    pub heartbeat: Duration,
    /// A worker whose heartbeat is older than this is gone: its leases lapse and its
    /// partitions move to the live workers.
    #[serde(with = "humantime_serde")]
    pub timeout: Duration,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            redis: String::new(),
            name: "webcorpus".into(),
            worker_id: String::new(),
            partitions: 64,
            heartbeat: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
        }
    }
}

impl ClusterConfig {
    /// True when the crawl is shared through Redis.
    pub fn enabled(&self) -> bool {
        !self.redis.is_empty()
    }

    /// The refusal of an unusable setting, or `None`: `(key, reason)`.
    pub fn check(&self) -> Option<(&'static str, String)> {
        if !self.enabled() {
            return None;
        }
        if self.worker_id.is_empty() || self.worker_id.contains(char::is_whitespace) {
            return Some(("cluster.worker_id", "a cluster worker needs a name without spaces (--worker-id)".into()));
        }
        if self.name.is_empty() || self.name.contains(['{', '}', ' ']) {
            return Some(("cluster.name", "must be non-empty, without braces or spaces".into()));
        }
        if !(1..=4096).contains(&self.partitions) {
            return Some(("cluster.partitions", "must be 1 to 4096".into()));
        }
        if self.heartbeat.is_zero() || self.timeout < self.heartbeat * 3 {
            return Some(("cluster.timeout", "must be at least three heartbeats".into()));
        }
        None
    }
}
