//! `webcorpus export`: a crawl's JSONL corpus (finished, or still being written) converted to
//! another format or schema without crawling again — JSONL, vertical, plain text or Dolma —
//! filtered by language, page type and host, optionally gzip-compressed and cut into shards of
//! a maximum size named `corpus-00000.<ext>[.gz]`, `corpus-00001…`.
//!
//! Input lines are [`Record`]s (plain or `.gz` files). A last line without its newline is a
//! record still being written by a running crawl and is left out; any other line that is not
//! a record stops the export with its file and line number.

use crate::classify::PageType;
use crate::model::{Paragraph, ParagraphKind, Record};
use crate::write::CorpusFormat;
use flate2::write::GzEncoder;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Errors of the export.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An input line is not a corpus record.
    #[error("{path}:{line}: not a webcorpus record: {message}")]
    BadRecord {
        /// The input file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// The JSON error.
        message: String,
    },
}

/// Which records are exported. Empty lists keep everything.
#[derive(Debug, Clone, Default)]
pub struct ExportFilter {
    /// ISO 639-1 codes of the records' `lang`.
    pub langs: Vec<String>,
    /// Page types (`article`, `other`).
    pub page_types: Vec<PageType>,
    /// Hosts, exactly as in the records' `host`.
    pub hosts: Vec<String>,
}

impl ExportFilter {
    /// True when `r` passes every given list.
    pub fn keeps(&self, r: &Record) -> bool {
        (self.langs.is_empty() || r.lang.as_ref().is_some_and(|l| self.langs.contains(l)))
            && (self.page_types.is_empty() || r.page_type.is_some_and(|t| self.page_types.contains(&t)))
            && (self.hosts.is_empty() || self.hosts.contains(&r.host))
    }
}

/// Where the export goes.
#[derive(Debug, Clone)]
pub struct ExportTarget {
    /// Output format.
    pub format: CorpusFormat,
    /// Directory of the shards; `None` writes one stream to standard output.
    pub dir: Option<PathBuf>,
    /// gzip each shard (`.gz`).
    pub gzip: bool,
    /// Begin a new shard once one holds this many bytes (uncompressed); 0 = one file.
    pub shard_bytes: u64,
    /// Put each record's headline back at the top of its text ([`headline_into_text`]).
    pub headline_in_text: bool,
}

/// What an export did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Records read.
    pub read: u64,
    /// Records written.
    pub written: u64,
    /// Records left out by the filter.
    pub filtered: u64,
    /// A last line without its newline (a record being written) left out.
    pub incomplete_tail: bool,
    /// The files written (empty for standard output).
    pub files: Vec<PathBuf>,
}

/// The shard file name: `corpus-00003.vert.gz`.
pub fn shard_name(index: usize, format: CorpusFormat, gzip: bool) -> String {
    let ext = match format {
        CorpusFormat::Jsonl | CorpusFormat::Dolma => "jsonl",
        CorpusFormat::Vert => "vert",
        CorpusFormat::Text => "txt",
    };
    format!("corpus-{index:05}.{ext}{}", if gzip { ".gz" } else { "" })
}

/// Export the records of `inputs`, in order, through `filter` to `target`.
///
/// # Errors
/// [`ExportError`]; shards already finished stay on disk.
pub fn export(inputs: &[PathBuf], filter: &ExportFilter, target: &ExportTarget) -> Result<ExportSummary, ExportError> {
    let mut summary = ExportSummary::default();
    let mut out = Shards::new(target);
    let mut buf = Vec::new();
    for input in inputs {
        let io = |source| ExportError::Io { path: input.clone(), source };
        let file = std::fs::File::open(input).map_err(io)?;
        let reader: Box<dyn Read> = if input.extension().is_some_and(|e| e == "gz") {
            Box::new(flate2::read::MultiGzDecoder::new(file))
        } else {
            Box::new(file)
        };
        let mut reader = BufReader::with_capacity(1 << 20, reader);
        let mut line = String::new();
        let mut number = 0u64;
        loop {
            line.clear();
            if reader.read_line(&mut line).map_err(io)? == 0 {
                break;
            }
            number += 1;
            if !line.ends_with('\n') {
                summary.incomplete_tail = true;
                break;
            }
            if line.trim().is_empty() {
                continue;
            }
            let mut record = Record::from_json(&line).map_err(|e| ExportError::BadRecord {
                path: input.clone(),
                line: number,
                message: e.to_string(),
            })?;
            summary.read += 1;
            if !filter.keeps(&record) {
                summary.filtered += 1;
                continue;
            }
            if target.headline_in_text {
                headline_into_text(&mut record);
            }
            buf.clear();
            target.format.render(&record, &mut buf).map_err(|e| ExportError::BadRecord {
                path: input.clone(),
                line: number,
                message: e.to_string(),
            })?;
            out.write(&buf)?;
            summary.written += 1;
        }
    }
    summary.files = out.finish()?;
    Ok(summary)
}

/// The output stream: standard output, or size-rotated shard files.
struct Shards<'a> {
    target: &'a ExportTarget,
    current: Option<(PathBuf, Box<dyn Write>)>,
    bytes: u64,
    files: Vec<PathBuf>,
}

impl<'a> Shards<'a> {
    fn new(target: &'a ExportTarget) -> Self {
        Shards { target, current: None, bytes: 0, files: Vec::new() }
    }

    fn write(&mut self, record: &[u8]) -> Result<(), ExportError> {
        let full = self.target.shard_bytes > 0 && self.bytes >= self.target.shard_bytes;
        if full {
            self.close()?;
        }
        if self.current.is_none() {
            self.open()?;
        }
        let (path, w) = self.current.as_mut().expect("opened");
        w.write_all(record).map_err(|source| ExportError::Io { path: path.clone(), source })?;
        self.bytes += record.len() as u64;
        Ok(())
    }

    fn open(&mut self) -> Result<(), ExportError> {
        let Some(dir) = &self.target.dir else {
            self.current = Some((PathBuf::from("-"), wrap(std::io::stdout().lock(), self.target.gzip)));
            return Ok(());
        };
        let path = dir.join(shard_name(self.files.len(), self.target.format, self.target.gzip));
        let io = |source| ExportError::Io { path: path.clone(), source };
        std::fs::create_dir_all(dir).map_err(io)?;
        let file = std::fs::File::create(&path).map_err(io)?;
        self.current = Some((path.clone(), wrap(file, self.target.gzip)));
        self.files.push(path);
        self.bytes = 0;
        Ok(())
    }

    fn close(&mut self) -> Result<(), ExportError> {
        if let Some((path, mut w)) = self.current.take() {
            w.flush().map_err(|source| ExportError::Io { path: path.clone(), source })?;
            // Dropping the encoder writes the gzip trailer; flush first so errors surface.
            drop(w);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<PathBuf>, ExportError> {
        self.close()?;
        Ok(std::mem::take(&mut self.files))
    }
}

/// A buffered writer, gzip-compressed when `gzip` (the encoder finishes its stream on drop).
fn wrap<W: Write + 'static>(w: W, gzip: bool) -> Box<dyn Write> {
    if gzip {
        Box::new(GzEncoder::new(BufWriter::with_capacity(1 << 20, w), flate2::Compression::default()))
    } else {
        Box::new(BufWriter::with_capacity(1 << 20, w))
    }
}

/// True when `path` looks like a corpus this command reads (`.jsonl`, `.jsonl.gz`).
pub fn is_jsonl(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".jsonl") || name.ends_with(".jsonl.gz")
}

/// Move `record`'s headline back into its text as the first paragraph (a heading), as `export
/// --headline` writes records for tools that expect it there; `word_count` counts it then.
pub fn headline_into_text(record: &mut Record) {
    let Some(headline) = record.headline.take() else { return };
    record.word_count += crate::write::tokenize::word_count(&headline, record.lang.as_deref());
    record.text = if record.text.is_empty() { headline.clone() } else { format!("{headline}\n\n{}", record.text) };
    record.paragraphs.insert(0, Paragraph { kind: ParagraphKind::Heading, text: headline });
    record.paragraph_kinds = record.paragraphs.iter().map(|p| p.kind).collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::tests::record;

    fn corpus(dir: &Path, n: usize, tail: bool) -> PathBuf {
        let mut text = String::new();
        for i in 0..n {
            let mut r = record(i);
            r.lang = Some(if i % 2 == 0 { "en" } else { "es" }.into());
            text.push_str(&serde_json::to_string(&r).unwrap());
            text.push('\n');
        }
        if tail {
            text.push_str("{\"id\":\"half a rec");
        }
        let path = dir.join("corpus.jsonl");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn filters_shards_and_gzips() {
        let dir = tempfile::tempdir().unwrap();
        let input = corpus(dir.path(), 10, true);
        let out = dir.path().join("out");
        let filter = ExportFilter { langs: vec!["en".into()], ..ExportFilter::default() };
        let target = ExportTarget {
            format: CorpusFormat::Vert,
            dir: Some(out.clone()),
            gzip: true,
            shard_bytes: 200,
            headline_in_text: false,
        };
        let s = export(&[input], &filter, &target).unwrap();
        assert_eq!((s.read, s.written, s.filtered, s.incomplete_tail), (10, 5, 5, true));
        assert!(s.files.len() >= 2, "{:?}", s.files);
        assert_eq!(s.files[0].file_name().unwrap(), "corpus-00000.vert.gz");
        let mut docs = 0;
        for f in &s.files {
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(f).unwrap()).read_to_string(&mut text).unwrap();
            docs += text.lines().filter(|l| l.starts_with("<doc ")).count();
            assert!(text.ends_with("</doc>\n"), "shards end on a document boundary");
        }
        assert_eq!(docs, 5);
    }

    #[test]
    fn a_bad_line_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("bad.jsonl");
        std::fs::write(&input, format!("{}\nnot json\n", serde_json::to_string(&record(1)).unwrap())).unwrap();
        let target = ExportTarget {
            format: CorpusFormat::Text,
            dir: Some(dir.path().join("o")),
            gzip: false,
            shard_bytes: 0,
            headline_in_text: false,
        };
        let err = export(&[input], &ExportFilter::default(), &target).unwrap_err();
        assert!(err.to_string().contains("bad.jsonl:2"), "{err}");
    }

    /// `--headline` puts a record's headline back as its first paragraph (text, kinds, word
    /// count); without it the text is the main content alone.
    #[test]
    fn the_headline_goes_back_into_the_text_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("c.jsonl");
        let mut r = record(2);
        r.headline = Some("Bridge closes".into());
        std::fs::write(&input, format!("{}\n", serde_json::to_string(&r).unwrap())).unwrap();
        let read = |headline_in_text: bool| {
            let out = dir.path().join(format!("o{headline_in_text}"));
            let target = ExportTarget {
                format: CorpusFormat::Jsonl,
                dir: Some(out.clone()),
                gzip: false,
                shard_bytes: 0,
                headline_in_text,
            };
            export(std::slice::from_ref(&input), &ExportFilter::default(), &target).unwrap();
            Record::from_json(std::fs::read_to_string(out.join("corpus-00000.jsonl")).unwrap().trim()).unwrap()
        };
        let plain = read(false);
        assert_eq!((plain.headline.as_deref(), plain.text.as_str()), (Some("Bridge closes"), r.text.as_str()));
        let back = read(true);
        assert_eq!(back.headline, None);
        assert_eq!(back.text, format!("Bridge closes\n\n{}", r.text));
        assert_eq!(back.paragraph_kinds.len(), r.paragraphs.len() + 1);
        assert_eq!(back.word_count, r.word_count + 2);
    }
}
