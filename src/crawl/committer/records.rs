//! From a page's extraction to its corpus record, as the [`Committer`] applies it: the
//! model's use counted for its host (and watched, [`Committer::watch_model`]), the page class,
//! Onion's paragraph dedup against everything written, the language filter, then the record
//! appended. Every page that gets no record is counted as a [`Discard`] with its reason.

use super::pages::PageMeta;
use super::Committer;
use crate::classify::{PageClass, PageType};
use crate::crawl::messages::Discard;
use crate::crawl::record::{record_of, RecordSource};
use crate::crawl::CrawlError;
use crate::extract::pipeline::{ModelUse, PageExtraction};
use crate::extract::ExtractError;

impl Committer {
    /// Dedup `extraction` against everything written (in memory) and append its record. A
    /// page without a record is counted as a discard with its reason; a page with main text
    /// is counted as article or other, and with `drop_non_article` an "other" page is the
    /// discard `not_article`.
    pub(super) fn add_extraction(
        &mut self,
        host: &str,
        meta: &PageMeta<'_>,
        extraction: Result<PageExtraction, ExtractError>,
        class: Option<PageClass>,
    ) -> Result<(), CrawlError> {
        let mut ex = match extraction {
            Ok(ex) => ex,
            Err(ExtractError::PatternNotFound { .. }) => {
                self.discard(host, Discard::NoGoldminerPattern);
                return Ok(());
            }
            Err(e) => {
                tracing::warn!(url = %crate::crawl::url::for_log(meta.url), "extraction failed: {e}");
                self.discard(host, Discard::ExtractionError);
                return Ok(());
            }
        };
        match ex.model_use {
            ModelUse::None => {}
            ModelUse::Applied => self.book(host).rec.model_matched += 1,
            ModelUse::Unmatched => self.book(host).rec.model_unmatched += 1,
            ModelUse::Rejected => {
                self.book(host).rec.model_rejected += 1;
                self.counters.model_rejected += 1;
            }
        }
        if let Some(share) = ex.model_share.filter(|&share| share < crate::extract::pipeline::MODEL_MIN_WORD_SHARE) {
            let rejected = u64::from(ex.model_use == ModelUse::Rejected);
            self.counters.model_halved += 1;
            self.counters.model_halved_rejected += rejected;
            let rec = &mut self.book(host).rec;
            rec.model_halved += 1;
            rec.model_halved_rejected += rejected;
            if rec.model_halved_pages.len() < crate::store::MODEL_HALVED_LISTED {
                rec.model_halved_pages.push((meta.url.to_string(), share));
            }
        }
        if let Some(generation) = ex.model_generation {
            let missed = ex.model_use != ModelUse::Applied;
            self.learning(host, crate::domain::LearningEvent::Extracted { generation, missed })?;
        }
        if !ex.has_running_text() {
            self.discard(host, Discard::NoMainText);
            return Ok(());
        }
        match class.map(|c| c.page_type) {
            Some(PageType::Article) => {
                self.book(host).rec.articles += 1;
                self.counters.articles += 1;
            }
            Some(PageType::Other) => {
                self.book(host).rec.others += 1;
                self.counters.others += 1;
                if self.drop_non_article {
                    self.discard(host, Discard::NotArticle);
                    return Ok(());
                }
            }
            None => {}
        }
        let outcome = self.sink.dedup(&ex.paragraphs)?;
        self.counters.duplicate_paragraphs += outcome.dropped as u64;
        if outcome.all_dropped() {
            self.discard(host, Discard::AllDuplicate);
            return Ok(());
        }
        let warc = meta.warc.as_ref();
        let source = RecordSource {
            url: meta.url,
            final_url: meta.final_url,
            host,
            fetched_at: meta.fetched_at,
            http_status: Some(meta.status),
            content_type: meta.content_type.clone(),
            warc_record_id: warc.map(|w| w.record_id.clone()),
            warc_file: warc.map(|w| w.file.clone()),
            warc_offset: warc.map(|w| w.offset),
        };
        let kept = ex.take_paragraphs(Some(&outcome.kept_mask));
        let record = record_of(source, ex, class, kept);
        if !self.crawl.keeps_language(record.lang.as_deref()) {
            self.discard(host, Discard::WrongLanguage);
            return Ok(());
        }
        self.sink.append(&record, &outcome.new_hashes)?;
        self.counters.records += 1;
        self.counters.paragraphs += record.paragraphs.len() as u64;
        let rec = &mut self.book(host).rec;
        rec.written += 1;
        rec.text_bytes += record.text.len() as u64;
        rec.words += record.word_count;
        Ok(())
    }
}
