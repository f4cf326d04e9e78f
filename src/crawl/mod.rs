//! The crawler. The principal function is [`run`]: seeds in, corpus out, all state in the
//! store so that a killed crawl resumes where it stopped.
//!
//! Pieces, in pipeline order: [`url`] (normalisation, scope, seeds), [`robots`] (robots.txt),
//! [`politeness`] (per-host delay, back-off), [`fetch`] (reqwest), [`task`] (one request plus
//! its CPU work), [`scheduler`] (hosts, learning, the main loop), [`sink`] (dedup, corpus
//! writer, atomic commits), [`progress`] (indicatif).

pub mod fetch;
pub mod politeness;
pub mod progress;
pub mod robots;
pub mod scheduler;
pub mod sink;
pub mod stats;
pub mod task;
pub mod url;

use crate::config::Config;
use crate::store::{Counters, StoreError};
use std::path::PathBuf;

pub use scheduler::run;

/// Errors that stop a crawl. A bad page never does: it is a counted discard.
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// The state store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The corpus could not be written.
    #[error(transparent)]
    Write(#[from] crate::write::WriteError),
    /// Dedup failed (it reads the store).
    #[error(transparent)]
    Dedup(#[from] crate::dedup::DedupError),
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
    /// The state directory was written with another corpus format.
    #[error("state was written with corpus format `{stored}`, but `{requested}` was asked for; use another --state or the same format")]
    FormatMismatch {
        /// Format in the state.
        stored: String,
        /// Format configured now.
        requested: String,
    },
}

/// Where a crawl reads and writes.
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// The configuration.
    pub config: Config,
    /// The seeds file (one URL per line, `#` comments).
    pub seeds: PathBuf,
    /// Hide the progress bars.
    pub quiet: bool,
}

/// What a crawl did, printed at the end.
#[derive(Debug, Clone)]
pub struct CrawlSummary {
    /// Counters as committed.
    pub counters: Counters,
    /// Hosts known to the state.
    pub hosts: usize,
    /// Hosts with a learned model.
    pub learned: usize,
    /// URLs left on the frontier (non-zero when stopped early).
    pub queued: usize,
    /// The corpus file.
    pub corpus: PathBuf,
    /// True when the crawl was interrupted (Ctrl-C) before the frontier emptied.
    pub interrupted: bool,
}
