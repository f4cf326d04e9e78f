//! webcorpus turns a list of seed URLs into a clean, deduplicated text corpus.
//!
//! The pipeline, one module per stage (see `ARCHITECTURE.md`):
//!
//! 1. [`crawl`] — frontier, politeness (robots.txt, per-host delay), fetcher;
//! 2. [`html`] — charset decoding, parsing, segmentation into text [`model::Block`]s;
//! 3. [`domain`] — per-host learning of a [`domain::DomainModel`] from a page sample
//!    (GoldMiner begin/end patterns, StaDyNoT static noise keys);
//! 4. [`extract`] — extractors that label every block (jusText, GoldMiner, StaDyNoT);
//! 5. [`dedup`] — Onion paragraph deduplication over xxh3-hashed word n-grams;
//! 6. [`write`](mod@write) — corpus writers (JSONL, vertical, plain text) with crash-safe offsets;
//! 7. [`store`] — all crawl state in sled behind the [`store::Store`] trait;
//! 8. [`classify`] — the article-vs-other page classifier (an MLP over page features);
//! 9. [`eval`] — metrics for scoring extracted text against human gold text;
//! 10. [`nn`] — the small neural-network toolkit (dense and LSTM layers, Adam, weighted
//!     binary cross-entropy, a model file format) under the learned models;
//! 11. [`extract::boilernet`] — BoilerNet, the BiLSTM block labeller (`--extractor boilernet`);
//! 12. [`cluster`] — one crawl on many workers through Redis (partition streams, leases);
//! 13. [`show`] — a host's pages as HTML, each text block marked by what decided its fate;
//! 14. [`train`] — training the learned models (combiner, BoilerNet, page classifier) on the
//!     shared sets' gold.

pub mod classify;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod crawl;
pub mod dedup;
pub mod domain;
pub mod eval;
pub mod extract;
pub mod html;
pub mod logging;
pub mod model;
pub mod nn;
pub mod show;
pub mod store;
#[cfg(test)]
mod testdata;
pub mod train;
pub mod write;

pub use model::{Block, Label, ParagraphKind, Record};
