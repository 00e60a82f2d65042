//! CompactdMiddleware (issue 13) in a real LangChain 1.x agent loop
//! (`create_agent`, LangChain's fake chat model reporting token usage, a
//! checkpointed thread), against the real binary: a turn that stays, one
//! that compacts (the older messages replaced by compactd's summary, the
//! newest kept whole, no tool call split from its result), one that rolls
//! over (the thread carries on from the handoff, as the successor).

use serde_json::Value;

use crate::binary;
use crate::helpers::{Database, encode};
use crate::python;

/// The pins `clients/run-examples` installs too.
fn langchain_pins() -> Vec<&'static str> {
    include_str!("../../clients/python/examples-requirements.txt")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect()
}

async fn get(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

/// Every tool result answers a call made before it in the same messages.
fn no_call_split_from_its_result(messages: &[Value]) -> bool {
    messages
        .iter()
        .enumerate()
        .all(|(at, message)| match message["answers"].as_str() {
            Some(call) => messages[..at]
                .iter()
                .any(|m| m["calls"].as_array().unwrap().iter().any(|c| c == call)),
            None => true,
        })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_langchain_agent_compacts_and_rolls_over_where_compactd_says() {
    run_the_agent(false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_async_langchain_agent_does_the_same() {
    run_the_agent(true).await;
}

async fn run_the_agent(asynchronously: bool) {
    let venv = tokio::task::spawn_blocking(|| python::venv("langchain", &langchain_pins()))
        .await
        .unwrap();
    let database = Database::create().await;
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;
    let thread = "langchain-thread-1";
    let manifest = env!("CARGO_MANIFEST_DIR");
    let run = tokio::process::Command::new(venv.join("bin/python"))
        .arg(format!("{manifest}/clients/python/langchain_agent.py"))
        // The committed packages, as they are in the tree.
        .env(
            "PYTHONPATH",
            format!("{manifest}/clients/python/compactd-client:{manifest}/clients/python/compactd-langchain"),
        )
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("COMPACTD_URL", &service.address)
        .env("THREAD", thread)
        .env("ASYNC", if asynchronously { "1" } else { "0" })
        .output()
        .await
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the agent failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("the agent prints JSON last");
    assert_eq!(seen["compactions"], 1, "{}", seen["conversations"]);
    assert_eq!(seen["rollovers"], 1);
    let turns = seen["turns"].as_array().unwrap();
    let messages = |turn: usize| turns[turn]["messages"].as_array().unwrap().clone();

    // Turn 1 stays as it was.
    assert!(messages(0).iter().all(|m| m["source"].is_null()), "{}", turns[0]);
    assert_eq!(messages(0).len(), 4);

    // Turn 2 compacts: compactd's summary, then the newest messages whole.
    let compacted = messages(1);
    assert_eq!(compacted[0]["source"], "compactd");
    let summary = compacted[0]["text"].as_str().unwrap();
    assert!(
        summary.starts_with("Here is a summary of the conversation to date:"),
        "{summary}"
    );
    assert!(
        summary.contains("Never deploy on Fridays."),
        "the rule is kept: {summary}"
    );
    assert!(compacted.len() > 1 && compacted.len() < 1 + 4 + 4, "{compacted:#?}");
    assert_eq!(
        compacted.last().unwrap()["text"],
        "Tagged v2.3.1 and updated docs/release.md."
    );
    assert!(no_call_split_from_its_result(&compacted), "{compacted:#?}");
    assert!(
        !compacted[1..]
            .iter()
            .any(|m| m["text"] == "Deploy build 4711 to staging. Never deploy on Fridays.")
    );
    let client = reqwest::Client::new();
    let base = &service.address;
    let ledger = get(&client, format!("{base}/conversations/{}/compactions", encode(thread))).await;
    let compaction = &ledger["compactions"][0];
    assert_eq!(ledger["compactions"].as_array().unwrap().len(), 1, "{ledger}");
    assert!(compaction["kept_from"].as_u64().is_some(), "{compaction}");
    assert_eq!(compaction["tokens_before"], 16_500, "the usage the model answered");

    // Turn 3 rolls over: the thread carries on from the handoff alone.
    let rolled = messages(2);
    assert_eq!(rolled.len(), 1, "{rolled:#?}");
    assert!(rolled[0]["text"].as_str().unwrap().starts_with("<handoff>\n"));
    let successor = turns[2]["conversation"]
        .as_str()
        .expect("the successor's id is in the state");
    let before = get(&client, format!("{base}/conversations/{}", encode(thread))).await;
    assert_eq!(before["successor_id"], successor);
    assert_eq!(before["turn_count"], 3);

    // Turn 4 is the successor's.
    assert_eq!(turns[3]["conversation"], successor);
    let after = get(&client, format!("{base}/conversations/{}", encode(successor))).await;
    assert_eq!(after["predecessor_id"], thread);
    assert_eq!(after["turn_count"], 1);
    assert_eq!(after["used"], 4_000);
    crate::observability::every_report_was_answered_minimal(base).await;
    let logged = service.stop().await;
    assert!(logged.iter().all(|line| !line.contains("panicked")), "{logged:#?}");
}
