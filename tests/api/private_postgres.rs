//! With no DATABASE_URL the binary runs a private Postgres in its data folder:
//! it starts (as root too), serves, stops with the service, and is reused.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::helpers::read;

struct Service {
    child: Child,
    address: String,
    output: Vec<String>,
}

/// Starts the binary and reads its output until it says where it listens.
async fn start(data_dir: &Path) -> Service {
    let mut child = Command::new(env!("CARGO_BIN_EXE_compactd"))
        .env_remove("DATABASE_URL")
        .env("COMPACTD_DATA_DIR", data_dir)
        .env("COMPACTD_ADDR", "127.0.0.1:0")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut output = Vec::new();
    let address = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            output.push(line.clone());
            if let Some(address) = line.strip_prefix("compactd listening on ") {
                return address.to_owned();
            }
        }
        panic!("the service exited before listening: {output:#?}");
    })
    .await
    .expect("the service listens within two minutes");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Service { child, address, output }
}

async fn stop(mut service: Service) {
    let pid = service.child.id().expect("still running") as i32;
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = tokio::time::timeout(Duration::from_secs(60), service.child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compactd-private-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[tokio::test]
async fn without_a_database_url_a_private_postgres_is_started_stopped_and_reused() {
    let data_dir = scratch_dir();
    let client = reqwest::Client::new();

    let first = start(&data_dir).await;
    let (ready, _) = read(client.get(format!("{}/readyz", first.address)).send().await.unwrap()).await;
    let body = json!({"conversation_id": "kept", "used": 42});
    let (reported, _) = read(
        client
            .post(format!("{}/usage", first.address))
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(
        first
            .output
            .iter()
            .any(|line| line.contains("initializing the private Postgres"))
    );
    stop(first).await;

    assert_eq!((ready, reported), (200, 200));
    assert!(
        !data_dir.join("pgdata/postmaster.pid").exists(),
        "the server stopped with the service"
    );

    let second = start(&data_dir).await;
    let (status, state) = read(
        client
            .get(format!("{}/conversations/kept", second.address))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(
        second
            .output
            .iter()
            .any(|line| line.contains("reusing the private Postgres"))
    );
    stop(second).await;

    assert_eq!(status, 200);
    assert_eq!(state["used"], 42);
    std::fs::remove_dir_all(&data_dir).ok();
}
