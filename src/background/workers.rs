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
}

impl Workers {
    /// Starts the scorer (which audits what it touched) and the idle sweep.
    pub(crate) fn spawn(self) -> Vec<JoinHandle<()>> {
        let mut handles = vec![tokio::spawn(super::scorer::run(self.clone()))];
        if let Some(every) = self.settings.idle_sweep_every {
            handles.push(tokio::spawn(super::idle::run(self.services, every)));
        }
        handles
    }
}
