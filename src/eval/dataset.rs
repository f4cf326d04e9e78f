//! Evaluation sets on disk: the principal type is [`Dataset`], one set of the shared data
//! (`../shared/data/<set>`, layout in its README): `gold.jsonl` with one [`GoldPage`] per line
//! and the page itself in `html/<id>.html.gz`. `webcorpus eval` ([`super::run`]) loads a set,
//! groups its pages by `site` for per-site learning and reads each page's HTML when it
//! extracts it ([`Dataset::read_html`]), so a set is never held in memory as HTML.

use crate::extract::files::{read_page, FileError};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Errors loading a set.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The data directory (or a named set in it) does not exist.
    #[error("evaluation data not found at {path}; set WEBCORPUS_DATA or [eval] data_dir")]
    NotFound {
        /// The directory looked for.
        path: PathBuf,
    },
    /// `gold.jsonl` could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line of `gold.jsonl` is not a gold page.
    #[error("{path}:{line}: {reason}")]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// serde_json's message.
        reason: String,
    },
    /// A page HTML file could not be read.
    #[error(transparent)]
    Page(#[from] FileError),
}

/// One annotated page of `gold.jsonl` (fields of the data README; set-specific extras are
/// ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct GoldPage {
    /// File stem: the page is `html/<id>.html.gz`.
    pub id: String,
    /// Page URL, if known.
    #[serde(default)]
    pub url: Option<String>,
    /// Registrable domain, the unit of per-site learning; `None` when unknown (such a page
    /// is a site of its own, see [`GoldPage::site_key`]).
    #[serde(default)]
    pub site: Option<String>,
    /// Page type (`article`, `forum`, ..., `no-article`), if annotated.
    #[serde(default, rename = "type")]
    pub page_type: Option<String>,
    /// Full gold main text; `None` when the set has only snippets.
    #[serde(default)]
    pub text: Option<String>,
    /// Snippets that must appear in the output.
    #[serde(default)]
    pub with: Vec<String>,
    /// Snippets that must not appear in the output.
    #[serde(default)]
    pub without: Vec<String>,
}

impl GoldPage {
    /// The site as the set names it: `site`, or `id:<id>` when unknown. The train/holdout split
    /// of the learned models ([`is_holdout_site`]) is by this key.
    pub fn site_key(&self) -> String {
        match self.site.as_deref() {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => format!("id:{}", self.id),
        }
    }

    /// The grouping key for per-site learning: the host of the page's URL (a site is a host, as
    /// in the crawl: `blogspot.com` and `google.com` are many sites; for a Wayback Machine URL
    /// `web.archive.org/web/<time>/<url>`, the archived URL's host), else [`GoldPage::site_key`].
    pub fn host_key(&self) -> String {
        let host = self.url.as_deref().and_then(|u| url::Url::parse(u).ok()).and_then(|u| {
            let archived = (u.host_str() == Some("web.archive.org"))
                .then(|| {
                    u.path().strip_prefix("/web/").and_then(|p| p.split_once('/')).map(|(_, rest)| rest.to_string())
                })
                .flatten()
                .and_then(|rest| url::Url::parse(&rest).ok());
            archived.as_ref().unwrap_or(&u).host_str().map(str::to_lowercase)
        });
        if let Some(host) = host {
            return host;
        }
        self.site_key()
    }

    /// True when the page has snippets to check.
    pub fn has_snippets(&self) -> bool {
        !self.with.is_empty() || !self.without.is_empty()
    }
}

/// The shared sets whose gold counts the headline as main text ([`Dataset::convention`]).
pub const HEADLINE_IN_GOLD: &[&str] = &["cleaneval", "cleanportaleval", "l3s-gn1"];
/// The shared sets whose gold counts the comments below an article as main text
/// ([`Dataset::convention`]): CleanEval's annotators kept blog and forum comments.
pub const COMMENTS_IN_GOLD: &[&str] = &["cleaneval"];

/// What a set's gold text counts as main text besides the article's body, so that `eval`
/// scores an extraction by the set's own convention (a record's `text` is the body alone; the
/// headline and the comments are fields of their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GoldConvention {
    /// The page's headline, scored before the text.
    pub headline: bool,
    /// The comments below the article (the `comments` field, [`ExtractSettings::comments`]),
    /// scored after the text.
    ///
    /// [`ExtractSettings::comments`]: crate::extract::pipeline::ExtractSettings::comments
    pub comments: bool,
}

/// One evaluation set: its name (the directory name), directory and pages in file order.
#[derive(Debug, Clone)]

pub struct Dataset {
    /// The set's name, e.g. `cleanportaleval`.
    pub name: String,
    /// The set's directory.
    pub dir: PathBuf,
    /// The pages, in `gold.jsonl` order.
    pub pages: Vec<GoldPage>,
}

impl Dataset {
    /// Load `<dir>/gold.jsonl` (pages only; HTML is read on demand).
    ///
    /// # Errors
    /// [`DatasetError::NotFound`] when `dir` is missing; [`DatasetError::Read`] /
    /// [`DatasetError::Json`] naming the file (and line) otherwise.
    pub fn load(dir: &Path) -> Result<Dataset, DatasetError> {
        if !dir.is_dir() {
            return Err(DatasetError::NotFound { path: dir.to_path_buf() });
        }
        let pages: Vec<GoldPage> = read_jsonl(&dir.join("gold.jsonl"))?;
        let name =
            dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string());
        Ok(Dataset { name, dir: dir.to_path_buf(), pages })
    }

    /// The set's gold convention. The headline counts for CleanEval, CleanPortalEval and
    /// L3S-GN1 (their annotators marked it as content), not for the others (modern2026's gold
    /// `main_content` and trafilatura's snippets leave it to the metadata); the comments below
    /// an article count for CleanEval only (L3S-GN1 labels them apart; CleanPortalEval's
    /// portals have none; modern2026's gold leaves them out of articles).
    pub fn convention(&self) -> GoldConvention {
        GoldConvention {
            headline: HEADLINE_IN_GOLD.contains(&self.name.as_str()),
            comments: COMMENTS_IN_GOLD.contains(&self.name.as_str()),
        }
    }

    /// Keep only the first `n` pages.
    pub fn truncate(&mut self, n: usize) {
        self.pages.truncate(n);
    }

    /// Keep only the pages of `split`.
    pub fn retain_split(&mut self, split: Split) {
        self.pages.retain(|p| split.keeps(p));
    }

    /// True when some page has full gold text (word, bag-of-words, shingle metrics apply).
    pub fn has_text(&self) -> bool {
        self.pages.iter().any(|p| p.text.is_some())
    }

    /// True when some page has snippets (snippet metrics apply).
    pub fn has_snippets(&self) -> bool {
        self.pages.iter().any(GoldPage::has_snippets)
    }

    /// Path of a page's HTML: `<dir>/html/<id>.html.gz`.
    pub fn html_path(&self, page: &GoldPage) -> PathBuf {
        self.dir.join("html").join(format!("{}.html.gz", page.id))
    }

    /// Read, gunzip, unwrap (CleanEval wrapper line) and decode one page's HTML.
    ///
    /// # Errors
    /// [`DatasetError::Page`] naming the file when it cannot be read.
    pub fn read_html(&self, page: &GoldPage) -> Result<String, DatasetError> {
        Ok(read_page(&self.html_path(page))?.decoded.text)
    }

    /// The pages at `indices` that read, each with its index, as a host's sample for
    /// learning ([`crate::domain::SamplePage`]: the page's URL, else its id, and its decoded
    /// HTML); a page that does not read is left out.
    pub fn sample_pages(&self, indices: &[usize]) -> Vec<(usize, crate::domain::SamplePage)> {
        indices
            .iter()
            .filter_map(|&i| {
                let p = &self.pages[i];
                let html = self.read_html(p).ok()?;
                Some((i, crate::domain::SamplePage { url: p.url.clone().unwrap_or_else(|| p.id.clone()), html }))
            })
            .collect()
    }

    /// Page indices grouped by [`GoldPage::host_key`] (the sites of per-site learning and of
    /// the per-site rows), groups in order of first appearance.
    pub fn sites(&self) -> Vec<(String, Vec<usize>)> {
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (i, p) in self.pages.iter().enumerate() {
            let key = p.host_key();
            match index.get(&key) {
                Some(&g) => groups[g].1.push(i),
                None => {
                    index.insert(key.clone(), groups.len());
                    groups.push((key, vec![i]));
                }
            }
        }
        groups
    }
}

/// True for a site on the held-out side of the learned models' deterministic split:
/// `xxh3_64(site) % 5 == 0` (about a fifth of the sites). BoilerNet validates on these sites
/// and trains on the others; `webcorpus eval --split holdout` scores every extractor on exactly
/// these pages. `site` is [`GoldPage::site_key`], so all pages of a site are on one side.
pub fn is_holdout_site(site: &str) -> bool {
    site_fold(site) == 0
}

/// Number of site folds of the learned models' cross-validation ([`site_fold`]).
pub const SITE_FOLDS: usize = 5;

/// The site fold of `site` ([`GoldPage::site_key`]): `xxh3_64(site) % SITE_FOLDS`. Fold 0 is
/// the held-out side of [`is_holdout_site`]; a model trained without fold `k` judges exactly
/// the pages of fold `k` in a site-grouped cross-validation (`webcorpus eval --combiner-cv`).
pub fn site_fold(site: &str) -> usize {
    (xxhash_rust::xxh3::xxh3_64(site.as_bytes()) % SITE_FOLDS as u64) as usize
}

/// Which pages of a set to evaluate, by [`is_holdout_site`] of their site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Split {
    /// Every page.
    #[default]
    All,
    /// Pages of the training sites.
    Train,
    /// Pages of the held-out sites.
    Holdout,
}

impl Split {
    /// True when `page` belongs to this split.
    pub fn keeps(self, page: &GoldPage) -> bool {
        match self {
            Split::All => true,
            Split::Train => !is_holdout_site(&page.site_key()),
            Split::Holdout => is_holdout_site(&page.site_key()),
        }
    }
}

impl std::str::FromStr for Split {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(Split::All),
            "train" => Ok(Split::Train),
            "holdout" => Ok(Split::Holdout),
            _ => Err(format!("unknown split `{s}`; known: all, train, holdout")),
        }
    }
}

/// Read a JSON Lines file (blank lines skipped) into values of `T`.
///
/// # Errors
/// [`DatasetError::Read`] naming the file, [`DatasetError::Json`] naming the file and the
/// 1-based line.
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, DatasetError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| DatasetError::Read { path: path.to_path_buf(), source })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| DatasetError::Json {
                path: path.to_path_buf(),
                line: i + 1,
                reason: e.to_string(),
            })
        })
        .collect()
}

/// The set directories named by `specs`: a spec that is an existing directory is taken as it
/// is; otherwise it names a set under `data_dir` (`cleanportaleval` → `<data_dir>/cleanportaleval`).
/// With no specs: every directory under `data_dir` that holds a `gold.jsonl`, sorted by name.
///
/// # Errors
/// [`DatasetError::NotFound`] when `data_dir` (with no specs) or a named set is missing.
pub fn resolve_sets(data_dir: &Path, specs: &[PathBuf]) -> Result<Vec<PathBuf>, DatasetError> {
    if specs.is_empty() {
        let entries =
            std::fs::read_dir(data_dir).map_err(|_| DatasetError::NotFound { path: data_dir.to_path_buf() })?;
        let mut dirs: Vec<PathBuf> =
            entries.flatten().map(|e| e.path()).filter(|p| p.join("gold.jsonl").is_file()).collect();
        dirs.sort();
        if dirs.is_empty() {
            return Err(DatasetError::NotFound { path: data_dir.to_path_buf() });
        }
        return Ok(dirs);
    }
    specs
        .iter()
        .map(|s| {
            if s.is_dir() {
                Ok(s.clone())
            } else if data_dir.join(s).is_dir() {
                Ok(data_dir.join(s))
            } else {
                Err(DatasetError::NotFound { path: s.clone() })
            }
        })
        .collect()
}

/// Test support: the shared evaluation set `name` under `WEBCORPUS_DATA` (default
/// `../shared/data` beside the crate), or `None` after a loud message, so that only the tests
/// that need the data are skipped when it is missing.
#[cfg(test)]
pub(crate) fn test_set(name: &str) -> Option<Dataset> {
    let dir = crate::testdata::shared_path(&format!("data/{name}"))?;
    Some(Dataset::load(&dir).expect("the evaluation set loads"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_dir() -> PathBuf {
        crate::testdata::shared_root().join("data")
    }

    #[test]
    fn a_missing_set_says_where_it_looked_and_how_to_configure() {
        let err = Dataset::load(Path::new("/nonexistent/data/set")).unwrap_err().to_string();
        assert!(err.contains("/nonexistent/data/set") && err.contains("WEBCORPUS_DATA"), "{err}");
        let err = resolve_sets(Path::new("/nonexistent/data"), &[]).unwrap_err().to_string();
        assert!(err.contains("/nonexistent/data"), "{err}");
    }

    #[test]
    fn a_bad_gold_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("gold.jsonl"), "{\"id\": \"a\", \"text\": null}\n\n{\"id\": 3}\n").unwrap();
        let err = Dataset::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("gold.jsonl:3"), "{err}");
        std::fs::write(dir.path().join("gold.jsonl"), "{\"id\": \"a\", \"site\": null, \"with\": [\"x\"]}\n").unwrap();
        let set = Dataset::load(dir.path()).unwrap();
        assert_eq!(set.pages[0].site_key(), "id:a");
        assert!(set.has_snippets() && !set.has_text());
        let err = set.read_html(&set.pages[0]).unwrap_err().to_string();
        assert!(err.contains("a.html.gz"), "{err}");
    }

    #[test]
    fn cleanportaleval_loads_with_four_sites() {
        let Some(dir) = crate::testdata::shared_path("data/cleanportaleval") else { return };
        let set = Dataset::load(&dir).unwrap();
        assert_eq!(set.name, "cleanportaleval");
        assert_eq!(set.pages.len(), 71);
        assert!(set.has_text() && !set.has_snippets());
        // Four sites as the set names them; five hosts (three washingtonpost.com pages come
        // from a second host), which is how per-site learning groups them.
        let named: std::collections::HashSet<String> = set.pages.iter().map(GoldPage::site_key).collect();
        assert_eq!(named.len(), 4);
        let sites = set.sites();
        assert_eq!(sites.len(), 5, "{:?}", sites.iter().map(|(s, p)| (s, p.len())).collect::<Vec<_>>());
        assert_eq!(sites.iter().map(|(_, p)| p.len()).sum::<usize>(), 71);
        let html = set.read_html(&set.pages[0]).unwrap();
        assert!(!html.starts_with("<text id="), "wrapper not stripped");
        assert!(html.len() > 1000);
        let all = resolve_sets(&data_dir(), &[]).unwrap();
        assert!(all.contains(&dir));
        assert_eq!(resolve_sets(&data_dir(), &[PathBuf::from("cleanportaleval")]).unwrap(), vec![dir]);
    }
}
