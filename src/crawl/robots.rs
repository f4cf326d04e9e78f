//! robots.txt per RFC 9309: the principal type is [`RobotsPolicy`], the parsed rules of one host
//! for our user-agent token, consulted by the crawler before a URL leaves the frontier.
//!
//! Matching is Google's reference matcher (the `robotstxt` crate, a port of
//! google/robotstxt): longest match wins, `Allow` wins ties, `*` and `$` wildcards, and the
//! group naming our product token replaces the `*` group entirely. Crawl-delay and Sitemap lines
//! are read by our own [`RobotsParseHandler`] with the same group semantics (consecutive
//! `User-agent` lines share one group). The fetch result is kept as a [`RobotsEntry`]
//! (serialisable; the store persists it and the policy is re-parsed on resume), classified by
//! [`robots_outcome`]: 2xx = parse, 4xx = allow all, 5xx or unreachable = disallow all for a
//! while (RFC 9309 §2.3.1.3–2.3.1.4).

use std::time::Duration;

use robotstxt::{DefaultMatcher, RobotsParseHandler};
use serde::{Deserialize, Serialize};
use url::Url;

/// The rules of one host's robots.txt for one user-agent token.
#[derive(Debug, Clone)]
pub struct RobotsPolicy {
    rules: Rules,
    crawl_delay: Option<Duration>,
    sitemaps: Vec<String>,
}

#[derive(Debug, Clone)]
enum Rules {
    AllowAll,
    DisallowAll,
    Parsed { body: String, token: String },
}

impl RobotsPolicy {
    /// Parse a robots.txt `body` for `user_agent_token` (the product token, see
    /// [`user_agent_token`]; matched case-insensitively, as RFC 9309 §2.2.1 asks).
    /// Never fails: unparsable lines are ignored, as the RFC and Google's parser do.
    ///
    /// Lines longer than [`MAX_LINE_BYTES`] are cut first: Google's parser ignores bytes past
    /// 16 664 per line anyway, and robotstxt 0.3 panics when it cuts inside a multi-byte
    /// character (Folyd/robotstxt#5). Should the crate panic all the same, the policy is
    /// [`RobotsPolicy::disallow_all`] (a warning is logged).
    ///
    /// A leading UTF-8 byte order mark is removed first: robotstxt 0.3 reads it as part of the
    /// first line's key, so a file starting `\u{feff}User-agent: *` would lose its first group.
    pub fn parse(body: &str, user_agent_token: &str) -> RobotsPolicy {
        let body = cut_long_lines(body.trim_start_matches('\u{feff}'));
        let parsed = std::panic::catch_unwind(|| {
            let mut extras = ExtrasHandler::new(user_agent_token);
            robotstxt::parse_robotstxt(&body, &mut extras);
            // Exercise the matcher once, so a panic in it shows here, not per URL.
            let mut matcher = DefaultMatcher::default();
            matcher.one_agent_allowed_by_robots(&body, user_agent_token, "http://x/");
            extras
        });
        match parsed {
            Ok(extras) => RobotsPolicy {
                crawl_delay: extras.crawl_delay(),
                sitemaps: extras.sitemaps,
                rules: Rules::Parsed { body: body.into_owned(), token: user_agent_token.to_string() },
            },
            Err(_) => {
                tracing::warn!("robots.txt parser panicked; treating the host as disallow-all");
                RobotsPolicy::disallow_all()
            }
        }
    }

    /// Everything allowed, no delay: robots.txt answered 4xx (RFC 9309 §2.3.1.3).
    pub fn allow_all() -> RobotsPolicy {
        RobotsPolicy { rules: Rules::AllowAll, crawl_delay: None, sitemaps: Vec::new() }
    }

    /// Everything disallowed: robots.txt answered 5xx or was unreachable (RFC 9309 §2.3.1.4).
    pub fn disallow_all() -> RobotsPolicy {
        RobotsPolicy { rules: Rules::DisallowAll, crawl_delay: None, sitemaps: Vec::new() }
    }

    /// May we fetch `url`? `/robots.txt` itself is always allowed (RFC 9309 §2.2.2). The URL
    /// should be percent-encoded, which a parsed [`Url`] always is.
    pub fn is_allowed(&self, url: &Url) -> bool {
        if url.path() == "/robots.txt" {
            return true;
        }
        match &self.rules {
            Rules::AllowAll => true,
            Rules::DisallowAll => false,
            Rules::Parsed { body, token } => std::panic::catch_unwind(|| {
                let mut matcher = DefaultMatcher::default();
                matcher.one_agent_allowed_by_robots(body, token, url.as_str())
            })
            .unwrap_or(false),
        }
    }

    /// The `Crawl-delay` of the group that applies to our token (the group naming it if any,
    /// else the `*` group); fractional seconds are kept. `None` when absent or malformed. Not
    /// part of RFC 9309; honoured up to `politeness.max_crawl_delay` by the politeness layer.
    pub fn crawl_delay(&self) -> Option<Duration> {
        self.crawl_delay
    }

    /// The `Sitemap:` URLs, in file order (they apply to every user agent).
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }
}

/// Longest robots.txt line kept, in bytes (Google's parser keeps 2083 × 8 = 16 664).
pub const MAX_LINE_BYTES: usize = 16_000;

/// Cut every line longer than [`MAX_LINE_BYTES`] at a character boundary.
fn cut_long_lines(body: &str) -> std::borrow::Cow<'_, str> {
    if body.split('\n').all(|l| l.len() <= MAX_LINE_BYTES) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    for (i, line) in body.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut end = line.len().min(MAX_LINE_BYTES);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        out.push_str(&line[..end]);
    }
    std::borrow::Cow::Owned(out)
}

/// The product token of a User-Agent string: its first word up to `/`
/// (`"webcorpus/0.1 (+https://x)"` → `"webcorpus"`). The token is what robots.txt groups name;
/// Google's matcher only matches tokens made of `[a-zA-Z_-]`.
pub fn user_agent_token(user_agent: &str) -> String {
    user_agent.split_whitespace().next().unwrap_or("").split('/').next().unwrap_or("").to_string()
}

/// The kind of group a `User-agent` line opens, from our token's point of view.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GroupKind {
    Other,
    Global,
    Specific,
}

/// Collects Crawl-delay and Sitemap lines with RFC 9309 group semantics: consecutive
/// `User-agent` lines share a group; any other line ends the run of `User-agent` lines.
struct ExtrasHandler {
    token: String,
    /// Does the current group name `*` / our token?
    in_global: bool,
    in_specific: bool,
    /// A non-user-agent line was seen since the last `User-agent` line.
    seen_separator: bool,
    ever_seen_specific: bool,
    global_delay: Option<Duration>,
    specific_delay: Option<Duration>,
    sitemaps: Vec<String>,
}

impl ExtrasHandler {
    fn new(token: &str) -> Self {
        ExtrasHandler {
            token: token.to_string(),
            in_global: false,
            in_specific: false,
            seen_separator: false,
            ever_seen_specific: false,
            global_delay: None,
            specific_delay: None,
            sitemaps: Vec::new(),
        }
    }

    fn crawl_delay(&self) -> Option<Duration> {
        if self.ever_seen_specific {
            self.specific_delay
        } else {
            self.global_delay
        }
    }

    /// Same rule as the matcher's: `*` (optionally followed by whitespace) is the global
    /// group; otherwise the line's leading `[a-zA-Z_-]` run is compared to our token.
    fn classify(&self, agent: &str) -> GroupKind {
        if agent.starts_with('*') && agent[1..].chars().next().is_none_or(char::is_whitespace) {
            return GroupKind::Global;
        }
        let end = agent.find(|c: char| !(c.is_ascii_alphabetic() || c == '-' || c == '_')).unwrap_or(agent.len());
        let name = &agent[..end];
        if !name.is_empty() && name.eq_ignore_ascii_case(&self.token) {
            GroupKind::Specific
        } else {
            GroupKind::Other
        }
    }
}

/// Parse a Crawl-delay value in (possibly fractional) seconds; negative, non-finite or absurd
/// (over a day) values are ignored.
fn parse_delay(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    if !(0.0..=86_400.0).contains(&secs) {
        return None;
    }
    Duration::try_from_secs_f64(secs).ok()
}

impl RobotsParseHandler for ExtrasHandler {
    fn handle_robots_start(&mut self) {}
    fn handle_robots_end(&mut self) {}

    fn handle_user_agent(&mut self, _line_num: u32, user_agent: &str) {
        if self.seen_separator {
            self.in_global = false;
            self.in_specific = false;
            self.seen_separator = false;
        }
        match self.classify(user_agent) {
            GroupKind::Global => self.in_global = true,
            GroupKind::Specific => {
                self.in_specific = true;
                self.ever_seen_specific = true;
            }
            GroupKind::Other => {}
        }
    }

    fn handle_allow(&mut self, _line_num: u32, _value: &str) {
        self.seen_separator = true;
    }

    fn handle_disallow(&mut self, _line_num: u32, _value: &str) {
        self.seen_separator = true;
    }

    fn handle_sitemap(&mut self, _line_num: u32, value: &str) {
        self.seen_separator = true;
        if !value.is_empty() {
            self.sitemaps.push(value.to_string());
        }
    }

    fn handle_unknown_action(&mut self, _line_num: u32, action: &str, value: &str) {
        self.seen_separator = true;
        let key = action.to_ascii_lowercase();
        if key != "crawl-delay" && key != "crawl_delay" && key != "crawldelay" {
            return;
        }
        let Some(delay) = parse_delay(value) else {
            return;
        };
        // The first Crawl-delay of a matching group wins (groups for the same agent merge).
        if self.in_specific {
            self.specific_delay.get_or_insert(delay);
        } else if self.in_global {
            self.global_delay.get_or_insert(delay);
        }
    }
}

/// What a robots.txt fetch means for the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RobotsStatus {
    /// 2xx: the body is parsed.
    Fetched,
    /// 4xx (or a redirect chain too long to follow): no restrictions.
    AllowAll,
    /// 5xx or no response: assume complete disallow, retry after `politeness.robots_retry`.
    DisallowAll,
}

/// Classify a robots.txt fetch by its HTTP status (`None` = no response at all).
///
/// 2xx → [`RobotsStatus::Fetched`]; 3xx (left over after following redirects, RFC 9309
/// §2.3.1.2: the file may be assumed unavailable) and 4xx → [`RobotsStatus::AllowAll`]
/// (§2.3.1.3); 5xx, other codes and `None` → [`RobotsStatus::DisallowAll`] (§2.3.1.4).
pub fn robots_outcome(status: Option<u16>) -> RobotsStatus {
    match status {
        Some(200..=299) => RobotsStatus::Fetched,
        Some(300..=499) => RobotsStatus::AllowAll,
        _ => RobotsStatus::DisallowAll,
    }
}

/// A host's robots.txt as persisted by the store: the raw body (for [`RobotsStatus::Fetched`])
/// and when it was fetched, so the policy can be re-parsed on resume and re-fetched when stale.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotsEntry {
    /// The body as text (lossily decoded UTF-8, at most 512 KiB); `None` unless fetched.
    pub body: Option<String>,
    /// What the fetch meant.
    pub status: RobotsStatus,
    /// Fetch time, milliseconds since the Unix epoch.
    pub fetched_at_unix_ms: u64,
}

impl RobotsEntry {
    /// The entry for a fetch result as returned by `Fetcher::fetch_robots`
    /// (`None` = unreachable), fetched at `now_ms` (Unix epoch milliseconds).
    pub fn from_fetch(result: Option<(u16, String)>, now_ms: u64) -> RobotsEntry {
        let status = robots_outcome(result.as_ref().map(|(s, _)| *s));
        let body = match (status, result) {
            (RobotsStatus::Fetched, Some((_, body))) => Some(body),
            _ => None,
        };
        RobotsEntry { body, status, fetched_at_unix_ms: now_ms }
    }

    /// Is the entry younger than `max_age` at `now_ms`? An entry from the future (clock
    /// stepped back) counts as fresh.
    pub fn is_fresh(&self, now_ms: u64, max_age: Duration) -> bool {
        let age_ms = now_ms.saturating_sub(self.fetched_at_unix_ms);
        u128::from(age_ms) < max_age.as_millis()
    }

    /// The age limit that applies to this entry: `retry` (politeness `robots_retry`) for a
    /// [`RobotsStatus::DisallowAll`] entry, so an unreachable robots.txt is tried again soon,
    /// else `max_age` (politeness `robots_max_age`, 24 h as RFC 9309 §2.4 suggests).
    pub fn max_age(&self, max_age: Duration, retry: Duration) -> Duration {
        match self.status {
            RobotsStatus::DisallowAll => retry,
            _ => max_age,
        }
    }

    /// The policy for `user_agent_token`. A `Fetched` entry without a body (should not
    /// happen) is treated as an empty file, i.e. allow all.
    pub fn policy(&self, user_agent_token: &str) -> RobotsPolicy {
        match self.status {
            RobotsStatus::Fetched => RobotsPolicy::parse(self.body.as_deref().unwrap_or(""), user_agent_token),
            RobotsStatus::AllowAll => RobotsPolicy::allow_all(),
            RobotsStatus::DisallowAll => RobotsPolicy::disallow_all(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).expect("test URL")
    }

    fn paraguayos() -> Option<String> {
        let path = crate::testdata::shared_path("sites/www.paraguayos.org/robots.txt")?;
        Some(std::fs::read_to_string(&path).expect("the shared robots.txt reads"))
    }

    #[test]
    fn token() {
        assert_eq!(user_agent_token("webcorpus/0.1 (+https://x)"), "webcorpus");
        assert_eq!(user_agent_token("Mozilla/5.0 (compatible)"), "Mozilla");
        assert_eq!(user_agent_token("  bot"), "bot");
        assert_eq!(user_agent_token(""), "");
    }

    #[test]
    fn real_robots_txt_for_our_token() {
        let Some(body) = paraguayos() else { return };
        let p = RobotsPolicy::parse(&body, "webcorpus");
        let base = "https://www.paraguayos.org";
        for path in ["/category/x", "/tag/x", "/page/2/", "/?s=x", "/foo?x=1", "/wp-login.php"] {
            assert!(!p.is_allowed(&u(&format!("{base}{path}"))), "{path} should be disallowed");
        }
        for path in ["/", "/noticias/un-articulo-sobre-asuncion/", "/wp-admin/admin-ajax.php", "/robots.txt"] {
            assert!(p.is_allowed(&u(&format!("{base}{path}"))), "{path} should be allowed");
        }
        assert_eq!(p.crawl_delay(), None);
    }

    #[test]
    fn real_robots_txt_other_groups() {
        let Some(body) = paraguayos() else { return };
        let article = u("https://www.paraguayos.org/noticias/algo/");
        let bing = RobotsPolicy::parse(&body, "bingbot");
        assert_eq!(bing.crawl_delay(), Some(Duration::from_secs(30)));
        // "User-agent: AhrefsBot " carries a trailing space in the file.
        let ahrefs = RobotsPolicy::parse(&body, "AhrefsBot");
        assert_eq!(ahrefs.crawl_delay(), Some(Duration::from_secs(30)));
        // Case-insensitive token match.
        assert_eq!(RobotsPolicy::parse(&body, "SLURP").crawl_delay(), Some(Duration::from_secs(30)));
        let petal = RobotsPolicy::parse(&body, "PetalBot");
        assert!(!petal.is_allowed(&article));
        assert!(!petal.is_allowed(&u("https://www.paraguayos.org/")));
        assert!(petal.is_allowed(&u("https://www.paraguayos.org/robots.txt")));
        assert_eq!(petal.crawl_delay(), None);
    }

    #[test]
    fn groups_sitemaps_and_star_fallback() {
        let body = "User-agent: *\nCrawl-delay: 7\nDisallow: /private\n\n\
                    User-agent: a\nUser-agent: b\nCrawl-delay: 1.5\nDisallow: /b-only\n\
                    Sitemap: https://x.org/sitemap.xml\n\
                    User-agent: c\nDisallow:\n";
        let star = RobotsPolicy::parse(body, "other");
        assert_eq!(star.crawl_delay(), Some(Duration::from_secs(7)));
        assert!(!star.is_allowed(&u("https://x.org/private/1")));
        assert!(star.is_allowed(&u("https://x.org/b-only")));
        let b = RobotsPolicy::parse(body, "b");
        assert_eq!(b.crawl_delay(), Some(Duration::from_millis(1500)));
        assert!(b.is_allowed(&u("https://x.org/private/1")), "specific group replaces *");
        assert!(!b.is_allowed(&u("https://x.org/b-only")));
        // c's group has no Crawl-delay: the * group's does not apply.
        assert_eq!(RobotsPolicy::parse(body, "c").crawl_delay(), None);
        assert_eq!(star.sitemaps(), ["https://x.org/sitemap.xml"]);
        assert_eq!(RobotsPolicy::parse("Crawl-delay: -3\nUser-agent: *\nCrawl-delay: x\n", "z").crawl_delay(), None);
    }

    /// A robots.txt saved with a UTF-8 byte order mark keeps its first group.
    #[test]
    fn byte_order_mark_is_removed() {
        let Some(body) = paraguayos() else { return };
        let with_bom = format!("\u{feff}{body}");
        let p = RobotsPolicy::parse(&with_bom, "webcorpus");
        assert!(!p.is_allowed(&u("https://www.paraguayos.org/wp-login.php")));
        let simple = RobotsPolicy::parse("\u{feff}User-agent: *\nDisallow: /private\nCrawl-delay: 3\n", "webcorpus");
        assert!(!simple.is_allowed(&u("https://x.org/private/1")));
        assert_eq!(simple.crawl_delay(), Some(Duration::from_secs(3)));
    }

    #[test]
    fn long_non_ascii_line_does_not_panic() {
        // Folyd/robotstxt#5: a line over 16 664 bytes with multi-byte characters.
        let long = "\u{a0}é".repeat(20_000);
        let body = format!("User-agent: *\nDisallow: /{long}\nDisallow: /x\nCrawl-delay: 4\n");
        let p = RobotsPolicy::parse(&body, "webcorpus");
        assert!(!p.is_allowed(&u("https://a.org/x/1")));
        assert!(p.is_allowed(&u("https://a.org/y")));
        assert_eq!(p.crawl_delay(), Some(Duration::from_secs(4)));
    }

    #[test]
    fn outcomes_and_entries() {
        assert_eq!(robots_outcome(Some(200)), RobotsStatus::Fetched);
        assert_eq!(robots_outcome(Some(404)), RobotsStatus::AllowAll);
        assert_eq!(robots_outcome(Some(401)), RobotsStatus::AllowAll);
        assert_eq!(robots_outcome(Some(503)), RobotsStatus::DisallowAll);
        assert_eq!(robots_outcome(None), RobotsStatus::DisallowAll);

        let any = u("https://x.org/a");
        let e = RobotsEntry::from_fetch(Some((200, "User-agent: *\nDisallow: /a\n".into())), 1000);
        assert!(!e.policy("webcorpus").is_allowed(&any));
        let json = serde_json::to_string(&e).expect("serialise");
        let back: RobotsEntry = serde_json::from_str(&json).expect("deserialise");
        assert_eq!(back, e);

        let gone = RobotsEntry::from_fetch(Some((404, "nope".into())), 0);
        assert_eq!(gone.body, None);
        assert!(gone.policy("webcorpus").is_allowed(&any));
        let down = RobotsEntry::from_fetch(None, 0);
        assert!(!down.policy("webcorpus").is_allowed(&any));
        assert!(down.policy("webcorpus").is_allowed(&u("https://x.org/robots.txt")));

        let day = Duration::from_secs(86_400);
        let retry = Duration::from_secs(600);
        assert!(e.is_fresh(1000 + 86_399_999, day));
        assert!(!e.is_fresh(1000 + 86_400_000, day));
        assert!(e.is_fresh(0, day), "clock went backwards");
        assert_eq!(down.max_age(day, retry), retry);
        assert_eq!(gone.max_age(day, retry), day);
    }
}
