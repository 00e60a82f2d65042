//! A replay's report as a person reads it: the session, each compaction's
//! row, the rollovers, what the final summary holds word for word, and the
//! session's own summaries beside compactd's.

use std::fmt::Write as _;

use super::report::{Figures, SessionReport};

/// The report as a person reads it.
pub fn render(report: &SessionReport) -> String {
    let mut out = String::new();
    heading(&mut out, report);
    compactions(&mut out, report);
    for rolled in &report.rollovers {
        let _ = writeln!(
            out,
            "  rolled over after turn {} ({}) into {}",
            rolled.turn,
            rolled
                .guard
                .as_deref()
                .map_or("no guard named".to_owned(), |guard| format!("guard {guard}")),
            rolled.successor
        );
    }
    let _ = writeln!(
        out,
        "\n  What the agent is left with at the end ({} tokens), word for word:",
        thousands(report.final_tokens)
    );
    survival_table(&mut out, &report.final_survival);
    let _ = writeln!(
        out,
        "  (Present is by construction for the user's request, rules, named items and files changed: the keep guard appends what a summary lacks while it fits. What the summarizer kept by itself is each compaction's present less appended.)"
    );
    harness_comparison(&mut out, report);
    out
}

/// The session's name and size, and what the replay did to it.
fn heading(out: &mut String, report: &SessionReport) {
    let failed = report.compactions.iter().filter(|c| !c.success).count();
    let prepared = report.compactions.iter().filter(|c| c.prepared).count();
    let recorded = report.recorded_peak.map_or(String::new(), |peak| {
        format!(
            " (the session recorded a context of up to {}, system prompt and tools included: the replay's context follows its records)",
            thousands(peak)
        )
    });
    let _ = writeln!(
        out,
        "{} ({}): {} turns, {} tokens of text{recorded}; window {}, summary budget {}",
        report.file,
        report.format,
        report.turns,
        thousands(report.transcript_tokens),
        thousands(report.window),
        thousands(report.budget)
    );
    let _ = writeln!(
        out,
        "  {} compactions ({failed} failed, {prepared} merged a summary prepared ahead), {} rollovers, {} summaries over budget\n",
        report.compactions.len(),
        report.rollovers.len(),
        report.over_budget()
    );
}

/// One row per compaction: when, why, its size before and after, and the
/// keep guard's figures.
fn compactions(out: &mut String, report: &SessionReport) {
    if !report.compactions.is_empty() {
        let _ = writeln!(
            out,
            "  {:>4} {:>6}  {:<8} {:<20} {:>9} → {:<7} {:>7} {:>7} {:>8} {:>6}",
            "#", "turn", "origin", "trigger", "before", "after", "checked", "present", "appended", "parked"
        );
    }
    for (n, c) in report.compactions.iter().enumerate() {
        let figure = |name: &str| c.keep[name].as_u64().map_or("-".to_owned(), |n| n.to_string());
        let outcome = match (c.success, c.prepared) {
            (false, _) => "  failed",
            (true, true) => "  prepared",
            (true, false) => "",
        };
        let _ = writeln!(
            out,
            "  {:>4} {:>6}  {:<8} {:<20} {:>9} → {:<7} {:>7} {:>7} {:>8} {:>6}{outcome}",
            n + 1,
            c.turn,
            c.origin,
            c.trigger,
            thousands(c.tokens_before),
            thousands(c.summary_tokens),
            figure("checked"),
            figure("present"),
            figure("appended"),
            figure("parked")
        );
    }
}

/// The session's own last compaction summary beside compactd's at the same
/// point, group by group.
fn harness_comparison(out: &mut String, report: &SessionReport) {
    if let Some(last) = report.harness.last() {
        let _ = writeln!(
            out,
            "  The session's own compaction summaries: {} (the last, before turn {}: {} tokens, compactd's {}), theirs vs compactd's at the same point:",
            report.harness.len(),
            last.before_turn + 1,
            thousands(crate::llm::tokens::count(&last.theirs_text)),
            thousands(crate::llm::tokens::count(&last.ours_text))
        );
        for row in &last.theirs.by_kind {
            let ours = last.ours.row(row.group).map_or(0, |r| r.kept);
            let _ = writeln!(
                out,
                "    {:<30} {:>7} vs {:>7}  (of {})",
                row.group,
                percent(row.kept, row.items),
                percent(ours, row.items),
                row.items
            );
        }
        out.push('\n');
    }
}

pub(super) fn percent(kept: u64, items: u64) -> String {
    if items == 0 {
        "-".into()
    } else {
        format!("{:.1}%", kept as f64 * 100.0 / items as f64)
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn survival_table(out: &mut String, figures: &Figures) {
    for rows in [&figures.by_kind, &figures.by_source] {
        for row in rows {
            let _ = writeln!(
                out,
                "    {:<30} {:>6} of {:<6} {:>7}",
                row.group,
                row.kept,
                row.items,
                percent(row.kept, row.items)
            );
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_with_thousands_separators() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(percent(99, 100), "99.0%");
        assert_eq!(percent(0, 0), "-");
    }
}
