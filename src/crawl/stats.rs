//! `webcorpus stats`: a plain-text report of what a crawl state holds — hosts, pages per
//! host, learning phase, queue sizes, corpus records, duplicates dropped, the share of pages
//! the page classifier called articles — and, for one host, its learned model.

use crate::domain::DomainModel;
use crate::store::{CrawlState, StoreError};
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
        let _ = writeln!(out, "host {host}: phase {:?}, seed {}", rec.phase, rec.seed);
        let _ = writeln!(
            out,
            "  fetched {} · sampled {} · written {} · queued {} · articles {} · discards {:?}{}",
            rec.fetched,
            rec.sampled,
            rec.written,
            state.frontier_len(host)?,
            article_share(rec.articles, rec.others),
            rec.discards,
            if rec.dead { " · given up" } else { "" }
        );
        match state.model::<DomainModel>(host)? {
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
                    rec.relearned,
                    rec.baseline_missed_share.map_or("-".to_string(), |s| format!("{:.0}%", 100.0 * s)),
                );
                let _ = writeln!(
                    out,
                    "  pages whose learned extraction keeps less than half of the unlearned one's words: {}",
                    rec.model_halved
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
    let _ = writeln!(out, "hosts: {}", hosts.len());
    let _ = writeln!(
        out,
        "{:<32} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}  model",
        "host", "phase", "fetched", "sampled", "written", "queued", "articles"
    );
    for h in &hosts {
        let model = match state.model::<DomainModel>(&h.host)? {
            Some(m) if m.goldminer.is_some() => format!("goldminer+{} static keys", m.stadynot.keys.len()),
            Some(m) => format!("{} static keys, no goldminer pattern", m.stadynot.keys.len()),
            None => "-".into(),
        };
        let _ = writeln!(
            out,
            "{:<32} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8}  {}{}",
            h.host,
            format!("{:?}", h.phase).to_lowercase(),
            h.fetched,
            h.sampled,
            h.written,
            state.frontier_len(&h.host)?,
            article_share(h.articles, h.others),
            model,
            if h.dead { " (given up)" } else { "" }
        );
    }
    let _ = writeln!(out, "queued URLs: {}", state.frontier_total()?);
    let _ = writeln!(
        out,
        "pages fetched: {} · failed: {} · robots-disallowed: {}",
        c.fetched, c.failed, c.robots_disallowed
    );
    let _ = writeln!(out, "corpus records: {} · paragraphs: {}", c.records, c.paragraphs);
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
    let _ = writeln!(out, "pages extracted without their host's model (model_rejected): {}", c.model_rejected);
    let _ = writeln!(
        out,
        "pages whose learned extraction keeps less than half of the unlearned one's words: {}{}",
        c.model_halved,
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
    let _ = writeln!(out, "dedup n-grams stored: {}", state.hash_log_len()? / 8);
    let _ = writeln!(out, "corpus bytes committed: {}", state.corpus_offset()?);
    let _ = writeln!(out, "discards by reason: {:?}", c.discards);
    Ok(out)
}

/// `87%` (articles among the classified pages), `-` before any.
fn article_share(articles: u64, others: u64) -> String {
    match articles + others {
        0 => "-".into(),
        n => format!("{:.0}%", 100.0 * articles as f64 / n as f64),
    }
}
