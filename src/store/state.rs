//! [`CrawlState`]: the typed view of the [`Store`] — frontier, seen set, host records,
//! sampled pages, domain models, dedup hashes, corpus offset, counters — and
//! [`StateBatch`], the typed builder of the one atomic batch each page ends in.
//!
//! Key layout (one ordered keyspace, prefixes):
//! `f/<host>\0<seq>` a run of frontier entries, the first of sequence number `seq`
//! ([`frontier_runs`]) · `h/<host>` host record ·
//! `r/<host>` robots.txt entry · `p/<host>\0<seq>` a page waiting for its host's model (the
//! sample, and pages fetched while the model is being learned; deleted in the batch that
//! writes its record): in a state directory the [`Locator`] of the page in the host's
//! [`Spool`] file, in a store without a directory (tests) the page itself · `m/<host>` domain
//! model · `meta/…` state format version, corpus
//! offset and format, Onion hash-log length, seen-log length, counters, sequence. Sequence
//! numbers are big-endian so keys sort in crawl order: a host's frontier is a FIFO read in
//! small windows ([`CrawlState::frontier_window`]), never held in memory. The seen set of URLs
//! is held in memory and logged beside the store ([`seen_urls`]).

use super::spool::{Locator, Spool};
use super::{Batch, Store, StoreError};
pub use crate::domain::host_learning::{HostLearning, HostPhase};
use frontier_runs::PendingFrontier;
use seen_urls::SeenUrls;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

mod frontier_runs;
mod seen_urls;

/// What a frontier URL is: a page, or a source of URLs ([`crate::crawl::sources`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UrlKind {
    /// An HTML page.
    #[default]
    Page,
    /// A sitemap or sitemap index (sitemaps.org 0.9).
    Sitemap,
    /// An RSS or Atom feed.
    Feed,
}

impl UrlKind {
    /// True for [`UrlKind::Page`].
    pub fn is_page(&self) -> bool {
        *self == UrlKind::Page
    }
}

/// A page, sitemap or feed fetched with a 2xx answer, kept for `crawl --refresh`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchedPageEntry {
    /// The URL after redirects (the one the validators belong to).
    pub url: String,
    /// Its host key.
    pub host: String,
    /// Link depth.
    pub depth: u32,
    /// `ETag` and `Last-Modified` of the response.
    #[serde(default)]
    pub validators: Validators,
    /// A page, a sitemap or a feed.
    #[serde(default, skip_serializing_if = "UrlKind::is_page")]
    pub kind: UrlKind,
}

/// A page's cache validators (RFC 9110 §8.8): sent back as `If-None-Match` and
/// `If-Modified-Since` when the page is fetched again (`crawl --refresh`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validators {
    /// The `ETag` header, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// The `Last-Modified` header, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// A URL waiting in a host's frontier queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontierEntry {
    /// Normalised absolute URL.
    pub url: String,
    /// Link distance from the seed (seed = 0); for sitemaps, the nesting level (robots.txt's
    /// sitemap = 0).
    pub depth: u32,
    /// Crawl sequence number (FIFO order; also the key suffix).
    #[serde(default)]
    pub seq: u64,
    /// A page, a sitemap or a feed.
    #[serde(default, skip_serializing_if = "UrlKind::is_page")]
    pub kind: UrlKind,
    /// The validators of an earlier fetch (`crawl --refresh`): the request is conditional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validators: Option<Validators>,
    /// Cluster crawl: the URL's entry in its partition's stream (`p/id`,
    /// [`crate::cluster::StreamRef`]), acknowledged once the URL's outcome is committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<String>,
}

/// Why dispatch gave a host up for a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GiveUp {
    /// The address policy refused every address of the host (an internal address).
    AddressRefused,
    /// The host's name resolved to no address, on the first try and one retry.
    NameNotResolved,
    /// robots.txt could not be fetched for `[politeness] robots_give_up`.
    RobotsUnavailable,
    /// robots.txt could not be fetched and every other host was done.
    UnreachableAtEnd,
    /// Too many network failures in a row while fetching pages.
    TooManyFailures,
}

impl GiveUp {
    /// The reason in words, for the summary and `stats`.
    pub fn as_str(self) -> &'static str {
        match self {
            GiveUp::AddressRefused => "address refused",
            GiveUp::NameNotResolved => "name not resolved",
            GiveUp::RobotsUnavailable => "robots.txt unavailable",
            GiveUp::UnreachableAtEnd => "unreachable",
            GiveUp::TooManyFailures => "too many failures",
        }
    }
}

/// A host given up: why, and the last error (cut to 200 characters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenUp {
    /// Why.
    pub why: GiveUp,
    /// The last error, as the crawl printed it.
    pub last: String,
}

impl std::fmt::Display for GivenUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.last.is_empty() {
            f.write_str(self.why.as_str())
        } else {
            write!(f, "{} (last error: {})", self.why.as_str(), self.last)
        }
    }
}

/// What the state remembers of one host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostRecord {
    /// Host name (with `:port` when not the default port).
    pub host: String,
    /// The seed URL that brought the host in (scope is relative to it).
    pub seed: String,
    /// Learning phase, sample and model watch ([`HostLearning`]; stored as fields of the
    /// record itself).
    #[serde(flatten)]
    pub learning: HostLearning,
    /// URLs ever put on this host's frontier (for `max_pages_per_host`).
    pub enqueued: u64,
    /// Pages requested and answered (any status).
    pub fetched: u64,
    /// Corpus records written.
    pub written: u64,
    /// Pages that produced no record, by reason.
    pub discards: BTreeMap<String, u64>,
    /// True when the host was given up for the run it was crawled in (a later run tries it
    /// again); `given_up` says why.
    pub dead: bool,
    /// Why the host was given up, while `dead`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_up: Option<GivenUp>,
    /// Pages with main text that the page classifier called articles.
    #[serde(default)]
    pub articles: u64,
    /// Pages with main text that the page classifier called other (written or not).
    #[serde(default)]
    pub others: u64,
    /// Pages extracted with the host's model where its GoldMiner template matched (or the
    /// model has static keys only).
    #[serde(default)]
    pub model_matched: u64,
    /// Pages extracted while the host had a model with GoldMiner patterns, none of which is on
    /// the page.
    #[serde(default)]
    pub model_unmatched: u64,
    /// Pages the per-page guard extracted without the model, because the model would have
    /// emptied or halved them (`ModelUse::Rejected`).
    #[serde(default)]
    pub model_rejected: u64,
    /// Pages whose learned extraction kept less than half of the words of the unlearned
    /// default outside the host's static noise (a gold-free check of the model; the guard
    /// rejected some of them, see `PageExtraction::model_share`).
    #[serde(default)]
    pub model_halved: u64,
    /// Of [`HostRecord::model_halved`], the pages the guard extracted without the model (also
    /// counted in [`HostRecord::model_rejected`]); the others kept the model (its stretch kept
    /// the lead of the page and cut what follows).
    #[serde(default)]
    pub model_halved_rejected: u64,
    /// The first [`MODEL_HALVED_LISTED`] of those pages: URL and the share of words kept.
    #[serde(default)]
    pub model_halved_pages: Vec<(String, f64)>,
    /// `fetched` when the current model was learned (its age is `fetched` minus this).
    #[serde(default)]
    pub model_since_fetched: u64,
    /// Bytes of response bodies received from the host (pages, sitemaps and feeds; error
    /// pages included), as sent on the wire after transfer decoding.
    #[serde(default)]
    pub body_bytes: u64,
    /// Bytes (UTF-8) of the text of the records written for the host: its "good" text.
    #[serde(default)]
    pub text_bytes: u64,
    /// Words of those records.
    #[serde(default)]
    pub words: u64,
    /// Sum of the response times of the host's answered requests, in milliseconds (the mean is
    /// this over `fetched`).
    #[serde(default)]
    pub response_ms: u64,
    /// The host's politeness delay after its last response, in milliseconds.
    #[serde(default)]
    pub delay_ms: u64,
    /// True when the host was pruned for low yield (`[crawl] min_yield`): nothing more is
    /// fetched from it, in this run or a resumed one.
    #[serde(default)]
    pub pruned: bool,
}

impl HostRecord {
    /// SpiderLing's yield rate (Suchomel & Pomikálek 2012, §2): bytes of text written over
    /// bytes downloaded; `None` before any byte was downloaded.
    pub fn yield_rate(&self) -> Option<f64> {
        (self.body_bytes > 0).then(|| self.text_bytes as f64 / self.body_bytes as f64)
    }

    /// URLs of the host still to fetch, from its record alone (a status snapshot holds no
    /// frontier): URLs ever queued less those fetched and those robots.txt disallowed. Equals
    /// the frontier's length except for URLs whose fetch failed for good.
    pub fn queued_from_counts(&self) -> u64 {
        self.enqueued.saturating_sub(self.fetched + self.discards.get("robots_disallowed").copied().unwrap_or(0))
    }

    /// Share of the host's classified pages that are articles; `None` before any.
    pub fn article_share(&self) -> Option<f64> {
        let n = self.articles + self.others;
        (n > 0).then(|| self.articles as f64 / n as f64)
    }
}

/// A page kept in the state until its host's model is there: the first `sample_size` HTML
/// pages of a host (its sample) and pages fetched while the model is learned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampledPage {
    /// Sequence number (key suffix).
    pub seq: u64,
    /// Requested URL.
    pub url: String,
    /// URL after redirects.
    pub final_url: String,
    /// RFC 3339 fetch time.
    pub fetched_at: String,
    /// The final HTTP status (200 in pages stored before it was kept).
    #[serde(default = "ok_status")]
    pub status: u16,
    /// The response's `Content-Type`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Decoded HTML text.
    pub html: String,
    /// The combiner's unlearned answer for the page, computed when it was fetched
    /// ([`crate::extract::combiner::memo::seed`]); empty when none. Stored beside the head, not
    /// in it.
    #[serde(skip)]
    pub answer: Vec<u8>,
    /// Where its response is in the crawl's WARC files (none without WARC output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc: Option<crate::write::warc::WarcRef>,
    /// Cluster crawl: its URL's stream entry (see [`FrontierEntry::stream`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<String>,
}

fn ok_status() -> u16 {
    200
}

/// Crawl-wide counters, committed with every page batch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    /// HTTP responses received.
    pub fetched: u64,
    /// Requests that failed (network, too large, not HTML, ...).
    pub failed: u64,
    /// URLs skipped because robots.txt disallows them.
    pub robots_disallowed: u64,
    /// Corpus records written.
    pub records: u64,
    /// Paragraphs written.
    pub paragraphs: u64,
    /// Paragraphs dropped as Onion duplicates.
    pub duplicate_paragraphs: u64,
    /// Pages without a record, by reason.
    pub discards: BTreeMap<String, u64>,
    /// Pages with main text classified as articles.
    #[serde(default)]
    pub articles: u64,
    /// Pages with main text classified as other.
    #[serde(default)]
    pub others: u64,
    /// Pages extracted without their host's model because it would have emptied or halved
    /// them.
    #[serde(default)]
    pub model_rejected: u64,
    /// Hosts pruned for low yield (`[crawl] min_yield`).
    #[serde(default)]
    pub hosts_pruned: u64,
    /// Pages whose learned extraction kept less than half of the unlearned default's words
    /// ([`HostRecord::model_halved`], summed).
    #[serde(default)]
    pub model_halved: u64,
    /// Of those, pages extracted without their host's model ([`HostRecord::model_halved_rejected`],
    /// summed).
    #[serde(default)]
    pub model_halved_rejected: u64,
    /// Sitemaps read (robots.txt `Sitemap:` lines, `/sitemap.xml`, sitemap indexes).
    #[serde(default)]
    pub sitemaps: u64,
    /// Feeds read (announced by seed pages).
    #[serde(default)]
    pub feeds: u64,
    /// Page URLs the sitemaps and feeds listed (queued when new, in scope and allowed).
    #[serde(default)]
    pub source_urls: u64,
}

/// How many pages per host [`HostRecord::model_halved_pages`] lists.
pub const MODEL_HALVED_LISTED: usize = 20;

/// The typed crawl state over a [`Store`].
#[derive(Clone)]
pub struct CrawlState {
    store: Arc<dyn Store>,
    next_seq: Arc<AtomicU64>,
    /// The waiting pages' files (`None`: waiting pages are stored inline).
    spool: Option<Arc<Spool>>,
    /// The seen URLs; its lock also makes commits one at a time (a commit reads the
    /// frontier runs it rewrites).
    seen: Arc<Mutex<SeenUrls>>,
}

/// The state format version this build reads and writes (checked by [`CrawlState::open`]).
/// Version 3 keeps frontier runs and the seen log; a version-2 state is read and its seen
/// keys moved into the log when it is opened.
pub const STATE_VERSION: u32 = 3;

/// The state format whose states [`CrawlState::open_at`] upgrades to [`STATE_VERSION`].
const UPGRADED_VERSION: u32 = 2;

const VERSION: &[u8] = b"meta/version";
const SEQ: &[u8] = b"meta/seq";
const HASHLOG: &[u8] = b"meta/hashlog";
const SEENLOG: &[u8] = b"meta/seenlog";
const OFFSET: &[u8] = b"meta/offset";
const FORMAT: &[u8] = b"meta/format";
const COUNTERS: &[u8] = b"meta/counters";
const CRAWL_ID: &[u8] = b"meta/crawl_id";
const WARC: &[u8] = b"meta/warc";
const CORPUS_DIR: &[u8] = b"meta/corpus_dir";
const FETCHED: &[u8] = b"v/";

fn host_key(prefix: &str, host: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(prefix.len() + host.len() + 1);
    k.extend_from_slice(prefix.as_bytes());
    k.extend_from_slice(host.as_bytes());
    k.push(0);
    k
}

fn seq_key(prefix: &str, host: &str, seq: u64) -> Vec<u8> {
    let mut k = host_key(prefix, host);
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

fn plain_key(prefix: &str, host: &str) -> Vec<u8> {
    format!("{prefix}{host}").into_bytes()
}

/// The seen-set key of a URL: xxh3-128 of the URL without its scheme, so that the http and
/// https forms of one page (sites link both ways) are one page.
fn seen_key(url: &str) -> Vec<u8> {
    let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let mut k = b"s/".to_vec();
    k.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(without_scheme.as_bytes()).to_be_bytes());
    k
}

/// A waiting page as stored: a 4-byte big-endian length, the page's JSON without its HTML,
/// then the HTML deflated (fast level: web HTML shrinks 4–8×, and the state holds up to
/// `sample_size` pages per sampling host).
/// A waiting page's head: the page without its HTML and answer, and the answer's length.
#[derive(Serialize)]
struct WaitingHead<'a> {
    #[serde(flatten)]
    page: &'a SampledPage,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer_len: Option<u32>,
}

/// [`WaitingHead`] read back (`answer_len` is absent in pages stored without an answer).
#[derive(Deserialize)]
struct WaitingHeadIn {
    #[serde(flatten)]
    page: SampledPage,
    #[serde(default)]
    answer_len: Option<u32>,
}

/// A waiting page's value: the head's length (u32, big-endian), the head (JSON), the answer's
/// bytes ([`SampledPage::answer`]), then the HTML, deflated.
fn encode_waiting(page: &SampledPage) -> Vec<u8> {
    use std::io::Write;
    let bare = SampledPage { html: String::new(), answer: Vec::new(), ..page.clone() };
    let answer_len = (!page.answer.is_empty()).then_some(page.answer.len() as u32);
    let head = encode(&WaitingHead { page: &bare, answer_len });
    let mut out = Vec::with_capacity(page.html.len() / 4 + head.len() + page.answer.len() + 4);
    out.extend_from_slice(&(head.len() as u32).to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&page.answer);
    let mut z = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    z.write_all(page.html.as_bytes()).expect("writing to memory");
    z.finish().expect("writing to memory")
}

fn decode_waiting(key: &[u8], value: &[u8]) -> Result<SampledPage, StoreError> {
    use std::io::Read;
    let corrupt = |reason: String| StoreError::Corrupt { key: String::from_utf8_lossy(key).into_owned(), reason };
    let n = value.get(..4).map(|b| u32::from_be_bytes(b.try_into().expect("4 bytes")) as usize);
    let head = n.and_then(|n| value.get(4..4 + n)).ok_or_else(|| corrupt("short waiting page".into()))?;
    let WaitingHeadIn { mut page, answer_len } = decode(key, head)?;
    let body = &value[4 + head.len()..];
    let answer_len = answer_len.unwrap_or(0) as usize;
    let answer = body.get(..answer_len).ok_or_else(|| corrupt("short waiting page answer".into()))?;
    page.answer = answer.to_vec();
    let mut html = String::new();
    flate2::read::DeflateDecoder::new(&body[answer_len..])
        .read_to_string(&mut html)
        .map_err(|e| corrupt(format!("waiting page HTML: {e}")))?;
    page.html = html;
    Ok(page)
}

/// A big-endian `u64` stored under `key` (0 when absent or not 8 bytes).
fn meta_u64(store: &dyn Store, key: &[u8]) -> Result<u64, StoreError> {
    Ok(match store.get(key)? {
        Some(v) if v.len() == 8 => u64::from_be_bytes(v.try_into().expect("8 bytes")),
        _ => 0,
    })
}

fn decode<T: DeserializeOwned>(key: &[u8], value: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(value)
        .map_err(|e| StoreError::Corrupt { key: String::from_utf8_lossy(key).into_owned(), reason: e.to_string() })
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("state types serialise")
}

impl CrawlState {
    /// Wrap a store, reading the sequence counter. A new store gets [`STATE_VERSION`]; a
    /// store of another version is [`StoreError::Version`] (`path` names it in the error).
    pub fn open_at(store: Arc<dyn Store>, path: &std::path::Path) -> Result<CrawlState, StoreError> {
        let found = match store.get(VERSION)? {
            Some(v) if v.len() == 4 => u32::from_be_bytes(v.try_into().expect("4 bytes")),
            Some(_) => 0,
            None if store.get(SEQ)?.is_some() => 1,
            None => {
                let mut b = Batch::default();
                b.put(VERSION, STATE_VERSION.to_be_bytes().to_vec());
                store.apply(b)?;
                STATE_VERSION
            }
        };
        if found != STATE_VERSION && found != UPGRADED_VERSION {
            return Err(StoreError::Version { path: path.to_path_buf(), found, expected: STATE_VERSION });
        }
        let seen = SeenUrls::with_log(&path.join("seen.log"), meta_u64(&*store, SEENLOG)?, &*store)?;
        let mut state = CrawlState::with_seen(store.clone(), seen)?;
        if found == UPGRADED_VERSION {
            let mut b = Batch::default();
            b.put(VERSION, STATE_VERSION.to_be_bytes().to_vec());
            store.apply(b)?;
            store.flush()?;
        }
        let spool = Spool::open(&path.join("waiting"))?;
        spool.retain(&state.hosts_waiting()?)?;
        state.spool = Some(Arc::new(spool));
        Ok(state)
    }

    /// Wrap a store without a version check (tests, tools that only read).
    pub fn open(store: Arc<dyn Store>) -> Result<CrawlState, StoreError> {
        let seen = SeenUrls::inline(&*store)?;
        CrawlState::with_seen(store, seen)
    }

    fn with_seen(store: Arc<dyn Store>, seen: SeenUrls) -> Result<CrawlState, StoreError> {
        let seq = meta_u64(&*store, SEQ)?;
        Ok(CrawlState { store, next_seq: Arc::new(AtomicU64::new(seq)), spool: None, seen: Arc::new(Mutex::new(seen)) })
    }

    fn seen(&self) -> MutexGuard<'_, SeenUrls> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The hosts with pages waiting (one key scan per host).
    fn hosts_waiting(&self) -> Result<HashSet<String>, StoreError> {
        let mut hosts = HashSet::new();
        let mut from = b"p/".to_vec();
        while let Some((key, _)) = self.store.scan_from(b"p/", &from, 1)?.into_iter().next() {
            let Some(end) = key.iter().skip(2).position(|&b| b == 0) else {
                break;
            };
            hosts.insert(String::from_utf8_lossy(&key[2..2 + end]).into_owned());
            // Past every key of this host: its prefix with the separator raised by one.
            from = key[..2 + end].to_vec();
            from.push(1);
        }
        Ok(hosts)
    }

    /// The underlying store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// A new, empty batch.
    pub fn batch(&self) -> StateBatch {
        StateBatch {
            batch: Batch::default(),
            next_seq: self.next_seq.clone(),
            spool: self.spool.clone(),
            waiting_deleted: BTreeSet::new(),
            frontier: PendingFrontier::default(),
            seen: Vec::new(),
        }
    }

    /// Apply `batch` atomically and make it durable: the waiting pages it appended to the spool
    /// and the URLs it marked seen to the seen log first, then the store (its frontier runs
    /// rewritten for the entries it pops); then the spool files of hosts left without
    /// waiting pages go. Commits run one at a time.
    ///
    /// # Errors
    /// Store, spool and seen-log errors. After an error the batch may be partly in the logs,
    /// past their committed lengths: a crawl stops there, and the next open cuts them back.
    pub fn commit(&self, batch: StateBatch) -> Result<(), StoreError> {
        let StateBatch { batch: mut writes, frontier, seen: marks, waiting_deleted, .. } = batch;
        let mut seen = self.seen();
        frontier.write(&*self.store, &mut writes)?;
        writes.put(SEQ, self.next_seq.load(Ordering::SeqCst).to_be_bytes().to_vec());
        if let Some(spool) = &self.spool {
            spool.sync()?;
        }
        seen.persist(&marks, &mut writes)?;
        self.store.apply(writes)?;
        self.store.flush()?;
        seen.apply(&marks);
        drop(seen);
        if let Some(spool) = &self.spool {
            for host in &waiting_deleted {
                if self.store.scan_prefix(&host_key("p/", host), 1)?.is_empty() {
                    spool.remove(host)?;
                }
            }
        }
        Ok(())
    }

    fn get_json<T: DeserializeOwned>(&self, key: &[u8]) -> Result<Option<T>, StoreError> {
        self.store.get(key)?.map(|v| decode(key, &v)).transpose()
    }

    /// The oldest frontier entry of `host` (the one to fetch next), without removing it.
    pub fn frontier_head(&self, host: &str) -> Result<Option<FrontierEntry>, StoreError> {
        Ok(self.read_frontier(host, 0, 1)?.into_iter().next())
    }

    /// Up to `limit` frontier entries of `host` with a sequence number of at least `from`, in
    /// FIFO order: the scheduler's window on a queue that stays on disk.
    pub fn frontier_window(&self, host: &str, from: u64, limit: usize) -> Result<Vec<FrontierEntry>, StoreError> {
        self.read_frontier(host, from, limit)
    }

    /// Number of queued URLs of `host` (a scan of its runs).
    pub fn frontier_len(&self, host: &str) -> Result<usize, StoreError> {
        self.count_frontier(&host_key("f/", host))
    }

    /// The pages fetched with a 2xx answer, in key order from `after` (exclusive; `None`: the
    /// first), at most `limit`, with the key to continue after: what `crawl --refresh` fetches
    /// again, with their validators.
    pub fn fetched_pages(
        &self,
        after: Option<&[u8]>,
        limit: usize,
    ) -> Result<(Vec<FetchedPageEntry>, Option<Vec<u8>>), StoreError> {
        let mut from = after.map(<[u8]>::to_vec).unwrap_or_else(|| FETCHED.to_vec());
        if after.is_some() {
            from.push(0);
        }
        let entries = self.store.scan_from(FETCHED, &from, limit)?;
        let last = entries.last().map(|(k, _)| k.clone());
        let pages = entries.iter().map(|(k, v)| decode(k, v)).collect::<Result<_, _>>()?;
        Ok((pages, last))
    }

    /// Number of queued URLs over all hosts (a scan of the runs).
    pub fn frontier_total(&self) -> Result<usize, StoreError> {
        self.count_frontier(b"f/")
    }

    /// The seen-set identity of `url` (xxh3-128 without the scheme): equal for two URLs
    /// exactly when [`CrawlState::is_seen`] treats them as one page.
    pub fn url_identity(url: &str) -> u128 {
        let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
        xxhash_rust::xxh3::xxh3_128(without_scheme.as_bytes())
    }

    /// True when `url` was ever put on the frontier (or marked seen) in a committed batch
    /// and not forgotten since.
    pub fn is_seen(&self, url: &str) -> Result<bool, StoreError> {
        Ok(self.seen().contains(seen_urls::identity(url)))
    }

    /// Cluster crawl: true when `url`'s outcome was committed here ([`StateBatch::mark_done`]).
    pub fn is_done(&self, url: &str) -> Result<bool, StoreError> {
        let mut k = seen_key(url);
        k[0] = b'd';
        Ok(self.store.get(&k)?.is_some())
    }

    /// The record of `host`.
    pub fn host(&self, host: &str) -> Result<Option<HostRecord>, StoreError> {
        self.get_json(&plain_key("h/", host))
    }

    /// All host records, in host-name order.
    pub fn hosts(&self) -> Result<Vec<HostRecord>, StoreError> {
        self.store.scan_prefix(b"h/", usize::MAX)?.iter().map(|(k, v)| decode(k, v)).collect()
    }

    /// The stored robots.txt entry of `host`.
    pub fn robots<T: DeserializeOwned>(&self, host: &str) -> Result<Option<T>, StoreError> {
        self.get_json(&plain_key("r/", host))
    }

    /// The waiting page stored under `key`: inline, or read from the spool at its locator.
    fn waiting_page(&self, host: &str, key: &[u8], value: &[u8]) -> Result<SampledPage, StoreError> {
        match (Locator::from_bytes(value), &self.spool) {
            (Some(loc), Some(spool)) => decode_waiting(key, &spool.read(host, loc)?),
            (Some(_), None) => Err(StoreError::Corrupt {
                key: String::from_utf8_lossy(key).into_owned(),
                reason: "a spooled waiting page in a state opened without its directory".into(),
            }),
            (None, _) => decode_waiting(key, value),
        }
    }

    /// Up to `limit` of the pages of `host` waiting for its model, in crawl order (the first
    /// `sample_size` are its sample).
    pub fn waiting_pages(&self, host: &str, limit: usize) -> Result<Vec<SampledPage>, StoreError> {
        self.store
            .scan_prefix(&host_key("p/", host), limit)?
            .iter()
            .map(|(k, v)| self.waiting_page(host, k, v))
            .collect()
    }

    /// The sequence numbers of the first `limit` pages of `host` waiting in the state, in crawl
    /// order (their keys are read, not their pages decoded).
    ///
    /// # Errors
    /// The store's.
    pub fn waiting_seqs(&self, host: &str, limit: usize) -> Result<Vec<u64>, StoreError> {
        let entries = self.store.scan_prefix(&host_key("p/", host), limit)?;
        Ok(entries
            .iter()
            .filter_map(|(k, _)| {
                k.len().checked_sub(8).map(|at| u64::from_be_bytes(k[at..].try_into().expect("8 bytes")))
            })
            .collect())
    }

    /// Up to `limit` of the pages of `host` waiting for its model with sequence number `from`
    /// or later, in crawl order (a drain reads them in such windows, never all at once).
    pub fn waiting_window(&self, host: &str, from: u64, limit: usize) -> Result<Vec<SampledPage>, StoreError> {
        let prefix = host_key("p/", host);
        let start = seq_key("p/", host, from);
        self.store.scan_from(&prefix, &start, limit)?.iter().map(|(k, v)| self.waiting_page(host, k, v)).collect()
    }

    /// The learned model of `host`, as stored (`None`: the host has none).
    ///
    /// # Errors
    /// [`StoreError::ModelVersion`] for a model of another [`crate::domain::MODEL_FORMAT_VERSION`]
    /// (learned by another webcorpus), [`StoreError::Corrupt`] for one that does not decode.
    pub fn model(&self, host: &str) -> Result<Option<crate::domain::DomainModel>, StoreError> {
        let key = plain_key("m/", host);
        let Some(raw) = self.store.get(&key)? else { return Ok(None) };
        // The version first, so a model of another layout names its version, not a field.
        #[derive(Deserialize)]
        struct Version {
            #[serde(default)]
            format_version: u32,
        }
        let found = decode::<Version>(&key, &raw)?.format_version;
        if found != crate::domain::MODEL_FORMAT_VERSION {
            return Err(StoreError::ModelVersion {
                host: host.to_string(),
                found,
                expected: crate::domain::MODEL_FORMAT_VERSION,
            });
        }
        decode(&key, &raw).map(Some)
    }

    /// The committed length of Onion's hash log, bytes (8 per distinct n-gram).
    pub fn hash_log_len(&self) -> Result<u64, StoreError> {
        meta_u64(&*self.store, HASHLOG)
    }

    /// The committed corpus byte offset (0 for a new crawl).
    pub fn corpus_offset(&self) -> Result<u64, StoreError> {
        meta_u64(&*self.store, OFFSET)
    }

    /// The committed end of the WARC output, if a record was ever committed.
    pub fn warc_position(&self) -> Result<Option<crate::write::warc::WarcPosition>, StoreError> {
        self.get_json(WARC)
    }

    /// The id of this crawl (written beside its corpus to claim the directory), if set.
    pub fn crawl_id(&self) -> Result<Option<String>, StoreError> {
        Ok(self.store.get(CRAWL_ID)?.map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    /// The corpus directory (`--out`) of the crawl's last run, absolute, if one ran.
    pub fn corpus_dir(&self) -> Result<Option<std::path::PathBuf>, StoreError> {
        Ok(self.store.get(CORPUS_DIR)?.map(|v| std::path::PathBuf::from(String::from_utf8_lossy(&v).into_owned())))
    }

    /// The corpus format this state was written with, if any.
    pub fn corpus_format(&self) -> Result<Option<String>, StoreError> {
        Ok(self.store.get(FORMAT)?.map(|v| String::from_utf8_lossy(&v).into_owned()))
    }

    /// The committed counters.
    pub fn counters(&self) -> Result<Counters, StoreError> {
        Ok(self.get_json(COUNTERS)?.unwrap_or_default())
    }
}

/// The writes of one page (or one learning step), applied atomically by
/// [`CrawlState::commit`].
pub struct StateBatch {
    batch: Batch,
    next_seq: Arc<AtomicU64>,
    spool: Option<Arc<Spool>>,
    /// Hosts whose waiting pages this batch deletes (their spool files may go after it).
    waiting_deleted: BTreeSet<String>,
    /// Frontier entries pushed and popped, written as runs at commit.
    frontier: PendingFrontier,
    /// Seen-set changes ([`seen_urls::mark`]), made durable at commit.
    seen: Vec<u64>,
}

impl StateBatch {
    /// Allocate the next crawl sequence number.
    pub fn next_seq(&self) -> u64 {
        self.next_seq.fetch_add(1, Ordering::SeqCst)
    }

    /// Append `entry` to `host`'s frontier and mark its URL seen; returns its sequence number.
    pub fn push_frontier(&mut self, host: &str, mut entry: FrontierEntry) -> u64 {
        let seq = self.next_seq();
        entry.seq = seq;
        self.seen.push(seen_urls::mark(&entry.url, true));
        self.frontier.push(host, entry);
        seq
    }

    /// Mark `url` seen without queueing it (e.g. a redirect target that was fetched).
    pub fn mark_seen(&mut self, url: &str) {
        self.seen.push(seen_urls::mark(url, true));
    }

    /// Forget that `url` was seen (cluster crawl: its host moved to another worker before
    /// the URL was done here).
    pub fn unmark_seen(&mut self, url: &str) {
        self.seen.push(seen_urls::mark(url, false));
    }

    /// Cluster crawl: the outcome of `url` is committed here (a re-delivery of its stream
    /// entry is only acknowledged).
    pub fn mark_done(&mut self, url: &str) {
        let mut k = seen_key(url);
        k[0] = b'd';
        self.batch.put(k, Vec::new());
    }

    /// Remove `host`'s frontier entry `seq` (the page is done, whatever its outcome).
    pub fn pop_frontier(&mut self, host: &str, seq: u64) {
        self.frontier.pop(host, seq);
    }

    /// Store `record` as the host's record.
    pub fn put_host(&mut self, record: &HostRecord) {
        self.batch.put(plain_key("h/", &record.host), encode(record));
    }

    /// Store the robots.txt entry of `host`.
    pub fn put_robots<T: Serialize>(&mut self, host: &str, entry: &T) {
        self.batch.put(plain_key("r/", host), encode(entry));
    }

    /// Keep `page` in the state until `host`'s model is there: appended to the host's spool
    /// file now (durable at commit), its locator in this batch.
    ///
    /// # Errors
    /// [`StoreError::Spool`] when the spool file cannot be written (a full disk).
    pub fn put_waiting(&mut self, host: &str, page: &SampledPage) -> Result<(), StoreError> {
        let bytes = encode_waiting(page);
        let value = match &self.spool {
            Some(spool) => spool.append(host, &bytes)?.to_bytes(),
            None => bytes,
        };
        self.batch.put(seq_key("p/", host, page.seq), value);
        Ok(())
    }

    /// Delete waiting page `seq` of `host` (its outcome is in this batch).
    pub fn delete_waiting(&mut self, host: &str, seq: u64) {
        self.batch.delete(seq_key("p/", host, seq));
        if self.spool.is_some() && !self.waiting_deleted.contains(host) {
            self.waiting_deleted.insert(host.to_string());
        }
    }

    /// Store the learned model of `host`.
    pub fn put_model<T: Serialize>(&mut self, host: &str, model: &T) {
        self.batch.put(plain_key("m/", host), encode(model));
    }

    /// Record the synced length of Onion's hash log.
    pub fn set_hash_log_len(&mut self, len: u64) {
        self.batch.put(HASHLOG, len.to_be_bytes().to_vec());
    }

    /// Number of writes so far, a frontier entry pushed or popped and a seen-set change
    /// counted as one each (as if each were its own key).
    pub fn len(&self) -> usize {
        self.batch.len() + self.frontier.len() + self.seen.len()
    }

    /// Bytes of keys and values written so far (frontier entries and seen-set changes
    /// estimated).
    pub fn bytes(&self) -> usize {
        self.batch.bytes() + self.frontier.bytes() + 16 * self.seen.len()
    }

    /// True when nothing is written.
    pub fn is_empty(&self) -> bool {
        self.batch.is_empty() && self.frontier.is_empty() && self.seen.is_empty()
    }

    /// Record the corpus byte offset after the last flushed record, and its format.
    pub fn set_corpus_offset(&mut self, offset: u64, format: &str) {
        self.batch.put(OFFSET, offset.to_be_bytes().to_vec());
        self.batch.put(FORMAT, format.as_bytes().to_vec());
    }

    /// Remember a page fetched with a 2xx answer and its validators (one entry per URL, the
    /// latest fetch).
    pub fn put_fetched_page(&mut self, page: &FetchedPageEntry) {
        let mut key = FETCHED.to_vec();
        key.extend_from_slice(&CrawlState::url_identity(&page.url).to_be_bytes());
        self.batch.put(key, encode(page));
    }

    /// Record the synced end of the WARC output.
    pub fn set_warc_position(&mut self, position: &crate::write::warc::WarcPosition) {
        self.batch.put(WARC, encode(position));
    }

    /// Set the crawl's id (see [`CrawlState::crawl_id`]).
    pub fn set_crawl_id(&mut self, id: &str) {
        self.batch.put(CRAWL_ID, id.as_bytes().to_vec());
    }

    /// Record the crawl's corpus directory (absolute), for `show --state`.
    pub fn set_corpus_dir(&mut self, dir: &std::path::Path) {
        self.batch.put(CORPUS_DIR, dir.to_string_lossy().as_bytes().to_vec());
    }

    /// Store the counters.
    pub fn put_counters(&mut self, counters: &Counters) {
        self.batch.put(COUNTERS, encode(counters));
    }
}

#[cfg(test)]
mod tests;
