//! The items one message says (SPEC §4), with who said them: the user's
//! request, prohibitions and named things; the assistant's named things;
//! what its tool calls ran, changed and read; what tool output showed.
//! Deterministic: the same message always gives the same items.

use super::prohibitions;
use crate::domain::transcript::{Message, Role};
use crate::summary::handoff::quote;
use crate::summary::kinds::{KeepKind, Source};
use crate::summary::read::Reading;
use crate::summary::read::commands::written_commands;
use crate::summary::read::files::calls_named;
use crate::summary::read::harness::HarnessPatterns;
use crate::summary::read::harness::{UserText, rejection_words};
use crate::summary::read::identifiers;
use crate::summary::read::pasted::{own_words, without_output};
use crate::summary::read::quantities::is_lifted_figure;
use crate::summary::read::request::{UserMessage, UserReader, is_acknowledgement};
use crate::summary::read::tool_calls::Named;

/// How much of one tool result is read for items: an `ls -R` or a log dump
/// says little more after its first 16 KiB.
pub(crate) const TOOL_RESULT_READ_BYTES: usize = 16 * 1024;
/// The most items one tool result contributes.
pub(crate) const TOOL_RESULT_MAX_ITEMS: usize = 64;

/// One item, as one message says it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sighting {
    pub kind: KeepKind,
    pub text: String,
    pub source: Source,
    /// A file changed by moving it here from this path: the keep set holds
    /// it at its final place only.
    pub moved_from: Option<String>,
}

impl Sighting {
    pub(crate) fn new(kind: KeepKind, text: impl Into<String>, source: Source) -> Self {
        Self {
            kind,
            text: text.into(),
            source,
            moved_from: None,
        }
    }
}

fn head(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn named_in(text: &str, source: Source, into: &mut Vec<Sighting>) {
    for (kind, text) in identifiers(text) {
        // A percentage or a count lifted from tool output says nothing
        // once it is out of its table (*Precision*).
        if source == Source::ToolResult && kind == KeepKind::Quantity && is_lifted_figure(&text) {
            continue;
        }
        into.push(Sighting::new(kind, text, source));
    }
    for command in written_commands(text) {
        into.push(Sighting::new(KeepKind::Command, command, source));
    }
}

/// Everything each of `messages` says, in order (see [`sightings`]), from
/// their [`Reading`]: read together, so that a command's expanded template,
/// which follows it in a message of its own, is not taken for the user's
/// request.
pub(crate) fn sightings_of(messages: &[Message], read: &Reading) -> Vec<Vec<Sighting>> {
    let per_message = read.split.iter().zip(&read.users).zip(&read.calls);
    messages
        .iter()
        .zip(per_message)
        .map(|(message, ((split, user), calls))| sightings_as(message, split.as_ref(), user.as_ref(), calls))
        .collect()
}

/// Everything `message` says that a summary must keep, in order, each item
/// once (read alone: see [`sightings_of`] for a transcript).
pub fn sightings(message: &Message, harness: &HarnessPatterns) -> Vec<Sighting> {
    let split = (message.role == Role::User).then(|| harness.split(&message.content));
    // Alone, a message is still known for a template by what it holds.
    let read = split
        .as_ref()
        .and_then(|split| UserReader::default().read(message, Some(&split.words)));
    sightings_as(message, split.as_ref(), read.as_ref(), &calls_named(message))
}

/// What the user's own words say: their request (unless they only
/// acknowledge), their rules, and what they named.
fn users_items(words: &str, found: &mut Vec<Sighting>) {
    if !is_acknowledgement(words) {
        found.push(Sighting::new(KeepKind::Request, quote(words), Source::User));
    }
    for rule in prohibitions(words) {
        found.push(Sighting::new(KeepKind::Prohibition, rule, Source::User));
    }
    let mut named = Vec::new();
    named_in(words, Source::User, &mut named);
    // Named only in what the user pasted: a figure in a log line or a table
    // row is the log's, not a setting they named (their code blocks count
    // as pasted here), and a name in an error is one the output showed.
    let mut own = Vec::new();
    named_in(&own_words(words), Source::User, &mut own);
    let mut theirs = Vec::new();
    named_in(&without_output(words), Source::User, &mut theirs);
    for mut sighting in named {
        if sighting.kind == KeepKind::Quantity && !own.contains(&sighting) {
            continue;
        }
        if !theirs.contains(&sighting) {
            sighting.source = Source::ToolResult;
        }
        found.push(sighting);
    }
}

/// What a user-role message says: what the user typed (a template's
/// arguments only, none of a command's expanded file), the shell commands
/// they typed through the harness and the names in the output it carried.
fn users_message(split: &UserText, read: Option<&UserMessage>, found: &mut Vec<Sighting>) {
    let command = matches!(read, Some(UserMessage::Command(_)));
    let own = match read {
        Some(UserMessage::Template | UserMessage::Command(_)) => "",
        Some(UserMessage::Request(words) | UserMessage::Repeat(words) | UserMessage::Answer(words)) => words.as_str(),
        _ => split.words.as_str(),
    };
    if !own.is_empty() {
        users_items(own, found);
    }
    if command {
        // A slash command typed as the message: its arguments name things,
        // but are no request and give no rules.
        named_in(&split.words, Source::User, found);
    } else if own != split.words {
        // The user's own file, run as a command: named things, no request, no rules.
        named_in(&split.words, Source::ToolResult, found);
    }
    for command in split
        .typed_commands
        .iter()
        .filter_map(|c| crate::summary::read::commands::normalized(c))
    {
        found.push(Sighting::new(KeepKind::Command, command, Source::User));
    }
    for output in &split.output {
        let mut from_output = Vec::new();
        named_in(
            head(output, TOOL_RESULT_READ_BYTES),
            Source::ToolResult,
            &mut from_output,
        );
        found.extend(from_output.into_iter().take(TOOL_RESULT_MAX_ITEMS));
    }
}

/// What `message` says, its user's words split from the harness's once
/// (`split`, for a user-role message), what it is in its transcript, and
/// what each of its tool calls names (`calls`, an assistant message's).
fn sightings_as(
    message: &Message,
    split: Option<&UserText>,
    read: Option<&UserMessage>,
    calls: &[Named],
) -> Vec<Sighting> {
    let mut found = Vec::new();
    match (message.role, split) {
        (Role::User, Some(split)) => users_message(split, read, &mut found),
        (Role::Assistant, _) => {
            named_in(&message.content, Source::Assistant, &mut found);
            for named in calls {
                for (kind, text) in named.items.iter().cloned() {
                    let moved_from = (kind == KeepKind::FileChanged)
                        .then(|| {
                            named
                                .moves
                                .iter()
                                .find(|(_, to)| *to == text)
                                .map(|(from, _)| from.clone())
                        })
                        .flatten();
                    found.push(Sighting {
                        moved_from,
                        ..Sighting::new(kind, text, Source::ToolCall)
                    });
                }
            }
        }
        (Role::Tool, _) if let Some(words) = rejection_words(&message.content) => users_items(words, &mut found),
        (Role::Tool, _) => {
            let mut from_output = Vec::new();
            named_in(
                head(&message.content, TOOL_RESULT_READ_BYTES),
                Source::ToolResult,
                &mut from_output,
            );
            found.extend(from_output.into_iter().take(TOOL_RESULT_MAX_ITEMS));
        }
        _ => {}
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|sighting| seen.insert((sighting.kind, sighting.text.clone())));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transcript::ToolCall;
    use crate::summary::read::files::files_changed;

    fn sightings_in(messages: &[Message]) -> Vec<Vec<Sighting>> {
        sightings_of(
            messages,
            &Reading::of(messages, &HarnessPatterns::default(), messages.len()),
        )
    }

    fn of(found: &[Sighting], kind: KeepKind) -> Vec<(&str, Source)> {
        found
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| (s.text.as_str(), s.source))
            .collect()
    }

    #[test]
    fn a_users_message_gives_its_request_rules_and_names() {
        let message = Message::new(
            Role::User,
            "Fix the flaky test in tests/api/usage.rs (PROJ-12). Don't touch the CI config. Run `cargo test -p api`.",
        );
        let found = sightings(&message, &HarnessPatterns::default());
        assert_eq!(of(&found, KeepKind::Request).len(), 1);
        assert_eq!(
            of(&found, KeepKind::Prohibition),
            [("Don't touch the CI config.", Source::User)]
        );
        assert_eq!(of(&found, KeepKind::Path), [("tests/api/usage.rs", Source::User)]);
        assert_eq!(of(&found, KeepKind::Id), [("PROJ-12", Source::User)]);
        assert_eq!(of(&found, KeepKind::Command), [("cargo test -p api", Source::User)]);
    }

    #[test]
    fn a_refused_tool_calls_reason_gives_the_users_request_rules_and_names() {
        let refused = Message {
            tool_call_id: Some("e".into()),
            ..Message::new(
                Role::Tool,
                "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nhave a look at https://linear.app/acme/issue/ENT-250 first. Don't edit phase.go.",
            )
        };
        let found = sightings_in(&[refused]);
        assert_eq!(
            of(&found[0], KeepKind::Request),
            [(
                "have a look at https://linear.app/acme/issue/ENT-250 first. Don't edit phase.go.",
                Source::User
            )],
            "the user's words alone, not the harness's sentence before them"
        );
        assert_eq!(
            of(&found[0], KeepKind::Prohibition),
            [("Don't edit phase.go.", Source::User)]
        );
        assert!(
            of(&found[0], KeepKind::Url).contains(&("https://linear.app/acme/issue/ENT-250", Source::User)),
            "{found:?}"
        );
    }

    #[test]
    fn an_acknowledgement_is_no_request_and_pasted_figures_are_no_settings() {
        let harness = HarnessPatterns::default();
        assert!(
            of(
                &sightings(&Message::new(Role::User, "Great!"), &harness),
                KeepKind::Request
            )
            .is_empty()
        );
        let pasted = Message::new(
            Role::User,
            "Why is the hook slow? Set timeout=30s.\nFeb 8 21:51:50.720 |DEBU| hook invoked duration_ms=151 agent_added=0",
        );
        let found = sightings(&pasted, &harness);
        assert_eq!(of(&found, KeepKind::Quantity), [("timeout=30s", Source::User)]);
    }

    #[test]
    fn a_commands_template_is_no_request_and_no_rule() {
        let messages = [
            Message::new(Role::User, "<command-name>/handoff</command-name>"),
            Message::new(
                Role::User,
                "# Session Handoff\nWrite docs/HANDOFF.md. Never skip the open questions.",
            ),
        ];
        let found = sightings_in(&messages);
        assert!(of(&found[1], KeepKind::Request).is_empty());
        assert!(of(&found[1], KeepKind::Prohibition).is_empty());
        assert_eq!(of(&found[1], KeepKind::Path), [("docs/HANDOFF.md", Source::ToolResult)]);
    }

    #[test]
    fn a_slash_command_typed_as_the_message_is_no_request_but_what_it_names_is_the_users() {
        let messages = [
            Message::new(Role::User, "/compact"),
            Message::new(Role::User, "/review docs/HANDOFF.md, never mind the tests"),
        ];
        let found = sightings_in(&messages);
        assert!(found[0].is_empty(), "{:?}", found[0]);
        assert!(of(&found[1], KeepKind::Request).is_empty());
        assert!(of(&found[1], KeepKind::Prohibition).is_empty());
        assert_eq!(of(&found[1], KeepKind::Path), [("docs/HANDOFF.md", Source::User)]);
    }

    #[test]
    fn percentages_and_counts_in_tool_output_are_not_items() {
        let message = Message {
            tool_call_id: Some("c1".into()),
            ..Message::new(Role::Tool, "coverage 1% 20% 33%, 48 tests, took 774ms")
        };
        let found = sightings(&message, &HarnessPatterns::default());
        assert_eq!(of(&found, KeepKind::Quantity), [("774ms", Source::ToolResult)]);
    }

    #[test]
    fn harness_text_is_neither_a_request_nor_a_rule() {
        let caveat = Message::new(
            Role::User,
            "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.</local-command-caveat>",
        );
        assert!(sightings(&caveat, &HarnessPatterns::default()).is_empty());
        let bash = Message::new(
            Role::User,
            "<bash-input>ls src</bash-input><bash-stdout>src/main.rs\nsrc/lib.rs</bash-stdout>",
        );
        let found = sightings(&bash, &HarnessPatterns::default());
        assert!(of(&found, KeepKind::Request).is_empty());
        assert_eq!(of(&found, KeepKind::Command), [("ls src", Source::User)]);
        assert_eq!(
            of(&found, KeepKind::Path),
            [("src/main.rs", Source::ToolResult), ("src/lib.rs", Source::ToolResult)]
        );
    }

    #[test]
    fn the_files_a_message_changed_are_its_file_changed_sightings() {
        let call = |id: &str, name: &str, arguments: &str| ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        };
        let message = Message {
            tool_calls: vec![
                call("c1", "Write", r#"{"file_path":"src/new.rs","content":"fn x() {}"}"#),
                call(
                    "c2",
                    "Edit",
                    r#"{"file_path":"src/lib.rs","old_string":"a","new_string":"b"}"#,
                ),
                call(
                    "c3",
                    "Bash",
                    r#"{"command":"mv docs/old.md docs/new.md && rm -f tmp/cache.bin"}"#,
                ),
                call(
                    "c4",
                    "Edit",
                    r#"{"file_path":"src/lib.rs","old_string":"b","new_string":"c"}"#,
                ),
                call("c5", "Read", r#"{"file_path":"README.md"}"#),
            ],
            ..Message::new(Role::Assistant, "Editing src/lib.rs now.")
        };
        let from_sightings: Vec<String> = sightings(&message, &HarnessPatterns::default())
            .into_iter()
            .filter(|s| s.kind == KeepKind::FileChanged && s.source == Source::ToolCall)
            .map(|s| s.text)
            .collect();
        assert!(from_sightings.len() >= 3, "{from_sightings:?}");
        assert_eq!(files_changed(&message), from_sightings);
        assert!(files_changed(&Message::new(Role::User, "I wrote src/x.rs")).is_empty());
    }

    #[test]
    fn the_assistant_and_its_tools_name_things_of_their_own() {
        let message = Message {
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "Edit".into(),
                arguments: r#"{"file_path":"src/lib.rs","old_string":"/etc/x","new_string":"y"}"#.into(),
            }],
            ..Message::new(Role::Assistant, "I'll edit src/lib.rs; never mind /var/log/app.log.")
        };
        let found = sightings(&message, &HarnessPatterns::default());
        assert!(
            of(&found, KeepKind::Prohibition).is_empty(),
            "only the user's rules are rules"
        );
        assert_eq!(
            of(&found, KeepKind::Path),
            [
                ("src/lib.rs", Source::Assistant),
                ("/var/log/app.log", Source::Assistant)
            ]
        );
        assert_eq!(of(&found, KeepKind::FileChanged), [("src/lib.rs", Source::ToolCall)]);
    }

    #[test]
    fn a_tool_flood_gives_a_bounded_number_of_items() {
        let listing: String = (0..1000).map(|i| format!("src/module_{i}/file_{i}.rs\n")).collect();
        let message = Message {
            tool_call_id: Some("c1".into()),
            ..Message::new(Role::Tool, listing)
        };
        let found = sightings(&message, &HarnessPatterns::default());
        assert_eq!(found.len(), TOOL_RESULT_MAX_ITEMS);
        assert!(found.iter().all(|s| s.source == Source::ToolResult));
    }

    #[test]
    fn a_template_sent_as_the_users_message_gives_only_its_arguments_as_the_request() {
        let template = "---\ndescription: Execute the implementation planning workflow.\n---\n\n## User Input\n\n```text\nUse Postgres 16, not SQLite.\n```\n\nYou **MUST** consider the user input. Never skip the constitution check in memory/constitution.md.";
        let found = sightings(&Message::new(Role::User, template), &HarnessPatterns::default());
        assert_eq!(
            of(&found, KeepKind::Request),
            [("Use Postgres 16, not SQLite.", Source::User)]
        );
        assert!(
            of(&found, KeepKind::Prohibition).is_empty(),
            "the template's rules are not the user's: {found:?}"
        );
        assert_eq!(
            of(&found, KeepKind::Path),
            [("memory/constitution.md", Source::ToolResult)]
        );
        let empty = template.replace("Use Postgres 16, not SQLite.", "$ARGUMENTS");
        let found = sightings(&Message::new(Role::User, empty), &HarnessPatterns::default());
        assert!(of(&found, KeepKind::Request).is_empty(), "{found:?}");
    }

    #[test]
    fn names_in_a_pasted_error_or_table_are_the_outputs_not_the_users() {
        let message = Message::new(
            Role::User,
            "The worker in src/worker.rs crashes. I get this error:\nE0502 12:01:02.123 server.go:88] failed to bind port 5433: address in use\n\
             Caused by: java.lang.IllegalStateException: must not be null at app/Main.java:12\n\n\
             | setting | value |\n|---|---|\n| timeout | 30s |\n| cache | config/cache.toml |\n\n\
             Run this after the fix:\n```\ncargo test -p worker\n```",
        );
        let found = sightings(&message, &HarnessPatterns::default());
        assert!(of(&found, KeepKind::Prohibition).is_empty(), "{found:?}");
        assert!(of(&found, KeepKind::Quantity).is_empty(), "{found:?}");
        let paths = of(&found, KeepKind::Path);
        assert!(paths.contains(&("src/worker.rs", Source::User)), "{paths:?}");
        for pasted in ["server.go", "app/Main.java", "config/cache.toml"] {
            assert!(
                paths
                    .iter()
                    .all(|(path, source)| *path != pasted || *source == Source::ToolResult),
                "{pasted} was only pasted: {paths:?}"
            );
        }
        assert!(
            of(&found, KeepKind::Id)
                .iter()
                .all(|(_, source)| *source == Source::ToolResult),
            "{found:?}"
        );
        assert_eq!(of(&found, KeepKind::Command), [("cargo test -p worker", Source::User)]);
    }
}
