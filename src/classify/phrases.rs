//! [`PhraseSet`]: the classifier's word lists ([`super::cues`], [`super::legal`]) counted in
//! one pass over a text with an Aho–Corasick automaton, built once per list.
//!
//! The counts are those of scanning the text once per phrase with [`str::match_indices`]
//! and keeping the matches that pass a boundary test: every occurrence of every phrase is
//! found (overlapping search: a phrase inside or overlapping another still counts), and per
//! phrase only the occurrences that `match_indices` reports, i.e. left to right without
//! overlapping the previous occurrence of the *same* phrase (`"a a"` occurs once in
//! `"a a a"`). The phrases and the text are matched byte for byte (the callers lower-case
//! both); a match of valid UTF-8 in valid UTF-8 always starts and ends on character
//! boundaries, as `match_indices`' do.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// Phrases in groups (a phrase may be in several), counted per group in one pass.
#[derive(Debug, Clone)]
pub struct PhraseSet {
    automaton: AhoCorasick,
    /// The distinct phrases, in pattern id order.
    phrases: Vec<&'static str>,
    /// Per pattern id: the groups that list the phrase.
    groups: Vec<Vec<usize>>,
    group_count: usize,
}

impl PhraseSet {
    /// The automaton of `groups`, each a list of phrases.
    ///
    /// # Panics
    /// When a phrase is empty (`match_indices("")` matches between every two characters,
    /// which no list means).
    pub fn new(groups: &[&[&'static str]]) -> PhraseSet {
        let mut phrases: Vec<&'static str> = Vec::new();
        let mut member: Vec<Vec<usize>> = Vec::new();
        for (g, list) in groups.iter().enumerate() {
            for &phrase in *list {
                assert!(!phrase.is_empty(), "an empty phrase in group {g}");
                match phrases.iter().position(|p| *p == phrase) {
                    // A phrase listed twice in one group counts twice, as two scans would.
                    Some(i) => member[i].push(g),
                    None => {
                        phrases.push(phrase);
                        member.push(vec![g]);
                    }
                }
            }
        }
        // Standard semantics: the only kind with overlapping search. A DFA: the lists are
        // small (a few thousand states) and it is the fastest automaton to run.
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&phrases)
            .expect("the phrase lists build an automaton");
        PhraseSet { automaton, phrases, groups: member, group_count: groups.len() }
    }

    /// Per group, the occurrences of its phrases in `text` (see the module doc) for which
    /// `accept(phrase, start, end)` holds (`start..end`: the byte range of the occurrence).
    pub fn count(&self, text: &str, mut accept: impl FnMut(&str, usize, usize) -> bool) -> Vec<usize> {
        let mut counts = vec![0; self.group_count];
        if text.is_empty() {
            return counts;
        }
        // Per phrase, the end of its last occurrence: `match_indices` resumes its search there.
        let mut resume = vec![0usize; self.phrases.len()];
        // Occurrences come by end position; those of one phrase therefore also by start.
        for m in self.automaton.find_overlapping_iter(text) {
            let p = m.pattern().as_usize();
            if m.start() < resume[p] {
                continue;
            }
            resume[p] = m.end();
            if accept(self.phrases[p], m.start(), m.end()) {
                for &g in &self.groups[p] {
                    counts[g] += 1;
                }
            }
        }
        counts
    }
}

/// The character of `text` that ends just before byte `pos`.
pub fn char_before(text: &str, pos: usize) -> Option<char> {
    text[..pos].chars().next_back()
}

/// The character of `text` that starts at byte `pos`.
pub fn char_after(text: &str, pos: usize) -> Option<char> {
    text[pos..].chars().next()
}

/// True when `start..end` of `text` is a whole-word match: the characters around it are not
/// alphanumeric.
pub fn is_whole_word(text: &str, start: usize, end: usize) -> bool {
    !char_before(text, start).is_some_and(char::is_alphanumeric)
        && !char_after(text, end).is_some_and(char::is_alphanumeric)
}

/// True when a match at `start` of `text` starts a word: the character before it is not
/// alphanumeric.
pub fn starts_word(text: &str, start: usize) -> bool {
    !char_before(text, start).is_some_and(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One `match_indices` scan per phrase: the reference the one-pass count must equal.
    fn scans(text: &str, groups: &[&[&str]]) -> Vec<usize> {
        groups.iter().map(|g| g.iter().map(|p| text.match_indices(p).count()).sum()).collect()
    }

    #[test]
    fn counts_as_one_scan_per_phrase() {
        let groups: &[&[&str]] = &[&["a a", "a", "aa"], &["aa", "b"], &["a", "ab", "a"]];
        for text in ["a a a", "aaaa", "aab aab", "", "b", "ba a aab a a a"] {
            assert_eq!(PhraseSet::new(groups).count(text, |_, _, _| true), scans(text, groups), "{text:?}");
        }
    }

    #[test]
    fn boundaries() {
        let set = PhraseSet::new(&[&["reply", "née"]]);
        assert_eq!(set.count("reply replyguy née anée", |_, s, e| is_whole_word("reply replyguy née anée", s, e)), [2]);
        assert!(starts_word("é reply", 3) && !starts_word("éreply", 2));
        assert_eq!((char_before("née", 3), char_after("née", 1)), (Some('é'), Some('é')));
    }
}
