//! The frontier's admission rule: [`admit`] decides whether a URL the crawl found is queued,
//! and if not, why ([`Refusal`]). Every way a URL reaches the frontier goes through it: a
//! page's links, a redirect's target, a host's sitemaps and the feeds a seed page announces
//! ([`UrlOrigin`]). Which checks apply to which origin is one table, [`UrlOrigin::checks`]:
//!
//! | check | link | seed redirect | sitemap, feed |
//! | --- | --- | --- | --- |
//! | depth ≤ `max_depth` | yes | — | — |
//! | looks like HTML | yes | — | — (an XML file) |
//! | in scope of the seed | yes | — (a seed itself) | yes |
//! | not excluded (`[crawl] exclude`) | yes | yes | — (the patterns name pages) |
//! | no refused IP literal (`[net] allow`) | yes | — (the fetcher checks every hop) | yes |
//! | not seen | yes | yes | yes |
//!
//! The per-host cap (`max_pages_per_host`) is checked where the host's record is, when the
//! URL is put on the frontier.

use crate::config::CrawlConfig;
use crate::crawl::address::AddressPolicy;
use crate::crawl::url::{host_key, in_scope, looks_like_html, normalize};
use url::Url;

/// Where a URL was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlOrigin {
    /// A link of a page; `depth`: the linking page's depth plus one.
    Link {
        /// Links followed from a seed to the URL.
        depth: u32,
    },
    /// The target of a seed's redirect (Heritrix: a redirected seed is a seed).
    SeedRedirect,
    /// A sitemap (robots.txt, `/sitemap.xml`, a sitemap index) or a feed a seed announces.
    Source,
}

/// Why a URL is not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Normalisation failed, or the URL has no host.
    Unusable,
    /// More links from a seed than `[crawl] max_depth`.
    TooDeep,
    /// The path ends in a non-HTML extension (`.pdf`, `.css`, …).
    NotHtml,
    /// Outside the crawl's scope of the seed (`[crawl] scope`).
    OutOfScope,
    /// Matches an `[crawl] exclude` pattern.
    Excluded,
    /// An IP literal of a refused range (`[net] allow`).
    RefusedAddress,
    /// Already seen by this crawl.
    Seen,
}

/// The checks that apply to one [`UrlOrigin`] (the module's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checks {
    /// Depth against `max_depth`.
    pub depth: bool,
    /// [`looks_like_html`].
    pub html: bool,
    /// [`in_scope`] of the seed.
    pub scope: bool,
    /// `[crawl] exclude`.
    pub exclude: bool,
    /// [`AddressPolicy::check_url`].
    pub address: bool,
}

impl UrlOrigin {
    /// The checks a URL of this origin passes before the seen set (which every URL passes).
    pub fn checks(self) -> Checks {
        match self {
            UrlOrigin::Link { .. } => Checks { depth: true, html: true, scope: true, exclude: true, address: true },
            UrlOrigin::SeedRedirect => {
                Checks { depth: false, html: false, scope: false, exclude: true, address: false }
            }
            UrlOrigin::Source => Checks { depth: false, html: false, scope: true, exclude: false, address: true },
        }
    }
}

/// What a crawl admits: its `[crawl]` scope, `max_depth` and `exclude`, and its address policy.
pub struct AdmissionRules<'a> {
    /// `[crawl]`.
    pub crawl: &'a CrawlConfig,
    /// `[net] allow` as a policy.
    pub addresses: &'a AddressPolicy,
}

/// A URL admitted to the frontier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// The normalised URL.
    pub url: Url,
    /// Its host key ([`host_key`]): whose frontier takes it.
    pub host: String,
}

/// Decide whether `url`, found from `origin` by a host whose seed is `seed`, is queued: the
/// checks of [`UrlOrigin::checks`] in the table's order, then `seen` (the crawl's seen set,
/// asked last because it reads the store).
///
/// # Errors
/// `seen`'s error; a refusal is `Ok(Err(_))`.
pub fn admit<E>(
    url: &Url,
    origin: UrlOrigin,
    seed: &Url,
    rules: &AdmissionRules<'_>,
    seen: impl FnOnce(&str) -> Result<bool, E>,
) -> Result<Result<Admitted, Refusal>, E> {
    let checks = origin.checks();
    if let UrlOrigin::Link { depth } = origin {
        if checks.depth && depth > rules.crawl.max_depth {
            return Ok(Err(Refusal::TooDeep));
        }
    }
    let Some(url) = normalize(url) else { return Ok(Err(Refusal::Unusable)) };
    let refusal = if checks.html && !looks_like_html(&url) {
        Some(Refusal::NotHtml)
    } else if checks.scope && !in_scope(&url, seed, rules.crawl.scope) {
        Some(Refusal::OutOfScope)
    } else if checks.exclude && rules.crawl.is_excluded(url.as_str()) {
        Some(Refusal::Excluded)
    } else if checks.address && rules.addresses.check_url(&url).is_err() {
        Some(Refusal::RefusedAddress)
    } else {
        None
    };
    if let Some(refusal) = refusal {
        return Ok(Err(refusal));
    }
    let Some(host) = host_key(&url) else { return Ok(Err(Refusal::Unusable)) };
    if seen(url.as_str())? {
        return Ok(Err(Refusal::Seen));
    }
    Ok(Ok(Admitted { url, host }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::url::Scope;
    use std::convert::Infallible;

    /// `[crawl]` with `scope`, `max_depth` and `/private/` excluded.
    fn crawl(scope: Scope, max_depth: u32) -> CrawlConfig {
        CrawlConfig { scope, max_depth, exclude: vec!["/private/".to_string()], ..CrawlConfig::default() }
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    /// Admit `u` from `origin` for the seed `http://example.org/` (scope host, depth 2, `/private/`
    /// excluded, the default address policy); `seen`: the URLs already seen.
    fn admit_as(u: &str, origin: UrlOrigin, seen: &[&str]) -> Result<String, Refusal> {
        let (crawl, addresses) = (crawl(Scope::Host, 2), AddressPolicy::default());
        let rules = AdmissionRules { crawl: &crawl, addresses: &addresses };
        let seen = |s: &str| Ok::<_, Infallible>(seen.contains(&s));
        let result = admit(&url(u), origin, &url("http://example.org/"), &rules, seen).unwrap();
        result.map(|a| format!("{} {}", a.host, a.url))
    }

    const LINK: UrlOrigin = UrlOrigin::Link { depth: 1 };

    #[test]
    fn a_link_in_scope_and_unseen_is_queued_normalised() {
        assert_eq!(admit_as("http://EXAMPLE.org/a#top", LINK, &[]), Ok("example.org http://example.org/a".into()));
        let other_port = admit_as("http://u:pw@example.org:8080/a?", LINK, &[]);
        assert_eq!(other_port, Ok("example.org:8080 http://example.org:8080/a".into()), "scope host: any port");
    }

    #[test]
    fn a_link_past_max_depth_is_too_deep() {
        assert_eq!(admit_as("http://example.org/a", UrlOrigin::Link { depth: 3 }, &[]), Err(Refusal::TooDeep));
        assert!(admit_as("http://example.org/a", UrlOrigin::Link { depth: 2 }, &[]).is_ok());
    }

    #[test]
    fn a_link_to_a_non_html_file_is_refused_but_a_sitemap_is_not() {
        assert_eq!(admit_as("http://example.org/paper.pdf", LINK, &[]), Err(Refusal::NotHtml));
        assert!(admit_as("http://example.org/sitemap.xml", UrlOrigin::Source, &[]).is_ok());
    }

    #[test]
    fn links_and_sources_out_of_scope_are_refused_a_seed_redirect_is_a_seed() {
        assert_eq!(admit_as("http://other.org/a", LINK, &[]), Err(Refusal::OutOfScope));
        assert_eq!(admit_as("http://other.org/sitemap.xml", UrlOrigin::Source, &[]), Err(Refusal::OutOfScope));
        assert_eq!(
            admit_as("https://www.other.org/", UrlOrigin::SeedRedirect, &[]),
            Ok("www.other.org https://www.other.org/".into())
        );
        assert_eq!(admit_as("mailto:a@example.org", LINK, &[]), Err(Refusal::Unusable));
        assert_eq!(admit_as("ftp://example.org/a", UrlOrigin::SeedRedirect, &[]), Err(Refusal::Unusable));
    }

    #[test]
    fn excluded_links_and_redirects_are_refused_sources_are_not() {
        assert_eq!(admit_as("http://example.org/private/a", LINK, &[]), Err(Refusal::Excluded));
        assert_eq!(admit_as("http://example.org/private/a", UrlOrigin::SeedRedirect, &[]), Err(Refusal::Excluded));
        assert!(admit_as("http://example.org/private/sitemap.xml", UrlOrigin::Source, &[]).is_ok());
    }

    #[test]
    fn refused_ip_literals_are_refused_for_links_and_sources() {
        let (crawl, addresses) = (crawl(Scope::Any, 9), AddressPolicy::default());
        let rules = AdmissionRules { crawl: &crawl, addresses: &addresses };
        let seed = url("http://example.org/");
        let never = |_: &str| Ok::<_, Infallible>(false);
        for origin in [LINK, UrlOrigin::Source] {
            let got = admit(&url("http://10.0.0.1/a"), origin, &seed, &rules, never).unwrap();
            assert_eq!(got, Err(Refusal::RefusedAddress), "{origin:?}");
        }
        let got = admit(&url("http://10.0.0.1/a"), UrlOrigin::SeedRedirect, &seed, &rules, never).unwrap();
        assert!(got.is_ok(), "the fetcher checks a redirect's every hop");
        assert!(admit(&url("http://93.184.216.34/a"), LINK, &seed, &rules, never).unwrap().is_ok());
    }

    #[test]
    fn a_seen_url_is_refused_whatever_its_origin() {
        for origin in [LINK, UrlOrigin::SeedRedirect, UrlOrigin::Source] {
            assert_eq!(admit_as("http://example.org/a", origin, &["http://example.org/a"]), Err(Refusal::Seen));
        }
    }

    #[test]
    fn the_seen_set_is_asked_only_after_every_other_check() {
        let (crawl, addresses) = (crawl(Scope::Host, 1), AddressPolicy::default());
        let rules = AdmissionRules { crawl: &crawl, addresses: &addresses };
        let asked = std::cell::Cell::new(0);
        let seen = |_: &str| {
            asked.set(asked.get() + 1);
            Ok::<_, Infallible>(false)
        };
        let got = admit(&url("http://other.org/"), LINK, &url("http://example.org/"), &rules, seen).unwrap();
        assert_eq!((got, asked.get()), (Err(Refusal::OutOfScope), 0));
        let failing = |_: &str| Err::<bool, &str>("store down");
        assert_eq!(
            admit(&url("http://example.org/a"), LINK, &url("http://example.org/"), &rules, failing),
            Err("store down")
        );
    }
}
