//! Which names the service answers to (issue 23): open, loopback names only,
//! so a page that rebinds its own name to 127.0.0.1 reaches nothing; with
//! keys, any name; a browser's Origin checked, on `/mcp` always; health and
//! metrics answer every name.

use compactd::config::{AllowedHosts, Settings};
use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn, spawn_app, test_settings};

async fn send(app: &TestApp, method: Method, path: &str, headers: &[(&str, &str)], key: Option<&str>) -> (u16, Value) {
    let mut request = app.client.request(method, format!("{}{path}", app.address));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if path == "/usage" {
        request = request.json(&json!({"conversation_id": "rebound", "used": 1}));
    } else if path == "/mcp" {
        request = request
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let body = response.json::<Value>().await.unwrap_or(Value::Null);
    (status, body)
}

const REBOUND: (&str, &str) = ("host", "rebind.evil.example:8080");
const EVIL_PAGE: (&str, &str) = ("origin", "http://rebind.evil.example:8080");

#[tokio::test]
async fn open_a_rebound_name_reaches_nothing_and_changes_nothing() {
    let app = spawn_app().await;

    for (method, path) in [
        (Method::GET, "/conversations"),
        (Method::POST, "/usage"),
        (Method::GET, "/dashboard/"),
        (Method::POST, "/mcp"),
    ] {
        let (status, problem) = send(&app, method, path, &[REBOUND], None).await;
        assert_eq!(status, 403, "{path}: {problem}");
        assert_eq!(problem["type"], "/problems/forbidden", "{path}");
        assert!(
            problem["detail"].as_str().unwrap().contains("COMPACTD_ALLOWED_HOSTS"),
            "{problem}"
        );
    }
    let (status, _) = app.get_json("/conversations/rebound").await;
    assert_eq!(status, 404, "the refused write wrote nothing");

    // A page elsewhere that reaches the right name: its Origin gives it away.
    let (status, _) = send(&app, Method::POST, "/usage", &[EVIL_PAGE], None).await;
    assert_eq!(status, 403);
    // The service's own pages, and loopback names, are answered.
    let own = ("origin", app.address.as_str());
    assert_eq!(send(&app, Method::GET, "/conversations", &[own], None).await.0, 200);
    assert_eq!(
        send(&app, Method::GET, "/conversations", &[("host", "localhost:8080")], None)
            .await
            .0,
        200
    );
    // Orchestrators probe by address.
    for probe in ["/healthz", "/readyz", "/metrics"] {
        let response = app
            .client
            .get(format!("{}{probe}", app.address))
            .header("host", "10.0.3.7:8080")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{probe}");
    }
}

#[tokio::test]
async fn with_keys_every_name_is_answered_but_mcp_still_checks_the_origin() {
    let app = spawn_app().await;
    let (_, key) = crate::auth::key(&app, "acme", "agent").await;

    let (status, body) = send(&app, Method::POST, "/usage", &[REBOUND], Some(&key)).await;
    assert_eq!(status, 200, "keys guard the API: {body}");
    let (status, _) = send(&app, Method::POST, "/mcp", &[EVIL_PAGE], Some(&key)).await;
    assert_eq!(status, 403, "the MCP specification asks servers to check Origin");
    let (status, _) = send(&app, Method::POST, "/mcp", &[], Some(&key)).await;
    assert_eq!(status, 200, "no Origin: not a browser");
}

#[tokio::test]
async fn named_hosts_are_answered_and_no_others() {
    let app = spawn(Settings {
        allowed_hosts: AllowedHosts::parse("compactd.internal, *.svc.example").unwrap(),
        ..test_settings()
    })
    .await;
    let (_, key) = crate::auth::key(&app, "acme", "agent").await;

    for host in ["compactd.internal:8080", "api.svc.example", "127.0.0.1"] {
        let (status, body) = send(&app, Method::POST, "/usage", &[("host", host)], Some(&key)).await;
        assert_eq!(status, 200, "{host}: {body}");
    }
    let (status, _) = send(&app, Method::POST, "/usage", &[REBOUND], Some(&key)).await;
    assert_eq!(status, 403, "names given are checked even with keys");
}
