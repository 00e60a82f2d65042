//! Report usage (SPEC §3 /usage): after a model call, the context in use and
//! the call's token counts; creates the conversation on first sight and
//! observes the cache life. A report that carries the context past the
//! preparation point plans a summary prepared ahead (issue 12).

use chrono::{DateTime, Utc};
use sqlx::{Connection, PgConnection};

use super::{AppResult, Services, Staged, staged_as_it_comes};
use crate::domain::{ConversationId, ModelName, TenantId};
use crate::policy::UsageReport;
use crate::policy::prepare::{self, StoredTurns};
use crate::records::{CallPricing, Saving, StoredConversation};
use crate::store::{StoreResult, conversations, preparations};

/// A checked usage report.
#[derive(Debug)]
pub(crate) struct RecordUsage {
    pub tenant: TenantId,
    pub id: ConversationId,
    pub report: UsageReport,
    pub at: DateTime<Utc>,
    /// The model the call went to: what the tokens it did not resend cost.
    pub model: Option<ModelName>,
}

staged_as_it_comes!(RecordUsage);

impl Staged for RecordUsage {
    type Answer = StoredConversation;

    async fn apply(self, services: &Services, conn: &mut PgConnection) -> AppResult<StoredConversation> {
        let pricing = CallPricing::of(&services.prices, self.model.as_ref(), &self.report);
        let stored = conversations::record_usage(
            conn,
            &self.tenant,
            &self.id,
            &self.report,
            self.at,
            &services.policy,
            &pricing,
        )
        .await?;
        if let Some(saving) = &stored.saving {
            count_saving(saving, &pricing);
        }
        let turns = StoredTurns {
            boundary: stored.boundary_turn_seq,
            last: stored.last_turn_seq,
        };
        // Only a service with a model to write them plans preparations; the
        // usual report is past here after one statement.
        if services.summary_model.is_some()
            && prepare::due(&stored.state, turns, stored.planned, self.at, &services.policy)
        {
            // The report stands whatever becomes of the plan: a plan that
            // fails is made by the next report.
            if let Err(err) = plan(conn, &stored, self.at).await {
                tracing::warn!(%err, "a summary could not be planned ahead");
            }
        }
        Ok(stored)
    }
}

/// Plans the preparation in a savepoint (or a transaction of its own), so
/// that a failed plan leaves the report's own writes as they are.
async fn plan(conn: &mut PgConnection, stored: &StoredConversation, at: DateTime<Utc>) -> StoreResult<()> {
    let mut tx = conn.begin().await?;
    if preparations::plan(&mut tx, stored, at).await?.is_some() {
        metrics::counter!("compactd_preparations_planned_total").increment(1);
    }
    tx.commit().await?;
    Ok(())
}

/// The fleet's savings as /metrics counts them, in millionths of a dollar
/// (a counter counts whole units; a call whose rewrite cost more than it
/// spared counts nothing there).
fn count_saving(saving: &Saving, pricing: &CallPricing) {
    metrics::counter!("compactd_saved_tokens_total").increment(saving.per_call);
    if let Some((usd, _)) = pricing.spared(saving, saving.calls_so_far == 1) {
        metrics::counter!("compactd_saved_microdollars_total").increment((usd.max(0.0) * 1e6).round() as u64);
    }
}
