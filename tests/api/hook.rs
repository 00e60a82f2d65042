//! `compactd hook claude-code` and `compactd hook codex` (issue 13), run as
//! the harnesses run them: the binary, the hook's JSON on stdin, a session
//! file shaped like the real ones (Claude Code 2.x JSONL, a Codex rollout),
//! against the real service.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::helpers::{TestApp, encode, spawn, spawn_app, test_settings};

/// What the hook printed and said, and how it exited.
struct Ran {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

async fn hook(harness: &str, url: &str, input: &Value) -> Ran {
    hook_bytes(harness, url, input.to_string().as_bytes()).await
}

/// The hook with `input` on stdin as it is, bytes and all.
async fn hook_bytes(harness: &str, url: &str, input: &[u8]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_compactd"))
        .args(["hook", harness, "--url", url, "--max-tokens", "1500"])
        .env_remove("COMPACTD_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    Ran {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

fn session_file(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}-{nanos}.jsonl", std::process::id()))
}

/// Claude Code's records, with the fields it writes on every line.
struct ClaudeCode {
    session: String,
    lines: Vec<Value>,
    minute: u32,
}

impl ClaudeCode {
    fn new(session: &str) -> Self {
        Self {
            session: session.to_owned(),
            lines: vec![json!({"type": "summary", "summary": "Lexer fixes", "leafUuid": "l0"})],
            minute: 0,
        }
    }

    fn record(&mut self, mut record: Value) {
        self.minute += 1;
        record["sessionId"] = json!(self.session);
        record["uuid"] = json!(format!("u{}", self.lines.len()));
        record["timestamp"] = json!(format!("2026-11-30T10:{:02}:00.000Z", self.minute));
        record["cwd"] = json!("/repo");
        record["version"] = json!("2.1.63");
        record["isSidechain"] = json!(false);
        record["userType"] = json!("external");
        self.lines.push(record);
    }

    fn user(&mut self, text: &str) {
        self.record(json!({"type": "user", "message": {"role": "user", "content": text}}));
    }

    fn answer(&mut self, id: &str, text: &str, context: u64) {
        self.record(json!({"type": "assistant", "message": {
            "id": id, "role": "assistant", "model": "claude-opus-4-6",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 12, "cache_read_input_tokens": context - 400, "cache_creation_input_tokens": 300, "output_tokens": 88}}}));
    }

    fn edit(&mut self, id: &str, call: &str, path: &str) {
        self.record(json!({"type": "assistant", "message": {
            "id": id, "role": "assistant", "content": [
                {"type": "thinking", "thinking": "…", "signature": "x"},
                {"type": "tool_use", "id": call, "name": "Edit", "input": {"file_path": path, "old_string": "a", "new_string": "b"}}]}}));
        self.record(json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": [{"type": "text", "text": format!("The file {path} has been updated.")}]}]}}));
    }

    fn compact(&mut self, trigger: &str, pre_tokens: u64, summary: &str) {
        self.compact_with(json!({"trigger": trigger, "preTokens": pre_tokens}), summary);
    }

    /// A compaction whose metadata the harness wrote as `metadata`.
    fn compact_with(&mut self, metadata: Value, summary: &str) {
        self.record(
            json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
            "isMeta": false, "level": "info", "compactMetadata": metadata}),
        );
        self.record(json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
            "message": {"role": "user", "content": format!(
                "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n{summary}")}}));
    }

    fn write(&self, path: &Path) {
        let text: Vec<String> = self.lines.iter().map(Value::to_string).collect();
        std::fs::write(path, text.join("\n") + "\n").unwrap();
    }
}

fn claude_input(session: &str, path: &Path, event: &str, extra: Value) -> Value {
    let mut input = json!({
        "session_id": session,
        "transcript_path": path,
        "cwd": "/repo",
        "hook_event_name": event,
    });
    for (name, value) in extra.as_object().unwrap() {
        input[name] = value.clone();
    }
    input
}

/// Claude Code's PreCompact hook of an automatic compaction.
async fn pre_compact(app: &TestApp, session: &str, path: &Path) -> Ran {
    hook(
        "claude-code",
        &app.address,
        &claude_input(
            session,
            path,
            "PreCompact",
            json!({"trigger": "auto", "custom_instructions": ""}),
        ),
    )
    .await
}

/// Claude Code's SessionStart hook right after it compacted.
async fn session_start(app: &TestApp, session: &str, path: &Path) -> Ran {
    hook(
        "claude-code",
        &app.address,
        &claude_input(session, path, "SessionStart", json!({"source": "compact"})),
    )
    .await
}

async fn compactions(app: &TestApp, id: &str) -> Vec<Value> {
    let (status, body) = app
        .get_json(&format!("/conversations/{}/compactions", encode(id)))
        .await;
    assert_eq!(status, 200, "{body}");
    body["compactions"].as_array().unwrap().clone()
}

/// The first part of a session: two requests, a rule, an edit.
fn before_the_first_compaction(session: &str) -> ClaudeCode {
    let mut cc = ClaudeCode::new(session);
    cc.user("Fix the tokenizer bug in src/parser/lexer.rs (PROJ-4711). Don't touch Cargo.lock.");
    cc.edit("msg_1", "toolu_1", "/repo/src/parser/lexer.rs");
    cc.answer("msg_1", "Fixed the off-by-one in the lexer.", 90_000);
    cc.user("Now run the parser tests and see https://ci.example.com/runs/88231 for the flaky one.");
    cc.answer(
        "msg_2",
        "All 48 parser tests pass; run 88231 failed on a timeout.",
        148_000,
    );
    cc
}

#[tokio::test]
async fn claude_codes_own_compaction_is_in_the_ledger_and_what_its_summary_dropped_comes_back() {
    // The transcript's model, and no `*`: a report that did not name its
    // model would save tokens but no dollars.
    let app = spawn(compactd::config::Settings {
        prices: compactd::domain::Prices::parse("claude-opus-4-6=5/0.5/25").unwrap(),
        ..test_settings()
    })
    .await;
    let session = "6f1c2a8e-0d1b-4c7e-9a51-3c2f5e7d9b10";
    let path = session_file("claude-code");
    let mut cc = before_the_first_compaction(session);
    cc.write(&path);

    // PreCompact: the finished turns are stored and the context's size reported.
    let before = pre_compact(&app, session, &path).await;
    assert_eq!(before.code, Some(0), "{}", before.stderr);
    assert_eq!(before.stdout, "", "PreCompact answers nothing");
    let state = app.state(session).await;
    assert_eq!(state["turn_count"], 1, "the last turn may still be running: {state}");
    assert_eq!(state["used"], 148_000);

    // Claude Code compacts; its summary names the file but not the rule or the URL.
    cc.compact(
        "auto",
        148_000,
        "The user asked to fix a tokenizer bug in src/parser/lexer.rs; it was fixed and the tests pass.",
    );
    cc.write(&path);
    let after = session_start(&app, session, &path).await;
    assert_eq!(after.code, Some(0), "{}", after.stderr);
    let answer: Value = serde_json::from_str(&after.stdout).expect("SessionStart answers JSON");
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let given = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(given.contains("Kept word for word:"), "{given}");
    assert!(
        given.contains("Don't touch Cargo.lock."),
        "the rule comes back: {given}"
    );
    assert!(given.contains("https://ci.example.com/runs/88231"), "{given}");
    assert!(given.contains("PROJ-4711"), "{given}");
    assert!(
        given.contains(&format!("compactd keeps this conversation as \"{session}\"")),
        "the id to read the rest with: {given}"
    );
    assert!(
        !given.contains("- Paths: src/parser/lexer.rs"),
        "the summary held the path: {given}"
    );

    let recorded = compactions(&app, session).await;
    assert_eq!(recorded.len(), 1);
    let compaction = &recorded[0];
    assert_eq!(compaction["trigger"], "harness");
    assert_eq!(compaction["summarizer"], "harness");
    assert_eq!(compaction["harness"], "claude-code");
    assert_eq!(compaction["tokens_before"], 148_000);
    assert_eq!(compaction["at"], "2026-11-30T10:07:00Z", "the boundary's time");
    // The context reported after it named the transcript's model: priced.
    assert_eq!(compaction["savings"]["calls"], 1, "{compaction}");
    assert_eq!(compaction["savings"]["unpriced_calls"], 0, "{compaction}");
    assert!(compaction["summary"].as_str().unwrap().contains("src/parser/lexer.rs"));
    let state = app.state(session).await;
    assert_eq!(
        state["turn_count"], 2,
        "both turns before the boundary are stored: {state}"
    );
    assert_eq!(state["compactions"], 1);
    assert_eq!(
        state["used"], compaction["tokens_after"],
        "after the compaction the context is the summary, not the 148,000 before: {state}"
    );
    assert_eq!(state["size"], 200_000, "claude-opus-4-6's window: {state}");
    let (_, keep) = app
        .get_json(&format!("/conversations/{}/keep?kind=file_changed", encode(session)))
        .await;
    assert_eq!(
        keep["items"][0]["text"], "/repo/src/parser/lexer.rs",
        "the edit is in the keep set: {keep}"
    );

    // The same hook again (Claude Code restarted, or PostCompact and
    // SessionStart both on): nothing is recorded twice.
    let again = session_start(&app, session, &path).await;
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(again.stdout, after.stdout);
    assert_eq!(compactions(&app, session).await.len(), 1);
    assert_eq!(app.state(session).await["turn_count"], 2);

    // A second, manual compaction whose summary holds everything: nothing to give back.
    cc.user("Good. Now document the fix in docs/lexer.md.");
    cc.edit("msg_3", "toolu_3", "/repo/docs/lexer.md");
    cc.answer("msg_3", "Documented it.", 60_000);
    cc.compact(
        "manual",
        61_000,
        "Latest: Good. Now document the fix in docs/lexer.md. Rule: Don't touch Cargo.lock. PROJ-4711 is fixed (https://ci.example.com/runs/88231; run 88231 timed out); /repo/src/parser/lexer.rs and /repo/docs/lexer.md were edited (src/parser/lexer.rs, docs/lexer.md).",
    );
    cc.write(&path);
    let second = session_start(&app, session, &path).await;
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert_eq!(second.stdout, "", "a summary that holds every item gets nothing back");
    let recorded = compactions(&app, session).await;
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0]["trigger"], "manual");
    assert_eq!(recorded[0]["tokens_before"], 61_000);
    assert_eq!(app.state(session).await["turn_count"], 3);

    // The fleet's history lists Claude Code's compactions by their harness.
    let (status, fleet) = app.get_json("/compactions?harness=claude-code").await;
    assert_eq!(status, 200, "{fleet}");
    assert_eq!(fleet["compactions"].as_array().unwrap().len(), 2);
    let (_, none) = app.get_json("/compactions?harness=codex").await;
    assert_eq!(none["compactions"].as_array().unwrap().len(), 0);
    let events = app.events(session).await;
    assert!(
        events
            .iter()
            .all(|e| e["at"].as_str().unwrap().starts_with("2026-11-30T10:")),
        "one clock, the transcript's, for everything the hook records: {events:?}"
    );
    std::fs::remove_file(&path).ok();
}

/// What the hook gives back after Claude Code compacted with a summary
/// that names a file and a ticket nobody did, the project's memory file, and
/// its footer pointing at the transcript as `footer` spells its path.
async fn unverified_given_back(session: &str, footer: impl Fn(&std::path::Path) -> String) -> (String, Value) {
    let app = spawn_app().await;
    let path = session_file(&format!("claude-code-unverified-{session}"));
    let mut cc = before_the_first_compaction(session);
    cc.write(&path);
    let before = pre_compact(&app, session, &path).await;
    assert_eq!(before.code, Some(0), "{}", before.stderr);

    let project = path.with_extension("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("CLAUDE.md"), "Run cargo test before committing.").unwrap();
    cc.compact_with(
        json!({"trigger": "auto", "preTokens": 148_000, "postTokens": 31_200}),
        &format!(
            "Fixed the tokenizer bug in src/parser/lexer.rs (PROJ-4711) and src/parser/tokens.rs; PROJ-4712 is next. Rule: Don't touch Cargo.lock, as CLAUDE.md says. See https://ci.example.com/runs/88231. Read the full transcript at: {}",
            footer(&path)
        ),
    );
    cc.write(&path);
    let after = hook(
        "claude-code",
        &app.address,
        &claude_input(
            session,
            &path,
            "SessionStart",
            json!({"source": "compact", "cwd": project}),
        ),
    )
    .await;

    assert_eq!(after.code, Some(0), "{}", after.stderr);
    let answer: Value = serde_json::from_str(&after.stdout).expect("SessionStart answers JSON");
    let given = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        app.state(session).await["used"],
        31_200,
        "the size after, as Claude Code recorded it"
    );
    let (_, ledger) = app.get_json(&format!("/conversations/{session}/compactions")).await;
    std::fs::remove_file(&path).ok();
    std::fs::remove_dir_all(&project).ok();
    (given, ledger["compactions"][0].clone())
}

#[tokio::test]
async fn names_claude_codes_summary_made_up_are_given_back_as_unverified() {
    let (given, compaction) = unverified_given_back("0b7d4c1a-5e2f-4a9b-8c3d-6e1f2a3b4c5d", |path| {
        path.display().to_string()
    })
    .await;

    assert_eq!(
        given.lines().find(|line| line.starts_with("- Unverified: ")),
        Some("- Unverified: src/parser/tokens.rs; PROJ-4712"),
        "what the conversation never named is flagged; the transcript's own path and a file the project has are not: {given}"
    );
    // And the ledger counts them, as it counts a model's, by kind.
    let keep = &compaction["keep"];
    assert_eq!(keep["invented"], 2, "{compaction}");
    assert_eq!(keep["by_kind"]["path"]["invented"], 1, "{keep}");
    assert_eq!(keep["by_kind"]["id"]["invented"], 1, "{keep}");
}

#[tokio::test]
async fn claude_codes_footer_is_no_invention_wherever_its_home_directory_sits() {
    // A moved ~/.claude, or Claude Code under WSL naming the Windows side:
    // the footer's path is not the one the hook was given, its file is.
    let (given, _) = unverified_given_back("9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", |path| {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        format!("/mnt/c/Users/dev/.claude/projects/-repo/{file}")
    })
    .await;

    assert_eq!(
        given.lines().find(|line| line.starts_with("- Unverified: ")),
        Some("- Unverified: src/parser/tokens.rs; PROJ-4712"),
        "the footer's transcript, under another home, is not flagged: {given}"
    );
}

#[tokio::test]
async fn the_hook_gives_back_what_the_ledger_appended_and_counts_the_same_parked() {
    let app = spawn_app().await;
    let session = "5c0d9e8f-1a2b-4c3d-8e4f-6a7b8c9d0e1f";
    let path = session_file("claude-code-parked");
    let mut cc = before_the_first_compaction(session);
    // More tickets than any budget holds.
    for batch in 0..3 {
        let tickets: Vec<String> = (0..400).map(|n| format!("TKT-{}", 10_000 + batch * 400 + n)).collect();
        cc.user(&format!("Also close these: {}.", tickets.join(", ")));
        cc.answer(&format!("msg_t{batch}"), "Noted.", 150_000);
    }
    cc.user("Now triage them.");
    cc.answer("msg_t3", "Triaging.", 150_000);
    cc.write(&path);
    let before = pre_compact(&app, session, &path).await;
    assert_eq!(before.code, Some(0), "{}", before.stderr);
    cc.compact("auto", 150_000, "The user asked for parser fixes and ticket triage.");
    cc.write(&path);
    let after = session_start(&app, session, &path).await;
    assert_eq!(after.code, Some(0), "{}", after.stderr);
    let answer: Value = serde_json::from_str(&after.stdout).expect("SessionStart answers JSON");
    let given = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap();

    let recorded = compactions(&app, session).await;
    let keep = &recorded[0]["keep"];
    let parked = keep["parked"].as_u64().unwrap();
    assert!(parked > 0, "the budget parks some: {keep}");
    assert!(
        given.contains(&format!("with {parked} more items this summary does not hold")),
        "the hook counts what the ledger parked ({parked}): {given}"
    );
    let given_tickets = given.matches("TKT-").count() as u64;
    assert_eq!(
        given_tickets, keep["by_kind"]["id"]["appended"],
        "the tickets given back are those the ledger appended: {keep}"
    );
    std::fs::remove_file(&path).ok();
}

#[tokio::test]
async fn what_the_hook_gives_back_opens_with_the_files_changed_then_the_users_items() {
    let app = spawn_app().await;
    let session = "3a9e1f0c-7b2d-4e5a-8f6c-1d2e3f4a5b6c";
    let path = session_file("claude-code-by-value");
    let mut cc = before_the_first_compaction(session);
    cc.edit("msg_3", "toolu_3", "/repo/src/parser/tokens.rs");
    cc.answer(
        "msg_3",
        "Also tightened the tokens in /repo/docs/grammar.md's example.",
        150_000,
    );
    cc.write(&path);
    let before = pre_compact(&app, session, &path).await;
    assert_eq!(before.code, Some(0), "{}", before.stderr);

    // A summary that names none of it.
    cc.compact("auto", 150_000, "The user asked for parser fixes; they were made.");
    cc.write(&path);
    let after = session_start(&app, session, &path).await;
    assert_eq!(after.code, Some(0), "{}", after.stderr);
    let answer: Value = serde_json::from_str(&after.stdout).expect("SessionStart answers JSON");
    let given = answer["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    let at = |line: &str| {
        given
            .lines()
            .position(|l| l.starts_with(line))
            .unwrap_or_else(|| panic!("no {line:?} line in: {given}"))
    };
    let files = at("- Files changed");
    let rule = at("- Rule: Don't touch Cargo.lock.");
    let ids = at("- Ids: ");
    let by_agent = at("- Also named by the agent: ");
    assert!(
        files < rule && rule < ids && ids < by_agent,
        "files changed, then the user's rule and items, then the agent's: {given}"
    );
    assert_eq!(
        given.matches("Kept word for word:").count(),
        1,
        "one heading over them all: {given}"
    );
    assert!(given.contains("tokens.rs") && given.contains("lexer.rs"), "{given}");
    std::fs::remove_file(&path).ok();
}

#[tokio::test]
async fn other_session_starts_and_events_leave_everything_as_it_was() {
    let app = spawn_app().await;
    let session = "0b8e7a52-57a4-4d0c-8a3e-0f1f2d3c4b5a";
    let path = session_file("claude-code-quiet");
    let mut cc = before_the_first_compaction(session);
    cc.compact("auto", 148_000, "Fixed the lexer.");
    cc.write(&path);
    for (event, extra) in [
        ("SessionStart", json!({"source": "startup"})),
        ("SessionStart", json!({"source": "resume"})),
        ("UserPromptSubmit", json!({"prompt": "hi"})),
        ("Stop", json!({"stop_hook_active": false})),
    ] {
        let ran = hook("claude-code", &app.address, &claude_input(session, &path, event, extra)).await;
        assert_eq!(
            (ran.code, ran.stdout.as_str()),
            (Some(0), ""),
            "{event}: {}",
            ran.stderr
        );
    }
    let (status, _) = app.get_json(&format!("/conversations/{}", encode(session))).await;
    assert_eq!(status, 404, "nothing was recorded");
    std::fs::remove_file(&path).ok();
}

#[tokio::test]
async fn the_hook_never_stands_in_claude_codes_way() {
    let session = "5d2f0c1e-9b7a-4e3d-8c6b-1a2b3c4d5e6f";
    let path = session_file("claude-code-away");
    before_the_first_compaction(session).write(&path);
    // Nothing listens on port 9 of this machine.
    let away = hook(
        "claude-code",
        "http://127.0.0.1:9",
        &claude_input(session, &path, "PreCompact", json!({"trigger": "auto"})),
    )
    .await;
    assert_eq!(away.code, Some(0), "exit 2 would block Claude Code's compaction");
    assert_eq!(away.stdout, "");
    assert!(away.stderr.contains("could not be reached"), "{}", away.stderr);
    for bad in [json!("not an object"), json!({"hook_event_name": "PreCompact"})] {
        let ran = hook("claude-code", "http://127.0.0.1:9", &bad).await;
        assert_eq!(ran.code, Some(0));
        assert!(ran.stderr.contains("not what claude-code sends"), "{}", ran.stderr);
    }
    let missing = hook(
        "claude-code",
        "http://127.0.0.1:9",
        &claude_input(session, Path::new("/nonexistent/s.jsonl"), "PreCompact", json!({})),
    )
    .await;
    assert_eq!(missing.code, Some(0));
    assert!(missing.stderr.contains("cannot be read"), "{}", missing.stderr);
    std::fs::remove_file(&path).ok();
}

#[tokio::test]
async fn a_transcript_that_is_no_regular_file_or_bytes_that_are_no_text_never_hang_or_fail_it() {
    let session = "7e3a1b2c-4d5e-4f60-9a8b-7c6d5e4f3a2b";
    let fifo = session_file("claude-code-fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for path in [fifo.as_path(), Path::new("/dev/zero")] {
        let input = claude_input(session, path, "PreCompact", json!({}));
        let ran = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            hook("claude-code", "http://127.0.0.1:9", &input),
        )
        .await
        .expect("the hook neither waits on a FIFO nor reads a device forever");
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        assert!(ran.stderr.contains("not a regular file"), "{path:?}: {}", ran.stderr);
    }
    std::fs::remove_file(&fifo).ok();

    let ran = hook_bytes("claude-code", "http://127.0.0.1:9", b"{\"session_id\": \"\xff\xfe\"}").await;
    assert_eq!(ran.code, Some(0), "input that is no UTF-8 is reported, not a failure");
    assert!(ran.stderr.contains("not what claude-code sends"), "{}", ran.stderr);
}

#[tokio::test]
async fn a_huge_paste_and_a_broken_line_do_not_stop_the_session_being_recorded() {
    let app = spawn_app().await;
    let session = "2b4d6f8a-1c3e-4a5b-9c7d-8e9f0a1b2c3d";
    let path = session_file("claude-code-huge");
    let mut cc = ClaudeCode::new(session);
    // 5 MB pasted: more than a /turn-ended body may be.
    let paste = format!(
        "Why does this fail? Never touch Cargo.lock.\n{}",
        "error: at line 42\n".repeat(280_000)
    );
    cc.user(&paste);
    cc.answer("msg_1", "The log says line 42.", 90_000);
    cc.user("Then fix src/parser/lexer.rs.");
    cc.edit("msg_2", "toolu_2", "/repo/src/parser/lexer.rs");
    cc.answer("msg_2", "Fixed.", 120_000);
    cc.user("Thanks.");
    cc.answer("msg_3", "You're welcome.", 121_000);
    cc.write(&path);
    // A line of bytes that are no UTF-8, as a crashed write leaves.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"\xff\xfe{\"type\":\"user\"\n");
    std::fs::write(&path, &bytes).unwrap();

    let before = pre_compact(&app, session, &path).await;
    assert_eq!(before.code, Some(0), "{}", before.stderr);
    assert_eq!(before.stderr, "", "nothing refused");
    assert_eq!(app.state(session).await["turn_count"], 2, "the turns but the last");
    let (_, turn) = app
        .get_json(&format!("/conversations/{}/turns/1", encode(session)))
        .await;
    let stored = turn["user"].as_str().unwrap();
    assert!(
        stored.starts_with("Why does this fail? Never touch Cargo.lock."),
        "{}",
        &stored[..80]
    );
    assert!(stored.ends_with("characters in all]"), "clipped, and says so");

    cc.compact("auto", 121_000, "The user asked about a log and a lexer fix.");
    cc.write(&path);
    let after = session_start(&app, session, &path).await;
    assert_eq!(after.code, Some(0), "{}", after.stderr);
    assert_eq!(compactions(&app, session).await.len(), 1, "{}", after.stderr);
    std::fs::remove_file(&path).ok();
}

#[tokio::test]
async fn codexs_compaction_is_recorded_with_its_summary() {
    let app = spawn_app().await;
    let session = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b";
    let path = session_file("codex");
    let item =
        |payload: Value| json!({"timestamp": "2026-11-30T11:00:00.000Z", "type": "response_item", "payload": payload});
    let lines = [
        json!({"timestamp": "2026-11-30T10:59:00.000Z", "type": "session_meta", "payload": {"id": session, "cwd": "/repo"}}),
        item(
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"}]}),
        ),
        item(
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Add retries to src/net/fetch.rs; never retry a POST."}]}),
        ),
        item(
            json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": "*** Begin Patch\n*** Update File: src/net/fetch.rs\n@@\n-a\n+b\n*** End Patch"}),
        ),
        item(
            json!({"type": "custom_tool_call_output", "call_id": "c1", "output": "Success. Updated the following files:\nM src/net/fetch.rs"}),
        ),
        item(
            json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Retries added."}]}),
        ),
        json!({"timestamp": "2026-11-30T11:05:00.000Z", "type": "compacted", "payload": {"message": "The user wanted retries in fetch.rs; they were added."}}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    let input = |event: &str| json!({"session_id": session, "turn_id": "t-1", "transcript_path": path, "cwd": "/repo", "hook_event_name": event, "model": "gpt-5-codex", "trigger": "auto"});
    let ran = hook("codex", &app.address, &input("PostCompact")).await;
    assert_eq!((ran.code, ran.stdout.as_str()), (Some(0), ""), "{}", ran.stderr);
    let recorded = compactions(&app, session).await;
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["harness"], "codex");
    assert_eq!(recorded[0]["summarizer"], "harness");
    assert_eq!(recorded[0]["at"], "2026-11-30T11:05:00Z");
    assert!(
        recorded[0]["summary"].as_str().unwrap().contains("never retry a POST."),
        "the keep guard appended the rule"
    );
    let (_, keep) = app
        .get_json(&format!("/conversations/{}/keep?kind=file_changed", encode(session)))
        .await;
    assert_eq!(keep["items"][0]["text"], "src/net/fetch.rs", "{keep}");
    std::fs::remove_file(&path).ok();
}
