//! Report usage (SPEC §3 /usage): after a model call, the context in use and
//! the call's token counts; creates the conversation on first sight and
//! observes the cache life. A report that carries the context past the
//! preparation point plans a summary prepared ahead (issue 12).

use chrono::{DateTime, Utc};
use sqlx::{Connection, PgConnection};

use super::{AppResult, Services, Staged, staged_as_it_comes};
use crate::domain::{ConversationId, ModelName, Prices, TenantId};
use crate::policy::UsageReport;
use crate::policy::prepare::{self, StoredTurns};
use crate::records::StoredConversation;
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
        let per_saved_token = saved_token_price(&services.prices, self.model.as_ref(), &self.report);
        let stored = conversations::record_usage(
            conn,
            &self.tenant,
            &self.id,
            &self.report,
            self.at,
            &services.policy,
            per_saved_token,
        )
        .await?;
        if let Some(saving) = stored.saving {
            count_saving(saving.per_call, per_saved_token);
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

/// The dollars one input token of this call cost, fresh and cached in the
/// call's own shares: what each token a compaction spared it would have
/// cost (SPEC §6). A call that gives no counts is taken as read from the
/// cache, the cheaper reading: savings are never overstated. `None`: its
/// model has no price.
pub(crate) fn saved_token_price(prices: &Prices, model: Option<&ModelName>, report: &UsageReport) -> Option<f64> {
    let price = prices.of(model.map(ModelName::as_str))?;
    let cached_share = match (report.input, report.cached_read) {
        (Some(input), Some(cached)) if input > 0 => cached.min(input) as f64 / input as f64,
        (Some(input), None) if input > 0 => 0.0,
        _ => 1.0,
    };
    Some(price.of_input(1, cached_share))
}

/// The fleet's savings as /metrics counts them, in millionths of a dollar
/// (a counter counts whole units).
fn count_saving(tokens: u64, per_token: Option<f64>) {
    metrics::counter!("compactd_saved_tokens_total").increment(tokens);
    if let Some(per_token) = per_token {
        metrics::counter!("compactd_saved_microdollars_total")
            .increment((tokens as f64 * per_token * 1e6).round() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(input: Option<u64>, cached_read: Option<u64>) -> UsageReport {
        UsageReport {
            used: 1,
            size: None,
            input,
            cached_read,
            cache_written: None,
            output: None,
            cache_life: None,
            context_pressure_tokens: None,
        }
    }

    #[test]
    fn a_spared_token_costs_what_the_calls_own_input_cost() {
        let prices = Prices::parse("m=3/0.3/15,*=1/0.1/4").unwrap();
        let m = ModelName::parse("model", "m".into()).unwrap();
        let per_million =
            |model, report| saved_token_price(&prices, model, &report).map(|p| (p * 1e6 * 1e6).round() / 1e6);
        assert_eq!(per_million(Some(&m), report(Some(100), Some(80))), Some(0.84));
        assert_eq!(per_million(Some(&m), report(Some(100), None)), Some(3.0));
        // No counts: read from the cache, the cheaper reading.
        assert_eq!(per_million(Some(&m), report(None, None)), Some(0.3));
        assert_eq!(per_million(None, report(Some(100), Some(100))), Some(0.1));
        assert_eq!(
            saved_token_price(&Prices::default(), Some(&m), &report(None, None)),
            None
        );
    }
}
