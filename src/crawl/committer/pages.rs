//! The committer's step 1 for one page: a dispatched page's outcome applied in its host's
//! fetch order — its frontier entry done, its discard counted, its redirect, links, feeds
//! and sitemap URLs queued, then its record written, or its HTML kept for the host's sample —
//! and a page that waited for its host's model written once extracted.

use super::Committer;
use crate::crawl::messages::{Discard, PageContent, PageDone, PageResult, PageWork, WaitingDone};
use crate::crawl::sources::MAX_SITEMAP_DEPTH;
use crate::crawl::CrawlError;
use crate::domain::LearningEvent;
use crate::store::{FetchedPageEntry, FrontierEntry, SampledPage, UrlKind};
use crate::write::warc::WarcRef;
use url::Url;

/// What a fetched page's response left to book, once its status is known.
struct Response {
    final_url: Url,
    status: u16,
    fetched_at: String,
    content_type: Option<String>,
    warc: Option<WarcRef>,
}

/// Where a record came from.
pub(super) struct PageMeta<'a> {
    pub(super) url: &'a str,
    pub(super) final_url: &'a str,
    pub(super) fetched_at: &'a str,
    pub(super) status: u16,
    pub(super) content_type: Option<String>,
    pub(super) warc: Option<WarcRef>,
}

impl Committer {
    pub(super) fn discard(&mut self, host: &str, why: Discard) {
        let key = why.key();
        *self.book(host).rec.discards.entry(key.clone()).or_default() += 1;
        *self.counters.discards.entry(key).or_default() += 1;
    }

    /// Step 1: one dispatched page, in its host's fetch order.
    pub(super) fn apply_page(&mut self, done: PageDone) -> Result<(), CrawlError> {
        let PageDone { host, entry, result, exchanges, .. } = done;
        let warc = self.write_exchanges(&exchanges)?;
        self.group.page(&host);
        let (final_url, status, fetched_at, content_type, work) = match result {
            PageResult::RobotsDisallowed => {
                self.group.batch.pop_frontier(&host, entry.seq);
                self.finish_url(&entry.url, entry.stream.as_deref());
                self.counters.robots_disallowed += 1;
                self.discard(&host, Discard::RobotsDisallowed);
                return Ok(());
            }
            PageResult::FetchFailed { reason } => {
                self.group.batch.pop_frontier(&host, entry.seq);
                self.finish_url(&entry.url, entry.stream.as_deref());
                self.counters.failed += 1;
                self.discard(&host, Discard::Fetch(reason));
                self.note_error(&entry.url, reason.to_string());
                return Ok(());
            }
            PageResult::Retry => {
                self.counters.fetched += 1;
                self.book(&host).rec.fetched += 1;
                return Ok(());
            }
            PageResult::Fetched {
                final_url,
                status,
                fetched_at,
                content_type,
                body_bytes,
                response_ms,
                delay_ms,
                work,
                redirect,
                validators,
            } => {
                if let Some(target) = redirect {
                    self.enqueue_redirect(&host, &entry, target)?;
                }
                if (200..300).contains(&status) {
                    // The URL the validators belong to: after redirects.
                    let (url, depth, kind) = (final_url.to_string(), entry.depth, entry.kind);
                    let page = FetchedPageEntry { url, host: host.clone(), depth, validators, kind };
                    self.group.batch.put_fetched_page(&page);
                }
                let rec = &mut self.book(&host).rec;
                rec.body_bytes += body_bytes;
                rec.response_ms += response_ms;
                rec.delay_ms = delay_ms;
                (final_url, status, fetched_at, content_type, work)
            }
        };
        self.counters.fetched += 1;
        let book = self.book(&host);
        book.rec.fetched += 1;
        book.rec.dead = false;
        self.group.batch.pop_frontier(&host, entry.seq);
        if final_url.as_str() != entry.url {
            self.mark_seen(final_url.as_str());
            self.finish_url(final_url.as_str(), None);
        }
        // A page kept for the sample is finished when its record is written.
        let waits = (200..300).contains(&status)
            && status != 304
            && matches!(&work, Some(w) if matches!(w.content, PageContent::Waiting { .. }));
        if !waits {
            self.finish_url(&entry.url, entry.stream.as_deref());
        }
        let work = match work {
            _ if status == 304 => {
                self.discard(&host, Discard::NotModified);
                return Ok(());
            }
            _ if !(200..300).contains(&status) && !entry.kind.is_page() => {
                self.discard(&host, Discard::SourceUnavailable(entry.kind));
                return Ok(());
            }
            _ if !(200..300).contains(&status) => {
                if status >= 500 {
                    self.note_error(&entry.url, Discard::Http(status).key());
                }
                self.discard(&host, Discard::Http(status));
                return Ok(());
            }
            None => {
                self.note_error(&entry.url, Discard::ProcessingFailed.key());
                self.discard(&host, Discard::ProcessingFailed);
                return Ok(());
            }
            Some(work) => work,
        };
        let response = Response { final_url, status, fetched_at, content_type, warc };
        self.apply_work(&host, &entry, response, work)
    }

    /// A page whose record must wait behind its host's waiting pages (records keep the fetch
    /// order): its links and feeds are queued now, so that they are fetchable at the host's
    /// next due time and the page waits in memory without them (the host's URLs stay in fetch
    /// order: a waiting page queued its own when it was fetched). Its frontier entry, WARC
    /// exchanges and record follow when it is applied ([`Committer::apply_page`]); a crash
    /// before that fetches it again, and its links are seen by then.
    pub(super) fn queue_found_urls(&mut self, host: &str, done: &mut PageDone) -> Result<(), CrawlError> {
        let PageResult::Fetched { final_url, status, work: Some(work), .. } = &mut done.result else {
            return Ok(());
        };
        if !(200..300).contains(status) || *status == 304 {
            return Ok(());
        }
        if final_url.as_str() != done.entry.url {
            self.mark_seen(final_url.as_str());
        }
        let (links, feeds) = (std::mem::take(&mut work.links), std::mem::take(&mut work.feeds));
        self.enqueue_links(host, &done.entry, &links)?;
        for feed in &feeds {
            self.queue_source(host, feed, UrlKind::Feed, 0)?;
        }
        Ok(())
    }

    /// A 2xx page's worker output: its links and feeds queued, then its record, its sitemap's
    /// URLs, its discard, or its HTML kept for the host's sample (a learn job once the sample
    /// is full).
    fn apply_work(
        &mut self,
        host: &str,
        entry: &FrontierEntry,
        response: Response,
        work: PageWork,
    ) -> Result<(), CrawlError> {
        let Response { final_url, status, fetched_at, content_type, warc } = response;
        self.enqueue_links(host, entry, &work.links)?;
        for feed in &work.feeds {
            self.queue_source(host, feed, UrlKind::Feed, 0)?;
        }
        match work.content {
            PageContent::Source(urls, _budget) => {
                match entry.kind {
                    UrlKind::Feed => self.counters.feeds += 1,
                    _ => self.counters.sitemaps += 1,
                }
                self.counters.source_urls += urls.pages.len() as u64;
                self.enqueue_links(host, entry, &urls.pages)?;
                if entry.depth + 1 < MAX_SITEMAP_DEPTH {
                    for sitemap in &urls.sitemaps {
                        self.queue_source(host, sitemap, UrlKind::Sitemap, entry.depth + 1)?;
                    }
                }
            }
            PageContent::Failed => {
                self.note_error(&entry.url, Discard::ProcessingFailed.key());
                self.discard(host, Discard::ProcessingFailed);
            }
            PageContent::Refused(why) => self.discard(host, why),
            PageContent::Extracted(extraction, class) => {
                let meta = PageMeta {
                    url: &entry.url,
                    final_url: final_url.as_str(),
                    fetched_at: &fetched_at,
                    status,
                    content_type,
                    warc,
                };
                self.add_extraction(host, &meta, *extraction, class)?;
            }
            PageContent::Waiting { html, answer } => {
                let seq = self.group.batch.next_seq();
                let page = SampledPage {
                    seq,
                    url: entry.url.clone(),
                    final_url: final_url.to_string(),
                    fetched_at,
                    status,
                    content_type,
                    html,
                    answer,
                    warc,
                    stream: entry.stream.clone(),
                };
                self.hold_for_sample(host, &page)?;
            }
        }
        Ok(())
    }

    /// A page of a host without a model yet: its HTML waits in the state, and the learn job is
    /// queued when it fills the host's sample.
    fn hold_for_sample(&mut self, host: &str, page: &SampledPage) -> Result<(), CrawlError> {
        self.group.batch.put_waiting(host, page)?;
        self.learning(host, LearningEvent::PageHeld)
    }

    /// A page that waited for its host's model, extracted: its record and the deletion of its
    /// HTML go into the same group.
    pub(super) fn apply_waiting(&mut self, host: &str, page: WaitingDone) -> Result<(), CrawlError> {
        self.touch(host);
        self.group.batch.delete_waiting(host, page.seq);
        self.finish_url(&page.url, page.stream.as_deref());
        self.learning(host, LearningEvent::WaitingWritten)?;
        let meta = PageMeta {
            url: &page.url,
            final_url: &page.final_url,
            fetched_at: &page.fetched_at,
            status: page.status,
            content_type: page.content_type,
            warc: page.warc,
        };
        self.add_extraction(host, &meta, page.extraction, page.class)
    }
}

pub(super) fn is_extracted(done: &PageDone) -> bool {
    matches!(&done.result, PageResult::Fetched { work: Some(w), .. } if matches!(w.content, PageContent::Extracted(..)))
}
