//! The single-machine backend: every admitted URL is queued on this worker's frontier (the
//! state), every host is this worker's, and the crawl is over when this worker is idle.

use super::{CrawlMode, FrontierBackend, Membership, ModeChannels, ModeParts, NewUrl, WorkerFigures};
use crate::crawl::CrawlError;
use crate::store::CrawlState;
use std::path::Path;
use std::time::Duration;

/// The committer's side on one machine: nothing is forwarded, nothing is acknowledged.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalFrontier;

impl FrontierBackend for LocalFrontier {
    fn forward(&mut self, _url: NewUrl<'_>) -> bool {
        false
    }
    fn holds(&self, _host: &str) -> bool {
        true
    }
    fn finished(&mut self, _url: &str, _tag: Option<&str>) -> bool {
        false
    }
    fn finished_in_group(&self, _url: &str) -> bool {
        false
    }
    fn acknowledge(&mut self, _tag: &str) {}
    fn before_commit(&mut self) -> Result<(), CrawlError> {
        Ok(())
    }
    fn after_commit(&mut self) -> Result<(), CrawlError> {
        Ok(())
    }
    fn partition(&self, _host: &str) -> u32 {
        0
    }
    fn released(&mut self, _partition: u32) {}
}

/// Dispatch's side on one machine: every host is fetched here, the crawl ends when this
/// worker is idle, a sampling host is dry as soon as it is idle.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalMembership;

impl Membership for LocalMembership {
    fn owns_host(&self, _host: &str) -> bool {
        true
    }
    fn partition(&self, _host: &str) -> u32 {
        0
    }
    fn crawl_done(&self) -> bool {
        true
    }
    fn dry_grace(&self) -> Option<Duration> {
        None
    }
    fn publishes(&self) -> bool {
        false
    }
    fn publish(&mut self, _figures: WorkerFigures) {}
}

/// A crawl on one machine: the seeds go straight to the state, no background task.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalMode;

impl CrawlMode for LocalMode {
    async fn join(&mut self, _state: &CrawlState, _refresh: bool) -> Result<(), CrawlError> {
        Ok(())
    }
    async fn queue_seeds(&mut self, state: &CrawlState, path: &Path, _quiet: bool) -> Result<(), CrawlError> {
        crate::crawl::seeds::add_seeds(state, path)
    }
    async fn start(self, _channels: ModeChannels) -> Result<ModeParts, CrawlError> {
        Ok(ModeParts {
            frontier: Box::new(LocalFrontier),
            membership: Box::new(LocalMembership),
            tasks: Vec::new(),
            end_within: Duration::ZERO,
            late: "",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::UrlKind;

    #[test]
    fn one_machine_queues_every_url_here_and_owns_every_host() {
        let mut f = LocalFrontier;
        let url = url::Url::parse("http://example.org/a").unwrap();
        let new = NewUrl { target: "example.org", url: &url, depth: 1, kind: UrlKind::Page, new_seed: "", cap: 9 };
        assert!(!f.forward(new), "a local frontier forwards nothing");
        assert!(f.holds("example.org") && f.holds("other.net"));
        assert!(!f.finished("http://example.org/a", None), "nothing is marked done for a later delivery");
        assert!(!f.finished_in_group("http://example.org/a"));
        assert!(f.before_commit().is_ok() && f.after_commit().is_ok());
        let m = LocalMembership;
        assert!(m.owns_host("example.org") && m.crawl_done());
        assert_eq!(m.dry_grace(), None, "a host is dry as soon as it is idle");
        assert!(!m.publishes());
    }
}
