//! Compactions counted per bucket of time and trigger (GET /stats/series):
//! what the dashboard draws as bars. Reads the ledger by (tenant, at), with
//! the savings its conversations still accrue.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::ledger::ledger_with_accruing;
use super::statements::{self, on};
use super::{StoreResult, count_of};
use crate::domain::TenantId;
use crate::domain::series::Series;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Point {
    pub start: DateTime<Utc>,
    pub trigger: String,
    pub count: u64,
    pub successes: u64,
    pub failures: u64,
    pub tokens_saved: u64,
    /// What the bucket's compactions cost, and what they saved (SPEC §6).
    pub cost_usd: f64,
    pub saved_usd: f64,
}

/// A (bucket, trigger) pair as [`read`] sums it.
#[derive(sqlx::FromRow)]
struct PointRow {
    start: DateTime<Utc>,
    trigger: String,
    count: i64,
    successes: i64,
    failures: i64,
    tokens_saved: i64,
    cost_usd: f64,
    saved_usd: f64,
}

/// The non-empty (bucket, trigger) pairs, oldest first.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn read(conn: &mut PgConnection, tenant: &TenantId, series: &Series) -> StoreResult<Vec<Point>> {
    // Bucket by bucket, each a range scan grouped by trigger: one GROUP BY
    // over the whole span sorts every row of it first (the planner cannot
    // tell how few buckets there are), twice as slow at a million rows. (The
    // money columns read the ledger's rows, no longer its index alone.)
    let rows = statements::query_as::<PointRow>(concat!(
        "SELECT $2 + make_interval(secs => n * $4) AS start, s.*
           FROM generate_series(0::bigint, $5::bigint - 1) AS n
          CROSS JOIN LATERAL (
                SELECT trigger, count(*) AS count,
                       count(*) FILTER (WHERE success) AS successes,
                       count(*) FILTER (WHERE NOT success) AS failures,
                       LEAST(coalesce(sum(tokens_saved) FILTER (WHERE success), 0), 9223372036854775807)::bigint
                         AS tokens_saved,
                       coalesce(sum(k.cost_usd), 0)::float8 AS cost_usd,
                       coalesce(sum(k.saved_usd + coalesce(v.saved_usd, 0)), 0)::float8 AS saved_usd
                  FROM ",
        ledger_with_accruing!(),
        "
                 WHERE k.tenant = $1 AND k.at >= $2 + make_interval(secs => n * $4)
                   AND k.at < LEAST($2 + make_interval(secs => (n + 1) * $4), $3)
                 GROUP BY trigger) s
          ORDER BY 1, 2"
    ))
    .bind(tenant.as_str())
    .bind(series.since)
    .bind(series.until)
    .bind(series.bucket.seconds() as f64)
    .bind(series.buckets())
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows
        .into_iter()
        .map(|row| Point {
            start: row.start,
            trigger: row.trigger,
            count: count_of(row.count),
            successes: count_of(row.successes),
            failures: count_of(row.failures),
            tokens_saved: count_of(row.tokens_saved),
            cost_usd: row.cost_usd,
            saved_usd: row.saved_usd,
        })
        .collect())
}
