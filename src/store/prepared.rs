//! Summaries prepared ahead (issue 12), as a compaction and the idle sweep
//! meet them: the written one a compaction may merge, and how open ones
//! close (used, wasted or dropped, with the reason) when a compaction is
//! recorded, the conversation rolls over, or nobody used them for a day.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};

use super::lease::lapsed;
use super::statements::{self, on};
use super::{StoreError, StoreResult, count_of};
use crate::domain::{ConversationId, TenantId};
use crate::policy::prepare::{Covered, Reason, Status};

/// A written preparation, as a compaction may merge it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ready {
    pub seq: i64,
    pub planned_at: DateTime<Utc>,
    pub covered: Covered,
    pub message_tokens: Vec<u64>,
    pub anchor_tokens: u64,
    pub narrative: String,
    pub model: Option<String>,
}

/// A written preparation's row as [`ready`] reads it.
#[derive(sqlx::FromRow)]
struct ReadyRow {
    seq: i64,
    planned_at: DateTime<Utc>,
    boundary_turn_seq: i64,
    anchor_seq: Option<i64>,
    messages: i32,
    fingerprint: Vec<u8>,
    message_tokens: Vec<i64>,
    anchor_tokens: i64,
    narrative: String,
    model: Option<String>,
}

impl TryFrom<ReadyRow> for Ready {
    type Error = StoreError;

    fn try_from(row: ReadyRow) -> Result<Self, StoreError> {
        Ok(Self {
            seq: row.seq,
            planned_at: row.planned_at,
            covered: Covered {
                boundary_turn: row.boundary_turn_seq,
                anchor_seq: row.anchor_seq,
                messages: usize::try_from(row.messages).unwrap_or(0),
                fingerprint: row
                    .fingerprint
                    .try_into()
                    .map_err(|_| StoreError::Corrupt("a preparation's fingerprint".to_owned()))?,
            },
            message_tokens: row.message_tokens.into_iter().map(count_of).collect(),
            anchor_tokens: count_of(row.anchor_tokens),
            narrative: row.narrative,
            model: row.model,
        })
    }
}

/// The conversation's written preparation waiting for a compaction, if any.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn ready(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<Ready>> {
    let row = statements::query_as::<ReadyRow>(
        "SELECT seq, planned_at, boundary_turn_seq, anchor_seq, messages, fingerprint, message_tokens,
                anchor_tokens, narrative, model
           FROM preparations WHERE tenant = $1 AND conversation_id = $2 AND status = 'ready'
          ORDER BY seq DESC LIMIT 1",
    )
    .bind(tenant)
    .bind(id)
    .fetch_optional(on(&mut *conn))
    .await?;
    row.map(Ready::try_from).transpose()
}

/// How a conversation's open preparations close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Closing {
    /// The one a compaction used (by seq), and that compaction's seq.
    pub used: Option<(i64, i64)>,
    /// Why a written one not used ends wasted…
    pub wasted: Reason,
    /// …and why one not written yet ends dropped.
    pub dropped: Reason,
}

impl Closing {
    /// A rollover: whatever was prepared, the predecessor is not compacted.
    pub(crate) const ROLLED_OVER: Self = Self {
        used: None,
        wasted: Reason::RolledOver,
        dropped: Reason::RolledOver,
    };

    /// A compaction recorded: it used `used`, or none for `wasted`; one not
    /// written yet came too late.
    pub(crate) fn compacted(used: Option<(i64, i64)>, wasted: Reason) -> Self {
        Self {
            used,
            wasted,
            dropped: Reason::CompactedFirst,
        }
    }
}

/// Closes every open preparation of the conversation, inside the caller's
/// transaction (which holds its row): a compaction recorded, or a rollover.
/// Answers the reasons of those wasted, for the metrics.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn close(
    tx: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    closing: Closing,
) -> StoreResult<Vec<Reason>> {
    let (used, by) = closing.used.unzip();
    let rows = statements::query(
        "UPDATE preparations
            SET status = CASE WHEN seq = $3 THEN 'used' WHEN status = 'ready' THEN 'wasted' ELSE 'dropped' END,
                reason = CASE WHEN seq = $3 THEN NULL WHEN status = 'ready' THEN $5 ELSE $6 END,
                used_by_seq = CASE WHEN seq = $3 THEN $4 END,
                closed_at = now()
          WHERE tenant = $1 AND conversation_id = $2 AND status IN ('planned', 'ready')
         RETURNING status, reason",
    )
    .bind(tenant)
    .bind(id)
    .bind(used)
    .bind(by)
    .bind(closing.wasted)
    .bind(closing.dropped)
    .fetch_all(&mut *tx)
    .await?;
    let mut wasted = Vec::new();
    for row in &rows {
        let status: Status = row.try_get("status")?;
        if status == Status::Wasted {
            wasted.push(row.try_get("reason")?);
        }
    }
    Ok(wasted)
}

/// Written preparations nobody used for `left_for` are wasted (`expired`),
/// each announced on `compactd_background` as `…/preparation_expired`;
/// answers how many.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn expire(conn: &mut PgConnection, left_for: Duration) -> StoreResult<u64> {
    // A written preparation is a lease nobody took up: it lapses as one.
    let expired: i64 = statements::query_scalar(concat!(
        "WITH expired AS (
           UPDATE preparations SET status = 'wasted', reason = 'expired', closed_at = now()
            WHERE status = 'ready' AND ",
        lapsed!("written_at", "1"),
        "
           RETURNING tenant, conversation_id
         ), told AS (
           SELECT pg_notify('compactd_background', tenant || '/' || conversation_id || '/preparation_expired')
             FROM expired
         )
         SELECT count(*) FROM told"
    ))
    .bind(left_for)
    .fetch_one(on(&mut *conn))
    .await?;
    Ok(count_of(expired))
}
