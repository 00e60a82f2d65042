//! Upstream tokens each tenant spends a day (UTC), against its daily budget.

use sqlx::PgConnection;

use super::{StoreResult, count_of, db_count};
use crate::domain::TenantId;

/// Input and output tokens the tenant's upstream calls took today.
pub(crate) async fn spent_today(conn: &mut PgConnection, tenant: &TenantId) -> StoreResult<u64> {
    let spent: Option<i64> = sqlx::query_scalar(
        "SELECT input_tokens + output_tokens FROM upstream_usage
          WHERE tenant = $1 AND day = (now() AT TIME ZONE 'UTC')::date",
    )
    .bind(tenant.as_str())
    .fetch_optional(&mut *conn)
    .await?;
    Ok(spent.map_or(0, count_of))
}

/// Adds one upstream call's tokens to today's count.
pub(crate) async fn spend(conn: &mut PgConnection, tenant: &TenantId, input: u64, output: u64) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO upstream_usage AS u (tenant, day, input_tokens, output_tokens, calls)
         VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, $3, 1)
         ON CONFLICT (tenant, day) DO UPDATE
            SET input_tokens = u.input_tokens + EXCLUDED.input_tokens,
                output_tokens = u.output_tokens + EXCLUDED.output_tokens,
                calls = u.calls + 1",
    )
    .bind(tenant.as_str())
    .bind(db_count(input))
    .bind(db_count(output))
    .execute(&mut *conn)
    .await?;
    Ok(())
}
