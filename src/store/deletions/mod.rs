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

mod audit;
mod lineage;

use sqlx::PgConnection;

use lineage::LINEAGE;

use super::StoreResult;
use super::events::{self, EventKind};
use super::statements::{self, on};
use crate::domain::TenantId;

pub(crate) use crate::records::Erased;
pub(crate) use audit::{DeletionKind, announce, record, was_deleted};
pub(crate) use lineage::{doomed_of, lock, lock_doomed_and_near};

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

/// A tombstone for each id of `$2`.
const TOMBS: &str = "SELECT gone, chr(127) || 'deleted ' || gen_random_uuid() AS id FROM unnest($2::text[]) AS gone";
