//! Cookie-consent boxes are never main text (`content_root::ContentRoot::in_consent`), while
//! a manual's section about cookies is. Real pages of `../shared/data`: a WordPress news page
//! whose "GDPR Cookie Consent" dialog is longer than its article, a shop page whose consent
//! box has `div` buttons (`cookieCloseBtn`), Flask's quickstart with its
//! `<section id="cookies">`, a consent dialog whose cookie table has neither, and a recipe
//! listing whose OneTrust preference centre holds four times the listing's words.

use crate::support;

use std::path::Path;
use webcorpus::eval::dataset::{Dataset, GoldPage};
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;

/// Page `id` of a shared set: its decoded HTML (`Dataset::read_html`) and its gold.
fn page(shared: &Path, set: &str, id: &str) -> (String, GoldPage) {
    let set = Dataset::load(&shared.join("data").join(set)).unwrap();
    let page = set.pages.iter().find(|p| p.id == id).expect("the page's gold").clone();
    (set.read_html(&page).unwrap(), page)
}

fn paragraphs(html: &str, kind: ExtractorKind) -> Vec<String> {
    let page = extract_html(html, kind, None, &ExtractSettings::default()).unwrap();
    page.paragraphs.into_iter().map(|p| p.text).collect()
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
    let (html, gold) = page(&shared, "trafilatura-eval", id);
    for kind in [ExtractorKind::Default, ExtractorKind::Rules] {
        let kept = paragraphs(&html, kind);
        let consent: Vec<&String> = kept.iter().filter(|p| mentions_cookies(p)).collect();
        assert!(consent.is_empty(), "{kind:?} kept consent text: {consent:?}");
        let text = kept.join(" ");
        for snippet in &gold.with {
            assert!(text.contains(snippet.as_str()), "{kind:?} lost the article: {snippet}");
        }
    }

    // A consent box whose buttons are `div`s with `Btn` classes.
    let kept = paragraphs(&page(&shared, "modern2026-dev", "0715").0, ExtractorKind::Default);
    assert!(kept.len() > 10, "the page keeps its text: {} paragraphs", kept.len());
    assert!(!kept.iter().any(|p| mentions_cookies(p)), "consent text kept");

    // Flask's quickstart: `<section id="cookies">` holds a heading and no control, so it is
    // the manual's text although its id is a boilerplate word (`COOKIE_WORDS`), for the
    // default and for the rules.
    let html = page(&shared, "modern2026-dev", "0662").0;
    for kind in [ExtractorKind::Default, ExtractorKind::Rules] {
        let kept = paragraphs(&html, kind);
        for start in [
            "To access cookies you can use the cookies attribute",
            "Note that cookies are set on response objects",
            "A note on cookie-based sessions",
        ] {
            assert!(kept.iter().any(|p| p.starts_with(start)), "{kind:?} lost {start:?}");
        }
    }

    // A consent banner's cookie table: its rows (`coi-consent-banner__cookie-details`) hold
    // no control and no heading, so they stay boilerplate. The banner is a dialog
    // (`role="dialog"`), which never wraps the page: it goes whole, although its table
    // outweighs the article, for the default and for the rules.
    let html = page(&shared, "trafilatura-eval", "orsted.de.gruener-Wasserstoff").0;
    for kind in [ExtractorKind::Default, ExtractorKind::Rules] {
        let kept = paragraphs(&html, kind);
        assert!(kept.len() > 5, "{kind:?}: the article stays: {} paragraphs", kept.len());
        let table: Vec<&String> = kept.iter().filter(|p| p.starts_with("Zweck:")).collect();
        assert!(table.is_empty(), "{kind:?}: the cookie table was kept: {table:?}");
        let consent: Vec<&String> = kept.iter().filter(|p| mentions_cookies(p)).collect();
        assert!(consent.is_empty(), "{kind:?} kept the banner: {consent:?}");
    }

    // OneTrust's banner and preference centre (`#onetrust-consent-sdk`, a consent manager's
    // name, `CONSENT_MANAGERS`): its purposes and vendors ("Measure advertising performance 92
    // partners can use this purpose") hold four times the listing's words and no word
    // "cookie", and its `#ot-pc-content` is named like a content element. Neither the
    // default nor the rules keep any of it, not even when nothing else on the page is voted
    // main text (rule 6's marked-content fallback); the default keeps the recipe listing.
    let html = page(&shared, "modern2026-dev", "2974").0;
    for kind in [ExtractorKind::Default, ExtractorKind::Rules] {
        let kept = paragraphs(&html, kind);
        let consent: Vec<&String> =
            kept.iter().filter(|p| mentions_cookies(p) || p.contains("can use this purpose")).collect();
        assert!(consent.is_empty(), "{kind:?} kept the consent manager's text: {consent:?}");
    }
    let kept = paragraphs(&html, ExtractorKind::Default);
    for title in ["Easy Slow-Cooker Pork Ragù", "Spaghetti and Meatballs", "Butter Chicken Recipe"] {
        assert!(kept.iter().any(|p| p == title), "the default lost the listing's {title:?}: {kept:?}");
    }
}
