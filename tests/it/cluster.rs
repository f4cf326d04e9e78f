//! One crawl on three workers through Redis (`docs/cluster.md`): three
//! `webcorpus crawl --cluster` processes over three of the shared sites served on loopback,
//! against a single-process crawl of the same sites. Checked: every URL fetched once across
//! the workers (the server's log) with robots.txt and the per-host delay honoured, the union
//! of the workers' corpora holding the single crawl's URLs (of a host that changed owner
//! mid-crawl, which its new owner samples and learns again: every one fetched), none twice,
//! and no duplicate paragraph once `webcorpus dedup` has merged them in worker order; then the
//! same with one worker killed with SIGKILL and restarted, and with one killed and left dead
//! until its partitions have moved (restarted only after the crawl ended, to cut its corpus
//! back).

use crate::support;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::redis_server::RedisServer;
use support::site_server::{shared_sites, RequestLog, SiteServer};
use webcorpus::cluster::{partition_of, rendezvous_owner};
use webcorpus::model::Record;

const SEEDS: [&str; 3] =
    ["http://hidemiyoshi.jp/blog/", "https://www.paraguayos.org/", "http://www-cs.stanford.edu/index.html"];
const HOSTS: [&str; 3] = ["hidemiyoshi.jp", "www.paraguayos.org", "www-cs.stanford.edu"];
const WORKERS: [&str; 3] = ["w1", "w2", "w3"];
const MIN_DELAY_MS: u64 = 20;
const PARTITIONS: u32 = 64;
/// A worker that hangs fails the test after this (its processes are killed).
const DEADLINE: Duration = Duration::from_secs(600);

fn write_setup(dir: &Path, addr: std::net::SocketAddr, cluster: Option<(&str, &str)>) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("seeds.txt"), SEEDS.join("\n")).unwrap();
    let mut hosts = HOSTS.to_vec();
    hosts.push("paraguayos.org");
    let cluster = match cluster {
        Some((redis, worker)) => format!(
            "[cluster]\nredis = \"{redis}\"\nname = \"test\"\nworker_id = \"{worker}\"\npartitions = {PARTITIONS}\nheartbeat = \"200ms\"\ntimeout = \"2s\"\n"
        ),
        None => String::new(),
    };
    let toml = support::loopback_config(
        addr,
        &hosts,
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"{MIN_DELAY_MS}ms\"\n{cluster}",
            dir.join("state").display(),
            dir.join("corpus").display()
        ),
    );
    std::fs::write(dir.join("config.toml"), toml).unwrap();
}

fn crawl(dir: &Path) -> Child {
    support::crawl_command(dir)
        .stderr(std::fs::File::create(dir.join("stderr.log")).unwrap())
        .spawn()
        .expect("start webcorpus crawl")
}

/// Wait for every child; a watchdog kills them all after [`DEADLINE`].
fn wait_all(children: Vec<Child>) -> Vec<std::process::ExitStatus> {
    wait_all_within(children, DEADLINE)
}

/// Wait for every child; a watchdog kills them all (SIGKILL: no exit code) after `deadline`.
fn wait_all_within(children: Vec<Child>, deadline: Duration) -> Vec<std::process::ExitStatus> {
    let pids: Vec<u32> = children.iter().map(Child::id).collect();
    let finished = Arc::new(Mutex::new(false));
    let flag = finished.clone();
    std::thread::spawn(move || {
        std::thread::sleep(deadline);
        if !*flag.lock().unwrap() {
            for pid in pids {
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            }
        }
    });
    let statuses = children.into_iter().map(|mut c| c.wait().unwrap()).collect();
    *finished.lock().unwrap() = true;
    statuses
}

/// The records of a corpus, in file order.
fn records(dir: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(dir.join("corpus/corpus.jsonl")).unwrap_or_default();
    text.lines().map(|l| Record::from_json(l).expect("every line a whole record")).collect()
}

/// The worker that owns `host` when all three are live.
fn owner(host: &str) -> &'static str {
    owner_among(host, &WORKERS)
}

/// The worker that owns `host` when `live` are live.
fn owner_among(host: &str, live: &[&'static str]) -> &'static str {
    let workers: Vec<String> = live.iter().map(|w| w.to_string()).collect();
    let owner = rendezvous_owner(partition_of(host, PARTITIONS), &workers).unwrap().to_string();
    live.iter().copied().find(|w| *w == owner).unwrap()
}

/// The single-process crawl of the three sites: its record URLs (crawled once per test run).
fn reference(shared: &Path) -> BTreeSet<String> {
    static REFERENCE: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    REFERENCE.get_or_init(|| single_crawl(shared)).clone()
}

fn single_crawl(shared: &Path) -> BTreeSet<String> {
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let tmp = tempfile::tempdir().unwrap();
    write_setup(tmp.path(), server.addr, None);
    let status = wait_all(vec![crawl(tmp.path())]);
    assert!(status[0].success(), "single crawl: {:?}", std::fs::read_to_string(tmp.path().join("stderr.log")));
    records(tmp.path()).into_iter().map(|r| r.url).collect()
}

/// The workers' corpora: URLs (failing on one written twice, unless `merged_only`) and the
/// merged corpus of `webcorpus dedup` over them in worker order, checked for duplicate URLs
/// and paragraphs. Returns the union of the workers' URLs and the merged corpus's.
fn check_corpora(root: &Path, merged_only: bool) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut urls = BTreeSet::new();
    let mut inputs: Vec<PathBuf> = Vec::new();
    for w in WORKERS {
        let dir = root.join(w);
        for r in records(&dir) {
            let fresh = urls.insert(r.url.clone());
            assert!(fresh || merged_only, "written by two workers (or twice): {}", r.url);
        }
        inputs.push(dir.join("corpus/corpus.jsonl"));
    }
    let merged = root.join("merged.jsonl");
    let status = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .arg("dedup")
        .args(&inputs)
        .arg("--out")
        .arg(&merged)
        .arg("--config")
        .arg(root.join("w1/config.toml"))
        .arg("--quiet")
        .status()
        .unwrap();
    assert!(status.success());
    let mut merged_urls = BTreeSet::new();
    let mut paragraphs = HashSet::new();
    for line in std::fs::read_to_string(&merged).unwrap().lines() {
        let r = Record::from_json(line).unwrap();
        assert!(merged_urls.insert(r.url.clone()), "merged corpus: {} twice", r.url);
        for p in r.paragraphs {
            assert!(paragraphs.insert(p.text.clone()), "merged corpus: paragraph twice: {:?}", p.text);
        }
    }
    (urls, merged_urls)
}

/// The workers' corpora hold exactly the single crawl's URLs.
fn same_urls(found: &BTreeSet<String>, expected: &BTreeSet<String>) {
    let lost: Vec<_> = expected.difference(found).collect();
    let extra: Vec<_> = found.difference(expected).collect();
    assert!(
        lost.is_empty() && extra.is_empty(),
        "not in the workers' corpora: {lost:?}; not in the single crawl's: {extra:?}"
    );
}

/// The workers' corpora against the single crawl's when the hosts `moved` changed owner during
/// the crawl. The new owner of such a host samples it again from its later pages and learns its
/// own model, so which of those pages come out with main text (or as all-duplicates) may differ
/// from the single crawl. For those hosts: every URL the single crawl wrote was fetched
/// (`requests`: nothing was lost from the frontier) and every record is of a fetched URL. The
/// other hosts' records are exactly the single crawl's.
fn same_urls_but_moved(found: &BTreeSet<String>, expected: &BTreeSet<String>, moved: &[&str], requests: &[RequestLog]) {
    let fetched: HashSet<(String, String)> = requests.iter().map(|r| (r.host.clone(), r.path.clone())).collect();
    let host_path = |u: &str| {
        let url = url::Url::parse(u).unwrap();
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        (url.host_str().unwrap().to_string(), path)
    };
    let of_moved = |u: &&String| moved.contains(&host_path(u).0.as_str());
    let stayed = |set: &BTreeSet<String>| set.iter().filter(|u| !of_moved(u)).cloned().collect::<BTreeSet<_>>();
    same_urls(&stayed(found), &stayed(expected));
    for u in expected.iter().chain(found).filter(of_moved) {
        assert!(fetched.contains(&host_path(u)), "{u}: never fetched");
    }
}

/// Politeness across workers: robots.txt first and at most `robots_per_host` times per host,
/// the per-host delay between any two requests, nothing robots.txt disallows.
fn check_politeness(requests: &[RequestLog], robots_per_host: usize) {
    for host in HOSTS {
        let mine: Vec<&RequestLog> = requests.iter().filter(|r| r.host == host).collect();
        assert_eq!(mine.first().map(|r| r.path.as_str()), Some("/robots.txt"), "{host}: robots.txt first");
        let robots = mine.iter().filter(|r| r.path == "/robots.txt").count();
        assert!(robots <= robots_per_host, "{host}: robots.txt fetched {robots} times");
        for w in mine.windows(2) {
            let gap = w[1].at.duration_since(w[0].at);
            assert!(gap >= Duration::from_millis(MIN_DELAY_MS), "{host}: requests {gap:?} apart");
        }
    }
    for r in requests.iter().filter(|r| r.host == "www.paraguayos.org") {
        for bad in ["/category/", "/tag/", "/page/", "/wp-admin/", "/archives/", "/search"] {
            assert!(!r.path.starts_with(bad), "robots.txt disallows {}", r.path);
        }
    }
}

/// Pages (not robots.txt) requested more than once.
fn requested_twice(requests: &[RequestLog]) -> Vec<(String, String)> {
    let mut count: HashMap<(String, String), usize> = HashMap::new();
    for r in requests.iter().filter(|r| r.path != "/robots.txt") {
        *count.entry((r.host.clone(), r.path.clone())).or_default() += 1;
    }
    count.into_iter().filter(|(_, n)| *n > 1).map(|(k, _)| k).collect()
}

fn start_workers(root: &Path, addr: std::net::SocketAddr, redis: &str) -> Vec<Child> {
    WORKERS
        .into_iter()
        .map(|w| {
            write_setup(&root.join(w), addr, Some((redis, w)));
            crawl(&root.join(w))
        })
        .collect()
}

/// Start the three workers and kill -9 the owner of hidemiyoshi.jp once that host has had 40
/// requests (it is sampling the site). Returns the children, the killed one reaped, and the
/// killed worker's index in [`WORKERS`].
fn start_and_kill_the_owner(root: &Path, server: &SiteServer, redis: &str) -> (Vec<Child>, usize) {
    let mut children = start_workers(root, server.addr, redis);
    let victim = WORKERS.iter().position(|w| *w == owner("hidemiyoshi.jp")).unwrap();
    wait_for_requests(server, "hidemiyoshi.jp", 40);
    children[victim].kill().unwrap();
    children[victim].wait().unwrap();
    (children, victim)
}

fn assert_all_succeeded(root: &Path, statuses: &[std::process::ExitStatus]) {
    for (w, status) in WORKERS.iter().zip(statuses) {
        let log = std::fs::read_to_string(root.join(w).join("stderr.log")).unwrap_or_default();
        assert!(status.success(), "{w}: {status:?}\n{log}");
    }
}

/// Wait until the server has answered `n` requests for `host`.
fn wait_for_requests(server: &SiteServer, host: &str, n: usize) {
    let deadline = Instant::now() + DEADLINE;
    while server.requests().iter().filter(|r| r.host == host).count() < n {
        assert!(Instant::now() < deadline, "{host}: fewer than {n} requests");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn three_workers_crawl_the_shared_sites_as_one_crawl() {
    let Some(shared) = support::shared_dir("three_workers_crawl_the_shared_sites_as_one_crawl") else { return };
    let Some(redis) = RedisServer::start("three_workers_crawl_the_shared_sites_as_one_crawl") else { return };
    let expected = reference(&shared);
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let root = tempfile::tempdir().unwrap();
    let statuses = wait_all(start_workers(root.path(), server.addr, &redis.url));
    assert_all_succeeded(root.path(), &statuses);
    let requests = server.requests();
    assert_eq!(requested_twice(&requests), Vec::new(), "every URL fetched exactly once across the workers");
    check_politeness(&requests, 1);
    same_urls(&check_corpora(root.path(), false).0, &expected);
    // Each host was crawled by its owner alone.
    for host in HOSTS {
        let by: Vec<&str> =
            WORKERS.into_iter().filter(|w| records(&root.path().join(w)).iter().any(|r| r.host == host)).collect();
        assert_eq!(by, vec![owner(host)], "{host}: written by {by:?}");
    }
    // `stats --cluster` lists the three workers and the crawl's totals.
    let out = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .args(["stats", "--cluster", &redis.url, "--crawl-name", "test", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["workers"].as_array().unwrap().len(), 3, "{json}");
    assert_eq!(json["totals"]["records"].as_u64().unwrap() as usize, expected.len(), "{json}");
    assert_eq!(json["queued"].as_u64(), Some(0), "{json}");
}

/// Kill -9 the worker that owns hidemiyoshi.jp while it samples the site, and start it again
/// at once (within the lease timeout): it resumes its own state; nothing is lost, nothing is
/// written twice.
#[test]
fn a_worker_killed_and_restarted_loses_nothing_and_writes_nothing_twice() {
    let test = "a_worker_killed_and_restarted_loses_nothing_and_writes_nothing_twice";
    let Some(shared) = support::shared_dir(test) else { return };
    let Some(redis) = RedisServer::start(test) else { return };
    let expected = reference(&shared);
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let root = tempfile::tempdir().unwrap();
    let (mut children, victim) = start_and_kill_the_owner(root.path(), &server, &redis.url);
    children[victim] = crawl(&root.path().join(WORKERS[victim]));
    let statuses = wait_all(children);
    assert_all_succeeded(root.path(), &statuses);
    check_politeness(&server.requests(), 2);
    same_urls(&check_corpora(root.path(), false).0, &expected);
}

/// Kill -9 the worker that owns hidemiyoshi.jp and leave it dead until the other workers hold
/// its partitions: they crawl its hosts from the stream entries it left pending. Started again
/// after the crawl ended (which cuts its corpus back to what it committed), nothing is lost;
/// the pages of its last, uncommitted group may be written again by the new owner, and the
/// merged corpus of `webcorpus dedup` holds each URL and paragraph once.
#[test]
fn a_dead_worker_s_hosts_move_to_the_others() {
    let test = "a_dead_worker_s_hosts_move_to_the_others";
    let Some(shared) = support::shared_dir(test) else { return };
    let Some(redis) = RedisServer::start(test) else { return };
    let expected = reference(&shared);
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let root = tempfile::tempdir().unwrap();
    let (mut children, victim) = start_and_kill_the_owner(root.path(), &server, &redis.url);
    let victim_name = WORKERS[victim];
    let dead = children.remove(victim);
    drop(dead);
    // The partition of hidemiyoshi.jp moves to a live worker once the lease lapses.
    let lease = format!("webcorpus:{{test.{}}}:lease", partition_of("hidemiyoshi.jp", PARTITIONS));
    let mut conn = redis.conn();
    let deadline = Instant::now() + DEADLINE;
    loop {
        let holder: Option<String> = redis::cmd("GET").arg(&lease).query(&mut conn).unwrap();
        if holder.as_deref().is_some_and(|h| h != victim_name) {
            break;
        }
        assert!(Instant::now() < deadline, "the dead worker's partition never moved");
        std::thread::sleep(Duration::from_millis(50));
    }
    let before_restart = server.requests().len();
    let statuses = wait_all(children);
    for status in &statuses {
        assert!(status.success(), "{status:?}");
    }
    assert!(server.requests().len() > before_restart, "the live workers went on crawling");
    // Started again after the end: it forgets the hosts it no longer holds and cuts its
    // corpus back to its last commit.
    let restarted = wait_all(vec![crawl(&root.path().join(victim_name))]);
    assert!(restarted[0].success());
    let requests = server.requests();
    check_politeness(&requests, 2);
    let moved: Vec<&str> = HOSTS.into_iter().filter(|h| owner(h) == victim_name).collect();
    same_urls_but_moved(&check_corpora(root.path(), true).0, &expected, &moved, &requests);
}

/// A Redis outage longer than the lease timeout (issue 52) while the workers sample their
/// hosts: Redis stops answering (SIGSTOP), every worker stops on its own with exit status 69
/// (its state committed up to its last group) instead of hanging; when Redis answers again
/// and the leases have lapsed, the same workers started again take their partitions back with
/// their states (no other worker held them in between): the sample pages are not fetched
/// again, only the pages of each worker's last, uncommitted group may be, and the corpora are
/// the single crawl's.
#[test]
fn a_redis_outage_stops_the_workers_and_their_restart_fetches_no_sample_again() {
    let test = "a_redis_outage_stops_the_workers_and_their_restart_fetches_no_sample_again";
    let Some(shared) = support::shared_dir(test) else { return };
    let Some(redis) = RedisServer::start(test) else { return };
    let expected = reference(&shared);
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let root = tempfile::tempdir().unwrap();
    let children = start_workers(root.path(), server.addr, &redis.url);
    wait_for_requests(&server, "hidemiyoshi.jp", 40);
    redis.pause();
    let paused_at = Instant::now();
    let before_outage = server.requests().len();
    let statuses = wait_all(children);
    for (w, status) in WORKERS.iter().zip(&statuses) {
        let log = std::fs::read_to_string(root.path().join(w).join("stderr.log")).unwrap_or_default();
        assert!(matches!(status.code(), Some(69 | 1)), "{w}: {status:?}\n{log}");
    }
    // Each stopped within a few timeouts (2 s each) of the outage.
    assert!(paused_at.elapsed() < Duration::from_secs(60), "the workers stopped after {:?}", paused_at.elapsed());
    let before = server.requests();
    let during_outage = before.len() - before_outage;
    redis.resume();
    // The outage outlasts the leases (a renewal a worker sent as Redis stopped may still be
    // read from its socket: wait for it to lapse too).
    let mut conn = redis.conn();
    for host in HOSTS {
        let lease = format!("webcorpus:{{test.{}}}:lease", partition_of(host, PARTITIONS));
        let deadline = Instant::now() + Duration::from_secs(30);
        while redis::cmd("GET").arg(&lease).query::<Option<String>>(&mut conn).unwrap().is_some() {
            assert!(Instant::now() < deadline, "{host}: the lease outlived the outage");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let statuses = wait_all(start_workers(root.path(), server.addr, &redis.url));
    assert_all_succeeded(root.path(), &statuses);
    let requests = server.requests();
    // Pages fetched once Redis stopped answering cannot be committed (their links go to the
    // streams first): they are fetched again. Those fetched before it must not be, but for the
    // last group.
    let fetched_before: HashSet<(String, String)> = before[..before_outage]
        .iter()
        .filter(|r| r.path != "/robots.txt")
        .map(|r| (r.host.clone(), r.path.clone()))
        .collect();
    let again: Vec<(String, String)> = requests[before.len()..]
        .iter()
        .filter(|r| r.path != "/robots.txt")
        .map(|r| (r.host.clone(), r.path.clone()))
        .filter(|k| fetched_before.contains(k))
        .collect();
    eprintln!(
        "{} of {} pages fetched before the outage were fetched again ({during_outage} requests during the outage)",
        again.len(),
        fetched_before.len()
    );
    // A worker's last groups hold what it fetched in the last `commit_interval`s (200 ms each):
    // at a 20 ms delay, about ten pages of each host per group, a few groups when the machine
    // is busy; a worker that forgot its hosts fetches nearly all of them again (160 of 174).
    assert!(again.len() * 4 <= fetched_before.len(), "{} pages fetched again: {again:?}", again.len());
    check_politeness(&requests, 2);
    same_urls(&check_corpora(root.path(), false).0, &expected);
}

/// Redis killed in the middle of the crawl, once while the workers sample their hosts and once
/// after hidemiyoshi.jp's model is learned (its owner drains the pages that waited for it): every
/// worker prints its summary and exits (69, or 1 when the failure hit a group commit) within a
/// few `[cluster] timeout`s; none stays alive holding its state.
#[test]
fn every_worker_exits_when_redis_dies_in_any_phase() {
    let test = "every_worker_exits_when_redis_dies_in_any_phase";
    let Some(shared) = support::shared_dir(test) else { return };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    for (phase, requests) in [("sampling", 40), ("after learning", 130)] {
        let Some(redis) = RedisServer::start(test) else { return };
        let root = tempfile::tempdir().unwrap();
        let already = server.requests().iter().filter(|r| r.host == "hidemiyoshi.jp").count();
        let children = start_workers(root.path(), server.addr, &redis.url);
        wait_for_requests(&server, "hidemiyoshi.jp", already + requests);
        drop(redis);
        let killed_at = Instant::now();
        let statuses = wait_all_within(children, Duration::from_secs(90));
        for (w, status) in WORKERS.iter().zip(&statuses) {
            let log = std::fs::read_to_string(root.path().join(w).join("stderr.log")).unwrap_or_default();
            assert!(matches!(status.code(), Some(69 | 1)), "{phase}: {w}: {status:?}\n{log}");
            assert!(log.contains("redis://"), "{phase}: {w} names the Redis that failed:\n{log}");
        }
        eprintln!("{phase}: every worker exited {:?} after Redis died", killed_at.elapsed());
    }
}

/// A third worker joins a running crawl of two: the partitions it wins move to it (their
/// hosts' samples are written by their old owner first); still every page is fetched once
/// and written once.
#[test]
fn a_worker_joining_a_running_crawl_takes_its_partitions_over() {
    let test = "a_worker_joining_a_running_crawl_takes_its_partitions_over";
    let Some(shared) = support::shared_dir(test) else { return };
    let Some(redis) = RedisServer::start(test) else { return };
    let expected = reference(&shared);
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let root = tempfile::tempdir().unwrap();
    let mut children = Vec::new();
    for w in &WORKERS[..2] {
        write_setup(&root.path().join(w), server.addr, Some((&redis.url, w)));
        children.push(crawl(&root.path().join(w)));
    }
    wait_for_requests(&server, "www-cs.stanford.edu", 60);
    let late = WORKERS[2];
    write_setup(&root.path().join(late), server.addr, Some((&redis.url, late)));
    children.push(crawl(&root.path().join(late)));
    let statuses = wait_all(children);
    assert_all_succeeded(root.path(), &statuses);
    let requests = server.requests();
    assert_eq!(requested_twice(&requests), Vec::new(), "every URL fetched exactly once across the workers");
    check_politeness(&requests, 2);
    // The hosts the late worker wins move to it mid-crawl: it samples and learns them again.
    // A page whose paragraphs were all written by its host's old owner is a record of the
    // new owner (its Onion has not seen them): the merged corpus drops it again.
    let (raw, merged) = check_corpora(root.path(), false);
    let moved: Vec<&str> = HOSTS.into_iter().filter(|h| owner(h) != owner_among(h, &WORKERS[..2])).collect();
    assert!(!moved.is_empty(), "the late worker wins a host");
    same_urls_but_moved(&raw, &expected, &moved, &requests);
    same_urls_but_moved(&merged, &expected, &moved, &requests);
    let status: serde_json::Value = {
        let mut conn = redis.conn();
        let json: String = redis::cmd("HGET").arg("webcorpus:{test}:status").arg(late).query(&mut conn).unwrap();
        serde_json::from_str(&json).unwrap()
    };
    assert!(status["fetched"].as_u64().unwrap() > 0, "the late worker crawled: {status}");
}
