//! External tools as evaluation rows (`webcorpus eval --reference NAME=DIR`): the principal
//! type is [`Reference`], a directory of another tool's precomputed outputs (trafilatura,
//! jusText, readability-lxml, ... run by `scripts/reference-tools.sh`), and
//! [`evaluate_reference`] scores them with exactly the metrics of the built-in extractors
//! ([`super::run::score_page`]), as one more [`RowReport`] of a set's table.
//!
//! Layout of `DIR`:
//!
//! ```text
//! DIR/<set>/<id>.txt      the tool's plain text for page <id> (UTF-8, paragraphs separated by
//!                         newlines); a missing file = no output, a discard ("no output file")
//! DIR/<set>/timing.json   optional: {"seconds": summed one-thread extraction time, "pages": n,
//!                         "page_seconds": {"<id>": s, ...} (optional)}; without it the row's
//!                         pages/s and MB/s are blank
//! DIR/meta.json           optional: {"tool", "version", "settings"}, copied into the JSON report
//! ```

use crate::eval::dataset::Dataset;
use crate::eval::report::RowReport;
pub use crate::eval::row::{ReferenceInfo, ToolMeta};
use crate::eval::run::{par_map, scored_page, EvalOptions};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Errors of a `--reference` directory. A missing or unreadable page file is not one of them:
/// that page is a discard.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    /// The `--reference` argument is not `NAME=DIR`.
    #[error("--reference `{spec}`: expected NAME=DIR (e.g. trafilatura=target/reference/trafilatura)")]
    Spec {
        /// The argument.
        spec: String,
    },
    /// `DIR` or `DIR/<set>` does not exist.
    #[error("reference outputs not found at {path}; run scripts/reference-tools.sh to make them")]
    NotFound {
        /// The directory looked for.
        path: PathBuf,
    },
    /// `timing.json` or `meta.json` could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `timing.json` or `meta.json` is not what the layout says.
    #[error("{path}: {reason}")]
    Json {
        /// The file.
        path: PathBuf,
        /// serde_json's message.
        reason: String,
    },
}

/// One `--reference NAME=DIR`: a row label and the directory of the tool's outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// Row label.
    pub name: String,
    /// The directory (layout in the module doc).
    pub dir: PathBuf,
}

impl std::str::FromStr for Reference {
    type Err = ReferenceError;

    /// `NAME=DIR`, split at the first `=`; both sides non-empty.
    fn from_str(spec: &str) -> Result<Reference, ReferenceError> {
        match spec.split_once('=') {
            Some((name, dir)) if !name.trim().is_empty() && !dir.is_empty() => {
                Ok(Reference { name: name.trim().to_string(), dir: PathBuf::from(dir) })
            }
            _ => Err(ReferenceError::Spec { spec: spec.to_string() }),
        }
    }
}

/// `DIR/<set>/timing.json`: one-thread extraction time of the tool on the set.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Timing {
    /// Summed extraction seconds over `pages` pages.
    pub seconds: f64,
    /// Pages timed.
    pub pages: usize,
    /// Seconds per page id, when the tool recorded them (per-site rows then get their own
    /// throughput; otherwise every page counts `seconds / pages`).
    #[serde(default)]
    pub page_seconds: HashMap<String, f64>,
}

impl Timing {
    /// Seconds of page `id`: its own time, else the mean; `None` when nothing was timed.
    pub fn secs(&self, id: &str) -> Option<f64> {
        if let Some(&s) = self.page_seconds.get(id) {
            return Some(s);
        }
        (self.pages > 0).then(|| self.seconds / self.pages as f64)
    }
}

/// Read an optional JSON file: `Ok(None)` when it does not exist.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, ReferenceError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ReferenceError::Read { path: path.to_path_buf(), source }),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ReferenceError::Json { path: path.to_path_buf(), reason: e.to_string() })
}

impl Reference {
    /// `DIR/meta.json`, if present.
    ///
    /// # Errors
    /// [`ReferenceError::Read`] / [`ReferenceError::Json`] naming the file.
    pub fn meta(&self) -> Result<Option<ToolMeta>, ReferenceError> {
        read_json(&self.dir.join("meta.json"))
    }

    /// `DIR/<set>/timing.json`, if present.
    ///
    /// # Errors
    /// [`ReferenceError::Read`] / [`ReferenceError::Json`] naming the file.
    pub fn timing(&self, set: &str) -> Result<Option<Timing>, ReferenceError> {
        read_json(&self.dir.join(set).join("timing.json"))
    }

    /// The tool's text for page `id` of `set`: `Ok(None)` when the file does not exist;
    /// invalid UTF-8 is replaced (U+FFFD).
    ///
    /// # Errors
    /// [`ReferenceError::Read`] when the file exists but cannot be read.
    pub fn output(&self, set: &str, id: &str) -> Result<Option<String>, ReferenceError> {
        let path = self.dir.join(set).join(format!("{id}.txt"));
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(ReferenceError::Read { path, source }),
        }
    }
}

/// Score `reference`'s outputs on `set` (its first `opts.limit` pages, as
/// [`super::run::evaluate_set`] does) into one row. A page without a file is a discard ("no
/// output file"), an unreadable one a discard with the I/O error; both score as empty output.
/// With a `timing.json`, each page's HTML is read and decoded (as for the built-in rows) only
/// to count its bytes for MB/s.
///
/// # Errors
/// [`ReferenceError::NotFound`] when `DIR/<set>` does not exist (the tool was not run on the
/// set: a row of zeros would mislead); a bad `timing.json` / `meta.json`.
pub fn evaluate_reference(
    set: &Dataset,
    reference: &Reference,
    opts: &EvalOptions,
) -> Result<RowReport, ReferenceError> {
    let set_dir = reference.dir.join(&set.name);
    if !set_dir.is_dir() {
        return Err(ReferenceError::NotFound { path: set_dir });
    }
    let meta = reference.meta()?;
    let timing = reference.timing(&set.name)?;
    let n = opts.limit.map_or(set.pages.len(), |l| l.min(set.pages.len()));
    let pages = par_map(n, opts.threads, |i| {
        let page = &set.pages[i];
        let (output, error) = match reference.output(&set.name, &page.id) {
            Ok(Some(text)) => (text, None),
            Ok(None) => (String::new(), Some("no output file".to_string())),
            Err(e) => (String::new(), Some(e.to_string())),
        };
        let secs = timing.as_ref().and_then(|t| t.secs(&page.id));
        let html_bytes = if timing.is_some() { set.read_html(page).map_or(0, |h| h.len()) } else { 0 };
        scored_page(page, &output, error, false, secs, html_bytes)
    });
    let info =
        ReferenceInfo { name: reference.name.clone(), dir: reference.dir.clone(), meta, timed: timing.is_some() };
    Ok(RowReport::external(info, pages, opts.learn.min_sample))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::dataset::test_set;

    #[test]
    fn specs_parse_or_say_what_is_expected() {
        let r: Reference = "trafilatura 2.3.1=target/reference/trafilatura".parse().unwrap();
        assert_eq!(r.name, "trafilatura 2.3.1");
        assert_eq!(r.dir, PathBuf::from("target/reference/trafilatura"));
        let r: Reference = "x=a=b".parse().unwrap();
        assert_eq!(r.dir, PathBuf::from("a=b"));
        for bad in ["trafilatura", "=dir", "name="] {
            let err = bad.parse::<Reference>().unwrap_err().to_string();
            assert!(err.contains("NAME=DIR") && err.contains(bad), "{err}");
        }
    }

    /// The gold text itself as a tool's output scores (almost) perfectly, an empty output
    /// scores zero, missing files are discards, and timings give throughput only when present.
    #[test]
    fn gold_as_reference_is_perfect_and_empty_is_zero() {
        let Some(mut set) = test_set("cleanportaleval") else { return };
        set.truncate(6);
        let tmp = tempfile::tempdir().unwrap();
        let gold = Reference { name: "gold".into(), dir: tmp.path().join("gold") };
        let empty = Reference { name: "empty".into(), dir: tmp.path().join("empty") };
        let missing = Reference { name: "missing".into(), dir: tmp.path().join("missing") };
        for r in [&gold, &empty, &missing] {
            std::fs::create_dir_all(r.dir.join(&set.name)).unwrap();
        }
        for page in &set.pages {
            let text = page.text.as_deref().expect("cleanportaleval has gold text");
            std::fs::write(gold.dir.join(&set.name).join(format!("{}.txt", page.id)), text).unwrap();
            std::fs::write(empty.dir.join(&set.name).join(format!("{}.txt", page.id)), "").unwrap();
        }
        std::fs::write(gold.dir.join(&set.name).join("timing.json"), r#"{"seconds": 3.0, "pages": 6}"#).unwrap();
        std::fs::write(gold.dir.join("meta.json"), r#"{"tool": "gold", "version": "1"}"#).unwrap();
        let opts = EvalOptions::new(Vec::new());

        let row = evaluate_reference(&set, &gold, &opts).unwrap();
        let s = &row.summary.scores;
        assert_eq!(row.label, "gold");
        assert!(row.variant.is_none());
        let info = row.reference.as_ref().unwrap();
        assert_eq!(info.meta.as_ref().and_then(|m| m.version.as_deref()), Some("1"));
        assert!(s.word_f1 > 0.99 && s.shingle_f1 > 0.99 && s.bow_f1 > 0.99, "{s:?}");
        assert_eq!(row.summary.discards, 0);
        assert_eq!(s.pages_per_s.map(|p| (p * 1e9).round() / 1e9), Some(2.0));
        assert!(s.mb_per_s.is_some_and(|mb| mb > 0.0));

        let row = evaluate_reference(&set, &empty, &opts).unwrap();
        let s = &row.summary.scores;
        assert_eq!((s.word_f1, s.shingle_f1, s.gold_chars_kept), (0.0, 0.0, 0.0));
        assert_eq!(row.summary.discards, 0);
        assert_eq!((s.pages_per_s, s.mb_per_s), (None, None));

        let row = evaluate_reference(&set, &missing, &opts).unwrap();
        assert_eq!(row.summary.discards, 6);
        assert_eq!(row.pages[0].error.as_deref(), Some("no output file"));
        assert_eq!(row.summary.scores.word_f1, 0.0);
        let table = crate::eval::report::SetReport::new(&set, 0, 0.0, vec![row]).render(false);
        assert!(table.lines().nth(4).is_some_and(|l| l.starts_with("| missing | 6 |") && l.ends_with("| 6 |  |  |")));

        // A set the tool was not run on is an error, not a row of zeros; so is a bad timing file.
        let err = evaluate_reference(&set, &Reference { name: "x".into(), dir: tmp.path().into() }, &opts)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cleanportaleval") && err.contains("reference-tools.sh"), "{err}");
        std::fs::write(empty.dir.join(&set.name).join("timing.json"), r#"{"seconds": "x"}"#).unwrap();
        let err = evaluate_reference(&set, &empty, &opts).unwrap_err().to_string();
        assert!(err.contains("timing.json"), "{err}");
    }
}
