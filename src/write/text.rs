//! The plain-text corpus format, for tools that want only the words. Written by
//! [`super::FileWriter`] via [`render`]:
//!
//! ```text
//! # https://example.org/first
//! A heading
//! The first paragraph, on one line.
//! A list item
//!
//! # https://example.org/second
//! …
//! ```
//!
//! A document is a header line `# ` + its `url`, then one line per paragraph (whitespace
//! inside a paragraph collapsed to single spaces, so a paragraph never spans lines;
//! paragraphs without text are left out), then one empty line. Documents are therefore
//! separated by exactly one blank line and a paragraph line is never empty, so the file
//! splits back into documents on blank lines unambiguously. When a record has no
//! paragraphs, its `text` is written the same way, one line per non-blank line.

use crate::model::Record;

/// Append `r` in the plain-text format to `out`.
pub fn render(r: &Record, out: &mut Vec<u8>) {
    let mut s = String::with_capacity(r.text.len() + r.url.len() + 8);
    s.push_str("# ");
    push_collapsed(&mut s, &r.url);
    s.push('\n');
    if r.paragraphs.is_empty() {
        for line in r.text.lines() {
            push_line(&mut s, line);
        }
    } else {
        for p in &r.paragraphs {
            push_line(&mut s, &p.text);
        }
    }
    s.push('\n');
    out.extend_from_slice(s.as_bytes());
}

/// `text` whitespace-collapsed plus `\n`, unless it has no non-whitespace character.
fn push_line(s: &mut String, text: &str) {
    if text.split_whitespace().next().is_some() {
        push_collapsed(s, text);
        s.push('\n');
    }
}

fn push_collapsed(s: &mut String, text: &str) {
    for (i, w) in text.split_whitespace().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Paragraph, ParagraphKind};
    use crate::write::tests::record;
    use crate::write::{open_writer, CorpusFormat};

    #[test]
    fn header_paragraph_lines_blank_line() {
        let mut r = record(1);
        r.paragraphs.push(Paragraph { kind: ParagraphKind::Paragraph, text: " two\nlines\t here ".into() });
        r.paragraphs.push(Paragraph { kind: ParagraphKind::Paragraph, text: " \n ".into() });
        let mut out = Vec::new();
        render(&r, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "# https://example.org/a?b=1&c=1\n\
             Title number 1\n\
             Fish & chips <cost> \"5\" pounds, (really).\n\
             Item one\n\
             two lines here\n\
             \n"
        );
    }

    #[test]
    fn record_without_paragraphs_uses_text() {
        let mut r = record(2);
        r.paragraphs.clear();
        r.text = "First para.\n\nSecond para.".into();
        let mut out = Vec::new();
        render(&r, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "# https://example.org/a?b=1&c=2\nFirst para.\nSecond para.\n\n");
    }

    #[test]
    fn file_splits_back_into_documents() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = open_writer(CorpusFormat::Text, dir.path(), 0).unwrap();
        for n in 0..4 {
            w.write(&record(n)).unwrap();
        }
        let content = std::fs::read_to_string(dir.path().join("corpus.txt")).unwrap();
        let docs: Vec<&str> = content.trim_end().split("\n\n").collect();
        assert_eq!(docs.len(), 4);
        for (n, d) in docs.iter().enumerate() {
            let lines: Vec<&str> = d.lines().collect();
            assert_eq!(lines[0], format!("# https://example.org/a?b=1&c={n}"));
            assert_eq!(lines.len(), 4);
        }
    }
}
