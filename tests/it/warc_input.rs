//! WARC input against the reference reader: for each WARC file of `../shared/sites/warc`
//! (Common Crawl, dolma, StormCrawler), `read_warc` must see as many records as `warcio`
//! (PyPI) and hand on exactly the responses warcio reports as 2xx HTML, each with the offset
//! warcio gives its record (the gzip member's offset in the file). warcio is installed from
//! PyPI when missing.

use crate::support;

use std::process::Command;
use webcorpus::extract::warc_input::read_warc;

const WARCIO_COUNTS: &str = r#"
import sys
from warcio.archiveiterator import ArchiveIterator
records = pages = 0
offsets = []
it = ArchiveIterator(open(sys.argv[1], 'rb'))
for r in it:
    records += 1
    if r.rec_type == 'response' and r.http_headers:
        ct = (r.http_headers.get_header('Content-Type') or '').split(';')[0].strip().lower()
        if r.http_headers.get_statuscode().startswith('2') and ct in ('', 'text/html', 'application/xhtml+xml'):
            pages += 1
            offsets.append(it.get_record_offset())
print(records, pages, *offsets)
"#;

#[test]
fn warc_records_and_pages_match_warcio() {
    let Some(shared) = support::shared_dir("warc_records_and_pages_match_warcio") else { return };
    support::python_module("warc_records_and_pages_match_warcio", "warcio", "warcio");
    let mut files: Vec<_> = std::fs::read_dir(shared.join("sites/warc"))
        .expect("the shared WARC folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    for path in files {
        let out = Command::new("python3").args(["-c", WARCIO_COUNTS]).arg(&path).output().expect("python3");
        let text = String::from_utf8_lossy(&out.stdout);
        let expected: Vec<u64> = text.split_whitespace().map(|n| n.parse().expect("a count")).collect();
        let mut urls = Vec::new();
        let mut offsets = Vec::new();
        let counts = read_warc(&path, |page| {
            assert!(page.url.starts_with("http"), "{}", page.url);
            assert!(page.record_id.starts_with("<urn:"), "{}", page.record_id);
            urls.push(page.url);
            offsets.push(page.offset.expect("each record of these files is its own gzip member"));
        })
        .expect("readable");
        assert_eq!(vec![counts.records, counts.pages], expected[..2], "{}", path.display());
        assert_eq!(urls.len() as u64, counts.pages);
        assert_eq!(offsets, expected[2..], "{}: record offsets", path.display());
    }
}
