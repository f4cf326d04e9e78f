//! Charset decoding: bytes of a page to text, once. Order (WHATWG-like): BOM, the HTTP
//! `Content-Type` charset, a `<meta charset>` / `<meta http-equiv>` in the first 4 KiB, then
//! detection with chardetng (skipped for valid UTF-8, for which it guesses UTF-8). Decoding
//! never fails: malformed sequences become U+FFFD. The text is put in Unicode Normalization
//! Form C (UAX #15): canonically equivalent spellings (a precomposed `é` and `e` + U+0301,
//! Bengali `য়` as one code point or two) become one, so stoplists, shingles and the corpus
//! see the same characters whatever form a page was written in.

use encoding_rs::Encoding;

/// A decoded page.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The text, in Unicode Normalization Form C.
    pub text: String,
    /// Name of the encoding used (WHATWG label, e.g. "UTF-8", "windows-1252").
    pub encoding: &'static str,
    /// Where the encoding came from: "bom", "header", "meta" or "detected".
    pub source: &'static str,
    /// True when malformed byte sequences were met in the first charset tried.
    pub had_errors: bool,
}

/// Decode `bytes` using, in order, a BOM, the charset of `content_type` (an HTTP header
/// value), a `<meta>` declaration in the first 4 KiB, then chardetng detection. When the
/// declared charset meets more malformed sequences than well-formed non-ASCII characters,
/// chardetng's guess is used instead if it decodes the page without any (`source` is then
/// "detected" and `had_errors` stays true).
pub fn decode_html(bytes: &[u8], content_type: Option<&str>) -> Decoded {
    let (encoding, source) = if let Some((enc, _)) = Encoding::for_bom(bytes) {
        (enc, "bom")
    } else if let Some(enc) = content_type.and_then(charset_from_content_type) {
        (enc, "header")
    } else if let Some(enc) = charset_from_meta(&bytes[..bytes.len().min(4096)]) {
        (enc, "meta")
    } else if is_plain_utf8(bytes) {
        // chardetng's guess for these bytes, without running its two dozen candidate decoders
        // over the page (a tenth of `webcorpus extract`): see `is_plain_utf8`.
        (encoding_rs::UTF_8, "detected")
    } else {
        (detect(bytes), "detected")
    };
    // A declared UTF-16 in a header or meta of an ASCII-compatible page is a known lie.
    let encoding = if source != "bom" && (encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE) {
        encoding_rs::UTF_8
    } else {
        encoding
    };
    let (text, used, had_errors) = encoding.decode(bytes);
    if had_errors && matches!(source, "header" | "meta") && declaration_lies(&text) {
        // The declaration lies (Shift_JIS or windows-1252 declared as UTF-8): detection gets
        // its chance, and wins when it decodes the bytes cleanly.
        let guess = detect(bytes);
        if guess != used {
            let (alt, alt_used, alt_errors) = guess.decode(bytes);
            if !alt_errors {
                return Decoded {
                    text: to_nfc(alt.into_owned()),
                    encoding: alt_used.name(),
                    source: "detected",
                    had_errors,
                };
            }
        }
    }
    Decoded { text: to_nfc(text.into_owned()), encoding: used.name(), source, had_errors }
}

/// `text` in Unicode Normalization Form C (UAX #15); borrowed when it already is (as nearly
/// every page and paragraph is).
pub fn nfc(text: &str) -> std::borrow::Cow<'_, str> {
    icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(text)
}

/// [`nfc`] of an owned text, without a copy when it already is NFC.
fn to_nfc(text: String) -> String {
    let normalized = match nfc(&text) {
        std::borrow::Cow::Owned(normalized) => Some(normalized),
        std::borrow::Cow::Borrowed(_) => None,
    };
    normalized.unwrap_or(text)
}

/// True when the malformed sequences of a decoding outnumber its well-formed non-ASCII
/// characters: the bytes are not in the declared charset. A page in its charset with a few
/// stray bytes has more good non-ASCII characters than bad ones, or is ASCII apart from them
/// (where any ASCII-compatible guess reads the same text).
fn declaration_lies(text: &str) -> bool {
    let (mut bad, mut good) = (0usize, 0usize);
    for c in text.chars().filter(|c| !c.is_ascii()) {
        if c == '\u{fffd}' {
            bad += 1;
        } else {
            good += 1;
        }
    }
    bad > good
}

/// chardetng's guess for a whole page (no TLD hint, UTF-8 allowed).
fn detect(bytes: &[u8]) -> &'static Encoding {
    let mut det = chardetng::EncodingDetector::new();
    det.feed(bytes, true);
    det.guess(None, true)
}

/// True when `bytes` are valid UTF-8 without an ESC byte: then [`detect`] guesses UTF-8.
/// chardetng (0.1, `guess` with UTF-8 allowed) returns UTF-8 whenever its UTF-8 candidate
/// saw no malformed sequence, and the only guess it checks first, ISO-2022-JP, needs an ESC
/// in pure ASCII (a test holds this on every page of the shared sets).
fn is_plain_utf8(bytes: &[u8]) -> bool {
    !bytes.contains(&0x1B) && std::str::from_utf8(bytes).is_ok()
}

fn charset_from_content_type(ct: &str) -> Option<&'static Encoding> {
    let lower = ct.to_ascii_lowercase();
    let pos = lower.find("charset=")?;
    let value = lower[pos + 8..].trim_start_matches(['"', '\'']);
    let end = value.find(|c: char| c == ';' || c == '"' || c == '\'' || c.is_whitespace()).unwrap_or(value.len());
    Encoding::for_label(&value.as_bytes()[..end])
}

fn charset_from_meta(head: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = head.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut from = 0;
    while let Some(i) = find(&lower[from..], b"<meta") {
        let start = from + i;
        let end = find(&lower[start..], b">").map(|e| start + e).unwrap_or(lower.len());
        let tag = &lower[start..end];
        if let Some(c) = find(tag, b"charset=") {
            let v = &tag[c + 8..];
            let v: Vec<u8> = v.iter().copied().skip_while(|b| *b == b'"' || *b == b'\'' || *b == b' ').collect();
            let len = v.iter().position(|b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>')).unwrap_or(v.len());
            if let Some(enc) = Encoding::for_label(&v[..len]) {
                return Some(enc);
            }
        }
        from = end.max(start + 5);
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_comes_out_in_normalization_form_c() {
        // `e` + combining acute, and Bengali YA + NUKTA, which NFC keeps as two code points
        // (U+09DF is a composition exclusion) while a page may write U+09DF.
        let page = "<p>cafe\u{301} \u{9df}</p>".as_bytes();
        let d = decode_html(page, Some("text/html; charset=utf-8"));
        assert!(d.text.contains("caf\u{e9} \u{9af}\u{9bc}"), "{:?}", d.text);
        let latin1 = b"<p>caf\xe9</p>";
        assert_eq!(decode_html(latin1, Some("text/html; charset=ISO-8859-1")).text, "<p>caf\u{e9}</p>");
    }

    #[test]
    fn header_beats_meta_and_bom_beats_header() {
        let latin1 = b"<meta charset=utf-8><p>caf\xe9</p>";
        let d = decode_html(latin1, Some("text/html; charset=ISO-8859-1"));
        assert_eq!(d.source, "header");
        assert!(d.text.contains("café"));
        let bom = b"\xef\xbb\xbf<p>caf\xc3\xa9</p>";
        let d = decode_html(bom, Some("text/html; charset=windows-1252"));
        assert_eq!(d.source, "bom");
        assert!(d.text.contains("café"));
    }

    #[test]
    fn meta_http_equiv_is_read() {
        let page = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\"></head><body>\xcf\xf0\xe8\xe2\xe5\xf2</body>";
        let d = decode_html(page, None);
        assert_eq!(d.source, "meta");
        assert!(d.text.contains("Привет"));
    }

    /// The UTF-8 shortcut of [`decode_html`] answers what chardetng answers: on made-up
    /// bytes, and on every page of the shared sets (skipped when the data is missing).
    #[test]
    fn plain_utf8_is_what_chardetng_guesses() {
        let cases: [&[u8]; 6] =
            [b"", b"<p>ascii</p>", "<p>Grüße, Привет, 東京</p>".as_bytes(), b"\x1b$B<p>", b"caf\xe9", b"\xc3"];
        for bytes in cases {
            if is_plain_utf8(bytes) {
                assert_eq!(detect(bytes), encoding_rs::UTF_8, "{bytes:?}");
            }
        }
        assert!(!is_plain_utf8(b"\x1b$B<p>") && !is_plain_utf8(b"caf\xe9") && is_plain_utf8(b""));
        let Some(data) = crate::testdata::shared_path("data") else { return };
        let sets = std::fs::read_dir(&data).expect("the shared data folder reads");
        let (mut pages, mut plain) = (0, 0);
        for set in sets.flatten() {
            let Ok(files) = std::fs::read_dir(set.path().join("html")) else { continue };
            for file in files.flatten() {
                let raw = std::fs::read(file.path()).expect("the page reads");
                let mut bytes = Vec::new();
                match file.path().extension().is_some_and(|e| e == "gz") {
                    true => std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&raw[..]), &mut bytes)
                        .map(|_| ())
                        .expect("the page decompresses"),
                    false => bytes = raw,
                }
                pages += 1;
                if is_plain_utf8(&bytes) {
                    plain += 1;
                    assert_eq!(detect(&bytes), encoding_rs::UTF_8, "{}", file.path().display());
                }
            }
        }
        eprintln!("{plain} of {pages} pages are plain UTF-8; chardetng guesses UTF-8 for each");
        assert!(plain > 1000, "{plain} of {pages}");
    }

    /// A UTF-8 page with one stray byte keeps UTF-8; Shift_JIS declared as UTF-8 is detected.
    #[test]
    fn a_lying_declaration_gives_way_to_detection() {
        let mut stray = "<meta charset=utf-8><p>Zürich, café, naïve, résumé".as_bytes().to_vec();
        stray.push(0xff);
        let d = decode_html(&stray, None);
        assert_eq!((d.encoding, d.source), ("UTF-8", "meta"));
        assert!(d.text.contains("Zürich"));
        let japanese = "<meta charset=utf-8><p>東京の図書館は冬の間、開館時間を延長することになりました。</p>";
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode(japanese);
        let d = decode_html(&sjis, Some("text/html; charset=utf-8"));
        assert_eq!((d.encoding, d.source), ("Shift_JIS", "detected"));
        assert!(d.text.contains("図書館"));
    }

    #[test]
    fn undeclared_utf8_is_detected() {
        let d = decode_html("<p>Grüße aus Köln, schöne Straße</p>".as_bytes(), None);
        assert_eq!(d.encoding, "UTF-8");
        assert!(d.text.contains("Straße"));
    }
}
