//! Heavy work one caller must not take from the others (issue 37): at most
//! so many at once in the process, and a tenant's one at a time. An export
//! past either bound is refused at once (it would hold a connection for as
//! long as its reader reads); a keep check waits its turn behind its own
//! tenant's checks first, then in the process's first-come queue, so a tenant
//! looping checks holds one place in that queue, never all of them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::domain::TenantId;

/// A tenant's own queue: one at a time.
const PER_TENANT: usize = 1;

/// A bound on one kind of work.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    /// What it bounds, for refusals and metrics ("export", "keep check").
    work: &'static str,
    process: Arc<Semaphore>,
    /// The longest [`Gate::enter`] waits before it gives up.
    patience: Option<std::time::Duration>,
    /// Each tenant with work running or waiting: its queue and how many
    /// hold or wait on it; an entry lives only while that is more than none.
    tenants: Arc<Mutex<Tenants>>,
}

type Tenants = HashMap<TenantId, (Arc<Semaphore>, usize)>;

/// Why no place was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Turned {
    /// The tenant has as much of this work running as it may.
    TooManyAtOnce(String),
    /// The process has, or the wait for a place was too long.
    Busy(String),
}

/// A place through the gate, held while the work runs.
#[derive(Debug)]
pub(crate) struct Pass {
    _process: OwnedSemaphorePermit,
    _tenant: TenantPlace,
}

/// A tenant's place; the last to leave removes the tenant's queue.
#[derive(Debug)]
struct TenantPlace {
    permit: Option<OwnedSemaphorePermit>,
    queue: Arc<Semaphore>,
    tenant: TenantId,
    tenants: Arc<Mutex<Tenants>>,
}

/// The last to leave removes the tenant's queue.
impl Drop for TenantPlace {
    fn drop(&mut self) {
        drop(self.permit.take());
        let mut tenants = self.tenants.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, users)) = tenants.get_mut(&self.tenant) {
            *users = users.saturating_sub(1);
            if *users == 0 {
                tenants.remove(&self.tenant);
            }
        }
    }
}

impl Gate {
    pub(crate) fn new(work: &'static str, at_once: usize) -> Self {
        Self {
            work,
            process: Arc::new(Semaphore::new(at_once.max(1))),
            patience: None,
            tenants: Arc::default(),
        }
    }

    /// This gate, whose waits give up after `patience` (a request's
    /// deadline: work that runs to completion for a retry's sake must not
    /// queue for ever once nobody waits for it).
    pub(crate) fn waiting_at_most(self, patience: std::time::Duration) -> Self {
        Self {
            patience: Some(patience),
            ..self
        }
    }

    /// The tenant's place in its queue, counted as a user of it until dropped.
    fn place(&self, tenant: &TenantId) -> TenantPlace {
        let mut tenants = self.tenants.lock().unwrap_or_else(PoisonError::into_inner);
        let (queue, users) = tenants
            .entry(tenant.clone())
            .or_insert_with(|| (Arc::new(Semaphore::new(PER_TENANT)), 0));
        *users += 1;
        TenantPlace {
            permit: None,
            queue: queue.clone(),
            tenant: tenant.clone(),
            tenants: self.tenants.clone(),
        }
    }

    /// A place now, or a refusal saying which bound is reached.
    pub(crate) fn enter_now(&self, tenant: &TenantId) -> Result<Pass, Turned> {
        let mut place = self.place(tenant);
        place.permit = place.queue.clone().try_acquire_owned().ok();
        if place.permit.is_none() {
            metrics::counter!("compactd_work_refused_total", "work" => self.work, "bound" => "tenant").increment(1);
            return Err(Turned::TooManyAtOnce(format!(
                "this tenant has an {} running already; one runs at a time",
                self.work
            )));
        }
        let Ok(process) = self.process.clone().try_acquire_owned() else {
            metrics::counter!("compactd_work_refused_total", "work" => self.work, "bound" => "process").increment(1);
            return Err(Turned::Busy(format!(
                "this process runs as many {}s as it may at once; retry shortly",
                self.work
            )));
        };
        Ok(Pass {
            _process: process,
            _tenant: place,
        })
    }

    /// A place once the tenant's earlier work and the process's queue let
    /// it in; dropped while waiting (its request went away), it leaves both
    /// queues.
    pub(crate) async fn enter(&self, tenant: &TenantId) -> Result<Pass, Turned> {
        let waited = async {
            let mut place = self.place(tenant);
            let closed = |_| Turned::Busy(format!("this process is stopping: no {} starts", self.work));
            place.permit = Some(place.queue.clone().acquire_owned().await.map_err(closed)?);
            let process = self.process.clone().acquire_owned().await.map_err(closed)?;
            Ok(Pass {
                _process: process,
                _tenant: place,
            })
        };
        match self.patience {
            None => waited.await,
            Some(patience) => tokio::time::timeout(patience, waited).await.unwrap_or_else(|_| {
                metrics::counter!("compactd_work_refused_total", "work" => self.work, "bound" => "waited").increment(1);
                Err(Turned::Busy(format!(
                    "this {} waited its turn for {patience:?} and gave up; retry shortly",
                    self.work
                )))
            }),
        }
    }

    /// Tenants with work running or waiting here (for tests).
    #[cfg(test)]
    fn tenants_held(&self) -> usize {
        self.tenants.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn tenant(name: &str) -> TenantId {
        TenantId::parse("tenant", name).unwrap()
    }

    #[tokio::test]
    async fn a_tenant_has_one_at_a_time_and_the_process_a_few() {
        let gate = Gate::new("export", 2);
        let acme = gate.enter_now(&tenant("acme")).unwrap();

        assert!(matches!(gate.enter_now(&tenant("acme")), Err(Turned::TooManyAtOnce(_))));
        let globex = gate.enter_now(&tenant("globex")).unwrap();
        assert!(matches!(gate.enter_now(&tenant("initech")), Err(Turned::Busy(_))));

        drop(acme);
        assert!(gate.enter_now(&tenant("initech")).is_ok());
        drop(globex);
        assert_eq!(gate.tenants_held(), 0, "nothing kept for tenants with nothing running");
    }

    #[tokio::test]
    async fn a_tenant_looping_work_holds_one_place_in_the_process_queue() {
        let gate = Gate::new("keep check", 1);
        let first = gate.enter(&tenant("loud")).await.unwrap();
        // The loud tenant queues seven more behind its first...
        let mut waiting = Vec::new();
        for _ in 0..7 {
            let gate = gate.clone();
            waiting.push(tokio::spawn(async move { gate.enter(&tenant("loud")).await.unwrap() }));
        }
        tokio::task::yield_now().await;
        // ...and a quiet one asks after them.
        let quiet = {
            let gate = gate.clone();
            tokio::spawn(async move { gate.enter(&tenant("quiet")).await.unwrap() })
        };
        tokio::task::yield_now().await;

        drop(first);
        let quiet = tokio::time::timeout(Duration::from_secs(5), quiet)
            .await
            .unwrap()
            .unwrap();

        let loud_running = waiting.iter().filter(|task| task.is_finished()).count();
        assert!(
            loud_running <= 1,
            "the quiet tenant went before the loud one's queue: {loud_running}"
        );
        drop(quiet);
        for task in waiting {
            drop(task.await.unwrap());
        }
        assert_eq!(gate.tenants_held(), 0);
    }

    #[tokio::test]
    async fn a_patient_gate_gives_up_waiting_after_its_patience() {
        let gate = Gate::new("keep check", 1).waiting_at_most(Duration::from_millis(20));
        let held = gate.enter(&tenant("a")).await.unwrap();

        assert!(matches!(gate.enter(&tenant("b")).await, Err(Turned::Busy(_))));
        drop(held);
        assert_eq!(gate.tenants_held(), 0);
    }

    #[tokio::test]
    async fn work_given_up_while_waiting_leaves_no_trace() {
        let gate = Gate::new("keep check", 1);
        let held = gate.enter(&tenant("a")).await.unwrap();
        let given_up = tokio::time::timeout(Duration::from_millis(20), gate.enter(&tenant("b"))).await;
        assert!(given_up.is_err());
        drop(held);
        assert_eq!(gate.tenants_held(), 0);
        assert!(gate.enter_now(&tenant("b")).is_ok());
    }
}
