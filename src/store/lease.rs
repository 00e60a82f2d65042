//! One lease for everything a holder takes for a while: a conversation being
//! compacted, an Idempotency-Key being answered, a turn being scored, an
//! audit, a preparation, a tenant's purge. Each is taken by stamping when
//! (the transaction's `now()`) and who (the holder's process), and is free
//! again when given back, when its stamp is older than its window, or when
//! its holder has fallen silent (`processes::SILENT_AFTER`) — its holder
//! died. The SQL of each is written here once and spliced into each claim's
//! statement at compile time ([`free!`], [`lapsed!`], [`holder_gone!`]);
//! the windows come from configuration (`config::Leases`).
//! A lease a request takes is [`Held`] until its work ends, and given back
//! unless its work committed.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use super::error::StoreResult;

/// A lease stamped `$column` has lapsed: its window (the statement's
/// parameter `$window`, an interval) has passed since.
macro_rules! lapsed {
    ($column:literal, $window:literal) => {
        concat!($column, " < now() - $", $window, "::interval")
    };
}

/// A lease stamped `$column` may be taken: nobody holds it, or it lapsed.
macro_rules! free {
    ($column:literal, $window:literal) => {
        concat!(
            "(",
            $column,
            " IS NULL OR ",
            $crate::store::lease::lapsed!($column, $window),
            ")"
        )
    };
}

/// A claim whose holder (the uuid in `$column`) has been silent longer than
/// the statement's parameter `$silent` (an interval). A claim with no holder
/// recorded lapses by its lease only.
macro_rules! holder_gone {
    ($column:literal, $silent:literal) => {
        concat!(
            "(",
            $column,
            " IS NOT NULL AND NOT EXISTS (SELECT FROM processes p WHERE p.id = ",
            $column,
            " AND p.seen_at > now() - $",
            $silent,
            "::interval))"
        )
    };
}

pub(crate) use {free, holder_gone, lapsed};

type GiveBack = Box<dyn Fn() -> Pin<Box<dyn Future<Output = StoreResult<()>> + Send>> + Send + Sync>;

/// A lease taken for a request's work: given back when dropped, or when
/// settled with its work not committed, so a retry is not turned away
/// until the lease lapses.
pub(crate) struct Held {
    give_back: Option<GiveBack>,
    what: &'static str,
    window: Duration,
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("what", &self.what)
            .field("held", &self.give_back.is_some())
            .finish()
    }
}

impl Held {
    /// Holds `what` (for the logs), lapsing after `window`, which
    /// `give_back` frees.
    pub(crate) fn new<F, Fut>(what: &'static str, window: Duration, give_back: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = StoreResult<()>> + Send + 'static,
    {
        Self {
            give_back: Some(Box::new(move || Box::pin(give_back()))),
            what,
            window,
        }
    }

    /// Ends the lease: kept when its work `committed` (which ended it, or
    /// found it was never ours), else given back before this returns, so a
    /// retry that follows the answer finds it free.
    pub(crate) async fn settle(mut self, committed: bool) {
        let Some(give_back) = self.give_back.take() else {
            return;
        };
        if committed || give_back().await.is_ok() {
            return;
        }
        keep_giving_back(self.what, self.window, give_back);
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(give_back) = self.give_back.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            keep_giving_back(self.what, self.window, give_back);
        }
    }
}

/// Runs `give_back` on a task of its own until the database takes it,
/// backing off from 100 ms to 5 s, for at most `for_at_most` (the lease
/// lapses by itself by then): the database may be what failed.
fn keep_giving_back(what: &'static str, for_at_most: Duration, give_back: GiveBack) {
    tokio::spawn(async move {
        let mut wait = Duration::from_millis(100);
        let started = Instant::now();
        while let Err(err) = give_back().await {
            if started.elapsed() > for_at_most {
                tracing::warn!(%err, what, "could not be given back; it lapses by itself");
                return;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(5));
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::sync::Notify;

    use super::*;
    use crate::store::StoreError;

    /// A lease whose give-back counts itself, failing the first `failing` times.
    fn counted(failing: usize) -> (Held, Arc<AtomicUsize>, Arc<Notify>) {
        let (tries, given) = (Arc::new(AtomicUsize::new(0)), Arc::new(Notify::new()));
        let (counter, told) = (tries.clone(), given.clone());
        let held = Held::new("a test's lease", Duration::from_secs(60), move || {
            let (counter, told) = (counter.clone(), told.clone());
            async move {
                if counter.fetch_add(1, Ordering::SeqCst) < failing {
                    return Err(StoreError::Corrupt("the database is away".into()));
                }
                told.notify_one();
                Ok(())
            }
        });
        (held, tries, given)
    }

    #[tokio::test]
    async fn a_lease_whose_work_committed_is_not_given_back() {
        let (held, tries, _) = counted(0);
        held.settle(true).await;
        assert_eq!(tries.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_lease_whose_work_failed_is_given_back_before_the_answer() {
        let (held, tries, _) = counted(0);
        held.settle(false).await;
        assert_eq!(tries.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_lease_dropped_or_refused_is_given_back_until_the_database_takes_it() {
        let (held, _, given) = counted(0);
        drop(held);
        given.notified().await;

        let (held, tries, given) = counted(2);
        held.settle(false).await;
        given.notified().await;
        assert_eq!(tries.load(Ordering::SeqCst), 3, "refused twice, then taken");
    }

    #[test]
    fn a_lease_is_free_when_nobody_holds_it_or_its_window_passed() {
        assert_eq!(
            free!("compacting_since", "3"),
            "(compacting_since IS NULL OR compacting_since < now() - $3::interval)"
        );
    }
}
