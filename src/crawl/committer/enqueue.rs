//! The frontier side of the [`Committer`]: the seen set of the group in progress, and every
//! URL put on the frontier — links of a page ([`Committer::enqueue_links`]), a redirect's target,
//! a host's sitemaps and feeds — once the admission rule ([`admit`]) took it, and under the
//! per-host cap.
//! Where the URL goes is the frontier backend's choice ([`Committer::queue_url`]): this
//! worker's frontier, or forwarded (a cluster crawl's partition streams).

use super::Committer;
use crate::crawl::frontier::admission::{admit, AdmissionRules, Admitted, UrlOrigin};
use crate::crawl::frontier::NewUrl;
use crate::crawl::robots::{RobotsEntry, RobotsStatus};
use crate::crawl::CrawlError;
use crate::store::{FrontierEntry, HostRecord, UrlKind};
use url::Url;

impl Committer {
    /// Mark `url` seen in the group in progress and in its store batch.
    pub(super) fn mark_seen(&mut self, url: &str) {
        self.group.mark_seen(url);
    }

    /// Whether `url` was seen by this crawl (committed or in the group in progress).
    pub(super) fn is_seen(&self, url: &str) -> Result<bool, CrawlError> {
        Ok(self.group.has_seen(url) || self.state.is_seen(url)?)
    }

    /// Whether `url`, found from `origin` by a host whose seed is `seed`, is admitted to the
    /// frontier ([`admit`]; seen in this crawl includes the group in progress).
    fn admitted(&self, url: &Url, origin: UrlOrigin, seed: &Url) -> Result<Option<Admitted>, CrawlError> {
        let rules = AdmissionRules { crawl: &self.crawl, addresses: &self.addresses };
        Ok(admit(url, origin, seed, &rules, |u| self.is_seen(u))?.ok())
    }

    /// Queue the target of a redirect to another host. From a seed (depth 0) the target is
    /// a seed of its own, so `http://example.org/` moving to `https://www.example.org/` is
    /// crawled (Heritrix: redirected seeds are seeds); from any other page it is a link, in
    /// scope or not.
    pub(super) fn enqueue_redirect(&mut self, host: &str, from: &FrontierEntry, target: Url) -> Result<(), CrawlError> {
        if from.depth > 0 {
            return self.enqueue_links(host, from, &[target]);
        }
        // The target is a seed itself: its own seed.
        let Some(a) = self.admitted(&target, UrlOrigin::SeedRedirect, &target)? else { return Ok(()) };
        let new_seed = a.url.as_str();
        self.queue_url(NewUrl { target: &a.host, url: &a.url, depth: 0, kind: UrlKind::Page, new_seed, cap: u64::MAX })
    }

    /// The sitemaps of a host whose robots.txt came: its `Sitemap:` lines, else its
    /// `/sitemap.xml` (when robots.txt was readable or absent). Each is queued once per crawl
    /// (the seen set), so a refreshed robots.txt adds only new ones.
    pub(super) fn enqueue_sitemaps(&mut self, host: &str, robots: &RobotsEntry) -> Result<(), CrawlError> {
        if robots.status == RobotsStatus::DisallowAll {
            return Ok(());
        }
        let Ok(seed) = Url::parse(&self.book(host).rec.seed) else { return Ok(()) };
        let Ok(origin) = seed.join("/robots.txt") else { return Ok(()) };
        let listed = robots.body.as_deref().map(sitemap_lines).unwrap_or_default();
        let sitemaps = if listed.is_empty() { vec!["/sitemap.xml".to_string()] } else { listed };
        for sitemap in sitemaps {
            if let Ok(url) = origin.join(&sitemap) {
                self.queue_source(host, &url, UrlKind::Sitemap, 0)?;
            }
        }
        Ok(())
    }

    /// Queue a sitemap or feed found by `host` (its robots.txt, a sitemap index, a seed page)
    /// when it is in the crawl's scope, allowed and unseen; `depth` is its sitemap nesting.
    pub(super) fn queue_source(&mut self, host: &str, url: &Url, kind: UrlKind, depth: u32) -> Result<(), CrawlError> {
        let seed_text = self.book(host).rec.seed.clone();
        let Ok(seed) = Url::parse(&seed_text) else { return Ok(()) };
        let Some(a) = self.admitted(url, UrlOrigin::Source, &seed)? else { return Ok(()) };
        let cap = self.crawl.max_pages_per_host;
        self.queue_url(NewUrl { target: &a.host, url: &a.url, depth, kind, new_seed: &seed_text, cap })
    }

    /// Put `new.url` on the frontier of `new.target`, unless the host has `new.cap` URLs queued
    /// already. A host new to the crawl gets a record with the seed `new.new_seed`. The backend
    /// may forward the URL instead ([`FrontierBackend::forward`](crate::crawl::frontier::FrontierBackend::forward)).
    pub(super) fn queue_url(&mut self, new: NewUrl<'_>) -> Result<(), CrawlError> {
        if self.frontier.forward(new) {
            self.group.open();
            return Ok(());
        }
        self.queue_local(new, None).map(|_| ())
    }

    /// [`Committer::queue_url`] on this worker's frontier, with the tag of its delivery when
    /// the backend delivered it. Returns false when the host's cap refused it.
    pub(super) fn queue_local(&mut self, new: NewUrl<'_>, stream: Option<String>) -> Result<bool, CrawlError> {
        let NewUrl { target, url, depth, kind, new_seed, cap } = new;
        if !self.hosts.contains_key(target) {
            let rec = match self.state.host(target)? {
                Some(r) => r,
                None => HostRecord { host: target.to_string(), seed: new_seed.to_string(), ..HostRecord::default() },
            };
            self.book(target).rec = rec;
        }
        let book = self.book(target);
        if book.rec.enqueued >= cap {
            return Ok(false);
        }
        book.rec.enqueued += 1;
        let seed = book.rec.seed.clone();
        let entry = FrontierEntry { url: url.to_string(), depth, seq: 0, kind, validators: None, stream };
        self.group.push_frontier(target, entry, seed);
        Ok(true)
    }

    /// Queue the admitted links of a page (depth + 1, per-host cap); new hosts get a record
    /// with the linking host's seed (scope is relative to it).
    pub(super) fn enqueue_links(&mut self, host: &str, from: &FrontierEntry, links: &[Url]) -> Result<(), CrawlError> {
        let depth = from.depth + 1;
        if depth > self.crawl.max_depth || links.is_empty() {
            return Ok(());
        }
        let seed_text = self.book(host).rec.seed.clone();
        let Ok(seed) = Url::parse(&seed_text) else { return Ok(()) };
        let cap = self.crawl.max_pages_per_host;
        for link in links {
            let Some(a) = self.admitted(link, UrlOrigin::Link { depth }, &seed)? else { continue };
            let kind = UrlKind::Page;
            self.queue_url(NewUrl { target: &a.host, url: &a.url, depth, kind, new_seed: &seed_text, cap })?;
        }
        Ok(())
    }
}

/// The URLs of a robots.txt's `Sitemap:` lines (sitemaps.org; any group, case-insensitive).
fn sitemap_lines(robots: &str) -> Vec<String> {
    robots
        .lines()
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or("").trim();
            let (key, value) = line.split_once(':')?;
            (key.trim().eq_ignore_ascii_case("sitemap") && !value.trim().is_empty()).then(|| value.trim().to_string())
        })
        .collect()
}
