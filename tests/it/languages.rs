//! Languages while crawling: `[crawl] languages` keeps only records in the target languages
//! (the discard `wrong_language`), and SpiderLing's host-yield pruning (`[crawl] min_yield`)
//! stops crawling a host that gives no text in them. Crawls the Japanese blog and the mostly
//! English wiki of `../shared/sites` over loopback with `languages = ["ja"]`, and reads the
//! running crawl's status with `webcorpus stats --json` (the store is locked meanwhile).

use crate::support;

use std::path::Path;
use support::site_server::{shared_sites, SiteServer};
use webcorpus::config::Config;
use webcorpus::crawl::{run, CrawlOptions};
use webcorpus::model::Record;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn language_filter_yield_pruning_and_live_stats() {
    let Some(shared) = support::shared_dir("language_filter_yield_pruning_and_live_stats") else { return };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let tmp = tempfile::tempdir().unwrap();
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(&seeds, "http://hidemiyoshi.jp/blog/\nhttp://awesomewm.org/wiki/\n").unwrap();
    let state_dir = tmp.path().join("state");
    let toml = support::loopback_config(
        server.addr,
        &["hidemiyoshi.jp", "awesomewm.org"],
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\nlanguages = [\"ja\"]\nmin_yield = 0.005\n\
             yield_min_pages = 50\n[politeness]\nmin_delay = \"20ms\"\n[warc]\nenabled = false\n",
            state_dir.display(),
            tmp.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    let crawl = tokio::spawn(run(CrawlOptions { config, seeds, quiet: true, refresh: false }));

    // While the crawl runs, `stats --json` answers from its status snapshot.
    let bin = env!("CARGO_BIN_EXE_webcorpus");
    let mut live = None;
    while !crawl.is_finished() {
        if let Ok(snap) = webcorpus::crawl::snapshot::read(&state_dir) {
            if snap.running {
                let out = std::process::Command::new(bin)
                    .args(["stats", "--json", "--state"])
                    .arg(&state_dir)
                    .output()
                    .unwrap();
                if out.status.success() {
                    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                    if json["snapshot"]["running"] == true {
                        live = Some(json);
                        break;
                    }
                }
            }
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let summary = crawl.await.unwrap().unwrap();
    let live = live.expect("stats --json read the running crawl");
    assert!(live["counters"]["fetched"].as_u64().unwrap() > 0);
    assert!(live["hosts"].as_array().unwrap().iter().any(|h| h["host"] == "hidemiyoshi.jp"));
    let text = std::process::Command::new(bin).args(["stats", "--state"]).arg(&state_dir).output().unwrap();
    assert!(text.status.success(), "stats after the crawl: {}", String::from_utf8_lossy(&text.stderr));
    // A host the state does not hold is an error, not an empty report.
    let nosuch =
        std::process::Command::new(bin).args(["stats", "--host", "nosuch.example", "--state"]).arg(&state_dir).output();
    let nosuch = nosuch.unwrap();
    assert!(!nosuch.status.success() && String::from_utf8_lossy(&nosuch.stderr).contains("not in the crawl state"));

    // Only Japanese records; the others counted as wrong_language.
    let corpus = std::fs::read_to_string(tmp.path().join("corpus/corpus.jsonl")).unwrap();
    let records: Vec<Record> = corpus.lines().map(|l| Record::from_json(l).unwrap()).collect();
    assert!(records.len() >= 50, "{} records", records.len());
    assert!(records.iter().all(|r| r.lang.as_deref() == Some("ja")));
    // `export --lang` takes the records' codes (and ISO 639-3 ones); a language name is refused.
    let export = |lang: &str| {
        std::process::Command::new(bin)
            .arg("export")
            .arg(tmp.path().join("corpus/corpus.jsonl"))
            .args(["--lang", lang, "--out", "-"])
            .output()
            .unwrap()
    };
    let named = export("japanese");
    assert!(!named.status.success() && String::from_utf8_lossy(&named.stderr).contains("not a language code"));
    for code in ["ja", "jpn"] {
        let out = export(code);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), records.len(), "--lang {code}");
    }
    assert!(summary.counters.discards.get("wrong_language").copied().unwrap_or(0) >= 20, "{:?}", summary.counters);

    // Onion shingles Japanese by character: the excerpt of a post on the blog's day-archive
    // pages and the post's paragraph are near-duplicates (one is dropped), not two one-"word"
    // paragraphs of different hashes (143 of the blog's paragraphs began another's text so).
    let paragraphs: Vec<&str> = records.iter().flat_map(|r| r.text.split("\n\n")).collect();
    let repeated = paragraphs
        .iter()
        .filter(|p| p.chars().count() >= 60)
        .filter(|p| {
            let start: String = p.chars().take(50).collect();
            paragraphs.iter().filter(|o| o.contains(start.as_str())).count() > 1
        })
        .count();
    assert!(repeated <= 5, "{repeated} of {} paragraphs begin another paragraph's text", paragraphs.len());

    // The wiki gives no Japanese: pruned after its sample, long before its 573 pages; the blog
    // keeps its yield and is crawled to the end.
    let state = webcorpus::store::open_state_dir(&state_dir).unwrap();
    let wiki = state.host("awesomewm.org").unwrap().unwrap();
    let blog = state.host("hidemiyoshi.jp").unwrap().unwrap();
    eprintln!(
        "wiki: fetched {} yield {:?} pruned {}; blog: fetched {} yield {:?}",
        wiki.fetched,
        wiki.yield_rate(),
        wiki.pruned,
        blog.fetched,
        blog.yield_rate()
    );
    assert!(wiki.pruned && wiki.written == 0);
    assert!(wiki.fetched < 300, "pruned early: {} pages", wiki.fetched);
    assert!(!blog.pruned && blog.yield_rate().unwrap() > 0.005);
    assert_eq!(summary.counters.hosts_pruned, 1);
    let json = webcorpus::crawl::stats::report_json(&state, None).unwrap();
    assert_eq!(json["counters"]["records"], records.len() as u64);
    let final_snap = webcorpus::crawl::snapshot::read(&state_dir).unwrap();
    assert!(!final_snap.running);
    assert_eq!(final_snap.counters, state.counters().unwrap());
}
