//! The committer's side of URLs that travel through the frontier's backend
//! ([`FrontierBackend`](crate::crawl::frontier::FrontierBackend); a cluster crawl's Redis streams): URLs found on a page are
//! forwarded ([`Committer::queue_url`]) and published just before the group's store batch,
//! so that a crash re-fetches the page and publishes again, which the backend ignores;
//! delivered URLs are queued unless seen ([`Committer::receive`]); every delivery is
//! acknowledged after the group that commits its outcome ([`Committer::finish_url`]); a
//! partition that moves away is forgotten once its hosts' samples are written
//! ([`Committer::start_release`]).

use super::Committer;
use crate::crawl::frontier::{forget_queue, Delivered, NewUrl};
use crate::crawl::CrawlError;
use crate::domain::LearningEvent;
use url::Url;

impl Committer {
    /// URLs delivered to this worker: queued when new here; a second delivery (after a
    /// restart) is acknowledged when its outcome is committed here, and skipped when it is
    /// queued or waiting here (it is acknowledged with its outcome). URLs of hosts no longer
    /// held are left for their new owner.
    pub(super) fn receive(&mut self, entries: Vec<Delivered>) -> Result<(), CrawlError> {
        for d in entries {
            if !self.frontier.holds(&d.host) {
                continue;
            }
            if self.is_seen(&d.url)? {
                if self.frontier.finished_in_group(&d.url) || self.state.is_done(&d.url)? {
                    self.frontier.acknowledge(&d.tag);
                    self.group.open();
                }
                continue;
            }
            let queued = match Url::parse(&d.url) {
                Ok(url) => {
                    let cap = d.cap.unwrap_or(u64::MAX);
                    let new =
                        NewUrl { target: &d.host, url: &url, depth: d.depth, kind: d.kind, new_seed: &d.seed, cap };
                    self.queue_local(new, Some(d.tag.clone()))?
                }
                Err(_) => false,
            };
            if !queued {
                self.finish_url(&d.url, Some(&d.tag));
            }
            self.commit_if_full()?;
        }
        self.group.open();
        Ok(())
    }

    /// The outcome of `url` (delivered with `tag`, or found here) is in the open group.
    pub(super) fn finish_url(&mut self, url: &str, tag: Option<&str>) {
        if self.frontier.finished(url, tag) {
            self.group.batch.mark_done(url);
        }
    }

    /// Dispatch stopped every host of `partition`: release it once their samples are
    /// written (the learn or fallback that dispatch's dry signal started, then the drain).
    pub(super) fn start_release(&mut self, partition: u32) -> Result<(), CrawlError> {
        self.releasing.insert(partition);
        for host in self.hosts_of(partition) {
            self.learning(&host, LearningEvent::Releasing)?;
        }
        self.group.open();
        Ok(())
    }

    fn hosts_of(&self, partition: u32) -> Vec<String> {
        self.hosts.keys().filter(|h| self.frontier.partition(h) == partition).cloned().collect()
    }

    /// For each partition being released whose hosts have nothing waiting, learning or
    /// draining: forget their queued URLs (frontier entries and seen marks, in the next group;
    /// their deliveries stay pending for the new owner) and report the release after that
    /// group.
    pub(super) fn check_releases(&mut self) -> Result<(), CrawlError> {
        let releasing: Vec<u32> = self.releasing.iter().copied().collect();
        for p in releasing {
            let hosts = self.hosts_of(p);
            let busy = hosts.iter().any(|h| {
                let b = &self.hosts[h];
                b.rec.learning.busy() || !b.deferred.is_empty() || !b.early.is_empty()
            });
            if busy {
                continue;
            }
            // A long queue is forgotten over several groups (each check follows a commit).
            let mut forgotten = 0;
            let mut complete = true;
            for host in &hosts {
                let room = self.group.room() / 2;
                let (n, all) = forget_queue(&self.state, &mut self.group.batch, host, room.max(1))?;
                forgotten += n;
                self.touch(host);
                if !all {
                    complete = false;
                    break;
                }
            }
            if !complete {
                tracing::debug!(partition = p, forgotten, "partition release goes on in the next group");
                continue;
            }
            tracing::info!(partition = p, hosts = hosts.len(), "partition released");
            self.releasing.remove(&p);
            self.frontier.released(p);
            self.group.open();
        }
        Ok(())
    }
}
