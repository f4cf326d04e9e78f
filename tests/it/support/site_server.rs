//! A static HTTP server on 127.0.0.1 for crawl tests and demos: serves several real sites at
//! once, chosen by the `Host` header, as a plain static server would (directories redirect to
//! `dir/`, `dir/` serves `index.html`, percent-encoded UTF-8 paths, 404 otherwise; an `ETag`
//! from the body's hash and 304 for a matching `If-None-Match`), and logs every request with
//! its time. Built on hyper (HTTP/1.1, keep-alive).
//!
//! Used by the integration tests (`mod support;`) and by `examples/serve_sites.rs`
//! (`scripts/serve-sites.sh`).

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a host serves.
#[derive(Debug, Clone)]
pub enum SiteRoot {
    /// A document root directory.
    Dir(PathBuf),
    /// Fixed pages by URL path (e.g. the CleanPortalEval pages at their original paths).
    Pages(Arc<HashMap<String, Vec<u8>>>),
}

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct RequestLog {
    /// `Host` header without the port.
    pub host: String,
    /// Request path with query.
    pub path: String,
    /// When it arrived.
    pub at: Instant,
    /// Status answered.
    pub status: u16,
    /// `User-Agent` header.
    pub user_agent: String,
    /// `If-None-Match` header (empty when absent).
    pub conditional: String,
}

/// A running server. Stops when dropped.
pub struct SiteServer {
    /// The bound address.
    pub addr: SocketAddr,
    log: Arc<Mutex<Vec<RequestLog>>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SiteServer {
    /// Serve `sites` (host → root) on `addr` ("127.0.0.1:0" for any free port), on a
    /// runtime of its own (hyper, HTTP/1.1 with keep-alive).
    pub fn start(addr: &str, sites: HashMap<String, SiteRoot>) -> SiteServer {
        let listener = std::net::TcpListener::bind(addr).expect("bind the site server");
        listener.set_nonblocking(true).expect("non-blocking listener");
        let addr = listener.local_addr().expect("bound address");
        let log = Arc::new(Mutex::new(Vec::new()));
        let sites = Arc::new(sites);
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        let thread_log = log.clone();
        let thread = std::thread::spawn(move || {
            let rt =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
                loop {
                    tokio::select! {
                        _ = &mut rx => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let (sites, log) = (sites.clone(), thread_log.clone());
                            tokio::spawn(async move {
                                let service = hyper::service::service_fn(move |req| {
                                    let response = serve(&req, &sites, &log);
                                    async move { Ok::<_, std::convert::Infallible>(response) }
                                });
                                let io = hyper_util::rt::TokioIo::new(stream);
                                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
                            });
                        }
                    }
                }
            });
        });
        SiteServer { addr, log, shutdown: Some(tx), thread: Some(thread) }
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RequestLog> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for SiteServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

type Body = http_body_util::Full<hyper::body::Bytes>;

fn serve(
    request: &hyper::Request<hyper::body::Incoming>,
    sites: &HashMap<String, SiteRoot>,
    log: &Mutex<Vec<RequestLog>>,
) -> hyper::Response<Body> {
    let at = Instant::now();
    let header =
        |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string).unwrap_or_default();
    let host = header("host").split(':').next().unwrap_or("").to_ascii_lowercase();
    let user_agent = header("user-agent");
    let path = request.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| "/".into());
    let (mut status, mut body, content_type, location) = match sites.get(&host) {
        None => (404, b"unknown host".to_vec(), "text/plain", None),
        Some(root) => respond(root, &path),
    };
    // Conditional requests: an ETag from the body's hash; a matching If-None-Match gets 304.
    let etag = format!("\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(&body));
    let conditional = header("if-none-match");
    if status == 200 && conditional == etag {
        (status, body) = (304, Vec::new());
    }
    log.lock().unwrap().push(RequestLog { host, path, at, status, user_agent, conditional });
    let mut response = hyper::Response::builder().status(status).header("Content-Type", content_type);
    if matches!(status, 200 | 304) {
        response = response.header("ETag", etag);
    }
    if let Some(loc) = location {
        response = response.header("Location", loc);
    }
    response.body(Body::new(body.into())).expect("valid response")
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html" | "htm") | None => "text/html",
        Some("txt") => "text/plain",
        Some("xml") => "application/xml",
        _ => "application/octet-stream",
    }
}

fn respond(root: &SiteRoot, raw_path: &str) -> (u16, Vec<u8>, &'static str, Option<String>) {
    let not_found = (404, b"<html><body>Not found</body></html>".to_vec(), "text/html", None);
    let (path, query) = raw_path.split_once('?').unwrap_or((raw_path, ""));
    let decoded = match percent_encoding::percent_decode_str(path).decode_utf8() {
        Ok(p) => p.into_owned(),
        Err(_) => return not_found,
    };
    match root {
        SiteRoot::Pages(pages) => match pages.get(raw_path).or_else(|| pages.get(path)).or_else(|| pages.get(&decoded))
        {
            Some(body) if body.starts_with(b"%PDF") => (200, body.clone(), "application/pdf", None),
            Some(body) => (200, body.clone(), "text/html", None),
            None => not_found,
        },
        SiteRoot::Dir(dir) => {
            if decoded.split('/').any(|seg| seg == "..") {
                return not_found;
            }
            let mut file = dir.join(decoded.trim_start_matches('/'));
            if file.is_dir() {
                if !path.ends_with('/') {
                    let q = if query.is_empty() { String::new() } else { format!("?{query}") };
                    return (301, Vec::new(), "text/html", Some(format!("{path}/{q}")));
                }
                file = file.join("index.html");
            }
            let mut body = Vec::new();
            match std::fs::File::open(&file).and_then(|mut f| f.read_to_end(&mut body)) {
                Ok(_) => (200, body, content_type(&file), None),
                Err(_) => not_found,
            }
        }
    }
}

/// The five sites of `../shared/sites` (host → document root).
pub fn shared_sites(sites_dir: &Path) -> HashMap<String, SiteRoot> {
    let mut map = HashMap::new();
    for host in ["www.freepressokc.com", "www.paraguayos.org", "hidemiyoshi.jp", "awesomewm.org", "www-cs.stanford.edu"]
    {
        map.insert(host.to_string(), SiteRoot::Dir(sites_dir.join(host)));
    }
    map.insert("paraguayos.org".to_string(), SiteRoot::Dir(sites_dir.join("www.paraguayos.org")));
    map
}
