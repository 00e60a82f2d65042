//! What a tool call names (SPEC §4): the command a shell tool ran, the files
//! an edit tool wrote (Claude Code's Write/Edit/MultiEdit, `apply_patch`,
//! `str_replace_based_edit_tool`, `create_file`, a shell's `rm`/`mv`…), and
//! the paths and URLs a read tool opened. Only arguments that name things
//! are read: a Write's content or an Edit's strings are code, not names.

use serde_json::Value;

use super::commands::normalized;
use super::identifiers;
use super::identifiers::MAX_CHARS;
use super::shell::changes_by;
use crate::summary::kinds::KeepKind;

/// Tools that run a shell command.
const SHELL_TOOLS: &[&str] = &[
    "bash",
    "shell",
    "local_shell",
    "exec_command",
    "run_command",
    "run_terminal_cmd",
    "run_shell_command",
    "execute_command",
    "terminal",
    "command",
    "execute",
    "sh",
];
/// Tools that write or delete a file.
const WRITE_TOOLS: &[&str] = &[
    "write",
    "edit",
    "multiedit",
    "notebookedit",
    "write_file",
    "edit_file",
    "create_file",
    "replace_in_file",
    "search_replace",
    "apply_diff",
    "insert_edit_into_file",
    "replace",
    "delete_file",
    "remove_file",
    "move_file",
    "rename_file",
    "apply_edit",
    "write_to_file",
    "edit_notebook",
];
/// Tools whose `command` says whether they write (`create`, `str_replace`…) or read (`view`).
const EDITOR_TOOLS: &[&str] = &["str_replace_editor", "str_replace_based_edit_tool", "text_editor"];
const PATCH_TOOLS: &[&str] = &["apply_patch", "patch"];

/// Arguments that hold a path.
const PATH_KEYS: &[&str] = &[
    "file_path",
    "path",
    "filePath",
    "notebook_path",
    "target_file",
    "filename",
    "file",
    "dir_path",
    "directory",
    "destination",
    "new_path",
    "old_path",
    "source",
    "target",
];
const URL_KEYS: &[&str] = &["url", "uri", "href"];
const COMMAND_KEYS: &[&str] = &["command", "cmd", "commandLine", "script"];

fn string_at<'a>(arguments: &'a Value, keys: &[&str]) -> Vec<&'a str> {
    keys.iter()
        .filter_map(|key| arguments.get(*key).and_then(Value::as_str))
        .filter(|text| !text.trim().is_empty())
        .collect()
}

/// A shell tool's command line: a string, or Codex's `["bash", "-lc", "…"]`.
fn command_line(arguments: &Value) -> Option<String> {
    for key in COMMAND_KEYS {
        match arguments.get(*key) {
            Some(Value::String(line)) if !line.trim().is_empty() => return Some(line.clone()),
            Some(Value::Array(words)) => {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                let shell_wrapped = words.len() >= 3
                    && ["bash", "sh", "zsh", "/bin/bash", "/bin/sh"].contains(&words[0])
                    && words[1].starts_with('-');
                return Some(if shell_wrapped {
                    words[2..].join(" ")
                } else {
                    words.join(" ")
                });
            }
            _ => {}
        }
    }
    None
}

/// The files a patch in the `apply_patch` format (or a unified diff)
/// touches, at their final place, and the moves it makes.
fn files_in_patch(patch: &str) -> (Vec<String>, Vec<(String, String)>) {
    let mut files: Vec<String> = Vec::new();
    let mut moves = Vec::new();
    for line in patch.lines() {
        if let Some(to) = line.strip_prefix("*** Move to: ").map(str::trim)
            && !to.is_empty()
        {
            // The file it updates ends up here instead.
            if let Some(from) = files.pop() {
                moves.push((from, to.to_owned()));
            }
            if !files.iter().any(|f| f == to) {
                files.push(to.to_owned());
            }
            continue;
        }
        let named = [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "+++ b/",
            "+++ ",
        ]
        .iter()
        .find_map(|marker| line.strip_prefix(marker));
        if let Some(path) = named.map(str::trim)
            && !path.is_empty()
            && path != "/dev/null"
            && !files.iter().any(|f| f == path)
        {
            files.push(path.to_owned());
        }
    }
    (files, moves)
}

fn path_item(kind: KeepKind, path: &str) -> (KeepKind, String) {
    (kind, path.trim().chars().take(MAX_CHARS).collect())
}

/// What one tool call names: its items, and the files it moved (from, to).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Named {
    pub items: Vec<(KeepKind, String)>,
    pub moves: Vec<(String, String)>,
}

/// The items one tool call names, in order: its command, the files it
/// changed, then the paths and URLs it read.
#[cfg(test)]
pub(crate) fn named_by_call(name: &str, arguments: &str) -> Vec<(KeepKind, String)> {
    called(name, arguments).items
}

/// A tool's own name, past an MCP server's prefix (`mcp__fs__write_file`).
pub(crate) fn tool_name(name: &str) -> &str {
    name.rsplit("__").next().unwrap_or(name)
}

/// What one tool call names (see [`named_by_call`]) and moves.
pub(crate) fn called(name: &str, arguments: &str) -> Named {
    let tool = tool_name(name).to_ascii_lowercase();
    let parsed: Value = serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
    let mut items: Vec<(KeepKind, String)> = Vec::new();
    let mut moves: Vec<(String, String)> = Vec::new();
    let mut add = |item: (KeepKind, String)| {
        if !item.1.is_empty() && !items.contains(&item) {
            items.push(item);
        }
    };
    let patch_text = match &parsed {
        Value::String(text) => Some(text.as_str()),
        object => string_at(object, &["input", "patch", "diff"]).into_iter().next(),
    };
    let line = command_line(&parsed);
    let is_patch = PATCH_TOOLS.contains(&tool.as_str())
        || line
            .as_deref()
            .is_some_and(|l| l.trim_start().starts_with("apply_patch"));
    if is_patch {
        let patch = line.as_deref().or(patch_text).unwrap_or("");
        let (files, moved) = files_in_patch(patch);
        for file in files {
            add(path_item(KeepKind::FileChanged, &file));
        }
        return Named { items, moves: moved };
    }
    if SHELL_TOOLS.contains(&tool.as_str()) || (line.is_some() && !EDITOR_TOOLS.contains(&tool.as_str())) {
        if let Some(line) = line {
            if let Some(command) = normalized(&line) {
                add((KeepKind::Command, command));
            }
            let changes = changes_by(&line);
            for file in changes.files {
                add(path_item(KeepKind::FileChanged, &file));
            }
            moves = changes.moves;
        }
        return Named { items, moves };
    }
    let writes = WRITE_TOOLS.contains(&tool.as_str())
        || (EDITOR_TOOLS.contains(&tool.as_str())
            && string_at(&parsed, &["command"]).first().is_some_and(|c| *c != "view"));
    for path in string_at(&parsed, PATH_KEYS) {
        let kind = if writes { KeepKind::FileChanged } else { KeepKind::Path };
        add(path_item(kind, path));
    }
    for url in string_at(&parsed, URL_KEYS) {
        if let Some((KeepKind::Url, url)) = identifiers(url).into_iter().next() {
            add((KeepKind::Url, url));
        }
    }
    Named { items, moves }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(items: &[(KeepKind, String)]) -> Vec<&str> {
        items
            .iter()
            .filter(|(k, _)| *k == KeepKind::FileChanged)
            .map(|(_, t)| t.as_str())
            .collect()
    }

    #[test]
    fn claude_codes_edit_tools_leave_an_artifact_trail() {
        for (name, arguments) in [
            (
                "Write",
                r#"{"file_path":"/repo/src/a.rs","content":"fn main() { /* /etc/passwd */ }"}"#,
            ),
            (
                "Edit",
                r#"{"file_path":"/repo/src/a.rs","old_string":"x","new_string":"y"}"#,
            ),
            ("MultiEdit", r#"{"file_path":"/repo/src/a.rs","edits":[]}"#),
            (
                "str_replace_based_edit_tool",
                r#"{"command":"str_replace","path":"/repo/src/a.rs"}"#,
            ),
            ("mcp__fs__write_file", r#"{"path":"/repo/src/a.rs","content":"…"}"#),
        ] {
            assert_eq!(
                named_by_call(name, arguments),
                [(KeepKind::FileChanged, "/repo/src/a.rs".to_owned())],
                "{name}"
            );
        }
    }

    #[test]
    fn reading_a_file_names_it_without_changing_it() {
        assert_eq!(
            named_by_call("Read", r#"{"file_path":"/repo/README.md"}"#),
            [(KeepKind::Path, "/repo/README.md".to_owned())]
        );
        assert_eq!(
            named_by_call(
                "str_replace_based_edit_tool",
                r#"{"command":"view","path":"/repo/x.py"}"#
            ),
            [(KeepKind::Path, "/repo/x.py".to_owned())]
        );
        assert_eq!(
            named_by_call(
                "WebFetch",
                r#"{"url":"https://docs.rs/axum/latest/axum/","prompt":"read"}"#
            ),
            [(KeepKind::Url, "https://docs.rs/axum/latest/axum/".to_owned())]
        );
    }

    #[test]
    fn shell_calls_name_their_command_and_what_it_changes() {
        let items = named_by_call(
            "Bash",
            r#"{"command":"rm -rf build && mv a.txt b.txt","description":"clean"}"#,
        );
        assert_eq!(
            items[0],
            (KeepKind::Command, "rm -rf build && mv a.txt b.txt".to_owned())
        );
        assert_eq!(
            files(&items),
            ["b.txt"],
            "a plain word is no path; a moved file is where it went"
        );
        let codex = named_by_call(
            "shell",
            r#"{"command":["bash","-lc","cargo test -p core"],"workdir":"/repo"}"#,
        );
        assert_eq!(codex, [(KeepKind::Command, "cargo test -p core".to_owned())]);
    }

    #[test]
    fn patches_name_every_file_they_touch() {
        let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-a\n+b\n*** Add File: docs/new.md\n+hi\n*** Delete File: old.txt\n*** End Patch";
        let custom = named_by_call("apply_patch", patch);
        assert_eq!(files(&custom), ["src/lib.rs", "docs/new.md", "old.txt"]);
        let moving = called(
            "apply_patch",
            "*** Begin Patch\n*** Update File: src/old.rs\n*** Move to: src/new.rs\n@@\n-a\n+b\n*** End Patch",
        );
        assert_eq!(files(&moving.items), ["src/new.rs"], "a moved file at its final place");
        assert_eq!(moving.moves, [("src/old.rs".to_owned(), "src/new.rs".to_owned())]);
        let arguments = serde_json::json!({"command": ["apply_patch", patch]}).to_string();
        assert_eq!(
            files(&named_by_call("shell", &arguments)),
            ["src/lib.rs", "docs/new.md", "old.txt"]
        );
    }

    #[test]
    fn a_call_with_unreadable_arguments_names_nothing() {
        assert!(named_by_call("Write", "not json").is_empty());
        assert!(named_by_call("search", r#"{"query":"/etc/passwd and https://x.io"}"#).is_empty());
    }
}
