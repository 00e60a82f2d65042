//! The idle sweep: conversations whose one-hour cache is about to expire are
//! compacted by the service itself (trigger `idle_cache_expiry`, `idle: true`),
//! where turns are stored to summarize. Each is claimed like any compaction,
//! so two replicas never both do it.

use std::time::Duration;

use chrono::Utc;

use super::Workers;
use crate::compaction::{self, Request, Writers};
use crate::domain::{ConversationId, TenantId};
use crate::policy::{DecisionKind, Moment, Trigger, decide};
use crate::store::due;

/// Conversations looked at per sweep.
const SWEEP_LIMIT: i64 = 200;

pub(super) async fn run(workers: Workers, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        if let Err(err) = sweep(&workers).await {
            tracing::warn!(%err, "the idle sweep failed");
        }
    }
}

/// Compacts every idle conversation due now; answers how many.
pub async fn sweep(workers: &Workers) -> Result<usize, crate::store::StoreError> {
    let now = Utc::now();
    let candidates = {
        let mut conn = workers.pool.acquire().await?;
        due::idle_candidates(&mut conn, None, now, &workers.policy, None, SWEEP_LIMIT).await?
    };
    let mut compacted = 0;
    for stored in candidates {
        let decision = decide(&stored.state, Moment::Idle, now, &workers.policy);
        if decision.kind != DecisionKind::Compact || stored.last_turn_seq <= stored.boundary_turn_seq {
            continue;
        }
        let (Ok(tenant), Ok(id)) = (
            TenantId::parse("tenant", &stored.tenant),
            ConversationId::parse("conversation_id", stored.conversation_id.clone()),
        ) else {
            continue;
        };
        let request = Request {
            tenant,
            id,
            messages: None,
            summary: None,
            trigger: Some(Trigger::IdleCacheExpiry),
            by_host: false,
            idle: true,
            tokens_before: None,
            keep_recent_tokens: None,
            at: now,
        };
        let writers = Writers {
            model: workers.summary_model.as_ref(),
            daily_budget: workers.daily_token_budget,
            config: &workers.summaries,
        };
        // Busy means another replica has it; anything else is for the next sweep.
        let Ok(prepared) = compaction::prepare(&workers.pool, writers, request).await else {
            continue;
        };
        let recorded = async {
            let mut conn = workers.pool.acquire().await?;
            compaction::record(&mut conn, &prepared).await
        }
        .await;
        if let Err(err) = recorded {
            prepared.claim.clone().give_back(&workers.pool).await;
            return Err(err);
        }
        compacted += 1;
    }
    Ok(compacted)
}
