//! [`MarkupSignals`]: what a page's markup says about its type, for the page classifier's
//! "markup" feature group (ours, not the blog's): the Open Graph type (`og:type` = `article`
//! or `product`, ogp.me), schema.org types in JSON-LD (`NewsArticle`, `BlogPosting`,
//! `Product`, `QAPage`, ...), a publication date (`article:published_time`,
//! `itemprop="datePublished"`), the number of `<article>` elements (one on an article, many
//! cards on a listing) and of form controls (shops and services ask for input); and for the
//! "structure" group: schema.org listing and service types, characters of code (`<pre>`,
//! `<code>`: documentation), headings, `<time>` elements, author markup (`meta name=author`,
//! `rel=author`, `itemprop=author`, JSON-LD `author`) and headline-like links (a link of at
//! least [`HEADLINE_LINK_WORDS`] words: a listing is made of them).

use crate::html::Document;
use scraper::{ElementRef, Selector};
use std::sync::LazyLock;

/// schema.org types (lower case) that mark an article page.
const ARTICLE_TYPES: &[&str] =
    &["article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle", "opinionnewsarticle"];
/// schema.org types (lower case) that mark a product, forum or Q&A page.
const OTHER_TYPES: &[&str] = &["product", "offer", "aggregateoffer", "qapage", "discussionforumposting", "faqpage"];

/// schema.org types (lower case) that mark a listing.
const LISTING_TYPES: &[&str] = &["collectionpage", "searchresultspage", "itemlist"];
/// schema.org types (lower case) that mark a service, software or course page.
const SERVICE_TYPES: &[&str] =
    &["service", "professionalservice", "softwareapplication", "webapplication", "course", "educationalprogram"];

/// A link with at least this many words of text counts as a headline link.
pub const HEADLINE_LINK_WORDS: usize = 4;

/// The markup signals of one page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MarkupSignals {
    /// `og:type` is an article type, or JSON-LD names an article type.
    pub says_article: bool,
    /// `og:type` is a product, or JSON-LD names a product, offer, forum or Q&A type.
    pub says_other: bool,
    /// The page declares a publication date.
    pub date_published: bool,
    /// Number of `<article>` elements.
    pub article_elements: usize,
    /// Number of `input`, `select`, `textarea` and `button` elements.
    pub form_controls: usize,
    /// JSON-LD names a listing type (`CollectionPage`, `SearchResultsPage`, `ItemList`).
    pub says_listing: bool,
    /// JSON-LD names a service, software or course type.
    pub says_service: bool,
    /// Characters of text inside `<pre>` and `<code>` elements (nested ones once).
    pub code_chars: usize,
    /// Number of `h1`–`h6` elements.
    pub headings: usize,
    /// Number of `<time>` elements.
    pub time_elements: usize,
    /// The page names an author in its markup.
    pub author: bool,
    /// Links with at least [`HEADLINE_LINK_WORDS`] words.
    pub headline_links: usize,
}

/// Collect every `@type` value (lower case) of a JSON-LD value; `author` is set when an
/// object has an `author` key.
fn ld_types(v: &serde_json::Value, out: &mut Vec<String>, author: &mut bool, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        serde_json::Value::Object(map) => {
            for (k, x) in map {
                *author |= k == "author";
                if k == "@type" {
                    match x {
                        serde_json::Value::String(s) => out.push(s.to_lowercase()),
                        serde_json::Value::Array(a) => {
                            out.extend(a.iter().filter_map(|t| t.as_str()).map(str::to_lowercase));
                        }
                        _ => {}
                    }
                } else {
                    ld_types(x, out, author, depth + 1);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| ld_types(x, out, author, depth + 1)),
        _ => {}
    }
}

/// The selectors of [`MarkupSignals::of`], parsed once.
struct Selectors {
    og: Selector,
    ld: Selector,
    date: Selector,
    article: Selector,
    form: Selector,
    code: Selector,
    heading: Selector,
    time: Selector,
    author: Selector,
    link: Selector,
}

fn selectors() -> &'static Selectors {
    static SELECTORS: LazyLock<Selectors> = LazyLock::new(|| {
        let parse = |css: &str| Selector::parse(css).expect("valid selector");
        Selectors {
            og: parse(r#"meta[property="og:type"]"#),
            ld: parse(r#"script[type="application/ld+json"]"#),
            date: parse(
                r#"meta[property="article:published_time"], meta[name="article:published_time"], [itemprop="datePublished"]"#,
            ),
            article: parse("article"),
            form: parse("input, select, textarea, button"),
            code: parse("pre, code"),
            heading: parse("h1, h2, h3, h4, h5, h6"),
            time: parse("time"),
            author: parse(r#"meta[name="author"], [rel~="author"], [itemprop="author"]"#),
            link: parse("a[href]"),
        }
    });
    &SELECTORS
}

impl MarkupSignals {
    /// Read the signals of `doc`.
    ///
    /// One walk over the elements, in the order and with the filter of [`Html::select`]
    /// (every element node that has a parent), where each selector is tried only on the
    /// elements it can match: those of its tag names, and for the attribute-only parts of
    /// the date and author selectors those with an `itemprop` or `rel` attribute. The
    /// selectors decide as before; a walk per selector cost ten walks and ten selector
    /// matches per element.
    ///
    /// [`Html::select`]: scraper::Html::select
    #[allow(clippy::collapsible_match)] // one arm per tag name, its selector check inside: clearer than guards
    pub fn of(doc: &Document) -> MarkupSignals {
        let sel = selectors();
        let mut s = MarkupSignals::default();
        let (mut types, mut ld_author, mut author_markup) = (Vec::new(), false, false);
        for node in doc.html.tree.nodes() {
            let Some(el) = ElementRef::wrap(node) else { continue };
            if el.parent().is_none() {
                continue;
            }
            let name = el.value().name();
            match name {
                "meta" => {
                    if sel.og.matches(&el) {
                        let t = el.value().attr("content").unwrap_or("").trim().to_lowercase();
                        s.says_article |= t == "article" || t.starts_with("article") || t.contains("blog");
                        s.says_other |= t.contains("product");
                    }
                }
                "script" => {
                    if sel.ld.matches(&el) {
                        let text: String = el.text().collect();
                        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim()) {
                            ld_types(&v, &mut types, &mut ld_author, 0);
                        }
                    }
                }
                "article" => s.article_elements += usize::from(sel.article.matches(&el)),
                "input" | "select" | "textarea" | "button" => s.form_controls += usize::from(sel.form.matches(&el)),
                "pre" | "code" => {
                    let nested = el
                        .ancestors()
                        .any(|a| a.value().as_element().is_some_and(|e| matches!(e.name(), "pre" | "code")));
                    if !nested && sel.code.matches(&el) {
                        s.code_chars +=
                            el.text().map(|t| t.chars().filter(|c| !c.is_whitespace()).count()).sum::<usize>();
                    }
                }
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => s.headings += usize::from(sel.heading.matches(&el)),
                "time" => s.time_elements += usize::from(sel.time.matches(&el)),
                "a" => {
                    if sel.link.matches(&el)
                        && el.text().flat_map(str::split_whitespace).take(HEADLINE_LINK_WORDS).count()
                            >= HEADLINE_LINK_WORDS
                    {
                        s.headline_links += 1;
                    }
                }
                _ => {}
            }
            if name == "meta" || el.value().attrs().any(|(k, _)| k == "itemprop" || k == "rel") {
                s.date_published = s.date_published || sel.date.matches(&el);
                author_markup = author_markup || sel.author.matches(&el);
            }
        }
        let has = |list: &[&str]| types.iter().any(|t| list.contains(&t.trim_start_matches("schema:").trim()));
        s.says_article |= has(ARTICLE_TYPES);
        s.says_other |= has(OTHER_TYPES);
        s.says_listing = has(LISTING_TYPES);
        s.says_service = has(SERVICE_TYPES);
        s.author = ld_author || author_markup;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    /// [`MarkupSignals::of`] as it was: one `select` walk per selector. The reference that
    /// [`one_walk_equals_a_walk_per_selector_on_real_pages`] holds the one-walk version to.
    fn reference_of(doc: &Document) -> MarkupSignals {
        static OG: OnceLock<Selector> = OnceLock::new();
        static LD: OnceLock<Selector> = OnceLock::new();
        static DATE: OnceLock<Selector> = OnceLock::new();
        static ARTICLE: OnceLock<Selector> = OnceLock::new();
        static FORM: OnceLock<Selector> = OnceLock::new();
        static CODE: OnceLock<Selector> = OnceLock::new();
        static HEADING: OnceLock<Selector> = OnceLock::new();
        static TIME: OnceLock<Selector> = OnceLock::new();
        static AUTHOR: OnceLock<Selector> = OnceLock::new();
        static LINK: OnceLock<Selector> = OnceLock::new();
        let mut s = MarkupSignals::default();
        for m in doc.html.select(selector(&OG, r#"meta[property="og:type"]"#)) {
            let t = m.value().attr("content").unwrap_or("").trim().to_lowercase();
            s.says_article |= t == "article" || t.starts_with("article") || t.contains("blog");
            s.says_other |= t.contains("product");
        }
        let (mut types, mut ld_author) = (Vec::new(), false);
        for script in doc.html.select(selector(&LD, r#"script[type="application/ld+json"]"#)) {
            let text: String = script.text().collect();
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim()) {
                ld_types(&v, &mut types, &mut ld_author, 0);
            }
        }
        let has = |list: &[&str]| types.iter().any(|t| list.contains(&t.trim_start_matches("schema:").trim()));
        s.says_article |= has(ARTICLE_TYPES);
        s.says_other |= has(OTHER_TYPES);
        s.says_listing = has(LISTING_TYPES);
        s.says_service = has(SERVICE_TYPES);
        s.date_published = doc
            .html
            .select(selector(
                &DATE,
                r#"meta[property="article:published_time"], meta[name="article:published_time"], [itemprop="datePublished"]"#,
            ))
            .next()
            .is_some();
        s.article_elements = doc.html.select(selector(&ARTICLE, "article")).count();
        s.form_controls = doc.html.select(selector(&FORM, "input, select, textarea, button")).count();
        for el in doc.html.select(selector(&CODE, "pre, code")) {
            let nested =
                el.ancestors().any(|a| a.value().as_element().is_some_and(|e| matches!(e.name(), "pre" | "code")));
            if !nested {
                s.code_chars += el.text().map(|t| t.chars().filter(|c| !c.is_whitespace()).count()).sum::<usize>();
            }
        }
        s.headings = doc.html.select(selector(&HEADING, "h1, h2, h3, h4, h5, h6")).count();
        s.time_elements = doc.html.select(selector(&TIME, "time")).count();
        s.author = ld_author
            || doc
                .html
                .select(selector(&AUTHOR, r#"meta[name="author"], [rel~="author"], [itemprop="author"]"#))
                .next()
                .is_some();
        s.headline_links = doc
            .html
            .select(selector(&LINK, "a[href]"))
            .filter(|a| {
                a.text().flat_map(str::split_whitespace).take(HEADLINE_LINK_WORDS).count() >= HEADLINE_LINK_WORDS
            })
            .count();
        s
    }

    fn selector(cell: &'static OnceLock<Selector>, css: &str) -> &'static Selector {
        cell.get_or_init(|| Selector::parse(css).expect("valid selector"))
    }

    /// Markup at the edges of the selectors' semantics (case, namespaces, token lists,
    /// detached and nested elements) gives what the walk per selector gives.
    #[test]
    fn one_walk_equals_a_walk_per_selector_at_the_edges() {
        let pages = [
            r#"<META PROPERTY="og:type" CONTENT=" Article "><SCRIPT TYPE="Application/LD+JSON">{"@type":"BlogPosting"}</SCRIPT>
            <a REL="nofollow Author" HREF="/x">one two three four</a><span itemprop="datePublished">x</span>"#,
            r#"<svg><meta name="author"></meta><a href="/s">svg link with four words</a><time>1</time><code>c</code></svg>
            <math><mi itemprop="author">x</mi></math><pre><pre>nested</pre></pre><code><pre>x</pre></code>"#,
            r#"<table><tr><td>a</td></tr><form><input></form><p><b><i>x</b>y</i></p><button><a href>a b c d</a></button>
            <h1><h2>x</h2></h1><select><option>o</select><textarea>t</textarea><template><article>t</article></template>"#,
            r#"<meta property="og:type" content="product"><p rel="author">x</p><meta itemprop="datePublished">
            <noscript><a href="/n">no script link of words</a></noscript><a>no href at all here</a>"#,
        ];
        for html in pages {
            let doc = Document::parse(html);
            assert_eq!(MarkupSignals::of(&doc), reference_of(&doc), "{html}");
        }
    }

    /// The one-walk [`MarkupSignals::of`] equals the walk-per-selector version on every page
    /// of modern2026-dev (skipped when the data is missing).
    #[test]
    fn one_walk_equals_a_walk_per_selector_on_real_pages() {
        let Some(modern) = crate::eval::dataset::test_set("modern2026-dev") else { return };
        let mut seen = MarkupSignals::default();
        for page in &modern.pages {
            let doc = Document::parse(&modern.read_html(page).expect("the page reads"));
            let s = MarkupSignals::of(&doc);
            assert_eq!(s, reference_of(&doc), "page {}", page.id);
            seen.says_article |= s.says_article;
            seen.says_other |= s.says_other;
            seen.date_published |= s.date_published;
            seen.says_listing |= s.says_listing;
            seen.says_service |= s.says_service;
            seen.author |= s.author;
            seen.article_elements += s.article_elements;
            seen.form_controls += s.form_controls;
            seen.code_chars += s.code_chars;
            seen.headings += s.headings;
            seen.time_elements += s.time_elements;
            seen.headline_links += s.headline_links;
        }
        eprintln!("{} pages, signals summed or or-ed: {seen:?}", modern.pages.len());
        assert!(seen.says_article && seen.says_other && seen.date_published && seen.says_listing);
        assert!(seen.says_service && seen.author && seen.article_elements > 0 && seen.form_controls > 0);
        assert!(seen.code_chars > 0 && seen.headings > 0 && seen.time_elements > 0 && seen.headline_links > 0);
    }

    #[test]
    fn reads_open_graph_json_ld_dates_and_counts() {
        let doc = Document::parse(
            r#"<html><head><meta property="og:type" content="article">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":["NewsArticle"]}]}</script>
            <meta property="article:published_time" content="2024-05-01"></head>
            <body><article><h1>Title</h1><p>By <a rel="author" href="/jane">Jane</a>, <time>May 5</time></p>
            <pre><code>let x = 1;</code></pre><p>Use <code>x</code>.</p></article>
            <a href="/a">Four words in here</a><a href="/b">Home</a>
            <form><input><button>Go</button></form></body></html>"#,
        );
        let s = MarkupSignals::of(&doc);
        assert!(s.says_article && !s.says_other && s.date_published && s.author);
        assert!(!s.says_listing && !s.says_service);
        assert_eq!((s.article_elements, s.form_controls), (1, 2));
        assert_eq!(s.code_chars, "letx=1;".len() + 1, "nested code once, whitespace not counted");
        assert_eq!((s.headings, s.time_elements, s.headline_links), (1, 1, 1));
        let shop = Document::parse(
            r#"<html><head><script type="application/ld+json">{"@type": "Product", "offers": {"@type": "Offer"}}</script>
            <script type="application/ld+json">{ not json</script></head><body><article>a</article><article>b</article></body></html>"#,
        );
        let s = MarkupSignals::of(&shop);
        assert!(!s.says_article && s.says_other && !s.date_published && !s.author);
        assert_eq!(s.article_elements, 2);
        let list = Document::parse(
            r#"<script type="application/ld+json">{"@type": "CollectionPage", "author": {"@type": "Person"}}</script>"#,
        );
        let s = MarkupSignals::of(&list);
        assert!(s.says_listing && s.author && !s.says_service);
    }
}
