//! The keep guard's items for an agent that already has a summary of its
//! own (issue 22): a harness compacted by itself and the hook gives back
//! what its summary left out, most useful first.

use super::narrative::KEPT_HEADING;
use super::render::Line;
use super::state::STATE_HEADING;

/// What the keep guard appended to an empty narrative (`POST …/keep/check`)
/// reordered for a harness whose agent already has its own summary: every
/// item under one heading, files changed first, then the user's request,
/// rules and named items, then what the agent named and tool output; any
/// other line (a state line, the parked line) after them as it stood.
pub fn by_value(appended: &str) -> String {
    let mut items: Vec<(u8, usize, &str)> = Vec::new();
    let mut rest: Vec<Vec<&str>> = Vec::new();
    for block in appended.split("\n\n") {
        let mut others: Vec<&str> = Vec::new();
        for line in block.lines() {
            match Line::of_rendered(line) {
                Some(kind) => items.push((kind.value_rank(), items.len(), line)),
                None if line == KEPT_HEADING => {}
                None if !line.trim().is_empty() => others.push(line),
                None => {}
            }
        }
        // A heading left alone (its items moved up) goes too.
        if others.iter().any(|line| *line != STATE_HEADING) {
            rest.push(others);
        }
    }
    items.sort_by_key(|(rank, order, _)| (*rank, *order));
    let mut parts: Vec<String> = Vec::new();
    if !items.is_empty() {
        let lines: Vec<&str> = items.iter().map(|(_, _, line)| *line).collect();
        parts.push(format!("{KEPT_HEADING}\n{}", lines.join("\n")));
    }
    parts.extend(rest.iter().map(|lines| lines.join("\n")));
    parts.join("\n\n")
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
        let state_only = format!("{STATE_HEADING}\n- In progress: Writing the docs.");
        assert_eq!(by_value(&state_only), state_only);
    }
}
