//! [`Group`]: the committer's open group commit (step 2 of [`super`]) — the one store batch
//! it will apply, the URLs it marked seen, what dispatch hears once it is durable (pages
//! applied, hosts with new work), the jobs and events that wait for it — and the rule of when
//! it is committed: after [`GroupLimits::pages`] pages, [`GroupLimits::writes`] store writes
//! or [`GroupLimits::bytes`] bytes, or [`GroupLimits::interval`] after it opened, or at once
//! when only jobs wait. The committer checks the bound after every page it applies, however
//! many one message brings (a host's pages held back during its learning, a partition's
//! forgotten queue), so a batch exceeds it by at most one page's writes.

use crate::crawl::messages::{Event, QueuedUrl, WorkItem};
use crate::store::{CrawlState, FrontierEntry, StateBatch};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

/// URLs per host and group told to dispatch before the commit ([`Event::Queued`]): enough
/// for a host with nothing else queued to go on; the rest are read from the store after it.
pub const ANNOUNCED_PER_HOST: usize = 16;

/// How long the committer waits for a message when no group is open.
const IDLE_POLL: Duration = Duration::from_millis(200);

/// When a group is committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupLimits {
    /// Pages per group (`[crawl] commit_pages`).
    pub pages: usize,
    /// Store writes per group: frontier entries and seen URLs of link-heavy pages (sled keeps
    /// a batch and the pages it touches in memory).
    pub writes: usize,
    /// Bytes of keys and values per group (pages held for a sample are the large writes).
    pub bytes: usize,
    /// The longest a group stays open (`[crawl] commit_interval`).
    pub interval: Duration,
}

/// The open group.
pub struct Group {
    /// The store batch the group applies in one write.
    pub batch: StateBatch,
    /// Learn and drain jobs that start once the group is durable.
    pub jobs: Vec<WorkItem>,
    /// Events dispatch hears once the group is durable (after [`Event::Committed`]).
    pub events: Vec<Event>,
    /// URLs queued in this group that dispatch has not been told of yet ([`Event::Queued`]).
    pub announce: Vec<QueuedUrl>,
    /// URLs told to dispatch per host in this group (at most [`ANNOUNCED_PER_HOST`]).
    announced: HashMap<String, usize>,
    limits: GroupLimits,
    /// One host key per page applied.
    pages: Vec<String>,
    /// Hosts given new frontier entries, with their seed.
    work: BTreeMap<String, String>,
    /// Hosts whose records changed.
    dirty: HashSet<String>,
    /// Identities of the URLs marked seen in this group ([`CrawlState::url_identity`]).
    seen: HashSet<u128>,
    /// When the group opened; `None` while nothing is in it.
    start: Option<Instant>,
}

/// A group taken for its commit: the batch and what it changed.
pub struct ClosedGroup {
    /// The store batch, to which the commit adds the host records and the counters.
    pub batch: StateBatch,
    /// Hosts whose records changed.
    pub dirty: HashSet<String>,
    /// One host key per page applied.
    pub pages: Vec<String>,
    /// Hosts given new work, with their seed.
    pub new_work: Vec<(String, String)>,
}

impl Group {
    /// An empty group on `batch`; `jobs` wait for the first commit (a resumed crawl's).
    pub fn new(batch: StateBatch, limits: GroupLimits, jobs: Vec<WorkItem>) -> Group {
        Group {
            batch,
            jobs,
            events: Vec::new(),
            announce: Vec::new(),
            announced: HashMap::new(),
            limits,
            pages: Vec::new(),
            work: BTreeMap::new(),
            dirty: HashSet::new(),
            seen: HashSet::new(),
            start: None,
        }
    }

    /// Open the group (a write is in it) if it is not open.
    pub fn open(&mut self) {
        self.start.get_or_insert_with(Instant::now);
    }

    /// True once something was written into the group.
    pub fn is_open(&self) -> bool {
        self.start.is_some()
    }

    /// `host`'s record changed.
    pub fn touch(&mut self, host: &str) {
        self.open();
        self.dirty.insert(host.to_string());
    }

    /// A page of `host` was applied.
    pub fn page(&mut self, host: &str) {
        self.touch(host);
        self.pages.push(host.to_string());
    }

    /// Pages applied in this group.
    pub fn pages(&self) -> usize {
        self.pages.len()
    }

    /// Mark `url` seen, in the batch and for [`Group::has_seen`] until the commit.
    pub fn mark_seen(&mut self, url: &str) {
        self.open();
        self.seen.insert(CrawlState::url_identity(url));
        self.batch.mark_seen(url);
    }

    /// True when this group marked `url` seen (the store answers for earlier groups).
    pub fn has_seen(&self, url: &str) -> bool {
        self.seen.contains(&CrawlState::url_identity(url))
    }

    /// Queue `entry` in `host`'s frontier (seed `seed`): the URL is seen from now on, the
    /// host's first [`ANNOUNCED_PER_HOST`] URLs of the group are to be told to dispatch at
    /// once ([`Group::announce`]), and dispatch hears after the commit that the host has new
    /// work.
    pub fn push_frontier(&mut self, host: &str, mut entry: FrontierEntry, seed: String) {
        self.touch(host);
        self.seen.insert(CrawlState::url_identity(&entry.url));
        let told = self.announced.get(host).copied().unwrap_or(0);
        if told < ANNOUNCED_PER_HOST {
            entry.seq = self.batch.push_frontier(host, entry.clone());
            self.announced.insert(host.to_string(), told + 1);
            self.announce.push(QueuedUrl { host: host.to_string(), seed: seed.clone(), entry });
        } else {
            self.batch.push_frontier(host, entry);
        }
        self.work.insert(host.to_string(), seed);
    }

    /// How long to wait for the next message at `now`: until the group is due, or
    /// [`IDLE_POLL`] while it is not open.
    pub fn wait_at(&self, now: Instant) -> Duration {
        match self.start {
            Some(start) => self.limits.interval.saturating_sub(now.saturating_duration_since(start)),
            None => IDLE_POLL,
        }
    }

    /// True when the group should be committed at `now`: full (pages or store writes), due,
    /// or not open while jobs wait for a commit to start them.
    pub fn should_commit_at(&self, now: Instant) -> bool {
        let full = self.is_full();
        let due = self.start.is_some_and(|s| now.saturating_duration_since(s) >= self.limits.interval);
        full || due || (self.start.is_none() && !self.jobs.is_empty())
    }

    /// True when the group holds [`GroupLimits::pages`] pages, [`GroupLimits::writes`] store
    /// writes or [`GroupLimits::bytes`] bytes.
    pub fn is_full(&self) -> bool {
        self.pages() >= self.limits.pages
            || self.batch.len() >= self.limits.writes
            || self.batch.bytes() >= self.limits.bytes
    }

    /// Store writes the group may still take before it is full (0 when it is).
    pub fn room(&self) -> usize {
        self.limits.writes.saturating_sub(self.batch.len())
    }

    /// Take the group for its commit, leaving an empty one on `fresh`; the jobs and events
    /// stay for after the commit.
    pub fn take(&mut self, fresh: StateBatch) -> ClosedGroup {
        self.seen.clear();
        self.announced.clear();
        self.start = None;
        ClosedGroup {
            batch: std::mem::replace(&mut self.batch, fresh),
            dirty: std::mem::take(&mut self.dirty),
            pages: std::mem::take(&mut self.pages),
            new_work: std::mem::take(&mut self.work).into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use std::sync::Arc;

    const LIMITS: GroupLimits =
        GroupLimits { pages: 3, writes: 5, bytes: 1 << 20, interval: Duration::from_millis(200) };

    fn group() -> (Group, CrawlState) {
        let state = CrawlState::open(Arc::new(MemoryStore::new())).unwrap();
        (Group::new(state.batch(), LIMITS, Vec::new()), state)
    }

    #[test]
    fn a_group_is_committed_when_full_of_pages_or_writes_or_due() {
        let (mut g, _) = group();
        let t0 = Instant::now();
        assert!(!g.is_open() && !g.should_commit_at(t0));
        assert_eq!(g.wait_at(t0), IDLE_POLL);
        g.page("a.example");
        let opened = g.start.unwrap();
        assert_eq!(g.wait_at(opened + Duration::from_millis(50)), Duration::from_millis(150));
        assert!(!g.should_commit_at(opened + Duration::from_millis(199)));
        assert!(g.should_commit_at(opened + LIMITS.interval), "due");
        g.page("a.example");
        g.page("b.example");
        assert!(g.should_commit_at(opened), "three pages");

        let (mut g, _) = group();
        for i in 0..LIMITS.writes {
            assert!(!g.should_commit_at(g.start.unwrap_or(t0)), "{i} writes");
            g.mark_seen(&format!("http://a.example/{i}"));
        }
        assert!(g.should_commit_at(g.start.unwrap()), "five store writes");
        assert_eq!(g.room(), 0);

        // One long URL is over the byte bound alone.
        let (mut g, _) = group();
        g.mark_seen("http://a.example/short");
        assert!(!g.is_full() && g.room() == LIMITS.writes - 1);
        let long = format!("http://a.example/{}", "x".repeat(LIMITS.bytes));
        g.push_frontier("a.example", entry_of(&long), "http://a.example/".into());
        assert!(g.is_full(), "{} bytes", g.batch.bytes());
    }

    fn entry_of(url: &str) -> FrontierEntry {
        FrontierEntry {
            url: url.into(),
            depth: 1,
            seq: 0,
            kind: crate::store::UrlKind::Page,
            validators: None,
            stream: None,
        }
    }

    #[test]
    fn jobs_alone_ask_for_a_commit() {
        let (mut g, _) = group();
        g.jobs.push(WorkItem::Learn { host: "a.example".into(), generation: 0 });
        assert!(!g.is_open() && g.should_commit_at(Instant::now()));
    }

    #[test]
    fn taking_a_group_hands_over_its_changes_and_forgets_its_seen_urls() {
        let (mut g, state) = group();
        g.mark_seen("http://a.example/x");
        g.page("a.example");
        g.page("a.example");
        g.touch("b.example");
        g.push_frontier("c.example", entry_of("http://c.example/a"), "http://c.example/".into());
        g.events.push(Event::Pruned { host: "a.example".into() });
        assert!(g.has_seen("http://a.example/x") && g.has_seen("http://c.example/a"));
        assert!(!g.has_seen("http://a.example/y"));
        let closed = g.take(state.batch());
        assert_eq!(closed.pages, ["a.example", "a.example"]);
        let dirty = ["a.example", "b.example", "c.example"].map(String::from);
        assert_eq!(closed.dirty, HashSet::from(dirty));
        assert_eq!(closed.new_work, [("c.example".to_string(), "http://c.example/".to_string())]);
        assert!(!g.is_open() && !g.has_seen("http://a.example/x") && g.batch.is_empty());
        assert_eq!(g.events.len(), 1, "events wait for the commit's end");
        // The seen URL is the store's to answer once the batch is committed.
        state.commit(closed.batch).unwrap();
        assert!(state.is_seen("http://a.example/x").unwrap() && state.is_seen("http://c.example/a").unwrap());
    }
}
