//! Training data of the page classifier: the principal type is [`LabelledPage`], one typed
//! page of the shared sets with its features and its split. [`load_pages`] extracts every
//! typed page of the given [`Dataset`]s with the `default` extractor (no domain model: most
//! sites have one page) on several threads.
//!
//! Labels ([`label_of`]): `article` and `blog` are articles; every other annotated type
//! (modern2026-dev's listing, product, service, forum, documentation, collection;
//! `no-article` of CleanEval and CleanPortalEval) is other. Untyped pages (most of CleanEval,
//! all of trafilatura-eval) are left out: CleanEval mixes articles with mailing-list
//! archives, personal and government pages, and nobody labelled which is which.
//!
//! Split ([`split_of`]): by site, deterministic. Test = the held-out sites of all learned
//! models ([`is_holdout_site`]: `xxh3_64(site) % 5 == 0`, the sites `webcorpus eval --split
//! holdout` scores); of the other sites, those with `xxh3_64(site, seed 1) % 100 <`
//! [`VALIDATION_PERCENT`] are validation, the rest training. The site key is
//! [`GoldPage::site_key`]; no site is on two sides.

use super::extract_with_features;
use super::features::PageFeatures;
use crate::eval::dataset::{is_holdout_site, Dataset, GoldPage};
use crate::extract::pipeline::ExtractSettings;
use crate::extract::ExtractorKind;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Share (percent) of the non-test sites held out for validation (per-epoch scores, early
/// stopping).
pub const VALIDATION_PERCENT: u64 = 19;

/// Which part of the data a page belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Split {
    /// Fits the weights.
    Train,
    /// Per-epoch scores; picks the epoch that is kept.
    Validation,
    /// Touched once, for the reported scores.
    Test,
}

/// The split of a site (see the module doc).
pub fn split_of(site_key: &str) -> Split {
    if is_holdout_site(site_key) {
        Split::Test
    } else if xxhash_rust::xxh3::xxh3_64_with_seed(site_key.as_bytes(), 1) % 100 < VALIDATION_PERCENT {
        Split::Validation
    } else {
        Split::Train
    }
}

/// True when the site's pages are held out for testing ([`is_holdout_site`]).
pub fn is_test_site(site_key: &str) -> bool {
    split_of(site_key) == Split::Test
}

/// The label of an annotated page type: `Some(true)` for article and blog, `Some(false)` for
/// any other type, `None` for an untyped page.
pub fn label_of(page_type: Option<&str>) -> Option<bool> {
    match page_type.map(str::trim) {
        None | Some("") => None,
        Some(t) => Some(matches!(t, "article" | "blog")),
    }
}

/// One typed page with its features.
#[derive(Debug, Clone)]
pub struct LabelledPage {
    /// The set's name (e.g. `modern2026-dev`).
    pub set: String,
    /// The page id in the set.
    pub id: String,
    /// [`GoldPage::site_key`].
    pub site: String,
    /// The annotated type (`article`, `forum`, `no-article`, ...).
    pub fine_type: String,
    /// True for an article.
    pub article: bool,
    /// Its split.
    pub split: Split,
    /// Features of the default extraction; `None` when the page could not be read or
    /// extracted (such a page is left out of training and scoring, and counted).
    pub features: Option<PageFeatures>,
}

/// Extract every typed page of `sets` (at most `limit` per set) with the `default` extractor
/// on `threads` threads and compute its features. `progress(done, total)` is called after
/// each page. A page that cannot be read or extracted gets `features: None`.
pub fn load_pages(
    sets: &[Dataset],
    settings: &ExtractSettings,
    threads: usize,
    limit: Option<usize>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<LabelledPage> {
    let jobs: Vec<(&Dataset, &GoldPage)> = sets
        .iter()
        .flat_map(|set| {
            set.pages
                .iter()
                .filter(|p| label_of(p.page_type.as_deref()).is_some())
                .take(limit.unwrap_or(usize::MAX))
                .map(move |p| (set, p))
        })
        .collect();
    let total = jobs.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let out: Mutex<Vec<(usize, LabelledPage)>> = Mutex::new(Vec::with_capacity(total));
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(set, page)) = jobs.get(i) else { break };
                let page_type = page.page_type.clone().unwrap_or_default();
                let features = match set.read_html(page) {
                    Ok(html) => {
                        match extract_with_features(&html, page.url.as_deref(), ExtractorKind::Default, None, settings)
                        {
                            Ok((_, f)) => Some(f),
                            Err(e) => {
                                tracing::warn!(set = set.name, id = page.id, "extraction failed: {e}");
                                None
                            }
                        }
                    }
                    Err(e) => {
                        tracing::warn!(set = set.name, id = page.id, "unreadable: {e}");
                        None
                    }
                };
                let site = page.site_key();
                let labelled = LabelledPage {
                    set: set.name.clone(),
                    id: page.id.clone(),
                    split: split_of(&site),
                    site,
                    article: label_of(Some(&page_type)).unwrap_or(false),
                    fine_type: page_type,
                    features,
                };
                if let Ok(mut v) = out.lock() {
                    v.push((i, labelled));
                }
                progress(done.fetch_add(1, Ordering::SeqCst) + 1, total);
            });
        }
    });
    let mut pages = out.into_inner().unwrap_or_default();
    pages.sort_by_key(|(i, _)| *i);
    pages.into_iter().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_splits() {
        assert_eq!(label_of(Some("article")), Some(true));
        assert_eq!(label_of(Some("blog")), Some(true));
        assert_eq!(label_of(Some("no-article")), Some(false));
        assert_eq!(label_of(Some("forum")), Some(false));
        assert_eq!(label_of(None), None);
        // Deterministic, and every split is used with about its share.
        let sites: Vec<String> = (0..2000).map(|i| format!("site{i}.example")).collect();
        let test = sites.iter().filter(|s| is_test_site(s)).count();
        let val = sites.iter().filter(|s| split_of(s) == Split::Validation).count();
        assert!((300..500).contains(&test), "{test}");
        assert!((200..400).contains(&val), "{val}");
        assert_eq!(split_of("bbc.co.uk"), split_of("bbc.co.uk"));
    }
}
