//! Connections the hot path gave back clean, reused without sqlx's release
//! round trip (issue 38). sqlx tests every connection it takes back with a
//! `Sync` and its answer — a task, a send and a wake-up on both sides, 11% of
//! the service's CPU on the hot path's mix — though a connection whose
//! exchange ran to its end has nothing to flush. A use case that succeeded
//! puts its connection here; the next hot request takes it before asking the
//! pool.
//!
//! What sits here is checked out of sqlx's pool, so it is held only while the
//! pool could still serve anyone else at once (an idle connection, or room for
//! a new one): a caller that asks the pool itself never waits on a connection
//! kept here. Past that, or idle for a second, or with the pool closing, a
//! connection goes back through sqlx as before.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use sqlx::pool::PoolConnection;
use sqlx::{Connection, PgConnection, PgPool, Postgres};

use super::error::idle_through_a_loss;

/// How long a connection may wait here before it goes back to the pool. On
/// the hot path the next request takes it within microseconds; a caller that
/// asks sqlx's pool itself (a transaction begun on it, a fleet read) while
/// the pool is at its cap waits at most this, and the sweep's period, for it.
const IDLE_AT_MOST: Duration = Duration::from_millis(20);

/// How often what waited too long is given back, while anything waits.
const SWEEP_EVERY: Duration = Duration::from_millis(10);

/// The warm connections of one pool.
#[derive(Clone, Debug)]
pub(crate) struct Warm {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    pool: PgPool,
    waiting: Mutex<Waiting>,
}

/// The connections waiting, and whether a sweep runs for them: one runs
/// exactly while any wait (both kept under one lock, so none is left unswept).
#[derive(Debug, Default)]
struct Waiting {
    connections: Vec<Idle>,
    sweeping: bool,
}

#[derive(Debug)]
struct Idle {
    conn: PoolConnection<Postgres>,
    since: Instant,
}

/// A connection taken for one use case; dropped, it goes back through sqlx.
#[derive(Debug)]
pub(crate) struct WarmConnection {
    conn: PoolConnection<Postgres>,
    warm: Warm,
}

impl Warm {
    pub(crate) fn new(pool: PgPool) -> Self {
        Self {
            inner: Arc::new(Inner {
                pool,
                waiting: Mutex::default(),
            }),
        }
    }

    /// A warm connection if one waits, else one from the pool.
    pub(crate) async fn acquire(&self) -> Result<WarmConnection, sqlx::Error> {
        let conn = match self.take() {
            Some(conn) => conn,
            None => self.inner.pool.acquire().await?,
        };
        Ok(WarmConnection {
            conn,
            warm: self.clone(),
        })
    }

    fn take(&self) -> Option<PoolConnection<Postgres>> {
        loop {
            let idle = self.inner.lock().connections.pop()?;
            // One idle while the database was seen lost goes back through
            // sqlx, whose release test drops it if it is dead.
            if !idle_through_a_loss(idle.since.elapsed()) {
                return Some(idle.conn);
            }
        }
    }

    fn put(&self, conn: PoolConnection<Postgres>) {
        let pool = &self.inner.pool;
        let others_served_at_once = pool.num_idle() > 0 || pool.size() < pool.options().get_max_connections();
        // Queued messages (a dropped transaction's rollback) are sent by the
        // release test: a connection holding them goes back through sqlx.
        if pool.is_closed() || !others_served_at_once || conn.should_flush() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut waiting = self.inner.lock();
        waiting.connections.push(Idle {
            conn,
            since: Instant::now(),
        });
        if !waiting.sweeping {
            waiting.sweeping = true;
            runtime.spawn(sweep(Arc::downgrade(&self.inner)));
        }
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Gives back what waited too long, and everything once the pool closes
/// (closing waits for every connection to come back); ends when none waits.
async fn sweep(inner: Weak<Inner>) {
    loop {
        tokio::time::sleep(SWEEP_EVERY).await;
        let Some(inner) = inner.upgrade() else { return };
        let closing = inner.pool.is_closed();
        let mut waiting = inner.lock();
        let (stale, fresh): (Vec<Idle>, Vec<Idle>) = std::mem::take(&mut waiting.connections)
            .into_iter()
            .partition(|idle| closing || idle.since.elapsed() >= IDLE_AT_MOST);
        waiting.connections = fresh;
        let done = waiting.connections.is_empty();
        if done {
            waiting.sweeping = false;
        }
        drop(waiting);
        // Given back outside the lock: each release spawns sqlx's test.
        drop(stale);
        if done {
            return;
        }
    }
}

impl WarmConnection {
    /// Its use case succeeded: its exchange ran to the end, so the
    /// connection waits here for the next one.
    pub(crate) fn keep_warm(self) {
        let warm = self.warm.clone();
        warm.put(self.conn);
    }
}

impl Deref for WarmConnection {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        &self.conn
    }
}

impl DerefMut for WarmConnection {
    fn deref_mut(&mut self) -> &mut PgConnection {
        &mut self.conn
    }
}
