//! A command line in its simple commands: split where the shell would run
//! the next one, never inside quotes or a heredoc's data.

use std::sync::LazyLock;

use regex::Regex;

/// The simple commands of a command line, in order: split at `&&`, `||`,
/// `;`, `|` and line breaks outside quotes, without a heredoc's data lines
/// (they are a file's text or a message, not commands).
pub(crate) fn steps(command: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut step = String::new();
    let mut quote: Option<char> = None;
    let mut heredoc_end: Option<String> = None;
    let mut chars = command.chars().peekable();
    let mut line = String::new();
    let flush = |step: &mut String, found: &mut Vec<String>| {
        let trimmed = step.trim();
        if !trimmed.is_empty() {
            found.push(trimmed.to_owned());
        }
        step.clear();
    };
    while let Some(c) = chars.next() {
        if let Some(end) = &heredoc_end {
            // Inside a heredoc's data: skip to the line that ends it.
            if c == '\n' {
                if line.trim() == end.as_str() {
                    heredoc_end = None;
                }
                line.clear();
            } else {
                line.push(c);
            }
            continue;
        }
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                step.push(c);
            }
            (Some(_), c) => step.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                step.push(c);
            }
            (None, '&') if chars.peek() == Some(&'&') => {
                chars.next();
                flush(&mut step, &mut found);
            }
            (None, ';' | '|') => {
                if chars.peek() == Some(&'|') {
                    chars.next();
                }
                flush(&mut step, &mut found);
            }
            (None, '\n') => {
                heredoc_end = HEREDOC_WORD.captures(&step).map(|found| found[1].to_owned());
                flush(&mut step, &mut found);
            }
            (None, c) => step.push(c),
        }
    }
    flush(&mut step, &mut found);
    found
}

/// A heredoc's end word: `EOF` of `<<'EOF'`.
static HEREDOC_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"<<-?\s*['"]?([A-Za-z_]\w*)['"]?"#).expect("a valid pattern"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_is_split_into_its_steps_outside_quotes_and_heredocs() {
        assert_eq!(
            steps("cd web && npm test | tail -5; echo 'a && b' || true"),
            ["cd web", "npm test", "tail -5", "echo 'a && b'", "true"]
        );
        assert_eq!(
            steps("cat > notes.md <<'EOF'\ncargo test\nnever a step\nEOF\ngit add notes.md"),
            ["cat > notes.md <<'EOF'", "git add notes.md"]
        );
        assert_eq!(
            steps("git commit -m \"$(cat <<'EOF'\nfeat: x\n\nBody; more\nEOF\n)\" && git push"),
            [
                "git commit -m \"$(cat <<'EOF'\nfeat: x\n\nBody; more\nEOF\n)\"",
                "git push"
            ]
        );
    }
}
