//! The search vectors of a long turn's pieces (issue 23): which turns still
//! lack them, and writing one turn's, claimed so no two workers write it.

use sqlx::{Connection, PgConnection};

use super::StoreResult;

/// Writes the pieces of the oldest long turn still due, in one transaction
/// that takes it off the due list: `SKIP LOCKED`, so workers never write one
/// twice, and a worker that dies mid-way leaves it due. Announced on
/// `compactd_background` as `tenant/conversation_id/search_pieces`. Answers
/// how many pieces were written; `None` when no turn is due.
pub(crate) async fn write_next(conn: &mut PgConnection) -> StoreResult<Option<u64>> {
    let mut tx = conn.begin().await?;
    let written: Option<(String, String, i32)> = sqlx::query_as(
        "WITH due AS (
           DELETE FROM turn_pieces_due
            WHERE (tenant, conversation_id, seq) = (
                  SELECT tenant, conversation_id, seq FROM turn_pieces_due
                   ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING tenant, conversation_id, seq
         )
         SELECT t.tenant, t.conversation_id,
                compactd_write_turn_pieces(t.tenant, t.conversation_id, t.seq,
                                           coalesce(t.user_text, '') || ' ' || coalesce(t.assistant_text, ''))
           FROM turns t JOIN due USING (tenant, conversation_id, seq)",
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some((tenant, conversation_id, pieces)) = written else {
        return Ok(None);
    };
    sqlx::query("SELECT pg_notify('compactd_background', $1)")
        .bind(format!("{tenant}/{conversation_id}/search_pieces"))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Some(u64::try_from(pieces).unwrap_or(0)))
}

/// How many long turns still wait for their pieces.
pub(crate) async fn due(conn: &mut PgConnection) -> StoreResult<i64> {
    Ok(sqlx::query_scalar("SELECT count(*) FROM turn_pieces_due")
        .fetch_one(&mut *conn)
        .await?)
}
