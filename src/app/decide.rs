//! Decide (SPEC §2, §3 /decide): the policy applied to a conversation's
//! state at the moment asked. A non-keep decision is logged as an event and
//! becomes the conversation's pending decision.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use super::{AppResult, Services, Staged, staged_as_it_comes};
use crate::domain::{ConversationId, TenantId};
use crate::policy::{self, Decision, DecisionKind, Moment, PendingDecision, PolicyConfig, Trigger};
use crate::records::StoredConversation;
use crate::store::conversations;

#[derive(Debug)]
pub(crate) struct Decide {
    pub tenant: TenantId,
    pub id: ConversationId,
    pub moment: Moment,
    pub at: DateTime<Utc>,
}

/// The decision, and the state it was made on with the decision pending.
#[derive(Debug)]
pub(crate) struct Decided {
    pub decision: Decision,
    pub moment: Moment,
    pub at: DateTime<Utc>,
    /// `None`: a conversation never reported on (it is not created).
    pub stored: Option<StoredConversation>,
}

staged_as_it_comes!(Decide);

impl Staged for Decide {
    type Answer = Decided;

    async fn apply(self, services: &Services, conn: &mut PgConnection) -> AppResult<Decided> {
        let Some(mut stored) = conversations::find(conn, &self.tenant, &self.id).await? else {
            return Ok(self.answer(Decision::no_usage_yet(), None));
        };
        let decision = decision_for(&stored, self.moment, self.at, &services.policy);
        if decision.kind != DecisionKind::Keep {
            let mut pending = PendingDecision::of(&decision, self.moment, self.at);
            let seq = conversations::record_decision(conn, &self.tenant, &self.id, self.at, &pending).await?;
            pending.event_seq = seq;
            if let Some(seq) = seq {
                stored.last_event_seq = seq;
            }
            stored.pending_decision = Some(pending);
        }
        Ok(self.answer(decision, Some(stored)))
    }
}

/// The policy's decision on a stored conversation; one that rolled over is
/// sent on to its successor whatever its state (SPEC §3 /decide), so neither
/// `/decide`, `/due` nor the idle sweep offers it a compaction or a rollover.
pub(crate) fn decision_for(
    stored: &StoredConversation,
    moment: Moment,
    at: DateTime<Utc>,
    config: &PolicyConfig,
) -> Decision {
    match &stored.successor_id {
        Some(successor) => Decision::rolled_over(successor.as_str()),
        None => policy::decide(&stored.state, moment, at, config),
    }
}

impl Decide {
    fn answer(&self, decision: Decision, stored: Option<StoredConversation>) -> Decided {
        metrics::counter!(
            "compactd_decisions_total",
            "decision" => decision.kind.as_str(),
            "trigger" => decision.trigger.map_or("none", Trigger::as_str),
            "moment" => self.moment.as_str(),
        )
        .increment(1);
        Decided {
            decision,
            moment: self.moment,
            at: self.at,
            stored,
        }
    }
}
