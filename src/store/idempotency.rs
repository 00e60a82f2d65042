//! Idempotency keys (SPEC §3): the first answer to a key is kept and replayed.
//!
//! A key is claimed by a committed in-flight row, so a retry that arrives
//! while the first request runs (however long its upstream call takes) sees it
//! and is told so, without any connection held meanwhile. The effect and its
//! answer then commit in one transaction ([`finish`]): a crash between them
//! leaves neither, and the in-flight row, once abandoned long enough, is taken
//! over by the next retry.
//!
//! Each claim carries a token ([`ClaimToken`]): whoever made it, and only
//! they, finish or give it back. A request whose claim may or may not have
//! committed (the connection died while the answer was on its way) gives
//! back by its token, which frees the key if it was taken and touches
//! nothing if not.

use std::time::Duration;

use sqlx::PgConnection;

use super::StoreResult;
use super::lease::{holder_gone, lapsed};
use super::processes::{ProcessId, SILENT_AFTER};
use super::statements::{self, on};
use crate::domain::TenantId;

/// How long a key's answer is kept; the spec asks for at least a day.
pub(crate) const RETENTION: Duration = Duration::from_secs(24 * 60 * 60);

/// One request's claim on a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimToken(uuid::Uuid);

impl ClaimToken {
    pub fn new() -> Self {
        Self(uuid::Uuid::new_v4())
    }

    fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl Default for ClaimToken {
    fn default() -> Self {
        Self::new()
    }
}

/// What an earlier use of the key says about this request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Ours now: run it, then [`finish`] with its answer (or [`abandon`]).
    Fresh,
    /// Same request again: answer exactly what was answered.
    Replay { status: u16, body: Vec<u8> },
    /// The key was used for a different request.
    Mismatch,
    /// A request with this key is running right now.
    InFlight,
    /// The request was answered, then its conversation was deleted: it is
    /// not applied again.
    Gone,
}

/// What a deletion leaves of a key whose request was answered: the key,
/// as [`tombstone_sql`] names it, and the request's fingerprint, kept until the
/// key's retention ends, with this status and no answer, so a retry is told
/// its conversation is gone rather than applied again.
pub(crate) const GONE_STATUS: i16 = 410;

/// SQL naming the tombstone of the key in `column`: its SHA-256 (a
/// client's key may name the conversation), after a space no client's key
/// holds.
pub(crate) fn tombstone_sql(column: &str) -> String {
    format!("'deleted ' || encode(sha256(convert_to({column}, 'UTF8')), 'hex')")
}

/// The name [`tombstone_sql`] gives `key`.
fn tombstone_of(key: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(key.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("deleted {hex}")
}

/// Claims `key` for `holder`'s request with `fingerprint`, or says why not;
/// a claim with no answer after `lapsed_after`, or whose holder has gone
/// silent, was abandoned and is taken over.
#[tracing::instrument(level = "debug", skip_all)]
pub async fn begin(
    conn: &mut PgConnection,
    tenant: &TenantId,
    key: &str,
    fingerprint: &[u8],
    token: ClaimToken,
    (lapsed_after, holder): (Duration, ProcessId),
    conversation: Option<&str>,
) -> StoreResult<Claim> {
    let tombstone = tombstone_of(key);
    // The key's row is its lease, stamped `created_at`; an answer kept past
    // its retention is forgotten like an abandoned claim.
    let claimed = statements::query(concat!(
        "INSERT INTO idempotency_keys AS k (tenant, key, fingerprint, status, body, claim, conversation_id, holder)
         SELECT $1, $2, $3, NULL, NULL, $6, $7, $8::uuid
          WHERE NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE tenant = $1 AND key = $10 AND created_at >= now() - $4::interval)
         ON CONFLICT (tenant, key) DO UPDATE
            SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL, created_at = now(),
                claim = EXCLUDED.claim, conversation_id = EXCLUDED.conversation_id, holder = EXCLUDED.holder
          WHERE ",
        lapsed!("k.created_at", "4"),
        " OR (k.status IS NULL AND (",
        lapsed!("k.created_at", "5"),
        " OR ",
        holder_gone!("k.holder", "9"),
        ")) RETURNING 1"
    ))
    .bind(tenant.as_str())
    .bind(key)
    .bind(fingerprint)
    .bind(RETENTION)
    .bind(lapsed_after)
    .bind(token.as_bytes())
    .bind(conversation)
    .bind(holder.as_text())
    .bind(SILENT_AFTER)
    .bind(&tombstone)
    .fetch_optional(on(&mut *conn))
    .await?;
    if claimed.is_some() {
        return Ok(Claim::Fresh);
    }
    // The key itself before its tombstone, and a tombstone past the key's
    // day is forgotten.
    let row = statements::query_as::<(Vec<u8>, Option<i16>, Option<Vec<u8>>)>(
        "SELECT fingerprint, status, body FROM idempotency_keys
          WHERE tenant = $1 AND (key = $2 OR (key = $3 AND created_at >= now() - $4::interval))
          ORDER BY key = $2 DESC LIMIT 1",
    )
    .bind(tenant.as_str())
    .bind(key)
    .bind(&tombstone)
    .bind(RETENTION)
    .fetch_optional(on(&mut *conn))
    .await?;
    // Gone between the two statements (abandoned and swept): a retry will claim it.
    let Some((stored, status, body)) = row else {
        return Ok(Claim::InFlight);
    };
    if stored != fingerprint {
        return Ok(Claim::Mismatch);
    }
    Ok(match status.zip(body) {
        Some((GONE_STATUS, body)) if body.is_empty() => Claim::Gone,
        Some((status, body)) => Claim::Replay {
            status: u16::try_from(status).unwrap_or(200),
            body,
        },
        None => Claim::InFlight,
    })
}

/// Keeps the answer, in the transaction that made the effect. `false` when
/// the claim is no longer ours (it was taken over as abandoned): the caller
/// must roll back.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn finish(
    tx: &mut PgConnection,
    tenant: &TenantId,
    key: &str,
    token: ClaimToken,
    status: u16,
    body: &[u8],
) -> StoreResult<bool> {
    let done = statements::query(
        "UPDATE idempotency_keys SET status = $4, body = $5
          WHERE tenant = $1 AND key = $2 AND claim = $3 AND status IS NULL",
    )
    .bind(tenant.as_str())
    .bind(key)
    .bind(token.as_bytes())
    .bind(i16::try_from(status).unwrap_or(i16::MAX))
    .bind(body)
    .execute(&mut *tx)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Gives up a claim whose request failed (or may have been made when the
/// request could not tell), so a retry may run at once.
#[tracing::instrument(level = "debug", skip_all)]
pub async fn abandon(conn: &mut PgConnection, tenant: &TenantId, key: &str, token: ClaimToken) -> StoreResult<()> {
    statements::query("DELETE FROM idempotency_keys WHERE tenant = $1 AND key = $2 AND claim = $3 AND status IS NULL")
        .bind(tenant.as_str())
        .bind(key)
        .bind(token.as_bytes())
        .execute(on(&mut *conn))
        .await?;
    Ok(())
}

/// Forgets answers past their retention; answers how many.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn sweep(conn: &mut PgConnection) -> StoreResult<u64> {
    let done = statements::query(concat!(
        "DELETE FROM idempotency_keys WHERE ",
        lapsed!("created_at", "1")
    ))
    .bind(RETENTION)
    .execute(on(&mut *conn))
    .await?;
    Ok(done.rows_affected())
}
