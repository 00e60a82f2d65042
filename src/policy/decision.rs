//! A decision of SPEC §2 (keep, compact or roll over), the trigger and guard
//! behind it, and the moment it was asked at.

use super::guard::Guard;
use super::trigger::Trigger;

/// When the caller asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Moment {
    /// A turn just ended in the conversation the user is in.
    #[default]
    TurnEnd,
    /// Nothing runs; the caller polls.
    Idle,
    /// A user message arrived after a pause: carry on, or start afresh?
    NextMessage,
}

impl Moment {
    pub(crate) const ALL: [Self; 3] = [Self::TurnEnd, Self::Idle, Self::NextMessage];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::TurnEnd => "turn_end",
            Self::Idle => "idle",
            Self::NextMessage => "next_message",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecisionKind {
    Keep,
    Compact,
    /// Start a new conversation from a handoff.
    Rollover,
}

impl DecisionKind {
    pub(crate) const ALL: [Self; 3] = [Self::Keep, Self::Compact, Self::Rollover];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Self::Keep => "keep",
            Self::Compact => "compact",
            Self::Rollover => "rollover",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moment_and_kind_names_are_stable() {
        for moment in Moment::ALL {
            assert_eq!(Moment::parse(moment.as_str()), Some(moment));
        }
        for kind in DecisionKind::ALL {
            assert_eq!(DecisionKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(Moment::default(), Moment::TurnEnd);
    }
}
