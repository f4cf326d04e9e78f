//! Quality floors of every extractor on every shared evaluation set (issue 3): a fixed subset
//! of each set (the first `PAGES` pages; all of CleanPortalEval, whose per-site models need
//! every page) is extracted with every registered extractor and scored with the set's usual
//! metric. A floor sits a little under the measured value and only ever moves up; a new
//! extractor must add its floors here (the test fails on a missing one).
//!
//! Metrics: word-level micro F1 (CleanEval alignment) on cleaneval, cleanportaleval, l3s-gn1;
//! shingle F1 on modern2026-dev; snippet F1 on trafilatura-eval (see `webcorpus eval`).

mod support;

use webcorpus::eval::dataset::Dataset;
use webcorpus::eval::report::Scores;
use webcorpus::eval::run::{evaluate_set, EvalOptions};
use webcorpus::extract::ExtractorKind;

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
            ("default", 0.93),
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
            ("default", 0.96),
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
            ("default", 0.92),
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
            ("default", 0.90),
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

/// Learning must not hurt: on the hosts of CleanPortalEval and L3S-GN1 with at least 5 pages,
/// the default with a model learned without the page (leave-one-out) against the default
/// without any model, word F1. Pooled over those hosts learned must gain at least 0.01; no
/// host may lose more than 0.01 (the bootstrap errors of these hosts are 0.001–0.15).
#[test]
fn learned_is_never_below_unlearned_on_multi_page_hosts() {
    let Some(shared) = support::shared_dir("eval_floors") else { return };
    let mut failures = Vec::new();
    let mut measured = String::new();
    // (set, pooled floor, per-host floor): modern2026-dev's learned models are only held level
    // (ifixit.com still loses 0.03 to its model; issue 13): its pooled floor is -0.005.
    for (name, pooled_floor, per_host) in
        [("cleanportaleval", 0.01, true), ("l3s-gn1", 0.01, true), ("modern2026-dev", -0.005, false)]
    {
        let set = Dataset::load(&shared.join("data").join(name)).expect("set loads");
        let mut opts = EvalOptions::new(vec![ExtractorKind::Default]);
        opts.leave_one_out = true;
        opts.learn.min_sample = 5;
        let report = evaluate_set(&set, &opts);
        let row = |label: &str| report.rows.iter().find(|r| r.label == label).expect("row");
        let (learned, unlearned) = (row("default (loo)"), row("default (unlearned)"));
        let (mut gain, mut pages) = (0.0, 0usize);
        for site in learned.sites.iter().filter(|s| !s.site.starts_with("other")) {
            let other = unlearned.sites.iter().find(|s| s.site == site.site).expect("same sites");
            let (l, u) = (site.summary.scores.word_f1, other.summary.scores.word_f1);
            measured.push_str(&format!("{name:<16} {:<28} learned {l:.3} unlearned {u:.3}\n", site.site));
            if per_host && l < u - 0.01 {
                failures.push(format!("{name} / {}: learned {l:.3} < unlearned {u:.3} - 0.01", site.site));
            }
            gain += (l - u) * site.summary.pages as f64;
            pages += site.summary.pages;
        }
        assert!(pages >= 40, "{name}: only {pages} pages on hosts with a model");
        let pooled = gain / pages as f64;
        measured.push_str(&format!("{name:<16} pooled gain {pooled:+.3} over {pages} pages\n"));
        if pooled < pooled_floor {
            failures.push(format!("{name}: pooled gain {pooled:+.3} < {pooled_floor:+.3}"));
        }
    }
    eprintln!("measured:\n{measured}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
