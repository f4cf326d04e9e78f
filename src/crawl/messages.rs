//! What the three stages of the crawl engine (ARCHITECTURE.md, "The crawl engine") send each
//! other: [`WorkItem`] from dispatch and committer to the worker pool, [`CommitMsg`] from
//! dispatch and workers to the committer, [`Event`] from the committer back to dispatch.
//! Outcomes and discard reasons are enums ([`PageResult`], [`Discard`]).

use crate::classify::PageClass;
use crate::crawl::fetch::{FetchedPage, Validators};
use crate::crawl::robots::RobotsEntry;
use crate::crawl::sources::SourceUrls;
use crate::domain::{DomainModel, HostModel};
use crate::extract::pipeline::PageExtraction;
use crate::extract::ExtractError;
use crate::store::{Counters, FrontierEntry, UrlKind};
use crate::write::warc::{HttpExchange, WarcRef};
use std::sync::Arc;
use url::Url;

/// Why a page yields no record. Stored as its [`Discard::key`] in the per-host and crawl-wide
/// discard counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discard {
    /// robots.txt disallows the URL.
    RobotsDisallowed,
    /// The fetch failed; the fetch error's stable name (`timeout`, `not_html`, ...).
    Fetch(&'static str),
    /// A non-2xx final status.
    Http(u16),
    /// Decoding, parsing or extraction panicked.
    ProcessingFailed,
    /// GoldMiner's learned pattern is not on the page.
    NoGoldminerPattern,
    /// The extractor failed on the page.
    ExtractionError,
    /// The extractor kept no running text: nothing, or headings alone (a page title over an
    /// empty stub, an archive page's date line), which make no corpus record
    /// ([`crate::extract::pipeline::PageExtraction::has_running_text`]).
    NoMainText,
    /// `[classify] drop_non_article` and the page is not an article.
    NotArticle,
    /// Every paragraph was an Onion duplicate.
    AllDuplicate,
    /// The body is not text: a PDF, an image, an archive, ... served as HTML
    /// (`html::sniff::binary_kind`).
    Binary,
    /// The decoded text is mostly replacement or control characters in every charset tried.
    BadEncoding,
    /// A sitemap or feed that is not one ([`crate::crawl::sources::SourceError`]).
    BadSource(UrlKind),
    /// A conditional request (`crawl --refresh`) answered 304: the page is unchanged.
    NotModified,
    /// A sitemap or feed answered with a non-2xx status (a guessed `/sitemap.xml` that is
    /// not there, a feed gone).
    SourceUnavailable(UrlKind),
    /// The record's language is not one of `[crawl] languages`.
    WrongLanguage,
}

impl Discard {
    /// The counter key: `robots_disallowed`, `http_404`, `no_main_text`, ...
    pub fn key(self) -> String {
        match self {
            Discard::RobotsDisallowed => "robots_disallowed".into(),
            Discard::Fetch(reason) => reason.into(),
            Discard::Http(status) => format!("http_{status}"),
            Discard::ProcessingFailed => "processing_failed".into(),
            Discard::NoGoldminerPattern => "no_goldminer_pattern".into(),
            Discard::ExtractionError => "extraction_error".into(),
            Discard::NoMainText => "no_main_text".into(),
            Discard::NotArticle => "not_article".into(),
            Discard::AllDuplicate => "all_duplicate".into(),
            Discard::Binary => "binary".into(),
            Discard::BadEncoding => "bad_encoding".into(),
            Discard::BadSource(UrlKind::Feed) => "bad_feed".into(),
            Discard::BadSource(_) => "bad_sitemap".into(),
            Discard::NotModified => "not_modified".into(),
            Discard::SourceUnavailable(UrlKind::Feed) => "feed_unavailable".into(),
            Discard::SourceUnavailable(_) => "sitemap_unavailable".into(),
            Discard::WrongLanguage => "wrong_language".into(),
        }
    }
}

/// The CPU work done on a 2xx response by a worker.
pub struct PageWork {
    /// Links found on the page (absolute, fragment-free, at most `max_links_per_page`).
    pub links: Vec<Url>,
    /// Feeds the page announces (seed pages only, [`crate::crawl::sources::feed_links`]).
    pub feeds: Vec<Url>,
    /// What the page became.
    pub content: PageContent,
}

/// A page's content after the worker.
pub enum PageContent {
    /// Decoded HTML to keep until the host's model is there, with the combiner's unlearned
    /// answer for the page ([`crate::extract::pipeline::sample_answer`]; empty when none).
    Waiting {
        /// The decoded HTML.
        html: String,
        /// The answer's bytes ([`crate::extract::combiner::memo::seed`]).
        answer: Vec<u8>,
    },
    /// The extraction and the page classifier's verdict (none when extraction failed); boxed,
    /// a page's extraction is far larger than the other variants.
    Extracted(Box<Result<PageExtraction, ExtractError>>, Option<PageClass>),
    /// Processing panicked.
    Failed,
    /// Not processed: the body is binary or unreadable text.
    Refused(Discard),
    /// A sitemap or feed read: the pages and sitemaps it lists, and its body's share of the
    /// source budget ([`crate::crawl::fetch::budget`]), given back once the committer queued
    /// them (the list is about as large as the body).
    Source(SourceUrls, Option<crate::crawl::fetch::budget::BudgetShare>),
}

/// The outcome of one dispatched frontier entry (it travels boxed in [`PageDone`]).
#[allow(clippy::large_enum_variant)]
pub enum PageResult {
    /// robots.txt disallows it; not fetched.
    RobotsDisallowed,
    /// No response: the fetch error's reason.
    FetchFailed {
        /// The discard.
        reason: &'static str,
    },
    /// 429/503 to be retried later: the entry stays on the frontier.
    Retry,
    /// A response (any status).
    Fetched {
        /// URL after redirects.
        final_url: Url,
        /// Final status.
        status: u16,
        /// RFC 3339 fetch time.
        fetched_at: String,
        /// The response's `Content-Type`.
        content_type: Option<String>,
        /// Bytes of the body as received (the host's yield is measured against them).
        body_bytes: u64,
        /// Time from the request to the last body byte, in milliseconds.
        response_ms: u64,
        /// The host's politeness delay after this response, in milliseconds.
        delay_ms: u64,
        /// The worker's output, for 2xx.
        work: Option<PageWork>,
        /// A redirect to another host, not followed (see `FetchedPage::redirect`).
        redirect: Option<Url>,
        /// The response's `ETag` and `Last-Modified`.
        validators: Validators,
    },
}

/// One dispatched frontier entry and its outcome. `ticket` numbers the host's dispatches in
/// this run: the committer applies a host's pages in ticket order.
pub struct PageDone {
    /// Host key.
    pub host: String,
    /// Dispatch number within the host, from 0 in each run.
    pub ticket: u64,
    /// The frontier entry.
    pub entry: FrontierEntry,
    /// What happened.
    pub result: PageResult,
    /// The HTTP exchanges of the fetch, for the WARC output (the page's own response last).
    pub exchanges: Vec<HttpExchange>,
}

/// A page that waited in the state for its host's model, now extracted.
pub struct WaitingDone {
    /// Its sequence number (key of the waiting page).
    pub seq: u64,
    /// Requested URL.
    pub url: String,
    /// URL after redirects.
    pub final_url: String,
    /// RFC 3339 fetch time.
    pub fetched_at: String,
    /// The final HTTP status.
    pub status: u16,
    /// The response's `Content-Type`.
    pub content_type: Option<String>,
    /// Where its response is in the crawl's WARC files.
    pub warc: Option<WarcRef>,
    /// Cluster crawl: its URL's stream entry (`p/id`).
    pub stream: Option<String>,
    /// The extraction and page class.
    pub extraction: Result<PageExtraction, ExtractError>,
    /// The page classifier's verdict.
    pub class: Option<PageClass>,
}

/// Work for the pool.
pub enum WorkItem {
    /// Decode, parse, collect links, and extract or keep a fetched 2xx page.
    Page {
        /// The dispatch it belongs to.
        host: String,
        /// Its ticket.
        ticket: u64,
        /// The frontier entry.
        entry: FrontierEntry,
        /// The response.
        page: Box<FetchedPage>,
        /// Sample or extract, fixed by dispatch when the request starts (for one host it only
        /// moves from sampling to extracting, so pages reach the committer in fetch order).
        mode: HostModel,
        /// The fetch's HTTP exchanges, passed on to the committer.
        exchanges: Vec<HttpExchange>,
        /// The host's politeness delay after this response, in milliseconds.
        delay_ms: u64,
    },
    /// Learn `host`'s model from its first `sample_size` waiting pages.
    Learn {
        /// Host key.
        host: String,
        /// The model's [`DomainModel::generation`](crate::domain::DomainModel::generation):
        /// the host's re-learnings so far.
        generation: u32,
    },
    /// Learn `host`'s model ahead of its end, on spare CPU, from its `sampled` waiting pages,
    /// and extract them with it: what its learn job would do if the host ran dry with exactly
    /// those pages, kept by the workers for that job ([`crate::crawl::workers::PreModels`]). It
    /// sends nothing to the committer and writes nothing.
    Prelearn {
        /// Host key.
        host: String,
        /// Pages in the host's sample when it was asked for (a job that finds more or fewer
        /// waiting pages does nothing: a later one is asked for, or the host has moved on).
        sampled: u64,
        /// The generation the model would have ([`WorkItem::Learn`]'s).
        generation: u32,
    },
    /// Extract every page of `host` waiting in the state, in crawl order, with `model`.
    Drain {
        /// Host key.
        host: String,
        /// The host's model (`None`: jusText-only fallback).
        model: Option<Arc<DomainModel>>,
    },
}

/// Input of the committer.
pub enum CommitMsg {
    /// A dispatched page's outcome.
    Page(Box<PageDone>),
    /// HTTP exchanges that belong to no page (robots.txt), for the WARC output.
    Exchanges {
        /// Host key.
        host: String,
        /// The exchanges, in order.
        exchanges: Vec<HttpExchange>,
    },
    /// A robots.txt fetched (kept in the state for resume).
    Robots {
        /// Host key.
        host: String,
        /// The entry.
        entry: RobotsEntry,
    },
    /// Dispatch gave the host up for this run (robots.txt, its name, too many failures).
    HostDead {
        /// Host key.
        host: String,
        /// Why, and the last error.
        why: crate::store::GivenUp,
    },
    /// The host has nothing queued and nothing in flight: finish its sampling (learn with at
    /// least `min_sample` pages, else fall back to jusText).
    HostDry {
        /// Host key.
        host: String,
    },
    /// A learn job finished.
    Learned {
        /// Host key.
        host: String,
        /// The model (a default model when learning failed); `None` when the job was skipped
        /// (Ctrl-C, or the state could not be read): it runs again on resume.
        model: Option<Box<DomainModel>>,
    },
    /// One page of a drain job (`None` for an empty drain); `last` ends the job.
    Drained {
        /// Host key.
        host: String,
        /// The page.
        page: Option<Box<WaitingDone>>,
        /// True for the job's last message.
        last: bool,
    },
    /// Stream entries delivered to this worker (cluster crawl): URLs for the hosts of its
    /// partitions, queued unless seen (a re-delivery), acknowledged once their outcome is
    /// committed.
    Remote(Vec<Delivered>),
    /// Dispatch has stopped every host of `partition` (cluster crawl; nothing of them in
    /// flight): once their samples are drained, the committer forgets their queued URLs and
    /// tells the membership loop, which gives the partition's lease back.
    Release {
        /// The partition.
        partition: u32,
    },
    /// Dispatch is done: after the pages it sent (`dispatched` in all) and the background
    /// jobs, the committer commits and stops. `interrupted`: no new learn or drain job starts.
    Finish {
        /// Tickets dispatch sent in this run.
        dispatched: u64,
        /// Ctrl-C.
        interrupted: bool,
    },
}

/// A URL the committer put on a host's frontier in the open group, told to dispatch before
/// the group is durable ([`Event::Queued`]).
#[derive(Debug, Clone, PartialEq)]
pub struct QueuedUrl {
    /// Host key.
    pub host: String,
    /// The host's seed (a host new to the crawl is added with it).
    pub seed: String,
    /// The frontier entry, with its sequence number.
    pub entry: FrontierEntry,
}

/// From the committer to dispatch.
pub enum Event {
    /// URLs just queued in the open group (the first few per host and group): dispatch may
    /// fetch them at their host's next due time instead of after the commit, so that a chain
    /// of links does not wait for one group commit per hop. Sent before the group's
    /// [`Event::Committed`]; a page fetched from one is applied after the page that linked
    /// to it, so it is written once whether the crash comes before or after the commit.
    Queued(Vec<QueuedUrl>),
    /// A group commit is durable.
    Committed {
        /// One host key per page made durable (dispatch counts its outstanding pages down).
        pages: Vec<String>,
        /// Hosts whose frontier got new entries, with their seed (new hosts included).
        new_work: Vec<(String, String)>,
        /// The counters as committed.
        counters: Box<Counters>,
    },
    /// A host's model is ready (`None`: jusText fallback): dispatch extracts its next pages.
    Model {
        /// Host key.
        host: String,
        /// The model.
        model: Option<Arc<DomainModel>>,
    },
    /// A host's model stopped matching its pages: dispatch keeps the host's next pages for a
    /// fresh sample, from which the model is re-learned.
    Resample {
        /// Host key.
        host: String,
    },
    /// A host's yield fell below `[crawl] min_yield`: dispatch stops fetching from it.
    Pruned {
        /// Host key.
        host: String,
    },
    /// This worker took `partition` (cluster crawl): its hosts are crawled here from now on.
    Acquire {
        /// The partition.
        partition: u32,
    },
    /// `partition` moves to another worker (cluster crawl): stop fetching for its hosts and,
    /// once none has a request in flight or a page uncommitted, send [`CommitMsg::Release`].
    Release {
        /// The partition.
        partition: u32,
    },
    /// The committer stopped; its final state is durable (or the error that stopped it).
    Finished(Result<(), String>),
}

/// Move `queue` into `work` without blocking, front first, until the channel is full. Returns
/// the number of items dropped because every worker is gone (the queue is then empty).
pub fn send_queued(
    work: &crossbeam_channel::Sender<WorkItem>,
    queue: &mut std::collections::VecDeque<WorkItem>,
) -> usize {
    while let Some(item) = queue.pop_front() {
        match work.try_send(item) {
            Ok(()) => {}
            Err(crossbeam_channel::TrySendError::Full(item)) => {
                queue.push_front(item);
                return 0;
            }
            Err(crossbeam_channel::TrySendError::Disconnected(_)) => {
                let dropped = 1 + queue.len();
                queue.clear();
                return dropped;
            }
        }
    }
    0
}

/// A URL a backend delivered to this worker ([`CommitMsg::Remote`]; see [`crate::crawl::frontier`]): what its finder knew of
/// it, and the tag to acknowledge once its outcome is committed.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivered {
    /// The backend's tag of the delivery (stored with the frontier entry and the waiting page).
    pub tag: String,
    /// Host key.
    pub host: String,
    /// Normalised absolute URL.
    pub url: String,
    /// Link distance from the seed (sitemap nesting for sitemaps).
    pub depth: u32,
    /// Page, sitemap or feed.
    pub kind: UrlKind,
    /// The seed of the host's record when the host is new.
    pub seed: String,
    /// The host's queue cap for this URL; `None` for none (redirected seeds).
    pub cap: Option<u64>,
}
