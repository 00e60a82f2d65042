//! GET /conversations/{id}/export (issue 25, SPEC §3): everything stored
//! about a conversation, as one JSON document, read from one snapshot.

use serde_json::{Value, json};

use crate::auth::key;
use crate::helpers::{read, spawn_app};

#[tokio::test]
async fn an_export_holds_every_stored_row_of_the_conversation_and_nothing_else() {
    let app = spawn_app().await;
    app.report(
        "/usage",
        json!({"conversation_id": "c1", "used": 150_000, "size": 200_000}),
    )
    .await;
    // More turns than one page reads, each longer than a list clips.
    let long = "x".repeat(20_000);
    for n in 1..=20 {
        let turn = json!({"conversation_id": "c1", "user": format!("turn {n}: see src/lib.rs {long}"), "assistant": format!("done {n}")});
        app.report("/turn-ended", turn).await;
    }
    app.report("/decide", json!({"conversation_id": "c1"})).await;
    app.report(
        "/summarize",
        json!({"conversation_id": "c1", "summary": "We read src/lib.rs.", "trigger": "harness"}),
    )
    .await;
    app.report("/turn-ended", json!({"conversation_id": "other", "user": "not c1's"}))
        .await;

    let response = app.get("/conversations/c1/export").send().await.unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"compactd-c1.json\""
    );
    let document: Value = response.json().await.unwrap();
    assert_eq!(document["format"], "compactd-export/1");
    assert_eq!(document["conversation_id"], "c1");
    let state = app.state("c1").await;
    let summary = &state["summary"]["text"];
    assert!(summary.as_str().unwrap().starts_with("We read src/lib.rs."), "{state}");
    assert_eq!(&document["conversation"]["summary"], summary);
    let turns = document["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 20);
    for (n, turn) in turns.iter().enumerate() {
        assert_eq!(turn["seq"], n + 1);
        assert_eq!(turn["conversation_id"], "c1");
        assert_eq!(
            turn["user_text"],
            format!("turn {}: see src/lib.rs {long}", n + 1),
            "whole"
        );
        assert!(turn.get("search").is_none(), "derived vectors are left out");
    }
    let (_, events) = app.get_json("/conversations/c1/events?limit=1000").await;
    assert_eq!(
        document["events"].as_array().unwrap().len(),
        events["events"].as_array().unwrap().len()
    );
    assert_eq!(&document["compactions"][0]["summary"], summary);
    let paths: Vec<&str> = document["keep_items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["kind"] == "path")
        .map(|item| item["text"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"src/lib.rs"), "{paths:?}");
    assert!(!document.to_string().contains("not c1's"));
}

#[tokio::test]
async fn an_unknown_deleted_or_another_tenants_conversation_has_no_export() {
    let app = spawn_app().await;
    let (_, acme) = key(&app, "acme", "agent").await;
    let (_, globex) = key(&app, "globex", "reader").await;
    let usage = json!({"conversation_id": "c1", "used": 5});
    let reported = app.post("/usage").bearer_auth(&acme).json(&usage).send().await.unwrap();
    assert_eq!(reported.status(), 200);
    let export_as = |key: &str, id: &str| {
        let request = app.get(&format!("/conversations/{id}/export")).bearer_auth(key);
        async move { read(request.send().await.unwrap()).await }
    };

    let (mine, _) = export_as(&acme, "c1").await;
    let (other_tenant, hidden) = export_as(&globex, "c1").await;
    let (unknown, _) = export_as(&acme, "c2").await;
    let deleted = app
        .client
        .delete(format!("{}/conversations/c1", app.address))
        .bearer_auth(&acme)
        .send()
        .await
        .unwrap();
    let (after_deletion, _) = export_as(&acme, "c1").await;

    assert_eq!((mine, other_tenant, unknown), (200, 404, 404), "{hidden}");
    assert_eq!(hidden["status"], 404);
    assert_eq!(deleted.status(), 200);
    assert_eq!(after_deletion, 404);
}
