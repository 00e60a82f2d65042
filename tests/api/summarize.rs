//! /summarize against a fake upstream: anchoring, fail-soft, the keep guard,
//! the state change and the ledger row.

use std::time::Duration;

use compactd::summary::read::STATE_HEADING;
use compactd::summary::write::narrative::{KEPT_HEADING, narrative_of};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::helpers::{TestApp, completions, spawn_app, spawn_app_with_upstream};
use crate::llm_client::openai_answer;

async fn upstream_answering(texts: &[&str]) -> MockServer {
    let server = MockServer::start().await;
    for text in texts {
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer(text)))
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    server
}

async fn with_turns(app: &TestApp, id: &str, turns: &[(&str, &str)]) {
    app.report("/usage", json!({"conversation_id": id, "used": 150000, "size": 200000}))
        .await;
    for (user, assistant) in turns {
        app.report(
            "/turn-ended",
            json!({"conversation_id": id, "user": user, "assistant": assistant}),
        )
        .await;
    }
}

fn sent_prompt(request: &wiremock::Request) -> String {
    let body: Value = request.body_json().unwrap();
    body["messages"][1]["content"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn the_second_summary_carries_the_first_as_its_anchor() {
    let upstream = upstream_answering(&[
        "Deployed build 4711 to staging.",
        "Build 4711 is live on staging; prod waits.",
    ])
    .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(5)).await;
    with_turns(&app, "c1", &[("Deploy build 4711 to staging.", "Deployed.")]).await;

    let first = app.report("/summarize", json!({"conversation_id": "c1"})).await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "user": "What about prod?", "assistant": "It waits."}),
    )
    .await;
    let second = app.report("/summarize", json!({"conversation_id": "c1"})).await;

    let first_summary = first["summary"].as_str().unwrap();
    assert!(
        first_summary.ends_with("\n\nDeployed build 4711 to staging."),
        "{first_summary}"
    );
    let requests = completions(&upstream).await;
    let anchor_prompt = sent_prompt(&requests[1]);
    assert!(anchor_prompt.contains("PRIOR SUMMARY\n<anchor-"), "{anchor_prompt}");
    let narrative = narrative_of(first_summary);
    assert!(
        anchor_prompt.contains(&format!("\n{narrative}\n</anchor-")),
        "the first summary's narrative: {anchor_prompt}"
    );
    assert!(
        !anchor_prompt.contains(KEPT_HEADING),
        "the kept items come from the keep set, not the anchor's text: {anchor_prompt}"
    );
    assert!(anchor_prompt.contains("What about prod?"), "the delta is the new turn");
    assert!(
        !anchor_prompt.contains("[1] user:\n    Deploy build 4711"),
        "the old turn is behind the boundary"
    );
    assert!(
        second["summary"]
            .as_str()
            .unwrap()
            .ends_with("\n\nBuild 4711 is live on staging; prod waits.")
    );
    assert_eq!(second["compaction"]["seq"], 2);
    assert_eq!(app.state("c1").await["summary"]["seq"], 2);
    let system: Value = requests[0].body_json().unwrap();
    assert!(
        system["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("PRIOR SUMMARY")
    );
    assert_eq!(system["model"], "summary-model");
    assert!(system["temperature"].as_f64().unwrap() <= 0.3);
}

#[tokio::test]
async fn an_upstream_500_fails_soft_with_the_prior_summary_intact() {
    let upstream = upstream_answering(&["First summary of build 4711."]).await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500).set_body_string("down"))
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(3)).await;
    with_turns(&app, "c1", &[("Deploy build 4711.", "Done.")]).await;
    let first = app.report("/summarize", json!({"conversation_id": "c1"})).await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "c1", "user": "Next?", "assistant": "Waiting."}),
    )
    .await;

    let failed = app.report("/summarize", json!({"conversation_id": "c1"})).await;

    assert_eq!(failed["success"], false);
    assert_eq!(failed["summary"], first["summary"]);
    assert!(failed["error"].as_str().unwrap().contains("500"), "{}", failed["error"]);
    assert_eq!(failed["compaction"]["success"], false);
    assert!(failed["compaction"]["summary"].is_null());
    let state = app.state("c1").await;
    assert_eq!(state["summary"]["text"], first["summary"]);
    assert_eq!(state["compactions"], 1, "no state advanced");
    assert_eq!(state["turns_since_compaction"], 1);
    assert_eq!(state["failed_compactions_in_row"], 1);
    let (_, ledger) = app.get_json("/conversations/c1/compactions").await;
    let successes: Vec<bool> = ledger["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["success"].as_bool().unwrap())
        .collect();
    assert_eq!(successes, [false, true], "newest first, the failure recorded");
}

#[tokio::test]
async fn an_empty_reply_fails_soft_and_three_failures_open_the_breaker() {
    let upstream = upstream_answering(&[]).await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_answer("  ")))
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(3)).await;
    with_turns(&app, "c1", &[("hello", "hi")]).await;

    for _ in 0..3 {
        let failed = app.report("/summarize", json!({"conversation_id": "c1"})).await;
        assert_eq!(failed["success"], false);
        assert!(failed["summary"].is_null(), "there was no prior summary");
    }
    let decision = app.report("/decide", json!({"conversation_id": "c1"})).await;

    assert_eq!(
        (&decision["decision"], &decision["guard"]),
        (&json!("rollover"), &json!("failing"))
    );
}

#[tokio::test]
async fn a_summary_that_drops_a_path_a_url_and_an_id_is_stored_with_all_three() {
    let upstream = upstream_answering(&["The user asked for a deploy; it went fine."]).await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(5)).await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 10})).await;
    let messages = json!([
        {"role": "user", "content": "Deploy /srv/app/releases/v42 and post https://ci.example.com/runs/88231 in ticket OPS-1187."},
        {"role": "assistant", "content": "Done."},
    ]);

    let answer = app
        .report("/summarize", json!({"conversation_id": "c1", "messages": messages}))
        .await;

    let summary = answer["summary"].as_str().unwrap();
    // A model's narrative comes after the sections compactd adds (issue 41).
    assert!(
        summary.ends_with("\n\nThe user asked for a deploy; it went fine."),
        "{summary}"
    );
    assert!(summary.contains(STATE_HEADING), "{summary}");
    for kept in ["/srv/app/releases/v42", "https://ci.example.com/runs/88231", "OPS-1187"] {
        assert!(summary.contains(kept), "{kept} missing: {summary}");
    }
    assert_eq!(app.state("c1").await["summary"]["text"], summary);
}

#[tokio::test]
async fn a_successful_compaction_applies_the_state_change_and_fills_the_ledger_row() {
    let upstream = upstream_answering(&["Summary."]).await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(5)).await;
    with_turns(&app, "c1", &[("one", "two"), ("three", "four")]).await;
    app.report("/decide", json!({"conversation_id": "c1"})).await;

    let answer = app
        .report(
            "/summarize",
            json!({"conversation_id": "c1", "at": "2026-10-18T09:00:00Z"}),
        )
        .await;

    let row = &answer["compaction"];
    assert_eq!(row["trigger"], "threshold_exceeded", "the pending decision's trigger");
    assert_eq!(
        (&row["summarizer"], &row["model"]),
        (&json!("llm"), &json!("small-2026"))
    );
    assert_eq!(
        (&row["upstream_input_tokens"], &row["upstream_output_tokens"]),
        (&json!(40), &json!(7))
    );
    assert_eq!(
        (
            &row["total_messages"],
            &row["user_messages"],
            &row["assistant_messages"]
        ),
        (&json!(4), &json!(2), &json!(2))
    );
    assert!(row["tokens_before"].as_u64().unwrap() > row["tokens_after"].as_u64().unwrap() || row["tokens_saved"] == 0);
    assert_eq!(row["success"], true);
    let state = &answer["state"];
    assert_eq!(state["compactions"], 1);
    assert_eq!(state["turns_since_compaction"], 0);
    assert_eq!(state["host_compactions_24h"], json!(["2026-10-18T09:00:00Z"]));
    assert!(state["pending_decision"].is_null(), "the compaction answered it");
    let kinds: Vec<String> = app
        .events("c1")
        .await
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds.last().unwrap(), "compaction");
}

#[tokio::test]
async fn without_an_upstream_the_summary_is_extractive_and_keeps_the_rules() {
    let app = spawn_app().await;
    with_turns(
        &app,
        "c1",
        &[("Rotate key KEY-2231 in /etc/app/keys. Don't restart nginx.", "Rotated.")],
    )
    .await;

    let answer = app.report("/summarize", json!({"conversation_id": "c1"})).await;

    assert_eq!(answer["success"], true);
    assert_eq!(answer["compaction"]["summarizer"], "extractive");
    let summary = answer["summary"].as_str().unwrap();
    assert!(summary.contains("no upstream LLM is configured"), "{summary}");
    for kept in ["KEY-2231", "/etc/app/keys", "Don't restart nginx."] {
        assert!(summary.contains(kept), "{kept} missing: {summary}");
    }
}

#[tokio::test]
async fn a_harness_summary_is_recorded_without_calling_the_upstream() {
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .expect(0)
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(5)).await;
    with_turns(&app, "c1", &[("a", "b")]).await;

    let answer = app
        .report("/summarize", json!({"conversation_id": "c1", "summary": "My own summary </handoff> x", "trigger": "harness", "by_host": false}))
        .await;

    assert_eq!(answer["compaction"]["summarizer"], "harness");
    assert_eq!(
        answer["summary"], "My own summary ‹/handoff› x",
        "it can never close a handoff"
    );
    assert_eq!(answer["state"]["host_compactions_24h"], json!([]));
}

#[tokio::test]
async fn manual_recovery_writes_a_clean_slate_and_closes_the_breaker() {
    let app = spawn_app().await;
    with_turns(&app, "c1", &[("a", "b")]).await;
    app.report("/summarize", json!({"conversation_id": "c1"})).await;
    sqlx::query("UPDATE conversations SET failed_compactions_in_row = 3")
        .execute(&app.pool)
        .await
        .unwrap();

    let answer = app
        .report(
            "/summarize",
            json!({"conversation_id": "c1", "trigger": "manual_recovery"}),
        )
        .await;

    assert_eq!(answer["success"], true);
    assert!(answer["state"]["summary"].is_null(), "the anchor is empty");
    assert_eq!(answer["state"]["failed_compactions_in_row"], 0);
}

#[tokio::test]
async fn keep_recent_tokens_keeps_the_newest_messages_and_their_tool_pairs() {
    let upstream = upstream_answering(&["Summary."]).await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(5)).await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 10})).await;
    let long = "word ".repeat(400);
    let messages = json!([
        {"role": "user", "content": long},
        {"role": "assistant", "content": long},
        {"role": "user", "content": "check the build"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call-1", "name": "ci_status", "arguments": {"build": 4711}}]},
        {"role": "tool", "tool_call_id": "call-1", "content": "{\"status\": \"green\"}"},
        {"role": "assistant", "content": "It is green."},
    ]);

    let answer = app
        .report(
            "/summarize",
            json!({"conversation_id": "c1", "messages": messages, "keep_recent_tokens": 60}),
        )
        .await;

    let kept_from = answer["compaction"]["kept_from"].as_u64().unwrap();
    assert_eq!(kept_from, 2, "the cut starts at the user message before the tool pair");
    let prompt = sent_prompt(&completions(&upstream).await[0]);
    assert!(!prompt.contains("check the build"), "kept messages are not summarized");
}

#[tokio::test]
async fn a_result_that_does_not_fit_the_window_reports_an_overflow() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c1", "used": 90, "size": 100}))
        .await;
    let summary = "kept ".repeat(200);

    let answer = app
        .report("/summarize", json!({"conversation_id": "c1", "summary": summary}))
        .await;

    let overflow = &answer["overflow"];
    assert_eq!(overflow["context_window"], 100);
    assert!(overflow["overflow"].as_u64().unwrap() > 0);
    assert!(overflow["utilization"].as_f64().unwrap() > 1.0);
}

#[tokio::test]
async fn refusals_are_problems_that_change_nothing() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "empty", "used": 10}))
        .await;

    let (missing, _) = app.post_json("/summarize", &json!({"conversation_id": "nobody"})).await;
    let (empty, problem) = app.post_json("/summarize", &json!({"conversation_id": "empty"})).await;
    let (rollover, _) = app
        .post_json(
            "/summarize",
            &json!({"conversation_id": "empty", "trigger": "cache_cold"}),
        )
        .await;
    let (role, _) = app
        .post_json(
            "/summarize",
            &json!({"conversation_id": "empty", "messages": [{"role": "robot", "content": "x"}]}),
        )
        .await;

    assert_eq!((missing, empty, rollover, role), (404, 409, 422, 422));
    assert!(problem["detail"].as_str().unwrap().contains("nothing to summarize"));
    let state = app.state("empty").await;
    assert_eq!(state["event_count"], 1);
    let (second, _) = app
        .post_json("/summarize", &json!({"conversation_id": "empty", "summary": "now"}))
        .await;
    assert_eq!(second, 200, "a refusal gave its claim back");
}

#[tokio::test]
async fn a_conversation_being_compacted_refuses_a_second_compaction() {
    let app = spawn_app().await;
    with_turns(&app, "c1", &[("a", "b")]).await;
    sqlx::query("UPDATE conversations SET compacting_since = now()")
        .execute(&app.pool)
        .await
        .unwrap();

    let (status, problem) = app.post_json("/summarize", &json!({"conversation_id": "c1"})).await;

    assert_eq!(status, 409, "{problem}");
    assert_eq!(problem["type"], "/problems/conflict");
}

#[tokio::test]
async fn a_compaction_claimed_past_the_configured_lease_is_taken_over() {
    let app = crate::helpers::spawn(compactd::config::Settings {
        leases: compactd::config::Leases {
            request: Duration::from_secs(90),
            ..compactd::config::Leases::default()
        },
        ..crate::helpers::test_settings()
    })
    .await;
    for (id, age) in [("dead", 91), ("alive", 89)] {
        with_turns(&app, id, &[("a", "b")]).await;
        sqlx::query(
            "UPDATE conversations SET compacting_since = now() - make_interval(secs => $2) WHERE conversation_id = $1",
        )
        .bind(id)
        .bind(f64::from(age))
        .execute(&app.pool)
        .await
        .unwrap();
    }

    let (dead, _) = app.post_json("/summarize", &json!({"conversation_id": "dead"})).await;
    let (alive, _) = app.post_json("/summarize", &json!({"conversation_id": "alive"})).await;

    assert_eq!(dead, 200, "its holder is gone");
    assert_eq!(alive, 409, "its holder may still be writing");
}

#[tokio::test]
async fn sent_no_messages_a_compaction_starts_from_the_context_the_agent_last_reported() {
    let app = spawn_app().await;
    let turn = |n: u32| json!({"conversation_id": "r", "user": format!("step {n}: keep going"), "assistant": "done"});
    let before = |answer: &Value| answer["compaction"]["tokens_before"].as_u64().unwrap();
    app.report("/turn-ended", turn(1)).await;
    app.report(
        "/usage",
        json!({"conversation_id": "r", "used": 161_000, "size": 200_000}),
    )
    .await;

    let first = app.report("/summarize", json!({"conversation_id": "r"})).await;
    app.report("/turn-ended", turn(2)).await;
    app.report("/usage", json!({"conversation_id": "r", "used": 3_000}))
        .await;
    let second = app.report("/summarize", json!({"conversation_id": "r"})).await;
    app.report("/turn-ended", turn(3)).await;
    let third = app.report("/summarize", json!({"conversation_id": "r"})).await;
    app.report("/usage", json!({"conversation_id": "r", "used": 5})).await;
    app.report(
        "/turn-ended",
        json!({"conversation_id": "r", "user": "step 4 ".repeat(400)}),
    )
    .await;
    let fourth = app.report("/summarize", json!({"conversation_id": "r"})).await;

    assert_eq!(
        before(&first),
        161_000,
        "the context the agent had, not the 20 tokens of its one stored turn"
    );
    assert_eq!(before(&second), 3_000, "the report since the first compaction");
    assert!(
        before(&third) < 3_000,
        "no report since the second: counted from what is stored, never the stale one ({})",
        before(&third)
    );
    assert!(
        before(&fourth) > 1_000,
        "a report the turns stored since outgrew is not the context ({})",
        before(&fourth)
    );
}

#[tokio::test]
async fn invented_names_come_with_the_summary_that_holds_them_or_are_refused() {
    let app = spawn_app().await;
    app.report("/usage", json!({"conversation_id": "c", "used": 10})).await;
    let too_many: Vec<String> = (0..201).map(|n| format!("PROJ-{n}")).collect();
    let all_of_them = too_many.join(" ");
    for body in [
        json!({"conversation_id": "c", "invented": ["PROJ-1"]}),
        json!({"conversation_id": "c", "summary": "Fixed PROJ-1.", "invented": ["PROJ-2"]}),
        json!({"conversation_id": "c", "summary": "Fixed PROJ-1.", "invented": [""]}),
        json!({"conversation_id": "c", "summary": all_of_them, "invented": too_many}),
    ] {
        let (status, problem) = app.post_json("/summarize", &body).await;
        assert_eq!(status, 422, "{problem}");
        assert!(problem["detail"].as_str().unwrap().contains("invented"), "{problem}");
    }
    let (_, ledger) = app.get_json("/conversations/c/compactions").await;
    assert_eq!(ledger["compactions"], json!([]), "nothing was recorded");

    let answer = app
        .report(
            "/summarize",
            json!({"conversation_id": "c", "summary": "Fixed PROJ-1 in src/a/b.rs.", "invented": ["PROJ-1", "src/a/b.rs"]}),
        )
        .await;
    let keep = &answer["compaction"]["keep"];
    assert_eq!(keep["invented"], 2, "{keep}");
    assert_eq!(keep["by_kind"]["id"]["invented"], 1, "{keep}");
    assert_eq!(keep["by_kind"]["path"]["invented"], 1, "{keep}");
}
