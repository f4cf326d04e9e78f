//! A wrapper of scraper's html5ever tree sink that keeps the tree consistent where scraper's
//! own sink (scraper 0.20 over ego-tree 0.6) does not: [`ConsistentSink`].
//!
//! html5ever repairs misnested formatting elements (`<font><p></font>…`) with the adoption
//! agency algorithm (WHATWG HTML §13.2.6.4.7, "adoption agency algorithm"), which moves all
//! children of one element to another ([`TreeSink::reparent_children`]). scraper does this
//! with ego-tree's `reparent_from_id_append`, which sets the parent of the first and last
//! moved child only: every child between them still names its old parent. When the parser
//! later moves or detaches one of those, ego-tree unlinks it from the wrong parent's child
//! list, and whole stretches of the page stay in the tree (their ancestors reach the root)
//! while no walk from the root finds them: the segmenter, GoldMiner and StaDyNoT never see
//! their text (measured on the shared sets: `docs/safety.md`, "Misnested markup keeps its text"). Here
//! those children move one at a time ([`ego_tree::NodeMut::append_id`], which
//! detaches each from its real parent), and a node appended is detached first (ego-tree's
//! `append_id` reads the new parent's last child before detaching, which corrupts the list
//! when the node is that last child). Everything else is scraper's sink.

use ego_tree::NodeId;
use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NextParserState, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, ExpandedName, QualName};
use scraper::Html;
use std::borrow::Cow;

/// scraper's [`Html`] as an html5ever sink whose moves keep every node reachable from the
/// root that names a parent. Parse with `html5ever::driver::parse_document(ConsistentSink(..), ..)`;
/// the output is the [`Html`].
pub struct ConsistentSink(pub Html);

impl TreeSink for ConsistentSink {
    type Handle = NodeId;
    type Output = Html;

    fn finish(self) -> Html {
        self.0
    }

    fn parse_error(&mut self, msg: Cow<'static, str>) {
        self.0.parse_error(msg);
    }

    fn get_document(&mut self) -> NodeId {
        self.0.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> ExpandedName<'a> {
        self.0.elem_name(target)
    }

    fn create_element(&mut self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        self.0.create_element(name, attrs, flags)
    }

    fn create_comment(&mut self, text: StrTendril) -> NodeId {
        self.0.create_comment(text)
    }

    fn create_pi(&mut self, target: StrTendril, data: StrTendril) -> NodeId {
        self.0.create_pi(target, data)
    }

    fn append(&mut self, parent: &NodeId, child: NodeOrText<NodeId>) {
        if let NodeOrText::AppendNode(id) = &child {
            if let Some(mut node) = self.0.tree.get_mut(*id) {
                node.detach();
            }
        }
        self.0.append(parent, child);
    }

    fn append_based_on_parent_node(&mut self, element: &NodeId, prev_element: &NodeId, child: NodeOrText<NodeId>) {
        // scraper's own, but through this sink's `append`.
        if self.0.tree.get(*element).is_some_and(|e| e.parent().is_some()) {
            self.0.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&mut self, name: StrTendril, public_id: StrTendril, system_id: StrTendril) {
        self.0.append_doctype_to_document(name, public_id, system_id);
    }

    fn mark_script_already_started(&mut self, node: &NodeId) {
        self.0.mark_script_already_started(node);
    }

    fn pop(&mut self, node: &NodeId) {
        self.0.pop(node);
    }

    fn get_template_contents(&mut self, target: &NodeId) -> NodeId {
        self.0.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.0.same_node(x, y)
    }

    fn set_quirks_mode(&mut self, mode: QuirksMode) {
        self.0.set_quirks_mode(mode);
    }

    fn append_before_sibling(&mut self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        self.0.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&mut self, target: &NodeId, attrs: Vec<Attribute>) {
        self.0.add_attrs_if_missing(target, attrs);
    }

    fn associate_with_form(&mut self, target: &NodeId, form: &NodeId, nodes: (&NodeId, Option<&NodeId>)) {
        self.0.associate_with_form(target, form, nodes);
    }

    fn remove_from_parent(&mut self, target: &NodeId) {
        self.0.remove_from_parent(target);
    }

    fn reparent_children(&mut self, node: &NodeId, new_parent: &NodeId) {
        let Some(from) = self.0.tree.get(*node) else { return };
        let children: Vec<NodeId> = from.children().map(|c| c.id()).collect();
        if let Some(mut parent) = self.0.tree.get_mut(*new_parent) {
            for child in children {
                parent.append_id(child);
            }
        }
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeId) -> bool {
        self.0.is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&mut self, line_number: u64) {
        self.0.set_current_line(line_number);
    }

    fn complete_script(&mut self, node: &NodeId) -> NextParserState {
        self.0.complete_script(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use html5ever::driver::{parse_document, ParseOpts};
    use html5ever::tendril::TendrilSink;
    use std::collections::HashSet;

    /// Text nodes whose ancestors reach the root but that no walk from the root visits.
    fn unreachable_text(html: &Html) -> Vec<String> {
        let reachable: HashSet<NodeId> = html.tree.root().descendants().map(|n| n.id()).collect();
        let root = html.tree.root().id();
        html.tree
            .nodes()
            .filter(|n| !reachable.contains(&n.id()) && n.ancestors().any(|a| a.id() == root))
            .filter_map(|n| n.value().as_text().map(|t| t.trim().to_string()))
            .filter(|t| !t.is_empty())
            .collect()
    }

    /// The smallest page found that loses text with scraper's own sink (reduced from a
    /// CleanEval page): the adoption agency moves the `<blockquote>`'s three children (a
    /// space, the `<p>`, ...) to a new `<font>`, and the middle one keeps its old parent.
    const MISNESTED: &str = "<font><blockquote></p> <p></font>Lost text.";

    /// Misnested `<font>` around paragraphs and a table, as on old pages.
    const OLD_PAGE: &str = "<body><blockquote><font size=2><p><font face=V>One.</font></p>\
        <table><tr><td><font face=V>Cell</font></td></tr></table>\
        <p></font><font face=V size=1>Two.</font><font size=2></p> \
        <p><font face=V>Three.</font></p> <h3><font face=V>Four.</font></h3>\
        <p><font face=V>Five <b>bold</font> six.</b></p></blockquote></body>";

    fn parse(sink: impl TreeSink<Handle = NodeId, Output = Html>, html: &str) -> Html {
        parse_document(sink, ParseOpts::default()).one(html)
    }

    #[test]
    fn misnested_formatting_keeps_every_text_reachable() {
        let theirs = parse(Html::new_document(), MISNESTED);
        assert_eq!(
            unreachable_text(&theirs),
            vec!["Lost text.".to_string()],
            "scraper's own sink loses the text (when it no longer does, this wrapper can go)"
        );
        let ours = parse(ConsistentSink(Html::new_document()), MISNESTED);
        assert_eq!(unreachable_text(&ours), Vec::<String>::new());
        assert_eq!(ours.root_element().text().collect::<String>().trim(), "Lost text.");
        let ours = parse(ConsistentSink(Html::new_document()), OLD_PAGE);
        assert_eq!(unreachable_text(&ours), Vec::<String>::new());
        let text: String = ours.root_element().text().collect();
        for word in ["One.", "Cell", "Two.", "Three.", "Four.", "Five", "bold", "six."] {
            assert!(text.contains(word), "{word} missing from {text:?}");
        }
    }
}
