//! The article-vs-other page classifier. The principal type is [`PageClassifier`]: an MLP
//! ([`mlp::Mlp`], sigmoid hidden units as in the news-page classifier blog's 7-35-1, 2013)
//! over [`features::PageFeatures`] of a page's extraction, markup, URL and title (word lists
//! in [`legal`], [`cues`], [`url_words`]; the first two counted in one pass over a text by
//! [`phrases`]), giving a [`PageType`] and the probability of "article". It runs in the crawl after extraction (every record carries
//! `page_type` and `page_type_prob`; `[classify] drop_non_article` drops the others) and in
//! `webcorpus extract`; `webcorpus train classifier` trains it ([`crate::train::classifier`], data in [`data`]).
//! The model trained on the shared sets ships inside the binary ([`PageClassifier::shipped`],
//! `models/classifier.wcnn`, provenance in `models/README.md`).

pub mod cues;
pub mod data;
pub mod features;
pub mod legal;
pub mod markup;
pub mod mlp;
pub mod phrases;
#[cfg(test)]
mod tests;
pub mod url_words;

use crate::domain::DomainModel;
use crate::extract::pipeline::{extract_document, ExtractSettings, PageExtraction};
use crate::extract::{ExtractError, ExtractorKind};
use crate::html::{segment, Document};
use crate::model::Block;
pub use crate::model::PageType;
use crate::nn::io::ModelFile;
use crate::nn::NnError;
use features::{PageFeatures, PageInput};
use mlp::Mlp;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Errors of loading or training a classifier.
#[derive(Debug, thiserror::Error)]
pub enum ClassifyError {
    /// The model file could not be read or is malformed.
    #[error(transparent)]
    Nn(#[from] NnError),
    /// The model file is not a page classifier of this version.
    #[error("page classifier model: {0}")]
    Header(String),
    /// A feature name that this build does not compute.
    #[error("unknown page feature `{0}` (known: {known})", known = features::FEATURE_NAMES.join(", "))]
    UnknownFeature(String),
    /// An evaluation set could not be loaded.
    #[error(transparent)]
    Data(#[from] crate::eval::dataset::DatasetError),
    /// Nothing to train on (no typed page in the sets, or no page of one class).
    #[error("training data: {0}")]
    NoData(String),
}

/// The classifier's verdict on one page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageClass {
    /// Article when `prob ≥ 0.5`.
    pub page_type: PageType,
    /// Probability of "article", 0–1.
    pub prob: f32,
}

/// The shipped model: trained by `webcorpus train classifier` on the shared sets (see
/// `models/README.md` for the command, data, seed and test scores).
static SHIPPED_MODEL: &[u8] = include_bytes!("../../models/classifier.wcnn");

/// The article-vs-other classifier: an [`Mlp`] and its model file header.
#[derive(Debug, Clone)]
pub struct PageClassifier {
    mlp: Mlp,
    header: serde_json::Value,
}

impl PageClassifier {
    /// The model shipped in the binary (parsed once).
    pub fn shipped() -> Arc<PageClassifier> {
        static SHIPPED: OnceLock<Arc<PageClassifier>> = OnceLock::new();
        SHIPPED
            .get_or_init(|| {
                Arc::new(PageClassifier::from_bytes(SHIPPED_MODEL).expect("the shipped classifier model is valid"))
            })
            .clone()
    }

    /// A classifier from an already trained network.
    pub fn from_mlp(mlp: Mlp, header: serde_json::Value) -> PageClassifier {
        PageClassifier { mlp, header }
    }

    /// Parse a model file's bytes.
    ///
    /// # Errors
    /// [`ClassifyError`] when the bytes are not a page classifier model of this version.
    pub fn from_bytes(bytes: &[u8]) -> Result<PageClassifier, ClassifyError> {
        let file = ModelFile::from_bytes(bytes)?;
        let header = file.header.clone();
        Ok(PageClassifier { mlp: Mlp::from_model_file(file)?, header })
    }

    /// Load a model file written by `webcorpus train classifier`.
    ///
    /// # Errors
    /// [`ClassifyError`] naming the file or what is wrong with it.
    pub fn load(path: &Path) -> Result<PageClassifier, ClassifyError> {
        let file = ModelFile::load(path)?;
        let header = file.header.clone();
        Ok(PageClassifier { mlp: Mlp::from_model_file(file)?, header })
    }

    /// The network.
    pub fn mlp(&self) -> &Mlp {
        &self.mlp
    }

    /// The model file header (features, provenance, test scores).
    pub fn header(&self) -> &serde_json::Value {
        &self.header
    }

    /// The type of a page and the probability that it is an article.
    pub fn classify(&self, features: &PageFeatures) -> (PageType, f32) {
        let prob = self.mlp.probabilities(&[features]).first().copied().unwrap_or(0.5);
        (if prob >= 0.5 { PageType::Article } else { PageType::Other }, prob)
    }

    /// [`PageClassifier::classify`] as a [`PageClass`].
    pub fn page_class(&self, features: &PageFeatures) -> PageClass {
        let (page_type, prob) = self.classify(features);
        PageClass { page_type, prob }
    }

    /// Classify an extracted page: `url` its (final) URL, `doc` and `blocks` the parsed page.
    pub fn classify_extraction(
        &self,
        url: Option<&str>,
        ex: &PageExtraction,
        doc: &Document,
        blocks: &[Block],
    ) -> PageClass {
        self.page_class(&features_of(url, ex, doc, blocks))
    }
}

/// The features of an extracted page: `url` its (final) URL, `doc` and `blocks` the parsed
/// page that `ex` was extracted from.
///
/// The headline counts as the first paragraph of the text, as the classifier was trained.
pub fn features_of(url: Option<&str>, ex: &PageExtraction, doc: &Document, blocks: &[Block]) -> PageFeatures {
    let with_headline: Vec<crate::model::Paragraph>;
    let paragraphs = match &ex.headline {
        Some(h) => {
            let head = crate::model::Paragraph { kind: crate::model::ParagraphKind::Heading, text: h.clone() };
            with_headline = std::iter::once(head).chain(ex.paragraphs.iter().cloned()).collect();
            &with_headline
        }
        None => &ex.paragraphs,
    };
    PageFeatures::compute(&PageInput {
        url,
        title: ex.title.as_deref(),
        paragraphs,
        blocks,
        markup: Some(markup::MarkupSignals::of(doc)),
    })
}

/// Parse `html`, extract it with `kind` and compute its classifier features (the features of
/// [`features_of`] need the page's blocks, which [`crate::extract::pipeline::extract_html`]
/// does not return).
///
/// # Errors
/// The extractor's [`ExtractError`].
pub fn extract_with_features(
    html: &str,
    url: Option<&str>,
    kind: ExtractorKind,
    model: Option<&DomainModel>,
    settings: &ExtractSettings,
) -> Result<(PageExtraction, PageFeatures), ExtractError> {
    let doc = Document::parse(html);
    let blocks = segment(&doc);
    let ex = extract_document(&doc, &blocks, kind, model.map(DomainModel::view), settings)?;
    let features = features_of(url, &ex, &doc, &blocks);
    Ok((ex, features))
}
