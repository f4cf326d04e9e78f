//! [`Mlp`]: the page classifier's network — input standardisation (mean and standard
//! deviation of the training pages, stored in the model), one sigmoid hidden layer and one
//! logit out: the news-page classifier blog's 7-35-1 multilayer perceptron with sigmoid
//! activations (2013), over any chosen subset of [`FEATURE_NAMES`]. Built on
//! [`crate::nn`]: [`Dense`] layers, [`weighted_bce_with_logits`], [`ModelFile`].

use super::features::{PageFeatures, FEATURE_NAMES, URL_FEATURES};
use super::ClassifyError;
use crate::nn::io::ModelFile;
use crate::nn::loss::{sigmoid, weighted_bce_with_logits};
use crate::nn::{Dense, Param};

/// `kind` in the model file header.
pub const MODEL_KIND: &str = "webcorpus-page-classifier";
/// Model format version in the header.
pub const MODEL_VERSION: u64 = 1;

/// An MLP `k → hidden (sigmoid) → 1 (logit)` over `k` named features.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    /// The features used, in input order (names from [`FEATURE_NAMES`]).
    pub features: Vec<String>,
    index: Vec<usize>,
    is_url: Vec<bool>,
    /// Training mean per input, `1 × k`.
    pub mean: Vec<f32>,
    /// Training standard deviation per input (≥ 1e-6), `1 × k`.
    pub std: Vec<f32>,
    /// Input → hidden, `k × hidden`.
    pub hidden: Dense,
    /// Hidden → logit, `hidden × 1`.
    pub out: Dense,
}

/// Activations of one forward pass, kept for the backward pass.
pub struct Forward {
    /// Standardised inputs, `n × k`.
    pub x: Vec<f32>,
    /// Hidden activations σ(x·W₁ + b₁), `n × hidden`.
    pub h: Vec<f32>,
    /// Logits, `n`.
    pub logits: Vec<f32>,
}

impl Mlp {
    /// A Glorot-initialised network over `features` with `hidden` units and identity
    /// standardisation (fit it with [`Mlp::fit_standardisation`]).
    ///
    /// # Errors
    /// [`ClassifyError::UnknownFeature`] for a name not in [`FEATURE_NAMES`], or none at all.
    pub fn new(features: &[String], hidden: usize, rng: &mut fastrand::Rng) -> Result<Mlp, ClassifyError> {
        let (index, is_url) = resolve(features)?;
        let k = features.len();
        Ok(Mlp {
            features: features.to_vec(),
            index,
            is_url,
            mean: vec![0.0; k],
            std: vec![1.0; k],
            hidden: Dense::new(k, hidden.max(1), rng),
            out: Dense::new(hidden.max(1), 1, rng),
        })
    }

    /// Set mean and standard deviation of every input from `pages` (URL features from the
    /// pages that have a URL).
    pub fn fit_standardisation(&mut self, pages: &[&PageFeatures]) {
        for (j, &i) in self.index.iter().enumerate() {
            let vals: Vec<f64> =
                pages.iter().filter(|p| p.url_known || !self.is_url[j]).map(|p| f64::from(p.values[i])).collect();
            if vals.is_empty() {
                continue;
            }
            let mean = vals.iter().sum::<f64>() / vals.len() as f64;
            let var = vals.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / vals.len() as f64;
            self.mean[j] = mean as f32;
            self.std[j] = (var.sqrt() as f32).max(1e-6);
        }
    }

    /// Standardised inputs of `pages`, `n × k`; an unknown URL feature is 0 (the mean).
    pub fn inputs(&self, pages: &[&PageFeatures]) -> Vec<f32> {
        let mut x = Vec::with_capacity(pages.len() * self.index.len());
        for p in pages {
            for (j, &i) in self.index.iter().enumerate() {
                let z = if self.is_url[j] && !p.url_known { 0.0 } else { (p.values[i] - self.mean[j]) / self.std[j] };
                x.push(if z.is_finite() { z } else { 0.0 });
            }
        }
        x
    }

    /// Forward pass over standardised inputs `x` (`n × k`).
    pub fn forward(&self, x: Vec<f32>, n: usize) -> Forward {
        let mut h = self.hidden.forward(&x, n);
        h.iter_mut().for_each(|v| *v = sigmoid(*v));
        let logits = self.out.forward(&h, n);
        Forward { x, h, logits }
    }

    /// Probability of "article" for each of `pages`.
    pub fn probabilities(&self, pages: &[&PageFeatures]) -> Vec<f32> {
        let f = self.forward(self.inputs(pages), pages.len());
        f.logits.into_iter().map(sigmoid).collect()
    }

    /// One gradient computation on a batch: weighted binary cross-entropy of the logits
    /// against `targets` (1 = article) plus `l2 / 2 · ‖W‖²` on both weight matrices (biases
    /// are not decayed). Gradients are added to the params; returns the data loss (without
    /// the L2 term).
    pub fn backward(&mut self, f: &Forward, targets: &[f32], weights: &[f32], l2: f32) -> f32 {
        let n = targets.len();
        let (loss, dz) = weighted_bce_with_logits(&f.logits, targets, weights);
        let mut dh = self.out.backward(&f.h, &dz, n);
        for (d, h) in dh.iter_mut().zip(&f.h) {
            *d *= h * (1.0 - h);
        }
        self.hidden.backward(&f.x, &dh, n);
        for layer in [&mut self.hidden, &mut self.out] {
            for (g, w) in layer.w.grad.iter_mut().zip(&layer.w.value) {
                *g += l2 * w;
            }
        }
        loss
    }

    /// The trainable params, in a fixed order (for [`crate::nn::Adam`]).
    pub fn params_mut(&mut self) -> Vec<&mut Param> {
        let [a, b] = self.hidden.params_mut();
        let [c, d] = self.out.params_mut();
        vec![a, b, c, d]
    }

    /// The model file: params `norm.mean`, `norm.std`, `hidden.w`, `hidden.b`, `out.w`,
    /// `out.b`; header `kind`, `version`, `features`, `hidden`, plus `extra`'s fields
    /// (provenance, scores).
    pub fn to_model_file(&self, extra: serde_json::Value) -> ModelFile {
        let k = self.features.len();
        let mut header = serde_json::json!({
            "kind": MODEL_KIND,
            "version": MODEL_VERSION,
            "features": self.features,
            "hidden": self.hidden.outputs(),
        });
        if let (Some(h), serde_json::Value::Object(extra)) = (header.as_object_mut(), extra) {
            h.extend(extra);
        }
        let row = |v: &[f32]| Param::from_values(1, k, v.to_vec()).expect("k values");
        ModelFile {
            header,
            params: vec![
                ("norm.mean".into(), row(&self.mean)),
                ("norm.std".into(), row(&self.std)),
                ("hidden.w".into(), self.hidden.w.clone()),
                ("hidden.b".into(), self.hidden.b.clone()),
                ("out.w".into(), self.out.w.clone()),
                ("out.b".into(), self.out.b.clone()),
            ],
        }
    }

    /// The network of a model file written by [`Mlp::to_model_file`].
    ///
    /// # Errors
    /// [`ClassifyError::Header`] for another kind or version or a bad feature list;
    /// [`ClassifyError::Nn`] for missing params or wrong shapes.
    pub fn from_model_file(mut file: ModelFile) -> Result<Mlp, ClassifyError> {
        let h = &file.header;
        if h["kind"] != MODEL_KIND {
            return Err(ClassifyError::Header(format!("kind {}, expected {MODEL_KIND}", h["kind"])));
        }
        if h["version"].as_u64() != Some(MODEL_VERSION) {
            return Err(ClassifyError::Header(format!("version {}, this build reads {MODEL_VERSION}", h["version"])));
        }
        let features: Vec<String> = serde_json::from_value(h["features"].clone())
            .map_err(|e| ClassifyError::Header(format!("features: {e}")))?;
        let hidden = h["hidden"].as_u64().ok_or_else(|| ClassifyError::Header("hidden: not a number".into()))? as usize;
        let (index, is_url) = resolve(&features)?;
        let k = features.len();
        let mean = file.take("norm.mean", 1, k)?.value;
        let std = file.take("norm.std", 1, k)?.value.into_iter().map(|s| s.max(1e-6)).collect();
        let hidden_layer = Dense { w: file.take("hidden.w", k, hidden)?, b: file.take("hidden.b", 1, hidden)? };
        let out = Dense { w: file.take("out.w", hidden, 1)?, b: file.take("out.b", 1, 1)? };
        Ok(Mlp { features, index, is_url, mean, std, hidden: hidden_layer, out })
    }
}

/// Positions in [`FEATURE_NAMES`] and URL flags of `features`.
fn resolve(features: &[String]) -> Result<(Vec<usize>, Vec<bool>), ClassifyError> {
    if features.is_empty() {
        return Err(ClassifyError::UnknownFeature("(no features)".into()));
    }
    let index = features
        .iter()
        .map(|f| FEATURE_NAMES.iter().position(|n| n == f).ok_or_else(|| ClassifyError::UnknownFeature(f.clone())))
        .collect::<Result<Vec<_>, _>>()?;
    let is_url = features.iter().map(|f| URL_FEATURES.contains(&f.as_str())).collect();
    Ok((index, is_url))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feats(v: f32, url: bool) -> PageFeatures {
        let mut values = [0.0; FEATURE_NAMES.len()];
        values[0] = v;
        values[1] = 2.0 * v;
        PageFeatures { values, url_known: url }
    }

    /// Finite differences of the loss agree with the backward pass (sigmoid hidden layer,
    /// L2 term included).
    #[test]
    fn gradients_match_finite_differences() {
        let mut rng = fastrand::Rng::with_seed(3);
        let names = vec!["text_chars".to_string(), "url_slash".to_string()];
        let mut mlp = Mlp::new(&names, 4, &mut rng).unwrap();
        let pages = [feats(0.5, true), feats(-1.0, true), feats(2.0, false)];
        let refs: Vec<&PageFeatures> = pages.iter().collect();
        let (t, w, l2) = ([1.0, 0.0, 1.0], [1.0, 2.0, 0.5], 0.1);
        let total = |m: &Mlp| {
            let f = m.forward(m.inputs(&refs), 3);
            let data = weighted_bce_with_logits(&f.logits, &t, &w).0;
            let reg: f32 = [&m.hidden, &m.out].iter().flat_map(|l| l.w.value.iter()).map(|x| x * x).sum();
            data + 0.5 * l2 * reg
        };
        let f = mlp.forward(mlp.inputs(&refs), 3);
        mlp.backward(&f, &t, &w, l2);
        let eps = 1e-2;
        for k in 0..mlp.hidden.w.len() {
            let (mut p, mut m) = (mlp.clone(), mlp.clone());
            p.hidden.w.value[k] += eps;
            m.hidden.w.value[k] -= eps;
            let num = (total(&p) - total(&m)) / (2.0 * eps);
            assert!((num - mlp.hidden.w.grad[k]).abs() < 2e-3, "dW1[{k}] {num} vs {}", mlp.hidden.w.grad[k]);
        }
        for k in 0..mlp.out.w.len() {
            let (mut p, mut m) = (mlp.clone(), mlp.clone());
            p.out.w.value[k] += eps;
            m.out.w.value[k] -= eps;
            let num = (total(&p) - total(&m)) / (2.0 * eps);
            assert!((num - mlp.out.w.grad[k]).abs() < 2e-3, "dW2[{k}] {num} vs {}", mlp.out.w.grad[k]);
        }
    }

    #[test]
    fn standardises_and_round_trips_through_a_model_file() {
        let mut rng = fastrand::Rng::with_seed(5);
        let names = vec!["text_chars".to_string(), "url_slash".to_string()];
        let mut mlp = Mlp::new(&names, 3, &mut rng).unwrap();
        let pages = [feats(1.0, true), feats(3.0, true), feats(100.0, false)];
        let refs: Vec<&PageFeatures> = pages.iter().collect();
        mlp.fit_standardisation(&refs);
        assert_eq!(mlp.mean, vec![(1.0 + 3.0 + 100.0) / 3.0, 4.0], "URL feature from pages with a URL only");
        let x = mlp.inputs(&refs);
        assert_eq!(x[5], 0.0, "unknown URL feature = the mean");
        let file = mlp.to_model_file(serde_json::json!({"seed": 5}));
        assert_eq!(file.header["seed"], 5);
        let back = Mlp::from_model_file(ModelFile::from_bytes(&file.to_bytes()).unwrap()).unwrap();
        assert_eq!(back.probabilities(&refs), mlp.probabilities(&refs));
        let mut bad = file.clone();
        bad.header["features"] = serde_json::json!(["no_such_feature"]);
        assert!(matches!(Mlp::from_model_file(bad), Err(ClassifyError::UnknownFeature(_))));
        let mut bad = file;
        bad.header["kind"] = serde_json::json!("boilernet");
        assert!(Mlp::from_model_file(bad).is_err());
    }
}
