//! The HTTP exchanges of a fetch as [`HttpExchange`]s for the WARC output
//! ([`crate::write::warc`]): the request head as sent (request line, `Host`, `User-Agent`,
//! `Accept`, `Accept-Encoding`: the headers this fetcher and its client set) and the response
//! head as received, with `Content-Length` and `Transfer-Encoding` moved aside because the
//! stored payload is decoded (see the WARC module's docs).

use std::time::SystemTime;

use reqwest::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use url::Url;

use crate::crawl::url::host_key;
use crate::write::warc::{HttpExchange, Truncation};

/// What the client asks for: reqwest's `gzip` and `deflate` features (the only codings accepted).
const ACCEPT_ENCODING: &str = "gzip, deflate";

/// The headers this fetcher set on a request (the client adds `Host` and `Accept-Encoding`).
pub(super) struct Sent<'a> {
    pub(super) user_agent: &'a str,
    /// Empty: not sent.
    pub(super) accept: &'a str,
    /// `If-None-Match`, `If-Modified-Since`.
    pub(super) conditional: &'a [(&'static str, String)],
}

/// An exchange whose response head is in, body still to come.
pub(super) struct Pending {
    url: String,
    ip: Option<std::net::IpAddr>,
    started: SystemTime,
    request_head: Vec<u8>,
    response_head: Vec<u8>,
}

impl Pending {
    /// The exchange of `response`, an answer to a GET of `url` sent at `started` with the
    /// headers `sent`.
    pub(super) fn new(url: &Url, response: &reqwest::Response, started: SystemTime, sent: &Sent<'_>) -> Pending {
        let version = match response.version() {
            reqwest::Version::HTTP_10 => "HTTP/1.0",
            _ => "HTTP/1.1",
        };
        let mut target = url.path().to_string();
        if let Some(query) = url.query() {
            target.push('?');
            target.push_str(query);
        }
        let mut request = format!(
            "GET {target} {version}\r\nHost: {}\r\nUser-Agent: {}\r\n",
            host_key(url).unwrap_or_default(),
            sent.user_agent
        );
        if !sent.accept.is_empty() {
            request.push_str(&format!("Accept: {}\r\n", sent.accept));
        }
        for (name, value) in sent.conditional {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!("Accept-Encoding: {ACCEPT_ENCODING}\r\n\r\n"));
        let status = response.status();
        let mut head =
            format!("{version} {} {}\r\n", status.as_u16(), status.canonical_reason().unwrap_or("")).into_bytes();
        for (name, value) in response.headers() {
            if name == CONTENT_LENGTH || name == TRANSFER_ENCODING {
                head.extend_from_slice(b"X-Crawler-");
            }
            head.extend_from_slice(name.as_str().as_bytes());
            head.extend_from_slice(b": ");
            head.extend_from_slice(value.as_bytes());
            head.extend_from_slice(b"\r\n");
        }
        Pending {
            url: url.to_string(),
            ip: response.remote_addr().map(|a| a.ip()),
            started,
            request_head: request.into_bytes(),
            response_head: head,
        }
    }

    /// The whole exchange, with the payload as stored.
    pub(super) fn finish(self, body: Vec<u8>, truncated: Option<Truncation>) -> HttpExchange {
        HttpExchange {
            url: self.url,
            ip: self.ip,
            started: self.started,
            request_head: self.request_head,
            response_head: self.response_head,
            body,
            truncated,
            prepared: None,
        }
    }
}
