//! `webcorpus stats --cluster`: every worker of a cluster crawl (live or not, with its last
//! status), its partitions and rate, and the crawl's totals, read from Redis alone.

use super::links::queued_total;
use super::membership::{lease_holders, workers};
use super::{ClusterConfig, ClusterError, ClusterLink, WorkerStatus};
use serde::Serialize;
use std::collections::BTreeMap;

/// One worker's line.
#[derive(Debug, Clone, Serialize)]
pub struct WorkerLine {
    /// Its last status.
    #[serde(flatten)]
    pub status: WorkerStatus,
    /// Its heartbeat key exists.
    pub live: bool,
    /// Partitions whose lease it holds now.
    pub leases: u32,
    /// Pages fetched per second over its current (or last) run.
    pub pages_per_s: f64,
}

/// The crawl's totals over all workers.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    /// Pages fetched.
    pub fetched: u64,
    /// Records written.
    pub records: u64,
    /// Paragraphs written.
    pub paragraphs: u64,
    /// Hosts crawled by the live workers.
    pub hosts: u64,
    /// Pages per second of the live workers together.
    pub pages_per_s: f64,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct ClusterReport {
    /// The crawl's name.
    pub crawl: String,
    /// Workers by id.
    pub workers: Vec<WorkerLine>,
    /// Totals.
    pub totals: Totals,
    /// Stream entries not yet done (queued URLs, in flight, parked).
    pub queued: u64,
    /// Partitions whose lease no live worker holds.
    pub unheld_partitions: u32,
    /// Redis's `used_memory`, bytes.
    pub redis_memory_bytes: u64,
    /// The crawl ended.
    pub done: bool,
}

/// Read the report of the crawl `cfg.name` from `cfg.redis`.
///
/// # Errors
/// [`ClusterError::Redis`].
pub async fn cluster_report(cfg: &ClusterConfig) -> Result<ClusterReport, ClusterError> {
    read_report(cfg).await.map_err(|e| e.at(&cfg.redis))
}

async fn read_report(cfg: &ClusterConfig) -> Result<ClusterReport, ClusterError> {
    let link = ClusterLink::connect(cfg).await?;
    let err = |source| ClusterError::Redis { url: cfg.redis.clone(), source };
    let mut conn = link.conn();
    let all = workers(&mut conn, &link.keys).await?;
    let holders = lease_holders(&mut conn, &link.keys, cfg.partitions).await?;
    let mut leases: BTreeMap<String, u32> = BTreeMap::new();
    for h in holders.iter().flatten() {
        *leases.entry(h.clone()).or_default() += 1;
    }
    let mut totals = Totals::default();
    let mut lines = Vec::new();
    for (status, live) in all {
        let secs = status.at_ms.saturating_sub(status.started_ms) as f64 / 1000.0;
        let pages_per_s = if secs > 0.0 { status.fetched_run as f64 / secs } else { 0.0 };
        totals.fetched += status.fetched;
        totals.records += status.records;
        totals.paragraphs += status.paragraphs;
        if live {
            totals.hosts += status.hosts;
            totals.pages_per_s += pages_per_s;
        }
        let leases = leases.get(&status.worker).copied().unwrap_or(0);
        lines.push(WorkerLine { status, live, leases, pages_per_s });
    }
    let live: Vec<&str> = lines.iter().filter(|l| l.live).map(|l| l.status.worker.as_str()).collect();
    let unheld = holders.iter().filter(|h| h.as_deref().is_none_or(|h| !live.contains(&h))).count() as u32;
    let queued = queued_total(&mut conn, &link.keys, cfg.partitions).await?;
    let info: String = redis::cmd("INFO").arg("memory").query_async(&mut conn).await.map_err(err)?;
    let redis_memory_bytes =
        info.lines().find_map(|l| l.strip_prefix("used_memory:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let done: Option<String> =
        redis::cmd("GET").arg(format!("webcorpus:{{{}}}:done", cfg.name)).query_async(&mut conn).await.map_err(err)?;
    let done = done.is_some() || (!lines.is_empty() && queued == 0 && lines.iter().all(|l| l.status.stopped));
    Ok(ClusterReport {
        crawl: cfg.name.clone(),
        workers: lines,
        totals,
        queued,
        unheld_partitions: unheld,
        redis_memory_bytes,
        done,
    })
}

/// The report as a table.
pub fn render(r: &ClusterReport) -> String {
    let mut out = format!(
        "cluster crawl `{}`: {} workers ({} live), {} URLs queued or in flight, {}\n",
        r.crawl,
        r.workers.len(),
        r.workers.iter().filter(|w| w.live).count(),
        r.queued,
        if r.done { "done" } else { "running" }
    );
    out.push_str(&format!(
        "{:<16} {:>5} {:>10} {:>6} {:>9} {:>9} {:>10} {:>8} {:>7}  state\n",
        "worker", "live", "partitions", "hosts", "fetched", "records", "paragraphs", "pages/s", "parked"
    ));
    for w in &r.workers {
        let s = &w.status;
        out.push_str(&format!(
            "{:<16} {:>5} {:>10} {:>6} {:>9} {:>9} {:>10} {:>8.1} {:>7}  {}\n",
            s.worker,
            if w.live {
                "yes"
            } else if s.stopped {
                "ended"
            } else {
                "gone"
            },
            w.leases,
            s.hosts,
            s.fetched,
            s.records,
            s.paragraphs,
            w.pages_per_s,
            s.parked,
            s.state
        ));
    }
    let t = &r.totals;
    out.push_str(&format!(
        "total: {} pages fetched, {} records, {} paragraphs, {} hosts on live workers, {:.1} pages/s\n",
        t.fetched, t.records, t.paragraphs, t.hosts, t.pages_per_s
    ));
    if r.unheld_partitions > 0 && !r.done {
        out.push_str(&format!(
            "{} partitions have no live owner (they move within [cluster] timeout)\n",
            r.unheld_partitions
        ));
    }
    out.push_str(&format!("redis memory: {:.1} MB\n", r.redis_memory_bytes as f64 / 1e6));
    out
}
