//! What can go wrong with the upstream LLM. Every one of these is a fail-soft
//! outcome for the caller: the anchor stays, a failed attempt is recorded.
//!
//! An error's text (its `Display`) is what tenants see, in answers, the
//! ledger and the dashboard: a short kind, never the upstream's body (HTML,
//! stack traces) or its URL. [`LlmError::details`] is for the operator's log.

use super::refusal::ContextRefusal;

/// The most of an upstream error body kept in an error (never a secret of
/// ours: requests carry the key in a header, not the body).
pub(crate) const BODY_EXCERPT_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// The client's bound on calls in flight was closed: it is going away.
    #[error("the upstream client is closed")]
    Closed,
    #[error("the upstream did not answer within the deadline ({attempts} attempts)")]
    Deadline { attempts: u32 },
    /// `body`: an excerpt of what it answered, for the log only.
    #[error("the upstream answered {status}")]
    Status { status: u16, body: String },
    /// What failed, for the log only.
    #[error("could not reach the upstream")]
    Transport(String),
    #[error("the upstream answered with no text")]
    Empty,
    /// The summary model's context cannot hold the prompt (it said so, or
    /// read only part of it): what it said of its window, to learn from.
    #[error("the summary model's context cannot hold the prompt")]
    ContextLength(ContextRefusal),
    /// What was wrong with it, for the log only.
    #[error("the upstream's answer was unreadable")]
    Malformed(String),
}

impl LlmError {
    /// The error with what only the operator should see.
    pub(crate) fn details(&self) -> String {
        match self {
            Self::Status { body, .. } => format!("{self}: {body}"),
            Self::Transport(what) | Self::Malformed(what) => format!("{self}: {what}"),
            other => other.to_string(),
        }
    }

    /// A short stable name, for metrics.
    pub(crate) const fn kind(&self) -> &'static str {
        match self {
            Self::Closed => "closed",
            Self::Deadline { .. } => "deadline",
            Self::Status { .. } => "status",
            Self::Transport(_) => "transport",
            Self::Empty => "empty",
            Self::ContextLength(_) => "context_length",
            Self::Malformed(_) => "malformed",
        }
    }

    /// Worth another attempt: the upstream is busy or failing, not refusing.
    pub(crate) fn is_retryable(&self) -> bool {
        match self {
            Self::Status { status, .. } => *status == 408 || *status == 429 || *status >= 500,
            Self::Transport(_) => true,
            _ => false,
        }
    }
}

pub(crate) fn excerpt(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.chars().count() <= BODY_EXCERPT_CHARS {
        return trimmed.to_owned();
    }
    let head: String = trimmed.chars().take(BODY_EXCERPT_CHARS).collect();
    format!("{head}…")
}

/// A call that never got an answer: its deadline passed, or the connection
/// failed (with every cause, for the log).
pub(crate) fn transport(err: reqwest::Error) -> LlmError {
    if err.is_timeout() {
        return LlmError::Deadline { attempts: 0 };
    }
    // A configured URL may carry a key in its query (`?api-key=…`): keep the
    // host and path only, even in the log.
    let url = err.url().map(without_query);
    let err = err.without_url();
    let mut text = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    LlmError::Transport(match url {
        Some(url) => format!("{text} ({url})"),
        None => text,
    })
}

/// `url` without its query string and fragment.
pub(crate) fn without_query(url: &reqwest::Url) -> String {
    let mut bare = url.clone();
    bare.set_query(None);
    bare.set_fragment(None);
    bare.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_loses_its_query_before_it_is_shown() {
        let url = reqwest::Url::parse("https://llm.example/openai/v1/chat/completions?api-key=sk-secret#x").unwrap();
        assert_eq!(without_query(&url), "https://llm.example/openai/v1/chat/completions");
    }
}
