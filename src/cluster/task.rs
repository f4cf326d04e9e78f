//! The worker's cluster loops, beside the crawl engine's three stages:
//!
//! - [`join`]: at start, before the state is used: heartbeat, wait one settle period for the
//!   other workers starting with this one, take the leases rendezvous hashing gives this
//!   worker, and give back the leases it holds from an earlier run but no longer wins;
//! - [`run_membership`]: every heartbeat, renew the heartbeat and the leases, move partitions
//!   (a partition this worker no longer wins is released through dispatch and the committer,
//!   [`Event::Release`]; a partition it wins and finds free is taken, its pending entries
//!   claimed, [`Event::Acquire`]), and detect the end of the crawl;
//! - [`run_reader`]: read the held partitions' streams and hand the entries to the committer
//!   ([`CommitMsg::Remote`]).
//!
//! The crawl is over when the seeds are loaded, every partition is held by a live worker,
//! every live worker is idle, and the streams hold only the entries of hosts given up
//! (`parked`): every URL ever queued has its outcome committed by its owner. That is checked
//! twice, a heartbeat apart, and recorded in the `done` key for the other workers.

use super::links::{claim_all, ensure_group, queued_total, read};
use super::membership::{heartbeat, lease_holders, live_workers, release_lease, take_leases, workers, Lease};
use super::{rendezvous_owner, ClusterError, ClusterLink, WorkerStatus};
use crate::crawl::messages::{CommitMsg, Event};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the cluster loops share with the crawl's stages.
pub struct ClusterChannels {
    /// To the committer: delivered entries.
    pub commit: crossbeam_channel::Sender<CommitMsg>,
    /// To dispatch: partitions taken and released.
    pub events: tokio::sync::mpsc::UnboundedSender<Event>,
    /// From the committer: partitions whose release is committed (their lease can go).
    pub released: tokio::sync::mpsc::UnboundedReceiver<u32>,
    /// This worker's status, kept up to date by dispatch.
    pub status: Arc<Mutex<WorkerStatus>>,
    /// Set when the whole crawl is done.
    pub done: Arc<AtomicBool>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

fn done_key(link: &ClusterLink) -> String {
    format!("webcorpus:{{{}}}:done", link.cfg.name)
}

/// The partitions `me` wins among `live`.
fn wanted(link: &ClusterLink, live: &[String]) -> Vec<u32> {
    let me = link.cfg.worker_id.as_str();
    (0..link.cfg.partitions).filter(|&p| rendezvous_owner(p, live) == Some(me)).collect()
}

/// Join the crawl: heartbeat, wait `settle` for workers starting at the same time, take the
/// free leases this worker wins (and its own from a run that stopped less than `timeout`
/// ago). Returns what the state may keep and what it must give back: the partitions whose
/// lease this worker still held, or took again with no other worker having held it since (a
/// Redis outage, a stop): its earlier run's state of their hosts is current; and the
/// leases it holds but no longer wins (to give back once the state has forgotten their hosts,
/// [`give_back`]).
///
/// # Errors
/// [`ClusterError`].
pub async fn join(link: &ClusterLink, status: &WorkerStatus, settle: Duration) -> Result<Joined, ClusterError> {
    let mut conn = link.conn();
    let me = link.cfg.worker_id.as_str();
    heartbeat(&mut conn, &link.keys, status, link.cfg.timeout).await?;
    tokio::time::sleep(settle).await;
    heartbeat(&mut conn, &link.keys, status, link.cfg.timeout).await?;
    let live = live_workers(&mut conn, &link.keys).await?;
    let want = wanted(link, &live);
    let mut kept = Vec::new();
    for (p, lease) in want.iter().zip(take_leases(&mut conn, &link.keys, me, &want, link.cfg.timeout).await?) {
        if lease != Lease::Refused {
            ensure_group(&mut conn, &link.keys, *p).await?;
            link.ownership.set(*p, true);
        }
        if matches!(lease, Lease::Renewed | Lease::Resumed) {
            kept.push(*p);
        }
    }
    let holders = lease_holders(&mut conn, &link.keys, link.cfg.partitions).await?;
    let not_mine = (0..link.cfg.partitions)
        .filter(|&p| holders[p as usize].as_deref() == Some(me) && !link.ownership.holds(p))
        .collect();
    Ok(Joined { kept, not_mine })
}

/// What [`join`] found.
#[derive(Debug, Clone, Default)]
pub struct Joined {
    /// Partitions no other worker held since this worker's last run ([`Lease::Renewed`],
    /// [`Lease::Resumed`]): the state of their hosts (queued URLs, sample pages) is current. Every other host's queued URLs and waiting pages are
    /// forgotten (their stream entries, pending, are claimed again by their owner).
    pub kept: Vec<u32>,
    /// Leases this worker holds but no longer wins, to give back.
    pub not_mine: Vec<u32>,
}

/// Delete this worker's leases of `partitions` (after its state forgot their hosts).
///
/// # Errors
/// [`ClusterError`].
pub async fn give_back(link: &ClusterLink, partitions: &[u32]) -> Result<(), ClusterError> {
    let mut conn = link.conn();
    for &p in partitions {
        release_lease(&mut conn, &link.keys, &link.cfg.worker_id, p).await?;
    }
    Ok(())
}

/// Every entry pending in the held partitions (left by a former owner or by this worker's
/// last run), for the committer.
///
/// # Errors
/// [`ClusterError`].
pub async fn claim_held(link: &ClusterLink) -> Result<Vec<super::Delivered>, ClusterError> {
    let mut conn = link.conn();
    let mut out = Vec::new();
    for p in link.ownership.held() {
        out.extend(claim_all(&mut conn, &link.keys, &link.cfg.worker_id, p).await?);
    }
    Ok(out)
}

/// The membership loop, until `quit` turns true; then the worker's status is marked stopped
/// and its leases are given back.
///
/// # Errors
/// [`ClusterError`] when Redis fails.
pub async fn run_membership(
    link: ClusterLink,
    mut ch: ClusterChannels,
    mut quit: tokio::sync::watch::Receiver<bool>,
) -> Result<(), ClusterError> {
    let me = link.cfg.worker_id.clone();
    let mut conn = link.conn();
    let mut releasing: BTreeSet<u32> = BTreeSet::new();
    let mut done_streak = 0;
    let mut tick = tokio::time::interval(link.cfg.heartbeat);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            Some(p) = ch.released.recv() => {
                release_lease(&mut conn, &link.keys, &me, p).await?;
                releasing.remove(&p);
                continue;
            }
            _ = quit.changed() => break,
        }
        let status = current_status(&link, &ch.status);
        heartbeat(&mut conn, &link.keys, &status, link.cfg.timeout).await?;
        let live = live_workers(&mut conn, &link.keys).await?;
        rebalance(&link, &live, &mut releasing, &ch).await?;
        if crawl_done(&link, &live).await? {
            done_streak += 1;
        } else {
            done_streak = 0;
        }
        if done_streak >= 2 || ch.done.load(Ordering::Relaxed) {
            let _: () = redis::cmd("SET")
                .arg(done_key(&link))
                .arg(&me)
                .arg("PX")
                .arg((link.cfg.timeout * 3).as_millis() as u64)
                .query_async(&mut conn)
                .await
                .map_err(|e| ClusterError::Redis { url: link.cfg.redis.clone(), source: e })?;
            ch.done.store(true, Ordering::Relaxed);
        }
    }
    let mut status = current_status(&link, &ch.status);
    status.stopped = true;
    heartbeat(&mut conn, &link.keys, &status, link.cfg.timeout).await?;
    let held: Vec<u32> = link.ownership.held().into_iter().chain(releasing).collect();
    give_back(&link, &held).await
}

fn current_status(link: &ClusterLink, shared: &Mutex<WorkerStatus>) -> WorkerStatus {
    let mut s = shared.lock().map(|s| s.clone()).unwrap_or_default();
    s.worker = link.cfg.worker_id.clone();
    s.pid = std::process::id();
    s.at_ms = now_ms();
    s.partitions = link.ownership.held().len() as u32;
    s.published = link.published.load(Ordering::Relaxed);
    s
}

/// Move partitions: give up those another live worker wins, take the free ones this worker
/// wins, renew the rest.
async fn rebalance(
    link: &ClusterLink,
    live: &[String],
    releasing: &mut BTreeSet<u32>,
    ch: &ClusterChannels,
) -> Result<(), ClusterError> {
    let mut conn = link.conn();
    let me = link.cfg.worker_id.as_str();
    let want: BTreeSet<u32> = wanted(link, live).into_iter().collect();
    let mut ask = Vec::new();
    for p in 0..link.cfg.partitions {
        let held = link.ownership.holds(p);
        if held && !want.contains(&p) {
            start_release(link, p, releasing, ch);
        }
        // Leases being released are renewed until the committer has forgotten their hosts.
        if link.ownership.holds(p) || releasing.contains(&p) || want.contains(&p) {
            ask.push(p);
        }
    }
    let leases = take_leases(&mut conn, &link.keys, me, &ask, link.cfg.timeout).await?;
    for (&p, lease) in ask.iter().zip(leases) {
        let held = link.ownership.holds(p);
        match lease {
            Lease::Refused if held => {
                // Lost (this worker was away longer than the timeout): stop at once.
                tracing::warn!(partition = p, "lease lost to another worker");
                start_release(link, p, releasing, ch);
            }
            Lease::Taken | Lease::Resumed | Lease::Renewed if !held && want.contains(&p) && !releasing.contains(&p) => {
                ensure_group(&mut conn, &link.keys, p).await?;
                link.ownership.set(p, true);
                let _ = ch.events.send(Event::Acquire { partition: p });
                let claimed = claim_all(&mut conn, &link.keys, me, p).await?;
                tracing::info!(partition = p, claimed = claimed.len(), "partition taken");
                if !claimed.is_empty() {
                    let _ = ch.commit.send(CommitMsg::Remote(claimed));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn start_release(link: &ClusterLink, p: u32, releasing: &mut BTreeSet<u32>, ch: &ClusterChannels) {
    link.ownership.set(p, false);
    if releasing.insert(p) {
        tracing::info!(partition = p, "partition moves to another worker");
        let _ = ch.events.send(Event::Release { partition: p });
    }
}

/// One look at the whole crawl: done when another worker said so, or when the seeds are
/// loaded, every partition is held by a live worker, every live worker is idle and the
/// streams hold only parked entries.
async fn crawl_done(link: &ClusterLink, live: &[String]) -> Result<bool, ClusterError> {
    let mut conn = link.conn();
    let redis_err = |source| ClusterError::Redis { url: link.cfg.redis.clone(), source };
    let done: Option<String> = redis::cmd("GET").arg(done_key(link)).query_async(&mut conn).await.map_err(redis_err)?;
    if done.is_some() {
        return Ok(true);
    }
    let loaded: Option<u64> =
        redis::cmd("GET").arg(link.keys.seeds_loaded()).query_async(&mut conn).await.map_err(redis_err)?;
    if loaded.is_none() {
        return Ok(false);
    }
    let holders = lease_holders(&mut conn, &link.keys, link.cfg.partitions).await?;
    if holders.iter().any(|h| h.as_ref().is_none_or(|h| !live.contains(h))) {
        return Ok(false);
    }
    let statuses = workers(&mut conn, &link.keys).await?;
    let live_statuses: Vec<&WorkerStatus> = statuses.iter().filter(|(_, l)| *l).map(|(s, _)| s).collect();
    if live_statuses.iter().any(|s| !s.idle) {
        return Ok(false);
    }
    let parked: u64 = live_statuses.iter().map(|s| s.parked).sum();
    let queued = queued_total(&mut conn, &link.keys, link.cfg.partitions).await?;
    Ok(queued <= parked)
}

/// Read the held partitions' streams until `quit`, handing every entry to the committer.
///
/// # Errors
/// [`ClusterError`] when Redis fails.
pub async fn run_reader(
    link: ClusterLink,
    commit: crossbeam_channel::Sender<CommitMsg>,
    mut quit: tokio::sync::watch::Receiver<bool>,
) -> Result<(), ClusterError> {
    let mut conn = link.dedicated().await?;
    loop {
        if *quit.borrow() {
            return Ok(());
        }
        let held = link.ownership.held();
        if held.is_empty() {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                _ = quit.changed() => return Ok(()),
            }
            continue;
        }
        let block_ms = super::READ_BLOCK.as_millis() as u64;
        let entries = read(&mut conn, &link.keys, &link.cfg.worker_id, &held, block_ms).await.map_err(|e| match e {
            ClusterError::Redis { source, .. } => ClusterError::Redis { url: link.cfg.redis.clone(), source },
            other => other,
        })?;
        if !entries.is_empty() && commit.send(CommitMsg::Remote(entries)).is_err() {
            return Ok(());
        }
    }
}
