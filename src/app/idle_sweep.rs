//! Sweep the idle (SPEC §2, §5): conversations whose one-hour cache is about to expire are
//! compacted by the service itself (trigger `idle_cache_expiry`, `idle: true`),
//! where turns are stored to summarize. Each is claimed like any compaction,
//! so two replicas never both do it. Summaries prepared ahead and left
//! unused for a day are dropped as wasted.

use std::time::Duration;

use chrono::Utc;

use super::summarize::Request;
use super::summarize::prepare::count_wasted;
use super::{Alone, Refusal, Services};
use crate::app::decide::decision_for;
use crate::policy::prepare::Reason;
use crate::policy::{CompactionTrigger, DecisionKind, Moment};
use crate::store::{StoreResult, due, prepared};

/// Conversations looked at per sweep.
const SWEEP_LIMIT: i64 = 200;

/// A summary prepared ahead that no compaction used for this long is wasted
/// (issue 12): its conversation has gone quiet, or moved on without it.
pub(crate) const PREPARED_KEPT_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// Compacts every idle conversation due now; answers how many.
pub(crate) async fn sweep(services: &Services) -> StoreResult<usize> {
    let now = Utc::now();
    let candidates = {
        let mut conn = services.warm.acquire().await?;
        let expired = prepared::expire(&mut conn, PREPARED_KEPT_FOR).await?;
        count_wasted(Reason::Expired, expired);
        due::idle_candidates(&mut conn, None, now, &services.policy, None, SWEEP_LIMIT).await?
    };
    let mut compacted = 0;
    for stored in candidates {
        let decision = decision_for(&stored, Moment::Idle, now, &services.policy);
        if decision.kind != DecisionKind::Compact || stored.last_turn_seq <= stored.boundary_turn_seq {
            continue;
        }
        let (tenant, id) = (stored.tenant.clone(), stored.conversation_id.clone());
        let request = Request {
            tenant,
            id,
            messages: None,
            summary: None,
            trigger: Some(CompactionTrigger::IdleCacheExpiry),
            by_host: false,
            idle: true,
            tokens_before: None,
            keep_recent_tokens: None,
            at: now,
            harness: None,
            invented: Vec::new(),
        };
        match super::perform(services, request, Alone).await {
            Ok(_) => compacted += 1,
            // The database failed: the next sweep tries again.
            Err(Refusal::Store(err)) => return Err(err),
            // Busy means another replica has it; the rest is for the next sweep.
            Err(_) => {}
        }
    }
    Ok(compacted)
}
