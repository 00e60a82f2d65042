//! What the background workers share.

use crate::app::Services;
use crate::app::audit::AuditSettings;
use crate::config::BackgroundSettings;

impl Workers {
    pub(super) fn audits(&self) -> AuditSettings {
        AuditSettings {
            config: self.settings.audit.clone(),
            abandoned_after: self.services.leases.worker,
            retry_after: self.settings.audit_retry_after,
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
}
