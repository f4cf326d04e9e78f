//! Comment sections that the markup opens with an empty marker, not a container (part of rule
//! 1 of [`super::refine`]): an anchor or placeholder named for the comments (`<a
//! name="comments"></a>`, `<div id="commentSection"></div>`) followed, in the article's own
//! container, by the comments as plain siblings (`<b>NAME</b><br>TEXT<br><hr>`, one after
//! another), with no element around them that a class word could name. The principal
//! function is [`marked_comment_blocks`].

use super::teasers::Paths;
use super::{is_comment_word, COMMENT_ARTICLE_WORDS};
use crate::html::Document;
use crate::model::Block;
use ego_tree::NodeId;
use rustc_hash::FxHashSet as HashSet;
use scraper::{ElementRef, Node};

/// Words of an id or name that make an empty comment-named element a display, not the start
/// of a section: a comment count (`commentsCount`, `comment_counter`, `comments-number`).
pub const COUNT_WORDS: &[&str] = &["count", "number"];

/// One flag per block: after a comment marker in the marker's own container. A marker is an
/// element without text whose id (or an anchor's `name`) holds an [`is_comment_word`] word
/// and no [`COUNT_WORDS`] word; the blocks after it are those whose text sits in a later
/// sibling of the marker (or in a later sibling's subtree). The first marker of each element
/// on the blocks' paths counts; a marker counts only below an article: on a page of at least
/// twice [`COMMENT_ARTICLE_WORDS`] voted words, at least [`COMMENT_ARTICLE_WORDS`] of them in
/// its container before it (a page that is all comments is a thread, and keeps them).
pub fn marked_comment_blocks(doc: &Document, blocks: &[Block], voted: &[bool], paths: &Paths<'_>) -> Vec<bool> {
    let mut flags = vec![false; blocks.len()];
    let voted_words: usize = blocks.iter().zip(voted).filter(|(_, &v)| v).map(|(b, _)| b.words).sum();
    if voted_words < 2 * COMMENT_ARTICLE_WORDS {
        return flags;
    }
    for &container in paths.ids {
        let Some(node) = doc.html.tree.get(container) else { continue };
        let Some(marker) = node.children().find(|c| ElementRef::wrap(*c).is_some_and(is_marker)) else {
            continue;
        };
        let after: HashSet<NodeId> = marker.next_siblings().map(|s| s.id()).collect();
        let mut before_words = 0usize;
        let mut marked = Vec::new();
        for (i, block) in blocks.iter().enumerate() {
            let Some(child) = child_of(doc, block, container) else { continue };
            if after.contains(&child) {
                marked.push(i);
            } else if child != marker.id() && voted[i] {
                before_words += block.words;
            }
        }
        // The words before the marker lie outside what it marks: an article that stays.
        if before_words >= COMMENT_ARTICLE_WORDS {
            for i in marked {
                flags[i] = true;
            }
        }
    }
    flags
}

/// True for an element without text whose id, or `name` on an anchor, names comments and no
/// count ([`COUNT_WORDS`]).
fn is_marker(el: ElementRef<'_>) -> bool {
    let named = |value: &str| {
        let value = value.to_ascii_lowercase();
        !COUNT_WORDS.iter().any(|w| value.contains(w))
            && value.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| !w.is_empty() && is_comment_word(w))
    };
    let named =
        el.value().id().is_some_and(named) || (el.value().name() == "a" && el.value().attr("name").is_some_and(named));
    named && el.text().all(|t| t.trim().is_empty())
}

/// The child of `container` that holds the start of `block` (its first text node, else its
/// element); `None` when the block is not inside `container`.
fn child_of(doc: &Document, block: &Block, container: NodeId) -> Option<NodeId> {
    let start = block.text_nodes.first().copied().unwrap_or(block.element);
    let mut node = doc.html.tree.get(start)?;
    loop {
        let parent = node.parent()?;
        if parent.id() == container {
            return Some(node.id());
        }
        if matches!(parent.value(), Node::Document) {
            return None;
        }
        node = parent;
    }
}

#[cfg(test)]
mod tests {

    const PARA: &str = "This is a long paragraph of real article text that says something about the topic of the page";

    /// Eight paragraphs of article (about 150 words), as siblings.
    fn article() -> String {
        (1..=8).map(|i| format!("<p>{PARA} number {i}.</p>")).collect()
    }

    /// Three comments without a container: a bold name, a line break, the text, a rule.
    fn comments() -> String {
        (1..=3).map(|i| format!("<br><b>Reader {i}</b><br>{PARA} said reader {i} in a comment.<br><hr>")).collect()
    }

    use super::super::tests::{default_text, kept_by_rules as kept};

    #[test]
    fn comments_after_an_empty_marker_in_the_articles_container_go() {
        for marker in ["<a name=\"commentSection\"></a>", "<a id=comments></a>", "<div id=\"reader-comments\"> </div>"]
        {
            let page =
                format!("<html><body><div class=story>{}<hr>{marker}{}</div></body></html>", article(), comments());
            let kept = kept(&page);
            assert!(kept.iter().any(|t| t.contains("number 8")), "{marker}: {kept:?}");
            assert!(!kept.iter().any(|t| t.contains("in a comment")), "{marker}: {kept:?}");
        }
    }

    #[test]
    fn a_count_a_marker_above_the_article_or_a_thread_keeps_its_text() {
        let stays = |page: String| {
            let kept = kept(&page);
            assert!(kept.iter().any(|t| t.contains("in a comment")), "{page}: {kept:?}");
        };
        // A comment count is no section.
        stays(format!(
            "<html><body><div>{}<span id=commentsCount></span>{}</div></body></html>",
            article(),
            comments()
        ));
        // A marker with text is a heading or a link, judged as text.
        stays(format!("<html><body><div>{}<a name=comments>3</a>{}</div></body></html>", article(), comments()));
        // Above the article (a comment form's placeholder at the top): the text after it is
        // the article.
        let long_comments: String = (1..=8).map(|i| format!("<p>{PARA} said reader {i} in a comment.</p>")).collect();
        stays(format!("<html><body><div><div id=commententry></div>{long_comments}</div></body></html>"));
        // At the top of the story's container, below other text: the story stays.
        let intro: String = (1..=8).map(|i| format!("<p>{PARA} in the intro {i}.</p>")).collect();
        let story: String = (1..=8).map(|i| format!("<p>{PARA} in a comment {i}.</p>")).collect();
        stays(format!(
            "<html><body><div class=intro>{intro}</div><div class=story><a id=comments></a>{story}</div></body></html>"
        ));
        // A page of comments alone is a thread.
        stays(format!("<html><body><div><p>Short intro.</p><a name=comments></a>{long_comments}</div></body></html>"));
    }

    /// A real news page (L3S-GN1, a Canadian news site of 2008): the readers' comments follow
    /// the article in its own container after `<a name="commentSection"></a>`, as bold names
    /// and text between rules; they leave the text.
    #[test]
    fn a_real_pages_flat_comments_leave_the_text() {
        let Some(text) = default_text("l3s-gn1", "79bc594a-ae6d-4549-833a-cd74270619a2") else { return };
        assert!(text.contains("Bloc Quebecois Leader Gilles Duceppe said Friday"), "{text}");
        assert!(!text.contains("The time has come for the tax and spend Liberals"), "{text}");
        assert!(!text.contains("Provincial infrastructure is deteriorating"), "{text}");
    }
}
