//! What the background workers share, and starting them.

use crate::app::Services;
use crate::app::audit::AuditSettings;
use crate::config::BackgroundSettings;
use tokio::task::JoinHandle;

impl BackgroundSettings {
    pub(super) fn audits(&self) -> AuditSettings {
        AuditSettings {
            config: self.audit.clone(),
            abandoned_after: self.abandoned_after,
            retry_after: self.audit_retry_after,
        }
    }
}

/// What the workers share.
#[derive(Clone)]
pub(crate) struct Workers {
    pub services: Services,
    pub settings: BackgroundSettings,
    /// Upstream calls the service may have in flight at once.
    pub upstream_slots: usize,
    /// The longest one preparation may take: a summary's own time, which
    /// the claim's outlasts (`COMPACTD_CLAIM_TIMEOUT_SECS` is checked so).
    pub prepare_within: std::time::Duration,
}

impl Workers {
    /// Starts the scorer (which audits what it touched), the search pieces'
    /// writer, the preparer (when a model writes summaries and preparation
    /// is on) and the idle sweep.
    pub(crate) fn spawn(self) -> Vec<JoinHandle<()>> {
        let mut handles = vec![
            tokio::spawn(super::scorer::run(self.clone())),
            tokio::spawn(super::search_pieces::run(self.clone())),
        ];
        if self.services.summary_model.is_some() && self.services.policy.prepare_at_percent > 0 {
            let slots = (self.upstream_slots / 2).max(1);
            handles.push(tokio::spawn(super::preparer::run(self.clone(), slots)));
        }
        if let Some(every) = self.settings.idle_sweep_every {
            handles.push(tokio::spawn(super::idle::run(self.services, every)));
        }
        handles
    }
}
