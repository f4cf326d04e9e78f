//! The committer's part of a cluster crawl ([`crate::cluster`]): URLs found on a page go to
//! the stream of their host's partition ([`Committer::send_remote`], published just before the
//! group's store batch, so that a crash re-fetches the page and publishes again, which the
//! streams' seen sets ignore); entries delivered to this worker are queued unless seen
//! ([`Committer::receive`]); every URL's entry is acknowledged after the group that commits
//! its outcome ([`Committer::finish_url`]); a partition that moves is forgotten once its hosts'
//! samples are written ([`Committer::check_releases`]).

use super::frontier::NewUrl;
use super::Committer;
use crate::cluster::{ClusterLink, Delivered, RemoteUrl, StreamRef};
use crate::crawl::CrawlError;
use crate::domain::LearningEvent;
use crate::store::{CrawlState, StateBatch};
use std::collections::{BTreeSet, HashSet};
use url::Url;

/// What the committer needs of the cluster: the link, and where to say a partition is
/// released.
pub struct CommitterCluster {
    /// The worker's link to Redis.
    pub link: ClusterLink,
    /// To the membership loop: partitions whose hosts are forgotten.
    pub released: tokio::sync::mpsc::UnboundedSender<u32>,
}

/// The committer's cluster book: the open group's outbox and acknowledgements, and the
/// partitions being released.
pub(super) struct ClusterBook {
    link: ClusterLink,
    released: tokio::sync::mpsc::UnboundedSender<u32>,
    outbox: Vec<(u128, RemoteUrl)>,
    outbox_seen: HashSet<u128>,
    acks: Vec<StreamRef>,
    group_done: HashSet<u128>,
    releasing: BTreeSet<u32>,
    released_after_commit: Vec<u32>,
}

impl ClusterBook {
    pub(super) fn new(c: CommitterCluster) -> ClusterBook {
        ClusterBook {
            link: c.link,
            released: c.released,
            outbox: Vec::new(),
            outbox_seen: HashSet::new(),
            acks: Vec::new(),
            group_done: HashSet::new(),
            releasing: BTreeSet::new(),
            released_after_commit: Vec::new(),
        }
    }
}

fn cluster_err(e: crate::cluster::ClusterError) -> CrawlError {
    CrawlError::Cluster(e)
}

impl Committer {
    /// Queue `new.url` for `new.target` through its partition's stream (instead of the local
    /// frontier); `new_seed` and `cap` travel with it for the owner.
    pub(super) fn send_remote(&mut self, new: NewUrl<'_>) {
        let NewUrl { target, url, depth, kind, new_seed, cap } = new;
        let Some(c) = &mut self.cluster else { return };
        let identity = CrawlState::url_identity(url.as_str());
        if !c.outbox_seen.insert(identity) {
            return;
        }
        let remote = RemoteUrl {
            host: target.to_string(),
            url: url.to_string(),
            depth,
            kind,
            seed: new_seed.to_string(),
            cap: (cap != u64::MAX).then_some(cap),
        };
        c.outbox.push((identity, remote));
        self.group.open();
    }

    /// Entries delivered to this worker: queued when new here; a re-delivered entry (claimed
    /// after a restart) is acknowledged when its outcome is committed here, and skipped when
    /// it is queued or waiting here (it is acknowledged with its outcome). Entries of
    /// partitions no longer held are left pending for their new owner.
    pub(super) fn receive(&mut self, entries: Vec<Delivered>) -> Result<(), CrawlError> {
        for d in entries {
            let Some(c) = &self.cluster else { return Ok(()) };
            if !c.link.ownership.holds(d.at.partition) {
                continue;
            }
            let identity = CrawlState::url_identity(&d.url.url);
            if self.is_seen(&d.url.url)? {
                let done = self.cluster.as_ref().is_some_and(|c| c.group_done.contains(&identity))
                    || self.state.is_done(&d.url.url)?;
                if done {
                    self.push_ack(d.at);
                }
                continue;
            }
            let queued = match Url::parse(&d.url.url) {
                Ok(url) => {
                    let cap = d.url.cap.unwrap_or(u64::MAX);
                    let stream = Some(d.at.encode());
                    let (target, depth, kind, new_seed) = (&d.url.host, d.url.depth, d.url.kind, &d.url.seed);
                    self.queue_local(NewUrl { target, url: &url, depth, kind, new_seed, cap }, stream)?
                }
                Err(_) => false,
            };
            if !queued {
                self.finish_url(&d.url.url, Some(&d.at.encode()));
            }
        }
        self.group.open();
        Ok(())
    }

    fn push_ack(&mut self, at: StreamRef) {
        if let Some(c) = &mut self.cluster {
            c.acks.push(at);
            self.group.open();
        }
    }

    /// The outcome of `url` is in the open group: its stream entry (`p/id`) is acknowledged
    /// after the commit, and a re-delivery will be recognised.
    pub(super) fn finish_url(&mut self, url: &str, stream: Option<&str>) {
        let Some(c) = &mut self.cluster else { return };
        c.group_done.insert(CrawlState::url_identity(url));
        self.group.batch.mark_done(url);
        if let Some(at) = stream.and_then(StreamRef::decode) {
            c.acks.push(at);
        }
    }

    /// Before the group's store batch: publish its outbox.
    pub(super) fn publish_outbox(&mut self) -> Result<(), CrawlError> {
        let Some(c) = &mut self.cluster else { return Ok(()) };
        if !c.outbox.is_empty() {
            c.link.publish_blocking(&c.outbox).map_err(cluster_err)?;
            c.outbox.clear();
            c.outbox_seen.clear();
        }
        Ok(())
    }

    /// After the group's store batch: acknowledge its finished entries, report the
    /// partitions released by the previous group, and look for releases that can go ahead.
    pub(super) fn after_cluster_commit(&mut self) -> Result<(), CrawlError> {
        let Some(c) = &mut self.cluster else { return Ok(()) };
        c.link.ack_blocking(&c.acks).map_err(|e| cluster_err(e.at(&c.link.cfg.redis)))?;
        c.acks.clear();
        c.group_done.clear();
        for p in c.released_after_commit.drain(..) {
            let _ = c.released.send(p);
        }
        self.check_releases()
    }

    /// Dispatch stopped every host of `partition`: release it once their samples are
    /// written (the learn or fallback that dispatch's dry signal started, then the drain).
    pub(super) fn start_release(&mut self, partition: u32) -> Result<(), CrawlError> {
        let Some(c) = &mut self.cluster else { return Ok(()) };
        c.releasing.insert(partition);
        let hosts = self.hosts_of(partition);
        for host in hosts {
            self.learning(&host, LearningEvent::Releasing)?;
        }
        self.group.open();
        Ok(())
    }

    fn hosts_of(&self, partition: u32) -> Vec<String> {
        let Some(c) = &self.cluster else { return Vec::new() };
        self.hosts.keys().filter(|h| c.link.partition(h) == partition).cloned().collect()
    }

    /// For each partition being released whose hosts have nothing waiting, learning or
    /// draining: forget their queued URLs (frontier entries and seen marks, in the next group;
    /// their stream entries stay pending for the new owner) and report the release after
    /// that group.
    fn check_releases(&mut self) -> Result<(), CrawlError> {
        let releasing: Vec<u32> = match &self.cluster {
            Some(c) => c.releasing.iter().copied().collect(),
            None => return Ok(()),
        };
        for p in releasing {
            let hosts = self.hosts_of(p);
            let busy = hosts.iter().any(|h| {
                let b = &self.hosts[h];
                b.rec.learning.busy() || !b.deferred.is_empty() || !b.early.is_empty()
            });
            if busy {
                continue;
            }
            let mut forgotten = 0;
            for host in &hosts {
                forgotten += forget_queue(&self.state, &mut self.group.batch, host)?;
                self.touch(host);
            }
            tracing::info!(partition = p, hosts = hosts.len(), forgotten, "partition released");
            if let Some(c) = &mut self.cluster {
                c.releasing.remove(&p);
                c.released_after_commit.push(p);
            }
            self.group.open();
        }
        Ok(())
    }
}

/// Forget `host`'s queued URLs in `batch`: its frontier entries and their seen marks (the
/// owner of the host has their stream entries). Returns the entries forgotten.
///
/// # Errors
/// The store's.
pub fn forget_queue(state: &CrawlState, batch: &mut StateBatch, host: &str) -> Result<u64, CrawlError> {
    let entries = state.frontier_window(host, 0, usize::MAX)?;
    for e in &entries {
        batch.pop_frontier(host, e.seq);
        batch.unmark_seen(&e.url);
    }
    Ok(entries.len() as u64)
}

/// At the start of a cluster worker: forget everything of the hosts of the partitions not in
/// `kept` (partitions held without a break since the last run): queued URLs and the pages
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
        let queued = forget_queue(state, &mut batch, &rec.host)?;
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
