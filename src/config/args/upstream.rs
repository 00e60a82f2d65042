//! The upstream LLM's flags: which provider, the models, how a call is
//! retried and bounded, a tenant's daily budget and the prices. The key is
//! never printed.

use std::fmt;

use clap::{Args, ValueEnum};

use crate::config::settings::DEFAULT_DAILY_TOKEN_BUDGET;

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
    /// Seconds a summary prepared ahead may take across all its upstream
    /// calls. Nobody waits for one, and a slow local model needs many
    /// minutes to fold a long session in chunks.
    #[arg(long, env = "COMPACTD_PREPARE_DEADLINE_SECS", default_value_t = 900,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub prepare_deadline_secs: u64,
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
