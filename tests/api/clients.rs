//! The generated Python and TypeScript clients: they match the committed
//! OpenAPI document, and their examples (the agent loops, LangChain's and the
//! AI SDK's on fake models) run against the real binary with an agent's key,
//! leaving in the ledger what they say they did.

use std::path::Path;
use std::process::Output;

use compactd::app::keys as admin;
use serde_json::Value;
use tokio::process::Command;

use crate::binary;
use crate::helpers::{Database, encode};

fn clients_script(name: &str) -> Command {
    let manifest = env!("CARGO_MANIFEST_DIR");
    let mut command = Command::new(Path::new(manifest).join("clients").join(name));
    command.current_dir(manifest);
    command
}

fn shown(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Each example's closing JSON line: the conversations it went through, and
/// the compactions and rollovers it counted.
fn closing_reports(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_committed_clients_are_what_the_spec_generates() {
    let checked = clients_script("generate").arg("--check").output().await.unwrap();
    assert!(checked.status.success(), "{}", shown(&checked));
}

#[tokio::test(flavor = "multi_thread")]
async fn every_client_example_compacts_and_rolls_over_against_the_live_service() {
    let database = Database::create().await;
    let (_, key) = admin::create(&database.pool, "agents", "agent", Some("client examples"))
        .await
        .unwrap();
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;

    let run = clients_script("run-examples")
        .env("COMPACTD_URL", &service.address)
        .env("COMPACTD_API_KEY", &key)
        .output()
        .await
        .unwrap();
    assert!(run.status.success(), "{}", shown(&run));

    let stdout = String::from_utf8_lossy(&run.stdout);
    let reports = closing_reports(&stdout);
    assert_eq!(
        reports.len(),
        4,
        "one report per example (two loops, LangChain, the AI SDK): {stdout}"
    );
    let http = reqwest::Client::new();
    let read = |path: String| {
        let request = http.get(format!("{}{path}", service.address)).bearer_auth(&key);
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 200, "{path}");
            response.json::<Value>().await.unwrap()
        }
    };
    for report in &reports {
        assert!(
            report["compactions"].as_u64().unwrap() > 0 && report["rollovers"].as_u64().unwrap() > 0,
            "every example compacts and rolls over: {report}"
        );
        let conversations: Vec<&str> = report["conversations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap())
            .collect();
        assert_eq!(
            conversations.len() as u64,
            report["rollovers"].as_u64().unwrap() + 1,
            "{report}"
        );
        let mut compacted = 0;
        for (index, id) in conversations.iter().enumerate() {
            let state = read(format!("/conversations/{}", encode(id))).await;
            let predecessor = index.checked_sub(1).map(|before| conversations[before]);
            assert_eq!(state["predecessor_id"].as_str(), predecessor, "{state}");
            let ledger = read(format!("/conversations/{}/compactions", encode(id))).await;
            compacted += ledger["compactions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|row| row["success"] == true && row["trigger"] == "threshold_exceeded")
                .count() as u64;
        }
        assert_eq!(compacted, report["compactions"].as_u64().unwrap(), "{report}");
    }
    service.stop().await;
}
