//! One request and what came of it (an exchange), and the lines it is
//! written as: the request's line, then what else was asked, the issues
//! read, the work, the plan and the report.

use super::remarks::{FLAGS, only_announces, says_little, still_flagged};
use crate::summary::read::edits::NAMES_PER_FILE;
use crate::summary::read::files::{file_name, is_inside};
use crate::summary::read::sentences::{conclusion, is_announcement, is_filler, is_next_step, is_question, statements};
use crate::summary::write::narrative::{ASKED_MARK, BRIEF_MARK, WORK_MARK};

/// How much of a request a line quotes (SPEC §4)…
pub(crate) const REQUEST_CHARS: usize = 200;
/// …of its conclusion, or one step of the work…
pub(crate) const STEP_CHARS: usize = 220;
/// …and how many of the files it changed it names.
pub(crate) const FILES_PER_LINE: usize = 12;

/// One request, what the user said after it, what came of it, and the work between.
#[derive(Default)]
pub(super) struct Exchange {
    pub(super) request: Option<String>,
    /// The rest of the request, past its line: what else the user asked.
    pub(super) asked: Vec<String>,
    /// "answered: yes", "ran /review".
    pub(super) then: Vec<String>,
    /// How many times the request was sent again word for word (a plugin
    /// loop's prompt): one line says so, not one line a round.
    pub(super) again: usize,
    pub(super) outcome: Option<String>,
    pub(super) files: Vec<String>,
    pub(super) steps: Vec<String>,
    /// What each changed file's edits defined, in the order first changed.
    pub(super) defined: Vec<(String, Vec<String>)>,
    /// The agent's last words in the exchange: its report of what it did.
    pub(super) report: Option<String>,
    /// Nothing was done after the report (no call of its own, no later
    /// message): its closing announcement is still to do.
    pub(super) report_is_last: bool,
    /// The plan the agent put to the user (Claude Code's `ExitPlanMode`).
    pub(super) plan: Option<String>,
    /// The issues, tickets and pull requests the agent read, each as its
    /// title and the sections that bound the work.
    pub(super) briefs: Vec<Vec<String>>,
    /// The call the last step says failed, and how many times in a row.
    pub(super) failing: Option<(String, usize)>,
    /// The steps that say a shell command failed: the ones a later
    /// command's same error merges with.
    pub(super) failed_commands: Vec<FailedCommand>,
}

/// A step that says a shell command failed: its error, and how many tries
/// (of one command or several) the step stands for.
pub(super) struct FailedCommand {
    pub(super) step: String,
    pub(super) error: String,
    pub(super) tries: usize,
}

impl Exchange {
    pub(super) fn lines(&self) -> Vec<String> {
        if self.request.is_none() && self.outcome.is_none() && self.files.is_empty() && self.steps.is_empty() {
            return Vec::new();
        }
        let mut line = format!("- {}", self.request.as_deref().unwrap_or("(continuing)"));
        let mut then = self.then.clone();
        match self.again {
            0 => {}
            1 => then.push("sent it again".to_owned()),
            n => then.push(format!("sent it again {n} times")),
        }
        if !then.is_empty() {
            line.push_str(&format!(" [then {}]", then.join("; ")));
        }
        if let Some(outcome) = &self.outcome {
            line.push_str(&format!(" → {outcome}"));
        }
        if !self.files.is_empty() {
            let mut names: Vec<&str> = Vec::new();
            let folder_of_another = |folder: &String| self.files.iter().any(|file| is_inside(file, folder));
            for file in self.files.iter().filter(|file| !folder_of_another(file)) {
                let name = file_name(file);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let more = names.len().saturating_sub(FILES_PER_LINE);
            names.truncate(FILES_PER_LINE);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            line.push_str(&format!(" (files: {}{more})", names.join(", ")));
        }
        let mut lines = vec![line];
        lines.extend(self.asked.iter().map(|more| format!("{ASKED_MARK}{more}")));
        lines.extend(
            self.briefs
                .iter()
                .map(|brief| format!("{BRIEF_MARK}{}", brief.join(" — "))),
        );
        // The last step is the conclusion already on the line.
        let steps = self
            .steps
            .iter()
            .filter(|step| Some(*step) != self.outcome.as_ref() && !says_little(step) && !only_announces(step));
        lines.extend(steps.map(|step| format!("{WORK_MARK}{step}")));
        // The plan put to the user: the goal, the approach, what to change.
        if let Some(plan) = &self.plan {
            lines.extend(
                told(statements(plan), None)
                    .into_iter()
                    .take(PLAN_SENTENCES)
                    .map(|line| format!("{WORK_MARK}plan: {line}")),
            );
        }
        // The rest of the agent's report: what it did, what is left.
        if let Some(report) = &self.report {
            let told = report_lines(report, self.outcome.as_deref(), self.report_is_last);
            lines.extend(
                told.iter()
                    .filter(|line| !self.steps.contains(line))
                    .map(|line| format!("{WORK_MARK}{line}")),
            );
        }
        lines.extend(self.defined.iter().map(|(file, names)| {
            let shown: Vec<&str> = names.iter().take(NAMES_PER_FILE).map(String::as_str).collect();
            format!("{WORK_MARK}changed {}: {}", file_name(file), shown.join(", "))
        }));
        lines
    }

    pub(super) fn defined(&mut self, file: String, names: Vec<String>) {
        match self.defined.iter_mut().find(|(known, _)| *known == file) {
            Some((_, known)) => {
                for name in names {
                    if !known.contains(&name) {
                        known.push(name);
                    }
                }
            }
            None => self.defined.push((file, names)),
        }
    }

    /// A brief read again (the same title) is kept once, as last read; an
    /// exchange keeps the latest few.
    pub(super) fn brief(&mut self, brief: Vec<String>) {
        self.briefs.retain(|known| known.first() != brief.first());
        self.briefs.push(brief);
        if self.briefs.len() > BRIEFS_PER_EXCHANGE {
            self.briefs.remove(0);
        }
    }

    pub(super) fn step(&mut self, step: String) {
        if !step.is_empty() && !self.steps.contains(&step) {
            self.steps.push(step);
            self.failing = None;
        }
    }
}

/// How many of the issues an exchange read are said under it.
const BRIEFS_PER_EXCHANGE: usize = 8;

/// How many more sentences of the agent's last words in an exchange are kept…
const REPORT_SENTENCES: usize = 8;
/// …and of a plan it put to the user.
const PLAN_SENTENCES: usize = 12;

/// The agent's last words past their conclusion: the sentences that say
/// something (not filler, a heading, a lead-in or "let me…"), whole; and
/// when they close by announcing what the agent does next, that too, as
/// the next step.
fn report_lines(report: &str, concluded: Option<&str>, is_last: bool) -> Vec<String> {
    let said = statements(report);
    let next = said
        .last()
        .filter(|last| is_last && is_next_step(last) && !is_filler(last))
        .and_then(|last| conclusion(last, STEP_CHARS))
        .filter(|last| concluded != Some(last.as_str()))
        .map(|last| format!("next: {last}"));
    let mut lines = told(said, concluded);
    lines.extend(flagged_rows(report));
    lines.extend(next);
    lines
}

/// How many of a report's table rows that flag a problem are kept.
const FLAGGED_ROWS: usize = 6;

/// The rows of a report's tables that flag something missing, failing or
/// to check (❌, ⚠️, ✗): what is left to do, which a table of ✅ rows hides
/// among the done. Cells joined by " — ", bold marks dropped.
fn flagged_rows(report: &str) -> Vec<String> {
    let mut in_code = false;
    let rows: Vec<String> = report
        .lines()
        .map(str::trim)
        .filter(|line| {
            if line.starts_with("```") || line.starts_with("~~~") {
                in_code = !in_code;
            }
            !in_code && line.starts_with('|') && still_flagged(line)
        })
        .map(|row| {
            let cells: Vec<&str> = row
                .split('|')
                .map(|cell| cell.trim().trim_matches('*').trim())
                .filter(|cell| !cell.is_empty())
                .collect();
            cells.join(" — ")
        })
        .filter(|row| !row.is_empty())
        .collect();
    // What is missing or failed before what is only to check.
    first_in_order(rows, FLAGGED_ROWS, |row| row.contains(['❌', '✗', '✘']))
}

/// At most `most` of `items`, those that are `first` before the rest,
/// in their own order.
fn first_in_order(items: Vec<String>, most: usize, first: impl Fn(&str) -> bool) -> Vec<String> {
    let mut ranked: Vec<(usize, String)> = items.into_iter().enumerate().collect();
    ranked.sort_by_key(|(at, item)| (!first(item), *at));
    ranked.truncate(most);
    ranked.sort_by_key(|(at, _)| *at);
    ranked.into_iter().map(|(_, item)| item).collect()
}

/// [`report_lines`]'s sentences that say something.
fn told(said: Vec<String>, concluded: Option<&str>) -> Vec<String> {
    let saying: Vec<String> = said
        .into_iter()
        .filter(|sentence| {
            // A heading or a label ("The Problem", "**What we have:**") says nothing alone.
            let says = sentence.split_whitespace().count() >= 4 || sentence.trim_end().ends_with(['.', '!', '?']);
            says && !is_filler(sentence)
                && !sentence.trim_end().trim_end_matches('*').ends_with(':')
                && !is_announcement(sentence)
                && concluded.is_none_or(|c| !c.starts_with(sentence.as_str()))
        })
        // `conclusion` takes a verdict's bold marks off.
        .filter_map(|sentence| conclusion(&sentence, STEP_CHARS))
        .collect();
    // Of questions in a row (a list of what the user might see), the first
    // says the rest's subject.
    let saying: Vec<String> = saying
        .iter()
        .enumerate()
        .filter(|(at, sentence)| !(is_question(sentence) && *at > 0 && is_question(&saying[at - 1])))
        .map(|(_, sentence)| sentence.clone())
        .collect();
    // A long report keeps what it flags (a gap, a failure, a "but") before
    // the rest.
    first_in_order(saying, REPORT_SENTENCES, |sentence| FLAGS.is_match(sentence))
}
