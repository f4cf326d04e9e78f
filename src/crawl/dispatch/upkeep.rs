//! Dispatch's upkeep between requests: the URLs the committer queued in its open group
//! ([`Event::Queued`](crate::crawl::messages::Event::Queued)), taken by their hosts before the
//! commit, and the watchdog's findings ([`crate::crawl::watchdog`]) acted on.

use super::{now, Dispatcher, Fetch};
use crate::crawl::messages::QueuedUrl;
use crate::crawl::watchdog;
use crate::domain::HostModel;
use url::Url;

impl<F: Fetch> Dispatcher<F> {
    /// URLs of the committer's open group: the host may fetch them before the commit.
    pub(super) fn on_queued(&mut self, urls: Vec<QueuedUrl>) {
        for QueuedUrl { host, seed, entry } in urls {
            let idx = match self.index.get(&host) {
                Some(&idx) => idx,
                None => {
                    let seed = Url::parse(&seed).unwrap_or_else(|_| Url::parse("http://invalid/").expect("valid"));
                    self.add_host(&host, seed, None, HostModel::Sampling, false)
                }
            };
            let h = &mut self.hosts[idx];
            if h.dead || h.moved {
                continue;
            }
            if h.early.is_empty() {
                self.early_hosts.push(idx);
            }
            h.early.push_back(entry);
            h.idle_since = None;
            self.make_due(idx);
        }
    }

    /// Every [`watchdog::WATCH_EVERY`]: wake the hosts that should have had a request by now
    /// (a lost wake-up), and report requests in flight far past the request timeout.
    pub(super) fn watch(&mut self) {
        let saturated =
            self.in_flight >= self.cfg.max_parallel_hosts || !self.overflow.is_empty() || self.work.is_full();
        for finding in watchdog::check(&self.hosts, now(), self.cfg.request_timeout) {
            match finding {
                watchdog::Finding::Overdue { idx, late } if !saturated => {
                    let h = &mut self.hosts[idx];
                    tracing::warn!(
                        host = h.host,
                        late_s = late.as_secs(),
                        in_due_queue = h.queued,
                        window = h.window.len(),
                        has_work = h.has_work,
                        early = h.early.len(),
                        outstanding = h.outstanding,
                        "host woken by the watchdog: URLs queued and no request past its due time"
                    );
                    h.queued = false;
                    self.make_due(idx);
                }
                watchdog::Finding::Overdue { .. } => {}
                watchdog::Finding::Stuck { idx, for_ } => {
                    let h = &mut self.hosts[idx];
                    h.stuck_reported = true;
                    tracing::warn!(
                        host = h.host,
                        for_s = for_.as_secs(),
                        "a request has been in flight far past the request timeout"
                    );
                }
            }
        }
    }
}
