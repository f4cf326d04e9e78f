//! A host's model through the crawl, as the [`Committer`] keeps it: the learn job when its
//! sample is full or the host ran dry ([`Committer::host_dry`]), the drain job for the pages
//! that waited for the model ([`Committer::schedule_drain`]), and the watch over the model's
//! match rate that sends a host back to sampling when its site changed
//! ([`Committer::watch_model`], [`Committer::resample`]).

use super::Committer;
use crate::crawl::messages::{Event, WorkItem};
use crate::store::HostPhase;
use std::time::Instant;

impl Committer {
    /// A host ran dry (or was given up) while sampling: learn from at least `min_sample`
    /// pages (a full `sample_size` when it is sampled again to re-learn its model), else
    /// jusText alone (or the earlier model) for its waiting and later pages.
    pub(super) fn host_dry(&mut self, host: &str) {
        let (min_sample, sample_size) = (self.cfg.learn.min_sample as u64, self.cfg.learn.sample_size as u64);
        let book = self.book(host);
        if book.rec.phase != HostPhase::Sampling || book.learning {
            return;
        }
        // A host sampled again replaces its model only with one learned from a full sample.
        let needed = if book.model.is_some() { sample_size } else { min_sample };
        if book.rec.sampled >= needed && book.rec.sampled > 0 {
            book.learning = true;
            let generation = book.rec.relearned;
            self.after_commit.push(WorkItem::Learn { host: host.to_string(), generation });
            self.group_start.get_or_insert_with(Instant::now);
            return;
        }
        if let Some(model) = book.model.clone() {
            // Sampled again, but fewer than `sample_size` new pages came: the earlier model stays.
            book.rec.phase = HostPhase::Learned;
            (book.rec.window_pages, book.rec.window_missed) = (0, 0);
            book.rec.baseline_missed_share = None;
            tracing::info!(host, sampled = book.rec.sampled, "too few pages to re-learn: the model stays");
            self.events_after_commit.push(Event::Model { host: host.to_string(), model: Some(model) });
            self.schedule_drain(host);
            self.touch(host);
            return;
        }
        book.rec.phase = HostPhase::Fallback;
        tracing::info!(host, sampled = book.rec.sampled, "sample below min_sample: jusText alone");
        self.events_after_commit.push(Event::Model { host: host.to_string(), model: None });
        self.schedule_drain(host);
        self.touch(host);
    }

    /// Count a page extracted with `host`'s model of `generation` (`missed`: no template on the
    /// page, or rejected by the guard), in fetch order from the model's sample on (the sample's
    /// own pages show how the model fits the site). At the end of each `[learn] relearn_window`
    /// pages, a window whose missed share is `relearn_miss_rise` above the model's first window
    /// sends the host back to sampling ([`Committer::resample`]; after the drain in progress,
    /// which must not take the fresh sample's pages): the site changed, the model is learned
    /// again from fresh pages (at most `max_relearns` times).
    pub(super) fn watch_model(&mut self, host: &str, generation: u32, missed: bool) {
        let learn = &self.cfg.learn;
        let (window, rise, max_relearns) = (learn.relearn_window as u64, learn.relearn_miss_rise, learn.max_relearns);
        let book = self.book(host);
        // Pages extracted with an earlier model (in flight when the host was sampled again) do
        // not count for the new one.
        if window == 0 || book.rec.phase != HostPhase::Learned || generation != book.rec.relearned {
            return;
        }
        book.rec.window_pages += 1;
        book.rec.window_missed += u64::from(missed);
        if book.rec.window_pages < window {
            return;
        }
        let share = book.rec.window_missed as f64 / book.rec.window_pages as f64;
        (book.rec.window_pages, book.rec.window_missed) = (0, 0);
        let Some(baseline) = book.rec.baseline_missed_share else {
            book.rec.baseline_missed_share = Some(share);
            return;
        };
        if share < baseline + rise || book.rec.relearned >= max_relearns {
            return;
        }
        tracing::info!(host, missed_share = share, baseline, "the model stopped matching: sampling the host again");
        if book.draining {
            book.resample_after_drain = true;
        } else {
            self.resample(host);
        }
    }

    /// Send `host` back to sampling: dispatch keeps its next pages for a fresh sample.
    pub(super) fn resample(&mut self, host: &str) {
        let book = self.book(host);
        book.resample_after_drain = false;
        book.rec.phase = HostPhase::Sampling;
        book.rec.sampled = 0;
        book.rec.relearned += 1;
        book.rec.baseline_missed_share = None;
        self.events_after_commit.push(Event::Resample { host: host.to_string() });
        self.touch(host);
    }

    /// Give the pages that waited for `host`'s model to a drain job (after the commit), unless
    /// one runs already, none wait, or the host is sampling.
    pub(super) fn schedule_drain(&mut self, host: &str) {
        let book = self.book(host);
        if book.draining || book.rec.waiting == 0 || book.rec.phase == HostPhase::Sampling {
            return;
        }
        book.draining = true;
        let model = book.model.clone();
        self.after_commit.push(WorkItem::Drain { host: host.to_string(), model });
        self.group_start.get_or_insert_with(Instant::now);
    }
}
