//! `webcorpus dedup`: Onion (Pomikálek 2011) as a tool of its own over existing corpora — the
//! same n, threshold and paragraph rules as the crawl, with the seen set in memory
//! ([`SeenSet`]). Inputs are read in the order given and the first instance of a paragraph
//! wins, so it also merges the corpora of several crawls. The principal function is
//! [`dedup_corpora`].
//!
//! Formats (all inputs in one format, the output in the same):
//!
//! - **JSONL**: one JSON object per line. Its paragraphs are `paragraphs[].text` when the
//!   record has that array (corpora of other tools, older webcorpus ones), else `text` split on
//!   blank lines (webcorpus, dolma, datatrove, trafilatura), with their kinds from
//!   `paragraph_kinds` (top level or under Dolma's `metadata`) when it has one per paragraph.
//!   Kept paragraphs replace `text`, `paragraphs` and `paragraph_kinds`; every other key stays.
//! - **vertical**: `<doc …>` … `</doc>` with `<p …>` … `</p>` structures, one token per line;
//!   a paragraph's words are its tokens. Lines of dropped paragraphs are left out; all other
//!   lines stay.
//! - **text**: webcorpus's plain text (`# url` line, one line per paragraph, a blank line).
//!
//! A document left without paragraphs is dropped.

use super::{DedupConfig, DedupError, Onion, OnionScratch, SeenSet};
use crate::model::{Paragraph, ParagraphKind};
use crate::write::CorpusFormat;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Errors of `webcorpus dedup`.
#[derive(Debug, thiserror::Error)]
pub enum DedupToolError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A JSONL line is not a JSON object.
    #[error("{path}:{line}: not a JSON object: {reason}")]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// serde's message.
        reason: String,
    },
    /// The inputs are in different formats, or a format cannot be told from a name.
    #[error("{0}")]
    Format(String),
    /// Onion's parameters.
    #[error(transparent)]
    Dedup(#[from] DedupError),
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DedupSummary {
    /// Documents read.
    pub documents: u64,
    /// Documents written (with at least one kept paragraph).
    pub documents_kept: u64,
    /// Paragraphs read.
    pub paragraphs: u64,
    /// Paragraphs dropped as duplicates.
    pub duplicates: u64,
    /// Bytes of paragraph text read.
    pub text_bytes: u64,
    /// Distinct n-grams in the seen set at the end.
    pub ngrams: u64,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Wall time inside Onion alone (shingling, look-ups, inserts into the seen set), seconds:
    /// the rest is reading, parsing and writing the corpora.
    pub onion_seconds: f64,
}

/// The corpus format of `path` by its name: `.jsonl`/`.json`/`.ndjson`, `.vert`, `.txt`.
///
/// # Errors
/// [`DedupToolError::Format`] for another name.
pub fn format_of(path: &Path) -> Result<CorpusFormat, DedupToolError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let ext = name.rsplit('.').next().unwrap_or("");
    match ext {
        "jsonl" | "json" | "ndjson" => Ok(CorpusFormat::Jsonl),
        "vert" | "vertical" => Ok(CorpusFormat::Vert),
        "txt" => Ok(CorpusFormat::Text),
        _ => Err(DedupToolError::Format(format!(
            "{}: cannot tell the corpus format from the name (use .jsonl, .vert or .txt, or --format)",
            path.display()
        ))),
    }
}

/// Deduplicate `inputs` (in `format`, in this order) into `out`. `on_bytes` is called with
/// the input bytes read so far (for a progress bar).
///
/// # Errors
/// [`DedupToolError`]: unreadable inputs, an unwritable output, a bad JSONL line.
pub fn dedup_corpora(
    inputs: &[PathBuf],
    format: CorpusFormat,
    out: &Path,
    cfg: &DedupConfig,
    mut on_bytes: impl FnMut(u64),
) -> Result<DedupSummary, DedupToolError> {
    let start = Instant::now();
    let mut run = Run {
        onion: Onion::new(cfg.onion())?,
        seen: SeenSet::new(cfg.seen_params()),
        scratch: OnionScratch::default(),
        summary: DedupSummary::default(),
    };
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DedupToolError::Io { path, source }
    };
    let mut writer = BufWriter::with_capacity(1 << 20, File::create(out).map_err(io(out))?);
    let mut read = 0u64;
    for input in inputs {
        let reader = BufReader::with_capacity(1 << 20, File::open(input).map_err(io(input))?);
        let mut count = |n: usize| {
            read += n as u64;
            if read % (1 << 20) < n as u64 {
                on_bytes(read);
            }
        };
        match format {
            CorpusFormat::Jsonl | CorpusFormat::Dolma => run.jsonl(input, reader, &mut writer, &mut count)?,
            CorpusFormat::Vert => run.blocks(input, reader, &mut writer, &mut count, vert_paragraphs)?,
            CorpusFormat::Text => run.blocks(input, reader, &mut writer, &mut count, text_paragraphs)?,
        }
    }
    on_bytes(read);
    writer.flush().map_err(io(out))?;
    run.summary.ngrams = run.seen.len();
    run.summary.seconds = start.elapsed().as_secs_f64();
    Ok(run.summary)
}

struct Run {
    onion: Onion,
    seen: SeenSet,
    scratch: OnionScratch,
    summary: DedupSummary,
}

/// The `paragraph_kinds` of a JSONL document (top level, or Dolma's `metadata`), if any.
fn kinds_of(doc: &serde_json::Map<String, serde_json::Value>) -> Option<Vec<ParagraphKind>> {
    let kinds = doc.get("paragraph_kinds").or_else(|| doc.get("metadata")?.get("paragraph_kinds"))?;
    serde_json::from_value(kinds.clone()).ok()
}

/// Line ranges of a document's paragraphs and each paragraph's text.
type Spans = Vec<(std::ops::Range<usize>, String)>;

impl Run {
    /// Onion over one document: which of `paragraphs` are kept.
    fn keep(&mut self, paragraphs: &[Paragraph]) -> Result<Vec<bool>, DedupToolError> {
        self.summary.documents += 1;
        self.summary.paragraphs += paragraphs.len() as u64;
        self.summary.text_bytes += paragraphs.iter().map(|p| p.text.len() as u64).sum::<u64>();
        let onion_start = Instant::now();
        let outcome = self.onion.filter_with(&mut self.scratch, paragraphs, &self.seen)?;
        self.seen.insert_all(&outcome.new_hashes);
        self.summary.onion_seconds += onion_start.elapsed().as_secs_f64();
        self.summary.duplicates += outcome.dropped as u64;
        if !outcome.all_dropped() {
            self.summary.documents_kept += 1;
        }
        Ok(outcome.kept_mask)
    }

    fn jsonl(
        &mut self,
        path: &Path,
        reader: impl BufRead,
        out: &mut impl Write,
        count: &mut impl FnMut(usize),
    ) -> Result<(), DedupToolError> {
        let io = |source| DedupToolError::Io { path: path.to_path_buf(), source };
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(io)?;
            count(line.len() + 1);
            if line.trim().is_empty() {
                continue;
            }
            let bad = |reason: String| DedupToolError::Json { path: path.to_path_buf(), line: i + 1, reason };
            let mut doc: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
            let structured = doc.get("paragraphs").and_then(|p| p.as_array()).is_some_and(|a| !a.is_empty());
            let paragraphs: Vec<Paragraph> = if structured {
                serde_json::from_value(doc["paragraphs"].clone()).map_err(|e| bad(format!("paragraphs: {e}")))?
            } else {
                let text = doc.get("text").and_then(|t| t.as_str()).unwrap_or("");
                let texts: Vec<&str> = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()).collect();
                let kinds: Vec<ParagraphKind> = kinds_of(&doc).unwrap_or_default();
                let kinds = (kinds.len() == texts.len()).then_some(kinds);
                texts
                    .iter()
                    .enumerate()
                    .map(|(i, p)| Paragraph {
                        kind: kinds.as_ref().map_or(ParagraphKind::Paragraph, |k| k[i]),
                        text: p.to_string(),
                    })
                    .collect()
            };
            let mask = self.keep(&paragraphs)?;
            let kept: Vec<Paragraph> = paragraphs.into_iter().zip(&mask).filter(|(_, k)| **k).map(|(p, _)| p).collect();
            if kept.is_empty() {
                continue;
            }
            doc.insert("text".into(), crate::model::join_paragraphs(&kept).into());
            if structured {
                doc.insert("paragraphs".into(), serde_json::to_value(&kept).expect("paragraphs serialise"));
            }
            // webcorpus's `paragraph_kinds` (Dolma: under `metadata`) follow the kept paragraphs.
            let kinds: Vec<ParagraphKind> = kept.iter().map(|p| p.kind).collect();
            let kinds = serde_json::to_value(kinds).expect("kinds serialise");
            if doc.contains_key("paragraph_kinds") {
                doc.insert("paragraph_kinds".into(), kinds);
            } else if let Some(meta) = doc.get_mut("metadata").and_then(|m| m.as_object_mut()) {
                if meta.contains_key("paragraph_kinds") {
                    meta.insert("paragraph_kinds".into(), kinds);
                }
            }
            serde_json::to_writer(&mut *out, &doc).map_err(|e| io(e.into()))?;
            out.write_all(b"\n").map_err(io)?;
        }
        Ok(())
    }

    /// Vertical and text files: a document is a run of lines; `split` finds its paragraphs.
    fn blocks(
        &mut self,
        path: &Path,
        reader: impl BufRead,
        out: &mut impl Write,
        count: &mut impl FnMut(usize),
        split: fn(&[String]) -> Option<Spans>,
    ) -> Result<(), DedupToolError> {
        let io = |source| DedupToolError::Io { path: path.to_path_buf(), source };
        let mut doc: Vec<String> = Vec::new();
        let mut lines = reader.lines();
        loop {
            let line = lines.next().transpose().map_err(io)?;
            let end = match &line {
                Some(l) => {
                    count(l.len() + 1);
                    doc.push(l.clone());
                    split(&doc).is_some()
                }
                None => !doc.is_empty(),
            };
            if end {
                let spans = split(&doc).unwrap_or_default();
                let paragraphs: Vec<Paragraph> =
                    spans.iter().map(|(_, t)| Paragraph { kind: ParagraphKind::Paragraph, text: t.clone() }).collect();
                let mask = self.keep(&paragraphs)?;
                if mask.iter().any(|k| *k) {
                    let dropped: Vec<&std::ops::Range<usize>> =
                        spans.iter().zip(&mask).filter(|(_, k)| !**k).map(|((r, _), _)| r).collect();
                    for (i, l) in doc.iter().enumerate() {
                        if !dropped.iter().any(|r| r.contains(&i)) {
                            writeln!(out, "{l}").map_err(io)?;
                        }
                    }
                }
                doc.clear();
            }
            if line.is_none() {
                return Ok(());
            }
        }
    }
}

/// The paragraphs of a complete vertical document (its last line is `</doc>`), `None` while
/// it is not complete.
fn vert_paragraphs(doc: &[String]) -> Option<Spans> {
    if doc.last().map(|l| l.trim()) != Some("</doc>") {
        return None;
    }
    let mut spans = Vec::new();
    let mut open: Option<(usize, String)> = None;
    // `<g/>` (glue) joins the next token to the previous one without a space.
    let mut glue = false;
    for (i, line) in doc.iter().enumerate() {
        let t = line.trim();
        if t == "<p" || t.starts_with("<p ") || t.starts_with("<p>") || t == "<head>" || t.starts_with("<head ") {
            open = Some((i, String::new()));
            glue = false;
        } else if t == "</p>" || t == "</head>" {
            if let Some((start, text)) = open.take() {
                spans.push((start..i + 1, text));
            }
        } else if t == "<g/>" {
            glue = true;
        } else if let Some((_, text)) = open.as_mut() {
            if !t.starts_with('<') || t.starts_with("<\t") {
                let token = t.split('\t').next().unwrap_or("");
                if !text.is_empty() && !glue {
                    text.push(' ');
                }
                text.push_str(&unescape(token));
                glue = false;
            }
        }
    }
    Some(spans)
}

/// The paragraphs of a complete plain-text document (ended by its blank line).
fn text_paragraphs(doc: &[String]) -> Option<Spans> {
    if doc.last().is_none_or(|l| !l.is_empty()) {
        return None;
    }
    let first = usize::from(doc.first().is_some_and(|l| l.starts_with("# ")));
    Some((first..doc.len() - 1).filter(|&i| !doc[i].is_empty()).map(|i| (i..i + 1, doc[i].clone())).collect())
}

fn unescape(token: &str) -> String {
    if !token.contains('&') {
        return token.to_string();
    }
    token.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Record;

    fn record(url: &str, paragraphs: &[&str]) -> Record {
        let paragraphs: Vec<Paragraph> =
            paragraphs.iter().map(|t| Paragraph { kind: ParagraphKind::Paragraph, text: t.to_string() }).collect();
        Record {
            id: crate::model::record_id(url),
            url: url.into(),
            final_url: url.into(),
            host: "x.org".into(),
            title: None,
            headline: None,
            comments: None,
            fetched_at: "2026-01-01T00:00:00Z".into(),
            http_status: None,
            content_type: None,
            date: None,
            author: None,
            language: Some("English".into()),
            lang: Some("en".into()),
            lang_score: Some(1.0),
            extractor: "default".into(),
            text: crate::model::join_paragraphs(&paragraphs),
            word_count: 0,
            paragraph_kinds: paragraphs.iter().map(|p| p.kind).collect(),
            paragraphs,
            page_type: None,
            page_type_prob: None,
            warc_record_id: None,
            warc_file: None,
            warc_offset: None,
        }
    }

    const A: &str = "the quick brown fox jumps over the lazy dog near the river bank today";
    const B: &str = "a completely different paragraph about corpus linguistics and web crawling";
    const C: &str = "yet another paragraph that only the second document holds in this test";

    /// Every format: the second document's copy of A is dropped, its own paragraph kept;
    /// a document of duplicates only is dropped; the first instance wins across files.
    #[test]
    fn every_format_drops_later_copies_and_keeps_first_instances() {
        for format in CorpusFormat::ALL {
            let dir = tempfile::tempdir().unwrap();
            let (one, two) =
                (dir.path().join(format!("1.{}", ext(format))), dir.path().join(format!("2.{}", ext(format))));
            let mut buf = Vec::new();
            format.render(&record("http://x.org/1", &[A, B]), &mut buf).unwrap();
            std::fs::write(&one, &buf).unwrap();
            let lazy_in_first = String::from_utf8_lossy(&buf).matches("lazy").count();
            buf.clear();
            format.render(&record("http://x.org/2", &[A, C]), &mut buf).unwrap();
            format.render(&record("http://x.org/3", &[B]), &mut buf).unwrap();
            std::fs::write(&two, &buf).unwrap();
            let out = dir.path().join(format!("out.{}", ext(format)));
            let s = dedup_corpora(&[one, two], format, &out, &DedupConfig::default(), |_| {}).unwrap();
            assert_eq!((s.documents, s.documents_kept, s.paragraphs, s.duplicates), (3, 2, 5, 2), "{format:?}");
            let text = std::fs::read_to_string(&out).unwrap();
            let plain = text.replace('\n', " ");
            assert!(plain.contains("http://x.org/2") && !plain.contains("http://x.org/3"), "{format:?}: {text}");
            assert_eq!(plain.matches("lazy").count(), lazy_in_first, "{format:?}: only the first copy: {text}");
            assert!(plain.contains("linguistics") && plain.contains("second"), "{format:?}: {text}");
        }
    }

    fn ext(f: CorpusFormat) -> &'static str {
        match f {
            CorpusFormat::Jsonl | CorpusFormat::Dolma => "jsonl",
            CorpusFormat::Vert => "vert",
            CorpusFormat::Text => "txt",
        }
    }

    /// Records of other tools (dolma: `text` only) are split on blank lines; other keys stay.
    #[test]
    fn jsonl_without_paragraphs_splits_text_and_keeps_other_keys() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.jsonl");
        let lines = [
            serde_json::json!({"id": "a", "text": format!("{A}\n\n{B}"), "source": "s"}),
            serde_json::json!({"id": "b", "text": format!("{A}\n\n{C}"), "source": "s"}),
        ];
        std::fs::write(&input, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        let out = dir.path().join("out.jsonl");
        dedup_corpora(&[input], CorpusFormat::Jsonl, &out, &DedupConfig::default(), |_| {}).unwrap();
        let docs: Vec<serde_json::Value> =
            std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1]["text"], C);
        assert_eq!((docs[1]["id"].as_str(), docs[1]["source"].as_str()), (Some("b"), Some("s")));
    }
}
