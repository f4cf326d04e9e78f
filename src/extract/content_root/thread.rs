//! Comment threads recognised by their shape, not their markup (part of rule 1 of
//! [`super::refine`]): a page whose comments sit in the same elements as its article (`<p
//! class="story">` for both) still repeats, comment after comment, a signature line of author
//! and date (`Posted by NAME on January 10, 2008 5:58 PM | Report this comment`, `NAME says:
//! 10 January 2008 at 17:58`). The principal function is [`thread_blocks`].

use super::is_comment_word;
use crate::model::Block;
use rustc_hash::FxHashMap as HashMap;

/// A thread needs at least this many signatures of one shape (three comments: two could be
/// an article's own dateline and update line).
pub const MIN_SIGNATURES: usize = 3;
/// A signature's date or time lies within this many words of the block's start (a header
/// signature) or end (a footer signature).
pub const SIGNATURE_REACH: usize = 12;
/// Words of the shape key at a signature's start ([`START_KEY_WORDS`]) and end
/// ([`END_KEY_WORDS`]), digits read as `0`: `posted by`, `0:00 pm report this comment`.
pub const START_KEY_WORDS: usize = 2;
/// See [`START_KEY_WORDS`].
pub const END_KEY_WORDS: usize = 3;
/// A span between the first and last signature with this many headings or more is a list of
/// posts (a blog's front page with a footer per post), not a thread.
pub const MAX_THREAD_HEADINGS: usize = 2;
/// Words of a comment's signature besides the [`is_comment_word`] words, in the languages of
/// the stoplists' largest web corpora: the shape key of a thread's signatures holds one
/// (`posted by`, `0:00 pm report this comment`, `geschrieben von`); a key of a date and an
/// ordinary word (a transcript's `(00:03:53): so`) does not, nor does a bare `by` (`Use By
/// 10 May 2005` on a food-recall list).
pub const SIGNATURE_WORDS: &[&str] = &[
    "posted",
    "reply",
    "says",
    "wrote",
    "report",
    "kommentar",
    "antworten",
    "geschrieben",
    "commentaire",
    "répondre",
    "commento",
    "rispondi",
    "comentario",
    "responder",
    "reactie",
    "komentarz",
    "odpowiedz",
];

/// True for a [`SIGNATURE_WORDS`] or [`is_comment_word`] word (punctuation of the shape key
/// aside: `by:`).
fn is_signature_word(w: &str) -> bool {
    let w = w.trim_end_matches(':');
    SIGNATURE_WORDS.contains(&w) || is_comment_word(w)
}

/// One flag per block: inside a comment thread recognised by its signatures. A signature is a
/// block with a date or time ([`is_date_word`]) within [`SIGNATURE_REACH`] words of its start
/// or end; signatures of one shape (the same first [`START_KEY_WORDS`] or last
/// [`END_KEY_WORDS`] words, digits read as `0`, holding a [`SIGNATURE_WORDS`] word) with at
/// least [`MIN_SIGNATURES`] distinct texts, fewer than [`MAX_THREAD_HEADINGS`] headings between
/// the first and the last, no count of comments in any (`Comments: 0` closes a post on a
/// blog's front page), and in elements of the DOM path of at least
/// [`super::COMMENT_ARTICLE_WORDS`] words before the first (comments the markup does not tell
/// from the article; marked ones are rule 1's class words) make a thread. The thread runs from the first to the last signature; when the
/// signatures are short lines of their own (under [`SIGNATURE_REACH`] words), it also takes the
/// comment text they head or close: the blocks after the last (or, when none follow, before
/// the first) whose DOM path is that of the text between signatures, as many as the longest
/// run between two signatures. Whether the thread is below an article or is the page itself is
/// decided by the caller (rule 1's [`super::COMMENT_ARTICLE_WORDS`]).
pub fn thread_blocks(blocks: &[Block]) -> Vec<bool> {
    let mut flags = vec![false; blocks.len()];
    // The shape words of the blocks with a date word within reach of an end, the only ones
    // that can be signatures.
    let mut words: HashMap<usize, Vec<String>> = HashMap::default();
    let mut groups: HashMap<(bool, String), Vec<usize>> = HashMap::default();
    for (i, b) in blocks.iter().enumerate() {
        let starts = b.text.split_whitespace().take(SIGNATURE_REACH).any(is_date_word);
        let ends = b.text.split_whitespace().rev().take(SIGNATURE_REACH).any(is_date_word);
        if !starts && !ends {
            continue;
        }
        let w = shape_words(&b.text);
        if w.len() < START_KEY_WORDS.max(END_KEY_WORDS) {
            continue;
        }
        if starts {
            groups.entry((true, w[..START_KEY_WORDS].join(" "))).or_default().push(i);
        }
        if ends {
            groups.entry((false, w[w.len() - END_KEY_WORDS..].join(" "))).or_default().push(i);
        }
        words.insert(i, w);
    }
    for ((_, key), members) in groups {
        if members.len() < MIN_SIGNATURES || !key.chars().any(|c| c.is_alphabetic()) {
            continue;
        }
        let distinct: std::collections::HashSet<&str> = members.iter().map(|&i| blocks[i].text.as_str()).collect();
        if distinct.len() < MIN_SIGNATURES {
            continue;
        }
        let (first, last) = (members[0], members[members.len() - 1]);
        if blocks[first..=last].iter().filter(|b| b.heading).count() >= MAX_THREAD_HEADINGS {
            continue;
        }
        if !key.split(' ').any(is_signature_word) {
            continue;
        }
        let paths: std::collections::HashSet<&str> = members.iter().map(|&i| blocks[i].dom_path.as_str()).collect();
        let article_like: usize =
            blocks[..first].iter().filter(|b| paths.contains(b.dom_path.as_str())).map(|b| b.words).sum();
        if article_like < super::COMMENT_ARTICLE_WORDS {
            continue;
        }
        if members.iter().any(|&i| counts_comments(&words[&i])) {
            continue;
        }
        let mut span = first..last + 1;
        let short = members.iter().all(|&i| blocks[i].words < SIGNATURE_REACH);
        if short {
            span = with_comment_text(blocks, &members, span);
        }
        for f in &mut flags[span] {
            *f = true;
        }
    }
    flags
}

/// True when `words` ([`shape_words`]) count comments (`Comments: 0`, `3 comments`,
/// `Comments (2)`): the footer of a post on a blog's front page, not a comment's signature.
fn counts_comments(words: &[String]) -> bool {
    let number = |w: &String| w.chars().all(|c| c == '0');
    words.windows(2).any(|w| (is_comment_word(&w[0]) && number(&w[1])) || (number(&w[0]) && is_comment_word(&w[1])))
}

/// The span of short signature lines widened by the comment text of the first or last
/// comment (see [`thread_blocks`]).
fn with_comment_text(blocks: &[Block], members: &[usize], span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let text_paths: std::collections::HashSet<&str> =
        span.clone().filter(|i| !members.contains(i)).map(|i| blocks[i].dom_path.as_str()).collect();
    let longest_run = members.windows(2).map(|w| w[1] - w[0] - 1).max().unwrap_or(0);
    let is_text = |i: usize| !blocks[i].heading && text_paths.contains(blocks[i].dom_path.as_str());
    let after = (span.end..blocks.len().min(span.end + longest_run)).take_while(|&i| is_text(i)).count();
    if after > 0 {
        return span.start..span.end + after;
    }
    let before = (span.start.saturating_sub(longest_run)..span.start).rev().take_while(|&i| is_text(i)).count();
    span.start - before..span.end
}

/// The words of `text` as shape keys: lowercase letters and digits, every digit `0`,
/// other punctuation than `:` dropped (`5:58` gives `0:00`), words without a letter or digit
/// left out.
fn shape_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|t| {
            t.chars()
                .filter(|c| c.is_alphanumeric() || *c == ':')
                .flat_map(char::to_lowercase)
                .map(|c| if c.is_ascii_digit() { '0' } else { c })
                .collect::<String>()
        })
        .filter(|w| w.chars().any(|c| c.is_alphanumeric()))
        .collect()
}

/// True for a word that gives a date or a time of day: `5:58`, `17:58h`, a year 1990–2039
/// (`2008,`), or a numeric date (`10/01/2008`, `2008-01-10`, `10.1.08`).
pub fn is_date_word(token: &str) -> bool {
    let t = token.trim_matches(|c: char| !c.is_ascii_digit());
    if t.is_empty() {
        return false;
    }
    let parts: Vec<&str> = t.split([':', '/', '-', '.']).collect();
    let digits = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    if !parts.iter().all(|p| digits(p)) {
        return false;
    }
    match parts.len() {
        1 => t.len() == 4 && (1990..=2039).contains(&t.parse::<u32>().unwrap_or(0)),
        2 => t.contains(':') && parts[0].len() <= 2 && parts[1].len() == 2,
        3 => parts.iter().all(|p| p.len() <= 4) && parts.iter().any(|p| p.len() >= 2),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_are_told_from_other_numbers() {
        for yes in ["5:58", "2008,", "10/01/2008", "2008-01-10", "(17:58)", "10.1.08"] {
            assert!(is_date_word(yes), "{yes}");
        }
        for no in ["1,200", "42", "3.5", "12345", "v2.1", "Posted", "1:2"] {
            assert!(!is_date_word(no), "{no}");
        }
    }
}
