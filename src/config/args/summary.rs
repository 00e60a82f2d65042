//! What every summary is held to, whoever writes it: a flag group serve and
//! replay both take.

use clap::Args;

use crate::config::settings::DEFAULT_SUMMARY_MAX_TOKENS;

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
