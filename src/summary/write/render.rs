//! How the keep guard's items are written (SPEC §4): under its pinned
//! heading, each rule on a line of its own, named items one line per kind
//! (and one per tier past the narrative), in tier order; files changed
//! named from the folder most of them share. Where the sections go is
//! [`super::layout`]'s.

use std::collections::BTreeMap;

use super::narrative::KEPT_HEADING;
use crate::summary::keep::set::{KeepItem, Tier};
use crate::summary::kinds::KeepKind;

/// The line an item is appended on: tier 1 and 2 items each have their
/// own; named items share one line per kind (or per tier past the narrative).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Line {
    Request,
    Rule,
    Named(KeepKind),
    FilesChanged,
    ByAssistant,
    InToolOutput,
}

impl Line {
    pub(super) fn of(tier: Tier, kind: KeepKind) -> Self {
        match tier {
            Tier::Request => Self::Request,
            Tier::Prohibition => Self::Rule,
            Tier::NamedByUser => Self::Named(kind),
            Tier::FileChanged => Self::FilesChanged,
            Tier::NamedByAssistant => Self::ByAssistant,
            Tier::SeenInToolOutput => Self::InToolOutput,
        }
    }

    pub(super) fn label(self) -> &'static str {
        match self {
            Self::Request => "- Latest request: ",
            Self::Rule => "- Rule: ",
            Self::Named(KeepKind::Path) => "- Paths: ",
            Self::Named(KeepKind::Url) => "- URLs: ",
            Self::Named(KeepKind::Id) => "- Ids: ",
            Self::Named(KeepKind::Command) => "- Commands: ",
            Self::Named(_) => "- Quantities: ",
            Self::FilesChanged => "- Files changed: ",
            Self::ByAssistant => "- Also named by the agent: ",
            Self::InToolOutput => "- Seen in tool output and mentioned again: ",
        }
    }

    /// Rules and the request stand one to a line.
    pub(super) fn one_per_line(self) -> bool {
        matches!(self, Self::Request | Self::Rule)
    }

    /// What a reader who already holds a summary needs first (issue 22):
    /// the files changed, then what the user said, then the rest.
    pub(super) fn value_rank(self) -> u8 {
        match self {
            Self::FilesChanged => 0,
            Self::Request => 1,
            Self::Rule => 2,
            Self::Named(_) => 3,
            Self::ByAssistant => 4,
            Self::InToolOutput => 5,
        }
    }

    /// The line `text` is, by how it opens.
    pub(super) fn of_rendered(text: &str) -> Option<Self> {
        if text.starts_with(FILES_UNDER) {
            return Some(Self::FilesChanged);
        }
        let named = [
            KeepKind::Path,
            KeepKind::Url,
            KeepKind::Id,
            KeepKind::Command,
            KeepKind::Quantity,
        ]
        .map(Self::Named);
        [
            Self::Request,
            Self::Rule,
            Self::FilesChanged,
            Self::ByAssistant,
            Self::InToolOutput,
        ]
        .into_iter()
        .chain(named)
        .find(|line| text.starts_with(line.label()))
    }

    pub(super) fn separator(self) -> &'static str {
        match self {
            Self::Named(KeepKind::Path | KeepKind::Url | KeepKind::Id | KeepKind::Quantity) | Self::FilesChanged => {
                ", "
            }
            _ => "; ",
        }
    }
}

/// How the files changed line opens when it names its files from the
/// folder most of them lie in: `- Files changed (under /repo/): src/a.rs, …`.
const FILES_UNDER: &str = "- Files changed (under ";
const FILES_UNDER_END: &str = "): ";

/// A file named from `root`, or whole when it lies elsewhere.
pub(super) fn from_root<'t>(file: &'t str, root: Option<&str>) -> &'t str {
    root.and_then(|root| file.strip_prefix(root))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(file)
}

/// The folder to name `files` from: the one whose name, said once instead
/// of before each file in it, saves the most (three files in it at least;
/// the longer folder where two save as much).
pub(super) fn common_root(files: &[&str]) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for file in files {
        for (at, _) in file.match_indices('/').filter(|(at, _)| *at > 0) {
            *counts.entry(&file[..=at]).or_default() += 1;
        }
    }
    let overhead = FILES_UNDER.len() + FILES_UNDER_END.len() - Line::FilesChanged.label().len();
    counts
        .into_iter()
        .filter(|(root, n)| *n >= 3 && root.trim_matches('/').contains('/'))
        .map(|(root, n)| (root.len() * n, root))
        .filter(|(saved, root)| *saved > root.len() + overhead)
        .max_by_key(|(saved, root)| (*saved, root.len()))
        .map(|(_, root)| root.to_owned())
}

/// The files changed line: those in the folder most of them share named
/// from it, the rest whole on a line of their own (a path relative to the
/// project, as Codex's patches name them, would read as inside the folder).
/// A file named both whole and from the project (`/repo/src/a.rs`, `src/a.rs`)
/// reads once.
fn files_lines(files: &[&str]) -> String {
    let root = common_root(files);
    let separator = Line::FilesChanged.separator();
    let (mut under, mut elsewhere): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for file in files {
        match root
            .as_deref()
            .and_then(|root| file.strip_prefix(root))
            .filter(|rest| !rest.is_empty())
        {
            Some(rest) if !under.contains(&rest) => under.push(rest),
            Some(_) => {}
            None if !elsewhere.contains(file) => elsewhere.push(file),
            None => {}
        }
    }
    elsewhere.retain(|file| !under.contains(file));
    let mut lines = Vec::new();
    if let Some(root) = root.as_deref().filter(|_| !under.is_empty()) {
        lines.push(format!("{}{}", files_label(Some(root)), under.join(separator)));
    }
    if !elsewhere.is_empty() {
        lines.push(format!("{}{}", Line::FilesChanged.label(), elsewhere.join(separator)));
    }
    lines.join("\n")
}

/// How the files changed line opens: from their common folder, if any.
pub(super) fn files_label(root: Option<&str>) -> String {
    match root {
        Some(root) => format!("{FILES_UNDER}{root}{FILES_UNDER_END}"),
        None => Line::FilesChanged.label().to_owned(),
    }
}

/// `summary` with each files changed line named from a folder also written
/// out whole, file by file, after it: what a reader checking word for word
/// needs (a file named relative to the project, as Codex's patches name
/// them, is still found on the line as it stands).
pub(super) fn expanded(summary: &str) -> std::borrow::Cow<'_, str> {
    if !summary.contains(FILES_UNDER) {
        return std::borrow::Cow::Borrowed(summary);
    }
    let mut whole_lines: Vec<String> = Vec::new();
    for line in summary.lines() {
        let Some((root, files)) = line
            .strip_prefix(FILES_UNDER)
            .and_then(|rest| rest.split_once(FILES_UNDER_END))
        else {
            continue;
        };
        let whole: Vec<String> = files
            .split(Line::FilesChanged.separator())
            .map(|file| {
                if file.starts_with(['/', '~']) {
                    file.to_owned()
                } else {
                    format!("{root}{file}")
                }
            })
            .collect();
        whole_lines.push(format!(
            "{}{}",
            Line::FilesChanged.label(),
            whole.join(Line::FilesChanged.separator())
        ));
    }
    std::borrow::Cow::Owned(format!("{summary}\n{}", whole_lines.join("\n")))
}

/// An item the summary may carry, with its tier and the line it goes on.
pub(super) struct Candidate<'a> {
    pub(super) tier: Tier,
    pub(super) line: Line,
    pub(super) item: &'a KeepItem,
}

/// The appended section for `chosen` (in tier order; the request goes in
/// the state section instead), or "" when empty.
pub(super) fn render(chosen: &[&Candidate]) -> String {
    let mut lines: BTreeMap<Line, Vec<&str>> = BTreeMap::new();
    let mut singles: Vec<(Line, &str)> = Vec::new();
    for candidate in chosen.iter().filter(|c| c.line != Line::Request) {
        if candidate.line.one_per_line() {
            singles.push((candidate.line, candidate.item.text.as_str()));
        } else {
            lines
                .entry(candidate.line)
                .or_default()
                .push(candidate.item.text.as_str());
        }
    }
    if singles.is_empty() && lines.is_empty() {
        return String::new();
    }
    let mut out = vec![KEPT_HEADING.to_owned()];
    singles.sort_by_key(|(line, _)| *line);
    out.extend(singles.iter().map(|(line, text)| format!("{}{text}", line.label())));
    out.extend(lines.iter().map(|(line, texts)| {
        if *line == Line::FilesChanged {
            files_lines(texts)
        } else {
            format!("{}{}", line.label(), texts.join(line.separator()))
        }
    }));
    out.join("\n")
}
