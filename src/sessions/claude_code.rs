//! Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`):
//! one record a line; user records carry the user's text or tool results,
//! assistant records text and `tool_use` blocks (a streamed answer is split
//! over several records sharing one message id). Subagent (sidechain)
//! records are another conversation and are left out; the summary Claude
//! Code writes when it compacts is a user record marked `isCompactSummary`.

use serde_json::Value;

use super::parsed::{Boundary, Parsed};
use crate::domain::transcript::{Message, Role, ToolCall};

/// The text of a content value: a string, or the text blocks of an array.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block["type"].as_str() {
                Some("text") => block["text"].as_str().map(str::to_owned),
                Some("image") => Some("[image]".to_owned()),
                _ => block.as_str().map(str::to_owned),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// How the summary Claude Code writes when it compacts begins.
const CONTINUED: &str = "This session is being continued from a previous conversation";

/// Records Claude Code writes itself (an API error, "No response
/// requested.") name this model and count nothing: not a model call.
const SYNTHETIC_MODEL: &str = "<synthetic>";

/// What a model call's `usage` says the context held: everything sent,
/// cached or not, and the answer.
fn context_used(message: &Value) -> Option<u64> {
    if message["model"] == SYNTHETIC_MODEL {
        return None;
    }
    let usage = &message["usage"];
    let part = |name: &str| usage[name].as_u64();
    let input = part("input_tokens")?;
    let used = input
        .saturating_add(part("cache_read_input_tokens").unwrap_or(0))
        .saturating_add(part("cache_creation_input_tokens").unwrap_or(0))
        .saturating_add(part("output_tokens").unwrap_or(0));
    (used > 0).then_some(used)
}

pub(crate) fn parse(text: &str) -> Result<Parsed, String> {
    let mut parsed = Parsed::default();
    let mut last_assistant_id: Option<String> = None;
    let mut records = 0;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        // A session cut off mid-write ends in half a line: skip what does not parse.
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        records += 1;
        if record["isSidechain"].as_bool() == Some(true) {
            continue;
        }
        let stamp = record["timestamp"].as_str().map(str::to_owned);
        let message = &record["message"];
        let used = context_used(message);
        if let Some(model) = message["model"].as_str().filter(|model| model.starts_with("claude")) {
            parsed.model = Some(model.to_owned());
        }
        match record["type"].as_str() {
            Some("system") if record["subtype"] == "compact_boundary" => {
                let boundary = boundary_of(&record, parsed.messages.len(), stamp.clone());
                parsed.boundaries.push(boundary);
                last_assistant_id = None;
            }
            Some("user") => {
                last_assistant_id = None;
                add_user_record(&mut parsed, &record);
            }
            Some("assistant") => {
                let id = message["id"].as_str().map(str::to_owned);
                let continues = id.is_some() && id == last_assistant_id;
                add_assistant_record(&mut parsed, message, continues);
                last_assistant_id = id;
            }
            _ => {}
        }
        if let Some(used) = used {
            parsed.record_used(used);
        }
        parsed.stamps.resize(parsed.messages.len(), stamp);
    }
    if records == 0 {
        return Err("no Claude Code records".into());
    }
    Ok(parsed)
}

/// The harness compacting, from a `compact_boundary` record: before the
/// message at `next_message`.
fn boundary_of(record: &Value, next_message: usize, at: Option<String>) -> Boundary {
    let metadata = &record["compactMetadata"];
    Boundary {
        next_message,
        trigger: metadata["trigger"].as_str().map(str::to_owned),
        pre_tokens: metadata["preTokens"].as_u64(),
        post_tokens: metadata["postTokens"].as_u64(),
        at,
        uuid: record["uuid"].as_str().map(str::to_owned),
    }
}

/// A user record: the user's words, or the summary Claude Code wrote when it
/// compacted (noted as one), then a tool message per tool result it carries.
fn add_user_record(parsed: &mut Parsed, record: &Value) {
    let content = &record["message"]["content"];
    let words = text_of(content);
    // Builds that do not mark it still write it first after the boundary.
    let opens_after_boundary = parsed
        .boundaries
        .last()
        .is_some_and(|boundary| boundary.next_message == parsed.messages.len())
        && words.trim_start().starts_with(CONTINUED);
    let is_summary = record["isCompactSummary"].as_bool() == Some(true) || opens_after_boundary;
    if is_summary {
        parsed.summaries.push((parsed.messages.len(), words.clone()));
    }
    // What Claude Code writes in the user's place (`isMeta`: a command's or
    // a skill's expanded prompt, a caveat) is the harness's, not the user's:
    // read as such, it is no request, gives no rules and starts no turn.
    let words = if record["isMeta"].as_bool() == Some(true) && !is_summary && !words.trim().is_empty() {
        format!("<command-contents>\n{words}\n</command-contents>")
    } else {
        words
    };
    if !words.trim().is_empty() {
        if is_summary {
            parsed.summary_messages.push(parsed.messages.len());
        }
        parsed.messages.push(Message::new(Role::User, words));
    }
    for block in content.as_array().into_iter().flatten() {
        if block["type"] == "tool_result" {
            parsed.messages.push(Message {
                tool_call_id: block["tool_use_id"].as_str().map(str::to_owned),
                ..Message::new(Role::Tool, text_of(&block["content"]))
            });
        }
    }
}

/// An assistant record: a message of its own, or, when it `continues` the
/// answer the last one streamed, more of that message.
fn add_assistant_record(parsed: &mut Parsed, message: &Value, continues: bool) {
    let (words, calls) = words_and_calls(message);
    match parsed.messages.last_mut() {
        Some(previous) if continues && previous.role == Role::Assistant => {
            for word in words {
                if !previous.content.is_empty() {
                    previous.content.push('\n');
                }
                previous.content.push_str(&word);
            }
            previous.tool_calls.extend(calls);
        }
        _ if words.is_empty() && calls.is_empty() => {}
        _ => parsed.messages.push(Message {
            tool_calls: calls,
            ..Message::new(Role::Assistant, words.join("\n"))
        }),
    }
}

/// An assistant message's text blocks (or its text, when the content is a
/// string) and its `tool_use` blocks as calls; thinking is left out.
fn words_and_calls(message: &Value) -> (Vec<String>, Vec<ToolCall>) {
    let mut words = Vec::new();
    let mut calls = Vec::new();
    for block in message["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => words.extend(block["text"].as_str().map(str::to_owned)),
            Some("tool_use") => calls.push(ToolCall {
                id: block["id"].as_str().unwrap_or_default().to_owned(),
                name: block["name"].as_str().unwrap_or_default().to_owned(),
                arguments: block["input"].to_string(),
            }),
            _ => {}
        }
    }
    if let Value::String(text) = &message["content"] {
        words.push(text.clone());
    }
    (words, calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_tools_and_streamed_answers_become_chat_messages() {
        let text = [
            r#"{"type":"file-history-snapshot","messageId":"m","snapshot":{}}"#,
            r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"Fix src/a.rs"}}"#,
            r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"thinking","thinking":"hm"}]}}"#,
            r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Reading it."}]}}"#,
            r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"src/a.rs"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"fn a() {}"}]}]}}"#,
            r#"{"type":"assistant","isSidechain":true,"message":{"id":"msg_x","role":"assistant","content":[{"type":"text","text":"subagent"}]}}"#,
            r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation. Summary: fixed a.rs"}}"#,
            r#"{"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"text","text":"Done."}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":"half a li"#,
        ]
        .join("\n");
        let parsed = parse(&text).unwrap();
        let shape: Vec<(Role, &str, usize)> = parsed
            .messages
            .iter()
            .map(|m| (m.role, m.content.as_str(), m.tool_calls.len()))
            .collect();
        assert_eq!(
            shape,
            [
                (Role::User, "Fix src/a.rs", 0),
                (Role::Assistant, "Reading it.", 1),
                (Role::Tool, "fn a() {}", 0),
                (
                    Role::User,
                    "This session is being continued from a previous conversation. Summary: fixed a.rs",
                    0
                ),
                (Role::Assistant, "Done.", 0),
            ]
        );
        assert_eq!(
            parsed.messages[1].tool_calls[0].arguments,
            r#"{"file_path":"src/a.rs"}"#
        );
        assert_eq!(parsed.messages[2].tool_call_id.as_deref(), Some("t1"));
        assert_eq!(parsed.summaries, [(3, parsed.messages[3].content.clone())]);
    }

    #[test]
    fn a_prompt_claude_code_expanded_in_the_users_place_is_the_harnesss() {
        let text = [
            r#"{"type":"user","message":{"role":"user","content":"Make the hero title smaller."}}"#,
            r#"{"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Done."}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":"<command-message>commit-commands:commit</command-message>\n<command-name>/commit-commands:commit</command-name>"}}"#,
            r#"{"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Your task:\n\nCreate a single git commit. Do not use any other tools or do anything else."}]}}"#,
        ]
        .join("\n");
        let parsed = parse(&text).unwrap();
        let harness = crate::summary::read::HarnessPatterns::default();
        let own: Vec<Option<String>> = parsed
            .messages
            .iter()
            .map(|message| crate::summary::read::users_words(message, &harness))
            .collect();
        assert_eq!(own, [Some("Make the hero title smaller.".into()), None, None, None]);
        assert!(parsed.messages[3].content.contains("Create a single git commit."));
    }

    #[test]
    fn each_calls_usage_is_recorded_after_its_answer() {
        let text = [
            r#"{"type":"user","message":{"role":"user","content":"Fix src/a.rs"}}"#,
            r#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Reading."}],"usage":{"input_tokens":10,"cache_read_input_tokens":15000,"output_tokens":5}}}"#,
            r#"{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}],"usage":{"input_tokens":10,"cache_read_input_tokens":15000,"output_tokens":40}}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"fn a() {}"}]}}"#,
            r#"{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":3,"cache_creation_input_tokens":200,"cache_read_input_tokens":15050,"output_tokens":9}}}"#,
        ]
        .join("\n");
        let parsed = parse(&text).unwrap();
        assert_eq!(
            parsed.recorded_used,
            [(2, 15_050), (4, 15_262)],
            "a streamed answer's records count once, at its last"
        );
        assert_eq!(parsed.last_used, Some(15_262));

        let errored = format!(
            "{text}\n{}",
            r#"{"type":"assistant","message":{"id":"m3","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}],"usage":{"input_tokens":0,"output_tokens":0}}}"#
        );
        assert_eq!(
            parse(&errored).unwrap().recorded_used,
            [(2, 15_050), (4, 15_262)],
            "an error Claude Code wrote itself is no model call"
        );
        let huge = r#"{"type":"assistant","message":{"id":"m9","role":"assistant","content":"x","usage":{"input_tokens":18446744073709551615,"output_tokens":18446744073709551615}}}"#;
        assert_eq!(
            parse(huge).unwrap().last_used,
            Some(u64::MAX),
            "a count past u64 saturates"
        );
    }

    #[test]
    fn a_file_of_nothing_readable_is_refused() {
        assert!(parse("not json\n").is_err());
    }
}
