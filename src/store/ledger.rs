//! The compaction ledger read back: a conversation's attempts, the fleet's
//! history, and who wrote an anchor.

use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

use super::row::{SAVED, SavingsColumns, savings};
use super::statements::{self, on};
use super::{StoreResult, count_of};
use crate::domain::{ConversationId, HarnessName, TenantId};
use crate::policy::Trigger;
use crate::records::{FleetFilter, Recorded};
use crate::summary::Writer;
use crate::summary::keep::{KeepFigures, KeepKind, KindFigures};

/// The keep figures read back; kinds this version does not know are skipped.
fn keep_from_json(value: &serde_json::Value) -> KeepFigures {
    let by_kind = value["by_kind"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(kind, f)| {
            Some((
                KeepKind::parse(kind)?,
                serde_json::from_value::<KindFigures>(f.clone()).ok()?,
            ))
        })
        .collect();
    KeepFigures { by_kind }
}

pub(super) fn recorded(row: &PgRow) -> sqlx::Result<Recorded> {
    let count = |column: &str| row.try_get::<i64, _>(column).map(count_of);
    let optional = |column: &str| row.try_get::<Option<i64>, _>(column).map(|n| n.map(count_of));
    let small = |column: &str| row.try_get::<i32, _>(column).map(|n| count_of(n.into()));
    Ok(Recorded {
        id: row.try_get("id")?,
        conversation_id: row.try_get("conversation_id")?,
        seq: row.try_get("seq")?,
        at: row.try_get("at")?,
        trigger: row.try_get("trigger")?,
        by_host: row.try_get("by_host")?,
        idle: row.try_get("idle")?,
        summarizer: row.try_get("summarizer")?,
        model: row.try_get("model")?,
        tokens_before: count("tokens_before")?,
        tokens_after: count("tokens_after")?,
        tokens_saved: count("tokens_saved")?,
        percent_saved: count_of(row.try_get::<i16, _>("percent_saved")?.into()),
        total_messages: small("total_messages")?,
        user_messages: small("user_messages")?,
        assistant_messages: small("assistant_messages")?,
        tool_messages: small("tool_messages")?,
        kept_from: row.try_get::<Option<i32>, _>("kept_from")?.map(|n| count_of(n.into())),
        duration_ms: count("duration_ms")?,
        upstream_input_tokens: optional("upstream_input_tokens")?,
        upstream_output_tokens: optional("upstream_output_tokens")?,
        success: row.try_get("success")?,
        error: row.try_get("error")?,
        summary: row.try_get("summary")?,
        keep: row
            .try_get::<Option<serde_json::Value>, _>("keep")?
            .as_ref()
            .map(keep_from_json),
        prepared_age_ms: match row.try_get::<bool, _>("prepared")? {
            true => Some(optional("prepared_age_ms")?.unwrap_or(0)),
            false => None,
        },
        harness: row.try_get("harness")?,
        upstream_calls: row
            .try_get::<Option<i32>, _>("upstream_calls")?
            .map(|n| count_of(n.into())),
        fallback: row.try_get("fallback")?,
        recorded_at: row.try_get("recorded_at")?,
        cost_usd: row.try_get("cost_usd")?,
        savings: savings(row, SAVED)?.plus(savings(row, OPEN)?),
        saving: row.try_get("saving")?,
    })
}

/// A ledger row's savings still accruing on its conversation (zero once closed).
const OPEN: SavingsColumns = [
    "open_calls",
    "open_tokens",
    "open_usd",
    "open_rewrite_usd",
    "open_unpriced_calls",
];

/// The tenant's (`$1`) ledger rows as [`recorded`] reads them, as `k`, each
/// with the savings its conversation still accrues for it (SPEC §6); the
/// statement goes on with more of its condition.
macro_rules! ledger_rows {
    () => {
        concat!(
            "SELECT k.*, v.saving_seq IS NOT NULL AS saving, coalesce(v.saved_calls, 0) AS open_calls,
                    coalesce(v.saved_tokens, 0) AS open_tokens, coalesce(v.saved_usd, 0) AS open_usd,
                    coalesce(v.saved_rewrite_usd, 0) AS open_rewrite_usd,
                    coalesce(v.saved_unpriced_calls, 0) AS open_unpriced_calls
               FROM ",
            ledger_with_accruing!(),
            " WHERE k.tenant = $1 AND "
        )
    };
}

/// The ledger as `k` beside its conversations as `v`, each row joined to
/// the conversation still accruing savings for it (none once closed): every
/// read of savings adds `v`'s to `k`'s. A macro, for `concat!`.
macro_rules! ledger_with_accruing {
    () => {
        "compactions k LEFT JOIN conversations v
           ON v.tenant = k.tenant AND v.conversation_id = k.conversation_id AND v.saving_seq = k.seq"
    };
}
pub(super) use ledger_with_accruing;

/// Who wrote the summary of the conversation's compaction `seq`.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn writer_of(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    seq: i64,
) -> StoreResult<Option<Writer>> {
    Ok(statements::query_scalar(
        "SELECT summarizer FROM compactions WHERE tenant = $1 AND conversation_id = $2 AND seq = $3",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(seq)
    .fetch_optional(on(&mut *conn))
    .await?)
}

/// A conversation's attempts, newest first, before `before_seq`.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn of_conversation(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    before_seq: Option<i64>,
    limit: i64,
) -> StoreResult<Vec<Recorded>> {
    let rows = statements::query(concat!(
        ledger_rows!(),
        "k.conversation_id = $2 AND k.seq < COALESCE($3, 9223372036854775807)
          ORDER BY k.seq DESC LIMIT $4"
    ))
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(before_seq)
    .bind(limit)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows.iter().map(recorded).collect::<sqlx::Result<_>>()?)
}

/// The tenant's attempts across conversations, newest first by their time
/// (ties by the order they were recorded in).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn of_fleet(
    conn: &mut PgConnection,
    tenant: &TenantId,
    filter: &FleetFilter,
    limit: i64,
) -> StoreResult<Vec<Recorded>> {
    let rows = statements::query(concat!(
        ledger_rows!(),
        "k.deleted_at IS NULL
            AND ($2::text IS NULL OR k.trigger = $2)
            AND ($3::boolean IS NULL OR k.success = $3)
            AND ($4::timestamptz IS NULL OR k.at >= $4)
            AND ($5::timestamptz IS NULL OR k.at < $5)
            AND ($6::timestamptz IS NULL OR (k.at, k.id) < ($6, $7))
            AND ($9::text IS NULL OR k.harness = $9)
          ORDER BY k.at DESC, k.id DESC LIMIT $8"
    ))
    .bind(tenant.as_str())
    .bind(filter.trigger.map(Trigger::as_str))
    .bind(filter.success)
    .bind(filter.since)
    .bind(filter.until)
    .bind(filter.before.map(|cursor| cursor.at))
    .bind(filter.before.map(|cursor| cursor.id))
    .bind(limit)
    .bind(filter.harness.as_ref().map(HarnessName::as_str))
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows.iter().map(recorded).collect::<sqlx::Result<_>>()?)
}
