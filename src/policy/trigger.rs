//! Trigger names (stable: they are what history stores) and the turn-end
//! triggers of SPEC §2 in their priority.

use chrono::{DateTime, Utc};

use super::config::PolicyConfig;
use super::conversation::Conversation;

/// Why a compaction or rollover is due.
///
/// The first nine are compaction triggers and are what the ledger stores;
/// `CacheCold` and `LongAway` only ever explain a `next_message` rollover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum Trigger {
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
    CacheCold,
    LongAway,
}

named!(Trigger);

impl Trigger {
    /// What a compaction may be recorded as (`cache_cold` and `long_away`
    /// only ever explain a rollover).
    pub(crate) const fn is_compaction_trigger(self) -> bool {
        !matches!(self, Self::CacheCold | Self::LongAway)
    }

    /// Every trigger the ledger may hold.
    pub(crate) fn compaction_triggers() -> impl Iterator<Item = Self> {
        Self::ALL
            .iter()
            .copied()
            .filter(|trigger| trigger.is_compaction_trigger())
    }

    /// The context will overflow: with a guard, the way out is a new
    /// conversation, not waiting.
    pub(crate) const fn is_size_trigger(self) -> bool {
        matches!(self, Self::Emergency | Self::ContextPressure | Self::ThresholdExceeded)
    }
}

/// The first turn-end trigger that holds, in the spec's priority.
pub(crate) fn turn_end_trigger(c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> Option<Trigger> {
    let used = u128::from(c.used);
    if c.size > 0 && used * 100 >= u128::from(c.size) * u128::from(config.emergency_percent) {
        return Some(Trigger::Emergency);
    }
    if c.context_pressure_threshold(config)
        .is_some_and(|threshold| c.used >= threshold)
    {
        return Some(Trigger::ContextPressure);
    }
    if c.size > 0 && c.used >= config.trigger_tokens(c.size) {
        return Some(Trigger::ThresholdExceeded);
    }
    if c.user_messages_since_run_completed >= config.unfinished_turns {
        return Some(Trigger::UnfinishedTurns);
    }
    if age_in_days(c, at) >= config.age_days && c.total_user_messages >= config.age_user_messages {
        return Some(Trigger::AgeAndTurns);
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

    fn trigger(c: &Conversation, config: &PolicyConfig) -> Option<Trigger> {
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
        assert_eq!(trigger(&c, &config), Some(Trigger::ContextPressure));
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
        assert_eq!(trigger(&c, &PolicyConfig::default()), Some(Trigger::UnfinishedTurns));
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
            Some(Trigger::AgeAndTurns)
        );
    }

    #[test]
    fn trigger_names_are_stable_for_store_metadata() {
        assert_eq!(Trigger::ContextPressure.as_str(), "context_pressure");
        assert_eq!(Trigger::ManualRecovery.as_str(), "manual_recovery");
        for trigger in Trigger::ALL.iter().copied() {
            assert_eq!(Trigger::parse(trigger.as_str()), Some(trigger));
        }
        assert_eq!(Trigger::parse("Emergency"), None);
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
        assert_eq!(trigger(&c, &config), Some(Trigger::Emergency));
        let below = Conversation {
            used: 94_999,
            ..c.clone()
        };
        assert_eq!(trigger(&below, &config), Some(Trigger::ThresholdExceeded));
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
        assert_eq!(trigger(&c, &PolicyConfig::default()), Some(Trigger::Emergency));
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
        assert_eq!(trigger(&c, &config), Some(Trigger::Emergency));
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
        assert_eq!(trigger(&c, &config), Some(Trigger::ContextPressure));
        assert_eq!(trigger(&c, &PolicyConfig::default()), Some(Trigger::ThresholdExceeded));
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
        assert_eq!(trigger(&c, &config), Some(Trigger::ContextPressure));
    }

    #[test]
    fn the_threshold_outranks_unfinished_turns() {
        let c = Conversation {
            used: 150_000,
            size: 200_000,
            user_messages_since_run_completed: 8,
            ..Conversation::new(t0())
        };
        assert_eq!(trigger(&c, &PolicyConfig::default()), Some(Trigger::ThresholdExceeded));
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
            Some(Trigger::UnfinishedTurns)
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
            Some(Trigger::AgeAndTurns)
        );
        assert_eq!(
            turn_end_trigger(&c, t0() - Duration::days(40), &config),
            None,
            "a replay from before"
        );
    }

    #[test]
    fn only_the_first_three_are_size_triggers() {
        let size: Vec<_> = Trigger::ALL.iter().copied().filter(|t| t.is_size_trigger()).collect();
        assert_eq!(
            size,
            [Trigger::Emergency, Trigger::ContextPressure, Trigger::ThresholdExceeded]
        );
    }
}
