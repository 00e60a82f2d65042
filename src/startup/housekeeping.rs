//! What runs beside the requests for as long as the service does: the
//! heartbeat that keeps its claims, the sweep of expired idempotency keys,
//! and the standby's measure.

use std::time::Duration;

use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgPool};

use crate::store;
use crate::store::processes::{self, ProcessId};
use crate::store::{FleetReads, StoreError};

/// How often expired idempotency keys are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(15 * 60);

/// Measures the standby's lag for as long as the service runs.
pub(super) async fn measure_the_standby(reads: FleetReads, every: Duration, patience: Duration) {
    let mut every = tokio::time::interval(every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        reads.probe(patience).await;
    }
}

/// Says this process is alive, for as long as it runs, on a connection of
/// its own: a pool busy with requests must not make it look dead. A beat
/// that fails is tried again at the next, on a new connection (its claims
/// may be taken over meanwhile, which its own final writes then find).
pub(super) async fn beat(pool: PgPool, process: ProcessId) {
    let mut every = tokio::time::interval(processes::HEARTBEAT);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let options = PgConnectOptions::clone(&pool.connect_options());
    let mut own: Option<sqlx::PgConnection> = None;
    loop {
        every.tick().await;
        let beaten = async {
            let conn = match own.as_mut() {
                Some(conn) => conn,
                None => own.insert(sqlx::PgConnection::connect_with(&options).await?),
            };
            processes::beat(conn, process).await
        };
        if let Err(err) = tokio::time::timeout(processes::HEARTBEAT * 2, beaten)
            .await
            .unwrap_or_else(|_| Err(StoreError::from(sqlx::Error::PoolTimedOut)))
        {
            tracing::warn!(%err, "could not say this process is alive");
            own = None;
        }
    }
}

pub(super) async fn sweep_idempotency_keys(pool: PgPool) {
    let mut every = tokio::time::interval(SWEEP_EVERY);
    loop {
        every.tick().await;
        let swept = async {
            let mut conn = pool.acquire().await?;
            processes::forget_the_long_dead(&mut conn).await?;
            store::idempotency::sweep(&mut conn).await
        };
        match swept.await {
            Ok(0) => {}
            Ok(swept) => tracing::debug!(swept, "expired idempotency keys removed"),
            Err(err) => tracing::warn!(%err, "could not sweep idempotency keys"),
        }
    }
}
