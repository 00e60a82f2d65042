//! The policy's state as columns of `conversations`: one list, bound in one
//! order, shared by every statement that writes a whole state.

use sqlx::Postgres;
use sqlx::postgres::PgArguments;
use sqlx::query::Query;

use super::db_count;
use crate::policy::{CacheLife, Conversation};

/// The state columns, in the order [`bind_state`] binds them (18 of them).
pub(crate) const STATE_COLUMNS: &str = "used, size, cache_life, cache_life_source, context_pressure_tokens, \
    created_at, last_turn_at, turns_since_compaction, compactions, host_compactions_24h, \
    used_after_compaction, idle_compacted, rollover_declined, total_user_messages, \
    user_messages_since_boundary, runs_completed_since_boundary, user_messages_since_run_completed, \
    failed_compactions_in_row";

/// Binds `state` as the next 18 parameters, in [`STATE_COLUMNS`] order.
pub(crate) fn bind_state<'q>(
    query: Query<'q, Postgres, PgArguments>,
    state: &'q Conversation,
) -> Query<'q, Postgres, PgArguments> {
    query
        .bind(db_count(state.used))
        .bind(db_count(state.size))
        .bind(state.cache_life.life().map(CacheLife::as_str))
        .bind(state.cache_life.source())
        .bind(state.context_pressure_tokens.map(db_count))
        .bind(state.created_at)
        .bind(state.last_turn_at)
        .bind(db_count(state.turns_since_compaction))
        .bind(db_count(state.compactions))
        .bind(&state.host_compactions_24h)
        .bind(state.used_after_compaction.map(db_count))
        .bind(state.idle_compacted)
        .bind(state.rollover_declined)
        .bind(db_count(state.total_user_messages))
        .bind(db_count(state.user_messages_since_boundary))
        .bind(db_count(state.runs_completed_since_boundary))
        .bind(db_count(state.user_messages_since_run_completed))
        .bind(db_count(state.failed_compactions_in_row))
}
