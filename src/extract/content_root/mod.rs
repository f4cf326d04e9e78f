//! The default pipeline's page-structure pass: the principal type is [`ContentRoot`], the DOM
//! subtree that holds the page's main text, found from the extractors' majority vote and
//! refined by the markup's own hints. It runs after the vote of jusText, Boilerpipe and
//! StaDyNoT in `pipeline::default_labels` and before the GoldMiner stretch and static noise.
//!
//! Ten rules, all read from the page itself (no per-site rules):
//!
//! 1. **Boilerplate subtrees.** An element that the page marks as navigation, footer, sidebar,
//!    caption, byline, sharing, cookie, comment-section or advertising box
//!    ([`is_boilerplate_element`]: HTML5 `nav`/`footer`/`aside`/`figcaption`, ARIA landmark
//!    roles, class/id words; and `figure`/`picture` that hold no table, quotation, list or
//!    code, [`FIGURE_TAGS`]) drops every block inside it, unless its class words are
//!    outweighed by a content mark (readability's `okMaybeItsACandidate`: `<article class="full-content
//!    enable-pin-share">`) or it holds half or more of the voted text and of the page's text (a
//!    wrapper such as `<div class="has-sidebar">` around the whole page), or half or more of
//!    the voted text and a content mark of its own (`<aside class="pa-direct-content">` around
//!    the article). These are the element names, roles
//!    and class hints that readability (Mozilla's `unlikelyCandidates`) and trafilatura
//!    (`OVERALL_DISCARD_XPATH`) discard. Comment sections and comments ([`COMMENT_WORDS`]) are
//!    boilerplate when at least [`COMMENT_ARTICLE_WORDS`] voted words lie outside them (an
//!    article with its comments: trafilatura keeps comments apart from the main text); a page
//!    whose voted text is all comments is a thread, and they stay. Compound comment words count ([`is_comment_word`]: `commentlist`, `postComments`);
//!    so do comments without a container of their own, after an empty marker named for them
//!    in the article's container ([`marker`]: `<a name="comments"></a>`). A BEM modifier
//!    (`Section--Ads`) is not a class word. Cookie-consent boxes ([`ContentRoot::in_consent`])
//!    are dropped however long they are, unless they hold half of the text that is not about
//!    cookies (a dialog or a consent manager's own box, [`CONSENT_MANAGERS`], below `body` is
//!    dropped even then: it draws over the page and never wraps it); an element marked only
//!    by a cookie word ([`COOKIE_WORDS`]) that holds a heading and no form control is a
//!    manual's section about cookies, not a box, and one whose text never speaks of cookies
//!    is not one either (a CMS's `category-cookies` on a recipe's container). Lists of other
//!    stories are told by their structure ([`teasers`]: three or more sibling cards of one
//!    shape, each a headline link to another page and a short excerpt) and dropped when an
//!    article lies beside them ([`teasers::TeaserLists::beside_article`]); a page that is mostly such lists keeps them.
//!    A `<form>` with a field for typed text ([`TEXT_ENTRY_TYPES`], a `<textarea>`: comment,
//!    contact, sign-up and log-in forms) is boilerplate too, its labels and notes ("Your
//!    Email:", "500 characters maximum") included, unless it holds [`WRAPPER_SHARE`] of the
//!    voted words (ASP.NET wraps the whole page in one `<form>`).
//!    A page that names one post container ([`post`]: `entry-content`, `post-body`, `hentry`,
//!    `itemprop=articleBody`, with the page's headline near it) keeps no text outside the
//!    post's region, so the widgets around a short post cannot outweigh it.
//! 2. **Content root.** The deepest element holding at least [`ROOT_SHARE`] of the voted
//!    words is the content root (readability's "top candidate", here scored by the vote
//!    rather than by comma counts); it then climbs to its parent while at least
//!    [`CLIMB_VOTED_SHARE`] of the words the parent adds are voted (readability appends the
//!    top candidate's well-scored siblings: an article body split over sibling `div`s stays
//!    whole). When the nearest landmark enclosing the root (`main`, `article`, `role=main`, a
//!    [`CONTENT_ITEMPROPS`] `itemprop`) is the page's main landmark (`main` or `role=main`)
//!    and not boilerplate, the root becomes that landmark: the page itself says where its main
//!    content lies (HTML's `main` element "represents the dominant contents of the document",
//!    the WAI-ARIA `main` landmark), and a manual whose reference section outweighs its
//!    introduction and its code examples keeps them. An `article` on the way bounds the root
//!    instead (a story inside a `main` that also holds teasers). Voted blocks outside the
//!    root are dropped.
//! 3. **Lenient inside marked content.** Inside the root, under an element the page marks as
//!    content ([`is_content_element`]: `article`, `main`, `role=main`, `itemprop=articleBody`,
//!    class/id words such as `entry-content`, `post-body`, `markdown-body`) that holds at
//!    least [`CONTENT_SHARE`] of the voted words, one extractor's vote suffices for a block
//!    with link density below [`MAX_LENIENT_LINK_DENSITY`]: short paragraphs, list items and
//!    code blocks that the majority missed come back (trafilatura's BODY_XPATH idea: once the
//!    article body is known, keep what is in it).
//! 4. **No headings after the text.** Kept headings after the last kept non-heading block of
//!    at least [`TAIL_TEXT_WORDS`] words are dropped ("Related posts", "Share this",
//!    "Comments": trafilatura drops trailing headings, `NOT_AT_THE_END`).
//! 5. **No short blocks detached from the text's end.** After that block, once a dropped
//!    block has come, kept blocks of at most [`DETACHED_TAIL_WORDS`] words go unless they are
//!    list items or table cells ("Themen", "Kontakt:", "Mehr zum Thema" past a dropped share
//!    box: jusText's context-sensitive pass, Pomikálek 2011 §3.2, gives a short block the
//!    class of its long neighbours, and here the text lies behind boilerplate).
//! 6. **Marked content when the vote keeps nothing.** A page whose majority keeps no block
//!    (short posts: too little text for jusText and StaDyNoT) keeps the text blocks of its
//!    deepest content-marked element with most of the marked text
//!    ([`ContentRoot::marked_content_fallback`]; trafilatura's `BODY_XPATH` first,
//!    readability's `article` candidates); consent boxes are neither candidates nor text.
//! 7. **No lead-ins to dropped links.** A kept line of at most [`LEAD_IN_WORDS`] words right
//!    above a dropped link block (link density ≥ [`MAX_LENIENT_LINK_DENSITY`]) goes: "Related
//!    stories", "Explore further", "Lesen Sie auch" introduce the link list, not the text.
//!    Sentences (a final full stop) and code stay.
//! 8. **No short lines detached from the text's start.** Rule 5's mirror: before the first
//!    kept paragraph of running text, kept lines of at most [`DETACHED_TAIL_WORDS`] words that
//!    a dropped block cuts off from it go (datelines, bylines, breadcrumbs, photo credits;
//!    trafilatura drops them too), unless they are headings, sentences, list items or table
//!    cells, and only when at most [`HEAD_WORDS`] kept words come before the text.
//! 9. **No link lines.** Kept blocks that are mostly link text (link density at least
//!    [`MAX_LINK_LINE_DENSITY`], headings aside: "The latest news about the coronavirus",
//!    a "Weiterlesen" teaser) go, unless together they hold [`LINK_LINE_SHARE`] of the kept
//!    words: then the page's text is link text (an unclosed `<a>` that the parser reopens
//!    around every later paragraph, as browsers do) and the vote knows better.
//! 10. **No lead-in at the end.** The last kept line, when it is short, ends in a colon and
//!     is followed by dropped link text in its own element ("Related to this story:", "Mehr
//!     zum Thema:"), introduces links the labels left out; it goes, for the rules and the
//!     combiner alike ([`drop_dangling_lead_ins`], run by the default pipeline on its final
//!     labels).
//!
//! All passes are linear in the blocks and the elements on their paths.
//!
//! Measured (`webcorpus eval`, docs/EVALUATION.md): see `pipeline::default_labels`.

use crate::html::Document;
use crate::model::{Block, Label};
pub use class_words::ClassWords;
use ego_tree::NodeId;
use rustc_hash::FxHashMap as HashMap;
use scraper::node::Element;
use scraper::Node;

/// Share of the voted words that the content root must hold (rule 2).
pub const ROOT_SHARE: f64 = 0.8;
/// A boilerplate-marked element holding at least this share of the voted words and of all
/// the page's words (or a content mark of its own) is a page wrapper, not boilerplate (rule 1).
/// (A footer that holds the only voted text of a page without main content is still a footer.)
pub const WRAPPER_SHARE: f64 = 0.5;
/// Share of the voted words that a content-marked element must hold for rule 3.
pub const CONTENT_SHARE: f64 = 0.5;
/// Rule 3 keeps single-vote blocks only below this link density (Boilerpipe §4.2 feature).
pub const MAX_LENIENT_LINK_DENSITY: f64 = 0.5;
/// Rule 2: the root climbs to its parent while at least this share of the words the parent
/// adds (its other children) is voted: an article body split over sibling `div`s is joined
/// again, as readability appends the top candidate's siblings whose score passes a share of
/// the candidate's.
pub const CLIMB_VOTED_SHARE: f64 = 0.7;
/// Rule 4: a kept heading after the last kept non-heading block of at least this many words
/// is dropped (it heads a box of links, "Related posts", "Share this", not article text).
/// Rule 8: the first such block starts the text.
pub const TAIL_TEXT_WORDS: usize = 20;
/// Rule 5: a kept block of at most this many words past the article's end, after a dropped
/// block, is dropped (about jusText's `LENGTH_LOW_DEFAULT` of 70 characters; 10 kept more of
/// the trafilatura-eval `with` snippets than 15 or 20 at almost the same precision). Rule 8
/// drops lines of at most this many words before the text's start.
pub const DETACHED_TAIL_WORDS: usize = 10;
/// Rule 7: the longest lead-in (words) dropped above a dropped link block (trafilatura-eval
/// snippet F1 0.9181 at 5, 0.9184 at 6, 0.9185 at 8, 0.9174 at 10; modern2026-dev best at 5–6).
pub const LEAD_IN_WORDS: usize = 6;
/// Rule 8 applies only when the kept text before the article's first paragraph is at most
/// this many words (trafilatura-eval snippet F1 0.9204 at 30, 0.9207 at 60, 0.9205 at 100).
pub const HEAD_WORDS: usize = 60;
/// Rule 9: a kept block with at least this link density is a link line (trafilatura-eval
/// snippet F1 0.9214 at 0.9, 0.9223 at 0.8, 0.9226 at 0.5–0.7; the other sets flat).
pub const MAX_LINK_LINE_DENSITY: f64 = 0.7;
/// Rule 9 leaves the link lines when they hold at least this share of the kept words.
pub const LINK_LINE_SHARE: f64 = 0.5;

/// HTML5 elements that hold page furniture, not main text.
pub const BOILERPLATE_TAGS: &[&str] = &["nav", "footer", "aside", "figcaption"];
/// Image containers: boilerplate (the image's caption and credit) unless they hold
/// [`FIGURE_TEXT_TAGS`]. trafilatura's tree cleaning drops `figure` and `picture` unless
/// images are wanted, and keeps a `figure` around a table.
pub const FIGURE_TAGS: &[&str] = &["figure", "picture"];
/// Text structures that make a [`FIGURE_TAGS`] element part of the text: a table
/// (`wp-block-table`), a quotation (testimonials), code, a list.
pub const FIGURE_TEXT_TAGS: &[&str] = &["table", "blockquote", "pre", "ul", "ol", "dl"];
/// ARIA roles of navigation landmarks, site banners, complementary boxes and dialogs.
pub const BOILERPLATE_ROLES: &[&str] = &[
    "navigation",
    "contentinfo",
    "banner",
    "complementary",
    "search",
    "dialog",
    "alertdialog",
    "alert",
    "menu",
    "menubar",
];
/// Class/id words of boilerplate boxes: the first word of a class (`sidebar-left`) or the
/// last word of a class of at most three words (`post-comments`, `has-sidebar`; a page
/// wrapper so named is spared by [`WRAPPER_SHARE`]).
pub const BOILERPLATE_WORDS: &[&str] = &[
    "ad",
    "ads",
    "advert",
    "advertisement",
    "author",
    "bio",
    "breadcrumb",
    "breadcrumbs",
    "byline",
    "caption",
    "consent",
    "cookie",
    "cookies",
    "credit",
    "disclaimer",
    "disqus",
    "dropdown",
    "footer",
    "gdpr",
    "login",
    "masthead",
    "menu",
    "meta",
    "modal",
    "nav",
    "navbar",
    "navigation",
    "newsletter",
    "pager",
    "pagination",
    "popup",
    "promo",
    "related",
    "share",
    "sharing",
    "sidebar",
    "signup",
    "similar",
    "skip",
    "social",
    "submenu",
    "subscribe",
    "tags",
    "teasers",
    "toolbar",
];
/// The [`BOILERPLATE_WORDS`] of cookie notices: an element marked only by one of them is not
/// boilerplate in a page (rule 1) when it holds a heading and no form control
/// ([`CONTROL_TAGS`]): that is a titled section about cookies, and the vote decides.
pub const COOKIE_WORDS: &[&str] = &["consent", "cookie", "cookies", "gdpr"];
/// Rule 6 keeps the marked content only when it holds at least this many paragraphs of running
/// text (outside lists and tables, not headings) ...
pub const FALLBACK_PARAGRAPHS: usize = 2;
/// ... of at least this many characters in all: a page title, a single teaser or a staff
/// directory in `<main>` is not an article.
pub const FALLBACK_CHARS: usize = 200;
/// Class/id words of comment sections and single comments (rule 1: boilerplate only when the
/// page has an article outside them).
pub const COMMENT_WORDS: &[&str] = &["comment", "comments"];
/// Rule 1: comment elements are boilerplate when at least this many voted words lie outside
/// every comment element (an article with comments below it); with fewer, the comments are
/// the page's text (a forum thread, a guestbook) and stay.
pub const COMMENT_ARTICLE_WORDS: usize = 100;

/// True for a class/id word of a comment section or comment: a [`COMMENT_WORDS`] word, or a
/// compound that begins with `comment` (`commentlist`, `commentbody`; not `commentary` or
/// `commentator`) or ends with `comments` (`postcomments`, from `postComments`).
pub fn is_comment_word(w: &str) -> bool {
    COMMENT_WORDS.contains(&w)
        || (w.starts_with("comment") && !w.starts_with("commentar") && !w.starts_with("commentat"))
        || w.ends_with("comments")
}
/// Class/id words of cookie-consent boxes, matched anywhere in a class or id
/// (`moove_gdpr_cookie_modal`); any word containing `cookie` or a [`CONSENT_MANAGERS`] name
/// counts too (`cookiebar`, `cookiePolicy`, `onetrust-consent-sdk`). See
/// [`ContentRoot::in_consent`].
pub const CONSENT_WORDS: &[&str] = &["consent", "gdpr"];
/// Names of the consent-management platforms that draw cookie dialogs, found inside a class or
/// id word (`CybotCookiebotDialog`, `onetrust-pc-sdk`). An element below `body` so named is the
/// platform's own box: a consent box whatever its length, as a dialog ([`DIALOG_ROLES`]) is (a
/// preference centre's vendor list may be far longer than the page's text). See
/// [`ContentRoot::in_consent`].
pub const CONSENT_MANAGERS: &[&str] =
    &["onetrust", "cookiebot", "usercentrics", "didomi", "cmplz", "borlabs", "iubenda"];
/// ARIA roles of dialogs: a dialog whose text speaks of cookies is a consent box, whatever its
/// length.
pub const DIALOG_ROLES: &[&str] = &["dialog", "alertdialog"];

/// Class/id words of main-content containers (first or last word of a class).
pub const CONTENT_WORDS: &[&str] =
    &["article", "body", "content", "entry", "main", "markdown", "post", "prose", "story", "text"];
/// `itemprop` values of schema.org main text.
pub const CONTENT_ITEMPROPS: &[&str] = &["articlebody", "text", "maincontentofpage", "reviewbody", "description"];

/// The class and id words of `el` ([`ClassWords`]).
pub(crate) fn class_words(el: &Element) -> ClassWords {
    ClassWords::of(el)
}

fn is_boilerplate_word(w: &str) -> bool {
    BOILERPLATE_WORDS.contains(&w) || is_comment_word(w)
}

/// True when the page marks `el` as page furniture and not also as main content: a
/// [`BOILERPLATE_TAGS`] element, a [`BOILERPLATE_ROLES`] role, or a class/id whose first word
/// (or last word, in a name of at most three words) is a [`BOILERPLATE_WORDS`] word. Class
/// words do not count when [`is_content_element`] holds (readability's
/// `okMaybeItsACandidate`: an `<article class="full-content enable-pin-share">` is the
/// article, not a sharing box); tags and roles always count. [`FIGURE_TAGS`] need their
/// subtree and are judged by the content root (rule 1), not here.
pub fn is_boilerplate_element(el: &Element) -> bool {
    element_hints(el).boilerplate
}

/// True when the page marks `el` as main content: `article`, `main`, `role=main`, a
/// [`CONTENT_ITEMPROPS`] `itemprop`, or a class/id whose first or last word is a
/// [`CONTENT_WORDS`] word and none a boilerplate word (`entry-content`, not `content-sidebar`).
pub fn is_content_element(el: &Element) -> bool {
    element_hints(el).content
}

/// What the markup says about one element (see [`element_hints`]).
#[derive(Debug, Clone, Copy, Default)]
struct Hints {
    /// Page furniture ([`is_boilerplate_element`]), comment words aside.
    boilerplate: bool,
    /// Main content ([`is_content_element`]).
    content: bool,
    /// A comment section or comment: a class/id whose first word (or last, in a name of at most
    /// three words) is a [`COMMENT_WORDS`] word, and not content.
    comment: bool,
    /// Marked like a cookie-consent box: a [`CONSENT_WORDS`] word or a word containing
    /// `cookie` anywhere in its class/id, or a [`DIALOG_ROLES`] role; and holding a form
    /// control ([`CONTROL_TAGS`]: a `<section id="cookies">` of a manual has none).
    consent: bool,
    /// Named after a consent-management platform ([`CONSENT_MANAGERS`]), or a dialog
    /// ([`DIALOG_ROLES`]): an element that draws over the page, never a page wrapper.
    overlay: bool,
    /// `boilerplate` only for a [`COOKIE_WORDS`] class/id word: in a page's tree it stays
    /// boilerplate unless it holds a heading and no form control, as a manual's
    /// `<section id="cookies">` does and a cookie notice or its cookie table does not.
    cookie_marked: bool,
    /// A main-content landmark: `main`, `article`, `role=main` or a [`CONTENT_ITEMPROPS`]
    /// `itemprop` (class words are not landmarks).
    landmark: bool,
    /// The page's main landmark: `main` or `role=main` (rule 2).
    main_landmark: bool,
    /// Named as a post's or article's body ([`post::is_post_element`]).
    post: bool,
    /// A comment, contact, sign-up or log-in `<form>` ([`holds_text_entry`]): boilerplate unless it
    /// holds [`WRAPPER_SHARE`] of the voted words (ASP.NET pages wrap the whole page in one).
    entry_form: bool,
}

/// The [`Hints`] of `el`, reading the class and id words once.
fn element_hints(el: &Element) -> Hints {
    let words = class_words(el);
    let main_landmark = el.name() == "main" || el.attr("role").is_some_and(|r| r.trim().eq_ignore_ascii_case("main"));
    let landmark = main_landmark
        || el.name() == "article"
        || el.attr("itemprop").is_some_and(|p| CONTENT_ITEMPROPS.contains(&p.trim().to_ascii_lowercase().as_str()));
    let content = landmark
        || words.names().any(|name| {
            let hinted = name.first().is_some_and(|w| CONTENT_WORDS.contains(&w))
                || name.last().is_some_and(|w| CONTENT_WORDS.contains(&w));
            hinted && !name.iter().any(is_boilerplate_word)
        });
    let tagged = BOILERPLATE_TAGS.contains(&el.name())
        || el.attr("role").is_some_and(|r| BOILERPLATE_ROLES.contains(&r.trim().to_ascii_lowercase().as_str()));
    let classed_by = |is: &dyn Fn(&str) -> bool| {
        !content
            && words.names().any(|name| {
                let first = name.first().is_some_and(is);
                let last = name.len() <= 3 && name.last().is_some_and(is);
                first || last
            })
    };
    let classed = |list: &[&str]| classed_by(&|w| list.contains(&w));
    let overlay = words.all().any(|w| CONSENT_MANAGERS.iter().any(|m| w.contains(m)))
        || el.attr("role").is_some_and(|r| DIALOG_ROLES.contains(&r.trim().to_ascii_lowercase().as_str()));
    let consent = overlay || words.all().any(|w| w.contains("cookie") || CONSENT_WORDS.contains(&w));
    let boilerplate = tagged || classed(BOILERPLATE_WORDS);
    let cookie_marked =
        boilerplate && !tagged && !classed_by(&|w| BOILERPLATE_WORDS.contains(&w) && !COOKIE_WORDS.contains(&w));
    let comment = classed_by(&is_comment_word);
    let post = post::names_post(el, &words);
    Hints {
        boilerplate,
        content,
        comment,
        consent,
        overlay,
        cookie_marked,
        landmark,
        main_landmark,
        post,
        entry_form: false,
    }
}

/// Form controls and the ARIA roles of controls: what a consent box offers (accept, reject,
/// settings) and a section of an article about cookies does not.
pub const CONTROL_TAGS: &[&str] = &["button", "input", "select", "textarea"];
/// `<input>` types that make a `<form>` a sign-up or log-in form, as a `<textarea>` makes it
/// a comment or contact form: their labels and instructions ("Your Comments:", "500
/// characters maximum", "Your Email:") are not the page's text (rule 1). A plain `text`
/// field is not enough: search boxes and the quantity field of a shop's product card have one.
pub const TEXT_ENTRY_TYPES: &[&str] = &["email", "password"];
/// See [`CONTROL_TAGS`].
pub const CONTROL_ROLES: &[&str] = &["button", "switch", "checkbox"];

/// True when the element `id` or one of its descendants is an element that `is` accepts.
fn holds(doc: &Document, id: NodeId, is: impl Fn(&Element) -> bool) -> bool {
    doc.html.tree.get(id).is_some_and(|node| node.descendants().filter_map(|d| d.value().as_element()).any(is))
}

/// True when the element `id` or one of its descendants is a form control ([`CONTROL_TAGS`],
/// [`CONTROL_ROLES`], or a class/id word ending in `btn` or `button`: `cookieCloseBtn`).
fn holds_control(doc: &Document, id: NodeId) -> bool {
    holds(doc, id, |el| {
        CONTROL_TAGS.contains(&el.name())
            || el.attr("role").is_some_and(|r| CONTROL_ROLES.contains(&r.trim().to_ascii_lowercase().as_str()))
            || class_words(el).all().any(|w| w.ends_with("btn") || w.ends_with("button"))
    })
}

/// True when the element `id` is or holds a `<textarea>` or an `<input>` of a
/// [`TEXT_ENTRY_TYPES`] type.
fn holds_text_entry(doc: &Document, id: NodeId) -> bool {
    holds(doc, id, |el| match el.name() {
        "textarea" => true,
        "input" => {
            let kind = el.attr("type").unwrap_or("text").trim().to_ascii_lowercase();
            TEXT_ENTRY_TYPES.contains(&kind.as_str())
        }
        _ => false,
    })
}

/// True when the element `id` is or holds a heading (`h1`–`h6`).
fn holds_heading(doc: &Document, id: NodeId) -> bool {
    holds(doc, id, |el| crate::html::segment::is_heading_tag(el.name()))
}

/// True when the element `id` is or holds a [`FIGURE_TEXT_TAGS`] element.
fn holds_text_structure(doc: &Document, id: NodeId) -> bool {
    holds(doc, id, |el| FIGURE_TEXT_TAGS.contains(&el.name()))
}

/// One element on the path from the document root to some block.
#[derive(Debug, Clone, Copy)]
struct NodeInfo {
    /// Index of the parent element in [`ContentRoot::nodes`]; `None` for the topmost.
    parent: Option<usize>,
    /// Words of voted (majority) blocks under the element.
    voted_words: usize,
    /// Words of all blocks under the element.
    words: usize,
    /// Depth from the topmost element (0).
    depth: usize,
    hints: Hints,
}

/// The content root of a page and the per-element facts the rules need. Elements are
/// numbered parents first, so one forward pass propagates facts down and one backward pass
/// sums words up.
#[derive(Debug, Clone)]
pub struct ContentRoot {
    /// The elements on the paths to the blocks, every parent before its children.
    nodes: Vec<NodeInfo>,
    /// Per block, the index in `nodes` of its element.
    block_node: Vec<usize>,
    /// Words of all voted blocks.
    voted_words: usize,
    /// The deepest element holding at least [`ROOT_SHARE`] of the voted words; `None` when
    /// nothing was voted.
    root: Option<usize>,
    /// Per element: under a boilerplate element that is not a page wrapper (rule 1).
    in_boilerplate: Vec<bool>,
    /// Per element: in a comment section or comment below an article (part of rule 1).
    in_comments: Vec<bool>,
    /// Per block: in a comment thread recognised by its signatures below an article (part of
    /// rule 1, [`thread::thread_blocks`]), or after a comment marker
    /// ([`marker::marked_comment_blocks`]).
    in_thread: Vec<bool>,
    /// The page's teaser lists ([`teasers::TeaserLists`]).
    in_cards: teasers::TeaserLists,
    /// Per block: dropped by the rules as a card of a teaser list beside an article (set by
    /// [`refine_with_root`]).
    in_teasers: Vec<bool>,
    /// The post container the page names ([`post::PostContainer`]).
    post: post::PostContainer,
    /// Per block: dropped by the rules as outside the post container (set by
    /// [`refine_with_root`]).
    outside_post: Vec<bool>,
    /// Per element: in a cookie-consent box (part of rule 1, [`ContentRoot::in_consent`]).
    in_consent: Vec<bool>,
    /// Per element: inside the root (rule 2).
    in_root: Vec<bool>,
    /// Per element: under a content-marked element with [`CONTENT_SHARE`] of the words.
    in_content: Vec<bool>,
}

impl ContentRoot {
    /// Find the content root of `doc` for the majority labels `voted` (one per block).
    pub fn find(doc: &Document, blocks: &[Block], voted: &[bool]) -> ContentRoot {
        let mut index: HashMap<NodeId, usize> = HashMap::default();
        let mut nodes: Vec<NodeInfo> = Vec::new();
        let mut block_node = Vec::with_capacity(blocks.len());
        let mut ids: Vec<NodeId> = Vec::new();
        let mut fresh: Vec<(NodeId, Option<&Element>)> = Vec::new();
        let mut voted_words = 0usize;
        let mut page_words = 0usize;
        for (block, &good) in blocks.iter().zip(voted) {
            // Walk up to the first element already numbered, then number the new ones
            // top-down so that parents come first.
            fresh.clear();
            let mut known = None;
            let mut node = doc.html.tree.get(block.element);
            while let Some(n) = node {
                if let Node::Element(el) = n.value() {
                    if let Some(&i) = index.get(&n.id()) {
                        known = Some(i);
                        break;
                    }
                    fresh.push((n.id(), Some(el)));
                }
                node = n.parent();
            }
            let mut parent = known;
            for &(id, el) in fresh.iter().rev() {
                let mut hints = el.map_or(Hints::default(), element_hints);
                if el.is_some_and(|el| FIGURE_TAGS.contains(&el.name())) {
                    hints.boilerplate |= !holds_text_structure(doc, id);
                }
                hints.entry_form = el.is_some_and(|el| el.name() == "form") && holds_text_entry(doc, id);
                if hints.consent || hints.cookie_marked {
                    let control = holds_control(doc, id);
                    hints.consent &= control;
                    if hints.cookie_marked {
                        hints.boilerplate = control || !holds_heading(doc, id);
                    }
                }
                let depth = parent.map_or(0, |p| nodes[p].depth + 1);
                nodes.push(NodeInfo { parent, voted_words: 0, words: 0, depth, hints });
                ids.push(id);
                index.insert(id, nodes.len() - 1);
                parent = Some(nodes.len() - 1);
            }
            // A block always sits in an element (`html` at least).
            let Some(at) = parent else {
                block_node.push(usize::MAX);
                continue;
            };
            block_node.push(at);
            page_words += block.words;
            nodes[at].words += block.words;
            if good {
                voted_words += block.words;
                nodes[at].voted_words += block.words;
            }
        }
        sum_up(&mut nodes);
        // Rule 1; comments only below an article.
        let mut in_comment = vec![false; nodes.len()];
        let mut comment_words = 0;
        for (i, info) in nodes.iter().enumerate() {
            let parent = info.parent.is_some_and(|p| in_comment[p]);
            if info.hints.comment && !parent {
                comment_words += info.voted_words;
            }
            in_comment[i] = parent || info.hints.comment;
        }
        let article_with_comments = voted_words.saturating_sub(comment_words) >= COMMENT_ARTICLE_WORDS;
        let in_comments: Vec<bool> = in_comment.iter().map(|&c| c && article_with_comments).collect();
        let mut in_thread = thread::thread_blocks(blocks);
        let outside_thread: usize =
            blocks.iter().zip(voted).zip(&in_thread).filter(|((_, &v), &t)| v && !t).map(|((b, _), _)| b.words).sum();
        if outside_thread < COMMENT_ARTICLE_WORDS {
            in_thread.iter_mut().for_each(|t| *t = false);
        }
        let mentions = consent::cookie_mentions(&nodes, blocks, &block_node);
        let in_consent = consent::consent_boxes(&nodes, blocks, &block_node, &mentions);
        let parents: Vec<Option<usize>> = nodes.iter().map(|n| n.parent).collect();
        let paths = teasers::Paths { parents: &parents, ids: &ids, block_node: &block_node };
        let in_cards = teasers::TeaserLists::find(doc, blocks, &paths);
        for (t, m) in in_thread.iter_mut().zip(marker::marked_comment_blocks(doc, blocks, voted, &paths)) {
            *t |= m;
        }
        let mut in_boilerplate = vec![false; nodes.len()];
        for (i, info) in nodes.iter().enumerate() {
            let parent = info.parent.is_some_and(|p| in_boilerplate[p]);
            let wrapper = info.voted_words as f64 >= WRAPPER_SHARE * voted_words as f64
                && (info.words as f64 >= WRAPPER_SHARE * page_words as f64 || info.hints.content);
            // A cookie word alone marks a box only when the box speaks of cookies: a CMS's
            // `category-cookies` on a recipe's container is no consent notice.
            let marked = info.hints.boilerplate && (!info.hints.cookie_marked || mentions[i]);
            let entry_form = info.hints.entry_form && (info.voted_words as f64) < WRAPPER_SHARE * voted_words as f64;
            in_boilerplate[i] =
                parent || (marked && !wrapper) || entry_form || (info.hints.comment && article_with_comments);
        }
        let excluded: Vec<bool> =
            (0..nodes.len()).map(|e| in_boilerplate[e] || in_comment[e] || in_consent[e]).collect();
        let marked: Vec<bool> = nodes.iter().map(|n| n.hints.post).collect();
        let post = post::PostContainer::find(doc, blocks, &paths, &marked, &excluded);
        // Rules 2 and 3 on the same shares: a voted boilerplate box still counts there.
        let share = |info: &NodeInfo, share: f64| info.voted_words as f64 >= share * voted_words as f64;
        let root = (voted_words > 0)
            .then(|| {
                nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, info)| share(info, ROOT_SHARE))
                    .max_by_key(|(_, info)| info.depth)
                    .map(|(i, _)| i)
            })
            .flatten();
        // Climb while the parent adds mostly voted words (module doc, rule 2).
        let mut root = root;
        while let Some(r) = root {
            let Some(p) = nodes[r].parent else { break };
            let extra_voted = nodes[p].voted_words.saturating_sub(nodes[r].voted_words) as f64;
            let extra_words = nodes[p].words.saturating_sub(nodes[r].words) as f64;
            if extra_voted >= CLIMB_VOTED_SHARE * extra_words {
                root = Some(p);
            } else {
                break;
            }
        }
        // Rule 2, the main landmark: the nearest landmark that encloses the root decides.
        if let Some(r) = root {
            let mut at = Some(r);
            while let Some(a) = at {
                if nodes[a].hints.landmark && !in_boilerplate[a] {
                    if nodes[a].hints.main_landmark {
                        root = Some(a);
                    }
                    break;
                }
                at = nodes[a].parent;
            }
        }
        let mut in_root = vec![root.is_none(); nodes.len()];
        let mut in_content = vec![false; nodes.len()];
        for (i, info) in nodes.iter().enumerate() {
            let (pr, pc) = info.parent.map_or((false, false), |p| (in_root[p], in_content[p]));
            in_root[i] = in_root[i] || pr || root == Some(i);
            in_content[i] = pc || (info.hints.content && share(info, CONTENT_SHARE));
        }
        ContentRoot {
            nodes,
            block_node,
            voted_words,
            root,
            in_boilerplate,
            in_comments,
            in_thread,
            in_cards,
            in_teasers: Vec::new(),
            post,
            outside_post: Vec::new(),
            in_consent,
            in_root,
            in_content,
        }
    }

    /// Words of the voted blocks under the content root (0 without a root).
    pub fn root_words(&self) -> usize {
        self.root.and_then(|r| self.nodes.get(r)).map_or(0, |info| info.voted_words)
    }

    fn flag(&self, flags: &[bool], i: usize) -> bool {
        self.block_node.get(i).and_then(|&n| flags.get(n)).copied().unwrap_or(false)
    }

    /// True when block `i` sits in a boilerplate-marked element that is not a page wrapper.
    pub fn in_boilerplate(&self, i: usize) -> bool {
        self.flag(&self.in_boilerplate, i)
    }

    /// True when block `i` sits in a comment section or comment below an article: not main
    /// text (a page that is all comments, a thread, keeps them).
    pub fn in_comments(&self, i: usize) -> bool {
        self.flag(&self.in_comments, i) || self.in_thread.get(i).copied().unwrap_or(false)
    }

    /// True when block `i` sits in a card of a teaser list ([`teasers::teaser_blocks`]:
    /// repeated cards of a headline link and an excerpt under one parent), whether or not an
    /// article is beside the list ([`teasers::TeaserLists::beside_article`]).
    pub fn in_teaser_card(&self, i: usize) -> bool {
        self.in_cards.in_card(i)
    }

    /// The post container the page names, for [`post::PostContainer::apply`] on other labels
    /// than the rules'.
    pub fn post_container(&self) -> &post::PostContainer {
        &self.post
    }

    /// True when the rules dropped block `i` as outside the post container the page names
    /// ([`post::PostContainer::apply`]).
    pub fn outside_post(&self, i: usize) -> bool {
        self.outside_post.get(i).copied().unwrap_or(false)
    }

    /// The page's teaser lists, for [`teasers::TeaserLists::beside_article`] on other labels
    /// than the rules'.
    pub fn teaser_lists(&self) -> &teasers::TeaserLists {
        &self.in_cards
    }

    /// True when the rules dropped block `i` as a card of a list of other stories beside the
    /// article ([`ContentRoot::in_teaser_card`] on a page where [`teasers::TeaserLists::beside_article`]
    /// holds for the rules' labels).
    pub fn in_teasers(&self, i: usize) -> bool {
        self.in_teasers.get(i).copied().unwrap_or(false)
    }

    /// True when block `i` sits in a cookie-consent box: an element marked so (a class/id word
    /// of [`CONSENT_WORDS`] or containing `cookie` or a [`CONSENT_MANAGERS`] name, or a dialog
    /// role) that holds a form control ([`CONTROL_TAGS`], [`CONTROL_ROLES`]) and blocks that
    /// speak of cookies, and less than [`WRAPPER_SHARE`] of the words of the page's blocks that
    /// do not (a consent dialog may be longer than the article; a `<body
    /// class="cookie-banner-open">` holds the article) unless it is a dialog or named after a
    /// consent manager and sits below `body`.
    /// Never main text for the default and the rules.
    pub fn in_consent(&self, i: usize) -> bool {
        self.flag(&self.in_consent, i)
    }

    /// True when block `i` is inside the content root (true for every block without a root).
    pub fn in_root(&self, i: usize) -> bool {
        self.flag(&self.in_root, i)
    }

    /// True when block `i` is under a content-marked element holding at least
    /// [`CONTENT_SHARE`] of the voted words.
    pub fn in_marked_content(&self, i: usize) -> bool {
        self.flag(&self.in_content, i)
    }
}

/// Add every element's voted words to its parent's (children come after parents).
fn sum_up(nodes: &mut [NodeInfo]) {
    for i in (0..nodes.len()).rev() {
        if let Some(p) = nodes[i].parent {
            nodes[p].voted_words += nodes[i].voted_words;
            nodes[p].words += nodes[i].words;
        }
    }
}

/// The default pipeline's labels from the three extractors' labels (`votes[i]` = how many of
/// jusText, Boilerpipe and StaDyNoT keep block `i`, 0–3): the majority (≥ 2), then rules 1–9
/// of the module doc.
pub fn refine(doc: &Document, blocks: &[Block], votes: &[u8]) -> Vec<Label> {
    refine_with_root(doc, blocks, votes).0
}

/// [`refine`], and the content root it found.
pub fn refine_with_root(doc: &Document, blocks: &[Block], votes: &[u8]) -> (Vec<Label>, ContentRoot) {
    let voted: Vec<bool> = votes.iter().map(|&v| v >= 2).collect();
    let mut root = ContentRoot::find(doc, blocks, &voted);
    let (labels, teasers, outside_post) = root.labels(blocks, votes, &voted);
    root.in_teasers = teasers;
    root.outside_post = outside_post;
    (labels, root)
}

impl ContentRoot {
    /// Rules 1–9 on the votes, with this root, and the teaser cards and the blocks outside
    /// the post container they dropped.
    fn labels(&self, blocks: &[Block], votes: &[u8], voted: &[bool]) -> (Vec<Label>, Vec<bool>, Vec<bool>) {
        let root = self;
        let none = || vec![false; blocks.len()];
        if root.voted_words == 0 {
            let mut labels = root.marked_content_fallback(blocks);
            let outside = root.post.apply(&mut labels);
            return (labels, none(), outside);
        }
        let mut labels: Vec<Label> = blocks
            .iter()
            .enumerate()
            .map(|(i, block)| {
                let keep = !root.in_boilerplate(i)
                    && !root.in_comments(i)
                    && !root.in_consent(i)
                    && root.in_root(i)
                    && (voted[i]
                        || (votes[i] >= 1
                            && block.link_density() < MAX_LENIENT_LINK_DENSITY
                            && root.in_marked_content(i)));
                if keep {
                    Label::Good
                } else {
                    Label::Bad
                }
            })
            .collect();
        let words: Vec<usize> = blocks.iter().map(|b| b.words).collect();
        let teasers = self.in_cards.beside_article(&words, &labels);
        for (label, _) in labels.iter_mut().zip(&teasers).filter(|(_, &t)| t) {
            *label = Label::Bad;
        }
        tail::drop_tail_headings(blocks, &mut labels);
        tail::drop_detached_tail(blocks, &mut labels);
        tail::drop_link_lead_ins(blocks, &mut labels);
        tail::drop_detached_head(blocks, &mut labels);
        tail::drop_link_lines(blocks, &mut labels);
        if labels.iter().all(|l| !l.is_good()) {
            labels = root.marked_content_fallback(blocks);
        }
        let outside = root.post.apply(&mut labels);
        (labels, teasers, outside)
    }
}

mod class_words;
mod consent;
mod decisions;
mod fallback;
pub mod marker;
pub mod post;
mod tail;
pub use tail::drop_dangling_lead_ins;
pub mod teasers;
#[cfg(test)]
mod tests;
pub mod thread;
