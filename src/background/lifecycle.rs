//! The data lifecycle's schedule (issue 25): every few seconds, work the
//! purges nobody works (`app::purge`); every few minutes, delete what is
//! past the retention (`app::retention`).

use std::time::Instant;

use super::Workers;
use crate::app::{purge, retention};

pub(super) async fn run(workers: Workers) {
    let pool = &workers.services.pool;
    let mut ticks = tokio::time::interval(workers.settings.lifecycle_every);
    let mut swept = None;
    loop {
        ticks.tick().await;
        loop {
            match purge::work_next(pool, (workers.services.leases.worker, workers.services.process)).await {
                Ok(true) => {}
                Ok(false) => break,
                Err(err) => {
                    tracing::warn!(%err, "no purge could be claimed");
                    break;
                }
            }
        }
        let Some(after) = workers.settings.retention else {
            continue;
        };
        if swept.is_some_and(|at: Instant| at.elapsed() < workers.settings.retention_every) {
            continue;
        }
        swept = Some(Instant::now());
        if let Err(err) = retention::sweep(pool, after, workers.services.leases.request).await {
            tracing::warn!(%err, "the retention sweep failed");
        }
    }
}
