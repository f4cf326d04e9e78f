//! [`MarkupSignals`]: what a page's markup says about its type, for the page classifier's
//! "markup" feature group (ours, not the blog's): the Open Graph type (`og:type` = `article`
//! or `product`, ogp.me), schema.org types in JSON-LD (`NewsArticle`, `BlogPosting`,
//! `Product`, `QAPage`, ...), a publication date (`article:published_time`,
//! `itemprop="datePublished"`), the number of `<article>` elements (one on an article, many
//! cards on a listing) and of form controls (shops and services ask for input).

use crate::html::Document;
use scraper::Selector;
use std::sync::OnceLock;

/// schema.org types (lower case) that mark an article page.
const ARTICLE_TYPES: &[&str] =
    &["article", "newsarticle", "blogposting", "reportagenewsarticle", "analysisnewsarticle", "opinionnewsarticle"];
/// schema.org types (lower case) that mark a product, forum or Q&A page.
const OTHER_TYPES: &[&str] = &["product", "offer", "aggregateoffer", "qapage", "discussionforumposting", "faqpage"];

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
}

fn selector(cell: &'static OnceLock<Selector>, css: &str) -> &'static Selector {
    cell.get_or_init(|| Selector::parse(css).expect("valid selector"))
}

/// Collect every `@type` value (lower case) of a JSON-LD value.
fn ld_types(v: &serde_json::Value, out: &mut Vec<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    match v {
        serde_json::Value::Object(map) => {
            for (k, x) in map {
                if k == "@type" {
                    match x {
                        serde_json::Value::String(s) => out.push(s.to_lowercase()),
                        serde_json::Value::Array(a) => {
                            out.extend(a.iter().filter_map(|t| t.as_str()).map(str::to_lowercase));
                        }
                        _ => {}
                    }
                } else {
                    ld_types(x, out, depth + 1);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| ld_types(x, out, depth + 1)),
        _ => {}
    }
}

impl MarkupSignals {
    /// Read the signals of `doc`.
    pub fn of(doc: &Document) -> MarkupSignals {
        static OG: OnceLock<Selector> = OnceLock::new();
        static LD: OnceLock<Selector> = OnceLock::new();
        static DATE: OnceLock<Selector> = OnceLock::new();
        static ARTICLE: OnceLock<Selector> = OnceLock::new();
        static FORM: OnceLock<Selector> = OnceLock::new();
        let mut s = MarkupSignals::default();
        for m in doc.html.select(selector(&OG, r#"meta[property="og:type"]"#)) {
            let t = m.value().attr("content").unwrap_or("").trim().to_lowercase();
            s.says_article |= t == "article" || t.starts_with("article") || t.contains("blog");
            s.says_other |= t.contains("product");
        }
        let mut types = Vec::new();
        for script in doc.html.select(selector(&LD, r#"script[type="application/ld+json"]"#)) {
            let text: String = script.text().collect();
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(text.trim()) {
                ld_types(&v, &mut types, 0);
            }
        }
        let has = |list: &[&str]| types.iter().any(|t| list.contains(&t.trim_start_matches("schema:").trim()));
        s.says_article |= has(ARTICLE_TYPES);
        s.says_other |= has(OTHER_TYPES);
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
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_open_graph_json_ld_dates_and_counts() {
        let doc = Document::parse(
            r#"<html><head><meta property="og:type" content="article">
            <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":["NewsArticle"]}]}</script>
            <meta property="article:published_time" content="2024-05-01"></head>
            <body><article><p>x</p></article><form><input><button>Go</button></form></body></html>"#,
        );
        let s = MarkupSignals::of(&doc);
        assert!(s.says_article && !s.says_other && s.date_published);
        assert_eq!((s.article_elements, s.form_controls), (1, 2));
        let shop = Document::parse(
            r#"<html><head><script type="application/ld+json">{"@type": "Product", "offers": {"@type": "Offer"}}</script>
            <script type="application/ld+json">{ not json</script></head><body><article>a</article><article>b</article></body></html>"#,
        );
        let s = MarkupSignals::of(&shop);
        assert!(!s.says_article && s.says_other && !s.date_published);
        assert_eq!(s.article_elements, 2);
    }
}
