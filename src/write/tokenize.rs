//! Sentences and tokens for the vertical format. Sentences and words follow Unicode's text
//! segmentation (UAX #29, the `unicode-segmentation` crate); runs of Chinese and Japanese
//! script, which UAX #29 leaves as single characters, are cut by the record's language:
//! Chinese (`zh`) into words by `jieba-rs` (its embedded dictionary); Japanese (`ja`) into runs
//! of one script (kanji, hiragana, katakana), the dictionary-free approximation of words (a kanji
//! stem, its okurigana and particles, a katakana loanword): the Japanese segmenters need a
//! dictionary downloaded at build time (`lindera`) or are unsound (`tinysegmenter` 0.1 builds
//! invalid `char`s, which aborts debug builds); a run over [`MAX_RUN_CHARS`] is cut into
//! characters. In a record of another language such a run stays one token per character.
//!
//! Each token knows whether whitespace came before it in the text: the vertical writer puts a
//! `<g/>` (Sketch Engine's glue) between tokens that touched, so the text can be rebuilt.

pub use crate::html::is_cjk;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// One token of a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token<'a> {
    /// The token's text, a slice of the paragraph.
    pub text: &'a str,
    /// True when the previous token of the sentence ended right before this one (no
    /// whitespace between them); false for a sentence's first token.
    pub glued: bool,
}

/// The sentences of `text` (UAX #29), each as its tokens; sentences without tokens are left
/// out. `lang` is the record's ISO 639-1 code.
pub fn sentences<'a>(text: &'a str, lang: Option<&str>) -> Vec<Vec<Token<'a>>> {
    let cjk = cjk_of(lang);
    text.unicode_sentences().map(|s| tokens(s, cjk)).filter(|t| !t.is_empty()).collect()
}

/// The cutting of CJK runs for the record's ISO 639-1 code `lang`.
fn cjk_of(lang: Option<&str>) -> Cjk {
    match lang {
        Some("zh") => Cjk::Chinese,
        Some("ja") => Cjk::Japanese,
        _ => Cjk::Characters,
    }
}

#[derive(Clone, Copy)]
enum Cjk {
    Chinese,
    Japanese,
    Characters,
}

fn tokens(sentence: &str, cjk: Cjk) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    tokens_into(sentence, cjk, &mut out);
    out
}

/// [`tokens`] of `sentence` into `out`, which is cleared first.
fn tokens_into<'a>(sentence: &'a str, cjk: Cjk, out: &mut Vec<Token<'a>>) {
    out.clear();
    let mut space_before = false;
    // A run of CJK segments waiting for the segmenter: its byte range in `sentence`.
    let mut run: Option<(usize, usize, bool)> = None;
    let base = sentence.as_ptr() as usize;
    for seg in sentence.split_word_bounds() {
        let start = seg.as_ptr() as usize - base;
        if seg.chars().all(char::is_whitespace) {
            flush(sentence, &mut run, cjk, out);
            space_before = true;
            continue;
        }
        if seg.chars().all(is_cjk) {
            match &mut run {
                Some((_, end, _)) if *end == start => *end = start + seg.len(),
                _ => {
                    flush(sentence, &mut run, cjk, out);
                    run = Some((start, start + seg.len(), !space_before));
                }
            }
        } else {
            flush(sentence, &mut run, cjk, out);
            // Control characters are no token (and no text XML can carry).
            let seg = seg.trim_matches(char::is_control);
            if !seg.is_empty() {
                out.push(Token { text: seg, glued: !space_before });
            }
        }
        space_before = false;
    }
    flush(sentence, &mut run, cjk, out);
    if let Some(first) = out.first_mut() {
        first.glued = false;
    }
}

/// Segment the pending CJK run into `out`.
fn flush<'a>(sentence: &'a str, run: &mut Option<(usize, usize, bool)>, cjk: Cjk, out: &mut Vec<Token<'a>>) {
    let Some((start, end, glued)) = run.take() else { return };
    let text = &sentence[start..end];
    let words: Vec<&'a str> = match cjk {
        Cjk::Chinese => jieba().cut(text, true).into_iter().map(|t| &text[t.byte_start..t.byte_end]).collect(),
        Cjk::Japanese => script_runs(text)
            .into_iter()
            .flat_map(|run| if run.chars().count() > MAX_RUN_CHARS { characters(run) } else { vec![run] })
            .collect(),
        Cjk::Characters => characters(text),
    };
    for (i, word) in words.into_iter().enumerate() {
        out.push(Token { text: word, glued: i > 0 || glued });
    }
}

/// Words in `text`: its tokens ([`sentences`]) that hold a letter or digit, so punctuation is
/// not counted and Chinese and Japanese are counted in words, not in space-separated runs.
pub fn word_count(text: &str, lang: Option<&str>) -> u64 {
    let cjk = cjk_of(lang);
    let mut sentence_tokens = Vec::new();
    let mut count = 0;
    for sentence in text.unicode_sentences() {
        tokens_into(sentence, cjk, &mut sentence_tokens);
        count += sentence_tokens.iter().filter(|t| t.text.chars().any(char::is_alphanumeric)).count();
    }
    count as u64
}

/// The Japanese script of a character: kanji (with the iteration marks), hiragana, katakana
/// (with the prolonged sound mark and half-width forms).
fn japanese_script(c: char) -> u8 {
    match c as u32 {
        0x3040..=0x309F => 1,
        0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => 2,
        _ => 0,
    }
}

/// A Japanese script run longer than this is several words (a kana sentence tail) and is cut
/// into characters instead: no token is sentence-long.
pub const MAX_RUN_CHARS: usize = 20;

/// `text` cut where the Japanese script changes.
fn script_runs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev = None;
    for (i, c) in text.char_indices() {
        let script = japanese_script(c);
        if prev.is_some_and(|p| p != script) {
            out.push(&text[start..i]);
            start = i;
        }
        prev = Some(script);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn characters(text: &str) -> Vec<&str> {
    text.char_indices().map(|(i, c)| &text[i..i + c.len_utf8()]).collect()
}

fn jieba() -> &'static jieba_rs::Jieba {
    static JIEBA: OnceLock<jieba_rs::Jieba> = OnceLock::new();
    JIEBA.get_or_init(jieba_rs::Jieba::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words<'a>(s: &[Token<'a>]) -> Vec<&'a str> {
        s.iter().map(|t| t.text).collect()
    }

    #[test]
    fn sentences_words_and_glue() {
        let s = sentences("Hello, world! It's 3.5 m (really).\u{1}", Some("en"));
        assert_eq!(s.len(), 2);
        assert_eq!(words(&s[0]), ["Hello", ",", "world", "!"]);
        assert_eq!(s[0].iter().map(|t| t.glued).collect::<Vec<_>>(), [false, true, false, true]);
        assert_eq!(words(&s[1]), ["It's", "3.5", "m", "(", "really", ")", "."]);
        assert!(s[1][4].glued && !s[1][3].glued);
    }

    /// The count without the sentence lists is the count of [`sentences`]' word tokens, on
    /// real pages of an English and a Japanese site read as text, under every CJK cutting.
    #[test]
    fn word_count_counts_the_word_tokens_of_the_sentences() {
        let Some(pages) = crate::testdata::articles_of(&["www.freepressokc.com", "hidemiyoshi.jp"], 3) else { return };
        for page in pages {
            let html = std::fs::read_to_string(&page).expect("page");
            let end = (0..=20_000.min(html.len())).rev().find(|&i| html.is_char_boundary(i)).unwrap_or(0);
            let text = &html[..end];
            for lang in [Some("en"), Some("ja"), Some("zh"), None] {
                let listed = sentences(text, lang)
                    .iter()
                    .flatten()
                    .filter(|t| t.text.chars().any(char::is_alphanumeric))
                    .count();
                assert!(listed > 100);
                assert_eq!(word_count(text, lang), listed as u64, "{} {lang:?}", page.display());
            }
        }
    }

    #[test]
    fn words_are_counted_without_punctuation_and_in_cjk() {
        assert_eq!(word_count("Hello, world! It's 3.5 m.", Some("en")), 5);
        assert_eq!(word_count("東京都の天気は晴れです。", Some("ja")), 6);
        assert_eq!(word_count("", None), 0);
    }

    #[test]
    fn japanese_and_chinese_are_cut_into_words() {
        let ja =
            sentences("東京都の天気は晴れです。私はプログラミングが好きで、毎日コードを書いています。", Some("ja"));
        assert_eq!(ja.len(), 2);
        let first = words(&ja[0]);
        assert_eq!(first, ["東京都", "の", "天気", "は", "晴", "れです", "。"]);
        assert!(ja[0][1..].iter().all(|t| t.glued), "no spaces in Japanese: every later token is glued");
        let zh = sentences("我们今天去北京大学参观。", Some("zh"));
        let zh = words(&zh[0]);
        assert!(zh.contains(&"我们") && zh.contains(&"今天"), "{zh:?}");
        // Without a Chinese or Japanese language: one character per token.
        let other = sentences("漢字テスト", None);
        assert!(words(&other[0]).iter().all(|w| w.chars().count() <= 5));
        // Mixed: Latin words inside Japanese keep their own tokens.
        let kana = "とさなくてはいけないとおっしゃっていました";
        let long = sentences(kana, Some("ja"));
        assert_eq!(long[0].len(), kana.chars().count(), "a kana run over 20 characters is cut into characters");
        let mixed = sentences("Rustで書いたコード", Some("ja"));
        assert_eq!(words(&mixed[0])[0], "Rust");
        assert!(mixed[0][1].glued);
    }
}
