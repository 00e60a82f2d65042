//! When background work runs (SPEC §5): the loops that score stored turns,
//! audit the conversations they touched, prepare summaries ahead (issue 12),
//! write long turns' search pieces (issue 23), sweep idle ones before
//! their cache expires, and delete what a purge or the retention says to
//! (issue 25). The work itself is the use cases' (`app::score`,
//! `app::audit`, `app::idle_sweep`); every piece of it is claimed through
//! the database, so any number of replicas share it, none does it twice, and
//! a replica that dies leaves nothing that is not taken up again.

mod idle;
mod lifecycle;
mod preparer;
mod scorer;
mod search_pieces;
mod workers;
pub(crate) use workers::Workers;

use tokio::task::JoinHandle;

impl Workers {
    /// Starts the scorer (which audits what it touched), the search pieces'
    /// writer, the preparer (when a model writes summaries and preparation
    /// is on), the idle sweep and the data lifecycle.
    pub(crate) fn spawn(self) -> Vec<JoinHandle<()>> {
        let mut handles = vec![
            tokio::spawn(scorer::run(self.clone())),
            tokio::spawn(search_pieces::run(self.clone())),
            tokio::spawn(lifecycle::run(self.clone())),
        ];
        if self.services.summary_model.is_some() && self.services.policy.prepare_at_percent > 0 {
            let slots = (self.upstream_slots / 2).max(1);
            handles.push(tokio::spawn(preparer::run(self.clone(), slots)));
        }
        if let Some(every) = self.settings.idle_sweep_every {
            handles.push(tokio::spawn(idle::run(self.services, every)));
        }
        handles
    }
}
