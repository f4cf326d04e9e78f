//! Stoplists: the principal type is [`Stoplist`], the stopword set that jusText's
//! stopword-density rule reads (Pomikálek 2011, §3.2). It sits between page decoding and
//! extraction: the crawler picks one per page with [`stoplist_for`] (a fixed language from the
//! config, or the language detected by `whatlang` from the page text) and hands it to the
//! extractors through [`ExtractContext`](crate::extract::ExtractContext).
//!
//! The lists are jusText's own files (BSD licence), kept in `stoplists/` for the 56 languages
//! `whatlang` 0.16 can detect, and embedded in the binary with `include_str!`, so the program
//! runs from any directory. Each list is parsed at most once per process ([`load_shared`]).

use rustc_hash::FxHashSet;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Why a stoplist could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoplistError {
    /// No embedded stoplist has this name or code.
    #[error("no stoplist for language `{language}` (known: {known})")]
    UnknownLanguage {
        /// The name asked for.
        language: String,
        /// The known names, comma-separated.
        known: String,
    },
}

/// A stopword set. Words are stored lower-cased; lookups lower-case the word, as jusText does
/// (`word.lower() in stoplist`). An empty stoplist puts jusText in its language-independent
/// mode.
#[derive(Debug, Clone, Default)]
pub struct Stoplist {
    /// Language name, as the stoplist file stem (e.g. "English"); `None` for the empty list or
    /// a custom one.
    pub language: Option<String>,
    words: FxHashSet<String>,
}

impl Stoplist {
    /// The empty stoplist (jusText's language-independent mode).
    pub fn empty() -> Stoplist {
        Stoplist::default()
    }

    /// A stoplist from custom words (lower-cased, blank lines skipped).
    pub fn from_words<I, S>(language: Option<String>, words: I) -> Stoplist
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let words = words.into_iter().map(|w| w.as_ref().trim().to_lowercase()).filter(|w| !w.is_empty()).collect();
        Stoplist { language, words }
    }

    /// Parse the embedded stoplist of `language`: a file stem such as `"English"` or
    /// `"Norwegian_Bokmal"` (case-insensitive, a space may stand for `_`), or an ISO 639-1 or
    /// 639-3 code (`"en"`, `"eng"`). Parses on every call; [`load_shared`] caches.
    ///
    /// # Errors
    /// [`StoplistError::UnknownLanguage`] when no embedded list matches.
    pub fn load(language: &str) -> Result<Stoplist, StoplistError> {
        let entry = find_entry(language).ok_or_else(|| unknown(language))?;
        Ok(Stoplist::from_words(Some(entry.name.to_string()), entry.words.lines()))
    }

    /// True when `word` (any case) is in the list. Allocates only for words with upper-case
    /// letters.
    pub fn is_stopword(&self, word: &str) -> bool {
        if self.words.is_empty() {
            return false;
        }
        if word.chars().any(char::is_uppercase) {
            self.words.contains(&word.to_lowercase())
        } else {
            self.words.contains(word)
        }
    }

    /// Number of whitespace-separated words of `text` that are stopwords (jusText's
    /// `stopwords_count`).
    pub fn count_in(&self, text: &str) -> usize {
        if self.words.is_empty() {
            return 0;
        }
        text.split_whitespace().filter(|w| self.is_stopword(w)).count()
    }

    /// Number of words in the list.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True for the empty list (language-independent mode).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// One embedded stoplist with the codes that name it.
struct Entry {
    /// File stem in `stoplists/`.
    name: &'static str,
    /// ISO 639-1 code.
    iso1: &'static str,
    /// ISO 639-3 code, as `whatlang::Lang::code` spells it.
    iso3: &'static str,
    /// The file contents.
    words: &'static str,
}

macro_rules! stoplists {
    ($(($name:literal, $iso1:literal, $iso3:literal)),* $(,)?) => {
        &[$(Entry {
            name: $name,
            iso1: $iso1,
            iso3: $iso3,
            words: include_str!(concat!("../../stoplists/", $name, ".txt")),
        }),*]
    };
}

/// The embedded lists: every jusText stoplist whose language `whatlang` 0.16 detects.
static STOPLISTS: &[Entry] = stoplists![
    ("Afrikaans", "af", "afr"),
    ("Arabic", "ar", "ara"),
    ("Armenian", "hy", "hye"),
    ("Azerbaijani", "az", "aze"),
    ("Belarusian", "be", "bel"),
    ("Bengali", "bn", "ben"),
    ("Bulgarian", "bg", "bul"),
    ("Catalan", "ca", "cat"),
    ("Croatian", "hr", "hrv"),
    ("Czech", "cs", "ces"),
    ("Danish", "da", "dan"),
    ("Dutch", "nl", "nld"),
    ("English", "en", "eng"),
    ("Esperanto", "eo", "epo"),
    ("Estonian", "et", "est"),
    ("Finnish", "fi", "fin"),
    ("French", "fr", "fra"),
    ("Georgian", "ka", "kat"),
    ("German", "de", "deu"),
    ("Greek", "el", "ell"),
    ("Gujarati", "gu", "guj"),
    ("Hebrew", "he", "heb"),
    ("Hindi", "hi", "hin"),
    ("Hungarian", "hu", "hun"),
    ("Indonesian", "id", "ind"),
    ("Italian", "it", "ita"),
    ("Javanese", "jv", "jav"),
    ("Kannada", "kn", "kan"),
    ("Korean", "ko", "kor"),
    ("Latin", "la", "lat"),
    ("Latvian", "lv", "lav"),
    ("Lithuanian", "lt", "lit"),
    ("Macedonian", "mk", "mkd"),
    ("Malayalam", "ml", "mal"),
    ("Marathi", "mr", "mar"),
    ("Nepali", "ne", "nep"),
    ("Norwegian_Bokmal", "nb", "nob"),
    ("Persian", "fa", "pes"),
    ("Polish", "pl", "pol"),
    ("Portuguese", "pt", "por"),
    ("Romanian", "ro", "ron"),
    ("Russian", "ru", "rus"),
    ("Serbian", "sr", "srp"),
    ("Slovak", "sk", "slk"),
    ("Slovenian", "sl", "slv"),
    ("Spanish", "es", "spa"),
    ("Swedish", "sv", "swe"),
    ("Tagalog", "tl", "tgl"),
    ("Tamil", "ta", "tam"),
    ("Telugu", "te", "tel"),
    ("Turkish", "tr", "tur"),
    ("Turkmen", "tk", "tuk"),
    ("Ukrainian", "uk", "ukr"),
    ("Urdu", "ur", "urd"),
    ("Uzbek", "uz", "uzb"),
    ("Vietnamese", "vi", "vie"),
];

/// Bytes of text handed to `whatlang` at most; its trigram profile is stable well before this
/// and detection stays linear in the sample.
const DETECT_SAMPLE_BYTES: usize = 16 * 1024;

/// Bytes of block text in a page's detection sample ([`language_sample`]).
pub const PAGE_SAMPLE_BYTES: usize = 2 * 1024;
/// Blocks of at least this many bytes are sentences, preferred in [`language_sample`].
const SAMPLE_BLOCK_MIN_BYTES: usize = 40;

/// The text that a page's language is detected from: its blocks of running text (at least
/// 40 bytes) in page order, up to [`PAGE_SAMPLE_BYTES`]; when they give less than a quarter of
/// that, every block in page order. Menus and buttons say little about the language, and
/// `whatlang`'s cost grows with the sample. On the 2,970 pages of the shared sets, against the
/// first 16 KiB of page text: 68 pages more get a reliable language, 23 fewer, 1 another (a
/// Bulgarian page once taken for English); word F1 is unchanged on every set.
pub fn language_sample(blocks: &[crate::model::Block]) -> String {
    let collect = |min_bytes: usize| {
        let mut sample = String::with_capacity(PAGE_SAMPLE_BYTES + 256);
        for text in blocks.iter().map(|b| b.text.as_str()).filter(|t| t.len() >= min_bytes) {
            if sample.len() >= PAGE_SAMPLE_BYTES {
                break;
            }
            sample.push_str(text);
            sample.push(' ');
        }
        sample
    };
    let sample = collect(SAMPLE_BLOCK_MIN_BYTES);
    if sample.len() >= PAGE_SAMPLE_BYTES / 4 {
        sample
    } else {
        collect(0)
    }
}

fn find_entry(language: &str) -> Option<&'static Entry> {
    let language = language.trim();
    STOPLISTS.iter().find(|e| {
        e.iso1.eq_ignore_ascii_case(language)
            || e.iso3.eq_ignore_ascii_case(language)
            || (e.name.len() == language.len()
                && e.name
                    .bytes()
                    .zip(language.bytes())
                    .all(|(a, b)| a.eq_ignore_ascii_case(&b) || (a == b'_' && b == b' ')))
    })
}

fn unknown(language: &str) -> StoplistError {
    StoplistError::UnknownLanguage { language: language.to_string(), known: available_languages().join(", ") }
}

/// True for the values that mean "detect the language" (`""`, `"auto"`).
fn means_detect(language: &str) -> bool {
    let l = language.trim();
    l.is_empty() || l.eq_ignore_ascii_case("auto")
}

/// True for the value that means "no stoplist" (`"none"`: language-independent jusText).
fn means_none(language: &str) -> bool {
    language.trim().eq_ignore_ascii_case("none")
}

/// Names of the embedded stoplists (file stems), sorted.
pub fn available_languages() -> Vec<&'static str> {
    STOPLISTS.iter().map(|e| e.name).collect()
}

/// Check a configured language: a stoplist name or code, `"auto"`/`""` (detect per page) or
/// `"none"` (language-independent mode).
///
/// # Errors
/// [`StoplistError::UnknownLanguage`] for anything else.
pub fn validate_language(language: &str) -> Result<(), StoplistError> {
    if means_detect(language) || means_none(language) || find_entry(language).is_some() {
        Ok(())
    } else {
        Err(unknown(language))
    }
}

/// The stoplist name for the language of `text`, detected by `whatlang` on the first 16 KiB.
/// `None` when detection is not reliable (whatlang confidence ≤ 0.9) or no stoplist exists for
/// the detected language.
pub fn detect_language(text: &str) -> Option<&'static str> {
    reliable_language(text).flatten()
}

/// The stoplist for the language of `text` when `whatlang` detects it reliably: `Some(Some(name))`
/// for a language with a stoplist, `Some(None)` for one without (Japanese, Chinese: jusText's
/// language-independent mode), `None` when detection is not reliable.
pub fn reliable_language(text: &str) -> Option<Option<&'static str>> {
    let info = whatlang::detect(head(text, DETECT_SAMPLE_BYTES)).filter(whatlang::Info::is_reliable)?;
    let code = info.lang().code();
    Some(STOPLISTS.iter().find(|e| e.iso3 == code).map(|e| e.name))
}

/// The language of most of `blocks`' text: each block of running text (40 bytes or more)
/// whose language `whatlang` detects reliably votes with its length, up to 16 KiB of text.
/// A translated page keeps untranslated template lines and English code; a vote by blocks
/// lets its sentences decide. `Some(None)` for a language without a stoplist, `None` when no
/// block is reliable.
///
/// `expected` is the language the page was labelled with (a stoplist name; `None` for the
/// language-independent mode) and `whole` the detection of the page's kept text as one
/// ([`TextLanguage::of_paragraphs`], the record's own language): when that reliably names
/// `expected`, it is the answer and the per-block vote (one detection per block) is skipped;
/// the vote runs where the text as a whole is another language or not reliable, which is
/// where pages mix languages.
pub fn dominant_language<'a>(
    blocks: impl Iterator<Item = &'a str>,
    expected: Option<&str>,
    whole: &TextLanguage,
) -> Option<Option<&'static str>> {
    if let Some(language) = whole.reliable() {
        if language == expected {
            return Some(language);
        }
    }
    let mut votes: Vec<(Option<&'static str>, usize)> = Vec::new();
    let mut read = 0;
    for text in blocks.filter(|t| t.len() >= SAMPLE_BLOCK_MIN_BYTES) {
        if read >= DETECT_SAMPLE_BYTES {
            break;
        }
        read += text.len();
        if let Some(language) = reliable_language(text) {
            match votes.iter_mut().find(|(l, _)| *l == language) {
                Some((_, n)) => *n += text.len(),
                None => votes.push((language, text.len())),
            }
        }
    }
    votes.into_iter().max_by_key(|(_, n)| *n).map(|(l, _)| l)
}

/// What `whatlang` detects in the first [`DOCUMENT_SAMPLE_BYTES`] of a text (a page's kept
/// paragraphs joined by blank lines, as a record's text is): one detection that gives both the
/// record's language ([`TextLanguage::document`]) and, when reliable, the stoplist of the main
/// text's language ([`TextLanguage::reliable`], [`dominant_language`]).
#[derive(Debug, Clone)]
pub struct TextLanguage {
    /// The language, whether whatlang deems it reliable, and its confidence (0–1).
    info: Option<(whatlang::Lang, bool, f64)>,
}

impl TextLanguage {
    /// The detection of `text`'s first [`DOCUMENT_SAMPLE_BYTES`].
    pub fn of(text: &str) -> TextLanguage {
        let info = whatlang::detect(head(text, DOCUMENT_SAMPLE_BYTES));
        TextLanguage { info: info.map(|i| (i.lang(), i.is_reliable(), i.confidence())) }
    }

    /// [`TextLanguage::of`] the texts joined by blank lines (a record's text from its
    /// paragraphs, [`crate::model::join_paragraphs`]), reading no more of them than the sample
    /// needs.
    pub fn of_paragraphs<'a>(texts: impl Iterator<Item = &'a str>) -> TextLanguage {
        let mut joined = String::with_capacity(DOCUMENT_SAMPLE_BYTES + 256);
        for (i, text) in texts.enumerate() {
            if joined.len() >= DOCUMENT_SAMPLE_BYTES {
                break;
            }
            if i > 0 {
                joined.push_str("\n\n");
            }
            joined.push_str(text);
        }
        TextLanguage::of(&joined)
    }

    /// The stoplist of the language when the detection is reliable (whatlang's own
    /// `is_reliable`): `Some(Some(name))`, `Some(None)` for a language without a stoplist,
    /// `None` when not reliable.
    pub fn reliable(&self) -> Option<Option<&'static str>> {
        let (lang, _, _) = self.info.filter(|(_, reliable, _)| *reliable)?;
        let code = lang.code();
        Some(STOPLISTS.iter().find(|e| e.iso3 == code).map(|e| e.name))
    }

    /// The language as a record gives it ([`document_language`]).
    pub fn document(&self) -> Option<DocumentLanguage> {
        let (lang, _, confidence) = self.info?;
        let iso3 = lang.code();
        let code = match iso3 {
            // Macrolanguage members whatlang names by their own 639-3 code.
            "cmn" => "zh".to_string(),
            "pes" => "fa".to_string(),
            _ => isolang::Language::from_639_3(iso3)
                .and_then(|l| l.to_639_1())
                .map_or_else(|| iso3.to_string(), str::to_string),
        };
        Some(DocumentLanguage { code, score: confidence as f32 })
    }
}

/// Bytes of a record's text that its language is detected from.
pub const DOCUMENT_SAMPLE_BYTES: usize = 2 * 1024;

/// A document's language as `whatlang` detects it from its first 2 KiB of text.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentLanguage {
    /// ISO 639-1 code (`en`, `ja`, `zh` for Mandarin, `fa` for Persian), or the ISO 639-3
    /// code for a language without one.
    pub code: String,
    /// `whatlang`'s confidence, 0–1.
    pub score: f32,
}

/// The language of `text` (a record's main text), `None` when `whatlang` finds none (no
/// letters, or too little text).
pub fn document_language(text: &str) -> Option<DocumentLanguage> {
    TextLanguage::of(text).document()
}

/// The first `max` bytes of `text`, cut back to a character boundary.
fn head(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn cache() -> &'static Mutex<HashMap<&'static str, Arc<Stoplist>>> {
    static CACHE: OnceLock<Mutex<HashMap<&'static str, Arc<Stoplist>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

fn empty_shared() -> Arc<Stoplist> {
    static EMPTY: OnceLock<Arc<Stoplist>> = OnceLock::new();
    EMPTY.get_or_init(|| Arc::new(Stoplist::empty())).clone()
}

/// Like [`Stoplist::load`], but each list is parsed once per process and shared.
///
/// # Errors
/// [`StoplistError::UnknownLanguage`] when no embedded list matches.
pub fn load_shared(language: &str) -> Result<Arc<Stoplist>, StoplistError> {
    let entry = find_entry(language).ok_or_else(|| unknown(language))?;
    // A poisoned lock only means another thread panicked mid-insert; the map is still valid.
    let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
    let list = map
        .entry(entry.name)
        .or_insert_with(|| Arc::new(Stoplist::from_words(Some(entry.name.to_string()), entry.words.lines())));
    Ok(Arc::clone(list))
}

/// The stoplist for a page. `language` `Some(name or code)` fixes it; `None`, `Some("auto")` or
/// `Some("")` detects it from `sample_text` ([`detect_language`]); `Some("none")` asks for the
/// empty list. Falls back to the empty stoplist (jusText's language-independent mode) when the
/// language is unknown (check config with [`validate_language`]) or cannot be detected.
pub fn stoplist_for(language: Option<&str>, sample_text: &str) -> Arc<Stoplist> {
    let name = match language {
        Some(l) if means_none(l) => return empty_shared(),
        Some(l) if !means_detect(l) => l,
        _ => match detect_language(sample_text) {
            Some(name) => name,
            None => return empty_shared(),
        },
    };
    match load_shared(name) {
        Ok(list) => list,
        Err(e) => {
            tracing::warn!(error = %e, "using the empty stoplist");
            empty_shared()
        }
    }
}

/// The stoplist for one page of a host. A fixed `language` (a stoplist name or code, or
/// `"none"`) wins; otherwise the page's own language, detected from `sample_text`
/// ([`detect_language`]), and only when that detection is not reliable the host's language
/// `host_prior` (the stoplist its model was learned with). A host is not one language: wikis
/// and blogs mix translations, and an English site carries pages in other scripts.
pub fn page_stoplist(language: Option<&str>, host_prior: Option<&str>, sample_text: &str) -> Arc<Stoplist> {
    own_page_stoplist(language, sample_text).unwrap_or_else(|| host_stoplist(host_prior))
}

/// The stoplist of a host's language `host_prior` (a stoplist name; `None` for jusText's
/// language-independent mode): [`page_stoplist`]'s choice for a page whose own language is
/// not reliably detected.
pub fn host_stoplist(host_prior: Option<&str>) -> Arc<Stoplist> {
    stoplist_for(Some(host_prior.unwrap_or("none")), "")
}

/// [`page_stoplist`] where the host's language does not take part: the fixed `language`, or the
/// page's own reliably detected one; `None` where [`page_stoplist`] falls back to the host's.
pub fn own_page_stoplist(language: Option<&str>, sample_text: &str) -> Option<Arc<Stoplist>> {
    match language {
        Some(l) if !means_detect(l) => Some(stoplist_for(Some(l), sample_text)),
        _ => match reliable_language(sample_text)? {
            Some(name) => Some(stoplist_for(Some(name), "")),
            // A language jusText has no list for: its language-independent mode.
            None => Some(empty_shared()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_language_wins_over_the_host_prior() {
        let russian = "Это руководство описывает, как настроить оконный менеджер и как писать \
                       собственные виджеты для панели задач на языке Lua.";
        assert_eq!(page_stoplist(None, Some("English"), russian).language.as_deref(), Some("Russian"));
        assert_eq!(page_stoplist(Some("auto"), Some("English"), russian).language.as_deref(), Some("Russian"));
        // Too little text to tell: the host's language.
        assert_eq!(page_stoplist(None, Some("English"), "OK").language.as_deref(), Some("English"));
        assert_eq!(page_stoplist(None, None, "OK").language, None);
        let japanese = "今日は京都の古い寺を訪ねました。庭園がとても美しかったです。また来年も来たいと思います。";
        assert_eq!(page_stoplist(None, Some("English"), japanese).language, None, "no Japanese stoplist");
        // A fixed language is never overridden.
        assert_eq!(page_stoplist(Some("German"), Some("English"), russian).language.as_deref(), Some("German"));
        assert_eq!(page_stoplist(Some("none"), Some("English"), russian).language, None);
    }

    #[test]
    fn the_dominant_language_is_the_main_texts_whether_or_not_it_was_expected() {
        let menu = [
            "Home page of the window manager wiki, with its news and downloads",
            "Log in or create an account to edit the pages of this wiki",
        ];
        let russian = [
            "Это руководство описывает, как настроить оконный менеджер и как писать собственные виджеты.",
            "Сначала скопируйте файл конфигурации в домашний каталог и откройте его в редакторе.",
            "Затем добавьте новую панель задач и перезапустите менеджер, чтобы увидеть изменения.",
            "Если что-то пошло не так, сообщения об ошибках можно найти в журнале сеанса.",
        ];
        let page = || menu.iter().chain(&russian).copied();
        let dominant = |blocks: &[&str], expected| {
            dominant_language(blocks.iter().copied(), expected, &TextLanguage::of_paragraphs(blocks.iter().copied()))
        };
        let all: Vec<&str> = page().collect();
        // Labelled with the English stoplist of its menu: the vote finds the Russian text.
        assert_eq!(dominant(&all, Some("English")), Some(Some("Russian")));
        assert_eq!(dominant(&all, Some("Russian")), Some(Some("Russian")));
        assert_eq!(dominant(&all, None), Some(Some("Russian")));
        assert_eq!(dominant(&menu, Some("Russian")), Some(Some("English")));
        // Blocks under 40 bytes do not vote; nothing reliable is None.
        assert_eq!(dominant(&["Вход", "Home"], Some("English")), None);
        // A whole text that reliably names the expected language answers without the vote,
        // even where the blocks would vote otherwise.
        let english = TextLanguage::of(&menu.join(" "));
        assert_eq!(dominant_language(page(), Some("English"), &english), Some(Some("English")));
    }

    /// One detection of the kept paragraphs gives the record's language: the same as
    /// `document_language` of the joined text, however long the paragraphs.
    #[test]
    fn a_text_is_detected_once_for_the_stoplist_and_the_record() {
        let long =
            "Это руководство описывает, как настроить оконный менеджер и как писать собственные виджеты. ".repeat(40);
        let paragraphs = ["Заголовок раздела", long.as_str(), "Второй абзац текста, который уже не читается."];
        let once = TextLanguage::of_paragraphs(paragraphs.iter().copied());
        assert_eq!(once.document(), document_language(&paragraphs.join("\n\n")));
        assert_eq!(once.document().map(|d| d.code), Some("ru".to_string()));
        assert_eq!(once.reliable(), Some(Some("Russian")));
        assert_eq!(TextLanguage::of_paragraphs(std::iter::empty()).document(), None);
    }

    #[test]
    fn every_embedded_list_parses_and_is_nonempty() {
        for name in available_languages() {
            let list = Stoplist::load(name).expect("embedded");
            assert!(list.len() > 50, "{name} has only {} words", list.len());
            assert_eq!(list.language.as_deref(), Some(name));
        }
        assert_eq!(available_languages().len(), 56);
        let mut sorted = available_languages();
        sorted.sort_unstable();
        assert_eq!(sorted, available_languages());
    }

    #[test]
    fn names_and_codes_resolve() {
        for l in ["English", "english", "EN", "eng"] {
            assert_eq!(Stoplist::load(l).unwrap().language.as_deref(), Some("English"));
        }
        assert_eq!(Stoplist::load("norwegian bokmal").unwrap().language.as_deref(), Some("Norwegian_Bokmal"));
        assert_eq!(Stoplist::load("ces").unwrap().language.as_deref(), Some("Czech"));
        assert!(matches!(Stoplist::load("Klingon"), Err(StoplistError::UnknownLanguage { .. })));
        assert!(validate_language("auto").is_ok());
        assert!(validate_language("none").is_ok());
        assert!(validate_language("de").is_ok());
        assert!(validate_language("xx").is_err());
    }

    #[test]
    fn lookup_is_case_insensitive() {
        let en = Stoplist::load("English").unwrap();
        assert!(en.is_stopword("the"));
        assert!(en.is_stopword("The"));
        assert!(en.is_stopword("THE"));
        assert!(!en.is_stopword("boilerplate"));
        assert_eq!(en.count_in("The cat sat on the mat"), 3);
        let de = Stoplist::load("German").unwrap();
        assert!(de.is_stopword("über") && de.is_stopword("ÜBER"));
        assert!(Stoplist::empty().is_empty());
        assert!(!Stoplist::empty().is_stopword("the"));
    }

    #[test]
    fn detection_maps_to_stoplists() {
        let en = "The quick brown fox jumps over the lazy dog while the farmer watches from the \
                  porch and wonders whether it will rain before the harvest is brought in.";
        assert_eq!(detect_language(en), Some("English"));
        let de = "Der schnelle braune Fuchs springt über den faulen Hund, während der Bauer von \
                  der Veranda aus zusieht und sich fragt, ob es vor der Ernte regnen wird.";
        assert_eq!(detect_language(de), Some("German"));
        let cs = "Příliš žluťoučký kůň úpěl ďábelské ódy, zatímco sedlák se díval z verandy a \
                  přemýšlel, jestli bude pršet dřív, než sklidí úrodu z pole.";
        assert_eq!(detect_language(cs), Some("Czech"));
        // Japanese is detected by whatlang but jusText has no list for it.
        let ja = document_language("ウェブのページから本文を取り出して、きれいなコーパスを作ります。").unwrap();
        assert_eq!(ja.code, "ja");
        let zh = document_language("我们从网页中提取正文，去掉重复的段落，得到干净的语料库。").unwrap();
        assert_eq!(zh.code, "zh");
        let en = document_language("The crawler keeps the main text of every page and drops the menus.").unwrap();
        assert_eq!(en.code, "en");
        assert!(en.score > 0.0 && en.score <= 1.0);
        assert_eq!(document_language("12345 ... !!!"), None);
        assert_eq!(detect_language("これは日本語の文章です。今日は良い天気ですね。"), None);
        assert_eq!(detect_language(""), None);
    }

    #[test]
    fn stoplist_for_fixes_detects_and_falls_back() {
        let en = "The quick brown fox jumps over the lazy dog while the farmer watches from the \
                  porch and wonders whether it will rain before the harvest is brought in.";
        assert_eq!(stoplist_for(Some("German"), en).language.as_deref(), Some("German"));
        assert_eq!(stoplist_for(None, en).language.as_deref(), Some("English"));
        assert_eq!(stoplist_for(Some("auto"), en).language.as_deref(), Some("English"));
        assert!(stoplist_for(Some("none"), en).is_empty());
        assert!(stoplist_for(Some("Klingon"), en).is_empty());
        assert!(stoplist_for(None, "1234 5678").is_empty());
        // Cached: the same Arc twice.
        let a = stoplist_for(Some("French"), "");
        let b = load_shared("fr").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }

    #[test]
    fn detection_sample_cut_respects_char_boundaries() {
        let text = "ž".repeat(DETECT_SAMPLE_BYTES); // 2 bytes per char: the cut falls mid-char
        let _ = detect_language(&text);
    }
}
