//! How much a deletion took away: what its audit line keeps, and what the
//! API answers with (one type, so the two cannot drift apart).

use serde::Serialize;
use utoipa::ToSchema;

/// What a deletion took away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
// The name the API gave it before the audit's counts served as its answer.
#[schema(as = DeletedCounts)]
pub(crate) struct Erased {
    pub conversations: u64,
    pub turns: u64,
    /// Its log's events (those /stats counts stay, content-free and
    /// attached to no conversation).
    pub events: u64,
    pub keep_items: u64,
    pub preparations: u64,
    /// Answers kept for Idempotency-Keys of requests about it.
    pub idempotency_keys: u64,
    /// Ledger rows kept without their summary, error or conversation id, so
    /// the fleet's figures stay right.
    #[serde(rename = "ledger_rows_emptied")]
    pub compactions: u64,
}
