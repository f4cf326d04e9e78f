//! Training the host-evidence model ([`crate::extract::host_evidence`]) on the shared sets'
//! multi-page hosts. The principal functions are [`load_host_rows`] and [`train`]: on every
//! host with at least `min_sample` pages, each page is extracted with the host's model learned
//! from its *other* pages (leave-one-out, as `eval --leave-one-out` does) and with the combiner
//! of the site fold that never saw it (`models/combiner-cv`), so the rows hold the evidence as
//! it looks on a page the models never saw; its blocks are labelled from the gold
//! ([`crate::train::labels`]). A fold model never sees the hosts of its held-out site fold
//! ([`site_fold`]), and [`train`] reports, per set, the held-out blocks' word-weighted P/R/F1
//! of the learned decision next to step 5's rules and the unlearned labels.

use crate::domain::{learn, LearnParams, SamplePage};
use crate::eval::dataset::{site_fold, Dataset};
use crate::eval::run::par_map;
use crate::extract::combiner::gbdt::{Gbdt, GbdtParams};
use crate::extract::combiner::CombinerModel;
use crate::extract::host_evidence::{
    decides, has_evidence, HostEvidenceModel, COLUMNS, FEATURES, MODEL_KIND, MODEL_VERSION,
};
use crate::extract::pipeline::{is_firm, page_labels, ExtractSettings};
use crate::extract::ExtractorKind;
use crate::html::{segment, Document};
use crate::train::combiner::block_prf;
use crate::train::combiner::BlockData;
use std::sync::Arc;

/// The labelled host-evidence rows of some sets, with the labels they are compared against.
#[derive(Debug, Clone, Default)]
pub struct HostRows {
    /// The rows, [`BlockData::targets`] `× FEATURES`, and their targets, words, weights
    /// (words / √page words), set and site fold; [`BlockData::refined`] holds the labels of
    /// step 5's rules.
    pub data: BlockData,
    /// Per row: the label without the host model (the row's `unlearned_keeps` column).
    pub unlearned: Vec<bool>,
    /// Per row: the index of its host in [`HostRows::hosts`].
    pub host: Vec<u32>,
    /// `set/host` of every host with a model.
    pub hosts: Vec<String>,
}

/// Extract every page of the hosts of `sets` with at least `learn.min_sample` pages, each with
/// its leave-one-out host model and the combiner `folds[site_fold(site)]`, and collect the rows
/// of the pages where the host model applies, on `threads` threads.
pub fn load_host_rows(
    sets: &[Dataset],
    folds: &[Arc<CombinerModel>],
    settings: &ExtractSettings,
    learn_params: &LearnParams,
    threads: usize,
) -> HostRows {
    let mut out = HostRows { data: BlockData { snippet_power: 0.5, ..BlockData::default() }, ..HostRows::default() };
    for (s, set) in sets.iter().enumerate() {
        out.data.sets.push(set.name.clone());
        let (mut pages_read, mut pages_with_rows) = (0, 0);
        for (host, pages) in set.sites() {
            if !crate::domain::learns_whole_site(learn_params, pages.len()) {
                continue;
            }
            let sample = set.sample_pages(&pages);
            let host_index = out.hosts.len() as u32;
            out.hosts.push(format!("{}/{host}", set.name));
            let per_page = par_map(sample.len(), threads, |k| {
                let others: Vec<SamplePage> =
                    sample.iter().enumerate().filter(|(j, _)| *j != k).map(|(_, (_, p))| p.clone()).collect();
                let model = learn(&host, &others, settings.language.as_deref(), &settings.justext, learn_params);
                let page = &set.pages[sample[k].0];
                let fold = site_fold(&page.site_key());
                let fold_settings = ExtractSettings {
                    combiner: folds.get(fold % folds.len().max(1)).cloned(),
                    host_rules: true,
                    ..settings.clone()
                };
                let doc = Document::parse(&sample[k].1.html);
                let blocks = segment(&doc);
                let gold = crate::train::labels::page_labels(page, &blocks)?;
                let learned =
                    page_labels(&doc, &blocks, ExtractorKind::Default, Some(model.view()), &fold_settings).ok()?;
                let rows = learned.host_features?;
                Some((fold as u8, gold, rows, learned.labels, blocks, page.text.is_none()))
            });
            pages_read += sample.len();
            for (fold, gold, rows, rules, blocks, snippets) in per_page.into_iter().flatten() {
                pages_with_rows += 1;
                let labelled: Vec<usize> =
                    gold.iter().zip(&blocks).filter(|(g, _)| g.is_some()).map(|(_, b)| b.words).collect();
                let page_words: usize = labelled.iter().map(|w| (*w).max(1)).sum();
                let mut weights = crate::train::combiner::page_weights(&labelled, snippets, 0.5).into_iter();
                for (i, label) in gold.iter().enumerate() {
                    let Some(content) = label else { continue };
                    let d = &mut out.data;
                    d.rows.extend_from_slice(&rows[i * FEATURES..(i + 1) * FEATURES]);
                    d.targets.push(if *content { 1.0 } else { 0.0 });
                    d.words.push(blocks[i].words.max(1) as f32);
                    d.page_words.push(page_words.max(1) as f32);
                    d.weights.push(weights.next().unwrap_or(1.0));
                    d.refined.push(rules[i].is_good());
                    d.set.push(s as u16);
                    d.fold.push(fold);
                    out.unlearned.push(rows[i * FEATURES + UNLEARNED] > 0.5);
                    out.host.push(host_index);
                }
            }
        }
        out.data.pages.push((pages_read, pages_with_rows));
    }
    out
}

/// The columns of the combiner's logit and of its answer giving way ([`COLUMNS`]).
const LOGIT: usize = 0;
const GAVE_WAY: usize = 1;
/// The column of the label without the host model ([`COLUMNS`]).
const UNLEARNED: usize = 2;

/// One set's held-out comparison of the three decisions, word-weighted block P/R/F1.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HostHoldout {
    /// Set name.
    pub set: String,
    /// Held-out labelled blocks.
    pub blocks: usize,
    /// The host-evidence model where it decides ([`decides`]), step 5's rules elsewhere.
    pub learned: (f64, f64, f64),
    /// Step 5's rules.
    pub rules: (f64, f64, f64),
    /// Without the host model.
    pub unlearned: (f64, f64, f64),
}

/// Fit the host-evidence model on the rows outside site fold `held_out` (every row with
/// `None`, the shipped model) and score it on that fold's rows, per set. A row weighs its
/// words divided by the square root of its page's labelled words, as the combiner's.
pub fn train(
    rows: &HostRows,
    params: &GbdtParams,
    threshold: f32,
    held_out: Option<usize>,
    threads: usize,
) -> (HostEvidenceModel, Vec<HostHoldout>) {
    let d = &rows.data;
    let held = |i: usize| Some(usize::from(d.fold[i])) == held_out;
    let train_idx: Vec<usize> = (0..d.targets.len()).filter(|&i| !held(i)).collect();
    let mut x = Vec::with_capacity(train_idx.len() * FEATURES);
    for &i in &train_idx {
        x.extend_from_slice(&d.rows[i * FEATURES..(i + 1) * FEATURES]);
    }
    let targets: Vec<f32> = train_idx.iter().map(|&i| d.targets[i]).collect();
    let raw: Vec<f64> =
        train_idx.iter().map(|&i| f64::from(d.weights[i]) / f64::from(d.page_words[i]).sqrt()).collect();
    let mean = raw.iter().sum::<f64>() / raw.len().max(1) as f64;
    let weights: Vec<f32> = raw.iter().map(|w| (w / mean.max(1e-12)) as f32).collect();
    let gbdt = Gbdt::train(&x, FEATURES, &targets, &weights, params, threads);
    let model = HostEvidenceModel {
        kind: MODEL_KIND.into(),
        version: MODEL_VERSION,
        columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
        threshold,
        provenance: serde_json::Value::Null,
        gbdt,
    };
    let scores = match held_out {
        None => Vec::new(),
        Some(_) => {
            // The decision of step 5 with the model: its label where the combiner is not firm,
            // the block has host evidence and the model is sure, the rules' elsewhere.
            let predicted: Vec<bool> = model
                .probabilities(&d.rows)
                .iter()
                .zip(d.rows.chunks_exact(FEATURES))
                .zip(&d.refined)
                .map(|((&p, row), &rules)| {
                    let combiner = 1.0 / (1.0 + (-row[LOGIT]).exp());
                    decides(p, threshold, is_firm(combiner, row[GAVE_WAY] > 0.5))
                        .filter(|_| has_evidence(row))
                        .unwrap_or(rules)
                })
                .collect();
            d.sets
                .iter()
                .enumerate()
                .map(|(s, name)| {
                    let select = |i: usize| held(i) && usize::from(d.set[i]) == s;
                    HostHoldout {
                        set: name.clone(),
                        blocks: (0..d.targets.len()).filter(|&i| select(i)).count(),
                        learned: block_prf(d, &predicted, select),
                        rules: block_prf(d, &d.refined, select),
                        unlearned: block_prf(d, &rows.unlearned, select),
                    }
                })
                .collect()
        }
    };
    let model = HostEvidenceModel {
        provenance: serde_json::json!({
            "sets": d.sets,
            "hosts": rows.hosts.len(),
            "training_blocks": train_idx.len(),
            "params": params,
            "held_out_fold": held_out,
            "holdout": scores,
        }),
        ..model
    };
    (model, scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_combiner_columns_are_where_the_holdout_reads_them() {
        assert_eq!(COLUMNS[LOGIT], "combiner_logit");
        assert_eq!(COLUMNS[GAVE_WAY], "combiner_gave_way");
        assert_eq!(COLUMNS[UNLEARNED], "unlearned_keeps");
    }
}
