//! What the benchmarks share: a fake OpenAI-compatible upstream and a
//! compactd on a fresh database, both in this process.

#![allow(dead_code)]

use std::time::Duration;

use axum::routing;
use axum::{Json, Router};
use compactd::config::Timeouts;
use compactd::config::{Settings, Upstream};
use compactd::llm::tokens;
use compactd::llm::{LlmConfig, Provider, RetryPolicy};
use compactd::policy::PolicyConfig;
use compactd::startup::Application;
use serde_json::{Value, json};
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Executor};

/// How many calls of each kind the fake upstream answered.
pub static CALLS: [std::sync::atomic::AtomicUsize; 4] = [const { std::sync::atomic::AtomicUsize::new(0) }; 4];
pub const SUMMARY: usize = 0;
pub const SCORE: usize = 1;
pub const RESCORE: usize = 2;
pub const MEMORY: usize = 3;

/// What the fake upstream answers a prompt with, and which kind of call it was.
fn answer(prompt: &str) -> (String, usize) {
    // Like a model would: thanks are chatter, tickets matter.
    let score = |turn: &str| {
        if turn.contains("thanks") {
            1
        } else if turn.contains("OPS-") {
            4
        } else {
            3
        }
    };
    if prompt.contains("Answer with the digit alone") {
        let turn = prompt.split("The turn is data").last().unwrap_or_default();
        (score(turn).to_string(), SCORE)
    } else if prompt.contains("One line per turn") {
        let turns = prompt.split("The turns are data").last().unwrap_or_default();
        let ids = regex::Regex::new(r"(?m)^turn (\d+):$").expect("a pattern");
        let starts: Vec<(usize, &str)> = ids
            .captures_iter(turns)
            .map(|c| (c.get(0).map_or(0, |m| m.start()), c.get(1).map_or("", |m| m.as_str())))
            .collect();
        let lines: Vec<String> = starts
            .iter()
            .enumerate()
            .map(|(i, (start, id))| {
                let end = starts.get(i + 1).map_or(turns.len(), |(next, _)| *next);
                format!("{id}: {}", score(&turns[*start..end]))
            })
            .collect();
        (lines.join("\n"), RESCORE)
    } else if prompt.contains("rolling memory") {
        ("- the work goes on".to_owned(), MEMORY)
    } else {
        let summary =
            "The agent and the user worked through deployments and tickets; decisions and open tasks stand as before. ";
        (summary.repeat(20), SUMMARY)
    }
}

/// An upstream that answers every completion after `delay`: a summary of
/// about 350 tokens, a score, a re-score or a memory, as the prompt asks,
/// reporting the prompt's real token count as its usage.
pub async fn fake_upstream(delay: Duration) -> String {
    let app = Router::new().route(
        "/v1/chat/completions",
        routing::post(move |Json(request): Json<Value>| async move {
            tokio::time::sleep(delay).await;
            let prompt: String = request["messages"]
                .as_array()
                .map(|messages| messages.iter().filter_map(|m| m["content"].as_str()).collect())
                .unwrap_or_default();
            // Counting a long prompt takes a while: not on the threads that
            // serve compactd in this same process.
            let answered = tokio::task::spawn_blocking(move || {
                let (summary, kind) = answer(&prompt);
                CALLS[kind].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                json!({
                    "model": "fake-summarizer",
                    "choices": [{"message": {"role": "assistant", "content": summary}}],
                    "usage": {"prompt_tokens": tokens::count(&prompt), "completion_tokens": tokens::count(&summary)},
                })
            });
            Json(answered.await.expect("the fake upstream answers"))
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
    compactd_with(name, upstream, pool_size, None).await
}

/// As [`compactd`], scoring turns with `background` workers when given.
pub async fn compactd_with(
    name: &str,
    upstream: &str,
    pool_size: u32,
    background: Option<compactd::config::BackgroundSettings>,
) -> String {
    let scores = background.is_some();
    serve(name, settings(upstream, background, scores), pool_size).await
}

/// compactd's settings for a bench: `upstream` writes summaries (and scores
/// turns, when `scores`), `background` runs the workers.
pub fn settings(upstream: &str, background: Option<compactd::config::BackgroundSettings>, scores: bool) -> Settings {
    let llm = LlmConfig {
        provider: Provider::OpenAi,
        base_url: format!("{upstream}/v1"),
        api_key: None,
        retry: RetryPolicy::default(),
        max_concurrent: 32,
    };
    Settings {
        addr: "127.0.0.1:0".parse().expect("an address"),
        max_body_bytes: 4 * 1024 * 1024,
        policy: PolicyConfig::default(),
        summarizer: Some(Upstream {
            llm,
            model: "fake-summarizer".into(),
            score_model: scores.then(|| "fake-scorer".to_owned()),
            context_tokens: None,
        }),
        rate_per_second: 0,
        rate_burst: 0,
        timeouts: Timeouts {
            request: Duration::from_secs(10),
            summarize: Duration::from_secs(90),
        },
        connections: compactd::config::ConnectionLimits::default(),
        database_wait: Duration::from_secs(10),
        summaries: Default::default(),
        daily_token_budget: None,
        leases: compactd::config::Leases::default(),
        allowed_hosts: compactd::config::AllowedHosts::default(),
        database: compactd::config::DatabaseSettings::default(),
        work: compactd::config::WorkLimits::default(),
        prices: Default::default(),
        background,
    }
}

/// The bench's Postgres, `DATABASE_URL` or the machine's own.
pub fn admin() -> PgConnectOptions {
    std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
        .parse()
        .expect("DATABASE_URL is a Postgres URL")
}

/// compactd with `settings` on a fresh database `name`; answers its base URL.
pub async fn serve(name: &str, settings: Settings, pool_size: u32) -> String {
    let admin = admin();
    let mut conn = admin.connect().await.expect("the bench Postgres answers");
    conn.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str())
        .await
        .expect("drop");
    conn.execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .expect("create");
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

pub async fn post_get(url: &str) -> Value {
    let response = reqwest::get(url).await.expect("compactd answers");
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.expect("JSON")
}
