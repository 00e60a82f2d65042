//! Each key's request rate (SPEC §6: generous enough never to slow an honest
//! agent), with governor's GCRA: a steady rate and a burst above it.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

pub(crate) struct RateLimits {
    limiter: Option<DefaultKeyedRateLimiter<String>>,
    clock: DefaultClock,
}

impl RateLimits {
    /// `per_second` requests a second with bursts to `burst`; 0 turns it off.
    pub(crate) fn new(per_second: u32, burst: u32) -> Self {
        let limiter = NonZeroU32::new(per_second).map(|rate| {
            let burst = NonZeroU32::new(burst.max(per_second)).unwrap_or(rate);
            RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst))
        });
        Self {
            limiter,
            clock: DefaultClock::default(),
        }
    }

    /// `Err(wait)` when `key_id` must wait that long before its next request.
    pub(crate) fn check(&self, key_id: &str) -> Result<(), Duration> {
        let Some(limiter) = &self.limiter else { return Ok(()) };
        limiter
            .check_key(&key_id.to_owned())
            .map_err(|not_until| not_until.wait_time_from(self.clock.now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_past_the_limit_is_told_how_long_to_wait() {
        let limits = RateLimits::new(2, 3);
        assert!((0..3).all(|_| limits.check("k1").is_ok()));
        let wait = limits.check("k1").unwrap_err();
        assert!(wait > Duration::ZERO && wait <= Duration::from_millis(500), "{wait:?}");
        assert!(limits.check("k2").is_ok(), "each key has its own budget");
    }

    #[test]
    fn zero_turns_the_limit_off() {
        let limits = RateLimits::new(0, 0);
        assert!((0..10_000).all(|_| limits.check("k").is_ok()));
    }
}
