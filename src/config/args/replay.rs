//! `compactd replay`'s flags: the sessions, how they are replayed, and
//! where to (a service of its own, or one already running).

use std::path::PathBuf;

use clap::Args;

use super::{DatabaseArgs, LlmArgs, SummaryArgs};

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
