//! WARC input for `webcorpus extract`: the principal function is [`read_warc`], which streams
//! the records of a `.warc` or `.warc.gz` file (every gzip member, one record in memory at a
//! time; WARC/1.0 and 1.1, ISO 28500) through the `warc` crate and hands each HTML response to a
//! callback as a [`WarcPage`]. Other records are counted by reason ([`Skip`]).
//!
//! WARC files come from third parties, so memory is bounded whatever they hold: a record's
//! header block may take [`MAX_HEADER_BYTES`] at most (the `warc` crate reads header lines
//! without a limit; [`HeaderGuard`] gives it one), and a block is read only when its declared
//! length is at most [`MAX_BLOCK_BYTES`]; a longer one is streamed past and counted as
//! [`Skip::TooLarge`], as is a payload that decodes to more than [`MAX_PAYLOAD_BYTES`].
//!
//! Each page carries its record's offset in the file ([`WarcPage::offset`]; for `.warc.gz`
//! the offset of the gzip member the record begins, [`members`]) and, when the file holds the
//! redirects that led to it, the URL first requested ([`WarcPage::requested_url`]). A file
//! that does not begin with a WARC record is refused, not read as empty.
//!
//! A `response` record's block is the HTTP response as received: status line, headers, body.
//! The headers are parsed with `httparse`; a body still in `Transfer-Encoding: chunked` is
//! de-chunked, one in gzip or deflate `Content-Encoding` is decoded (others are skipped), and
//! only 2xx responses with an HTML content type (or none) become pages.

pub mod members;

use flate2::read::{MultiGzDecoder, ZlibDecoder};
use members::{MemberStarts, Members};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use warc::{RecordType, WarcHeader, WarcReader};

/// The most bytes a decoded payload may have; larger ones are skipped as [`Skip::TooLarge`].
pub const MAX_PAYLOAD_BYTES: u64 = 50 * 1024 * 1024;
/// The most bytes of a `response` record's block (HTTP head and payload as stored) that are
/// read; a record declaring more is streamed past as [`Skip::TooLarge`].
pub const MAX_BLOCK_BYTES: u64 = MAX_PAYLOAD_BYTES + 1024 * 1024;
/// The most bytes of one record's header block (the `WARC/1.1` line and the named fields);
/// more is a malformed file ([`WarcInputError::Record`]).
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// One HTML response of a WARC file.
#[derive(Debug, Clone)]
pub struct WarcPage {
    /// `WARC-Target-URI`.
    pub url: String,
    /// `WARC-Record-ID` (`<urn:uuid:…>`).
    pub record_id: String,
    /// `WARC-Date`, RFC 3339 as written (absent when the record has none).
    pub date: Option<String>,
    /// The HTTP status.
    pub status: u16,
    /// The HTTP `Content-Type`, if any.
    pub content_type: Option<String>,
    /// The payload, transfer and content encodings undone.
    pub body: Vec<u8>,
    /// Bytes from the file's start to the record: for `.warc.gz` the compressed offset of the
    /// gzip member the record begins (where a reader seeks to); `None` when the record begins
    /// inside a member (a file compressed as one stream).
    pub offset: Option<u64>,
    /// The URL first requested when earlier `response` records of the file redirected (3xx
    /// with `Location`) to this one, following the chain back to its start; `None` otherwise.
    pub requested_url: Option<String>,
}

/// Why a record gave no page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    /// Not a `response` record (`warcinfo`, `request`, `metadata`, `revisit`, `resource`, ...).
    NotResponse,
    /// A response whose block is not an HTTP response.
    NotHttp,
    /// A response with a non-2xx status.
    HttpStatus,
    /// A response whose content type is not HTML.
    NotHtml,
    /// A payload in a content encoding other than gzip and deflate, or broken.
    BadEncoding,
    /// A payload over [`MAX_PAYLOAD_BYTES`] once decoded.
    TooLarge,
}

impl Skip {
    /// The counter name: `not_response`, `http_status`, ...
    pub fn key(self) -> &'static str {
        match self {
            Skip::NotResponse => "not_response",
            Skip::NotHttp => "not_http",
            Skip::HttpStatus => "http_status",
            Skip::NotHtml => "not_html",
            Skip::BadEncoding => "bad_encoding",
            Skip::TooLarge => "too_large",
        }
    }
}

/// What [`read_warc`] read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarcCounts {
    /// Records read.
    pub records: u64,
    /// Records given to the callback as pages.
    pub pages: u64,
    /// Records skipped, by reason.
    pub skipped: BTreeMap<Skip, u64>,
    /// Damage read past: per malformed record after which a later record's `WARC/1.` version
    /// line was found and reading went on from it, the error (file, record number, message).
    /// The records between the damage and that line are lost.
    pub damaged: Vec<String>,
}

/// Why a WARC file could not be read (to the end).
#[derive(Debug, thiserror::Error)]
pub enum WarcInputError {
    /// The file could not be opened.
    #[error("{path}: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A record is malformed or the file is cut; the records before it were read.
    #[error("{}: record {record}{}: {message}", path.display(), place(*.offset, .record_id.as_deref()))]
    Record {
        /// The file.
        path: PathBuf,
        /// 1-based number of the bad record.
        record: u64,
        /// Where the bad record begins in the file (as [`WarcPage::offset`]), when known.
        offset: Option<u64>,
        /// Its `WARC-Record-ID`, when its header was read.
        record_id: Option<String>,
        /// The reader's message.
        message: String,
    },
}

/// " (offset N, <urn:…>)" for an error message, or nothing.
fn place(offset: Option<u64>, record_id: Option<&str>) -> String {
    let parts: Vec<String> =
        offset.map(|o| format!("offset {o}")).into_iter().chain(record_id.map(str::to_string)).collect();
    match parts.is_empty() {
        true => String::new(),
        false => format!(" ({})", parts.join(", ")),
    }
}

/// Is `path` a WARC file by its name (`.warc`, `.warc.gz`)?
pub fn is_warc(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

/// Read every record of the WARC file at `path` (gzip when its name ends in `.gz`), calling
/// `on_page` for each HTML response in file order.
///
/// # Errors
/// [`WarcInputError`] when the file cannot be opened or a record is malformed; the pages
/// before it were handed on already.
pub fn read_warc(path: &Path, on_page: impl FnMut(WarcPage)) -> Result<WarcCounts, WarcInputError> {
    read_warc_with_progress(path, None, on_page)
}

/// [`read_warc`], advancing `progress` by the file's bytes as they are read (compressed bytes
/// for a gzip file).
///
/// # Errors
/// As [`read_warc`].
pub fn read_warc_with_progress(
    path: &Path,
    progress: Option<&indicatif::ProgressBar>,
    on_page: impl FnMut(WarcPage),
) -> Result<WarcCounts, WarcInputError> {
    let file = std::fs::File::open(path).map_err(|source| WarcInputError::Open { path: path.into(), source })?;
    let file: Box<dyn Read> = match progress {
        Some(bar) => Box::new(bar.wrap_read(file)),
        None => Box::new(file),
    };
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        let starts = MemberStarts::default();
        let reader = Members::new(BufReader::new(file), starts.clone());
        read_warc_from(path, reader, Some(&starts), on_page)
    } else {
        read_warc_from(path, file, None, on_page)
    }
}

/// [`read_warc`] on the (decompressed) bytes of `reader`; `path` names the file in errors;
/// `members` are the gzip member starts of a compressed file.
fn read_warc_from(
    path: &Path,
    reader: impl Read,
    members: Option<&MemberStarts>,
    mut on_page: impl FnMut(WarcPage),
) -> Result<WarcCounts, WarcInputError> {
    let mut counts = WarcCounts::default();
    let error = |counts: &WarcCounts, offset: Option<u64>, record_id: Option<String>, message: String| {
        WarcInputError::Record { path: path.into(), record: counts.records, offset, record_id, message }
    };
    // The file offset of a record that begins at `start` of the decompressed stream.
    let file_offset = |start: u64| match members {
        Some(members) => members.take(start),
        None => Some(start),
    };
    let mut guard = HeaderGuard::new(BufReader::with_capacity(1 << 16, reader));
    let record_start = guard.record_start();
    let head = guard.fill_buf().map_err(|e| error(&counts, Some(0), None, e.to_string()))?;
    if !b"WARC/".starts_with(&head[..head.len().min(5)]) {
        counts.records = 1;
        return Err(error(
            &counts,
            Some(0),
            None,
            "not a WARC file: it does not begin with a WARC/1.0 or WARC/1.1 record".into(),
        ));
    }
    let mut redirects = Redirects::default();
    loop {
        let mut warc = WarcReader::new(&mut guard);
        let mut records = warc.stream_records();
        let mut damage = None;
        // The offset and id of the record read last.
        let mut last: (Option<u64>, Option<String>) = (None, None);
        while let Some(record) = records.next_item() {
            counts.records += 1;
            let mut record = match record {
                Ok(record) => record,
                Err(e) => {
                    // The crate reads to the end of the record before (checking its CR LF CR
                    // LF) as it starts the next: those failures are the record before's.
                    let message = with_source(&e);
                    let previous = if matches!(e, warc::Error::UnexpectedEOB) {
                        Some("the file ends inside its block (before its Content-Length)")
                    } else if message.contains("[13, 10, 13, 10]") {
                        Some("its block does not end where its Content-Length says")
                    } else {
                        None
                    };
                    damage = Some(match previous {
                        Some(what) => WarcInputError::Record {
                            path: path.into(),
                            record: counts.records - 1,
                            offset: last.0,
                            record_id: last.1.take(),
                            message: what.into(),
                        },
                        None => error(&counts, file_offset(record_start.get()), None, message),
                    });
                    break;
                }
            };
            let offset = file_offset(record_start.get());
            last = (offset, Some(record.warc_id().to_string()));
            if *record.warc_type() != RecordType::Response {
                *counts.skipped.entry(Skip::NotResponse).or_default() += 1;
                continue;
            }
            // WARC/1.0 writers (dolma's among them) put the URI in angle brackets, as 1.0's
            // grammar showed it; 1.1 dropped them.
            let url = record
                .header(WarcHeader::TargetURI)
                .map(|u| u.trim().trim_start_matches('<').trim_end_matches('>').to_string())
                .unwrap_or_default();
            let date = record.header(WarcHeader::Date).map(|d| d.trim().to_string());
            let record_id = record.warc_id().to_string();
            let declared = record.content_length();
            if declared > MAX_BLOCK_BYTES {
                // Streamed past by the next `next_item`, never held.
                *counts.skipped.entry(Skip::TooLarge).or_default() += 1;
                continue;
            }
            let mut block = Vec::with_capacity(declared as usize);
            if let Err(e) = record.read_to_end(&mut block) {
                damage = Some(error(&counts, offset, last.1.clone(), e.to_string()));
                break;
            }
            match http_page(&block) {
                Ok((status, content_type, body)) => {
                    counts.pages += 1;
                    let requested_url = redirects.origin_of(&url);
                    on_page(WarcPage { url, record_id, date, status, content_type, body, offset, requested_url });
                }
                Err(skip) => {
                    if let (Skip::HttpStatus, Some(location)) = (skip, redirect_location(&block)) {
                        redirects.note(&url, &location);
                    }
                    *counts.skipped.entry(skip).or_default() += 1
                }
            }
        }
        let Some(damage) = damage else { return Ok(counts) };
        // Read on from the next record's version line, if the file has one after the damage.
        match guard.skip_to_record() {
            Ok(true) => counts.damaged.push(format!("{damage}; read on from the next record")),
            Ok(false) | Err(_) => return Err(damage),
        }
    }
}

/// `e`'s message followed by its source's (the `warc` crate's read errors name only their
/// kind).
fn with_source(e: &dyn std::error::Error) -> String {
    match e.source() {
        Some(source) => format!("{e} {source}"),
        None => e.to_string(),
    }
}

/// Redirect chains of one file so far: each redirect target (its URL as `url` writes it)
/// with the URL its chain began at. At most [`MAX_REDIRECTS`] are held; beyond, the oldest
/// chains are forgotten (a page and its redirects lie close together in a crawler's file).
#[derive(Debug, Default)]
struct Redirects {
    origin: HashMap<String, String>,
}

/// Redirect targets held at most ([`Redirects`]).
const MAX_REDIRECTS: usize = 100_000;

impl Redirects {
    /// The key of a URL: its `url` serialisation, else the text.
    fn key(url: &str) -> String {
        url::Url::parse(url).map(String::from).unwrap_or_else(|_| url.to_string())
    }

    /// A response for `from` redirected to `location` (relative to `from`).
    fn note(&mut self, from: &str, location: &str) {
        let Some(to) = url::Url::parse(from).ok().and_then(|base| base.join(location).ok()) else { return };
        let from = Self::key(from);
        let origin = self.origin.remove(&from).unwrap_or(from);
        if self.origin.len() >= MAX_REDIRECTS {
            self.origin.clear();
        }
        self.origin.insert(to.into(), origin);
    }

    /// The URL whose redirects led to `url`, if any (forgotten once asked).
    fn origin_of(&mut self, url: &str) -> Option<String> {
        match self.origin.is_empty() {
            true => None,
            false => self.origin.remove(&Self::key(url)),
        }
    }
}

/// The `Location` of an HTTP response block with a 3xx status.
fn redirect_location(block: &[u8]) -> Option<String> {
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut response = httparse::Response::new(&mut headers);
    response.parse(block).ok()?;
    if !(300..400).contains(&response.code?) {
        return None;
    }
    let location = response.headers.iter().find(|h| h.name.eq_ignore_ascii_case("location"))?;
    Some(String::from_utf8_lossy(location.value).trim().to_string()).filter(|l| !l.is_empty())
}

/// A buffered reader that bounds what the `warc` crate's header parsing may hold: its
/// `read_until` (which the crate uses for header lines only) fails once the lines read since
/// the last plain `read` (a block's bytes) pass [`MAX_HEADER_BYTES`]. It also counts the bytes
/// taken from it, and notes where each header began ([`HeaderGuard::record_start`]).
pub struct HeaderGuard<R> {
    inner: R,
    /// Bytes given back by [`HeaderGuard::skip_to_record`] (the version line's start it
    /// matched), served before `inner`'s; `pending_at` of them were taken.
    pending: Vec<u8>,
    pending_at: usize,
    /// Bytes handed out by `read_until` since the last `read`.
    header_bytes: usize,
    /// Bytes taken so far.
    position: u64,
    /// `position` when the current header's first line was read.
    record_start: Rc<Cell<u64>>,
}

impl<R> HeaderGuard<R> {
    /// Guard `inner`.
    pub fn new(inner: R) -> HeaderGuard<R> {
        HeaderGuard {
            inner,
            pending: Vec::new(),
            pending_at: 0,
            header_bytes: 0,
            position: 0,
            record_start: Rc::default(),
        }
    }

    /// The offset (bytes taken before it) of the latest record header, updated as its first
    /// line is read.
    pub fn record_start(&self) -> Rc<Cell<u64>> {
        self.record_start.clone()
    }
}

impl<R: BufRead> HeaderGuard<R> {
    /// After a malformed record: skip to the next `WARC/1.` (a record's version line) within
    /// [`MAX_RESYNC_BYTES`], leaving it to be read next. `false` when there is none.
    ///
    /// # Errors
    /// The reader's.
    pub fn skip_to_record(&mut self) -> std::io::Result<bool> {
        const LINE: &[u8] = b"WARC/1.";
        let mut matched = 0;
        let mut scanned = 0u64;
        while scanned < MAX_RESYNC_BYTES {
            let available = self.fill_buf()?;
            if available.is_empty() {
                return Ok(false);
            }
            let mut used = available.len();
            for (i, &b) in available.iter().enumerate() {
                matched = match b == LINE[matched] {
                    true => matched + 1,
                    false => usize::from(b == LINE[0]),
                };
                if matched == LINE.len() {
                    used = i + 1;
                    break;
                }
            }
            self.consume(used);
            scanned += used as u64;
            if matched == LINE.len() {
                // Give the matched line start back: the next record begins with it.
                self.pending = LINE.to_vec();
                self.pending_at = 0;
                self.position -= LINE.len() as u64;
                self.header_bytes = 0;
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The most bytes [`HeaderGuard::skip_to_record`] reads looking for the next record.
pub const MAX_RESYNC_BYTES: u64 = 64 * 1024 * 1024;

impl<R: BufRead> Read for HeaderGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.header_bytes = 0;
        let n = if self.pending_at < self.pending.len() {
            let n = buf.len().min(self.pending.len() - self.pending_at);
            buf[..n].copy_from_slice(&self.pending[self.pending_at..self.pending_at + n]);
            self.pending_at += n;
            n
        } else {
            self.inner.read(buf)?
        };
        self.position += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for HeaderGuard<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pending_at < self.pending.len() {
            return Ok(&self.pending[self.pending_at..]);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.position += amount as u64;
        if self.pending_at < self.pending.len() {
            self.pending_at += amount;
        } else {
            self.inner.consume(amount);
        }
    }

    fn read_until(&mut self, byte: u8, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        if self.header_bytes == 0 {
            self.record_start.set(self.position);
        }
        let mut read = 0;
        loop {
            let header_bytes = self.header_bytes;
            let available = self.fill_buf()?;
            if available.is_empty() {
                return Ok(read);
            }
            let (found, used) = match available.iter().position(|&b| b == byte) {
                Some(i) => (true, i + 1),
                None => (false, available.len()),
            };
            if header_bytes + used > MAX_HEADER_BYTES {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("a record's header is longer than {MAX_HEADER_BYTES} bytes"),
                ));
            }
            buf.extend_from_slice(&available[..used]);
            self.consume(used);
            self.header_bytes += used;
            read += used;
            if found {
                return Ok(read);
            }
        }
    }
}

/// Status, content type and decoded payload of an HTTP response block with an HTML 2xx
/// answer.
fn http_page(block: &[u8]) -> Result<(u16, Option<String>, Vec<u8>), Skip> {
    let mut headers = [httparse::EMPTY_HEADER; 128];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(block) {
        Ok(httparse::Status::Complete(n)) => n,
        _ => return Err(Skip::NotHttp),
    };
    let status = response.code.ok_or(Skip::NotHttp)?;
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
    };
    let content_type = header("content-type");
    if !(200..300).contains(&status) {
        return Err(Skip::HttpStatus);
    }
    let essence = content_type.as_deref().and_then(|c| c.split(';').next()).unwrap_or("").trim().to_ascii_lowercase();
    if !(essence.is_empty() || essence == "text/html" || essence == "application/xhtml+xml") {
        return Err(Skip::NotHtml);
    }
    let mut body = block[head_len..].to_vec();
    if header("transfer-encoding").is_some_and(|t| t.to_ascii_lowercase().contains("chunked")) {
        if let Some(plain) = dechunk(&body) {
            body = plain;
        }
    }
    let body = match header("content-encoding").map(|e| e.to_ascii_lowercase()).as_deref() {
        None | Some("" | "identity") => body,
        Some("gzip" | "x-gzip") => decode(MultiGzDecoder::new(&body[..]))?,
        Some("deflate") => decode(ZlibDecoder::new(&body[..]))?,
        Some(_) => return Err(Skip::BadEncoding),
    };
    if body.len() as u64 > MAX_PAYLOAD_BYTES {
        return Err(Skip::TooLarge);
    }
    Ok((status, content_type, body))
}

/// Read a decoder to the end, at most [`MAX_PAYLOAD_BYTES`] + 1 bytes.
fn decode(reader: impl Read) -> Result<Vec<u8>, Skip> {
    let mut out = Vec::new();
    reader.take(MAX_PAYLOAD_BYTES + 1).read_to_end(&mut out).map_err(|_| Skip::BadEncoding)?;
    Ok(out)
}

/// The body of a chunked transfer coding (RFC 9112 §7.1), or `None` when `body` is not one
/// (many WARC writers store the payload de-chunked but keep the header).
fn dechunk(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut pos = 0;
    loop {
        let line_end = pos + body.get(pos..)?.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[pos..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        pos = line_end + 2;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(pos..pos.checked_add(size)?)?);
        pos += size + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_blocks_are_parsed_and_decoded() {
        let page = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<p>hi\r\n4\r\n</p>\r\n0\r\n\r\n";
        let (status, ct, body) = http_page(page).expect("a page");
        assert_eq!(
            (status, ct.as_deref(), body.as_slice()),
            (200, Some("text/html; charset=utf-8"), &b"<p>hi</p>"[..])
        );
        let plain = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n<p>already de-chunked</p>";
        assert_eq!(http_page(plain).expect("a page").2, b"<p>already de-chunked</p>");
        assert_eq!(http_page(b"HTTP/1.1 404 Not Found\r\n\r\nx").unwrap_err(), Skip::HttpStatus);
        assert_eq!(http_page(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n").unwrap_err(), Skip::NotHtml);
        assert_eq!(http_page(b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\nx").unwrap_err(), Skip::BadEncoding);
        assert_eq!(http_page(b"<html>not http").unwrap_err(), Skip::NotHttp);
    }

    fn record(kind: &str, block: &[u8], declared: u64) -> Vec<u8> {
        let head = format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{}>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n\
             WARC-Target-URI: http://example.org/\r\nContent-Length: {declared}\r\n\r\n",
            uuid::Uuid::new_v4()
        );
        [head.as_bytes(), block, b"\r\n\r\n"].concat()
    }

    fn read(bytes: impl Read) -> Result<WarcCounts, WarcInputError> {
        read_warc_from(Path::new("test.warc"), bytes, None, |_| {})
    }

    const PAGE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>";

    /// A file from a stranger cannot make the reader hold more than a bounded record: an
    /// endless header line and an endless run of header lines are errors after
    /// MAX_HEADER_BYTES, a block declared over MAX_BLOCK_BYTES is streamed past (the records
    /// after it are read), and one declaring more than the file holds ends the file with an
    /// error, not an allocation of its claim.
    #[test]
    fn a_hostile_file_is_read_in_bounded_memory() {
        let endless_line = b"WARC/1.1 ".chain(std::io::repeat(b'a'));
        let e = read(endless_line).unwrap_err().to_string();
        assert!(e.contains("header is longer than"), "{e}");
        let endless_lines = b"WARC/1.1\r\n".iter().copied().chain(std::iter::repeat(*b"X-A: b\r\n").flatten());
        let e = read(std::io::Cursor::new(endless_lines.take(3 * MAX_HEADER_BYTES).collect::<Vec<u8>>())).unwrap_err();
        assert!(e.to_string().contains("header is longer than"), "{e}");

        let over = MAX_BLOCK_BYTES + 10 * 1024 * 1024;
        let big_block = std::io::repeat(0).take(over);
        let head = record("response", b"", over);
        let head = &head[..head.len() - 4];
        let tail = [b"\r\n\r\n".as_slice(), &record("response", PAGE, PAGE.len() as u64)].concat();
        let counts = read(head.chain(big_block).chain(&tail[..])).expect("read past the large record");
        assert_eq!((counts.records, counts.pages), (2, 1));
        assert_eq!(counts.skipped.get(&Skip::TooLarge), Some(&1));

        // Streamed past, the claim runs into the end of the file: the damage is the claiming
        // record's, named by its offset and id.
        let claim = record("response", PAGE, 2_147_483_648);
        let e = read(&claim[..]).unwrap_err();
        assert!(matches!(e, WarcInputError::Record { record: 1, offset: Some(0), record_id: Some(_), .. }), "{e}");
        assert!(e.to_string().contains("the file ends inside its block"), "{e}");
    }

    fn response_at(uri: &str, http: &[u8]) -> Vec<u8> {
        let head = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{}>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n\
             WARC-Target-URI: {uri}\r\n\
             Content-Length: {}\r\n\r\n",
            uuid::Uuid::new_v4(),
            http.len()
        );
        [head.as_bytes(), http, b"\r\n\r\n"].concat()
    }

    /// Each page knows its record's byte offset, and a page reached through redirects in the
    /// file knows the URL first requested (a chain of two hops, the second one relative).
    #[test]
    fn pages_carry_their_offset_and_the_url_first_requested() {
        let records = [
            record("warcinfo", b"software: test", 14),
            response_at("http://example.org/a", b"HTTP/1.1 301 Moved\r\nLocation: https://example.org/b\r\n\r\n"),
            response_at("https://example.org/b", b"HTTP/1.1 302 Found\r\nLocation: /c?x=1\r\n\r\n"),
            response_at("https://example.org/c?x=1", PAGE),
            response_at("http://example.org/d", PAGE),
        ];
        let file = records.concat();
        let mut pages = Vec::new();
        let counts = read_warc_from(Path::new("t.warc"), &file[..], None, |p| pages.push(p)).unwrap();
        assert_eq!((counts.records, counts.pages), (5, 2));
        let at = |i: usize| records[..i].iter().map(Vec::len).sum::<usize>() as u64;
        assert_eq!(pages[0].offset, Some(at(3)));
        assert_eq!(pages[0].requested_url.as_deref(), Some("http://example.org/a"));
        assert_eq!((pages[1].offset, pages[1].requested_url.as_deref()), (Some(at(4)), None));
    }

    /// A record whose Content-Length is wrong is read past: reading goes on at the next
    /// record's version line, the damage is counted, and the pages after it are read with
    /// their own offsets.
    #[test]
    fn a_malformed_record_is_read_past_to_the_next_one() {
        let good = response_at("http://example.org/a", PAGE);
        let bad = String::from_utf8(response_at("http://example.org/b", PAGE)).unwrap();
        let bad = bad.replacen(&format!("Content-Length: {}", PAGE.len()), "Content-Length: 9", 1);
        let after = response_at("http://example.org/c", PAGE);
        let file = [good.as_slice(), bad.as_bytes(), &after, &good].concat();
        let mut pages = Vec::new();
        let counts = read_warc_from(Path::new("t.warc"), &file[..], None, |p| pages.push(p)).expect("read past");
        assert_eq!(counts.damaged.len(), 1, "{:?}", counts.damaged);
        // Named by number, offset and id: the record before the one whose header came next.
        let named = format!("record 2 (offset {}, ", good.len());
        assert!(counts.damaged[0].contains(&named), "{:?}", counts.damaged);
        assert!(counts.damaged[0].contains("its block does not end where its Content-Length says"));
        let urls: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
        assert_eq!(urls, ["http://example.org/a", "http://example.org/c", "http://example.org/a"]);
        let c_at = (good.len() + bad.len()) as u64;
        assert_eq!(pages[1].offset, Some(c_at));
        // An endless line after a malformed record: bounded, the damage stands.
        let endless = b"WARC/1.1 ".chain(std::io::repeat(b'a'));
        assert!(read(endless).is_err());
    }

    /// A file that is not WARC is an error, not an empty file; an empty file has no records.
    #[test]
    fn a_file_that_is_not_warc_is_refused() {
        let noise: Vec<u8> = (0..100_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let e = read(&noise[..]).unwrap_err().to_string();
        assert!(e.contains("not a WARC file"), "{e}");
        assert_eq!(read(&b""[..]).unwrap().records, 0);
    }

    #[test]
    fn names() {
        assert!(is_warc(Path::new("a/CC-MAIN-1.warc.gz")));
        assert!(is_warc(Path::new("x.WARC")));
        assert!(!is_warc(Path::new("page.html.gz")));
    }
}
