//! Retention (`COMPACTD_RETENTION_DAYS`, issue 25): the conversations of
//! every tenant that nothing has written to for that long.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use sqlx::PgConnection;

use super::StoreResult;
use super::lease::free;
use super::statements::{self, on};
use crate::domain::TenantId;

/// Up to `limit` conversations nothing has written to for `idle_for`,
/// oldest first, locked with the conversations they link to, by tenant and
/// in id order. Nothing here waits for a lock: a conversation a request
/// holds is not idle, and one whose linked conversation a request holds
/// waits for the next sweep. One being compacted (its claim not lapsed
/// after `compaction_lease`) is not idle either.
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn lock_idle(
    conn: &mut PgConnection,
    idle_for: Duration,
    compaction_lease: Duration,
    limit: i64,
) -> StoreResult<BTreeMap<TenantId, Vec<String>>> {
    let candidates = lock_candidates(conn, idle_for, compaction_lease, limit).await?;
    let mut held: BTreeSet<(TenantId, String)> = BTreeSet::new();
    // (tenant, conversation, a conversation it links to)
    let mut links: Vec<(TenantId, String, String)> = Vec::new();
    for (tenant, id, predecessor, successor) in candidates {
        let linked = [predecessor, successor];
        links.extend(linked.into_iter().flatten().map(|to| (tenant.clone(), id.clone(), to)));
        held.insert((tenant, id));
    }
    let (tenants, ids): (Vec<String>, Vec<String>) = links
        .iter()
        .filter(|(tenant, _, to)| !held.contains(&(tenant.clone(), to.clone())))
        .map(|(tenant, _, to)| (tenant.to_string(), to.clone()))
        .unzip();
    let idle_ones = held.clone();
    if !ids.is_empty() {
        held.extend(lock_linked(conn, &tenants, &ids).await?);
    }
    let blocked = blocked_by_a_request(conn, &links, &held).await?;
    let mut idle: BTreeMap<TenantId, Vec<String>> = BTreeMap::new();
    for (tenant, id) in idle_ones.into_iter().filter(|key| !blocked.contains(key)) {
        idle.entry(tenant).or_default().push(id);
    }
    Ok(idle)
}

/// A candidate: its tenant, its id, and the ids of its predecessor and successor.
type Candidate = (TenantId, String, Option<String>, Option<String>);

/// The conversations idle for `idle_for` and not being compacted, oldest
/// first, up to `limit`, locked (those a request holds are skipped).
async fn lock_candidates(
    conn: &mut PgConnection,
    idle_for: Duration,
    compaction_lease: Duration,
    limit: i64,
) -> StoreResult<Vec<Candidate>> {
    // The day index finds the candidates (updated_at's day, which changes
    // once a day); updated_at itself, set by every write, decides.
    let candidates = statements::query_as::<Candidate>(&format!(
        "SELECT tenant, conversation_id, predecessor_id, successor_id FROM conversations
          WHERE active_on <= ((now() - $1::interval) AT TIME ZONE 'UTC')::date
            AND updated_at < now() - $1::interval AND {}
          ORDER BY active_on, tenant, conversation_id LIMIT $2 FOR UPDATE SKIP LOCKED",
        free!("compacting_since", "3")
    ))
    .bind(idle_for)
    .bind(limit)
    .bind(compaction_lease)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(candidates)
}

/// Locks the conversations the candidates link to (`tenants[i]`, `ids[i]`),
/// skipping those a request holds; answers the ones it locked.
async fn lock_linked(
    conn: &mut PgConnection,
    tenants: &[String],
    ids: &[String],
) -> StoreResult<Vec<(TenantId, String)>> {
    let near: Vec<(TenantId, String)> = statements::query_as(
        "SELECT tenant, conversation_id FROM conversations
              WHERE (tenant, conversation_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
              FOR UPDATE SKIP LOCKED",
    )
    .bind(tenants)
    .bind(ids)
    .fetch_all(on(&mut *conn))
    .await?;
    Ok(near)
}

/// The conversations of `links` linked to one that exists but is not
/// `held`: a request holds it.
async fn blocked_by_a_request(
    conn: &mut PgConnection,
    links: &[(TenantId, String, String)],
    held: &BTreeSet<(TenantId, String)>,
) -> StoreResult<BTreeSet<(TenantId, String)>> {
    // One linked to a conversation a request holds is left for a later
    // sweep (one linked to a conversation that is gone is not).
    let unheld: Vec<&(TenantId, String, String)> = links
        .iter()
        .filter(|(tenant, _, to)| !held.contains(&(tenant.clone(), to.clone())))
        .collect();
    let mut blocked: BTreeSet<(TenantId, String)> = BTreeSet::new();
    if !unheld.is_empty() {
        let (tenants, ids): (Vec<String>, Vec<String>) = unheld
            .iter()
            .map(|(tenant, _, to)| (tenant.to_string(), to.clone()))
            .unzip();
        let busy: BTreeSet<(TenantId, String)> = statements::query_as::<(TenantId, String)>(
            "SELECT tenant, conversation_id FROM conversations
              WHERE (tenant, conversation_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))",
        )
        .bind(&tenants)
        .bind(&ids)
        .fetch_all(on(&mut *conn))
        .await?
        .into_iter()
        .collect();
        blocked = unheld
            .into_iter()
            .filter(|(tenant, _, to)| busy.contains(&(tenant.clone(), to.clone())))
            .map(|(tenant, id, _)| (tenant.clone(), id.clone()))
            .collect();
    }
    Ok(blocked)
}
