//! When each replayed turn happens: at the time the session recorded for it
//! (Claude Code's and Codex's records carry one), so a replay into a running
//! service shows where the session happened and `/due` measures the pauses it
//! had. A turn the session gives no time for comes a minute after the one
//! before; a session with no times at all starts at a fixed moment, so two
//! replays of it are alike. Shifted, the whole session keeps its pauses and
//! ends now.

use chrono::{DateTime, Duration, Utc};

use crate::sessions::Session;

/// Where a session with no recorded times starts.
pub(super) fn fixed_start() -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp(1_767_225_600, 0).unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}

/// The moment each turn of `session` ends, never earlier than the turn
/// before it; with `ending_at`, every moment moved by the same amount so that
/// the last is `ending_at`.
pub(super) fn turn_times(session: &Session, ending_at: Option<DateTime<Utc>>) -> Vec<DateTime<Utc>> {
    let recorded: Vec<Option<DateTime<Utc>>> = session.turns.iter().map(|turn| turn.ended_at).collect();
    // Before the first recorded time, turns count back from it a minute each.
    let start = recorded
        .iter()
        .enumerate()
        .find_map(|(index, at)| at.map(|at| at - minutes(index)))
        .unwrap_or_else(fixed_start);
    let mut times: Vec<DateTime<Utc>> = Vec::with_capacity(recorded.len());
    for at in recorded {
        let next = match (times.last(), at) {
            (Some(previous), Some(at)) => at.max(*previous),
            (Some(previous), None) => *previous + minutes(1),
            (None, at) => at.unwrap_or(start),
        };
        times.push(next);
    }
    match (ending_at, times.last()) {
        (Some(end), Some(last)) => {
            let shift = end - *last;
            times.into_iter().map(|at| at + shift).collect()
        }
        _ => times,
    }
}

/// A minute after the session's last turn (or its start, with none): when
/// the replay's final compaction runs.
pub(super) fn after(times: &[DateTime<Utc>]) -> DateTime<Utc> {
    times.last().copied().unwrap_or_else(fixed_start) + minutes(1)
}

fn minutes(count: usize) -> Duration {
    Duration::minutes(i64::try_from(count).unwrap_or(i64::MAX / 60_000))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::{Format, Turn};

    fn session(times: &[Option<&str>]) -> Session {
        Session {
            name: "s".into(),
            format: Format::ClaudeCode,
            turns: times
                .iter()
                .map(|at| Turn {
                    ended_at: at.map(|at| at.parse().unwrap()),
                    ..Turn::default()
                })
                .collect(),
            harness_summaries: Vec::new(),
            window: None,
            model: None,
        }
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn turns_happen_when_the_session_says() {
        let times = turn_times(
            &session(&[Some("2025-03-10T09:00:00Z"), Some("2025-03-10T11:30:00Z")]),
            None,
        );
        assert_eq!(times, [at("2025-03-10T09:00:00Z"), at("2025-03-10T11:30:00Z")]);
    }

    #[test]
    fn a_turn_without_a_time_comes_a_minute_after_the_one_before() {
        let times = turn_times(
            &session(&[None, Some("2025-03-10T09:00:00Z"), None, Some("2025-03-10T08:00:00Z")]),
            None,
        );
        assert_eq!(
            times,
            [
                at("2025-03-10T08:59:00Z"),
                at("2025-03-10T09:00:00Z"),
                at("2025-03-10T09:01:00Z"),
                // Never back in time.
                at("2025-03-10T09:01:00Z"),
            ]
        );
    }

    #[test]
    fn a_session_without_times_starts_at_a_fixed_moment() {
        let times = turn_times(&session(&[None, None]), None);
        assert_eq!(times, [fixed_start(), fixed_start() + Duration::minutes(1)]);
        assert_eq!(after(&times), fixed_start() + Duration::minutes(2));
        assert_eq!(after(&[]), fixed_start() + Duration::minutes(1));
    }

    #[test]
    fn shifted_the_session_keeps_its_pauses_and_ends_when_asked() {
        let times = turn_times(
            &session(&[Some("2025-03-10T09:00:00Z"), Some("2025-03-10T11:30:00Z")]),
            Some(at("2026-12-05T08:00:00Z")),
        );
        assert_eq!(times, [at("2026-12-05T05:30:00Z"), at("2026-12-05T08:00:00Z")]);
        assert!(turn_times(&session(&[]), Some(at("2026-12-05T08:00:00Z"))).is_empty());
    }
}
