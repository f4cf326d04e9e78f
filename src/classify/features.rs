//! [`PageFeatures`]: the numbers the page classifier sees, computed from one page's extraction
//! (the kept paragraphs of the `default` extractor), all its blocks, its URL and its title
//! ([`PageInput`]). Every candidate feature is computed; a model names the ones it uses
//! ([`FEATURE_NAMES`] gives the order), so feature sets can be compared by training alone.
//!
//! The first seven are the news-page classifier blog's (2013): text length, URL ends with
//! '/', title length, number of newlines, imprint/privacy words in text and in title, number
//! of upper-case letters. Counts enter as `ln(1 + count)`. The rest are ours, in groups
//! ([`FEATURE_GROUPS`], measured by ablation in `webcorpus train classifier --ablation`, see
//! `models/README.md`): text shape, page shape (block count, link density, extracted share),
//! URL shape and URL words ([`UrlSignals`]), markup and structure ([`MarkupSignals`]: Open
//! Graph and schema.org types, publication date, `<article>`, form controls, code, headings,
//! `<time>`, author markup, headline links), title words and page cues ([`super::cues`]).

use super::cues::{count_dates, count_page_cues, count_prices, count_title_cues, is_byline};
use super::legal::count_legal_terms;
pub use super::markup::MarkupSignals;
pub use super::url_words::UrlSignals;
use super::url_words::URL_WORDS;
use crate::model::{Block, Paragraph, ParagraphKind};

/// Names of all candidate features, in [`PageFeatures::values`] order.
pub const FEATURE_NAMES: [&str; 53] = [
    // The blog's seven.
    "text_chars",
    "url_slash",
    "title_chars",
    "newlines",
    "legal_text",
    "legal_title",
    "upper",
    // Text shape.
    "upper_share",
    "mean_paragraph_chars",
    "long_paragraphs",
    "sentence_share",
    "list_share",
    "heading_share",
    // Page shape.
    "blocks",
    "link_density",
    "extracted_share",
    // URL shape.
    "url_depth",
    "url_slug_words",
    "url_digits",
    "url_query",
    // Markup.
    "markup_article",
    "markup_other",
    "date_published",
    "article_elements",
    "form_controls",
    // URL words.
    "url_article_words",
    "url_forum_words",
    "url_docs_words",
    "url_shop_words",
    "url_listing_words",
    "url_service_words",
    "url_date",
    // Title words.
    "title_forum",
    "title_docs",
    "title_shop",
    "title_listing",
    // Page cues.
    "forum_cues",
    "shop_cues",
    "docs_cues",
    "service_cues",
    "article_cues",
    "prices",
    "dates",
    "bylines",
    // Structure.
    "markup_listing",
    "markup_service",
    "code_share",
    "headings",
    "time_elements",
    "author_markup",
    "headline_links",
    // Text shape (added with the groups above).
    "question_share",
    // URL words (continued).
    "url_section",
];

/// Number of candidate features.
pub const FEATURE_COUNT: usize = FEATURE_NAMES.len();

/// The blog's seven features.
pub const PAPER_FEATURES: &[&str] =
    &["text_chars", "url_slash", "title_chars", "newlines", "legal_text", "legal_title", "upper"];

/// Feature groups added to [`PAPER_FEATURES`] in the ablation, by name.
pub const FEATURE_GROUPS: &[(&str, &[&str])] = &[
    (
        "text shape",
        &[
            "upper_share",
            "mean_paragraph_chars",
            "long_paragraphs",
            "sentence_share",
            "list_share",
            "heading_share",
            "question_share",
        ],
    ),
    ("page shape", &["blocks", "link_density", "extracted_share"]),
    ("url shape", &["url_depth", "url_slug_words", "url_digits", "url_query"]),
    ("markup", &["markup_article", "markup_other", "date_published", "article_elements", "form_controls"]),
    (
        "url words",
        &[
            "url_article_words",
            "url_forum_words",
            "url_docs_words",
            "url_shop_words",
            "url_listing_words",
            "url_service_words",
            "url_date",
            "url_section",
        ],
    ),
    ("title words", &["title_forum", "title_docs", "title_shop", "title_listing"]),
    (
        "page cues",
        &["forum_cues", "shop_cues", "docs_cues", "service_cues", "article_cues", "prices", "dates", "bylines"],
    ),
    (
        "structure",
        &[
            "markup_listing",
            "markup_service",
            "code_share",
            "headings",
            "time_elements",
            "author_markup",
            "headline_links",
        ],
    ),
];

/// The first model's 25 features (the blog's seven, text shape without `question_share`,
/// page shape, URL shape, markup): the baseline row of the ablation.
pub const V1_FEATURES: &[&str] = &FEATURE_NAMES_V1;
const FEATURE_NAMES_V1: [&str; 25] = [
    "text_chars",
    "url_slash",
    "title_chars",
    "newlines",
    "legal_text",
    "legal_title",
    "upper",
    "upper_share",
    "mean_paragraph_chars",
    "long_paragraphs",
    "sentence_share",
    "list_share",
    "heading_share",
    "blocks",
    "link_density",
    "extracted_share",
    "url_depth",
    "url_slug_words",
    "url_digits",
    "url_query",
    "markup_article",
    "markup_other",
    "date_published",
    "article_elements",
    "form_controls",
];

/// Features that are read from the URL; unknown when the page has none (then a model uses
/// the training mean, see [`PageFeatures::url_known`]).
pub const URL_FEATURES: &[&str] = &[
    "url_slash",
    "url_depth",
    "url_slug_words",
    "url_digits",
    "url_query",
    "url_article_words",
    "url_forum_words",
    "url_docs_words",
    "url_shop_words",
    "url_listing_words",
    "url_service_words",
    "url_date",
    "url_section",
];

/// A paragraph at least this long (characters) counts in `long_paragraphs`.
pub const LONG_PARAGRAPH_CHARS: usize = 200;

/// What a page's features are computed from.
#[derive(Debug, Clone, Copy)]
pub struct PageInput<'a> {
    /// The page URL (final URL after redirects), if known.
    pub url: Option<&'a str>,
    /// The page's `<title>`.
    pub title: Option<&'a str>,
    /// The extractor's kept paragraphs, in order.
    pub paragraphs: &'a [Paragraph],
    /// All text blocks of the page (for link density and the extracted share).
    pub blocks: &'a [Block],
    /// The page's markup signals (`None`: the markup features are 0).
    pub markup: Option<MarkupSignals>,
}

/// One page's candidate features.
#[derive(Debug, Clone, PartialEq)]
pub struct PageFeatures {
    /// Values in [`FEATURE_NAMES`] order; always finite.
    pub values: [f32; FEATURE_COUNT],
    /// False when the page had no parsable URL: the [`URL_FEATURES`] are then 0 and a model
    /// replaces them by its training mean.
    pub url_known: bool,
}

fn ln1p(x: usize) -> f32 {
    (x as f32).ln_1p()
}

fn flag(b: bool) -> f32 {
    f32::from(u8::from(b))
}

fn share(part: usize, whole: usize) -> f32 {
    if whole == 0 {
        0.0
    } else {
        (part as f32 / whole as f32).min(1.0)
    }
}

/// True when a paragraph ends like a sentence (after closing quotes and brackets).
fn ends_sentence(text: &str) -> bool {
    let last = text.trim_end().trim_end_matches(['"', '\'', ')', '”', '’', '»', '」', '』']).chars().next_back();
    matches!(last, Some('.' | '!' | '?' | '…' | '。' | '！' | '？' | ':'))
}

impl PageFeatures {
    /// Compute every candidate feature of `input`.
    pub fn compute(input: &PageInput<'_>) -> PageFeatures {
        let mut v = [0.0f32; FEATURE_COUNT];
        let pars = input.paragraphs;
        // The record's text: paragraphs joined by blank lines.
        let par_chars: Vec<usize> = pars.iter().map(|p| p.text.chars().count()).collect();
        let text_chars = par_chars.iter().sum::<usize>() + 2 * pars.len().saturating_sub(1);
        let newlines =
            2 * pars.len().saturating_sub(1) + pars.iter().map(|p| p.text.matches('\n').count()).sum::<usize>();
        let (mut upper, mut letters, mut legal) = (0usize, 0usize, 0usize);
        for p in pars {
            for c in p.text.chars() {
                if c.is_alphabetic() {
                    letters += 1;
                    if c.is_uppercase() {
                        upper += 1;
                    }
                }
            }
            legal += count_legal_terms(&p.text);
        }
        let title = input.title.unwrap_or("");
        v[0] = ln1p(text_chars);
        v[2] = ln1p(title.chars().count());
        v[3] = ln1p(newlines);
        v[4] = ln1p(legal);
        v[5] = f32::from(u8::from(count_legal_terms(title) > 0));
        v[6] = ln1p(upper);
        // Text shape.
        v[7] = share(upper, letters);
        v[8] = if pars.is_empty() { 0.0 } else { ln1p(par_chars.iter().sum::<usize>() / pars.len()) };
        v[9] = ln1p(par_chars.iter().filter(|&&c| c >= LONG_PARAGRAPH_CHARS).count());
        let body: Vec<&Paragraph> = pars.iter().filter(|p| p.kind != ParagraphKind::Heading).collect();
        v[10] = share(body.iter().filter(|p| ends_sentence(&p.text)).count(), body.len());
        v[11] = share(pars.iter().filter(|p| p.kind == ParagraphKind::ListItem).count(), pars.len());
        v[12] = share(pars.iter().filter(|p| p.kind == ParagraphKind::Heading).count(), pars.len());
        // Page shape.
        let page_chars: usize = input.blocks.iter().map(|b| b.chars).sum();
        let link_chars: usize = input.blocks.iter().map(|b| b.link_chars).sum();
        v[13] = ln1p(input.blocks.len());
        v[14] = share(link_chars, page_chars);
        v[15] = share(par_chars.iter().sum(), page_chars);
        v[51] = share(body.iter().filter(|p| p.text.trim_end().ends_with(['?', '？', '¿'])).count(), body.len());
        // Markup and structure.
        if let Some(m) = input.markup {
            v[20] = flag(m.says_article);
            v[21] = flag(m.says_other);
            v[22] = flag(m.date_published);
            v[23] = ln1p(m.article_elements);
            v[24] = ln1p(m.form_controls);
            v[44] = flag(m.says_listing);
            v[45] = flag(m.says_service);
            v[46] = share(m.code_chars, page_chars);
            v[47] = ln1p(m.headings);
            v[48] = ln1p(m.time_elements);
            v[49] = flag(m.author);
            v[50] = ln1p(m.headline_links);
        }
        // Page cues: the text of every block, and the title.
        let mut page_text = String::with_capacity(page_chars + input.blocks.len());
        for b in input.blocks {
            page_text.push_str(&b.text.to_lowercase());
            page_text.push('\n');
        }
        for (j, hits) in count_page_cues(&page_text).into_iter().enumerate() {
            v[36 + j] = ln1p(hits);
        }
        v[41] = ln1p(count_prices(&page_text));
        v[42] = ln1p(count_dates(&page_text));
        v[43] = ln1p(input.blocks.iter().filter(|b| is_byline(&b.text)).count());
        let lower_title = title.to_lowercase();
        for (j, hits) in count_title_cues(&lower_title).into_iter().enumerate() {
            v[32 + j] = ln1p(hits);
        }
        // URL.
        let url = input.url.and_then(|u| url::Url::parse(u).ok());
        if let Some(url) = &url {
            let u = UrlSignals::of(url);
            v[1] = flag(u.ends_with_slash);
            v[16] = u.depth as f32;
            v[17] = u.slug_words as f32;
            v[18] = ln1p(u.digits);
            v[19] = flag(u.query);
            for (j, hits) in u.word_hits.iter().enumerate().take(URL_WORDS.len()) {
                v[25 + j] = ln1p(*hits);
            }
            v[31] = flag(u.date);
            v[52] = flag(u.section);
        }
        for x in &mut v {
            if !x.is_finite() {
                *x = 0.0;
            }
        }
        PageFeatures { values: v, url_known: url.is_some() }
    }

    /// The value of the feature `name`, if it is one of [`FEATURE_NAMES`].
    pub fn get(&self, name: &str) -> Option<f32> {
        FEATURE_NAMES.iter().position(|n| *n == name).map(|i| self.values[i])
    }
}

#[cfg(test)]
mod tests {
    use super::super::cues::{PAGE_CUES, TITLE_CUES};
    use super::*;

    fn par(kind: ParagraphKind, text: &str) -> Paragraph {
        Paragraph { kind, text: text.to_string() }
    }

    #[test]
    fn computed_positions_match_the_names() {
        for (j, c) in URL_WORDS.iter().enumerate() {
            assert_eq!(FEATURE_NAMES[25 + j], c.feature);
        }
        assert_eq!(FEATURE_NAMES[31], "url_date");
        for (j, c) in TITLE_CUES.iter().enumerate() {
            assert_eq!(FEATURE_NAMES[32 + j], c.feature);
        }
        for (j, c) in PAGE_CUES.iter().enumerate() {
            assert_eq!(FEATURE_NAMES[36 + j], c.feature);
        }
        let at = [(41, "prices"), (42, "dates"), (43, "bylines"), (44, "markup_listing"), (46, "code_share")];
        for (i, name) in at {
            assert_eq!(FEATURE_NAMES[i], name);
        }
        assert_eq!((FEATURE_NAMES[50], FEATURE_NAMES[51]), ("headline_links", "question_share"));
        assert!(V1_FEATURES.iter().all(|f| FEATURE_NAMES[..25].contains(f)));
    }

    #[test]
    fn groups_cover_every_feature_once() {
        let mut all: Vec<&str> = PAPER_FEATURES.to_vec();
        for (_, g) in FEATURE_GROUPS {
            all.extend_from_slice(g);
        }
        all.sort_unstable();
        let mut names = FEATURE_NAMES.to_vec();
        names.sort_unstable();
        assert_eq!(all, names);
        assert!(URL_FEATURES.iter().all(|u| FEATURE_NAMES.contains(u)));
    }

    #[test]
    fn an_article_and_an_imprint_differ_where_the_blog_says() {
        let article = [
            par(ParagraphKind::Heading, "Storm hits the coast"),
            par(ParagraphKind::Paragraph, &"The storm reached the coast on Monday, officials said. ".repeat(8)),
            par(ParagraphKind::Paragraph, "Schools stay closed (until Friday)."),
        ];
        let imprint = [par(ParagraphKind::ListItem, "Impressum"), par(ParagraphKind::ListItem, "Datenschutz")];
        let a = PageFeatures::compute(&PageInput {
            url: Some("https://news.example.org/2024/05/storm-hits-the-coast.html"),
            title: Some("Storm hits the coast"),
            paragraphs: &article,
            blocks: &[],
            markup: None,
        });
        let i = PageFeatures::compute(&PageInput {
            url: Some("https://news.example.org/impressum/"),
            title: Some("Impressum – Example News"),
            paragraphs: &imprint,
            blocks: &[],
            markup: None,
        });
        assert!(a.get("text_chars").unwrap() > i.get("text_chars").unwrap());
        assert_eq!(a.get("newlines").unwrap(), 4f32.ln_1p(), "two blank lines between three paragraphs");
        assert_eq!((a.get("legal_title"), i.get("legal_title")), (Some(0.0), Some(1.0)));
        assert_eq!(i.get("legal_text"), Some(2f32.ln_1p()));
        assert_eq!((a.get("url_slash"), i.get("url_slash")), (Some(0.0), Some(1.0)));
        assert_eq!(a.get("url_slug_words"), Some(4.0));
        assert_eq!(a.get("url_depth"), Some(3.0));
        assert_eq!(a.get("sentence_share"), Some(1.0));
        assert_eq!(i.get("list_share"), Some(1.0));
        assert!(a.url_known);
        let none =
            PageFeatures::compute(&PageInput { url: None, title: None, paragraphs: &[], blocks: &[], markup: None });
        assert!(!none.url_known && none.values.iter().all(|v| *v == 0.0));
    }
}
