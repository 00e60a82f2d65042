//! The last step of every summary: fitted to its budget with the keep set's
//! items and unable to close a handoff, on a blocking thread when the
//! caller is async.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::llm::tokens;
use crate::summary::handoff::defuse_handoff_tags;
use crate::summary::keep::{KeepFigures, KeepSet};
use crate::summary::read::StateAtCut;
use crate::summary::write::{Parts, Shape, fit_unless};

/// The summary of `parts` and the keep set within `max_tokens`, unable to
/// close a handoff.
pub fn finish(parts: Parts<'_>, keep: &KeepSet, max_tokens: u64) -> (String, KeepFigures) {
    finish_unless(parts, keep, max_tokens, &|| false).unwrap_or_default()
}

/// [`finish`], given up (`None`) as soon as `stopped` says so.
fn finish_unless(
    parts: Parts<'_>,
    keep: &KeepSet,
    max_tokens: u64,
    stopped: &dyn Fn() -> bool,
) -> Option<(String, KeepFigures)> {
    let narrative = defuse_handoff_tags(parts.narrative);
    let beside = defuse_handoff_tags(parts.beside);
    let parts = Parts {
        narrative: &narrative,
        beside: &beside,
        ..parts
    };
    let mut budget = max_tokens;
    loop {
        let fitted = fit_unless(parts, keep, budget, &tokens::count, stopped)?;
        // A kept item may itself hold a handoff tag; defused, it can count more.
        let text = defuse_handoff_tags(&fitted.text);
        let over = tokens::count(&text).saturating_sub(max_tokens);
        if over == 0 || budget <= over {
            return Some((text, fitted.figures));
        }
        budget -= over;
    }
}

/// Set when the future that waits for work on a blocking thread is dropped
/// (its request was abandoned at its deadline, its client went away, the
/// service is stopping): the work stops at its next check.
pub(crate) struct StopOnDrop(pub(crate) Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What a summary is made of, owned, to be fitted on another thread.
#[derive(Debug, Clone)]
struct OwnedParts {
    narrative: String,
    shape: Shape,
    state: StateAtCut,
    beside: String,
    conversation: String,
    by_model: bool,
}

impl OwnedParts {
    fn parts(&self) -> Parts<'_> {
        Parts {
            narrative: &self.narrative,
            shape: self.shape,
            state: &self.state,
            beside: &self.beside,
            conversation: &self.conversation,
            by_model: self.by_model,
        }
    }

    fn of(parts: Parts<'_>) -> Self {
        Self {
            narrative: parts.narrative.to_owned(),
            shape: parts.shape,
            state: parts.state.clone(),
            beside: parts.beside.to_owned(),
            conversation: parts.conversation.to_owned(),
            by_model: parts.by_model,
        }
    }
}

/// [`finish`] on a blocking thread: fitting a long narrative counts tokens
/// for a tenth of a second or more, which must not stall the async workers.
pub(crate) async fn finish_off_thread(parts: Parts<'_>, keep: &KeepSet, max_tokens: u64) -> (String, KeepFigures) {
    let owned = OwnedParts::of(parts);
    let set = keep.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let _waiting = StopOnDrop(stop.clone());
    let work = move || {
        let finished = finish_unless(owned.parts(), &set, max_tokens, &|| stop.load(Ordering::Relaxed));
        if finished.is_none() {
            metrics::counter!("compactd_abandoned_work_total", "work" => "fit").increment(1);
        }
        finished
    };
    match tokio::task::spawn_blocking(work).await {
        Ok(Some(finished)) => finished,
        // Stopped only once this future is dropped, or the thread pool is
        // shutting down: fit it here.
        Ok(None) | Err(_) => finish(parts, keep, max_tokens),
    }
}
