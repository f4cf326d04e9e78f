//! Dolma's document format (AllenAI's Dolma toolkit, "Data format" in its docs): one JSON
//! object per line with the required `id`, `text`, `source` and `added`, the optional
//! `created`, and everything else under `metadata`.
//!
//! ```text
//! {"id":"5f0c…","text":"…","source":"webcorpus","added":"2026-11-25T06:00:00Z","created":"2024-03-05",
//!  "metadata":{"url":"…","final_url":"…","host":"…","title":"…","lang":"en","lang_score":0.99,…}}
//! ```
//!
//! - `id`: the record id (xxh3-128 of the final URL); `source`: `"webcorpus"`; `added`: the
//!   fetch time (RFC 3339); `created`: the page's publication date when it states one, else
//!   absent.
//! - `metadata`: every other [`Record`] field that has a value (url, final_url, host, title,
//!   fetched_at, http_status, content_type, date, author, language, lang, lang_score,
//!   word_count, extractor, page_type, page_type_prob, warc_record_id, warc_file, warc_offset)
//!   and `paragraph_kinds`, the kind of each paragraph of `text` (paragraphs are separated by a
//!   blank line).

use crate::model::Record;
use serde_json::{json, Map, Value};

/// The `source` of every document.
pub const SOURCE: &str = "webcorpus";

/// Append `r` as one Dolma JSON line to `out`.
pub fn render(r: &Record, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    let mut full = serde_json::to_value(r)?;
    let Value::Object(fields) = &mut full else { unreachable!("a record serialises to an object") };
    let mut metadata = Map::new();
    for (key, value) in std::mem::take(fields) {
        if !matches!(key.as_str(), "id" | "text" | "paragraphs") && !value.is_null() {
            metadata.insert(key, value);
        }
    }
    let kinds: Vec<Value> = r.paragraphs.iter().map(|p| serde_json::to_value(p.kind).unwrap_or(Value::Null)).collect();
    metadata.insert("paragraph_kinds".into(), Value::Array(kinds));
    let mut doc = json!({ "id": r.id, "text": r.text, "source": SOURCE, "added": r.fetched_at });
    if let Some(date) = &r.date {
        doc["created"] = Value::String(date.clone());
    }
    doc["metadata"] = Value::Object(metadata);
    serde_json::to_writer(&mut *out, &doc)?;
    out.push(b'\n');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::tests::record;

    #[test]
    fn dolma_documents_have_the_required_fields() {
        let mut r = record(4);
        r.date = Some("2024-03-05".into());
        let mut out = Vec::new();
        render(&r, &mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s.lines().count(), 1);
        let v: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["id"], r.id);
        assert_eq!(v["text"], r.text);
        assert_eq!(v["source"], "webcorpus");
        assert_eq!(v["added"], r.fetched_at);
        assert_eq!(v["created"], "2024-03-05");
        assert_eq!(v["metadata"]["url"], r.url);
        assert_eq!(v["metadata"]["lang"], "en");
        assert_eq!(v["metadata"]["paragraph_kinds"], json!(["heading", "paragraph", "list_item"]));
        assert!(v["metadata"].get("text").is_none() && v["metadata"].get("paragraphs").is_none());
        assert!(v["metadata"].get("warc_file").is_none(), "absent fields are left out");
    }
}
