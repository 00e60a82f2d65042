//! Building and running the service: bind first (so tests can ask for port 0
//! and read the port), migrate, then serve until told to stop.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgPool};
use tokio::net::TcpListener;

use crate::app::gate::Gate;
use crate::app::{Budget, Exports, Services};
use crate::auth::{KeyRegistry, RateLimits};
use crate::background::Workers;
use crate::config::{ConnectionLimits, Settings, Standby, Upstream};
use crate::http::{self, AppState};
use crate::llm::{LlmClient, LlmError, UpstreamModel, tokens};
use crate::serve;
use crate::store;
use crate::store::processes::{self, ProcessId};
use crate::store::{FleetReads, StoreError};

/// The least and most a probe of the standby may take (its lag allowed, within
/// these): one that takes longer finds it lost.
const PROBE_PATIENCE: (Duration, Duration) = (Duration::from_millis(200), Duration::from_secs(2));

/// How often expired idempotency keys are swept.
const SWEEP_EVERY: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("could not listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: io::Error },
    #[error("the database did not answer within {waited:?}: {last}")]
    DatabaseUnavailable { waited: Duration, last: StoreError },
    #[error("migrations failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the upstream LLM client could not be built: {0}")]
    Llm(#[from] LlmError),
    #[error("COMPACTD_DIRECT_DATABASE_URL is not a Postgres URL: {0}")]
    DirectUrl(sqlx::Error),
    #[error("COMPACTD_READ_DATABASE_URL is not a Postgres URL: {0}")]
    StandbyUrl(sqlx::Error),
    #[error("the API keys could not be read: {0}")]
    Keys(#[from] StoreError),
}

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
            prepare_within: settings.timeouts.summarize,
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

/// The longest pause between two tries at the database during start-up.
const MOST_PATIENT_PAUSE: Duration = Duration::from_secs(5);

/// Waits, with backoff, until the database answers, for at most `patience`;
/// meanwhile the listener answers /healthz and turns everything else away
/// with a 503, so orchestrators see a live process that is not ready.
async fn wait_for_database(
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

/// Measures the standby's lag for as long as the service runs.
async fn measure_the_standby(reads: FleetReads, every: Duration, patience: Duration) {
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
async fn beat(pool: PgPool, process: ProcessId) {
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

async fn sweep_idempotency_keys(pool: PgPool) {
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

/// Resolves on Ctrl+C or SIGTERM.
pub(crate) fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{Signal, SignalKind, signal};
    // Installed now, not when first polled: a SIGTERM that comes the moment
    // the service says it listens must not meet the default action (death).
    let terminate = signal(SignalKind::terminate()).ok();
    let interrupt = signal(SignalKind::interrupt()).ok();
    async fn received(signal: Option<Signal>) {
        match signal {
            Some(mut signal) => {
                signal.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    }
    async move {
        tokio::select! {
            () = received(terminate) => {},
            () = received(interrupt) => {},
        }
        tracing::info!("shutting down");
    }
}

/// Migrates the database, past the pooler when a direct URL is set (a
/// transaction pooler cannot hold the migration's lock); answers that
/// direct connection's options, for what needs a session of its own.
async fn migrate(direct_url: Option<&str>, pool: &PgPool) -> Result<Option<PgConnectOptions>, StartupError> {
    let Some(url) = direct_url else {
        store::migrate(pool).await?;
        return Ok(None);
    };
    let direct = url.parse::<PgConnectOptions>().map_err(StartupError::DirectUrl)?;
    store::migrate_at(direct.clone()).await?;
    Ok(Some(direct))
}

/// What the use cases share, from the settings and what start-up made.
fn services(
    settings: &Settings,
    pool: &PgPool,
    reads: FleetReads,
    (summary_model, score_model): (Option<UpstreamModel>, Option<UpstreamModel>),
    process: ProcessId,
    exports_database: PgConnectOptions,
    stopping: &tokio::sync::watch::Sender<bool>,
) -> Services {
    Services {
        pool: pool.clone(),
        warm: store::Warm::new(pool.clone()),
        reads,
        policy: Arc::new(settings.policy.clone()),
        summary_model,
        summaries: settings.summaries.clone(),
        score_model,
        budget: Budget {
            daily: settings.daily_token_budget,
        },
        leases: settings.leases,
        process,
        exports: Exports {
            pool: store::side_pool(exports_database, settings.work.exports_at_once as u32),
            gate: Gate::new("export", settings.work.exports_at_once),
            stall: settings.work.export_stall,
            deadline: settings.work.export_deadline,
            stopping: stopping.subscribe(),
        },
        keep_checks: Gate::new("keep check", settings.work.keep_checks_at_once)
            .waiting_at_most(settings.timeouts.request),
        prices: Arc::new(settings.prices.clone()),
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

/// The summary model and the score model, on one client: one bound on the
/// calls in flight for both.
fn upstream_models(upstream: Option<Upstream>) -> Result<(Option<UpstreamModel>, Option<UpstreamModel>), StartupError> {
    let Some(upstream) = upstream else {
        return Ok((None, None));
    };
    let client = Arc::new(LlmClient::new(upstream.llm)?);
    let score_model = upstream
        .score_model
        .map(|model| UpstreamModel::new(client.clone(), model, None));
    let summary_model = UpstreamModel::new(client, upstream.model, upstream.context_tokens);
    Ok((Some(summary_model), score_model))
}

/// Where the fleet's reads go (a standby when one is set), and how often and
/// how patiently the standby is measured.
fn fleet_reads(
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
