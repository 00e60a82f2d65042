//! The thresholds of SPEC §2 as flags, named after their terms; their
//! defaults are the policy's.

use chrono::Duration;
use clap::Args;

use crate::policy::{CacheLife, PolicyConfig};

fn default_policy() -> PolicyConfig {
    PolicyConfig::default()
}

/// The thresholds of SPEC §2, named after their terms.
#[derive(Debug, Clone, Args)]
pub struct PolicyArgs {
    /// Context-pressure trigger (§2 trigger 2): off unless set.
    #[arg(long, env = "COMPACTD_CONTEXT_PRESSURE_TOKENS", value_parser = clap::value_parser!(u64).range(1..=i64::MAX as u64))]
    pub context_pressure_tokens: Option<u64>,
    /// Cache life of conversations that neither declared nor showed one.
    #[arg(long, env = "COMPACTD_DEFAULT_CACHE_LIFE", default_value = "five_minutes", value_parser = parse_cache_life)]
    pub default_cache_life: CacheLife,
    /// The turn-end trigger is three quarters of the window, at most this.
    #[arg(long, env = "COMPACTD_TRIGGER_CAP_TOKENS", default_value_t = default_policy().trigger_cap_tokens)]
    pub trigger_cap_tokens: u64,
    /// Context use (percent of the window) that is an emergency.
    #[arg(long, env = "COMPACTD_EMERGENCY_PERCENT", default_value_t = default_policy().emergency_percent,
          value_parser = clap::value_parser!(u64).range(1..=100))]
    pub emergency_percent: u64,
    /// User messages after the last clean run completion that trigger.
    #[arg(long, env = "COMPACTD_UNFINISHED_TURNS", default_value_t = default_policy().unfinished_turns)]
    pub unfinished_turns: u64,
    /// Whole days of age that, with enough user messages, trigger.
    #[arg(long, env = "COMPACTD_AGE_DAYS", default_value_t = default_policy().age_days,
          value_parser = clap::value_parser!(i64).range(0..=36_500))]
    pub age_days: i64,
    /// User messages that, with enough age, trigger.
    #[arg(long, env = "COMPACTD_AGE_USER_MESSAGES", default_value_t = default_policy().age_user_messages)]
    pub age_user_messages: u64,
    /// Loop guard `too_many_today`: host compactions within 24 hours.
    #[arg(long, env = "COMPACTD_GUARD_HOST_COMPACTIONS_PER_DAY",
          default_value_t = default_policy().guard_host_compactions_per_day)]
    pub guard_host_compactions_per_day: usize,
    /// Loop guard `too_little_gained`: context left after a compaction, percent of the trigger.
    #[arg(long, env = "COMPACTD_GUARD_GAIN_PERCENT", default_value_t = default_policy().guard_gain_percent)]
    pub guard_gain_percent: u64,
    /// Loop guard `too_soon`: turns since the last compaction below which it holds.
    #[arg(long, env = "COMPACTD_GUARD_MIN_TURNS", default_value_t = default_policy().guard_min_turns)]
    pub guard_min_turns: u64,
    /// Loop guard `failing`: consecutive failed compaction attempts.
    #[arg(long, env = "COMPACTD_GUARD_FAILED_ATTEMPTS", default_value_t = default_policy().guard_failed_attempts)]
    pub guard_failed_attempts: u64,
    /// Idle compaction and rollover pay off past this many tokens.
    #[arg(long, env = "COMPACTD_LARGE_CONTEXT_TOKENS", default_value_t = default_policy().large_context_tokens)]
    pub large_context_tokens: u64,
    /// Minutes before a one-hour cache expires that an idle conversation compacts.
    #[arg(long, env = "COMPACTD_IDLE_LEAD_MINUTES", default_value_t = default_policy().idle_lead.num_minutes(),
          value_parser = clap::value_parser!(i64).range(1..=59))]
    pub idle_lead_minutes: i64,
    /// Hours away after which a many-times-compacted conversation rolls over.
    #[arg(long, env = "COMPACTD_LONG_AWAY_HOURS", default_value_t = default_policy().long_away.num_hours(),
          value_parser = clap::value_parser!(i64).range(1..=87_600))]
    pub long_away_hours: i64,
    /// Compactions behind a conversation for a long absence to roll it over.
    #[arg(long, env = "COMPACTD_LONG_AWAY_COMPACTIONS", default_value_t = default_policy().long_away_compactions)]
    pub long_away_compactions: u64,
    /// A pause must exceed this many minutes to show the cache life.
    #[arg(long, env = "COMPACTD_OBSERVE_MIN_GAP_MINUTES", default_value_t = default_policy().observe_min_gap.num_minutes(),
          value_parser = clap::value_parser!(i64).range(0..=1440))]
    pub observe_min_gap_minutes: i64,
    /// A pause must be shorter than this many minutes to show the cache life.
    #[arg(long, env = "COMPACTD_OBSERVE_MAX_GAP_MINUTES", default_value_t = default_policy().observe_max_gap.num_minutes(),
          value_parser = clap::value_parser!(i64).range(1..=1440))]
    pub observe_max_gap_minutes: i64,
    /// A summary is prepared ahead at this percent of the size trigger (0: never).
    #[arg(long, env = "COMPACTD_PREPARE_AT_PERCENT", default_value_t = default_policy().prepare_at_percent,
          value_parser = clap::value_parser!(u64).range(0..=100))]
    pub prepare_at_percent: u64,
    /// A prepared summary is merged with the turns since while they count at most this percent of the trigger.
    #[arg(long, env = "COMPACTD_PREPARE_MAX_DELTA_PERCENT", default_value_t = default_policy().prepare_max_delta_percent,
          value_parser = clap::value_parser!(u64).range(1..=100))]
    pub prepare_max_delta_percent: u64,
}

fn parse_cache_life(name: &str) -> Result<CacheLife, String> {
    CacheLife::parse(name).ok_or_else(|| format!("`{name}` is not five_minutes or one_hour"))
}

impl From<&PolicyArgs> for PolicyConfig {
    fn from(args: &PolicyArgs) -> Self {
        Self {
            trigger_cap_tokens: args.trigger_cap_tokens,
            emergency_percent: args.emergency_percent,
            context_pressure_tokens: args.context_pressure_tokens,
            unfinished_turns: args.unfinished_turns,
            age_days: args.age_days,
            age_user_messages: args.age_user_messages,
            guard_host_compactions_per_day: args.guard_host_compactions_per_day,
            guard_gain_percent: args.guard_gain_percent,
            guard_min_turns: args.guard_min_turns,
            guard_failed_attempts: args.guard_failed_attempts,
            large_context_tokens: args.large_context_tokens,
            idle_lead: Duration::minutes(args.idle_lead_minutes),
            long_away: Duration::hours(args.long_away_hours),
            long_away_compactions: args.long_away_compactions,
            observe_min_gap: Duration::minutes(args.observe_min_gap_minutes),
            observe_max_gap: Duration::minutes(args.observe_max_gap_minutes),
            default_cache_life: args.default_cache_life,
            prepare_at_percent: args.prepare_at_percent,
            prepare_max_delta_percent: args.prepare_max_delta_percent,
        }
    }
}
