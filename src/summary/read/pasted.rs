//! What the user pasted rather than wrote (SPEC §4, *Precision*): code
//! blocks, quoted lines, tables, log lines, stack traces and error output.
//! A rule is only ever one of the user's own sentences: "No default view of
//! type 'tree' could be found!" in a pasted error is not a rule, nor is a
//! table row that says "avoid".

use std::sync::LazyLock;

use regex::Regex;

static CODE_BLOCK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?s)```.*?(?:```|\z)").expect("a valid pattern"));
/// A line of machine output: a log line, a stack frame, an error, a prompt.
static MACHINE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?x)\A\s*(?:",
        // timestamps and log levels
        r"\[?\d{4}-\d{2}-\d{2}[T\s]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}|[A-Z][a-z]{2}\s+\d{1,2}\s+\d{2}:\d{2}",
        r"|\[?(?:DEBUG|DEBU|INFO|WARN|WARNING|ERROR|ERRO|TRACE|FATAL|CRITICAL)\]?[\s:|]",
        // stack traces
        r"|at\s+\S+.*[(:]\d+|File\s+\x22[^\x22]+\x22,\s+line\s+\d+|Traceback\s+\(most|\#\d+\s+0x|goroutine\s+\d+",
        // errors a tool printed: `Error: …`, `Caused by: java.lang.…Exception: …`,
        // `Uncaught TypeError: …`, pytest's `FAILED path::test`, glog's `E0502 12:01:02`
        // (`Warning:` and `Note:` may open a rule the user typed: only errors count capitalized)
        r"|(?:error|fatal|panic|warning|Error|ERROR|Fatal|FATAL|Panic|PANIC|Caused\s+by)(?:\[\w+\])?:|[\w.$]*(?:Error|Exception)(?::|\s+in\s+thread)",
        r"|(?:Uncaught|Unhandled)\s+[\w.]*(?:Error|Exception|Rejection)|FAILED\s|ERROR\s|[IWEF]\d{4}\s+\d{2}:\d{2}:\d{2}",
        r"|npm\s+(?:ERR!|error)|E\d{4}:|thread\s+'.*'\s+panicked",
        // a shell prompt, a diff line, a terminal agent's own output (Claude Code's ⏺ and ⎿)
        r"|\$\s|>>>\s|@@\s|[+-]{3}\s|[⏺⎿✻✶✳✢]",
        r")",
    ))
    .expect("a valid pattern")
});
/// A line that introduces pasted output ("I get this error:", "the logs say:").
static PASTE_LEAD_IN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:error|errors|log|logs|output|trace|stack|stacktrace|says|said|shows|showed|printed|returns|returned|got|get|getting|see|seeing|message|console)\s*:\s*\z")
        .expect("a valid pattern")
});

fn is_table_row(line: &str) -> bool {
    let line = line.trim();
    line.starts_with('|') || line.matches('|').count() >= 2
}

/// A Markdown table's rule under its header (`|---|:--:|`, `---|---`).
fn is_table_rule(line: &str) -> bool {
    let line = line.trim();
    line.contains('|') && line.contains("--") && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// Which lines of `lines` belong to a table with a rule: a table written
/// without its outer pipes (`a | b`) has one pipe a row, as a sentence
/// might, and only its rule tells it apart.
fn in_ruled_table(lines: &[&str]) -> Vec<bool> {
    let mut table = vec![false; lines.len()];
    let is_row = |line: &str| !line.trim().is_empty() && line.contains('|');
    for (at, _) in lines.iter().enumerate().filter(|(_, line)| is_table_rule(line)) {
        let start = lines[..at]
            .iter()
            .rposition(|line| !is_row(line))
            .map_or(0, |before| before + 1);
        let end = lines[at..]
            .iter()
            .position(|line| !is_row(line))
            .map_or(lines.len(), |after| at + after);
        table[start..end].iter_mut().for_each(|row| *row = true);
    }
    table
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

/// Indented four spaces or a tab, or ending like code does.
fn is_code(line: &str) -> bool {
    line.starts_with("    ") || line.starts_with('\t') || {
        let end = line.trim_end();
        end.ends_with(';') || end.ends_with('{') || end.ends_with('}')
    }
}

/// `text` with everything pasted blanked out (each such line left empty, so
/// no two of the user's sentences run together).
pub(crate) fn own_words(text: &str) -> String {
    blanked(text, Code::Pasted)
}

/// `text` with the output the user pasted blanked out (errors, logs, stack
/// traces, tables, quotes) and their code left: a command or a path they
/// put in a code block is one they named, a path in a pasted error is not.
pub(crate) fn without_output(text: &str) -> String {
    blanked(text, Code::Theirs)
}

/// Whether the user's code (code blocks, lines shaped like code) is theirs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Code {
    /// Not their sentences: never a rule.
    Pasted,
    /// Their own names: the code they want run or changed.
    Theirs,
}

fn blanked(text: &str, code: Code) -> String {
    let without_blocks = match code {
        Code::Pasted => CODE_BLOCK.replace_all(text, |found: &regex::Captures| "\n".repeat(found[0].lines().count())),
        Code::Theirs => std::borrow::Cow::Borrowed(text),
    };
    let lines: Vec<&str> = without_blocks.lines().collect();
    let table = in_ruled_table(&lines);
    let mut kept = Vec::new();
    let mut in_paste = false;
    for (line, in_table) in lines.iter().copied().zip(table) {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            in_paste = false;
            kept.push("");
            continue;
        }
        let pasted = in_paste
            || in_table
            || is_table_row(line)
            || is_quoted(line)
            || code == Code::Pasted && is_code(line)
            || MACHINE_LINE.is_match(line);
        if pasted {
            kept.push("");
        } else {
            kept.push(line);
        }
        // What follows "I get this error:" up to a blank line is the paste.
        if PASTE_LEAD_IN.is_match(trimmed) {
            in_paste = true;
        }
    }
    kept.join("\n")
}

/// `sentence` with its quoted spans blanked: a rule's marker inside quotes
/// ("change the label 'Do not reply'") is the quoted text's, not the user's.
pub(crate) fn outside_quotes(sentence: &str) -> String {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#""[^"\n]*"|“[^”\n]*”|`[^`\n]*`|«[^»\n]*»|(?:^|\s)'[^'\n]{3,}'(?:\s|[.,!?;:]|$)"#)
            .expect("a valid pattern")
    });
    QUOTED
        .replace_all(sentence, |found: &regex::Captures| " ".repeat(found[0].len()))
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_errors_logs_traces_tables_and_code_are_blanked() {
        let text = "The tree view breaks. I get this error:\nNo default view of type 'tree' could be found!\nat Registry.get (registry.js:42:7)\n\n\
                    Don't change the registry.\n| setting | value | note |\n| MAX_QUEUE_SIZE | 50 | avoid unbounded memory |\n\
                    Feb 8 21:51:50.720 |DEBU| never retry hook=stop\n```\n// never do this\n```\n> Do not reply to this email.\nerror: never gonna work";
        let own = own_words(text);
        assert!(own.contains("The tree view breaks."), "{own}");
        assert!(own.contains("Don't change the registry."), "{own}");
        for pasted in [
            "No default view",
            "Registry.get",
            "MAX_QUEUE_SIZE",
            "never retry",
            "never do this",
            "Do not reply",
            "never gonna work",
        ] {
            assert!(!own.contains(pasted), "{pasted} is pasted: {own}");
        }
    }

    #[test]
    fn quoted_spans_are_not_the_users_words() {
        assert_eq!(
            outside_quotes("Rename \"Do not reply\" to `never`, please.").trim(),
            "Rename                to        , please."
        );
    }

    #[test]
    fn errors_in_the_shapes_tools_print_them_are_pasted_and_a_users_warning_is_not() {
        let text = "The build breaks.\nError: Cannot find module '@acme/ui/dist/index.js'\nCaused by: java.lang.IllegalStateException: must not be null\n\
                    Uncaught TypeError: cannot read properties of undefined (reading 'map')\nFAILED tests/test_api.py::test_login - AssertionError: expected 200\n\
                    E0502 12:01:02.123 server.go:88] failed to bind port 5433\nPanic: runtime error: index out of range\n\nWarning: never push to main.";
        let own = own_words(text);
        assert!(own.contains("The build breaks."), "{own}");
        assert!(own.contains("Warning: never push to main."), "{own}");
        for pasted in [
            "Cannot find module",
            "must not be null",
            "cannot read properties",
            "test_login",
            "port 5433",
            "index out of range",
        ] {
            assert!(!own.contains(pasted), "{pasted} is pasted: {own}");
        }
    }

    #[test]
    fn a_table_without_outer_pipes_is_known_by_its_rule() {
        let text = "Use these limits.\nsetting | value\n---|---\nqueue | do not exceed 50\nmemory | 20 GB\n\nKeep the | in the name.";
        let own = own_words(text);
        assert!(!own.contains("do not exceed"), "{own}");
        assert!(!own.contains("20 GB"), "{own}");
        assert!(
            own.contains("Use these limits.") && own.contains("Keep the | in the name."),
            "{own}"
        );
    }

    #[test]
    fn the_users_code_is_theirs_to_name_and_pasted_output_is_not() {
        let text =
            "Run this:\n```\ncargo test -p api\n```\nI get this error:\nthread 'main' panicked at src/retry.rs:41";
        let theirs = without_output(text);
        assert!(theirs.contains("cargo test -p api"), "{theirs}");
        assert!(!theirs.contains("src/retry.rs"), "{theirs}");
    }
}
