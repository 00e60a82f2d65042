//! One compaction as a use case: the request, the claim, the written attempt, its record.

use super::claim::ClaimGuard;
use crate::app::budget::Reservation;
use crate::app::keep_set::{Observation, TakenIn};
use crate::app::prepare::count_wasted;
use crate::app::{Outcome, Ready, Refusal, Services, UseCase};
use crate::domain::{ConversationId, HarnessName, TenantId};
use crate::policy::CompactionTrigger;
use crate::policy::prepare::Reason;
use crate::policy::transcript::Message;
use crate::store::compactions::{self, Attempt, Unclaimed};
use crate::store::keep;
use crate::store::ledger::Recorded;
use crate::store::prepared::{self, Closing};
use crate::store::{StoreError, StoreResult, StoredConversation};
use chrono::{DateTime, Utc};
use sqlx::{Connection, PgConnection};
use std::time::{Duration, Instant};

/// How long a claim lasts before it counts as abandoned: past any upstream
/// deadline the service allows, with room to record.
pub(crate) const CLAIM_ABANDONED_AFTER: Duration = Duration::from_secs(11 * 60);

/// Why no model wrote a summary.
pub(crate) const NO_UPSTREAM: &str = "no upstream LLM is configured";

/// What the caller asks for.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub tenant: TenantId,
    pub id: ConversationId,
    /// The transcript since the boundary; `None`: the stored turns.
    pub messages: Option<Vec<Message>>,
    /// A summary the harness wrote itself: recorded, no model called.
    pub summary: Option<String>,
    /// `None`: the pending decision's trigger, else `manual`.
    pub trigger: Option<CompactionTrigger>,
    pub by_host: bool,
    pub idle: bool,
    pub tokens_before: Option<u64>,
    pub keep_recent_tokens: Option<u64>,
    pub at: DateTime<Utc>,
    /// Which harness wrote `summary`, when it said.
    pub harness: Option<HarnessName>,
}

/// A written (or failed) summary, ready to be recorded.
#[derive(Debug)]
pub(crate) struct Drafted {
    pub(super) tenant: TenantId,
    pub(super) id: ConversationId,
    pub(super) attempt: Attempt,
    /// The anchor before this attempt (what a failure leaves in place).
    pub(super) prior: Option<String>,
    /// The window's size when known, for the overflow check.
    pub(super) size: u64,
    /// Given back unless the attempt is recorded.
    pub(super) claim: Option<ClaimGuard>,
    /// What the transcript said, for the keep set when the attempt succeeds.
    pub(super) observations: Vec<Observation>,
    /// What became of a summary prepared ahead, once the attempt succeeds.
    pub(super) ahead: Ahead,
    /// The keep set as the summary was written with it, observations taken in.
    pub(super) keep: TakenIn,
    /// The tenant's budget held for the upstream call, trued up when recorded.
    pub(super) reserved: Reservation,
}

/// A compaction and the summaries prepared ahead of it (issue 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ahead {
    /// It merged this preparation (by seq).
    Used(i64),
    /// It used none; any open preparation ends for this reason.
    Unused(Reason),
}

/// The recorded attempt and what the caller is left with.
#[derive(Debug)]
pub(crate) struct Summarized {
    pub recorded: Recorded,
    pub stored: StoredConversation,
    /// The new summary; on failure, the prior one, unchanged.
    pub summary: Option<String>,
    /// Present when even the compacted result does not fit the window.
    pub overflow: Option<Overflow>,
}

/// What an upstream would need to fit the compacted result (seed 002's
/// terminal condition): the caller should roll over.
// `message_count`: the summary and the messages kept after it. The trigger
// is documented under the names a decision may give, as it always was.
#[derive(Debug, Clone, PartialEq, serde::Serialize, utoipa::ToSchema)]
pub(crate) struct Overflow {
    pub tokens_used: u64,
    pub context_window: u64,
    pub overflow: u64,
    /// `tokens_used / context_window`.
    pub utilization: f64,
    pub message_count: u64,
    #[schema(value_type = crate::policy::Trigger)]
    pub trigger: CompactionTrigger,
}

impl UseCase for Request {
    type Ready = Drafted;

    /// The conversation is claimed while its summary is written.
    const RUN_TO_COMPLETION: bool = true;

    /// Claims the conversation and writes its summary. No connection is
    /// held while the summary is written; a refusal gives the claim back.
    async fn prepare(self, services: &Services) -> Outcome<Drafted> {
        let started = Instant::now();
        let (stored, since) = {
            let mut conn = services.pool.acquire().await.map_err(StoreError::from)?;
            match compactions::claim(&mut conn, &self.tenant, &self.id, CLAIM_ABANDONED_AFTER).await? {
                Ok(claimed) => claimed,
                Err(Unclaimed::Missing) => {
                    return Err(Refusal::NotFound(format!(
                        "no conversation {:?}: report usage or a turn first",
                        self.id.as_str()
                    )));
                }
                Err(Unclaimed::Busy) => {
                    return Err(Refusal::Conflict(
                        "a compaction of this conversation is already running; retry when it ends".to_owned(),
                    ));
                }
            }
        };
        let claim = ClaimGuard::new(&services.pool, self.tenant.clone(), self.id.clone(), since);
        match super::write::write(services, self, stored, started).await {
            Ok(mut prepared) => {
                prepared.claim = Some(claim);
                Ok(prepared)
            }
            Err(refusal) => {
                claim.settle(false).await;
                Err(refusal)
            }
        }
    }
}

impl Ready for Drafted {
    type Answer = Summarized;

    async fn apply(self, services: &Services, conn: &mut PgConnection) -> Outcome<Summarized> {
        // Spent is spent, whatever becomes of the ledger row.
        let attempt = &self.attempt;
        let spent = (attempt.upstream_input_tokens, attempt.upstream_output_tokens);
        let calls = u64::from(attempt.upstream_calls.unwrap_or(0));
        services.true_up(&self.tenant, self.reserved, spent, calls).await;
        let (recorded, stored) = record(conn, &self).await?;
        let success = recorded.success;
        let overflow = (success && self.size > 0 && recorded.tokens_after > self.size).then(|| Overflow {
            tokens_used: recorded.tokens_after,
            context_window: self.size,
            overflow: recorded.tokens_after - self.size,
            utilization: recorded.tokens_after as f64 / self.size as f64,
            message_count: recorded
                .total_messages
                .saturating_sub(recorded.kept_from.unwrap_or(recorded.total_messages))
                + 1,
            trigger: self.attempt.trigger,
        });
        let summary = if success { recorded.summary.clone() } else { self.prior };
        Ok(Summarized {
            recorded,
            stored,
            summary,
            overflow,
        })
    }

    fn take_claim(&mut self) -> Option<ClaimGuard> {
        self.claim.take()
    }
}

/// Records the attempt and applies it, in a transaction of its own (or a
/// savepoint of the caller's); the claim ends.
async fn record(conn: &mut PgConnection, prepared: &Drafted) -> StoreResult<(Recorded, StoredConversation)> {
    let mut tx = conn.begin().await?;
    let recorded = compactions::record(&mut tx, &prepared.tenant, &prepared.id, &prepared.attempt).await?;
    let attempt = &prepared.attempt;
    if attempt.outcome.is_ok() {
        // The conversation's row is locked (compactions::record).
        (prepared.keep)
            .save(&mut tx, &prepared.tenant, &prepared.id, &prepared.observations)
            .await?;
        if let Some(figures) = &attempt.keep {
            keep::tally(&mut tx, &prepared.tenant, attempt.at, figures).await?;
        }
        let closing = match prepared.ahead {
            Ahead::Used(seq) => Closing::compacted(Some((seq, recorded.0.seq)), Reason::Superseded),
            Ahead::Unused(reason) => Closing::compacted(None, reason),
        };
        for reason in prepared::close(&mut tx, &prepared.tenant, &prepared.id, closing).await? {
            count_wasted(reason, 1);
        }
    }
    count(attempt);
    tx.commit().await?;
    Ok(recorded)
}

fn count(attempt: &Attempt) {
    metrics::counter!(
        "compactd_compactions_total",
        "trigger" => attempt.trigger.as_str(),
        "success" => if attempt.outcome.is_ok() { "true" } else { "false" },
        "summarizer" => attempt.summarizer.as_str(),
    )
    .increment(1);
    if attempt.outcome.is_ok() && attempt.prepared_age_ms.is_some() {
        metrics::counter!("compactd_prepared_compactions_total").increment(1);
    }
    if attempt.outcome.is_ok() {
        // Callers may state counts up to 2^63; no context is near a trillion
        // tokens, and a counter that wrapped would read as a reset.
        metrics::counter!("compactd_tokens_saved_total").increment(attempt.tokens_saved().min(1_000_000_000_000));
    }
    for (kind, figures) in attempt.keep.iter().flat_map(|keep| &keep.by_kind) {
        for (outcome, items) in [
            ("present", figures.present),
            ("appended", figures.appended),
            ("parked", figures.parked),
        ] {
            if items > 0 {
                metrics::counter!("compactd_keep_items_total", "kind" => kind.as_str(), "outcome" => outcome)
                    .increment(items);
            }
        }
    }
}
