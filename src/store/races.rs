//! One lock order and one retry rule: how concurrent writers stay out of
//! each other's way.

use std::future::Future;

use super::error::StoreResult;
use super::statements::{self, on};
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
    statements::query("SELECT 1 FROM conversations WHERE tenant = $1 AND conversation_id = $2 FOR NO KEY UPDATE")
        .bind(tenant)
        .bind(conversation_id)
        .execute(on(&mut *conn))
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
