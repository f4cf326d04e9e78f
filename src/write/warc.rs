//! WARC output of the crawl: the principal type is [`WarcWriter`], which appends every HTTP
//! exchange the crawler made (pages, redirect hops, error pages, robots.txt) to WARC/1.1 files
//! (ISO 28500:2017) as a `response` record and its `request` record, each record its own gzip
//! member, so that any record can be read from its offset and a crawl can be re-extracted
//! without the network (`webcorpus extract --per-site FILE.warc.gz`).
//!
//! Files are named like Heritrix's, `{prefix}-{YYYYMMDDhhmmssSSS}-{serial:05}.warc.gz`, start
//! with a `warcinfo` record (software, WARC version, robots policy, the crawl's configuration)
//! and are rotated once they reach [`WarcConfig::max_file_bytes`].
//!
//! Payloads are stored as the crawler read them: transfer coding undone, and a gzip or deflate
//! content coding undone by the HTTP client (which then drops `Content-Encoding`). The stored
//! response head therefore says `Content-Length` of the stored payload; the server's own
//! `Content-Length` and `Transfer-Encoding` are kept as `X-Crawler-Content-Length` and
//! `X-Crawler-Transfer-Encoding` (StormCrawler's convention), so readers such as warcio neither
//! de-chunk nor cut the payload. `WARC-Payload-Digest` and `WARC-Block-Digest` are SHA-1 in
//! base32 (WARC 1.1 §5.8, §5.9); a payload cut at the size cap carries `WARC-Truncated`.
//!
//! Crash safety is the corpus's (see [`crate::write`]): every record is written whole;
//! [`WarcWriter::sync`] `fsync`s and returns the [`WarcPosition`] that the crawler commits in
//! the same store batch as the pages; [`WarcWriter::open`] cuts the current file back to the
//! committed position and deletes files begun after it, so a record is never torn and never
//! written twice (its page is fetched again and written once).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha1::{Digest, Sha1};

mod member;
pub use member::PreparedBlock;

/// `[warc]`: WARC output of the crawl.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WarcConfig {
    /// Write the crawl's HTTP exchanges to WARC files in `<out_dir>/warc/`. Default true.
    pub enabled: bool,
    /// A file is closed and the next one begun once it holds this many (compressed) bytes.
    /// Default 1 GB (10^9, Heritrix's default).
    pub max_file_bytes: u64,
    /// File name prefix. Default `webcorpus`.
    pub prefix: String,
}

impl Default for WarcConfig {
    fn default() -> Self {
        WarcConfig { enabled: true, max_file_bytes: 1_000_000_000, prefix: "webcorpus".to_string() }
    }
}

/// Errors of the WARC writer; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    /// A file-system operation failed.
    #[error("WARC file {path}: {op}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The committed file is missing or shorter than the committed offset.
    #[error(
        "WARC file {path} is truncated or missing: the store committed {expected} bytes but the file has {found}; \
         restore the file, or reset the crawl state"
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Committed offset, bytes.
        expected: u64,
        /// The file's length, bytes.
        found: u64,
    },
}

/// Why a stored payload is shorter than the response's (`WARC-Truncated`, WARC 1.1 §5.13).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truncation {
    /// Cut at a size limit (`length`).
    Length,
    /// Not read: the response was refused from its headers (`unspecified`).
    NotRead,
}

impl Truncation {
    fn value(self) -> &'static str {
        match self {
            Truncation::Length => "length",
            Truncation::NotRead => "unspecified",
        }
    }
}

/// One HTTP request and its response as the fetcher saw them.
#[derive(Debug, Clone)]
pub struct HttpExchange {
    /// The URL requested (`WARC-Target-URI`).
    pub url: String,
    /// The server's address, when known (`WARC-IP-Address`).
    pub ip: Option<IpAddr>,
    /// When the request was sent (`WARC-Date`).
    pub started: SystemTime,
    /// The request head: request line and headers, ending with an empty line.
    pub request_head: Vec<u8>,
    /// The response's status line and header lines (each ending in CRLF), without the final
    /// empty line, `Content-Length` and `Transfer-Encoding`: [`WarcWriter`] adds those.
    pub response_head: Vec<u8>,
    /// The payload as stored (decoded, at most the fetcher's cap).
    pub body: Vec<u8>,
    /// Set when `body` is not the whole payload.
    pub truncated: Option<Truncation>,
    /// The response record's block, deflated ahead by [`HttpExchange::prepare`] off the
    /// writer's thread; `None`: [`WarcWriter::write_exchange`] deflates it.
    pub prepared: Option<PreparedBlock>,
}

impl HttpExchange {
    /// The response record's block: the response head with the stored payload's
    /// `Content-Length`, the empty line and the payload.
    fn response_block(&self) -> Vec<u8> {
        let mut block = Vec::with_capacity(self.response_head.len() + self.body.len() + 64);
        block.extend_from_slice(&self.response_head);
        block.extend_from_slice(format!("Content-Length: {}\r\n\r\n", self.body.len()).as_bytes());
        block.extend_from_slice(&self.body);
        block
    }

    /// Deflate and digest the response record's block now (a worker thread calls this), so
    /// that writing the record only compresses its header. The record's bytes are the same.
    pub fn prepare(&mut self) {
        if self.prepared.is_none() {
            self.prepared = Some(PreparedBlock::new(&self.response_block(), &self.body));
        }
    }
}

/// Where a response record is: its id, file name and the offset of its gzip member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarcRef {
    /// `WARC-Record-ID`, `<urn:uuid:…>`.
    pub record_id: String,
    /// File name inside the WARC directory.
    pub file: String,
    /// Byte offset of the record's gzip member in the file.
    pub offset: u64,
}

/// The durable end of the WARC output, committed with the store batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarcPosition {
    /// The file being written.
    pub file: String,
    /// Its serial number.
    pub serial: u32,
    /// Its committed length, bytes.
    pub offset: u64,
}

/// What the `warcinfo` record of each file says besides the software and format.
#[derive(Debug, Clone)]
pub struct WarcInfo {
    /// The User-Agent sent.
    pub user_agent: String,
    /// The crawl's settings as `name: value` fields (`scope`, `max-depth`, ...).
    pub settings: Vec<(String, String)>,
}

struct OpenFile {
    file: File,
    name: String,
    serial: u32,
    len: u64,
    warcinfo_id: Option<String>,
}

/// Appends HTTP exchanges to rotated WARC files; see the module docs.
pub struct WarcWriter {
    dir: PathBuf,
    cfg: WarcConfig,
    info: WarcInfo,
    current: Option<OpenFile>,
    next_serial: u32,
}

impl WarcWriter {
    /// Open the WARC directory `dir` (created if missing) after the committed position
    /// `committed` (`None`: nothing committed yet). The committed file is cut back to its
    /// offset and files of this prefix begun after it are deleted.
    ///
    /// # Errors
    /// [`WarcError::Io`]; [`WarcError::Truncated`] when the committed file is missing or short.
    pub fn open(
        dir: &Path,
        cfg: &WarcConfig,
        info: WarcInfo,
        committed: Option<&WarcPosition>,
    ) -> Result<WarcWriter, WarcError> {
        fn io<'p>(path: &'p Path, op: &'static str) -> impl FnOnce(std::io::Error) -> WarcError + 'p {
            move |source| WarcError::Io { path: path.to_path_buf(), op, source }
        }
        std::fs::create_dir_all(dir).map_err(io(dir, "create directory"))?;
        let keep_serial = committed.map(|p| p.serial);
        for entry in std::fs::read_dir(dir).map_err(io(dir, "list"))? {
            let entry = entry.map_err(io(dir, "list"))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(serial) = file_serial(&cfg.prefix, &name) {
                if keep_serial.is_none_or(|keep| serial > keep) {
                    let path = entry.path();
                    std::fs::remove_file(&path).map_err(io(&path, "remove uncommitted file"))?;
                }
            }
        }
        let mut writer = WarcWriter { dir: dir.to_path_buf(), cfg: cfg.clone(), info, current: None, next_serial: 0 };
        if let Some(pos) = committed {
            let path = dir.join(&pos.file);
            let found = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            if found < pos.offset {
                return Err(WarcError::Truncated { path, expected: pos.offset, found });
            }
            let file = OpenOptions::new().append(true).open(&path).map_err(io(&path, "open"))?;
            file.set_len(pos.offset).map_err(io(&path, "truncate"))?;
            writer.current =
                Some(OpenFile { file, name: pos.file.clone(), serial: pos.serial, len: pos.offset, warcinfo_id: None });
            writer.next_serial = pos.serial + 1;
        }
        Ok(writer)
    }

    /// Append `exchange` as a `response` record and its `request` record. Returns where the
    /// response record is.
    ///
    /// # Errors
    /// [`WarcError::Io`].
    pub fn write_exchange(&mut self, exchange: &HttpExchange) -> Result<WarcRef, WarcError> {
        self.rotate_if_full()?;
        let date = humantime::format_rfc3339_seconds(exchange.started).to_string();
        let response_id = record_id();
        let prepared = match &exchange.prepared {
            Some(p) => std::borrow::Cow::Borrowed(p),
            None => std::borrow::Cow::Owned(PreparedBlock::new(&exchange.response_block(), &exchange.body)),
        };
        let ip = exchange.ip.map(|ip| ip.to_string());
        let warcinfo = self.current.as_ref().and_then(|f| f.warcinfo_id.clone());
        let mut fields = vec![
            ("WARC-Type", "response".to_string()),
            ("WARC-Record-ID", response_id.clone()),
            ("WARC-Date", date.clone()),
            ("WARC-Target-URI", exchange.url.clone()),
        ];
        fields.extend(ip.clone().map(|ip| ("WARC-IP-Address", ip)));
        fields.extend(warcinfo.clone().map(|id| ("WARC-Warcinfo-ID", id)));
        fields.push(("WARC-Payload-Digest", prepared.payload_digest.clone()));
        fields.push(("WARC-Block-Digest", prepared.block_digest.clone()));
        fields.extend(exchange.truncated.map(|t| ("WARC-Truncated", t.value().to_string())));
        fields.push(("Content-Type", "application/http; msgtype=response".to_string()));
        let head = record_head(&fields, prepared.block_len);
        let offset = self.write_member(&member::member(&head, &prepared))?;
        let mut fields = vec![
            ("WARC-Type", "request".to_string()),
            ("WARC-Record-ID", record_id()),
            ("WARC-Date", date),
            ("WARC-Target-URI", exchange.url.clone()),
        ];
        fields.extend(ip.map(|ip| ("WARC-IP-Address", ip)));
        fields.extend(warcinfo.map(|id| ("WARC-Warcinfo-ID", id)));
        fields.push(("WARC-Concurrent-To", response_id.clone()));
        fields.push(("WARC-Block-Digest", sha1_base32(&exchange.request_head)));
        fields.push(("Content-Type", "application/http; msgtype=request".to_string()));
        self.append(&fields, &exchange.request_head)?;
        let file = self.current.as_ref().map(|f| f.name.clone()).unwrap_or_default();
        Ok(WarcRef { record_id: response_id, file, offset })
    }

    /// `fsync` the current file and return the position to commit (`None` before the first
    /// record).
    ///
    /// # Errors
    /// [`WarcError::Io`].
    pub fn sync(&mut self) -> Result<Option<WarcPosition>, WarcError> {
        let Some(f) = &self.current else { return Ok(None) };
        f.file.sync_data().map_err(|source| WarcError::Io { path: self.dir.join(&f.name), op: "fsync", source })?;
        Ok(Some(WarcPosition { file: f.name.clone(), serial: f.serial, offset: f.len }))
    }

    /// Begin a new file when there is none or the current one is full: the full one is synced
    /// first, so a committed position in the new file implies the old one is durable.
    fn rotate_if_full(&mut self) -> Result<(), WarcError> {
        if self.current.as_ref().is_some_and(|f| f.len < self.cfg.max_file_bytes) {
            return Ok(());
        }
        self.sync()?;
        let serial = self.next_serial;
        let stamp: String = humantime::format_rfc3339_millis(SystemTime::now())
            .to_string()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        let name = format!("{}-{stamp}-{serial:05}.warc.gz", self.cfg.prefix);
        let path = self.dir.join(&name);
        let file = OpenOptions::new().create_new(true).write(true).open(&path).map_err(|source| WarcError::Io {
            path: path.clone(),
            op: "create",
            source,
        })?;
        self.current = Some(OpenFile { file, name: name.clone(), serial, len: 0, warcinfo_id: None });
        self.next_serial = serial + 1;
        let id = record_id();
        let mut body = format!(
            "software: webcorpus/{} (https://github.com/webcorpus/webcorpus)\r\n\
             format: WARC File Format 1.1\r\n\
             conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n\
             robots: obey\r\n\
             http-header-user-agent: {}\r\n",
            env!("CARGO_PKG_VERSION"),
            self.info.user_agent,
        );
        for (name, value) in &self.info.settings {
            body.push_str(&format!("{name}: {value}\r\n"));
        }
        let fields = vec![
            ("WARC-Type", "warcinfo".to_string()),
            ("WARC-Record-ID", id.clone()),
            ("WARC-Date", humantime::format_rfc3339_seconds(SystemTime::now()).to_string()),
            ("WARC-Filename", name),
            ("WARC-Block-Digest", sha1_base32(body.as_bytes())),
            ("Content-Type", "application/warc-fields".to_string()),
        ];
        self.append(&fields, body.as_bytes())?;
        if let Some(f) = &mut self.current {
            f.warcinfo_id = Some(id);
        }
        Ok(())
    }

    /// Write one record as its own gzip member; returns the member's offset.
    fn append(&mut self, fields: &[(&str, String)], block: &[u8]) -> Result<u64, WarcError> {
        let mut raw = record_head(fields, block.len());
        raw.extend_from_slice(block);
        raw.extend_from_slice(member::RECORD_END);
        self.write_member(&member::whole_member(&raw))
    }

    /// Append one gzip member to the current file; returns its offset.
    fn write_member(&mut self, member: &[u8]) -> Result<u64, WarcError> {
        let f = self.current.as_mut().expect("a file is open after rotate_if_full");
        let offset = f.len;
        f.file.write_all(member).map_err(|source| WarcError::Io {
            path: self.dir.join(&f.name),
            op: "write",
            source,
        })?;
        f.len += member.len() as u64;
        Ok(offset)
    }
}

/// A record's header: the `WARC/1.1` line, `fields`, `Content-Length` of a block of
/// `block_len` bytes and the empty line.
fn record_head(fields: &[(&str, String)], block_len: usize) -> Vec<u8> {
    let mut raw = Vec::with_capacity(512);
    raw.extend_from_slice(b"WARC/1.1\r\n");
    for (name, value) in fields {
        raw.extend_from_slice(name.as_bytes());
        raw.extend_from_slice(b": ");
        raw.extend_from_slice(value.as_bytes());
        raw.extend_from_slice(b"\r\n");
    }
    raw.extend_from_slice(format!("Content-Length: {block_len}\r\n\r\n").as_bytes());
    raw
}

/// The serial number of a file this writer names with `prefix`, or `None` for other files.
fn file_serial(prefix: &str, name: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?.strip_prefix('-')?.strip_suffix(".warc.gz")?;
    let (stamp, serial) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(stamp) && digits(serial)).then(|| serial.parse().ok()).flatten()
}

/// A new `WARC-Record-ID`: a random (v4) UUID URN in angle brackets.
fn record_id() -> String {
    format!("<{}>", uuid::Uuid::new_v4().urn())
}

/// `sha1:` and the SHA-1 of `bytes` in base32 (RFC 4648), the digest form of WARC 1.1 §5.9.
pub fn sha1_base32(bytes: &[u8]) -> String {
    format!("sha1:{}", data_encoding::BASE32.encode(&Sha1::digest(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn exchange(body: &[u8]) -> HttpExchange {
        HttpExchange {
            url: "http://example.org/a".into(),
            ip: Some("127.0.0.1".parse().unwrap()),
            started: SystemTime::now(),
            request_head: b"GET /a HTTP/1.1\r\nhost: example.org\r\n\r\n".to_vec(),
            response_head: b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n".to_vec(),
            body: body.to_vec(),
            truncated: None,
            prepared: None,
        }
    }

    fn info() -> WarcInfo {
        WarcInfo { user_agent: "test/1".into(), settings: vec![("scope".into(), "host".into())] }
    }

    fn records(path: &Path) -> String {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(File::open(path).unwrap()).read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn digest_is_base32_sha1() {
        // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d (FIPS 180-2, appendix A).
        assert_eq!(sha1_base32(b"abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
    }

    /// An exchange whose block a worker deflated ahead is written as the same records, each
    /// its own readable member.
    #[test]
    fn a_prepared_exchange_writes_the_same_records() {
        let body: Vec<u8> = (0..5_000).flat_map(|i| format!("<p>paragraph {i}</p>").into_bytes()).collect();
        let written = |prepare: bool| {
            let dir = tempfile::tempdir().unwrap();
            let mut w = WarcWriter::open(dir.path(), &WarcConfig::default(), info(), None).unwrap();
            let mut x = exchange(&body);
            x.started = SystemTime::UNIX_EPOCH;
            if prepare {
                x.prepare();
            }
            let at = w.write_exchange(&x).unwrap();
            let path = dir.path().join(&at.file);
            let bytes = std::fs::read(&path).unwrap();
            let mut one = String::new();
            flate2::read::GzDecoder::new(&bytes[at.offset as usize..]).read_to_string(&mut one).unwrap();
            assert!(one.starts_with("WARC/1.1\r\nWARC-Type: response") && one.ends_with("</p>\r\n\r\n"));
            let ids = ["WARC-Record-ID", "WARC-Concurrent-To", "WARC-Warcinfo-ID", "WARC-Filename", "WARC-Date: 2"];
            records(&path).lines().filter(|l| !ids.iter().any(|k| l.starts_with(k))).collect::<Vec<_>>().join("\n")
        };
        assert_eq!(written(true), written(false));
    }

    #[test]
    fn records_are_members_and_resume_cuts_back_to_the_commit() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = WarcConfig::default();
        let mut w = WarcWriter::open(dir.path(), &cfg, info(), None).unwrap();
        let first = w.write_exchange(&exchange(b"<p>one</p>")).unwrap();
        let pos = w.sync().unwrap().unwrap();
        w.write_exchange(&exchange(b"<p>two, not committed</p>")).unwrap();
        drop(w);
        let path = dir.path().join(&pos.file);
        assert!(std::fs::metadata(&path).unwrap().len() > pos.offset);
        // The record is a gzip member of its own, readable from its offset.
        let bytes = std::fs::read(&path).unwrap();
        let mut one = String::new();
        flate2::read::GzDecoder::new(&bytes[first.offset as usize..]).read_to_string(&mut one).unwrap();
        assert!(one.starts_with("WARC/1.1\r\nWARC-Type: response\r\n"), "{one}");
        assert!(one.contains(&first.record_id) && one.contains("Content-Length: 10\r\n\r\n<p>one</p>"), "{one}");
        let mut w = WarcWriter::open(dir.path(), &cfg, info(), Some(&pos)).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), pos.offset);
        // Appended after the committed end, never over the file's start.
        let third = w.write_exchange(&exchange(b"<p>three</p>")).unwrap();
        assert_eq!(third.offset, pos.offset);
        drop(w);
        let text = records(&path);
        assert_eq!(text.matches("WARC-Type: response").count(), 2, "{text}");
        assert_eq!(text.matches("WARC-Type: warcinfo").count(), 1);
        assert!(text.contains("<p>one</p>") && text.contains("<p>three</p>") && !text.contains("not committed"));
    }

    #[test]
    fn files_rotate_and_uncommitted_files_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = WarcConfig { max_file_bytes: 1, ..WarcConfig::default() };
        let mut w = WarcWriter::open(dir.path(), &cfg, info(), None).unwrap();
        w.write_exchange(&exchange(b"a")).unwrap();
        let pos = w.sync().unwrap().unwrap();
        w.write_exchange(&exchange(b"b")).unwrap();
        w.write_exchange(&exchange(b"c")).unwrap();
        drop(w);
        let count = || std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(count(), 3);
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            assert!(file_serial("webcorpus", &name).is_some(), "{name}");
            assert!(records(&dir.path().join(&name)).starts_with("WARC/1.1\r\nWARC-Type: warcinfo"));
        }
        WarcWriter::open(dir.path(), &cfg, info(), Some(&pos)).unwrap();
        assert_eq!(count(), 1);
        // Nothing committed: every file of the prefix is an uncommitted leftover.
        WarcWriter::open(dir.path(), &cfg, info(), None).unwrap();
        assert_eq!(count(), 0);
    }

    #[test]
    fn a_short_committed_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let pos = WarcPosition { file: "webcorpus-20260101000000000-00000.warc.gz".into(), serial: 0, offset: 10 };
        std::fs::write(dir.path().join(&pos.file), b"12").unwrap();
        let err = WarcWriter::open(dir.path(), &WarcConfig::default(), info(), Some(&pos)).err().unwrap();
        assert!(matches!(err, WarcError::Truncated { expected: 10, found: 2, .. }), "{err}");
    }
}
