//! URL sources besides links: sitemaps (the sitemaps.org protocol 0.9: `urlset` and
//! `sitemapindex`, plain or gzip) and RSS and Atom feeds (`feed-rs`). The principal function is
//! [`parse_source`], which turns a fetched sitemap or feed into the page URLs and the nested
//! sitemaps it lists; the committer queues them like links (scope, `max_pages_per_host`), and
//! dispatch fetches them under robots.txt and politeness like any URL.
//!
//! Where they come from: a host's robots.txt `Sitemap:` lines, else its `/sitemap.xml`
//! (queued when its robots.txt is first fetched); the sitemaps a sitemap index lists; the feeds
//! a seed page announces with `<link rel="alternate" type="application/rss+xml">` (or
//! `atom+xml`) — a site's main feed is announced on every page, so the seed page finds it,
//! while the per-post comment feeds of deeper pages are left alone.

use std::io::Read;

use quick_xml::events::Event;
use url::Url;

use crate::store::UrlKind;

/// The most URLs one sitemap may list (sitemaps.org); later ones are ignored.
pub const MAX_SITEMAP_URLS: usize = 50_000;
/// The most bytes of one sitemap or feed, uncompressed (sitemaps.org: 50 MB); a larger one is
/// refused when fetched and cut when decompressed.
pub const MAX_SOURCE_BYTES: u64 = 50 * 1024 * 1024;
/// Sitemap levels followed: a robots.txt sitemap (1) may be an index listing sitemaps (2);
/// the protocol allows no deeper nesting.
pub const MAX_SITEMAP_DEPTH: u32 = 2;

/// Media types accepted for sitemaps and feeds (servers label both loosely).
pub const SOURCE_CONTENT_TYPES: &[&str] = &[
    "application/xml",
    "text/xml",
    "application/rss+xml",
    "application/atom+xml",
    "application/rdf+xml",
    "application/x-gzip",
    "application/gzip",
    "application/octet-stream",
    "text/plain",
];

/// Why a sitemap or feed gave no URLs.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The body is not well-formed XML of the expected kind.
    #[error("not a sitemap: {0}")]
    Sitemap(String),
    /// `feed-rs` could not read the feed.
    #[error("not a feed: {0}")]
    Feed(String),
    /// A gzip body could not be decompressed.
    #[error("bad gzip body: {0}")]
    Gzip(std::io::Error),
}

/// What a sitemap or feed lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceUrls {
    /// Pages to crawl.
    pub pages: Vec<Url>,
    /// Sitemaps to fetch (from a sitemap index).
    pub sitemaps: Vec<Url>,
}

/// Parse the body of a fetched `kind` entry (a sitemap or a feed) found at `base`.
///
/// # Errors
/// [`SourceError`] when the body is not such a document.
pub fn parse_source(kind: UrlKind, body: &[u8], base: &Url) -> Result<SourceUrls, SourceError> {
    match kind {
        UrlKind::Feed => parse_feed(&gunzip(body)?, base),
        // A sitemap is parsed as it is decompressed: its URLs are kept, not its bytes.
        _ if is_gzip(body) => {
            let inflated = flate2::read::MultiGzDecoder::new(body).take(MAX_SOURCE_BYTES);
            parse_sitemap(std::io::BufReader::with_capacity(64 * 1024, inflated), base)
        }
        _ => parse_sitemap(body, base),
    }
}

fn is_gzip(body: &[u8]) -> bool {
    body.starts_with(&[0x1f, 0x8b])
}

/// A gzip body decompressed (at most [`MAX_SOURCE_BYTES`]), any other body as it is.
fn gunzip(body: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, SourceError> {
    if !is_gzip(body) {
        return Ok(body.into());
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(body).take(MAX_SOURCE_BYTES).read_to_end(&mut out).map_err(SourceError::Gzip)?;
    Ok(out.into())
}

/// The `<loc>`s of a `urlset` (pages) or a `sitemapindex` (sitemaps), at most
/// [`MAX_SITEMAP_URLS`]; relative or unparsable locations are resolved against `base` or
/// skipped. Read as a stream of XML events: memory is the URLs and one event, not the body.
fn parse_sitemap(body: impl std::io::BufRead, base: &Url) -> Result<SourceUrls, SourceError> {
    let mut reader = quick_xml::Reader::from_reader(body);
    let mut buf = Vec::new();
    let mut out = SourceUrls::default();
    let mut root: Option<Vec<u8>> = None;
    let mut in_loc = false;
    let mut loc = String::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                if root.is_none() {
                    if name != b"urlset" && name != b"sitemapindex" {
                        return Err(SourceError::Sitemap(format!("root element <{}>", String::from_utf8_lossy(&name))));
                    }
                    root = Some(name);
                } else if name == b"loc" {
                    in_loc = true;
                    loc.clear();
                }
            }
            Ok(Event::Text(t)) if in_loc => {
                loc.push_str(&t.decode().map_err(|e| SourceError::Sitemap(e.to_string()))?);
            }
            Ok(Event::GeneralRef(r)) if in_loc => {
                let name = r.decode().map_err(|e| SourceError::Sitemap(e.to_string()))?;
                match r.resolve_char_ref() {
                    Ok(Some(c)) => loc.push(c),
                    _ => loc.push_str(quick_xml::escape::resolve_predefined_entity(&name).unwrap_or("")),
                }
            }
            Ok(Event::CData(t)) if in_loc => loc.push_str(&String::from_utf8_lossy(&t)),
            Ok(Event::End(e)) if e.local_name().as_ref().eq_ignore_ascii_case(b"loc") => {
                in_loc = false;
                if let Ok(url) = base.join(loc.trim()) {
                    if matches!(url.scheme(), "http" | "https") {
                        match root.as_deref() {
                            Some(b"sitemapindex") => out.sitemaps.push(url),
                            _ => out.pages.push(url),
                        }
                    }
                }
                if out.pages.len() + out.sitemaps.len() >= MAX_SITEMAP_URLS {
                    break;
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) if root.is_some() => {
                tracing::debug!(%base, "sitemap cut short: {e}");
                break;
            }
            Err(e) => return Err(SourceError::Sitemap(e.to_string())),
        }
        buf.clear();
    }
    if root.is_none() {
        return Err(SourceError::Sitemap("no root element".into()));
    }
    Ok(out)
}

/// The entries' links of an RSS, Atom or JSON feed (the `alternate` link of each entry, else
/// its first), relative ones resolved against `base`.
fn parse_feed(body: &[u8], base: &Url) -> Result<SourceUrls, SourceError> {
    let feed = feed_rs::parser::Builder::new()
        .base_uri(Some(base.as_str()))
        .build()
        .parse(body)
        .map_err(|e| SourceError::Feed(e.to_string()))?;
    let mut out = SourceUrls::default();
    for entry in feed.entries.iter().take(MAX_SITEMAP_URLS) {
        let link = entry
            .links
            .iter()
            .find(|l| l.rel.as_deref().is_none_or(|r| r.eq_ignore_ascii_case("alternate")))
            .or_else(|| entry.links.first());
        if let Some(url) = link.and_then(|l| base.join(l.href.trim()).ok()) {
            if matches!(url.scheme(), "http" | "https") {
                out.pages.push(url);
            }
        }
    }
    Ok(out)
}

/// The feeds a page announces: `<link rel="alternate">` with an RSS or Atom type, resolved
/// against `base`, in document order.
pub fn feed_links(doc: &crate::html::Document, base: &Url) -> Vec<Url> {
    let selector = scraper::Selector::parse("link[rel][href][type]").expect("valid selector");
    let mut out: Vec<Url> = Vec::new();
    for link in doc.html.select(&selector) {
        let el = link.value();
        let rel = el.attr("rel").unwrap_or("");
        let kind = el.attr("type").unwrap_or("").trim().to_ascii_lowercase();
        if !rel.split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case("alternate"))
            || !matches!(kind.as_str(), "application/rss+xml" | "application/atom+xml")
        {
            continue;
        }
        if let Ok(mut url) = base.join(el.attr("href").unwrap_or("").trim()) {
            url.set_fragment(None);
            if matches!(url.scheme(), "http" | "https") && !out.contains(&url) {
                out.push(url);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("http://site.test/sitemap.xml").unwrap()
    }

    #[test]
    fn urlset_and_index() {
        let urlset = br#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://site.test/a.html</loc><lastmod>2026-01-01</lastmod></url>
  <url><loc> /b.html?x=1&amp;y=2 </loc></url>
  <url><loc>ftp://site.test/c</loc></url>
</urlset>"#;
        let got = parse_source(UrlKind::Sitemap, urlset, &base()).unwrap();
        let pages: Vec<&str> = got.pages.iter().map(Url::as_str).collect();
        assert_eq!(pages, ["http://site.test/a.html", "http://site.test/b.html?x=1&y=2"]);
        assert!(got.sitemaps.is_empty());
        let index = br#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>http://site.test/s1.xml.gz</loc></sitemap></sitemapindex>"#;
        let got = parse_source(UrlKind::Sitemap, index, &base()).unwrap();
        assert_eq!(got.sitemaps.len(), 1);
        assert!(got.pages.is_empty());
    }

    #[test]
    fn gzip_sitemaps_and_the_url_limit() {
        use std::io::Write;
        let mut xml = String::from("<urlset>");
        for i in 0..MAX_SITEMAP_URLS + 10 {
            xml.push_str(&format!("<url><loc>http://site.test/{i}</loc></url>"));
        }
        xml.push_str("</urlset>");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(xml.as_bytes()).unwrap();
        let got = parse_source(UrlKind::Sitemap, &gz.finish().unwrap(), &base()).unwrap();
        assert_eq!(got.pages.len(), MAX_SITEMAP_URLS);
    }

    #[test]
    fn not_a_sitemap() {
        assert!(parse_source(UrlKind::Sitemap, b"<html><body>404</body></html>", &base()).is_err());
        assert!(parse_source(UrlKind::Sitemap, b"", &base()).is_err());
    }

    #[test]
    fn rss_and_atom_feeds() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title>one</title><link>http://site.test/one.html</link></item>
<item><title>two</title><link>/two.html</link></item></channel></rss>"#;
        let got = parse_source(UrlKind::Feed, rss, &Url::parse("http://site.test/feed/").unwrap()).unwrap();
        let pages: Vec<&str> = got.pages.iter().map(Url::as_str).collect();
        assert_eq!(pages, ["http://site.test/one.html", "http://site.test/two.html"]);
        let atom = br#"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>t</title><id>x</id><updated>2026-01-01T00:00:00Z</updated>
<entry><title>e</title><id>e1</id><updated>2026-01-01T00:00:00Z</updated>
<link rel="replies" href="http://site.test/e.html#comments"/><link rel="alternate" href="http://site.test/e.html"/></entry>
</feed>"#;
        let got = parse_source(UrlKind::Feed, atom, &Url::parse("http://site.test/atom").unwrap()).unwrap();
        assert_eq!(got.pages, [Url::parse("http://site.test/e.html").unwrap()]);
        assert!(parse_source(UrlKind::Feed, b"<html></html>", &base()).is_err());
    }

    #[test]
    fn announced_feeds() {
        let html = r#"<html><head>
<link rel="alternate" type="application/rss+xml" title="Feed" href="../feed/index.rss">
<link rel="alternate" type="application/atom+xml" href="/atom.xml">
<link rel="alternate" hreflang="es" href="/es/">
<link rel="stylesheet" type="text/css" href="/s.css">
</head><body></body></html>"#;
        let doc = crate::html::Document::parse(html);
        let got = feed_links(&doc, &Url::parse("http://site.test/a/b.html").unwrap());
        let got: Vec<&str> = got.iter().map(Url::as_str).collect();
        assert_eq!(got, ["http://site.test/feed/index.rss", "http://site.test/atom.xml"]);
    }
}
