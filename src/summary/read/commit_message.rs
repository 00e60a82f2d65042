//! What a commit's message says past its title: the agent's own account of
//! the change, or of the work left (an empty commit that saves progress
//! before a compaction), as it wrote it in `git commit`.

use std::sync::LazyLock;

use regex::Regex;

use super::sentences::one_line;

/// A `git commit` (`git -C dir commit`, `git -c k=v commit`) and where its
/// arguments start.
static GIT_COMMIT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bgit(?:\s+-[Cc]\s+\S+)*\s+commit\b").expect("a valid pattern"));
/// A heredoc's opener on the commit's line (`<<'EOF'`, `<<-"END"`).
static HEREDOC_OPENER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"<<-?\s*['"]?([A-Za-z_]\w*)['"]?"#).expect("a valid pattern"));
/// Each `-m "…"` or `-m '…'` (git makes each a paragraph).
static MESSAGE_FLAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:-a?m|--message)(?:\s+|=)(?:"((?:[^"\\]|\\.)*)"|'([^']*)')"#).expect("a valid pattern")
});
/// Lines git or a harness adds that say nothing of the change.
static TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\A(?:[\w-]+-by:|🤖|generated with|co-authored|signed-off|change-id:)").expect("a valid pattern")
});

/// How many lines of a message's body are kept, and how long each may be.
pub(crate) const BODY_LINES: usize = 10;
const BODY_LINE_CHARS: usize = 320;

/// The body of the message `command` commits with, if it is a `git commit`
/// with one: its lines past the title, without blank lines, list markers and
/// trailers, each on one line.
pub(crate) fn commit_body(command: &str) -> Vec<String> {
    let Some(commit) = GIT_COMMIT.find(command) else {
        return Vec::new();
    };
    let arguments = &command[commit.end()..];
    // The commit's own line: a heredoc opened there is its message.
    let first_line = arguments.lines().next().unwrap_or_default();
    let message = match HEREDOC_OPENER.captures(first_line) {
        Some(opener) => {
            let word = &opener[1];
            arguments
                .lines()
                .skip(1)
                .take_while(|line| line.trim() != word)
                .collect::<Vec<_>>()
                .join("\n")
        }
        None => MESSAGE_FLAG
            .captures_iter(arguments)
            .filter_map(|found| found.get(1).or(found.get(2)))
            .map(|text| text.as_str().replace("\\\"", "\"").replace("\\n", "\n"))
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    unwrapped(message.lines().skip(1))
        .iter()
        .map(|line| line.trim_start_matches(['-', '*', '•']).trim())
        .filter(|line| !line.is_empty() && !TRAILER.is_match(line))
        .take(BODY_LINES)
        .map(|line| one_line(line, BODY_LINE_CHARS))
        .collect()
}

/// A line that is an item of a list written without markers: `fix: null
/// check`, `docs: readme`.
static ITEM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\A[\w-]+(?:\([^)]*\))?!?:\s").expect("a valid pattern"));

/// A message's lines with the ones git's 72-column habit wrapped joined
/// again: a line that goes on in lower case, with no list marker, ends the
/// sentence the line above began (a fragment alone says nothing).
fn unwrapped<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut joined: Vec<String> = Vec::new();
    let mut open = false;
    for line in lines.map(str::trim) {
        // Not an item of its own (`docs: readme`), nor after a line that ended.
        let goes_on = line.chars().next().is_some_and(char::is_lowercase) && !ITEM.is_match(line);
        match joined.last_mut() {
            Some(last) if open && goes_on && !last.ends_with(['.', ':', ';']) => {
                last.push(' ');
                last.push_str(line);
            }
            _ => joined.push(line.to_owned()),
        }
        open = !line.is_empty();
    }
    joined
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
        assert!(
            commit_body(
                "cat > CHANGELOG.md <<'EOF'\n# Changelog\n- added MFA\nEOF\ngit add -A && git commit -m 'chore: x'"
            )
            .is_empty(),
            "a heredoc that feeds another command is not the message"
        );
        assert_eq!(
            commit_body("git -C app commit -am \"feat: MFA\" -m \"Use strict mode.\""),
            ["Use strict mode."]
        );
    }

    #[test]
    fn a_body_wrapped_at_72_columns_is_one_line_a_sentence() {
        let command = "git commit -m \"$(cat <<'EOF'\nchore: housekeeping\n\nAdd gitignore entries for .entire/ and .opencode/ external\ntool state directories. Commit the solution doc, the\nmcp-serve plan.\n\n- Task 3 (in_progress): verify-docs\n- Task 4 (pending): release\nBlocked by task 3\nEOF\n)\"";
        assert_eq!(
            commit_body(command),
            [
                "Add gitignore entries for .entire/ and .opencode/ external tool state directories. Commit the solution doc, the mcp-serve plan.",
                "Task 3 (in_progress): verify-docs",
                "Task 4 (pending): release",
                "Blocked by task 3",
            ]
        );
    }

    #[test]
    fn a_list_without_markers_is_not_joined() {
        let command = "git commit -m \"$(cat <<'EOF'\nchore: squash\n\nfix: null check\nrefactor(core): rename y\ndocs: readme.\nmore notes\nEOF\n)\"";
        assert_eq!(
            commit_body(command),
            [
                "fix: null check",
                "refactor(core): rename y",
                "docs: readme.",
                "more notes"
            ]
        );
    }

    #[test]
    fn a_body_line_of_one_word_or_with_quotes_does_not_end_the_message() {
        let command = "git commit -m \"$(cat <<'EOF'\nfeat: add MFA\n\nNotes\nUse \"strict\" mode for TOTP.\nEOF\n)\"";
        assert_eq!(commit_body(command), ["Notes", "Use \"strict\" mode for TOTP."]);
    }
}
