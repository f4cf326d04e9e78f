//! Publication date and author as a page states them: schema.org JSON-LD
//! (`datePublished`, `author`), `<meta>` tags (Open Graph `article:published_time`, Dublin Core
//! `dc.date` / `dc.creator`, `author`, Parse.ly and Sailthru keys), microdata `itemprop`, and
//! `<time datetime>`, in that order of trust (the order trafilatura's `htmldate` and metadata
//! extraction also prefer: structured data over visible markup). Nothing is guessed from the
//! text: a page that states neither gets neither. Also the article text a page states in
//! JSON-LD (`articleBody`, [`ld_article_body`]), which the default's combiner reads.

use scraper::{Html, Selector};
use std::sync::OnceLock;

/// What a page says about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageMetadata {
    /// Publication date, `YYYY-MM-DD` (ISO 8601 calendar date; a stated time of day is dropped).
    pub date: Option<String>,
    /// Author name(s) as stated, several joined by `"; "`; at most [`MAX_AUTHOR_CHARS`].
    pub author: Option<String>,
}

/// Longest author string kept (a longer one is a mis-tagged paragraph, not a name).
pub const MAX_AUTHOR_CHARS: usize = 200;

/// Most bytes of one JSON-LD script parsed.
const MAX_JSON_LD_BYTES: usize = 256 * 1024;

/// `<meta>` keys (`name`, `property` or `itemprop`, lower-cased) that carry the publication date.
const DATE_KEYS: &[&str] = &[
    "article:published_time",
    "og:article:published_time",
    "datepublished",
    "dc.date.issued",
    "dc.date",
    "dcterms.date",
    "dcterms.issued",
    "citation_publication_date",
    "citation_date",
    "parsely-pub-date",
    "sailthru.date",
    "pubdate",
    "publish-date",
    "date",
];

/// `<meta>` keys that carry the author.
const AUTHOR_KEYS: &[&str] = &[
    "author",
    "article:author",
    "dc.creator",
    "dcterms.creator",
    "citation_author",
    "parsely-author",
    "sailthru.author",
];

/// The metadata of a page: `raw` is the decoded HTML before scripts were emptied (JSON-LD lives
/// in `<script>`), `html` the parsed page.
pub fn page_metadata(raw: &str, html: &Html) -> PageMetadata {
    let mut meta = json_ld(raw);
    if meta.date.is_none() || meta.author.is_none() {
        let tags = meta_tags(html);
        meta.date = meta.date.or(tags.date);
        meta.author = meta.author.or(tags.author);
    }
    if meta.author.is_none() {
        meta.author = microdata_author(html);
    }
    if meta.date.is_none() {
        meta.date = time_element(html);
    }
    meta
}

/// The first microdata `itemprop="author"`: the `name` property of a `Person` item
/// (`content` or text), or the element's own text; else the text of a `rel="author"` link.
fn microdata_author(html: &Html) -> Option<String> {
    static AUTHOR: OnceLock<Selector> = OnceLock::new();
    static NAME: OnceLock<Selector> = OnceLock::new();
    static REL: OnceLock<Selector> = OnceLock::new();
    let author = AUTHOR.get_or_init(|| Selector::parse("[itemprop~=author]").expect("valid selector"));
    let name = NAME.get_or_init(|| Selector::parse("[itemprop~=name]").expect("valid selector"));
    let rel = REL.get_or_init(|| Selector::parse("a[rel~=author]").expect("valid selector"));
    let text_of = |e: scraper::ElementRef<'_>| {
        e.value().attr("content").map(str::to_string).unwrap_or_else(|| e.text().collect::<String>())
    };
    if let Some(el) = html.select(author).next() {
        let found = match el.value().attr("itemscope") {
            Some(_) => el.select(name).next().map(text_of),
            None => Some(text_of(el)),
        };
        if let Some(a) = found.and_then(clean_author) {
            return Some(a);
        }
    }
    html.select(rel).map(text_of).find_map(clean_author)
}

/// `datePublished` and `author` of the first schema.org object that states them, in the
/// page's `<script type="application/ld+json">` blocks (objects, arrays and `@graph`).
fn json_ld(raw: &str) -> PageMetadata {
    let mut meta = PageMetadata::default();
    for value in ld_json_values(raw, "") {
        for_each_ld_object(&value, 0, &mut |map| {
            if meta.date.is_none() {
                meta.date = map.get("datePublished").and_then(|d| d.as_str()).and_then(iso_date);
            }
            if meta.author.is_none() {
                meta.author = map.get("author").and_then(ld_names).and_then(clean_author);
            }
        });
        if meta.date.is_some() && meta.author.is_some() {
            break;
        }
    }
    meta
}

/// The parsed bodies of the page's `<script type="application/ld+json">` blocks that contain
/// `needle` (every one for `""`), in page order; a body over [`MAX_JSON_LD_BYTES`] or not JSON
/// is skipped.
fn ld_json_values<'a>(raw: &'a str, needle: &'a str) -> impl Iterator<Item = serde_json::Value> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        // memmem (SIMD) rather than `str::find`: this scans the whole page, twice per page.
        let find =
            |needle: &str, at: usize| memchr::memmem::find(&raw.as_bytes()[at..], needle.as_bytes()).map(|i| at + i);
        let at = find("ld+json", from)?;
        from = at + 1;
        let open = memchr::memchr(b'>', &raw.as_bytes()[at..]).map(|i| at + i + 1)?;
        let close = find("</script", open).or_else(|| find("</SCRIPT", open))?;
        Some(&raw[open..close])
    })
    .filter(move |body| body.len() <= MAX_JSON_LD_BYTES && body.contains(needle))
    .filter_map(|body| serde_json::from_str::<serde_json::Value>(body.trim()).ok())
}

/// Call `f` on every object of a JSON-LD value: the value itself, the items of an array and
/// the members of `@graph`, down to depth 4.
fn for_each_ld_object(
    value: &serde_json::Value,
    depth: usize,
    f: &mut impl FnMut(&serde_json::Map<String, serde_json::Value>),
) {
    if depth > 4 {
        return;
    }
    match value {
        serde_json::Value::Array(items) => items.iter().for_each(|v| for_each_ld_object(v, depth + 1, f)),
        serde_json::Value::Object(map) => {
            f(map);
            if let Some(graph) = map.get("@graph") {
                for_each_ld_object(graph, depth + 1, f);
            }
        }
        _ => {}
    }
}

/// Fewest words of a JSON-LD `articleBody` that [`ld_article_body`] returns (a shorter one is
/// a teaser, not the article).
pub const MIN_ARTICLE_BODY_WORDS: usize = 30;

/// The longest schema.org `articleBody` string (at least [`MIN_ARTICLE_BODY_WORDS`] words) in
/// the page's `<script type="application/ld+json">` blocks (objects, arrays and `@graph`):
/// the article's text as the publisher states it, or `None`. `raw` is the decoded HTML before
/// scripts were emptied.
pub fn ld_article_body(raw: &str) -> Option<String> {
    let mut best: Option<String> = None;
    for value in ld_json_values(raw, "articleBody") {
        for_each_ld_object(&value, 0, &mut |map| {
            if let Some(text) = map.get("articleBody").and_then(|b| b.as_str()) {
                if best.as_ref().is_none_or(|b| b.len() < text.len()) {
                    best = Some(text.to_string());
                }
            }
        });
    }
    best.filter(|b| b.split_whitespace().count() >= MIN_ARTICLE_BODY_WORDS)
}

/// The names of a JSON-LD `author`: a string, a `Person` object or an array of either. An
/// `Organization` (the publisher named as author) is not an author.
fn ld_names(author: &serde_json::Value) -> Option<String> {
    match author {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(map) if map.get("@type").and_then(|t| t.as_str()) == Some("Organization") => None,
        serde_json::Value::Object(map) => map.get("name").and_then(|n| n.as_str()).map(str::to_string),
        serde_json::Value::Array(items) => {
            let names: Vec<String> = items.iter().filter_map(ld_names).collect();
            (!names.is_empty()).then(|| names.join("; "))
        }
        _ => None,
    }
}

fn meta_tags(html: &Html) -> PageMetadata {
    static META: OnceLock<Selector> = OnceLock::new();
    let sel = META.get_or_init(|| Selector::parse("meta[content]").expect("valid selector"));
    let mut dates: Vec<(usize, String)> = Vec::new();
    let mut authors: Vec<(usize, String)> = Vec::new();
    for el in html.select(sel) {
        let e = el.value();
        let Some(key) = e.attr("property").or_else(|| e.attr("name")).or_else(|| e.attr("itemprop")) else { continue };
        let key = key.trim().to_ascii_lowercase();
        let content = e.attr("content").unwrap_or("");
        if let Some(rank) = DATE_KEYS.iter().position(|k| *k == key) {
            if let Some(date) = iso_date(content) {
                dates.push((rank, date));
            }
        } else if let Some(rank) = AUTHOR_KEYS.iter().position(|k| *k == key) {
            // Open Graph's article:author is often a profile URL, not a name.
            if let Some(author) = clean_author(content.to_string()).filter(|a| !a.contains("://")) {
                authors.push((rank, author));
            }
        }
    }
    dates.sort_by_key(|(rank, _)| *rank);
    authors.sort_by_key(|(rank, _)| *rank);
    PageMetadata { date: dates.into_iter().next().map(|d| d.1), author: authors.into_iter().next().map(|a| a.1) }
}

/// The first `<time datetime>` marked as the publication time (`itemprop="datePublished"`,
/// `pubdate`, a class with "publish"), else the page's first `<time datetime>` when it is the
/// only one (a page listing many dates is an index, not a dated article).
fn time_element(html: &Html) -> Option<String> {
    static TIME: OnceLock<Selector> = OnceLock::new();
    let sel = TIME.get_or_init(|| Selector::parse("time[datetime]").expect("valid selector"));
    let times: Vec<_> = html.select(sel).take(50).collect();
    let marked = times.iter().find(|t| {
        let e = t.value();
        e.attr("itemprop").is_some_and(|p| p.eq_ignore_ascii_case("datepublished"))
            || e.attr("pubdate").is_some()
            || e.attr("class").is_some_and(|c| c.to_ascii_lowercase().contains("publish"))
    });
    let chosen = marked.or_else(|| (times.len() == 1).then(|| &times[0]))?;
    iso_date(chosen.value().attr("datetime")?)
}

/// `YYYY-MM-DD` from a value that begins with an ISO 8601 date (`2024-03-05`,
/// `2024-03-05T10:00:00Z`, `2024/03/05`), with a plausible month and day; `None` otherwise.
pub fn iso_date(value: &str) -> Option<String> {
    let v = value.trim().as_bytes();
    if v.len() < 10 || !v[..4].iter().all(u8::is_ascii_digit) || !v[5..7].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let sep = v[4];
    if !(sep == b'-' || sep == b'/') || v[7] != sep || !v[8..10].iter().all(u8::is_ascii_digit) {
        return None;
    }
    if v.len() > 10 && v[10].is_ascii_digit() {
        return None;
    }
    let num = |s: &[u8]| s.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    let (year, month, day) = (num(&v[..4]), num(&v[5..7]), num(&v[8..10]));
    ((1990..=2100).contains(&year) && (1..=12).contains(&month) && (1..=31).contains(&day))
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

fn clean_author(author: String) -> Option<String> {
    let author = crate::html::collapse_whitespace(&author);
    let stripped = author.strip_prefix("By ").or_else(|| author.strip_prefix("by ")).unwrap_or(&author).trim();
    // A host name, a URL or a user handle (`example.com`, `jane.doe`, `@jane`) is not a name.
    let handle =
        !stripped.contains(' ') && (stripped.contains('.') || stripped.contains('@') || stripped.contains('/'));
    (!stripped.is_empty() && !handle && stripped.chars().count() <= MAX_AUTHOR_CHARS).then(|| stripped.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::Document;

    fn meta_of(html: &str) -> PageMetadata {
        page_metadata(html, &Html::parse_document(html))
    }

    #[test]
    fn json_ld_wins_and_graphs_are_read() {
        let html = r#"<html><head>
            <meta property="article:published_time" content="2020-01-01T00:00:00Z">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
              {"@type":"WebSite","name":"x"},
              {"@type":"NewsArticle","datePublished":"2023-07-14T09:30:00+02:00",
               "author":[{"@type":"Person","name":"Ana Díaz"},{"@type":"Person","name":"Bo Li"}]}]}
            </script></head><body><p>x</p></body></html>"#;
        let m = meta_of(html);
        assert_eq!(m.date.as_deref(), Some("2023-07-14"));
        assert_eq!(m.author.as_deref(), Some("Ana Díaz; Bo Li"));
    }

    #[test]
    fn the_longest_json_ld_article_body_is_read_and_a_teaser_is_not() {
        let body = "word ".repeat(MIN_ARTICLE_BODY_WORDS);
        let html = format!(
            r#"<html><head><script type="application/ld+json">{{"@graph":[{{"@type":"WebPage"}},
              {{"@type":"NewsArticle","articleBody":"{body}and more"}}]}}</script>
            <script type="application/ld+json">[{{"@type":"NewsArticle","articleBody":"A short teaser."}}]</script>
            </head><body><p>x</p></body></html>"#
        );
        assert_eq!(ld_article_body(&html).as_deref(), Some(format!("{body}and more").as_str()));
        let teaser = r#"<script type="application/ld+json">{"articleBody":"A short teaser."}</script>"#;
        assert_eq!(ld_article_body(teaser), None);
        assert_eq!(ld_article_body(r#"<script type="application/ld+json">{"articleBody": broken</script>"#), None);
        assert_eq!(Document::parse(&html).ld_article_body.as_deref(), ld_article_body(&html).as_deref());
    }

    #[test]
    fn meta_tags_then_time_elements() {
        let html = r#"<html><head><meta name="author" content="By  Jane   Roe">
            <meta property="article:author" content="https://example.com/jane">
            <meta name="date" content="2019-05-02"><meta name="dc.date" content="2018-04-01"></head>
            <body><time datetime="2001-01-01">x</time></body></html>"#;
        let m = meta_of(html);
        assert_eq!(m.author.as_deref(), Some("Jane Roe"));
        assert_eq!(m.date.as_deref(), Some("2018-04-01"), "dc.date ranks above the bare `date`");
        let micro = meta_of(
            r#"<span itemprop="author" itemscope itemtype="https://schema.org/Person"><meta itemprop="name" content="Brett Dickerson"></span>"#,
        );
        assert_eq!(micro.author.as_deref(), Some("Brett Dickerson"));
        assert_eq!(meta_of(r#"<p>By <a rel="author" href="/u/k">K. Lee</a></p>"#).author.as_deref(), Some("K. Lee"));
        assert_eq!(meta_of(r#"<meta name="author" content="example-news.com"><p>x</p>"#).author, None);
        let org = r#"<script type="application/ld+json">{"author":{"@type":"Organization","name":"Daily"}}</script>"#;
        assert_eq!(meta_of(org).author, None);
        let only_time = meta_of(r#"<p>Posted <time datetime="2016-10-03T12:00">Oct 3</time></p>"#);
        assert_eq!(only_time.date.as_deref(), Some("2016-10-03"));
        let index = meta_of(r#"<time datetime="2016-10-03">a</time><time datetime="2016-10-04">b</time>"#);
        assert_eq!(index.date, None, "an index page's many dates are not its date");
        let marked = meta_of(
            r#"<time datetime="2016-10-03">a</time><time itemprop="datePublished" datetime="2015-02-01">b</time>"#,
        );
        assert_eq!(marked.date.as_deref(), Some("2015-02-01"));
    }

    #[test]
    fn dates_must_be_dates() {
        assert_eq!(iso_date("2024/03/05 10:00"), Some("2024-03-05".into()));
        for bad in ["", "yesterday", "2024-13-01", "1850-01-01", "20240-01-01", "2024-03-0512", "05.03.2024"] {
            assert_eq!(iso_date(bad), None, "{bad}");
        }
        assert_eq!(meta_of(r#"<meta name="date" content="soon"><p>x</p>"#).date, None);
        assert_eq!(meta_of("<p>no metadata</p>"), PageMetadata::default());
    }
}
