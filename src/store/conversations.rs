//! The statements that apply /usage, /turn-ended and /decide to a conversation.
//!
//! Each write is one statement: an upsert that locks the row, applies the
//! transition and appends the event (and the turn) through data-modifying
//! CTEs. A first report inserts the state the policy computed for a fresh
//! conversation; later ones apply the same transition in SQL. The two are kept
//! equal by `tests/api/transitions.rs`.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::types::Json;
use sqlx::{PgConnection, Postgres};

use super::state::{STATE_COLUMNS, bind_state};
use super::{StoreResult, StoredConversation, db_count};
use crate::domain::{ConversationId, TenantId};
use crate::policy::{CacheLife, Conversation, ModelCall, PendingDecision, PolicyConfig, TurnEnd, UsageReport};

/// The columns of a fresh row, bound as `$1..=$23` by [`bind_fresh`].
static INSERT_FRESH: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT INTO conversations AS c (tenant, conversation_id, {STATE_COLUMNS}, last_call, last_event_seq, last_turn_seq)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
  ON CONFLICT (tenant, conversation_id) DO UPDATE SET"
    )
});

/// The row a conversation's first event creates: `state` after that event,
/// numbered as its first event (and first turn, when one is stored).
fn bind_fresh<'q>(
    sql: &'q str,
    tenant: &'q TenantId,
    id: &'q ConversationId,
    state: &'q Conversation,
    last_call: Option<Json<ModelCall>>,
    first_turn: bool,
) -> Query<'q, Postgres, PgArguments> {
    bind_state(sqlx::query(sql).bind(tenant.as_str()).bind(id.as_str()), state)
        .bind(last_call)
        .bind(1_i64)
        .bind(i64::from(first_turn))
}

/// `/usage`: `$24` used, `$25` size (0: unknown), `$26` a declared cache life,
/// `$27` at, `$28` input, `$29` cached_read, `$30`/`$31` the observation
/// window, `$32` context_pressure_tokens (0 clears), `$33` the event payload.
static RECORD_USAGE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH c AS ({}
    used_after_compaction = CASE
        WHEN c.compactions > 0 AND c.used_after_compaction IS NULL AND c.turns_since_compaction = 0 THEN $24
        ELSE c.used_after_compaction END,
    used = $24,
    size = CASE WHEN $25 > 0 THEN $25 ELSE c.size END,
    cache_life = CASE
        WHEN $26::text IS NOT NULL THEN $26
        WHEN c.cache_life_source = 'declared' THEN c.cache_life
        ELSE COALESCE(compactd_observed_cache_life($27 - c.last_turn_at, $28, $29, $30, $31), c.cache_life) END,
    cache_life_source = CASE
        WHEN $26::text IS NOT NULL OR c.cache_life_source = 'declared' THEN 'declared'
        WHEN compactd_observed_cache_life($27 - c.last_turn_at, $28, $29, $30, $31) IS NOT NULL THEN 'observed'
        ELSE c.cache_life_source END,
    context_pressure_tokens = CASE
        WHEN $32::bigint IS NULL THEN c.context_pressure_tokens
        WHEN $32 = 0 THEN NULL
        ELSE $32 END,
    last_call = COALESCE(EXCLUDED.last_call, c.last_call),
    last_event_seq = c.last_event_seq + 1,
    updated_at = now()
  RETURNING *
), event AS (
  INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
  SELECT tenant, conversation_id, last_event_seq, $27, 'usage', $33 FROM c
)
SELECT * FROM c",
        *INSERT_FRESH
    )
});

/// Applies a usage report; creates the conversation on first sight.
pub(crate) async fn record_usage(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    report: &UsageReport,
    at: DateTime<Utc>,
    config: &PolicyConfig,
) -> StoreResult<StoredConversation> {
    let mut fresh = Conversation::new(at);
    fresh.record_usage(report, at, config);
    let call = ModelCall::of(report).map(Json);
    let payload = json!({
        "used": report.used,
        "size": report.size,
        "input": report.input,
        "cached_read": report.cached_read,
        "cache_written": report.cache_written,
        "output": report.output,
        "cache_life": report.cache_life.map(CacheLife::as_str),
        "context_pressure_tokens": report.context_pressure_tokens,
    });
    let row = bind_fresh(&RECORD_USAGE, tenant, id, &fresh, call, false)
        .bind(db_count(report.used))
        .bind(db_count(report.size.unwrap_or(0)))
        .bind(report.cache_life.map(CacheLife::as_str))
        .bind(at)
        .bind(report.input.map(db_count))
        .bind(report.cached_read.map(db_count))
        .bind(config.observe_min_gap)
        .bind(config.observe_max_gap)
        .bind(report.context_pressure_tokens.map(db_count))
        .bind(payload)
        .fetch_one(&mut *conn)
        .await?;
    StoredConversation::from_row(&row)
}

/// `/turn-ended`: `$24` at, `$25` user messages, `$26` run completed, `$27`
/// whether a turn's text is stored, `$28`/`$29` the texts, `$30` the payload.
static END_TURN: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH c AS ({}
    last_turn_at = $24,
    turns_since_compaction = c.turns_since_compaction + 1,
    idle_compacted = false,
    rollover_declined = false,
    total_user_messages = c.total_user_messages + $25,
    user_messages_since_boundary = c.user_messages_since_boundary + $25,
    runs_completed_since_boundary = c.runs_completed_since_boundary + CASE WHEN $26 THEN 1 ELSE 0 END,
    user_messages_since_run_completed = CASE WHEN $26 THEN 0 ELSE c.user_messages_since_run_completed + $25 END,
    last_turn_seq = c.last_turn_seq + CASE WHEN $27 THEN 1 ELSE 0 END,
    last_event_seq = c.last_event_seq + 1,
    updated_at = now()
  RETURNING *
), turn AS (
  INSERT INTO turns (tenant, conversation_id, seq, at, user_messages, user_text, assistant_text)
  SELECT tenant, conversation_id, last_turn_seq, $24, $25, $28, $29 FROM c WHERE $27
), event AS (
  INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
  SELECT tenant, conversation_id, last_event_seq, $24, 'turn_ended',
         $30::jsonb || jsonb_build_object('turn_id', CASE WHEN $27 THEN last_turn_seq END)
  FROM c
)
SELECT * FROM c",
        *INSERT_FRESH
    )
});

/// What the user and the agent said in a turn, when the caller sent it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TurnText {
    pub user: Option<String>,
    pub assistant: Option<String>,
}

impl TurnText {
    fn is_empty(&self) -> bool {
        self.user.is_none() && self.assistant.is_none()
    }
}

/// Applies a turn's end and stores its text; answers the state and, when a
/// turn was stored, its id.
pub(crate) async fn end_turn(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    turn: &TurnEnd,
    text: TurnText,
    at: DateTime<Utc>,
) -> StoreResult<(StoredConversation, Option<i64>)> {
    let stores_turn = !text.is_empty();
    let mut fresh = Conversation::new(at);
    fresh.end_turn(turn, at);
    let payload = json!({
        "user_messages": turn.user_messages,
        "run_completed": turn.run_completed,
    });
    let row = bind_fresh(&END_TURN, tenant, id, &fresh, None, stores_turn)
        .bind(at)
        .bind(db_count(turn.user_messages))
        .bind(turn.run_completed)
        .bind(stores_turn)
        .bind(text.user)
        .bind(text.assistant)
        .bind(payload)
        .fetch_one(&mut *conn)
        .await?;
    let stored = StoredConversation::from_row(&row)?;
    let turn_id = stores_turn.then_some(stored.last_turn_seq);
    Ok((stored, turn_id))
}

/// The conversation, if the tenant has one by that id.
pub(crate) async fn find(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<StoredConversation>> {
    let row = sqlx::query("SELECT * FROM conversations WHERE tenant = $1 AND conversation_id = $2")
        .bind(tenant.as_str())
        .bind(id.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(StoredConversation::from_row).transpose()
}

/// The conversation, its row locked until the caller's transaction ends.
pub(crate) async fn lock(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<StoredConversation>> {
    let row = sqlx::query("SELECT * FROM conversations WHERE tenant = $1 AND conversation_id = $2 FOR UPDATE")
        .bind(tenant.as_str())
        .bind(id.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(StoredConversation::from_row).transpose()
}

/// Logs a non-keep decision and makes it the pending one; answers its event's
/// seq, or `None` when the conversation does not exist.
pub(crate) async fn record_decision(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    at: DateTime<Utc>,
    decision: &PendingDecision,
) -> StoreResult<Option<i64>> {
    let seq = sqlx::query_scalar(
        "WITH c AS (
           UPDATE conversations
              SET last_event_seq = last_event_seq + 1,
                  pending_decision = $4::jsonb || jsonb_build_object('event_seq', last_event_seq + 1),
                  updated_at = now()
            WHERE tenant = $1 AND conversation_id = $2
           RETURNING tenant, conversation_id, last_event_seq
         )
         INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
         SELECT tenant, conversation_id, last_event_seq, $3, 'decision', $4 FROM c
         RETURNING seq",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(at)
    .bind(Json(decision))
    .fetch_optional(&mut *conn)
    .await?;
    Ok(seq)
}
