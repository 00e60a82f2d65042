use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn a_turn_end_counts_the_turn_and_its_user_messages() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 10})).await;

    let answer = app
        .report(
            "/turn-ended",
            json!({"conversation_id": "c1", "user_messages": 3, "at": "2026-10-18T09:00:00Z"}),
        )
        .await;

    let state = &answer["state"];
    assert!(answer["turn_id"].is_null(), "no text, no stored turn");
    assert_eq!(state["last_turn_at"], "2026-10-18T09:00:00Z");
    assert_eq!(state["turns_since_compaction"], 1);
    assert_eq!(state["total_user_messages"], 3);
    assert_eq!(state["user_messages_since_boundary"], 3);
    assert_eq!(state["runs_completed_since_boundary"], 1);
    assert_eq!(state["user_messages_since_run_completed"], 0);
}

#[tokio::test]
async fn an_unfinished_run_accumulates_user_messages_until_one_completes() {
    let app = spawn_app().await;
    let unfinished = json!({"conversation_id": "c1", "user_messages": 2, "run_completed": false});

    app.report("/turn-ended", unfinished.clone()).await;
    let after_two = app.report("/turn-ended", unfinished).await;
    let after_clean = app.report("/turn-ended", json!({"conversation_id": "c1"})).await;

    assert_eq!(after_two["state"]["user_messages_since_run_completed"], 4);
    assert_eq!(after_two["state"]["runs_completed_since_boundary"], 0);
    assert_eq!(after_clean["state"]["user_messages_since_run_completed"], 0);
    assert_eq!(after_clean["state"]["total_user_messages"], 5);
}

#[tokio::test]
async fn a_turn_with_text_is_stored_and_its_id_answered() {
    let app = spawn_app().await;

    let first = app
        .report(
            "/turn-ended",
            json!({"conversation_id": "c1", "user": "Book the train to Tainan", "assistant": "Booked."}),
        )
        .await;
    app.report("/turn-ended", json!({"conversation_id": "c1"})).await;
    let third = app
        .report(
            "/turn-ended",
            json!({"conversation_id": "c1", "user": "不要 window seats\0!"}),
        )
        .await;

    assert_eq!(first["turn_id"], 1);
    assert_eq!(third["turn_id"], 2, "a turn without text stores nothing");
    let turns: Vec<(i64, Option<String>, Option<String>)> =
        sqlx::query_as("SELECT seq, user_text, assistant_text FROM turns ORDER BY seq")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        turns,
        vec![
            (1, Some("Book the train to Tainan".into()), Some("Booked.".into())),
            (2, Some("不要 window seats\u{FFFD}!".into()), None),
        ]
    );
    let events = app.events("c1").await;
    assert_eq!(events[0]["payload"]["turn_id"], 1);
    assert!(events[1]["payload"]["turn_id"].is_null());
}

#[tokio::test]
async fn a_turn_end_clears_the_quiet_spell_flags() {
    let app = spawn_app().await;
    app.report("/turn-ended", json!({"conversation_id": "c1"})).await;
    sqlx::query("UPDATE conversations SET idle_compacted = true, rollover_declined = true")
        .execute(&app.pool)
        .await
        .unwrap();

    let state = &app.report("/turn-ended", json!({"conversation_id": "c1"})).await["state"];

    assert_eq!(
        (&state["idle_compacted"], &state["rollover_declined"]),
        (&json!(false), &json!(false))
    );
}
