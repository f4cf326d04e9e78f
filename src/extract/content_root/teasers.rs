//! Lists of other stories recognised by their structure, not their class names (part of rule 1
//! of [`super::refine`]): "more news", "related articles", trending rails and the cards of a
//! front page repeat one shape, card after card, under one parent: a headline link and a short
//! excerpt. The principal function is [`teaser_blocks`].

use crate::html::Document;
use crate::model::{Block, Label};
use ego_tree::NodeId;
use rustc_hash::FxHashMap as HashMap;
use scraper::Node;

/// A list of teasers needs at least this many cards of one shape under one parent.
pub const MIN_CARDS: usize = 3;
/// Elements that are never cards: the rows of a table are records (a list of people with what
/// each did, a price list), not stories.
pub const TABLE_ROWS: &[&str] = &["tr", "td", "th"];
/// The cards must be at least this share of their parent's children of their shape (that
/// hold text): a thread whose short posts look like cards has long ones beside them.
pub const MIN_CARD_SHARE: f64 = 2.0 / 3.0;
/// A card holds at most this many words: a headline and an excerpt, not a section of an
/// article.
pub const MAX_CARD_WORDS: usize = 80;
/// A card's headline: a block with at least this link density and at least
/// [`MIN_HEADLINE_WORDS`] words (a heading with a link of that density counts too).
pub const MIN_HEADLINE_LINK_DENSITY: f64 = 0.8;
/// See [`MIN_HEADLINE_LINK_DENSITY`].
pub const MIN_HEADLINE_WORDS: usize = 3;
/// A card's excerpt: a block of at least this many words ([`MAX_EXCERPT_LINK_DENSITY`]).
pub const MIN_EXCERPT_WORDS: usize = 5;
/// A card's excerpt has a link density below this.
pub const MAX_EXCERPT_LINK_DENSITY: f64 = 0.5;

/// The elements of a page's block paths, parents first (as [`super::ContentRoot`] numbers
/// them): each one's parent index and DOM node, and each block's element index.
pub struct Paths<'a> {
    /// Per element: the index of its parent element, `None` for the topmost.
    pub parents: &'a [Option<usize>],
    /// Per element: its node in the page's DOM.
    pub ids: &'a [NodeId],
    /// Per block: the index of its element (`usize::MAX` for none).
    pub block_node: &'a [usize],
}

/// The kept text outside the lists must hold this many times the kept words inside them for
/// the lists to be boilerplate beside an article ([`TeaserLists::beside_article`]).
pub const ARTICLE_SHARE: f64 = 2.0;

/// What one element holds, summed over its blocks.
#[derive(Debug, Clone, Copy)]
struct Card {
    blocks: usize,
    words: usize,
    /// Index of its first block.
    first: usize,
    /// Index of its first headline link ([`is_headline`]), `usize::MAX` for none.
    headline: usize,
    /// Index of its last excerpt ([`is_excerpt`]), 0 for none.
    excerpt: usize,
}

impl Default for Card {
    fn default() -> Card {
        Card { blocks: 0, words: 0, first: usize::MAX, headline: usize::MAX, excerpt: 0 }
    }
}

impl Card {
    fn add(&mut self, other: &Card) {
        self.blocks += other.blocks;
        self.words += other.words;
        self.first = self.first.min(other.first);
        self.headline = self.headline.min(other.headline);
        self.excerpt = self.excerpt.max(other.excerpt);
    }

    /// A card: two blocks or more, at most [`MAX_CARD_WORDS`] words, a headline link among its
    /// first three blocks and an excerpt after it.
    fn is_card(&self) -> bool {
        self.blocks >= 2
            && self.words <= MAX_CARD_WORDS
            && self.headline != usize::MAX
            && self.headline <= self.first.saturating_add(2)
            && self.excerpt > self.headline
    }
}

/// True when `block` is a headline link: at least [`MIN_HEADLINE_WORDS`] words, link density
/// at least [`MIN_HEADLINE_LINK_DENSITY`], and its first link goes to another page (not a
/// fragment of this one or a script: an accordion's question is no headline).
fn is_headline(doc: &Document, block: &Block) -> bool {
    if block.words < MIN_HEADLINE_WORDS || block.link_density() < MIN_HEADLINE_LINK_DENSITY {
        return false;
    }
    let Some(&text) = block.text_nodes.first() else { return false };
    let mut node = doc.html.tree.get(text);
    while let Some(n) = node {
        if let Node::Element(el) = n.value() {
            if crate::html::is_link(el) {
                let href = el.attr("href").unwrap_or("").trim();
                return !(href.is_empty() || href.starts_with('#') || href.starts_with("javascript:"));
            }
        }
        if n.id() == block.element {
            break;
        }
        node = n.parent();
    }
    // The link is inside the block but not around its first text: count it.
    true
}

/// True when `block` is an excerpt: at least [`MIN_EXCERPT_WORDS`] words and a link density
/// below [`MAX_EXCERPT_LINK_DENSITY`].
fn is_excerpt(block: &Block) -> bool {
    block.words >= MIN_EXCERPT_WORDS && block.link_density() < MAX_EXCERPT_LINK_DENSITY
}

/// One flag per block: inside a card of a teaser list. A card is an element that holds at
/// least two blocks and at most [`MAX_CARD_WORDS`] words, with a headline link among its
/// first three blocks (at least [`MIN_HEADLINE_WORDS`] words, link density at least
/// [`MIN_HEADLINE_LINK_DENSITY`], to another page) and an excerpt after it (at least
/// [`MIN_EXCERPT_WORDS`] words, link density below [`MAX_EXCERPT_LINK_DENSITY`]); a list is
/// [`MIN_CARDS`] or more cards of one shape (tag name and class attribute) among the children
/// of one element, and at least [`MIN_CARD_SHARE`] of its children of that shape; table rows
/// and cells ([`TABLE_ROWS`]) are no cards. Whether the list is boilerplate or the page
/// itself (a blog's front page, a search result) is decided by the caller
/// ([`TeaserLists::beside_article`]). Linear in the elements of `paths`.
pub fn teaser_blocks(doc: &Document, blocks: &[Block], paths: &Paths<'_>) -> Vec<bool> {
    let n = paths.ids.len();
    let mut cards = vec![Card::default(); n];
    for (i, (block, &at)) in blocks.iter().zip(paths.block_node).enumerate() {
        let Some(card) = cards.get_mut(at) else { continue };
        let own = Card {
            blocks: 1,
            words: block.words,
            first: i,
            headline: if is_headline(doc, block) { i } else { usize::MAX },
            excerpt: if is_excerpt(block) { i } else { 0 },
        };
        card.add(&own);
    }
    for i in (0..n).rev() {
        if let Some(p) = paths.parents[i] {
            let c = cards[i];
            cards[p].add(&c);
        }
    }
    // Elements grouped by parent and shape: (every one, the cards among them).
    let mut lists: HashMap<(usize, &str, &str), (usize, Vec<usize>)> = HashMap::default();
    for (i, card) in cards.iter().enumerate() {
        let (Some(parent), Some(node)) = (paths.parents[i], doc.html.tree.get(paths.ids[i])) else { continue };
        let Node::Element(el) = node.value() else { continue };
        if TABLE_ROWS.contains(&el.name()) {
            continue;
        }
        let list = lists.entry((parent, el.name(), el.attr("class").unwrap_or(""))).or_default();
        list.0 += 1;
        if card.is_card() {
            list.1.push(i);
        }
    }
    let mut in_card = vec![false; n];
    let is_list = |(all, cards): &&(usize, Vec<usize>)| {
        cards.len() >= MIN_CARDS && cards.len() as f64 >= MIN_CARD_SHARE * *all as f64
    };
    for (_, members) in lists.values().filter(is_list) {
        for &i in members {
            in_card[i] = true;
        }
    }
    for i in 0..n {
        if let Some(p) = paths.parents[i] {
            in_card[i] |= in_card[p];
        }
    }
    paths.block_node.iter().map(|&at| in_card.get(at).copied().unwrap_or(false)).collect()
}

/// A page's teaser cards ([`teaser_blocks`]) and what [`TeaserLists::beside_article`] needs
/// to tell a list beside an article from a page that is a list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TeaserLists {
    /// Per block: in a card of a teaser list.
    pub cards: Vec<bool>,
    /// Per block: the index of the element around its own element (its paragraph's
    /// container), `usize::MAX` for none.
    pub containers: Vec<usize>,
}

impl TeaserLists {
    /// The lists of `doc` ([`teaser_blocks`]) over its block paths.
    pub fn find(doc: &Document, blocks: &[Block], paths: &Paths<'_>) -> TeaserLists {
        let cards = teaser_blocks(doc, blocks, paths);
        let containers =
            paths.block_node.iter().map(|&at| paths.parents.get(at).copied().flatten().unwrap_or(usize::MAX)).collect();
        TeaserLists { cards, containers }
    }

    /// True when block `i` is in a teaser card.
    pub fn in_card(&self, i: usize) -> bool {
        self.cards.get(i).copied().unwrap_or(false)
    }

    /// The cards that are boilerplate beside an article for the labels `kept` (`words`: each
    /// block's words), one flag per block: all of them when one container holds at least
    /// [`super::COMMENT_ARTICLE_WORDS`] words of kept blocks outside the cards, and at least as
    /// many as the cards keep (the article's paragraphs are siblings; the items of a listing
    /// are not), and the kept blocks outside
    /// the cards hold [`ARTICLE_SHARE`] times the words of the kept blocks inside them; none
    /// otherwise (a page that is mostly lists, a blog's front page, a search result or a
    /// shop's category, keeps them).
    pub fn beside_article(&self, words: &[usize], kept: &[Label]) -> Vec<bool> {
        let (mut inside, mut outside) = (0usize, 0usize);
        let mut per_container: HashMap<usize, usize> = HashMap::default();
        for (i, (&w, label)) in words.iter().zip(kept).enumerate() {
            if !label.is_good() {
                continue;
            }
            if self.in_card(i) {
                inside += w;
            } else {
                outside += w;
                *per_container.entry(self.containers.get(i).copied().unwrap_or(usize::MAX)).or_default() += w;
            }
        }
        let article = per_container.values().max().copied().unwrap_or(0);
        let beside = inside > 0
            && article >= super::COMMENT_ARTICLE_WORDS.max(inside)
            && outside as f64 >= ARTICLE_SHARE * inside as f64;
        if beside {
            self.cards.clone()
        } else {
            vec![false; words.len()]
        }
    }
}

#[cfg(test)]
mod tests {

    const PARA: &str = "This is a long paragraph of real article text that says something about the topic of the page";

    /// An article of ten paragraphs (about 190 words) in its own container.
    fn article() -> String {
        let paras: String = (1..=10).map(|i| format!("<p>{PARA} number {i}.</p>")).collect();
        format!("<div class=body>{paras}</div>")
    }

    /// Four cards of `card(n)` in a `<ul>`.
    fn list(card: impl Fn(usize) -> String) -> String {
        format!("<ul class=more>{}</ul>", (1..=4).map(card).collect::<String>())
    }

    fn teaser(n: usize) -> String {
        format!("<li><h3><a href=/story{n}>The headline of another story {n}</a></h3><p>The first sentence of story {n} as a teaser.</p></li>")
    }

    use super::super::tests::{default_text, kept_by_rules as kept};

    #[test]
    fn a_list_of_other_stories_beside_an_article_goes() {
        let page = format!("<html><body><h1>Title</h1>{}{}</body></html>", article(), list(teaser));
        let kept = kept(&page);
        assert!(kept.iter().any(|t| t.contains("number 10")), "{kept:?}");
        assert!(!kept.iter().any(|t| t.contains("as a teaser")), "{kept:?}");
    }

    #[test]
    fn a_page_that_is_a_list_keeps_it() {
        // A blog's front page: the cards are the page, beside a short introduction.
        let page = format!("<html><body><p>{PARA}.</p>{}</body></html>", list(teaser));
        assert_eq!(kept(&page).iter().filter(|t| t.contains("as a teaser")).count(), 4);
        // Article paragraphs spread over many small containers are no article beside it.
        let spread: String = (1..=6).map(|i| format!("<div><p>{PARA} number {i}.</p></div>")).collect();
        let page = format!("<html><body>{spread}{}</body></html>", list(teaser));
        assert_eq!(kept(&page).iter().filter(|t| t.contains("as a teaser")).count(), 4);
    }

    #[test]
    fn accordions_tables_and_threads_are_no_teaser_lists() {
        let faq = |n: usize| {
            format!("<div class=panel><h4><a href=#answer{n} role=button>What is question number {n} about?</a></h4><p>The answer to question {n} in a sentence of more than ten words, as answers are.</p></div>")
        };
        let row = |n: usize| {
            format!("<tr><td><a href=/person{n}>A person of the list {n}</a></td><td>What person {n} did in this story.</td></tr>")
        };
        let rows = format!("<table>{}</table>", (1..=4).map(row).collect::<String>());
        // A thread: short posts that look like cards beside long ones (over MAX_CARD_WORDS).
        let post = |n: usize| {
            let body = if n % 2 == 0 {
                [PARA; 5].join(" ")
            } else {
                "A short reply of a few words, but more than ten of them all the same.".to_string()
            };
            format!("<div class=post><p><a href=/user{n}>Posted by user {n}</a></p><p>{body}</p></div>")
        };
        let thread = format!("<div class=thread>{}</div>", (1..=6).map(post).collect::<String>());
        for other in [format!("<div class=faq>{}</div>", (1..=4).map(faq).collect::<String>()), rows, thread] {
            let page = format!("<html><body>{}{other}</body></html>", article());
            let kept = kept(&page);
            for text in ["in a sentence", "did in this story", "A short reply"] {
                assert!(!page.contains(text) || kept.iter().any(|t| t.contains(text)), "{text}: {kept:?}");
            }
        }
    }

    /// A real news page (L3S-GN1, tampabays10.com): the "top stories" list of headline links
    /// with excerpts below the article goes, the article stays; a real listing page
    /// (modern2026-dev 2903, stackoverflow.blog's front page) keeps its cards.
    #[test]
    fn real_teaser_lists_go_and_real_listings_stay() {
        let text = default_text;
        let Some(news) = text("l3s-gn1", "29721ba8-332a-436e-87d4-ff3c017bc2ef") else { return };
        assert!(news.contains("A reputed gang member is now in jail in Miami"), "{news}");
        assert!(news.contains("three prior felony convictions"), "{news}");
        assert!(!news.contains("The Bay area was under a tornado watch"), "{news}");
        let Some(listing) = text("modern2026-dev", "2903") else { return };
        assert!(listing.contains("we’ve launched several improvements to AI Assist"), "{listing}");
    }
}
