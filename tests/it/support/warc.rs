//! Reading a crawl's WARC output in tests: every record through the `warc` crate (a torn or
//! malformed record fails the test), and `warcio check` / `warcio index` (PyPI), the reference
//! reader, where it is installed.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One WARC record's headers that the tests look at.
#[derive(Debug, Clone)]
pub struct WarcEntry {
    /// The file it is in.
    pub file: PathBuf,
    /// `WARC-Type`.
    pub kind: String,
    /// `WARC-Record-ID`.
    pub id: String,
    /// `WARC-Target-URI` (empty for `warcinfo`).
    pub target: String,
    /// `WARC-Concurrent-To`.
    pub concurrent_to: Option<String>,
}

/// The `.warc.gz` files of `dir`, sorted by name (= by serial).
pub fn warc_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.to_string_lossy().ends_with(".warc.gz")).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// Every record of the `.warc.gz` files in `dir`, in order; panics on an unreadable record.
pub fn read_records(dir: &Path) -> Vec<WarcEntry> {
    use warc::{WarcHeader, WarcReader};
    let mut out = Vec::new();
    for file in warc_files(dir) {
        let gz = flate2::read::MultiGzDecoder::new(BufReader::new(std::fs::File::open(&file).unwrap()));
        for record in WarcReader::new(BufReader::new(gz)).iter_records() {
            let record = record.unwrap_or_else(|e| panic!("{}: unreadable record: {e}", file.display()));
            let header = |h: WarcHeader| record.header(h).map(|v| v.to_string());
            out.push(WarcEntry {
                file: file.clone(),
                kind: header(WarcHeader::WarcType).unwrap_or_default(),
                id: record.warc_id().to_string(),
                target: header(WarcHeader::TargetURI).unwrap_or_default(),
                concurrent_to: header(WarcHeader::ConcurrentTo),
            });
        }
    }
    out
}

/// The record that begins at `offset` of `file` (its own gzip member), as text.
pub fn record_at(file: &Path, offset: u64) -> String {
    let bytes = std::fs::read(file).unwrap();
    let mut text = String::new();
    let _ = flate2::read::GzDecoder::new(&bytes[offset as usize..]).read_to_string(&mut text);
    text
}

/// True when `python3 -c "import warcio"` works; prints a loud skip line for `test` otherwise.
pub fn warcio_available(test: &str) -> bool {
    super::python_module(test, "warcio", "warcio");
    true
}

/// `warcio check` of every file of `dir` (it must exit 0: digests and format valid) and the
/// number of lines of `warcio index` over them (one per record).
pub fn warcio_check_and_index(dir: &Path) -> usize {
    let mut lines = 0;
    for file in warc_files(dir) {
        let check =
            Command::new("python3").args(["-m", "warcio.cli", "check"]).arg(&file).output().expect("warcio check runs");
        assert!(
            check.status.success(),
            "warcio check {}: {}{}",
            file.display(),
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&check.stderr)
        );
        let index =
            Command::new("python3").args(["-m", "warcio.cli", "index"]).arg(&file).output().expect("warcio index runs");
        assert!(index.status.success(), "warcio index {}", file.display());
        lines += String::from_utf8_lossy(&index.stdout).lines().count();
    }
    lines
}
