//! Page-text cues of the page classifier ([`PAGE_CUES`], [`TITLE_CUES`]) and their counters:
//! the "page cues" and "title words" feature groups (ours, not the blog's). Each cue list is
//! a class of interface words that the other page types print around their content and
//! articles do not, or the reverse: forum chrome ("reply", "joined", "posts"), shop chrome
//! ("add to cart", prices), documentation chrome ("on this page", "parameters"), service
//! pages' calls to action ("request a demo"), and an article's byline and dates.
//!
//! Sources: the English interface strings of common forum software (phpBB, vBulletin,
//! XenForo, Discourse, Invision, Stack Exchange), shop software (Shopify, WooCommerce,
//! Magento), documentation generators (Sphinx, MkDocs, Docusaurus, MDN) and publishing
//! systems (WordPress, Ghost, news CMSs), with the translations those packages ship for
//! German, Spanish, French, Polish, Italian and Dutch — the languages of the data; compiled
//! for this project, one list per class, all languages at once (pages mix languages).

/// One class of cue phrases.
#[derive(Debug, Clone, Copy)]
pub struct Cues {
    /// Feature name.
    pub feature: &'static str,
    /// Lower-case phrases; a phrase matches as whole words (the characters around it are
    /// not alphanumeric).
    pub phrases: &'static [&'static str],
}

use super::phrases::{is_whole_word, PhraseSet};
use std::sync::LazyLock;

/// Cues counted in the text of all the page's blocks.
#[rustfmt::skip]
pub const PAGE_CUES: &[Cues] = &[
    Cues {
        feature: "forum_cues",
        phrases: &[
            // English.
            "reply", "replies", "quote", "joined", "posts", "post reply", "posted by", "members", "registered",
            "thread", "threads", "topic", "topics", "views", "solved", "moderator", "original poster", "op",
            "permalink", "report post", "member", "messages", "likes", "upvote", "downvote", "votes", "answered",
            "asked", "answers", "comments",
            // German.
            "antworten", "antwort", "zitieren", "beiträge", "registriert", "mitglied", "themen", "thema", "zitat",
            "dabei seit",
            // Spanish.
            "responder", "respuesta", "respuestas", "citar", "mensajes", "registrado", "miembro", "tema",
            // French.
            "répondre", "réponse", "réponses", "citer", "inscrit", "membre", "sujet", "sujets",
            // Polish.
            "odpowiedz", "odpowiedzi", "cytuj", "posty", "dołączył", "temat", "wątek", "użytkownik",
            // Italian.
            "rispondi", "risposte", "cita", "messaggi", "iscritto", "discussione",
            // Dutch.
            "reageer", "reacties", "citeer", "berichten", "lid sinds", "onderwerp",
        ],
    },
    Cues {
        feature: "shop_cues",
        phrases: &[
            // English.
            "add to cart", "add to bag", "add to basket", "buy now", "in stock", "out of stock", "free shipping",
            "shipping", "checkout", "wishlist", "quantity", "qty", "sku", "sold out", "free returns", "delivery",
            "add to wishlist", "compare", "sale", "reviews",
            // German.
            "in den warenkorb", "warenkorb", "auf lager", "lieferzeit", "versandkostenfrei", "inkl. mwst",
            "jetzt kaufen", "merkzettel", "versand", "lieferung",
            // Spanish.
            "añadir al carrito", "agregar al carrito", "carrito", "envío gratis", "comprar ahora", "en stock",
            "envío",
            // French.
            "ajouter au panier", "panier", "livraison gratuite", "livraison", "acheter", "rupture de stock",
            // Polish.
            "dodaj do koszyka", "koszyk", "darmowa dostawa", "kup teraz", "dostawa", "dostępny",
            // Italian.
            "aggiungi al carrello", "carrello", "spedizione gratuita", "spedizione",
            // Dutch.
            "in winkelwagen", "winkelwagen", "gratis verzending", "op voorraad",
        ],
    },
    Cues {
        feature: "docs_cues",
        phrases: &[
            // English.
            "table of contents", "on this page", "contents", "edit this page", "see also", "parameters", "returns",
            "return value", "syntax", "example", "examples", "note", "warning", "deprecated", "arguments",
            "previous", "next", "version", "install", "usage", "api", "reference", "tutorial", "documentation",
            // German.
            "inhaltsverzeichnis", "auf dieser seite", "parameter", "rückgabewert", "beispiel", "siehe auch",
            "hinweis", "dokumentation",
            // Spanish.
            "tabla de contenidos", "contenido", "en esta página", "parámetros", "ejemplo", "véase también",
            "documentación",
            // French.
            "table des matières", "sommaire", "sur cette page", "paramètres", "exemple", "voir aussi",
            // Polish.
            "spis treści", "na tej stronie", "parametry", "przykład", "zobacz też", "dokumentacja",
            // Italian.
            "indice", "in questa pagina", "parametri", "esempio", "vedi anche",
            // Dutch.
            "inhoudsopgave", "op deze pagina", "voorbeeld", "zie ook",
        ],
    },
    Cues {
        feature: "service_cues",
        phrases: &[
            // English.
            "get started", "contact us", "contact sales", "request a demo", "book a demo", "get a demo",
            "free trial", "start free", "sign up", "get a quote", "pricing", "our services", "learn more",
            "schedule a consultation", "talk to sales", "try for free", "trusted by", "case studies", "our clients",
            "apply now", "enroll",
            // German.
            "kontakt", "kontaktieren sie uns", "jetzt starten", "kostenlos testen", "angebot anfordern",
            "unsere leistungen", "mehr erfahren", "jetzt anfragen",
            // Spanish.
            "contáctanos", "contacto", "solicitar demo", "prueba gratis", "nuestros servicios", "más información",
            "solicitar presupuesto",
            // French.
            "contactez-nous", "demander une démo", "essai gratuit", "nos services", "en savoir plus", "devis",
            // Polish.
            "skontaktuj się", "wypróbuj za darmo", "nasze usługi", "dowiedz się więcej", "wycena",
            // Italian.
            "contattaci", "prova gratis", "i nostri servizi", "scopri di più",
            // Dutch.
            "neem contact op", "gratis proberen", "onze diensten", "meer informatie", "offerte",
        ],
    },
    Cues {
        feature: "article_cues",
        phrases: &[
            // English.
            "written by", "author", "published", "updated", "min read", "minute read", "minutes read",
            "reading time", "share this", "related articles", "related posts", "related stories", "leave a comment",
            "posted on", "editor", "reporter", "correspondent", "read more", "newsletter",
            // German.
            "autor", "autorin", "veröffentlicht", "aktualisiert", "lesezeit", "kommentare", "artikel teilen",
            "redaktion",
            // Spanish.
            "publicado", "actualizado", "minutos de lectura", "lectura", "comentarios", "compartir", "redacción",
            // French.
            "auteur", "publié", "mis à jour", "min de lecture", "lecture", "commentaires", "partager", "rédaction",
            // Polish.
            "opublikowano", "zaktualizowano", "czas czytania", "komentarze", "udostępnij", "redakcja",
            // Italian.
            "pubblicato", "aggiornato", "tempo di lettura", "commenti", "condividi", "redazione",
            // Dutch.
            "gepubliceerd", "bijgewerkt", "leestijd", "redactie",
        ],
    },
];

/// Cues counted in the page title.
#[rustfmt::skip]
pub const TITLE_CUES: &[Cues] = &[
    Cues {
        feature: "title_forum",
        phrases: &[
            "forum", "forums", "community", "discussion", "discussions", "board", "message board", "thread",
            "questions", "q&a", "foro", "diskussion", "comunidad", "communauté", "społeczność",
        ],
    },
    Cues {
        feature: "title_docs",
        phrases: &[
            "documentation", "docs", "reference", "api", "manual", "wiki", "handbook", "guide", "tutorial", "howto",
            "dokumentation", "handbuch", "documentación", "manuel", "dokumentacja", "archwiki", "mdn",
        ],
    },
    Cues {
        feature: "title_shop",
        phrases: &[
            "buy", "shop", "store", "price", "sale", "online shop", "free shipping", "kaufen", "comprar", "acheter",
            "kup", "sklep", "tienda", "boutique", "negozio", "winkel", "prijs", "preis", "precio", "prix", "cena",
        ],
    },
    Cues {
        feature: "title_listing",
        phrases: &[
            "news", "latest", "home", "category", "archive", "archives", "all", "topics", "list of", "best",
            "nachrichten", "aktuell", "noticias", "actualités", "wiadomości", "notizie", "nieuws", "startseite",
            "inicio", "accueil",
        ],
    },
];

/// Whole-word matches of `phrases` in `lower` (already lower-case). Builds an automaton per
/// call: for the classifier's lists use [`count_page_cues`] and [`count_title_cues`], whose
/// automata are built once.
pub fn count_phrases(lower: &str, phrases: &[&'static str]) -> usize {
    PhraseSet::new(&[phrases]).count(lower, |_, start, end| is_whole_word(lower, start, end))[0]
}

/// The automaton of a cue list, one group per class.
fn cue_set(cues: &[Cues]) -> PhraseSet {
    PhraseSet::new(&cues.iter().map(|c| c.phrases).collect::<Vec<_>>())
}

/// Per class of [`PAGE_CUES`], the whole-word matches of its phrases in `lower` (already
/// lower-case): what [`count_phrases`] counts, for all classes in one pass.
pub fn count_page_cues(lower: &str) -> Vec<usize> {
    static SET: LazyLock<PhraseSet> = LazyLock::new(|| cue_set(PAGE_CUES));
    SET.count(lower, |_, start, end| is_whole_word(lower, start, end))
}

/// Per class of [`TITLE_CUES`], the whole-word matches of its phrases in `lower` (already
/// lower-case), as [`count_page_cues`].
pub fn count_title_cues(lower: &str) -> Vec<usize> {
    static SET: LazyLock<PhraseSet> = LazyLock::new(|| cue_set(TITLE_CUES));
    SET.count(lower, |_, start, end| is_whole_word(lower, start, end))
}

/// Currency symbols and codes (ISO 4217 for the currencies of the data's countries).
#[rustfmt::skip]
pub(crate) const CURRENCIES: &[&str] = &["$", "€", "£", "¥", "₹", "zł", "eur", "usd", "gbp", "pln", "chf", "kr", "aud", "cad"];

/// Prices in `lower` (lower-case text): a currency symbol or code next to a number
/// (`$19.99`, `19,99 €`, `120 zł`, `EUR 5`), with at most one space between. A code of
/// letters must not touch other letters.
pub fn count_prices(lower: &str) -> usize {
    static SET: LazyLock<PhraseSet> = LazyLock::new(|| PhraseSet::new(&[CURRENCIES]));
    SET.count(lower, |cur, start, end| is_price(lower, cur, start, end))[0]
}

/// True when the currency `cur` found at `start..end` of `lower` is a price (see
/// [`count_prices`]).
fn is_price(lower: &str, cur: &str, start: usize, end: usize) -> bool {
    let before_text = &lower[..start];
    let after_text = &lower[end..];
    let alpha = cur.chars().all(char::is_alphabetic);
    if alpha
        && (before_text.chars().next_back().is_some_and(char::is_alphabetic)
            || after_text.chars().next().is_some_and(char::is_alphabetic))
    {
        return false;
    }
    let mut before = before_text.chars().rev().peekable();
    if before.peek().is_some_and(|c| c.is_whitespace()) {
        before.next();
    }
    let mut after = after_text.chars().peekable();
    if after.peek().is_some_and(|c| c.is_whitespace()) {
        after.next();
    }
    before.next().is_some_and(|c| c.is_ascii_digit()) || after.next().is_some_and(|c| c.is_ascii_digit())
}

/// Month names (lower case) of English (with abbreviations), German, Spanish, French, Polish
/// (nominative and genitive), Italian and Dutch.
#[rustfmt::skip]
pub(crate) const MONTHS: &[&str] = &[
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "januar",
    "februar", "märz", "mai", "juni", "juli", "oktober", "dezember", "jänner", "enero", "febrero", "marzo", "abril",
    "mayo", "junio", "julio", "agosto", "septiembre", "setiembre", "octubre", "noviembre", "diciembre", "janvier",
    "février", "mars", "avril", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre", "styczeń",
    "luty", "marzec", "kwiecień", "maj", "czerwiec", "lipiec", "sierpień", "wrzesień", "październik", "listopad",
    "grudzień", "stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
    "października", "listopada", "grudnia", "gennaio", "febbraio", "aprile", "maggio", "giugno", "luglio",
    "settembre", "ottobre", "dicembre", "januari", "februari", "maart", "mei", "augustus", "december",
];

fn is_day_or_year(word: &str) -> bool {
    let digits = word.trim_end_matches(['.', ',', 'º']).trim_end_matches(|c: char| c.is_alphabetic());
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && digits.parse::<u32>().is_ok_and(|n| (1..=31).contains(&n) || (1990..2040).contains(&n))
}

/// A numeric date: three numbers joined by one of `.`, `/`, `-`, one of them a year
/// (`12.03.2024`, `2024-03-12`, `3/12/24` is not: no four-digit year).
fn is_numeric_date(word: &str) -> bool {
    let word = word.trim_matches(|c: char| !c.is_ascii_digit());
    // The shortest date is of eight characters (`1.1.2024`).
    if word.len() < 8 {
        return false;
    }
    for sep in ['.', '/', '-'] {
        // The word split at `sep` into exactly three parts (a fourth makes `n` 4).
        let (mut parts, mut n) = ([""; 3], 0);
        for part in word.split(sep) {
            if n == 3 {
                n = 4;
                break;
            }
            parts[n] = part;
            n += 1;
        }
        if n == 3
            && parts.iter().all(|p| !p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()))
            && parts.iter().filter(|p| p.len() == 4).count() == 1
            && (parts[0].len() == 4 || parts[2].len() == 4)
        {
            return true;
        }
    }
    false
}

/// True when `word` (lower case) is one of [`MONTHS`].
fn is_month(word: &str) -> bool {
    static SET: LazyLock<rustc_hash::FxHashSet<&'static str>> = LazyLock::new(|| MONTHS.iter().copied().collect());
    SET.contains(word)
}

/// Dates in `lower` (lower-case text): a month name next to a day or year (`May 5`, `5. Mai
/// 2024`, `5 de mayo`, `5 maja 2024`), or a numeric date with a four-digit year.
pub fn count_dates(lower: &str) -> usize {
    let words: Vec<&str> = lower.split_whitespace().collect();
    let mut hits = 0;
    for (i, w) in words.iter().enumerate() {
        if is_numeric_date(w) {
            hits += 1;
            continue;
        }
        let bare = w.trim_matches(|c: char| !c.is_alphabetic());
        if bare.is_empty() || !is_month(bare) {
            continue;
        }
        let near = |j: Option<usize>| j.and_then(|j| words.get(j)).is_some_and(|n| is_day_or_year(n));
        let skip = |j: usize| words.get(j).is_some_and(|n| matches!(*n, "de" | "of" | "the"));
        let prev = if i >= 2 && skip(i - 1) { Some(i - 2) } else { i.checked_sub(1) };
        if near(prev) || near(Some(i + 1)) {
            hits += 1;
        }
    }
    hits
}

/// Byline openers: "By Jane Doe" and its translations.
#[rustfmt::skip]
pub const BYLINE_OPENERS: &[&str] = &["by", "von", "por", "par", "przez", "di", "door", "written by", "autor:", "author:"];

/// A byline block: at most 80 characters, opening with a [`BYLINE_OPENERS`] word followed by
/// a capitalised word (`By Jane Doe`, `Von Max Muster, Berlin`).
pub fn is_byline(text: &str) -> bool {
    if text.chars().count() > 80 {
        return false;
    }
    let lower = text.to_lowercase();
    BYLINE_OPENERS.iter().any(|o| {
        lower.starts_with(o)
            && text.get(o.len()..).is_some_and(|rest| {
                rest.starts_with(char::is_whitespace)
                    && rest.trim_start().chars().next().is_some_and(char::is_uppercase)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_whole_words() {
        assert_eq!(count_phrases("reply to this thread · 12 replies", &["reply", "replies", "thread"]), 3);
        assert_eq!(count_phrases("the replyguy threaded", &["reply", "thread"]), 0);
        assert_eq!(count_phrases("ajouter au panier", PAGE_CUES[1].phrases), 2, "the phrase and `panier`");
    }

    #[test]
    fn prices_dates_and_bylines() {
        assert_eq!(count_prices("now $19.99, was 24,99 € or 120 zł; eur 5"), 4);
        assert_eq!(count_prices("the euro and the dollar ($) rose; 3 krill"), 0);
        assert_eq!(count_dates("posted may 5, 2024 · updated 12.03.2024 · 5 de mayo · you may go"), 3);
        assert_eq!(count_dates("in march we marched 3/12/24"), 0);
        assert!(is_byline("By Jane Doe, Reuters"));
        assert!(is_byline("Von Max Muster"));
        assert!(!is_byline("by the way, this is not one"));
        assert!(!is_byline(&format!("By Jane {}", "x".repeat(90))));
    }

    #[test]
    fn cue_lists_are_lower_case_and_unique() {
        for c in PAGE_CUES.iter().chain(TITLE_CUES) {
            for p in c.phrases {
                assert_eq!(*p, p.to_lowercase(), "{}: {p}", c.feature);
                assert_eq!(c.phrases.iter().filter(|q| *q == p).count(), 1, "{}: {p}", c.feature);
            }
        }
    }
}
