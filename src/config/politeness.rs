//! `[politeness]`: the settings of per-host politeness ([`crate::crawl::politeness`] applies
//! them): delays, robots.txt caching and back-off.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `[politeness]`: delays, robots.txt caching and back-off. Durations are strings (`"2s"`,
/// `"10min"`, `"24h"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolitenessConfig {
    /// Minimum time between the end of one request and the start of the next to the same host.
    #[serde(with = "humantime_serde")]
    pub min_delay: Duration,
    /// Adaptive delay: wait this many times the last response time (a slow server is a busy
    /// server). 0 disables it.
    pub response_time_factor: f64,
    /// Cap on the adaptive delay (`response_time_factor × response_time`).
    #[serde(with = "humantime_serde")]
    pub max_response_delay: Duration,
    /// robots.txt `Crawl-delay` is honoured up to this; a larger value is cut to it.
    #[serde(with = "humantime_serde")]
    pub max_crawl_delay: Duration,
    /// How long a fetched robots.txt (or a 4xx "allow all") is used before it is fetched again
    /// (RFC 9309 §2.4: caching beyond 24 hours SHOULD NOT happen).
    #[serde(with = "humantime_serde")]
    pub robots_max_age: Duration,
    /// After a 5xx or unreachable robots.txt the host is treated as disallow-all
    /// (RFC 9309 §2.3.1.4) and robots.txt is fetched again with back-off (from `backoff_base`,
    /// doubling), waiting at most this long between two tries.
    #[serde(with = "humantime_serde")]
    pub robots_retry: Duration,
    /// A host whose robots.txt has failed without a break for this long is given up for the
    /// run (a later run tries it again).
    #[serde(with = "humantime_serde")]
    pub robots_give_up: Duration,
    /// First back-off after a network error or a 429/503 without `Retry-After`; doubled for each
    /// further consecutive one.
    #[serde(with = "humantime_serde")]
    pub backoff_base: Duration,
    /// Cap on any back-off, including one asked for by `Retry-After`.
    #[serde(with = "humantime_serde")]
    pub backoff_max: Duration,
    /// A host is given up after this many consecutive failures (network errors, 429, 503).
    /// 0 = never give up.
    pub max_consecutive_failures: u32,
}

impl Default for PolitenessConfig {
    fn default() -> Self {
        PolitenessConfig {
            min_delay: Duration::from_secs(2),
            response_time_factor: 5.0,
            max_response_delay: Duration::from_secs(30),
            max_crawl_delay: Duration::from_secs(300),
            robots_max_age: Duration::from_secs(24 * 3600),
            robots_retry: Duration::from_secs(600),
            robots_give_up: Duration::from_secs(6 * 3600),
            backoff_base: Duration::from_secs(5),
            backoff_max: Duration::from_secs(3600),
            max_consecutive_failures: 10,
        }
    }
}

/// An invalid `[politeness]` value, found by [`PolitenessConfig::validate`].
#[derive(Debug, thiserror::Error)]
#[error("{key}: {reason}")]
pub struct PolitenessConfigError {
    /// The dotted config key (`politeness.backoff_max`).
    pub key: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl PolitenessConfig {
    /// Check values serde cannot: the factor must be finite and non-negative, caps must not be
    /// below what they cap.
    ///
    /// # Errors
    /// [`PolitenessConfigError`] naming the first bad key.
    pub fn validate(&self) -> Result<(), PolitenessConfigError> {
        let bad = |key, reason: &str| Err(PolitenessConfigError { key, reason: reason.to_string() });
        if !(self.response_time_factor.is_finite() && self.response_time_factor >= 0.0) {
            return bad("politeness.response_time_factor", "must be a finite number >= 0");
        }
        if self.backoff_max < self.backoff_base {
            return bad("politeness.backoff_max", "must be at least backoff_base");
        }
        if self.robots_max_age.is_zero() {
            return bad("politeness.robots_max_age", "must be more than 0");
        }
        Ok(())
    }
}
