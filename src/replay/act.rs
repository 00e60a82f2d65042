//! What the replayed agent does where it stands: reports its context
//! (`/usage`), and compacts, rolls over or carries on as `/decide` (or the
//! schedule) says; where the session's own harness compacted, it compacts
//! too and sets the two summaries side by side.

use serde_json::json;
use sha2::{Digest, Sha256};

use super::report::{Compacted, HarnessComparison, RolledOver, SessionReport};
use super::state::State;
use super::{Replay, ReplayError, Schedule};
use crate::domain::ConversationId;
use crate::llm::tokens;
use crate::sessions::HarnessSummary;

impl Replay {
    /// Reports the context in use; what it plans to prepare is written
    /// before the replay goes on, when it prepares.
    pub(super) async fn report_usage(
        &self,
        state: &State,
        used: u64,
        window: u64,
        at: &str,
    ) -> Result<(), ReplayError> {
        let conversation = state.conversation.as_str();
        let mut body = json!({"conversation_id": conversation, "used": used, "size": window, "at": at});
        if let Some(model) = &state.model {
            body["model"] = json!(model);
        }
        self.call("/usage", body).await?;
        if let Some(own) = self.own.as_ref().filter(|_| self.options.prepare) {
            let id = ConversationId::parse("conversation_id", conversation.to_owned())
                .map_err(|err| ReplayError::Service(err.to_string()))?;
            crate::app::summarize::prepare::settle(&own.services, &own.tenant, &id)
                .await
                .map_err(|err| ReplayError::Service(format!("a preparation failed: {err}")))?;
        }
        Ok(())
    }

    /// Compacts the conversation with the transcript since its boundary.
    pub(super) async fn compact(
        &self,
        state: &mut State,
        report: &mut SessionReport,
        turn: usize,
        at: &str,
        (origin, trigger): (&'static str, Option<&str>),
    ) -> Result<(), ReplayError> {
        // From stored turns, a compaction mid-run, before any turn since the
        // boundary was stored, has nothing new to summarize.
        if self.options.from_stored_turns && state.turns_since == 0 {
            return Ok(());
        }
        let mut body = if self.options.from_stored_turns {
            json!({"conversation_id": state.conversation, "at": at})
        } else {
            json!({"conversation_id": state.conversation, "messages": state.since_boundary, "at": at})
        };
        if let Some(trigger) = trigger {
            body["trigger"] = json!(trigger);
        }
        // The context as the agent reported it, not the delta alone.
        body["tokens_before"] = json!(state.used());
        let answer = self.call("/summarize", body).await?;
        let summary = answer["summary"].as_str().unwrap_or_default().to_owned();
        let row = &answer["compaction"];
        let success = answer["success"].as_bool() == Some(true);
        report.compactions.push(Compacted {
            turn,
            conversation: state.conversation.clone(),
            origin,
            trigger: row["trigger"].as_str().unwrap_or_default().to_owned(),
            success,
            tokens_before: row["tokens_before"].as_u64().unwrap_or(0),
            tokens_after: row["tokens_after"].as_u64().unwrap_or(0),
            summary_tokens: tokens::count(&summary),
            // The parked line names the conversation, whose id carries the
            // run's time: two replays are compared without it.
            summary_sha256: format!(
                "{:x}",
                Sha256::digest(summary.replace(state.conversation.as_str(), "CONVERSATION").as_bytes())
            ),
            prepared: row["prepared"].as_bool() == Some(true),
            keep: row["keep"].clone(),
            summarizer: row["summarizer"].as_str().unwrap_or_default().to_owned(),
            fallback: row["fallback"].as_str().map(str::to_owned),
            upstream_calls: row["upstream_calls"].as_u64(),
            duration_ms: row["duration_ms"].as_u64().unwrap_or(0),
            error: row["error"].as_str().map(str::to_owned),
        });
        if success {
            state.restart(tokens::count(&summary), None);
        }
        Ok(())
    }

    /// Rolls the conversation over and carries on in its successor.
    pub(super) async fn roll_over(
        &self,
        state: &mut State,
        report: &mut SessionReport,
        turn: usize,
        at: &str,
        guard: Option<String>,
    ) -> Result<(), ReplayError> {
        // The successor is named after the session, not a random UUID: a
        // summary names its conversation (the parked line), and two replays
        // must give the same summaries, token for token.
        let successor = format!("{}-r{}", state.first, report.rollovers.len() + 1);
        let answer = self
            .call(
                "/handoff",
                json!({"conversation_id": state.conversation, "successor_id": successor, "at": at}),
            )
            .await?;
        let text = answer["text"].as_str().unwrap_or_default().to_owned();
        state.conversation = answer["successor_id"].as_str().unwrap_or_default().to_owned();
        report.rollovers.push(RolledOver {
            turn,
            guard,
            successor: state.conversation.clone(),
        });
        state.restart(tokens::count(&text), Some(text));
        Ok(())
    }

    /// Acts on what `/decide` says (or the schedule): compact, roll over or carry on.
    pub(super) async fn act(
        &self,
        state: &mut State,
        report: &mut SessionReport,
        turn: usize,
        at: &str,
        due: bool,
    ) -> Result<(), ReplayError> {
        let (decision, guard) = match self.options.schedule {
            Schedule::Every(_) if due => ("compact".to_owned(), None),
            Schedule::Every(_) => ("keep".to_owned(), None),
            Schedule::Policy => {
                let decided = self
                    .call("/decide", json!({"conversation_id": state.conversation, "at": at}))
                    .await?;
                let guard = decided["guard"].as_str().map(str::to_owned);
                (decided["decision"].as_str().unwrap_or("keep").to_owned(), guard)
            }
        };
        let why = match self.options.schedule {
            Schedule::Every(_) => ("every", Some("manual")),
            Schedule::Policy => ("policy", None),
        };
        match decision.as_str() {
            "compact" => self.compact(state, report, turn, at, why).await,
            "rollover" => self.roll_over(state, report, turn, at, guard).await,
            _ => Ok(()),
        }
    }

    /// Compacts where the session's harness did, and sets the two summaries side by side.
    pub(super) async fn compare_with(
        &self,
        harness: &HarnessSummary,
        state: &mut State,
        report: &mut SessionReport,
        turn: usize,
        at: &str,
    ) -> Result<(), ReplayError> {
        if !state.since_boundary.is_empty() {
            // Mid-run, the conversation may not exist yet: the agent reports
            // its context as a harness does before it compacts.
            self.report_usage(state, state.used(), report.window, at).await?;
            self.compact(state, report, turn, at, ("harness", Some("manual")))
                .await?;
        }
        state.harness_compacted();
        let ours = self
            .summary_of(&state.conversation)
            .await?
            .or_else(|| state.last_handoff.clone())
            .unwrap_or_default();
        report.harness.push(HarnessComparison {
            before_turn: turn,
            theirs: self.measure(&state.conversation, &harness.text).await?,
            ours: self.measure(&state.conversation, &ours).await?,
            theirs_text: harness.text.clone(),
            ours_text: ours,
        });
        Ok(())
    }
}
