//! Messages shaped like an agent's (a tool call, its result) and the parts
//! of a summary a test reads (the section under a pinned heading).

use serde_json::{Value, json};

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
