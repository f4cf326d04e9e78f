//! Word n-gram shingles for Onion deduplication: [`shingle_hashes`] turns a paragraph into the
//! xxh3-64 hashes of its word n-grams, the unit that [`super::Onion`] looks up in the store.
//!
//! Normalisation (so that trivial differences do not hide a duplicate):
//!
//! 0. Unicode Normalization Form C (UAX #15), so canonically equivalent spellings (`é` or
//!    `e` + U+0301) are one word whatever tool wrote the text (crawled pages already are NFC,
//!    [`crate::html::decode_html`]; `webcorpus dedup` reads other tools' JSONL);
//! 1. split on Unicode whitespace;
//! 2. strip leading and trailing punctuation and symbols from each token (every character that
//!    is neither alphanumeric nor a combining mark), so `"Hello,` and `hello` are the same word;
//!    inner punctuation stays (`don't`, `3.5`, `e-mail`);
//! 3. drop tokens that became empty (a lone `–` or `•` is not a word);
//! 4. lower-case (Unicode `to_lowercase`);
//! 5. in a token with Chinese or Japanese characters ([`crate::html::is_cjk`]), each such
//!    character is a word of its own, and the text between them is cut and trimmed as in 2–3
//!    (`東京は晴れ。` is the words `東 京 は 晴 れ`), as the extractors count words
//!    ([`crate::html::count_words`]): text written without spaces gets character n-grams, so
//!    its near-duplicates (a post's excerpt on an archive page) are found as in other languages,
//!    not only its exact repeats.
//!
//! Each n-gram is the n normalised words joined by one ASCII space, hashed with
//! `xxh3_64` (seed 0). The hashes are a stable on-disk format: they persist in the store, so a
//! change to this normalisation invalidates stored dedup state.

use crate::html::decode::nfc;
use crate::html::is_cjk;
use xxhash_rust::xxh3::xxh3_64;

/// The normalised words of `text`, in order (see the module doc for the rules).
pub fn normalized_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for token in nfc(text).split_whitespace() {
        for_each_word(token, |word| out.push(word.to_lowercase()));
    }
    out
}

/// Call `f` with each word of one whitespace-separated `token`, not yet lower-cased: the token
/// trimmed of edge punctuation (rules 2–3), or, when it holds Chinese or Japanese characters,
/// each of them and each trimmed piece between them (rule 5).
fn for_each_word(token: &str, mut f: impl FnMut(&str)) {
    let mut trimmed = |s: &str| {
        let core = s.trim_matches(|c: char| !is_word_char(c));
        if !core.is_empty() {
            f(core);
        }
    };
    // Every character of [`is_cjk`] is U+3005 or above: its UTF-8 starts with 0xE3 or more.
    if !token.bytes().any(|b| b >= 0xE3) {
        trimmed(token);
        return;
    }
    // Chinese and Japanese characters are letters (or, as 〇, numbers): trimming keeps them.
    let mut start = 0;
    for (i, c) in token.char_indices().filter(|&(_, c)| is_cjk(c)) {
        trimmed(&token[start..i]);
        start = i + c.len_utf8();
        trimmed(&token[i..start]);
    }
    trimmed(&token[start..]);
}

/// Characters that belong to a word: letters, digits and combining marks (so a word ending
/// in a combining accent keeps it). Everything else at a token's edge is punctuation; the
/// vertical writer splits tokens by the same rule.
pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// Combining diacritical marks, the generic blocks (enough for trimming; not a full `\p{M}`).
/// Vowel signs of Indic and other abugidas are `Other_Alphabetic`, so `is_alphanumeric`
/// already keeps them.
fn is_combining_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// The xxh3-64 hashes of the word `n`-grams of `text`, in order (Onion, Pomikálek 2011:
/// n = 7 by default).
///
/// - `m >= n` words give `m - n + 1` hashes (repeats included, so shares count occurrences);
/// - `1 <= m < n` words give ONE hash of all the words joined, so a short paragraph
///   (a heading, a "Read more" line) deduplicates as a whole;
/// - no words (or `n == 0`) give no hashes.
pub fn shingle_hashes(text: &str, n: usize) -> Vec<u64> {
    let mut out = Vec::new();
    Shingler::default().hashes_into(text, n, &mut out);
    out
}

/// [`shingle_hashes`] without allocation per word: the normalised words are written once into
/// one buffer, separated by single spaces, and every n-gram is hashed as a slice of it. Keep
/// one per thread and reuse it; the hashes are exactly those of [`shingle_hashes`]. An ASCII
/// text takes a byte-level path (the same rules: for ASCII, Unicode whitespace is
/// `\t \n \x0B \x0C \r` and space, word characters are `[0-9A-Za-z]`).
#[derive(Debug, Default)]
pub struct Shingler {
    /// The normalised words joined by single spaces (UTF-8).
    buf: Vec<u8>,
    /// Byte offset of each word's start in `buf`.
    starts: Vec<usize>,
}

impl Shingler {
    /// Append the n-gram hashes of `text` to `out` (rules of [`shingle_hashes`]).
    pub fn hashes_into(&mut self, text: &str, n: usize, out: &mut Vec<u64>) {
        self.buf.clear();
        self.starts.clear();
        if text.is_ascii() {
            self.words_ascii(text.as_bytes());
        } else {
            self.words_unicode(text);
        }
        let m = self.starts.len();
        if m == 0 || n == 0 {
            return;
        }
        if m < n {
            out.push(xxh3_64(&self.buf));
            return;
        }
        out.reserve(m - n + 1);
        for i in 0..=m - n {
            let end = if i + n < m { self.starts[i + n] - 1 } else { self.buf.len() };
            out.push(xxh3_64(&self.buf[self.starts[i]..end]));
        }
    }

    fn push_word_start(&mut self) {
        if !self.buf.is_empty() {
            self.buf.push(b' ');
        }
        self.starts.push(self.buf.len());
    }

    fn words_unicode(&mut self, text: &str) {
        let mut utf8 = [0u8; 4];
        for token in nfc(text).split_whitespace() {
            for_each_word(token, |core| {
                self.push_word_start();
                if core.is_ascii() {
                    self.buf.extend(core.bytes().map(|b| b.to_ascii_lowercase()));
                } else {
                    for c in core.chars().flat_map(char::to_lowercase) {
                        self.buf.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                    }
                }
            });
        }
    }

    fn words_ascii(&mut self, text: &[u8]) {
        let class = |b: u8| ASCII_CLASS[usize::from(b)];
        let mut i = 0;
        while i < text.len() {
            // A token runs to the next whitespace; its word is from its first to its last
            // word character.
            let mut word: Option<(usize, usize)> = None;
            while i < text.len() {
                match class(text[i]) {
                    SPACE => break,
                    WORD => word = Some((word.map_or(i, |(first, _)| first), i)),
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            if let Some((first, last)) = word {
                self.push_word_start();
                self.buf.extend(text[first..=last].iter().map(u8::to_ascii_lowercase));
            }
        }
    }
}

/// [`ASCII_CLASS`] of a whitespace byte (`char::is_whitespace` on ASCII: U+0009..=U+000D, U+0020).
const SPACE: u8 = 1;
/// [`ASCII_CLASS`] of a word byte (`[0-9A-Za-z]`, [`is_word_char`] on ASCII).
const WORD: u8 = 2;

/// The class of each ASCII byte for [`Shingler`]'s byte-level path: [`SPACE`], [`WORD`] or 0.
static ASCII_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c == b' ' || (c >= 0x09 && c <= 0x0D) {
            SPACE
        } else if c.is_ascii_alphanumeric() {
            WORD
        } else {
            0
        };
        b += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_lowercases_and_strips_edge_punctuation() {
        assert_eq!(normalized_words("  \"Hello,  World!\" – don't (3.5) "), vec!["hello", "world", "don't", "3.5"]);
    }

    #[test]
    fn canonically_equivalent_spellings_give_the_same_shingles() {
        let composed = "Le café de la gare ferme à minuit ce soir";
        let decomposed = "Le cafe\u{301} de la gare ferme a\u{300} minuit ce soir";
        assert_ne!(composed, decomposed);
        assert_eq!(normalized_words(decomposed), normalized_words(composed));
        assert_eq!(shingle_hashes(decomposed, 3), shingle_hashes(composed, 3));
        assert_eq!(shingle_hashes(decomposed, 3).len(), 8);
    }

    #[test]
    fn ngram_count_and_hash_of_joined_words() {
        let h = shingle_hashes("A b c d e f g h", 7);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0], xxh3_64(b"a b c d e f g"));
        assert_eq!(h[1], xxh3_64(b"b c d e f g h"));
    }

    #[test]
    fn short_text_gives_one_hash_of_all_words() {
        let h = shingle_hashes("Read more!", 7);
        assert_eq!(h, vec![xxh3_64(b"read more")]);
        assert_eq!(shingle_hashes("READ more", 7), h);
    }

    #[test]
    fn empty_text_gives_no_hash() {
        assert!(shingle_hashes("", 7).is_empty());
        assert!(shingle_hashes("  – • ", 7).is_empty());
        assert!(shingle_hashes("some words", 0).is_empty());
    }

    /// The buffer-slicing shingler hashes exactly the joined normalised words.
    #[test]
    fn shingler_matches_joined_words() {
        let text = "  Ünïcode, ÉTÉ – don't (3.5) stop «here» now, ok? the end of it all İstanbul 東京「ÉTÉ」は。";
        let words = normalized_words(text);
        for n in 1..=9 {
            let expected: Vec<u64> = if words.len() < n {
                vec![xxh3_64(words.join(" ").as_bytes())]
            } else {
                words.windows(n).map(|g| xxh3_64(g.join(" ").as_bytes())).collect()
            };
            assert_eq!(shingle_hashes(text, n), expected, "n = {n}");
        }
    }

    /// The ASCII path gives the hashes of the general rules, every ASCII whitespace and
    /// punctuation at word edges and inside words included.
    #[test]
    fn ascii_path_matches_the_unicode_rules() {
        let text = "\tThe  \"quick\"\x0Bbrown\x0Cfox\r\n--jumps-- (over) the lazy dog's 3.5 e-mail ... !? end.";
        let words: Vec<String> = normalized_words(text);
        assert_eq!(words[..4], ["the", "quick", "brown", "fox"]);
        for n in 1..=9 {
            let expected: Vec<u64> = if words.len() < n {
                vec![xxh3_64(words.join(" ").as_bytes())]
            } else {
                words.windows(n).map(|g| xxh3_64(g.join(" ").as_bytes())).collect()
            };
            let mut out = Vec::new();
            let mut s = Shingler::default();
            s.words_ascii(text.as_bytes());
            let ascii = (s.buf.clone(), s.starts.clone());
            s.buf.clear();
            s.starts.clear();
            s.words_unicode(text);
            assert_eq!(ascii, (s.buf.clone(), s.starts.clone()), "both paths build the same words");
            s.hashes_into(text, n, &mut out);
            assert_eq!(out, expected, "n = {n}");
        }
    }

    /// A Japanese excerpt ("[…]") of a paragraph shares most of its 7-grams with it, as an
    /// English one does; split at whitespace, each would be one "word" and one hash.
    #[test]
    fn chinese_and_japanese_characters_are_words() {
        assert_eq!(
            normalized_words("東京は晴れ。RISEデビュー（2試合）!"),
            ["東", "京", "は", "晴", "れ", "rise", "デ", "ビ", "ュ", "ー", "2", "試", "合"]
        );
        let post = "気温も一気に下がり冬本番か？って感じになってきました。一日の寒暖差が10度以上あると体の調整が上手くいかなくなりやすく、調子を崩す人が増えると言われています。";
        let excerpt =
            "気温も一気に下がり冬本番か？って感じになってきました。一日の寒暖差が10度以上あると体の調整が上手く […]";
        let (post, excerpt) = (shingle_hashes(post, 7), shingle_hashes(excerpt, 7));
        let shared = excerpt.iter().filter(|h| post.contains(h)).count();
        assert!(excerpt.len() > 30 && shared as f64 / excerpt.len() as f64 > 0.9, "{shared} of {}", excerpt.len());
    }

    #[test]
    fn exactly_n_words_gives_one_ngram() {
        let h = shingle_hashes("one two three", 3);
        assert_eq!(h, vec![xxh3_64(b"one two three")]);
    }
}
