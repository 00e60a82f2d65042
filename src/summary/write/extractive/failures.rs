//! A failed call as a step of its exchange: tried again and again, one
//! step; other commands that failed with the same error, one step too,
//! said at the last try.

use std::sync::LazyLock;

use regex::Regex;

use super::exchange::{Exchange, FailedCommand};

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
            if let Some(known) = self.failed_commands.iter_mut().find(|known| known.step == *last) {
                known.step.clone_from(&again);
                known.tries = times + 1;
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
        let mut tries = 0;
        if command && !GENERIC_ERROR.is_match(error) {
            let (same, other): (Vec<FailedCommand>, Vec<FailedCommand>) = std::mem::take(&mut self.failed_commands)
                .into_iter()
                .partition(|known| known.error == error);
            self.failed_commands = other;
            tries = same.iter().map(|known| known.tries).sum();
            self.steps.retain(|step| !same.iter().any(|known| known.step == *step));
        }
        let step = match tries {
            0 => step,
            1 => format!("`{target}` failed, as 1 earlier try did: {error}"),
            n => format!("`{target}` failed, as {n} earlier tries did: {error}"),
        };
        if command {
            self.failed_commands.push(FailedCommand {
                step: step.clone(),
                error: error.to_owned(),
                tries: tries + 1,
            });
        }
        self.steps.push(step);
        self.failing = Some((target.to_owned(), tries + 1));
    }
}

/// An error too general to say two failures were one: an exit code alone.
static GENERIC_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\A(?:exit code \d+|command failed|error)\z").expect("a valid pattern"));
