//! The compaction ledger read back: a conversation's attempts, the fleet's
//! history, and who wrote an anchor.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::row::{Saved, savings};
use super::statements::{self, on};
use super::{StoreResult, count_of};
use crate::domain::{ConversationId, HarnessName, TenantId};
use crate::policy::{CompactionTrigger, Trigger};
use crate::records::{FleetFilter, Recorded, Savings};
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

/// A ledger row as `ledger_rows!` reads it (and as an insert returns it),
/// with the savings its conversation still accrues for it.
#[derive(sqlx::FromRow)]
pub(super) struct LedgerRow {
    id: i64,
    conversation_id: ConversationId,
    seq: i64,
    at: DateTime<Utc>,
    trigger: CompactionTrigger,
    by_host: bool,
    idle: bool,
    summarizer: Writer,
    model: Option<String>,
    tokens_before: i64,
    tokens_after: i64,
    tokens_saved: i64,
    percent_saved: i16,
    total_messages: i32,
    user_messages: i32,
    assistant_messages: i32,
    tool_messages: i32,
    kept_from: Option<i32>,
    duration_ms: i64,
    upstream_input_tokens: Option<i64>,
    upstream_output_tokens: Option<i64>,
    success: bool,
    error: Option<String>,
    summary: Option<String>,
    keep: Option<serde_json::Value>,
    prepared: bool,
    prepared_age_ms: Option<i64>,
    harness: Option<HarnessName>,
    upstream_calls: Option<i32>,
    fallback: Option<String>,
    recorded_at: DateTime<Utc>,
    cost_usd: Option<f64>,
    #[sqlx(flatten)]
    saved: Saved,
    #[sqlx(flatten)]
    open: Open,
    saving: bool,
}

/// A ledger row's savings still accruing on its conversation (zero once closed).
#[derive(sqlx::FromRow)]
struct Open {
    open_calls: i64,
    open_tokens: i64,
    open_usd: f64,
    open_rewrite_usd: f64,
    open_unpriced_calls: i64,
}

impl From<LedgerRow> for Recorded {
    fn from(row: LedgerRow) -> Self {
        let small = |n: i32| count_of(n.into());
        let open = row.open;
        let open = savings(
            open.open_calls,
            open.open_tokens,
            open.open_usd,
            open.open_rewrite_usd,
            open.open_unpriced_calls,
        );
        Self {
            id: row.id,
            conversation_id: row.conversation_id,
            seq: row.seq,
            at: row.at,
            trigger: row.trigger,
            by_host: row.by_host,
            idle: row.idle,
            summarizer: row.summarizer,
            model: row.model,
            tokens_before: count_of(row.tokens_before),
            tokens_after: count_of(row.tokens_after),
            tokens_saved: count_of(row.tokens_saved),
            percent_saved: count_of(row.percent_saved.into()),
            total_messages: small(row.total_messages),
            user_messages: small(row.user_messages),
            assistant_messages: small(row.assistant_messages),
            tool_messages: small(row.tool_messages),
            kept_from: row.kept_from.map(small),
            duration_ms: count_of(row.duration_ms),
            upstream_input_tokens: row.upstream_input_tokens.map(count_of),
            upstream_output_tokens: row.upstream_output_tokens.map(count_of),
            success: row.success,
            error: row.error,
            summary: row.summary,
            keep: row.keep.as_ref().map(keep_from_json),
            prepared_age_ms: row.prepared.then(|| row.prepared_age_ms.map_or(0, count_of)),
            harness: row.harness,
            upstream_calls: row.upstream_calls.map(small),
            fallback: row.fallback,
            recorded_at: row.recorded_at,
            cost_usd: row.cost_usd,
            savings: Savings::from(row.saved).plus(open),
            saving: row.saving,
        }
    }
}

/// The tenant's (`$1`) ledger rows as [`LedgerRow`] reads them, as `k`, each
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
    let rows = statements::query_as::<LedgerRow>(concat!(
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
    Ok(rows.into_iter().map(Recorded::from).collect())
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
    let rows = statements::query_as::<LedgerRow>(concat!(
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
    Ok(rows.into_iter().map(Recorded::from).collect())
}
