//! Starts the real service on port 0 against a fresh database of its own, and
//! talks to it over HTTP.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use compactd::policy::PolicyConfig;
use std::time::Duration;

use std::sync::Arc;

use compactd::auth::KeyRegistry;
use compactd::config::Timeouts;
use compactd::config::{Settings, Upstream};
use compactd::llm::{LlmConfig, Provider, RetryPolicy};
use compactd::startup::Application;
use compactd::store;
use reqwest::{RequestBuilder, Response};
use serde_json::Value;
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgPool};
use tokio::sync::oneshot;

/// The server the tests create their databases on: `DATABASE_URL`, else the
/// machine's own Postgres.
pub fn admin_options() -> PgConnectOptions {
    admin_url().parse().expect("DATABASE_URL is a Postgres URL")
}

fn admin_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    /// The app's own database, for arranging states HTTP cannot reach yet.
    pub pool: PgPool,
    /// The app's copy of the API keys.
    pub keys: Arc<KeyRegistry>,
    database: String,
    shutdown: Option<oneshot::Sender<()>>,
}

pub async fn spawn_app() -> TestApp {
    spawn(test_settings()).await
}

pub async fn spawn_app_with(policy: PolicyConfig) -> TestApp {
    spawn(Settings {
        policy,
        ..test_settings()
    })
    .await
}

pub async fn spawn_app_with_limit(policy: PolicyConfig, max_body_bytes: usize) -> TestApp {
    spawn(Settings {
        policy,
        max_body_bytes,
        ..test_settings()
    })
    .await
}

/// The app with `upstream` (a wiremock server) as its OpenAI-compatible summarizer.
pub async fn spawn_app_with_upstream(upstream: &str, deadline: Duration) -> TestApp {
    spawn(upstream_settings(upstream, deadline)).await
}

pub fn upstream_settings(upstream: &str, deadline: Duration) -> Settings {
    let llm = LlmConfig {
        provider: Provider::OpenAi,
        base_url: format!("{upstream}/v1"),
        api_key: Some("sk-test".into()),
        retry: RetryPolicy {
            deadline,
            base: Duration::from_millis(10),
            cap: Duration::from_millis(50),
            ..RetryPolicy::default()
        },
        max_concurrent: 32,
    };
    let summarizer = Upstream {
        llm,
        model: "summary-model".into(),
        score_model: None,
        context_tokens: None,
    };
    Settings {
        summarizer: Some(summarizer),
        ..test_settings()
    }
}

pub fn test_settings() -> Settings {
    Settings {
        addr: "127.0.0.1:0".parse().unwrap(),
        max_body_bytes: 4 * 1024 * 1024,
        policy: PolicyConfig::default(),
        summarizer: None,
        rate_per_second: 1000,
        rate_burst: 2000,
        timeouts: Timeouts {
            request: Duration::from_secs(10),
            summarize: Duration::from_secs(30),
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
        background: None,
    }
}

pub async fn spawn(settings: Settings) -> TestApp {
    spawn_with_pool(settings, 20).await
}

/// The app with `settings` and a pool of `connections` for its requests.
pub async fn spawn_with_pool(settings: Settings, connections: u32) -> TestApp {
    let database = unique_database_name();
    let mut admin = admin_options().connect().await.expect("the test Postgres answers");
    sqlx::query(&format!("CREATE DATABASE \"{database}\""))
        .execute(&mut admin)
        .await
        .unwrap();
    admin.close().await.ok();
    let pool = store::pool(admin_options().database(&database), connections);
    let app = Application::build(settings, pool.clone())
        .await
        .expect("the app builds");
    let address = format!("http://127.0.0.1:{}", app.port());
    let keys = app.keys();
    let (shutdown, stopped) = oneshot::channel::<()>();
    tokio::spawn(app.run_until(async {
        stopped.await.ok();
    }));
    TestApp {
        address,
        client: reqwest::Client::new(),
        pool,
        keys,
        database,
        shutdown: Some(shutdown),
    }
}

/// A fresh, migrated database of its own, dropped with the guard; for tests
/// that run the binary instead of the library.
pub struct Database {
    pub name: String,
    pub pool: PgPool,
}

impl Database {
    pub async fn create() -> Self {
        let database = Self::empty().await;
        store::migrate(&database.pool).await.unwrap();
        database
    }

    /// A database with no schema at all.
    pub async fn empty() -> Self {
        let name = unique_database_name();
        let mut admin = admin_options().connect().await.expect("the test Postgres answers");
        sqlx::query(&format!("CREATE DATABASE \"{name}\""))
            .execute(&mut admin)
            .await
            .unwrap();
        let pool = store::pool(admin_options().database(&name), 4);
        Self { name, pool }
    }

    /// A URL for the binary's `DATABASE_URL`: the test server's, this database.
    pub fn url(&self) -> String {
        Self::url_of(&self.name)
    }

    fn url_of(name: &str) -> String {
        let base = admin_url();
        let (head, query) = base.split_once('?').map_or((base.as_str(), ""), |(h, q)| (h, q));
        let server = head.rsplit_once('/').map_or(head, |(server, _)| server);
        let query = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        format!("{server}/{name}{query}")
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        drop_database(self.name.clone());
    }
}

fn unique_database_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!(
        "compactd_test_{}_{}_{}",
        std::process::id(),
        nanos,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        drop_database(self.database.clone());
    }
}

/// Drops a test database from a thread of its own: this may run inside the
/// test's runtime, which cannot be blocked on.
fn drop_database(name: String) {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            if let Ok(mut admin) = admin_options().connect().await {
                let drop = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
                let _ = sqlx::query(&drop).execute(&mut admin).await;
            }
        });
    })
    .join()
    .ok();
}

impl TestApp {
    /// A URL for the binary's `DATABASE_URL`: the test server's, this app's database.
    pub fn database_url(&self) -> String {
        Database::url_of(&self.database)
    }

    pub fn post(&self, path: &str) -> RequestBuilder {
        self.client.post(format!("{}{path}", self.address))
    }

    pub fn get(&self, path: &str) -> RequestBuilder {
        self.client.get(format!("{}{path}", self.address))
    }

    /// POSTs JSON and answers the status and the parsed body.
    pub async fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        read(self.post(path).json(body).send().await.expect("the request is sent")).await
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        read(self.get(path).send().await.expect("the request is sent")).await
    }

    /// A report that must succeed; answers its body.
    pub async fn report(&self, path: &str, body: Value) -> Value {
        let (status, answer) = self.post_json(path, &body).await;
        assert_eq!(status, 200, "{path} {body} answered {answer}");
        answer
    }

    pub async fn state(&self, id: &str) -> Value {
        let (status, body) = self.get_json(&format!("/conversations/{}", encode(id))).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    pub async fn events(&self, id: &str) -> Vec<Value> {
        let (status, body) = self
            .get_json(&format!("/conversations/{}/events?limit=1000", encode(id)))
            .await;
        assert_eq!(status, 200, "{body}");
        body["events"].as_array().unwrap().clone()
    }

    pub async fn conversation_count(&self) -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM conversations")
            .fetch_one(&self.pool)
            .await
            .unwrap()
    }
}

pub async fn read(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body)
}

/// Percent-encodes a path segment.
pub fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Waits, without polling, until `count_sql` (a scalar count over the app's
/// database) reaches `at_least`: background workers NOTIFY on every piece of
/// work they finish, and the count is looked at again after each.
pub async fn wait_for_count(pool: &PgPool, count_sql: &str, at_least: i64) -> i64 {
    let mut listener = sqlx::postgres::PgListener::connect_with(pool).await.unwrap();
    listener.listen("compactd_background").await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let count: i64 = sqlx::query_scalar(count_sql).fetch_one(pool).await.unwrap();
        if count >= at_least {
            return count;
        }
        let notified = tokio::time::timeout_at(deadline, listener.recv()).await;
        assert!(
            notified.is_ok(),
            "timed out waiting for `{count_sql}` to reach {at_least} (at {count})"
        );
    }
}

/// Waits, up to `within`, until `check` holds.
pub async fn until<F: Future<Output = bool>>(within: Duration, mut check: impl FnMut() -> F) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

impl TestApp {
    /// A second service on this app's database, as another replica would be.
    pub async fn replica(&self, settings: Settings) -> (String, oneshot::Sender<()>) {
        self.replica_through(settings, admin_options()).await
    }

    /// A replica that reaches this app's database at `server` (a proxy, say).
    pub async fn replica_through(&self, settings: Settings, server: PgConnectOptions) -> (String, oneshot::Sender<()>) {
        let pool = store::pool(server.database(&self.database), 4);
        let app = Application::build(settings, pool).await.expect("the replica builds");
        let address = format!("http://127.0.0.1:{}", app.port());
        let (shutdown, stopped) = oneshot::channel::<()>();
        tokio::spawn(app.run_until(async {
            stopped.await.ok();
        }));
        (address, shutdown)
    }
}

/// The completions a fake upstream was asked for, in order: what it
/// received less the model listing compactd reads first (SPEC §3, *Any
/// context size*).
pub async fn completions(upstream: &wiremock::MockServer) -> Vec<wiremock::Request> {
    let received = upstream.received_requests().await.unwrap_or_default();
    received
        .into_iter()
        .filter(|request| request.method == wiremock::http::Method::POST)
        .collect()
}
