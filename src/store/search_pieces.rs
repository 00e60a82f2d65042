//! The search vectors of a long turn's pieces (issue 23): which turns still
//! lack them, and writing one turn's, claimed so no two workers write it.

use sqlx::{Connection, PgConnection};

use super::StoreResult;
use super::statements::{self, on};

/// Tries at writing one turn's pieces before it is left to the substring
/// search for good.
const MOST_ATTEMPTS: i32 = 3;

/// What became of the turn taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Attempt {
    /// Its pieces were written (this many), and it is due no more.
    Written(u64),
    /// Postgres refused to write them (a text it cannot convert, say): it
    /// stays due, behind the rest, tried at most three times in all.
    Refused(String),
}

/// Writes the pieces of the long turn stored first among those due (turns
/// that failed before wait behind the rest), in one transaction that holds
/// it (`SKIP LOCKED`, so workers never write one twice; a worker that dies
/// mid-way leaves it due) and takes it off the due list. Announced on
/// `compactd_background` as `tenant/conversation_id/search_pieces` (or
/// `…/search_pieces_refused`). `None` when no turn is due.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn write_next(conn: &mut PgConnection) -> StoreResult<Option<Attempt>> {
    let mut tx = conn.begin().await?;
    let due: Option<(String, String, i64)> = statements::query_as(
        "SELECT tenant, conversation_id, seq FROM turn_pieces_due
          WHERE attempts < $1
          ORDER BY attempts, id LIMIT 1 FOR UPDATE SKIP LOCKED",
    )
    .bind(MOST_ATTEMPTS)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((tenant, conversation_id, seq)) = due else {
        return Ok(None);
    };
    // In a savepoint, so a refusal leaves the claim standing to be counted.
    let mut writing = tx.begin().await?;
    let written: sqlx::Result<i32> = statements::query_scalar(
        "SELECT compactd_write_turn_pieces(tenant, conversation_id, seq,
                                           coalesce(user_text, '') || ' ' || coalesce(assistant_text, ''))
           FROM turns WHERE tenant = $1 AND conversation_id = $2 AND seq = $3",
    )
    .bind(&tenant)
    .bind(&conversation_id)
    .bind(seq)
    .fetch_one(&mut *writing)
    .await;
    let (attempt, kind) = match written {
        Ok(pieces) => {
            writing.commit().await?;
            statements::query("DELETE FROM turn_pieces_due WHERE tenant = $1 AND conversation_id = $2 AND seq = $3")
                .bind(&tenant)
                .bind(&conversation_id)
                .bind(seq)
                .execute(&mut *tx)
                .await?;
            (Attempt::Written(u64::try_from(pieces).unwrap_or(0)), "search_pieces")
        }
        Err(sqlx::Error::Database(refused)) => {
            writing.rollback().await?;
            statements::query(
                "UPDATE turn_pieces_due SET attempts = attempts + 1
                  WHERE tenant = $1 AND conversation_id = $2 AND seq = $3",
            )
            .bind(&tenant)
            .bind(&conversation_id)
            .bind(seq)
            .execute(&mut *tx)
            .await?;
            (Attempt::Refused(refused.to_string()), "search_pieces_refused")
        }
        Err(other) => return Err(other.into()),
    };
    statements::query("SELECT pg_notify('compactd_background', $1)")
        .bind(format!("{tenant}/{conversation_id}/{kind}"))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(attempt))
}

/// How many long turns still wait for their pieces (those given up on aside).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn due(conn: &mut PgConnection) -> StoreResult<i64> {
    Ok(
        statements::query_scalar("SELECT count(*) FROM turn_pieces_due WHERE attempts < $1")
            .bind(MOST_ATTEMPTS)
            .fetch_one(on(&mut *conn))
            .await?,
    )
}
