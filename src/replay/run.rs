//! One replay: the service in this process, the sessions driven through it, their reports.

use super::report::SessionReport;
use crate::app::keys;
use crate::config::{Settings, SummaryConfig};
use crate::domain::TenantId;
use crate::sessions::{Session, SessionError};
use crate::startup::{Application, StartupError};
use crate::summary::write::summary_max_tokens;
use sqlx::PgPool;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use tokio::sync::oneshot;

/// When the replayed agent compacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// When `/decide` says so (compact or roll over).
    Policy,
    /// Every this many turns, whatever `/decide` would say.
    Every(usize),
}

/// The replayed agent's window when neither the caller nor the session
/// says: Claude Code's.
pub const DEFAULT_WINDOW: u64 = 200_000;

#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    /// The replayed agent's context window, in tokens; `None`: the window
    /// each session recorded (Codex's), else [`DEFAULT_WINDOW`].
    pub window: Option<u64>,
    pub schedule: Schedule,
    /// Compact from the stored turns instead of sending the transcript.
    pub from_stored_turns: bool,
    /// Write every planned preparation at once (issue 12), as a worker with
    /// time to spare would: what a compaction then merges does not depend
    /// on timing.
    pub prepare: bool,
    /// Move the session's times so its last turn ends now (a replay into a
    /// running service then shows on the dashboard's recent spans); else
    /// turns happen when the session recorded them.
    pub end_now: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("the service did not start: {0}")]
    Startup(#[from] StartupError),
    #[error("the service refused the replay: {0}")]
    Service(String),
}

/// The tenant a replay acts as when the database has API keys (with none
/// it runs open, as `default`).
pub const REPLAY_TENANT: &str = "replay";

/// The service a replay drives: one started in this process, or one
/// already running (`--url`), whose dashboard then shows the replay.
pub(crate) struct Replay {
    pub(super) base: String,
    pub(super) client: reqwest::Client,
    /// The key it calls with, when the service has keys.
    pub(super) bearer: Option<String>,
    pub(super) summaries: SummaryConfig,
    pub(super) options: ReplayOptions,
    /// The service this process started, when it did.
    pub(super) own: Option<Own>,
}

/// The service a replay started for itself, with its database.
pub(crate) struct Own {
    /// Its key's id, revoked at the end, when the database has keys.
    key_id: Option<String>,
    pub(super) tenant: TenantId,
    pub(super) pool: PgPool,
    /// The service's use cases, for writing preparations in step.
    pub(super) services: crate::app::Services,
    shutdown: Option<oneshot::Sender<()>>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Replay {
    /// Starts the service on a port of its own with `settings` (its address
    /// and background work are set here: a replay is one agent, alone).
    pub(crate) async fn start(settings: Settings, pool: PgPool, options: ReplayOptions) -> Result<Self, ReplayError> {
        let summaries = settings.summaries.clone();
        let settings = Settings {
            addr: ([127, 0, 0, 1], 0).into(),
            background: None,
            rate_per_second: 0,
            ..settings
        };
        // The service closes its pool when it stops: it gets one of its own.
        let served_pool = crate::store::pool((*pool.connect_options()).clone(), 4);
        let app = Application::build(settings, served_pool).await?;
        let base = format!("http://{}", app.local_addr());
        let services = app.services();
        // A database with keys refuses the open tenant: the replay mints a
        // key of its own, for a tenant of its own, and revokes it at the end.
        let registry = app.keys();
        let key = if registry.is_open() {
            None
        } else {
            let minted = keys::create(&pool, REPLAY_TENANT, "agent", Some("compactd replay"))
                .await
                .map_err(|err| ReplayError::Service(format!("no key for the replay: {err}")))?;
            registry
                .reload()
                .await
                .map_err(|err| ReplayError::Service(format!("the keys could not be read again: {err}")))?;
            Some(minted)
        };
        let tenant = match key {
            Some(_) => TenantId::parse("tenant", REPLAY_TENANT),
            None => Ok(TenantId::open()),
        }
        .map_err(|err| ReplayError::Service(err.to_string()))?;
        let (shutdown, stopped) = oneshot::channel::<()>();
        let served = tokio::spawn(app.run_until(async {
            stopped.await.ok();
        }));
        let (key_id, bearer) = key.map_or((None, None), |(id, key)| (Some(id), Some(key)));
        Ok(Self {
            base,
            client: reqwest::Client::new(),
            bearer,
            summaries,
            options,
            own: Some(Own {
                key_id,
                tenant,
                pool,
                services,
                shutdown: Some(shutdown),
                served,
            }),
        })
    }

    /// The service already running at `url`, called with `api_key` (its
    /// readiness checked first: a wrong address fails before any work).
    pub(crate) async fn connect(
        url: &str,
        api_key: Option<String>,
        summaries: SummaryConfig,
        options: ReplayOptions,
    ) -> Result<Self, ReplayError> {
        let base = url.trim_end_matches('/').to_owned();
        let client = reqwest::Client::new();
        let ready = client
            .get(format!("{base}/readyz"))
            .send()
            .await
            .map_err(|err| ReplayError::Service(format!("no compactd at {base}: {err}")))?;
        if !ready.status().is_success() {
            return Err(ReplayError::Service(format!(
                "compactd at {base} is not ready: /readyz answered {}",
                ready.status()
            )));
        }
        Ok(Self {
            base,
            client,
            bearer: api_key,
            summaries,
            options,
            own: None,
        })
    }

    /// The replayed agent's window for `session`: the one asked for, else
    /// the one the session recorded, else [`DEFAULT_WINDOW`].
    pub(crate) fn window_for(&self, session: &Session) -> u64 {
        self.options.window.or(session.window).unwrap_or(DEFAULT_WINDOW)
    }

    /// Every summary's budget in a replay of an agent with `window`.
    pub(crate) fn budget(&self, window: u64) -> u64 {
        summary_max_tokens(self.summaries.max_tokens, window)
    }

    pub(crate) async fn stop(mut self) {
        let Some(own) = &mut self.own else {
            return;
        };
        if let Some(id) = &own.key_id
            && let Err(err) = keys::revoke(&own.pool, id).await
        {
            tracing::warn!(%err, "the replay's key could not be revoked");
        }
        if let Some(shutdown) = own.shutdown.take() {
            let _ = shutdown.send(());
        }
        let _ = (&mut own.served).await;
    }
}

/// A progress bar on a terminal (standard error), nothing otherwise.
struct Progress {
    shown: bool,
}

impl Progress {
    fn new() -> Self {
        Self {
            shown: std::io::stderr().is_terminal(),
        }
    }

    fn show(&self, file: &str, done: usize, total: usize) {
        if !self.shown || total == 0 {
            return;
        }
        let filled = done * 30 / total;
        let bar = format!("{}{}", "#".repeat(filled), " ".repeat(30 - filled));
        let name: String = file
            .chars()
            .rev()
            .take(40)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let mut err = std::io::stderr();
        let _ = write!(err, "\r[{bar}] {done}/{total} turns  {name}\x1b[K");
        if done == total {
            let _ = writeln!(err);
        }
        let _ = err.flush();
    }
}

/// Replays `files` one after another through a service of its own, and
/// reports on each.
pub async fn replay_files(
    files: &[PathBuf],
    settings: Settings,
    pool: PgPool,
    options: ReplayOptions,
) -> Result<Vec<SessionReport>, ReplayError> {
    let sessions = load_all(files, &settings.summaries)?;
    let replay = Replay::start(settings, pool, options).await?;
    replay.all(&sessions).await
}

/// Replays `files` through the service running at `url` (its dashboard
/// shows them), and reports on each.
pub async fn replay_into(
    url: &str,
    api_key: Option<String>,
    files: &[PathBuf],
    summaries: SummaryConfig,
    options: ReplayOptions,
) -> Result<Vec<SessionReport>, ReplayError> {
    if options.prepare {
        return Err(ReplayError::Service(
            "--prepare writes preparations in a service the replay starts; a running service prepares in its own background"
                .into(),
        ));
    }
    let sessions = load_all(files, &summaries)?;
    let replay = Replay::connect(url, api_key, summaries, options).await?;
    replay.all(&sessions).await
}

/// Every file read first: a bad one fails the run before any work is done.
fn load_all(files: &[PathBuf], summaries: &SummaryConfig) -> Result<Vec<Session>, ReplayError> {
    Ok(files
        .iter()
        .map(|path| crate::sessions::load(path, &summaries.harness))
        .collect::<Result<Vec<_>, _>>()?)
}

impl Replay {
    async fn all(self, sessions: &[Session]) -> Result<Vec<SessionReport>, ReplayError> {
        let run = chrono::Utc::now().format("%Y%m%d%H%M%S%3f").to_string();
        let progress = Progress::new();
        let mut reports = Vec::new();
        for session in sessions {
            let total = session.turns.len();
            let outcome = self
                .session(session, &run, &mut |done| progress.show(&session.name, done, total))
                .await;
            match outcome {
                Ok(report) => reports.push(report),
                Err(err) => {
                    self.stop().await;
                    return Err(err);
                }
            }
        }
        self.stop().await;
        Ok(reports)
    }
}
