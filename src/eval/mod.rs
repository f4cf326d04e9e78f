//! Evaluation: how well an extractor's text matches human gold text, the measures the papers
//! report (CleanEval word alignment for GoldMiner, bag of words for StaDyNoT). The stage sits
//! beside the pipeline: `webcorpus eval` runs extractors over the datasets in
//! `../shared/data` and scores them with [`metrics`]; [`reference`](mod@reference) scores external tools'
//! precomputed outputs (trafilatura & co.) the same way.

pub mod bootstrap;
pub mod dataset;
pub mod html;
pub mod metrics;
pub mod reference;
pub mod report;
pub mod row;
pub mod run;
pub mod score;
