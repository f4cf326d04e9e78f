//! The JSONL corpus format: one [`Record`] per line, serialised with serde_json (field names
//! as in `model.rs`: url, final_url, host, title, fetched_at, language, extractor, text,
//! paragraphs with kind and text, page_type and page_type_prob — the last two left out when
//! absent, and read as absent from older corpora). JSON escapes every newline inside
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
        let mut r = record(7);
        r.text.push_str("\nwith a newline\r\nand \u{2028} a line separator");
        let mut out = Vec::new();
        render(&r, &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.ends_with('\n'));
        assert_eq!(s.matches('\n').count(), 1);
        let back: Record = serde_json::from_str(s.trim_end()).unwrap();
        assert_eq!(back, r);
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["paragraphs"][0]["kind"], "heading");
        assert_eq!(v["paragraphs"][2]["kind"], "list_item");
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
        let back: Record = serde_json::from_str(s.trim_end()).unwrap();
        assert_eq!(back, r);
        let other: Record =
            serde_json::from_str(&s.replace("\"paragraphs\"", "\"page_type\":\"other\",\"paragraphs\"")).unwrap();
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
        let recs: Vec<Record> = content.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(recs, vec![record(1), record(2), record(3)]);
        assert_eq!(content[..a as usize].lines().count(), 1);
    }
}
