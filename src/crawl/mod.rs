//! The crawler. The principal function is [`run`]: seeds in, corpus out, all state in the
//! store so that a killed crawl resumes where it stopped. It is three stages
//! (ARCHITECTURE.md, "The crawl engine"):
//!
//! - [`dispatch`]: the async scheduler — hosts by due time ([`hosts`]), robots.txt
//!   ([`robots`]), politeness ([`politeness`]), fetches ([`fetch`], reqwest), URLs ([`url`]);
//! - [`workers`]: a thread pool for decoding, parsing, extraction and learning;
//! - [`committer`]: the single writer — Onion dedup in memory, the corpus, group commits.
//!
//! They talk through bounded queues ([`messages`]); [`progress`] draws the live counters and
//! [`stats`] reports on a state. Where admitted URLs go and which hosts are this worker's is
//! the [`frontier`]'s backend: the local one here, or a cluster worker's
//! ([`crate::cluster::worker`]), which runs the same three stages with its URLs travelling
//! through Redis and fetches only the hosts of its partitions.

pub mod address;
pub mod committer;
pub mod dispatch;
pub mod fetch;
pub mod frontier;
pub mod hosts;
pub mod messages;
pub mod owner;
pub mod politeness;
pub mod progress;
pub mod record;
pub mod replay;
pub mod robots;
mod run;
pub mod seeds;
pub mod shutdown;
pub mod sink;
pub mod snapshot;
pub mod sources;
pub mod stats;
pub mod status_page;
pub mod url;
pub mod watchdog;
pub mod workers;

use crate::config::Config;
use crate::store::{Counters, StoreError};
use std::path::PathBuf;

pub use run::{run, run_with, WARC_DIR};

/// Errors that stop a crawl. A bad page never does: it is a counted discard.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// The state store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The corpus could not be written.
    #[error(transparent)]
    Write(#[from] crate::write::WriteError),
    /// The WARC output could not be written.
    #[error(transparent)]
    Warc(#[from] crate::write::warc::WarcError),
    /// Dedup failed.
    #[error(transparent)]
    Dedup(#[from] crate::dedup::DedupError),
    /// Onion's hash log could not be read or written.
    #[error(transparent)]
    HashLog(#[from] crate::dedup::log::HashLogError),
    /// The committer stopped on an error (its message).
    #[error("committer: {0}")]
    Committer(String),
    /// The configured page classifier model could not be loaded.
    #[error(transparent)]
    Classify(#[from] crate::classify::ClassifyError),
    /// The HTTP client could not be built.
    #[error(transparent)]
    Fetch(#[from] fetch::FetchError),
    /// The seeds file is unusable.
    #[error("seeds file {path}: {reason}")]
    Seeds {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A filesystem of the crawl has less free space than `[crawl] min_free_space` (exit
    /// status 75, [`CrawlError::exit_code`]).
    #[error("{0}; free space, then run the same command again")]
    DiskLow(shutdown::StopReason),
    /// The state or corpus directory cannot be written (a read-only filesystem, no
    /// permission); checked before anything is created.
    #[error("cannot write in {}: {source}", path.display())]
    NotWritable {
        /// The state or corpus directory.
        path: PathBuf,
        /// The error of creating a file there.
        source: std::io::Error,
    },
    /// The corpus directory belongs to another state, or is in use.
    #[error(transparent)]
    Owner(#[from] owner::OwnerError),
    /// The frontier's backend failed (a cluster's Redis), or its settings are unusable.
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
    /// The status page's address cannot be bound.
    #[error("--status {addr}: {source}")]
    StatusPage {
        /// The address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The signal handlers could not be installed.
    #[error("cannot install the signal handlers: {0}")]
    Signals(std::io::Error),
    /// The state directory was written with another corpus format.
    #[error("state was written with corpus format `{stored}`, but `{requested}` was asked for; use another --state or the same format")]
    FormatMismatch {
        /// Format in the state.
        stored: String,
        /// Format configured now.
        requested: String,
    },
}

impl CrawlError {
    /// The process exit status for a crawl that stopped on this error: 75 for the disk guard's
    /// refusal at the start (as for its stop during the crawl, [`shutdown::StopReason`]), 1
    /// for every other error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CrawlError::DiskLow(reason) => reason.exit_code(),
            _ => 1,
        }
    }
}

/// Where a crawl reads and writes.
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// The configuration.
    pub config: Config,
    /// The seeds file (one URL per line, `#` comments); `-` for standard input.
    pub seeds: PathBuf,
    /// Hide the progress bars.
    pub quiet: bool,
    /// Fetch again every page the state holds as fetched, conditionally (see
    /// [`run`]); only when nothing is queued, else the queued crawl is resumed first.
    pub refresh: bool,
}

/// What a crawl did, printed at the end.
#[derive(Debug, Clone)]
pub struct CrawlSummary {
    /// Counters as committed (the whole crawl, earlier runs included).
    pub counters: Counters,
    /// The counters when this run started (all zero for a new crawl).
    pub counters_before: Counters,
    /// Hosts known to the state.
    pub hosts: usize,
    /// Hosts with a learned model.
    pub learned: usize,
    /// URLs left on the frontier (non-zero when stopped early).
    pub queued: usize,
    /// The corpus file.
    pub corpus: PathBuf,
    /// Why the crawl stopped before its frontier emptied (a signal, a low disk); `None` when
    /// it ran to the end.
    pub stopped: Option<shutdown::StopReason>,
    /// Hosts given up (robots.txt unavailable for `robots_give_up`, a name that does not
    /// resolve, too many failures in a row, or refused by the address policy).
    pub given_up: usize,
    /// The hosts given up, by name, and why (a later run tries them again).
    pub given_up_hosts: Vec<(String, Option<crate::store::GivenUp>)>,
}

impl CrawlSummary {
    /// The process exit status: 0 when the frontier was crawled to the end, the stop
    /// reason's (130 SIGINT, 143 SIGTERM, 75 low disk), 3 when every host was given up
    /// (nothing could be crawled), 4 when the others were crawled to the end but some hosts
    /// were given up ([`EXIT_HOSTS_PENDING`]).
    pub fn exit_code(&self) -> u8 {
        match &self.stopped {
            Some(reason) => reason.exit_code(),
            None if self.hosts > 0 && self.given_up == self.hosts => EXIT_ALL_GIVEN_UP,
            None if self.given_up > 0 => EXIT_HOSTS_PENDING,
            None => 0,
        }
    }
}

/// Exit status of a crawl that ran but could reach none of its hosts.
pub const EXIT_ALL_GIVEN_UP: u8 = 3;

/// Exit status of a crawl that ended with some hosts given up for the run (their names in
/// the summary and in `stats`); running the same command again tries them again.
pub const EXIT_HOSTS_PENDING: u8 = 4;
