//! A failed call as a step of its exchange: tried again and again, one
//! step; other commands that failed with the same error, one step too,
//! said at the last try.

use std::sync::LazyLock;

use regex::Regex;

use super::exchange::Exchange;

impl Exchange {
    /// A call that failed: one line however many times in a row it failed,
    /// with the last error (a build tried again and again is one step).
    /// `command` says it ran in a shell.
    pub(super) fn failed(&mut self, target: &str, error: &str, command: bool) {
        if let Some((failing, times)) = self.failing.take()
            && failing == target
            && let Some(last) = self.steps.last_mut()
        {
            let again = format!("`{target}` failed {} times, last: {error}", times + 1);
            if let Some(known) = self.failed_commands.iter_mut().find(|known| **known == *last) {
                known.clone_from(&again);
            }
            *last = again;
            self.failing = Some((failing, times + 1));
            return;
        }
        let step = format!("`{target}` failed: {error}");
        if self.steps.contains(&step) {
            return;
        }
        // Other commands that failed with this same error (a copy onto a
        // busy file tried three ways) are one step, said at the last; not
        // a bare exit code, nor a tool's error, which every file shares.
        let ending = format!(": {error}");
        let merges = command && !GENERIC_ERROR.is_match(error);
        let earlier: Vec<usize> = (0..self.steps.len())
            .filter(|at| {
                merges && self.failed_commands.contains(&self.steps[*at]) && self.steps[*at].ends_with(&ending)
            })
            .collect();
        let tries: usize = earlier.iter().map(|at| tries_in(&self.steps[*at])).sum();
        for at in earlier.into_iter().rev() {
            self.steps.remove(at);
        }
        let step = match tries {
            0 => step,
            1 => format!("`{target}` failed, as 1 earlier try did: {error}"),
            n => format!("`{target}` failed, as {n} earlier tries did: {error}"),
        };
        if command {
            self.failed_commands.push(step.clone());
        }
        self.steps.push(step);
        self.failing = Some((target.to_owned(), tries + 1));
    }
}

/// An error too general to say two failures were one: an exit code alone.
static GENERIC_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\A(?:exit code \d+|command failed|error)\z").expect("a valid pattern"));

/// How many tries a failure's step stands for: `… failed 3 times, last: …`
/// three, `… as 2 earlier tries did: …` three, any other one.
fn tries_in(step: &str) -> usize {
    let count_after = |marker: &str| {
        step.split_once(marker)
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok())
    };
    count_after("` failed ")
        .or_else(|| count_after("` failed, as ").map(|n| n + 1))
        .unwrap_or(1)
}
