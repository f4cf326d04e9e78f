//! The rules by which a host's learned model takes part in the default extractor's labels
//! (step 5 of [`default_labels`](crate::extract::pipeline::default_labels)): the stretch's
//! rules (GoldMiner, Endrédy & Novák 2013, §III.A: outside the stretch dropped, GoldMiner's
//! lenient labels added inside it, the article going on past its end pattern), the combiner's
//! firm answers that no stretch overrules, and the per-page guard that gives a page back to the
//! unlearned labels when a model would empty or halve it. The principal functions are
//! [`stretch_rules`] and [`guard_rejects`].

use crate::extract::combiner::CombinerAnswer;
#[cfg(doc)]
use crate::extract::goldminer;
use crate::extract::trace::{PageTrace, Stage};
use crate::model::{Block, Label};

/// The share of the words that `labels` keeps which lie outside `range` (0.0 when it keeps
/// none).
pub fn stretch_drop(blocks: &[Block], labels: &[Label], range: &std::ops::Range<usize>) -> f64 {
    let kept = kept_words(blocks, labels);
    if kept == 0 {
        return 0.0;
    }
    let inside: Vec<Label> =
        labels.iter().enumerate().map(|(i, l)| if range.contains(&i) { *l } else { Label::Bad }).collect();
    1.0 - kept_words(blocks, &inside) as f64 / kept as f64
}

/// Below this share of the unlearned default's words, a learned extraction must keep most of
/// the unlearned default's lead to be used ([`guard_rejects`]).
pub const MODEL_MIN_WORD_SHARE: f64 = 0.5;

/// How much more of the unlearned default's words a template's stretch may leave out of a page
/// than it left out of the median sample page ([`goldminer::GoldMinerModel::sample_drop`];
/// both counted outside the host's static noise) before the page is extracted without the
/// model: an end pattern that also occurs inside some articles (a list of code links in a
/// documentation page) cuts those in the middle.
pub const MODEL_DROP_MARGIN: f64 = 0.25;

/// Inside a learned stretch, the blocks GoldMiner keeps and the unlearned labels drop are added
/// only while their words are at most this share of the words the unlearned labels keep: a
/// model never adds more than half a page of text the vote rejected (a template whose stretch
/// is wider than the article on this page would add the boxes around it).
pub const MODEL_MAX_ADDED_SHARE: f64 = 0.5;

/// A block that the combiner keeps with at least this probability is kept outside a host's
/// GoldMiner stretch too (step 5 of [`default_labels`](crate::extract::pipeline::default_labels)): the learned stretch is evidence, not a
/// veto over a firm answer of the block model (a headline above the begin pattern, an
/// article's last paragraphs after an end pattern that the page places early).
pub const COMBINER_FIRM_KEEP: f32 = 0.9;

/// A block that the combiner keeps with less than this probability is never added back inside
/// a host's GoldMiner stretch (step 5 of [`default_labels`](crate::extract::pipeline::default_labels)): teasers, captions and author
/// boxes that sit inside the template's stretch on some pages stay out.
pub const COMBINER_FIRM_DROP: f32 = 0.2;

/// Below this share of the unlearned default's words, a learned extraction is never used.
pub const MODEL_EMPTY_WORD_SHARE: f64 = 0.1;

/// The per-page guard of the default extractor: whether the `learned` labels of a page must
/// give way to the `unlearned` ones. The words compared are those the unlearned default keeps
/// outside the host's static noise (`static_noise`, one flag per block: text found on every
/// page of the sample, such as a site banner; whether a static key may take main text is
/// decided when the model is learned, [`crate::domain::learn::validate`]); when they are
/// headings alone, the unlearned default gives the page no main text and the learned labels
/// stand. The learned labels must give way when they keep headings alone or fewer than
/// [`MODEL_EMPTY_WORD_SHARE`] of those words (the page is emptied: headings alone make no
/// record, [`PageExtraction::has_running_text`](crate::extract::pipeline::PageExtraction::has_running_text)), or fewer than [`MODEL_MIN_WORD_SHARE`] of
/// them and less than half of the lead (the blocks, in page order, that hold the first half of
/// the words): the page is halved where its main text begins. A learned stretch that keeps the
/// article and cuts the comments, link lists or teasers after it is not halving.
pub fn guard_rejects(blocks: &[Block], learned: &[Label], unlearned: &[Label], static_noise: Option<&[bool]>) -> bool {
    let words = |b: &Block| b.words;
    let unlearned = &without_static_noise(unlearned, static_noise)[..];
    let unlearned_words = kept_words(blocks, unlearned);
    // Headings alone are no main text (`PageExtraction::has_running_text`): a title over an
    // empty stub, with the site banner that the unlearned default also keeps, is not a page
    // the model may not empty.
    let running_text = blocks.iter().zip(unlearned).any(|(b, l)| l.is_good() && !b.heading);
    if unlearned_words == 0 || !running_text {
        return false;
    }
    // Learned labels that keep headings alone leave the page without main text: emptied.
    if !blocks.iter().zip(learned).any(|(b, l)| l.is_good() && !b.heading) {
        return true;
    }
    let share = kept_words(blocks, learned) as f64 / unlearned_words as f64;
    if share < MODEL_EMPTY_WORD_SHARE {
        return true;
    }
    if share >= MODEL_MIN_WORD_SHARE {
        return false;
    }
    let (mut before, mut lead, mut lead_kept) = (0, 0, 0);
    for ((b, u), l) in blocks.iter().zip(unlearned).zip(learned) {
        if !u.is_good() {
            continue;
        }
        if 2 * before >= unlearned_words {
            break;
        }
        let n = words(b);
        before += n;
        lead += n;
        if l.is_good() {
            lead_kept += n;
        }
    }
    2 * lead_kept < lead
}

/// `labels` with the blocks of the host's static noise (`static_noise`, one flag per block)
/// dropped; borrowed when there is none.
pub(crate) fn without_static_noise<'a>(
    labels: &'a [Label],
    static_noise: Option<&[bool]>,
) -> std::borrow::Cow<'a, [Label]> {
    match static_noise {
        Some(flags) => {
            labels.iter().zip(flags).map(|(l, &noise)| if noise { Label::Bad } else { *l }).collect::<Vec<_>>().into()
        }
        None => labels.into(),
    }
}

/// Whether the combiner's answer for block `i` is firm: the answer did not give way and its
/// probability is at least [`COMBINER_FIRM_KEEP`] or below [`COMBINER_FIRM_DROP`]. A firm
/// answer keeps its label whatever a host model's stretch says (step 5 of [`default_labels`](crate::extract::pipeline::default_labels)).
pub fn combiner_is_firm(answer: Option<&CombinerAnswer>, i: usize) -> bool {
    answer.is_some_and(|a| is_firm(a.probabilities[i], a.gave_way))
}

/// [`combiner_is_firm`] of a block with combiner probability `p` on a page whose answer did or
/// did not give way.
pub fn is_firm(p: f32, gave_way: bool) -> bool {
    !gave_way && !(COMBINER_FIRM_DROP..COMBINER_FIRM_KEEP).contains(&p)
}

/// Step 5 of [`default_labels`](crate::extract::pipeline::default_labels) by rules, where no host-evidence model decides (the `rules`
/// extractor): outside the stretch `range`, a block is dropped unless the combiner keeps it
/// firmly ([`COMBINER_FIRM_KEEP`]) or the article goes on there ([`article_continues`]);
/// inside it, the blocks GoldMiner's lenient jusText keeps (`gm`) are added while they hold
/// at most [`MODEL_MAX_ADDED_SHARE`] of the `unlearned` labels' words, never one that the
/// combiner drops firmly ([`COMBINER_FIRM_DROP`]) or that `never_main` flags.
#[allow(clippy::too_many_arguments)]
pub fn stretch_rules(
    blocks: &[Block],
    labels: &mut [Label],
    unlearned: &[Label],
    range: &std::ops::Range<usize>,
    gm: &[Label],
    never_main: &[bool],
    answer: Option<&CombinerAnswer>,
    trace: &mut PageTrace,
) {
    let firm_keep =
        |i: usize| combiner_is_firm(answer, i) && answer.is_some_and(|a| a.probabilities[i] >= COMBINER_FIRM_KEEP);
    let firm_drop =
        |i: usize| combiner_is_firm(answer, i) && answer.is_some_and(|a| a.probabilities[i] < COMBINER_FIRM_DROP);
    let addable =
        |i: usize, labels: &[Label]| gm[i].is_good() && !labels[i].is_good() && !never_main[i] && !firm_drop(i);
    let added: usize = range.clone().filter(|&i| addable(i, labels)).map(|i| blocks[i].words).sum();
    let add = added as f64 <= MODEL_MAX_ADDED_SHARE * kept_words(blocks, unlearned) as f64;
    let continues = article_continues(blocks, labels, range);
    for (i, label) in labels.iter_mut().enumerate() {
        if !range.contains(&i) {
            if firm_keep(i) && label.is_good() {
                trace.set(i, true, Stage::FirmKeep);
            } else if continues[i] {
                trace.set(i, true, Stage::ArticleContinues);
            } else {
                trace.set(i, false, Stage::OutsideStretch);
                *label = Label::Bad;
            }
        } else if add && gm[i].is_good() && !never_main[i] && !firm_drop(i) {
            if !label.is_good() {
                trace.set(i, true, Stage::InsideStretch);
            }
            *label = Label::Good;
        }
    }
}

/// The blocks after a learned stretch's end where the article goes on (one flag per block): a
/// template's end pattern that some pages place inside the article (an inline box of the same
/// tags) would otherwise cut the rest of it. Walking from the stretch's end, a block `labels`
/// keeps (the combiner's or the rules' answer) stays when its DOM path is that of a block kept
/// inside the stretch; the walk ends at the first kept block of another path (the text after
/// the article is of other containers), and blocks `labels` drops are passed over.
pub fn article_continues(blocks: &[Block], labels: &[Label], range: &std::ops::Range<usize>) -> Vec<bool> {
    let mut flags = vec![false; blocks.len()];
    let kept_paths: std::collections::HashSet<&str> =
        range.clone().filter(|&i| labels[i].is_good()).map(|i| blocks[i].dom_path.as_str()).collect();
    for i in range.end..blocks.len() {
        if !labels[i].is_good() {
            continue;
        }
        if !kept_paths.contains(blocks[i].dom_path.as_str()) {
            break;
        }
        flags[i] = true;
    }
    flags
}

/// Words of the blocks that `unlearned` keeps and `learned` drops whose DOM path is that of a
/// block `learned` keeps: the model dropped more of the text it kept, not a box of another kind.
pub(crate) fn dropped_like_kept(blocks: &[Block], learned: &[Label], unlearned: &[Label]) -> usize {
    let kept_paths: std::collections::HashSet<&str> =
        blocks.iter().zip(learned).filter(|(_, l)| l.is_good()).map(|(b, _)| b.dom_path.as_str()).collect();
    blocks
        .iter()
        .zip(learned)
        .zip(unlearned)
        .filter(|((b, l), u)| u.is_good() && !l.is_good() && kept_paths.contains(b.dom_path.as_str()))
        .map(|((b, _), _)| b.words)
        .sum()
}

/// Words of the blocks `labels` keeps.
pub fn kept_words(blocks: &[Block], labels: &[Label]) -> usize {
    blocks.iter().zip(labels).filter(|(_, l)| l.is_good()).map(|(b, _)| b.words).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{segment, Document};

    /// The blocks of a page of `../shared/sites` (`None` outside CI when it is missing).
    fn site_page_blocks(path: &str) -> Option<Vec<Block>> {
        let page = crate::testdata::shared_path(&format!("sites/{path}"))?;
        let html = std::fs::read_to_string(&page).expect("the shared page reads");
        Some(segment(&Document::parse(&html)))
    }

    /// Past a stretch's end, the article's own paragraphs stay (an inline box of the end
    /// pattern's tags is passed over), up to the first kept block of another container.
    #[test]
    fn the_article_continues_past_an_end_pattern_inside_it() {
        let html = "<html><body><div><p>First paragraph of the story.</p><p>Second paragraph.</p>\
            <aside><p>Read also: another story</p></aside><p>Third paragraph.</p><p>Fourth.</p></div>\
            <footer><p>Contact us</p></footer><div><p>A teaser in a div below.</p></div></body></html>";
        let blocks = segment(&Document::parse(html));
        assert_eq!(blocks.len(), 7, "{blocks:?}");
        let mut labels = vec![Label::Good; blocks.len()];
        labels[2] = Label::Bad;
        let flags = article_continues(&blocks, &labels, &(0..2));
        assert_eq!(flags, [false, false, false, true, true, false, false]);
        // Nothing kept inside the stretch: nothing continues.
        let none = article_continues(
            &blocks,
            &vec![Label::Bad; 2].into_iter().chain(labels[2..].to_vec()).collect::<Vec<_>>(),
            &(0..2),
        );
        assert!(none.iter().all(|&f| !f));
    }

    /// A learned extraction that keeps nothing gives way to an unlearned one with running
    /// text, not to one whose text outside the static noise is headings alone (an empty talk
    /// page of the shared MediaWiki: its title, under the site's shut-down banner).
    #[test]
    fn the_guard_keeps_a_model_that_empties_a_page_of_headings_alone() {
        let page = "awesomewm.org/wiki/Talk:Making_a_Status_Bar_II/index.html";
        let Some(blocks) = site_page_blocks(page) else { return };
        let title = blocks.iter().position(|b| b.heading && b.text.starts_with("Talk:")).expect("the page title");
        let banner = blocks.iter().position(|b| b.text.starts_with("Please note that this wiki")).expect("the banner");
        let empty = vec![Label::Bad; blocks.len()];
        let mut unlearned = empty.clone();
        unlearned[title] = Label::Good;
        unlearned[banner] = Label::Good;
        let mut noise = vec![false; blocks.len()];
        noise[banner] = true;
        assert!(!guard_rejects(&blocks, &empty, &unlearned, Some(&noise)), "headings alone besides the banner");
        assert!(guard_rejects(&blocks, &empty, &unlearned, None), "the banner is running text when not static noise");
        noise[banner] = false;
        assert!(guard_rejects(&blocks, &empty, &unlearned, Some(&noise)));
    }

    /// A learned extraction that keeps only the title of a page whose unlearned extraction has
    /// running text empties the page, though the title is most of its words and its lead (an
    /// event page of the shared Stanford site: title, "Date:" and the date; a template that
    /// ends at the date field, learned from a crawl's later sample, kept the title alone).
    #[test]
    fn the_guard_rejects_a_model_that_keeps_headings_alone() {
        let page = "www-cs.stanford.edu/events/ixl-learning-resume-submission-deadline.html";
        let Some(blocks) = site_page_blocks(page) else { return };
        let find = |text: &str| blocks.iter().position(|b| b.text.starts_with(text)).expect(text);
        let title = find("IXL Learning Resume Submission Deadline");
        assert!(blocks[title].heading);
        let mut unlearned = vec![Label::Bad; blocks.len()];
        for i in [title, find("Date:"), find("Monday, January 18, 2016")] {
            unlearned[i] = Label::Good;
        }
        let mut learned = vec![Label::Bad; blocks.len()];
        learned[title] = Label::Good;
        assert!(5 * kept_words(&blocks, &learned) > 2 * kept_words(&blocks, &unlearned), "over 40 % of the words");
        assert!(guard_rejects(&blocks, &learned, &unlearned, None));
        learned[find("Date:")] = Label::Good;
        assert!(!guard_rejects(&blocks, &learned, &unlearned, None), "the title and running text");
    }
}
