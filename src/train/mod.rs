//! Training the three learned models from the gold of the shared evaluation sets: the default's
//! block combiner ([`combiner`]: gradient-boosted trees over the cheap extractors' labels),
//! BoilerNet ([`boilernet`]: Leonhardt et al. 2020, a BiLSTM block labeller) and the
//! article-vs-other page classifier ([`classifier`]), and the host-evidence model
//! ([`host_evidence`]: boosted trees over a host model's signals and the combiner's answer). `webcorpus train combiner|boilernet|
//! classifier|host-evidence` runs them; the shipped models, their commands and scores: `models/README.md`.
//! Training reads the evaluation sets ([`crate::eval::dataset`]); the extractors that use the
//! models never depend on this module.

pub mod boilernet;
pub mod classifier;
#[cfg(test)]
mod classifier_tests;
pub mod combiner;
pub mod host_evidence;
pub mod labels;
