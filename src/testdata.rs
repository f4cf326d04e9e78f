//! Test support, compiled for the unit tests only: the one locator of the shared test data,
//! `../shared` beside the crate (`WEBCORPUS_SHARED` names another; `WEBCORPUS_DATA`, its
//! `data/` folder, is read too). A test whose data is missing is skipped with a loud line, and
//! fails instead when `CI` is set: CI never passes a check that did not run.

use std::path::{Path, PathBuf};

/// The shared folder: `WEBCORPUS_SHARED`, else the parent of `WEBCORPUS_DATA`, else
/// `../shared` beside the crate. Not checked.
pub(crate) fn shared_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(dir) = std::env::var_os("WEBCORPUS_SHARED") {
        return manifest.join(dir);
    }
    match std::env::var_os("WEBCORPUS_DATA") {
        Some(data) => manifest.join(data).join(".."),
        None => manifest.join("../shared"),
    }
}

/// `rel` (e.g. `sites/www.paraguayos.org`, `data/cleanportaleval`) under the shared folder,
/// or `None` after a loud line when it is missing.
///
/// # Panics
/// When it is missing and `CI` is set.
pub(crate) fn shared_path(rel: &str) -> Option<PathBuf> {
    let path = shared_root().join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "shared test data not found at {} (CI needs ../shared beside the repository)",
        path.display()
    );
    eprintln!("\n*** SKIPPED: shared test data not found at {} (set WEBCORPUS_SHARED) ***\n", path.display());
    None
}

/// The `index.html` pages over 20 KB of the shared site `host` (`sites/<host>/*/index.html`,
/// the article pages), in path order; `None` as [`shared_path`] when the site is missing.
pub(crate) fn site_articles(host: &str) -> Option<Vec<PathBuf>> {
    let root = shared_path(&format!("sites/{host}"))?;
    let mut pages: Vec<PathBuf> =
        std::fs::read_dir(&root).ok()?.flatten().map(|e| e.path().join("index.html")).collect();
    pages.retain(|p| p.is_file() && std::fs::metadata(p).is_ok_and(|m| m.len() > 20_000));
    pages.sort();
    Some(pages)
}

/// The first `per_host` [`site_articles`] of each shared site in `hosts`, host after host;
/// `None` as [`shared_path`] when one is missing.
pub(crate) fn articles_of(hosts: &[&str], per_host: usize) -> Option<Vec<PathBuf>> {
    let mut pages = Vec::new();
    for host in hosts {
        pages.extend(site_articles(host)?.into_iter().take(per_host));
    }
    Some(pages)
}
