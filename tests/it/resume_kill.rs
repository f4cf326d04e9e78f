//! Crash safety: a crawl killed with SIGKILL at random moments, or aborted at chosen points
//! (inside a group commit, between the corpus sync and the store batch; when a learned model
//! arrives), and resumed each time ends with exactly the records of an uninterrupted crawl,
//! none twice (ARCHITECTURE.md, "Crash safety"). The store is reopened by every resumed
//! process.

use crate::support;

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};
use support::site_server::{shared_sites, SiteServer};

const SITES: [&str; 2] = ["hidemiyoshi.jp", "www-cs.stanford.edu"];

/// The crawl of [`SITES`] served at `addr`, with the politeness delay `min_delay`.
fn write_setup(dir: &Path, addr: std::net::SocketAddr, min_delay: &str) {
    std::fs::write(dir.join("seeds.txt"), "http://hidemiyoshi.jp/blog/\nhttp://www-cs.stanford.edu/index.html\n")
        .unwrap();
    let toml = support::loopback_config(
        addr,
        &SITES,
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"{min_delay}\"\n",
            dir.join("state").display(),
            dir.join("corpus").display()
        ),
    );
    std::fs::write(dir.join("config.toml"), toml).unwrap();
}

/// URLs of the corpus, failing on a record or an unparsable line written twice.
fn corpus_urls(dir: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(dir.join("corpus/corpus.jsonl")).unwrap();
    let mut urls = BTreeSet::new();
    let mut paragraphs = HashSet::new();
    for line in text.lines() {
        let r = webcorpus::model::Record::from_json(line).expect("every line a whole record");
        assert!(urls.insert(r.url.clone()), "record written twice: {}", r.url);
        for p in r.paragraphs {
            assert!(paragraphs.insert(p.text.clone()), "paragraph twice: {:?}", p.text);
        }
    }
    urls
}

/// The WARC output of a killed and resumed crawl: every record readable (none torn), every
/// URL's response recorded, none more often than in the uninterrupted crawl (none written
/// twice), and
/// every corpus record's response record present.
fn same_warc_responses(reference: &Path, killed: &Path) {
    use support::warc::read_records;
    let count = |dir: &Path| {
        let mut by_url: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let entries = read_records(&dir.join("corpus/warc"));
        for e in entries.iter().filter(|e| e.kind == "response") {
            *by_url.entry(e.target.clone()).or_default() += 1;
        }
        (by_url, entries.into_iter().map(|e| e.id).collect::<HashSet<_>>())
    };
    let (expected, _) = count(reference);
    let (found, ids) = count(killed);
    assert!(!expected.is_empty());
    for (url, n) in &found {
        assert!(*n <= expected.get(url).copied().unwrap_or(0), "{url}: {n} response records");
    }
    let lost: Vec<_> = expected.keys().filter(|u| !found.contains_key(*u)).collect();
    assert!(lost.is_empty(), "responses not recorded after the kills: {lost:?}");
    let text = std::fs::read_to_string(killed.join("corpus/corpus.jsonl")).unwrap();
    for line in text.lines() {
        let r = webcorpus::model::Record::from_json(line).unwrap();
        assert!(ids.contains(r.warc_record_id.as_deref().unwrap()), "{}: its response record is missing", r.url);
    }
}

/// Deterministic kill points through the committer's `WEBCORPUS_DIE_AT` hook: each run dies
/// at its point (the process aborts, as a kill -9 would stop it), the next resumes. A model
/// that arrives in a run that then dies is learned again by the next, so the two learning
/// points come before the hosts' models are stored; a 5 ms politeness delay makes the crawl
/// last many group commits (at 0 s a build fast enough finished it before the later points).
#[test]
fn abort_inside_group_commits_and_during_learning_then_resume_gives_the_uninterrupted_corpus() {
    let Some(shared) = support::shared_dir("abort_resume") else { return };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let reference = tempfile::tempdir().unwrap();
    write_setup(reference.path(), server.addr, "5ms");
    assert!(support::crawl_command(reference.path()).status().unwrap().success());
    let expected = corpus_urls(reference.path());

    let killed = tempfile::tempdir().unwrap();
    write_setup(killed.path(), server.addr, "5ms");
    let mut died = 0;
    for point in ["group:2", "learned:1", "learned:1", "group:5", "group:1", "group:9"] {
        let status = support::crawl_command(killed.path()).env("WEBCORPUS_DIE_AT", point).status().unwrap();
        if !status.success() {
            died += 1;
        }
    }
    assert!(died >= 4, "only {died} runs reached their kill point");
    assert!(support::crawl_command(killed.path()).status().unwrap().success(), "the final resume finishes");
    let resumed = corpus_urls(killed.path());
    let missing: Vec<_> = expected.difference(&resumed).collect();
    let extra: Vec<_> = resumed.difference(&expected).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, extra {extra:?}");
    same_warc_responses(reference.path(), killed.path());
}

#[test]
fn sigkill_at_random_moments_then_resume_gives_the_uninterrupted_corpus() {
    let Some(shared) = support::shared_dir("sigkill_resume") else { return };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));

    let reference = tempfile::tempdir().unwrap();
    write_setup(reference.path(), server.addr, "0s");
    let start = Instant::now();
    assert!(support::crawl_command(reference.path()).status().unwrap().success());
    let full_run = start.elapsed();
    let expected = corpus_urls(reference.path());
    assert!(expected.len() > 100, "reference corpus has {} records", expected.len());

    let killed = tempfile::tempdir().unwrap();
    write_setup(killed.path(), server.addr, "0s");
    let mut seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    eprintln!("kill schedule seed {seed}, uninterrupted run {full_run:?}");
    let mut kills = 0;
    for _ in 0..6 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let after = Duration::from_millis(200 + seed % (full_run.as_millis() as u64 / 3).max(300));
        let mut child = support::crawl_command(killed.path()).spawn().unwrap();
        std::thread::sleep(after);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        child.wait().unwrap();
    }
    assert!(kills >= 3, "only {kills} runs were killed before they finished");
    assert!(support::crawl_command(killed.path()).status().unwrap().success(), "the final resume finishes");
    let resumed = corpus_urls(killed.path());
    let missing: Vec<_> = expected.difference(&resumed).collect();
    let extra: Vec<_> = resumed.difference(&expected).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, extra {extra:?}");
    same_warc_responses(reference.path(), killed.path());
}
