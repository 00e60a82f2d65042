//! Plays one session through the service as an agent would: after each turn
//! it reports the context in use (`/usage`), stores the turn
//! (`/turn-ended`) and asks what to do (`/decide`, or compacts every N
//! turns); on `compact` it sends the transcript since the boundary to
//! `/summarize`, on `rollover` it calls `/handoff` and carries on in the
//! successor. What the agent is left with is measured at the end.

use chrono::Utc;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::clock;
use super::report::{Compacted, Figures, HarnessComparison, RolledOver, SessionReport};
use super::{Replay, ReplayError, Schedule};
use crate::app::keep_set;
use crate::domain::ConversationId;
use crate::domain::transcript::{Message, Role};
use crate::llm::tokens;
use crate::sessions::{HarnessSummary, Session};
use crate::summary::keep::{KeepKind, KeepSet, Place, Sighting, Source};

fn wire(message: &Message) -> Value {
    json!({
        "role": message.role.as_str(),
        "content": message.content,
        "name": message.name,
        "tool_calls": message.tool_calls.iter().map(|call| json!({
            "id": call.id, "name": call.name, "arguments": call.arguments,
        })).collect::<Vec<_>>(),
        "tool_call_id": message.tool_call_id,
    })
}

impl Replay {
    fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.bearer {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    async fn call(&self, path: &str, body: Value) -> Result<Value, ReplayError> {
        let request = self.client.post(format!("{}{path}", self.base)).json(&body);
        match self.send(path, request).await? {
            (status, answer) if status.is_success() => Ok(answer),
            (status, answer) => Err(ReplayError::Service(format!("{path} answered {status}: {answer}"))),
        }
    }

    /// A read of the service's, with its status.
    async fn read(&self, path: &str) -> Result<(reqwest::StatusCode, Value), ReplayError> {
        self.send(path, self.client.get(format!("{}{path}", self.base))).await
    }

    async fn send(
        &self,
        path: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<(reqwest::StatusCode, Value), ReplayError> {
        let response = self
            .authorized(request)
            .send()
            .await
            .map_err(|err| ReplayError::Service(format!("{path}: {err}")))?;
        let status = response.status();
        Ok((status, response.json().await.unwrap_or(Value::Null)))
    }

    async fn summary_of(&self, id: &str) -> Result<Option<String>, ReplayError> {
        let (_, state) = self.read(&format!("/conversations/{id}")).await?;
        Ok(state["summary"]["text"].as_str().map(str::to_owned))
    }

    /// What the agent has of the conversation now, measured against its keep set.
    async fn measure(&self, id: &str, text: &str) -> Result<Figures, ReplayError> {
        let Some(own) = &self.own else {
            return Ok(Figures::measure(self.keep_set_read(id).await?.items(), text));
        };
        let conversation = ConversationId::parse("conversation_id", id.to_owned())
            .map_err(|err| ReplayError::Service(err.to_string()))?;
        let mut conn = own
            .pool
            .acquire()
            .await
            .map_err(|err| ReplayError::Service(err.to_string()))?;
        let current = keep_set::current(&mut conn, &own.tenant, &conversation, &self.summaries.harness)
            .await
            .map_err(|err| ReplayError::Service(err.to_string()))?;
        Ok(Figures::measure(current.set.items(), text))
    }

    /// The keep set as a running service lists it (`get_keep_set`): each
    /// item seen again from every source it lists, first source first.
    async fn keep_set_read(&self, id: &str) -> Result<KeepSet, ReplayError> {
        // A replay names its conversations in letters, digits and dashes.
        let path = format!("/conversations/{id}/keep?limit=5000");
        let (status, listed) = self.read(&path).await?;
        // Not made yet (a session that opens with its harness's summary):
        // nothing kept, as a replay's own database answers.
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(KeepSet::default());
        }
        if !status.is_success() {
            return Err(ReplayError::Service(format!("{path} answered {status}: {listed}")));
        }
        if listed["truncated"] == true {
            tracing::warn!(
                conversation = id,
                total = listed["total"].as_u64(),
                "the keep set is larger than one read lists: measured on its first 5,000 items"
            );
        }
        let mut set = KeepSet::default();
        let place = Place {
            conversation_id: id.to_owned(),
            turn_id: None,
            compaction_seq: None,
            message: None,
            at: clock::fixed_start(),
        };
        for item in listed["items"].as_array().into_iter().flatten() {
            let Some(kind) = item["kind"].as_str().and_then(KeepKind::parse) else {
                continue;
            };
            let text = item["text"].as_str().unwrap_or_default();
            let first = item["source"].as_str().and_then(Source::parse);
            let others = item["sources"].as_array().into_iter().flatten();
            let others = others.filter_map(|source| source.as_str().and_then(Source::parse));
            for source in first.into_iter().chain(others.filter(|source| Some(*source) != first)) {
                set.observe(&[Sighting::new(kind, text, source)], &place);
            }
        }
        Ok(set)
    }

    /// Reports the context in use; what it plans to prepare is written
    /// before the replay goes on, when it prepares.
    async fn report_usage(&self, state: &State, used: u64, window: u64, at: &str) -> Result<(), ReplayError> {
        let conversation = state.conversation.as_str();
        let mut body = json!({"conversation_id": conversation, "used": used, "size": window, "at": at});
        if let Some(model) = &state.model {
            body["model"] = json!(model);
        }
        self.call("/usage", body).await?;
        if let Some(own) = self.own.as_ref().filter(|_| self.options.prepare) {
            let id = ConversationId::parse("conversation_id", conversation.to_owned())
                .map_err(|err| ReplayError::Service(err.to_string()))?;
            crate::app::prepare::settle(&own.services, &own.tenant, &id)
                .await
                .map_err(|err| ReplayError::Service(format!("a preparation failed: {err}")))?;
        }
        Ok(())
    }

    /// Compacts the conversation with the transcript since its boundary.
    async fn compact(
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
    async fn roll_over(
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
    async fn act(
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
    async fn compare_with(
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

    /// Replays one session; `progress` hears of every turn.
    pub(crate) async fn session(
        &self,
        session: &Session,
        run: &str,
        progress: &mut dyn FnMut(usize),
    ) -> Result<SessionReport, ReplayError> {
        let stem = std::path::Path::new(&session.name)
            .file_stem()
            .map(|s| {
                s.to_string_lossy()
                    .chars()
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .take(60)
                    .collect::<String>()
            })
            .unwrap_or_default();
        let first = format!("replay-{run}-{stem}");
        // A name the service would refuse is left out, never the report.
        let model = session
            .model
            .clone()
            .filter(|model| crate::domain::ModelName::parse("model", model.clone()).is_ok());
        let mut state = State {
            conversation: first.clone(),
            first,
            model,
            ..State::default()
        };
        let window = self.window_for(session);
        let mut report = SessionReport::new(session, window, self.budget(window));
        let trigger_tokens = (window / 4 * 3).min(200_000);
        let times = clock::turn_times(session, self.options.end_now.then(Utc::now));
        for (index, (turn, at)) in session.turns.iter().zip(&times).enumerate() {
            progress(index);
            let at = at.to_rfc3339();
            for (step, message) in turn.messages.iter().enumerate() {
                let here = session
                    .harness_summaries
                    .iter()
                    .filter(|s| s.before_turn == index && s.at_message == step);
                for harness in here {
                    // The session's harness compacted here: so does compactd,
                    // and the two summaries are set side by side.
                    self.compare_with(harness, &mut state, &mut report, index, &at).await?;
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
                let batch_ends = message.role == Role::Tool
                    && turn.messages.get(step + 1).is_some_and(|next| next.role != Role::Tool);
                let used = state.used();
                let full = used.saturating_mul(100) >= window.saturating_mul(95)
                    || (self.options.schedule == Schedule::Policy && used >= trigger_tokens);
                if batch_ends && full {
                    self.report_usage(&state, used, window, &at).await?;
                    self.act(&mut state, &mut report, index, &at, true).await?;
                }
            }
            self.report_usage(&state, state.used(), window, &at).await?;
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
            let due = matches!(self.options.schedule, Schedule::Every(n) if state.turns_since >= n);
            self.act(&mut state, &mut report, index + 1, &at, due).await?;
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

/// Where the replayed agent stands.
#[derive(Debug, Default)]
struct State {
    conversation: String,
    /// The conversation the session started as; its successors are named after it.
    first: String,
    /// The transcript since the last boundary, as `/summarize` takes it.
    since_boundary: Vec<Value>,
    since_boundary_tokens: u64,
    /// The summary (or handoff) the context starts from.
    anchor_tokens: u64,
    turns_since: usize,
    last_handoff: Option<String>,
    /// Where the session recorded its context's size (see [`State::recorded`]).
    recorded: Option<Recorded>,
    /// It has compacted or rolled over once at least.
    restarted: bool,
    /// The agent's model, as the session recorded it.
    model: Option<String>,
}

/// The session's own count of its context, where it kept one: what its
/// harness sends beside the conversation (system prompt, tools), the
/// highest record since its context last shrank for good, and what was
/// counted since the last record.
#[derive(Debug, Default, Clone, Copy)]
struct Recorded {
    overhead: u64,
    peak: u64,
    counted_since: u64,
    /// A record far below the peak, waiting for the next to say whether
    /// the harness compacted or a side call was small.
    low: Option<u64>,
    /// The harness compacted here: its next record starts afresh.
    reset: bool,
}

impl State {
    /// The context in use: the anchor and what came since, by the
    /// harness's count where the session recorded one.
    fn used(&self) -> u64 {
        let overhead = self.recorded.map_or(0, |recorded| recorded.overhead);
        overhead + self.anchor_tokens + self.since_boundary_tokens
    }

    fn count(&mut self, counted: u64) {
        self.since_boundary_tokens = self.since_boundary_tokens.saturating_add(counted);
        if let Some(recorded) = &mut self.recorded {
            recorded.counted_since += counted;
        }
    }

    /// The session's harness recorded its context at `used` tokens: what
    /// it grew past its highest record is the growth, in the model's tokens
    /// (counting the text alone misses the system prompt, tools, images
    /// and the tokenizer's difference).
    ///
    /// A record below the peak adds nothing and takes nothing: a model's
    /// reasoning is counted in the call that wrote it and dropped from the
    /// next (a Codex record falls by it every turn), and a side call reports
    /// a smaller context of its own. Counting growth from such a record
    /// counted the same tokens again at every rise: a replay's context ran
    /// 94,000 tokens past the session's in one record, and a compaction saw
    /// 291,924 where the session never held more than 258,201. The context
    /// shrinks for good only where the harness compacted: where the session
    /// says so ([`State::harness_compacted`]), or where two records in a
    /// row fall below half the peak. The counted growth stands then.
    fn recorded(&mut self, used: u64) {
        let Some(recorded) = &mut self.recorded else {
            // What the harness sends beside the text, from a record of the
            // whole context: after a compaction of the replay's own the
            // record still holds what the replay dropped.
            let overhead = if self.restarted {
                0
            } else {
                used.saturating_sub(self.anchor_tokens + self.since_boundary_tokens)
            };
            self.recorded = Some(Recorded {
                overhead,
                peak: used,
                ..Recorded::default()
            });
            return;
        };
        let growth = if std::mem::take(&mut recorded.reset) {
            recorded.peak = used;
            recorded.low = None;
            None
        } else if used >= recorded.peak {
            let growth = used - recorded.peak;
            recorded.peak = used;
            recorded.low = None;
            Some(growth)
        } else if used < recorded.peak / 2 {
            if recorded.low.take().is_some() {
                recorded.peak = used;
                None
            } else {
                recorded.low = Some(used);
                Some(0)
            }
        } else {
            recorded.low = None;
            Some(0)
        };
        if let Some(growth) = growth {
            let counted = recorded.counted_since.min(self.since_boundary_tokens);
            self.since_boundary_tokens = (self.since_boundary_tokens - counted).saturating_add(growth);
        }
        recorded.counted_since = 0;
    }

    /// The session's harness compacted here: its next record is the
    /// context it starts again from.
    fn harness_compacted(&mut self) {
        if let Some(recorded) = &mut self.recorded {
            recorded.reset = true;
        }
    }

    /// After a compaction or a rollover: the context is the new anchor alone.
    fn restart(&mut self, anchor_tokens: u64, handoff: Option<String>) {
        self.restarted = true;
        self.anchor_tokens = anchor_tokens;
        self.since_boundary.clear();
        self.since_boundary_tokens = 0;
        self.turns_since = 0;
        self.last_handoff = handoff;
        // The growth past the next record starts here: what was counted
        // since the last one is behind the boundary now.
        if let Some(recorded) = &mut self.recorded {
            recorded.peak = recorded.peak.saturating_add(recorded.counted_since);
            recorded.counted_since = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::State;

    #[test]
    fn the_first_record_sets_the_overhead_and_records_after_it_the_growth() {
        let mut state = State::default();
        state.count(4_000);
        state.recorded(19_000);
        assert_eq!(
            state.used(),
            19_000,
            "15,000 of system prompt and tools beside the text"
        );
        state.count(1_000);
        state.recorded(22_000);
        assert_eq!(
            state.used(),
            22_000,
            "the harness's count of the growth, not the text's"
        );
        state.recorded(9_000);
        state.count(500);
        assert_eq!(
            state.used(),
            22_500,
            "a smaller record (the harness compacted) leaves the counted growth"
        );
        state.restart(2_000, None);
        state.count(700);
        state.recorded(10_200);
        assert_eq!(
            state.used(),
            15_000 + 2_000 + 700,
            "past the boundary, the growth from where it stood"
        );
    }

    #[test]
    fn reasoning_a_record_counts_and_the_next_drops_is_counted_once() {
        let mut state = State::default();
        state.count(90_000);
        state.recorded(100_000);
        for turn in 0..5 {
            // The call writes 30,000 of reasoning; the next sends without it.
            state.recorded(130_000 + turn * 1_000);
            state.count(1_000);
            state.recorded(101_000 + turn * 1_000);
        }
        assert_eq!(
            state.used(),
            134_000,
            "the highest the session held, not 100,000 and five reasonings"
        );
    }

    #[test]
    fn a_side_calls_small_record_is_no_compaction_of_the_sessions() {
        let mut state = State::default();
        state.count(140_000);
        state.recorded(150_000);
        state.restart(3_990, None);
        state.count(4_404);
        assert_eq!(state.used(), 10_000 + 3_990 + 4_404);
        state.recorded(58_000);
        state.recorded(244_000);
        assert_eq!(
            state.used(),
            10_000 + 3_990 + (244_000 - 150_000 - 4_404) + 4_404,
            "the session grew 94,000 past where the replay compacted, and so did the replay"
        );
    }

    #[test]
    fn a_harness_compaction_starts_the_records_afresh_said_or_seen_twice() {
        let mut said = State::default();
        said.count(150_000);
        said.recorded(160_000);
        said.restart(4_000, None);
        said.harness_compacted();
        said.count(1_000);
        said.recorded(90_000);
        said.count(2_000);
        said.recorded(95_000);
        assert_eq!(
            said.used(),
            10_000 + 4_000 + 1_000 + 5_000,
            "where the harness compacted, its next record is where it stands"
        );

        let mut seen = State::default();
        seen.count(150_000);
        seen.recorded(160_000);
        seen.recorded(20_000);
        seen.count(1_000);
        seen.recorded(22_000);
        seen.count(3_000);
        seen.recorded(30_000);
        assert_eq!(
            seen.used(),
            10_000 + 150_000 + 1_000 + 8_000,
            "two records in a row under half the peak: the harness compacted, the growth from there counts"
        );
    }

    #[test]
    fn a_first_record_after_a_compaction_of_the_replays_own_adds_no_overhead() {
        let mut state = State::default();
        state.count(150_000);
        state.restart(3_000, None);
        state.count(1_000);
        state.recorded(170_000);
        assert_eq!(
            state.used(),
            4_000,
            "the record holds what the replay compacted away: it is no overhead"
        );
    }
}
