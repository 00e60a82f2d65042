//! A preparation recorded: kept ready for the next compaction (its turns
//! taken into the keep set) unless it was closed while it was written, or
//! dropped, with the reason, when it was not written.

use sqlx::{Connection, PgConnection};

use super::Outcome;
use super::still_stands;
use crate::app::Services;
use crate::app::keep_set::{Observation, TakenIn};
use crate::llm::UpstreamModel;
use crate::policy::prepare::Reason;
use crate::store::preparations::{self, Claimed, Kept, Written};
use crate::store::{StoreResult, conversations};

/// Keeps what was written, in one transaction that holds the conversation's
/// row first: the preparation becomes ready (unless it was closed while it
/// was written) and the turns it read go into the keep set. (Its tokens
/// were counted against the budget before, either way.)
pub(super) async fn record(
    conn: &mut PgConnection,
    claimed: &Claimed,
    written: &Written,
    (taken, observations): (&TakenIn, &[Observation]),
) -> StoreResult<Outcome> {
    let mut tx = conn.begin().await?;
    let stored = conversations::lock(&mut tx, &claimed.tenant, &claimed.conversation_id).await?;
    let kept = preparations::record_written(&mut tx, claimed, written).await?;
    if kept == Kept::Ready
        && let Some(stored) = stored
        && still_stands(&stored, claimed)
    {
        // Read once, here, the turns it covers need not be read again at
        // the compaction: the keep set comes out the same either way.
        taken
            .save(&mut tx, &claimed.tenant, &claimed.conversation_id, observations)
            .await?;
    }
    tx.commit().await?;
    Ok(match kept {
        Kept::Ready => Outcome::Ready,
        Kept::Wasted(reason) => Outcome::Wasted(reason),
        Kept::Lost => Outcome::Lost,
    })
}

/// Drops the claimed preparation, not written, for `reason`.
pub(super) async fn dropped(services: &Services, claimed: &Claimed, reason: Reason) -> StoreResult<Outcome> {
    let mut conn = services.warm.acquire().await?;
    if preparations::drop_claimed(&mut conn, claimed, reason).await? {
        let skipped = preparations::skipped_reason(reason);
        metrics::counter!("compactd_background_skipped_total", "reason" => skipped).increment(1);
    }
    Ok(Outcome::Dropped(reason))
}

/// Drops the claimed preparation as the upstream's failure, logging the
/// upstream's error.
pub(super) async fn failed(
    services: &Services,
    claimed: &Claimed,
    model: &UpstreamModel,
    error: &(dyn std::fmt::Display + Sync),
) -> StoreResult<Outcome> {
    tracing::info!(%error, model = %model.model, preparation = claimed.seq, "a summary could not be prepared upstream");
    dropped(services, claimed, Reason::Upstream).await
}
