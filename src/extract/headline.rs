//! The headline rules: the page's headline, the heading that repeats the page's `<title>`,
//! is found by the default pipeline when it stands right above the main text
//! ([`keep_headline`]), and every extractor's output gives it its own field rather than the
//! first line of the main text ([`headline_block`]; a record's `text` is the main content
//! only, and `eval` puts the headline back for the sets whose gold has it).
//!
//! Article templates often put the headline in a header box apart from the body, with the
//! byline, date, sharing buttons or "Article | Comments (7)" tabs in between. The block
//! classifiers judge the headline by its neighbours (jusText's context rule, Pomikálek 2011
//! §3.2) or cut it off with the box (a GoldMiner stretch, Endrédy & Novák 2013, §III.A, that
//! begins at the body), while the annotation conventions of CleanEval, L3S-GN1 and
//! CleanPortalEval count the headline as main text. Boilerpipe finds the title block the same
//! way (`DocumentTitleMatchClassifier`, Kohlschütter et al. 2010); readability and trafilatura
//! read it from `<title>` and the first `h1`.

use crate::html::{is_cjk, Document};
use crate::model::{Block, Label};

/// Most blocks between the headline and the block where the main text begins (sharing
/// buttons and tabs are a block each).
pub const MAX_GAP_BLOCKS: usize = 60;

/// Most words of running text (blocks that are not headings and have link density below 0.5)
/// between the headline and the block where the main text begins: a byline and a date line
/// fit, a teaser paragraph or a second article does not.
pub const MAX_GAP_TEXT_WORDS: usize = 25;

/// Fewest words of a headline (a Chinese or Japanese character is a word).
pub const MIN_HEADLINE_WORDS: usize = 3;

/// Least share of a headline's words that are words of the `<title>`.
pub const MIN_TITLE_SHARE: f64 = 0.8;

/// Fewest words of the block where the main text begins: shorter kept lines above it (a
/// byline, a date line) are part of the gap.
pub const MIN_TEXT_WORDS: usize = 10;

/// Keep the headline above the main text. The main text begins at the first kept block that
/// is not a heading and has at least [`MIN_TEXT_WORDS`] words (else at the first kept block).
/// When a heading stands above it, within [`MAX_GAP_BLOCKS`] blocks and
/// [`MAX_GAP_TEXT_WORDS`] words of running text, with at least [`MIN_HEADLINE_WORDS`] words,
/// [`MIN_TITLE_SHARE`] of them words of `doc`'s `<title>`, link density below 0.5 and not
/// flagged in `excluded` (one flag per block, e.g. a host's static noise), the nearest such
/// heading is labelled [`Label::Good`]. A page without a title or without kept blocks is left
/// as it is. `labels` has one label per block.
pub fn keep_headline(doc: &Document, blocks: &[Block], labels: &mut [Label], excluded: Option<&[bool]>) {
    let Some(title) = doc.title.as_deref() else { return };
    let title = words(title);
    let kept = |i: &usize| labels[*i].is_good();
    let Some(first) = (0..blocks.len()).find(kept) else { return };
    let begin = (first..blocks.len())
        .filter(kept)
        .find(|&i| !blocks[i].heading && blocks[i].words >= MIN_TEXT_WORDS)
        .unwrap_or(first);
    let mut gap_words = 0;
    for j in (begin.saturating_sub(MAX_GAP_BLOCKS + 1)..begin).rev() {
        let block = &blocks[j];
        if block.heading && headline_of(block, &title) && !excluded.is_some_and(|e| e[j]) {
            labels[j] = Label::Good;
            return;
        }
        if !block.heading && block.link_density() < 0.5 {
            gap_words += block.words;
            if gap_words > MAX_GAP_TEXT_WORDS {
                return;
            }
        }
    }
}

/// The block of the page's headline among the kept blocks (`labels`, one per block): the
/// first kept heading above the first kept running text (a block that is not a heading and
/// has at least [`MIN_TEXT_WORDS`] words), with link density below 0.5, that is an `h1` or
/// reads as the `<title>` ([`MIN_HEADLINE_WORDS`], [`MIN_TITLE_SHARE`]). `None` when no kept
/// block qualifies.
pub fn headline_block(doc: &Document, blocks: &[Block], labels: &[Label]) -> Option<usize> {
    let title = title_words(doc);
    for (i, block) in blocks.iter().enumerate().filter(|(i, _)| labels[*i].is_good()) {
        if !block.heading {
            if block.words >= MIN_TEXT_WORDS {
                return None;
            }
            continue;
        }
        if reads_as_headline(block, &title) {
            return Some(i);
        }
    }
    None
}

/// True when `block` reads as the headline of `doc`: a heading with link density below 0.5
/// that is an `h1` or reads as the `<title>` ([`MIN_HEADLINE_WORDS`], [`MIN_TITLE_SHARE`]),
/// wherever it stands. `title` is `doc`'s title words ([`title_words`]).
pub fn reads_as_headline(block: &Block, title: &[String]) -> bool {
    let h1 = block.dom_path.rsplit('.').next() == Some("h1") || block.dom_path.contains(".h1.");
    block.heading && block.link_density() < 0.5 && (h1 || (!title.is_empty() && headline_of(block, title)))
}

/// The lower-cased words of `doc`'s `<title>` (empty without one), for [`reads_as_headline`].
pub fn title_words(doc: &Document) -> Vec<String> {
    doc.title.as_deref().map(words).unwrap_or_default()
}

/// Whether `block` reads as the headline of a page titled `title` (its words, lower-cased).
fn headline_of(block: &Block, title: &[String]) -> bool {
    if block.link_density() >= 0.5 {
        return false;
    }
    let own = words(&block.text);
    if own.len() < MIN_HEADLINE_WORDS {
        return false;
    }
    let shared = own.iter().filter(|w| title.contains(w)).count();
    shared as f64 >= MIN_TITLE_SHARE * own.len() as f64
}

/// The lower-cased alphanumeric words of `text`; each Chinese or Japanese character
/// ([`is_cjk`]) is a word of its own, as [`crate::html::count_words`] counts them.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let mut rest = run;
        while let Some(at) = rest.find(is_cjk) {
            if at > 0 {
                out.push(rest[..at].to_lowercase());
            }
            let c = rest[at..].chars().next().unwrap_or_default();
            out.push(c.to_string());
            rest = &rest[at + c.len_utf8()..];
        }
        if !rest.is_empty() {
            out.push(rest.to_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{segment, Document};

    /// The texts kept on `html` by [`keep_headline`] when the labels before keep the article's
    /// paragraph ([`BODY`]) alone.
    fn kept(html: &str, excluded: impl Fn(&Block) -> bool) -> Vec<String> {
        let doc = Document::parse(html);
        let blocks = segment(&doc);
        let mut labels: Vec<Label> =
            blocks.iter().map(|b| if b.text.starts_with("The council") { Label::Good } else { Label::Bad }).collect();
        let flags: Vec<bool> = blocks.iter().map(excluded).collect();
        keep_headline(&doc, &blocks, &mut labels, Some(&flags));
        blocks.iter().zip(&labels).filter(|(_, l)| l.is_good()).map(|(b, _)| b.text.clone()).collect()
    }

    const BODY: &str = "<p>The council voted on Tuesday to close the old bridge for repairs until the spring.</p>";

    fn page(title: &str, header: &str) -> String {
        format!("<html><head><title>{title}</title></head><body><div class=head><h2>News</h2>{header}</div>{BODY}</body></html>")
    }

    #[test]
    fn the_headline_over_a_byline_and_tabs_is_kept() {
        let html = page(
            "Old bridge to close for repairs - Town News",
            "<h1>Old bridge to close for repairs</h1><p>By A. Writer</p><ul><li><a href=/a>Article</a></li>\
             <li><a href=/c>Comments (7)</a></li></ul>",
        );
        let texts = kept(&html, |_| false);
        assert_eq!(texts.first().map(String::as_str), Some("Old bridge to close for repairs"), "{texts:?}");
        assert_eq!(texts.len(), 2, "{texts:?}");
    }

    #[test]
    fn a_heading_not_in_the_title_or_behind_a_teaser_or_excluded_stays_out() {
        let other = page("Town News", "<h1>Old bridge to close for repairs</h1>");
        assert_eq!(kept(&other, |_| false).len(), 1, "not the title's heading");
        let teaser = page(
            "Old bridge to close for repairs - Town News",
            "<h1>Old bridge to close for repairs</h1><p>Also today: the mayor opened the new library, the school \
             band won a prize, and the market moves to the square for the summer months, the council said.</p>",
        );
        let texts = kept(&teaser, |_| false);
        assert!(!texts.iter().any(|t| t.starts_with("Old bridge")), "{texts:?}");
        let html = page("Old bridge to close for repairs - Town News", "<h1>Old bridge to close for repairs</h1>");
        assert_eq!(kept(&html, |b| b.heading).len(), 1, "excluded");
        assert_eq!(kept(&html, |_| false).len(), 2);
    }

    /// The headline field takes the first kept heading above the running text when it is an
    /// `h1` or repeats the title; a section heading inside the text, or a heading below the
    /// first paragraph, is not the headline.
    #[test]
    fn the_headline_block_is_the_title_heading_or_h1_above_the_text() {
        let pick = |html: &str| {
            let doc = Document::parse(html);
            let blocks = segment(&doc);
            let labels = vec![Label::Good; blocks.len()];
            headline_block(&doc, &blocks, &labels).map(|i| blocks[i].text.clone())
        };
        let titled = page("Old bridge to close for repairs - Town News", "<h1>Old bridge to close for repairs</h1>");
        assert_eq!(pick(&titled).as_deref(), Some("Old bridge to close for repairs"), "past a short section h2");
        let h1 = format!("<html><head><title>Town News</title></head><body><p>By A. Writer</p><h1>Bridge closes</h1>{BODY}</body></html>");
        assert_eq!(pick(&h1).as_deref(), Some("Bridge closes"), "an h1 below a byline");
        let section = format!(
            "<html><head><title>Town News</title></head><body>{BODY}<h2>Background of the bridge</h2></body></html>"
        );
        assert_eq!(pick(&section), None, "a heading below the first paragraph");
        let other =
            "<html><head><title>Town News</title></head><body><h3>Weather and traffic today</h3><p>x</p></body></html>";
        assert_eq!(pick(other), None, "neither an h1 nor the title's words");
    }

    #[test]
    fn a_japanese_headline_counts_its_characters() {
        assert_eq!(
            words("新道場、ちゃくちゃくと Abc1"),
            ["新", "道", "場", "ち", "ゃ", "く", "ち", "ゃ", "く", "と", "abc1"]
        );
        let html = format!(
            "<html><head><title>新道場、ちゃくちゃくと出来上がっております。 – HIDES KICK! ブログ</title></head><body>\
             <h1>新道場、ちゃくちゃくと出来上がっております。</h1><p>By A. Writer</p>{BODY}</body></html>"
        );
        assert_eq!(kept(&html, |_| false).len(), 2);
    }
}
