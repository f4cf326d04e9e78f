//! The combiner's answer for a page, computed once per parsed page and shared: a host's
//! learning judges each sample page unlearned for its held-out check
//! ([`crate::domain::learn::validate`]) and then extracts the same page with the learned model,
//! whose guard and host evidence read the same unlearned answer. The principal function is
//! [`page_answer`]. The crawl computes a sample page's answer when it fetches the page, while
//! its host is still sampling, and keeps it with the page's HTML in the state ([`encoded_answer`]);
//! when the host learns, the answer goes back onto the page parsed again ([`seed`]), so that
//! the learning at the end of a host does not compute it a second time.
//!
//! The answer is kept on the [`Document`] ([`Document::derived`]) under a fingerprint of
//! everything it is a function of: the blocks (their text and elements), the stoplist's
//! language, the jusText and StaDyNoT thresholds and the combiner's trees
//! ([`Gbdt::fingerprint`](super::gbdt::Gbdt::fingerprint)), so a page asked for with another
//! stoplist or model is computed again, never answered from the other's entry.
//!
//! The stoplist of the page's own language ([`own_stoplist`]), which chooses the stoplist of
//! that answer and of the page's extraction, is detected once per parsed page the same way.

use super::{inputs, CombinerAnswer, CombinerModel};
use crate::extract::justext::JusTextParams;
use crate::extract::stadynot::StaDyNoTParams;
use crate::extract::stoplist::{language_sample, own_page_stoplist, stoplist_for, Stoplist};
use crate::extract::trace::{BlockDecision, Stage};
use crate::extract::ExtractError;
use crate::html::Document;
use crate::model::{Block, Label};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::Arc;

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

/// The answers kept on one document, each under its [`key`] (a few at most: one per stoplist
/// and model asked for).
#[derive(Default)]
struct Answers(RefCell<Vec<(u64, Kept)>>);

/// An answer on a document: computed or read, or the bytes [`seed`] put there, read when first
/// asked for (a host's learning does not always ask: its pages' answers stay as bytes until
/// each page is extracted).
enum Kept {
    Answer(Rc<PageAnswer>),
    Bytes(Vec<u8>),
}

/// The own stoplists detected on one document, each under the xxh3 of its blocks and
/// language setting.
#[derive(Default)]
struct OwnStoplists(RefCell<Vec<(u64, Option<Arc<Stoplist>>)>>);

/// [`own_page_stoplist`] of `blocks`' [`language_sample`] under the `language` setting (a
/// stoplist name or code, `"none"`, or `None` / `"auto"` to detect): the stoplist of the page's
/// own language, or `None` where its detection is not reliable (the host's language then
/// chooses, [`crate::extract::stoplist::page_stoplist`]). Detected once per parsed page, blocks
/// and setting, and kept on `doc`: a host's learning and the page's extraction both ask.
pub fn own_stoplist(doc: &Document, blocks: &[Block], language: Option<&str>) -> Option<Arc<Stoplist>> {
    let key = own_key(blocks, language);
    let memo = doc.derived(|_| OwnStoplists::default());
    if let Some((_, found)) = memo.0.borrow().iter().find(|(k, _)| *k == key) {
        return found.clone();
    }
    let stoplist = own_page_stoplist(language, &language_sample(blocks));
    memo.0.borrow_mut().push((key, stoplist.clone()));
    stoplist
}

/// xxh3 of what [`own_stoplist`] is a function of, besides the document.
fn own_key(blocks: &[Block], language: Option<&str>) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&blocks_fingerprint(blocks).to_le_bytes());
    language.hash(&mut h);
    h.digest()
}

/// xxh3 of everything a [`PageAnswer`] is a function of, besides the document.
fn key(
    blocks: &[Block],
    stoplist: &Stoplist,
    justext: &JusTextParams,
    stadynot: &StaDyNoTParams,
    model: &CombinerModel,
) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&blocks_fingerprint(blocks).to_le_bytes());
    stoplist.language.hash(&mut h);
    // Both serialise every threshold, in field order.
    h.update(&serde_json::to_vec(justext).unwrap_or_default());
    h.update(&serde_json::to_vec(stadynot).unwrap_or_default());
    h.update(&model.gbdt.fingerprint().to_le_bytes());
    h.update(&model.threshold.to_bits().to_le_bytes());
    h.digest()
}

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
    answer_under(doc, blocks, key(blocks, stoplist, justext, stadynot, model), stoplist, justext, stadynot, model)
}

/// [`page_answer`] under its `key`, computed by the caller.
fn answer_under(
    doc: &Document,
    blocks: &[Block],
    key: u64,
    stoplist: &Stoplist,
    justext: &JusTextParams,
    stadynot: &StaDyNoTParams,
    model: &CombinerModel,
) -> Result<Rc<PageAnswer>, ExtractError> {
    let memo = doc.derived(|_| Answers::default());
    {
        let mut answers = memo.0.borrow_mut();
        if let Some(at) = answers.iter().position(|(k, _)| *k == key) {
            let read = match &answers[at].1 {
                Kept::Answer(found) => return Ok(Rc::clone(found)),
                Kept::Bytes(bytes) => decode(bytes),
            };
            match read {
                Some((_, answer)) => {
                    let answer = Rc::new(answer);
                    answers[at].1 = Kept::Answer(Rc::clone(&answer));
                    return Ok(answer);
                }
                // Bytes that do not read: computed below.
                None => {
                    answers.remove(at);
                }
            }
        }
    }
    let inputs = inputs(doc, blocks, stoplist, justext, stadynot)?;
    let answer = model.answer(&inputs);
    let never_main = (0..inputs.words.len())
        .map(|i| {
            inputs.comments[i]
                || inputs.consent[i]
                || matches!(answer.decisions[i].stage, Stage::TeaserList | Stage::OutsidePost)
        })
        .collect();
    let page = Rc::new(PageAnswer {
        justext: inputs.justext,
        boilerpipe: inputs.boilerpipe,
        stadynot: inputs.stadynot,
        never_main,
        answer,
    });
    memo.0.borrow_mut().push((key, Kept::Answer(Rc::clone(&page))));
    Ok(page)
}

/// For a page of a sampling host: its [`own_stoplist`] under the `language` setting, the
/// [`page_answer`] with that stoplist and both as bytes for the state ([`seed`] puts them back
/// on the page parsed again). `Ok(None)` where the page's own language is not reliably
/// detected: the host's language will choose the stoplist, once it is known.
///
/// # Errors
/// As [`inputs`].
pub fn encoded_answer(
    doc: &Document,
    blocks: &[Block],
    language: Option<&str>,
    justext: &JusTextParams,
    stadynot: &StaDyNoTParams,
    model: &CombinerModel,
) -> Result<Option<Vec<u8>>, ExtractError> {
    let Some(stoplist) = own_stoplist(doc, blocks, language) else {
        return Ok(None);
    };
    let key = key(blocks, &stoplist, justext, stadynot, model);
    let answer = answer_under(doc, blocks, key, &stoplist, justext, stadynot, model)?;
    let mut bytes = encode(key, &answer);
    // The trailer: the own stoplist's key and language name (empty: the language-independent mode).
    bytes.extend_from_slice(&own_key(blocks, language).to_le_bytes());
    let name = stoplist.language.as_deref().unwrap_or("").as_bytes();
    let name = &name[..name.len().min(u8::MAX as usize)];
    bytes.push(name.len() as u8);
    bytes.extend_from_slice(name);
    Ok(Some(bytes))
}

/// Put what [`encoded_answer`] gave for this page (parsed from the same HTML) onto `doc`: the
/// answer, where [`page_answer`] finds it when asked the same question (it is read then), and
/// the page's own stoplist, where [`own_stoplist`] finds it. Bytes of another format or length
/// are left out, and bytes that do not read when asked for are dropped (the answer is then
/// computed). Returns whether the bytes were kept.
pub fn seed(doc: &Document, bytes: &[u8]) -> bool {
    let Some((key, (own, name))) = header(bytes) else {
        return false;
    };
    let Ok(name) = std::str::from_utf8(name) else {
        return false;
    };
    let memo = doc.derived(|_| Answers::default());
    let mut answers = memo.0.borrow_mut();
    if !answers.iter().any(|(k, _)| *k == key) {
        answers.push((key, Kept::Bytes(bytes.to_vec())));
    }
    let stoplists = doc.derived(|_| OwnStoplists::default());
    let mut stoplists = stoplists.0.borrow_mut();
    if !stoplists.iter().any(|(k, _)| *k == own) {
        let language = if name.is_empty() { "none" } else { name };
        stoplists.push((own, Some(stoplist_for(Some(language), ""))));
    }
    true
}

/// The answer's key and the trailer (the own stoplist's key and language name) of
/// [`encoded_answer`]'s bytes when their format and length are right.
fn header(bytes: &[u8]) -> Option<(u64, (u64, &[u8]))> {
    let (&format, rest) = bytes.split_first()?;
    if format != FORMAT || rest.len() < 17 {
        return None;
    }
    let n = u32::from_le_bytes(rest[8..12].try_into().ok()?) as usize;
    let trailer = rest.get(17 + n.checked_mul(BLOCK_BYTES)?..)?;
    let own = u64::from_le_bytes(trailer.get(..8)?.try_into().ok()?);
    let (&len, name) = trailer[8..].split_first()?;
    (name.len() == usize::from(len)).then(|| (u64::from_le_bytes(rest[..8].try_into().expect("8 bytes")), (own, name)))
}

/// Format version of [`encode`]'s bytes (their first byte).
const FORMAT: u8 = 5;

/// Bytes per block in [`encode`]: four labels, flags, stage, votes, two probabilities.
const BLOCK_BYTES: usize = 15;

/// The answer as bytes: [`FORMAT`], the key (u64), the block count (u32), the threshold (f32),
/// whether it gave way (u8), then [`BLOCK_BYTES`] per block; little-endian, floats by their
/// bits, so an answer read back is the one computed. [`encoded_answer`] appends a trailer:
/// the own stoplist's key (u64), its language name's length (u8) and the name.
fn encode(key: u64, page: &PageAnswer) -> Vec<u8> {
    let a = &page.answer;
    let n = a.labels.len();
    let mut out = Vec::with_capacity(18 + n * BLOCK_BYTES);
    out.push(FORMAT);
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&(n as u32).to_le_bytes());
    out.extend_from_slice(&a.threshold.to_bits().to_le_bytes());
    out.push(u8::from(a.gave_way));
    for i in 0..n {
        let d = a.decisions[i];
        for label in [page.justext[i], page.boilerpipe[i], page.stadynot[i], a.labels[i]] {
            out.push(label_byte(label));
        }
        let flags = u8::from(page.never_main[i])
            | u8::from(a.comments[i]) << 1
            | u8::from(d.kept) << 2
            | u8::from(d.probability.is_some()) << 3
            | u8::from(d.votes.is_some()) << 4;
        out.push(flags);
        out.push(Stage::ALL.iter().position(|s| *s == d.stage).unwrap_or(0) as u8);
        out.push(d.votes.unwrap_or(0));
        out.extend_from_slice(&a.probabilities[i].to_bits().to_le_bytes());
        out.extend_from_slice(&d.probability.unwrap_or(0.0).to_bits().to_le_bytes());
    }
    out
}

/// [`encoded_answer`]'s key and answer; `None` for bytes of another format or length.
fn decode(bytes: &[u8]) -> Option<(u64, PageAnswer)> {
    let (key, _) = header(bytes)?;
    let rest = &bytes[1..];
    let u32_at = |b: &[u8], at: usize| -> Option<u32> { Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?)) };
    let n = u32_at(rest, 8)? as usize;
    let threshold = f32::from_bits(u32_at(rest, 12)?);
    let gave_way = rest[16] != 0;
    let blocks = rest.get(17..17 + n.checked_mul(BLOCK_BYTES)?)?;
    let mut page = PageAnswer {
        justext: Vec::with_capacity(n),
        boilerpipe: Vec::with_capacity(n),
        stadynot: Vec::with_capacity(n),
        never_main: Vec::with_capacity(n),
        answer: CombinerAnswer {
            labels: Vec::with_capacity(n),
            probabilities: Vec::with_capacity(n),
            threshold,
            gave_way,
            comments: Vec::with_capacity(n),
            decisions: Vec::with_capacity(n),
        },
    };
    for b in blocks.chunks_exact(BLOCK_BYTES) {
        page.justext.push(byte_label(b[0])?);
        page.boilerpipe.push(byte_label(b[1])?);
        page.stadynot.push(byte_label(b[2])?);
        page.answer.labels.push(byte_label(b[3])?);
        let flags = b[4];
        page.never_main.push(flags & 1 != 0);
        page.answer.comments.push(flags & 2 != 0);
        page.answer.probabilities.push(f32::from_bits(u32_at(b, 7)?));
        page.answer.decisions.push(BlockDecision {
            kept: flags & 4 != 0,
            stage: *Stage::ALL.get(usize::from(b[5]))?,
            probability: (flags & 8 != 0).then(|| f32::from_bits(u32_at(b, 11).unwrap_or(0))),
            votes: (flags & 16 != 0).then_some(b[6]),
        });
    }
    Some((key, page))
}

fn label_byte(label: Label) -> u8 {
    match label {
        Label::Good => 0,
        Label::NearGood => 1,
        Label::Short => 2,
        Label::Bad => 3,
    }
}

fn byte_label(byte: u8) -> Option<Label> {
    Some(match byte {
        0 => Label::Good,
        1 => Label::NearGood,
        2 => Label::Short,
        3 => Label::Bad,
        _ => return None,
    })
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

    /// A news article of a shared site: its HTML, parsed and segmented; `None` without
    /// `../shared`.
    fn article() -> Option<(String, Document, Vec<Block>)> {
        let path = crate::testdata::shared_path(
            "sites/www.freepressokc.com/okc-council-members-question-wisdom-costco-incentives/index.html",
        )?;
        let html = std::fs::read_to_string(path).expect("the page reads");
        let doc = Document::parse(&html);
        let blocks = segment(&doc);
        Some((html, doc, blocks))
    }

    #[test]
    fn a_page_is_answered_once_per_stoplist_and_model() {
        let Some((html, doc, blocks)) = article() else { return };
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

        // Kept as bytes and put back on the page parsed again: the same answer, bit for bit,
        // without computing it; asked with another stoplist, computed afresh.
        let bytes = encoded_answer(&doc, &blocks, Some("English"), &jt, &sd, model).expect("answer").expect("fixed");
        let again = Document::parse(&html);
        assert!(seed(&again, &bytes));
        // The page's own stoplist comes with it, read back instead of detected.
        assert_eq!(again.derived(|_| OwnStoplists::default()).0.borrow().len(), 1);
        let own = own_stoplist(&again, &segment(&again), Some("English")).expect("fixed");
        assert!(Arc::ptr_eq(&own, &english));
        assert_eq!(again.derived(|_| OwnStoplists::default()).0.borrow().len(), 1, "read, not detected");
        let read = page_answer(&again, &segment(&again), &english, &jt, &sd, model).expect("answer");
        assert_eq!(read.answer, first.answer);
        let bits = |a: &PageAnswer| a.answer.probabilities.iter().map(|p| p.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&read), bits(&first));
        assert_eq!(
            (&read.justext, &read.boilerpipe, &read.stadynot, &read.never_main),
            (&first.justext, &first.boilerpipe, &first.stadynot, &first.never_main)
        );
        assert_eq!(again.derived(|_| Answers::default()).0.borrow().len(), 1, "read, not computed");
        page_answer(&again, &segment(&again), &none, &jt, &sd, model).expect("answer");
        assert_eq!(again.derived(|_| Answers::default()).0.borrow().len(), 2);
        // Bytes of another format or length are left out.
        let fresh = Document::parse(&html);
        assert!(!seed(&fresh, &bytes[..bytes.len() - 1]));
        assert!(!seed(&fresh, &[]));
        let mut other_format = bytes.clone();
        other_format[0] = FORMAT + 1;
        assert!(!seed(&fresh, &other_format));
        // Bytes of the right shape that do not read (a label byte out of range): computed.
        let mut bad_label = bytes.clone();
        bad_label[18] = 9;
        assert!(seed(&fresh, &bad_label));
        let computed = page_answer(&fresh, &segment(&fresh), &english, &jt, &sd, model).expect("answer");
        assert_eq!(computed.answer, first.answer);
        assert_eq!(fresh.derived(|_| Answers::default()).0.borrow().len(), 1);
    }

    /// A sample page's bytes carry the stoplist of its detected language: the page parsed
    /// again is labelled with it without detecting again; another setting detects afresh; a
    /// page whose language is not reliable gets no bytes (its host's language will choose).
    #[test]
    fn the_own_stoplist_travels_with_the_answer() {
        let Some((html, doc, blocks)) = article() else { return };
        let model = shipped().expect("shipped model");
        let (jt, sd) = (JusTextParams::default(), StaDyNoTParams::default());
        let detected = own_stoplist(&doc, &blocks, None).expect("an English article is reliable");
        assert_eq!(detected.language.as_deref(), Some("English"));
        let bytes = encoded_answer(&doc, &blocks, None, &jt, &sd, model).expect("answer").expect("reliable");
        let again = Document::parse(&html);
        assert!(seed(&again, &bytes));
        let blocks_again = segment(&again);
        assert!(Arc::ptr_eq(&own_stoplist(&again, &blocks_again, None).expect("carried"), &detected));
        assert_eq!(again.derived(|_| OwnStoplists::default()).0.borrow().len(), 1, "read, not detected");
        let german = own_stoplist(&again, &blocks_again, Some("German")).expect("fixed");
        assert_eq!(german.language.as_deref(), Some("German"));
        assert_eq!(again.derived(|_| OwnStoplists::default()).0.borrow().len(), 2);
        // The answer under the carried stoplist is the one computed on the first parse.
        let first = page_answer(&doc, &blocks, &detected, &jt, &sd, model).expect("answer");
        let read = page_answer(&again, &blocks_again, &detected, &jt, &sd, model).expect("answer");
        assert_eq!(read.answer, first.answer);
        // Too little text to tell the language: no bytes.
        let stub = Document::parse("<html><body><p>OK</p></body></html>");
        assert!(encoded_answer(&stub, &segment(&stub), None, &jt, &sd, model).expect("answer").is_none());
        // A trailer cut short is another length: left out.
        let fresh = Document::parse(&html);
        assert!(!seed(&fresh, &bytes[..bytes.len() - 2]));
    }
}
