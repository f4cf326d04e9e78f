//! URL sources besides links: a crawl of two local sites built from real pages of
//! `../shared/sites` finds the pages that only a sitemap or a feed lists — through robots.txt's
//! `Sitemap:` line, a sitemap index and a gzip sitemap, through `/sitemap.xml` on a host whose
//! robots.txt names none, and through the RSS feed its seed page announces — while robots.txt
//! still keeps the crawler off a disallowed page a sitemap lists.

use crate::support;

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use support::site_server::{SiteRoot, SiteServer};
use webcorpus::config::Config;
use webcorpus::crawl::{run, CrawlOptions};
use webcorpus::model::Record;

/// Five article pages of the shared Free Press site (their own links lead nowhere here).
fn articles(shared: &Path) -> Vec<Vec<u8>> {
    support::freepress_articles(shared, 5).iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn put(dir: &Path, path: &str, body: &[u8]) {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, body).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemaps_and_feeds_find_pages_no_link_reaches() {
    let Some(shared) = support::shared_dir("sitemaps_and_feeds_find_pages_no_link_reaches") else { return };
    let pages = articles(&shared);
    assert_eq!(pages.len(), 5);
    let tmp = tempfile::tempdir().unwrap();
    let news = tmp.path().join("news");
    let plain = tmp.path().join("plain");
    put(
        &news,
        "index.html",
        b"<html><head><title>News</title>\
          <link rel=\"alternate\" type=\"application/rss+xml\" title=\"Feed\" href=\"/feed.xml\"></head>\
          <body><p>Front page of the local news site, with one link.</p><a href=\"/linked.html\">linked</a></body></html>",
    );
    put(&news, "linked.html", &pages[0]);
    put(&news, "only-in-sitemap/b.html", &pages[1]);
    put(&news, "only-in-feed/c.html", &pages[2]);
    put(&news, "private/e.html", &pages[3]);
    put(&news, "robots.txt", b"User-agent: *\nDisallow: /private/\n\nSitemap: http://news.test/sitemaps/index.xml\n");
    put(
        &news,
        "sitemaps/index.xml",
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
          <sitemap><loc>http://news.test/sitemaps/pages.xml.gz</loc></sitemap></sitemapindex>",
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
          <url><loc>http://news.test/only-in-sitemap/b.html</loc><lastmod>2026-11-01</lastmod></url>\
          <url><loc>http://news.test/private/e.html</loc></url>\
          <url><loc>http://elsewhere.test/out-of-scope.html</loc></url></urlset>",
    )
    .unwrap();
    put(&news, "sitemaps/pages.xml.gz", &gz.finish().unwrap());
    put(
        &news,
        "feed.xml",
        b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>News</title>\
          <item><title>C</title><link>http://news.test/only-in-feed/c.html</link></item></channel></rss>",
    );
    put(&plain, "index.html", b"<html><body><p>A site with a sitemap at the usual place.</p></body></html>");
    put(&plain, "robots.txt", b"User-agent: *\nAllow: /\n");
    put(
        &plain,
        "sitemap.xml",
        b"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>/deep/d.html</loc></url></urlset>",
    );
    put(&plain, "deep/d.html", &pages[4]);

    let sites = [("news.test", news), ("plain.test", plain)]
        .into_iter()
        .map(|(h, d)| (h.to_string(), SiteRoot::Dir(d)))
        .collect();
    let server = SiteServer::start("127.0.0.1:0", sites);
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(&seeds, "http://news.test/index.html\nhttp://plain.test/index.html\n").unwrap();
    let toml = support::loopback_config(
        server.addr,
        &["news.test", "plain.test", "elsewhere.test"],
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"0s\"\n",
            tmp.path().join("state").display(),
            tmp.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    let summary = run(CrawlOptions { config, seeds, quiet: true, refresh: false }).await.unwrap();

    let requests: HashSet<(String, String)> = server.requests().into_iter().map(|r| (r.host, r.path)).collect();
    let asked = |host: &str, path: &str| requests.contains(&(host.to_string(), path.to_string()));
    for (host, path) in [
        ("news.test", "/sitemaps/index.xml"),
        ("news.test", "/sitemaps/pages.xml.gz"),
        ("news.test", "/feed.xml"),
        ("news.test", "/only-in-sitemap/b.html"),
        ("news.test", "/only-in-feed/c.html"),
        ("plain.test", "/sitemap.xml"),
        ("plain.test", "/deep/d.html"),
    ] {
        assert!(asked(host, path), "{host}{path} was not fetched: {requests:?}");
    }
    assert!(!asked("news.test", "/private/e.html"), "robots.txt disallows it");
    assert!(!asked("news.test", "/sitemap.xml"), "robots.txt names the sitemap");
    assert!(!requests.iter().any(|(h, _)| h == "elsewhere.test"), "out of scope");
    let c = &summary.counters;
    assert_eq!((c.sitemaps, c.feeds, c.source_urls), (3, 1, 5), "{c:?}");

    let corpus = std::fs::read_to_string(tmp.path().join("corpus/corpus.jsonl")).unwrap();
    let urls: HashSet<String> = corpus.lines().map(|l| serde_json::from_str::<Record>(l).unwrap().url).collect();
    for url in [
        "http://news.test/only-in-sitemap/b.html",
        "http://news.test/only-in-feed/c.html",
        "http://plain.test/deep/d.html",
    ] {
        assert!(urls.contains(url), "{url} has no record: {urls:?}");
    }
}

/// Sitemap memory across hosts (issue 52): 16 hosts each serving a 45 MB sitemap (50,000
/// URLs of 900 bytes, the protocol's most) are crawled by the binary in a child whose data
/// segment is limited to [`SITEMAP_LIMIT_KIB`] (`ulimit -d`, `RLIMIT_DATA`: heap and private
/// mappings; the address-space limit would count the allocator's and the threads' reserved
/// space). Each sitemap alone is within the 50 MB cap; held at once, with their URL lists, they
/// would take about 1.5 GB. The bodies in flight share one budget and are parsed as a stream
/// of XML events, so the crawl reads every sitemap and ends normally. (Peak RSS measured
/// with `/usr/bin/time -v`: 486, 496, 527 and 517 MB for 4, 12, 24 and 48 such hosts.)
#[test]
fn the_sitemaps_of_many_hosts_are_read_under_a_memory_limit() {
    let Some(shared) = support::shared_dir("the_sitemaps_of_many_hosts_are_read_under_a_memory_limit") else { return };
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    put(&site, "index.html", &articles(&shared)[0]);
    put(&site, "robots.txt", b"User-agent: *\nAllow: /\n");
    let mut sitemap = Vec::with_capacity(46 << 20);
    sitemap
        .extend_from_slice(b"<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
    let tail = "x".repeat(880);
    for i in 0..50_000 {
        writeln!(sitemap, "<url><loc>/p/{i:06}/{tail}</loc></url>").unwrap();
    }
    sitemap.extend_from_slice(b"</urlset>\n");
    assert!(sitemap.len() > 44_000_000 && (sitemap.len() as u64) < 50 * 1024 * 1024, "{}", sitemap.len());
    put(&site, "sitemap.xml", &sitemap);
    drop(sitemap);

    let hosts: Vec<String> = (0..16).map(|i| format!("s{i}.test")).collect();
    let server =
        SiteServer::start("127.0.0.1:0", hosts.iter().map(|h| (h.clone(), SiteRoot::Dir(site.clone()))).collect());
    let seeds: String = hosts.iter().map(|h| format!("http://{h}/index.html\n")).collect();
    std::fs::write(tmp.path().join("seeds.txt"), seeds).unwrap();
    let host_refs: Vec<&str> = hosts.iter().map(String::as_str).collect();
    let toml = support::loopback_config(
        server.addr,
        &host_refs,
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\nmax_pages_per_host = 2\nmin_free_space = 0\n\
             [warc]\nenabled = false\n[politeness]\nmin_delay = \"0s\"\n",
            tmp.path().join("state").display(),
            tmp.path().join("corpus").display()
        ),
    );
    std::fs::write(tmp.path().join("config.toml"), toml).unwrap();
    let limit = SITEMAP_LIMIT_KIB;
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -d {limit} && exec \"$0\" crawl --seeds \"$1\" --config \"$2\" --quiet"))
        .arg(env!("CARGO_BIN_EXE_webcorpus"))
        .arg(tmp.path().join("seeds.txt"))
        .arg(tmp.path().join("config.toml"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "under {limit} KiB:\n{stdout}\n{stderr}");
    assert!(stdout.contains("16 sitemaps and 0 feeds read"), "{stdout}");
}

/// The crawl's data-segment limit in the sitemap test, KiB.
const SITEMAP_LIMIT_KIB: u64 = 1024 * 1024;
