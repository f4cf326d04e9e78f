//! The BoilerNet network (Leonhardt et al. 2020, §3.2, Fig. 2; layer by layer as the authors'
//! `leaf_classifier.py`): the principal type is [`BoilerNet`]:
//!
//! ```text
//! sparse counts (tags + words) and shape columns (Vocab::width) → Dense(dense) → ReLU
//!   → layers × BiLSTM(hidden per direction) → Dropout(p) → Dense(1) → σ   (one logit per block)
//! ```
//!
//! The first dense layer reads the sparse count rows directly (a weighted sum of `W`'s rows),
//! so the 1,000-word input costs no dense product. A batch is a set of pages (sequences of
//! blocks) padded to the longest and laid out time-major for [`BiLstm`]; padded blocks carry
//! weight 0 in the loss. Stored as a [`ModelFile`] whose header holds the vocabularies, the
//! sizes and the provenance (command, data, seed, scores).

use super::features::{BlockTokens, SparseRow, Vocab, FEATURE_VERSION, SHAPE_FEATURES};
use super::BoilernetError;
use crate::nn::io::ModelFile;
use crate::nn::lstm::{BiLstmCache, Dropout};
use crate::nn::{BiLstm, Dense, Param};

/// Layer sizes. [`Default`] is the paper's (§4.2: dense 256, two BiLSTM layers of 256 units,
/// dropout 0.5).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NetConfig {
    /// Width of the dense projection.
    pub dense: usize,
    /// LSTM units per direction.
    pub hidden: usize,
    /// BiLSTM layers.
    pub layers: usize,
    /// Dropout probability after the last BiLSTM layer.
    pub dropout: f32,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig { dense: 256, hidden: 256, layers: 2, dropout: 0.5 }
    }
}

/// One page as the network sees it: a sparse row per block, a target (1 content, 0 not) and
/// a loss weight (0 = unlabelled) per block.
#[derive(Debug, Clone, Default)]
pub struct Sequence {
    /// Input rows, one per block.
    pub rows: Vec<SparseRow>,
    /// Targets, one per block.
    pub targets: Vec<f32>,
    /// Loss weights, one per block.
    pub weights: Vec<f32>,
}

/// What [`BoilerNet::forward`] keeps for [`BoilerNet::backward`].
pub struct Cache {
    steps: usize,
    lengths: Vec<usize>,
    /// Dense pre-activations, `rows × dense`.
    pre: Vec<f32>,
    lstm: Vec<BiLstmCache>,
    /// The output layer's input, `rows × 2H` (after dropout).
    last: Vec<f32>,
    mask: Option<Vec<f32>>,
}

impl Cache {
    /// Time-major rows of the batch: `steps × batch`.
    pub fn rows(&self) -> usize {
        self.steps * self.lengths.len()
    }
}

/// The network with its vocabularies.
#[derive(Debug, Clone, PartialEq)]
pub struct BoilerNet {
    /// Input vocabularies.
    pub vocab: Vocab,
    /// Layer sizes.
    pub config: NetConfig,
    /// Sparse input → dense projection (`Vocab::width × dense`).
    pub input: Dense,
    /// The BiLSTM stack.
    pub lstms: Vec<BiLstm>,
    /// `2H → 1` logit.
    pub output: Dense,
    /// Free-form provenance stored in the model file (command, data, seed, scores).
    pub provenance: serde_json::Value,
}

/// Time-major row of step `t` of sequence `b`.
fn row(t: usize, b: usize, batch: usize) -> usize {
    t * batch + b
}

impl BoilerNet {
    /// A freshly initialised network.
    pub fn new(vocab: Vocab, config: NetConfig, rng: &mut fastrand::Rng) -> BoilerNet {
        let input = Dense::new(vocab.width(), config.dense, rng);
        let mut lstms = Vec::new();
        let mut width = config.dense;
        for _ in 0..config.layers.max(1) {
            lstms.push(BiLstm::new(width, config.hidden, rng));
            width = 2 * config.hidden;
        }
        let output = Dense::new(width, 1, rng);
        BoilerNet { vocab, config, input, lstms, output, provenance: serde_json::Value::Null }
    }

    /// The input rows of a page's blocks.
    pub fn rows(&self, tokens: &[BlockTokens]) -> Vec<SparseRow> {
        tokens.iter().map(|t| self.vocab.features(t)).collect()
    }

    /// Logits of a batch of sequences, time-major (`steps × batch`, padded rows included),
    /// and the cache. With `rng`, dropout is applied (training).
    pub fn forward(&self, seqs: &[&Sequence], rng: Option<&mut fastrand::Rng>) -> (Vec<f32>, Cache) {
        let batch = seqs.len();
        let lengths: Vec<usize> = seqs.iter().map(|s| s.rows.len()).collect();
        let steps = lengths.iter().copied().max().unwrap_or(0);
        let d = self.config.dense;
        let rows = steps * batch;
        let mut pre = Vec::with_capacity(rows * d);
        for _ in 0..rows {
            pre.extend_from_slice(&self.input.b.value);
        }
        for (b, s) in seqs.iter().enumerate() {
            for (t, r) in s.rows.iter().enumerate() {
                let out = &mut pre[row(t, b, batch) * d..(row(t, b, batch) + 1) * d];
                for &(col, val) in r {
                    let w = &self.input.w.value[col as usize * d..(col as usize + 1) * d];
                    for (o, w) in out.iter_mut().zip(w) {
                        *o += val * w;
                    }
                }
            }
        }
        let mut x: Vec<f32> = pre.iter().map(|v| v.max(0.0)).collect();
        let mut caches = Vec::with_capacity(self.lstms.len());
        for l in &self.lstms {
            let (y, c) = l.forward(&x, steps, &lengths);
            caches.push(c);
            x = y;
        }
        let mask = rng.map(|r| Dropout { p: self.config.dropout }.forward_train(&mut x, r));
        let logits = self.output.forward(&x, rows);
        (logits, Cache { steps, lengths, pre, lstm: caches, last: x, mask })
    }

    /// Backward pass of [`BoilerNet::forward`] for the same `seqs`, given the gradient of the
    /// loss by each logit (time-major, zero on padded rows); adds to every param's gradient.
    pub fn backward(&mut self, seqs: &[&Sequence], cache: &Cache, dlogits: &[f32]) {
        let rows = cache.rows();
        let batch = cache.lengths.len();
        let mut dx = self.output.backward(&cache.last, dlogits, rows);
        if let Some(mask) = &cache.mask {
            Dropout::backward(&mut dx, mask);
        }
        for (l, c) in self.lstms.iter_mut().zip(&cache.lstm).rev() {
            dx = l.backward(c, &dx);
        }
        let d = self.config.dense;
        for (b, s) in seqs.iter().enumerate() {
            for (t, r) in s.rows.iter().enumerate() {
                let i = row(t, b, batch);
                let dpre: Vec<f32> = dx[i * d..(i + 1) * d]
                    .iter()
                    .zip(&cache.pre[i * d..(i + 1) * d])
                    .map(|(g, p)| if *p > 0.0 { *g } else { 0.0 })
                    .collect();
                for (g, v) in self.input.b.grad.iter_mut().zip(&dpre) {
                    *g += v;
                }
                for &(col, val) in r {
                    let wg = &mut self.input.w.grad[col as usize * d..(col as usize + 1) * d];
                    for (g, v) in wg.iter_mut().zip(&dpre) {
                        *g += val * v;
                    }
                }
            }
        }
    }

    /// Content probability of each block of one page (inference: no dropout).
    pub fn predict(&self, rows: Vec<SparseRow>) -> Vec<f32> {
        if rows.is_empty() {
            return Vec::new();
        }
        let seq = Sequence { rows, ..Sequence::default() };
        let (logits, _) = self.forward(&[&seq], None);
        logits.into_iter().map(crate::nn::loss::sigmoid).collect()
    }

    /// Every param, in a fixed order (the optimiser's and the model file's).
    pub fn params_mut(&mut self) -> Vec<&mut Param> {
        let mut out: Vec<&mut Param> = Vec::new();
        out.extend(self.input.params_mut());
        for l in &mut self.lstms {
            out.extend(l.params_mut());
        }
        out.extend(self.output.params_mut());
        out
    }

    fn param_names(&self) -> Vec<String> {
        let mut names = vec!["input.w".to_string(), "input.b".to_string()];
        for i in 0..self.lstms.len() {
            for d in ["fwd", "bwd"] {
                for p in ["w", "u", "b"] {
                    names.push(format!("lstm{i}.{d}.{p}"));
                }
            }
        }
        names.extend(["output.w".to_string(), "output.b".to_string()]);
        names
    }

    /// The model file: params by name, header with kind, sizes, vocabularies, provenance.
    pub fn to_model_file(&self) -> ModelFile {
        let mut copy = self.clone();
        let names = self.param_names();
        let params = names.into_iter().zip(copy.params_mut()).map(|(n, p)| (n, p.clone())).collect();
        ModelFile {
            header: serde_json::json!({
                "kind": "boilernet",
                "features": FEATURE_VERSION,
                "config": self.config,
                "vocab": self.vocab.to_json(),
                "provenance": self.provenance,
            }),
            params,
        }
    }

    /// Rebuild a network from its model file.
    ///
    /// # Errors
    /// [`BoilernetError::Model`] when the header is not a BoilerNet header, its input format
    /// (`features`) is not [`FEATURE_VERSION`] (e.g. a model written before the shape columns),
    /// or a param is missing or misshapen.
    pub fn from_model_file(mut file: ModelFile) -> Result<BoilerNet, BoilernetError> {
        let bad = |what: &str| BoilernetError::Model(what.to_string());
        if file.header.get("kind").and_then(|k| k.as_str()) != Some("boilernet") {
            return Err(bad("header kind is not boilernet"));
        }
        // Files before the shape columns carry no `features` field: format 1.
        let version = file.header.get("features").and_then(serde_json::Value::as_u64).unwrap_or(1);
        if version != FEATURE_VERSION {
            return Err(BoilernetError::Model(format!(
                "input feature format {version}, this build reads format {FEATURE_VERSION} \
                 (tag and word counts plus {SHAPE_FEATURES} shape columns): retrain with `webcorpus train boilernet`"
            )));
        }
        let config: NetConfig = serde_json::from_value(file.header.get("config").cloned().unwrap_or_default())
            .map_err(|e| BoilernetError::Model(format!("config: {e}")))?;
        let vocab = file.header.get("vocab").and_then(Vocab::from_json).ok_or_else(|| bad("vocab"))?;
        let provenance = file.header.get("provenance").cloned().unwrap_or_default();
        let mut net = BoilerNet::new(vocab, config, &mut fastrand::Rng::with_seed(0));
        net.provenance = provenance;
        let names = net.param_names();
        for (name, p) in names.iter().zip(net.params_mut()) {
            *p = file.take(name, p.rows, p.cols)?;
        }
        Ok(net)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole network's gradient (sparse dense layer, two BiLSTMs, output) by a few input
    /// weights and biases agrees with finite differences of the weighted BCE on two padded
    /// sequences.
    #[test]
    fn network_gradients_match_finite_differences() {
        let vocab = Vocab::new(vec!["div".into(), "p".into()], vec!["a".into(), "b".into(), "c".into()]);
        let config = NetConfig { dense: 4, hidden: 3, layers: 2, dropout: 0.0 };
        let mut rng = fastrand::Rng::with_seed(2);
        let mut net = BoilerNet::new(vocab, config, &mut rng);
        let s1 = Sequence {
            rows: vec![vec![(1, 2.0), (4, 1.0)], vec![(2, 1.0), (5, 3.0)], vec![(0, 1.0), (3, 1.0)]],
            targets: vec![0.0, 1.0, 1.0],
            weights: vec![1.0, 2.0, 0.0],
        };
        let s2 = Sequence { rows: vec![vec![(1, 1.0), (5, 1.0)]], targets: vec![1.0], weights: vec![1.0] };
        let seqs = [&s1, &s2];
        let loss = |net: &BoilerNet| -> (f32, Vec<f32>) {
            let (logits, cache) = net.forward(&seqs, None);
            let (mut t, mut w) = (vec![0.0; cache.rows()], vec![0.0; cache.rows()]);
            for (b, s) in seqs.iter().enumerate() {
                for k in 0..s.rows.len() {
                    t[row(k, b, 2)] = s.targets[k];
                    w[row(k, b, 2)] = s.weights[k];
                }
            }
            crate::nn::loss::weighted_bce_with_logits(&logits, &t, &w)
        };
        let (_, cache) = net.forward(&seqs, None);
        let (_, dl) = loss(&net);
        net.backward(&seqs, &cache, &dl);
        let eps = 1e-2;
        for (pi, k) in [(0usize, 6), (0, 5 * 4), (1, 3), (2, 7), (5, 1), (14, 4), (15, 0)] {
            let ana = net.params_mut()[pi].grad[k];
            let mut p = net.clone();
            p.params_mut()[pi].value[k] += eps;
            let mut m = net.clone();
            m.params_mut()[pi].value[k] -= eps;
            let num = (loss(&p).0 - loss(&m).0) / (2.0 * eps);
            assert!((num - ana).abs() < 2e-3 + 2e-2 * num.abs(), "param {pi}[{k}]: {num} vs {ana}");
        }
        // An unused input row has no gradient.
        assert!(net.input.w.grad[6 * 4..7 * 4].iter().all(|g| *g == 0.0));
        let back = BoilerNet::from_model_file(ModelFile::from_bytes(&net.to_model_file().to_bytes()).unwrap()).unwrap();
        let mut a = net.clone();
        a.params_mut().into_iter().for_each(Param::zero_grad);
        assert_eq!(back, a);
        // A file of the previous input format (no `features` field) is refused by name.
        let mut old = net.to_model_file();
        old.header.as_object_mut().unwrap().remove("features");
        let err = BoilerNet::from_model_file(old).unwrap_err().to_string();
        assert!(err.contains("input feature format 1"), "{err}");
    }
}
