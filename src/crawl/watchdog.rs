//! Dispatch's watchdog: a host with URLs queued that should have had a request by now and
//! has none (a lost wake-up in the scheduler) is found here, so that dispatch wakes it and
//! logs it; a request in flight far longer than the request timeout is logged once.
//! Dispatch asks every [`WATCH_EVERY`], and only while it has request slots free (a host
//! waiting for a slot is not lost).

use crate::crawl::hosts::HostRuntime;
use std::time::{Duration, Instant};

/// How often dispatch runs the watchdog.
pub const WATCH_EVERY: Duration = Duration::from_secs(5);

/// What the watchdog found about one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finding {
    /// URLs queued, no request in flight, and allowed since longer than the grace: wake it.
    Overdue {
        /// Host index.
        idx: usize,
        /// How long past its due time.
        late: Duration,
    },
    /// A request in flight for longer than the grace (reported once per request).
    Stuck {
        /// Host index.
        idx: usize,
        /// Since when.
        for_: Duration,
    },
}

/// The hosts of `hosts` that are overdue or stuck at `now`: `grace` is the host's delay
/// allowance on top of its due time (dispatch passes the request timeout; a request is
/// stuck after twice that).
pub fn check(hosts: &[HostRuntime], now: Instant, grace: Duration) -> Vec<Finding> {
    let mut found = Vec::new();
    for (idx, h) in hosts.iter().enumerate() {
        if h.in_flight {
            if let Some(since) = h.in_flight_since {
                let for_ = now.saturating_duration_since(since);
                if for_ >= grace * 2 && !h.stuck_reported {
                    found.push(Finding::Stuck { idx, for_ });
                }
            }
            continue;
        }
        if !h.schedulable() || !h.has_queued() {
            continue;
        }
        let late = now.saturating_duration_since(h.politeness.next_allowed());
        if late >= grace {
            found.push(Finding::Overdue { idx, late });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::politeness::HostPoliteness;
    use crate::domain::HostModel;
    use url::Url;

    fn host(t0: Instant) -> HostRuntime {
        let seed = Url::parse("http://a.example/").unwrap();
        let politeness = HostPoliteness::new_at(Default::default(), t0);
        HostRuntime::new("a.example".into(), seed, politeness, HostModel::Sampling)
    }

    #[test]
    fn a_host_with_work_and_no_request_past_its_due_time_is_overdue() {
        let t0 = Instant::now();
        let grace = Duration::from_secs(30);
        let mut idle = host(t0);
        idle.has_work = false;
        let waiting = host(t0);
        let mut dead = host(t0);
        dead.dead = true;
        let mut busy = host(t0);
        busy.in_flight = true;
        busy.in_flight_since = Some(t0);
        let hosts = [idle, waiting, dead, busy];
        assert!(check(&hosts, t0 + Duration::from_secs(29), grace).is_empty(), "within the grace");
        let late = t0 + Duration::from_secs(45);
        let found = check(&hosts, late, grace);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(matches!(found[0], Finding::Overdue { idx: 1, late } if late >= grace));
        let found = check(&hosts, t0 + Duration::from_secs(61), grace);
        assert!(found.contains(&Finding::Stuck { idx: 3, for_: Duration::from_secs(61) }), "{found:?}");
    }
}
