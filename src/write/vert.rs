//! The vertical corpus format of Sketch Engine, Manatee and Onion: structures as XML-like tags
//! on their own lines, one token per line. Written by [`super::FileWriter`] via [`render`].
//!
//! ```text
//! <doc id="5f0c…" url="https://x.org/a?b=1&amp;c=2" final_url="…" host="x.org" title="A &quot;title&quot;" fetched_at="2024-05-01T12:00:00Z" language="English" extractor="justext" page_type="article" page_type_prob="0.973">
//! <p type="heading">
//! Title
//! </p>
//! <p>
//! Fish
//! &amp;
//! chips
//! ,
//! </p>
//! <p type="list_item">
//! …
//! </p>
//! </doc>
//! ```
//!
//! - Every paragraph is a `<p>` structure, so tools that work on `p` (Onion's paragraph
//!   dedup, Sketch Engine's paragraph context) see all of them; headings carry
//!   `type="heading"`, list items `type="list_item"` (the serde names of
//!   [`ParagraphKind`]), plain paragraphs no attribute.
//! - `<doc>` attributes: id, url, final_url, host, title, fetched_at, language, lang, extractor,
//!   page_type (`article`/`other`), page_type_prob (3 decimals), warc_record_id; an absent
//!   id, title, language, page type or WARC record is left out. Whitespace in values is collapsed to one space.
//! - Tokens ([`tokens`]): whitespace-separated words with leading and trailing punctuation
//!   split off (punctuation = neither letter, digit nor combining mark) — each run of one repeated punctuation character is its own token (`"(`→ `"`,
//!   `(`; `...` stays one token); a token without any letter or digit stays whole; inner
//!   punctuation stays (`don't`, `3.5`, `e-mail`).
//! - XML escaping: `&`, `<`, `>` in tokens and attribute values, `"` in attribute values;
//!   characters not allowed in XML 1.0 (C0 controls other than tab, U+FFFE, U+FFFF) are
//!   dropped.
//! - Paragraphs without tokens are left out. Each document ends with `</doc>\n`.

use crate::dedup::shingle::is_word_char;
use crate::model::{ParagraphKind, Record};

/// Append `r` in the vertical format to `out`.
pub fn render(r: &Record, out: &mut Vec<u8>) {
    let mut s = String::with_capacity(r.text.len() * 2 + 256);
    s.push_str("<doc");
    if !r.id.is_empty() {
        attr(&mut s, "id", &r.id);
    }
    attr(&mut s, "url", &r.url);
    attr(&mut s, "final_url", &r.final_url);
    attr(&mut s, "host", &r.host);
    if let Some(title) = &r.title {
        attr(&mut s, "title", title);
    }
    attr(&mut s, "fetched_at", &r.fetched_at);
    if let Some(language) = &r.language {
        attr(&mut s, "language", language);
    }
    if let Some(lang) = &r.lang {
        attr(&mut s, "lang", lang);
    }
    attr(&mut s, "extractor", &r.extractor);
    if let Some(t) = r.page_type {
        attr(&mut s, "page_type", t.name());
    }
    if let Some(p) = r.page_type_prob {
        attr(&mut s, "page_type_prob", &format!("{p:.3}"));
    }
    if let Some(id) = &r.warc_record_id {
        attr(&mut s, "warc_record_id", id);
    }
    s.push_str(">\n");
    for p in &r.paragraphs {
        let toks = tokens(&p.text);
        if toks.is_empty() {
            continue;
        }
        s.push_str(match p.kind {
            ParagraphKind::Heading => "<p type=\"heading\">\n",
            ParagraphKind::ListItem => "<p type=\"list_item\">\n",
            ParagraphKind::Paragraph => "<p>\n",
        });
        for t in toks {
            escape_into(&mut s, t, false);
            s.push('\n');
        }
        s.push_str("</p>\n");
    }
    s.push_str("</doc>\n");
    out.extend_from_slice(s.as_bytes());
}

/// ` name="value"`, value whitespace-collapsed and escaped.
fn attr(s: &mut String, name: &str, value: &str) {
    s.push(' ');
    s.push_str(name);
    s.push_str("=\"");
    for (i, part) in value.split_whitespace().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        escape_into(s, part, true);
    }
    s.push('"');
}

/// XML-escape `text` into `s` (`"` too when `in_attr`), dropping characters XML 1.0 forbids.
fn escape_into(s: &mut String, text: &str, in_attr: bool) {
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' if in_attr => s.push_str("&quot;"),
            '\t' | '\n' | '\r' => s.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => s.push(c),
        }
    }
}

/// The tokens of `text` for the vertical format (rules in the module doc), as slices of it.
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        if !word.chars().any(is_word_char) {
            out.push(word);
            continue;
        }
        // Leading punctuation runs.
        let mut rest = word;
        while let Some(c) = rest.chars().next().filter(|&c| !is_word_char(c)) {
            let run = rest.len() - rest.trim_start_matches(c).len();
            out.push(&rest[..run]);
            rest = &rest[run..];
        }
        // Trailing punctuation runs, collected right to left.
        let mut trailing = Vec::new();
        while let Some(c) = rest.chars().next_back().filter(|&c| !is_word_char(c)) {
            let core = rest.trim_end_matches(c);
            trailing.push(&rest[core.len()..]);
            rest = core;
        }
        // `rest` is not empty: the word has an alphanumeric character.
        out.push(rest);
        out.extend(trailing.into_iter().rev());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::tests::record;
    use crate::write::{open_writer, CorpusFormat};

    #[test]
    fn tokens_split_edge_punctuation() {
        assert_eq!(
            tokens("\"(Hello), world... don't 3.5% — ok!?"),
            vec!["\"", "(", "Hello", ")", ",", "world", "...", "don't", "3.5", "%", "—", "ok", "!", "?"]
        );
        assert!(tokens("  ").is_empty());
    }

    #[test]
    fn document_structure_and_escaping() {
        let mut r = record(3);
        r.language = None;
        r.paragraphs.push(crate::model::Paragraph { kind: ParagraphKind::Paragraph, text: "   ".into() });
        r.title = Some("Line\none\u{1}".into());
        r.id = "a1".into();
        r.warc_record_id = Some("<urn:uuid:x>".into());
        let mut out = Vec::new();
        render(&r, &mut out);
        let s = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(
            lines[0],
            "<doc id=\"a1\" url=\"https://example.org/a?b=1&amp;c=3\" \
             final_url=\"https://example.org/a?b=1&amp;c=3\" host=\"example.org\" \
             title=\"Line one\" fetched_at=\"2024-05-01T12:00:00Z\" lang=\"en\" extractor=\"justext\" \
             page_type=\"article\" page_type_prob=\"0.875\" warc_record_id=\"&lt;urn:uuid:x&gt;\">"
        );
        assert_eq!(lines[1], "<p type=\"heading\">");
        assert_eq!(&lines[2..5], &["Title", "number", "3"]);
        assert_eq!(lines[5], "</p>");
        assert_eq!(lines[6], "<p>");
        // "Fish & chips <cost> \"5\" pounds, (really)."
        assert_eq!(
            &lines[7..19],
            &["Fish", "&amp;", "chips", "&lt;", "cost", "&gt;", "\"", "5", "\"", "pounds", ",", "("]
        );
        assert_eq!(&lines[19..22], &["really", ")", "."]);
        assert_eq!(lines[22], "</p>");
        assert_eq!(lines[23], "<p type=\"list_item\">");
        assert_eq!(&lines[24..27], &["Item", "one", "</p>"]);
        // The whitespace-only paragraph is left out.
        assert_eq!(lines[27], "</doc>");
        assert_eq!(lines.len(), 28);
        assert!(s.ends_with("</doc>\n"));
    }

    #[test]
    fn writer_produces_balanced_documents() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = open_writer(CorpusFormat::Vert, dir.path(), 0).unwrap();
        for n in 0..3 {
            w.write(&record(n)).unwrap();
        }
        let content = std::fs::read_to_string(dir.path().join("corpus.vert")).unwrap();
        let opens = content.lines().filter(|l| l.starts_with("<doc ")).count();
        let closes = content.lines().filter(|l| *l == "</doc>").count();
        let p_open = content.lines().filter(|l| l.starts_with("<p")).count();
        let p_close = content.lines().filter(|l| *l == "</p>").count();
        assert_eq!((opens, closes), (3, 3));
        assert_eq!((p_open, p_close), (9, 9));
        // No raw markup characters outside structure lines.
        for l in content.lines().filter(|l| !l.starts_with('<')) {
            assert!(!l.contains('<') && !l.contains('>'), "{l}");
        }
    }
}
