//! A conversation's rows as stored, as JSON, for `GET
//! /conversations/{id}/export` (SPEC §3, issue 25): what a user asks for
//! before deleting. Each row is Postgres's own JSON of it (`to_jsonb`), so
//! every column comes out, including ones added later; only what is derived
//! from the text (search vectors and their pieces) is left out.

use sqlx::PgConnection;

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

    /// A page: rows after a seq, at most so many, and only those that end
    /// within a byte budget, but the first (a longer row is read alone),
    /// sized without reading their text: `octet_length` of a stored text
    /// reads its header only.
    fn page_sql(self) -> &'static str {
        // `- 'search'` leaves out the turns' search vector and is a no-op
        // on the tables that have none.
        macro_rules! page_of {
            ($table:literal, $size:literal) => {
                concat!(
                    "WITH page AS (SELECT seq, size, sum(size) OVER (ORDER BY seq) - size AS before FROM (SELECT seq, 256 + ",
                    $size,
                    " AS size FROM ",
                    $table,
                    " WHERE tenant = $1 AND conversation_id = $2 AND seq > $3 ORDER BY seq LIMIT $4) sized) ",
                    "SELECT t.seq, (to_jsonb(t) - 'search')::text FROM ",
                    $table,
                    " t JOIN page USING (seq) WHERE t.tenant = $1 AND t.conversation_id = $2",
                    " AND (page.before = 0 OR page.before + page.size <= $5) ORDER BY t.seq"
                )
            };
        }
        match self {
            Self::Turns => page_of!(
                "turns",
                "coalesce(octet_length(user_text), 0) + coalesce(octet_length(assistant_text), 0)"
            ),
            Self::Events => page_of!("events", "coalesce(pg_column_size(payload), 0)"),
            Self::Compactions => page_of!(
                "compactions",
                "coalesce(octet_length(summary), 0) + coalesce(octet_length(harness), 0) + coalesce(pg_column_size(keep), 0)"
            ),
            Self::Preparations => page_of!(
                "preparations",
                "coalesce(octet_length(narrative), 0) + coalesce(octet_length(summary), 0) + coalesce(pg_column_size(message_tokens), 0) + coalesce(pg_column_size(keep), 0)"
            ),
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

/// Up to `limit` rows of a part after `after` (a seq), as (seq, JSON):
/// those that end within `bytes` of text, and at least one.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn page(
    conn: &mut PgConnection,
    part: Paged,
    tenant: &TenantId,
    id: &ConversationId,
    after: i64,
    (limit, bytes): (i64, i64),
) -> StoreResult<Vec<(i64, String)>> {
    let rows = statements::query_as::<(i64, String)>(part.page_sql())
        .bind(tenant.as_str())
        .bind(id.as_str())
        .bind(after)
        .bind(limit)
        .bind(bytes)
        .fetch_all(on(&mut *conn))
        .await?;
    Ok(rows)
}

/// Where a page of keep items ends: the next page starts after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeepCursor {
    first_tick: i64,
    kind: String,
    key: Vec<u8>,
}

/// The keep set's items as JSON, in the order they were first seen, a page
/// at a time (a keep set may hold thousands): at most `limit` items after
/// `after`, those that end within `bytes`, and at least one.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn keep_items(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    after: Option<&KeepCursor>,
    (limit, bytes): (i64, i64),
) -> StoreResult<(Vec<String>, Option<KeepCursor>)> {
    let rows = statements::query_as::<(i64, String, Vec<u8>, String)>(
        "WITH page AS (SELECT kind, key, first_tick, size, sum(size) OVER (ORDER BY first_tick, kind, key) - size AS before \
         FROM (SELECT kind, key, first_tick, 256 + coalesce(octet_length(text), 0) AS size FROM keep_items \
               WHERE tenant = $1 AND conversation_id = $2 \
                 AND ($3::bigint IS NULL OR (first_tick, kind, key) > ($3, $4, $5)) \
               ORDER BY first_tick, kind, key LIMIT $6) sized) \
         SELECT k.first_tick, k.kind, k.key, to_jsonb(k)::text FROM keep_items k JOIN page USING (kind, key) \
         WHERE k.tenant = $1 AND k.conversation_id = $2 AND (page.before = 0 OR page.before + page.size <= $7) \
         ORDER BY k.first_tick, k.kind, k.key",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(after.map(|cursor| cursor.first_tick))
    .bind(after.map(|cursor| cursor.kind.as_str()))
    .bind(after.map(|cursor| cursor.key.as_slice()))
    .bind(limit)
    .bind(bytes)
    .fetch_all(on(&mut *conn))
    .await?;
    let mut items = Vec::with_capacity(rows.len());
    let mut last = None;
    for (first_tick, kind, key, item) in rows {
        last = Some(KeepCursor { first_tick, kind, key });
        items.push(item);
    }
    Ok((items, last))
}
