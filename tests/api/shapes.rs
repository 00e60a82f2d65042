//! Messages shaped like an agent's (a tool call, its result) and the parts
//! of a summary a test reads (the section under a pinned heading), and the
//! summary `/summarize` writes of them.

use serde::Serialize;
use serde_json::{Value, json};

use crate::helpers::TestApp;

/// What `/summarize` writes for conversation `c` of `messages`, after a
/// usage report that gives it a 200,000-token window.
pub async fn summarize(app: &TestApp, messages: impl Serialize) -> String {
    app.report("/usage", json!({"conversation_id": "c", "used": 20000, "size": 200000}))
        .await;
    let answer = app
        .report("/summarize", json!({"conversation_id": "c", "messages": messages}))
        .await;
    assert_eq!(answer["success"], true, "{answer}");
    answer["summary"].as_str().unwrap_or_default().to_owned()
}

/// An assistant message that makes one tool call.
pub fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"role": "assistant", "content": "", "tool_calls": [{"id": id, "name": name, "arguments": arguments}]})
}

/// The result of call `id`.
pub fn result(id: &str, text: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": text})
}

/// The section under a pinned heading, up to the next blank line.
pub fn section<'a>(summary: &'a str, heading: &str) -> &'a str {
    let Some(at) = summary.find(&format!("{heading}\n")) else {
        return "";
    };
    let rest = &summary[at..];
    rest.split("\n\n").next().unwrap_or(rest)
}
