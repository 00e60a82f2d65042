//! The Vercel AI SDK middleware (issue 13) in `generateText` and
//! `streamText` calls on the SDK's own mock language model (`ai` 6, from the
//! TypeScript package's lock file), against the real binary: the caller
//! sends its whole history every call, and the model is given it compacted,
//! then rolled over, where compactd says.

use serde_json::Value;

use crate::binary;
use crate::helpers::{Database, encode};

async fn get(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

fn texts(prompt: &Value) -> Vec<(String, String)> {
    prompt
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// One agent's six calls through the middleware, against `service`: one
/// instance for all of them, or (`per_request`) a new one for each call.
async fn run_agent(service: &binary::Service, conversation: &str, per_request: bool) -> Value {
    let run = tokio::process::Command::new("bash")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "-c",
            ". clients/tools.sh && cd clients/typescript && npx --no-install tsc && node dist/examples/ai_sdk_agent.js",
        ])
        .env("COMPACTD_URL", &service.address)
        .env("CONVERSATION", conversation)
        .env("PER_REQUEST", if per_request { "1" } else { "0" })
        .output()
        .await
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "the AI SDK run failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("it prints JSON last")
}

#[tokio::test(flavor = "multi_thread")]
async fn ai_sdk_calls_are_compacted_and_rolled_over_where_compactd_says() {
    let database = Database::create().await;
    let url = database.url();
    let service = binary::start(&[("DATABASE_URL", url.as_str()), ("RUST_LOG", "warn")], &[]).await;
    let long_lived = run_agent(&service, "ai-sdk-agent-1", false).await;
    let per_request = run_agent(&service, "ai-sdk-agent-2", true).await;

    // A summary may name its conversation ("parked for conversation …").
    let prompts = |seen: &Value| -> Vec<Vec<(String, String)>> {
        let shown = seen["prompts"].to_string().replace("ai-sdk-agent-2", "ai-sdk-agent-1");
        let shown: Value = serde_json::from_str(&shown).unwrap();
        shown.as_array().unwrap().iter().map(texts).collect()
    };
    assert_eq!(
        prompts(&per_request),
        prompts(&long_lived),
        "a middleware made per request shows the model what a long-lived one does"
    );
    let client = reqwest::Client::new();
    for (conversation, seen) in [("ai-sdk-agent-1", &long_lived), ("ai-sdk-agent-2", &per_request)] {
        the_model_saw_the_history_compacted_then_rolled_over(seen);
        the_ledger_and_the_lineage_say_so(&client, &service.address, conversation, seen).await;
    }
    crate::observability::every_report_was_answered_minimal(&service.address).await;
    let logged = service.stop().await;
    assert!(logged.iter().all(|line| !line.contains("panicked")), "{logged:#?}");
}

fn the_model_saw_the_history_compacted_then_rolled_over(seen: &Value) {
    let prompts = seen["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 6, "{seen}");
    // The first three calls see the history as the caller sent it.
    assert_eq!(texts(&prompts[2]).len(), 6);
    // The fourth, after compactd said `compact`: the system prompt, the
    // summary, the newest messages whole, the new request.
    let compacted = texts(&prompts[3]);
    assert_eq!(
        compacted[0],
        ("system".to_owned(), "You are a release agent.".to_owned())
    );
    assert!(
        compacted[1]
            .1
            .starts_with("Here is a summary of the conversation to date:"),
        "{compacted:?}"
    );
    assert!(compacted[1].1.contains("Never deploy on Fridays."), "{compacted:?}");
    assert!(
        !compacted[2..]
            .iter()
            .any(|(_, text)| text.contains("Never deploy on Fridays."))
    );
    assert!(
        !compacted.iter().any(|(role, _)| role == "tool"),
        "no result without its call: {compacted:?}"
    );
    assert_eq!(
        compacted.last().unwrap().1,
        "Check the CI run https://ci.example.com/runs/88231."
    );
    // The fifth (streamed), after `rollover`: the handoff and the new request.
    let rolled = texts(&prompts[4]);
    assert_eq!(rolled.len(), 3, "{rolled:?}");
    assert!(rolled[1].1.starts_with("<handoff>\n"));
    assert_eq!(rolled[2].1, "Thanks, carry on.");

    // The sixth, in the successor: still the handoff in front.
    let successor = texts(&prompts[5]);
    assert_eq!(successor.len(), 5, "{successor:?}");
    assert!(successor[1].1.starts_with("<handoff>\n"));
    assert_eq!(successor[2].1, "Thanks, carry on.");
    assert_eq!(successor[4].1, "And the changelog?");
}

async fn the_ledger_and_the_lineage_say_so(client: &reqwest::Client, base: &str, conversation: &str, seen: &Value) {
    let ledger = get(
        client,
        format!("{base}/conversations/{}/compactions", encode(conversation)),
    )
    .await;
    assert_eq!(ledger["compactions"].as_array().unwrap().len(), 1, "{ledger}");
    assert_eq!(ledger["compactions"][0]["tokens_before"], 16_500);
    assert!(ledger["compactions"][0]["kept_from"].as_u64().is_some());
    let before = get(client, format!("{base}/conversations/{}", encode(conversation))).await;
    assert_eq!(before["turn_count"], 3, "a tool-calls step does not end the turn");
    let successor = seen["conversations"][1]
        .as_str()
        .expect("onRollover told the successor");
    assert_eq!(before["successor_id"], successor);
    let after = get(client, format!("{base}/conversations/{}", encode(successor))).await;
    assert_eq!(after["predecessor_id"], conversation);
    assert_eq!(after["used"], 4_500, "the last call's usage");
    assert_eq!(after["turn_count"], 2);
    assert_eq!(
        seen["conversations"].as_array().unwrap().len(),
        2,
        "one rollover, told once: {seen}"
    );
}
