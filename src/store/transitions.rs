//! The hot path's transitions, in SQL: `/usage` and `/turn-ended` are one
//! statement each — an upsert that locks the row, applies the policy's
//! transition and appends the event (and the turn) through data-modifying
//! CTEs — because one round trip a request is what keeps the hot path at its
//! throughput (bench/run). A first report inserts the state the policy's Rust
//! transition computed for a fresh conversation; a later one applies the same
//! transition in SQL, column by column as each statement's comment says.
//!
//! The parity test is `tests/api/transitions.rs`: it drives the policy and
//! these statements with 400 random reports and fails the moment they
//! disagree. Every other transition (a compaction, a declined rollover) is the
//! policy's own, applied by locking the row, transitioning and writing it.

use std::sync::LazyLock;

use sqlx::Postgres;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::types::Json;

use super::events::EventKind;
use super::row::conversation_columns;
use super::state::{STATE_COLUMNS, bind_state};
use super::statements;
use crate::domain::{ConversationId, TenantId};
use crate::policy::{Conversation, ModelCall};

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
pub(super) fn bind_fresh<'q>(
    sql: &'q str,
    tenant: &'q TenantId,
    id: &'q ConversationId,
    state: &'q Conversation,
    last_call: Option<Json<ModelCall>>,
    first_turn: bool,
) -> Query<'q, Postgres, PgArguments> {
    bind_state(statements::query(sql).bind(tenant.as_str()).bind(id.as_str()), state)
        .bind(last_call)
        .bind(1_i64)
        .bind(i64::from(first_turn))
}

/// `/usage`: `Conversation::record_usage`, in SQL. `$24` used, `$25` size (0:
/// unknown), `$26` a declared cache life, `$27` at, `$28` input, `$29`
/// cached_read, `$30`/`$31` the observation window, `$32`
/// context_pressure_tokens (0 clears), `$33` the event payload; what the
/// call's model charges a token of input read from the cache (`$34`) and
/// fresh (`$35`), both NULL when it has no price; `$36` the input the call
/// read fresh (NULL: it gave no counts), `$37` whether it read any from the
/// cache (NULL: unknown).
///
/// Column by column, what each mirrors in `policy/conversation.rs`:
/// - `used_after_compaction`: "the first report after a compaction shows what
///   it gained" (set once, while no turn has ended since the compaction);
/// - `used`: `self.used = report.used`;
/// - `size`: kept unless the report gives a size above 0;
/// - `cache_life`, `cache_life_source`: a declaration wins and stays; else
///   `observe_cache_life`, whose SQL twin is the migration's
///   `compactd_observed_cache_life` (`CacheLife::observed`: the pause within
///   the window, half the input read from cache for one hour);
/// - `context_pressure_tokens`: absent keeps it, 0 clears it, else sets it;
/// - `last_call` (not policy state): the report's counts, when it gave any;
/// - `saved_*` (not policy state): a call after a compaction saves what it
///   did not resend (SPEC §6), the token count saturating; in dollars as
///   `records::CallPricing::spared` says (its twin, unit-tested there).
pub(super) static RECORD_USAGE: LazyLock<String> = LazyLock::new(|| {
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
    saved_calls = c.saved_calls + CASE WHEN c.saving_seq IS NULL THEN 0 ELSE 1 END,
    saved_tokens = CASE
        WHEN c.saving_seq IS NULL THEN c.saved_tokens
        WHEN c.saved_tokens > 9223372036854775807 - c.saving_tokens THEN 9223372036854775807
        ELSE c.saved_tokens + c.saving_tokens END,
    saved_usd = c.saved_usd + CASE
        WHEN c.saving_seq IS NULL OR $34::float8 IS NULL THEN 0
        WHEN c.saved_calls = 0 AND c.saving_warm
          THEN c.saving_tokens * $34 - LEAST(COALESCE($36::bigint, c.saving_prefix), c.saving_prefix) * ($35::float8 - $34)
        WHEN c.saved_calls = 0 OR $37::boolean IS FALSE THEN c.saving_tokens * $35
        ELSE c.saving_tokens * $34 END,
    saved_rewrite_usd = c.saved_rewrite_usd + CASE
        WHEN c.saving_seq IS NULL OR $34 IS NULL OR c.saved_calls <> 0 OR NOT c.saving_warm THEN 0
        ELSE LEAST(COALESCE($36, c.saving_prefix), c.saving_prefix) * ($35 - $34) END,
    saved_unpriced_calls = c.saved_unpriced_calls + CASE WHEN c.saving_seq IS NULL OR $34 IS NOT NULL THEN 0 ELSE 1 END,
    last_event_seq = c.last_event_seq + 1,
    updated_at = now(), active_on = (now() AT TIME ZONE 'UTC')::date
  RETURNING {columns}
), event AS (
  INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
  SELECT tenant, conversation_id, last_event_seq, $27, '{usage}', $33 FROM c
)
SELECT {columns} FROM c",
        *INSERT_FRESH,
        usage = EventKind::Usage,
        columns = conversation_columns!()
    )
});

/// `/turn-ended`: `Conversation::end_turn`, in SQL. `$24` at, `$25` user
/// messages, `$26` run completed, `$27` whether a turn's text is stored,
/// `$28`/`$29` the texts, `$30` the payload.
///
/// Column by column, what each mirrors in `policy/conversation.rs`:
/// - `last_turn_at`: `Some(at)`;
/// - `turns_since_compaction`, `total_user_messages`,
///   `user_messages_since_boundary`: add one turn, and its user messages;
/// - `idle_compacted`, `rollover_declined`: a turn clears the quiet-spell flags;
/// - `runs_completed_since_boundary`, `user_messages_since_run_completed`: a
///   completed run counts and restarts the unfinished count, else the
///   unfinished count grows;
/// - `last_turn_seq` (not policy state): numbers the stored turn, if any.
///
/// (Postgres's `bigint` addition raises at 2^63 where the policy saturates:
/// out of reach, at most a million user messages a turn.)
///
/// Two statements, by whether a text is stored: a statement that names
/// `turns` at all pays for readying its search vector's expression on every
/// run, stored or not (6% of Postgres's time on the hot path's mix).
pub(super) static END_TURN: LazyLock<String> = LazyLock::new(|| end_turn(""));
pub(super) static END_TURN_STORING_TEXT: LazyLock<String> = LazyLock::new(|| {
    end_turn(
        "), turn AS (
  INSERT INTO turns (tenant, conversation_id, seq, at, user_messages, user_text, assistant_text)
  SELECT tenant, conversation_id, last_turn_seq, $24, $25, $28, $29 FROM c WHERE $27",
    )
});

fn end_turn(storing_text: &str) -> String {
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
    updated_at = now(), active_on = (now() AT TIME ZONE 'UTC')::date
  RETURNING {columns}
{storing_text}), event AS (
  INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
  SELECT tenant, conversation_id, last_event_seq, $24, '{turn_ended}',
         $30::jsonb || jsonb_build_object('turn_id', CASE WHEN $27 THEN last_turn_seq END)
  FROM c
)
SELECT {columns} FROM c",
        *INSERT_FRESH,
        turn_ended = EventKind::TurnEnded,
        columns = conversation_columns!()
    )
}
