//! What the logs never hold: API keys and upstream keys, at any level.

use compactd::app::keys as admin;
use serde_json::json;

use crate::binary;
use crate::helpers::Database;

#[tokio::test]
async fn keys_never_appear_in_the_logs_even_at_trace_level() {
    let database = Database::create().await;
    let (_, key) = admin::create(&database.pool, "acme", "agent", None).await.unwrap();
    let (revoked_id, revoked) = admin::create(&database.pool, "acme", "agent", None).await.unwrap();
    admin::revoke(&database.pool, &revoked_id).await.unwrap();
    let url = database.url();
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("RUST_LOG", "trace"),
        ("COMPACTD_LLM_PROVIDER", "openai"),
        ("COMPACTD_LLM_BASE_URL", "http://127.0.0.1:9/v1"),
        ("COMPACTD_LLM_API_KEY", "sk-upstream-secret-0123456789"),
        ("COMPACTD_SUMMARY_MODEL", "m"),
        ("COMPACTD_LLM_DEADLINE_SECS", "2"),
    ];
    let service = binary::start(&env, &[]).await;
    let client = reqwest::Client::new();
    let usage = json!({"conversation_id": "c", "used": 1});
    let turn = json!({"conversation_id": "c", "user": "hello"});
    let ok = client
        .post(format!("{}/usage", service.address))
        .bearer_auth(&key)
        .json(&usage)
        .send()
        .await
        .unwrap();
    client
        .post(format!("{}/turn-ended", service.address))
        .bearer_auth(&key)
        .json(&turn)
        .send()
        .await
        .unwrap();
    let denied = client
        .post(format!("{}/usage", service.address))
        .bearer_auth(&revoked)
        .json(&usage)
        .send()
        .await
        .unwrap();
    let summarize = json!({"conversation_id": "c"});
    let failed = client
        .post(format!("{}/summarize", service.address))
        .bearer_auth(&key)
        .json(&summarize)
        .send()
        .await
        .unwrap();

    let output = service.stop().await;

    assert_eq!(
        (ok.status().as_u16(), denied.status().as_u16(), failed.status().as_u16()),
        (200, 401, 200)
    );
    assert!(output.len() > 20, "trace logging ran: {} lines", output.len());
    let secrets = [&key[21..], &revoked[21..], "sk-upstream-secret-0123456789"];
    for line in &output {
        for secret in secrets {
            assert!(!line.contains(secret), "a secret was logged: {line}");
        }
    }
}
