//! The keep guard's other way for a summary someone else wrote (issue 39):
//! the paths, ids, URLs and figures it names that the conversation never
//! did — in none of its stored turns, its keep set, its summary or its
//! memory. A harness that checks its summary learns what to mark
//! `[unverified]`, as compactd marks what a model made up.

use crate::app::{AppResult, Services};
use crate::domain::{ConversationId, TenantId};
use crate::policy::keep::KeepKind;
use crate::policy::keep::invented::{Given, invented_in, still_invented};
use crate::records::StoredConversation;
use crate::store::{StoreError, turns};

/// Turns read at a time, newest first: a page is read, then let go of,
/// before its words are searched, so no connection waits on the search.
const TURNS_A_PAGE: i64 = 100;
/// The most of a conversation's stored words one check searches: past it,
/// what no newer turn names is reported (a check must not read a
/// conversation of millions of turns whole).
pub(crate) const MOST_WORDS_READ: usize = 64 << 20;

/// What `text` names that the conversation never did, in order, once each;
/// `None` when compactd holds no turn of the conversation to tell by.
pub(crate) async fn made_up(
    services: &Services,
    tenant: &TenantId,
    id: &ConversationId,
    stored: &StoredConversation,
    kept: Vec<String>,
    text: &str,
) -> AppResult<Option<Vec<(KeepKind, String)>>> {
    if stored.last_turn_seq == 0 {
        return Ok(None);
    }
    let mut known = kept;
    known.extend(stored.summary.iter().map(|(summary, _)| summary.clone()));
    known.extend(stored.memory.iter().cloned());
    let text = text.to_owned();
    let mut candidates = off_thread(move || invented_in(&text, Given { texts: &refs(&known) })).await;
    let (mut before, mut read) = (i64::MAX, 0);
    while !candidates.is_empty() && read < MOST_WORDS_READ {
        let page = {
            let mut conn = services.warm.acquire().await.map_err(StoreError::from)?;
            turns::words_before(&mut conn, tenant, id, before, TURNS_A_PAGE).await?
        };
        let Some((oldest, _)) = page.last() else {
            break;
        };
        before = *oldest;
        read += page.iter().map(|(_, words)| words.len()).sum::<usize>();
        let words: Vec<String> = page.into_iter().map(|(_, words)| words).collect();
        candidates = off_thread(move || still_invented(candidates, Given { texts: &refs(&words) })).await;
    }
    Ok(Some(candidates))
}

fn refs(texts: &[String]) -> Vec<&str> {
    texts.iter().map(String::as_str).collect()
}

/// Searching up to a page of turns of a few MiB is work for a blocking
/// thread, not for the runtime's.
async fn off_thread(work: impl FnOnce() -> Vec<(KeepKind, String)> + Send + 'static) -> Vec<(KeepKind, String)> {
    tokio::task::spawn_blocking(work).await.unwrap_or_default()
}
