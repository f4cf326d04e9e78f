//! `[crawl] scope`: which links a crawl follows ([`crate::crawl::url`] applies it).

use serde::{Deserialize, Serialize};

/// Which links a crawl follows, relative to the seed they were found from.
///
/// Serialised lowercase (`scope = "host"` in config.toml).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Same host as the seed (scheme and port may differ). The default.
    #[default]
    Host,
    /// Same "registrable-ish" domain: the host equals the seed host with a leading `www.`
    /// removed (either side), or is a subdomain of it (`blog.example.org` for seed
    /// `www.example.org`). No public-suffix list is used, so a seed on `example.co.uk` does not
    /// admit `other.co.uk`, but a seed on `co.uk` itself would.
    Domain,
    /// Any http(s) URL.
    Any,
}
