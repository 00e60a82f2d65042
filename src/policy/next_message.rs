//! `moment: "next_message"` (SPEC §2): should the next user message start a
//! new conversation from a handoff instead of carrying on — a large context
//! whose cache went cold, or a long absence after several compactions.

use chrono::{DateTime, Utc};

use super::config::PolicyConfig;
use super::conversation::Conversation;
use super::decision::{Decision, DecisionKind};
use super::reason::{span, trigger_clause};
use super::trigger::{RolloverReason, Trigger};

pub(super) fn before_next_message(c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> Decision {
    let Some(last_turn_at) = c.last_turn_at else {
        return Decision::keep("Keep: no turn has ended yet.".to_owned());
    };
    if c.rollover_declined {
        return Decision::keep("Keep: the user chose to carry on over a rollover since the last turn.".to_owned());
    }
    let away = at - last_turn_at;
    let life = c.effective_cache_life(config);
    let trigger = if away >= life.duration() && c.used >= config.large_context_tokens {
        Trigger::Rollover(RolloverReason::CacheCold)
    } else if away >= config.long_away && c.compactions >= config.long_away_compactions {
        Trigger::Rollover(RolloverReason::LongAway)
    } else {
        return Decision::keep(format!(
            "Keep: {} since the last turn, and neither a cold cache over a large context nor a long absence after many compactions.",
            span(away)
        ));
    };
    Decision {
        kind: DecisionKind::Rollover,
        trigger: Some(trigger),
        guard: None,
        reason: format!(
            "Start a new conversation from a handoff: {}.",
            trigger_clause(trigger, c, at, config)
        ),
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::policy::cache_life::{CacheLife, CacheLifeSetting};
    use crate::policy::conversation::TurnEnd;
    use crate::policy::decide::decide;
    use crate::policy::decision::Moment;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-10-18T09:00:00Z").unwrap().to_utc()
    }

    fn with_life(c: Conversation, life: CacheLife) -> Conversation {
        Conversation {
            cache_life: CacheLifeSetting::Declared(life),
            ..c
        }
    }

    fn base(used: u64) -> Conversation {
        Conversation {
            used,
            size: 1_000_000,
            last_turn_at: Some(now()),
            turns_since_compaction: 9,
            ..Conversation::new(now() - Duration::days(1))
        }
    }

    fn due(c: &Conversation, life: CacheLife, after: Duration) -> bool {
        let c = with_life(c.clone(), life);
        decide(&c, Moment::NextMessage, now() + after, &PolicyConfig::default()).kind == DecisionKind::Rollover
    }

    // Seed 001's case.

    #[test]
    fn a_cold_large_or_long_away_conversation_rolls_over() {
        let c = base(120_000);
        assert!(!due(&c, CacheLife::OneHour, Duration::minutes(30)));
        assert!(due(&c, CacheLife::OneHour, Duration::minutes(61)));
        assert!(due(&c, CacheLife::FiveMinutes, Duration::minutes(6)));
        let small = base(30_000);
        assert!(!due(&small, CacheLife::FiveMinutes, Duration::hours(6)));
        let summarized = Conversation {
            compactions: 3,
            ..small
        };
        assert!(due(&summarized, CacheLife::FiveMinutes, Duration::hours(9)));
        let never = Conversation::new(now());
        assert!(!due(&never, CacheLife::OneHour, Duration::zero()), "never used");
        let mut kept = Conversation {
            rollover_declined: true,
            ..c.clone()
        };
        assert!(
            !due(&kept, CacheLife::OneHour, Duration::minutes(61)),
            "the user carried on"
        );
        kept.end_turn(&TurnEnd::default(), now() + Duration::minutes(62));
        assert!(
            due(&kept, CacheLife::OneHour, Duration::minutes(130)),
            "until the next quiet spell"
        );
    }

    #[test]
    fn a_cold_cache_is_named_before_a_long_absence() {
        let c = with_life(
            Conversation {
                compactions: 3,
                ..base(120_000)
            },
            CacheLife::FiveMinutes,
        );
        let decision = decide(
            &c,
            Moment::NextMessage,
            now() + Duration::hours(9),
            &PolicyConfig::default(),
        );
        assert_eq!(decision.trigger, Some(Trigger::Rollover(RolloverReason::CacheCold)));
        let small = Conversation { used: 10, ..c };
        let decision = decide(
            &small,
            Moment::NextMessage,
            now() + Duration::hours(9),
            &PolicyConfig::default(),
        );
        assert_eq!(decision.trigger, Some(Trigger::Rollover(RolloverReason::LongAway)));
        assert_eq!(
            decision.reason,
            "Start a new conversation from a handoff: the user has been away 9 hours and the context is 3 compactions deep."
        );
    }

    #[test]
    fn the_cache_goes_cold_exactly_at_its_life() {
        let c = base(100_000);
        assert!(due(&c, CacheLife::FiveMinutes, Duration::minutes(5)));
        assert!(!due(
            &c,
            CacheLife::FiveMinutes,
            Duration::minutes(5) - Duration::microseconds(1)
        ));
    }

    #[test]
    fn the_default_cache_life_applies_when_nothing_was_declared() {
        let c = base(120_000);
        let at = now() + Duration::minutes(10);
        let decision = decide(&c, Moment::NextMessage, at, &PolicyConfig::default());
        assert_eq!(decision.kind, DecisionKind::Rollover, "five minutes by default");
        let config = PolicyConfig {
            default_cache_life: CacheLife::OneHour,
            ..PolicyConfig::default()
        };
        assert_eq!(decide(&c, Moment::NextMessage, at, &config).kind, DecisionKind::Keep);
    }
}
