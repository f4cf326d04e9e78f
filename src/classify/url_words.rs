//! [`UrlSignals`]: what a page's URL says about its type, for the page classifier's "URL
//! shape" and "URL words" feature groups (ours, not the blog's). URL shape: path depth, the
//! most words in one path segment (an article's slug), digits, a query. URL words: which
//! [`URL_WORDS`] classes the URL's tokens fall into (`/news/`, `/forum/`, `/docs/`,
//! `/product/`, `/category/`, `/services/`, ...), and a date in the path (`/2025/09/`).
//!
//! Tokens ([`url_tokens`]) are the host's labels before the registrable domain
//! (`docs.python.org` → `docs`), the query's parameter names (`?topic=` → `topic`), and the
//! pieces of every path segment that is not a slug (at most two words: `viewtopic.php`,
//! `thread-222085`, `all-sheets`; a slug such as `best-chicken-recipes-5117879` is text, not
//! a section name, and is skipped).

/// One class of URL words: a name and its lower-case, ASCII-folded tokens.
#[derive(Debug, Clone, Copy)]
pub struct UrlWords {
    /// Feature name (`url_forum`, ...).
    pub feature: &'static str,
    /// Tokens, whole (`forum` does not match `forums` unless listed).
    pub words: &'static [&'static str],
}

/// The URL word classes. Sources: the URL schemes of the common publishing, forum, shop and
/// documentation software — WordPress and news CMSs (`/news/`, `/blog/`, `/YYYY/MM/`),
/// phpBB `viewtopic.php`, vBulletin `showthread.php`, Discourse `/t/`, XenForo `/threads/`,
/// Invision `/topic/`, Stack Exchange `/questions/`; Shopify `/products/`, `/collections/`,
/// WooCommerce `/product/`, `/product-category/`, Amazon `/dp/`; Sphinx, MkDocs, Read the
/// Docs `/docs/`, `/en/latest/`, MediaWiki `/wiki/` — and their usual translations in the
/// languages of the data (German, Spanish, French, Polish, Italian, Dutch, Portuguese);
/// compiled for this project.
#[rustfmt::skip]
pub const URL_WORDS: &[UrlWords] = &[
    UrlWords {
        feature: "url_article_words",
        words: &[
            "news", "article", "articles", "blog", "blogs", "post", "posts", "story", "stories", "opinion", "column",
            "columns", "magazine", "newsroom", "press", "insights", "nachrichten", "artikel", "meldung", "beitrag",
            "noticias", "noticia", "articulo", "articulos", "actualites", "actualite", "actu", "wiadomosci",
            "artykul", "aktualnosci", "notizie", "articolo", "nieuws", "materia",
        ],
    },
    UrlWords {
        feature: "url_forum_words",
        words: &[
            "forum", "forums", "thread", "threads", "topic", "t", "viewtopic", "showthread", "questions", "question",
            "community", "discussion", "discussions", "discuss", "talk", "board", "boards", "bbs", "answers",
            "foren", "foro", "foros", "watek", "temat", "discussione", "discussioni", "topico",
        ],
    },
    UrlWords {
        feature: "url_docs_words",
        words: &[
            "docs", "doc", "documentation", "api", "reference", "manual", "man", "wiki", "library", "howto",
            "handbook", "latest", "stable", "dokumentation", "doku", "documentacion", "documentacao", "dokumentacja",
            "manuel", "handbuch", "referenz", "developer", "developers",
        ],
    },
    UrlWords {
        feature: "url_shop_words",
        words: &[
            "product", "products", "shop", "store", "item", "items", "dp", "cart", "buy", "pdp", "sku", "produkt",
            "produkte", "producto", "productos", "tienda", "produit", "produits", "boutique", "sklep", "prodotto",
            "prodotti", "negozio", "winkel", "produto", "produtos", "loja", "detail",
        ],
    },
    UrlWords {
        feature: "url_listing_words",
        words: &[
            "category", "categories", "tag", "tags", "collection", "collections", "archive", "archives", "search",
            "list", "lists", "browse", "page", "section", "topics", "trending", "kategorie", "themen", "schlagwort",
            "categoria", "categorias", "etiqueta", "categorie", "rubrique", "kategoria", "tagi", "archiwum", "q",
            "s",
        ],
    },
    UrlWords {
        feature: "url_service_words",
        words: &[
            "services", "service", "solutions", "solution", "pricing", "plans", "programs", "program",
            "certificates", "consulting", "leistungen", "dienstleistungen", "angebot", "servicios", "soluciones",
            "precios", "prestations", "tarifs", "uslugi", "oferta", "cennik", "servizi", "soluzioni", "diensten",
            "oplossingen", "servicos", "solucoes",
        ],
    },
];

/// The URL signals of one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UrlSignals {
    /// The URL ends with `/` (the blog's feature).
    pub ends_with_slash: bool,
    /// Non-empty path segments.
    pub depth: usize,
    /// Most words with a letter in one path segment.
    pub slug_words: usize,
    /// ASCII digits in the path.
    pub digits: usize,
    /// The URL has a non-empty query.
    pub query: bool,
    /// Tokens per [`URL_WORDS`] class, in its order.
    pub word_hits: Vec<usize>,
    /// The URL names a section rather than an item: the path is empty, or its last segment is
    /// a single word of a [`URL_WORDS`] class (`/news`, `/forum/`, `/docs`, `/shop`).
    pub section: bool,
    /// The path holds a date: a year segment (1990–2039) followed by a month or day segment,
    /// or a `YYYY-MM-DD` piece.
    pub date: bool,
}

/// Word pieces with a letter in a URL path segment (`us-jobs-report-2024.html` → 3).
pub fn slug_words(segment: &str) -> usize {
    let stem = segment.rsplit_once('.').map_or(segment, |(stem, ext)| if ext.len() <= 5 { stem } else { segment });
    stem.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().any(char::is_alphabetic)).count()
}

fn fold(word: &str) -> String {
    word.to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' | 'ą' => 'a',
            'é' | 'è' | 'ê' | 'ë' | 'ę' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' | 'ć' => 'c',
            'ñ' | 'ń' => 'n',
            'ł' => 'l',
            'ś' => 's',
            'ź' | 'ż' => 'z',
            c => c,
        })
        .collect()
}

/// The tokens of `url` (see the module doc), lower-case and folded to ASCII letters.
pub fn url_tokens(url: &url::Url) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(host) = url.host_str() {
        let labels: Vec<&str> = host.split('.').collect();
        // Labels before the last two (a rough registrable domain; `www` is no signal).
        for label in labels.iter().take(labels.len().saturating_sub(2)) {
            if *label != "www" {
                out.push(fold(label));
            }
        }
    }
    for (key, _) in url.query_pairs() {
        out.push(fold(&key));
    }
    for segment in url.path().split('/').filter(|s| !s.is_empty()) {
        let segment = percent_encoding::percent_decode_str(segment).decode_utf8_lossy();
        if slug_words(&segment) > 2 {
            continue;
        }
        out.extend(segment.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(fold));
    }
    out
}

fn is_year(s: &str) -> bool {
    s.len() == 4 && s.parse::<u32>().is_ok_and(|y| (1990..2040).contains(&y))
}

fn is_month_or_day(s: &str) -> bool {
    (1..=2).contains(&s.len()) && s.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d))
}

/// True when the path holds a date (see [`UrlSignals::date`]).
pub fn path_has_date(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segments.windows(2).any(|w| is_year(w[0]) && is_month_or_day(w[1])) {
        return true;
    }
    segments.iter().any(|s| {
        let parts: Vec<&str> = s.split(['-', '_']).collect();
        parts.windows(3).any(|w| is_year(w[0]) && is_month_or_day(w[1]) && is_month_or_day(w[2]))
    })
}

impl UrlSignals {
    /// The signals of `url`.
    pub fn of(url: &url::Url) -> UrlSignals {
        let path = url.path();
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let tokens = url_tokens(url);
        UrlSignals {
            ends_with_slash: url.as_str().ends_with('/'),
            depth: segments.len(),
            slug_words: segments.iter().map(|s| slug_words(s)).max().unwrap_or(0),
            digits: path.chars().filter(char::is_ascii_digit).count(),
            query: url.query().is_some_and(|q| !q.is_empty()),
            word_hits: URL_WORDS
                .iter()
                .map(|class| tokens.iter().filter(|t| class.words.contains(&t.as_str())).count())
                .collect(),
            date: path_has_date(path),
            section: segments.last().is_none_or(|last| {
                let last = fold(last.rsplit_once('.').map_or(last, |(stem, _)| stem));
                URL_WORDS.iter().any(|class| class.words.contains(&last.as_str()))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals(u: &str) -> UrlSignals {
        UrlSignals::of(&url::Url::parse(u).unwrap())
    }

    fn hits(u: &str, feature: &str) -> usize {
        let i = URL_WORDS.iter().position(|c| c.feature == feature).unwrap();
        signals(u).word_hits[i]
    }

    #[test]
    fn words_come_from_hosts_sections_and_query_names_not_slugs() {
        assert_eq!(hits("https://forums.example.org/viewtopic.php?t=3", "url_forum_words"), 3);
        assert_eq!(hits("https://docs.python.org/3/library/json.html", "url_docs_words"), 2);
        assert_eq!(hits("https://shop.example.de/produkte/tisch-eiche", "url_shop_words"), 2);
        assert_eq!(
            hits("https://example.com/how-to-read-the-news-every-day", "url_article_words"),
            0,
            "a slug is text, not a section"
        );
        assert_eq!(hits("https://example.es/categoría/música", "url_listing_words"), 1, "folded accents");
        assert_eq!(hits("https://www.example.com/", "url_article_words"), 0);
    }

    #[test]
    fn dates_and_shape() {
        assert!(signals("https://x.org/2025/09/some-story").date);
        assert!(signals("https://x.org/blog/2025-12-17-the-pilot-has-landed").date);
        assert!(!signals("https://x.org/p/2025-report").date);
        assert!(!signals("https://x.org/products/1999").date);
        assert!(signals("https://www.bbc.com/news").section && signals("https://x.org/").section);
        assert!(!signals("https://x.org/news/storm-hits").section && !signals("https://x.org/technology").section);
        let s = signals("https://news.example.org/2024/05/storm-hits-the-coast.html?x=1");
        assert_eq!((s.depth, s.slug_words, s.digits, s.query, s.ends_with_slash), (3, 4, 6, true, false));
    }
}
