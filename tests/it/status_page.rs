//! The status page of a running crawl (`crawl --status ADDR`): while a crawl of two shared
//! sites runs, `/status.json` answers with the same object as `webcorpus stats --json` and `/`
//! with an HTML page that lists the hosts; a write method is refused.

use crate::support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::site_server::{shared_sites, SiteServer};

const HOSTS: [&str; 2] = ["hidemiyoshi.jp", "www-cs.stanford.edu"];

/// One HTTP/1.1 request; (status, body).
fn http(addr: &str, method: &str, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(s, "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

fn stats_json(state: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .arg("stats")
        .arg("--state")
        .arg(state)
        .arg("--json")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_status_page_answers_while_a_crawl_runs_and_its_json_matches_stats() {
    let Some(shared) = support::shared_dir("the_status_page_answers_while_a_crawl_runs_and_its_json_matches_stats")
    else {
        return;
    };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("seeds.txt"),
        "http://hidemiyoshi.jp/blog/\nhttp://www-cs.stanford.edu/index.html\n",
    )
    .unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let toml = support::loopback_config(
        server.addr,
        &HOSTS,
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"30ms\"\n",
            dir.path().join("state").display(),
            dir.path().join("corpus").display()
        ),
    );
    std::fs::write(dir.path().join("config.toml"), toml).unwrap();
    let mut crawl = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .arg("crawl")
        .arg("--seeds")
        .arg(dir.path().join("seeds.txt"))
        .arg("--config")
        .arg(dir.path().join("config.toml"))
        .args(["--status", &port.to_string(), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first snapshot with both hosts in it (the crawl writes one every 2 s).
    let deadline = Instant::now() + Duration::from_secs(300);
    let page = loop {
        if let Some((200, body)) = http(&addr, "GET", "/status.json") {
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            if json["hosts"].as_array().is_some_and(|h| h.len() == HOSTS.len()) {
                break json;
            }
        }
        assert!(Instant::now() < deadline, "no status page at {addr}");
        assert!(crawl.try_wait().unwrap().is_none(), "the crawl ended before its status page answered");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(page["snapshot"]["running"], true, "{page}");
    // The page's JSON is `stats --json` of the same snapshot (read both until they see one).
    let mut matched = false;
    for _ in 0..20 {
        let stats = stats_json(&dir.path().join("state"));
        let (_, body) = http(&addr, "GET", "/status.json").unwrap();
        let page: serde_json::Value = serde_json::from_str(&body).unwrap();
        if page["snapshot"]["written_at"] == stats["snapshot"]["written_at"] {
            assert_eq!(page, stats);
            matched = true;
            break;
        }
    }
    assert!(matched, "the page and stats never read the same snapshot");
    // The text report of the running crawl gives each host's queued URLs as the page does,
    // never "-" (its fifth column; the state is locked, so they come from the host records).
    let out = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .arg("stats")
        .arg("--state")
        .arg(dir.path().join("state"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("crawl running"), "{text}");
    for host in HOSTS {
        let row = text.lines().find(|l| l.starts_with(host)).unwrap_or_else(|| panic!("{host} in {text}"));
        let queued = row.split_whitespace().nth(4).unwrap();
        assert!(queued.parse::<u64>().is_ok(), "queued {queued:?} in {row}");
    }
    assert!(!text.contains("queued URLs: -"), "{text}");
    let (status, html) = http(&addr, "GET", "/").unwrap();
    assert_eq!(status, 200);
    assert!(html.contains("http-equiv=\"refresh\""), "the page refreshes itself");
    for host in HOSTS {
        assert!(html.contains(&format!("<td>{host}</td>")), "{host} listed");
    }
    assert!(!html.contains("<script"), "self-contained, no scripts");
    assert_eq!(http(&addr, "POST", "/").map(|(s, _)| s), Some(405), "read-only");
    assert_eq!(http(&addr, "GET", "/nothing").map(|(s, _)| s), Some(404));
    assert!(crawl.wait().unwrap().success());
    assert!(http(&addr, "GET", "/").is_none(), "the page stops with the crawl");
}

/// Descriptors this process holds for TCP connections whose local port is `port` (the
/// server's accepted connections, not the listener): the socket inodes of `/proc/self/fd`
/// matched against `/proc/net/tcp`. Counted by port, not as all open descriptors: the other
/// tests of this binary open and close theirs at the same time.
fn server_connections(port: u16) -> usize {
    let inodes: std::collections::HashSet<String> = std::fs::read_dir("/proc/self/fd")
        .map(|d| {
            d.flatten()
                .filter_map(|e| std::fs::read_link(e.path()).ok())
                .filter_map(|l| l.to_str()?.strip_prefix("socket:[")?.strip_suffix(']').map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap_or_default();
    table
        .lines()
        .skip(1)
        .filter(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local_port =
                fields.get(1).and_then(|a| a.rsplit(':').next()).and_then(|p| u16::from_str_radix(p, 16).ok());
            let listening = fields.get(3) == Some(&"0A");
            local_port == Some(port) && !listening && fields.get(9).is_some_and(|inode| inodes.contains(*inode))
        })
        .count()
}

/// The status server cannot be starved or read from elsewhere (issue 52): 200 clients that
/// connect and send nothing hold at most MAX_CONNECTIONS of its descriptors and are cut after
/// the header timeout, after which a real request is answered; a `Host` that names another
/// site (DNS rebinding) gets 421; `[::1]` is served beside `127.0.0.1`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_server_is_bounded_and_answers_only_for_itself() {
    use webcorpus::crawl::status_page::{serve, HEADER_TIMEOUT, MAX_CONNECTIONS};
    let dir = tempfile::tempdir().unwrap();
    let (addr, task) = serve("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf()).await.expect("bind");
    let request = move |host: String| {
        tokio::task::spawn_blocking(move || {
            let mut s = TcpStream::connect(addr).ok()?;
            s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
            write!(s, "GET /status.json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").ok()?;
            let mut text = String::new();
            s.read_to_string(&mut text).ok()?;
            text.split_whitespace().nth(1)?.parse::<u16>().ok()
        })
    };
    // No snapshot in an empty state directory: 503 is the server's own answer.
    assert_eq!(request(addr.to_string()).await.unwrap(), Some(503));
    assert_eq!(request(format!("localhost:{}", addr.port())).await.unwrap(), Some(503));
    assert_eq!(request(format!("evil.example:{}", addr.port())).await.unwrap(), Some(421));

    let idle: Vec<TcpStream> = (0..200).filter_map(|_| TcpStream::connect(addr).ok()).collect();
    assert_eq!(idle.len(), 200);
    // The server accepts them in the background; it gives no event when it has.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let held = server_connections(addr.port());
    assert!(held > 0, "the server accepted some of the idle clients");
    assert!(held <= MAX_CONNECTIONS + 4, "the server holds {held} descriptors for idle clients");
    // The idle clients' slots free after the header timeout: a client that retries (a
    // browser's reload) is answered then.
    let started = Instant::now();
    let mut answered = None;
    while answered.is_none() && started.elapsed() < 4 * HEADER_TIMEOUT {
        answered = request(addr.to_string()).await.unwrap();
        if answered.is_none() {
            // A reload's pace; the server gives no event for a slot coming free.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    assert_eq!(answered, Some(503), "answered despite the idle clients");
    drop(idle);

    let v6 = std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port()));
    if std::net::TcpListener::bind("[::1]:0").is_ok() {
        let answered = tokio::task::spawn_blocking(move || {
            let mut s = TcpStream::connect(v6).ok()?;
            write!(s, "GET / HTTP/1.1\r\nHost: [::1]:{}\r\nConnection: close\r\n\r\n", v6.port()).ok()?;
            let mut text = String::new();
            s.read_to_string(&mut text).ok()?;
            text.split_whitespace().nth(1)?.parse::<u16>().ok()
        });
        assert_eq!(answered.await.unwrap(), Some(503), "served on [::1] too");
    }
    task.abort();
}
