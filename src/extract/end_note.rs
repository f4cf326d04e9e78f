//! Notes in italics at the end of an article: "Reuters writers X and Y contributed to this
//! report.", "Z can be reached at ...", an editor's or author's note. News and blog templates
//! set them in `<i>` or `<em>` right after the last paragraph of the body, in the body's own
//! container. They are short and read like a credit line, so the block classifiers often
//! drop them with the boilerplate after the article (jusText's length classes, Pomikálek 2011
//! §3.2, judge a short block by its neighbours), while the annotation conventions of
//! L3S-GN1, CleanEval and the news sets keep them as part of the article
//! ([`keep_end_notes`]).

use crate::html::Document;
use crate::model::{Block, Label};
use ego_tree::NodeId;

/// Most blocks taken as an article's end note (a note of two or three lines).
pub const MAX_NOTE_BLOCKS: usize = 3;

/// Fewest and most words of one note block: a credit line or a short note, not a second
/// article set in italics.
pub const MIN_NOTE_WORDS: usize = 4;
/// See [`MIN_NOTE_WORDS`].
pub const MAX_NOTE_WORDS: usize = 80;

/// Most link density of a note: a contact address may be a link, a call to follow or sign up
/// ("Sign up here", "Follow us on ...") is mostly links.
pub const MAX_NOTE_LINK_DENSITY: f64 = 0.2;

/// Most levels above the last kept block's element where the note's element may hang: its
/// siblings (the body's paragraphs), or the children of the body's parent (a note after the
/// body's inner wrapper).
const MAX_CONTAINER_LEVELS: usize = 2;

/// Keep the article's end notes: after the last kept block, up to [`MAX_NOTE_BLOCKS`] blocks
/// in a row (empty blocks between them skipped) whose every text node lies inside an `<i>` or
/// `<em>` element (the whole block in italics), with [`MIN_NOTE_WORDS`] to [`MAX_NOTE_WORDS`]
/// words, link density below [`MAX_NOTE_LINK_DENSITY`], ending as a sentence does (prose, not
/// a date or "posted by" line), no copyright line (`©`, "copyright", "all rights reserved"),
/// not a heading, not in a `<figure>` or `<figcaption>` (a caption), and hanging under the
/// last kept block's parent or grandparent, are labelled [`Label::Good`]. The first block that
/// fails ends the search. Blocks flagged in `excluded` (one flag per block: a comment section,
/// a consent box, a list of other stories) are never kept and end the search. `labels` has
/// one label per block; a page with nothing kept is left as it is.
pub fn keep_end_notes(doc: &Document, blocks: &[Block], labels: &mut [Label], excluded: &[bool]) {
    let Some(last) = (0..blocks.len()).rev().find(|&i| labels[i].is_good()) else { return };
    let containers = ancestors(doc, blocks[last].element).take(MAX_CONTAINER_LEVELS).collect::<Vec<_>>();
    let mut kept = 0;
    for i in last + 1..blocks.len() {
        let block = &blocks[i];
        if block.words == 0 && !excluded[i] {
            continue;
        }
        if kept == MAX_NOTE_BLOCKS || excluded[i] || !is_note(doc, block, &containers) {
            return;
        }
        labels[i] = Label::Good;
        kept += 1;
    }
}

/// One block of [`keep_end_notes`]'s note, `containers` the last kept block's parent and
/// grandparent.
fn is_note(doc: &Document, block: &Block, containers: &[NodeId]) -> bool {
    if block.heading
        || !(MIN_NOTE_WORDS..=MAX_NOTE_WORDS).contains(&block.words)
        || block.link_density() >= MAX_NOTE_LINK_DENSITY
        || !ends_a_sentence(&block.text)
        || is_legal_line(&block.text)
    {
        return false;
    }
    let parent = ancestors(doc, block.element).next();
    if !parent.is_some_and(|p| containers.contains(&p)) {
        return false;
    }
    let mut own =
        std::iter::once(block.element).chain(ancestors(doc, block.element).take_while(|a| !containers.contains(a)));
    if own.any(|a| is_element(doc, a, &["figure", "figcaption"])) {
        return false;
    }
    let mut texts = block.text_nodes.iter().filter(|&&id| has_text(doc, id)).peekable();
    texts.peek().is_some() && texts.all(|&id| in_italics(doc, id, block.element))
}

/// The element ids above `id`, nearest first.
fn ancestors(doc: &Document, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    doc.html.tree.get(id).into_iter().flat_map(|n| n.ancestors()).filter(|a| a.value().is_element()).map(|a| a.id())
}

/// True when the node `id` is an element named one of `names`.
fn is_element(doc: &Document, id: NodeId, names: &[&str]) -> bool {
    doc.html.tree.get(id).and_then(|n| n.value().as_element()).is_some_and(|e| names.contains(&e.name()))
}

/// True when the text node `id` holds more than whitespace.
fn has_text(doc: &Document, id: NodeId) -> bool {
    doc.html.tree.get(id).and_then(|n| n.value().as_text()).is_some_and(|t| !t.trim().is_empty())
}

/// True when the text node `id` has an `<i>` or `<em>` element between it and the block's
/// element `top` (`top` itself included).
fn in_italics(doc: &Document, id: NodeId, top: NodeId) -> bool {
    let Some(node) = doc.html.tree.get(id) else { return false };
    for a in node.ancestors() {
        if a.value().as_element().is_some_and(|e| matches!(e.name(), "i" | "em")) {
            return true;
        }
        if a.id() == top {
            return false;
        }
    }
    false
}

/// True when `text` ends as a sentence does (`.`, `!`, `?`, a closing quote after one): a note
/// is prose, a date line or a "posted by" line is not.
fn ends_a_sentence(text: &str) -> bool {
    let t = text.trim_end().trim_end_matches(['"', '\'', '”', '’', ')']);
    t.ends_with(['.', '!', '?', '。'])
}

/// A copyright or rights line, which reads as a note but is the site's boilerplate.
fn is_legal_line(text: &str) -> bool {
    let lower = text.to_lowercase();
    text.contains('©') || lower.contains("copyright") || lower.contains("all rights reserved")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::segment::segment;

    fn labels_of(html: &str, keep: &[&str]) -> (Vec<Block>, Vec<Label>) {
        let doc = Document::parse(html);
        let blocks = segment(&doc);
        let mut labels: Vec<Label> = blocks
            .iter()
            .map(|b| if keep.iter().any(|k| b.text.starts_with(k)) { Label::Good } else { Label::Bad })
            .collect();
        let excluded = vec![false; blocks.len()];
        keep_end_notes(&doc, &blocks, &mut labels, &excluded);
        (blocks, labels)
    }

    fn kept<'a>(blocks: &'a [Block], labels: &[Label]) -> Vec<&'a str> {
        blocks.iter().zip(labels).filter(|(_, l)| l.is_good()).map(|(b, _)| b.text.as_str()).collect()
    }

    const BODY: &str =
        "<p>The council met on Tuesday to discuss the budget for the coming year and agreed on most points.</p>\
        <p>Its members will vote on the final text next week, the chairman said after the meeting.</p>";

    #[test]
    fn an_italic_credit_line_after_the_body_is_kept() {
        let html = format!(
            "<html><body><div class=story>{BODY}<p><i>Associated Press writers Ann Lee and Bo Chen contributed to this report.</i></p></div>\
             <div class=footer><p>About us</p></div></body></html>"
        );
        let (blocks, labels) = labels_of(&html, &["The council", "Its members"]);
        assert_eq!(
            kept(&blocks, &labels).last(),
            Some(&"Associated Press writers Ann Lee and Bo Chen contributed to this report.")
        );
        assert!(!kept(&blocks, &labels).contains(&"About us"));
    }

    #[test]
    fn roman_type_copyright_other_containers_and_captions_are_not_notes() {
        for tail in [
            "<div class=story>BODY<p>Associated Press writers Ann Lee and Bo Chen contributed to this report.</p></div>",
            "<div class=story>BODY<p><em>Copyright 2008 The Associated Press. All rights reserved.</em></p></div>",
            "<div class=story>BODY</div><div class=side><div class=box><p><i>Sean writes passionately about the things that matter to him.</i></p></div></div>",
            "<div class=story>BODY<figure><img src=a.jpg><figcaption><i>Members of the council at the meeting on Tuesday evening.</i></figcaption></figure></div>",
        ] {
            let html = format!("<html><body>{}</body></html>", tail.replace("BODY", BODY));
            let (blocks, labels) = labels_of(&html, &["The council", "Its members"]);
            assert_eq!(kept(&blocks, &labels).len(), 2, "{tail}: {:?}", kept(&blocks, &labels));
        }
    }

    #[test]
    fn a_real_news_pages_credit_line_is_kept_and_its_copyright_line_is_not() {
        // L3S-GN1's Associated Press page: "... contributed to this report." in `<i>` after the
        // last paragraph, then "Hosted by" and the copyright line.
        let Some(path) = crate::testdata::shared_path("data/l3s-gn1/html/47a8d151-27d9-4f98-90eb-27aaad2e9edd.html.gz")
        else {
            return;
        };
        let mut html = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(path).expect("page")),
            &mut html,
        )
        .expect("gzip");
        let doc = Document::parse(&html);
        let blocks = segment(&doc);
        let last =
            blocks.iter().position(|b| b.text.starts_with("Basra, where about 80 percent")).expect("last paragraph");
        let first =
            blocks.iter().position(|b| b.text.starts_with("In the southern city of Basra")).expect("a paragraph");
        let mut labels: Vec<Label> =
            (0..blocks.len()).map(|i| if (first..=last).contains(&i) { Label::Good } else { Label::Bad }).collect();
        keep_end_notes(&doc, &blocks, &mut labels, &vec![false; blocks.len()]);
        let added: Vec<&str> = kept(&blocks, &labels).into_iter().skip(last + 1 - first).collect();
        assert_eq!(
            added,
            ["Associated Press Writers Qassim Abdul-Zahra and Sinan Salaheddin contributed to this report."]
        );
    }

    #[test]
    fn a_page_without_kept_blocks_is_left_alone() {
        let html = format!("<html><body>{BODY}<p><i>Ann Lee can be reached at ann@example.org.</i></p></body></html>");
        let (_, labels) = labels_of(&html, &[]);
        assert!(labels.iter().all(|l| !l.is_good()));
    }
}
