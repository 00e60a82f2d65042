//! The MCP server at /mcp (issue 13), driven by the official MCP Python SDK
//! (`mcp` on PyPI, pinned) against the real binary with API keys on: it
//! lists the tools and calls each; another tenant's key sees nothing of the
//! conversation, and no key or a bad one is refused.

use compactd::app::keys as admin;
use serde_json::{Value, json};

use crate::binary;
use crate::helpers::Database;
use crate::python;

const MCP: &str = "mcp==2.3.0";

async fn post(client: &reqwest::Client, url: String, key: &str, body: Value) -> Value {
    let response = client.post(url).bearer_auth(key).json(&body).send().await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_mcp_python_sdk_lists_and_calls_every_tool_with_the_tenants_keys() {
    let venv = tokio::task::spawn_blocking(|| python::venv("mcp", &[MCP]))
        .await
        .unwrap();
    let database = Database::create().await;
    let (_, alice) = admin::create(&database.pool, "alice", "reader", Some("mcp"))
        .await
        .unwrap();
    let (_, alice_writes) = admin::create(&database.pool, "alice", "agent", Some("mcp"))
        .await
        .unwrap();
    let (_, bob) = admin::create(&database.pool, "bob", "agent", Some("mcp"))
        .await
        .unwrap();
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;
    let base = &service.address;
    let client = reqwest::Client::new();
    let id = "mcp-conversation";
    post(
        &client,
        format!("{base}/usage"),
        &alice_writes,
        json!({"conversation_id": id, "used": 5000}),
    )
    .await;
    for (user, assistant) in [
        (
            "Deploy build 4711 to staging. Never deploy on Fridays.",
            "Deployed build 4711 to staging.",
        ),
        (
            "Now tag it v2.3.1 and update docs/release.md.",
            "Tagged v2.3.1; docs/release.md updated.",
        ),
    ] {
        let body = json!({"conversation_id": id, "user": user, "assistant": assistant});
        post(&client, format!("{base}/turn-ended"), &alice_writes, body).await;
    }
    let summary = json!({"conversation_id": id, "summary": "Build 4711 is on staging.", "trigger": "harness", "harness": "claude-code"});
    post(&client, format!("{base}/summarize"), &alice_writes, summary).await;
    let successor = "mcp-successor";
    let handoff = json!({"conversation_id": id, "successor_id": successor});
    let handed = post(&client, format!("{base}/handoff"), &alice_writes, handoff).await;
    let text = handed["text"].as_str().unwrap();
    let bookmark = text
        .split(&format!(
            "call search_history with conversation_id: \"{id}\" and from: \""
        ))
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the handoff names a bookmark");

    let run = tokio::process::Command::new(venv.join("bin/python"))
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/client.py"))
        .env("COMPACTD_MCP_URL", format!("{base}/mcp"))
        .env("KEY", &alice)
        .env("OTHER_KEY", &bob)
        .env("CONVERSATION", id)
        .env("SUCCESSOR", successor)
        .env("BOOKMARK", bookmark)
        .output()
        .await
        .expect("python runs");
    let logged = service.stop().await;
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).expect("the client prints JSON");

    assert_eq!(
        seen["tools"],
        json!(["get_compactions", "get_context", "get_keep_set", "search_history"])
    );
    let calls = &seen["calls"];
    let found = &calls["search_words"]["body"]["turns"];
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["id"], 1);
    assert!(found[0]["user"].as_str().unwrap().contains("Never deploy on Fridays."));
    let from = calls["search_from"]["body"]["turns"].as_array().unwrap();
    assert_eq!(
        from.iter().map(|t| t["id"].clone()).collect::<Vec<_>>(),
        [json!(2), json!(1)],
        "read back from the bookmark"
    );
    assert_eq!(
        calls["search_from_quoted"]["body"]["turns"], calls["search_from"]["body"]["turns"],
        "the bookmark as the handoff quotes it works too: {}",
        calls["search_from_quoted"]
    );
    assert_eq!(calls["bad_from"]["error"], true);
    assert_eq!(calls["bad_from"]["body"]["status"], 422);
    assert_eq!(calls["bad_from"]["body"]["field"], "from");
    let before = calls["after_handoff"]["body"]["turns"].as_array().unwrap();
    assert_eq!(
        before
            .iter()
            .map(|t| (t["conversation_id"].clone(), t["id"].clone()))
            .collect::<Vec<_>>(),
        [(json!(id), json!(2)), (json!(id), json!(1))],
        "the successor reads its predecessor from the bookmark its handoff quoted: {}",
        calls["after_handoff"]
    );
    assert_eq!(calls["context"]["error"], false);
    assert_eq!(
        calls["context"]["body"]["recent"].as_array().unwrap().len(),
        2,
        "{}",
        calls["context"]
    );
    let rules = calls["keep"]["body"]["items"].as_array().unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0]["text"], "Never deploy on Fridays.");
    let compactions = calls["compactions"]["body"]["compactions"].as_array().unwrap();
    assert_eq!(compactions.len(), 1);
    assert_eq!(compactions[0]["harness"], "claude-code");
    for (label, call) in calls.as_object().unwrap() {
        assert_eq!(
            call["structured"], call["body"],
            "{label}: the answer as structured content too"
        );
    }
    // Refusals come back as tool errors holding the REST API's problem.
    assert_eq!(calls["bad_kind"]["error"], true);
    assert_eq!(calls["bad_kind"]["body"]["status"], 422);
    assert_eq!(calls["bad_kind"]["body"]["field"], "kind");
    assert_eq!(calls["unknown"]["error"], true);
    assert_eq!(calls["unknown"]["body"]["status"], 404);

    // Another tenant is told the conversation does not exist, as on REST.
    assert_eq!(seen["other_tenant"]["error"], true);
    assert_eq!(seen["other_tenant"]["body"]["status"], 404);
    for refused in ["without_key", "bad_key"] {
        let why = &seen[refused];
        assert!(why["sdk"].is_string(), "{refused} was let in: {seen}");
        assert_eq!(why["status"], 401, "{refused}: {why}");
        assert_eq!(why["problem"]["type"], "/problems/unauthorized", "{why}");
    }
    assert!(logged.iter().all(|line| !line.contains("panicked")), "{logged:#?}");
}

/// POSTs `raw` to the app's /mcp as an MCP client would: status, content
/// type and JSON answer.
async fn rpc(app: &crate::helpers::TestApp, raw: &str) -> (u16, String, Value) {
    let response = app
        .client
        .post(format!("{}/mcp", app.address))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(raw.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    let answer = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {status} {text}"));
    (status, content_type, answer)
}

#[tokio::test]
async fn what_is_no_json_rpc_message_gets_json_rpc_s_own_errors() {
    let app = crate::helpers::spawn_app().await;
    for (raw, status, id, code) in [
        ("{not json", 400, Value::Null, -32700),
        ("{\"foo\": 1}", 400, Value::Null, -32600),
        ("[]", 400, Value::Null, -32600),
        (
            r#"{"jsonrpc": "1.0", "id": 4, "method": "tools/list"}"#,
            400,
            json!(4),
            -32600,
        ),
        // A known method with params it cannot take is not an unknown method.
        (
            r#"{"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}"#,
            200,
            json!(5),
            -32602,
        ),
        (
            r#"{"jsonrpc": "2.0", "id": 6, "method": "no/such/method"}"#,
            200,
            json!(6),
            -32601,
        ),
    ] {
        let (got, content_type, answer) = rpc(&app, raw).await;
        assert_eq!(got, status, "{raw}: {answer}");
        assert_eq!(content_type, "application/json", "{raw}");
        assert_eq!(answer["jsonrpc"], "2.0", "{raw}: {answer}");
        assert_eq!(answer["id"], id, "{raw}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{raw}: {answer}");
    }
    let (status, _, answer) = rpc(
        &app,
        r#"{"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}"#,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(answer["result"]["serverInfo"]["name"], "compactd", "{answer}");
}

#[tokio::test]
async fn a_tool_given_arguments_of_the_wrong_shape_answers_the_problem_naming_the_field() {
    let app = crate::helpers::spawn_app().await;
    for (arguments, field) in [
        (json!({"conversation_id": 5}), "conversation_id"),
        (json!({}), "conversation_id"),
        (json!({"conversation_id": "c", "limit": "many"}), "limit"),
        (json!({"conversation_id": "c", "surprise": true}), "surprise"),
    ] {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "search_history", "arguments": arguments}});
        let (status, _, answer) = rpc(&app, &call.to_string()).await;
        assert_eq!(status, 200, "{answer}");
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{arguments}: {answer}");
        let problem = &result["structuredContent"];
        assert_eq!(problem["status"], 422, "{arguments}: {answer}");
        assert_eq!(problem["type"], "/problems/invalid-value", "{arguments}: {answer}");
        assert_eq!(problem["field"], field, "{arguments}: {answer}");
    }
}
