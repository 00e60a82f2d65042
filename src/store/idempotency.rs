//! Idempotency keys (SPEC §3): the first answer to a key is kept and replayed.
//!
//! A request with a key runs in one transaction that first takes a
//! transaction-scoped advisory lock on the key: a second request with the key
//! while the first runs cannot take it and is told so (409), and the first's
//! effect and its stored answer commit together, so a crash between them
//! leaves neither.

use std::time::Duration;

use sqlx::{PgConnection, PgPool, Row};

use super::StoreResult;
use crate::domain::TenantId;

/// How long a key's answer is kept; the spec asks for at least a day.
pub const RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// What an earlier use of the key says about this request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// First use (or the last use expired): run it, then [`save`] its answer.
    Fresh,
    /// Same request again: answer exactly what was answered.
    Replay { status: u16, body: Vec<u8> },
    /// The key was used for a different request.
    Mismatch,
    /// A request with this key is running right now.
    InFlight,
}

/// Claims `key` inside the caller's open transaction.
pub async fn claim(tx: &mut PgConnection, tenant: &TenantId, key: &str, fingerprint: &[u8]) -> StoreResult<Claim> {
    let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0))")
        .bind(tenant.as_str())
        .bind(key)
        .fetch_one(&mut *tx)
        .await?;
    if !locked {
        return Ok(Claim::InFlight);
    }
    // A new statement, so its snapshot sees whatever the lock's last holder
    // committed.
    let row = sqlx::query(
        "SELECT fingerprint, status, body FROM idempotency_keys
          WHERE tenant = $1 AND key = $2 AND created_at > now() - $3::interval",
    )
    .bind(tenant.as_str())
    .bind(key)
    .bind(RETENTION)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else { return Ok(Claim::Fresh) };
    let stored: Vec<u8> = row.try_get("fingerprint")?;
    if stored != fingerprint {
        return Ok(Claim::Mismatch);
    }
    let status: i16 = row.try_get("status")?;
    Ok(Claim::Replay {
        status: u16::try_from(status).unwrap_or(200),
        body: row.try_get("body")?,
    })
}

/// Keeps the answer to a fresh claim, in the same transaction as its effect.
pub async fn save(
    tx: &mut PgConnection,
    tenant: &TenantId,
    key: &str,
    fingerprint: &[u8],
    status: u16,
    body: &[u8],
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO idempotency_keys (tenant, key, fingerprint, status, body) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (tenant, key) DO UPDATE
            SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, body = EXCLUDED.body,
                created_at = now()",
    )
    .bind(tenant.as_str())
    .bind(key)
    .bind(fingerprint)
    .bind(i16::try_from(status).unwrap_or(i16::MAX))
    .bind(body)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Forgets answers past their retention; answers how many.
pub async fn sweep(pool: &PgPool) -> StoreResult<u64> {
    let done = sqlx::query("DELETE FROM idempotency_keys WHERE created_at <= now() - $1::interval")
        .bind(RETENTION)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}
