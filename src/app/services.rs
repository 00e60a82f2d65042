//! What the use cases share, and how they refuse.

use std::sync::Arc;

use sqlx::PgPool;

use super::budget::Budget;
use crate::config::SummaryConfig;
use crate::domain::ConversationId;
use crate::llm::UpstreamModel;
use crate::policy::PolicyConfig;
use crate::store::StoreError;

/// What the use cases share: the database, the policy, the upstreams and
/// what they are held to.
#[derive(Clone)]
pub(crate) struct Services {
    pub pool: PgPool,
    pub policy: Arc<PolicyConfig>,
    /// Who writes summaries; `None`: the extractive summarizer.
    pub summary_model: Option<UpstreamModel>,
    /// What every summary is held to.
    pub summaries: SummaryConfig,
    /// Who scores turns and audits; `None`: the heuristics.
    pub score_model: Option<UpstreamModel>,
    /// What each tenant may spend upstream a day.
    pub budget: Budget,
}

/// Why a use case did not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    #[error("{0}")]
    NotFound(String),
    /// The request is valid but collides with what is stored now.
    #[error("{0}")]
    Conflict(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Refusal {
    /// The one answer for a conversation that does not exist (or is another
    /// tenant's).
    pub(crate) fn no_conversation(id: &ConversationId) -> Self {
        Self::NotFound(format!("no conversation {:?}", id.as_str()))
    }
}

impl From<sqlx::Error> for Refusal {
    fn from(err: sqlx::Error) -> Self {
        Self::Store(err.into())
    }
}

pub(crate) type Outcome<T> = Result<T, Refusal>;
