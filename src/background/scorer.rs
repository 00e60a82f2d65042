//! The scorer's loop: claims unscored turns, scores them side by side, then
//! audits the conversations it touched when their audit is due.

use std::collections::BTreeSet;

use tokio::task::JoinSet;

use super::Workers;
use crate::app::{audit, score};

pub(super) async fn run(workers: Workers) {
    let audits = workers.audits();
    let Workers { services, settings, .. } = workers;
    loop {
        let turns = match score::claim(&services, settings.batch).await {
            Ok(turns) if !turns.is_empty() => turns,
            Ok(_) => {
                tokio::time::sleep(settings.poll).await;
                continue;
            }
            Err(err) => {
                tracing::warn!(%err, "cannot claim turns to score");
                tokio::time::sleep(settings.poll * 4).await;
                continue;
            }
        };
        let touched: BTreeSet<_> = turns
            .iter()
            .map(|turn| (turn.tenant.clone(), turn.conversation_id.clone()))
            .collect();
        let mut scoring = JoinSet::new();
        for turn in turns {
            let services = services.clone();
            scoring.spawn(async move { score::score(&services, turn).await });
        }
        scoring.join_all().await;
        for (tenant, conversation_id) in touched {
            audit::run_if_due(&services, &audits, &tenant, &conversation_id).await;
        }
    }
}
