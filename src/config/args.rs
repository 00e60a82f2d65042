//! The command line (SPEC §6): subcommands, and every setting as a flag with
//! an environment variable (flags win).

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::policy_args::PolicyArgs;
use super::settings::{DEFAULT_DAILY_TOKEN_BUDGET, DEFAULT_SUMMARY_MAX_TOKENS};
use crate::domain::KeyRole;

#[derive(Debug, Parser)]
#[command(
    name = "compactd",
    version,
    about = "Tells LLM agents when to compact or roll over their conversations."
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// With no subcommand, `compactd` serves.
    #[command(flatten)]
    pub serve: ServeArgs,
    /// `text` for people, `json` (one object a line) for log pipelines.
    #[arg(long, env = "COMPACTD_LOG_FORMAT", default_value = "text", global = true)]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run migrations, then serve the API (the default).
    Serve(Box<ServeArgs>),
    /// Run the migrations and exit.
    Migrate(DatabaseArgs),
    /// Print the OpenAPI document (the one committed at openapi/openapi.json).
    Openapi,
    /// Replay recorded agent sessions through the service and report what
    /// every summary kept.
    Replay(Box<ReplayArgs>),
    /// Run as an agent harness's hook: reads the hook's JSON on stdin
    /// (`compactd hook claude-code` in Claude Code's `settings.json`).
    Hook(HookArgs),
    /// Manage API keys.
    Keys {
        #[command(subcommand)]
        action: KeysAction,
        #[command(flatten)]
        database: DatabaseArgs,
    },
    /// Print the URL of the Postgres compactd uses: DATABASE_URL when set,
    /// else the private one a running compactd started in the data folder
    /// (its port changes with every start): `psql "$(compactd database-url)"`.
    DatabaseUrl(DatabaseArgs),
    /// Act on a tenant as a whole.
    Tenants {
        #[command(subcommand)]
        action: TenantsAction,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum TenantsAction {
    /// Delete every conversation the tenant has (its ledger keeps
    /// content-free rows), in batches, here and now; an unfinished purge of
    /// it, asked for through the API, is taken up. Conversations started
    /// meanwhile stay: revoke its agent keys first.
    Purge {
        /// The tenant.
        tenant: String,
    },
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The harness that runs the hook.
    #[arg(value_enum)]
    pub harness: crate::domain::Harness,
    /// Where compactd serves.
    #[arg(long, env = "COMPACTD_URL", default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// The API key to call it with (none when it runs without keys).
    #[arg(long, env = "COMPACTD_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// The hook's room, in tokens: the names a harness's summary made up
    /// take a tenth of it (the items it left out are what the ledger
    /// appended, within the conversation's summary budget).
    #[arg(long, env = "COMPACTD_HOOK_MAX_TOKENS", default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_tokens: u64,
    /// The model's context window, reported with the context's size.
    #[arg(long, env = "COMPACTD_HOOK_WINDOW")]
    pub window: Option<u64>,
    /// The most a run may take, in seconds, under the harness's own hook
    /// timeout (Claude Code's is 60 s); past it the hook says so and exits 0.
    #[arg(long, env = "COMPACTD_HOOK_DEADLINE_SECS", default_value_t = 45, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub deadline_secs: u64,
}

#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Create a key and print it, once: only its hash is kept.
    Create {
        /// The tenant the key acts for (letters, digits, '.', '_', '-').
        #[arg(long)]
        tenant: String,
        /// `agent` (read and write), `reader` (read only) or `admin` (also manual_recovery).
        #[arg(long, value_enum, default_value_t = KeyRole::Agent)]
        role: KeyRole,
        /// What the key is for, shown by `keys list`.
        #[arg(long)]
        note: Option<String>,
    },
    /// List the keys (never their secrets).
    List,
    /// Revoke a key by its id (the part after `cpk_`, before the second `_`).
    Revoke { id: String },
}

#[derive(Clone, Args)]
pub struct DatabaseArgs {
    /// Postgres to use; unset, a private Postgres runs in the data folder.
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// The private Postgres's folder.
    #[arg(long, env = "COMPACTD_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// `transaction` when DATABASE_URL is a pooler in transaction mode
    /// (pgbouncer): every statement is sent unnamed, and migrations and
    /// LISTEN use COMPACTD_DIRECT_DATABASE_URL.
    #[arg(long, env = "COMPACTD_DATABASE_POOLER", value_enum, default_value_t = Pooler::None)]
    pub database_pooler: Pooler,
    /// Postgres itself, past the pooler, for what needs a session of its
    /// own: migrations (a session lock) and following key changes (LISTEN).
    #[arg(long, env = "COMPACTD_DIRECT_DATABASE_URL")]
    pub direct_database_url: Option<String>,
}

/// What stands between the service and Postgres.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Pooler {
    /// Nothing, or a pooler in session mode: statements are named and kept.
    None,
    /// A pooler in transaction mode.
    Transaction,
}

impl DatabaseArgs {
    /// Where migrations and LISTEN go; behind a transaction pooler, a direct
    /// URL is required (the pooler would hand a session lock's unlock, or a
    /// LISTEN's notifications, to another client's connection).
    pub fn session_url(&self) -> Result<Option<&str>, super::settings::Invalid> {
        match (self.database_pooler, &self.direct_database_url) {
            (Pooler::Transaction, None) => Err(
                "COMPACTD_DATABASE_POOLER=transaction needs COMPACTD_DIRECT_DATABASE_URL \
                 (--direct-database-url): migrations and key-change notifications need a session of their own, \
                 straight to Postgres"
                    .to_owned(),
            ),
            (_, direct) => Ok(direct.as_deref()),
        }
    }
}

/// A streaming standby for the fleet's reads.
#[derive(Clone, Args)]
pub struct StandbyArgs {
    /// A streaming standby of DATABASE_URL's Postgres: the fleet's reads
    /// (/compactions, /stats, /stats/series, the conversation list)
    /// go there; a caller's reads of its own conversation stay on the primary.
    #[arg(long, env = "COMPACTD_READ_DATABASE_URL")]
    pub read_database_url: Option<String>,
    /// How far behind the primary the standby may be, in milliseconds,
    /// before the fleet's reads go to the primary instead.
    #[arg(long, env = "COMPACTD_READ_MAX_LAG_MS", default_value_t = 5_000,
          value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub read_max_lag_ms: u64,
}

/// The URL may carry a password: never print it.
impl fmt::Debug for StandbyArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StandbyArgs")
            .field(
                "read_database_url",
                &self.read_database_url.as_ref().map(|_| "[redacted]"),
            )
            .field("read_max_lag_ms", &self.read_max_lag_ms)
            .finish()
    }
}

/// The URL may carry a password: never print it.
impl fmt::Debug for DatabaseArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseArgs")
            .field("database_url", &self.database_url.as_ref().map(|_| "[redacted]"))
            .field("data_dir", &self.data_dir)
            .field("database_pooler", &self.database_pooler)
            .field(
                "direct_database_url",
                &self.direct_database_url.as_ref().map(|_| "[redacted]"),
            )
            .finish()
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub standby: StandbyArgs,
    #[command(flatten)]
    pub work: super::WorkArgs,
    /// Address to listen on.
    #[arg(long, env = "COMPACTD_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The names the service answers to besides loopback ones, comma-
    /// separated (`compactd.internal, *.example.com`, or `*` for any); the
    /// Host check applies while no key exists or when names are given, and a
    /// browser's Origin must be one of them or the service itself.
    #[arg(long, env = "COMPACTD_ALLOWED_HOSTS", default_value = "", value_parser = super::AllowedHosts::parse)]
    pub allowed_hosts: super::AllowedHosts,
    /// Database connections in the pool: about one per request in flight.
    #[arg(long, env = "COMPACTD_MAX_CONNECTIONS", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_connections: u32,
    /// How long a request may take before it is abandoned with a 503
    /// (/summarize: the upstream deadline plus 15 s).
    #[arg(long, env = "COMPACTD_REQUEST_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout_secs: u64,
    /// Seconds a client has to send a request's headers, from connecting or
    /// from its previous answer (an idle keep-alive connection closes then).
    #[arg(long, env = "COMPACTD_HEADER_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout_secs: u64,
    /// Client connections held at once (fitted under the file limit); more
    /// are answered 503 and closed at once.
    #[arg(long, env = "COMPACTD_CLIENT_CONNECTIONS", default_value_t = 8192,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub client_connections: u64,
    /// Seconds start-up waits for the database to answer, retrying with
    /// backoff (/healthz answers and /readyz says 503 meanwhile).
    #[arg(long, env = "COMPACTD_DATABASE_WAIT_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub database_wait_secs: u64,
    /// Run the background workers (scoring, audits, preparations, long turns'
    /// search pieces, the idle sweep) in this process; with none anywhere,
    /// a long turn is searched past its first 200,000 characters by substring.
    #[arg(long, env = "COMPACTD_BACKGROUND", default_value_t = true, action = clap::ArgAction::Set)]
    pub background: bool,
    /// Seconds between idle sweeps (0: none).
    #[arg(long, env = "COMPACTD_IDLE_SWEEP_SECS", default_value_t = 60)]
    pub idle_sweep_secs: u64,
    /// Delete conversations nothing has touched for this many days, in the
    /// background (0: keep them for ever). Their ledger rows stay without content.
    #[arg(long, env = "COMPACTD_RETENTION_DAYS", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=36_500))]
    pub retention_days: u64,
    /// Seconds after which a worker's claim counts as abandoned and is taken again.
    #[arg(long, env = "COMPACTD_CLAIM_TIMEOUT_SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub claim_timeout_secs: u64,
    /// Seconds after which a request's claim (a conversation being compacted,
    /// an Idempotency-Key being answered) counts as abandoned: its process
    /// died. It must outlast any request (checked).
    #[arg(long, env = "COMPACTD_REQUEST_CLAIM_TIMEOUT_SECS", default_value_t = 660,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub request_claim_timeout_secs: u64,
    /// Requests a second each API key may make (0: no limit; none in open mode).
    #[arg(long, env = "COMPACTD_RATE_PER_SECOND", default_value_t = 1000)]
    pub rate_per_second: u32,
    /// The burst above that rate a key may send at once.
    #[arg(long, env = "COMPACTD_RATE_BURST", default_value_t = 2000)]
    pub rate_burst: u32,
    #[command(flatten)]
    pub summaries: SummaryArgs,
    /// The largest request body accepted (413 past it).
    #[arg(long, env = "COMPACTD_MAX_BODY_BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// Which upstream, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProviderChoice {
    #[value(name = "openai")]
    OpenAi,
    Anthropic,
    None,
}

/// The upstream LLM (SPEC §6). With no provider, summaries are extractive.
#[derive(Clone, Args)]
pub struct LlmArgs {
    /// `openai` (any OpenAI-compatible server), `anthropic` or `none`.
    #[arg(long, env = "COMPACTD_LLM_PROVIDER", value_enum, default_value_t = ProviderChoice::None)]
    pub llm_provider: ProviderChoice,
    /// Upstream base URL (`…/v1` for OpenAI-compatible); the provider's own when unset.
    #[arg(long, env = "COMPACTD_LLM_BASE_URL")]
    pub llm_base_url: Option<String>,
    /// Upstream API key.
    #[arg(long, env = "COMPACTD_LLM_API_KEY", hide_env_values = true)]
    pub llm_api_key: Option<String>,
    /// The model that writes summaries (required with a provider).
    #[arg(long, env = "COMPACTD_SUMMARY_MODEL")]
    pub summary_model: Option<String>,
    /// The summary model's context window, in its tokens: every upstream call
    /// fits it, a longer delta is summarized in chunks. Unset: read from the
    /// upstream's model listing, else learned from its refusals (or a prompt
    /// it silently cut).
    #[arg(long, env = "COMPACTD_SUMMARY_MODEL_CONTEXT_TOKENS",
          value_parser = clap::value_parser!(u64).range(1_024..=100_000_000))]
    pub summary_model_context_tokens: Option<u64>,
    /// The model that scores turns (SPEC §5), on the same upstream; unset: the heuristic.
    #[arg(long, env = "COMPACTD_SCORE_MODEL")]
    pub score_model: Option<String>,
    /// One deadline across every attempt of an upstream call, in seconds.
    #[arg(long, env = "COMPACTD_LLM_DEADLINE_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub llm_deadline_secs: u64,
    /// Attempts of one upstream call (retries on 429, 5xx and transport errors).
    #[arg(long, env = "COMPACTD_LLM_MAX_ATTEMPTS", default_value_t = 4,
          value_parser = clap::value_parser!(u32).range(1..=20))]
    pub llm_max_attempts: u32,
    /// The longest `Retry-After` honoured, in seconds; a longer one gives up.
    #[arg(long, env = "COMPACTD_LLM_RETRY_AFTER_CAP_SECS", default_value_t = 30)]
    pub llm_retry_after_cap_secs: u64,
    /// Upstream tokens (input and output) each tenant may spend a day, UTC;
    /// past it, summaries are extractive and say so. 0: no limit. The
    /// default (ten million: some seventy compactions of a full 128k window)
    /// bounds what one runaway tenant can cost.
    #[arg(long, env = "COMPACTD_TENANT_DAILY_TOKEN_BUDGET", default_value_t = DEFAULT_DAILY_TOKEN_BUDGET)]
    pub tenant_daily_token_budget: u64,
    /// Upstream calls in flight at once.
    #[arg(long, env = "COMPACTD_LLM_MAX_CONCURRENT", default_value_t = 32,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub llm_max_concurrent: u64,
    /// What tokens cost, for each ledger row's cost and savings (SPEC §6):
    /// `MODEL=INPUT/CACHED_INPUT/OUTPUT` in dollars per million tokens,
    /// separated by commas; `*` prices every model not named. Unset: costs
    /// and savings are counted in tokens only.
    #[arg(long, env = "COMPACTD_PRICES", value_parser = crate::domain::Prices::parse)]
    pub prices: Option<crate::domain::Prices>,
}

/// The key is a secret: never printed.
impl fmt::Debug for LlmArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmArgs")
            .field("llm_provider", &self.llm_provider)
            .field("llm_base_url", &self.llm_base_url)
            .field("llm_api_key", &self.llm_api_key.as_ref().map(|_| "[redacted]"))
            .field("summary_model", &self.summary_model)
            .finish_non_exhaustive()
    }
}

/// What every summary is held to (SPEC §4).
#[derive(Debug, Clone, Args)]
pub struct SummaryArgs {
    /// A summary's whole budget in tokens, whoever writes it: at most a
    /// twentieth of the conversation's window, at least 500.
    #[arg(long, env = "COMPACTD_SUMMARY_MAX_TOKENS", default_value_t = DEFAULT_SUMMARY_MAX_TOKENS,
          value_parser = clap::value_parser!(u64).range(500..=1_000_000))]
    pub summary_max_tokens: u64,
    /// More regexes for harness text in the user role, one a line; the flag
    /// may be given more than once.
    #[arg(long = "harness-pattern", env = "COMPACTD_HARNESS_PATTERNS", value_delimiter = '\n')]
    pub harness_patterns: Vec<String>,
}

/// `compactd replay`: recorded sessions through the service, and a report.
#[derive(Debug, Clone, Args)]
pub struct ReplayArgs {
    /// Claude Code session JSONL, Codex CLI rollout JSONL, aider chat
    /// histories (.aider.chat.history.md) or JSON arrays of chat messages.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The replayed agent's context window, in tokens [default: the one the
    /// session recorded (a Codex rollout's model_context_window), else 200000].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1_000..=10_000_000))]
    pub window: Option<u64>,
    /// Compact every N turns instead of when the policy says so.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub every: Option<u64>,
    /// Summarize without a model even when an upstream is configured.
    #[arg(long)]
    pub no_upstream: bool,
    /// Compact from the turns stored through /turn-ended (send no
    /// transcript to /summarize), as an agent that stores its turns does.
    #[arg(long)]
    pub from_stored_turns: bool,
    /// Prepare summaries ahead (at the default point, 85% of the trigger),
    /// each one written as soon as it is planned, as by a worker with time
    /// to spare; with --from-stored-turns the compactions merge them.
    #[arg(long)]
    pub prepare: bool,
    /// Print the report as JSON, for scripts.
    #[arg(long)]
    pub json: bool,
    /// Move the session's times so that its last turn ends now, keeping
    /// its pauses (turns otherwise happen when the session recorded them).
    #[arg(long)]
    pub end_now: bool,
    /// Replay into the compactd running here (e.g. http://127.0.0.1:8080)
    /// instead of one started for the replay: its dashboard then shows the
    /// replayed conversations, and its own upstream and settings write the
    /// summaries. No database is started.
    #[arg(long, conflicts_with_all = ["prepare", "no_upstream"])]
    pub url: Option<String>,
    /// The key to call the service at --url with, when it has keys
    /// (without --url, unused: the replay's own service mints one).
    #[arg(long, env = "COMPACTD_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    #[command(flatten)]
    pub summaries: SummaryArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub database: DatabaseArgs,
}
