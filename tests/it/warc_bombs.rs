//! WARC input under a memory limit (issue 52): crafted WARC files from strangers — a gzip
//! member that inflates to 1 GiB inside a record's block, a record declaring a 2 GiB block, a
//! 1 GiB header line — run through `webcorpus extract` (plain and `--per-site`) in a child
//! whose address space is limited to 512 MiB (`ulimit -v`, i.e. `setrlimit(RLIMIT_AS)`). Each
//! bomb is larger than the limit: a reader that buffered it would abort; the bounded reader
//! streams past it, says what is wrong, and extracts the pages it can read.
//!
//! The files are built as runs of gzip members (one 1 MiB member compressed once, repeated),
//! so each is about a megabyte on disk.

use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

/// The child's address-space limit, KiB: a normal `extract` of the shared WARCs stays under
/// 300 MiB of address space.
const LIMIT_KIB: u64 = 512 * 1024;

/// The size of each bomb: twice the limit.
const BOMB_MIB: usize = 1024;

const PAGE_TEXTS: [&str; 2] = [
    "The harbour master said on Friday that the old pier will be closed for repairs until the spring, because \
     the storms of the last winter washed away part of the wooden deck and loosened the iron railings that the \
     fishermen rely on when they unload their boats in the early morning.",
    "The council met on Tuesday evening to discuss the new budget for the public library, and after a long \
     debate the members agreed that the opening hours should be extended in the winter, when the reading rooms \
     are the warmest place in town for many of the older residents.",
];

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::best());
    e.write_all(data).expect("compress");
    e.finish().expect("compress")
}

/// `mib` MiB of `byte` as gzip members of 1 MiB each.
fn members_of(byte: u8, mib: usize) -> Vec<u8> {
    gz(&vec![byte; 1 << 20]).repeat(mib)
}

fn warc_head(uri: &str, id: u32, content_length: u64) -> String {
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
         WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{id:012}>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {content_length}\r\n\r\n"
    )
}

const HTTP_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";

/// A well-formed response record of a page with one of `PAGE_TEXTS` (by `id`: records with
/// ids of a different parity are no duplicates).
fn good_record(uri: &str, id: u32) -> Vec<u8> {
    let text = PAGE_TEXTS[id as usize % 2];
    let block = format!(
        "{HTTP_HEAD}<html><head><title>News</title></head><body><article><p>{text}</p></article></body></html>"
    );
    format!("{}{block}\r\n\r\n", warc_head(uri, id, block.len() as u64)).into_bytes()
}

/// `webcorpus extract [extra] file` in a child limited to [`LIMIT_KIB`] of address space.
fn extract_limited(file: &Path, extra: &str) -> Output {
    let script = format!("ulimit -v {LIMIT_KIB} && exec \"$0\" extract {extra} \"$1\"");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_webcorpus"))
        .arg(file)
        .output()
        .expect("run webcorpus under a limit")
}

/// Not killed (an abort or a signal has no exit code, a failed allocation aborts with 134).
fn assert_ran(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code();
    assert!(matches!(code, Some(0 | 1)), "{what}: exit {:?} under a {LIMIT_KIB} KiB limit\n{stderr}", out.status);
    stderr
}

fn records(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// A 1 GiB block of zeros (gzip members inside one record) between two good pages: both pages
/// come out, the bomb is skipped past the page cap.
#[test]
fn a_block_that_inflates_past_the_limit_is_streamed_past() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("bomb.warc.gz");
    let mut warc = gz(&good_record("http://pier.test/before", 1));
    let block_len = HTTP_HEAD.len() as u64 + ((BOMB_MIB as u64) << 20);
    warc.extend(gz(format!("{}{HTTP_HEAD}", warc_head("http://bomb.test/", 3, block_len)).as_bytes()));
    warc.extend(members_of(0, BOMB_MIB));
    warc.extend(gz(b"\r\n\r\n"));
    warc.extend(gz(&good_record("http://pier.test/after", 2)));
    std::fs::write(&file, &warc).expect("write");
    assert!(warc.len() < 8 << 20, "the bomb is small on disk: {} bytes", warc.len());

    let out = extract_limited(&file, "");
    let stderr = assert_ran(&out, "extract");
    let urls: Vec<String> = records(&out).iter().map(|r| r["url"].as_str().unwrap_or_default().to_string()).collect();
    assert!(urls.contains(&"http://pier.test/before".to_string()), "{urls:?}\n{stderr}");
    assert!(urls.contains(&"http://pier.test/after".to_string()), "{urls:?}\n{stderr}");
    assert!(!urls.iter().any(|u| u.contains("bomb.test")), "{urls:?}");

    let out = extract_limited(&file, "--per-site");
    let stderr = assert_ran(&out, "extract --per-site");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(records(&out).len(), 2, "{stderr}");
}

/// A record that declares a 2 GiB block and ends after a few bytes: the pages before it come
/// out, the file is reported damaged (exit 1) with the record's offset and id.
#[test]
fn a_declared_length_past_the_limit_allocates_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("lie.warc");
    let mut warc = good_record("http://pier.test/before", 1);
    warc.extend(warc_head("http://liar.test/", 2, 2 << 30).into_bytes());
    warc.extend(format!("{HTTP_HEAD}<p>short</p>").into_bytes());
    std::fs::write(&file, &warc).expect("write");

    for stderr in damaged_with_one_page_before(&file) {
        assert!(stderr.contains("lie.warc"), "the message names the file: {stderr}");
        assert!(stderr.contains("00000000-0000-0000-0000-000000000002"), "and the record's id: {stderr}");
    }
}

/// A 1 GiB header line (compressed to about a megabyte) after a good page: the header is cut
/// at 64 KiB, the damage reported, the good page written.
#[test]
fn a_header_line_past_the_limit_is_refused_at_its_bound() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("header.warc.gz");
    let mut warc = gz(&good_record("http://pier.test/before", 1));
    warc.extend(gz(b"WARC/1.0\r\nWARC-Type: response\r\nX-Padding: "));
    warc.extend(members_of(b'a', BOMB_MIB));
    warc.extend(gz(b"\r\n\r\n"));
    std::fs::write(&file, &warc).expect("write");

    for stderr in damaged_with_one_page_before(&file) {
        assert!(stderr.contains("header is longer than 65536 bytes"), "{stderr}");
    }
}

/// `extract` and `extract --per-site` on a `file` damaged after its first page: each exits 1
/// and writes that page. Returns their standard errors.
fn damaged_with_one_page_before(file: &Path) -> Vec<String> {
    ["", "--per-site"]
        .into_iter()
        .map(|extra| {
            let out = extract_limited(file, extra);
            let stderr = assert_ran(&out, extra);
            assert_eq!(out.status.code(), Some(1), "a damaged file exits 1 ({extra}): {stderr}");
            assert_eq!(records(&out).len(), 1, "the page before the damage ({extra}): {stderr}");
            stderr
        })
        .collect()
}
