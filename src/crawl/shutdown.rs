//! Why and when a crawl stops early: [`Shutdown`] is the one place a stop is asked for — by a
//! signal ([`watch_signals`]: SIGINT, SIGTERM) or by the disk guard ([`watch_disks`], like
//! Heritrix's disk-space monitor) — and dispatch waits on it. The first request wins; a second
//! signal ends the process at once ([`StopReason::exit_code`]), which leaves the state as
//! consistent as a `kill -9` does (the next run cuts the corpus back to the last commit).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Why a crawl stopped before its frontier was empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// SIGINT (Ctrl-C).
    Interrupt,
    /// SIGTERM.
    Terminate,
    /// A filesystem of the crawl has less free space than `[crawl] min_free_space`.
    DiskLow {
        /// The state or corpus directory.
        path: PathBuf,
        /// Free bytes left there.
        free: u64,
        /// The configured minimum, bytes.
        min: u64,
    },
    /// Cluster crawl: Redis failed (the message); the worker stops with its state committed.
    ClusterLost(String),
}

impl StopReason {
    /// The process exit status for this stop: 130 (SIGINT) and 143 (SIGTERM) as shells
    /// report a death by signal, 75 (`EX_TEMPFAIL`: run again when there is space) for a low
    /// disk, 69 (`EX_UNAVAILABLE`) when a cluster worker lost Redis.
    pub fn exit_code(&self) -> u8 {
        match self {
            StopReason::Interrupt => 130,
            StopReason::Terminate => 143,
            StopReason::DiskLow { .. } => 75,
            StopReason::ClusterLost(_) => 69,
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Interrupt => write!(f, "interrupted (SIGINT)"),
            StopReason::Terminate => write!(f, "terminated (SIGTERM)"),
            StopReason::ClusterLost(e) => write!(f, "stopped: the cluster's Redis failed: {e}"),
            StopReason::DiskLow { path, free, min } => write!(
                f,
                "stopped: {} has {} MiB free, less than min_free_space ({} MiB)",
                path.display(),
                free / (1 << 20),
                min / (1 << 20)
            ),
        }
    }
}

/// The stop request of one crawl, shared by its watchers and dispatch.
#[derive(Debug, Default)]
pub struct Shutdown {
    reason: Mutex<Option<StopReason>>,
    notify: tokio::sync::Notify,
}

impl Shutdown {
    /// A shutdown nobody asked for yet.
    pub fn new() -> Arc<Shutdown> {
        Arc::new(Shutdown::default())
    }

    /// Ask the crawl to stop. Returns false when a stop was asked for already (the first
    /// reason is kept).
    pub fn request(&self, reason: StopReason) -> bool {
        let mut slot = self.reason.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return false;
        }
        *slot = Some(reason);
        drop(slot);
        // Wakes every `requested` waiter, polled yet or not; later callers see the reason.
        self.notify.notify_waiters();
        true
    }

    /// The reason, once a stop was asked for.
    pub fn reason(&self) -> Option<StopReason> {
        self.reason.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Wait until a stop is asked for.
    pub async fn requested(&self) {
        loop {
            let notified = self.notify.notified();
            if self.reason().is_some() {
                return;
            }
            notified.await;
        }
    }
}

/// Watch SIGINT and SIGTERM: the first asks `shutdown` to stop (with a message on stderr);
/// a second one exits the process at once with the signal's status.
///
/// # Errors
/// When the signal handlers cannot be installed.
pub fn watch_signals(shutdown: Arc<Shutdown>) -> std::io::Result<tokio::task::JoinHandle<()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    Ok(tokio::spawn(async move {
        loop {
            let reason = tokio::select! {
                _ = int.recv() => StopReason::Interrupt,
                _ = term.recv() => StopReason::Terminate,
            };
            if shutdown.request(reason.clone()) {
                eprintln!(
                    "{reason}: no new requests; requests in flight get a short grace, then the fetched pages are \
                     committed. Run the same command again to resume; a second Ctrl-C exits at once."
                );
            } else {
                eprintln!("{reason} again: exiting now; the state stays consistent, run the same command to resume");
                std::process::exit(i32::from(reason.exit_code()));
            }
        }
    }))
}

/// The nearest existing ancestor of `path` (itself when it exists; `.` when none does).
fn existing_ancestor(path: &Path) -> &Path {
    let mut probe = path;
    while !probe.exists() {
        match probe.parent() {
            Some(p) if !p.as_os_str().is_empty() => probe = p,
            _ => return Path::new("."),
        }
    }
    probe
}

/// Free bytes on the filesystem holding `path` (its nearest existing ancestor).
///
/// # Errors
/// When the filesystem cannot be asked.
pub fn free_space(path: &Path) -> std::io::Result<u64> {
    fs2::available_space(existing_ancestor(path))
}

/// Can a file be created where `path` is or will be (in it when it is a directory, else in its
/// nearest existing ancestor)? A probe file is created and removed again; nothing else is
/// written, so a refused crawl leaves no folders behind.
///
/// # Errors
/// The creation's error: `ReadOnlyFilesystem` on a read-only mount, `PermissionDenied`, ...
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    let dir = existing_ancestor(path);
    let probe = dir.join(format!(".webcorpus-write-probe-{}", std::process::id()));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&probe)?;
    std::fs::remove_file(&probe)
}

/// The first of `paths` with less than `min` bytes free, as a [`StopReason::DiskLow`].
/// A filesystem that cannot be asked is logged and passed over.
pub fn low_disk(paths: &[PathBuf], min: u64) -> Option<StopReason> {
    if min == 0 {
        return None;
    }
    for path in paths {
        match free_space(path) {
            Ok(free) if free < min => return Some(StopReason::DiskLow { path: path.clone(), free, min }),
            Ok(_) => {}
            Err(e) => tracing::warn!("cannot read the free space of {}: {e}", path.display()),
        }
    }
    None
}

/// Check the free space of `paths` every `every`; ask `shutdown` to stop when one is below
/// `min` bytes.
pub fn watch_disks(
    shutdown: Arc<Shutdown>,
    paths: Vec<PathBuf>,
    min: u64,
    every: Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            if let Some(reason) = low_disk(&paths, min) {
                if shutdown.request(reason.clone()) {
                    eprintln!("{reason}; committing and stopping. Free space, then run the same command to resume.");
                }
                return;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn first_request_wins_and_wakes_the_waiter() {
        let shutdown = Shutdown::new();
        let waiter = {
            let s = shutdown.clone();
            tokio::spawn(async move { s.requested().await })
        };
        assert!(shutdown.request(StopReason::Terminate));
        assert!(!shutdown.request(StopReason::Interrupt));
        waiter.await.expect("woken");
        assert_eq!(shutdown.reason(), Some(StopReason::Terminate));
        assert_eq!(StopReason::Terminate.exit_code(), 143);
    }

    #[test]
    fn disk_guard_names_the_path() {
        let dir = tempfile::tempdir().expect("tmp");
        let missing = dir.path().join("not/yet/created");
        assert!(free_space(&missing).expect("free space of the parent") > 0);
        assert_eq!(low_disk(std::slice::from_ref(&missing), 0), None);
        let low = low_disk(std::slice::from_ref(&missing), u64::MAX).expect("nothing has that much");
        assert!(low.to_string().contains("not/yet/created"), "{low}");
        assert_eq!(low.exit_code(), 75);
    }
}
