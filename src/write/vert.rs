//! The vertical corpus format of Sketch Engine, Manatee and Onion: structures as XML-like tags
//! on their own lines, one token per line. Written by [`super::FileWriter`] via [`render`].
//!
//! ```text
//! <doc id="5f0c…" url="https://x.org/a?b=1&amp;c=2" final_url="…" host="x.org" title="A &quot;title&quot;" fetched_at="2024-05-01T12:00:00Z" http_status="200" lang="en" lang_score="0.990" word_count="120" extractor="default" page_type="article" page_type_prob="0.973">
//! <head>
//! <s>
//! Title
//! </s>
//! </head>
//! <p>
//! <s>
//! Fish
//! &amp;
//! chips
//! <g/>
//! ,
//! </s>
//! </p>
//! <p type="list_item">
//! …
//! </p>
//! </doc>
//! ```
//!
//! - The record's headline, when it has one, is the first structure, `<head type="headline">`;
//!   then paragraphs are `<p>` structures (list items with `type="list_item"`), headings `<head>`
//!   (the TEI and BNC element that Sketch Engine corpora use for headings); inside them every
//!   sentence is an `<s>` (UAX #29 sentence boundaries).
//! - Tokens ([`super::tokenize`]): UAX #29 words and punctuation, Chinese (`lang` `zh`, jieba)
//!   and Japanese (`ja`, TinySegmenter) cut into words; `<g/>` (glue) stands between two tokens
//!   that no whitespace separated in the text, so the text can be rebuilt.
//! - `<doc>` attributes, in this order, each left out when the record has no value: id, url,
//!   final_url, host, title, fetched_at, http_status, content_type, date, author, language
//!   (jusText's stoplist), lang, lang_score (3 decimals), word_count, extractor, page_type
//!   (`article`/`other`), page_type_prob (3 decimals), warc_record_id, warc_file, warc_offset.
//!   Whitespace in values is collapsed to one space.
//! - XML escaping: `&`, `<`, `>` in tokens and attribute values, `"` in attribute values;
//!   control characters and U+FFFE, U+FFFF are dropped.
//! - Paragraphs without tokens are left out. Each document ends with `</doc>\n`.

use crate::model::{ParagraphKind, Record};
use crate::write::tokenize::sentences;

/// Append `r` in the vertical format to `out`.
pub fn render(r: &Record, out: &mut Vec<u8>) {
    let mut s = String::with_capacity(r.text.len() * 3 + 256);
    s.push_str("<doc");
    let opt = |s: &mut String, name: &str, value: Option<&str>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            attr(s, name, v);
        }
    };
    opt(&mut s, "id", Some(&r.id));
    attr(&mut s, "url", &r.url);
    attr(&mut s, "final_url", &r.final_url);
    attr(&mut s, "host", &r.host);
    opt(&mut s, "title", r.title.as_deref());
    attr(&mut s, "fetched_at", &r.fetched_at);
    opt(&mut s, "http_status", r.http_status.map(|h| h.to_string()).as_deref());
    opt(&mut s, "content_type", r.content_type.as_deref());
    opt(&mut s, "date", r.date.as_deref());
    opt(&mut s, "author", r.author.as_deref());
    opt(&mut s, "language", r.language.as_deref());
    opt(&mut s, "lang", r.lang.as_deref());
    opt(&mut s, "lang_score", r.lang_score.map(|p| format!("{p:.3}")).as_deref());
    opt(&mut s, "word_count", Some(&r.word_count.to_string()));
    attr(&mut s, "extractor", &r.extractor);
    opt(&mut s, "page_type", r.page_type.map(|t| t.name()));
    opt(&mut s, "page_type_prob", r.page_type_prob.map(|p| format!("{p:.3}")).as_deref());
    opt(&mut s, "warc_record_id", r.warc_record_id.as_deref());
    opt(&mut s, "warc_file", r.warc_file.as_deref());
    opt(&mut s, "warc_offset", r.warc_offset.map(|o| o.to_string()).as_deref());
    s.push_str(">\n");
    let headline = r.headline.iter().map(|h| (true, ParagraphKind::Heading, h.as_str()));
    for (is_headline, kind, text) in headline.chain(r.paragraphs.iter().map(|p| (false, p.kind, p.text.as_str()))) {
        let sents = sentences(text, r.lang.as_deref());
        if sents.is_empty() {
            continue;
        }
        let (open, close) = match kind {
            ParagraphKind::Heading if is_headline => ("<head type=\"headline\">\n", "</head>\n"),
            ParagraphKind::Heading => ("<head>\n", "</head>\n"),
            ParagraphKind::ListItem => ("<p type=\"list_item\">\n", "</p>\n"),
            ParagraphKind::Paragraph => ("<p>\n", "</p>\n"),
        };
        s.push_str(open);
        for sentence in sents {
            s.push_str("<s>\n");
            for t in sentence {
                if t.glued {
                    s.push_str("<g/>\n");
                }
                escape_into(&mut s, t.text, false);
                s.push('\n');
            }
            s.push_str("</s>\n");
        }
        s.push_str(close);
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
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => s.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::tests::record;
    use crate::write::{open_writer, CorpusFormat};

    /// The headline is the document's first structure, marked as the headline; no headline,
    /// no such structure.
    #[test]
    fn the_headline_is_the_first_structure() {
        let mut r = record(2);
        r.headline = Some("Bridge closes".into());
        let mut out = Vec::new();
        render(&r, &mut out);
        let text = String::from_utf8(out).unwrap();
        let body = text.split_once(">\n").unwrap().1;
        assert!(body.starts_with("<head type=\"headline\">\n<s>\nBridge\ncloses\n</s>\n</head>\n<"), "{body}");
        assert_eq!(body.matches("<head type=\"headline\">").count(), 1);
        r.headline = None;
        let mut out = Vec::new();
        render(&r, &mut out);
        assert!(!String::from_utf8(out).unwrap().contains("headline"));
    }

    #[test]
    fn document_structure_glue_and_escaping() {
        let mut r = record(3);
        r.language = None;
        r.paragraphs.push(crate::model::Paragraph { kind: ParagraphKind::Paragraph, text: "   ".into() });
        r.title = Some("Line\none\u{1}".into());
        r.id = "a1".into();
        r.http_status = Some(200);
        r.date = Some("2024-04-30".into());
        r.warc_record_id = Some("<urn:uuid:x>".into());
        let mut out = Vec::new();
        render(&r, &mut out);
        let s = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(
            lines[0],
            "<doc id=\"a1\" url=\"https://example.org/a?b=1&amp;c=3\" \
             final_url=\"https://example.org/a?b=1&amp;c=3\" host=\"example.org\" \
             title=\"Line one\" fetched_at=\"2024-05-01T12:00:00Z\" http_status=\"200\" date=\"2024-04-30\" \
             lang=\"en\" lang_score=\"1.000\" word_count=\"0\" extractor=\"justext\" page_type=\"article\" \
             page_type_prob=\"0.875\" warc_record_id=\"&lt;urn:uuid:x&gt;\">"
        );
        assert_eq!(&lines[1..7], &["<head>", "<s>", "Title", "number", "3", "</s>"]);
        assert_eq!(&lines[7..9], &["</head>", "<p>"]);
        // "Fish & chips <cost> \"5\" pounds, (really)."
        let p_end = lines.iter().position(|l| *l == "</p>").unwrap();
        let body: Vec<&str> = lines[9..p_end].to_vec();
        assert_eq!(body.first(), Some(&"<s>"));
        assert_eq!(body.last(), Some(&"</s>"));
        let rebuilt = rebuild(&body);
        assert_eq!(rebuilt, "Fish &amp; chips &lt;cost&gt; \"5\" pounds, (really).");
        assert!(body.contains(&"&amp;") && body.contains(&"&lt;") && body.contains(&"pounds"));
        assert_eq!(lines[p_end + 1], "<p type=\"list_item\">");
        // The whitespace-only paragraph is left out.
        assert_eq!(lines.last(), Some(&"</doc>"));
        assert!(s.ends_with("</doc>\n"));
    }

    /// The text of token lines, with a space between tokens unless `<g/>` glues them.
    fn rebuild(lines: &[&str]) -> String {
        let mut out = String::new();
        let mut glue = true;
        for l in lines {
            match *l {
                "<g/>" => glue = true,
                l if l.starts_with('<') && l.ends_with('>') && !l.starts_with("&") => {}
                token => {
                    if !glue {
                        out.push(' ');
                    }
                    out.push_str(token);
                    glue = false;
                }
            }
        }
        out
    }

    #[test]
    fn japanese_is_tokenised_with_sentences_and_glue() {
        let mut r = record(1);
        r.lang = Some("ja".into());
        r.paragraphs = vec![crate::model::Paragraph {
            kind: ParagraphKind::Paragraph,
            text: "今日は京都の古い寺を訪ねました。庭園がとても美しかったです。\u{7}".into(),
        }];
        let mut out = Vec::new();
        render(&r, &mut out);
        let s = String::from_utf8(out).unwrap();
        let tokens: Vec<&str> = s.lines().filter(|l| !l.starts_with('<')).collect();
        assert!(tokens.len() >= 10, "{tokens:?}");
        assert!(tokens.iter().all(|t| t.chars().count() <= 6 && !t.is_empty()), "{tokens:?}");
        assert_eq!(s.lines().filter(|l| *l == "<s>").count(), 2);
        assert!(s.lines().any(|l| l == "<g/>"));
        assert!(!s.contains('\u{7}'));
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
        let p_open = content.lines().filter(|l| l.starts_with("<p") || *l == "<head>").count();
        let p_close = content.lines().filter(|l| *l == "</p>" || *l == "</head>").count();
        let s_open = content.lines().filter(|l| *l == "<s>").count();
        let s_close = content.lines().filter(|l| *l == "</s>").count();
        assert_eq!((opens, closes), (3, 3));
        assert_eq!((p_open, p_close), (9, 9));
        assert_eq!(s_open, s_close);
        assert!(s_open >= 9);
        // No raw markup characters outside structure lines.
        for l in content.lines().filter(|l| !l.starts_with('<')) {
            assert!(!l.contains('<') && !l.contains('>'), "{l}");
        }
    }
}
