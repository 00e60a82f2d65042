//! A conversation claimed for one compaction, and giving the claim back when
//! the compaction is not recorded (a refusal, a failed write): otherwise the
//! conversation would answer "busy" until the claim counts as abandoned.

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use super::CLAIM_ABANDONED_AFTER;
use crate::domain::{ConversationId, TenantId};
use crate::store::{self, StoreResult, compactions};

/// The conversation and the moment it was claimed: a claim given back late
/// never frees a claim taken since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub tenant: TenantId,
    pub id: ConversationId,
    pub since: DateTime<Utc>,
}

impl Claim {
    /// Gives the claim back at once or, when the database is what failed, as
    /// soon as it answers again.
    pub async fn give_back(self, pool: &PgPool) {
        if self.release(pool).await.is_ok() {
            return;
        }
        let pool = pool.clone();
        store::keep_giving_back("a compaction's claim", CLAIM_ABANDONED_AFTER, move || {
            let (claim, pool) = (self.clone(), pool.clone());
            async move { claim.release(&pool).await }
        });
    }

    async fn release(&self, pool: &PgPool) -> StoreResult<()> {
        let mut conn = pool.acquire().await?;
        compactions::release(&mut conn, &self.tenant, &self.id, self.since).await
    }
}
