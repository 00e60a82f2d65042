//! The settings the service runs with, as plain values: what the command
//! line (or a test) decides, and what every part reads. This module imports
//! nothing of the service but the pure policy's own settings.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::domain::Prices;
use crate::llm::LlmConfig;
use crate::policy::PolicyConfig;
use crate::policy::audit::AuditConfig;
use crate::summary::read::HarnessPatterns;

use super::allowed_hosts::AllowedHosts;

/// Why the flags cannot run: says which flag.
pub type Invalid = String;

/// What the service needs besides a database.
#[derive(Debug, Clone)]
pub struct Settings {
    pub addr: SocketAddr,
    pub max_body_bytes: usize,
    pub policy: PolicyConfig,
    /// The upstream that writes summaries; `None`: extractive summaries.
    pub summarizer: Option<Upstream>,
    /// Requests a second each key may make, and its burst (0: no limit).
    pub rate_per_second: u32,
    pub rate_burst: u32,
    pub timeouts: Timeouts,
    /// What bounds a client's connection.
    pub connections: ConnectionLimits,
    /// How long start-up waits for the database to answer (serving /healthz,
    /// and 503 for everything else, meanwhile) before giving up.
    pub database_wait: Duration,
    /// What every summary is held to (SPEC §4).
    pub summaries: SummaryConfig,
    /// Upstream tokens a tenant may spend a day; `None`: no limit.
    pub daily_token_budget: Option<u64>,
    /// Scoring, audits and the idle sweep; `None`: this process does none.
    pub background: Option<BackgroundSettings>,
    /// How long each kind of claim lasts before it counts as abandoned.
    pub leases: Leases,
    /// The names the service answers to.
    pub allowed_hosts: AllowedHosts,
    /// Where migrations, LISTEN and the fleet's reads go, when not to the pool's database.
    pub database: DatabaseSettings,
    /// What bounds the heavy work one caller may ask for at once.
    pub work: WorkLimits,
    /// What tokens cost, by model (empty: costs in tokens only).
    pub prices: Prices,
}

/// What bounds the heavy work one caller may ask for at once (issue 37):
/// nothing one tenant asks for takes a shared pool or core from the others.
#[derive(Debug, Clone, Copy)]
pub struct WorkLimits {
    /// Exports streamed at once, each on a database connection of its own.
    pub exports_at_once: usize,
    /// An export whose reader takes nothing for this long is cut off.
    pub export_stall: Duration,
    /// No export takes longer, however steadily it is read.
    pub export_deadline: Duration,
    /// Keep checks worked at once.
    pub keep_checks_at_once: usize,
}

impl Default for WorkLimits {
    fn default() -> Self {
        Self {
            exports_at_once: 4,
            export_stall: Duration::from_secs(30),
            export_deadline: Duration::from_secs(600),
            keep_checks_at_once: half_the_cores(),
        }
    }
}

/// Half the cores this process may use, at least one: what keep checks may
/// hold at once, so the requests always keep the other half.
pub fn half_the_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| (cores.get() / 2).max(1))
}

/// The databases besides the pool's own: Postgres itself past a pooler, and
/// a streaming standby. URLs, parsed when the service starts.
#[derive(Clone, Default)]
pub struct DatabaseSettings {
    /// Migrations and LISTEN go here instead of the pool's database.
    pub direct_url: Option<String>,
    /// The fleet's reads go here while it keeps up.
    pub standby: Option<Standby>,
}

/// A streaming standby for the fleet's reads.
#[derive(Clone)]
pub struct Standby {
    pub url: String,
    /// Past this behind the primary, the fleet's reads go to the primary.
    pub max_lag: Duration,
    /// How often the standby's lag is measured.
    pub probe_every: Duration,
}

impl Standby {
    /// A standby `max_lag` may lag, measured ten times within it (at most
    /// once a second: a lag is only seen to pass `max_lag` that much late).
    pub fn new(url: String, max_lag: Duration) -> Self {
        let probe_every = (max_lag / 10).clamp(Duration::from_millis(10), Duration::from_secs(1));
        Self {
            url,
            max_lag,
            probe_every,
        }
    }
}

/// URLs may carry passwords: never printed.
impl std::fmt::Debug for DatabaseSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatabaseSettings")
            .field("direct_url", &self.direct_url.as_ref().map(|_| "[redacted]"))
            .field("standby", &self.standby.as_ref().map(|s| ("[redacted]", s.max_lag)))
            .finish()
    }
}

/// The upstream LLM and the models asked there.
#[derive(Debug, Clone)]
pub struct Upstream {
    pub llm: LlmConfig,
    pub model: String,
    /// The model that scores turns, on the same upstream; `None`: the heuristic.
    pub score_model: Option<String>,
    /// The summary model's context window in its tokens; `None`: read from
    /// the upstream's model listing or learned from its own word (SPEC §3,
    /// *Any context size*).
    pub context_tokens: Option<u64>,
}

/// Upstream tokens a tenant may spend a day unless told otherwise.
pub const DEFAULT_DAILY_TOKEN_BUDGET: u64 = 10_000_000;

/// What every summary is held to, whoever writes it (SPEC §4).
#[derive(Debug, Clone)]
pub struct SummaryConfig {
    /// `COMPACTD_SUMMARY_MAX_TOKENS`: a summary's whole budget, before the
    /// window's twentieth and the floor apply.
    pub max_tokens: u64,
    /// Harness text in the user role, built in and added.
    pub harness: Arc<HarnessPatterns>,
}

impl Default for SummaryConfig {
    fn default() -> Self {
        Self {
            max_tokens: DEFAULT_SUMMARY_MAX_TOKENS,
            harness: Arc::default(),
        }
    }
}

/// The spec's default for `COMPACTD_SUMMARY_MAX_TOKENS`.
pub const DEFAULT_SUMMARY_MAX_TOKENS: u64 = 4_000;

/// How long requests may take before they are answered 503.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub request: Duration,
    /// /summarize, which waits for the upstream LLM.
    pub summarize: Duration,
}

/// How long a claim lasts before it counts as abandoned (its holder died)
/// and is taken again: longer than the work it was taken for may run, or
/// the same work runs twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leases {
    /// A request's: a conversation being compacted, an Idempotency-Key
    /// being answered (`COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS`).
    pub request: Duration,
    /// A background worker's: a turn being scored, an audit, a preparation
    /// (`COMPACTD_CLAIM_TIMEOUT_SECS`).
    pub worker: Duration,
}

impl Default for Leases {
    fn default() -> Self {
        Self {
            request: Duration::from_secs(11 * 60),
            worker: Duration::from_secs(5 * 60),
        }
    }
}

/// What bounds a connection.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// A client must send a request's whole head within this, counted from
    /// the connection's start or from the previous answer.
    pub header_timeout: Duration,
    /// Connections held at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// Connections past the cap being answered 503 at once (each read until
    /// its client has the answer, so it is not reset); more are closed at
    /// once. Fitted, with the cap, under the file limit.
    pub turning_away: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(10),
            max_connections: 8192,
            turning_away: 1024,
        }
    }
}

/// How the background workers run.
#[derive(Debug, Clone)]
pub struct BackgroundSettings {
    /// How long the scorer rests when it found nothing to score.
    pub poll: Duration,
    /// Turns one worker claims at a time.
    pub batch: i64,
    pub audit: AuditConfig,
    /// A failed audit is not retried sooner than this.
    pub audit_retry_after: Duration,
    /// How often idle conversations are looked for; `None`: never.
    pub idle_sweep_every: Option<Duration>,
    /// How often purges to work and conversations past the retention are
    /// looked for.
    pub lifecycle_every: Duration,
    /// Conversations idle this long are deleted (`COMPACTD_RETENTION_DAYS`);
    /// `None`: kept for ever.
    pub retention: Option<Duration>,
    /// How often conversations past the retention are looked for.
    pub retention_every: Duration,
    /// What a summary prepared ahead may take across all its upstream calls
    /// (`COMPACTD_PREPARE_DEADLINE_SECS`).
    pub prepare_deadline: Duration,
}

impl Default for BackgroundSettings {
    fn default() -> Self {
        Self {
            poll: Duration::from_millis(500),
            batch: 16,
            audit: AuditConfig::default(),
            audit_retry_after: Duration::from_secs(60),
            idle_sweep_every: Some(Duration::from_secs(60)),
            lifecycle_every: Duration::from_secs(5),
            retention: None,
            retention_every: Duration::from_secs(600),
            prepare_deadline: Duration::from_secs(900),
        }
    }
}
