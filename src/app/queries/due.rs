//! The conversations due (SPEC §3 `GET /due`): those for which `/decide` at
//! a moment would not answer `keep` now, each with the decision it would
//! answer — what a caller polls instead of asking about each.

use chrono::{DateTime, Utc};

use crate::app::decide::decision_for;
use crate::app::{AppResult, Services};
use crate::domain::TenantId;
use crate::policy::{Decision, DecisionKind, Moment};
use crate::records::StoredConversation;
use crate::store::due::{self, Position};

/// Up to `limit` of the tenant's conversations due at `moment` at `at`,
/// each with its decision. The store's scan over-approximates (the loop
/// guards are the policy's): it pages on until enough are due or the
/// candidates run out.
pub(crate) async fn due(
    services: &Services,
    tenant: &TenantId,
    moment: Moment,
    at: DateTime<Utc>,
    limit: u32,
) -> AppResult<Vec<(StoredConversation, Decision)>> {
    // On the primary, though tenant-wide: a poller compacts what this lists,
    // and a standby's moment-old answer would list what it just compacted.
    let mut conn = services.warm.acquire().await?;
    let policy = &services.policy;
    let mut due_now = Vec::new();
    let mut after: Option<Position> = None;
    loop {
        let page_after = after.as_ref();
        let batch = match moment {
            Moment::NextMessage => {
                due::next_message_candidates(&mut conn, tenant, at, policy, page_after, limit.into()).await?
            }
            // A turn's end is not polled for; it scans as idle.
            Moment::Idle | Moment::TurnEnd => {
                due::idle_candidates(&mut conn, Some(tenant), at, policy, page_after, limit.into()).await?
            }
        };
        let exhausted = batch.len() < limit as usize;
        after = batch.last().and_then(|last| {
            Some(Position {
                last_turn_at: last.state.last_turn_at?,
                conversation_id: last.conversation_id.to_string(),
            })
        });
        for stored in batch {
            let decision = decision_for(&stored, moment, at, policy);
            if decision.kind != DecisionKind::Keep && due_now.len() < limit as usize {
                due_now.push((stored, decision));
            }
        }
        if exhausted || after.is_none() || due_now.len() >= limit as usize {
            break;
        }
    }
    Ok(due_now)
}
