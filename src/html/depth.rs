//! A pre-parse pass that bounds the nesting depth html5ever sees: [`flatten_deep`] removes
//! the start and end tags of elements nested deeper than [`MAX_DEPTH`], keeping their text.
//!
//! html5ever's tree builder checks element scopes by walking its stack of open elements at
//! many tags (WHATWG HTML §13.2.4.2), so a page of 100,000 nested `<div>` costs time
//! quadratic in its size (about a minute for 1 MB), and every later pass over deep trees
//! (StaDyNoT's keys, the segmenter) pays for the depth again. Real pages stay far below the
//! cap; pages above it are broken or hostile, and lose only the structure below the cap.
//!
//! The scan follows the tokenizer as [`super::prune`] does (comments, doctypes, quoted
//! attribute values, raw-text elements copied through). The depth counts open elements that
//! need an end tag: void elements (`br`, `img`, ...) and elements whose end tag is optional
//! and which cannot nest in themselves (`p`, `li`, `td`, ...) are not counted, since the
//! parser closes them itself; an end tag closes the nearest open element of its name, and
//! one with no open element of its name is left alone.

use super::prune::{comment_end, end_tag, find_from, is_name_end, start_tag_end};
use std::borrow::Cow;
use std::collections::HashMap;

/// The deepest nesting of counted elements kept; deeper start and end tags are removed.
pub const MAX_DEPTH: usize = 256;

/// Elements without an end tag (WHATWG HTML §13.1.2, void elements).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "param",
    "keygen", "frame", "basefont", "bgsound", "image",
];

/// Elements whose end tag may be left out (WHATWG HTML §13.1.2.4), and `a`, `nobr`, `button`
/// and `form`, which the parser closes when one of the same name starts: none of them nests
/// in itself, so unclosed ones are siblings, not depth.
const IMPLIED_END: &[&str] = &[
    "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "rb", "rt", "rp", "rtc", "tbody", "thead", "tfoot",
    "colgroup", "caption", "html", "head", "body", "a", "nobr", "button", "form",
];

/// Elements whose content the tokenizer reads as text up to their end tag (`script`, whose
/// end depends on its text, is read by [`script_end`]).
const RAW_TEXT: &[&str] = &["style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript"];

/// `html` with the tags of elements nested deeper than `max_depth` removed (each replaced by
/// a space, so words on both sides stay apart). Borrowed when the page is not that deep.
pub fn flatten_deep(html: &str, max_depth: usize) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    // Open elements' names as written (compared without case, as the tokenizer lowercases them).
    let mut open: Vec<&str> = Vec::new();
    let mut dropped: HashMap<String, usize> = HashMap::new();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut pos = 0;
    let cut = |out: &mut Option<String>, copied: &mut usize, from: usize, to: usize| {
        let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
        buf.push_str(&html[*copied..from]);
        buf.push(' ');
        *copied = to;
    };
    while let Some(offset) = html[pos..].find('<') {
        let lt = pos + offset;
        let rest = &bytes[lt + 1..];
        match rest.first() {
            Some(b'!') if rest.starts_with(b"!--") => pos = comment_end(html, lt + 4),
            Some(b'!' | b'?') => pos = find_from(html, lt, ">").map_or(html.len(), |i| i + 1),
            Some(b'/') => {
                let name_end = lt + 2 + rest[1..].iter().position(|&b| is_name_end(b)).unwrap_or(rest.len() - 1);
                let name = &html[lt + 2..name_end];
                let tag_end = find_from(html, lt, ">").map_or(html.len(), |i| i + 1);
                let deeper = match dropped.is_empty() {
                    true => None,
                    false => dropped.get_mut(&name.to_ascii_lowercase()).filter(|n| **n > 0),
                };
                if let Some(n) = deeper {
                    *n -= 1;
                    cut(&mut out, &mut copied, lt, tag_end);
                } else if let Some(at) = open.iter().rposition(|o| o.eq_ignore_ascii_case(name)) {
                    open.truncate(at);
                }
                pos = tag_end;
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let name_end = lt + 1 + rest.iter().position(|&b| is_name_end(b)).unwrap_or(rest.len());
                let name = &html[lt + 1..name_end];
                let is = |list: &[&str]| list.iter().any(|n| n.eq_ignore_ascii_case(name));
                let tag_end = start_tag_end(bytes, name_end);
                if name.eq_ignore_ascii_case("plaintext") {
                    break;
                }
                if name.eq_ignore_ascii_case("script") {
                    pos = script_end(html, tag_end);
                    continue;
                }
                if is(RAW_TEXT) {
                    pos = end_tag(html, tag_end, name).unwrap_or(html.len());
                    continue;
                }
                let self_closing = bytes[..tag_end].ends_with(b"/>");
                let counted = !self_closing && !is(VOID) && !is(IMPLIED_END);
                if counted {
                    if open.len() >= max_depth {
                        *dropped.entry(name.to_ascii_lowercase()).or_default() += 1;
                        cut(&mut out, &mut copied, lt, tag_end);
                    } else {
                        open.push(name);
                    }
                }
                pos = tag_end;
            }
            _ => pos = lt + 1,
        }
        if pos >= html.len() {
            break;
        }
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut buf) => {
            buf.push_str(&html[copied.min(html.len())..]);
            Cow::Owned(buf)
        }
    }
}

/// Start of the end tag of a script whose text starts at `from` (the end of the page when
/// it has none), following the tokenizer's script data states (WHATWG HTML §13.2.5.15–.32):
/// after `<!--` the text is "escaped", where `<script` enters "double escaped" and only a
/// `</script` there returns to escaped; `-->` returns to plain script data.
fn script_end(html: &str, from: usize) -> usize {
    let bytes = html.as_bytes();
    let tag_at = |at: usize, name: &[u8]| {
        bytes.get(at..at + name.len()).is_some_and(|n| n.eq_ignore_ascii_case(name))
            && bytes.get(at + name.len()).is_none_or(|&b| is_name_end(b))
    };
    #[derive(PartialEq)]
    enum State {
        Data,
        Escaped,
        DoubleEscaped,
    }
    let mut state = State::Data;
    let mut pos = from;
    while let Some(at) = html.get(pos..).and_then(|rest| rest.find(['<', '-'])).map(|i| pos + i) {
        pos = at + 1;
        if bytes[at] == b'-' {
            if bytes[at..].starts_with(b"-->") {
                state = State::Data;
                pos = at + 3;
            }
            continue;
        }
        match state {
            State::Data if bytes[at..].starts_with(b"<!--") => {
                state = State::Escaped;
                pos = at + 4;
            }
            State::Data | State::Escaped if tag_at(at + 1, b"/script") => return at,
            State::Escaped if tag_at(at + 1, b"script") => state = State::DoubleEscaped,
            State::DoubleEscaped if tag_at(at + 1, b"/script") => state = State::Escaped,
            _ => {}
        }
    }
    html.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(tag: &str, n: usize, text: &str) -> String {
        format!("<html><body>{}{text}{}</body></html>", format!("<{tag}>").repeat(n), format!("</{tag}>").repeat(n))
    }

    #[test]
    fn deep_nesting_is_cut_at_the_cap_and_the_text_stays() {
        let page = nested("div", 1000, "deep text");
        let flat = flatten_deep(&page, 10);
        assert_eq!(flat.matches("<div>").count(), 10);
        assert_eq!(flat.matches("</div>").count(), 10);
        assert!(flat.contains("deep text"));
        let doc = crate::html::Document::parse(&page);
        assert!(doc.html.root_element().text().any(|t| t.contains("deep text")));
    }

    /// Tag names are matched without case, as the tokenizer lowercases them: a page written
    /// in mixed case is cut where its lowercase copy is, and its raw-text, void and
    /// implied-end elements are known in any case.
    #[test]
    fn tag_names_are_matched_without_case() {
        let lower = format!(
            "<div><span><b><i><em>{}<br><p>a<textarea><div><div></textarea><script><div></script>x{}</em></i></b></span></div>",
            "<section>".repeat(20),
            "</section>".repeat(20)
        );
        let mixed = lower
            .replace("<div>", "<DIV>")
            .replace("</span>", "</SPAN>")
            .replace("<section>", "<Section>")
            .replace("</section>", "</sECTION>")
            .replace("<br>", "<BR>")
            .replace("<p>", "<P>")
            .replace("textarea>", "TextArea>")
            .replace("<script>", "<SCRIPT>");
        for depth in [3, 6, 30] {
            assert_eq!(flatten_deep(&mixed, depth).to_ascii_lowercase(), flatten_deep(&lower, depth), "{depth}");
        }
        assert!(matches!(flatten_deep(&mixed, 30), Cow::Borrowed(_)));
        assert_eq!(flatten_deep(&mixed, 6).matches("<Section>").count(), 1);
    }

    #[test]
    fn ordinary_pages_are_untouched() {
        let page = "<html><body><div><p>one<p>two<ul><li>a<li>b</ul><br><img src=x.png>\
                    <script>if (a<b) {}</script><!-- <div> --></div></body></html>";
        assert!(matches!(flatten_deep(page, 3), Cow::Borrowed(_)));
        // Thousands of unclosed paragraphs and list items are siblings, not depth.
        let many = format!("<div>{}</div>", "<p>text <li>item ".repeat(5000));
        assert!(matches!(flatten_deep(&many, 8), Cow::Borrowed(_)));
    }

    /// Found by the property test: inside `<script><!--`, a `<script>` start enters the
    /// double-escaped state and the first `</script>` does not end the script; the tags after
    /// it are script text, not depth.
    #[test]
    fn escaped_script_text_is_not_markup() {
        let page = "<div><script><!--<script></script><span><span><div>x</script></div>";
        assert!(matches!(flatten_deep(page, 1), Cow::Borrowed(_)));
        assert_eq!(script_end("a --> </script>", 0), 6);
        assert_eq!(script_end("<!-- <script> </script> --> </script>", 0), 28);
        assert_eq!(script_end("<!-- </script> -->", 0), 5);
    }

    /// Every page of the five shared sites is below the cap: flattening changes nothing.
    #[test]
    fn real_pages_are_below_the_cap() {
        let Some(root) = crate::testdata::shared_path("sites") else { return };
        let mut dirs = vec![root];
        let mut seen = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("readable").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "html") {
                    let bytes = std::fs::read(&path).expect("readable");
                    let html = String::from_utf8_lossy(&bytes);
                    seen += 1;
                    assert!(matches!(flatten_deep(&html, MAX_DEPTH), Cow::Borrowed(_)), "{}", path.display());
                }
            }
        }
        assert!(seen > 100, "{seen} pages");
    }

    /// 100,000 nested `<div>` and 200,000 nested `<span>` parse and extract quickly once flat
    /// (the time bound itself is measured by scripts/bench-hostile.sh, not asserted here).
    #[test]
    fn hostile_nesting_is_flattened() {
        for (tag, n) in [("div", 100_000), ("span", 200_000)] {
            let page = nested(tag, n, "the end");
            let flat = flatten_deep(&page, MAX_DEPTH);
            assert_eq!(flat.matches(&format!("<{tag}>")).count(), MAX_DEPTH, "{tag}");
            assert!(flat.contains("the end"));
        }
    }
}
