//! Bad input never stops a crawl: a malformed seed line, an unreachable host, a non-HTML
//! response, a page over the size cap, broken HTML and a wrong charset each give a message or
//! a counter, and the good pages still reach the corpus. A page whose main text is headings
//! alone makes no record.

use crate::support;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use support::site_server::{SiteRoot, SiteServer};
use webcorpus::config::Config;
use webcorpus::crawl::{run, CrawlOptions};
use webcorpus::model::Record;

const GOOD: &str = "The council met on Tuesday evening to discuss the new budget for the public library, \
    and after a long debate the members agreed that the opening hours should be extended in the winter, \
    when the reading rooms are the warmest place in town for many of the older residents.";

fn page(body: &str) -> Vec<u8> {
    format!("<html><head><title>t</title></head><body><div id=nav><a href=/>Home</a></div><p>{body}</p></body></html>")
        .into_bytes()
}

fn bad_site() -> HashMap<String, Vec<u8>> {
    let mut pages = HashMap::new();
    pages.insert(
        "/".to_string(),
        b"<html><body><p>Index</p><a href=/good.html>good</a> <a href=/report>report</a> <a href=/huge.html>huge</a>
        <a href=/broken.html>broken</a> <a href=/latin1.html>latin1</a> <a href=/missing.html>missing</a>
        <a href=/stub.html>stub</a> <a href='http://[::1'>bad url</a> <a href='javascript:void(0)'>js</a></body></html>"
            .to_vec(),
    );
    pages.insert("/good.html".to_string(), page(GOOD));
    pages.insert("/report".to_string(), b"%PDF-1.4 not html".to_vec());
    pages.insert("/huge.html".to_string(), page(&"word ".repeat(60_000)));
    let mut broken = b"<html><body><p>Unclosed <div><table><tr><td>The mayor said the storm damaged more than forty homes in the eastern district and that the repairs would take weeks, because most of the roofs have to be replaced before the next heavy rain arrives, and that the city will pay for the materials of every family that asks for help".to_vec();
    broken.extend_from_slice(&[0, 0xff, 0xfe, b'<', b'/', 0x80]);
    pages.insert("/broken.html".to_string(), broken);
    // Declared UTF-8, written in windows-1252: the é bytes are malformed UTF-8.
    let mut latin1 = b"<html><head><meta charset=\"utf-8\"></head><body><p>The caf\xe9 on the main square reopened this week after the renovation, and the owners said that the \xe9clairs are back on the menu for everybody who missed them during the long and noisy months of the work.</p></body></html>".to_vec();
    latin1.extend_from_slice(b"\n");
    pages.insert("/latin1.html".to_string(), latin1);
    pages.insert("/stub.html".to_string(), stub_page().into_bytes());
    pages
}

/// A real page whose default extraction is its title heading alone: an event stub of the shared
/// Stanford site, its links disabled (this site has no other pages).
fn stub_page() -> String {
    let shared = support::shared_dir("crawl_bad_input").expect("../shared beside the repository");
    let html = std::fs::read_to_string(shared.join("sites/www-cs.stanford.edu/events/adobe-interviews.html"))
        .expect("the shared stub page reads");
    html.replace("href=", "data-href=")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_pages_and_hosts_are_counted_and_the_crawl_goes_on() {
    let mut sites = HashMap::new();
    sites.insert("bad.test".to_string(), SiteRoot::Pages(Arc::new(bad_site())));
    let server = SiteServer::start("127.0.0.1:0", sites);
    let tmp = tempfile::tempdir().unwrap();
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(
        &seeds,
        "http://bad.test/\nnot a url\nftp://bad.test/file\nhttp://unreachable.test/  # closed port\n",
    )
    .unwrap();
    let toml = format!(
        "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"0s\"\nbackoff_base = \"10ms\"\nrobots_give_up = \"1s\"\n\
         [net]\nmax_body_bytes = 100000\nconnect_timeout = \"2s\"\n[net.resolve]\n\"bad.test\" = \"{}\"\n\"unreachable.test\" = \"127.0.0.1:1\"\n",
        tmp.path().join("state").display(),
        tmp.path().join("corpus").display(),
        server.addr
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    let summary = run(CrawlOptions { config, seeds, quiet: true, refresh: false }).await.unwrap();
    let c = &summary.counters;
    assert_eq!(c.discards.get("not_html"), Some(&1), "{c:?}");
    assert_eq!(c.discards.get("body_too_large"), Some(&1), "{c:?}");
    assert_eq!(c.discards.get("http_404"), Some(&1), "{c:?}");
    // The stub's extraction keeps a heading (its headline) and nothing else: no record, counted as no_main_text.
    let stub = webcorpus::extract::pipeline::extract_html(
        &stub_page(),
        webcorpus::extract::ExtractorKind::Default,
        None,
        &Default::default(),
    )
    .unwrap();
    assert!(
        (stub.headline.is_some() || !stub.paragraphs.is_empty()) && !stub.has_running_text(),
        "precondition: {:?} {:?}",
        stub.headline,
        stub.paragraphs
    );
    assert!(c.discards.get("no_main_text").is_some_and(|&n| n >= 1), "{c:?}");
    let state = webcorpus::store::open_state_dir(&tmp.path().join("state")).unwrap();
    assert!(state.host("unreachable.test").unwrap().unwrap().dead, "the unreachable host is given up");
    let corpus = std::fs::read_to_string(tmp.path().join("corpus/corpus.jsonl")).unwrap();
    let records: Vec<Record> = corpus.lines().map(|l| Record::from_json(l).unwrap()).collect();
    let text_of =
        |path: &str| records.iter().find(|r| r.url.ends_with(path)).map(|r| r.text.clone()).unwrap_or_default();
    assert!(text_of("/good.html").contains("opening hours"), "{records:?}");
    assert!(text_of("/broken.html").contains("storm damaged"), "broken HTML is repaired, not dropped: {records:?}");
    assert!(text_of("/latin1.html").contains("reopened this week"), "a wrong charset loses only the bad bytes");
    assert!(!records.iter().any(|r| r.url.ends_with("/stub.html")), "a headings-only page has no record");
}

/// A crawl refused at its start says why with its documented exit status and leaves no state
/// or corpus folders behind: a seeds file without a usable URL (exit 1, with the line's
/// warning), a filesystem below `min_free_space` (the disk guard's 75), a directory that cannot
/// be written (here under a plain file; a read-only mount takes the same path).
#[test]
fn a_refused_crawl_says_why_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plain-file"), "").unwrap();
    let run = |seeds: &str, state: &str, extra: &str| {
        std::fs::write(dir.path().join("seeds.txt"), seeds).unwrap();
        let toml =
            format!("[crawl]\nstate_dir = \"{0}/{state}\"\nout_dir = \"{0}/corpus\"\n{extra}", dir.path().display());
        std::fs::write(dir.path().join("config.toml"), toml).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_webcorpus"))
            .args(["crawl", "--quiet", "--seeds"])
            .arg(dir.path().join("seeds.txt"))
            .arg("--config")
            .arg(dir.path().join("config.toml"))
            .output()
            .unwrap();
        let left: Vec<_> = ["state", "corpus"].into_iter().filter(|d| dir.path().join(d).exists()).collect();
        assert!(left.is_empty(), "{left:?} left behind");
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run("www.example.org\n", "state", "");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no valid seed URL") && err.contains("write it as http://www.example.org"), "{err}");
    let (code, err) = run("http://127.0.0.1:9/\n", "state", "min_free_space = 9223372036854775807\n");
    assert_eq!(code, Some(75), "{err}");
    assert!(err.contains("less than min_free_space"), "{err}");
    let (code, err) = run("http://127.0.0.1:9/\n", "plain-file/state", "");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot write in") && err.contains("plain-file/state"), "{err}");
}

/// Every line a crawl prints is bounded (issue 52): a 10 MB seed URL on a live host (whose
/// server refuses the request line: the HTTP client's error repeats the URL whole) and one on
/// a host that does not resolve are warned about, failed, given up and summarised in lines of
/// at most 4,096 bytes and a cut mark.
#[test]
fn ten_megabyte_seed_urls_give_short_lines() {
    let dir = tempfile::tempdir().unwrap();
    let server =
        SiteServer::start("127.0.0.1:0", [("long.test".to_string(), SiteRoot::Pages(Arc::new(HashMap::new())))].into());
    let tail = "a".repeat(10_000_000);
    std::fs::write(dir.path().join("seeds.txt"), format!("http://long.test/{tail}\nhttp://long.invalid/{tail}\n"))
        .unwrap();
    let toml = support::loopback_config(
        server.addr,
        &["long.test"],
        &format!(
            "[crawl]\nstate_dir = \"{0}/state\"\nout_dir = \"{0}/corpus\"\nmin_free_space = 0\n\
             [politeness]\nmin_delay = \"0s\"\nrobots_retry = \"100ms\"\nbackoff_base = \"10ms\"\n",
            dir.path().display()
        ),
    );
    std::fs::write(dir.path().join("config.toml"), toml).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .args(["crawl", "--seeds"])
        .arg(dir.path().join("seeds.txt"))
        .arg("--config")
        .arg(dir.path().join("config.toml"))
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(i32::from(webcorpus::crawl::EXIT_HOSTS_PENDING)), "{stdout}");
    assert!(stdout.contains("long.invalid: name not resolved"), "{stdout}");
    assert!(stdout.contains("1 failed") || stdout.contains("pages without a record"), "{stdout}");
    for line in stdout.lines().chain(stderr.lines()) {
        assert!(line.len() <= webcorpus::logging::MAX_LOG_LINE_BYTES + 32, "a line of {} bytes", line.len());
    }
}
