//! What the use cases share, made from the settings and what start-up
//! opened: the pools, the upstream's models on one client, the gates.

use std::sync::Arc;

use sqlx::PgPool;
use sqlx::postgres::PgConnectOptions;

use super::error::StartupError;
use crate::app::gate::Gate;
use crate::app::{Budget, Exports, Services};
use crate::config::{Settings, Upstream};
use crate::llm::{LlmClient, UpstreamModel};
use crate::store;
use crate::store::FleetReads;
use crate::store::processes::ProcessId;

/// What the use cases share, from the settings and what start-up made.
pub(super) fn services(
    settings: &Settings,
    pool: &PgPool,
    reads: FleetReads,
    (summary_model, score_model): (Option<UpstreamModel>, Option<UpstreamModel>),
    process: ProcessId,
    exports_database: PgConnectOptions,
    stopping: &tokio::sync::watch::Sender<bool>,
) -> Services {
    Services {
        pool: pool.clone(),
        warm: store::Warm::new(pool.clone()),
        reads,
        policy: Arc::new(settings.policy.clone()),
        summary_model,
        summaries: settings.summaries.clone(),
        score_model,
        budget: Budget {
            daily: settings.daily_token_budget,
        },
        leases: settings.leases,
        process,
        exports: Exports {
            pool: store::side_pool(exports_database, settings.work.exports_at_once as u32),
            gate: Gate::new("export", settings.work.exports_at_once),
            stall: settings.work.export_stall,
            deadline: settings.work.export_deadline,
            stopping: stopping.subscribe(),
        },
        keep_checks: Gate::new("keep check", settings.work.keep_checks_at_once)
            .waiting_at_most(settings.timeouts.request),
        prices: Arc::new(settings.prices.clone()),
    }
}

/// The summary model and the score model, on one client: one bound on the
/// calls in flight for both.
pub(super) fn upstream_models(
    upstream: Option<Upstream>,
) -> Result<(Option<UpstreamModel>, Option<UpstreamModel>), StartupError> {
    let Some(upstream) = upstream else {
        return Ok((None, None));
    };
    let client = Arc::new(LlmClient::new(upstream.llm)?);
    let score_model = upstream
        .score_model
        .map(|model| UpstreamModel::new(client.clone(), model, None));
    let summary_model = UpstreamModel::new(client, upstream.model, upstream.context_tokens);
    Ok((Some(summary_model), score_model))
}
