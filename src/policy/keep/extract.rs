//! The items one message says (SPEC §4), with who said them: the user's
//! request, prohibitions and named things; the assistant's named things;
//! what its tool calls ran, changed and read; what tool output showed.
//! Deterministic: the same message always gives the same items.

use super::commands::written_commands;
use super::harness::HarnessPatterns;
use super::tool_calls::named_by_call;
use super::{KeepKind, Source, identifiers, prohibitions};
use crate::policy::handoff::quote;
use crate::policy::transcript::{Message, Role};

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
}

impl Sighting {
    fn new(kind: KeepKind, text: impl Into<String>, source: Source) -> Self {
        Self {
            kind,
            text: text.into(),
            source,
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
        into.push(Sighting::new(kind, text, source));
    }
    for command in written_commands(text) {
        into.push(Sighting::new(KeepKind::Command, command, source));
    }
}

/// Whether a user-role message holds anything of the user's own: harness
/// text alone is not a request.
pub(crate) fn users_words(message: &Message, harness: &HarnessPatterns) -> Option<String> {
    (message.role == Role::User)
        .then(|| harness.split(&message.content).words)
        .filter(|words| !words.is_empty())
}

/// Everything `message` says that a summary must keep, in order, each item once.
/// The files an assistant message's tool calls created, wrote, edited,
/// moved or deleted, in order, once each: its `file_changed` sightings,
/// without reading the rest of it.
pub(crate) fn files_changed(message: &Message) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    if message.role != Role::Assistant {
        return files;
    }
    for call in &message.tool_calls {
        for (kind, text) in named_by_call(&call.name, &call.arguments) {
            if kind == KeepKind::FileChanged && !files.contains(&text) {
                files.push(text);
            }
        }
    }
    files
}

pub fn sightings(message: &Message, harness: &HarnessPatterns) -> Vec<Sighting> {
    let mut found = Vec::new();
    match message.role {
        Role::User => {
            let split = harness.split(&message.content);
            if !split.words.is_empty() {
                found.push(Sighting::new(KeepKind::Request, quote(&split.words), Source::User));
                for rule in prohibitions(&split.words) {
                    found.push(Sighting::new(KeepKind::Prohibition, rule, Source::User));
                }
                named_in(&split.words, Source::User, &mut found);
            }
            for command in &split.typed_commands {
                found.push(Sighting::new(
                    KeepKind::Command,
                    super::commands::clipped(command),
                    Source::User,
                ));
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
        Role::Assistant => {
            named_in(&message.content, Source::Assistant, &mut found);
            for call in &message.tool_calls {
                for (kind, text) in named_by_call(&call.name, &call.arguments) {
                    found.push(Sighting::new(kind, text, Source::ToolCall));
                }
            }
        }
        Role::Tool => {
            let mut from_output = Vec::new();
            named_in(
                head(&message.content, TOOL_RESULT_READ_BYTES),
                Source::ToolResult,
                &mut from_output,
            );
            found.extend(from_output.into_iter().take(TOOL_RESULT_MAX_ITEMS));
        }
        Role::System => {}
    }
    let mut seen = std::collections::HashSet::new();
    found.retain(|sighting| seen.insert((sighting.kind, sighting.text.clone())));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::transcript::ToolCall;

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
}
