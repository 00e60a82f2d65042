//! What an agent carries on from (issue 20, second pass), through
//! `/summarize` on transcripts shaped like real Claude Code sessions: the
//! commits made and how far they were pushed, what was verified and what
//! changed since, what the user typed into a tool call they refused, the
//! issue the agent read, and files named from the folder they share. Each
//! is something blind graders found missing from summaries of real sessions.

use compactd::summary::read::STATE_HEADING;
use compactd::summary::write::narrative::KEPT_HEADING;
use serde_json::{Value, json};

use crate::helpers::spawn_app;
use crate::shapes::{call, result, section, summarize};

fn bash(id: &str, command: &str) -> Value {
    call(id, "Bash", json!({ "command": command }))
}

fn edit(id: &str, path: &str) -> Value {
    call(
        id,
        "Edit",
        json!({"file_path": path, "old_string": "a", "new_string": "b"}),
    )
}

/// A bead worked through: read, built, tested, committed and pushed, then
/// edited again and not yet tested or committed.
fn bead_run() -> Value {
    json!([
        {"role": "user", "content": "Implement spotter-gqc"},
        bash("1", "bd show spotter-gqc"),
        result(
            "1",
            "○ spotter-gqc [EPIC] · Transcript annotations with message references   [● P2 · OPEN]\n\n## Goal\nPersist durable transcript message references on annotations.\n\n## Architecture constraints\n- Use Ash resources and SQLite migrations; no ad-hoc SQL outside migrations.\n- Keep existing terminal annotation behavior working.\n",
        ),
        edit("2", "/home/u/spotter/lib/spotter/transcripts/annotation.ex"),
        result("2", "ok"),
        bash("3", "mix test"),
        result("3", "Finished in 0.9 seconds\n14 doctests, 73 tests, 0 failures"),
        bash("4", "git add -A && git commit -m \"$(cat <<'EOF'\nfeat: annotations with message refs (spotter-gqc)\n\nBody.\nEOF\n)\" && git push"),
        result(
            "4",
            "[spotter-gqc 99b497c] feat: annotations with message refs (spotter-gqc)\n 12 files changed\nTo github.com:m/spotter.git\n * [new branch]      spotter-gqc -> spotter-gqc",
        ),
        bash("5", "git commit -am 'feat: project review page (spotter-gqc.5)'"),
        result("5", "[spotter-gqc bb53fb4] feat: project review page (spotter-gqc.5)\n 4 files changed"),
        edit("6", "/home/u/spotter/lib/spotter_web/live/project_review_live.ex"),
        result("6", "ok"),
        edit("7", "/home/u/spotter/lib/spotter_web/router.ex"),
        result("7", "ok"),
        edit("8", "/home/u/spotter/test/spotter_web/live/project_review_live_test.exs"),
        result("8", "ok"),
        {"role": "assistant", "content": "Added the close button; the tests for it come next."},
    ])
}

#[tokio::test]
async fn the_commits_made_and_what_was_verified_are_where_things_stand() {
    let app = spawn_app().await;

    let summary = summarize(&app, &bead_run()).await;

    let state = section(&summary, STATE_HEADING);
    assert!(
        state.contains(
            "- Commits: 99b497c feat: annotations with message refs (spotter-gqc); bb53fb4 feat: project review page (spotter-gqc.5) \
             (on spotter-gqc; pushed through 99b497c, not bb53fb4); \
             changed since the last commit: project_review_live.ex, router.ex, project_review_live_test.exs"
        ),
        "{summary}"
    );
    assert!(
        state.contains(
            "- Checks: `mix test` → 14 doctests, 73 tests, 0 failures; \
             then changed, not checked since: project_review_live.ex, router.ex, project_review_live_test.exs"
        ),
        "{summary}"
    );
    assert!(
        summary.contains("`git add -A && git commit -m …` → [spotter-gqc 99b497c]"),
        "a commit's message is not its command: {summary}"
    );
}

#[tokio::test]
async fn the_issue_the_agent_read_is_said_with_what_bounds_the_work() {
    let app = spawn_app().await;

    let summary = summarize(&app, &bead_run()).await;

    assert!(
        summary.contains(
            "  · read spotter-gqc [EPIC] · Transcript annotations with message references [● P2 · OPEN] \
             — Goal: Persist durable transcript message references on annotations. \
             — Architecture constraints: Use Ash resources and SQLite migrations; no ad-hoc SQL outside migrations; \
             Keep existing terminal annotation behavior working"
        ),
        "{summary}"
    );
}

#[tokio::test]
async fn files_changed_are_named_from_the_folder_they_share_and_the_keep_set_finds_them() {
    let app = spawn_app().await;
    let write = |id: &str, path: &str| call(id, "Write", json!({"file_path": path, "content": "x"}));
    let read = |id: &str, path: &str| call(id, "Read", json!({"file_path": path}));
    let messages = json!([
        {"role": "user", "content": "Scaffold the web app."},
        bash("1", "mkdir -p /Users/a/torre/apps/web/lib"),
        result("1", ""),
        write("2", "/Users/a/torre/apps/web/lib/api.ts"),
        result("2", "ok"),
        write("3", "/Users/a/torre/apps/web/lib/logger.ts"),
        result("3", "ok"),
        write("4", "/Users/a/torre/apps/api/route.ts"),
        result("4", "ok"),
        write("5", "/Users/a/.claude/plans/plan.md"),
        result("5", "ok"),
        read("6", "/Users/a/torre/SPEC.md"),
        result("6", "spec"),
        read("7", "/Users/a/torre/README.md"),
        result("7", "readme"),
        read("8", "/Users/a/torre/AGENTS.md"),
        result("8", "agents"),
    ]);

    let summary = summarize(&app, &messages).await;

    assert!(
        section(&summary, KEPT_HEADING).contains(
            "- Files changed (under /Users/a/torre/apps/): api/route.ts, web/lib/logger.ts, web/lib/api.ts\n\
             - Files changed: /Users/a/.claude/plans/plan.md"
        ),
        "the folder made for them is named by the files in it: {summary}"
    );
    let (_, keep) = app.get_json("/conversations/c/keep?kind=file_changed").await;
    let items = keep["items"].as_array().unwrap();
    assert_eq!(items.len(), 5, "{keep}");
    assert!(
        items.iter().all(|item| item["in_summary"] == true),
        "a reader finds each file under its folder: {keep}"
    );
}

#[tokio::test]
async fn what_the_user_typed_into_a_refused_tool_call_is_their_request() {
    let app = spawn_app().await;
    let messages = json!([
        {"role": "user", "content": "Plan the swipe app."},
        call("p", "ExitPlanMode", json!({"plan": "# Plan\n\n## Goal\n\nA Tinder-style job app."})),
        result(
            "p",
            "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  Amazing! Go and implement it. Make sure to commit changes as you complete tasks; never commit straight to main.",
        ),
        {"role": "assistant", "content": "Now I'll implement the full plan."},
        call("w", "Write", json!({"file_path": "package.json", "content": "{}"})),
        result("w", "ok"),
    ]);

    let summary = summarize(&app, &messages).await;

    assert!(
        section(&summary, STATE_HEADING).contains(
            "- Latest request: Amazing! Go and implement it. Make sure to commit changes as you complete tasks; never commit straight to main."
        ),
        "{summary}"
    );
    let (_, rules) = app.get_json("/conversations/c/keep?kind=prohibition").await;
    assert_eq!(
        rules["items"][0]["text"], "Make sure to commit changes as you complete tasks; never commit straight to main.",
        "{rules}"
    );
}

#[tokio::test]
async fn the_readme_shows_a_summary_as_the_service_writes_it() {
    let app = spawn_app().await;
    let session: Value =
        serde_json::from_str(include_str!("fixtures/readme_session.json")).expect("the README's session is JSON");

    let summary = summarize(&app, &session).await;

    let guide = include_str!("../../docs/summaries.md");
    assert!(
        guide.contains(&format!("```\n{summary}\n```")),
        "docs/summaries.md shows this summary of tests/api/fixtures/readme_session.json:\n{summary}"
    );
}
