//! Deleting a conversation (issue 25, SPEC §3): afterwards nothing of its
//! content is readable through any REST read, MCP tool, /stats, the fleet's
//! history or the `compactd_ledger` view, no row of the database names it,
//! and the fleet's figures are what they were.

use serde_json::{Value, json};
use sqlx::PgPool;

use crate::auth::key;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::helpers::{TestApp, read, spawn_app, spawn_app_with_upstream};
use crate::llm_client::openai_answer;

/// What the deleted conversation said: found nowhere afterwards.
const SECRET: &str = "PLUM-7781-SECRET";

/// A conversation with everything the service stores about one: usage,
/// turns (scored, searchable, read into the keep set), decisions, a
/// compaction with its summary, answers kept for Idempotency-Keys; what it
/// says carries `SECRET`.
async fn a_full_conversation(app: &TestApp, id: &str) {
    a_conversation_saying(app, id, SECRET).await;
}

async fn a_conversation_saying(app: &TestApp, id: &str, secret: &str) {
    a_conversation_saying_as(app, None, id, secret).await;
}

/// As [`a_conversation_saying`], with `key` when the service has keys.
pub(crate) async fn a_conversation_saying_as(app: &TestApp, key: Option<&str>, id: &str, secret: &str) {
    let post = |path: &str| {
        let request = app.post(path);
        match key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    };
    let report = async |path: &str, body: Value| {
        let (status, answer) = read(post(path).json(&body).send().await.unwrap()).await;
        assert_eq!(status, 200, "{path} {body} answered {answer}");
    };
    report(
        "/usage",
        json!({"conversation_id": id, "used": 150_000, "size": 200_000}),
    )
    .await;
    for n in 0..3 {
        let turn = json!({"conversation_id": id,
                          "user": format!("Step {n}: fix src/{secret}.rs and never touch prod-{secret}."),
                          "assistant": format!("Fixed src/{secret}.rs, step {n}.")});
        report("/turn-ended", turn).await;
    }
    report("/decide", json!({"conversation_id": id})).await;
    let keyed = post("/summarize")
        .header("Idempotency-Key", format!("{id}-summary"))
        .json(&json!({"conversation_id": id, "summary": format!("We fixed src/{secret}.rs."), "trigger": "harness"}))
        .send()
        .await
        .unwrap();
    assert_eq!(keyed.status(), 200);
    report("/usage", json!({"conversation_id": id, "used": 40_000})).await;
}

async fn delete(app: &TestApp, path: &str) -> (u16, Value) {
    read(
        app.client
            .delete(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap(),
    )
    .await
}

/// Every row of every table and the ledger view, as text (bytea as UTF-8
/// where it is, so a kept answer's body is read as the text it is).
pub(crate) async fn every_row(pool: &PgPool) -> Vec<String> {
    let relations: Vec<String> = sqlx::query_scalar(
        "SELECT quote_ident(table_name) FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_name NOT LIKE '\\_sqlx%'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(relations.iter().any(|r| r == "compactd_ledger"), "{relations:?}");
    let mut rows = Vec::new();
    for relation in relations {
        let text: Vec<String> = sqlx::query_scalar(&format!("SELECT r::text FROM {relation} r"))
            .fetch_all(pool)
            .await
            .unwrap();
        rows.extend(text.into_iter().map(|row| format!("{relation}: {row}")));
    }
    let bodies: Vec<String> =
        sqlx::query_scalar("SELECT convert_from(body, 'UTF8') FROM idempotency_keys WHERE body IS NOT NULL")
            .fetch_all(pool)
            .await
            .unwrap();
    rows.extend(bodies.into_iter().map(|body| format!("kept answer: {body}")));
    rows
}

async fn mcp_tool(app: &TestApp, name: &str, arguments: Value) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": name, "arguments": arguments}});
    let response = app
        .client
        .post(format!("{}/mcp", app.address))
        .header("accept", "application/json, text/event-stream")
        .json(&call)
        .send()
        .await
        .unwrap();
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_deleted_conversation_is_readable_nowhere_and_named_by_no_row() {
    let app = spawn_app().await;
    let doomed = "doomed-conversation";
    a_full_conversation(&app, doomed).await;
    a_conversation_saying(&app, "kept", "OTHER-1234").await;
    let handed = app
        .report("/handoff", json!({"conversation_id": doomed, "successor_id": "heir"}))
        .await;
    assert_eq!(handed["successor_id"], "heir");
    app.report("/turn-ended", json!({"conversation_id": "heir", "user": "carry on"}))
        .await;
    // Two handoffs on: its keep items (which name where they were first
    // seen) reach a conversation no link joins to it directly.
    app.report(
        "/handoff",
        json!({"conversation_id": "heir", "successor_id": "grandheir"}),
    )
    .await;
    app.report("/turn-ended", json!({"conversation_id": "grandheir", "user": "and on"}))
        .await;
    let named_far: bool = sqlx::query_scalar(
        "SELECT bool_or(first_seen->>'conversation_id' = $1) FROM keep_items WHERE conversation_id = 'grandheir'",
    )
    .bind(doomed)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert!(
        named_far,
        "the grandheir's keep set names the doomed conversation before the deletion"
    );
    let (_, stats_before) = app.get_json("/stats").await;
    assert!(every_row(&app.pool).await.iter().any(|row| row.contains(SECRET)));

    let (status, deleted) = delete(&app, &format!("/conversations/{doomed}")).await;

    assert_eq!(status, 200, "{deleted}");
    assert_eq!(deleted["deleted_ids"], json!([doomed]));
    assert_eq!(deleted["already_deleted"], false);
    let counts = &deleted["deleted"];
    assert_eq!(counts["conversations"], 1, "{deleted}");
    assert_eq!(counts["turns"], 3, "{deleted}");
    assert_eq!(counts["ledger_rows_emptied"], 1, "{deleted}");
    assert_eq!(counts["idempotency_keys"], 1, "{deleted}");
    assert!(counts["events"].as_u64().unwrap() >= 7, "{deleted}");
    assert!(counts["keep_items"].as_u64().unwrap() > 0, "{deleted}");

    for read in ["", "/compactions", "/events", "/turns", "/turns/1", "/keep", "/context"] {
        let (status, body) = app.get_json(&format!("/conversations/{doomed}{read}")).await;
        assert_eq!(status, 404, "{read}: {body}");
    }
    for tool in ["search_history", "get_context", "get_keep_set", "get_compactions"] {
        let answer = mcp_tool(&app, tool, json!({"conversation_id": doomed})).await;
        assert_eq!(answer["result"]["isError"], true, "{tool}: {answer}");
        assert_eq!(answer["result"]["structuredContent"]["status"], 404, "{tool}: {answer}");
    }
    for fleet_read in [
        "/compactions",
        "/conversations",
        "/due?moment=idle",
        "/stats",
        "/stats/series",
    ] {
        let (status, body) = app.get_json(fleet_read).await;
        assert_eq!(status, 200, "{fleet_read}: {body}");
        let text = body.to_string();
        assert!(!text.contains(doomed) && !text.contains(SECRET), "{fleet_read}: {text}");
    }
    let (_, mut stats_after) = app.get_json("/stats").await;
    let deletions = stats_after.as_object_mut().unwrap().remove("deletions");
    assert_eq!(
        deletions,
        Some(json!([{"kind": "conversation", "deletions": 1, "conversations": 1, "turns": 3}])),
        "/stats counts the deletion"
    );
    let mut stats_before = stats_before;
    assert_eq!(
        stats_before.as_object_mut().unwrap().remove("deletions"),
        Some(json!([]))
    );
    assert_eq!(stats_after, stats_before, "the fleet's figures stay right");
    let (_, kept) = app.get_json("/conversations/kept/turns").await;
    assert_eq!(
        kept["turns"].as_array().unwrap().len(),
        3,
        "another conversation keeps its turns"
    );
    // What was handed over is the successor's own (`lineage=true` deletes
    // it too), but it no longer names where it came from.
    for heirs in [
        "/conversations/heir",
        "/conversations/heir/events",
        "/conversations/heir/keep",
    ] {
        let (status, body) = app.get_json(heirs).await;
        assert_eq!(status, 200, "{heirs}: {body}");
        assert!(!body.to_string().contains(doomed), "{heirs}: {body}");
    }
    assert_eq!(app.state("heir").await["predecessor_id"], Value::Null);
    let named: Vec<String> = every_row(&app.pool)
        .await
        .into_iter()
        .filter(|row| {
            // What the successors were handed is theirs (their keep sets,
            // the heir's own handoff text); none of it names the doomed.
            let successors = row.contains(": (default,heir,") || row.contains(": (default,grandheir,");
            row.contains(doomed) || row.contains(SECRET) && !successors
        })
        .collect();
    assert!(named.is_empty(), "rows still name what is gone: {named:#?}");
}

#[tokio::test]
async fn the_ledger_keeps_a_deleted_conversations_rows_without_their_content() {
    let app = spawn_app().await;
    a_full_conversation(&app, "gone").await;

    delete(&app, "/conversations/gone").await;

    let row: (Option<String>, String, bool, i64, Option<String>, bool) = sqlx::query_as(
        "SELECT conversation_id, trigger, success, tokens_before, error, deleted_at IS NOT NULL FROM compactd_ledger",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(row.0, None, "a deleted row names no conversation");
    assert_eq!((row.1.as_str(), row.2), ("harness", true));
    assert!(row.3 > 0);
    assert_eq!(row.4, None);
    assert!(row.5, "marked deleted");
    let summary: Option<String> = sqlx::query_scalar("SELECT summary FROM compactions")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(summary, None);
}

#[tokio::test]
async fn deleting_again_answers_already_deleted_and_an_unknown_id_is_404() {
    let app = spawn_app().await;
    a_full_conversation(&app, "once").await;
    let (first, _) = delete(&app, "/conversations/once").await;

    let (again, answer) = delete(&app, "/conversations/once").await;
    let (unknown, problem) = delete(&app, "/conversations/never-was").await;

    assert_eq!((first, again), (200, 200));
    assert_eq!(answer["already_deleted"], true, "{answer}");
    assert_eq!(answer["deleted_ids"], json!([]), "{answer}");
    assert_eq!(answer["deleted"]["turns"], 0, "{answer}");
    assert_eq!(unknown, 404, "{problem}");
    assert_eq!(problem["status"], 404);
    let lines: i64 = sqlx::query_scalar("SELECT count(*) FROM deletions")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(lines, 1, "one audit line per deletion that deleted something");
}

#[tokio::test]
async fn a_conversation_used_again_after_its_deletion_starts_afresh() {
    let app = spawn_app().await;
    a_full_conversation(&app, "phoenix").await;
    delete(&app, "/conversations/phoenix").await;

    let state = app
        .report("/usage", json!({"conversation_id": "phoenix", "used": 10}))
        .await;
    let summarized = app
        .post("/summarize")
        .header("Idempotency-Key", "phoenix-summary-again")
        .json(&json!({"conversation_id": "phoenix", "summary": format!("We fixed src/{SECRET}.rs."), "trigger": "harness"}))
        .send()
        .await
        .unwrap();

    assert_eq!(state["compactions"], 0, "{state}");
    assert_eq!(summarized.status(), 200);
    let (_, ledger) = app.get_json("/conversations/phoenix/compactions").await;
    assert_eq!(ledger["compactions"].as_array().unwrap().len(), 1, "{ledger}");
    assert_eq!(ledger["compactions"][0]["seq"], 1, "{ledger}");
}

#[tokio::test]
async fn a_keyed_request_answered_before_the_deletion_and_retried_after_it_is_gone() {
    let app = spawn_app().await;
    a_full_conversation(&app, "phoenix").await;
    let summary =
        json!({"conversation_id": "phoenix", "summary": format!("We fixed src/{SECRET}.rs."), "trigger": "harness"});

    delete(&app, "/conversations/phoenix").await;
    // A client that timed out before the deletion retries its request.
    let retried = app
        .post("/summarize")
        .header("Idempotency-Key", "phoenix-summary")
        .json(&summary)
        .send()
        .await
        .unwrap();
    let (status, problem) = read(retried).await;

    assert_eq!(status, 410, "{problem}");
    assert_eq!(problem["type"], "/problems/gone");
    let (unknown, _) = app.get_json("/conversations/phoenix").await;
    assert_eq!(unknown, 404, "not applied again");
    let reused = app
        .post("/summarize")
        .header("Idempotency-Key", "phoenix-summary")
        .json(&json!({"conversation_id": "phoenix", "summary": "Another."}))
        .send()
        .await
        .unwrap();
    assert_eq!(reused.status(), 422, "the key is still its first request's");
    assert!(
        !every_row(&app.pool).await.iter().any(|row| row.contains("phoenix")),
        "what is kept of the key names nothing"
    );
}

#[tokio::test]
async fn a_keyed_keep_check_is_gone_with_its_conversation() {
    let app = spawn_app().await;
    a_full_conversation(&app, "checked").await;
    let check = json!({"text": "We fixed it."});
    let ask = || {
        app.post("/conversations/checked/keep/check")
            .header("Idempotency-Key", "check-1")
            .json(&check)
            .send()
    };
    assert_eq!(ask().await.unwrap().status(), 200);

    delete(&app, "/conversations/checked").await;
    let (status, problem) = read(ask().await.unwrap()).await;

    assert_eq!(status, 410, "{problem}");
    assert!(
        !every_row(&app.pool).await.iter().any(|row| row.contains(SECRET)),
        "its kept answer went with it"
    );
}

#[tokio::test]
async fn a_key_used_again_after_its_tombstone_lapsed_is_deleted_again() {
    let app = spawn_app().await;
    let turn = json!({"conversation_id": "twice", "user": "Deploy build 4711."});
    let send = || {
        app.post("/turn-ended")
            .header("Idempotency-Key", "turn-1")
            .json(&turn)
            .send()
    };
    assert_eq!(send().await.unwrap().status(), 200);
    delete(&app, "/conversations/twice").await;
    // A day later the tombstone has lapsed, though not yet swept.
    sqlx::query("UPDATE idempotency_keys SET created_at = now() - interval '2 days'")
        .execute(&app.pool)
        .await
        .unwrap();

    assert_eq!(send().await.unwrap().status(), 200, "the key is free again");
    let (deleted, answer) = delete(&app, "/conversations/twice").await;
    let (status, problem) = read(send().await.unwrap()).await;

    assert_eq!(deleted, 200, "{answer}");
    assert_eq!(status, 410, "{problem}");
}

#[tokio::test]
async fn a_lineage_is_deleted_whole_and_without_it_only_the_links_go() {
    let app = spawn_app().await;
    for (from, to) in [("first", "second"), ("second", "third")] {
        a_full_conversation(&app, from).await;
        app.report("/handoff", json!({"conversation_id": from, "successor_id": to}))
            .await;
    }
    a_full_conversation(&app, "third").await;
    a_full_conversation(&app, "stranger").await;

    let (status, alone) = delete(&app, "/conversations/second").await;
    assert_eq!(status, 200, "{alone}");
    assert_eq!(alone["deleted_ids"], json!(["second"]));
    assert_eq!(app.state("first").await["successor_id"], Value::Null);
    assert_eq!(app.state("third").await["predecessor_id"], Value::Null);

    app.report(
        "/handoff",
        json!({"conversation_id": "third", "successor_id": "fourth"}),
    )
    .await;
    let (status, whole) = delete(&app, "/conversations/fourth?lineage=true").await;
    assert_eq!(status, 200, "{whole}");
    assert_eq!(whole["deleted_ids"], json!(["fourth", "third"]), "{whole}");
    for gone in ["third", "fourth"] {
        assert_eq!(app.get_json(&format!("/conversations/{gone}")).await.0, 404);
    }
    for stays in ["first", "stranger"] {
        assert_eq!(app.get_json(&format!("/conversations/{stays}")).await.0, 200);
    }
}

#[tokio::test]
async fn only_the_tenants_agent_and_admin_keys_delete_and_bad_input_changes_nothing() {
    let app = spawn_app().await;
    let (_, agent) = key(&app, "acme", "agent").await;
    let (_, reader) = key(&app, "acme", "reader").await;
    let (_, other) = key(&app, "globex", "admin").await;
    let (admin_id, admin) = key(&app, "acme", "admin").await;
    let usage = json!({"conversation_id": "mine", "used": 5});
    let answered = app
        .post("/usage")
        .bearer_auth(&agent)
        .json(&usage)
        .send()
        .await
        .unwrap();
    assert_eq!(answered.status(), 200);
    let delete_as = |key: String, path: &'static str| {
        let request = app.client.delete(format!("{}{path}", app.address)).bearer_auth(key);
        async move { read(request.send().await.unwrap()).await }
    };

    let (as_reader, refused) = delete_as(reader, "/conversations/mine").await;
    let (as_other, hidden) = delete_as(other, "/conversations/mine").await;
    let (bad_query, unknown_field) = delete_as(admin.clone(), "/conversations/mine?lineage=maybe").await;
    let (bad_field, surprise) = delete_as(admin.clone(), "/conversations/mine?surprise=1").await;
    let (bad_id, control) = delete_as(admin.clone(), "/conversations/%7F").await;
    let (no_key, _) = read(
        app.client
            .delete(format!("{}/conversations/mine", app.address))
            .send()
            .await
            .unwrap(),
    )
    .await;

    assert_eq!(as_reader, 403, "{refused}");
    assert_eq!(as_other, 404, "{hidden}");
    assert_eq!(
        (bad_query, bad_field, bad_id),
        (422, 422, 422),
        "{unknown_field} {surprise} {control}"
    );
    assert_eq!(no_key, 401);
    let still: i64 = sqlx::query_scalar("SELECT count(*) FROM conversations WHERE conversation_id = 'mine'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(still, 1, "refused deletions delete nothing");

    let (as_admin, _) = delete_as(admin, "/conversations/mine").await;
    assert_eq!(as_admin, 200);
    let line: (String, Option<String>, String, i64) =
        sqlx::query_as("SELECT tenant, key_id, kind, conversations FROM deletions")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(line, ("acme".into(), Some(admin_id), "conversation".into(), 1));
}

#[tokio::test]
async fn a_summary_written_while_its_conversation_is_deleted_is_not_recorded() {
    let upstream = MockServer::start().await;
    let asked = Arc::new(Notify::new());
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(SaysWhenAsked(asked.clone()))
        .mount(&upstream)
        .await;
    let app = spawn_app_with_upstream(&upstream.uri(), Duration::from_secs(20)).await;
    a_full_conversation(&app, "racing").await;
    let turn =
        json!({"conversation_id": "racing", "user": format!("Now test src/{SECRET}.rs."), "assistant": "Tested."});
    app.report("/turn-ended", turn).await;
    let summarizing = tokio::spawn({
        let request = app.post("/summarize").json(&json!({"conversation_id": "racing"}));
        async move { read(request.send().await.unwrap()).await }
    });
    // The conversation is claimed and its summary is being written.
    asked.notified().await;

    let (deleted, _) = delete(&app, "/conversations/racing").await;
    let (summarized, problem) = summarizing.await.unwrap();

    assert_eq!(deleted, 200);
    assert_eq!(summarized, 404, "{problem}");
    assert!(problem["detail"].as_str().unwrap().contains("deleted"), "{problem}");
    let named: Vec<String> = every_row(&app.pool)
        .await
        .into_iter()
        .filter(|row| row.contains("racing") || row.contains(SECRET))
        .collect();
    assert!(named.is_empty(), "{named:#?}");
}

/// An upstream that says when it is asked, and answers two seconds later.
struct SaysWhenAsked(Arc<Notify>);

impl Respond for SaysWhenAsked {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        self.0.notify_one();
        ResponseTemplate::new(200)
            .set_body_json(openai_answer(&format!("We fixed src/{SECRET}.rs.")))
            .set_delay(Duration::from_secs(2))
    }
}
