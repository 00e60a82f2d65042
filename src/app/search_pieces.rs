//! Write the search pieces of long turns (issue 23): the part of storing a
//! long turn that search needs and the request that stored it does not, done
//! by the background one turn at a time.

use super::Services;
use crate::store::StoreResult;
use crate::store::search_pieces::{self, Attempt};

/// Writes the pieces of the next long turn still due; answers whether there
/// was one.
pub(crate) async fn write_next(services: &Services) -> StoreResult<bool> {
    let mut conn = services.warm.acquire().await?;
    if let Ok(due) = search_pieces::due(&mut conn).await {
        metrics::gauge!("compactd_background_queue_depth", "work" => "search_pieces").set(due as f64);
    }
    match search_pieces::write_next(&mut conn).await? {
        Some(Attempt::Written(pieces)) => {
            metrics::counter!("compactd_search_pieces_written_total").increment(pieces);
            Ok(true)
        }
        Some(Attempt::Refused(why)) => {
            tracing::warn!(%why, "a long turn's search pieces could not be written: it is searched by substring");
            metrics::counter!("compactd_background_skipped_total", "reason" => "search-pieces").increment(1);
            Ok(true)
        }
        None => Ok(false),
    }
}
