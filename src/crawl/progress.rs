//! [`Progress`]: the crawl's indicatif display — pages fetched, queued URLs, hosts sampling vs.
//! learned, records written, duplicate paragraphs dropped. Hidden when stderr is not a
//! terminal (CI, pipes); the end-of-crawl summary is printed either way.

use crate::store::Counters;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// The live counters of a crawl on the terminal.
pub struct Progress {
    _multi: MultiProgress,
    fetched: ProgressBar,
    hosts: ProgressBar,
    corpus: ProgressBar,
    /// When the run started and the pages fetched before it (the counters are cumulative).
    started: std::time::Instant,
    fetched_before: std::sync::OnceLock<u64>,
}

/// Host counts by learning phase.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostCounts {
    /// Hosts still collecting their sample.
    pub sampling: usize,
    /// Hosts with a learned model.
    pub learned: usize,
    /// Hosts on jusText alone (sample too small).
    pub fallback: usize,
    /// Hosts given up.
    pub dead: usize,
}

impl Progress {
    /// Bars on stderr (hidden when `quiet` or when stderr is not a terminal).
    pub fn new(quiet: bool) -> Progress {
        let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr_with_hz(4) };
        let multi = MultiProgress::with_draw_target(target);
        let style = ProgressStyle::with_template("{spinner} {prefix:>8} {msg}").expect("valid template");
        let bar = |prefix: &'static str| {
            let b = multi.add(ProgressBar::new_spinner());
            b.set_style(style.clone());
            b.set_prefix(prefix);
            b.enable_steady_tick(Duration::from_millis(250));
            b
        };
        let fetched = bar("fetch");
        let hosts = bar("hosts");
        let corpus = bar("corpus");
        Progress {
            _multi: multi,
            fetched,
            hosts,
            corpus,
            started: std::time::Instant::now(),
            fetched_before: std::sync::OnceLock::new(),
        }
    }

    /// Refresh all bars.
    pub fn update(&self, c: &Counters, queued: usize, in_flight: usize, hosts: HostCounts) {
        let elapsed = self.started.elapsed();
        let this_run = c.fetched.saturating_sub(*self.fetched_before.get_or_init(|| c.fetched));
        let rate = this_run as f64 / elapsed.as_secs_f64().max(1e-3);
        self.fetched.set_message(format!(
            "{} pages fetched ({rate:.1}/s this run, {}), {} failed, {} robots-disallowed · {} hosts with queued URLs \
             · {} in flight",
            c.fetched,
            humantime::format_duration(Duration::from_secs(elapsed.as_secs())),
            c.failed,
            c.robots_disallowed,
            queued,
            in_flight
        ));
        self.hosts.set_message(format!(
            "{} sampling · {} learned · {} jusText-only · {} given up",
            hosts.sampling, hosts.learned, hosts.fallback, hosts.dead
        ));
        self.corpus.set_message(format!(
            "{} records · {} paragraphs · {} duplicate paragraphs dropped · {} pages discarded",
            c.records,
            c.paragraphs,
            c.duplicate_paragraphs,
            c.discards.values().sum::<u64>()
        ));
    }

    /// Remove the bars.
    pub fn finish(&self) {
        for b in [&self.fetched, &self.hosts, &self.corpus] {
            b.finish_and_clear();
        }
    }
}
