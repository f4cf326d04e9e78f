//! The headline above the main text: on the CleanPortalEval pages (BBC News, WSJ blogs,
//! msnbc, Washington Post) the gold text begins with the article's headline, which the
//! templates set in a header box apart from the body, with bylines, sharing buttons and
//! "Article | Comments" tabs in between. The default extractor finds it
//! (`webcorpus::extract::headline`) and gives it the extraction's `headline` field, not the
//! main text; and not the blog's name heading that the `<title>` also repeats.

use crate::support;

use webcorpus::eval::dataset::Dataset;
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;
use webcorpus::model::ParagraphKind;

/// Lower-cased alphanumeric words.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

#[test]
fn the_default_keeps_the_headline_above_the_text() {
    let Some(shared) = support::shared_dir("the_default_keeps_the_headline_above_the_text") else { return };
    let set = Dataset::load(&shared.join("data/cleanportaleval")).unwrap();
    let (mut checked, mut as_field) = (0, 0);
    for page in &set.pages {
        let Some(gold) = page.text.as_deref() else { continue };
        let Some(headline) = gold.lines().next().filter(|l| words(l).len() >= 3) else { continue };
        let html = set.read_html(page).unwrap();
        let out = extract_html(&html, ExtractorKind::Default, None, &ExtractSettings::default()).unwrap();
        let title = words(out.title.as_deref().unwrap_or_default());
        if !words(headline).iter().all(|w| title.contains(w)) {
            continue;
        }
        checked += 1;
        if out.headline.as_deref().is_some_and(|h| words(h) == words(headline)) {
            assert!(!out.paragraphs.iter().any(|p| words(&p.text) == words(headline)), "{}: twice", page.id);
            as_field += 1;
            continue;
        }
        // Else before the first paragraph of running text (a date line may come first).
        let lead: Vec<_> = out
            .paragraphs
            .iter()
            .take_while(|p| p.kind == ParagraphKind::Heading || words(&p.text).len() < 10)
            .collect();
        assert!(
            lead.iter().any(|p| p.kind == ParagraphKind::Heading && words(&p.text) == words(headline)),
            "{}: {headline:?} not in the lead {lead:?}",
            page.id
        );
        assert!(
            !out.paragraphs.iter().any(|p| p.text == "Real Time Brussels")
                && out.headline.as_deref() != Some("Real Time Brussels"),
            "{}: the blog's name heading is not the headline",
            page.id
        );
    }
    assert!(checked >= 50, "{checked} pages whose gold begins with the title's headline");
    assert!(as_field * 10 >= checked * 9, "{as_field} of {checked} headlines in the headline field");
}
