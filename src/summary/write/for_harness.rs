//! The keep guard's items for an agent that already has a summary of its
//! own (issue 22): a harness compacted by itself and the hook gives back
//! what its summary left out, most useful first.

use super::narrative::KEPT_HEADING;
use super::render::Line;
use crate::summary::read::state::STATE_HEADING;

/// What the keep guard appended to an empty narrative (`POST …/keep/check`)
/// reordered for a harness whose agent already has its own summary: every
/// item under one heading, files changed first, then the user's request,
/// rules and named items, then what the agent named and tool output; the
/// parked line last, as it stood. An item runs from its label to the next
/// (a request or a rule may hold lines and paragraphs of its own).
pub fn by_value(appended: &str) -> String {
    let (body, parked) = match appended.rsplit_once("\n\n") {
        Some((body, last)) if is_parked_line(last) => (body, Some(last)),
        _ if is_parked_line(appended) => ("", Some(appended)),
        _ => (appended, None),
    };
    let mut items: Vec<(u8, Vec<&str>)> = Vec::new();
    let mut before: Vec<&str> = Vec::new();
    for line in body.lines() {
        if line == KEPT_HEADING || line == STATE_HEADING {
            continue;
        }
        match (Line::of_rendered(line), items.last_mut()) {
            (Some(kind), _) => items.push((kind.value_rank(), vec![line])),
            (None, Some((_, item))) => item.push(line),
            (None, None) => before.push(line),
        }
    }
    // Stable: within a rank, the order the guard gave them.
    items.sort_by_key(|(rank, _)| *rank);
    let mut parts: Vec<String> = Vec::new();
    let before = before.join("\n");
    if !before.trim().is_empty() {
        parts.push(before.trim().to_owned());
    }
    if !items.is_empty() {
        let lines: Vec<String> = items
            .iter()
            .map(|(_, lines)| lines.join("\n").trim_end().to_owned())
            .collect();
        parts.push(format!("{KEPT_HEADING}\n{}", lines.join("\n")));
    }
    parts.extend(parked.map(str::to_owned));
    parts.join("\n\n")
}

/// The guard's last line, saying what is parked and where.
fn is_parked_line(text: &str) -> bool {
    text.starts_with('(') && text.ends_with(".)") && text.contains(" parked") && !text.contains('\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_changed_come_first_then_the_users_items_then_the_rest() {
        let appended = format!(
            "{STATE_HEADING}\n- Latest request: Ship it.\n\n{KEPT_HEADING}\n- Rule: Never push to main.\n- Paths: src/a.rs\n- Ids: PROJ-4\n- Files changed: src/b.rs, src/c.rs\n- Also named by the agent: docs/x.md\n- Seen in tool output and mentioned again: 0xdeadbeef1\n\n(3 more items are parked for conversation \"c\": get_keep_set lists them all.)"
        );
        assert_eq!(
            by_value(&appended),
            format!(
                "{KEPT_HEADING}\n- Files changed: src/b.rs, src/c.rs\n- Latest request: Ship it.\n- Rule: Never push to main.\n- Paths: src/a.rs\n- Ids: PROJ-4\n- Also named by the agent: docs/x.md\n- Seen in tool output and mentioned again: 0xdeadbeef1\n\n(3 more items are parked for conversation \"c\": get_keep_set lists them all.)"
            )
        );
    }

    #[test]
    fn files_named_from_their_folder_and_several_rules_keep_their_order() {
        let appended = format!(
            "{KEPT_HEADING}\n- Rule: Don't touch Cargo.lock.\n- Rule: Never force-push.\n- URLs: https://ci.example.com/runs/1\n- Files changed (under /repo/src/): a.rs, b.rs, c.rs\n- Files changed: /etc/hosts"
        );
        assert_eq!(
            by_value(&appended),
            format!(
                "{KEPT_HEADING}\n- Files changed (under /repo/src/): a.rs, b.rs, c.rs\n- Files changed: /etc/hosts\n- Rule: Don't touch Cargo.lock.\n- Rule: Never force-push.\n- URLs: https://ci.example.com/runs/1"
            )
        );
    }

    #[test]
    fn nothing_appended_stays_nothing_and_other_lines_stay_as_they_were() {
        assert_eq!(by_value(""), "");
        let parked = "(2 more items are parked for conversation \"c\": get_keep_set lists them all.)";
        assert_eq!(by_value(parked), parked);
    }

    #[test]
    fn a_request_of_several_paragraphs_stays_whole_under_its_label() {
        let request = "Fix this:\n\n```\nerror[E0308]: mismatched types\n```\n\nThen run the tests.";
        let appended = format!(
            "{STATE_HEADING}\n- Latest request: {request}\n\n{KEPT_HEADING}\n- Rule: Never push.\n- Files changed: src/a.rs"
        );
        assert_eq!(
            by_value(&appended),
            format!("{KEPT_HEADING}\n- Files changed: src/a.rs\n- Latest request: {request}\n- Rule: Never push.")
        );
    }
}
