//! When background work runs (SPEC §5): the loops that score stored turns,
//! audit the conversations they touched, and sweep idle ones before their
//! cache expires. The work itself is the use cases' (`app::score`,
//! `app::audit`, `app::idle_sweep`); every piece of it is claimed through
//! the database, so any number of replicas share it, none does it twice, and
//! a replica that dies leaves nothing that is not taken up again.

mod idle;
mod scorer;

use tokio::task::JoinHandle;

use crate::app::Services;
use crate::app::audit::AuditSettings;
use crate::config::BackgroundSettings;

impl BackgroundSettings {
    fn audits(&self) -> AuditSettings {
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
        let mut handles = vec![tokio::spawn(scorer::run(self.clone()))];
        if let Some(every) = self.settings.idle_sweep_every {
            handles.push(tokio::spawn(idle::run(self.services, every)));
        }
        handles
    }
}
