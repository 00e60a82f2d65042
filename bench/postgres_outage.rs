//! Postgres crashes and comes back under load: every acknowledged write is
//! there afterwards, requests during the outage get a fast 503 (none hangs
//! past the request deadline), and the service recovers by itself.
//!
//! `cargo run --release --example postgres_outage` — it runs a Postgres of its
//! own (from the machine's server binaries, as compactd's private one does),
//! crashes it with SIGQUIT (immediate shutdown: no checkpoint, WAL recovery on
//! restart) and restarts it on the same port.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use compactd::config::Settings;
use compactd::config::Timeouts;
use compactd::policy::PolicyConfig;
use compactd::startup::Application;
use private_postgres::PrivatePostgres;
use serde_json::json;
use sqlx::postgres::PgConnectOptions;
use tokio::sync::Mutex;

const CLIENTS: usize = 16;
const REQUEST_DEADLINE: Duration = Duration::from_secs(5);

#[derive(Default)]
struct Record {
    acknowledged: Vec<String>,
    /// (when, status, how long it took): every answer that was not a 200.
    refusals: Vec<(Instant, u16, Duration)>,
    /// When each 200 came.
    successes: Vec<Instant>,
    slowest: Duration,
    transport_errors: u64,
}

async fn client(n: usize, base: String, stop: Arc<AtomicBool>, record: Arc<Mutex<Record>>) {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("a client");
    let mut op = 0;
    while !stop.load(Ordering::Relaxed) {
        op += 1;
        let key = format!("client-{n}-op-{op}");
        let body = json!({"conversation_id": format!("c{}", n % 4), "user": key});
        // Like a real agent: retry the same operation, same key, until it is
        // acknowledged or the run ends.
        loop {
            let started = Instant::now();
            let sent = http
                .post(format!("{base}/turn-ended"))
                .header("Idempotency-Key", &key)
                .json(&body)
                .send()
                .await;
            let took = started.elapsed();
            let mut record = record.lock().await;
            record.slowest = record.slowest.max(took);
            match sent {
                Ok(response) if response.status() == 200 => {
                    record.acknowledged.push(key.clone());
                    record.successes.push(Instant::now());
                    break;
                }
                Ok(response) => record.refusals.push((Instant::now(), response.status().as_u16(), took)),
                Err(_) => record.transport_errors += 1,
            }
            drop(record);
            if stop.load(Ordering::Relaxed) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[tokio::main]
async fn main() {
    let dir = std::env::temp_dir().join(format!("compactd-outage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let database = tokio::task::block_in_place(|| PrivatePostgres::start(&dir)).expect("a Postgres to crash");
    let port = database.port();
    let settings = Settings {
        addr: "127.0.0.1:0".parse().expect("an address"),
        max_body_bytes: 1024 * 1024,
        policy: PolicyConfig::default(),
        summarizer: None,
        rate_per_second: 0,
        rate_burst: 0,
        timeouts: Timeouts {
            request: REQUEST_DEADLINE,
            summarize: REQUEST_DEADLINE,
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
    };
    let pool = compactd::store::pool(database.url().parse::<PgConnectOptions>().expect("its own URL"), 16);
    let app = Application::build(settings, pool).await.expect("compactd builds");
    let base = format!("http://{}", app.local_addr());
    tokio::spawn(app.run_until(std::future::pending()));

    let stop = Arc::new(AtomicBool::new(false));
    let record = Arc::new(Mutex::new(Record::default()));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|n| tokio::spawn(client(n, base.clone(), stop.clone(), record.clone())))
        .collect();

    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut database = database;
    let down_at = Instant::now();
    tokio::task::block_in_place(|| database.crash());
    println!("Postgres crashed (SIGQUIT) at t+3 s; down for 5 s");
    tokio::time::sleep(Duration::from_secs(5)).await;
    let database = tokio::task::block_in_place(|| PrivatePostgres::start_on(&dir, Some(port))).expect("a restart");
    let up_at = Instant::now();
    println!(
        "Postgres restarted after {:.1} s (WAL recovery included)",
        (up_at - down_at).as_secs_f64()
    );
    tokio::time::sleep(Duration::from_secs(7)).await;
    stop.store(true, Ordering::Relaxed);
    for client in clients {
        let _ = client.await;
    }

    let record = record.lock().await;
    let pool = compactd::store::pool(database.url().parse::<PgConnectOptions>().expect("its own URL"), 2);
    let stored: Vec<String> = sqlx::query_scalar("SELECT user_text FROM turns")
        .fetch_all(&pool)
        .await
        .expect("the turns");
    let missing = record.acknowledged.iter().filter(|key| !stored.contains(key)).count();
    let mut seen = std::collections::HashSet::new();
    let duplicated = stored.iter().filter(|text| !seen.insert(*text)).count();
    let during: Vec<_> = record
        .refusals
        .iter()
        .filter(|(when, _, _)| *when >= down_at && *when <= up_at)
        .collect();
    let slowest_refusal = during.iter().map(|(_, _, took)| *took).max().unwrap_or_default();
    let statuses: std::collections::BTreeMap<u16, usize> =
        record
            .refusals
            .iter()
            .fold(Default::default(), |mut counts, (_, status, _)| {
                *counts.entry(*status).or_default() += 1;
                counts
            });
    let first_after = record.successes.iter().filter(|when| **when > up_at).min();

    println!("acknowledged writes: {}", record.acknowledged.len());
    println!("  missing afterwards: {missing}");
    println!("  stored twice: {duplicated}");
    println!(
        "refusals: {statuses:?} ({} during the outage); transport errors: {}",
        during.len(),
        record.transport_errors
    );
    println!(
        "  slowest refusal during the outage: {:.0} ms (request deadline {REQUEST_DEADLINE:?})",
        slowest_refusal.as_secs_f64() * 1e3
    );
    println!("  slowest answer of all: {:.0} ms", record.slowest.as_secs_f64() * 1e3);
    match first_after {
        Some(when) => println!(
            "first success after the restart: {:.2} s after it",
            (*when - up_at).as_secs_f64()
        ),
        None => println!("no success after the restart"),
    }
    drop(database);
    let _ = std::fs::remove_dir_all(&dir);
}
