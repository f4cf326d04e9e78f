//! The committer's view of its hosts for the operator: SpiderLing's yield pruning and the
//! status snapshot that `webcorpus stats` reads while the crawl holds the store.

use super::Committer;
use crate::crawl::messages::Event;
use crate::crawl::snapshot::{self, StatusSnapshot};
use crate::store::HostRecord;
use std::time::Instant;

impl Committer {
    /// SpiderLing's pruning: once `yield_min_pages` of the host's pages are fetched and every
    /// fetched page is processed (none waits for a model), a host whose yield is below
    /// `[crawl] min_yield` is pruned: dispatch fetches nothing more from it.
    pub(super) fn check_yield(&mut self, host: &str) {
        let (min_yield, min_pages) = (self.crawl.min_yield, self.crawl.yield_min_pages);
        if min_yield <= 0.0 {
            return;
        }
        let rec = &self.book(host).rec;
        let judged =
            !rec.pruned && !rec.learning.is_sampling() && rec.learning.waiting == 0 && rec.fetched >= min_pages;
        if judged && rec.yield_rate().is_some_and(|y| y < min_yield) {
            let rate = rec.yield_rate().unwrap_or(0.0);
            tracing::info!(host, yield_rate = format!("{rate:.4}"), "host pruned for low yield");
            self.book(host).rec.pruned = true;
            self.counters.hosts_pruned += 1;
            self.touch(host);
            self.group.events.push(Event::Pruned { host: host.to_string() });
        }
    }

    /// Write the status snapshot that `stats` reads while the state is locked; a failure is
    /// logged, never fatal (the snapshot is a view, the store is the truth).
    /// Keep `url`'s error (`reason`, a discard key) for the status page.
    pub(super) fn note_error(&mut self, url: &str, reason: String) {
        if self.last_errors.len() == crate::crawl::snapshot::LAST_ERRORS {
            self.last_errors.pop_front();
        }
        let at = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        self.last_errors.push_back(crate::crawl::snapshot::ErrorLine { at, url: url.to_string(), reason });
    }

    pub(super) fn write_snapshot(&mut self, running: bool) {
        self.last_snapshot = Some(Instant::now());
        let mut hosts: Vec<HostRecord> = self.hosts.values().map(|b| b.rec.clone()).collect();
        hosts.sort_by(|a, b| a.host.cmp(&b.host));
        let snapshot = StatusSnapshot {
            written_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            pid: std::process::id(),
            running,
            run_started_at: self.run_started_at.clone(),
            run_fetched: self.counters.fetched.saturating_sub(self.counters_at_start.fetched),
            run_records: self.counters.records.saturating_sub(self.counters_at_start.records),
            counters: self.counters.clone(),
            queued: if running { None } else { self.state.frontier_total().ok() },
            hosts,
            last_errors: self.last_errors.iter().cloned().collect(),
        };
        if let Err(e) = snapshot::write(&self.crawl.state_dir, &snapshot) {
            tracing::warn!("status snapshot not written: {e}");
        }
    }
}
