//! The combiner's block features: per block, every cheap extractor's label, what the page's
//! markup says about the block's element ([`ContentRoot`]), the block's own text statistics and
//! the same for its neighbours, whether its text is repeated on the page or inside a longer
//! block (a pull quote), and how much of it is in the article text the page states in JSON-LD
//! ([`Document::ld_article_body`]). The principal function is [`block_features`]; the columns
//! are named in [`FEATURE_NAMES`], all finite and roughly in 0–1 or a logarithm of a count.

use crate::extract::content_root::{class_words, ContentRoot};
use crate::extract::justext::stopword_density;
use crate::extract::stoplist::Stoplist;
use crate::html::Document;
use crate::model::{Block, Label, ParagraphKind};
use rustc_hash::FxHashMap as HashMap;

/// The names of the feature columns, in order ([`block_features`] fills them).
pub const FEATURE_NAMES: &[&str] = &[
    "justext_good",
    "justext_cf_good",
    "justext_cf_near_good",
    "justext_cf_short",
    "boilerpipe_good",
    "stadynot_good",
    "bte_good",
    "votes",
    "refined_good",
    "in_boilerplate",
    "in_root",
    "in_marked_content",
    "log_words",
    "link_density",
    "heading",
    "list_item",
    "in_list_or_table",
    "stopword_density",
    "ends_sentence",
    "digit_share",
    "position",
    "words_before",
    "log_blocks",
    "log_page_words",
    "refined_share",
    "path_depth",
    "prev_refined",
    "next_refined",
    "prev_justext",
    "next_justext",
    "window_refined",
    "prev_link_density",
    "next_link_density",
    "log_gap_to_refined",
    "path_p",
    "path_pre",
    "path_blockquote",
    "path_td",
    "path_li",
    "path_form",
    "mean_word_chars",
    "upper_start",
    "path_mates_refined",
    "log_path_mates",
    "comma_density",
    "before_refined",
    "after_refined",
    "title_overlap",
    "window_boilerpipe",
    "window_stadynot",
    "section_link_density",
    "section_refined",
    "following_link_density",
    "log_same_text",
    "repeat_of_earlier",
    "ld_body_match",
    "has_ld_body",
    "in_longer_before",
    "in_longer_after",
];

/// Class/id words looked for on the block's element and its nearest [`CLASS_DEPTH`]
/// ancestors, one column each (`class_<word>`), after [`FEATURE_NAMES`].
pub const CLASS_WORDS: &[&str] = &[
    "header",
    "footer",
    "nav",
    "menu",
    "sidebar",
    "widget",
    "comment",
    "comments",
    "related",
    "share",
    "social",
    "title",
    "date",
    "time",
    "byline",
    "author",
    "caption",
    "tag",
    "tags",
    "breadcrumb",
    "copyright",
    "ad",
    "ads",
    "promo",
    "newsletter",
    "subscribe",
    "article",
    "content",
    "post",
    "entry",
    "body",
    "text",
    "main",
    "story",
    "meta",
    "card",
    "teaser",
    "list",
    "item",
    "summary",
    "description",
    "product",
    "price",
    "review",
    "hidden",
    "footnote",
    "toc",
    "note",
    "info",
    "sponsored",
    "links",
    "button",
    "btn",
    "label",
    "lead",
    "intro",
    "headline",
];

const _: () = assert!(CLASS_WORDS.len() <= 64, "class words are bits of a u64");

/// Element names looked for on the block's DOM path, one column each (`path_<tag>`), after
/// [`CLASS_WORDS`].
pub const PATH_TAGS: &[&str] =
    &["header", "footer", "nav", "aside", "article", "main", "section", "table", "ul", "ol", "h1", "figure", "dl"];

/// How many ancestors of the block's element are read for [`CLASS_WORDS`] (at most 64 words:
/// they are bits of a `u64`).
pub const CLASS_DEPTH: usize = 6;

/// Element names of the DOM path that the named path columns of [`FEATURE_NAMES`] read
/// (`in_list_or_table`, `path_p`, `path_pre`, …): bits 32 and up of [`path_bits`].
const NAMED_PATH_TAGS: &[&str] =
    &["li", "dd", "dt", "td", "th", "p", "pre", "code", "blockquote", "form", "select", "button", "label", "input"];

const _: () = assert!(PATH_TAGS.len() <= 32 && NAMED_PATH_TAGS.len() <= 32, "path tags are bits of a u64");

/// The element names of `dom_path` (names joined by `.`) that the features read, as bits:
/// [`PATH_TAGS`]`[k]` is bit `k`, [`NAMED_PATH_TAGS`]`[k]` bit `32 + k`; and the number of
/// names on the path. Computed once per distinct path of a page.
fn path_bits(dom_path: &str) -> (u64, usize) {
    let mut bits = 0u64;
    let mut names = 0;
    for name in dom_path.split('.') {
        names += 1;
        if let Some(k) = PATH_TAGS.iter().position(|t| *t == name) {
            bits |= 1 << k;
        }
        if let Some(k) = NAMED_PATH_TAGS.iter().position(|t| *t == name) {
            bits |= 1 << (32 + k);
        }
    }
    (bits, names)
}

/// The [`path_bits`] mask of `tags`, each one of [`NAMED_PATH_TAGS`].
fn named_mask(tags: &[&str]) -> u64 {
    tags.iter().fold(0, |mask, tag| {
        let k = NAMED_PATH_TAGS.iter().position(|t| t == tag).expect("a named path tag");
        mask | 1 << (32 + k)
    })
}

/// Number of columns of [`FEATURE_NAMES`].
const NAMED: usize = FEATURE_NAMES.len();

/// Number of feature columns: [`FEATURE_NAMES`], then [`CLASS_WORDS`], then [`PATH_TAGS`].
pub const FEATURES: usize = NAMED + CLASS_WORDS.len() + PATH_TAGS.len();

/// Every column's name.
pub fn column_names() -> Vec<String> {
    FEATURE_NAMES
        .iter()
        .map(|n| n.to_string())
        .chain(CLASS_WORDS.iter().map(|w| format!("class_{w}")))
        .chain(PATH_TAGS.iter().map(|t| format!("path_{t}")))
        .collect()
}

/// The labels the features read, one list per extractor, each one label per block.
#[derive(Debug, Clone, Copy)]
pub struct Votes<'a> {
    /// jusText after its context pass (Good or Bad).
    pub justext: &'a [Label],
    /// jusText's context-free classes.
    pub justext_cf: &'a [Label],
    /// Boilerpipe ArticleExtractor.
    pub boilerpipe: &'a [Label],
    /// StaDyNoT without a site model (dynamic noise).
    pub stadynot: &'a [Label],
    /// BTE.
    pub bte: &'a [Label],
    /// The default's rule-based labels ([`crate::extract::content_root::refine`]).
    pub refined: &'a [Label],
}

fn flag(b: bool) -> f32 {
    if b {
        1.0
    } else {
        0.0
    }
}

fn ln1p(x: usize) -> f32 {
    (x as f32).ln_1p()
}

/// Mean of `good` over blocks `i - r ..= i + r` (the block itself included).
fn window(labels: &[Label], i: usize, r: usize) -> f32 {
    let lo = i.saturating_sub(r);
    let hi = (i + r + 1).min(labels.len());
    let n = hi - lo;
    labels[lo..hi].iter().filter(|l| l.is_good()).count() as f32 / n.max(1) as f32
}

/// Bit `k` set when [`CLASS_WORDS`]`[k]` is a class/id word of the block's element or of one
/// of its nearest [`CLASS_DEPTH`] ancestors; each element's own bits are computed once per
/// page (`cache`).
fn ancestor_class_bits(doc: &Document, b: &Block, cache: &mut HashMap<ego_tree::NodeId, u64>) -> u64 {
    let mut bits = 0u64;
    let mut node = doc.html.tree.get(b.element);
    let mut depth = 0;
    while let Some(n) = node {
        if depth > CLASS_DEPTH {
            break;
        }
        if let scraper::Node::Element(el) = n.value() {
            bits |= *cache.entry(n.id()).or_insert_with(|| {
                class_words(el)
                    .all()
                    .filter_map(|w| CLASS_WORDS.iter().position(|c| *c == w))
                    .fold(0u64, |acc, k| acc | (1 << k))
            });
            depth += 1;
        }
        node = n.parent();
    }
    bits
}

/// The alphanumeric words of `text`, as written.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())
}

/// Lower-case alphanumeric words of `text`.
fn word_set(text: &str) -> Vec<String> {
    words(text).map(str::to_lowercase).collect()
}

/// Hashes of the word bigrams of `words` (a single word is its own bigram).
fn bigrams(words: &[String]) -> impl Iterator<Item = u64> + '_ {
    use std::hash::{Hash, Hasher};
    let hash = |a: &str, b: &str| {
        let mut h = rustc_hash::FxHasher::default();
        (a, b).hash(&mut h);
        h.finish()
    };
    let single = (words.len() == 1).then(|| hash(&words[0], ""));
    words.windows(2).map(move |w| hash(&w[0], &w[1])).chain(single)
}

/// Blocks with fewer words than this get 0.0 from [`contained_in_longer`].
const CONTAINED_MIN_WORDS: usize = 4;
/// A word trigram in more blocks than this is too common to tell where a block's text came
/// from; [`contained_in_longer`] skips it.
const CONTAINED_MAX_BLOCKS: usize = 16;

/// Per block, the largest share of its word trigrams that one longer block holds, among the
/// blocks before it and among those after it: a pull quote or a teaser repeats a stretch of a
/// paragraph, and a quoting reply holds the post it quotes. Blocks under
/// [`CONTAINED_MIN_WORDS`] words get `(0.0, 0.0)`.
fn contained_in_longer(blocks: &[Block]) -> Vec<(f32, f32)> {
    use std::hash::{Hash, Hasher};
    // FxHash-style mixing of the lower-cased characters of one word.
    let word_hash = |w: &str| {
        let mix = |h: u64, c: u32| (h.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        if w.is_ascii() {
            w.bytes().fold(0, |h, b| mix(h, u32::from(b.to_ascii_lowercase())))
        } else {
            w.chars().flat_map(char::to_lowercase).fold(0, |h, c| mix(h, u32::from(c)))
        }
    };
    // (trigram hash, block) for every trigram of every block long enough to be looked up.
    let mut pairs: Vec<(u64, u32)> = Vec::new();
    let mut hashes = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if b.words < CONTAINED_MIN_WORDS {
            continue;
        }
        hashes.clear();
        hashes.extend(words(&b.text).map(word_hash));
        pairs.extend(hashes.windows(3).map(|w| {
            let mut h = rustc_hash::FxHasher::default();
            w.hash(&mut h);
            (h.finish(), i as u32)
        }));
    }
    // Sorted and deduplicated: each block's distinct trigrams, grouped by trigram.
    pairs.sort_unstable();
    pairs.dedup();
    let mut grams_of = vec![0usize; blocks.len()];
    for &(_, i) in &pairs {
        grams_of[i as usize] += 1;
    }
    // Trigrams shared by (shorter block, longer block), counted over the rarer trigrams.
    let mut shared: HashMap<(u32, u32), u32> = HashMap::default();
    for group in pairs.chunk_by(|x, y| x.0 == y.0) {
        if group.len() < 2 || group.len() > CONTAINED_MAX_BLOCKS {
            continue;
        }
        for &(_, i) in group {
            for &(_, j) in group {
                if blocks[j as usize].words > blocks[i as usize].words {
                    *shared.entry((i, j)).or_default() += 1;
                }
            }
        }
    }
    let mut out = vec![(0.0f32, 0.0f32); blocks.len()];
    for (&(i, j), &count) in &shared {
        let share = count as f32 / grams_of[i as usize].max(1) as f32;
        let slot = &mut out[i as usize];
        if j < i {
            slot.0 = slot.0.max(share);
        } else {
            slot.1 = slot.1.max(share);
        }
    }
    out
}

/// How many blocks after a block [`following_link_density`] reads.
const FOLLOWING: usize = 6;

/// Per block, its section's character-weighted link density and the share of the section's
/// words the rules keep; a section runs from a heading block to the block before the next
/// heading (the blocks before the first heading are one section too).
fn section_stats(blocks: &[Block], refined: &[Label]) -> Vec<(f32, f32)> {
    let mut out = vec![(0.0, 0.0); blocks.len()];
    let mut start = 0;
    for end in 1..=blocks.len() {
        if end < blocks.len() && !blocks[end].heading {
            continue;
        }
        let part = &blocks[start..end];
        let chars: usize = part.iter().map(|b| b.chars).sum();
        let links: usize = part.iter().map(|b| b.link_chars).sum();
        let words: usize = part.iter().map(|b| b.words).sum();
        let kept: usize =
            part.iter().zip(&refined[start..end]).filter(|(_, l)| l.is_good()).map(|(b, _)| b.words).sum();
        let stats = (links as f32 / chars.max(1) as f32, kept as f32 / words.max(1) as f32);
        out[start..end].fill(stats);
        start = end;
    }
    out
}

/// Per block, the character-weighted link density of the next `k` blocks (0.0 for the last).
fn following_link_density(blocks: &[Block], k: usize) -> Vec<f32> {
    (0..blocks.len())
        .map(|i| {
            let next = &blocks[(i + 1).min(blocks.len())..(i + 1 + k).min(blocks.len())];
            let chars: usize = next.iter().map(|b| b.chars).sum();
            next.iter().map(|b| b.link_chars).sum::<usize>() as f32 / chars.max(1) as f32
        })
        .collect()
}

/// One row of [`FEATURES`] values per block of `doc`, `blocks.len() × FEATURES` row-major.
/// `root` is the content root the rule-based labels were found with; `votes` the extractors'
/// labels (each of `blocks.len()`).
pub fn block_features(
    doc: &Document,
    blocks: &[Block],
    stoplist: &Stoplist,
    votes: &Votes<'_>,
    root: &ContentRoot,
) -> Vec<f32> {
    let n = blocks.len();
    let mut out = Vec::with_capacity(n * FEATURES);
    let page_words: usize = blocks.iter().map(|b| b.words).sum();
    let refined_words: usize =
        blocks.iter().zip(votes.refined).filter(|(_, l)| l.is_good()).map(|(b, _)| b.words).sum();
    let first_refined = votes.refined.iter().position(|l| l.is_good());
    let last_refined = votes.refined.iter().rposition(|l| l.is_good());
    // Distance in blocks to the nearest refined-good block, both directions.
    let mut gap = vec![n; n];
    let mut last = None;
    for (i, (g, label)) in gap.iter_mut().zip(votes.refined).enumerate() {
        if label.is_good() {
            last = Some(i);
        }
        if let Some(l) = last {
            *g = i - l;
        }
    }
    last = None;
    for i in (0..n).rev() {
        if votes.refined[i].is_good() {
            last = Some(i);
        }
        if let Some(l) = last {
            gap[i] = gap[i].min(l - i);
        }
    }
    // Blocks sharing a DOM path, and how many of their words the rules keep.
    let mut mates: HashMap<&str, (usize, usize, usize)> = HashMap::default();
    // The path features of each distinct DOM path ([`path_bits`]).
    let mut paths: HashMap<&str, (u64, usize)> = HashMap::default();
    for (b, l) in blocks.iter().zip(votes.refined) {
        paths.entry(b.dom_path.as_str()).or_insert_with(|| path_bits(&b.dom_path));
        let e = mates.entry(b.dom_path.as_str()).or_default();
        e.0 += 1;
        e.1 += b.words;
        if l.is_good() {
            e.2 += b.words;
        }
    }
    // Blocks with the same text on the page, and whether an earlier block has it.
    let mut same: HashMap<&str, usize> = HashMap::default();
    for b in blocks {
        *same.entry(b.text.as_str()).or_default() += 1;
    }
    let mut seen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    // The word bigrams (and single words, for one-word blocks) of the page's JSON-LD articleBody.
    let ld_body: Option<rustc_hash::FxHashSet<u64>> = doc.ld_article_body.as_deref().map(|body| {
        let words = word_set(body);
        bigrams(&words).chain(words.chunks(1).flat_map(bigrams)).collect()
    });
    let sections = section_stats(blocks, votes.refined);
    let following = following_link_density(blocks, FOLLOWING);
    let contained = contained_in_longer(blocks);
    let title: Vec<String> = doc.title.as_deref().map(word_set).unwrap_or_default();
    let mut before = 0usize;
    let mut class_cache = HashMap::default();
    // The named path columns' element names, as masks of path_bits.
    let in_list_or_table = named_mask(&["li", "dd", "dt", "td", "th"]);
    let (in_p, in_pre, in_quote) = (named_mask(&["p"]), named_mask(&["pre", "code"]), named_mask(&["blockquote"]));
    let (in_cell, in_li) = (named_mask(&["td", "th"]), named_mask(&["li"]));
    let in_form = named_mask(&["form", "select", "button", "label", "input"]);
    for (i, b) in blocks.iter().enumerate() {
        let good =
            |labels: &[Label], j: Option<usize>| flag(j.and_then(|j| labels.get(j)).is_some_and(|l| l.is_good()));
        let (prev, next) = (i.checked_sub(1), Some(i + 1));
        let ld = |j: Option<usize>| j.and_then(|j| blocks.get(j)).map_or(0.0, |b| b.link_density() as f32);
        let (path, path_names) = paths[b.dom_path.as_str()];
        let path_has = |mask: u64| flag(path & mask != 0);
        let chars = b.chars.max(1) as f32;
        let (mut digits, mut commas) = (0usize, 0usize);
        for c in b.text.chars() {
            digits += usize::from(c.is_ascii_digit());
            commas += usize::from(matches!(c, ',' | '、' | '，'));
        }
        let (digits, commas) = (digits as f32, commas as f32);
        let last_char = b.text.chars().last().unwrap_or(' ');
        let (m_blocks, m_words, m_kept) = mates.get(b.dom_path.as_str()).copied().unwrap_or((1, 0, 0));
        // The block's lower-cased words, for the title and JSON-LD columns (once per block).
        let block_words =
            if (!title.is_empty() && b.words > 0) || ld_body.is_some() { word_set(&b.text) } else { Vec::new() };
        let overlap = if title.is_empty() || b.words == 0 {
            0.0
        } else {
            block_words.iter().filter(|w| title.contains(w)).count() as f32 / block_words.len().max(1) as f32
        };
        let row: [f32; NAMED] = [
            flag(votes.justext[i].is_good()),
            flag(votes.justext_cf[i] == Label::Good),
            flag(votes.justext_cf[i] == Label::NearGood),
            flag(votes.justext_cf[i] == Label::Short),
            flag(votes.boilerpipe[i].is_good()),
            flag(votes.stadynot[i].is_good()),
            flag(votes.bte[i].is_good()),
            [votes.justext[i], votes.boilerpipe[i], votes.stadynot[i]].iter().filter(|l| l.is_good()).count() as f32
                / 3.0,
            flag(votes.refined[i].is_good()),
            flag(root.in_boilerplate(i)),
            flag(root.in_root(i)),
            flag(root.in_marked_content(i)),
            ln1p(b.words),
            b.link_density() as f32,
            flag(b.heading),
            flag(b.kind == ParagraphKind::ListItem),
            path_has(in_list_or_table),
            stopword_density(&b.text, stoplist) as f32,
            flag(matches!(last_char, '.' | '!' | '?' | '。' | '！' | '？' | '"' | '”' | ':' | ';' | ')')),
            digits / chars,
            i as f32 / n.max(1) as f32,
            before as f32 / page_words.max(1) as f32,
            ln1p(n),
            ln1p(page_words),
            refined_words as f32 / page_words.max(1) as f32,
            path_names as f32 / 20.0,
            good(votes.refined, prev),
            good(votes.refined, next),
            good(votes.justext, prev),
            good(votes.justext, next),
            window(votes.refined, i, 3),
            ld(prev),
            ld(next),
            ln1p(gap[i]),
            path_has(in_p),
            path_has(in_pre),
            path_has(in_quote),
            path_has(in_cell),
            path_has(in_li),
            path_has(in_form),
            (chars / b.words.max(1) as f32).min(30.0) / 10.0,
            flag(b.text.chars().next().is_some_and(char::is_uppercase)),
            m_kept as f32 / m_words.max(1) as f32,
            ln1p(m_blocks),
            commas / b.words.max(1) as f32,
            flag(first_refined.is_some_and(|f| i < f)),
            flag(last_refined.is_some_and(|l| i > l)),
            overlap,
            window(votes.boilerpipe, i, 3),
            window(votes.stadynot, i, 3),
            sections[i].0,
            sections[i].1,
            following[i],
            ln1p(same.get(b.text.as_str()).copied().unwrap_or(1) - 1),
            flag(!seen.insert(b.text.as_str())),
            ld_body.as_ref().map_or(0.0, |set| {
                let grams: Vec<u64> = bigrams(&block_words).collect();
                grams.iter().filter(|g| set.contains(g)).count() as f32 / grams.len().max(1) as f32
            }),
            flag(ld_body.is_some()),
            contained[i].0,
            contained[i].1,
        ];
        out.extend(row.iter().map(|v| if v.is_finite() { *v } else { 0.0 }));
        let bits = ancestor_class_bits(doc, b, &mut class_cache);
        out.extend((0..CLASS_WORDS.len()).map(|k| flag(bits & (1 << k) != 0)));
        out.extend((0..PATH_TAGS.len()).map(|k| flag(path & (1 << k) != 0)));
        before += b.words;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::stoplist::{language_sample, stoplist_for};
    use crate::html::segment;

    /// The feature rows of `html`, one map from column name to value per block, with the text.
    fn rows(html: &str) -> Vec<(String, HashMap<String, f32>)> {
        let doc = Document::parse(html);
        let blocks = segment(&doc);
        let stoplist = stoplist_for(None, &language_sample(&blocks));
        let inp = crate::extract::combiner::inputs(&doc, &blocks, &stoplist, &Default::default(), &Default::default())
            .expect("inputs");
        let names = column_names();
        blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let row = &inp.features[i * FEATURES..(i + 1) * FEATURES];
                (b.text.clone(), names.iter().cloned().zip(row.iter().copied()).collect())
            })
            .collect()
    }

    #[test]
    fn the_path_columns_read_each_name_of_the_path_once() {
        let (bits, names) = path_bits("html.body.article.ul.li.p");
        assert_eq!(names, 6);
        let article = PATH_TAGS.iter().position(|t| *t == "article").unwrap();
        let ul = PATH_TAGS.iter().position(|t| *t == "ul").unwrap();
        assert_eq!(bits & 0xffff_ffff, 1 << article | 1 << ul, "PATH_TAGS bits");
        assert_eq!(bits >> 32 << 32, named_mask(&["li", "p"]), "named bits");
        assert_ne!(bits & named_mask(&["li", "dd", "dt", "td", "th"]), 0);
        assert_eq!(bits & named_mask(&["pre", "code"]), 0);
        assert_eq!(path_bits(""), (0, 1), "an empty path is one (empty) name, as split counts it");
    }

    #[test]
    fn repeated_text_is_counted_and_marked_after_its_first_block() {
        let html = "<html><body><p>Advertisement</p><p>The council met on Tuesday to vote on the budget.</p>\
                    <p>Advertisement</p><p>It passed by seven votes to two after a long debate.</p>\
                    <p>Advertisement</p></body></html>";
        let rows = rows(html);
        let ads: Vec<_> = rows.iter().filter(|(t, _)| t == "Advertisement").map(|(_, r)| r).collect();
        assert_eq!(ads.len(), 3);
        for ad in &ads {
            assert!((ad["log_same_text"] - 2f32.ln_1p()).abs() < 1e-6, "{}", ad["log_same_text"]);
        }
        let later: Vec<f32> = ads.iter().map(|r| r["repeat_of_earlier"]).collect();
        assert_eq!(later, vec![0.0, 1.0, 1.0]);
        let unique = rows.iter().find(|(t, _)| t.starts_with("The council")).expect("paragraph").1.clone();
        assert_eq!((unique["log_same_text"], unique["repeat_of_earlier"]), (0.0, 0.0));
    }

    #[test]
    fn a_pull_quote_is_found_inside_the_longer_paragraph_it_repeats() {
        let html = "<html><body><p>The council met on Tuesday to vote on the budget for the coming year.</p>\
                    <blockquote><p>Just because it is digital does not mean it always works</p></blockquote>\
                    <p>Others were less sure. \"Just because it is digital does not mean it always works,\" \
                    said one member of the committee, who voted against it.</p></body></html>";
        let rows = rows(html);
        let quote = &rows.iter().find(|(t, _)| t.starts_with("Just because")).expect("quote").1;
        assert_eq!((quote["in_longer_before"], quote["in_longer_after"]), (0.0, 1.0));
        for (text, row) in rows.iter().filter(|(t, _)| !t.starts_with("Just because")) {
            assert_eq!((row["in_longer_before"], row["in_longer_after"]), (0.0, 0.0), "{text}");
        }
    }

    #[test]
    fn blocks_are_matched_against_the_json_ld_article_body() {
        let story = "The council met on Tuesday to vote on the new budget for the coming year, \
                     and after a long debate it passed by seven votes to two with one abstention";
        let html = format!(
            r#"<html><head><script type="application/ld+json">{{"@type":"NewsArticle","articleBody":"{story}"}}</script>
            </head><body><p>Sign up for our newsletter to get the budget news first</p><p>{story}</p></body></html>"#
        );
        let rows = rows(&html);
        let (promo, article) = (&rows[0].1, &rows[1].1);
        assert_eq!((article["ld_body_match"], article["has_ld_body"]), (1.0, 1.0));
        assert!(promo["ld_body_match"] < 0.2 && promo["has_ld_body"] == 1.0, "{}", promo["ld_body_match"]);
        let plain = rows_without_ld(story);
        assert_eq!((plain["ld_body_match"], plain["has_ld_body"]), (0.0, 0.0));
    }

    fn rows_without_ld(story: &str) -> HashMap<String, f32> {
        rows(&format!("<html><body><p>{story}</p></body></html>")).remove(0).1
    }
}
