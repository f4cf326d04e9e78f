//! The status page of a running crawl (`crawl --status 127.0.0.1:PORT`, `[crawl] status`): a
//! small read-only HTTP server (hyper, on the crawl's runtime) that serves what the committer
//! writes to the status snapshot ([`super::snapshot`]) every two seconds:
//!
//! - `GET /` — one self-contained HTML page (no scripts, fonts or external files) that reloads
//!   itself every 2 s: the counters, this run's rates, every host (phase, fetched, written,
//!   queued, delay, yield, state) and the last errors;
//! - `GET /status.json` — the same object as `webcorpus stats --state DIR --json` prints while
//!   the crawl runs ([`super::stats::snapshot_json`]), for monitoring.
//!
//! It binds only the address given; `--status PORT` means 127.0.0.1:PORT.

use super::snapshot::{self, StatusSnapshot};
use crate::store::HostRecord;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

pub use crate::config::parse_addr;

/// Start serving the status of the crawl whose state is `state_dir` on `addr`. Returns the
/// bound address (port 0 picks a free one) and the server task (abort it to stop).
///
/// # Errors
/// The address cannot be bound.
pub async fn serve(addr: SocketAddr, state_dir: PathBuf) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let dir = state_dir.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let response = answer(req.method(), req.uri().path(), &dir);
                    async move { Ok::<_, std::convert::Infallible>(response) }
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
            });
        }
    });
    Ok((bound, task))
}

type Body = http_body_util::Full<bytes::Bytes>;

fn response(status: u16, content_type: &str, body: String) -> hyper::Response<Body> {
    hyper::Response::builder()
        .status(status)
        .header("content-type", content_type)
        .header("cache-control", "no-store")
        .body(Body::new(bytes::Bytes::from(body)))
        .expect("a valid response")
}

fn answer(method: &hyper::Method, path: &str, state_dir: &std::path::Path) -> hyper::Response<Body> {
    if method != hyper::Method::GET && method != hyper::Method::HEAD {
        return response(405, "text/plain; charset=utf-8", "read-only: GET / or /status.json\n".into());
    }
    let snap = snapshot::read(state_dir);
    match (path, snap) {
        ("/status.json", Ok(snap)) => {
            response(200, "application/json", super::stats::snapshot_json(&snap, None).to_string())
        }
        ("/", Ok(snap)) => response(200, "text/html; charset=utf-8", render(&snap)),
        ("/" | "/status.json", Err(e)) => {
            response(503, "text/plain; charset=utf-8", format!("no status yet (the crawl writes it every 2 s): {e}\n"))
        }
        _ => response(404, "text/plain; charset=utf-8", "not found: GET / or /status.json\n".into()),
    }
}

/// `&`, `<`, `>`, `"` and `'` as entities.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Seconds between two RFC 3339 times (0 when either does not parse).
fn seconds_between(from: &str, to: &str) -> f64 {
    match (humantime::parse_rfc3339(from), humantime::parse_rfc3339(to)) {
        (Ok(a), Ok(b)) => b.duration_since(a).map(|d| d.as_secs_f64()).unwrap_or(0.0),
        _ => 0.0,
    }
}

fn host_state(h: &HostRecord) -> &'static str {
    match (h.pruned, h.dead) {
        (true, _) => "pruned",
        (_, true) => "given up",
        _ => "",
    }
}

/// The status page.
pub fn render(snap: &StatusSnapshot) -> String {
    let c = &snap.counters;
    let elapsed = seconds_between(&snap.run_started_at, &snap.written_at);
    let rate = |n: u64| if elapsed > 0.0 { n as f64 / elapsed } else { 0.0 };
    let mut out = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"2\">\
         <title>webcorpus crawl</title><style>body{font:14px system-ui,sans-serif;margin:1.5em}\
         table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}\
         td:first-child,th:first-child{text-align:left}.err td{text-align:left}</style></head><body>",
    );
    let _ = write!(
        out,
        "<h1>webcorpus crawl: {}</h1><p>pid {} · this run since {} · status of {}</p>",
        if snap.running { "running" } else { "finished" },
        snap.pid,
        escape(&snap.run_started_at),
        escape(&snap.written_at)
    );
    let _ = write!(
        out,
        "<h2>Counters</h2><table><tr><th>pages fetched</th><td>{}</td></tr><tr><th>records written</th><td>{}</td></tr>\
         <tr><th>paragraphs written</th><td>{}</td></tr><tr><th>duplicate paragraphs dropped</th><td>{}</td></tr>\
         <tr><th>fetches failed</th><td>{}</td></tr><tr><th>robots.txt refusals</th><td>{}</td></tr>\
         <tr><th>this run: pages/s</th><td>{:.1}</td></tr><tr><th>this run: records/s</th><td>{:.1}</td></tr></table>",
        c.fetched,
        c.records,
        c.paragraphs,
        c.duplicate_paragraphs,
        c.failed,
        c.robots_disallowed,
        rate(snap.run_fetched),
        rate(snap.run_records)
    );
    out.push_str(
        "<h2>Hosts</h2><table><tr><th>host</th><th>phase</th><th>fetched</th><th>written</th><th>queued</th>\
         <th>delay s</th><th>yield</th><th>state</th></tr>",
    );
    for h in &snap.hosts {
        let queued = h.enqueued.saturating_sub(h.fetched + h.discards.get("robots_disallowed").copied().unwrap_or(0));
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td><td>{}</td></tr>",
            escape(&h.host),
            format!("{:?}", h.learning.phase).to_lowercase(),
            h.fetched,
            h.written,
            queued,
            h.delay_ms as f64 / 1000.0,
            h.yield_rate().map_or("–".to_string(), |y| format!("{y:.3}")),
            host_state(h)
        );
    }
    out.push_str("</table><h2>Last errors</h2>");
    if snap.last_errors.is_empty() {
        out.push_str("<p>none</p>");
    } else {
        out.push_str("<table class=\"err\"><tr><th>time</th><th>reason</th><th>URL</th></tr>");
        for e in snap.last_errors.iter().rev() {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&e.at),
                escape(&e.reason),
                escape(&e.url)
            );
        }
        out.push_str("</table>");
    }
    out.push_str("<p><a href=\"/status.json\">status.json</a></p></body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_default_to_loopback() {
        assert_eq!(parse_addr("8090").unwrap(), "127.0.0.1:8090".parse().unwrap());
        assert_eq!(parse_addr("0.0.0.0:80").unwrap(), "0.0.0.0:80".parse().unwrap());
        assert!(parse_addr("localhost").is_err());
    }

    #[test]
    fn host_names_and_errors_are_escaped() {
        let snap = StatusSnapshot {
            written_at: "2026-11-25T10:00:10Z".into(),
            pid: 1,
            running: true,
            run_started_at: "2026-11-25T10:00:00Z".into(),
            run_fetched: 50,
            run_records: 20,
            counters: Default::default(),
            queued: None,
            hosts: vec![HostRecord { host: "<b>x".into(), ..HostRecord::default() }],
            last_errors: vec![snapshot::ErrorLine {
                at: "2026-11-25T10:00:09Z".into(),
                url: "http://a.test/?q=<script>".into(),
                reason: "timeout".into(),
            }],
        };
        let html = render(&snap);
        assert!(html.contains("&lt;b&gt;x") && !html.contains("<b>x"));
        assert!(html.contains("?q=&lt;script&gt;") && !html.contains("<script>"));
        assert!(html.contains("<td>5.0</td>"), "50 pages in 10 s");
    }
}
