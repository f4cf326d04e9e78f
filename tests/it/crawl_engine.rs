//! The crawl engine under load (issue "Three crawl-engine defects found under load"): links
//! found on a page are fetchable before the group commit that makes them durable. The bounds
//! of the committer's store batches are unit tests of `crawl::committer`; the scheduler's
//! watchdog is a unit test of `crawl::watchdog` and `scripts/stress-crawl.sh` runs the
//! five-site crawl many times under CPU contention.

use crate::hostile::{page, routes, Crawl};
use crate::support::hostile_server::{HostileServer, Route};

/// Pages in the chain: each links only the next one.
const CHAIN: usize = 30;

/// Entry `i` of a made-up diary: words chosen by `i` every few words, so that no two
/// entries share enough word n-grams to be duplicates of each other.
fn diary_entry(i: usize) -> String {
    const NOUNS: [&str; 12] = [
        "river", "ferry", "bridge", "market", "harbour", "orchard", "mill", "chapel", "school", "forest", "meadow",
        "quarry",
    ];
    const VERBS: [&str; 10] =
        ["rose", "fell", "closed", "opened", "flooded", "burned", "moved", "changed", "returned", "vanished"];
    const PEOPLE: [&str; 9] = [
        "the miller",
        "my sister",
        "the teacher",
        "our neighbour",
        "the doctor",
        "the mayor",
        "a stranger",
        "the baker",
        "old Tom",
    ];
    let n = |k: usize| NOUNS[(i * 7 + k * 5) % NOUNS.len()];
    let v = |k: usize| VERBS[(i * 3 + k * 7) % VERBS.len()];
    let p = |k: usize| PEOPLE[(i * 5 + k * 2) % PEOPLE.len()];
    format!(
        "On day {i} the {} {} before noon, and {} said that the {} had {} too. We walked to the {} where {} \
         told us the {} {} in the night, so {} and I stayed by the {} until the {} {} again at dusk.",
        n(0),
        v(0),
        p(0),
        n(1),
        v(1),
        n(2),
        p(1),
        n(3),
        v(2),
        p(2),
        n(4),
        n(5),
        v(3)
    )
}

/// A host whose pages link one after another is crawled without waiting for one group
/// commit per hop: with a group commit every 5 s, a chain of 30 pages that waited for each
/// would need 150 s, past the crawl's time limit in this test (120 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_of_links_does_not_wait_for_the_group_commits() {
    let paths: Vec<String> = (0..CHAIN).map(|i| format!("/chain/{i}")).collect();
    let bodies: Vec<String> = (0..CHAIN).map(diary_entry).collect();
    let mut entries = vec![("chain.test", "/robots.txt", Route::bytes(404, "text/plain", Vec::new()))];
    for i in 0..CHAIN {
        let links: Vec<&str> = paths.get(i + 1).map(|p| vec![p.as_str()]).unwrap_or_default();
        entries.push(("chain.test", paths[i].as_str(), page(&bodies[i], &links)));
    }
    let server = HostileServer::start(routes(entries));
    let crawl = Crawl::new("http://chain.test/chain/0\n");
    let toml = crawl
        .config(server.addr, &["chain.test"], "")
        .replace("[crawl]\n", "[crawl]\ncommit_interval = \"5s\"\ncommit_pages = 1000\n");
    let summary = crawl.run(&toml).await;
    assert_eq!(summary.exit_code(), 0, "{summary:?}");
    let fetched: Vec<String> =
        server.requests().into_iter().map(|(_, p)| p).filter(|p| p.starts_with("/chain/")).collect();
    assert_eq!(fetched, paths, "each page once, in chain order");
    assert_eq!(crawl.records().len(), CHAIN, "every page written once");
}
