//! Tests of the crawl state: its keys, batches, waiting pages and spool files.

use super::*;
use crate::store::{MemoryStore, SledStore};
use std::io::Write;

fn exercise(state: &CrawlState) {
    let mut b = state.batch();
    let s1 =
        b.push_frontier("a.org", FrontierEntry { url: "http://a.org/1".into(), depth: 0, ..FrontierEntry::default() });
    b.push_frontier("a.org", FrontierEntry { url: "http://a.org/2".into(), depth: 1, ..FrontierEntry::default() });
    b.push_frontier(
        "a.org:8080",
        FrontierEntry { url: "http://a.org:8080/x".into(), depth: 0, ..FrontierEntry::default() },
    );
    b.set_hash_log_len(16);
    b.set_corpus_offset(123, "jsonl");
    state.commit(b).unwrap();
    assert_eq!(state.frontier_head("a.org").unwrap().unwrap().url, "http://a.org/1");
    assert_eq!(state.frontier_len("a.org").unwrap(), 2, "the a.org:8080 queue is separate");
    assert!(state.is_seen("http://a.org/2").unwrap());
    assert!(!state.is_seen("http://a.org/3").unwrap());
    assert!(state.is_seen("https://a.org/2").unwrap(), "http and https forms are one page");
    assert_eq!(state.hash_log_len().unwrap(), 16);
    let window = state.frontier_window("a.org", s1 + 1, 8).unwrap();
    assert_eq!(window.len(), 1, "the window starts at the given sequence number");
    assert_eq!(window[0].url, "http://a.org/2");
    assert_eq!(state.corpus_offset().unwrap(), 123);
    let mut b = state.batch();
    b.pop_frontier("a.org", s1);
    state.commit(b).unwrap();
    assert_eq!(state.frontier_head("a.org").unwrap().unwrap().url, "http://a.org/2");
}

#[test]
fn memory_store_frontier_is_fifo_per_host() {
    exercise(&CrawlState::open(Arc::new(MemoryStore::new())).unwrap());
}

/// A stored host model is read back as written; one of another model format version is a
/// typed error naming the host and both versions, not a decode failure or a silent `None`.
#[test]
fn host_models_of_another_format_version_are_refused() {
    let state = CrawlState::open(Arc::new(MemoryStore::new())).unwrap();
    let model = crate::domain::DomainModel { host: "a.org".into(), ..Default::default() };
    let mut b = state.batch();
    b.put_model("a.org", &model);
    let mut old = serde_json::to_value(&model).unwrap();
    old["format_version"] = 0.into();
    b.put_model("b.org", &old);
    state.commit(b).unwrap();
    assert_eq!(state.model("a.org").unwrap().map(|m| m.host), Some("a.org".to_string()));
    assert!(state.model("c.org").unwrap().is_none());
    match state.model("b.org") {
        Err(StoreError::ModelVersion { host, found: 0, expected }) => {
            assert_eq!((host.as_str(), expected), ("b.org", crate::domain::MODEL_FORMAT_VERSION))
        }
        other => panic!("expected a model version error, got {other:?}"),
    }
}

#[test]
fn sled_store_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let state = CrawlState::open(Arc::new(SledStore::open(dir.path()).unwrap())).unwrap();
        exercise(&state);
    }
    let state = CrawlState::open(Arc::new(SledStore::open(dir.path()).unwrap())).unwrap();
    assert_eq!(state.frontier_head("a.org").unwrap().unwrap().url, "http://a.org/2");
    let next = state.batch().next_seq();
    assert!(next >= 3, "sequence numbers continue after reopen, got {next}");
}

/// In a state directory, waiting pages live in the host's spool file: read back through
/// their locators, uncommitted appends are never seen, the file goes with the host's last
/// waiting page, and a reopened state keeps the files of hosts that still wait.
#[test]
fn waiting_pages_are_spooled_and_their_file_goes_with_the_last_one() {
    let dir = tempfile::tempdir().unwrap();
    let open = || crate::store::open_state_dir(dir.path()).unwrap();
    let page = |seq: u64, html: &str| SampledPage {
        warc: None,
        stream: None,
        seq,
        url: format!("http://a.org/{seq}"),
        final_url: format!("http://a.org/{seq}"),
        fetched_at: "2026-11-24T00:00:00Z".into(),
        status: 200,
        content_type: Some("text/html".into()),
        html: html.into(),
        answer: Vec::new(),
    };
    let files = || std::fs::read_dir(dir.path().join("waiting")).unwrap().count();
    {
        let state = open();
        let mut b = state.batch();
        b.put_waiting("a.org", &page(1, "<p>one</p>")).unwrap();
        b.put_waiting("a.org", &page(2, &"<p>two</p>".repeat(1000))).unwrap();
        b.put_waiting("b.org:81", &page(3, "<p>three</p>")).unwrap();
        state.commit(b).unwrap();
        // Appended but never committed (a crash before the batch).
        state.batch().put_waiting("a.org", &page(4, "<p>lost</p>")).unwrap();
        let pages = state.waiting_pages("a.org", 10).unwrap();
        assert_eq!(pages, vec![page(1, "<p>one</p>"), page(2, &"<p>two</p>".repeat(1000))]);
        let sled_value = state.store().get(&seq_key("p/", "a.org", 2)).unwrap().unwrap();
        assert!(sled_value.len() < 20, "only the locator is in sled");
        assert_eq!(files(), 2);
        let mut b = state.batch();
        b.delete_waiting("a.org", 1);
        state.commit(b).unwrap();
        assert_eq!(files(), 2, "a.org still has a waiting page");
        let mut b = state.batch();
        b.delete_waiting("a.org", 2);
        state.commit(b).unwrap();
        assert_eq!(files(), 1, "a.org's file is gone");
    }
    // A file left by a crash after a host's last delete is removed on open.
    std::fs::write(dir.path().join("waiting/0000000000000000.pages"), b"stale").unwrap();
    let state = open();
    assert_eq!(files(), 1);
    assert_eq!(state.waiting_pages("b.org:81", 10).unwrap(), vec![page(3, "<p>three</p>")]);
}

/// A waiting page keeps its answer's bytes beside its head; a page stored before answers
/// were kept (head and HTML only) reads back with none.
#[test]
fn a_waiting_page_keeps_its_answer_and_old_pages_read_without_one() {
    let page = SampledPage {
        seq: 7,
        url: "http://a.org/7".into(),
        final_url: "http://a.org/7".into(),
        fetched_at: "2026-11-29T00:00:00Z".into(),
        status: 200,
        content_type: None,
        html: "<p>seven</p>".repeat(50),
        answer: (0..=255u8).collect(),
        warc: None,
        stream: None,
    };
    let key = b"p/a.org/7";
    assert_eq!(decode_waiting(key, &encode_waiting(&page)).unwrap(), page);
    let none = SampledPage { answer: Vec::new(), ..page.clone() };
    let value = encode_waiting(&none);
    assert!(!String::from_utf8_lossy(&value).contains("answer_len"), "no answer, no length in the head");
    assert_eq!(decode_waiting(key, &value).unwrap(), none);
    // The layout before answers: the head of the page without its HTML, then the HTML.
    let old = {
        use std::io::Write;
        let head = serde_json::to_vec(&SampledPage { html: String::new(), ..none.clone() }).unwrap();
        let mut out = (head.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&head);
        let mut z = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
        z.write_all(none.html.as_bytes()).unwrap();
        z.finish().unwrap()
    };
    assert_eq!(decode_waiting(key, &old).unwrap(), none);
    // An answer length past the value's end is a corrupt page, not a panic.
    let mut cut = encode_waiting(&page);
    cut.truncate(4 + u32::from_be_bytes(cut[..4].try_into().unwrap()) as usize + 10);
    assert!(matches!(decode_waiting(key, &cut), Err(StoreError::Corrupt { .. })));
}

fn entry(url: String) -> FrontierEntry {
    FrontierEntry { url, depth: 1, ..FrontierEntry::default() }
}

/// Stored frontier keys of `host` (runs), from the store itself.
fn run_keys(state: &CrawlState, host: &str) -> usize {
    state.store().scan_prefix(&host_key("f/", host), usize::MAX).unwrap().len()
}

/// A host's queue is stored as runs of at most `RUN_MAX` entries: reads from any sequence
/// number, pops of stored entries and of entries pushed in the same batch, and counts all
/// see the entries one by one, in FIFO order; a run goes with its last entry.
#[test]
fn frontier_runs_read_and_pop_entry_by_entry() {
    let state = CrawlState::open(Arc::new(MemoryStore::new())).unwrap();
    let mut seqs = Vec::new();
    for part in 0..3 {
        let mut b = state.batch();
        for i in 0..70 {
            seqs.push(b.push_frontier("a.org", entry(format!("http://a.org/{part}/{i}"))));
            if i % 10 == 0 {
                b.push_frontier("b.org", entry(format!("http://b.org/{part}/{i}")));
            }
        }
        state.commit(b).unwrap();
    }
    assert_eq!(state.frontier_len("a.org").unwrap(), 210);
    assert_eq!(state.frontier_total().unwrap(), 231);
    assert_eq!(run_keys(&state, "a.org"), 6, "two runs per batch of 70: 64 + 6");
    let all = state.frontier_window("a.org", 0, usize::MAX).unwrap();
    assert_eq!(all.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs, "every entry once, in order");
    for from in [seqs[0], seqs[1], seqs[63], seqs[64], seqs[65], seqs[139], seqs[209]] {
        let window = state.frontier_window("a.org", from, 5).unwrap();
        let want: Vec<u64> = seqs.iter().copied().filter(|&s| s >= from).take(5).collect();
        assert_eq!(window.iter().map(|e| e.seq).collect::<Vec<_>>(), want, "window from {from}");
    }
    // Pops of stored entries (several of one run in one batch, one twice) and of an entry
    // pushed in the same batch.
    let mut b = state.batch();
    for &s in &[seqs[0], seqs[5], seqs[64], seqs[64], seqs[100]] {
        b.pop_frontier("a.org", s);
    }
    let fresh = b.push_frontier("a.org", entry("http://a.org/fresh".into()));
    b.pop_frontier("a.org", fresh);
    state.commit(b).unwrap();
    let left: Vec<u64> = state.frontier_window("a.org", 0, usize::MAX).unwrap().iter().map(|e| e.seq).collect();
    let want: Vec<u64> =
        seqs.iter().copied().filter(|s| ![seqs[0], seqs[5], seqs[64], seqs[100]].contains(s)).collect();
    assert_eq!(left, want);
    assert_eq!(state.frontier_head("a.org").unwrap().unwrap().seq, seqs[1]);
    assert!(!state.is_seen("http://a.org/elsewhere").unwrap());
    assert!(state.is_seen("http://a.org/fresh").unwrap(), "a popped URL stays seen");
    // Everything popped: no run is left.
    let mut b = state.batch();
    for s in want {
        b.pop_frontier("a.org", s);
    }
    state.commit(b).unwrap();
    assert_eq!((state.frontier_len("a.org").unwrap(), run_keys(&state, "a.org")), (0, 0));
    assert_eq!(state.frontier_len("b.org").unwrap(), 21, "the other host's queue is untouched");
}

/// A frontier key of state format 2 (one entry, a JSON object) reads as a run of one entry
/// and is popped like one.
#[test]
fn a_format_2_frontier_entry_is_a_run_of_one() {
    let store = Arc::new(MemoryStore::new());
    let mut b = Batch::default();
    for seq in [3u64, 4] {
        let e = FrontierEntry { url: format!("http://a.org/{seq}"), seq, ..FrontierEntry::default() };
        b.put(seq_key("f/", "a.org", seq), encode(&e));
    }
    store.apply(b).unwrap();
    let state = CrawlState::open(store).unwrap();
    assert_eq!(state.frontier_window("a.org", 4, 10).unwrap()[0].url, "http://a.org/4");
    assert_eq!(state.frontier_len("a.org").unwrap(), 2);
    let mut b = state.batch();
    b.pop_frontier("a.org", 3);
    state.commit(b).unwrap();
    assert_eq!(state.frontier_head("a.org").unwrap().unwrap().seq, 4);
    assert_eq!(run_keys(&state, "a.org"), 1);
}

/// In a state directory the seen set is the seen log: a reopened state knows the URLs of
/// committed batches and forgets the forgotten ones; bytes past the committed length (a
/// batch whose store write never happened) are cut off; a state of format 2 has its seen
/// keys moved into the log once, and keeps its frontier.
#[test]
fn the_seen_log_survives_reopen_and_format_2_seen_keys_move_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let open = || crate::store::open_state_dir(dir.path()).unwrap();
    {
        let state = open();
        let mut b = state.batch();
        b.push_frontier("a.org", entry("http://a.org/1".into()));
        b.mark_seen("http://a.org/redirected");
        b.mark_seen("http://a.org/forgotten");
        state.commit(b).unwrap();
        let mut b = state.batch();
        b.unmark_seen("http://a.org/forgotten");
        state.commit(b).unwrap();
    }
    let log = dir.path().join("seen.log");
    let committed = std::fs::metadata(&log).unwrap().len();
    assert_eq!(committed, 32, "four changes of 8 bytes");
    // An append that no store batch committed.
    std::fs::OpenOptions::new().append(true).open(&log).unwrap().write_all(&7u64.to_le_bytes()).unwrap();
    {
        let state = open();
        assert!(state.is_seen("https://a.org/1").unwrap() && state.is_seen("http://a.org/redirected").unwrap());
        assert!(!state.is_seen("http://a.org/forgotten").unwrap());
        assert_eq!(std::fs::metadata(&log).unwrap().len(), committed, "cut back to the committed length");
    }
    // A state of format 2: seen keys `s/<xxh3-128>`, version 2.
    let old = tempfile::tempdir().unwrap();
    {
        let store = SledStore::open(&crate::store::sled_dir(old.path())).unwrap();
        let mut b = Batch::default();
        b.put(VERSION, 2u32.to_be_bytes().to_vec());
        for i in 0..10_000 {
            b.put(seen_key(&format!("http://old.org/{i}")), Vec::new());
        }
        let e = FrontierEntry { url: "http://old.org/9999".into(), seq: 1, ..FrontierEntry::default() };
        b.put(seq_key("f/", "old.org", 1), encode(&e));
        store.apply(b).unwrap();
        store.flush().unwrap();
    }
    for _ in 0..2 {
        let state = crate::store::open_state_dir(old.path()).unwrap();
        assert!((0..10_000).all(|i| state.is_seen(&format!("http://old.org/{i}")).unwrap()));
        assert!(!state.is_seen("http://old.org/new").unwrap());
        assert!(state.store().scan_prefix(b"s/", 1).unwrap().is_empty(), "the format-2 keys are gone");
        assert_eq!(state.store().get(VERSION).unwrap(), Some(STATE_VERSION.to_be_bytes().to_vec()));
        assert_eq!(state.frontier_head("old.org").unwrap().unwrap().url, "http://old.org/9999");
        assert_eq!(std::fs::metadata(old.path().join("seen.log")).unwrap().len(), 80_000, "moved once");
    }
}
