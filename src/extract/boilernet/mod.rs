//! BoilerNet (Leonhardt, Anand & Khosla 2020, "Boilerplate Removal using a Neural Sequence
//! Labeling Model"): a page is a sequence of text blocks, each block a sparse count vector of
//! the HTML tags on its root path and of its words (plus, our extension, a few language-independent
//! shape columns: [`features::SHAPE_FEATURES`]); a dense layer and two bidirectional LSTM
//! layers label every block content or boilerplate. Trained and run on the CPU with the
//! crate's own layers ([`crate::nn`]). The principal type is [`model::BoilerNet`]; the
//! extractor `--extractor boilernet` is [`extractor::BoilerNetExtractor`], which runs the
//! model shipped in `models/boilernet.wcnn` (see `models/README.md`).
//!
//! Blocks: the paper's blocks are the DOM's leaf text nodes (`<p>A<b>B</b>C</p>` is three
//! blocks). Ours are the crate's segmentation blocks ([`crate::html::segment()`]): one block is
//! the run of leaf text nodes inside one block-level element between two block-level tags
//! (`<p>A<b>B</b>C</p>` is one block "A B C"), so BoilerNet labels exactly the units every
//! other extractor labels and is scored the same way. A block's tag path is the path of its
//! first text node (inline tags included).
//!
//! Modules: [`features`] (vocabularies, sparse block vectors), [`crate::train::labels`] (block labels from
//! the gold by the CleanEval word alignment), [`model`] (the network, save/load), [`crate::train::boilernet`]
//! (loading the sets, the training loop with per-epoch validation), [`extractor`].

pub mod extractor;
pub mod features;
pub mod model;

pub use extractor::{model_for, BoilerNetExtractor, BoilernetConfig};
pub use model::{BoilerNet, NetConfig};

/// Errors of training and of loading a model.
#[derive(Debug, thiserror::Error)]
pub enum BoilernetError {
    /// A model file could not be read or written, or lacks a param.
    #[error(transparent)]
    Nn(#[from] crate::nn::NnError),
    /// The model file's header is not a BoilerNet header.
    #[error("not a BoilerNet model: {0}")]
    Model(String),
    /// Nothing to train on.
    #[error("no labelled training pages in {0}")]
    NoData(String),
}
