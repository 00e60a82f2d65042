//! Retention (`COMPACTD_RETENTION_DAYS`, issue 25): conversations nothing
//! has touched for that long are deleted, as DELETE /conversations/{id}
//! deletes one, a batch at a time across tenants, each batch one short
//! transaction with an audit line per tenant in it.

use std::time::Duration;

use sqlx::PgPool;

use super::delete::{counted, erase_and_record};
use crate::domain::TenantId;
use crate::store::deletions::{DeletionKind, Erased};
use crate::store::{self, StoreResult, retention};

/// Conversations a batch deletes.
pub(crate) const BATCH: i64 = 50;

/// Deletes every conversation nothing wrote to for `after` (and none being
/// compacted, whose claim lapses after `compaction_lease`); how many.
pub(crate) async fn sweep(pool: &PgPool, after: Duration, compaction_lease: Duration) -> StoreResult<u64> {
    let mut deleted = 0;
    loop {
        let batch = batch(pool, after, compaction_lease).await?;
        if batch.is_empty() {
            return Ok(deleted);
        }
        for (tenant, erased) in &batch {
            counted(DeletionKind::Retention, erased);
            deleted += erased.conversations;
            tracing::info!(%tenant, conversations = erased.conversations, turns = erased.turns,
                           "conversations past the retention deleted");
        }
    }
}

/// One batch: what it deleted of each tenant.
async fn batch(pool: &PgPool, after: Duration, compaction_lease: Duration) -> StoreResult<Vec<(TenantId, Erased)>> {
    store::retry_lost_races(|| async {
        let mut tx = pool.begin().await?;
        let idle = retention::lock_idle(&mut tx, after, compaction_lease, BATCH).await?;
        let mut done = Vec::with_capacity(idle.len());
        for (tenant, ids) in idle {
            let erased = erase_and_record(&mut tx, &tenant, DeletionKind::Retention, None, &ids).await?;
            done.push((tenant, erased));
        }
        tx.commit().await?;
        Ok(done)
    })
    .await
}
