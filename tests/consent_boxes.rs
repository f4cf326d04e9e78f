//! Cookie-consent boxes are never main text (`content_root::ContentRoot::in_consent`), while
//! a manual's section about cookies is. Real pages of `../shared/data`: a WordPress news page
//! whose "GDPR Cookie Consent" dialog is longer than its article, a shop page whose consent
//! box has `div` buttons (`cookieCloseBtn`), and Flask's quickstart with its
//! `<section id="cookies">`.

mod support;

use std::path::Path;
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;
use webcorpus::html::decode_html;

fn page_html(shared: &Path, set: &str, id: &str) -> String {
    let gz = std::fs::read(shared.join(format!("data/{set}/html/{id}.html.gz"))).unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut bytes).unwrap();
    decode_html(&bytes, None).text
}

fn paragraphs(html: &str, kind: ExtractorKind) -> Vec<String> {
    let page = extract_html(html, kind, None, &ExtractSettings::default()).unwrap();
    page.paragraphs.into_iter().map(|p| p.text).collect()
}

fn gold(shared: &Path, set: &str, id: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(shared.join(format!("data/{set}/gold.jsonl"))).unwrap();
    text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).find(|g| g["id"] == id).unwrap()
}

fn mentions_cookies(paragraph: &str) -> bool {
    paragraph.to_lowercase().contains("cookie")
}

#[test]
fn consent_boxes_go_and_a_section_about_cookies_stays() {
    let Some(shared) = support::shared_dir("consent_boxes_go_and_a_section_about_cookies_stays") else { return };

    // The consent dialog (role=dialog, checkboxes, 23 paragraphs about cookies) goes; the
    // article stays, for the default and for the rules.
    let id = "islamische-zeitung.de-Bundesprasident";
    let html = page_html(&shared, "trafilatura-eval", id);
    for kind in [ExtractorKind::Default, ExtractorKind::Rules] {
        let kept = paragraphs(&html, kind);
        let consent: Vec<&String> = kept.iter().filter(|p| mentions_cookies(p)).collect();
        assert!(consent.is_empty(), "{kind:?} kept consent text: {consent:?}");
        let text = kept.join(" ");
        for snippet in gold(&shared, "trafilatura-eval", id)["with"].as_array().unwrap() {
            assert!(text.contains(snippet.as_str().unwrap()), "{kind:?} lost the article: {snippet}");
        }
    }

    // A consent box whose buttons are `div`s with `Btn` classes.
    let kept = paragraphs(&page_html(&shared, "modern2026-dev", "0715"), ExtractorKind::Default);
    assert!(kept.len() > 10, "the page keeps its text: {} paragraphs", kept.len());
    assert!(!kept.iter().any(|p| mentions_cookies(p)), "consent text kept");

    // Flask's quickstart: `<section id="cookies">` holds no control, so it is the manual's text.
    let kept = paragraphs(&page_html(&shared, "modern2026-dev", "0662"), ExtractorKind::Default);
    let about_cookies = kept.iter().filter(|p| mentions_cookies(p)).count();
    assert!(about_cookies >= 4, "the section about cookies: {about_cookies} paragraphs");
    assert!(kept.iter().any(|p| p.starts_with("To access cookies you can use the cookies attribute")));
}
