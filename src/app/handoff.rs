//! Hand off (SPEC §3 /handoff): start a new conversation from an old one
//! with the text that carries it over (its defaults filled in from the
//! stored turns, its summary fitted beside the rest), or record that the
//! user carried on.

use chrono::{DateTime, Utc};
use sqlx::{Connection, PgConnection};

use super::{AppResult, Refusal, Services, Staged, UseCase, keep_set};
use crate::domain::{ConversationId, TenantId};
use crate::records::StoredConversation;
use crate::store::handoffs::{self, NotRolled, Rollover};
use crate::store::prepared::{self, Closing};
use crate::store::turns::{self, Said};
use crate::store::{StoreError, conversations, ledger};
use crate::summary::Writer;
use crate::summary::handoff::{Handoff, Request};
use crate::summary::keep::KeepSet;
use crate::summary::summarizer::finish;
use crate::summary::write::narrative::narrative_of;
use crate::summary::write::{Parts, Shape, summary_max_tokens};

use super::summarize::prepare::count_wasted;

/// How many of the user's latest messages a handoff quotes by default…
pub(crate) const DEFAULT_REQUESTS: usize = 3;
/// …found among this many of the newest turns with user text (harness text
/// in the user role is not the user's).
const REQUEST_LOOKBACK: i64 = 50;

/// A checked handoff: a rollover with what the caller gave, or a decline.
#[derive(Debug)]
pub(crate) enum HandoffCommand {
    Decline {
        tenant: TenantId,
        id: ConversationId,
        at: DateTime<Utc>,
    },
    RollOver {
        tenant: TenantId,
        id: ConversationId,
        /// `None`: the successor a handoff already made, else a new one.
        successor: Option<ConversationId>,
        at: DateTime<Utc>,
        given: Handoff,
    },
}

/// What was recorded.
#[derive(Debug)]
pub(crate) enum HandedOff {
    Declined,
    RolledOver { text: String, successor: ConversationId },
}

/// A handoff with its defaults filled in from what is stored; its summary
/// is rendered when the rollover is recorded.
#[derive(Debug)]
pub(crate) struct Rendered {
    tenant: TenantId,
    id: ConversationId,
    successor: Option<ConversationId>,
    at: DateTime<Utc>,
    handoff: Handoff,
}

#[derive(Debug)]
pub(crate) enum HandoffStaged {
    Decline {
        tenant: TenantId,
        id: ConversationId,
        at: DateTime<Utc>,
    },
    RollOver(Box<Rendered>),
}

impl UseCase for HandoffCommand {
    type Staged = HandoffStaged;

    async fn stage(self, services: &Services) -> AppResult<HandoffStaged> {
        let (tenant, id, successor, at, mut handoff) = match self {
            Self::Decline { tenant, id, at } => return Ok(HandoffStaged::Decline { tenant, id, at }),
            Self::RollOver {
                tenant,
                id,
                successor,
                at,
                given,
            } => (tenant, id, successor, at, given),
        };
        let mut conn = services.warm.acquire().await?;
        let stored = conversations::find(&mut conn, &tenant, &id)
            .await?
            .ok_or_else(|| Refusal::no_conversation(&id))?;
        if handoff.requests.is_empty() {
            let latest = turns::latest_with(&mut conn, &tenant, &id, Said::User, REQUEST_LOOKBACK).await?;
            let mut requests: Vec<Request> = latest
                .into_iter()
                .filter_map(|turn| {
                    let words = services.summaries.harness.split(turn.user.as_deref()?).words;
                    (!words.is_empty()).then(|| Request {
                        date: turn.at.format("%Y-%m-%d").to_string(),
                        text: words,
                    })
                })
                .take(DEFAULT_REQUESTS)
                .collect();
            requests.reverse();
            handoff.requests = requests;
        }
        if handoff.reply.is_none() {
            let last = turns::latest_with(&mut conn, &tenant, &id, Said::Assistant, 1).await?;
            handoff.reply = last.into_iter().next().and_then(|turn| turn.assistant);
        }
        if handoff.bookmark.is_none() && stored.last_turn_seq > 0 {
            handoff.bookmark = Some(stored.last_turn_seq.to_string());
        }
        Ok(HandoffStaged::RollOver(Box::new(Rendered {
            tenant,
            id,
            successor,
            at,
            handoff,
        })))
    }
}

impl Staged for HandoffStaged {
    type Answer = HandedOff;

    async fn apply(self, services: &Services, conn: &mut PgConnection) -> AppResult<HandedOff> {
        match self {
            Self::Decline { tenant, id, at } => decline(conn, &tenant, &id, at).await,
            Self::RollOver(rendered) => roll_over(services, conn, *rendered).await,
        }
    }
}

/// Lock, the policy's transition, write: like a compaction.
async fn decline(
    conn: &mut PgConnection,
    tenant: &TenantId,
    id: &ConversationId,
    at: DateTime<Utc>,
) -> AppResult<HandedOff> {
    let mut tx = conn.begin().await?;
    let stored = conversations::lock(&mut tx, tenant, id)
        .await?
        .ok_or_else(|| Refusal::no_conversation(id))?;
    let mut state = stored.state;
    state.rollover_declined();
    handoffs::decline(&mut tx, tenant, id, at, &state).await?;
    tx.commit().await?;
    Ok(HandedOff::Declined)
}

async fn roll_over(services: &Services, conn: &mut PgConnection, rendered: Rendered) -> AppResult<HandedOff> {
    let Rendered {
        tenant,
        id,
        successor,
        at,
        mut handoff,
    } = rendered;
    let mut tx = conn.begin().await?;
    let Some(stored) = conversations::lock(&mut tx, &tenant, &id).await? else {
        return Err(Refusal::no_conversation(&id));
    };
    // A second handoff answers the first: the lineage does not fork
    // unless the caller names another successor.
    if let Some(existing) = stored.successor_id.clone()
        && successor.as_ref().is_none_or(|asked| *asked == existing)
        && let Some(text) = handoffs::recorded(&mut tx, &tenant, &id, existing.as_str())
            .await?
            .and_then(|recorded| recorded.text)
    {
        let successor = existing;
        tx.commit().await?;
        return Ok(HandedOff::RolledOver { text, successor });
    }
    let successor = match successor {
        Some(successor) => successor,
        None => ConversationId::parse("successor_id", uuid::Uuid::new_v4().to_string())
            .map_err(|err| StoreError::Corrupt(format!("a new successor id: {err}")))?,
    };
    // The keep set, with every turn stored since the last boundary
    // read, is what the summary section carries and the successor inherits.
    let current = keep_set::current(&mut tx, &tenant, &id, &services.summaries.harness).await?;
    crate::store::keep::save(&mut tx, &tenant, &id, &current.set, current.turns_read).await?;
    handoff.summary = Some(summary_section(services, &mut tx, &stored, &current.set, &handoff).await?);
    let text = handoff.render();
    let rollover = Rollover {
        tenant: &tenant,
        id: &id,
        successor: &successor,
        at,
        text: &text,
        bookmark: handoff.bookmark.as_deref(),
    };
    let rolled = handoffs::roll_over(&mut tx, rollover).await?;
    match rolled {
        Ok(_) => {
            crate::store::keep::inherit(&mut tx, &tenant, &id, &successor).await?;
            // The predecessor will not be compacted: what was prepared for it is wasted.
            let wasted = prepared::close(&mut tx, &tenant, &id, Closing::ROLLED_OVER).await?;
            tx.commit().await?;
            for reason in wasted {
                count_wasted(reason, 1);
            }
            Ok(HandedOff::RolledOver { text, successor })
        }
        Err(NotRolled::Missing) => Err(Refusal::no_conversation(&id)),
        Err(NotRolled::SuccessorTaken) => Err(Refusal::Conflict(format!(
            "conversation {:?} already exists and does not continue this one",
            successor.as_str()
        ))),
    }
}

/// The handoff's summary section: the anchor's narrative in its writer's
/// shape, with the keep set, within the summary budget, repeating nothing
/// the handoff's other sections quote.
async fn summary_section(
    services: &Services,
    tx: &mut PgConnection,
    stored: &StoredConversation,
    keep: &KeepSet,
    handoff: &Handoff,
) -> AppResult<String> {
    let (tenant, id) = (&stored.tenant, &stored.conversation_id);
    let shape = match &stored.summary {
        Some((_, seq)) => ledger::writer_of(tx, tenant, id, *seq)
            .await?
            .unwrap_or(Writer::Llm)
            .shape(),
        None => Writer::Llm.shape(),
    };
    let anchor = stored
        .summary
        .as_ref()
        .map(|(text, _)| narrative_of(text))
        .unwrap_or("");
    let budget = summary_max_tokens(services.summaries.max_tokens, stored.state.size);
    let beside = Handoff {
        summary: None,
        ..handoff.clone()
    }
    .render();
    // A model's anchor keeps the order its compaction gave it: compactd's
    // sections before the prose, whose ending is read last (issue 41).
    let parts = Parts {
        beside: &beside,
        by_model: stored.summary.is_some() && shape == Shape::Prose,
        ..Parts::of(anchor, shape, id.as_str())
    };
    let (summary, _) = finish(parts, keep, budget);
    Ok(summary)
}
