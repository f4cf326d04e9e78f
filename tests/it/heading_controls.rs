//! Headings without their controls: MediaWiki puts an "[edit]" link in every section heading
//! (`<span class="mw-editsection">`) and Sphinx a "¶" permalink (`<a class="headerlink">`).
//! They are controls, not text (`webcorpus::html::segment::SKIPPED_CLASSES`): a heading of the
//! shared MediaWiki (`../shared/sites/awesomewm.org`) reads "Ensembles d’icônes", not
//! "Ensembles d’icônes[edit]", with every extractor that reads the page's text.

use crate::support;

use std::path::{Path, PathBuf};
use webcorpus::eval::dataset::Dataset;
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;
use webcorpus::html::{segment, Document};

/// The wiki's pages whose HTML has section-edit links.
fn wiki_pages_with_edit_links(shared: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![shared.join("sites/awesomewm.org/wiki")];
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                let html = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                if html.contains("class=\"mw-editsection\"") {
                    out.push((path, html));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn wiki_headings_have_no_edit_links() {
    let Some(shared) = support::shared_dir("wiki_headings_have_no_edit_links") else { return };
    let pages = wiki_pages_with_edit_links(&shared);
    assert!(pages.len() >= 20, "{} wiki pages with edit links", pages.len());
    let mut headings = 0;
    for (path, html) in &pages {
        let doc = Document::parse(html);
        let blocks = segment(&doc);
        for b in &blocks {
            assert!(!b.text.ends_with("edit]"), "{}: block {:?}", path.display(), b.text);
        }
        headings += blocks.iter().filter(|b| b.heading).count();
        // The same with every extractor that reads the DOM's text itself.
        for kind in [ExtractorKind::Default, ExtractorKind::Bte, ExtractorKind::StaDyNoT] {
            let page = extract_html(html, kind, None, &ExtractSettings::default()).unwrap();
            let edit = page.paragraphs.iter().find(|p| p.text.ends_with("edit]"));
            assert!(edit.is_none(), "{kind:?} {}: {:?}", path.display(), edit.map(|p| &p.text));
        }
    }
    assert!(headings >= pages.len(), "{headings} headings on {} pages", pages.len());

    // One page's headings, exactly: the heading text stays, its control goes.
    let (_, html) = pages.iter().find(|(p, _)| p.ends_with("Nice_Icons/fr/index.html")).expect("Nice_Icons/fr");
    let blocks = segment(&Document::parse(html));
    let texts: Vec<&str> = blocks.iter().filter(|b| b.heading).map(|b| b.text.as_str()).collect();
    assert!(texts.contains(&"Ensembles d’icônes"), "{texts:?}");
}

#[test]
fn sphinx_headings_have_no_permalinks() {
    let Some(shared) = support::shared_dir("sphinx_headings_have_no_permalinks") else { return };
    let set = Dataset::load(&shared.join("data/modern2026-dev")).unwrap();
    let docs: Vec<_> = set
        .pages
        .iter()
        .filter(|p| p.url.as_deref().is_some_and(|u| u.starts_with("https://docs.python.org/")))
        .collect();
    assert!(!docs.is_empty(), "docs.python.org pages in modern2026-dev");
    for page in docs {
        let html = set.read_html(page).unwrap();
        assert!(html.contains("class=\"headerlink\""), "{}: a Sphinx page", page.id);
        let blocks = segment(&Document::parse(&html));
        let headings: Vec<&str> = blocks.iter().filter(|b| b.heading).map(|b| b.text.as_str()).collect();
        assert!(!headings.is_empty(), "{}", page.id);
        for b in &blocks {
            assert!(!b.text.ends_with('¶'), "{}: block {:?}", page.id, b.text);
        }
    }
}
