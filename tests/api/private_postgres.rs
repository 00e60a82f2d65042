//! With no DATABASE_URL the binary runs a private Postgres in its data folder:
//! it starts (as root too), serves, shares it with a `keys` command, stops
//! with the service, and is reused.

use std::path::PathBuf;

use serde_json::json;

use crate::binary;
use crate::helpers::read;

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compactd-private-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[tokio::test]
async fn without_a_database_url_a_private_postgres_is_started_shared_stopped_and_reused() {
    let data_dir = scratch_dir();
    let data = data_dir.to_str().unwrap();
    let env = [("COMPACTD_DATA_DIR", data), ("RUST_LOG", "info")];
    let client = reqwest::Client::new();

    let first = binary::start(&env, &["DATABASE_URL"]).await;
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
    // A `keys` command beside the running service shares its Postgres.
    let created = tokio::process::Command::new(env!("CARGO_BIN_EXE_compactd"))
        .args(["keys", "create", "--tenant", "default", "--role", "reader"])
        .env_remove("DATABASE_URL")
        .env("COMPACTD_DATA_DIR", data)
        .output()
        .await
        .unwrap();
    let key = String::from_utf8(created.stdout).unwrap().trim().to_owned();
    let url = format!("{}/conversations/kept", first.address);
    let (keyed, _) = read(client.get(&url).bearer_auth(&key).send().await.unwrap()).await;
    let (open, _) = read(client.get(&url).send().await.unwrap()).await;
    // Where psql finds it while it runs: its port changes every start.
    let database_url = || async {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_compactd"))
            .args(["database-url"])
            .env_remove("DATABASE_URL")
            .env("COMPACTD_DATA_DIR", data)
            .output()
            .await
            .unwrap()
    };
    let printed = database_url().await;
    let opened = String::from_utf8(printed.stdout).unwrap().trim().to_owned();
    let used: i64 = {
        let pool = sqlx::PgPool::connect(&opened).await.unwrap();
        let used = sqlx::query_scalar("SELECT used FROM conversations WHERE conversation_id = 'kept'")
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        used
    };
    let output = first.stop().await;
    let after = database_url().await;

    assert_eq!((ready, reported), (200, 200));
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    assert!(key.starts_with("cpk_"), "{key}");
    assert_eq!(
        (keyed, open),
        (200, 401),
        "the new key works at once; no key no longer does"
    );
    assert!(
        output
            .iter()
            .any(|line| line.contains("initializing the private Postgres")),
        "{output:#?}"
    );
    assert!(printed.status.success(), "{}", String::from_utf8_lossy(&printed.stderr));
    assert_eq!(used, 42, "`compactd database-url` opens the service's own database");
    assert!(
        output
            .iter()
            .any(|line| line.contains("open it with: psql \"$(compactd database-url")),
        "the service says how to open it: {output:#?}"
    );
    assert!(!after.status.success(), "nothing runs there once the service stopped");
    assert!(
        String::from_utf8_lossy(&after.stderr).contains("no private Postgres runs in"),
        "{}",
        String::from_utf8_lossy(&after.stderr)
    );
    assert!(
        !data_dir.join("pgdata/postmaster.pid").exists(),
        "the server stopped with the service"
    );

    let second = binary::start(&env, &["DATABASE_URL"]).await;
    let (status, state) = read(
        client
            .get(format!("{}/conversations/kept", second.address))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let output = second.stop().await;

    assert!(output.iter().any(|line| line.contains("reusing the private Postgres")));
    assert_eq!(status, 200);
    assert_eq!(state["used"], 42);
    std::fs::remove_dir_all(&data_dir).ok();
}
