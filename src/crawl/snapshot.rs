//! The status snapshot of a running crawl: `<state_dir>/status.json`, rewritten by the
//! committer after a group commit at most every [`SNAPSHOT_INTERVAL`] and once when the crawl
//! ends. sled holds an exclusive lock on the state while the crawl runs; `webcorpus stats`
//! reads this file instead, so a crawl can be watched without stopping it.
//!
//! The file is written to a temporary name and renamed over the old one, so a reader sees
//! either the previous snapshot or the new one, never a torn file.

use crate::store::{Counters, HostRecord};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// File name of the snapshot inside the state directory.
pub const STATUS_FILE: &str = "status.json";

/// Least time between two snapshots of a running crawl.
pub const SNAPSHOT_INTERVAL: Duration = Duration::from_secs(2);

/// What `stats` shows of a crawl that holds its state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StatusSnapshot {
    /// RFC 3339 time the snapshot was written, UTC.
    pub written_at: String,
    /// Process id of the crawl.
    pub pid: u32,
    /// False in the snapshot written when the crawl ended.
    pub running: bool,
    /// When this run started, RFC 3339 UTC.
    pub run_started_at: String,
    /// Pages fetched in this run (the counters are cumulative over runs).
    pub run_fetched: u64,
    /// Records written in this run.
    pub run_records: u64,
    /// The crawl-wide counters as last committed.
    pub counters: Counters,
    /// URLs on the frontier (counted only in the final snapshot; `None` while running, where
    /// counting would scan the whole frontier).
    pub queued: Option<usize>,
    /// Every host record as last committed.
    pub hosts: Vec<HostRecord>,
    /// The last fetch and processing errors of this run, oldest first (at most
    /// [`LAST_ERRORS`]).
    #[serde(default)]
    pub last_errors: Vec<ErrorLine>,
}

/// Errors kept for the status page.
pub const LAST_ERRORS: usize = 20;

/// One error of the crawl: a fetch that failed, a 5xx answer, a page that could not be
/// processed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ErrorLine {
    /// RFC 3339 time, UTC.
    pub at: String,
    /// The URL.
    pub url: String,
    /// The discard reason (`timeout`, `http_503`, `processing_failed`, ...).
    pub reason: String,
}

/// Errors reading or writing the snapshot.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a snapshot.
    #[error("{path}: not a status snapshot: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        source: serde_json::Error,
    },
}

/// Write `snapshot` into `state_dir` (temporary file, then rename).
///
/// # Errors
/// [`SnapshotError::Io`].
pub fn write(state_dir: &Path, snapshot: &StatusSnapshot) -> Result<(), SnapshotError> {
    let path = state_dir.join(STATUS_FILE);
    let tmp = state_dir.join(format!("{STATUS_FILE}.tmp"));
    let io = |source| SnapshotError::Io { path: path.clone(), source };
    let json = serde_json::to_vec(snapshot).expect("a snapshot serialises");
    std::fs::write(&tmp, json).map_err(io)?;
    std::fs::rename(&tmp, &path).map_err(io)
}

/// Read the snapshot of `state_dir`.
///
/// # Errors
/// [`SnapshotError::Io`] when there is none, [`SnapshotError::Parse`] when it is not one.
pub fn read(state_dir: &Path) -> Result<StatusSnapshot, SnapshotError> {
    let path = state_dir.join(STATUS_FILE);
    let bytes = std::fs::read(&path).map_err(|source| SnapshotError::Io { path: path.clone(), source })?;
    serde_json::from_slice(&bytes).map_err(|source| SnapshotError::Parse { path, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_replace() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(read(dir.path()), Err(SnapshotError::Io { .. })));
        let mut snap = StatusSnapshot {
            written_at: "2026-01-01T00:00:00Z".into(),
            pid: 7,
            running: true,
            run_started_at: "2026-01-01T00:00:00Z".into(),
            run_fetched: 3,
            run_records: 2,
            counters: Counters { fetched: 3, ..Counters::default() },
            queued: None,
            hosts: vec![HostRecord { host: "a.test".into(), fetched: 3, ..HostRecord::default() }],
            last_errors: Vec::new(),
        };
        write(dir.path(), &snap).unwrap();
        assert_eq!(read(dir.path()).unwrap(), snap);
        snap.running = false;
        snap.queued = Some(4);
        write(dir.path(), &snap).unwrap();
        assert_eq!(read(dir.path()).unwrap(), snap);
        assert!(!dir.path().join("status.json.tmp").exists());
        std::fs::write(dir.path().join(STATUS_FILE), "{").unwrap();
        assert!(matches!(read(dir.path()), Err(SnapshotError::Parse { .. })));
    }
}
