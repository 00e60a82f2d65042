//! What a commit's message says past its title: the agent's own account of
//! the change, or of the work left (an empty commit that saves progress
//! before a compaction), as it wrote it in `git commit`.

use std::sync::LazyLock;

use regex::Regex;

use super::sentences::one_line;

/// A heredoc given as the message (`-m "$(cat <<'EOF' … EOF)"`, `-F - <<EOF`).
static HEREDOC_MESSAGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)<<-?\s*['"]?([A-Za-z_]\w*)['"]?[^\n]*\n(.*?)\n\s*([A-Za-z_]\w*)\s*(?:\n|\)|"|\z)"#)
        .expect("a valid pattern")
});
/// Each `-m "…"` or `-m '…'` given after the first (git makes each a paragraph).
static MESSAGE_FLAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:-m|--message)(?:\s+|=)(?:"((?:[^"\\]|\\.)*)"|'([^']*)')"#).expect("a valid pattern")
});
/// Lines git or a harness adds that say nothing of the change.
static TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\A(?:[\w-]+-by:|🤖|generated with|co-authored|signed-off|change-id:)").expect("a valid pattern")
});

/// How many lines of a message's body are kept, and how long each may be.
pub(crate) const BODY_LINES: usize = 10;
const BODY_LINE_CHARS: usize = 200;

/// The body of the message `command` commits with, if it is a `git commit`
/// with one: its lines past the title, without blank lines, list markers and
/// trailers, each on one line.
pub(crate) fn commit_body(command: &str) -> Vec<String> {
    if !command.contains("git commit") && !command.contains("git -c") {
        return Vec::new();
    }
    let message = match HEREDOC_MESSAGE.captures(command) {
        Some(found) if found[1] == found[3] => found[2].to_owned(),
        _ => MESSAGE_FLAG
            .captures_iter(command)
            .filter_map(|found| found.get(1).or(found.get(2)))
            .map(|text| text.as_str().replace("\\\"", "\"").replace("\\n", "\n"))
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    message
        .lines()
        .skip(1)
        .map(|line| line.trim().trim_start_matches(['-', '*', '•']).trim())
        .filter(|line| !line.is_empty() && !TRAILER.is_match(line))
        .take(BODY_LINES)
        .map(|line| one_line(line, BODY_LINE_CHARS))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heredoc_message_gives_its_body_without_trailers() {
        let command = "git commit --allow-empty -m \"$(cat <<'EOF'\nTODOs: v0.16.0 remaining work\n\nTask 3 (in_progress): ec decision verify-docs + promote gate\n- Scope: docs/adr, docs/specs, full UUID only\n\nAssisted-By: Claude Code <noreply@anthropic.com>\nEOF\n)\"";
        assert_eq!(
            commit_body(command),
            [
                "Task 3 (in_progress): ec decision verify-docs + promote gate",
                "Scope: docs/adr, docs/specs, full UUID only",
            ]
        );
    }

    #[test]
    fn each_message_flag_after_the_first_is_the_body() {
        assert_eq!(
            commit_body(r#"git add -A && git commit -m "fix: retry" -m "The backoff was 10ms; it is 774ms now.""#),
            ["The backoff was 10ms; it is 774ms now."]
        );
        assert!(commit_body("git commit -m 'fix: retry'").is_empty(), "a title alone");
        assert!(commit_body("cat <<'EOF'\nnot a commit\nmore\nEOF").is_empty());
    }
}
