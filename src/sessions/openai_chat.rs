//! A JSON array of OpenAI chat messages (`role`, `content` as a string, null
//! or text parts, `tool_calls` as OpenAI writes them or as compactd takes
//! them, `tool_call_id`, `name`).

use serde_json::Value;

use super::claude_code::text_of;
use super::parsed::Parsed;
use crate::domain::transcript::{Message, Role, ToolCall};

fn arguments_of(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        Value::Null => "{}".to_owned(),
        other => other.to_string(),
    }
}

pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let messages: Vec<Value> =
        serde_json::from_str(text).map_err(|err| format!("not a JSON array of messages: {err}"))?;
    let mut parsed = Parsed::default();
    for (at, message) in messages.iter().enumerate() {
        let role = match message["role"].as_str() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("tool" | "function") => Role::Tool,
            Some("system" | "developer") => Role::System,
            other => return Err(format!("message {at}: unknown role {other:?}")),
        };
        let tool_calls = message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|call| {
                let function = if call["function"].is_object() {
                    &call["function"]
                } else {
                    call
                };
                ToolCall {
                    id: call["id"].as_str().unwrap_or_default().to_owned(),
                    name: function["name"].as_str().unwrap_or_default().to_owned(),
                    arguments: arguments_of(&function["arguments"]),
                }
            })
            .collect();
        parsed.messages.push(Message {
            role,
            name: message["name"].as_str().map(str::to_owned),
            content: text_of(&message["content"]),
            tool_calls,
            tool_call_id: message["tool_call_id"].as_str().map(str::to_owned),
        });
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tool_call_shapes_are_read() {
        let text = r#"[
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": [{"type": "text", "text": "List files."}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "src"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "b", "name": "Write", "arguments": {"file_path": "x.txt"}}]}
        ]"#;
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.messages.len(), 5);
        assert_eq!(parsed.messages[1].content, "List files.");
        assert_eq!(parsed.messages[2].tool_calls[0].arguments, r#"{"command":"ls"}"#);
        assert_eq!(parsed.messages[4].tool_calls[0].arguments, r#"{"file_path":"x.txt"}"#);
        assert!(parse(r#"[{"role": "robot"}]"#).unwrap_err().contains("unknown role"));
    }
}
