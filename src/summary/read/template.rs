//! Command and prompt templates sent as the user's message (SPEC §4, *Where
//! things stand*): spec-kit's `/speckit.specify`, a Codex custom prompt, a
//! plugin's command file. The harness expands the file into the user role —
//! front matter (`---\ndescription: …\n---`), a `User input:` section with
//! the arguments put in for `$ARGUMENTS`, an `## Outline` of instructions —
//! and only the arguments are what the user typed. Graders found summaries
//! quoting `$ARGUMENTS` and `User input:` as what the user asked.

use std::sync::LazyLock;

use regex::Regex;

/// Front matter that names what the file is for: a command's, not a person's.
static FRONT_MATTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)\A\s*---[ \t]*\r?\n(?:[^\n]*\n)*?(?:description|argument-hint|allowed-tools|handoffs)\s*:")
        .expect("a valid pattern")
});
/// The placeholder a harness fills with the arguments; left as it is, the
/// command was run with none.
static PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$ARGUMENTS\b|\{\{\s*args\s*\}\}").expect("a valid pattern"));
/// The line that heads the arguments (`User input:`, `## User Input`).
static USER_INPUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?mi)^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?user[ \t]+input(?:\*\*)?[ \t]*:?(?:\*\*)?[ \t]*\r?$")
        .expect("a valid pattern")
});
/// What Claude Code appends to a command file that has no `$ARGUMENTS`.
static ARGUMENTS_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^ARGUMENTS:[ \t]*(.*)\z").expect("a valid pattern"));

/// Whether `words` is an expanded template rather than what a person typed.
pub(crate) fn is_template(words: &str) -> bool {
    FRONT_MATTER.is_match(words) || PLACEHOLDER.is_match(words) || USER_INPUT.is_match(words)
}

/// The arguments the user typed into a template: the block under its
/// `User input:` line (a fenced block whole, else up to a blank line), or
/// Claude Code's trailing `ARGUMENTS:` line; empty when there were none or
/// the placeholder was left unfilled.
fn arguments(words: &str) -> String {
    let typed = if let Some(found) = USER_INPUT.find(words) {
        let mut lines = words[found.end()..].lines().skip_while(|line| line.trim().is_empty());
        let mut block = Vec::new();
        match lines.next() {
            Some(fence) if fence.trim_start().starts_with("```") => {
                block.extend(lines.take_while(|line| !line.trim_start().starts_with("```")));
            }
            Some(first) => {
                block.push(first);
                block.extend(lines.take_while(|line| !line.trim().is_empty()));
            }
            None => {}
        }
        block.join("\n")
    } else if let Some(found) = ARGUMENTS_LINE.captures(words) {
        found[1].to_owned()
    } else {
        String::new()
    };
    let typed = typed.trim();
    if PLACEHOLDER.is_match(typed) {
        String::new()
    } else {
        typed.to_owned()
    }
}

/// What the user typed in `words`: `None` when `words` is no template (all
/// of it is theirs), else `Some` of the arguments they gave it, empty when
/// they gave none.
pub(crate) fn users_part(words: &str) -> Option<String> {
    is_template(words).then(|| arguments(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spec-kit's `/speckit.specify`, as Codex expands it.
    const SPECIFY: &str = "---\ndescription: Create or update the feature specification from a natural language feature description.\n---\n\n\
        The user input to you can be provided directly by the agent or as a command argument - you **MUST** consider it before proceeding with the prompt (if not empty).\n\n\
        User input:\n\n$ARGUMENTS\n\n\
        The text the user typed after `/specify` in the triggering message **is** the feature description. Never skip the checklist.";

    /// The newer spec-kit layout, its arguments in a fenced block.
    const PLAN: &str = "---\ndescription: Execute the implementation planning workflow.\nhandoffs:\n  - label: Create Tasks\n---\n\n\
        ## User Input\n\n```text\n$ARGUMENTS\n```\n\n\
        You **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\n1. **Setup**: Run `.specify/scripts/bash/setup-plan.sh --json`.";

    #[test]
    fn a_spec_kit_template_run_without_arguments_holds_nothing_the_user_typed() {
        assert_eq!(users_part(SPECIFY).as_deref(), Some(""));
        assert_eq!(users_part(PLAN).as_deref(), Some(""));
    }

    #[test]
    fn a_spec_kit_templates_arguments_are_what_the_user_typed() {
        let filled = SPECIFY.replace("$ARGUMENTS", "Build a photo album app that groups photos by date.");
        assert_eq!(
            users_part(&filled).as_deref(),
            Some("Build a photo album app that groups photos by date.")
        );
        let filled = PLAN.replace("$ARGUMENTS", "Use Vite and vanilla JS.\n\nNo backend.");
        assert_eq!(
            users_part(&filled).as_deref(),
            Some("Use Vite and vanilla JS.\n\nNo backend.")
        );
    }

    #[test]
    fn a_command_file_with_claude_codes_arguments_line_gives_that_line() {
        let file = "---\ndescription: Review a pull request\n---\nReview the PR carefully. Never approve it yourself.\n\nARGUMENTS: 482 focus on the migrations";
        assert_eq!(users_part(file).as_deref(), Some("482 focus on the migrations"));
    }

    #[test]
    fn what_a_person_types_is_no_template() {
        for words in [
            "Fix the login bug in src/auth.rs.",
            "The form should validate user input before it is sent.",
            "---\nthis is a horizontal rule, then my request: add a footer.",
            "Den får inte merges innan CI är grön.",
        ] {
            assert_eq!(users_part(words), None, "{words}");
        }
    }
}
