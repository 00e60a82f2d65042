//! The data lifecycle's schedule (issue 25): every so often, work the
//! purges nobody works (`app::purge`), then delete what is past the
//! retention (`app::retention`).

use super::Workers;
use crate::app::{purge, retention};

pub(super) async fn run(workers: Workers) {
    let pool = &workers.services.pool;
    let mut ticks = tokio::time::interval(workers.settings.lifecycle_every);
    loop {
        ticks.tick().await;
        loop {
            match purge::work_next(pool, workers.services.leases.worker).await {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(err) => {
                    tracing::warn!(%err, "a tenant purge failed; it is taken up again");
                    break;
                }
            }
        }
        if let Some(after) = workers.settings.retention
            && let Err(err) = retention::sweep(pool, after).await
        {
            tracing::warn!(%err, "the retention sweep failed");
        }
    }
}
