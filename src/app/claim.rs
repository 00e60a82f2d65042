//! A conversation claimed for one compaction, held as a guard: unless the
//! compaction it was taken for is recorded, the claim gives itself back —
//! otherwise the conversation would answer "busy" until the claim counts as
//! abandoned. Every path out of a compaction goes through here: a refusal,
//! a failed write, a transaction that did not commit, a dropped request.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::domain::{ConversationId, TenantId};
use crate::store::{self, StoreResult, compactions};

/// How long a claim lasts before it counts as abandoned: past any upstream
/// deadline the service allows, with room to record.
pub(crate) const CLAIM_ABANDONED_AFTER: Duration = Duration::from_secs(11 * 60);

/// The conversation and the moment it was claimed: a claim given back late
/// never frees a claim taken since.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Claim {
    tenant: TenantId,
    id: ConversationId,
    since: DateTime<Utc>,
}

/// A claim that goes back when dropped, unless [`ClaimGuard::settle`] was
/// told its compaction was recorded.
#[derive(Debug)]
pub(crate) struct ClaimGuard {
    claim: Option<Claim>,
    pool: PgPool,
}

impl ClaimGuard {
    pub(super) fn new(pool: &PgPool, tenant: TenantId, id: ConversationId, since: DateTime<Utc>) -> Self {
        Self {
            claim: Some(Claim { tenant, id, since }),
            pool: pool.clone(),
        }
    }

    /// Ends the claim: kept when its compaction was `recorded` (the record
    /// cleared it), else given back before this returns, so a retry that
    /// follows the answer is not turned away.
    pub(crate) async fn settle(mut self, recorded: bool) {
        let Some(claim) = self.claim.take() else {
            return;
        };
        if recorded || release(&self.pool, &claim).await.is_ok() {
            return;
        }
        give_back_later(self.pool.clone(), claim);
    }
}

impl Drop for ClaimGuard {
    fn drop(&mut self) {
        if let Some(claim) = self.claim.take()
            && tokio::runtime::Handle::try_current().is_ok()
        {
            give_back_later(self.pool.clone(), claim);
        }
    }
}

/// Gives the claim back on a task of its own, as soon as the database answers.
fn give_back_later(pool: PgPool, claim: Claim) {
    store::keep_giving_back("a compaction's claim", CLAIM_ABANDONED_AFTER, move || {
        let (claim, pool) = (claim.clone(), pool.clone());
        async move { release(&pool, &claim).await }
    });
}

async fn release(pool: &PgPool, claim: &Claim) -> StoreResult<()> {
    let mut conn = pool.acquire().await?;
    compactions::release(&mut conn, &claim.tenant, &claim.id, claim.since).await
}
