//! Deleting conversations (SPEC §3, issue 25): their content goes in the
//! caller's one transaction, and an audit line says who deleted how much.
//!
//! What /stats counts stays, without content, under a tombstone: a ledger
//! row keeps its counts, trigger and tokens (its summary and error go), and
//! a compact or rollover decision, a rollover and a declined rollover keep
//! only their kind. The tombstone is `DEL` (U+007F) then `deleted` and a
//! random UUID: every conversation id a caller can send is refused for a
//! control character (`domain::ConversationId`), so no conversation read can
//! ever reach these rows, and no row names what is gone.
//!
//! Lock order: the conversations' rows first, in id order (as every writer,
//! `races.rs`), then their turns, keep items and the rest.

use sha2::{Digest, Sha256};
use sqlx::{PgConnection, Row};

use super::StoreResult;
use super::events::{self, EventKind};
use super::statements::{self, on};
use crate::domain::{ConversationId, TenantId};

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

/// How much a deletion took away.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Erased {
    pub conversations: u64,
    pub turns: u64,
    pub events: u64,
    pub keep_items: u64,
    pub preparations: u64,
    pub idempotency_keys: u64,
    /// Ledger rows kept without their content.
    pub compactions: u64,
}

/// The SHA-256 an audit line keeps of a conversation id.
pub(crate) fn id_hash(id: &str) -> Vec<u8> {
    Sha256::digest(id.as_bytes()).to_vec()
}

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

/// Deletes the content of the (locked) conversations `ids`, and every
/// reference the rest of their lineage makes to them (links, handoff
/// events, keep items' places): rows of the conversations linked to them,
/// however far, found by their keys, never by reading the whole tenant.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn erase(conn: &mut PgConnection, tenant: &TenantId, ids: &[String]) -> StoreResult<Erased> {
    // Before the links go: what is linked to them now.
    let lineage: Vec<String> = statements::query_scalar(&format!(
        "WITH RECURSIVE {LINEAGE} SELECT id FROM lineage WHERE NOT id = ANY($2)"
    ))
    .bind(tenant.as_str())
    .bind(ids)
    .fetch_all(on(&mut *conn))
    .await?;
    let mut erased = Erased::default();
    let mut run = async |sql: &str| -> StoreResult<u64> {
        let done = statements::query(sql)
            .bind(tenant.as_str())
            .bind(ids)
            .execute(on(&mut *conn))
            .await?;
        Ok(done.rows_affected())
    };
    erased.turns = run("DELETE FROM turns WHERE tenant = $1 AND conversation_id = ANY($2)").await?;
    erased.keep_items = run("DELETE FROM keep_items WHERE tenant = $1 AND conversation_id = ANY($2)").await?;
    erased.preparations = run("DELETE FROM preparations WHERE tenant = $1 AND conversation_id = ANY($2)").await?;
    // An answered request's key stays, without its answer or its
    // conversation, so that a retry of it is told the conversation is gone
    // rather than applied again (SPEC §3). A tombstone the key left before
    // (an earlier conversation deleted, its key used again) gives way. A
    // request still running keeps its claim (it holds no content): what it
    // does, it does to the conversation anew.
    run(&format!(
        "DELETE FROM idempotency_keys gone USING idempotency_keys k
          WHERE k.tenant = $1 AND k.conversation_id = ANY($2) AND k.status IS NOT NULL
            AND gone.tenant = k.tenant AND gone.key = {}",
        super::idempotency::tombstone_sql("k.key")
    ))
    .await?;
    erased.idempotency_keys = run(&format!(
        "UPDATE idempotency_keys SET key = {}, status = {}, body = ''::bytea, conversation_id = NULL
          WHERE tenant = $1 AND conversation_id = ANY($2) AND status IS NOT NULL",
        super::idempotency::tombstone_sql("key"),
        super::idempotency::GONE_STATUS
    ))
    .await?;
    let counted: Vec<String> = events::counted()
        .into_iter()
        .map(|(_, counted)| format!("({counted})"))
        .collect();
    erased.events = run(&format!(
        "DELETE FROM events WHERE tenant = $1 AND conversation_id = ANY($2) AND NOT ({})",
        counted.join(" OR ")
    ))
    .await?;
    erased.events += run(&format!(
        "WITH tomb AS ({TOMBS})
         UPDATE events e SET conversation_id = tomb.id, payload = {}
           FROM tomb WHERE e.tenant = $1 AND e.conversation_id = tomb.gone",
        events::counted_payload()
    ))
    .await?;
    // What the conversations' latest compactions saved stays on the ledger.
    run(&super::compactions::close_savings("v.conversation_id = ANY($2)")).await?;
    erased.compactions = run(&format!(
        "WITH tomb AS ({TOMBS})
         UPDATE compactions c SET conversation_id = tomb.id, summary = NULL, error = NULL, deleted_at = now()
           FROM tomb WHERE c.tenant = $1 AND c.conversation_id = tomb.gone"
    ))
    .await?;
    erased.conversations = run("DELETE FROM conversations WHERE tenant = $1 AND conversation_id = ANY($2)").await?;
    if !lineage.is_empty() {
        forget_in(conn, tenant, ids, &lineage).await?;
    }
    Ok(erased)
}

/// What the rest of the lineage keeps of `ids`, it names them no more.
async fn forget_in(conn: &mut PgConnection, tenant: &TenantId, ids: &[String], lineage: &[String]) -> StoreResult<()> {
    let statements = [
        "UPDATE conversations
            SET predecessor_id = CASE WHEN predecessor_id = ANY($2) THEN NULL ELSE predecessor_id END,
                successor_id = CASE WHEN successor_id = ANY($2) THEN NULL ELSE successor_id END
          WHERE tenant = $1 AND conversation_id = ANY($3) AND (predecessor_id = ANY($2) OR successor_id = ANY($2))"
            .to_owned(),
        format!(
            "UPDATE events SET payload = payload - 'predecessor_id' - 'successor_id'
              WHERE tenant = $1 AND conversation_id = ANY($3) AND kind = '{handoff}'
                AND (payload->>'predecessor_id' = ANY($2) OR payload->>'successor_id' = ANY($2))",
            handoff = EventKind::Handoff
        ),
        "UPDATE keep_items
            SET first_seen = CASE WHEN first_seen->>'conversation_id' = ANY($2)
                                  THEN jsonb_set(first_seen, '{conversation_id}', '\"\"') ELSE first_seen END,
                last_seen = CASE WHEN last_seen->>'conversation_id' = ANY($2)
                                 THEN jsonb_set(last_seen, '{conversation_id}', '\"\"') ELSE last_seen END
          WHERE tenant = $1 AND conversation_id = ANY($3)
            AND (first_seen->>'conversation_id' = ANY($2) OR last_seen->>'conversation_id' = ANY($2))"
            .to_owned(),
    ];
    for sql in &statements {
        statements::query(sql)
            .bind(tenant.as_str())
            .bind(ids)
            .bind(lineage)
            .execute(on(&mut *conn))
            .await?;
    }
    Ok(())
}

/// `lineage(id)`: the conversations `$2` and every conversation of tenant
/// `$1` linked to them by handoffs, in either direction and however far
/// (UNION, not UNION ALL, stops at a conversation already reached, so a
/// cycle of links ends).
pub(crate) const LINEAGE: &str = "lineage(id) AS (
         SELECT unnest($2::text[])
         UNION
         SELECT linked FROM conversations c JOIN lineage l ON c.tenant = $1 AND c.conversation_id = l.id
              CROSS JOIN LATERAL unnest(ARRAY[c.predecessor_id, c.successor_id]) AS linked
          WHERE linked IS NOT NULL)";

/// `near(id)`: the conversations of tenant `$1` that `doomed(id)` links to.
pub(crate) const NEAR: &str = "near(id) AS (
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

/// The doomed ones among the rows [`lock_doomed_and_near`] locked.
pub(crate) fn doomed_of(rows: &[sqlx::postgres::PgRow]) -> StoreResult<Vec<String>> {
    let mut doomed = Vec::new();
    for row in rows {
        if row.try_get::<bool, _>("doomed")? {
            doomed.push(row.try_get("conversation_id")?);
        }
    }
    Ok(doomed)
}

/// A tombstone for each id of `$2`.
const TOMBS: &str = "SELECT gone, chr(127) || 'deleted ' || gen_random_uuid() AS id FROM unnest($2::text[]) AS gone";

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
    .map(super::db_count);
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
