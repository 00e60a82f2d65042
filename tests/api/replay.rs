//! `compactd replay` (SPEC §4): recorded agent sessions of every format go
//! through the service, and the report says what the summaries kept. The
//! sessions are synthetic ones shaped like real Claude Code, Codex and aider
//! sessions (bench/synthetic), with the ground truth of what they planted.

use std::path::{Path, PathBuf};

use compactd::replay::{ReplayOptions, Schedule, SessionReport, render, replay_files};
use serde_json::{Value, json};

use crate::helpers::{Database, test_settings};
use crate::synthetic::{Spec, Truth, aider_session, claude_code_session};

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compactd-replay-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn small_claude_code_session() -> (String, Truth) {
    claude_code_session(Spec {
        turns: 64,
        seed: 5,
        long_run_every: 30,
        long_run_rounds: 8,
        long_run_output_chars: 3_000,
    })
}

async fn replay(files: &[PathBuf], options: ReplayOptions) -> Vec<SessionReport> {
    let database = Database::create().await;
    let reports = replay_files(files, test_settings(), database.pool.clone(), options)
        .await
        .expect("the replay runs");
    drop(database);
    reports
}

const EVERY_8: ReplayOptions = ReplayOptions {
    window: Some(100_000),
    schedule: Schedule::Every(8),
    from_stored_turns: false,
    prepare: false,
    end_now: false,
};

/// `summary` as a reader takes it: a files changed line that names its
/// files from their folder (`- Files changed (under /repo/): src/a.rs`)
/// read as it stands and with the folder before each.
fn as_read(summary: &str) -> String {
    let whole: Vec<String> = summary
        .lines()
        .filter_map(|line| line.strip_prefix("- Files changed (under ")?.split_once("): "))
        .map(|(root, files)| {
            files
                .split(", ")
                .map(|file| {
                    if file.starts_with('/') {
                        file.to_owned()
                    } else {
                        format!("{root}{file}")
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    format!("{summary}\n{}", whole.join("\n"))
}

fn planted_but_lost(truth: &Truth, summary: &str) -> Vec<String> {
    let squeezed = as_read(summary).split_whitespace().collect::<Vec<_>>().join(" ");
    [
        &truth.prohibitions,
        &truth.paths,
        &truth.urls,
        &truth.ids,
        &truth.commands,
        &truth.quantities,
        &truth.files_changed,
    ]
    .into_iter()
    .flatten()
    .chain([&truth.latest_request])
    .filter(|item| !squeezed.contains(&item.split_whitespace().collect::<Vec<_>>().join(" ")))
    .cloned()
    .collect()
}

#[tokio::test]
async fn a_claude_code_session_ends_with_every_rule_request_name_and_file_in_its_summary() {
    let dir = scratch();
    let (text, truth) = small_claude_code_session();
    let file = dir.join("session.jsonl");
    std::fs::write(&file, text).unwrap();

    let report = &replay(&[file], EVERY_8).await[0];

    assert_eq!(report.format, "claude-code");
    assert_eq!(report.turns, 64);
    assert!(report.compactions.len() >= 8, "{}", report.compactions.len());
    assert!(report.compactions.iter().all(|c| c.success));
    assert_eq!(report.over_budget(), 0);
    assert_eq!(planted_but_lost(&truth, &report.final_summary), Vec::<String>::new());
    let survival = &report.final_survival;
    for group in [
        "latest request",
        "prohibitions",
        "paths the user named",
        "files changed",
    ] {
        let row = survival.row(group).unwrap_or_else(|| panic!("no {group}"));
        assert_eq!(row.kept, row.items, "{group}");
    }
    for harness in ["Caveat", "DO NOT respond", "system-reminder", "<command-name>"] {
        assert!(
            !report.final_summary.contains(harness),
            "{harness}: {}",
            report.final_summary
        );
    }
    assert!(
        report
            .final_summary
            .lines()
            .filter(|line| line.contains("/cost"))
            .all(|line| line.starts_with("- Then: ") || line.contains("[then ")),
        "a command the user ran is said as such, never as a request: {}",
        report.final_summary
    );
}

#[tokio::test]
async fn two_identical_replays_give_byte_identical_summaries() {
    let dir = scratch();
    let file = dir.join("session.jsonl");
    std::fs::write(&file, small_claude_code_session().0).unwrap();

    let first = replay(std::slice::from_ref(&file), EVERY_8).await;
    let again = replay(&[file], EVERY_8).await;

    let hashes = |reports: &[SessionReport]| -> Vec<String> {
        reports[0]
            .compactions
            .iter()
            .map(|c| c.summary_sha256.clone())
            .collect()
    };
    assert!(!hashes(&first).is_empty());
    assert_eq!(hashes(&first), hashes(&again));
    // The parked line names the conversation, whose id carries the run's time.
    let without_id = |report: &SessionReport| report.final_summary.replace(&report.final_conversation, "C");
    assert_eq!(without_id(&first[0]), without_id(&again[0]));
}

/// The small synthetic Claude Code session replayed as compactd's policy
/// says, at a `window`-token context.
async fn small_session_under_the_policy(window: u64) -> SessionReport {
    let dir = scratch();
    let file = dir.join("session.jsonl");
    std::fs::write(&file, small_claude_code_session().0).unwrap();
    let options = ReplayOptions {
        window: Some(window),
        schedule: Schedule::Policy,
        from_stored_turns: false,
        prepare: false,
        end_now: false,
    };
    replay(&[file], options).await.remove(0)
}

#[tokio::test]
async fn a_long_run_compacts_mid_turn_and_a_full_window_rolls_over() {
    let report = &small_session_under_the_policy(20_000).await;

    assert!(!report.compactions.is_empty());
    assert!(report.compactions.iter().any(|c| c.trigger == "threshold_exceeded"));
    assert!(
        report
            .compactions
            .iter()
            .any(|c| c.origin == "policy" && c.trigger == "threshold_exceeded"),
        "each compaction says where it came from"
    );
    assert_eq!(report.compactions.last().map(|c| c.origin), Some("final"));
    assert_eq!(report.over_budget(), 0);
    let rules = report.final_survival.row("prohibitions").unwrap();
    assert_eq!(
        rules.kept, rules.items,
        "rules survive rollovers: {:?}",
        report.rollovers
    );
}

fn codex_rollout() -> String {
    let items = [
        json!({"type": "session_meta", "payload": {"id": "s", "cwd": "/repo"}}),
        json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"}]}}),
        json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Add a CHANGELOG for v1.4.0. Never touch vendor/."}]}}),
        json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"cargo test --workspace\"]}", "call_id": "c1"}}),
        json!({"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": "{\"output\":\"test result: ok. 12 passed\\n\"}"}}),
        json!({"type": "response_item", "payload": {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2", "input": "*** Begin Patch\n*** Add File: CHANGELOG.md\n+# v1.4.0\n*** End Patch"}}),
        json!({"type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": "c2", "output": "Success."}}),
        json!({"type": "compacted", "payload": {"message": "The user wants a changelog."}}),
        json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Added CHANGELOG.md."}]}}),
        json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Now tag it."}]}}),
    ];
    items.iter().map(|item| format!("{item}\n")).collect()
}

fn openai_chat() -> String {
    json!([
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": "Rotate the key in /etc/app/keys.json; don't restart nginx."},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\": \"/etc/app/keys.json\"}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "written"},
        {"role": "assistant", "content": "Rotated."},
    ])
    .to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

#[tokio::test]
async fn codex_aider_and_chat_array_sessions_replay_too() {
    let dir = scratch();
    let (aider, aider_truth) = aider_session(40, 3);
    let files = [
        write(&dir, "rollout.jsonl", &codex_rollout()),
        write(&dir, "history.aider.chat.history.md", &aider),
        write(&dir, "chat.json", &openai_chat()),
    ];

    let reports = replay(
        &files,
        ReplayOptions {
            window: Some(100_000),
            schedule: Schedule::Every(2),
            from_stored_turns: false,
            prepare: false,
            end_now: false,
        },
    )
    .await;

    let formats: Vec<&str> = reports.iter().map(|r| r.format).collect();
    assert_eq!(formats, ["codex", "aider", "openai-chat"]);
    let codex = &reports[0];
    assert_eq!(codex.turns, 2, "the environment context starts no turn");
    assert_eq!(
        codex.harness.len(),
        1,
        "Codex's own compaction summary is set beside ours"
    );
    let origins: Vec<&str> = codex.compactions.iter().map(|c| c.origin).collect();
    assert_eq!(
        origins,
        ["harness", "every"],
        "where Codex compacted, then --every 2 at the second turn (nothing left for a final one)"
    );
    for kept in [
        "Now tag it.",
        "Never touch vendor/.",
        "CHANGELOG.md",
        "cargo test --workspace",
    ] {
        assert!(codex.final_summary.contains(kept), "{kept}: {}", codex.final_summary);
    }
    assert_eq!(
        planted_but_lost(&aider_truth, &reports[1].final_summary),
        Vec::<String>::new()
    );
    let chat = &reports[2].final_summary;
    for kept in ["/etc/app/keys.json", "don't restart nginx."] {
        assert!(chat.contains(kept), "{kept}: {chat}");
    }
}

#[tokio::test]
async fn a_file_in_no_known_format_is_refused_by_name_before_anything_runs() {
    let dir = scratch();
    let good = write(&dir, "chat.json", &openai_chat());
    let bad = write(&dir, "notes.txt", "just some notes");
    let database = Database::create().await;

    let refused = replay_files(&[good, bad], test_settings(), database.pool.clone(), EVERY_8)
        .await
        .unwrap_err()
        .to_string();

    assert!(refused.contains("notes.txt"), "{refused}");
    let conversations: i64 = sqlx::query_scalar("SELECT count(*) FROM conversations")
        .fetch_one(&database.pool)
        .await
        .unwrap();
    assert_eq!(conversations, 0);
}

#[tokio::test]
async fn the_binary_prints_a_report_and_json_for_scripts() {
    let dir = scratch();
    let file = write(&dir, "chat.json", &openai_chat());
    let database = Database::create().await;
    let run = |json: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_compactd"));
        command
            .args(["replay", "--every", "1", "--window", "50000"])
            .arg(&file)
            .env("DATABASE_URL", database.url())
            .env("RUST_LOG", "warn")
            // An agent's key in the environment is for --url: no reason to refuse.
            .env("COMPACTD_API_KEY", "cpk_for_a_running_service")
            .env_remove("COMPACTD_LLM_PROVIDER");
        if json {
            command.arg("--json");
        }
        command.output().unwrap()
    };

    let text = run(false);
    let json = run(true);

    assert!(text.status.success(), "{}", String::from_utf8_lossy(&text.stderr));
    let printed = String::from_utf8(text.stdout).unwrap();
    assert!(printed.contains("chat.json (openai-chat): 1 turns"), "{printed}");
    assert!(printed.contains("What the agent is left with at the end"), "{printed}");
    assert!(printed.contains("prohibitions"), "{printed}");
    let parsed: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(parsed[0]["format"], "openai-chat");
    assert!(
        parsed[0]["final_summary"]
            .as_str()
            .unwrap()
            .contains("/etc/app/keys.json")
    );
}

#[tokio::test]
async fn a_database_with_keys_gets_a_replay_of_its_own_tenant_and_key_revoked_after() {
    let dir = scratch();
    let file = write(&dir, "chat.json", &openai_chat());
    let database = Database::create().await;
    compactd::app::keys::create(&database.pool, "acme", "agent", None)
        .await
        .unwrap();

    let reports = replay_files(&[file], test_settings(), database.pool.clone(), EVERY_8)
        .await
        .expect("the replay runs with keys in the database");

    assert!(reports[0].final_summary.contains("/etc/app/keys.json"));
    let tenants: Vec<String> = sqlx::query_scalar("SELECT DISTINCT tenant FROM conversations")
        .fetch_all(&database.pool)
        .await
        .unwrap();
    assert_eq!(tenants, [compactd::replay::REPLAY_TENANT]);
    let live: i64 = sqlx::query_scalar("SELECT count(*) FROM api_keys WHERE tenant = 'replay' AND revoked_at IS NULL")
        .fetch_one(&database.pool)
        .await
        .unwrap();
    assert_eq!(live, 0, "the replay's key is revoked");
}

#[tokio::test]
async fn compacting_too_often_rolls_over_and_the_report_names_the_guard() {
    let report = &small_session_under_the_policy(8_000).await;

    assert!(!report.rollovers.is_empty(), "{:?}", report.compactions.len());
    for (n, rolled) in report.rollovers.iter().enumerate() {
        assert!(
            rolled.guard.is_some(),
            "a rollover names the guard that held: {rolled:?}"
        );
        assert!(rolled.successor.ends_with(&format!("-r{}", n + 1)), "{rolled:?}");
    }
    assert_eq!(
        report.final_conversation,
        report.rollovers.last().unwrap().successor,
        "the agent ends in the last successor"
    );
    let text = render(report);
    assert!(
        text.contains(&format!("rolled over after turn {} (guard ", report.rollovers[0].turn)),
        "{text}"
    );
}

/// A Claude Code session whose model calls record a context far larger
/// than its text (the system prompt, tools and the model's tokenizer), as
/// real sessions do; `with_usage: false` strips the records.
fn session_with_recorded_usage(with_usage: bool) -> String {
    let mut lines = Vec::new();
    for n in 0..20u64 {
        lines.push(json!({"type": "user", "sessionId": "s", "uuid": format!("u{n}"),
            "message": {"role": "user", "content": format!("Step {n}: update src/mod_{n}.rs to take the new Config.")}}));
        let mut message = json!({"id": format!("m{n}"), "role": "assistant", "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": format!("Updated src/mod_{n}.rs: it takes Config now and its tests pass.")}]});
        if with_usage {
            message["usage"] =
                json!({"input_tokens": 20, "cache_read_input_tokens": 18_000 + n * 2_500, "output_tokens": 80});
        }
        lines.push(json!({"type": "assistant", "sessionId": "s", "uuid": format!("a{n}"), "message": message}));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[tokio::test]
async fn a_session_that_recorded_its_usage_is_replayed_at_the_size_it_had() {
    let dir = scratch();
    let options = ReplayOptions {
        window: Some(60_000),
        schedule: Schedule::Policy,
        from_stored_turns: false,
        prepare: false,
        end_now: false,
    };
    let recorded = write(&dir, "recorded.jsonl", &session_with_recorded_usage(true));
    let text_only = write(&dir, "text-only.jsonl", &session_with_recorded_usage(false));
    let reports = replay(&[recorded, text_only], options).await;
    let (recorded, text_only) = (&reports[0], &reports[1]);

    assert_eq!(recorded.recorded_peak, Some(18_100 + 19 * 2_500));
    assert_eq!(text_only.recorded_peak, None);
    assert_eq!(
        recorded.transcript_tokens, text_only.transcript_tokens,
        "the same text either way"
    );
    let by_policy = |report: &SessionReport| report.compactions.iter().filter(|c| c.origin == "policy").count();
    assert_eq!(
        by_policy(text_only),
        0,
        "{} tokens of text never reach the trigger",
        text_only.transcript_tokens
    );
    let first = recorded
        .compactions
        .iter()
        .find(|c| c.origin == "policy")
        .expect("the recorded context reaches the trigger");
    assert!(
        first.tokens_before >= 45_000 && first.tokens_before < 50_000,
        "it compacts where the session's own count crossed 75% of 60,000: {first:?}"
    );
    assert!(
        render(recorded).contains("the session recorded a context of up to 65,600"),
        "{}",
        render(recorded)
    );
}

#[tokio::test]
async fn a_replay_into_a_running_service_shows_there_and_measures_as_one_of_its_own() {
    let app = crate::helpers::spawn_app().await;
    let dir = scratch();
    let file = dir.join("session.jsonl");
    std::fs::write(&file, small_claude_code_session().0).unwrap();

    let into = compactd::replay::replay_into(
        &app.address,
        None,
        std::slice::from_ref(&file),
        test_settings().summaries,
        EVERY_8,
    )
    .await
    .expect("the replay runs against the service")
    .remove(0);
    let own = replay(&[file], EVERY_8).await.remove(0);

    // The running service holds what the replay did: its dashboard reads it.
    let state = app.state(&into.final_conversation).await;
    assert_eq!(state["turn_count"], into.turns, "{state}");
    assert!(into.rollovers.is_empty());
    assert_eq!(
        state["compactions"],
        into.compactions.iter().filter(|c| c.success).count(),
        "{state}"
    );
    // Measured from the service's keep set read over HTTP, as from its database.
    assert_eq!(into.final_survival, own.final_survival);
    assert_eq!(
        into.compactions.iter().map(|c| &c.summary_sha256).collect::<Vec<_>>(),
        own.compactions.iter().map(|c| &c.summary_sha256).collect::<Vec<_>>(),
        "the same summaries, byte for byte"
    );
    let rules = into.final_survival.row("prohibitions").unwrap();
    assert!(rules.items > 0 && rules.kept == rules.items, "{rules:?}");
}

#[tokio::test]
async fn a_replay_reports_the_sessions_model_so_what_its_compactions_spare_is_priced() {
    let app = crate::helpers::spawn(compactd::config::Settings {
        prices: compactd::domain::Prices::parse("claude-opus-4-6=5/0.5/25").unwrap(),
        ..test_settings()
    })
    .await;
    let dir = scratch();
    let file = dir.join("priced.jsonl");
    std::fs::write(&file, session_with_recorded_usage(true)).unwrap();
    let report = compactd::replay::replay_into(&app.address, None, &[file], test_settings().summaries, EVERY_8)
        .await
        .expect("the replay runs against the service")
        .remove(0);
    assert!(!report.compactions.is_empty(), "{report:?}");
    let (status, ledger) = app
        .get_json(&format!("/conversations/{}/compactions", report.final_conversation))
        .await;
    assert_eq!(status, 200, "{ledger}");
    let spared: Vec<&Value> = ledger["compactions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["savings"]["calls"].as_u64() > Some(0))
        .collect();
    assert!(!spared.is_empty(), "calls after a compaction: {ledger}");
    for row in spared {
        assert_eq!(row["savings"]["unpriced_calls"], 0, "priced at claude-opus-4-6: {row}");
        assert!(row["savings"]["usd"].is_f64(), "in dollars: {row}");
    }
}

#[tokio::test]
async fn a_replay_at_a_url_nobody_serves_fails_and_starts_no_database() {
    let dir = scratch();
    let file = write(&dir, "chat.json", &openai_chat());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_compactd"))
        .args(["replay", "--url", "http://127.0.0.1:9"])
        .arg(&file)
        .current_dir(&dir)
        .env_remove("DATABASE_URL")
        .env_remove("COMPACTD_DATA_DIR")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("no compactd at http://127.0.0.1:9"), "{said}");
    assert!(!dir.join("data").exists(), "no private Postgres was made");
}

#[tokio::test]
async fn a_replay_with_no_database_named_says_it_starts_one_of_its_own() {
    let dir = scratch();
    let file = write(&dir, "chat.json", &openai_chat());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_compactd"))
        .args(["replay", "--every", "1"])
        .arg(&file)
        .current_dir(&dir)
        .env_remove("DATABASE_URL")
        .env_remove("COMPACTD_DATA_DIR")
        .env_remove("COMPACTD_LLM_PROVIDER")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("no private Postgres in ./data: starting one there") && said.contains("--url"),
        "{said}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("chat.json (openai-chat)"));
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn a_session_that_opens_with_its_harnesss_summary_replays_into_a_running_service() {
    let app = crate::helpers::spawn_app().await;
    let dir = scratch();
    let lines = [
        json!({"type": "user", "sessionId": "s", "isCompactSummary": true, "message": {"role": "user",
            "content": "This session is being continued from a previous conversation. Summary: the parser was fixed."}}),
        json!({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "Now document src/parser.rs."}}),
        json!({"type": "assistant", "sessionId": "s", "message": {"id": "m1", "role": "assistant",
            "content": [{"type": "text", "text": "Documented it."}]}}),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let file = write(&dir, "continued.jsonl", &text);

    let report = compactd::replay::replay_into(&app.address, None, &[file], test_settings().summaries, EVERY_8)
        .await
        .expect("a conversation not made yet measures as nothing kept")
        .remove(0);
    assert_eq!(report.harness.len(), 1);
    assert!(
        report.final_summary.contains("src/parser.rs"),
        "{}",
        report.final_summary
    );
}

/// `codex_rollout()` with a time on every record, a minute apart from
/// 2025-11-20 14:00 UTC, as Codex writes them.
fn codex_rollout_with_times() -> String {
    codex_rollout()
        .lines()
        .enumerate()
        .map(|(minute, line)| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            record["timestamp"] = json!(format!("2025-11-20T14:{minute:02}:00.000Z"));
            format!("{record}\n")
        })
        .collect()
}

#[tokio::test]
async fn replayed_turns_happen_when_the_session_says_or_end_now_when_asked() {
    let app = crate::helpers::spawn_app().await;
    let dir = scratch();
    let file = write(&dir, "rollout.jsonl", &codex_rollout_with_times());
    let into = |options: ReplayOptions| {
        let (address, file) = (app.address.clone(), file.clone());
        async move {
            compactd::replay::replay_into(&address, None, &[file], test_settings().summaries, options)
                .await
                .expect("the replay runs against the service")
                .remove(0)
        }
    };

    let as_recorded = into(EVERY_8).await;
    let before = chrono::Utc::now();
    let ending_now = into(ReplayOptions {
        end_now: true,
        ..EVERY_8
    })
    .await;

    // The first turn ends with its assistant's answer (14:08), the second
    // with its request (14:09).
    let state = app.state(&as_recorded.final_conversation).await;
    assert_eq!(state["created_at"], "2025-11-20T14:08:00Z", "{state}");
    assert_eq!(state["last_turn_at"], "2025-11-20T14:09:00Z", "{state}");
    let state = app.state(&ending_now.final_conversation).await;
    let time = |field: &str| {
        state[field]
            .as_str()
            .unwrap()
            .parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap()
    };
    let (created, last) = (time("created_at"), time("last_turn_at"));
    assert!(
        last >= before - chrono::Duration::seconds(5) && last <= chrono::Utc::now(),
        "the last turn ends now: {state}"
    );
    assert_eq!(last - created, chrono::Duration::minutes(1), "its pauses kept: {state}");
}

#[tokio::test]
async fn a_codex_rollout_is_replayed_at_the_window_it_recorded() {
    let dir = scratch();
    let usage = json!({"type": "event_msg", "payload": {"type": "token_count", "info": {
        "last_token_usage": {"input_tokens": 12000, "cached_input_tokens": 11000, "output_tokens": 300},
        "model_context_window": 272000}}});
    let rollout = write(&dir, "rollout.jsonl", &format!("{}{usage}\n", codex_rollout()));
    let claude_code = write(&dir, "session.jsonl", &small_claude_code_session().0);

    let unasked = replay(
        &[rollout.clone(), claude_code],
        ReplayOptions {
            window: None,
            ..EVERY_8
        },
    )
    .await;
    let asked = replay(&[rollout], EVERY_8).await;

    assert_eq!(unasked[0].window, 272_000, "the window the rollout recorded");
    assert_eq!(
        unasked[1].window, 200_000,
        "a session that recorded none: Claude Code's"
    );
    assert_eq!(asked[0].window, 100_000, "a window asked for wins");
}

/// A Codex rollout shaped like a long real one: each turn a tool call whose
/// record counts the reasoning the model wrote (18,201 tokens) and an answer
/// whose record no longer holds it, the context 25,000 larger each turn up
/// to 258,201 at turn 9; then the harness compacts and the session goes on
/// small.
fn codex_rollout_reasoning_every_turn() -> String {
    let usage = |input: u64, output: u64| {
        json!({"type": "event_msg", "payload": {"type": "token_count", "info": {
            "last_token_usage": {"input_tokens": input, "output_tokens": output},
            "model_context_window": 272000}}})
    };
    let mut items = vec![json!({"type": "session_meta", "payload": {"id": "s", "cwd": "/repo"}})];
    for turn in 0..12u64 {
        if turn == 10 {
            items
                .push(json!({"type": "compacted", "payload": {"message": "Migrating the billing modules to Config."}}));
        }
        let base = if turn < 10 {
            20_000 + 25_000 * turn
        } else {
            30_000 + 5_000 * (turn - 10)
        };
        items.push(json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": format!("Step {turn}: move src/billing/mod_{turn}.rs to the new Config.")}]}}));
        items.push(json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell",
            "arguments": format!("{{\"command\":[\"bash\",\"-lc\",\"cargo test billing::mod_{turn}\"]}}"), "call_id": format!("c{turn}")}}));
        items.push(usage(base, 18_201));
        items.push(
            json!({"type": "response_item", "payload": {"type": "function_call_output", "call_id": format!("c{turn}"),
            "output": format!("test billing::mod_{turn} ... ok")}}),
        );
        items.push(
            json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": format!("src/billing/mod_{turn}.rs takes Config now; its tests pass.")}]}}),
        );
        items.push(usage(base + 400, 300));
    }
    items.iter().map(|item| format!("{item}\n")).collect()
}

#[tokio::test]
async fn a_replay_never_holds_more_than_the_session_did_where_reasoning_comes_and_goes() {
    let dir = scratch();
    let rollout = write(&dir, "rollout.jsonl", &codex_rollout_reasoning_every_turn());
    let options = ReplayOptions {
        window: None,
        ..EVERY_8
    };
    let report = &replay(&[rollout], options).await[0];

    assert_eq!(report.window, 272_000);
    assert_eq!(report.recorded_peak, Some(245_000 + 18_201));
    for compaction in &report.compactions {
        assert!(
            compaction.tokens_before <= 245_000 + 18_201,
            "no compaction sees more than the session ever held: {compaction:?}"
        );
    }
    let mut turns: Vec<_> = report
        .compactions
        .iter()
        .map(|c| (c.conversation.clone(), c.turn))
        .collect();
    turns.dedup();
    assert_eq!(
        turns.len(),
        report.compactions.len(),
        "one compaction a turn at most: {:?}",
        report.compactions
    );
    let origins: Vec<_> = report.compactions.iter().map(|c| c.origin).collect();
    assert_eq!(origins, ["every", "harness", "final"], "{:?}", report.compactions);
    assert!(report.rollovers.is_empty(), "{:?}", report.rollovers);
}
