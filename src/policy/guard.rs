//! The loop guard of SPEC §2: when compacting again would not help.

use chrono::{DateTime, Utc};

use super::config::PolicyConfig;
use super::conversation::Conversation;

/// Which guard holds; the first in this order is the one reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub(crate) enum Guard {
    /// Enough host compactions in the 24 hours before now.
    TooManyToday,
    /// The last compaction left the context too close to the trigger.
    TooLittleGained,
    /// Too few turns since the last compaction.
    TooSoon,
    /// The last attempts all failed: the summarizer is not getting through.
    Failing,
}

named!(Guard);

/// The first guard that holds at `at`, if any.
pub(crate) fn loop_guard(c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> Option<Guard> {
    if c.host_compactions_within_a_day(at) >= config.guard_host_compactions_per_day {
        return Some(Guard::TooManyToday);
    }
    if c.used_after_compaction.is_some_and(|after| {
        u128::from(after) * 100 >= u128::from(config.trigger_tokens(c.size)) * u128::from(config.guard_gain_percent)
    }) {
        return Some(Guard::TooLittleGained);
    }
    if c.compactions > 0 && c.turns_since_compaction < config.guard_min_turns {
        return Some(Guard::TooSoon);
    }
    if c.failed_compactions_in_row >= config.guard_failed_attempts {
        return Some(Guard::Failing);
    }
    None
}

/// The first guard that holds at `at` and will still hold when the trigger
/// is reached a few turns on: any but `too_soon`, which those turns lift.
pub(crate) fn lasting_guard(c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> Option<Guard> {
    let turns_on = Conversation {
        turns_since_compaction: u64::MAX,
        ..c.clone()
    };
    loop_guard(&turns_on, at, config)
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    fn t0() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-10-01T12:00:00Z").unwrap().to_utc()
    }

    fn compacted_long_ago() -> Conversation {
        Conversation {
            used: 210_000,
            size: 1_000_000,
            compactions: 1,
            turns_since_compaction: 9,
            ..Conversation::new(t0())
        }
    }

    fn guard(c: &Conversation) -> Option<Guard> {
        loop_guard(c, t0() + Duration::days(2), &PolicyConfig::default())
    }

    #[test]
    fn no_guard_holds_for_a_fresh_conversation() {
        assert_eq!(guard(&Conversation::new(t0())), None);
        assert_eq!(guard(&compacted_long_ago()), None);
    }

    #[test]
    fn three_host_compactions_in_a_day_are_enough() {
        let at = t0() + Duration::days(2);
        let c = Conversation {
            host_compactions_24h: vec![at - Duration::hours(20), at - Duration::hours(2), at],
            ..compacted_long_ago()
        };
        assert_eq!(guard(&c), Some(Guard::TooManyToday));
        let spread = Conversation {
            host_compactions_24h: vec![at - Duration::hours(24), at - Duration::hours(2), at],
            ..compacted_long_ago()
        };
        assert_eq!(guard(&spread), None, "one of them is a day old");
    }

    #[test]
    fn leaving_sixty_percent_of_the_trigger_is_too_little_gained() {
        // trigger of a 1M window: 200,000; 60% of it: 120,000.
        let c = Conversation {
            used_after_compaction: Some(120_000),
            ..compacted_long_ago()
        };
        assert_eq!(guard(&c), Some(Guard::TooLittleGained));
        let gained = Conversation {
            used_after_compaction: Some(119_999),
            ..compacted_long_ago()
        };
        assert_eq!(guard(&gained), None);
    }

    #[test]
    fn fewer_than_five_turns_after_a_compaction_is_too_soon() {
        let c = Conversation {
            turns_since_compaction: 4,
            ..compacted_long_ago()
        };
        assert_eq!(guard(&c), Some(Guard::TooSoon));
        let never = Conversation {
            compactions: 0,
            turns_since_compaction: 0,
            ..compacted_long_ago()
        };
        assert_eq!(guard(&never), None, "nothing to be too soon after");
    }

    #[test]
    fn three_failed_attempts_in_a_row_open_the_breaker() {
        let c = Conversation {
            failed_compactions_in_row: 3,
            ..compacted_long_ago()
        };
        assert_eq!(guard(&c), Some(Guard::Failing));
        let two = Conversation {
            failed_compactions_in_row: 2,
            ..compacted_long_ago()
        };
        assert_eq!(guard(&two), None);
    }

    #[test]
    fn the_first_guard_that_holds_is_reported() {
        let at = t0() + Duration::days(2);
        let all = Conversation {
            host_compactions_24h: vec![at; 3],
            used_after_compaction: Some(200_000),
            turns_since_compaction: 1,
            failed_compactions_in_row: 3,
            ..compacted_long_ago()
        };
        assert_eq!(guard(&all), Some(Guard::TooManyToday));
        let no_day = Conversation {
            host_compactions_24h: vec![],
            ..all.clone()
        };
        assert_eq!(guard(&no_day), Some(Guard::TooLittleGained));
        let gained = Conversation {
            used_after_compaction: None,
            ..no_day
        };
        assert_eq!(guard(&gained), Some(Guard::TooSoon));
        let later = Conversation {
            turns_since_compaction: 5,
            ..gained
        };
        assert_eq!(guard(&later), Some(Guard::Failing));
    }

    #[test]
    fn guard_names_are_stable() {
        for guard in Guard::ALL.iter().copied() {
            assert_eq!(Guard::parse(guard.as_str()), Some(guard));
        }
        assert_eq!(Guard::TooLittleGained.as_str(), "too_little_gained");
    }
}
