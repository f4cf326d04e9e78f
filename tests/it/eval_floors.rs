//! Quality floors of every extractor on every shared evaluation set (issue 3): a fixed subset
//! of each set (the first `PAGES` pages; all of CleanPortalEval, whose per-site models need
//! every page) is extracted with every registered extractor and scored with the set's usual
//! metric. A floor sits a little under the measured value and only ever moves up; a new
//! extractor must add its floors here (the test fails on a missing one).
//!
//! Metrics: word-level micro F1 (CleanEval alignment) on cleaneval, cleanportaleval, l3s-gn1;
//! shingle F1 on modern2026-dev; snippet F1 on trafilatura-eval (see `webcorpus eval`).

use crate::support;

use std::sync::Arc;
use webcorpus::eval::dataset::{Dataset, SITE_FOLDS};
use webcorpus::eval::report::Scores;
use webcorpus::eval::run::{evaluate_set, EvalOptions};
use webcorpus::extract::combiner::CombinerModel;
use webcorpus::extract::host_evidence::HostEvidenceModel;
use webcorpus::extract::ExtractorKind;

/// The combiner's fold models (`models/combiner-cv`, written by `webcorpus train combiner
/// --cv`): model `k` never saw the sites of fold `k`.
fn fold_models() -> Arc<Vec<CombinerModel>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/combiner-cv");
    Arc::new(
        (0..SITE_FOLDS)
            .map(|k| CombinerModel::load(&dir.join(format!("fold-{k}.json"))).expect("fold model loads"))
            .collect(),
    )
}

/// The host-evidence model's fold models (`models/combiner-cv/host-evidence-fold-K.json`,
/// written by `webcorpus train host-evidence --cv`): model `k` never saw the hosts of fold `k`.
fn host_evidence_folds() -> Arc<Vec<HostEvidenceModel>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/combiner-cv");
    Arc::new(
        (0..SITE_FOLDS)
            .map(|k| {
                HostEvidenceModel::load(&dir.join(format!("host-evidence-fold-{k}.json"))).expect("fold model loads")
            })
            .collect(),
    )
}

/// Pages per set (the first ones, in the set's order).
const PAGES: usize = 80;

/// (set, metric, [(extractor, floor)]).
type SetFloors = (&'static str, Metric, &'static [(&'static str, f64)]);

#[derive(Debug, Clone, Copy)]
enum Metric {
    Word,
    Shingle,
    Snippet,
}

impl Metric {
    fn of(self, s: &Scores) -> f64 {
        match self {
            Metric::Word => s.word_f1,
            Metric::Shingle => s.shingle_f1,
            Metric::Snippet => s.snippet_f1,
        }
    }
}

const FLOORS: &[SetFloors] = &[
    (
        "cleaneval",
        Metric::Word,
        &[
            ("default", 0.94),
            ("rules", 0.93),
            ("justext", 0.90),
            ("goldminer", 0.90),
            ("stadynot", 0.93),
            ("bte", 0.93),
            ("boilerpipe", 0.85),
            ("boilerpipe-tree", 0.82),
            ("boilernet", 0.94),
        ],
    ),
    (
        "cleanportaleval",
        Metric::Word,
        &[
            ("default", 0.978),
            ("rules", 0.978),
            ("justext", 0.86),
            ("goldminer", 0.98),
            ("stadynot", 0.88),
            ("bte", 0.83),
            ("boilerpipe", 0.96),
            ("boilerpipe-tree", 0.93),
            ("boilernet", 0.93),
        ],
    ),
    (
        "l3s-gn1",
        Metric::Word,
        &[
            ("default", 0.97),
            ("rules", 0.96),
            ("justext", 0.87),
            ("goldminer", 0.87),
            ("stadynot", 0.87),
            ("bte", 0.86),
            ("boilerpipe", 0.94),
            ("boilerpipe-tree", 0.92),
            ("boilernet", 0.91),
        ],
    ),
    (
        "modern2026-dev",
        Metric::Shingle,
        &[
            ("default", 0.94),
            ("rules", 0.92),
            ("justext", 0.81),
            ("goldminer", 0.81),
            ("stadynot", 0.87),
            ("bte", 0.87),
            ("boilerpipe", 0.83),
            ("boilerpipe-tree", 0.74),
            ("boilernet", 0.90),
        ],
    ),
    (
        "trafilatura-eval",
        Metric::Snippet,
        &[
            ("default", 0.94),
            ("rules", 0.90),
            ("justext", 0.84),
            ("goldminer", 0.84),
            ("stadynot", 0.76),
            ("bte", 0.81),
            ("boilerpipe", 0.84),
            ("boilerpipe-tree", 0.83),
            ("boilernet", 0.89),
        ],
    ),
];

#[test]
fn every_extractor_stays_above_its_floor_on_every_set() {
    let Some(shared) = support::shared_dir("eval_floors") else { return };
    let mut failures = Vec::new();
    let mut measured = String::new();
    for (name, metric, floors) in FLOORS {
        let mut set = Dataset::load(&shared.join("data").join(name)).expect("set loads");
        if *name != "cleanportaleval" {
            set.truncate(PAGES);
        }
        let opts = EvalOptions::new(ExtractorKind::ALL.to_vec());
        let report = evaluate_set(&set, &opts);
        for row in &report.rows {
            let value = metric.of(&row.summary.scores);
            measured.push_str(&format!("{name:<17} {:<16} {metric:?} {value:.3}\n", row.label));
            match floors.iter().find(|(x, _)| *x == row.label) {
                Some((_, floor)) if value < *floor => {
                    failures.push(format!("{name} / {}: {metric:?} F1 {value:.3} under the floor {floor}", row.label))
                }
                Some(_) => {}
                None => failures.push(format!("{name} / {}: no floor (measured {value:.3}); add one", row.label)),
            }
        }
    }
    eprintln!("measured:\n{measured}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Learning adds (issue 50): on the hosts of CleanPortalEval, L3S-GN1 and modern2026-dev with
/// at least 5 pages, the default with a model learned without the page (leave-one-out)
/// against the default without any model, word F1, both with the combiner and the
/// host-evidence model that never saw the page's site (site-grouped folds). No host may lose
/// more than its bootstrap error (the standard error of the difference, at least 0.005);
/// pooled, each set must gain (CleanPortalEval 0.007, L3S-GN1 0.003, modern2026-dev 0.035) and
/// every host of the three sets together at least 0.012 (issue 50's target is 0.01).
#[test]
fn learned_is_never_below_unlearned_on_multi_page_hosts() {
    let Some(shared) = support::shared_dir("eval_floors") else { return };
    let folds = fold_models();
    let mut failures = Vec::new();
    let mut measured = String::new();
    let host_folds = host_evidence_folds();
    // (set, pooled floor). Measured 2026-12-07: CleanPortalEval +0.008, L3S-GN1 +0.004,
    // modern2026-dev +0.041; every host within its bootstrap error of its unlearned score or
    // above.
    let (mut all_gain, mut all_pages) = (0.0, 0usize);
    for (name, pooled_floor) in [("cleanportaleval", 0.007), ("l3s-gn1", 0.003), ("modern2026-dev", 0.035)] {
        let mut set = Dataset::load(&shared.join("data").join(name)).expect("set loads");
        // Only the pages of hosts with a model: the other pages' scores are the same with and
        // without learning.
        let mut per_host = std::collections::HashMap::new();
        for page in &set.pages {
            *per_host.entry(page.host_key()).or_insert(0usize) += 1;
        }
        set.pages.retain(|page| per_host[&page.host_key()] >= 5);
        let mut opts = EvalOptions::new(vec![ExtractorKind::Default]);
        opts.combiner_folds = Some(folds.clone());
        opts.host_evidence_folds = Some(host_folds.clone());
        opts.leave_one_out = true;
        opts.learn.min_sample = 5;
        let report = evaluate_set(&set, &opts);
        let row = |label: &str| report.rows.iter().find(|r| r.label == label).expect("row");
        let (learned, unlearned) = (row("default (loo)"), row("default (unlearned)"));
        let (mut gain, mut pages) = (0.0, 0usize);
        for site in learned.sites.iter().filter(|s| !s.site.starts_with("other")) {
            let other = unlearned.sites.iter().find(|s| s.site == site.site).expect("same sites");
            let (l, u) = (site.summary.scores.word_f1, other.summary.scores.word_f1);
            let se = site.summary.scores.word_f1_se.hypot(other.summary.scores.word_f1_se).max(0.005);
            measured.push_str(&format!("{name:<16} {:<28} learned {l:.3} unlearned {u:.3} (±{se:.3})\n", site.site));
            if l < u - se {
                failures.push(format!("{name} / {}: learned {l:.3} < unlearned {u:.3} - {se:.3}", site.site));
            }
            gain += (l - u) * site.summary.pages as f64;
            pages += site.summary.pages;
        }
        assert!(pages >= 40, "{name}: only {pages} pages on hosts with a model");
        (all_gain, all_pages) = (all_gain + gain, all_pages + pages);
        let pooled = gain / pages as f64;
        measured.push_str(&format!("{name:<16} pooled gain {pooled:+.3} over {pages} pages\n"));
        if pooled < pooled_floor {
            failures.push(format!("{name}: pooled gain {pooled:+.3} < {pooled_floor:+.3}"));
        }
    }
    // Every host of the three sets together (measured +0.014; issue 50's target +0.01).
    let pooled = all_gain / all_pages as f64;
    measured.push_str(&format!("every host pooled gain {pooled:+.4} over {all_pages} pages\n"));
    if pooled < 0.012 {
        failures.push(format!("every host: pooled gain {pooled:+.4} < +0.012"));
    }
    eprintln!("measured:\n{measured}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The default on sites its combiner never saw: every page of every set extracted with the
/// fold model trained without its site (site-grouped 5-fold cross-validation), scored with the
/// set's own metric and with shingle F1. Each floor sits above the best external tool measured
/// by `scripts/reference-tools.sh` with the same scorer (in brackets: tool and score,
/// 2026-11-25), so falling to an external tool's level fails.
#[test]
fn default_beats_the_external_tools_on_held_out_sites() {
    let Some(shared) = support::shared_dir("eval_floors") else { return };
    // (set, metric, floor, best external tool's score, shingle floor, best external shingle F1)
    let floors: &[(&str, Metric, f64, f64, f64, f64)] = &[
        ("cleaneval", Metric::Word, 0.948, 0.935, 0.908, 0.889), // resiliparse; readability
        ("cleanportaleval", Metric::Word, 0.985, 0.974, 0.962, 0.946), // readability-lxml
        ("l3s-gn1", Metric::Word, 0.945, 0.891, 0.955, 0.928),   // readability-lxml
        ("modern2026-dev", Metric::Shingle, 0.792, 0.777, 0.792, 0.777), // trafilatura
        ("trafilatura-eval", Metric::Snippet, 0.930, 0.921, 0.0, 0.0), // trafilatura
    ];
    let mut opts = EvalOptions::new(vec![ExtractorKind::Default]);
    opts.combiner_folds = Some(fold_models());
    opts.host_evidence_folds = Some(host_evidence_folds());
    let mut failures = Vec::new();
    let mut measured = String::new();
    for &(name, metric, floor, external, shingle_floor, external_shingle) in floors {
        assert!(floor > external && shingle_floor >= external_shingle, "{name}: a floor under the external tool");
        let set = Dataset::load(&shared.join("data").join(name)).expect("set loads");
        let report = evaluate_set(&set, &opts);
        let scores = &report.rows[0].summary.scores;
        let (value, shingle) = (metric.of(scores), scores.shingle_f1);
        measured.push_str(&format!("{name:<17} {metric:?} {value:.3} (external {external}), shingle {shingle:.3}\n"));
        if value < floor {
            failures.push(format!("{name}: {metric:?} F1 {value:.3} under the floor {floor}"));
        }
        if shingle < shingle_floor {
            failures.push(format!("{name}: shingle F1 {shingle:.3} under the floor {shingle_floor}"));
        }
    }
    eprintln!("measured (combiner cross-validated):\n{measured}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
