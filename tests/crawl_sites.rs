//! End to end: crawl the five real sites of `../shared/sites` over loopback and check the
//! crawler's contract — every reachable page fetched once, robots.txt Disallow rules and
//! per-host delays honoured, one model learned per site, no paragraph twice, and the
//! template lines repeated on every page of a site absent from the corpus.

mod support;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use support::site_server::{shared_sites, SiteServer};
use webcorpus::config::Config;
use webcorpus::crawl::{run, CrawlOptions};
use webcorpus::html::{decode_html, segment, Document};
use webcorpus::model::Record;
use webcorpus::store::{CrawlState, HostPhase, SledStore};

const HOSTS: [&str; 5] =
    ["www.freepressokc.com", "www.paraguayos.org", "hidemiyoshi.jp", "awesomewm.org", "www-cs.stanford.edu"];
const MIN_DELAY_MS: u64 = 20;

fn html_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Block texts present on every one of (up to) 30 pages of a site: its template lines,
/// found independently of the crawler's learning.
fn template_lines(site: &Path) -> HashSet<String> {
    let files = html_files(site);
    let step = (files.len() / 30).max(1);
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut pages = 0;
    for f in files.iter().step_by(step).take(30) {
        let bytes = std::fs::read(f).unwrap();
        let doc = Document::parse(&decode_html(&bytes, None).text);
        let texts: HashSet<String> = segment(&doc).into_iter().map(|b| b.text).collect();
        for t in texts {
            *counts.entry(t).or_default() += 1;
        }
        pages += 1;
    }
    counts.into_iter().filter(|(t, n)| *n == pages && t.chars().count() >= 4).map(|(t, _)| t).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_five_real_sites_over_loopback() {
    let Some(shared) = support::shared_dir("crawl_five_real_sites_over_loopback") else { return };
    let sites = shared.join("sites");
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&sites));
    let tmp = tempfile::tempdir().unwrap();
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(
        &seeds,
        "# the five sites\nhttp://www.freepressokc.com/index.html\nhttps://www.paraguayos.org/\nhttp://hidemiyoshi.jp/blog/\nhttp://awesomewm.org/wiki/\nhttp://www-cs.stanford.edu/index.html\nnot a url\n",
    )
    .unwrap();
    let mut hosts = HOSTS.to_vec();
    hosts.push("paraguayos.org");
    let toml = support::loopback_config(
        server.addr,
        &hosts,
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"{MIN_DELAY_MS}ms\"\n",
            tmp.path().join("state").display(),
            tmp.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    let summary = run(CrawlOptions { config, seeds, quiet: true }).await.unwrap();
    assert!(!summary.interrupted);
    assert_eq!(summary.queued, 0, "the frontier is empty at the end");

    let requests = server.requests();
    // Every page fetched once: no (host, path) requested twice.
    let mut seen = HashSet::new();
    for r in &requests {
        assert!(seen.insert((r.host.clone(), r.path.clone())), "requested twice: {} {}", r.host, r.path);
        assert!(r.user_agent.starts_with("webcorpus/"), "user agent {}", r.user_agent);
    }
    // Every reachable page: (nearly) every HTML file of each snapshot was served with 200.
    for host in HOSTS {
        let files = html_files(&sites.join(host)).len();
        let ok = requests.iter().filter(|r| r.host == host && r.status == 200 && r.path != "/robots.txt").count();
        eprintln!("{host}: {ok} pages served of {files} HTML files");
        let disallowed = if host == "www.paraguayos.org" { 3 } else { 0 };
        assert!(ok + disallowed + files / 50 >= files, "{host}: only {ok} of {files} pages fetched");
        assert!(ok <= files, "{host}: {ok} > {files}");
    }
    // robots.txt: fetched first, Disallow rules honoured.
    for host in HOSTS {
        let first = requests.iter().find(|r| r.host == host).unwrap();
        assert_eq!(first.path, "/robots.txt", "{host}: robots.txt comes first");
    }
    for r in requests.iter().filter(|r| r.host == "www.paraguayos.org") {
        for bad in ["/category/", "/tag/", "/page/", "/wp-admin/", "?"] {
            assert!(!r.path.contains(bad), "robots.txt disallows {}", r.path);
        }
    }
    // Politeness: one request at a time per host, at least min_delay apart (our user agent
    // is not in the robots.txt group that has a Crawl-delay).
    for host in HOSTS {
        let times: Vec<_> = requests.iter().filter(|r| r.host == host).map(|r| r.at).collect();
        for w in times.windows(2) {
            let gap = w[1].duration_since(w[0]);
            assert!(gap >= Duration::from_millis(MIN_DELAY_MS), "{host}: requests {gap:?} apart");
        }
    }
    // One model learned per site.
    let state = CrawlState::open(Arc::new(SledStore::open(&tmp.path().join("state")).unwrap())).unwrap();
    for host in HOSTS {
        let rec = state.host(host).unwrap().unwrap();
        assert_eq!(rec.phase, HostPhase::Learned, "{host}");
        assert!(state.model::<webcorpus::domain::DomainModel>(host).unwrap().is_some(), "{host}: model stored");
        assert!(rec.written > 0, "{host}: records written");
    }
    // No paragraph twice; template lines absent.
    let corpus = std::fs::read_to_string(tmp.path().join("corpus/corpus.jsonl")).unwrap();
    let records: Vec<Record> = corpus.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len() as u64, summary.counters.records);
    let mut paragraphs = HashSet::new();
    let mut urls = HashSet::new();
    for r in &records {
        assert!(urls.insert(r.url.clone()), "record twice: {}", r.url);
        for p in &r.paragraphs {
            assert!(paragraphs.insert(p.text.clone()), "paragraph twice: {:?} ({})", p.text, r.url);
        }
    }
    for host in HOSTS {
        let template = template_lines(&sites.join(host));
        assert!(!template.is_empty(), "{host}: the test found no template lines");
        let host_paragraphs: HashSet<&str> = records
            .iter()
            .filter(|r| r.host == host)
            .flat_map(|r| r.paragraphs.iter().map(|p| p.text.as_str()))
            .collect();
        let leaked: Vec<&String> = template.iter().filter(|t| host_paragraphs.contains(t.as_str())).collect();
        assert!(leaked.is_empty(), "{host}: template lines in the corpus: {leaked:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_crawl_delay_is_honoured() {
    let Some(shared) = support::shared_dir("robots_crawl_delay_is_honoured") else { return };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let tmp = tempfile::tempdir().unwrap();
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(&seeds, "https://www.paraguayos.org/\n").unwrap();
    // msnbot is in the robots.txt group with `Crawl-delay: 30`; the test caps the honoured
    // delay at 1 s (`max_crawl_delay`, 300 s by default) to keep it short.
    let toml = support::loopback_config(
        server.addr,
        &["www.paraguayos.org"],
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\nmax_pages_per_host = 3\n[politeness]\nmin_delay = \"10ms\"\nmax_crawl_delay = \"1s\"\n[net]\nuser_agent = \"msnbot/2.0 (+http://example.test/bot)\"\n",
            tmp.path().join("state").display(),
            tmp.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    run(CrawlOptions { config, seeds, quiet: true }).await.unwrap();
    let times: Vec<_> = server.requests().iter().map(|r| r.at).collect();
    assert!(times.len() >= 3, "robots.txt and at least two pages: {}", times.len());
    for w in times.windows(2) {
        let gap = w[1].duration_since(w[0]);
        assert!(gap >= Duration::from_millis(1000), "Crawl-delay not honoured: {gap:?}");
    }
}
