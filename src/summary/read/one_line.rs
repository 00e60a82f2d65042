//! One line of a name, a command or an error line, where there is no
//! sentence to end at: whitespace collapsed, a terminal's colours taken
//! out, cut between words where it can be.

use std::sync::LazyLock;

use regex::Regex;

static ANSI_ESCAPE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]").expect("a valid pattern"));

/// `text` on one line, cut to `max_chars` (between characters, with "…"):
/// for a name, a command or an error line, where there is no sentence to
/// end at.
pub(crate) fn one_line(text: &str, max_chars: usize) -> String {
    // A terminal's colours (`\x1b[33m`) are no part of what a line says.
    let text = ANSI_ESCAPE.replace_all(text, "");
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max_chars {
        return line;
    }
    format!("{}…", head_of(&line, max_chars.saturating_sub(1)).trim_end())
}

/// The first `max_chars` characters of `text`, less the word the cut would
/// split when a space comes late enough before it (scripts without spaces,
/// and one long token, are cut between characters).
pub(crate) fn head_of(text: &str, max_chars: usize) -> &str {
    let Some((cut, after)) = text.char_indices().nth(max_chars) else {
        return text;
    };
    let head = &text[..cut];
    if !after.is_alphanumeric() || !head.chars().next_back().is_some_and(char::is_alphanumeric) {
        return head;
    }
    match head.rfind(char::is_whitespace) {
        Some(at) if at >= head.len() / 2 => &head[..at],
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::one_line as line_of;

    #[test]
    fn a_terminals_colours_are_no_part_of_a_line() {
        assert_eq!(
            line_of(
                "\x1b[33m[Nest] 79324  - \x1b[39m WARN \x1b[38;5;3m[EmailOtpService]\x1b[39m DEV OTP: 933660",
                200
            ),
            "[Nest] 79324 - WARN [EmailOtpService] DEV OTP: 933660"
        );
    }
}
