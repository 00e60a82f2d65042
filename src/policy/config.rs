//! Every threshold of SPEC §2, with the spec's defaults.
//!
//! The server builds one of these from its flags at start; the policy reads it
//! and nothing else, so a test can state exactly the policy it is checking.

use chrono::Duration;

use super::cache_life::{CacheLife, ObservationWindow};

/// The thresholds the decision reads. `Default` is the spec's policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyConfig {
    /// The turn-end trigger never waits past this many tokens, however large the
    /// window: the summary needs room, and a hot cache makes the history cheap.
    pub trigger_cap_tokens: u64,
    /// Past this share of the window (percent) the next call may overflow.
    pub emergency_percent: u64,
    /// The server-wide context-pressure threshold; `None` is off. A
    /// conversation's own threshold wins over it.
    pub context_pressure_tokens: Option<u64>,
    /// User messages after the latest clean run completion that trigger.
    pub unfinished_turns: u64,
    /// Whole days of age that, with enough user messages, trigger.
    pub age_days: i64,
    /// User messages in all that, with enough age, trigger.
    pub age_user_messages: u64,
    /// Loop guard: host compactions within 24 hours that are enough.
    pub guard_host_compactions_per_day: usize,
    /// Loop guard: context left after the last compaction, as a percentage of
    /// the trigger, at which compacting again gains too little.
    pub guard_gain_percent: u64,
    /// Loop guard: turns since the last compaction below which it is too soon.
    pub guard_min_turns: u64,
    /// Loop guard: consecutive failed compaction attempts that open the breaker.
    pub guard_failed_attempts: u64,
    /// Idle compaction and rollover only pay for themselves past this context.
    pub large_context_tokens: u64,
    /// How long before a one-hour cache expires an idle conversation compacts.
    pub idle_lead: Duration,
    /// Away this long, with `long_away_compactions` behind it, a conversation
    /// is summaries of summaries and the next message should start afresh.
    pub long_away: Duration,
    pub long_away_compactions: u64,
    /// A pause shorter than this leaves both cache lives warm: it shows nothing.
    pub observe_min_gap: Duration,
    /// A pause this long or longer has cooled a five-minute cache and nearly
    /// a one-hour one: it shows nothing either.
    pub observe_max_gap: Duration,
    /// The cache life of a conversation nobody declared and nothing showed.
    pub default_cache_life: CacheLife,
    /// A conversation's summary is prepared ahead once its context reaches
    /// this share (percent) of the size trigger it is heading for; 0 is off.
    pub prepare_at_percent: u64,
    /// A compaction merges a prepared summary with the turns since only while
    /// they count at most this share (percent) of that trigger; past it the
    /// summary is written afresh (and prepared again, should it not be).
    pub prepare_max_delta_percent: u64,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            trigger_cap_tokens: 200_000,
            emergency_percent: 95,
            context_pressure_tokens: None,
            unfinished_turns: 8,
            age_days: 30,
            age_user_messages: 50,
            guard_host_compactions_per_day: 3,
            guard_gain_percent: 60,
            guard_min_turns: 5,
            guard_failed_attempts: 3,
            large_context_tokens: 100_000,
            idle_lead: Duration::minutes(5),
            long_away: Duration::hours(8),
            long_away_compactions: 3,
            observe_min_gap: Duration::minutes(6),
            observe_max_gap: Duration::minutes(55),
            default_cache_life: CacheLife::FiveMinutes,
            prepare_at_percent: 85,
            prepare_max_delta_percent: 25,
        }
    }
}

impl PolicyConfig {
    /// The pauses that show a conversation's cache life.
    pub(crate) fn observation_window(&self) -> ObservationWindow {
        ObservationWindow {
            after: self.observe_min_gap,
            before: self.observe_max_gap,
        }
    }

    /// `min(size / 4 * 3, cap)`: three quarters of the window, capped, in the
    /// spec's integer arithmetic.
    pub(crate) fn trigger_tokens(&self, size: u64) -> u64 {
        (size / 4 * 3).min(self.trigger_cap_tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trigger_is_three_quarters_of_the_window_in_integer_arithmetic() {
        let config = PolicyConfig::default();
        assert_eq!(config.trigger_tokens(200_000), 150_000);
        assert_eq!(config.trigger_tokens(7), 3, "7 / 4 * 3, not 7 * 3 / 4");
        assert_eq!(config.trigger_tokens(0), 0);
    }

    #[test]
    fn the_trigger_is_capped_for_large_windows() {
        let config = PolicyConfig::default();
        assert_eq!(config.trigger_tokens(1_000_000), 200_000);
        assert_eq!(config.trigger_tokens(u64::MAX), 200_000);
    }
}
