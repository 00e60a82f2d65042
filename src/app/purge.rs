//! Purging a tenant (issue 25): every conversation it had when the purge
//! was asked for is deleted, a batch at a time, each batch in a short
//! transaction of its own (so the hot path waits on a few conversations at
//! most, never on the tenant), with an audit line per batch. Asked for
//! through the API or the command line; worked by the background of any
//! replica, or by the command line itself, and taken up again by another
//! process if the one working it dies.

use std::time::Duration;

use sqlx::PgPool;

use super::delete::{counted, erase_and_record};
use super::{AppResult, Refusal};
use crate::domain::TenantId;
use crate::records::Purge;
use crate::records::PurgeAsker;
use crate::store::deletions::DeletionKind;
use crate::store::processes::ProcessId;
use crate::store::purges;
use crate::store::{self, StoreResult};

/// Conversations a batch deletes: a batch of a busy tenant takes tens of
/// milliseconds (bench/lifecycle).
pub(crate) const BATCH: i64 = 25;

/// Asks for a purge of `tenant`; an unfinished one is answered instead
/// (`false`).
pub(crate) async fn ask(
    pool: &PgPool,
    tenant: &TenantId,
    asker: PurgeAsker,
    key_id: Option<&str>,
) -> AppResult<(Purge, bool)> {
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    let (purge, asked) = purges::ask(&mut conn, tenant, asker, key_id).await?;
    if asked {
        tracing::info!(tenant = %tenant, purge = purge.id, by = asker.as_str(), "tenant purge asked for");
    }
    Ok((purge, asked))
}

/// An operator's purge of `tenant`, named as the command line has it.
pub(crate) async fn ask_as_operator(
    pool: &PgPool,
    tenant: &str,
) -> Result<(Purge, bool), Box<dyn std::error::Error + Send + Sync>> {
    let tenant = TenantId::parse("tenant", tenant)?;
    Ok(ask(pool, &tenant, PurgeAsker::CommandLine, None).await?)
}

/// The tenant's purge `id`; another tenant's is not found.
pub(crate) async fn show(pool: &PgPool, tenant: &TenantId, id: i64) -> AppResult<Purge> {
    let mut conn = pool.acquire().await.map_err(store::StoreError::from)?;
    purges::show(&mut conn, tenant, id)
        .await?
        .ok_or_else(|| Refusal::NotFound(format!("no purge {id}")))
}

/// What one batch did.
#[derive(Debug)]
enum Step {
    /// Deleted a batch; the purge as it stands.
    Deleted(Purge),
    /// Found nothing left: the purge is finished.
    Finished(Purge),
}

/// Works `purge` to its end, calling `on_batch` after each batch; as
/// `holder`, when it leased the purge, which stops when another took it over.
pub(crate) async fn work(
    pool: &PgPool,
    purge: Purge,
    holder: Option<ProcessId>,
    mut on_batch: impl FnMut(&Purge),
) -> StoreResult<Purge> {
    let mut purge = purge;
    loop {
        match batch(pool, &purge, holder).await? {
            Step::Deleted(now) => {
                on_batch(&now);
                purge = now;
            }
            Step::Finished(done) => return Ok(done),
        }
    }
}

/// Leases the oldest unfinished purge nobody works and works it to its
/// end; `false` when there is none. One that fails keeps its lease, so
/// the others go first and it is taken up again when the lease lapses.
pub(crate) async fn work_next(pool: &PgPool, lease: (Duration, ProcessId)) -> StoreResult<bool> {
    let mut conn = pool.acquire().await?;
    let Some(purge) = purges::claim(&mut conn, lease).await? else {
        return Ok(false);
    };
    drop(conn);
    let (tenant, id) = (purge.tenant.clone(), purge.id);
    if let Err(err) = work(pool, purge, Some(lease.1), |_| {}).await {
        tracing::warn!(%err, %tenant, purge = id, "a tenant purge failed; it is taken up again when its lease lapses");
    }
    Ok(true)
}

async fn batch(pool: &PgPool, purge: &Purge, holder: Option<ProcessId>) -> StoreResult<Step> {
    let (step, erased) = store::retry_lost_races(|| async {
        let mut tx = pool.begin().await?;
        if !purges::lock(&mut tx, purge, holder).await? {
            // Another process finished it, or took it over from a holder
            // that looked dead.
            let done = purges::show(&mut tx, &purge.tenant, purge.id).await?;
            return Ok((Step::Finished(done.unwrap_or_else(|| purge.clone())), None));
        }
        let ids = purges::lock_batch(&mut tx, purge, BATCH).await?;
        if ids.is_empty() {
            let done = purges::finish(&mut tx, purge).await?;
            tx.commit().await?;
            tracing::info!(tenant = %done.tenant, purge = done.id, conversations = done.conversations,
                           turns = done.turns, batches = done.batches, "tenant purge finished");
            return Ok((Step::Finished(done), None));
        }
        let erased = erase_and_record(
            &mut tx,
            &purge.tenant,
            DeletionKind::Purge,
            purge.key_id.as_deref(),
            &ids,
        )
        .await?;
        let now = purges::count_batch(&mut tx, purge, &erased).await?;
        tx.commit().await?;
        Ok((Step::Deleted(now), Some(erased)))
    })
    .await?;
    if let Some(erased) = erased {
        counted(DeletionKind::Purge, &erased);
    }
    Ok(step)
}
