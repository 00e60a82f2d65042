//! The keep set's rows (SPEC §4): loading a conversation's items, saving what
//! a compaction or a handoff changed with the turns it read, and handing them
//! on to a successor.

use sha2::{Digest, Sha256};
use sqlx::postgres::PgRow;
use sqlx::types::Json;
use sqlx::{PgConnection, Row};

use super::{StoreError, StoreResult, count_of, db_count};
use crate::domain::{ConversationId, TenantId};
use crate::policy::keep::{KeepItem, KeepKind, KeepSet, Place, Source, Sources};

/// A conversation's keep set as stored, and the last stored turn it has read.
#[derive(Debug, Clone, Default)]
pub struct StoredKeep {
    pub set: KeepSet,
    pub turns_read: i64,
}

/// The row key: one request per conversation, every other item by its text.
fn key(item: &KeepItem) -> Vec<u8> {
    match item.kind {
        KeepKind::Request => Vec::new(),
        _ => Sha256::digest(item.text.as_bytes())[..16].to_vec(),
    }
}

fn item(row: &PgRow) -> StoreResult<KeepItem> {
    let kind: String = row.try_get("kind")?;
    let source: String = row.try_get("source")?;
    let sources: i16 = row.try_get("sources")?;
    let first_seen: Json<Place> = row.try_get("first_seen")?;
    let last_seen: Json<Place> = row.try_get("last_seen")?;
    Ok(KeepItem {
        kind: KeepKind::parse(&kind).ok_or_else(|| StoreError::Corrupt(format!("keep item kind {kind:?}")))?,
        text: row.try_get("text")?,
        source: Source::parse(&source).ok_or_else(|| StoreError::Corrupt(format!("keep item source {source:?}")))?,
        sources: Sources::from_bits(u8::try_from(sources).unwrap_or(0)),
        first_seen: first_seen.0,
        last_seen: last_seen.0,
        first_tick: count_of(row.try_get("first_tick")?),
        last_tick: count_of(row.try_get("last_tick")?),
        times_seen: count_of(row.try_get("times_seen")?),
    })
}

/// The conversation's keep set (empty for one that has none yet).
pub async fn load(conn: &mut PgConnection, tenant: &TenantId, id: &ConversationId) -> StoreResult<StoredKeep> {
    let marks =
        sqlx::query("SELECT keep_turn_seq, keep_clock FROM conversations WHERE tenant = $1 AND conversation_id = $2")
            .bind(tenant.as_str())
            .bind(id.as_str())
            .fetch_optional(&mut *conn)
            .await?;
    let Some(marks) = marks else {
        return Ok(StoredKeep::default());
    };
    let rows = sqlx::query(
        "SELECT kind, text, source, sources, first_seen, last_seen, first_tick, last_tick, times_seen
           FROM keep_items WHERE tenant = $1 AND conversation_id = $2
          ORDER BY first_tick, kind, key",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .fetch_all(&mut *conn)
    .await?;
    let items = rows.iter().map(item).collect::<StoreResult<Vec<_>>>()?;
    Ok(StoredKeep {
        set: KeepSet::new(items, count_of(marks.try_get("keep_clock")?)),
        turns_read: marks.try_get("keep_turn_seq")?,
    })
}

/// Saves the items `set` changed since it was loaded, its clock, and that
/// stored turns up to `turns_read` are read; inside the caller's transaction.
pub async fn save(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    set: &KeepSet,
    turns_read: i64,
) -> StoreResult<()> {
    let changed: Vec<&KeepItem> = set.changed().collect();
    if !changed.is_empty() {
        let column = |f: &dyn Fn(&KeepItem) -> String| changed.iter().map(|i| f(i)).collect::<Vec<String>>();
        let ticks = |f: &dyn Fn(&KeepItem) -> u64| changed.iter().map(|i| db_count(f(i))).collect::<Vec<i64>>();
        sqlx::query(
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
        .bind(changed.iter().map(|i| key(i)).collect::<Vec<Vec<u8>>>())
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
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query(
        "UPDATE conversations SET keep_turn_seq = GREATEST(keep_turn_seq, $3), keep_clock = GREATEST(keep_clock, $4)
          WHERE tenant = $1 AND conversation_id = $2",
    )
    .bind(tenant.as_str())
    .bind(id.as_str())
    .bind(turns_read)
    .bind(db_count(set.clock()))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A successor starts with its predecessor's items and clock.
pub async fn inherit(
    conn: &mut PgConnection,
    tenant: &TenantId,
    predecessor: &ConversationId,
    successor: &ConversationId,
) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO keep_items (tenant, conversation_id, kind, key, text, source, sources, first_seen, last_seen,
                                 first_tick, last_tick, times_seen)
         SELECT tenant, $3, kind, key, text, source, sources, first_seen, last_seen, first_tick, last_tick, times_seen
           FROM keep_items WHERE tenant = $1 AND conversation_id = $2
         ON CONFLICT (tenant, conversation_id, kind, key) DO NOTHING",
    )
    .bind(tenant.as_str())
    .bind(predecessor.as_str())
    .bind(successor.as_str())
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE conversations SET keep_clock = GREATEST(keep_clock,
                (SELECT keep_clock FROM conversations WHERE tenant = $1 AND conversation_id = $2))
          WHERE tenant = $1 AND conversation_id = $3",
    )
    .bind(tenant.as_str())
    .bind(predecessor.as_str())
    .bind(successor.as_str())
    .execute(&mut *conn)
    .await?;
    Ok(())
}
