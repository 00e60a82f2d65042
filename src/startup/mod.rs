//! Building and running the service: bind first (so tests can ask for port 0
//! and read the port), migrate, then serve until told to stop. The database's
//! part of start-up, what the use cases share and what runs beside the
//! requests are in modules of their own.

mod database;
mod error;
mod housekeeping;
mod services;
mod shutdown;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use sqlx::PgPool;
use tokio::net::TcpListener;

use database::{fleet_reads, migrate, wait_for_database};
pub use error::StartupError;
use housekeeping::{beat, measure_the_standby, sweep_idempotency_keys};
use services::{services, upstream_models};
pub(crate) use shutdown::shutdown_signal;

use crate::app::Services;
use crate::auth::{KeyRegistry, RateLimits};
use crate::background::Workers;
use crate::config::{ConnectionLimits, Settings};
use crate::http::{self, AppState};
use crate::llm::tokens;
use crate::serve;
use crate::store::StoreError;
use crate::store::processes::{self, ProcessId};

/// A bound, migrated service, ready to run.
pub struct Application {
    listener: TcpListener,
    router: Router,
    pool: PgPool,
    keys: Arc<KeyRegistry>,
    workers: Option<Workers>,
    /// What the use cases share (a replay runs some of them itself).
    services: Services,
    connections: ConnectionLimits,
    /// Follows key changes from startup on; stopped with the service.
    key_follower: tokio::task::JoinHandle<()>,
    /// How often the standby is measured, and how long each try may take.
    standby_probe: Option<(Duration, Duration)>,
    /// Says to what runs past a request's answer (an export's stream) that
    /// the service is stopping.
    stopping: tokio::sync::watch::Sender<bool>,
}

impl Application {
    pub async fn build(mut settings: Settings, pool: PgPool) -> Result<Self, StartupError> {
        let listener = TcpListener::bind(settings.addr)
            .await
            .map_err(|source| StartupError::Bind {
                addr: settings.addr,
                source,
            })?;
        let connections = client_connections(settings.connections);
        wait_for_database(&listener, &pool, settings.database_wait, connections).await?;
        let session = migrate(settings.database.direct_url.as_deref(), &pool).await?;
        let upstream_slots = settings
            .summarizer
            .as_ref()
            .map_or(1, |upstream| upstream.llm.max_concurrent);
        let (summary_model, score_model) = upstream_models(settings.summarizer.take())?;
        // Behind a transaction pooler an export's long transaction would
        // hold one of the server connections the requests share.
        let exports_database = session.clone().unwrap_or_else(|| (*pool.connect_options()).clone());
        let keys = KeyRegistry::load(pool.clone(), session).await?;
        if keys.is_open() {
            tracing::warn!(
                "NO API KEYS EXIST: compactd runs OPEN, as tenant `default`, and anyone who can reach it can read \
                 and write everything. Create a key (`compactd keys create --tenant T --role agent`) before exposing it."
            );
        }
        let key_follower = keys.clone().follow_changes().await;
        // Alive before the first claim it takes.
        let process = ProcessId::new();
        processes::beat(&mut *pool.acquire().await.map_err(StoreError::from)?, process).await?;
        // Recording starts before the first request.
        crate::telemetry::metrics();
        // The tokenizer's vocabulary loads once, now, not in the first request.
        tokio::task::spawn_blocking(tokens::warm_up);
        let (reads, standby_probe) = fleet_reads(settings.database.standby.as_ref(), &pool)?;
        let (stopping, _) = tokio::sync::watch::channel(false);
        let services = services(
            &settings,
            &pool,
            reads,
            (summary_model, score_model),
            process,
            exports_database,
            &stopping,
        );
        let workers = settings.background.map(|background| Workers {
            services: services.clone(),
            settings: background,
            upstream_slots,
        });
        let state = AppState::new(http::Shared {
            services: services.clone(),
            max_body_bytes: settings.max_body_bytes,
            keys: keys.clone(),
            rate_limits: Arc::new(RateLimits::new(settings.rate_per_second, settings.rate_burst)),
            timeouts: settings.timeouts,
            hosts: Arc::new(settings.allowed_hosts.clone()),
        });
        let router = http::router(state);
        tracing::info!(
            max_connections = connections.max_connections,
            header_timeout = ?connections.header_timeout,
            "client connections bounded"
        );
        Ok(Self {
            listener,
            router,
            pool,
            keys,
            workers,
            services,
            connections,
            key_follower,
            standby_probe,
            stopping,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// What the service's use cases share.
    pub(crate) fn services(&self) -> Services {
        self.services.clone()
    }

    /// The service's copy of the API keys.
    pub fn keys(&self) -> Arc<KeyRegistry> {
        self.keys.clone()
    }

    pub fn port(&self) -> u16 {
        self.local_addr().port()
    }

    /// Serves until `shutdown` resolves, then finishes the requests in flight.
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send + 'static) -> io::Result<()> {
        let mut background = vec![
            self.key_follower,
            tokio::spawn(beat(self.pool.clone(), self.services.process)),
            tokio::spawn(sweep_idempotency_keys(self.pool.clone())),
            tokio::spawn(crate::telemetry::keep_metrics_bounded()),
        ];
        background.extend(self.workers.map(Workers::spawn).unwrap_or_default());
        if let Some((every, patience)) = self.standby_probe {
            background.push(tokio::spawn(measure_the_standby(
                self.services.reads.clone(),
                every,
                patience,
            )));
        }
        let stopping = self.stopping;
        let shutdown = async move {
            shutdown.await;
            // Exports still streaming end now; the rest finish.
            stopping.send_replace(true);
        };
        let served = serve::serve(&self.listener, self.router, self.connections, shutdown).await;
        for task in background {
            task.abort();
        }
        // Its claims are free now rather than after its silence: what a
        // request still finishing here would record is refused once another
        // has taken its claim (each final write checks the claim).
        let left = async {
            let mut conn = self.pool.acquire().await?;
            processes::leave(&mut conn, self.services.process).await
        };
        if let Err(err) = left.await {
            tracing::warn!(%err, "could not say this process stopped; its claims free themselves in seconds");
        }
        self.pool.close().await;
        served
    }
}

/// Client connections held at once: as configured, or fewer when the
/// open-file limit (raised to its hard limit first) cannot hold them.
fn client_connections(configured: ConnectionLimits) -> ConnectionLimits {
    let Some(open_files) = serve::raise_open_file_limit() else {
        return configured;
    };
    let fitted = serve::fitted(configured, open_files);
    if fitted.max_connections < configured.max_connections {
        tracing::warn!(
            configured = configured.max_connections,
            cap = fitted.max_connections,
            open_files,
            "the open-file limit holds client connections below COMPACTD_CLIENT_CONNECTIONS; raise it (ulimit -n, LimitNOFILE) to serve more"
        );
    }
    fitted
}
