//! A summary an agent reads like a colleague's note (issue 41): a value
//! taken from tool output and used later survives with its source, a value
//! the conversation changed reads as its latest, and a call the user refused
//! is never shown as having worked. Transcripts shaped like real Claude Code
//! sessions, summarized without a model.

use serde_json::{Value, json};

use crate::helpers::spawn_app;
use crate::shapes::{call, result, summarize};

/// A medium session's middle: files read and tests run, nothing of which
/// bears on what comes after.
fn busy_work(turns: usize) -> Vec<Value> {
    (0..turns)
        .flat_map(|n| {
            [
                json!({"role": "user", "content": format!("Now tidy module {n}: rename the helpers in src/m{n}.rs to say what they do.")}),
                call(
                    &format!("r{n}"),
                    "Read",
                    json!({"file_path": format!("src/m{n}.rs")}),
                ),
                result(&format!("r{n}"), &format!("fn h{n}() {{}}\n{}", "// filler line\n".repeat(30))),
                json!({"role": "assistant", "content": format!("Renamed the helpers in src/m{n}.rs.")}),
            ]
        })
        .collect()
}

#[tokio::test]
async fn a_value_from_the_top_of_a_tool_result_the_agent_relied_on_is_kept_with_its_source() {
    let app = spawn_app().await;
    let mut messages = vec![
        json!({"role": "user", "content": "Email the owner of the Acme account about the renewal."}),
        call("1", "Read", json!({"file_path": "crm/accounts/acme.json"})),
        result(
            "1",
            "{\n  \"account\": \"Acme\",\n  \"owner\": \"Dana Whitfield\",\n  \"renewal_date\": \"2027-02-01\"\n}",
        ),
        json!({"role": "assistant", "content": "Drafted the renewal email to Dana Whitfield for 2027-02-01."}),
    ];
    messages.extend(busy_work(40));

    let summary = summarize(&app, messages).await;

    assert!(
        summary.contains("Read `crm/accounts/acme.json` showed: \"'owner': 'Dana Whitfield',\""),
        "{summary}"
    );
}

#[tokio::test]
async fn a_value_the_conversation_changed_is_kept_as_its_latest_with_the_earlier_in_brackets() {
    let app = spawn_app().await;
    let mut messages = vec![
        json!({"role": "user", "content": "Plan the team offsite. The budget is $75 per person."}),
        json!({"role": "assistant", "content": "Planned the offsite within $75 per person."}),
    ];
    messages.extend(busy_work(10));
    messages.push(json!({"role": "user", "content": "Finance pushed back: trim the budget to $60."}));
    messages.push(json!({"role": "assistant", "content": "Trimmed the budget to $60; the venue still fits."}));

    let summary = summarize(&app, messages).await;

    assert!(summary.contains("budget $60 (earlier $75)"), "{summary}");
}

#[tokio::test]
async fn a_call_the_user_refused_is_never_shown_as_having_worked() {
    let app = spawn_app().await;
    let refused = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
    let messages = vec![
        json!({"role": "user", "content": "Make the retry back off exponentially."}),
        call(
            "1",
            "Edit",
            json!({"file_path": "src/backoff.rs", "old_string": "a", "new_string": "b"}),
        ),
        result("1", refused),
        call("2", "Bash", json!({"command": "cargo test --workspace"})),
        result("2", refused),
        json!({"role": "user", "content": "[Request interrupted by user for tool use]"}),
    ];

    let summary = summarize(&app, messages).await;

    assert!(
        summary.contains("`cargo test --workspace` → refused by the user, never ran"),
        "{summary}"
    );
    assert!(!summary.contains("workspace` → ok"), "{summary}");
    assert!(!summary.contains("backoff.rs` → ok"), "{summary}");
}

#[tokio::test]
async fn a_question_the_user_went_past_and_a_change_no_test_ran_over_stay_open() {
    let app = spawn_app().await;
    let mut messages = vec![
        json!({"role": "user", "content": "Port the invoice routes in billing/api/invoices.py to FastAPI."}),
        call(
            "1",
            "Edit",
            json!({"file_path": "billing/api/invoices.py", "old_string": "a", "new_string": "b"}),
        ),
        result("1", "The file billing/api/invoices.py has been updated."),
        call("2", "Bash", json!({"command": "pytest tests/test_invoices.py"})),
        result("2", "12 passed in 0.81s"),
        json!({"role": "assistant", "content": "Ported; the tests pass. Should the admin routes move in this change too?"}),
        json!({"role": "user", "content": "Add a --dry-run option to the export script."}),
        call(
            "3",
            "Edit",
            json!({"file_path": "scripts/export.py", "old_string": "a", "new_string": "b"}),
        ),
        result("3", "The file scripts/export.py has been updated."),
    ];
    messages.extend(busy_work(3));

    let summary = summarize(&app, messages).await;

    assert!(
        summary.contains("- Asked, not answered: Should the admin routes move in this change too?"),
        "{summary}"
    );
    assert!(
        summary.contains("Not yet verified: «Add a --dry-run option to the export script.» (changed scripts/export.py"),
        "{summary}"
    );
    assert!(
        !summary.contains("«Port the invoice routes"),
        "the invoice routes were tested after their change: {summary}"
    );
}
