//! A hostile HTTP/1.1 server on 127.0.0.1 for the safety tests: every answer is written by
//! hand on the socket, so it can lie in its headers, send bytes nobody asked for, or trickle a
//! body one byte at a time. Routes are keyed by `Host` header (port removed) and path; every
//! request is logged, and a test can await the first request to a path ([`HostileServer::wait_for`]).

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One answer.
#[derive(Debug, Clone)]
pub enum Route {
    /// Status, extra headers, body; `Content-Length` is added.
    Page {
        /// HTTP status.
        status: u16,
        /// Headers besides `Content-Length`.
        headers: Vec<(String, String)>,
        /// The body, sent as is.
        body: Vec<u8>,
    },
    /// 200 with the given headers, then one byte of `a` every `every`, forever.
    Trickle {
        /// Headers (no `Content-Length`: the body never ends).
        headers: Vec<(String, String)>,
        /// Time between two bytes.
        every: Duration,
    },
}

impl Route {
    /// A 200 HTML page.
    pub fn html(body: &str) -> Route {
        Route::Page { status: 200, headers: vec![("Content-Type".into(), "text/html".into())], body: body.into() }
    }

    /// Any status, content type and body bytes.
    pub fn bytes(status: u16, content_type: &str, body: Vec<u8>) -> Route {
        Route::Page { status, headers: vec![("Content-Type".into(), content_type.into())], body }
    }

    /// A redirect.
    pub fn redirect(status: u16, location: &str) -> Route {
        Route::Page { status, headers: vec![("Location".into(), location.into())], body: Vec::new() }
    }

    /// This route with one more header.
    pub fn with_header(mut self, name: &str, value: &str) -> Route {
        match &mut self {
            Route::Page { headers, .. } | Route::Trickle { headers, .. } => headers.push((name.into(), value.into())),
        }
        self
    }
}

/// (host, path) of every request, in arrival order.
pub type Log = Arc<Mutex<Vec<(String, String)>>>;

/// The server; stops when dropped.
pub struct HostileServer {
    /// Where it listens.
    pub addr: SocketAddr,
    log: Log,
    seen: Arc<tokio::sync::Notify>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl HostileServer {
    /// Serve `routes` ((host, path) → route; unknown ones are 404) on 127.0.0.1.
    pub fn start(routes: HashMap<(String, String), Route>) -> HostileServer {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        std_listener.set_nonblocking(true).expect("non-blocking");
        let addr = std_listener.local_addr().expect("address");
        let log: Log = Arc::default();
        let seen = Arc::new(tokio::sync::Notify::new());
        let routes = Arc::new(routes);
        let (task_log, task_seen) = (log.clone(), seen.clone());
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("tokio listener");
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                let (routes, log, seen) = (routes.clone(), task_log.clone(), task_seen.clone());
                tokio::spawn(async move {
                    let _ = serve(stream, &routes, &log, &seen).await;
                });
            }
        });
        HostileServer { addr, log, seen, runtime: Some(runtime) }
    }

    /// Every (host, path) requested so far.
    pub fn requests(&self) -> Vec<(String, String)> {
        self.log.lock().expect("log").clone()
    }

    /// True when `path` was requested (on any host).
    pub fn saw_path(&self, path: &str) -> bool {
        self.requests().iter().any(|(_, p)| p == path)
    }

    /// Wait until `path` of `host` was requested.
    pub async fn wait_for(&self, host: &str, path: &str) {
        loop {
            let notified = self.seen.notified();
            if self.requests().iter().any(|(h, p)| h == host && p == path) {
                return;
            }
            notified.await;
        }
    }
}

impl Drop for HostileServer {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

async fn serve(
    mut stream: tokio::net::TcpStream,
    routes: &HashMap<(String, String), Route>,
    log: &Log,
    seen: &tokio::sync::Notify,
) -> std::io::Result<()> {
    loop {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            if stream.read(&mut byte).await? == 0 {
                return Ok(());
            }
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
        let host = head
            .lines()
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("host")).map(|(_, v)| v.trim()))
            .unwrap_or("")
            .split(':')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        log.lock().expect("log").push((host.clone(), path.clone()));
        seen.notify_waiters();
        match routes.get(&(host, path)) {
            None => write_page(&mut stream, 404, &[], b"not found").await?,
            Some(Route::Page { status, headers, body }) => write_page(&mut stream, *status, headers, body).await?,
            Some(Route::Trickle { headers, every }) => {
                let mut out = String::from("HTTP/1.1 200 OK\r\n");
                for (k, v) in headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                stream.write_all(out.as_bytes()).await?;
                loop {
                    stream.write_all(b"a").await?;
                    stream.flush().await?;
                    tokio::time::sleep(*every).await;
                }
            }
        }
    }
}

async fn write_page(
    stream: &mut tokio::net::TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut out = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    stream.write_all(out.as_bytes()).await?;
    stream.write_all(body).await?;
    stream.flush().await
}
