//! Upstream tokens each tenant spends a day (UTC), against its daily budget.

use chrono::NaiveDate;
use sqlx::PgConnection;

use super::statements::{self, on};
use super::{StoreResult, count_of, db_count};
use crate::domain::TenantId;

/// Input and output tokens the tenant's upstream calls took today, and
/// those held for calls running now.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn spent_today(conn: &mut PgConnection, tenant: &TenantId) -> StoreResult<u64> {
    let spent: Option<i64> = statements::query_scalar(
        "SELECT input_tokens + output_tokens + reserved_tokens FROM upstream_usage
          WHERE tenant = $1 AND day = (now() AT TIME ZONE 'UTC')::date",
    )
    .bind(tenant.as_str())
    .fetch_optional(on(&mut *conn))
    .await?;
    Ok(spent.map_or(0, count_of))
}

/// Holds `tokens` of today's budget for a call about to be made, unless
/// what is spent and held already reaches `daily`; whether it was held.
/// One statement, so concurrent calls see each other's holds.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn reserve(
    conn: &mut PgConnection,
    tenant: &TenantId,
    tokens: u64,
    daily: u64,
) -> StoreResult<Option<NaiveDate>> {
    let held: Option<NaiveDate> = statements::query_scalar(
        "INSERT INTO upstream_usage AS u (tenant, day, reserved_tokens)
         VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2)
         ON CONFLICT (tenant, day) DO UPDATE
            SET reserved_tokens = u.reserved_tokens + EXCLUDED.reserved_tokens
          WHERE u.input_tokens + u.output_tokens + u.reserved_tokens < $3
         RETURNING day",
    )
    .bind(tenant.as_str())
    .bind(db_count(tokens))
    .bind(db_count(daily))
    .fetch_optional(on(&mut *conn))
    .await?;
    // A first call of the day is held whatever its size: nothing is spent yet.
    Ok(held)
}

/// Gives back `held` tokens on the day they were held and counts what a
/// call took today (`calls`: how many were made).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn settle(
    conn: &mut PgConnection,
    tenant: &TenantId,
    held: Option<(NaiveDate, u64)>,
    (input, output): (u64, u64),
    calls: u64,
) -> StoreResult<()> {
    if let Some((day, tokens)) = held {
        statements::query(
            "UPDATE upstream_usage SET reserved_tokens = greatest(reserved_tokens - $3, 0)
              WHERE tenant = $1 AND day = $2",
        )
        .bind(tenant.as_str())
        .bind(day)
        .bind(db_count(tokens))
        .execute(on(&mut *conn))
        .await?;
    }
    if calls > 0 || input > 0 || output > 0 {
        statements::query(
            "INSERT INTO upstream_usage AS u (tenant, day, input_tokens, output_tokens, calls)
             VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, $3, $4)
             ON CONFLICT (tenant, day) DO UPDATE
                SET input_tokens = u.input_tokens + EXCLUDED.input_tokens,
                    output_tokens = u.output_tokens + EXCLUDED.output_tokens,
                    calls = u.calls + EXCLUDED.calls",
        )
        .bind(tenant.as_str())
        .bind(db_count(input))
        .bind(db_count(output))
        .bind(db_count(calls))
        .execute(on(&mut *conn))
        .await?;
    }
    Ok(())
}
