//! [`run`]: the crawl's wiring, written once for every [`CrawlMode`] (one machine, or a
//! worker of a cluster crawl, [`crate::cluster::worker`]). Steps, in order:
//!
//! 1. check the free space, open the state, let the mode join ([`CrawlMode::join`]), claim the
//!    corpus directory for the state ([`owner::claim`]) and open the corpus writer and the
//!    WARC writer, cutting the corpus and the WARC output back to their committed ends (crash
//!    recovery);
//! 2. queue the seeds through the mode ([`CrawlMode::queue_seeds`]);
//! 3. start the mode's tasks ([`CrawlMode::start`]), the committer thread (which reloads
//!    Onion's seen set and restarts the learn and drain jobs a killed run left) and the worker
//!    pool;
//! 4. run dispatch over every host of the state until the crawl is over or Ctrl-C;
//! 5. join the stages and the mode's tasks, and read the summary from the state.

use crate::config::Config;
use crate::crawl::committer::Committer;
use crate::crawl::dispatch::{DispatchConfig, Dispatcher};
use crate::crawl::fetch::Fetcher;
use crate::crawl::frontier::{CrawlMode, LocalMode, ModeChannels, ModeParts};
use crate::crawl::messages::Event;
use crate::crawl::progress::Progress;
use crate::crawl::robots::{user_agent_token, RobotsEntry, RobotsStatus};
use crate::crawl::shutdown::{self, low_disk, watch_disks, watch_signals, Shutdown};
use crate::crawl::sink::CorpusSink;
use crate::crawl::workers::{spawn_workers, PageTools, WorkerContext};
use crate::crawl::{owner, CrawlError, CrawlOptions, CrawlSummary};
use crate::domain::HostModel;
use crate::store::{open_state_dir, CrawlState, FrontierEntry, HostPhase, HostRecord};
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

/// Run a crawl on this machine to the end of its frontier (or until Ctrl-C), resuming from
/// the state ([`run_with`] and [`LocalMode`]).
///
/// # Errors
/// [`CrawlError`] for what stops a whole crawl: the store, the corpus file, the seeds file.
/// Bad pages and bad hosts are counted and logged, never returned.
pub async fn run(opts: CrawlOptions) -> Result<CrawlSummary, CrawlError> {
    run_with(opts, LocalMode).await
}

/// Run a crawl in `mode` until it is over (or until Ctrl-C), resuming from the state.
///
/// # Errors
/// As [`run`], and the mode's.
pub async fn run_with<M: CrawlMode>(opts: CrawlOptions, mut mode: M) -> Result<CrawlSummary, CrawlError> {
    // 1. State and corpus writer, when the disks have room.
    let cfg = opts.config.clone();
    let watched = vec![cfg.crawl.state_dir.clone(), cfg.crawl.out_dir.clone()];
    if !cfg.crawl.state_dir.exists() {
        crate::crawl::seeds::check_seeds(&opts.seeds)?;
    }
    for path in &watched {
        shutdown::check_writable(path).map_err(|source| CrawlError::NotWritable { path: path.clone(), source })?;
    }
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
    mode.join(&state, opts.refresh).await?;
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
        crate::warn_line!(
            "resumed: {} pages fetched and {} records written before, {} URLs queued",
            counters_before.fetched,
            counters_before.records,
            state.frontier_total()?
        );
    }
    mode.queue_seeds(&state, &opts.seeds, opts.quiet).await?;
    if opts.refresh {
        queue_refresh(&state)?;
    }

    // 3. The mode's tasks, the committer and the workers.
    let (work_tx, work_rx) = crossbeam_channel::bounded(cfg.crawl.queue_pages);
    // Learn and drain jobs have their own queue, which the workers read first: a host's
    // learning never waits behind the page jobs of hosts that have learned.
    let (jobs_tx, jobs_rx) = crossbeam_channel::unbounded();
    // Spare work (models learned ahead of a host's end) is taken only when both are empty.
    let (spare_tx, spare_rx) = crossbeam_channel::unbounded();
    let (results_tx, results_rx) = crossbeam_channel::bounded(RESULTS_QUEUE);
    let (direct_tx, direct_rx) = crossbeam_channel::unbounded();
    let (events_tx, events_rx) = tokio::sync::mpsc::unbounded_channel();
    let stop = Arc::new(AtomicBool::new(false));
    let shutdown = Shutdown::new();
    let (quit_tx, quit_rx) = tokio::sync::watch::channel(false);
    let channels = ModeChannels {
        commit: direct_tx.clone(),
        events: events_tx.clone(),
        shutdown: shutdown.clone(),
        quit: quit_rx,
    };
    let ModeParts { frontier, membership, tasks, end_within, late } = mode.start(channels).await?;
    let log_path = cfg.crawl.state_dir.join("onion.log");
    let sink = CorpusSink::open(&cfg.dedup, format, writer, warc, &log_path, state.hash_log_len()?)?;
    let committer =
        Committer::open(cfg.clone(), state.clone(), sink, jobs_tx, events_tx.clone(), stop.clone(), frontier)?
            .with_spare_queue(spare_tx);
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
        premodels: Default::default(),
    };
    let workers = spawn_workers(cfg.crawl.worker_threads(), Arc::new(ctx), work_rx, jobs_rx, spare_rx, results_tx);

    // 4. Dispatch.
    let dispatch_cfg = DispatchConfig {
        politeness: cfg.politeness.clone(),
        max_parallel_hosts: cfg.crawl.max_parallel_hosts,
        ua_token: user_agent_token(&cfg.net.user_agent),
        stop_grace: cfg.crawl.stop_grace,
        request_timeout: cfg.net.request_timeout,
    };
    let signals = watch_signals(shutdown.clone()).map_err(CrawlError::Signals)?;
    let disks = watch_disks(shutdown.clone(), watched, cfg.crawl.min_free_space, DISK_CHECK_INTERVAL);
    let fetcher = Arc::new(Fetcher::new(&cfg.net)?.recording(cfg.warc.enabled));
    let mut dispatcher = Dispatcher::new(fetcher, state.clone(), dispatch_cfg, work_tx, direct_tx, events_rx)
        .with_membership(membership);
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
    // The mode's tasks end (a cluster worker marks itself stopped and gives its leases
    // back); bounded, as the backend may be the reason the crawl stopped.
    let _ = quit_tx.send(true);
    for task in tasks {
        let abort = task.abort_handle();
        if tokio::time::timeout(end_within, task).await.is_err() {
            abort.abort();
            crate::warn_line!("warning: {late}");
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
        given_up_hosts: hosts.iter().filter(|h| h.dead).map(|h| (h.host.clone(), h.given_up.clone())).collect(),
    })
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Step 2b (`--refresh`): put every page, sitemap and feed fetched with a 2xx answer back on
/// its host's frontier with its validators, so that it is fetched again conditionally (the
/// sitemaps and feeds, and the changed pages, then bring the URLs that are new). When URLs are
/// still queued the earlier crawl (or refresh) is resumed instead, and nothing is re-queued:
/// a refresh interrupted and run again does not fetch a page twice.
fn queue_refresh(state: &CrawlState) -> Result<(), CrawlError> {
    let queued = state.frontier_total()?;
    if queued > 0 {
        crate::warn_line!("--refresh: {queued} URLs are still queued; resuming that crawl first (run --refresh again once it finishes)");
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
    crate::warn_line!(
        "--refresh: {total} pages queued to be fetched again (conditionally where the server sent validators)"
    );
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
        crate::warn_line!("warning: the status page is served on {bound}, beyond this machine");
    }
    if !quiet {
        crate::warn_line!("status page: http://{bound}/ (JSON: http://{bound}/status.json)");
    }
    Ok(task)
}
