use compactd::policy::PolicyConfig;
use compactd::summary::write::KEEP_INSTRUCTIONS;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn an_unknown_conversation_is_kept_and_not_created() {
    let app = spawn_app().await;

    let answer = app.report("/decide", json!({"conversation_id": "never"})).await;

    assert_eq!(answer["decision"], "keep");
    assert!(answer["reason"].as_str().unwrap().contains("no usage reported yet"));
    assert!(answer["state"].is_null());
    assert_eq!(app.conversation_count().await, 0);
}

#[tokio::test]
async fn a_turn_past_the_trigger_compacts() {
    let app = spawn_app().await;
    app.report(
        "/usage",
        json!({"conversation_id": "c1", "used": 150000, "size": 200000}),
    )
    .await;
    app.report("/turn-ended", json!({"conversation_id": "c1"})).await;

    let answer = app
        .report(
            "/decide",
            json!({"conversation_id": "c1", "moment": "turn_end", "at": "2026-10-18T09:00:00Z"}),
        )
        .await;

    assert_eq!(answer["decision"], "compact");
    assert_eq!(answer["trigger"], "threshold_exceeded");
    assert!(answer["guard"].is_null());
    assert_eq!(answer["keep_instructions"], KEEP_INSTRUCTIONS);
    assert_eq!(
        answer["reason"],
        "Compact now: 150,000 tokens in use reached the compaction trigger of 150,000 for a 200,000-token window."
    );
    let pending = &answer["state"]["pending_decision"];
    assert_eq!(pending["decision"], "compact");
    assert_eq!(pending["event_seq"], 3);
    assert_eq!(app.state("c1").await["pending_decision"], *pending);
    let events = app.events("c1").await;
    assert_eq!(events.len(), 3);
    assert_eq!(events[2]["kind"], "decision");
    assert_eq!(events[2]["at"], "2026-10-18T09:00:00Z");
    assert_eq!(events[2]["payload"]["trigger"], "threshold_exceeded");
}

#[tokio::test]
async fn a_keep_is_not_logged_and_leaves_the_pending_decision() {
    let app = spawn_app().await;
    app.report(
        "/usage",
        json!({"conversation_id": "c1", "used": 190000, "size": 200000}),
    )
    .await;
    app.report("/decide", json!({"conversation_id": "c1"})).await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 1000}))
        .await;

    let answer = app.report("/decide", json!({"conversation_id": "c1"})).await;

    assert_eq!(answer["decision"], "keep");
    assert!(answer["keep_instructions"].is_null());
    assert_eq!(answer["state"]["pending_decision"]["trigger"], "emergency");
    assert_eq!(app.events("c1").await.len(), 3, "usage, decision, usage");
}

#[tokio::test]
async fn a_guarded_size_trigger_rolls_over() {
    let app = spawn_app().await;
    app.report(
        "/usage",
        json!({"conversation_id": "c1", "used": 190000, "size": 200000}),
    )
    .await;
    sqlx::query("UPDATE conversations SET failed_compactions_in_row = 3")
        .execute(&app.pool)
        .await
        .unwrap();

    let answer = app.report("/decide", json!({"conversation_id": "c1"})).await;

    assert_eq!(
        (&answer["decision"], &answer["trigger"], &answer["guard"]),
        (&json!("rollover"), &json!("emergency"), &json!("failing"))
    );
    assert!(answer["keep_instructions"].is_null());
}

#[tokio::test]
async fn a_one_hour_cache_about_to_expire_compacts_while_idle() {
    let app = spawn_app().await;
    app.report(
        "/usage",
        json!({"conversation_id": "c1", "used": 120000, "size": 1000000, "cache_life": "one_hour"}),
    )
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "at": "2026-10-18T09:00:00Z"}),
    )
    .await;
    let idle_at = |at: &str| json!({"conversation_id": "c1", "moment": "idle", "at": at});

    let early = app.report("/decide", idle_at("2026-10-18T09:30:00Z")).await;
    let due = app.report("/decide", idle_at("2026-10-18T09:56:00Z")).await;
    let cold = app.report("/decide", idle_at("2026-10-18T10:01:00Z")).await;

    assert_eq!(early["decision"], "keep");
    assert_eq!(
        (&due["decision"], &due["trigger"]),
        (&json!("compact"), &json!("idle_cache_expiry"))
    );
    assert_eq!(due["moment"], "idle");
    assert_eq!(cold["decision"], "keep");
}

#[tokio::test]
async fn a_cold_cache_rolls_over_at_the_next_message() {
    let app = spawn_app().await;
    app.report(
        "/usage",
        json!({"conversation_id": "c1", "used": 120000, "size": 1000000}),
    )
    .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "at": "2026-10-18T09:00:00Z"}),
    )
    .await;

    let answer = app
        .report(
            "/decide",
            json!({"conversation_id": "c1", "moment": "next_message", "at": "2026-10-18T09:06:00Z"}),
        )
        .await;

    assert_eq!(
        (&answer["decision"], &answer["trigger"]),
        (&json!("rollover"), &json!("cache_cold"))
    );
    assert_eq!(answer["state"]["pending_decision"]["moment"], "next_message");
}

#[tokio::test]
async fn the_server_context_pressure_threshold_applies_and_a_conversation_one_wins() {
    let app = spawn_app_with(PolicyConfig {
        context_pressure_tokens: Some(50_000),
        ..PolicyConfig::default()
    })
    .await;
    app.report("/usage", json!({"conversation_id": "server", "used": 60000}))
        .await;
    app.report(
        "/usage",
        json!({"conversation_id": "own", "used": 60000, "context_pressure_tokens": 70000}),
    )
    .await;

    let server = app.report("/decide", json!({"conversation_id": "server"})).await;
    let own = app.report("/decide", json!({"conversation_id": "own"})).await;

    assert_eq!(
        (&server["decision"], &server["trigger"]),
        (&json!("compact"), &json!("context_pressure"))
    );
    assert_eq!(own["decision"], "keep");
}

#[tokio::test]
async fn unfinished_turns_compact_an_otherwise_quiet_conversation() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 1000, "size": 200000}))
        .await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "user_messages": 8, "run_completed": false}),
    )
    .await;

    let answer = app.report("/decide", json!({"conversation_id": "c1"})).await;

    assert_eq!(
        (&answer["decision"], &answer["trigger"]),
        (&json!("compact"), &json!("unfinished_turns"))
    );
}
