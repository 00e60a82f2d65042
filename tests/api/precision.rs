//! What blind graders found in summaries of real sessions (issue 41,
//! *Precision*): a command template quoted as what the user asked, a line
//! that starts inside a Swedish word, a pasted error or table row kept as a
//! rule or a setting. A session with all three, summarized without a model.

use serde_json::{Value, json};

use crate::helpers::spawn_app;
use crate::shapes::summarize;

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": text})
}

/// spec-kit's `/speckit.plan` as Claude Code sends it: the command, then
/// its file expanded with nothing typed for `$ARGUMENTS`.
fn spec_kit_plan() -> [Value; 2] {
    [
        user("<command-message>speckit.plan is running…</command-message>\n<command-name>/speckit.plan</command-name>"),
        user(
            "---\ndescription: Execute the implementation planning workflow using the plan template.\n---\n\n\
             ## User Input\n\n```text\n$ARGUMENTS\n```\n\n\
             You **MUST** consider the user input before proceeding (if not empty).\n\n## Outline\n\n\
             1. **Setup**: Run the setup script and parse its JSON.\n2. Never skip the constitution check.",
        ),
    ]
}

/// The same template as Codex expands a custom prompt: no command before
/// it, the user's words put in for `$ARGUMENTS`.
fn spec_kit_specify(arguments: &str) -> Value {
    user(&format!(
        "---\ndescription: Create or update the feature specification from a natural language feature description.\n---\n\n\
         The user input to you can be provided directly by the agent or as a command argument.\n\n\
         User input:\n\n{arguments}\n\n\
         The text the user typed after `/specify` in the triggering message **is** the feature description."
    ))
}

#[tokio::test]
async fn a_summary_quotes_no_template_starts_no_line_inside_a_word_and_keeps_nothing_pasted_as_a_rule() {
    let app = spawn_app().await;
    let mut messages = vec![
        spec_kit_specify("Build a photo album app that groups photos by date."),
        assistant("Wrote specs/001-photo-albums/spec.md with the user stories."),
    ];
    messages.extend(spec_kit_plan());
    messages.push(assistant("Wrote specs/001-photo-albums/plan.md."));
    // Copied out of a terminal: the line breaks where the screen ended, inside "får".
    messages.push(user(
        "Skriv ett test som visar att kontrollen i pipelinen stoppar en röd gren, och uppdatera dokumentationen i docs/ci.md \
         så att alla i teamet förstår varför vi gör så här. Den här grenen få\nr inte merges innan alla tester är gröna.",
    ));
    messages.push(assistant("Added the check and documented it in docs/ci.md."));
    messages.push(user(
        "The deploy still fails. I get this error:\nCaused by: java.lang.IllegalStateException: must not be null at app/Main.java:12\n\n\
         These are the limits we run with:\n\n| setting | value | note |\n|---|---|---|\n| queue | 5433 ms | never above 6000 ms |\n\n\
         Fix the null check in app/Main.java.",
    ));
    messages.push(assistant("Fixed the null check in app/Main.java; the deploy passes."));

    let summary = summarize(&app, messages).await;

    for template in [
        "$ARGUMENTS",
        "User Input",
        "User input",
        "description:",
        "Outline",
        "constitution",
    ] {
        assert!(!summary.contains(template), "{template} is the template's:\n{summary}");
    }
    assert!(
        summary.contains("Build a photo album app that groups photos by date."),
        "the arguments are the user's request:\n{summary}"
    );
    for line in summary.lines() {
        let said = line
            .trim_start_matches([' ', '-', '·'])
            .trim_start_matches("asked: ")
            .trim_start_matches("Latest request: ")
            .trim_start_matches("Rule: ");
        assert!(!said.starts_with("r inte"), "{line:?} starts inside a word:\n{summary}");
    }
    for pasted in ["must not be null", "never above 6000 ms", "5433 ms"] {
        assert!(
            summary.lines().all(
                |line| !(line.starts_with("- Rule: ") || line.starts_with("- Quantities: ")) || !line.contains(pasted)
            ),
            "{pasted} was pasted:\n{summary}"
        );
    }
}

#[tokio::test]
async fn a_plugin_loops_prompt_sent_again_and_again_is_one_request_line() {
    let app = spawn_app().await;
    let prompt = "Read TODO.md, pick the next open item, implement it, run the tests and tick it off.";
    let messages: Vec<Value> = (1..=4)
        .flat_map(|round| [user(prompt), assistant(&format!("Ticked off item {round} in TODO.md."))])
        .collect();

    let summary = summarize(&app, messages).await;

    let request_lines = summary
        .lines()
        .filter(|line| line.starts_with(&format!("- {prompt}")))
        .count();
    assert_eq!(request_lines, 1, "{summary}");
    assert!(summary.contains("sent it again 3 times"), "{summary}");
}
