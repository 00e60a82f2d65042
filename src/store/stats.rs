//! The numbers of GET /stats (SPEC §3): per trigger, the decisions, the
//! rollovers, the summaries prepared ahead, over a span of time.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::events;
use super::ledger::ledger_with_accruing;
use super::row::Saved;
use super::statements::{self, on};
use super::{StoreResult, count_of};
use crate::domain::TenantId;
use crate::policy::CompactionTrigger;
use crate::policy::prepare::{Reason, Status};
use crate::records::{DeletionStats, Money, PreparationStats, Stats, TriggerStats};

/// The events counted, one column each as [`events::counted`] names them.
#[derive(sqlx::FromRow)]
struct Logged {
    compact: i64,
    rollover: i64,
    rollovers: i64,
    declined_rollovers: i64,
}

#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn read(
    conn: &mut PgConnection,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> StoreResult<Stats> {
    let in_span = "($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)";
    let mut triggers = by_trigger(conn, tenant, since, until, in_span).await?;
    for (trigger, figures) in money(conn, tenant, since, until).await? {
        if let Some(stats) = triggers.iter_mut().find(|t| t.trigger == trigger) {
            stats.money = figures;
        }
    }
    // Each count is an index-only scan of a partial index of its own
    // (migration 7); the WHERE clauses must match those indexes' predicates.
    let counts: Vec<String> = events::counted()
        .iter()
        .map(|(name, counted)| {
            format!("(SELECT count(*) FROM events WHERE tenant = $1 AND {in_span} AND {counted}) AS {name}")
        })
        .collect();
    let logged = statements::query_as::<Logged>(&format!("SELECT {}", counts.join(", ")))
        .bind(tenant.as_str())
        .bind(since)
        .bind(until)
        .fetch_one(on(&mut *conn))
        .await?;
    let mut stats = Stats {
        triggers,
        rollovers: count_of(logged.rollovers),
        declined_rollovers: count_of(logged.declined_rollovers),
        ..Stats::default()
    };
    // Only non-keep decisions are logged (SPEC §3 /decide).
    for (decision, count) in [("compact", logged.compact), ("rollover", logged.rollover)] {
        let count = count_of(count);
        if count > 0 {
            stats.decisions.push((decision.to_owned(), count));
        }
    }
    stats.decisions.sort();
    stats.deletions = deletions(conn, tenant, since, until, in_span).await?;
    Ok(stats)
}

/// A trigger's compactions in the span, as [`by_trigger`] counts them.
#[derive(sqlx::FromRow)]
struct TriggerRow {
    trigger: String,
    count: i64,
    successes: i64,
    failures: i64,
    mean_percent_saved: Option<f64>,
    p50: Option<f64>,
    p95: Option<f64>,
    tokens_saved: i64,
}

impl From<TriggerRow> for TriggerStats {
    fn from(row: TriggerRow) -> Self {
        Self {
            trigger: row.trigger,
            count: count_of(row.count),
            successes: count_of(row.successes),
            failures: count_of(row.failures),
            mean_percent_saved: row.mean_percent_saved,
            p50_duration_ms: row.p50,
            p95_duration_ms: row.p95,
            tokens_saved: count_of(row.tokens_saved),
            money: Money::default(),
        }
    }
}

/// The span's compactions, by trigger: counts, savings and durations (their
/// money is filled in apart, by [`money`]).
async fn by_trigger(
    conn: &mut PgConnection,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    in_span: &str,
) -> StoreResult<Vec<TriggerStats>> {
    // One trigger at a time, each an index-only range scan of its own: grouping
    // the whole span instead sorts every row of it by trigger first, three
    // times slower at a million rows (bench/dashboard_reads).
    Ok(statements::query_as::<TriggerRow>(&format!(
        "SELECT t.trigger, s.* FROM unnest($4::text[]) AS t(trigger) CROSS JOIN LATERAL (
             SELECT count(*) AS count,
                    count(*) FILTER (WHERE success) AS successes,
                    count(*) FILTER (WHERE NOT success) AS failures,
                    avg(percent_saved) FILTER (WHERE success)::float8 AS mean_percent_saved,
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
                    percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95,
                    -- Callers may state any count up to 2^63 - 1: the sum saturates.
                    LEAST(coalesce(sum(tokens_saved) FILTER (WHERE success), 0), 9223372036854775807)::bigint
                      AS tokens_saved
               FROM compactions WHERE tenant = $1 AND trigger = t.trigger AND {in_span}) s
          WHERE s.count > 0
          ORDER BY t.trigger"
    ))
    .bind(tenant.as_str())
    .bind(since)
    .bind(until)
    .bind(CompactionTrigger::names().collect::<Vec<_>>())
    .fetch_all(on(&mut *conn))
    .await?
    .into_iter()
    .map(TriggerStats::from)
    .collect())
}

/// A trigger's money in the span, as [`money`] sums it.
#[derive(sqlx::FromRow)]
struct MoneyRow {
    trigger: String,
    cost_usd: f64,
    unpriced_summaries: i64,
    #[sqlx(flatten)]
    saved: Saved,
}

/// What the span's compactions cost and saved, by trigger: savings closed on
/// their ledger rows and those still accruing on their conversations.
async fn money(
    conn: &mut PgConnection,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> StoreResult<Vec<(String, Money)>> {
    let in_span = "($2::timestamptz IS NULL OR k.at >= $2) AND ($3::timestamptz IS NULL OR k.at < $3)";
    let rows = statements::query_as::<MoneyRow>(&format!(
        "SELECT k.trigger,
                coalesce(sum(k.cost_usd), 0)::float8 AS cost_usd,
                count(*) FILTER (WHERE k.cost_usd IS NULL) AS unpriced_summaries,
                LEAST(sum(k.saved_calls::numeric + coalesce(v.saved_calls, 0)), 9223372036854775807)::bigint AS saved_calls,
                LEAST(sum(k.saved_tokens::numeric + coalesce(v.saved_tokens, 0)), 9223372036854775807)::bigint AS saved_tokens,
                coalesce(sum(k.saved_usd + coalesce(v.saved_usd, 0)), 0)::float8 AS saved_usd,
                coalesce(sum(k.saved_rewrite_usd + coalesce(v.saved_rewrite_usd, 0)), 0)::float8 AS saved_rewrite_usd,
                LEAST(sum(k.saved_unpriced_calls::numeric + coalesce(v.saved_unpriced_calls, 0)), 9223372036854775807)::bigint
                  AS saved_unpriced_calls
           FROM {ledger}
          WHERE k.tenant = $1 AND {in_span}
          GROUP BY k.trigger",
        ledger = ledger_with_accruing!()
    ))
    .bind(tenant.as_str())
    .bind(since)
    .bind(until)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let money = Money {
                cost_usd: row.cost_usd,
                unpriced_summaries: count_of(row.unpriced_summaries),
                savings: row.saved.into(),
            };
            (row.trigger, money)
        })
        .collect())
}

/// A kind of deletion's audit lines in the span, as [`deletions`] sums them.
#[derive(sqlx::FromRow)]
struct DeletionRow {
    kind: String,
    deletions: i64,
    conversations: i64,
    turns: i64,
}

/// The audit lines of the span's deletions, by kind.
async fn deletions(
    conn: &mut PgConnection,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    in_span: &str,
) -> StoreResult<Vec<DeletionStats>> {
    let rows = statements::query_as::<DeletionRow>(&format!(
        "SELECT kind, count(*) AS deletions, sum(conversations)::bigint AS conversations, sum(turns)::bigint AS turns
           FROM deletions WHERE tenant = $1 AND {in_span} GROUP BY kind ORDER BY kind"
    ))
    .bind(tenant.as_str())
    .bind(since)
    .bind(until)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| DeletionStats {
            kind: row.kind,
            deletions: count_of(row.deletions),
            conversations: count_of(row.conversations),
            turns: count_of(row.turns),
        })
        .collect())
}

/// The span's preparations counted: in all, one column per [`Status`], and
/// their upstream tokens.
#[derive(sqlx::FromRow)]
struct Prepared {
    all_planned: i64,
    planned: i64,
    ready: i64,
    used: i64,
    wasted: i64,
    dropped: i64,
    input: i64,
    output: i64,
    prepared_compactions: i64,
}

#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn preparations(
    conn: &mut PgConnection,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> StoreResult<PreparationStats> {
    let in_span = |column: &str| {
        format!("($2::timestamptz IS NULL OR {column} >= $2) AND ($3::timestamptz IS NULL OR {column} < $3)")
    };
    // One count per status, named after it.
    let by_status: Vec<String> = Status::names()
        .map(|status| format!("count(*) FILTER (WHERE status = '{status}') AS {status}"))
        .collect();
    let row = statements::query_as::<Prepared>(&format!(
        "SELECT count(*) AS all_planned, {},
                LEAST(coalesce(sum(upstream_input_tokens), 0), 9223372036854775807)::bigint AS input,
                LEAST(coalesce(sum(upstream_output_tokens), 0), 9223372036854775807)::bigint AS output,
                (SELECT count(*) FROM compactions WHERE tenant = $1 AND prepared AND {}) AS prepared_compactions
           FROM preparations WHERE tenant = $1 AND {}",
        by_status.join(", "),
        in_span("at"),
        in_span("planned_at")
    ))
    .bind(tenant)
    .bind(since)
    .bind(until)
    .fetch_one(on(&mut *conn))
    .await?;
    let reasons = statements::query_as::<(Reason, i64)>(&format!(
        "SELECT reason, count(*) AS count FROM preparations
          WHERE tenant = $1 AND {} AND status = 'wasted' AND reason IS NOT NULL
          GROUP BY reason ORDER BY count DESC, reason",
        in_span("planned_at")
    ))
    .bind(tenant)
    .bind(since)
    .bind(until)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(PreparationStats {
        prepared_compactions: count_of(row.prepared_compactions),
        planned: count_of(row.all_planned),
        waiting: count_of(row.planned),
        ready: count_of(row.ready),
        used: count_of(row.used),
        wasted: count_of(row.wasted),
        dropped: count_of(row.dropped),
        upstream_input_tokens: count_of(row.input),
        upstream_output_tokens: count_of(row.output),
        wasted_by_reason: reasons
            .into_iter()
            .map(|(reason, count)| (reason, count_of(count)))
            .collect(),
    })
}
