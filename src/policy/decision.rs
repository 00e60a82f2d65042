//! A decision of SPEC §2 (keep, compact or roll over), the trigger and guard
//! behind it, and the moment it was asked at.

use super::guard::Guard;
use super::trigger::Trigger;

/// When the caller asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum Moment {
    /// A turn just ended in the conversation the user is in.
    #[default]
    TurnEnd,
    /// Nothing runs; the caller polls.
    Idle,
    /// A user message arrived after a pause: carry on, or start afresh?
    NextMessage,
}

named!(Moment);

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum DecisionKind {
    Keep,
    Compact,
    /// Start a new conversation from a handoff.
    Rollover,
}

named!(DecisionKind);

/// A decision and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    pub kind: DecisionKind,
    /// The trigger that holds, also when a guard turned it into a keep.
    pub trigger: Option<Trigger>,
    /// The guard that holds, when one changed the decision.
    pub guard: Option<Guard>,
    /// One plain sentence for a person.
    pub reason: String,
}

impl Decision {
    pub(crate) fn keep(reason: String) -> Self {
        Self {
            kind: DecisionKind::Keep,
            trigger: None,
            guard: None,
            reason,
        }
    }

    /// The answer for a conversation nobody has reported on.
    pub(crate) fn no_usage_yet() -> Self {
        Self::keep("Keep going: no usage reported yet for this conversation.".to_owned())
    }

    /// The answer for a conversation that rolled over into `successor`: the
    /// agent carries on there, so nothing is ever due here (SPEC §3 /decide).
    pub(crate) fn rolled_over(successor: &str) -> Self {
        Self::keep(format!("rolled over to {successor}: carry on there"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moment_and_kind_names_are_stable() {
        for moment in Moment::ALL.iter().copied() {
            assert_eq!(Moment::parse(moment.as_str()), Some(moment));
        }
        for kind in DecisionKind::ALL.iter().copied() {
            assert_eq!(DecisionKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(Moment::default(), Moment::TurnEnd);
    }

    #[test]
    fn a_rolled_over_conversation_is_sent_to_its_successor() {
        let decision = Decision::rolled_over("trip-2");
        assert_eq!(decision.kind, DecisionKind::Keep);
        assert_eq!((decision.trigger, decision.guard), (None, None));
        assert_eq!(decision.reason, "rolled over to trip-2: carry on there");
    }
}
