//! A host's model through the crawl, as the [`Committer`] drives it: every learning event of a
//! host goes to its [`HostLearning`](crate::domain::HostLearning) state machine (the only place
//! the sampling rule lives), and the actions it returns become the committer's work: a learn
//! or drain job after the commit, the host's model (or a fresh sample) told to dispatch, the
//! pages held back during a drain applied.

use super::Committer;
use crate::crawl::messages::{Event, WorkItem};
use crate::crawl::CrawlError;
use crate::domain::{DomainModel, LearningAction, LearningEvent};
use crossbeam_channel::Sender;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A sampling host whose dry learning would learn from its sample gets its model learned
/// ahead, on the workers' spare CPU, once at most this many of its URLs are left to fetch: its
/// last pages are near, and the learn job at its end takes the model when no page joined the
/// sample meanwhile ([`crate::crawl::workers::PreModels`]). Each further page asks again.
pub const PRELEARN_QUEUED: u64 = 2;

impl Committer {
    /// Send learn-ahead requests to `spare`, the workers' queue of spare work.
    pub fn with_spare_queue(mut self, spare: Sender<WorkItem>) -> Committer {
        self.spare = Some(spare);
        self
    }

    /// Ask for `host`'s model to be learned ahead ([`PRELEARN_QUEUED`]) when its sample would
    /// be learned were it dry now, few of its URLs are left, and not for this sample already;
    /// sent after the open group's commit.
    pub(super) fn consider_prelearn(&mut self, host: &str) {
        if self.spare.is_none() || self.stop.load(Ordering::Relaxed) {
            return;
        }
        let rule = self.rule;
        let book = self.book(host);
        let sampled = book.rec.learning.sampled;
        if !book.rec.learning.would_learn_when_dry(&rule)
            || book.rec.queued_from_counts() > PRELEARN_QUEUED
            || book.prelearned_at == Some(sampled)
        {
            return;
        }
        book.prelearned_at = Some(sampled);
        let generation = book.rec.learning.relearned;
        self.spare_due.push(WorkItem::Prelearn { host: host.to_string(), sampled, generation });
        self.group.open();
    }

    /// Apply `event` to `host`'s learning and carry out the actions it returns, in order.
    ///
    /// # Errors
    /// Applying the pages held back during a drain: the store's, the corpus file's.
    pub(super) fn learning(&mut self, host: &str, event: LearningEvent) -> Result<(), CrawlError> {
        let rule = self.rule;
        let actions = self.book(host).rec.learning.on(&rule, event);
        for action in actions {
            match action {
                LearningAction::Learn { .. } | LearningAction::Drain => {
                    let model = self.book(host).model.clone();
                    self.group.jobs.extend(job_of(host, action, &model));
                    self.group.open();
                }
                LearningAction::UseModel => {
                    let model = self.book(host).model.clone();
                    if event == LearningEvent::HostDry {
                        let sampled = self.book(host).rec.learning.sampled;
                        match &model {
                            Some(_) => tracing::info!(host, sampled, "too few pages to re-learn: the model stays"),
                            None => tracing::info!(host, sampled, "sample below min_sample: jusText alone"),
                        }
                    }
                    self.group.events.push(Event::Model { host: host.to_string(), model });
                    self.touch(host);
                }
                LearningAction::ApplyDeferred => {
                    while let Some(done) = self.book(host).deferred.pop_front() {
                        self.apply_page(*done)?;
                        self.commit_if_full()?;
                    }
                    self.learning(host, LearningEvent::DeferredApplied)?;
                }
                LearningAction::Resample => {
                    tracing::info!(host, "the model stopped matching: sampling the host again");
                    self.group.events.push(Event::Resample { host: host.to_string() });
                    self.touch(host);
                }
            }
        }
        Ok(())
    }

    /// A learn job returned `model` for `host`: stored in this group, and the host's from now
    /// on.
    pub(super) fn install_model(&mut self, host: &str, model: DomainModel) -> Result<(), CrawlError> {
        self.group.batch.put_model(host, &model);
        let book = self.book(host);
        book.model = Some(Arc::new(model));
        book.rec.model_since_fetched = book.rec.fetched;
        self.learning(host, LearningEvent::Learned)
    }
}

/// The job a learning action starts for `host` (`model`: the host's current one, for a
/// drain); `None` for the actions that are no job.
pub(super) fn job_of(host: &str, action: LearningAction, model: &Option<Arc<DomainModel>>) -> Option<WorkItem> {
    match action {
        LearningAction::Learn { generation } => Some(WorkItem::Learn { host: host.to_string(), generation }),
        LearningAction::Drain => Some(WorkItem::Drain { host: host.to_string(), model: model.clone() }),
        LearningAction::UseModel | LearningAction::ApplyDeferred | LearningAction::Resample => None,
    }
}
