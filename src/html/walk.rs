//! [`pruned_edges`]: the DOM in document order as open/close edges, with the inside of pruned
//! elements (scripts, styles, noise tags, ...) left out. The segmenter, GoldMiner's token
//! stream and StaDyNoT's key counting all walk the page this way.

use ego_tree::iter::{Edge, Traverse};
use ego_tree::NodeRef;
use scraper::Node;

/// HTML void elements: they have no end tag in source.
pub const VOID_TAGS: &[&str] =
    &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"];

/// Iterator returned by [`pruned_edges`].
pub struct PrunedEdges<'a, F> {
    inner: Traverse<'a, Node>,
    prune: F,
    pruning: Option<ego_tree::NodeId>,
}

/// Edges of the subtree of `root` in document order. For an element where `prune(node)` is
/// true, its own open and close edges are yielded but nothing between them; the caller tells
/// them apart by calling `prune` again (or ignores them).
pub fn pruned_edges<'a, F>(root: NodeRef<'a, Node>, prune: F) -> PrunedEdges<'a, F>
where
    F: FnMut(NodeRef<'a, Node>) -> bool,
{
    PrunedEdges { inner: root.traverse(), prune, pruning: None }
}

impl<'a, F> Iterator for PrunedEdges<'a, F>
where
    F: FnMut(NodeRef<'a, Node>) -> bool,
{
    type Item = Edge<'a, Node>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let edge = self.inner.next()?;
            match (self.pruning, &edge) {
                (Some(id), Edge::Close(node)) if node.id() == id => {
                    self.pruning = None;
                    return Some(edge);
                }
                (Some(_), _) => continue,
                (None, Edge::Open(node)) => {
                    if node.value().is_element() && (self.prune)(*node) {
                        self.pruning = Some(node.id());
                    }
                    return Some(edge);
                }
                (None, Edge::Close(_)) => return Some(edge),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::Document;

    #[test]
    fn pruned_subtrees_keep_their_own_edges_only() {
        let doc = Document::parse("<body><p>a<script>x<b>y</b></script>b</p></body>");
        let texts: Vec<String> =
            pruned_edges(doc.html.tree.root(), |n| n.value().as_element().is_some_and(|e| e.name() == "script"))
                .filter_map(|e| match e {
                    Edge::Open(n) => match n.value() {
                        Node::Text(t) => Some(t.to_string()),
                        Node::Element(el) => Some(format!("<{}>", el.name())),
                        _ => None,
                    },
                    Edge::Close(_) => None,
                })
                .collect();
        assert_eq!(texts, ["<html>", "<head>", "<body>", "<p>", "a", "<script>", "b"]);
    }
}
