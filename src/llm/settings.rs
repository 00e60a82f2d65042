//! How compactd reaches its upstream: the provider, where, with which key,
//! and how long and how often a call may be retried. Built by `config` from
//! the command line and the environment; owned here so the client needs
//! nothing of `config`.

use std::fmt;
use std::time::Duration;

#[derive(Clone)]
pub struct LlmConfig {
    pub provider: Provider,
    pub base_url: String,
    pub api_key: Option<String>,
    pub retry: RetryPolicy,
    /// Upstream calls in flight at once; more wait their turn (within the deadline).
    pub max_concurrent: usize,
}

/// The key is a secret: never printed.
impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("retry", &self.retry)
            .field("max_concurrent", &self.max_concurrent)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// One deadline across every attempt and every wait.
    pub deadline: Duration,
    pub max_attempts: u32,
    /// The first backoff's ceiling; it doubles each attempt...
    pub base: Duration,
    /// ...up to this.
    pub cap: Duration,
    /// The longest `Retry-After` honoured; a longer one gives up instead.
    pub retry_after_cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            deadline: Duration::from_secs(60),
            max_attempts: 4,
            base: Duration::from_millis(250),
            cap: Duration::from_secs(8),
            retry_after_cap: Duration::from_secs(30),
        }
    }
}

/// The upstream's API: any OpenAI-compatible server, or Anthropic's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    OpenAi,
    Anthropic,
}

/// Where each provider's API is (its requests are built in `llm::wire`).
impl Provider {
    pub(crate) fn default_base_url(self) -> &'static str {
        match self {
            Self::OpenAi => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com",
        }
    }
}
