//! Nothing invented (SPEC §4, *Guard*, issue 21): an identifier in the
//! model's summary that appears in nothing it was given is marked
//! `[unverified]` where it stands, counted by kind in the ledger row and
//! in /stats, and never pinned.

use serde_json::json;

use crate::helpers::{spawn, upstream_settings};
use crate::llm_client::upstream_writing;

#[tokio::test]
async fn what_the_model_invented_is_marked_unverified_and_counted() {
    let server = upstream_writing(
        "Edited /home/ada/.config/hypr/hyprlock.conf and ~/.config/omarchy/screensaver.txt; \
         the lock now waits 1836 ms. The user wants the grace period at 5 seconds. \
         The result of call toolu_01VzQ2DNRY9oieQdcxz6kpn9 was read.",
    )
    .await;
    let app = spawn(upstream_settings(&server.uri(), std::time::Duration::from_secs(5))).await;
    app.report("/usage", json!({"conversation_id": "c", "used": 20000, "size": 200000}))
        .await;
    let messages = json!([
        {"role": "user", "content": "Give hyprlock a grace period of 5 seconds."},
        {"role": "assistant", "content": "Done: I edited /home/ada/.config/hypr/hyprlock.conf (grace = 5).",
         "tool_calls": [{"id": "toolu_01VzQ2DNRY9oieQdcxz6kpn9", "name": "Read", "arguments": "{}"}]},
        {"role": "tool", "tool_call_id": "toolu_01VzQ2DNRY9oieQdcxz6kpn9", "content": "grace = 5"},
    ]);

    let answer = app
        .report("/summarize", json!({"conversation_id": "c", "messages": messages}))
        .await;

    let summary = answer["summary"].as_str().unwrap();
    assert!(
        summary.contains("~/.config/omarchy/screensaver.txt [unverified]"),
        "a path nobody named: {summary}"
    );
    assert!(
        summary.contains("1836 ms [unverified]"),
        "a figure nobody gave: {summary}"
    );
    assert!(
        summary.contains("/home/ada/.config/hypr/hyprlock.conf and"),
        "what the conversation named stays unmarked: {summary}"
    );
    assert!(summary.contains("5 seconds.") && !summary.contains("5 seconds [unverified]"));
    assert!(
        summary.contains("call toolu_01VzQ2DNRY9oieQdcxz6kpn9 was read"),
        "a call's id is in what the model was given: {summary}"
    );
    let keep = &answer["compaction"]["keep"];
    assert_eq!(keep["invented"], 2, "{keep}");
    assert_eq!(keep["by_kind"]["path"]["invented"], 1, "{keep}");
    assert_eq!(keep["by_kind"]["quantity"]["invented"], 1, "{keep}");

    let (_, stats) = app.get_json("/stats").await;
    let invented: u64 = stats["keep"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rate| rate["invented"].as_u64().unwrap())
        .sum();
    assert_eq!(invented, 2, "{stats}");
    let (_, kept) = app.get_json("/conversations/c/keep?limit=500").await;
    assert!(
        !kept.to_string().contains("screensaver.txt"),
        "an invented identifier is never pinned: {kept}"
    );
}
