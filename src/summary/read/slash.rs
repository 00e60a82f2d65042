//! Commands the user ran through the harness rather than words to the
//! agent (SPEC §4, *Where things stand*: "then ran /name"): Claude Code's
//! `<command-name>` blocks, and a slash command typed as the whole message.

use std::sync::LazyLock;

use regex::Regex;

static COMMAND_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<command-name>\s*(.*?)\s*</command-name>").expect("a valid pattern"));
static COMMAND_ARGS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<command-args>\s*(.*?)\s*</command-args>").expect("a valid pattern"));

/// The command a message shows the user ran through the harness
/// (`/handoff`, with its arguments), from Claude Code's `<command-name>`.
pub(super) fn command_run(text: &str) -> Option<String> {
    let name = COMMAND_NAME.captures(text)?.get(1)?.as_str().trim();
    if name.is_empty() {
        return None;
    }
    let name = if name.starts_with('/') {
        name.to_owned()
    } else {
        format!("/{name}")
    };
    let arguments = COMMAND_ARGS
        .captures(text)
        .and_then(|found| found.get(1))
        .map(|found| found.as_str().split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    Some(if arguments.is_empty() {
        name
    } else {
        format!("{name} {arguments}")
    })
}

/// A slash command typed as the whole message (newer Claude Code records
/// `/compact` so, with no `<command-name>`): its name and arguments. A path
/// (`/usr/lib is empty`) has a second slash in its first word and is not one.
static TYPED_SLASH_COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A/(?P<name>[A-Za-z][\w:.-]*)(?:[ \t]+(?P<args>[^\n]*))?\z").expect("a valid pattern")
});

/// Claude Code's built-in commands: none expands into a prompt of its own,
/// so the message after one is the user's again.
const BUILT_IN_COMMANDS: &[&str] = &[
    "add-dir",
    "agents",
    "bug",
    "clear",
    "compact",
    "config",
    "context",
    "cost",
    "doctor",
    "exit",
    "export",
    "help",
    "hooks",
    "ide",
    "login",
    "logout",
    "mcp",
    "memory",
    "model",
    "permissions",
    "quit",
    "release-notes",
    "resume",
    "rewind",
    "status",
    "statusline",
    "theme",
    "todos",
    "usage",
    "vim",
];

/// Folders at a file system's root, which a sentence may open with.
const ROOT_FOLDERS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib64",
    "media",
    "mnt",
    "opt",
    "private",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "tmp",
    "usr",
    "var",
    "Applications",
    "Library",
    "System",
    "Users",
    "Volumes",
];

/// A slash command typed as the whole message, as `/name args`, and whether
/// a template of its own may follow it (a custom command's, not a built-in's).
pub(super) fn typed_slash_command(words: &str) -> Option<(String, bool)> {
    let found = TYPED_SLASH_COMMAND.captures(words.trim())?;
    let name = found.name("name")?.as_str();
    // `/tmp is wiped on reboot…`: a folder at the root, said in a sentence.
    if ROOT_FOLDERS.contains(&name) && found.name("args").is_some() {
        return None;
    }
    let arguments = found
        .name("args")
        .map(|args| args.as_str().split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let command = if arguments.is_empty() {
        format!("/{name}")
    } else {
        format!("/{name} {arguments}")
    };
    Some((command, !BUILT_IN_COMMANDS.contains(&name)))
}
