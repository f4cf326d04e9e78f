//! The address policy: which IP addresses a crawl may connect to. The principal type is
//! [`AddressPolicy`]; [`PolicyResolver`] applies it inside reqwest's DNS step, so every
//! connection (seeds, links, redirect hops, robots.txt) is checked against the address it
//! actually uses, and a name that resolves to a refused address (DNS rebinding included) never
//! gets a connection. IP literals in URLs skip DNS; the fetcher checks them with
//! [`AddressPolicy::check_url`].
//!
//! Refused unless allowed: loopback, private (RFC 1918), link-local (169.254/16, fe80::/10,
//! the cloud metadata service 169.254.169.254 among them), shared address space (CGNAT,
//! 100.64/10), unique local (fc00::/7), multicast, unspecified, broadcast, documentation and
//! benchmarking ranges, the IETF protocol block 192.0.0/24, 240/4, and the IPv6 forms that
//! carry an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16),
//! judged by the address they carry.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use crate::config::net::AllowEntry;
use ipnet::IpNet;
use url::{Host, Url};

/// Why the policy refused an address or a host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    /// The address is in a refused range.
    #[error("address {address} is {range}; refused (add it to [net] allow to crawl it)")]
    Refused {
        /// The address.
        address: IpAddr,
        /// The range it is in, in words ("loopback", "private (RFC 1918)", ...).
        range: &'static str,
    },
    /// A name resolved to no address at all, or only to refused ones.
    #[error("{host} resolves only to refused addresses ({addresses}); add it to [net] allow to crawl it")]
    ResolvesRefused {
        /// The host name.
        host: String,
        /// The addresses, comma-separated.
        addresses: String,
    },
    /// The system resolver found no address for the name (no such name, or no answer).
    #[error("{host}: name not resolved ({message})")]
    NameNotResolved {
        /// The host name.
        host: String,
        /// The resolver's message.
        message: String,
    },
    /// An `[net] allow` entry is neither a host name, an IP address nor a network.
    #[error("{0}")]
    BadAllowEntry(String),
}

/// The address policy of a crawl: the ranges above are refused unless a host name or a
/// network is in `[net] allow` (which opens the door to those addresses: use it for a crawl
/// of an intranet or of test servers). Hosts in `[net.resolve]` are allowed by the fetcher.
#[derive(Debug, Clone, Default)]
pub struct AddressPolicy {
    hosts: HashSet<String>,
    nets: Vec<IpNet>,
}

impl AddressPolicy {
    /// The policy with `allow` entries: host names (`intranet.example`, matched exactly,
    /// case-insensitively), IP addresses (`127.0.0.1`, `::1`) or networks (`10.0.0.0/8`).
    ///
    /// # Errors
    /// [`AddressError::BadAllowEntry`] for an entry that is none of these.
    pub fn new(allow: &[String]) -> Result<AddressPolicy, AddressError> {
        let mut policy = AddressPolicy::default();
        for entry in allow {
            match AllowEntry::parse(entry).map_err(AddressError::BadAllowEntry)? {
                AllowEntry::Net(net) => policy.nets.push(net),
                AllowEntry::Host(name) => {
                    policy.hosts.insert(name);
                }
            }
        }
        Ok(policy)
    }

    /// Is `host` (a name, as in a URL) allowed whatever it resolves to?
    pub fn allows_host(&self, host: &str) -> bool {
        self.hosts.contains(&host.trim_end_matches('.').to_ascii_lowercase())
    }

    /// May the crawl connect to `ip`?
    ///
    /// # Errors
    /// [`AddressError::Refused`] with the range the address is in.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), AddressError> {
        match refused_range(ip) {
            Some(range) if !self.nets.iter().any(|n| n.contains(&ip)) => {
                Err(AddressError::Refused { address: ip, range })
            }
            _ => Ok(()),
        }
    }

    /// The check for a URL before any connection: an IP literal host is checked here (DNS is
    /// skipped for it); a name is checked by [`PolicyResolver`] once resolved.
    ///
    /// # Errors
    /// [`AddressError::Refused`] for a refused IP literal.
    pub fn check_url(&self, url: &Url) -> Result<(), AddressError> {
        match url.host() {
            Some(Host::Ipv4(ip)) => self.check_ip(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => self.check_ip(IpAddr::V6(ip)),
            _ => Ok(()),
        }
    }

    /// The addresses of `host` the crawl may use, in resolver order.
    ///
    /// # Errors
    /// [`AddressError::ResolvesRefused`] when none is left.
    pub fn filter(&self, host: &str, addrs: Vec<SocketAddr>) -> Result<Vec<SocketAddr>, AddressError> {
        if self.allows_host(host) {
            return Ok(addrs);
        }
        let (ok, refused): (Vec<SocketAddr>, Vec<SocketAddr>) =
            addrs.into_iter().partition(|a| self.check_ip(a.ip()).is_ok());
        if ok.is_empty() {
            let addresses = refused.iter().map(|a| a.ip().to_string()).collect::<Vec<_>>().join(", ");
            return Err(AddressError::ResolvesRefused { host: host.to_string(), addresses });
        }
        Ok(ok)
    }
}

/// The refused range `ip` falls in, or `None` for a public address.
pub fn refused_range(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => refused_v6(v6),
    }
}

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, _, _) => "unspecified (0.0.0.0/8)",
        (127, _, _) => "loopback",
        (10, _, _) | (172, 16..=31, _) | (192, 168, _) => "private (RFC 1918)",
        (169, 254, _) => "link-local (cloud metadata among them)",
        (100, 64..=127, _) => "shared address space (CGNAT)",
        (192, 0, 0) => "IETF protocol assignments (192.0.0.0/24)",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18..=19, _) => "benchmarking (198.18.0.0/15)",
        (224..=239, _, _) => "multicast",
        (240..=255, _, _) => "reserved (240.0.0.0/4, broadcast)",
        _ => return None,
    })
}

fn refused_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    if let Some(v4) = embedded_v4(ip) {
        return refused_v4(v4).or(if seg[0] == 0 && seg[5] == 0 { Some("IPv4-compatible") } else { None });
    }
    Some(match seg[0] {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        s if s & 0xfe00 == 0xfc00 => "unique local (fc00::/7)",
        s if s & 0xffc0 == 0xfe80 => "link-local (fe80::/10)",
        s if s & 0xffc0 == 0xfec0 => "site-local (fec0::/10)",
        s if s & 0xff00 == 0xff00 => "multicast",
        0x2001 if seg[1] == 0x0db8 => "documentation (2001:db8::/32)",
        _ => return None,
    })
}

/// The IPv4 address an IPv6 address carries: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
/// (::a.b.c.d, not :: or ::1), NAT64 (64:ff9b::a.b.c.d) or 6to4 (2002:AABB:CCDD::).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let seg = ip.segments();
    let low = |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match seg {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] => Some(low(hi, lo)),
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 => Some(low(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

/// reqwest's DNS step with the policy applied: the system resolver (getaddrinfo on tokio's
/// blocking pool), then [`AddressPolicy::filter`]. Its error, an [`AddressError`] (a lookup
/// failure is [`AddressError::NameNotResolved`]), reaches the fetcher in the error chain.
#[derive(Debug, Clone)]
pub struct PolicyResolver {
    policy: Arc<AddressPolicy>,
}

impl PolicyResolver {
    /// A resolver applying `policy`.
    pub fn new(policy: Arc<AddressPolicy>) -> PolicyResolver {
        PolicyResolver { policy }
    }
}

impl reqwest::dns::Resolve for PolicyResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| AddressError::NameNotResolved { host: host.clone(), message: e.to_string() })?
                .collect();
            let allowed = policy.filter(&host, addrs)?;
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(url: &str) -> bool {
        AddressPolicy::default().check_url(&Url::parse(url).expect("URL")).is_err()
    }

    /// The forms an attacker uses to name an internal address, all refused.
    #[test]
    fn internal_addresses_in_every_spelling_are_refused() {
        for url in [
            "http://127.0.0.1:8080/",
            "http://2130706433/", // decimal 127.0.0.1
            "http://0x7f000001/", // hex
            "http://0177.0.0.1/", // octal
            "http://0xa9fea9fe/", // 169.254.169.254, the metadata service
            "http://169.254.169.254/latest/meta-data/",
            "http://10.1.2.3/",
            "http://172.20.0.1/",
            "http://192.168.1.1/",
            "http://100.100.100.200/", // a metadata address in CGNAT space
            "http://0.0.0.0/",
            "http://[::1]/",
            "http://[::]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:a9fe:a9fe]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::a00:1]/",
            "http://[2002:7f00:1::]/",
            "http://[fd00:ec2::254]/",
            "http://[fe80::1]/",
            "http://[ff02::1]/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
        ] {
            assert!(refused(url), "{url} must be refused");
        }
        for url in ["http://93.184.215.14/", "http://[2606:4700::6810:84e5]/", "http://example.org/", "http://8.8.8.8/"]
        {
            assert!(!refused(url), "{url} is public");
        }
    }

    #[test]
    fn allow_list_opens_hosts_and_networks() {
        let policy =
            AddressPolicy::new(&["127.0.0.1".into(), "10.0.0.0/8".into(), "Intranet.Example".into()]).expect("valid");
        assert!(policy.check_ip("127.0.0.1".parse().unwrap()).is_ok());
        assert!(policy.check_ip("127.0.0.2".parse().unwrap()).is_err());
        assert!(policy.check_ip("10.9.8.7".parse().unwrap()).is_ok());
        let local: SocketAddr = "192.168.0.5:80".parse().unwrap();
        assert_eq!(policy.filter("intranet.example", vec![local]), Ok(vec![local]));
        let err = policy.filter("evil.example", vec![local]).unwrap_err();
        assert!(err.to_string().contains("192.168.0.5"), "{err}");
        let public: SocketAddr = "8.8.8.8:80".parse().unwrap();
        assert_eq!(policy.filter("mixed.example", vec![local, public]), Ok(vec![public]), "refused ones are dropped");
        assert!(AddressPolicy::new(&["not a host!".into()]).is_err());
    }

    /// `localhost` goes through the resolver and is refused there.
    #[tokio::test]
    async fn localhost_is_refused_after_resolution() {
        use reqwest::dns::Resolve;
        let resolver = PolicyResolver::new(Arc::new(AddressPolicy::default()));
        let name: reqwest::dns::Name = "localhost".parse().expect("name");
        let err = match resolver.resolve(name).await {
            Ok(_) => panic!("localhost must be refused"),
            Err(e) => e,
        };
        assert!(err.downcast_ref::<AddressError>().is_some(), "{err}");
    }
}
