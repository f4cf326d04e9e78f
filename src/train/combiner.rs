//! Training the combiner on the shared sets' gold. The principal function is [`train`]: every
//! page is parsed, segmented and run through the cheap extractors ([`crate::extract::combiner::inputs`]), its
//! blocks labelled from the gold ([`crate::train::labels`]: the word alignment that `eval`
//! scores with, or the snippets), and the boosted trees fitted on the blocks of the training
//! sites, each block weighted by its words (the scores count words; on snippet-labelled pages
//! by a power of them, [`page_weights`]). The shipped model is fitted on every site. A fold
//! model never sees the sites of its held-out fold ([`site_fold`]; fold 0 holds the sites of
//! [`is_holdout_site`]), and [`train`] reports, per set, the held-out blocks' word-weighted
//! P/R/F1 of the combiner next to the rule-based default's. One model per fold is a site-grouped
//! cross-validation: `webcorpus eval --combiner-cv` judges each page by the model of its fold.

#[cfg(doc)]
use crate::eval::dataset::is_holdout_site;
use crate::eval::dataset::{site_fold, Dataset};
use crate::eval::run::par_map;
use crate::extract::combiner::features::{column_names, FEATURES};
use crate::extract::combiner::gbdt::{Gbdt, GbdtParams};
use crate::extract::combiner::{inputs, CombinerModel, MODEL_KIND, MODEL_VERSION};
use crate::extract::justext::JusTextParams;
use crate::extract::stadynot::StaDyNoTParams;
use crate::extract::stoplist::{language_sample, stoplist_for};
use crate::html::{segment, Document};
use crate::train::labels::page_labels;

/// The training weights of one page's labelled blocks, from their words (each at least 1):
/// on a page with full gold text the words themselves (the word scores count words); on a
/// page labelled by snippets (`snippets`) the words to the power `snippet_power`, scaled so
/// the page's weights still sum to its words (0: every snippet block weighs the same, as the
/// snippet score counts snippets whatever their length; 1: as on a full-gold page).
pub fn page_weights(words: &[usize], snippets: bool, snippet_power: f64) -> Vec<f32> {
    let words = words.iter().map(|&w| w.max(1) as f64);
    if !snippets {
        return words.map(|w| w as f32).collect();
    }
    let powered: Vec<f64> = words.clone().map(|w| w.powf(snippet_power)).collect();
    let scale = words.sum::<f64>() / powered.iter().sum::<f64>().max(1e-12);
    powered.iter().map(|p| (p * scale) as f32).collect()
}

/// The labelled blocks of some sets.
#[derive(Debug, Clone, Default)]
pub struct BlockData {
    /// `targets.len() × FEATURES` feature rows.
    pub rows: Vec<f32>,
    /// 1.0 main content, 0.0 boilerplate (unlabelled blocks are left out).
    pub targets: Vec<f32>,
    /// Words of the block (at least 1).
    pub words: Vec<f32>,
    /// Words of the labelled blocks of the block's page (at least 1).
    pub page_words: Vec<f32>,
    /// The block's training weight before [`train`]'s page normalisation ([`page_weights`]).
    pub weights: Vec<f32>,
    /// The `snippet_power` the weights were computed with.
    pub snippet_power: f64,
    /// The rule-based default keeps the block.
    pub refined: Vec<bool>,
    /// Index of the block's set in [`BlockData::sets`].
    pub set: Vec<u16>,
    /// The site fold of the block's page ([`site_fold`]).
    pub fold: Vec<u8>,
    /// Set names.
    pub sets: Vec<String>,
    /// Pages read per set, and pages with at least one labelled block.
    pub pages: Vec<(usize, usize)>,
}

/// Read and label every page of `sets` on `threads` threads; `snippet_power` weighs the blocks
/// of snippet-labelled pages ([`page_weights`]).
pub fn load_blocks(sets: &[Dataset], threads: usize, snippet_power: f64) -> BlockData {
    let mut data = BlockData { snippet_power, ..BlockData::default() };
    let (jt, sd) = (JusTextParams::default(), StaDyNoTParams::default());
    for (s, set) in sets.iter().enumerate() {
        data.sets.push(set.name.clone());
        let pages = par_map(set.pages.len(), threads, |i| {
            let page = &set.pages[i];
            let html = set.read_html(page).ok()?;
            let doc = Document::parse(&html);
            let blocks = segment(&doc);
            let labels = page_labels(page, &blocks)?;
            let stoplist = stoplist_for(None, &language_sample(&blocks));
            let inp = inputs(&doc, &blocks, &stoplist, &jt, &sd).ok()?;
            let words: Vec<usize> = blocks.iter().map(|b| b.words).collect();
            Some((site_fold(&page.site_key()) as u8, labels, inp, words, page.text.is_none()))
        });
        let mut labelled_pages = 0;
        for (fold, labels, inp, words, snippets) in pages.iter().flatten() {
            labelled_pages += usize::from(labels.iter().any(Option::is_some));
            let labelled_words: Vec<usize> =
                labels.iter().zip(words).filter(|(l, _)| l.is_some()).map(|(_, w)| *w).collect();
            let page_words: usize = labelled_words.iter().map(|w| (*w).max(1)).sum();
            let mut weights = page_weights(&labelled_words, *snippets, snippet_power).into_iter();
            for (i, label) in labels.iter().enumerate() {
                let Some(content) = label else { continue };
                data.rows.extend_from_slice(&inp.features[i * FEATURES..(i + 1) * FEATURES]);
                data.targets.push(if *content { 1.0 } else { 0.0 });
                data.words.push(words[i].max(1) as f32);
                data.page_words.push(page_words.max(1) as f32);
                data.weights.push(weights.next().unwrap_or(1.0));
                data.refined.push(inp.refined[i].is_good());
                data.set.push(s as u16);
                data.fold.push(*fold);
            }
        }
        data.pages.push((set.pages.len(), labelled_pages));
    }
    data
}

/// Word-weighted precision, recall and F1 of `predicted` against `data.targets` over the
/// blocks `select` accepts.
pub fn block_prf(data: &BlockData, predicted: &[bool], select: impl Fn(usize) -> bool) -> (f64, f64, f64) {
    let (mut tp, mut fp, mut fn_) = (0.0f64, 0.0f64, 0.0f64);
    for i in (0..data.targets.len()).filter(|&i| select(i)) {
        let w = f64::from(data.words[i]);
        match (predicted[i], data.targets[i] > 0.5) {
            (true, true) => tp += w,
            (true, false) => fp += w,
            (false, true) => fn_ += w,
            (false, false) => {}
        }
    }
    let p = if tp + fp > 0.0 { tp / (tp + fp) } else { 0.0 };
    let r = if tp + fn_ > 0.0 { tp / (tp + fn_) } else { 0.0 };
    let f = if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 };
    (p, r, f)
}

/// One set's held-out comparison.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HoldoutScore {
    /// Set name.
    pub set: String,
    /// Held-out labelled blocks.
    pub blocks: usize,
    /// Word-weighted block P/R/F1 of the combiner.
    pub combiner: (f64, f64, f64),
    /// The same of the rule-based default.
    pub rules: (f64, f64, f64),
}

/// Per set, the scores of `gbdt` at `threshold` and of the rules on the blocks that `held`
/// selects.
fn holdout_scores(data: &BlockData, gbdt: &Gbdt, threshold: f32, held: impl Fn(usize) -> bool) -> Vec<HoldoutScore> {
    let predicted: Vec<bool> =
        data.rows.chunks_exact(FEATURES).map(|row| 1.0 / (1.0 + (-gbdt.logit(row)).exp()) >= threshold).collect();
    data.sets
        .iter()
        .enumerate()
        .map(|(s, name)| {
            let select = |i: usize| held(i) && usize::from(data.set[i]) == s;
            HoldoutScore {
                set: name.clone(),
                blocks: (0..data.targets.len()).filter(|&i| select(i)).count(),
                combiner: block_prf(data, &predicted, select),
                rules: block_prf(data, &data.refined, select),
            }
        })
        .collect()
}

/// Fit the combiner on the blocks of `data` outside site fold `held_out` and score it on the
/// blocks of that fold (fold 0: the sites of [`is_holdout_site`]); with `None`, on every block
/// (the shipped model), and the scores are empty. A block
/// weighs its [`BlockData::weights`] divided by its page's labelled words to the power `page_power`
/// (0: every word weighs the same, as the micro scores count; 1: every page weighs the same,
/// as the page-averaged shingle scores count).
pub fn train(
    data: &BlockData,
    params: &GbdtParams,
    threshold: f32,
    page_power: f64,
    held_out: Option<usize>,
    threads: usize,
) -> (CombinerModel, Vec<HoldoutScore>) {
    let held = |i: usize| Some(usize::from(data.fold[i])) == held_out;
    let train_idx: Vec<usize> = (0..data.targets.len()).filter(|&i| !held(i)).collect();
    let mut rows = Vec::with_capacity(train_idx.len() * FEATURES);
    for &i in &train_idx {
        rows.extend_from_slice(&data.rows[i * FEATURES..(i + 1) * FEATURES]);
    }
    let targets: Vec<f32> = train_idx.iter().map(|&i| data.targets[i]).collect();
    let raw: Vec<f64> = train_idx
        .iter()
        .map(|&i| f64::from(data.weights[i]) / f64::from(data.page_words[i]).powf(page_power))
        .collect();
    let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
    let weights: Vec<f32> = raw.iter().map(|w| (w / mean.max(1e-12)) as f32).collect();
    let gbdt = Gbdt::train(&rows, FEATURES, &targets, &weights, params, threads);
    let scores = match held_out {
        None => Vec::new(),
        Some(_) => holdout_scores(data, &gbdt, threshold, held),
    };
    let model = CombinerModel {
        kind: MODEL_KIND.into(),
        version: MODEL_VERSION,
        columns: column_names(),
        threshold,
        provenance: serde_json::json!({
            "sets": data.sets,
            "training_blocks": train_idx.len(),
            "params": params,
            "page_power": page_power,
            "snippet_power": data.snippet_power,
            "held_out_fold": held_out,
            "holdout": scores,
        }),
        gbdt,
    };
    (model, scores)
}

#[cfg(test)]
mod tests {
    use super::page_weights;

    /// The shipped model and the cross-validation files come from one training run: the same
    /// sets and parameters, the shipped model fitted on every labelled block, fold `k`'s model
    /// on all but fold `k`'s (so the folds' training blocks sum to four times the shipped
    /// model's).
    #[test]
    fn the_shipped_model_is_trained_on_every_fold() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/combiner-cv");
        let shipped = crate::extract::combiner::shipped().expect("shipped model");
        let p = &shipped.provenance;
        assert!(p["held_out_fold"].is_null(), "the shipped model holds out fold {}", p["held_out_fold"]);
        let all = p["training_blocks"].as_u64().expect("training_blocks");
        let mut folds_sum = 0;
        for k in 0..crate::eval::dataset::SITE_FOLDS {
            let fold = crate::extract::combiner::CombinerModel::load(&dir.join(format!("fold-{k}.json")))
                .expect("fold model loads");
            let q = &fold.provenance;
            assert_eq!(q["held_out_fold"].as_u64(), Some(k as u64));
            assert_eq!((&q["sets"], &q["params"], &q["page_power"]), (&p["sets"], &p["params"], &p["page_power"]));
            assert_eq!(q["snippet_power"], p["snippet_power"]);
            folds_sum += q["training_blocks"].as_u64().expect("training_blocks");
        }
        assert_eq!(folds_sum, (crate::eval::dataset::SITE_FOLDS as u64 - 1) * all);
    }

    #[test]
    fn snippet_pages_share_the_page_weight_by_a_power_of_the_words() {
        let words = [1, 4, 16, 0];
        assert_eq!(page_weights(&words, false, 0.0), vec![1.0, 4.0, 16.0, 1.0]);
        let equal = page_weights(&words, true, 0.0);
        assert!(equal.iter().all(|w| (w - 22.0 / 4.0).abs() < 1e-4), "{equal:?}");
        let root = page_weights(&words, true, 0.5);
        assert!((root.iter().sum::<f32>() - 22.0).abs() < 1e-3, "{root:?}");
        assert!((root[2] / root[1] - 2.0).abs() < 1e-4 && (root[1] / root[0] - 2.0).abs() < 1e-4, "{root:?}");
        assert_eq!(page_weights(&words, true, 1.0), page_weights(&words, false, 0.5));
    }
}
