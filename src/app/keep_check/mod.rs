//! A summary someone else wrote, checked against the keep set (issue 13):
//! which must-keep items it left out, fitted to a budget, so a harness that
//! compacts by itself can hand them back to its agent. Nothing is saved.
//! Checks share the process fairly (issue 37): a few at once, and a tenant
//! looping them holds one place in the queue. What the summary names that
//! the conversation never did is reported too (`invented`).

mod invented;

use sqlx::PgConnection;

use crate::app::{AppResult, Refusal, Services, Staged, UseCase, keep_set};
use crate::domain::{ConversationId, TenantId};
use crate::store::conversations;
use crate::summary::keep::{KeepFigures, KeepKind};
use crate::summary::read::StateAtCut;
use crate::summary::summarizer::{finish_off_thread, for_harness_off_thread};
use crate::summary::write::{Parts, Shape, least_room, summary_max_tokens};

/// What to check.
#[derive(Debug, Clone)]
pub(crate) struct Check {
    pub tenant: TenantId,
    pub id: ConversationId,
    /// The summary to check.
    pub text: String,
    /// The room for what it left out; `None`: the conversation's summary budget.
    pub max_tokens: Option<u64>,
}

/// What the summary left out, as the keep guard would append it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checked {
    pub id: ConversationId,
    /// Under the pinned heading, in tier order; empty when it holds everything.
    pub missing: String,
    pub tokens: u64,
    /// Per kind: checked, present in the summary, given back (`appended`),
    /// parked, and named by the summary alone (`invented`).
    pub figures: KeepFigures,
    pub max_tokens: u64,
    /// What the summary names that the conversation never did; `None`
    /// when no turn of it is stored to tell by.
    pub invented: Option<Vec<(KeepKind, String)>>,
}

async fn check(services: &Services, check: Check) -> AppResult<Checked> {
    // A check holds a core while it works: a few run at once, a tenant's one
    // at a time, each tenant's in turn (waiting ends with the request).
    let _turn = services.keep_checks.enter(&check.tenant).await?;
    let mut conn = services.warm.acquire().await.map_err(crate::store::StoreError::from)?;
    let Some(stored) = conversations::find(&mut conn, &check.tenant, &check.id).await? else {
        return Err(Refusal::no_conversation(&check.id));
    };
    let harness = &services.summaries.harness;
    let current = keep_set::current(&mut conn, &check.tenant, &check.id, harness).await?;
    drop(conn);
    // Given back to an agent that has a summary of its own: not what its
    // agent only looked at, nor a path its summary spells otherwise.
    let (set, spelled) = for_harness_off_thread(&check.text, &current.set).await;
    let max_tokens = check
        .max_tokens
        .unwrap_or_else(|| summary_max_tokens(services.summaries.max_tokens, stored.state.size));
    // Under it the answer could not say what it parked, and would be longer
    // than asked. The least depends on the stored keep set, not on the
    // request alone: a conflict with what is stored, not an invalid value.
    let least = least_room(check.id.as_str(), set.items().len(), &crate::llm::tokens::count);
    if max_tokens < least {
        return Err(Refusal::Conflict(format!(
            "this conversation needs max_tokens of at least {least} for its headings and the line naming what is parked (asked for {max_tokens})"
        )));
    }
    let kept = current.set.items().iter().map(|item| item.text.clone()).collect();
    let invented = invented::made_up(services, &check.tenant, &check.id, &stored, kept, &check.text).await?;
    // The summary stands beside an empty narrative: what it lacks is appended.
    let state = StateAtCut::default();
    let beside = format!("{}\n{spelled}", check.text);
    let parts = Parts {
        beside: &beside,
        state: &state,
        ..Parts::of("", Shape::Prose, check.id.as_str())
    };
    let (missing, mut figures) = finish_off_thread(parts, &set, max_tokens).await;
    if let Some(invented) = &invented {
        let mut by_kind = std::collections::BTreeMap::new();
        for (kind, _) in invented {
            *by_kind.entry(*kind).or_insert(0) += 1;
        }
        figures.add_invented(&by_kind);
    }
    Ok(Checked {
        id: check.id,
        tokens: crate::llm::tokens::count(&missing),
        missing,
        figures,
        max_tokens,
        invented,
    })
}

impl UseCase for Check {
    type Staged = Done;

    async fn stage(self, services: &Services) -> AppResult<Done> {
        check(services, self).await.map(Done)
    }
}

/// A check writes nothing: its answer is ready once it is made.
pub(crate) struct Done(Checked);

impl Staged for Done {
    type Answer = Checked;

    async fn apply(self, _: &Services, _: &mut PgConnection) -> AppResult<Checked> {
        Ok(self.0)
    }
}
