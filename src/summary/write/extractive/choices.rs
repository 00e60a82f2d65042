//! What the user chose: an answer that is an option's number ("1"), read as
//! the option the agent's message offered under it, and the answers a
//! harness's question tool hands back (Claude Code's `AskUserQuestion`).

use std::sync::LazyLock;

use regex::Regex;

use crate::summary::read::sentences::{Stretch, clipped};
use crate::summary::read::tool_calls::tool_name;

/// An answer that only names an option: "1", "2.", "option 3", "#2".
static OPTION_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\A\s*(?:option\s*|#)?(\d{1,2})[.)!]?\s*\z").expect("a valid pattern"));
/// "User has answered your questions: "Q"="A", "Q2"="A2". You can now…".
static ANSWERED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""((?:[^"\\]|\\.)+)"="((?:[^"\\]|\\.)*)""#).expect("a valid pattern"));

/// How much of an option or a question is quoted.
const OPTION_CHARS: usize = 120;

/// The option `answer` picks by its number among those `offered` lists
/// ("1. **Start implementing** the applet"), without its markup: in the
/// last list the message offers (an earlier one may number findings).
pub(super) fn option_named(answer: &str, offered: &str) -> Option<String> {
    let number = OPTION_NUMBER.captures(answer)?[1].to_owned();
    let delimited = |rest: &str| {
        rest.strip_prefix(['.', ')', ':'])
            .filter(|rest| rest.starts_with(char::is_whitespace))
            .map(str::to_owned)
    };
    offered.lines().rev().find_map(|line| {
        let line = line.trim().trim_start_matches(['-', '*', ' ']);
        let rest = line.strip_prefix(number.as_str()).and_then(delimited).or_else(|| {
            line.strip_prefix("Option ")
                .and_then(|rest| rest.strip_prefix(number.as_str()))
                .and_then(delimited)
        })?;
        let option = rest.replace("**", "");
        let option = option.trim();
        (!option.is_empty()).then(|| clipped(option, OPTION_CHARS, Stretch::None))
    })
}

/// What the user chose, from a question tool's result: one line per
/// question, the answer first.
pub(super) fn chosen(tool: &str, result: &str) -> Vec<String> {
    let name = tool_name(tool).to_ascii_lowercase();
    if name != "askuserquestion" && name != "ask_user_question" {
        return Vec::new();
    }
    ANSWERED
        .captures_iter(result)
        .map(|found| {
            format!(
                "the user chose \"{}\" for: {}",
                clipped(&found[2], OPTION_CHARS, Stretch::None),
                clipped(&found[1], OPTION_CHARS, Stretch::None)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_options_number_is_read_as_the_option() {
        let offered = "Would you like me to:\n1. **Start implementing** the applet (Phase 1: Core Backend)?\n2. **Review the plan together** first?";
        assert_eq!(
            option_named("1", offered).as_deref(),
            Some("Start implementing the applet (Phase 1: Core Backend)?")
        );
        assert_eq!(
            option_named("option 2", offered).as_deref(),
            Some("Review the plan together first?")
        );
        assert_eq!(option_named("3", offered), None, "no third option");
        assert_eq!(option_named("yes, 1", offered), None, "more than a number");
        assert_eq!(
            option_named("2", "Option 2: use rustup.").as_deref(),
            Some("use rustup.")
        );
        let findings_then_options = "I found two problems:\n1. The cache is stale.\n2. The index is missing.\n\nWhich first?\n1. Rebuild the cache\n2. Add the index";
        assert_eq!(
            option_named("1", findings_then_options).as_deref(),
            Some("Rebuild the cache"),
            "the last list offered"
        );
        assert_eq!(option_named("1", "1.2.0 is released."), None, "a version is no option");
    }

    #[test]
    fn a_question_tools_answers_are_what_the_user_chose() {
        let result = r#"User has answered your questions: "Applet or tray?"="COSMIC Panel Applet (Recommended)", "Estimate display power?"="Yes, include estimate". You can now continue with the user's answers in mind."#;
        assert_eq!(
            chosen("AskUserQuestion", result),
            [
                "the user chose \"COSMIC Panel Applet (Recommended)\" for: Applet or tray?",
                "the user chose \"Yes, include estimate\" for: Estimate display power?",
            ]
        );
        assert!(chosen("Bash", result).is_empty());
    }
}
