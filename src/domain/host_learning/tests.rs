//! Every transition of [`HostLearning`], table-driven: a starting record, a sequence of
//! events, the actions each event returned, and the record at the end.

use super::*;
use HostPhase::{Fallback, Learned, Sampling};
use LearningAction::{ApplyDeferred, Drain, Learn, Resample, UseModel};
use LearningEvent::{
    DeferredApplied, DrainEnded, Extracted, Forgotten, HostDry, LearnSkipped, Learned as ModelLearned, PageHeld,
    Releasing, Resumed, WaitingWritten,
};

/// Samples of 3 pages, 2 at least when dry; windows of 2 pages, a rise of 0.3, one re-learning.
const RULE: SamplingRule =
    SamplingRule { sample_size: 3, min_sample: 2, relearn_window: 2, relearn_miss_rise: 0.3, max_relearns: 1 };

/// A record as stored: phase, sampled, waiting, relearned.
fn stored(phase: HostPhase, sampled: u64, waiting: u64, relearned: u32) -> HostLearning {
    HostLearning { phase, sampled, waiting, relearned, ..HostLearning::default() }
}

/// The stored record and counters at the end of a case: phase, sampled, waiting, relearned.
type End = (HostPhase, u64, u64, u32);

struct Case {
    name: &'static str,
    start: HostLearning,
    steps: Vec<(LearningEvent, Vec<LearningAction>)>,
    end: End,
}

fn case(name: &'static str, start: HostLearning, steps: Vec<(LearningEvent, Vec<LearningAction>)>, end: End) -> Case {
    Case { name, start, steps, end }
}

const fn page(generation: u32, missed: bool) -> LearningEvent {
    Extracted { generation, missed }
}

fn cases() -> Vec<Case> {
    let new = HostLearning::default;
    vec![
        case(
            "a full sample starts one learn job; later pages wait outside the sample",
            new(),
            vec![(PageHeld, vec![]), (PageHeld, vec![]), (PageHeld, vec![Learn { generation: 0 }]), (PageHeld, vec![])],
            (Sampling, 3, 4, 0),
        ),
        case(
            "the learned model drains its sample; pages held meanwhile get their own drain",
            new(),
            vec![
                (PageHeld, vec![]),
                (PageHeld, vec![]),
                (PageHeld, vec![Learn { generation: 0 }]),
                (PageHeld, vec![]),
                (ModelLearned, vec![UseModel]),
                (WaitingWritten, vec![]),
                (WaitingWritten, vec![]),
                (WaitingWritten, vec![]),
                (DrainEnded, vec![Drain]),
                (WaitingWritten, vec![]),
                (DrainEnded, vec![ApplyDeferred]),
                (DeferredApplied, vec![]),
            ],
            (Learned, 3, 0, 0),
        ),
        case(
            "a page held after the model came (sampled in flight) is drained at once",
            stored(Learned, 3, 0, 0),
            vec![(Resumed { has_model: true }, vec![]), (PageHeld, vec![Drain]), (PageHeld, vec![])],
            (Learned, 3, 2, 0),
        ),
        case(
            "a host dry below min_sample falls back and drains without a model",
            new(),
            vec![(PageHeld, vec![]), (HostDry, vec![UseModel, Drain])],
            (Fallback, 1, 1, 0),
        ),
        case(
            "a host dry with nothing sampled falls back, nothing to drain",
            new(),
            vec![(HostDry, vec![UseModel]), (HostDry, vec![])],
            (Fallback, 0, 0, 0),
        ),
        case(
            "a host dry at min_sample is learned from what it gave",
            new(),
            vec![(PageHeld, vec![]), (PageHeld, vec![]), (HostDry, vec![Learn { generation: 0 }]), (HostDry, vec![])],
            (Sampling, 2, 2, 0),
        ),
        case(
            "a skipped learn job lets the next dry host learn again",
            new(),
            vec![
                (PageHeld, vec![]),
                (PageHeld, vec![]),
                (HostDry, vec![Learn { generation: 0 }]),
                (LearnSkipped, vec![]),
                (HostDry, vec![Learn { generation: 0 }]),
            ],
            (Sampling, 2, 2, 0),
        ),
        case(
            "resume: a full sample left by a killed run is learned again",
            stored(Sampling, 3, 3, 0),
            vec![(Resumed { has_model: false }, vec![Learn { generation: 0 }]), (HostDry, vec![])],
            (Sampling, 3, 3, 0),
        ),
        case(
            "resume: a partial sample goes on sampling",
            stored(Sampling, 2, 2, 0),
            vec![(Resumed { has_model: false }, vec![]), (PageHeld, vec![Learn { generation: 0 }])],
            (Sampling, 3, 3, 0),
        ),
        case(
            "resume: pages left waiting by a learned or fallen-back host are drained",
            stored(Fallback, 1, 1, 0),
            vec![
                (Resumed { has_model: false }, vec![Drain]),
                (WaitingWritten, vec![]),
                (DrainEnded, vec![ApplyDeferred]),
            ],
            (Fallback, 1, 0, 0),
        ),
        case(
            "re-learning needs a full sample: a host sampled again and dry early keeps its model",
            stored(Sampling, 2, 2, 1),
            vec![(Resumed { has_model: true }, vec![]), (HostDry, vec![UseModel, Drain])],
            (Learned, 2, 2, 1),
        ),
        case(
            "re-learning from a full fresh sample learns generation 1",
            stored(Sampling, 2, 2, 1),
            vec![(Resumed { has_model: true }, vec![]), (PageHeld, vec![Learn { generation: 1 }])],
            (Sampling, 3, 3, 1),
        ),
        case(
            "a rise of the missed share over the first window sends the host back to sampling",
            stored(Learned, 3, 0, 0),
            vec![
                (Resumed { has_model: true }, vec![]),
                (page(0, false), vec![]),
                (page(0, false), vec![]),
                (page(0, true), vec![]),
                (page(0, true), vec![Resample]),
                (page(0, true), vec![]),
                (PageHeld, vec![]),
            ],
            (Sampling, 1, 1, 1),
        ),
        case(
            "a rise below relearn_miss_rise keeps the model",
            stored(Learned, 3, 0, 0),
            vec![
                (Resumed { has_model: true }, vec![]),
                (page(0, false), vec![]),
                (page(0, true), vec![]),
                (page(0, true), vec![]),
                (page(0, false), vec![]),
            ],
            (Learned, 3, 0, 0),
        ),
        case(
            "re-learning during a drain waits for the drain and the pages held behind it",
            stored(Sampling, 0, 0, 0),
            vec![
                (PageHeld, vec![]),
                (PageHeld, vec![]),
                (PageHeld, vec![Learn { generation: 0 }]),
                (ModelLearned, vec![UseModel]),
                (page(0, false), vec![]),
                (page(0, false), vec![]),
                (page(0, true), vec![]),
                (page(0, true), vec![]),
                (WaitingWritten, vec![]),
                (WaitingWritten, vec![]),
                (WaitingWritten, vec![]),
                (DrainEnded, vec![ApplyDeferred]),
                (DeferredApplied, vec![Resample]),
                (DeferredApplied, vec![]),
            ],
            (Sampling, 0, 0, 1),
        ),
        case(
            "no re-learning past max_relearns",
            stored(Learned, 3, 0, 1),
            vec![
                (Resumed { has_model: true }, vec![]),
                (page(1, false), vec![]),
                (page(1, false), vec![]),
                (page(1, true), vec![]),
                (page(1, true), vec![]),
            ],
            (Learned, 3, 0, 1),
        ),
        case(
            "pages extracted with an earlier generation are not watched",
            stored(Learned, 3, 0, 1),
            vec![(Resumed { has_model: true }, vec![]), (page(0, true), vec![]), (page(0, true), vec![])],
            (Learned, 3, 0, 1),
        ),
        case(
            "a moved cluster host forgets its waiting pages and starts its sample again",
            stored(Sampling, 2, 2, 0),
            vec![
                (Forgotten, vec![]),
                (PageHeld, vec![]),
                (PageHeld, vec![]),
                (PageHeld, vec![Learn { generation: 0 }]),
            ],
            (Sampling, 3, 3, 0),
        ),
        case(
            "a released partition's host drains its waiting pages first, unless it samples",
            stored(Learned, 3, 2, 0),
            vec![(Resumed { has_model: true }, vec![Drain]), (DrainEnded, vec![Drain]), (Releasing, vec![])],
            (Learned, 3, 2, 0),
        ),
        case(
            "a released sampling host has nothing to drain",
            stored(Sampling, 2, 2, 0),
            vec![(Releasing, vec![]), (Forgotten, vec![])],
            (Sampling, 0, 0, 0),
        ),
        case(
            "a moved learned host keeps its sample count and model",
            stored(Learned, 3, 2, 0),
            vec![(Forgotten, vec![]), (Resumed { has_model: true }, vec![])],
            (Learned, 3, 0, 0),
        ),
    ]
}

#[test]
fn every_transition_of_the_table() {
    for case in cases() {
        let mut learning = case.start.clone();
        for (i, (event, expected)) in case.steps.iter().enumerate() {
            let actions = learning.on(&RULE, *event);
            assert_eq!(&actions, expected, "{}: step {i} ({event:?})", case.name);
        }
        let end = (learning.phase, learning.sampled, learning.waiting, learning.relearned);
        assert_eq!(end, case.end, "{}: the record at the end", case.name);
    }
}

#[test]
fn the_watch_window_restarts_with_each_model() {
    let mut learning = stored(Learned, 3, 0, 0);
    learning.on(&RULE, Resumed { has_model: true });
    learning.on(&RULE, page(0, true));
    assert_eq!((learning.window_pages, learning.window_missed), (1, 1));
    learning.on(&RULE, page(0, true));
    assert_eq!(learning.baseline_missed_share, Some(1.0), "the first window is the baseline");
    assert_eq!((learning.window_pages, learning.window_missed), (0, 0));
    learning.on(&RULE, ModelLearned);
    assert_eq!(learning.baseline_missed_share, None, "a new model has no baseline yet");
}

#[test]
fn busy_and_deferral_follow_the_jobs() {
    let mut learning = HostLearning::default();
    assert!(!learning.busy() && !learning.defers_extracted_pages() && learning.is_sampling());
    learning.on(&RULE, PageHeld);
    assert!(learning.busy() && learning.defers_extracted_pages(), "a page waits");
    learning.on(&RULE, PageHeld);
    learning.on(&RULE, HostDry);
    learning.on(&RULE, ModelLearned);
    learning.on(&RULE, WaitingWritten);
    learning.on(&RULE, WaitingWritten);
    assert!(learning.busy() && !learning.defers_extracted_pages(), "the drain still runs");
    learning.on(&RULE, DrainEnded);
    assert!(!learning.busy() && !learning.is_sampling());
}

#[test]
fn the_rule_learns_a_first_model_from_min_sample_and_a_new_one_from_a_full_sample() {
    assert!(!RULE.learns_from(1, false));
    assert!(RULE.learns_from(2, false));
    assert!(!RULE.learns_from(2, true));
    assert!(RULE.learns_from(3, true));
    let zero = SamplingRule { min_sample: 0, ..RULE };
    assert!(!zero.learns_from(0, false), "never from no page");
    let params = LearnParams { sample_size: 7, min_sample: 4, ..LearnParams::default() };
    let whole = SamplingRule::whole_site(&params);
    assert_eq!((whole.sample_size, whole.min_sample, whole.relearn_window), (u64::MAX, 4, 0));
    assert_eq!(SamplingRule::new(&params).sample_size, 7);
}

#[test]
fn the_record_keeps_its_stored_fields_and_drops_the_jobs() {
    let mut learning = stored(Sampling, 3, 3, 0);
    learning.on(&RULE, Resumed { has_model: false });
    assert!(learning.busy());
    let json = serde_json::to_string(&learning).unwrap();
    assert_eq!(
        json,
        r#"{"phase":"sampling","sampled":3,"waiting":3,"relearned":0,"window_pages":0,"window_missed":0,"baseline_missed_share":null}"#
    );
    let back: HostLearning = serde_json::from_str(&json).unwrap();
    assert_eq!(back, stored(Sampling, 3, 3, 0), "the jobs are this run's only");
}

#[test]
fn a_site_given_whole_is_learned_from_min_sample_pages_however_many() {
    let params = LearnParams { sample_size: 3, min_sample: 2, ..LearnParams::default() };
    assert!(!learns_whole_site(&params, 0));
    assert!(!learns_whole_site(&params, 1));
    assert!(learns_whole_site(&params, 2));
    assert!(learns_whole_site(&params, 500), "no sample_size cap for a whole site");
}

/// A model may be learned ahead exactly while the host samples with enough pages for its dry
/// learning and neither a full sample nor a learn job has started it: not below `min_sample`,
/// not once the sample is full (its learn job runs), not while learning, not once learned.
#[test]
fn a_model_is_learned_ahead_only_where_running_dry_would_learn_it() {
    let mut host = HostLearning::default();
    assert!(!host.would_learn_when_dry(&RULE), "no page");
    host.on(&RULE, PageHeld);
    assert!(!host.would_learn_when_dry(&RULE), "1 page, below min_sample 2");
    host.on(&RULE, PageHeld);
    assert!(host.would_learn_when_dry(&RULE), "2 pages: a dry host would learn from them");
    assert_eq!(host.on(&RULE, PageHeld), vec![Learn { generation: 0 }], "the full sample learns");
    assert!(!host.would_learn_when_dry(&RULE), "full, and learning");
    let mut dry = stored(Sampling, 2, 2, 0);
    assert!(dry.would_learn_when_dry(&RULE));
    dry.on(&RULE, HostDry);
    assert!(!dry.would_learn_when_dry(&RULE), "its learn job runs");
    dry.on(&RULE, ModelLearned);
    assert!(!dry.would_learn_when_dry(&RULE), "learned");
    // A host sampled again after a model needs a full sample: never ahead of one.
    let mut again = stored(Sampling, 2, 2, 1);
    again.on(&RULE, Resumed { has_model: true });
    assert!(!again.would_learn_when_dry(&RULE));
}
