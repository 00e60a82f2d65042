//! The agent's own task list at the cut (SPEC §4, *Where things stand*):
//! coding agents keep one through a tool — Claude Code's `TodoWrite` (the
//! whole list each time) or `TaskCreate`/`TaskUpdate` (one task at a time),
//! Codex's `update_plan` — and what is done, in progress and still to do is
//! what an agent carries on from.

use serde_json::Value;

use super::sentences::one_line;
use super::tool_calls::tool_name;
use crate::domain::transcript::{Message, Role};

/// A task is shown up to this many characters…
const TASK_CHARS: usize = 160;
/// …and the list up to this many.
const LIST_CHARS: usize = 900;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Done,
    InProgress,
    ToDo,
}

fn status_of(name: &str) -> Option<Status> {
    match name.to_ascii_lowercase().as_str() {
        "completed" | "complete" | "done" => Some(Status::Done),
        "in_progress" | "in-progress" | "active" | "doing" => Some(Status::InProgress),
        "pending" | "todo" | "open" | "not_started" => Some(Status::ToDo),
        _ => None,
    }
}

#[derive(Debug, Clone)]
struct Task {
    id: String,
    text: String,
    status: Status,
}

/// A whole list, as `TodoWrite` and `update_plan` write it.
fn whole_list(arguments: &Value) -> Option<Vec<Task>> {
    let items = arguments.get("todos").or_else(|| arguments.get("plan"))?.as_array()?;
    Some(
        items
            .iter()
            .enumerate()
            .filter_map(|(at, item)| {
                let text = item.get("content").or_else(|| item.get("step"))?.as_str()?;
                let status = item.get("status").and_then(Value::as_str).and_then(status_of)?;
                Some(Task {
                    id: (at + 1).to_string(),
                    text: one_line(text, TASK_CHARS),
                    status,
                })
            })
            .collect(),
    )
}

/// Tools that keep the agent's task list.
const TASK_TOOLS: &[&str] = &[
    "todowrite",
    "todo_write",
    "update_plan",
    "write_todos",
    "taskcreate",
    "taskupdate",
    "tasklist",
    "taskget",
];

/// Whether a tool only keeps the task list.
pub(crate) fn is_task_tool(name: &str) -> bool {
    let name = tool_name(name).to_ascii_lowercase();
    TASK_TOOLS.contains(&name.as_str())
}

/// The task list as the agent's last calls left it, or `None` when it keeps none.
pub(crate) fn task_list(messages: &[Message]) -> Option<String> {
    let mut tasks: Option<Vec<Task>> = None;
    for message in messages.iter().filter(|m| m.role == Role::Assistant) {
        for call in &message.tool_calls {
            let name = tool_name(&call.name).to_ascii_lowercase();
            let Ok(arguments) = serde_json::from_str::<Value>(&call.arguments) else {
                continue;
            };
            match name.as_str() {
                "todowrite" | "todo_write" | "update_plan" | "write_todos" => {
                    if let Some(list) = whole_list(&arguments) {
                        tasks = Some(list);
                    }
                }
                "taskcreate" => {
                    if let Some(subject) = arguments.get("subject").and_then(Value::as_str) {
                        let list = tasks.get_or_insert_with(Vec::new);
                        let id = (list.len() + 1).to_string();
                        list.push(Task {
                            id,
                            text: one_line(subject, TASK_CHARS),
                            status: Status::ToDo,
                        });
                    }
                }
                "taskupdate" => {
                    let id = match arguments.get("taskId") {
                        Some(Value::String(id)) => id.clone(),
                        Some(Value::Number(id)) => id.to_string(),
                        _ => continue,
                    };
                    let status = arguments.get("status").and_then(Value::as_str);
                    if let Some(list) = tasks.as_mut() {
                        if status == Some("deleted") {
                            list.retain(|task| task.id != id);
                        } else if let Some(task) = list.iter_mut().find(|task| task.id == id)
                            && let Some(status) = status.and_then(status_of)
                        {
                            task.status = status;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    render(&tasks?)
}

/// `done: a; b · in progress: c · to do: d`, the done ones counted rather
/// than listed when the list is long.
fn render(tasks: &[Task]) -> Option<String> {
    if tasks.is_empty() {
        return None;
    }
    let of = |status: Status| -> Vec<&str> {
        tasks
            .iter()
            .filter(|task| task.status == status)
            .map(|task| task.text.as_str())
            .collect()
    };
    let (done, doing, to_do) = (of(Status::Done), of(Status::InProgress), of(Status::ToDo));
    let part = |label: &str, items: &[&str]| (!items.is_empty()).then(|| format!("{label}: {}", items.join("; ")));
    let open: Vec<String> = [part("in progress", &doing), part("to do", &to_do)]
        .into_iter()
        .flatten()
        .collect();
    let whole: Vec<String> = part("done", &done).into_iter().chain(open.iter().cloned()).collect();
    let line = whole.join(" · ");
    if line.chars().count() <= LIST_CHARS {
        return Some(line);
    }
    let counted = (!done.is_empty()).then(|| format!("{} done", done.len()));
    let line = counted.into_iter().chain(open).collect::<Vec<_>>().join(" · ");
    if line.chars().count() <= LIST_CHARS {
        return Some(line);
    }
    Some(one_line(&line, LIST_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::ToolCall;

    fn call(name: &str, arguments: Value) -> Message {
        Message {
            tool_calls: vec![ToolCall {
                id: "c".into(),
                name: name.into(),
                arguments: arguments.to_string(),
            }],
            ..Message::new(Role::Assistant, "")
        }
    }

    #[test]
    fn the_last_todo_list_is_the_list() {
        let messages = [
            call(
                "TodoWrite",
                serde_json::json!({"todos": [{"content": "Old", "status": "pending"}]}),
            ),
            call(
                "TodoWrite",
                serde_json::json!({"todos": [
                    {"content": "Audit for swallowed exceptions", "status": "completed", "activeForm": "Auditing"},
                    {"content": "Fix all identified issues", "status": "in_progress"},
                    {"content": "Update AGENTS.md with new rules", "status": "pending"}
                ]}),
            ),
        ];
        assert_eq!(
            task_list(&messages).as_deref(),
            Some(
                "done: Audit for swallowed exceptions · in progress: Fix all identified issues · to do: Update AGENTS.md with new rules"
            )
        );
    }

    #[test]
    fn tasks_created_and_updated_one_at_a_time_and_codex_plans() {
        let messages = [
            call(
                "TaskCreate",
                serde_json::json!({"subject": "Fix deferred condensation", "description": "x"}),
            ),
            call("TaskCreate", serde_json::json!({"subject": "Filter stale sessions"})),
            call("TaskCreate", serde_json::json!({"subject": "Drop me"})),
            call("TaskUpdate", serde_json::json!({"taskId": "1", "status": "completed"})),
            call(
                "TaskUpdate",
                serde_json::json!({"taskId": "2", "status": "in_progress"}),
            ),
            call("TaskUpdate", serde_json::json!({"taskId": "3", "status": "deleted"})),
        ];
        assert_eq!(
            task_list(&messages).as_deref(),
            Some("done: Fix deferred condensation · in progress: Filter stale sessions")
        );
        let codex = [call(
            "update_plan",
            serde_json::json!({"plan": [{"step": "Fix export", "status": "completed"}, {"step": "Wire CTAs", "status": "pending"}]}),
        )];
        assert_eq!(
            task_list(&codex).as_deref(),
            Some("done: Fix export · to do: Wire CTAs")
        );
        assert_eq!(task_list(&[Message::new(Role::Assistant, "no list")]), None);
    }
}
