//! The memory of sitemap and feed bodies in flight, bounded across hosts: each such body may
//! take up to [`MAX_SOURCE_BYTES`](crate::crawl::sources::MAX_SOURCE_BYTES), and a crawl
//! fetches one per host at the same time, so without a common bound the hosts in flight
//! multiply it (40 hosts naming 43 MB sitemaps: gigabytes). A [`SourceBudget`] of
//! [`SOURCE_BUDGET_BYTES`] is shared by the fetches: a sitemap or feed reserves its declared
//! length (its cap when undeclared) in MiB before its body is read, keeps what the body
//! holds once read ([`SourceBudget::keep`]), and gives it back when the fetched page is dropped,
//! after a worker parsed it. A reservation waits for room; reservations are taken whole, so
//! two fetches never wait on each other's remainder.

use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Bytes of sitemap and feed bodies held at once across the crawl, in whole MiB.
pub const SOURCE_BUDGET_BYTES: u64 = 128 << 20;

const MIB: u64 = 1 << 20;

/// The shared budget; cheap to clone.
#[derive(Debug, Clone)]
pub struct SourceBudget {
    permits: Arc<Semaphore>,
    /// The most MiB one body may reserve.
    per_body: u32,
}

/// A body's share of the budget, given back when dropped.
pub type BudgetShare = Arc<OwnedSemaphorePermit>;

impl SourceBudget {
    /// A budget of `total` bytes for bodies of at most `per_body` bytes each (both rounded up
    /// to whole MiB; `per_body` at most `total`).
    pub fn new(total: u64, per_body: u64) -> SourceBudget {
        let total = total.div_ceil(MIB).max(1);
        let per_body = per_body.div_ceil(MIB).clamp(1, total);
        SourceBudget { permits: Arc::new(Semaphore::new(total as usize)), per_body: per_body as u32 }
    }

    /// Reserve room for a body of `declared` bytes (`None`: unknown, the cap), waiting until
    /// there is room.
    pub async fn reserve(&self, declared: Option<u64>) -> OwnedSemaphorePermit {
        let wanted = declared.map_or(self.per_body, |n| (n.div_ceil(MIB).max(1)).min(u64::from(self.per_body)) as u32);
        // The semaphore is never closed, so the acquisition cannot fail.
        self.permits.clone().acquire_many_owned(wanted).await.expect("the source budget is never closed")
    }

    /// Keep of `share` what a body of `len` bytes needs (at least 1 MiB), giving the rest
    /// back now.
    pub fn keep(mut share: OwnedSemaphorePermit, len: usize) -> BudgetShare {
        let needed = (len as u64).div_ceil(MIB).max(1) as usize;
        if share.num_permits() > needed {
            drop(share.split(share.num_permits() - needed));
        }
        Arc::new(share)
    }

    /// MiB free now.
    pub fn available_mib(&self) -> usize {
        self.permits.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body without a declared length reserves the per-body cap; once read it keeps its own
    /// size, and dropping it gives everything back. A reservation beyond the free room waits
    /// until a body is dropped.
    #[tokio::test]
    async fn shares_are_reserved_whole_kept_by_size_and_given_back() {
        let budget = SourceBudget::new(8 * MIB, 5 * MIB);
        let unknown = budget.reserve(None).await;
        assert_eq!((unknown.num_permits(), budget.available_mib()), (5, 3));
        let small = SourceBudget::keep(unknown, 300_000);
        assert_eq!(budget.available_mib(), 7);
        let declared = budget.reserve(Some(4 * MIB + 1)).await;
        assert_eq!(declared.num_permits(), 5);
        assert_eq!(budget.available_mib(), 2);
        // Another undeclared body needs 5 MiB: it waits for the 5 of `declared`.
        let waiting = tokio::spawn({
            let budget = budget.clone();
            async move { budget.reserve(None).await.num_permits() }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(declared);
        assert_eq!(waiting.await.unwrap(), 5);
        drop(small);
        assert_eq!(budget.available_mib(), 8);
    }
}
