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

/// Status clients served at once; a connection beyond them is closed as soon as it is
/// accepted, so status clients never hold more of the crawl's file descriptors.
pub const MAX_CONNECTIONS: usize = 16;
/// A client has this long to send its request head.
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// A connection is closed after this long, kept alive or not.
pub const CONNECTION_LIFETIME: std::time::Duration = std::time::Duration::from_secs(30);
/// After a failed `accept` (descriptors exhausted elsewhere in the process) the loop waits
/// this long before the next one, instead of spinning.
const ACCEPT_BACKOFF: std::time::Duration = std::time::Duration::from_millis(100);

/// Start serving the status of the crawl whose state is `state_dir` on `addr`. Returns the
/// bound address (port 0 picks a free one) and the server task (abort it to stop). On
/// `127.0.0.1` the same port of `[::1]` is served too, when this machine has IPv6 (a browser
/// may resolve `localhost` to either).
///
/// Bounded: at most [`MAX_CONNECTIONS`] clients at once, [`HEADER_TIMEOUT`] to send a request
/// head, [`CONNECTION_LIFETIME`] per connection; a request whose `Host` names neither the bound
/// address nor `localhost` is refused with 421 (a page elsewhere that rebinds its own name to
/// this address cannot read the status).
///
/// # Errors
/// The address cannot be bound.
pub async fn serve(addr: SocketAddr, state_dir: PathBuf) -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let mut listeners = vec![listener];
    if bound.ip() == std::net::Ipv4Addr::LOCALHOST {
        let v6 = SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, bound.port()));
        if let Ok(l) = tokio::net::TcpListener::bind(v6).await {
            listeners.push(l);
        }
    }
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let mut tasks = tokio::task::JoinSet::new();
    for listener in listeners {
        tasks.spawn(accept_loop(listener, bound.port(), state_dir.clone(), permits.clone()));
    }
    let task = tokio::spawn(async move { while tasks.join_next().await.is_some() {} });
    Ok((bound, task))
}

/// Accept and serve connections of `listener` while permits last.
async fn accept_loop(
    listener: tokio::net::TcpListener,
    port: u16,
    state_dir: PathBuf,
    permits: std::sync::Arc<tokio::sync::Semaphore>,
) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        // Over the cap the connection is closed at once (its client may try again).
        let Ok(permit) = permits.clone().try_acquire_owned() else { continue };
        let dir = state_dir.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let host = req.headers().get(hyper::header::HOST).and_then(|h| h.to_str().ok());
                let response = match host.is_none_or(|h| host_allowed(h, port)) {
                    true => answer(req.method(), req.uri().path(), &dir),
                    false => response(
                        421,
                        "text/plain; charset=utf-8",
                        "this server answers only for its own address\n".into(),
                    ),
                };
                async move { Ok::<_, std::convert::Infallible>(response) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(io, service);
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, conn).await;
            drop(permit);
        });
    }
}

/// True when a request's `Host` names this server: `localhost`, `127.0.0.1`, `[::1]` or
/// another IP literal, with this `port` or none (a DNS name other than `localhost` is refused:
/// that is what a rebinding page sends).
pub fn host_allowed(host: &str, port: u16) -> bool {
    let (name, host_port) = match host.rsplit_once(':') {
        Some((name, p)) if !name.is_empty() && (!name.contains(':') || name.ends_with(']')) => (name, Some(p)),
        _ => (host, None),
    };
    if host_port.is_some_and(|p| p != port.to_string()) {
        return false;
    }
    let bare = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost") || bare.parse::<std::net::IpAddr>().is_ok()
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
        let queued = h.queued_from_counts();
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
    fn only_hosts_that_name_this_server_are_answered() {
        for ok in ["127.0.0.1:8090", "localhost:8090", "LOCALHOST", "[::1]:8090", "192.168.1.5:8090", "[::1]"] {
            assert!(host_allowed(ok, 8090), "{ok}");
        }
        for refused in ["evil.example:8090", "evil.example", "127.0.0.1:80", "localhost.evil.example:8090", ""] {
            assert!(!host_allowed(refused, 8090), "{refused}");
        }
    }

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
