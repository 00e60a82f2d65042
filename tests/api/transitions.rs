//! The store applies /usage and /turn-ended in SQL, one statement each; the
//! policy defines them in Rust. Drive both with the same reports and require
//! the same state after every one.

use chrono::{DateTime, Duration, Utc};
use compactd::policy::{CacheLife, Conversation, PolicyConfig, TurnEnd, UsageReport};
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

/// A small deterministic generator, so a failure replays exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn maybe(&mut self, percent: u64, value: impl FnOnce(&mut Self) -> u64) -> Option<u64> {
        if self.chance(percent) { Some(value(self)) } else { None }
    }
}

fn time(value: &Value) -> Option<DateTime<Utc>> {
    value
        .as_str()
        .map(|text| DateTime::parse_from_rfc3339(text).unwrap().to_utc())
}

fn assert_same(stored: &Value, expected: &Conversation, config: &PolicyConfig, step: usize) {
    let actual = Conversation {
        used: stored["used"].as_u64().unwrap(),
        size: stored["size"].as_u64().unwrap(),
        cache_life: expected.cache_life,
        context_pressure_tokens: stored["context_pressure_tokens"].as_u64(),
        created_at: time(&stored["created_at"]).unwrap(),
        last_turn_at: time(&stored["last_turn_at"]),
        turns_since_compaction: stored["turns_since_compaction"].as_u64().unwrap(),
        compactions: stored["compactions"].as_u64().unwrap(),
        host_compactions_24h: stored["host_compactions_24h"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(time)
            .collect(),
        used_after_compaction: stored["used_after_compaction"].as_u64(),
        idle_compacted: stored["idle_compacted"].as_bool().unwrap(),
        rollover_declined: stored["rollover_declined"].as_bool().unwrap(),
        total_user_messages: stored["total_user_messages"].as_u64().unwrap(),
        user_messages_since_boundary: stored["user_messages_since_boundary"].as_u64().unwrap(),
        runs_completed_since_boundary: stored["runs_completed_since_boundary"].as_u64().unwrap(),
        user_messages_since_run_completed: stored["user_messages_since_run_completed"].as_u64().unwrap(),
        failed_compactions_in_row: stored["failed_compactions_in_row"].as_u64().unwrap(),
    };
    assert_eq!(actual, *expected, "step {step}");
    assert_eq!(
        stored["cache_life"],
        expected.effective_cache_life(config).as_str(),
        "step {step}"
    );
    assert_eq!(stored["cache_life_source"], expected.cache_life.source(), "step {step}");
}

/// Writes the policy's state over the stored one: how a compaction (which
/// HTTP cannot do yet) is arranged.
async fn overwrite(app: &TestApp, c: &Conversation) {
    sqlx::query(
        "UPDATE conversations SET compactions = $1, turns_since_compaction = $2, used_after_compaction = $3,
                host_compactions_24h = $4, idle_compacted = $5, user_messages_since_boundary = $6,
                runs_completed_since_boundary = $7, user_messages_since_run_completed = $8,
                failed_compactions_in_row = $9",
    )
    .bind(c.compactions as i64)
    .bind(c.turns_since_compaction as i64)
    .bind(c.used_after_compaction.map(|n| n as i64))
    .bind(&c.host_compactions_24h)
    .bind(c.idle_compacted)
    .bind(c.user_messages_since_boundary as i64)
    .bind(c.runs_completed_since_boundary as i64)
    .bind(c.user_messages_since_run_completed as i64)
    .bind(c.failed_compactions_in_row as i64)
    .execute(&app.pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn the_stored_transitions_equal_the_policys() {
    let app = spawn_app().await;
    let config = PolicyConfig::default();
    let gaps = [0, 30, 180, 361, 420, 1200, 3240, 3300, 3360, 7200, 32400];
    let mut rng = Rng(0x5eed_c0ff_ee15_600d);
    let mut at = DateTime::parse_from_rfc3339("2026-10-01T08:00:00Z").unwrap().to_utc();
    let mut expected: Option<Conversation> = None;

    for step in 0..400 {
        at += Duration::seconds(gaps[rng.below(gaps.len() as u64) as usize]);
        let stamp = at.to_rfc3339();
        let roll = rng.below(100);
        if roll < 45 {
            let report = UsageReport {
                used: rng.below(300_000),
                size: rng.maybe(50, |r| [0, 128_000, 200_000, 1_000_000][r.below(4) as usize]),
                input: rng.maybe(70, |r| r.below(100_000)),
                cached_read: rng.maybe(70, |r| r.below(100_000)),
                cache_written: rng.maybe(30, |r| r.below(10_000)),
                output: rng.maybe(30, |r| r.below(10_000)),
                cache_life: rng.chance(4).then(|| {
                    if rng.chance(50) {
                        CacheLife::OneHour
                    } else {
                        CacheLife::FiveMinutes
                    }
                }),
                context_pressure_tokens: rng.maybe(10, |r| r.below(3) * 100_000),
            };
            let mut body = json!({"conversation_id": "c", "used": report.used, "at": stamp});
            for (field, value) in [
                ("size", report.size),
                ("input", report.input),
                ("cached_read", report.cached_read),
                ("cache_written", report.cache_written),
                ("output", report.output),
                ("context_pressure_tokens", report.context_pressure_tokens),
            ] {
                if let Some(value) = value {
                    body[field] = json!(value);
                }
            }
            if let Some(life) = report.cache_life {
                body["cache_life"] = json!(life.as_str());
            }
            let stored = app.report("/usage", body).await;
            let c = expected.get_or_insert_with(|| Conversation::new(at));
            c.record_usage(&report, at, &config);
            assert_same(&stored, c, &config, step);
        } else if roll < 92 {
            let turn = TurnEnd {
                user_messages: rng.below(4),
                run_completed: rng.chance(60),
            };
            let body = json!({"conversation_id": "c", "user_messages": turn.user_messages,
                              "run_completed": turn.run_completed, "at": stamp});
            let stored = app.report("/turn-ended", body).await;
            let c = expected.get_or_insert_with(|| Conversation::new(at));
            c.end_turn(&turn, at);
            assert_same(&stored["state"], c, &config, step);
        } else if let Some(c) = expected.as_mut() {
            c.compacted(rng.chance(70), rng.chance(20), at);
            overwrite(&app, c).await;
        }
    }
    let c = expected.expect("some reports were made");
    assert!(
        c.compactions > 0 && c.used_after_compaction.is_some(),
        "the run reached the after-compaction path"
    );
}
