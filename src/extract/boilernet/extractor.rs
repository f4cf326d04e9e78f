//! [`BoilerNetExtractor`]: BoilerNet as an [`Extractor`] (`--extractor boilernet`): every block
//! whose content probability is at least 0.5 is kept. It runs a given model, or by default the
//! shipped one ([`shipped`]).

use super::features::page_tokens;
use super::model::BoilerNet;
use super::BoilernetError;
use crate::extract::{ExtractContext, ExtractError, Extractor};
use crate::html::Document;
use crate::model::{Block, Label};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// Decision threshold on the content probability.
pub const THRESHOLD: f32 = 0.5;

/// The BoilerNet block labeller.
#[derive(Debug, Clone, Copy)]
pub struct BoilerNetExtractor<'a> {
    /// The network.
    pub model: &'a BoilerNet,
}

impl Extractor for BoilerNetExtractor<'_> {
    fn name(&self) -> &'static str {
        "boilernet"
    }

    fn classify(
        &self,
        _doc: &Document,
        blocks: &[Block],
        ctx: &ExtractContext<'_>,
    ) -> Result<Vec<Label>, ExtractError> {
        let tokens = page_tokens(blocks, ctx.stoplist);
        let probs = self.model.predict(self.model.rows(&tokens));
        Ok(probs.into_iter().map(|p| if p >= THRESHOLD { Label::Good } else { Label::Bad }).collect())
    }
}

/// The model of `path`, loaded.
///
/// # Errors
/// [`BoilernetError`] when the file cannot be read or is not a BoilerNet model.
pub fn load(path: &std::path::Path) -> Result<BoilerNet, BoilernetError> {
    BoilerNet::from_model_file(crate::nn::io::ModelFile::load(path)?)
}

/// The shipped model (`models/boilernet.wcnn`, embedded in the binary), parsed once.
///
/// # Errors
/// A message when the embedded bytes are not a BoilerNet model (a build problem).
pub fn shipped() -> Result<&'static BoilerNet, String> {
    static SHIPPED: OnceLock<Result<BoilerNet, String>> = OnceLock::new();
    SHIPPED
        .get_or_init(|| {
            crate::nn::io::ModelFile::from_bytes(SHIPPED_BYTES)
                .map_err(BoilernetError::from)
                .and_then(BoilerNet::from_model_file)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The bytes of `models/boilernet.wcnn`.
pub static SHIPPED_BYTES: &[u8] = include_bytes!("../../../models/boilernet.wcnn");

/// The model of `config`: the file of `[boilernet] model` (loaded once per path and kept for
/// the process), or the shipped one.
///
/// # Errors
/// A message naming the file when it cannot be loaded.
pub fn model_for(config: &BoilernetConfig) -> Result<&'static BoilerNet, String> {
    let Some(path) = &config.model else {
        return shipped();
    };
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, &'static BoilerNet>>> = OnceLock::new();
    let cache = LOADED.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = cache.get(path) {
        return Ok(m);
    }
    let model: &'static BoilerNet = Box::leak(Box::new(load(path).map_err(|e| e.to_string())?));
    cache.insert(path.clone(), model);
    Ok(model)
}

/// BoilerNet's labels for `blocks` with the model of `config` (the pipeline's entry point).
///
/// # Errors
/// [`ExtractError::Model`] when the configured model cannot be loaded.
pub fn labels(
    config: &BoilernetConfig,
    doc: &Document,
    blocks: &[Block],
    ctx: &ExtractContext<'_>,
) -> Result<Vec<Label>, ExtractError> {
    let model = model_for(config).map_err(ExtractError::Model)?;
    BoilerNetExtractor { model }.classify(doc, blocks, ctx)
}

/// `[boilernet]` of `config.toml`.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoilernetConfig {
    /// A model file written by `webcorpus train boilernet`; `None` = the shipped model.
    pub model: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_model_loads_and_a_bad_path_is_named() {
        let m = shipped().expect("the embedded model parses");
        assert!(m.vocab.width() > 2 && !m.lstms.is_empty());
        let err = model_for(&BoilernetConfig { model: Some("/nonexistent/bn.wcnn".into()) }).unwrap_err();
        assert!(err.contains("/nonexistent/bn.wcnn"), "{err}");
    }
}
