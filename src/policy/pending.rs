//! The pending decision (SPEC §1): the latest non-keep decision, as its
//! `decision` event logged it and the conversation's state keeps it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Decision, DecisionKind, Guard, Moment, Trigger};

/// A non-keep decision as it was logged.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub(crate) struct PendingDecision {
    pub decision: DecisionKind,
    pub trigger: Option<Trigger>,
    pub guard: Option<Guard>,
    pub reason: String,
    pub moment: Moment,
    pub at: DateTime<Utc>,
    /// The seq of its `decision` event.
    #[serde(default)]
    pub event_seq: Option<i64>,
}

impl PendingDecision {
    /// The decision made at `moment`, `at`; its event's seq is set once logged.
    pub(crate) fn of(decision: &Decision, moment: Moment, at: DateTime<Utc>) -> Self {
        Self {
            decision: decision.kind,
            trigger: decision.trigger,
            guard: decision.guard,
            reason: decision.reason.clone(),
            moment,
            at,
            event_seq: None,
        }
    }
}
