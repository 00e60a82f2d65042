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
        // errors a tool printed
        r"|(?:error|fatal|panic|warning)(?:\[\w+\])?:|\w+(?:Error|Exception):|npm\s+(?:ERR!|error)|E\d{4}:|thread\s+'.*'\s+panicked",
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
    let without_blocks = CODE_BLOCK.replace_all(text, |found: &regex::Captures| "\n".repeat(found[0].lines().count()));
    let mut kept = Vec::new();
    let mut in_paste = false;
    for line in without_blocks.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            in_paste = false;
            kept.push("");
            continue;
        }
        let pasted = in_paste || is_table_row(line) || is_quoted(line) || is_code(line) || MACHINE_LINE.is_match(line);
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
}
