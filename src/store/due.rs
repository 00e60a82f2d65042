//! Candidates for `GET /due`: an indexed scan that over-approximates the
//! policy's conditions, so the policy itself has the last word on each one.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::row::conversation_columns;
use super::statements::{self, on};
use super::{StoreResult, db_count};
use crate::domain::TenantId;
use crate::policy::{CacheLife, PolicyConfig};
use crate::records::StoredConversation;

/// Where a page of candidates ends: the next page starts after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub last_turn_at: DateTime<Utc>,
    pub conversation_id: String,
}

/// Conversations whose one-hour cache expires within the idle lead of `at`,
/// large enough and not yet compacted while idle; oldest last turn first.
/// `None` for the tenant: every tenant's (the idle sweep).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn idle_candidates(
    conn: &mut PgConnection,
    tenant: Option<&TenantId>,
    at: DateTime<Utc>,
    config: &PolicyConfig,
    after: Option<&Position>,
    limit: i64,
) -> StoreResult<Vec<StoredConversation>> {
    let hour = CacheLife::OneHour.duration();
    let rows = statements::query(concat!(
        "SELECT ",
        conversation_columns!(),
        " FROM conversations
                    WHERE ($1::text IS NULL OR tenant = $1)
            AND last_turn_at > $2 AND last_turn_at <= $3
            AND used >= $4 AND NOT idle_compacted AND successor_id IS NULL
            AND COALESCE(cache_life, $5) = 'one_hour'
            AND ($6::timestamptz IS NULL OR (last_turn_at, conversation_id) > ($6, $7))
          ORDER BY last_turn_at, conversation_id
          LIMIT $8"
    ))
    .bind(tenant.map(TenantId::as_str))
    .bind(at - hour)
    .bind(at - (hour - config.idle_lead))
    .bind(db_count(config.large_context_tokens))
    .bind(config.default_cache_life.as_str())
    .bind(after.map(|p| p.last_turn_at))
    .bind(after.map(|p| p.conversation_id.as_str()))
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    rows.iter().map(StoredConversation::from_row).collect()
}

/// Conversations whose next message should start a new one: a large context
/// gone cold, or a long absence after many compactions.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn next_message_candidates(
    conn: &mut PgConnection,
    tenant: &TenantId,
    at: DateTime<Utc>,
    config: &PolicyConfig,
    after: Option<&Position>,
    limit: i64,
) -> StoreResult<Vec<StoredConversation>> {
    let rows = statements::query(concat!(
        "SELECT ",
        conversation_columns!(),
        " FROM conversations
          WHERE tenant = $1
            AND last_turn_at IS NOT NULL AND NOT rollover_declined AND successor_id IS NULL
            AND ((used >= $2 AND last_turn_at <= $3 - CASE COALESCE(cache_life, $4)
                                                        WHEN 'one_hour' THEN $5 ELSE $6 END)
                 OR (compactions >= $7 AND last_turn_at <= $3 - $8))
            AND ($9::timestamptz IS NULL OR (last_turn_at, conversation_id) > ($9, $10))
          ORDER BY last_turn_at, conversation_id
          LIMIT $11"
    ))
    .bind(tenant.as_str())
    .bind(db_count(config.large_context_tokens))
    .bind(at)
    .bind(config.default_cache_life.as_str())
    .bind(CacheLife::OneHour.duration())
    .bind(CacheLife::FiveMinutes.duration())
    .bind(db_count(config.long_away_compactions))
    .bind(config.long_away)
    .bind(after.map(|p| p.last_turn_at))
    .bind(after.map(|p| p.conversation_id.as_str()))
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    rows.iter().map(StoredConversation::from_row).collect()
}
