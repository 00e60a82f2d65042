use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

async fn idle_one_hour(app: &TestApp, id: &str, used: u64, last_turn_at: &str) {
    app.report(
        "/usage",
        json!({"conversation_id": id, "used": used, "size": 1000000, "cache_life": "one_hour"}),
    )
    .await;
    app.report("/turn-ended", json!({"conversation_id": id, "at": last_turn_at}))
        .await;
}

fn ids(answer: &Value) -> Vec<&str> {
    answer["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["conversation_id"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_conversations_whose_one_hour_cache_is_about_to_expire_are_due_while_idle() {
    let app = spawn_app().await;
    idle_one_hour(&app, "due-a", 150_000, "2026-10-18T09:01:00Z").await;
    idle_one_hour(&app, "due-b", 150_000, "2026-10-18T09:02:30Z").await;
    idle_one_hour(&app, "too-recent", 150_000, "2026-10-18T09:02:31Z").await;
    idle_one_hour(&app, "expired", 150_000, "2026-10-18T08:50:00Z").await;
    idle_one_hour(&app, "small", 50_000, "2026-10-18T09:02:00Z").await;
    app.report("/usage", json!({"conversation_id": "five-minutes", "used": 150000}))
        .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "five-minutes", "at": "2026-10-18T09:02:00Z"}),
    )
    .await;

    let (status, answer) = app.get_json("/due?moment=idle&at=2026-10-18T09:57:30Z").await;

    assert_eq!(status, 200, "{answer}");
    assert_eq!(ids(&answer), ["due-a", "due-b"]);
    assert_eq!(answer["conversations"][0]["trigger"], "idle_cache_expiry");
    assert_eq!(answer["conversations"][0]["decision"], "compact");
    assert_eq!(answer["moment"], "idle");
}

#[tokio::test]
async fn a_guarded_conversation_is_not_due_and_paging_goes_past_it() {
    let app = spawn_app().await;
    idle_one_hour(&app, "guarded", 150_000, "2026-10-18T09:01:00Z").await;
    idle_one_hour(&app, "due", 150_000, "2026-10-18T09:02:00Z").await;
    sqlx::query(
        "UPDATE conversations SET compactions = 1, turns_since_compaction = 1 WHERE conversation_id = 'guarded'",
    )
    .execute(&app.pool)
    .await
    .unwrap();

    let (status, answer) = app.get_json("/due?at=2026-10-18T09:57:30Z&limit=1").await;

    assert_eq!(status, 200, "{answer}");
    assert_eq!(ids(&answer), ["due"]);
}

#[tokio::test]
async fn due_answers_exactly_what_decide_would() {
    let app = spawn_app().await;
    for (i, minute) in (0..60).step_by(3).enumerate() {
        idle_one_hour(
            &app,
            &format!("c{i:02}"),
            100_000 + i as u64,
            &format!("2026-10-18T09:{minute:02}:00Z"),
        )
        .await;
    }
    let at = "2026-10-18T10:01:00Z";

    let (_, answer) = app.get_json(&format!("/due?moment=idle&at={at}&limit=1000")).await;

    let mut expected = Vec::new();
    for i in 0..20 {
        let id = format!("c{i:02}");
        let decision = app
            .report("/decide", json!({"conversation_id": id, "moment": "idle", "at": at}))
            .await;
        if decision["decision"] != "keep" {
            expected.push(id);
        }
    }
    assert_eq!(ids(&answer), expected);
    assert_eq!(expected.len(), 2, "turns ended 58 and 55 minutes before: {expected:?}");
}

#[tokio::test]
async fn cold_caches_are_due_at_the_next_message() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "cold", "used": 150000}))
        .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "cold", "at": "2026-10-18T09:00:00Z"}),
    )
    .await;
    app.report(
        "/usage",
        json!({"conversation_id": "warm", "used": 150000, "cache_life": "one_hour"}),
    )
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "warm", "at": "2026-10-18T09:00:00Z"}),
    )
    .await;

    let (_, answer) = app.get_json("/due?moment=next_message&at=2026-10-18T09:10:00Z").await;

    assert_eq!(ids(&answer), ["cold"]);
    assert_eq!(answer["conversations"][0]["trigger"], "cache_cold");
}

#[tokio::test]
async fn turn_end_is_not_a_moment_to_poll() {
    let app = spawn_app().await;

    let (status, problem) = app.get_json("/due?moment=turn_end").await;

    assert_eq!(status, 422);
    assert_eq!(problem["field"], "moment");
}

#[tokio::test]
async fn a_conversation_that_rolled_over_is_sent_to_its_successor_and_never_due() {
    let app = spawn_app().await;
    // Each would be due at the next message, and idle, and full at a turn's end.
    for id in ["old", "other"] {
        idle_one_hour(&app, id, 990_000, "2026-10-18T09:01:00Z").await;
        let asked = app
            .report("/decide", json!({"conversation_id": id, "at": "2026-10-18T09:01:30Z"}))
            .await;
        assert_ne!(asked["decision"], "keep", "{asked}");
    }
    app.report(
        "/handoff",
        json!({"conversation_id": "old", "successor_id": "new", "at": "2026-10-18T09:02:00Z"}),
    )
    .await;
    let events = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM events WHERE conversation_id = 'old'")
            .fetch_one(&app.pool)
            .await
            .unwrap()
    };
    let logged = events().await;

    // The one-hour cache about to expire (idle), gone cold (next message).
    let at = |moment: &str| {
        if moment == "next_message" {
            "2026-10-18T10:05:00Z"
        } else {
            "2026-10-18T09:57:30Z"
        }
    };
    for moment in ["turn_end", "idle", "next_message"] {
        let answer = app
            .report(
                "/decide",
                json!({"conversation_id": "old", "moment": moment, "at": at(moment)}),
            )
            .await;
        assert_eq!(answer["decision"], "keep", "{moment}: {answer}");
        assert_eq!(answer["reason"], "rolled over to new: carry on there", "{moment}");
        assert!(answer["trigger"].is_null() && answer["guard"].is_null(), "{answer}");
        assert_eq!(answer["state"]["successor_id"], "new", "{answer}");
        assert!(answer["state"]["pending_decision"].is_null(), "{answer}");
    }
    assert_eq!(events().await, logged, "a keep logs nothing");
    for moment in ["idle", "next_message"] {
        let (status, answer) = app.get_json(&format!("/due?moment={moment}&at={}", at(moment))).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(ids(&answer), ["other"], "{moment}: only the one still going is due");
    }
    // What the dashboard reads: nothing pending on it.
    let (status, state) = app.get_json("/conversations/old").await;
    assert_eq!(status, 200, "{state}");
    assert!(state["pending_decision"].is_null(), "{state}");
    assert_eq!(state["successor_id"], "new");
}
