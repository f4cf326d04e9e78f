//! Dispatch without network or disk: an in-memory [`Fetch`], a [`MemoryStore`] frontier,
//! a stand-in committer that acknowledges every outcome, and tokio's paused clock.
use super::*;
use crate::store::MemoryStore;
use std::sync::Mutex;

/// Answers by URL path; records (virtual time, path) of every request.
struct MemoryFetch {
    pages: HashMap<String, Vec<u16>>,
    robots: Option<(u16, String)>,
    log: Mutex<Vec<(tokio::time::Instant, String)>>,
}

impl Fetch for MemoryFetch {
    fn fetch_page(
        &self,
        url: &Url,
        _: Duration,
        _: UrlKind,
        _: Option<Validators>,
    ) -> impl Future<Output = Recorded<FetchedPage>> + Send {
        let path = url.path().to_string();
        let mut log = self.log.lock().unwrap();
        let nth = log.iter().filter(|(_, p)| *p == path).count();
        log.push((tokio::time::Instant::now(), path.clone()));
        let statuses = self.pages.get(&path).cloned().unwrap_or_else(|| vec![404]);
        let status = statuses[nth.min(statuses.len() - 1)];
        let page = FetchedPage {
            url: url.clone(),
            final_url: url.clone(),
            status,
            content_type: Some("text/html".into()),
            retry_after: None,
            validators: Validators::default(),
            redirect: None,
            body: b"<p>text</p>".to_vec(),
            response_time: Duration::from_millis(10),
            fetched_at: SystemTime::now(),
            budget: None,
        };
        async move { Recorded::bare(Ok(page)) }
    }
    fn fetch_robots(&self, url: &Url) -> impl Future<Output = Recorded<(u16, String)>> + Send {
        self.log.lock().unwrap().push((tokio::time::Instant::now(), "/robots.txt".into()));
        let r = self.robots.clone().ok_or(FetchError::Timeout { url: url.to_string() });
        async move { Recorded::bare(r) }
    }
}

struct Outcome {
    results: Vec<(String, &'static str)>,
    dead: Vec<String>,
    dry: Vec<String>,
    requests: Vec<(tokio::time::Instant, String)>,
    /// With `hold`: the page requests made by the time the held acknowledgements went out.
    requests_while_held: Option<usize>,
}

/// Crawl `paths` of one host; the stand-in committer acknowledges each outcome at once.
async fn crawl(pages: &[(&str, Vec<u16>)], robots: Option<(u16, String)>) -> Outcome {
    crawl_holding(pages, robots, None).await
}

/// [`crawl`], the stand-in committer holding back its acknowledgements (pages that wait for
/// their commit) until 60 s of the paused clock after the `hold`-th, then giving them all.
async fn crawl_holding(pages: &[(&str, Vec<u16>)], robots: Option<(u16, String)>, hold: Option<usize>) -> Outcome {
    let state = CrawlState::open(Arc::new(MemoryStore::new())).unwrap();
    let mut batch = state.batch();
    for (path, _) in pages {
        batch.push_frontier(
            "a.test",
            FrontierEntry { url: format!("http://a.test{path}"), depth: 0, ..FrontierEntry::default() },
        );
    }
    state.commit(batch).unwrap();
    let fetch = Arc::new(MemoryFetch {
        pages: pages.iter().map(|(p, s)| (p.to_string(), s.clone())).collect(),
        robots,
        log: Mutex::new(Vec::new()),
    });
    let politeness = PolitenessConfig {
        min_delay: Duration::from_secs(1),
        backoff_base: Duration::from_secs(5),
        robots_give_up: Duration::from_secs(30),
        ..PolitenessConfig::default()
    };
    let cfg = DispatchConfig {
        politeness,
        max_parallel_hosts: 4,
        ua_token: "webcorpus".into(),
        stop_grace: Duration::from_secs(5),
        request_timeout: Duration::from_secs(30),
    };
    let (work_tx, work_rx) = crossbeam_channel::bounded(4);
    let (commit_tx, commit_rx) = crossbeam_channel::unbounded();
    let (events_tx, events_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut d = Dispatcher::new(fetch.clone(), state, cfg, work_tx, commit_tx, events_rx);
    d.add_host("a.test", Url::parse("http://a.test/").unwrap(), None, HostModel::Sampling, false);
    let log = fetch.clone();
    let committer = tokio::spawn(async move {
        let mut out = Outcome {
            results: Vec::new(),
            dead: Vec::new(),
            dry: Vec::new(),
            requests: Vec::new(),
            requests_while_held: None,
        };
        // Acknowledgements held back, and when they go out (60 s after the `hold`-th).
        let mut held = Vec::new();
        let mut release_at = None;
        loop {
            let ack = |host: String| Event::Committed { pages: vec![host], new_work: vec![], counters: Box::default() };
            if release_at.is_some_and(|t| tokio::time::Instant::now() >= t) {
                let requests = log.log.lock().unwrap().iter().filter(|(_, p)| p != "/robots.txt").count();
                out.requests_while_held = Some(requests);
                release_at = None;
                for a in held.drain(..) {
                    let _ = events_tx.send(a);
                }
            }
            if let Ok(WorkItem::Page { host, entry, .. }) = work_rx.try_recv() {
                out.results.push((entry.url, "fetched"));
                match hold {
                    Some(n) if out.requests_while_held.is_none() => {
                        held.push(ack(host));
                        if held.len() == n {
                            release_at = Some(tokio::time::Instant::now() + Duration::from_secs(60));
                        }
                    }
                    _ => {
                        let _ = events_tx.send(ack(host));
                    }
                }
                continue;
            }
            match commit_rx.try_recv() {
                Ok(CommitMsg::Page(done)) => {
                    let kind = match done.result {
                        PageResult::RobotsDisallowed => "robots_disallowed",
                        PageResult::FetchFailed { reason } => reason,
                        PageResult::Retry => "retry",
                        PageResult::Fetched { .. } => "http_error",
                    };
                    out.results.push((done.entry.url, kind));
                    let _ = events_tx.send(ack(done.host));
                }
                Ok(CommitMsg::HostDead { host, .. }) => out.dead.push(host),
                Ok(CommitMsg::HostDry { host }) => out.dry.push(host),
                Ok(CommitMsg::Finish { .. }) => {
                    let _ = events_tx.send(Event::Finished(Ok(())));
                    return out;
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
            }
        }
    });
    let interrupted =
        d.run(Arc::new(AtomicBool::new(false)), &Shutdown::default(), &Progress::new(true)).await.unwrap();
    assert!(!interrupted);
    let mut out = committer.await.unwrap();
    out.requests = fetch.log.lock().unwrap().clone();
    out
}

fn gaps(requests: &[(tokio::time::Instant, String)]) -> Vec<Duration> {
    requests.windows(2).map(|w| w[1].0 - w[0].0).collect()
}

/// A 503 is retried after the back-off, then the page is fetched; every request to the
/// host is at least `min_delay` after the previous one, the retry at least the back-off.
#[tokio::test(start_paused = true)]
async fn politeness_holds_under_retry() {
    let out = crawl(&[("/1", vec![503, 200]), ("/2", vec![200])], Some((404, String::new()))).await;
    let paths: Vec<&str> = out.requests.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(paths, ["/robots.txt", "/1", "/1", "/2"]);
    let gaps = gaps(&out.requests);
    assert!(gaps.iter().all(|g| *g >= Duration::from_secs(1)), "{gaps:?}");
    assert!(gaps[1] >= Duration::from_secs(5), "the retry waits for the back-off: {gaps:?}");
    let kinds: Vec<&str> = out.results.iter().map(|(_, k)| *k).collect();
    assert_eq!(kinds, ["retry", "fetched", "fetched"]);
    assert_eq!(out.dry, ["a.test"], "the host is reported dry once its frontier is done");
}

/// robots.txt that never answers, on the crawl's only host: a first try and one retry
/// after the back-off (5 s), then, nothing else being left to crawl, the host is given up
/// for the run without one page request (not after `robots_give_up`, 30 s here).
#[tokio::test(start_paused = true)]
async fn robots_failure_gives_the_host_up() {
    let out = crawl(&[("/1", vec![200])], None).await;
    let paths: Vec<&str> = out.requests.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(paths, ["/robots.txt"; crate::crawl::hosts::UNREACHABLE_AFTER as usize]);
    let secs: Vec<u64> = gaps(&out.requests).iter().map(|g| g.as_secs()).collect();
    assert_eq!(secs, [5], "back-off between tries");
    assert_eq!(out.dead, ["a.test"]);
    assert!(out.results.is_empty());
}

/// Disallowed URLs are discarded without a request; allowed ones are fetched.
#[tokio::test(start_paused = true)]
async fn robots_disallowed_urls_are_not_fetched() {
    let robots = Some((200, "User-agent: *\nDisallow: /private\n".to_string()));
    let out = crawl(&[("/private/1", vec![200]), ("/open", vec![200])], robots).await;
    let paths: Vec<&str> = out.requests.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(paths, ["/robots.txt", "/open"]);
    let kinds: Vec<&str> = out.results.iter().map(|(_, k)| *k).collect();
    assert_eq!(kinds, ["robots_disallowed", "fetched"]);
}

/// A host whose fetched pages are not committed (held back while its sample is extracted with
/// its model) stops at [`MAX_UNCOMMITTED_PAGES`] pages in memory, however long they wait,
/// and goes on once they are durable.
#[tokio::test(start_paused = true)]
async fn a_host_pauses_while_its_uncommitted_pages_are_at_the_cap() {
    use crate::crawl::hosts::MAX_UNCOMMITTED_PAGES;
    let cap = MAX_UNCOMMITTED_PAGES as usize;
    let paths: Vec<String> = (0..cap + 20).map(|i| format!("/{i}")).collect();
    let pages: Vec<(&str, Vec<u16>)> = paths.iter().map(|p| (p.as_str(), vec![200])).collect();
    let out = crawl_holding(&pages, Some((404, String::new())), Some(cap)).await;
    assert_eq!(out.requests_while_held, Some(cap), "60 s at a delay of 1 s, and no request past the cap");
    let fetched = out.results.iter().filter(|(_, k)| *k == "fetched").count();
    assert_eq!(fetched, cap + 20, "every page once the held ones are committed");
    assert_eq!(out.dry, ["a.test"]);
}
