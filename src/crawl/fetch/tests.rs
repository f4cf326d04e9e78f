//! Tests of [`super::Fetcher`] against a local `tiny_http` server on 127.0.0.1. The server
//! routes on the `Host` header too, so `resolve` entries for several made-up hosts reach it;
//! `www.paraguayos.org` is served from the real snapshot in `../shared/sites` when present.

use super::*;
use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tiny_http::{Header, Request, Response, Server};

/// (Host header, path) of every request the server saw.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

struct TestServer {
    addr: SocketAddr,
    seen: Seen,
}

impl TestServer {
    fn url(&self, path: &str) -> Url {
        Url::parse(&format!("http://{}{path}", self.addr)).expect("test URL")
    }

    fn saw(&self, host: &str, path: &str) -> bool {
        self.seen.lock().expect("lock").iter().any(|(h, p)| h == host && p == path)
    }
}

fn sites_dir() -> PathBuf {
    crate::testdata::shared_root().join("sites")
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("valid header")
}

fn start() -> TestServer {
    let server = Server::http("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = server.server_addr().to_ip().expect("an IP listener");
    let seen: Seen = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for rq in server.incoming_requests() {
            let log = log.clone();
            // One thread per request, so a slow answer does not hold up the others.
            std::thread::spawn(move || respond(rq, &log));
        }
    });
    TestServer { addr, seen }
}

fn respond(rq: Request, log: &Seen) {
    let host =
        rq.headers().iter().find(|h| h.field.equiv("Host")).map(|h| h.value.as_str().to_string()).unwrap_or_default();
    let path = rq.url().to_string();
    log.lock().expect("lock").push((host.clone(), path.clone()));
    let html = |code: u16, body: &str| {
        Response::from_string(body)
            .with_status_code(code)
            .with_header(header("Content-Type", "text/html; charset=utf-8"))
    };
    let redirect = |code: u16, to: &str| html(code, "moved").with_header(header("Location", to));
    let chunked = |headers: Vec<Header>, body: Vec<u8>| {
        Response::new(tiny_http::StatusCode(200), headers, Cursor::new(body), None, None)
    };
    if path == "/trickle" {
        let headers = vec![header("Content-Type", "text/html")];
        let _ = rq.respond(Response::new(tiny_http::StatusCode(200), headers, Trickle(0), None, None));
        return;
    }
    let response = match (host.as_str(), path.as_str()) {
        ("big.test", "/robots.txt") => {
            let mut body = "User-agent: *\nDisallow: /private\n".to_string();
            body.push_str(&"# filler\n".repeat(80_000));
            html(200, &body)
        }
        ("loop.test", "/robots.txt") => redirect(301, "/robots.txt"),
        ("down.test", "/robots.txt") => html(503, "down"),
        ("moved.test", "/robots.txt") => redirect(301, "http://other.test/robots.txt"),
        ("other.test", "/robots.txt") => html(200, "User-agent: *\nDisallow: /other\n"),
        ("www.paraguayos.org", p) => {
            let root = sites_dir().join("www.paraguayos.org");
            let rel = p.trim_start_matches('/');
            let file =
                if rel.is_empty() || rel.ends_with('/') { root.join(rel).join("index.html") } else { root.join(rel) };
            match std::fs::read(&file) {
                Ok(bytes) if p == "/robots.txt" => chunked(vec![header("Content-Type", "text/plain")], bytes),
                Ok(bytes) => chunked(vec![header("Content-Type", "text/html")], bytes),
                Err(_) => html(200, &format!("host={host} path={p}")),
            }
        }
        (_, "/page") => html(200, "<html><body><p>Hola</p></body></html>"),
        (_, p) if p.starts_with("/r/") => match p[3..].parse::<u32>() {
            Ok(0) | Err(_) => html(200, "end of chain"),
            Ok(n) => redirect(301, &format!("/r/{}", n - 1)),
        },
        (_, "/doc.pdf") => Response::from_string("%PDF-1.4 ...").with_header(header("Content-Type", "application/pdf")),
        (_, "/big") => html(200, &"a".repeat(5000)),
        (_, "/sitemap.xml") => {
            Response::from_string("<urlset></urlset>").with_header(header("Content-Type", "application/xml"))
        }
        (_, "/big-chunked") => chunked(vec![header("Content-Type", "text/html")], vec![b'a'; 5000]),
        (_, "/no-type") => chunked(Vec::new(), b"<p>no type</p>".to_vec()),
        (_, "/missing") => html(404, "<h1>not found</h1>"),
        (_, "/pdf-404") => {
            Response::from_string("%PDF").with_status_code(404).with_header(header("Content-Type", "application/pdf"))
        }
        (_, "/throttle") => html(429, "slow down").with_header(header("Retry-After", "7")),
        (_, "/rel") => redirect(302, "page?x=1#frag"),
        (_, "/to-ftp") => redirect(302, "ftp://example.org/file"),
        (_, "/to-resolved") => redirect(301, "https://www.paraguayos.org/x/"),
        ("ssrf.test", "/robots.txt") => redirect(301, "http://127.0.0.1:9/robots.txt"),
        ("ssrf.test", "/to-metadata") => redirect(302, "http://169.254.169.254/latest/meta-data/"),
        (_, "/brotli") => html(200, "\u{1b}\u{3}binary").with_header(header("Content-Encoding", "br")),
        (_, "/slow") => {
            std::thread::sleep(Duration::from_millis(2500));
            html(200, "late")
        }
        (_, "/robots.txt") => Response::from_string("User-agent: *\nDisallow: /private\n"),
        _ => html(404, "no route"),
    };
    let _ = rq.respond(response);
}

fn fetcher(server: &TestServer) -> Fetcher {
    let addr = server.addr.to_string();
    let mut resolve = BTreeMap::new();
    for host in ["www.paraguayos.org", "big.test", "loop.test", "down.test", "moved.test", "other.test"] {
        resolve.insert(host.to_string(), addr.clone());
    }
    let config = NetConfig {
        max_body_bytes: 1000,
        read_timeout: Duration::from_millis(800),
        request_timeout: Duration::from_millis(1500),
        allow: vec!["127.0.0.1".into()],
        resolve,
        ..NetConfig::default()
    };
    Fetcher::new(&config).expect("client")
}

#[tokio::test]
async fn html_page_is_fetched() {
    let s = start();
    let f = fetcher(&s);
    let url = s.url("/page");
    let page = f.fetch(&url).await.expect("fetched");
    assert_eq!(page.status, 200);
    assert_eq!(page.url, url);
    assert_eq!(page.final_url, url);
    assert_eq!(page.content_type.as_deref(), Some("text/html; charset=utf-8"));
    assert_eq!(page.body, b"<html><body><p>Hola</p></body></html>");
    assert!(page.response_time < Duration::from_secs(5));
    // No Content-Type at all: accepted.
    let page = f.fetch(&s.url("/no-type")).await.expect("fetched");
    assert_eq!(page.content_type, None);
    assert_eq!(page.body, b"<p>no type</p>");
}

#[tokio::test]
async fn redirects_are_followed_up_to_the_limit() {
    let s = start();
    let f = fetcher(&s);
    let page = f.fetch(&s.url("/r/5")).await.expect("5 hops are allowed");
    assert_eq!(page.status, 200);
    assert_eq!(page.final_url, s.url("/r/0"));
    assert_eq!(page.url, s.url("/r/5"));
    let err = f.fetch(&s.url("/r/6")).await.expect_err("6 hops");
    assert!(matches!(err, FetchError::TooManyRedirects { max: 5, .. }), "{err}");
    assert_eq!(err.reason(), "too_many_redirects");
    assert!(err.to_string().contains("/r/6"));
    // Relative Location; the fragment is dropped.
    let page = f.fetch(&s.url("/rel")).await.expect("relative redirect");
    assert_eq!(page.final_url, s.url("/page?x=1"));
    let err = f.fetch(&s.url("/to-ftp")).await.expect_err("ftp");
    assert!(matches!(&err, FetchError::BadRedirect { location, .. } if location.starts_with("ftp:")), "{err}");
}

#[tokio::test]
async fn non_html_and_oversized_bodies_are_refused() {
    let s = start();
    let f = fetcher(&s);
    let err = f.fetch(&s.url("/doc.pdf")).await.expect_err("pdf");
    assert!(matches!(&err, FetchError::NotHtml { content_type, .. } if content_type == "application/pdf"), "{err}");
    for path in ["/big", "/big-chunked"] {
        let err = f.fetch(&s.url(path)).await.expect_err("over 1000 bytes");
        assert!(matches!(err, FetchError::BodyTooLarge { limit: 1000, .. }), "{path}: {err}");
    }
}

#[tokio::test]
async fn error_statuses_are_pages() {
    let s = start();
    let f = fetcher(&s);
    let page = f.fetch(&s.url("/missing")).await.expect("a 404 is a page");
    assert_eq!(page.status, 404);
    assert_eq!(page.body, b"<h1>not found</h1>");
    let page = f.fetch(&s.url("/pdf-404")).await.expect("a 404 is a page");
    assert_eq!(page.status, 404);
    assert!(page.body.is_empty(), "non-HTML error body is not read");
    let page = f.fetch(&s.url("/throttle")).await.expect("a 429 is a page");
    assert_eq!(page.status, 429);
    assert_eq!(page.retry_after.as_deref(), Some("7"));
}

#[tokio::test]
async fn network_errors_are_typed() {
    let s = start();
    let f = fetcher(&s);
    let err = f.fetch(&s.url("/slow")).await.expect_err("read timeout");
    assert!(matches!(err, FetchError::Timeout { .. }), "{err}");
    // Nothing listens on port 1.
    let closed = Url::parse("http://127.0.0.1:1/").expect("URL");
    let err = f.fetch(&closed).await.expect_err("refused");
    assert!(matches!(err, FetchError::Connect { .. }), "{err}");
    assert!(matches!(f.fetch_robots(&closed).await, Err(FetchError::Connect { .. })));
    let bad = NetConfig { resolve: [("x.org".to_string(), "localhost".to_string())].into(), ..NetConfig::default() };
    assert!(Fetcher::new(&bad).is_err());
}

#[tokio::test]
async fn resolve_serves_https_urls_from_the_local_server() {
    let s = start();
    let f = fetcher(&s);
    let url = Url::parse("https://www.paraguayos.org/x/?a=1").expect("URL");
    let page = f.fetch(&url).await.expect("fetched through resolve");
    assert_eq!(page.status, 200);
    assert_eq!(page.final_url, url, "the original https URL is reported");
    assert!(s.saw("www.paraguayos.org", "/x/?a=1"), "{:?}", s.seen);
    // A redirect to another host is reported, not followed.
    let page = f.fetch(&s.url("/to-resolved")).await.expect("redirect response");
    assert_eq!(page.status, 301);
    assert_eq!(page.redirect.as_ref().map(Url::as_str), Some("https://www.paraguayos.org/x/"));
    assert!(!s.saw("www.paraguayos.org", "/x/"));
}

/// Without `[net] allow`, loopback and metadata addresses are refused in every place a
/// connection starts: a URL, a robots.txt redirect; a page redirect to another host is not
/// followed at all.
#[tokio::test]
async fn internal_addresses_are_refused() {
    let s = start();
    let resolve: BTreeMap<String, String> = [("ssrf.test".to_string(), s.addr.to_string())].into();
    let strict = Fetcher::new(&NetConfig { resolve, ..NetConfig::default() }).expect("client");
    let err = strict.fetch(&s.url("/page")).await.expect_err("loopback literal");
    assert!(matches!(err, FetchError::Refused { .. }), "{err}");
    assert_eq!(err.reason(), "address_refused");
    for url in ["http://2130706433:1/", "http://[::1]:1/", "http://0xa9fea9fe/"] {
        let err = strict.fetch(&Url::parse(url).expect("URL")).await.expect_err(url);
        assert!(matches!(err, FetchError::Refused { .. }), "{url}: {err}");
    }
    let localhost = Url::parse(&format!("http://localhost:{}/page", s.addr.port())).expect("URL");
    let err = strict.fetch(&localhost).await.expect_err("localhost resolves to loopback");
    assert!(matches!(err, FetchError::Refused { .. }), "{err}");
    let ssrf = Url::parse("http://ssrf.test/x").expect("URL");
    let err = strict.fetch_robots(&ssrf).await.expect_err("robots.txt redirect to loopback");
    assert!(matches!(err, FetchError::Refused { .. }), "{err}");
    let page = strict.fetch(&Url::parse("http://ssrf.test/to-metadata").expect("URL")).await.expect("a 302");
    assert_eq!(page.status, 302);
    assert!(page.body.is_empty());
    assert_eq!(page.redirect.as_ref().and_then(Url::host_str), Some("169.254.169.254"));
}

/// One byte every 300 ms never trips the 800 ms read timeout; the 1.5 s request deadline
/// ends it.
#[tokio::test]
async fn a_trickling_response_meets_the_request_deadline() {
    let s = start();
    let f = fetcher(&s);
    let start = Instant::now();
    let err = f.fetch(&s.url("/trickle")).await.expect_err("deadline");
    assert!(matches!(err, FetchError::Timeout { .. }), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    let err = f.fetch(&s.url("/brotli")).await.expect_err("br was not asked for");
    assert!(matches!(&err, FetchError::UnrequestedEncoding { encoding, .. } if encoding == "br"), "{err}");
}

/// A body that sends one byte every 300 ms, forever.
struct Trickle(u64);

impl std::io::Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        std::thread::sleep(Duration::from_millis(300));
        self.0 += 1;
        buf[0] = b'a';
        Ok(1)
    }
}

#[tokio::test]
async fn real_site_page_and_robots_through_resolve() {
    let Some(root) = crate::testdata::shared_path("sites/www.paraguayos.org") else { return };
    let slug = "19-aprehendidos-por-venta-de-vehiculos-robados-en-villa-elisa";
    let expected = std::fs::read(root.join(slug).join("index.html")).expect("the shared page reads");
    let s = start();
    let f = fetcher(&s);
    let big = Fetcher::new(&NetConfig { resolve: f.config().resolve.clone(), ..NetConfig::default() }).expect("client");
    let url = Url::parse(&format!("https://www.paraguayos.org/{slug}/")).expect("URL");
    let page = big.fetch(&url).await.expect("real page");
    assert_eq!(page.status, 200);
    assert_eq!(page.body, expected);
    let (status, body) = big.fetch_robots(&url).await.expect("robots.txt answered");
    assert_eq!(status, 200);
    let policy = crate::crawl::robots::RobotsPolicy::parse(&body, "webcorpus");
    assert!(policy.is_allowed(&url));
    let tag = Url::parse("https://www.paraguayos.org/tag/x/").expect("URL");
    assert!(!policy.is_allowed(&tag));
}

#[tokio::test]
async fn robots_fetch_outcomes() {
    let s = start();
    let f = fetcher(&s);
    let (status, body) = f.fetch_robots(&s.url("/any/page?q=1")).await.expect("answered");
    assert_eq!(status, 200);
    assert!(body.contains("Disallow: /private"));
    assert!(s.saw(&s.addr.to_string(), "/robots.txt"));

    let host = |h: &str| Url::parse(&format!("http://{h}/some/page")).expect("URL");
    // Larger than 512 KiB: cut, not refused (the page cap of 1000 bytes does not apply).
    let (status, body) = f.fetch_robots(&host("big.test")).await.expect("answered");
    assert_eq!(status, 200);
    assert_eq!(body.len(), MAX_ROBOTS_BYTES);
    assert!(body.starts_with("User-agent: *\nDisallow: /private\n"));
    // Endless redirects: the last 3xx, no body (RFC 9309: unavailable → allow all).
    assert_eq!(f.fetch_robots(&host("loop.test")).await.expect("answered"), (301, String::new()));
    assert_eq!(f.fetch_robots(&host("down.test")).await.expect("answered").0, 503);
    // Redirects may leave the host.
    let (status, body) = f.fetch_robots(&host("moved.test")).await.expect("answered");
    assert_eq!(status, 200);
    assert!(body.contains("Disallow: /other"));
}

#[test]
fn config_from_toml() {
    let c: NetConfig = toml::from_str(
        "read_timeout = \"5s\"\nmax_body_bytes = 2048\n[resolve]\n\"www.paraguayos.org\" = \"127.0.0.1:8000\"\n",
    )
    .expect("toml");
    assert_eq!(c.read_timeout, Duration::from_secs(5));
    assert_eq!(c.connect_timeout, Duration::from_secs(10));
    assert_eq!(c.max_body_bytes, 2048);
    assert_eq!(c.resolve["www.paraguayos.org"], "127.0.0.1:8000");
    assert_eq!(NetConfig::default().max_body_bytes, 10_485_760);
    assert!(toml::from_str::<NetConfig>("max_body = 1").is_err());
}

/// With recording on, every response of a fetch becomes an exchange for the WARC output: the
/// redirect hops with their bodies, the page with the body the page got, and refused
/// responses (a PDF, an oversized body) with what was read and the truncation marked.
#[tokio::test]
async fn recording_keeps_every_exchange() {
    let server = start();
    let f = fetcher(&server).recording(true);
    let Recorded { result, exchanges } =
        f.fetch_recorded(&server.url("/r/2"), Duration::ZERO, UrlKind::Page, None).await;
    let page = result.expect("fetched");
    assert_eq!(exchanges.len(), 3, "two redirects and the page");
    for (i, ex) in exchanges.iter().enumerate() {
        let head = String::from_utf8_lossy(&ex.response_head);
        let want = if i < 2 { "HTTP/1.1 301 Moved Permanently\r\n" } else { "HTTP/1.1 200 OK\r\n" };
        assert!(head.starts_with(want), "{head}");
        assert!(!head.to_ascii_lowercase().contains("\r\ncontent-length:"), "{head}");
        let request = String::from_utf8_lossy(&ex.request_head);
        assert!(request.starts_with(&format!("GET /r/{} HTTP/1.1\r\nHost: {}\r\n", 2 - i, server.addr)), "{request}");
        assert!(request.ends_with("\r\n\r\n") && request.contains("User-Agent: webcorpus/"), "{request}");
        assert_eq!(ex.ip, Some(server.addr.ip()));
        assert_eq!(ex.truncated, None);
    }
    assert_eq!(exchanges[0].body, b"moved");
    assert_eq!(exchanges[2].body, page.body);
    assert_eq!(exchanges[2].url, page.final_url.as_str());

    let Recorded { result, exchanges } =
        f.fetch_recorded(&server.url("/doc.pdf"), Duration::ZERO, UrlKind::Page, None).await;
    assert!(matches!(result, Err(FetchError::NotHtml { .. })));
    assert_eq!(exchanges.len(), 1);
    assert_eq!((exchanges[0].body.len(), exchanges[0].truncated), (0, Some(Truncation::NotRead)));

    let Recorded { result, exchanges } =
        f.fetch_recorded(&server.url("/big-chunked"), Duration::ZERO, UrlKind::Page, None).await;
    assert!(matches!(result, Err(FetchError::BodyTooLarge { .. })));
    assert_eq!((exchanges[0].body.len(), exchanges[0].truncated), (1000, Some(Truncation::Length)));
    assert!(String::from_utf8_lossy(&exchanges[0].response_head).contains("X-Crawler-transfer-encoding: chunked"));

    let Recorded { result, exchanges } = f.fetch_robots_recorded(&server.url("/")).await;
    assert_eq!(result.expect("robots").0, 200);
    assert_eq!(exchanges.len(), 1);
    assert!(exchanges[0].url.ends_with("/robots.txt"));

    // A sitemap is fetched in its XML media type; a page there is not HTML.
    let xml = f.fetch_recorded(&server.url("/sitemap.xml"), Duration::ZERO, UrlKind::Sitemap, None).await;
    let sitemap = xml.result.expect("a sitemap");
    assert_eq!(sitemap.body, b"<urlset></urlset>");
    // Its body holds 1 MiB of the crawl's source budget until the page is dropped; a page
    // holds none.
    let full = f.sources.available_mib();
    assert_eq!(sitemap.budget.as_ref().map(|b| b.num_permits()), Some(1));
    drop(sitemap);
    assert_eq!(f.sources.available_mib(), full + 1);
    assert!(page.budget.is_none());
    assert!(String::from_utf8_lossy(&xml.exchanges[0].request_head).contains("Accept: application/xml, text/xml"));
    let page = f.fetch_recorded(&server.url("/sitemap.xml"), Duration::ZERO, UrlKind::Page, None).await;
    assert!(matches!(page.result, Err(FetchError::NotHtml { .. })));

    // Not recording: no exchanges are kept.
    let plain = fetcher(&server).fetch_recorded(&server.url("/r/1"), Duration::ZERO, UrlKind::Page, None).await;
    assert!(plain.result.is_ok() && plain.exchanges.is_empty());
}

/// The pauses between redirect hops are politeness, not the server's time: a page reached
/// after three hops paced 80 ms apart took the server a few milliseconds, and its response
/// time says so, while the fetch itself lasted the pauses and more.
#[tokio::test]
async fn the_pauses_between_hops_are_not_response_time() {
    let s = start();
    let f = fetcher(&s);
    let pause = Duration::from_millis(80);
    let began = Instant::now();
    let page = f.fetch_paced(&s.url("/r/3"), pause).await.expect("3 hops");
    let took = began.elapsed();
    assert_eq!(page.final_url, s.url("/r/0"));
    assert!(took >= 3 * pause, "the fetch lasted {took:?}");
    assert!(page.response_time < pause, "response time {:?} of a fetch that lasted {took:?}", page.response_time);
    assert!(page.response_time <= took - 3 * pause, "{:?} of {took:?}", page.response_time);
}
