//! The keep set's rows (SPEC §4): loading a conversation's items, saving what
//! a compaction or a handoff changed with the turns it read, and handing them
//! on to a successor. The keep figures' hourly sums (for /stats) are in
//! `figures`.

mod figures;

use sha2::{Digest, Sha256};
use sqlx::PgConnection;
use sqlx::types::Json;

use super::statements::{self, on};
use super::{StoreResult, count_of, db_count};
use crate::domain::{ConversationId, TenantId};
use crate::summary::keep::{KeepItem, KeepKind, KeepSet, Place, Source, Sources};

pub(crate) use figures::{figures_between, tally};

/// A conversation's keep set as stored, and the last stored turn it has read.
#[derive(Debug, Clone, Default)]
pub(crate) struct StoredKeep {
    pub set: KeepSet,
    pub turns_read: i64,
    /// Where the stored set stood when it was read.
    pub marks: Marks,
}

/// Where a stored keep set stands: every save moves its turns read or its
/// clock, so a set read at the same marks is the same set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub(crate) struct Marks {
    #[sqlx(rename = "keep_turn_seq")]
    pub turns_read: i64,
    #[sqlx(rename = "keep_clock")]
    pub clock: i64,
}

/// Where the conversation's keep set stands (`None`: no such conversation).
async fn marks_of(conn: &mut PgConnection, tenant: &TenantId, id: &ConversationId) -> StoreResult<Option<Marks>> {
    Ok(statements::query_as::<Marks>(
        "SELECT keep_turn_seq, keep_clock FROM conversations WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_optional(on(&mut *conn))
    .await?)
}

/// The conversation's keep marks (the default for one that does not exist).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn marks(conn: &mut PgConnection, tenant: &TenantId, id: &ConversationId) -> StoreResult<Marks> {
    Ok(marks_of(conn, tenant, id).await?.unwrap_or_default())
}

/// The row key: one request per conversation, every other item by its text.
fn key(kind: KeepKind, text: &str) -> Vec<u8> {
    match kind {
        KeepKind::Request => Vec::new(),
        _ => Sha256::digest(text.as_bytes())[..16].to_vec(),
    }
}

/// A `keep_items` row as [`load`] reads it.
#[derive(sqlx::FromRow)]
struct ItemRow {
    kind: KeepKind,
    text: String,
    source: Source,
    sources: i16,
    first_seen: Json<Place>,
    last_seen: Json<Place>,
    first_tick: i64,
    last_tick: i64,
    times_seen: i64,
}

impl From<ItemRow> for KeepItem {
    fn from(row: ItemRow) -> Self {
        Self {
            kind: row.kind,
            text: row.text,
            source: row.source,
            sources: Sources::from_bits(u8::try_from(row.sources).unwrap_or(0)),
            first_seen: row.first_seen.0,
            last_seen: row.last_seen.0,
            first_tick: count_of(row.first_tick),
            last_tick: count_of(row.last_tick),
            times_seen: count_of(row.times_seen),
        }
    }
}

/// The conversation's keep set (empty for one that has none yet).
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn load(conn: &mut PgConnection, tenant: &TenantId, id: &ConversationId) -> StoreResult<StoredKeep> {
    let Some(marks) = marks_of(conn, tenant, id).await? else {
        return Ok(StoredKeep::default());
    };
    let rows = statements::query_as::<ItemRow>(
        "SELECT kind, text, source, sources, first_seen, last_seen, first_tick, last_tick, times_seen
           FROM keep_items WHERE tenant = $1 AND conversation_id = $2
          ORDER BY first_tick, kind, key",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_all(on(&mut *conn))
    .await?;
    let items = rows.into_iter().map(KeepItem::from).collect();
    Ok(StoredKeep {
        set: KeepSet::new(items, count_of(marks.clock)),
        turns_read: marks.turns_read,
        marks,
    })
}

/// Saves the items `set` changed since it was loaded, its clock, and that
/// stored turns up to `turns_read` are read; inside the caller's transaction.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn save(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    set: &KeepSet,
    turns_read: i64,
) -> StoreResult<()> {
    if !set.removed().is_empty() {
        let (kinds, keys): (Vec<&str>, Vec<Vec<u8>>) = set
            .removed()
            .iter()
            .map(|(kind, text)| (kind.as_str(), key(*kind, text)))
            .unzip();
        statements::query(
            "DELETE FROM keep_items WHERE tenant = $1 AND conversation_id = $2
                AND (kind, key) IN (SELECT * FROM UNNEST($3::text[], $4::bytea[]))",
        )
        .bind(tenant.as_str())
        .bind(id.as_str())
        .bind(&kinds)
        .bind(&keys)
        .execute(on(&mut *conn))
        .await?;
    }
    let changed: Vec<&KeepItem> = set.changed().collect();
    if !changed.is_empty() {
        let column = |f: &dyn Fn(&KeepItem) -> String| changed.iter().map(|i| f(i)).collect::<Vec<String>>();
        let ticks = |f: &dyn Fn(&KeepItem) -> u64| changed.iter().map(|i| db_count(f(i))).collect::<Vec<i64>>();
        statements::query(
            "INSERT INTO keep_items (tenant, conversation_id, kind, key, text, source, sources, first_seen, last_seen,
                                     first_tick, last_tick, times_seen)
             SELECT $1, $2, * FROM UNNEST($3::text[], $4::bytea[], $5::text[], $6::text[], $7::smallint[], $8::jsonb[],
                                          $9::jsonb[], $10::bigint[], $11::bigint[], $12::bigint[])
             ON CONFLICT (tenant, conversation_id, kind, key) DO UPDATE SET
                text = EXCLUDED.text, source = EXCLUDED.source, sources = EXCLUDED.sources,
                first_seen = EXCLUDED.first_seen, last_seen = EXCLUDED.last_seen, first_tick = EXCLUDED.first_tick,
                last_tick = EXCLUDED.last_tick, times_seen = EXCLUDED.times_seen",
        )
        .bind(tenant.as_str())
        .bind(id.as_str())
        .bind(column(&|i| i.kind.as_str().to_owned()))
        .bind(changed.iter().map(|i| key(i.kind, &i.text)).collect::<Vec<Vec<u8>>>())
        .bind(column(&|i| i.text.clone()))
        .bind(column(&|i| i.source.as_str().to_owned()))
        .bind(
            changed
                .iter()
                .map(|i| i16::from(i.sources.bits()))
                .collect::<Vec<i16>>(),
        )
        .bind(changed.iter().map(|i| Json(&i.first_seen)).collect::<Vec<_>>())
        .bind(changed.iter().map(|i| Json(&i.last_seen)).collect::<Vec<_>>())
        .bind(ticks(&|i| i.first_tick))
        .bind(ticks(&|i| i.last_tick))
        .bind(ticks(&|i| i.times_seen))
        .execute(on(&mut *conn))
        .await?;
    }
    statements::query(
        "UPDATE conversations SET keep_turn_seq = GREATEST(keep_turn_seq, $3), keep_clock = GREATEST(keep_clock, $4)
          WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(turns_read)
    .bind(db_count(set.clock()))
    .execute(on(&mut *conn))
    .await?;
    Ok(())
}

/// A successor starts with its predecessor's items and clock.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn inherit(
    conn: &mut PgConnection,
    tenant: &TenantId,
    predecessor: &ConversationId,
    successor: &ConversationId,
) -> StoreResult<()> {
    statements::query(
        "INSERT INTO keep_items (tenant, conversation_id, kind, key, text, source, sources, first_seen, last_seen,
                                 first_tick, last_tick, times_seen)
         SELECT tenant, $3, kind, key, text, source, sources, first_seen, last_seen, first_tick, last_tick, times_seen
           FROM keep_items WHERE tenant = $1 AND conversation_id = $2
         ON CONFLICT (tenant, conversation_id, kind, key) DO NOTHING",
    )
    .bind(tenant.as_str())
    .bind(predecessor.as_str())
    .bind(successor.as_str())
    .execute(on(&mut *conn))
    .await?;
    statements::query(
        "UPDATE conversations SET keep_clock = GREATEST(keep_clock,
                (SELECT keep_clock FROM conversations WHERE tenant = $1 AND conversation_id = $2))
          WHERE tenant = $1 AND conversation_id = $3",
    )
    .bind(tenant.as_str())
    .bind(predecessor.as_str())
    .bind(successor.as_str())
    .execute(on(&mut *conn))
    .await?;
    Ok(())
}
