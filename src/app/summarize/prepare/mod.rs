//! The use case's second target (issue 12): a summary prepared ahead of a
//! compaction. A worker claims a planned preparation, `gather`s the stored
//! turns it covers, reads them as a compaction would (`super::read`: the
//! same counts, keep set and state at the cut, on the same anchor), `write`s
//! the summary through the upstream under the same rules within a deadline
//! of its own, and `record`s it as a preparation instead of a compaction,
//! with the counts and the fingerprint a later compaction checks it by. The
//! tenant's daily upstream budget counts it; past the budget nothing is
//! prepared. Claimed through the database, so no two workers write one, and
//! one whose worker died is taken again.

mod gather;
mod record;
mod write;

use std::time::Duration;

use crate::app::Services;
use crate::domain::{ConversationId, TenantId};
use crate::policy::prepare::Reason;
use crate::records::StoredConversation;
use crate::store::StoreResult;
use crate::store::preparations::{self, Claimed};

/// Claims up to `batch` planned preparations, each to be written `within`
/// this long; a claim older than the workers' lease, and than that with a
/// margin, was its worker's last and is taken again.
pub(crate) async fn claim(services: &Services, batch: i64, within: Duration) -> StoreResult<Vec<Claimed>> {
    let lapsed_after = services
        .leases
        .worker
        .max(within + write::GIVEN_UP_AFTER + CLAIM_MARGIN);
    claim_within(services, batch, lapsed_after, None).await
}

/// A preparation's claim outlasts the longest its writing may take by this.
const CLAIM_MARGIN: Duration = Duration::from_secs(30);

/// Claims up to `batch` planned preparations (of one conversation only,
/// when `only` names it), taking over claims older than `lapsed_after`.
async fn claim_within(
    services: &Services,
    batch: i64,
    lapsed_after: Duration,
    only: Option<(&TenantId, &ConversationId)>,
) -> StoreResult<Vec<Claimed>> {
    let mut conn = services.warm.acquire().await?;
    if only.is_none()
        && let Ok(waiting) = preparations::waiting(&mut conn).await
    {
        metrics::gauge!("compactd_background_queue_depth", "work" => "preparation").set(waiting as f64);
    }
    preparations::claim(&mut conn, batch, (lapsed_after, services.process), only).await
}

/// Counts preparations wasted for `reason` (the metrics of issue 12).
pub(crate) fn count_wasted(reason: Reason, preparations: u64) {
    metrics::counter!("compactd_preparations_wasted_total", "reason" => reason.as_str()).increment(preparations);
}

/// What became of one claimed preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Written and kept for the next compaction.
    Ready,
    /// Written, but closed meanwhile (its tokens count as wasted).
    Wasted(Reason),
    /// Another worker took the claim over.
    Lost,
    /// Not written, for this reason.
    Dropped(Reason),
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Self::Ready => "ready",
            Self::Wasted(_) => "wasted",
            Self::Lost => "lost",
            Self::Dropped(_) => "dropped",
        }
    }
}

/// Writes one claimed preparation and records it, within `within` (a
/// summary's own time, shorter than a claim lasts): one that takes longer
/// is dropped as the upstream's failure, never left to lapse and be taken
/// again with the same calls (issue 23). A store error leaves the claim to
/// lapse, and the preparation is taken again.
pub(crate) async fn prepare(services: &Services, claimed: Claimed, within: Duration) -> StoreResult<Outcome> {
    let outcome = write::write(services, &claimed, within)
        .await
        .inspect_err(|err| tracing::warn!(%err, preparation = claimed.seq, "a summary could not be prepared"))?;
    metrics::counter!("compactd_preparations_total", "outcome" => outcome.name()).increment(1);
    if let Outcome::Wasted(reason) = outcome {
        count_wasted(reason, 1);
    }
    Ok(outcome)
}

/// Runs every planned preparation of one conversation now, here: what a
/// replay does to stand for a worker that had the time (deterministic,
/// whatever the timing).
pub(crate) async fn settle(services: &Services, tenant: &TenantId, id: &ConversationId) -> StoreResult<usize> {
    let mut written = 0;
    // A usage report plans one at a time: a few rounds settle any backlog.
    for _ in 0..8 {
        // Nobody else works on a replay's conversations: every claim is free.
        let claimed = claim_within(services, 4, Duration::ZERO, Some((tenant, id))).await?;
        if claimed.is_empty() {
            break;
        }
        for one in claimed {
            // A replay stands for a worker that had all the time it needed.
            if prepare(services, one, Duration::from_secs(24 * 60 * 60)).await? == Outcome::Ready {
                written += 1;
            }
        }
    }
    Ok(written)
}

/// The conversation still stands where the preparation was planned: no
/// compaction moved its boundary or wrote another anchor since.
fn still_stands(stored: &StoredConversation, claimed: &Claimed) -> bool {
    stored.boundary_turn_seq == claimed.boundary_turn_seq
        && stored.summary.as_ref().map(|(_, seq)| *seq) == claimed.anchor_seq
        && stored.last_turn_seq >= claimed.through_turn_seq
}
