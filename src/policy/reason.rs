//! The one plain sentence that explains a decision to a person.
//!
//! Clauses are built from the same numbers the policy compared, so the
//! sentence never disagrees with the decision it explains.

use chrono::{DateTime, Duration, Utc};

use super::cache_life::CacheLife;
use super::config::PolicyConfig;
use super::conversation::Conversation;
use super::guard::Guard;
use super::trigger::{CompactionTrigger, RolloverReason, Trigger, age_in_days};

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A span of time in the unit a person would use for it.
pub(crate) fn span(d: Duration) -> String {
    let plural = |n: i64, unit: &str| {
        if n == 1 {
            format!("1 {unit}")
        } else {
            format!("{n} {unit}s")
        }
    };
    if d < Duration::minutes(1) {
        plural(d.num_seconds(), "second")
    } else if d < Duration::hours(2) {
        plural(d.num_minutes(), "minute")
    } else if d < Duration::days(2) {
        plural(d.num_hours(), "hour")
    } else {
        plural(d.num_days(), "day")
    }
}

fn life_name(life: CacheLife) -> &'static str {
    match life {
        CacheLife::FiveMinutes => "five-minute",
        CacheLife::OneHour => "one-hour",
    }
}

fn percent_of(part: u64, whole: u64) -> u128 {
    if whole == 0 {
        0
    } else {
        u128::from(part) * 100 / u128::from(whole)
    }
}

/// What holds, for a trigger that holds.
pub(crate) fn trigger_clause(trigger: Trigger, c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> String {
    let used = thousands(c.used);
    let away = c.last_turn_at.map(|last| span(at - last)).unwrap_or_default();
    match trigger {
        Trigger::Compaction(CompactionTrigger::Emergency) => format!(
            "{used} tokens in use is {}% of the {}-token window, past the {}% emergency line",
            percent_of(c.used, c.size),
            thousands(c.size),
            config.emergency_percent
        ),
        Trigger::Compaction(CompactionTrigger::ContextPressure) => format!(
            "{used} tokens in use reached the context-pressure threshold of {}",
            thousands(c.context_pressure_threshold(config).unwrap_or_default())
        ),
        Trigger::Compaction(CompactionTrigger::ThresholdExceeded) => format!(
            "{used} tokens in use reached the compaction trigger of {} for a {}-token window",
            thousands(config.trigger_tokens(c.size)),
            thousands(c.size)
        ),
        Trigger::Compaction(CompactionTrigger::UnfinishedTurns) => format!(
            "{} user messages came after the last clean run completion",
            thousands(c.user_messages_since_run_completed)
        ),
        Trigger::Compaction(CompactionTrigger::AgeAndTurns) => format!(
            "the conversation is {} days old with {} user messages",
            age_in_days(c, at),
            thousands(c.total_user_messages)
        ),
        Trigger::Compaction(CompactionTrigger::IdleCacheExpiry) => {
            let left = c
                .last_turn_at
                .map(|last| span(last + Duration::hours(1) - at))
                .unwrap_or_default();
            format!("the one-hour cache over {used} tokens expires in {left}")
        }
        Trigger::Rollover(RolloverReason::CacheCold) => format!(
            "the {} cache over {used} tokens went cold {away} after the last turn",
            life_name(c.effective_cache_life(config))
        ),
        Trigger::Rollover(RolloverReason::LongAway) => format!(
            "the user has been away {away} and the context is {} compactions deep",
            thousands(c.compactions)
        ),
        Trigger::Compaction(CompactionTrigger::Manual)
        | Trigger::Compaction(CompactionTrigger::ManualRecovery)
        | Trigger::Compaction(CompactionTrigger::Harness) => {
            format!("a {} compaction was asked for", trigger.as_str())
        }
    }
}

/// Why compacting again would not help, for a guard that holds.
pub(crate) fn guard_clause(guard: Guard, c: &Conversation, at: DateTime<Utc>, config: &PolicyConfig) -> String {
    match guard {
        Guard::TooManyToday => format!(
            "{} host compactions in the last 24 hours",
            c.host_compactions_within_a_day(at)
        ),
        Guard::TooLittleGained => {
            let after = c.used_after_compaction.unwrap_or_default();
            let trigger = config.trigger_tokens(c.size);
            format!(
                "the last compaction left {} tokens, {}% of the {}-token trigger",
                thousands(after),
                percent_of(after, trigger),
                thousands(trigger)
            )
        }
        Guard::TooSoon => format!("only {} turns since the last compaction", c.turns_since_compaction),
        Guard::Failing => format!(
            "the last {} compaction attempts failed",
            thousands(c.failed_compactions_in_row)
        ),
    }
}

/// Why nothing is due at the end of a turn.
pub(crate) fn nothing_due_at_turn_end(c: &Conversation, config: &PolicyConfig) -> String {
    if c.size == 0 {
        return format!(
            "Keep going: {} tokens in use and no window size reported yet, and no other trigger holds.",
            thousands(c.used)
        );
    }
    format!(
        "Keep going: {} tokens in use is below the compaction trigger of {} for a {}-token window.",
        thousands(c.used),
        thousands(config.trigger_tokens(c.size)),
        thousands(c.size)
    )
}

/// Makes a clause the start of a sentence.
pub(crate) fn capitalized(clause: &str) -> String {
    let mut chars = clause.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated_by_commas() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(210_000), "210,000");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn spans_use_the_unit_a_person_would() {
        assert_eq!(span(Duration::seconds(30)), "30 seconds");
        assert_eq!(span(Duration::minutes(1)), "1 minute");
        assert_eq!(span(Duration::minutes(56)), "56 minutes");
        assert_eq!(span(Duration::hours(9)), "9 hours");
        assert_eq!(span(Duration::days(40)), "40 days");
    }

    #[test]
    fn a_clause_becomes_a_sentence_start() {
        assert_eq!(capitalized("the user"), "The user");
        assert_eq!(capitalized(""), "");
    }
}
