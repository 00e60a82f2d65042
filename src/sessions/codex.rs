//! Codex CLI rollout JSONL (`~/.codex/sessions/…/rollout-*.jsonl`): records
//! `{timestamp, type, payload}`, the conversation in `response_item`s
//! (messages, `function_call`s and their outputs, `custom_tool_call`s such as
//! `apply_patch`, `local_shell_call`s), the summary Codex writes when it
//! compacts in a `compacted` record. Older rollouts hold the items bare.

use serde_json::Value;

use super::claude_code::text_of;
use super::parsed::{Boundary, Parsed};
use crate::domain::transcript::{Message, Role, ToolCall};

fn content_text(content: &Value) -> String {
    match content {
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => text_of(other),
    }
}

/// A tool's output: a string (sometimes JSON holding `output`), or an object with `content`.
fn output_text(output: &Value) -> String {
    match output {
        Value::String(text) => serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|inner| inner["output"].as_str().map(str::to_owned))
            .unwrap_or_else(|| text.clone()),
        Value::Object(_) => content_text(&output["content"]),
        other => other.to_string(),
    }
}

fn call(id: &Value, name: &str, arguments: String) -> Message {
    Message {
        tool_calls: vec![ToolCall {
            id: id.as_str().unwrap_or_default().to_owned(),
            name: name.to_owned(),
            arguments,
        }],
        ..Message::new(Role::Assistant, "")
    }
}

fn result(id: &Value, text: String) -> Message {
    Message {
        tool_call_id: id.as_str().map(str::to_owned),
        ..Message::new(Role::Tool, text)
    }
}

/// What a `token_count` event says the last model call held: its input
/// (cached or not) and its output.
fn token_count(payload: &Value) -> Option<u64> {
    if payload["type"] != "token_count" {
        return None;
    }
    let last = &payload["info"]["last_token_usage"];
    let input = last["input_tokens"].as_u64()?;
    let used = input.saturating_add(last["output_tokens"].as_u64().unwrap_or(0));
    (used > 0).then_some(used)
}

pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut records = 0;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        records += 1;
        let stamp = record["timestamp"].as_str().map(str::to_owned);
        let item = match record["type"].as_str() {
            Some("response_item") => &record["payload"],
            Some("compacted") => {
                let summary = content_text(&record["payload"]["message"]);
                if !summary.trim().is_empty() {
                    parsed.summaries.push((parsed.messages.len(), summary));
                }
                parsed.boundaries.push(Boundary {
                    next_message: parsed.messages.len(),
                    at: stamp,
                    ..Boundary::default()
                });
                continue;
            }
            Some("event_msg") => {
                if let Some(used) = token_count(&record["payload"]) {
                    parsed.record_used(used);
                }
                if let Some(window) = record["payload"]["info"]["model_context_window"].as_u64() {
                    parsed.window = Some(window);
                }
                continue;
            }
            Some("turn_context") => {
                if let Some(model) = record["payload"]["model"].as_str().filter(|model| !model.is_empty()) {
                    parsed.model = Some(model.to_owned());
                }
                continue;
            }
            Some("session_meta") => continue,
            _ => &record,
        };
        let message = match item["type"].as_str() {
            Some("message") => {
                let role = match item["role"].as_str() {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    _ => Role::System,
                };
                Message::new(role, content_text(&item["content"]))
            }
            Some("function_call") => call(
                &item["call_id"],
                item["name"].as_str().unwrap_or_default(),
                item["arguments"]
                    .as_str()
                    .map_or_else(|| item["arguments"].to_string(), str::to_owned),
            ),
            Some("custom_tool_call") => call(
                &item["call_id"],
                item["name"].as_str().unwrap_or_default(),
                item["input"].as_str().unwrap_or_default().to_owned(),
            ),
            Some("local_shell_call") => call(
                &item["call_id"],
                "local_shell",
                serde_json::json!({"command": item["action"]["command"]}).to_string(),
            ),
            Some("function_call_output" | "custom_tool_call_output") => {
                result(&item["call_id"], output_text(&item["output"]))
            }
            _ => continue,
        };
        parsed.messages.push(message);
        parsed.stamps.push(stamp);
    }
    if records == 0 {
        return Err("no Codex records".into());
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_count_events_record_the_context_after_the_message_before_them() {
        let text = [
            r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"/repo","model":"gpt-5-codex"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a README."}]}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Added."}]}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":90000,"output_tokens":700},"last_token_usage":{"input_tokens":12000,"cached_input_tokens":11000,"output_tokens":300,"total_tokens":12300},"model_context_window":272000}}}"#,
        ]
        .join("\n");
        let parsed = parse(&text).unwrap();
        assert_eq!(
            parsed.recorded_used,
            [(2, 12_300)],
            "the last call's, not the session's total"
        );
        assert_eq!(
            parsed.window,
            Some(272_000),
            "the model's window, as the session recorded it"
        );
        assert_eq!(parsed.last_used, Some(12_300));
        assert_eq!(parsed.model.as_deref(), Some("gpt-5-codex"), "its turn context's model");
    }

    #[test]
    fn response_items_become_chat_messages_and_compactions_are_summaries() {
        let text = [
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s","cwd":"/repo"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/repo</cwd>\n</environment_context>"}]}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a README."}]}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"Add a README."}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":[]}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"src\\n\",\"metadata\":{\"exit_code\":0}}"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Add File: README.md\n+hi\n*** End Patch","call_id":"c2"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Success."}}"#,
            r#"{"timestamp":"t","type":"compacted","payload":{"message":"Summary so far: README added."}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Added README.md."}]}}"#,
        ]
        .join("\n");
        let parsed = parse(&text).unwrap();
        let roles: Vec<Role> = parsed.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::User,
                Role::Assistant,
                Role::Tool,
                Role::Assistant,
                Role::Tool,
                Role::Assistant
            ]
        );
        assert_eq!(parsed.messages[3].content, "src\n");
        assert_eq!(parsed.messages[4].tool_calls[0].name, "apply_patch");
        assert_eq!(parsed.summaries, [(6, "Summary so far: README added.".to_owned())]);
    }
}
