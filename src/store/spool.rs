//! [`Spool`]: the pages waiting for their host's model (the sample, and pages fetched while the
//! model is learned), kept in one append-only file per host under `<state_dir>/waiting/`
//! instead of in sled. The store keeps only a small [`Locator`] per page (`p/<host>\0<seq>`),
//! so the waiting HTML leaves no high-water mark in sled: a host's file is deleted once its
//! last waiting page is written, and a crawl of many small hosts ends with a small state.
//!
//! Crash safety (ARCHITECTURE.md, "Crash safety"): a page is appended before the store batch
//! that holds its locator, and [`Spool::sync`] makes the files durable before that batch is
//! applied. Bytes appended by a batch that never committed are never referenced; they go with
//! the file. On open, files of hosts without waiting pages are removed ([`Spool::retain`]).
//!
//! One writer (the committer) appends; workers read committed pages with positioned reads.

use super::StoreError;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where a waiting page's bytes are in its host's spool file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locator {
    /// Byte offset in the file.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
}

impl Locator {
    /// Stored form: `L`, offset (8 bytes, big-endian), length (4 bytes, big-endian). An
    /// inline waiting page starts with the 4-byte length of its header, whose first byte is
    /// never `L` (that would be a header over 1 GB).
    const TAG: u8 = b'L';
    const STORED_LEN: usize = 13;

    /// The stored bytes.
    pub fn to_bytes(self) -> Vec<u8> {
        let mut v = Vec::with_capacity(Self::STORED_LEN);
        v.push(Self::TAG);
        v.extend_from_slice(&self.offset.to_be_bytes());
        v.extend_from_slice(&self.len.to_be_bytes());
        v
    }

    /// The locator stored in `value`, or `None` for an inline page.
    pub fn from_bytes(value: &[u8]) -> Option<Locator> {
        if value.len() != Self::STORED_LEN || value[0] != Self::TAG {
            return None;
        }
        let offset = u64::from_be_bytes(value[1..9].try_into().expect("8 bytes"));
        let len = u32::from_be_bytes(value[9..13].try_into().expect("4 bytes"));
        Some(Locator { offset, len })
    }
}

/// An open spool file: the handle and its length.
struct Open {
    file: File,
    len: u64,
    dirty: bool,
}

/// The waiting-page files of a state directory (see the module doc).
pub struct Spool {
    dir: PathBuf,
    open: Mutex<HashMap<String, Open>>,
}

impl std::fmt::Debug for Spool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spool").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl Spool {
    /// The spool in `dir` (created when missing).
    ///
    /// # Errors
    /// [`StoreError::Spool`] when the directory cannot be created.
    pub fn open(dir: &Path) -> Result<Spool, StoreError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Spool { path: dir.to_path_buf(), source })?;
        Ok(Spool { dir: dir.to_path_buf(), open: Mutex::new(HashMap::new()) })
    }

    /// The file of `host`: the xxh3 of the host name (hosts may hold `:` and `[]`).
    fn path(&self, host: &str) -> PathBuf {
        self.dir.join(format!("{:016x}.pages", xxhash_rust::xxh3::xxh3_64(host.as_bytes())))
    }

    fn files(&self) -> std::sync::MutexGuard<'_, HashMap<String, Open>> {
        self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Append `bytes` to `host`'s file; durable after the next [`Spool::sync`].
    ///
    /// # Errors
    /// [`StoreError::Spool`] on an I/O error (a full disk).
    pub fn append(&self, host: &str, bytes: &[u8]) -> Result<Locator, StoreError> {
        let path = self.path(host);
        let err = |source| StoreError::Spool { path: path.clone(), source };
        let len = u32::try_from(bytes.len()).map_err(|_| err(std::io::Error::other("waiting page over 4 GB")))?;
        let mut files = self.files();
        if !files.contains_key(host) {
            let file = OpenOptions::new().create(true).append(true).open(&path).map_err(err)?;
            let len = file.metadata().map_err(err)?.len();
            files.insert(host.to_string(), Open { file, len, dirty: false });
        }
        let open = files.get_mut(host).expect("inserted above");
        let offset = open.len;
        open.file.write_all(bytes).map_err(err)?;
        open.len += u64::from(len);
        open.dirty = true;
        Ok(Locator { offset, len })
    }

    /// Make every append so far durable (before the store batch that refers to them).
    ///
    /// # Errors
    /// [`StoreError::Spool`] when a file cannot be synced.
    pub fn sync(&self) -> Result<(), StoreError> {
        for (host, open) in self.files().iter_mut().filter(|(_, o)| o.dirty) {
            open.file.sync_data().map_err(|source| StoreError::Spool { path: self.path(host), source })?;
            open.dirty = false;
        }
        Ok(())
    }

    /// Read the page at `loc` in `host`'s file.
    ///
    /// # Errors
    /// [`StoreError::Spool`] when the file or the range cannot be read.
    pub fn read(&self, host: &str, loc: Locator) -> Result<Vec<u8>, StoreError> {
        let path = self.path(host);
        let err = |source| StoreError::Spool { path: path.clone(), source };
        let file = File::open(&path).map_err(err)?;
        let mut buf = vec![0; loc.len as usize];
        file.read_exact_at(&mut buf, loc.offset).map_err(err)?;
        Ok(buf)
    }

    /// Delete `host`'s file (it holds no waiting page any more).
    ///
    /// # Errors
    /// [`StoreError::Spool`] when it exists and cannot be removed.
    pub fn remove(&self, host: &str) -> Result<(), StoreError> {
        self.files().remove(host);
        let path = self.path(host);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(StoreError::Spool { path, source: e }),
            _ => Ok(()),
        }
    }

    /// Delete the files of every host not in `hosts` (leftovers of a crash between a host's last
    /// write and the removal of its file).
    ///
    /// # Errors
    /// [`StoreError::Spool`] when the directory cannot be read or a file removed.
    pub fn retain(&self, hosts: &HashSet<String>) -> Result<(), StoreError> {
        let keep: HashSet<PathBuf> = hosts.iter().map(|h| self.path(h)).collect();
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StoreError::Spool { path, source }
        };
        for entry in std::fs::read_dir(&self.dir).map_err(err(&self.dir))? {
            let path = entry.map_err(err(&self.dir))?.path();
            if path.extension().is_some_and(|e| e == "pages") && !keep.contains(&path) {
                std::fs::remove_file(&path).map_err(err(&path))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_read_sync_remove_and_retain() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::open(&dir.path().join("waiting")).unwrap();
        let a = spool.append("a.example", b"first page").unwrap();
        let b = spool.append("a.example", b"second").unwrap();
        let c = spool.append("[::1]:8080", b"other host").unwrap();
        assert_eq!((a.offset, b.offset, c.offset), (0, 10, 0));
        spool.sync().unwrap();
        assert_eq!(spool.read("a.example", b).unwrap(), b"second");
        assert_eq!(spool.read("[::1]:8080", c).unwrap(), b"other host");
        assert_eq!(Locator::from_bytes(&b.to_bytes()), Some(b));
        assert_eq!(Locator::from_bytes(&[0, 0, 0, 5, b'{']), None);
        // A reopened spool appends after what is there.
        let again = Spool::open(&dir.path().join("waiting")).unwrap();
        assert_eq!(again.append("a.example", b"x").unwrap().offset, 16);
        again.retain(&HashSet::from(["a.example".to_string()])).unwrap();
        assert!(again.read("[::1]:8080", c).is_err(), "the other host's file is gone");
        again.remove("a.example").unwrap();
        assert_eq!(std::fs::read_dir(dir.path().join("waiting")).unwrap().count(), 0);
        again.remove("a.example").unwrap();
    }
}
