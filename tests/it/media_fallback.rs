//! The fallback content of `<video>` and `<audio>` ("Your browser does not support the video
//! tag.") is shown only by a browser without media elements, so it is not text of the page
//! (`webcorpus::html::segment::SKIPPED_TAGS`). Checked on every page of the shared sets
//! modern2026-dev and trafilatura-eval that has such fallback text: no block holds it, with
//! every extractor that reads the DOM's text.

use crate::support;

use scraper::Selector;
use webcorpus::eval::dataset::Dataset;
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;
use webcorpus::html::{segment, Document};

/// The text runs of at least three words inside the page's `<video>` and `<audio>` elements.
fn fallback_texts(doc: &Document) -> Vec<String> {
    let media = Selector::parse("video, audio").expect("selector");
    let mut out = Vec::new();
    for el in doc.html.select(&media) {
        for text in el.text() {
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if text.split(' ').count() >= 3 && !text.contains(['<', '{']) {
                out.push(text);
            }
        }
    }
    out
}

#[test]
fn media_fallback_text_is_not_page_text() {
    let Some(shared) = support::shared_dir("media_fallback_text_is_not_page_text") else { return };
    let mut pages = 0;
    for name in ["modern2026-dev", "trafilatura-eval"] {
        let set = Dataset::load(&shared.join("data").join(name)).expect("set loads");
        for page in &set.pages {
            let Ok(html) = set.read_html(page) else { continue };
            if !html.contains("<video") && !html.contains("<audio") {
                continue;
            }
            let doc = Document::parse(&html);
            let fallback = fallback_texts(&doc);
            if fallback.is_empty() {
                continue;
            }
            pages += 1;
            for block in segment(&doc) {
                for text in &fallback {
                    assert!(!block.text.contains(text.as_str()), "{name} {}: block {:?}", page.id, block.text);
                }
            }
            for kind in [ExtractorKind::Default, ExtractorKind::Bte, ExtractorKind::StaDyNoT] {
                let out = extract_html(&html, kind, None, &ExtractSettings::default()).expect("extracts");
                let leaked = out.paragraphs.iter().find(|p| fallback.iter().any(|t| p.text.contains(t.as_str())));
                assert!(leaked.is_none(), "{kind:?} {name} {}: {:?}", page.id, leaked.map(|p| &p.text));
            }
        }
    }
    assert!(pages >= 5, "{pages} pages with media fallback text");
}
