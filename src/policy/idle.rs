//! `moment: "idle"` (SPEC §2): compact a large conversation just before its
//! one-hour cache expires, which is cheaper than reading it cold when the user
//! returns. A five-minute cache expires before this pays off.

use chrono::{DateTime, Utc};

use super::cache_life::CacheLife;
use super::config::PolicyConfig;
use super::conversation::Conversation;
use super::decision::{Decision, DecisionKind};
use super::guard::loop_guard;
use super::reason::{guard_clause, span, thousands, trigger_clause};
use super::trigger::{CompactionTrigger, Trigger};

pub(super) fn while_idle(c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> Decision {
    let Some(last_turn_at) = c.last_turn_at else {
        return Decision::keep("Keep: no turn has ended yet, so there is no idle cache to save.".to_owned());
    };
    let life = c.effective_cache_life(config);
    if life != CacheLife::OneHour {
        return Decision::keep("Keep: a five-minute cache expires before an idle compaction pays off.".to_owned());
    }
    if c.used < config.large_context_tokens {
        return Decision::keep(format!(
            "Keep: {} tokens in use is too little for an idle compaction to pay off (it takes {}).",
            thousands(c.used),
            thousands(config.large_context_tokens)
        ));
    }
    if c.idle_compacted {
        return Decision::keep("Keep: already compacted while idle since the last turn.".to_owned());
    }
    let idle = at - last_turn_at;
    let expiry = life.duration();
    if idle < expiry - config.idle_lead {
        return Decision::keep(format!(
            "Keep: the one-hour cache has {} left, and an idle compaction waits until {} before it expires.",
            span(expiry - idle),
            span(config.idle_lead)
        ));
    }
    if idle >= expiry {
        return Decision::keep(format!(
            "Keep: the one-hour cache expired {} ago, so compacting now would read it cold.",
            span(idle - expiry)
        ));
    }
    let fact = trigger_clause(Trigger::Compaction(CompactionTrigger::IdleCacheExpiry), c, at, config);
    match loop_guard(c, at, config) {
        Some(guard) => Decision {
            kind: DecisionKind::Keep,
            trigger: Some(Trigger::Compaction(CompactionTrigger::IdleCacheExpiry)),
            guard: Some(guard),
            reason: format!(
                "Keep: {fact}, but compacting again would not help ({}).",
                guard_clause(guard, c, at, config)
            ),
        },
        None => Decision {
            kind: DecisionKind::Compact,
            trigger: Some(Trigger::Compaction(CompactionTrigger::IdleCacheExpiry)),
            guard: None,
            reason: format!("Compact now while idle: {fact}, and reading it cold later costs more."),
        },
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::policy::cache_life::CacheLifeSetting;
    use crate::policy::decide::decide;
    use crate::policy::decision::Moment;
    use crate::policy::guard::Guard;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-10-18T09:00:00Z").unwrap().to_utc()
    }

    fn one_hour() -> Conversation {
        Conversation {
            used: 120_000,
            size: 1_000_000,
            last_turn_at: Some(now()),
            turns_since_compaction: 9,
            cache_life: CacheLifeSetting::Declared(CacheLife::OneHour),
            ..Conversation::new(now() - Duration::days(1))
        }
    }

    fn idle(c: &Conversation, minutes: i64) -> Decision {
        decide(
            c,
            Moment::Idle,
            now() + Duration::minutes(minutes),
            &PolicyConfig::default(),
        )
    }

    // Seed 001's case.

    #[test]
    fn idle_compaction_runs_just_before_a_one_hour_cache_expires() {
        let c = one_hour();
        assert_eq!(idle(&c, 30).kind, DecisionKind::Keep);
        let due = idle(&c, 56);
        assert_eq!(due.kind, DecisionKind::Compact);
        assert_eq!(
            due.trigger,
            Some(Trigger::Compaction(CompactionTrigger::IdleCacheExpiry))
        );
        assert_eq!(idle(&c, 61).kind, DecisionKind::Keep, "already cold");
        let five = Conversation {
            cache_life: CacheLifeSetting::Declared(CacheLife::FiveMinutes),
            ..c.clone()
        };
        assert_eq!(idle(&five, 4).kind, DecisionKind::Keep);
        let small = Conversation {
            used: 60_000,
            ..c.clone()
        };
        assert_eq!(idle(&small, 56).kind, DecisionKind::Keep);
        let mut done = c;
        done.compacted(true, true, now() + Duration::minutes(56));
        assert_eq!(idle(&done, 57).kind, DecisionKind::Keep, "once");
    }

    #[test]
    fn the_idle_window_is_closed_at_fifty_five_minutes_and_open_at_sixty() {
        let c = one_hour();
        assert_eq!(idle(&c, 55).kind, DecisionKind::Compact);
        let last_moment = decide(
            &c,
            Moment::Idle,
            now() + Duration::minutes(60) - Duration::microseconds(1),
            &PolicyConfig::default(),
        );
        assert_eq!(last_moment.kind, DecisionKind::Compact);
        assert_eq!(idle(&c, 60).kind, DecisionKind::Keep);
    }

    #[test]
    fn an_observed_or_configured_one_hour_cache_counts_too() {
        let observed = Conversation {
            cache_life: CacheLifeSetting::Observed(CacheLife::OneHour),
            ..one_hour()
        };
        assert_eq!(idle(&observed, 56).kind, DecisionKind::Compact);
        let default = Conversation {
            cache_life: CacheLifeSetting::Default,
            ..one_hour()
        };
        assert_eq!(
            idle(&default, 56).kind,
            DecisionKind::Keep,
            "the default is five minutes"
        );
        let config = PolicyConfig {
            default_cache_life: CacheLife::OneHour,
            ..PolicyConfig::default()
        };
        let at = now() + Duration::minutes(56);
        assert_eq!(decide(&default, Moment::Idle, at, &config).kind, DecisionKind::Compact);
    }

    #[test]
    fn a_conversation_without_a_turn_is_never_idle() {
        let c = Conversation {
            last_turn_at: None,
            ..one_hour()
        };
        assert_eq!(idle(&c, 56).kind, DecisionKind::Keep);
    }

    #[test]
    fn a_guard_keeps_an_idle_conversation_and_says_which() {
        let c = Conversation {
            compactions: 1,
            turns_since_compaction: 1,
            ..one_hour()
        };
        let decision = idle(&c, 56);
        assert_eq!(decision.kind, DecisionKind::Keep);
        assert_eq!(
            decision.trigger,
            Some(Trigger::Compaction(CompactionTrigger::IdleCacheExpiry))
        );
        assert_eq!(decision.guard, Some(Guard::TooSoon));
        assert!(
            decision.reason.contains("only 1 turns since the last compaction"),
            "{}",
            decision.reason
        );
    }

    #[test]
    fn the_idle_reason_says_how_long_is_left() {
        assert_eq!(
            idle(&one_hour(), 56).reason,
            "Compact now while idle: the one-hour cache over 120,000 tokens expires in 4 minutes, and reading it cold later costs more."
        );
        assert!(idle(&one_hour(), 30).reason.contains("has 30 minutes left"));
    }
}
