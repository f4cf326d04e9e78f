//! Canonically equivalent text is one text: decoding puts every page in Unicode Normalization
//! Form C, so the corpus, the stoplists and Onion's shingles do not depend on whether a page
//! wrote `য়` (U+09DF) or `য` + `়`, `é` or `e` + U+0301. Uses a Bengali news page of
//! trafilatura's evaluation set, whose HTML mixes both spellings while its gold is in NFC.

use crate::support;

use icu_normalizer::DecomposingNormalizerBorrowed;
use webcorpus::eval::dataset::Dataset;
use webcorpus::extract::files::read_bytes;
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;
use webcorpus::html::decode_html;

const PAGE: &str = "ukbdnews.com.23646";

/// The page's raw bytes and its gold `with` snippets (whitespace collapsed).
fn page_and_snippets(shared: &std::path::Path) -> (Vec<u8>, Vec<String>) {
    let set = Dataset::load(&shared.join("data/trafilatura-eval")).unwrap();
    let page = set.pages.iter().find(|p| p.id == PAGE).expect("the page's gold");
    let bytes = read_bytes(&set.html_path(page)).unwrap();
    let snippets = page.with.iter().map(|s| s.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    (bytes, snippets)
}

fn extracted_text(bytes: &[u8]) -> String {
    let html = decode_html(bytes, Some("text/html; charset=utf-8")).text;
    let page = extract_html(&html, ExtractorKind::Default, None, &ExtractSettings::default()).unwrap();
    page.paragraphs.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n")
}

#[test]
fn every_spelling_of_a_page_gives_the_same_nfc_text() {
    let Some(shared) = support::shared_dir("every_spelling_of_a_page_gives_the_same_nfc_text") else { return };
    let (bytes, snippets) = page_and_snippets(&shared);
    let raw = String::from_utf8(bytes.clone()).unwrap();
    assert!(raw.contains('\u{9df}'), "the page writes the precomposed YYA that NFC decomposes");

    let text = extracted_text(&bytes);
    let words: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for snippet in snippets {
        assert!(words.contains(&snippet), "gold snippet {snippet:?} not in the extracted text");
    }

    // The same page written fully decomposed (NFD) gives the same paragraphs, so Onion's
    // shingles of the two are the same and one is a duplicate of the other.
    let nfd = DecomposingNormalizerBorrowed::new_nfd().normalize(&raw).into_owned();
    assert_ne!(nfd, raw);
    let text_nfd = extracted_text(nfd.as_bytes());
    assert_eq!(text_nfd, text);
    assert_eq!(
        webcorpus::dedup::shingle::shingle_hashes(&text_nfd, 5),
        webcorpus::dedup::shingle::shingle_hashes(&text, 5)
    );
}
