//! Dispatch's host state: [`HostRuntime`] (politeness, robots.txt, the frontier window and the
//! URLs queued but not yet durable, what is in flight and not yet durable, the model to extract
//! with) and [`DueQueue`], the heap of hosts by the time they may be contacted next. A host waiting for its delay costs one heap
//! entry; a host with nothing to do costs nothing but its small record.

use crate::crawl::politeness::HostPoliteness;
use crate::crawl::robots::{RobotsEntry, RobotsPolicy};
use crate::domain::HostModel;
use crate::store::FrontierEntry;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;
use url::Url;

/// Most pages of one host fetched and not yet durable. A host's fetched pages wait in memory,
/// each with its links and its extraction, while the host's sample is extracted with its new
/// model (they are written after the sample), or while the committer stores the links of the
/// pages before them; at no politeness delay a fast host would go on fetching while it waits,
/// so it pauses here instead and resumes as its pages commit. At least one group commit's
/// worth of pages at that speed (a group closes after 200 ms).
pub const MAX_UNCOMMITTED_PAGES: u64 = 64;

/// Bytes of HTTP body (the host's mean response so far, times its pages not yet durable) at
/// which a host pauses before [`MAX_UNCOMMITTED_PAGES`]: a page in flight holds several
/// times its body in memory (the body, its decoded text, its parse while a worker has it,
/// its WARC record, its links), so a host of large pages is bounded by bytes, not by count.
pub const MAX_UNCOMMITTED_BYTES: u64 = 4 << 20;

/// The fewest pages [`MAX_UNCOMMITTED_BYTES`] lets a host have uncommitted.
pub const MIN_UNCOMMITTED_PAGES: u64 = 16;

/// What dispatch knows of one host during this run.
pub struct HostRuntime {
    /// Host key.
    pub host: String,
    /// The seed URL (robots.txt is fetched from its origin).
    pub seed: Url,
    /// Delay and back-off.
    pub politeness: HostPoliteness,
    /// robots.txt once fetched.
    pub robots: Option<(RobotsEntry, RobotsPolicy)>,
    /// Since when robots.txt has failed without a break (`None`: it has not).
    pub robots_failing_since: Option<std::time::Instant>,
    /// robots.txt failures in a row in this run, and the last one's reason.
    pub robots_failures: (u32, String),
    /// A request is in flight.
    pub in_flight: bool,
    /// Since when the request in flight is.
    pub in_flight_since: Option<Instant>,
    /// The watchdog reported the request in flight as stuck.
    pub stuck_reported: bool,
    /// The frontier may have entries beyond the window.
    pub has_work: bool,
    /// The next frontier entries, read from the store.
    pub window: VecDeque<FrontierEntry>,
    /// URLs queued in the committer's open group ([`Event::Queued`](crate::crawl::messages::Event::Queued)),
    /// in sequence order: fetched once the store has nothing more before them; forgotten at
    /// the group's commit, when the store has them.
    pub early: VecDeque<FrontierEntry>,
    /// The sequence number to read the store from next.
    pub cursor: u64,
    /// Dispatches of this run (the next ticket).
    pub next_ticket: u64,
    /// Dispatched pages not yet durable.
    pub outstanding: u64,
    /// Bytes of body and count of the host's 2xx responses in this run (their mean sets
    /// [`HostRuntime::uncommitted_cap`]).
    pub bodies: (u64, u64),
    /// Sample or extract.
    pub model: HostModel,
    /// The committer was told the host is dry.
    pub dry_sent: bool,
    /// Given up.
    pub dead: bool,
    /// Cluster crawl: the host's partition is not (or no longer) this worker's.
    pub moved: bool,
    /// Cluster crawl: since when the host has been idle while sampling (dry after a grace).
    pub idle_since: Option<Instant>,
    /// The host has an entry in the [`DueQueue`].
    pub queued: bool,
}

impl HostRuntime {
    /// A host with work, due at once.
    pub fn new(host: String, seed: Url, politeness: HostPoliteness, model: HostModel) -> HostRuntime {
        HostRuntime {
            host,
            seed,
            politeness,
            robots: None,
            robots_failing_since: None,
            robots_failures: (0, String::new()),
            in_flight: false,
            in_flight_since: None,
            stuck_reported: false,
            has_work: true,
            window: VecDeque::new(),
            early: VecDeque::new(),
            cursor: 0,
            next_ticket: 0,
            outstanding: 0,
            bodies: (0, 0),
            model,
            dry_sent: false,
            dead: false,
            moved: false,
            idle_since: None,
            queued: false,
        }
    }

    /// True when the host may need a request: alive, idle, fewer than
    /// [`MAX_UNCOMMITTED_PAGES`] of its pages uncommitted, and robots.txt or a URL to fetch.
    pub fn schedulable(&self) -> bool {
        !self.dead
            && !self.moved
            && !self.in_flight
            && !self.at_uncommitted_cap()
            && (self.robots.is_none() || !self.window.is_empty() || self.has_work || !self.early.is_empty())
    }

    /// True when [`HostRuntime::uncommitted_cap`] of the host's pages wait for their commit:
    /// it fetches nothing more until some are durable.
    pub fn at_uncommitted_cap(&self) -> bool {
        self.outstanding >= self.uncommitted_cap()
    }

    /// Pages the host may have fetched and not yet durable: [`MAX_UNCOMMITTED_BYTES`] over the
    /// mean body of its 2xx responses in this run, between [`MIN_UNCOMMITTED_PAGES`] and
    /// [`MAX_UNCOMMITTED_PAGES`] ([`MAX_UNCOMMITTED_PAGES`] before its first response).
    pub fn uncommitted_cap(&self) -> u64 {
        let (bytes, pages) = self.bodies;
        match bytes.checked_div(pages) {
            Some(mean) if mean > 0 => {
                (MAX_UNCOMMITTED_BYTES / mean).clamp(MIN_UNCOMMITTED_PAGES, MAX_UNCOMMITTED_PAGES)
            }
            _ => MAX_UNCOMMITTED_PAGES,
        }
    }

    /// Count a 2xx response of `bytes` of body towards [`HostRuntime::uncommitted_cap`].
    pub fn record_body(&mut self, bytes: usize) {
        self.bodies.0 += bytes as u64;
        self.bodies.1 += 1;
    }

    /// True when the host has URLs to fetch: in its window, queued in the store, or queued in
    /// the committer's open group.
    pub fn has_queued(&self) -> bool {
        !self.window.is_empty() || self.has_work || !self.early.is_empty()
    }

    /// The next URL queued in the committer's open group that the store reads have not
    /// passed: its sequence number is at least `cursor`, which moves past it. Called once the
    /// store has nothing at or after `cursor` (its entries come first in sequence order).
    pub fn take_early(&mut self) -> Option<FrontierEntry> {
        while let Some(entry) = self.early.pop_front() {
            if entry.seq >= self.cursor {
                self.cursor = entry.seq + 1;
                return Some(entry);
            }
        }
        None
    }

    /// True when the host could not be reached in this run: its robots.txt failed
    /// [`UNREACHABLE_AFTER`] times in a row and none is in hand.
    pub fn unreachable(&self) -> bool {
        self.robots.is_none() && self.robots_failures.0 >= UNREACHABLE_AFTER
    }

    /// True when the host has nothing queued, nothing in flight and nothing uncommitted.
    pub fn idle(&self) -> bool {
        (self.dead || self.moved || !self.has_queued()) && !self.in_flight && self.outstanding == 0
    }
}

/// robots.txt failures in a row (a first try and one retry) after which a host counts as
/// unreachable ([`HostRuntime::unreachable`]): once every other host is done, the crawl gives
/// it up for the run instead of retrying it until `[politeness] robots_give_up`.
pub const UNREACHABLE_AFTER: u32 = 2;

/// Hosts by due time (earliest first). Entries may be stale; the caller re-checks.
#[derive(Default)]
pub struct DueQueue {
    heap: BinaryHeap<Reverse<(Instant, usize)>>,
}

impl DueQueue {
    /// Add host `idx`, due at `at`.
    pub fn push(&mut self, at: Instant, idx: usize) {
        self.heap.push(Reverse((at, idx)));
    }

    /// The earliest due time.
    pub fn next_due(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((at, _))| *at)
    }

    /// Remove and return the earliest host if it is due at `now`.
    pub fn pop_due(&mut self, now: Instant) -> Option<usize> {
        match self.heap.peek() {
            Some(Reverse((at, _))) if *at <= now => self.heap.pop().map(|Reverse((_, idx))| idx),
            _ => None,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Forget every entry.
    pub fn clear(&mut self) {
        self.heap.clear();
    }

    /// True when no host is waiting.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn entry(seq: u64) -> FrontierEntry {
        FrontierEntry { url: format!("http://a.example/{seq}"), seq, ..FrontierEntry::default() }
    }

    #[test]
    fn urls_of_the_open_group_are_taken_in_order_and_never_behind_the_store_cursor() {
        let seed = Url::parse("http://a.example/").unwrap();
        let politeness = HostPoliteness::new_at(Default::default(), Instant::now());
        let mut h = HostRuntime::new("a.example".into(), seed, politeness, HostModel::Sampling);
        h.has_work = false;
        assert!(!h.has_queued());
        h.early.extend([entry(7), entry(9), entry(12)]);
        assert!(h.has_queued() && !h.idle());
        assert_eq!(h.take_early().map(|e| e.seq), Some(7));
        assert_eq!(h.cursor, 8, "the store is read after it from now on");
        // The store read got as far as 10 (entry 9 came from there): 9 is not fetched twice.
        h.cursor = 10;
        assert_eq!(h.take_early().map(|e| e.seq), Some(12));
        assert_eq!(h.take_early(), None);
        assert_eq!(h.cursor, 13);
    }

    /// The cap on uncommitted pages follows the host's mean body: 64 pages of small pages,
    /// fewer of large ones (4 MiB of body in all), never under 16.
    #[test]
    fn a_host_of_large_pages_may_have_fewer_pages_uncommitted() {
        let seed = Url::parse("http://a.example/").unwrap();
        let politeness = HostPoliteness::new_at(Default::default(), Instant::now());
        let mut h = HostRuntime::new("a.example".into(), seed, politeness, HostModel::Sampling);
        assert_eq!(h.uncommitted_cap(), MAX_UNCOMMITTED_PAGES, "no response yet");
        h.record_body(30_000);
        h.record_body(50_000);
        assert_eq!(h.uncommitted_cap(), MAX_UNCOMMITTED_PAGES, "40 KB pages: 104 fit, the count caps");
        let mut big = HostRuntime::new(
            "b.example".into(),
            Url::parse("http://b.example/").unwrap(),
            h.politeness.clone(),
            HostModel::Sampling,
        );
        big.record_body(200 << 10);
        assert_eq!(big.uncommitted_cap(), 20, "200 KiB pages: 4 MiB / 200 KiB");
        big.outstanding = 20;
        assert!(big.at_uncommitted_cap() && !big.schedulable());
        big.outstanding = 19;
        assert!(!big.at_uncommitted_cap());
        big.record_body(10 << 20);
        assert_eq!(big.uncommitted_cap(), MIN_UNCOMMITTED_PAGES, "5 MiB pages: the floor");
        h.bodies = (0, 3);
        assert_eq!(h.uncommitted_cap(), MAX_UNCOMMITTED_PAGES, "empty bodies");
    }

    #[test]
    fn due_queue_pops_in_time_order_only_when_due() {
        let t0 = Instant::now();
        let mut q = DueQueue::default();
        q.push(t0 + Duration::from_secs(2), 1);
        q.push(t0, 2);
        q.push(t0 + Duration::from_secs(1), 3);
        assert_eq!(q.pop_due(t0), Some(2));
        assert_eq!(q.pop_due(t0), None, "host 3 is not due yet");
        assert_eq!(q.next_due(), Some(t0 + Duration::from_secs(1)));
        assert_eq!(q.pop_due(t0 + Duration::from_secs(5)), Some(3));
        assert_eq!(q.pop_due(t0 + Duration::from_secs(5)), Some(1));
        assert!(q.is_empty());
    }
}
