//! What can go wrong with the upstream LLM. Every one of these is a fail-soft
//! outcome for the caller: the anchor stays, a failed attempt is recorded.

/// The most of an upstream error body kept in an error (never a secret of
/// ours: requests carry the key in a header, not the body).
pub const BODY_EXCERPT_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    #[error("no upstream LLM is configured")]
    NotConfigured,
    #[error("the upstream did not answer within the deadline ({attempts} attempts)")]
    Deadline { attempts: u32 },
    #[error("the upstream answered {status}: {body}")]
    Status { status: u16, body: String },
    #[error("could not reach the upstream: {0}")]
    Transport(String),
    #[error("the upstream answered with no text")]
    Empty,
    #[error("the upstream's answer is not what its API describes: {0}")]
    Malformed(String),
}

impl LlmError {
    /// A short stable name, for metrics.
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::NotConfigured => "not_configured",
            Self::Deadline { .. } => "deadline",
            Self::Status { .. } => "status",
            Self::Transport(_) => "transport",
            Self::Empty => "empty",
            Self::Malformed(_) => "malformed",
        }
    }

    /// Worth another attempt: the upstream is busy or failing, not refusing.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Status { status, .. } => *status == 408 || *status == 429 || *status >= 500,
            Self::Transport(_) => true,
            _ => false,
        }
    }
}

pub fn excerpt(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.chars().count() <= BODY_EXCERPT_CHARS {
        return trimmed.to_owned();
    }
    let head: String = trimmed.chars().take(BODY_EXCERPT_CHARS).collect();
    format!("{head}…")
}
