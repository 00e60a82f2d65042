//! What the use cases share, and how they refuse.

use std::sync::Arc;

use sqlx::PgPool;

use super::budget::{Budget, Reservation};
use super::gate::{Gate, Turned};
use crate::config::{Leases, SummaryConfig};
use crate::domain::{ConversationId, Prices, TenantId};
use crate::llm::UpstreamModel;
use crate::policy::PolicyConfig;
use crate::store::processes::ProcessId;
use crate::store::{self, StoreError};

/// What the use cases share: the database, the policy, the upstreams and
/// what they are held to.
#[derive(Clone)]
pub(crate) struct Services {
    pub pool: PgPool,
    /// The hot path's connections given back clean, reused before `pool`'s.
    pub warm: store::Warm,
    /// Where the fleet's reads go: a standby while it keeps up, else `pool`.
    pub reads: store::FleetReads,
    pub policy: Arc<PolicyConfig>,
    /// Who writes summaries; `None`: the extractive summarizer.
    pub summary_model: Option<UpstreamModel>,
    /// What every summary is held to.
    pub summaries: SummaryConfig,
    /// Who scores turns and audits; `None`: the heuristics.
    pub score_model: Option<UpstreamModel>,
    /// What each tenant may spend upstream a day.
    pub budget: Budget,
    /// How long each kind of claim lasts before it counts as abandoned.
    pub leases: Leases,
    /// This process, as the holder of the request claims it takes.
    pub process: ProcessId,
    /// What exports run on and are held to.
    pub exports: Exports,
    /// Keep checks worked at once: a few in the process, a tenant's one at a time.
    pub keep_checks: Gate,
    /// What tokens cost, by model (SPEC §6).
    pub prices: Arc<Prices>,
}

/// What exports run on and are held to.
#[derive(Debug, Clone)]
pub(crate) struct Exports {
    /// Connections of their own: never the requests' pool.
    pub pool: PgPool,
    pub gate: Gate,
    /// A reader that takes nothing for this long is cut off.
    pub stall: std::time::Duration,
    /// No export takes longer.
    pub deadline: std::time::Duration,
    /// Turns true once the service begins to stop.
    pub stopping: tokio::sync::watch::Receiver<bool>,
}

/// Why a use case did not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    #[error("{0}")]
    NotFound(String),
    /// The request is valid but collides with what is stored now.
    #[error("{0}")]
    Conflict(String),
    /// The caller's tenant has as much of this work running as it may.
    #[error("{0}")]
    TooManyAtOnce(String),
    /// The process has as much of this work running as it may.
    #[error("{0}")]
    Busy(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Refusal {
    /// The database could not take the work now: worth retrying later.
    pub(crate) fn is_unavailable(&self) -> bool {
        matches!(self, Self::Store(err) if err.is_unavailable())
    }

    /// The one answer for a conversation that does not exist (or is another
    /// tenant's).
    pub(crate) fn no_conversation(id: &ConversationId) -> Self {
        Self::NotFound(format!("no conversation {:?}", id.as_str()))
    }
}

impl From<Turned> for Refusal {
    fn from(turned: Turned) -> Self {
        match turned {
            Turned::TooManyAtOnce(text) => Self::TooManyAtOnce(text),
            Turned::Busy(text) => Self::Busy(text),
        }
    }
}

impl From<sqlx::Error> for Refusal {
    fn from(err: sqlx::Error) -> Self {
        Self::Store(err.into())
    }
}

/// What a use case answers: its answer, or why it did not do what it was asked.
pub(crate) type AppResult<T> = Result<T, Refusal>;

/// The gate as the background workers meet it: best effort, since a score
/// or an audit without the model has its heuristic.
impl Services {
    /// The standby the fleet's reads go to, as last measured; `None` without one.
    pub(crate) fn standby(&self) -> Option<crate::records::StandbyReport> {
        self.reads.standby()
    }

    /// What is known of the summary model's window and what it rests on, as
    /// Prometheus text; empty without a summary model.
    pub(crate) fn summary_window_metrics(&self) -> String {
        self.summary_model
            .as_ref()
            .map_or_else(String::new, |model| model.context.exposition())
    }

    /// Whether the database answers (readiness).
    pub(crate) async fn database_answers(&self) -> AppResult<()> {
        Ok(store::ping(&self.pool).await?)
    }

    /// The score model for the tenant, unless there is none or the tenant's
    /// budget is spent (or cannot be read: the heuristic costs nothing).
    pub(crate) async fn score_model_for(&self, tenant: &TenantId) -> Option<&UpstreamModel> {
        let model = self.score_model.as_ref()?;
        let mut conn = self.warm.acquire().await.ok()?;
        self.budget.allows(&mut conn, tenant).await.ok()?.ok()?;
        Some(model)
    }

    /// Counts a score or audit call against the tenant's budget (it held
    /// nothing before); a count that cannot be written is logged, not retried.
    pub(crate) async fn spend_on_scores(&self, tenant: &TenantId, input: Option<u64>, output: Option<u64>) {
        self.true_up(tenant, Reservation::default(), (input, output), 1).await;
    }

    /// Trues `reservation` up on a connection of its own: what was spent is
    /// spent whatever becomes of the caller's transaction, and a hold is
    /// given back even when nothing the call wrote is kept. A count that
    /// cannot be written is logged, not retried.
    pub(crate) async fn true_up(
        &self,
        tenant: &TenantId,
        reservation: Reservation,
        spent: (Option<u64>, Option<u64>),
        calls: u64,
    ) {
        let settled = async {
            let mut conn = self.warm.acquire().await?;
            self.budget.settle(&mut conn, tenant, reservation, spent, calls).await
        };
        if let Err(err) = settled.await {
            tracing::warn!(%err, "could not count upstream tokens against the budget");
        }
    }
}
