//! The idle sweep's schedule: `app::idle_sweep` every so often.

use std::time::Duration;

use crate::app::{Services, idle_sweep};

pub(super) async fn run(services: Services, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    loop {
        ticks.tick().await;
        if let Err(err) = idle_sweep::sweep(&services).await {
            tracing::warn!(%err, "the idle sweep failed");
        }
    }
}
