//! The words of an element's class names and id, the markup's own names for what an element
//! is ([`ClassWords`]): read by the content root's hints, the post container and the
//! combiner's class-word features.

use scraper::node::Element;

/// The lowercase ASCII-alphanumeric words of each class name and of the id of an element, one
/// name after another: `class="post-comments Sidebar_x"` gives the names `[post, comments]`
/// and `[sidebar, x]`; a BEM modifier is left out (`Report__Section--Ads` gives
/// `[report, section]`). A name without such a word is no name. Held in one string and two
/// index lists, however many names and words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassWords {
    /// The words, lowercased, one after another.
    text: String,
    /// Per word, its end in `text` (its start is the previous word's end).
    ends: Vec<u32>,
    /// Per name, the end of its words in `ends`.
    names: Vec<u32>,
}

impl ClassWords {
    /// The class and id words of `el`.
    pub fn of(el: &Element) -> ClassWords {
        let mut words = ClassWords::default();
        for value in el.attr("class").into_iter().chain(el.attr("id")) {
            for name in value.split_whitespace() {
                // A BEM modifier (`Block__Element--Modifier`) says how an element looks or what
                // it holds, not what it is: `TestReport__Section--Ads` is a report section. (Only
                // after a `__` element: Shopware writes `tab-menu--product` for a product tab.)
                let name = match (name.find("__"), name.rfind("--")) {
                    (Some(element), Some(modifier)) if element < modifier => &name[..modifier],
                    _ => name,
                };
                let before = words.ends.len();
                for word in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
                    words.text.extend(word.chars().map(|c| c.to_ascii_lowercase()));
                    words.ends.push(words.text.len() as u32);
                }
                if words.ends.len() > before {
                    words.names.push(words.ends.len() as u32);
                }
            }
        }
        words
    }

    /// The names, each as its words.
    pub fn names(&self) -> impl Iterator<Item = Name<'_>> + '_ {
        let mut start = 0;
        self.names.iter().map(move |&end| {
            let name = Name { words: self, start, end: end as usize };
            start = end as usize;
            name
        })
    }

    /// Every word of every name, in order.
    pub fn all(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.ends.len()).map(|i| self.word(i))
    }

    fn word(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }
}

/// One class name or id of [`ClassWords`]: at least one word.
#[derive(Debug, Clone, Copy)]
pub struct Name<'a> {
    words: &'a ClassWords,
    /// Its words' range in [`ClassWords::ends`].
    start: usize,
    end: usize,
}

impl<'a> Name<'a> {
    /// Number of words.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Never: a name has a word (for clippy's `len` rule).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// Word `i`, `None` past the last.
    pub fn get(&self, i: usize) -> Option<&'a str> {
        (i < self.len()).then(|| self.words.word(self.start + i))
    }

    /// The first word.
    pub fn first(&self) -> Option<&'a str> {
        self.get(0)
    }

    /// The last word.
    pub fn last(&self) -> Option<&'a str> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The words in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + 'a {
        let (words, start) = (self.words, self.start);
        (start..self.end).map(move |i| words.word(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words_of(html: &str) -> Vec<Vec<String>> {
        let doc = scraper::Html::parse_fragment(html);
        let el = doc.root_element().children().find_map(|n| n.value().as_element().cloned()).expect("element");
        ClassWords::of(&el).names().map(|n| n.iter().map(str::to_string).collect()).collect()
    }

    #[test]
    fn names_are_split_into_lowercase_words() {
        assert_eq!(
            words_of("<div class='post-comments Sidebar_x' id=Main2>x</div>"),
            [vec!["post", "comments"], vec!["sidebar", "x"], vec!["main2"]]
        );
        assert_eq!(
            words_of("<div class='TestReport__Section--Ads tab-menu--product'>x</div>"),
            [vec!["testreport", "section"], vec!["tab", "menu", "product"]]
        );
        assert_eq!(words_of("<div class='-- __ é'>x</div>"), Vec::<Vec<String>>::new());
        assert_eq!(words_of("<div>x</div>"), Vec::<Vec<String>>::new());
        let doc = scraper::Html::parse_fragment("<p class='a-b c' id='d'>x</p>");
        let el = doc.root_element().children().find_map(|n| n.value().as_element().cloned()).expect("p");
        let words = ClassWords::of(&el);
        assert_eq!(words.all().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
        let first = words.names().next().expect("a name");
        assert_eq!((first.len(), first.first(), first.last(), first.get(2)), (2, Some("a"), Some("b"), None));
    }
}
