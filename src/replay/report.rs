//! What a replay found: each compaction (trigger, tokens before and after,
//! the keep guard's figures), and at the end how many of the session's
//! items — by kind and by who said them — the final summary still holds
//! word for word, beside the session's own harness summaries where it had
//! any. Printed for a person (`super::render`), or as JSON for scripts.

use serde::Serialize;
use serde_json::Value;

use crate::sessions::Session;
use crate::summary::keep::{KeepItem, KeepKind, Source, Tier};
use crate::summary::write::Presence;

/// Items kept out of items seen, for one group.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Row {
    pub group: &'static str,
    pub items: u64,
    pub kept: u64,
}

/// Survival of a keep set's items in one text.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Figures {
    /// By what the item is (and, for names, who named it).
    pub by_kind: Vec<Row>,
    /// By where each item was seen first.
    pub by_source: Vec<Row>,
}

fn group_of(item: &KeepItem) -> &'static str {
    match (item.tier(), item.kind) {
        (_, KeepKind::Request) => "latest request",
        (_, KeepKind::Prohibition) => "prohibitions",
        (Some(Tier::NamedByUser), KeepKind::Path) => "paths the user named",
        (Some(Tier::NamedByUser), KeepKind::Url) => "URLs the user named",
        (Some(Tier::NamedByUser), KeepKind::Id) => "ids the user named",
        (Some(Tier::NamedByUser), KeepKind::Command) => "commands the user named",
        (Some(Tier::NamedByUser), KeepKind::Quantity) => "quantities the user named",
        (_, KeepKind::FileChanged) => "files changed",
        (Some(Tier::NamedByAssistant), _) => "named by the agent",
        (Some(Tier::SeenInToolOutput), _) => "tool output, mentioned again",
        _ => "tool output only",
    }
}

const KIND_GROUPS: [&str; 11] = [
    "latest request",
    "prohibitions",
    "paths the user named",
    "URLs the user named",
    "ids the user named",
    "commands the user named",
    "quantities the user named",
    "files changed",
    "named by the agent",
    "tool output, mentioned again",
    "tool output only",
];

impl Figures {
    pub(crate) fn measure(items: &[KeepItem], text: &str) -> Self {
        let presence = Presence::of(text);
        let tally = |groups: &[&'static str], group: &dyn Fn(&KeepItem) -> &'static str| -> Vec<Row> {
            groups
                .iter()
                .map(|name| {
                    let members: Vec<&KeepItem> = items.iter().filter(|item| group(item) == *name).collect();
                    Row {
                        group: name,
                        items: members.len() as u64,
                        kept: members.iter().filter(|item| presence.holds(item)).count() as u64,
                    }
                })
                .filter(|row| row.items > 0)
                .collect()
        };
        let sources: Vec<&'static str> = Source::ALL.iter().map(|s| s.as_str()).collect();
        Self {
            by_kind: tally(&KIND_GROUPS, &group_of),
            by_source: tally(&sources, &|item: &KeepItem| item.source.as_str()),
        }
    }

    pub fn row(&self, group: &str) -> Option<&Row> {
        self.by_kind
            .iter()
            .chain(&self.by_source)
            .find(|row| row.group == group)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RolledOver {
    /// After this many turns of the session.
    pub turn: usize,
    /// The guard `/decide` named (`failing`, `too_soon`, …), if one.
    pub guard: Option<String>,
    /// The conversation it went on in.
    pub successor: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Compacted {
    /// After this many turns of the session.
    pub turn: usize,
    pub conversation: String,
    /// Why the replay compacted there: `policy` (compactd's `/decide`),
    /// `every` (`--every N`), `harness` (where the session's own harness
    /// compacted) or `final` (what the agent is left with at the end).
    pub origin: &'static str,
    pub trigger: String,
    pub success: bool,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub summary_tokens: u64,
    /// Two identical runs give identical summaries: compare these (the
    /// conversation's id, which differs from run to run, left out).
    pub summary_sha256: String,
    /// It merged a summary prepared ahead.
    pub prepared: bool,
    /// The ledger's keep figures.
    pub keep: Value,
    /// Who wrote it (`llm`, `extractive`), and why not the model when one
    /// is configured (its context could not hold the conversation).
    pub summarizer: String,
    pub fallback: Option<String>,
    /// Upstream calls it took (more than one: chunked).
    pub upstream_calls: Option<u64>,
    pub duration_ms: u64,
    /// Why it failed.
    pub error: Option<String>,
}

/// The session's own compaction summary beside compactd's at the same point.
#[derive(Debug, Clone, Serialize)]
pub struct HarnessComparison {
    pub before_turn: usize,
    pub theirs: Figures,
    pub ours: Figures,
    /// The two summaries themselves, for a reader to set side by side
    /// (`bench/probes` grades them).
    pub theirs_text: String,
    pub ours_text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionReport {
    pub file: String,
    pub format: &'static str,
    pub turns: usize,
    /// Tokens counted from the session's text.
    pub transcript_tokens: u64,
    /// The largest context the session's harness recorded, where it kept
    /// count (Claude Code's `usage`, Codex's `token_count`): the replay
    /// measures the context by those records.
    pub recorded_peak: Option<u64>,
    pub window: u64,
    pub budget: u64,
    pub compactions: Vec<Compacted>,
    /// Where the conversation rolled over, and why.
    pub rollovers: Vec<RolledOver>,
    pub final_conversation: String,
    pub final_tokens: u64,
    /// What the agent is left with: the last summary (or handoff) of the lineage.
    pub final_summary: String,
    pub final_survival: Figures,
    pub harness: Vec<HarnessComparison>,
}

impl SessionReport {
    pub(crate) fn new(session: &Session, window: u64, budget: u64) -> Self {
        Self {
            file: session.name.clone(),
            format: session.format.as_str(),
            turns: session.turns.len(),
            transcript_tokens: 0,
            recorded_peak: None,
            window,
            budget,
            compactions: Vec::new(),
            rollovers: Vec::new(),
            final_conversation: String::new(),
            final_tokens: 0,
            final_summary: String::new(),
            final_survival: Figures::default(),
            harness: Vec::new(),
        }
    }

    pub fn over_budget(&self) -> usize {
        self.compactions
            .iter()
            .filter(|c| c.success && c.summary_tokens > self.budget)
            .count()
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::summary::keep::{KeepSet, Place, Sighting};

    fn set() -> KeepSet {
        let mut set = KeepSet::default();
        let place = Place::of_turn(1);
        for (kind, text, source) in [
            (KeepKind::Path, "src/a.rs", Source::User),
            (KeepKind::Path, "src/b.rs", Source::User),
            (KeepKind::Prohibition, "Never push.", Source::User),
            (KeepKind::Path, "vendor/x.js", Source::ToolResult),
        ] {
            set.observe(&[Sighting::new(kind, text, source)], &place);
        }
        set
    }

    #[test]
    fn survival_is_counted_by_group_and_source() {
        let figures = Figures::measure(set().items(), "Edited src/a.rs. Never push.");
        assert_eq!(
            figures.row("paths the user named"),
            Some(&Row {
                group: "paths the user named",
                items: 2,
                kept: 1
            })
        );
        assert_eq!(figures.row("prohibitions").map(|r| r.kept), Some(1));
        assert_eq!(figures.row("tool output only").map(|r| (r.items, r.kept)), Some((1, 0)));
        assert_eq!(figures.row("user").map(|r| (r.items, r.kept)), Some((3, 2)));
    }
}
