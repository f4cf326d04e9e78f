//! The post container the markup names (part of rule 1 of [`super::refine`]): a blog post or
//! news story whose body sits in an element the page calls the post's or article's body
//! (`entry-content`, `post-body`, `article__body`, `hentry`, `itemprop=articleBody`, …) is
//! that element's text. The vote can miss a short post (30–100 words are too few for jusText
//! and StaDyNoT) and keep the page's widgets instead, an about-me box, a blog's description or
//! a subscription box, which outscore it; the page's own mark then decides (trafilatura's
//! `BODY_XPATH`, tried before any scoring). The principal type is [`PostContainer`].

use super::teasers::Paths;
use super::{class_words, ClassWords, MAX_LENIENT_LINK_DENSITY};
use crate::html::Document;
use crate::model::{Block, Label};

/// Class or id names of a post's or article's body: the last word of the name, or its last two
/// words joined (`entry-content`, `td-post-content`, `c-entry-content`, `article__body`,
/// `storyBody`); `hentry` and `h-entry` are the microformats' blog entry, `e-content` its body.
pub const POST_NAMES: &[&str] = &[
    "entrycontent",
    "entrybody",
    "postcontent",
    "postbody",
    "articlebody",
    "articlecontent",
    "storybody",
    "storycontent",
    "hentry",
    "econtent",
];

/// Elements that can be a post container: block containers, not a paragraph marked as the
/// story's first (`<p id="story-body">`).
pub const POST_TAGS: &[&str] = &["div", "section", "article", "main", "td", "span"];

/// The post's region is the container's parent (the post's own element: its excerpt, its
/// date line, an article that goes on past the marked part), or the nearest ancestor holding
/// the page's headline ([`crate::extract::headline::reads_as_headline`]) at most this many
/// levels above the container (`div.post > h2 + div.entry-content`); a post container with
/// no headline so near is no post's (a teaser's `post-content`).
pub const MAX_REGION_LEVELS: usize = 3;

/// The post container must hold at least this many words of text blocks (link density below
/// [`MAX_LENIENT_LINK_DENSITY`], not headings): a post of a sentence or two, not a title.
pub const MIN_POST_WORDS: usize = 10;

/// True when the page names `el` as a post's or article's body ([`POST_NAMES`], or
/// `itemprop=articleBody`). A name with a comment word (`comment-body`, `comment-post-content`)
/// is a comment's.
pub fn is_post_element(el: &scraper::node::Element) -> bool {
    names_post(el, &class_words(el))
}

/// [`is_post_element`] for `el` with its class and id words `words` ([`class_words`]).
pub(super) fn names_post(el: &scraper::node::Element, words: &ClassWords) -> bool {
    if !POST_TAGS.contains(&el.name()) {
        return false;
    }
    if el.attr("itemprop").is_some_and(|p| p.split_whitespace().any(|p| p.eq_ignore_ascii_case("articlebody"))) {
        return true;
    }
    words.names().any(|name| {
        let last = name.last().unwrap_or("");
        // The last two words written as one (`post` `body`: `postbody`).
        let two = |names: &&str| match name.len().checked_sub(2).and_then(|i| name.get(i)) {
            Some(before) => {
                names.len() == before.len() + last.len() && names.starts_with(before) && names.ends_with(last)
            }
            None => false,
        };
        (POST_NAMES.contains(&last) || POST_NAMES.iter().any(two)) && !name.iter().any(super::is_comment_word)
    })
}

/// The page's one post container, when it names exactly one: the [`is_post_element`]
/// elements outside boilerplate, comment sections and consent boxes that hold text are all
/// nested in the outermost of them (two apart are a listing of posts, or a body marked in
/// pieces), it holds [`MIN_POST_WORDS`] words of text, and the page's headline lies in its
/// region ([`MAX_REGION_LEVELS`]). Per block: in the container, in its region, a text block of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostContainer {
    /// Per block: inside the container; empty when the page names none.
    inside: Vec<bool>,
    /// Per block: inside the post's region ([`MAX_REGION_LEVELS`]).
    near: Vec<bool>,
    /// Per block: a text block inside the container (not a heading, link density below
    /// [`MAX_LENIENT_LINK_DENSITY`], outside boilerplate).
    text: Vec<bool>,
}

impl PostContainer {
    /// The post container of `doc` over its block paths; `marked[e]` says the page names
    /// element `e` so ([`is_post_element`]), `excluded[e]` marks the elements in boilerplate,
    /// comment sections or consent boxes (never a post container, and never its text).
    pub fn find(
        doc: &Document,
        blocks: &[Block],
        paths: &Paths<'_>,
        marked: &[bool],
        excluded: &[bool],
    ) -> PostContainer {
        let n = paths.parents.len();
        let is_text = |i: usize, b: &Block| {
            let at = paths.block_node[i];
            at < n && !excluded[at] && !b.heading && b.link_density() < MAX_LENIENT_LINK_DENSITY
        };
        let title = crate::extract::headline::title_words(doc);
        let mut words = vec![0usize; n];
        let mut headline = vec![false; n];
        for (i, b) in blocks.iter().enumerate() {
            let at = paths.block_node[i];
            if is_text(i, b) {
                words[at] += b.words;
            }
            if at < n && !excluded[at] && crate::extract::headline::reads_as_headline(b, &title) {
                headline[at] = true;
            }
        }
        for e in (0..n).rev() {
            if let Some(p) = paths.parents[e] {
                words[p] += words[e];
                headline[p] |= headline[e];
            }
        }
        // The outermost candidates: a candidate with no candidate above it.
        let mut above = vec![false; n];
        let mut outermost = Vec::new();
        for e in 0..n {
            let parent_above = paths.parents[e].is_some_and(|p| above[p]);
            let candidate = marked[e] && !excluded[e] && words[e] > 0;
            if candidate && !parent_above {
                outermost.push(e);
            }
            above[e] = parent_above || candidate;
        }
        let [post] = outermost[..] else { return PostContainer::default() };
        if words[post] < MIN_POST_WORDS {
            return PostContainer::default();
        }
        let mut region = Some(paths.parents[post].unwrap_or(post));
        for _ in 1..MAX_REGION_LEVELS {
            match region {
                Some(r) if !headline[r] => region = paths.parents[r],
                _ => break,
            }
        }
        let Some(region) = region.filter(|&r| headline[r]) else { return PostContainer::default() };
        let under = |top: usize| {
            let mut under = vec![false; n];
            for e in 0..n {
                under[e] = e == top || paths.parents[e].is_some_and(|p| under[p]);
            }
            under
        };
        let (in_post, in_region) = (under(post), under(region));
        let inside: Vec<bool> = paths.block_node.iter().map(|&at| at < n && in_post[at]).collect();
        let near = paths.block_node.iter().map(|&at| at < n && in_region[at]).collect();
        let text = blocks.iter().enumerate().map(|(i, b)| inside[i] && is_text(i, b)).collect();
        PostContainer { inside, near, text }
    }

    /// True when the page names one post container.
    pub fn found(&self) -> bool {
        !self.inside.is_empty()
    }

    /// True when block `i` lies in the post container.
    pub fn holds(&self, i: usize) -> bool {
        self.inside.get(i).copied().unwrap_or(false)
    }

    /// The labels `kept` (one per block) with the post container deciding: when nothing inside
    /// the container is kept, its text blocks are; then every kept block outside the post's
    /// region goes (widgets, a blog's about box, other posts' teasers). Returns per block
    /// whether it went; the labels are unchanged on a page that names no post container.
    pub fn apply(&self, kept: &mut [Label]) -> Vec<bool> {
        let mut dropped = vec![false; kept.len()];
        if !self.found() {
            return dropped;
        }
        let any_inside = kept.iter().enumerate().any(|(i, l)| l.is_good() && self.holds(i));
        if !any_inside {
            for (i, label) in kept.iter_mut().enumerate() {
                if self.text[i] {
                    *label = Label::Good;
                }
            }
        }
        for (i, label) in kept.iter_mut().enumerate() {
            if label.is_good() && !self.near[i] {
                *label = Label::Bad;
                dropped[i] = true;
            }
        }
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{default_text, kept_by_rules as kept};

    const POST: &str = "I have a couple of invites to give away today. If you want one, drop me a short note.";
    const ABOUT: &str = "I am a writer and a reader who lives in a small town by the sea, and this blog is where I keep the notes of everything I read and everything I cook, every single week of the year";

    /// A blog page: the post (a title and a short body) beside an about box that outweighs it.
    fn blog(post_class: &str, title: &str) -> String {
        format!(
            "<html><head><title>Invites to give away</title></head><body>\
             <div id=about><p>{ABOUT}.</p><p>{ABOUT}, and more.</p></div>\
             <div id=posts><div class=post><h2>{title}</h2><div class=\"{post_class}\"><p>{POST}</p></div></div></div>\
             </body></html>"
        )
    }

    #[test]
    fn a_short_post_in_its_named_container_wins_over_the_widgets_around_it() {
        for class in ["entry-content", "post-body", "td-post-content", "article__body", "storyBody"] {
            let kept = kept(&blog(class, "Invites to give away"));
            assert!(kept.iter().any(|t| t.contains("couple of invites")), "{class}: {kept:?}");
            assert!(!kept.iter().any(|t| t.contains("small town")), "{class}: {kept:?}");
        }
        // Microdata names it too.
        let page = blog("x", "Invites to give away").replace("class=\"x\"", "itemprop=articleBody");
        assert!(!kept(&page).iter().any(|t| t.contains("small town")));
    }

    #[test]
    fn without_the_headline_near_it_a_marked_container_decides_nothing() {
        // A teaser's `post-content` whose title is not the page's.
        let kept = kept(&blog("entry-content", "Another story entirely"));
        assert!(kept.iter().any(|t| t.contains("small town")), "{kept:?}");
    }

    #[test]
    fn a_class_that_only_sounds_like_a_post_body_decides_nothing() {
        for class in ["comment-body", "post-text", "pagecontent"] {
            let kept = kept(&blog(class, "Invites to give away"));
            assert!(kept.iter().any(|t| t.contains("small town")), "{class}: {kept:?}");
        }
        // A paragraph marked as the story's first is no container.
        let page = blog("x", "Invites to give away").replace("<div class=\"x\"><p>", "<div><p id=story-body>");
        assert!(kept(&page).iter().any(|t| t.contains("small town")));
    }

    #[test]
    fn two_post_containers_are_a_listing_and_keep_everything() {
        let page = blog("entry-content", "Invites to give away")
            .replace("</div></div></div>", "</div></div><div class=post><div class=entry-content><p>A second post of the front page, with enough words of its own to stand as a paragraph of text.</p></div></div></div>");
        let kept = kept(&page);
        assert!(kept.iter().any(|t| t.contains("small town")), "{kept:?}");
        assert!(kept.iter().any(|t| t.contains("second post")), "{kept:?}");
    }

    #[test]
    fn the_article_going_on_beside_the_marked_part_stays() {
        let page = blog("entry-content", "Invites to give away").replace(
            "</p></div></div></div>",
            "</p></div><p>The story goes on here, outside the marked body, in its own paragraph.</p></div></div>",
        );
        let kept = kept(&page);
        assert!(kept.iter().any(|t| t.contains("story goes on")), "{kept:?}");
        assert!(!kept.iter().any(|t| t.contains("small town")), "{kept:?}");
    }

    /// Real pages: modern2026-dev 0387 (webpronews.com) loses the newsletter box and the
    /// summary above the post that its `entry-content` leaves out, and keeps the post.
    #[test]
    fn a_real_post_container_drops_the_boxes_around_it() {
        let Some(text) = default_text("modern2026-dev", "0387") else { return };
        assert!(text.contains("this deep dive into the Ars Technica test reveals a field in flux"), "{text}");
        assert!(!text.contains("Email Newsletter is your essential resource"), "{text}");
    }
}
