//! API keys as stored: the id, tenant, role, the secret's hash, revocation.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::StoreResult;
use super::statements::{self, on};

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct StoredKey {
    pub id: String,
    pub tenant: String,
    pub role: String,
    pub secret_hash: Vec<u8>,
    pub note: Option<String>,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn insert(
    conn: &mut PgConnection,
    id: &str,
    tenant: &str,
    role: &str,
    secret_hash: &[u8],
    note: Option<&str>,
) -> StoreResult<()> {
    statements::query("INSERT INTO api_keys (id, tenant, role, secret_hash, note) VALUES ($1, $2, $3, $4, $5)")
        .bind(id)
        .bind(tenant)
        .bind(role)
        .bind(secret_hash)
        .bind(note)
        .execute(on(&mut *conn))
        .await?;
    Ok(())
}

/// Every key, revoked ones too, oldest first.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn all(conn: &mut PgConnection) -> StoreResult<Vec<StoredKey>> {
    Ok(
        statements::query_as::<StoredKey>("SELECT * FROM api_keys ORDER BY created_at, id")
            .fetch_all(on(&mut *conn))
            .await?,
    )
}

/// Revokes a key; `false` when there is no such key or it was revoked already.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn revoke(conn: &mut PgConnection, id: &str) -> StoreResult<bool> {
    let done = statements::query("UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL")
        .bind(id)
        .execute(on(&mut *conn))
        .await?;
    Ok(done.rows_affected() == 1)
}
