//! Background work (SPEC §5): scoring stored turns, auditing conversations,
//! and compacting idle ones before their cache expires. Every piece of work is
//! claimed through the database, so any number of replicas share it, none
//! does it twice, and a replica that dies leaves nothing that is not taken up
//! again.

mod audit;
mod idle;
mod scorer;

use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;
use tokio::task::JoinHandle;

use crate::compaction::SummaryConfig;
use crate::llm::{LlmClient, SummaryModel};
use crate::policy::PolicyConfig;
use crate::policy::audit::AuditConfig;

/// The upstream and the model that score turns (one of their own).
#[derive(Debug, Clone)]
pub struct ScoreModel {
    pub client: Arc<LlmClient>,
    pub model: String,
}

/// How the background workers run.
#[derive(Debug, Clone)]
pub struct BackgroundSettings {
    /// How long the scorer rests when it found nothing to score.
    pub poll: Duration,
    /// Turns one worker claims at a time.
    pub batch: i64,
    /// A claim older than this was abandoned (its worker died): taken again.
    pub abandoned_after: Duration,
    pub audit: AuditConfig,
    /// A failed audit is not retried sooner than this.
    pub audit_retry_after: Duration,
    /// How often idle conversations are looked for; `None`: never.
    pub idle_sweep_every: Option<Duration>,
}

impl Default for BackgroundSettings {
    fn default() -> Self {
        Self {
            poll: Duration::from_millis(500),
            batch: 16,
            abandoned_after: Duration::from_secs(5 * 60),
            audit: AuditConfig::default(),
            audit_retry_after: Duration::from_secs(60),
            idle_sweep_every: Some(Duration::from_secs(60)),
        }
    }
}

/// What the workers share.
#[derive(Clone)]
pub struct Workers {
    pub pool: PgPool,
    pub settings: BackgroundSettings,
    /// `None`: the heuristic scores turns and audits without a model.
    pub score_model: Option<ScoreModel>,
    pub summary_model: Option<SummaryModel>,
    pub summaries: SummaryConfig,
    pub daily_token_budget: Option<u64>,
    pub policy: Arc<PolicyConfig>,
}

impl Workers {
    /// Starts the scorer (which audits what it touched) and the idle sweep.
    pub fn spawn(self) -> Vec<JoinHandle<()>> {
        let mut handles = vec![tokio::spawn(scorer::run(self.clone()))];
        if let Some(every) = self.settings.idle_sweep_every {
            handles.push(tokio::spawn(idle::run(self, every)));
        }
        handles
    }
}
