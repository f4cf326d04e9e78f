//! `[net]`: the settings of the HTTP fetcher ([`crate::crawl::fetch`] applies them) and the
//! allow list of the address policy, parsed here ([`AllowEntry`]).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

/// `[net]`: how the fetcher talks HTTP. Durations are strings (`"10s"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetConfig {
    /// The User-Agent header: product token, version and a contact URL. Its product token
    /// (before `/`) is the name matched against robots.txt groups.
    pub user_agent: String,
    /// Limit on establishing a TCP (+TLS) connection.
    #[serde(with = "humantime_serde")]
    pub connect_timeout: Duration,
    /// Limit on each read from the socket (headers or one body chunk), not on the whole
    /// response.
    #[serde(with = "humantime_serde")]
    pub read_timeout: Duration,
    /// Limit on a whole request, from connecting to the last body byte (each redirect hop and
    /// robots.txt included): a server that trickles its answer cannot hold a request longer.
    #[serde(with = "humantime_serde")]
    pub request_timeout: Duration,
    /// Redirects followed per fetch; one more gives [`FetchError::TooManyRedirects`](crate::crawl::fetch::FetchError::TooManyRedirects).
    pub max_redirects: u32,
    /// Largest (decoded) body accepted, in bytes; larger gives [`FetchError::BodyTooLarge`](crate::crawl::fetch::FetchError::BodyTooLarge).
    pub max_body_bytes: u64,
    /// Accepted media types (`Content-Type` without parameters, case-insensitive). A response
    /// without `Content-Type` is accepted.
    pub accept_content_types: Vec<String>,
    /// Host names, IP addresses or networks (`10.0.0.0/8`) the crawl may connect to although
    /// the address policy refuses them (loopback, private, link-local, ...): this opens the
    /// door to internal services, so list only what a crawl should reach.
    pub allow: Vec<String>,
    /// Testing aid: host → `"ip:port"`; such hosts are fetched over plain HTTP from that
    /// address, with their own name in the `Host` header, even for `https://` URLs. The
    /// address policy does not apply to them.
    pub resolve: BTreeMap<String, String>,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            user_agent: "webcorpus/0.1 (+https://github.com/webcorpus/webcorpus)".to_string(),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            max_redirects: 5,
            max_body_bytes: 10 * 1024 * 1024,
            accept_content_types: vec!["text/html".into(), "application/xhtml+xml".into()],
            allow: Vec::new(),
            resolve: BTreeMap::new(),
        }
    }
}

/// One entry of `[net] allow`: an IP network (an address is a network of one) whose addresses
/// the crawl may connect to, or a host name allowed whatever it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowEntry {
    /// `10.0.0.0/8`, `127.0.0.1`, `::1`.
    Net(ipnet::IpNet),
    /// `intranet.example`, lowercased (matched exactly, case-insensitively).
    Host(String),
}

impl AllowEntry {
    /// Parse one entry (surrounding whitespace ignored).
    ///
    /// # Errors
    /// A message naming the entry when it is neither a network, an IP address nor a host name.
    pub fn parse(entry: &str) -> Result<AllowEntry, String> {
        let entry = entry.trim();
        if let Ok(net) = entry.parse::<ipnet::IpNet>() {
            Ok(AllowEntry::Net(net))
        } else if let Ok(ip) = entry.parse::<IpAddr>() {
            Ok(AllowEntry::Net(ipnet::IpNet::from(ip)))
        } else if let Ok(url::Host::Domain(name)) = url::Host::parse(entry) {
            Ok(AllowEntry::Host(name.to_ascii_lowercase()))
        } else {
            Err(format!("[net] allow: `{entry}` is not a host name, an IP address or a network like 10.0.0.0/8"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_entries_are_networks_addresses_or_host_names() {
        let net = |s: &str| AllowEntry::Net(s.parse().unwrap());
        assert_eq!(AllowEntry::parse(" 10.0.0.0/8 "), Ok(net("10.0.0.0/8")));
        assert_eq!(AllowEntry::parse("::1"), Ok(net("::1/128")));
        assert_eq!(AllowEntry::parse("Intranet.Example"), Ok(AllowEntry::Host("intranet.example".into())));
        let err = AllowEntry::parse("10.0.0.0/99").unwrap_err();
        assert!(err.contains("`10.0.0.0/99`"), "{err}");
        assert!(AllowEntry::parse("http://x/").is_err());
    }
}
