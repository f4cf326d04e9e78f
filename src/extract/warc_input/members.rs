//! The gzip members of a `.warc.gz` and where each begins in the file, for WARC record
//! offsets. A gzip file is a series of members (RFC 1952 §2.2); a WARC file compressed record
//! by record (ISO 28500:2017 Annex D) begins each record with a new member, so a record's
//! offset in the compressed file is the offset of the member it begins with, the number a reader
//! seeks to (Common Crawl's index `offset`, the crawl's `warc_offset`).
//!
//! [`Members`] decompresses member after member, as `flate2`'s `MultiGzDecoder` does, and
//! notes in a [`MemberStarts`] the pair (decompressed offset, compressed offset) of each member
//! it begins. The reader asks, at the start of a record, for the member beginning at the
//! record's decompressed offset ([`MemberStarts::take`]); a record that begins inside a
//! member (a file compressed as one stream) has no offset.

use flate2::bufread::GzDecoder;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufRead, Read};
use std::rc::Rc;

/// Member starts kept at most: the starts older than the record being read are dropped as
/// records are read; this bounds what a file of many tiny members inside one record may hold
/// (such a record then has no offset).
pub const MAX_PENDING_STARTS: usize = 4096;

/// Where the members began: (decompressed offset, compressed offset) pairs, oldest first,
/// shared between [`Members`] and the record reader.
#[derive(Debug, Clone, Default)]
pub struct MemberStarts(Rc<RefCell<VecDeque<(u64, u64)>>>);

impl MemberStarts {
    /// The compressed offset of the member that begins at decompressed offset `at`, if one
    /// does; the starts before `at` are dropped.
    pub fn take(&self, at: u64) -> Option<u64> {
        let mut starts = self.0.borrow_mut();
        while starts.front().is_some_and(|&(d, _)| d < at) {
            starts.pop_front();
        }
        starts.front().filter(|&&(d, _)| d == at).map(|&(_, c)| c)
    }

    fn push(&self, decompressed: u64, compressed: u64) {
        let mut starts = self.0.borrow_mut();
        if starts.len() == MAX_PENDING_STARTS {
            starts.pop_front();
        }
        starts.push_back((decompressed, compressed));
    }
}

/// A buffered reader that counts the bytes taken from it.
struct Counted<R> {
    inner: R,
    taken: u64,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.taken += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.taken += amount as u64;
        self.inner.consume(amount);
    }
}

enum State<R> {
    /// Between two members (or before the first).
    Between(Counted<R>),
    /// Inside a member (boxed: the decoder's state is large, the other states are not).
    In(Box<GzDecoder<Counted<R>>>),
    /// After a read error of the compressed stream.
    Failed,
}

/// The decompressed bytes of every gzip member of `R` in turn ([`MemberStarts`] notes where
/// each begins).
pub struct Members<R> {
    state: State<R>,
    out: u64,
    starts: MemberStarts,
}

impl<R: BufRead> Members<R> {
    /// Decompress `inner`, noting member starts in `starts`.
    pub fn new(inner: R, starts: MemberStarts) -> Members<R> {
        Members { state: State::Between(Counted { inner, taken: 0 }), out: 0, starts }
    }
}

impl<R: BufRead> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, State::Failed) {
                State::Between(mut inner) => {
                    if inner.fill_buf()?.is_empty() {
                        self.state = State::Between(inner);
                        return Ok(0);
                    }
                    self.starts.push(self.out, inner.taken);
                    self.state = State::In(Box::new(GzDecoder::new(inner)));
                }
                State::In(mut member) => {
                    let n = member.read(buf)?;
                    if n == 0 {
                        self.state = State::Between((*member).into_inner());
                        continue;
                    }
                    self.out += n as u64;
                    self.state = State::In(member);
                    return Ok(n);
                }
                State::Failed => return Ok(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    /// Three members decompress to their concatenation, and each start pairs its decompressed
    /// offset with its compressed one; an offset inside a member has none.
    #[test]
    fn member_starts_pair_both_offsets() {
        let parts: [&[u8]; 3] = [b"first record\n", b"second, longer record\n", b"third\n"];
        let members: Vec<Vec<u8>> = parts.iter().map(|p| gzip(p)).collect();
        let file = members.concat();
        let starts = MemberStarts::default();
        let mut out = Vec::new();
        Members::new(&file[..], starts.clone()).read_to_end(&mut out).unwrap();
        assert_eq!(out, parts.concat());
        let (d1, c1) = (parts[0].len() as u64, members[0].len() as u64);
        let (d2, c2) = (d1 + parts[1].len() as u64, c1 + members[1].len() as u64);
        assert_eq!(starts.take(0), Some(0));
        assert_eq!(starts.take(3), None, "inside the first member");
        assert_eq!(starts.take(d1), Some(c1));
        assert_eq!(starts.take(d2), Some(c2));
        assert_eq!(starts.take(0), None, "dropped once passed");
    }

    /// A cut member is an error, after the members before it were read.
    #[test]
    fn a_cut_member_is_an_error() {
        let file = [gzip(b"whole\n"), gzip(b"cut short\n")].concat();
        let mut out = Vec::new();
        let e = Members::new(&file[..file.len() - 5], MemberStarts::default()).read_to_end(&mut out);
        assert!(e.is_err());
        assert!(out.starts_with(b"whole\n"), "{out:?}");
    }
}
