//! A pre-parse pass over raw HTML: the principal function is [`strip_raw_text`], which empties
//! the bodies of `<script>`, `<style>` and `<svg>` elements before html5ever sees the page. It
//! runs first in [`Document::parse`](crate::html::Document::parse), so every extractor, the
//! learners and the page classifier see the same tree.
//!
//! Scripts, styles and inline SVG are over half of the bytes of a modern page (modern2026-dev:
//! 23 %, 24 % and 6 % of the HTML), and no extractor reads them: segmentation drops all three
//! subtrees (jusText's Cleaner, Pomikálek 2011, §3.1). SVG drawings are dense element markup,
//! so leaving them out saves tree building too (parse throughput on modern2026-dev, one core:
//! about +7 %).
//! Kept: JSON scripts (`type="application/ld+json"`, read by the page classifier) and any
//! script whose body contains `<!--`, where HTML's "script data escaped" states can move the
//! end of the script past the first `</script>`: from such a script on, the page is passed
//! through unchanged, so html5ever decides.
//!
//! The scan follows the HTML tokenizer just enough to find real start tags (WHATWG HTML
//! §13.2.5): comments, doctypes, end tags and quoted attribute values are stepped over, and
//! the raw-text and RCDATA elements (`title`, `textarea`, `xmp`, `iframe`, `noembed`,
//! `noframes`, `noscript`) are copied through to their end tag, so a `<script>` inside them
//! is text, as it is for the parser. An `<svg>` is emptied only when it is a closed drawing of
//! SVG elements (nested ones counted): an unclosed one ends at the next HTML tag, which only
//! the parser knows. `<plaintext>` ends the scan. An unclosed `<title>` (truncated or broken
//! pages: 7 of the L3S-GN1 news pages) would make the rest of the page its text, so that
//! html5ever sees an empty body; it is closed at its first line break or tag instead. For the
//! same reason a `<script>` or `<style>` start tag whose quoted attribute value runs past the
//! element's own end tag (an unclosed quote) becomes an empty element that ends there.

use std::borrow::Cow;

/// Elements whose text the tokenizer reads as raw text or RCDATA up to their end tag.
const COPIED_RAW_TEXT: &[&str] = &["title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript"];

/// The result of [`prune`].
#[derive(Debug)]
pub struct Pruned<'a> {
    /// The page as [`strip_raw_text`] returns it.
    pub text: Cow<'a, str>,
    /// Non-whitespace characters outside tags inside the page's `<noscript>` elements
    /// ([`noscript_text_chars`]), counted in the same scan.
    pub noscript_chars: usize,
}

/// [`strip_raw_text`] of `html`, with the `<noscript>` text measured on the way.
pub fn prune(html: &str) -> Pruned<'_> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut noscript_chars = 0;
    // `html[copied..pos]` is pending output.
    let mut copied = 0;
    let mut pos = 0;
    while let Some(offset) = html[pos..].find('<') {
        let lt = pos + offset;
        let rest = &bytes[lt + 1..];
        match rest.first() {
            Some(b'!') if rest.starts_with(b"!--") => pos = comment_end(html, lt + 4),
            Some(b'!' | b'?') => pos = find_from(html, lt, ">").map_or(html.len(), |i| i + 1),
            Some(b'/') => pos = find_from(html, lt, ">").map_or(html.len(), |i| i + 1),
            Some(c) if c.is_ascii_alphabetic() => {
                let name_end = lt + 1 + rest.iter().position(|&b| is_name_end(b)).unwrap_or(rest.len());
                let name = &html[lt + 1..name_end];
                let tag_end = start_tag_end(bytes, name_end);
                if name.eq_ignore_ascii_case("plaintext") {
                    noscript_chars += noscript_text_chars(&html[lt..]);
                    break;
                }
                let strip = name.eq_ignore_ascii_case("style")
                    || name.eq_ignore_ascii_case("svg")
                    || (name.eq_ignore_ascii_case("script") && !is_json_script(&html[name_end..tag_end]));
                let copy_through =
                    name.eq_ignore_ascii_case("script") || COPIED_RAW_TEXT.iter().any(|t| name.eq_ignore_ascii_case(t));
                if !strip && !copy_through {
                    pos = tag_end;
                    continue;
                }
                if strip && !name.eq_ignore_ascii_case("svg") {
                    // A quoted attribute value that runs past the element's own end tag is an
                    // unclosed quote (`<script src="/a.js>...</script>`): the tokenizer would
                    // read the page after it as the tag and the script, up to some later
                    // `</script>`. The element ends at its first end tag instead, as an empty one.
                    let inside_tag = html[name_end..tag_end].contains("</");
                    let close = if inside_tag { end_tag(html, name_end, name) } else { None };
                    if let Some(close) = close.filter(|&close| close < tag_end) {
                        let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
                        buf.push_str(&html[copied..lt]);
                        buf.push('<');
                        buf.push_str(name);
                        buf.push('>');
                        copied = close;
                        pos = close;
                        continue;
                    }
                }
                let close = if name.eq_ignore_ascii_case("svg") {
                    match svg_end_tag(html, tag_end) {
                        Some(close) => close,
                        // Not a closed drawing: leave it to the parser, scan on inside it.
                        None => {
                            pos = tag_end;
                            continue;
                        }
                    }
                } else {
                    match end_tag(html, tag_end, name) {
                        Some(close) => close,
                        None if name.eq_ignore_ascii_case("title") => {
                            // An unclosed title would swallow the whole page as its text:
                            // end it with its first line.
                            let close = html[tag_end..].find(['<', '\n', '\r']).map_or(html.len(), |i| tag_end + i);
                            let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
                            buf.push_str(&html[copied..close]);
                            buf.push_str("</title>");
                            copied = close;
                            pos = close;
                            continue;
                        }
                        None => html.len(),
                    }
                };
                let body = &html[tag_end..close];
                if strip && name.eq_ignore_ascii_case("script") && body.contains("<!--") {
                    noscript_chars += noscript_text_chars(&html[lt..]);
                    break;
                }
                if name.eq_ignore_ascii_case("noscript") {
                    noscript_chars += text_chars(body);
                }
                if strip && !body.is_empty() {
                    let buf = out.get_or_insert_with(|| String::with_capacity(html.len() / 2));
                    buf.push_str(&html[copied..tag_end]);
                    copied = close;
                }
                pos = close;
            }
            _ => pos = lt + 1,
        }
        if pos >= html.len() {
            break;
        }
    }
    let text = match out {
        None => Cow::Borrowed(html),
        Some(mut buf) => {
            buf.push_str(&html[copied..]);
            Cow::Owned(buf)
        }
    };
    Pruned { text, noscript_chars }
}

/// `html` with the bodies of `<script>` (except JSON scripts), `<style>` and `<svg>` elements removed;
/// the tags themselves stay; an unclosed `<title>` is closed at its first line break or tag.
/// Borrowed when nothing was changed. Never fails: malformed markup
/// is copied as it is and left to the parser.
pub fn strip_raw_text(html: &str) -> Cow<'_, str> {
    prune(html).text
}

/// Non-whitespace characters of text (outside tags) inside the page's `<noscript>` elements,
/// read from the raw HTML: 0 when it has none.
pub fn noscript_text_chars(text: &str) -> usize {
    let bytes = text.as_bytes();
    let is_tag = |at: usize, name: &[u8]| {
        bytes.get(at + 1..at + 1 + name.len()).is_some_and(|n| n.eq_ignore_ascii_case(name))
            && bytes.get(at + 1 + name.len()).is_none_or(|&b| b == b'>' || b.is_ascii_whitespace())
    };
    let mut chars = 0;
    let mut pos = 0;
    while let Some(lt) = text[pos..].find('<').map(|i| pos + i) {
        pos = lt + 1;
        if !is_tag(lt, b"noscript") {
            continue;
        }
        let body_start = text[lt..].find('>').map_or(text.len(), |i| lt + i + 1);
        let mut end = text.len();
        let mut at = body_start;
        while let Some(close) = text[at..].find("</").map(|i| at + i) {
            if is_tag(close, b"/noscript") {
                end = close;
                break;
            }
            at = close + 2;
        }
        chars += text_chars(&text[body_start.min(end)..end]);
        pos = end.max(pos);
    }
    chars
}

/// Non-whitespace characters of `markup` outside `<...>` tags.
fn text_chars(markup: &str) -> usize {
    let mut in_tag = false;
    let mut chars = 0;
    for c in markup.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag && !c.is_whitespace() => chars += 1,
            _ => {}
        }
    }
    chars
}

/// Byte index just past the comment whose text starts at `from` (after `<!--`): `<!-->` and
/// `<!--->` are empty comments; an unclosed comment runs to the end.
pub(super) fn comment_end(html: &str, from: usize) -> usize {
    let rest = &html.as_bytes()[from.min(html.len())..];
    if rest.starts_with(b">") {
        return from + 1;
    }
    if rest.starts_with(b"->") {
        return from + 2;
    }
    find_from(html, from, "-->").map_or(html.len(), |i| i + 3)
}

/// Byte index of the first `needle` at or after `from`. Searches for the needle's first byte
/// with `str::find(char)` (memchr), which is several times faster than a substring search on
/// pages where the needle's first byte is rare.
pub(super) fn find_from(html: &str, from: usize, needle: &str) -> Option<usize> {
    let first = char::from(*needle.as_bytes().first()?);
    let mut pos = from;
    loop {
        let at = pos + html.get(pos..)?.find(first)?;
        if html.as_bytes()[at..].starts_with(needle.as_bytes()) {
            return Some(at);
        }
        pos = at + 1;
    }
}

pub(super) fn is_name_end(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>')
}

/// Byte index just past the `>` that ends a start tag whose name ends at `from`; quoted
/// attribute values (a quote right after `=`, spaces allowed) may hold `>`.
pub(super) fn start_tag_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    let mut after_equals = false;
    while i < bytes.len() {
        match bytes[i] {
            b'>' => return i + 1,
            b'=' => after_equals = true,
            q @ (b'"' | b'\'') if after_equals => {
                match bytes[i + 1..].iter().position(|&b| b == q) {
                    Some(p) => i += p + 1,
                    None => return bytes.len(),
                }
                after_equals = false;
            }
            b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' => {}
            _ => after_equals = false,
        }
        i += 1;
    }
    bytes.len()
}

/// Start of the end tag `</name` (any case, followed by a tag-name end) at or after `from`.
pub(super) fn end_tag(html: &str, from: usize, name: &str) -> Option<usize> {
    let bytes = html.as_bytes();
    let mut pos = from;
    loop {
        let at = find_from(html, pos, "</")?;
        let name_start = at + 2;
        let name_end = name_start + name.len();
        if bytes.get(name_start..name_end).is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && bytes.get(name_end).is_none_or(|&b| is_name_end(b))
        {
            return Some(at);
        }
        pos = name_start;
    }
}

/// SVG elements that may appear in a drawing that is stripped whole (SVG 1.1/2 element index;
/// filter primitives `fe*` are matched by prefix). `a`, `font`, `foreignObject` and `script`
/// are left out on purpose: their end tags or contents can close HTML elements.
const SVG_TAGS: &[&str] = &[
    "svg",
    "path",
    "g",
    "defs",
    "use",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "symbol",
    "clippath",
    "lineargradient",
    "radialgradient",
    "stop",
    "mask",
    "pattern",
    "title",
    "desc",
    "text",
    "tspan",
    "textpath",
    "style",
    "filter",
    "image",
    "metadata",
    "marker",
    "switch",
    "view",
    "animate",
    "animatetransform",
    "animatemotion",
    "set",
    "mpath",
];

/// The start of the `</svg` that closes the drawing whose start tag ended at `from`, counting
/// nested `<svg>`s, when everything up to it is SVG markup ([`SVG_TAGS`]). `None` otherwise:
/// an unclosed `<svg>` is closed by the next HTML tag (WHATWG HTML §13.2.6.5, "the rules for
/// parsing tokens in foreign content"), and finding where needs the parser.
fn svg_end_tag(html: &str, from: usize) -> Option<usize> {
    let bytes = html.as_bytes();
    let mut depth = 1usize;
    let mut pos = from;
    loop {
        let at = find_from(html, pos, "<")?;
        if bytes[at..].starts_with(b"<!--") {
            pos = comment_end(html, at + 4);
            continue;
        }
        let closing = bytes.get(at + 1) == Some(&b'/');
        let name_start = at + 1 + usize::from(closing);
        let name_len = bytes[name_start..].iter().position(|&b| is_name_end(b)).unwrap_or(bytes.len() - name_start);
        let name = html[name_start..name_start + name_len].to_ascii_lowercase();
        let tag_end = start_tag_end(bytes, name_start + name_len);
        if name == "svg" {
            if closing {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            } else if !html[..tag_end].trim_end_matches('>').ends_with('/') {
                depth += 1;
            }
        } else if !(SVG_TAGS.contains(&name.as_str()) || name.starts_with("fe")) {
            return None;
        }
        pos = tag_end;
    }
}

/// True when the attributes of a `<script` start tag declare a JSON type.
fn is_json_script(attributes: &str) -> bool {
    attributes.to_ascii_lowercase().contains("json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_and_style_bodies_go_json_and_tags_stay() {
        let html = "<head><style>p{color:red}</style><script type=\"application/ld+json\">{\"@type\":\"A\"}</script>\
                    </head><body><p>a</p><SCRIPT src=x>var s = '<p>no</p>';</SCRIPT ><p>b</p></body>";
        let out = strip_raw_text(html);
        assert_eq!(
            out,
            "<head><style></style><script type=\"application/ld+json\">{\"@type\":\"A\"}</script></head>\
             <body><p>a</p><SCRIPT src=x></SCRIPT ><p>b</p></body>"
        );
    }

    #[test]
    fn svg_bodies_go_nested_ones_included() {
        let html = "<p>a</p><svg viewBox='0 0 1 1'><svg><path d='M0'/></svg><use href='#i'/><svg/>\
                    <text>Logo</text></svg><p>b</p>";
        assert_eq!(strip_raw_text(html), "<p>a</p><svg viewBox='0 0 1 1'></svg><p>b</p>");
        // Unclosed: the parser closes it at </div>; nothing after it may go.
        let html = "<div><svg><use href='#i'/></div><p>after</p><svg><path/></svg>";
        assert_eq!(strip_raw_text(html), "<div><svg><use href='#i'/></div><p>after</p><svg></svg>");
        let html = "<a href=x><svg><path/></a><p>after</p></svg>";
        assert_eq!(strip_raw_text(html), html);
    }

    /// An unclosed quote in a script's start tag (L3S-GN1's indiafm.com page: `src="/te.` runs
    /// into the script's code and on through a second script) makes the script end at its own
    /// end tag, an empty element, and the page's text stays text.
    #[test]
    fn an_unclosed_quote_in_a_scripts_start_tag_ends_it_at_its_end_tag() {
        let html = "<head><script type=\"text/javascript\" src=\"/te.x='y';\n}\n//-->\n</script>\n\
                    <script>var a = \"none\";</script></head><body><p>The article text.</p>\
                    <script>f();</script></body>";
        let pruned = strip_raw_text(html);
        assert_eq!(
            pruned,
            "<head><script></script>\n<script></script></head><body><p>The article text.</p><script></script></body>"
        );
        let doc = crate::html::Document::parse(html);
        assert!(crate::html::segment(&doc).iter().any(|b| b.text == "The article text."));
        // A quote closed inside the tag is no unclosed one, whatever comes after it.
        let html = "<script src=\"a>b.js\">x()</script><p>y</p>";
        assert_eq!(strip_raw_text(html), "<script src=\"a>b.js\"></script><p>y</p>");
    }

    #[test]
    fn an_unclosed_title_ends_with_its_first_line() {
        let html = "<html><head><title>News (The Times)js();\n}\n</script></head><body><p>Text</p></body>";
        let pruned = strip_raw_text(html);
        assert_eq!(
            pruned,
            "<html><head><title>News (The Times)js();</title>\n}\n</script></head><body><p>Text</p></body>"
        );
        let doc = crate::html::Document::parse(html);
        assert_eq!(doc.title.as_deref(), Some("News (The Times)js();"));
        assert!(crate::html::segment(&doc).iter().any(|b| b.text == "Text"));
        // A closed title is left alone, line breaks and all.
        let html = "<title>A\nB</title><p>x</p>";
        assert_eq!(strip_raw_text(html), html);
    }

    #[test]
    fn noscript_text_is_counted_outside_tags() {
        let html = "<p>a</p><noscript><img src=x><p>Hello world</p></noscript><NOSCRIPT>ab c</NOSCRIPT>";
        assert_eq!(prune(html).noscript_chars, 13);
        assert_eq!(noscript_text_chars(html), 13);
        // After escaped script data the scan stops; the rest is counted all the same.
        let html = "<script><!--<script>x</script>--></script><noscript>Hello</noscript>";
        assert_eq!(prune(html).noscript_chars, 5);
        assert_eq!(prune("<p>no noscript</p>").noscript_chars, 0);
    }

    #[test]
    fn unchanged_pages_are_borrowed() {
        assert!(matches!(strip_raw_text("<p>plain <b>text</b></p>"), Cow::Borrowed(_)));
        assert!(matches!(strip_raw_text("<script></script><p>x</p>"), Cow::Borrowed(_)));
    }

    #[test]
    fn script_tags_in_comments_attributes_and_raw_text_are_not_tags() {
        for html in [
            "<!-- <script> --><p>kept</p><!-- </script> -->",
            "<a title='<script>'>kept</a><p>x</p></script>",
            "<title><script></title><p>kept</p>",
            "<textarea><style></textarea><p>kept</p>",
            "<noscript><script>x</script></noscript>",
        ] {
            assert_eq!(strip_raw_text(html), html, "{html}");
        }
    }

    #[test]
    fn escaped_script_data_is_left_to_the_parser() {
        let html = "<p>a</p><script>document.write('<!--<script>x</script>-->')</script><style>s</style><p>b</p>";
        assert_eq!(strip_raw_text(html), html);
    }

    #[test]
    fn unclosed_and_truncated_markup_does_not_panic() {
        for html in ["<script>never closed", "<style", "<a href=\"x>", "<!--", "<!-->x", "</", "<", "<p a='b", "é<ß>"]
        {
            let _ = strip_raw_text(html);
        }
        assert_eq!(strip_raw_text("<p>x</p><script>never closed"), "<p>x</p><script>");
    }

    #[test]
    fn the_parsed_text_is_the_same() {
        use crate::html::{segment, Document};
        let html = "<html><head><title>T <b></title><style>.x{}</style></head><body><div>\
                    <p>First paragraph.</p><script>if (a < b) { x = '</div>'; }</script>\
                    <p>Second <em>one</em>.</p></div></body></html>";
        let stripped = strip_raw_text(html);
        assert!(stripped.len() < html.len());
        let texts = |h: &str| segment(&Document::parse(h)).into_iter().map(|b| b.text).collect::<Vec<_>>();
        assert_eq!(texts(&stripped), texts(html));
    }

    /// Real pages: the blocks are the same with and without the pass. The listed pages once
    /// lost their ends to unclosed `<svg>`s.
    #[test]
    fn real_pages_segment_the_same_with_and_without_it() {
        use crate::html::{segment, Document};
        let texts = |doc: &Document| segment(doc).into_iter().map(|b| b.text).collect::<Vec<_>>();
        for (name, ids) in [
            ("modern2026-dev", &["0212", "0487", "0573"][..]),
            ("trafilatura-eval", &["legrandcontinent.eu.heran"][..]),
        ] {
            let Some(set) = crate::eval::dataset::test_set(name) else { continue };
            let pages = set.pages.iter().filter(|p| ids.contains(&p.id.as_str())).chain(set.pages.iter().take(25));
            let mut checked = 0;
            for page in pages {
                let html = set.read_html(page).expect("page reads");
                let raw = Document::from_html(scraper::Html::parse_document(&html));
                assert_eq!(texts(&Document::parse(&html)), texts(&raw), "{name} {}", page.id);
                assert_eq!(prune(&html).noscript_chars, noscript_text_chars(&html), "{name} {}", page.id);
                checked += 1;
            }
            assert!(checked >= 25 + ids.len(), "{name}: {checked} pages");
        }
    }
}
