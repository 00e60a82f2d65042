//! Which conversations a deletion takes: one, or its whole lineage (every
//! conversation linked to it by handoffs), locked with the conversations
//! they link to, in id order.

use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgConnection};

use crate::domain::{ConversationId, TenantId};
use crate::store::StoreResult;
use crate::store::statements::{self, on};

/// The conversation and, with `lineage`, every conversation linked to it
/// by a handoff, in either direction and however far, that the tenant has;
/// locked with the conversations they link to, in id order. Empty when the
/// tenant has no such conversation.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn lock(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    lineage: bool,
) -> StoreResult<Vec<String>> {
    // The chain is walked only when asked for: a lone deletion locks the
    // conversation and its neighbours without following every link.
    let doomed = if lineage {
        format!("{LINEAGE}, doomed(id) AS (SELECT id FROM lineage)")
    } else {
        "doomed(id) AS (SELECT unnest($2::text[]))".to_owned()
    };
    let rows = statements::query(&lock_doomed_and_near(&doomed))
        .bind(tenant.as_str())
        .bind([id.as_str()])
        .fetch_all(on(&mut *conn))
        .await?;
    doomed_of(&rows)
}

/// `lineage(id)`: the conversations `$2` and every conversation of tenant
/// `$1` linked to them by handoffs, in either direction and however far
/// (UNION, not UNION ALL, stops at a conversation already reached, so a
/// cycle of links ends).
pub(super) const LINEAGE: &str = "lineage(id) AS (
         SELECT unnest($2::text[])
         UNION
         SELECT linked FROM conversations c JOIN lineage l ON c.tenant = $1 AND c.conversation_id = l.id
              CROSS JOIN LATERAL unnest(ARRAY[c.predecessor_id, c.successor_id]) AS linked
          WHERE linked IS NOT NULL)";

/// `near(id)`: the conversations of tenant `$1` that `doomed(id)` links to.
const NEAR: &str = "near(id) AS (
         SELECT linked FROM conversations c JOIN doomed d ON c.tenant = $1 AND c.conversation_id = d.id
              CROSS JOIN LATERAL unnest(ARRAY[c.predecessor_id, c.successor_id]) AS linked
          WHERE linked IS NOT NULL)";

/// Locks the conversations `doomed(id)` (defined before it) and those they
/// link to, together in id order (as every writer locks them, so no
/// deletion and no writer wait on each other in a cycle); answers the
/// doomed ones that exist.
pub(crate) fn lock_doomed_and_near(doomed: &str) -> String {
    format!(
        "WITH RECURSIVE {doomed}, {NEAR}
         SELECT conversation_id, conversation_id IN (SELECT id FROM doomed) AS doomed FROM conversations
          WHERE tenant = $1 AND (conversation_id IN (SELECT id FROM doomed) OR conversation_id IN (SELECT id FROM near))
          ORDER BY conversation_id FOR UPDATE"
    )
}

/// A row [`lock_doomed_and_near`] locked.
#[derive(sqlx::FromRow)]
struct Locked {
    conversation_id: String,
    doomed: bool,
}

/// The doomed ones among the rows [`lock_doomed_and_near`] locked (rows,
/// not [`Locked`], as a purge's batch locks them with a statement of its own).
pub(crate) fn doomed_of(rows: &[PgRow]) -> StoreResult<Vec<String>> {
    let mut doomed = Vec::new();
    for row in rows {
        let locked = Locked::from_row(row)?;
        if locked.doomed {
            doomed.push(locked.conversation_id);
        }
    }
    Ok(doomed)
}
