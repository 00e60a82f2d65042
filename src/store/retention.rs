//! Retention (`COMPACTD_RETENTION_DAYS`, issue 25): the conversations of
//! every tenant that nothing has touched for that long.

use std::collections::BTreeMap;
use std::time::Duration;

use sqlx::{PgConnection, Row};

use super::StoreResult;
use crate::domain::TenantId;

/// Up to `limit` conversations idle for `idle_for` (no turn, no request),
/// oldest activity first, locked, by tenant and in id order. One a request
/// holds is not idle: it is skipped, not waited for.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn lock_idle(
    conn: &mut PgConnection,
    idle_for: Duration,
    limit: i64,
) -> StoreResult<BTreeMap<TenantId, Vec<String>>> {
    // The index on the expression finds the candidates; `updated_at`, which
    // every write sets, is checked on them (an index of its own would cost
    // the hot path its HOT updates).
    let rows = sqlx::query(
        "SELECT tenant, conversation_id FROM conversations
          WHERE coalesce(last_turn_at, created_at) < now() - $1::interval AND updated_at < now() - $1::interval
          ORDER BY coalesce(last_turn_at, created_at) LIMIT $2 FOR UPDATE SKIP LOCKED",
    )
    .bind(idle_for)
    .bind(limit)
    .fetch_all(&mut *conn)
    .await?;
    let mut idle: BTreeMap<TenantId, Vec<String>> = BTreeMap::new();
    for row in &rows {
        idle.entry(row.try_get("tenant")?)
            .or_default()
            .push(row.try_get("conversation_id")?);
    }
    for ids in idle.values_mut() {
        ids.sort();
    }
    Ok(idle)
}
