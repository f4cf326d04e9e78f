//! Hidden copies of visible text. Pages carry the body twice or three times: a `hidden` or
//! `display:none` copy for scripts, an `aria-hidden` duplicate for an animation, a print or
//! app version kept out of sight. A reader sees the text once, so a block whose text is hidden
//! by its markup and also stands in the page's visible text is left out
//! ([`drop_hidden_copies`]). Hidden text without a visible copy stays (tabs and "read more"
//! panels that scripts open hold the article's own text).
//!
//! Hidden means, on the block's first text node or an ancestor: the `hidden` attribute (WHATWG
//! HTML §6.1), `aria-hidden="true"` (WAI-ARIA 1.2), or an inline style with `display: none`
//! or `visibility: hidden`. Style sheets are not read.

use crate::html::Document;
use crate::model::Block;
use ego_tree::iter::Edge;
use ego_tree::NodeId;
use rustc_hash::FxHashSet as HashSet;
use scraper::Node;

/// True when `el` hides its subtree by its own markup (see the module docs).
pub fn hides(el: &scraper::node::Element) -> bool {
    if el.attr("hidden").is_some() || el.attr("aria-hidden").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return true;
    }
    el.attr("style").is_some_and(|style| {
        let style: String = style.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        style.contains("display:none") || style.contains("visibility:hidden")
    })
}

/// The text nodes of `doc` that a hiding element ([`hides`]) encloses: one walk of the tree,
/// whatever its depth. Empty when nothing hides.
fn hidden_text_nodes(doc: &Document) -> HashSet<NodeId> {
    let mut hidden = HashSet::default();
    let mut open = 0usize;
    for edge in doc.html.tree.root().traverse() {
        match edge {
            Edge::Open(node) => match node.value() {
                Node::Element(el) if hides(el) => open += 1,
                Node::Text(_) if open > 0 => {
                    hidden.insert(node.id());
                }
                _ => {}
            },
            Edge::Close(node) => {
                if node.value().as_element().is_some_and(hides) {
                    open -= 1;
                }
            }
        }
    }
    hidden
}

/// Bytes of visible text searched in all for hidden blocks that are not an exact copy of a
/// visible block (a page of many hidden blocks costs at most this much searching).
pub const SEARCH_BUDGET: usize = 32 << 20;

/// Remove from `blocks` each hidden block whose text also stands in the visible blocks' text
/// (a visible block of the same text, or a part of their texts joined by spaces, searched
/// within [`SEARCH_BUDGET`]): the page's text counts once. Blocks stay in order.
pub fn drop_hidden_copies(doc: &Document, blocks: &mut Vec<Block>) {
    let hidden_nodes = hidden_text_nodes(doc);
    if hidden_nodes.is_empty() {
        return;
    }
    let hidden: Vec<bool> =
        blocks.iter().map(|b| b.text_nodes.first().is_some_and(|n| hidden_nodes.contains(n))).collect();
    let mut visible = String::new();
    let mut exact: HashSet<&str> = HashSet::default();
    for (b, _) in blocks.iter().zip(&hidden).filter(|(_, &h)| !h) {
        visible.push_str(&b.text);
        visible.push(' ');
        exact.insert(b.text.as_str());
    }
    let mut budget = SEARCH_BUDGET;
    let copies: Vec<bool> = blocks
        .iter()
        .zip(&hidden)
        .map(|(b, &h)| {
            if !h {
                return false;
            }
            if exact.contains(b.text.as_str()) {
                return true;
            }
            if budget < visible.len() {
                return false;
            }
            budget -= visible.len();
            visible.contains(b.text.as_str())
        })
        .collect();
    let mut i = 0;
    blocks.retain(|_| {
        i += 1;
        !copies[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::segment;

    fn texts(html: &str) -> Vec<String> {
        segment(&Document::parse(html)).into_iter().map(|b| b.text).collect()
    }

    const BODY: &str = "The council voted on Tuesday to close the old bridge for repairs until the spring.";

    #[test]
    fn hidden_copies_of_visible_text_count_once() {
        for wrapper in [
            "<div hidden>",
            "<div aria-hidden=\"true\">",
            "<div style=\"color: red; DISPLAY : none\">",
            "<section style=\"visibility:hidden\">",
        ] {
            let close = if wrapper.starts_with("<section") { "</section>" } else { "</div>" };
            let html = format!(
                "<html><body><p>{BODY}</p><p>Second line.</p>{wrapper}<p>{BODY} Second line.</p>{close}</body></html>"
            );
            assert_eq!(texts(&html), [BODY, "Second line."], "{wrapper}");
        }
    }

    /// Hidden blocks under 20,000 nested hiding elements: one walk of the tree, not one walk up
    /// from every block (which would be quadratic in the depth).
    #[test]
    fn deeply_nested_hidden_text_is_one_walk() {
        let depth = 20_000;
        let html = format!(
            "<html><body><p>{BODY}</p>{}{}</body></html>",
            "<div hidden><p>x</p>".repeat(depth),
            "</div>".repeat(depth)
        );
        let texts = texts(&html);
        assert_eq!(texts.first().map(String::as_str), Some(BODY));
        assert!(texts.iter().skip(1).all(|t| t == "x") && texts.len() > 100, "hidden text without a copy stays");
    }

    #[test]
    fn hidden_text_without_a_visible_copy_stays() {
        let html = format!(
            "<html><body><p>Intro.</p><div hidden><p>{BODY}</p></div><p aria-hidden=\"false\">{BODY}</p></body></html>"
        );
        assert_eq!(
            texts(&html),
            ["Intro.", BODY],
            "aria-hidden=false is visible: the hidden copy goes, its twin stays"
        );
        let only = format!("<html><body><div style=\"display:none\"><p>{BODY}</p></div></body></html>");
        assert_eq!(texts(&only), [BODY]);
    }
}
