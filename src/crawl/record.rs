//! The corpus record of a page: `record_of` builds it from where the page came from, its
//! extraction and page class, and the paragraphs Onion kept — for the crawl's committer and for
//! `extract --per-site` alike, so both write the same records.

use crate::classify::PageClass;
use crate::extract::pipeline::PageExtraction;
use crate::model::{join_paragraphs, Record};

/// Where a corpus record's page came from, besides its extraction.
pub(crate) struct RecordSource<'a> {
    pub(crate) url: &'a str,
    pub(crate) final_url: &'a str,
    pub(crate) host: &'a str,
    pub(crate) fetched_at: &'a str,
    pub(crate) http_status: Option<u16>,
    pub(crate) content_type: Option<String>,
    pub(crate) warc_record_id: Option<String>,
    pub(crate) warc_file: Option<String>,
    pub(crate) warc_offset: Option<u64>,
}

/// The corpus record of a page: its source, its extraction and page class, and the paragraphs
/// Onion kept (the crawl's and `extract --per-site`'s records are built here alike).
pub(crate) fn record_of(
    source: RecordSource<'_>,
    ex: PageExtraction,
    class: Option<PageClass>,
    kept: Vec<crate::model::Paragraph>,
) -> Record {
    // The language of what the record holds: Onion has dropped the paragraphs seen before
    // (a translated page's untranslated template lines among them).
    let text = join_paragraphs(&kept);
    let lang = crate::extract::stoplist::document_language(&text);
    let lang_code = lang.as_ref().map(|l| l.code.clone());
    Record {
        id: crate::model::record_id(source.final_url),
        url: source.url.to_string(),
        final_url: source.final_url.to_string(),
        host: source.host.to_string(),
        title: ex.title,
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
        page_type: class.map(|c| c.page_type),
        page_type_prob: class.map(|c| c.prob),
        warc_record_id: source.warc_record_id,
        warc_file: source.warc_file,
        warc_offset: source.warc_offset,
    }
}
