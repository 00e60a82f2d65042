//! The command line (SPEC §6): subcommands, and every setting as a flag with
//! an environment variable (flags win).

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

use chrono::Duration;
use clap::{Args, Parser, Subcommand};

use std::time::Duration as StdDuration;

use std::sync::Arc;

use crate::app::summarize::{DEFAULT_SUMMARY_MAX_TOKENS, SummaryConfig};
use crate::background::BackgroundSettings;
use crate::http::Timeouts;
use crate::llm::{LlmConfig, Provider, RetryPolicy};
use crate::policy::keep::HarnessPatterns;
use crate::policy::{CacheLife, PolicyConfig};
use crate::serve::ConnectionLimits;
use crate::startup::SummarizerSettings;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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
    /// Manage API keys.
    Keys {
        #[command(subcommand)]
        action: KeysAction,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Create a key and print it, once: only its hash is kept.
    Create {
        /// The tenant the key acts for (letters, digits, '.', '_', '-').
        #[arg(long)]
        tenant: String,
        /// `agent` (read and write), `reader` (read only) or `admin` (also manual_recovery).
        #[arg(long, default_value = "agent")]
        role: String,
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
}

/// The URL may carry a password: never print it.
impl fmt::Debug for DatabaseArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseArgs")
            .field("database_url", &self.database_url.as_ref().map(|_| "[redacted]"))
            .field("data_dir", &self.data_dir)
            .finish()
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Address to listen on.
    #[arg(long, env = "COMPACTD_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
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
    /// Run the background workers (scoring, audits, the idle sweep) in this process.
    #[arg(long, env = "COMPACTD_BACKGROUND", default_value_t = true, action = clap::ArgAction::Set)]
    pub background: bool,
    /// Seconds between idle sweeps (0: none).
    #[arg(long, env = "COMPACTD_IDLE_SWEEP_SECS", default_value_t = 60)]
    pub idle_sweep_secs: u64,
    /// Seconds after which a worker's claim counts as abandoned and is taken again.
    #[arg(long, env = "COMPACTD_CLAIM_TIMEOUT_SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub claim_timeout_secs: u64,
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

/// The upstream LLM (SPEC §6). With no provider, summaries are extractive.
#[derive(Clone, Args)]
pub struct LlmArgs {
    /// `openai` (any OpenAI-compatible server), `anthropic` or `none`.
    #[arg(long, env = "COMPACTD_LLM_PROVIDER", default_value = "none", value_parser = ["openai", "anthropic", "none"])]
    pub llm_provider: String,
    /// Upstream base URL (`…/v1` for OpenAI-compatible); the provider's own when unset.
    #[arg(long, env = "COMPACTD_LLM_BASE_URL")]
    pub llm_base_url: Option<String>,
    /// Upstream API key.
    #[arg(long, env = "COMPACTD_LLM_API_KEY", hide_env_values = true)]
    pub llm_api_key: Option<String>,
    /// The model that writes summaries (required with a provider).
    #[arg(long, env = "COMPACTD_SUMMARY_MODEL")]
    pub summary_model: Option<String>,
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

impl SummaryArgs {
    /// The configuration; an error names a pattern that is not a regex.
    pub fn to_config(&self) -> Result<SummaryConfig, String> {
        Ok(SummaryConfig {
            max_tokens: self.summary_max_tokens,
            harness: Arc::new(HarnessPatterns::with_extra(&self.harness_patterns)?),
        })
    }
}

/// `compactd replay`: recorded sessions through the service, and a report.
#[derive(Debug, Clone, Args)]
pub struct ReplayArgs {
    /// Claude Code session JSONL, Codex CLI rollout JSONL, aider chat
    /// histories (.aider.chat.history.md) or JSON arrays of chat messages.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The replayed agent's context window, in tokens.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1_000..=10_000_000))]
    pub window: u64,
    /// Compact every N turns instead of when the policy says so.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub every: Option<u64>,
    /// Summarize without a model even when an upstream is configured.
    #[arg(long)]
    pub no_upstream: bool,
    /// Print the report as JSON, for scripts.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub summaries: SummaryArgs,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub database: DatabaseArgs,
}

impl ServeArgs {
    pub fn background(&self) -> Option<BackgroundSettings> {
        self.background.then(|| BackgroundSettings {
            idle_sweep_every: (self.idle_sweep_secs > 0).then(|| StdDuration::from_secs(self.idle_sweep_secs)),
            abandoned_after: StdDuration::from_secs(self.claim_timeout_secs),
            ..BackgroundSettings::default()
        })
    }

    pub fn connections(&self) -> ConnectionLimits {
        ConnectionLimits {
            header_timeout: StdDuration::from_secs(self.header_timeout_secs),
            max_connections: usize::try_from(self.client_connections).unwrap_or(usize::MAX),
        }
    }

    pub fn timeouts(&self) -> Timeouts {
        Timeouts {
            request: StdDuration::from_secs(self.request_timeout_secs),
            summarize: StdDuration::from_secs(self.llm.llm_deadline_secs + 15),
        }
    }
}

impl LlmArgs {
    /// The summarizer's upstream, `None` when there is none; an error names
    /// what is missing.
    pub fn to_summarizer(&self) -> Result<Option<SummarizerSettings>, String> {
        let provider = match self.llm_provider.as_str() {
            "openai" => Provider::OpenAi,
            "anthropic" => Provider::Anthropic,
            _ => return Ok(None),
        };
        let model = self.summary_model.clone().ok_or_else(|| {
            format!(
                "COMPACTD_SUMMARY_MODEL (--summary-model) is required with the {} provider",
                self.llm_provider
            )
        })?;
        let retry = RetryPolicy {
            deadline: StdDuration::from_secs(self.llm_deadline_secs),
            max_attempts: self.llm_max_attempts,
            retry_after_cap: StdDuration::from_secs(self.llm_retry_after_cap_secs),
            ..RetryPolicy::default()
        };
        Ok(Some(SummarizerSettings {
            llm: LlmConfig {
                provider,
                base_url: self
                    .llm_base_url
                    .clone()
                    .unwrap_or_else(|| provider.default_base_url().to_owned()),
                api_key: self.llm_api_key.clone(),
                retry,
                max_concurrent: usize::try_from(self.llm_max_concurrent).unwrap_or(usize::MAX),
            },
            model,
            score_model: self.score_model.clone(),
        }))
    }
}

fn default_policy() -> PolicyConfig {
    PolicyConfig::default()
}

/// The thresholds of SPEC §2, named after their terms.
#[derive(Debug, Clone, Args)]
pub struct PolicyArgs {
    /// Context-pressure trigger (§2 trigger 2): off unless set.
    #[arg(long, env = "COMPACTD_CONTEXT_PRESSURE_TOKENS", value_parser = clap::value_parser!(u64).range(1..=i64::MAX as u64))]
    pub context_pressure_tokens: Option<u64>,
    /// Cache life of conversations that neither declared nor showed one.
    #[arg(long, env = "COMPACTD_DEFAULT_CACHE_LIFE", default_value = "five_minutes", value_parser = parse_cache_life)]
    pub default_cache_life: CacheLife,
    /// The turn-end trigger is three quarters of the window, at most this.
    #[arg(long, env = "COMPACTD_TRIGGER_CAP_TOKENS", default_value_t = default_policy().trigger_cap_tokens)]
    pub trigger_cap_tokens: u64,
    /// Context use (percent of the window) that is an emergency.
    #[arg(long, env = "COMPACTD_EMERGENCY_PERCENT", default_value_t = default_policy().emergency_percent,
          value_parser = clap::value_parser!(u64).range(1..=100))]
    pub emergency_percent: u64,
    /// User messages after the last clean run completion that trigger.
    #[arg(long, env = "COMPACTD_UNFINISHED_TURNS", default_value_t = default_policy().unfinished_turns)]
    pub unfinished_turns: u64,
    /// Whole days of age that, with enough user messages, trigger.
    #[arg(long, env = "COMPACTD_AGE_DAYS", default_value_t = default_policy().age_days,
          value_parser = clap::value_parser!(i64).range(0..=36_500))]
    pub age_days: i64,
    /// User messages that, with enough age, trigger.
    #[arg(long, env = "COMPACTD_AGE_USER_MESSAGES", default_value_t = default_policy().age_user_messages)]
    pub age_user_messages: u64,
    /// Loop guard `too_many_today`: host compactions within 24 hours.
    #[arg(long, env = "COMPACTD_GUARD_HOST_COMPACTIONS_PER_DAY",
          default_value_t = default_policy().guard_host_compactions_per_day)]
    pub guard_host_compactions_per_day: usize,
    /// Loop guard `too_little_gained`: context left after a compaction, percent of the trigger.
    #[arg(long, env = "COMPACTD_GUARD_GAIN_PERCENT", default_value_t = default_policy().guard_gain_percent)]
    pub guard_gain_percent: u64,
    /// Loop guard `too_soon`: turns since the last compaction below which it holds.
    #[arg(long, env = "COMPACTD_GUARD_MIN_TURNS", default_value_t = default_policy().guard_min_turns)]
    pub guard_min_turns: u64,
    /// Loop guard `failing`: consecutive failed compaction attempts.
    #[arg(long, env = "COMPACTD_GUARD_FAILED_ATTEMPTS", default_value_t = default_policy().guard_failed_attempts)]
    pub guard_failed_attempts: u64,
    /// Idle compaction and rollover pay off past this many tokens.
    #[arg(long, env = "COMPACTD_LARGE_CONTEXT_TOKENS", default_value_t = default_policy().large_context_tokens)]
    pub large_context_tokens: u64,
    /// Minutes before a one-hour cache expires that an idle conversation compacts.
    #[arg(long, env = "COMPACTD_IDLE_LEAD_MINUTES", default_value_t = default_policy().idle_lead.num_minutes(),
          value_parser = clap::value_parser!(i64).range(1..=59))]
    pub idle_lead_minutes: i64,
    /// Hours away after which a many-times-compacted conversation rolls over.
    #[arg(long, env = "COMPACTD_LONG_AWAY_HOURS", default_value_t = default_policy().long_away.num_hours(),
          value_parser = clap::value_parser!(i64).range(1..=87_600))]
    pub long_away_hours: i64,
    /// Compactions behind a conversation for a long absence to roll it over.
    #[arg(long, env = "COMPACTD_LONG_AWAY_COMPACTIONS", default_value_t = default_policy().long_away_compactions)]
    pub long_away_compactions: u64,
    /// A pause must exceed this many minutes to show the cache life.
    #[arg(long, env = "COMPACTD_OBSERVE_MIN_GAP_MINUTES", default_value_t = default_policy().observe_min_gap.num_minutes(),
          value_parser = clap::value_parser!(i64).range(0..=1440))]
    pub observe_min_gap_minutes: i64,
    /// A pause must be shorter than this many minutes to show the cache life.
    #[arg(long, env = "COMPACTD_OBSERVE_MAX_GAP_MINUTES", default_value_t = default_policy().observe_max_gap.num_minutes(),
          value_parser = clap::value_parser!(i64).range(1..=1440))]
    pub observe_max_gap_minutes: i64,
}

fn parse_cache_life(name: &str) -> Result<CacheLife, String> {
    CacheLife::parse(name).ok_or_else(|| format!("`{name}` is not five_minutes or one_hour"))
}

impl PolicyArgs {
    pub fn to_config(&self) -> PolicyConfig {
        PolicyConfig {
            trigger_cap_tokens: self.trigger_cap_tokens,
            emergency_percent: self.emergency_percent,
            context_pressure_tokens: self.context_pressure_tokens,
            unfinished_turns: self.unfinished_turns,
            age_days: self.age_days,
            age_user_messages: self.age_user_messages,
            guard_host_compactions_per_day: self.guard_host_compactions_per_day,
            guard_gain_percent: self.guard_gain_percent,
            guard_min_turns: self.guard_min_turns,
            guard_failed_attempts: self.guard_failed_attempts,
            large_context_tokens: self.large_context_tokens,
            idle_lead: Duration::minutes(self.idle_lead_minutes),
            long_away: Duration::hours(self.long_away_hours),
            long_away_compactions: self.long_away_compactions,
            observe_min_gap: Duration::minutes(self.observe_min_gap_minutes),
            observe_max_gap: Duration::minutes(self.observe_max_gap_minutes),
            default_cache_life: self.default_cache_life,
        }
    }
}

/// Upstream tokens a tenant may spend a day unless told otherwise.
pub const DEFAULT_DAILY_TOKEN_BUDGET: u64 = 10_000_000;

impl LlmArgs {
    /// The daily budget per tenant; `None`: no limit.
    pub fn daily_token_budget(&self) -> Option<u64> {
        Some(self.tenant_daily_token_budget).filter(|budget| *budget > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tenant_s_upstream_spending_is_bounded_unless_told_otherwise() {
        let cli = Cli::try_parse_from(["compactd"]).unwrap();
        assert_eq!(cli.serve.llm.daily_token_budget(), Some(DEFAULT_DAILY_TOKEN_BUDGET));
        let cli = Cli::try_parse_from(["compactd", "--tenant-daily-token-budget", "0"]).unwrap();
        assert_eq!(cli.serve.llm.daily_token_budget(), None);
    }

    #[test]
    fn the_defaults_are_the_spec_policy() {
        let cli = Cli::try_parse_from(["compactd"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.serve.policy.to_config(), PolicyConfig::default());
        assert_eq!(cli.serve.addr.to_string(), "127.0.0.1:8080");
    }

    #[test]
    fn flags_set_thresholds() {
        let cli = Cli::try_parse_from([
            "compactd",
            "serve",
            "--context-pressure-tokens",
            "90000",
            "--default-cache-life",
            "one_hour",
            "--idle-lead-minutes",
            "10",
        ])
        .unwrap();
        let Some(Command::Serve(args)) = cli.command else {
            panic!("serve")
        };
        let config = args.policy.to_config();
        assert_eq!(config.context_pressure_tokens, Some(90_000));
        assert_eq!(config.default_cache_life, CacheLife::OneHour);
        assert_eq!(config.idle_lead, Duration::minutes(10));
    }

    #[test]
    fn nonsense_is_refused_at_start() {
        for args in [
            ["compactd", "--emergency-percent", "0"],
            ["compactd", "--default-cache-life", "forever"],
            ["compactd", "--context-pressure-tokens", "0"],
        ] {
            assert!(Cli::try_parse_from(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn a_provider_needs_a_summary_model() {
        let cli = Cli::try_parse_from(["compactd", "--llm-provider", "openai"]).unwrap();
        assert!(
            cli.serve
                .llm
                .to_summarizer()
                .unwrap_err()
                .contains("COMPACTD_SUMMARY_MODEL")
        );
        let cli = Cli::try_parse_from(["compactd", "--llm-provider", "anthropic", "--summary-model", "m"]).unwrap();
        let settings = cli.serve.llm.to_summarizer().unwrap().unwrap();
        assert_eq!(settings.llm.base_url, "https://api.anthropic.com");
        let none = Cli::try_parse_from(["compactd"]).unwrap();
        assert!(none.serve.llm.to_summarizer().unwrap().is_none());
    }

    #[test]
    fn the_upstream_key_is_never_printed() {
        let cli = Cli::try_parse_from(["compactd", "--llm-api-key", "sk-secret"]).unwrap();
        assert!(!format!("{cli:?}").contains("sk-secret"));
    }

    #[test]
    fn the_database_url_is_never_printed() {
        let args = DatabaseArgs {
            database_url: Some("postgres://u:secret@h/db".into()),
            data_dir: "d".into(),
        };
        assert!(!format!("{args:?}").contains("secret"));
    }
}
