//! What the benchmarks share: a fake OpenAI-compatible upstream and a
//! compactd on a fresh database, both in this process.

#![allow(dead_code)]

use std::time::Duration;

use axum::routing;
use axum::{Json, Router};
use compactd::http::Timeouts;
use compactd::llm::{LlmConfig, Provider, RetryPolicy, tokens};
use compactd::policy::PolicyConfig;
use compactd::startup::{Application, Settings, SummarizerSettings};
use serde_json::{Value, json};
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Executor};

/// An upstream that answers every completion after `delay` with a summary of
/// about 350 tokens, reporting the prompt's real token count as its usage.
pub async fn fake_upstream(delay: Duration) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        routing::post(move |Json(request): Json<Value>| async move {
            tokio::time::sleep(delay).await;
            let prompt: String = request["messages"]
                .as_array()
                .map(|messages| messages.iter().filter_map(|m| m["content"].as_str()).collect())
                .unwrap_or_default();
            let summary = "The agent and the user worked through deployments and tickets; decisions and open tasks stand as before. ".repeat(20);
            Json(json!({
                "model": "fake-summarizer",
                "choices": [{"message": {"role": "assistant", "content": summary}}],
                "usage": {"prompt_tokens": tokens::count(&prompt), "completion_tokens": tokens::count(&summary)},
            }))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port for the fake upstream");
    let address = format!("http://{}", listener.local_addr().expect("its address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    address
}

/// compactd on a fresh database `name`, with `upstream` as its summarizer;
/// answers its base URL.
pub async fn compactd(name: &str, upstream: &str, pool_size: u32) -> String {
    let admin: PgConnectOptions = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
        .parse()
        .expect("DATABASE_URL is a Postgres URL");
    let mut conn = admin.connect().await.expect("the bench Postgres answers");
    conn.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str())
        .await
        .expect("drop");
    conn.execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .expect("create");
    let llm = LlmConfig {
        provider: Provider::OpenAi,
        base_url: format!("{upstream}/v1"),
        api_key: None,
        retry: RetryPolicy::default(),
        max_concurrent: 32,
    };
    let settings = Settings {
        addr: "127.0.0.1:0".parse().expect("an address"),
        max_body_bytes: 4 * 1024 * 1024,
        policy: PolicyConfig::default(),
        summarizer: Some(SummarizerSettings {
            llm,
            model: "fake-summarizer".into(),
            max_output_tokens: 1500,
            score_model: None,
        }),
        rate_per_second: 0,
        rate_burst: 0,
        timeouts: Timeouts {
            request: Duration::from_secs(10),
            summarize: Duration::from_secs(90),
        },
        daily_token_budget: None,
        background: None,
    };
    let pool = compactd::store::pool(admin.database(name), pool_size);
    let app = Application::build(settings, pool).await.expect("compactd builds");
    let address = format!("http://{}", app.local_addr());
    tokio::spawn(app.run_until(std::future::pending()));
    address
}

pub async fn post(client: &reqwest::Client, url: String, body: Value) -> Value {
    let response = client.post(url).json(&body).send().await.expect("compactd answers");
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.expect("JSON")
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}
