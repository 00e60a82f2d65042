//! A conversation's state (SPEC §1) and the transitions that reports make to it
//! (SPEC §3: /usage, /turn-ended, and a compaction's outcome).
//!
//! The store applies the same transitions in SQL so that each request is one
//! atomic statement; `tests/api/transitions.rs` drives both with the same
//! reports and fails when they disagree.

use chrono::{DateTime, Duration, Utc};

use super::cache_life::{CacheLife, CacheLifeSetting};
use super::config::PolicyConfig;

/// One conversation as the service knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    /// Context tokens in use, from the last usage report.
    pub used: u64,
    /// The window's size, from the last report that gave one (0: unknown).
    pub size: u64,
    pub cache_life: CacheLifeSetting,
    /// This conversation's own context-pressure threshold, if it set one.
    pub context_pressure_tokens: Option<u64>,
    /// The `at` of the first event seen for it.
    pub created_at: DateTime<Utc>,
    /// When its last turn ended; `None` before the first.
    pub last_turn_at: Option<DateTime<Utc>>,
    pub turns_since_compaction: u64,
    /// Successful compactions of any kind.
    pub compactions: u64,
    /// When the caller asked for compactions, within the last 24 hours.
    pub host_compactions_24h: Vec<DateTime<Utc>>,
    /// Context reported just after the last compaction, once reported: how
    /// much that compaction actually gained.
    pub used_after_compaction: Option<u64>,
    /// Compacted while idle since its last turn: once per quiet spell.
    pub idle_compacted: bool,
    /// The user carried on over a rollover since its last turn.
    pub rollover_declined: bool,
    pub total_user_messages: u64,
    pub user_messages_since_boundary: u64,
    pub runs_completed_since_boundary: u64,
    /// User messages after the latest clean run completion (or after the
    /// boundary when none): turns the agent started and never finished.
    pub user_messages_since_run_completed: u64,
    /// Consecutive failed compaction attempts: the summarizer is not getting
    /// through while this stays high.
    pub failed_compactions_in_row: u64,
}

/// What a `/usage` report says about the last model call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UsageReport {
    pub used: u64,
    /// The window's size; `None` or 0 leaves the known size.
    pub size: Option<u64>,
    pub input: Option<u64>,
    pub cached_read: Option<u64>,
    pub cache_written: Option<u64>,
    pub output: Option<u64>,
    /// The caller declares its cache life; it then stays declared.
    pub cache_life: Option<CacheLife>,
    /// A positive value sets the conversation's context-pressure threshold;
    /// 0 clears it, so the server's applies again.
    pub context_pressure_tokens: Option<u64>,
}

/// What a `/turn-ended` report says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnEnd {
    pub user_messages: u64,
    /// The agent's run finished cleanly (it did not stop half way).
    pub run_completed: bool,
}

impl Default for TurnEnd {
    fn default() -> Self {
        Self {
            user_messages: 1,
            run_completed: true,
        }
    }
}

impl Conversation {
    /// A conversation first seen at `at`, before anything was reported.
    pub fn new(created_at: DateTime<Utc>) -> Self {
        Self {
            used: 0,
            size: 0,
            cache_life: CacheLifeSetting::Default,
            context_pressure_tokens: None,
            created_at,
            last_turn_at: None,
            turns_since_compaction: 0,
            compactions: 0,
            host_compactions_24h: Vec::new(),
            used_after_compaction: None,
            idle_compacted: false,
            rollover_declined: false,
            total_user_messages: 0,
            user_messages_since_boundary: 0,
            runs_completed_since_boundary: 0,
            user_messages_since_run_completed: 0,
            failed_compactions_in_row: 0,
        }
    }

    /// The agent reported its context use at `at`.
    pub fn record_usage(&mut self, report: &UsageReport, at: DateTime<Utc>, config: &PolicyConfig) {
        // The first report after a compaction shows what it gained.
        if self.compactions > 0 && self.used_after_compaction.is_none() && self.turns_since_compaction == 0 {
            self.used_after_compaction = Some(report.used);
        }
        self.used = report.used;
        if let Some(size) = report.size.filter(|size| *size > 0) {
            self.size = size;
        }
        self.cache_life = match (report.cache_life, self.cache_life) {
            (Some(declared), _) => CacheLifeSetting::Declared(declared),
            (None, CacheLifeSetting::Declared(kept)) => CacheLifeSetting::Declared(kept),
            (None, current) => self
                .observe_cache_life(report, at, config)
                .map_or(current, CacheLifeSetting::Observed),
        };
        match report.context_pressure_tokens {
            Some(0) => self.context_pressure_tokens = None,
            Some(tokens) => self.context_pressure_tokens = Some(tokens),
            None => {}
        }
    }

    fn observe_cache_life(&self, report: &UsageReport, at: DateTime<Utc>, config: &PolicyConfig) -> Option<CacheLife> {
        let gap = at - self.last_turn_at?;
        CacheLife::observed(gap, report.cached_read?, report.input?, config.observation_window())
    }

    /// A turn ended at `at`.
    pub fn end_turn(&mut self, turn: &TurnEnd, at: DateTime<Utc>) {
        let n = turn.user_messages;
        self.last_turn_at = Some(at);
        self.turns_since_compaction = self.turns_since_compaction.saturating_add(1);
        self.idle_compacted = false;
        self.rollover_declined = false;
        self.total_user_messages = self.total_user_messages.saturating_add(n);
        self.user_messages_since_boundary = self.user_messages_since_boundary.saturating_add(n);
        if turn.run_completed {
            self.runs_completed_since_boundary = self.runs_completed_since_boundary.saturating_add(1);
            self.user_messages_since_run_completed = 0;
        } else {
            self.user_messages_since_run_completed = self.user_messages_since_run_completed.saturating_add(n);
        }
    }

    /// A compaction succeeded at `at`; `by_host` when the caller asked for it.
    pub fn compacted(&mut self, by_host: bool, idle: bool, at: DateTime<Utc>) {
        self.compactions = self.compactions.saturating_add(1);
        self.turns_since_compaction = 0;
        self.used_after_compaction = None;
        if by_host {
            self.host_compactions_24h.retain(|t| at - *t < Duration::days(1));
            self.host_compactions_24h.push(at);
        }
        self.idle_compacted |= idle;
        self.user_messages_since_boundary = 0;
        self.runs_completed_since_boundary = 0;
        self.user_messages_since_run_completed = 0;
        self.failed_compactions_in_row = 0;
    }

    /// The user carried on instead of rolling over: the rollover is not
    /// offered again until the next turn (SPEC §2, the next-message moment).
    pub(crate) fn rollover_declined(&mut self) {
        self.rollover_declined = true;
    }

    /// A compaction attempt failed; nothing else advances.
    pub(crate) fn compaction_failed(&mut self) {
        self.failed_compactions_in_row = self.failed_compactions_in_row.saturating_add(1);
    }

    /// Host compactions in the 24 hours before `at`.
    pub(crate) fn host_compactions_within_a_day(&self, at: DateTime<Utc>) -> usize {
        self.host_compactions_24h
            .iter()
            .filter(|t| **t <= at && at - **t < Duration::days(1))
            .count()
    }

    /// The threshold of the context-pressure trigger, if any applies.
    pub(crate) fn context_pressure_threshold(&self, config: &PolicyConfig) -> Option<u64> {
        self.context_pressure_tokens.or(config.context_pressure_tokens)
    }

    pub fn effective_cache_life(&self, config: &PolicyConfig) -> CacheLife {
        self.cache_life.effective(config.default_cache_life)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-10-01T12:00:00Z").unwrap().to_utc()
    }

    fn usage(used: u64) -> UsageReport {
        UsageReport {
            used,
            ..UsageReport::default()
        }
    }

    #[test]
    fn usage_sets_used_and_only_a_positive_size() {
        let config = PolicyConfig::default();
        let mut c = Conversation::new(t0());
        c.record_usage(
            &UsageReport {
                used: 10,
                size: Some(1_000),
                ..usage(10)
            },
            t0(),
            &config,
        );
        assert_eq!((c.used, c.size), (10, 1_000));
        c.record_usage(
            &UsageReport {
                used: 20,
                size: Some(0),
                ..usage(20)
            },
            t0(),
            &config,
        );
        assert_eq!((c.used, c.size), (20, 1_000), "a zero size leaves the known one");
        c.record_usage(&usage(30), t0(), &config);
        assert_eq!((c.used, c.size), (30, 1_000));
    }

    #[test]
    fn the_first_report_after_a_compaction_is_what_it_gained() {
        let config = PolicyConfig::default();
        let mut c = Conversation::new(t0());
        c.record_usage(&usage(500), t0(), &config);
        assert_eq!(c.used_after_compaction, None, "no compaction yet");
        c.compacted(true, false, t0());
        c.record_usage(&usage(120), t0(), &config);
        c.record_usage(&usage(130), t0(), &config);
        assert_eq!(c.used_after_compaction, Some(120), "only the first report counts");
    }

    #[test]
    fn a_report_after_a_turn_does_not_count_as_what_a_compaction_gained() {
        let config = PolicyConfig::default();
        let mut c = Conversation::new(t0());
        c.compacted(true, false, t0());
        c.end_turn(&TurnEnd::default(), t0());
        c.record_usage(&usage(120), t0(), &config);
        assert_eq!(c.used_after_compaction, None);
    }

    #[test]
    fn a_declined_rollover_is_remembered_until_the_next_turn() {
        let mut c = Conversation::new(t0());
        let before = c.clone();
        c.rollover_declined();
        assert!(c.rollover_declined);
        assert_eq!(
            Conversation {
                rollover_declined: false,
                ..c.clone()
            },
            before,
            "nothing else changes"
        );
        c.end_turn(
            &TurnEnd {
                user_messages: 1,
                run_completed: true,
            },
            t0(),
        );
        assert!(!c.rollover_declined);
    }

    #[test]
    fn a_turn_end_counts_messages_and_clears_the_quiet_spell_flags() {
        let mut c = Conversation::new(t0());
        c.idle_compacted = true;
        c.rollover_declined = true;
        c.end_turn(
            &TurnEnd {
                user_messages: 3,
                run_completed: false,
            },
            t0(),
        );
        assert_eq!(c.last_turn_at, Some(t0()));
        assert_eq!(c.turns_since_compaction, 1);
        assert!(!c.idle_compacted && !c.rollover_declined);
        assert_eq!(c.total_user_messages, 3);
        assert_eq!(c.user_messages_since_boundary, 3);
        assert_eq!(c.user_messages_since_run_completed, 3);
        assert_eq!(c.runs_completed_since_boundary, 0);

        c.end_turn(
            &TurnEnd {
                user_messages: 2,
                run_completed: true,
            },
            t0(),
        );
        assert_eq!(c.total_user_messages, 5);
        assert_eq!(c.user_messages_since_run_completed, 0, "a clean completion resets it");
        assert_eq!(c.runs_completed_since_boundary, 1);
    }

    #[test]
    fn a_compaction_resets_what_counts_since_the_boundary() {
        let mut c = Conversation::new(t0());
        for _ in 0..4 {
            c.end_turn(
                &TurnEnd {
                    user_messages: 2,
                    run_completed: false,
                },
                t0(),
            );
        }
        c.failed_compactions_in_row = 2;
        c.compacted(false, true, t0());
        assert_eq!(c.compactions, 1);
        assert_eq!(c.turns_since_compaction, 0);
        assert_eq!(c.user_messages_since_boundary, 0);
        assert_eq!(c.user_messages_since_run_completed, 0);
        assert_eq!(c.runs_completed_since_boundary, 0);
        assert_eq!(c.failed_compactions_in_row, 0);
        assert_eq!(c.total_user_messages, 8, "the conversation's total stays");
        assert!(c.idle_compacted);
        assert!(c.host_compactions_24h.is_empty(), "not asked for by the host");
    }

    #[test]
    fn host_compactions_older_than_a_day_are_forgotten() {
        let mut c = Conversation::new(t0());
        c.compacted(true, false, t0());
        c.compacted(true, false, t0() + Duration::hours(23));
        c.compacted(true, false, t0() + Duration::hours(25));
        assert_eq!(
            c.host_compactions_24h,
            vec![t0() + Duration::hours(23), t0() + Duration::hours(25)]
        );
        assert_eq!(c.host_compactions_within_a_day(t0() + Duration::hours(25)), 2);
        assert_eq!(c.host_compactions_within_a_day(t0() + Duration::hours(49)), 0);
    }

    #[test]
    fn a_declared_cache_life_is_never_overridden_by_an_observation() {
        let config = PolicyConfig::default();
        let mut c = Conversation::new(t0());
        c.end_turn(&TurnEnd::default(), t0());
        c.record_usage(
            &UsageReport {
                cache_life: Some(CacheLife::FiveMinutes),
                ..usage(1)
            },
            t0(),
            &config,
        );
        let cached = UsageReport {
            input: Some(100),
            cached_read: Some(100),
            ..usage(1)
        };
        c.record_usage(&cached, t0() + Duration::minutes(20), &config);
        assert_eq!(c.cache_life, CacheLifeSetting::Declared(CacheLife::FiveMinutes));
    }

    #[test]
    fn an_observation_needs_a_previous_turn_and_both_counts() {
        let config = PolicyConfig::default();
        let cached = UsageReport {
            input: Some(100),
            cached_read: Some(100),
            ..usage(1)
        };
        let mut c = Conversation::new(t0());
        c.record_usage(&cached, t0() + Duration::minutes(20), &config);
        assert_eq!(c.cache_life, CacheLifeSetting::Default, "no turn has ended yet");

        c.end_turn(&TurnEnd::default(), t0());
        c.record_usage(
            &UsageReport {
                cached_read: None,
                ..cached
            },
            t0() + Duration::minutes(20),
            &config,
        );
        assert_eq!(c.cache_life, CacheLifeSetting::Default, "no cached_read");
        c.record_usage(&cached, t0() + Duration::minutes(20), &config);
        assert_eq!(c.cache_life, CacheLifeSetting::Observed(CacheLife::OneHour));
        let cold = UsageReport {
            cached_read: Some(0),
            ..cached
        };
        c.record_usage(&cold, t0() + Duration::minutes(20), &config);
        assert_eq!(
            c.cache_life,
            CacheLifeSetting::Observed(CacheLife::FiveMinutes),
            "a later observation wins"
        );
    }

    #[test]
    fn a_conversation_threshold_is_set_by_a_positive_value_and_cleared_by_zero() {
        let config = PolicyConfig {
            context_pressure_tokens: Some(900),
            ..PolicyConfig::default()
        };
        let mut c = Conversation::new(t0());
        assert_eq!(c.context_pressure_threshold(&config), Some(900));
        c.record_usage(
            &UsageReport {
                context_pressure_tokens: Some(500),
                ..usage(1)
            },
            t0(),
            &config,
        );
        assert_eq!(c.context_pressure_threshold(&config), Some(500));
        c.record_usage(&usage(1), t0(), &config);
        assert_eq!(c.context_pressure_threshold(&config), Some(500), "absent leaves it");
        c.record_usage(
            &UsageReport {
                context_pressure_tokens: Some(0),
                ..usage(1)
            },
            t0(),
            &config,
        );
        assert_eq!(c.context_pressure_threshold(&config), Some(900));
    }

    #[test]
    fn a_failed_attempt_counts_and_changes_nothing_else() {
        let mut c = Conversation::new(t0());
        c.end_turn(&TurnEnd::default(), t0());
        let before = c.clone();
        c.compaction_failed();
        assert_eq!(c.failed_compactions_in_row, 1);
        assert_eq!(
            Conversation {
                failed_compactions_in_row: 0,
                ..c
            },
            before
        );
    }

    #[test]
    fn counters_saturate_instead_of_wrapping() {
        let mut c = Conversation::new(t0());
        c.total_user_messages = u64::MAX - 1;
        c.end_turn(
            &TurnEnd {
                user_messages: 5,
                run_completed: false,
            },
            t0(),
        );
        assert_eq!(c.total_user_messages, u64::MAX);
    }
}
