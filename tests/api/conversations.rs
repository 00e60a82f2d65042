use serde_json::json;

use crate::helpers::{encode, spawn_app};

#[tokio::test]
async fn reading_an_unknown_conversation_is_a_404_problem() {
    let app = spawn_app().await;

    let response = app.get("/conversations/nobody").send().await.unwrap();

    assert_eq!(response.status(), 404);
    assert_eq!(response.headers()["content-type"], "application/problem+json");
    let problem: serde_json::Value = response.json().await.unwrap();
    assert_eq!(problem["status"], 404);
    assert_eq!(problem["type"], "/problems/not-found");
    assert_eq!(
        problem["detail"], r#"no conversation "nobody""#,
        "the id as sent, not a Rust type"
    );
    let (status, _) = app.get_json("/conversations/nobody/events").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn ids_with_slashes_and_unicode_are_reachable_by_path() {
    let app = spawn_app().await;
    let id = "team/會話 #7?";
    app.report("/usage", json!({"conversation_id": id, "used": 1})).await;

    let state = app.state(id).await;

    assert_eq!(state["conversation_id"], id);
    assert_eq!(app.events(id).await.len(), 1);
    let (status, _) = app.get_json(&format!("/conversations/{}", encode("team"))).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_event_log_pages_in_order() {
    let app = spawn_app().await;
    for _ in 0..5 {
        app.report("/turn-ended", json!({"conversation_id": "c1"})).await;
    }

    let (_, first) = app.get_json("/conversations/c1/events?limit=2").await;
    let (_, second) = app
        .get_json(&format!(
            "/conversations/c1/events?limit=2&after={}",
            first["next_after"]
        ))
        .await;
    let (_, last) = app.get_json("/conversations/c1/events?limit=2&after=4").await;

    let seqs = |page: &serde_json::Value| -> Vec<i64> {
        page["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["seq"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(seqs(&first), [1, 2]);
    assert_eq!(seqs(&second), [3, 4]);
    assert_eq!(seqs(&last), [5]);
    assert!(last["next_after"].is_null());
    assert_eq!(first["events"][0]["kind"], "turn_ended");
}

#[tokio::test]
async fn the_picker_lists_conversations_newest_first_and_by_the_start_of_their_id() {
    let app = spawn_app().await;
    for (id, at) in [
        ("replay-20261201-a", "2026-12-01T10:00:00Z"),
        ("ticket-4711", "2026-12-01T11:00:00Z"),
        ("replay-20261202-b", "2026-12-02T09:00:00Z"),
        ("replay.other", "2026-12-02T10:00:00Z"),
        ("REPLAY-upper", "2026-12-02T11:00:00Z"),
    ] {
        app.report("/usage", json!({"conversation_id": id, "used": 10, "at": at}))
            .await;
    }
    let ids = |listed: &serde_json::Value| -> Vec<String> {
        listed["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["conversation_id"].as_str().unwrap().to_owned())
            .collect()
    };

    let (status, all) = app.get_json("/conversations").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!(
        ids(&all),
        [
            "REPLAY-upper",
            "replay.other",
            "replay-20261202-b",
            "ticket-4711",
            "replay-20261201-a"
        ]
    );
    assert_eq!(all["truncated"], false);
    assert_eq!(all["conversations"][0]["used"], 10);

    let (_, replays) = app.get_json("/conversations?prefix=replay-").await;
    assert_eq!(
        ids(&replays),
        ["replay-20261202-b", "replay-20261201-a"],
        "the prefix as typed: not `replay.`, not another case"
    );
    let (_, first) = app.get_json("/conversations?prefix=replay&limit=1").await;
    assert_eq!(ids(&first), ["replay.other"]);
    assert_eq!(first["truncated"], true, "more match: type more of the id");
    let (_, none) = app.get_json("/conversations?prefix=nobody").await;
    assert_eq!(ids(&none), Vec::<String>::new());
    let (status, last) = app.get_json("/conversations?prefix=%F4%8F%BF%BF").await;
    assert_eq!(
        (status, ids(&last)),
        (200, vec![]),
        "a prefix nothing sorts past: {last}"
    );

    for bad in ["limit=0", "limit=101", "prefix=", "prefix=a%00b", "after=1"] {
        let (status, problem) = app.get_json(&format!("/conversations?{bad}")).await;
        assert_eq!(status, 422, "{bad}: {problem}");
        assert_eq!(problem["status"], 422);
    }
}

#[tokio::test]
async fn the_picker_lists_only_the_callers_tenant() {
    let app = spawn_app().await;
    let (_, ours) = crate::auth::key(&app, "ours", "agent").await;
    let (_, theirs) = crate::auth::key(&app, "theirs", "reader").await;
    let usage = app
        .client
        .post(format!("{}/usage", app.address))
        .bearer_auth(&ours)
        .json(&json!({"conversation_id": "shared-name", "used": 5}))
        .send()
        .await
        .unwrap();
    assert_eq!(usage.status(), 200);

    let listed: serde_json::Value = app
        .client
        .get(format!("{}/conversations?prefix=shared", app.address))
        .bearer_auth(&theirs)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["conversations"], json!([]), "{listed}");
}
