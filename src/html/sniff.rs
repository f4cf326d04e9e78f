//! Is a body text at all? Servers label PDFs, images and archives `text/html`, and send
//! compressed bodies nobody asked for; such bodies must not become records. [`binary_kind`]
//! looks at the first bytes (the signatures of the WHATWG MIME Sniffing Standard, §6, plus
//! common archive and font formats, and its "binary data byte" test, §7.1), and
//! [`unreadable_share`] measures decoded text that is mostly replacement or control characters.

/// Bytes looked at by [`binary_kind`] (WHATWG MIME Sniffing §5.1: the resource header is at
/// most 1445 bytes).
pub const SNIFF_BYTES: usize = 1445;

/// Share of "binary data bytes" (WHATWG MIME Sniffing §3: 0x00–0x08, 0x0B, 0x0E–0x1A,
/// 0x1C–0x1F) in the first [`SNIFF_BYTES`] above which a body is binary. Text has none; random
/// or compressed bytes have about 11 %; a broken page with a stray NUL stays far below.
pub const MAX_BINARY_BYTE_SHARE: f64 = 0.02;

/// Share of replacement and control characters above which decoded text is unreadable.
pub const MAX_UNREADABLE_SHARE: f64 = 0.1;

/// Signatures: (prefix, offset, kind). `RIFF....WEBP` and `....ftyp` use the offset.
const SIGNATURES: &[(&[u8], usize, &str)] = &[
    (b"%PDF-", 0, "pdf"),
    (b"%!PS-Adobe-", 0, "postscript"),
    (b"GIF87a", 0, "gif"),
    (b"GIF89a", 0, "gif"),
    (b"\x89PNG\r\n\x1a\n", 0, "png"),
    (b"\xff\xd8\xff", 0, "jpeg"),
    (b"BM", 0, "bmp"),
    (b"WEBP", 8, "webp"),
    (b"\x00\x00\x01\x00", 0, "ico"),
    (b"PK\x03\x04", 0, "zip"),
    (b"\x1f\x8b\x08", 0, "gzip"),
    (b"Rar!\x1a\x07", 0, "rar"),
    (b"7z\xbc\xaf\x27\x1c", 0, "7z"),
    (b"\xfd7zXZ\x00", 0, "xz"),
    (b"BZh", 0, "bzip2"),
    (b"\x28\xb5\x2f\xfd", 0, "zstd"),
    (b"OggS\x00", 0, "ogg"),
    (b"ID3", 0, "mp3"),
    (b"ftyp", 4, "mp4"),
    (b"\x1a\x45\xdf\xa3", 0, "webm"),
    (b"wOFF", 0, "woff"),
    (b"wOF2", 0, "woff2"),
    (b"\x00\x01\x00\x00\x00", 0, "truetype"),
    (b"\x7fELF", 0, "elf"),
    (b"MZ", 0, "exe"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 0, "ms-office"),
];

/// The kind of a binary body (`"pdf"`, `"png"`, `"zip"`, ..., or `"binary"` for bytes with no
/// signature that fail the binary-data-byte test), `None` for text. A byte order mark for
/// UTF-8 or UTF-16 means text.
pub fn binary_kind(body: &[u8]) -> Option<&'static str> {
    if body.starts_with(b"\xef\xbb\xbf") || body.starts_with(b"\xfe\xff") || body.starts_with(b"\xff\xfe") {
        return None;
    }
    for (magic, offset, kind) in SIGNATURES {
        if body.len() >= offset + magic.len() && &body[*offset..offset + magic.len()] == *magic {
            // "BM" and "MZ" also start ordinary words: demand a binary byte soon after.
            if magic.len() < 3 && !body[..body.len().min(64)].iter().any(|&b| is_binary_byte(b)) {
                continue;
            }
            return Some(kind);
        }
    }
    let head = &body[..body.len().min(SNIFF_BYTES)];
    if head.is_empty() {
        return None;
    }
    let binary = head.iter().filter(|&&b| is_binary_byte(b)).count();
    (binary as f64 / head.len() as f64 > MAX_BINARY_BYTE_SHARE).then_some("binary")
}

/// WHATWG MIME Sniffing §3, binary data byte.
fn is_binary_byte(b: u8) -> bool {
    matches!(b, 0x00..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F)
}

/// The share of U+FFFD, C0 controls other than whitespace, and C1 controls among the
/// characters of `text` that are not whitespace (0 for empty text).
pub fn unreadable_share(text: &str) -> f64 {
    let (mut bad, mut all) = (0usize, 0usize);
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // A run of ASCII counted a byte at a time (most of a page), then one other character.
        let run = bytes[at..].iter().position(|b| !b.is_ascii()).unwrap_or(bytes.len() - at);
        let (ascii_bad, ascii_all) = ascii_counts(&bytes[at..at + run]);
        (bad, all) = (bad + ascii_bad, all + ascii_all);
        at += run;
        if let Some(c) = text[at..].chars().next() {
            if !c.is_whitespace() {
                all += 1;
                bad += usize::from(c == '\u{fffd}' || c.is_control());
            }
            at += c.len_utf8();
        }
    }
    if all == 0 {
        0.0
    } else {
        bad as f64 / all as f64
    }
}

/// [`unreadable_share`]'s counts over ASCII bytes: (C0 controls other than whitespace and DEL,
/// bytes other than whitespace). ASCII's whitespace is `\t \n \x0b \x0c \r` and the space
/// (`char::is_whitespace`), its controls the bytes below 0x20 and 0x7f.
fn ascii_counts(ascii: &[u8]) -> (usize, usize) {
    let space = |b: u8| b == b' ' || (b'\t'..=b'\r').contains(&b);
    let bad = ascii.iter().filter(|&&b| (b < 0x20 || b == 0x7f) && !space(b)).count();
    let spaces = ascii.iter().filter(|&&b| space(b)).count();
    (bad, ascii.len() - spaces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_and_random_bytes_are_binary() {
        assert_eq!(binary_kind(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj"), Some("pdf"));
        assert_eq!(binary_kind(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), Some("png"));
        assert_eq!(binary_kind(b"PK\x03\x04\x14\x00\x00\x00"), Some("zip"));
        assert_eq!(binary_kind(b"RIFF\x10\x00\x00\x00WEBPVP8 "), Some("webp"));
        let mut rng = fastrand::Rng::with_seed(7);
        let random: Vec<u8> = (0..4096).map(|_| rng.u8(..)).collect();
        assert_eq!(binary_kind(&random), Some("binary"));
    }

    #[test]
    fn html_and_text_are_not_binary() {
        assert_eq!(binary_kind(b"<!doctype html><html><body><p>Hello</p>"), None);
        assert_eq!(binary_kind(b"BMW unveiled a new car on Monday."), None, "a word starting with BM");
        assert_eq!(binary_kind(b"MZ is a river"), None);
        assert_eq!(binary_kind(b"\xef\xbb\xbf<html>"), None);
        assert_eq!(binary_kind(b""), None);
        let mut broken = b"<html><body><p>".to_vec();
        broken.extend(b"A long paragraph of ordinary text. ".repeat(20));
        broken.extend([0, 0xff, 0xfe]);
        assert_eq!(binary_kind(&broken), None, "one stray NUL in a page");
    }

    #[test]
    fn unreadable_share_counts_replacements_and_controls() {
        assert_eq!(unreadable_share("plain text\n\tok"), 0.0);
        assert!(unreadable_share("\u{fffd}\u{fffd}a\u{1}") > 0.7);
        assert_eq!(unreadable_share("  "), 0.0);
    }

    /// The byte-wise count over ASCII runs gives the character-wise definition's share on
    /// every kind of character: whitespace, controls, DEL, U+FFFD, C1 controls, other scripts.
    #[test]
    fn unreadable_share_is_the_share_over_characters() {
        let by_chars = |text: &str| {
            let shown: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
            let bad = shown
                .iter()
                .filter(|&&c| c == '\u{fffd}' || (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c')))
                .count();
            if shown.is_empty() {
                0.0
            } else {
                bad as f64 / shown.len() as f64
            }
        };
        let alphabet: Vec<char> = (0u32..0x100)
            .filter_map(char::from_u32)
            .chain(['\u{fffd}', '日', '本', '\u{2028}', '\u{3000}', 'é'])
            .collect();
        let mut rng = fastrand::Rng::with_seed(11);
        for len in [0, 1, 2, 7, 64, 500] {
            for _ in 0..200 {
                let text: String = (0..len).map(|_| alphabet[rng.usize(..alphabet.len())]).collect();
                assert_eq!(unreadable_share(&text), by_chars(&text), "{text:?}");
            }
        }
    }
}
