//! The keep guard's other way for a summary someone else wrote (issue 39):
//! the paths, ids, URLs and figures it names that the conversation never
//! did — in none of its stored turns, its keep set, its summary or its
//! memory. A harness that checks its summary learns what to mark
//! `[unverified]`, as compactd marks what a model made up.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::app::{AppResult, Services};
use crate::domain::{ConversationId, TenantId};
use crate::records::StoredConversation;
use crate::store::{StoreError, turns};
use crate::summary::keep::KeepKind;
use crate::summary::keep::invented::{Given, invented_in};
use crate::summary::summarizer::StopOnDrop;

/// Turns read at a time, newest first: a page is read, then let go of,
/// before its words are searched, so no connection waits on the search.
/// Few, since one turn may be megabytes.
const TURNS_A_PAGE: i64 = 10;
/// The most of a conversation's stored words one check searches: past it,
/// what no newer turn names is reported (a check must not read a
/// conversation of millions of turns whole).
pub(crate) const MOST_WORDS_READ: usize = 16 << 20;
/// The most names looked for in the stored turns, in the order the text
/// names them: each page is searched once per name.
pub(crate) const MOST_LOOKED_FOR: usize = 200;

/// What `text` names that the conversation never did, in order, once each
/// (the first [`MOST_LOOKED_FOR`]); `None` when compactd holds no turn of
/// the conversation to tell by.
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
    let mut candidates = off_thread(move |_| {
        let mut found = invented_in(&text, Given { texts: &refs(&known) });
        found.truncate(MOST_LOOKED_FOR);
        found
    })
    .await;
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
        candidates = off_thread(move |stopped| {
            let given = Given { texts: &refs(&words) };
            // A name at a time, so a check whose request ended stops soon.
            candidates.retain(|(kind, name)| stopped() || !given.names(*kind, name));
            candidates
        })
        .await;
    }
    Ok(Some(candidates))
}

fn refs(texts: &[String]) -> Vec<&str> {
    texts.iter().map(String::as_str).collect()
}

/// Searching a page of turns of up to tens of MiB is work for a blocking
/// thread, not for the runtime's; it is told when to stop. A search that
/// could not finish reports nothing made up, and says so in the log.
async fn off_thread(
    work: impl FnOnce(&dyn Fn() -> bool) -> Vec<(KeepKind, String)> + Send + 'static,
) -> Vec<(KeepKind, String)> {
    let stop = Arc::new(AtomicBool::new(false));
    let _waiting = StopOnDrop(stop.clone());
    let searched = tokio::task::spawn_blocking(move || work(&|| stop.load(Ordering::Relaxed))).await;
    searched.unwrap_or_else(|err| {
        tracing::warn!(%err, "a check's search for made-up names did not finish");
        Vec::new()
    })
}
