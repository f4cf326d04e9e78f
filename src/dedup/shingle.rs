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
/// one per thread and reuse it; the hashes are exactly those of [`shingle_hashes`].
///
/// The text is classified 64 bytes at a time into bit masks (ASCII whitespace, ASCII word
/// characters `[0-9A-Za-z]`, non-ASCII bytes; SSE2 on x86-64), and tokens are walked by bit
/// scans: an ASCII token's word is the span from its first to its last word byte, copied as it
/// is, and only a token with non-ASCII bytes takes the general rules (Unicode whitespace inside
/// it, [`is_word_char`], Chinese and Japanese characters, `char::to_lowercase`). ASCII letters
/// are lower-cased once over the whole buffer.
#[derive(Debug, Default)]
pub struct Shingler {
    /// The normalised words joined by single spaces (UTF-8).
    buf: Vec<u8>,
    /// Byte offset of each word's start in `buf`.
    starts: Vec<usize>,
    /// Bit `i % 64` of word `i / 64`: byte `i` of the text is ASCII whitespace
    /// (`char::is_whitespace` on ASCII: U+0009..=U+000D, U+0020). Bytes past the end are set.
    space: Vec<u64>,
    /// The same for ASCII word characters (`[0-9A-Za-z]`, [`is_word_char`] on ASCII).
    word: Vec<u64>,
    /// The same for bytes of 0x80 and above (parts of non-ASCII characters).
    high: Vec<u64>,
    /// The same for the first byte of each token (a byte that is not whitespace, after one
    /// that is or at the start).
    token_starts: Vec<u64>,
    /// The same for the whitespace byte that ends each token.
    token_ends: Vec<u64>,
}

impl Shingler {
    /// Append the n-gram hashes of `text` to `out` (rules of [`shingle_hashes`]).
    pub fn hashes_into(&mut self, text: &str, n: usize, out: &mut Vec<u64>) {
        self.words(text);
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

    /// Fill `buf` and `starts` with the normalised words of `text`.
    fn words(&mut self, text: &str) {
        self.buf.clear();
        self.starts.clear();
        let normalized = if text.is_ascii() { std::borrow::Cow::Borrowed(text) } else { nfc(text) };
        let text: &str = &normalized;
        let bytes = text.as_bytes();
        self.classify(bytes);
        let end = bytes.len();
        // The masks are read while the words are written: out of `self` meanwhile.
        let (word, high_mask) = (std::mem::take(&mut self.word), std::mem::take(&mut self.high));
        let (starts, ends) = (std::mem::take(&mut self.token_starts), std::mem::take(&mut self.token_ends));
        // The next non-ASCII byte at or after a token (a cursor: an ASCII text is scanned once).
        let mut high = next_one(&high_mask, 0, false, end);
        let mut token_ends = Ones::new(&ends);
        for p in Ones::new(&starts) {
            // A token: from `p` to the next ASCII whitespace (the end of the text past the
            // last mask word).
            let e = token_ends.next().unwrap_or(end);
            if high < p {
                high = next_one(&high_mask, p, false, end);
            }
            if high < e {
                // Cut at ASCII bytes, so `p..e` are character boundaries.
                self.token_unicode(&text[p..e]);
            } else {
                let first = if bit(&word, p) { p } else { next_one(&word, p, false, e) };
                if first < e {
                    let last = if bit(&word, e - 1) { e - 1 } else { last_one_before(&word, e) };
                    self.push_word_start();
                    self.push_ascii(bytes, first, last + 1);
                }
            }
        }
        (self.word, self.high, self.token_starts, self.token_ends) = (word, high_mask, starts, ends);
        // Only ASCII letters change; UTF-8 sequences of other characters have no ASCII bytes.
        self.buf.make_ascii_lowercase();
    }

    /// The words of one token that holds non-ASCII characters (module doc, rules 1–5).
    fn token_unicode(&mut self, token: &str) {
        let mut utf8 = [0u8; 4];
        for piece in token.split_whitespace() {
            for_each_word(piece, |core| {
                self.push_word_start();
                if core.is_ascii() {
                    self.buf.extend_from_slice(core.as_bytes());
                } else {
                    for c in core.chars().flat_map(char::to_lowercase) {
                        self.buf.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                    }
                }
            });
        }
    }

    /// Append `bytes[from..to]`. A word of up to 16 bytes with 16 bytes of text after its start
    /// is copied as one fixed 16-byte move and cut back (no `memcpy` call per word).
    fn push_ascii(&mut self, bytes: &[u8], from: usize, to: usize) {
        const WIDE: usize = 16;
        match bytes.get(from..from + WIDE) {
            Some(wide) if to - from <= WIDE => {
                let at = self.buf.len();
                let wide: &[u8; WIDE] = wide.try_into().expect("16 bytes");
                self.buf.extend_from_slice(wide);
                self.buf.truncate(at + (to - from));
            }
            _ => self.buf.extend_from_slice(&bytes[from..to]),
        }
    }

    fn push_word_start(&mut self) {
        if !self.buf.is_empty() {
            self.buf.push(b' ');
        }
        self.starts.push(self.buf.len());
    }

    /// Fill the bit masks for `bytes`, 64 bytes per mask word; the last word is padded with
    /// whitespace.
    fn classify(&mut self, bytes: &[u8]) {
        for mask in [&mut self.space, &mut self.word, &mut self.high, &mut self.token_starts, &mut self.token_ends] {
            mask.clear();
        }
        let mut chunks = bytes.chunks_exact(64);
        for chunk in &mut chunks {
            let chunk: &[u8; 64] = chunk.try_into().expect("chunks_exact(64)");
            self.push_masks(chunk);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut padded = [b' '; 64];
            padded[..rest.len()].copy_from_slice(rest);
            self.push_masks(&padded);
        }
    }

    fn push_masks(&mut self, chunk: &[u8; 64]) {
        let (space, word, high) = masks64(chunk);
        // Whether the byte before this chunk's first one is part of a token.
        let before = self.space.last().map_or(0, |&last| u64::from(last >> 63 == 0));
        let in_token = !space;
        let after_token = (in_token << 1) | before;
        self.token_starts.push(in_token & !after_token);
        self.token_ends.push(space & after_token);
        self.space.push(space);
        self.word.push(word);
        self.high.push(high);
    }
}

/// Whether bit `at` of `mask` is set.
fn bit(mask: &[u64], at: usize) -> bool {
    mask[at / 64] >> (at % 64) & 1 == 1
}

/// The positions of the set bits of a mask, in order.
struct Ones<'m> {
    mask: &'m [u64],
    /// Index of the word in `current`.
    at: usize,
    /// The bits of word `at` not yet given.
    current: u64,
}

impl<'m> Ones<'m> {
    fn new(mask: &'m [u64]) -> Ones<'m> {
        Ones { mask, at: 0, current: mask.first().copied().unwrap_or(0) }
    }
}

impl Iterator for Ones<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        while self.current == 0 {
            self.at += 1;
            self.current = *self.mask.get(self.at)?;
        }
        let bit = self.current.trailing_zeros() as usize;
        self.current &= self.current - 1;
        Some(self.at * 64 + bit)
    }
}

/// The whitespace, word and non-ASCII bit masks of 64 bytes (bit `i` for byte `i`).
#[cfg(target_arch = "x86_64")]
fn masks64(chunk: &[u8; 64]) -> (u64, u64, u64) {
    use std::arch::x86_64::*;
    let (mut space, mut word, mut high) = (0u64, 0u64, 0u64);
    for k in 0..4 {
        // SAFETY: SSE2 is part of the x86-64 baseline; the load reads 16 bytes inside `chunk`
        // (k * 16 + 16 <= 64), unaligned load allowed.
        let (s, w, h) = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().add(k * 16).cast::<__m128i>());
            let between = |v: __m128i, lo: u8, hi: u8| {
                // Signed compares: bytes of 0x80 and above are negative, so never between.
                _mm_and_si128(
                    _mm_cmpgt_epi8(v, _mm_set1_epi8(lo as i8 - 1)),
                    _mm_cmplt_epi8(v, _mm_set1_epi8(hi as i8 + 1)),
                )
            };
            let s = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8)), between(v, 0x09, 0x0D));
            let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let w = _mm_or_si128(between(v, b'0', b'9'), between(folded, b'a', b'z'));
            (_mm_movemask_epi8(s), _mm_movemask_epi8(w), _mm_movemask_epi8(v))
        };
        let at = 16 * k as u32;
        space |= u64::from(s as u16) << at;
        word |= u64::from(w as u16) << at;
        high |= u64::from(h as u16) << at;
    }
    (space, word, high)
}

/// The whitespace, word and non-ASCII bit masks of 64 bytes (bit `i` for byte `i`).
#[cfg(not(target_arch = "x86_64"))]
fn masks64(chunk: &[u8; 64]) -> (u64, u64, u64) {
    let (mut space, mut word, mut high) = (0u64, 0u64, 0u64);
    for (i, &b) in chunk.iter().enumerate() {
        space |= u64::from(b == b' ' || (0x09..=0x0D).contains(&b)) << i;
        word |= u64::from(b.is_ascii_alphanumeric()) << i;
        high |= u64::from(b >= 0x80) << i;
    }
    (space, word, high)
}

/// The first position in `from..limit` whose bit is set (or clear, with `invert`); `limit`
/// when there is none. `limit` is at most the masks' length in bits.
fn next_one(mask: &[u64], from: usize, invert: bool, limit: usize) -> usize {
    if from >= limit {
        return limit;
    }
    let flip = if invert { !0 } else { 0 };
    let mut i = from / 64;
    let mut w = (mask[i] ^ flip) & (!0u64 << (from % 64));
    loop {
        if w != 0 {
            return (i * 64 + w.trailing_zeros() as usize).min(limit);
        }
        i += 1;
        if i * 64 >= limit {
            return limit;
        }
        w = mask[i] ^ flip;
    }
}

/// The last position before `before` whose bit is set; the caller knows there is one.
fn last_one_before(mask: &[u64], before: usize) -> usize {
    let at = before - 1;
    let mut i = at / 64;
    let mut w = mask[i] & (!0u64 >> (63 - at % 64));
    while w == 0 {
        i -= 1;
        w = mask[i];
    }
    i * 64 + 63 - w.leading_zeros() as usize
}

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

    /// The hashes of [`normalized_words`] joined, the rules' plain reference.
    fn reference(text: &str, n: usize) -> Vec<u64> {
        let words = normalized_words(text);
        if words.is_empty() {
            Vec::new()
        } else if words.len() < n {
            vec![xxh3_64(words.join(" ").as_bytes())]
        } else {
            words.windows(n).map(|g| xxh3_64(g.join(" ").as_bytes())).collect()
        }
    }

    /// The bit-mask walk gives the words of the general rules, every ASCII whitespace and
    /// punctuation at word edges and inside words included.
    #[test]
    fn ascii_tokens_follow_the_general_rules() {
        let text = "\tThe  \"quick\"\x0Bbrown\x0Cfox\r\n--jumps-- (over) the lazy dog's 3.5 e-mail ... !? end.\x1Cx";
        assert_eq!(normalized_words(text)[..4], ["the", "quick", "brown", "fox"]);
        let mut s = Shingler::default();
        s.words(text);
        let joined = normalized_words(text).join(" ");
        assert_eq!(String::from_utf8(s.buf.clone()).unwrap(), joined);
        for n in 1..=9 {
            assert_eq!(shingle_hashes(text, n), reference(text, n), "n = {n}");
        }
        // Texts that end at, just before and just after a 64-byte mask word, in a word.
        let long =
            "Alpha, beta's gamma-delta (epsilon) zeta eta theta iota kappa lambda mu nu xi omicron pi ".repeat(2);
        for len in [1, 2, 63, 64, 65, 70, 127, 128] {
            let text = &long[..len];
            assert_eq!(shingle_hashes(text, 3), reference(text, 3), "{text:?}");
        }
    }

    /// Texts of random pieces (ASCII words and punctuation, every ASCII whitespace, Unicode
    /// spaces, accented and decomposed letters, Chinese and Japanese, symbols, upper case)
    /// and random lengths across the 64-byte mask words: the shingler agrees with the plain
    /// rules on every one.
    #[test]
    fn random_texts_agree_with_the_plain_rules() {
        const PIECES: &[&str] = &[
            "word",
            "Ünïcode",
            "ÉTÉ",
            " ",
            "  ",
            "\t",
            "\n",
            "\r\n",
            "\x0B",
            "\x0C",
            "\u{A0}",
            "\u{3000}",
            "\u{2009}",
            "e\u{301}",
            "東京",
            "は",
            "。",
            "「",
            "」",
            "--",
            "'",
            "\"",
            ",",
            ".",
            "3.5",
            "İ",
            "ß",
            "•",
            "–",
            "(x)",
            "don't",
            "MiXeD",
            "\u{1F600}",
            "a",
            "Z9",
            "\u{85}",
            "\x1F",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let mut shingler = Shingler::default();
        for _ in 0..3000 {
            let pieces = next(90);
            let text: String = (0..pieces).map(|_| PIECES[next(PIECES.len())]).collect();
            for n in [1, 3, 7] {
                let mut out = Vec::new();
                shingler.hashes_into(&text, n, &mut out);
                assert_eq!(out, reference(&text, n), "n = {n}, text {text:?}");
            }
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
