//! An Idempotency-Key's lease (SPEC §3): a request claims its key before it
//! runs, keeps its answer beside its effect, in one transaction, and gives
//! the key back if that does not commit, so its retry runs instead of being
//! told "in flight" until the lease lapses.

use sqlx::PgConnection;

use super::{AppResult, Services};
use crate::domain::TenantId;
use crate::store::idempotency::{self, Claim, ClaimToken};
use crate::store::lease;

/// What an earlier use of the key says about this request.
#[derive(Debug)]
pub(crate) enum KeyClaim {
    /// Ours now: run it, keep its answer with [`KeyLease::keep_answer`].
    Fresh(KeyLease),
    /// Same request again: answer exactly what was answered.
    Replay { status: u16, body: Vec<u8> },
    /// The key was used for a different request.
    Mismatch,
    /// A request with this key is running right now.
    InFlight,
    /// The request was answered, then its conversation was deleted.
    Gone,
}

/// A key this request holds until its answer commits.
#[derive(Debug)]
pub(crate) struct KeyLease {
    tenant: TenantId,
    key: String,
    token: ClaimToken,
    guard: lease::Held,
}

/// Claims `key` for the request whose `fingerprint` this is, or says why not.
pub(crate) async fn claim(
    services: &Services,
    tenant: TenantId,
    key: String,
    fingerprint: &[u8],
    conversation: Option<&str>,
) -> AppResult<KeyClaim> {
    let token = ClaimToken::new();
    // Held from before the claim is sent: a claim that committed with its
    // answer lost on the way is given back by its token.
    let guard = held(services, tenant.clone(), key.clone(), token);
    let mut conn = services.warm.acquire().await?;
    let claim = idempotency::begin(
        &mut conn,
        &tenant,
        &key,
        fingerprint,
        token,
        (services.leases.request, services.process),
        conversation,
    )
    .await?;
    let answer = match claim {
        Claim::Fresh => {
            return Ok(KeyClaim::Fresh(KeyLease {
                tenant,
                key,
                token,
                guard,
            }));
        }
        Claim::Replay { status, body } => KeyClaim::Replay { status, body },
        Claim::Mismatch => KeyClaim::Mismatch,
        Claim::InFlight => KeyClaim::InFlight,
        Claim::Gone => KeyClaim::Gone,
    };
    // Nothing of ours to give back: the key was someone else's.
    guard.settle(true).await;
    Ok(answer)
}

impl KeyLease {
    /// Keeps the answer, in the transaction that made the effect. `false`
    /// when the key is no longer ours (taken over as abandoned): the caller
    /// must roll back.
    pub(crate) async fn keep_answer(&self, tx: &mut PgConnection, status: u16, body: &[u8]) -> AppResult<bool> {
        Ok(idempotency::finish(tx, &self.tenant, &self.key, self.token, status, body).await?)
    }

    /// Ends the lease: its answer `committed`, or the key goes back.
    pub(crate) async fn settle(self, committed: bool) {
        self.guard.settle(committed).await;
    }
}

fn held(services: &Services, tenant: TenantId, key: String, token: ClaimToken) -> lease::Held {
    let pool = services.pool.clone();
    lease::Held::new("an idempotency claim", services.leases.request, move || {
        let (pool, tenant, key) = (pool.clone(), tenant.clone(), key.clone());
        async move {
            let mut conn = pool.acquire().await?;
            idempotency::abandon(&mut conn, &tenant, &key, token).await
        }
    })
}
