//! Corpus writers, the last stage of the pipeline: a deduplicated [`Record`] becomes bytes in
//! the corpus file. The principal trait is [`CorpusWriter`]; [`open_writer`] opens one for a
//! [`CorpusFormat`] (JSONL, vertical, plain text — see [`jsonl`], [`vert`], [`text`]).
//!
//! Crash safety (ARCHITECTURE.md, "Crash safety"): every [`CorpusWriter::write`] appends one
//! whole record, flushes it and `fsync`s the data, and returns the byte offset after it. The
//! crawler commits that offset in the same store batch as the URLs marked done and the dedup
//! hashes. On the next start [`open_writer`] gets the committed offset back and truncates the
//! file to it, discarding records written after the last committed batch (their URLs are
//! crawled again), so no record is lost and none is written twice.

pub mod dolma;
pub mod export;
pub mod jsonl;
pub mod memory;
pub mod text;
pub mod tokenize;
pub mod vert;
pub mod warc;

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::model::Record;

/// Errors of the corpus writers; every one names the file.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A file-system operation failed.
    #[error("corpus file {path}: {op}: {source}")]
    Io {
        /// The corpus file (or its directory).
        path: PathBuf,
        /// What was being done ("open", "write", "truncate", ...).
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file is SHORTER than the offset committed in the store: corpus data that the
    /// store counts as written has been deleted or the file was replaced.
    #[error(
        "corpus file {path} is truncated: the store committed {expected} bytes but the file \
         has {found}; corpus data was deleted or replaced outside webcorpus (restore the file, \
         or reset the crawl state)"
    )]
    Truncated {
        /// The corpus file.
        path: PathBuf,
        /// The committed offset, bytes.
        expected: u64,
        /// The file's length, bytes.
        found: u64,
    },
    /// A record could not be serialised (JSONL).
    #[error("corpus file {path}: cannot serialise record {url}: {source}")]
    Serialize {
        /// The corpus file.
        path: PathBuf,
        /// The record's URL.
        url: String,
        /// The serde error.
        #[source]
        source: serde_json::Error,
    },
}

/// The corpus file format, the `format` key of the config (`"jsonl"`, `"vert"`, `"text"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorpusFormat {
    /// One JSON object per line, the serialised [`Record`] ([`jsonl`]).
    #[default]
    Jsonl,
    /// The vertical format of Sketch Engine and Onion: `<doc>`/`<p>` structures, one token
    /// per line ([`vert`]). Also accepted as `"vertical"`.
    #[serde(alias = "vertical")]
    Vert,
    /// Plain text: a `# url` line, one paragraph per line, a blank line after each document
    /// ([`text`]). Also accepted as `"txt"`.
    #[serde(alias = "txt")]
    Text,
    /// Dolma's document schema, one JSON object per line ([`dolma`]).
    Dolma,
}

impl CorpusFormat {
    /// All formats, for help texts.
    pub const ALL: [CorpusFormat; 4] =
        [CorpusFormat::Jsonl, CorpusFormat::Vert, CorpusFormat::Text, CorpusFormat::Dolma];

    /// The name used in config and CLI.
    pub fn name(self) -> &'static str {
        match self {
            CorpusFormat::Jsonl => "jsonl",
            CorpusFormat::Vert => "vert",
            CorpusFormat::Text => "text",
            CorpusFormat::Dolma => "dolma",
        }
    }

    /// The corpus file name inside the output directory.
    pub fn file_name(self) -> &'static str {
        match self {
            CorpusFormat::Jsonl => "corpus.jsonl",
            CorpusFormat::Vert => "corpus.vert",
            CorpusFormat::Text => "corpus.txt",
            CorpusFormat::Dolma => "corpus.dolma.jsonl",
        }
    }

    /// Render `r` at the end of a writer's buffer `buf`; returns the bytes added. On an error
    /// `buf` is left as it was.
    ///
    /// # Errors
    /// [`WriteError::Serialize`] naming the corpus file `path` and the record's URL.
    pub fn render_buffered(self, r: &Record, buf: &mut Vec<u8>, path: &Path) -> Result<u64, WriteError> {
        let before = buf.len();
        if let Err(source) = self.render(r, buf) {
            buf.truncate(before);
            return Err(WriteError::Serialize { path: path.to_path_buf(), url: r.url.clone(), source });
        }
        Ok((buf.len() - before) as u64)
    }

    /// Append the rendering of `r` in this format to `out`. Errors only for JSONL (serde).
    pub fn render(self, r: &Record, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        match self {
            CorpusFormat::Jsonl => jsonl::render(r, out),
            CorpusFormat::Vert => {
                vert::render(r, out);
                Ok(())
            }
            CorpusFormat::Text => {
                text::render(r, out);
                Ok(())
            }
            CorpusFormat::Dolma => dolma::render(r, out),
        }
    }
}

impl fmt::Display for CorpusFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown format name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown corpus format {0:?} (expected jsonl, vert, text or dolma)")]
pub struct ParseFormatError(pub String);

impl FromStr for CorpusFormat {
    type Err = ParseFormatError;

    /// `jsonl`, `vert` (or `vertical`), `text` (or `txt`), ASCII case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "jsonl" => Ok(CorpusFormat::Jsonl),
            "vert" | "vertical" => Ok(CorpusFormat::Vert),
            "text" | "txt" => Ok(CorpusFormat::Text),
            "dolma" => Ok(CorpusFormat::Dolma),
            _ => Err(ParseFormatError(s.to_string())),
        }
    }
}

/// A corpus file that records are appended to.
pub trait CorpusWriter {
    /// Append one record, flush it to the OS and `sync_data` it; return the byte offset after
    /// it — the offset the crawler may commit. On an error nothing of the record stays in the
    /// file (a partial write is truncated away, best effort) and the offset is unchanged.
    fn write(&mut self, r: &Record) -> Result<u64, WriteError> {
        self.append(r)?;
        self.sync()
    }
    /// Render one record into the writer's buffer (a group commit's records are written and
    /// synced together by [`CorpusWriter::sync`]); returns the byte offset after it once
    /// synced. On an error the record is not in the buffer.
    fn append(&mut self, r: &Record) -> Result<u64, WriteError>;
    /// Write the buffered records, `sync_data` the file and return its length — the offset
    /// the crawler may commit. On an error the file is cut back to its last synced length
    /// (best effort) and the buffered records are dropped.
    fn sync(&mut self) -> Result<u64, WriteError>;
    /// The byte offset after the last record appended (synced or not).
    fn offset(&self) -> u64;
    /// The corpus file.
    fn path(&self) -> &Path;
}

/// Open the corpus file of `format` in `dir` (created with its parents) for appending,
/// recovering it to `committed_offset` bytes:
///
/// - a file longer than `committed_offset` is truncated to it (records written after the
///   last committed store batch are discarded);
/// - a file shorter than `committed_offset` is [`WriteError::Truncated`];
/// - a missing file is created (then `committed_offset` must be 0).
pub fn open_writer(
    format: CorpusFormat,
    dir: &Path,
    committed_offset: u64,
) -> Result<Box<dyn CorpusWriter + Send>, WriteError> {
    Ok(Box::new(FileWriter::open(format, dir, committed_offset)?))
}

/// The one [`CorpusWriter`]: an append-only file plus the format's renderer.
#[derive(Debug)]
pub struct FileWriter {
    format: CorpusFormat,
    path: PathBuf,
    file: File,
    offset: u64,
    synced: u64,
    buf: Vec<u8>,
}

impl FileWriter {
    /// See [`open_writer`].
    pub fn open(format: CorpusFormat, dir: &Path, committed_offset: u64) -> Result<Self, WriteError> {
        let io_err = |path: &Path, op: &'static str| {
            let path = path.to_path_buf();
            move |source| WriteError::Io { path, op, source }
        };
        std::fs::create_dir_all(dir).map_err(io_err(dir, "create directory"))?;
        let path = dir.join(format.file_name());
        let existed = path.exists();
        if !existed && committed_offset > 0 {
            return Err(WriteError::Truncated { path, expected: committed_offset, found: 0 });
        }
        let file = OpenOptions::new().create(true).append(true).open(&path).map_err(io_err(&path, "open"))?;
        let len = file.metadata().map_err(io_err(&path, "stat"))?.len();
        if len < committed_offset {
            return Err(WriteError::Truncated { path, expected: committed_offset, found: len });
        }
        if len > committed_offset {
            tracing::warn!(
                path = %path.display(),
                committed_offset,
                len,
                "discarding {} uncommitted bytes at the end of the corpus file",
                len - committed_offset
            );
            file.set_len(committed_offset).map_err(io_err(&path, "truncate"))?;
            file.sync_data().map_err(io_err(&path, "sync"))?;
        }
        if !existed {
            // Make the new directory entry durable too.
            File::open(dir).and_then(|d| d.sync_all()).map_err(io_err(dir, "sync directory"))?;
        }
        Ok(FileWriter { format, path, file, offset: committed_offset, synced: committed_offset, buf: Vec::new() })
    }

    /// The format written.
    pub fn format(&self) -> CorpusFormat {
        self.format
    }

    fn write_buffer(&mut self) -> std::io::Result<()> {
        self.file.write_all(&self.buf)?;
        self.file.flush()?;
        self.file.sync_data()
    }
}

impl CorpusWriter for FileWriter {
    fn append(&mut self, r: &Record) -> Result<u64, WriteError> {
        self.offset += self.format.render_buffered(r, &mut self.buf, &self.path)?;
        Ok(self.offset)
    }

    fn sync(&mut self) -> Result<u64, WriteError> {
        if self.buf.is_empty() {
            return Ok(self.synced);
        }
        let result = self.write_buffer();
        self.buf.clear();
        if let Err(source) = result {
            // Roll back partial records so the next write starts at a record boundary.
            let _ = self.file.set_len(self.synced);
            self.offset = self.synced;
            return Err(WriteError::Io { path: self.path.clone(), op: "write", source });
        }
        self.synced = self.offset;
        Ok(self.synced)
    }

    fn offset(&self) -> u64 {
        self.offset
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{join_paragraphs, Paragraph, ParagraphKind};

    /// A record with a heading, a paragraph and a list item.
    pub(crate) fn record(n: usize) -> Record {
        let paragraphs = vec![
            Paragraph { kind: ParagraphKind::Heading, text: format!("Title number {n}") },
            Paragraph { kind: ParagraphKind::Paragraph, text: "Fish & chips <cost> \"5\" pounds, (really).".into() },
            Paragraph { kind: ParagraphKind::ListItem, text: "Item one".into() },
        ];
        Record {
            id: crate::model::record_id(&format!("https://example.org/a?b=1&c={n}")),
            url: format!("https://example.org/a?b=1&c={n}"),
            final_url: format!("https://example.org/a?b=1&c={n}"),
            host: "example.org".into(),
            title: Some(format!("A \"quoted\" <title> {n}")),
            headline: None,
            comments: None,
            fetched_at: "2024-05-01T12:00:00Z".into(),
            http_status: None,
            content_type: None,
            date: None,
            author: None,
            language: Some("English".into()),
            lang: Some("en".into()),
            lang_score: Some(1.0),
            extractor: "justext".into(),
            text: join_paragraphs(&paragraphs),
            word_count: 0,
            paragraph_kinds: paragraphs.iter().map(|p| p.kind).collect(),
            paragraphs,
            page_type: Some(crate::model::PageType::Article),
            page_type_prob: Some(0.875),
            warc_record_id: None,
            warc_file: None,
            warc_offset: None,
        }
    }

    /// Every `--format` help text and config.toml's `format` line name every format.
    #[test]
    fn every_format_is_named_in_the_help_and_the_config() {
        let cli = include_str!("../cli.rs");
        let helps: Vec<String> =
            cli.split("pub format:").map(|before| before.rsplit("///").take(3).collect::<Vec<_>>().join(" ")).collect();
        assert_eq!(helps.len(), 5, "crawl, extract, dedup and export have --format");
        let config = include_str!("../../config.toml");
        let line = config.lines().find(|l| l.starts_with("format =")).expect("[crawl] format in config.toml");
        for f in CorpusFormat::ALL {
            // `txt` and `text` are both accepted for plain text.
            let named = |text: &str| text.contains(f.name()) || (f == CorpusFormat::Text && text.contains("txt"));
            assert!(named(line), "config.toml does not name {f}");
            for help in &helps[..helps.len() - 1] {
                assert!(named(help), "a --format help does not name {f}: {help}");
            }
        }
    }

    #[test]
    fn format_names_parse_and_serde() {
        for f in CorpusFormat::ALL {
            assert_eq!(f.name().parse::<CorpusFormat>().unwrap(), f);
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.name()));
        }
        assert_eq!("TXT".parse::<CorpusFormat>().unwrap(), CorpusFormat::Text);
        assert_eq!(serde_json::from_str::<CorpusFormat>("\"vertical\"").unwrap(), CorpusFormat::Vert);
        assert!("csv".parse::<CorpusFormat>().is_err());
    }

    #[test]
    fn truncate_on_open_recovers_to_committed_offset() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("nested/corpus");
        let mut w = open_writer(CorpusFormat::Jsonl, &out, 0).unwrap();
        let o1 = w.write(&record(1)).unwrap();
        let o2 = w.write(&record(2)).unwrap();
        let o3 = w.write(&record(3)).unwrap();
        assert!(0 < o1 && o1 < o2 && o2 < o3);
        assert_eq!(w.offset(), o3);
        let path = w.path().to_path_buf();
        assert_eq!(path, out.join("corpus.jsonl"));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), o3);
        drop(w);

        // Crash after record 3 was written but before its batch was committed.
        let mut w = open_writer(CorpusFormat::Jsonl, &out, o2).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), o2);
        assert_eq!(w.offset(), o2);
        let o4 = w.write(&record(4)).unwrap();
        drop(w);

        let content = std::fs::read_to_string(&path).unwrap();
        assert_eq!(content.len() as u64, o4);
        let lines: Vec<&str> = content.lines().collect();
        assert_eq!(lines.len(), 3);
        let urls: Vec<String> = lines.iter().map(|l| serde_json::from_str::<Record>(l).unwrap().url).collect();
        assert!(urls[0].ends_with("c=1"));
        assert!(urls[1].ends_with("c=2"));
        assert!(urls[2].ends_with("c=4"));
    }

    #[test]
    fn shorter_file_than_committed_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = open_writer(CorpusFormat::Text, dir.path(), 0).unwrap();
        let o1 = w.write(&record(1)).unwrap();
        drop(w);
        match open_writer(CorpusFormat::Text, dir.path(), o1 + 10) {
            Err(WriteError::Truncated { path, expected, found }) => {
                assert_eq!(path, dir.path().join("corpus.txt"));
                assert_eq!(expected, o1 + 10);
                assert_eq!(found, o1);
            }
            Err(e) => panic!("wrong error {e}"),
            Ok(_) => panic!("opened a truncated corpus"),
        }
        // A missing file with a committed offset is the same error.
        let err = open_writer(CorpusFormat::Vert, dir.path(), 5).err().unwrap();
        assert!(err.to_string().contains("corpus.vert"), "{err}");
    }

    #[test]
    fn io_errors_carry_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"x").unwrap();
        // A directory below a plain file cannot be created.
        let err = open_writer(CorpusFormat::Jsonl, &blocker.join("sub"), 0).err().unwrap();
        assert!(err.to_string().contains("file/sub"), "{err}");
    }
}
