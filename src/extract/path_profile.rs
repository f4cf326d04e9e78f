//! The host's path profile: for each element path of a host's template, on how many of its
//! sample pages a text block sits there and on how many of them the unlearned default kept that
//! block's words. The principal items are [`PathProfile`] (learned by [`PathProfile::learn`]
//! with the rest of a host's model, [`mod@crate::domain::learn`]) and [`path_keys`] (one key per
//! block of a page).
//!
//! It is the consensus of the host's pages about one place of its template: the body of the
//! article is kept on most pages, the buy box, the teaser rail or the byline line on few. A page
//! whose own decision about a block disagrees with its host's other pages is judged with that
//! evidence by the host-evidence model (the columns `path_share` and `path_kept`,
//! [`crate::extract::host_evidence`]) instead of on its own. The idea of reading a template
//! position across a site's pages is StaDyNoT's (Barua, Patel & Agrawal 2014, §3.1), which keys
//! elements by their text; here they are keyed by where they sit and judged by what the
//! page-level extraction did with them.
//!
//! A path key is xxh3 of the block element's ancestor chain from the root: the tag names of the
//! whole chain, and for the block element and its nearest [`NAMED_ANCESTORS`] ancestors also the
//! `id` and the sorted classes, ASCII digits removed (`post-1234` and `post-98` are one class).
//! The classes of elements nearer the root are left out: CMSes name the page there (a `body`
//! class of the post's slug, an `article`'s category and tag classes), while the elements around
//! the text name the template's place. So the same place of the template has the same key on
//! every page of the host, and an article's paragraphs share one key.

use crate::html::Document;
use crate::model::{Block, Label};
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

/// Fewest sample pages a path must be on to enter a profile: a place of the template, not of
/// one page.
pub const MIN_PATH_PAGES: u32 = 2;

/// Ancestors of a block element whose `id` and classes are part of its path key (see the
/// module doc).
pub const NAMED_ANCESTORS: usize = 3;

/// A place of a host's template seen on the sample ([`PathProfile::paths`]): `(key, pages,
/// kept)` — the path key ([`path_keys`]), the sample pages holding a block there and those of
/// them where the unlearned default kept more than half of those blocks' words.
pub type PathStat = (u64, u32, u32);

/// The path profile of a host (see the module doc). Empty (`pages == 0`) for a model learned
/// before profiles existed or from a sample without pages to count.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathProfile {
    /// Sample pages counted (those the unlearned default could label).
    pub pages: u32,
    /// The paths on at least [`MIN_PATH_PAGES`] of them, sorted by key.
    pub paths: Vec<PathStat>,
}

impl PathProfile {
    /// Count the paths of the sample: `pages[i]` is a page's blocks with their path keys
    /// ([`path_keys`]) and the unlearned default's labels (`None`: not labelled, not counted).
    pub fn learn<'a>(pages: impl IntoIterator<Item = (&'a [Block], &'a [u64], Option<&'a [Label]>)>) -> PathProfile {
        let mut counts: std::collections::HashMap<u64, (u32, u32)> = Default::default();
        let mut counted = 0u32;
        for (blocks, keys, labels) in pages {
            let Some(labels) = labels else { continue };
            counted += 1;
            // Per key on this page: words, words kept.
            let mut page: std::collections::HashMap<u64, (usize, usize)> = Default::default();
            for ((b, &k), l) in blocks.iter().zip(keys).zip(labels) {
                let e = page.entry(k).or_default();
                e.0 += b.words.max(1);
                if l.is_good() {
                    e.1 += b.words.max(1);
                }
            }
            for (k, (words, kept)) in page {
                let e = counts.entry(k).or_default();
                e.0 += 1;
                e.1 += u32::from(2 * kept > words);
            }
        }
        let mut paths: Vec<PathStat> =
            counts.into_iter().filter(|(_, (n, _))| *n >= MIN_PATH_PAGES).map(|(k, (n, kept))| (k, n, kept)).collect();
        paths.sort_unstable();
        PathProfile { pages: counted, paths }
    }

    /// True when the profile holds no path.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// `(share of the sample pages holding the path, share of those where it was kept)`, both
    /// in 0–1, or `None` for a path not in the profile.
    pub fn lookup(&self, key: u64) -> Option<(f32, f32)> {
        let i = self.paths.binary_search_by_key(&key, |p| p.0).ok()?;
        let (_, n, kept) = self.paths[i];
        Some((n as f32 / self.pages.max(1) as f32, kept as f32 / n.max(1) as f32))
    }
}

/// One path key per block of `blocks` (segmented from `doc`): xxh3 of the block element's
/// ancestor chain (see the module doc). Computed once per document and list of block
/// elements and kept on `doc` ([`Document::derived`]): a sample page's keys are read by its
/// host's learning and again by its extraction with the learned model.
pub fn path_keys(doc: &Document, blocks: &[Block]) -> Vec<u64> {
    let kept = doc.derived(|_| KeptKeys::default());
    let same = |elements: &[ego_tree::NodeId]| elements.iter().copied().eq(blocks.iter().map(|b| b.element));
    if let Some((_, keys)) = kept.0.borrow().iter().find(|(elements, _)| same(elements)) {
        return keys.clone();
    }
    let mut memo: rustc_hash::FxHashMap<ego_tree::NodeId, u64> = Default::default();
    let keys: Vec<u64> =
        blocks.iter().map(|b| *memo.entry(b.element).or_insert_with(|| element_key(doc, b.element))).collect();
    kept.0.borrow_mut().push((blocks.iter().map(|b| b.element).collect(), keys.clone()));
    keys
}

/// The [`path_keys`] computed on a document, each with the block elements they are of.
#[derive(Default)]
struct KeptKeys(std::cell::RefCell<Vec<(Vec<ego_tree::NodeId>, Vec<u64>)>>);

/// xxh3 of the chain of elements from the root down to `node`.
fn element_key(doc: &Document, node: ego_tree::NodeId) -> u64 {
    let Some(node) = doc.html.tree.get(node) else { return 0 };
    let mut chain: Vec<_> =
        std::iter::once(node).chain(node.ancestors()).filter_map(|n| n.value().as_element()).collect();
    chain.reverse();
    let named_from = chain.len().saturating_sub(NAMED_ANCESTORS + 1);
    let mut h = Xxh3::new();
    let mut classes: Vec<String> = Vec::new();
    for (depth, e) in chain.into_iter().enumerate() {
        h.update(e.name().as_bytes());
        if depth < named_from {
            h.update(b">");
            continue;
        }
        if let Some(id) = e.id() {
            h.update(b"#");
            h.update(without_digits(id).as_bytes());
        }
        classes.clear();
        classes.extend(e.classes().map(without_digits));
        classes.sort_unstable();
        for c in &classes {
            h.update(b".");
            h.update(c.as_bytes());
        }
        h.update(b">");
    }
    h.digest()
}

/// `s` without its ASCII digits.
fn without_digits(s: &str) -> String {
    s.chars().filter(|c| !c.is_ascii_digit()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::segment;

    fn page(html: &str) -> (Document, Vec<Block>) {
        let doc = Document::parse(html);
        let blocks = segment(&doc);
        (doc, blocks)
    }

    #[test]
    fn keys_name_the_place_in_the_template_not_the_page() {
        let (a, ab) = page(
            "<html><body><div id='post-12' class='entry b'><p>One para of the post.</p><p>Two.</p></div>\
             <div class='rail'><p>A teaser.</p></div></body></html>",
        );
        let (b, bb) = page(
            "<html><body><div class='b entry' id='post-977'><p>Another post here.</p></div>\
             <div class='rail'><p>Other teaser.</p></div></body></html>",
        );
        let (ka, kb) = (path_keys(&a, &ab), path_keys(&b, &bb));
        assert_eq!(ka.len(), 3);
        assert_eq!(ka[0], ka[1], "an article's paragraphs share a key");
        assert_eq!(ka[0], kb[0], "digits and class order do not matter");
        assert_eq!(ka[2], kb[1]);
        assert_ne!(ka[0], ka[2]);
    }

    #[test]
    fn profile_counts_pages_and_kept_majorities() {
        let (a, ab) = page(
            "<html><body><article><p>Body text of page one.</p></article><aside><p>Buy now</p></aside></body></html>",
        );
        let (b, bb) = page(
            "<html><body><article><p>Body text of page two.</p></article><aside><p>Buy it</p></aside></body></html>",
        );
        let (c, cb) = page("<html><body><nav><p>Only here</p></nav></body></html>");
        let (ka, kb, kc) = (path_keys(&a, &ab), path_keys(&b, &bb), path_keys(&c, &cb));
        let la = [Label::Good, Label::Bad];
        let lb = [Label::Good, Label::Good];
        let lc = [Label::Good];
        let profile = PathProfile::learn([
            (ab.as_slice(), ka.as_slice(), Some(&la[..])),
            (bb.as_slice(), kb.as_slice(), Some(&lb[..])),
            (cb.as_slice(), kc.as_slice(), Some(&lc[..])),
            (cb.as_slice(), kc.as_slice(), None),
        ]);
        assert_eq!(profile.pages, 3);
        assert_eq!(profile.lookup(ka[0]), Some((2.0 / 3.0, 1.0)));
        assert_eq!(profile.lookup(ka[1]), Some((2.0 / 3.0, 0.5)));
        assert_eq!(profile.lookup(kc[0]), None, "a path of one page is not in the profile");
        let json = serde_json::to_string(&profile).expect("serialise");
        assert_eq!(serde_json::from_str::<PathProfile>(&json).expect("parse"), profile);
    }
}
