//! Link extraction: the `href`s of `<a>` and `<area>` elements resolved against the page URL
//! (and `<base href>`), fragments removed. Scope and normalisation rules live in
//! [`crate::crawl::url`].

use crate::html::Document;
use scraper::Selector;
use std::sync::OnceLock;
use url::Url;

/// Absolute http(s) URLs linked from `doc`, in document order, duplicates removed, fragments
/// dropped. Links with `rel="nofollow"` are kept (they are still pages of the site).
pub fn extract_links(doc: &Document, page_url: &Url) -> Vec<Url> {
    static A: OnceLock<Selector> = OnceLock::new();
    static BASE: OnceLock<Selector> = OnceLock::new();
    let a = A.get_or_init(|| Selector::parse("a[href], area[href]").expect("valid selector"));
    let base_sel = BASE.get_or_init(|| Selector::parse("base[href]").expect("valid selector"));
    let base = doc
        .html
        .select(base_sel)
        .next()
        .and_then(|b| b.value().attr("href"))
        .and_then(|h| page_url.join(h.trim()).ok())
        .unwrap_or_else(|| page_url.clone());
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for el in doc.html.select(a) {
        let Some(href) = el.value().attr("href") else { continue };
        let href = href.trim();
        if href.is_empty() || href.starts_with('#') {
            continue;
        }
        let Ok(mut u) = base.join(href) else { continue };
        if u.scheme() != "http" && u.scheme() != "https" {
            continue;
        }
        u.set_fragment(None);
        if seen.insert(u.as_str().to_string()) {
            out.push(u);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_root_relative_and_base() {
        let page = Url::parse("http://example.org/a/b.html").unwrap();
        let doc = Document::parse(
            "<a href='c.html#x'>1</a><a href='/d/'>2</a><a href='mailto:x@y'>3</a><a href='c.html'>4</a><a href='%E3%81%82.html'>5</a>",
        );
        let links: Vec<String> = extract_links(&doc, &page).into_iter().map(String::from).collect();
        assert_eq!(
            links,
            ["http://example.org/a/c.html", "http://example.org/d/", "http://example.org/a/%E3%81%82.html"]
        );
        let doc = Document::parse("<head><base href='http://other.org/x/'></head><a href='y'>y</a>");
        assert_eq!(extract_links(&doc, &page)[0].as_str(), "http://other.org/x/y");
    }
}
