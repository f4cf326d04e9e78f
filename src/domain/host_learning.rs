//! [`HostLearning`]: where one host stands in the learn-then-extract protocol (GoldMiner,
//! Endrédy & Novák 2013, §III.A: learn a site's template from a sample of some 100 of its
//! pages, then extract every page with it), as a pure state machine. It takes
//! [`LearningEvent`]s and returns [`LearningAction`]s; it reads no clock, no store and no page,
//! so every transition is tested here on values alone.
//!
//! The sampling rule lives here and nowhere else ([`SamplingRule`]): a host's sample is its
//! first `sample_size` decodable HTML pages; its model is learned when the sample is full, or
//! when the host runs dry with at least `min_sample` pages (a re-learning needs a full sample);
//! a host that runs dry below that is extracted without a model (fallback). After learning,
//! the model's missed share is watched per window of `relearn_window` pages; a rise of
//! `relearn_miss_rise` over its first window sends the host back to sampling (the site
//! changed), at most `max_relearns` times.
//!
//! The phases and the jobs between them:
//!
//! ```text
//!  Sampling ──full sample / dry ≥ min──▶ (learn job) ──model──▶ Learned (draining the sample)
//!     │  ▲                                                          │
//!     │  └──────────── missed share rose (after the drain) ◀────────┘
//!     └──dry < min──▶ Fallback (the waiting pages drained without a model)
//! ```
//!
//! The crawl's committer drives it with every event; `extract --per-site` (WARC replay),
//! `extract --site`, `show --site` and `eval` drive it with the pages of one site
//! ([`SamplingRule::whole_site`] where every page given is the sample).

use super::{DomainModel, LearnParams};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The learning phase of a host, as stored in its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum HostPhase {
    /// Collecting the first `sample_size` HTML pages.
    #[default]
    Sampling,
    /// A domain model is learned; every page is extracted with it.
    Learned,
    /// The host ran dry below `min_sample` pages: extracted without a model.
    Fallback,
}

/// The sampling rule's numbers (config `[learn]`, [`LearnParams`]); page counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplingRule {
    /// Pages in a full sample ([`LearnParams::sample_size`]).
    pub sample_size: u64,
    /// Fewest pages a host that ran dry is learned from ([`LearnParams::min_sample`]).
    pub min_sample: u64,
    /// Pages per watch window of a learned model; 0: never re-learn.
    pub relearn_window: u64,
    /// Rise of the missed share over the first window that sends a host back to sampling.
    pub relearn_miss_rise: f64,
    /// Most re-learnings of one host.
    pub max_relearns: u32,
}

impl SamplingRule {
    /// The crawl's rule from `[learn]`.
    pub fn new(params: &LearnParams) -> SamplingRule {
        SamplingRule {
            sample_size: params.sample_size as u64,
            min_sample: params.min_sample as u64,
            relearn_window: params.relearn_window as u64,
            relearn_miss_rise: params.relearn_miss_rise,
            max_relearns: params.max_relearns,
        }
    }

    /// The rule for a site given as a whole (`extract --site`, `show --site`, `eval`): every
    /// page given is in the sample, the model is learned from at least `min_sample` of them,
    /// and never re-learned.
    pub fn whole_site(params: &LearnParams) -> SamplingRule {
        SamplingRule { sample_size: u64::MAX, relearn_window: 0, ..SamplingRule::new(params) }
    }

    /// Whether a host that ran dry with `sampled` pages in its sample gets a model learned
    /// from them: a first model from at least `min_sample` pages, a re-learned one (`relearn`)
    /// from a full sample only; never from none.
    pub fn learns_from(&self, sampled: u64, relearn: bool) -> bool {
        let needed = if relearn { self.sample_size } else { self.min_sample };
        sampled >= needed && sampled > 0
    }
}

/// What happened to a host, as the driver of its [`HostLearning`] saw it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LearningEvent {
    /// The record was read back when a crawl resumed; `has_model`: a model is stored for it.
    Resumed {
        /// A model of the host is in the state.
        has_model: bool,
    },
    /// A decodable HTML page of the host was kept, waiting for the host's model.
    PageHeld,
    /// The host has nothing queued and nothing in flight.
    HostDry,
    /// The learn job returned a model (now the host's).
    Learned,
    /// The learn job was skipped (stop requested, the state unreadable): it runs on resume.
    LearnSkipped,
    /// A waiting page was extracted and its record (or discard) written.
    WaitingWritten,
    /// A drain job (or the drain that follows a learn job) ended.
    DrainEnded,
    /// The pages extracted during the drain, held back to keep fetch order, were applied.
    DeferredApplied,
    /// A page was extracted with the host's model of `generation`; `missed`: no template on
    /// the page, or the per-page guard rejected the model.
    Extracted {
        /// [`DomainModel::generation`] of the model used.
        generation: u32,
        /// The model missed the page.
        missed: bool,
    },
    /// The host's cluster partition is being given to another worker: its waiting pages are
    /// to be written first (unless it samples).
    Releasing,
    /// The host's waiting pages were forgotten (its cluster partition moved to another
    /// worker, whose sample starts again).
    Forgotten,
}

/// What the driver must do after an event; in the order returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LearningAction {
    /// Learn the model of generation `generation` from the host's waiting sample, then
    /// extract those pages with it (answer [`LearningEvent::Learned`] or
    /// [`LearningEvent::LearnSkipped`]).
    Learn {
        /// The model's generation: the host's re-learnings so far.
        generation: u32,
    },
    /// Extract the host's waiting pages with its current model (none in fallback); answer
    /// [`LearningEvent::WaitingWritten`] per page, [`LearningEvent::DrainEnded`] at the end.
    Drain,
    /// Extract the host's next pages with its current model (none in fallback).
    UseModel,
    /// Apply the pages held back during the drain; answer [`LearningEvent::DeferredApplied`].
    ApplyDeferred,
    /// Keep the host's next pages for a fresh sample (its model stays until the new one).
    Resample,
}

/// One host's learning state. The phase and counters are stored with the host's record
/// (`#[serde(flatten)]`); which jobs run is known to this run only and rebuilt on
/// [`LearningEvent::Resumed`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostLearning {
    /// Learning phase.
    pub phase: HostPhase,
    /// HTML pages kept in the sample (at most `sample_size`).
    pub sampled: u64,
    /// Pages stored in the state waiting for the host's model (sample included), not written
    /// yet.
    #[serde(default)]
    pub waiting: u64,
    /// Times the host's model was re-learned because it stopped matching.
    #[serde(default)]
    pub relearned: u32,
    /// The current window of pages extracted with the model: pages, and those it missed
    /// (no template on the page, or rejected by the guard).
    #[serde(default)]
    pub window_pages: u64,
    /// See `window_pages`.
    #[serde(default)]
    pub window_missed: u64,
    /// The missed share of the model's first full window (`None` before it).
    #[serde(default)]
    pub baseline_missed_share: Option<f64>,
    /// A learn job runs.
    #[serde(skip)]
    learning: bool,
    /// A drain job runs (or the learn job drains its sample).
    #[serde(skip)]
    draining: bool,
    /// The model stopped matching during a drain: sample again once it is over.
    #[serde(skip)]
    resample_after_drain: bool,
    /// The host has a model (learned now, or stored by an earlier run).
    #[serde(skip)]
    has_model: bool,
}

impl HostLearning {
    /// Apply `event` under `rule`; returns the actions, in order (often none).
    pub fn on(&mut self, rule: &SamplingRule, event: LearningEvent) -> Vec<LearningAction> {
        let mut actions = Vec::new();
        match event {
            LearningEvent::Resumed { has_model } => {
                self.has_model = has_model;
                match self.phase {
                    HostPhase::Sampling if self.sampled >= rule.sample_size => self.start_learning(&mut actions),
                    HostPhase::Sampling => {}
                    HostPhase::Learned | HostPhase::Fallback => self.drain_waiting(&mut actions),
                }
            }
            LearningEvent::PageHeld => {
                self.waiting += 1;
                if self.sampled < rule.sample_size {
                    self.sampled += 1;
                    if self.sampled == rule.sample_size && self.phase == HostPhase::Sampling && !self.learning {
                        self.start_learning(&mut actions);
                    }
                }
                self.drain_waiting(&mut actions);
            }
            LearningEvent::HostDry => {
                if self.phase != HostPhase::Sampling || self.learning {
                    return actions;
                }
                if rule.learns_from(self.sampled, self.has_model) {
                    self.start_learning(&mut actions);
                    return actions;
                }
                // Too few pages: the earlier model stays (sampled again), or none (fallback).
                self.phase = if self.has_model { HostPhase::Learned } else { HostPhase::Fallback };
                if self.has_model {
                    self.restart_watch();
                }
                actions.push(LearningAction::UseModel);
                self.drain_waiting(&mut actions);
            }
            LearningEvent::Learned => {
                self.learning = false;
                self.has_model = true;
                self.phase = HostPhase::Learned;
                self.restart_watch();
                // The learn job goes on as the drain of the sample it parsed.
                self.draining = true;
                actions.push(LearningAction::UseModel);
            }
            LearningEvent::LearnSkipped => self.learning = false,
            LearningEvent::WaitingWritten => self.waiting = self.waiting.saturating_sub(1),
            LearningEvent::DrainEnded => {
                self.draining = false;
                if self.waiting > 0 {
                    self.drain_waiting(&mut actions);
                } else {
                    actions.push(LearningAction::ApplyDeferred);
                }
            }
            LearningEvent::DeferredApplied => {
                if self.resample_after_drain && !self.draining {
                    self.resample(&mut actions);
                }
            }
            LearningEvent::Extracted { generation, missed } => self.watch(rule, generation, missed, &mut actions),
            LearningEvent::Releasing => self.drain_waiting(&mut actions),
            LearningEvent::Forgotten => self.forget_waiting(),
        }
        actions
    }

    /// The host's waiting pages were forgotten ([`LearningEvent::Forgotten`]): a sampling host
    /// starts its sample again.
    pub fn forget_waiting(&mut self) {
        if self.phase == HostPhase::Sampling {
            self.sampled = 0;
        }
        self.waiting = 0;
    }

    /// Pages of the host extracted now must wait behind its waiting pages (fetch order).
    pub fn defers_extracted_pages(&self) -> bool {
        self.waiting > 0
    }

    /// A learn or drain job runs, or pages wait for the model.
    pub fn busy(&self) -> bool {
        self.learning || self.draining || self.waiting > 0
    }

    /// The host's pages are kept for its sample (no model to extract with yet).
    pub fn is_sampling(&self) -> bool {
        self.phase == HostPhase::Sampling
    }

    /// The host samples, no learn job runs, its sample is not full, and were it to run dry
    /// now it would learn from the pages sampled so far ([`SamplingRule::learns_from`]): the
    /// model that its [`LearningEvent::HostDry`] would start to learn may be learned ahead.
    pub fn would_learn_when_dry(&self, rule: &SamplingRule) -> bool {
        self.phase == HostPhase::Sampling
            && !self.learning
            && self.sampled < rule.sample_size
            && rule.learns_from(self.sampled, self.has_model)
    }

    fn start_learning(&mut self, actions: &mut Vec<LearningAction>) {
        self.learning = true;
        actions.push(LearningAction::Learn { generation: self.relearned });
    }

    /// A drain job for the waiting pages, unless one runs, none wait, or the host samples.
    fn drain_waiting(&mut self, actions: &mut Vec<LearningAction>) {
        if self.draining || self.waiting == 0 || self.phase == HostPhase::Sampling {
            return;
        }
        self.draining = true;
        actions.push(LearningAction::Drain);
    }

    fn restart_watch(&mut self) {
        (self.window_pages, self.window_missed) = (0, 0);
        self.baseline_missed_share = None;
    }

    /// Count one page extracted with the model (pages of an earlier generation, in flight
    /// when the host was sampled again, do not count); at the end of each window compare its
    /// missed share with the first window's.
    fn watch(&mut self, rule: &SamplingRule, generation: u32, missed: bool, actions: &mut Vec<LearningAction>) {
        if rule.relearn_window == 0 || self.phase != HostPhase::Learned || generation != self.relearned {
            return;
        }
        self.window_pages += 1;
        self.window_missed += u64::from(missed);
        if self.window_pages < rule.relearn_window {
            return;
        }
        let share = self.window_missed as f64 / self.window_pages as f64;
        (self.window_pages, self.window_missed) = (0, 0);
        let Some(baseline) = self.baseline_missed_share else {
            self.baseline_missed_share = Some(share);
            return;
        };
        if share < baseline + rule.relearn_miss_rise || self.relearned >= rule.max_relearns {
            return;
        }
        if self.draining {
            self.resample_after_drain = true;
        } else {
            self.resample(actions);
        }
    }

    fn resample(&mut self, actions: &mut Vec<LearningAction>) {
        self.resample_after_drain = false;
        self.phase = HostPhase::Sampling;
        self.sampled = 0;
        self.relearned += 1;
        self.baseline_missed_share = None;
        actions.push(LearningAction::Resample);
    }
}

/// Whether a site given whole (`extract --site`, `show --site`, `eval`), `pages` decodable
/// pages, gets a model learned from all of them: the events a crawl of exactly those pages
/// sends (each page held, then the host dry) under [`SamplingRule::whole_site`].
pub fn learns_whole_site(params: &LearnParams, pages: usize) -> bool {
    let rule = SamplingRule::whole_site(params);
    let mut learning = HostLearning::default();
    let mut actions = Vec::new();
    for _ in 0..pages {
        actions.extend(learning.on(&rule, LearningEvent::PageHeld));
    }
    actions.extend(learning.on(&rule, LearningEvent::HostDry));
    actions.iter().any(|a| matches!(a, LearningAction::Learn { .. }))
}

/// What becomes of a host's fetched pages, as dispatch and the workers see it.
#[derive(Debug, Clone)]
pub enum HostModel {
    /// No model yet: pages are kept for the sample.
    Sampling,
    /// Extract with this model (`None`: no model, the host fell back).
    Ready(Option<Arc<DomainModel>>),
}

impl HostModel {
    /// Where the pages of a host in `phase` go, with its stored `model` (read for a learned
    /// host only).
    pub fn for_phase(phase: HostPhase, model: Option<Arc<DomainModel>>) -> HostModel {
        match phase {
            HostPhase::Sampling => HostModel::Sampling,
            HostPhase::Learned => HostModel::Ready(model),
            HostPhase::Fallback => HostModel::Ready(None),
        }
    }
}

#[cfg(test)]
mod tests;
