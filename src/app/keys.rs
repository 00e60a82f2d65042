//! Manage keys (the `compactd keys` subcommands): create one and show it
//! once, list them, revoke one.

use sqlx::PgPool;

use crate::auth::key;
use crate::domain::{InvalidValue, KeyRole, TenantId};
use crate::store::{StoreError, keys};

#[derive(Debug, thiserror::Error)]
pub enum KeyAdminError {
    #[error("{0}")]
    Invalid(#[from] InvalidValue),
    #[error("the operating system gave no randomness: {0}")]
    Random(String),
    #[error("{0}")]
    Store(#[from] StoreError),
}

/// A new key for `tenant` with `role`: answers its id and the key itself,
/// which is never stored and cannot be shown again.
pub async fn create(
    pool: &PgPool,
    tenant: &str,
    role: &str,
    note: Option<&str>,
) -> Result<(String, String), KeyAdminError> {
    let tenant = TenantId::parse("--tenant", tenant)?;
    let role = KeyRole::checked("--role", role)?;
    let new = key::generate().map_err(|err| KeyAdminError::Random(err.to_string()))?;
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    keys::insert(
        &mut conn,
        &new.id,
        tenant.as_str(),
        role.as_str(),
        &new.secret_hash,
        note,
    )
    .await?;
    Ok((new.id, new.key))
}

pub(crate) async fn list(pool: &PgPool) -> Result<Vec<keys::StoredKey>, KeyAdminError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(keys::all(&mut conn).await?)
}

/// `false` when there is no such live key.
pub async fn revoke(pool: &PgPool, id: &str) -> Result<bool, KeyAdminError> {
    let mut conn = pool.acquire().await.map_err(StoreError::from)?;
    Ok(keys::revoke(&mut conn, id).await?)
}
