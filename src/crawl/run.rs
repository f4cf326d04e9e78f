//! [`run`]: the crawl's wiring. Steps, in order:
//!
//! 1. check the free space, open the state, claim the corpus directory for it
//!    ([`owner::claim`]) and open the corpus writer and the WARC writer, cutting the corpus and
//!    the WARC output back to their committed ends (crash recovery);
//! 2. queue the seeds that are not seen yet;
//! 3. start the committer thread (which reloads Onion's seen set and restarts the learn and
//!    drain jobs a killed run left) and the worker pool;
//! 4. run dispatch over every host of the state until the frontier is empty or Ctrl-C;
//! 5. join the stages and read the summary from the state.
//!
//! A cluster worker (`[cluster] redis`, [`crate::cluster`]) joins the crawl in Redis before
//! step 1 ends (taking its partitions and forgetting the hosts of the others), queues the
//! seeds through the partition streams (once per crawl) in step 2, and runs the membership and
//! stream-reading loops beside the three stages.

use crate::cluster::task::{run_membership, run_reader, ClusterChannels};
use crate::cluster::{ClusterError, ClusterLink, RemoteUrl, WorkerStatus};
use crate::config::Config;
use crate::crawl::committer::{forget_unowned, Committer, CommitterCluster};
use crate::crawl::dispatch::{DispatchCluster, DispatchConfig, Dispatcher};
use crate::crawl::fetch::Fetcher;
use crate::crawl::messages::Event;
use crate::crawl::progress::Progress;
use crate::crawl::robots::{user_agent_token, RobotsEntry, RobotsStatus};
use crate::crawl::shutdown::{low_disk, watch_disks, watch_signals, Shutdown};
use crate::crawl::sink::CorpusSink;
use crate::crawl::url::{host_key, normalize, parse_seed_line};
use crate::crawl::workers::{spawn_workers, PageTools, WorkerContext};
use crate::crawl::{owner, CrawlError, CrawlOptions, CrawlSummary};
use crate::domain::HostModel;
use crate::store::{open_state_dir, CrawlState, FrontierEntry, HostPhase, HostRecord, UrlKind};
use crate::write::open_writer;
use crate::write::warc::{WarcInfo, WarcWriter};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::SystemTime;
use url::Url;

/// Messages from the workers to the committer that may wait at most (back-pressure on the
/// workers).
const RESULTS_QUEUE: usize = 64;

/// How often the disk guard reads the free space of the state and corpus filesystems.
const DISK_CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);

/// Run a crawl to the end of its frontier (or until Ctrl-C), resuming from the state.
///
/// # Errors
/// [`CrawlError`] for what stops a whole crawl: the store, the corpus file, the seeds file.
/// Bad pages and bad hosts are counted and logged, never returned.
pub async fn run(opts: CrawlOptions) -> Result<CrawlSummary, CrawlError> {
    // 1. State and corpus writer, when the disks have room.
    let cfg = opts.config.clone();
    let watched = vec![cfg.crawl.state_dir.clone(), cfg.crawl.out_dir.clone()];
    if let Some(low) = low_disk(&watched, cfg.crawl.min_free_space) {
        return Err(CrawlError::DiskLow(low));
    }
    let state = open_state_dir(&cfg.crawl.state_dir)?;
    let format = cfg.crawl.format;
    if let Some(stored) = state.corpus_format()? {
        if stored != format.name() {
            return Err(CrawlError::FormatMismatch { stored, requested: format.name().to_string() });
        }
    }
    let cluster = match cfg.cluster.enabled() {
        true => Some(join_cluster(&cfg, &state, opts.refresh).await?),
        false => None,
    };
    let corpus_file = cfg.crawl.out_dir.join(format.file_name());
    let _claim = owner::claim(&state, &cfg.crawl.state_dir, &cfg.crawl.out_dir, &corpus_file)?;
    owner::record_corpus_dir(&state, &cfg.crawl.out_dir)?;
    let writer = open_writer(format, &cfg.crawl.out_dir, state.corpus_offset()?)?;
    let corpus = writer.path().to_path_buf();
    let warc = match cfg.warc.enabled {
        true => Some(WarcWriter::open(
            &cfg.crawl.out_dir.join(WARC_DIR),
            &cfg.warc,
            warc_info(&cfg),
            state.warc_position()?.as_ref(),
        )?),
        false => None,
    };

    // 2. Seeds, and with --refresh the pages fetched before.
    let counters_before = state.counters()?;
    if counters_before.fetched > 0 && !opts.quiet {
        eprintln!(
            "resumed: {} pages fetched and {} records written before, {} URLs queued",
            counters_before.fetched,
            counters_before.records,
            state.frontier_total()?
        );
    }
    match &cluster {
        Some(link) => queue_seeds_cluster(link, &opts.seeds, opts.quiet).await?,
        None => add_seeds(&state, &opts.seeds)?,
    }
    if opts.refresh {
        queue_refresh(&state)?;
    }

    // 3. Committer and workers.
    let (work_tx, work_rx) = crossbeam_channel::bounded(cfg.crawl.queue_pages);
    let (results_tx, results_rx) = crossbeam_channel::bounded(RESULTS_QUEUE);
    let (direct_tx, direct_rx) = crossbeam_channel::unbounded();
    let (events_tx, events_rx) = tokio::sync::mpsc::unbounded_channel();
    let stop = Arc::new(AtomicBool::new(false));
    let (released_tx, released_rx) = tokio::sync::mpsc::unbounded_channel();
    if let Some(link) = &cluster {
        let claimed = crate::cluster::task::claim_held(link).await.map_err(|e| e.at(&link.cfg.redis))?;
        if !claimed.is_empty() {
            let _ = direct_tx.send(crate::crawl::messages::CommitMsg::Remote(claimed));
        }
    }
    let committer_cluster = cluster.as_ref().map(|link| CommitterCluster { link: link.clone(), released: released_tx });
    let cluster_events = events_tx.clone();
    let log_path = cfg.crawl.state_dir.join("onion.log");
    let sink = CorpusSink::open(&cfg.dedup, format, writer, warc, &log_path, state.hash_log_len()?)?;
    let committer = Committer::open(
        cfg.clone(),
        state.clone(),
        sink,
        work_tx.clone(),
        events_tx.clone(),
        stop.clone(),
        committer_cluster,
    )?;
    let committer = std::thread::Builder::new()
        .name("webcorpus-committer".into())
        .spawn(move || {
            let result = committer.run(results_rx, direct_rx);
            let _ = events_tx.send(Event::Finished(result.as_ref().map(|_| ()).map_err(|e| e.to_string())));
            result
        })
        .map_err(|e| CrawlError::Committer(format!("cannot start the committer thread: {e}")))?;
    let ctx = WorkerContext {
        tools: PageTools {
            kind: cfg.crawl.extractor,
            settings: Arc::new(cfg.extract_settings()),
            classifier: cfg.classify.classifier()?,
        },
        state: state.clone(),
        learn: cfg.learn.clone(),
        justext: cfg.justext.clone(),
        language: cfg.crawl.language().map(str::to_string),
        max_links_per_page: cfg.crawl.max_links_per_page,
        stop: stop.clone(),
    };
    let workers = spawn_workers(cfg.crawl.worker_threads(), Arc::new(ctx), work_rx, results_tx);

    // 4. Dispatch.
    let dispatch_cfg = DispatchConfig {
        politeness: cfg.politeness.clone(),
        max_parallel_hosts: cfg.crawl.max_parallel_hosts,
        ua_token: user_agent_token(&cfg.net.user_agent),
        stop_grace: cfg.crawl.stop_grace,
    };
    let shutdown = Shutdown::new();
    let signals = watch_signals(shutdown.clone()).map_err(CrawlError::Signals)?;
    let disks = watch_disks(shutdown.clone(), watched, cfg.crawl.min_free_space, DISK_CHECK_INTERVAL);
    let fetcher = Arc::new(Fetcher::new(&cfg.net)?.recording(cfg.warc.enabled));
    let mut dispatcher = Dispatcher::new(fetcher, state.clone(), dispatch_cfg, work_tx, direct_tx.clone(), events_rx);
    let (quit_tx, quit_rx) = tokio::sync::watch::channel(false);
    let cluster_tasks = match &cluster {
        Some(link) => {
            let done = Arc::new(AtomicBool::new(false));
            let status = Arc::new(std::sync::Mutex::new(WorkerStatus {
                started_ms: now_ms(),
                state: cfg.crawl.state_dir.display().to_string(),
                ..WorkerStatus::default()
            }));
            let channels = ClusterChannels {
                commit: direct_tx.clone(),
                events: cluster_events,
                released: released_rx,
                status: status.clone(),
                done: done.clone(),
            };
            let grace = link.cfg.heartbeat * 2 + cfg.crawl.commit_interval * 2;
            dispatcher = dispatcher.with_cluster(DispatchCluster::new(link.ownership.clone(), done, status, grace));
            let redis = cfg.cluster.redis.clone();
            let membership = run_membership(link.clone(), channels, quit_rx.clone());
            let membership = tokio::spawn(watch_cluster(membership, shutdown.clone(), redis.clone()));
            let reader = run_reader(link.clone(), direct_tx, quit_rx);
            let reader = tokio::spawn(watch_cluster(reader, shutdown.clone(), redis));
            vec![membership, reader]
        }
        None => {
            drop((cluster_events, released_rx, direct_tx, quit_rx));
            Vec::new()
        }
    };
    load_hosts(&state, &mut dispatcher, cfg.politeness.robots_max_age)?;
    let status_page = match cfg.crawl.status.as_str() {
        "" => None,
        text => Some(start_status_page(text, &cfg.crawl.state_dir, opts.quiet).await?),
    };
    let progress = Progress::new(opts.quiet);
    let dispatched = dispatcher.run(stop, &shutdown, &progress).await;
    if let Some(task) = status_page {
        task.abort();
    }
    progress.finish();
    drop(dispatcher);
    disks.abort();

    // 5. Join, then the summary.
    let committed = committer.join().map_err(|_| CrawlError::Committer("the committer panicked".into()))?;
    for w in workers {
        let _ = w.join();
    }
    // The membership loop marks the worker stopped and gives its leases back; bounded, as
    // Redis may be the reason the crawl stopped.
    let _ = quit_tx.send(true);
    for task in cluster_tasks {
        let abort = task.abort_handle();
        if tokio::time::timeout(cfg.cluster.timeout, task).await.is_err() {
            abort.abort();
            eprintln!(
                "warning: the cluster's Redis did not answer at the end; the leases lapse after [cluster] timeout"
            );
        }
    }
    committed?;
    let interrupted = dispatched?;
    // From here on a signal ends the process at once (the state is committed).
    drop(signals);
    let hosts = state.hosts()?;
    Ok(CrawlSummary {
        counters: state.counters()?,
        counters_before,
        hosts: hosts.len(),
        learned: hosts.iter().filter(|h| h.learning.phase == HostPhase::Learned).count(),
        queued: state.frontier_total()?,
        corpus,
        stopped: if interrupted { shutdown.reason() } else { None },
        given_up: hosts.iter().filter(|h| h.dead).count(),
    })
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The seeds of the file `path` or, for `-`, standard input, normalised, with their host
/// keys. A UTF-8 byte order mark and CRLF line ends are accepted; bad lines (not UTF-8, not a
/// URL) are reported with their line number and skipped.
fn read_seeds(path: &Path) -> Result<Vec<(Url, String)>, CrawlError> {
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    }
    .map_err(|e| CrawlError::Seeds { path: path.to_path_buf(), reason: e.to_string() })?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let mut seeds = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let Ok(line) = std::str::from_utf8(line) else {
            eprintln!("warning: {}:{}: seed skipped: the line is not UTF-8", path.display(), i + 1);
            continue;
        };
        let url = match parse_seed_line(line) {
            Ok(Some(u)) => u,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("warning: {}:{}: seed skipped: {e}", path.display(), i + 1);
                continue;
            }
        };
        if let (Some(url), Some(host)) = (normalize(&url), host_key(&url)) {
            seeds.push((url, host));
        }
    }
    if seeds.is_empty() {
        return Err(CrawlError::Seeds { path: path.to_path_buf(), reason: "no valid seed URL".into() });
    }
    Ok(seeds)
}

/// Step 2: queue every seed not seen before ([`read_seeds`]).
fn add_seeds(state: &CrawlState, path: &Path) -> Result<(), CrawlError> {
    let seeds = match read_seeds(path) {
        Ok(seeds) => seeds,
        // A resumed crawl may run with an empty seeds file.
        Err(CrawlError::Seeds { .. }) if !state.hosts()?.is_empty() => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut batch = state.batch();
    let mut records: std::collections::BTreeMap<String, HostRecord> = Default::default();
    let mut queued = std::collections::HashSet::new();
    for (url, host) in seeds {
        let mut rec = match records.remove(&host) {
            Some(rec) => rec,
            None => match state.host(&host)? {
                Some(rec) => rec,
                None => HostRecord { host: host.clone(), seed: url.to_string(), ..HostRecord::default() },
            },
        };
        if !state.is_seen(url.as_str())? && queued.insert(CrawlState::url_identity(url.as_str())) {
            batch.push_frontier(&host, FrontierEntry { url: url.to_string(), depth: 0, ..FrontierEntry::default() });
            rec.enqueued += 1;
        }
        records.insert(host, rec);
    }
    for rec in records.values() {
        batch.put_host(rec);
    }
    state.commit(batch)?;
    Ok(())
}

/// Step 2b (`--refresh`): put every page, sitemap and feed fetched with a 2xx answer back on
/// its host's frontier with its validators, so that it is fetched again conditionally (the
/// sitemaps and feeds, and the changed pages, then bring the URLs that are new). When URLs are
/// still queued the earlier crawl (or refresh) is resumed instead, and nothing is re-queued:
/// a refresh interrupted and run again does not fetch a page twice.
fn queue_refresh(state: &CrawlState) -> Result<(), CrawlError> {
    let queued = state.frontier_total()?;
    if queued > 0 {
        eprintln!("--refresh: {queued} URLs are still queued; resuming that crawl first (run --refresh again once it finishes)");
        return Ok(());
    }
    let mut after: Option<Vec<u8>> = None;
    let mut total = 0u64;
    loop {
        let (pages, last) = state.fetched_pages(after.as_deref(), REFRESH_WINDOW)?;
        if pages.is_empty() {
            break;
        }
        let mut batch = state.batch();
        let mut records: std::collections::HashMap<String, HostRecord> = std::collections::HashMap::new();
        for page in pages {
            let rec = match records.remove(&page.host) {
                Some(rec) => rec,
                None => match state.host(&page.host)? {
                    Some(rec) => rec,
                    None => continue,
                },
            };
            let validators = (!page.validators.is_empty()).then_some(page.validators);
            let entry =
                FrontierEntry { url: page.url, depth: page.depth, kind: page.kind, validators, seq: 0, stream: None };
            batch.push_frontier(&page.host, entry);
            let mut rec = rec;
            rec.enqueued += 1;
            records.insert(page.host, rec);
            total += 1;
        }
        for rec in records.values() {
            batch.put_host(rec);
        }
        state.commit(batch)?;
        after = last;
    }
    eprintln!("--refresh: {total} pages queued to be fetched again (conditionally where the server sent validators)");
    Ok(())
}

/// Pages re-queued per store batch by `--refresh`.
const REFRESH_WINDOW: usize = 10_000;

/// The WARC files' directory inside `out_dir`.
pub const WARC_DIR: &str = "warc";

/// What each WARC file's `warcinfo` record says of the crawl.
fn warc_info(cfg: &Config) -> WarcInfo {
    let c = &cfg.crawl;
    let settings = [
        ("webcorpus-scope", format!("{:?}", c.scope).to_lowercase()),
        ("webcorpus-max-depth", c.max_depth.to_string()),
        ("webcorpus-max-pages-per-host", c.max_pages_per_host.to_string()),
        ("webcorpus-min-delay", humantime::format_duration(cfg.politeness.min_delay).to_string()),
        ("webcorpus-max-body-bytes", cfg.net.max_body_bytes.to_string()),
        ("webcorpus-extractor", c.extractor.name().to_string()),
    ];
    WarcInfo {
        user_agent: cfg.net.user_agent.clone(),
        settings: settings.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

/// Step 4a: every host of the state goes to dispatch with its stored robots.txt (when fresh)
/// and its model.
fn load_hosts(
    state: &CrawlState,
    dispatcher: &mut Dispatcher<Fetcher>,
    max_age: std::time::Duration,
) -> Result<(), CrawlError> {
    for rec in state.hosts()? {
        let seed = Url::parse(&rec.seed).unwrap_or_else(|_| Url::parse("http://invalid/").expect("valid"));
        let robots = state
            .robots::<RobotsEntry>(&rec.host)?
            .filter(|e| e.status != RobotsStatus::DisallowAll)
            .filter(|e| e.is_fresh(now_ms(), max_age));
        let phase = rec.learning.phase;
        let stored = match phase {
            HostPhase::Learned => state.model(&rec.host)?.map(Arc::new),
            HostPhase::Sampling | HostPhase::Fallback => None,
        };
        let model = HostModel::for_phase(phase, stored);
        // A host given up in an earlier run is tried again: the server may be back. A host
        // pruned for low yield is not.
        dispatcher.add_host(&rec.host, seed, robots, model, rec.pruned);
    }
    Ok(())
}

/// Step 1b (cluster crawl): connect, take this worker's partitions, forget the queued URLs
/// of the hosts of partitions not held without a break since the last run (their stream
/// entries are claimed again by their owners) and give back the leases of an earlier run that
/// are no longer this worker's.
async fn join_cluster(cfg: &Config, state: &CrawlState, refresh: bool) -> Result<ClusterLink, CrawlError> {
    if refresh {
        return Err(ClusterError::Unsupported("--refresh").into());
    }
    let link = ClusterLink::connect(&cfg.cluster).await?;
    let at = |e: ClusterError| e.at(&cfg.cluster.redis);
    let status = WorkerStatus {
        worker: cfg.cluster.worker_id.clone(),
        pid: std::process::id(),
        started_ms: now_ms(),
        state: cfg.crawl.state_dir.display().to_string(),
        ..WorkerStatus::default()
    };
    // Workers started together see each other before they take partitions.
    let settle = (cfg.cluster.heartbeat * 2).max(std::time::Duration::from_secs(1)).min(cfg.cluster.timeout);
    let joined = crate::cluster::task::join(&link, &status, settle).await.map_err(at)?;
    let (hosts, urls) = forget_unowned(state, &link, &joined.kept)?;
    if hosts > 0 {
        eprintln!(
            "cluster: the partitions of {hosts} hosts were not held here since the last run: \
             their {urls} queued or waiting URLs are taken from the streams again"
        );
    }
    crate::cluster::task::give_back(&link, &joined.not_mine).await.map_err(at)?;
    tracing::info!(partitions = link.ownership.held().len(), "joined the cluster crawl");
    Ok(link)
}

/// Step 2 (cluster crawl): the seeds go to their partitions' streams, once per crawl.
async fn queue_seeds_cluster(link: &ClusterLink, path: &Path, quiet: bool) -> Result<(), CrawlError> {
    let seeds: Vec<(u128, RemoteUrl)> = read_seeds(path)?
        .into_iter()
        .map(|(url, host)| {
            let remote = RemoteUrl {
                host,
                url: url.to_string(),
                depth: 0,
                kind: UrlKind::Page,
                seed: url.to_string(),
                cap: None,
            };
            (CrawlState::url_identity(url.as_str()), remote)
        })
        .collect();
    let mut conn = link.conn();
    let loaded =
        crate::cluster::links::load_seeds(&mut conn, &link.keys, link.cfg.partitions, &link.cfg.worker_id, &seeds)
            .await
            .map_err(|e| e.at(&link.cfg.redis))?;
    if let (Some(added), false) = (loaded, quiet) {
        eprintln!("cluster: {added} seeds queued for the crawl `{}`", link.cfg.name);
    }
    Ok(())
}

/// A cluster loop whose failure stops the worker (its state stays committed).
async fn watch_cluster(
    task: impl std::future::Future<Output = Result<(), ClusterError>>,
    shutdown: Arc<crate::crawl::shutdown::Shutdown>,
    redis: String,
) {
    if let Err(e) = task.await {
        let e = e.at(&redis);
        eprintln!("error: {e}");
        shutdown.request(crate::crawl::shutdown::StopReason::ClusterLost(e.to_string()));
    }
}

/// Step 4b (`--status`): serve the status page while the crawl runs.
async fn start_status_page(
    text: &str,
    state_dir: &Path,
    quiet: bool,
) -> Result<tokio::task::JoinHandle<()>, CrawlError> {
    let addr = crate::crawl::status_page::parse_addr(text)
        .map_err(|e| CrawlError::StatusPage { addr: text.to_string(), source: std::io::Error::other(e) })?;
    let (bound, task) = crate::crawl::status_page::serve(addr, state_dir.to_path_buf())
        .await
        .map_err(|source| CrawlError::StatusPage { addr: text.to_string(), source })?;
    if !bound.ip().is_loopback() {
        eprintln!("warning: the status page is served on {bound}, beyond this machine");
    }
    if !quiet {
        eprintln!("status page: http://{bound}/ (JSON: http://{bound}/status.json)");
    }
    Ok(task)
}
