//! Local HTML files for `webcorpus extract` and evaluation: read plain or gzip-compressed
//! files, drop a CleanEval `<text id=…>` wrapper line, decode once.

use crate::html::{decode_html, Decoded};
use flate2::read::MultiGzDecoder;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest file read (bytes, after decompression), as the crawler's body cap.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Errors reading a local page.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be read or decompressed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O or gzip error.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_FILE_BYTES`].
    #[error("{path}: larger than {MAX_FILE_BYTES} bytes")]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
}

/// A page read from disk.
#[derive(Debug, Clone)]
pub struct LocalPage {
    /// The file name without `.gz` and `.html`/`.htm`.
    pub id: String,
    /// The decoded text.
    pub decoded: Decoded,
}

/// The id of a file: its name without `.gz` and then `.html`/`.htm`.
pub fn file_id(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let name = name.strip_suffix(".html").or_else(|| name.strip_suffix(".htm")).unwrap_or(name);
    name.to_string()
}

/// Drop a leading CleanEval wrapper line (`<text id="URL" …>`), which is not part of the
/// page (CleanEval and CleanPortalEval inputs start with one).
pub fn strip_cleaneval_wrapper(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(0);
    if bytes[start..].starts_with(b"<text id=") {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(nl) => &bytes[start + nl + 1..],
            None => &[],
        }
    } else {
        bytes
    }
}

/// Read the raw bytes of `path`, gunzipping `.gz` files (every gzip member: a file of
/// several concatenated members, as `cat a.gz b.gz` or a WARC writer makes, is read whole).
///
/// # Errors
/// [`FileError`] when the file cannot be read, is not valid gzip, or is too large.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, FileError> {
    let io = |source| FileError::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    let reader: Box<dyn Read> =
        if path.extension().is_some_and(|e| e == "gz") { Box::new(MultiGzDecoder::new(file)) } else { Box::new(file) };
    reader.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(FileError::TooLarge { path: path.to_path_buf() });
    }
    Ok(bytes)
}

/// Read, unwrap and decode one local page.
///
/// # Errors
/// See [`read_bytes`].
pub fn read_page(path: &Path) -> Result<LocalPage, FileError> {
    let bytes = read_bytes(path)?;
    let decoded = decode_html(strip_cleaneval_wrapper(&bytes), None);
    Ok(LocalPage { id: file_id(path), decoded })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_wrapper() {
        assert_eq!(file_id(Path::new("/x/bbc.co.uk_news_01.html.gz")), "bbc.co.uk_news_01");
        assert_eq!(file_id(Path::new("a.htm")), "a");
        assert_eq!(strip_cleaneval_wrapper(b"<text id=\"http://x\">\n<html>"), b"<html>");
        assert_eq!(strip_cleaneval_wrapper(b"<html>"), b"<html>");
    }

    /// A page gzipped in two members keeps its second half.
    #[test]
    fn every_gzip_member_is_read() {
        use flate2::{write::GzEncoder, Compression};
        use std::io::Write;
        let member = |text: &str| {
            let mut enc = GzEncoder::new(Vec::new(), Compression::default());
            enc.write_all(text.as_bytes()).expect("gzip");
            enc.finish().expect("gzip")
        };
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("page.html.gz");
        let mut bytes = member("<html><body><p>first half</p>");
        bytes.extend(member("<p>second half</p></body></html>"));
        std::fs::write(&path, bytes).expect("write");
        let text = String::from_utf8(read_bytes(&path).expect("read")).expect("UTF-8");
        assert!(text.ends_with("<p>second half</p></body></html>"), "{text}");
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let err = read_page(Path::new("/nonexistent/page.html")).unwrap_err().to_string();
        assert!(err.contains("/nonexistent/page.html"), "{err}");
    }
}
