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
//! A `response` record's block is the HTTP response as received: status line, headers, body.
//! The headers are parsed with `httparse`; a body still in `Transfer-Encoding: chunked` is
//! de-chunked, one in gzip or deflate `Content-Encoding` is decoded (others are skipped), and
//! only 2xx responses with an HTML content type (or none) become pages.

use flate2::read::{MultiGzDecoder, ZlibDecoder};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
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
    #[error("{path}: record {record}: {message}")]
    Record {
        /// The file.
        path: PathBuf,
        /// 1-based number of the bad record.
        record: u64,
        /// The reader's message.
        message: String,
    },
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
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        Box::new(MultiGzDecoder::new(BufReader::new(file)))
    } else {
        Box::new(file)
    };
    read_warc_from(path, reader, on_page)
}

/// [`read_warc`] on the (decompressed) bytes of `reader`; `path` names the file in errors.
fn read_warc_from(
    path: &Path,
    reader: impl Read,
    mut on_page: impl FnMut(WarcPage),
) -> Result<WarcCounts, WarcInputError> {
    let mut counts = WarcCounts::default();
    let error = |counts: &WarcCounts, message: String| WarcInputError::Record {
        path: path.into(),
        record: counts.records,
        message,
    };
    let mut warc = WarcReader::new(HeaderGuard::new(BufReader::with_capacity(1 << 16, reader)));
    let mut records = warc.stream_records();
    while let Some(record) = records.next_item() {
        counts.records += 1;
        let mut record = record.map_err(|e| error(&counts, with_source(&e)))?;
        if *record.warc_type() != RecordType::Response {
            *counts.skipped.entry(Skip::NotResponse).or_default() += 1;
            continue;
        }
        // WARC/1.0 writers (dolma's among them) put the URI in angle brackets, as 1.0's grammar
        // showed it; 1.1 dropped them.
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
        record.read_to_end(&mut block).map_err(|e| error(&counts, e.to_string()))?;
        match http_page(&block) {
            Ok((status, content_type, body)) => {
                counts.pages += 1;
                on_page(WarcPage { url, record_id, date, status, content_type, body });
            }
            Err(skip) => *counts.skipped.entry(skip).or_default() += 1,
        }
    }
    Ok(counts)
}

/// `e`'s message followed by its source's (the `warc` crate's read errors name only their
/// kind).
fn with_source(e: &dyn std::error::Error) -> String {
    match e.source() {
        Some(source) => format!("{e} {source}"),
        None => e.to_string(),
    }
}

/// A buffered reader that bounds what the `warc` crate's header parsing may hold: its
/// `read_until` (which the crate uses for header lines only) fails once the lines read since
/// the last plain `read` (a block's bytes) pass [`MAX_HEADER_BYTES`].
pub struct HeaderGuard<R> {
    inner: R,
    /// Bytes handed out by `read_until` since the last `read`.
    header_bytes: usize,
}

impl<R> HeaderGuard<R> {
    /// Guard `inner`.
    pub fn new(inner: R) -> HeaderGuard<R> {
        HeaderGuard { inner, header_bytes: 0 }
    }
}

impl<R: BufRead> Read for HeaderGuard<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.header_bytes = 0;
        self.inner.read(buf)
    }
}

impl<R: BufRead> BufRead for HeaderGuard<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
    }

    fn read_until(&mut self, byte: u8, buf: &mut Vec<u8>) -> std::io::Result<usize> {
        let mut read = 0;
        loop {
            let available = self.inner.fill_buf()?;
            if available.is_empty() {
                return Ok(read);
            }
            let (found, used) = match available.iter().position(|&b| b == byte) {
                Some(i) => (true, i + 1),
                None => (false, available.len()),
            };
            if self.header_bytes + used > MAX_HEADER_BYTES {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("a record's header is longer than {MAX_HEADER_BYTES} bytes"),
                ));
            }
            buf.extend_from_slice(&available[..used]);
            self.inner.consume(used);
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
        read_warc_from(Path::new("test.warc"), bytes, |_| {})
    }

    const PAGE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>";

    /// A file from a stranger cannot make the reader hold more than a bounded record: an
    /// endless header line and an endless run of header lines are errors after
    /// MAX_HEADER_BYTES, a block declared over MAX_BLOCK_BYTES is streamed past (the records
    /// after it are read), and one declaring more than the file holds ends the file with an
    /// error, not an allocation of its claim.
    #[test]
    fn a_hostile_file_is_read_in_bounded_memory() {
        let endless_line = std::io::repeat(b'a');
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

        // Streamed past, the claim runs into the end of the file: an error at the next record.
        let claim = record("response", PAGE, 2_147_483_648);
        let e = read(&claim[..]).unwrap_err();
        assert!(matches!(e, WarcInputError::Record { record: 2, .. }), "{e}");
    }

    #[test]
    fn names() {
        assert!(is_warc(Path::new("a/CC-MAIN-1.warc.gz")));
        assert!(is_warc(Path::new("x.WARC")));
        assert!(!is_warc(Path::new("page.html.gz")));
    }
}
