//! Applying /usage, /turn-ended and /decide to a conversation, and reading
//! it. The two hot-path writes are one statement each, written in
//! `transitions.rs`.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::PgConnection;
use sqlx::types::Json;

use super::events::EventKind;
use super::row::conversation_columns;
use super::statements::{self, on};
use super::transitions::{END_TURN, END_TURN_STORING_TEXT, RECORD_USAGE, bind_fresh};
use super::{StoreResult, db_count};
use crate::domain::{ConversationId, TenantId};
use crate::policy::{CacheLife, Conversation, ModelCall, PendingDecision, PolicyConfig, TurnEnd, UsageReport};
use crate::records::TurnText;
use crate::records::{CallPricing, StoredConversation};

/// Applies a usage report; creates the conversation on first sight.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn record_usage(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    report: &UsageReport,
    at: DateTime<Utc>,
    config: &PolicyConfig,
    pricing: &CallPricing,
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
        .bind(pricing.per_token.map(|(cached, _)| cached))
        .bind(pricing.per_token.map(|(_, fresh)| fresh))
        .bind(pricing.fresh_input.map(db_count))
        .bind(pricing.warm)
        .fetch_one(on(&mut *conn))
        .await?;
    StoredConversation::from_row(&row)
}

/// Applies a turn's end and stores its text; answers the state and, when a
/// turn was stored, its id.
#[tracing::instrument(level = "debug", skip_all)]
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
    let sql = if stores_turn { &END_TURN_STORING_TEXT } else { &END_TURN };
    let row = bind_fresh(sql, tenant, id, &fresh, None, stores_turn)
        .bind(at)
        .bind(db_count(turn.user_messages))
        .bind(turn.run_completed)
        .bind(stores_turn)
        .bind(text.user)
        .bind(text.assistant)
        .bind(payload)
        .fetch_one(on(&mut *conn))
        .await?;
    let stored = StoredConversation::from_row(&row)?;
    let turn_id = stores_turn.then_some(stored.last_turn_seq);
    Ok((stored, turn_id))
}

/// The conversation, if the tenant has one by that id.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn find(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<StoredConversation>> {
    let row = statements::query(concat!(
        "SELECT ",
        conversation_columns!(),
        " FROM conversations WHERE tenant = $1 AND conversation_id = $2"
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_optional(on(&mut *conn))
    .await?;
    row.as_ref().map(StoredConversation::from_row).transpose()
}

/// The conversation, its row locked until the caller's transaction ends.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn lock(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<StoredConversation>> {
    let row = statements::query(concat!(
        "SELECT ",
        conversation_columns!(),
        " FROM conversations WHERE tenant = $1 AND conversation_id = $2 FOR UPDATE"
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_optional(on(&mut *conn))
    .await?;
    row.as_ref().map(StoredConversation::from_row).transpose()
}

/// `/decide`'s write, its event kind named once: built on first use.
static RECORD_DECISION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH c AS (
           UPDATE conversations
              SET last_event_seq = last_event_seq + 1,
                  pending_decision = $4::jsonb || jsonb_build_object('event_seq', last_event_seq + 1),
                  updated_at = now(), active_on = (now() AT TIME ZONE 'UTC')::date
            WHERE tenant = $1 AND conversation_id = $2
           RETURNING tenant, conversation_id, last_event_seq
         )
         INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
         SELECT tenant, conversation_id, last_event_seq, $3, '{}', $4 FROM c
         RETURNING seq",
        EventKind::Decision
    )
});

/// Logs a non-keep decision and makes it the pending one; answers its event's
/// seq, or `None` when the conversation does not exist.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn record_decision(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    at: DateTime<Utc>,
    decision: &PendingDecision,
) -> StoreResult<Option<i64>> {
    let seq = statements::query_scalar(&RECORD_DECISION)
        .bind(tenant.as_str())
        .bind(id.as_str())
        .bind(at)
        .bind(Json(decision))
        .fetch_optional(on(&mut *conn))
        .await?;
    Ok(seq)
}

/// A conversation as a list shows it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub(crate) struct Listed {
    pub conversation_id: ConversationId,
    pub created_at: DateTime<Utc>,
    pub last_turn_at: Option<DateTime<Utc>>,
    pub last_turn_seq: i64,
    pub compactions: i64,
    pub used: i64,
    pub size: i64,
    pub predecessor_id: Option<ConversationId>,
    pub successor_id: Option<ConversationId>,
}

/// The tenant's conversations whose id starts with `prefix` (all for ""),
/// newest first, at most `limit`.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn newest(
    conn: &mut PgConnection,
    tenant: &TenantId,
    prefix: &str,
    limit: i64,
) -> StoreResult<Vec<Listed>> {
    // Every row meets it; stated, it lets these queries (and only these) use
    // the picker's partial indexes (migration 20261213000000).
    const PICKED: &str = "created_at > '-infinity'";
    const COLUMNS: &str = "conversation_id, created_at, last_turn_at, last_turn_seq, compactions, used, size, predecessor_id, successor_id";
    let rows = if prefix.is_empty() {
        statements::query_as::<Listed>(&format!(
            "SELECT {COLUMNS} FROM conversations WHERE tenant = $1 AND {PICKED} ORDER BY created_at DESC, conversation_id LIMIT $2"
        ))
        .bind(tenant.as_str())
        .bind(limit)
        .fetch_all(on(&mut *conn))
        .await?
    } else {
        // Every id with the prefix lies in [prefix, past): one index range
        // (past nothing only for a prefix of U+10FFFF alone).
        let (bound, past) = match past_prefix(prefix) {
            Some(past) => ("AND conversation_id COLLATE \"C\" < $3", past),
            None => ("AND $3 = ''", String::new()),
        };
        statements::query_as::<Listed>(&format!(
            "SELECT {COLUMNS} FROM conversations
             WHERE tenant = $1 AND {PICKED} AND conversation_id COLLATE \"C\" >= $2 {bound}
             ORDER BY created_at DESC, conversation_id LIMIT $4"
        ))
        .bind(tenant.as_str())
        .bind(prefix)
        .bind(past)
        .bind(limit)
        .fetch_all(on(&mut *conn))
        .await?
    };
    Ok(rows)
}

/// The least string past every string that starts with `prefix`, in byte
/// order: its last character that can be raised, raised (`None`: none can).
fn past_prefix(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let raised = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(raised) = raised {
            chars.push(raised);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::past_prefix;

    #[test]
    fn the_string_past_a_prefix_raises_its_last_character() {
        assert_eq!(past_prefix("replay-"), Some("replay.".to_owned()));
        assert_eq!(past_prefix("a\u{10FFFF}"), Some("b".to_owned()));
        assert_eq!(past_prefix("\u{10FFFF}"), None);
        // Byte order is code point order in UTF-8: past 'é' is 'ê'.
        assert_eq!(past_prefix("caf\u{e9}"), Some("caf\u{ea}".to_owned()));
    }
}
