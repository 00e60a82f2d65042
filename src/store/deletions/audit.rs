//! A deletion's audit line: how it was asked for, by which key, how much it
//! took away, and the SHA-256 of each conversation id (never the id), so a
//! retry can be told the conversation it names is gone.

use sha2::{Digest, Sha256};
use sqlx::PgConnection;

use crate::domain::{ConversationId, TenantId};
use crate::records::Erased;
use crate::store::statements::{self, on};
use crate::store::{StoreResult, db_count};

/// How a deletion was asked for, as its audit line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeletionKind {
    /// One conversation.
    Conversation,
    /// A conversation with its predecessors and successors.
    Lineage,
    /// A batch of a tenant's purge.
    Purge,
    /// A batch of conversations idle past the retention.
    Retention,
}

impl DeletionKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Conversation => "conversation",
            Self::Lineage => "lineage",
            Self::Purge => "tenant",
            Self::Retention => "retention",
        }
    }
}

/// The SHA-256 an audit line keeps of a conversation id.
fn id_hash(id: &str) -> Vec<u8> {
    Sha256::digest(id.as_bytes()).to_vec()
}

/// Writes a deletion's audit line, and announces it.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn record(
    conn: &mut PgConnection,
    tenant: &TenantId,
    kind: DeletionKind,
    key_id: Option<&str>,
    ids: &[String],
    erased: &Erased,
) -> StoreResult<()> {
    let hashes: Vec<Vec<u8>> = ids.iter().map(|id| id_hash(id)).collect();
    let counts = [
        erased.conversations,
        erased.turns,
        erased.events,
        erased.keep_items,
        erased.preparations,
        erased.idempotency_keys,
        erased.compactions,
    ]
    .map(db_count);
    statements::query(
        "INSERT INTO deletions (tenant, kind, key_id, conversation_hashes, conversations, turns, events, keep_items,
                                preparations, idempotency_keys, compactions)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(tenant.as_str())
    .bind(kind.as_str())
    .bind(key_id)
    .bind(hashes)
    .bind(counts[0])
    .bind(counts[1])
    .bind(counts[2])
    .bind(counts[3])
    .bind(counts[4])
    .bind(counts[5])
    .bind(counts[6])
    .execute(on(&mut *conn))
    .await?;
    announce(conn, tenant, kind.as_str()).await
}

/// Says on `compactd_background`, when the transaction commits, that
/// `tenant` deleted something (`tenant/deleted/what`): what waits for a
/// deletion done in the background listens there.
pub(crate) async fn announce(conn: &mut PgConnection, tenant: &TenantId, what: &str) -> StoreResult<()> {
    statements::query("SELECT pg_notify('compactd_background', $1)")
        .bind(format!("{tenant}/deleted/{what}"))
        .execute(on(&mut *conn))
        .await?;
    Ok(())
}

/// Whether the tenant deleted a conversation with this id before.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn was_deleted(conn: &mut PgConnection, tenant: &TenantId, id: &ConversationId) -> StoreResult<bool> {
    let found: bool = statements::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM deletions WHERE tenant = $1 AND conversation_hashes @> ARRAY[$2::bytea])",
    )
    .bind(tenant.as_str())
    .bind(id_hash(id.as_str()))
    .fetch_one(on(&mut *conn))
    .await?;
    Ok(found)
}
