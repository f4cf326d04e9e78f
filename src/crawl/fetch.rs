//! HTTP fetching: the principal type is [`Fetcher`], one `reqwest::Client` shared by all crawl
//! tasks, turning a URL into a [`FetchedPage`] (or a typed [`FetchError`]). It sits between
//! politeness (which decided the request may start) and `html::decode` (which reads the body).
//!
//! Every hop is checked: reqwest's own redirect handling is off and redirects are followed
//! here, at most [`NetConfig::max_redirects`], each to an http(s) URL on the same host; a
//! redirect to another host ends the fetch and is reported in [`FetchedPage::redirect`], for the
//! crawl to queue like a link (Heritrix's way: that host's scope, robots.txt and politeness
//! apply). Every connection goes through the address policy ([`super::address`]). Each request
//! has a total deadline ([`NetConfig::request_timeout`], body included). The body is streamed
//! with a size cap, and non-HTML responses are refused from their `Content-Type` before the body
//! is read. gzip and deflate bodies are decoded by reqwest (the cap applies to the decoded
//! bytes); a body in any other `Content-Encoding` was not asked for and is refused.
//!
//! The `resolve` table is a testing aid (like `curl --resolve`): a host listed there is
//! contacted at the given `ip:port` over plain HTTP, whatever the URL's scheme, with the original
//! `Host` header; URLs reported back keep their original scheme. So a mirror of a real site can
//! be served on 127.0.0.1 and crawled under its real name.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{
    HeaderMap, ACCEPT, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HOST, LAST_MODIFIED, LOCATION, RETRY_AFTER,
};

pub use crate::config::net::NetConfig;
use url::Url;

use super::address::{AddressError, AddressPolicy, PolicyResolver};
use super::sources::{MAX_SOURCE_BYTES, SOURCE_CONTENT_TYPES};
use super::url::{for_log, host_key};
use crate::store::UrlKind;
use crate::write::warc::{HttpExchange, Truncation};
use exchange::{Pending, Sent};

pub mod budget;
mod exchange;

/// The cap on a robots.txt body, in bytes; the rest is dropped (RFC 9309 §2.5 asks parsers to
/// read at least 500 KiB).
pub const MAX_ROBOTS_BYTES: usize = 512 * 1024;

/// Redirects followed for robots.txt (RFC 9309 §2.3.1.2: at least five).
const ROBOTS_REDIRECTS: u32 = 5;

/// The most body bytes of a redirect or an error page kept for the WARC output.
const SIDE_BODY_BYTES: u64 = 64 * 1024;

/// A fetch's result with the HTTP exchanges it made, in order (empty unless the fetcher
/// records, [`Fetcher::recording`]).
#[derive(Debug)]
pub struct Recorded<T> {
    /// What the fetch gave.
    pub result: Result<T, FetchError>,
    /// Every request and response, redirect hops and refused responses included.
    pub exchanges: Vec<HttpExchange>,
}

impl<T> Recorded<T> {
    /// A result without exchanges.
    pub fn bare(result: Result<T, FetchError>) -> Recorded<T> {
        Recorded { result, exchanges: Vec::new() }
    }
}

/// Why a fetch produced no page. `url` is the URL asked for (before redirects).
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The connection or a read timed out.
    #[error("{}: timed out", for_log(.url))]
    Timeout {
        /// URL asked for.
        url: String,
    },
    /// The host's name resolved to no address.
    #[error("{}: {message}", for_log(.url))]
    NameNotResolved {
        /// URL asked for.
        url: String,
        /// The resolver's message.
        message: String,
    },
    /// No connection: refused, reset, TLS handshake.
    #[error("{}: cannot connect: {message}", for_log(.url))]
    Connect {
        /// URL asked for.
        url: String,
        /// The underlying error chain.
        message: String,
    },
    /// More than `max_redirects` redirects.
    #[error("{}: more than {max} redirects", for_log(.url))]
    TooManyRedirects {
        /// URL asked for.
        url: String,
        /// The limit.
        max: u32,
    },
    /// A redirect whose `Location` is unparsable or not http(s).
    #[error("{}: bad redirect to {:?}: {reason}", for_log(.url), for_log(.location))]
    BadRedirect {
        /// URL asked for.
        url: String,
        /// The `Location` header as sent.
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The body exceeds `max_body_bytes` (by Content-Length or while streaming).
    #[error("{}: body larger than {limit} bytes", for_log(.url))]
    BodyTooLarge {
        /// URL asked for.
        url: String,
        /// The limit, bytes.
        limit: u64,
    },
    /// A 2xx response whose Content-Type is not in `accept_content_types`; body not read.
    #[error("{}: not HTML ({content_type})", for_log(.url))]
    NotHtml {
        /// URL asked for.
        url: String,
        /// The Content-Type header.
        content_type: String,
    },
    /// The address policy refused the connection (an internal address).
    #[error("{}: {reason}", for_log(.url))]
    Refused {
        /// URL asked for.
        url: String,
        /// The policy's reason.
        reason: String,
    },
    /// A body in a `Content-Encoding` that was not asked for (only gzip and deflate are).
    #[error("{}: body in Content-Encoding {encoding:?}, which was not asked for", for_log(.url))]
    UnrequestedEncoding {
        /// URL asked for.
        url: String,
        /// The header value.
        encoding: String,
    },
    /// Anything else: a reset connection, a malformed response, a bad configuration.
    #[error("{}: {message}", for_log(.url))]
    Other {
        /// URL asked for (empty when building the client failed).
        url: String,
        /// The underlying error chain.
        message: String,
    },
}

impl FetchError {
    /// A short, stable snake_case name for counters and discard reasons.
    pub fn reason(&self) -> &'static str {
        match self {
            FetchError::Timeout { .. } => "timeout",
            FetchError::NameNotResolved { .. } => "name_not_resolved",
            FetchError::Connect { .. } => "connect_error",
            FetchError::TooManyRedirects { .. } => "too_many_redirects",
            FetchError::BadRedirect { .. } => "bad_redirect",
            FetchError::BodyTooLarge { .. } => "body_too_large",
            FetchError::NotHtml { .. } => "not_html",
            FetchError::Refused { .. } => "address_refused",
            FetchError::UnrequestedEncoding { .. } => "unrequested_encoding",
            FetchError::Other { .. } => "fetch_error",
        }
    }

    fn from_reqwest(url: &Url, e: reqwest::Error) -> FetchError {
        let url = url.to_string();
        // reqwest's messages repeat the URL, which may be very long.
        let message = crate::logging::bounded(&error_chain(&e)).into_owned();
        match find_source::<AddressError>(&e) {
            Some(unresolved @ AddressError::NameNotResolved { .. }) => {
                FetchError::NameNotResolved { url, message: unresolved.to_string() }
            }
            Some(refused) => FetchError::Refused { url, reason: refused.to_string() },
            None if e.is_timeout() => FetchError::Timeout { url },
            None if e.is_connect() => FetchError::Connect { url, message },
            None => FetchError::Other { url, message },
        }
    }
}

/// The error and its sources, joined with ": " (reqwest's Display hides the cause).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The first error of type `T` in `e`'s source chain.
fn find_source<'a, T: std::error::Error + 'static>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a T> {
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(found) = err.downcast_ref::<T>() {
            return Some(found);
        }
        current = err.source();
    }
    None
}

pub use crate::store::Validators;

impl Validators {
    /// The conditional request headers these validators give.
    fn headers(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(etag) = &self.etag {
            out.push(("If-None-Match", etag.clone()));
        }
        if let Some(date) = &self.last_modified {
            out.push(("If-Modified-Since", date.clone()));
        }
        out
    }

    /// True when neither header was sent.
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

/// One fetched response. Non-2xx statuses are returned too; the caller decides.
#[derive(Debug, Clone)]
pub struct FetchedPage {
    /// The URL asked for.
    pub url: Url,
    /// The URL of the last hop, after redirects (equal to `url` without redirects).
    pub final_url: Url,
    /// HTTP status of the last hop.
    pub status: u16,
    /// The `Content-Type` header, verbatim.
    pub content_type: Option<String>,
    /// The `Retry-After` header, verbatim (see `politeness::parse_retry_after`).
    pub retry_after: Option<String>,
    /// The last hop's `ETag` and `Last-Modified`.
    pub validators: Validators,
    /// A redirect to another host, not followed: the absolute target (fragment removed).
    /// `status` is then the redirect's 3xx.
    pub redirect: Option<Url>,
    /// The decoded body (gzip/deflate undone), at most `max_body_bytes`. For a non-2xx status
    /// with a content type outside the accept list the body is not read and left empty.
    pub body: Vec<u8>,
    /// Wall time from the first request to the last body byte, all hops included, less the
    /// pauses between hops as they were slept: the time the server took, which feeds the
    /// adaptive politeness delay.
    pub response_time: Duration,
    /// When the response was complete.
    pub fetched_at: SystemTime,
    /// A sitemap's or feed's share of the crawl's [`budget::SourceBudget`], held until the
    /// page (and so its body) is dropped; `None` for pages.
    pub budget: Option<budget::BudgetShare>,
}

/// The HTTP client of a crawl; cheap to share behind an `Arc`.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    config: NetConfig,
    accept: Vec<String>,
    /// The accept list for sitemaps and feeds.
    source_accept: Vec<String>,
    resolve: HashMap<String, SocketAddr>,
    policy: Arc<AddressPolicy>,
    record: bool,
    /// The memory of sitemap and feed bodies in flight ([`budget`]).
    sources: budget::SourceBudget,
}

/// The last response of the redirect loop.
struct Hop {
    /// Its URL.
    url: Url,
    response: reqwest::Response,
    /// Wall time spent in the pauses between hops (the politeness delay as the timer kept
    /// it, which can be longer than asked).
    paused: Duration,
    /// Its exchange, when recording.
    pending: Option<Pending>,
}

/// Where the redirect loop ended.
enum Followed {
    /// A non-redirect response (or a redirect without `Location`).
    Done(Hop),
    /// A redirect to another host, not followed, and the target.
    Elsewhere(Hop, Url),
    /// Redirected more than allowed; the last status.
    TooMany(u16),
    /// A redirect to an unusable `Location`; the last status.
    Bad { status: u16, location: String, reason: String },
}

impl Fetcher {
    /// Build the client from `config`.
    ///
    /// # Errors
    /// [`FetchError::Other`] (with an empty `url`) when a `resolve` address is not an
    /// `ip:port`, an `allow` entry is not a host, address or network, or the TLS backend
    /// cannot be initialised.
    pub fn new(config: &NetConfig) -> Result<Fetcher, FetchError> {
        let config_error = |message: String| FetchError::Other { url: String::new(), message };
        let mut resolve = HashMap::new();
        for (host, addr) in &config.resolve {
            let addr: SocketAddr = addr.parse().map_err(|_| {
                config_error(format!("net.resolve: `{host}` maps to `{addr}`, which is not an ip:port"))
            })?;
            resolve.insert(host.to_ascii_lowercase(), addr);
        }
        let policy = Arc::new(AddressPolicy::new(&config.allow).map_err(|e| config_error(e.to_string()))?);
        let client = reqwest::Client::builder()
            .user_agent(config.user_agent.clone())
            .connect_timeout(config.connect_timeout)
            .read_timeout(config.read_timeout)
            .timeout(config.request_timeout)
            .dns_resolver(Arc::new(PolicyResolver::new(policy.clone())))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| config_error(format!("cannot build HTTP client: {}", error_chain(&e))))?;
        Ok(Fetcher {
            client,
            config: config.clone(),
            accept: config.accept_content_types.iter().map(|t| t.trim().to_ascii_lowercase()).collect(),
            source_accept: SOURCE_CONTENT_TYPES.iter().map(|t| t.to_string()).collect(),
            resolve,
            policy,
            record: false,
            sources: budget::SourceBudget::new(budget::SOURCE_BUDGET_BYTES, MAX_SOURCE_BYTES),
        })
    }

    /// Keep every HTTP exchange of [`Fetcher::fetch_recorded`] and
    /// [`Fetcher::fetch_robots_recorded`] (for the WARC output): bodies are then held twice.
    pub fn recording(mut self, on: bool) -> Fetcher {
        self.record = on;
        self
    }

    /// The configuration the fetcher was built with.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Fetch `url` (GET), following up to `max_redirects` redirects on the same host.
    ///
    /// # Errors
    /// Network failures ([`FetchError::NameNotResolved`], [`FetchError::Timeout`],
    /// [`FetchError::Connect`], [`FetchError::Other`]), [`FetchError::Refused`] by the address policy, redirect problems
    /// ([`FetchError::TooManyRedirects`], [`FetchError::BadRedirect`]), [`FetchError::NotHtml`]
    /// for a 2xx non-HTML response, [`FetchError::UnrequestedEncoding`] and
    /// [`FetchError::BodyTooLarge`].
    pub async fn fetch(&self, url: &Url) -> Result<FetchedPage, FetchError> {
        self.fetch_paced(url, Duration::ZERO).await
    }

    /// [`Fetcher::fetch`], waiting `hop_delay` before each redirect hop: a hop is a request
    /// to a host like any other, so the crawler passes the host's politeness delay.
    ///
    /// # Errors
    /// As [`Fetcher::fetch`].
    pub async fn fetch_paced(&self, url: &Url, hop_delay: Duration) -> Result<FetchedPage, FetchError> {
        self.fetch_recorded(url, hop_delay, UrlKind::Page, None).await.result
    }

    /// [`Fetcher::fetch_paced`] of a `kind` URL, with the exchanges it made (when
    /// [`Fetcher::recording`]). Sitemaps and feeds are accepted in the XML, gzip and text media
    /// types of [`SOURCE_CONTENT_TYPES`] and up to [`MAX_SOURCE_BYTES`]. With `validators`
    /// the request is conditional; an unchanged page answers 304 without a body.
    pub async fn fetch_recorded(
        &self,
        url: &Url,
        hop_delay: Duration,
        kind: UrlKind,
        validators: Option<&Validators>,
    ) -> Recorded<FetchedPage> {
        let mut log = Vec::new();
        let conditional = validators.map(Validators::headers).unwrap_or_default();
        let result = self.fetch_logged(url, hop_delay, kind, &conditional, &mut log).await;
        Recorded { result, exchanges: log }
    }

    async fn fetch_logged(
        &self,
        url: &Url,
        hop_delay: Duration,
        kind: UrlKind,
        conditional: &[(&'static str, String)],
        log: &mut Vec<HttpExchange>,
    ) -> Result<FetchedPage, FetchError> {
        let start = Instant::now();
        let accept = if kind.is_page() { &self.accept } else { &self.source_accept };
        let ask = Ask { accept, conditional };
        let followed = self.follow(url, self.config.max_redirects, hop_delay, Hops::SameHost, ask, log).await?;
        let (hop, redirect) = match followed {
            Followed::Done(hop) => (hop, None),
            Followed::Elsewhere(hop, target) => (hop, Some(target)),
            Followed::TooMany(_) => {
                return Err(FetchError::TooManyRedirects { url: url.to_string(), max: self.config.max_redirects })
            }
            Followed::Bad { location, reason, .. } => {
                return Err(FetchError::BadRedirect { url: url.to_string(), location, reason })
            }
        };
        let Hop { url: final_url, response, paused, pending } = hop;
        let status = response.status().as_u16();
        let headers = response.headers();
        let content_type = header_string(headers, CONTENT_TYPE);
        let retry_after = header_string(headers, RETRY_AFTER);
        let validators =
            Validators { etag: header_string(headers, ETAG), last_modified: header_string(headers, LAST_MODIFIED) };
        let accepted = content_type.as_deref().is_none_or(|ct| accepts(accept, ct));
        // reqwest removes the header of the encodings it decoded (gzip, deflate).
        let encoding = header_string(headers, CONTENT_ENCODING).filter(|e| !e.eq_ignore_ascii_case("identity"));
        let refused = if redirect.is_some() {
            None
        } else if let (Some(encoding), true) = (encoding, accepted) {
            Some(FetchError::UnrequestedEncoding { url: url.to_string(), encoding })
        } else if !accepted && (200..300).contains(&status) {
            Some(FetchError::NotHtml { url: url.to_string(), content_type: content_type.clone().unwrap_or_default() })
        } else {
            None
        };
        // A sitemap's or feed's share of the source budget, reserved before its body is read.
        let mut reserved = None;
        let body = if let Some(e) = refused {
            if let Some(p) = pending {
                log.push(p.finish(Vec::new(), Some(Truncation::NotRead)));
            }
            return Err(e);
        } else if redirect.is_some() || !accepted {
            // Not needed for the page; a little of it is kept for the WARC output.
            if let Some(p) = pending {
                log.push(read_side_body(response, p).await);
            }
            Vec::new()
        } else {
            let limit = if kind.is_page() { self.config.max_body_bytes } else { MAX_SOURCE_BYTES };
            let declared = response.content_length();
            if !kind.is_page() && declared.is_none_or(|n| n <= limit) {
                reserved = Some(self.sources.reserve(declared).await);
            }
            match read_body(response, limit, BodyCap::Refuse).await {
                Ok((body, false)) => {
                    if let Some(p) = pending {
                        log.push(p.finish(body.clone(), None));
                    }
                    body
                }
                Ok((body, true)) => {
                    if let Some(p) = pending {
                        log.push(p.finish(body, Some(Truncation::Length)));
                    }
                    return Err(FetchError::BodyTooLarge { url: url.to_string(), limit });
                }
                Err(e) => return Err(FetchError::from_reqwest(url, e)),
            }
        };
        let budget = reserved.map(|share| budget::SourceBudget::keep(share, body.len()));
        Ok(FetchedPage {
            url: url.clone(),
            final_url,
            status,
            content_type,
            retry_after,
            validators,
            redirect,
            body,
            // Wall time of the requests only: the pauses between redirect hops are politeness,
            // not server slowness, and must not feed the adaptive delay. They are measured as
            // slept, not taken as asked: a timer wakes up to a millisecond or two late, and on a
            // fast server that lateness would otherwise count as response time, five times over.
            response_time: start.elapsed().saturating_sub(paused),
            fetched_at: SystemTime::now(),
            budget,
        })
    }

    /// Fetch `/robots.txt` of the scheme, host and port of `url_of_host` (its path is ignored),
    /// following up to five redirects to any http(s) URL.
    ///
    /// Returns the final status and the body (lossy UTF-8, cut at [`MAX_ROBOTS_BYTES`]);
    /// after too many or unusable redirects, the last 3xx status and an empty body (RFC 9309
    /// §2.3.1.2: unavailable).
    ///
    /// # Errors
    /// When the host did not answer (network error, timeout, [`FetchError::NameNotResolved`];
    /// the caller treats that as disallow-all, `robots::robots_outcome(None)`) or the address policy refused it
    /// ([`FetchError::Refused`], which no retry changes).
    pub async fn fetch_robots(&self, url_of_host: &Url) -> Result<(u16, String), FetchError> {
        self.fetch_robots_recorded(url_of_host).await.result
    }

    /// [`Fetcher::fetch_robots`] with the exchanges it made (when [`Fetcher::recording`]).
    pub async fn fetch_robots_recorded(&self, url_of_host: &Url) -> Recorded<(u16, String)> {
        let mut log = Vec::new();
        let result = self.fetch_robots_logged(url_of_host, &mut log).await;
        Recorded { result, exchanges: log }
    }

    async fn fetch_robots_logged(
        &self,
        url_of_host: &Url,
        log: &mut Vec<HttpExchange>,
    ) -> Result<(u16, String), FetchError> {
        let mut robots = url_of_host.clone();
        robots.set_path("/robots.txt");
        robots.set_query(None);
        robots.set_fragment(None);
        let redirects = self.config.max_redirects.max(ROBOTS_REDIRECTS);
        let ask = Ask { accept: &self.accept, conditional: &[] };
        match self.follow(&robots, redirects, Duration::ZERO, Hops::AnyHost, ask, log).await? {
            Followed::Done(hop) | Followed::Elsewhere(hop, _) => {
                let status = hop.response.status().as_u16();
                let (body, cut) = read_body(hop.response, MAX_ROBOTS_BYTES as u64, BodyCap::Truncate)
                    .await
                    .map_err(|e| FetchError::from_reqwest(&robots, e))?;
                let text = String::from_utf8_lossy(&body).into_owned();
                if let Some(p) = hop.pending {
                    log.push(p.finish(body, cut.then_some(Truncation::Length)));
                }
                Ok((status, text))
            }
            Followed::TooMany(status) | Followed::Bad { status, .. } => Ok((status, String::new())),
        }
    }

    /// GET `url`, following redirects by hand so each hop is checked; with
    /// [`Hops::SameHost`] a redirect to another host ends the loop.
    /// Every response that does not end the loop in [`Followed::Done`] or
    /// [`Followed::Elsewhere`] goes to `log` when recording.
    async fn follow(
        &self,
        url: &Url,
        max_redirects: u32,
        hop_delay: Duration,
        hops_to: Hops,
        ask: Ask<'_>,
        log: &mut Vec<HttpExchange>,
    ) -> Result<Followed, FetchError> {
        let accept_header = ask.accept.join(", ");
        let mut current = url.clone();
        let mut hops = 0u32;
        let mut paused = Duration::ZERO;
        loop {
            if hops > 0 && !hop_delay.is_zero() {
                let pause = Instant::now();
                tokio::time::sleep(hop_delay).await;
                paused += pause.elapsed();
            }
            let started = SystemTime::now();
            // The validators belong to the URL asked for, not to a redirect's target.
            let conditional = if hops == 0 { ask.conditional } else { &[] };
            let response = self.send(&current, url, &accept_header, conditional).await?;
            let pending = self.record.then(|| {
                let sent = Sent { user_agent: &self.config.user_agent, accept: &accept_header, conditional };
                Pending::new(&current, &response, started, &sent)
            });
            let status = response.status().as_u16();
            let location = response.headers().get(LOCATION).map(|l| String::from_utf8_lossy(l.as_bytes()).into_owned());
            let Some(location) = location.filter(|_| matches!(status, 301 | 302 | 303 | 307 | 308)) else {
                return Ok(Followed::Done(Hop { url: current, response, paused, pending }));
            };
            let next = match current.join(location.trim()) {
                Ok(next) if !matches!(next.scheme(), "http" | "https") || next.host_str().is_none() => {
                    Err("not an http(s) URL".to_string())
                }
                Ok(mut next) => {
                    next.set_fragment(None);
                    Ok(next)
                }
                Err(e) => Err(e.to_string()),
            };
            if let Ok(next) = &next {
                if hops_to == Hops::SameHost && host_key(next) != host_key(&current) {
                    return Ok(Followed::Elsewhere(Hop { url: current, response, paused, pending }, next.clone()));
                }
            }
            if let Some(p) = pending {
                log.push(read_side_body(response, p).await);
            }
            let next = match next {
                Ok(next) => next,
                Err(reason) => return Ok(Followed::Bad { status, location, reason }),
            };
            hops += 1;
            if hops > max_redirects {
                return Ok(Followed::TooMany(status));
            }
            tracing::trace!("{current} -> {status} {next}");
            current = next;
        }
    }

    /// Send one GET for `url`, through the `resolve` table when its host is listed, else
    /// after the address policy's check of an IP literal (names are checked when resolved).
    async fn send(
        &self,
        url: &Url,
        asked: &Url,
        accept: &str,
        conditional: &[(&'static str, String)],
    ) -> Result<reqwest::Response, FetchError> {
        let host = url.host_str().map(str::to_ascii_lowercase);
        let target = host.as_deref().and_then(|h| self.resolve.get(h)).and_then(|addr| resolved_url(url, *addr));
        let request = match target {
            Some(target) => {
                let host_header = host_key(url).unwrap_or_default();
                self.client.get(target).header(HOST, host_header)
            }
            None => {
                if let Err(e) = self.policy.check_url(url) {
                    return Err(FetchError::Refused { url: asked.to_string(), reason: e.to_string() });
                }
                self.client.get(url.clone())
            }
        };
        let mut request = if accept.is_empty() { request } else { request.header(ACCEPT, accept) };
        for (name, value) in conditional {
            request = request.header(*name, value);
        }
        request.send().await.map_err(|e| FetchError::from_reqwest(asked, e))
    }
}

/// Is the media type of `content_type` in `accept`? An empty header counts as missing, i.e.
/// accepted.
fn accepts(accept: &[String], content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence.is_empty() || accept.contains(&essence)
}

/// What a request asks for besides the URL.
#[derive(Clone, Copy)]
struct Ask<'a> {
    /// Accepted media types.
    accept: &'a [String],
    /// Conditional headers for the first hop.
    conditional: &'a [(&'static str, String)],
}

/// Which redirect hops [`Fetcher::follow`] takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hops {
    /// Only to the same host (`host[:port]`); pages.
    SameHost,
    /// To any host (robots.txt, RFC 9309 §2.3.1.2); each hop still passes the address policy.
    AnyHost,
}

/// `http://addr/path?query` for a host in the `resolve` table.
fn resolved_url(url: &Url, addr: SocketAddr) -> Option<Url> {
    let mut target = Url::parse(&format!("http://{addr}/")).ok()?;
    target.set_path(url.path());
    target.set_query(url.query());
    Some(target)
}

/// A header as a string (lossy for non-UTF-8 bytes); `None` when absent.
fn header_string(headers: &HeaderMap, name: reqwest::header::HeaderName) -> Option<String> {
    headers.get(name).map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
}

/// What [`read_body`] does at the size limit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BodyCap {
    /// Stop and report the body as too large (pages).
    Refuse,
    /// Keep the first `limit` bytes (robots.txt).
    Truncate,
}

/// The exchange of a response whose body the crawl does not need (a redirect, an error page):
/// up to [`SIDE_BODY_BYTES`] of it, marked truncated beyond (or when it cannot be read).
async fn read_side_body(response: reqwest::Response, pending: Pending) -> HttpExchange {
    match read_body(response, SIDE_BODY_BYTES, BodyCap::Truncate).await {
        Ok((body, cut)) => pending.finish(body, cut.then_some(Truncation::Length)),
        Err(_) => pending.finish(Vec::new(), Some(Truncation::NotRead)),
    }
}

/// Stream the body up to `limit` bytes. Returns the bytes and whether the limit was exceeded.
/// With [`BodyCap::Refuse`] a `Content-Length` over the limit is refused before reading and the
/// bytes returned with `true` are meaningless; with [`BodyCap::Truncate`] they are the first
/// `limit` bytes.
async fn read_body(
    mut response: reqwest::Response,
    limit: u64,
    cap: BodyCap,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let declared = response.content_length();
    if cap == BodyCap::Refuse && declared.is_some_and(|n| n > limit) {
        return Ok((Vec::new(), true));
    }
    let limit_usize = usize::try_from(limit).unwrap_or(usize::MAX);
    let capacity = declared.unwrap_or(16 * 1024).min(limit).min(1 << 20) as usize;
    let mut body = Vec::with_capacity(capacity);
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
        if body.len() > limit_usize {
            body.truncate(limit_usize);
            return Ok((body, true));
        }
    }
    Ok((body, false))
}

#[cfg(test)]
mod tests;
