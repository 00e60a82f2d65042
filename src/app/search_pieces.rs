//! Write the search pieces of long turns (issue 23): the part of storing a
//! long turn that search needs and the request that stored it does not, done
//! by the background one turn at a time.

use super::Services;
use crate::store::StoreResult;
use crate::store::search_pieces;

/// Writes the pieces of the next long turn still due; answers whether there
/// was one.
pub(crate) async fn write_next(services: &Services) -> StoreResult<bool> {
    let mut conn = services.pool.acquire().await?;
    if let Ok(due) = search_pieces::due(&mut conn).await {
        metrics::gauge!("compactd_background_queue_depth", "work" => "search_pieces").set(due as f64);
    }
    let written = search_pieces::write_next(&mut conn).await?;
    if let Some(pieces) = written {
        metrics::counter!("compactd_search_pieces_written_total").increment(pieces);
    }
    Ok(written.is_some())
}
