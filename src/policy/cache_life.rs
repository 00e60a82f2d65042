//! How long the provider keeps a prompt cached, and what a usage report shows
//! about it (SPEC §2, "Cache life").

use chrono::Duration;

/// How long the provider keeps a prompt cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum CacheLife {
    FiveMinutes,
    OneHour,
}

named!(CacheLife);

impl CacheLife {
    pub(crate) fn duration(self) -> Duration {
        match self {
            Self::FiveMinutes => Duration::minutes(5),
            Self::OneHour => Duration::hours(1),
        }
    }

    /// What a call that came `gap` after the previous turn shows: a pause long
    /// enough to cool a five-minute cache but short of an hour tells the two
    /// apart by whether most of the input was read from cache.
    pub(crate) fn observed(gap: Duration, cached_read: u64, input: u64, window: ObservationWindow) -> Option<Self> {
        if gap <= window.after || gap >= window.before || input == 0 {
            return None;
        }
        // u128: both counts may be anywhere up to 2^63.
        Some(if u128::from(cached_read) * 2 >= u128::from(input) {
            Self::OneHour
        } else {
            Self::FiveMinutes
        })
    }
}

/// The pauses that tell the cache lives apart: longer than `after`, shorter
/// than `before` (both ends open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ObservationWindow {
    pub after: Duration,
    pub before: Duration,
}

/// Where a conversation's cache life came from; a declaration is never
/// overridden by an observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheLifeSetting {
    /// Nobody said and nothing showed: the server's default applies, whatever
    /// it is configured to be when the question is asked.
    #[default]
    Default,
    Declared(CacheLife),
    Observed(CacheLife),
}

impl CacheLifeSetting {
    /// The life the policy uses: `default` (the server's) unless one was
    /// declared or observed.
    pub(crate) fn effective(self, default: CacheLife) -> CacheLife {
        match self {
            Self::Default => default,
            Self::Declared(life) | Self::Observed(life) => life,
        }
    }

    pub const fn source(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Declared(_) => "declared",
            Self::Observed(_) => "observed",
        }
    }

    /// The stored life, `None` when the default applies.
    pub(crate) fn life(self) -> Option<CacheLife> {
        match self {
            Self::Default => None,
            Self::Declared(life) | Self::Observed(life) => Some(life),
        }
    }

    /// Rebuilds a setting from its stored pair; `None` for a pair that cannot
    /// have been written.
    pub(crate) fn from_parts(source: &str, life: Option<&str>) -> Option<Self> {
        let life = life.map(CacheLife::parse);
        match (source, life) {
            ("default", None) => Some(Self::Default),
            ("declared", Some(Some(life))) => Some(Self::Declared(life)),
            ("observed", Some(Some(life))) => Some(Self::Observed(life)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::PolicyConfig;

    fn observed(minutes: i64, cached_read: u64, input: u64) -> Option<CacheLife> {
        CacheLife::observed(
            Duration::minutes(minutes),
            cached_read,
            input,
            PolicyConfig::default().observation_window(),
        )
    }

    #[test]
    fn the_cache_life_shows_in_a_turn_after_a_pause() {
        assert_eq!(observed(20, 40_000, 41_000), Some(CacheLife::OneHour));
        assert_eq!(observed(20, 0, 41_000), Some(CacheLife::FiveMinutes));
        assert_eq!(observed(2, 0, 41_000), None, "both would still be warm");
        assert_eq!(observed(90, 0, 41_000), None, "both would be cold");
    }

    #[test]
    fn the_observation_window_is_open_at_both_ends() {
        assert_eq!(observed(6, 0, 10), None, "six minutes is not past six");
        assert_eq!(
            CacheLife::observed(
                Duration::minutes(6) + Duration::microseconds(1),
                0,
                10,
                PolicyConfig::default().observation_window()
            ),
            Some(CacheLife::FiveMinutes)
        );
        assert_eq!(observed(55, 10, 10), None, "fifty-five minutes is not short of it");
        assert_eq!(observed(54, 10, 10), Some(CacheLife::OneHour));
    }

    #[test]
    fn half_the_input_read_from_cache_is_enough_for_one_hour() {
        assert_eq!(observed(20, 50, 100), Some(CacheLife::OneHour));
        assert_eq!(observed(20, 49, 100), Some(CacheLife::FiveMinutes));
    }

    #[test]
    fn no_input_shows_nothing() {
        assert_eq!(observed(20, 10, 0), None);
    }

    #[test]
    fn counts_near_two_to_the_sixty_three_do_not_overflow() {
        let big = i64::MAX as u64;
        assert_eq!(observed(20, big, big), Some(CacheLife::OneHour));
    }

    #[test]
    fn a_setting_survives_its_stored_form() {
        let settings = [
            CacheLifeSetting::Default,
            CacheLifeSetting::Declared(CacheLife::OneHour),
            CacheLifeSetting::Observed(CacheLife::FiveMinutes),
        ];
        for setting in settings {
            let life = setting.life().map(CacheLife::as_str);
            assert_eq!(CacheLifeSetting::from_parts(setting.source(), life), Some(setting));
        }
        assert_eq!(CacheLifeSetting::from_parts("declared", None), None);
        assert_eq!(CacheLifeSetting::from_parts("default", Some("one_hour")), None);
    }

    #[test]
    fn the_default_follows_the_server_configuration() {
        let config = PolicyConfig {
            default_cache_life: CacheLife::OneHour,
            ..PolicyConfig::default()
        };
        assert_eq!(
            CacheLifeSetting::Default.effective(config.default_cache_life),
            CacheLife::OneHour
        );
        let declared = CacheLifeSetting::Declared(CacheLife::FiveMinutes);
        assert_eq!(declared.effective(config.default_cache_life), CacheLife::FiveMinutes);
    }
}
