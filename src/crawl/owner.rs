//! One corpus directory, one crawl state. [`claim`] writes the state's crawl id into
//! `<out_dir>/.webcorpus-owner` and holds an exclusive lock on that file while the crawl runs,
//! so a second state pointed at the same `--out` is refused with a message instead of
//! truncating a corpus it never wrote, and two crawls never append to one file.

use crate::crawl::CrawlError;
use crate::store::CrawlState;
use fs2::FileExt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The owner file's name inside the corpus directory.
pub const OWNER_FILE: &str = ".webcorpus-owner";

/// Why a corpus directory cannot be used by this state.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    /// Another crawl holds the lock: it is running now.
    #[error("corpus directory {dir} is in use by another running crawl; wait for it or use another --out")]
    Busy {
        /// The corpus directory.
        dir: PathBuf,
    },
    /// The directory belongs to another state.
    #[error(
        "corpus directory {dir} belongs to another crawl state ({owner}); use that --state, or another --out for this one"
    )]
    OtherState {
        /// The corpus directory.
        dir: PathBuf,
        /// What the owner file says (its state directory).
        owner: String,
    },
    /// The directory belongs to an earlier state at this state's own path, deleted since (a
    /// crawl started over with `rm -rf state`): its corpus files are that crawl's.
    #[error(
        "corpus directory {dir} holds the corpus of an earlier crawl state at {state}, which is gone; \
         to start over, move the corpus files out of {dir} (or delete them), or use another --out"
    )]
    EarlierState {
        /// The corpus directory.
        dir: PathBuf,
        /// The state directory (this state's and the earlier one's).
        state: String,
    },
    /// A corpus file is there that no state claimed, and this state is new.
    #[error("{file} exists and was not written by this crawl state; move it away or use another --out")]
    Foreign {
        /// The corpus file.
        file: PathBuf,
    },
    /// Reading or writing the owner file failed.
    #[error("{path}: {source}")]
    Io {
        /// The owner file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The claim on a corpus directory: the lock is held until this is dropped.
#[derive(Debug)]
pub struct CorpusClaim {
    _file: File,
}

/// Claim `out_dir` (holding `corpus_file`) for `state`, whose directory is `state_dir`.
/// A state without a crawl id gets one (committed at once).
///
/// # Errors
/// [`OwnerError`] (in [`CrawlError::Owner`]) when the directory is locked, belongs to
/// another state, or holds a corpus file this new state did not write; the store's error.
/// Remember `out_dir`, the corpus directory this crawl claimed, in its state (absolute), so
/// that `show --state` finds the corpus and WARC files of a crawl run with `--out`.
///
/// # Errors
/// The store's.
pub fn record_corpus_dir(state: &CrawlState, out_dir: &Path) -> Result<(), CrawlError> {
    let absolute = std::fs::canonicalize(out_dir).unwrap_or_else(|_| out_dir.to_path_buf());
    if state.corpus_dir()?.as_deref() != Some(absolute.as_path()) {
        let mut batch = state.batch();
        batch.set_corpus_dir(&absolute);
        state.commit(batch)?;
    }
    Ok(())
}

pub fn claim(
    state: &CrawlState,
    state_dir: &Path,
    out_dir: &Path,
    corpus_file: &Path,
) -> Result<CorpusClaim, CrawlError> {
    let id = match state.crawl_id()? {
        Some(id) => id,
        None => {
            let id = format!("{:016x}{:016x}", fastrand::u64(..), now_nanos());
            let mut batch = state.batch();
            batch.set_crawl_id(&id);
            state.commit(batch)?;
            id
        }
    };
    let path = out_dir.join(OWNER_FILE);
    let io = |source| OwnerError::Io { path: path.clone(), source };
    std::fs::create_dir_all(out_dir).map_err(io)?;
    let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
    if file.try_lock_exclusive().is_err() {
        return Err(OwnerError::Busy { dir: out_dir.to_path_buf() }.into());
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(io)?;
    let owner_id = text.lines().find_map(|l| l.strip_prefix("crawl ")).map(str::trim);
    let state_path = std::fs::canonicalize(state_dir).unwrap_or_else(|_| state_dir.to_path_buf());
    match owner_id {
        Some(owner) if owner == id => return Ok(CorpusClaim { _file: file }),
        Some(_) => {
            let owner = text.lines().find_map(|l| l.strip_prefix("state ")).unwrap_or("unknown").trim().to_string();
            let dir = out_dir.to_path_buf();
            return Err(match owner == state_path.display().to_string() {
                true => OwnerError::EarlierState { dir, state: owner },
                false => OwnerError::OtherState { dir, owner },
            }
            .into());
        }
        None => {}
    }
    let has_corpus = std::fs::metadata(corpus_file).is_ok_and(|m| m.len() > 0);
    if has_corpus && state.corpus_offset()? == 0 {
        return Err(OwnerError::Foreign { file: corpus_file.to_path_buf() }.into());
    }
    file.set_len(0).map_err(io)?;
    file.rewind().map_err(io)?;
    write!(file, "crawl {id}\nstate {}\n", state_path.display()).map_err(io)?;
    file.sync_all().map_err(io)?;
    Ok(CorpusClaim { _file: file })
}

fn now_nanos() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::open_state_dir;

    /// Two states, one corpus directory: the second is refused, and so is a new state over a
    /// corpus file nobody claimed; the owner resumes.
    #[test]
    fn a_corpus_directory_belongs_to_one_state() {
        let tmp = tempfile::tempdir().expect("tmp");
        let out = tmp.path().join("corpus");
        let file = out.join("corpus.jsonl");
        let (dir_a, dir_b) = (tmp.path().join("a"), tmp.path().join("b"));
        let a = open_state_dir(&dir_a).expect("state a");
        let b = open_state_dir(&dir_b).expect("state b");
        let claim_a = claim(&a, &dir_a, &out, &file).expect("first claim");
        let busy = claim(&b, &dir_b, &out, &file).expect_err("locked");
        assert!(matches!(busy, CrawlError::Owner(OwnerError::Busy { .. })), "{busy}");
        drop(claim_a);
        let other = claim(&b, &dir_b, &out, &file).expect_err("owned by a");
        assert!(other.to_string().contains("belongs to another crawl state"), "{other}");
        claim(&a, &dir_a, &out, &file).expect("the owner claims again");

        // State `a` deleted and started afresh at the same path: the corpus is the old
        // crawl's, and the message says how to start over.
        drop(a);
        std::fs::remove_dir_all(&dir_a).expect("rm state a");
        let a2 = open_state_dir(&dir_a).expect("new state a");
        let earlier = claim(&a2, &dir_a, &out, &file).expect_err("the corpus is the earlier crawl's");
        assert!(matches!(earlier, CrawlError::Owner(OwnerError::EarlierState { .. })), "{earlier}");
        assert!(earlier.to_string().contains("to start over, move the corpus files out of"), "{earlier}");

        let foreign_out = tmp.path().join("old");
        std::fs::create_dir_all(&foreign_out).expect("dir");
        std::fs::write(foreign_out.join("corpus.jsonl"), "{\"text\":\"x\"}\n").expect("write");
        let err = claim(&b, &dir_b, &foreign_out, &foreign_out.join("corpus.jsonl")).expect_err("foreign");
        assert!(matches!(err, CrawlError::Owner(OwnerError::Foreign { .. })), "{err}");
        assert_eq!(std::fs::read_to_string(foreign_out.join("corpus.jsonl")).expect("kept"), "{\"text\":\"x\"}\n");
    }
}
