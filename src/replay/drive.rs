//! Plays one session through the service as an agent would: after each turn
//! it reports the context in use (`/usage`), stores the turn
//! (`/turn-ended`) and asks what to do (`/decide`, or compacts every N
//! turns); on `compact` it sends the transcript since the boundary to
//! `/summarize`, on `rollover` it calls `/handoff` and carries on in the
//! successor. What the agent is left with is measured at the end.

use chrono::Utc;
use serde_json::json;

use super::calls::wire;
use super::clock;
use super::report::SessionReport;
use super::state::State;
use super::{Replay, ReplayError, Schedule};
use crate::domain::transcript::Role;
use crate::llm::tokens;
use crate::sessions::{Session, Turn};

impl Replay {
    /// Replays one session; `progress` hears of every turn.
    pub(crate) async fn session(
        &self,
        session: &Session,
        run: &str,
        progress: &mut dyn FnMut(usize),
    ) -> Result<SessionReport, ReplayError> {
        let mut state = State::starting(session, run);
        let window = self.window_for(session);
        let mut report = SessionReport::new(session, window, self.budget(window));
        let times = clock::turn_times(session, self.options.end_now.then(Utc::now));
        for (index, (turn, at)) in session.turns.iter().zip(&times).enumerate() {
            progress(index);
            let at = at.to_rfc3339();
            let here = Here {
                session,
                turn,
                index,
                at: &at,
            };
            self.play_turn(here, &mut state, &mut report).await?;
        }
        // What the agent would carry on from if it compacted now: the last
        // turns, too, go through a summary.
        if !state.since_boundary.is_empty() {
            let at = clock::after(&times).to_rfc3339();
            self.compact(
                &mut state,
                &mut report,
                session.turns.len(),
                &at,
                ("final", Some("manual")),
            )
            .await?;
        }
        progress(session.turns.len());
        self.finish(state, report).await
    }

    /// Plays one turn: each message counted into the context (compacting
    /// mid-run where a batch of tool calls fills it), then the turn's usage
    /// reported, the turn stored, and what to do asked.
    async fn play_turn(
        &self,
        here: Here<'_>,
        state: &mut State,
        report: &mut SessionReport,
    ) -> Result<(), ReplayError> {
        let (turn, index, at) = (here.turn, here.index, here.at);
        for (step, message) in turn.messages.iter().enumerate() {
            let compacted_here = here
                .session
                .harness_summaries
                .iter()
                .filter(|s| s.before_turn == index && s.at_message == step);
            for harness in compacted_here {
                // The session's harness compacted here: so does compactd,
                // and the two summaries are set side by side.
                self.compare_with(harness, state, report, index, at).await?;
            }
            let counted = tokens::count(&message.text_for_counting());
            report.transcript_tokens += counted;
            state.count(counted);
            state.since_boundary.push(wire(message));
            for (_, used) in turn.recorded_used.iter().filter(|(after, _)| *after == step) {
                state.recorded(*used);
                report.recorded_peak = report.recorded_peak.max(Some(*used));
            }
            // A long run of tool calls fills the window before the turn
            // ends: the harness compacts mid-run, with no user message in
            // the delta, as coding agents do.
            let batch_ends =
                message.role == Role::Tool && turn.messages.get(step + 1).is_some_and(|next| next.role != Role::Tool);
            if batch_ends && self.full(state.used(), report.window) {
                self.report_usage(state, state.used(), report.window, at).await?;
                self.act(state, report, index, at, true).await?;
            }
        }
        self.report_usage(state, state.used(), report.window, at).await?;
        self.end_turn(turn, state, at).await?;
        let due = matches!(self.options.schedule, Schedule::Every(n) if state.turns_since >= n);
        self.act(state, report, index + 1, at, due).await
    }

    /// Whether `used` fills the window: past 95%, or, when the policy
    /// decides, past the trigger a harness would compact at.
    fn full(&self, used: u64, window: u64) -> bool {
        let trigger_tokens = (window / 4 * 3).min(200_000);
        used.saturating_mul(100) >= window.saturating_mul(95)
            || (self.options.schedule == Schedule::Policy && used >= trigger_tokens)
    }

    /// Stores the turn (`/turn-ended`): its user message and its answers.
    async fn end_turn(&self, turn: &Turn, state: &mut State, at: &str) -> Result<(), ReplayError> {
        let user = turn
            .messages
            .first()
            .filter(|m| m.role == Role::User)
            .map(|m| m.content.clone());
        let answers: Vec<&str> = turn
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant && !m.content.trim().is_empty())
            .map(|m| m.content.as_str())
            .collect();
        let assistant = (!answers.is_empty()).then(|| answers.join("\n\n"));
        self.call(
            "/turn-ended",
            json!({"conversation_id": state.conversation, "user": user, "assistant": assistant, "at": at}),
        )
        .await?;
        state.turns_since += 1;
        Ok(())
    }

    /// What the agent is left with at the end, measured.
    async fn finish(&self, state: State, mut report: SessionReport) -> Result<SessionReport, ReplayError> {
        let final_text = self
            .summary_of(&state.conversation)
            .await?
            .or(state.last_handoff.clone())
            .unwrap_or_default();
        report.final_tokens = tokens::count(&final_text);
        report.final_summary = final_text.clone();
        report.final_survival = self.measure(&state.conversation, &final_text).await?;
        report.final_conversation = state.conversation;
        Ok(report)
    }
}

/// The turn being played, and where it is in the session.
#[derive(Clone, Copy)]
struct Here<'a> {
    session: &'a Session,
    turn: &'a Turn,
    index: usize,
    at: &'a str,
}
