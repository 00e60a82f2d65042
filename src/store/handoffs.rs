//! Rollovers (SPEC §3, /handoff): the successor is created with its lineage,
//! the predecessor points at it, and both logs say so; or the user declined.

use chrono::{DateTime, Utc};
use serde_json::json;
use sqlx::{Connection, PgConnection};

use super::StoreResult;
use super::events::EventKind;
use super::row::conversation_columns;
use super::state::{STATE_COLUMNS, bind_state};
use super::statements::{self, on};
use crate::domain::{ConversationId, TenantId};
use crate::policy::Conversation;
use crate::records::StoredConversation;

/// Why a rollover could not be recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotRolled {
    Missing,
    /// The successor id names a conversation that is not this one's successor.
    SuccessorTaken,
}

/// The user carried on over a rollover: writes the state the use case gave
/// (the policy's `rollover_declined`) to the conversation it locked, and its
/// event, inside the caller's transaction.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn decline(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    at: DateTime<Utc>,
    state: &Conversation,
) -> StoreResult<StoredConversation> {
    let sql = format!(
        "WITH c AS (
           UPDATE conversations SET ({STATE_COLUMNS}) = ($4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21),
                  last_event_seq = last_event_seq + 1, updated_at = now(), active_on = (now() AT TIME ZONE 'UTC')::date
            WHERE tenant = $1 AND conversation_id = $2
           RETURNING {columns}
         ), event AS (
           INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
           SELECT tenant, conversation_id, last_event_seq, $3, '{declined}', '{{}}'::jsonb FROM c
         )
         SELECT {columns} FROM c",
        declined = EventKind::RolloverDeclined,
        columns = conversation_columns!()
    );
    let row = bind_state(
        statements::query(&sql).bind(tenant.as_str()).bind(id.as_str()).bind(at),
        state,
    )
    .fetch_one(&mut *tx)
    .await?;
    StoredConversation::from_row(&row)
}

/// One conversation rolled over into its successor, with the handoff's
/// text and the bookmark it carries.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rollover<'a> {
    pub tenant: &'a TenantId,
    pub id: &'a ConversationId,
    pub successor: &'a ConversationId,
    pub at: DateTime<Utc>,
    pub text: &'a str,
    pub bookmark: Option<&'a str>,
}

/// Records the rollover in one transaction (a savepoint inside the
/// caller's); answers the predecessor as it is now.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn roll_over(
    conn: &mut PgConnection,
    rollover: Rollover<'_>,
) -> StoreResult<Result<StoredConversation, NotRolled>> {
    let Rollover {
        tenant,
        id,
        successor,
        at,
        ..
    } = rollover;
    let mut tx = conn.begin().await?;
    let exists = statements::query("SELECT 1 FROM conversations WHERE tenant = $1 AND conversation_id = $2 FOR UPDATE")
        .bind(tenant.as_str())
        .bind(id.as_str())
        .fetch_optional(&mut *tx)
        .await?;
    if exists.is_none() {
        return Ok(Err(NotRolled::Missing));
    }
    if let Err(not_rolled) = create_successor(&mut tx, tenant, id, successor, at).await? {
        return Ok(Err(not_rolled));
    }
    let predecessor = point_at_successor(&mut tx, rollover).await?;
    tx.commit().await?;
    Ok(Ok(predecessor))
}

/// Creates the successor, fresh, with its predecessor and its first event.
/// One that exists already will do if it names `id` as its predecessor (an
/// earlier try of this rollover made it); else its id is taken.
async fn create_successor(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    successor: &ConversationId,
    at: DateTime<Utc>,
) -> StoreResult<Result<(), NotRolled>> {
    let fresh = Conversation::new(at);
    let created = bind_state(
        statements::query(&format!(
            "INSERT INTO conversations (tenant, conversation_id, {STATE_COLUMNS}, predecessor_id, last_event_seq, last_turn_seq)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, 1, 0)
             ON CONFLICT (tenant, conversation_id) DO NOTHING
             RETURNING conversation_id"
        ))
        .bind(tenant.as_str())
        .bind(successor.as_str()),
        &fresh,
    )
    .bind(id.as_str())
    .fetch_optional(&mut *tx)
    .await?;
    if created.is_some() {
        statements::query(&format!(
            "INSERT INTO events (tenant, conversation_id, seq, at, kind, payload) VALUES ($1, $2, 1, $3, '{}', $4)",
            EventKind::Handoff
        ))
        .bind(tenant.as_str())
        .bind(successor.as_str())
        .bind(at)
        .bind(json!({"predecessor_id": id.as_str(), "role": "successor"}))
        .execute(&mut *tx)
        .await?;
    } else {
        let predecessor: Option<String> = statements::query_scalar(
            "SELECT predecessor_id FROM conversations WHERE tenant = $1 AND conversation_id = $2",
        )
        .bind(tenant.as_str())
        .bind(successor.as_str())
        .fetch_one(&mut *tx)
        .await?;
        if predecessor.as_deref() != Some(id.as_str()) {
            return Ok(Err(NotRolled::SuccessorTaken));
        }
    }
    Ok(Ok(()))
}

/// Points the predecessor at its successor and logs the handoff with its
/// text; answers the predecessor as it is now.
async fn point_at_successor(tx: &mut PgConnection, rollover: Rollover<'_>) -> StoreResult<StoredConversation> {
    let Rollover {
        tenant,
        id,
        successor,
        at,
        text,
        bookmark,
    } = rollover;
    let row = statements::query(&format!(
        "WITH c AS (
           UPDATE conversations SET successor_id = $3, pending_decision = NULL,
                  last_event_seq = last_event_seq + 1, updated_at = now(), active_on = (now() AT TIME ZONE 'UTC')::date
            WHERE tenant = $1 AND conversation_id = $2
           RETURNING {columns}
         ), event AS (
           INSERT INTO events (tenant, conversation_id, seq, at, kind, payload)
           SELECT tenant, conversation_id, last_event_seq, $4, '{}', $5 FROM c
         )
         SELECT {columns} FROM c",
        EventKind::Handoff,
        columns = conversation_columns!()
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(successor.as_str())
    .bind(at)
    .bind(json!({"successor_id": successor.as_str(), "bookmark": bookmark, "text": text, "role": "predecessor"}))
    .fetch_one(&mut *tx)
    .await?;
    StoredConversation::from_row(&row)
}

/// What the handoff from a conversation to its successor recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorded {
    pub text: Option<String>,
    pub bookmark: Option<String>,
}

/// The handoff from `id` to `successor`, if one was made.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn recorded(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    successor: &str,
) -> StoreResult<Option<Recorded>> {
    let row: Option<(Option<String>, Option<String>)> = statements::query_as(&format!(
        "SELECT payload->>'text', payload->>'bookmark' FROM events
          WHERE tenant = $1 AND conversation_id = $2 AND kind = '{}'
            AND payload->>'role' = 'predecessor' AND payload->>'successor_id' = $3
          ORDER BY seq DESC LIMIT 1",
        EventKind::Handoff
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(successor)
    .fetch_optional(on(conn))
    .await?;
    Ok(row.map(|(text, bookmark)| Recorded { text, bookmark }))
}
