//! The preparer's loop (issue 12): claims planned preparations and writes
//! them side by side, at most half the upstream's slots at once, so that
//! compactions that are waiting always find room.

use tokio::task::JoinSet;

use super::Workers;
use crate::app::summarize::prepare;

pub(super) async fn run(workers: Workers, slots: usize) {
    let Workers { services, settings, .. } = workers;
    let prepare_within = settings.prepare_deadline;
    let mut writing = JoinSet::new();
    loop {
        let free = slots.saturating_sub(writing.len());
        let claimed = if free == 0 {
            Vec::new()
        } else {
            match prepare::claim(&services, free as i64, prepare_within).await {
                Ok(claimed) => claimed,
                Err(err) => {
                    tracing::warn!(%err, "cannot claim summaries to prepare");
                    tokio::time::sleep(settings.poll * 4).await;
                    continue;
                }
            }
        };
        let idle = claimed.is_empty();
        for one in claimed {
            let services = services.clone();
            writing.spawn(async move { prepare::prepare(&services, one, prepare_within).await });
        }
        if !idle && writing.len() < slots {
            continue;
        }
        // Rest until a preparation ends or the poll comes round.
        tokio::select! {
            Some(_) = writing.join_next(), if !writing.is_empty() => {}
            () = tokio::time::sleep(settings.poll) => {}
        }
    }
}
