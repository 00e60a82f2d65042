//! The command line (SPEC §6): subcommands, and every setting as a flag with
//! an environment variable (flags win). The flags are grouped by what they
//! set, a file each: the database, serving, the upstream, summaries, a replay.

mod database;
mod replay;
mod serve;
mod summary;
mod upstream;

pub use database::{DatabaseArgs, Pooler, StandbyArgs};
pub use replay::ReplayArgs;
pub use serve::ServeArgs;
pub use summary::SummaryArgs;
pub use upstream::{LlmArgs, ProviderChoice};

use clap::{Args, Parser, Subcommand, ValueEnum};

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
