//! Training BoilerNet on the shared sets, on the CPU. The principal function is [`train`]:
//! Adam (lr 1e-3, Keras' default as in the authors' `train.py`) on weighted binary
//! cross-entropy with "balanced" class weights (`N / (2 · N_class)` over the labelled training
//! blocks, as the authors' `get_class_weights`), batches of pages of similar length, dropout,
//! and after every epoch the validation loss and block P/R/F1 of the content class; the epoch
//! with the best validation F1 is kept (§4.2: "we choose the best checkpoint based on the score
//! on the validation set").
//!
//! [`load_pages`] reads, parses, segments and labels every page ([`crate::train::labels`]); pages are
//! split by site with [`is_holdout_site`]: held-out sites are the validation pages, and the
//! vocabularies are built from the training pages only. A batch is spread over `threads`
//! worker threads (each runs its share of the pages on its own replica of the network; the
//! gradients are summed before the Adam step), so one step does the same arithmetic whatever
//! the thread count.

use crate::eval::dataset::{is_holdout_site, Dataset};
use crate::eval::metrics::Prf;
use crate::eval::run::par_map;
use crate::extract::boilernet::features::{page_stoplist, page_tokens, BlockTokens, Vocab};
use crate::extract::boilernet::model::{BoilerNet, NetConfig, Sequence};
use crate::extract::boilernet::BoilernetError;
use crate::html::{segment, Document};
use crate::nn::loss::weighted_bce_with_logits;
use crate::nn::Adam;
use crate::train::labels::page_labels;
use std::time::Instant;

/// Hyper-parameters of a training run. [`Default`] is the paper's (dense 256, 2 × BiLSTM 256,
/// dropout 0.5, 20 epochs, batch 16, top 50 tags, top 1,000 words).
#[derive(Debug, Clone)]
pub struct TrainOptions {
    /// Layer sizes.
    pub net: NetConfig,
    /// Passes over the training pages.
    pub epochs: usize,
    /// Pages per batch.
    pub batch: usize,
    /// Adam learning rate.
    pub lr: f32,
    /// Seed of initialisation, shuffling and dropout.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Tag vocabulary size.
    pub max_tags: usize,
    /// Word vocabulary size.
    pub max_words: usize,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            net: NetConfig::default(),
            epochs: 20,
            batch: 16,
            lr: 1e-3,
            seed: 1,
            threads: 1,
            max_tags: crate::extract::boilernet::features::DEFAULT_TAGS,
            max_words: crate::extract::boilernet::features::DEFAULT_WORDS,
        }
    }
}

/// One labelled page, tokenised.
#[derive(Debug, Clone)]
pub struct PageData {
    /// The set's name.
    pub set: String,
    /// Gold id.
    pub id: String,
    /// Site key ([`crate::eval::dataset::GoldPage::site_key`]).
    pub site: String,
    /// True for a held-out (validation) site.
    pub holdout: bool,
    /// Tokens per block.
    pub tokens: Vec<BlockTokens>,
    /// Label per block (`None` = unlabelled).
    pub labels: Vec<Option<bool>>,
}

/// How many pages and blocks the gold labelled, per set.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct LabelStats {
    /// The set.
    pub set: String,
    /// Pages in the set (after the limit).
    pub pages: usize,
    /// Pages with at least one labelled block.
    pub labelled_pages: usize,
    /// Pages on held-out sites among those.
    pub holdout_pages: usize,
    /// Pages that could not be read.
    pub unreadable: usize,
    /// Blocks of the labelled pages.
    pub blocks: usize,
    /// Blocks with a label.
    pub labelled_blocks: usize,
    /// Blocks labelled content.
    pub content_blocks: usize,
}

/// Read, segment, tokenise and label the pages of `sets` (the first `limit` per set) on
/// `threads` threads. Pages with full gold text are labelled by the word alignment, pages with
/// only snippets by the snippets; other pages and unreadable ones are left out (and counted).
pub fn load_pages(sets: &[Dataset], limit: Option<usize>, threads: usize) -> (Vec<PageData>, Vec<LabelStats>) {
    let mut pages = Vec::new();
    let mut stats = Vec::new();
    for set in sets {
        let n = limit.map_or(set.pages.len(), |l| l.min(set.pages.len()));
        let loaded: Vec<Option<PageData>> = par_map(n, threads, |i| {
            let page = &set.pages[i];
            let html = set.read_html(page).ok()?;
            let doc = Document::parse(&html);
            let blocks = segment(&doc);
            let labels = page_labels(page, &blocks)?;
            let site = page.site_key();
            Some(PageData {
                set: set.name.clone(),
                id: page.id.clone(),
                holdout: is_holdout_site(&site),
                site,
                tokens: page_tokens(&blocks, &page_stoplist(&blocks)),
                labels,
            })
        });
        let mut s = LabelStats { set: set.name.clone(), pages: n, ..LabelStats::default() };
        for p in loaded {
            let Some(p) = p else {
                s.unreadable += 1;
                continue;
            };
            let labelled = p.labels.iter().filter(|l| l.is_some()).count();
            if labelled == 0 {
                continue;
            }
            s.labelled_pages += 1;
            s.holdout_pages += usize::from(p.holdout);
            s.blocks += p.labels.len();
            s.labelled_blocks += labelled;
            s.content_blocks += p.labels.iter().filter(|l| **l == Some(true)).count();
            pages.push(p);
        }
        stats.push(s);
    }
    (pages, stats)
}

/// One epoch's numbers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EpochReport {
    /// 1-based epoch.
    pub epoch: usize,
    /// Mean weighted BCE over the training blocks (with dropout).
    pub train_loss: f64,
    /// Mean weighted BCE over the validation blocks.
    pub val_loss: f64,
    /// Validation block counts of the content class (threshold 0.5).
    pub val: Prf,
    /// Seconds of the epoch (training and validation).
    pub secs: f64,
}

/// Progress of [`train`].
pub enum TrainEvent<'a> {
    /// A batch finished: batches done and total in this epoch, its mean loss.
    Batch {
        /// Batches done.
        done: usize,
        /// Batches per epoch.
        total: usize,
        /// The batch's mean loss.
        loss: f64,
    },
    /// An epoch finished.
    Epoch(&'a EpochReport),
}

/// The result of [`train`].
#[derive(Debug, Clone)]
pub struct Trained {
    /// The network of the best epoch (by validation F1; the last epoch without validation).
    pub model: BoilerNet,
    /// Every epoch's numbers.
    pub epochs: Vec<EpochReport>,
    /// The kept epoch (1-based).
    pub best_epoch: usize,
    /// Loss weights of the classes `[boilerplate, content]`.
    pub class_weights: [f32; 2],
    /// Training and validation pages.
    pub pages: (usize, usize),
}

fn sequence(net: &BoilerNet, p: &PageData, cw: [f32; 2]) -> Sequence {
    let rows = net.rows(&p.tokens);
    let targets = p.labels.iter().map(|l| if *l == Some(true) { 1.0 } else { 0.0 }).collect();
    let weights = p.labels.iter().map(|l| l.map_or(0.0, |c| cw[usize::from(c)])).collect();
    Sequence { rows, targets, weights }
}

/// Targets and weights of a batch, time-major like the logits.
fn batch_targets(seqs: &[&Sequence]) -> (Vec<f32>, Vec<f32>) {
    let batch = seqs.len();
    let steps = seqs.iter().map(|s| s.rows.len()).max().unwrap_or(0);
    let (mut t, mut w) = (vec![0.0; steps * batch], vec![0.0; steps * batch]);
    for (b, s) in seqs.iter().enumerate() {
        for k in 0..s.rows.len() {
            t[k * batch + b] = s.targets[k];
            w[k * batch + b] = s.weights[k];
        }
    }
    (t, w)
}

/// Forward and backward of one share of a batch; gradients scaled to the whole batch's
/// weight `total`. Returns the share's summed weighted loss.
fn share_step(net: &mut BoilerNet, seqs: &[&Sequence], total: f32, rng: &mut fastrand::Rng) -> f64 {
    if seqs.is_empty() {
        return 0.0;
    }
    let (logits, cache) = net.forward(seqs, Some(rng));
    let (t, w) = batch_targets(seqs);
    let sw: f32 = w.iter().sum();
    let (loss, mut grad) = weighted_bce_with_logits(&logits, &t, &w);
    let scale = if total > 0.0 { sw / total } else { 0.0 };
    grad.iter_mut().for_each(|g| *g *= scale);
    net.backward(seqs, &cache, &grad);
    f64::from(loss) * f64::from(sw)
}

/// Validation loss (mean weighted BCE) and block counts of the content class.
pub fn evaluate(net: &BoilerNet, seqs: &[Sequence], threads: usize) -> (f64, Prf) {
    let per: Vec<(f64, f64, Prf)> = par_map(seqs.len(), threads, |i| {
        let s = &seqs[i];
        let (logits, _) = net.forward(&[s], None);
        let (loss, _) = weighted_bce_with_logits(&logits, &s.targets, &s.weights);
        let sw: f32 = s.weights.iter().sum();
        let mut prf = Prf::default();
        for ((z, t), w) in logits.iter().zip(&s.targets).zip(&s.weights) {
            if *w > 0.0 {
                match (*z >= 0.0, *t > 0.5) {
                    (true, true) => prf.tp += 1,
                    (true, false) => prf.fp += 1,
                    (false, true) => prf.fn_ += 1,
                    (false, false) => {}
                }
            }
        }
        (f64::from(loss) * f64::from(sw), f64::from(sw), prf)
    });
    let mut prf = Prf::default();
    let (mut l, mut w) = (0.0, 0.0);
    for (a, b, p) in per {
        l += a;
        w += b;
        prf.add(p);
    }
    (if w > 0.0 { l / w } else { 0.0 }, prf)
}

/// Train BoilerNet on the non-held-out `pages`, validating on the held-out ones after every
/// epoch (see the module doc). `on_event` sees every batch and epoch.
///
/// # Errors
/// [`BoilernetError::NoData`] when no training page has a labelled block.
pub fn train(
    pages: &[PageData],
    opts: &TrainOptions,
    on_event: &mut dyn FnMut(TrainEvent<'_>),
) -> Result<Trained, BoilernetError> {
    let train_pages: Vec<&PageData> = pages.iter().filter(|p| !p.holdout).collect();
    let val_pages: Vec<&PageData> = pages.iter().filter(|p| p.holdout).collect();
    if train_pages.is_empty() {
        return Err(BoilernetError::NoData(format!("{} pages, all on held-out sites", pages.len())));
    }
    let vocab = Vocab::build(train_pages.iter().flat_map(|p| &p.tokens), opts.max_tags, opts.max_words);
    let mut rng = fastrand::Rng::with_seed(opts.seed);
    let mut net = BoilerNet::new(vocab, opts.net, &mut rng);
    let (mut n0, mut n1) = (0usize, 0usize);
    for l in train_pages.iter().flat_map(|p| &p.labels).flatten() {
        if *l {
            n1 += 1
        } else {
            n0 += 1
        }
    }
    let n = (n0 + n1) as f32;
    let cw = [n / (2.0 * n0.max(1) as f32), n / (2.0 * n1.max(1) as f32)];
    let train_seqs: Vec<Sequence> = train_pages.iter().map(|p| sequence(&net, p, cw)).collect();
    let val_seqs: Vec<Sequence> = val_pages.iter().map(|p| sequence(&net, p, cw)).collect();
    let threads = opts.threads.max(1);
    let batch = opts.batch.max(1);
    let mut adam = Adam::new(opts.lr);
    let mut replicas: Vec<BoilerNet> = (1..threads).map(|_| net.clone()).collect();
    let mut best: Option<(f64, usize, BoilerNet)> = None;
    let mut reports = Vec::new();
    for epoch in 1..=opts.epochs.max(1) {
        let start = Instant::now();
        // Batches of pages of similar length (less padding), in random order.
        let mut order: Vec<usize> = (0..train_seqs.len()).collect();
        rng.shuffle(&mut order);
        let mut batches: Vec<Vec<usize>> = Vec::new();
        for chunk in order.chunks(batch * 16) {
            let mut chunk = chunk.to_vec();
            chunk.sort_by_key(|&i| train_seqs[i].rows.len());
            batches.extend(chunk.chunks(batch).map(<[usize]>::to_vec));
        }
        rng.shuffle(&mut batches);
        let (mut loss_sum, mut weight_sum) = (0.0f64, 0.0f64);
        for (bi, b) in batches.iter().enumerate() {
            let total: f32 = b.iter().map(|&i| train_seqs[i].weights.iter().sum::<f32>()).sum();
            // Share k takes every threads-th page of the length-sorted batch.
            let shares: Vec<Vec<&Sequence>> =
                (0..threads).map(|k| b.iter().skip(k).step_by(threads).map(|&i| &train_seqs[i]).collect()).collect();
            let seed = opts.seed ^ ((epoch as u64) << 40) ^ ((bi as u64) << 8);
            let mut batch_loss = 0.0;
            std::thread::scope(|s| {
                let handles: Vec<_> = replicas
                    .iter_mut()
                    .zip(&shares[1..])
                    .enumerate()
                    .map(|(k, (r, share))| {
                        s.spawn(move || share_step(r, share, total, &mut fastrand::Rng::with_seed(seed + k as u64 + 1)))
                    })
                    .collect();
                batch_loss += share_step(&mut net, &shares[0], total, &mut fastrand::Rng::with_seed(seed));
                for h in handles {
                    batch_loss += h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                }
            });
            for r in &mut replicas {
                for (m, p) in net.params_mut().into_iter().zip(r.params_mut()) {
                    for (g, rg) in m.grad.iter_mut().zip(p.grad.iter_mut()) {
                        *g += *rg;
                        *rg = 0.0;
                    }
                }
            }
            adam.step(&mut net.params_mut());
            for r in &mut replicas {
                for (m, p) in net.params_mut().into_iter().zip(r.params_mut()) {
                    p.value.copy_from_slice(&m.value);
                }
            }
            loss_sum += batch_loss;
            weight_sum += f64::from(total);
            let mean = if total > 0.0 { batch_loss / f64::from(total) } else { 0.0 };
            on_event(TrainEvent::Batch { done: bi + 1, total: batches.len(), loss: mean });
        }
        let (val_loss, val) = evaluate(&net, &val_seqs, threads);
        let report = EpochReport {
            epoch,
            train_loss: if weight_sum > 0.0 { loss_sum / weight_sum } else { 0.0 },
            val_loss,
            val,
            secs: start.elapsed().as_secs_f64(),
        };
        on_event(TrainEvent::Epoch(&report));
        let score = if val_seqs.is_empty() { epoch as f64 } else { val.f1() };
        if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
            best = Some((score, epoch, net.clone()));
        }
        reports.push(report);
    }
    let (_, best_epoch, model) = best.ok_or_else(|| BoilernetError::NoData("no epoch ran".into()))?;
    Ok(Trained { model, epochs: reports, best_epoch, class_weights: cw, pages: (train_seqs.len(), val_seqs.len()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny network trained for a few epochs on a dozen real CleanEval pages: the training
    /// loss falls, validation runs on the held-out sites among them, and the model survives a
    /// save/load round trip unchanged.
    #[test]
    fn a_tiny_model_learns_and_round_trips() {
        let Some(set) = crate::eval::dataset::test_set("cleaneval") else { return };
        let (pages, stats) = load_pages(&[set], Some(16), 2);
        assert_eq!(stats[0].pages, 16);
        assert!(stats[0].labelled_blocks > 100 && stats[0].content_blocks > 20, "{stats:?}");
        assert!(pages.iter().any(|p| p.holdout) && pages.iter().any(|p| !p.holdout), "both sides of the split");
        let opts = TrainOptions {
            net: NetConfig { dense: 8, hidden: 4, layers: 2, dropout: 0.0 },
            epochs: 4,
            batch: 4,
            lr: 1e-2,
            seed: 3,
            threads: 2,
            max_tags: 20,
            max_words: 100,
        };
        let mut batches = 0;
        let trained = train(&pages, &opts, &mut |e| {
            if let TrainEvent::Batch { .. } = e {
                batches += 1
            }
        })
        .unwrap();
        assert_eq!(trained.epochs.len(), 4);
        assert!(batches >= 4);
        let (first, last) = (trained.epochs[0].train_loss, trained.epochs[3].train_loss);
        assert!(last < first, "training loss did not fall: {first} → {last}");
        assert!(trained.epochs.iter().all(|e| e.val.tp + e.val.fn_ > 0), "validation has content blocks");
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("bn.wcnn");
        trained.model.to_model_file().save(&path).unwrap();
        let back = crate::extract::boilernet::extractor::load(&path).unwrap();
        assert_eq!(back, trained.model);
        let rows = back.rows(&pages[0].tokens);
        assert_eq!(back.predict(rows.clone()), trained.model.predict(rows));
    }
}

/// The shipped BoilerNet model's floors on held-out pages (`eval` over `extract`).
#[cfg(test)]
mod floor_tests {
    use crate::eval::dataset::Split;
    use crate::eval::run::{evaluate_set, EvalOptions};
    use crate::extract::boilernet::extractor::{shipped, THRESHOLD};
    use crate::extract::boilernet::features::{page_stoplist, page_tokens};
    use crate::extract::ExtractorKind;
    use crate::html::Document;
    use crate::train::labels::gold_labels;

    /// The shipped model on the first 40 held-out pages (sites it never trained on) of CleanEval
    /// and modern2026-dev: block F1 of the content class against the gold alignment labels,
    /// and the word F1 `webcorpus eval` reports. Floors sit a little under what was measured.
    #[test]
    fn shipped_model_floors_on_held_out_pages() {
        let model = shipped().unwrap();
        // (set, block F1 floor, word F1 floor). Measured (shipped model, format 2): cleaneval
        // block 0.917 / word 0.969, modern2026-dev block 0.914 / word 0.944.
        for (name, block_floor, word_floor) in [("cleaneval", 0.90, 0.955), ("modern2026-dev", 0.90, 0.93)] {
            let Some(mut set) = crate::eval::dataset::test_set(name) else { return };
            set.retain_split(Split::Holdout);
            set.truncate(40);
            let mut blocks = crate::eval::metrics::Prf::default();
            for page in &set.pages {
                let (Ok(html), Some(gold)) = (set.read_html(page), &page.text) else { continue };
                let doc = Document::parse(&html);
                let b = crate::html::segment(&doc);
                let gold = gold_labels(&b, gold);
                let tokens = page_tokens(&b, &page_stoplist(&b));
                for (p, g) in model.predict(model.rows(&tokens)).into_iter().zip(gold) {
                    match (p >= THRESHOLD, g == Some(true)) {
                        (true, true) => blocks.tp += 1,
                        (true, false) => blocks.fp += 1,
                        (false, true) => blocks.fn_ += 1,
                        (false, false) => {}
                    }
                }
            }
            let opts = EvalOptions::new(vec![ExtractorKind::Boilernet]);
            let report = evaluate_set(&set, &opts);
            let word = report.rows[0].summary.word.micro().f1();
            eprintln!("{name}: {} held-out pages, block F1 {:.4}, word F1 {word:.4}", set.pages.len(), blocks.f1());
            assert_eq!(set.pages.len(), 40);
            assert!(blocks.f1() > block_floor, "{name}: block F1 {} under {block_floor}", blocks.f1());
            assert!(word > word_floor, "{name}: word F1 {word} under {word_floor}");
        }
    }

    /// The shipped model on the first 60 held-out trafilatura-eval pages (mostly German, also
    /// French, Spanish, Polish; snippet gold): the model must keep the `with` snippets of
    /// non-English pages (the paper's English-vocabulary input kept nothing on many of them:
    /// snippet F1 0.28 over the whole set). Floor a little under what was measured.
    #[test]
    fn shipped_model_floor_on_held_out_multilingual_pages() {
        let Some(mut set) = crate::eval::dataset::test_set("trafilatura-eval") else { return };
        set.retain_split(Split::Holdout);
        set.truncate(60);
        let opts = EvalOptions::new(vec![ExtractorKind::Boilernet]);
        let report = evaluate_set(&set, &opts);
        let s = &report.rows[0].summary.snippets;
        eprintln!(
            "trafilatura-eval: {} held-out pages, snippet P {:.4} R {:.4} F1 {:.4}",
            set.pages.len(),
            s.precision(),
            s.recall(),
            s.f1()
        );
        assert_eq!(set.pages.len(), 60);
        // Measured (shipped model, format 2): snippet P 0.880, R 0.923, F1 0.901.
        assert!(s.f1() > 0.87, "snippet F1 {} under 0.87", s.f1());
    }
}
