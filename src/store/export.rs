//! A conversation's rows as stored, as JSON, for `GET
//! /conversations/{id}/export` (SPEC §3, issue 25): what a user asks for
//! before deleting. Each row is Postgres's own JSON of it (`to_jsonb`), so
//! every column comes out, including ones added later; only what is derived
//! from the text (search vectors and their pieces) is left out.

use sqlx::{PgConnection, Row};

use super::StoreResult;
use super::statements::{self, on};
use crate::domain::{ConversationId, TenantId};

/// A part of the export holding many rows, read in pages by its `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Paged {
    Turns,
    Events,
    Compactions,
    Preparations,
}

impl Paged {
    pub(crate) const ALL: [Self; 4] = [Self::Turns, Self::Events, Self::Compactions, Self::Preparations];

    /// The part's name in the document (its table's).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Turns => "turns",
            Self::Events => "events",
            Self::Compactions => "compactions",
            Self::Preparations => "preparations",
        }
    }

    fn page_sql(self) -> &'static str {
        // `- 'search'` leaves out the turns' search vector and is a no-op
        // on the tables that have none.
        macro_rules! page_of {
            ($table:literal) => {
                concat!(
                    "SELECT seq, (to_jsonb(t) - 'search')::text FROM ",
                    $table,
                    " t WHERE tenant = $1 AND conversation_id = $2 AND seq > $3 ORDER BY seq LIMIT $4"
                )
            };
        }
        match self {
            Self::Turns => page_of!("turns"),
            Self::Events => page_of!("events"),
            Self::Compactions => page_of!("compactions"),
            Self::Preparations => page_of!("preparations"),
        }
    }
}

/// The conversation's own row as JSON; `None`: the tenant has no such one.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn conversation(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Option<String>> {
    let row: Option<String> = statements::query_scalar(
        "SELECT to_jsonb(c)::text FROM conversations c WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_optional(on(&mut *conn))
    .await?;
    Ok(row)
}

/// Up to `limit` rows of a part after `after` (a seq), as (seq, JSON).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn page(
    conn: &mut PgConnection,
    part: Paged,
    tenant: &TenantId,
    id: &ConversationId,
    after: i64,
    limit: i64,
) -> StoreResult<Vec<(i64, String)>> {
    let rows = statements::query(part.page_sql())
        .bind(tenant.as_str())
        .bind(id.as_str())
        .bind(after)
        .bind(limit)
        .fetch_all(on(&mut *conn))
        .await?;
    Ok(rows
        .iter()
        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
        .collect::<sqlx::Result<_>>()?)
}

/// The keep set's items as JSON (a keep set is small: one row per item).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn keep_items(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
) -> StoreResult<Vec<String>> {
    let rows: Vec<String> = statements::query_scalar(
        "SELECT to_jsonb(k)::text FROM keep_items k WHERE tenant = $1 AND conversation_id = $2 ORDER BY first_tick, kind, key",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(rows)
}
