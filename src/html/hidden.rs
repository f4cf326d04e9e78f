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
use ego_tree::NodeId;

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

/// True when the text of `node` is hidden by it or an ancestor ([`hides`]).
fn is_hidden(doc: &Document, node: NodeId) -> bool {
    doc.html
        .tree
        .get(node)
        .is_some_and(|n| std::iter::once(n).chain(n.ancestors()).any(|a| a.value().as_element().is_some_and(hides)))
}

/// Remove from `blocks` each hidden block whose text also stands in the visible blocks' text
/// (their texts joined by spaces): the page's text counts once. Blocks stay in order.
pub fn drop_hidden_copies(doc: &Document, blocks: &mut Vec<Block>) {
    let hidden: Vec<bool> = blocks.iter().map(|b| b.text_nodes.first().is_some_and(|&n| is_hidden(doc, n))).collect();
    if !hidden.contains(&true) {
        return;
    }
    let mut visible = String::new();
    for (b, _) in blocks.iter().zip(&hidden).filter(|(_, &h)| !h) {
        visible.push_str(&b.text);
        visible.push(' ');
    }
    let mut i = 0;
    blocks.retain(|b| {
        let copy = hidden[i] && visible.contains(b.text.as_str());
        i += 1;
        !copy
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
