//! What an edit put in a file (SPEC §4, extractive narrative): the names it
//! defined or changed — functions, types, modules, attributes, tests, tables
//! — read off the text a Write, Edit, MultiEdit or patch added, so a summary
//! written without a model can say what changed in each file, not only that
//! it did.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::briefs::document_brief;
use super::sentences::one_line;
use super::tool_calls::called;
use crate::summary::kinds::KeepKind;

/// The most names one file's line shows.
pub(crate) const NAMES_PER_FILE: usize = 6;
/// A name is shown up to this many characters.
const NAME_CHARS: usize = 120;

/// A definition, in the languages agents mostly write.
static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?m)^[ \t+]*(?:pub(?:\([^)]*\))?\s+|export\s+(?:default\s+)?|async\s+|static\s+|private\s+|public\s+|protected\s+)*"#,
        r#"(?:(?P<kw>defmodule|defp|def|fn|func|function|class|struct|enum|interface|trait|type|attribute|has_many|belongs_to|has_one|module|create\s+table|alter\s+table)\s+(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_:][\w:.!?]*)(?P<params>\([^()\n]{0,90}\))?"#,
        r#"|(?P<test>test|describe|it)\s*\(?\s*["'](?P<title>[^"'\n]{3,60})["']"#,
        r#"|(?P<setting>[A-Z][A-Z0-9_]{2,})=(?P<value>[^\s#'"]{0,60})\s*$"#,
        r#"|(?P<property>--[a-z][\w-]*):\s*(?P<css>[^;{}\n]{1,40});\s*$)"#,
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

/// How many of a type's fields are named.
const FIELDS_SHOWN: usize = 8;

static FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\A\s+(?:pub(?:\([^)]*\))?\s+|readonly\s+)?(?P<name>[A-Za-z_]\w*)\??\s*[:\s]").expect("a valid pattern")
});

/// The fields of a type whose body opens at the end of the line `from`
/// is in (` {FieldA, FieldB, …}`), or "" when it opens no body there.
fn fields_after(text: &str, from: usize) -> String {
    let rest = &text[from..];
    let (head, body) = rest.split_once('\n').unwrap_or((rest, ""));
    if !head.trim_end().ends_with('{') {
        return String::new();
    }
    let mut names: Vec<&str> = Vec::new();
    for line in body.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('}') {
            break;
        }
        if trimmed.starts_with("//")
            || trimmed.starts_with('#')
            || trimmed.starts_with("/*")
            || trimmed.starts_with('*')
        {
            continue;
        }
        if let Some(found) = FIELD.captures(line)
            && let Some(name) = found.name("name")
            && !matches!(
                name.as_str(),
                "func" | "fn" | "def" | "type" | "const" | "let" | "return"
            )
        {
            names.push(name.as_str());
        }
    }
    if names.is_empty() {
        return String::new();
    }
    let more = names.len().saturating_sub(FIELDS_SHOWN);
    names.truncate(FIELDS_SHOWN);
    let more = if more > 0 {
        format!(", {more} more")
    } else {
        String::new()
    };
    format!(" {{{}{more}}}", names.join(", "))
}

/// What an env file may show of a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settings {
    /// Not an env file: a `NAME=value` line there is no setting of its own.
    None,
    /// A real env file (`.env`, `.env.local`): its names only, never a value.
    Names,
    /// An example (`.env.example`, `.env.sample`, `.env.template`): its
    /// placeholders are what a newcomer copies.
    Values,
}

impl Settings {
    fn of(file: &str) -> Self {
        let name = file.rsplit(['/', '\\']).next().unwrap_or(file).to_ascii_lowercase();
        let env = name == ".env" || name.starts_with(".env.") || name.ends_with(".env");
        if !env {
            Self::None
        } else if ["example", "sample", "template", "dist"]
            .iter()
            .any(|kind| name.contains(kind))
        {
            Self::Values
        } else {
            Self::Names
        }
    }
}

/// A setting whose value is a secret wherever it is written.
static SECRET_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)key|token|secret|passw|credential|private|cookie|dsn").expect("a valid pattern"));

/// How a setting is shown: `NAME=value` from an example file, unless its
/// name says it is a secret or its value carries credentials; else its name.
fn setting(name: &str, value: &str, settings: Settings) -> String {
    let credentials = value.contains("://") && value.split("://").nth(1).is_some_and(|rest| rest.contains('@'));
    if settings == Settings::Values && !SECRET_NAME.is_match(name) && !credentials {
        format!("{name}={value}")
    } else {
        name.to_owned()
    }
}

/// The names an edit defined, in order, once each.
fn names_in(text: &str, settings: Settings) -> Vec<String> {
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
                // A function's parameters say what it takes; a type's name is enough.
                let params = found
                    .name("params")
                    .filter(|_| matches!(kw.as_str(), "def" | "defp" | "fn" | "func" | "function"))
                    .map_or("", |params| params.as_str());
                let fields = if matches!(kw.as_str(), "type" | "struct" | "interface") {
                    fields_after(text, found.get(0).map_or(0, |whole| whole.end()))
                } else {
                    String::new()
                };
                format!("{kw} {}{params}{fields}", name.as_str().trim_end_matches([':', '.']))
            }
            (_, _, Some(test), Some(title)) => format!("{} \"{}\"", test.as_str(), title.as_str()),
            _ => match (
                found.name("setting"),
                found.name("value"),
                found.name("property"),
                found.name("css"),
            ) {
                (Some(name), Some(value), _, _) if settings != Settings::None => {
                    setting(name.as_str(), value.as_str(), settings)
                }
                (_, _, Some(property), Some(value)) => format!("{}: {}", property.as_str(), value.as_str().trim()),
                _ => continue,
            },
        };
        let name: String = name.chars().take(NAME_CHARS).collect();
        // A function's later clauses (`def handle_info(:tick, s)`) are the first one's.
        let bare = |name: &str| name.split('(').next().unwrap_or(name).to_owned();
        if !names.iter().any(|known| bare(known) == bare(&name)) {
            names.push(name);
        }
    }
    names
}

/// How much of a document's title and goal is said.
const BRIEF_CHARS: usize = 400;

/// How much of a heading is said.
const HEADING_CHARS: usize = 80;

/// The headings of Markdown text (outside code blocks), without their marks.
fn headings_in(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut headings = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        // `# Title`, `## Part`; not `#123` or `#!/bin/sh`.
        let marks = line.len() - line.trim_start_matches('#').len();
        let Some(heading) = line[marks..]
            .strip_prefix(' ')
            .filter(|_| marks > 0 && marks <= 6 && !in_code)
        else {
            continue;
        };
        let heading = one_line(&heading.trim().replace("**", ""), HEADING_CHARS);
        if !heading.is_empty() && !headings.contains(&heading) {
            headings.push(heading);
        }
    }
    headings
}

/// For each file a tool call changed, the names its added text defines
/// (a Markdown file's: its headings).
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
    // A plan or a note in Markdown quotes code; what it holds is its headings.
    if files.iter().any(|file| file.ends_with(".txt")) {
        return Vec::new();
    }
    let names = if files[0].ends_with(".md") || files[0].ends_with(".markdown") {
        let text = added_text(&parsed);
        let headings = headings_in(&text);
        // A whole document written (a prompt, a plan): what it is for
        // first, then its other headings.
        let whole = ["content", "file_text"].iter().any(|key| parsed.get(*key).is_some());
        match document_brief(&text).filter(|_| whole) {
            Some(brief) => {
                // The title as a heading (clipped as headings are).
                let title = headings_in(text.trim_start().lines().next().unwrap_or_default());
                let sections: Vec<String> = brief[1..].iter().map(|line| line.to_lowercase()).collect();
                let said = |heading: &String| {
                    title.contains(heading)
                        || sections
                            .iter()
                            .any(|line| line.starts_with(&format!("{}:", heading.to_lowercase())))
                };
                std::iter::once(one_line(&brief.join(" — "), BRIEF_CHARS))
                    .chain(headings.into_iter().filter(|heading| !said(heading)))
                    .collect()
            }
            None => headings,
        }
    } else {
        names_in(&added_text(&parsed), Settings::of(&files[0]))
    };
    if names.is_empty() {
        return Vec::new();
    }
    files.into_iter().map(|file| (file, names.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_markdown_file_holds_its_headings() {
        let prompt = serde_json::json!({
            "file_path": "AGENT_TEAM_PHASE9_PROMPT.md",
            "content": "# Phase 9: **Locales** to 39\n\nSome text.\n```sh\n# not a heading\n```\n#123 is no heading\n~~~\n## nor this\n~~~\n## Tasks\n### LOC-1: add zh-Hant\n"
        });
        assert_eq!(
            names_defined("Write", &prompt.to_string()),
            [(
                "AGENT_TEAM_PHASE9_PROMPT.md".to_owned(),
                vec![
                    "Phase 9: Locales to 39".to_owned(),
                    "Tasks".to_owned(),
                    "LOC-1: add zh-Hant".to_owned()
                ]
            )]
        );
    }

    #[test]
    fn a_document_written_whole_says_what_it_is_for_then_its_other_headings() {
        let arguments = serde_json::json!({
            "file_path": "PHASE9_PROMPT.md",
            "content": "# Phase 9 — Locale Sync\n\n## Goal\n\nThis is **Phase 9**.\n\n1. **39 locales everywhere** — Frontend misses zh-Hant.\n\n## Task Summary\n\n| # | Task |\n\n## What REMAINS\n\n### ISSUE-1: Frontend\n"
        });
        assert_eq!(
            names_defined("Write", &arguments.to_string()),
            [(
                "PHASE9_PROMPT.md".to_owned(),
                vec![
                    "Phase 9 — Locale Sync — Goal: 39 locales everywhere — Frontend misses zh-Hant".to_owned(),
                    "Task Summary".to_owned(),
                    "What REMAINS".to_owned(),
                    "ISSUE-1: Frontend".to_owned(),
                ]
            )]
        );
        let caps = serde_json::json!({
            "file_path": "PLAN.md",
            "content": "# Phase 9 — Sync, with a title longer than a heading is ever shown, so that it is clipped\n\n## GOAL\n\n- Sync the locales\n\n## Phase\n"
        });
        assert_eq!(
            names_defined("Write", &caps.to_string())[0].1,
            [
                "Phase 9 — Sync, with a title longer than a heading is ever shown, so that it is clipped — Goal: Sync the locales",
                "Phase"
            ],
            "a heading the title begins with is its own"
        );
        let edit = serde_json::json!({
            "file_path": "PLAN.md",
            "old_string": "x",
            "new_string": "# Phase 9 — Sync\n\n## Goal\n\n- Sync the locales\n"
        });
        assert_eq!(
            names_defined("Edit", &edit.to_string())[0].1,
            ["Phase 9 — Sync", "Goal"],
            "an edit's text is part of a document: its headings"
        );
    }

    #[test]
    fn env_files_and_style_sheets_say_what_they_set() {
        let example = serde_json::json!({
            "file_path": "apps/api/.env.example",
            "content": "# logs\nDEBUG_LOGS=false\nTORRE_API_BASE_URL=https://search.torre.co\nAPI_KEY=changeme\nnot a setting\n"
        });
        assert_eq!(
            names_defined("Write", &example.to_string()),
            [(
                "apps/api/.env.example".to_owned(),
                vec![
                    "DEBUG_LOGS=false".to_owned(),
                    "TORRE_API_BASE_URL=https://search.torre.co".to_owned(),
                    "API_KEY".to_owned()
                ]
            )]
        );
        let real = serde_json::json!({
            "file_path": "apps/api/.env.local",
            "content": "DEBUG_LOGS=true\nDATABASE=postgres://u:hunter2@db/x\n"
        });
        assert_eq!(
            names_defined("Write", &real.to_string()),
            [(
                "apps/api/.env.local".to_owned(),
                vec!["DEBUG_LOGS".to_owned(), "DATABASE".to_owned()]
            )],
            "a real env file's values are never quoted"
        );
        let script = serde_json::json!({
            "file_path": "deploy.sh",
            "content": "export GITHUB_TOKEN=ghp_abc123\nGITHUB_TOKEN=ghp_abc123\n"
        });
        assert!(
            names_defined("Write", &script.to_string()).is_empty(),
            "a script's assignments are no settings of its own"
        );
        let css = serde_json::json!({
            "file_path": "priv/static/assets/spotter.css",
            "content": ":root {\n  --transcript-bg: #f8fafc;\n  --transcript-text: #0f172a;\n}\n.row { color: red; }\n"
        });
        assert_eq!(
            names_defined("Write", &css.to_string()),
            [(
                "priv/static/assets/spotter.css".to_owned(),
                vec![
                    "--transcript-bg: #f8fafc".to_owned(),
                    "--transcript-text: #0f172a".to_owned()
                ]
            )]
        );
    }

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
                    "def close(annotation)".to_owned()
                ]
            )]
        );
    }

    #[test]
    fn a_type_says_its_fields_and_a_plan_in_markdown_defines_nothing() {
        let write = serde_json::json!({
            "file_path": "cmd/entire/cli/checkpoint/checkpoint.go",
            "content": "// InitialAttribution is a snapshot.\ntype InitialAttribution struct {\n\t// when\n\tCalculatedAt time.Time `json:\"calculated_at\"`\n\tAgentLines int `json:\"agent_lines\"`\n\tHumanAdded int\n}\n\ninterface Props {\n  title: string;\n  onClose?: () => void;\n}\n"
        });
        assert_eq!(
            names_defined("Write", &write.to_string()),
            [(
                "cmd/entire/cli/checkpoint/checkpoint.go".to_owned(),
                vec![
                    "type InitialAttribution {CalculatedAt, AgentLines, HumanAdded}".to_owned(),
                    "interface Props {title, onClose}".to_owned()
                ]
            )]
        );
        let plan = serde_json::json!({"file_path": "/Users/s/.claude/plans/sloth.md", "content": "```go\nfunc CalculateAttribution() {}\n```"});
        assert!(names_defined("Write", &plan.to_string()).is_empty());
    }

    #[test]
    fn a_functions_later_clauses_are_named_once() {
        let edit = serde_json::json!({
            "file_path": "lib/session_live.ex",
            "new_string": "  def handle_info(:check_pane, socket) do\n  end\n  def handle_info({:registered, id}, socket) do\n  end\n"
        });
        assert_eq!(
            names_defined("Edit", &edit.to_string()),
            [(
                "lib/session_live.ex".to_owned(),
                vec!["def handle_info(:check_pane, socket)".to_owned()]
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
                vec![
                    "func CalculateAttribution(a int)".to_owned(),
                    "type Attribution".to_owned()
                ]
            )]
        );
        let patch = "*** Begin Patch\n*** Update File: src/retry.ts\n@@\n-const a = 1;\n+export async function backoff(ms: number) {\n+describe('backoff', () => {\n*** End Patch";
        assert_eq!(
            names_defined("apply_patch", patch),
            [(
                "src/retry.ts".to_owned(),
                vec![
                    "function backoff(ms: number)".to_owned(),
                    "describe \"backoff\"".to_owned()
                ]
            )]
        );
        assert!(names_defined("Edit", r#"{"file_path":"a.md","new_string":"Just prose."}"#).is_empty());
    }
}
