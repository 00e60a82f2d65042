//! Claude Code's own compactions, and what `compactd hook claude-code`
//! gives back (issue 13). Each session file is replayed the way Claude Code
//! runs the hook: for each of its compactions, the file as it stood just
//! before (the `PreCompact` hook), then with the boundary and Claude Code's
//! summary (`SessionStart` with source `compact`). For every compaction it
//! prints, by kind, how many of the keep set's items Claude Code's summary
//! held word for word, how many the hook gave back, and how many did not
//! fit (the compaction's figures in the ledger: the hook gives back what
//! the ledger appended).
//!
//! `cargo run --release --example claude_code_hook -- SESSION.jsonl…`
//! (`HOOK_MAX_TOKENS`, default 2,000: the hook's room for unverified names. With `HOOK_GIVEN_DIR`
//! set, each compaction's harness summary and what the hook printed are
//! written there as `STEM-N.summary.md` and `STEM-N.given.md`, for grading.)

#[path = "support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use compactd::hook::{self, Harness, HookOptions};
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

/// Per kind: (checked, held by Claude Code's summary, given back, left out).
type Tally = BTreeMap<String, [u64; 4]>;

fn record(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or(Value::Null)
}

fn is_boundary(line: &str) -> bool {
    let record = record(line);
    record["type"] == "system" && record["subtype"] == "compact_boundary"
}

/// The summary's line: the first user record after the boundary.
fn summary_line(lines: &[&str], boundary: usize) -> Option<usize> {
    (boundary + 1..lines.len()).find(|at| {
        let record = record(lines[*at]);
        record["type"] == "user" && record["isSidechain"] != true
    })
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

async fn run_hook(options: &HookOptions, input: Value) -> Option<String> {
    hook::run(Harness::ClaudeCode, options, &input.to_string())
        .await
        .expect("the hook runs")
}

fn add(tally: &mut Tally, by_kind: &Value) {
    for (kind, f) in by_kind.as_object().into_iter().flatten() {
        let entry = tally.entry(kind.clone()).or_default();
        for (at, field) in ["checked", "present", "appended", "parked"].iter().enumerate() {
            entry[at] += f[field].as_u64().unwrap_or(0);
        }
    }
}

fn print_tally(title: &str, tally: &Tally) {
    println!("{title}");
    println!(
        "  {:<14} {:>8} {:>22} {:>16} {:>16}",
        "kind", "checked", "held by Claude Code", "given back", "left out"
    );
    let mut total = [0_u64; 4];
    for (kind, f) in tally {
        println!("  {kind:<14} {:>8} {:>22} {:>16} {:>16}", f[0], f[1], f[2], f[3]);
        for at in 0..4 {
            total[at] += f[at];
        }
    }
    println!(
        "  {:<14} {:>8} {:>22} {:>16} {:>16}",
        "all", total[0], total[1], total[2], total[3]
    );
}

/// The additional context a hook's answer carries ("" for none).
fn context_of(printed: Option<&str>) -> String {
    let printed = printed.map(record).unwrap_or(Value::Null);
    printed["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
        .to_owned()
}

#[tokio::main]
async fn main() {
    let files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    assert!(!files.is_empty(), "usage: claude_code_hook SESSION.jsonl…");
    let max_tokens = std::env::var("HOOK_MAX_TOKENS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let mut settings = support::settings("http://127.0.0.1:9", None, false);
    settings.summarizer = None;
    settings.max_body_bytes = 256 * 1024 * 1024;
    let url = support::serve("compactd_hook_bench", settings, 8).await;
    let options = HookOptions {
        url: url.clone(),
        api_key: None,
        max_tokens,
        window: None,
    };
    // The hook reads each session under its own file name, as Claude Code
    // gives it: its summary's footer names that file.
    let scratch_dir = std::env::temp_dir().join(format!("compactd-hook-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch_dir).expect("a scratch directory");
    let given_dir = std::env::var_os("HOOK_GIVEN_DIR").map(PathBuf::from);
    let mut all = Tally::new();
    let mut compactions = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("the session file reads");
        let lines: Vec<&str> = text.lines().collect();
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("session");
        let session = format!("hook-bench-{stem}");
        let scratch = scratch_dir.join(file.file_name().expect("a session file's name"));
        let boundaries: Vec<usize> = (0..lines.len()).filter(|at| is_boundary(lines[*at])).collect();
        println!(
            "== {} ({} lines, {} compactions)",
            file.display(),
            lines.len(),
            boundaries.len()
        );
        for (n, boundary) in boundaries.iter().enumerate() {
            let write = |upto: usize| std::fs::write(&scratch, lines[..upto].join("\n") + "\n").expect("scratch");
            let input = |event: &str, extra: Value| {
                let mut input =
                    json!({"session_id": session, "transcript_path": scratch, "cwd": "/", "hook_event_name": event});
                for (k, v) in extra.as_object().into_iter().flatten() {
                    input[k] = v.clone();
                }
                input
            };
            let meta = record(lines[*boundary])["compactMetadata"].clone();
            write(*boundary);
            run_hook(&options, input("PreCompact", json!({"trigger": meta["trigger"]}))).await;
            let Some(summary_at) = summary_line(&lines, *boundary) else {
                println!("  compaction {}: no summary follows; skipped", n + 1);
                continue;
            };
            write(summary_at + 1);
            let given = run_hook(&options, input("SessionStart", json!({"source": "compact"}))).await;
            let summary = text_of(&record(lines[summary_at])["message"]["content"]);
            // What the hook gave back is what the ledger appended: its
            // figures are the compaction's, newest first.
            let ledger = support::post_get(&format!(
                "{url}/conversations/{}/compactions",
                utf8_percent_encode(&session, NON_ALPHANUMERIC)
            ))
            .await;
            let check = &ledger["compactions"][0];
            if let Some(dir) = &given_dir {
                std::fs::create_dir_all(dir).expect("the grading directory");
                let named = |what: &str| dir.join(format!("{stem}-{}.{what}.md", n + 1));
                std::fs::write(named("summary"), &summary).expect("the summary is written");
                std::fs::write(named("given"), context_of(given.as_deref())).expect("what was given back is written");
            }
            let mut one = Tally::new();
            add(&mut one, &check["keep"]["by_kind"]);
            add(&mut all, &check["keep"]["by_kind"]);
            compactions += 1;
            print_tally(
                &format!(
                    "  compaction {} ({}, {} tokens before; Claude Code's summary {} tokens; given back {} tokens{})",
                    n + 1,
                    meta["trigger"].as_str().unwrap_or("?"),
                    meta["preTokens"],
                    compactd::llm::tokens::count(&summary),
                    compactd::llm::tokens::count(&context_of(given.as_deref())),
                    if given.is_some() { "" } else { ", nothing printed" },
                ),
                &one,
            );
        }
    }
    std::fs::remove_dir_all(&scratch_dir).ok();
    print_tally(
        &format!("== all {compactions} compactions (the summary budget beside each harness summary)"),
        &all,
    );
}
