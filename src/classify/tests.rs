//! Tests of the page classifier's cue counting on real pages of the shared sets (skipped
//! loudly when the data is missing); its training tests are in `crate::train`.

use crate::eval::dataset::test_set as set;

/// The counters of the classifier's word lists as they were before the one-pass automata
/// ([`super::phrases`]): one `match_indices` scan of the text per phrase. The reference that
/// [`one_pass_counts_equal_the_per_phrase_scans_on_real_pages`] holds the new ones to.
mod reference {
    use crate::classify::cues::{CURRENCIES, MONTHS};
    use crate::classify::legal::LEGAL_TERMS;

    /// Whole-word matches of `phrases` in `lower` (already lower-case).
    pub fn count_phrases(lower: &str, phrases: &[&str]) -> usize {
        let mut hits = 0;
        for phrase in phrases {
            for (pos, _) in lower.match_indices(phrase) {
                let before = lower[..pos].chars().next_back();
                let after = lower[pos + phrase.len()..].chars().next();
                if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
                    hits += 1;
                }
            }
        }
        hits
    }

    /// Prices in `lower`.
    pub fn count_prices(lower: &str) -> usize {
        let mut hits = 0;
        for cur in CURRENCIES {
            let alpha = cur.chars().all(char::is_alphabetic);
            for (pos, _) in lower.match_indices(cur) {
                let before_text = &lower[..pos];
                let after_text = &lower[pos + cur.len()..];
                if alpha
                    && (before_text.chars().next_back().is_some_and(char::is_alphabetic)
                        || after_text.chars().next().is_some_and(char::is_alphabetic))
                {
                    continue;
                }
                let mut before = before_text.chars().rev().peekable();
                if before.peek().is_some_and(|c| c.is_whitespace()) {
                    before.next();
                }
                let mut after = after_text.chars().peekable();
                if after.peek().is_some_and(|c| c.is_whitespace()) {
                    after.next();
                }
                if before.next().is_some_and(|c| c.is_ascii_digit()) || after.next().is_some_and(|c| c.is_ascii_digit())
                {
                    hits += 1;
                }
            }
        }
        hits
    }

    fn is_day_or_year(word: &str) -> bool {
        let digits = word.trim_end_matches(['.', ',', 'º']).trim_end_matches(|c: char| c.is_alphabetic());
        !digits.is_empty()
            && digits.chars().all(|c| c.is_ascii_digit())
            && digits.parse::<u32>().is_ok_and(|n| (1..=31).contains(&n) || (1990..2040).contains(&n))
    }

    fn is_numeric_date(word: &str) -> bool {
        let word = word.trim_matches(|c: char| !c.is_ascii_digit());
        for sep in ['.', '/', '-'] {
            let parts: Vec<&str> = word.split(sep).collect();
            if parts.len() == 3
                && parts.iter().all(|p| !p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()))
                && parts.iter().filter(|p| p.len() == 4).count() == 1
                && (parts[0].len() == 4 || parts[2].len() == 4)
            {
                return true;
            }
        }
        false
    }

    /// Dates in `lower`.
    pub fn count_dates(lower: &str) -> usize {
        let words: Vec<&str> = lower.split_whitespace().collect();
        let mut hits = 0;
        for (i, w) in words.iter().enumerate() {
            if is_numeric_date(w) {
                hits += 1;
                continue;
            }
            let bare = w.trim_matches(|c: char| !c.is_alphabetic());
            if bare.is_empty() || !MONTHS.contains(&bare) {
                continue;
            }
            let near = |j: Option<usize>| j.and_then(|j| words.get(j)).is_some_and(|n| is_day_or_year(n));
            let skip = |j: usize| words.get(j).is_some_and(|n| matches!(*n, "de" | "of" | "the"));
            let prev = if i >= 2 && skip(i - 1) { Some(i - 2) } else { i.checked_sub(1) };
            if near(prev) || near(Some(i + 1)) {
                hits += 1;
            }
        }
        hits
    }

    /// Matches of the legal terms at word starts in `text` (case-insensitive).
    pub fn count_legal_terms(text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        let mut terms: Vec<&str> = LEGAL_TERMS.iter().flat_map(|l| l.terms.iter().copied()).collect();
        terms.sort_unstable();
        terms.dedup();
        let lower = text.to_lowercase();
        let mut hits = 0;
        for term in terms {
            for (pos, _) in lower.match_indices(term) {
                if !lower[..pos].chars().next_back().is_some_and(char::is_alphanumeric) {
                    hits += 1;
                }
            }
        }
        hits
    }
}

/// The one-pass counters of the page and title cues, prices, dates and legal terms give the
/// counts of the per-phrase scans they replaced ([`reference`]) on every page of
/// modern2026-dev: on the text the classifier reads (the lower-cased blocks, the title, each
/// block for the legal terms) and, a harder text with many more and overlapping matches, on
/// the whole lower-cased HTML of every fourth page.
#[test]
fn one_pass_counts_equal_the_per_phrase_scans_on_real_pages() {
    use super::cues::{count_dates, count_page_cues, count_prices, count_title_cues, PAGE_CUES, TITLE_CUES};
    use super::legal::count_legal_terms;
    use crate::html::{segment, Document};
    let Some(modern) = set("modern2026-dev") else { return };
    let mut totals = [0usize; 5];
    // Every other page (the reference scans are slow; half the set exercises every counter).
    for (i, page) in modern.pages.iter().enumerate().step_by(2) {
        let html = modern.read_html(page).expect("the page reads");
        let doc = Document::parse(&html);
        let blocks = segment(&doc);
        let mut page_text = String::new();
        for b in &blocks {
            page_text.push_str(&b.text.to_lowercase());
            page_text.push('\n');
        }
        let title = doc.title.clone().unwrap_or_default();
        let mut texts = vec![page_text, title.to_lowercase()];
        if i % 4 == 0 {
            texts.push(html.to_lowercase());
        }
        for text in &texts {
            let page_cues: Vec<usize> = PAGE_CUES.iter().map(|c| reference::count_phrases(text, c.phrases)).collect();
            let title_cues: Vec<usize> = TITLE_CUES.iter().map(|c| reference::count_phrases(text, c.phrases)).collect();
            assert_eq!(count_page_cues(text), page_cues, "page cues, page {}", page.id);
            assert_eq!(count_title_cues(text), title_cues, "title cues, page {}", page.id);
            assert_eq!(count_prices(text), reference::count_prices(text), "prices, page {}", page.id);
            assert_eq!(count_dates(text), reference::count_dates(text), "dates, page {}", page.id);
            assert_eq!(count_legal_terms(text), reference::count_legal_terms(text), "legal, page {}", page.id);
            totals[0] += page_cues.iter().sum::<usize>();
            totals[1] += title_cues.iter().sum::<usize>();
            totals[2] += reference::count_prices(text);
            totals[3] += reference::count_dates(text);
        }
        for text in blocks.iter().map(|b| b.text.as_str()).chain([title.as_str(), html.as_str()]) {
            let legal = reference::count_legal_terms(text);
            assert_eq!(count_legal_terms(text), legal, "legal terms, page {}: {text:.80}", page.id);
            totals[4] += legal;
        }
    }
    let pages = modern.pages.len().div_ceil(2);
    eprintln!("{pages} pages; page cues, title cues, prices, dates, legal terms found: {totals:?}");
    assert!(totals.iter().all(|&t| t > 1000), "the pages exercise every counter: {totals:?}");
}
