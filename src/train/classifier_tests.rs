//! Tests of the page classifier on real pages of the shared sets (skipped loudly when the
//! data is missing): a tiny training run, and the shipped model on held-out sites.

use super::classifier::{evaluate, train, TrainOptions};
use crate::classify::data::{is_test_site, load_pages, LabelledPage};
use crate::classify::PageClassifier;
use crate::extract::pipeline::ExtractSettings;

use crate::eval::dataset::test_set as set;

/// Training runs on a handful of real pages in seconds: the loss falls, and the saved model
/// loads back and gives the same probabilities.
#[test]
fn trains_on_a_few_real_pages_saves_and_loads() {
    let Some(mut modern) = set("modern2026-dev") else { return };
    modern.truncate(16);
    let pages = load_pages(&[modern], &ExtractSettings::default(), 2, None, &|_, _| {});
    let refs: Vec<&LabelledPage> = pages.iter().collect();
    assert!(refs.iter().any(|p| p.article) && refs.iter().any(|p| !p.article), "both classes in the first 16");
    assert!(refs.iter().all(|p| p.features.is_some()));
    let opts = TrainOptions { epochs: 80, hidden: 8, ..TrainOptions::default() };
    let trained = train(&refs, &[], &opts, &mut |_| {}).unwrap();
    let (first, last) = (trained.history[0].train_loss, trained.history.last().unwrap().train_loss);
    assert!(last < 0.7 * first, "training loss {first} → {last}");
    assert!(evaluate(&trained.mlp, &refs).accuracy() > 0.8, "fits its own training pages");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.wcnn");
    trained.mlp.to_model_file(serde_json::json!({"note": "test"})).save(&path).unwrap();
    let back = PageClassifier::load(&path).unwrap();
    assert_eq!(back.header()["note"], "test");
    for p in &pages {
        let f = p.features.as_ref().unwrap();
        assert_eq!(back.mlp().probabilities(&[f]), trained.mlp.probabilities(&[f]));
    }
}

/// The shipped model on the pages of held-out sites of modern2026-dev (sites it was not trained
/// or validated on): accuracy and article F1 above floors set under what `webcorpus train
/// classifier` measured on them (accuracy 0.885, F1 0.889; models/README.md).
#[test]
fn the_shipped_model_classifies_held_out_pages() {
    let Some(mut modern) = set("modern2026-dev") else { return };
    modern.pages.retain(|p| is_test_site(&p.site_key()));
    let pages = load_pages(&[modern], &ExtractSettings::default(), 2, None, &|_, _| {});
    let refs: Vec<&LabelledPage> = pages.iter().collect();
    let classifier = PageClassifier::shipped();
    let m = evaluate(classifier.mlp(), &refs);
    eprintln!("shipped classifier on {} held-out modern2026-dev pages: {}", m.total(), m.line());
    assert!(m.total() >= 90, "the held-out sites of modern2026-dev have 96 typed pages");
    assert!(m.accuracy() >= 0.86, "{}", m.line());
    assert!(m.f1() >= 0.86, "{}", m.line());
}
