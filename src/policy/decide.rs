//! Deciding (SPEC §2): what to do with a conversation at a moment — at a
//! turn's end here, while idle and before the next message in their own
//! modules.

use chrono::{DateTime, Utc};

use super::config::PolicyConfig;
use super::conversation::Conversation;
use super::decision::{Decision, DecisionKind, Moment};
use super::guard::loop_guard;
use super::reason::{capitalized, guard_clause, nothing_due_at_turn_end, trigger_clause};
use super::trigger::turn_end_trigger;
use super::{idle, next_message};

/// What to do with `c` at `at`, asked at `moment`.
pub(crate) fn decide(c: &Conversation, moment: Moment, at: DateTime<Utc>, config: &PolicyConfig) -> Decision {
    match moment {
        Moment::TurnEnd => at_turn_end(c, at, config),
        Moment::Idle => idle::while_idle(c, at, config),
        Moment::NextMessage => next_message::before_next_message(c, at, config),
    }
}

/// The first turn-end trigger, unless a loop guard says compacting again would
/// not help: then a size trigger rolls over and an episodic one keeps.
fn at_turn_end(c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> Decision {
    let Some(trigger) = turn_end_trigger(c, at, config) else {
        return Decision::keep(nothing_due_at_turn_end(c, config));
    };
    let fact = trigger_clause(trigger.into(), c, at, config);
    let Some(guard) = loop_guard(c, at, config) else {
        return Decision {
            kind: DecisionKind::Compact,
            trigger: Some(trigger.into()),
            guard: None,
            reason: format!("Compact now: {fact}."),
        };
    };
    let why_not = guard_clause(guard, c, at, config);
    if trigger.is_size_trigger() {
        Decision {
            kind: DecisionKind::Rollover,
            trigger: Some(trigger.into()),
            guard: Some(guard),
            reason: format!(
                "Roll over to a new conversation: {fact}, and compacting again would not help ({why_not})."
            ),
        }
    } else {
        Decision {
            kind: DecisionKind::Keep,
            trigger: Some(trigger.into()),
            guard: Some(guard),
            reason: format!(
                "{}, but nothing is urgent and compacting again would not help ({why_not}).",
                capitalized(&fact)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::policy::conversation::{TurnEnd, UsageReport};
    use crate::policy::guard::Guard;
    use crate::policy::trigger::{CompactionTrigger, Trigger};

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-10-18T09:00:00Z").unwrap().to_utc()
    }

    fn full() -> Conversation {
        Conversation {
            used: 210_000,
            size: 1_000_000,
            last_turn_at: Some(now()),
            turns_since_compaction: 9,
            ..Conversation::new(now() - Duration::days(1))
        }
    }

    fn at_turn_end(c: &Conversation, at: DateTime<Utc>) -> Decision {
        decide(c, Moment::TurnEnd, at, &PolicyConfig::default())
    }

    fn kind(c: &Conversation, at: DateTime<Utc>) -> DecisionKind {
        at_turn_end(c, at).kind
    }

    fn report(c: &mut Conversation, used: u64, size: u64) {
        let usage = UsageReport {
            used,
            size: Some(size),
            ..UsageReport::default()
        };
        c.record_usage(&usage, now(), &PolicyConfig::default());
    }

    // Seed 001's cases.

    #[test]
    fn a_turn_ending_past_the_trigger_compacts() {
        assert_eq!(kind(&full(), now()), DecisionKind::Compact);
        let small = Conversation {
            used: 150_000,
            size: 200_000,
            ..full()
        };
        assert_eq!(
            kind(&small, now()),
            DecisionKind::Compact,
            "three quarters of a smaller window"
        );
        let room = Conversation {
            used: 120_000,
            ..full()
        };
        assert_eq!(kind(&room, now()), DecisionKind::Keep);
        assert_eq!(
            kind(&Conversation::new(now()), now()),
            DecisionKind::Keep,
            "no usage reported yet"
        );
    }

    #[test]
    fn the_loop_guard_rolls_over_instead_of_compacting_again() {
        let mut c = full();
        c.compacted(true, false, now());
        report(&mut c, 130_000, 1_000_000);
        for _ in 0..5 {
            c.end_turn(&TurnEnd::default(), now());
        }
        c.used = 210_000;
        let decision = at_turn_end(&c, now());
        assert_eq!(
            decision.kind,
            DecisionKind::Rollover,
            "the last one left 65% of the trigger"
        );
        assert_eq!(decision.guard, Some(Guard::TooLittleGained));

        let mut c = full();
        c.compacted(true, false, now());
        report(&mut c, 20_000, 1_000_000);
        c.end_turn(&TurnEnd::default(), now());
        c.used = 210_000;
        let decision = at_turn_end(&c, now());
        assert_eq!(
            decision.kind,
            DecisionKind::Rollover,
            "two compactions within five turns"
        );
        assert_eq!(decision.guard, Some(Guard::TooSoon));

        let mut c = full();
        for hour in 0..3 {
            c.compacted(true, false, now() - Duration::hours(hour));
        }
        report(&mut c, 20_000, 1_000_000);
        c.turns_since_compaction = 9;
        c.used = 210_000;
        let decision = at_turn_end(&c, now());
        assert_eq!(decision.kind, DecisionKind::Rollover, "three today");
        assert_eq!(decision.guard, Some(Guard::TooManyToday));
        assert_eq!(
            kind(&c, now() + Duration::days(1)),
            DecisionKind::Compact,
            "a day later"
        );
    }

    // The union's cases.

    #[test]
    fn a_guard_with_an_episodic_trigger_keeps() {
        let c = Conversation {
            used: 10_000,
            user_messages_since_run_completed: 8,
            compactions: 1,
            turns_since_compaction: 2,
            ..full()
        };
        let decision = at_turn_end(&c, now());
        assert_eq!(decision.kind, DecisionKind::Keep);
        assert_eq!(
            decision.trigger,
            Some(Trigger::Compaction(CompactionTrigger::UnfinishedTurns))
        );
        assert_eq!(decision.guard, Some(Guard::TooSoon));

        let old = Conversation {
            used: 10_000,
            total_user_messages: 60,
            failed_compactions_in_row: 3,
            ..full()
        };
        let decision = at_turn_end(&old, now() + Duration::days(40));
        assert_eq!(decision.kind, DecisionKind::Keep);
        assert_eq!(
            decision.trigger,
            Some(Trigger::Compaction(CompactionTrigger::AgeAndTurns))
        );
        assert_eq!(decision.guard, Some(Guard::Failing));
    }

    #[test]
    fn an_episodic_trigger_without_a_guard_compacts() {
        let c = Conversation {
            used: 10_000,
            user_messages_since_run_completed: 8,
            ..full()
        };
        let decision = at_turn_end(&c, now());
        assert_eq!(decision.kind, DecisionKind::Compact);
        assert_eq!(
            decision.trigger,
            Some(Trigger::Compaction(CompactionTrigger::UnfinishedTurns))
        );
        assert_eq!(decision.guard, None);
    }

    #[test]
    fn every_size_trigger_rolls_over_under_a_guard() {
        let guarded = Conversation {
            failed_compactions_in_row: 3,
            ..full()
        };
        let emergency = Conversation {
            used: 960_000,
            ..guarded.clone()
        };
        let pressure = Conversation {
            used: 100_000,
            context_pressure_tokens: Some(90_000),
            ..guarded.clone()
        };
        for (c, trigger) in [
            (emergency, Trigger::Compaction(CompactionTrigger::Emergency)),
            (pressure, Trigger::Compaction(CompactionTrigger::ContextPressure)),
            (guarded, Trigger::Compaction(CompactionTrigger::ThresholdExceeded)),
        ] {
            let decision = at_turn_end(&c, now());
            assert_eq!(decision.kind, DecisionKind::Rollover, "{trigger:?}");
            assert_eq!(decision.trigger, Some(trigger));
            assert_eq!(decision.guard, Some(Guard::Failing));
        }
    }

    #[test]
    fn a_failing_summarizer_rolls_over_an_emergency() {
        let c = Conversation {
            used: 990_000,
            failed_compactions_in_row: 3,
            ..full()
        };
        let decision = at_turn_end(&c, now());
        assert_eq!(decision.kind, DecisionKind::Rollover);
        assert_eq!(
            decision.trigger,
            Some(Trigger::Compaction(CompactionTrigger::Emergency))
        );
        assert_eq!(decision.guard, Some(Guard::Failing));
    }

    #[test]
    fn a_keep_with_no_trigger_names_neither_trigger_nor_guard() {
        let c = Conversation {
            used: 1_000,
            failed_compactions_in_row: 5,
            ..full()
        };
        let decision = at_turn_end(&c, now());
        assert_eq!(
            (decision.kind, decision.trigger, decision.guard),
            (DecisionKind::Keep, None, None)
        );
    }

    #[test]
    fn the_reason_is_one_sentence_with_the_numbers_compared() {
        let compact = at_turn_end(&full(), now());
        assert_eq!(
            compact.reason,
            "Compact now: 210,000 tokens in use reached the compaction trigger of 200,000 for a 1,000,000-token window."
        );
        let rollover = at_turn_end(
            &Conversation {
                failed_compactions_in_row: 3,
                ..full()
            },
            now(),
        );
        assert!(rollover.reason.starts_with("Roll over to a new conversation: "));
        assert!(rollover.reason.ends_with("(the last 3 compaction attempts failed)."));
        let keep = at_turn_end(&Conversation { used: 1_000, ..full() }, now());
        assert!(
            keep.reason
                .contains("1,000 tokens in use is below the compaction trigger of 200,000")
        );
        for reason in [compact.reason, rollover.reason, keep.reason] {
            assert_eq!(reason.matches(". ").count(), 0, "one sentence: {reason}");
            assert!(reason.ends_with('.'));
        }
    }
}
