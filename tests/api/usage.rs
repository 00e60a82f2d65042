use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn a_first_usage_report_creates_the_conversation() {
    let app = spawn_app().await;

    let state = app
        .report(
            "/usage",
            json!({"conversation_id": "c1", "used": 1200, "size": 200000, "at": "2026-10-18T09:00:00Z"}),
        )
        .await;

    assert_eq!(state["conversation_id"], "c1");
    assert_eq!(state["used"], 1200);
    assert_eq!(state["size"], 200000);
    assert_eq!(state["created_at"], "2026-10-18T09:00:00Z");
    assert_eq!(state["cache_life"], "five_minutes");
    assert_eq!(state["cache_life_source"], "default");
    assert_eq!(state["event_count"], 1);
    assert_eq!(app.state("c1").await, state);
}

#[tokio::test]
async fn a_usage_report_keeps_the_model_calls_token_counts() {
    let app = spawn_app().await;
    let counts = json!({"input": 9000, "cached_read": 8000, "cache_written": 500, "output": 700});
    let mut report = json!({"conversation_id": "c1", "used": 9700});
    report
        .as_object_mut()
        .unwrap()
        .extend(counts.as_object().unwrap().clone());

    let state = app.report("/usage", report).await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 9800}))
        .await;

    assert_eq!(state["last_call"], counts);
    assert_eq!(
        app.state("c1").await["last_call"],
        counts,
        "a report without counts keeps the last ones"
    );
    let events = app.events("c1").await;
    assert_eq!(events[0]["kind"], "usage");
    for field in ["input", "cached_read", "cache_written", "output"] {
        assert_eq!(events[0]["payload"][field], counts[field], "{field}");
    }
}

#[tokio::test]
async fn a_zero_size_leaves_the_known_window() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 10, "size": 128000}))
        .await;

    let state = app
        .report("/usage", json!({"conversation_id": "c1", "used": 20, "size": 0}))
        .await;

    assert_eq!(
        (state["used"].as_u64(), state["size"].as_u64()),
        (Some(20), Some(128000))
    );
}

#[tokio::test]
async fn a_pause_shows_a_one_hour_cache_and_a_declaration_overrides_it() {
    let app = spawn_app().await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "at": "2026-10-18T09:00:00Z"}),
    )
    .await;

    let observed = app
        .report(
            "/usage",
            json!({"conversation_id": "c1", "used": 50000, "input": 50000, "cached_read": 45000,
                   "at": "2026-10-18T09:20:00Z"}),
        )
        .await;
    assert_eq!(
        (&observed["cache_life"], &observed["cache_life_source"]),
        (&json!("one_hour"), &json!("observed"))
    );

    let declared = app
        .report(
            "/usage",
            json!({"conversation_id": "c1", "used": 50000, "cache_life": "five_minutes"}),
        )
        .await;
    assert_eq!(
        (&declared["cache_life"], &declared["cache_life_source"]),
        (&json!("five_minutes"), &json!("declared"))
    );
}

#[tokio::test]
async fn a_conversation_threshold_is_set_and_cleared_through_usage() {
    let app = spawn_app().await;

    let set = app
        .report(
            "/usage",
            json!({"conversation_id": "c1", "used": 1, "context_pressure_tokens": 5000}),
        )
        .await;
    let kept = app.report("/usage", json!({"conversation_id": "c1", "used": 2})).await;
    let cleared = app
        .report(
            "/usage",
            json!({"conversation_id": "c1", "used": 3, "context_pressure_tokens": 0}),
        )
        .await;

    assert_eq!(set["context_pressure_tokens"], 5000);
    assert_eq!(kept["context_pressure_tokens"], 5000);
    assert!(cleared["context_pressure_tokens"].is_null());
}
