//! When to try the upstream again: full-jitter exponential backoff, a server's
//! `Retry-After` honoured (seconds or HTTP-date) up to a cap, and never a wait
//! that would end past the overall deadline.

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, RETRY_AFTER};

use super::settings::RetryPolicy;

impl RetryPolicy {
    /// Full jitter: anywhere between zero and the attempt's ceiling, so that
    /// many clients failing together do not retry together.
    pub(crate) fn backoff(&self, attempt: u32, unit_random: f64) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(2_u32.saturating_pow(attempt.min(16)))
            .min(self.cap);
        ceiling.mul_f64(unit_random.clamp(0.0, 1.0))
    }

    /// The wait before the next attempt, or `None` when it should not be made:
    /// the server asked for longer than the cap, or the wait would pass the
    /// deadline.
    pub(crate) fn wait(
        &self,
        attempt: u32,
        retry_after: Option<Duration>,
        remaining: Duration,
        unit_random: f64,
    ) -> Option<Duration> {
        if attempt + 1 >= self.max_attempts {
            return None;
        }
        let wait = match retry_after {
            Some(asked) if asked > self.retry_after_cap => return None,
            Some(asked) => asked,
            None => self.backoff(attempt, unit_random),
        };
        (wait < remaining).then_some(wait)
    }
}

/// `Retry-After` as seconds or as an HTTP-date, relative to `now`.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn retry_after_is_read_as_seconds_or_as_a_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(retry_after(&headers("7"), now), Some(Duration::from_secs(7)));
        assert_eq!(
            retry_after(&headers("Wed, 21 Oct 2015 07:28:10 GMT"), now),
            Some(Duration::from_secs(10))
        );
        assert_eq!(
            retry_after(&headers("Wed, 21 Oct 2015 07:27:00 GMT"), now),
            Some(Duration::ZERO),
            "a past date"
        );
        assert_eq!(retry_after(&headers("soon"), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }

    #[test]
    fn backoff_is_full_jitter_under_a_doubling_capped_ceiling() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.backoff(0, 1.0), Duration::from_millis(250));
        assert_eq!(policy.backoff(2, 1.0), Duration::from_secs(1));
        assert_eq!(policy.backoff(10, 1.0), Duration::from_secs(8), "capped");
        assert_eq!(policy.backoff(3, 0.0), Duration::ZERO);
        assert_eq!(policy.backoff(3, 0.5), Duration::from_secs(1));
    }

    #[test]
    fn a_server_asking_for_a_wait_gets_it_up_to_the_cap() {
        let policy = RetryPolicy::default();
        let plenty = Duration::from_secs(60);
        assert_eq!(
            policy.wait(0, Some(Duration::from_secs(3)), plenty, 0.9),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            policy.wait(0, Some(Duration::from_secs(31)), plenty, 0.9),
            None,
            "past the cap: give up"
        );
    }

    #[test]
    fn no_wait_ends_past_the_deadline_and_attempts_are_bounded() {
        let policy = RetryPolicy::default();
        assert_eq!(
            policy.wait(0, Some(Duration::from_secs(5)), Duration::from_secs(4), 0.5),
            None
        );
        assert_eq!(
            policy.wait(3, None, Duration::from_secs(60), 0.5),
            None,
            "the fourth attempt was the last"
        );
        assert!(policy.wait(2, None, Duration::from_secs(60), 0.5).is_some());
    }
}
