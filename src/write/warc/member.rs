//! The gzip member of one WARC record (WARC 1.1, Annex D: each record its own member), built in
//! two parts so that the costly part runs where the page is processed, not on the writer's
//! thread: [`PreparedBlock`] deflates a response record's block (the HTTP response) and
//! computes its digests anywhere; [`member`] then deflates only the record's header, which
//! names the file's `warcinfo` record and is known only when the record is written, and joins
//! the two into one member.
//!
//! The join is plain DEFLATE (RFC 1951 §3.2.3): the header is compressed with a sync flush,
//! which ends on a byte boundary with an empty non-final stored block, so the block's
//! independent stream (final block last) can follow it; the member's CRC-32 is the header's
//! combined with the block's (RFC 1952 §2.3.1) and its ISIZE the sum of the lengths.

use crc32fast::Hasher as Crc;
use flate2::{Compress, Compression, FlushCompress, Status};

/// The gzip header of every member: no name, no time (MTIME 0), OS unknown (255), as
/// `flate2::GzEncoder` writes it (RFC 1952 §2.3).
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

/// The bytes that close every record after its block (WARC 1.1 §4).
pub const RECORD_END: &[u8] = b"\r\n\r\n";

/// The compression level of the members: 2. With flate2's zlib-rs backend it deflates HTML
/// about 1.8 times as fast as zlib's default level 6 for about a tenth more bytes; level 1,
/// 1.7 times faster again, costs over a third more bytes (`docs/figures.md`). Every worker
/// deflates the pages it extracts, so this is CPU of every crawled page.
pub fn level() -> Compression {
    Compression::new(2)
}

/// A record block deflated ahead of its record: the block followed by the record's closing
/// `\r\n\r\n`, as a complete raw DEFLATE stream, with its CRC-32, its length and its SHA-1 digests.
#[derive(Debug, Clone)]
pub struct PreparedBlock {
    /// The raw DEFLATE stream of the block and the closing `\r\n\r\n` (final block last).
    deflate: Vec<u8>,
    /// CRC-32 of the uncompressed bytes.
    crc: Crc,
    /// Length of the uncompressed bytes.
    len: u64,
    /// Bytes of the block alone (the record's `Content-Length`).
    pub block_len: usize,
    /// `WARC-Block-Digest` of the block.
    pub block_digest: String,
    /// `WARC-Payload-Digest` of the payload given.
    pub payload_digest: String,
}

impl PreparedBlock {
    /// Deflate `block` and digest it and `payload` (the HTTP body inside it).
    pub fn new(block: &[u8], payload: &[u8]) -> PreparedBlock {
        let mut compress = Compress::new(level(), false);
        let mut deflate = Vec::with_capacity(block.len() / 3 + 64);
        deflate_into(&mut compress, block, &mut deflate, FlushCompress::None);
        deflate_into(&mut compress, RECORD_END, &mut deflate, FlushCompress::Finish);
        let mut crc = Crc::new();
        crc.update(block);
        crc.update(RECORD_END);
        PreparedBlock {
            deflate,
            crc,
            len: (block.len() + RECORD_END.len()) as u64,
            block_len: block.len(),
            block_digest: super::sha1_base32(block),
            payload_digest: super::sha1_base32(payload),
        }
    }
}

/// The gzip member of a record whose header is `head` (the `WARC/1.1` line, the fields, the
/// `Content-Length` line and the empty line) and whose block is `block`.
pub fn member(head: &[u8], block: &PreparedBlock) -> Vec<u8> {
    let mut out = Vec::with_capacity(GZIP_HEADER.len() + head.len() + block.deflate.len() + 8);
    out.extend_from_slice(&GZIP_HEADER);
    let mut compress = Compress::new(level(), false);
    deflate_into(&mut compress, head, &mut out, FlushCompress::Sync);
    out.extend_from_slice(&block.deflate);
    let mut crc = Crc::new();
    crc.update(head);
    crc.combine(&block.crc);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    // ISIZE: the length modulo 2^32.
    out.extend_from_slice(&((head.len() as u64 + block.len) as u32).to_le_bytes());
    out
}

/// The gzip member of a whole record, `raw` (header, block and [`RECORD_END`]).
pub fn whole_member(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(GZIP_HEADER.len() + raw.len() / 3 + 64);
    out.extend_from_slice(&GZIP_HEADER);
    let mut compress = Compress::new(level(), false);
    deflate_into(&mut compress, raw, &mut out, FlushCompress::Finish);
    let mut crc = Crc::new();
    crc.update(raw);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    out.extend_from_slice(&(raw.len() as u32).to_le_bytes());
    out
}

/// Feed all of `input` to `compress` with `flush`, appending its output to `out` (grown as
/// needed) until the input is consumed and the flush (or the stream's end) is written out.
fn deflate_into(compress: &mut Compress, input: &[u8], out: &mut Vec<u8>, flush: FlushCompress) {
    let start = compress.total_in();
    loop {
        let consumed = (compress.total_in() - start) as usize;
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(256));
        }
        let status = compress.compress_vec(&input[consumed..], out, flush).expect("deflate into memory");
        let done = (compress.total_in() - start) as usize == input.len();
        match (flush, status) {
            (FlushCompress::Finish, Status::StreamEnd) => return,
            (FlushCompress::Finish, _) => {}
            (_, _) if done && out.len() < out.capacity() => return,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes).read_to_end(&mut out).expect("a valid gzip member");
        out
    }

    #[test]
    fn a_joined_member_reads_as_the_whole_record() {
        let body: Vec<u8> =
            (0..200_000u32).flat_map(|i| format!("<p>line {} of {}</p>\n", i % 977, i).into_bytes()).collect();
        let block = [b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n".as_slice(), &body].concat();
        let head = b"WARC/1.1\r\nWARC-Type: response\r\nContent-Length: 42\r\n\r\n";
        let prepared = PreparedBlock::new(&block, &body);
        let joined = member(head, &prepared);
        let whole = [head.as_slice(), &block, RECORD_END].concat();
        assert_eq!(gunzip(&joined), whole);
        assert_eq!(gunzip(&whole_member(&whole)), whole);
        assert!(joined.len() < whole.len() / 4, "compressed: {} of {}", joined.len(), whole.len());
        assert_eq!(prepared.block_len, block.len());
        // Two members one after the other read as one stream (a WARC file).
        let mut two = Vec::new();
        flate2::read::MultiGzDecoder::new(&[joined.clone(), joined].concat()[..]).read_to_end(&mut two).unwrap();
        assert_eq!(two.len(), 2 * whole.len());
    }

    #[test]
    fn an_empty_block_makes_a_valid_member() {
        let prepared = PreparedBlock::new(b"", b"");
        assert_eq!(gunzip(&member(b"WARC/1.1\r\n\r\n", &prepared)), b"WARC/1.1\r\n\r\n\r\n\r\n");
        assert_eq!(gunzip(&whole_member(b"")), b"");
    }
}
