//! aider's chat history (`.aider.chat.history.md`): the user's messages are
//! `#### ` lines, aider's own output `> ` lines (edits applied, commits,
//! token counts), and everything else is the model's answer. An "Applied
//! edit to <file>" line is the artifact trail: it is read as the edit tool
//! call it stands for.

use serde_json::json;

use super::parsed::Parsed;
use crate::domain::transcript::{Message, Role, ToolCall};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    User,
    Output,
    Answer,
}

fn flush(parsed: &mut Parsed, block: Option<Block>, lines: &mut Vec<String>) {
    let text = lines.join("\n").trim().to_owned();
    lines.clear();
    if text.is_empty() {
        return;
    }
    match block {
        Some(Block::User) => parsed.messages.push(Message::new(Role::User, text)),
        Some(Block::Answer) | None => parsed.messages.push(Message::new(Role::Assistant, text)),
        Some(Block::Output) => {
            let edited: Vec<&str> = text
                .lines()
                .filter_map(|line| line.trim().strip_prefix("Applied edit to "))
                .map(str::trim)
                .collect();
            if !edited.is_empty() {
                let id = format!("aider-edit-{}", parsed.messages.len());
                parsed.messages.push(Message {
                    tool_calls: edited
                        .iter()
                        .enumerate()
                        .map(|(i, file)| ToolCall {
                            id: format!("{id}-{i}"),
                            name: "apply_edit".into(),
                            arguments: json!({"path": file}).to_string(),
                        })
                        .collect(),
                    ..Message::new(Role::Assistant, "")
                });
                for (i, file) in edited.iter().enumerate() {
                    parsed.messages.push(Message {
                        tool_call_id: Some(format!("{id}-{i}")),
                        ..Message::new(Role::Tool, format!("Applied edit to {file}"))
                    });
                }
            }
            parsed.messages.push(Message::new(Role::Tool, text));
        }
    }
}

pub(crate) fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut block: Option<Block> = None;
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let (kind, content) = if line.starts_with("# aider chat started at") {
            flush(&mut parsed, block, &mut lines);
            block = None;
            continue;
        } else if let Some(said) = line.strip_prefix("#### ") {
            (Block::User, said)
        } else if line == "####" {
            (Block::User, "")
        } else if let Some(output) = line.strip_prefix("> ") {
            (Block::Output, output)
        } else if line == ">" {
            (Block::Output, "")
        } else {
            (Block::Answer, line)
        };
        // A blank line inside an answer belongs to it; between blocks it is nothing.
        if kind == Block::Answer && line.trim().is_empty() && block != Some(Block::Answer) {
            continue;
        }
        if block != Some(kind) {
            flush(&mut parsed, block, &mut lines);
            block = Some(kind);
        }
        lines.push(content.to_owned());
    }
    flush(&mut parsed, block, &mut lines);
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_output_and_answers_are_told_apart() {
        let history = "# aider chat started at 2024-05-01 10:00:00\n\n> Add src/app.py to the chat? (Y)es/(N)o [Yes]: y\n\n\
                       #### Исправь баг в src/app.py.\n#### Никогда не пушь в main.\n\n\
                       Sure. Here is the fix:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n```\n\n\
                       > Tokens: 2.1k sent, 300 received.\n> Applied edit to src/app.py\n> Commit 1a2b3c4 fix: bug\n\n\
                       #### thanks\n";
        let parsed = parse(history);
        let shape: Vec<(Role, usize)> = parsed.messages.iter().map(|m| (m.role, m.tool_calls.len())).collect();
        assert_eq!(
            shape,
            [
                (Role::Tool, 0),
                (Role::User, 0),
                (Role::Assistant, 0),
                (Role::Assistant, 1),
                (Role::Tool, 0),
                (Role::Tool, 0),
                (Role::User, 0),
            ]
        );
        assert_eq!(
            parsed.messages[1].content,
            "Исправь баг в src/app.py.\nНикогда не пушь в main."
        );
        assert!(parsed.messages[2].content.contains("<<<<<<< SEARCH"));
        assert_eq!(parsed.messages[3].tool_calls[0].arguments, r#"{"path":"src/app.py"}"#);
    }
}
