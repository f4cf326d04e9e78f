//! The JSONL corpus format: one [`Record`] per line, serialised with serde_json (the fields of
//! the record table of `docs/corpus.md`; `paragraph_kinds` instead of the paragraphs' text, which is
//! `text` split at blank lines; optional fields left out when absent and read as absent from
//! older corpora; read back with [`Record::from_json`]). JSON escapes every newline inside
//! strings, so a record is always exactly one line, terminated by `\n`. Written by
//! [`super::FileWriter`].

use crate::model::Record;

/// Append `r` as one JSON line (with its trailing `\n`) to `out`.
pub fn render(r: &Record, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    serde_json::to_writer(&mut *out, r)?;
    out.push(b'\n');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::tests::record;
    use crate::write::{open_writer, CorpusFormat};

    #[test]
    fn one_line_per_record_round_trips() {
        let r = record(7);
        let mut out = Vec::new();
        render(&r, &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.ends_with('\n'));
        assert_eq!(s.matches('\n').count(), 1);
        let back = Record::from_json(s.trim_end()).unwrap();
        assert_eq!(back, r, "paragraphs come back from text and paragraph_kinds");
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert!(v.get("paragraphs").is_none(), "the paragraphs' text is not written twice");
        assert_eq!(v["paragraph_kinds"], serde_json::json!(["heading", "paragraph", "list_item"]));
        let mut odd = record(7);
        odd.text.push_str("\nwith a newline\r\nand \u{2028} a line separator");
        out = Vec::new();
        render(&odd, &mut out).unwrap();
        assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 1, "one line whatever the text");
        // A record of an older corpus, paragraphs with their text and no kinds list.
        let old = r#"{"url":"u","final_url":"u","host":"h","title":null,"fetched_at":"t","language":null,"extractor":"x","text":"A\n\nB","paragraphs":[{"kind":"heading","text":"A"},{"kind":"paragraph","text":"B"}]}"#;
        let old = Record::from_json(old).unwrap();
        assert_eq!(old.paragraph_kinds, [crate::model::ParagraphKind::Heading, crate::model::ParagraphKind::Paragraph]);
        assert_eq!(v["page_type"], "article");
        assert!((v["page_type_prob"].as_f64().unwrap() - 0.875).abs() < 1e-6);
    }

    #[test]
    fn records_without_a_page_type_still_read() {
        let mut r = record(1);
        (r.page_type, r.page_type_prob) = (None, None);
        let mut out = Vec::new();
        render(&r, &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(!s.contains("page_type"), "{s}");
        let back = Record::from_json(s.trim_end()).unwrap();
        assert_eq!(back, r);
        let other = Record::from_json(&s.replace("\"paragraph_kinds\"", "\"page_type\":\"other\",\"paragraph_kinds\""))
            .unwrap();
        assert_eq!(other.page_type, Some(crate::model::PageType::Other));
    }

    #[test]
    fn writer_appends_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = open_writer(CorpusFormat::Jsonl, dir.path(), 0).unwrap();
        let a = w.write(&record(1)).unwrap();
        let b = w.write(&record(2)).unwrap();
        drop(w);
        // Reopening at the end appends.
        let mut w = open_writer(CorpusFormat::Jsonl, dir.path(), b).unwrap();
        let c = w.write(&record(3)).unwrap();
        let content = std::fs::read_to_string(dir.path().join("corpus.jsonl")).unwrap();
        assert_eq!(content.len() as u64, c);
        let recs: Vec<Record> = content.lines().map(|l| Record::from_json(l).unwrap()).collect();
        assert_eq!(recs, vec![record(1), record(2), record(3)]);
        assert_eq!(content[..a as usize].lines().count(), 1);
    }
}
