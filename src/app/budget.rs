//! The one gate every upstream call passes (SPEC §6): a tenant's daily
//! upstream token budget. Summaries, scores and audits all ask it before
//! they call, and count what they spent after.

use chrono::NaiveDate;
use sqlx::PgConnection;

use crate::domain::TenantId;
use crate::store::{StoreResult, budget};

/// Upstream tokens each tenant may spend a day; `None`: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Budget {
    pub daily: Option<u64>,
}

/// Tokens of today's budget held for upstream calls while they run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Reservation {
    /// What the calls were expected to take: charged when the upstream
    /// does not say what they took.
    pub estimate: u64,
    /// What was held, and on which day (none with no daily limit).
    held: Option<(NaiveDate, u64)>,
}

/// What an upstream summary is expected to take: the transcript and the
/// prompt around it, and the most it may write.
pub(crate) fn summary_estimate(transcript_tokens: u64, max_output: u64) -> u64 {
    /// The instructions, the keep set's items and the chat framing.
    const PROMPT_TOKENS: u64 = 1_500;
    transcript_tokens
        .saturating_add(PROMPT_TOKENS)
        .saturating_add(max_output)
}

/// The tenant spent its budget for today: why no model was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spent(String);

impl Spent {
    pub(crate) fn reason(&self) -> &str {
        &self.0
    }
}

impl Budget {
    /// Whether the tenant may still call upstream today.
    pub(crate) async fn allows(&self, conn: &mut PgConnection, tenant: &TenantId) -> StoreResult<Result<(), Spent>> {
        let Some(daily) = self.daily else {
            return Ok(Ok(()));
        };
        let spent = budget::spent_today(conn, tenant).await?;
        if spent < daily {
            Ok(Ok(()))
        } else {
            Ok(Err(Spent(format!(
                "the tenant's daily upstream budget of {daily} tokens is spent"
            ))))
        }
    }

    /// Holds what a call about to be made is expected to take (`estimate`:
    /// its prompt and the output it may write) against today's budget, or
    /// says the budget is spent. Concurrent calls see each other's holds: the
    /// budget is overshot by one call at most.
    pub(crate) async fn reserve(
        &self,
        conn: &mut PgConnection,
        tenant: &TenantId,
        estimate: u64,
    ) -> StoreResult<Result<Reservation, Spent>> {
        let Some(daily) = self.daily else {
            return Ok(Ok(Reservation { estimate, held: None }));
        };
        let day = match daily {
            0 => None,
            _ => budget::reserve(conn, tenant, estimate, daily).await?,
        };
        if let Some(day) = day {
            Ok(Ok(Reservation {
                estimate,
                held: Some((day, estimate)),
            }))
        } else {
            Ok(Err(Spent(format!(
                "the tenant's daily upstream budget of {daily} tokens is spent"
            ))))
        }
    }

    /// Trues a reservation up: gives back what it held and counts what the
    /// calls took, as the upstream said, or the estimate where it said
    /// nothing (`calls`: how many were made; none, nothing is counted).
    pub(crate) async fn settle(
        &self,
        conn: &mut PgConnection,
        tenant: &TenantId,
        reservation: Reservation,
        (input, output): (Option<u64>, Option<u64>),
        calls: u64,
    ) -> StoreResult<()> {
        let spent = match input {
            _ if calls == 0 => (0, 0),
            Some(input) => (input, output.unwrap_or(0)),
            None => (reservation.estimate, 0),
        };
        budget::settle(conn, tenant, reservation.held, spent, calls).await
    }
}
