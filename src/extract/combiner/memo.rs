//! The combiner's answer for a page, computed once per parsed page and shared: a host's
//! learning judges each sample page unlearned for its held-out check
//! ([`crate::domain::learn::validate`]) and then extracts the same page with the learned model,
//! whose guard and host evidence read the same unlearned answer. The principal function is
//! [`page_answer`].
//!
//! The answer is kept on the [`Document`] ([`Document::derived`]) under everything it is a
//! function of: the blocks (their text and elements), the stoplist's language, the jusText and
//! StaDyNoT thresholds and the combiner's trees ([`Gbdt::fingerprint`](super::gbdt::Gbdt::fingerprint)),
//! so a page asked for with another stoplist or model is computed again, never answered from
//! the other's entry.

use super::{inputs, CombinerAnswer, CombinerModel};
use crate::extract::justext::JusTextParams;
use crate::extract::stadynot::StaDyNoTParams;
use crate::extract::stoplist::Stoplist;
use crate::extract::ExtractError;
use crate::html::Document;
use crate::model::{Block, Label};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// What the default pipeline reads of a page's unlearned stage ([`super::CombinerInputs`]
/// without the feature rows, which only the trees read), with the combiner's answer; one
/// entry per block in each list.
#[derive(Debug, Clone)]
pub struct PageAnswer {
    /// jusText's labels.
    pub justext: Vec<Label>,
    /// Boilerpipe ArticleExtractor's labels.
    pub boilerpipe: Vec<Label>,
    /// StaDyNoT's labels without a host model.
    pub stadynot: Vec<Label>,
    /// In a comment section below an article or in a cookie-consent box: never main text.
    pub never_main: Vec<bool>,
    /// The combiner's answer ([`CombinerModel::answer`]).
    pub answer: CombinerAnswer,
}

/// Everything a [`PageAnswer`] is a function of, besides the document.
#[derive(Debug, PartialEq)]
struct Key {
    blocks: u64,
    stoplist: Option<String>,
    justext: JusTextParams,
    stadynot: StaDyNoTParams,
    model: (u64, u32),
}

/// The answers kept on one document (a few at most: one per stoplist and model asked for).
#[derive(Default)]
struct Answers(RefCell<Vec<(Key, Rc<PageAnswer>)>>);

/// The combiner's answer for `blocks` of `doc` with `stoplist` and the thresholds, from the
/// document's memo when the same page was answered the same way before, else computed
/// ([`inputs`], [`CombinerModel::answer`]) and kept there.
///
/// # Errors
/// As [`inputs`].
pub fn page_answer(
    doc: &Document,
    blocks: &[Block],
    stoplist: &Stoplist,
    justext: &JusTextParams,
    stadynot: &StaDyNoTParams,
    model: &CombinerModel,
) -> Result<Rc<PageAnswer>, ExtractError> {
    let key = Key {
        blocks: blocks_fingerprint(blocks),
        stoplist: stoplist.language.clone(),
        justext: justext.clone(),
        stadynot: stadynot.clone(),
        model: (model.gbdt.fingerprint(), model.threshold.to_bits()),
    };
    let memo = doc.derived(|_| Answers::default());
    if let Some((_, found)) = memo.0.borrow().iter().find(|(k, _)| *k == key) {
        return Ok(Rc::clone(found));
    }
    let inputs = inputs(doc, blocks, stoplist, justext, stadynot)?;
    let answer = model.answer(&inputs);
    let never_main = inputs.comments.iter().zip(&inputs.consent).map(|(&c, &k)| c || k).collect();
    let page = Rc::new(PageAnswer {
        justext: inputs.justext,
        boilerpipe: inputs.boilerpipe,
        stadynot: inputs.stadynot,
        never_main,
        answer,
    });
    memo.0.borrow_mut().push((key, Rc::clone(&page)));
    Ok(page)
}

/// xxh3 of the blocks' texts and elements, in order.
fn blocks_fingerprint(blocks: &[Block]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&(blocks.len() as u64).to_le_bytes());
    for b in blocks {
        h.update(&(b.text.len() as u64).to_le_bytes());
        h.update(b.text.as_bytes());
        b.element.hash(&mut h);
        b.text_nodes.hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::combiner::shipped;
    use crate::extract::stoplist::stoplist_for;
    use crate::html::segment;

    #[test]
    fn a_page_is_answered_once_per_stoplist_and_model() {
        let Some(path) = crate::testdata::shared_path(
            "sites/www.freepressokc.com/okc-council-members-question-wisdom-costco-incentives/index.html",
        ) else {
            return;
        };
        let doc = Document::parse(&std::fs::read_to_string(path).expect("the page reads"));
        let blocks = segment(&doc);
        let model = shipped().expect("shipped model");
        let (jt, sd) = (JusTextParams::default(), StaDyNoTParams::default());
        let english = stoplist_for(Some("English"), "");
        let first = page_answer(&doc, &blocks, &english, &jt, &sd, model).expect("answer");
        let again = page_answer(&doc, &blocks, &english, &jt, &sd, model).expect("answer");
        assert!(Rc::ptr_eq(&first, &again), "the same question is answered from the memo");
        // The same answer as computed afresh.
        let fresh = model.answer(&inputs(&doc, &blocks, &english, &jt, &sd).expect("inputs"));
        assert_eq!(first.answer, fresh);
        // Another stoplist, other thresholds, other blocks, another model: computed again.
        let none = stoplist_for(Some("none"), "");
        let other = page_answer(&doc, &blocks, &none, &jt, &sd, model).expect("answer");
        assert!(!Rc::ptr_eq(&first, &other));
        let strict = JusTextParams { length_low: 200, ..JusTextParams::default() };
        assert!(!Rc::ptr_eq(&first, &page_answer(&doc, &blocks, &english, &strict, &sd, model).expect("answer")));
        assert!(!Rc::ptr_eq(&first, &page_answer(&doc, &blocks[1..], &english, &jt, &sd, model).expect("answer")));
        let mut shifted = model.clone();
        shifted.gbdt = super::super::gbdt::Gbdt::new(model.gbdt.features, 3.0, Vec::new());
        let keep_all = page_answer(&doc, &blocks, &english, &jt, &sd, &shifted).expect("answer");
        assert!(!Rc::ptr_eq(&first, &keep_all));
        assert!(keep_all.answer.probabilities.iter().all(|&p| p > 0.9), "{:?}", keep_all.answer.probabilities);
        // A clone of the model is the same model.
        let cloned = model.clone();
        assert!(Rc::ptr_eq(&first, &page_answer(&doc, &blocks, &english, &jt, &sd, &cloned).expect("answer")));
    }
}
