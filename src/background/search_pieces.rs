//! The search pieces' loop (issue 23): long turns' pieces written one at a
//! time, resting a poll when none is due.

use super::Workers;
use crate::app::search_pieces;

pub(super) async fn run(workers: Workers) {
    let Workers { services, settings, .. } = workers;
    loop {
        match search_pieces::write_next(&services).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(err) => tracing::warn!(%err, "cannot write a long turn's search pieces"),
        }
        tokio::time::sleep(settings.poll).await;
    }
}
