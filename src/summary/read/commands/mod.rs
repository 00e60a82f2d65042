//! Shell commands (SPEC §4, kind `command`): the ones a person wrote in text
//! (in backticks, a shell code block, or after a `$` prompt), each kept in
//! one normal form (*Precision*): a leading `cd DIR &&` dropped, `2>&1` and a
//! trailing `| head -20` left out, whitespace collapsed, so the variants of
//! one command are one item; and never a fragment (unbalanced quotes, a
//! heredoc opener, a trailing `&&` or `|`, or a line too long to keep whole).
//! What a command starts with is in `programs`; a command line's simple
//! commands, in `steps`; whether it only looks, in `inspection`.

mod inspection;
mod programs;
mod steps;

use std::sync::LazyLock;

use regex::Regex;

use programs::looks_like_command;

pub(crate) use inspection::{only_looks, only_searches};
pub(crate) use steps::steps;

/// A command is kept verbatim up to this many characters.
pub(crate) const MAX_CHARS: usize = 300;

static BACKTICKED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`\n]{2,300})`").expect("a valid pattern"));
static SHELL_BLOCK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)```(?:bash|sh|shell|console|zsh|terminal|shell-session)?[ \t]*\n(.*?)```")
        .expect("a valid pattern")
});
static PROMPTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?m)^\s*\$ (\S.*)$").expect("a valid pattern"));

/// A heredoc's opener (`<<'EOF'`, `<<-END`): the lines after it are data.
static HEREDOC: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"<<-?\s*['"]?[A-Za-z_]\w*['"]?"#).expect("a valid pattern"));
static LEADING_CD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\A\s*cd\s+(?:"[^"]*"|'[^']*'|\S+)\s*(?:&&|;)\s*"#).expect("a valid pattern"));
/// Redirections and pagers that change how output looks, not what runs.
static OUTPUT_PLUMBING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\s+2>&1\b|\s+2>\s*/dev/null\b|(?:\s*\|\s*(?:head|tail)(?:\s+-n)?(?:\s+-?\d+)?)+\s*\z")
        .expect("a valid pattern")
});

/// Whether quotes are balanced (a command cut inside a string is a fragment).
fn quotes_balanced(command: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in command.chars() {
        match (quote, c) {
            (_, _) if escaped => escaped = false,
            (Some('"') | None, '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            _ => {}
        }
    }
    quote.is_none()
}

/// A command's first line with its whitespace collapsed and without the
/// `cd DIR &&` it starts with.
pub(crate) fn without_leading_cd(command: &str) -> String {
    let line = command.trim().lines().next().unwrap_or("").trim();
    let mut line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    while let Some(found) = LEADING_CD.find(&line) {
        line = line[found.end()..].to_owned();
    }
    line
}

/// A command in its one normal form, or `None` when what is there is a
/// fragment rather than a command.
pub(crate) fn normalized(command: &str) -> Option<String> {
    let line = without_leading_cd(command);
    let mut line = OUTPUT_PLUMBING.replace_all(&line, "").trim().to_owned();
    while let Some(stripped) = line.strip_suffix(';') {
        line = stripped.trim_end().to_owned();
    }
    let first_word = line.split_whitespace().next().unwrap_or("");
    let fragment = line.is_empty()
        || first_word.contains(['>', '&', '|'])
        || line.chars().count() > MAX_CHARS
        || !quotes_balanced(&line)
        || HEREDOC.is_match(&line)
        || ["&&", "||", "|", "\\", "(", "$("].iter().any(|end| line.ends_with(end));
    (!fragment).then_some(line)
}

/// The commands written in `text`, in order.
pub(crate) fn written_commands(text: &str) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    for block in SHELL_BLOCK.captures_iter(text) {
        if let Some(body) = block.get(1) {
            let mut at = body.start();
            for line in body.as_str().lines() {
                let line_start = at;
                at += line.len() + 1;
                let command = line.trim().trim_start_matches("$ ").trim();
                if looks_like_command(command)
                    && let Some(command) = normalized(command)
                {
                    found.push((line_start, command));
                }
            }
        }
    }
    let outside_blocks = SHELL_BLOCK.replace_all(text, |c: &regex::Captures| " ".repeat(c[0].len()));
    for quoted in BACKTICKED.captures_iter(&outside_blocks) {
        // One quoted word (`make`, `config`) is more often a name than a command.
        if let Some(inner) = quoted.get(1)
            && looks_like_command(inner.as_str().trim())
            && (inner.as_str().trim().contains(' ') || inner.as_str().trim().starts_with("./"))
            && let Some(command) = normalized(inner.as_str())
        {
            found.push((inner.start(), command));
        }
    }
    for prompted in PROMPTED.captures_iter(&outside_blocks) {
        if let Some(line) = prompted.get(1)
            && looks_like_command(line.as_str())
            && let Some(command) = normalized(line.as_str())
        {
            found.push((line.start(), command));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut commands: Vec<String> = Vec::new();
    for (_, command) in found {
        if !command.is_empty() && !commands.contains(&command) {
            commands.push(command);
        }
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_in_backticks_blocks_and_prompts_are_found() {
        let text = "Run `cargo test --release` first, then:\n```bash\n$ npm ci\nnpm run build\necho hi there\n```\n\
                    and `not a command` and\n$ git push origin feature-x\n`./scripts/deploy.sh staging`";
        assert_eq!(
            written_commands(text),
            [
                "cargo test --release",
                "npm ci",
                "npm run build",
                "echo hi there",
                "git push origin feature-x",
                "./scripts/deploy.sh staging"
            ]
        );
    }

    #[test]
    fn variants_of_one_command_are_one_item() {
        for variant in [
            "cargo test",
            "cargo  test 2>&1",
            "cargo test 2>&1 | head -20",
            "cd /repo && cargo test",
            "cd \"c:\\Users\\me\\proj\" && cargo test | tail -n 5",
            "cargo test;",
        ] {
            assert_eq!(normalized(variant).as_deref(), Some("cargo test"), "{variant}");
        }
        assert_eq!(
            normalized("git add -A && git status --short | head -20").as_deref(),
            Some("git add -A && git status --short")
        );
    }

    #[test]
    fn fragments_are_not_commands() {
        for fragment in [
            "git commit -m \"$(cat <<'EOF'",
            "cat > src/app.py <<'EOF'",
            "echo \"unterminated",
            "npm run build &&",
            "grep -r foo |",
            "",
            "2>&1",
        ] {
            assert_eq!(normalized(fragment), None, "{fragment}");
        }
        assert_eq!(
            normalized(&format!("ls {}", "a ".repeat(200))),
            None,
            "too long to keep whole"
        );
        assert_eq!(
            normalized("grep -n \"<<<<<<\" src/lib.rs").as_deref(),
            Some("grep -n \"<<<<<<\" src/lib.rs"),
            "conflict markers are no heredoc"
        );
    }

    #[test]
    fn prose_is_not_a_command() {
        assert!(written_commands("Let's `make` it better. The `config` value.").is_empty());
        assert!(written_commands("See `./.claude/reports/a.md` and `./notes.md`.").is_empty());
    }
}
