//! The imprint/privacy word lists of the page classifier ([`LEGAL_TERMS`]) and their matcher
//! ([`count_legal_terms`]): two of the classifier's features count them in the extracted text
//! and in the title (news-page classifier blog, 2013: "Text mention of impressum, haftung,
//! agb, datenschutz, nutzungsbedingungen"; "Title mention of …").
//!
//! Sources. German: the paper's five words, plus the compound heads of the same pages. Other
//! languages: the usual headings of the same legal pages — the provider identification that
//! EU e-commerce law requires (Directive 2000/31/EC Art. 5; the German TMG §5 "Impressum",
//! the French LCEN art. 6 "mentions légales", the Spanish LSSI art. 10 "aviso legal"), the
//! privacy notice of the GDPR Art. 13 in each language's official text ("privacy",
//! "confidentialité", "privacidad", "riservatezza", "privacidade", "privacy",
//! "prywatności", "osobních údajů", "adatvédelmi", …) and terms of use — compiled for this
//! project, one list per language that we have a stoplist for and a common web presence
//! (jusText stoplists: English, German, French, Spanish, Italian, Portuguese, Dutch, Polish,
//! Czech, Hungarian, Swedish, Danish, Norwegian Bokmål, Finnish, Russian). The other
//! stoplist languages have no list: their pages count 0 hits.

use super::phrases::{starts_word, PhraseSet};
use std::sync::LazyLock;

/// The terms of one language, lower-case.
#[derive(Debug, Clone, Copy)]
pub struct LegalTerms {
    /// jusText stoplist language name.
    pub language: &'static str,
    /// Lower-case terms; a term matches at the start of a word (so German compounds such as
    /// "Datenschutzerklärung" match "datenschutz").
    pub terms: &'static [&'static str],
}

/// Imprint, privacy and terms-of-use words per language (see the module doc for sources).
pub const LEGAL_TERMS: &[LegalTerms] = &[
    LegalTerms {
        language: "German",
        terms: &[
            "impressum",
            "haftung",
            "agb",
            "datenschutz",
            "nutzungsbedingungen",
            "allgemeine geschäftsbedingungen",
        ],
    },
    LegalTerms {
        language: "English",
        terms: &[
            "imprint",
            "privacy policy",
            "privacy notice",
            "privacy statement",
            "cookie policy",
            "terms of use",
            "terms of service",
            "terms and conditions",
            "legal notice",
            "disclaimer",
        ],
    },
    LegalTerms {
        language: "French",
        terms: &[
            "mentions légales",
            "politique de confidentialité",
            "données personnelles",
            "conditions générales",
            "conditions d'utilisation",
        ],
    },
    LegalTerms {
        language: "Spanish",
        terms: &[
            "aviso legal",
            "política de privacidad",
            "política de cookies",
            "términos y condiciones",
            "condiciones de uso",
            "protección de datos",
        ],
    },
    LegalTerms {
        language: "Italian",
        terms: &[
            "note legali",
            "informativa sulla privacy",
            "informativa privacy",
            "termini e condizioni",
            "condizioni d'uso",
        ],
    },
    LegalTerms {
        language: "Portuguese",
        terms: &["aviso legal", "política de privacidade", "termos de uso", "termos e condições", "proteção de dados"],
    },
    LegalTerms {
        language: "Dutch",
        terms: &["privacyverklaring", "privacybeleid", "algemene voorwaarden", "colofon", "disclaimer"],
    },
    LegalTerms {
        language: "Polish",
        terms: &["polityka prywatności", "regulamin", "nota prawna", "ochrona danych osobowych"],
    },
    LegalTerms {
        language: "Czech",
        terms: &["ochrana osobních údajů", "obchodní podmínky", "podmínky použití", "tiráž"],
    },
    LegalTerms {
        language: "Hungarian",
        terms: &["impresszum", "adatvédelm", "felhasználási feltételek", "jogi nyilatkozat"],
    },
    LegalTerms { language: "Swedish", terms: &["integritetspolicy", "användarvillkor", "personuppgifter"] },
    LegalTerms { language: "Danish", terms: &["privatlivspolitik", "persondatapolitik", "handelsbetingelser"] },
    LegalTerms { language: "Norwegian_Bokmal", terms: &["personvernerklæring", "personvern", "brukervilkår"] },
    LegalTerms { language: "Finnish", terms: &["tietosuojaseloste", "tietosuoja", "käyttöehdot"] },
    LegalTerms {
        language: "Russian",
        terms: &["политика конфиденциальности", "пользовательское соглашение", "персональных данных"],
    },
];

/// The automaton of every term of [`LEGAL_TERMS`] once (a few are shared by two languages).
fn term_set() -> &'static PhraseSet {
    static SET: LazyLock<PhraseSet> = LazyLock::new(|| {
        let mut all: Vec<&'static str> = LEGAL_TERMS.iter().flat_map(|l| l.terms.iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        PhraseSet::new(&[&all])
    });
    &SET
}

/// Number of matches of any [`LEGAL_TERMS`] term in `text` (case-insensitive), every
/// language's list at once (pages mix languages in their footers). A match must start a word:
/// the character before it is not alphanumeric.
pub fn count_legal_terms(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let lower = text.to_lowercase();
    term_set().count(&lower, |_, start, _| starts_word(&lower, start))[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_match_at_word_starts_in_any_case() {
        assert_eq!(count_legal_terms("Impressum | Datenschutzerklärung | AGB"), 3);
        assert_eq!(count_legal_terms("Read our Privacy Policy and Terms of Service."), 2);
        assert_eq!(count_legal_terms("Mentions légales"), 1);
        assert_eq!(count_legal_terms("Aviso legal"), 1, "a term of two languages counts once");
        assert_eq!(count_legal_terms("a bagb word, flagbearer"), 0, "not inside words");
        assert_eq!(count_legal_terms("The minister spoke about the budget."), 0);
        assert_eq!(count_legal_terms(""), 0);
    }

    #[test]
    fn terms_are_lower_case_and_unique_per_language() {
        for list in LEGAL_TERMS {
            for t in list.terms {
                assert_eq!(*t, t.to_lowercase(), "{}: {t}", list.language);
                assert_eq!(list.terms.iter().filter(|u| *u == t).count(), 1, "{}: {t}", list.language);
            }
            crate::extract::stoplist::validate_language(list.language).expect("a stoplist language");
        }
    }
}
