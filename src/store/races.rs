//! One lock order, one retry rule, and claims given back after a failure:
//! how concurrent writers stay out of each other's way.

use std::future::Future;
use std::time::{Duration, Instant};

use super::error::StoreResult;
use crate::domain::{ConversationId, TenantId};

/// Takes the conversation's row lock, first, in a transaction that will also
/// write its turns or keep items: every writer takes the row before those
/// (the hot path updates the row before it inserts a turn), so no two
/// writers ever wait on each other in opposite orders.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn lock_conversation_first(
    conn: &mut sqlx::PgConnection,
    tenant: &TenantId,
    conversation_id: &ConversationId,
) -> StoreResult<()> {
    sqlx::query("SELECT 1 FROM conversations WHERE tenant = $1 AND conversation_id = $2 FOR NO KEY UPDATE")
        .bind(tenant)
        .bind(conversation_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Runs `write` (its own transaction) again at once when it lost a race
/// (a deadlock or serialization failure), a few times, instead of leaving
/// its work to a claim's timeout.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn retry_lost_races<T, F, Fut>(mut write: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = StoreResult<T>>,
{
    const TRIES: u32 = 3;
    let mut tried = 1;
    loop {
        match write().await {
            Err(err) if err.is_lost_race() && tried < TRIES => {
                tracing::debug!(%err, tried, "a write lost a race; running it again");
                tried += 1;
            }
            outcome => return outcome,
        }
    }
}

/// Runs `give_back` on a task of its own until the database takes it,
/// backing off from 100 ms to 5 s, for at most `for_at_most` (what it gives
/// back expires by itself by then). For returning a claim after a failure,
/// when the database may be what failed: a claim left behind would turn
/// every retry away for minutes.
pub(crate) fn keep_giving_back<F, Fut>(what: &'static str, for_at_most: Duration, mut give_back: F)
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: Future<Output = StoreResult<()>> + Send,
{
    tokio::spawn(async move {
        let mut wait = Duration::from_millis(100);
        let started = Instant::now();
        while let Err(err) = give_back().await {
            if started.elapsed() > for_at_most {
                tracing::warn!(%err, what, "could not be given back; it expires by itself");
                return;
            }
            tokio::time::sleep(wait).await;
            wait = (wait * 2).min(Duration::from_secs(5));
        }
    });
}
