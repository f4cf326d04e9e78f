//! URL rules of the crawler: normalisation, crawl [`Scope`], the HTML-likeness guess, host keys
//! and seed-file lines.
//!
//! Every URL enters the frontier through [`normalize`] (links found by `html::links`, seeds read by
//! [`parse_seed_line`]), so the seen-URL set compares like with like; [`in_scope`] decides which
//! links the frontier keeps and [`host_key`] names the politeness/learning unit of a URL.

use url::Url;

/// Why a seed line was refused by [`parse_seed_line`].
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    /// The line is not an absolute URL (e.g. `example.org` without a scheme).
    #[error("malformed seed URL {line:?}: {source}")]
    Malformed {
        /// The seed text, comment and whitespace removed.
        line: String,
        /// The `url` crate's parse error.
        source: url::ParseError,
    },
    /// The line has no scheme (`example.org/news`): a URL needs `http://` or `https://`.
    #[error("seed {line:?} has no scheme: write it as http://{line} (or https://)")]
    NoScheme {
        /// The seed text, comment and whitespace removed.
        line: String,
    },
    /// The URL parsed but is not crawlable: a scheme other than http/https, or no host.
    #[error("unsupported seed URL {url}: {reason}")]
    Unsupported {
        /// The parsed URL.
        url: String,
        /// Why it cannot be crawled.
        reason: &'static str,
    },
}

pub use crate::config::Scope;

/// Normalise a URL for the frontier and the seen-URL set.
///
/// Returns `None` for schemes other than `http`/`https` and for URLs without a host.
/// Otherwise: credentials (`user:password@`) and the fragment are dropped, an empty query (`?` alone) is dropped, the rest of the
/// query is kept verbatim. The `url` crate already lower-cases the host, drops the scheme's
/// default port, resolves dot segments and turns an empty path into `/`.
pub fn normalize(url: &Url) -> Option<Url> {
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    match url.host_str() {
        Some(h) if !h.is_empty() => {}
        _ => return None,
    }
    let mut out = url.clone();
    // Credentials never reach a request, the store or a record.
    let _ = out.set_username("");
    let _ = out.set_password(None);
    out.set_fragment(None);
    if out.query() == Some("") {
        out.set_query(None);
    }
    if out.path().is_empty() {
        out.set_path("/");
    }
    Some(out)
}

/// The seed host with a leading `www.` removed, for [`Scope::Domain`].
fn strip_www(host: &str) -> &str {
    host.strip_prefix("www.").unwrap_or(host)
}

/// Is `url` inside the crawl `scope` of `seed`? Only http(s) URLs are ever in scope.
pub fn in_scope(url: &Url, seed: &Url, scope: Scope) -> bool {
    if !matches!(url.scheme(), "http" | "https") {
        return false;
    }
    let (Some(host), Some(seed_host)) = (url.host_str(), seed.host_str()) else {
        return false;
    };
    match scope {
        Scope::Any => true,
        Scope::Host => host.eq_ignore_ascii_case(seed_host),
        Scope::Domain => {
            let host = host.to_ascii_lowercase();
            let base = strip_www(seed_host).to_ascii_lowercase();
            let bare = strip_www(&host);
            bare == base || host.strip_suffix(base.as_str()).is_some_and(|prefix| prefix.ends_with('.'))
        }
    }
}

/// File extensions that are (almost) never HTML pages: images, styles, scripts, documents,
/// archives, audio/video, fonts, feeds and data files. Compared lower-case.
pub const NON_HTML_EXTENSIONS: &[&str] = &[
    // images
    "jpg", "jpeg", "png", "gif", "webp", "svg", "bmp", "ico", "tif", "tiff", "avif", "heic",
    // styles, scripts, data
    "css", "js", "mjs", "json", "map", "xml", "rss", "atom", "rdf", "csv", "txt", "ics", "wasm",
    // documents
    "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf", "epub", "ps",
    // archives and binaries
    "zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar", "exe", "msi", "dmg", "iso", "apk", "deb", "rpm", "jar",
    "bin", // audio and video
    "mp3", "mp4", "m4a", "m4v", "ogg", "oga", "ogv", "wav", "flac", "aac", "webm", "avi", "mov", "mkv", "wmv", "flv",
    "mpg", "mpeg", "swf", // fonts
    "woff", "woff2", "ttf", "otf", "eot",
];

/// Does the URL plausibly name an HTML page? `false` only when the last path segment ends in an
/// extension of [`NON_HTML_EXTENSIONS`] (`/a/b.PDF`, `/style.css`, `/feed.xml`); paths without
/// an extension, `.html`, `.php`, `.asp` … are `true`. A cheap pre-filter before fetching; the
/// fetcher's Content-Type check is the real gate.
pub fn looks_like_html(url: &Url) -> bool {
    let last = url.path_segments().and_then(|mut s| s.next_back()).unwrap_or("");
    match last.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            let ext = ext.to_ascii_lowercase();
            !NON_HTML_EXTENSIONS.contains(&ext.as_str())
        }
        _ => true,
    }
}

/// The politeness and learning key of a URL: `host`, or `host:port` when the port is not the
/// scheme's default (`example.org`, `example.org:8080`, `[::1]:3000`). `None` without a host.
pub fn host_key(url: &Url) -> Option<String> {
    let host = url.host_str().filter(|h| !h.is_empty())?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    })
}

/// `url` cut to at most [`LOG_URL_CHARS`] characters for a log line or a message, with `…`
/// marking the cut: a trap URL can be hundreds of kilobytes long.
pub fn for_log(url: &str) -> std::borrow::Cow<'_, str> {
    match url.char_indices().nth(LOG_URL_CHARS) {
        None => std::borrow::Cow::Borrowed(url),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &url[..end])),
    }
}

/// The longest URL printed whole by [`for_log`], in characters.
pub const LOG_URL_CHARS: usize = 200;

/// Parse one line of a seed file (`seeds/*.txt`).
///
/// The line is trimmed; empty lines and `#` comment lines give `Ok(None)`; a trailing comment
/// introduced by whitespace and `#` (`https://x.org/  # news`) is removed (a `#` directly inside
/// the URL is a fragment and is dropped by normalisation). The URL is returned [`normalize`]d.
///
/// # Errors
/// [`UrlError::Malformed`] when the text is not an absolute URL, [`UrlError::Unsupported`] for
/// a scheme other than http/https or a URL without a host.
pub fn parse_seed_line(line: &str) -> Result<Option<Url>, UrlError> {
    let mut text = line.trim();
    if let Some(pos) = text.find(|c: char| c.is_whitespace()) {
        let rest = text[pos..].trim_start();
        if rest.starts_with('#') {
            text = text[..pos].trim_end();
        }
    }
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let url = Url::parse(text).map_err(|source| match source {
        url::ParseError::RelativeUrlWithoutBase => UrlError::NoScheme { line: for_log(text).into_owned() },
        source => UrlError::Malformed { line: for_log(text).into_owned(), source },
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UrlError::Unsupported { url: url.to_string(), reason: "only http and https URLs can be crawled" });
    }
    match normalize(&url) {
        Some(u) => Ok(Some(u)),
        None => Err(UrlError::Unsupported { url: url.to_string(), reason: "URL has no host" }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).expect("test URL")
    }

    #[test]
    fn normalize_rules() {
        let n = |s: &str| normalize(&u(s)).map(|x| x.to_string());
        assert_eq!(n("HTTP://WWW.Example.ORG:80/a/../b?x=1#frag").as_deref(), Some("http://www.example.org/b?x=1"));
        assert_eq!(n("https://example.org").as_deref(), Some("https://example.org/"));
        assert_eq!(n("https://example.org:443/").as_deref(), Some("https://example.org/"));
        assert_eq!(n("https://example.org:8443/p").as_deref(), Some("https://example.org:8443/p"));
        assert_eq!(n("https://example.org/p?").as_deref(), Some("https://example.org/p"));
        assert_eq!(n("https://example.org/p?b=2&a=1").as_deref(), Some("https://example.org/p?b=2&a=1"));
        assert_eq!(n("ftp://example.org/x"), None);
        assert_eq!(n("mailto:a@example.org"), None);
        assert_eq!(n("javascript:void(0)"), None);
        assert_eq!(n("https://user:pw@example.org/p").as_deref(), Some("https://example.org/p"));
        assert_eq!(n("http://user@example.org/").as_deref(), Some("http://example.org/"));
    }

    #[test]
    fn long_urls_are_cut_for_logs() {
        let long = format!("http://a.org/{}", "é".repeat(100_000));
        let cut = for_log(&long);
        assert_eq!(cut.chars().count(), LOG_URL_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(for_log("http://a.org/"), "http://a.org/");
    }

    #[test]
    fn scopes() {
        let seed = u("https://www.paraguayos.org/");
        let host = |s: &str| in_scope(&u(s), &seed, Scope::Host);
        let dom = |s: &str| in_scope(&u(s), &seed, Scope::Domain);
        assert!(host("http://www.paraguayos.org/x"));
        assert!(host("https://WWW.PARAGUAYOS.ORG/x"));
        assert!(!host("https://paraguayos.org/x"));
        assert!(!host("https://blog.paraguayos.org/x"));
        assert!(dom("https://paraguayos.org/x"));
        assert!(dom("https://blog.paraguayos.org/x"));
        assert!(dom("https://www.paraguayos.org/x"));
        assert!(!dom("https://notparaguayos.org/x"));
        assert!(!dom("https://paraguayos.org.evil.com/x"));
        assert!(!dom("ftp://paraguayos.org/x"));
        assert!(in_scope(&u("https://other.com/"), &seed, Scope::Any));
        assert!(!in_scope(&u("mailto:x@y.z"), &seed, Scope::Any));
        // A seed without www admits its www host too.
        let bare = u("https://awesomewm.org/");
        assert!(in_scope(&u("https://www.awesomewm.org/a"), &bare, Scope::Domain));
        assert!(!in_scope(&u("https://www.awesomewm.org/a"), &bare, Scope::Host));
        let toml: Scope = serde_json::from_str("\"domain\"").expect("lowercase serde");
        assert_eq!(toml, Scope::Domain);
    }

    #[test]
    fn html_guess() {
        for s in [
            "https://x.org/",
            "https://x.org/a/b",
            "https://x.org/a/b/",
            "https://x.org/index.html",
            "https://x.org/page.php?id=3",
            "https://x.org/2020/01/mi-articulo-sobre-v1.2",
            "https://x.org/.well-known",
        ] {
            assert!(looks_like_html(&u(s)), "{s}");
        }
        for s in [
            "https://x.org/a.PDF",
            "https://x.org/wp-content/uploads/photo.jpg",
            "https://x.org/style.css?ver=5",
            "https://x.org/feed.xml",
            "https://x.org/f/font.woff2",
            "https://x.org/dl/archive.tar.gz",
            "https://x.org/v.mp4",
        ] {
            assert!(!looks_like_html(&u(s)), "{s}");
        }
    }

    #[test]
    fn host_keys() {
        assert_eq!(host_key(&u("https://Example.org/x")).as_deref(), Some("example.org"));
        assert_eq!(host_key(&u("http://example.org:80/x")).as_deref(), Some("example.org"));
        assert_eq!(host_key(&u("http://example.org:8080/x")).as_deref(), Some("example.org:8080"));
        assert_eq!(host_key(&u("http://[::1]:3000/")).as_deref(), Some("[::1]:3000"));
        assert_eq!(host_key(&u("mailto:a@b.c")), None);
    }

    #[test]
    fn seed_lines() {
        assert!(matches!(parse_seed_line(""), Ok(None)));
        assert!(matches!(parse_seed_line("   \t "), Ok(None)));
        assert!(matches!(parse_seed_line("# a comment"), Ok(None)));
        assert!(matches!(parse_seed_line("  #https://x.org/"), Ok(None)));
        let ok = parse_seed_line("  https://www.paraguayos.org  # Paraguay news ").expect("valid").expect("a URL");
        assert_eq!(ok.as_str(), "https://www.paraguayos.org/");
        let frag = parse_seed_line("https://x.org/a#b").expect("valid").expect("a URL");
        assert_eq!(frag.as_str(), "https://x.org/a");
        let err = parse_seed_line("www.example.org").expect_err("no scheme");
        assert!(matches!(err, UrlError::NoScheme { .. }));
        assert!(err.to_string().contains("http://www.example.org"), "{err}");
        let err = parse_seed_line("ftp://example.org/").expect_err("ftp");
        assert!(matches!(err, UrlError::Unsupported { .. }));
        assert!(parse_seed_line("https://exa mple.org/").is_err());
    }
}
