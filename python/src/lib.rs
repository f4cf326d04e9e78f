//! `webcorpus._webcorpus`: the Python extension module (PyO3) over the webcorpus library — the
//! crawl's record of one page ([`extract_json`]), a site's learned model ([`SiteModel`]) and
//! Onion paragraph dedup ([`Onion`]). No second implementation: every call goes to the same
//! functions as `webcorpus extract`, `extract --site` and the crawl's committer. The Python
//! package (`webcorpus/__init__.py`) wraps it: records cross as JSON lines and come out as
//! dicts. The GIL is released while a page is extracted, a model learned or a document
//! deduplicated; bad input raises `ValueError`, and a panic in the library is caught and
//! raised as `ValueError` too.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::borrow::Cow;
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use webcorpus::config::Config;
use webcorpus::crawl::record::{page_record, RecordSource};
use webcorpus::dedup::{OnionParams, OnionScratch};
use webcorpus::domain::{learn::learn, learns_whole_site, DomainModel, SamplePage};
use webcorpus::extract::pipeline::{ExtractSettings, ModelUse};
use webcorpus::extract::ExtractorKind;
use webcorpus::model::{Paragraph, ParagraphKind};

/// HTML as Python gives it: `str` (taken as it is) or `bytes`/`bytearray` (decoded as the crawl
/// decodes a response body: byte order mark, `<meta charset>`, then charset detection).
fn html_text(html: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = html.extract::<String>() {
        return Ok(text);
    }
    match html.extract::<Cow<'_, [u8]>>() {
        Ok(bytes) => Ok(webcorpus::html::decode_html(&bytes, None).text),
        Err(_) => Err(PyValueError::new_err(format!(
            "html must be str or bytes, not {}",
            html.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "an unknown type".into())
        ))),
    }
}

/// Run `f` with the GIL released; a panic in the library becomes a `ValueError`.
fn detached<T: Send>(py: Python<'_>, what: &str, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)))
        .unwrap_or_else(|_| Err(PyValueError::new_err(format!("{what} failed: an internal error (please report it)"))))
}

/// The extraction settings of the crawl's defaults (`Config::default()`), with `language`
/// (a stoplist name, or `None`/"auto" to detect) and `comments`.
fn settings(language: Option<&str>, comments: bool) -> ExtractSettings {
    let config = Config::default();
    let language = match language {
        Some(l) if !l.eq_ignore_ascii_case("auto") => Some(l.to_string()),
        Some(_) => None,
        None => config.crawl.language().map(str::to_string),
    };
    ExtractSettings { language, comments, ..config.extract_settings() }
}

/// One page's record as a JSON line: the fields of `corpus.jsonl`, plus `model` (how a site
/// model took part, when one was given) and `trace` (one decision per text block) on request.
fn record_json(
    html: &str,
    url: Option<&str>,
    kind: ExtractorKind,
    model: Option<&DomainModel>,
    settings: &ExtractSettings,
    trace: bool,
) -> PyResult<String> {
    let url = url.unwrap_or_default();
    let host = url::Url::parse(url).ok().and_then(|u| webcorpus::crawl::url::host_key(&u)).unwrap_or_default();
    let source = RecordSource::page(url, &host);
    let classifier = Config::default().classify.classifier().map_err(|e| PyValueError::new_err(e.to_string()))?;
    let page = page_record(html, source, kind, model, settings, &classifier)
        .map_err(|e| PyValueError::new_err(format!("extraction failed: {e}")))?;
    /// The record, fields in the corpus's order, then `model` and `trace` (as `webcorpus
    /// extract` writes its lines).
    #[derive(serde::Serialize)]
    struct Line<'a> {
        #[serde(flatten)]
        record: &'a webcorpus::model::Record,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        trace: Option<&'a webcorpus::extract::trace::PageTrace>,
    }
    let model = match page.model_use {
        ModelUse::None => None,
        ModelUse::Applied => Some("applied"),
        ModelUse::Unmatched => Some("unmatched"),
        ModelUse::Rejected => Some("rejected"),
    };
    let line = Line { record: &page.record, model, trace: trace.then_some(&page.trace) };
    serde_json::to_string(&line).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn extractor_kind(name: &str) -> PyResult<ExtractorKind> {
    name.parse::<ExtractorKind>().map_err(|e| PyValueError::new_err(format!("extractor {name:?}: {e}")))
}

/// The record of one page as a JSON line (see the package's `extract`).
#[pyfunction]
#[pyo3(signature = (html, url=None, extractor="default", comments=false, language=None, trace=false))]
fn extract_json(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<String>,
    extractor: &str,
    comments: bool,
    language: Option<String>,
    trace: bool,
) -> PyResult<String> {
    let text = html_text(html)?;
    let kind = extractor_kind(extractor)?;
    detached(py, "extraction", move || {
        let settings = settings(language.as_deref(), comments);
        record_json(&text, url.as_deref(), kind, None, &settings, trace)
    })
}

/// A site's learned model (GoldMiner patterns and StaDyNoT noise keys), learned as the crawl
/// learns a host's: from its first `[learn] sample_size` pages, and only from `[learn]
/// min_sample` pages or more (fewer: no model, pages extracted alone).
#[pyclass(module = "webcorpus._webcorpus", frozen)]
struct SiteModel {
    host: String,
    sample_pages: usize,
    language: Option<String>,
    model: Option<Arc<DomainModel>>,
}

#[pymethods]
impl SiteModel {
    /// Learn from `pages`, (url, html) pairs of one site in crawl order.
    #[staticmethod]
    #[pyo3(signature = (pages, host=None, language=None))]
    fn learn(
        py: Python<'_>,
        pages: Vec<(String, Bound<'_, PyAny>)>,
        host: Option<String>,
        language: Option<String>,
    ) -> PyResult<SiteModel> {
        let config = Config::default();
        let sample_size = config.learn.sample_size;
        let mut sample = Vec::new();
        for (url, html) in pages.iter().take(sample_size) {
            sample.push(SamplePage { url: url.clone(), html: html_text(html)? });
        }
        let host = match host {
            Some(h) => h,
            None => {
                let first = sample.first().ok_or_else(|| PyValueError::new_err("no pages to learn from"))?;
                url::Url::parse(&first.url).ok().and_then(|u| webcorpus::crawl::url::host_key(&u)).ok_or_else(|| {
                    PyValueError::new_err(format!("{:?} is not an absolute URL; pass host=", first.url))
                })?
            }
        };
        let settings = settings(language.as_deref(), false);
        let language = settings.language.clone();
        detached(py, "learning", move || {
            let sample_pages = sample.len();
            let model = learns_whole_site(&config.learn, sample_pages)
                .then(|| Arc::new(learn(&host, &sample, language.as_deref(), &config.justext, &config.learn)));
            Ok(SiteModel { host, sample_pages, language, model })
        })
    }

    /// A model saved by [`SiteModel::save`].
    #[staticmethod]
    fn load(path: std::path::PathBuf) -> PyResult<SiteModel> {
        let text =
            std::fs::read_to_string(&path).map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| PyValueError::new_err(format!("{}: not a saved site model: {e}", path.display())))?;
        let field = |k: &str| v.get(k).cloned().unwrap_or(serde_json::Value::Null);
        let model: Option<DomainModel> = serde_json::from_value(field("model"))
            .map_err(|e| PyValueError::new_err(format!("{}: not a saved site model: {e}", path.display())))?;
        Ok(SiteModel {
            host: field("host").as_str().unwrap_or_default().to_string(),
            sample_pages: field("sample_pages").as_u64().unwrap_or(0) as usize,
            language: field("language").as_str().map(str::to_string),
            model: model.map(Arc::new),
        })
    }

    /// Write the model as JSON to `path`.
    fn save(&self, path: std::path::PathBuf) -> PyResult<()> {
        let v = serde_json::json!({
            "format": "webcorpus-site-model/1",
            "host": self.host,
            "sample_pages": self.sample_pages,
            "language": self.language,
            "model": self.model.as_deref(),
        });
        std::fs::write(&path, v.to_string()).map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))
    }

    /// The page's record as a JSON line, extracted with this model (see the package).
    #[pyo3(signature = (html, url=None, extractor="default", comments=false, trace=false))]
    fn extract_json(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<String>,
        extractor: &str,
        comments: bool,
        trace: bool,
    ) -> PyResult<String> {
        let text = html_text(html)?;
        let kind = extractor_kind(extractor)?;
        let model = self.model.clone();
        let language = self.language.clone();
        detached(py, "extraction", move || {
            let settings = settings(language.as_deref().or(Some("auto")), comments);
            record_json(&text, url.as_deref(), kind, model.as_deref(), &settings, trace)
        })
    }

    /// The site's host key.
    #[getter]
    fn host(&self) -> &str {
        &self.host
    }

    /// Pages the model was learned from (at most `[learn] sample_size`).
    #[getter]
    fn sample_pages(&self) -> usize {
        self.sample_pages
    }

    /// True when a model was learned (false: fewer pages than `[learn] min_sample`).
    #[getter]
    fn learned(&self) -> bool {
        self.model.is_some()
    }

    /// The model's patterns and static noise keys, as `webcorpus stats --host` prints them.
    fn summary(&self) -> String {
        self.model.as_deref().map(DomainModel::summary).unwrap_or_else(|| "no model".to_string())
    }
}

/// Onion paragraph dedup (Pomikálek 2011) against everything it has kept so far: word
/// n-grams (`n`, default 7) hashed with xxh3, a paragraph dropped when more than `threshold`
/// (default 0.5) of them were seen — the crawl's settings. The seen n-grams are an exact set in
/// memory (8 bytes each, plus the set's overhead).
#[pyclass(module = "webcorpus._webcorpus")]
struct Onion {
    onion: webcorpus::dedup::Onion,
    seen: HashSet<u64>,
    scratch: OnionScratch,
}

#[pymethods]
impl Onion {
    #[new]
    #[pyo3(signature = (n=None, threshold=None))]
    fn new(n: Option<usize>, threshold: Option<f64>) -> PyResult<Onion> {
        let defaults = OnionParams::default();
        let params = OnionParams { n: n.unwrap_or(defaults.n), threshold: threshold.unwrap_or(defaults.threshold) };
        let onion = webcorpus::dedup::Onion::new(params).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Onion { onion, seen: HashSet::new(), scratch: OnionScratch::default() })
    }

    /// One document's paragraphs: a kept (True) or dropped flag per paragraph; the kept ones'
    /// n-grams are remembered.
    fn keep(&mut self, py: Python<'_>, paragraphs: Vec<String>) -> PyResult<Vec<bool>> {
        let paragraphs: Vec<Paragraph> =
            paragraphs.into_iter().map(|text| Paragraph { kind: ParagraphKind::Paragraph, text }).collect();
        let Onion { onion, seen, scratch } = self;
        detached(py, "dedup", move || {
            let outcome =
                onion.filter_with(scratch, &paragraphs, &*seen).map_err(|e| PyValueError::new_err(e.to_string()))?;
            seen.extend(outcome.new_hashes);
            Ok(outcome.kept_mask)
        })
    }

    /// Distinct n-gram hashes remembered.
    fn __len__(&self) -> usize {
        self.seen.len()
    }
}

/// The module.
#[pymodule]
fn _webcorpus(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(extract_json, m)?)?;
    m.add_class::<SiteModel>()?;
    m.add_class::<Onion>()?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
