//! What a call acted on, as an action shows it (a command in its normal
//! form, a path, a URL), and the subject a later call must act on to set a
//! failure of it right.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::summary::read::commands::{normalized, without_leading_cd};
use crate::summary::read::sentences::one_line;

/// The most of a target (a command, a path) an action shows.
const TARGET_CHARS: usize = 160;

/// Programs that take a subcommand (`git push`, `cargo test`): a command's
/// subject is the program and its subcommand, so `git push --set-upstream
/// origin x` sets right a failed `git push`.
const WITH_SUBCOMMANDS: &[&str] = &[
    "git",
    "cargo",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "mix",
    "go",
    "docker",
    "kubectl",
    "gh",
    "bd",
    "uv",
    "poetry",
    "dotnet",
    "make",
    "just",
    "mise",
    "terraform",
    "helm",
    "bundle",
    "rails",
    "deno",
    "npx",
    "pip",
    "brew",
    "apt",
    "systemctl",
];

/// What a later command must run to set a failure of this one right: its
/// last step's program, with the subcommand where it takes one.
fn subject_of_command(command: &str) -> String {
    let last = command
        .rsplit(['&', ';', '|'])
        .map(str::trim)
        .find(|step| !step.is_empty())
        .unwrap_or(command);
    let words: Vec<&str> = last
        .split_whitespace()
        .filter(|word| !word.contains('=') || word.starts_with('-'))
        .collect();
    match words.as_slice() {
        [program, sub, ..] if WITH_SUBCOMMANDS.contains(program) && !sub.starts_with('-') => format!("{program} {sub}"),
        [program, ..] => (*program).to_owned(),
        [] => command.to_owned(),
    }
}

/// A command as an action shows it: in its normal form, else up to a
/// heredoc's opener (the lines after it are data: a commit message, a
/// file's text), else cut.
fn shown_command(command: &str) -> String {
    if let Some(line) = normalized(command) {
        return line;
    }
    let first = without_leading_cd(command);
    match HEREDOC_DATA.find(&first) {
        Some(found) if found.start() > 0 => format!("{} …", first[..found.start()].trim_end()),
        _ => one_line(command, TARGET_CHARS),
    }
}

/// Where a heredoc's data begins on a command line: `"$(cat <<'EOF'`, `<<EOF`.
static HEREDOC_DATA: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?:["']?\$\(\s*cat\s*)?<<-?\s*['"]?[A-Za-z_]\w*"#).expect("a valid pattern"));

/// A call's target: the command it ran, else the file or URL it named,
/// else its first short string argument; its subject; and the command it
/// ran, whole.
pub(super) fn target_of(arguments: &str) -> (String, String, Option<String>) {
    let parsed: Value = serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
    let string_at = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| parsed.get(*key).and_then(Value::as_str))
            .filter(|text| !text.trim().is_empty())
            .map(str::to_owned)
    };
    let command = match parsed.get("command").or_else(|| parsed.get("cmd")) {
        Some(Value::Array(words)) => {
            let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
            let wrapped = words.len() >= 3 && words[1].starts_with('-') && words[0].ends_with("sh");
            Some(if wrapped { words[2..].join(" ") } else { words.join(" ") })
        }
        Some(Value::String(line)) if !matches!(line.as_str(), "view" | "create" | "str_replace" | "insert") => {
            Some(line.clone())
        }
        _ => None,
    };
    if let Some(command) = command {
        let shown = shown_command(&command);
        return (
            one_line(&shown, TARGET_CHARS),
            subject_of_command(&shown),
            Some(command),
        );
    }
    if let Some(path) = string_at(&["file_path", "path", "notebook_path", "filePath", "target_file", "url"]) {
        return (one_line(&path, TARGET_CHARS), path, None);
    }
    let first = match &parsed {
        Value::Object(object) => object.values().find_map(Value::as_str).map(str::to_owned),
        Value::String(text) => Some(text.clone()),
        _ => None,
    };
    let shown = first.map(|text| one_line(&text, 80)).unwrap_or_default();
    (shown.clone(), shown, None)
}
