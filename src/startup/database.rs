//! The database at start-up: waiting until it answers, migrating it (past
//! a pooler when one stands between), and where the fleet's reads go.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgConnectOptions;
use tokio::net::TcpListener;

use super::error::StartupError;
use crate::config::{ConnectionLimits, Standby};
use crate::http;
use crate::serve;
use crate::store;
use crate::store::FleetReads;

/// The longest pause between two tries at the database during start-up.
const MOST_PATIENT_PAUSE: Duration = Duration::from_secs(5);

/// Waits, with backoff, until the database answers, for at most `patience`;
/// meanwhile the listener answers /healthz and turns everything else away
/// with a 503, so orchestrators see a live process that is not ready.
pub(super) async fn wait_for_database(
    listener: &TcpListener,
    pool: &PgPool,
    patience: Duration,
    limits: ConnectionLimits,
) -> Result<(), StartupError> {
    if store::ping(pool).await.is_ok() {
        return Ok(());
    }
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let starting = serve::serve(listener, http::routes::health::starting_router(), limits, async {
        stopped.await.ok();
    });
    let waited = async {
        let deadline = tokio::time::Instant::now() + patience;
        let mut pause = Duration::from_millis(100);
        let answered = loop {
            match store::ping(pool).await {
                Ok(()) => break Ok(()),
                Err(last) if tokio::time::Instant::now() + pause > deadline => {
                    break Err(StartupError::DatabaseUnavailable { waited: patience, last });
                }
                Err(err) => {
                    tracing::warn!(%err, retry_in = ?pause, "the database does not answer yet; waiting for it");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(MOST_PATIENT_PAUSE);
                }
            }
        };
        let _ = stop.send(());
        answered
    };
    let (_, answered) = tokio::join!(starting, waited);
    if answered.is_ok() {
        tracing::info!("the database answers; starting");
    }
    answered
}

/// Migrates the database, past the pooler when a direct URL is set (a
/// transaction pooler cannot hold the migration's lock); answers that
/// direct connection's options, for what needs a session of its own.
pub(super) async fn migrate(direct_url: Option<&str>, pool: &PgPool) -> Result<Option<PgConnectOptions>, StartupError> {
    let Some(url) = direct_url else {
        store::migrate(pool).await?;
        return Ok(None);
    };
    let direct = url.parse::<PgConnectOptions>().map_err(StartupError::DirectUrl)?;
    store::migrate_at(direct.clone()).await?;
    Ok(Some(direct))
}

/// The least and most a probe of the standby may take (its lag allowed, within
/// these): one that takes longer finds it lost.
const PROBE_PATIENCE: (Duration, Duration) = (Duration::from_millis(200), Duration::from_secs(2));

/// Where the fleet's reads go (a standby when one is set), and how often and
/// how patiently the standby is measured.
pub(super) fn fleet_reads(
    standby: Option<&Standby>,
    pool: &PgPool,
) -> Result<(FleetReads, Option<(Duration, Duration)>), StartupError> {
    let Some(standby) = standby else {
        return Ok((FleetReads::primary_only(pool.clone()), None));
    };
    let options = standby
        .url
        .parse::<PgConnectOptions>()
        .map_err(StartupError::StandbyUrl)?;
    let standby_pool = store::pool(options, pool.options().get_max_connections());
    let reads = FleetReads::with_standby(pool.clone(), standby_pool, standby.max_lag);
    let probe = (
        standby.probe_every,
        standby.max_lag.clamp(PROBE_PATIENCE.0, PROBE_PATIENCE.1),
    );
    Ok((reads, Some(probe)))
}
