//! A check of the whole project, told from a command run once: the
//! project's checks are what a harness's agent is owed of its commands.

use crate::summary::read::check_commands::check_of;

/// A check of the whole project, as it is run again (`mix test`, `cargo
/// clippy --all-targets -- -D warnings`, `go test ./...`), its output
/// trimmed or not: not one run on a file or two (graders called those
/// one-offs of a finished task), nor several steps joined.
pub(super) fn is_project_check(command: &str) -> bool {
    let command = command.trim();
    let command = command
        .strip_prefix("cd ")
        .and_then(|rest| rest.split_once("&&"))
        .map_or(command, |(_, rest)| rest);
    let mut stages = unquoted_pipes(command).into_iter();
    let check = stages.next().unwrap_or_default();
    let filters_only = stages.all(|filter| {
        let program = filter.split_whitespace().next().unwrap_or_default();
        matches!(program, "tail" | "head" | "grep" | "less" | "cat" | "tee")
    });
    // The script an interpreter runs is the program, not a file it checks
    // (`python manage.py test`, `php vendor/bin/phpunit`).
    let interpreted = check.split_whitespace().next().is_some_and(|program| {
        matches!(
            program,
            "python" | "python3" | "php" | "node" | "ruby" | "bash" | "sh" | "perl"
        )
    });
    filters_only
        && !check.contains("&&")
        && !check.contains("||")
        && !check.contains(';')
        && check_of(check).is_some()
        && !check
            .split_whitespace()
            .skip(if interpreted { 2 } else { 1 })
            .any(names_a_file)
}

/// A command line's stages: split at each `|` outside quotes (`grep -E
/// 'FAIL|ok'` is one stage), `||` left whole.
fn unquoted_pipes(command: &str) -> Vec<&str> {
    let mut stages = Vec::new();
    let (mut quote, mut start) = (None, 0);
    let bytes = command.as_bytes();
    for (at, byte) in bytes.iter().enumerate() {
        match (quote, *byte) {
            (Some(q), b) if b == q => quote = None,
            (None, b'\'' | b'"') => quote = Some(*byte),
            (None, b'|') if bytes.get(at + 1) != Some(&b'|') && (at == 0 || bytes[at - 1] != b'|') => {
                stages.push(&command[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    stages.push(&command[start..]);
    stages
}

/// An argument naming a file or folder: `test/a_test.exs`, `lib/`, `a.rs`;
/// not the whole tree (`./...`, `.`, `//...`), an option or a redirection.
fn names_a_file(word: &str) -> bool {
    let word = word.trim_matches(['"', '\'']);
    if word.starts_with('-') || word.contains(['>', '&', '=']) || matches!(word, "." | "./..." | "..." | "//...") {
        return false;
    }
    word.contains('/')
        || word.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && ext.len() <= 5
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        })
}
