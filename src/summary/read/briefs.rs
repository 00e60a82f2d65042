//! What the agent read about its task (SPEC §4, extractive lines): an
//! issue, a ticket or a pull request shown by a tracker's command (`bd
//! show`, `gh issue view`, `gh pr view`, `glab`, `jira`, `linear`) or an
//! issue tool — its title, and the sections that bound the work (goal,
//! scope, constraints, no-gos, acceptance, what is left: its children).
//! These requirements live only in tool output, so a summary that names
//! files but not them loses what the work is for.

use std::sync::LazyLock;

use regex::Regex;

use super::commands::steps;
use super::sentences::{one_line, sentences};
use super::tool_calls::tool_name;

/// A title is shown up to this many characters…
const TITLE_CHARS: usize = 160;
/// …each point of a section up to this many…
const POINT_CHARS: usize = 160;
/// …and this many points of a section.
const POINTS: usize = 4;
/// The sections a brief keeps, at most.
const SECTIONS: usize = 4;

/// Trackers whose `show`/`view` prints an issue (`gh`, `glab` and `tea`
/// name what they show first: `gh issue view`).
const TRACKERS: &[&str] = &["bd", "jira", "linear", "br"];

/// Sections that bound the work, most telling first: what it is for, what
/// it must not do, what it must hold to, when it is done, what is left.
static KEY_SECTIONS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)\b(?:goals?|problem|summary|objective|purpose)\b",
        r"(?i)\b(?:scope|no-?gos?|non-?goals?|out of scope)\b",
        r"(?i)\b(?:constraints?|requirements?|must)\b",
        r"(?i)\b(?:acceptance|definition of done)\b",
        r"(?i)\b(?:children|sub-?tasks|blocked by|depends on|dependencies)\b",
        r"(?i)\b(?:solution|approach)\b",
    ]
    .iter()
    .map(|pattern| Regex::new(pattern).expect("a valid pattern"))
    .collect()
});

/// How telling a section is (lower first), or `None` when it is not kept.
fn rank(section: &str) -> Option<usize> {
    KEY_SECTIONS.iter().position(|pattern| pattern.is_match(section))
}

/// A brief's sections take up to this many characters together.
const BRIEF_CHARS: usize = 700;
/// `## Goal`, `Architecture constraints:`, `DESCRIPTION`.
static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\A\s*(?:#{1,6}\s*(?P<md>[^#].*?)\s*|(?P<label>[A-Z][\w /&()-]{2,48}):\s*|(?P<caps>[A-Z][A-Z /-]{3,40}))\z",
    )
    .expect("a valid pattern")
});
static BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\A(?:[-*•]|\d{1,2}[.)]|↳)\s+(.*)\z").expect("a valid pattern"));
/// An issue tool's name: `get_issue`, `mcp__linear__get_issue`, `view_pull_request`.
static ISSUE_TOOL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\A(?:get|view|show|read|list|search|find)_?(?:issues?|tickets?|pull_?requests?|prs?|tasks?|stor(?:y|ies))\z").expect("a valid pattern")
});

/// Whether a call shows an issue, a ticket or a pull request: an issue
/// tool, or a tracker's `show`/`view` of one (`bd show X`, `gh issue view
/// 12`, `gh pr view 174`, `glab mr view 3`; not `gh run view`, `gh repo view`).
pub(crate) fn shows_issue(tool: &str, command: Option<&str>) -> bool {
    if ISSUE_TOOL.is_match(tool_name(tool)) {
        return true;
    }
    let Some(command) = command else {
        return false;
    };
    steps(command).iter().any(|step| {
        let words: Vec<&str> = step.split_whitespace().collect();
        match words.as_slice() {
            ["gh" | "glab" | "tea", noun, verb, ..] => {
                matches!(*noun, "issue" | "pr" | "mr") && matches!(*verb, "view" | "show")
            }
            [program, rest @ ..] if TRACKERS.contains(program) => {
                rest.iter().take(3).any(|word| matches!(*word, "show" | "view"))
            }
            _ => false,
        }
    })
}

/// A line as a point: markup and symbols off its ends, clipped.
fn point(text: &str) -> String {
    let text = text
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric() && c != '`' && c != '*');
    let text = text.replace("**", "");
    let text = match text.trim().strip_suffix('.') {
        Some(stripped) if !stripped.ends_with('.') => stripped.to_owned(),
        _ => text.trim().to_owned(),
    };
    one_line(&text, POINT_CHARS)
}

/// A heading as a label: `CHILDREN` as `Children`.
fn label(name: &str) -> String {
    let name = name.trim_start_matches('#').trim();
    if name.chars().any(char::is_lowercase) {
        return name.to_owned();
    }
    let lower = name.to_lowercase();
    let mut chars = lower.chars();
    chars
        .next()
        .map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// One issue of a result: its title and its key sections, each as a line.
fn brief(text: &str) -> Vec<String> {
    let mut lines = text.lines().map(str::trim_end).filter(|line| !line.trim().is_empty());
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    // `gh issue view` prints `title:\t…`; a `--json` query, `Title: …`.
    let first = first.trim();
    let title = match first.split_once(':') {
        Some((label, rest)) if label.eq_ignore_ascii_case("title") => rest.trim(),
        _ => first,
    };
    let mut out = vec![one_line(&point(title), TITLE_CHARS)];
    let mut section: Option<(String, Vec<String>, String)> = None;
    let mut sections: Vec<(String, Vec<String>, String)> = Vec::new();
    for line in lines {
        if let Some(found) = HEADING.captures(line) {
            let name = found
                .name("md")
                .or(found.name("label"))
                .or(found.name("caps"))
                .map_or("", |m| m.as_str())
                .trim_end_matches(':')
                .to_owned();
            sections.extend(section.take());
            if rank(&name).is_some() {
                section = Some((name, Vec::new(), String::new()));
            }
            continue;
        }
        let Some((_, points, prose)) = section.as_mut() else {
            continue;
        };
        // Top-level points only: a nested one details the point above it.
        let nested = line.starts_with("   ") && !line.trim_start().starts_with('↳');
        match BULLET.captures(line.trim()) {
            Some(found) if !nested => points.push(point(&found[1])),
            None if points.is_empty() => {
                prose.push(' ');
                prose.push_str(line.trim());
            }
            _ => {}
        }
    }
    sections.extend(section);
    sections.sort_by_key(|(name, _, _)| rank(name));
    let mut room = BRIEF_CHARS;
    for (name, points, prose) in sections.into_iter().take(SECTIONS) {
        let said = if points.is_empty() {
            sentences(&prose)
                .into_iter()
                .next()
                .map(|s| one_line(&s, POINT_CHARS * 2))
        } else {
            let more = points.len().saturating_sub(POINTS);
            let mut shown: Vec<String> = points.into_iter().take(POINTS).collect();
            if more > 0 {
                shown.push(format!("{more} more"));
            }
            Some(shown.join("; "))
        };
        if let Some(said) = said.filter(|s| !s.is_empty()) {
            let line = format!("{}: {said}", label(&name));
            if line.chars().count() > room {
                break;
            }
            room -= line.chars().count();
            out.push(line);
        }
    }
    out
}

/// What a Markdown document the agent wrote holds, read as an issue is:
/// its title (its first `# ` heading) and the sections that bound the work
/// (a prompt's or a plan's goal, scope, acceptance), when it has any.
pub(crate) fn document_brief(text: &str) -> Option<Vec<String>> {
    // The title's marks off, the rest as it is.
    let said = brief(text.trim_start().strip_prefix("# ")?);
    (said.len() >= 2).then_some(said)
}

/// Whether a line only separates the issues a command printed (`===`;
/// a `---` is a rule inside an issue's own text).
fn is_separator(line: &str) -> bool {
    let line = line.trim();
    line.len() >= 3 && line.chars().all(|c| c == '=')
}

/// An issue a tool answered as JSON (`{"identifier", "title",
/// "description"}`, or a list of them), as a tracker prints it.
fn from_json(result: &str) -> Option<String> {
    let parsed: serde_json::Value = serde_json::from_str(result.trim()).ok()?;
    let issues: Vec<&serde_json::Value> = match &parsed {
        serde_json::Value::Array(items) => items.iter().collect(),
        serde_json::Value::Object(object) => match object.values().find(|v| v.is_array()) {
            Some(serde_json::Value::Array(items)) if !object.contains_key("title") => items.iter().collect(),
            _ => vec![&parsed],
        },
        _ => return None,
    };
    let field = |issue: &serde_json::Value, keys: &[&str]| {
        keys.iter()
            .find_map(|key| issue.get(*key).and_then(serde_json::Value::as_str))
            .map(str::to_owned)
    };
    let printed: Vec<String> = issues
        .iter()
        .filter_map(|issue| {
            let title = field(issue, &["title", "name", "summary"])?;
            let id = field(issue, &["identifier", "key", "number"]).map_or(String::new(), |id| format!("{id} · "));
            let body = field(issue, &["description", "body"]).unwrap_or_default();
            Some(format!("{id}{title}\n{body}"))
        })
        .collect();
    (!printed.is_empty()).then(|| printed.join("\n===\n"))
}

/// The most briefs one result gives (a listing shows many issues).
const BRIEFS_PER_RESULT: usize = 3;

/// The briefs a result holds, one per issue it shows (the first few): each
/// its title and its key sections.
pub(crate) fn briefs(result: &str) -> Vec<Vec<String>> {
    let is_json = serde_json::from_str::<serde_json::Value>(result.trim()).is_ok();
    let printed = from_json(result);
    let result = match (&printed, is_json) {
        (Some(printed), _) => printed.as_str(),
        // JSON with no issue in it (no title) is no brief.
        (None, true) => return Vec::new(),
        (None, false) => result,
    };
    let mut issues: Vec<String> = vec![String::new()];
    for line in result.lines() {
        if is_separator(line) {
            issues.push(String::new());
        } else if let Some(last) = issues.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    issues
        .iter()
        .filter(|issue| !issue.trim().is_empty())
        .map(|issue| brief(issue))
        .filter(|lines| !lines.is_empty())
        .take(BRIEFS_PER_RESULT)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_the_agent_wrote_says_its_title_and_goal() {
        let prompt = "# Phase 9 — Locale Sync\n\n> Requires `AGENT_TEAMS=1`.\n\n## Goal\n\nThis is **Phase 9**. It closes the last gap:\n\n1. **39 locales everywhere** — Frontend misses zh-Hant.\n2. **Bot middleware** — load all 39.\n\n## Task Summary\n\n| # | Task |\n|---|---|\n| 1 | Add zh-Hant |\n";
        assert_eq!(
            document_brief(prompt).unwrap(),
            [
                "Phase 9 — Locale Sync",
                "Goal: 39 locales everywhere — Frontend misses zh-Hant; Bot middleware — load all 39"
            ]
        );
        assert_eq!(document_brief("Some notes.\n## Goal\nx"), None, "no title");
        assert_eq!(
            document_brief("# Notes\n\n## Ideas\n- one"),
            None,
            "nothing that bounds work"
        );
    }

    const EPIC: &str = "○ spotter-fum [EPIC] · Improve Session Transcript Readability   [● P2 · OPEN]
Owner: Marco Rotili · Type: epic

DESCRIPTION
## Problem
The session transcript panel is hard to scan because it uses dense dark styling. Thinking content is not distinct.

## Rabbit Holes
- Overfitting heuristics for code detection.

## No-gos
- No new route/page for subagent transcripts in this epic.
- No scope expansion to `PaneViewLive`.
- No database schema migration.

CHILDREN
  ↳ ○ spotter-fum.1: Enrich TranscriptRenderer with metadata ● P2
  ↳ ○ spotter-fum.2: Rebuild SessionLive transcript panel ● P2
===
○ spotter-fum.3 · Integrate highlight.js   [● P2 · OPEN]

Architecture constraints:
- Server renders; JS only enhances.
- No CDN.
";

    #[test]
    fn tracker_commands_and_issue_tools_show_issues() {
        assert!(shows_issue(
            "Bash",
            Some("bd show spotter-gqc.5; echo ===; bd show spotter-gqc.6")
        ));
        assert!(shows_issue("Bash", Some("gh pr view 174 --json title,body")));
        assert!(shows_issue("Bash", Some("glab mr view 3")));
        assert!(shows_issue("mcp__linear__get_issue", None));
        for not_an_issue in [
            "bd ready",
            "git show HEAD",
            "gh run view 991 --log-failed",
            "gh repo view",
            "gh release view v1.2",
            "gh workflow view ci.yml",
        ] {
            assert!(!shows_issue("Bash", Some(not_an_issue)), "{not_an_issue}");
        }
        assert!(!shows_issue("Read", None));
    }

    #[test]
    fn a_listing_gives_a_few_briefs_and_json_with_no_issue_none() {
        let listing = (1..=30)
            .map(|n| format!("{{\"identifier\":\"ENT-{n}\",\"title\":\"Issue {n}\"}}"))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(briefs(&format!("{{\"issues\":[{listing}]}}")).len(), BRIEFS_PER_RESULT);
        assert!(briefs(r###"{"body":"## Goal\nDo it."}"###).is_empty());
    }

    #[test]
    fn a_brief_is_the_title_and_the_sections_that_bound_the_work() {
        assert_eq!(
            briefs(EPIC),
            [
                vec![
                    "spotter-fum [EPIC] · Improve Session Transcript Readability [● P2 · OPEN]".to_owned(),
                    "Problem: The session transcript panel is hard to scan because it uses dense dark styling.".to_owned(),
                    "No-gos: No new route/page for subagent transcripts in this epic; No scope expansion to `PaneViewLive`; No database schema migration".to_owned(),
                    "Children: spotter-fum.1: Enrich TranscriptRenderer with metadata ● P2; spotter-fum.2: Rebuild SessionLive transcript panel ● P2".to_owned(),
                ],
                vec![
                    "spotter-fum.3 · Integrate highlight.js [● P2 · OPEN]".to_owned(),
                    "Architecture constraints: Server renders; JS only enhances; No CDN".to_owned(),
                ],
            ]
        );
    }

    #[test]
    fn an_issue_tool_answering_json_is_read_as_its_tracker_prints_it() {
        let result = r###"{"issues":[{"id":"2ceb","identifier":"ENT-250","title":"Introduce ActionHandler interface","description":"## Problem\n\nCallers must handle every action.\n\n## Out of scope\n- Changing the phases"}]}"###;
        assert_eq!(
            briefs(result),
            [vec![
                "ENT-250 · Introduce ActionHandler interface".to_owned(),
                "Problem: Callers must handle every action.".to_owned(),
                "Out of scope: Changing the phases".to_owned(),
            ]]
        );
    }

    #[test]
    fn gh_issue_views_labelled_fields_give_its_title() {
        let shown =
            briefs("title:\tBilling retries give up early (PROJ-410)\nstate:\tOPEN\n--\n## Goal\nOutlast a 2s hiccup.");
        assert_eq!(
            shown,
            [vec![
                "Billing retries give up early (PROJ-410)".to_owned(),
                "Goal: Outlast a 2s hiccup.".to_owned()
            ]]
        );
    }

    #[test]
    fn a_pull_request_shown_as_json_fields_has_its_title() {
        let shown = briefs(
            "Title: Cleanup: session state helpers (ENT-221)\nState: OPEN\nBody:\n## Summary\n\n- **Replace `current_session` file** with `FindMostRecentSession()`\n- **Add `TransitionAndLog()`** as single entry point\n\n## Test plan\n- go test ./...",
        );
        assert_eq!(
            shown,
            [vec![
                "Cleanup: session state helpers (ENT-221)".to_owned(),
                "Summary: Replace `current_session` file with `FindMostRecentSession()`; Add `TransitionAndLog()` as single entry point".to_owned(),
            ]]
        );
    }
}
