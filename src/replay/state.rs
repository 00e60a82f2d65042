//! Where the replayed agent stands: the conversation it is in, the
//! transcript since its boundary, and the context in use, by the session's
//! own records where it kept them.

use serde_json::Value;

use crate::sessions::Session;

/// Where the replayed agent stands.
#[derive(Debug, Default)]
pub(super) struct State {
    pub(super) conversation: String,
    /// The conversation the session started as; its successors are named after it.
    pub(super) first: String,
    /// The transcript since the last boundary, as `/summarize` takes it.
    pub(super) since_boundary: Vec<Value>,
    since_boundary_tokens: u64,
    /// The summary (or handoff) the context starts from.
    anchor_tokens: u64,
    pub(super) turns_since: usize,
    pub(super) last_handoff: Option<String>,
    /// Where the session recorded its context's size (see [`State::recorded`]).
    recorded: Option<Recorded>,
    /// It has compacted or rolled over once at least.
    restarted: bool,
    /// The agent's model, as the session recorded it.
    pub(super) model: Option<String>,
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
    /// The agent as it starts: in a conversation named after the session (its
    /// file's stem, in the letters a conversation id takes) and the run.
    pub(super) fn starting(session: &Session, run: &str) -> Self {
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
        Self {
            conversation: first.clone(),
            first,
            model,
            ..State::default()
        }
    }

    /// The context in use: the anchor and what came since, by the
    /// harness's count where the session recorded one.
    pub(super) fn used(&self) -> u64 {
        let overhead = self.recorded.map_or(0, |recorded| recorded.overhead);
        overhead + self.anchor_tokens + self.since_boundary_tokens
    }

    pub(super) fn count(&mut self, counted: u64) {
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
    pub(super) fn recorded(&mut self, used: u64) {
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
    pub(super) fn harness_compacted(&mut self) {
        if let Some(recorded) = &mut self.recorded {
            recorded.reset = true;
        }
    }

    /// After a compaction or a rollover: the context is the new anchor alone.
    pub(super) fn restart(&mut self, anchor_tokens: u64, handoff: Option<String>) {
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
