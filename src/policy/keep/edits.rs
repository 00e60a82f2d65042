//! What an edit put in a file (SPEC §4, extractive narrative): the names it
//! defined or changed — functions, types, modules, attributes, tests, tables
//! — read off the text a Write, Edit, MultiEdit or patch added, so a summary
//! written without a model can say what changed in each file, not only that
//! it did.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::KeepKind;
use super::tool_calls::called;

/// The most names one file's line shows.
pub(crate) const NAMES_PER_FILE: usize = 6;
/// A name is shown up to this many characters.
const NAME_CHARS: usize = 60;

/// A definition, in the languages agents mostly write.
static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?m)^[ \t+]*(?:pub(?:\([^)]*\))?\s+|export\s+(?:default\s+)?|async\s+|static\s+|private\s+|public\s+|protected\s+)*"#,
        r#"(?:(?P<kw>defmodule|defp|def|fn|func|function|class|struct|enum|interface|trait|type|attribute|has_many|belongs_to|has_one|module|create\s+table|alter\s+table)\s+(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_:][\w:.!?]*)"#,
        r#"|(?P<test>test|describe|it)\s*\(?\s*["'](?P<title>[^"'\n]{3,60})["'])"#,
    ))
    .expect("a valid pattern")
});

/// The text a call added to each file it changed: Write's content, Edit's
/// new string, each of MultiEdit's, a patch's added lines.
fn added_text(arguments: &Value) -> String {
    let mut added = Vec::new();
    for key in [
        "content",
        "new_string",
        "new_str",
        "file_text",
        "insert_text",
        "code_edit",
    ] {
        if let Some(text) = arguments.get(key).and_then(Value::as_str) {
            added.push(text.to_owned());
        }
    }
    if let Some(edits) = arguments.get("edits").and_then(Value::as_array) {
        for edit in edits {
            if let Some(text) = edit.get("new_string").and_then(Value::as_str) {
                added.push(text.to_owned());
            }
        }
    }
    let patch = match arguments {
        Value::String(text) => Some(text.as_str()),
        object => ["input", "patch", "diff"]
            .iter()
            .find_map(|key| object.get(*key).and_then(Value::as_str)),
    };
    if let Some(patch) = patch {
        added.extend(
            patch
                .lines()
                .filter(|line| line.starts_with('+') && !line.starts_with("+++"))
                .map(|line| line[1..].to_owned()),
        );
    }
    added.join("\n")
}

/// The names an edit defined, in order, once each.
fn names_in(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for found in DEFINITION.captures_iter(text) {
        let name = match (
            found.name("kw"),
            found.name("name"),
            found.name("test"),
            found.name("title"),
        ) {
            (Some(kw), Some(name), _, _) => {
                let kw = kw.as_str().split_whitespace().collect::<Vec<_>>().join(" ");
                format!("{kw} {}", name.as_str().trim_end_matches([':', '.']))
            }
            (_, _, Some(test), Some(title)) => format!("{} \"{}\"", test.as_str(), title.as_str()),
            _ => continue,
        };
        let name: String = name.chars().take(NAME_CHARS).collect();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// For each file a tool call changed, the names its added text defines.
pub(crate) fn names_defined(tool: &str, arguments: &str) -> Vec<(String, Vec<String>)> {
    let files: Vec<String> = called(tool, arguments)
        .items
        .into_iter()
        .filter(|(kind, _)| *kind == KeepKind::FileChanged)
        .map(|(_, file)| file)
        .collect();
    if files.len() != 1 {
        // A shell line or a patch over several files: which name is in
        // which file is not said.
        return Vec::new();
    }
    let parsed: Value = serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
    let names = names_in(&added_text(&parsed));
    if names.is_empty() {
        return Vec::new();
    }
    files.into_iter().map(|file| (file, names.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_says_what_it_defined() {
        let edit = serde_json::json!({
            "file_path": "lib/spotter/transcripts/annotation.ex",
            "old_string": "x",
            "new_string": "    attribute :source, :atom do\n    end\n    has_many :message_refs, AnnotationMessageRef\n  update :close do\n  def close(annotation), do: annotation\n"
        });
        assert_eq!(
            names_defined("Edit", &edit.to_string()),
            [(
                "lib/spotter/transcripts/annotation.ex".to_owned(),
                vec![
                    "attribute :source".to_owned(),
                    "has_many :message_refs".to_owned(),
                    "def close".to_owned()
                ]
            )]
        );
    }

    #[test]
    fn writes_patches_and_tests_in_several_languages() {
        let write = serde_json::json!({
            "file_path": "cmd/attribution.go",
            "content": "package strategy\n\nfunc (s *Strategy) CalculateAttribution(a int) int {\n}\n\ntype Attribution struct {\n}\n"
        });
        assert_eq!(
            names_defined("Write", &write.to_string()),
            [(
                "cmd/attribution.go".to_owned(),
                vec!["func CalculateAttribution".to_owned(), "type Attribution".to_owned()]
            )]
        );
        let patch = "*** Begin Patch\n*** Update File: src/retry.ts\n@@\n-const a = 1;\n+export async function backoff(ms: number) {\n+describe('backoff', () => {\n*** End Patch";
        assert_eq!(
            names_defined("apply_patch", patch),
            [(
                "src/retry.ts".to_owned(),
                vec!["function backoff".to_owned(), "describe \"backoff\"".to_owned()]
            )]
        );
        assert!(names_defined("Edit", r#"{"file_path":"a.md","new_string":"Just prose."}"#).is_empty());
    }
}
