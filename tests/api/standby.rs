//! The fleet's reads off a streaming standby (`COMPACTD_READ_DATABASE_URL`):
//! a real one, made with `pg_basebackup` from a private primary. While it
//! keeps up the fleet's reads go to it and a caller's reads of its own
//! conversation stay on the primary; lagging past the allowed lag or lost,
//! it is left for the primary, and `/readyz` and `/metrics` say so.

use std::path::PathBuf;
use std::time::Duration;

use compactd::config::{DatabaseSettings, Settings, Standby};
use compactd::startup::Application;
use compactd::store;
use private_postgres::PrivatePostgres;
use serde_json::{Value, json};
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection};
use tokio::sync::oneshot;

use crate::helpers::{read, test_settings};

/// A service on the private primary, reading the fleet's figures off `standby`.
struct Service {
    address: String,
    client: reqwest::Client,
    _shutdown: oneshot::Sender<()>,
}

impl Service {
    async fn start(primary: &PrivatePostgres, standby: &PrivatePostgres, max_lag: Duration) -> Self {
        let settings = Settings {
            database: DatabaseSettings {
                direct_url: None,
                standby: Some(Standby::new(standby.url(), max_lag)),
            },
            ..test_settings()
        };
        let options: PgConnectOptions = primary.url().parse().unwrap();
        let app = Application::build(settings, store::pool(options, 4))
            .await
            .expect("the app builds");
        let address = format!("http://127.0.0.1:{}", app.port());
        let (shutdown, stopped) = oneshot::channel::<()>();
        tokio::spawn(app.run_until(async {
            stopped.await.ok();
        }));
        Self {
            address,
            client: reqwest::Client::new(),
            _shutdown: shutdown,
        }
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        read(self.client.get(format!("{}{path}", self.address)).send().await.unwrap()).await
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        read(
            self.client
                .post(format!("{}{path}", self.address))
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// The conversations the fleet's list shows.
    async fn listed(&self) -> Vec<String> {
        let (status, body) = self.get("/conversations").await;
        assert_eq!(status, 200, "{body}");
        body["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|listed| listed["conversation_id"].as_str().unwrap().to_owned())
            .collect()
    }

    /// What `/readyz` says of the standby, once `state` is what it says.
    async fn standby_becomes(&self, state: &str) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let (status, ready) = self.get("/readyz").await;
            assert_eq!(status, 200, "the primary answers, so the service is ready: {ready}");
            if ready["standby"]["state"] == state {
                return ready["standby"].clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the standby never became {state}: {ready}"
            );
            // The probe runs a few times a second; ask again after a moment.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn metric(&self, series: &str) -> f64 {
        let text = self
            .client
            .get(format!("{}/metrics", self.address))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.lines()
            .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {series} in /metrics"))
    }
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compactd-standby-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

async fn connect(server: &PrivatePostgres) -> PgConnection {
    PgConnection::connect(&server.url()).await.unwrap()
}

/// Waits until the standby has replayed all the primary has written.
async fn caught_up(primary: &PrivatePostgres, standby: &PrivatePostgres) {
    let end: String = sqlx::query_scalar("SELECT pg_current_wal_lsn()::text")
        .fetch_one(&mut connect(primary).await)
        .await
        .unwrap();
    let mut standby = connect(standby).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let replayed: bool = sqlx::query_scalar("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn")
            .bind(&end)
            .fetch_one(&mut standby)
            .await
            .unwrap();
        if replayed {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "the standby never caught up");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn the_fleets_reads_follow_the_standby_while_it_keeps_up_and_the_primary_when_it_lags_or_is_lost() {
    let dir = scratch_dir();
    let primary = PrivatePostgres::start(&dir.join("primary")).expect("a private primary starts");
    let mut standby = primary
        .start_standby(&dir.join("standby"))
        .expect("pg_basebackup makes a standby, which starts");
    let patient = Service::start(&primary, &standby, Duration::from_secs(600)).await;
    let following = patient.standby_becomes("following").await;
    assert_eq!(following["reads_on"], "standby");

    // Seen by both; then the standby stops replaying, and a second
    // conversation is written on the primary only.
    let (status, _) = patient
        .post("/usage", json!({"conversation_id": "seen", "used": 1000}))
        .await;
    assert_eq!(status, 200);
    caught_up(&primary, &standby).await;
    sqlx::query("SELECT pg_wal_replay_pause()")
        .execute(&mut connect(&standby).await)
        .await
        .unwrap();
    let (status, _) = patient
        .post("/usage", json!({"conversation_id": "unseen", "used": 2000}))
        .await;
    assert_eq!(status, 200);

    // Read-your-writes: the caller's own conversation is read on the primary.
    let (status, own) = patient.get("/conversations/unseen").await;
    assert_eq!((status, own["used"].as_u64()), (200, Some(2000)), "{own}");
    // The fleet's list is read on the standby, which has not replayed it.
    assert_eq!(patient.listed().await, ["seen"]);
    let (status, stats) = patient.get("/stats").await;
    assert_eq!(status, 200, "{stats}");
    assert!(patient.metric("compactd_fleet_reads_total{database=\"standby\"}").await >= 2.0);

    // A service that allows little lag sees it pass and reads the primary
    // (alone: the two would share the process's metrics).
    drop(patient);
    let strict = Service::start(&primary, &standby, Duration::from_millis(300)).await;
    let lagging = strict.standby_becomes("lagging").await;
    assert_eq!(lagging["reads_on"], "primary");
    assert!(lagging["lag_ms"].as_u64().unwrap() > 300, "{lagging}");
    assert_eq!(strict.listed().await, ["unseen", "seen"]);
    assert_eq!(strict.metric("compactd_standby_serving").await, 0.0);
    assert!(strict.metric("compactd_standby_lag_seconds").await > 0.3);

    // Replaying again, it catches up and is read again.
    sqlx::query("SELECT pg_wal_replay_resume()")
        .execute(&mut connect(&standby).await)
        .await
        .unwrap();
    let caught = strict.standby_becomes("following").await;
    assert_eq!(caught["reads_on"], "standby");
    assert_eq!(strict.listed().await, ["unseen", "seen"]);

    // Lost: the service stays ready and reads the primary.
    standby.stop();
    let lost = strict.standby_becomes("lost").await;
    assert_eq!(lost["reads_on"], "primary");
    assert!(lost["trouble"].as_str().is_some_and(|why| !why.is_empty()), "{lost}");
    assert_eq!(strict.listed().await, ["unseen", "seen"]);
    let (status, _) = strict.get("/stats").await;
    assert_eq!(status, 200);
    drop(standby);
    drop(primary);
    let _ = std::fs::remove_dir_all(&dir);
}
