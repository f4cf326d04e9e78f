//! The crawl's main loop. The principal type is the private `Crawler`; [`run`] is the
//! entry point. Steps, in order:
//!
//! 1. open the state (sled) and the corpus writer, truncating the corpus to the committed
//!    offset (crash recovery);
//! 2. queue the seeds that are not seen yet;
//! 3. load the hosts; finish what a killed run left half-done (learning, sampled pages);
//! 4. loop: start a request for every host that is due (one in flight per host, robots.txt
//!    first, politeness delay), commit each finished page through the [`Sink`], learn a
//!    host's model when its sample is full or it runs dry;
//! 5. print the summary.
//!
//! A host moves Sampling → Learned (or Fallback when it runs dry below `min_sample`),
//! GoldMiner §III.A. Hosts are independent: one failing host never stops the others.

use crate::config::Config;
use crate::crawl::fetch::Fetcher;
use crate::crawl::politeness::HostPoliteness;
use crate::crawl::progress::{HostCounts, Progress};
use crate::crawl::robots::{user_agent_token, RobotsEntry, RobotsPolicy, RobotsStatus};
use crate::crawl::sink::{PageMeta, Sink};
use crate::crawl::task::{extract_and_classify, page_task, robots_task, PageMode, PageTools, TaskResult};
use crate::crawl::url::{host_key, in_scope, looks_like_html, normalize, parse_seed_line};
use crate::crawl::{CrawlError, CrawlOptions, CrawlSummary};
use crate::dedup::Onion;
use crate::domain::learn::learn;
use crate::domain::{DomainModel, SamplePage};
use crate::extract::pipeline::ExtractSettings;
use crate::html::Document;
use crate::store::{CrawlState, FrontierEntry, HostPhase, HostRecord, SampledPage, SledStore};
use crate::write::open_writer;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tokio::task::JoinSet;
use url::Url;

/// Attempts at robots.txt (5xx or no answer) before a host is given up.
const ROBOTS_ATTEMPTS: u32 = 3;
/// Attempts at one URL answered 429/503 before it is dropped.
const RETRY_ATTEMPTS: u32 = 3;

/// Run a crawl to the end of its frontier (or until Ctrl-C), resuming from the state.
///
/// # Errors
/// [`CrawlError`] for what stops a whole crawl: the store, the corpus file, the seeds file.
/// Bad pages and bad hosts are counted and logged, never returned.
pub async fn run(opts: CrawlOptions) -> Result<CrawlSummary, CrawlError> {
    // 1. State and corpus writer.
    let cfg = opts.config.clone();
    let store = Arc::new(SledStore::open(&cfg.crawl.state_dir)?);
    let state = CrawlState::open(store)?;
    let format = cfg.crawl.format;
    if let Some(stored) = state.corpus_format()? {
        if stored != format.name() {
            return Err(CrawlError::FormatMismatch { stored, requested: format.name().to_string() });
        }
    }
    let writer = open_writer(format, &cfg.crawl.out_dir, state.corpus_offset()?)?;
    let corpus = writer.path().to_path_buf();
    let sink = Sink::new(state.clone(), writer, format, Onion::new(cfg.dedup)?)?
        .drop_non_article(cfg.classify.drop_non_article);
    let mut crawler = Crawler::new(cfg, sink, opts.quiet)?;

    // 2. Seeds.
    crawler.add_seeds(&opts.seeds)?;

    // 3. Hosts, and what a killed run left half-done.
    crawler.load_hosts()?;
    crawler.resume_pending().await?;

    // 4. The main loop.
    let interrupted = crawler.main_loop().await?;
    crawler.progress.finish();

    // 5. Summary.
    let hosts = crawler.sink.state.hosts()?;
    Ok(CrawlSummary {
        counters: crawler.sink.counters.clone(),
        hosts: hosts.len(),
        learned: hosts.iter().filter(|h| h.phase == HostPhase::Learned).count(),
        queued: crawler.sink.state.frontier_total()?,
        corpus,
        interrupted,
    })
}

/// What the scheduler knows of a host during this run.
struct HostRuntime {
    rec: HostRecord,
    seed: Url,
    politeness: HostPoliteness,
    robots: Option<(RobotsEntry, RobotsPolicy)>,
    robots_failures: u32,
    in_flight: bool,
    /// False once the host's frontier was found empty (set again when a URL is queued).
    has_work: bool,
    model: Option<Arc<DomainModel>>,
}

struct Crawler {
    cfg: Config,
    sink: Sink,
    fetcher: Arc<Fetcher>,
    tools: PageTools,
    ua_token: String,
    hosts: BTreeMap<String, HostRuntime>,
    tasks: JoinSet<TaskResult>,
    task_hosts: HashMap<tokio::task::Id, String>,
    /// 429/503 answers per URL in this run.
    retries: HashMap<String, u32>,
    progress: Progress,
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

impl Crawler {
    fn new(cfg: Config, sink: Sink, quiet: bool) -> Result<Crawler, CrawlError> {
        let fetcher = Arc::new(Fetcher::new(&cfg.net)?);
        let tools = PageTools {
            kind: cfg.crawl.extractor,
            settings: Arc::new(ExtractSettings::from_config(&cfg)),
            classifier: cfg.classify.classifier()?,
        };
        let ua_token = user_agent_token(&cfg.net.user_agent);
        Ok(Crawler {
            cfg,
            sink,
            fetcher,
            tools,
            ua_token,
            hosts: BTreeMap::new(),
            tasks: JoinSet::new(),
            task_hosts: HashMap::new(),
            retries: HashMap::new(),
            progress: Progress::new(quiet),
        })
    }

    fn state(&self) -> &CrawlState {
        &self.sink.state
    }

    /// Step 2: queue every seed not seen before. Bad lines are reported and skipped.
    fn add_seeds(&mut self, path: &Path) -> Result<(), CrawlError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CrawlError::Seeds { path: path.to_path_buf(), reason: e.to_string() })?;
        let mut batch = self.state().batch();
        let mut good = 0;
        for (i, line) in text.lines().enumerate() {
            let url = match parse_seed_line(line) {
                Ok(Some(u)) => u,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!("{}:{}: skipped: {e}", path.display(), i + 1);
                    eprintln!("warning: {}:{}: seed skipped: {e}", path.display(), i + 1);
                    continue;
                }
            };
            let (Some(url), Some(host)) = (normalize(&url), host_key(&url)) else { continue };
            good += 1;
            let mut rec = match self.state().host(&host)? {
                Some(rec) => rec,
                None => HostRecord { host: host.clone(), seed: url.to_string(), ..HostRecord::default() },
            };
            if !self.state().is_seen(url.as_str())? {
                batch.push_frontier(&host, FrontierEntry { url: url.to_string(), depth: 0, seq: 0 });
                rec.enqueued += 1;
                batch.mark_seen(url.as_str());
            }
            batch.put_host(&rec);
        }
        if good == 0 && self.state().hosts()?.is_empty() {
            return Err(CrawlError::Seeds { path: path.to_path_buf(), reason: "no valid seed URL".into() });
        }
        self.state().commit(batch)?;
        Ok(())
    }

    /// Step 3a: a runtime for every host in the state.
    fn load_hosts(&mut self) -> Result<(), CrawlError> {
        for rec in self.state().hosts()? {
            let seed = Url::parse(&rec.seed).unwrap_or_else(|_| Url::parse("http://invalid/").expect("valid"));
            let robots = self
                .state()
                .robots::<RobotsEntry>(&rec.host)?
                .filter(|e| e.status != RobotsStatus::DisallowAll)
                .filter(|e| e.is_fresh(now_ms(), self.cfg.politeness.robots_max_age))
                .map(|e| {
                    let policy = e.policy(&self.ua_token);
                    (e, policy)
                });
            let model = match rec.phase {
                HostPhase::Learned => self.state().model::<DomainModel>(&rec.host)?.map(Arc::new),
                _ => None,
            };
            let rt = HostRuntime {
                seed,
                politeness: HostPoliteness::new(self.cfg.politeness.clone()),
                robots,
                robots_failures: 0,
                in_flight: false,
                has_work: !rec.dead,
                model,
                rec,
            };
            self.hosts.insert(rt.rec.host.clone(), rt);
        }
        Ok(())
    }

    /// Step 3b: learn hosts whose sample filled just before a kill; write sampled pages of
    /// learned hosts that were not written yet.
    async fn resume_pending(&mut self) -> Result<(), CrawlError> {
        let names: Vec<String> = self.hosts.keys().cloned().collect();
        for host in names {
            let rt = &self.hosts[&host];
            match rt.rec.phase {
                HostPhase::Sampling if rt.rec.sampled >= self.cfg.learn.sample_size as u64 => {
                    self.learn_host(&host).await?
                }
                HostPhase::Sampling => {}
                HostPhase::Learned | HostPhase::Fallback => self.write_samples(&host).await?,
            }
        }
        Ok(())
    }

    /// Step 4. Returns true when interrupted by Ctrl-C.
    async fn main_loop(&mut self) -> Result<bool, CrawlError> {
        let ctrl_c = tokio::signal::ctrl_c();
        tokio::pin!(ctrl_c);
        let mut stopping = false;
        let mut last_progress = Instant::now() - Duration::from_secs(1);
        loop {
            let mut wake = Instant::now() + Duration::from_millis(500);
            if !stopping {
                self.launch_ready(&mut wake).await?;
            }
            if self.tasks.is_empty() && (stopping || !self.hosts.values().any(|h| h.has_work && !h.rec.dead)) {
                break;
            }
            if last_progress.elapsed() >= Duration::from_millis(200) {
                self.show_progress()?;
                last_progress = Instant::now();
            }
            tokio::select! {
                Some(joined) = self.tasks.join_next_with_id(), if !self.tasks.is_empty() => match joined {
                    Ok((id, result)) => {
                        self.task_hosts.remove(&id);
                        self.handle(result).await?;
                    }
                    Err(e) => {
                        let host = self.task_hosts.remove(&e.id()).unwrap_or_default();
                        tracing::error!(host, "fetch task failed: {e}");
                        if let Some(rt) = self.hosts.get_mut(&host) {
                            rt.in_flight = false;
                            rt.politeness.record_failure(Instant::now());
                        }
                    }
                },
                _ = tokio::time::sleep_until(wake.into()) => {}
                _ = &mut ctrl_c, if !stopping => {
                    eprintln!("interrupted: finishing requests in flight; run the same command again to resume");
                    stopping = true;
                }
            }
        }
        self.show_progress()?;
        Ok(stopping)
    }

    fn show_progress(&self) -> Result<(), CrawlError> {
        let mut counts = HostCounts::default();
        for h in self.hosts.values() {
            match (h.rec.dead, h.rec.phase) {
                (true, _) => counts.dead += 1,
                (_, HostPhase::Sampling) => counts.sampling += 1,
                (_, HostPhase::Learned) => counts.learned += 1,
                (_, HostPhase::Fallback) => counts.fallback += 1,
            }
        }
        let queued: u64 = self.hosts.values().map(|h| h.rec.enqueued.saturating_sub(h.rec.fetched)).sum();
        self.progress.update(&self.sink.counters, queued as usize, self.tasks.len(), counts);
        Ok(())
    }

    /// Start a request for every host that is due, up to `max_parallel_hosts`.
    async fn launch_ready(&mut self, wake: &mut Instant) -> Result<(), CrawlError> {
        let names: Vec<String> = self
            .hosts
            .iter()
            .filter(|(_, h)| h.has_work && !h.in_flight && !h.rec.dead)
            .map(|(k, _)| k.clone())
            .collect();
        for host in names {
            if self.tasks.len() >= self.cfg.crawl.max_parallel_hosts {
                break;
            }
            let now = Instant::now();
            let rt = &self.hosts[&host];
            let due = rt.politeness.next_allowed();
            if due > now {
                *wake = (*wake).min(due);
                continue;
            }
            // robots.txt first (cached for robots_max_age; a failed fetch is retried).
            if rt.robots.as_ref().is_none_or(|(e, _)| {
                e.status == RobotsStatus::DisallowAll || !e.is_fresh(now_ms(), self.cfg.politeness.robots_max_age)
            }) {
                let url = rt.seed.join("/robots.txt").unwrap_or_else(|_| rt.seed.clone());
                let origin = Url::parse(&format!("{}://{}/robots.txt", url.scheme(), host)).unwrap_or(url);
                self.spawn(&host, robots_task(self.fetcher.clone(), host.clone(), origin));
                continue;
            }
            self.launch_page(&host).await?;
        }
        Ok(())
    }

    fn spawn(&mut self, host: &str, fut: impl std::future::Future<Output = TaskResult> + Send + 'static) {
        let handle = self.tasks.spawn(fut);
        self.task_hosts.insert(handle.id(), host.to_string());
        if let Some(rt) = self.hosts.get_mut(host) {
            rt.in_flight = true;
        }
    }

    /// Fetch the head of `host`'s frontier, dropping robots-disallowed URLs on the way; a
    /// host whose frontier is empty is finished (learned or put on jusText).
    async fn launch_page(&mut self, host: &str) -> Result<(), CrawlError> {
        loop {
            let Some(entry) = self.state().frontier_head(host)? else {
                let rt = self.hosts.get_mut(host).expect("known host");
                rt.has_work = false;
                if rt.rec.phase == HostPhase::Sampling {
                    self.finish_sampling(host).await?;
                }
                return Ok(());
            };
            let rt = self.hosts.get_mut(host).expect("known host");
            let allowed = match (Url::parse(&entry.url), &rt.robots) {
                (Ok(u), Some((_, policy))) => policy.is_allowed(&u),
                (Ok(_), None) => true,
                (Err(_), _) => false,
            };
            if !allowed {
                let mut rec = rt.rec.clone();
                let mut batch = self.state().batch();
                batch.pop_frontier(host, entry.seq);
                self.sink.counters.robots_disallowed += 1;
                self.sink.discard(&mut rec, "robots_disallowed");
                self.sink.commit(batch, &rec)?;
                self.hosts.get_mut(host).expect("known host").rec = rec;
                continue;
            }
            let mode = match rt.rec.phase {
                HostPhase::Sampling => PageMode::Sample,
                HostPhase::Learned | HostPhase::Fallback => PageMode::Extract(rt.model.clone()),
            };
            let hop_delay = rt.politeness.last_delay().max(self.cfg.politeness.min_delay);
            let fut = page_task(self.fetcher.clone(), host.to_string(), entry, mode, self.tools.clone(), hop_delay);
            self.spawn(host, fut);
            return Ok(());
        }
    }

    async fn handle(&mut self, result: TaskResult) -> Result<(), CrawlError> {
        match result {
            TaskResult::Robots { host, result, response_time } => {
                self.handle_robots(&host, result, response_time).await
            }
            TaskResult::Page { host, entry, fetch, work, response_time } => {
                self.handle_page(&host, entry, fetch, work, response_time).await
            }
        }
    }

    async fn handle_robots(
        &mut self,
        host: &str,
        result: Option<(u16, String)>,
        response_time: Duration,
    ) -> Result<(), CrawlError> {
        let status = result.as_ref().map(|(s, _)| *s);
        let entry = RobotsEntry::from_fetch(result, now_ms());
        let now = Instant::now();
        let rt = self.hosts.get_mut(host).expect("known host");
        rt.in_flight = false;
        if entry.status == RobotsStatus::DisallowAll {
            rt.robots_failures += 1;
            rt.politeness.record_failure(now);
            let why = status.map_or("no answer".to_string(), |s| format!("HTTP {s}"));
            if rt.robots_failures >= ROBOTS_ATTEMPTS {
                eprintln!("warning: host {host}: robots.txt unavailable ({why}) {ROBOTS_ATTEMPTS} times; host skipped");
                rt.rec.dead = true;
                let rec = rt.rec.clone();
                self.sink.commit(self.sink.state.batch(), &rec)?;
                self.finish_sampling(host).await?;
            } else {
                tracing::warn!(host, "robots.txt unavailable ({why}); retrying later");
            }
            return Ok(());
        }
        rt.robots_failures = 0;
        let policy = entry.policy(&self.ua_token);
        rt.politeness.record_response(now, response_time, status.unwrap_or(200), None, policy.crawl_delay());
        let mut batch = self.sink.state.batch();
        batch.put_robots(host, &entry);
        let rec = rt.rec.clone();
        rt.robots = Some((entry, policy));
        self.sink.commit(batch, &rec)
    }

    async fn handle_page(
        &mut self,
        host: &str,
        entry: FrontierEntry,
        fetch: Result<Box<crate::crawl::fetch::FetchedPage>, crate::crawl::fetch::FetchError>,
        work: Option<Box<crate::crawl::task::PageWork>>,
        response_time: Duration,
    ) -> Result<(), CrawlError> {
        let now = Instant::now();
        let sample_size = self.cfg.learn.sample_size as u64;
        let rt = self.hosts.get_mut(host).expect("known host");
        rt.in_flight = false;
        let crawl_delay = rt.robots.as_ref().and_then(|(_, p)| p.crawl_delay());
        let mut rec = rt.rec.clone();
        let mut batch = self.sink.state.batch();
        let page = match fetch {
            Err(e) => {
                use crate::crawl::fetch::FetchError;
                if matches!(e, FetchError::Timeout { .. } | FetchError::Connect { .. } | FetchError::Other { .. }) {
                    rt.politeness.record_failure(now);
                } else {
                    // The host answered (a PDF, a page over the size cap, a bad redirect):
                    // not a host failure, the regular delay applies.
                    rt.politeness.record_response(now, response_time, 200, None, crawl_delay);
                }
                if rt.politeness.is_dead() {
                    eprintln!("warning: host {host}: too many consecutive failures; host given up (last: {e})");
                    rec.dead = true;
                }
                tracing::warn!("{e}");
                self.sink.counters.failed += 1;
                batch.pop_frontier(host, entry.seq);
                self.sink.discard(&mut rec, e.reason());
                self.sink.commit(batch, &rec)?;
                self.hosts.get_mut(host).expect("known host").rec = rec.clone();
                if rec.dead {
                    self.finish_sampling(host).await?;
                }
                return Ok(());
            }
            Ok(page) => page,
        };
        rt.politeness.record_response(now, response_time, page.status, page.retry_after.as_deref(), crawl_delay);
        self.sink.counters.fetched += 1;
        rec.fetched += 1;
        if matches!(page.status, 429 | 503) {
            let tries = self.retries.entry(entry.url.clone()).or_default();
            *tries += 1;
            if *tries < RETRY_ATTEMPTS {
                // Leave the URL at the head of the frontier: it is fetched again when the
                // host's back-off (Retry-After or exponential) has passed.
                self.sink.commit(batch, &rec)?;
                self.hosts.get_mut(host).expect("known host").rec = rec;
                return Ok(());
            }
        }
        batch.pop_frontier(host, entry.seq);
        if page.final_url != page.url {
            batch.mark_seen(page.final_url.as_str());
        }
        let fetched_at = rfc3339(page.fetched_at);
        match work {
            _ if !(200..300).contains(&page.status) => self.sink.discard(&mut rec, &format!("http_{}", page.status)),
            None => self.sink.discard(&mut rec, "processing_failed"),
            Some(work) => {
                if work.charset_errors {
                    tracing::debug!(url = entry.url, "malformed bytes for the page's charset were replaced");
                }
                self.enqueue_links(&mut batch, &mut rec, &entry, &work.links)?;
                match (work.extraction, work.html) {
                    (Some(extraction), _) => {
                        let meta =
                            PageMeta { url: &entry.url, final_url: page.final_url.as_str(), fetched_at: &fetched_at };
                        self.sink.add_extraction(&mut batch, &mut rec, &meta, extraction, work.page_class)?;
                    }
                    (None, Some(html)) if rec.sampled < sample_size => {
                        let seq = batch.next_seq();
                        let sample = SampledPage {
                            seq,
                            url: entry.url.clone(),
                            final_url: page.final_url.to_string(),
                            fetched_at,
                            html,
                        };
                        batch.put_sample(host, &sample);
                        rec.sampled += 1;
                    }
                    (None, _) => self.sink.discard(&mut rec, "processing_failed"),
                }
            }
        }
        self.sink.commit(batch, &rec)?;
        let full = rec.phase == HostPhase::Sampling && rec.sampled >= sample_size;
        self.hosts.get_mut(host).expect("known host").rec = rec;
        if full {
            self.learn_host(host).await?;
        }
        Ok(())
    }

    /// Queue the in-scope, unseen links of a page (depth + 1, per-host cap).
    fn enqueue_links(
        &mut self,
        batch: &mut crate::store::StateBatch,
        rec: &mut HostRecord,
        from: &FrontierEntry,
        links: &[Url],
    ) -> Result<(), CrawlError> {
        let depth = from.depth + 1;
        if depth > self.cfg.crawl.max_depth {
            return Ok(());
        }
        let seed = self.hosts[&rec.host].seed.clone();
        let mut added = HashSet::new();
        for link in links {
            let Some(url) = normalize(link) else { continue };
            if !looks_like_html(&url)
                || !in_scope(&url, &seed, self.cfg.crawl.scope)
                || self.cfg.crawl.is_excluded(url.as_str())
            {
                continue;
            }
            let Some(host) = host_key(&url) else { continue };
            if added.contains(url.as_str()) || self.state().is_seen(url.as_str())? {
                continue;
            }
            let entry = FrontierEntry { url: url.to_string(), depth, seq: 0 };
            if host == rec.host {
                if rec.enqueued >= self.cfg.crawl.max_pages_per_host {
                    continue;
                }
                rec.enqueued += 1;
                batch.push_frontier(&host, entry);
                if let Some(rt) = self.hosts.get_mut(&host) {
                    rt.has_work = true;
                }
            } else {
                let other = match self.hosts.get_mut(&host) {
                    Some(rt) => rt,
                    None => {
                        let rec = match self.sink.state.host(&host)? {
                            Some(r) => r,
                            None => HostRecord { host: host.clone(), seed: seed.to_string(), ..HostRecord::default() },
                        };
                        self.hosts.entry(host.clone()).or_insert(HostRuntime {
                            rec,
                            seed: seed.clone(),
                            politeness: HostPoliteness::new(self.cfg.politeness.clone()),
                            robots: None,
                            robots_failures: 0,
                            in_flight: false,
                            has_work: true,
                            model: None,
                        })
                    }
                };
                if other.rec.enqueued >= self.cfg.crawl.max_pages_per_host {
                    continue;
                }
                other.rec.enqueued += 1;
                other.has_work = true;
                batch.push_frontier(&host, entry);
                batch.put_host(&other.rec);
            }
            added.insert(url.to_string());
        }
        Ok(())
    }

    /// A host ran dry (or was given up) while sampling: learn when the sample has at least
    /// `min_sample` pages, else fall back to jusText; then write the sampled pages.
    async fn finish_sampling(&mut self, host: &str) -> Result<(), CrawlError> {
        let rt = &self.hosts[host];
        if rt.rec.phase != HostPhase::Sampling {
            return Ok(());
        }
        if rt.rec.sampled >= self.cfg.learn.min_sample as u64 {
            return self.learn_host(host).await;
        }
        let mut rec = rt.rec.clone();
        rec.phase = HostPhase::Fallback;
        tracing::info!(host, sampled = rec.sampled, "sample below min_sample: jusText alone");
        self.sink.commit(self.sink.state.batch(), &rec)?;
        self.hosts.get_mut(host).expect("known host").rec = rec;
        self.write_samples(host).await
    }

    /// Learn `host`'s model from its sample (GoldMiner + StaDyNoT), store it, and extract
    /// the sampled pages with it.
    async fn learn_host(&mut self, host: &str) -> Result<(), CrawlError> {
        let pages: Vec<SamplePage> =
            self.state().samples(host)?.into_iter().map(|s| SamplePage { url: s.url, html: s.html }).collect();
        let (name, language, justext, params) = (
            host.to_string(),
            self.cfg.crawl.language().map(str::to_string),
            self.cfg.justext.clone(),
            self.cfg.learn.clone(),
        );
        let n = pages.len();
        let job = move || learn(&name, &pages, language.as_deref(), &justext, &params);
        let model = tokio::task::spawn_blocking(job).await.map_err(|e| std::io::Error::other(e.to_string()));
        let model = match model {
            Ok(m) => m,
            Err(e) => {
                tracing::error!(host, "learning failed: {e}; falling back to jusText");
                DomainModel { host: host.to_string(), pages_sampled: n, ..DomainModel::default() }
            }
        };
        tracing::info!(host, pages = n, goldminer = model.goldminer.is_some(), "domain model learned");
        let rt = self.hosts.get_mut(host).expect("known host");
        let mut rec = rt.rec.clone();
        rec.phase = HostPhase::Learned;
        let mut batch = self.sink.state.batch();
        batch.put_model(host, &model);
        rt.model = Some(Arc::new(model));
        self.sink.commit(batch, &rec)?;
        self.hosts.get_mut(host).expect("known host").rec = rec;
        self.write_samples(host).await
    }

    /// Extract and write the sampled pages of `host` not written yet, each in its own batch.
    async fn write_samples(&mut self, host: &str) -> Result<(), CrawlError> {
        let mut pending = Vec::new();
        for s in self.state().samples(host)? {
            if !self.state().sample_written(host, s.seq)? {
                pending.push(s);
            }
        }
        if pending.is_empty() {
            return Ok(());
        }
        let model = self.hosts[host].model.clone();
        let tools = self.tools.clone();
        let job = move || {
            pending
                .into_iter()
                .map(|s| {
                    let doc = Document::parse(&s.html);
                    let (ex, class) = extract_and_classify(&doc, &s.final_url, model.as_deref(), &tools);
                    (SampledPage { html: String::new(), ..s }, ex, class)
                })
                .collect::<Vec<_>>()
        };
        let results = tokio::task::spawn_blocking(job).await.map_err(|e| std::io::Error::other(e.to_string()));
        let results = match results {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(host, "extracting the sample failed: {e}");
                return Ok(());
            }
        };
        let mut rec = self.hosts[host].rec.clone();
        for (s, ex, class) in results {
            let mut batch = self.sink.state.batch();
            batch.mark_sample_written(host, s.seq);
            let meta = PageMeta { url: &s.url, final_url: &s.final_url, fetched_at: &s.fetched_at };
            self.sink.add_extraction(&mut batch, &mut rec, &meta, ex, class)?;
            self.sink.commit(batch, &rec)?;
        }
        self.hosts.get_mut(host).expect("known host").rec = rec;
        Ok(())
    }
}
