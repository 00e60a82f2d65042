//! The keep figures by the hour (for /stats): each summary's added to its
//! hour's sums as it is written, and a span's read back exactly, its whole
//! hours from the sums and its edges from the ledger's rows.

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use sqlx::PgConnection;

use crate::domain::TenantId;
use crate::store::statements::{self, on};
use crate::store::{StoreResult, count_of, db_count};
use crate::summary::keep::{KeepFigures, KeepKind, KindFigures};

/// Adds one summary's keep figures to its hour's sums (for /stats).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn tally(
    conn: &mut PgConnection,
    tenant: &TenantId,
    at: DateTime<Utc>,
    figures: &KeepFigures,
) -> StoreResult<()> {
    if figures.by_kind.is_empty() {
        return Ok(());
    }
    let hour = at.duration_trunc(TimeDelta::hours(1)).unwrap_or(at);
    let column =
        |f: &dyn Fn(&KindFigures) -> u64| figures.by_kind.values().map(|k| db_count(f(k))).collect::<Vec<i64>>();
    statements::query(
        "INSERT INTO keep_hourly (tenant, hour, kind, checked, present, appended, parked, invented)
         SELECT $1, $2, * FROM UNNEST($3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
         ON CONFLICT (tenant, hour, kind) DO UPDATE SET
            checked = keep_hourly.checked + EXCLUDED.checked, present = keep_hourly.present + EXCLUDED.present,
            appended = keep_hourly.appended + EXCLUDED.appended, parked = keep_hourly.parked + EXCLUDED.parked,
            invented = keep_hourly.invented + EXCLUDED.invented",
    )
    .bind(tenant.as_str())
    .bind(hour)
    .bind(figures.by_kind.keys().map(|k| k.as_str()).collect::<Vec<_>>())
    .bind(column(&|k| k.checked))
    .bind(column(&|k| k.present))
    .bind(column(&|k| k.appended))
    .bind(column(&|k| k.parked))
    .bind(column(&|k| k.invented))
    .execute(on(&mut *conn))
    .await?;
    Ok(())
}

/// From, until: either end open.
type Span = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

/// A kind's figures summed over a span, as [`figures_between`] reads them.
#[derive(sqlx::FromRow)]
struct FiguresRow {
    kind: String,
    checked: Option<i64>,
    present: Option<i64>,
    appended: Option<i64>,
    parked: Option<i64>,
    invented: Option<i64>,
}

/// The keep figures of every summary written in `[since, until)`, by kind:
/// whole hours from their sums, the partial hours at the edges from the
/// ledger's rows, so the span is exact.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn figures_between(
    conn: &mut PgConnection,
    tenant: &TenantId,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> StoreResult<Vec<(KeepKind, KindFigures)>> {
    let hour = TimeDelta::hours(1);
    let ceil = |t: DateTime<Utc>| {
        let floor = t.duration_trunc(hour).unwrap_or(t);
        if floor < t { floor + hour } else { floor }
    };
    let floor = |t: DateTime<Utc>| t.duration_trunc(hour).unwrap_or(t);
    let (whole_from, mut whole_until) = (since.map(ceil), until.map(floor));
    let mut edges: Vec<Span> = Vec::new();
    match (whole_from, whole_until) {
        (Some(from), Some(to)) if from >= to => {
            // No whole hour inside: the span is all edge.
            edges.push((since, until));
            whole_until = whole_from;
        }
        _ => {
            if let (Some(since), Some(from)) = (since, whole_from) {
                edges.push((Some(since), Some(from)));
            }
            if let (Some(until), Some(to)) = (until, whole_until) {
                edges.push((Some(to), Some(until)));
            }
        }
    }
    edges.resize(2, (None, None));
    let rows = statements::query_as::<FiguresRow>(
        "SELECT kind, sum(checked)::bigint AS checked, sum(present)::bigint AS present,
                sum(appended)::bigint AS appended, sum(parked)::bigint AS parked,
                sum(invented)::bigint AS invented
           FROM (SELECT kind, checked, present, appended, parked, invented FROM keep_hourly
                  WHERE tenant = $1 AND ($2::timestamptz IS NULL OR hour >= $2) AND ($3::timestamptz IS NULL OR hour < $3)
                 UNION ALL
                 SELECT k.key, (k.value->>'checked')::bigint, (k.value->>'present')::bigint,
                        (k.value->>'appended')::bigint, (k.value->>'parked')::bigint,
                        coalesce((k.value->>'invented')::bigint, 0)
                   FROM compactions c CROSS JOIN LATERAL jsonb_each(c.keep->'by_kind') k
                  WHERE c.tenant = $1 AND c.keep IS NOT NULL
                    AND ((c.at >= $4 AND c.at < $5) OR (c.at >= $6 AND c.at < $7))) figures
          GROUP BY kind",
    )
    .bind(tenant.as_str())
    .bind(whole_from)
    .bind(whole_until)
    .bind(edges[0].0)
    .bind(edges[0].1)
    .bind(edges[1].0)
    .bind(edges[1].1)
    .fetch_all(on(&mut *conn))
    .await?;
    let mut figures = Vec::new();
    for row in rows {
        let count = |n: Option<i64>| count_of(n.unwrap_or(0));
        // A kind this version does not know (a newer one wrote it) is left out.
        if let Some(kind) = KeepKind::parse(&row.kind) {
            figures.push((
                kind,
                KindFigures {
                    checked: count(row.checked),
                    present: count(row.present),
                    appended: count(row.appended),
                    parked: count(row.parked),
                    invented: count(row.invented),
                },
            ));
        }
    }
    figures.sort_by_key(|(kind, _)| *kind);
    Ok(figures)
}
