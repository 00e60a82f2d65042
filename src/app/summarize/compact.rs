//! One compaction as a use case: claim, gather, write (as planned), then,
//! in the caller's transaction, record.

use std::time::Instant;

use sqlx::PgConnection;

use super::record::NotRecorded;
use super::{Drafted, Overflow, Request, Summarized, gather, record, write};
use crate::app::{AppResult, Refusal, Services, Staged, UseCase};
use crate::domain::{ConversationId, TenantId};
use crate::store::compactions::{self, Unclaimed};
use crate::store::{StoreError, lease};

impl UseCase for Request {
    type Staged = Drafted;

    /// The conversation is claimed while its summary is written.
    const RUN_TO_COMPLETION: bool = true;

    /// Claims the conversation and writes its summary. No connection is
    /// held while the summary is written; a refusal gives the claim back.
    async fn stage(self, services: &Services) -> AppResult<Drafted> {
        let started = Instant::now();
        let (stored, since) = {
            let mut conn = services.warm.acquire().await.map_err(StoreError::from)?;
            match compactions::claim(
                &mut conn,
                &self.tenant,
                &self.id,
                (services.leases.request, services.process),
            )
            .await?
            {
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
        let claim = held(services, self.tenant.clone(), self.id.clone(), since);
        let drafted = async {
            let mut request = self;
            let gathered = gather::gather(services, &mut request, &stored).await?;
            write::write(services, request, stored, gathered, started).await
        };
        match drafted.await {
            Ok(mut prepared) => {
                // Spent is spent, whatever becomes of the ledger row. Trued
                // up here, before the connection that records it is taken:
                // a second connection taken while holding one is how a
                // pool runs dry under load (each holder waits for another).
                let attempt = &prepared.attempt;
                let spent = (attempt.upstream_input_tokens, attempt.upstream_output_tokens);
                let calls = u64::from(attempt.upstream_calls.unwrap_or(0));
                services
                    .true_up(&prepared.tenant, prepared.reserved, spent, calls)
                    .await;
                prepared.claim = Some(claim);
                prepared.claimed_since = Some(since);
                Ok(prepared)
            }
            Err(refusal) => {
                claim.settle(false).await;
                Err(refusal)
            }
        }
    }
}

/// The conversation's lease, taken at `since`: unless the compaction it was
/// taken for is recorded (which ends it), it goes back, or the conversation
/// would answer "busy" until the lease lapses. A lease given back late never
/// frees one taken since.
fn held(
    services: &Services,
    tenant: TenantId,
    id: ConversationId,
    since: chrono::DateTime<chrono::Utc>,
) -> lease::Held {
    let pool = services.pool.clone();
    lease::Held::new("a compaction's claim", services.leases.request, move || {
        let (pool, tenant, id) = (pool.clone(), tenant.clone(), id.clone());
        async move {
            let mut conn = pool.acquire().await?;
            compactions::release(&mut conn, &tenant, &id, since).await
        }
    })
}

impl Staged for Drafted {
    type Answer = Summarized;

    async fn apply(self, services: &Services, conn: &mut PgConnection) -> AppResult<Summarized> {
        let (recorded, stored) = match record::record(conn, &self, &services.prices).await? {
            Ok(recorded) => recorded,
            Err(NotRecorded::Deleted) => {
                return Err(Refusal::NotFound(format!(
                    "conversation {:?} was deleted while its summary was written",
                    self.id.as_str()
                )));
            }
            Err(NotRecorded::TakenOver) => {
                return Err(Refusal::Conflict(
                    "another request took this compaction over while this one could not reach the database; \
                     its summary is the one recorded"
                        .to_owned(),
                ));
            }
        };
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

    fn take_lease(&mut self) -> Option<lease::Held> {
        self.claim.take()
    }
}
