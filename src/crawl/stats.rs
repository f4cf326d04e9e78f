//! `webcorpus stats`: a plain-text report of what a crawl state holds — hosts, pages per
//! host, learning phase, queue sizes, corpus records, duplicates dropped, the share of pages
//! the page classifier called articles — and, for one host, its learned model.

use crate::crawl::snapshot::StatusSnapshot;
use crate::store::{Counters, CrawlState, HostRecord, StoreError};
use std::fmt::Write;

/// The report for the whole state, or for `host` with its model.
///
/// # Errors
/// [`StoreError`] when the state cannot be read.
pub fn report(state: &CrawlState, host: Option<&str>) -> Result<String, StoreError> {
    report_text(state, host)
}

/// The state as one JSON object for monitoring: `counters` (the crawl-wide counters, as
/// committed), `queued` (URLs on the frontier), `warc` (the committed end of the WARC output,
/// or null) and `hosts` (every host record: phase, pages fetched, sampled, written, queued,
/// discards by reason, the model's use); with `host`, only that host (an empty list when it
/// is not in the state).
///
/// # Errors
/// The store's.
pub fn report_json(state: &CrawlState, host: Option<&str>) -> Result<serde_json::Value, StoreError> {
    let hosts = match host {
        Some(h) => state.host(h)?.into_iter().collect(),
        None => state.hosts()?,
    };
    Ok(serde_json::json!({
        "counters": state.counters()?,
        "queued": state.frontier_total()?,
        "warc": state.warc_position()?,
        "hosts": hosts,
    }))
}

fn report_text(state: &CrawlState, host: Option<&str>) -> Result<String, StoreError> {
    let mut out = String::new();
    if let Some(host) = host {
        let Some(rec) = state.host(host)? else {
            return Ok(format!("host {host}: not in this state\n"));
        };
        let _ = writeln!(
            out,
            "host {host}: phase {}, seed {}",
            format!("{:?}", rec.learning.phase).to_lowercase(),
            rec.seed
        );
        let _ = writeln!(
            out,
            "  fetched {} · sampled {} · written {} · queued {} · articles {}{}",
            rec.fetched,
            rec.learning.sampled,
            rec.written,
            state.frontier_len(host)?,
            article_share(rec.articles, rec.others),
            if rec.pruned {
                " · pruned for low yield".to_string()
            } else if rec.dead {
                match &rec.given_up {
                    Some(why) => format!(" · given up: {why}"),
                    None => " · given up".to_string(),
                }
            } else {
                String::new()
            }
        );
        let _ = writeln!(
            out,
            "  words {} · downloaded {} bytes · text {} bytes · yield {} · mean response {} · delay {:.1} s",
            rec.words,
            rec.body_bytes,
            rec.text_bytes,
            rec.yield_rate().map_or("-".into(), |y| format!("{y:.3}")),
            rec.response_ms.checked_div(rec.fetched).map_or("-".into(), |ms| format!("{ms} ms")),
            rec.delay_ms as f64 / 1000.0
        );
        let _ = writeln!(out, "  pages without a record: {}", discard_list(&rec.discards));
        match state.model(host)? {
            Some(model) => {
                let used = rec.model_matched + rec.model_unmatched + rec.model_rejected;
                let _ = writeln!(
                    out,
                    "  model use: {} pages · template matched {} · no template on the page {} · rejected by the \
                     per-page guard {} · match rate {}",
                    used,
                    rec.model_matched,
                    rec.model_unmatched,
                    rec.model_rejected,
                    match used {
                        0 => "-".to_string(),
                        n => format!("{:.0}%", 100.0 * rec.model_matched as f64 / n as f64),
                    }
                );
                let _ = writeln!(
                    out,
                    "  model age: {} pages fetched since it was learned · re-learned {} times · first window \
                     missed {}",
                    rec.fetched.saturating_sub(rec.model_since_fetched),
                    rec.learning.relearned,
                    rec.learning.baseline_missed_share.map_or("-".to_string(), |s| format!("{:.0}%", 100.0 * s)),
                );
                let _ = writeln!(
                    out,
                    "  pages whose learned extraction keeps less than half of the unlearned one's words: {}{}",
                    rec.model_halved,
                    halved_rejected(rec.model_halved, rec.model_halved_rejected)
                );
                for (url, share) in &rec.model_halved_pages {
                    let _ = writeln!(out, "    {:>3.0}%  {}", 100.0 * share, crate::crawl::url::for_log(url));
                }
                out.push_str(&model.summary());
            }
            None => out.push_str("  no model learned (yet)\n"),
        }
        return Ok(out);
    }
    let c = state.counters()?;
    let hosts = state.hosts()?;
    let mut queued = Vec::with_capacity(hosts.len());
    let mut models = Vec::with_capacity(hosts.len());
    for h in &hosts {
        queued.push(Some(state.frontier_len(&h.host)?));
        models.push(match state.model(&h.host)? {
            Some(m) if m.goldminer.is_some() => format!("goldminer+{} static keys", m.stadynot.keys.len()),
            Some(m) => format!("{} static keys, no goldminer pattern", m.stadynot.keys.len()),
            None => "-".into(),
        });
    }
    out.push_str(&overview(&c, &hosts, &queued, &models, Some(state.frontier_total()?)));
    let _ = writeln!(out, "dedup n-grams stored: {}", state.hash_log_len()? / 8);
    let _ = writeln!(out, "corpus bytes committed: {}", state.corpus_offset()?);
    Ok(out)
}

/// The report of a running crawl from its [`StatusSnapshot`] (the store is locked by it).
pub fn report_snapshot(snap: &StatusSnapshot) -> String {
    let mut out = String::new();
    let state = if snap.running { "running" } else { "finished" };
    let _ = writeln!(
        out,
        "crawl {state} (pid {}): status snapshot written at {}; this run started {}: {} pages fetched, {} records \
         written",
        snap.pid, snap.written_at, snap.run_started_at, snap.run_fetched, snap.run_records
    );
    let queued: Vec<Option<usize>> = snap.hosts.iter().map(|h| Some(h.queued_from_counts() as usize)).collect();
    let models: Vec<String> = snap.hosts.iter().map(|h| format!("{:?}", h.learning.phase).to_lowercase()).collect();
    let total = snap.queued.unwrap_or_else(|| queued.iter().flatten().sum());
    out.push_str(&overview(&snap.counters, &snap.hosts, &queued, &models, Some(total)));
    out
}

/// The JSON of [`report_json`] from a running crawl's snapshot: the same keys (`warc` null),
/// plus `snapshot` with its time, pid and this run's figures.
pub fn snapshot_json(snap: &StatusSnapshot, host: Option<&str>) -> serde_json::Value {
    let hosts: Vec<&HostRecord> = snap.hosts.iter().filter(|h| host.is_none_or(|x| h.host == x)).collect();
    serde_json::json!({
        "counters": snap.counters,
        "queued": snap.queued,
        "warc": null,
        "hosts": hosts,
        "snapshot": {
            "written_at": snap.written_at,
            "pid": snap.pid,
            "running": snap.running,
            "run_started_at": snap.run_started_at,
            "run_fetched": snap.run_fetched,
            "run_records": snap.run_records,
        },
    })
}

/// The host table and the crawl-wide lines. `queued[i]` and `models[i]` belong to `hosts[i]`.
fn overview(
    c: &Counters,
    hosts: &[HostRecord],
    queued: &[Option<usize>],
    models: &[String],
    total: Option<usize>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "hosts: {}", hosts.len());
    let _ = writeln!(
        out,
        "{:<32} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>6} {:>6} {:>7} {:>7} {:>8}  model",
        "host",
        "phase",
        "fetched",
        "written",
        "queued",
        "words",
        "MB down",
        "yield",
        "404s",
        "robots",
        "resp ms",
        "delay s",
        "articles"
    );
    let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for ((h, q), model) in hosts.iter().zip(queued).zip(models) {
        let _ = writeln!(
            out,
            "{:<32} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9.2} {:>7} {:>6} {:>6} {:>7} {:>7.1} {:>8}  {}{}",
            h.host,
            format!("{:?}", h.learning.phase).to_lowercase(),
            h.fetched,
            h.written,
            dash(q.map(|q| q.to_string())),
            h.words,
            h.body_bytes as f64 / 1e6,
            dash(h.yield_rate().map(|y| format!("{y:.3}"))),
            h.discards.get("http_404").copied().unwrap_or(0),
            h.discards.get("robots_disallowed").copied().unwrap_or(0),
            dash(h.response_ms.checked_div(h.fetched).map(|ms| ms.to_string())),
            h.delay_ms as f64 / 1000.0,
            article_share(h.articles, h.others),
            model,
            if h.pruned {
                " (pruned: low yield)".to_string()
            } else if h.dead {
                match &h.given_up {
                    Some(why) => format!(" (given up: {})", why.why.as_str()),
                    None => " (given up)".to_string(),
                }
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(out, "queued URLs: {}", dash(total.map(|t| t.to_string())));
    let _ = writeln!(
        out,
        "pages fetched: {} · failed: {} · robots-disallowed: {}",
        c.fetched, c.failed, c.robots_disallowed
    );
    let words: u64 = hosts.iter().map(|h| h.words).sum();
    let down: u64 = hosts.iter().map(|h| h.body_bytes).sum();
    let text: u64 = hosts.iter().map(|h| h.text_bytes).sum();
    let _ = writeln!(
        out,
        "corpus records: {} · paragraphs: {} · words: {} · yield: {} text bytes per downloaded byte",
        c.records,
        c.paragraphs,
        words,
        if down > 0 { format!("{:.3}", text as f64 / down as f64) } else { "-".into() }
    );
    let _ = writeln!(
        out,
        "pages classified (with main text): {} articles, {} other ({} articles)",
        c.articles,
        c.others,
        article_share(c.articles, c.others)
    );
    let _ = writeln!(out, "duplicate paragraphs dropped (Onion): {}", c.duplicate_paragraphs);
    let _ = writeln!(
        out,
        "sitemaps read: {} · feeds read: {} · page URLs they listed: {}",
        c.sitemaps, c.feeds, c.source_urls
    );
    let given_up: Vec<&str> = hosts.iter().filter(|h| h.dead).map(|h| h.host.as_str()).collect();
    if !given_up.is_empty() {
        let _ = writeln!(
            out,
            "hosts given up for this run ({}; a later run tries them again): {}",
            given_up.len(),
            given_up.join(", ")
        );
    }
    if c.hosts_pruned > 0 {
        let _ = writeln!(out, "hosts pruned for low yield: {}", c.hosts_pruned);
    }
    let _ = writeln!(out, "pages extracted without their host's model (model_rejected): {}", c.model_rejected);
    let _ = writeln!(
        out,
        "pages whose learned extraction keeps less than half of the unlearned one's words: {}{}{}",
        c.model_halved,
        halved_rejected(c.model_halved, c.model_halved_rejected),
        hosts
            .iter()
            .filter(|h| h.model_halved > 0)
            .map(|h| format!(" · {} {}", h.host, h.model_halved))
            .collect::<String>()
    );
    for h in hosts.iter().filter(|h| !h.model_halved_pages.is_empty()) {
        for (url, share) in h.model_halved_pages.iter().take(3) {
            let _ = writeln!(out, "  {:>3.0}%  {}", 100.0 * share, crate::crawl::url::for_log(url));
        }
    }
    let _ = writeln!(out, "pages without a record, by reason: {}", discard_list(&c.discards));
    out
}

/// ` (the guard extracted 2 of them without the model)` after a count of halved pages; empty
/// when there are none.
fn halved_rejected(halved: u64, rejected: u64) -> String {
    match halved {
        0 => String::new(),
        _ => format!(" (the guard extracted {rejected} of them without the model)"),
    }
}

/// `http_404 882 · no_main_text 12`, largest first; `none` when empty.
pub fn discard_list(discards: &std::collections::BTreeMap<String, u64>) -> String {
    if discards.is_empty() {
        return "none".into();
    }
    let mut list: Vec<(&String, &u64)> = discards.iter().collect();
    list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    list.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(" · ")
}

/// `87%` (articles among the classified pages), `-` before any.
fn article_share(articles: u64, others: u64) -> String {
    match articles + others {
        0 => "-".into(),
        n => format!("{:.0}%", 100.0 * articles as f64 / n as f64),
    }
}
