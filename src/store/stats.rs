//! The numbers of GET /stats (SPEC §3): per trigger, the decisions, the
//! rollovers, the summaries prepared ahead, over a span of time.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};

use super::events;
use super::ledger::ledger_with_accruing;
use super::row::{SAVED, savings};
use super::statements::{self, on};
use super::{StoreResult, count_of};
use crate::domain::TenantId;
use crate::policy::CompactionTrigger;
use crate::policy::prepare::Status;
use crate::records::{DeletionStats, Money, PreparationStats, Stats, TriggerStats};

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
    let logged = statements::query(&format!("SELECT {}", counts.join(", ")))
        .bind(tenant.as_str())
        .bind(since)
        .bind(until)
        .fetch_one(on(&mut *conn))
        .await?;
    let mut stats = Stats {
        triggers,
        rollovers: count_of(logged.try_get("rollovers")?),
        declined_rollovers: count_of(logged.try_get("declined_rollovers")?),
        ..Stats::default()
    };
    // Only non-keep decisions are logged (SPEC §3 /decide).
    for decision in ["compact", "rollover"] {
        let count = count_of(logged.try_get(decision)?);
        if count > 0 {
            stats.decisions.push((decision.to_owned(), count));
        }
    }
    stats.decisions.sort();
    stats.deletions = deletions(conn, tenant, since, until, in_span).await?;
    Ok(stats)
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
    Ok(statements::query(&format!(
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
    .iter()
    .map(|row| {
        Ok(TriggerStats {
            trigger: row.try_get("trigger")?,
            count: count_of(row.try_get("count")?),
            successes: count_of(row.try_get("successes")?),
            failures: count_of(row.try_get("failures")?),
            mean_percent_saved: row.try_get("mean_percent_saved")?,
            p50_duration_ms: row.try_get("p50")?,
            p95_duration_ms: row.try_get("p95")?,
            tokens_saved: count_of(row.try_get("tokens_saved")?),
            money: Money::default(),
        })
    })
    .collect::<sqlx::Result<Vec<_>>>()?)
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
    let rows = statements::query(&format!(
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
        .iter()
        .map(|row| {
            Ok((
                row.try_get("trigger")?,
                Money {
                    cost_usd: row.try_get("cost_usd")?,
                    unpriced_summaries: count_of(row.try_get("unpriced_summaries")?),
                    savings: savings(row, SAVED)?,
                },
            ))
        })
        .collect::<sqlx::Result<_>>()?)
}

/// The audit lines of the span's deletions, by kind.
async fn deletions(
    conn: &mut PgConnection,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    in_span: &str,
) -> StoreResult<Vec<DeletionStats>> {
    let rows = statements::query(&format!(
        "SELECT kind, count(*) AS deletions, sum(conversations)::bigint AS conversations, sum(turns)::bigint AS turns
           FROM deletions WHERE tenant = $1 AND {in_span} GROUP BY kind ORDER BY kind"
    ))
    .bind(tenant.as_str())
    .bind(since)
    .bind(until)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows
        .iter()
        .map(|row| {
            Ok(DeletionStats {
                kind: row.try_get("kind")?,
                deletions: count_of(row.try_get("deletions")?),
                conversations: count_of(row.try_get("conversations")?),
                turns: count_of(row.try_get("turns")?),
            })
        })
        .collect::<sqlx::Result<_>>()?)
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
    let row = statements::query(&format!(
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
    let reasons = statements::query(&format!(
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
    let count = |column: &str| row.try_get::<i64, _>(column).map(count_of);
    Ok(PreparationStats {
        prepared_compactions: count("prepared_compactions")?,
        planned: count("all_planned")?,
        waiting: count("planned")?,
        ready: count("ready")?,
        used: count("used")?,
        wasted: count("wasted")?,
        dropped: count("dropped")?,
        upstream_input_tokens: count("input")?,
        upstream_output_tokens: count("output")?,
        wasted_by_reason: reasons
            .iter()
            .map(|row| Ok((row.try_get("reason")?, count_of(row.try_get("count")?))))
            .collect::<sqlx::Result<_>>()?,
    })
}
