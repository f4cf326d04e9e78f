//! Fetch tasks: one request for one host, run on the async runtime; the CPU work on the
//! response (decode, parse, links, extraction, page classification) runs on the blocking pool, so a slow page
//! slows its own host, not the scheduler. A task never touches the store: it returns a
//! [`TaskResult`] to the scheduler, which commits it through the [`Sink`](super::sink::Sink).

use crate::classify::{PageClass, PageClassifier};
use crate::crawl::fetch::{FetchError, FetchedPage, Fetcher};
use crate::domain::DomainModel;
use crate::extract::pipeline::{extract_document, ExtractSettings, PageExtraction};
use crate::extract::{ExtractError, ExtractorKind};
use crate::html::{decode_html, links::extract_links, segment, Document};
use crate::store::FrontierEntry;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// What to do with a page's text once fetched.
#[derive(Clone)]
pub enum PageMode {
    /// The host is still sampling: keep the decoded HTML, extract nothing yet.
    Sample,
    /// Extract now, with the host's model if it has one (jusText alone otherwise).
    Extract(Option<Arc<DomainModel>>),
}

/// The CPU work done on a 2xx HTML response.
pub struct PageWork {
    /// Decoded HTML (kept for the sample; dropped otherwise).
    pub html: Option<String>,
    /// Links found on the page (absolute, fragment-free).
    pub links: Vec<Url>,
    /// The extraction, in [`PageMode::Extract`].
    pub extraction: Option<Result<PageExtraction, ExtractError>>,
    /// The page classifier's verdict on a successful extraction.
    pub page_class: Option<PageClass>,
    /// True when the decoder replaced malformed bytes (wrong charset).
    pub charset_errors: bool,
}

/// A finished task.
pub enum TaskResult {
    /// A robots.txt fetch: `None` when the host did not answer.
    Robots {
        /// Host key.
        host: String,
        /// Status and body.
        result: Option<(u16, String)>,
        /// Wall time of the request.
        response_time: Duration,
    },
    /// A page fetch.
    Page {
        /// Host key.
        host: String,
        /// The frontier entry fetched.
        entry: FrontierEntry,
        /// The response (boxed: it holds the body), or why there is none.
        fetch: Result<Box<FetchedPage>, FetchError>,
        /// Decode/parse/extract output for 2xx responses (boxed: it holds the page).
        work: Option<Box<PageWork>>,
        /// Wall time of the request.
        response_time: Duration,
    },
}

/// Fetch robots.txt of the host of `url`.
pub async fn robots_task(fetcher: Arc<Fetcher>, host: String, url: Url) -> TaskResult {
    let start = Instant::now();
    let result = fetcher.fetch_robots(&url).await;
    TaskResult::Robots { host, result, response_time: start.elapsed() }
}

/// What the CPU work of a page needs besides the page: extractor, settings, classifier.
#[derive(Clone)]
pub struct PageTools {
    /// The extractor.
    pub kind: ExtractorKind,
    /// Its settings.
    pub settings: Arc<ExtractSettings>,
    /// The article-vs-other classifier.
    pub classifier: Arc<PageClassifier>,
}

/// Fetch one page (waiting `hop_delay` before each redirect hop) and do its CPU work.
pub async fn page_task(
    fetcher: Arc<Fetcher>,
    host: String,
    entry: FrontierEntry,
    mode: PageMode,
    tools: PageTools,
    hop_delay: Duration,
) -> TaskResult {
    let start = Instant::now();
    let fetch = match Url::parse(&entry.url) {
        Ok(url) => fetcher.fetch_paced(&url, hop_delay).await,
        Err(e) => Err(FetchError::Other { url: entry.url.clone(), message: format!("bad URL: {e}") }),
    };
    let response_time = fetch.as_ref().map_or_else(|_| start.elapsed(), |page| page.response_time);
    let work = match &fetch {
        Ok(page) if (200..300).contains(&page.status) => {
            let body = page.body.clone();
            let content_type = page.content_type.clone();
            let final_url = page.final_url.clone();
            let job = move || page_work(&body, content_type.as_deref(), &final_url, mode, &tools);
            match tokio::task::spawn_blocking(job).await {
                Ok(work) => Some(Box::new(work)),
                Err(e) => {
                    tracing::error!(url = entry.url, "page processing panicked: {e}");
                    None
                }
            }
        }
        _ => None,
    };
    TaskResult::Page { host, entry, fetch: fetch.map(Box::new), work, response_time }
}

/// Decode, parse, collect links and (in extract mode) extract and classify one page. Pure
/// CPU work.
pub fn page_work(
    body: &[u8],
    content_type: Option<&str>,
    final_url: &Url,
    mode: PageMode,
    tools: &PageTools,
) -> PageWork {
    let decoded = decode_html(body, content_type);
    let doc = Document::parse(&decoded.text);
    let links = extract_links(&doc, final_url);
    let (html, extraction, page_class) = match mode {
        PageMode::Sample => (Some(decoded.text), None, None),
        PageMode::Extract(model) => {
            let (extraction, class) = extract_and_classify(&doc, final_url.as_str(), model.as_deref(), tools);
            (None, Some(extraction), class)
        }
    };
    PageWork { html, links, extraction, page_class, charset_errors: decoded.had_errors }
}

/// Extract a parsed page and classify the extraction (no class when extraction failed).
pub fn extract_and_classify(
    doc: &Document,
    url: &str,
    model: Option<&DomainModel>,
    tools: &PageTools,
) -> (Result<PageExtraction, ExtractError>, Option<PageClass>) {
    let blocks = segment(doc);
    let extraction = extract_document(doc, &blocks, tools.kind, model, &tools.settings);
    let class = extraction.as_ref().ok().map(|ex| tools.classifier.classify_extraction(Some(url), ex, doc, &blocks));
    (extraction, class)
}
