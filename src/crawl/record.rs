//! The corpus record of a page: `record_of` builds it from where the page came from, its
//! extraction and page class, and the paragraphs Onion kept — for the crawl's committer and for
//! `extract --per-site` and `extract` alike, so all three write the same records.

use crate::classify::PageClass;
use crate::extract::pipeline::PageExtraction;
use crate::model::{join_paragraphs, Record};

/// Where a corpus record's page came from, besides its extraction (the fields of
/// [`Record`] of the same names; empty strings for a local file without URL or fetch time).
pub struct RecordSource<'a> {
    /// The URL requested.
    pub url: &'a str,
    /// The URL after redirects.
    pub final_url: &'a str,
    /// The host of `url`.
    pub host: &'a str,
    /// RFC 3339 time of the fetch.
    pub fetched_at: &'a str,
    /// The final HTTP status.
    pub http_status: Option<u16>,
    /// The response's `Content-Type` as sent.
    pub content_type: Option<String>,
    /// `WARC-Record-ID` of the page's response record.
    pub warc_record_id: Option<String>,
    /// The WARC file holding it.
    pub warc_file: Option<String>,
    /// Byte offset of its gzip member in `warc_file`.
    pub warc_offset: Option<u64>,
}

impl<'a> RecordSource<'a> {
    /// A page known only by its URL (`url` and `final_url`; empty for a local file) and that
    /// URL's `host`: no fetch time, status or WARC record (`webcorpus extract` on a file, the
    /// Python package).
    pub fn page(url: &'a str, host: &'a str) -> RecordSource<'a> {
        RecordSource {
            url,
            final_url: url,
            host,
            fetched_at: "",
            http_status: None,
            content_type: None,
            warc_record_id: None,
            warc_file: None,
            warc_offset: None,
        }
    }

    /// A page read from a WARC file named `file` ([`WarcPage`]): `url` the URL first requested
    /// where the file holds the redirects to it, `final_url` its response's URL, the record's
    /// date, status, content type, id and offset.
    ///
    /// [`WarcPage`]: crate::extract::warc_input::WarcPage
    pub fn warc_page(
        page: &'a crate::extract::warc_input::WarcPage,
        host: &'a str,
        file: Option<String>,
    ) -> RecordSource<'a> {
        RecordSource {
            url: page.requested_url.as_deref().unwrap_or(&page.url),
            final_url: &page.url,
            host,
            fetched_at: page.date.as_deref().unwrap_or_default(),
            http_status: Some(page.status),
            content_type: page.content_type.clone(),
            warc_record_id: Some(page.record_id.clone()),
            warc_file: file,
            warc_offset: page.offset,
        }
    }
}

/// The corpus record of a page: its source, its extraction and page class, and the paragraphs
/// Onion kept (`kept`: [`PageExtraction::take_paragraphs`] of `ex`, all of its paragraphs where
/// nothing is deduplicated). The crawl's, `extract --per-site`'s and `extract`'s records are
/// built here alike.
pub fn record_of(
    source: RecordSource<'_>,
    ex: PageExtraction,
    class: Option<PageClass>,
    kept: Vec<crate::model::Paragraph>,
) -> Record {
    // The language of what the record holds: Onion has dropped the paragraphs seen before
    // (a translated page's untranslated template lines among them).
    let text = join_paragraphs(&kept);
    let lang = match &ex.text_language {
        // The text the extraction detected is the record's (`PageExtraction::take_paragraphs`).
        Some(detected) => detected.document(),
        None => crate::extract::stoplist::document_language(&text),
    };
    let lang_code = lang.as_ref().map(|l| l.code.clone());
    Record {
        id: crate::model::record_id(source.final_url),
        url: source.url.to_string(),
        final_url: source.final_url.to_string(),
        host: source.host.to_string(),
        title: ex.title,
        headline: ex.headline,
        fetched_at: source.fetched_at.to_string(),
        http_status: source.http_status,
        content_type: source.content_type,
        date: ex.metadata.date,
        author: ex.metadata.author,
        language: ex.language,
        lang_score: lang.as_ref().map(|l| l.score),
        lang: lang.map(|l| l.code),
        extractor: ex.extractor.to_string(),
        word_count: crate::write::tokenize::word_count(&text, lang_code.as_deref()),
        text,
        paragraph_kinds: kept.iter().map(|p| p.kind).collect(),
        paragraphs: kept,
        comments: ex.comments,
        page_type: class.map(|c| c.page_type),
        page_type_prob: class.map(|c| c.prob),
        warc_record_id: source.warc_record_id,
        warc_file: source.warc_file,
        warc_offset: source.warc_offset,
    }
}

/// One page extracted alone ([`page_record`]): its corpus record, how the host's model took
/// part, and the decision of every text block.
pub struct PageRecord {
    /// The record, as `webcorpus extract` writes it.
    pub record: Record,
    /// How the model took part (`ModelUse::None` without one).
    pub model_use: crate::extract::pipeline::ModelUse,
    /// Which stage of the pipeline kept or dropped each text block.
    pub trace: crate::extract::trace::PageTrace,
}

/// One page extracted alone into its corpus record, as `webcorpus extract` writes it: `html`
/// decoded, `source` where it came from (`source.url` also feeds the page classifier's URL
/// features; empty for a local file), `kind` the extractor, `model` the host's model if any.
/// Nothing is deduplicated: the record holds every kept paragraph, headings-only pages
/// included. Returns the record, how the model took part and the block decisions.
///
/// # Errors
/// The extractor's [`crate::extract::ExtractError`].
pub fn page_record(
    html: &str,
    source: RecordSource<'_>,
    kind: crate::extract::ExtractorKind,
    model: Option<&crate::domain::DomainModel>,
    settings: &crate::extract::pipeline::ExtractSettings,
    classifier: &crate::classify::PageClassifier,
) -> Result<PageRecord, crate::extract::ExtractError> {
    let url = (!source.url.is_empty()).then_some(source.url);
    let (mut ex, features) = crate::classify::extract_with_features(html, url, kind, model, settings)?;
    let class = classifier.page_class(&features);
    let model_use = ex.model_use;
    let trace = std::mem::take(&mut ex.trace);
    let kept = ex.take_paragraphs(None);
    Ok(PageRecord { record: record_of(source, ex, Some(class), kept), model_use, trace })
}
