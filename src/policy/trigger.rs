//! Trigger names (stable: they are what history stores) and the turn-end
//! triggers of SPEC §2 in their priority.

use chrono::{DateTime, Utc};

use super::config::PolicyConfig;
use super::conversation::Conversation;

/// Why a compaction is due: what the ledger stores (stable names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum CompactionTrigger {
    Emergency,
    ContextPressure,
    ThresholdExceeded,
    UnfinishedTurns,
    AgeAndTurns,
    IdleCacheExpiry,
    /// The caller asked outside any decision.
    Manual,
    /// An operator's clean-slate boundary; never chosen automatically.
    ManualRecovery,
    /// The agent's harness compacted by itself and reported it.
    Harness,
}

named!(CompactionTrigger);

impl CompactionTrigger {
    /// The context will overflow: with a guard, the way out is a new
    /// conversation, not waiting.
    pub(crate) const fn is_size_trigger(self) -> bool {
        matches!(self, Self::Emergency | Self::ContextPressure | Self::ThresholdExceeded)
    }
}

/// Why a rollover is due before the next message: never a compaction's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum RolloverReason {
    CacheCold,
    LongAway,
}

named!(RolloverReason);

/// What a decision names as due: a compaction's trigger, or a rollover's
/// reason. Their names never collide, so one name says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Trigger {
    Compaction(CompactionTrigger),
    Rollover(RolloverReason),
}

impl Trigger {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Compaction(trigger) => trigger.as_str(),
            Self::Rollover(reason) => reason.as_str(),
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        let compaction = CompactionTrigger::parse(name).map(Self::Compaction);
        compaction.or_else(|| RolloverReason::parse(name).map(Self::Rollover))
    }

    pub(crate) fn names() -> impl Iterator<Item = &'static str> {
        CompactionTrigger::names().chain(RolloverReason::names())
    }

    /// The compaction trigger, unless this is a rollover's reason.
    pub(crate) const fn compaction(self) -> Option<CompactionTrigger> {
        match self {
            Self::Compaction(trigger) => Some(trigger),
            Self::Rollover(_) => None,
        }
    }
}

impl From<CompactionTrigger> for Trigger {
    fn from(trigger: CompactionTrigger) -> Self {
        Self::Compaction(trigger)
    }
}

impl From<RolloverReason> for Trigger {
    fn from(reason: RolloverReason) -> Self {
        Self::Rollover(reason)
    }
}

/// The first turn-end trigger that holds, in the spec's priority.
pub(crate) fn turn_end_trigger(
    c: &Conversation,
    at: DateTime<Utc>,
    config: &PolicyConfig,
) -> Option<CompactionTrigger> {
    let used = u128::from(c.used);
    if c.size > 0 && used * 100 >= u128::from(c.size) * u128::from(config.emergency_percent) {
        return Some(CompactionTrigger::Emergency);
    }
    if c.context_pressure_threshold(config)
        .is_some_and(|threshold| c.used >= threshold)
    {
        return Some(CompactionTrigger::ContextPressure);
    }
    if c.size > 0 && c.used >= config.trigger_tokens(c.size) {
        return Some(CompactionTrigger::ThresholdExceeded);
    }
    if c.user_messages_since_run_completed >= config.unfinished_turns {
        return Some(CompactionTrigger::UnfinishedTurns);
    }
    if age_in_days(c, at) >= config.age_days && c.total_user_messages >= config.age_user_messages {
        return Some(CompactionTrigger::AgeAndTurns);
    }
    None
}

/// Whole days since the conversation was created (negative when `at` is
/// earlier, as a replay may be).
pub(crate) fn age_in_days(c: &Conversation, at: DateTime<Utc>) -> i64 {
    (at - c.created_at).num_days()
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    fn t0() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-10-01T12:00:00Z").unwrap().to_utc()
    }

    fn idle_conversation() -> Conversation {
        Conversation {
            user_messages_since_boundary: 80,
            runs_completed_since_boundary: 80,
            ..Conversation::new(t0())
        }
    }

    fn trigger(c: &Conversation, config: &PolicyConfig) -> Option<CompactionTrigger> {
        turn_end_trigger(c, t0() + Duration::days(1), config)
    }

    // Seed 000's cases: an episode's pressure against the default policy.

    #[test]
    fn context_pressure_wins_before_a_provider_overflow() {
        let c = Conversation {
            used: 408_000,
            total_user_messages: 80,
            ..idle_conversation()
        };
        let config = PolicyConfig {
            context_pressure_tokens: Some(400_000),
            ..PolicyConfig::default()
        };
        assert_eq!(trigger(&c, &config), Some(CompactionTrigger::ContextPressure));
    }

    #[test]
    fn unfinished_turns_only_count_after_the_latest_clean_completion() {
        let c = Conversation {
            user_messages_since_boundary: 20,
            runs_completed_since_boundary: 1,
            user_messages_since_run_completed: 9,
            total_user_messages: 20,
            ..Conversation::new(t0())
        };
        assert_eq!(
            trigger(&c, &PolicyConfig::default()),
            Some(CompactionTrigger::UnfinishedTurns)
        );
    }

    #[test]
    fn a_recent_clean_completion_prevents_the_unfinished_turn_trigger() {
        let c = Conversation {
            user_messages_since_boundary: 20,
            runs_completed_since_boundary: 1,
            user_messages_since_run_completed: 2,
            total_user_messages: 20,
            ..Conversation::new(t0())
        };
        assert_eq!(trigger(&c, &PolicyConfig::default()), None);
    }

    #[test]
    fn context_pressure_is_disabled_until_a_limit_is_configured() {
        let c = Conversation {
            used: 900_000,
            total_user_messages: 80,
            ..idle_conversation()
        };
        assert_eq!(
            trigger(&c, &PolicyConfig::default()),
            None,
            "size unknown and no threshold"
        );
    }

    #[test]
    fn age_trigger_requires_both_age_and_turn_count() {
        let at = t0() + Duration::days(60);
        let sparse = Conversation {
            total_user_messages: 10,
            ..Conversation::new(t0())
        };
        assert_eq!(turn_end_trigger(&sparse, at, &PolicyConfig::default()), None);
        let old_busy = Conversation {
            total_user_messages: 200,
            ..Conversation::new(t0())
        };
        assert_eq!(
            turn_end_trigger(&old_busy, at, &PolicyConfig::default()),
            Some(CompactionTrigger::AgeAndTurns)
        );
    }

    #[test]
    fn trigger_names_are_stable_for_store_metadata() {
        assert_eq!(CompactionTrigger::ContextPressure.as_str(), "context_pressure");
        assert_eq!(CompactionTrigger::ManualRecovery.as_str(), "manual_recovery");
        for name in Trigger::names() {
            assert_eq!(Trigger::parse(name).map(Trigger::as_str), Some(name));
        }
        assert_eq!(Trigger::parse("Emergency"), None);
        assert_eq!(
            Trigger::names().count(),
            11,
            "nine compaction triggers and two rollover reasons"
        );
        assert_eq!(
            Trigger::parse("long_away"),
            Some(Trigger::Rollover(RolloverReason::LongAway))
        );
        assert_eq!(Trigger::parse("long_away").and_then(Trigger::compaction), None);
    }

    // Seed 002's emergency: 95% of the window, whatever the other thresholds.

    #[test]
    fn ninety_five_percent_of_the_window_is_an_emergency() {
        let config = PolicyConfig::default();
        let c = Conversation {
            used: 95_000,
            size: 100_000,
            ..Conversation::new(t0())
        };
        assert_eq!(trigger(&c, &config), Some(CompactionTrigger::Emergency));
        let below = Conversation {
            used: 94_999,
            ..c.clone()
        };
        assert_eq!(trigger(&below, &config), Some(CompactionTrigger::ThresholdExceeded));
    }

    #[test]
    fn the_emergency_needs_a_known_window() {
        let c = Conversation {
            used: 95_000,
            size: 0,
            ..Conversation::new(t0())
        };
        assert_eq!(trigger(&c, &PolicyConfig::default()), None);
    }

    #[test]
    fn the_emergency_holds_for_counts_near_two_to_the_sixty_three() {
        let big = i64::MAX as u64;
        let c = Conversation {
            used: big,
            size: big,
            ..Conversation::new(t0())
        };
        assert_eq!(
            trigger(&c, &PolicyConfig::default()),
            Some(CompactionTrigger::Emergency)
        );
    }

    // The union: priorities between the five.

    #[test]
    fn the_emergency_outranks_context_pressure() {
        let c = Conversation {
            used: 96_000,
            size: 100_000,
            ..Conversation::new(t0())
        };
        let config = PolicyConfig {
            context_pressure_tokens: Some(10),
            ..PolicyConfig::default()
        };
        assert_eq!(trigger(&c, &config), Some(CompactionTrigger::Emergency));
    }

    #[test]
    fn context_pressure_outranks_the_threshold() {
        let c = Conversation {
            used: 160_000,
            size: 200_000,
            ..Conversation::new(t0())
        };
        let config = PolicyConfig {
            context_pressure_tokens: Some(150_000),
            ..PolicyConfig::default()
        };
        assert_eq!(trigger(&c, &config), Some(CompactionTrigger::ContextPressure));
        assert_eq!(
            trigger(&c, &PolicyConfig::default()),
            Some(CompactionTrigger::ThresholdExceeded)
        );
    }

    #[test]
    fn a_conversation_threshold_wins_over_the_server_one() {
        let c = Conversation {
            used: 5_000,
            context_pressure_tokens: Some(4_000),
            ..Conversation::new(t0())
        };
        let config = PolicyConfig {
            context_pressure_tokens: Some(400_000),
            ..PolicyConfig::default()
        };
        assert_eq!(trigger(&c, &config), Some(CompactionTrigger::ContextPressure));
    }

    #[test]
    fn the_threshold_outranks_unfinished_turns() {
        let c = Conversation {
            used: 150_000,
            size: 200_000,
            user_messages_since_run_completed: 8,
            ..Conversation::new(t0())
        };
        assert_eq!(
            trigger(&c, &PolicyConfig::default()),
            Some(CompactionTrigger::ThresholdExceeded)
        );
    }

    #[test]
    fn unfinished_turns_outrank_age() {
        let c = Conversation {
            user_messages_since_run_completed: 8,
            total_user_messages: 90,
            ..Conversation::new(t0())
        };
        let at = t0() + Duration::days(40);
        assert_eq!(
            turn_end_trigger(&c, at, &PolicyConfig::default()),
            Some(CompactionTrigger::UnfinishedTurns)
        );
    }

    #[test]
    fn age_counts_whole_days() {
        let c = Conversation {
            total_user_messages: 50,
            ..Conversation::new(t0())
        };
        let config = PolicyConfig::default();
        let almost = t0() + Duration::days(30) - Duration::seconds(1);
        assert_eq!(turn_end_trigger(&c, almost, &config), None);
        assert_eq!(
            turn_end_trigger(&c, t0() + Duration::days(30), &config),
            Some(CompactionTrigger::AgeAndTurns)
        );
        assert_eq!(
            turn_end_trigger(&c, t0() - Duration::days(40), &config),
            None,
            "a replay from before"
        );
    }

    #[test]
    fn only_the_first_three_are_size_triggers() {
        let size: Vec<_> = CompactionTrigger::ALL
            .iter()
            .copied()
            .filter(|t| t.is_size_trigger())
            .collect();
        assert_eq!(
            size,
            [
                CompactionTrigger::Emergency,
                CompactionTrigger::ContextPressure,
                CompactionTrigger::ThresholdExceeded
            ]
        );
    }
}
