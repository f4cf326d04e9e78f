//! Per-host politeness: the principal type is [`HostPoliteness`], one per host, which says when
//! the next request to that host may start. The scheduler asks [`HostPoliteness::next_allowed`]
//! before taking a URL off the host's frontier and reports every outcome back.
//!
//! Pure logic with an injected clock: methods take `Instant`s (and a `SystemTime` for HTTP-date
//! `Retry-After` values) and never sleep, so the rules are unit-tested without waiting.
//!
//! The rules, configured by [`PolitenessConfig`] (`[politeness]` in config.toml):
//! * after a response, wait `max(min_delay, response_time_factor × response_time (capped at
//!   max_response_delay), Crawl-delay (capped at max_crawl_delay))` — the adaptive delay of
//!   Heritrix/StormCrawler, plus robots.txt's Crawl-delay;
//! * 429 and 503 block the host until `Retry-After` (RFC 9110 §10.2.3; capped at `backoff_max`)
//!   or, without it, for `backoff_base × 2^(n−1)` (capped) after the n-th consecutive one;
//! * network errors back off the same way; after `max_consecutive_failures` consecutive
//!   failures (network errors, 429, 503) the host is dead; any other response resets the count.
//!
//! In URLFrontier terms (ARCHITECTURE.md, scale-out) the delay maps to `SetDelay` and a back-off
//! to `BlockQueueUntil`.

use std::time::{Duration, Instant, SystemTime};

pub use crate::config::politeness::{PolitenessConfig, PolitenessConfigError};

/// Politeness state of one host: when it may be contacted next and how many consecutive
/// failures it has had.
#[derive(Debug, Clone)]
pub struct HostPoliteness {
    config: PolitenessConfig,
    next: Instant,
    consecutive_failures: u32,
    last_delay: Duration,
}

impl HostPoliteness {
    /// A host never contacted: allowed from now on.
    pub fn new(config: PolitenessConfig) -> HostPoliteness {
        HostPoliteness::new_at(config, Instant::now())
    }

    /// As [`HostPoliteness::new`], allowed from `now`.
    pub fn new_at(config: PolitenessConfig, now: Instant) -> HostPoliteness {
        HostPoliteness { config, next: now, consecutive_failures: 0, last_delay: Duration::ZERO }
    }

    /// The earliest time the next request to this host may start.
    pub fn next_allowed(&self) -> Instant {
        self.next
    }

    /// How long to wait from `now` (zero when the host is due).
    pub fn wait(&self, now: Instant) -> Duration {
        self.next.saturating_duration_since(now)
    }

    /// The delay set by the last `record_*` call (for logs and stats).
    pub fn last_delay(&self) -> Duration {
        self.last_delay
    }

    /// Consecutive failures so far (network errors, 429, 503).
    pub fn consecutive_failures(&self) -> u32 {
        self.consecutive_failures
    }

    /// Should the host be given up? True after `max_consecutive_failures` consecutive failures.
    pub fn is_dead(&self) -> bool {
        self.config.max_consecutive_failures > 0 && self.consecutive_failures >= self.config.max_consecutive_failures
    }

    /// Record a response that arrived at `now` after `response_time`, with HTTP `status`, the
    /// raw `Retry-After` header if any, and the robots.txt Crawl-delay that applies to us.
    /// An HTTP-date `Retry-After` is read against the system clock; see
    /// [`HostPoliteness::record_response_at`] for a fully injected clock.
    pub fn record_response(
        &mut self,
        now: Instant,
        response_time: Duration,
        status: u16,
        retry_after: Option<&str>,
        crawl_delay: Option<Duration>,
    ) {
        let wall = SystemTime::now();
        self.record_response_at(now, wall, response_time, status, retry_after, crawl_delay);
    }

    /// [`HostPoliteness::record_response`] with the wall clock `wall_now` injected too.
    ///
    /// Next allowed = `now + max(regular delay, back-off)`, where the back-off applies to
    /// 429/503 only: `Retry-After` capped at `backoff_max`, else exponential. An unparsable
    /// `Retry-After` counts as absent.
    pub fn record_response_at(
        &mut self,
        now: Instant,
        wall_now: SystemTime,
        response_time: Duration,
        status: u16,
        retry_after: Option<&str>,
        crawl_delay: Option<Duration>,
    ) {
        let mut delay = self.regular_delay(response_time, crawl_delay);
        if matches!(status, 429 | 503) {
            self.consecutive_failures = self.consecutive_failures.saturating_add(1);
            let backoff = match retry_after.and_then(|v| parse_retry_after(v, wall_now)) {
                Some(d) => d.min(self.config.backoff_max),
                None => self.backoff(),
            };
            delay = delay.max(backoff);
        } else {
            self.consecutive_failures = 0;
        }
        self.set_delay(now, delay);
    }

    /// Record a failed robots.txt (5xx or no answer) at `now`: exponential back-off (at least
    /// `min_delay`, at most `robots_retry`) and one more consecutive failure.
    pub fn record_robots_failure(&mut self, now: Instant) {
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        let delay = self.config.min_delay.max(self.backoff().min(self.config.robots_retry));
        self.set_delay(now, delay);
    }

    /// Record a network failure (connect error, timeout, reset) at `now`: exponential back-off
    /// (at least `min_delay`) and one more consecutive failure.
    pub fn record_failure(&mut self, now: Instant) {
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        let delay = self.config.min_delay.max(self.backoff());
        self.set_delay(now, delay);
    }

    fn set_delay(&mut self, now: Instant, delay: Duration) {
        self.last_delay = delay;
        // An Instant this far out cannot overflow on any platform for delays we cap; fall
        // back to a day if it somehow would.
        self.next = now.checked_add(delay).or_else(|| now.checked_add(Duration::from_secs(86_400))).unwrap_or(now);
    }

    /// `max(min_delay, factor × response_time ≤ max_response_delay, Crawl-delay ≤
    /// max_crawl_delay)`.
    fn regular_delay(&self, response_time: Duration, crawl_delay: Option<Duration>) -> Duration {
        let c = &self.config;
        let secs = response_time.as_secs_f64() * c.response_time_factor;
        let adaptive = Duration::try_from_secs_f64(secs).unwrap_or(c.max_response_delay).min(c.max_response_delay);
        let robots = crawl_delay.unwrap_or(Duration::ZERO).min(c.max_crawl_delay);
        c.min_delay.max(adaptive).max(robots)
    }

    /// `backoff_base × 2^(n−1)` for the current failure count n ≥ 1, capped at `backoff_max`.
    fn backoff(&self) -> Duration {
        let n = self.consecutive_failures.max(1);
        let factor = 1u32 << (n - 1).min(31);
        self.config.backoff_base.saturating_mul(factor).min(self.config.backoff_max)
    }
}

/// Parse a `Retry-After` header value (RFC 9110 §10.2.3) into the wait from `now`: either
/// delta-seconds (`"120"`) or an HTTP-date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, also the
/// obsolete RFC 850 and asctime forms). A date in the past gives zero. `None` when unparsable.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        // Absurdly long numbers saturate; the caller caps at backoff_max.
        return Some(Duration::from_secs(value.parse::<u64>().unwrap_or(u64::MAX)));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    fn host() -> (HostPoliteness, Instant) {
        let t0 = Instant::now();
        (HostPoliteness::new_at(PolitenessConfig::default(), t0), t0)
    }

    #[test]
    fn defaults_and_toml() {
        let c: PolitenessConfig = toml::from_str("min_delay = \"1s\"\nbackoff_max = \"2h\"\n").expect("toml");
        assert_eq!(c.min_delay, S(1));
        assert_eq!(c.backoff_max, S(7200));
        assert_eq!(c.robots_max_age, S(86_400));
        assert!(toml::from_str::<PolitenessConfig>("min_dealy = \"1s\"").is_err());
        assert!(PolitenessConfig::default().validate().is_ok());
        let bad = PolitenessConfig { response_time_factor: f64::NAN, ..PolitenessConfig::default() };
        assert_eq!(bad.validate().expect_err("NaN").key, "politeness.response_time_factor");
    }

    #[test]
    fn new_host_is_due_now() {
        let (h, t0) = host();
        assert_eq!(h.next_allowed(), t0);
        assert_eq!(h.wait(t0), Duration::ZERO);
        assert!(!h.is_dead());
    }

    #[test]
    fn regular_delay_is_the_max_of_three() {
        let (mut h, t0) = host();
        // Fast response: min_delay (2 s) wins over 5 × 100 ms.
        h.record_response(t0, Duration::from_millis(100), 200, None, None);
        assert_eq!(h.next_allowed(), t0 + S(2));
        // Slow response: 5 × 1.5 s = 7.5 s.
        h.record_response(t0, Duration::from_millis(1500), 200, None, None);
        assert_eq!(h.next_allowed(), t0 + Duration::from_millis(7500));
        // Very slow response: capped at max_response_delay.
        h.record_response(t0, S(20), 200, None, None);
        assert_eq!(h.next_allowed(), t0 + S(30));
        // Crawl-delay wins when larger, capped at max_crawl_delay.
        h.record_response(t0, Duration::from_millis(100), 200, None, Some(S(10)));
        assert_eq!(h.next_allowed(), t0 + S(10));
        h.record_response(t0, Duration::from_millis(100), 200, None, Some(S(3600)));
        assert_eq!(h.next_allowed(), t0 + S(300));
        // A 404 is a normal response; Retry-After on a 200 is ignored.
        h.record_response(t0, Duration::ZERO, 404, None, None);
        assert_eq!(h.next_allowed(), t0 + S(2));
        h.record_response(t0, Duration::ZERO, 200, Some("600"), None);
        assert_eq!(h.next_allowed(), t0 + S(2));
    }

    #[test]
    fn throttling_with_and_without_retry_after() {
        let (mut h, t0) = host();
        h.record_response(t0, Duration::ZERO, 429, Some("120"), None);
        assert_eq!(h.next_allowed(), t0 + S(120));
        // Retry-After beyond backoff_max is capped.
        h.record_response(t0, Duration::ZERO, 503, Some("999999"), None);
        assert_eq!(h.next_allowed(), t0 + S(3600));
        // Without Retry-After: exponential from backoff_base, n = 3 now.
        h.record_response(t0, Duration::ZERO, 503, None, None);
        assert_eq!(h.next_allowed(), t0 + S(5 * 4));
        h.record_response(t0, Duration::ZERO, 429, Some("garbage"), None);
        assert_eq!(h.next_allowed(), t0 + S(5 * 8));
        assert_eq!(h.consecutive_failures(), 4);
        // HTTP-date Retry-After, against an injected wall clock.
        let wall = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").expect("date");
        h.record_response_at(t0, wall, Duration::ZERO, 503, Some("Wed, 21 Oct 2015 07:29:30 GMT"), None);
        assert_eq!(h.next_allowed(), t0 + S(90));
        // A success resets the count and the delay.
        h.record_response(t0, Duration::ZERO, 200, None, None);
        assert_eq!(h.consecutive_failures(), 0);
        h.record_response(t0, Duration::ZERO, 503, None, None);
        assert_eq!(h.next_allowed(), t0 + S(5));
    }

    #[test]
    fn failures_back_off_and_kill_the_host() {
        let (mut h, t0) = host();
        let mut expected = [5u64, 10, 20, 40, 80, 160, 320, 640, 1280, 2560].into_iter();
        for i in 1..=9 {
            h.record_failure(t0);
            assert_eq!(h.next_allowed(), t0 + S(expected.next().expect("10 values")), "failure {i}");
            assert!(!h.is_dead(), "failure {i}");
        }
        h.record_failure(t0);
        assert!(h.is_dead());
        // Capped at backoff_max however many failures.
        for _ in 0..40 {
            h.record_failure(t0);
        }
        assert_eq!(h.next_allowed(), t0 + S(3600));
        // A response resets the count.
        let (mut h, t0) = host();
        for _ in 0..9 {
            h.record_failure(t0);
        }
        h.record_response(t0, Duration::ZERO, 200, None, None);
        h.record_failure(t0);
        assert!(!h.is_dead());
        assert_eq!(h.next_allowed(), t0 + S(5));
    }

    #[test]
    fn retry_after_values() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").expect("date");
        assert_eq!(parse_retry_after("120", now), Some(S(120)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(S(0)));
        assert_eq!(parse_retry_after("Sun, 06 Nov 1994 08:50:37 GMT", now), Some(S(60)));
        // Obsolete RFC 850 and asctime forms.
        assert_eq!(parse_retry_after("Sunday, 06-Nov-94 08:49:47 GMT", now), Some(S(10)));
        assert_eq!(parse_retry_after("Sun Nov  6 08:49:57 1994", now), Some(S(20)));
        // In the past: no wait.
        assert_eq!(parse_retry_after("Sat, 05 Nov 1994 08:49:37 GMT", now), Some(S(0)));
        assert_eq!(parse_retry_after("-5", now), None);
        assert_eq!(parse_retry_after("1.5", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("", now), None);
        assert_eq!(parse_retry_after("99999999999999999999999", now), Some(S(u64::MAX)));
    }
}
